//! What is expected at the cursor: an object type, a filter name of some endpoint, or a choice
//! value of some filter. Pure and text based, because a document being typed rarely parses: a
//! forward scan of the text before the cursor (brackets, strings, comments) finds the innermost
//! open call / dict / list, and small patterns recognise the NetBox calls around it. Anything
//! not recognised gives `None` (no completion outside a NetBox call).

use crate::extract::HostKind;
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

const TARGET_TOOLS: &[&str] = &["netbox_get_objects", "netbox_get_object_by_id"];
const CHANGELOG_TOOL: &str = "netbox_get_changelogs";
/// Endpoint of `netbox_get_changelogs`.
pub const CHANGELOG_TARGET: &str = "core/object-changes";

macro_rules! re {
    ($name:ident, $pat:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| Regex::new($pat).expect("valid regex"));
    };
}

re!(QUERY, r"(/api/(?:[a-z0-9_-]+/)+)\?([^\s\x22'`<>()\]]*)$");
re!(API_PATH, r"/api/((?:[a-z0-9_-]+/?)*)$");
re!(NB_APP, r"(?:^|[^\w.])(?:nb|netbox)\.([a-z_]*)$");
re!(
    NB_ENDPOINT,
    r"(?:^|[^\w.])(?:nb|netbox)\.([a-z_]+)\.([a-z_]*)$"
);
re!(
    PYNETBOX_CALL,
    r"([a-z_]+)\.([a-z0-9_]+)\.(?:filter|get|count|all)$"
);
re!(KWARG_OBJECT_TYPE, r"^\s*object_type\s*=\s*$");
re!(
    FIRST_ARG,
    r#"^\s*(?:object_type\s*=\s*)?["']([\w./-]+)["']"#
);
re!(KWARG_ANYWHERE, r#"object_type\s*=\s*["']([\w./-]+)["']"#);
re!(BARE_WORD, r"^\s*(\w*)$");
re!(KWARG_NAME, r"^\s*(\w+)\s*=\s*$");
re!(KWARG_BARE_VALUE, r"^\s*(\w+)\s*=\s*([\w.-]*)$");
re!(DICT_KEY_OPEN, r#"^\s*["']?(\w+)["']?\s*:\s*$"#);
re!(DICT_BARE_VALUE, r#"^\s*(["']?)(\w+)["']?\s*:\s*([\w.-]*)$"#);
re!(FILTERS_KWARG, r"filters\s*=\s*$");
re!(FILTERS_KEY, r#"(["']?)filters["']?\s*:\s*$"#);
re!(
    OBJECT_TYPE_KEY,
    r#"["']?object_type["']?\s*:\s*["']?([\w./-]+)"#
);
re!(OBJECT_TYPE_STR_KEY, r#"^\s*["']?object_type["']?\s*:\s*$"#);
re!(YAML_KEY, r"^(\s*(?:-\s+)?)(\w*)$");
re!(
    YAML_VALUE,
    r#"^(\s*(?:-\s+)?)["']?(\w+)["']?:\s*["']?([\w./ -]*)$"#
);
re!(
    YAML_FILTERS,
    r#"^(\s*(?:-\s+)?)["']?filters["']?:\s*(?:#.*)?$"#
);
re!(
    YAML_OBJECT_TYPE,
    r#"^(\s*(?:-\s+)?)["']?object_type["']?:\s*["']?([\w./-]+)"#
);

/// The context at byte `offset` of `text` (a host document of `kind`).
pub fn at(text: &str, offset: usize, kind: HostKind) -> Option<Context> {
    if kind == HostKind::Graphql || offset > text.len() || !text.is_char_boundary(offset) {
        return None;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    if let Some(c) = query_context(line, line_start) {
        return Some(c);
    }
    if let Some(c) = pynetbox_attr(line, line_start) {
        return Some(c);
    }
    let start = window_start(text, offset, kind);
    let scan = Scan::run(text, start, offset, kind);
    if scan.in_triple {
        return None;
    }
    if scan.stack.is_empty() {
        return yaml_block(text, start, offset);
    }
    let top = scan.stack.len() - 1;
    match scan.stack[top].open {
        b'(' => call_context(text, &scan, top, offset),
        b'{' => dict_context(text, &scan, top, offset),
        _ => list_context(text, &scan, top, offset),
    }
}

/// Start of the scan: a window before the cursor, and in Markdown no earlier than the last
/// fence line (so prose before a code block does not leave brackets open).
fn window_start(text: &str, offset: usize, kind: HostKind) -> usize {
    let start = ceil_boundary(text, offset.saturating_sub(WINDOW));
    if kind == HostKind::Markdown {
        let mut pos = start;
        let mut after_fence = start;
        for line in text[start..offset].split_inclusive('\n') {
            pos += line.len();
            let l = line.trim_start_matches([' ', '\t', '>']);
            if line.ends_with('\n') && (l.starts_with("```") || l.starts_with("~~~")) {
                after_fence = pos;
            }
        }
        return after_fence;
    }
    start
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
    fn run(text: &str, start: usize, end: usize, kind: HostKind) -> Scan {
        let b = text.as_bytes();
        let mut s = Scan::default();
        let hash_comments = matches!(
            kind,
            HostKind::Python | HostKind::Yaml | HostKind::Markdown | HostKind::Text
        );
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

/// The dotted name called by the `(` at `pos` (`netbox_get_objects`, `nb.dcim.devices.filter`).
fn call_name(text: &str, pos: usize) -> &str {
    let before = text[..pos].trim_end();
    let start = word_start(before, |c| c.is_alphanumeric() || c == '_' || c == '.');
    &before[start..]
}

fn last_segment(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The typed part of a string the cursor is in, or of the bare word before the cursor.
fn word_before(text: &str, offset: usize, extra: &[char]) -> Range<usize> {
    let start = word_start(&text[..offset], |c| {
        c.is_alphanumeric() || c == '_' || extra.contains(&c)
    });
    start.max(ceil_boundary(text, offset.saturating_sub(WINDOW)))..offset
}

/// Start of the run of `word` characters that ends `text`: just after the last other character
/// (whatever its width in bytes).
pub(crate) fn word_start(text: &str, word: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .rev()
        .find(|&(_, c)| !word(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
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
        let path = c.get(1)?.as_str().to_string();
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

fn pynetbox_attr(line: &str, line_start: usize) -> Option<Context> {
    if let Some(c) = NB_ENDPOINT.captures(line) {
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
    let g = c.get(1)?;
    ctx(
        Expect::PynetboxApp,
        line_start + g.start()..line_start + g.end(),
        Quote::None,
    )
}

/// Target of a NetBox tool call opened at frame `f`: the first positional string argument or
/// `object_type=`; the changelog tool's fixed endpoint.
fn tool_target(text: &str, f: &Frame, end: usize) -> Option<String> {
    let name = last_segment(call_name(text, f.pos));
    if name == CHANGELOG_TOOL {
        return Some(CHANGELOG_TARGET.to_string());
    }
    if !TARGET_TOOLS.contains(&name) {
        return None;
    }
    let args = &text[f.pos + 1..end];
    if let Some(c) = FIRST_ARG.captures(args) {
        return Some(c[1].to_string());
    }
    let ahead_end = floor_boundary(text, (end + LOOK_AHEAD).min(text.len()));
    let region = &text[f.pos + 1..ahead_end];
    KWARG_ANYWHERE.captures(region).map(|c| c[1].to_string())
}

/// `(app, endpoint)` when frame `f` is a pynetbox `nb.<app>.<endpoint>.filter(` call.
fn pynetbox_target(text: &str, f: &Frame) -> Option<String> {
    let name = call_name(text, f.pos);
    let c = PYNETBOX_CALL.captures(name)?;
    // `nb.plugins.<plugin>.<endpoint>.filter(`: a plugin endpoint.
    let before = &name[..c.get(0)?.start()];
    if before.ends_with("plugins.") {
        return Some(format!("plugins/{}/{}", &c[1], &c[2]));
    }
    Some(format!("{}/{}", &c[1], &c[2]))
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn call_context(text: &str, scan: &Scan, top: usize, offset: usize) -> Option<Context> {
    let f = &scan.stack[top];
    let name = last_segment(call_name(text, f.pos));
    if TARGET_TOOLS.contains(&name) {
        let seg_end = scan.string.map_or(offset, |(_, s)| s - 1);
        let seg = &text[f.seg_start..seg_end];
        let first = f.commas == 0 && seg.trim().is_empty();
        if first || KWARG_OBJECT_TYPE.is_match(seg) {
            return match scan.string {
                Some((_, s)) => ctx(Expect::ObjectType, s..offset, Quote::None),
                None => ctx(
                    Expect::ObjectType,
                    word_before(text, offset, &['.', '/', '-']),
                    Quote::Needed,
                ),
            };
        }
        return None;
    }
    let target = pynetbox_target(text, f)?;
    match scan.string {
        None => {
            let seg = &text[f.seg_start..offset];
            if BARE_WORD.is_match(seg) {
                return ctx(
                    Expect::FilterName { target },
                    word_before(text, offset, &[]),
                    Quote::None,
                );
            }
            let c = KWARG_BARE_VALUE.captures(seg)?;
            ctx(
                Expect::ChoiceValue {
                    target,
                    filter: c[1].to_string(),
                },
                word_before(text, offset, &['.', '-']),
                Quote::Needed,
            )
        }
        Some((_, s)) => {
            let c = KWARG_NAME.captures(&text[f.seg_start..s - 1])?;
            ctx(
                Expect::ChoiceValue {
                    target,
                    filter: c[1].to_string(),
                },
                s..offset,
                Quote::None,
            )
        }
    }
}

/// When the `{` of frame `top` is a filters dict: its target and whether keys need quotes.
fn filters_dict(text: &str, scan: &Scan, top: usize, offset: usize) -> Option<(String, Quote)> {
    let f = &scan.stack[top];
    let before = &text[..f.pos];
    let parent = top.checked_sub(1).map(|p| &scan.stack[p]);
    if FILTERS_KWARG.is_match(before) || before.trim_end().ends_with("**") {
        let p = parent.filter(|p| p.open == b'(')?;
        let t = tool_target(text, p, f.pos).or_else(|| pynetbox_target(text, p))?;
        return Some((t, Quote::Needed));
    }
    if let Some(p) = parent.filter(|p| p.open == b'(' && p.commas == 1) {
        if text[p.seg_start..f.pos].trim().is_empty() {
            if let Some(t) = tool_target(text, p, f.pos) {
                return Some((t, Quote::Needed));
            }
        }
    }
    let c = FILTERS_KEY.captures(before)?;
    let quote = if c[1].is_empty() {
        Quote::None
    } else {
        Quote::Needed
    };
    // JSON/YAML tool call: the object type is a sibling of `filters` in the enclosing object.
    let region_start = parent.map_or_else(|| text[..f.pos].rfind("\n\n").unwrap_or(0), |p| p.pos);
    let ahead_end = floor_boundary(text, (offset + LOOK_AHEAD).min(text.len()));
    // The tool name may sit further out (`{"name": ..., "arguments": {"filters": ...}}`).
    let outer_start = scan.stack.first().map_or(region_start, |f| f.pos);
    if text[outer_start..ahead_end].contains(CHANGELOG_TOOL) {
        return Some((CHANGELOG_TARGET.to_string(), quote));
    }
    let before_region = &text[region_start..f.pos];
    let t = OBJECT_TYPE_KEY
        .captures_iter(before_region)
        .last()
        .or_else(|| OBJECT_TYPE_KEY.captures(&text[offset..ahead_end]))
        .map(|c| c[1].to_string())?;
    Some((t, quote))
}

fn dict_context(text: &str, scan: &Scan, top: usize, offset: usize) -> Option<Context> {
    let f = &scan.stack[top];
    let seg_end = scan.string.map_or(offset, |(_, s)| s - 1);
    let seg = &text[f.seg_start..seg_end];
    // `"object_type": "|` in a JSON/YAML tool call.
    if OBJECT_TYPE_STR_KEY.is_match(seg) {
        if let Some((_, s)) = scan.string {
            return ctx(Expect::ObjectType, s..offset, Quote::None);
        }
    }
    let (target, quote) = filters_dict(text, scan, top, offset)?;
    match scan.string {
        Some((_, s)) => {
            if seg.trim().is_empty() {
                return ctx(Expect::FilterName { target }, s..offset, Quote::None);
            }
            let c = DICT_KEY_OPEN.captures(seg)?;
            ctx(
                Expect::ChoiceValue {
                    target,
                    filter: c[1].to_string(),
                },
                s..offset,
                Quote::None,
            )
        }
        None => {
            if BARE_WORD.is_match(seg) {
                return ctx(
                    Expect::FilterName { target },
                    word_before(text, offset, &[]),
                    quote,
                );
            }
            let c = DICT_BARE_VALUE.captures(seg)?;
            let filter = c[2].to_string();
            ctx(
                Expect::ChoiceValue { target, filter },
                word_before(text, offset, &['.', '-']),
                quote,
            )
        }
    }
}

/// A list value of a filter: `"status": ["active", "|` or `status=["active", "|`.
fn list_context(text: &str, scan: &Scan, top: usize, offset: usize) -> Option<Context> {
    let list = &scan.stack[top];
    let owner = top.checked_sub(1)?;
    let p = &scan.stack[owner];
    let seg = &text[p.seg_start..list.pos];
    let (target, filter, quote) = if p.open == b'{' {
        let (t, q) = filters_dict(text, scan, owner, list.pos)?;
        (t, DICT_KEY_OPEN.captures(seg)?[1].to_string(), q)
    } else {
        let t = pynetbox_target(text, p)?;
        (t, KWARG_NAME.captures(seg)?[1].to_string(), Quote::Needed)
    };
    let expect = Expect::ChoiceValue { target, filter };
    match scan.string {
        Some((_, s)) => ctx(expect, s..offset, Quote::None),
        None => ctx(expect, word_before(text, offset, &['.', '-']), quote),
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Block-style YAML: `filters:` with keys below it, and `object_type: |`.
fn yaml_block(text: &str, start: usize, offset: usize) -> Option<Context> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    if let Some(c) = YAML_VALUE.captures(line) {
        let g = c.get(3)?;
        let prefix = line_start + g.start()..offset;
        let key = &c[2];
        if key == "object_type" {
            return ctx(Expect::ObjectType, prefix, Quote::None);
        }
        let target = yaml_filters_target(text, start, line_start, c[1].len())?;
        return ctx(
            Expect::ChoiceValue {
                target,
                filter: key.to_string(),
            },
            prefix,
            Quote::None,
        );
    }
    let c = YAML_KEY.captures(line)?;
    let target = yaml_filters_target(text, start, line_start, c[1].len())?;
    let g = c.get(2)?;
    ctx(
        Expect::FilterName { target },
        line_start + g.start()..offset,
        Quote::None,
    )
}

/// When the line at `line_start` (keys indented by `key_indent`) sits under a `filters:` key:
/// the object type given beside that key.
fn yaml_filters_target(
    text: &str,
    start: usize,
    line_start: usize,
    key_indent: usize,
) -> Option<String> {
    let lines: Vec<(usize, &str)> = line_iter_back(text, start, line_start).collect();
    let mut parent = None;
    for (k, (_, l)) in lines.iter().enumerate() {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if indent_of(l) < key_indent {
            parent = Some(k);
            break;
        }
    }
    let k = parent?;
    let (filters_start, filters_line) = lines[k];
    let fc = YAML_FILTERS.captures(filters_line)?;
    let filters_indent = fc[1].len();
    let filters_line_indent = indent_of(filters_line);
    if text[start..line_start].contains(CHANGELOG_TOOL) {
        return Some(CHANGELOG_TARGET.to_string());
    }
    // Siblings before `filters:` (until the mapping ends).
    for (_, l) in &lines[k + 1..] {
        if let Some(c) = YAML_OBJECT_TYPE.captures(l) {
            if c[1].len() == filters_indent || indent_of(l) == filters_line_indent {
                return Some(c[2].to_string());
            }
        }
        let t = l.trim();
        if !t.is_empty() && !t.starts_with('#') && indent_of(l) < filters_line_indent {
            break;
        }
    }
    // Siblings after it.
    let after =
        &text[filters_start..floor_boundary(text, (line_start + LOOK_AHEAD).min(text.len()))];
    for l in after.lines().skip(1) {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if indent_of(l) < filters_indent {
            break;
        }
        if let Some(c) = YAML_OBJECT_TYPE.captures(l) {
            if c[1].len() == filters_indent {
                return Some(c[2].to_string());
            }
        }
    }
    None
}

/// Lines before `line_start` (nearest first), not earlier than `start`: (line start, text).
fn line_iter_back(
    text: &str,
    start: usize,
    line_start: usize,
) -> impl Iterator<Item = (usize, &str)> {
    let mut end = line_start;
    std::iter::from_fn(move || {
        if end <= start || end == 0 {
            return None;
        }
        let e = end - 1; // the '\n' ending the previous line
        let s = text[..e].rfind('\n').map_or(0, |i| i + 1).max(start);
        end = s;
        Some((s, &text[s..e]))
    })
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
