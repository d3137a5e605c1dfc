//! `invalid-choice`: a value outside the parameter's choice set (HTTP 400 "Select a valid
//! choice"). A warning against the stock index (an instance can extend some choice sets with
//! `FIELD_CHOICES`), an error when the index was built from the instance itself. Only the bare
//! key and `__n` take whole choice values; `__ic`, `__isw`, ... take fragments.

use super::endpoint::View;
use super::{finding_sev, render, Ctx};
use crate::extract::FilterEntry;
use crate::finding::{Finding, Severity};
use crate::index::Parameter;
use std::ops::Range;

/// Past-tense and other verbs agents write for change-log actions (the labels are
/// "Created", "Updated", "Deleted"; values `create`, `update`, `delete`).
const VERBS: &[(&str, &str)] = &[
    ("created", "create"),
    ("added", "create"),
    ("updated", "update"),
    ("modified", "update"),
    ("changed", "update"),
    ("deleted", "delete"),
    ("removed", "delete"),
];

/// Checks `text` (the wire text of one value) against the choice set of `param`.
pub(crate) fn check(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let key = entry.key.as_str();
    if key.contains("__") && !key.ends_with("__n") {
        return None;
    }
    let set = view.index.choices(param)?;
    if set.choices.is_empty() || text == "null" || set.choices.iter().any(|(v, _)| v == text) {
        return None;
    }
    let severity = if view.index.from_instance {
        Severity::Error
    } else {
        Severity::Warning
    };
    let fix = best_value(&set.choices, text);
    let values: Vec<&str> = set.choices.iter().map(|(v, _)| v.as_str()).collect();
    let shown: String = if values.len() > 12 {
        format!("{}, ...", values[..12].join(", "))
    } else {
        values.join(", ")
    };
    let mut msg = format!(
        "`{text}` is not a choice of `{key}` in NetBox {}: NetBox answers HTTP 400.",
        view.version()
    );
    match &fix {
        Some(v) => msg.push_str(&format!(" Use `{v}`.")),
        None => msg.push_str(&format!(" Choices: {shown}.")),
    }
    if !view.index.from_instance {
        msg.push_str(" (Stock choices; an instance can add its own.)");
    }
    let mut f = finding_sev(r.clone(), "invalid-choice", severity, msg);
    if let Some(v) = fix {
        let new = render::string(&v, ctx.syntax());
        f = f.with_fix(format!("Replace with `{v}`"), r, new, true);
    } else {
        for v in similar(&set.choices, text) {
            let new = render::string(&v, ctx.syntax());
            f = f.with_fix(format!("Replace with `{v}`"), r.clone(), new, false);
        }
    }
    Some(f)
}

/// The one value `text` surely means: same value ignoring case, a label (ignoring case), the
/// label slugified (`Access Switch` → `access-switch`), or a known verb.
fn best_value(choices: &[(String, String)], text: &str) -> Option<String> {
    let lower = text.trim().to_lowercase();
    let unique = |pred: &dyn Fn(&(String, String)) -> bool| -> Option<String> {
        let hits: Vec<&String> = choices.iter().filter(|c| pred(c)).map(|(v, _)| v).collect();
        (hits.len() == 1).then(|| hits[0].clone())
    };
    if let Some(v) = unique(&|(v, _)| v.to_lowercase() == lower) {
        return Some(v);
    }
    if let Some(v) = unique(&|(_, l)| l.to_lowercase() == lower) {
        return Some(v);
    }
    let slug: String = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if let Some(v) = unique(&|(v, _)| *v == slug || v.replace('_', "-") == slug) {
        return Some(v);
    }
    let verb = VERBS.iter().find(|(w, _)| *w == lower).map(|(_, v)| *v)?;
    unique(&|(v, _)| v == verb)
}

/// Up to three values close to `text` (Jaro-Winkler ≥ 0.8 on value or label).
fn similar(choices: &[(String, String)], text: &str) -> Vec<String> {
    let t = text.to_lowercase();
    let mut scored: Vec<(f64, &String)> = choices
        .iter()
        .map(|(v, l)| {
            let s = strsim::jaro_winkler(&t, &v.to_lowercase())
                .max(strsim::jaro_winkler(&t, &l.to_lowercase()));
            (s, v)
        })
        .filter(|(s, _)| *s >= 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, v)| v.clone()).collect()
}
