#!/usr/bin/env bash
# All benchmarks of issues 2, 3 and 4 in one run on this machine, each beside its baseline, and a
# summary of medians and ratios in ${CARGO_TARGET_DIR:-target}/bench-summary.md.
#
#   1. One optimised build: `cargo bench --no-run` of the three benches. The `bench` profile
#      inherits `release` and writes target/release/netbox-lsp too (the binary measured below),
#      but cargo builds this crate separately for it: a prior `cargo build --release` would only
#      reuse the dependencies (see scripts/bench-smoke.sh).
#   2. cargo bench --bench check --bench lsp (criterion medians; the lsp bench prints its own)
#      with NETBOX_LSP_BENCH_DUMP set, so the generated inputs land in target/bench-data/.
#   3. benches/graphql_vs_graphql_core.py: graphql-core's parse + validate in Python vs our
#      check_text per document class (small, large, invalid) on documents generated from the
#      4.7.3 schema (benches/gen_graphql.py), in CPU time; it builds benches/graphql_classes.rs.
#   4. benches/rest_baseline.py: a name-set membership floor in Python on the corpus (not
#      pynetbox: the real peers are measured by scripts/bench-peers.sh).
#   5. Peak memory (`/usr/bin/time -v`, maximum resident set size) and wall time of
#      `netbox-lsp check examples/` and of the generated inputs, medians of 5 runs, against
#      `netbox-lsp --version` (the process with nothing loaded).
#
# Usage: scripts/bench.sh        (from anywhere; takes about 3-5 minutes on 2 cores)
# Env:   BENCH_MAX_LOAD=1.0  after the build, wait (up to 20 minutes) until the 1-minute load
#        average is below this, for a machine shared with other work. The load before and after
#        the run is recorded in the summary either way.
# Needs: cargo, python3 (pip installs graphql-core if missing), /usr/bin/time (Debian: `time`).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export CRITERION_HOME="$CARGO_TARGET_DIR/criterion"
DUMP="$CARGO_TARGET_DIR/bench-data"
LOG="$CARGO_TARGET_DIR/bench-logs"
OUT="$CARGO_TARGET_DIR/bench-summary.md"
BIN="$CARGO_TARGET_DIR/release/netbox-lsp"
mkdir -p "$DUMP" "$LOG"

if [ ! -x /usr/bin/time ]; then
  echo "bench: /usr/bin/time is missing (Debian package 'time'): apt-get install -y time" >&2
  exit 2
fi

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (dirty)')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), nproc $(nproc)"
  echo "rustc: $(rustc --version)"
  echo "load before: $(uptime | sed 's/.*load average/load average/')"
} > "$LOG/machine.txt"
cat "$LOG/machine.txt"

echo "== build (bench profile = release settings)"
cargo bench --no-run --quiet --bench check --bench lsp --bench graphql
if [ -n "${BENCH_MAX_LOAD:-}" ]; then
  for _ in $(seq 1 240); do
    awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$BENCH_MAX_LOAD" 'BEGIN { exit !(l < m) }' && break
    sleep 5
  done
fi
echo "load at start: $(uptime | sed 's/.*load average/load average/')" >> "$LOG/machine.txt"

echo "== cargo bench --bench check --bench lsp"
NETBOX_LSP_BENCH_DUMP="$DUMP" cargo bench --quiet --bench check --bench lsp 2>&1 | tee "$LOG/cargo-bench.txt"

echo "== GraphQL: netbox-lsp vs graphql-core per document class (benches/graphql_classes.rs)"
python3 benches/graphql_vs_graphql_core.py 2>&1 | tee "$LOG/graphql.txt"

echo "== REST corpus: name-set membership floor in Python"
python3 benches/rest_baseline.py "$DUMP" 2>&1 | tee "$LOG/rest_baseline.txt"

echo "== memory and wall time of netbox-lsp check"
: > "$LOG/memory.txt"
for what in version examples skill corpus; do
  case $what in
    version) args=(--version) ;;
    examples) args=(check examples/) ;;
    skill) args=(check "$DUMP/SKILL.md") ;;
    corpus) args=(check "$DUMP/corpus.py") ;;
  esac
  for _ in 1 2 3 4 5; do
    t0=$(date +%s%N)
    /usr/bin/time -v -o "$LOG/time-v.txt" "$BIN" "${args[@]}" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$LOG/time-v.txt")
    echo "$what $rss $(( (t1 - t0) / 1000 ))" >> "$LOG/memory.txt"
  done
done
cat "$LOG/memory.txt"
echo "load after: $(uptime | sed 's/.*load average/load average/')" >> "$LOG/machine.txt"

echo "== summary -> $OUT"
python3 - "$CRITERION_HOME" "$LOG" "$OUT" <<'PY'
import json, os, re, statistics, sys

crit, log, out = sys.argv[1:]

