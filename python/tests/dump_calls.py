"""Every field of `Checker.check_call`'s report for a list of calls, one JSON line per call: to
compare two builds of the binding (a speed change must not change one finding, key, range, fix
or corrected dict). Not a test; run by hand:

    FILTERS_CALLS=/tmp/calls.json cargo test --release --test suite filters_fixtures::
    python python/tests/dump_calls.py /tmp/calls.json > before.jsonl   # then again after, diff

The calls of python/tests/cases.json are added to those of the file.
"""

import json
import pathlib
import sys

from netbox_lsp import Checker


def main():
    calls = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
    cases = json.loads((pathlib.Path(__file__).parent / "cases.json").read_text(encoding="utf-8"))
    calls += [["4.6.8", c["target"], list(c["filters"].items())] for c in cases["calls"]]
    checkers = {}
    for version, target, pairs in calls:
        checker = checkers.setdefault(version, Checker(version))
        filters = dict(pairs)
        report = checker.check_call(target, filters)
        print(json.dumps({
            "target": target,
            "filters": pairs,
            "text": report.text,
            "ok": report.ok,
            "len": len(report),
            "findings": [f.as_dict() for f in report],
            "corrected": report.corrected,
        }, sort_keys=True))


if __name__ == "__main__":
    main()
