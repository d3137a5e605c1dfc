#!/usr/bin/env python3
"""Cross-language baseline for the REST corpus benchmark (benches/check.rs, group `corpus`): the
name-set membership floor in Python — each filter name looked up in a prebuilt frozenset of the
endpoint's query parameter names (exact membership, nothing else). It is NOT pynetbox: real
pynetbox `strict_filters` rebuilds the endpoint's parameter list on every call and costs ~70x
more; it is measured by scripts/bench-peers.sh — over the same 10,000 filter
dicts, with the same NetBox 4.6.8 index (index/netbox-4.6.8.index.json.gz).

The name sets are built once, before timing (a client caches the OpenAPI document), so this is
the cheapest form of the check.

Usage: python3 benches/rest_baseline.py DUMP_DIR
  DUMP_DIR holds corpus.json, written by `NETBOX_LSP_BENCH_DUMP=DUMP_DIR cargo bench --bench check`.
Prints the median over rounds of the time for all dicts, dicts per second, and a machine line
`PY rest_name_set <median_ms> <p10_ms> <p90_ms> <rounds>` for scripts/bench.sh.
"""
import gzip
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(os.path.join(sys.argv[1], "corpus.json")) as f:
        corpus = [(d["object_type"], d["filters"]) for d in json.load(f)]
    with gzip.open(os.path.join(ROOT, "index/netbox-4.6.8.index.json.gz"), "rt") as f:
        index = json.load(f)
    params = {
        ot: frozenset(index["endpoints"][key]["params"])
        for ot, key in index["object_types"].items()
        if key in index["endpoints"]
    }

    def check_all():
        unknown = 0
        for ot, filters in corpus:
            valid = params.get(ot)
            if valid is None:
                continue
            unknown += len(filters.keys() - valid)
        return unknown

    rejected = check_all()  # warm-up
    samples = []
    for _ in range(30):
        t = time.perf_counter()
        check_all()
        samples.append((time.perf_counter() - t) * 1000.0)
    samples.sort()
    med = statistics.median(samples)
    q = lambda p: samples[round((len(samples) - 1) * p)]  # noqa: E731
    print(
        f"python name-set membership floor: {len(corpus)} dicts, {rejected} keys rejected; "
        f"median {med:.3f} ms per corpus, {len(corpus) / med * 1000:,.0f} dicts/s"
    )
    print(f"PY rest_name_set {med:.3f} {q(0.1):.3f} {q(0.9):.3f} {len(samples)}")


if __name__ == "__main__":
    main()
