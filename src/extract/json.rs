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
    let cx = Cx {
        src: text,
        len: text.len(),
        map,
    };
    let mut sites = Vec::new();
    if let Some(root) = strict::document(&cx) {
        tools::find_in_tree(&root, Syntax::Json, &mut sites);
        return sites;
    }
    let Some(tree) = parse::parse(Lang::Json, text) else {
        return Vec::new();
    };
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
    let cx = Cx {
        src: text,
        len: text.len(),
        map,
    };
    if let Some(root) = strict::document(&cx) {
        return match root.kind {
            LitKind::Seq(items) => items.into_iter().next(),
            _ => None,
        };
    }
    let tree = parse::parse(Lang::Json, text)?;
    if tree.root_node().has_error() {
        return None;
    }
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

/// Strict JSON (RFC 8259 without a few corners) read without tree-sitter: the same literal tree
/// `Cx::lit` makes of the document node of tree-sitter-json's error-free tree, at a tenth of the
/// cost (a tool-call fence took ≈ 110 k instructions to parse). Anything this reader does not
/// accept (comments, trailing commas, `1e+5`, `1.`, control characters in strings, other
/// whitespace, values not separated by whitespace or punctuation, nesting deeper than
/// [`strict::MAX_NESTING`], syntax errors) is left to tree-sitter, whose error recovery this does
/// not imitate. Equivalence is tested against tree-sitter on generated and fixture texts.
mod strict {
    use super::Cx;
    use crate::extract::lit::{Lit, Pair};
    use crate::extract::parse::{MAX_DEPTH, MAX_PARSE};
    use crate::extract::Value;

    /// Deepest container nesting read here (the reader recurses once per level).
    pub(super) const MAX_NESTING: usize = 256;

    /// The document's literal (a sequence of its top-level values, as `Cx::lit` gives for the
    /// document node), or `None` to let tree-sitter read the text.
    pub(super) fn document(cx: &Cx) -> Option<Lit> {
        if cx.src.len() > MAX_PARSE {
            return None;
        }
        let mut r = Reader {
            cx,
            b: cx.src.as_bytes(),
            i: 0,
        };
        let mut items = Vec::new();
        r.ws();
        let start = r.i;
        while r.i < r.b.len() {
            items.push(r.value(1, 0)?);
            // Top-level values must be apart (tree-sitter also reads `truefalse` as two).
            if r.i < r.b.len()
                && !matches!(r.b[r.i], b' ' | b'\t' | b'\n' | b'\r')
                && !matches!(r.b[r.i - 1], b'}' | b']' | b'"')
            {
                return None;
            }
            r.ws();
        }
        if items.is_empty() {
            return None;
        }
        // The document node starts at its first value and takes in the trailing whitespace.
        let mut l = Lit::seq(items, cx.host(start..r.b.len()));
        l.value = Value::Expr;
        Some(l)
    }

