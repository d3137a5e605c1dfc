//! Extraction from JSON: tool-call objects (`{"name": "netbox_get_objects", "arguments":
//! {...}}`, also `tool` / `tool_name` and `input` / `args` / `parameters`), bare
//! `{"object_type": ..., "filters": {...}}` objects and GraphQL bodies `{"query": "...",
//! "variables": {...}}` anywhere in the tree (also in arrays), plus REST URLs in any string.
//!
//! A GraphQL query string's escapes are mapped piecewise (`lit::EscapedText`): each escape that
//! decodes to one ASCII character (`\n`, `\"`, `\\`, `\u0041`, ...) maps to the last host byte
//! of the escape, every other byte to itself; a non-ASCII character (`\u00e9`, a surrogate pair
//! `\ud83d\ude00`) maps its first byte to the escape's first byte and its other bytes to the
//! escape's last ones, so no range starts or ends inside an escape.

use tree_sitter::Node;

use super::lit::{EscapedText, Lit, LitKind, Pair};
use super::parse::{self, Lang, MAX_DEPTH};
use super::{tools, OffsetMap, Site, Syntax, Value};

/// Sites found in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut sites = extract_calls(text, map);
    sites.extend(super::text::extract(text, map));
    sites
}

/// Calls and documents only (no URL scan).
pub(crate) fn extract_calls(text: &str, map: &OffsetMap) -> Vec<Site> {
    let Some(tree) = parse::parse(Lang::Json, text) else {
        return Vec::new();
    };
    let cx = Cx {
        src: text,
        len: text.len(),
        map,
    };
    let mut sites = Vec::new();
    tools::find_in_tree(&cx.lit(tree.root_node(), 0), Syntax::Json, &mut sites);
    if tree.root_node().has_error() {
        let close = parse::closers(text, false);
        if !close.is_empty() {
            let repaired = format!("{text}{close}");
            if let Some(tree2) = parse::parse(Lang::Json, &repaired) {
                let cx = Cx {
                    src: &repaired,
                    len: text.len(),
                    map,
                };
                let mut more = Vec::new();
                tools::find_in_tree(&cx.lit(tree2.root_node(), 0), Syntax::Json, &mut more);
                super::add_missing(&mut sites, more);
            }
        }
    }
    sites
}

/// The JSON value of `text` (decoded from a JSON string) as a literal tree with host ranges
/// through `map`; `None` when it does not parse cleanly (a string that merely starts with `{`).
pub(crate) fn value(text: &str, map: &OffsetMap) -> Option<Lit> {
    let tree = parse::parse(Lang::Json, text)?;
    if tree.root_node().has_error() {
        return None;
    }
    let cx = Cx {
        src: text,
        len: text.len(),
        map,
    };
    let root = tree.root_node();
    let mut cursor = root.walk();
    let first = root.named_children(&mut cursor).next()?;
    Some(cx.lit(first, 0))
}

struct Cx<'a> {
    src: &'a str,
    len: usize,
    map: &'a OffsetMap,
}