def crit_ms(group, name):
    """Criterion's median (ms) of one benchmark, from its estimates.json."""
    for d in (os.path.join(crit, group, name), os.path.join(crit, group)):
        p = os.path.join(d, "new", "estimates.json")
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)["median"]["point_estimate"] / 1e6
    # Benchmarks with a parameter (BenchmarkId) live one level deeper.
    base = os.path.join(crit, group, name)
    if os.path.isdir(base):
        for sub in sorted(os.listdir(base)):
            p = os.path.join(base, sub, "new", "estimates.json")
            if os.path.exists(p):
                with open(p) as f:
                    return json.load(f)["median"]["point_estimate"] / 1e6
    return None

text = open(os.path.join(log, "cargo-bench.txt")).read()
lsp = {m[1]: float(m[2]) for m in re.finditer(r"^BENCH (\S+) ([\d.]+)", text, re.M)}
mem = {m[1]: int(m[2]) for m in re.finditer(r"^MEM (\S+) (\d+)", text, re.M)}
py_rest = re.search(r"^PY rest_name_set ([\d.]+)", open(os.path.join(log, "rest_baseline.txt")).read(), re.M)
py_rest = float(py_rest[1]) if py_rest else None
gql = open(os.path.join(log, "graphql.txt")).read()
gcore = re.search(r"parse\+validate\s+([\d.]+) us/doc, build_schema\s+([\d.]+) ms", gql)
gratio = re.search(r"ratio .*?: ([\d.]+)x", gql)
runs = {}
for line in open(os.path.join(log, "memory.txt")):
    what, rss, us = line.split()
    runs.setdefault(what, []).append((int(rss), int(us) / 1000))
machine = open(os.path.join(log, "machine.txt")).read().strip().splitlines()

def f(v, unit="ms"):
    if v is None:
        return "n/a"
    if unit == "ms":
        return f"{v:.3f} ms" if v < 10 else f"{v:.1f} ms"
    return f"{v} {unit}"

def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "n/a"

def goal(v, limit):
    if v is None:
        return "n/a"
    return "met" if v <= limit else "MISSED"

rows = []
def row(name, goal_text, median, base_name, base, verdict=""):
    rows.append(f"| {name} | {goal_text} | {median} | {base_name} | {base} | {verdict} |")

N = 10000
idx = crit_ms("index_load", "embedded_4.6.8"); idx_b = crit_ms("index_load", "baseline_gunzip_serde_value")
an = crit_ms("skill_md", "analyze"); md = crit_ms("skill_md", "baseline_pulldown_cmark_events")
an1 = crit_ms("skill_md", "analyze_one_thread")
ex = crit_ms("skill_md", "extract_only"); anr = crit_ms("skill_md", "analyze_rest_only")
cc = crit_ms("corpus", "rest_check_call"); sf = crit_ms("corpus", "baseline_name_set_membership")
e2e = crit_ms("corpus", "analyze_py_end_to_end")
per_s = lambda ms: f"{N / ms * 1000:,.0f} dicts/s" if ms else "n/a"

lines = ["# netbox-lsp benchmark summary", ""] + [f"- {m}" for m in machine] + [""]
lines += ["## Issue 2: index, checks, `check`", "",
          "| figure | goal | median | baseline | baseline median | ratio (figure / baseline) |",
          "|---|---|---|---|---|---|"]
lines.append(f"| index load, embedded 4.6.8 | ≤ 2 ms ({goal(idx, 2)}) | {f(idx)} | gunzip + serde_json::Value | {f(idx_b)} | {ratio(idx, idx_b)} |")
lines.append(f"| analyze(), 5,000-line SKILL.md | ≤ 10 ms ({goal(an, 10)}) | {f(an)} | pulldown-cmark events alone (reading the structure) | {f(md)} | {ratio(an, md)} |")
lines.append(f"| ″ on one thread (no goal: shows what the 2 cores give) | — | {f(an1)} | analyze() on all cores | {f(an)} | {ratio(an1, an)} |")
lines.append(f"| ″ split: extract only | | {f(ex)} | ″ REST only (no GraphQL) | {f(anr)} | |")
lines.append(f"| rest::check_call, 10,000 dicts | — | {f(cc)} ({per_s(cc)}) | name-set membership floor (Rust; not pynetbox) | {f(sf)} ({per_s(sf)}) | {ratio(cc, sf)} |")
lines.append(f"| ″ | | | ″ in Python | {f(py_rest)} ({per_s(py_rest)}) | {ratio(cc, py_rest)} |")
lines.append(f"| analyze() of the .py holding them | — | {f(e2e)} ({per_s(e2e)}) | rest::check_call alone | {f(cc)} | {ratio(e2e, cc)} |")
for what, label in (("examples", "check examples/"), ("skill", "check SKILL.md (5,000 lines)"), ("corpus", "check corpus.py (10,000 calls)")):
    if what in runs and "version" in runs:
        rss = statistics.median(r for r, _ in runs[what]); base = statistics.median(r for r, _ in runs["version"])
        wall = statistics.median(t for _, t in runs[what]); bwall = statistics.median(t for _, t in runs["version"])
        lines.append(f"| peak RSS, {label} | — | {rss / 1024:.1f} MB (wall {wall:.0f} ms) | netbox-lsp --version | {base / 1024:.1f} MB (wall {bwall:.0f} ms) | {rss / base:.2f}x |")
