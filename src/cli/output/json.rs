//! `--format json`: one JSON array of findings with LSP positions (0-based lines, UTF-16
//! columns). A public contract, documented in `docs/output-formats.md`: add fields, never
//! rename or remove them.
//!
//! Findings are serialized from borrowed structs whose fields stand in key order (the order
//! `serde_json::Map` keeps, so the bytes are those of the `Value` the format was first built
//! as), written pretty-printed straight to the output: no map per finding.

use super::put::{escape_of, first_escaped, Chunks, Digits, Drain, RawRoom, Room};
use super::{Located, LspPos, LspSpan, Skipped, Span};
use crate::lines::Cursor;
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
        Range::from(&span.lsp())
    }
}

impl From<&LspSpan> for Range {
    fn from(span: &LspSpan) -> Range {
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
    let mut room = Room::default();
    push_finding(&mut room, f, &mut PathLiteral::default())?;
    out.write_all(room.bytes())
}

/// The lines of a finding from the end of its message to its range's first number, with the
/// last path written as a JSON string literal (quoted and escaped), kept while the findings of
/// one file are written: a file's findings share their path ([`Located::path`]), escaped once.
#[derive(Default)]
pub struct PathLiteral {
    /// The path it is of (held, so that its address is not another path's while kept).
    path: Option<std::sync::Arc<str>>,
    literal: Literal,
}

/// Bytes padded with spaces to a multiple of thirty-two, copied thirty-two bytes at a time
/// ([`super::put::Raw::thirty_twos`]) rather than by a call to `memcpy`.
#[derive(Default)]
pub struct Literal {
    padded: Vec<u8>,
    len: usize,
}

impl Literal {
    /// The literal with its padding.
    fn padded(&self) -> &[u8] {
        &self.padded
    }

    /// The literal's length.
    fn len(&self) -> usize {
        self.len
    }
}

impl Literal {
    /// The lines from the end of a message to the range's first number around `path`'s JSON
    /// string literal ([`PathLiteral`]).
    fn of_path(path: &str) -> Literal {
        let mut padded = Vec::with_capacity(path.len() + 96);
        padded.extend_from_slice(b"\",\n    \"path\": ");
        push_str(&mut padded, path);
        padded.extend_from_slice(RANGE_OPEN);
        let len = padded.len();
        padded.resize(len.div_ceil(32) * 32, b' ');
        Literal { padded, len }
    }
}

impl PathLiteral {
    /// The literal of `path`.
    #[inline]
    fn of(&mut self, path: &std::sync::Arc<str>) -> &Literal {
        if !self
            .path
            .as_ref()
            .is_some_and(|p| std::sync::Arc::ptr_eq(p, path))
        {
            self.literal = Literal::of_path(path);
            self.path = Some(path.clone());
        }
        &self.literal
    }
}

/// Appends [`write_finding`]'s bytes to `room` (the sink gathers a batch in one buffer);
/// `paths` keeps the last path's literal.
pub fn push_finding(room: &mut Room, f: &Located, paths: &mut PathLiteral) -> std::io::Result<()> {
    // SAFETY: sixteen bytes a step.
    unsafe { push_finding_by::<false>(room, f, paths) }
}

/// [`push_finding`], its strings copied thirty-two bytes a step when `WIDE`.
///
/// # Safety
/// As [`super::put::Put::escaped_by`].
#[inline(always)]
unsafe fn push_finding_by<const WIDE: bool>(
    room: &mut Room,
    f: &Located,
    paths: &mut PathLiteral,
) -> std::io::Result<()> {
    if f.proof.is_empty() {
        // SAFETY: the caller's promise.
        unsafe { flat::<WIDE>(room, f, paths.of(&f.path), None) };
        Ok(())
    } else {
        let mut b = b"  ".to_vec();
        Direct::at(&mut b, 1).finding(f)?;
        room.put(b.len()).bytes(&b);
        Ok(())
    }
}

/// Writes the JSON elements of `found` to `out` as [`push_finding`] gathers them in `room`, each
/// after `[` (the output's first, `*written == 0`) or `,` and a new line, `room` written out
/// every `chunk` bytes and at the end. On a processor with AVX2 the strings are copied
/// thirty-two bytes a step (the loop compiled for it).
pub fn push_findings(
    room: &mut Room,
    found: &[Located],
    paths: &mut PathLiteral,
    written: &mut usize,
    chunk: usize,
    out: &mut impl Write,
) -> std::io::Result<()> {
    #[cfg(target_arch = "x86_64")]
    if super::put::wide() {
        // SAFETY: the processor has AVX2.
        return unsafe { push_findings_avx2(room, found, paths, written, chunk, out) };
    }
    // SAFETY: sixteen bytes a step.
    unsafe { push_findings_by::<false>(room, found, paths, written, chunk, out) }
}

/// [`push_findings`] compiled for AVX2.
///
/// # Safety
/// The processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn push_findings_avx2(
    room: &mut Room,
    found: &[Located],
    paths: &mut PathLiteral,
    written: &mut usize,
    chunk: usize,
    out: &mut impl Write,
) -> std::io::Result<()> {
    // SAFETY: AVX2 is there, and this function is compiled for it.
    unsafe { push_findings_by::<true>(room, found, paths, written, chunk, out) }
}

