"""Wiring netbox-lsp into an MCP tool handler: check the filters before the call leaves for
NetBox, then send it as is, retry with the corrected filters, or refuse with the findings.

NetBox answers a misspelled filter with HTTP 200 and the *unfiltered* list, so an agent that
sends `{"device_role_id": 3}` gets every device and believes it got the leaf switches. The check
costs microseconds in-process (docs/benchmarks.md) — far less than the round trip it guards.

Run: python examples/python/mcp_handler.py   (with the netbox-lsp wheel installed)
"""

from __future__ import annotations

from typing import Any, Callable

from netbox_lsp import Checker

CHECKER = Checker(netbox_version="4.6")  # or Checker(index="my-netbox.index.json.gz")


def guarded_get_objects(
    object_type: str,
    filters: dict[str, Any],
    send: Callable[[str, dict[str, Any]], Any],
    *,
    auto_fix: bool = True,
) -> dict[str, Any]:
    """The body of a `netbox_get_objects` tool handler with the check in front of `send`.

    Returns the tool result: NetBox's answer, or an error the model can act on (the findings,
    each with its message and the fixes it could apply) when a filter would be ignored.
    """
    report = CHECKER.check_call(object_type, filters)
    if report.ok:
        return {"result": send(object_type, filters)}
    corrected = report.corrected
    if auto_fix and corrected is not None:
        # Every finding had one certain fix (a rename, a choice's case, the null selector):
        # the meaning is kept, so send the corrected filters and say what changed.
        return {
            "result": send(object_type, corrected),
            "note": "filters corrected before sending: "
            + "; ".join(f"{f.key}: {f.fixes[0].title}" for f in report if f.fixes),
            "filters_sent": corrected,
        }
    # A fix needs a choice (several candidate names, or no safe rewrite), or the object type
    # itself is wrong (`ipam.ip_address`: `corrected` is None, the findings name the type and
    # what its filters need): refuse, so the model never reads an unfiltered list as the answer.
    return {
        "error": "NetBox would ignore or reject this call; nothing was sent.",
        "findings": [
            {
                "filter": f.key,
                "code": f.code,
                "severity": f.severity,
                "message": f.message,
                "suggestions": [fix.title for fix in f.fixes],
            }
            for f in report
        ],
    }


def guarded_tool_call(call: dict[str, Any]) -> dict[str, Any] | None:
    """The same check on a whole tool call as the agent emitted it (any NetBox MCP tool, also
    with the arguments as a JSON string): returns the findings as dicts, or None when clean."""
    report = CHECKER.check_tool_call(call)
    return None if report.ok else {"findings": [f.as_dict() for f in report], "retry_with": report.corrected}


if __name__ == "__main__":
    def fake_send(object_type: str, filters: dict[str, Any]) -> str:
        return f"GET {object_type} {filters}"

    for filters in (
        {"role_id": 3, "status": "active"},         # sent as is
        {"device_role_id": 3, "status": "Active"},  # retried as {"role_id": 3, "status": "active"}
        {"rol": 3},                                 # refused: `role` is near, but takes a slug
    ):
        print(filters, "→", guarded_get_objects("dcim.device", filters, fake_send))
    # Refused: a misspelled object type, whose filters are checked against `ipam.ipaddress`
    # (`within` is a prefix filter: `parent` is meant).
    print(guarded_get_objects("ipam.ip_address", {"within": "10.0.0.0/8"}, fake_send))
    print(guarded_tool_call({"name": "netbox_get_objects",
                             "arguments": {"object_type": "ipam.ipaddress", "filters": {"within": "10.0.0.0/8"}}}))
