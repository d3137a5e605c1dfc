//! `textDocument/publishDiagnostics` written straight from the findings to the framed bytes
//! the client reads, without the `serde_json::Value` tree tower-lsp-server's `Client` builds
//! for every notification (`to_value` of the params, then their serialisation: on a 2,000-line
//! SKILL.md, 593 diagnostics and 325 kB a publish, that tree was about a third of the server's
//! CPU per `didChange`).
//!
//! The bytes are those the `Client` path writes for [`super::diagnostics::to_diagnostics`]'s
//! diagnostics: a `Value`'s object keys come out sorted (serde_json's map is a B-tree), so each
//! struct here lists its fields in that order; the test below compares both paths byte for byte.

use super::config::Settings;
use super::presentation::{code_description, effective, severity, SOURCE};
use crate::finding::Finding;
use serde::Serialize;
use std::ops::Range;
use tower_lsp_server::ls_types::{DiagnosticSeverity, Range as LspRange, Uri};

/// The JSON-RPC notification (struct order, as tower-lsp-server's `Request` writes it).
#[derive(Serialize)]
struct Notification<'a> {
    jsonrpc: &'static str,
    method: &'static str,
    params: Params<'a>,
}

/// `PublishDiagnosticsParams`, keys sorted.
#[derive(Serialize)]
struct Params<'a> {
    diagnostics: Vec<Diagnostic<'a>>,
    uri: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<i32>,
}

/// One `Diagnostic` as `to_diagnostics` makes it, keys sorted; `relatedInformation` and `tags`
/// are never set.
#[derive(Serialize)]
struct Diagnostic<'a> {
    code: &'static str,
    #[serde(rename = "codeDescription", skip_serializing_if = "Option::is_none")]
    code_description: Option<Href<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Data<'a>>,
    message: &'a str,
    range: WireRange,
    severity: DiagnosticSeverity,
    source: &'static str,
}

#[derive(Serialize)]
struct Href<'a> {
    href: &'a str,
}

/// `{"fixes": [...]}`: the fixes a code action reads back (`super::code_action`).
#[derive(Serialize)]
struct Data<'a> {
    fixes: Vec<Fix<'a>>,
}

#[derive(Serialize)]
struct Fix<'a> {
    certain: bool,
    edits: Vec<TextEdit<'a>>,
    title: &'a str,
}

#[derive(Serialize)]
struct TextEdit<'a> {
    #[serde(rename = "newText")]
    new_text: &'a str,
    range: WireRange,
}

#[derive(Serialize)]
struct WireRange {
    end: Position,
    start: Position,
}

#[derive(Serialize)]
struct Position {
    character: u32,
    line: u32,
}

impl From<LspRange> for WireRange {
    fn from(r: LspRange) -> WireRange {
        let pos = |p: tower_lsp_server::ls_types::Position| Position {
            character: p.character,
            line: p.line,
        };
        WireRange {
            end: pos(r.end),
            start: pos(r.start),
        }
    }
}

