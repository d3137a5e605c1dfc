//! The JSON reader: JSON text to a literal tree ([`Lit`]) with host ranges, by a strict
//! reader (`jsonc-parser`) where it accepts the text, else by tree-sitter. Used by the JSON
//! extraction ([`super::json`]) and wherever JSON stands inside a string (tool arguments,
//! notebooks).
//!
//! A GraphQL query string's escapes are mapped piecewise (`lit::EscapedText`): each escape that
//! decodes to one ASCII character (`\n`, `\"`, `\\`, `\u0041`, ...) maps to the last host byte
//! of the escape, every other byte to itself; a non-ASCII character (`\u00e9`, a surrogate pair
//! `\ud83d\ude00`) maps its first byte to the escape's first byte and its other bytes to the
//! escape's last ones, so no range starts or ends inside an escape.

use tree_sitter::Node;

use super::lit::{EscapedText, Exact, Lit, LitKind, Pair};
use super::parse::{self, Lang, MAX_DEPTH};
use super::{OffsetMap, Value};

/// The JSON value of `text` (decoded from a JSON string) as a literal tree with host ranges
/// through `map`; `None` when it does not parse cleanly (a string that merely starts with `{`).
pub(crate) fn value(text: &str, map: &OffsetMap) -> Option<Lit> {
    let cx = Cx {
        src: text,
        len: text.len(),
        map,
    };
    if parse::over_budget(Lang::Json, text).is_some() {
        return None;
    }
    if let Some(root) = strict::document(&cx) {
        return match root.kind {
            LitKind::Seq(items) => items.into_iter().next(),
            _ => None,
        };
    }
    let tree = parse::parse(Lang::Json, text).ok()?;
    if tree.root_node().has_error() {
        return None;
    }
    let root = tree.root_node();
    let mut cursor = root.walk();
    let first = root.named_children(&mut cursor).next()?;
    Some(cx.lit(first, 0))
}

/// A JSON text being read: its source, the length that maps to the host (a repaired text
/// reads past it) and the map to the host.
pub(super) struct Cx<'a> {
    pub(super) src: &'a str,
    pub(super) len: usize,
    pub(super) map: &'a OffsetMap,
}

impl Cx<'_> {
    fn host(&self, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let end = r.end.min(self.len);
        self.map.range_to_host(r.start.min(end)..end)
    }

    pub(super) fn lit(&self, n: Node, depth: usize) -> Lit {
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
                        key: key_text.into(),
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
        if n.kind() != "string" {
            return Lit::scalar(Value::Expr, self.host(n.byte_range()));
        }
        self.string_at(n.byte_range())
    }

    /// The string node at `node` (quotes included), as [`Cx::string`] reads it.
    fn string_at(&self, node: std::ops::Range<usize>) -> Lit {
        let range = self.host(node.clone());
        // An unterminated string (error recovery) has no closing quote to step back over.
        let closed =
            node.end > node.start + 1 && self.src.as_bytes().get(node.end - 1) == Some(&b'"');
        let inner = node.start + 1..node.end - usize::from(closed);
        let b = decode_string(self.src, inner.clone());
        let (value, map) = b.finish();
        let exact = map
            .filter(|_| inner.end <= self.len)
            .map(|m| Exact::Value(m.then(self.map)));
        Lit {
            value: Value::Str(value.into()),
            range,
            kind: LitKind::Str {
                content: self.host(inner),
                exact,
            },
            raw: None,
        }
    }
}

/// Strict JSON read by `jsonc-parser` (dprint's spanned JSON parser, every JSONC/JSON5
/// extension turned off) instead of tree-sitter: the same literal tree `Cx::lit` makes of the
/// document node of tree-sitter-json's error-free tree, at a fraction of the cost. Where the
/// two grammars differ the text is left to tree-sitter, whose error recovery this does not
/// imitate: whitespace other than space, tab, `\n`, `\r`; control characters in strings;
/// numbers outside `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE]-?[0-9]+)?` (tree-sitter-json's exponent
/// takes no `+`); top-level values not set apart; anything `jsonc-parser` rejects.
/// Equivalence is tested against tree-sitter on generated and fixture texts.
pub(super) mod strict {
    use jsonc_parser::ast::{ObjectPropName, Value as Node};
    use jsonc_parser::errors::ParseErrorKind;
    use jsonc_parser::{parse_to_ast, CollectOptions, CommentCollectionStrategy, ParseOptions};

