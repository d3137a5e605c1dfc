//! Suppression comments, shared by `check` and the editor:
//! `netbox-lsp: ignore` or `netbox-lsp: ignore[code,...]` in a comment (`#`, `//`, `<!-- -->`)
//! on the finding's line, or alone on the line before. In Markdown, an HTML comment on the line
//! right before a fence covers the whole block. A reason may follow: `netbox-lsp:
//! ignore[unknown-filter] -- a lesson on the old name`. The range form
//! `netbox-lsp: ignore-start[...]` … `netbox-lsp: ignore-end` covers every line in between (to
//! the end of the file without an end).
//!
//! A suppression that covers no finding is itself a finding, `unused-suppression` (the
//! checks changed, or the mistake was fixed and the comment stayed); [`apply_all`] says which.
//! Codes that only `check --upgrade-to`, `--live` or the editor's instance report are never
//! judged unused here (the plain analysis cannot see them).

mod place;

pub use place::ignore_edits;

use crate::extract::HostKind;
use crate::finding::Finding;
use crate::lines::LineIndex;
use std::ops::Range;

/// The marker text looked for.
pub const MARKER: &str = "netbox-lsp: ignore";

/// The code of a suppression that covers no finding.
pub const UNUSED: &str = "unused-suppression";

/// Which form a suppression comment has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `ignore` / `ignore[...]`: its own line, and the next when the comment is alone on its
    /// line (and what starts there: a fence, a Markdown block, a call).
    Here,
    /// `ignore-start` / `ignore-start[...]`: every line up to the next `ignore-end`.
    Start,
    /// `ignore-end`: closes the range an `ignore-start` opened.
    End,
}

/// What a suppression comment covers: every code (`None`) or the listed codes, its form, its
/// reason, and where it stands in its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    pub codes: Option<Vec<String>>,
    pub form: Form,
    /// The text after ` -- ` (trimmed), when the comment gives one.
    pub reason: Option<String>,
    /// Byte range in the line from the marker through the code list and reason.
    pub span: Range<usize>,
}

/// Parses a suppression in `line`, if the line has a comment carrying the marker.
pub fn parse_line(line: &str) -> Option<Suppression> {
    let at = line.find(MARKER)?;
    if !opens_comment(&line[..at]) {
        return None;
    }
    let mut next = at + MARKER.len();
    let form = if line[next..].starts_with("-start") {
        next += "-start".len();
        Form::Start
    } else if line[next..].starts_with("-end") {
        next += "-end".len();
        Form::End
    } else {
        Form::Here
    };
    let mut codes = None;
    if let Some(list) = line[next..].strip_prefix('[') {
        let end = list.find(']')?;
        codes = Some(
            list[..end]
                .split(',')
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect(),
        );
        next += end + 2;
    }
    // ` -- why`, up to the end of an HTML comment or of the line; `-->` alone is no reason.
    let tail = &line[next..];
    let lead = tail.len() - tail.trim_start().len();
    let mut span_end = next;
    let reason = tail.trim_start().strip_prefix("--").and_then(|r| {
        if r.starts_with('>') {
            return None;
        }
        let body = r.split("-->").next().unwrap_or(r);
        let trimmed = body.trim_end();
        let text = trimmed.trim_start();
        if text.is_empty() {
            return None;
        }
        span_end = next + lead + 2 + trimmed.len();
        Some(text.to_string())
    });
    Some(Suppression {
        codes,
        form,
        reason,
        span: at..span_end,
    })
}

/// True when `before` holds a comment opener (`#`, `//`, `<!--`) outside a quoted string, so
/// that `x = "# netbox-lsp: ignore"` is no suppression ([`crate::lines::outside_quotes`]).
fn opens_comment(before: &str) -> bool {
    // Markdown prose has no strings: an HTML comment there opens wherever it stands.
    if before.contains("<!--") {
        return true;
    }
    crate::lines::outside_quotes(before, |b, i| {
        let rest = &b[i..];
        rest[0] == b'#' || rest.starts_with(b"//") || rest.starts_with(b"<!--")
    })
    .is_some()
}

/// True when `line` holds nothing but a comment (after Markdown `>` and list prefixes).
fn comment_only(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_whitespace() || c == '>');
    t.starts_with('#') || t.starts_with("//") || t.starts_with("<!--")
}

/// Removes the findings that a suppression comment covers. `blocks` are the Markdown fenced
/// blocks of the document (host byte ranges, fence lines included).
pub fn apply(
    text: &str,
    kind: HostKind,
    blocks: &[Range<usize>],
    findings: Vec<Finding>,
) -> Vec<Finding> {
    apply_all(text, kind, blocks, &[], &[], findings).kept
}

