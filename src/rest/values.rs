//! Value rules the schema cannot say (hand rules, run before the choice check). Each is
//! verified in `../shared/netbox/*/ground-truth.tsv` or netbox-facts.md §2.B.

use super::endpoint::View;
use super::lookups::Key;
use super::nullable::{self, Refusal};
use super::text::{comma_parts, slugify};
use super::{choices, faults, finding, finding_sev, render, Ctx};
use crate::extract::{CallForm, FilterEntry, Syntax, Value};
use crate::finding::{Finding, Severity};
use crate::index::{Parameter, ValueKind};
use std::collections::BTreeMap;
use std::ops::Range;

/// `dropped-value`: a value that never reaches NetBox as a filter. Python `None` / JSON null
/// in an MCP tool call (requests drops it, httpx sends `key=`; both unfiltered, ADR-0045: 141 of
/// 141 devices) or in `requests.get(params=...)`, an empty list (nothing sent), an empty string
/// (`key=` is no filter). pynetbox sends `None` as `null`, so `None` is fine there. Returns
/// true when the value was dropped.
/// `"null"` for the value at `r`; an empty YAML value (`tenant:`, `- `) gets a space before it
/// so the entry stays a mapping entry (`tenant: "null"`, not the plain scalar `tenant:"null"`).
fn null_value(ctx: &Ctx, r: &std::ops::Range<usize>) -> String {
    let s = render::null_string(ctx.syntax());
    if r.is_empty() && ctx.syntax() == crate::extract::Syntax::Yaml {
        format!(" {s}")
    } else {
        s
    }
}

pub(crate) fn dropped(
    ctx: &Ctx,
    view: Option<&View>,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) -> bool {
    let key = &entry.key;
    let r = entry.value_range.clone();
    let msg = match &entry.value {
        Value::Null if key == "q" && ctx.call.form != CallForm::Pynetbox => format!(
            "`q: {}` never reaches NetBox ({}), so the search is dropped and the call returns every object. Give the search text or leave `q` out.",
            render::describe(&Value::Null, ctx.syntax()),
            if ctx.is_mcp() {
                "the MCP client drops it or sends an empty `q=`"
            } else {
                "requests drops it"
            }
        ),
        Value::Null if ctx.call.form != CallForm::Pynetbox => {
            let base = Key::parse(key).base().to_string();
            // Certain where `null` is the null selector: relations, ids, char filters
            // (`name=null` selects unnamed objects); not on choice filters.
            let certain = base.ends_with("_id")
                || view.is_some_and(|v| {
                    v.null_key(&base).is_some()
                        || v.param(&base).is_some_and(|p| {
                            p.choices.is_none() && v.has(&format!("{base}__empty"))
                        })
                });
            let shown = render::describe(&Value::Null, ctx.syntax());
            let how = if ctx.is_mcp() {
                format!("the MCP client drops it or sends an empty `{key}=`")
            } else {
                "requests drops it".to_string()
            };
            let refused =
                view.and_then(|v| v.param(key).and_then(|p| nullable::refusal(v, key, p)));
            if refused.is_some() {
                out.push(finding(
                    r,
                    "dropped-value",
                    format!(
                        "`{key}: {shown}` never reaches NetBox ({how}), so the call is unfiltered. `{key}` has no null selector either (`null` is an HTTP 400): give a value or drop the filter."
                    ),
                ));
                return true;
            }
            let f = finding(
                r.clone(),
                "dropped-value",
                format!(
                    "`{key}: {shown}` never reaches NetBox ({how}), so the call is unfiltered. To select objects whose value is empty, send the string \"null\"."
                ),
            )
            .with_fix("Send the null selector \"null\"", r.clone(), null_value(ctx, &r), certain);
            out.push(f);
            return true;
        }
        Value::List(items) if items.is_empty() => format!(
            "An empty list for `{key}` sends nothing, so NetBox returns every object. Give at least one value or drop the filter."
        ),
        Value::Str(s) if s.is_empty() => empty_value(view, key),
        _ => return false,
    };
    out.push(finding(r, "dropped-value", msg));
    true
}

