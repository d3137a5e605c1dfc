//! Python string literals: their parts, their content and prefix, the decoded value and the
//! map of the decoded text to the host (exact only where every escape decodes to one ASCII
//! character or nothing).

use compact_str::CompactString;
use std::ops::Range;

use ruff_python_ast::{self as ast, Expr, InterpolatedStringElement};
use ruff_text_size::TextRange;

use super::{span, Reader};
use crate::extract::lit::{EscapedText, Exact, Lit, LitKind};
use crate::extract::{OffsetMap, Value};

/// A string expression: its parts' ranges, whether it is one part (not an implicit
/// concatenation), and for each part whether it interpolates.
pub(super) fn string_parts(e: &Expr) -> Option<Vec<(TextRange, bool)>> {
    Some(match e {
        Expr::StringLiteral(s) => s.value.iter().map(|p| (p.range, false)).collect(),
        Expr::BytesLiteral(s) => s.value.iter().map(|p| (p.range, false)).collect(),
        Expr::FString(s) => s
            .value
            .iter()
            .map(|p| match p {
                ast::FStringPart::Literal(l) => (l.range, false),
                ast::FStringPart::FString(f) => (
                    f.range,
                    f.elements
                        .iter()
                        .any(|el| matches!(el, InterpolatedStringElement::Interpolation(_))),
                ),
            })
            .collect(),
        _ => return None,
    })
}

/// True when `src[start..end]` holds a backslash: eight bytes a step, each step a test of the
/// eight at once, the last step (the only one for fewer than nine bytes) over the eight bytes
/// that end at `end` with those already read or before `start` left out, so that every load
/// stays in `src` and a short string costs one step. A text shorter than eight bytes is read
/// byte by byte.
#[inline(always)]
fn has_backslash_in(src: &[u8], start: usize, end: usize) -> bool {
    let end = end.min(src.len());
    if start >= end {
        return false;
    }
    if end < 8 {
        return src[start..end].contains(&b'\\');
    }
    let mut at = start;
    while at + 8 < end {
        if backslashes8(src, at) != 0 {
            return true;
        }
        at += 8;
    }
    // `end - 8 <= at`: the bytes from `end - 8` to `at` were read above or are before `start`.
    (backslashes8(src, end - 8) >> (8 * (at - (end - 8)))) != 0
}

/// The high bit of each byte of `src[at..at + 8]` that is a backslash: exact byte by byte (the
/// low seven bits plus 0x7f carry into no other byte).
#[inline(always)]
fn backslashes8(src: &[u8], at: usize) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let x = u64::from_le_bytes(src[at..at + 8].try_into().expect("eight bytes"))
        ^ (LO * u64::from(b'\\'));
    !(((x & !HI) + !HI) | x) & HI
}

/// True for a string made of one part (`"a"`, `f"a{x}"`), not an implicit concatenation.
pub(super) fn single_string(e: &Expr) -> bool {
    string_parts(e).is_some_and(|p| p.len() == 1)
}

impl<'a> Reader<'a> {
    /// The prefix (`rb`, `f`, ...) and the content range of a one-part string literal at `r`.
    fn string_layout(&self, r: TextRange) -> (&'a str, Range<usize>) {
        let (start, end) = (r.start().to_usize(), r.end().to_usize());
        let t = self.src.get(start..end).unwrap_or("");
        // A byte loop: the prefix is at most two letters (`str::find` with a set of chars
        // costs more than that).
        let prefix_len = t
            .bytes()
            .position(|c| matches!(c, b'"' | b'\''))
            .unwrap_or(t.len());
        let prefix = &t[..prefix_len];
        let body = &t[prefix_len..];
        let q = body.as_bytes().first().copied().unwrap_or(b'"');
        let triple = body.len() >= 3 && body.as_bytes()[..3].iter().all(|&c| c == q);
        let ql = if triple { 3 } else { 1 };
        let open = (start + prefix_len + ql).min(end);
        // An unterminated string (error recovery) has no closing quotes.
        let closed =
            body.len() >= 2 * ql && body.as_bytes()[body.len() - ql..].iter().all(|&c| c == q);
        let close = if closed { end - ql } else { end };
        (prefix, open..close.max(open))
    }

    /// The content range of a one-part string literal at `r`.
    pub(super) fn content(&self, r: TextRange) -> Range<usize> {
        self.string_layout(r).1
    }

