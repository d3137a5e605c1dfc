//! Data-driven REST check cases (`tests/fixtures/rest/cases.txt`): each host snippet goes
//! through the real pipeline (`analyze`: extraction, then the REST checks) against the
//! embedded index of the case's NetBox version; the codes, severities and the text after the
//! certain fixes must match.

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::finding::Finding;
use netbox_lsp::index::embedded;
use std::path::Path;

use crate::knowledge_support;

struct Case {
    name: String,
    version: String,
    kind: HostKind,
    expect: Vec<String>,
    severity: Option<Vec<String>>,
    fixed: Option<String>,
    /// The codes the fixed text is re-checked to (`none`: clean), when given.
    after: Option<Vec<String>>,
    /// Texts that some finding's message must contain (one per `message:` line).
    message: Vec<String>,
    /// Texts that no finding's message may contain (one per `unlike:` line): a step that is
    /// not the right one (a filter of this object where the related one's was meant).
    unlike: Vec<String>,
    /// Where the case comes from (a public report's address), for cases restated from one.
    source: Option<String>,
    /// Check GraphQL too, against the release's embedded schema (`graphql: yes`).
    graphql: bool,
    text: String,
}

fn list(v: &str) -> Vec<String> {
    if v.trim() == "none" {
        return Vec::new();
    }
    v.split(',').map(|s| s.trim().to_string()).collect()
}

fn cases() -> Vec<Case> {
    // `cases.txt`, then every other `*.txt` beside it (one file per family of host forms).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rest");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/rest")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort_by_key(|p| (p.file_name() != Some("cases.txt".as_ref()), p.clone()));
    // Each file's records start at its first `### ` (its header comment is not a case's body).
    let text: String = files
        .iter()
        .map(|p| {
            let t = std::fs::read_to_string(p).expect("case file");
            let first = t.find("\n### ").map_or(t.len(), |i| i + 1);
            format!("\n{}", &t[first..])
        })
        .collect();
    let mut out = Vec::new();
    for block in text.split("\n### ").skip(1) {
        let (head, body) = block.split_once("\n---\n").expect("`---` after the header");
        let mut lines = head.lines();
        let name = lines.next().unwrap_or_default().to_string();
        let mut case = Case {
            name,
            version: String::new(),
            kind: HostKind::Text,
            expect: Vec::new(),
            severity: None,
            fixed: None,
            after: None,
            message: Vec::new(),
            unlike: Vec::new(),
            source: None,
            graphql: false,
            text: body.trim_end_matches('\n').to_string() + "\n",
        };
        for l in lines {
            let (k, v) = l.split_once(':').expect("key: value");
            let v = v.trim();
            match k {
                "version" => case.version = v.to_string(),
                "kind" => {
                    case.kind = HostKind::from_path(Path::new(&format!("x.{v}"))).expect("kind")
                }
                "expect" => case.expect = list(v),
                "severity" => case.severity = Some(list(v)),
                "fixed" => case.fixed = Some(v.replace("\\n", "\n") + "\n"),
                "after" => case.after = Some(list(v)),
                "message" => case.message.push(v.to_string()),
                "unlike" => case.unlike.push(v.to_string()),
                "source" => case.source = Some(v.to_string()),
                "graphql" => case.graphql = v == "yes",
                other => panic!("unknown header {other}"),
            }
        }
        out.push(case);
    }
    out
}

/// Applies every certain fix (they do not overlap in these cases).
fn apply_certain(text: &str, findings: &[Finding]) -> String {
    let mut edits: Vec<_> = findings
        .iter()
        .flat_map(|f| f.fixes.iter().filter(|x| x.certain))
        .flat_map(|x| x.edits.iter().cloned())
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut s = text.to_string();
    for e in edits {
        s.replace_range(e.range, &e.new_text);
    }
    s
}

