//! Shell words as bash reads them (bash(1), QUOTING): what a command such as curl, wget or
//! httpie receives as its arguments, and where each byte of an argument was written.
//!
//! - `'…'`: every byte as written, up to the next `'`;
//! - `"…"`: as written, except that `\` escapes `$`, `` ` ``, `"`, `\` and a line end (removed)
//!   and is kept before any other byte; `$NAME`, `${…}`, `$(…)` and backticks expand;
//! - `$'…'` (ANSI-C): `\n`, `\t`, `\\`, `\'`, `\"`, `\xHH`, `\nnn`, ... are the bytes they name;
//!   `$"…"` reads as `"…"`;
//! - unquoted: `\` makes the next byte literal (`\&` is `&`), `\` before a line end joins the
//!   lines; blanks, `|`, `;`, `&`, `)` and a backtick end the word; expansions as in `"…"`.
//!
//! `<` and `>` are kept in words (documentation writes `<id>` placeholders in commands) and
//! `(` inside a word is a byte of it. A word's [`Word::map`] maps each byte of its text to the
//! byte it was written as, so that findings point at the command as written; `commands::guard_fixes`
//! keeps a fix only where it can be written back as the shell will read it.

use std::ops::Range;

use super::{CallForm, FilterEntry, OffsetMap, RestCall, Syntax, Value};

/// How a run of a word is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quoting {
    Unquoted,
    /// `'…'`.
    Single,
    /// `"…"` (and `$"…"`).
    Double,
    /// `$'…'`.
    AnsiC,
}

/// What a run of a word is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// Bytes sent as written, one for one.
    Verbatim,
    /// An escape (`\&`, `\"`, `$'\x41'`'s `\x41`): one character written another way.
    Escape,
    /// A line continuation (`\` and the line end), removed.
    Continuation,
    /// `$NAME`, `${…}`, `$(…)` or a backtick command: a value not known.
    Expansion,
}

/// A run of a word written one way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub quoting: Quoting,
    /// Input range of the run (quote marks excluded).
    pub range: Range<usize>,
    pub run: Run,
}

/// One shell word: its text as the command receives it, and where it was written.
#[derive(Debug, Clone)]
pub struct Word {
    /// The argument as the command receives it (quotes removed, escapes read); expansions are
    /// kept as written (`$NB`, `$(cmd)`), their value being unknown.
    pub text: String,
    /// Input range of the whole word, quotes included.
    pub range: Range<usize>,
    /// Byte `i` of `text` → the input byte it was written as (an escape's byte maps to the
    /// escaped character, a `$'\x41'` byte to the start of its escape).
    pub map: OffsetMap,
    /// The word's runs, in order.
    pub pieces: Vec<Piece>,
}

/// Most words read for one command: a longer run is no command line.
const MAX_WORDS: usize = 200;

/// The shell words of the simple command whose name ends at input offset `from`: up to an
/// unquoted line end (a `\` before it continues the line), `|`, `;`, `&`, `)`, a backtick or
/// a `#` comment. A quote left open ends the reading (the words before it are returned).
pub fn words(text: &str, from: usize) -> Vec<Word> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    loop {
        // Blanks and line continuations between words.
        while i < b.len() {
            if b[i] == b' ' || b[i] == b'\t' || b[i] == b'\r' {
                i += 1;
            } else if let Some(n) = continuation(b, i) {
                i += n;
            } else {
                break;
            }
        }
        if i >= b.len() || b"\n|;&)`#".contains(&b[i]) || out.len() >= MAX_WORDS {
            return out;
        }
        match word(text, i) {
            Some(w) => {
                i = w.range.end;
                out.push(w);
            }
            None => return out,
        }
    }
}

/// Length of a line continuation at `i` (`\` then `\n` or `\r\n`), if there is one.
fn continuation(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'\\') {
        return None;
    }
    match (b.get(i + 1), b.get(i + 2)) {
        (Some(b'\n'), _) => Some(2),
        (Some(b'\r'), Some(b'\n')) => Some(3),
        _ => None,
    }
}

