"""netbox-lsp: check NetBox REST filters, MCP tool calls and GraphQL documents.

The checks run in Rust (the same core as the ``netbox-lsp`` command and language server, which
this package also installs); this module gives them to Python callers in-process::

    from netbox_lsp import Checker
    checker = Checker(netbox_version="4.6")
    report = checker.check_call("dcim.device", {"device_role_id": 3})
    if not report.ok:
        retry_with = report.corrected  # None when a fix needs a human choice

See ``Checker`` for the three entry points (``check_call``, ``check_tool_call``, ``check_text``).
"""

from netbox_lsp._find import find_netbox_lsp_bin
from netbox_lsp._native import (
    Checker,
    Edit,
    Finding,
    Fix,
    Report,
    __version__,
    shipped_versions,
)

__all__ = [
    "Checker",
    "Edit",
    "Finding",
    "Fix",
    "Report",
    "__version__",
    "find_netbox_lsp_bin",
    "shipped_versions",
]
