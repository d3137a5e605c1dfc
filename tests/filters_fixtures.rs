//! `filters::check_filters` (the Python API's `Checker.check_call`) on every REST call of the
//! REST check cases (`tests/fixtures/rest/*.txt`): each call's target and filters, taken out of
//! its host snippet, go through `check_filters` as an agent would pass them as data.
//!
//! Checked for every call: the canonical text is the target and a JSON object of the filters;
//! every finding's range lies in that text and every fix edit in the target, a key or a value;
//! the codes are those `rest::check_call` gives for the same call written as a JSON tool call
//! of the same form without its other arguments; with no error or warning, `corrected()` gives every filter back as given.
//!
//! `FILTERS_DUMP=<file>` also writes every finding in full (code, severity, message, range,
//! fixes, corrected filters) to `<file>`, to compare two builds (a speed change must not change
//! one finding); `FILTERS_CALLS=<file>` writes the calls as JSON (`[[version, target, [[key,
//! value], ...]], ...]`, those a Python dict can hold) for the same comparison through the
//! Python API (`python/tests/dump_calls.py`).

use netbox_lsp::analysis::Knowledge;
use netbox_lsp::extract::{self, CallForm, HostKind, RestCall, Site, Syntax, Value};
use netbox_lsp::filters::{check_filters, NewValue};
use netbox_lsp::finding::Severity;
use netbox_lsp::index::embedded;
use std::fmt::Write;
use std::path::Path;

/// `(case name, version, host kind, snippet)` of every case, files in name order.
fn cases() -> Vec<(String, String, HostKind, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rest");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/rest")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let t = std::fs::read_to_string(&p).expect("case file");
        let first = t.find("\n### ").map_or(t.len(), |i| i + 1);
        for block in format!("\n{}", &t[first..]).split("\n### ").skip(1) {
            let (head, body) = block.split_once("\n---\n").expect("`---` after the header");
            let mut lines = head.lines();
            let name = lines.next().unwrap_or_default().to_string();
            let (mut version, mut kind) = (String::new(), HostKind::Text);
            for l in lines {
                match l.split_once(':') {
                    Some(("version", v)) => version = v.trim().to_string(),
                    Some(("kind", v)) => {
                        kind = HostKind::from_path(Path::new(&format!("x.{}", v.trim())))
                            .expect("kind")
                    }
                    _ => {}
                }
            }
            out.push((
                name,
                version,
                kind,
                body.trim_end_matches('\n').to_string() + "\n",
            ));
        }
    }
    out
}

/// The value as the Python binding gives it: list element ranges are not the caller's.
fn as_data(v: &Value) -> Value {
    match v {
        Value::List(items) => Value::List(items.iter().map(|(v, _)| (as_data(v), 0..0)).collect()),
        v => v.clone(),
    }
}

/// The value as JSON, when it is data (not an expression).
fn as_json(v: &Value) -> Option<serde_json::Value> {
    use serde_json::Value as J;
    Some(match v {
        Value::Str(s) => J::String(s.to_string()),
        Value::Int(i) => J::from(*i),
        Value::Float(f) => J::from(serde_json::Number::from_f64(*f)?),
        Value::Bool(b) => J::Bool(*b),
        Value::Null => J::Null,
        Value::List(items) => J::Array(
            items
                .iter()
                .map(|(v, _)| as_json(v))
                .collect::<Option<_>>()?,
        ),
        Value::Map => J::Object(Default::default()),
        Value::Expr | Value::Joined(_) => return None,
    })
}

