//! Writes values in the host's syntax so a fix can be applied as is: `"null"` in Python, JSON
//! and YAML (a bare YAML `null` would be a null again), `null` in a query string; `True` in
//! Python, `true` elsewhere; lists as `[a, b]`, or repeated keys in a query string.

use crate::extract::{Syntax, Value};
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};

/// Characters that must be escaped inside a query-string value or key.
const QUERY: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'&')
    .add(b'=')
    .add(b'#')
    .add(b'+')
    .add(b'%')
    .add(b'"');

/// A string literal: quoted (JSON escapes, valid in Python and YAML) or percent-encoded.
pub(crate) fn string(s: &str, syntax: Syntax) -> String {
    match syntax {
        Syntax::Query => utf8_percent_encode(s, QUERY).to_string(),
        // Ansible `parse_kv` reads a word as is; a value with blanks or quotes goes in quotes.
        Syntax::ApiFilter
            if !s.is_empty()
                && !s.contains(char::is_whitespace)
                && !s.contains(['"', '\'', '\\']) =>
        {
            s.to_string()
        }
        _ => serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\"")),
    }
}

/// The null selector as a string value: [`string`] of `null`, written without its encoders.
pub(crate) fn null_string(syntax: Syntax) -> String {
    match syntax {
        // Nothing to percent-encode; an Ansible word as is.
        Syntax::Query | Syntax::ApiFilter => "null",
        _ => "\"null\"",
    }
    .to_string()
}

/// A boolean literal.
pub(crate) fn boolean(b: bool, syntax: Syntax) -> String {
    match (syntax, b) {
        (Syntax::Python, true) => "True".into(),
        (Syntax::Python, false) => "False".into(),
        (_, true) => "true".into(),
        (_, false) => "false".into(),
    }
}

/// One scalar token: numbers bare (outside a query string they stay numbers), other text quoted.
pub(crate) fn token(s: &str, numeric: bool, syntax: Syntax) -> String {
    if numeric && s.parse::<f64>().is_ok() {
        s.to_string()
    } else {
        string(s, syntax)
    }
}

/// A list literal of already rendered items (`[1, 2]`); not for query strings.
pub(crate) fn list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

/// Repeated pairs in a pair syntax ([`Syntax::is_pairs`]): `k=v1&k=v2` in a query string,
/// `k=v1 k=v2` in an Ansible `api_filter`.
pub(crate) fn pairs(key: &str, values: &[String], syntax: Syntax) -> String {
    if syntax != Syntax::ApiFilter {
        return query_pairs(key, values);
    }
    values
        .iter()
        .map(|v| format!("{key}={}", string(v, syntax)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Repeated query pairs: `k=v1&k=v2`.
pub(crate) fn query_pairs(key: &str, values: &[String]) -> String {
    let k = string(key, Syntax::Query);
    values
        .iter()
        .map(|v| format!("{k}={}", string(v, Syntax::Query)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A value as text for messages (`"Active"`, `1`, `None`), short.
pub(crate) fn describe(v: &Value, syntax: Syntax) -> String {
    let s = match v {
        Value::Str(s) => match syntax {
            Syntax::Query | Syntax::ApiFilter => s.to_string(),
            _ => string(s, syntax),
        },
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Bool(b) => boolean(*b, syntax),
        Value::Null => match syntax {
            Syntax::Python => "None".into(),
            _ => "null".into(),
        },
        Value::List(items) if items.is_empty() => "[]".into(),
        Value::List(_) => "a list".into(),
        Value::Map => "a mapping".into(),
        Value::Expr => "an expression".into(),
        Value::Joined(j) => format!("values joined by `{}`", j.separator),
    };
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// The text NetBox receives for a scalar, as the wire encoding writes it; `None` for values
/// that are not scalars or not literals. A string is borrowed (no copy per filter value).
pub(crate) fn wire_text(v: &Value) -> Option<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    Some(match v {
        Value::Str(s) => Cow::Borrowed(s.as_str()),
        Value::Int(i) => Cow::Owned(itoa::Buffer::new().format(*i).to_string()),
        Value::Float(f) => Cow::Owned(f.to_string()),
        Value::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Value::Null => Cow::Borrowed("null"),
        _ => return None,
    })
}

/// [`wire_text`] with an integer's digits written into `digits` (no allocation but for a
/// float).
pub(crate) fn wire_text_in<'a>(
    v: &'a Value,
    digits: &'a mut itoa::Buffer,
) -> Option<std::borrow::Cow<'a, str>> {
    use std::borrow::Cow;
    Some(match v {
        Value::Int(i) => Cow::Borrowed(digits.format(*i)),
        _ => return wire_text(v),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_per_syntax() {
        assert_eq!(null_string(Syntax::Python), "\"null\"");
        assert_eq!(null_string(Syntax::Yaml), "\"null\"");
        assert_eq!(null_string(Syntax::Query), "null");
        for syntax in [
            Syntax::Python,
            Syntax::Json,
            Syntax::JsonInString,
            Syntax::Yaml,
            Syntax::Query,
            Syntax::ApiFilter,
        ] {
            assert_eq!(null_string(syntax), string("null", syntax));
        }
        assert_eq!(boolean(true, Syntax::Python), "True");
        assert_eq!(boolean(false, Syntax::Json), "false");
        assert_eq!(token("21", true, Syntax::Json), "21");
        assert_eq!(token("x", true, Syntax::Json), "\"x\"");
        assert_eq!(
            query_pairs("site_id", &["21".into(), "7".into()]),
            "site_id=21&site_id=7"
        );
        assert_eq!(string("Main Office", Syntax::Query), "Main%20Office");
        assert_eq!(list(&["1".into(), "2".into()]), "[1, 2]");
    }
}