/// [`push_findings`]' loop.
///
/// # Safety
/// As [`super::put::Put::escaped_by`].
#[inline(always)]
unsafe fn push_findings_by<const WIDE: bool>(
    room: &mut Room,
    found: &[Located],
    paths: &mut PathLiteral,
    written: &mut usize,
    chunk: usize,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for f in found {
        let first = *written == 0;
        *written += 1;
        if f.proof.is_empty() {
            // SAFETY: the caller's promise.
            unsafe { flat::<WIDE>(room, f, paths.of(&f.path), Some(first)) };
        } else {
            room.put(2).bytes(if first { b"[\n" } else { b",\n" });
            // SAFETY: the caller's promise.
            unsafe { push_finding_by::<WIDE>(room, f, paths)? };
        }
        if room.len() >= chunk {
            out.write_all(room.bytes())?;
            room.clear();
        }
    }
    out.write_all(room.bytes())?;
    room.clear();
    Ok(())
}

/// The most bytes of a finding's JSON besides its strings and numbers (the constant lines of
/// a finding with a `source`), of a fix besides its title, and of an edit besides its text
/// and numbers.
const FINDING_ROOM: usize = 512;
const FIX_ROOM: usize = 192;
const EDIT_ROOM: usize = 448;

/// A fix as [`flat_parts`] writes it: a located one ([`super::ResolvedFix`]) or one of a
/// finding still in byte offsets ([`crate::finding::Fix`], whose edits' positions are given
/// apart).
trait FixText {
    type Edit: EditText;
    fn title(&self) -> &str;
    fn certain(&self) -> bool;
    fn edits(&self) -> &[Self::Edit];
}

/// An edit's text, as [`FixText`].
trait EditText {
    fn new_text(&self) -> &str;
}

/// [`FixText`] and [`EditText`] for a fix type and its edit type, which hold the same fields.
macro_rules! fix_text {
    ($fix:ty, $edit:ty) => {
        impl FixText for $fix {
            type Edit = $edit;
            #[inline(always)]
            fn title(&self) -> &str {
                &self.title
            }
            #[inline(always)]
            fn certain(&self) -> bool {
                self.certain
            }
            #[inline(always)]
            fn edits(&self) -> &[$edit] {
                &self.edits
            }
        }

        impl EditText for $edit {
            #[inline(always)]
            fn new_text(&self) -> &str {
                &self.new_text
            }
        }
    };
}

fix_text!(super::ResolvedFix, super::ResolvedEdit);
fix_text!(crate::finding::Fix, crate::finding::Edit);

/// [`flat_parts`] of a located finding.
///
/// # Safety
/// As [`super::put::Put::escaped_by`].
#[inline(always)]
unsafe fn flat<const WIDE: bool>(
    room: &mut Room,
    f: &Located,
    path: &Literal,
    first: Option<bool>,
) {
    let mut spans = f
        .fixes
        .iter()
        .flat_map(|fix| fix.edits.iter().map(|e| e.span));
    let parts = Parts {
        code: f.code,
        message: &f.message,
        fixes: &f.fixes,
        span: f.span.lsp(),
        severity: f.severity,
    };
    // SAFETY: the caller's promise.
    unsafe { flat_parts::<WIDE, _>(room, &parts, &mut spans, path, first) }
}

/// The digits of a range's four numbers, a line's made once when the range is on one line.
#[derive(Clone, Copy)]
struct RangeDigits {
    end_col: Digits,
    end_line: Digits,
    start_col: Digits,
    start_line: Digits,
}

impl RangeDigits {
    #[inline(always)]
    fn of(span: &LspSpan) -> RangeDigits {
        let end_line = Digits::of(span.end.line);
        RangeDigits {
            end_col: Digits::of(span.end.utf16_col),
            end_line,
            start_col: Digits::of(span.start.utf16_col),
            start_line: if span.start.line == span.end.line {
                end_line
            } else {
                Digits::of(span.start.line)
            },
        }
    }

    /// Writes the four numbers from the end's `character` on: `line` before each line number,
    /// `between` from the end's line to the start's `character`.
    ///
    /// # Safety
    /// As [`super::put::Raw::bytes`]: within the room the writer was given.
    #[inline(always)]
    unsafe fn put<const L: usize, const B: usize>(
        &self,
        b: &mut super::put::Raw<'_>,
        line: &[u8; L],
        between: &[u8; B],
    ) {
        // SAFETY: the caller's promise.
        unsafe {
            b.digits(self.end_col);
            b.bytes(line);
            b.digits(self.end_line);
            b.bytes(between);
            b.digits(self.start_col);
            b.bytes(line);
            b.digits(self.start_line);
        }
    }
}

