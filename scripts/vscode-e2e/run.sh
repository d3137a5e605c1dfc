#!/usr/bin/env bash
# The VS Code end-to-end test (issue 12 §6): installs the packaged .vsix into a real VS Code
# (code-server 4.100.3 = VS Code 1.100.3, set up by setup.sh), with NO server path setting and no
# NETBOX_LSP_PATH, so the extension must start the binary it bundles; then e2e.js drives it in
# headless chromium: diagnostics in the Problems panel, hover, completion of a filter name and a
# quick-fix on a scratch copy of examples/skills/netbox-inventory/SKILL.md; and "Verify against
# NetBox" (issue 21) against scripts/live-replay.py (what NetBox 4.6.8 answered), turned on in the
# user settings: a code lens on one call, the palette command on the document, the verdicts in
# the Problems panel and in hover; afterwards the replay's log must hold only list GETs with
# limit=1 (and the server's status check and the OpenAPI read it builds that NetBox's knowledge
# from), each with the token.
#   scripts/vscode-e2e/run.sh editors/vscode/netbox-lsp-linux-x64.vsix
# VSCODE_E2E_DIR: where code-server is installed (kept between runs; default under ~/.cache).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VSIX="$(realpath "${1:?usage: run.sh <platform .vsix>}")"
export D="${VSCODE_E2E_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/netbox-lsp-vscode-e2e}"
T0=$(date +%s)
"$ROOT/scripts/vscode-e2e/setup.sh"
T1=$(date +%s)
RUN="$(mktemp -d /tmp/netbox-lsp-vscode-e2e.XXXXXX)"
mkdir -p "$RUN"/{data/User,exts,ws,shots,xdg/config,xdg/data,home}
CS="$D/prefix/node_modules/code-server/out/node/entry.js"
# code-server writes under ~/.config and ~/.local/share even with --user-data-dir.
export XDG_CONFIG_HOME="$RUN/xdg/config" XDG_DATA_HOME="$RUN/xdg/data"
unset NETBOX_LSP_PATH
# The live replay: the user's NetBox for the live checks (user settings below).
export NETBOX_E2E_TOKEN="0123456789abcdef0123456789abcdef01234567"
LIVE_LOG="$RUN/live-requests.jsonl"
python3 "$ROOT/scripts/live-replay.py" 4.6.8 "$NETBOX_E2E_TOKEN" "$LIVE_LOG" >"$RUN/live-port" 2>"$RUN/live.err" &
LIVE_PID=$!
for _ in $(seq 100); do grep -q PORT "$RUN/live-port" 2>/dev/null && break; sleep 0.1; done
LIVE_PORT="$(sed -n 's/^PORT //p' "$RUN/live-port")"
[ -n "$LIVE_PORT" ] || { cat "$RUN/live.err" >&2; exit 1; }
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
cat > "$RUN/data/User/settings.json" <<JSON
{ "workbench.startupEditor": "none", "workbench.tips.enabled": false, "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false,
  "update.mode": "none", "workbench.enableExperiments": false, "window.restoreWindows": "none",
  "git.enabled": false, "workbench.editor.enablePreview": false, "editor.quickSuggestions": { "strings": false },
  "chat.disableAIFeatures": true,
  "netboxLsp.instance.url": "http://127.0.0.1:$LIVE_PORT", "netboxLsp.instance.tokenEnv": "NETBOX_E2E_TOKEN",
  "netboxLsp.live.enabled": true }
JSON
node "$CS" --user-data-dir "$RUN/data" --extensions-dir "$RUN/exts" --install-extension "$VSIX" >"$RUN/install.log" 2>&1 \
  || { cat "$RUN/install.log" >&2; exit 1; }
BUNDLED="$(ls -d "$RUN"/exts/netbox-lsp.netbox-lsp-*/bin/netbox-lsp)"
echo "vscode-e2e: installed $(basename "$VSIX"); bundled server $BUNDLED"
cp "$ROOT/examples/skills/netbox-inventory/SKILL.md" "$RUN/ws/SKILL.md"
printf '# Completion\n\n```python\nnetbox_get_objects("dcim.device", filters={"rol": 3})\n```\n' > "$RUN/ws/complete.md"
printf 'Leaf switches: https://netbox.example.net/api/dcim/devices/?site_id=12&device_role_id=4\n' > "$RUN/ws/notes.txt"
cp "$ROOT/editors/nvim/test/live/skill.md" "$RUN/ws/live.md"
(cd "$RUN/ws" && "$BUNDLED" check --format json SKILL.md > expected.json 2>/dev/null) || true
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$RUN/config.yaml"
# Own process group, so that stopping it ends its children (extension host, netbox-lsp) too.
setsid node "$CS" --config "$RUN/config.yaml" --user-data-dir "$RUN/data" --extensions-dir "$RUN/exts" \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  >"$RUN/server.log" 2>&1 &
CS_PID=$!
stop() { kill -- "-$CS_PID" 2>/dev/null || true; kill "$LIVE_PID" 2>/dev/null || true; sleep 0.5; kill -9 -- "-$CS_PID" 2>/dev/null || true; }
trap stop EXIT
for _ in $(seq 120); do
  node -e "fetch('http://127.0.0.1:$PORT/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))" && break
  kill -0 "$CS_PID" 2>/dev/null || { cat "$RUN/server.log" >&2; exit 1; }
  sleep 0.5
done
RC=0
CS_URL="http://127.0.0.1:$PORT" WS="$RUN/ws" SHOTS="$RUN/shots" HOME="$RUN/home" NODE_PATH="$D/pw/node_modules" \
  timeout 300 node "$ROOT/scripts/vscode-e2e/e2e.js" || RC=$?
# The extension's log says which server it started: the bundled one, found with no setting.
if grep -rqs "server path from bundled" "$RUN/data/logs"; then
  echo "vscode-e2e: ok   the extension started its bundled server (log: server path from bundled)"
else
  echo "vscode-e2e: FAIL the extension's log does not say it started the bundled server" >&2
  grep -rhs "Starting .*--stdio" "$RUN/data/logs" >&2 || true
  RC=1
fi
# Only the requests a live check may send reached the replay, each with the token.
if python3 - "$LIVE_LOG" <<'PY'
import json, sys
seen = [json.loads(l) for l in open(sys.argv[1])] if __import__("os").path.exists(sys.argv[1]) else []
bad = [s for s in seen if s["violation"] or not s["auth_ok"]]
live = sorted({s["path"] for s in seen if s["path"] not in ("/api/status/", "/api/schema/?format=json")})
want = ["/api/dcim/devices/?device_role_id=6&limit=1", "/api/dcim/devices/?limit=1", "/api/dcim/devices/?role_id=6&limit=1"]
for s in seen:
    print("vscode-e2e:   sent", s["method"], s["path"])
sys.exit(1 if bad or live != want else 0)
PY
then
  echo "vscode-e2e: ok   the live checks sent only list GETs with limit=1, each with the token"
else
  echo "vscode-e2e: FAIL the live requests were not the expected ones (above)" >&2
  RC=1
fi
stop; trap - EXIT
if [ "$RC" = 0 ]; then
  echo "vscode-e2e: PASS (setup $((T1 - T0)) s, test $(( $(date +%s) - T1 )) s)"
  rm -rf "$RUN"
else
  echo "vscode-e2e: FAIL (setup $((T1 - T0)) s, test $(( $(date +%s) - T1 )) s); screenshots and logs in $RUN" >&2
fi
exit $RC
