//! What is expected at the cursor: an object type, a filter name of some endpoint, or a choice
//! value of some filter. Pure. Which NetBox call the cursor is in comes from the extractors (the
//! call-form table of `extract::forms`), run on the unit under the cursor with the half-typed
//! token made whole: a forward scan of the text before the cursor (brackets, strings, comments)
//! finds the innermost open call / dict / list and whether a key or a value is being typed; the
//! unit's text, with that token closed (`"ro` → `"ro": None`) and the brackets open at the
//! cursor closed, is extracted like any document, and the filter entry or target under the
//! cursor says what is expected. So every form that is checked also completes and hovers, and a
//! half-typed call completes as a finished one is checked. Anything not recognised gives `None`
//! (no completion outside a NetBox call).

use crate::extract::markdown::Code;
use crate::extract::unit::{CodeUnit, Reading};
use crate::extract::{CallForm, HostKind, Site, Syntax};
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// What the cursor position expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// An object type (`dcim.device`).
    ObjectType,
    /// A pynetbox app attribute after `nb.` (`dcim`).
    PynetboxApp,
    /// A pynetbox endpoint attribute after `nb.<app>.` (`devices`, `device_types`).
    PynetboxEndpoint { app: String },
    /// An API path after `/api/` (`dcim/devices/`).
    ApiPath,
    /// A filter name of `target` (an object type or endpoint as written).
    FilterName { target: String },
    /// A value of filter `filter` of `target`.
    ChoiceValue { target: String, filter: String },
}

/// How an inserted value must be quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// The cursor is inside a string (or no quotes are needed): insert the bare value.
    None,
    /// A bare position where the host needs a quoted string: insert `"value"`.
    Needed,
}

/// The cursor context: what is expected and which bytes of the partly typed word to replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    pub expect: Expect,
    /// Bytes of the already typed part (replaced by the completion).
    pub prefix: Range<usize>,
    pub quote: Quote,
}

/// How far back the scan looks, in bytes.
const WINDOW: usize = 16 * 1024;
/// How far forward a dict's object type is looked for, in bytes.
const LOOK_AHEAD: usize = 2048;

pub use crate::extract::CHANGELOG_TARGET;

macro_rules! re {
    ($name:ident, $pat:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| Regex::new($pat).expect("valid regex"));
    };
}

