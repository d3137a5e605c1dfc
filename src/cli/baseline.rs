//! `check --baseline FILE`: adopting the tool in a repository that already has findings.
//! `--update-baseline` records every finding of the checked files; later runs report only
//! findings the baseline does not hold, and say (or with `--baseline-strict` fail) when it
//! holds findings that are gone, so the baseline only shrinks (a ratchet).
//!
//! An entry is keyed by the file's path (relative to the baseline's folder, `/`-separated),
//! the code, the finding's own text and the normalised text of the call it is in (the REST
//! call's host range; for a finding outside one, e.g. in a GraphQL document, its line), with
//! a count for identical ones. Line numbers are no part of the key: an edit elsewhere in the
//! file keeps every entry; an edit of the call makes its findings new. Text is normalised by
//! collapsing whitespace; a call longer than [`CALL_CAP`] bytes is kept as its first part and
//! a hash of the whole.
//!
//! The file is JSON, sorted, one entry per key, so that its diff in review says what changed:
//! `{"netbox-lsp-baseline": 1, "findings": [{"path", "code", "at", "call", "count"}]}`.

use crate::finding::Finding;
use crate::lines::LineIndex;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The format version written in the file (`"netbox-lsp-baseline": 1`).
pub const FORMAT: u64 = 1;

/// Longest call text kept whole in a key (bytes, after normalising).
pub const CALL_CAP: usize = 300;

/// One finding's key (without the path, which the map is keyed by).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub code: String,
    /// The finding's own text (a filter key, a value), normalised.
    pub at: String,
    /// The call's text, normalised (capped).
    pub call: String,
}

/// Counts per key, per path.
pub type Entries = BTreeMap<String, BTreeMap<Key, usize>>;

/// A baseline read from its file.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// The file, as named.
    pub path: PathBuf,
    /// Its folder, absolute: paths in it are relative to this.
    pub root: PathBuf,
    pub entries: Entries,
}

/// Whitespace runs as one space, trimmed.
fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// [`normalise`], capped at [`CALL_CAP`] bytes (the first part and a hash of the whole).
fn normalise_capped(s: &str) -> String {
    let n = normalise(s);
    if n.len() <= CALL_CAP {
        return n;
    }
    let mut cut = 200;
    while !n.is_char_boundary(cut) {
        cut -= 1;
    }
    let hash = Sha256::digest(n.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}… sha256:{hex}", &n[..cut])
}

/// The keys of `findings` in `text`: each finding's call is the innermost of `calls` (REST
/// call host ranges) that holds its start, else its line.
pub fn keys(text: &str, findings: &[Finding], calls: &[Range<usize>]) -> Vec<Key> {
    let mut sorted: Vec<&Range<usize>> = calls.iter().collect();
    sorted.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let lines = LineIndex::new(text);
    findings
        .iter()
        .map(|f| {
            let s = f.range.start.min(text.len());
            // The last call starting at or before the finding that still holds it (calls
            // rarely nest: a few steps back at most).
            let i = sorted.partition_point(|r| r.start <= s);
            let call = sorted[..i]
                .iter()
                .rev()
                .take(8)
                .find(|r| r.contains(&s) || (r.start == s && r.end == s))
                .map(|r| (*r).clone())
                .unwrap_or_else(|| lines.line_range(lines.line_of(s)));
            let end = f.range.end.clamp(s, text.len());
            Key {
                code: f.code.to_string(),
                at: normalise_capped(text.get(s..end).unwrap_or("")),
                call: normalise_capped(text.get(call).unwrap_or("")),
            }
        })
        .collect()
}

