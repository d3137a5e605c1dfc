#!/usr/bin/env python3
"""Realistic GraphQL documents of a NetBox schema, by class, seeded (issue 36).

Each document is one named query with variables, one to four `<model>_list` root fields with
`filters:` (lookup objects, enum choices, related-object filters, variables) and `pagination:`,
selections two to three levels deep and named fragments, printed with two-space indentation:

- `small`: 13–30 lines, one root field, one fragment;
- `large`: 60–114 lines, two to four root fields, two to four fragments;
- `invalid`: a small or large document with one or two of the mistakes people make (a
  misspelled field or filter, a scalar where a lookup object is wanted, an unknown enum value,
  an undefined variable, a fragment on the wrong type).

Every document is checked against the schema with graphql-core: `small` and `large` validate,
`invalid` does not. Written as JSON `{"small": [...], "large": [...], "invalid": [...]}` and,
with `--dir`, one `<class>-<n>.graphql` file per document (for `netbox-lsp check`).

Usage: gen_graphql.py SCHEMA.graphql[.gz] OUT.json [--dir DIR] [--seed 36] [--count 2000]
"""
import argparse
import gzip
import json
import os
import random
import sys

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLUnionType,
    build_schema,
    parse,
    validate,
)

WORDS = ["core", "edge", "leaf", "spine", "dc1", "dc2", "lab", "prod", "rack", "fw", "sw", "router",
         "ams", "fra", "nyc", "mgmt", "oob", "access", "border", "cisco", "juniper", "arista"]


def unwrap(t):
    while isinstance(t, (GraphQLNonNull, GraphQLList)):
        t = t.of_type
    return t