/// Builds a word's text, map and pieces.
struct Builder {
    text: String,
    map: OffsetMap,
    pieces: Vec<Piece>,
}

impl Builder {
    /// Bytes `r` of the input, sent as written.
    fn verbatim(&mut self, input: &str, r: Range<usize>, q: Quoting) {
        if r.is_empty() {
            return;
        }
        self.text.push_str(&input[r.clone()]);
        self.map.push(r.start, r.len());
        match self.pieces.last_mut() {
            Some(p) if p.run == Run::Verbatim && p.quoting == q && p.range.end == r.start => {
                p.range.end = r.end
            }
            _ => self.push(q, r, Run::Verbatim),
        }
    }

    fn push(&mut self, quoting: Quoting, range: Range<usize>, run: Run) {
        self.pieces.push(Piece {
            quoting,
            range,
            run,
        });
    }

    /// `s`, read from input bytes `r` that are not written as `s` (an escape): `s` maps to the
    /// escaped character at input byte `at` when it is written there (`\&`), else each byte
    /// of it to `at` (findings on it point at the escape).
    fn escaped(&mut self, input: &str, s: &str, at: usize, r: Range<usize>, q: Quoting) {
        if input.get(at..at + s.len()) == Some(s) {
            self.map.push(at, s.len());
        } else {
            for _ in 0..s.len() {
                self.map.push(at, 1);
            }
        }
        self.text.push_str(s);
        self.push(q, r, Run::Escape);
    }

    /// An expansion written at `r`, kept as written in the text.
    fn expansion(&mut self, input: &str, r: Range<usize>, q: Quoting) {
        self.text.push_str(&input[r.clone()]);
        self.map.push(r.start, r.len());
        self.push(q, r, Run::Expansion);
    }
}

/// True at an unquoted `&` between two `name=value` pairs of a word that holds a query
/// string (`curl http://h/api/dcim/devices/?status=active&role=leaf`). The shell ends the
/// command there and sends only the first pair; the pairs are read together as the writer
/// meant them, so that a wrong filter after the `&` is still found.
fn joins_pairs(text: &str, i: usize, so_far: &str) -> bool {
    let b = text.as_bytes();
    if b[i] != b'&' || !so_far.contains('?') || !so_far.contains('=') {
        return false;
    }
    let name = b[i + 1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c == b'.')
        .count();
    name > 0 && b.get(i + 1 + name) == Some(&b'=')
}

/// Bytes that end an unquoted word.
fn ends_word(c: u8) -> bool {
    b" \t\r\n|;&)`".contains(&c)
}