impl Baseline {
    /// Reads a baseline file. A missing file is an error unless `missing_ok` (the first
    /// `--update-baseline`); a file that is not a baseline says so.
    pub fn read(path: &Path, missing_ok: bool) -> Result<Baseline, String> {
        let root = real(
            path.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        );
        let mut b = Baseline {
            path: path.to_path_buf(),
            root,
            entries: Entries::new(),
        };
        if missing_ok && std::fs::symlink_metadata(path).is_err() {
            return Ok(b);
        }
        let text = crate::safe_read::read_to_string(path, crate::safe_read::FileKind::Baseline)
            .map_err(|e| {
                format!(
                    "--baseline {}: {e}{}",
                    path.display(),
                    if missing_ok {
                        ""
                    } else {
                        " (write it with --update-baseline)"
                    }
                )
            })?;
        let bad = |why: &str| {
            format!(
                "--baseline {}: not a netbox-lsp baseline ({why})",
                path.display()
            )
        };
        let v: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
        match v.get("netbox-lsp-baseline").and_then(Value::as_u64) {
            Some(FORMAT) => {}
            Some(n) => return Err(bad(&format!("format {n}; this netbox-lsp writes {FORMAT}"))),
            None => return Err(bad("no \"netbox-lsp-baseline\" key")),
        }
        let list = v
            .get("findings")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no \"findings\" list"))?;
        for e in list {
            let s = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(p), Some(code), Some(at), Some(call)) =
                (s("path"), s("code"), s("at"), s("call"))
            else {
                return Err(bad(&format!(
                    "an entry without path, code, at and call: {e}"
                )));
            };
            let count = e.get("count").and_then(Value::as_u64).unwrap_or(1) as usize;
            *b.entries
                .entry(p)
                .or_default()
                .entry(Key { code, at, call })
                .or_default() += count;
        }
        Ok(b)
    }

    /// The key path of a checked file: relative to the baseline's folder when inside it
    /// (`/`-separated), else absolute.
    pub fn key_path(&self, file: &Path) -> String {
        let abs = match (file.parent(), file.file_name()) {
            (Some(dir), Some(name)) => real(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            })
            .join(name),
            _ => real(file),
        };
        let rel = abs.strip_prefix(&self.root).unwrap_or(&abs);
        super::paths::display_path(rel)
    }

    /// Splits one file's findings (with their `keys`) into those to report and the number the
    /// baseline holds; the counts it used go to `used`.
    pub fn filter(
        &self,
        path: &str,
        findings: Vec<Finding>,
        keys: &[Key],
        used: &mut BTreeMap<Key, usize>,
    ) -> (Vec<Finding>, usize) {
        let Some(have) = self.entries.get(path) else {
            return (findings, 0);
        };
        let mut kept = Vec::new();
        let mut held = 0;
        for (f, k) in findings.into_iter().zip(keys) {
            let n = used.entry(k.clone()).or_default();
            if have.get(k).is_some_and(|&max| *n < max) {
                *n += 1;
                held += 1;
            } else {
                kept.push(f);
            }
        }
        used.retain(|_, n| *n > 0);
        (kept, held)
    }

    /// Entries of the checked files (`checked`: key paths) the run did not meet: gone or
    /// changed findings (`used`: the counts met per path).
    pub fn stale(&self, checked: &[String], used: &Entries) -> usize {
        checked
            .iter()
            .filter_map(|p| Some((p, self.entries.get(p)?)))
            .map(|(p, have)| {
                have.iter()
                    .map(|(k, n)| {
                        let met = used.get(p).and_then(|u| u.get(k)).copied().unwrap_or(0);
                        n.saturating_sub(met)
                    })
                    .sum::<usize>()
            })
            .sum()
    }

    /// The baseline after a run that met `found` (every finding's key, per checked path): the
    /// checked files' entries replaced, the others kept while their file still exists.
    pub fn updated(&self, checked: &[String], found: Entries) -> Entries {
        let mut out: Entries = self
            .entries
            .iter()
            .filter(|(p, _)| !checked.contains(p) && self.root.join(p).exists())
            .map(|(p, e)| (p.clone(), e.clone()))
            .collect();
        for (p, e) in found {
            if !e.is_empty() {
                out.insert(p, e);
            }
        }
        out
    }
}

/// `p` with links and `..` resolved when it exists, else made absolute as written.
fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p)
        .or_else(|_| std::path::absolute(p))
        .unwrap_or_else(|_| p.to_path_buf())
}