    /// The content range and text of the one-part string literal at `r` when it is written
    /// without a prefix, in one quote each side, closed, and without a backslash (most strings
    /// of code): its decoded value is its text, and the text maps to the host byte for byte.
    /// `None` for any other string ([`Reader::decoded`] reads those).
    pub(super) fn plain(&self, r: TextRange) -> Option<(Range<usize>, &'a str)> {
        let (start, end) = (r.start().to_usize(), r.end().to_usize());
        let b = self.src.as_bytes().get(start..end)?;
        let (&q, &last) = (b.first()?, b.last()?);
        // Three quotes open a triple-quoted string (`""` alone is an empty one).
        let triple = b.len() >= 3 && b[1] == q && b[2] == q;
        if !matches!(q, b'"' | b'\'') || b.len() < 2 || last != q || triple {
            return None;
        }
        // The quotes are ASCII: the content is a slice of the text.
        let raw = self.src.get(start + 1..end - 1)?;
        // Most strings are short: eight bytes a step costs less than setting up the SIMD search
        // (the quotes, read with the content, are no backslashes).
        let backslash = if raw.len() < 32 {
            has_backslash_in(self.src.as_bytes(), start, end)
        } else {
            memchr::memchr(b'\\', raw.as_bytes()).is_some()
        };
        if backslash {
            return None;
        }
        Some((start + 1..end - 1, raw))
    }

    /// A string literal: decoded value, content range, and an exact map when it has one.
    pub(super) fn string(&self, r: TextRange, interpolated: bool) -> Lit {
        self.string_at(r, interpolated, self.host(span(r)))
    }

    /// [`Reader::string`] with `range` as the literal's host range (the caller's, which may
    /// take in parentheses around it).
    pub(super) fn string_at(&self, r: TextRange, interpolated: bool, range: Range<usize>) -> Lit {
        if !interpolated {
            if let Some((content, raw)) = self.plain(r) {
                // As below for a string whose value is its text.
                let exact = (content.end <= self.len)
                    .then(|| Exact::Value(self.map.window(content.start, raw.len())));
                return Lit {
                    value: Value::Str(raw.into()),
                    range,
                    kind: LitKind::Str {
                        content: self.host(content.clone()),
                        exact,
                    },
                    raw: Some(content),
                };
            }
        }
        if interpolated {
            let mut l = Lit::scalar(Value::Expr, range);
            l.raw = Some(self.string_layout(r).1);
            return l;
        }
        let d = self.decoded(r);
        let raw_content = d.content;
        let (content_start, content_end) = (raw_content.start, raw_content.end);
        let raw = self.src.get(raw_content.clone()).unwrap_or("");
        let exact = if d.braces || content_end > self.len {
            None
        } else if d.is_raw || !raw.contains('\\') {
            // The decoded value is the content as written: the text is the value.
            Some(Exact::Value(self.map.window(content_start, raw.len())))
        } else {
            self.escaped_text(raw_content.clone(), &escape_sequences(raw, content_start))
                .map(|(t, m)| Exact::Text(t, m))
        };
        Lit {
            value: Value::Str(d.value.into()),
            range,
            kind: LitKind::Str {
                content: self.host(raw_content.clone()),
                exact,
            },
            raw: Some(raw_content),
        }
    }

    /// What [`Reader::string`] gives for a string without interpolation at `r` as
    /// [`Lit::as_str`] reads it (the decoded value and the content's host range), without its
    /// exact text and map: a dict key is read so, once per key.
    pub(super) fn string_value(&self, r: TextRange) -> (CompactString, Range<usize>) {
        if let Some((content, raw)) = self.plain(r) {
            return (raw.into(), self.host(content));
        }
        let d = self.decoded(r);
        (d.value.into(), self.host(d.content))
    }

    /// The decoded value of the one-part string literal at `r` (no interpolation).
    fn decoded(&self, r: TextRange) -> Decoded {
        let (prefix, content) = self.string_layout(r);
        let raw = self.src.get(content.clone()).unwrap_or("");
        // No lower-cased copy of the prefix per string.
        let has = |c: u8| prefix.bytes().any(|b| b.eq_ignore_ascii_case(&c));
        let is_raw = has(b'r');
        let braces = has(b'f') && (raw.contains("{{") || raw.contains("}}"));
        let value = if is_raw {
            raw.to_string()
        } else if braces {
            decode_escapes(raw).replace("{{", "{").replace("}}", "}")
        } else {
            decode_escapes(raw)
        };
        Decoded {
            value,
            content,
            braces,
            is_raw,
        }
    }

