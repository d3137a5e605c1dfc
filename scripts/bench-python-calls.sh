#!/usr/bin/env bash
# The per-call cost of `check` on the `.py` speed corpus (benches/gen_calls.py: N MCP tool calls,
# one per line) for this build and a baseline binary in the same run, interleaved round by round
# (both see the same machine load): CPU time (user + sys, from wait4) and wall time per call at
# 1,000 / 10,000 / 100,000 calls, medians, the ratio this / baseline, and the slope between
# 10,000 and 100,000 calls (the per-call cost without the fixed start-up). Issue 30: the value
# layer of the Python host must not grow this by more than 10 %.
#
# Usage: scripts/bench-python-calls.sh BASELINE_BINARY [ROUNDS]   (default 7 rounds)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASE="${1:?usage: scripts/bench-python-calls.sh BASELINE_BINARY [ROUNDS]}"
ROUNDS="${2:-7}"
NEW="${CARGO_TARGET_DIR:-$ROOT/target}/release/netbox-lsp"
DATA="${CARGO_TARGET_DIR:-$ROOT/target}/python-calls-data"
mkdir -p "$DATA"
cd "$ROOT"
for n in 1000 10000 100000; do
  [ -f "$DATA/calls-$n.py" ] || python3 benches/gen_calls.py "$n" "$DATA/calls-$n.py"
done
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$NEW" "$BASE" "$ROUNDS" "$DATA" <<'PY'
import os, statistics, subprocess, sys, time

new, base, rounds, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sizes = [1000, 10000, 100000]

def run(binary, path):
    """Wall and CPU (user + sys) seconds of one `check`."""
    t = time.perf_counter()
    p = subprocess.Popen([binary, "check", "--format", "json", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime

res = {}
for r in range(rounds):
    order = [("this", new), ("baseline", base)]
    if r % 2:
        order.reverse()
    for n in sizes:
        for name, binary in order:
            res.setdefault((name, n), []).append(run(binary, os.path.join(data, f"calls-{n}.py")))

med = lambda name, n, i: statistics.median(x[i] for x in res[(name, n)])
print(f"rounds: {rounds}")
print("| input | this: CPU per call | baseline: CPU per call | ratio (CPU) | this: wall per call | baseline: wall per call |")
print("|---|---|---|---|---|---|")
for n in sizes:
    t, b = med("this", n, 1), med("baseline", n, 1)
    print(f"| {n:,} calls | {t * 1e6 / n:.2f} µs | {b * 1e6 / n:.2f} µs | {t / b:.3f} | "
          f"{med('this', n, 0) * 1e6 / n:.2f} µs | {med('baseline', n, 0) * 1e6 / n:.2f} µs |")
slope = {k: (med(k, 100000, 1) - med(k, 10000, 1)) * 1e6 / 90000 for k in ("this", "baseline")}
print(f"| slope 10,000 → 100,000 (CPU) | {slope['this']:.2f} µs | {slope['baseline']:.2f} µs | "
      f"{slope['this'] / slope['baseline']:.3f} | | |")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
