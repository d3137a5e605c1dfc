#!/bin/sh
# Peak memory (VmHWM, from /usr/bin/time -v) and wall time of `check` over 100,000 small files
# with two findings each, per output format (issue 23 §4: under 300 MB; json and sarif stream).
# Usage: scripts/stream_memory.sh [BINARY] [FILES]   (default target/release/netbox-lsp, 100000)
set -eu
BIN=${1:-target/release/netbox-lsp}
N=${2:-100000}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR/tree" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = f"{root}/d{i // 1000:03d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/s{i:05d}.md", "w") as f:
        f.write(f"# Skill {i}\n\nCall `/api/dcim/devices/?device_role_id={i}&site_id__in=1`.\n")
PY
for fmt in text json sarif; do
    /usr/bin/time -v "$BIN" check --format "$fmt" "$DIR/tree" >"$DIR/out" 2>"$DIR/err" || true
    peak=$(awk '/Maximum resident/ {print $6}' "$DIR/err")
    wall=$(awk '/Elapsed/ {print $8}' "$DIR/err")
    printf '%-5s peak %7d KB  wall %s  stdout %s bytes\n' "$fmt" "$peak" "$wall" "$(wc -c <"$DIR/out")"
done
