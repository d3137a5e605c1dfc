#!/usr/bin/env bash
# The long run of the property-based fuzz tests (tests/fuzz.rs, issue 9 §8): random edits of
# every fixture and example, random bytes and deep nesting in every host language, through
# extraction, checks, positions, completion context, hover and the code actions. Stable Rust,
# release profile (as CI builds). A panic fails the run with proptest's minimal failing input;
# an abort or a hang (a property killed after FUZZ_TIMEOUT seconds) fails it too.
#
#   scripts/fuzz.sh                          # 2,000 cases per property (minutes)
#   FUZZ_CASES=20000 scripts/fuzz.sh
#   scripts/fuzz.sh random_bytes deep_nesting  # some properties only
#
# nested_constructs nests runs of every construct the parsers recurse on (f-string fields
# included) up to 72,000 levels in every host, and checks that what the nesting guard lets
# through is no deeper in ruff's tree than its bound; at about 2 s a case it gets twice the
# time limit.
#
# Throughput on a loaded 2-core machine is about 2-3 cases a second per property (random_bytes
# runs 7 host kinds per case), so FUZZ_TIMEOUT (per property, default 3600 s) must fit FUZZ_CASES.
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${FUZZ_CASES:-2000}"
limit="${FUZZ_TIMEOUT:-3600}"
props=("$@")
[ ${#props[@]} -gt 0 ] || props=(deep_nesting nested_constructs random_bytes random_edits_of_fixtures)
cargo test --release --test suite --no-run
for p in "${props[@]}"; do
  start=$(date +%s)
  plimit="$limit"
  [ "$p" != nested_constructs ] || plimit=$((limit * 2))
  echo "fuzz: ${p}: ${cases} cases, time limit ${plimit}s"
  if ! FUZZ_CASES="$cases" timeout "$plimit" cargo test --release --test suite "fuzz::$p" -- --exact --nocapture; then
    echo "fuzz: ${p} FAILED (a panic above, or killed after ${plimit}s: an abort or a hang)"
    exit 1
  fi
  echo "fuzz: ${p}: OK, ${cases} cases in $(( $(date +%s) - start ))s"
done
echo "fuzz: OK, ${cases} cases x ${#props[@]} properties"
