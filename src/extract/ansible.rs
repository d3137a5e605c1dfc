//! The Ansible forms of the `netbox.netbox` collection (source: netbox-community/ansible_modules
//! 3.22.0, `plugins/lookup/nb_lookup.py` and `plugins/inventory/nb_inventory.py`).
//!
//! The spellings (call names, plugin names, keywords, inventory keys and targets) are rows of
//! the call-form table (`forms::NB_LOOKUP`, the `nb_inventory` rows); this module reads them.
//!
//! **Lookup.** `query('netbox.netbox.nb_lookup', 'devices', api_filter='role=leaf site=dc1')`,
//! also `lookup(...)` / `q(...)` and the short name `nb_lookup`, in Jinja inside YAML values
//! and in `.j2` templates:
//! - endpoint: every positional argument after the plugin name is a *term* in the collection's
//!   own names (`devices`, `ip-addresses`, `virtualization-interfaces`), mapped to its REST
//!   endpoint by [`TERMS`] (the plugin's `get_endpoint` table); with `plugin='bgp'` a term is
//!   the plugin endpoint `/api/plugins/bgp/<term>/`;
//! - filters: the `api_filter=` keyword, a string of space-separated `k=v` words
//!   (`split_args` + `parse_kv`: a value may be quoted, `name="core 1"`);
//! - values: every value a string; a repeated key becomes a list that pynetbox sends as repeated
//!   keys ([`Syntax::ApiFilter`]). A string joined with a variable (`'name=' ~ host`) has an
//!   unknown last value.
//!
//! **Inventory.** A YAML inventory source with `plugin: netbox.netbox.nb_inventory`:
//! `query_filters` (a list of one-key mappings) go to both `/api/dcim/devices/` and
//! `/api/virtualization/virtual-machines/`; `device_query_filters` / `vm_query_filters` to one.
//! The plugin url-encodes each `key: value` (repeated keys for repeated entries) after dropping,
//! with a warning, every key that is not a query parameter of that endpoint in its OpenAPI
//! document (`validate_query_parameter`; `cf_` keys pass). Values are sent as Python's `str()`
//! of the YAML value: `true` → `True`, an empty value → `None`; a list is sent as its Python
//! text and is not judged.

use std::ops::Range;

use super::ansible_vars::{jinja_name, Bindings};
use super::forms::{self, Callee, FiltersAt, TargetAt};
use super::lit::{Lit, LitKind};
pub use super::terms::{term_of, term_path, TERMS};
use super::{is_placeholder, CallForm, FilterEntry, OffsetMap, RestCall, Site, Syntax, Value};

/// One argument of a Jinja call: its keyword (if any) and its expression's input range.
#[derive(Debug)]
struct Arg {
    name: Option<String>,
    expr: Range<usize>,
}

/// The `nb_lookup` calls in `text` (raw host text: a YAML file, a `.j2` template, a Markdown
/// fence); ranges mapped to the host through `map`.
pub fn lookups(text: &str, map: &OffsetMap) -> Vec<Site> {
    lookups_bound(text, map, &Bindings::default())
}

/// [`lookups`] with the variables of the YAML file: an `api_filter=` that is one variable
/// bound in the file (`api_filter=device_filter`, `vars: {device_filter: "role=leaf"}`) is
/// read from the variable's value, and its findings land there.
pub(crate) fn lookups_bound(text: &str, map: &OffsetMap, vars: &Bindings) -> Vec<Site> {
    let mut out = Vec::new();
    // The spellings are the call-form table's row.
    let Callee::Lookup {
        calls: names,
        plugins,
    } = forms::NB_LOOKUP.callee
    else {
        return out;
    };
    // Every plugin name ends with the shortest one (`nb_lookup`): find that, then the literal.
    let Some(short) = plugins.iter().min_by_key(|p| p.len()) else {
        return out;
    };
    if !text.contains(short) {
        return out;
    }
    let b = text.as_bytes();
    for (at, _) in text.match_indices(short) {
        // The plugin name is a string literal: `'netbox.netbox.nb_lookup'` or `'nb_lookup'`.
        let end = at + short.len();
        let Some(&q) = b.get(end) else {
            continue;
        };
        if q != b'\'' && q != b'"' {
            continue;
        }
        let lit_start = plugins.iter().find_map(|p| {
            let open = end.checked_sub(p.len())?;
            (text[..end].ends_with(p) && open > 0 && b[open - 1] == q).then(|| open - 1)
        });
        let Some(lit_start) = lit_start else {
            continue;
        };
        let before = text[..lit_start].trim_end();
        let Some(call_head) = before.strip_suffix('(') else {
            continue;
        };
        // The name is ASCII; counting its bytes back never lands inside a multi-byte char.
        let name_len = call_head
            .bytes()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let name_start = call_head.len() - name_len;
        if !names.contains(&&call_head[name_start..]) {
            continue;
        }
        let paren = before.len() - 1;
        let Some((args, close)) = args(text, paren + 1) else {
            continue;
        };
        out.extend(calls(text, name_start..close, &args, map, vars));
    }
    out
}

