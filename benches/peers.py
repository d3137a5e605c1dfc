#!/usr/bin/env python3
"""Issue 13: netbox-lsp against its real peers, interleaved in one run on the same inputs
(driven by scripts/bench-peers.sh, which makes the venv, the inputs and the builds).

Peers, each stated for what it is:
- pynetbox (PyPI, its own code): `Endpoint._validate_openapi_parameters("get", filters)`, the
  check `Endpoint.filter(..., strict_filters=True)` runs before building a request: filter NAMES
  only, against the endpoint's OpenAPI parameter list, rebuilt as a Python list on every call.
  Fed the NetBox 4.6.8 OpenAPI document in process (`api._openapi`, the attribute its
  `openapi()` caches the downloaded document in), no server. "document -> ready" = gunzip +
  json.loads of the document (what `openapi()` does with the response body) + first check.
- graphql-core (PyPI): `build_client_schema` (introspection JSON) and `build_schema` (SDL) of the
  NetBox 4.6.8 schema, then `parse` + `validate` per document.
- the seed's call-time validator (ADR-0041/0045 in ../shared/seeds): a lookup-suffix whitelist
  (`<field>` or `<field>__<suffix>` with suffix in VALID_SUFFIXES; a relation path rejected). It
  knows no endpoint: the floor of "checks almost nothing".
- ours (benches/peers.rs, in process): rest::check_call per dict, analyze() per call in .py, per
  URL in Markdown, per GraphQL document; and the whole `netbox-lsp check` process.

Verdict agreement: a dict is wrong "by the OpenAPI" when a key (not `cf_*`) is not a parameter
of its endpoint, or a value is outside the parameter's inline `enum`. Each tool's flagged dicts
are compared with that.

Usage: peers.py DIR BIN PEERS_BIN OPENAPI_GZ SCHEMA_GZ INTROSPECTION_GZ ROUNDS
Prints `PEER name median p10 p90 n` lines and writes DIR/peers-summary.md.
"""
import gzip
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

import graphql
import pynetbox
from pynetbox.core.query import ParameterValidationError

# The seed's whitelist: netbox-mcp-server's VALID_SUFFIXES with `in` (ADR-0041) and
# regex/iregex (ADR-0045) removed.
SEED_SUFFIXES = frozenset(
    ["n", "ic", "nic", "isw", "nisw", "iew", "niew", "ie", "nie", "empty",
     "lt", "lte", "gt", "gte"])


def seed_check(filters):
    errors = []
    for k in filters:
        parts = k.split("__")
        if len(parts) > 2 or (len(parts) == 2 and parts[1] not in SEED_SUFFIXES):
            errors.append(k)
    return errors


def q(samples, p):
    s = sorted(samples)
    return s[round((len(s) - 1) * p)]


def line(name, samples, per=1, unit="us"):
    med, p10, p90 = (statistics.median(samples) / per, q(samples, 0.1) / per, q(samples, 0.9) / per)
    print(f"PEER {name} {med:.3f} {p10:.3f} {p90:.3f} {len(samples)} {unit}", flush=True)
    return med