    use super::Cx;
    use crate::extract::lit::{Lit, Pair};
    use crate::extract::parse::{MAX_DEPTH, MAX_PARSE};
    use crate::extract::Value;

    /// The whitespace both grammars skip.
    const WS: [char; 4] = [' ', '\t', '\n', '\r'];

    const STRICT: ParseOptions = ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };

    /// The document's literal (a sequence of its top-level values, as `Cx::lit` gives for the
    /// document node), or `None` to let tree-sitter read the text.
    pub(in crate::extract) fn document(cx: &Cx) -> Option<Lit> {
        let src = cx.src;
        if src.len() > MAX_PARSE
            || src
                .bytes()
                .any(|c| (c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r')) || c == 0x7f)
        {
            return None;
        }
        let collect = CollectOptions {
            comments: CommentCollectionStrategy::Off,
            tokens: true,
        };
        let mut items = Vec::new();
        let mut off = 0;
        // `jsonc-parser` reads one root value: at a second one, read the text before it alone
        // and go on from there (tree-sitter-json reads any number of values).
        while off < src.len() {
            let rest = &src[off..];
            let (slice, parsed) = match parse_to_ast(rest, &collect, &STRICT) {
                Ok(p) => (rest, p),
                Err(e) if matches!(e.kind(), ParseErrorKind::MultipleRootJsonValues) => {
                    let end = e.range().start;
                    let slice = rest.get(..end)?;
                    // Top-level values must be apart (tree-sitter also reads `truefalse` as two).
                    let prev = slice.trim_end_matches(WS);
                    if prev.len() == end && !prev.ends_with(['}', ']', '"']) {
                        return None;
                    }
                    (slice, parse_to_ast(slice, &collect, &STRICT).ok()?)
                }
                Err(_) => return None,
            };
            let (Some(value), Some(tokens)) = (parsed.value, parsed.tokens) else {
                return None;
            };
            // Only the whitespace tree-sitter-json skips may lie between tokens.
            let mut at = 0;
            for t in &tokens {
                if !slice
                    .get(at..t.range.start)?
                    .trim_start_matches(WS)
                    .is_empty()
                {
                    return None;
                }
                at = t.range.end;
            }
            if !slice.get(at..)?.trim_start_matches(WS).is_empty() {
                return None;
            }
            items.push(lit(cx, off, &value, 1)?);
            off += slice.len();
        }
        if items.is_empty() {
            return None;
        }
        // The document node starts at its first value and takes in the trailing whitespace.
        let start = src.len() - src.trim_start_matches(WS).len();
        let mut l = Lit::seq(items, cx.host(start..src.len()));
        l.value = Value::Expr;
        Some(l)
    }

    /// The literal of `node` (ranges relative to `src[off..]`) at `depth` as `Cx::lit` counts it.
    fn lit(cx: &Cx, off: usize, node: &Node, depth: usize) -> Option<Lit> {
        let r = node_range(node);
        let range = off + r.start..off + r.end;
        if depth > MAX_DEPTH {
            return Some(Lit::scalar(Value::Expr, cx.host(range)));
        }
        Some(match node {
            Node::StringLit(_) => cx.string_at(range),
            Node::NumberLit(n) => {
                if !strict_number(n.value.as_bytes()) {
                    return None;
                }
                let v = n
                    .value
                    .parse::<i64>()
                    .map(Value::Int)
                    .or_else(|_| n.value.parse::<f64>().map(Value::Float))
                    .unwrap_or(Value::Expr);
                Lit::scalar(v, cx.host(range))
            }
            Node::BooleanLit(b) => Lit::scalar(Value::Bool(b.value), cx.host(range)),
            Node::NullKeyword(_) => Lit::scalar(Value::Null, cx.host(range)),
            Node::Array(a) => {
                let items = a
                    .elements
                    .iter()
                    .map(|e| lit(cx, off, e, depth + 1))
                    .collect::<Option<Vec<_>>>()?;
                Lit::seq(items, cx.host(range))
            }
            Node::Object(o) => {
                let mut pairs = Vec::with_capacity(o.properties.len());
                for p in &o.properties {
                    let ObjectPropName::String(k) = &p.name else {
                        return None;
                    };
                    let key = cx.string_at(off + k.range.start..off + k.range.end);
                    let value = lit(cx, off, &p.value, depth + 1)?;
                    if let Some((key_text, key_range)) = key.as_str() {
                        pairs.push(Pair {
                            key: key_text.into(),
                            key_range,
                            value,
                        });
                    }
                }
                Lit::map(pairs, cx.host(range))
            }
        })
    }

    fn node_range(node: &Node) -> std::ops::Range<usize> {
        let r = match node {
            Node::StringLit(n) => n.range,
            Node::NumberLit(n) => n.range,
            Node::BooleanLit(n) => n.range,
            Node::NullKeyword(n) => n.range,
            Node::Array(n) => n.range,
            Node::Object(n) => n.range,
        };
        r.start..r.end
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE]-?[0-9]+)?`, the numbers both JSON and tree-sitter-json
    /// read alike.
    fn strict_number(b: &[u8]) -> bool {
        let b = b.strip_prefix(b"-").unwrap_or(b);
        let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
        if int == 0 || (int > 1 && b[0] == b'0') {
            return false;
        }
        let mut rest = &b[int..];
        if let Some(f) = rest.strip_prefix(b".") {
            let n = f.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return false;
            }
            rest = &f[n..];
        }
        if let Some(e) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
            let e = e.strip_prefix(b"-").unwrap_or(e);
            let n = e.iter().take_while(|c| c.is_ascii_digit()).count();
            return n > 0 && n == e.len();
        }
        rest.is_empty()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `Some((strict, tree-sitter))` renderings of the document literal when the strict reader
    /// accepts `text`; the tree-sitter tree must then be free of errors.
    fn both(text: &str) -> Option<(String, String)> {
        let map = OffsetMap::identity(7, text.len());
        let cx = Cx {
            src: text,
            len: text.len(),
            map: &map,
        };
        let fast = strict::document(&cx)?;
        let tree = parse::parse(Lang::Json, text).expect("tree-sitter parses");
        assert!(
            !tree.root_node().has_error(),
            "accepted with errors: {text:?}"
        );
        Some((
            format!("{fast:?}"),
            format!("{:?}", cx.lit(tree.root_node(), 0)),
        ))
    }

    /// Texts to compare: JSON fences of the Markdown and the JSON files under examples/ and
    /// tests/fixtures/, and generated values (escapes, numbers, nesting past `MAX_DEPTH`).
    fn samples() -> Vec<String> {
        let mut out = super::super::mutations::fixture_texts(&["json", "ipynb"], |u| {
            let t = u.body.trim_start();
            u.kind == crate::extract::markdown::UnitKind::Fence("json".into())
                || t.starts_with('{')
                || t.starts_with('[')
        });
        let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        out.extend([
            deep(63),
            deep(64),
            deep(65),
            deep(70),
            format!("{{\"a\": {}}}", deep(66)),
            r#"{"q": "query { a(b: \"x\") }\n", "u": "\u00e9\ud83d\ude00\/\b\f\r\t\\"}"#.into(),
            r#"  [0, -0, 12, -3.25, 1e5, 2E-3, 9223372036854775808, -1.0e-7, true, false, null]  "#
                .into(),
            "{}{}\n[1][2] \"a\"\"b\" 3 4".into(),
            "{\"object_type\": \"dcim.site\", \"filters\": {\"status\": [\"active\", \"planned\"], \"tag\": \"é\"}}\n".into(),
            "\n\n  {\n  \"name\": \"netbox_get_objects\",\n  \"arguments\": {\"object_type\": \"dcim.device\", \"filters\": {\"q\": \"x\"}}\n}\n\n".into(),
        ]);
        out
    }

    /// The strict reader gives exactly tree-sitter's literal tree wherever it accepts a text:
    /// every sample, and every sample with one byte deleted, doubled or replaced by a character
    /// JSON or the grammar treats specially.
    #[test]
    fn strict_reader_matches_tree_sitter() {
        let mut accepted = 0;
        let mut compared = 0;
        for text in samples() {
            let variants = super::super::mutations::one_byte_variants(
                &text,
                40,
                &[
                    ",", "}", "]", "\"", "\\", "e+", "/", " ", "\t", "\u{c}", "1.", "-",
                ],
            );
            for v in variants {
                compared += 1;
                if let Some((fast, tree)) = both(&v) {
                    accepted += 1;
                    assert_eq!(fast, tree, "{v:?}");
                }
            }
        }
        // Numbers, several top-level values and tool calls are read here, not by tree-sitter.
        let all = samples();
        for text in &all[all.len() - 4..] {
            assert!(both(text).is_some(), "{text:?}");
        }
        eprintln!("strict JSON reader: {accepted} of {compared} texts accepted");
        assert!(
            accepted > 500 && compared > accepted,
            "{accepted} of {compared}"
        );
    }
}