/// What NetBox does with `key=` (an empty string), per kind of filter (live sweeps 4.3.3 and
/// 4.6.8, `empty-value` probes): a relation filter answers HTTP 400 ("“” is not a valid
/// value", `cable_id=` on circuit terminations), a declared choice filter (schema: an array of
/// choices) HTTP 400 ("Select a valid choice", `mode=` on VM interfaces), a text filter or a
/// single-valued model choice filter ignores it (`description=`, `cable_end=`).
fn empty_value(view: Option<&View>, key: &str) -> String {
    let base = Key::parse(key).base();
    let param = view.and_then(|v| v.param(key).map(|p| (v, p)));
    let kind = param.map(|(v, p)| {
        if p.choices.is_some() {
            if p.multi {
                "choice"
            } else {
                "text"
            }
        } else if v.null_key(base).as_deref() == Some(base)
            || v.takes_integers(key, p) && base.ends_with("_id")
        {
            "relation"
        } else if matches!(p.kind, ValueKind::Integer | ValueKind::Number) {
            "number"
        } else {
            "text"
        }
    });
    let version = view.map(|v| v.version()).unwrap_or("");
    match kind {
        Some("relation") => format!(
            "An empty value for `{key}` is an HTTP 400 on NetBox {version} (\"“” is not a valid value\"). Give an id, `null` for objects without one, or drop the filter."
        ),
        Some("choice") => format!(
            "An empty value for `{key}` is an HTTP 400 on NetBox {version} (\"Select a valid choice\"). Give a choice value or drop the filter."
        ),
        Some("number") => format!(
            "An empty value for `{key}` is no number: NetBox {version} ignores it or answers HTTP 400. Give a value or drop the filter."
        ),
        _ if key == "q" => "An empty `q` searches nothing: NetBox returns every object. Give the search text or leave `q` out.".to_string(),
        _ => format!(
            "An empty value for `{key}` is no filter: NetBox returns every object. Give a value, `null` for objects without one, or drop the filter."
        ),
    }
}

/// The values of an entry: list elements with their ranges, or the scalar itself.
fn elements(entry: &FilterEntry) -> impl Iterator<Item = (&Value, Range<usize>)> {
    // An iterator, not a Vec: asked twice per filter on the no-finding path.
    let (items, single): (&[(Value, Range<usize>)], _) = match &entry.value {
        Value::List(items) => (items.as_slice(), None),
        v => (&[], Some((v, entry.value_range.clone()))),
    };
    items.iter().map(|(v, r)| (v, r.clone())).chain(single)
}

fn is_null_selector(v: &Value) -> bool {
    matches!(v, Value::Null) || matches!(v, Value::Str(s) if s == "null")
}

/// Value rules for `entry`, whose key is the parameter `param` of `view`.
pub(crate) fn check(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    out: &mut Vec<Finding>,
) {
    let key = entry.key.as_str();
    let list_len = match &entry.value {
        Value::List(items) => Some(items.len()),
        _ => None,
    };
    let all_null = elements(entry).all(|(v, _)| is_null_selector(v));
    if let Some(f) = faults::server_fault(view, entry, all_null) {
        out.push(f);
        return;
    }
    if let Some(f) = vrf_needs_rd(ctx, view, entry, param) {
        out.push(f);
        return;
    }
    if !param.multi && list_len.unwrap_or(0) > 1 {
        out.push(finding(
            entry.value_range.clone(),
            "single-value-filter",
            format!(
                "`{key}` takes one value: NetBox uses only one of the {} given. Query once per value{}.",
                list_len.unwrap_or(0),
                several_ids(view, key)
            ),
        ));
        return;
    }
    for (v, r) in elements(entry) {
        if let Some(f) = check_scalar(ctx, view, entry, param, v, r) {
            out.push(f);
            // One finding per entry for a scalar; per element for lists.
            if list_len.is_none() {
                return;
            }
        }
    }
}

/// The rules for one scalar value, first hit wins.
fn check_scalar(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    v: &Value,
    r: Range<usize>,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let syntax = ctx.syntax();
    if is_null_selector(v) {
        if let Some(f) = null_refused(view, key, param, r.clone()) {
            return Some(f);
        }
        let base = key.strip_suffix("__n")?;
        let nk = view.null_key(base)?;
        let plain = nk.clone();
        let base = base.strip_suffix("_id").unwrap_or(base);
        return Some(
            finding(
                entry.key_range.clone(),
                "null-complement",
                format!(
                    "`{key}=null` is honoured and selects objects that HAVE a {base} (it excludes those without one). For objects without a {base}, use `{plain}=null`."
                ),
            )
            .with_fix(format!("Select objects without a {base}: `{plain}`"), entry.key_range.clone(), plain, false),
        );
    }
    if let Value::Joined {
        separator,
        separator_range,
    } = v
    {
        return Some(joined(view, entry, key, separator, separator_range, false));
    }
    if matches!(v, Value::Expr | Value::Map | Value::List(_)) {
        return None;
    }
    if let Some(f) = quoted_value(ctx, key, v, r.clone()) {
        return Some(f);
    }
    if let Some(f) = ampersand_in_api_filter(ctx, key, v, r.clone()) {
        return Some(f);
    }
    if param.kind == ValueKind::Boolean {
        return boolean_value(view, entry, v, r, syntax);
    }
    if Key::parse(key).lookup() == Some("empty") {
        // Boolean-typed `__empty` went through `boolean_value` above; one typed like its
        // number or date field refuses `true`/`false` (400) and every other value (500).
        return typed_empty(view, key, param, v, r);
    }
    let text = render::wire_text(v)?;
    if let Some(f) = faults::value_form(view, entry, &text, r.clone()) {
        return Some(f);
    }
    if let Some(f) = super::object_type_value::check(view, entry, param, &text, r.clone(), syntax) {
        return Some(f);
    }
    if let Some(f) = super::relation_field::check(view, key, param, &text, r.clone()) {
        return Some(f);
    }
    let integers = view.takes_integers(key, param);
    let number = integers || param.kind == ValueKind::Number;
    if number && matches!(v, Value::Str(_)) && text.contains(',') {
        return comma_list(ctx, view, entry, param, &text, integers);
    }
    if number {
        return invalid_number(view, entry, v, &text, r, integers, syntax);
    }
    if matches!(param.kind, ValueKind::Date | ValueKind::DateTime) {
        return invalid_date(key, &text, r, param.kind);
    }
    if key.ends_with("__regex") || key.ends_with("__iregex") {
        if let Some(f) = invalid_regex(view.version(), key, &text, r.clone()) {
            return Some(f);
        }
        return choices::check(ctx, view, entry, param, &text, r);
    }
    if view.is_slug_filter(key) && text.trim().parse::<i64>().is_ok() {
        if let Some(f) = number_on_slug(view, entry, &text, r.clone()) {
            return Some(f);
        }
    }
    if matches!(v, Value::Str(_)) && view.is_slug_filter(key) {
        if let Some(f) = slug_expected(view, key, &text, r.clone(), syntax) {
            return Some(f);
        }
    }
    choices::check(ctx, view, entry, param, &text, r)
}

