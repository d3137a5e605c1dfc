//! `invalid-choice`: a value outside the parameter's choice set (HTTP 400 "Select a valid
//! choice"). A warning against the stock index (an instance can extend some choice sets with
//! `FIELD_CHOICES`), an error when the index was built from the instance itself. The bare key
//! and every text lookup (`__n`, `__ic`, `__isw`, `__regex`, ...) take whole choice values:
//! NetBox validates the value against the choices before it applies the lookup.

use super::endpoint::View;
use super::lookups::Key;
use super::{finding_sev, render, Ctx};
use crate::extract::FilterEntry;
use crate::finding::{Finding, Severity};
use crate::index::Parameter;
use std::ops::Range;

/// Lookups whose value NetBox validates as a whole choice, like the bare filter. Live 4.6.8:
/// `status__ic=act`, `status__ie=ACTIVE`, `status__n=xyz` → 400 "Select a valid choice"; the
/// sweeps (4.3.3, 4.6.8) show the same for `__isw`, `__iew`, `__regex`, `__iregex`
/// (`role__regex=zz-no-such` on ip-addresses → 400). `__empty` takes a boolean. Only for
/// declared (multi-value) choice filters: see [`check`].
const CHOICE_LOOKUPS: &[&str] = &[
    "n", "ic", "nic", "isw", "nisw", "iew", "niew", "ie", "nie", "regex", "iregex",
];

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

/// The choice set (its number in the index's `choice_sets`) that [`check`] holds values of
/// filter `key` (`parsed`, of parameter `param`; `own` as there) to; `None` when it holds them
/// to none and so reports no value.
pub(crate) fn set_of(
    view: &View,
    key: &str,
    parsed: &Key,
    param: &Parameter,
    own: bool,
) -> Option<u32> {
    let lookup = parsed.lookup();
    if super::lookups::has_dunder(key) && !lookup.is_some_and(|l| CHOICE_LOOKUPS.contains(&l)) {
        return None;
    }
    // The lookup parameters carry no enum in the schema; NetBox validates them against the
    // filter's own choices.
    // Past the test above a key without a lookup has no `__`: it is its own base, whose
    // parameter is `param`.
    let own = match param.choices {
        Some(_) => param,
        None if own && lookup.is_none() => return None,
        None => view.param(parsed.base())?,
    };
    // Only a declared `MultipleChoiceFilter` (schema: an array) validates its lookups; the
    // single-valued filters NetBox generates from a model field (`cable_end`, `face`,
    // `length_unit`) have plain text lookups (v4.6.8 sweep: `face__ic=zz-no-such` honoured).
    if lookup.is_some() && lookup != Some("n") && !own.multi {
        return None;
    }
    own.choices
}

/// Checks `text` (the wire text of one value) against the choice set of `param`; `parsed` is
/// the entry's key parsed; `own`: `param` is `view`'s parameter of that key.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    parsed: &Key,
    param: &Parameter,
    own: bool,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let lookup = parsed.lookup();
    let set = view
        .index
        .choice_sets
        .get(set_of(view, key, parsed, param, own)? as usize)?;
    if set.choices.is_empty() || text == "null" || set.choices.iter().any(|(v, _)| v == text) {
        return None;
    }
    let severity = if view.index.from_instance {
        Severity::Error
    } else {
        Severity::Warning
    };
    let fix = best_value(&set.choices, text);
    let mut msg = format!(
        "`{text}` is not a choice of `{key}` in NetBox {}: NetBox answers HTTP 400.",
        view.version()
    );
    if lookup.is_some_and(|l| l != "n") {
        msg.push_str(" The lookup does not match parts of values: NetBox checks the value against the choices first.");
    }
    match &fix {
        Some(v) => msg.push_str(&format!(" Use `{v}`.")),
        None => {
            // "a, b, c" (the first twelve values, then ", ...").
            msg.push_str(" Choices: ");
            for (i, (v, _)) in set.choices.iter().take(12).enumerate() {
                if i > 0 {
                    msg.push_str(", ");
                }
                msg.push_str(v);
            }
            if set.choices.len() > 12 {
                msg.push_str(", ...");
            }
            msg.push('.');
        }
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
    // The one choice `pred` holds for (no list of hits made).
    let unique = |pred: &dyn Fn(&(String, String)) -> bool| -> Option<String> {
        let mut hits = choices.iter().filter(|c| pred(c));
        let (v, _) = hits.next()?;
        hits.next().is_none().then(|| v.clone())
    };
    if let Some(v) = unique(&|(v, _)| lower_eq(v, &lower)) {
        return Some(v);
    }
    if let Some(v) = unique(&|(_, l)| lower_eq(l, &lower)) {
        return Some(v);
    }
    let slug: String = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    // `v.replace('_', "-") == slug` without a string per choice.
    let dashed_eq = |v: &str| {
        v.len() == slug.len()
            && v.bytes()
                .zip(slug.bytes())
                .all(|(a, b)| if a == b'_' { b == b'-' } else { a == b })
    };
    if let Some(v) = unique(&|(v, _)| *v == slug || dashed_eq(v)) {
        return Some(v);
    }
    let verb = VERBS.iter().find(|(w, _)| *w == lower).map(|(_, v)| *v)?;
    unique(&|(v, _)| v == verb)
}

