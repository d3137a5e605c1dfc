//! `check --fix` and `check --diff`: the certain fixes of a file — exactly those the editor's
//! fix-all applies ([`crate::fix`]) — applied to its text, then either written back in place
//! (`--fix`) or shown as a unified diff (`--diff`, which changes nothing).
//!
//! Fix-all leaves a fix that overlaps one it took for a later round, so the rounds repeat on the
//! fixed text until none is left (at most [`MAX_ROUNDS`]). A file is written whole or not at
//! all: the new text goes to a temporary file in the same folder, gets the old file's
//! permissions, and is renamed over it. A file whose bytes, length, modification time or inode
//! differ from what was read at the start is left alone ([`write_if_unchanged`]).

use super::place::{file_id, Place, PlaceError, Temp};
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
    plan_with(text, &|t: &str| report(analyze(t, kind, knowledge)))
}

/// [`plan`] with the findings of each round from `find` (the text of that round in, the
/// findings to fix out): `check --upgrade-to --fix` fixes the upgrade findings this way.
pub fn plan_with(text: &str, find: &dyn Fn(&str) -> Vec<Finding>) -> Planned {
    let mut current = text.to_string();
    let mut changes = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let findings = find(&current);
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
    let (a, b) = (
        super::output::escape::diff_path(&a),
        super::output::escape::diff_path(&b),
    );
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
        ReadAt::from_file(std::fs::File::open(path)?)
    }

    /// Reads the file of `place` (a symbolic link in its place is refused; a FIFO never
    /// blocks the open and is refused as not a regular file).
    pub fn read_in(place: &Place) -> Result<ReadAt, WriteError> {
        let file = place.open(false).map_err(WriteError::from)?;
        if !file.metadata().map_err(WriteError::Io)?.is_file() {
            return Err(WriteError::Io(std::io::Error::other("not a regular file")));
        }
        ReadAt::from_file(file).map_err(WriteError::Io)
    }

    fn from_file(mut file: std::fs::File) -> std::io::Result<ReadAt> {
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

/// The whole content of an open file, read from its start.
fn content(mut file: &std::fs::File) -> std::io::Result<Vec<u8>> {
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
    /// An extended attribute of the file (its name: an ACL, an SELinux label, a capability)
    /// that the new file cannot be given.
    Attribute(String),
    /// Another program holds the file open for writing (Linux, where the lease of
    /// [`super::lease`] tells): it may write at any moment, so it is left alone.
    OpenForWriting,
    /// The file or a folder on its path became a symbolic link, or a folder was moved, during
    /// the run: writing would leave the named paths.
    Outside(PlaceError),
    /// The run was interrupted before this file was written.
    Interrupted,
    /// Reading, writing or renaming failed (the file is as it was).
    Io(std::io::Error),
    /// An edit landed in the file during the rename itself and was put back, but the file was
    /// written again before that finished: the path holds the text of that last write; the
    /// edit that landed during the rename is in `kept`.
    WrittenTwice { kept: std::path::PathBuf },
}

impl From<PlaceError> for WriteError {
    fn from(e: PlaceError) -> Self {
        match e {
            PlaceError::Io(e) => WriteError::Io(e),
            e => WriteError::Outside(e),
        }
    }
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
            WriteError::Attribute(name) => write!(
                f,
                "has the extended attribute {name:?}, which the fixed file could not be given; not fixed: fix it with --diff and patch"
            ),
            WriteError::OpenForWriting => write!(
                f,
                "is open for writing in another program; not fixed (close it there and run again)"
            ),
            WriteError::Outside(e) => write!(f, "{e}"),
            WriteError::Interrupted => write!(f, "not fixed: the run was interrupted"),
            WriteError::Io(e) => write!(f, "not fixed: {e}"),
            WriteError::WrittenTwice { kept } => write!(
                f,
                "written by another program twice while it was being fixed; not fixed: an edit made during the fix is kept in {}",
                kept.display()
            ),
        }
    }
}

