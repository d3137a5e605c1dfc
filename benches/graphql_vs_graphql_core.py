#!/usr/bin/env python3
"""Per-document GraphQL validation by class (issue 36): netbox-lsp's `check_text` (Rust:
apollo-parser, NetBox rules, apollo-compiler validation, "did you mean") vs graphql-core's
`parse` + `validate` (the reference implementation NetBox's Strawberry server runs), on the same
documents and the same NetBox 4.7.3 schema (index/netbox-4.7.3.schema.graphql.gz).

The documents are generated from the schema, seeded (benches/gen_graphql.py: 800 small,
800 large, 400 invalid by default). Both sides are timed in CPU time (graphql-core:
`time.process_time`; ours: the thread's CPU time, benches/graphql_classes.rs), in interleaved
repetitions; each figure is the median of its rounds. The ratio is graphql-core / ours per
document, per class and on the whole mix (goal: >= 100x on each).

`--ours BIN` times a prebuilt `graphql_classes` binary instead of building it; `--before BIN`
adds another one (an older build) to every repetition, for a before/after table in one run.

With `--compare BIN_A BIN_B`, `check --format json` of both binaries on the generated documents
(one .graphql file each) must be byte-identical; the script exits 1 when it is not.

Usage (from the repository root; installs graphql-core with pip if missing, e.g. in a venv):
  python3 benches/graphql_vs_graphql_core.py [--reps 3] [--rounds 1] [--seed 36] [--count 2000]
      [--ours BIN] [--before BIN] [--compare BIN_A BIN_B]
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "index/netbox-4.7.3.schema.graphql.gz")
CLASSES = ["small", "large", "invalid"]

try:
    import graphql  # noqa: F401
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "graphql-core"])
from graphql import build_schema, parse, validate, __version__ as gql_version  # noqa: E402


def ours_binary():
    out = subprocess.run(
        ["cargo", "bench", "--no-run", "--bench", "graphql_classes", "--message-format", "json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    for line in out.splitlines():
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "graphql_classes" and m.get("executable"):
            return m["executable"]
    sys.exit("graphql_classes bench binary not found")


def gcore(schema, docs, rounds):
    for d in docs:  # warm-up
        validate(schema, parse(d))
    samples = []
    for _ in range(rounds):
        t = time.process_time()
        for d in docs:
            validate(schema, parse(d))
        samples.append((time.process_time() - t) / len(docs) * 1e6)
    return statistics.median(samples)


def ours(binary, docs_file, rounds):
    out = subprocess.run([binary, docs_file, str(rounds)], capture_output=True, text=True, check=True).stdout
    return {p[1]: float(p[2]) for p in (l.split() for l in out.splitlines()) if p and p[0] == "OURS"}


def compare(a, b, folder):
    outs = []
    for binary in (a, b):
        r = subprocess.run([binary, "check", "--netbox-version", "4.7.3", "--format", "json", folder],
                           capture_output=True)
        outs.append(r.stdout)
    same = outs[0] == outs[1]
    print(f"check --format json on {folder}: {'byte-identical' if same else 'DIFFERENT'} "
          f"({len(outs[0]):,} bytes, {len(json.loads(outs[0]))} findings)")
    return same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--compare", nargs=2, metavar=("BIN_A", "BIN_B"))
    ap.add_argument("--ours")
    ap.add_argument("--before")
    a = ap.parse_args()
    gen_dir = os.path.join(ROOT, "target", "graphql-gen")
    docs_file = os.path.join(ROOT, "target", f"graphql-gen-{a.seed}-{a.count}.json")
    if not os.path.exists(docs_file):
        subprocess.run([sys.executable, os.path.join(ROOT, "benches/gen_graphql.py"), SCHEMA, docs_file,
                        "--dir", gen_dir, "--seed", str(a.seed), "--count", str(a.count)], check=True)
    with open(docs_file) as f:
        docs = json.load(f)
    docs["all"] = [d for c in CLASSES for d in docs[c]]
    if a.compare and not compare(*a.compare, gen_dir):
        sys.exit(1)
    with gzip.open(SCHEMA, "rt") as f:
        schema = build_schema(f.read())
    binary = a.ours or ours_binary()
    rows = {c: [] for c in CLASSES + ["all"]}
    for rep in range(a.reps):
        load = os.getloadavg()[0]
        theirs = {c: gcore(schema, docs[c], a.rounds) for c in rows}
        before = ours(a.before, docs_file, a.rounds * 4) if a.before else {}
        mine = ours(binary, docs_file, a.rounds * 4)
        for c in rows:
            rows[c].append((theirs[c], before.get(c), mine[c], load))
    print(f"graphql-core {gql_version}, NetBox 4.7.3 schema, {len(docs['all'])} documents "
          f"(seed {a.seed}: {', '.join(f'{len(docs[c])} {c}' for c in CLASSES)}); CPU µs per document")
    print("| class | rep | load (1 min) | graphql-core parse + validate | before | ratio before | after | ratio after |")
    print("|---|---|---|---|---|---|---|---|")
    for c, rs in rows.items():
        for i, (t, b, m, load) in enumerate(rs):
            bb = f"{b:.1f} µs | {t / b:.1f}×" if b else "— | —"
            print(f"| {c} | {i + 1} | {load:.1f} | {t:,.1f} µs | {bb} | {m:.1f} µs | {t / m:.1f}× |")


if __name__ == "__main__":
    main()
