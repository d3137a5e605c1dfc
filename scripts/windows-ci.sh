#!/usr/bin/env bash
# Windows x64 smoke test (issue 22 §3): builds netbox-lsp.exe as releases do (scripts/dist.sh
# --binary-only win32-x64: Debian's mingw-w64) and runs it under Debian's wine: `--version`,
# `check examples/` with the host build's findings, paths with backslashes and a drive letter
# in the text output and in SARIF. Installs mingw-w64 and wine from Debian when missing
# (scripts/platform-tools.sh windows: 178 MB download, about 75 s).
# Usage: scripts/windows-ci.sh [host-binary]   (default target/release/netbox-lsp)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
HOST=${1:-target/release/netbox-lsp}
WORK=$(mktemp -d)
# The wine prefix's wineserver (started here) ends before its folder goes.
trap '[ -z "${WINEPREFIX:-}" ] || wineserver -k 2>/dev/null || true; rm -rf "$WORK"' EXIT
say() { printf -- '--- %s\n' "$*"; }

scripts/platform-tools.sh windows

say "build (x86_64-pc-windows-gnu, mingw-w64)"
EXE=$(scripts/dist.sh --binary-only win32-x64)
file "$EXE"
file "$EXE" | grep -q 'PE32+ executable (console) x86-64' || { echo "not a Windows x64 console program"; exit 1; }

# The scratch prefix, with the ProcessPrng shim wine 8 needs for Rust programs (wine-prefix.sh).
. scripts/wine-prefix.sh
wine_prefix "$WORK/wine"
# Output is compared byte for byte: the program writes \n line ends on Windows too (no CR).
w() { wine "$EXE" "$@" 2>"$WORK/wine.err"; }

say "wine: --version"
v=$(w --version)
echo "$v"
[ "$v" = "$("$HOST" --version)" ] || { echo "version differs from the host build"; exit 1; }

say "wine: check examples/ (same findings and exit code as the host build)"
for fmt in text json; do
  set +e
  "$HOST" check examples/ --format "$fmt" > "$WORK/want"; want=$?
  w check examples/ --format "$fmt" > "$WORK/got"; got=$?
  set -e
  [ "$want" = "$got" ] || { cat "$WORK/wine.err"; echo "$fmt: exit $got under wine, host $want"; exit 1; }
  diff "$WORK/want" "$WORK/got" || { echo "$fmt: findings differ under wine"; exit 1; }
  echo "$fmt: identical ($(wc -l < "$WORK/got") lines, exit $got)"
done

say "wine: exit codes (0 on a clean file, 2 on a missing path), as the host build's"
for args in "examples/python/mcp_handler.py" "no/such/path"; do
  set +e
  "$HOST" check $args > "$WORK/want" 2>/dev/null; want=$?
  w check $args > "$WORK/got"; got=$?
  set -e
  [ "$want" = "$got" ] || { cat "$WORK/wine.err"; echo "check $args: exit $got under wine, host $want"; exit 1; }
  diff "$WORK/want" "$WORK/got"
  echo "check $args: exit $got, same output"
done
# The OS's own words follow (Windows: "Path not found. (os error 3)"), the path is the user's.
grep -F "netbox-lsp: error: no/such/path: " "$WORK/wine.err"

say "wine: backslash paths and a drive letter, in text and SARIF"
set +e
"$HOST" check examples/skills > "$WORK/want"
w check 'examples\skills' > "$WORK/got-backslash"
w check 'examples\skills' --format sarif > "$WORK/got-backslash.sarif"
# wine maps the Unix root to drive Z:.
drive="Z:$(printf '%s' "$ROOT" | tr / '\\')"
w check "$drive\\examples\\skills" > "$WORK/got-drive"
w check "$drive\\examples\\skills" --format sarif > "$WORK/got-drive.sarif"
set -e
diff "$WORK/want" "$WORK/got-backslash" || { echo "backslash paths: output differs"; exit 1; }
head -1 "$WORK/got-drive"
sed "s|^examples/|Z:$ROOT/examples/|" "$WORK/want" | diff - "$WORK/got-drive" \
  || { echo "a drive-letter path is not shown as Z:$ROOT/..."; exit 1; }
python3 - "$WORK/got-backslash.sarif" "$WORK/got-drive.sarif" "$ROOT" <<'PY'
import json, sys
rel, drive, root = sys.argv[1:]
def uris(p):
    run = json.load(open(p, encoding="utf-8"))["runs"][0]
    return sorted({r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]})
r, d = uris(rel), uris(drive)
assert r and all(u.startswith("examples/skills/") and "\\" not in u for u in r), r
assert d == [f"file:///Z:{root}/{u}" for u in r], (d, r)
print("sarif uris:", r[0], "|", d[0])
PY
echo "windows-ci: OK ($EXE)"
