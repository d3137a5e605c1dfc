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
        String::from_utf8_lossy(&self.hex(f)).into_owned()
    }

    /// [`Fingerprints::of`] as its 64 ASCII bytes (no `String` per finding).
    pub fn hex(&mut self, f: &Located) -> [u8; 64] {
        let mut h = Sha256::new();
        for part in [&*f.path, f.code, f.message.as_str()] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        let base: [u8; 32] = h.clone().finalize().into();
        let n = self.seen.entry(base).or_default();
        h.update(itoa::Buffer::new().format(*n).as_bytes());
        *n += 1;
        // Lower-case hex by a table: a `format!` per byte was a third of a GitLab report's
        // CPU on 10,000 findings.
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [0u8; 64];
        for (i, b) in h.finalize().into_iter().enumerate() {
            hex[2 * i] = HEX[usize::from(b >> 4)];
            hex[2 * i + 1] = HEX[usize::from(b & 0xf)];
        }
        hex
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

/// Writes [`issue`] pretty-printed as an element of the report's array (every line indented by
/// two spaces, the first one too): the same bytes as pretty-printing the `Value` so indented,
/// without building it (keys in sorted order, as `Map` holds them).
pub fn write_issue(
    out: &mut impl std::io::Write,
    f: &Located,
    fingerprint: &str,
) -> std::io::Result<()> {
    use super::json::Direct;
    fn position<W: std::io::Write>(
        d: &mut Direct<'_, W>,
        first: bool,
        key: &str,
        p: &super::Pos,
    ) -> std::io::Result<()> {
        d.key(first, key)?;
        d.open(b"{")?;
        d.num(true, "column", Some(u64::from(p.char_col) + 1))?;
        d.num(false, "line", Some(u64::from(p.line) + 1))?;
        d.close(b"}")
    }
    // Written to memory first, then in one write.
    let mut buf = Vec::with_capacity(1024);
    buf.extend_from_slice(b"  ");
    let mut d = Direct::at(&mut buf, 1);
    d.open(b"{")?;
    d.str(true, "check_name", f.code)?;
    match f.fixes.iter().find(|x| x.certain) {
        Some(fix) => d.str(
            false,
            "description",
            &format!("{} Fix: {}", f.message, fix.title),
        )?,
        None => d.str(false, "description", &f.message)?,
    }
    d.str(false, "fingerprint", fingerprint)?;
    d.key(false, "location")?;
    d.open(b"{")?;
    d.str(true, "path", &f.path)?;
    d.key(false, "positions")?;
    d.open(b"{")?;
    position(&mut d, true, "begin", &f.span.start)?;
    position(&mut d, false, "end", &f.span.end)?;
    d.close(b"}")?;
    d.close(b"}")?;
    d.str(false, "severity", severity(f.severity))?;
    d.close(b"}")?;
    out.write_all(&buf)
}

/// Appends [`write_issue`]'s bytes to `b` (`fingerprint`: [`Fingerprints::hex`]), from the
/// lines that do not change written as constants, the room for them reserved once (the pretty
/// writer made ~60 small writes and a `String` for a description with a fix).
pub fn push_issue(b: &mut Vec<u8>, f: &Located, fingerprint: &[u8; 64]) {
    use super::json::{push_escaped, push_str};
    b.reserve(400 + f.message.len() + f.path.len());
    b.extend_from_slice(b"  {\n    \"check_name\": ");
    push_str(b, f.code);
    b.extend_from_slice(b",\n    \"description\": \"");
    push_escaped(b, &f.message);
    if let Some(fix) = f.fixes.iter().find(|x| x.certain) {
        // Escaping goes byte by byte: the escape of the joined text is the joined escapes.
        b.extend_from_slice(b" Fix: ");
        push_escaped(b, &fix.title);
    }
    b.extend_from_slice(b"\",\n    \"fingerprint\": \"");
    b.extend_from_slice(fingerprint);
    b.extend_from_slice(b"\",\n    \"location\": {\n      \"path\": ");
    push_str(b, &f.path);
    let one = |v: u32| u64::from(v) + 1;
    let n = super::json::push_u64;
    b.extend_from_slice(b",\n      \"positions\": {\n        \"begin\": {\n          \"column\": ");
    n(b, one(f.span.start.char_col));
    b.extend_from_slice(b",\n          \"line\": ");
    n(b, one(f.span.start.line));
    b.extend_from_slice(b"\n        },\n        \"end\": {\n          \"column\": ");
    n(b, one(f.span.end.char_col));
    b.extend_from_slice(b",\n          \"line\": ");
    n(b, one(f.span.end.line));
    b.extend_from_slice(b"\n        }\n      }\n    },\n    \"severity\": \"");
    b.extend_from_slice(severity(f.severity).as_bytes());
    b.extend_from_slice(b"\"\n  }");
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
            path_bytes: None,
            span: Span {
                start: at(line),
                end: at(line),
            },
            code: "unknown-filter",
            severity: Severity::Error,
            message: "m".into(),
            fixes: vec![],
            proof: vec![],
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
        // Written directly, the same bytes as the `Value` pretty-printed and indented, with
        // and without a certain fix in the description.
        let mut fixed = f(5);
        fixed.message = "a \"quoted\"\tmessage".into();
        fixed.fixes = vec![super::super::ResolvedFix {
            releases: vec![],
            title: "Replace `x`".into(),
            certain: true,
            edits: vec![],
        }];
        for (f, print) in [(f(3), "0a"), (fixed, "1b")] {
            let mut out = Vec::new();
            write_issue(&mut out, &f, print).unwrap();
            let pretty = serde_json::to_string_pretty(&issue(&f, print.into())).unwrap();
            let indented: Vec<String> = pretty.split('\n').map(|l| format!("  {l}")).collect();
            assert_eq!(String::from_utf8(out).unwrap(), indented.join("\n"));
        }
        // The flat writer: the same bytes, the fingerprint as hex bytes, for every severity,
        // an uncertain fix (not in the description) and a certain one with escapes.
        let mut prints = Fingerprints::default();
        let mut again = Fingerprints::default();
        let mut uncertain = f(7);
        uncertain.severity = Severity::Hint;
        uncertain.fixes = vec![super::super::ResolvedFix {
            releases: vec![],
            title: "Maybe".into(),
            certain: false,
            edits: vec![],
        }];
        let mut escaped = f(8);
        escaped.severity = Severity::Warning;
        escaped.path = "d/\"é\".md".into();
        escaped.fixes = vec![super::super::ResolvedFix {
            releases: vec![],
            title: "Use \\ and \u{1}".into(),
            certain: true,
            edits: vec![],
        }];
        for f in [f(3), f(3), uncertain, escaped] {
            let hex = prints.hex(&f);
            let print = again.of(&f);
            assert_eq!(hex.as_slice(), print.as_bytes());
            let mut want = Vec::new();
            write_issue(&mut want, &f, &print).unwrap();
            let mut got = b"x".to_vec();
            push_issue(&mut got, &f, &hex);
            assert_eq!(
                String::from_utf8(got[1..].to_vec()).unwrap(),
                String::from_utf8(want).unwrap()
            );
        }
    }
}
