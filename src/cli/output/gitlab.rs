//! `--format gitlab`: a GitLab code quality report (`artifacts: reports: codequality`), one
//! JSON array of issues:
//! `{"description", "check_name", "fingerprint", "severity", "location": {"path",
//! "positions": {"begin": {"line", "column"}, "end": {...}}}}`, lines and columns 1-based
//! (columns in characters). Severity: error `major`, warning `minor`, information and hint
//! `info`. The fingerprint (which GitLab compares between a merge request and its target) is a
//! SHA-256 of the path, code, message and the how-many-th such finding it is, so it stays the
//! same when lines are added above.

use super::Located;
use crate::finding::Severity;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// GitLab's severity for ours.
fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Information | Severity::Hint => "info",
    }
}

/// Fingerprints of one run: the same (path, code, message) a second time gets another one.
#[derive(Debug, Default)]
pub struct Fingerprints {
    seen: HashMap<[u8; 32], usize>,
}

impl Fingerprints {
    /// The fingerprint of `f`: hex SHA-256 of its path, code, message and occurrence.
    pub fn of(&mut self, f: &Located) -> String {
        let mut h = Sha256::new();
        for part in [f.path.as_str(), f.code, f.message.as_str()] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        let base: [u8; 32] = h.clone().finalize().into();
        let n = self.seen.entry(base).or_default();
        h.update(n.to_string().as_bytes());
        *n += 1;
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// One issue.
pub fn issue(f: &Located, fingerprint: String) -> Value {
    let mut description = f.message.clone();
    if let Some(fix) = f.fixes.iter().find(|x| x.certain) {
        description.push_str(&format!(" Fix: {}", fix.title));
    }
    json!({
        "description": description,
        "check_name": f.code,
        "fingerprint": fingerprint,
        "severity": severity(f.severity),
        "location": {
            "path": f.path,
            "positions": {
                "begin": {"line": f.span.start.line + 1, "column": f.span.start.char_col + 1},
                "end": {"line": f.span.end.line + 1, "column": f.span.end.char_col + 1},
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Pos, Span};
    use super::*;

    #[test]
    fn fingerprints_are_stable_and_unique() {
        let at = |line| Pos {
            line,
            char_col: 3,
            utf16_col: 3,
        };
        let f = |line| Located {
            path: "a.md".into(),
            span: Span {
                start: at(line),
                end: at(line),
            },
            code: "unknown-filter",
            severity: Severity::Error,
            message: "m".into(),
            fixes: vec![],
        };
        let mut one = Fingerprints::default();
        let (a, b) = (one.of(&f(3)), one.of(&f(9)));
        assert_ne!(a, b, "the second identical finding gets its own");
        let mut moved = Fingerprints::default();
        assert_eq!(moved.of(&f(30)), a, "lines added above keep it");
        let v = issue(&f(3), a);
        assert_eq!(v["severity"], "major");
        assert_eq!(v["location"]["positions"]["begin"]["line"], 4);
        assert_eq!(v["location"]["positions"]["begin"]["column"], 4);
    }
}
