#!/usr/bin/env python3
"""Generates a large SKILL.md-like Markdown file (for the "20 MB skill checked in full" goal of
issue 13 and the folder benchmark): repeated sections of prose with REST URLs in inline code,
a python fence of MCP calls (benches/gen_calls.py), a json tool-call fence, a yaml tool-call
fence and a graphql fence (a document from benches/graphql-docs/documents.txt).

Usage: python3 benches/gen_skill.py BYTES OUT.md
       python3 benches/gen_skill.py --folder FILES BYTES_EACH DIR   (a folder of FILES files)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_calls  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sections(dicts, docs):
    i = 0
    while True:
        d = [dicts[(i * 5 + k) % len(dicts)] for k in range(5)]
        q = "&".join(f"{k}={v if not isinstance(v, list) else v[0]}" for k, v in d[0]["filters"].items())
        calls = gen_calls.python_file(d).split("\n", 1)[1]
        tool = {"name": "netbox_get_objects",
                "arguments": {"object_type": d[1]["object_type"], "filters": d[1]["filters"]}}
        yaml = "\n".join(
            ["- tool: netbox_get_objects", "  arguments:", f"    object_type: {d[2]['object_type']}", "    filters:"]
            + [f"      {k}: {json.dumps(v)}" for k, v in d[2]["filters"].items()])
        yield (
            f"## Task {i}\n\nTo list them, call `/api/{d[0]['endpoint']}/?{q}` and read the `results`.\n"
            f"Keep the page size small; the agent pages with `limit` and `offset`.\n\n"
            f"```python\n{calls}```\n\n```json\n{json.dumps(tool, indent=2)}\n```\n\n"
            f"```yaml\n{yaml}\n```\n\n```graphql\n{docs[i % len(docs)]}\n```\n\n"
        )
        i += 1


def skill(size, dicts, docs):
    out, n = ["---\nname: netbox-bench\ndescription: generated benchmark skill\n---\n\n# NetBox\n\n"], 0
    for s in sections(dicts, docs):
        if n + len(s) > size:
            break
        out.append(s)
        n += len(s)
    return "".join(out)


def main():
    docs = [l for l in open(os.path.join(ROOT, "benches/graphql-docs/documents.txt")).read().splitlines()
            if l.strip() and not l.startswith("#")]
    dicts = gen_calls.generate(20000)
    if sys.argv[1] == "--folder":
        files, each, folder = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        os.makedirs(folder, exist_ok=True)
        text = skill(each, dicts, docs)
        for k in range(files):
            sub = os.path.join(folder, f"s{k // 100:03d}")
            os.makedirs(sub, exist_ok=True)
            # Each file differs (its number in the front matter), as real folders do.
            with open(os.path.join(sub, f"SKILL-{k}.md"), "w") as f:
                f.write(text.replace("generated benchmark skill", f"generated benchmark skill {k}", 1))
        return
    with open(sys.argv[2], "w") as f:
        f.write(skill(int(sys.argv[1]), dicts, docs))


if __name__ == "__main__":
    main()
