//! `check --fix` and `check --diff`: the certain fixes of a file — exactly those the editor's
//! fix-all applies ([`crate::fix`]) — applied to its text, then either written back in place
//! (`--fix`) or shown as a unified diff (`--diff`, which changes nothing).
//!
//! Fix-all leaves a fix that overlaps one it took for a later round, so the rounds repeat on the
//! fixed text until none is left (at most [`MAX_ROUNDS`]). A file is written whole or not at
//! all: the new text goes to a temporary file in the same folder, gets the old file's
//! permissions, and is renamed over it. A file whose bytes, length, modification time or inode
//! differ from what was read at the start is left alone ([`write_if_unchanged`]).

use crate::analysis::{analyze, Knowledge};
use crate::extract::HostKind;
use crate::finding::Finding;
use crate::lines::LineIndex;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::SystemTime;

/// Fix-all rounds per file; one is the rule (tests/cli_fix.rs checks that nothing is left), the
/// rest are for fixes that overlapped.
pub const MAX_ROUNDS: usize = 4;

/// One fix applied: where (in the text of its round; round 1 is the file as read), its code and
/// its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// 0-based line.
    pub line: u32,
    /// 0-based column in characters.
    pub char_col: u32,
    /// The finding's code, e.g. `unknown-filter`.
    pub code: &'static str,
    /// The fix's title, e.g. "Replace `device_role_id` with `role_id`".
    pub title: String,
}

/// The fixed text of a file and the fixes that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub fixed: String,
    pub changes: Vec<Change>,
}

/// Runs fix-all rounds on `text`: each round checks the text, keeps the findings `report`
/// leaves (severity overrides, `off` codes), takes their certain fixes as fix-all does and
/// applies them.
pub fn plan(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    report: &dyn Fn(Vec<Finding>) -> Vec<Finding>,
) -> Planned {
    let mut current = text.to_string();
    let mut changes = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let findings = report(analyze(&current, kind, knowledge));
        let taken = crate::fix::certain_fixes(&findings);
        if taken.is_empty() {
            break;
        }
        let lines = LineIndex::new(&current);
        let mut cursor = crate::lines::Cursor::new(&current, &lines);
        for (f, fix) in &taken {
            let (line, char_col, _) = cursor.position(f.range.start);
            changes.push(Change {
                line,
                char_col,
                code: f.code,
                title: fix.title.clone(),
            });
        }
        let edits: Vec<_> = taken
            .iter()
            .flat_map(|(_, fix)| fix.edits.iter().cloned())
            .collect();
        let next = crate::fix::apply(&current, &edits);
        if next == current {
            break;
        }
        current = next;
    }
    Planned {
        fixed: current,
        changes,
    }
}

/// A unified diff of `old` → `new` with 3 lines of context, headed `--- a/<path>` /
/// `+++ b/<path>` for a relative path (apply with `git apply` or `patch -p1`) and the path as is
/// for an absolute one. Empty when the texts are equal.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let (a, b) = if path.starts_with('/') {
        (path.to_string(), path.to_string())
    } else {
        (format!("a/{path}"), format!("b/{path}"))
    };
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = format!("--- {a}\n+++ {b}\n");
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        // similar 2.7.0's Myers ops can give an insertion after a run of equal lines the old
        // index before that run, and its hunk header counts the old side from the last op:
        // one line short (`git apply` refuses the patch). The header is counted here from
        // every op's length; the lines are similar's.
        let ops = hunk.ops();
        let count = |side: fn(&similar::DiffOp) -> std::ops::Range<usize>| {
            let start = ops.first().map_or(0, |o| side(o).start);
            (start, ops.iter().map(|o| side(o).len()).sum::<usize>())
        };
        let range = |(start, len): (usize, usize)| match len {
            1 => format!("{}", start + 1),
            0 => format!("{start},0"),
            n => format!("{},{n}", start + 1),
        };
        let body = hunk.to_string();
        let lines = body.split_once('\n').map_or("", |(_, rest)| rest);
        out.push_str(&format!(
            "@@ -{} +{} @@\n{lines}",
            range(count(similar::DiffOp::old_range)),
            range(count(similar::DiffOp::new_range))
        ));
    }
    out
}