/// The REST calls of one lookup: one per term.
fn calls(
    text: &str,
    call: Range<usize>,
    args: &[Arg],
    map: &OffsetMap,
    vars: &Bindings,
) -> Vec<Site> {
    let positional: Vec<&Arg> = args.iter().filter(|a| a.name.is_none()).collect();
    let keyword = |n: &str| args.iter().find(|a| a.name.as_deref() == Some(n));
    let (plugin_kw, filters_kw) = match (forms::NB_LOOKUP.target, forms::NB_LOOKUP.filters) {
        (TargetAt::Terms { plugin_kw }, FiltersAt::Words(k)) => (plugin_kw, k),
        _ => return Vec::new(),
    };
    let plugin = keyword(plugin_kw).and_then(|a| string(text, &a.expr).map(|(s, _, _)| s));
    let (filters, filters_range) = match keyword(filters_kw) {
        Some(a) => match jinja_name(&text[a.expr.clone()]).and_then(|n| vars.resolve(n)) {
            Some(bound) => bound_filter(bound),
            None => api_filter(text, &a.expr, map),
        },
        None => (Vec::new(), None),
    };
    let mut out = Vec::new();
    for term in positional.iter().skip(1) {
        let Some((t, content, whole)) = string(text, &term.expr) else {
            continue;
        };
        if !whole {
            continue;
        }
        let path = match &plugin {
            Some(p) => Some(format!(
                "/api/plugins/{}/{}/",
                p.replace('_', "-"),
                t.replace('_', "-")
            )),
            None => term_path(&t),
        };
        let Some(path) = path else {
            continue;
        };
        out.push(Site::Rest(RestCall {
            form: CallForm::AnsibleLookup,
            syntax: Syntax::ApiFilter,
            target: Some((path.into(), map.range_to_host(content))),
            call_range: map.range_to_host(call.clone()),
            filters_range: filters_range.clone(),
            filters: filters.clone(),
            args: Vec::new(),
            declared: false,
        }));
    }
    out
}

/// The arguments of the call whose `(` ends right before `from`, and the end of the call (after
/// its `)`). Strings, brackets and Jinja's `~` / `+` joins are kept inside one argument.
fn args(text: &str, from: usize) -> Option<(Vec<Arg>, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = from;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => {
                i = skip_string(b, i, q)?;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth > 0 => depth -= 1,
            b')' | b',' if depth == 0 => {
                if !text[start..i].trim().is_empty() {
                    out.push(arg(text, start..i));
                }
                if b[i] == b')' {
                    return Some((out, i + 1));
                }
                start = i + 1;
            }
            b']' | b'}' => return None,
            _ => {}
        }
        i += 1;
        if i - from > 8192 {
            return None;
        }
    }
    None
}

/// Past the string literal opening at `at` with quote `q` (backslash escapes skipped).
fn skip_string(b: &[u8], at: usize, q: u8) -> Option<usize> {
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == q => return Some(i + 1),
            b'\n' if b.get(i + 1) == Some(&b'\n') => return None,
            _ => i += 1,
        }
    }
    None
}