    /// The decoded text of a string's content `content` with its escapes (embedded ranges) and
    /// a piecewise map to the host, when every escape decodes to at most one ASCII character.
    fn escaped_text(
        &self,
        content: Range<usize>,
        escapes: &[Range<usize>],
    ) -> Option<(String, OffsetMap)> {
        let mut b = EscapedText::new();
        let mut pos = content.start;
        for e in escapes {
            b.plain(pos, self.src.get(pos..e.start)?);
            let written = self.src.get(e.clone())?;
            let decoded = decode_escapes(written);
            let mut chars = decoded.chars();
            match (chars.next(), chars.next()) {
                // A line continuation decodes to nothing.
                (None, _) => {}
                (Some(c), None) => b.escape(e.end, Some(c)),
                // An unknown escape (`\q`) stays as written.
                _ if decoded == written => b.plain(e.start, written),
                _ => b.inexact(),
            }
            pos = e.end;
        }
        b.plain(pos, self.src.get(pos..content.end)?);
        let (text, map) = b.finish();
        Some((text, map?.then(self.map)))
    }
}

/// The escape sequences of a string's content `raw` (starting at embedded offset `at`), as
/// tree-sitter-python's grammar reads them: `\` then `u` + 4 hex digits, `U` + 8, `x` + 2, 1–3
/// digits, a line end, one of `'"abfrntv\`, or `N{...}`. Other backslashes are plain text.
pub(super) fn escape_sequences(raw: &str, at: usize) -> Vec<Range<usize>> {
    let b = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let rest = &b[i + 1..];
        let hex = |n: usize| rest.len() > n && rest[1..=n].iter().all(u8::is_ascii_hexdigit);
        let len = match rest.first() {
            Some(b'u') if hex(4) => 5,
            Some(b'U') if hex(8) => 9,
            Some(b'x') if hex(2) => 3,
            Some(c) if c.is_ascii_digit() => {
                1 + rest
                    .iter()
                    .skip(1)
                    .take(2)
                    .take_while(|c| c.is_ascii_digit())
                    .count()
            }
            Some(b'\n') => 1,
            Some(b'\r') if rest.get(1) == Some(&b'\n') => 2,
            Some(b'\'' | b'"' | b'a' | b'b' | b'f' | b'r' | b'n' | b't' | b'v' | b'\\') => 1,
            Some(b'N') if rest.get(1) == Some(&b'{') => {
                match rest[2..].iter().position(|&c| c == b'}') {
                    Some(p) if p > 0 => p + 3,
                    _ => 0,
                }
            }
            _ => 0,
        };
        if len == 0 {
            i += 1;
            continue;
        }
        out.push(at + i..at + i + 1 + len);
        i += 1 + len;
    }
    out
}

/// Decodes Python's simple escapes; unknown escapes stay as written (as Python does).
pub(super) fn decode_escapes(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' => out.push(e),
            '\n' => {}
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n)
                    .filter_map(|_| chars.next_if(|c| c.is_ascii_hexdigit()))
                    .collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if hex.len() == n => out.push(ch),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&hex);
                    }
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// A one-part string literal's decoded value ([`Reader::string`]).
struct Decoded {
    value: String,
    /// The content's range in the source.
    content: Range<usize>,
    /// An f-string with `{{` or `}}`: its value is not its text.
    braces: bool,
    /// A raw string (`r"..."`): its value is its text.
    is_raw: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eight-bytes-a-step test finds a backslash exactly where the byte loop does, for
    /// every range of texts with one at every position (and bytes whose high bit is set, or that
    /// differ from a backslash in one bit, which must not read as one).
    #[test]
    fn backslashes_as_the_byte_loop() {
        for len in 0..40 {
            for at in 0..=len {
                let mut b: Vec<u8> = (0..len)
                    .map(|k| [b'a', 0xdc, b']', b'"', 0x5d, 0x1c, b'\''][k % 7])
                    .collect();
                if at < len {
                    b[at] = b'\\';
                }
                for start in 0..=len {
                    for end in start..=len {
                        assert_eq!(
                            has_backslash_in(&b, start, end),
                            b[start..end].contains(&b'\\'),
                            "{b:?} {start}..{end}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn escapes() {
        assert_eq!(decode_escapes(r"a\nb\x41\u00e9\q"), "a\nbAé\\q");
    }
}
