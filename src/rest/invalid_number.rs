//! `invalid-value` for id and number filters, and `true`/`false` on them.

use super::boolean_value::count_of_has_filter;
use super::endpoint::View;
use super::{finding, render};
use crate::extract::{FilterEntry, Syntax, Value};
use crate::finding::Finding;
use crate::index::ValueKind;
use std::ops::Range;

/// `invalid-value` for id and number filters: `tenant_id=abc` is an HTTP 400 ("“abc” is not a
/// valid value"). A slug sibling (`tenant`) is offered when there is one.
pub(super) fn invalid_number(
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
    // The key's base and whether it has a `__`, from one scan (no parts list).
    let base = super::text::dunder_base(key);
    let one_part = base.len() == key.len();
    let what = match integers {
        true if base == "id" || base.ends_with("_id") => "an integer id",
        true => "an integer",
        false => "a number",
    };
    let head = [
        "`",
        key,
        "` takes ",
        what,
        ": NetBox ",
        view.version(),
        " answers HTTP 400 for `",
        text,
        "`.",
    ];
    let boolean = match v {
        Value::Bool(b) => Some(*b),
        _ => {
            let t = text.trim();
            if t.eq_ignore_ascii_case("true") {
                Some(true)
            } else if t.eq_ignore_ascii_case("false") {
                Some(false)
            } else {
                None
            }
        }
    };
    if let Some(b) = boolean {
        let head = super::text::cat(&head);
        return Some(
            boolean_on_number(view, entry, one_part, &head, b, syntax)
                .unwrap_or_else(|| finding(r, "invalid-value", head)),
        );
    }
    // The sibling's parameter found once, for its presence and its relation field.
    let sibling_known = base
        .strip_suffix("_id")
        .and_then(|s| Some((s, view.param_relation(s)?)));
    let sibling = sibling_known.map(|(s, _)| s);
    // The sentence naming the sibling, written after the head into one string of their
    // length (`format!` was most of this finding's cost); the sibling spoken (`_` as a
    // space) is written in place, not made a string of its own.
    let field = sibling_known.and_then(|(s, k)| view.relation_field_known(s, k));
    // Each sentence as its parts, `Spoken` where the sibling goes spoken.
    use Part::{Spoken, S};
    let tail: &[Part] = match (sibling, field.as_deref()) {
        (None, _) => &[],
        (Some(s), Some("name")) => &[
            S(" To filter by the "),
            Spoken,
            S("'s name use `"),
            S(s),
            S("`."),
        ],
        (Some(s), Some("slug")) => &[
            S(" `"),
            S(s),
            S("` matches the "),
            Spoken,
            S("'s slug: use it if `"),
            S(text),
            S("` is the slug; for the name, look the "),
            Spoken,
            S(" up on its own endpoint (`?name=...`) and send its id here."),
        ],
        (Some(s), Some(field)) => &[
            S(" To filter by the "),
            Spoken,
            S("'s "),
            S(field),
            S(" use `"),
            S(s),
            S("`."),
        ],
        (Some(s), None) => &[S(" To filter by slug or name use `"), S(s), S("`.")],
    };
    let spoken = sibling.unwrap_or("");
    let part_len = |p: &Part| match p {
        S(t) => t.len(),
        Spoken => spoken.len(),
    };
    let len =
        head.iter().map(|p| p.len()).sum::<usize>() + tail.iter().map(part_len).sum::<usize>();
    let mut msg = String::with_capacity(len);
    push_all(&mut msg, &head);
    for p in tail {
        match p {
            S(t) => msg.push_str(t),
            Spoken => super::text::push_spoken(&mut msg, spoken),
        }
    }
    let mut f = finding(r, "invalid-value", msg);
    if let (Some(s), Value::Str(_)) = (sibling, v) {
        let lookup = key.strip_prefix(base).unwrap_or("");
        let mut title = String::with_capacity(16 + s.len() + lookup.len());
        push_all(&mut title, &["Filter with `", s, lookup, "`"]);
        let mut new = String::with_capacity(s.len() + lookup.len());
        push_all(&mut new, &[s, lookup]);
        f = f.with_fix(title, entry.key_range.clone(), new, false);
    }
    Some(f)
}

/// A part of a message: a text, or the sibling filter spoken (`_` as a space).
enum Part<'a> {
    S(&'a str),
    Spoken,
}

/// Appends each of `parts` to `out`.
fn push_all(out: &mut String, parts: &[&str]) {
    for p in parts {
        out.push_str(p);
    }
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
    one_part: bool,
    head: &str,
    b: bool,
    syntax: Syntax,
) -> Option<Finding> {
    let key = entry.key.as_str();
    if !one_part {
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
    let negated = super::text::cat(&[key, "__n"]);
    let (to, meaning) = if b {
        (negated.as_str(), "with")
    } else {
        (key, "without")
    };
    if !view.has(to) {
        return None;
    }
    let rel = key.strip_suffix("_id").unwrap_or(key).replace('_', " ");
    let rel = rel.as_str();
    let (other, other_side) = if b {
        (key, "without")
    } else {
        (negated.as_str(), "with")
    };
    let mut f = finding(
        entry.value_range.clone(),
        "invalid-value",
        super::text::cat(&[
            head,
            " Objects ",
            meaning,
            " a ",
            rel,
            " are selected with the null selector: `",
            to,
            "=null` (`",
            other,
            "=null` for those ",
            other_side,
            " one).",
        ]),
    );
    f.fixes.push(crate::finding::Fix {
        title: super::text::cat(&["Select objects ", meaning, " a ", rel, ": `", to, "=null`"]),
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
    // Each probed from the stack; a string made only for the one found.
    [["has_", rel], [rel, "_member"]]
        .into_iter()
        .find_map(|parts| {
            super::text::with_joined(&parts, |n| {
                view.param(n)
                    .is_some_and(|p| p.kind == ValueKind::Boolean)
                    .then(|| n.to_string())
            })
        })
}