/// One argument: `name=expr` or `expr`, trimmed.
fn arg(text: &str, r: Range<usize>) -> Arg {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let t = s.trim();
    let start = r.start + lead;
    let ident = t
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    let rest = &t[ident..];
    let after = rest.trim_start();
    if ident > 0 && after.starts_with('=') && !after.starts_with("==") {
        let eq = start + ident + (rest.len() - after.len());
        let expr_text = &text[eq + 1..r.end];
        let e_lead = expr_text.len() - expr_text.trim_start().len();
        let e_start = eq + 1 + e_lead;
        return Arg {
            name: Some(t[..ident].to_string()),
            expr: e_start..e_start + expr_text.trim().len(),
        };
    }
    Arg {
        name: None,
        expr: start..start + t.len(),
    }
}

/// The first string literal of expression `e`: its text, its content range, and whether it is
/// the whole expression (`false` for `'name=' ~ host`). `None` when `e` does not start with a
/// string or the string holds escapes.
fn string(text: &str, e: &Range<usize>) -> Option<(String, Range<usize>, bool)> {
    let b = text.as_bytes();
    let q = *b.get(e.start)?;
    if q != b'\'' && q != b'"' {
        return None;
    }
    let end = skip_string(b, e.start, q)?;
    let content = e.start + 1..end - 1;
    let s = &text[content.clone()];
    if s.contains('\\') {
        return None;
    }
    Some((s.to_string(), content, end >= e.end))
}

/// [`string`], also for a literal holding escapes (`\"` inside a YAML double-quoted value):
/// then its text is the raw text and the last item says so.
fn string_raw(text: &str, e: &Range<usize>) -> Option<(String, Range<usize>, bool, bool)> {
    let b = text.as_bytes();
    let q = *b.get(e.start)?;
    if q != b'\'' && q != b'"' {
        return None;
    }
    let end = skip_string(b, e.start, q)?;
    let content = e.start + 1..end - 1;
    let s = &text[content.clone()];
    Some((s.to_string(), content, end >= e.end, s.contains('\\')))
}

/// The filters of an `api_filter` expression: the words of its leading string literal
/// (Ansible's `split_args`: blanks separate words except inside quotes and `{{ }}`; `parse_kv`:
/// `k=v`, quotes around the value removed). When the string is joined with more (`~`, `+`),
/// its last value is not known.
fn api_filter(
    text: &str,
    e: &Range<usize>,
    map: &OffsetMap,
) -> (Vec<FilterEntry>, Option<Range<usize>>) {
    let Some((s, content, whole, escaped)) = string_raw(text, e) else {
        return (Vec::new(), None);
    };
    let mut out = words(&s, content.start, escaped, map);
    if !whole {
        if let Some(last) = out.last_mut() {
            if !s.ends_with(char::is_whitespace) {
                last.value = match joined_by(text, content.end + 1..e.end) {
                    // `' name=' ~ ...` style: one `name=` per value, as NetBox wants.
                    Some((sep, _)) if sep.trim_start() == format!("{}=", last.key) => Value::Expr,
                    Some((separator, r)) => Value::Joined(Box::new(super::Joined {
                        separator,
                        separator_range: map.range_to_host(r),
                    })),
                    None => Value::Expr,
                };
            }
        }
    }
    (out, Some(map.range_to_host(content)))
}

