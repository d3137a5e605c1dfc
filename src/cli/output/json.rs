//! `--format json`: one JSON array of findings with LSP positions (0-based lines, UTF-16
//! columns). A public contract, documented in `docs/output-formats.md`: add fields, never
//! rename or remove them.
//!
//! Findings are serialized from borrowed structs whose fields stand in key order (the order
//! `serde_json::Map` keeps, so the bytes are those of the `Value` the format was first built
//! as), written pretty-printed straight to the output: no map per finding.

use super::{Located, Skipped, Span};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write;

/// LSP `Position`: 0-based line and UTF-16 column.
#[derive(Serialize)]
struct Position {
    character: u32,
    line: u32,
}

/// LSP `Range` (`end` before `start`: keys in sorted order).
#[derive(Serialize)]
struct Range {
    end: Position,
    start: Position,
}

impl From<&Span> for Range {
    fn from(span: &Span) -> Range {
        Range {
            end: Position {
                character: span.end.utf16_col,
                line: span.end.line,
            },
            start: Position {
                character: span.start.utf16_col,
                line: span.start.line,
            },
        }
    }
}

#[derive(Serialize)]
struct Edit<'a> {
    new_text: &'a str,
    range: Range,
}

#[derive(Serialize)]
struct Fix<'a> {
    #[serde(serialize_with = "edits")]
    edits: &'a [super::ResolvedEdit],
    preferred: bool,
    title: &'a str,
}

fn edits<S: serde::Serializer>(e: &&[super::ResolvedEdit], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(e.iter().map(|e| Edit {
        new_text: &e.new_text,
        range: Range::from(&e.span),
    }))
}

fn fixes<S: serde::Serializer>(f: &&[super::ResolvedFix], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(f.iter().map(|fix| Fix {
        edits: &fix.edits,
        preferred: fix.certain,
        title: &fix.title,
    }))
}

#[derive(Serialize)]
struct ProofItem<'a> {
    count: Option<u64>,
    curl: &'a str,
    method: &'a str,
    status: Option<u16>,
    url: &'a str,
}

fn proof_items<S: serde::Serializer>(p: &&[super::Proof], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(p.iter().map(|p| ProofItem {
        count: p.count,
        curl: &p.curl,
        method: p.method,
        status: p.status,
        url: &p.url,
    }))
}

/// One finding as written (keys in sorted order).
#[derive(Serialize)]
struct Finding<'a> {
    code: &'a str,
    #[serde(serialize_with = "fixes")]
    fixes: &'a [super::ResolvedFix],
    message: &'a str,
    path: &'a str,
    #[serde(
        skip_serializing_if = "<[_]>::is_empty",
        serialize_with = "proof_items"
    )]
    proof: &'a [super::Proof],
    range: Range,
    severity: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
}

impl<'a> From<&'a Located> for Finding<'a> {
    fn from(f: &'a Located) -> Finding<'a> {
        Finding {
            code: f.code,
            fixes: &f.fixes,
            message: &f.message,
            path: &f.path,
            proof: &f.proof,
            range: Range::from(&f.span),
            severity: f.severity.as_str(),
            source: crate::live::is_live_code(f.code).then_some(crate::live::SOURCE),
        }
    }
}

/// One site not checked as written (keys in sorted order).
#[derive(Serialize)]
struct NotChecked<'a> {
    message: &'a str,
    path: &'a str,
    range: Range,
    skipped: &'a str,
}

impl<'a> From<&'a Skipped> for NotChecked<'a> {
    fn from(s: &'a Skipped) -> NotChecked<'a> {
        NotChecked {
            message: &s.message,
            path: &s.path,
            range: Range::from(&s.span),
            skipped: s.read_as.name(),
        }
    }
}

/// LSP `Range` of a span.
pub fn range(span: &Span) -> Value {
    serde_json::to_value(Range::from(span)).expect("a range is JSON")
}

/// One finding as a JSON object: `{"code", "fixes": [{"edits": [{"new_text", "range"}],
/// "preferred", "title"}], "message", "path", "range", "severity"}`; a live finding (`live-…`)
/// also has `"source": "netbox (live)"` and `"proof"` (see [`proof`]).
pub fn finding(f: &Located) -> Value {
    serde_json::to_value(Finding::from(f)).expect("a finding is JSON")
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
    serde_json::to_value(NotChecked::from(s)).expect("a site not checked is JSON")
}