#[test]
fn rest_cases() {
    let all = cases();
    assert!(all.len() >= 40, "{} cases", all.len());
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let mut failures = Vec::new();
    for case in &all {
        let knowledge = Knowledge {
            index: Some(knowledge_support::index(&case.version)),
            graphql: None,
            graphql_embedded: case
                .graphql
                .then(|| knowledge_support::version(&case.version)),
            ..Default::default()
        };
        let findings = analyze(&case.text, case.kind, &knowledge);
        let got: Vec<&str> = findings.iter().map(|f| f.code).collect();
        let shown: Vec<String> = findings
            .iter()
            .map(|f| format!("{}[{}] {}", f.severity.as_str(), f.code, f.message))
            .collect();
        if got != case.expect {
            failures.push(format!(
                "{}: expected {:?}, got {shown:#?}",
                case.name, case.expect
            ));
            continue;
        }
        if let Some(sev) = &case.severity {
            let got: Vec<&str> = findings.iter().map(|f| f.severity.as_str()).collect();
            if &got != sev {
                failures.push(format!(
                    "{}: severities {got:?}, expected {sev:?}",
                    case.name
                ));
            }
        }
        if let Some(fixed) = &case.fixed {
            let after = apply_certain(&case.text, &findings);
            if &after != fixed {
                failures.push(format!(
                    "{}: fixed to {after:?}, expected {fixed:?}",
                    case.name
                ));
            }
        }
        if let Some(after) = &case.after {
            let fixed = apply_certain(&case.text, &findings);
            let again: Vec<&str> = analyze(&fixed, case.kind, &knowledge)
                .iter()
                .map(|f| f.code)
                .collect();
            if &again != after {
                failures.push(format!(
                    "{}: after the certain fixes {fixed:?} re-checks to {again:?}, expected {after:?}",
                    case.name
                ));
            }
        }
        for m in &case.message {
            if !findings.iter().any(|f| f.message.contains(m.as_str())) {
                failures.push(format!(
                    "{}: no message contains {m:?}: {shown:#?}",
                    case.name
                ));
            }
        }
        for m in &case.unlike {
            if findings.iter().any(|f| f.message.contains(m.as_str())) {
                failures.push(format!(
                    "{}: a message contains {m:?}: {shown:#?}",
                    case.name
                ));
            }
        }
        for f in &findings {
            assert!(
                !f.message.is_empty() && case.text.get(f.range.clone()).is_some(),
                "{}: bad range or message",
                case.name
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The cases restated from public reports (issue 31) name their source, a public address.
#[test]
fn restated_reports_name_their_source() {
    let all = cases();
    let sourced: Vec<&Case> = all.iter().filter(|c| c.source.is_some()).collect();
    assert!(sourced.len() >= 15, "{} cases with a source", sourced.len());
    for c in sourced {
        let s = c.source.as_deref().unwrap_or_default();
        assert!(s.starts_with("https://"), "{}: source {s:?}", c.name);
    }
}

/// Every REST code of the catalogue has at least one failing case.
#[test]
fn every_code_has_a_case() {
    let all = cases();
    for code in netbox_lsp::catalogue::family(netbox_lsp::catalogue::Family::Rest) {
        assert!(
            all.iter().any(|c| c.expect.iter().any(|e| e == code.code)),
            "no failing case for {}",
            code.code
        );
    }
}

/// Every parameter of every endpoint of every shipped release, given a typical valid value of
/// its type, gives no error or warning: the hand rules must not fire on the schema's own names.
#[test]
fn typical_values_are_clean() {
    use netbox_lsp::extract::{CallForm, FilterEntry, RestCall, Syntax, Value};
    use netbox_lsp::index::ValueKind;
    let mut bad = Vec::new();
    let mut checked = 0;
    for release in embedded::RELEASES {
        let index = embedded::embedded_index(release.version);
        for (key, ep) in &index.endpoints {
            for (name, p) in &ep.params {
                // An `__empty` typed like its number or date field has no working value on
                // NetBox (live: `true` → 400, a date → 500); `invalid-value` is right for all.
                let typed_empty = name.ends_with("__empty")
                    && !matches!(p.kind, ValueKind::Boolean | ValueKind::String);
                if typed_empty {
                    continue;
                }
                let choice = index.choices(p).and_then(|c| c.choices.first().cloned());
                let value = match (p.kind, choice) {
                    (_, Some((v, _))) => v,
                    (ValueKind::Integer, _) => "1".into(),
                    (ValueKind::Number, _) => "1.5".into(),
                    (ValueKind::Boolean, _) => "true".into(),
                    (ValueKind::Date, _) => "2024-05-31".into(),
                    (ValueKind::DateTime, _) => "2024-05-31T12:00:00Z".into(),
                    (ValueKind::Uuid, _) => "3fa85f64-5717-4562-b3fc-2c963f66afa6".into(),
                    (ValueKind::String, _)
                        if p.description.as_deref().unwrap_or("").contains("(RD)")
                            || name.starts_with("present_in_vrf") && !name.contains("_id") =>
                    {
                        "65000:100".into()
                    }
                    (ValueKind::String, _) if name.ends_with("_id") || name.ends_with("_id__n") => {
                        "1".into()
                    }
                    // Text in the schema, but NetBox parses them (src/rest/faults.rs).
                    (ValueKind::String, _) if name.starts_with("primary_ip4") => "10.0.0.1".into(),
                    (ValueKind::String, _) if name.starts_with("primary_ip6") => {
                        "2001:db8::1".into()
                    }
                    (ValueKind::String, _)
                        if name.starts_with("primary_mac_address")
                            || name.starts_with("mac_address") =>
                    {
                        "00:1a:2b:3c:4d:5e".into()
                    }
                    (ValueKind::String, _) if name.starts_with("ip_address") => {
                        "10.0.0.1/24".into()
                    }
                    // 4.7's service protocol: choices the OpenAPI document does not declare.
                    (ValueKind::String, _) if name == "protocol" || name == "protocol__n" => {
                        "tcp".into()
                    }
                    (ValueKind::String, _) if name.starts_with("wwn") => {
                        "50:01:43:80:12:34:56:78".into()
                    }
                    (ValueKind::String, _) if name == "vlan" => "100".into(),
                    // Object-type filters (`ContentTypeFilter`) take `app_label.model`.
                    (ValueKind::String, _)
                        if [
                            "object_type",
                            "scope_type",
                            "termination_type",
                            "termination_a_type",
                            "termination_b_type",
                            "component_type",
                            "interface_type",
                            "member_type",
                        ]
                        .iter()
                        .any(|t| {
                            name.ends_with(t)
                                || name.strip_suffix("__n").is_some_and(|n| n.ends_with(t))
                        }) =>
                    {
                        "dcim.site".into()
                    }
                    (ValueKind::String, _) if name.starts_with("time_zone") => {
                        "Europe/Berlin".into()
                    }
                    // View parameters listed from 4.6: names of the objects' fields.
                    (ValueKind::String, _) if name == "fields" || name == "omit" => "id".into(),
                    (ValueKind::String, _) => "edge-01".into(),
                };
                let text = format!("{name}={value}");
                let call = RestCall {
                    form: CallForm::Url,
                    syntax: Syntax::Query,
                    target: Some((compact_str::format_compact!("/api/{key}/"), 0..0)),
                    call_range: 0..text.len(),
                    filters_range: Some(0..text.len()),
                    filters: vec![FilterEntry {
                        key: name.into(),
                        key_range: 0..name.len(),
                        value: Value::Str(value.as_str().into()),
                        value_range: name.len() + 1..text.len(),
                    }],
                    args: Vec::new(),
                    declared: false,
                };
                checked += 1;
                for f in netbox_lsp::rest::check_call(&call, &index) {
                    // `server-fault`: a filter the release answers wrongly for any value.
                    if f.code != "server-fault"
                        && matches!(
                            f.severity,
                            netbox_lsp::finding::Severity::Error
                                | netbox_lsp::finding::Severity::Warning
                        )
                    {
                        bad.push(format!(
                            "{} {key}?{text}: {}[{}] {}",
                            release.version,
                            f.severity.as_str(),
                            f.code,
                            f.message
                        ));
                    }
                }
            }
        }
    }
    println!(
        "typical values: {checked} parameters checked, {} flagged",
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(40)].join("\n"));
}

/// Issue 19 §1: every relation filter of every endpoint of every shipped release, written as a
/// traversal of the field it matches (`site__slug` for `site` "Site name (slug)",
/// `installed_device__name` for "Installed device (name)", `role__id` for `role_id`), gets the
/// endpoint's own filter as its certain fix, not a two-step detour. Which field a filter
/// matches is read here from the schema's description and lookups alone.
#[test]
fn relation_traversals_name_the_endpoints_own_filter() {
    use netbox_lsp::extract::{CallForm, FilterEntry, RestCall, Syntax, Value};
    let mut bad = Vec::new();
    let mut checked = 0;
    for release in embedded::RELEASES {
        let index = embedded::embedded_index(release.version);
        for (key, ep) in &index.endpoints {
            for (name, p) in &ep.params {
                if name.contains("__") {
                    continue;
                }
                // A relation filter: `__n` and no text or number lookups.
                let lookups: Vec<&str> = ep.params.lookups(name).collect();
                if lookups != ["n"] {
                    continue;
                }
                let desc = p.description.as_deref().unwrap_or("");
                let field = match desc.rsplit_once('(').map(|(_, f)| f.trim_end_matches(')')) {
                    Some("ID") if name.ends_with("_id") => "id",
                    Some(f @ ("slug" | "name" | "model")) => f,
                    None if desc.is_empty() && name.ends_with("_id") => "id",
                    _ => continue,
                };
                let rel = if field == "id" {
                    name.strip_suffix("_id").unwrap_or(name)
                } else {
                    name
                };
                let written = format!("{rel}__{field}");
                let value = if field == "id" {
                    Value::Str("7".into())
                } else {
                    Value::Str("edge-01".into())
                };
                let text = format!("{written}=x");
                let call = RestCall {
                    form: CallForm::Url,
                    syntax: Syntax::Query,
                    target: Some((compact_str::format_compact!("/api/{key}/"), 0..0)),
                    call_range: 0..text.len(),
                    filters_range: Some(0..text.len()),
                    filters: vec![FilterEntry {
                        key: written.as_str().into(),
                        key_range: 0..written.len(),
                        value,
                        value_range: written.len() + 1..text.len(),
                    }],
                    args: Vec::new(),
                    declared: false,
                };
                checked += 1;
                let findings = netbox_lsp::rest::check_call(&call, &index);
                // A filter the release answers with a server error is named, but no fix-all edit.
                let mut own = call.clone();
                own.filters[0].key = name.into();
                let broken = netbox_lsp::rest::check_call(&own, &index)
                    .iter()
                    .any(|f| f.code == "server-fault");
                let named = findings.iter().any(|f| {
                    f.message.contains(&format!("`{name}`"))
                        && f.fixes.iter().any(|x| {
                            x.certain != broken && x.edits.iter().any(|e| e.new_text == *name)
                        })
                });
                if !named {
                    bad.push(format!(
                        "{} /api/{key}/ {written}: {:?}",
                        release.version,
                        findings
                            .iter()
                            .map(|f| (
                                f.code,
                                &f.message,
                                f.fixes
                                    .iter()
                                    .map(|x| (&x.title, x.certain))
                                    .collect::<Vec<_>>()
                            ))
                            .collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    println!(
        "{checked} relation traversals checked, {} without the endpoint's own filter",
        bad.len()
    );
    assert!(checked > 1000, "{checked}");
    assert!(
        bad.is_empty(),
        "{} of {checked}:\n{}",
        bad.len(),
        bad.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}
