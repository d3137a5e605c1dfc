"""Variants of a list of calls (as `python/tests/dump_calls.py` reads them), to compare two builds
of the binding on more than the fixtures: each call's values replaced in turn by values that reach
different value rules, its keys with lookups, its keys misspelt (a character dropped, doubled or
two swapped) and written as relation paths (`rel__name`, `rel.id`, `rel__id__in`), its target
misspelt, and the first 200 calls on each other shipped release. Not a test; run by hand:

    FILTERS_CALLS=/tmp/calls.json cargo test --release --test suite filters_fixtures::
    python python/tests/gen_variants.py /tmp/calls.json /tmp/variants.json
    python python/tests/dump_calls.py /tmp/variants.json > before.jsonl   # then after, diff
"""

import json
import sys

VALUES = [1, -1, 0, 70000, 2**40, "1", "abc-def", "Main Site", "x,y", None, True, False, [1, 2],
          ["a", "b"], "null", "65000:100", 3.5, "", "2024-01-01", "^a.*", {}]
OTHER_RELEASES = ("4.3.3", "4.4.10", "4.5.10", "4.7.3")


def misspelt(key):
    """A few misspellings of `key`: one character dropped, one doubled, two neighbours swapped."""
    out = []
    for i in range(0, len(key), 3):
        out.append(key[:i] + key[i + 1:])
        out.append(key[:i] + key[i] + key[i:])
        if i + 1 < len(key):
            out.append(key[:i] + key[i + 1] + key[i] + key[i + 2:])
    return [k for k in out if k and k != key]


def main():
    calls = json.load(open(sys.argv[1], encoding="utf-8"))
    out = []
    for version, target, pairs in calls:
        for v in VALUES:
            out.append([version, target, [[k, v] for k, _ in pairs]])
        for suffix in ("__n", "__ic", "__empty", "__in", "__regex", "__any", "__isnull"):
            out.append([version, target, [[k + suffix, "x"] for k, _ in pairs]])
        for wrong in misspelt(target)[:6]:
            out.append([version, wrong, pairs])
        for k, v in pairs:
            base = k[:-3] if k.endswith("_id") else k
            for wrong in misspelt(k) + [f"{base}__name", f"{base}.id", f"{base}__id__in", f"{base}__slug__n"]:
                out.append([version, target, [[wrong, v]]])
    for release in OTHER_RELEASES:
        out += [[release, t, p] for _, t, p in calls[:200]]
    json.dump(out, open(sys.argv[2], "w", encoding="utf-8"))
    print(len(out), "calls")


if __name__ == "__main__":
    main()
