#!/usr/bin/env python3
"""Generates a Python file of N MCP tool calls (`netbox_get_objects("dcim.devices", {...})`, one
per line) from the vendored NetBox 4.6.8 index, deterministically: about 70 % of the keys are
valid filters (bare or with a lookup), the rest typos, `__in` lists, `None` values and Django
lookups. Used by scripts/bench-peers.sh to time `check` at 100 / 10,000 / 100,000 calls.

Usage: python3 benches/gen_calls.py N OUT.py [OUT.json]
  OUT.json (optional): the same dicts as `[{"object_type", "endpoint", "filters"}]` for the
  in-process peers (pynetbox, the seed's whitelist).
"""
import gzip
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMON = ["dcim.device", "dcim.interface", "ipam.ipaddress", "ipam.prefix", "ipam.vlan",
          "dcim.site", "virtualization.virtualmachine", "circuits.circuit", "tenancy.tenant"]
VALUES = ["dc1", "edge", "core", 3, 42, True, "active"]


def typo(name, rng):
    if len(name) < 3:
        return name + "s"
    at = rng.randrange(1, len(name) - 1)
    r = rng.randrange(3)
    if r == 0:
        return name[:at] + name[at + 1:]
    if r == 1:
        return name[:at - 1] + name[at] + name[at - 1] + name[at + 1:]
    return name[:at] + "e" + name[at:]


def generate(n, seed=0x5EED):
    with gzip.open(os.path.join(ROOT, "index/netbox-4.6.8.index.json.gz"), "rt") as f:
        index = json.load(f)
    rng = random.Random(seed)
    ots = sorted(index["object_types"])
    out = []
    while len(out) < n:
        ot = rng.choice(COMMON) if rng.random() < 0.7 else rng.choice(ots)
        ep = index["object_types"][ot]
        if ep not in index["endpoints"]:
            continue
        names = sorted(index["endpoints"][ep]["params"])
        bare = [k for k in names if "__" not in k and k not in ("limit", "offset", "brief", "fields", "ordering", "q")]
        if not bare:
            continue
        filters = {}
        for _ in range(1 + rng.randrange(3)):
            name = rng.choice(bare)
            roll = rng.randrange(100)
            if roll < 45:
                k, v = name, rng.choice(VALUES)
            elif roll < 60:
                k, v = rng.choice(names), rng.choice(VALUES)
            elif roll < 75:
                k, v = typo(name, rng), rng.choice(VALUES)
            elif roll < 85:
                k, v = name + "__in", [rng.choice(VALUES), rng.choice(VALUES)]
            elif roll < 92:
                k, v = name, None
            else:
                k, v = name + "__icontains", "edge"
            filters.setdefault(k, v)
        out.append({"object_type": ot, "endpoint": ep, "filters": filters})
    return out


def python_file(dicts):
    lines = ["# Generated: one MCP tool call per line (benches/gen_calls.py)."]
    for d in dicts:
        body = ", ".join(f"{json.dumps(k)}: {py(v)}" for k, v in d["filters"].items())
        lines.append(f'netbox_get_objects("{d["object_type"]}", {{{body}}})')
    return "\n".join(lines) + "\n"


def py(v):
    if v is None:
        return "None"
    if v is True:
        return "True"
    if isinstance(v, list):
        return "[" + ", ".join(py(x) for x in v) + "]"
    return json.dumps(v)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    dicts = generate(int(sys.argv[1]))
    with open(sys.argv[2], "w") as f:
        f.write(python_file(dicts))
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            json.dump(dicts, f)


if __name__ == "__main__":
    main()
