//! `check --statistics`: how many findings each code has, instead of the findings — the most
//! frequent first (then by code), with how many carry a certain fix (`--fix` applies those).
//! Text: `  12  unknown-filter  (9 fixable)  Not a filter of this endpoint`; JSON: an array of
//! `{"code", "count", "fixable", "severity", "title"}`.

use super::output::Located;
use std::collections::BTreeMap;

/// One code's counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub code: &'static str,
    pub count: usize,
    /// Findings with a certain fix.
    pub fixable: usize,
    /// The most serious severity met.
    pub severity: crate::finding::Severity,
}

/// The rows of `findings`, most frequent first.
pub fn rows(findings: &[Located]) -> Vec<Row> {
    let mut by: BTreeMap<&'static str, Row> = BTreeMap::new();
    for f in findings {
        let r = by.entry(f.code).or_insert(Row {
            code: f.code,
            count: 0,
            fixable: 0,
            severity: f.severity,
        });
        r.count += 1;
        r.fixable += usize::from(f.fixes.iter().any(|x| x.certain));
        r.severity = r.severity.min(f.severity);
    }
    let mut out: Vec<Row> = by.into_values().collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
    out
}

fn title(code: &str) -> &'static str {
    crate::catalogue::get(code).map_or("", |c| c.title)
}

/// The text table, one line per code.
pub fn text(rows: &[Row]) -> String {
    let n = rows
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    let c = rows.iter().map(|r| r.code.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in rows {
        let fixable = if r.fixable > 0 {
            format!("({} fixable)", r.fixable)
        } else {
            String::new()
        };
        out.push_str(
            format!(
                "{:>n$}  {:c$}  {:14} {}\n",
                r.count,
                r.code,
                fixable,
                title(r.code)
            )
            .trim_end(),
        );
        out.push('\n');
    }
    out
}

/// The JSON array.
pub fn json(rows: &[Row]) -> String {
    let v: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "code": r.code,
                "count": r.count,
                "fixable": r.fixable,
                "severity": r.severity.as_str(),
                "title": title(r.code),
            })
        })
        .collect();
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}
