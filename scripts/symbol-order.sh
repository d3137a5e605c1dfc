#!/usr/bin/env bash
# Writes `build/symbol-order.txt`: the functions of `netbox-lsp` that an editor session and a
# `check` run execute, which `build.rs` hands to the linker (`--symbol-ordering-file`, rust-lld)
# so that they sit together at the start of `.text`. The kernel maps a binary's code in whole
# page-cache folios around each page the process touches; with the ~3 MB executed scattered
# over 13.3 MB of `.text`, the language server kept 11.4 MB of it resident (issue 36: RSS).
#
# What runs, under valgrind's callgrind (which lists every function executed, by its symbol):
#   - benches/lsp_memory.py: the language server with a 2,000-line SKILL.md (benches/gen_skill.py),
#     five releases in turn with a completion each, then didChange edits;
#   - `check --format json` on examples/ and tests/fixtures/ (every host kind the CLI reads).
# `cargo build --release` is traced: `cargo test --release` links the same binary, as the
# dependencies have the same features in both (scripts/feature-parity.sh).
# Symbol names carry the crate hashes of this toolchain and Cargo.lock: after a Rust or
# dependency update `cargo test --release --test suite symbol_order::` fails until this is rerun.
#
# Usage: scripts/symbol-order.sh   (needs valgrind; by hand, not in CI; ~5 minutes after the builds)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
command -v valgrind >/dev/null || { echo "symbol-order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/netbox-lsp"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
python3 benches/gen_skill.py 57000 "$WORK/skill.md" >/dev/null
cargo build --release --bin netbox-lsp >&2
cp "$BIN" "$WORK/netbox-lsp"
printf '#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --callgrind-out-file="%s" "%s" "$@"\n' \
  "$WORK/cg.server.%p" "$WORK/netbox-lsp" > "$WORK/server.sh"
chmod +x "$WORK/server.sh"
SETTLE=3 EDITS=3 python3 benches/lsp_memory.py "$WORK/server.sh" "$WORK/skill.md" 5 >/dev/null
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/cg.check.%p" \
  "$WORK/netbox-lsp" check --format json examples tests/fixtures >/dev/null 2>&1 || true
python3 - "$WORK" build/symbol-order.txt <<'PY'
import glob, re, subprocess, sys
work, out = sys.argv[1:3]

def executed(paths):
    """Every function a callgrind output file lists costs for (`fn=(id) name`; ids are per file)."""
    ran = set()
    for path in paths:
        names = {}
        for line in open(path, errors="replace"):
            m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                if m.group(2):
                    names[m.group(1)] = re.sub(r"'\d+$", "", m.group(2))
                if line.startswith("fn="):
                    ran.add(names[m.group(1)])
    return ran

# The binary's own function symbols: callgrind also lists libc's and valgrind's.
ours = set()
nm = subprocess.run(["nm", f"{work}/netbox-lsp"], capture_output=True, text=True, check=True)
for line in nm.stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        ours.add(parts[2])
order = sorted(executed(glob.glob(f"{work}/cg.*")) & ours)
with open(out, "w") as f:
    f.write("\n".join(order) + "\n")
print(f"{out}: {len(order)} functions", file=sys.stderr)
PY
