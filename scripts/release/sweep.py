#!/usr/bin/env python3
"""A fresh live sweep of a NetBox release in the lab, in the layout of
../shared/netbox/v<version>/ground-truth-sweep.tsv (endpoint, query, http_status, count_filtered,
count_unfiltered, verdict, note = `probe kind K; ...`), for `scripts/add-release.sh`.

Usage: LAB_DIR=... python3 scripts/release/sweep.py VERSION NEW_OPENAPI PREVIOUS_SWEEPS PREVIOUS_OPENAPI OUT_TSV [RULE_PROBES]
  VERSION           the live release (its url + v1 token are read from $LAB_DIR/tokens.txt)
  NEW_OPENAPI       its openapi.json.gz (the list endpoints and their parameters)
  PREVIOUS_SWEEPS   the ground-truth-sweep.tsv files of the shipped releases before it, `:`
                    between them, the previous release first: every row is probed again
  PREVIOUS_OPENAPI  the previous release's openapi.json.gz: parameters it lacks are probed too
  RULE_PROBES       `netbox-lsp release probes` (endpoint, query, kind, rule): the trigger values
                    of every server fault, value form and null refusal the rule tables know

What is probed, so that the review sheet can pair rows with the previous release's:
  1. every row of the previous sweeps whose endpoint still exists, with the same query and
     probe kind (the demo data is the same dump on every release, so the same ids name the same
     objects); an older release's row once only, and not a `param`/`param-lookup` row of a
     parameter the new release does not have (the previous release's rows show removals);
  2. every rule probe (RULE_PROBES);
  3. every parameter the new release added (on an endpoint both have, or on a new endpoint):
     kind `param` for the bare filter, `param-lookup` for a lookup, with a value meant to narrow;
  4. on each new endpoint, the wrong forms people write: a misspelled name (`misspelled`),
     `id__in=1,2` (`in-lookup`) and `id=1,2` (`comma`).
A probe whose answer is a 200 needs objects to be judged: on an endpoint without objects it is
skipped (nothing can narrow there), and so is a negation (`__n`, `__nic`, ...) of a value no
object has when no object's own value can stand in. A refusal (400, 500) is written whatever
the data.

Verdicts (the previous sweeps' words): 200 with fewer objects than unfiltered -> honoured; 200
with all of them -> the alternative value(s) are tried (a value drawn from the endpoint's own
objects, another member of the filter's choice set, the other boolean), honoured if one narrows
("decided by the alternative value"), else silently-ignored; a negation is measured against its
positive twin (`k__n=v` against `k=v`): the complement is honoured, the positive's own count
is "honoured (a different meaning than written)"; 400 "Select a valid choice" for a made-up value (`999999`, `zz-no-such`) on a
probe meant to narrow -> the alternative decides, else `400 data (the value names no existing
object: out of reach without the instance's data)`; any other 400 -> `400 error`; 5xx -> `error 500 (a
NetBox fault for this filter)` with the exception. Lists (`k=a&k=b`) compare each value alone
with both: the union is honoured (also when the two values cover every object), one count is
`partial: only ONE value used`. "Select a valid choice" on a filter without a choice set in the
OpenAPI document names no object: `400 data` on the probes meant to narrow.

Requests go one at a time (the lab is shared); every answer is cached. Python 3 stdlib only.
"""
import gzip
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

VER, NEW_OA, OLD_SWEEPS, OLD_OA, OUT = sys.argv[1:6]
RULE_PROBES = sys.argv[6] if len(sys.argv) > 6 else None


def _lab():
    url = tok = None
    for line in open(os.path.join(os.environ['LAB_DIR'], 'tokens.txt')):
        p = line.split()
        if len(p) >= 3 and p[0] == VER and p[1] == 'url':
            url = p[2]
        if len(p) > 3 and p[0] == VER and p[1] == 'v1':
            tok = ' '.join(p[3:])
    if not (url and tok):
        sys.exit(f'no {VER} url/v1 token in $LAB_DIR/tokens.txt')
    return url, tok


BASE, TOKEN = _lab()
HDR = {'Authorization': TOKEN, 'Accept': 'application/json'}
_cache = {}


