//! Which files `check` reads: named files whatever their extension, and the supported files
//! under named folders (honouring `.gitignore`, `.ignore` and `--exclude`, also outside a git
//! repository).
//!
//! Symbolic links under a named folder are followed (skills are often linked into
//! `.claude/skills/`): a linked file, or the files of a linked folder, are checked under the
//! path as walked. A link to a folder the walk is in (a loop) is not followed and a link to
//! nothing is skipped, each with a note; a file reached twice (directly and through a link, or
//! through two links) is checked once, under the path met first.

use super::paths::display_path;
use crate::extract::HostKind;
use globset::{GlobSet, GlobSetBuilder};
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One file to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The path as found (the named path, or the folder joined with the walked path).
    pub path: PathBuf,
    /// How the file is read (from its extension; a named file with another one is text).
    pub kind: HostKind,
    /// The named folder the file was found under (`None` for a named file): `--fix` writes
    /// only below it, through real folders ([`super::place::Place`]).
    pub root: Option<PathBuf>,
    /// The walked path goes through a symbolic link below the named folder (the file itself,
    /// or a folder on the way): the file is read through the link, and `--fix` leaves it alone
    /// with a note, as it writes only through real folders.
    pub linked: bool,
}

impl Input {
    /// True when the file is read without following a symbolic link in its last component: a
    /// file walked under a named folder through real folders only, so that a link found there
    /// now was swapped in during the run.
    pub fn read_without_following(&self) -> bool {
        self.root.is_some() && !self.linked
    }
}

/// What [`collect`] found.
#[derive(Debug, Default)]
pub struct Collected {
    /// The files, deduplicated (by the file they lead to: the path met first is kept) and
    /// sorted by path.
    pub inputs: Vec<Input>,
    /// Problems met finding them (missing paths, unreadable folders), one-line messages.
    pub problems: Vec<String>,
    /// Symbolic links under the named folders that were not followed (a loop, a link to
    /// nothing), one-line messages: said on stderr as notes, so that no file is skipped
    /// silently.
    pub notes: Vec<String>,
    /// Named folders in which no file has an extension the tool reads (after `--exclude` and
    /// `.gitignore`): said on stderr, so that "0 errors" never hides "nothing read".
    pub empty_folders: Vec<PathBuf>,
    /// `--exclude` globs that matched no path under the named folders (a typo, or a glob
    /// written for another folder): said on stderr.
    pub unused_excludes: Vec<String>,
}

/// The files to check under `paths` (see [`Collected`]). Errors on a bad `--exclude` glob.
pub fn collect(paths: &[PathBuf], exclude: &[String]) -> Result<Collected, String> {
    let excludes = build_excludes(exclude)?;
    let used: Arc<Vec<AtomicBool>> =
        Arc::new(exclude.iter().map(|_| AtomicBool::new(false)).collect());
    let mut walked = false;
    // Each file with the path of the file it leads to, in the order met.
    let mut found: Vec<(Input, PathBuf)> = Vec::new();
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let mut empty_folders = Vec::new();
    for root in paths {
        match std::fs::metadata(root) {
            Err(e) => problems.push(format!("{}: {e}", root.display())),
            // A named file is checked whatever its extension: unknown ones as plain text
            // (REST URLs in prose).
            Ok(meta) if meta.is_file() => {
                let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                found.push((
                    Input {
                        path: root.clone(),
                        kind: HostKind::from_path(root).unwrap_or(HostKind::Text),
                        root: None,
                        linked: false,
                    },
                    real,
                ));
            }
            Ok(meta) if meta.is_dir() => {
                let before = found.len();
                walked = true;
                let mut walk = Walk {
                    root,
                    excludes: &excludes,
                    used: &used,
                    found: &mut found,
                    problems: &mut problems,
                    notes: &mut notes,
                };
                walk.run();
                if found.len() == before {
                    empty_folders.push(root.clone());
                }
            }
            // A FIFO, socket or device would block or never end: refuse it instead of reading.
            Ok(_) => problems.push(format!("{}: not a regular file", root.display())),
        }
    }
    let mut seen = HashSet::new();
    let mut inputs: Vec<Input> = found
        .into_iter()
        .filter(|(_, real)| seen.insert(real.clone()))
        .map(|(input, _)| input)
        .collect();
    inputs.sort_by(|a, b| a.path.cmp(&b.path));
    inputs.dedup_by(|a, b| a.path == b.path);
    let unused_excludes = if walked {
        exclude
            .iter()
            .zip(used.iter())
            .filter(|(_, u)| !u.load(Ordering::Relaxed))
            .map(|(g, _)| g.clone())
            .collect()
    } else {
        Vec::new()
    };
    Ok(Collected {
        inputs,
        problems,
        notes,
        empty_folders,
        unused_excludes,
    })
}

fn build_excludes(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        let glob = crate::config::exclude_glob(g).map_err(|e| format!("--exclude {g}: {e}"))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| format!("--exclude: {e}"))
}