lines += ["", "## Issue 3: language server", "",
          "| figure | goal | median | baseline | baseline median | ratio |", "|---|---|---|---|---|---|"]
b_an = lsp.get("baseline_analyze_direct"); b_co = lsp.get("baseline_completion_direct"); b_st = lsp.get("baseline_cold_load_analyze_direct")
c_in = lsp.get("change_to_diagnostics_inprocess"); c_pr = lsp.get("change_prose_to_diagnostics_inprocess"); c_io = lsp.get("change_to_diagnostics_stdio"); c_db = lsp.get("change_to_diagnostics_stdio_debounced")
lines.append(f"| didChange (a filter value in a fence) → publishDiagnostics, in process, debounce 0 | ≤ 15 ms ({goal(c_in, 15)}) | {f(c_in)} | analyze() direct | {f(b_an)} | {ratio(c_in, b_an)} |")
lines.append(f"| ″ an edit of prose instead, in process | ≤ 15 ms ({goal(c_pr, 15)}) | {f(c_pr)} | ″ | {f(b_an)} | {ratio(c_pr, b_an)} |")
lines.append(f"| ″ binary over stdio, debounce 0 | ≤ 15 ms ({goal(c_io, 15)}) | {f(c_io)} | ″ | {f(b_an)} | {ratio(c_io, b_an)} |")
lines.append(f"| ″ binary over stdio, default 60 ms debounce | — | {f(c_db)} (minus 60 ms: {f(c_db - 60) if c_db else 'n/a'}) | ″ | {f(b_an)} | |")
b_cs = lsp.get("baseline_completion_small_doc_direct")
for k, label, b in (("completion_inprocess", "completion in a filters dict, 5,000-line SKILL.md, in process", b_co),
                    ("completion_stdio", "″ binary over stdio", b_co),
                    ("completion_small_doc_inprocess", "completion in a filters dict, 114-line SKILL.md, in process", b_cs),
                    ("completion_small_doc_stdio", "″ binary over stdio", b_cs)):
    v = lsp.get(k)
    lines.append(f"| {label} | ≤ 5 ms ({goal(v, 5)}) | {f(v)} | completion functions direct, same document | {f(b)} | {ratio(v, b)} |")
for k, label, b in (("start_to_diagnostics_5000_lines", "spawn → first diagnostics, 5,000-line SKILL.md", b_st),
                    ("start_to_diagnostics_small", "″ examples/ SKILL.md (114 lines)", lsp.get("baseline_cold_load_analyze_small_direct"))):
    v = lsp.get(k)
    lines.append(f"| {label} | ≤ 100 ms ({goal(v, 100)}) | {f(v)} | cold load + analyze() in process, same document | {f(b)} | {ratio(v, b)} |")
hwm = mem.get("hwm_4.6.8_4.3.3"); rss = mem.get("rss_4.6.8_4.3.3")
lines.append(f"| resident memory, 4.6.8 + 4.3.3 loaded (VmHWM / VmRSS) | ≤ 60 MB ({goal(hwm / 1024 if hwm else None, 60)}) | {hwm / 1024 if hwm else 0:.1f} MB / {rss / 1024 if rss else 0:.1f} MB | 4.6.8 only (VmHWM / VmRSS) | {mem.get('hwm_4.6.8', 0) / 1024:.1f} MB / {mem.get('rss_4.6.8', 0) / 1024:.1f} MB | {ratio(hwm, mem.get('hwm_4.6.8'))} |")
lines += ["", "## Issue 4: GraphQL", "",
          "| figure | goal | median | baseline | baseline | ratio |", "|---|---|---|---|---|---|"]
gd = crit_ms("graphql_check_per_document", "") or crit_ms("graphql_check_per_document", "base")
gl = crit_ms("graphql_schema_load_4.6.8", "")
if gcore:
    py_doc_ms = float(gcore[1]) / 1000
    lines.append(f"| check per document (4.6.8) | ≥ 20x faster | {gd * 1000 if gd else 0:.1f} µs | graphql-core parse+validate (mean) | {float(gcore[1]):.1f} µs | {py_doc_ms / gd if gd else 0:.1f}x faster (script's own figure: {gratio[1] if gratio else 'n/a'}x) |")
    lines.append(f"| schema load 4.6.8 | ≤ 150 ms ({goal(gl, 150)}) | {f(gl)} | graphql-core build_schema (mean) | {float(gcore[2]):.1f} ms | {ratio(gl, float(gcore[2]))} |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
