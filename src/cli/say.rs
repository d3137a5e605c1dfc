//! What the command line says on stderr besides the findings: notes and summaries, which
//! `--quiet` silences, and errors, which it never does.

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences [`note`] and [`summary`] for the rest of the process (`check --quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// True under `--quiet`.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// `netbox-lsp: note: <message>` on stderr, unless quiet.
pub fn note(message: impl std::fmt::Display) {
    if !quiet() {
        eprintln!("netbox-lsp: note: {message}");
    }
}

/// A summary line (`2 errors, 1 warning in 3 files (...)`) on stderr, unless quiet.
pub fn summary(line: impl std::fmt::Display) {
    if !quiet() {
        eprintln!("{line}");
    }
}

/// `netbox-lsp: error: <message>` on stderr, always.
pub fn error(message: impl std::fmt::Display) {
    eprintln!("netbox-lsp: error: {message}");
}