/// What was read of a file at the start of the run, to tell whether it changed since: its
/// bytes and, from the same open file, its modification time, length and (Unix) device and
/// inode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadAt {
    pub bytes: Vec<u8>,
    pub modified: Option<SystemTime>,
    /// Length in bytes when read.
    pub len: u64,
    /// `(device, inode)` on Unix; `None` elsewhere.
    pub id: Option<(u64, u64)>,
}

impl ReadAt {
    /// Reads the file at `path` through one open handle (the bytes and the metadata are of the
    /// same file). The caller checks first that `path` is a regular file: opening a FIFO would
    /// block.
    pub fn read(path: &Path) -> std::io::Result<ReadAt> {
        let mut file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes)?;
        Ok(ReadAt {
            bytes,
            modified: meta.modified().ok(),
            len: meta.len(),
            id: file_id(&meta),
        })
    }

    /// True when `meta` (and `bytes`, read from the same file) are what was read.
    fn same(&self, meta: &std::fs::Metadata, bytes: &[u8]) -> bool {
        meta.is_file()
            && meta.len() == self.len
            && meta.modified().ok() == self.modified
            && (self.id.is_none() || file_id(meta) == self.id)
            && bytes == self.bytes.as_slice()
    }
}

/// `(device, inode)` of a file on Unix.
fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The whole content of an open file, read from its start.
fn content(file: &mut std::fs::File) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Why a fixed file was not written.
#[derive(Debug)]
pub enum WriteError {
    /// Its bytes, length, modification time or (Unix) inode differ from what was read at the
    /// start: it was edited, or replaced, during the run.
    ChangedOnDisk,
    /// The file has other hard links (the count): replacing it would cut them off.
    HardLinks(u64),
    /// The file belongs to another user or group that the new file cannot be given.
    Owner,
    /// Reading, writing or renaming failed (the file is as it was).
    Io(std::io::Error),
    /// An edit landed in the file during the rename itself and was put back, but the file was
    /// written again before that finished: the path holds the text of that last write; the
    /// edit that landed during the rename is in `kept`.
    WrittenTwice { kept: std::path::PathBuf },
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::ChangedOnDisk => write!(f, "changed on disk during the run; not fixed"),
            WriteError::HardLinks(n) => write!(
                f,
                "has {n} hard links; not fixed (replacing it would cut the other links off): fix it with --diff and patch"
            ),
            WriteError::Owner => write!(
                f,
                "belongs to another user or group; not fixed (the fixed file could not keep its owner)"
            ),
            WriteError::Io(e) => write!(f, "not fixed: {e}"),
            WriteError::WrittenTwice { kept } => write!(
                f,
                "written by another program twice while it was being fixed; not fixed: an edit made during the fix is kept in {}",
                kept.display()
            ),
        }
    }
}

/// A temporary file beside `target` holding `bytes`, synced, with the mode and owner of
/// `meta` (the file it replaces).
fn temp_like(
    dir: &Path,
    bytes: &[u8],
    meta: &std::fs::Metadata,
) -> Result<tempfile::NamedTempFile, WriteError> {
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(WriteError::Io)?;
    tmp.write_all(bytes).map_err(WriteError::Io)?;
    tmp.as_file().sync_all().map_err(WriteError::Io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mine = tmp.as_file().metadata().map_err(WriteError::Io)?;
        if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid())
            && std::os::unix::fs::fchown(tmp.as_file(), Some(meta.uid()), Some(meta.gid())).is_err()
        {
            return Err(WriteError::Owner);
        }
    }
    tmp.as_file()
        .set_permissions(meta.permissions())
        .map_err(WriteError::Io)?;
    Ok(tmp)
}