/// The word starting at input offset `start` (not a blank); `None` when a quote is left open.
fn word(text: &str, start: usize) -> Option<Word> {
    let b = text.as_bytes();
    let mut w = Builder {
        text: String::new(),
        map: OffsetMap::new(),
        pieces: Vec::new(),
    };
    let mut i = start;
    while i < b.len() && (!ends_word(b[i]) || joins_pairs(text, i, &w.text)) {
        match b[i] {
            b'\'' => {
                let close = i + 1 + text[i + 1..].find('\'')?;
                w.verbatim(text, i + 1..close, Quoting::Single);
                i = close + 1;
            }
            b'"' => i = double(text, i + 1, &mut w, Quoting::Double)?,
            b'$' if b.get(i + 1) == Some(&b'"') => {
                i = double(text, i + 2, &mut w, Quoting::Double)?
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => i = ansi_c(text, i + 2, &mut w)?,
            b'\\' => {
                if let Some(n) = continuation(b, i) {
                    // A continuation inside a word joins its parts.
                    w.push(Quoting::Unquoted, i..i + n, Run::Continuation);
                    i += n;
                } else if let Some(c) = text[i + 1..].chars().next() {
                    let mut buf = [0u8; 4];
                    w.escaped(
                        text,
                        c.encode_utf8(&mut buf),
                        i + 1,
                        i..i + 1 + c.len_utf8(),
                        Quoting::Unquoted,
                    );
                    i += 1 + c.len_utf8();
                } else {
                    i += 1;
                }
            }
            b'$' | b'`' => {
                let end = expansion_end(text, i, Quoting::Unquoted);
                if end == i + 1 && b[i] == b'$' {
                    w.verbatim(text, i..end, Quoting::Unquoted);
                } else {
                    w.expansion(text, i..end, Quoting::Unquoted);
                }
                i = end;
            }
            b'&' => {
                // `?a=1&b=2` unquoted (see `joins_pairs`).
                w.verbatim(text, i..i + 1, Quoting::Unquoted);
                i += 1;
            }
            _ => {
                let s = i;
                while i < b.len() && !ends_word(b[i]) && !b"'\"\\$`".contains(&b[i]) {
                    i += 1;
                }
                // A multi-byte character is never split: the stops above are ASCII.
                w.verbatim(text, s..i, Quoting::Unquoted);
            }
        }
    }
    Some(Word {
        text: w.text,
        range: start..i,
        map: w.map,
        pieces: w.pieces,
    })
}

/// End of the expansion starting at `i` (a `$` or a backtick): `$NAME`, `${…}`, `$(…)` (nested
/// brackets counted), `` `…` ``, a special parameter (`$1`, `$?`); `i + 1` for a `$` that
/// starts none (a literal `$`, as in a regex `edge$`).
fn expansion_end(text: &str, i: usize, q: Quoting) -> usize {
    let b = text.as_bytes();
    if b[i] == b'`' {
        return text[i + 1..].find('`').map_or(b.len(), |c| i + 2 + c);
    }
    match b.get(i + 1) {
        Some(b'(') => {
            let mut depth = 0usize;
            for (k, &c) in b.iter().enumerate().skip(i + 1) {
                match c {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            return k + 1;
                        }
                    }
                    _ => {}
                }
            }
            b.len()
        }
        Some(b'{') => text[i + 2..].find('}').map_or(b.len(), |c| i + 3 + c),
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let mut k = i + 1;
            while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
                k += 1;
            }
            k
        }
        Some(c) if c.is_ascii_digit() || b"?!#@*$".contains(c) => {
            // `"$"` before the closing quote is a literal `$`; `$?`, `$1` are parameters.
            if q == Quoting::Double && *c == b'"' {
                i + 1
            } else {
                i + 2
            }
        }
        _ => i + 1,
    }
}

/// Reads a `"…"` body starting at `i` (after the quote) into `w`; returns the offset after the
/// closing quote, `None` when it is not closed.
fn double(text: &str, mut i: usize, w: &mut Builder, q: Quoting) -> Option<usize> {
    let b = text.as_bytes();
    loop {
        let s = i;
        while i < b.len() && !b"\"\\$`".contains(&b[i]) {
            i += 1;
        }
        w.verbatim(text, s..i, q);
        match b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => {
                if let Some(n) = continuation(b, i) {
                    w.push(q, i..i + n, Run::Continuation);
                    i += n;
                } else if let Some(&c) = b.get(i + 1).filter(|c| b"$`\"\\".contains(c)) {
                    w.escaped(
                        text,
                        std::str::from_utf8(&[c]).unwrap_or(""),
                        i + 1,
                        i..i + 2,
                        q,
                    );
                    i += 2;
                } else {
                    // Any other backslash is a byte of the value.
                    w.verbatim(text, i..i + 1, q);
                    i += 1;
                }
            }
            _ => {
                let end = expansion_end(text, i, q);
                if end == i + 1 && b[i] == b'$' {
                    w.verbatim(text, i..end, q);
                } else {
                    w.expansion(text, i..end.min(b.len()), q);
                }
                i = end;
            }
        }
    }
}

