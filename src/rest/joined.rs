//! Values joined into one string by the host (`comma-list`, or `unsupported-lookup` for an
//! `__in` key).

use super::endpoint::View;
use super::finding_sev;
use crate::extract::FilterEntry;
use crate::finding::{Finding, Severity};
use crate::index::ValueKind;
use std::ops::Range;

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
