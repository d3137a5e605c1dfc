//! `--format sarif`: SARIF 2.1.0 for code-scanning uploads (GitHub, GitLab, Azure DevOps).
//! One run; `tool.driver.rules` lists every known code with its help (plus any other code that
//! occurs); results carry `ruleId`/`ruleIndex`, `level`, the message, the location as a
//! relative URI with a 1-based region in UTF-16 code units (`columnKind: utf16CodeUnits`,
//! `endColumn` exclusive), and fixes as `artifactChanges`/`replacements`.

use super::put::{Put, Room};
use super::{Located, LspSpan, Skipped};
use crate::catalogue::{self, CODES};
use crate::finding::Severity;
use crate::intent::{Counts, ReadAs};
use serde_json::{json, Map, Value};

/// The `ruleId` of the results `--explain` adds for the sites not checked.
pub const SKIPPED: &str = "skipped";

/// The SARIF schema address written in `$schema`.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// SARIF `level` of a severity: information and hints are `note`.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// `artifactLocation.uri` of a shown path ([`super::escape::sarif_uri`] of its bytes).
pub fn uri(path: &str) -> String {
    super::escape::sarif_uri(path.as_bytes())
}

fn region(span: &LspSpan) -> Value {
    json!({
        "startLine": span.start.line + 1,
        "startColumn": span.start.utf16_col + 1,
        "endLine": span.end.line + 1,
        "endColumn": span.end.utf16_col + 1,
    })
}

/// One entry of `tool.driver.rules`: a catalogue code, or a code the catalogue lacks (never
/// expected; it still gets a rule so that `ruleIndex` stays valid).
struct Rule {
    code: &'static str,
    title: &'static str,
    help: &'static str,
}

fn rule_json(rule: &Rule) -> Value {
    let mut v = json!({
        "id": rule.code,
        "name": rule.code,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.help},
        "help": {
            "text": rule.help,
            "markdown": format!("**{}** — {}\n\nSee docs/diagnostics.md#{} for examples.", rule.title, rule.help, rule.code),
        },
    });
    if let Some(url) = catalogue::doc_url(rule.code) {
        v["helpUri"] = json!(url);
    }
    v
}

/// The project's repository address from Cargo.toml, when it is set.
fn repository() -> Option<&'static str> {
    let repo = env!("CARGO_PKG_REPOSITORY");
    (!repo.is_empty()).then_some(repo.trim_end_matches('/'))
}

/// The rule of the results `--explain` adds for the sites not checked.
fn skipped_rule() -> Rule {
    Rule {
        code: SKIPPED,
        title: "Not checked: read as a wrong example, release history, a Django query or another product's call",
        help: "netbox-lsp reads the text around each call: a call the text marks as a wrong example, release history, a Django queryset lookup or another product's call is not checked (docs/diagnostics.md#calls-that-are-not-checked).",
    }
}

/// Rules in the catalogue: the first index after them is that of a code it lacks.
pub const CODES_LEN: usize = CODES.len();

/// The `ruleIndex` of `code`: its place in the catalogue, else after it in the order `extra`
/// (codes the catalogue lacks, in order of first occurrence; `code` is added when new).
pub fn rule_index(code: &'static str, extra: &mut Vec<&'static str>) -> usize {
    if let Some(i) = CODES.iter().position(|c| c.code == code) {
        return i;
    }
    let i = extra.iter().position(|c| *c == code).unwrap_or_else(|| {
        extra.push(code);
        extra.len() - 1
    });
    CODES.len() + i
}

/// One finding as a SARIF result, its rule at `index`.
pub fn result(f: &Located, index: usize) -> Value {
    let artifact = json!({
        "uri": super::escape::sarif_uri(super::uri_bytes(&f.path, f.path_bytes.as_ref()))
    });
    let mut result = json!({
        "ruleId": f.code,
        "ruleIndex": index,
        "level": level(f.severity),
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": artifact,
                "region": region(&f.span.lsp()),
            }
        }],
    });
    if !f.fixes.is_empty() {
        result["fixes"] = Value::Array(
            f.fixes
                .iter()
                .map(|fix| {
                    json!({
                        "description": {"text": fix.title},
                        "artifactChanges": [{
                            "artifactLocation": artifact,
                            "replacements": fix.edits.iter().map(|e| json!({
                                "deletedRegion": region(&e.span),
                                "insertedContent": {"text": e.new_text},
                            })).collect::<Vec<_>>(),
                        }],
                    })
                })
                .collect(),
        );
    }
    if !f.proof.is_empty() {
        result["properties"] = json!({ "proof": super::json::proof(&f.proof) });
    }
    result
}

