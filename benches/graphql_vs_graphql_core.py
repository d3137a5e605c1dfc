#!/usr/bin/env python3
"""Per-document GraphQL validation: netbox-lsp (Rust, apollo-compiler + NetBox rules) vs
graphql-core's `validate` (the reference implementation NetBox's Strawberry server runs), on the
same documents (benches/graphql-docs/documents.txt) and the same NetBox 4.6.8 schema
(index/netbox-4.6.8.schema.graphql.gz). graphql-core refuses 4.3.3's schema, so 4.6.8 is used.

Usage: python3 benches/graphql_vs_graphql_core.py   (from the repository root)
Installs graphql-core with pip if missing, runs `cargo bench --bench graphql`, prints both
per-document times, schema load times and the ratio (goal: >= 20x, schema load <= 150 ms).
"""
import gzip
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:
    import graphql  # noqa: F401
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "graphql-core"])
from graphql import build_schema, parse, validate, __version__ as gql_version  # noqa: E402


def python_side():
    with gzip.open(os.path.join(ROOT, "index/netbox-4.6.8.schema.graphql.gz"), "rt") as f:
        sdl = f.read()
    t = time.perf_counter()
    loads = 5
    for _ in range(loads):
        schema = build_schema(sdl)
    load_ms = (time.perf_counter() - t) / loads * 1000
    with open(os.path.join(ROOT, "benches/graphql-docs/documents.txt")) as f:
        docs = [l for l in f.read().splitlines() if l.strip()]
    for d in docs:  # warm-up
        validate(schema, parse(d))
    rounds = 200
    t = time.perf_counter()
    for _ in range(rounds):
        for d in docs:
            validate(schema, parse(d))
    per_doc_us = (time.perf_counter() - t) / (rounds * len(docs)) * 1e6
    return load_ms, per_doc_us, len(docs)


def rust_side():
    env = dict(os.environ)
    out = subprocess.run(
        ["cargo", "bench", "--bench", "graphql", "--", "--output-format", "bencher"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    ).stdout
    res = {}
    for m in re.finditer(r"test (\S+)\s+\.\.\. bench:\s+([\d,]+) ns/iter", out):
        res[m.group(1)] = int(m.group(2).replace(",", "")) / 1000.0  # µs
    return res


def main():
    load_ms, py_us, n = python_side()
    rust = rust_side()
    rs_us = rust["graphql_check_per_document"]
    rs_load_ms = rust["graphql_schema_load_4.6.8"] / 1000.0
    print(f"documents: {n} (benches/graphql-docs/documents.txt), schema: NetBox 4.6.8")
    print(f"graphql-core {gql_version}: parse+validate {py_us:9.1f} us/doc, build_schema {load_ms:7.1f} ms")
    print(f"netbox-lsp           : check_text     {rs_us:9.1f} us/doc, schema load  {rs_load_ms:7.1f} ms")
    print(f"ratio (graphql-core / netbox-lsp per document): {py_us / rs_us:.1f}x  (goal >= 20x)")


if __name__ == "__main__":
    main()
