#!/usr/bin/env bash
# Issue 32 §2 in CI: `netbox-lsp mcp` driven by a real MCP client, the official Python SDK (`mcp`
# from PyPI, pinned below), over stdio: initialize, list the tools (and the size of their
# surface), call each, malformed arguments, an instance index (tests/mcp/test_mcp.py).
# Usage: scripts/mcp-ci.sh [path/to/netbox-lsp]   (default target/release/netbox-lsp)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-target/release/netbox-lsp}")
PY=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
t0=$SECONDS
unset PIP_FIND_LINKS

# mcp 2.3.0: the newest release when this test was written (2026-12); its client speaks MCP
# 2025-11-25 to the server.
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "mcp==2.3.0" "pytest>=8,<10"
"$WORK/venv/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))'
NETBOX_LSP_BIN="$BIN" "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider tests/mcp
echo "mcp ci done in $((SECONDS - t0)) s"
