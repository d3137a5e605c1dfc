//! A language-neutral literal tree (Python dict/list literals, JSON values, YAML nodes) with host
//! byte ranges, so the tool-call shapes can be recognised once for every host language.

use std::ops::Range;

use super::{OffsetMap, Value};

/// A literal with its host range.
#[derive(Debug, Clone)]
pub(crate) struct Lit {
    /// The value as the checkers see it (`List` / `Map` for containers, `Expr` for non-literals).
    pub value: Value,
    /// Host bytes of the whole literal, quotes included.
    pub range: Range<usize>,
    pub kind: LitKind,
    /// Python only: the embedded (not host) range of a string's raw content, also for
    /// f-strings and concatenations, to find an `/api/...` path in a templated URL.
    pub raw: Option<Range<usize>>,
}

#[derive(Debug, Clone)]
pub(crate) enum LitKind {
    /// A number, boolean, null or expression.
    Scalar,
    /// A string. `content` is the host range between the quotes; `exact` holds the text and its
    /// map to the host when every byte of the decoded text maps back to one host byte (needed for
    /// GraphQL documents; `None` when escapes, interpolation or folding make that impossible).
    Str {
        content: Range<usize>,
        exact: Option<Exact>,
    },
    Seq(Vec<Lit>),
    Map(Vec<Pair>),
    /// A Python string built from several pieces (an f-string, `+`, `%`, `.format`,
    /// `string.Template`): its text with each hole (a value known only at run time) written as
    /// as many `_` as its source has bytes, with the map of that text to the host when every
    /// character maps to one host byte, and the holes' ranges in that text. Its `value` is the
    /// string when it has no hole, else [`Value::Expr`].
    Template {
        exact: Option<(String, OffsetMap)>,
        holes: Vec<Range<usize>>,
    },
}

/// The exact text of a string literal (see [`LitKind::Str`]) with its map to the host.
#[derive(Debug, Clone)]
pub(crate) enum Exact {
    /// The text is the literal's decoded value ([`Value::Str`]), as for every string without
    /// escapes: no second copy of it is kept.
    Value(OffsetMap),
    /// A text that differs from the value, or a literal whose value is no string.
    Text(String, OffsetMap),
}

/// One `key: value` of a mapping; `key_range` is the key text without quotes.
#[derive(Debug, Clone)]
pub(crate) struct Pair {
    pub key: compact_str::CompactString,
    pub key_range: Range<usize>,
    pub value: Lit,
}

impl Lit {
    pub fn scalar(value: Value, range: Range<usize>) -> Lit {
        Lit {
            value,
            range,
            kind: LitKind::Scalar,
            raw: None,
        }
    }

    pub fn seq(items: Vec<Lit>, range: Range<usize>) -> Lit {
        let value = Value::List(
            items
                .iter()
                .map(|l| (l.value.clone(), l.range.clone()))
                .collect(),
        );
        Lit {
            value,
            range,
            kind: LitKind::Seq(items),
            raw: None,
        }
    }

    pub fn map(pairs: Vec<Pair>, range: Range<usize>) -> Lit {
        Lit {
            value: Value::Map,
            range,
            kind: LitKind::Map(pairs),
            raw: None,
        }
    }

    /// The pairs of a mapping.
    pub fn pairs(&self) -> Option<&[Pair]> {
        match &self.kind {
            LitKind::Map(p) => Some(p),
            _ => None,
        }
    }

    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Pair> {
        self.pairs()?.iter().find(|p| p.key == key)
    }

    /// The decoded string and its content host range, for a string literal.
    pub fn as_str(&self) -> Option<(&str, Range<usize>)> {
        match (&self.value, &self.kind) {
            (Value::Str(s), LitKind::Str { content, .. }) => Some((s, content.clone())),
            _ => None,
        }
    }

    /// The string's text with an exact map, when it has one.
    pub fn exact_text(&self) -> Option<(&str, &OffsetMap)> {
        match (&self.kind, &self.value) {
            (
                LitKind::Str {
                    exact: Some(Exact::Value(m)),
                    ..
                },
                Value::Str(t),
            ) => Some((t, m)),
            (
                LitKind::Str {
                    exact: Some(Exact::Text(t, m)),
                    ..
                },
                _,
            ) => Some((t, m)),
            _ => None,
        }
    }