/// Reads a `$'…'` body starting at `i` (after the quote); returns the offset after the closing
/// quote, `None` when it is not closed.
fn ansi_c(text: &str, mut i: usize, w: &mut Builder) -> Option<usize> {
    let b = text.as_bytes();
    loop {
        let s = i;
        while i < b.len() && b[i] != b'\'' && b[i] != b'\\' {
            i += 1;
        }
        w.verbatim(text, s..i, Quoting::AnsiC);
        match b.get(i)? {
            b'\'' => return Some(i + 1),
            _ => {
                let (s, n) = ansi_escape(&b[i + 1..]);
                let n = n.min(b.len() - i - 1);
                w.escaped(text, &s, i + 1, i..i + 1 + n, Quoting::AnsiC);
                i += 1 + n;
            }
        }
    }
}

/// The text an ANSI-C escape stands for (`rest` follows the backslash) and how many bytes of
/// `rest` it takes.
fn ansi_escape(rest: &[u8]) -> (String, usize) {
    let Some(&c) = rest.first() else {
        return ("\\".to_string(), 0);
    };
    let simple = match c {
        b'n' => Some('\n'),
        b't' => Some('\t'),
        b'r' => Some('\r'),
        b'a' => Some('\x07'),
        b'b' => Some('\x08'),
        b'e' | b'E' => Some('\x1b'),
        b'f' => Some('\x0c'),
        b'v' => Some('\x0b'),
        b'\\' | b'\'' | b'"' | b'?' => Some(c as char),
        _ => None,
    };
    if let Some(ch) = simple {
        return (ch.to_string(), 1);
    }
    let hex = |from: usize, max: usize| -> (u32, usize) {
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            match rest.get(from + n).and_then(|d| (*d as char).to_digit(16)) {
                Some(d) => v = v * 16 + d,
                None => break,
            }
            n += 1;
        }
        (v, n)
    };
    let (value, taken) = match c {
        b'x' => {
            let (v, n) = hex(1, 2);
            (v, 1 + n)
        }
        b'u' => {
            let (v, n) = hex(1, 4);
            (v, 1 + n)
        }
        b'U' => {
            let (v, n) = hex(1, 8);
            (v, 1 + n)
        }
        b'0'..=b'7' => {
            let mut v = 0u32;
            let mut n = 0;
            while n < 3 && rest.get(n).is_some_and(|d| (b'0'..=b'7').contains(d)) {
                v = v * 8 + u32::from(rest[n] - b'0');
                n += 1;
            }
            (v, n)
        }
        b'c' if rest.len() > 1 => (u32::from(rest[1] & 0x1f), 2),
        // Any other escape stays as written.
        _ => {
            let ch = std::str::from_utf8(rest)
                .ok()
                .and_then(|s| s.chars().next())
                .unwrap_or('?');
            return (format!("\\{ch}"), ch.len_utf8());
        }
    };
    if taken == 1 && matches!(c, b'x' | b'u' | b'U') {
        return (format!("\\{}", c as char), 1);
    }
    let ch = char::from_u32(value).unwrap_or('\u{fffd}');
    (ch.to_string(), taken)
}

/// Where the word at input offset `start` (a word start, as [`words`] finds it) is read.
pub fn word_at(text: &str, start: usize) -> Option<Word> {
    word(text, start)
}

/// True when the command name `name` stands at input offset `at` as a command: after the start
/// of the text or a blank, `;`, `|`, `&`, `(`, `` ` `` or `$(`/quote, and followed by a blank
/// or a line continuation.
pub fn command_at(text: &str, at: usize, name: &str) -> bool {
    let b = text.as_bytes();
    let before_ok = at == 0 || b" \t\n;|&(`$\"'".contains(&b[at - 1]);
    let after_ok = b
        .get(at + name.len())
        .is_some_and(|c| *c == b' ' || *c == b'\t' || *c == b'\\');
    before_ok && after_ok
}

/// The URL call of a command's URL `word` (the first `/api/` list path in it, with its query
/// string, as the command receives the word), ranges mapped to the host through `map`;
/// `None` without a list path and a query string.
pub fn url_call(word: &Word, map: &OffsetMap) -> Option<RestCall> {
    let at = word.text.find("/api/")?;
    let composed = word.map.then(map);
    let mut call = super::text::word_url_call(&word.text, at, &composed)?;
    mark_expansions(word, map, &mut call.filters);
    Some(call)
}

