//! Where `check --fix` replaces a file: its folder, opened once and held from the file's read
//! to its replacement, and the file's name in it ([`Place`]). Every step (reading the file,
//! the temporary file, the rename, the name swap of [`super::lease`]) goes through the held
//! folder, never through the path again, so a folder of the path swapped for a symbolic link
//! during the run cannot send the write elsewhere (issue 34: 19 of 200 rounds wrote outside
//! the named folder with a concurrent local writer).
//!
//! Linux (rustix): the folder of a file walked under a named folder is opened one component
//! at a time from the named folder with `O_NOFOLLOW`, so a component that is a symbolic link
//! is refused; the file itself is opened with `O_NOFOLLOW`; just before the rename the chain
//! is walked again and must lead to the held folder. Elsewhere the same checks are made on
//! paths (`symlink_metadata` of each component), which leaves the window between the last
//! check and the rename.
//!
//! A named file (not walked) is the user's choice: a symbolic link named on the command line
//! is followed once, to the file it names (a link stays a link), and its folder is held from
//! there.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

/// The folder a file is replaced in and its name there; see the module documentation.
pub struct Place {
    /// The folder as a path, for messages (and, off Linux, for every step).
    dir_path: PathBuf,
    /// The held folder (Linux).
    #[cfg(target_os = "linux")]
    dir: std::os::fd::OwnedFd,
    /// The named folder the file was walked under and the folders from it to the file's
    /// folder, re-checked before the rename; empty for a named file.
    root: Option<PathBuf>,
    chain: Vec<OsString>,
    name: OsString,
}

/// Why a [`Place`] could not be had, or is no longer the one opened.
#[derive(Debug)]
pub enum PlaceError {
    /// A folder on the way from the named folder, or the file itself, is a symbolic link (or
    /// no longer a folder): it was not when the folder was walked. The path shown.
    Link(PathBuf),
    /// The folders from the named folder no longer lead to the held folder (one was moved or
    /// replaced during the run).
    Moved,
    Io(io::Error),
}

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlaceError::Link(p) => write!(
                f,
                "{} is a symbolic link now (it was not when the folder was walked); not fixed: --fix writes only inside the named paths",
                p.display()
            ),
            PlaceError::Moved => write!(
                f,
                "a folder on its path was moved or replaced during the run; not fixed: --fix writes only inside the named paths"
            ),
            PlaceError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<io::Error> for PlaceError {
    fn from(e: io::Error) -> Self {
        PlaceError::Io(e)
    }
}

/// True for an open error that means "a symbolic link where a folder or file was expected".
#[cfg(target_os = "linux")]
fn is_link_error(e: &rustix::io::Errno) -> bool {
    *e == rustix::io::Errno::LOOP || *e == rustix::io::Errno::NOTDIR
}