/// True when `rel` (a path relative to the named folder) is left out by `--exclude`; the
/// globs that match are marked used.
fn excluded(excludes: &GlobSet, used: &[AtomicBool], rel: &Path) -> bool {
    if excludes.is_empty() {
        return false;
    }
    let hits = excludes.matches(rel);
    for &i in &hits {
        used[i].store(true, Ordering::Relaxed);
    }
    !hits.is_empty()
}

/// True for a symbolic link that leads into a `.git` folder (or is one), which is skipped as
/// `.git` itself is.
fn links_into_git(path: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|real| real.components().any(|c| c.as_os_str() == ".git"))
}

/// One named folder's walk: what it finds goes to the run's lists.
struct Walk<'a> {
    root: &'a Path,
    excludes: &'a GlobSet,
    used: &'a Arc<Vec<AtomicBool>>,
    found: &'a mut Vec<(Input, PathBuf)>,
    problems: &'a mut Vec<String>,
    notes: &'a mut Vec<String>,
}

impl Walk<'_> {
    fn run(&mut self) {
        let excl = self.excludes.clone();
        let used = self.used.clone();
        let root_owned = self.root.to_path_buf();
        // The path every file reached through real folders only leads to: the named folder's
        // real path joined with the walked one (no call per file).
        let real_root =
            std::fs::canonicalize(self.root).unwrap_or_else(|_| self.root.to_path_buf());
        // Hidden folders are walked (skills live in `.claude/skills/`), except `.git`, and a
        // link into one. Names are sorted, so the walk order (which path of a file reached
        // twice is kept) is the same on every run.
        let walker = ignore::WalkBuilder::new(self.root)
            .hidden(false)
            .require_git(false)
            .follow_links(true)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |entry| {
                if entry.file_name() == ".git" {
                    return false;
                }
                if entry.depth() > 0 && entry.path_is_symlink() && links_into_git(entry.path()) {
                    return false;
                }
                let rel = entry
                    .path()
                    .strip_prefix(&root_owned)
                    .unwrap_or(entry.path());
                !excluded(&excl, &used, rel)
            })
            .build();
        // The linked folders the walk is in, innermost last.
        let mut links: Vec<PathBuf> = Vec::new();
        for entry in walker {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    self.not_followed(&e);
                    continue;
                }
            };
            let path = entry.path();
            while links.last().is_some_and(|l| !path.starts_with(l)) {
                links.pop();
            }
            let link = entry.depth() > 0 && entry.path_is_symlink();
            let Some(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if link {
                    links.push(path.to_path_buf());
                }
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let Some(kind) = HostKind::from_path(path) else {
                continue;
            };
            let linked = link || !links.is_empty();
            let real = if linked {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            } else {
                let rel = path.strip_prefix(self.root).unwrap_or(path);
                real_root.join(rel)
            };
            self.found.push((
                Input {
                    path: path.to_path_buf(),
                    kind,
                    root: Some(self.root.to_path_buf()),
                    linked,
                },
                real,
            ));
        }
    }

    /// A walk error: a symbolic link not followed (a loop, a link to nothing) is a note,
    /// unless `--exclude` leaves its path out; anything else (an unreadable folder) a problem.
    fn not_followed(&mut self, e: &ignore::Error) {
        let rel_excluded = |p: &Path| {
            let rel = p.strip_prefix(self.root).unwrap_or(p);
            rel.components()
                .any(|c| c == Component::Normal(".git".as_ref()))
                || excluded(self.excludes, self.used, rel)
        };
        if let Some((ancestor, child)) = loop_of(e) {
            if !rel_excluded(child) {
                self.notes.push(format!(
                    "{}: a symbolic link to {}, a folder it is in; not followed",
                    display_path(child),
                    display_path(ancestor)
                ));
            }
            return;
        }
        if let Some(path) = path_of(e) {
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            if is_link {
                if rel_excluded(path) {
                    return;
                }
                let to = std::fs::read_link(path)
                    .map(|t| display_path(&t))
                    .unwrap_or_default();
                // Asked again: the walk's error wraps the system's, without its number.
                match std::fs::metadata(path) {
                    Err(io) if io.kind() == std::io::ErrorKind::NotFound => {
                        self.notes.push(format!(
                            "{}: a symbolic link to nothing ({to}); skipped",
                            display_path(path)
                        ));
                        return;
                    }
                    #[cfg(unix)]
                    Err(io) if io.raw_os_error() == Some(libc::ELOOP) => {
                        self.notes.push(format!(
                            "{}: a symbolic link that leads back to itself ({to}); skipped",
                            display_path(path)
                        ));
                        return;
                    }
                    _ => {}
                }
            }
        }
        self.problems.push(e.to_string());
    }
}

/// The walked paths of a symbolic link loop: (the folder the link leads to, the link).
fn loop_of(e: &ignore::Error) -> Option<(&Path, &Path)> {
    match e {
        ignore::Error::Loop { ancestor, child } => Some((ancestor, child)),
        ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithPath { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => loop_of(err),
        _ => None,
    }
}

/// The path a walk error is about.
fn path_of(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            path_of(err)
        }
        _ => None,
    }
}