def get(path):
    """(status, parsed body or text); one retry on a reset connection (a loaded lab drops one now and then)."""
    if path in _cache:
        return _cache[path]
    for attempt in (1, 2):
        r = urllib.request.Request(BASE + path, headers=HDR)
        try:
            with urllib.request.urlopen(r, timeout=300) as resp:
                b, st = resp.read(), resp.status
            break
        except urllib.error.HTTPError as e:
            b, st = e.read(), e.code
            break
        except (ConnectionError, urllib.error.URLError):
            if attempt == 2:
                raise
            time.sleep(2)
    try:
        out = (st, json.loads(b))
    except ValueError:
        out = (st, b.decode(errors='replace'))
    _cache[path] = out
    return out


def rest(ep, qs, limit=1):
    path = f'/api/{ep}/?' + '&'.join(x for x in (qs, f'limit={limit}') if x)
    return get(path)


def count(ep, qs):
    st, d = rest(ep, qs)
    if st == 200 and isinstance(d, dict) and 'count' in d:
        return d['count']
    return None


def unfiltered(ep):
    return count(ep, '')


_objects = {}


def objects(ep):
    if ep not in _objects:
        st, d = rest(ep, '', limit=50)
        _objects[ep] = d.get('results', []) if st == 200 and isinstance(d, dict) else []
    return _objects[ep]


def enc(v):
    return urllib.parse.quote(str(v), safe=':/,^$.-_~')


def split_query(qs):
    return [tuple(p.split('=', 1)) if '=' in p else (p, '') for p in qs.split('&') if p]


def data_values(ep, base):
    """Values of filter `base` drawn from the endpoint's first objects (ids of relations for `x_id`)."""
    out = []
    field = base[:-3] if base.endswith('_id') else base
    for o in objects(ep):
        v = o.get(field)
        if isinstance(v, dict):
            v = v.get('id') if base.endswith('_id') or base == 'id' else \
                (v.get('slug') or v.get('value') or v.get('name') or v.get('id'))
        elif isinstance(v, list):
            v = next((x.get('id') if isinstance(x, dict) else x for x in v), None)
        if v is None or v == '' or isinstance(v, (dict, list)):
            continue
        if isinstance(v, bool):
            v = 'true' if v else 'false'
        if v not in out:
            out.append(v)
        if len(out) >= 3:
            break
    return out


def alternatives(ep, qs):
    """Other values for a one-key query: the other boolean, or values from the endpoint's objects."""
    pairs = split_query(qs)
    if len(pairs) != 1:
        return []
    key, val = pairs[0]
    base, _, lookup = key.partition('__')
    if val in ('true', 'false'):
        return [f'{key}={"false" if val == "true" else "true"}']
    if lookup in ('empty', 'isnull'):
        return [f'{key}=false' if val != 'false' else f'{key}=true']
    if lookup in ('gt', 'gte'):
        return [f'{key}=0', f'{key}=-999999']
    if lookup in ('lt', 'lte'):
        return [f'{key}=999999']
    out = [f'{key}={enc(v)}' for v in data_values(ep, base) if enc(v) != val][:2]
    # Another member of the filter's own choice set (a lone object has one value: the others
    # narrow).
    schema = NEW.get(ep, {}).get(key) or {}
    out += [f'{key}={enc(v)}' for v in (schema.get('enum') or []) if enc(v) != val and v != 'null'][:2]
    return out


def error_text(body):
    if isinstance(body, dict):
        if 'exception' in body or 'error' in body:
            # A database error spans lines (the statement, a caret, a hint): the first two stay,
            # on one line, as the earlier sweeps have them (one TSV row per probe).
            error = ' '.join(str(body.get('error', '')).splitlines()[:2])
            return f"{body.get('exception', '')}: {error}".strip(': ')
        parts = []
        for k, v in body.items():
            msg = v[0] if isinstance(v, list) and v else v
            parts.append(f'{k}: {msg}')
        return '; '.join(parts)
    text = re.sub(r'<[^>]+>', ' ', str(body))
    return ' '.join(text.split())[:300]


NEGATED = {'n': '', 'nic': 'ic', 'nie': 'ie', 'niew': 'iew', 'nisw': 'isw'}
# Probe kinds meant to narrow (an alternative value may decide them), as the earlier sweeps.
NARROW = {'param', 'param-lookup', 'reprobe', 'empty-lookup'}