/// The file text of `entries`: sorted, pretty-printed, a final newline.
pub fn render(entries: &Entries) -> String {
    let findings: Vec<Value> = entries
        .iter()
        .flat_map(|(p, keys)| {
            keys.iter().map(move |(k, n)| {
                json!({"path": p, "code": k.code, "at": k.at, "call": k.call, "count": n})
            })
        })
        .collect();
    let v = json!({"netbox-lsp-baseline": FORMAT, "findings": findings});
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

/// Writes `entries` to `path` whole (a temporary file beside it, renamed over it).
pub fn write(path: &Path, entries: &Entries) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| format!("--update-baseline {}: {e}", path.display()))?;
    std::io::Write::write_all(&mut tmp, render(entries).as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| format!("--update-baseline {}: {e}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| format!("--update-baseline {}: {}", path.display(), e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn at(text: &str, needle: &str, code: &'static str) -> Finding {
        let i = text.find(needle).unwrap();
        Finding::new(i..i + needle.len(), code, Severity::Error, "m")
    }

    /// The key holds the call's text, not its line: lines added above keep it; the call's
    /// own change makes it new; two identical findings count twice.
    #[test]
    fn keys_follow_the_call_not_the_line() {
        let a = "x = 1\nnb.dcim.devices.filter(device_role_id=3)\n";
        let b = "# new\n\nx = 1\nnb.dcim.devices.filter(device_role_id=3)\n";
        let call = |t: &str| {
            let s = t.find("nb.").unwrap();
            let call: Range<usize> = s..t.rfind(')').unwrap() + 1;
            vec![call]
        };
        let ka = keys(a, &[at(a, "device_role_id", "unknown-filter")], &call(a));
        let kb = keys(b, &[at(b, "device_role_id", "unknown-filter")], &call(b));
        assert_eq!(ka, kb);
        assert_eq!(ka[0].call, "nb.dcim.devices.filter(device_role_id=3)");
        assert_eq!(ka[0].at, "device_role_id");
        let c = "nb.dcim.devices.filter(device_role_id=3,  name='x')\n";
        let kc = keys(c, &[at(c, "device_role_id", "unknown-filter")], &call(c));
        assert_ne!(ka, kc, "an edit of the call makes its finding new");
        // Outside a call: the finding's line.
        let g = "{ device_list(filter: {}) { id } }\n";
        let kg = keys(g, &[at(g, "filter", "graphql-filter-argument")], &[]);
        assert_eq!(kg[0].call, "{ device_list(filter: {}) { id } }");
        // A long call is capped with a hash of the whole.
        let long = format!("nb.dcim.devices.filter(name='{}')", "a".repeat(500));
        let whole: Range<usize> = 0..long.len();
        let kl = keys(
            &long,
            &[at(&long, "name", "x")],
            std::slice::from_ref(&whole),
        );
        assert!(
            kl[0].call.len() < 300 && kl[0].call.contains("sha256:"),
            "{}",
            kl[0].call
        );
    }

    #[test]
    fn filter_counts_and_stale_entries() {
        let k = |c: &str| Key {
            code: "unknown-filter".into(),
            at: c.into(),
            call: "call".into(),
        };
        let mut b = Baseline::default();
        b.entries
            .entry("a.md".into())
            .or_default()
            .extend([(k("x"), 2), (k("gone"), 1)]);
        let f = || Finding::new(0..1, "unknown-filter", Severity::Error, "m");
        let mut used = BTreeMap::new();
        let (kept, held) = b.filter(
            "a.md",
            vec![f(), f(), f()],
            &[k("x"), k("x"), k("x")],
            &mut used,
        );
        assert_eq!((kept.len(), held), (1, 2), "the third `x` is new");
        let mut all = Entries::new();
        all.insert("a.md".into(), used);
        assert_eq!(b.stale(&["a.md".into()], &all), 1, "`gone` is stale");
        assert_eq!(b.stale(&[], &all), 0, "files not checked are never stale");
        let text = render(&b.entries);
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("baseline.json");
        std::fs::write(&p, &text).unwrap();
        let back = Baseline::read(&p, false).unwrap();
        assert_eq!(back.entries, b.entries);
        assert!(Baseline::read(&tmp.path().join("none.json"), false)
            .unwrap_err()
            .contains("--update-baseline"));
        std::fs::write(&p, "{\"findings\": []}").unwrap();
        assert!(Baseline::read(&p, false)
            .unwrap_err()
            .contains("not a netbox-lsp baseline"));
    }
}
