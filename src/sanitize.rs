//! Text that came from a server (NetBox's error messages, GraphQL errors, the names and filters
//! it stores) made safe for every output: no control character reaches a terminal, a CI log or
//! an editor. A newline could forge a finding line (`path:1:1: error[…] …`) or a CI annotation
//! (`::error file=…`), an ESC could rewrite what a terminal shows, and a bidirectional override
//! could make a message read differently from what it holds.
//!
//! One job, kept apart so the output layer's own escaping of file names and contents can share
//! it.

use std::borrow::Cow;

/// True for a character that must not reach an output raw: C0 and C1 controls, DEL, the
/// Unicode line and paragraph separators, and the bidirectional embedding, override and
/// isolate controls (U+202A–U+202E, U+2066–U+2069) with the marks U+200E/U+200F and U+061C.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
        )
}

/// `s` on one printable line: tabs, newlines and carriage returns become one space each; every
/// other unsafe character (see [`is_unsafe`]) is shown as its escape (`\u{1b}`), so nothing is
/// hidden and nothing acts. Borrowed when there is nothing to change.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_not_acted_on() {
        assert_eq!(one_line("plain `text` é"), "plain `text` é");
        assert!(matches!(one_line("plain"), Cow::Borrowed(_)));
        assert_eq!(
            one_line("a\nb.md:1:1: error[x] forged\r\n::error file=x::y"),
            "a b.md:1:1: error[x] forged  ::error file=x::y"
        );
        assert_eq!(
            one_line("\u{1b}[2J\u{7f}\u{85}"),
            "\\u{1b}[2J\\u{7f}\\u{85}"
        );
        assert_eq!(one_line("a\u{202e}b\u{2028}"), "a\\u{202e}b\\u{2028}");
    }
}
