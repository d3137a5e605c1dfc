//! Fix-all: which fixes are applied without a look, and applying them to a text. The one engine
//! behind the editor's `source.fixAll.netbox` (`server::code_action`) and `check --fix` /
//! `--diff` (`cli::fix`). Positions are byte offsets into the host document (UTF-8).
//!
//! A fix is taken when it is its finding's only fix and is certain (the preferred quick-fix);
//! fixes that overlap one already taken (in document order) are left for a later round.

use crate::finding::{Edit, Finding, Fix};
use std::ops::Range;

/// The certain fixes of `findings` that one round of fix-all applies, each with its finding, in
/// document order (by the first edit's start). The findings should already be the reported ones
/// (severity overrides applied, `off` codes dropped).
pub fn certain_fixes<'a>(
    findings: impl IntoIterator<Item = &'a Finding>,
) -> Vec<(&'a Finding, &'a Fix)> {
    let mut fixes: Vec<(&Finding, &Fix)> = findings
        .into_iter()
        .filter_map(|f| {
            f.fixes
                .iter()
                .find(|x| x.certain && f.fixes.len() == 1)
                .map(|x| (f, x))
        })
        .filter(|(_, x)| !x.edits.is_empty())
        .collect();
    fixes.sort_by_key(|(_, x)| x.edits.iter().map(|e| e.range.start).min());
    let mut taken: Vec<Range<usize>> = Vec::new();
    let mut out = Vec::new();
    for (f, fix) in fixes {
        let overlaps = fix.edits.iter().any(|e| {
            taken
                .iter()
                .any(|t| e.range.start < t.end && t.start < e.range.end || e.range == *t)
        });
        if overlaps {
            continue;
        }
        taken.extend(fix.edits.iter().map(|e| e.range.clone()));
        out.push((f, fix));
    }
    out
}

/// The edits of [`certain_fixes`], sorted by start offset and non-overlapping.
pub fn fix_all_edits<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<Edit> {
    let mut out: Vec<Edit> = certain_fixes(findings)
        .into_iter()
        .flat_map(|(_, x)| x.edits.iter().cloned())
        .collect();
    out.sort_by_key(|e| e.range.start);
    out
}

/// `text` with non-overlapping `edits` applied (as [`fix_all_edits`] returns them). An edit
/// whose range is outside the text, not on a character boundary, or overlapping an earlier one
/// is skipped rather than applied in part.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in sorted {
        let r = &e.range;
        if r.start < at
            || r.end < r.start
            || r.end > text.len()
            || !text.is_char_boundary(r.start)
            || !text.is_char_boundary(r.end)
        {
            continue;
        }
        out.push_str(&text[at..r.start]);
        out.push_str(&e.new_text);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn finding(text: &str, needle: &str) -> Finding {
        let at = text.find(needle).unwrap();
        Finding::new(
            at..at + needle.len(),
            "unknown-filter",
            Severity::Error,
            "m",
        )
    }

    #[test]
    fn takes_certain_non_overlapping_fixes_and_applies_them() {
        let text = "aaa bbb ccc";
        let certain = |n: &str, to: &str| {
            let at = text.find(n).unwrap();
            finding(text, n).with_fix("t", at..at + 3, to, true)
        };
        let findings = vec![
            certain("ccc", "C"),
            certain("aaa", "A"),
            certain("aaa", "Z"), // same range: left for a later round
            finding(text, "bbb")
                .with_fix("t", 4..7, "B1", false)
                .with_fix("t", 4..7, "B2", false),
        ];
        let edits = fix_all_edits(&findings);
        let texts: Vec<&str> = edits.iter().map(|e| e.new_text.as_str()).collect();
        assert_eq!(texts, vec!["A", "C"]);
        assert_eq!(apply(text, &edits), "A bbb C");
        let taken = certain_fixes(&findings);
        assert_eq!(taken.len(), 2);
        assert_eq!(taken[0].0.range, 0..3);
    }

    #[test]
    fn apply_skips_bad_ranges_whole() {
        let text = "é x";
        let edits = vec![
            Edit {
                range: 1..2, // inside `é`
                new_text: "?".into(),
            },
            Edit {
                range: 3..4,
                new_text: "y".into(),
            },
            Edit {
                range: 3..9, // overlaps and past the end
                new_text: "z".into(),
            },
        ];
        assert_eq!(apply(text, &edits), "é y");
    }
}