/// The framed `textDocument/publishDiagnostics` notification (`Content-Length` header and
/// JSON body, bytes) for the findings reported under `settings`, byte ranges converted by
/// `range`; `version` is left out when `None`.
pub fn publish_frame(
    uri: &Uri,
    version: Option<i32>,
    findings: &[Finding],
    range: &dyn Fn(&Range<usize>) -> LspRange,
    settings: &Settings,
) -> Vec<u8> {
    // The link of each code, looked up once per code (a handful per document).
    let mut links: Vec<(&'static str, Option<String>)> = Vec::new();
    for (f, _) in effective(findings, settings) {
        if !links.iter().any(|(c, _)| *c == f.code) {
            let href = code_description(f.code).map(|d| d.href.as_str().to_owned());
            links.push((f.code, href));
        }
    }
    let link = |code: &str| {
        links
            .iter()
            .find(|(c, _)| *c == code)
            .and_then(|(_, h)| h.as_deref())
    };
    let diagnostics = effective(findings, settings)
        .map(|(f, sev)| Diagnostic {
            code: f.code,
            code_description: link(f.code).map(|href| Href { href }),
            data: (!f.fixes.is_empty()).then(|| Data {
                fixes: f
                    .fixes
                    .iter()
                    .map(|fix| Fix {
                        certain: fix.certain,
                        edits: fix
                            .edits
                            .iter()
                            .map(|e| TextEdit {
                                new_text: &e.new_text,
                                range: range(&e.range).into(),
                            })
                            .collect(),
                        title: &fix.title,
                    })
                    .collect(),
            }),
            message: &f.message,
            range: range(&f.range).into(),
            severity: severity(sev),
            source: if crate::live::is_live_code(f.code) {
                crate::live::SOURCE
            } else {
                SOURCE
            },
        })
        .collect();
    let note = Notification {
        jsonrpc: "2.0",
        method: "textDocument/publishDiagnostics",
        params: Params {
            diagnostics,
            uri: uri.as_str(),
            version,
        },
    };
    // Serialising borrowed strings, integers and booleans cannot fail.
    let body = serde_json::to_vec(&note).unwrap_or_default();
    let mut frame = Vec::with_capacity(body.len() + 32);
    frame.extend_from_slice(b"Content-Length: ");
    frame.extend_from_slice(itoa::Buffer::new().format(body.len()).as_bytes());
    frame.extend_from_slice(b"\r\n\r\n");
    frame.extend_from_slice(&body);
    frame
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze, Knowledge};
    use crate::extract::HostKind;
    use crate::finding::{Edit, Fix as FindingFix, Severity};
    use crate::server::diagnostics::to_diagnostics;
    use crate::server::position::{Encoding, Snapshot};
    use tower_lsp_server::jsonrpc::Request;
    use tower_lsp_server::ls_types::PublishDiagnosticsParams;

    /// The bytes tower-lsp-server's `Client::publish_diagnostics` writes (its codec's frame of
    /// `Request::from_notification`, which is `to_value` of the params).
    fn client_frame(
        uri: &Uri,
        version: Option<i32>,
        snap: &Snapshot,
        findings: &[Finding],
        enc: Encoding,
        settings: &Settings,
    ) -> Vec<u8> {
        let diags = to_diagnostics(findings, snap, enc, settings);
        let params = PublishDiagnosticsParams::new(uri.clone(), diags, version);
        let request = Request::build("textDocument/publishDiagnostics")
            .params(serde_json::to_value(params).unwrap())
            .finish();
        let body = serde_json::to_string(&request).unwrap();
        format!("Content-Length: {}\r\n\r\n{}", body.len(), body).into_bytes()
    }

    fn check(text: &str, findings: &[Finding], settings: &Settings) {
        let snap = Snapshot::new(text.to_string(), 7);
        let uri: Uri = "file:///tmp/skills/inv/SKILL%20x.md".parse().unwrap();
        for enc in [Encoding::Utf16, Encoding::Utf8] {
            for version in [Some(7), None] {
                let ours =
                    publish_frame(&uri, version, findings, &|r| snap.range(r, enc), settings);
                let theirs = client_frame(&uri, version, &snap, findings, enc, settings);
                assert_eq!(
                    String::from_utf8(ours).unwrap(),
                    String::from_utf8(theirs).unwrap()
                );
            }
        }
    }

    /// Every document of `examples/` and `tests/fixtures/` up to 256 KiB, analysed with 4.7.3's knowledge
    /// (REST, GraphQL, YAML and JSON findings, with and without fixes, non-ASCII text): the
    /// frame is the `Client` path's, byte for byte, in both encodings, with and without a
    /// version, and with the severities a configuration overrides.
    #[test]
    fn the_frame_is_the_client_paths() {
        let knowledge = Knowledge {
            index: Some(crate::index::embedded::embedded_index("4.7.3")),
            graphql: crate::graphql::embedded_schema("4.7.3"),
            ..Knowledge::default()
        };
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut overridden = Settings::default();
        overridden.severity.insert(
            "unknown-filter".into(),
            crate::config::Level::Report(Severity::Hint),
        );
        overridden
            .severity
            .insert("invalid-value".into(), crate::config::Level::Off);
        let mut dirs = vec![root.join("tests/fixtures"), root.join("examples")];
        let mut seen = 0;
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for path in entries.flatten().map(|e| e.path()) {
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let Some(kind) = HostKind::from_path(&path) else {
                    continue;
                };
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                if text.len() > 256 * 1024 {
                    continue; // OpenAPI documents and ground-truth tables
                }
                let findings = analyze(&text, kind, &knowledge);
                seen += findings.len();
                check(&text, &findings, &Settings::default());
                check(&text, &findings, &overridden);
            }
        }
        assert!(seen > 300, "only {seen} findings in the fixtures");
    }

    /// Hand-made findings: no fix, several fixes of several edits, text with quotes,
    /// backslashes, control and non-BMP characters, a live code, an empty document.
    #[test]
    fn odd_findings_frame_alike() {
        let text = "héllo \"wörld\"\n\t😀 `x`\\y\n";
        let mut a = Finding::new(
            0..5,
            "unknown-filter",
            Severity::Error,
            "a \"quoted\" \\ message\u{1}\n😀",
        );
        a.fixes = vec![
            FindingFix {
                title: "Replace `héllo`".into(),
                edits: vec![
                    Edit {
                        range: 0..6,
                        new_text: "x\ty".into(),
                    },
                    Edit {
                        range: 16..20,
                        new_text: String::new(),
                    },
                ],
                certain: false,
                releases: Vec::new(),
            },
            FindingFix {
                title: "other".into(),
                edits: vec![Edit {
                    range: 21..21,
                    new_text: "😀".into(),
                }],
                certain: true,
                releases: Vec::new(),
            },
        ];
        let b = Finding::new(14..18, "live-differs", Severity::Hint, "live");
        let c = Finding::new(3..3, "no-such-code-anywhere", Severity::Information, "");
        check(text, &[a, b, c], &Settings::default());
        check("", &[], &Settings::default());
    }
}