impl Place {
    /// The place of `path`: walked under the named folder `root` (every folder below `root`
    /// must be a real folder), or named itself (`root` is `None`: a symbolic link is followed).
    pub fn of(path: &Path, root: Option<&Path>) -> Result<Place, PlaceError> {
        let (root, chain, name, dir_path) =
            match root.and_then(|r| Some((r, path.strip_prefix(r).ok()?))) {
                Some((root, rel)) => {
                    let mut parts: Vec<OsString> = Vec::new();
                    for c in rel.components() {
                        match c {
                            Component::Normal(p) => parts.push(p.to_os_string()),
                            Component::CurDir => {}
                            _ => return Err(PlaceError::Moved),
                        }
                    }
                    let name = parts.pop().ok_or(PlaceError::Moved)?;
                    let dir_path = parts.iter().fold(root.to_path_buf(), |p, c| p.join(c));
                    (Some(root.to_path_buf()), parts, name, dir_path)
                }
                None => {
                    // A named symbolic link is followed once, to the file it names.
                    let real = if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
                        std::fs::canonicalize(path)?
                    } else {
                        path.to_path_buf()
                    };
                    let name = real.file_name().ok_or(PlaceError::Moved)?.to_os_string();
                    let dir_path = match real.parent() {
                        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                        _ => PathBuf::from("."),
                    };
                    (None, Vec::new(), name, dir_path)
                }
            };
        #[cfg(target_os = "linux")]
        let dir = match &root {
            Some(root) => open_chain(root, &chain)?,
            None => {
                open_dir(rustix::fs::CWD, &dir_path, true).map_err(|e| PlaceError::Io(e.into()))?
            }
        };
        let place = Place {
            dir_path,
            #[cfg(target_os = "linux")]
            dir,
            root,
            chain,
            name,
        };
        #[cfg(not(target_os = "linux"))]
        place.check_chain()?;
        Ok(place)
    }

    /// The file's path, for messages.
    pub fn path(&self) -> PathBuf {
        self.dir_path.join(&self.name)
    }

    /// The path of `name` in the folder, for messages.
    pub fn path_of(&self, name: &OsStr) -> PathBuf {
        self.dir_path.join(name)
    }

    /// The file's name in its folder.
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// Opens the file (read-only, or write-only to ask its permissions); a symbolic link in its
    /// place is refused ([`PlaceError::Link`]). Never blocks on a FIFO.
    pub fn open(&self, write: bool) -> Result<File, PlaceError> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let access = if write {
                OFlags::WRONLY
            } else {
                OFlags::RDONLY
            };
            let fd = rustix::fs::openat(
                &self.dir,
                self.name.as_os_str(),
                access | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY,
                Mode::empty(),
            )
            .map_err(|e| {
                if is_link_error(&e) {
                    PlaceError::Link(self.path())
                } else {
                    PlaceError::Io(e.into())
                }
            })?;
            // NONBLOCK keeps a FIFO put there from blocking the open; it changes nothing for a
            // regular file, and the caller refuses anything else.
            Ok(File::from(fd))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let path = self.path();
            if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
                return Err(PlaceError::Link(path));
            }
            let mut o = std::fs::OpenOptions::new();
            if write {
                o.write(true);
            } else {
                o.read(true);
            }
            Ok(o.open(&path)?)
        }
    }

    /// `(device, inode)` of what the name (`None`: the file's) is in the folder now, not
    /// following a symbolic link; `None` off Unix.
    pub fn id_of(&self, name: Option<&OsStr>) -> io::Result<Option<(u64, u64)>> {
        let name = name.unwrap_or(&self.name);
        #[cfg(target_os = "linux")]
        {
            let st = rustix::fs::statat(&self.dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
            Ok(Some((st.st_dev as u64, st.st_ino as u64)))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let meta = std::fs::symlink_metadata(self.path_of(name))?;
            Ok(file_id(&meta))
        }
    }

    /// Creates a new temporary file in the folder (name starting with `prefix`, mode 0600,
    /// never following or replacing anything), removed when the [`Temp`] is dropped unless it
    /// was renamed or kept.
    pub fn temp(&self, prefix: &str) -> io::Result<Temp<'_>> {
        let mut last = None;
        for attempt in 0..16u32 {
            let name = OsString::from(format!("{prefix}{}", random_suffix(attempt)));
            #[cfg(target_os = "linux")]
            let made = {
                use rustix::fs::{Mode, OFlags};
                rustix::fs::openat(
                    &self.dir,
                    name.as_os_str(),
                    OFlags::RDWR
                        | OFlags::CREATE
                        | OFlags::EXCL
                        | OFlags::NOFOLLOW
                        | OFlags::CLOEXEC,
                    Mode::RUSR | Mode::WUSR,
                )
                .map(File::from)
                .map_err(io::Error::from)
            };
            #[cfg(not(target_os = "linux"))]
            let made = {
                let mut o = std::fs::OpenOptions::new();
                o.read(true).write(true).create_new(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
                // Windows renames an open file only when it was opened to share deletion
                // (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE), as tempfile does.
                #[cfg(windows)]
                std::os::windows::fs::OpenOptionsExt::share_mode(&mut o, 0x7);
                o.open(self.path_of(&name))
            };
            match made {
                Ok(file) => {
                    return Ok(Temp {
                        place: self,
                        file,
                        name,
                        armed: true,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
    }

    /// `(device, inode)` of the held folder (Linux), to sweep a folder once per run.
    #[cfg(target_os = "linux")]
    pub fn folder_id(&self) -> io::Result<(u64, u64)> {
        let st = rustix::fs::fstat(&self.dir)?;
        Ok((st.st_dev as u64, st.st_ino as u64))
    }

    /// Holds a shared lock (flock(2) `LOCK_SH`) on the held folder until the guard is dropped:
    /// [`Place::sweep`] in another run sweeps a folder only under the exclusive lock, so a
    /// temporary file made under this one is never taken for a stale one. A sweep holds the
    /// exclusive lock for one listing of the folder; this waits for it (polling, at most about
    /// 5 s, then [`io::ErrorKind::WouldBlock`]: a program that holds the folder locked for
    /// longer is not ours). A file system without flock(2) gives no lock and no error: no sweep
    /// can run there either.
    #[cfg(target_os = "linux")]
    pub fn hold_shared(&self) -> io::Result<FolderLock<'_>> {
        use rustix::fs::{flock, FlockOperation};
        for attempt in 0..1000u32 {
            match flock(&self.dir, FlockOperation::NonBlockingLockShared) {
                Ok(()) => {
                    return Ok(FolderLock {
                        dir: Some(&self.dir),
                    })
                }
                Err(rustix::io::Errno::WOULDBLOCK) | Err(rustix::io::Errno::INTR) => {
                    std::thread::sleep(std::time::Duration::from_millis(u64::from(
                        (attempt + 1).min(5),
                    )));
                }
                Err(_) => return Ok(FolderLock { dir: None }),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "the folder is locked (flock) by another program",
        ))
    }

    /// Removes the temporary files a killed run left in the held folder (SIGKILL runs no
    /// handler): names of `prefix` and 12 lowercase hex digits ([`Place::temp`]'s shape) that
    /// are regular files with one link, owned by this user. Only under the folder's exclusive
    /// lock, taken without waiting: every run that may have a temporary file there holds the
    /// shared lock ([`Place::hold_shared`]), so none is live. The folder is listed and each
    /// name removed through the held folder, never through its path: a folder swapped for a
    /// symbolic link cannot send the sweep elsewhere. Returns the names removed; nothing (and
    /// no error) when the lock is taken or the file system has no flock(2).
    #[cfg(target_os = "linux")]
    pub fn sweep(&self, prefix: &str) -> Vec<OsString> {
        use rustix::fs::{flock, AtFlags, FileType, FlockOperation};
        if flock(&self.dir, FlockOperation::NonBlockingLockExclusive).is_err() {
            return Vec::new();
        }
        let _unlock = FolderLock {
            dir: Some(&self.dir),
        };
        let Ok(list) = rustix::fs::Dir::read_from(&self.dir) else {
            return Vec::new();
        };
        // SAFETY: geteuid(2) takes nothing and cannot fail.
        let me = unsafe { libc::geteuid() };
        let mut removed = Vec::new();
        for entry in list.flatten() {
            let name = entry.file_name().to_bytes();
            if !is_temp_name(name, prefix.as_bytes()) {
                continue;
            }
            let name: &OsStr = std::os::unix::ffi::OsStrExt::from_bytes(name);
            let ours =
                rustix::fs::statat(&self.dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
                    FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
                        && st.st_nlink == 1
                        && st.st_uid == me
                });
            if ours && rustix::fs::unlinkat(&self.dir, name, AtFlags::empty()).is_ok() {
                removed.push(name.to_os_string());
            }
        }
        removed
    }

    /// Renames `from` over `to` within the folder.
    fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            rustix::fs::renameat(&self.dir, from, &self.dir, to).map_err(io::Error::from)
        }
        #[cfg(not(target_os = "linux"))]
        {
            std::fs::rename(self.path_of(from), self.path_of(to))
        }
    }

    /// Swaps the names `a` and `b` of the folder in one step (Linux, `RENAME_EXCHANGE`).
    #[cfg(target_os = "linux")]
    pub fn exchange(&self, a: &OsStr, b: &OsStr) -> io::Result<()> {
        rustix::fs::renameat_with(
            &self.dir,
            a,
            &self.dir,
            b,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .map_err(io::Error::from)
    }

    fn unlink(&self, name: &OsStr) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            rustix::fs::unlinkat(&self.dir, name, rustix::fs::AtFlags::empty())
                .map_err(io::Error::from)
        }
        #[cfg(not(target_os = "linux"))]
        {
            std::fs::remove_file(self.path_of(name))
        }
    }

    /// Checks, just before the replacement, that the place is still inside the named folder:
    /// the folders from it lead (no symbolic link among them) to the held folder, and the file
    /// is no symbolic link.
    pub fn check_chain(&self) -> Result<(), PlaceError> {
        if let Some(root) = &self.root {
            #[cfg(target_os = "linux")]
            {
                let now = open_chain(root, &self.chain)?;
                let (a, b) = (
                    rustix::fs::fstat(&now).map_err(io::Error::from)?,
                    rustix::fs::fstat(&self.dir).map_err(io::Error::from)?,
                );
                if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino) {
                    return Err(PlaceError::Moved);
                }
            }
            #[cfg(not(target_os = "linux"))]
            {
                let mut p = root.clone();
                for c in &self.chain {
                    p.push(c);
                    let m = std::fs::symlink_metadata(&p)?;
                    if m.file_type().is_symlink() || !m.is_dir() {
                        return Err(PlaceError::Link(p));
                    }
                }
            }
        }
        #[cfg(target_os = "linux")]
        let link = rustix::fs::statat(
            &self.dir,
            self.name.as_os_str(),
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )
        .is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink
        });
        #[cfg(not(target_os = "linux"))]
        let link = std::fs::symlink_metadata(self.path()).is_ok_and(|m| m.file_type().is_symlink());
        if link {
            return Err(PlaceError::Link(self.path()));
        }
        Ok(())
    }
}