/// A call without filters for a command's URL `word` that names a list path
/// (`"$NB/api/dcim/devices/"`), for a command that adds filters of its own; its range is the
/// word's text (quotes excluded).
pub fn path_call(word: &Word, map: &OffsetMap) -> Option<RestCall> {
    let at = word.text.find("/api/")?;
    let end = super::text::detail_path_end(&word.text, at)
        .or_else(|| super::text::list_path_end(&word.text, at))?;
    let composed = word.map.then(map);
    Some(RestCall {
        form: CallForm::Url,
        syntax: Syntax::Query,
        target: Some((word.text[at..end].into(), composed.range_to_host(at..end))),
        call_range: composed.range_to_host(0..word.text.len()),
        filters_range: None,
        filters: Vec::new(),
        args: Vec::new(),
        declared: false,
    })
}

/// The filters of a query string held in `word` from byte `from` of its text to the word's
/// end (a `#` fragment left out), ranges mapped to the host through `map`. Values the shell
/// expands are [`Value::Expr`].
pub fn query_pairs(word: &Word, from: usize, map: &OffsetMap) -> Vec<FilterEntry> {
    let end = word.text[from..]
        .find('#')
        .map_or(word.text.len(), |i| from + i);
    let composed = word.map.then(map);
    let mut out = super::text::pairs(&word.text, from..end, &composed);
    mark_expansions(word, map, &mut out);
    out
}

/// Sets to [`Value::Expr`] the values of `entries` (host ranges through `map`) that hold an
/// expansion of `word`.
pub fn mark_expansions(word: &Word, map: &OffsetMap, entries: &mut [FilterEntry]) {
    let expansions: Vec<Range<usize>> = word
        .pieces
        .iter()
        .filter(|p| p.run == Run::Expansion)
        .map(|p| map.range_to_host(p.range.clone()))
        .collect();
    for e in entries {
        let r = &e.value_range;
        if expansions
            .iter()
            .any(|x| x.start < r.end.max(r.start + 1) && r.start < x.end)
        {
            e.value = Value::Expr;
        }
    }
}

/// The command words whose name is one of `names`, in `text` (each command once, from its
/// name's end).
pub fn commands<'a>(
    text: &'a str,
    names: &'a [&'a str],
) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    names.iter().flat_map(move |name| {
        text.match_indices(name)
            .filter(move |(at, _)| command_at(text, *at, name))
            .map(move |(at, _)| (at + name.len(), *name))
    })
}

/// How `s` is written inside a run quoted `q` so that the shell reads it back as `s`; `None`
/// when it cannot be (a `'` inside `'…'`).
pub fn written(q: Quoting, s: &str) -> Option<String> {
    let special: &[u8] = match q {
        Quoting::Single => return (!s.contains('\'')).then(|| s.to_string()),
        Quoting::Double => b"\"\\$`",
        Quoting::AnsiC => b"\\'",
        Quoting::Unquoted => b" \t\n|&;()<>'\"\\$`*?[]#~{}!",
    };
    if q != Quoting::AnsiC && s.contains('\n') && q == Quoting::Unquoted {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch.is_ascii() && special.contains(&(ch as u8)) {
            out.push('\\');
        }
        out.push(ch);
    }
    Some(out)
}

/// How far back (bytes) the start of a command line is looked for from an offset.
const LINE_BACK: usize = 16 * 1024;

