//! The text output in colour (`check --color always`, or `auto` on a terminal without
//! `NO_COLOR`): the same lines as [`super::text`], byte for byte once the ANSI escapes are
//! taken out — the path in bold, `severity[code]` in the severity's colour, the fix lines in
//! green (certain) or cyan. Every string from a file goes through the text output's own
//! one-line rule.

use super::text::push_one_line;
use super::{Located, Skipped};
use crate::finding::Severity;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";

/// The escape that starts a severity's colour.
fn severity_colour(s: Severity) -> &'static str {
    match s {
        Severity::Error => "\x1b[1;31m",
        Severity::Warning => "\x1b[1;33m",
        Severity::Information => "\x1b[1;34m",
        Severity::Hint => "\x1b[36m",
    }
}

/// [`super::text::render`] with colour.
pub fn render(findings: &[Located]) -> String {
    let mut out = String::with_capacity(findings.len() * 240);
    for f in findings {
        out.push_str(BOLD);
        super::escape::push_text(&mut out, &f.path);
        out.push_str(RESET);
        out.push_str(&format!(
            ":{}:{}: {}{}[{}]{RESET} ",
            f.span.start.line + 1,
            f.span.start.char_col + 1,
            severity_colour(f.severity),
            f.severity.as_str(),
            f.code
        ));
        push_one_line(&mut out, &f.message);
        out.push('\n');
        for (i, fix) in f.fixes.iter().enumerate() {
            let (colour, lead) = match (i, fix.certain) {
                (0, true) => (GREEN, "fix:"),
                (0, false) => (CYAN, "suggestion:"),
                _ => (CYAN, "or:"),
            };
            out.push_str(&format!("  {colour}{lead}{RESET} "));
            push_one_line(&mut out, &fix.title);
            out.push('\n');
        }
        // A live finding's requests, as the text output shows them.
        for p in &f.proof {
            out.push_str(&format!("  {DIM}sent:{RESET} "));
            push_one_line(&mut out, &p.curl);
            out.push_str("  # ");
            out.push_str(&p.outcome());
            out.push('\n');
        }
    }
    out
}

/// [`super::text::render_skipped`] with colour (dimmed: they are not findings).
pub fn render_skipped(skipped: &[Skipped]) -> String {
    let mut out = String::new();
    for s in skipped {
        out.push_str(DIM);
        let plain = super::text::render_skipped(std::slice::from_ref(s));
        out.push_str(plain.trim_end_matches('\n'));
        out.push_str(RESET);
        out.push('\n');
    }
    out
}

/// `text` without the ANSI escapes this module writes.
pub fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\x1b') {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let end = after.find('m').map_or(after.len(), |m| m + 1);
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Pos, ResolvedFix, Span};
    use super::*;

    #[test]
    fn colour_is_the_text_output_plus_escapes() {
        let at = |line, col| Pos {
            line,
            char_col: col,
            utf16_col: col,
        };
        let fix = |certain| ResolvedFix {
            releases: vec![],
            title: "Use `b`".into(),
            certain,
            edits: vec![],
        };
        let mut findings: Vec<Located> = [
            (Severity::Error, vec![fix(true)]),
            (Severity::Warning, vec![fix(false), fix(false)]),
            (Severity::Information, vec![]),
            (Severity::Hint, vec![]),
        ]
        .into_iter()
        .map(|(severity, fixes)| Located {
            path: "skills/a.md".into(),
            path_bytes: None,
            span: Span {
                start: at(2, 4),
                end: at(2, 9),
            },
            code: "unknown-filter",
            severity,
            message: "bad\nkey".into(),
            fixes,
            proof: vec![],
        })
        .collect();
        // A live finding's request, with a newline NetBox's URL could not hold.
        findings[2].proof = vec![super::super::Proof {
            method: "GET",
            url: "https://nb/api/dcim/devices/?limit=1".into(),
            curl: "curl 'https://nb/api/dcim/devices/?a=\nb&limit=1'".into(),
            status: Some(200),
            count: Some(7),
        }];
        let coloured = render(&findings);
        assert!(coloured.contains("\x1b[2msent:\x1b[0m curl"));
        assert!(coloured.contains("\x1b[1;31merror[unknown-filter]\x1b[0m"));
        assert!(coloured.contains("\x1b[32mfix:\x1b[0m"));
        assert_eq!(strip(&coloured), super::super::text::render(&findings));
    }
}
