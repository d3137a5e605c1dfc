//! What a finding's code means and how to fix it, from the code catalogue
//! ([`crate::catalogue`]: the one place these facts live, also behind docs/diagnostics.md and
//! SARIF's rule help), for the MCP tool `explain`.

use serde_json::{json, Value};

/// The catalogue entry of `code` as JSON: `{"code", "severity", "title", "help", "when",
/// "wrong", "right"}` (`when`: when the severity differs from the default; `wrong` / `right`:
/// the first worked example of each kind, with its host and release). `Err` names the closest
/// known code when `code` is unknown.
pub fn explain(code: &str) -> Result<Value, String> {
    let code = code.trim();
    let Some(c) = crate::catalogue::get(code) else {
        return Err(crate::config::unknown_code_warning(code)
            .unwrap_or_else(|| format!("unknown code `{code}`")));
    };
    let example = |wrong: bool| {
        c.examples
            .iter()
            .find(|e| e.wrong == wrong)
            .map(|e| json!({"host": e.host, "release": e.release, "input": e.input}))
    };
    let mut v = json!({
        "code": c.code,
        "severity": c.severity.as_str(),
        "title": c.title,
        "help": c.help,
    });
    if let Some(o) = v.as_object_mut() {
        if !c.severity_note.is_empty() {
            o.insert("when".into(), Value::String(c.severity_note.into()));
        }
        if let Some(e) = example(true) {
            o.insert("wrong".into(), e);
        }
        if let Some(e) = example(false) {
            o.insert("right".into(), e);
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_codes() {
        let v = explain("unknown-filter").unwrap();
        assert_eq!(v["severity"], "error");
        assert!(v["wrong"]["input"]
            .as_str()
            .unwrap()
            .contains("device_role_id"));
        let e = explain("unknown_filter").unwrap_err();
        assert!(e.contains("did you mean `unknown-filter`"), "{e}");
    }
}
