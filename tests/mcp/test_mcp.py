"""`netbox-lsp mcp` end to end with a real MCP client: the official Python SDK (`mcp` from PyPI,
pinned in scripts/mcp-ci.sh) starts the server over stdio, initializes, lists the tools and calls
each one, including with malformed arguments (a tool error, never a crash) and with an instance
index (custom fields and a plugin). Issue 32 §2.

Run: NETBOX_LSP_BIN=target/release/netbox-lsp python -m pytest tests/mcp  (scripts/mcp-ci.sh)
"""

import asyncio
import json
import os
import pathlib
import subprocess
import tempfile

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("NETBOX_LSP_BIN", str(ROOT / "target/release/netbox-lsp"))


def session(steps, args=("mcp",), cwd=None):
    """Runs `steps(session)` against a fresh `netbox-lsp mcp` server; returns its result."""

    async def main():
        params = StdioServerParameters(command=BIN, args=list(args), cwd=cwd)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return await steps(s)

    return asyncio.run(main())


async def call(s, tool, arguments):
    """(is_error, parsed JSON or the error text) of one tool call."""
    r = await s.call_tool(tool, arguments)
    text = r.content[0].text
    if r.is_error:
        return True, text
    return False, json.loads(text)


def test_initialize_and_the_tool_surface():
    async def steps(s):
        return await s.list_tools()

    tools = session(steps).tools
    assert [t.name for t in tools] == ["check_call", "check_graphql", "list_filters", "explain"]
    # What the agent pays for in every turn: names, descriptions, input schemas.
    surface = json.dumps(
        [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools]
    )
    assert len(surface) < 8000, len(surface)
    for t in tools:
        assert t.input_schema["type"] == "object"
        assert t.input_schema["required"]


def test_check_call_wrong_right_and_release():
    async def steps(s):
        wrong = await call(s, "check_call", {"target": "dcim.device", "filters": {"device_role_id": 3, "status": "Active"}})
        right = await call(s, "check_call", {"target": "/api/dcim/devices/", "filters": {"role_id": 3, "status": "active"}})
        # `owner_id` came with NetBox 4.4: on 4.3 it is ignored.
        old = await call(s, "check_call", {"target": "dcim.device", "filters": {"owner_id": 3}, "release": "4.3"})
        new = await call(s, "check_call", {"target": "dcim.device", "filters": {"owner_id": 3}})
        target = await call(s, "check_call", {"target": "ipam.ip_address", "filters": {"address": "10.0.0.1/24"}})
        return wrong, right, old, new, target

    wrong, right, old, new, target = session(steps)
    assert wrong[0] is False
    w = wrong[1]
    assert w["verdict"] == "wrong" and w["endpoint"] == "/api/dcim/devices/"
    assert [(f["code"], f["filter"]) for f in w["findings"]] == [
        ("unknown-filter", "device_role_id"),
        ("invalid-choice", "status"),
    ]
    assert w["corrected"] == {"filters": {"role_id": 3, "status": "active"}}
    assert right[1]["verdict"] == "ok" and right[1]["findings"] == [] and "corrected" not in right[1]
    assert old[1]["release"] == "4.3.3" and old[1]["verdict"] == "wrong"
    assert [f["code"] for f in old[1]["findings"]] == ["version-only"]
    assert new[1]["verdict"] == "ok"
    # A wrong object type is corrected with the target.
    assert target[1]["corrected"]["target"] == "ipam.ipaddress"


def test_check_graphql():
    async def steps(s):
        wrong = await call(s, "check_graphql", {"query": '{ device_list(filter: {name: {exact: "leaf1"}}, limit: 5) { id } }'})
        right = await call(s, "check_graphql", {"query": '{ device_list(filters: {name: {exact: "leaf1"}}, pagination: {limit: 5}) { id } }'})
        variables = await call(
            s,
            "check_graphql",
            {"query": "query($id: ID!) { device(id: $id) { name } }", "variables": {"id": [1, 2]}},
        )
        return wrong, right, variables

    wrong, right, variables = session(steps)
    w = wrong[1]
    assert w["verdict"] == "wrong"
    assert [(f["code"], f["line"], f["column"]) for f in w["findings"]] == [
        ("graphql-filter-argument", 1, 15),
        ("graphql-pagination", 1, 49),
    ]
    assert w["corrected"] == '{ device_list(filters: {name: {exact: "leaf1"}}, pagination: {limit: 5}) { id } }'
    assert right[1]["verdict"] == "ok" and right[1]["findings"] == []
    assert variables[1]["verdict"] == "wrong", variables


