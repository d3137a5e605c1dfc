//! What a call's client puts on the wire for each filter value (ARCHITECTURE.md "Wire encoding
//! depends on the client"), so that a live check sends what the call would send:
//!
//! - pynetbox (`requests`): a list is repeated keys, `None` is `null`, `True` is `True`;
//! - the MCP tools (`httpx`, and code mode): a list is repeated keys, `None` is sent empty
//!   (`key=`), `true` is `true`;
//! - a URL's query string, nb_lookup's `api_filter` and nb_inventory's entries: strings as
//!   written.
//!
//! An empty list sends nothing. A value that is not a literal (a variable, a call, a
//! placeholder such as `<site>`), or a mapping, makes the call not checkable.

use crate::extract::{CallForm, Value};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Characters left as they are in a query key or value: RFC 3986 unreserved.
const QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The strings sent for `value` by the client of `form`, one per repeated key; `None` when the
/// value is not known (not a literal, a mapping, a nested list).
pub fn values(form: CallForm, value: &Value) -> Option<Vec<String>> {
    match value {
        Value::List(items) => items
            .iter()
            .map(|(v, _)| scalar(form, v))
            .collect::<Option<Vec<_>>>(),
        v => scalar(form, v).map(|s| vec![s]),
    }
}

fn scalar(form: CallForm, value: &Value) -> Option<String> {
    let pynetbox = form == CallForm::Pynetbox;
    Some(match value {
        Value::Str(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => {
            if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
                // Python's and JSON's `2.0` stay `2.0` on the wire.
                format!("{f:.1}")
            } else {
                f.to_string()
            }
        }
        Value::Bool(b) => match (pynetbox, b) {
            (true, true) => "True".into(),
            (true, false) => "False".into(),
            (false, true) => "true".into(),
            (false, false) => "false".into(),
        },
        Value::Null if pynetbox => "null".into(),
        Value::Null => String::new(),
        Value::List(_) | Value::Map | Value::Expr | Value::Joined(_) => return None,
    })
}

/// `k=v&k=w` from pairs, percent-encoded.
pub fn query(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                utf8_percent_encode(k, QUERY),
                utf8_percent_encode(v, QUERY)
            )
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// `k=v&k=w` for messages: not encoded, as a user writes it.
pub fn shown(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_encodes_its_way() {
        let list = Value::List(vec![(Value::Int(1), 0..1), (Value::Int(2), 0..1)]);
        assert_eq!(
            values(CallForm::Pynetbox, &list),
            Some(vec!["1".into(), "2".into()])
        );
        assert_eq!(
            values(CallForm::Pynetbox, &Value::Null),
            Some(vec!["null".into()])
        );
        assert_eq!(
            values(CallForm::GetObjects, &Value::Null),
            Some(vec![String::new()])
        );
        assert_eq!(
            values(CallForm::Pynetbox, &Value::Bool(true)),
            Some(vec!["True".into()])
        );
        assert_eq!(
            values(CallForm::GetObjects, &Value::Bool(true)),
            Some(vec!["true".into()])
        );
        assert_eq!(
            values(CallForm::GetObjects, &Value::List(vec![])),
            Some(vec![])
        );
        assert_eq!(values(CallForm::Url, &Value::Expr), None);
        assert_eq!(values(CallForm::Url, &Value::Map), None);
        assert_eq!(
            values(CallForm::GetObjects, &Value::Float(2.0)),
            Some(vec!["2.0".into()])
        );
        let pairs = vec![
            ("name".to_string(), "core 1&2".to_string()),
            ("parent".to_string(), "10.0.0.0/8".to_string()),
        ];
        assert_eq!(query(&pairs), "name=core%201%262&parent=10.0.0.0%2F8");
        assert_eq!(shown(&pairs), "name=core 1&2&parent=10.0.0.0/8");
    }
}