/// Writes [`result`] of `f` pretty-printed as the `results` array holds it (every line indented by
/// `indent` spaces, an even number, the first one too): the same bytes as pretty-printing the
/// `Value` and indenting it, without building it (keys in sorted order, as `Map` holds them).
pub fn write_result(
    out: &mut impl std::io::Write,
    f: &Located,
    index: usize,
    indent: usize,
) -> std::io::Result<()> {
    use super::json::Direct;
    fn region<W: std::io::Write>(
        d: &mut Direct<'_, W>,
        first: bool,
        key: &str,
        span: &LspSpan,
    ) -> std::io::Result<()> {
        let n = |v: u32| Some(u64::from(v) + 1);
        d.key(first, key)?;
        d.open(b"{")?;
        d.num(true, "endColumn", n(span.end.utf16_col))?;
        d.num(false, "endLine", n(span.end.line))?;
        d.num(false, "startColumn", n(span.start.utf16_col))?;
        d.num(false, "startLine", n(span.start.line))?;
        d.close(b"}")
    }
    fn artifact<W: std::io::Write>(
        d: &mut Direct<'_, W>,
        first: bool,
        uri: &str,
    ) -> std::io::Result<()> {
        d.key(first, "artifactLocation")?;
        d.open(b"{")?;
        d.str(true, "uri", uri)?;
        d.close(b"}")
    }
    let uri = super::escape::sarif_uri(super::uri_bytes(&f.path, f.path_bytes.as_ref()));
    // Written to memory first, then in one write (a result is ~100 small writes).
    let mut buf = vec![b' '; indent];
    buf.reserve(2048);
    let mut d = Direct::at(&mut buf, indent / 2);
    d.open(b"{")?;
    if !f.fixes.is_empty() {
        d.key(true, "fixes")?;
        d.open(b"[")?;
        for (i, fix) in f.fixes.iter().enumerate() {
            d.item(i == 0)?;
            d.open(b"{")?;
            d.key(true, "artifactChanges")?;
            d.open(b"[")?;
            d.item(true)?;
            d.open(b"{")?;
            artifact(&mut d, true, &uri)?;
            d.key(false, "replacements")?;
            d.open(b"[")?;
            for (j, e) in fix.edits.iter().enumerate() {
                d.item(j == 0)?;
                d.open(b"{")?;
                region(&mut d, true, "deletedRegion", &e.span)?;
                d.text(false, "insertedContent", &e.new_text)?;
                d.close(b"}")?;
            }
            d.close(b"]")?;
            d.close(b"}")?;
            d.close(b"]")?;
            d.text(false, "description", &fix.title)?;
            d.close(b"}")?;
        }
        d.close(b"]")?;
    }
    d.str(f.fixes.is_empty(), "level", level(f.severity))?;
    d.key(false, "locations")?;
    d.open(b"[")?;
    d.item(true)?;
    d.open(b"{")?;
    d.key(true, "physicalLocation")?;
    d.open(b"{")?;
    artifact(&mut d, true, &uri)?;
    region(&mut d, false, "region", &f.span.lsp())?;
    d.close(b"}")?;
    d.close(b"}")?;
    d.close(b"]")?;
    d.text(false, "message", &f.message)?;
    if !f.proof.is_empty() {
        d.key(false, "properties")?;
        d.open(b"{")?;
        d.proof(true, &f.proof)?;
        d.close(b"}")?;
    }
    d.str(false, "ruleId", f.code)?;
    d.num(false, "ruleIndex", Some(index as u64))?;
    d.close(b"}")?;
    out.write_all(&buf)
}

/// The JSON string literal (quoted, escaped) of a finding's `artifactLocation.uri`, kept for
/// the findings of the same file that follow (a batch is mostly one file's findings; the
/// percent-encoding was a `String` or two per finding).
#[derive(Default)]
pub struct Uris {
    /// The bytes the URI was made of ([`super::uri_bytes`]).
    bytes: Vec<u8>,
    json: Vec<u8>,
}

impl Uris {
    /// The quoted URI of `f`'s file.
    pub fn of(&mut self, f: &Located) -> std::io::Result<&[u8]> {
        let bytes = super::uri_bytes(&f.path, f.path_bytes.as_ref());
        if self.json.is_empty() || self.bytes != bytes {
            self.bytes.clear();
            self.bytes.extend_from_slice(bytes);
            self.json.clear();
            super::json::write_str(&mut self.json, &super::escape::sarif_uri(bytes))?;
        }
        Ok(&self.json)
    }
}

