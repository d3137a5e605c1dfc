//! `invalid-value` / `invalid-choice` for `null` on a filter that has no null selector.

use super::endpoint::View;
use super::finding;
use super::nullable::{self, Refusal};
use crate::finding::Finding;
use crate::index::{Parameter, ValueKind};
use std::ops::Range;

/// `invalid-value` for `null` where it is no null selector (see [`nullable`]): a choice filter
/// declared with `null_value=None` or a number filter answers HTTP 400.
pub(super) fn null_refused(
    view: &View,
    key: &str,
    param: &Parameter,
    r: Range<usize>,
) -> Option<Finding> {
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
