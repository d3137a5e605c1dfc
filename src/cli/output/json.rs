//! `--format json`: one JSON array of findings with LSP positions (0-based lines, UTF-16
//! columns). A public contract, documented in `docs/output-formats.md`: add fields, never
//! rename or remove them.

use super::{Located, Skipped, Span};
use serde_json::{json, Value};

/// LSP `Range` of a span.
pub fn range(span: &Span) -> Value {
    json!({
        "start": {"line": span.start.line, "character": span.start.utf16_col},
        "end": {"line": span.end.line, "character": span.end.utf16_col},
    })
}

/// One finding as a JSON object; a live finding (`live-…`) also has `"source": "netbox (live)"`.
pub fn finding(f: &Located) -> Value {
    let mut v = json!({
        "path": f.path,
        "range": range(&f.span),
        "severity": f.severity.as_str(),
        "code": f.code,
        "message": f.message,
        "fixes": f.fixes.iter().map(|fix| json!({
            "title": fix.title,
            "preferred": fix.certain,
            "edits": fix.edits.iter().map(|e| json!({
                "range": range(&e.span),
                "new_text": e.new_text,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    if crate::live::is_live_code(f.code) {
        v["source"] = json!(crate::live::SOURCE);
    }
    if !f.proof.is_empty() {
        v["proof"] = proof(&f.proof);
    }
    v
}

/// A live finding's requests: `[{"method", "url", "curl", "status", "count"}]` (`status` and
/// `count` null when NetBox gave none).
pub fn proof(proof: &[super::Proof]) -> Value {
    Value::Array(
        proof
            .iter()
            .map(|p| {
                json!({
                    "method": p.method,
                    "url": p.url,
                    "curl": p.curl,
                    "status": p.status,
                    "count": p.count,
                })
            })
            .collect(),
    )
}

/// One site not checked (`--explain`) as a JSON object: `{"path", "range", "skipped": <reading>,
/// "message"}` (no `severity`, `code` or `fixes`: it is no finding).
pub fn skipped(s: &Skipped) -> Value {
    json!({
        "path": s.path,
        "range": range(&s.span),
        "skipped": s.read_as.name(),
        "message": s.message,
    })
}

/// The whole output: a pretty-printed array (the findings, then with `--explain` the sites not
/// checked) and a final newline; the same bytes as [`super::stream::Sink`] writes.
pub fn render(findings: &[Located], not_checked: &[Skipped]) -> String {
    let mut sink = super::stream::Sink::in_memory(crate::cli::Format::Json, Vec::new(), "")
        .expect("writing to memory");
    sink.add(findings.to_vec(), not_checked.to_vec())
        .expect("writing to memory");
    let (out, _) = sink
        .finish(crate::extract::intent::Counts::default())
        .expect("writing to memory");
    String::from_utf8(out).unwrap_or_default()
}