    struct Reader<'a> {
        cx: &'a Cx<'a>,
        b: &'a [u8],
        i: usize,
    }

    impl Reader<'_> {
        fn ws(&mut self) {
            while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            }
        }

        fn peek(&self) -> Option<u8> {
            self.b.get(self.i).copied()
        }

        /// One value at `depth` (as `Cx::lit` counts it) and container nesting `nest`.
        fn value(&mut self, depth: usize, nest: usize) -> Option<Lit> {
            let start = self.i;
            let lit = match self.peek()? {
                b'{' => self.object(depth, nest)?,
                b'[' => self.array(depth, nest)?,
                b'"' => {
                    self.string_end()?;
                    self.cx.string_at(start..self.i)
                }
                b't' => self.word(b"true", Value::Bool(true))?,
                b'f' => self.word(b"false", Value::Bool(false))?,
                b'n' => self.word(b"null", Value::Null)?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            };
            if depth > MAX_DEPTH {
                return Some(Lit::scalar(Value::Expr, self.cx.host(start..self.i)));
            }
            Some(lit)
        }

        fn word(&mut self, w: &[u8], v: Value) -> Option<Lit> {
            let start = self.i;
            if !self.b[start..].starts_with(w) {
                return None;
            }
            self.i += w.len();
            if self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
            {
                return None;
            }
            Some(Lit::scalar(v, self.cx.host(start..self.i)))
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE]-?[0-9]+)?`, the numbers both JSON and
        /// tree-sitter-json read alike (the grammar's exponent takes no `+`).
        fn number(&mut self) -> Option<Lit> {
            let start = self.i;
            let digits = |r: &mut Self| {
                let from = r.i;
                while r.peek().is_some_and(|c| c.is_ascii_digit()) {
                    r.i += 1;
                }
                r.i > from
            };
            if self.peek() == Some(b'-') {
                self.i += 1;
            }
            match self.peek()? {
                b'0' => self.i += 1,
                b'1'..=b'9' => {
                    digits(self);
                }
                _ => return None,
            }
            if self.peek() == Some(b'.') {
                self.i += 1;
                if !digits(self) {
                    return None;
                }
            }
            if matches!(self.peek(), Some(b'e' | b'E')) {
                self.i += 1;
                if self.peek() == Some(b'-') {
                    self.i += 1;
                }
                if !digits(self) {
                    return None;
                }
            }
            if self.peek().is_some_and(|c| {
                c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'+')
            }) {
                return None;
            }
            let text = &self.cx.src[start..self.i];
            let v = text
                .parse::<i64>()
                .map(Value::Int)
                .or_else(|_| text.parse::<f64>().map(Value::Float))
                .unwrap_or(Value::Expr);
            Some(Lit::scalar(v, self.cx.host(start..self.i)))
        }

        /// Moves past a string starting at `"`: no raw control characters, escapes `\"`,
        /// `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` and `\u` with four hex digits.
        fn string_end(&mut self) -> Option<()> {
            self.i += 1;
            loop {
                let c = self.peek()?;
                self.i += 1;
                match c {
                    b'"' => return Some(()),
                    b'\\' => match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                        b'u' => {
                            let hex = self.b.get(self.i + 1..self.i + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.i += 5;
                        }
                        _ => return None,
                    },
                    0..=0x1f | 0x7f => return None,
                    _ => {}
                }
            }
        }

        fn object(&mut self, depth: usize, nest: usize) -> Option<Lit> {
            if nest >= MAX_NESTING {
                return None;
            }
            let start = self.i;
            self.i += 1;
            self.ws();
            let mut pairs = Vec::new();
            if self.peek()? == b'}' {
                self.i += 1;
                return Some(Lit::map(pairs, self.cx.host(start..self.i)));
            }
            loop {
                if self.peek()? != b'"' {
                    return None;
                }
                let k = self.i;
                self.string_end()?;
                let key = self.cx.string_at(k..self.i);
                self.ws();
                if self.peek()? != b':' {
                    return None;
                }
                self.i += 1;
                self.ws();
                let value = self.value(depth + 1, nest + 1)?;
                if let Some((key_text, key_range)) = key.as_str() {
                    pairs.push(Pair {
                        key: key_text.to_string(),
                        key_range,
                        value,
                    });
                }
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        self.ws();
                    }
                    b'}' => {
                        self.i += 1;
                        return Some(Lit::map(pairs, self.cx.host(start..self.i)));
                    }
                    _ => return None,
                }
            }
        }

        fn array(&mut self, depth: usize, nest: usize) -> Option<Lit> {
            if nest >= MAX_NESTING {
                return None;
            }
            let start = self.i;
            self.i += 1;
            self.ws();
            let mut items = Vec::new();
            if self.peek()? == b']' {
                self.i += 1;
                return Some(Lit::seq(items, self.cx.host(start..self.i)));
            }
            loop {
                items.push(self.value(depth + 1, nest + 1)?);
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        self.ws();
                    }
                    b']' => {
                        self.i += 1;
                        return Some(Lit::seq(items, self.cx.host(start..self.i)));
                    }
                    _ => return None,
                }
            }
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
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        let mut dirs = vec![root.join("examples"), root.join("tests/fixtures")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("fixture folder").flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&p) else {
                    continue;
                };
                match p.extension().and_then(|x| x.to_str()) {
                    Some("json" | "ipynb") if text.len() < 256 * 1024 => out.push(text),
                    Some("md") => {
                        for u in crate::extract::markdown::units(&text) {
                            let t = u.body.trim_start();
                            if u.kind == crate::extract::markdown::UnitKind::Fence("json".into())
                                || t.starts_with('{')
                                || t.starts_with('[')
                            {
                                out.push(u.body);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
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
            let mut variants = vec![text.clone()];
            let b = text.as_bytes();
            let step = (b.len() / 40).max(1);
            for i in (0..b.len()).step_by(step) {
                let mut del = b.to_vec();
                del.remove(i);
                let mut dup = b.to_vec();
                dup.insert(i, b[i]);
                variants.extend(
                    [del, dup]
                        .into_iter()
                        .filter_map(|v| String::from_utf8(v).ok()),
                );
                for c in [
                    ",", "}", "]", "\"", "\\", "e+", "/", " ", "\t", "\u{c}", "1.", "-",
                ] {
                    let mut v = b.to_vec();
                    v.splice(i..i + 1, c.bytes());
                    variants.extend(String::from_utf8(v).ok());
                }
            }
            for v in variants {
                compared += 1;
                if let Some((fast, tree)) = both(&v) {
                    accepted += 1;
                    assert_eq!(fast, tree, "{v:?}");
                }
            }
        }
        assert!(
            accepted > 500 && compared > accepted,
            "{accepted} of {compared}"
        );
    }
}