/// [`rule_index`] remembered per code (`&'static str`s compared by address and length, the
/// catalogue's look-up when new): a search of the catalogue's codes by text per result
/// otherwise.
#[derive(Default)]
pub struct RuleIndexes {
    known: Vec<(&'static str, usize)>,
}

impl RuleIndexes {
    /// [`rule_index`] of `code`.
    pub fn of(&mut self, code: &'static str, extra: &mut Vec<&'static str>) -> usize {
        if let Some(&(_, i)) = self.known.iter().find(|(c, _)| std::ptr::eq(*c, code)) {
            return i;
        }
        let i = rule_index(code, extra);
        self.known.push((code, i));
        i
    }
}

/// Appends [`write_result`] of `f` at the depth of `runs[0].results` (indent 8) to `b`, the
/// file's URI from `uris`: a result without proof (all but live findings) from its constant
/// lines pre-joined with their indentation and keys (~25 writes of known length and the
/// numbers, where the pretty writer made ~100 small writes); a live one through
/// [`write_result`].
pub fn push_result(
    room: &mut Room,
    f: &Located,
    index: usize,
    uris: &mut Uris,
) -> std::io::Result<()> {
    if !f.proof.is_empty() {
        let mut b = Vec::new();
        write_result(&mut b, f, index, 8)?;
        room.put(b.len()).bytes(&b);
        return Ok(());
    }
    let uri = uris.of(f)?;
    // The bound (see `put`): the constant parts, twenty digits a number, six bytes a byte of a
    // string.
    let mut need = RESULT_ROOM + uri.len() + 6 * (f.message.len() + f.code.len());
    for fix in &f.fixes {
        need += FIX_ROOM + uri.len() + 6 * fix.title.len();
        for e in &fix.edits {
            need += EDIT_ROOM + 6 * e.new_text.len();
        }
    }
    let mut b = room.put(need);
    if f.fixes.is_empty() {
        b.bytes(b"        {\n          \"level\": \"");
    } else {
        b.bytes(b"        {\n          \"fixes\": [");
        for (i, fix) in f.fixes.iter().enumerate() {
            b.bytes(if i == 0 { b"\n" } else { b",\n" });
            b.bytes(FIX_OPEN);
            b.bytes(uri);
            b.bytes(b"\n                  },\n                  \"replacements\": [");
            for (j, e) in fix.edits.iter().enumerate() {
                b.bytes(if j == 0 { b"\n" } else { b",\n" });
                flat_region(&mut b, &REGION_24, &e.span);
                b.bytes(EDIT_TEXT);
                b.str(&e.new_text);
                b.bytes(b"\n                      }\n                    }");
            }
            if !fix.edits.is_empty() {
                b.bytes(b"\n                  ");
            }
            b.bytes(FIX_DESCRIPTION);
            b.str(&fix.title);
            b.bytes(b"\n              }\n            }");
        }
        b.bytes(b"\n          ],\n          \"level\": \"");
    }
    b.bytes(level(f.severity).as_bytes());
    b.bytes(LOCATION_OPEN);
    b.bytes(uri);
    b.bytes(b"\n                },\n");
    flat_region(&mut b, &REGION_16, &f.span.lsp());
    b.bytes(MESSAGE_OPEN);
    b.str(&f.message);
    b.bytes(b"\n          },\n          \"ruleId\": ");
    b.str(f.code);
    b.bytes(b",\n          \"ruleIndex\": ");
    b.u64(index as u64);
    b.bytes(b"\n        }");
    Ok(())
}

/// The most bytes of a result without fixes besides its URI, strings and numbers (~420
/// constant bytes, a level word, four numbers and a rule index); of a fix besides its URI and
/// title (~330); of an edit besides its text (~330 and four numbers).
const RESULT_ROOM: usize = 768;
const FIX_ROOM: usize = 512;
const EDIT_ROOM: usize = 512;

/// A fix's lines up to its `artifactLocation.uri` value.
const FIX_OPEN: &[u8] = b"            {\n              \"artifactChanges\": [\n                {\n                  \"artifactLocation\": {\n                    \"uri\": ";
/// After an edit's `deletedRegion`, up to its text.
const EDIT_TEXT: &[u8] =
    b",\n                      \"insertedContent\": {\n                        \"text\": ";
/// After a fix's replacements, up to its description's text.
const FIX_DESCRIPTION: &[u8] = b"]\n                }\n              ],\n              \"description\": {\n                \"text\": ";
/// After the level's text, up to the location's `uri` value.
const LOCATION_OPEN: &[u8] = b"\",\n          \"locations\": [\n            {\n              \"physicalLocation\": {\n                \"artifactLocation\": {\n                  \"uri\": ";
/// After the location's region, up to the message's text.
const MESSAGE_OPEN: &[u8] =
    b"\n              }\n            }\n          ],\n          \"message\": {\n            \"text\": ";

/// The constant parts of a `"key": {"endColumn": _, "endLine": _, "startColumn": _,
/// "startLine": _}` region between its four 1-based numbers: an edit's `deletedRegion` (key
/// indented by 22 spaces), a location's `region` (16).
type RegionParts = [&'static [u8]; 5];

const REGION_24: RegionParts = [
    b"                    {\n                      \"deletedRegion\": {\n                        \"endColumn\": ",
    b",\n                        \"endLine\": ",
    b",\n                        \"startColumn\": ",
    b",\n                        \"startLine\": ",
    b"\n                      }",
];

const REGION_16: RegionParts = [
    b"                \"region\": {\n                  \"endColumn\": ",
    b",\n                  \"endLine\": ",
    b",\n                  \"startColumn\": ",
    b",\n                  \"startLine\": ",
    b"\n                }",
];

/// Inlined where the parts are constants, so that their copies are moves of known length.
#[inline(always)]
fn flat_region(b: &mut Put, parts: &RegionParts, span: &LspSpan) {
    let one = |v: u32| u64::from(v) + 1;
    b.bytes(parts[0]);
    b.u64(one(span.end.utf16_col));
    b.bytes(parts[1]);
    b.u64(one(span.end.line));
    b.bytes(parts[2]);
    b.u64(one(span.start.utf16_col));
    b.bytes(parts[3]);
    b.u64(one(span.start.line));
    b.bytes(parts[4]);
}

/// One site not checked (`--explain`) as a SARIF result of the skipped rule at `index`.
pub fn skipped_result(s: &Skipped, index: usize) -> Value {
    json!({
        "ruleId": SKIPPED,
        "ruleIndex": index,
        "kind": "notApplicable",
        "level": "none",
        "message": {"text": s.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {
                    "uri": super::escape::sarif_uri(super::uri_bytes(&s.path, s.path_bytes.as_ref()))
                },
                "region": region(&s.span.lsp()),
            }
        }],
        "properties": {"readAs": s.read_as.name()},
    })
}

