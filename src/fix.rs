//! Fix-all: which fixes are applied without a look, and applying them to a text. The one engine
//! behind the editor's `source.fixAll.netbox` (`server::code_action`) and `check --fix` /
//! `--diff` (`cli::fix`). Positions are byte offsets into the host document (UTF-8).
//!
//! A fix is taken when it is its finding's only fix and is certain (the preferred quick-fix);
//! fixes that overlap one already taken (in document order) are left for a later round.

use crate::finding::{Edit, Finding, Fix};
use std::collections::BTreeSet;
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
    // The taken ranges as (start, end), disjoint, so their ends grow with their starts: a range
    // overlaps one of them iff the last taken range starting before its end ends after its
    // start (or is the same range). One lookup per edit: fix-all on a generated file with 50,000
    // findings was quadratic here (issue 9 §5).
    let mut taken: BTreeSet<(usize, usize)> = BTreeSet::new();
    let overlaps = |taken: &BTreeSet<(usize, usize)>, r: &Range<usize>| {
        taken.contains(&(r.start, r.end))
            || taken
                .range(..(r.end, 0))
                .next_back()
                .is_some_and(|&(s, e)| s < r.end && r.start < e)
    };
    let mut out = Vec::new();
    for (f, fix) in fixes {
        // Edit by edit, so that a fix whose own edits overlap (no client applies it) is left
        // out too and the taken ranges stay disjoint.
        let mut added = Vec::new();
        for e in &fix.edits {
            if overlaps(&taken, &e.range) {
                break;
            }
            taken.insert((e.range.start, e.range.end));
            added.push((e.range.start, e.range.end));
        }
        if added.len() < fix.edits.len() {
            for a in added {
                taken.remove(&a);
            }
            continue;
        }
        out.push((f, fix));
    }
    out
}

/// The edits of every finding's certain fix, for a correction that is all or nothing (the
/// Python API's `corrected`): sorted by start offset, repeats dropped. `None` when an error or
/// warning has no certain fix, or two edits overlap.
pub fn all_certain_edits(findings: &[Finding]) -> Option<Vec<&Edit>> {
    let mut edits = Vec::new();
    for f in findings {
        match f.fixes.iter().find(|x| x.certain) {
            Some(fix) => edits.extend(fix.edits.iter()),
            None if f.severity <= crate::finding::Severity::Warning => return None,
            None => {}
        }
    }
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    edits.dedup();
    if edits.windows(2).any(|w| w[0].range.end > w[1].range.start) {
        return None;
    }
    Some(edits)
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

    /// The one-lookup overlap test takes exactly the fixes that comparing with every taken range
    /// takes: generated fixes of one or two edits, empty ranges and shared starts included.
    #[test]
    fn overlap_lookup_agrees_with_comparing_every_pair() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % m) as usize
        };
        for _ in 0..300 {
            let findings: Vec<Finding> = (0..next(40))
                .map(|_| {
                    let mut edits = Vec::new();
                    for _ in 0..1 + next(2) {
                        let start = next(60);
                        edits.push(Edit {
                            range: start..start + next(4),
                            new_text: "x".into(),
                        });
                    }
                    let mut f = Finding::new(0..0, "unknown-filter", Severity::Error, "m");
                    f.fixes.push(Fix {
                        title: "t".into(),
                        edits,
                        certain: true,
                        releases: Vec::new(),
                    });
                    f
                })
                .collect();
            let mut fixes: Vec<&Fix> = findings.iter().map(|f| &f.fixes[0]).collect();
            fixes.sort_by_key(|x| x.edits.iter().map(|e| e.range.start).min());
            let mut taken: Vec<Range<usize>> = Vec::new();
            let mut want = Vec::new();
            let clash =
                |a: &Range<usize>, b: &Range<usize>| a.start < b.end && b.start < a.end || a == b;
            for fix in fixes {
                let own = fix
                    .edits
                    .iter()
                    .enumerate()
                    .any(|(i, a)| fix.edits[..i].iter().any(|b| clash(&a.range, &b.range)));
                if own
                    || fix
                        .edits
                        .iter()
                        .any(|e| taken.iter().any(|t| clash(&e.range, t)))
                {
                    continue;
                }
                taken.extend(fix.edits.iter().map(|e| e.range.clone()));
                want.push(fix);
            }
            let got: Vec<&Fix> = certain_fixes(&findings)
                .into_iter()
                .map(|(_, x)| x)
                .collect();
            assert_eq!(got, want);
        }
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