/// `invalid-value` for quote marks that reach NetBox as part of a URL query value: a URL inside
/// a double-quoted string keeps its single quotes (`curl "...?name='edge-01'"`), so NetBox
/// looks for a name with quote marks and matches nothing (a choice or number filter answers
/// HTTP 400). The fix drops the quotes (certain: the value between them is the one meant).
fn quoted_value(ctx: &Ctx, key: &str, v: &Value, r: Range<usize>) -> Option<Finding> {
    if ctx.syntax() != Syntax::Query {
        return None;
    }
    let Value::Str(s) = v else { return None };
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = s.strip_prefix(q)?.strip_suffix(q)?;
    if inner.is_empty() || inner.contains(q) {
        return None;
    }
    // The written value is the sent one when it is as long (no `%xx` escape) and the value
    // has only characters a query string carries as they are.
    let plain = r.len() == s.len()
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.~:/,".contains(&b));
    let mut f = finding(
        r.clone(),
        "invalid-value",
        format!(
            "The quote marks are sent as part of the value: NetBox looks for `{key}` equal to {s} with its quotes and matches nothing (a choice or number filter answers HTTP 400). Drop the quotes: `{key}={inner}`."
        ),
    );
    if plain {
        f = f.with_fix(
            format!("Drop the quotes: `{key}={inner}`"),
            r,
            inner.to_string(),
            true,
        );
    }
    Some(f)
}

/// `invalid-value` for `&` inside a value of the Ansible `nb_lookup` `api_filter` string: the
/// lookup splits the string on spaces (netbox.netbox `plugins/lookup/nb_lookup.py`,
/// `build_filters`: `api_filter.split(" ")`), so `tenant_group=emea&tenant__n=lab` sends one
/// filter whose value is `emea&tenant__n=lab` (ansible_modules#245). The fix writes a space
/// for each `&` that starts another `key=value` (certain: the same filters, as meant).
fn ampersand_in_api_filter(ctx: &Ctx, key: &str, v: &Value, r: Range<usize>) -> Option<Finding> {
    if ctx.syntax() != Syntax::ApiFilter {
        return None;
    }
    let Value::Str(s) = v else { return None };
    let (first, rest) = s.split_once('&')?;
    let pairs: Vec<&str> = rest.split('&').collect();
    let all_pairs = pairs.iter().all(|p| {
        p.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
    });
    if !all_pairs {
        return None;
    }
    let spaced = s.replace('&', " ");
    let mut f = finding(
        r.clone(),
        "invalid-value",
        format!(
            "`api_filter` separates filters with spaces, not `&`: `{key}` gets `{s}` as one value and the other filters are never sent. Write `{key}={first} {}`.",
            pairs.join(" ")
        ),
    );
    if r.len() == s.len() {
        f = f.with_fix(
            format!("Separate the filters with spaces: `{key}={spaced}`"),
            r,
            spaced,
            true,
        );
    }
    Some(f)
}

/// `invalid-value` for `null` where it is no null selector (see [`nullable`]): a choice filter
/// declared with `null_value=None` or a number filter answers HTTP 400.
fn null_refused(view: &View, key: &str, param: &Parameter, r: Range<usize>) -> Option<Finding> {
    let refusal = nullable::refusal(view, key, param)?;
    let empty = format!("{key}__empty");
    let alternative = match view.param(&empty) {
        Some(p) if p.kind == ValueKind::Boolean => {
            format!(" For objects without a {key}, use `{empty}=true`.")
        }
        _ => String::new(),
    };
    let (code, answer) = match refusal {
        Refusal::Choice => ("invalid-choice", "“Select a valid choice”"),
        Refusal::Number => (
            "invalid-value",
            "“Enter a whole number” or “Select a valid choice”",
        ),
    };
    Some(finding(
        r,
        code,
        format!(
            "`{key}` has no null selector in NetBox {}: `null` is an HTTP 400 ({answer}).{alternative}",
            view.version()
        ),
    ))
}