/// The `k=v` words of an `api_filter` string `s` whose text starts at `base` (before `map`):
/// Ansible's `split_args` (blanks separate words except inside quotes and `{{ }}`) and
/// `parse_kv` (`k=v`, quotes around the value removed). `escaped`: the raw text holds escapes,
/// so values are not read (keys are).
fn words(s: &str, base: usize, escaped: bool, map: &OffsetMap) -> Vec<FilterEntry> {
    let mut out: Vec<FilterEntry> = Vec::new();
    let sb = s.as_bytes();
    let mut i = 0;
    while i < sb.len() {
        while i < sb.len() && sb[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= sb.len() {
            break;
        }
        let w_start = i;
        while i < sb.len() && !sb[i].is_ascii_whitespace() {
            match sb[i] {
                b'\\' => i += 1 + s[i + 1..].chars().next().map_or(0, char::len_utf8),
                q @ (b'\'' | b'"') => {
                    i = s[i + 1..].find(q as char).map_or(sb.len(), |c| i + 2 + c);
                }
                b'{' if sb.get(i + 1) == Some(&b'{') => {
                    i = s[i..].find("}}").map_or(sb.len(), |c| i + c + 2);
                }
                _ => i += 1,
            }
        }
        let word = &s[w_start..i.min(sb.len())];
        let Some(eq) = word.find('=') else {
            // A word without `=` (also one being typed): Ansible sends it as `_raw_params`, an
            // unknown filter; it is read as a name with an unknown value.
            if !word.is_empty() && word.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
                let end = base + w_start + word.len();
                out.push(FilterEntry {
                    key: word.into(),
                    key_range: map.range_to_host(base + w_start..end),
                    value: Value::Expr,
                    value_range: map.range_to_host(end..end),
                });
            }
            continue;
        };
        let key = &word[..eq];
        if key.is_empty() || !key.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            continue;
        }
        let mut v = w_start + eq + 1..w_start + word.len();
        let raw = &s[v.clone()];
        let quoted = raw.len() >= 2
            && (raw.starts_with('"') && raw.ends_with('"')
                || raw.starts_with('\'') && raw.ends_with('\''));
        let inner = if quoted {
            v = v.start + 1..v.end - 1;
            &raw[1..raw.len() - 1]
        } else {
            raw
        };
        // With escapes the raw text is not what Jinja reads: keys are, values are not judged.
        let value = if escaped || is_placeholder(inner, key) || inner.contains("{{") {
            Value::Expr
        } else {
            Value::Str(inner.into())
        };
        out.push(FilterEntry {
            key: key.into(),
            key_range: map.range_to_host(base + w_start..base + w_start + eq),
            value,
            value_range: map.range_to_host(base + v.start..base + v.end),
        });
    }
    out
}

/// The filters of an `api_filter` held in a variable: the words of its string value (its
/// exact text, so every range lands on the variable's value); none for another value.
fn bound_filter(lit: &Lit) -> (Vec<FilterEntry>, Option<Range<usize>>) {
    match (lit.exact_text(), &lit.kind) {
        (Some((s, map)), LitKind::Str { content, .. }) => {
            (words(s, 0, false, map), Some(content.clone()))
        }
        _ => (Vec::new(), None),
    }
}

/// The separator of a Jinja `join` that the rest of an `api_filter` expression applies right
/// after the string (`+ names | join(',')`, `~ (names | join(', '))`), with the range of its
/// text; `None` for any other continuation (`~ host`, `+ names | first`).
fn joined_by(text: &str, rest: Range<usize>) -> Option<(String, Range<usize>)> {
    let t = text.get(rest.clone())?;
    let trimmed = t.trim_start();
    let body = trimmed.strip_prefix(['+', '~'])?.trim_start();
    let body = body.strip_prefix('(').unwrap_or(body);
    // One operand (a name, an attribute, an index), then `| join(`.
    let operand_end = body
        .find(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '\'' | '"'))
        })
        .unwrap_or(body.len());
    let after = body[operand_end..]
        .trim_start()
        .strip_prefix('|')?
        .trim_start();
    let args = after
        .strip_prefix("join")?
        .trim_start()
        .strip_prefix('(')?
        .trim_start();
    let q = args.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let close = args[1..].find(q)?;
    let sep = &args[1..1 + close];
    let start = rest.start + (t.len() - args.len()) + 1;
    Some((sep.to_string(), start..start + sep.len()))
}

/// The inventory plugin names `plugin:` may hold (the call-form table's rows).
fn is_inventory_plugin(name: &str) -> bool {
    forms::inventory_rows().any(|(names, ..)| names.contains(&name.trim()))
}

/// The `nb_inventory` filter lists of a YAML document tree: one call per list present.
pub(crate) fn inventory(root: &Lit, out: &mut Vec<Site>) {
    let Some(doc) = find_inventory(root, 0) else {
        return;
    };
    for (_, key, form, target) in forms::inventory_rows() {
        let Some(pair) = doc.get(key) else {
            continue;
        };
        let LitKind::Seq(items) = &pair.value.kind else {
            continue;
        };
        let mut filters = Vec::new();
        for item in items {
            let Some([p]) = item.pairs() else {
                continue;
            };
            filters.push(FilterEntry {
                key: p.key.as_str().into(),
                key_range: p.key_range.clone(),
                value: sent(&p.value.value, &p.key),
                value_range: p.value.range.clone(),
            });
        }
        out.push(Site::Rest(RestCall {
            form,
            syntax: Syntax::Yaml,
            target: Some((target.into(), pair.key_range.clone())),
            call_range: pair.key_range.start..pair.value.range.end,
            filters_range: Some(pair.value.range.clone()),
            filters,
            args: Vec::new(),
            declared: false,
        }));
    }
}

