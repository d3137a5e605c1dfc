//! The values of the view parameters NetBox reads (rows of `view_params`), list and detail
//! views alike:
//!
//! - **Names in `fields` and `omit`** must be fields of the endpoint's objects, as the release's
//!   OpenAPI response schema lists them (`index::ResponseFields`). NetBox drops any other name
//!   without a word: `BaseModelSerializer.fields` keeps only the requested names that exist
//!   (netbox/api/serializers/base.py L65 at 4.3.3 and 4.4.10: `if key in
//!   self._requested_fields`) or pops the unrequested and the omitted ones (`fields.pop(name,
//!   None)`, L66 and L70 at 4.5.10, L69 and L73 at 4.6.8 and in the 4.7.3 wheel), so
//!   `fields=nme` answers objects with no field at all and `omit=nme` leaves nothing out
//!   (`unknown-field`).
//! - **`omit` beside `fields`** is not read: `BaseViewSet.field_kwargs` returns `fields` when
//!   given and reads `omit` only otherwise (viewsets/__init__.py 4.5.10 L81–86, 4.6.8 L133–138,
//!   4.7.3 L157–162) (`ignored-parameter`).
//! - **A list for a parameter read once**: every view parameter is read with
//!   `query_params.get(...)` / `[...]` (one value, the last of repeated keys: Django's
//!   `QueryDict`), and pynetbox (`Request._make_call` passes the filters to `requests` as
//!   `params`) and `requests` send a list as repeated keys, so `fields=["id", "name"]` asks for
//!   `name` alone. `fields`, `omit`, `ordering` and `exclude` take several names in one value,
//!   joined with commas (`requested_fields.split(',')`, DRF `OrderingFilter.get_ordering`
//!   `params.split(',')`): the comma-joined value is the certain fix (`single-value-filter`).
//!   The MCP tools join their `fields` list themselves and are not concerned. Live on the
//!   4.7.3 lab: `/api/dcim/devices/?fields=id&fields=name` answers `name` alone,
//!   `?fields=id,name` both, `?fields=nme` objects with no field, `?fields=id,nme` `id` alone.

use super::endpoint::View;
use super::view_params::{Several, ViewParam};
use super::{finding, render, Ctx};
use crate::extract::{CallForm, FilterEntry, Syntax, Value};
use crate::finding::{Edit, Finding, Fix, Severity};
use crate::index::FieldSet;
use std::ops::Range;

/// Checks the value of `entry`, whose key is view parameter `p` and applies here.
pub(crate) fn check(
    ctx: &Ctx,
    view: Option<&View>,
    p: &ViewParam,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) {
    if !ctx.is_mcp() {
        several(ctx, p, entry, out);
    }
    if matches!(p.name, "fields" | "omit") {
        if let Some(set) = view.and_then(|v| v.index.fields_of(v.ep).map(|s| (v, s))) {
            names(ctx, set.0, set.1, p, entry, out);
        }
    }
    if p.name == "omit" {
        omit_beside_fields(ctx, entry, out);
    }
}

/// The `fields` argument of the MCP tools that read one endpoint (`netbox_get_objects`,
/// `netbox_get_object_by_id` and code mode's `get`, `get_by_id`): each name must be a field.
pub(crate) fn check_args(ctx: &Ctx, view: Option<&View>, out: &mut Vec<Finding>) {
    if !matches!(
        ctx.call.form.tool_like(),
        CallForm::GetObjects | CallForm::GetObjectById
    ) {
        return;
    }
    let Some((view, set)) = view.and_then(|v| v.index.fields_of(v.ep).map(|s| (v, s))) else {
        return;
    };
    let Some(p) = super::view_params::get("fields") else {
        return;
    };
    for arg in ctx.call.args.iter().filter(|a| a.name == "fields") {
        let Value::List(items) = &arg.value else {
            continue;
        };
        let all = item_names(ctx.syntax(), items);
        report_names(ctx, view, set, p, &all, out);
    }
}

/// One name of a `fields`/`omit` value with its host range, and whether the range is the
/// name's own (so a fix may replace it).
struct Name {
    text: String,
    range: Range<usize>,
    exact: bool,
}

