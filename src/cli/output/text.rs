//! Text output: `path:line:col: severity[code] message` (1-based line, 1-based column counted in
//! characters), then one indented line per fix: `  fix: <title>` for a certain fix (the one
//! fix-all applies), `  suggestion: <title>` for the first of fixes that need a look, and
//! `  or: <title>` for each alternative.

use super::{escape, Located, Skipped};

/// Renders findings, one block per finding, each line ending in `\n`.
pub fn render(findings: &[Located]) -> String {
    // Written in place with `push_str` and itoa: the `core::fmt` machinery per line was a tenth
    // of the main thread's work on a file of 10,000 calls.
    let mut out = String::with_capacity(findings.len() * 200);
    let mut num = itoa::Buffer::new();
    for f in findings {
        out.push_str(&escape::text(&f.path));
        out.push(':');
        out.push_str(num.format(u64::from(f.span.start.line) + 1));
        out.push(':');
        out.push_str(num.format(u64::from(f.span.start.char_col) + 1));
        out.push_str(": ");
        out.push_str(f.severity.as_str());
        out.push('[');
        out.push_str(f.code);
        out.push_str("] ");
        push_one_line(&mut out, &f.message);
        out.push('\n');
        for (i, fix) in f.fixes.iter().enumerate() {
            out.push_str(match (i, fix.certain) {
                (0, true) => "  fix: ",
                (0, false) => "  suggestion: ",
                _ => "  or: ",
            });
            push_one_line(&mut out, &fix.title);
            out.push('\n');
        }
        for p in &f.proof {
            out.push_str("  sent: ");
            push_one_line(&mut out, &p.curl);
            out.push_str("  # ");
            out.push_str(&p.outcome());
            out.push('\n');
        }
    }
    out
}

/// Renders the sites not checked (`--explain`): `path:line:col: skipped[lesson] read as a wrong
/// example: “WRONG” in its comment (line 12)`, one line each.
pub fn render_skipped(skipped: &[Skipped]) -> String {
    let mut out = String::new();
    for s in skipped {
        out.push_str(&format!(
            "{}:{}:{}: skipped[{}] ",
            escape::text(&s.path),
            s.span.start.line + 1,
            s.span.start.char_col + 1,
            s.read_as.name()
        ));
        push_one_line(&mut out, &s.message);
        out.push('\n');
    }
    out
}

/// Appends `s` kept on one line: a message with newlines would break `path:line:col` parsers
/// (its non-blank lines are joined with one space); any other control character is escaped
/// ([`escape::text`]).
pub(super) fn push_one_line(out: &mut String, s: &str) {
    // A byte test: `str::contains` with a char array decoded every character.
    if !s.bytes().any(|b| b == b'\n' || b == b'\r') {
        out.push_str(&escape::text(s));
        return;
    }
    let mut first = true;
    for part in s.split(['\n', '\r']).filter(|p| !p.trim().is_empty()) {
        if !first {
            out.push(' ');
        }
        out.push_str(&escape::text(part));
        first = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Pos, ResolvedFix, Span};
    use super::*;
    use crate::finding::Severity;

    fn at(line: u32, col: u32) -> Pos {
        Pos {
            line,
            char_col: col,
            utf16_col: col,
        }
    }

    #[test]
    fn one_based_positions_and_fix_lines() {
        let f = Located {
            proof: vec![],
            path: "a/SKILL.md".into(),
            path_bytes: None,
            span: Span {
                start: at(4, 2),
                end: at(4, 9),
            },
            code: "unknown-filter",
            severity: Severity::Error,
            message: "bad\nkey".into(),
            fixes: vec![
                ResolvedFix {
                    releases: vec![],
                    title: "Use `a`".into(),
                    certain: false,
                    edits: vec![],
                },
                ResolvedFix {
                    releases: vec![],
                    title: "Use `b`".into(),
                    certain: false,
                    edits: vec![],
                },
            ],
        };
        let mut certain = f.clone();
        certain.fixes.truncate(1);
        certain.fixes[0].certain = true;
        assert_eq!(
            render(&[f, certain]),
            "a/SKILL.md:5:3: error[unknown-filter] bad key\n  suggestion: Use `a`\n  or: Use `b`\n\
             a/SKILL.md:5:3: error[unknown-filter] bad key\n  fix: Use `a`\n"
        );
    }
}
