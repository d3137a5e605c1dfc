//! Values in Python code (issue 30 §1, §2, §4) through the real pipeline: each case of
//! `tests/fixtures/values/cases.txt` is analysed with the NetBox 4.7.3 knowledge (index and
//! GraphQL schema); its findings, each as its code and the text it covers, and whether it has a
//! certain fix, must be the ones listed, in position order. Every form has a quiet twin. Fix-all
//! on each case must leave no certain fix and no new error (the certain fixes keep the host and
//! the query; `tests/fix_property.rs` checks them in depth on the same cases).

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::graphql::embedded_schema;
use netbox_lsp::index::embedded::embedded_index;
use std::path::Path;

struct Case {
    name: String,
    kind: HostKind,
    expect: Vec<String>,
    text: String,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/values/cases.txt");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/values/cases.txt");
    let mut out = Vec::new();
    for block in text.split("\n=== ").skip(1) {
        let (head, body) = block.split_once("\n---\n").expect("`---` after the header");
        let mut lines = head.lines();
        let mut case = Case {
            name: lines.next().unwrap_or_default().to_string(),
            kind: HostKind::Python,
            expect: Vec::new(),
            text: body.trim_end_matches('\n').to_string() + "\n",
        };
        for l in lines {
            let (k, v) = l.split_once(':').expect("key: value");
            let v = v.trim();
            match k {
                "kind" => {
                    case.kind = HostKind::from_path(Path::new(&format!("x.{v}"))).expect("kind")
                }
                "expect" if v == "none" => {}
                "expect" => case.expect.push(v.to_string()),
                other => panic!("unknown header {other}"),
            }
        }
        out.push(case);
    }
    out
}

fn knowledge() -> Knowledge {
    Knowledge {
        index: Some(embedded_index("4.7.3")),
        graphql: embedded_schema("4.7.3"),
        ..Default::default()
    }
}

/// The findings of `text` as `<code> `<covered text>`[ certain]`, in position order.
fn found(text: &str, kind: HostKind, k: &Knowledge) -> Vec<String> {
    analyze(text, kind, k)
        .iter()
        .map(|f| {
            let certain = if f.fixes.iter().any(|x| x.certain) {
                " certain"
            } else {
                ""
            };
            format!("{} `{}`{certain}", f.code, unescape(&text[f.range.clone()]))
        })
        .collect()
}

/// A notebook's ranges cover JSON-escaped text: compare it as written in the cell.
fn unescape(s: &str) -> String {
    s.replace("\\\"", "\"")
}

#[test]
fn every_form_and_its_quiet_twin() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let quiet = cases.iter().filter(|c| c.expect.is_empty()).count();
    assert!(quiet >= 15, "only {quiet} quiet twins");
    let k = knowledge();
    let mut bad = Vec::new();
    for c in &cases {
        let got = found(&c.text, c.kind, &k);
        if got != c.expect {
            bad.push(format!(
                "{}:\n  expected {:?}\n  got      {:?}",
                c.name, c.expect, got
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Fix-all on every case: its certain fixes applied together leave no certain fix and no new
/// finding anywhere they wrote.
#[test]
fn fix_all_converges_on_every_case() {
    let k = knowledge();
    let mut bad = Vec::new();
    for c in cases().iter().filter(|c| c.kind == HostKind::Python) {
        let findings = analyze(&c.text, c.kind, &k);
        let mut edits: Vec<(std::ops::Range<usize>, String)> = findings
            .iter()
            .flat_map(|f| f.fixes.iter().filter(|x| x.certain))
            .flat_map(|x| {
                x.edits
                    .iter()
                    .map(|e| (e.range.clone(), e.new_text.clone()))
            })
            .collect();
        if edits.is_empty() {
            continue;
        }
        edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
        let mut text = c.text.clone();
        for (r, t) in &edits {
            text.replace_range(r.clone(), t);
        }
        let again = analyze(&text, c.kind, &k);
        let left: Vec<&str> = again
            .iter()
            .filter(|f| f.fixes.iter().any(|x| x.certain))
            .map(|f| f.code)
            .collect();
        if !left.is_empty() {
            bad.push(format!(
                "{}: certain fixes left after fix-all: {left:?}\n{text}",
                c.name
            ));
        }
        if again.len() >= findings.len() {
            bad.push(format!(
                "{}: fix-all did not reduce the findings ({} → {})\n{text}",
                c.name,
                findings.len(),
                again.len()
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}
