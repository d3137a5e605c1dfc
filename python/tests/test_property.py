"""Property over generated calls (issue 22 §1): whatever the API says is corrected re-checks with
no error or warning, the object type included; a call whose object type or endpoint is wrong,
guessed or unknown is never handed back as corrected filters by ``check_call``.

The calls mix real object types and endpoint paths with the misspellings agents write
(``ipam.ip_address``, ``dcim.devices``, ``/api/ipam/ip_addresses/``), real filter names with
renamed, mis-looked-up and wrong-type ones, and values of every kind the wire sees.
"""

import json

from hypothesis import HealthCheck, given, settings  # pip install hypothesis (CI installs it)
from hypothesis import strategies as st

from netbox_lsp import Checker

CHECKER = Checker(netbox_version="4.6")

TYPES = [
    # Right, as the MCP tools take them and as endpoint paths.
    "dcim.device", "dcim.interface", "dcim.site", "ipam.ipaddress", "ipam.prefix", "ipam.vlan",
    "virtualization.virtualmachine", "extras.tag", "core.objectchange", "tenancy.tenant",
    "dcim/devices", "/api/ipam/ip-addresses/", "/api/dcim/interfaces/",
    # Misspelled or guessed: the certain fix names one type, or several are near, or none.
    "ipam.ip_address", "ipam.ipaddresses", "dcim.devices", "dcim/interface", "dcim.Device",
    "device", "ipam.ip-address", "virtualization.virtual_machine", "dcim.devic", "ipam.prefixs",
    "/api/ipam/ip_addresses/", "/api/dcim/device/", "/api/dcim/interface_connections/",
    # Unknown: plugins, placeholders, odd strings.
    "netbox_bgp.session", "/api/plugins/bgp/session/", "<object type>", "", "dcim.", "x y",
]

NAMES = [
    "role_id", "role", "site_id", "site", "status", "name", "tenant_id", "tenant", "parent",
    "within", "within_include", "q", "tag", "device_id", "device", "vrf_id", "address",
    "prefix", "vlan_id", "mask_length", "family", "limit", "offset", "ordering", "brief",
    "fields", "id", "serial", "action", "type", "enabled", "mtu", "vid", "slug",
    # Renamed, wrong lookups, wrong relation forms, near names.
    "device_role_id", "site_id__in", "tenant__isnull", "name__icontains", "status__in",
    "rol", "device__name", "ip_address", "cf_owner", "role__slug", "vlan__vid",
]
LOOKUPS = ["", "", "", "__n", "__ic", "__in", "__isnull", "__empty", "__gte", "__regex", "__x"]

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=5000),
    st.sampled_from(
        ["active", "Active", "planned", "offline", "10.0.0.0/8", "10.0.0.1/24", "leaf",
         "null", "", "true", "1,2", "dc1", "create", "created", "^sw[0-9]+$", "{{ site }}"]
    ),
    st.floats(min_value=-1, max_value=100, allow_nan=False),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3))
KEYS = st.builds(lambda n, l: n + l, st.sampled_from(NAMES), st.sampled_from(LOOKUPS))
FILTERS = st.dictionaries(KEYS, VALUES, max_size=4)


def blocking(report):
    return [(f.code, f.key, f.message) for f in report if f.severity in ("error", "warning")]


@settings(max_examples=600, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(TYPES), filters=FILTERS)
def test_check_call_corrected_rechecks_clean(target, filters):
    report = CHECKER.check_call(target, filters)
    corrected = report.corrected
    target_findings = [f for f in report if f.key is None and f.severity in ("error", "warning")]
    if filters and report.endpoint is None:
        # No endpoint known: nothing was checked, so nothing may pass as checked or corrected.
        assert not report.ok and corrected is None, (target, filters)
    if corrected is None:
        return
    # A wrong target is never the caller's to keep with corrected filters.
    assert not any(f.code in ("unknown-object-type", "unknown-endpoint") for f in target_findings)
    again = CHECKER.check_call(target, corrected)
    assert not blocking(again), (target, filters, corrected, blocking(again))
    assert again.corrected == corrected


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from([t for t in TYPES if "/" not in t]), filters=FILTERS)
def test_check_tool_call_corrected_rechecks_clean(target, filters):
    call = {"name": "netbox_get_objects", "arguments": {"object_type": target, "filters": filters}}
    report = CHECKER.check_tool_call(call)
    corrected = report.corrected
    if corrected is None:
        return
    # The whole call, object type included, as the agent would send it next.
    json.dumps(corrected)
    again = CHECKER.check_tool_call(corrected)
    assert not blocking(again), (call, corrected, blocking(again))


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from([t for t in TYPES if "/" not in t] + ["{{ object_type }}", "OBJECT_TYPE"]),
       filters=FILTERS)
def test_check_call_and_check_tool_call_agree(target, filters):
    # One rule for a call about to be sent, whichever entry point the agent uses: the same
    # findings (an object type that resolves to nothing, a placeholder included, is a warning in
    # both, never a clean pass), and a corrected call only from check_tool_call, which can carry
    # the new object type.
    call = {"name": "netbox_get_objects", "arguments": {"object_type": target, "filters": filters}}
    direct = CHECKER.check_call(target, filters)
    tool = CHECKER.check_tool_call(call)
    assert sorted((f.code, f.severity) for f in direct) == sorted((f.code, f.severity) for f in tool), (
        call, [(f.code, f.key) for f in direct], [(f.code, f.key) for f in tool])
    assert direct.ok == tool.ok
