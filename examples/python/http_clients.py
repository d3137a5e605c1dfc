"""NetBox REST calls written with HTTP clients and NetBox Labs Platform MCP code mode: the URLs
are built at run time (f-strings, concatenation, urljoin), each wrong filter next to its right
form. `netbox-lsp check examples/python/http_clients.py` reports the wrong ones.
"""

import os
from urllib.parse import urlencode, urljoin
from urllib.request import urlopen

import httpx
import requests

NETBOX_URL = os.environ["NETBOX_URL"]  # https://netbox.example.com
API_URL = f"{NETBOX_URL}/api"
HEADERS = {"Authorization": f"Token {os.environ['NETBOX_TOKEN']}"}


def leaf_switches(site_id):
    # Wrong: the 3.x role filter is ignored on 4.x, so this returns every device.
    requests.get(f"{API_URL}/dcim/devices/?device_role_id=3&site_id={site_id}", headers=HEADERS)
    # Right.
    return requests.get(f"{API_URL}/dcim/devices/?role_id=3&site_id={site_id}", headers=HEADERS)


def addresses_in(prefix):
    session = requests.Session()
    # Wrong: `within` is a prefix filter; ip-addresses ignore it.
    session.get(NETBOX_URL + "/api/ipam/ip-addresses/", params={"within": prefix})
    # Right.
    return session.get(NETBOX_URL + "/api/ipam/ip-addresses/", params={"parent": prefix})


def interfaces_of(device_ids):
    url = urljoin(NETBOX_URL, "/api/dcim/interfaces/")
    # Wrong: `__in` is no NetBox lookup; pass a list (sent as repeated keys).
    requests.get(url, params={"device_id__in": device_ids})
    # Right.
    return requests.get(url, params={"device_id": device_ids})


async def planned_sites():
    async with httpx.AsyncClient(base_url=API_URL, headers=HEADERS) as client:
        # Wrong: `planed` is not a choice of `status` (HTTP 400).
        await client.get("/api/dcim/sites/", params={"status": "planed"})
        # Right.
        return await client.get("/api/dcim/sites/", params={"status": "planned"})


def active_prefixes(vrf_id):
    # Wrong: `vrf_id__in` is no NetBox lookup; the dict is read where `params=` names it.
    params = {"vrf_id__in": vrf_id, "status": "active"}
    requests.get(f"{API_URL}/ipam/prefixes/", params=params)
    # Right.
    params = {"vrf_id": vrf_id, "status": "active"}
    return requests.get(f"{API_URL}/ipam/prefixes/", params=params)


class NetBoxClient:
    """A project's own client wrapper: the path names the endpoint, `params=` the filters."""

    def _request(self, method, path, params=None):
        return requests.request(method, NETBOX_URL + path, params=params, headers=HEADERS)

    def _get(self, path, params=None):
        return self._request("GET", path, params=params)

    def leaves(self):
        # Wrong: the 3.x role filter is ignored on 4.x.
        self._get("/api/dcim/devices/", params={"device_role": "leaf"})
        # Right.
        return self._get("/api/dcim/devices/", params={"role": "leaf"})


def racks(site):
    # Wrong: `site_slug` is no filter of racks; the slug goes to `site`.
    urlopen(f"{API_URL}/dcim/racks/?" + urlencode({"site_slug": site}))
    # Right.
    return urlopen(f"{API_URL}/dcim/racks/?" + urlencode({"site": site}))


# NetBox Labs Platform MCP code mode (`netbox_execute`): the injected helpers.
def code_mode(get, changelogs):
    # Wrong: `created` is not a choice of `action`.
    changelogs(filters={"action": "created"}, limit=20)
    # Right.
    changelogs(filters={"action": "create"}, limit=20)
    # Wrong: `device_role` was renamed `role` in NetBox 4.0.
    get("dcim.device", filters={"device_role": "leaf"}, fields=["name"])
    # Right.
    get("dcim.device", filters={"role": "leaf"}, fields=["name"])
    # Right: code mode also resolves the path form to the endpoint.
    return get("dcim/interfaces", filters={"device_id": 1, "enabled": True})