/// The names of a comma-separated value `s` written at `range`: sub-ranges when the host text
/// is `s` itself (a query string, a plain YAML scalar) or `s` in one pair of quotes.
fn split_names(s: &str, range: &Range<usize>, syntax: Syntax) -> Vec<Name> {
    let offset = if range.len() == s.len() {
        Some(0)
    } else if range.len() == s.len() + 2 && !matches!(syntax, Syntax::Query | Syntax::JsonInString)
    {
        Some(1)
    } else {
        None
    };
    let mut out = Vec::new();
    let mut at = 0;
    for part in s.split(',') {
        let lead = part.len() - part.trim_start().len();
        let name = part.trim();
        if !name.is_empty() {
            let r = offset.map(|o| {
                let start = range.start + o + at + lead;
                start..start + name.len()
            });
            out.push(Name {
                text: name.to_string(),
                exact: r.is_some(),
                range: r.unwrap_or_else(|| range.clone()),
            });
        }
        at += part.len() + 1;
    }
    out
}

fn item_names(syntax: Syntax, items: &[(Value, Range<usize>)]) -> Vec<Name> {
    items
        .iter()
        .filter_map(|(v, r)| match v {
            Value::Str(s) => Some(split_names(s, r, syntax)),
            _ => None,
        })
        .flatten()
        .collect()
}

/// `unknown-field` for each name of `entry` that the objects of `view` do not have.
fn names(
    ctx: &Ctx,
    view: &View,
    set: FieldSet,
    p: &ViewParam,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) {
    let all = match &entry.value {
        Value::Str(s) => split_names(s, &entry.value_range, ctx.syntax()),
        Value::List(items) => item_names(ctx.syntax(), items),
        _ => return,
    };
    report_names(ctx, view, set, p, &all, out);
}