/// The value as the plugin sends it (`str()` of the YAML value), for the checks.
fn sent(v: &Value, key: &str) -> Value {
    match v {
        Value::Str(s) if is_placeholder(s, key) || s.contains("{{") => Value::Expr,
        Value::Null => Value::Str("None".into()),
        Value::Bool(b) => Value::Str(if *b { "True" } else { "False" }.into()),
        Value::List(_) | Value::Map => Value::Expr,
        v => v.clone(),
    }
}

/// The mapping with `plugin: netbox.netbox.nb_inventory` at the top of a document (the root is
/// a stream of documents).
fn find_inventory(l: &Lit, depth: usize) -> Option<&Lit> {
    if depth > 3 {
        return None;
    }
    match &l.kind {
        LitKind::Map(_) => l
            .get("plugin")
            .and_then(|p| p.value.as_str())
            .filter(|(s, _)| is_inventory_plugin(s))
            .map(|_| l),
        LitKind::Seq(items) => items.iter().find_map(|i| find_inventory(i, depth + 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest(t: &str) -> Vec<RestCall> {
        lookups(t, &OffsetMap::identity(0, t.len()))
            .into_iter()
            .filter_map(|s| match s {
                Site::Rest(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// Found by tests/fuzz.rs: a multi-byte char right before the lookup's name.
    #[test]
    fn non_ascii_before_the_call_name_is_no_panic() {
        for t in [
            "\u{feff}query('nb_lookup', 'devices', api_filter='role=leaf')",
            "\u{201c}lookup('netbox.netbox.nb_lookup', 'devices', api_filter='x=1')",
            "é(q('nb_lookup', 'devices'))",
        ] {
            let calls = rest(t);
            assert!(calls.len() <= 1, "{t}");
        }
        assert_eq!(
            rest("\u{feff}query('nb_lookup', 'devices', api_filter='role=leaf')").len(),
            1
        );
    }

    #[test]
    fn query_with_api_filter() {
        let t = "loop: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_endpoint=url, api_filter='role=leaf name=\\\"a b\\\"') }}\"";
        // Escaped quotes: the value is not read, the keys are.
        let c = &rest(t)[0];
        assert_eq!(c.target.as_ref().unwrap().0, "/api/dcim/devices/");
        assert_eq!(&t[c.target.as_ref().unwrap().1.clone()], "devices");
        let t = "{{ lookup('netbox.netbox.nb_lookup', 'ip-addresses', api_filter='tag=a tag=b name=\"core 1\" site=' ~ site) }}";
        let c = &rest(t)[0];
        assert_eq!(c.target.as_ref().unwrap().0, "/api/ipam/ip-addresses/");
        let keys: Vec<&str> = c.filters.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["tag", "tag", "name", "site"]);
        assert_eq!(c.filters[2].value, Value::Str("core 1".into()));
        assert_eq!(&t[c.filters[2].value_range.clone()], "core 1");
        assert_eq!(c.filters[3].value, Value::Expr);
        assert_eq!(&t[c.filters[1].key_range.clone()], "tag");
    }

    #[test]
    fn terms_plugins_and_other_calls() {
        let t =
            "q(\"nb_lookup\", \"virtualization-interfaces\", \"sites\", api_filter=\"id__n=1\")";
        let cs = rest(t);
        assert_eq!(cs.len(), 2);
        assert_eq!(
            cs[0].target.as_ref().unwrap().0,
            "/api/virtualization/interfaces/"
        );
        let t = "query('netbox.netbox.nb_lookup', 'bgp_session', plugin='netbox_bgp', api_filter='status=active')";
        assert_eq!(
            rest(t)[0].target.as_ref().unwrap().0,
            "/api/plugins/netbox-bgp/bgp-session/"
        );
        assert!(rest("query('nb_lookup', 'no-such-term', api_filter='x=1')").is_empty());
        assert!(rest("foo('nb_lookup', 'devices', api_filter='x=1')").is_empty());
        assert!(rest("query('nb_lookup', 'devices', api_filter='x=1'").is_empty());
    }
}
