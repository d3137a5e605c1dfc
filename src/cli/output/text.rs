//! Text output: `path:line:col: severity[code] message` (1-based line, 1-based column counted in
//! characters), then one indented line per fix: `  fix: <title>` for a certain fix (the one
//! fix-all applies), `  suggestion: <title>` for the first of fixes that need a look, and
//! `  or: <title>` for each alternative.

use super::Located;

/// Renders findings, one block per finding, each line ending in `\n`.
pub fn render(findings: &[Located]) -> String {
    use std::fmt::Write;
    // Written in place (a `format!` per line was a tenth of the main thread's work on a file
    // of 10,000 calls).
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            f.path,
            f.span.start.line + 1,
            f.span.start.char_col + 1,
            f.severity.as_str(),
            f.code,
            one_line(&f.message)
        );
        for (i, fix) in f.fixes.iter().enumerate() {
            let label = match (i, fix.certain) {
                (0, true) => "fix",
                (0, false) => "suggestion",
                _ => "or",
            };
            let _ = writeln!(out, "  {label}: {}", one_line(&fix.title));
        }
    }
    out
}

/// Keeps one finding on its lines: a message with newlines would break `path:line:col` parsers.
fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\n', '\r']) {
        s.split(['\n', '\r'])
            .filter(|p| !p.trim().is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .into()
    } else {
        s.into()
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
            path: "a/SKILL.md".into(),
            span: Span {
                start: at(4, 2),
                end: at(4, 9),
            },
            code: "unknown-filter",
            severity: Severity::Error,
            message: "bad\nkey".into(),
            fixes: vec![
                ResolvedFix {
                    title: "Use `a`".into(),
                    certain: false,
                    edits: vec![],
                },
                ResolvedFix {
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