/// `(device, inode)` of a file on Unix; `None` elsewhere.
pub fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
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

/// Opens `dir` as a folder (following a symbolic link when `follow`).
#[cfg(target_os = "linux")]
fn open_dir<Fd: std::os::fd::AsFd>(
    at: Fd,
    dir: &Path,
    follow: bool,
) -> rustix::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    rustix::fs::openat(at, dir, flags, Mode::empty())
}

/// Opens the named folder `root` (following a link: the user named it), then each folder of
/// `chain` below it without following any link.
#[cfg(target_os = "linux")]
fn open_chain(root: &Path, chain: &[OsString]) -> Result<std::os::fd::OwnedFd, PlaceError> {
    let mut dir = open_dir(rustix::fs::CWD, root, true).map_err(|e| PlaceError::Io(e.into()))?;
    let mut shown = root.to_path_buf();
    for c in chain {
        shown.push(c);
        dir = open_dir(&dir, Path::new(c), false).map_err(|e| {
            if is_link_error(&e) {
                PlaceError::Link(shown.clone())
            } else {
                PlaceError::Io(e.into())
            }
        })?;
    }
    Ok(dir)
}

/// True for `prefix` followed by the 12 lowercase hex digits of [`random_suffix`].
pub fn is_temp_name(name: &[u8], prefix: &[u8]) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == 12 && rest.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// A flock(2) on a held folder, let go on drop (`None`: the file system has no flock).
#[cfg(target_os = "linux")]
pub struct FolderLock<'p> {
    dir: Option<&'p std::os::fd::OwnedFd>,
}

