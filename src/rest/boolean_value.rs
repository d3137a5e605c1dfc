//! `boolean-value`: a boolean filter given `1`, `yes`, a count.

use super::endpoint::View;
use super::{finding, render};
use crate::extract::{FilterEntry, Syntax, Value};
use crate::finding::Finding;
use crate::index::ValueKind;
use std::ops::Range;

/// `boolean-value`: NetBox's boolean filters honour `true`/`false` (and `True`/`False`);
/// `1`, `yes`, `0`, `no` are ignored (ground truth `has_primary_ip=1`, `=yes`: 72 of 72).
pub(super) fn boolean_value(
    view: &View,
    entry: &FilterEntry,
    v: &Value,
    r: Range<usize>,
    syntax: Syntax,
) -> Option<Finding> {
    let key = entry.key.as_str();
    // The value's text, borrowed for a string (no copy to read it).
    let text: std::borrow::Cow<str> = match v {
        Value::Bool(_) => return None,
        Value::Int(i) => i.to_string().into(),
        Value::Float(f) => f.to_string().into(),
        Value::Str(s) => s.as_str().into(),
        _ => return None,
    };
    if matches!(&*text, "true" | "false" | "True" | "False") {
        return None;
    }
    // `text.to_ascii_lowercase()` matched, without the lowered copy.
    let is_one_of = |words: &[&str]| words.iter().any(|w| text.eq_ignore_ascii_case(w));
    let want = if is_one_of(&["1", "yes", "y", "on", "t", "true"]) {
        Some(true)
    } else if is_one_of(&["0", "no", "n", "off", "f", "false"]) {
        Some(false)
    } else {
        None
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
            Some(c) => super::text::cat(&[
                "`",
                key,
                "` is a boolean filter (has any or none): NetBox ignores ",
                &shown,
                " and returns every object. For the number of them use `",
                c,
                "`.",
            ]),
            None => super::text::cat(&[
                "`",
                key,
                "` is a boolean filter: NetBox ignores ",
                &shown,
                " and returns every object. Use `true` or `false`.",
            ]),
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
        let title = if b {
            "Replace with `true`"
        } else {
            "Replace with `false`"
        };
        f = f.with_fix(title, r, new, true);
    }
    Some(f)
}

/// The `<x>_count` number filter beside a "Has <x>s" boolean filter `<x>s` (`interfaces` →
/// `interface_count`, `console_ports` → `console_port_count`): NetBox's device and device
/// type filtersets declare both for each component (`dcim/filtersets.py` 4.3.3–4.6.8,
/// `BooleanFilter(label='Has interfaces')` and `MultiValueNumberFilter()`).
pub(super) fn count_of_has_filter(view: &View, key: &str) -> Option<String> {
    let p = view.param(key)?;
    let has = p.kind == ValueKind::Boolean
        && p.description
            .as_deref()
            .is_some_and(|d| d.starts_with("Has "));
    if !has {
        return None;
    }
    // Probed from the stack; a string made only for the filter found.
    super::text::with_joined(&[key.strip_suffix('s')?, "_count"], |count| {
        view.param(count)
            .is_some_and(|c| c.kind == ValueKind::Integer)
            .then(|| count.to_string())
    })
}