/// Name prefix of the temporary files `--fix` writes beside the files it fixes.
pub const TEMP_PREFIX: &str = ".netbox-lsp-fix-";

/// Replaces the file at `path` with `new` when it still holds what `read` saw: the text goes to
/// a temporary file in the same folder (of the symlink's target, so a link stays a link), which
/// gets the old file's permissions and owner and is renamed over it, so a reader sees the old
/// file or the new one, never a part. A file with other hard links, or whose owner the new
/// file cannot take, is left alone.
///
/// An edit made during the run is never overwritten, as far as a rename allows: the file is
/// held open from the first check on; just before the rename its path must still name that
/// file (an editor that saves by renaming gives a new inode) and its length, modification time
/// and bytes must be those read; else [`WriteError::ChangedOnDisk`]. An edit that lands in the
/// microseconds between that last look and the rename goes to the replaced file, which is
/// still open: it is looked at once more after the rename, and if it changed, its text is put
/// back at the path (the fix is not applied) and the error is `ChangedOnDisk` too.
pub fn write_if_unchanged(path: &Path, read: &ReadAt, new: &str) -> Result<(), WriteError> {
    let target = std::fs::canonicalize(path).map_err(WriteError::Io)?;
    let mut held = std::fs::File::open(&target).map_err(WriteError::Io)?;
    let meta = held.metadata().map_err(WriteError::Io)?;
    if !read.same(&meta, &content(&mut held).map_err(WriteError::Io)?) {
        return Err(WriteError::ChangedOnDisk);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(WriteError::HardLinks(meta.nlink()));
        }
    }
    // The rename below needs only a writable folder: a file the user may not write (read-only
    // for them) would be replaced all the same. Opening it for writing (nothing is written)
    // asks the file's own permissions first.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&target)
        .map_err(WriteError::Io)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    // From here on a temporary file exists: an interrupt waits until it is renamed or removed.
    let _writing = super::interrupt::writing();
    let tmp = temp_like(dir, new.as_bytes(), &meta)?;
    // The last look, as close to the rename as it can be: the path still names the held file,
    // which still holds what was read.
    let unchanged = |held: &mut std::fs::File| -> Result<bool, WriteError> {
        let at_path = std::fs::symlink_metadata(&target).map_err(WriteError::Io)?;
        let now = held.metadata().map_err(WriteError::Io)?;
        Ok((read.id.is_none() || file_id(&at_path) == read.id)
            && read.same(&now, &content(held).map_err(WriteError::Io)?))
    };
    if !unchanged(&mut held)? {
        return Err(WriteError::ChangedOnDisk);
    }
    let placed = tmp.persist(&target).map_err(|e| WriteError::Io(e.error))?;
    // An edit that landed between the last look and the rename went to the replaced file.
    let now = held.metadata().map_err(WriteError::Io)?;
    let late = content(&mut held).map_err(WriteError::Io)?;
    if read.same(&now, &late) {
        return Ok(());
    }
    put_back(&target, dir, &late, &meta, placed, new.as_bytes())
}

