#!/usr/bin/env bash
# The per-call cost of `check` on the `.py` speed corpus (benches/gen_calls.py: N MCP tool calls,
# one per line) for this build and a baseline binary in the same run, interleaved round by round
# (both see the same machine load): CPU time (user + sys, from wait4) and wall time per call at
# 1,000 / 10,000 / 100,000 calls, medians, the ratio this / baseline, and the slope between
# 10,000 and 100,000 calls (the per-call cost without the fixed start-up). Issue 30: the value
# layer of the Python host must not grow this by more than 10 %.
#
# Issue 36: with BEFORE=<binary> a third build is timed in the same rounds (the figures before
# a change, beside the baseline and this build); with PEER_PYTHON=<python with pynetbox 7.8.0>
# and ../shared/netbox/v4.6.8/openapi.json.gz, the peer too: pynetbox's `strict_filters` check
# (`Endpoint._validate_openapi_parameters`) of the same 10,000 dicts in process, CPU per dict,
# once per round. The load average is printed before and after (the machine is shared: the
# CPU-time ratios within a run are what compare).
#
# The parse floor (benches/python_parse_floor.rs, built here with cargo): the pinned parser
# alone on the same file in a fresh process (read, ruff's parse, the tree dropped), timed the
# same way in the same rounds. `check` minus the floor is our own work per call; FLOOR=0 skips it.
#
# In one warm process (benches/python_calls_warm.rs, built here with cargo), as the peer is
# timed: `check --format json` through the command line's code path and the parse alone, three
# times each after a warm-up, at 10,000 and 100,000 calls, once per round (no process start, no
# first touch of the tree's pages); WARM=0 skips it.
#
# The clean corpus (CLEAN=0 skips it): the calls of the 10,000-call file in which this build
# finds nothing, repeated to 10,000 lines, with their dicts for the peer. The corpus above is
# error-dense (about 1.4 findings a call, each with its message, fix and ~490 bytes of JSON);
# this one is what a `.py` file without mistakes costs, so the two tell the findings' share from
# the reading's. Timed fresh and warm with the parse alone beside it, and the peer on the same
# dicts, in the same rounds; the ratio to the peer is taken round by round (the host's speed
# moves between rounds) and its median printed.
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
[ -f "$DATA/calls-10000.json" ] || python3 benches/gen_calls.py 10000 "$DATA/calls-10000-again.py" "$DATA/calls-10000.json"
OPENAPI="$ROOT/../shared/netbox/v4.6.8/openapi.json.gz"
# The executable cargo builds for bench target $1 (empty when it does not build).
bench_exe() {
  cargo bench --bench "$1" --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1] and m.get("executable"):
        print(m["executable"])' "$1" || true
}
FLOOR_BIN=""
if [ "${FLOOR:-1}" != 0 ]; then
  FLOOR_BIN="$(bench_exe python_parse_floor)"
  [ -n "$FLOOR_BIN" ] || echo "parse floor: benches/python_parse_floor.rs did not build; its rows are left out" >&2
fi
WARM_BIN=""
if [ "${WARM:-1}" != 0 ]; then
  WARM_BIN="$(bench_exe python_calls_warm)"
  [ -n "$WARM_BIN" ] || echo "warm: benches/python_calls_warm.rs did not build; its rows are left out" >&2
fi
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$NEW" "$BASE" "$ROUNDS" "$DATA" "${BEFORE:-}" "${PEER_PYTHON:-}" "$OPENAPI" "$FLOOR_BIN" "$WARM_BIN" "${CLEAN:-1}" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, time

new, base, rounds, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
before, peer_python, openapi, floor, warm = sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8], sys.argv[9]
clean = sys.argv[10] != "0"
sizes = [1000, 10000, 100000]
builds = [("this", new), ("baseline", base)] + ([("before", before)] if before else [])
PEER = '''
import gzip, json, sys, time
import pynetbox
from pynetbox.core.query import ParameterValidationError
dicts = json.load(open(sys.argv[1]))
nb = pynetbox.api("http://netbox.invalid", token="0" * 40)
nb._openapi = json.loads(gzip.decompress(open(sys.argv[2], "rb").read()))
eps = {}
work = []
for x in dicts:
    app, name = x["endpoint"].split("/")
    if x["endpoint"] not in eps:
        eps[x["endpoint"]] = getattr(getattr(nb, app), name.replace("-", "_"))
    work.append((eps[x["endpoint"]], {k: "null" if v is None else v for k, v in x["filters"].items()}))
for ep, f in work[:200]:
    try: ep._validate_openapi_parameters("get", f)
    except ParameterValidationError: pass
t = time.process_time()
for ep, f in work:
    try: ep._validate_openapi_parameters("get", f)
    except ParameterValidationError: pass
print((time.process_time() - t) / len(work))
'''
peer = []

