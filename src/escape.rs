//! Escaping of every string that comes from a file name, a file's content or a server, one
//! function per kind of output, so that such a string can neither break the output's syntax nor
//! forge a line of it (a finding, a CI annotation command) nor send a terminal escape sequence.
//!
//! - [`text`]: text output and stderr messages. Control characters (C0, DEL, C1), the Unicode
//!   line and paragraph separators and the bidirectional controls (which can make a line read
//!   in another order than it is written, CVE-2021-42574) are shown as escapes: `\n`, `\r`,
//!   `\t`, else `\u{1b}` as Rust writes them. Everything else is kept (a backslash too, so a
//!   Windows path stays readable): the text form is for people; JSON and SARIF are exact.
//! - [`json`]: a JSON string literal (serde_json: quotes, backslashes and control characters
//!   escaped; the result holds no raw control character).
//! - [`sarif_uri`]: a SARIF `artifactLocation.uri` percent-encoded from the path's bytes as the
//!   operating system gives them, never lossy (a Unix name that is not UTF-8 keeps its bytes;
//!   a backslash in a Unix name is a character of it, `%5C`, not a separator).
//! - [`github_data`] and [`github_property`]: a GitHub Actions workflow command's message and
//!   its `file=`/`title=` properties (the runner's own escapes: `%25`, `%0D`, `%0A`, and `%3A`,
//!   `%2C` in properties), and every other control character shown as [`text`] shows it.
//! - [`diff_path`]: a path in a unified diff's header, quoted as git quotes it.
//! - GitLab's Code Quality report is JSON: its strings go through [`json`] (serde_json does it
//!   when the report is a `serde_json::Value`).

use percent_encoding::{percent_encode, AsciiSet, CONTROLS};
use std::borrow::Cow;

/// True for a character [`text`] shows as an escape.
pub fn is_unsafe_in_text(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' // line and paragraph separators
            | '\u{061c}' | '\u{200e}' | '\u{200f}' // bidi marks
            | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
            | '\u{2066}'..='\u{2069}' // bidi isolates
        )
}

/// `s` for text output and stderr: see the module documentation. Borrowed when nothing needs
/// escaping (the common case costs one scan).
pub fn text(s: &str) -> Cow<'_, str> {
    // Every character to escape is a control byte or starts with 0xC2 (C1), 0xD8 (U+061C)
    // or 0xE2 (U+2028.., U+200E.., U+202A.., U+2066..): ASCII text is checked a byte at a time.
    if !s
        .bytes()
        .any(|b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xd8 || b == 0xe2)
        || !s.chars().any(is_unsafe_in_text)
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    push_text(&mut out, s);
    Cow::Owned(out)
}

/// Appends `s` to `out` escaped as by [`text`].
pub fn push_text(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe_in_text(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
}

/// `s` as a JSON string literal, quotes included.
pub fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// Bytes percent-encoded in a SARIF URI's path (RFC 3986: all but the unreserved characters,
/// `/` and a few sub-delimiters that are safe in a path). Every byte ≥ 0x80 is encoded too
/// (`CONTROLS` holds them), so a name that is not UTF-8 keeps its bytes.
const URI_PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The SARIF `artifactLocation.uri` of a path, from its bytes as shown (`/`-separated, as
/// [`crate::cli::check::display_path`] joins it, or the raw bytes of a Unix name that is not
/// UTF-8, [`crate::cli::check::path_bytes`]): relative paths stay relative URI references;
/// absolute ones become `file://` URIs (`C:/x` as `file:///C:/x`). On Windows a backslash is a
/// separator and becomes `/`; elsewhere it is part of a name and is encoded (`%5C`).
pub fn sarif_uri(path: &[u8]) -> String {
    #[cfg(windows)]
    let owned: Vec<u8> = path
        .iter()
        .map(|&b| if b == b'\\' { b'/' } else { b })
        .collect();
    #[cfg(windows)]
    let path = owned.as_slice();
    let encoded = percent_encode(path, URI_PATH).to_string();
    if path.starts_with(b"/") {
        format!("file://{encoded}")
    } else if path.len() > 2 && path[1] == b':' && path[0].is_ascii_alphabetic() {
        format!("file:///{encoded}")
    } else {
        encoded
    }
}

/// A path in a unified diff's `---`/`+++` header, quoted as git writes one that holds a
/// control character, a double quote or a backslash (`"a/x\\ny.md"`, C escapes, other control
/// bytes in octal), which `git apply` and GNU patch read back; else as it is. A newline in a
/// file name cannot start a line of the diff.
pub fn diff_path(path: &str) -> String {
    if !path
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\' || is_unsafe_in_text(c))
    {
        return path.to_string();
    }
    let mut out = String::from("\"");
    for c in path.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || is_unsafe_in_text(c) => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A GitHub Actions workflow command's message (`::error file=…::<message>`): the runner's
/// escapes (`%` → `%25`, CR → `%0D`, LF → `%0A`, which the annotation shows as a line break
/// and cannot end the command), and every other character [`text`] escapes shown as it does.
pub fn github_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut buf = [0u8; 4];
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_unsafe_in_text(c) => push_text(&mut out, c.encode_utf8(&mut buf)),
            c => out.push(c),
        }
    }
    out
}