class Undecidable(Exception):
    """A probe the data cannot decide (a 200 with nothing to narrow): no row is written."""


def negation(ep, qs, c, unf):
    """For `k__n=v` (and the other negated lookups): (verdict, note) measured against the
    positive twin `k=v`, or None when the query is not one negation."""
    pairs = split_query(qs)
    if len(pairs) != 1:
        return None
    key, val = pairs[0]
    base, _, lookup = key.partition('__')
    if lookup not in NEGATED:
        return None
    twin = f'{base}__{NEGATED[lookup]}' if NEGATED[lookup] else base
    p = count(ep, f'{twin}={val}')
    if p is None:
        return None
    if c == p and c != unf - p:
        return 'honoured (a different meaning than written)', f'probe kind {{kind}}; applied as the positive filter: {qs} gave {c} of {unf} ({twin}={val}: {p})'
    if p == 0 or p == unf:
        # The value is on no object (or on all): a negation that narrows needs a value some
        # objects have and others lack; the endpoint's own values stand in.
        for v in data_values(ep, base):
            alt = f'{key}={enc(v)}'
            if alt == qs:
                continue
            p2, c2 = count(ep, f'{twin}={enc(v)}'), count(ep, alt)
            if p2 is None or c2 is None or p2 in (0, unf):
                continue
            if c2 == unf - p2:
                return 'honoured', f'probe kind {{kind}}; primary value matched every object; decided by the alternative value ({alt}: {c2}, {twin}={enc(v)}: {p2})'
            if c2 == p2:
                return 'honoured (a different meaning than written)', f'probe kind {{kind}}; applied as the positive filter: {alt} gave {c2} of {unf} ({twin}={enc(v)}: {p2})'
        raise Undecidable(f'{ep} {qs}: {twin}={val} matches {p} of {unf} and no object value narrows')
    if c == unf - p:
        return 'honoured', f'probe kind {{kind}}; the complement of {twin}={val} ({p})'
    return None