/// What [`flat_parts`] writes of a finding.
struct Parts<'a, X> {
    code: &'a str,
    message: &'a str,
    fixes: &'a [X],
    span: LspSpan,
    severity: crate::finding::Severity,
}

/// [`Direct::finding`] at the array's level for a finding without proof (every finding but a
/// live one's), from the lines that do not change written as constants into room made once
/// for the finding ([`Room::raw`]), neighbouring constants as one; `spans` gives the ranges
/// of the fixes' edits in order, `path` holds the path's literal and the lines around it
/// ([`PathLiteral`]). With `first`, the element's separator first: `[` and a new line before
/// the array's first element (`Some(true)`), `,` and a new line before the others.
///
/// # Safety
/// As [`super::put::Put::escaped_by`]; `spans` gives one range for each edit.
#[inline(always)]
unsafe fn flat_parts<const WIDE: bool, X: FixText>(
    room: &mut impl RawRoom,
    f: &Parts<X>,
    spans: &mut impl Iterator<Item = LspSpan>,
    path: &Literal,
    first: Option<bool>,
) {
    // The bound: the constant parts, ten digits a number, six bytes a byte of a string.
    let mut need = FINDING_ROOM
        + SEVERITY_LINE
        + 40
        + path.padded().len()
        + 6 * (f.code.len() + f.message.len());
    for fix in f.fixes {
        need += FIX_ROOM + 6 * fix.title().len();
        for e in fix.edits() {
            need += EDIT_ROOM + 40 + 6 * e.new_text().len();
        }
    }
    let digits = RangeDigits::of(&f.span);
    // SAFETY (every write below): within `need`; the caller's promise for `WIDE`.
    unsafe {
        let mut b = room.raw(need);
        // The quotes of the strings are in the constant parts around them.
        match first {
            None => b.bytes(b"  {\n    \"code\": \""),
            Some(true) => b.bytes(b"[\n  {\n    \"code\": \""),
            Some(false) => b.bytes(b",\n  {\n    \"code\": \""),
        }
        b.escaped::<WIDE>(f.code);
        if f.fixes.is_empty() {
            b.bytes(b"\",\n    \"fixes\": [],\n    \"message\": \"");
        } else {
            b.bytes(b"\",\n    \"fixes\": [");
            let last = f.fixes.len() - 1;
            for (i, fix) in f.fixes.iter().enumerate() {
                if i > 0 {
                    b.bytes(b",\n      {\n        \"edits\": [");
                } else {
                    b.bytes(b"\n      {\n        \"edits\": [");
                }
                for (j, e) in fix.edits().iter().enumerate() {
                    if j > 0 {
                        b.bytes(b",\n          {\n            \"new_text\": \"");
                    } else {
                        b.bytes(b"\n          {\n            \"new_text\": \"");
                    }
                    b.escaped::<WIDE>(e.new_text());
                    let span = spans.next().unwrap_or(f.span);
                    // Most edits replace the finding's own range: its numbers' digits.
                    let d = if span == f.span {
                        digits
                    } else {
                        RangeDigits::of(&span)
                    };
                    b.bytes(b"\",\n            \"range\": {\n              \"end\": {\n                \"character\": ");
                    d.put(
                        &mut b,
                        b",\n                \"line\": ",
                        b"\n              },\n              \"start\": {\n                \"character\": ",
                    );
                    b.bytes(b"\n              }\n            }\n          }");
                }
                match (fix.edits().is_empty(), fix.certain()) {
                    (false, true) => b.bytes(
                        b"\n        ],\n        \"preferred\": true,\n        \"title\": \"",
                    ),
                    (false, false) => b.bytes(
                        b"\n        ],\n        \"preferred\": false,\n        \"title\": \"",
                    ),
                    (true, true) => {
                        b.bytes(b"],\n        \"preferred\": true,\n        \"title\": \"")
                    }
                    (true, false) => {
                        b.bytes(b"],\n        \"preferred\": false,\n        \"title\": \"")
                    }
                }
                b.escaped::<WIDE>(fix.title());
                if i == last {
                    b.bytes(b"\"\n      }\n    ],\n    \"message\": \"");
                } else {
                    b.bytes(b"\"\n      }");
                }
            }
        }
        b.escaped::<WIDE>(f.message);
        // `",\n    "path": …,\n    "range": {…"character": `, then the numbers.
        b.thirty_twos(path.padded(), path.len());
        digits.put(
            &mut b,
            b",\n        \"line\": ",
            b"\n      },\n      \"start\": {\n        \"character\": ",
        );
        // The end of the range, the `"severity"` line and the end of the finding: one copy of
        // fixed length; a live code's `source` before the end.
        let (line, len) = &SEVERITY_LINES[f.severity as usize];
        if crate::live::is_live_code(f.code) {
            b.padded(line, *len - FINDING_END.len());
            b.bytes(b",\n    \"source\": \"");
            b.escaped::<WIDE>(crate::live::SOURCE);
            b.bytes(b"\"");
            b.bytes(FINDING_END);
        } else {
            b.padded(line, *len);
        }
    }
}