/// `invalid-value` on an `__empty` filter the schema types like its number or date field
/// (`created__empty`, `speed__empty`): live, `true`/`false` is an HTTP 400 ("Enter a valid
/// date/time", "Enter a whole number") and a number or date an HTTP 500 ("The QuerySet value
/// for an isnull lookup must be True or False"). v4.6.8 sweep: dcim/interfaces
/// created__empty=true → 400, speed__empty=1 → 500; v4.3.3 sweep: speed__empty=true → 400,
/// speed__empty=0 → 500. Text-typed `__empty` fails open.
fn typed_empty(
    view: &View,
    key: &str,
    param: &Parameter,
    v: &Value,
    r: Range<usize>,
) -> Option<Finding> {
    let what = match param.kind {
        ValueKind::Integer => "an integer",
        ValueKind::Number => "a number",
        ValueKind::Date => "a date",
        ValueKind::DateTime => "a date-time",
        _ => return None,
    };
    let text = render::wire_text(v)?;
    let boolean = matches!(v, Value::Bool(_))
        || matches!(text.to_ascii_lowercase().as_str(), "true" | "false");
    let answer = if boolean {
        format!("HTTP 400 for `{text}`")
    } else {
        format!("HTTP 500 for `{text}` (the empty test needs True or False)")
    };
    Some(finding(
        r,
        "invalid-value",
        format!(
            "`{key}` is typed as {what} in NetBox {} (like its field), so it has no working value: NetBox answers {answer}. This empty test cannot be used on this release.",
            view.version()
        ),
    ))
}

/// `boolean-value`: NetBox's boolean filters honour `true`/`false` (and `True`/`False`);
/// `1`, `yes`, `0`, `no` are ignored (ground truth `has_primary_ip=1`, `=yes`: 72 of 72).
fn boolean_value(
    view: &View,
    entry: &FilterEntry,
    v: &Value,
    r: Range<usize>,
    syntax: Syntax,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let text = match v {
        Value::Bool(_) => return None,
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Str(s) => s.clone(),
        _ => return None,
    };
    if matches!(text.as_str(), "true" | "false" | "True" | "False") {
        return None;
    }
    let want = match text.to_ascii_lowercase().as_str() {
        "1" | "yes" | "y" | "on" | "t" | "true" => Some(true),
        "0" | "no" | "n" | "off" | "f" | "false" => Some(false),
        _ => None,
    };
    let shown = render::describe(v, syntax);
    // A count on a "Has <x>s" filter (`interfaces=4`) means the `<x>_count` filter beside it.
    let count = match (want, count_of_has_filter(view, key)) {
        (None, Some(c)) if text.trim().parse::<u32>().is_ok() => Some(c),
        _ => None,
    };
    let mut f = finding(
        r.clone(),
        "boolean-value",
        match &count {
            Some(c) => format!(
                "`{key}` is a boolean filter (has any or none): NetBox ignores {shown} and returns every object. For the number of them use `{c}`."
            ),
            None => format!(
                "`{key}` is a boolean filter: NetBox ignores {shown} and returns every object. Use `true` or `false`."
            ),
        },
    );
    if let Some(c) = count {
        return Some(f.with_fix(
            format!("Replace `{key}` with `{c}`"),
            entry.key_range.clone(),
            c,
            true,
        ));
    }
    if let Some(b) = want {
        let new = match (syntax, v) {
            (Syntax::Query | Syntax::ApiFilter, _) | (_, Value::Str(_)) => {
                render::string(&b.to_string(), syntax)
            }
            _ => render::boolean(b, syntax),
        };
        f = f.with_fix(format!("Replace with `{b}`"), r, new, true);
    }
    Some(f)
}

/// The `<x>_count` number filter beside a "Has <x>s" boolean filter `<x>s` (`interfaces` →
/// `interface_count`, `console_ports` → `console_port_count`): NetBox's device and device
/// type filtersets declare both for each component (`dcim/filtersets.py` 4.3.3–4.6.8,
/// `BooleanFilter(label='Has interfaces')` and `MultiValueNumberFilter()`).
fn count_of_has_filter(view: &View, key: &str) -> Option<String> {
    let p = view.param(key)?;
    let has = p.kind == ValueKind::Boolean
        && p.description
            .as_deref()
            .is_some_and(|d| d.starts_with("Has "));
    let count = format!("{}_count", key.strip_suffix('s')?);
    (has && view
        .param(&count)
        .is_some_and(|c| c.kind == ValueKind::Integer))
    .then_some(count)
}

/// The "Has <x>s" boolean filter beside a `<x>_count` number filter (the reverse of
/// [`count_of_has_filter`]).
fn has_filter_of_count(view: &View, key: &str) -> Option<String> {
    let has = format!("{}s", key.strip_suffix("_count")?);
    (count_of_has_filter(view, &has).as_deref() == Some(key)).then_some(has)
}