class Gen:
    def __init__(self, schema, rng):
        self.s = schema
        self.r = rng
        q = schema.query_type.fields
        self.roots = sorted(
            n for n, f in q.items()
            if n.endswith("_list") and "filters" in f.args and "pagination" in f.args
        )

    # --- filters -------------------------------------------------------------------------
    def lookup_kind(self, t):
        """What a filter input field takes: 'str', 'enum', 'id', 'related', or None."""
        if isinstance(t, GraphQLScalarType) and t.name == "ID":
            return "id"
        if not isinstance(t, GraphQLInputObjectType):
            return None
        f = t.fields
        if t.name == "StrFilterLookup":
            return "str"
        if t.name.endswith("EnumBaseFilterLookup") and "exact" in f and isinstance(unwrap(f["exact"].type), GraphQLEnumType):
            return "enum"
        if t.name.endswith("Filter") and "name" in f and unwrap(f["name"].type).name == "StrFilterLookup":
            return "related"
        return None

    def filter_value(self, name, t, vars_):
        k = self.lookup_kind(t)
        r = self.r
        if k == "str":
            if r.random() < 0.3:
                v = f"${name}"
                vars_.setdefault(name, "String")
                return f"{{i_contains: {v}}}"
            op = r.choice(["exact", "i_contains", "starts_with", "i_exact"])
            return f'{{{op}: "{r.choice(WORDS)}-{r.randint(1, 99)}"}}'
        if k == "enum":
            vals = list(unwrap(t.fields["exact"].type).values)
            if r.random() < 0.3 and len(vals) > 1:
                return "{in_list: [" + ", ".join(r.sample(vals, 2)) + "]}"
            return f"{{exact: {r.choice(vals)}}}"
        if k == "id":
            return f'"{r.randint(1, 5000)}"'
        if k == "related":
            sub = "slug" if "slug" in t.fields else "name"
            return f'{{{sub}: {{exact: "{r.choice(WORDS)}"}}}}'
        return None

    def filters(self, arg_type, vars_, n):
        fields = [(fn, unwrap(f.type)) for fn, f in arg_type.fields.items()
                  if fn not in ("AND", "OR", "NOT", "DISTINCT") and not fn.startswith("_")]
        usable = [(fn, t) for fn, t in fields if self.lookup_kind(t)]
        picks = self.r.sample(usable, min(n, len(usable)))
        parts = [f"{fn}: {self.filter_value(fn, t, vars_)}" for fn, t in picks]
        return "{" + ", ".join(parts) + "}"

    # --- selections ----------------------------------------------------------------------
    def scalars(self, t):
        return [n for n, f in t.fields.items()
                if not n.startswith("_")
                and isinstance(unwrap(f.type), (GraphQLScalarType, GraphQLEnumType))
                and not any(isinstance(a.type, GraphQLNonNull) for a in f.args.values())
                and unwrap(f.type).name != "JSON"]

    def objects(self, t):
        return [n for n, f in t.fields.items()
                if not n.startswith("_") and isinstance(unwrap(f.type), GraphQLObjectType)
                and self.scalars(unwrap(f.type))
                and not any(isinstance(a.type, GraphQLNonNull) for a in f.args.values())]

    def selection(self, t, depth, budget, ind):
        """Lines of a selection set body of object type `t` (no braces), at most `budget` lines."""
        r = self.r
        sc = self.scalars(t)
        lines = []
        rest = [s for s in sc if s != "id"]
        for n in (["id"] if "id" in sc else []) + r.sample(rest, min(len(rest), r.randint(2, 6))):
            lines.append(ind + n)
        if depth > 0:
            objs = self.objects(t)
            for n in r.sample(objs, min(len(objs), r.randint(1, 3))):
                if len(lines) + 4 > budget:
                    break
                sub = unwrap(t.fields[n].type)
                body = self.selection(sub, depth - 1, max(3, (budget - len(lines)) // 2), ind + "  ")
                lines.append(f"{ind}{n} {{")
                lines.extend(body)
                lines.append(ind + "}")
        return lines[:max(budget, 2)] if depth == 0 else lines

    # --- documents -----------------------------------------------------------------------
    def document(self, n_roots, n_frags, depth, budget):
        r = self.r
        q = self.s.query_type.fields
        roots = r.sample(self.roots, n_roots)
        vars_ = {}
        frags = []
        body = []
        per = max(6, budget // n_roots)
        frag_types = {}
        for i, root in enumerate(roots):
            f = q[root]
            t = unwrap(f.type)
            ftype = unwrap(f.args["filters"].type)
            flt = self.filters(ftype, vars_, r.randint(1, 3))
            alias = f"{root[:-5]}s: " if n_roots > 1 and r.random() < 0.5 else ""
            body.append(f"  {alias}{root}(filters: {flt}, pagination: {{limit: $limit, offset: $offset}}) {{")
            sel = self.selection(t, depth, per, "    ")
            if len(frags) < n_frags and t.name not in frag_types:
                fname = f"{t.name[:-4] if t.name.endswith('Type') else t.name}Fields{len(frags) + 1}"
                frag_types[t.name] = fname
                fsel = self.selection(t, max(0, depth - 1), per // 2, "  ")
                frags.append([f"fragment {fname} on {t.name} {{"] + fsel + ["}"])
                sel.insert(1, f"    ...{fname}")
            body.extend(sel)
            body.append("  }")
        vdefs = ["$limit: Int = 50", "$offset: Int = 0"] + [f"${k}: {v}" for k, v in sorted(vars_.items())]
        name = "".join(w.capitalize() for w in roots[0][:-5].split("_"))
        lines = [f"query {name}List({', '.join(vdefs)}) {{"] + body + ["}"]
        for fr in frags:
            lines.append("")
            lines.extend(fr)
        return "\n".join(lines) + "\n"

    def sized(self, lo, hi, kw):
        for _ in range(500):
            d = self.document(**kw())
            n = d.count("\n")
            if lo <= n <= hi and not validate(self.s, parse(d)):
                return d
        raise SystemExit(f"cannot make a document of {lo}-{hi} lines")

    def small(self):
        r = self.r
        return self.sized(13, 30, lambda: dict(n_roots=1, n_frags=1, depth=r.randint(1, 2), budget=r.randint(8, 20)))

    def large(self):
        r = self.r
        k = r.randint(2, 4)
        return self.sized(60, 114, lambda: dict(n_roots=k, n_frags=r.randint(2, k), depth=2, budget=r.randint(25, 60)))

    # --- mistakes ------------------------------------------------------------------------
    def broken(self):
        r = self.r
        d = self.small() if r.random() < 0.6 else self.large()
        for _ in range(r.randint(1, 2)):
            d = self.mistake(d)
        if not validate(self.s, parse(d)):
            return self.broken()
        return d

    def mistake(self, d):
        r = self.r
        lines = d.split("\n")
        kind = r.choice(["field", "filter", "scalar", "enum", "variable", "fragment"])
        if kind == "field":
            # A misspelled selected field (a letter dropped or two swapped).
            idx = [i for i, l in enumerate(lines) if l.strip().isidentifier() and len(l.strip()) > 3 and l.strip() != "id"]
            if idx:
                i = r.choice(idx)
                w = lines[i].strip()
                k = r.randint(1, len(w) - 2)
                w2 = w[:k] + w[k + 1:] if r.random() < 0.5 else w[:k - 1] + w[k] + w[k - 1] + w[k + 1:]
                lines[i] = lines[i].replace(w, w2)
        elif kind == "filter":
            # A filter name of the REST API (`site: "x"` -> `site_slug`) or misspelled.
            idx = [i for i, l in enumerate(lines) if "(filters: {" in l]
            i = r.choice(idx)
            head, rest = lines[i].split("(filters: {", 1)
            name = rest.split(":", 1)[0]
            lines[i] = f"{head}(filters: {{{name}{r.choice(['_name', '_slug', 's', '__ic'])}" + rest[len(name):]
        elif kind == "scalar":
            idx = [i for i, l in enumerate(lines) if "{exact: \"" in l or "{i_contains: \"" in l]
            if idx:
                i = r.choice(idx)
                l = lines[i]
                for op in ["{exact: \"", "{i_contains: \""]:
                    j = l.find(op)
                    if j >= 0 and l[j - 2] == ":" and l[j - 1] == " ":
                        end = l.index("\"}", j + len(op))
                        lines[i] = l[:j] + l[j + len(op) - 1:end + 1] + l[end + 2:]
                        break
        elif kind == "enum":
            idx = [i for i, l in enumerate(lines) if "{exact: " in l and "{exact: \"" not in l]
            if idx:
                i = r.choice(idx)
                l = lines[i]
                j = l.index("{exact: ") + 8
                end = j
                while end < len(l) and (l[end].isalnum() or l[end] == "_"):
                    end += 1
                lines[i] = l[:j] + l[j:end].lower() + l[end:]
        elif kind == "variable":
            lines[0] = lines[0].replace("$offset: Int = 0", "$ofset: Int = 0", 1)
        elif kind == "fragment":
            idx = [i for i, l in enumerate(lines) if l.startswith("fragment ")]
            if idx:
                i = r.choice(idx)
                parts = lines[i].split(" ")
                parts[3] = r.choice(["SiteType", "DeviceType", "InterfaceType", "PrefixType"])
                lines[i] = " ".join(parts)
        return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("schema")
    ap.add_argument("out")
    ap.add_argument("--dir")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--count", type=int, default=2000)
    a = ap.parse_args()
    opener = gzip.open if a.schema.endswith(".gz") else open
    with opener(a.schema, "rt") as f:
        schema = build_schema(f.read())
    g = Gen(schema, random.Random(a.seed))
    n_small = a.count * 2 // 5
    n_large = a.count * 2 // 5
    n_invalid = a.count - n_small - n_large
    docs = {
        "small": [g.small() for _ in range(n_small)],
        "large": [g.large() for _ in range(n_large)],
        "invalid": [g.broken() for _ in range(n_invalid)],
    }
    with open(a.out, "w") as f:
        json.dump(docs, f)
    if a.dir:
        os.makedirs(a.dir, exist_ok=True)
        for cls, ds in docs.items():
            for i, d in enumerate(ds):
                with open(os.path.join(a.dir, f"{cls}-{i:04}.graphql"), "w") as f:
                    f.write(d)
    for cls, ds in docs.items():
        lines = sorted(d.count("\n") for d in ds)
        print(f"{cls}: {len(ds)} documents, {lines[0]}-{lines[-1]} lines (median {lines[len(lines) // 2]})", file=sys.stderr)


if __name__ == "__main__":
    main()
