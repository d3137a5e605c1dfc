#!/usr/bin/env bash
# Installs a real VS Code for the end-to-end test: code-server 4.100.3 from the npm registry
# (bundles VS Code 1.100.3, the newest whose engines accept Node 20) and playwright-core (drives
# Debian's chromium; downloads no browser), into $D. Nothing is fetched outside the package
# registries: code-server's install scripts (which download ripgrep/argon2/kerberos from GitHub)
# are skipped and the native modules are built here with node-gyp against the system's Node
# headers; Debian's `rg` stands in for @vscode/ripgrep; kerberos (proxy auth only) is left out.
# Idempotent: a finished install of the same versions in $D is kept (CI reuses it).
# Needs node 20, npm, g++, make, python3, /usr/include/node; apt-installs chromium and ripgrep.
set -euo pipefail
D=${D:?set D to the install folder}
CS_VERSION=4.100.3
PW_VERSION=1.65.1
STAMP="code-server@$CS_VERSION playwright-core@$PW_VERSION"
if [ "$(cat "$D/.setup-ok" 2>/dev/null)" = "$STAMP" ]; then
  echo "vscode-e2e setup: $STAMP already in $D"
  exit 0
fi
if ! command -v chromium >/dev/null || ! command -v rg >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ripgrep >/dev/null
fi
# node-gyp would download Node's headers; use the system's.
if [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
rm -rf "$D/prefix" "$D/pw" "$D/.setup-ok"; mkdir -p "$D"/{prefix,pw}   # only what this script made
# 1. code-server without its postinstall.
cd "$D/prefix" && echo '{"name":"cs-host","private":true}' > package.json
npm install --ignore-scripts --no-save "code-server@$CS_VERSION" >/dev/null
npm rebuild argon2 --build-from-source >/dev/null   # node-pre-gyp: compile instead of the GitHub prebuilt
VS="$D/prefix/node_modules/code-server/lib/vscode"
cd "$VS"
npm install --omit=dev --ignore-scripts >/dev/null
# node-pty's postinstall calls `npx node-gyp` (fails offline) after its .node file is built: check the files instead.
npm rebuild node-pty @vscode/spdlog native-watchdog @vscode/deviceid >/dev/null 2>&1 || true
for f in node-pty/build/Release/pty.node @vscode/spdlog/build/Release/spdlog.node native-watchdog/build/Release/watchdog.node; do
  test -f "node_modules/$f" || { echo "vscode-e2e setup: native module $f was not built" >&2; exit 1; }
done
mkdir -p node_modules/@vscode/ripgrep/bin && cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
ln -sfn node_modules node_modules.asar                       # what code-server's postinstall.sh does
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev --ignore-scripts >/dev/null && node ./postinstall.mjs >/dev/null)
# 2. playwright-core, no browser download.
cd "$D/pw" && echo '{"name":"pw","private":true}' > package.json
npm install --ignore-scripts --no-save "playwright-core@$PW_VERSION" >/dev/null
echo "$STAMP" > "$D/.setup-ok"
echo "vscode-e2e setup: $STAMP installed in $D"