#[cfg(target_os = "linux")]
impl Drop for FolderLock<'_> {
    fn drop(&mut self) {
        if let Some(dir) = self.dir {
            let _ = rustix::fs::flock(dir, rustix::fs::FlockOperation::Unlock);
        }
    }
}

/// A hex suffix for a temporary name, different per call and process.
fn random_suffix(attempt: u32) -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("{:012x}", h.finish() & 0xffff_ffff_ffff)
}

/// A temporary file of a [`Place`]: removed on drop unless renamed into place or kept.
pub struct Temp<'p> {
    place: &'p Place,
    pub file: File,
    name: OsString,
    armed: bool,
}

impl Temp<'_> {
    /// Its name in the folder (after [`Place::exchange`], the name holds the other file).
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// Renames it over the file; from then on it is the file.
    pub fn persist(mut self) -> io::Result<File> {
        self.place.rename(&self.name, &self.place.name)?;
        self.armed = false;
        let file = self.file.try_clone()?;
        Ok(file)
    }

    /// Keeps it, renamed to `prefix` and a fresh suffix (never replacing a file; a prefix
    /// other than the temporary files' keeps [`Place::sweep`] off it), and gives its path. When
    /// no new name can be had it stays under its temporary name.
    pub fn keep(mut self, prefix: &str) -> PathBuf {
        self.armed = false;
        for attempt in 0..16u32 {
            let to = OsString::from(format!("{prefix}{}", random_suffix(attempt)));
            #[cfg(target_os = "linux")]
            let moved = rustix::fs::renameat_with(
                &self.place.dir,
                self.name.as_os_str(),
                &self.place.dir,
                to.as_os_str(),
                rustix::fs::RenameFlags::NOREPLACE,
            )
            .map_err(io::Error::from);
            // A hard link is made only where no file is: no replacing off Linux either.
            #[cfg(not(target_os = "linux"))]
            let moved = std::fs::hard_link(self.place.path_of(&self.name), self.place.path_of(&to))
                .and_then(|()| std::fs::remove_file(self.place.path_of(&self.name)));
            match moved {
                Ok(()) => return self.place.path_of(&to),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(_) => break,
            }
        }
        self.place.path_of(&self.name)
    }
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.place.unlink(&self.name);
        }
    }
}
