//! `check` output: findings resolved to line/column once, then rendered as text (plain or in
//! colour), JSON, SARIF, GitHub annotations or a GitLab code quality report.

pub mod color;
pub mod github;
pub mod gitlab;
pub mod json;
pub mod sarif;
pub mod stream;
pub mod text;

use crate::extract::intent::{NotChecked, ReadAs};
use crate::finding::{Finding, Severity};
use crate::lines::{Cursor, LineIndex};

/// A position in both column units the formats need: 0-based line, column in Unicode
/// characters (text output) and in UTF-16 code units (JSON, SARIF, LSP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub char_col: u32,
    pub utf16_col: u32,
}

/// A host range as two [`Pos`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

/// One edit of a fix, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedEdit {
    pub span: Span,
    pub new_text: String,
}

/// One fix, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedFix {
    pub title: String,
    pub certain: bool,
    pub edits: Vec<ResolvedEdit>,
}

/// A finding with its file and positions, independent of the file text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The path as the user should see it (as named or walked), `/`-separated on every OS.
    pub path: String,
    pub span: Span,
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub fixes: Vec<ResolvedFix>,
}

/// Resolves `findings` of one file (`text`, indexed by `lines`) to [`Located`] findings.
pub fn locate(path: &str, text: &str, lines: &LineIndex, findings: Vec<Finding>) -> Vec<Located> {
    let cursor = std::cell::RefCell::new(Cursor::new(text, lines));
    let pos = |offset: usize| {
        let (line, char_col, utf16_col) = cursor.borrow_mut().position(offset);
        Pos {
            line,
            char_col,
            utf16_col,
        }
    };
    let span = |r: &std::ops::Range<usize>| Span {
        start: pos(r.start),
        end: pos(r.end.max(r.start)),
    };
    findings
        .into_iter()
        .map(|f| Located {
            path: path.to_string(),
            span: span(&f.range),
            code: f.code,
            severity: f.severity,
            message: f.message,
            fixes: f
                .fixes
                .into_iter()
                .map(|fix| ResolvedFix {
                    title: fix.title,
                    certain: fix.certain,
                    edits: fix
                        .edits
                        .into_iter()
                        .map(|e| ResolvedEdit {
                            span: span(&e.range),
                            new_text: e.new_text,
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

/// Counts by severity, in [`Severity`] order: `[errors, warnings, information, hints]`.
pub fn tally(findings: &[Located]) -> [usize; 4] {
    findings.iter().fold([0; 4], |mut n, f| {
        n[f.severity as usize] += 1;
        n
    })
}

/// The summary line printed on stderr, in the findings' own severity words:
/// `2 errors, 1 warning in 5 files`, plus `, 1 information` and `, 3 hints` when there are
/// such findings.
pub fn summary(findings: &[Located], files: usize) -> String {
    summary_of(tally(findings), files)
}

/// [`summary`] of counts by severity ([`tally`]).
pub fn summary_of([e, w, i, h]: [usize; 4], files: usize) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut s = format!(
        "{}, {}",
        plural(e, "error", "errors"),
        plural(w, "warning", "warnings")
    );
    if i > 0 {
        s.push_str(&format!(", {i} information"));
    }
    if h > 0 {
        s.push_str(&format!(", {}", plural(h, "hint", "hints")));
    }
    s.push_str(&format!(" in {}", plural(files, "file", "files")));
    s
}

/// A site `check` did not check (`--explain`), with its file and position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The path as for [`Located::path`].
    pub path: String,
    pub span: Span,
    pub read_as: ReadAs,
    /// What it was read as and why, with the line of the text that decided
    /// ([`NotChecked::message`]).
    pub message: String,
}

/// Resolves the sites `not_checked` of one file (`text`, indexed by `lines`) to [`Skipped`].
pub fn locate_skipped(
    path: &str,
    text: &str,
    lines: &LineIndex,
    not_checked: &[NotChecked],
) -> Vec<Skipped> {
    let mut cursor = Cursor::new(text, lines);
    let mut pos = |offset: usize| {
        let (line, char_col, utf16_col) = cursor.position(offset);
        Pos {
            line,
            char_col,
            utf16_col,
        }
    };
    not_checked
        .iter()
        .map(|n| {
            let span = Span {
                start: pos(n.range.start),
                end: pos(n.range.end.max(n.range.start)),
            };
            let marker = n.marker.as_ref().map(|m| lines.line_of(m.start) + 1);
            Skipped {
                path: path.to_string(),
                span,
                read_as: n.read_as,
                message: n.message(marker),
            }
        })
        .collect()
}