/// `s.to_lowercase() == lower`, without lowercasing into a new string for an ASCII `s` (a
/// choice value or label; one allocation per choice was most of a wrong choice's check).
fn lower_eq(s: &str, lower: &str) -> bool {
    if s.is_ascii() {
        s.len() == lower.len()
            && s.bytes()
                .zip(lower.bytes())
                .all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        s.to_lowercase() == lower
    }
}

/// Up to three values close to `text` (Jaro-Winkler ≥ 0.8 on value or label).
fn similar(choices: &[(String, String)], text: &str) -> Vec<String> {
    let t = text.to_lowercase();
    // A choice that cannot reach 0.8 is not scored (`near::Bound`): it is filtered out
    // whatever its exact score.
    let bound = super::near::Bound::new(&t);
    // strsim's number on the lowercased texts; for ASCII ones lowercased on the stack and
    // scored on bytes (a `to_lowercase` and strsim's allocation per choice made this 37,000
    // instructions a value).
    let score = |s: &str| {
        if s.len() <= 64
            && bound
                .as_ref()
                .is_some_and(|b| !b.may_reach(s.as_bytes(), true, 0.8))
        {
            return 0.0;
        }
        let mut buf = [0u8; 64];
        match buf.get_mut(..s.len()) {
            Some(low) if s.is_ascii() && t.is_ascii() => {
                low.copy_from_slice(s.as_bytes());
                low.make_ascii_lowercase();
                super::suggest::jaro_winkler_bytes(t.as_bytes(), low, 0.79)
            }
            _ => strsim::jaro_winkler(&t, &s.to_lowercase()),
        }
    };
    let mut scored: Vec<(f64, &String)> = choices
        .iter()
        // A label that is the value but for ASCII case (`Active`, `active`) scores the same
        // (both are lower-cased first): scored once.
        .map(|(v, l)| {
            let s = if l.eq_ignore_ascii_case(v) {
                score(v)
            } else {
                score(v).max(score(l))
            };
            (s, v)
        })
        .filter(|(s, _)| *s >= 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, v)| v.clone()).collect()
}

#[cfg(test)]
mod lower_tests {
    /// `lower_eq` answers as comparing `to_lowercase()` texts.
    #[test]
    fn lower_eq_is_to_lowercase() {
        let words = [
            "",
            "a",
            "A",
            "active",
            "Active",
            "ACTIVE",
            "activ",
            "Access Switch",
            "access switch",
            "İ",
            "i̇",
            "ß",
            "SS",
            "Straße",
            "é",
            "É",
            "k",
            "\u{212a}",
            "dcim.device",
        ];
        for s in words {
            for t in words {
                let lower = t.to_lowercase();
                assert_eq!(
                    super::lower_eq(s, &lower),
                    s.to_lowercase() == lower,
                    "{s:?} {t:?}"
                );
            }
        }
    }
}
