//! Data-driven REST check cases (`tests/fixtures/rest/cases.txt`): each host snippet goes
//! through the real pipeline (`analyze`: extraction, then the REST checks) against the
//! embedded index of the case's NetBox version; the codes, severities and the text after the
//! certain fixes must match.

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::finding::Finding;
use netbox_lsp::index::embedded;
use std::path::Path;

struct Case {
    name: String,
    version: String,
    kind: HostKind,
    expect: Vec<String>,
    severity: Option<Vec<String>>,
    fixed: Option<String>,
    text: String,
}

fn list(v: &str) -> Vec<String> {
    if v.trim() == "none" {
        return Vec::new();
    }
    v.split(',').map(|s| s.trim().to_string()).collect()
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rest/cases.txt");
    let text = std::fs::read_to_string(&path).expect("cases.txt");
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

fn version(v: &str) -> &'static str {
    embedded::RELEASES
        .iter()
        .find(|r| r.version == v)
        .map(|r| r.version)
        .unwrap_or_else(|| panic!("NetBox {v} is not shipped"))
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
            index: Some(load(version(&case.version))),
            graphql: None,
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

/// Every code of the REST table has at least one failing case.
#[test]
fn every_code_has_a_case() {
    let all = cases();
    for code in netbox_lsp::rest::CODES {
        assert!(
            all.iter().any(|c| c.expect.iter().any(|e| e == code.code)),
            "no failing case for {}",
            code.code
        );
    }
}

/// Decodes the embedded index of a shipped release (the index file is gzip-compressed JSON).
fn load(version: &str) -> std::sync::Arc<netbox_lsp::index::FilterIndex> {
    use std::io::Read;
    let release = embedded::RELEASES
        .iter()
        .find(|r| r.version == version)
        .unwrap_or_else(|| panic!("NetBox {version} is not shipped"));
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(release.index_gz)
        .read_to_end(&mut json)
        .expect("gzip");
    std::sync::Arc::new(serde_json::from_slice(&json).expect("index JSON"))
}