/// Removes the findings inside a multi-line call (`calls`: host byte ranges of REST calls) when
/// a comment-only line right before the call's first line carries a suppression covering the
/// code: `# netbox-lsp: ignore` above `netbox_get_objects(` covers all its arguments.
pub fn apply_to_calls(text: &str, calls: &[Range<usize>], findings: Vec<Finding>) -> Vec<Finding> {
    apply_all(text, HostKind::Text, &[], calls, &[], findings).kept
}

/// What [`apply_all`] gives: the findings no suppression covers, and one `unused-suppression`
/// finding per comment (or listed code) that covered none.
#[derive(Debug, Default)]
pub struct Applied {
    pub kept: Vec<Finding>,
    pub unused: Vec<Finding>,
}

/// Codes the plain analysis never reports (upgrade, live and instance verdicts, this code):
/// a suppression of them is never judged unused.
fn judged(code: &str) -> bool {
    !(code.starts_with("upgrade-")
        || code.starts_with("live-")
        || code == "stale-index"
        || code == "not-checked"
        || code == UNUSED)
}

/// One suppression comment and what it was used for.
struct Comment {
    sup: Suppression,
    /// The comment's line (host byte range, newline included).
    line: Range<usize>,
    /// Per listed code (or one entry for "every code"): covered at least one finding.
    used: Vec<bool>,
}

/// A byte range a comment covers.
struct Rule {
    range: Range<usize>,
    comment: usize,
}

/// Every suppression rule of the document at once (see the module docs): the line rules,
/// Markdown block rules (`blocks`: fenced blocks), call rules (`calls`: REST call ranges) and
/// ranges; the findings they cover are dropped, and the comments that covered nothing are
/// reported ([`UNUSED`], a warning; a fix that removes them, never certain). A comment that
/// covers a site the analysis held back (`held`: a lesson, release history; not checked, so it
/// has no findings) is not unused: it would suppress that site's findings were it checked
/// (`[skip] lesson = false`).
pub fn apply_all(
    text: &str,
    kind: HostKind,
    blocks: &[Range<usize>],
    calls: &[Range<usize>],
    held: &[Range<usize>],
    findings: Vec<Finding>,
) -> Applied {
    if !text.contains(MARKER) {
        return Applied {
            kept: findings,
            unused: Vec::new(),
        };
    }
    let lines = LineIndex::new(text);
    let line_text = |n: usize| -> &str { &text[lines.line_range(n)] };
    let mut marked: Vec<usize> = text
        .match_indices(MARKER)
        .map(|(i, _)| lines.line_of(i))
        .collect();
    marked.dedup();
    let mut comments: Vec<Comment> = Vec::new();
    let mut rules: Vec<Rule> = Vec::new();
    let n = lines.line_count();
    let blank = |l: usize| line_text(l).trim().is_empty();
    let mut open_start: Option<(usize, usize)> = None; // (comment, first byte)
    for &l in &marked {
        let t = line_text(l);
        let Some(sup) = parse_line(t) else { continue };
        let at = comments.len();
        let line = lines.line_range(l);
        let used = vec![false; sup.codes.as_ref().map_or(1, |c| c.len().max(1))];
        match sup.form {
            Form::Start => {
                if let Some((c, from)) = open_start.take() {
                    rules.push(Rule {
                        range: from..line.start,
                        comment: c,
                    });
                }
                open_start = Some((at, line.start));
            }
            Form::End => {
                // An end that closes nothing does nothing (and is not judged).
                if let Some((c, from)) = open_start.take() {
                    rules.push(Rule {
                        range: from..line.end,
                        comment: c,
                    });
                }
            }
            Form::Here => {
                rules.push(Rule {
                    range: line.clone(),
                    comment: at,
                });
                let alone = comment_only(t);
                if l + 1 < n {
                    let next = lines.line_range(l + 1);
                    if alone {
                        rules.push(Rule {
                            range: next.clone(),
                            comment: at,
                        });
                        for c in calls.iter().filter(|c| lines.line_of(c.start) == l + 1) {
                            rules.push(Rule {
                                range: c.clone(),
                                comment: at,
                            });
                        }
                    }
                    if kind == HostKind::Markdown && t.contains("<!--") {
                        let fence = blocks.iter().find(|b| b.start == next.start);
                        if let Some(b) = fence {
                            rules.push(Rule {
                                range: b.clone(),
                                comment: at,
                            });
                        } else if alone && !blank(l + 1) {
                            // A list, table or paragraph up to the next blank line.
                            let mut last = l + 1;
                            while last + 1 < n && !blank(last + 1) {
                                last += 1;
                            }
                            rules.push(Rule {
                                range: next.start..lines.line_range(last).end,
                                comment: at,
                            });
                        }
                    }
                }
            }
        }
        comments.push(Comment { sup, line, used });
    }
    if let Some((c, from)) = open_start {
        rules.push(Rule {
            range: from..text.len(),
            comment: c,
        });
    }
    // Findings against rules sorted by start, walking back only while an earlier rule can
    // still reach the finding (the running maximum of ends).
    rules.sort_by_key(|r| r.range.start);
    let mut reach = Vec::with_capacity(rules.len());
    let mut most = 0;
    for r in &rules {
        most = most.max(r.range.end);
        reach.push(most);
    }
    let mut kept = Vec::with_capacity(findings.len());
    for f in findings {
        let s = f.range.start;
        let mut covered = false;
        let mut i = rules.partition_point(|r| r.range.start <= s);
        while i > 0 && reach[i - 1] > s {
            i -= 1;
            let r = &rules[i];
            if !r.range.contains(&s) {
                continue;
            }
            let c = &mut comments[r.comment];
            match &c.sup.codes {
                None => {
                    c.used[0] = true;
                    covered = true;
                }
                Some(codes) => {
                    if let Some(k) = codes.iter().position(|x| x == f.code) {
                        c.used[k] = true;
                        covered = true;
                    }
                }
            }
        }
        if !covered {
            kept.push(f);
        }
    }
    for h in held {
        let s = h.start;
        let mut i = rules.partition_point(|r| r.range.start <= s);
        while i > 0 && reach[i - 1] > s {
            i -= 1;
            if rules[i].range.contains(&s) {
                comments[rules[i].comment].used.fill(true);
            }
        }
    }
    let unused = comments
        .iter()
        .filter_map(|c| unused_finding(text, c))
        .collect();
    Applied { kept, unused }
}