/// A GitHub Actions workflow command's property value (`file=`, `title=`): as
/// [`github_data`], and `:` → `%3A`, `,` → `%2C`, which end a property.
pub fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of character [`text`] must not let through, and its quiet twin: ordinary
    /// text, a backslash and non-ASCII letters are kept as they are.
    #[test]
    fn text_escapes_controls_and_bidi_only() {
        assert_eq!(text("a\nb\rc\td"), "a\\nb\\rc\\td");
        assert_eq!(text("x\u{1b}[31mred"), "x\\u{1b}[31mred");
        assert_eq!(
            text("nul\0del\u{7f}c1\u{9b}"),
            "nul\\u{0}del\\u{7f}c1\\u{9b}"
        );
        assert_eq!(text("rlo\u{202e}x\u{2066}"), "rlo\\u{202e}x\\u{2066}");
        assert_eq!(text("ls\u{2028}ps\u{2029}"), "ls\\u{2028}ps\\u{2029}");
        for quiet in ["a/b.md", r"C:\x\y.md", "café ✓ — “quotes”", "日本語", ""] {
            assert!(matches!(text(quiet), Cow::Borrowed(_)), "{quiet}");
        }
    }

    #[test]
    fn json_is_a_string_literal_without_raw_controls() {
        let j = json("a\"b\\c\n\u{1b}");
        assert_eq!(j, r#""a\"b\\c\n\u001b""#);
        assert_eq!(
            serde_json::from_str::<String>(&j).unwrap(),
            "a\"b\\c\n\u{1b}"
        );
    }

    #[test]
    fn sarif_uris_from_bytes() {
        assert_eq!(
            sarif_uri(b"examples/my skill/SKILL.md"),
            "examples/my%20skill/SKILL.md"
        );
        assert_eq!(sarif_uri(b"/tmp/a.md"), "file:///tmp/a.md");
        assert_eq!(sarif_uri(b"C:/s/a.md"), "file:///C:/s/a.md");
        assert_eq!(sarif_uri(b"a#1%.md"), "a%231%25.md");
        // Not UTF-8: each byte kept (no U+FFFD).
        assert_eq!(sarif_uri(b"bad\xff\xfe.md"), "bad%FF%FE.md");
        assert_eq!(sarif_uri("é.md".as_bytes()), "%C3%A9.md");
        #[cfg(not(windows))]
        assert_eq!(sarif_uri(b"back\\slash.md"), "back%5Cslash.md");
        #[cfg(windows)]
        assert_eq!(sarif_uri(b"dir\\a.md"), "dir/a.md");
    }

    /// Quoted as git quotes such a name (git-diff(1), `core.quotePath`): what `git apply` reads.
    #[test]
    fn diff_paths_are_quoted_as_git_does() {
        assert_eq!(diff_path("a/x.md"), "a/x.md");
        assert_eq!(diff_path("a/é.md"), "a/é.md");
        assert_eq!(diff_path("a/x\ny.md"), "\"a/x\\ny.md\"");
        assert_eq!(diff_path("a/q\"b\\c"), "\"a/q\\\"b\\\\c\"");
        assert_eq!(diff_path("a/e\u{1b}x"), "\"a/e\\033x\"");
    }

    #[test]
    fn github_commands_cannot_be_forged() {
        let m = github_data("50% done\n::error file=x::forged");
        assert!(!m.contains('\n'), "{m}");
        assert_eq!(m, "50%25 done%0A::error file=x::forged");
        assert_eq!(github_property("a:b,c\u{1b}"), "a%3Ab%2Cc\\u{1b}");
    }
}
