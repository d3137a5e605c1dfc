//! Suppression comments, shared by `check` and the editor:
//! `netbox-lsp: ignore` or `netbox-lsp: ignore[code,...]` in a comment (`#`, `//`, `<!-- -->`)
//! on the finding's line, or alone on the line before. In Markdown, an HTML comment on the line
//! right before a fence covers the whole block.

mod place;

pub use place::ignore_edits;

use crate::extract::HostKind;
use crate::finding::Finding;
use crate::lines::LineIndex;
use std::ops::Range;

/// The marker text looked for.
pub const MARKER: &str = "netbox-lsp: ignore";

/// What a suppression comment covers: every code (`None`) or the listed codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    pub codes: Option<Vec<String>>,
}

impl Suppression {
    fn covers(&self, code: &str) -> bool {
        match &self.codes {
            None => true,
            Some(codes) => codes.iter().any(|c| c == code),
        }
    }
}

/// Parses a suppression in `line`, if the line has a comment carrying the marker.
pub fn parse_line(line: &str) -> Option<Suppression> {
    let at = line.find(MARKER)?;
    if !opens_comment(&line[..at]) {
        return None;
    }
    let rest = &line[at + MARKER.len()..];
    if let Some(list) = rest.strip_prefix('[') {
        let end = list.find(']')?;
        let codes = list[..end]
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect();
        return Some(Suppression { codes: Some(codes) });
    }
    Some(Suppression { codes: None })
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
    if findings.is_empty() || !text.contains(MARKER) {
        return findings;
    }
    let lines = LineIndex::new(text);
    let line_text = |n: usize| -> &str {
        let r = lines.line_range(n);
        &text[r]
    };
    // Block-level suppressions: a comment on the line right before a fence's first line.
    let mut block_rules: Vec<(Range<usize>, Suppression)> = Vec::new();
    if kind == HostKind::Markdown {
        block_rules.extend(prose_blocks(text, &lines, blocks));
        for b in blocks {
            let first = lines.line_of(b.start);
            if first == 0 {
                continue;
            }
            let prev = line_text(first - 1);
            if prev.contains("<!--") {
                if let Some(s) = parse_line(prev) {
                    block_rules.push((b.clone(), s));
                }
            }
        }
    }
    findings
        .into_iter()
        .filter(|f| {
            let line = lines.line_of(f.range.start);
            if let Some(s) = parse_line(line_text(line)) {
                if s.covers(f.code) {
                    return false;
                }
            }
            if line > 0 {
                let prev = line_text(line - 1);
                if comment_only(prev) {
                    if let Some(s) = parse_line(prev) {
                        if s.covers(f.code) {
                            return false;
                        }
                    }
                }
            }
            !block_rules
                .iter()
                .any(|(r, s)| r.contains(&f.range.start) && s.covers(f.code))
        })
        .collect()
}

/// Markdown: an HTML comment alone on its line, right before a list, table or paragraph, covers
/// that block up to the next blank line (a "never write these" list of wrong filters). Fences
/// (`blocks`) are covered by the caller's fence rule.
fn prose_blocks(
    text: &str,
    lines: &LineIndex,
    blocks: &[Range<usize>],
) -> Vec<(Range<usize>, Suppression)> {
    let mut out = Vec::new();
    let n = lines.line_count();
    let blank = |l: usize| text[lines.line_range(l)].trim().is_empty();
    for line in 0..n.saturating_sub(1) {
        let t = &text[lines.line_range(line)];
        if !t.contains("<!--") || !comment_only(t) {
            continue;
        }
        let Some(s) = parse_line(t) else { continue };
        let start = lines.line_range(line + 1).start;
        if blank(line + 1) || blocks.iter().any(|b| b.start == start) {
            continue;
        }
        let mut last = line + 1;
        while last + 1 < n && !blank(last + 1) {
            last += 1;
        }
        out.push((start..lines.line_range(last).end, s));
    }
    out
}

/// Removes the findings inside a multi-line call (`calls`: host byte ranges of REST calls) when
/// a comment-only line right before the call's first line carries a suppression covering the
/// code: `# netbox-lsp: ignore` above `netbox_get_objects(` covers all its arguments.
pub fn apply_to_calls(text: &str, calls: &[Range<usize>], findings: Vec<Finding>) -> Vec<Finding> {
    if findings.is_empty() || calls.is_empty() || !text.contains(MARKER) {
        return findings;
    }
    let lines = LineIndex::new(text);
    let rules: Vec<(Range<usize>, Suppression)> = calls
        .iter()
        .filter_map(|call| {
            let first = lines.line_of(call.start);
            let prev = &text[lines.line_range(first.checked_sub(1)?)];
            if !comment_only(prev) {
                return None;
            }
            Some((call.clone(), parse_line(prev)?))
        })
        .collect();
    if rules.is_empty() {
        return findings;
    }
    findings
        .into_iter()
        .filter(|f| {
            !rules
                .iter()
                .any(|(r, s)| r.contains(&f.range.start) && s.covers(f.code))
        })
        .collect()
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
