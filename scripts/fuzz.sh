#!/usr/bin/env bash
# The long run of the property-based fuzz tests (tests/fuzz.rs, issue 9 §8): random edits of
# every fixture and example, random bytes and deep nesting in every host language, through
# extraction, checks, positions, completion context, hover and the code actions. Stable Rust,
# release profile (as CI builds). A panic fails the run with proptest's minimal failing input;
# an abort or a hang (killed after FUZZ_TIMEOUT seconds) fails it too.
#
#   scripts/fuzz.sh                # 2,000 cases per property (a few minutes)
#   FUZZ_CASES=20000 scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${FUZZ_CASES:-2000}"
limit="${FUZZ_TIMEOUT:-3600}"
echo "fuzz: ${cases} cases per property, time limit ${limit}s"
start=$(date +%s)
FUZZ_CASES="$cases" timeout "$limit" cargo test --release --test fuzz -- --test-threads 1 --nocapture
echo "fuzz: OK, ${cases} cases x 3 properties in $(( $(date +%s) - start ))s"
