//! Which files `check` reads: named files whatever their extension, and the supported files
//! under named folders (honouring `.gitignore`, `.ignore` and `--exclude`, also outside a git
//! repository).

use crate::extract::HostKind;
use globset::{GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One file to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The path as found (the named path, or the folder joined with the walked path).
    pub path: PathBuf,
    pub kind: HostKind,
    /// The named folder the file was found under (`None` for a named file): `--fix` writes
    /// only below it, through real folders ([`super::place::Place`]).
    pub root: Option<PathBuf>,
}

/// What [`collect`] found.
#[derive(Debug, Default)]
pub struct Collected {
    /// The files, deduplicated and sorted by path.
    pub inputs: Vec<Input>,
    /// Problems met finding them (missing paths, unreadable folders), one-line messages.
    pub problems: Vec<String>,
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
    let mut inputs = Vec::new();
    let mut problems = Vec::new();
    let mut empty_folders = Vec::new();
    for root in paths {
        match std::fs::metadata(root) {
            Err(e) => problems.push(format!("{}: {e}", root.display())),
            // A named file is checked whatever its extension: unknown ones as plain text
            // (REST URLs in prose).
            Ok(meta) if meta.is_file() => inputs.push(Input {
                path: root.clone(),
                kind: HostKind::from_path(root).unwrap_or(HostKind::Text),
                root: None,
            }),
            Ok(meta) if meta.is_dir() => {
                let before = inputs.len();
                walked = true;
                walk_dir(root, &excludes, &used, &mut inputs, &mut problems);
                if inputs.len() == before {
                    empty_folders.push(root.clone());
                }
            }
            // A FIFO, socket or device would block or never end: refuse it instead of reading.
            Ok(_) => problems.push(format!("{}: not a regular file", root.display())),
        }
    }
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

fn walk_dir(
    root: &Path,
    excludes: &GlobSet,
    used: &Arc<Vec<AtomicBool>>,
    inputs: &mut Vec<Input>,
    problems: &mut Vec<String>,
) {
    let excl = excludes.clone();
    let used = used.clone();
    let root_owned = root.to_path_buf();
    // Hidden folders are walked (skills live in `.claude/skills/`, `.github/`), except `.git`.
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(move |entry| {
            if entry.file_name() == ".git" {
                return false;
            }
            let rel = entry
                .path()
                .strip_prefix(&root_owned)
                .unwrap_or(entry.path());
            if excl.is_empty() {
                return true;
            }
            let hits = excl.matches(rel);
            for &i in &hits {
                used[i].store(true, Ordering::Relaxed);
            }
            hits.is_empty()
        })
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let path = entry.into_path();
                if let Some(kind) = HostKind::from_path(&path) {
                    inputs.push(Input {
                        path,
                        kind,
                        root: Some(root.to_path_buf()),
                    });
                }
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
}