/// Odd values the cases have few of, as JSON tool calls (NetBox 4.6.8).
const MORE: &[&str] = &[
    r#"{"object_type": "dcim.device", "filters": {"role_id": null, "status": ["active", "Planned"], "site": "", "tag": [], "name__ic": "x", "serial": 12, "has_primary_ip": "yes", "latitude": "abc", "created__gte": "2024-13", "cf_x": 1, "q": null, "limit": 5}}"#,
    r#"{"object_type": "ipam.prefix", "filters": {"within": "10.0.0.0/8", "prefix": "10", "family": 4, "mask_length__gte": "x", "vlan_id": 1.5, "vrf_id": true, "status__n": "container"}}"#,
    r#"{"object_type": "dcim.interface", "filters": {"device_id__in": [1, 2], "type": "1000base-t", "enabled": "True", "speed": "1G", "name": "é\"\\\n", "mac_address": 5, "device": "sw-1", "vlan_id": "null"}}"#,
    r#"{"object_type": "/api/dcim/devices/", "filters": {"tenant": {"a": 1}, "id": [1, [2, 3]], "site_id": -1, "id__gt": 1e3, "tenant_id__n": null, "tag": ["a", "b"]}}"#,
    r#"{"object_type": "ipam.ip_addresses", "filters": {"address": "10.0.0.1", "parent": "10.0.0.0/8"}}"#,
    r#"{"object_type": "/api/ipam/ip-address/", "filters": {"vrf": "x"}}"#,
    r#"{"object_type": "dcim.devices", "filters": {"site_id": 1, "device_role": "leaf", "région": 1}}"#,
    r#"{"object_type": "dcim.cable", "filters": {"termination_a_type": "dcim.interface", "termination_b_type__n": "dcim.frontport", "status": "connected", "length__gte": "2m"}}"#,
];