/// The boolean filter that says whether relation `<rel>_id` is set: `has_<rel>`
/// (`has_oob_ip`, `has_virtual_device_context`) or `<rel>_member` (`virtual_chassis_member`),
/// as NetBox's device filterset declares them (`dcim/filtersets.py` 4.3.3–4.6.8).
fn has_filter_of_relation(view: &View, id_key: &str) -> Option<String> {
    let rel = id_key.strip_suffix("_id")?;
    [format!("has_{rel}"), format!("{rel}_member")]
        .into_iter()
        .find(|n| view.param(n).is_some_and(|p| p.kind == ValueKind::Boolean))
}

/// Values joined into one string by the host (`'name__in=' + names | join(',')` in an Ansible
/// `nb_lookup` `api_filter`): NetBox gets one value holding the separator, which an id, number
/// or choice filter refuses (HTTP 400, as `site_id=21,7`) and a text filter matches only as a
/// whole (`MultiValueCharFilter` takes repeated keys and never splits a value; no object is
/// usually named `a,b`). The working form is one `<base>=` per value, which Jinja writes as
/// `'<base>=' + names | join(' <base>=')`: a suggestion (the expression is the user's), with
/// `from_in` for the `__in` key that is renamed with it.
pub(crate) fn joined(
    view: &View,
    entry: &FilterEntry,
    base: &str,
    separator: &str,
    separator_range: &Range<usize>,
    from_in: bool,
) -> Finding {
    let key = entry.key.as_str();
    let refused = view.param(base).is_some_and(|p| {
        view.takes_integers(base, p)
            || matches!(p.kind, ValueKind::Integer | ValueKind::Number)
            || p.choices.is_some()
    });
    let answer = if refused {
        format!("NetBox {} answers HTTP 400", view.version())
    } else {
        format!(
            "NetBox {} matches only an object whose `{base}` is that whole string (usually none)",
            view.version()
        )
    };
    let advice = format!(
        "Send one `{base}=` per value: join with `' {base}='` after a first `{base}=` (`'{base}=' + values | join(' {base}=')`)."
    );
    let (code, msg) = if from_in {
        (
            "unsupported-lookup",
            format!(
                "`__in` is not a NetBox lookup, and renaming it to `{base}` still sends the values joined by `{separator}` as one value: {answer}. {advice}"
            ),
        )
    } else {
        (
            "comma-list",
            format!(
                "`{key}` gets the values as one string joined by `{separator}`: {answer}. {advice}"
            ),
        )
    };
    let severity = if from_in || refused {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut edits = vec![crate::finding::Edit {
        range: separator_range.clone(),
        new_text: format!(" {base}="),
    }];
    if from_in {
        edits.insert(
            0,
            crate::finding::Edit {
                range: entry.key_range.clone(),
                new_text: base.to_string(),
            },
        );
    }
    let mut f = finding_sev(entry.key_range.clone(), code, severity, msg);
    f.fixes.push(crate::finding::Fix {
        title: format!("Join with ' {base}=' (one `{base}=` per value)"),
        edits,
        certain: false,
        releases: Vec::new(),
    });
    f
}

/// `comma-list`: `site_id=21,7` is an HTTP 400 ("“21,7” is not a valid value"); several
/// values go as a list (repeated keys). Ground truth rows `site_id=21,7`, `vid=100,200`.
fn comma_list(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    text: &str,
    integers: bool,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let parts = comma_parts(&Value::Str(text.to_string()))?;
    let all_numbers = parts.iter().all(|p| {
        if integers {
            p.parse::<i64>().is_ok() || p == "null"
        } else {
            p.parse::<f64>().is_ok()
        }
    });
    let mut f = finding(
        entry.value_range.clone(),
        "comma-list",
        if param.multi {
            format!(
                "`{key}` does not split a comma-separated string: NetBox {} answers HTTP 400. Pass a list (sent as repeated `{key}=` keys).",
                view.version()
            )
        } else {
            format!(
                "`{key}` does not split a comma-separated string: NetBox {} answers HTTP 400. It takes one value: query once per value.",
                view.version()
            )
        },
    );
    if param.multi && all_numbers && parts.len() > 1 {
        let (range, new) = match ctx.syntax() {
            s if s.is_pairs() => (ctx.pair_range(entry), render::pairs(key, &parts, s)),
            syntax => (
                entry.value_range.clone(),
                render::list(
                    &parts
                        .iter()
                        .map(|p| render::token(p, true, syntax))
                        .collect::<Vec<_>>(),
                ),
            ),
        };
        f = f.with_fix("Pass the values as a list", range, new, true);
    }
    Some(f)
}

/// `invalid-value` for id and number filters: `tenant_id=abc` is an HTTP 400 ("“abc” is not a
/// valid value"). A slug sibling (`tenant`) is offered when there is one.
fn invalid_number(
    view: &View,
    entry: &FilterEntry,
    v: &Value,
    text: &str,
    r: Range<usize>,
    integers: bool,
    syntax: Syntax,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let ok = match v {
        Value::Int(_) => true,
        Value::Float(f) => !integers || f.fract() == 0.0,
        Value::Bool(_) => false,
        _ => {
            let t = text.trim();
            if integers {
                t.parse::<i64>().is_ok()
            } else {
                t.parse::<f64>().is_ok()
            }
        }
    };
    if ok {
        return None;
    }
    // Only `id` and `<relation>_id` filters take ids; `vid`, `speed`, `u_height` take numbers.
    let base = Key::parse(key).base();
    let what = match integers {
        true if base == "id" || base.ends_with("_id") => "an integer id",
        true => "an integer",
        false => "a number",
    };
    let mut msg = format!(
        "`{key}` takes {what}: NetBox {} answers HTTP 400 for `{text}`.",
        view.version()
    );
    let boolean = match v {
        Value::Bool(b) => Some(*b),
        _ => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
    };
    if let Some(b) = boolean {
        if let Some(f) = boolean_on_number(view, entry, &msg, b, syntax) {
            return Some(f);
        }
    }
    let sibling = base
        .strip_suffix("_id")
        .filter(|s| view.has(s) && boolean.is_none());
    if let Some(s) = sibling {
        let spoken = s.replace('_', " ");
        msg.push_str(&match view.relation_field(s).as_deref() {
            Some("name") => format!(" To filter by the {spoken}'s name use `{s}`."),
            Some("slug") => format!(
                " `{s}` matches the {spoken}'s slug: use it if `{text}` is the slug; for the name, look the {spoken} up on its own endpoint (`?name=...`) and send its id here."
            ),
            Some(field) => format!(" To filter by the {spoken}'s {field} use `{s}`."),
            None => format!(" To filter by slug or name use `{s}`."),
        });
    }
    let mut f = finding(r, "invalid-value", msg);
    if let (Some(s), Value::Str(_)) = (sibling, v) {
        let lookup = key.strip_prefix(base).unwrap_or("");
        f = f.with_fix(
            format!("Filter with `{s}{lookup}`"),
            entry.key_range.clone(),
            format!("{s}{lookup}"),
            false,
        );
    }
    Some(f)
}

/// `invalid-value` for `true`/`false` on a number or id filter, pointing at the filter of the
/// same concept that takes a boolean: the "Has <x>s" filter beside `<x>_count`
/// (`interface_count=true` → `interfaces=true`, certain), the `has_<rel>`/`<rel>_member`
/// filter beside `<rel>_id` (`virtual_chassis_id=true` → `virtual_chassis_member=true`,
/// certain), else the null selector of the relation (`tenant_id=true` → `tenant_id__n=null`,
/// a suggestion: the value changes). `None` when the filter has no such neighbour.
fn boolean_on_number(
    view: &View,
    entry: &FilterEntry,
    head: &str,
    b: bool,
    syntax: Syntax,
) -> Option<Finding> {
    let key = entry.key.as_str();
    if Key::parse(key).parts.len() != 1 {
        return None;
    }
    if let Some(has) = has_filter_of_count(view, key).or_else(|| {
        view.is_relation(key)
            .then(|| has_filter_of_relation(view, key))
            .flatten()
    }) {
        let what = if key.ends_with("_count") {
            "whether there are any"
        } else {
            "whether it is set"
        };
        let f = finding(
            entry.value_range.clone(),
            "invalid-value",
            format!("{head} For {what}, the boolean filter is `{has}`: use `{has}={b}`."),
        );
        return Some(f.with_fix(
            format!("Replace `{key}` with `{has}`"),
            entry.key_range.clone(),
            has,
            true,
        ));
    }
    if !(key.ends_with("_id") && view.is_relation(key)) {
        return None;
    }
    let rel = key.strip_suffix("_id").unwrap_or(key).replace('_', " ");
    let negated = format!("{key}__n");
    let (to, meaning) = if b {
        (negated.as_str(), "with")
    } else {
        (key, "without")
    };
    if !view.has(to) {
        return None;
    }
    let mut f = finding(
        entry.value_range.clone(),
        "invalid-value",
        format!(
            "{head} Objects {meaning} a {rel} are selected with the null selector: `{to}=null`{}.",
            if b {
                format!(" (`{key}=null` for those without one)")
            } else {
                format!(" (`{negated}=null` for those with one)")
            }
        ),
    );
    f.fixes.push(crate::finding::Fix {
        title: format!("Select objects {meaning} a {rel}: `{to}=null`"),
        edits: vec![
            crate::finding::Edit {
                range: entry.key_range.clone(),
                new_text: to.to_string(),
            },
            crate::finding::Edit {
                range: entry.value_range.clone(),
                new_text: render::null_string(syntax),
            },
        ],
        certain: false,
        releases: Vec::new(),
    });
    Some(f)
}

/// `invalid-value` for date filters: a value that starts neither with `YYYY-MM-DD` nor with
/// Django's other default input forms `MM/DD/YY[YY]`, `Oct 25 2006` (Django answers 400 "Enter a valid
/// date/time"; sweeps 4.3.3 and 4.6.8: `created=notadate` → 400). Warning: only the shape is
/// checked.
fn invalid_date(key: &str, text: &str, r: Range<usize>, kind: ValueKind) -> Option<Finding> {
    let b = text.as_bytes();
    let starts_with_date = b.len() >= 8
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && text[5..].split('-').count() >= 2;
    let head = text.split([' ', 'T']).next().unwrap_or("");
    let parts: Vec<&str> = head.split('/').collect();
    let us_date = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|c| c.is_ascii_digit()));
    // Django's `%b %d %Y`, `%d %B, %Y`, ... forms (`Oct 25 2006`).
    let lower = text.to_ascii_lowercase();
    let month_name = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .iter()
    .any(|m| lower.contains(m))
        && text.bytes().filter(u8::is_ascii_digit).count() >= 4;
    if starts_with_date || us_date || month_name {
        return None;
    }
    let what = if kind == ValueKind::Date {
        "a date (`2024-05-31`)"
    } else {
        "a date-time (`2024-05-31T12:00:00Z`)"
    };
    Some(finding_sev(
        r,
        "invalid-value",
        Severity::Warning,
        format!("`{key}` takes {what}: NetBox answers HTTP 400 for `{text}`."),
    ))
}

