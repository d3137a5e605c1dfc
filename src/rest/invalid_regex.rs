//! `invalid-regex`: a regular expression PostgreSQL refuses.

use super::finding;
use crate::finding::Finding;
use std::ops::Range;

/// `invalid-regex`: the pattern reaches the database (PostgreSQL) and an invalid one is an
/// HTTP 500 (v4.6.8 sweep: `name__regex=[` on interface templates, `name__iregex=(` and
/// `name__regex=*a` on devices → 500; 4.3.3 has no regex lookups). Only clear errors are
/// flagged, since PostgreSQL regex syntax differs from Rust's: unbalanced brackets and
/// parentheses, a repetition with nothing to repeat, a repetition range whose start is past
/// its end (`a{2,1}`).
pub(super) fn invalid_regex(
    version: &str,
    key: &str,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