def judge(ep, qs, kind):
    """One row: (status, filtered, unfiltered, verdict, note)."""
    unf = unfiltered(ep)
    pairs = split_query(qs)
    keys = [k for k, _ in pairs]
    note = f'probe kind {kind};'
    # Lists: each value alone, then both.
    if len(pairs) == 2 and keys[0] == keys[1]:
        a, b = count(ep, '='.join(pairs[0])), count(ep, '='.join(pairs[1]))
        st, d = rest(ep, qs)
        if st == 200 and a is not None and b is not None:
            both = d['count']
            if a == b == both == 0:
                # Neither value names an object here (timestamps of another lab's tokens).
                raise Undecidable(f'{ep} {qs}: each value and both match no object')
            if a == b == both == unf:
                # A filter the release lacks is ignored; one it has cannot be told apart here.
                if keys[0] not in NEW.get(ep, {}):
                    return st, both, unf, 'silently-ignored', f'{note} each alone: {a}, {b}; both: {both} (every object; no such filter)'
                raise Undecidable(f'{ep} {qs}: each value alone matches every object')
            if both == unf and a != unf and b != unf and both != a + b:
                return st, both, unf, 'silently-ignored', f'{note} each alone: {a}, {b}; both: {both}'
            if both == unf and both == a + b:
                return st, both, unf, 'honoured', f'{note} each alone: {a}, {b}; both: {both} (union: the two values cover every object)'
            if both >= a + b or (both > max(a, b)):
                return st, both, unf, 'honoured', f'{note} each alone: {a}, {b}; both: {both} (union)'
            if a == b == both and a > 0:
                return st, both, unf, 'partial: only ONE value used', f'{note} each alone: {a}, {b}; both: {both} (two values: the union would be more)'
            which = 'last' if both == b else 'first' if both == a else None
            if which:
                return st, both, unf, 'partial: only ONE value used', f'{note} each alone: {a}, {b}; both: {both} ({which} value used)'
            return st, both, unf, 'honoured', f'{note} each alone: {a}, {b}; both: {both}'
    st, d = rest(ep, qs)
    if st == 200 and isinstance(d, dict) and 'count' in d:
        c = d['count']
        if kind == 'bool-form' and len(pairs) == 1:
            t, f = count(ep, f'{keys[0]}=true'), count(ep, f'{keys[0]}=false')
            extra = f' true={t} false={f} {pairs[0][1]}={c}'
            # What the form means when read (`0`, `no`, `off` are false): ignored when every
            # object came back where that meaning selects fewer.
            meant = f if pairs[0][1].lower() in ('0', 'no', 'off', 'f', 'false', 'n') else t
            if c == unf and (meant != unf if meant is not None else t != unf):
                return st, c, unf, 'silently-ignored', note + extra
            return st, c, unf, 'honoured', note + extra
        if c is None:
            # `start` (cursor pagination, NetBox 4.6+) answers `"count": null`: the page decides
            # (written `None`, as the 4.6.8 and 4.7.3 sweeps have it).
            fewer = len(d.get('results') or []) < min(1, unf)
            return st, c, unf, 'honoured' if fewer else 'silently-ignored', note
        neg = negation(ep, qs, c, unf)
        if neg is not None:
            return st, c, unf, neg[0], neg[1].replace('{kind}', kind)
        if c < unf:
            return st, c, unf, 'honoured', note
        # Another value decides only a probe meant to narrow; a wrong form (`k=`) is judged by
        # its own answer.
        for alt in alternatives(ep, qs) if kind in NARROW else ():
            s2, d2 = rest(ep, alt)
            if s2 == 200 and isinstance(d2, dict) and d2.get('count', unf) < unf:
                return st, c, unf, 'honoured', f'{note} primary value matched every object; decided by the alternative value'
        tried = ' the value and its alternative(s) both return every object' if alternatives(ep, qs) else ''
        return st, c, unf, 'silently-ignored', note + tried
    if st == 400:
        msg = error_text(d)
        made_up = any(v in ('999999', 'zz-no-such') or v.startswith('999999') for _, v in pairs)
        # A relation filter (no choice set in the OpenAPI document: `enum` or, repeated,
        # `x-spec-enum-id`) refusing a value names no object: the data decides, not the form.
        def choice_set(k):
            sch = NEW.get(ep, {}).get(k) or NEW.get(ep, {}).get(k.split('__')[0]) or {}
            return 'enum' in sch or 'x-spec-enum-id' in sch
        relation = not any(choice_set(k) for k in keys)
        if 'Select a valid choice' in msg and relation and not made_up and kind in NARROW | {'list-array', 'list-scalar'}:
            return st, '', unf, "400 data (the value names no existing object: out of reach without the instance's data)", \
                f'{note} value names no existing object (data-dependent 400) | {msg}'

        # A made-up value on a probe meant to narrow: the value names nothing (the previous
        # sweeps' `400 data`, also on a fixed choice set's lookups, which derive-expected.py
        # tells apart); on the wrong-form probes the refusal is the answer.
        if 'Select a valid choice' in msg and made_up and kind in ('param', 'param-lookup', 'reprobe'):
            # A choice set's refusal is the form's answer (derive-expected.py tells it apart):
            # no other value stands in.
            for alt in alternatives(ep, qs) if relation else ():
                s2, d2 = rest(ep, alt)
                if s2 == 200 and isinstance(d2, dict) and d2.get('count', unf) < unf:
                    return 200, d2['count'], unf, 'honoured', f'{note} primary value 400 (no such object); decided by the alternative value'
            return st, '', unf, "400 data (the value names no existing object: out of reach without the instance's data)", \
                f'{note} value names no existing object (data-dependent 400) | {msg}'
        return st, '', unf, '400 error', f'{note} {msg}'
    if st >= 500:
        return st, '', unf, 'error 500 (a NetBox fault for this filter)', f'{note} {error_text(d)}'
    return st, '', unf, f'HTTP {st}', f'{note} {error_text(d)}'


def load_openapi(path):
    doc = json.load(gzip.open(path))
    eps = {}
    for p, ops in doc.get('paths', {}).items():
        get_op = ops.get('get') if isinstance(ops, dict) else None
        m = re.fullmatch(r'/api/([a-z0-9_-]+(?:/[a-z0-9_-]+)*)/', p)
        if not (m and get_op and str(get_op.get('operationId', '')).endswith('_list')):
            continue
        params = {}
        for prm in get_op.get('parameters', []):
            if prm.get('in') == 'query':
                s = prm.get('schema', {})
                params[prm['name']] = s.get('items', s)
        eps[m.group(1)] = params
    return eps