/// The SARIF log around `results`: the rules are the catalogue's, then `extra` (codes it
/// lacks), then the skipped rule when `skipped` (its index is the last).
pub fn log(extra: &[&'static str], skipped: bool, counts: Counts, results: Vec<Value>) -> Value {
    let mut rules: Vec<Rule> = CODES
        .iter()
        .map(|c| Rule {
            code: c.code,
            title: c.title,
            help: c.help,
        })
        .collect();
    rules.extend(extra.iter().map(|code| Rule {
        code,
        title: code,
        help: "See docs/diagnostics.md.",
    }));
    if skipped {
        rules.push(skipped_rule());
    }
    let mut driver = Map::new();
    driver.insert("name".into(), json!("netbox-lsp"));
    driver.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    driver.insert("semanticVersion".into(), json!(env!("CARGO_PKG_VERSION")));
    if let Some(base) = repository() {
        driver.insert("informationUri".into(), json!(base));
    }
    driver.insert(
        "rules".into(),
        Value::Array(rules.iter().map(rule_json).collect()),
    );
    let mut run = json!({
        "tool": {"driver": Value::Object(driver)},
        "columnKind": "utf16CodeUnits",
        "results": results,
    });
    if counts.total() > 0 {
        let by: Map<String, Value> = ReadAs::ALL
            .into_iter()
            .map(|r| (r.name().to_string(), json!(counts.get(r))))
            .collect();
        run["properties"] = json!({ "notChecked": by });
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [run],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(
            uri("examples/my skill/SKILL.md"),
            "examples/my%20skill/SKILL.md"
        );
        assert_eq!(uri("/tmp/a.md"), "file:///tmp/a.md");
        assert_eq!(uri("dir/a#1.md"), "dir/a%231.md");
    }

    /// [`write_result`] writes the bytes of [`result`] pretty-printed and indented, for a
    /// finding with no fix, with fixes of one, two and no edits, and a live one with proof.
    #[test]
    fn written_as_the_value_prints() {
        use super::super::{Pos, Proof, ResolvedEdit, ResolvedFix, Span};
        let p = |line, c| Pos {
            line,
            char_col: c,
            utf16_col: c + 1,
        };
        let span = |l| Span {
            start: p(l, 4),
            end: p(l, 12),
        };
        let edit = |l, t: &str| ResolvedEdit {
            span: span(l).lsp(),
            new_text: t.into(),
        };
        let plain = Located {
            path: "dir/my \"skill\".md".into(),
            path_bytes: None,
            span: span(3),
            code: "unknown-filter",
            severity: Severity::Information,
            message: "`x`\tis \u{1}not é".into(),
            fixes: vec![],
            proof: vec![],
        };
        let fixed = Located {
            fixes: vec![
                ResolvedFix {
                    releases: vec![],
                    title: "Replace".into(),
                    certain: true,
                    edits: vec![edit(3, "role_id")],
                },
                ResolvedFix {
                    releases: vec![],
                    title: "Both".into(),
                    certain: false,
                    edits: vec![edit(3, "a"), edit(9, "\"b\"")],
                },
                ResolvedFix {
                    releases: vec![],
                    title: "None".into(),
                    certain: false,
                    edits: vec![],
                },
            ],
            ..plain.clone()
        };
        let live = Located {
            code: "live-empty-result",
            severity: Severity::Warning,
            proof: vec![Proof {
                method: "GET",
                url: "u".into(),
                curl: "c".into(),
                status: Some(200),
                count: None,
            }],
            ..fixed.clone()
        };
        // The constant-line writer's edges: a multi-line range, large numbers, each level, another file (percent-encoded, not UTF-8, absolute) after the
        // first and back, escapes in every string.
        let wide = Located {
            span: Span {
                start: p(0, 0),
                end: Pos {
                    line: 4_000_000_000,
                    char_col: 0,
                    utf16_col: 123_456,
                },
            },
            severity: Severity::Error,
            message: "\"q\" \\ \r\n\u{8}\u{c}\u{1f}".into(),
            fixes: vec![ResolvedFix {
                releases: vec![],
                title: "t\"\\".into(),
                certain: true,
                edits: vec![ResolvedEdit {
                    span: Span {
                        start: p(2, 0),
                        end: p(7, 3),
                    }
                    .lsp(),
                    new_text: "line\nnext\t\"x\"".into(),
                }],
            }],
            ..fixed.clone()
        };
        let elsewhere = Located {
            path: "/abs/ü dir/a%b#c.py".into(),
            severity: Severity::Hint,
            ..plain.clone()
        };
        let not_utf8 = Located {
            path: "x\u{fffd}.py".into(),
            path_bytes: Some(std::sync::Arc::from(&b"x\xff.py"[..])),
            severity: Severity::Warning,
            ..fixed.clone()
        };
        let mut uris = Uris::default();
        for (f, index) in [
            (&plain, 0),
            (&fixed, 7),
            (&live, 123),
            (&wide, 1),
            (&elsewhere, 2),
            (&not_utf8, 3),
            (&plain, 40),
            (&fixed, usize::MAX),
        ] {
            let pretty = serde_json::to_string_pretty(&result(f, index)).unwrap();
            let indented: Vec<String> =
                pretty.split('\n').map(|l| format!("        {l}")).collect();
            let mut out = Vec::new();
            write_result(&mut out, f, index, 8).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                indented.join("\n"),
                "{}",
                f.code
            );
            let mut pushed = Room::default();
            pushed.put(6).bytes(b"before");
            push_result(&mut pushed, f, index, &mut uris).unwrap();
            assert_eq!(
                String::from_utf8(pushed.bytes().to_vec()).unwrap(),
                format!("before{}", indented.join("\n")),
                "{} {}",
                f.code,
                f.path
            );
        }
    }

    /// Rule indexes remembered per code are the catalogue's, and a code it lacks gets the
    /// same index each time, after the catalogue's.
    #[test]
    fn rule_indexes_as_looked_up() {
        let mut extra = Vec::new();
        let mut memo = RuleIndexes::default();
        for c in CODES.iter().rev().chain(CODES.iter()) {
            assert_eq!(
                memo.of(c.code, &mut extra),
                rule_index(c.code, &mut Vec::new())
            );
        }
        // The same text at another address is the same code.
        let other: &'static str = Box::leak(String::from(CODES[3].code).into_boxed_str());
        assert_eq!(memo.of(other, &mut extra), 3);
        assert_eq!(memo.of("not-a-code", &mut extra), CODES_LEN);
        assert_eq!(memo.of("other-code", &mut extra), CODES_LEN + 1);
        assert_eq!(memo.of("not-a-code", &mut extra), CODES_LEN);
        assert_eq!(extra, ["not-a-code", "other-code"]);
    }
}
