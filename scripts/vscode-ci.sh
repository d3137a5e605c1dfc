#!/usr/bin/env bash
# CI for the VS Code extension: install from the lock file, type-check + unit-test the pure
# functions (node:test), build the platform .vsix with the release server inside
# (bin/netbox-lsp, `vsce package --target`), then unpack it and start the bundled server through
# the extension's own server resolution (initialize handshake). Needs Node.js >= 20, npm, python3
# (unzip) and target/release/netbox-lsp (built by `cargo test --release` before this step; this
# script does not compile the crate). No network after npm ci.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${NETBOX_LSP_BIN:-$ROOT/target/release/netbox-lsp}"
test -x "$BIN" || { echo "vscode-ci: $BIN missing: build it first (cargo build --release)" >&2; exit 1; }
cd "$ROOT/editors/vscode"
echo "vscode-ci: node $(node --version), npm $(npm --version)"
npm ci --no-audit --no-fund
npm test
TARGET="$(node -p 'process.platform + "-" + process.arch')"
VSIX="$PWD/netbox-lsp-$TARGET.vsix"
npm run package:target -- --binary "$BIN" --out "$VSIX"
ls -l "$VSIX"
NETBOX_LSP_VSIX="$VSIX" npm run test:vsix
echo "vscode-ci: OK ($VSIX)"
