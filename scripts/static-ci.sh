#!/usr/bin/env bash
# The static Linux x86_64 binary (issue 22 §3), without a container: builds it as releases do
# (scripts/dist.sh --binary-only linux-x64: musl, linked by zig from PyPI), shows with `file`,
# `ldd` and `readelf` that it needs no dynamic loader and no shared library (so no glibc of any
# version), then checks that it gives byte-identical findings to the host build on examples/ and
# tests/fixtures/ (text, JSON and SARIF, same exit code). Prints the binary's path last.
# PLATFORM=linux-arm64 does the same for the aarch64 binary, run under Debian's qemu-user
# (installed when missing; not part of CI).
# Usage: [PLATFORM=linux-arm64] scripts/static-ci.sh [host-binary]   (default target/release/netbox-lsp)
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${1:-target/release/netbox-lsp}
PLATFORM=${PLATFORM:-linux-x64}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say() { printf -- '--- %s\n' "$*" >&2; }

say "build ($PLATFORM, musl)"
BIN=$(scripts/dist.sh --binary-only "$PLATFORM")
RUN=()
if [ "$PLATFORM" = linux-arm64 ]; then
  scripts/platform-tools.sh qemu
  RUN=(qemu-aarch64)
  file "$BIN" | grep -q 'ARM aarch64' || { file "$BIN" >&2; exit 1; }
fi
run() { "${RUN[@]}" "$BIN" "$@"; }

say "no dynamic glibc dependency: $BIN"
file "$BIN" >&2
file "$BIN" | grep -Eq 'statically linked|static-pie linked' || { echo "not static" >&2; exit 1; }
if ldd "$BIN" > "$WORK/ldd.txt" 2>&1; then cat "$WORK/ldd.txt" >&2; echo "ldd lists libraries" >&2; exit 1; fi
cat "$WORK/ldd.txt" >&2
if readelf -lW "$BIN" | grep -q 'Requesting program interpreter'; then echo "has a program interpreter" >&2; exit 1; fi
if readelf -dW "$BIN" | grep -q '(NEEDED)'; then readelf -dW "$BIN" | grep NEEDED >&2; exit 1; fi
if strings -a "$BIN" | grep -q 'GLIBC_2\.'; then echo "references glibc symbol versions" >&2; exit 1; fi
echo "static: no interpreter, no NEEDED, no GLIBC_ symbol versions" >&2
run --version >&2

say "same findings as the host build"
for dir in examples tests/fixtures; do
  for fmt in text json sarif; do
    set +e
    "$HOST" check "$dir" --format "$fmt" > "$WORK/want" 2>"$WORK/want.err"; want=$?
    run check "$dir" --format "$fmt" > "$WORK/got" 2>"$WORK/got.err"; got=$?
    set -e
    [ "$want" = "$got" ] || { echo "$dir $fmt: exit $got, host $want" >&2; exit 1; }
    cmp -s "$WORK/want" "$WORK/got" || { diff "$WORK/want" "$WORK/got" | head -20 >&2; echo "$dir $fmt differs" >&2; exit 1; }
    cmp -s "$WORK/want.err" "$WORK/got.err" || { diff "$WORK/want.err" "$WORK/got.err" | head >&2; exit 1; }
  done
  echo "$dir: identical text, json and sarif (exit $got; $(tail -n1 "$WORK/got.err"))" >&2
done
echo "$BIN"
