//! `check` output: findings resolved to line/column once, then rendered as text (plain or in
//! colour), JSON, SARIF, GitHub annotations or a GitLab code quality report.

pub mod color;
/// The escapers live in [`crate::escape`] (the language server shows server text too).
pub use crate::escape;
pub mod github;
pub mod gitlab;
pub mod json;
pub mod put;
pub mod sarif;
pub mod stream;
pub mod text;

use crate::finding::{Finding, Severity};
use crate::intent::{NotChecked, ReadAs};
use crate::lines::{Cursor, LineIndex};
use std::sync::Arc;

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

impl Span {
    /// The span in LSP's units only (lines and UTF-16 columns).
    #[inline]
    pub fn lsp(&self) -> LspSpan {
        let p = |p: &Pos| LspPos {
            line: p.line,
            utf16_col: p.utf16_col,
        };
        LspSpan {
            start: p(&self.start),
            end: p(&self.end),
        }
    }
}

/// A position in LSP's units: 0-based line and column in UTF-16 code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LspPos {
    pub line: u32,
    pub utf16_col: u32,
}

/// A host range as two [`LspPos`]: an edit's range, which every output shows in these units
/// (JSON, SARIF), none in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LspSpan {
    pub start: LspPos,
    pub end: LspPos,
}

/// One edit of a fix, resolved. As large as [`crate::finding::Edit`] (its byte range becomes
/// the two positions), so that [`locate`] resolves a fix's edits in their own vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedEdit {
    pub span: LspSpan,
    pub new_text: String,
}

/// One fix, resolved. It keeps the fix's [`crate::finding::Fix::releases`] (no output shows
/// them), so that it is as large as the fix and [`locate`] resolves the fixes of a finding in
/// their own vector: no allocation, no free.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedFix {
    pub title: String,
    pub certain: bool,
    pub edits: Vec<ResolvedEdit>,
    pub releases: Vec<String>,
}

/// A live finding's request, ready to show: its URL, a `curl` command that sends it again with
/// the token from an environment variable, and what NetBox answered (issue 33 §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    pub method: &'static str,
    pub url: String,
    pub curl: String,
    pub status: Option<u16>,
    pub count: Option<u64>,
}

impl Proof {
    /// `req` sent to the NetBox at `base` (no trailing slash), the token taken from `$token_env`
    /// in the header form `scheme` (`Token` or `Bearer`).
    pub fn new(req: &crate::finding::Exchange, base: &str, scheme: &str, token_env: &str) -> Proof {
        let url = format!("{base}{}", req.path);
        let mut curl = format!(
            "curl -sS -H 'Accept: application/json' -H \"Authorization: {scheme} ${token_env}\""
        );
        if let Some(body) = &req.body {
            curl.push_str(" -H 'Content-Type: application/json' --data-raw ");
            curl.push_str(&shell_quote(body));
        }
        curl.push(' ');
        curl.push_str(&shell_quote(&url));
        Proof {
            method: req.method,
            url,
            curl: crate::sanitize::one_line(&curl).into_owned(),
            status: req.status,
            count: req.count,
        }
    }

    /// `HTTP 200, count 19` / `no answer`.
    pub fn outcome(&self) -> String {
        match (self.status, self.count) {
            (Some(s), Some(n)) => format!("HTTP {s}, count {n}"),
            (Some(s), None) => format!("HTTP {s}"),
            (None, _) => "no answer".into(),
        }
    }
}

/// `s` in single quotes for a POSIX shell (`'` written `'\''`).
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A finding with its file and positions, independent of the file text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The path as the user should see it (as named or walked), `/`-separated on every OS;
    /// shared by the findings of one file (one allocation per file, not per finding).
    pub path: Arc<str>,
    /// The path's bytes when `path` cannot show them exactly (a Unix name that is not UTF-8,
    /// shown with U+FFFD): outputs that must name the file exactly (SARIF URIs) use these.
    /// `None` when `path` is exact.
    pub path_bytes: Option<Arc<[u8]>>,
    pub span: Span,
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub fixes: Vec<ResolvedFix>,
    /// The requests a live finding rests on (see [`Proof`]); empty for every other finding.
    pub proof: Vec<Proof>,
}

/// Resolves `findings` of one file (`text`, indexed by `lines`) to [`Located`] findings. The
/// findings' vectors of fixes and edits become those of the located ones as they are (same
/// sizes: resolved in place); each finding's [`crate::finding::Facts`], which no output
/// reads, are dropped here, on the thread that made them. Positions come from one [`Cursor`]
/// going forward (findings are sorted): a finding's end on its own line, and an edit of the
/// finding's own range, cost no search.
pub fn locate(path: &str, text: &str, lines: &LineIndex, findings: Vec<Finding>) -> Vec<Located> {
    let mut cursor = Cursor::new(text, lines);
    let mut pos = |offset: usize| {
        let (line, char_col, utf16_col) = cursor.position(offset);
        Pos {
            line,
            char_col,
            utf16_col,
        }
    };
    let path: Arc<str> = Arc::from(path);
    findings
        .into_iter()
        .map(|f| {
            let Finding {
                range: r,
                code,
                severity,
                message,
                fixes,
                ..
            } = f;
            let start = pos(r.start);
            let span = Span {
                start,
                end: if r.end > r.start { pos(r.end) } else { start },
            };
            let fixes = if fixes.is_empty() {
                Vec::new()
            } else {
                fixes
                    .into_iter()
                    .map(|fix| ResolvedFix {
                        title: fix.title,
                        certain: fix.certain,
                        edits: fix
                            .edits
                            .into_iter()
                            .map(|e| ResolvedEdit {
                                // Most edits replace the finding's own range.
                                span: if e.range == r {
                                    span.lsp()
                                } else {
                                    Span {
                                        start: pos(e.range.start),
                                        end: pos(e.range.end.max(e.range.start)),
                                    }
                                    .lsp()
                                },
                                new_text: e.new_text,
                            })
                            .collect(),
                        releases: fix.releases,
                    })
                    .collect()
            };
            Located {
                path: path.clone(),
                path_bytes: None,
                span,
                code,
                severity,
                message,
                fixes,
                proof: Vec::new(),
            }
        })
        .collect()
}

/// Sets the exact bytes of the file's path (see [`Located::path_bytes`]) on findings and
/// sites not checked of one file; nothing when `bytes` is `None`.
pub fn set_path_bytes(bytes: Option<&Arc<[u8]>>, found: &mut [Located], skipped: &mut [Skipped]) {
    let Some(bytes) = bytes else { return };
    for f in found {
        f.path_bytes = Some(bytes.clone());
    }
    for s in skipped {
        s.path_bytes = Some(bytes.clone());
    }
}

/// The bytes a SARIF URI is made of: [`Located::path_bytes`] when set, else the shown path.
pub fn uri_bytes<'a>(path: &'a str, path_bytes: Option<&'a Arc<[u8]>>) -> &'a [u8] {
    path_bytes.map_or(path.as_bytes(), |b| b)
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
    /// As [`Located::path_bytes`].
    pub path_bytes: Option<Arc<[u8]>>,
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
                path_bytes: None,
                span,
                read_as: n.read_as,
                message: n.message(marker),
            }
        })
        .collect()
}
