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
    # Leaf switches of a site, as the NetBox 3.x version of this script asked for them.
    requests.get(f"{API_URL}/dcim/devices/?device_role_id=3&site_id={site_id}", headers=HEADERS)
    # Right.
    return requests.get(f"{API_URL}/dcim/devices/?role_id=3&site_id={site_id}", headers=HEADERS)


def addresses_in(prefix):
    session = requests.Session()
    # Addresses inside a prefix, asked with a prefix filter's name.
    session.get(NETBOX_URL + "/api/ipam/ip-addresses/", params={"within": prefix})
    # Right.
    return session.get(NETBOX_URL + "/api/ipam/ip-addresses/", params={"parent": prefix})


def interfaces_of(device_ids):
    url = urljoin(NETBOX_URL, "/api/dcim/interfaces/")
    # Interfaces of several devices, asked with a Django lookup.
    requests.get(url, params={"device_id__in": device_ids})
    # Right.
    return requests.get(url, params={"device_id": device_ids})


async def planned_sites():
    async with httpx.AsyncClient(base_url=API_URL, headers=HEADERS) as client:
        # Planned sites (with a typo in the status value).
        await client.get("/api/dcim/sites/", params={"status": "planed"})
        # Right.
        return await client.get("/api/dcim/sites/", params={"status": "planned"})


def active_prefixes(vrf_id):
    # Prefixes of several VRFs: the dict is read where `params=` names it.
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
        # Leaf switches with the NetBox 3.x role filter.
        self._get("/api/dcim/devices/", params={"device_role": "leaf"})
        # Right.
        return self._get("/api/dcim/devices/", params={"role": "leaf"})


def racks(site):
    # Racks of a site, by a guessed filter name.
    urlopen(f"{API_URL}/dcim/racks/?" + urlencode({"site_slug": site}))
    # Right.
    return urlopen(f"{API_URL}/dcim/racks/?" + urlencode({"site": site}))


# NetBox Labs Platform MCP code mode (`netbox_execute`): the injected helpers.
def code_mode(get, changelogs):
    # Changes that created objects (the action in the past tense).
    changelogs(filters={"action": "created"}, limit=20)
    # Right.
    changelogs(filters={"action": "create"}, limit=20)
    # Leaf switches with the NetBox 3.x role filter name.
    get("dcim.device", filters={"device_role": "leaf"}, fields=["name"])
    # Right.
    get("dcim.device", filters={"role": "leaf"}, fields=["name"])
    # Right: code mode also resolves the path form to the endpoint.
    return get("dcim/interfaces", filters={"device_id": 1, "enabled": True})