/// Writes [`finding`] pretty-printed as an element of a pretty-printed top-level array (every
/// line indented by two spaces, the first one too): the bytes of `to_string_pretty(&finding(f))`
/// so indented, without building the `Value`.
pub fn write_finding(out: &mut impl Write, f: &Located) -> std::io::Result<()> {
    write_element(out, &Finding::from(f))
}

/// Writes [`skipped`] as [`write_finding`] writes a finding.
pub fn write_skipped(out: &mut impl Write, s: &Skipped) -> std::io::Result<()> {
    write_element(out, &NotChecked::from(s))
}

fn write_element(out: &mut impl Write, v: &impl Serialize) -> std::io::Result<()> {
    out.write_all(b"  ")?;
    let mut ser = serde_json::Serializer::with_formatter(out, Nested::default());
    v.serialize(&mut ser).map_err(std::io::Error::other)
}

/// serde_json's `PrettyFormatter` (two spaces) starting one level deep: its own indentation
/// level is private, and these are its rules with a start of 1.
struct Nested {
    level: usize,
    has_value: bool,
}

impl Default for Nested {
    fn default() -> Nested {
        Nested {
            level: 1,
            has_value: false,
        }
    }
}

impl Nested {
    fn indent<W: ?Sized + Write>(&self, w: &mut W) -> std::io::Result<()> {
        const SPACES: &[u8] = b"                                                                ";
        let mut n = self.level * 2;
        while n > 0 {
            let k = n.min(SPACES.len());
            w.write_all(&SPACES[..k])?;
            n -= k;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            self.indent(w)?;
        }
        w.write_all(b)
    }

    fn item<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(w)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// The whole output: a pretty-printed array (the findings, then with `--explain` the sites not
/// checked) and a final newline; the same bytes as [`super::stream::Sink`] writes.
pub fn render(findings: &[Located], not_checked: &[Skipped]) -> String {
    let mut sink = super::stream::Sink::in_memory(crate::cli::Format::Json, Vec::new(), "")
        .expect("writing to memory");
    sink.add(findings.to_vec(), not_checked.to_vec())
        .expect("writing to memory");
    let (out, _) = sink
        .finish(crate::intent::Counts::default())
        .expect("writing to memory");
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct writer gives the bytes of the `Value` pretty-printed and indented (as the
    /// array's element), keys sorted, for a finding with fixes, a live one with proof, and a
    /// site not checked.
    #[test]
    fn written_as_the_value_prints() {
        fn indented(v: &Value) -> String {
            let s = serde_json::to_string_pretty(v).unwrap();
            s.split('\n')
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        }
        let p = |l, c| super::super::Pos {
            line: l,
            char_col: c,
            utf16_col: c,
        };
        let span = Span {
            start: p(1, 4),
            end: p(1, 12),
        };
        let live = Located {
            path: "a \"b\".py".into(),
            path_bytes: None,
            span,
            code: "live-empty-result",
            severity: crate::finding::Severity::Warning,
            message: "m\tn".into(),
            fixes: vec![super::super::ResolvedFix {
                title: "t".into(),
                certain: true,
                edits: vec![super::super::ResolvedEdit {
                    span,
                    new_text: "é".into(),
                }],
            }],
            proof: vec![super::super::Proof {
                method: "GET",
                url: "u".into(),
                curl: "c".into(),
                status: Some(200),
                count: None,
            }],
        };
        let plain = Located {
            code: "unknown-filter",
            fixes: vec![],
            proof: vec![],
            ..live.clone()
        };
        for f in [&live, &plain] {
            let mut out = Vec::new();
            write_finding(&mut out, f).unwrap();
            let mut v = json!({
                "path": f.path,
                "range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 12}},
                "severity": f.severity.as_str(),
                "code": f.code,
                "message": f.message,
                "fixes": f.fixes.iter().map(|fix| json!({
                    "title": fix.title, "preferred": fix.certain,
                    "edits": fix.edits.iter().map(|e| json!({
                        "range": range(&e.span), "new_text": e.new_text,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            });
            if crate::live::is_live_code(f.code) {
                v["source"] = json!(crate::live::SOURCE);
            }
            if !f.proof.is_empty() {
                v["proof"] = proof(&f.proof);
            }
            assert_eq!(String::from_utf8(out).unwrap(), indented(&v), "{}", f.code);
            assert_eq!(finding(f), v);
        }
        assert!(finding(&live).get("proof").is_some() && finding(&plain).get("proof").is_none());
    }
}