/// The `unused-suppression` finding of comment `c`, if some of it covered nothing.
fn unused_finding(text: &str, c: &Comment) -> Option<Finding> {
    let t = &text[c.line.clone()];
    let span = c.line.start + c.sup.span.start..c.line.start + c.sup.span.end;
    let shown = &text[span.clone()];
    let sev = crate::catalogue::default_severity(UNUSED);
    if c.sup.form == Form::End {
        return None; // its `ignore-start` is the one judged
    }
    let unused_codes: Vec<&str> = match &c.sup.codes {
        None if c.used[0] => return None,
        None => Vec::new(),
        Some(codes) if codes.is_empty() => return None,
        Some(codes) => codes
            .iter()
            .zip(&c.used)
            .filter(|(code, used)| !**used && judged(code))
            .map(|(code, _)| code.as_str())
            .collect(),
    };
    let whole = match &c.sup.codes {
        None => true,
        Some(codes) => {
            if unused_codes.is_empty() {
                return None;
            }
            unused_codes.len() == codes.len()
        }
    };
    if whole {
        let message = format!(
            "`{shown}` covers no finding here: the mistake it was for is gone, or was never reported; remove the comment."
        );
        let f = Finding::new(span, UNUSED, sev, message);
        return Some(match removal(text, c) {
            Some(edit) => f.with_fix("Remove the unused suppression", edit.0, edit.1, false),
            None => f,
        });
    }
    let keep: Vec<&String> = c
        .sup
        .codes
        .iter()
        .flatten()
        .filter(|code| !unused_codes.contains(&code.as_str()))
        .collect();
    let list_at = t[c.sup.span.start..]
        .find('[')
        .map(|i| c.sup.span.start + i)?;
    let list_end = t[list_at..].find(']').map(|i| list_at + i + 1)?;
    let names = unused_codes
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = format!("{names} in `{shown}` covers no finding here; remove it from the list.");
    let new_list = format!(
        "[{}]",
        keep.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    Some(Finding::new(span, UNUSED, sev, message).with_fix(
        format!("Keep {new_list}"),
        c.line.start + list_at..c.line.start + list_end,
        new_list,
        false,
    ))
}

/// The edit that removes comment `c`: its whole line when the line holds only the comment, else
/// the comment from the space before its opener (`#`, `//`, `<!--`) to its end (`-->`, or the
/// end of the line).
fn removal(text: &str, c: &Comment) -> Option<(Range<usize>, String)> {
    let t = &text[c.line.clone()];
    if (comment_only(t) && t.trim_start().starts_with(['#', '/'])) || is_lone_html(t) {
        return Some((c.line.clone(), String::new()));
    }
    let before = &t[..c.sup.span.start];
    let opener = ["<!--", "//", "#"]
        .iter()
        .filter_map(|o| before.rfind(o))
        .max()?;
    let from = before[..opener].trim_end().len();
    let content_end = t.trim_end_matches(['\r', '\n']).len();
    let to = if t[opener..].starts_with("<!--") {
        t[c.sup.span.end..]
            .find("-->")
            .map_or(content_end, |i| c.sup.span.end + i + 3)
    } else {
        content_end
    };
    Some((c.line.start + from..c.line.start + to, String::new()))
}

/// True when `line` is one HTML comment and nothing else.
fn is_lone_html(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("<!--") && t.ends_with("-->") && t.matches("<!--").count() == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn finding_at(text: &str, needle: &str, code: &'static str) -> Finding {
        let at = text.find(needle).unwrap();
        Finding::new(at..at + needle.len(), code, Severity::Error, "x")
    }

    #[test]
    fn same_line_and_line_before() {
        let text = "a = f(x=1)  # netbox-lsp: ignore\n# netbox-lsp: ignore[unknown-filter]\nb = f(y=2)\nc = f(z=3)\n";
        let fs = vec![
            finding_at(text, "x=1", "unknown-filter"),
            finding_at(text, "y=2", "unknown-filter"),
            finding_at(text, "z=3", "unknown-filter"),
        ];
        let kept = apply(text, HostKind::Python, &[], fs);
        assert_eq!(kept.len(), 1);
        assert_eq!(&text[kept[0].range.clone()], "z=3");
    }

    #[test]
    fn code_list_limits_the_suppression() {
        let text = "# netbox-lsp: ignore[multi-hop]\nb = f(y=2)\n";
        let kept = apply(
            text,
            HostKind::Python,
            &[],
            vec![finding_at(text, "y=2", "unknown-filter")],
        );
        assert_eq!(kept.len(), 1);
    }

    #[test]
    fn html_comment_before_fence_covers_block() {
        let text = "<!-- netbox-lsp: ignore -->\n```python\na = 1\n\nb = 2\n```\nc = 3\n";
        let block = text.find("```").unwrap()..text.rfind("```").unwrap() + 3;
        let fs = vec![finding_at(text, "b = 2", "unknown-filter")];
        assert!(apply(text, HostKind::Markdown, &[block], fs).is_empty());
    }

    #[test]
    fn html_comment_before_a_list_covers_the_list_up_to_a_blank_line() {
        let text = "Never write these:\n<!-- netbox-lsp: ignore[unknown-filter] -->\n- `site_id__in=1`\n- `device_role_id=3`\n\n- `tenant__isnull=true`\n";
        let fs = vec![
            finding_at(text, "site_id__in", "unknown-filter"),
            finding_at(text, "device_role_id", "unknown-filter"),
            finding_at(text, "device_role_id", "unsupported-lookup"),
            finding_at(text, "tenant__isnull", "unknown-filter"),
        ];
        let kept = apply(text, HostKind::Markdown, &[], fs);
        let kept: Vec<_> = kept
            .iter()
            .map(|f| (&text[f.range.clone()], f.code))
            .collect();
        assert_eq!(
            kept,
            [
                ("device_role_id", "unsupported-lookup"),
                ("tenant__isnull", "unknown-filter")
            ]
        );
    }

    #[test]
    fn comment_before_a_multi_line_call_covers_its_arguments() {
        let text = "# netbox-lsp: ignore[unknown-filter]\nf(\n    x=1,\n)\ng(\n    y=2,\n)\n";
        let calls = vec![
            text.find("f(").unwrap()..text.find(")\n").unwrap() + 1,
            text.find("g(").unwrap()..text.len() - 1,
        ];
        let fs = vec![
            finding_at(text, "x=1", "unknown-filter"),
            finding_at(text, "y=2", "unknown-filter"),
        ];
        let kept = apply_to_calls(text, &calls, fs);
        assert_eq!(kept.len(), 1);
        assert_eq!(&text[kept[0].range.clone()], "y=2");
    }

    #[test]
    fn marker_inside_a_string_does_nothing() {
        for (line, suppressed) in [
            ("x = \"# netbox-lsp: ignore\"; f(y=2)", false),
            ("x = 'a // netbox-lsp: ignore'", false),
            ("x = \"a\\\"b\" # netbox-lsp: ignore", true),
            ("Don't do this <!-- netbox-lsp: ignore -->", true),
            ("f(y=2)  # netbox-lsp: ignore", true),
        ] {
            assert_eq!(parse_line(line).is_some(), suppressed, "{line}");
        }
    }

    #[test]
    fn marker_outside_comment_does_nothing() {
        let text = "say netbox-lsp: ignore\nb = f(y=2)\n";
        let fs = vec![finding_at(text, "y=2", "unknown-filter")];
        assert_eq!(apply(text, HostKind::Python, &[], fs).len(), 1);
    }
}
