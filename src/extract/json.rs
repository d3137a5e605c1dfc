//! Extraction from JSON: tool-call objects (`{"name": "netbox_get_objects", "arguments":
//! {...}}`, also `tool` / `tool_name` and `input` / `args` / `parameters`), bare
//! `{"object_type": ..., "filters": {...}}` objects and GraphQL bodies `{"query": "...",
//! "variables": {...}}` anywhere in the tree (also in arrays), plus REST URLs in any string.
//!
//! A GraphQL query string's escapes are mapped piecewise (`lit::EscapedText`): each escape that
//! decodes to one ASCII character (`\n`, `\"`, `\\`, `\u0041`, ...) maps to the last host byte
//! of the escape, every other byte to itself. A string with an escape for a non-ASCII character
//! is skipped.

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
        let mut b = EscapedText::new();
        let mut cursor = n.walk();
        for c in n.named_children(&mut cursor) {
            let t = self.src.get(c.byte_range()).unwrap_or("");
            match c.kind() {
                "string_content" => b.plain(c.start_byte(), t),
                "escape_sequence" => b.escape(c.end_byte(), decode_escape(t)),
                _ => {}
            }
        }
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