/// The command, among `names`, whose words hold input offset `at`: its name and words. The
/// command is looked for on the logical line (continuations joined) before `at`, at most
/// [`LINE_BACK`] bytes back; the innermost one wins (`$(curl …)` inside another command).
pub fn command_words<'n>(text: &str, at: usize, names: &[&'n str]) -> Option<(&'n str, Vec<Word>)> {
    let at = at.min(text.len());
    let b = text.as_bytes();
    let floor = at.saturating_sub(LINE_BACK);
    let mut start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    while start > floor && start >= 2 {
        let nl = start - 1;
        let cont = (nl >= 1 && b[nl - 1] == b'\\')
            || (nl >= 2 && b[nl - 1] == b'\r' && b[nl - 2] == b'\\');
        if !cont {
            break;
        }
        start = text[..nl].rfind('\n').map_or(0, |i| i + 1);
    }
    let mut start = start.max(floor);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let line = text.get(start..at)?;
    let mut best: Option<(usize, &'n str, Vec<Word>)> = None;
    for name in names {
        for (k, _) in line.match_indices(*name) {
            let name_at = start + k;
            if !command_at(text, name_at, name) || best.as_ref().is_some_and(|b| b.0 > name_at) {
                continue;
            }
            let ws = words(text, name_at + name.len());
            if ws.iter().any(|w| w.range.start <= at && at <= w.range.end) {
                best = Some((name_at, name, ws));
            }
        }
    }
    best.map(|(_, n, ws)| (n, ws))
}

/// The REST calls among `sites` (the tests of the shell command forms: curl, HTTPie, wget).
#[cfg(test)]
pub(super) fn rest_calls(sites: Vec<super::Site>) -> Vec<RestCall> {
    sites
        .into_iter()
        .filter_map(|s| match s {
            super::Site::Rest(c) => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &str) -> Vec<String> {
        words(t, 0).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn quotes_escapes_and_continuations() {
        assert_eq!(
            texts(r#" a'b c'"d\"e\x" \& f\ g $'h\'i\x41\n' $"j" k\"#),
            ["ab cd\"e\\x", "&", "f g", "h'iA\n", "j", "k"]
        );
        assert_eq!(texts("a \\\n  b\\\nc | d"), ["a", "bc"]);
        assert_eq!(texts("a 'open"), ["a"]);
        assert_eq!(texts("x # comment"), ["x"]);
        assert_eq!(texts("x y&z"), ["x", "y"]);
    }

    #[test]
    fn map_points_at_written_bytes() {
        let t = r#"u?name='edge 01'\&x="a\$b""#;
        let w = &words(t, 0)[0];
        assert_eq!(w.text, "u?name=edge 01&x=a$b");
        let at = |i: usize| w.map.to_host(i);
        assert_eq!(&t[at(7)..at(7) + 4], "edge");
        assert_eq!(&t[at(14)..at(14) + 1], "&");
        assert_eq!(&t[at(17)..at(17) + 1], "a");
        assert_eq!(&t[at(18)..at(18) + 1], "$");
    }

    #[test]
    fn expansions() {
        let t = r#"x=$A "y=${B}c" 'z=$C' "w=$(f "a b")" v=re$ "u=a$""#;
        let ws = words(t, 0);
        let texts: Vec<&str> = ws.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            texts,
            ["x=$A", "y=${B}c", "z=$C", "w=$(f \"a b\")", "v=re$", "u=a$"]
        );
        let exp = |w: &Word| w.pieces.iter().any(|p| p.run == Run::Expansion);
        assert!(exp(&ws[0]) && exp(&ws[1]) && !exp(&ws[2]) && exp(&ws[3]));
        assert!(!exp(&ws[4]) && !exp(&ws[5]));
    }

    #[test]
    fn written_back() {
        assert_eq!(written(Quoting::Unquoted, "a=1&a=2").unwrap(), "a=1\\&a=2");
        assert_eq!(written(Quoting::Double, "a\"$").unwrap(), "a\\\"\\$");
        assert_eq!(written(Quoting::Single, "a&b").unwrap(), "a&b");
        assert!(written(Quoting::Single, "a'b").is_none());
        assert_eq!(written(Quoting::AnsiC, "a'b").unwrap(), "a\\'b");
    }

    #[test]
    fn never_panics_on_odd_input() {
        for t in [
            "\\", "$'\\", "$'\\x", "\"\\", "$(", "${", "`", "$'\\u{", "é\\é", "'é", "$'\\c",
        ] {
            let _ = words(t, 0);
            let _ = command_words(t, t.len(), &["curl"]);
        }
    }
}