/// Puts `late` (the replaced file's text, edited during the rename) back at `target`, unless
/// the fixed file placed there (`placed`, holding `fixed`) was itself written since: then the
/// late edit is kept beside it and [`WriteError::WrittenTwice`] names it.
fn put_back(
    target: &Path,
    dir: &Path,
    late: &[u8],
    meta: &std::fs::Metadata,
    mut placed: std::fs::File,
    fixed: &[u8],
) -> Result<(), WriteError> {
    let back = temp_like(dir, late, meta)?;
    let untouched = content(&mut placed).is_ok_and(|b| b == fixed)
        && std::fs::symlink_metadata(target)
            .ok()
            .zip(placed.metadata().ok())
            .is_some_and(|(a, b)| file_id(&a) == file_id(&b));
    if untouched {
        back.persist(target).map_err(|e| WriteError::Io(e.error))?;
        return Err(WriteError::ChangedOnDisk);
    }
    let (_, kept) = back.keep().map_err(|e| WriteError::Io(e.error))?;
    Err(WriteError::WrittenTwice { kept })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_at(path: &Path) -> ReadAt {
        ReadAt::read(path).unwrap()
    }

    #[test]
    fn writes_whole_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "old\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        let r = read_at(&p);
        write_if_unchanged(&p, &r, "new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o640);
        }
        // No temporary file is left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn leaves_a_file_changed_since_it_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "old\n").unwrap();
        let r = read_at(&p);
        // Someone else writes the file (same length, so only the bytes tell).
        std::fs::write(&p, "oLd\n").unwrap();
        assert!(matches!(
            write_if_unchanged(&p, &r, "new\n"),
            Err(WriteError::ChangedOnDisk)
        ));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "oLd\n");
        // Same bytes, other modification time: left alone too.
        let r2 = ReadAt {
            modified: Some(SystemTime::UNIX_EPOCH),
            ..read_at(&p)
        };
        assert!(matches!(
            write_if_unchanged(&p, &r2, "new\n"),
            Err(WriteError::ChangedOnDisk)
        ));
    }

    /// A file with another hard link is left as it was (both names keep the same text); the
    /// fixed file keeps its mode and, when the writer may give it (root), its owner.
    #[cfg(unix)]
    #[test]
    fn hard_links_mode_and_owner_are_kept() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "old\n").unwrap();
        std::fs::hard_link(&p, dir.path().join("b.md")).unwrap();
        let err = write_if_unchanged(&p, &read_at(&p), "new\n").unwrap_err();
        assert!(matches!(err, WriteError::HardLinks(2)), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("b.md")).unwrap(),
            "old\n"
        );
        std::fs::remove_file(dir.path().join("b.md")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        let root = std::fs::metadata(dir.path()).unwrap().uid() == 0;
        if root {
            std::os::unix::fs::chown(&p, Some(4321), Some(4322)).unwrap();
        } else {
            eprintln!("NOTE: hard_links_mode_and_owner_are_kept checks the owner only as root");
        }
        write_if_unchanged(&p, &read_at(&p), "new\n").unwrap();
        let m = std::fs::metadata(&p).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new\n");
        assert_eq!(m.permissions().mode() & 0o777, 0o640);
        if root {
            assert_eq!((m.uid(), m.gid()), (4321, 4322));
        }
    }

    #[cfg(unix)]
    /// A file the user may not write is left as it was, even in a folder they may write (the
    /// rename would replace it). Root may write any file: the test needs another user.
    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_not_replaced() {
        use std::os::unix::fs::PermissionsExt;
        let uid = std::process::Command::new("id").arg("-u").output();
        if uid.is_ok_and(|o| o.stdout.starts_with(b"0\n")) {
            eprintln!(
                "SKIPPED: a_read_only_file_is_not_replaced runs as root, who may write any file"
            );
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
        let read = read_at(&p);
        let err = write_if_unchanged(&p, &read, "new").unwrap_err();
        assert!(matches!(err, WriteError::Io(_)), "{err}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o444
        );
    }

    #[test]
    fn a_symlink_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.md");
        let link = dir.path().join("link.md");
        std::fs::write(&real, "old\n").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let r = read_at(&link);
        write_if_unchanged(&link, &r, "new\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new\n");
    }

    #[test]
    fn diff_headers() {
        let d = unified_diff("x/a.md", "a\nb\n", "a\nc\n");
        assert!(
            d.starts_with("--- a/x/a.md\n+++ b/x/a.md\n@@ -1,2 +1,2 @@\n"),
            "{d}"
        );
        assert!(d.contains("-b\n+c\n"), "{d}");
        assert_eq!(unified_diff("x", "same", "same"), "");
        assert!(unified_diff("/t/a.md", "a", "b").starts_with("--- /t/a.md\n+++ /t/a.md\n"));
    }
}