NEW, OLD = load_openapi(NEW_OA), load_openapi(OLD_OA)
SKIP = {'limit', 'offset', 'ordering', 'q', 'brief', 'fields', 'omit', 'exclude', 'format', 'start'}


def value_for(ep, name, schema):
    """A value meant to narrow, and the kind (`param` / `param-lookup`)."""
    base, _, lookup = name.partition('__')
    kind = 'param-lookup' if lookup else 'param'
    t = schema.get('type', 'string')
    if lookup == 'empty':
        return 'true', kind
    if 'enum' in schema and schema['enum']:
        return enc(schema['enum'][0]), kind
    if t == 'boolean':
        return 'true', kind
    if lookup in ('lt', 'lte'):
        return '-999999', kind
    if t in ('integer', 'number'):
        if lookup == 'n' or base == 'id' or base.endswith('_id'):
            vals = data_values(ep, base)
            return (enc(vals[0]) if vals else '999999'), kind
        return '999999', kind
    if lookup in ('n', 'nic', 'nie', 'nisw', 'niew', ''):
        vals = data_values(ep, base)
        if vals:
            return enc(vals[0]), kind
    return 'zz-no-such', kind


def main():
    out = open(OUT, 'w', encoding='utf-8')
    out.write('endpoint\tquery_string_or_graphql\thttp_status\tcount_filtered\tcount_unfiltered\tverdict\tnote\n')
    n = 0
    started = time.time()
    skipped = set()

    seen = set()
    undecided = []

    def row(ep, qs, kind):
        nonlocal n
        if (ep, qs) in seen:
            return
        seen.add((ep, qs))
        unf = unfiltered(ep)
        if unf is None:
            skipped.add(ep)
            return
        if not unf:
            # No objects: only a refusal or a fault says anything.
            st, d = rest(ep, qs)
            if st == 200:
                skipped.add(ep)
                return
        try:
            st, c, u, verdict, note = judge(ep, qs, kind)
        except Undecidable as e:
            undecided.append(str(e))
            return
        out.write(f'{ep}\t{qs}\t{st}\t{c}\t{u}\t{verdict}\t{note}\n')
        n += 1
        if n % 200 == 0:
            out.flush()
            print(f'{n} rows, {len(_cache)} requests, {time.time() - started:.0f} s', file=sys.stderr)

    # 1. the previous sweeps again (the previous release first)
    for i, path in enumerate(p for p in OLD_SWEEPS.split(':') if p):
        for line in open(path, encoding='utf-8').read().splitlines()[1:]:
            c = line.split('\t')
            if len(c) < 7 or c[0] not in NEW:
                continue
            m = re.search(r'probe kind ([a-z-]+)', c[6])
            kind = m.group(1) if m else 'reprobe'
            if i > 0 and kind in ('param', 'param-lookup') and \
                    any(k not in NEW[c[0]] for k, _ in split_query(c[1])):
                continue
            row(c[0], c[1], kind)
    # 2. the rule tables' probes
    if RULE_PROBES:
        for line in open(RULE_PROBES, encoding='utf-8').read().splitlines()[1:]:
            c = line.split('\t')
            if len(c) >= 3 and c[0] in NEW:
                row(c[0], c[1], c[2])
    # 3. parameters the new release added; 4. wrong forms on new endpoints
    for ep in sorted(NEW):
        old = OLD.get(ep)
        for name, schema in sorted(NEW[ep].items()):
            if name in SKIP or (old is not None and name in old):
                continue
            val, kind = value_for(ep, name, schema)
            row(ep, f'{name}={val}', kind)
        if old is None:
            row(ep, 'nmae=zz-no-such', 'misspelled')
            row(ep, 'id__in=1,2', 'in-lookup')
            row(ep, 'id=1,2', 'comma')
    out.close()
    print(f'{n} rows, {len(_cache)} requests, {time.time() - started:.0f} s; endpoints without objects: {len(skipped)}; '
          f'undecidable negations (no object value narrows): {len(undecided)}', file=sys.stderr)
    for u in undecided:
        print(f'  undecidable: {u}', file=sys.stderr)


main()