    /// The text of a string or string template with its map to the host and the ranges of its
    /// holes in the text (none for a plain string), when it maps exactly.
    pub fn document_text(&self) -> Option<(&str, &OffsetMap, &[Range<usize>])> {
        match &self.kind {
            LitKind::Str { .. } => self.exact_text().map(|(t, m)| (t, m, &[][..])),
            LitKind::Template {
                exact: Some((t, m)),
                holes,
            } => Some((t, m, holes)),
            _ => None,
        }
    }

    /// The literal as JSON (for GraphQL `variables`); `None` if it holds a non-literal anywhere.
    pub fn to_json(&self) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        Some(match (&self.kind, &self.value) {
            (LitKind::Seq(items), _) => {
                J::Array(items.iter().map(Lit::to_json).collect::<Option<Vec<_>>>()?)
            }
            (LitKind::Map(pairs), _) => {
                let mut m = serde_json::Map::new();
                for p in pairs {
                    m.insert(p.key.to_string(), p.value.to_json()?);
                }
                J::Object(m)
            }
            (_, Value::Str(s)) => J::String(s.to_string()),
            (_, Value::Int(i)) => J::from(*i),
            (_, Value::Float(f)) => serde_json::Number::from_f64(*f).map(J::Number)?,
            (_, Value::Bool(b)) => J::Bool(*b),
            (_, Value::Null) => J::Null,
            _ => return None,
        })
    }
}

/// A string literal's decoded text built piece by piece with a map to the embedded text, for
/// JSON and Python strings alike: plain text maps byte for byte, an escape that decodes to one
/// ASCII character (`\n`, `\"`, `\\`, `\u0041`) maps to the escape's last byte. Any other
/// escape leaves the text without an exact map.
#[derive(Default)]
pub(crate) struct EscapedText {
    text: String,
    map: OffsetMap,
    exact: bool,
}

impl EscapedText {
    pub fn new() -> Self {
        EscapedText {
            exact: true,
            ..Default::default()
        }
    }

    /// Text `s` written at embedded offset `at` without escapes.
    pub fn plain(&mut self, at: usize, s: &str) {
        self.text.push_str(s);
        self.map.push(at, s.len());
    }

    /// An escape ending at embedded offset `end` that decodes to `ch` (`None`: undecodable).
    pub fn escape(&mut self, end: usize, ch: Option<char>) {
        match ch {
            Some(c) if c.is_ascii() => {
                self.text.push(c);
                self.map.push(end - 1, 1);
            }
            Some(c) => {
                self.text.push(c);
                self.exact = false;
            }
            None => {
                self.text.push('\u{fffd}');
                self.exact = false;
            }
        }
    }

    /// An escape at embedded `start..end` that decodes to `ch`, mapped even when `ch` is not
    /// ASCII (JSON `\u00e9`, a surrogate pair `\ud83d\ude00`): its first byte maps to the
    /// escape's first byte and its other bytes to the escape's last ones, so a range that
    /// starts at the character starts at the backslash and one that ends after it ends after
    /// the escape (a fix never lands inside an escape). An ASCII character maps as in
    /// [`EscapedText::escape`]; `None` (undecodable) leaves the text without an exact map.
    pub fn escape_span(&mut self, start: usize, end: usize, ch: Option<char>) {
        match ch {
            Some(c) if !c.is_ascii() && end >= start + c.len_utf8() => {
                let n = c.len_utf8();
                self.text.push(c);
                self.map.push(start, 1);
                self.map.push(end - (n - 1), n - 1);
            }
            other => self.escape(end, other),
        }
    }

    /// The length of the text so far (bytes).
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Marks the text as not mappable (an escape that decodes to several characters).
    pub fn inexact(&mut self) {
        self.exact = false;
    }

    /// The decoded text, and its map when every character maps to one embedded byte.
    pub fn finish(self) -> (String, Option<OffsetMap>) {
        let map = self.exact.then_some(self.map);
        (self.text, map)
    }
}

/// True when `s` reads as a GraphQL document (after whitespace and `#` comments it starts with
/// `{`, `query`, `mutation`, `subscription` or `fragment`).
pub(crate) fn looks_like_graphql(s: &str) -> bool {
    let mut rest = s;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix('#') {
            rest = r.split_once('\n').map(|x| x.1).unwrap_or("");
        } else {
            break;
        }
    }
    if rest.starts_with('{') {
        return true;
    }
    ["query", "mutation", "subscription", "fragment"]
        .iter()
        .any(|kw| {
            rest.strip_prefix(kw).is_some_and(|after| {
                after
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_whitespace() || c == '{' || c == '(')
            })
        })
}
