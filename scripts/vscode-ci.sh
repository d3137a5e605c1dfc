#!/usr/bin/env bash
# CI for the VS Code extension: install from the lock file, type-check + unit-test the pure
# functions (node:test), then build the .vsix. Needs Node.js >= 20 and npm; no network after npm ci.
set -euo pipefail
cd "$(dirname "$0")/../editors/vscode"
echo "vscode-ci: node $(node --version), npm $(npm --version)"
npm ci --no-audit --no-fund
npm test
npm run package
ls -l netbox-lsp.vsix
echo "vscode-ci: OK"