/// A temporary file in `place`'s folder holding `bytes`, synced, with the owner, mode and
/// extended attributes of `held` (the file it replaces, whose metadata is `meta`).
fn temp_like<'p>(
    place: &'p Place,
    bytes: &[u8],
    meta: &std::fs::Metadata,
    held: &std::fs::File,
) -> Result<Temp<'p>, WriteError> {
    let mut tmp = place.temp(TEMP_PREFIX).map_err(WriteError::Io)?;
    tmp.file.write_all(bytes).map_err(WriteError::Io)?;
    tmp.file.sync_all().map_err(WriteError::Io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mine = tmp.file.metadata().map_err(WriteError::Io)?;
        if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid())
            && std::os::unix::fs::fchown(&tmp.file, Some(meta.uid()), Some(meta.gid())).is_err()
        {
            return Err(WriteError::Owner);
        }
    }
    tmp.file
        .set_permissions(meta.permissions())
        .map_err(WriteError::Io)?;
    #[cfg(target_os = "linux")]
    super::xattr::copy(held, &tmp.file).map_err(WriteError::Attribute)?;
    #[cfg(not(target_os = "linux"))]
    let _ = held;
    Ok(tmp)
}

/// Name prefix of the temporary files `--fix` writes beside the files it fixes (then 12
/// lowercase hex digits); a run removes those a killed run left ([`sweep_once`]).
pub const TEMP_PREFIX: &str = ".netbox-lsp-fix-";

/// Name prefix of a file that keeps an edit made while a file was being fixed
/// ([`WriteError::WrittenTwice`]): user data, never swept.
pub const KEPT_PREFIX: &str = ".netbox-lsp-kept-";

/// The folders swept in this run, by `(device, inode)`: each once, however many of its files
/// are fixed (a sweep lists the whole folder). Read on Linux only ([`sweep_once`]).
#[derive(Default)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub struct Swept(std::sync::Mutex<std::collections::HashSet<(u64, u64)>>);

