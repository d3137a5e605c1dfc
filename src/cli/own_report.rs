//! netbox-lsp's own reports written into the tree it checks: `--format json|sarif|gitlab`
//! redirected to a file and the `--update-baseline` file quote every finding's call, so
//! checking them again would report each finding a second time, inside the report (README's
//! CI and baseline steps write them into `.`). Such a file is recognised by its content, not
//! its name, and skipped with a note, as a binary file is.

use crate::catalogue;
use serde_json::Value;

/// Which report of netbox-lsp `text` is: `"baseline"` (an object with a
/// `netbox-lsp-baseline` key), `"SARIF"` (a run whose `tool.driver.name` is `netbox-lsp`),
/// `"JSON"` (`--format json`: an array of objects with a catalogue `code` and a `message`) or
/// `"GitLab code quality"` (an array of objects with a catalogue `check_name` and a
/// `fingerprint`); `None` for anything else, including text that is not JSON. Linear in the
/// text's length (one parse, only of text that starts as JSON and names a key above).
pub fn kind(text: &str) -> Option<&'static str> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if !t.starts_with(['{', '[']) {
        return None;
    }
    let named = ["\"netbox-lsp", "\"code\"", "\"check_name\""];
    if !named.iter().any(|k| t.contains(k)) {
        return None;
    }
    let v: Value = serde_json::from_str(t).ok()?;
    match &v {
        Value::Object(o) if o.contains_key("netbox-lsp-baseline") => Some("baseline"),
        Value::Object(o) => o
            .get("runs")?
            .as_array()?
            .iter()
            .any(|r| r.pointer("/tool/driver/name").and_then(Value::as_str) == Some("netbox-lsp"))
            .then_some("SARIF"),
        Value::Array(items) if !items.is_empty() => {
            let all = |key: &str, other: &str| {
                items.iter().all(|i| {
                    i.get(key)
                        .and_then(Value::as_str)
                        .is_some_and(|c| catalogue::get(c).is_some())
                        && i.get(other).is_some()
                })
            };
            if all("code", "message") {
                Some("JSON")
            } else if all("check_name", "fingerprint") {
                Some("GitLab code quality")
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::kind;

    #[test]
    fn each_report_is_known_and_look_alikes_are_not() {
        let baseline = r#"{"netbox-lsp-baseline": 1, "findings": [{"path": "a.md", "code": "unknown-filter", "at": "x", "call": "/api/dcim/devices/?x=1", "count": 1}]}"#;
        let sarif = r#"{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": [{"tool": {"driver": {"name": "netbox-lsp"}}, "results": []}], "version": "2.1.0"}"#;
        let json = r#"[{"code": "unknown-filter", "message": "`device_role_id` is not a filter on /api/dcim/devices/"}]"#;
        let gitlab = r#"[{"check_name": "unknown-endpoint", "fingerprint": "ab", "description": "/api/dcim/device-rolez/"}]"#;
        assert_eq!(kind(baseline), Some("baseline"));
        assert_eq!(kind(&format!("\u{feff}\n {sarif}")), Some("SARIF"));
        assert_eq!(kind(json), Some("JSON"));
        assert_eq!(kind(gitlab), Some("GitLab code quality"));
        // Quiet twins: another tool's SARIF, tool calls with a `code` that is no catalogue
        // code, an empty array, a document that is not JSON, a JSON Lines file.
        let other = sarif.replace("\"netbox-lsp\"", "\"ruff\"");
        assert_eq!(kind(&other), None);
        let calls = r#"[{"code": "x", "message": "hi", "endpoint": "/api/dcim/devices/", "filters": {"role_id": 1}}]"#;
        assert_eq!(kind(calls), None);
        assert_eq!(kind("[]"), None);
        assert_eq!(kind("# /api/dcim/devices/?code=1"), None);
        assert_eq!(kind(&format!("{json}\n{json}")), None);
        // A mixed array (one element not a finding) is not a report.
        let mixed =
            r#"[{"code": "unknown-filter", "message": "m"}, {"endpoint": "/api/dcim/sites/"}]"#;
        assert_eq!(kind(mixed), None);
    }
}
