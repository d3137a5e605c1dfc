//! Temporary files this program writes beside an output and renames over it (the instance
//! cache, `index build`'s outputs): a process killed between the two (SIGKILL, a power cut)
//! cannot remove its own, so the next write into the same folder removes those left behind
//! (issue 34: a killed cache build left its temporary file).
//!
//! Only names this program makes are touched: `prefix` followed by exactly the 6 letters and
//! digits `tempfile` adds, of a regular file not modified for [`STALE`] (a write in progress
//! elsewhere takes seconds).

use std::path::Path;
use std::time::Duration;

/// Age from which a temporary file is taken as left behind.
pub const STALE: Duration = Duration::from_secs(10 * 60);

/// Removes the temporary files named `prefix` + 6 letters or digits in `dir` that are regular
/// files older than [`STALE`]; returns how many. Errors (an unreadable folder, a file removed
/// meanwhile) are ignored: the sweep is a courtesy, never a reason for a write to fail.
pub fn sweep(dir: &Path, prefix: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        if rest.len() != 6 || !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age >= STALE);
        if meta.is_file() && old && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stale temporary name of ours is removed; a fresh one (a write in progress), a name
    /// that only starts like ours, and a folder are kept.
    #[test]
    fn removes_only_stale_temporary_files_of_ours() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::now() - STALE - Duration::from_secs(60);
        let make = |name: &str, stale: bool| {
            let p = dir.path().join(name);
            std::fs::write(&p, "x").unwrap();
            if stale {
                std::fs::File::options()
                    .write(true)
                    .open(&p)
                    .unwrap()
                    .set_modified(old)
                    .unwrap();
            }
            p
        };
        let left = make(".netbox-lsp-aB3dE9", true);
        let fresh = make(".netbox-lsp-Zz9yX8", false);
        let other = make(".netbox-lsp-notes.txt", true);
        let longer = make(".netbox-lsp-aB3dE9x", true);
        std::fs::create_dir(dir.path().join(".netbox-lsp-qwerty")).unwrap();
        assert_eq!(sweep(dir.path(), ".netbox-lsp-"), 1);
        assert!(!left.exists());
        assert!(fresh.exists() && other.exists() && longer.exists());
        assert!(dir.path().join(".netbox-lsp-qwerty").is_dir());
    }
}