/// Removes, once per folder and run, the temporary files of `--fix` that a killed run (SIGKILL
/// runs no handler) left in `place`'s folder ([`Place::sweep`]: our name shape only, through
/// the held folder, never while another run may be writing there). Linux only; elsewhere a
/// killed run's `.netbox-lsp-fix-*` file stays.
pub fn sweep_once(place: &Place, swept: &Swept) {
    #[cfg(target_os = "linux")]
    {
        let Ok(id) = place.folder_id() else { return };
        // Held through the sweep: another file of the same folder waits for it, and does not
        // hold the folder's shared lock before the sweep takes the exclusive one.
        let mut seen = crate::sync::lock(&swept.0);
        if seen.insert(id) {
            place.sweep(TEMP_PREFIX);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (place, swept);
}

/// Replaces the file at `path` (a named file: a symbolic link is followed once) with `new`
/// when it still holds what `read` saw; see [`write_in`].
pub fn write_if_unchanged(path: &Path, read: &ReadAt, new: &str) -> Result<(), WriteError> {
    let place = Place::of(path, None)?;
    write_with(&place, read, new, &mut |_| {})
}

/// Replaces the file of `place` with `new` when it still holds what `read` saw: the text goes
/// to a temporary file in the same folder (the held folder of [`Place`]: nothing is written
/// outside the named paths), which gets the old file's owner, permissions and extended
/// attributes (ACLs, SELinux label) and takes the old file's name in one step, so a reader
/// sees the old file or the new one, never a part. A file with other hard links, or whose
/// owner or attributes the new file cannot take, is left alone.
///
/// An edit made during the run is never overwritten: the file is held open from the first
/// check on; just before the replacement its name must still name that file (an editor that
/// saves by renaming gives a new inode), its length, modification time and bytes must be
/// those read, and the folders from the named folder must still lead to the held folder;
/// else [`WriteError::ChangedOnDisk`] or [`WriteError::Outside`].
///
/// On Linux ([`super::lease`]) a read lease on the held file makes any program that opens it
/// for writing from then on wait, and marks the lease; the fixed file and the old one swap
/// names, and when the lease was marked or the old file changed, they swap back before the
/// lease is let go, so the waiting write lands in the file at the path
/// ([`WriteError::ChangedOnDisk`]). A file some program holds open for writing is
/// [`WriteError::OpenForWriting`]. Where leases or the swap are not to be had (other Unix
/// systems, NFS, another user's file), the fixed file is renamed over the old one and an edit
/// seen in the old file after that is put back; an edit written into the old file through a
/// handle opened before the rename and written after that last look is then lost
/// (docs/output-formats.md). On Windows, which will not replace an open file, the held file is
/// let go just before the rename, so there is no look after it.
pub fn write_in(place: &Place, read: &ReadAt, new: &str) -> Result<(), WriteError> {
    write_with(place, read, new, &mut |_| {})
}

/// What a test runs between the last look and the replacement: its argument tells whether the
/// lease is broken (`None`: no lease).
type BeforeSwap<'a> = &'a mut dyn FnMut(&dyn Fn() -> Option<bool>);

/// [`write_in`], calling `before_swap` between the last look and the replacement (tests put a
/// concurrent writer there). Its argument tells whether the lease is broken (`None`: no lease).
fn write_with(
    place: &Place,
    read: &ReadAt,
    new: &str,
    before_swap: BeforeSwap<'_>,
) -> Result<(), WriteError> {
    let held = place.open(false)?;
    let meta = held.metadata().map_err(WriteError::Io)?;
    if !read.same(&meta, &content(&held).map_err(WriteError::Io)?) {
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
    // asks the file's own permissions first. (Before the lease: this open would break it.)
    drop(place.open(true)?);
    #[cfg(target_os = "linux")]
    let lease = match super::lease::take(&held) {
        super::lease::Take::Held(l) => Some(l),
        super::lease::Take::Busy => return Err(WriteError::OpenForWriting),
        super::lease::Take::Unsupported => None,
    };
    // From here on a temporary file exists: an interrupt waits until it is renamed or removed.
    let Some(_writing) = super::interrupt::writing() else {
        return Err(WriteError::Interrupted);
    };
    // A sweep in another run ([`sweep_once`]) waits until no temporary file of ours is here.
    #[cfg(target_os = "linux")]
    let _shared = place.hold_shared().map_err(WriteError::Io)?;
    let tmp = temp_like(place, new.as_bytes(), &meta, &held)?;
    // The last look, as close to the replacement as it can be: the place is still inside the
    // named paths, its name still names the held file, which still holds what was read.
    let unchanged = |held: &std::fs::File| -> Result<bool, WriteError> {
        place.check_chain()?;
        let at_name = place.id_of(None).map_err(WriteError::Io)?;
        let now = held.metadata().map_err(WriteError::Io)?;
        Ok((read.id.is_none() || at_name == read.id)
            && read.same(&now, &content(held).map_err(WriteError::Io)?))
    };
    if !unchanged(&held)? {
        return Err(WriteError::ChangedOnDisk);
    }
    #[cfg(target_os = "linux")]
    before_swap(&|| lease.as_ref().map(|l| l.broken()));
    #[cfg(not(target_os = "linux"))]
    before_swap(&|| None);
    #[cfg(target_os = "linux")]
    if let Some(lease) = &lease {
        match place.exchange(tmp.name(), place.name()) {
            Ok(()) => return settle_swap(place, read, &held, lease, tmp),
            Err(e) if super::lease::exchange_unsupported(&e) => {}
            Err(e) => return Err(WriteError::Io(e)),
        }
    }
    // Windows refuses to replace a file that is open, even one opened to share deletion
    // ("Access denied", os error 5, as MoveFileEx does without POSIX semantics, wine among
    // them): the held file is let go first, and no look after the rename is possible.
    #[cfg(windows)]
    {
        drop(held);
        tmp.persist().map_err(WriteError::Io)?;
        Ok(())
    }
    #[cfg(not(windows))]
    {
        let placed = tmp.persist().map_err(WriteError::Io)?;
        // An edit that landed between the last look and the rename went to the replaced file.
        let now = held.metadata().map_err(WriteError::Io)?;
        let late = content(&held).map_err(WriteError::Io)?;
        if read.same(&now, &late) {
            return Ok(());
        }
        put_back(place, &late, &meta, &held, placed, new.as_bytes())
    }
}

/// After the swap: `tmp`'s name holds what was at the file's name (the old file, `held`,
/// unless a program renamed its own file there after the last look) and the file's name the
/// fixed one. Keeps the swap when it swapped out the held file, nobody asked to write it and it
/// is unchanged; else swaps back, so a write waiting on the lease lands at the file's name once
/// the lease is let go, and a file renamed into place is there again.
#[cfg(target_os = "linux")]
fn settle_swap(
    place: &Place,
    read: &ReadAt,
    held: &std::fs::File,
    lease: &super::lease::Lease<'_>,
    tmp: Temp<'_>,
) -> Result<(), WriteError> {
    // An open that found the old file by its name just before the swap reaches the lease check
    // within the kernel's open; a short wait lets it get there (a few microseconds unloaded).
    std::thread::sleep(std::time::Duration::from_micros(200));
    let now = held.metadata().map_err(WriteError::Io)?;
    let unchanged = read.same(&now, &content(held).map_err(WriteError::Io)?);
    // What was swapped out must be the held file: a program that saved by renaming its own
    // file into place after the last look had its file swapped out instead.
    let swapped_out = place.id_of(Some(tmp.name())).ok().flatten();
    if unchanged && swapped_out.is_some() && swapped_out == read.id && !lease.broken() {
        // Dropping `tmp` removes its name, now the old file's.
        return Ok(());
    }
    // Swap back only if the name still names the fixed file: a program that saved by renaming
    // meanwhile put its own file there, and the old file (with any late edit) is kept aside.
    let fixed_id = tmp.file.metadata().ok().and_then(|m| file_id(&m));
    let at_target = place.id_of(None).ok().flatten();
    if fixed_id.is_some() && fixed_id == at_target {
        place
            .exchange(tmp.name(), place.name())
            .map_err(WriteError::Io)?;
        // Dropping `tmp` removes its name, the fixed file's again.
        return Err(WriteError::ChangedOnDisk);
    }
    let kept = tmp.keep(KEPT_PREFIX);
    Err(WriteError::WrittenTwice { kept })
}

/// Puts `late` (the replaced file's text, edited during the rename) back at the file's name,
/// unless the fixed file placed there (`placed`, holding `fixed`) was itself written since:
/// then the late edit is kept beside it and [`WriteError::WrittenTwice`] names it.
#[cfg(not(windows))]
fn put_back(
    place: &Place,
    late: &[u8],
    meta: &std::fs::Metadata,
    held: &std::fs::File,
    placed: std::fs::File,
    fixed: &[u8],
) -> Result<(), WriteError> {
    let back = temp_like(place, late, meta, held)?;
    let untouched = content(&placed).is_ok_and(|b| b == fixed)
        && place
            .id_of(None)
            .ok()
            .flatten()
            .zip(placed.metadata().ok().and_then(|m| file_id(&m)))
            .is_some_and(|(a, b)| a == b);
    if untouched {
        back.persist().map_err(WriteError::Io)?;
        return Err(WriteError::ChangedOnDisk);
    }
    let kept = back.keep(KEPT_PREFIX);
    Err(WriteError::WrittenTwice { kept })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_at(path: &Path) -> ReadAt {
        ReadAt::read(path).unwrap()
    }

    /// Whether the kernel gives a read lease on a file in `dir` (asked directly, not through
    /// the code under test): a test that needs one skips loudly only when it does not.
    #[cfg(target_os = "linux")]
    fn leases_here(dir: &Path) -> bool {
        use std::os::fd::AsRawFd;
        let p = dir.join(".lease-probe");
        std::fs::write(&p, "x").unwrap();
        let f = std::fs::File::open(&p).unwrap();
        // SAFETY: fcntl with integer arguments on a descriptor `f` owns.
        let ok = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) } == 0;
        drop(f);
        std::fs::remove_file(&p).unwrap();
        ok
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

    /// The window a rename leaves: another program opens the file for writing after the last
    /// look and writes once `--fix` has replaced it. With the lease that open waits, the names
    /// are swapped back, and the edit lands in the file at the path (the fix is not applied).
    #[cfg(target_os = "linux")]
    #[test]
    fn an_edit_opened_just_before_the_replacement_is_kept() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        for append in [true, false] {
            std::fs::write(&p, "old\n").unwrap();
            let r = read_at(&p);
            let mut writer = None;
            let mut leased = true;
            let place = Place::of(&p, None).unwrap();
            let got = write_with(&place, &r, "new\n", &mut |broken| {
                if broken().is_none() {
                    leased = false;
                    return;
                }
                let p = p.clone();
                writer = Some(std::thread::spawn(move || {
                    if append {
                        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
                        f.write_all(b"edit\n").unwrap();
                    } else {
                        std::fs::write(&p, "old\nedit\n").unwrap();
                    }
                }));
                // Until the writer's open waits on the lease (bounded).
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
                while broken() != Some(true) {
                    assert!(std::time::Instant::now() < deadline, "the open never came");
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            });
            if !leased {
                assert!(
                    !leases_here(dir.path()),
                    "the kernel gives leases here, --fix took none"
                );
                eprintln!("SKIPPED: an_edit_opened_just_before_the_replacement_is_kept: this file system gives no lease");
                return;
            }
            assert!(matches!(got, Err(WriteError::ChangedOnDisk)), "{got:?}");
            writer.unwrap().join().unwrap();
            assert_eq!(std::fs::read_to_string(&p).unwrap(), "old\nedit\n");
            let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
            assert_eq!(names.len(), 1, "no temporary file is left");
        }
    }

    /// An editor that saves by renaming its own file into place after the last look: its file
    /// is what the swap takes out, so the names are swapped back and its save stays.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_save_by_rename_just_before_the_replacement_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "old\n").unwrap();
        let r = read_at(&p);
        let mut leased = true;
        let place = Place::of(&p, None).unwrap();
        let got = write_with(&place, &r, "new\n", &mut |broken| {
            leased = broken().is_some();
            let saved = dir.path().join(".a.md.swp");
            std::fs::write(&saved, "saved\n").unwrap();
            std::fs::rename(&saved, &p).unwrap();
        });
        if !leased {
            assert!(
                !leases_here(dir.path()),
                "the kernel gives leases here, --fix took none"
            );
            eprintln!("SKIPPED: a_save_by_rename_just_before_the_replacement_is_kept: this file system gives no lease");
            return;
        }
        assert!(matches!(got, Err(WriteError::ChangedOnDisk)), "{got:?}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "saved\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A file another program holds open for writing is left alone (it may write any time).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_open_for_writing_elsewhere_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "old\n").unwrap();
        let r = read_at(&p);
        // Another process, as an editor keeping the file open would be (this process's own
        // descriptors would count too, but a child is what a user has).
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg("exec 3>>\"$0\"; read x")
            .arg(&p)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Until the child holds it open (bounded).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let holds = || {
            std::fs::read_dir(format!("/proc/{}/fd", child.id()))
                .map(|d| {
                    d.flatten()
                        .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == p))
                })
                .unwrap_or(false)
        };
        while !holds() {
            assert!(
                std::time::Instant::now() < deadline,
                "the child never opened it"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let got = write_if_unchanged(&p, &r, "new\n");
        drop(child.stdin.take());
        child.wait().unwrap();
        match got {
            Err(WriteError::OpenForWriting) => {}
            Ok(()) if !leases_here(dir.path()) => eprintln!("SKIPPED: a_file_open_for_writing_elsewhere_is_left_alone: this file system gives no lease"),
            other => panic!("{other:?}"),
        }
        if std::fs::read_to_string(&p).unwrap() == "old\n" {
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        }
    }

    /// The place of a walked file: a folder below the named one that is a symbolic link is
    /// refused; one swapped for a link after the place was opened is refused at the last look;
    /// one swapped after the last look cannot send the write outside: it goes to the held
    /// folder. In every case the file outside the named folder keeps its text.
    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let (root, outside) = (dir.path().join("root"), dir.path().join("outside"));
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let file = root.join("sub/a.md");
        let reset = || {
            let _ = std::fs::remove_file(root.join("sub"));
            let _ = std::fs::remove_dir_all(root.join("sub"));
            let _ = std::fs::remove_dir_all(root.join("away"));
            std::fs::create_dir_all(root.join("sub")).unwrap();
            std::fs::write(&file, "old\n").unwrap();
            std::fs::write(outside.join("a.md"), "old\n").unwrap();
        };
        let swap = || {
            std::fs::rename(root.join("sub"), root.join("away")).unwrap();
            std::os::unix::fs::symlink(&outside, root.join("sub")).unwrap();
        };
        // A link already there when the place is opened.
        reset();
        swap();
        assert!(matches!(
            Place::of(&file, Some(&root)),
            Err(PlaceError::Link(_))
        ));
        // Swapped after the read, before the last look.
        reset();
        let place = Place::of(&file, Some(&root)).unwrap();
        let read = ReadAt::read_in(&place).unwrap();
        swap();
        let got = write_with(&place, &read, "new\n", &mut |_| {});
        assert!(matches!(got, Err(WriteError::Outside(_))), "{got:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("away/a.md")).unwrap(),
            "old\n"
        );
        // Swapped after the last look: the held folder gets the file.
        reset();
        let place = Place::of(&file, Some(&root)).unwrap();
        let read = ReadAt::read_in(&place).unwrap();
        let got = write_with(&place, &read, "new\n", &mut |_| swap());
        assert!(got.is_ok(), "{got:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("away/a.md")).unwrap(),
            "new\n"
        );
        for (i, f) in [outside.join("a.md")].iter().enumerate() {
            assert_eq!(std::fs::read_to_string(f).unwrap(), "old\n", "{i}");
        }
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    }

    /// The file itself swapped for a link to a file outside: refused, the outside file kept.
    #[cfg(unix)]
    #[test]
    fn a_file_swapped_for_a_link_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        let (file, outside) = (root.join("a.md"), dir.path().join("secret.md"));
        std::fs::write(&file, "old\n").unwrap();
        std::fs::write(&outside, "old\n").unwrap();
        let place = Place::of(&file, Some(&root)).unwrap();
        let read = ReadAt::read_in(&place).unwrap();
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&outside, &file).unwrap();
        let got = write_with(&place, &read, "new\n", &mut |_| {});
        assert!(matches!(got, Err(WriteError::Outside(_))), "{got:?}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "old\n");
        assert!(std::fs::symlink_metadata(&file)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    /// Extended attributes (here `user.*`, as ACLs and SELinux labels are) stay with the
    /// fixed file.
    #[cfg(target_os = "linux")]
    #[test]
    fn extended_attributes_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "old\n").unwrap();
        let f = std::fs::File::open(&p).unwrap();
        if let Err(e) =
            rustix::fs::fsetxattr(&f, "user.origin", b"kept", rustix::fs::XattrFlags::empty())
        {
            eprintln!("SKIPPED: extended_attributes_are_kept: no user.* attributes here ({e})");
            return;
        }
        drop(f);
        write_if_unchanged(&p, &read_at(&p), "new\n").unwrap();
        let f = std::fs::File::open(&p).unwrap();
        let mut buf = [0u8; 16];
        let n = rustix::fs::fgetxattr(&f, "user.origin", &mut buf[..]).unwrap();
        assert_eq!(&buf[..n], b"kept");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new\n");
    }

    /// The sweep never takes a temporary file of a run still writing in the folder (it holds
    /// the folder's shared lock), and takes a stale one once none does; a name of another
    /// shape stays.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_sweep_waits_for_no_live_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "a\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "b\n").unwrap();
        let stale = dir.path().join(".netbox-lsp-fix-00000000beef");
        std::fs::write(&stale, "left by a killed run").unwrap();
        std::fs::write(dir.path().join(".netbox-lsp-fix-beef"), "not our shape").unwrap();
        let writing = Place::of(&dir.path().join("a.md"), Some(dir.path())).unwrap();
        let sweeping = Place::of(&dir.path().join("b.md"), Some(dir.path())).unwrap();
        let live = writing.temp(TEMP_PREFIX).unwrap();
        let held = writing.hold_shared().unwrap();
        assert!(sweeping.sweep(TEMP_PREFIX).is_empty());
        assert!(stale.exists() && writing.id_of(Some(live.name())).is_ok());
        drop(held);
        let mut removed = sweeping.sweep(TEMP_PREFIX);
        removed.sort();
        let mut expected = vec![live.name().to_os_string()];
        expected.push(".netbox-lsp-fix-00000000beef".into());
        expected.sort();
        assert_eq!(removed, expected);
        assert!(dir.path().join(".netbox-lsp-fix-beef").exists());
        drop(live); // its name is gone: nothing to remove
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