fn report_names(
    ctx: &Ctx,
    view: &View,
    set: FieldSet,
    p: &ViewParam,
    all: &[Name],
    out: &mut Vec<Finding>,
) {
    let known = all.iter().filter(|n| set.contains(&n.text)).count();
    for n in all.iter().filter(|n| !set.contains(&n.text)) {
        let (names, certain) = near_fields(set, &n.text);
        let effect = match p.name {
            "omit" => "`omit` leaves nothing out for it".to_string(),
            _ if known == 0 => {
                "no name of this `fields` is a field, so every object comes back with no field at all (`{}`)"
                    .to_string()
            }
            _ => "the objects come back without it".to_string(),
        };
        // Piece by piece (`format!` and the path's own were a third of this finding's cost).
        let mut msg = super::text::cat(&[
            "`",
            &n.text,
            "` is no field of the objects of /api/",
            view.key,
            "/ on NetBox ",
            view.version(),
            ": NetBox drops unknown names from `",
            p.name,
            "` without a word, and ",
            &effect,
            ".",
        ]);
        if n.text.contains(['.', '/']) || n.text.contains("__") {
            msg.push_str(" `fields` and `omit` name top-level fields only; a related object comes whole (its brief form).");
        }
        match names.as_slice() {
            [] => {}
            [one] => msg.push_str(&format!(" Use `{one}`.")),
            [first @ .., last] => msg.push_str(&format!(
                " Did you mean {} or `{last}`?",
                first
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        let duplicate = |name: &str| all.iter().any(|m| m.text == name);
        let certain = certain && n.exact && names.len() == 1 && !duplicate(&names[0]);
        // A name `omit` does not know only makes the answer larger.
        let mut f = if p.name == "omit" {
            super::finding_sev(n.range.clone(), "unknown-field", Severity::Warning, msg)
        } else {
            finding(n.range.clone(), "unknown-field", msg)
        };
        if n.exact {
            for name in &names {
                f = f.with_fix(
                    format!("Replace `{}` with `{name}`", n.text),
                    n.range.clone(),
                    render_name(name, ctx.syntax()),
                    certain,
                );
            }
        }
        out.push(f);
    }
}

/// A field name as it replaces a name inside a value (already inside the value's quotes).
fn render_name(name: &str, syntax: Syntax) -> String {
    match syntax {
        Syntax::Query => render::string(name, Syntax::Query),
        _ => name.to_string(),
    }
}

/// Fields close to `name`: the same after case and `-`/`_`, or the plural or singular (both
/// certain when one field is meant); the top-level field of a dotted or `__` path (`site.name`
/// → `site`); else Jaro-Winkler ≥ 0.85, best three (never certain).
fn near_fields(set: FieldSet, name: &str) -> (Vec<String>, bool) {
    let n = norm(name);
    // Normalising maps each byte to one byte (ASCII lower case, `-` as `_`): each field is
    // compared byte by byte as normalised, never written out.
    let nb = n.as_bytes();
    let same: Vec<String> = set
        .names()
        // Only a field 1 shorter to 2 longer than `n` can be the same, the plural (`s`, `ies`
        // for `y`) or the singular.
        .filter(|field| (nb.len()..=nb.len() + 3).contains(&(field.trim().len() + 1)))
        .filter(|field| {
            let f = field.trim().as_bytes();
            // `f` normalised starts with `head` and goes on with `end` (`end` lower case).
            let is = |head: &[u8], end: &[u8]| {
                f.len() == head.len() + end.len()
                    && f.iter()
                        .zip(head.iter().chain(end))
                        .all(|(a, b)| norm_byte(*a) == *b)
            };
            is(nb, b"")
                || is(nb, b"s")
                || nb.strip_suffix(b"s").is_some_and(|b| is(b, b""))
                || nb.strip_suffix(b"y").is_some_and(|b| is(b, b"ies"))
        })
        .map(str::to_string)
        .collect();
    if !same.is_empty() {
        let certain = same.len() == 1;
        return (same, certain);
    }
    let top = n.split(['.', '/']).next().unwrap_or("");
    let top = top.split("__").next().unwrap_or("");
    if top != n && set.contains(top) {
        return (vec![top.to_string()], false);
    }
    // A field that cannot reach 0.85 is not scored (`near::Bound`).
    let bound = super::near::Bound::new(&n);
    let mut scored: Vec<(f64, &str)> = set
        .names()
        .filter(|f| {
            bound
                .as_ref()
                .is_none_or(|b| b.may_reach(f.as_bytes(), false, 0.85))
        })
        .map(|f| (super::suggest::jaro_winkler_from(&n, f, 0.84), f))
        .filter(|(s, _)| *s >= 0.85)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    (
        scored
            .into_iter()
            .take(3)
            .map(|(_, f)| f.to_string())
            .collect(),
        false,
    )
}

/// `s` trimmed, lower-cased (ASCII) and with `-` as `_`, as [`norm_into`] writes it.
fn norm(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    norm_into(&mut out, s);
    out
}

/// One byte of a name as [`norm_into`] writes it.
fn norm_byte(b: u8) -> u8 {
    if b == b'-' {
        b'_'
    } else {
        b.to_ascii_lowercase()
    }
}

/// Appends `s.trim().to_ascii_lowercase().replace('-', "_")` to `out`.
fn norm_into(out: &mut String, s: &str) {
    out.extend(s.trim().chars().map(|c| {
        if c == '-' {
            '_'
        } else {
            c.to_ascii_lowercase()
        }
    }));
}

/// `ignored-parameter` for `omit` beside a non-empty `fields`: NetBox reads `fields` and not
/// `omit` (see the module docs).
fn omit_beside_fields(ctx: &Ctx, entry: &FilterEntry, out: &mut Vec<Finding>) {
    let given = |v: &Value| match v {
        Value::Str(s) => !s.trim().is_empty(),
        Value::List(items) => !items.is_empty(),
        Value::Null => false,
        _ => true,
    };
    if !ctx
        .call
        .filters
        .iter()
        .any(|e| e.key == "fields" && given(&e.value))
    {
        return;
    }
    out.push(finding(
        ctx.pair_range(entry),
        "ignored-parameter",
        format!(
            "NetBox {} reads `omit` only without `fields` (`BaseViewSet.field_kwargs` returns the `fields` names when they are given): the objects hold exactly the `fields` names, and `omit` is ignored. Leave the omitted names out of `fields` instead.",
            ctx.index.netbox_version
        ),
    ));
}

/// `single-value-filter` for several values of a parameter NetBox reads once: a list (sent as
/// repeated keys) or the key repeated. For the comma-list parameters the fix writes the values
/// joined with commas, certain when the values are plain names and the edit is exact.
fn several(ctx: &Ctx, p: &ViewParam, entry: &FilterEntry, out: &mut Vec<Finding>) {
    let syntax = ctx.syntax();
    let (values, edits) = match &entry.value {
        Value::List(items) if items.len() >= 2 => {
            let texts: Option<Vec<String>> = items
                .iter()
                .map(|(v, _)| {
                    render::wire_text(v)
                        .filter(|_| matches!(v, Value::Str(_)))
                        .map(|t| t.into_owned())
                })
                .collect();
            let edits = texts.as_ref().filter(|_| !syntax.is_pairs()).map(|t| {
                vec![Edit {
                    range: entry.value_range.clone(),
                    new_text: render::string(&t.join(","), syntax),
                }]
            });
            (texts, edits)
        }
        Value::List(_) => return,
        _ => {
            let same: Vec<&FilterEntry> = ctx
                .call
                .filters
                .iter()
                .filter(|e| e.key == entry.key)
                .collect();
            // Reported once, at the first of the repeated keys.
            if same.len() < 2 || !std::ptr::eq(same[0], entry) {
                return;
            }
            let texts: Option<Vec<String>> = same
                .iter()
                .map(|e| match &e.value {
                    Value::Str(s) if !s.is_empty() => Some(s.to_string()),
                    _ => None,
                })
                .collect();
            let edits = texts
                .as_ref()
                .and_then(|t| merge_edits(ctx, &same, t, syntax));
            (texts, edits)
        }
    };
    let count = match &entry.value {
        Value::List(items) => items.len(),
        _ => ctx
            .call
            .filters
            .iter()
            .filter(|e| e.key == entry.key)
            .count(),
    };
    let comma = p.several == Several::CommaList;
    let joined = values.as_ref().map(|v| v.join(","));
    let mut msg = format!(
        "`{}` is read once: NetBox takes only the last of the {count} values (`request.query_params.get('{}')`), and a list goes out as repeated keys (pynetbox, `requests`).",
        p.name, p.name
    );
    match (&joined, comma) {
        (Some(j), true) => msg.push_str(&format!(
            " Give the names in one value, joined with commas: `{}={j}`.",
            p.name
        )),
        (None, true) => msg.push_str(" Give the names in one value, joined with commas."),
        (_, false) => msg.push_str(" Give one value."),
    }
    let mut f = finding(ctx.pair_range(entry), "single-value-filter", msg);
    if let (Some(edits), true) = (edits, comma) {
        // Names with a comma of their own would split differently.
        let plain = values
            .as_ref()
            .is_some_and(|v| v.iter().all(|s| !s.contains(',') && !s.trim().is_empty()));
        f.fixes.push(Fix {
            title: format!("Join the values of `{}` with commas", p.name),
            edits,
            certain: plain,
            releases: Vec::new(),
        });
    }
    out.push(f);
}

/// The edits that merge repeated pairs `same` (in a query string or an `api_filter`) into the
/// first: its value becomes the joined `texts`, each later pair is removed with the separator
/// before it. `None` unless every later pair directly follows another entry of the call with
/// a one-byte separator (`&`, a blank) between them, so nothing else is removed.
fn merge_edits(
    ctx: &Ctx,
    same: &[&FilterEntry],
    texts: &[String],
    syntax: Syntax,
) -> Option<Vec<Edit>> {
    if !syntax.is_pairs() {
        return None;
    }
    let first = same[0];
    let mut edits = vec![Edit {
        range: first.value_range.clone(),
        new_text: render::string(&texts.join(","), syntax),
    }];
    for e in &same[1..] {
        let i = ctx.call.filters.iter().position(|x| std::ptr::eq(x, *e))?;
        let prev = ctx.call.filters.get(i.checked_sub(1)?)?;
        let gap = prev.value_range.end.max(prev.key_range.end);
        if e.key_range.start != gap + 1 || e.value_range.end < e.key_range.end {
            return None;
        }
        edits.push(Edit {
            range: gap..e.value_range.end,
            new_text: String::new(),
        });
    }
    // A bare first key (`fields&fields=x`) has no `=` to write the value after.
    (first.value_range.start > first.key_range.end).then_some(edits)
}
