"""Nightly audit: devices that are active but have no primary IP, and recently deleted objects.

Runs against the NetBox REST API with pynetbox, and shows the same queries as MCP tool calls
for the agent runbook.
"""

import os

import pynetbox

nb = pynetbox.api(os.environ["NETBOX_URL"], token=os.environ["NETBOX_TOKEN"])

SITE = "dc-frankfurt-1"


def active_without_primary_ip():
    # Right: boolean filters take True/False.
    return nb.dcim.devices.filter(site=SITE, status="active", has_primary_ip=False)


def unassigned_devices():
    # Right for pynetbox: None is sent as "null", the null selector.
    return nb.dcim.devices.filter(site=SITE, tenant_id=None)


def leaf_switches():
    # Leaf switches of the site, with the role filter of the NetBox 3.x days.
    return nb.dcim.devices.filter(site=SITE, device_role="leaf")


def circuits_by_type():
    # Circuits of one type (the filter name as an older script spelled it).
    return nb.circuits.circuits.filter(circuit_type_id=2, status="active")


def vms_in_cluster(cluster_id):
    return nb.virtualization.virtual_machines.filter(cluster_id=cluster_id, status="active")


# The same questions as MCP tool calls (what the agent sends).
AGENT_CALLS = [
    netbox_get_objects(  # noqa: F821 - provided by the MCP client
        object_type="dcim.device",
        filters={"site": SITE, "status": "active", "has_primary_ip": False},
        fields=["id", "name"],
        limit=100,
    ),
    netbox_get_objects(  # noqa: F821
        object_type="dcim.device",
        filters={"site": SITE, "tenant_id": None},
        ordering="",
    ),
    netbox_get_objects(  # noqa: F821
        object_type="ipam.prefix",
        filters={"within": "10.20.0.0/16", "status": "active"},
    ),
    netbox_get_changelogs(filters={"action": "deleted", "time_after": "2025-05-01"}),  # noqa: F821
]


if __name__ == "__main__":
    for device in active_without_primary_ip():
        print(f"{device.name}: active without a primary IP")
