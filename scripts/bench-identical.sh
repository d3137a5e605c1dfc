#!/usr/bin/env bash
# Checks that this build writes byte for byte what a previous binary writes (issue 36: every
# speed-up keeps the output): `check` in each machine format (json, sarif, gitlab; json and
# sarif also with --explain) on examples/, on tests/fixtures/ and on the generated 100,000-call
# `.py` file (benches/gen_calls.py), compared with `cmp`. A bench, not a test: it needs the
# previous binary and takes a few seconds of CPU per format on the large file. Exit status 1
# when any output differs (the first differing byte is printed).
#
# Usage: scripts/bench-identical.sh BASELINE_BINARY
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASE="$(realpath "${1:?usage: scripts/bench-identical.sh BASELINE_BINARY}")"
NEW="${CARGO_TARGET_DIR:-$ROOT/target}/release/netbox-lsp"
DATA="${CARGO_TARGET_DIR:-$ROOT/target}/python-calls-data"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$DATA"
cd "$ROOT"
[ -f "$DATA/calls-100000.py" ] || python3 benches/gen_calls.py 100000 "$DATA/calls-100000.py"
# Relative paths, the same for both binaries (they are part of the output).
cp "$DATA/calls-100000.py" "$OUT/calls-100000.py"
fail=0
check() {
  local name="$1"; shift
  # The exit status says whether there were findings: the same for both, or the cmp fails.
  local a b
  a=0; b=0
  "$NEW" check "$@" >"$OUT/new" 2>/dev/null || a=$?
  "$BASE" check "$@" >"$OUT/base" 2>/dev/null || b=$?
  if [ "$a" != "$b" ]; then
    echo "DIFFERS: $name: exit status $a (this) vs $b (baseline)"
    fail=1
  elif cmp -s "$OUT/new" "$OUT/base"; then
    echo "same: $name ($(wc -c <"$OUT/new") bytes)"
  else
    echo "DIFFERS: $name: $(cmp "$OUT/new" "$OUT/base" 2>&1 | head -1)"
    fail=1
  fi
}
for format in json sarif gitlab; do
  check "$format examples/" --format "$format" examples/
  check "$format tests/fixtures/" --format "$format" tests/fixtures/
done
for format in json sarif; do
  check "$format --explain examples/ tests/fixtures/" --format "$format" --explain examples/ tests/fixtures/
done
(
  cd "$OUT"
  for format in json sarif gitlab; do
    check "$format calls-100000.py" --format "$format" calls-100000.py
  done
  exit $fail
) || fail=1
[ "$fail" = 0 ] && echo "all outputs identical" || echo "some outputs differ"
exit "$fail"
