//! `invalid-value` on an `__empty` filter the schema types like its number or date field.

use super::endpoint::View;
use super::{finding, render};
use crate::extract::Value;
use crate::finding::Finding;
use crate::index::{Parameter, ValueKind};
use std::ops::Range;

/// `invalid-value` on an `__empty` filter the schema types like its number or date field
/// (`created__empty`, `speed__empty`): live, `true`/`false` is an HTTP 400 ("Enter a valid
/// date/time", "Enter a whole number") and a number or date an HTTP 500 ("The QuerySet value
/// for an isnull lookup must be True or False"). v4.6.8 sweep: dcim/interfaces
/// created__empty=true → 400, speed__empty=1 → 500; v4.3.3 sweep: speed__empty=true → 400,
/// speed__empty=0 → 500. Text-typed `__empty` fails open.
pub(super) fn typed_empty(
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
