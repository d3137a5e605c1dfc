//! A text cut into the words the cue readers match ([`tokens`]): lowercased words, verdict
//! marks, arrows and the punctuation that matters, with inline code, URLs, paths and
//! `key=value` pairs each one opaque token. The phrase tables and their readers are in
//! [`super::cues`].

use std::ops::Range;

/// The byte that stands for an inline code span in a [`normalise`]d sentence (one word).
pub(crate) const CODE: char = '\u{1}';

/// `text` as the sentence readers take it, byte for byte the same length: an inline code span
/// becomes [`CODE`] followed by spaces (words inside code are no cue, and a span counts as one
/// word), emphasis marks (`*`, `~`) become spaces.
pub(crate) fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            out.push(if in_code { ' ' } else { CODE });
            in_code = !in_code;
        } else if in_code {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else if matches!(c, '*' | '~') {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// One token of a text: a lowercased word (letters and digits, with the apostrophes, hyphens
/// and underscores inside it: `don't`, `anti-pattern`, `invalid-value`), a verdict mark (`❌`,
/// `✅`), an arrow (`→`), a punctuation mark that matters (`:`, `.`, `,`, `(`, `—`), or `§` for
/// inline code and for a chunk that is a URL, a path or a `key=value` (never words of the
/// sentence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tok {
    pub word: String,
    pub range: Range<usize>,
}

impl Tok {
    /// True for a word (or code), not a mark: what the gap between a cue and its code counts.
    pub(super) fn is_word(&self) -> bool {
        self.word
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '§')
    }
}

/// Characters that are a verdict on their own.
pub(super) const MARKS: &[char] = &['❌', '✗', '✘', '🚫', '⛔', '✖', '✅', '✔', '✓', '☑', '👍'];

/// The tokens of `text` (see [`Tok`]).
pub(crate) fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    // Whitespace-separated chunks that hold `/` or `=` are URLs, paths or pairs: one code token.
    let mut at = 0;
    for chunk in text.split_inclusive(char::is_whitespace) {
        let start = at;
        at += chunk.len();
        let body = chunk.trim_end();
        if body.is_empty() {
            continue;
        }
        if body.contains(['/', '=']) {
            out.push(Tok {
                word: "§".into(),
                range: start..start + body.len(),
            });
            continue;
        }
        words_of(body, start, &mut out);
    }
    out
}

/// The tokens of one chunk without whitespace, at host offset `base`.
fn words_of(chunk: &str, base: usize, out: &mut Vec<Tok>) {
    let chars: Vec<(usize, char)> = chunk.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let next = chars.get(i + 1).map(|x| x.1);
        let end_of = |j: usize| chars.get(j).map_or(chunk.len(), |x| x.0);
        if c.is_alphanumeric() {
            let mut j = i + 1;
            while j < chars.len() {
                let d = chars[j].1;
                let joins = matches!(d, '\'' | '’' | '-' | '_')
                    && chars.get(j + 1).is_some_and(|x| x.1.is_alphanumeric());
                if d.is_alphanumeric() || joins {
                    j += if joins { 2 } else { 1 };
                } else {
                    break;
                }
            }
            let word = chunk[at..end_of(j)].to_lowercase().replace('’', "'");
            out.push(Tok {
                word,
                range: base + at..base + end_of(j),
            });
            i = j;
            continue;
        }
        let tok = |w: &str, len: usize| Tok {
            word: w.into(),
            range: base + at..base + at + len,
        };
        match c {
            CODE => out.push(tok("§", 1)),
            c if MARKS.contains(&c) => out.push(tok(&c.to_string(), c.len_utf8())),
            '→' => out.push(tok("→", c.len_utf8())),
            '-' | '=' if next == Some('>') => {
                out.push(tok("→", 2));
                i += 1;
            }
            ':' | ',' | '(' | ')' => out.push(tok(&c.to_string(), 1)),
            '.' | '!' | '?' | ';' => out.push(tok(".", 1)),
            '—' | '–' => out.push(tok("—", c.len_utf8())),
            _ => {}
        }
        i += 1;
    }
}