/// `invalid-regex`: the pattern reaches the database (PostgreSQL) and an invalid one is an
/// HTTP 500 (v4.6.8 sweep: `name__regex=[` on interface templates, `name__iregex=(` and
/// `name__regex=*a` on devices → 500; 4.3.3 has no regex lookups). Only clear errors are
/// flagged, since PostgreSQL regex syntax differs from Rust's: unbalanced brackets and
/// parentheses, a repetition with nothing to repeat, a repetition range whose start is past
/// its end (`a{2,1}`).
fn invalid_regex(version: &str, key: &str, text: &str, r: Range<usize>) -> Option<Finding> {
    let err = regex::Regex::new(text).err()?.to_string();
    let clear = [
        ("unclosed character class", "unbalanced brackets"),
        ("unclosed group", "unbalanced parentheses"),
        ("unopened group", "unbalanced parentheses"),
        (
            "repetition operator missing expression",
            "a repetition with nothing to repeat",
        ),
        (
            "invalid repetition count range",
            "a repetition range whose start is past its end",
        ),
    ];
    let (_, what) = clear.iter().find(|(c, _)| err.contains(*c))?;
    Some(finding(
        r,
        "invalid-regex",
        format!(
            "`{key}` gets an invalid regular expression ({what}): PostgreSQL refuses it and NetBox {version} answers HTTP 500."
        ),
    ))
}