// The path may lack `/api` after an interpolated base (`f"{API_URL}/dcim/devices/?...`).
re!(
    QUERY,
    r"((?:/api)?/(?:[a-z0-9_-]+/)+)\?([^\s\x22'`<>()\]]*)$"
);
re!(API_PATH, r"/api/((?:[a-z0-9_-]+/?)*)$");
// The pynetbox attributes after `nb.`/`netbox.`; the character before the name is checked in
// code ([`after_word`]): a negated Unicode `\w` class in the pattern (`[^\w.]`) made each of
// these two automata 390 KB, held for the server's life.
re!(NB_APP, r"(?:nb|netbox)\.([a-z_]*)$");
re!(NB_ENDPOINT, r"(?:nb|netbox)\.([a-z_]+)\.([a-z_]*)$");
re!(KWARG_NAME, r"^\s*(\w+)\s*=\s*$");
re!(DICT_KEY_OPEN, r#"^\s*["']?(\w+)["']?\s*:\s*$"#);
re!(
    STRING_ASSIGNMENT,
    r#"^[A-Za-z_]\w*\s*=\s*(?:[rRbBuUfF]{0,2}["']|[A-Za-z_][\w.]*\s*\+)"#
);
re!(OBJECT_TYPE_STR_KEY, r#"^\s*["']?object_type["']?\s*:\s*$"#);
re!(YAML_KEY, r"^(\s*(?:-\s+)?)(\w*)$");
re!(
    YAML_VALUE,
    r#"^(\s*(?:-\s+)?)["']?(\w+)["']?:\s*["']?([\w./ -]*)$"#
);

/// The context at byte `offset` of `text` (a host document of `kind`), read in the unit that
/// holds the offset ([`crate::extract::unit::at`]: a Markdown code block or span in its
/// language, a notebook cell, the whole document) with the prefix mapped back to the host.
pub fn at(text: &str, offset: usize, kind: HostKind) -> Option<Context> {
    if !text.is_char_boundary(offset.min(text.len())) {
        return None;
    }
    at_unit(text, offset, &crate::extract::unit::at(text, kind, offset)?)
}

/// [`at`] with the unit that holds `offset` already found (`unit`: [`crate::extract::unit::at`]
/// of `text` at `offset`, e.g. from [`super::position::Snapshot::unit_at`]).
pub fn at_unit(text: &str, offset: usize, unit: &CodeUnit) -> Option<Context> {
    if !text.is_char_boundary(offset.min(text.len())) {
        return None;
    }
    // In a notebook cell the completion's text is escaped for the JSON string by the handler
    // (`completion::escape_for_json_string`), quotes included; a cursor inside an escape
    // (`\|"`, `\u00|e9`) has no place to insert at.
    if unit.in_json_string && inside_json_escape(text.as_bytes(), offset) {
        return None;
    }
    let c = in_unit(unit)?;
    let mut prefix = unit.map.range_to_host(c.prefix.clone());
    if prefix.start > offset {
        // An empty prefix at the start of a line of a code block in a list item or block quote:
        // the unit's offset maps forward past the container prefix the unit's text drops, but
        // the insertion belongs at the cursor.
        prefix = offset..offset;
    }
    Some(Context { prefix, ..c })
}

/// True when byte `offset` of JSON text `b` falls inside a string escape: just after its
/// backslash (an odd run of backslashes before it), or within the hex digits of `\uXXXX`.
fn inside_json_escape(b: &[u8], offset: usize) -> bool {
    let odd_run = |end: usize| b[..end].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
    if offset > b.len() {
        return false;
    }
    if odd_run(offset) {
        return true;
    }
    (2..=5).any(|k| {
        offset >= k && {
            let s = offset - k;
            b[s] == b'\\'
                && b[s + 1] == b'u'
                && !odd_run(s)
                && b[s + 2..offset].iter().all(u8::is_ascii_hexdigit)
        }
    })
}

/// The context at the unit's offset, in the unit's text. Calls are probed in Python, JSON and
/// YAML code (calls in text and prose are written as Python); in a code block of another
/// language only what its line and brackets say (a REST query string, a pynetbox attribute,
/// an `object_type` key); GraphQL code has none.
fn in_unit(unit: &CodeUnit) -> Option<Context> {
    let (text, offset) = (unit.text.as_ref(), unit.offset);
    if !text.is_char_boundary(offset) {
        return None;
    }
    let lang = match unit.reading {
        Reading::Code(Code::Python) | Reading::Text | Reading::Prose => Some(HostKind::Python),
        Reading::Code(Code::Json) => Some(HostKind::Json),
        Reading::Code(Code::Yaml) => Some(HostKind::Yaml),
        // GraphQL is completed from the schema (`graphql_site`), never as REST.
        Reading::Code(Code::Graphql) => return None,
        Reading::Code(_) => None,
    };
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    if let Some(c) = query_context(line, line_start) {
        return Some(c);
    }
    if let Some(c) = pynetbox_attr(line, line_start) {
        return Some(c);
    }
    let start = text
        .ceil_char_boundary(offset.saturating_sub(WINDOW))
        .max(unit.start);
    let scan = Scan::run(text, start, offset, lang != Some(HostKind::Json));
    if scan.in_triple {
        return None;
    }
    if let Some(c) = object_type_key(text, &scan, offset) {
        return Some(c);
    }
    probe(text, start, offset, lang?, &scan)
        .or_else(|| whole_unit_probe(text, unit.start, offset, lang?, &scan))
}

/// Units at most this large (bytes) are probed whole when the statement around the cursor
/// finds nothing (completion stays fast in a file of thousands of calls).
const WHOLE_UNIT_PROBE: usize = 256 * 1024;

/// The context at the cursor from the extraction of the whole Python unit with the typed token
/// made whole: for filters written away from their call, which only the unit's values tie to
/// it (a dict filled by `params[k] = v` and sent below, a helper's keyword argument, a dict a
/// `# netbox: <endpoint>` comment points at).
fn whole_unit_probe(
    text: &str,
    unit_start: usize,
    offset: usize,
    lang: HostKind,
    scan: &Scan,
) -> Option<Context> {
    if lang != HostKind::Python || text.len() - unit_start > WHOLE_UNIT_PROBE {
        return None;
    }
    let tok = token(text, scan, offset, lang)?;
    let (word_end, tail) = tail_of(text, offset, scan, &tok, lang)?;
    let typed = &text[tok.prefix.start..offset];
    let rem = &text[offset..word_end];
    let rest = &text[tail.start..];
    let separated = rest.trim_start().starts_with([':', '=']);
    let q = tok.quote.map(|q| q as char);
    // The token made whole, and where the typed text starts in it.
    let (whole, filler, shift) = match (tok.slot, q) {
        (Slot::Key, Some(q)) => (format!("{typed}{rem}{q}"), key_filler(lang), 0),
        (Slot::Key, None) => (format!("\"{typed}{rem}\""), key_filler(lang), 1),
        (Slot::Arg, Some(q)) | (Slot::Value, Some(q)) => (format!("{typed}{rem}{q}"), "", 0),
        (Slot::Arg, None) => (format!("{typed}{rem}"), "=None", 0),
        (Slot::Value, None) => (format!("{typed}{rem}"), "", 0),
    };
    let fill = if separated { "" } else { filler };
    let head = &text[unit_start..tok.prefix.start];
    let probe = format!("{head}{whole}{fill}{rest}");
    let sites = crate::extract::calls_in(&probe, unit_start, lang);
    let p = tok.prefix.start + shift;
    hit(&sites, p, &tok, lang).or_else(|| {
        // `params["sta|"] = ...`: a subscript's key, which the scan reads as a list element.
        let subscript = scan.stack.last().is_some_and(|f| f.open == b'[');
        let key = Token {
            slot: Slot::Key,
            prefix: tok.prefix.clone(),
            quote: tok.quote,
        };
        subscript.then(|| hit(&sites, p, &key, lang)).flatten()
    })
}

/// `"object_type": "|` in a JSON/YAML object and `object_type: |` in YAML: the MCP tools'
/// argument name says an object type is expected, whatever the call around it.
fn object_type_key(text: &str, scan: &Scan, offset: usize) -> Option<Context> {
    match (scan.stack.last(), scan.string) {
        (Some(f), Some((_, s)))
            if f.open == b'{' && OBJECT_TYPE_STR_KEY.is_match(&text[f.seg_start..s - 1]) =>
        {
            ctx(Expect::ObjectType, s..offset, Quote::None)
        }
        (None, _) => {
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let c = YAML_VALUE.captures(&text[line_start..offset])?;
            let value = c.get(3)?;
            (&c[2] == "object_type").then(|| Context {
                expect: Expect::ObjectType,
                prefix: line_start + value.start()..offset,
                quote: Quote::None,
            })
        }
        _ => None,
    }
}

/// An open bracket seen by the scan.
#[derive(Debug, Clone, Copy)]
struct Frame {
    open: u8,
    pos: usize,
    /// Offset just after the last `,` at this depth (or after the bracket).
    seg_start: usize,
    /// Number of `,` at this depth so far.
    commas: usize,
}

#[derive(Debug, Default)]
struct Scan {
    stack: Vec<Frame>,
    /// The string the cursor is in: (quote byte, offset of its first content byte).
    string: Option<(u8, usize)>,
    in_triple: bool,
}

impl Scan {
    /// Scans `text[start..end]`; `hash_comments`: `#` starts a comment after whitespace
    /// (Python, YAML, shell; not JSON).
    fn run(text: &str, start: usize, end: usize, hash_comments: bool) -> Scan {
        let b = text.as_bytes();
        let mut s = Scan::default();
        let mut i = start;
        while i < end {
            let c = b[i];
            if let Some((q, _)) = s.string {
                if c == b'\\' {
                    i += 2;
                    continue;
                }
                if c == q || c == b'\n' {
                    s.string = None;
                }
                i += 1;
                continue;
            }
            match c {
                b'"' | b'\'' => {
                    if b[i..end.min(b.len())].starts_with(&[c, c, c]) {
                        // Triple-quoted string: skip to its end (or the cursor is inside it).
                        let close = [c, c, c];
                        match find(&b[i + 3..end], &close) {
                            Some(k) => {
                                i += 3 + k + 3;
                                continue;
                            }
                            None => {
                                s.in_triple = true;
                                return s;
                            }
                        }
                    }
                    s.string = Some((c, i + 1));
                }
                b'#' if hash_comments && (i == 0 || b[i - 1].is_ascii_whitespace()) => {
                    while i < end && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'(' | b'[' | b'{' => s.stack.push(Frame {
                    open: c,
                    pos: i,
                    seg_start: i + 1,
                    commas: 0,
                }),
                b')' | b']' | b'}' => {
                    let want = match c {
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if let Some(k) = s.stack.iter().rposition(|f| f.open == want) {
                        s.stack.truncate(k);
                    }
                }
                b',' => {
                    if let Some(f) = s.stack.last_mut() {
                        f.seg_start = i + 1;
                        f.commas += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        s
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The typed part of a string the cursor is in, or of the bare word before the cursor.
fn word_before(text: &str, offset: usize, extra: &[char]) -> Range<usize> {
    let start = word_start(&text[..offset], |c| {
        c.is_alphanumeric() || c == '_' || extra.contains(&c)
    });
    start.max(text.ceil_char_boundary(offset.saturating_sub(WINDOW)))..offset
}

/// Start of the run of `word` characters that ends `text`: just after the last other character
/// (whatever its width in bytes).
pub(crate) fn word_start(text: &str, word: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .rev()
        .find(|&(_, c)| !word(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

fn ctx(expect: Expect, prefix: Range<usize>, quote: Quote) -> Option<Context> {
    Some(Context {
        expect,
        prefix,
        quote,
    })
}

fn query_context(line: &str, line_start: usize) -> Option<Context> {
    if let Some(c) = QUERY.captures(line) {
        let path = c.get(1)?.as_str();
        // `http://localhost/api/dcim/devices/?`: the host is no path segment.
        let path = path.find("/api/").map_or(path, |i| &path[i..]).to_string();
        let q = c.get(2)?;
        let seg_start = q
            .as_str()
            .rfind('&')
            .map_or(q.start(), |i| q.start() + i + 1);
        let seg = &line[seg_start..];
        let abs = |r: Range<usize>| line_start + r.start..line_start + r.end;
        return match seg.find('=') {
            Some(eq) => ctx(
                Expect::ChoiceValue {
                    target: path,
                    filter: seg[..eq].to_string(),
                },
                abs(seg_start + eq + 1..line.len()),
                Quote::None,
            ),
            None => ctx(
                Expect::FilterName { target: path },
                abs(seg_start..line.len()),
                Quote::None,
            ),
        };
    }
    let c = API_PATH.captures(line)?;
    let g = c.get(1)?;
    ctx(
        Expect::ApiPath,
        line_start + g.start()..line_start + g.end(),
        Quote::None,
    )
}

/// True when the match at byte `start` of `line` follows a word character or a `.` (as
/// `nb.` in `self.nb.dcim`): not a pynetbox client name. `\w` as the regex crate reads it.
fn after_word(line: &str, start: usize) -> bool {
    line[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c == '.' || regex_syntax::is_word_character(c))
}

fn pynetbox_attr(line: &str, line_start: usize) -> Option<Context> {
    // Each pattern ends at `$` with no `.` in its last names, so its leftmost match is the only
    // one that can end there: checking the character before it is the old `(?:^|[^\w.])`.
    let endpoint = NB_ENDPOINT
        .captures(line)
        .filter(|c| !after_word(line, c.get(0).map_or(0, |m| m.start())));
    if let Some(c) = endpoint {
        let g = c.get(2)?;
        return ctx(
            Expect::PynetboxEndpoint {
                app: c[1].to_string(),
            },
            line_start + g.start()..line_start + g.end(),
            Quote::None,
        );
    }
    let c = NB_APP.captures(line)?;
    if after_word(line, c.get(0)?.start()) {
        return None;
    }
    let g = c.get(1)?;
    ctx(
        Expect::PynetboxApp,
        line_start + g.start()..line_start + g.end(),
        Quote::None,
    )
}

/// What is being typed at the cursor, from the scan alone (before any call form is known).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// A mapping key: `{"ro|`, `{ro|`, or a YAML block key.
    Key,
    /// An argument of a call: a keyword's name or a positional value (`f(ro|`, `f("dc|`).
    Arg,
    /// A value: after `:` or `=`, or an element of a list.
    Value,
}

/// True for the start of a statement setting a dict's key: `<name>[<key>] = ` (then the value).
fn subscript_assignment(before: &str) -> bool {
    let t = before.trim();
    let Some(lhs) = t.strip_suffix('=') else {
        return false;
    };
    let lhs = lhs.trim_end();
    let Some((name, rest)) = lhs.split_once('[') else {
        return false;
    };
    let name = name.trim();
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && rest.ends_with(']')
        && !lhs.ends_with("=]")
}

/// The typed token at the cursor: where it is, what it is, and whether the cursor is inside a
/// string opened by `quote`.
struct Token {
    slot: Slot,
    /// Host bytes of the typed part (what a completion replaces).
    prefix: Range<usize>,
    quote: Option<u8>,
}

/// The token at `offset` from the scan's innermost open bracket; `None` where no key or value
/// is being typed.
fn token(text: &str, scan: &Scan, offset: usize, lang: HostKind) -> Option<Token> {
    let top = scan.stack.last();
    let (seg_start, open) = match top {
        Some(f) => (f.seg_start, f.open),
        None => (text[..offset].rfind('\n').map_or(0, |i| i + 1), b'\n'),
    };
    let (prefix, quote) = match scan.string {
        Some((q, s)) => (s..offset, Some(q)),
        None => (word_before(text, offset, &['.', '-']), None),
    };
    // Up to the opening quote; a string opened at the segment's start has nothing before it.
    let end = prefix.start.saturating_sub(quote.map_or(0, |_| 1));
    let before = text.get(seg_start.min(end)..end).unwrap_or("");
    // A key typed bare is a word: `-`/`.` belong to values only.
    let key_prefix = || match quote {
        Some(_) => prefix.clone(),
        None => word_before(text, offset, &[]),
    };
    let slot = match open {
        b'(' if before.trim().is_empty() => Slot::Arg,
        b'(' if KWARG_NAME.is_match(before) => Slot::Value,
        b'{' if before.trim().is_empty() => Slot::Key,
        b'{' if DICT_KEY_OPEN.is_match(before) => Slot::Value,
        b'[' if before.trim().is_empty() || before.trim_end().ends_with(',') => Slot::Value,
        // `params["status"] = "act|`: the value of a dict's key set by a statement.
        b'\n' if lang == HostKind::Python && subscript_assignment(before) => Slot::Value,
        b'\n' if lang == HostKind::Yaml => {
            if YAML_KEY.is_match(&text[seg_start..offset]) && quote.is_none() {
                Slot::Key
            } else if YAML_VALUE.is_match(&text[seg_start..offset]) {
                Slot::Value
            } else {
                return None;
            }
        }
        _ => return None,
    };
    let prefix = match slot {
        Slot::Key | Slot::Arg => key_prefix(),
        Slot::Value => prefix,
    };
    Some(Token {
        slot,
        prefix,
        quote,
    })
}

/// The offset the probed text starts at: the line of the outermost open bracket (the
/// statement), or for YAML the start of the scanned region.
fn unit_start(text: &str, start: usize, offset: usize, lang: HostKind, scan: &Scan) -> usize {
    match (scan.stack.first(), lang) {
        (_, HostKind::Yaml) => start,
        (Some(f), _) => text[..f.pos].rfind('\n').map_or(0, |i| i + 1).max(start),
        (None, _) => text[..offset].rfind('\n').map_or(0, |i| i + 1).max(start),
    }
}

/// Single-line assignments of strings before the unit (`URL = f"{BASE}/api/dcim/devices/"`),
/// so a call that names its URL by a variable is read as the checker reads the whole file.
fn preamble(text: &str, from: usize, to: usize) -> String {
    let mut out = String::new();
    for line in text[from..to].lines() {
        let l = line.trim_start();
        if STRING_ASSIGNMENT.is_match(l) && parse_closers(l).is_empty() {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

fn parse_closers(s: &str) -> String {
    crate::extract::closers_python(s)
}

/// The filler that makes a typed key whole (`"ro"` → `"ro": None`), per language.
fn key_filler(lang: HostKind) -> &'static str {
    match lang {
        HostKind::Json => ": null",
        HostKind::Yaml => ": x",
        _ => ": None",
    }
}

/// The context at the cursor from the extraction of the statement (code of `lang`: Python,
/// JSON or YAML) with the typed token made whole.
fn probe(text: &str, start: usize, offset: usize, lang: HostKind, scan: &Scan) -> Option<Context> {
    let unit_start = unit_start(text, start, offset, lang, scan);
    let tok = token(text, scan, offset, lang)?;
    let typed = &text[tok.prefix.start..offset];
    let head_end = tok.prefix.start;
    // The token made whole; `shift` is where the typed text starts in it.
    // Each core with its filler, the filler alone (left out before a tail that already
    // separates the value), and where the typed text starts in it.
    let mut cores: Vec<(String, &str, usize)> = Vec::new();
    let q = tok.quote.map(|q| q as char);
    match (tok.slot, q) {
        (Slot::Key, Some(q)) => cores.push((format!("{typed}{q}"), key_filler(lang), 0)),
        // A YAML block key; an empty one is no key, so a stand-in is typed.
        (Slot::Key, None) if scan.stack.is_empty() && typed.is_empty() => {
            cores.push(("_".to_string(), ": x", 0))
        }
        (Slot::Key, None) if scan.stack.is_empty() => cores.push((typed.to_string(), ": x", 0)),
        (Slot::Key, None) => cores.push((format!("\"{typed}\""), key_filler(lang), 1)),
        (Slot::Arg, Some(q)) => cores.push((format!("{typed}{q}"), "", 0)),
        (Slot::Arg, None) => {
            cores.push((typed.to_string(), "=None", 0));
            cores.push((format!("\"{typed}\""), "", 1));
        }
        (Slot::Value, Some(q)) => cores.push((format!("{typed}{q}"), "", 0)),
        (Slot::Value, None) if typed.is_empty() && lang != HostKind::Yaml => {
            let null = if lang == HostKind::Json {
                "null"
            } else {
                "None"
            };
            cores.push((null.to_string(), "", 0))
        }
        (Slot::Value, None) => cores.push((typed.to_string(), "", 0)),
    }
    let pre = if lang == HostKind::Python {
        preamble(text, start, unit_start)
    } else {
        String::new()
    };
    let head = &text[unit_start..head_end];
    let tail = tail_of(text, offset, scan, &tok, lang);
    for (core, filler, shift) in &cores {
        let p = head_end + shift;
        let mut probes = Vec::new();
        if let Some((word_end, t)) = &tail {
            // The whole token: what is typed and the rest of the word after the cursor.
            let cut = shift + typed.len();
            let rem = &text[offset..*word_end];
            let whole = if core == "_" && !rem.is_empty() {
                rem.to_string()
            } else {
                format!("{}{rem}{}", &core[..cut], &core[cut..])
            };
            let rest = &text[t.clone()];
            let separated = rest.trim_start().starts_with([':', '=']);
            let fill = if separated { "" } else { filler };
            probes.push(format!("{pre}{head}{whole}{fill}{rest}"));
        }
        let body = format!("{head}{core}{filler}");
        let close = crate::extract::closers_for(&body, lang);
        probes.push(format!("{pre}{body}{close}"));
        for probe in probes {
            // The preamble maps below the unit; the unit maps onto the host from its start.
            let host_start = unit_start.saturating_sub(pre.len());
            let sites = crate::extract::calls_in(&probe, host_start, lang);
            if let Some(c) = hit(&sites, p, &tok, lang) {
                return Some(c);
            }
        }
    }
    None
}

/// The rest of the unit after the typed token, up to where the outermost open bracket closes
/// (within [`LOOK_AHEAD`]); for YAML, up to the end of the region (a fence or the look-ahead).
/// `None` when the token itself is not closed on its line. Also the end of the token's text
/// after the cursor (before its closing quote).
fn tail_of(
    text: &str,
    offset: usize,
    scan: &Scan,
    tok: &Token,
    lang: HostKind,
) -> Option<(usize, Range<usize>)> {
    let b = text.as_bytes();
    let limit = text.floor_char_boundary((offset + LOOK_AHEAD).min(text.len()));
    // End of the token.
    let mut i = offset;
    match tok.quote {
        Some(q) => loop {
            if i >= limit || b[i] == b'\n' {
                return None;
            }
            if b[i] == b'\\' {
                i += 2;
                continue;
            }
            if b[i] == q {
                i += 1;
                break;
            }
            i += 1;
        },
        None => {
            while i < limit && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        }
    }
    let word_end = if tok.quote.is_some() { i - 1 } else { i };
    let from = i;
    if lang == HostKind::Yaml {
        let mut end = from;
        for line in text[from..limit].split_inclusive('\n') {
            let t = line.trim_start();
            if t.starts_with("```") || t.starts_with("~~~") || t.starts_with("---") {
                break;
            }
            end += line.len();
        }
        return Some((word_end, from..end));
    }
    let mut depth = scan.stack.len();
    let mut string: Option<u8> = None;
    while i < limit {
        let c = b[i];
        if let Some(q) = string {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == q || c == b'\n' {
                string = None;
            }
        } else {
            match c {
                b'"' | b'\'' => string = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    // A token typed outside any bracket (a statement's value) ends its unit at
                    // the first bracket that closes one it did not open.
                    if depth == 0 {
                        return Some((word_end, from..i));
                    }
                    depth -= 1;
                    if depth == 0 {
                        // A dict assigned just above its call (`params = {...}` then
                        // `.filter(**params)`): take the next line too.
                        let mut end = i + 1;
                        if lang == HostKind::Python
                            && scan.stack.first().is_some_and(|f| f.open == b'{')
                        {
                            let line_end =
                                |k: usize| text[k..limit].find('\n').map_or(limit, |n| k + n);
                            let next = line_end(end);
                            end = if next < limit {
                                line_end(next + 1)
                            } else {
                                next
                            };
                        }
                        return Some((word_end, from..end));
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The expectation at probe position `p` in the extracted `sites`.
fn hit(sites: &[Site], p: usize, tok: &Token, lang: HostKind) -> Option<Context> {
    let inside = |r: &Range<usize>| r.start <= p && p <= r.end;
    for site in sites {
        let Site::Rest(c) = site else { continue };
        let bare = tok.quote.is_none();
        let quoted_host = matches!(
            c.syntax,
            Syntax::Python | Syntax::Json | Syntax::JsonInString
        );
        if let Some((t, r)) = &c.target {
            if tok.slot != Slot::Key
                && inside(r)
                && matches!(
                    c.form.tool_like(),
                    CallForm::GetObjects | CallForm::GetObjectById
                )
            {
                let quote = if bare { Quote::Needed } else { Quote::None };
                let _ = t;
                return ctx(Expect::ObjectType, tok.prefix.clone(), quote);
            }
        }
        let Some(target) = c.endpoint_target().map(str::to_string) else {
            continue;
        };
        for e in &c.filters {
            // An empty key range is a positional argument's (pynetbox `q`), unless it is the
            // empty key being typed.
            let on_key = if e.key_range.is_empty() {
                e.key_range.start == p
            } else {
                inside(&e.key_range)
            };
            if tok.slot != Slot::Value && on_key {
                // A keyword argument's name needs no quotes; a dict key typed bare does.
                let quote =
                    if bare && tok.slot == Slot::Key && quoted_host && lang != HostKind::Yaml {
                        Quote::Needed
                    } else {
                        Quote::None
                    };
                return ctx(
                    Expect::FilterName {
                        target: target.clone(),
                    },
                    tok.prefix.clone(),
                    quote,
                );
            }
            if tok.slot == Slot::Value && inside(&e.value_range) {
                let quote = if bare && quoted_host {
                    Quote::Needed
                } else {
                    Quote::None
                };
                return ctx(
                    Expect::ChoiceValue {
                        target: target.clone(),
                        filter: e.key.to_string(),
                    },
                    tok.prefix.clone(),
                    quote,
                );
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `|` marks the cursor.
    fn at_cursor(src: &str, kind: HostKind) -> Option<(Expect, String, Quote)> {
        let offset = src.find('|').unwrap();
        let text = src.replacen('|', "", 1);
        at(&text, offset, kind).map(|c| (c.expect, text[c.prefix].to_string(), c.quote))
    }

    fn filter(t: &str) -> Expect {
        Expect::FilterName { target: t.into() }
    }

    fn choice(t: &str, f: &str) -> Expect {
        Expect::ChoiceValue {
            target: t.into(),
            filter: f.into(),
        }
    }

    /// Every short text over the characters that open, close and continue contexts, at every
    /// offset, in every host kind: no panic (tests/fuzz.rs found a slice whose start passed its
    /// end when a string opened right at a segment's start).
    #[test]
    fn no_panic_on_any_short_text() {
        let alphabet = [
            '"', '\'', '\n', '\\', '(', '{', '[', ':', '=', ',', 'a', ' ',
        ];
        let kinds = [
            HostKind::Python,
            HostKind::Markdown,
            HostKind::Yaml,
            HostKind::Json,
            HostKind::Text,
        ];
        let n = alphabet.len();
        let mut text = String::new();
        for len in 1..=4u32 {
            for code in 0..n.pow(len) {
                text.clear();
                let mut c = code;
                for _ in 0..len {
                    text.push(alphabet[c % n]);
                    c /= n;
                }
                for offset in 0..=text.len() {
                    for kind in kinds {
                        let _ = at(&text, offset, kind);
                    }
                }
            }
        }
    }

    #[test]
    fn recognises_each_context() {
        use HostKind::*;
        type Case<'a> = (&'a str, HostKind, Option<(Expect, &'a str, Quote)>);
        let cases: Vec<Case> = vec![
            ("netbox_get_objects(\"dc|", Python, Some((Expect::ObjectType, "dc", Quote::None))),
            ("netbox_get_objects(object_type='|", Python, Some((Expect::ObjectType, "", Quote::None))),
            ("netbox_get_objects(\"dcim.device\", filters={\"ro|", Python, Some((filter("dcim.device"), "ro", Quote::None))),
            ("netbox_get_objects(\"dcim.device\", {\"site\": 1, |", Python, Some((filter("dcim.device"), "", Quote::Needed))),
            ("netbox_get_objects(\"dcim.device\", filters={\"status\": \"act|", Python, Some((choice("dcim.device", "status"), "act", Quote::None))),
            ("netbox_get_objects(\"dcim.device\", filters={\"status\": [\"active\", \"|", Python, Some((choice("dcim.device", "status"), "", Quote::None))),
            ("netbox_get_objects(filters={\"s|\"}, object_type=\"ipam.prefix\")", Python, Some((filter("ipam.prefix"), "s", Quote::None))),
            ("netbox_get_changelogs(filters={\"act|", Python, Some((filter(CHANGELOG_TARGET), "act", Quote::None))),
            ("nb.|", Python, Some((Expect::PynetboxApp, "", Quote::None))),
            ("x = nb.dcim.dev|", Python, Some((Expect::PynetboxEndpoint { app: "dcim".into() }, "dev", Quote::None))),
            ("(netbox.ipam.pre|", Python, Some((Expect::PynetboxEndpoint { app: "ipam".into() }, "pre", Quote::None))),
            ("x = é nb.dc|", Python, Some((Expect::PynetboxApp, "dc", Quote::None))),
            // Not a client named `nb`/`netbox`: a word character (`\w`, Unicode too) or a `.` before it.
            ("self.nb.dc|", Python, None),
            ("self.nb.dcim.dev|", Python, None),
            ("x = mynb.dc|", Python, None),
            ("x = énb.dc|", Python, None),
            ("x = ünetbox.dcim.dev|", Python, None),
            ("nb.dcim.devices.filter(site_id=1, ro|", Python, Some((filter("dcim/devices"), "ro", Quote::None))),
            ("nb.dcim.devices.filter(status='pl|", Python, Some((choice("dcim/devices", "status"), "pl", Quote::None))),
            ("nb.plugins.bgp.session.filter(peer_gr|", Python, Some((filter("plugins/bgp/session"), "peer_gr", Quote::None))),
            ("curl /api/dcim/devices/?role_id=3&st|", Text, Some((filter("/api/dcim/devices/"), "st", Quote::None))),
            ("GET /api/dcim/devices/?status=pl|", Markdown, Some((choice("/api/dcim/devices/", "status"), "pl", Quote::None))),
            ("see /api/dc|", Markdown, Some((Expect::ApiPath, "dc", Quote::None))),
            ("{\"name\": \"netbox_get_objects\", \"arguments\": {\"object_type\": \"dcim.site\", \"filters\": {\"|", Json, Some((filter("dcim.site"), "", Quote::None))),
            ("{\"object_type\": \"|", Json, Some((Expect::ObjectType, "", Quote::None))),
            ("tool: netbox_get_objects\nobject_type: dcim.device\nfilters:\n  status: active\n  ro|", Yaml, Some((filter("dcim.device"), "ro", Quote::None))),
            ("object_type: dcim.device\nfilters:\n  status: pl|", Yaml, Some((choice("dcim.device", "status"), "pl", Quote::None))),
            ("filters:\n  ro|\nobject_type: ipam.vlan\n", Yaml, Some((filter("ipam.vlan"), "ro", Quote::None))),
            ("- tool: netbox_get_objects\n  object_type: dcim.device\n  filters:\n    |", Yaml, Some((filter("dcim.device"), "", Quote::None))),
            ("object_type: dc|", Yaml, Some((Expect::ObjectType, "dc", Quote::None))),
            ("object_type: dcim.device\nfilters: {status: pl|", Yaml, Some((choice("dcim.device", "status"), "pl", Quote::None))),
            ("Text (with a paren) ```\n```python\nnetbox_get_objects(\"dcim.device\", filters={\"|", Markdown, Some((filter("dcim.device"), "", Quote::None))),
            // Nothing outside a NetBox call.
            ("print(\"|", Python, None),
            ("d = {\"status\": \"|", Python, None),
            ("requests.get(url, params={\"|", Python, None),
            // Issue 11 §1: every form the checker reads completes, half-typed.
            ("url = f\"{NB}/api/dcim/devices/\"\nrequests.get(url, params={\"rol|", Python, Some((filter("/api/dcim/devices/"), "rol", Quote::None))),
            ("requests.get(f\"{API_URL}/dcim/devices/\", params={\"status\": \"pl|", Python, Some((choice("/dcim/devices/", "status"), "pl", Quote::None))),
            ("requests.get(f\"{API_URL}/dcim/devices/?role=leaf&st|", Python, Some((filter("/dcim/devices/"), "st", Quote::None))),
            ("get(\"dcim.site\", filters={\"st|", Python, Some((filter("dcim.site"), "st", Quote::None))),
            ("get(\"dcim.site\", {ro|", Python, Some((filter("dcim.site"), "ro", Quote::Needed))),
            ("changelogs(filters={\"act|", Python, Some((filter(CHANGELOG_TARGET), "act", Quote::None))),
            ("def f():\n    params = {\"st|", Python, None),
            ("httpx.get(NB + \"/api/ipam/prefixes/\", params={\"within\": \"10.0.0.0/8\", \"st|\"})\nx = 1\n", Python, Some((filter("/api/ipam/prefixes/"), "st", Quote::None))),
            ("status: |", Yaml, None),
            ("q = \"\"\"{ device_list(filters: {|", Python, None),
            ("just prose |", Markdown, None),
        ];
        for (src, kind, want) in cases {
            let got = at_cursor(src, kind);
            let want = want.map(|(e, p, q)| (e, p.to_string(), q));
            assert_eq!(got, want, "in {src:?}");
        }
    }

    /// Issue 9 §3: a curly quote right before the call name made `call_name` slice inside it.
    #[test]
    fn multi_byte_character_before_a_call_name() {
        for lead in ["“", "—", "😀", "\u{a0}", "»"] {
            let src = format!("{lead}netbox_get_objects(\"dcim.device\", filters={{\"ro|");
            assert_eq!(
                at_cursor(&src, HostKind::Markdown),
                Some((filter("dcim.device"), "ro".to_string(), Quote::None)),
                "after {lead:?}"
            );
            let src = format!("x{lead}nb.dcim.devices.filter(site_id=1, ro|");
            assert_eq!(
                at_cursor(&src, HostKind::Python),
                Some((filter("dcim/devices"), "ro".to_string(), Quote::None)),
                "after {lead:?}"
            );
            let src = format!("nb.dcim.devices.filter(status=\"{lead}pl|");
            assert_eq!(
                at_cursor(&src, HostKind::Python),
                Some((
                    choice("dcim/devices", "status"),
                    format!("{lead}pl"),
                    Quote::None
                )),
                "after {lead:?}"
            );
        }
    }

    /// Every context above, with a multi-byte character inserted at every position, asked at
    /// every character boundary in every host kind: no slice lands inside a character.
    #[test]
    fn multi_byte_neighbours_everywhere() {
        let sources = [
            "netbox_get_objects(\"dcim.device\", filters={\"status\": [\"active\", \"pl",
            "nb.dcim.devices.filter(site_id=1, status='pl",
            "netbox_get_objects(object_type=dc",
            "curl /api/dcim/devices/?role_id=3&st",
            "tool: netbox_get_objects\nobject_type: dcim.device\nfilters:\n  status: pl",
            "{\"name\": \"netbox_get_objects\", \"arguments\": {\"object_type\": \"dcim.site\", \"filters\": {\"",
            "```python\nnetbox_get_objects(\"dcim.device\", {\"ro\\",
        ];
        let kinds = [
            HostKind::Python,
            HostKind::Markdown,
            HostKind::Yaml,
            HostKind::Json,
            HostKind::Text,
        ];
        let mut asked = 0;
        for src in sources {
            let bounds: Vec<usize> = (0..=src.len())
                .filter(|&i| src.is_char_boundary(i))
                .collect();
            for &at_i in &bounds {
                for wide in ["“", "😀", "é"] {
                    let mut text = src.to_string();
                    text.insert_str(at_i, wide);
                    for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
                        for kind in kinds {
                            let _ = at(&text, offset, kind);
                            asked += 1;
                        }
                    }
                }
            }
        }
        assert!(asked > 10_000, "{asked}");
    }

    #[test]
    fn never_panics_on_odd_offsets() {
        let text = "é netbox_get_objects(\"dcim.device\", {\"é\": \"😀";
        for i in 0..=text.len() + 2 {
            let _ = at(text, i, HostKind::Python);
            let _ = at(text, i, HostKind::Markdown);
            let _ = at(text, i, HostKind::Yaml);
        }
    }
}