/// The JSON elements of one file's findings in chunks, each element after `,` and a new line
/// (the sink writes the output's first one after `[` instead:
/// [`super::stream::Sink::add_rendered`]), with their count and their counts by severity
/// (`[errors, warnings, information, hints]`). With a [`Drain`], `chunks` holds only what
/// was not drained (the last chunk): the drained ones came first.
#[derive(Default)]
pub struct Rendered {
    pub chunks: Vec<Vec<u8>>,
    pub count: usize,
    pub tally: [usize; 4],
}

/// [`super::locate`] and [`push_findings`] in one step for `--format json`: the findings of
/// one file (`text`, indexed by `lines`, shown as `path`), given in parts as
/// [`crate::analysis::analyze_parted`] gives them, written as JSON elements with their positions,
/// without building [`Located`] findings; the bytes are those of `locate` then
/// `push_findings` (after `,`) of the parts joined. Each finding is dropped once written, on
/// the thread that made it.
/// Positions come from one [`Cursor`] as in `locate`. With `drain`, each chunk is given to it
/// as soon as it is full (in order; the last one stays in [`Rendered::chunks`]), so that the
/// file's JSON is written as it is made rather than held whole. Without `free`, the findings
/// written are not freed but left to the process's exit (the run's last file: nothing
/// allocated after them needs their memory, and freeing took ~290 instructions a finding,
/// most of them frees from another thread than the one that made them).
#[inline(never)]
pub fn locate_json(
    path: &str,
    text: &str,
    lines: &crate::lines::LineIndex,
    findings: Vec<Vec<crate::analysis::Written>>,
    drain: Option<&mut Drain<'_>>,
    free: bool,
) -> Rendered {
    #[cfg(target_arch = "x86_64")]
    if super::put::wide() {
        // SAFETY: the processor has AVX2.
        return unsafe { locate_json_avx2(path, text, lines, findings, drain, free) };
    }
    // SAFETY: sixteen bytes a step.
    unsafe { locate_json_by::<false>(path, text, lines, findings, drain, free) }
}

/// [`locate_json`] compiled for AVX2.
///
/// # Safety
/// The processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn locate_json_avx2(
    path: &str,
    text: &str,
    lines: &crate::lines::LineIndex,
    findings: Vec<Vec<crate::analysis::Written>>,
    drain: Option<&mut Drain<'_>>,
    free: bool,
) -> Rendered {
    // SAFETY: AVX2 is there, and this function is compiled for it.
    unsafe { locate_json_by::<true>(path, text, lines, findings, drain, free) }
}

/// [`locate_json`]'s loop.
///
/// # Safety
/// As [`super::put::Put::escaped_by`].
#[inline(always)]
unsafe fn locate_json_by<const WIDE: bool>(
    path: &str,
    text: &str,
    lines: &crate::lines::LineIndex,
    findings: Vec<Vec<crate::analysis::Written>>,
    drain: Option<&mut Drain<'_>>,
    free: bool,
) -> Rendered {
    let mut cursor = Cursor::new(text, lines);
    let mut pos = |offset: usize| {
        let (line, _, utf16_col) = cursor.position(offset);
        LspPos { line, utf16_col }
    };
    let literal = Literal::of_path(path);
    let mut r = Rendered {
        count: findings.iter().map(Vec::len).sum(),
        ..Rendered::default()
    };
    let mut out = match drain {
        Some(d) => Chunks::draining(d),
        None => Chunks::default(),
    };
    // The ranges of a finding's edits, in order (reused).
    let mut spans: Vec<LspSpan> = Vec::new();
    // Each finding dropped once written (with `free`): the memory of its strings is free
    // again for what follows (held together with the JSON of 100,000 calls, they took 105 MB
    // of new pages, ~40 ms of page faults).
    for f in findings.into_iter().flatten() {
        let range = &f.range;
        let start = pos(range.start);
        let span = LspSpan {
            start,
            end: if range.end > range.start {
                pos(range.end)
            } else {
                start
            },
        };
        spans.clear();
        for fix in &f.fixes {
            for e in &fix.edits {
                // Most edits replace the finding's own range.
                spans.push(if e.range == *range {
                    span
                } else {
                    LspSpan {
                        start: pos(e.range.start),
                        end: pos(e.range.end.max(e.range.start)),
                    }
                });
            }
        }
        r.tally[f.severity as usize] += 1;
        let parts = Parts {
            code: f.code,
            message: &f.message,
            fixes: &f.fixes,
            span,
            severity: f.severity,
        };
        // SAFETY: the caller's promise; one range for each edit.
        unsafe {
            flat_parts::<WIDE, _>(
                &mut out,
                &parts,
                &mut spans.iter().copied(),
                &literal,
                Some(false),
            )
        };
        if !free {
            std::mem::forget(f);
        }
    }
    r.chunks = out.into_chunks();
    r
}