def run(binary, path):
    """Wall and CPU (user + sys) seconds of one `check` (of the parse floor: `binary` None)."""
    t = time.perf_counter()
    cmd = [floor, path] if binary is None else [binary, "check", "--format", "json", path]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime

def run_warm(path, inner=3):
    """CPU seconds of each warm in-process round of `check` and of the parse alone."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as out:
        subprocess.run([warm, path, str(inner), out.name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        rows = [line.split() for line in out.read().splitlines()]
    return [float(x[1]) for x in rows], [float(x[3]) for x in rows]

def clean_corpus():
    """The 10,000-call file's calls this build finds nothing in, repeated to 10,000 lines (and
    their dicts, for the peer): paths of the `.py` and `.json` files, or None when none is clean."""
    src = os.path.join(data, "calls-10000.py")
    out = subprocess.run([new, "check", "--format", "json", src], capture_output=True, text=True)
    found = {f["range"]["start"]["line"] for f in json.loads(out.stdout)}
    lines = open(src).read().split("\n")
    dicts = json.load(open(os.path.join(data, "calls-10000.json")))
    # Line i + 1 holds dict i (line 0 is the generator's comment).
    keep = [i for i, line in enumerate(lines) if line.startswith("netbox_get_objects(") and i not in found]
    if not keep:
        return None
    picked = [keep[j % len(keep)] for j in range(10000)]
    py, js = os.path.join(data, "clean-10000.py"), os.path.join(data, "clean-10000.json")
    with open(py, "w") as f:
        f.write("# The calls of calls-10000.py this build finds nothing in, repeated.\n")
        f.write("\n".join(lines[i] for i in picked) + "\n")
    with open(js, "w") as f:
        json.dump([dicts[i - 1] for i in picked], f)
    return py, js, len(keep)

def peer_run(path):
    out = subprocess.run([peer_python, "-c", PEER, path, openapi], capture_output=True, text=True, check=True).stdout
    return float(out.strip())

has_peer = bool(peer_python) and os.path.exists(openapi)
cleaned = clean_corpus() if clean else None
clean_res = {}
res = {}
warm_res = {}
for r in range(rounds):
    order = list(builds)
    if r % 2:
        order.reverse()
    for n in sizes:
        for name, binary in order:
            res.setdefault((name, n), []).append(run(binary, os.path.join(data, f"calls-{n}.py")))
        if floor:
            res.setdefault(("floor", n), []).append(run(None, os.path.join(data, f"calls-{n}.py")))
    if warm:
        for n in (10000, 100000):
            c, p = run_warm(os.path.join(data, f"calls-{n}.py"))
            warm_res.setdefault(("check", n), []).extend(c)
            warm_res.setdefault(("parse", n), []).extend(p)
    if has_peer:
        peer.append(peer_run(os.path.join(data, "calls-10000.json")))
    if cleaned:
        # Fresh `check` (median of three) and the parse floor, warm, and the peer, this round.
        fresh = statistics.median(run(new, cleaned[0])[1] for _ in range(3)) / 10000
        clean_res.setdefault("fresh", []).append(fresh)
        if floor:
            clean_res.setdefault("floor", []).append(statistics.median(run(None, cleaned[0])[1] for _ in range(3)) / 10000)
        if warm:
            c, p = run_warm(cleaned[0])
            clean_res.setdefault("warm", []).append(statistics.median(c) / 10000)
            clean_res.setdefault("warm parse", []).append(statistics.median(p) / 10000)
        if has_peer:
            clean_res.setdefault("peer", []).append(peer_run(cleaned[1]))
            # The error-dense corpus's ratios of this round, beside the clean one's.
            clean_res.setdefault("dense fresh", []).append(res[("this", 10000)][-1][1] / 10000)
            if warm:
                clean_res.setdefault("dense warm", []).append(statistics.median(warm_res[("check", 10000)][-3:]) / 10000)

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
if before:
    print()
    print("| input | before: CPU per call | this: CPU per call | this / before |")
    print("|---|---|---|---|")
    for n in sizes:
        b, t = med("before", n, 1), med("this", n, 1)
        print(f"| {n:,} calls | {b * 1e6 / n:.2f} µs | {t * 1e6 / n:.2f} µs | {t / b:.3f} |")
    sb = (med("before", 100000, 1) - med("before", 10000, 1)) * 1e6 / 90000
    print(f"| slope 10,000 → 100,000 | {sb:.2f} µs | {slope['this']:.2f} µs | {slope['this'] / sb:.3f} |")
print()
for k in [b[0] for b in builds]:
    g = med(k, 100000, 1) / 100000 / (med(k, 10000, 1) / 10000)
    print(f"growth of the CPU per call, 10,000 → 100,000 calls, {k}: {g:.3f}")
if floor:
    print()
    print("The parse floor: ruff_python_parser alone on the same file in a fresh process (benches/python_parse_floor.rs), CPU per call, and our own work = check minus the floor:")
    print("| input | floor | " + " | ".join(f"{k}: own work | {k}: own / floor" for k, _ in builds) + " |")
    print("|---|---|" + "---|---|" * len(builds))
    for n in sizes:
        f = med("floor", n, 1)
        cells = []
        for k, _ in builds:
            c = med(k, n, 1)
            cells += [f"{(c - f) * 1e6 / n:.2f} µs", f"{(c - f) / f:.2f}"]
        print(f"| {n:,} calls | {f * 1e6 / n:.2f} µs | " + " | ".join(cells) + " |")
if peer:
    p = statistics.median(peer)
    print(f"peer: pynetbox strict_filters, CPU per dict (10,000 dicts, median of {len(peer)} rounds): {p * 1e6:.2f} µs")
    for k in [b[0] for b in builds]:
        for n in (10000, 100000):
            c = med(k, n, 1) / n
            print(f"  {k} at {n:,} calls: {c * 1e6:.2f} µs per call = {p / c:.2f}x pynetbox's per-dict CPU")
    if floor:
        for n in (10000, 100000):
            f = med("floor", n, 1) / n
            print(f"  the parse floor alone at {n:,} calls: {f * 1e6:.2f} µs per call = {p / f:.2f}x pynetbox's per-dict CPU")
if warm_res:
    print()
    print("In one warm process, as the peer is timed (benches/python_calls_warm.rs, this build's code; "
          f"medians of {len(warm_res[('check', 10000)])} rounds), CPU per call:")
    print("| input | check | the parse alone | own work | own / parse |" + (" check vs pynetbox |" if peer else ""))
    print("|---|---|---|---|---|" + ("---|" if peer else ""))
    for n in (10000, 100000):
        c = statistics.median(warm_res[("check", n)]) / n
        f = statistics.median(warm_res[("parse", n)]) / n
        cell = f" {statistics.median(peer) / c:.2f}x |" if peer else ""
        print(f"| {n:,} calls | {c * 1e6:.2f} µs | {f * 1e6:.2f} µs | {(c - f) * 1e6:.2f} µs | {(c - f) / f:.2f} |" + cell)
if clean_res:
    print()
    print(f"The clean corpus ({cleaned[2]:,} calls of the 10,000 with no finding, repeated to 10,000 lines): "
          f"CPU per call, medians of {len(clean_res['fresh'])} rounds; the ratio to the peer is each round's "
          "(the peer's dicts of that round over this build's calls), its median and range:")
    print("| figure | clean: per call | clean: vs pynetbox | error-dense: vs pynetbox |")
    print("|---|---|---|---|")
    ratio = lambda k: sorted(p / c for p, c in zip(clean_res["peer"], clean_res[k]))
    dense = {"fresh": "dense fresh", "warm": "dense warm"}
    peers_dense = peer[-len(clean_res.get("peer", [])):]
    for k in ("peer", "fresh", "floor", "warm", "warm parse"):
        if k not in clean_res:
            continue
        cell, dcell = "", ""
        if "peer" in clean_res and k != "peer":
            rs = ratio(k)
            cell = f"{statistics.median(rs):.2f}x ({rs[0]:.2f}–{rs[-1]:.2f})"
            if k in dense and dense[k] in clean_res:
                ds = sorted(p / c for p, c in zip(peers_dense, clean_res[dense[k]]))
                dcell = f"{statistics.median(ds):.2f}x ({ds[0]:.2f}–{ds[-1]:.2f})"
        print(f"| {k} | {statistics.median(clean_res[k]) * 1e6:.2f} µs | {cell} | {dcell} |")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
