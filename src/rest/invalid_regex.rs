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
    let err = error_text(text, &clear)?;
    let (_, what) = clear.iter().find(|(c, _)| err.contains(*c))?;
    Some(finding(
        r,
        "invalid-regex",
        format!(
            "`{key}` gets an invalid regular expression ({what}): PostgreSQL refuses it and NetBox {version} answers HTTP 500."
        ),
    ))
}

/// The text of `regex::Regex::new(text)`'s error, when the phrases of `clear` may be in it;
/// `None` when it is surely none of them (the pattern compiles, or fails for another reason
/// and its text names none). The clear errors are all the parser's: a pattern with none of
/// `[ ( ) * + ? {` and none of the phrases in its own text (the error text quotes the pattern)
/// cannot give one; a pattern that parses gives none unless its text holds a phrase. Compiling
/// every `__regex` value was ~15,000 instructions a value.
fn error_text(text: &str, clear: &[(&str, &str)]) -> Option<String> {
    let quoted = || clear.iter().any(|(c, _)| text.contains(*c));
    let special = text
        .bytes()
        .any(|b| matches!(b, b'[' | b'(' | b')' | b'*' | b'+' | b'?' | b'{'));
    if !special && !quoted() {
        return None;
    }
    // `Regex::new` parses with the syntax defaults (nest limit 250, no octal, no `x` flag):
    // a parse error is its error, as the same text.
    match regex_syntax::ast::parse::Parser::new().parse(text) {
        Err(e) => Some(e.to_string()),
        Ok(_) if !quoted() => None,
        Ok(_) => regex::Regex::new(text).err().map(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`error_text`] finds a clear phrase exactly when `Regex::new`'s error text has one.
    #[test]
    fn error_text_is_regex_new() {
        let clear = [
            ("unclosed character class", ""),
            ("unclosed group", ""),
            ("unopened group", ""),
            ("repetition operator missing expression", ""),
            ("invalid repetition count range", ""),
        ];
        let patterns = [
            "",
            "a",
            "edge",
            "dc1",
            "[",
            "]",
            "(",
            ")",
            "*a",
            "a*",
            "+",
            "?",
            "a{2,1}",
            "a{1,2}",
            "{",
            "}",
            "a{",
            "\\",
            "\\d",
            "(?x)[",
            "(?i)ab",
            "[a-",
            "[]",
            "[^]",
            "a**",
            "(a|b",
            "a|*",
            "unclosed group",
            "unclosed group\\p{Nope}",
            "\\p{Nope}",
            "x{99999999}",
            "(?P<n>a)(?P<n>b)",
            "a{,2}",
            "(?",
            "(?<",
            "é(",
            "[[:alpha:]",
            "[a-z&&[",
            "a{2}{3}",
            "(?:",
            "a++",
            "^*",
            "$+",
            "\\b*",
        ];
        for p in patterns {
            let want = regex::Regex::new(p)
                .err()
                .map(|e| e.to_string())
                .and_then(|e| clear.iter().find(|(c, _)| e.contains(*c)).map(|c| c.0));
            let got = super::error_text(p, &clear)
                .and_then(|e| clear.iter().find(|(c, _)| e.contains(*c)).map(|c| c.0));
            assert_eq!(got, want, "{p:?}");
        }
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
