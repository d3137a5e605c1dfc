//! `--fix` / `--diff` over the files of a run (`check` and `check --upgrade-to`): each file's
//! fix-all plan applied and written back in place, or shown as a diff, in path order.

use super::input::{decode, Decoded, BATCH};
use super::paths::display_path;
use super::walk::Input;
use rayon::prelude::*;

/// What `--fix` / `--diff` produced over the run.
#[derive(Debug, Default)]
pub struct FixOutput {
    /// `path:line:col: fixed[code] title` lines (`--fix`).
    pub changed: String,
    /// Unified diffs (`--diff`).
    pub diff: String,
    /// Fixes applied (or that would be), and files they touch.
    pub count: usize,
    pub files: usize,
    /// A fixed file could not be written (I/O error; exit 2).
    pub failed: bool,
}

/// What `--fix` / `--diff` did for one file: its part of [`FixOutput`] and its messages
/// (level, text), said in path order.
#[derive(Debug, Default)]
struct FileFix {
    out: FixOutput,
    says: Vec<(&'static str, String)>,
}

impl FixOutput {
    fn add(&mut self, f: FileFix) {
        for (level, m) in f.says {
            if level == "error" {
                super::say::error(m);
            } else {
                super::say::note(m);
            }
        }
        self.changed.push_str(&f.out.changed);
        self.diff.push_str(&f.out.diff);
        self.count += f.out.count;
        self.files += f.out.files;
        self.failed |= f.out.failed;
    }
}

/// `--fix` / `--diff` over `inputs`, on several threads (a fixed file is written and synced
/// before it replaces the old one, so most of a file's time is the disk's: one file after
/// another, 100,000 files took 817 s), in batches whose results are taken in path order.
///
/// `plan` is fix-all of the plain check, or of the upgrade findings, for a file's text.
pub fn fix_all(
    inputs: &[Input],
    plan: &(dyn Fn(&Input, &str) -> super::fix::Planned + Sync),
    write: bool,
    out: &mut FixOutput,
) {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .saturating_mul(4)
        .clamp(4, 32);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let swept = super::fix::Swept::default();
    for batch in inputs.chunks(BATCH) {
        let one = |input: &Input| fix_file(input, &|text| plan(input, text), write, &swept);
        let results: Vec<FileFix> = match &pool {
            Ok(pool) => pool.install(|| batch.par_iter().map(one).collect()),
            Err(_) => batch.iter().map(one).collect(),
        };
        for r in results {
            out.add(r);
        }
    }
}

/// `--fix` / `--diff` for one file: runs `plan` (fix-all of the plain check, or of the upgrade
/// findings) on its text and writes the result back (`write`) or gives its diff. A file that cannot be read is left to the check that follows
/// (which reports it); a file that is not valid UTF-8 is not fixed (its invalid bytes would be
/// lost); a file changed on disk since it was read, or whose path left the named folder, is
/// left alone with a message. Before a file is written, the temporary files a killed run left
/// in its folder are removed (once per folder: `swept`).
fn fix_file(
    input: &Input,
    plan: &dyn Fn(&str) -> super::fix::Planned,
    write: bool,
    swept: &super::fix::Swept,
) -> FileFix {
    let mut done = FileFix::default();
    let shown = display_path(&input.path);
    // The folder is held from the read to the replacement: nothing is read or written
    // through a folder that became a symbolic link. A file walked through a link is read
    // through it (for `--diff`), as a named file is, and never written (below).
    let root = if input.linked {
        None
    } else {
        input.root.as_deref()
    };
    let place = match super::place::Place::of(&input.path, root) {
        Ok(p) => p,
        Err(super::place::PlaceError::Io(_)) => return done, // the check reports it
        Err(e) => {
            done.says.push(("note", format!("{shown}: {e}")));
            return done;
        }
    };
    let read = match super::fix::ReadAt::read_in(&place) {
        Ok(r) => r,
        Err(super::fix::WriteError::Io(_)) => return done,
        Err(e) => {
            done.says.push(("note", format!("{shown}: {e}")));
            return done;
        }
    };
    let text = match decode(&read.bytes) {
        Decoded::Utf8(text) => text,
        Decoded::Binary => return done,
        Decoded::Lossy(_) => {
            done.says
                .push(("note", format!("{shown}: not valid UTF-8; not fixed")));
            return done;
        }
        Decoded::Transcoded(_, name) => {
            done.says.push((
                "note",
                format!("{shown}: {name}; not fixed (fixes are written as UTF-8 only)"),
            ));
            return done;
        }
    };
    let planned = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| plan(&text))) {
        Ok(p) => p,
        Err(_) => return done, // the check that follows reports the internal error
    };
    if planned.fixed == text {
        return done;
    }
    if write && input.linked {
        done.says.push((
            "note",
            format!(
                "{shown}: reached through a symbolic link; not fixed: --fix writes only inside the named paths, through real folders (name the file it leads to, to fix it)"
            ),
        ));
        return done;
    }
    let out = &mut done.out;
    if write {
        super::fix::sweep_once(&place, swept);
        if let Err(e) = super::fix::write_in(&place, &read, &planned.fixed) {
            // Changed on disk: left alone, and its findings as it is now are reported below.
            let io = matches!(e, super::fix::WriteError::Io(_));
            let level = if io { "error" } else { "note" };
            done.says.push((level, format!("{shown}: {e}")));
            done.out.failed |= io;
            return done;
        }
        // Columns as in the findings' text output: a byte-order mark is not counted.
        let bom = text.starts_with('\u{feff}');
        for c in &planned.changes {
            let col = if bom && c.line == 0 {
                c.char_col.saturating_sub(1)
            } else {
                c.char_col
            };
            out.changed.push_str(&format!(
                "{}:{}:{}: fixed[{}] {}\n",
                super::output::escape::text(&shown),
                c.line + 1,
                col + 1,
                c.code,
                super::output::escape::text(&c.title.replace(['\n', '\r'], " "))
            ));
        }
    } else {
        out.diff
            .push_str(&super::fix::unified_diff(&shown, &text, &planned.fixed));
    }
    out.count += planned.changes.len();
    out.files += 1;
    done
}