def wire(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    return str(v)


def truth(openapi, dicts):
    """Per dict: wrong by the OpenAPI document (unknown name, or value outside an inline enum)."""
    out = []
    for d in dicts:
        path = openapi["paths"].get(f"/api/{d['endpoint']}/", {})
        params = {p["name"]: p for p in path.get("get", {}).get("parameters", [])}
        bad = False
        for k, v in d["filters"].items():
            if k.startswith("cf_"):
                continue
            p = params.get(k)
            if p is None:
                bad = True
                break
            schema = p.get("schema", {})
            enum = schema.get("enum") or schema.get("items", {}).get("enum")
            if enum and v is not None:
                for x in v if isinstance(v, list) else [v]:
                    if wire(x) not in enum:
                        bad = True
        out.append(bad)
    return out


def run_timed(cmd):
    """Wall seconds and (user + sys) CPU seconds of one process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main():
    d, bin_, peers_bin, openapi_gz, sdl_gz, intro_gz, rounds = sys.argv[1:8]
    rounds = int(rounds)
    load_before = open("/proc/loadavg").read().split()[:3]
    dicts = json.load(open(os.path.join(d, "calls.json")))
    docs = [l for l in open(os.path.join(d, "docs.txt")).read().splitlines() if l.strip()]
    raw_openapi = open(openapi_gz, "rb").read()
    sdl = gzip.decompress(open(sdl_gz, "rb").read()).decode()
    intro = json.loads(gzip.decompress(open(intro_gz, "rb").read()))
    intro = intro.get("data", intro)

    # pynetbox in process: no server is contacted (the document is set where openapi() caches it).
    def pynetbox_ready():
        nb = pynetbox.api("http://netbox.invalid", token="0" * 40)
        nb._openapi = json.loads(gzip.decompress(raw_openapi))
        return nb

    nb = pynetbox_ready()
    endpoints = {}
    for x in dicts:
        app, name = x["endpoint"].split("/")
        if x["endpoint"] not in endpoints:
            endpoints[x["endpoint"]] = getattr(getattr(nb, app), name.replace("-", "_"))
    work = [(endpoints[x["endpoint"]], {k: v if v is not None else "null" for k, v in x["filters"].items()})
            for x in dicts]

    def pynetbox_all():
        flagged = []
        for ep, f in work:
            try:
                ep._validate_openapi_parameters("get", f)
                flagged.append(False)
            except ParameterValidationError:
                flagged.append(True)
        return flagged

    seed_work = [x["filters"] for x in dicts]

    def seed_all():
        return [bool(seed_check(f)) for f in seed_work]

    client = graphql.build_client_schema(intro)
    parsed_schema = graphql.build_schema(sdl)

    def gcore_all():
        for doc in docs * 5:
            graphql.validate(parsed_schema, graphql.parse(doc))

    py_files = {n: os.path.join(d, f"calls-{n}.py") for n in (100, 1000, 10000, 100000)}
    small = os.path.join(d, "small.md")
    samples = {k: [] for k in ["pynetbox_dict", "pynetbox_ready", "seed_dict", "gcore_doc",
                               "gcore_client_schema", "gcore_build_schema", "version", "small"]
               + [f"check_{n}" for n in py_files]}
    ours = {}
    cpu_py = {"pynetbox_dict": [], "seed_dict": [], "gcore_doc": []}
    cpu = {f"check_{n}": [] for n in py_files}
    cpu_small = []
    # Interleaved: each round runs every peer once, in the same order.
    for r in range(rounds):
        c = time.process_time(); pynetbox_all(); cpu_py["pynetbox_dict"].append((time.process_time() - c) * 1e6)
        c = time.process_time(); seed_all(); cpu_py["seed_dict"].append((time.process_time() - c) * 1e6)
        c = time.process_time(); gcore_all(); cpu_py["gcore_doc"].append((time.process_time() - c) * 1e6)
        t = time.perf_counter(); nb2 = pynetbox_ready(); nb2.dcim.devices._validate_openapi_parameters("get", {"site": "x"})
        samples["pynetbox_ready"].append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter(); pynetbox_all(); samples["pynetbox_dict"].append((time.perf_counter() - t) * 1e6)
        t = time.perf_counter(); seed_all(); samples["seed_dict"].append((time.perf_counter() - t) * 1e6)
        t = time.perf_counter(); gcore_all(); samples["gcore_doc"].append((time.perf_counter() - t) * 1e6)
        if r < 5:
            t = time.perf_counter(); graphql.build_client_schema(intro); samples["gcore_client_schema"].append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter(); graphql.build_schema(sdl); samples["gcore_build_schema"].append((time.perf_counter() - t) * 1e3)
        out = subprocess.run([peers_bin, d, "1"], capture_output=True, text=True, check=True).stdout
        for m in re.finditer(r"^OURS (\S+) ([\d.]+)", out, re.M):
            ours.setdefault(m[1], []).append(float(m[2]))
        samples["version"].append(run_timed([bin_, "--version"])[0] * 1e3)
        wall, c, _ = run_timed([bin_, "check", small])
        samples["small"].append(wall * 1e3)
        cpu_small.append(c * 1e3)
        for n, f in py_files.items():
            if n == 100000 and r % 3:
                continue  # 100,000 calls take seconds: every third round
            wall, c, _ = run_timed([bin_, "check", f])
            samples[f"check_{n}"].append(wall * 1e3)
            cpu[f"check_{n}"].append(c * 1e3)

    n = len(dicts)
    res = {}
    res["pynetbox_dict"] = line("pynetbox_strict_filters_per_dict", samples["pynetbox_dict"], n)
    res["pynetbox_ready"] = line("pynetbox_document_to_ready_ms", samples["pynetbox_ready"], 1, "ms")
    res["seed_dict"] = line("seed_suffix_whitelist_per_dict", samples["seed_dict"], n)
    res["gcore_doc"] = line("graphql_core_parse_validate_per_doc", samples["gcore_doc"], len(docs) * 5)
    res["gcore_client"] = line("graphql_core_build_client_schema_ms", samples["gcore_client_schema"], 1, "ms")
    res["gcore_sdl"] = line("graphql_core_build_schema_ms", samples["gcore_build_schema"], 1, "ms")
    res["pynetbox_dict_cpu"] = line("pynetbox_strict_filters_per_dict_cpu", cpu_py["pynetbox_dict"], n)
    res["seed_dict_cpu"] = line("seed_suffix_whitelist_per_dict_cpu", cpu_py["seed_dict"], n)
    res["gcore_doc_cpu"] = line("graphql_core_parse_validate_per_doc_cpu", cpu_py["gcore_doc"], len(docs) * 5)
    for k, v in ours.items():
        res[f"ours_{k}"] = line(f"ours_{k}", v)
    res["version"] = line("netbox_lsp_version_ms", samples["version"], 1, "ms")
    res["small"] = line("check_small_rest_md_ms", samples["small"], 1, "ms")
    res["small_cpu"] = line("check_small_rest_md_cpu_ms", cpu_small, 1, "ms")
    res["small_min"] = min(samples["small"])
    for m in py_files:
        res[f"check_{m}"] = line(f"check_py_{m}_calls_ms", samples[f"check_{m}"], 1, "ms")
        res[f"cpu_{m}"] = line(f"check_py_{m}_calls_cpu_ms", cpu[f"check_{m}"], 1, "ms")
    # Fit wall = fixed + slope * calls over the 100 / 10,000 / 100,000 medians (least squares).
    xs = [100, 10000, 100000]
    ys = [res[f"check_{x}"] for x in xs]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    fixed = my - slope * mx
    res["fit_fixed_ms"], res["fit_slope_us"] = fixed, slope * 1000
    cys = [res[f"cpu_{x}"] for x in xs]
    cmy = statistics.mean(cys)
    cslope = sum((x - mx) * (y - cmy) for x, y in zip(xs, cys)) / sum((x - mx) ** 2 for x in xs)
    cfixed = cmy - cslope * mx

    # Verdicts on the dicts.
    openapi = json.loads(gzip.decompress(raw_openapi))
    wrong = truth(openapi, dicts)
    ours_v = [l.strip() == "1" for l in open(os.path.join(d, "verdicts.txt"))]
    verdicts = {"pynetbox strict_filters": pynetbox_all(), "seed suffix whitelist": seed_all(), "netbox-lsp": ours_v}
    load_after = open("/proc/loadavg").read().split()[:3]

    def rel(peer, ours):
        """Our cost against the peer's, said the right way round."""
        return f"{peer / ours:.1f}× less" if ours <= peer else f"{ours / peer:.1f}× more"

    md = []
    md.append(f"- inputs: {n:,} filter dicts (benches/gen_calls.py, NetBox 4.6.8 index), {len(docs)} GraphQL documents "
              f"(benches/graphql-docs/documents.txt), {rounds} interleaved rounds")
    md.append(f"- peers: pynetbox {pynetbox.__version__}, graphql-core {graphql.__version__}, Python {sys.version.split()[0]}")
    md.append(f"- load average before: {' '.join(load_before)}; after: {' '.join(load_after)}")
    md.append("")
    md.append("| figure | wall, median | CPU, median | vs pynetbox (CPU) |")
    md.append("|---|---|---|---|")
    pd, pdc = res["pynetbox_dict"], res["pynetbox_dict_cpu"]
    md.append(f"| pynetbox `strict_filters` (names only), per dict | {pd:.2f} µs | {pdc:.2f} µs | 1× |")
    md.append(f"| seed's suffix whitelist (no endpoint knowledge), per dict | {res['seed_dict']:.2f} µs | {res['seed_dict_cpu']:.2f} µs | {rel(pdc, res['seed_dict_cpu'])} |")
    for k, label in (("dict", "ours `rest::check_call`, per dict (one thread)"),
                     ("py_call", "ours `analyze()` of calls.py, per call (2 threads)"),
                     ("md_url", "ours `analyze()` of urls.md, per URL (2 threads)")):
        w, c = res[f"ours_{k}"], res[f"ours_{k}_cpu"]
        md.append(f"| {label} | {w:.2f} µs | {c:.2f} µs | {rel(pdc, c)} |")
    c10 = res["cpu_10000"] / 10
    md.append(f"| whole `netbox-lsp check` of calls.py (10,000 calls), per call | {res['check_10000'] / 10:.2f} µs | {c10:.2f} µs | {rel(pdc, c10)} |")
    md.append(f"| ″ fit over 100 / 10,000 / 100,000 calls: fixed + slope | {fixed:.1f} ms + {slope * 1000:.2f} µs/call | {cfixed:.1f} ms + {cslope * 1000:.2f} µs/call | slope {rel(pdc, cslope * 1000)} |")
    md.append(f"| per-call CPU at 100,000 / at 1,000 calls | | {(res['cpu_100000'] / 100000) / (res['cpu_1000'] / 1000):.2f}× | goal ≤ 1.2× |")
    for m in py_files:
        md.append(f"| `check` of {m:,} calls: wall / CPU (user+sys) | {res[f'check_{m}']:.1f} ms / {res[f'cpu_{m}']:.1f} ms |  | {res[f'check_{m}'] * 1000 / m:.2f} µs per call wall |")
    md.append(f"| per-call wall at 100,000 / at 1,000 calls | {(res['check_100000'] / 100000) / (res['check_1000'] / 1000):.2f}× |  | goal ≤ 1.2× |")
    md.append(f"| pynetbox document → ready (gunzip + json.loads + first check) | {res['pynetbox_ready']:.1f} ms |  | — |")
    md.append(f"| `check` of a small REST-only Markdown file, whole process (wall min {res['small_min']:.2f} ms) | {res['small']:.2f} ms | {res['small_cpu']:.2f} ms | `--version` {res['version']:.2f} ms |")
    gd, gdc = res["gcore_doc"], res["gcore_doc_cpu"]
    md.append(f"| graphql-core parse + validate, per document (wall / CPU) | {gd:.1f} µs / {gdc:.1f} µs |  | — |")
    md.append(f"| ours per GraphQL document (wall / CPU) | {res['ours_graphql_doc']:.1f} µs / {res['ours_graphql_doc_cpu']:.1f} µs |  | {gdc / res['ours_graphql_doc_cpu']:.1f}× less CPU than graphql-core |")
    md.append(f"| graphql-core build_client_schema / build_schema (4.6.8) | {res['gcore_client']:.0f} ms / {res['gcore_sdl']:.0f} ms |  | — |")
    md.append(f"| ours: index load, embedded 4.6.8 (goal ≤ 2 ms, issue 2) | {res['ours_index_load_ms']:.2f} ms |  | — |")
    md.append(f"| ours: `analyze()` of the 5,000-line SKILL.md of benches/check.rs (goal ≤ 10 ms, issue 2) | {res['ours_skill5000_analyze_ms']:.2f} ms |  | — |")
    md.append("")
    md.append(f"Verdicts on the {n:,} dicts ({sum(wrong):,} wrong by the OpenAPI document: an unknown name or a value outside an inline enum):")
    md.append("")
    md.append("| tool | dicts flagged | of the wrong ones caught | missed | flagged though right by the OpenAPI |")
    md.append("|---|---|---|---|---|")
    for name, v in verdicts.items():
        tp = sum(a and b for a, b in zip(v, wrong)); fn = sum(b and not a for a, b in zip(v, wrong))
        fp = sum(a and not b for a, b in zip(v, wrong))
        md.append(f"| {name} | {sum(v):,} | {tp:,} | {fn:,} | {fp:,} |")
    open(os.path.join(d, "peers-summary.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))

    # The README's condensed table, from the same figures (CPU: the machine is shared, wall
    # times hold waits for a core). scripts/bench-peers.sh adds the 20 MB / folder rows.
    def ratio(ours, peer):
        return f"{peer / ours:.1f}× less" if ours <= peer else f"{ours / peer:.1f}× more"
    caught = {name: sum(a and b for a, b in zip(v, wrong)) for name, v in verdicts.items()}
    rd = [f"pynetbox {pynetbox.__version__} and graphql-core {graphql.__version__} (PyPI, Python {sys.version.split()[0]}) "
          f"driven in process on the same inputs, {rounds} interleaved rounds; medians of CPU time.",
          "",
          f"| figure ({n:,} generated filter dicts, NetBox 4.6.8) | ours, CPU | peer, CPU | ratio |",
          "|---|---|---|---|",
          f"| REST check per dict, in process | {res['ours_dict_cpu']:.1f} µs | pynetbox `strict_filters` (names only) {pdc:.1f} µs | {ratio(res['ours_dict_cpu'], pdc)} |",
          f"| ″ written as URLs in Markdown, `analyze()` per URL | {res['ours_md_url_cpu']:.1f} µs | ″ | {ratio(res['ours_md_url_cpu'], pdc)} |",
          f"| ″ written as MCP calls in `.py`, whole `check` per call (goal ≤ 10 µs) | {c10:.1f} µs | ″ | {ratio(c10, pdc)} |",
          f"| ″ whole `check` fit over 100 / 10,000 / 100,000 calls | {cfixed:.1f} ms + {cslope * 1000:.2f} µs per call | ″ | slope {ratio(cslope * 1000, pdc)} |",
          f"| ″ per-call cost at 100,000 vs 1,000 calls (goal ≤ 1.2×) | {(res['cpu_100000'] / 100000) / (res['cpu_1000'] / 1000):.2f}× | — | |",
          f"| wrong dicts caught ({sum(wrong):,} wrong by the OpenAPI document) | {caught['netbox-lsp']:,} | pynetbox {caught['pynetbox strict_filters']:,}; the seed's suffix whitelist ({res['seed_dict_cpu']:.1f} µs) {caught['seed suffix whitelist']:,} | |",
          f"| GraphQL document, parse + validate | {res['ours_graphql_doc_cpu']:.1f} µs | graphql-core {gdc:,.0f} µs | {gdc / res['ours_graphql_doc_cpu']:.0f}× less |",
          f"| GraphQL schema, document → ready | — | graphql-core `build_client_schema` {res['gcore_client']:.0f} ms, `build_schema` {res['gcore_sdl']:.0f} ms (wall) | |",
          f"| pynetbox, OpenAPI document → ready | — | {res['pynetbox_ready']:.0f} ms (wall) | |",
          f"| `check` of a small REST-only file | {res['small_cpu']:.1f} ms CPU; {res['small']:.1f} ms wall | `--version` {res['version']:.1f} ms wall | |"]
    open(os.path.join(d, "peers-readme.md"), "w").write("\n".join(rd) + "\n")


if __name__ == "__main__":
    main()