def test_list_filters():
    async def steps(s):
        role = await call(s, "list_filters", {"endpoint": "dcim.device", "match": "role"})
        page1 = await call(s, "list_filters", {"endpoint": "/api/dcim/devices/", "limit": 5})
        page2 = await call(s, "list_filters", {"endpoint": "/api/dcim/devices/", "limit": 5, "offset": 5})
        status = await call(s, "list_filters", {"endpoint": "/api/dcim/devices/", "match": "status"})
        unknown = await call(s, "list_filters", {"endpoint": "/api/dcim/device/"})
        return role, page1, page2, status, unknown

    role, page1, page2, status, unknown = session(steps)
    names = [f["name"] for f in role[1]["filters"]]
    assert "role_id" in names and "device_role_id" not in names
    assert page1[1]["next_offset"] == 5 and len(page1[1]["filters"]) == 5
    assert page1[1]["total"] == page2[1]["total"]
    assert not {f["name"] for f in page1[1]["filters"]} & {f["name"] for f in page2[1]["filters"]}
    st = next(f for f in status[1]["filters"] if f["name"] == "status")
    assert "active" in st["choices"] and "n" in st["lookups"].split()
    assert unknown[0] is True and "did you mean `/api/dcim/devices/`" in unknown[1]


def test_explain():
    async def steps(s):
        return await call(s, "explain", {"code": "invalid-choice"}), await call(s, "explain", {"code": "unknown_filter"})

    known, unknown = session(steps)
    assert known[1]["code"] == "invalid-choice" and known[1]["severity"] == "warning"
    assert "wrong" in known[1] and known[1]["help"]
    assert unknown[0] is True and "did you mean `unknown-filter`" in unknown[1]


def test_malformed_arguments_are_tool_errors_and_the_server_lives_on():
    async def steps(s):
        out = [
            await call(s, "check_call", {"filters": {}}),
            await call(s, "check_call", {"target": "dcim.device", "filters": ["role_id", 3]}),
            await call(s, "check_call", {"target": 42, "filters": {}}),
            await call(s, "check_call", {"target": "dcim.device", "filters": {}, "release": "3.7"}),
            await call(s, "check_graphql", {"query": "{ site_list { name } }", "variables": "x"}),
            await call(s, "list_filters", {"endpoint": "dcim.device", "offset": -1}),
            await call(s, "explain", {}),
            await call(s, "no_such_tool", {"x": 1}),
        ]
        after = await call(s, "check_call", {"target": "dcim.device", "filters": {"role_id": 3}})
        return out, after

    out, after = session(steps)
    for is_error, text in out:
        assert is_error is True, text
        assert isinstance(text, str) and text
    assert "`target` is required" in out[0][1]
    assert "`filters` must be an object" in out[1][1]
    assert "3.7" in out[3][1]
    assert after == (False, after[1]) and after[1]["verdict"] == "ok"


def test_an_instance_index_knows_custom_fields_and_plugins():
    inst = ROOT / "tests/fixtures/instance"
    with tempfile.TemporaryDirectory() as tmp:
        index = pathlib.Path(tmp) / "netbox.index.json.gz"
        subprocess.run(
            [
                BIN, "index", "build",
                "--openapi", str(inst / "openapi.json.gz"),
                "--status", str(inst / "status.json.gz"),
                "--custom-fields", str(inst / "custom-fields.json.gz"),
                "--choice-sets", str(inst / "custom-field-choice-sets.json.gz"),
                "-o", str(index),
            ],
            check=True,
            capture_output=True,
        )

        async def steps(s):
            cf = await call(s, "list_filters", {"endpoint": "dcim.device", "match": "cf_"})
            choice = await call(s, "check_call", {"target": "dcim.device", "filters": {"cf_lifecycle": "bogus"}})
            plugin = await call(s, "check_call", {"target": "/api/plugins/bgp/session/", "filters": {"remote_as": 65001}})
            plugin_wrong = await call(s, "check_call", {"target": "/api/plugins/bgp/session/", "filters": {"remote_asn": 65001}})
            status = await call(s, "check_call", {"target": "dcim.device", "filters": {"status": "maintenance"}})
            return cf, choice, plugin, plugin_wrong, status

        cf, choice, plugin, plugin_wrong, status = session(steps, args=("mcp", "--index", str(index)))
    names = {f["name"] for f in cf[1]["filters"]}
    assert {"cf_lifecycle", "cf_owner_team", "cf_monitored"} <= names, names
    assert cf[1]["release"] == "4.6.8"
    assert choice[1]["verdict"] != "ok", choice
    assert plugin[1]["verdict"] == "ok", plugin
    assert plugin_wrong[1]["verdict"] == "wrong", plugin_wrong
    # The instance's own choice set (FIELD_CHOICES) has `maintenance`.
    assert status[1]["verdict"] == "ok", status