/// The last line of a finding.
const FINDING_END: &[u8; 4] = b"\n  }";

/// The end of a finding's range, its `"severity"` line and the end of the finding, by
/// [`crate::finding::Severity`] (in its order), padded to one length, with its length.
const SEVERITY_LINES: [([u8; SEVERITY_LINE], usize); 4] = {
    const fn line(s: &[u8]) -> ([u8; SEVERITY_LINE], usize) {
        const HEAD: &[u8] = b"\n      }\n    }";
        let mut a = [b' '; SEVERITY_LINE];
        let mut i = 0;
        let mut k = 0;
        while k < HEAD.len() {
            a[i] = HEAD[k];
            i += 1;
            k += 1;
        }
        k = 0;
        while k < s.len() {
            a[i] = s[k];
            i += 1;
            k += 1;
        }
        k = 0;
        while k < FINDING_END.len() {
            a[i] = FINDING_END[k];
            i += 1;
            k += 1;
        }
        (a, i)
    }
    [
        line(b",\n    \"severity\": \"error\""),
        line(b",\n    \"severity\": \"warning\""),
        line(b",\n    \"severity\": \"information\""),
        line(b",\n    \"severity\": \"hint\""),
    ]
};

// [`SEVERITY_LINES`] is indexed by the severity.
const _: () = {
    use crate::finding::Severity;
    assert!(
        Severity::Error as usize == 0
            && Severity::Warning as usize == 1
            && Severity::Information as usize == 2
            && Severity::Hint as usize == 3
    );
};

/// The padded length of [`SEVERITY_LINES`].
const SEVERITY_LINE: usize = 64;

/// The start of a finding's range up to its first number (after its path).
const RANGE_OPEN: &[u8] = b",\n    \"range\": {\n      \"end\": {\n        \"character\": ";