impl Cx<'_> {
    fn host(&self, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let end = r.end.min(self.len);
        self.map.range_to_host(r.start.min(end)..end)
    }

    fn lit(&self, n: Node, depth: usize) -> Lit {
        let range = self.host(n.byte_range());
        if depth > MAX_DEPTH {
            return Lit::scalar(Value::Expr, range);
        }
        let text = self.src.get(n.byte_range()).unwrap_or("");
        match n.kind() {
            "string" => self.string(n),
            "number" => {
                let v = text
                    .parse::<i64>()
                    .map(Value::Int)
                    .or_else(|_| text.parse::<f64>().map(Value::Float))
                    .unwrap_or(Value::Expr);
                Lit::scalar(v, range)
            }
            "true" => Lit::scalar(Value::Bool(true), range),
            "false" => Lit::scalar(Value::Bool(false), range),
            "null" => Lit::scalar(Value::Null, range),
            "object" => {
                let mut cursor = n.walk();
                let mut pairs = Vec::new();
                for p in n.named_children(&mut cursor) {
                    if p.kind() != "pair" {
                        continue;
                    }
                    let (Some(k), Some(v)) =
                        (p.child_by_field_name("key"), p.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    let key = self.string(k);
                    let Some((key_text, key_range)) = key.as_str() else {
                        continue;
                    };
                    pairs.push(Pair {
                        key: key_text.to_string(),
                        key_range,
                        value: self.lit(v, depth + 1),
                    });
                }
                Lit::map(pairs, range)
            }
            // Arrays, the document, and error regions: look inside for objects.
            _ => {
                let mut cursor = n.walk();
                let items = n
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .map(|c| self.lit(c, depth + 1))
                    .collect();
                let mut l = Lit::seq(items, range);
                if !matches!(n.kind(), "array") {
                    l.value = Value::Expr;
                }
                l
            }
        }
    }

    /// A JSON string: decoded value, content range, and the piecewise map (see module docs).
    fn string(&self, n: Node) -> Lit {
        let range = self.host(n.byte_range());
        if n.kind() != "string" {
            return Lit::scalar(Value::Expr, range);
        }
        // An unterminated string (error recovery) has no closing quote to step back over.
        let closed = n.end_byte() > n.start_byte() + 1
            && self.src.as_bytes().get(n.end_byte() - 1) == Some(&b'"');
        let inner = n.start_byte() + 1..n.end_byte() - usize::from(closed);
        let b = decode_string(self.src, inner.clone());
        let (value, map) = b.finish();
        let exact = map
            .filter(|_| inner.end <= self.len)
            .map(|m| (value.clone(), m.then(self.map)));
        Lit {
            value: Value::Str(value),
            range,
            kind: LitKind::Str {
                content: self.host(inner),
                exact,
            },
            raw: None,
        }
    }
}

/// The decoded text of the JSON string content at `inner` of `src`, with its piecewise map:
/// plain runs map byte for byte; `\n`, `\"`, ... and `\uXXXX` escapes decode (a surrogate
/// pair `\ud83d\ude00` to one character) and map as [`EscapedText::escape_span`] says. The
/// grammar splits `\u00e9` into an escape `\u` and content `00e9`, so the bytes are read here.
fn decode_string(src: &str, inner: std::ops::Range<usize>) -> EscapedText {
    let mut b = EscapedText::new();
    let bytes = src.as_bytes();
    let end = inner.end.min(src.len());
    let hex4 = |at: usize| -> Option<u32> {
        let h = src.get(at..at + 4)?;
        h.bytes()
            .all(|c| c.is_ascii_hexdigit())
            .then(|| u32::from_str_radix(h, 16).ok())
            .flatten()
    };
    let mut i = inner.start;
    let mut run = i;
    while i < end {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if run < i {
            b.plain(run, &src[run..i]);
        }
        let start = i;
        let (ch, next) = match bytes.get(i + 1) {
            Some(b'u') => match hex4(i + 2) {
                Some(hi @ 0xD800..=0xDBFF) => {
                    let lo = (bytes.get(i + 6) == Some(&b'\\') && bytes.get(i + 7) == Some(&b'u'))
                        .then(|| hex4(i + 8))
                        .flatten()
                        .filter(|lo| (0xDC00..0xE000).contains(lo));
                    match lo {
                        Some(lo) => (
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)),
                            i + 12,
                        ),
                        None => (None, i + 6),
                    }
                }
                Some(u) => (char::from_u32(u), i + 6),
                None => (None, (i + 2).min(end)),
            },
            Some(_) => (
                decode_escape(src.get(i..i + 2).unwrap_or("")),
                i + 1 + src[i + 1..].chars().next().map_or(1, char::len_utf8),
            ),
            None => (None, i + 1),
        };
        let next = next.min(end);
        b.escape_span(start, next, ch);
        i = next;
        run = i;
    }
    if run < end {
        b.plain(run, &src[run..end]);
    }
    b
}

fn decode_escape(t: &str) -> Option<char> {
    let rest = t.strip_prefix('\\')?;
    Some(match rest {
        "n" => '\n',
        "t" => '\t',
        "r" => '\r',
        "b" => '\x08',
        "f" => '\x0c',
        "\"" | "\\" | "/" => rest.chars().next()?,
        _ => {
            let hex = rest.strip_prefix('u')?;
            char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
        }
    })
}