/// `slug-expected`: a slug filter given a display name. Characters outside `[-a-zA-Z0-9_]`
/// can never be in a slug (HTTP 400 "not one of the available choices"); upper case only is a
/// warning (a slug may contain it, NetBox's own never do).
fn slug_expected(
    view: &View,
    key: &str,
    text: &str,
    r: Range<usize>,
    syntax: Syntax,
) -> Option<Finding> {
    if text.is_empty() {
        return None;
    }
    let bad = text
        .chars()
        .any(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'));
    let upper = text.chars().any(|c| c.is_ascii_uppercase());
    if !bad && !upper {
        return None;
    }
    let severity = if bad {
        Severity::Error
    } else {
        Severity::Warning
    };
    let slug = slugify(text);
    let base = Key::parse(key).base();
    let id = format!("{base}_id");
    let mut msg = format!(
        "`{key}` matches the {base}'s slug, not its name: `{text}` is an HTTP 400 unless a {base} has that slug. Use the slug (probably `{slug}`)"
    );
    if view.has(&id) {
        msg.push_str(&format!(" or `{id}` with the id"));
    }
    msg.push('.');
    let mut f = finding_sev(r.clone(), "slug-expected", severity, msg);
    if !slug.is_empty() && slug != text {
        f = f.with_fix(
            format!("Use the slug `{slug}`"),
            r,
            render::string(&slug, syntax),
            false,
        );
    }
    Some(f)
}

/// `slug-expected` (information) for a number on a slug filter (`site=12`): a slug may be
/// digits, but a number there is most often an id, which goes to the `_id` filter
/// (`site_id=12`); NetBox answers HTTP 400 ("Select a valid choice") unless a slug is that
/// number. A suggestion, not a fix-all edit.
fn number_on_slug(
    view: &View,
    entry: &FilterEntry,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let k = Key::parse(key);
    let base = k.base();
    let lookup = key.strip_prefix(base).unwrap_or("");
    let id = format!("{base}_id{lookup}");
    if !view.has(&id) {
        return None;
    }
    let spoken = base.replace('_', " ");
    let f = finding_sev(
        r,
        "slug-expected",
        Severity::Information,
        format!(
            "`{key}` matches the {spoken}'s slug; `{text}` looks like an id: NetBox {} answers HTTP 400 unless a {spoken} has the slug `{text}`. For the {spoken} with id {text} use `{id}`.",
            view.version()
        ),
    );
    Some(f.with_fix(
        format!("Replace `{key}` with `{id}`"),
        entry.key_range.clone(),
        id,
        false,
    ))
}

/// `vrf-needs-rd`: on ipam endpoints `vrf` matches the route distinguisher
/// (`to_field_name='rd'`, schema "VRF (RD)"), so a VRF name is an HTTP 400 (ground truth
/// `vrf=Alpha`). RDs are written `ASN:nn` or `IP:nn` (RFC 4364).
fn vrf_needs_rd(ctx: &Ctx, view: &View, entry: &FilterEntry, param: &Parameter) -> Option<Finding> {
    let key = entry.key.as_str();
    let base = Key::parse(key).base();
    let rd_filter = param
        .description
        .as_deref()
        .is_some_and(|d| d.contains("(RD)"))
        || base == "present_in_vrf";
    if !rd_filter {
        return None;
    }
    let id_key = format!("{base}_id");
    for (v, r) in elements(entry) {
        match v {
            Value::Int(i) => {
                let mut f = finding(
                    r.clone(),
                    "vrf-needs-rd",
                    format!(
                        "`{key}` matches the VRF's route distinguisher, not its id: `{i}` is an HTTP 400. Use `{id_key}` for ids."
                    ),
                );
                if view.has(&id_key) && !key.contains("__") {
                    f = f.with_fix(
                        format!("Replace with `{id_key}`"),
                        entry.key_range.clone(),
                        id_key.clone(),
                        true,
                    );
                }
                return Some(f);
            }
            Value::Str(s) if s != "null" && !s.contains(':') => {
                let _ = ctx;
                return Some(finding(
                    r,
                    "vrf-needs-rd",
                    format!(
                        "`{key}` matches the VRF's route distinguisher (like `65000:100`), not its name: `{s}` is an HTTP 400. Use the RD, or `{id_key}` with the VRF's id."
                    ),
                ));
            }
            _ => {}
        }
    }
    None
}

/// Repeated keys in a query string (`within=a&within=b`): single-value filters use one value.
/// Generic-relation ids (`scope_id`, `assigned_object_id`, `object_id`) take several: live
/// 4.3.3 and 4.6.8 OR them (`scope_id=15&scope_id=16` on vlan-groups: 1 + 1 → 2).
pub(crate) fn check_repeated(ctx: &Ctx, view: &View, out: &mut Vec<Finding>) {
    // The forms that send several values as repeated keys written one by one.
    if !matches!(
        ctx.call.form,
        CallForm::Url | CallForm::AnsibleLookup | CallForm::Inventory | CallForm::InventoryBoth
    ) {
        return;
    }
    let mut by_key: BTreeMap<&str, Vec<&FilterEntry>> = BTreeMap::new();
    for e in &ctx.call.filters {
        by_key.entry(e.key.as_str()).or_default().push(e);
    }
    for (key, entries) in by_key {
        if entries.len() < 2 || super::view_params::is_exempt(key) {
            continue;
        }
        let Some(param) = view.param(key) else {
            continue;
        };
        if !param.multi {
            out.push(finding(
                ctx.pair_range(entries[1]),
                "single-value-filter",
                format!(
                    "`{key}` takes one value: NetBox uses only one of the {} given. Query once per value{}.",
                    entries.len(),
                    several_ids(view, key)
                ),
            ));
        }
    }
}

/// ", or give the ids to `<key>_id`, which takes several" when that filter exists and reads
/// several values (`changed_object_type_id` beside the single `changed_object_type` before
/// 4.5.2); empty otherwise.
fn several_ids(view: &View, key: &str) -> String {
    match view.param(&format!("{key}_id")) {
        Some(p) if p.multi => format!(", or give the ids to `{key}_id`, which takes several"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_shapes() {
        let bad = |t: &str| invalid_date("created", t, 0..1, ValueKind::DateTime).is_some();
        assert!(bad("notadate") && bad("yesterday"));
        assert!(!bad("2024-05-31T12:00:00Z") && !bad("05/31/2024") && !bad("05/31/24 10:30"));
        assert!(!bad("Oct 25 2006") && !bad("25 October, 2006"));
    }

    #[test]
    fn invalid_regex_forms() {
        // v4.6.8 sweep: `[`, `(`, `*a` → 500; PostgreSQL also refuses `a{2,1}`.
        for p in ["[", "(", "*a", "a{2,1}"] {
            assert!(
                invalid_regex("4.6.8", "name__regex", p, 0..1).is_some(),
                "{p}"
            );
        }
        for p in ["^edge-(a|b)[0-9]+$", "a{1,2}", "\\d"] {
            assert!(
                invalid_regex("4.6.8", "name__regex", p, 0..1).is_none(),
                "{p}"
            );
        }
    }
}
