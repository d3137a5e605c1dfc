#!/usr/bin/env python3
"""Per-call cost of checking one filters dict in-process (issue 12 §2), run by hand, not in CI.

Three checks of the same dicts in the same run, each timed per call (median of rounds):
- netbox_lsp.Checker.check_call: names per endpoint, lookups, choices and value rules (alone,
  with every finding's message read, and with `.corrected` read);
- a seed-style call-time validator (the agent's FilterValidator of ADR-0041: a lookup suffix
  must be on the MCP server's whitelist, no multi-hop; nothing about names or values);
- pynetbox `strict_filters` validation (`Endpoint._validate_openapi_parameters`: exact name
  membership in the path's OpenAPI parameters), fed NetBox 4.6.8's real OpenAPI document from
  ../shared/netbox/v4.6.8/openapi.json.gz (memoised on the api object, as pynetbox does after its
  one fetch; no server is contacted).

Each round times 20,000 calls both by the wall clock and by the process's CPU time: on a shared
machine the wall clock also counts the time the process waits for a core (with 2 cores and a
load of 8 a round's wall time was 2.6x its CPU time), while the CPU time is what the calls cost.
The load average is printed with the table.

Usage: python benches/python_api.py   (in a venv with the netbox-lsp wheel and pynetbox)
Prints one table (Markdown) for docs/benchmarks.md.
"""
import gzip
import json
import os
import statistics
import sys
import time
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPENAPI = os.path.join(ROOT, "..", "shared", "netbox", "v4.6.8", "openapi.json.gz")

VALID = {"role_id": 3, "status": "active", "site_id": [1, 2]}
WRONG = {"device_role_id": 3, "status": "Active", "site_id__in": [1, 2]}

# The MCP server's whitelist as the seed agent mirrored it, `in` removed (ADR-0041).
VALID_SUFFIXES = frozenset(
    "n ic nic isw nisw iew niew ie nie empty regex iregex lt lte gt gte".split()
)


def seed_validate(filters):
    """Seed-style: every `a__b` key needs `b` on the whitelist; returns the errors."""
    errors = []
    for key in filters:
        if "__" in key:
            base, _, suffix = key.partition("__")
            if "__" in suffix or suffix not in VALID_SUFFIXES:
                errors.append(f"suffix '__{suffix}' is not on the MCP server's whitelist")
    return errors


def per_call_us(fn, rounds=15, number=20000):
    """Median, p10 and p90 of µs per call by the wall clock, then the median by CPU time."""
    timer = timeit.Timer(fn)
    wall, cpu = [], []
    for _ in range(rounds):
        w0, c0 = time.perf_counter(), time.process_time()
        timer.timeit(number)
        wall.append((time.perf_counter() - w0) / number * 1e6)
        cpu.append((time.process_time() - c0) / number * 1e6)
    wall.sort()
    return statistics.median(wall), wall[len(wall) // 10], wall[-1 - len(wall) // 10], statistics.median(cpu)


def main():
    from netbox_lsp import Checker

    checker = Checker(netbox_version="4.6.8")
    rows = []
    for name, d in (("valid", VALID), ("wrong keys", WRONG)):
        report = checker.check_call("dcim.device", d)
        codes = [f.code for f in report]
        rows.append((f"netbox-lsp check_call, {name}", per_call_us(lambda: checker.check_call("dcim.device", d)), f"{len(codes)} findings: {', '.join(codes) or '-'}"))
        # Reading every finding's message: the Finding objects are made on that first access.
        rows.append((f"netbox-lsp check_call + messages read, {name}", per_call_us(lambda: [f.message for f in checker.check_call("dcim.device", d)]), f"{len(codes)} messages"))
        rows.append((f"netbox-lsp check_call + .corrected, {name}", per_call_us(lambda: checker.check_call("dcim.device", d).corrected), "corrected: " + json.dumps(report.corrected)))
        errs = seed_validate(d)
        rows.append((f"seed-style suffix validator, {name}", per_call_us(lambda: seed_validate(d)), f"{len(errs)} errors"))
    if os.path.exists(OPENAPI):
        import pynetbox
        from pynetbox.core.query import ParameterValidationError

        api = pynetbox.api("http://netbox.invalid", token="0" * 40)
        with gzip.open(OPENAPI, "rt") as f:
            api._openapi = json.load(f)
        ep = api.dcim.devices

        def strict(d):
            try:
                ep._validate_openapi_parameters("get", d)
                return 0
            except ParameterValidationError as e:
                return str(e.error).count("is not allowed") or 1

        for name, d in (("valid", VALID), ("wrong keys", WRONG)):
            n = strict(d)
            rows.append((f"pynetbox {pynetbox.__version__} strict_filters, {name}", per_call_us(lambda: strict(d)), f"{n} errors"))
    else:
        print(f"SKIPPED pynetbox: {OPENAPI} missing", file=sys.stderr)

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"Python {sys.version.split()[0]}; {os.cpu_count()} CPUs, load average {load}; dicts: valid {json.dumps(VALID)}, wrong {json.dumps(WRONG)} on dcim.device\n")
    print("| check | median µs/call, wall | p10–p90, wall | median µs/call, CPU | result |")
    print("|---|---|---|---|---|")
    for label, (med, p10, p90, cpu), result in rows:
        print(f"| {label} | {med:.2f} | {p10:.2f}–{p90:.2f} | {cpu:.2f} | {result} |")


if __name__ == "__main__":
    main()