/// Every REST call of the cases, then [`MORE`]; also each filter of them alone.
fn calls_of_cases() -> Vec<(String, String, RestCall)> {
    let mut out = Vec::new();
    for (name, version, kind, text) in cases() {
        for site in extract::extract(&text, kind).sites {
            if let Site::Rest(call) = site {
                out.push((name.clone(), version.clone(), call));
            }
        }
    }
    for (i, args) in MORE.iter().enumerate() {
        let text = format!(r#"{{"name": "netbox_get_objects", "arguments": {args}}}"#);
        // The tool call, not the bare path its `object_type` string also reads as (the
        // analysis counts that one once, as the call's target).
        let calls: Vec<RestCall> = extract::extract(&text, HostKind::Json)
            .sites
            .into_iter()
            .filter_map(|s| match s {
                Site::Rest(c) if !c.filters.is_empty() => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 1, "{text}");
        for call in calls {
            out.push((format!("more {i}"), "4.6.8".to_string(), call));
        }
    }
    let alone: Vec<_> = out
        .iter()
        .filter(|(_, _, c)| c.filters.len() > 1)
        .flat_map(|(name, version, call)| {
            call.filters.iter().map(move |e| {
                let mut one = call.clone();
                one.filters = vec![e.clone()];
                (format!("{name} / {}", e.key), version.clone(), one)
            })
        })
        .collect();
    out.extend(alone);
    out
}

#[test]
fn check_filters_on_every_fixture_call() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let mut dump = String::new();
    let mut json_calls = Vec::new();
    let mut calls = 0;
    let mut compared = 0;
    let mut with_findings = 0;
    for (name, version, call) in calls_of_cases() {
        let Some(release) = embedded::RELEASES.iter().find(|r| r.version == version) else {
            continue;
        };
        let knowledge = Knowledge {
            index: Some(embedded::embedded_index(release.version)),
            ..Default::default()
        };
        let Some((target, _)) = &call.target else {
            continue;
        };
        // The forms check_filters stands for (an MCP object type, a REST path) are compared
        // with the REST checks; the targets of other forms are checked as given.
        let same_form = matches!(call.form, CallForm::GetObjects | CallForm::Url);
        calls += 1;
        let filters: Vec<(String, Value)> = call
            .filters
            .iter()
            .map(|e| (e.key.to_string(), as_data(&e.value)))
            .collect();
        let c = check_filters(&knowledge, target, filters.clone());
        // A repeated key (a query string's `tag=a&tag=b`) is no dict: never corrected.
        let unique = filters
            .iter()
            .enumerate()
            .all(|(i, (k, _))| filters[..i].iter().all(|(o, _)| o != k));
        // Pairs in order (a JSON object here would sort its keys); a repeated key is no dict.
        let pairs: Option<Vec<serde_json::Value>> = filters
            .iter()
            .map(|(k, v)| Some(serde_json::json!([k, as_json(v)?])))
            .collect();
        if let Some(pairs) = pairs.filter(|_| unique) {
            json_calls.push(serde_json::json!([version, target.as_str(), pairs]));
        }
        let _ = writeln!(dump, "## {name}: {target} {}", &c.text);
        // The text: the target, then the filters as a JSON object.
        let object = &c.text[c.target_range.end + 2..];
        assert!(
            serde_json::from_str::<serde_json::Value>(object).is_ok(),
            "{name}: not JSON: {object}"
        );
        assert_eq!(c.entries.len(), filters.len(), "{name}");
        for (i, (k, _)) in c.entries.iter().enumerate() {
            let key: String = serde_json::from_str(&format!("\"{}\"", &c.text[k.clone()])).unwrap();
            assert_eq!(key, filters[i].0, "{name}: key range {i}");
        }
        // The same codes as the REST checks give the call written as JSON of its form.
        let mut as_json = call.clone();
        as_json.form = if target.contains('/') {
            CallForm::Url
        } else {
            CallForm::GetObjects
        };
        as_json.syntax = Syntax::Json;
        // check_filters is given the filters alone (no `fields`, `limit`, ... arguments).
        as_json.args.clear();
        let index = knowledge.index.as_deref().unwrap();
        let want: Vec<&str> = netbox_lsp::rest::check_call(&as_json, index)
            .iter()
            .map(|f| f.code)
            .collect();
        // check_filters adds one warning for a target that resolves to no endpoint and that no
        // error or warning is about (a call about to be sent is never passed with unchecked
        // filters); rest::check_call, for files, fails open there.
        let unchecked = |f: &&netbox_lsp::finding::Finding| {
            f.message
                .contains("known here: the filters are not checked")
        };
        let flagged_target = c.findings.iter().any(|f| {
            !unchecked(&f) && f.range == c.target_range && f.severity <= Severity::Warning
        });
        assert_eq!(
            c.findings.iter().filter(unchecked).count(),
            usize::from(c.endpoint.is_none() && !filters.is_empty() && !flagged_target),
            "{name}: {}",
            c.text
        );
        let got: Vec<&str> = c
            .findings
            .iter()
            .filter(|f| !unchecked(f))
            .map(|f| f.code)
            .collect();
        if same_form {
            compared += 1;
            assert_eq!(got, want, "{name}: {}", c.text);
        }
        for f in &c.findings {
            assert!(c.text.get(f.range.clone()).is_some(), "{name}: {f:?}");
            let _ = writeln!(
                dump,
                "{}[{}] {:?} {} (filter {:?})",
                f.severity.as_str(),
                f.code,
                f.range,
                f.message,
                c.filter_of(f)
            );
            for x in &f.fixes {
                let _ = writeln!(dump, "  fix {:?} certain={}", x.title, x.certain);
                for e in &x.edits {
                    let _ = writeln!(dump, "    {:?} -> {:?}", e.range, e.new_text);
                }
            }
        }
        let blocking = c.findings.iter().any(|f| f.severity <= Severity::Warning);
        if !c.findings.is_empty() {
            with_findings += 1;
        }
        match c.corrected() {
            Some(fixed) => {
                if c.findings.is_empty() {
                    assert_eq!(fixed.target, None, "{name}");
                    assert!(fixed
                        .filters
                        .iter()
                        .enumerate()
                        .all(|(i, (j, k, v))| i == *j
                            && *k == filters[i].0
                            && *v == NewValue::Same));
                }
                let _ = writeln!(dump, "corrected {:?} {:?}", fixed.target, fixed.filters);
            }
            None => {
                assert!(
                    blocking || !unique,
                    "{name}: no correction without a blocking finding"
                );
                let _ = writeln!(dump, "corrected None");
            }
        }
    }
    println!(
        "{calls} calls ({compared} compared with the REST checks), {with_findings} with findings"
    );
    assert!(
        calls >= 400 && compared >= 300,
        "{calls} calls, {compared} compared"
    );
    assert!(with_findings >= 150, "{with_findings} calls with findings");
    if let Some(path) = std::env::var_os("FILTERS_DUMP") {
        std::fs::write(path, dump).unwrap();
    }
    if let Some(path) = std::env::var_os("FILTERS_CALLS") {
        std::fs::write(path, serde_json::to_string(&json_calls).unwrap()).unwrap();
    }
}