/// `n` in decimal (itoa's digits) appended to `b`.
#[inline]
pub(super) fn push_u32(b: &mut Vec<u8>, n: u32) {
    // Columns and most lines have one or two digits: written as bytes of known count, without
    // itoa's buffer and a copy of unknown length (~45 instructions a number, 91,054 numbers in
    // the JSON of a check of 10,000 calls).
    if n < 10 {
        b.push(b'0' + n as u8);
    } else if n < 100 {
        b.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
    } else {
        b.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
}

/// [`push_u32`] of a `u64` (SARIF's and GitLab's 1-based lines and columns, rule indexes).
#[inline]
pub(super) fn push_u64(b: &mut Vec<u8>, n: u64) {
    match u32::try_from(n) {
        Ok(n) => push_u32(b, n),
        Err(_) => b.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
    }
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

/// A JSON string literal as serde_json writes it (`"`, `\` and control characters escaped:
/// `\b \t \n \f \r` short, the others `\u00xx`; everything else as is): the runs between
/// escapes written whole, found by [`first_escaped`].
pub(super) fn write_str(out: &mut (impl Write + ?Sized), s: &str) -> std::io::Result<()> {
    let b = s.as_bytes();
    out.write_all(b"\"")?;
    let mut start = 0;
    loop {
        let i = first_escaped(b, start);
        out.write_all(&b[start..i])?;
        if i == b.len() {
            break;
        }
        let mut esc = [0; 6];
        let k = escape_of(b[i], &mut esc);
        out.write_all(&esc[..k])?;
        start = i + 1;
    }
    out.write_all(b"\"")
}

/// [`write_str`] appending to a buffer: the room for the usual case (nothing escaped) reserved
/// once.
#[inline]
pub(super) fn push_str(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    push_escaped(out, s);
    out.push(b'"');
}

/// The inside of [`push_str`]'s literal: `s` escaped, without the quotes.
#[inline]
pub(super) fn push_escaped(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    let mut start = 0;
    loop {
        let i = first_escaped(b, start);
        out.extend_from_slice(&b[start..i]);
        if i == b.len() {
            break;
        }
        let mut esc = [0; 6];
        let k = escape_of(b[i], &mut esc);
        out.extend_from_slice(&esc[..k]);
        start = i + 1;
    }
}

/// A pretty JSON writer by hand, with serde_json's `PrettyFormatter` rules (two spaces; an empty
/// array or object as `[]`, `{}`): the caller writes the keys in the order serde_json's sorted
/// `Map` holds them, so the bytes are those of the `Value` pretty-printed, without building it.
/// Used for each finding of the JSON, SARIF and GitLab outputs.
pub(super) struct Direct<'w, W: Write> {
    w: &'w mut W,
    f: Nested,
}

impl<'w, W: Write> Direct<'w, W> {
    /// A writer whose first container opens `level` levels deep (its closing bracket is
    /// indented by `2 × level` spaces; the caller writes the first line's indentation).
    pub(super) fn at(w: &'w mut W, level: usize) -> Self {
        Direct {
            w,
            f: Nested {
                level,
                has_value: false,
            },
        }
    }

    /// The next element of the current array (`first`: the array's first).
    pub(super) fn item(&mut self, first: bool) -> std::io::Result<()> {
        self.f.item(self.w, first)
    }

    pub(super) fn key(&mut self, first: bool, k: &str) -> std::io::Result<()> {
        self.f.item(self.w, first)?;
        self.w.write_all(b"\"")?;
        self.w.write_all(k.as_bytes())?;
        self.w.write_all(b"\": ")
    }

    /// Ends a value of the current object or array.
    pub(super) fn done(&mut self) {
        self.f.has_value = true;
    }

    pub(super) fn str(&mut self, first: bool, k: &str, v: &str) -> std::io::Result<()> {
        self.key(first, k)?;
        write_str(self.w, v)?;
        self.done();
        Ok(())
    }

    pub(super) fn num(&mut self, first: bool, k: &str, v: Option<u64>) -> std::io::Result<()> {
        self.key(first, k)?;
        match v {
            Some(n) => self.w.write_all(itoa::Buffer::new().format(n).as_bytes())?,
            None => self.w.write_all(b"null")?,
        }
        self.done();
        Ok(())
    }

    pub(super) fn open(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.f.open(self.w, b)
    }

    pub(super) fn close(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.f.close(self.w, b)?;
        self.done();
        Ok(())
    }

    pub(super) fn bool(&mut self, first: bool, k: &str, v: bool) -> std::io::Result<()> {
        self.key(first, k)?;
        self.w.write_all(if v { b"true" } else { b"false" })?;
        self.done();
        Ok(())
    }

    /// `"k": {"text": v}` (SARIF's messages and descriptions).
    pub(super) fn text(&mut self, first: bool, k: &str, v: &str) -> std::io::Result<()> {
        self.key(first, k)?;
        self.open(b"{")?;
        self.str(true, "text", v)?;
        self.close(b"}")
    }

    /// A live finding's requests as `"proof"`, each `{"count", "curl", "method", "status",
    /// "url"}` (`null` for a count or status NetBox gave none of).
    pub(super) fn proof(&mut self, first: bool, proof: &[super::Proof]) -> std::io::Result<()> {
        self.key(first, "proof")?;
        self.open(b"[")?;
        for (i, p) in proof.iter().enumerate() {
            self.item(i == 0)?;
            self.open(b"{")?;
            self.num(true, "count", p.count)?;
            self.str(false, "curl", &p.curl)?;
            self.str(false, "method", p.method)?;
            self.num(false, "status", p.status.map(u64::from))?;
            self.str(false, "url", &p.url)?;
            self.close(b"}")?;
        }
        self.close(b"]")
    }

    fn position(&mut self, first: bool, k: &str, p: &LspPos) -> std::io::Result<()> {
        self.key(first, k)?;
        self.open(b"{")?;
        self.num(true, "character", Some(u64::from(p.utf16_col)))?;
        self.num(false, "line", Some(u64::from(p.line)))?;
        self.close(b"}")
    }

    fn range(&mut self, first: bool, span: &LspSpan) -> std::io::Result<()> {
        self.key(first, "range")?;
        self.open(b"{")?;
        self.position(true, "end", &span.end)?;
        self.position(false, "start", &span.start)?;
        self.close(b"}")
    }

    fn finding(&mut self, f: &Located) -> std::io::Result<()> {
        self.open(b"{")?;
        self.str(true, "code", f.code)?;
        self.key(false, "fixes")?;
        self.open(b"[")?;
        for (i, fix) in f.fixes.iter().enumerate() {
            self.item(i == 0)?;
            self.open(b"{")?;
            self.key(true, "edits")?;
            self.open(b"[")?;
            for (j, e) in fix.edits.iter().enumerate() {
                self.item(j == 0)?;
                self.open(b"{")?;
                self.str(true, "new_text", &e.new_text)?;
                self.range(false, &e.span)?;
                self.close(b"}")?;
            }
            self.close(b"]")?;
            self.bool(false, "preferred", fix.certain)?;
            self.str(false, "title", &fix.title)?;
            self.close(b"}")?;
        }
        self.close(b"]")?;
        self.str(false, "message", &f.message)?;
        self.str(false, "path", &f.path)?;
        if !f.proof.is_empty() {
            self.proof(false, &f.proof)?;
        }
        self.range(false, &f.span.lsp())?;
        self.str(false, "severity", f.severity.as_str())?;
        if crate::live::is_live_code(f.code) {
            self.str(false, "source", crate::live::SOURCE)?;
        }
        self.close(b"}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::put::{first_escaped_bytes, first_escaped_words};
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
                releases: vec![],
                title: "t".into(),
                certain: true,
                edits: vec![super::super::ResolvedEdit {
                    span: span.lsp(),
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
        // Without proof (the constant lines): two fixes, one of two edits, one of none, a
        // certain and an uncertain one; a live code's `source` too.
        let second = super::super::ResolvedFix {
            releases: vec![],
            title: "u\u{1}".into(),
            certain: false,
            edits: vec![],
        };
        let fixed = Located {
            fixes: vec![
                super::super::ResolvedFix {
                    releases: vec![],
                    edits: vec![
                        live.fixes[0].edits[0].clone(),
                        live.fixes[0].edits[0].clone(),
                    ],
                    ..live.fixes[0].clone()
                },
                second,
            ],
            proof: vec![],
            span: Span {
                start: p(0, 0),
                end: p(4_000_000_000, 123_456),
            },
            ..live.clone()
        };
        let fixed_plain = Located {
            code: "unknown-filter",
            ..fixed.clone()
        };
        // Every byte of every string escaped as `\u00xx` (six bytes a byte: the bound of the
        // room made for a finding), on a finding with two fixes of two edits.
        let worst = |s: &str| -> String { s.repeat(40) };
        let escaped = Located {
            path: worst("\u{1}").into(),
            message: worst("\u{1f}"),
            code: "live-\u{2}",
            fixes: vec![
                super::super::ResolvedFix {
                    releases: vec![],
                    title: worst("\u{3}"),
                    certain: true,
                    edits: vec![
                        super::super::ResolvedEdit {
                            span: span.lsp(),
                            new_text: worst("\u{4}"),
                        };
                        2
                    ],
                };
                2
            ],
            proof: vec![],
            ..live.clone()
        };
        for f in [&live, &plain, &fixed, &fixed_plain, &escaped] {
            let mut out = Vec::new();
            write_finding(&mut out, f).unwrap();
            let mut v = json!({
                "path": f.path,
                "range": range(&f.span),
                "severity": f.severity.as_str(),
                "code": f.code,
                "message": f.message,
                "fixes": f.fixes.iter().map(|fix| json!({
                    "title": fix.title, "preferred": fix.certain,
                    "edits": fix.edits.iter().map(|e| json!({
                        "range": serde_json::to_value(Range::from(&e.span)).unwrap(), "new_text": e.new_text,
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
            // The batch writer (compiled for AVX2 where there is AVX2) writes the same element
            // after its separator, the first and a later one.
            for (written, sep) in [(0, "[\n"), (1, ",\n")] {
                let (mut room, mut out) = (Room::default(), Vec::new());
                let mut n = written;
                push_findings(
                    &mut room,
                    std::slice::from_ref(f),
                    &mut PathLiteral::default(),
                    &mut n,
                    1 << 16,
                    &mut out,
                )
                .unwrap();
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    sep.to_owned() + &indented(&v)
                );
                assert_eq!(n, written + 1);
            }
        }
        assert!(finding(&live).get("proof").is_some() && finding(&plain).get("proof").is_none());
    }

    /// [`locate_json`] writes the bytes of [`super::super::locate`] then [`push_findings`]
    /// (the old path, kept as the oracle): findings on ASCII and non-ASCII lines, empty ranges,
    /// edits on the finding's range and elsewhere, several fixes, strings of every length up
    /// to 70 bytes with a byte to escape at every place (quotes, backslashes, control
    /// characters), numbers of every length, and enough of them to fill many chunks.
    #[test]
    fn locate_json_writes_what_locate_then_push_findings_write() {
        use crate::finding::{Edit, Finding, Fix, Severity};
        let mut text = String::new();
        for i in 0..3000 {
            match i % 4 {
                0 => text.push_str("plain ascii line with some words in it\n"),
                1 => text.push_str("é😀 non-ascii “quoted” line x y z\n"),
                2 => text.push('\n'),
                _ => text.push_str(&"x".repeat(i % 97 + 1)),
            }
            if i % 4 == 3 {
                text.push('\n');
            }
        }
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&o| text.is_char_boundary(o))
            .collect();
        let specials = ['"', '\\', '\n', '\u{1}', '\u{1f}', 'é'];
        let string = |len: usize, k: usize| -> String {
            let mut s: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789"
                .chars()
                .cycle()
                .take(len)
                .collect();
            if len > 0 && !k.is_multiple_of(3) {
                s[k % len] = specials[k % specials.len()];
            }
            s.into_iter().collect()
        };
        let codes = [
            "unknown-filter",
            "x",
            "",
            "invalid-choice",
            "live-empty-result",
            "a\"b",
        ];
        let mut findings = Vec::new();
        for k in 0..4000usize {
            let at = boundaries[(k * 7919) % boundaries.len()];
            let end = boundaries[((k * 7919) % boundaries.len() + k % 5).min(boundaries.len() - 1)];
            let elsewhere = boundaries[(k * 104_729) % boundaries.len()];
            let mut f = Finding::new(
                at..end,
                codes[k % codes.len()],
                [
                    Severity::Error,
                    Severity::Warning,
                    Severity::Information,
                    Severity::Hint,
                ][k % 4],
                string(k % 71, k),
            );
            for j in 0..(k % 3) {
                f.fixes.push(Fix {
                    title: string((k + j) % 40, k + j),
                    certain: (k + j) % 2 == 0,
                    edits: (0..((k + j) % 3))
                        .map(|e| Edit {
                            range: if e == 0 {
                                at..end
                            } else {
                                elsewhere..elsewhere
                            },
                            new_text: string((k * 3 + e) % 35, k + e),
                        })
                        .collect(),
                    releases: Vec::new(),
                });
            }
            findings.push(f);
        }
        let lines = crate::lines::LineIndex::new(&text);
        for path in ["d/a \"b\".py", "x.py"] {
            let rendered = locate_json(
                path,
                &text,
                &lines,
                vec![findings.iter().cloned().map(Into::into).collect()],
                None,
                true,
            );
            assert!(rendered.chunks.len() > 4);
            assert_eq!(rendered.count, findings.len());
            assert_eq!(rendered.tally, [1000; 4]);
            let got: Vec<u8> = rendered.chunks.concat();
            let located = super::super::locate(path, &text, &lines, findings.clone());
            let (mut room, mut want) = (Room::default(), Vec::new());
            let mut written = 1;
            push_findings(
                &mut room,
                &located,
                &mut PathLiteral::default(),
                &mut written,
                1 << 16,
                &mut want,
            )
            .unwrap();
            assert!(got == want, "{path}");
            // And the `Value`s pretty-printed as one array (serde_json's escapes and numbers).
            let arr = Value::Array(located.iter().map(finding).collect());
            let whole = format!("[{}\n]", String::from_utf8(got[1..].to_vec()).unwrap());
            assert!(
                whole == serde_json::to_string_pretty(&arr).unwrap(),
                "{path}"
            );
        }
    }

    /// [`push_u32`] writes a number's decimal digits for every length.
    #[test]
    fn numbers_are_written_as_their_digits() {
        for n in (0..1000).chain([9_999, 10_000, 123_456, u32::MAX]) {
            let mut b = b"x".to_vec();
            push_u32(&mut b, n);
            assert_eq!(&b[1..], n.to_string().as_bytes());
        }
        for n in [0, 9, 10, 99, 100, u64::from(u32::MAX) + 1, u64::MAX] {
            let mut b = Vec::new();
            push_u64(&mut b, n);
            assert_eq!(b, n.to_string().as_bytes());
        }
    }

    /// [`write_str`] writes serde_json's bytes for every control character, quotes and
    /// backslashes at each place of an eight-byte word, DEL and non-ASCII text.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut cases: Vec<String> = (0u8..0x80).map(|c| char::from(c).to_string()).collect();
        cases.extend(
            [
                "",
                "plain ascii text of some length",
                "é “quoted” ✅",
                "a\\b\"c",
            ]
            .map(String::from),
        );
        for at in 0..17 {
            for c in ['"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é'] {
                let mut s = "x".repeat(at);
                s.push(c);
                s.push_str("tail of the string");
                cases.push(s);
            }
        }
        // Longer strings: an escape at each place of the 16-byte steps and of the last one.
        for len in [15, 16, 17, 31, 32, 33, 47, 100] {
            for at in 0..len {
                for c in ['"', '\\', '\u{1f}', '\u{0}'] {
                    let mut s: Vec<char> = "é“x”abcdefghij".chars().cycle().take(len).collect();
                    s[at] = c;
                    cases.push(s.into_iter().collect());
                }
            }
        }
        for s in &cases {
            let want = serde_json::to_string(s).unwrap();
            let mut out = Vec::new();
            write_str(&mut out, s).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), want, "{s:?}");
            let mut pushed = b"x".to_vec();
            push_str(&mut pushed, s);
            assert_eq!(&pushed[1..], want.as_bytes(), "{s:?}");
            // Into room made for it, after bytes already written (the copy by sixteen bytes
            // stores past the string's end, into the slack, never over what was written).
            let mut room = Room::default();
            room.put(3).bytes(b"abc");
            room.put(6 * s.len() + 2).str(s);
            room.put(1).bytes(b"z");
            assert_eq!(room.bytes(), format!("abc{want}z").as_bytes(), "{s:?}");
            // Every scanner finds the first byte to escape from every start.
            let b = s.as_bytes();
            for from in 0..=b.len() {
                let want = first_escaped_bytes(b, from);
                assert_eq!(first_escaped(b, from), want, "{s:?} from {from}");
                assert_eq!(first_escaped_words(b, from), want, "{s:?} from {from}");
            }
        }
    }
}
