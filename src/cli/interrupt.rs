//! Interrupts during `check --fix`: SIGINT, SIGTERM or SIGHUP end the run (exit 128 + the
//! signal's number, as a shell reports it) without leaving a temporary file behind. A fixed
//! file is written to a temporary file beside it and renamed over it ([`super::fix`]); while
//! that is under way ([`writing`]) the interrupt waits (one file's write and sync), so the
//! temporary file is either renamed or removed before the process exits.
//!
//! Unix: SIGINT, SIGTERM and SIGHUP (signal-hook). Windows: Ctrl+C and Ctrl+Break in a console
//! (the `ctrlc` crate, through `SetConsoleCtrlHandler`), which end the run with exit code 130 as
//! a SIGINT does; a process ended from outside (`TerminateProcess`, Task Manager) runs no
//! handler, and a temporary file it leaves starts with [`super::fix::TEMP_PREFIX`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Held (shared) while a temporary file of `--fix` exists; files are fixed on several threads,
/// and the interrupt takes it exclusively, so it waits for every write in flight.
static WRITING: RwLock<()> = RwLock::new(());

/// Set once an interrupt arrived: no new write starts.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Marks a write in flight until the guard is dropped: an interrupt that arrives meanwhile
/// ends the process only after that. `None` once the run is interrupted (the caller writes
/// nothing).
pub fn writing() -> Option<RwLockReadGuard<'static, ()>> {
    let guard = WRITING.read().unwrap_or_else(|e| e.into_inner());
    (!INTERRUPTED.load(Ordering::SeqCst)).then_some(guard)
}

/// Stops new writes and waits for those in flight (the interrupt handler).
fn stop_writing() -> RwLockWriteGuard<'static, ()> {
    INTERRUPTED.store(true, Ordering::SeqCst);
    WRITING.write().unwrap_or_else(|e| e.into_inner())
}

/// Installs the handler (once per process; later calls do nothing). On a signal it waits for
/// the write in flight, says on stderr that the run was interrupted and exits. A handler that
/// cannot be installed leaves the default handling (a note says so).
pub fn install() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("netbox-lsp: note: cannot handle interrupts ({e}); an interrupted --fix may leave a temporary file beside a file");
                    return;
                }
            };
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let _wait = stop_writing();
                    eprintln!(
                        "netbox-lsp: interrupted; files fixed so far stay fixed, the others are as they were"
                    );
                    std::process::exit(128 + signal);
                }
            });
        });
    }
    #[cfg(windows)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let handled = ctrlc::set_handler(|| {
                let _wait = stop_writing();
                eprintln!(
                    "netbox-lsp: interrupted; files fixed so far stay fixed, the others are as they were"
                );
                // Not `process::exit` (ExitProcess): it kills the other threads and then runs
                // every DLL's detach, which waits for a lock a killed thread held (an interrupted
                // `--fix` hung there under wine). Nothing is left to run: stderr is unbuffered
                // and the write lock held means no temporary file exists.
                // SAFETY: the pseudo-handle of this process; the call does not return.
                unsafe {
                    use windows_sys::Win32::System::Threading::{
                        GetCurrentProcess, TerminateProcess,
                    };
                    TerminateProcess(GetCurrentProcess(), 130);
                }
                std::process::exit(130);
            });
            if let Err(e) = handled {
                eprintln!("netbox-lsp: note: cannot handle interrupts ({e}); an interrupted --fix may leave a temporary file beside a file");
            }
        });
    }
}
