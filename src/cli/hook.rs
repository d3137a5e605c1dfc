//! `netbox-lsp hook`: the process side of the pre-tool-use hook ([`crate::agent::hook`] has the
//! protocol and the decision). It fails closed: whatever keeps the check from answering (an
//! unreadable event, settings or an index that cannot be loaded, an internal error, a panic,
//! the check's process dying, the deadline) denies the call with a reason that says so, unless
//! `--fail-open` was given.
//!
//! On Unix the check runs in this process under a guard: the answers for a crash and for the
//! deadline are written before the check starts, and a handler of the crash signals (an
//! abort, a stack overflow, a bad memory access) and of the deadline's timer (`SIGALRM`) writes
//! the one that applies and ends the process. (The check ran in a forked child before: the
//! second process cost 0.4–0.7 ms of CPU and ~85 page faults per call by `perf stat`.)
//! What no handler can answer for: the process being killed (`SIGKILL`: the kernel's
//! out-of-memory killer, or the harness's own timeout), which harnesses treat as a
//! non-blocking error and so let the call run. Elsewhere the check runs on a thread: a panic
//! or the deadline still deny, a crash of the process does not.

use crate::agent::decide::{Policy, Uncertain};
use crate::agent::hook::{failure, respond, Answer, Setup, MAX_EVENT};
use crate::config::Settings;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `hook`.
#[derive(Debug, Clone, clap::Args)]
pub struct HookArgs {
    /// Run a call whose errors and warnings all have certain fixes in its corrected form (the
    /// harness's updated input), telling the model what changed. A corrected shell command is
    /// shown to the user to confirm (`ask`): the hook vouches only for its NetBox requests.
    #[arg(long)]
    pub fix: bool,
    /// What a call with warnings only (likely wrong, but an instance could make it right) gets.
    #[arg(long, value_enum, default_value_t = UncertainArg::Ask)]
    pub uncertain: UncertainArg,
    /// Let a call through (with a note on stderr) when it cannot be checked, instead of
    /// denying it.
    #[arg(long)]
    pub fail_open: bool,
    /// Milliseconds from start to answer; a check still running then is stopped and the call
    /// denied (or let through with --fail-open).
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    pub deadline_ms: u64,
    #[command(flatten)]
    pub knowledge: super::mcp::KnowledgeArgs,
}

/// `--uncertain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UncertainArg {
    /// The harness asks the user.
    Ask,
    /// The call is denied.
    Deny,
}

/// Environment variable for the tests of the failure modes: `panic`, `abort`, `overflow` (of the
/// stack), `sleep` or `error` makes the check do that once it has read the event.
pub const FAULT_ENV: &str = "NETBOX_LSP_HOOK_FAULT";

/// Runs `hook`; returns the exit code (0, or 2 to block the call).
pub fn run(args: &HookArgs) -> i32 {
    let deadline = Instant::now() + Duration::from_millis(args.deadline_ms);
    let policy = Policy {
        fix: args.fix,
        uncertain: match args.uncertain {
            UncertainArg::Ask => Uncertain::Ask,
            UncertainArg::Deny => Uncertain::Deny,
        },
    };
    let answer = supervise(deadline, args, || check(args, &policy));
    let _ = std::io::stdout().write_all(answer.stdout.as_bytes());
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().write_all(answer.stderr.as_bytes());
    answer.code
}

/// The check itself: reads the event, loads what it needs, answers.
fn check(args: &HookArgs, policy: &Policy) -> Answer {
    let mut bytes = Vec::new();
    match std::io::stdin()
        .lock()
        .take(MAX_EVENT as u64 + 1)
        .read_to_end(&mut bytes)
    {
        Ok(_) if bytes.len() > MAX_EVENT => {
            return failure(
                &format!("the hook event is larger than {} MiB", MAX_EVENT >> 20),
                args.fail_open,
            )
        }
        Ok(_) => {}
        Err(e) => {
            return failure(
                &format!("cannot read the hook event from standard input: {e}"),
                args.fail_open,
            )
        }
    }
    match std::env::var(FAULT_ENV).as_deref() {
        Ok("panic") => panic!("fault injected ({FAULT_ENV}=panic)"),
        Ok("abort") => std::process::abort(),
        Ok("overflow") => {
            std::hint::black_box(overflow(0));
        }
        Ok("sleep") => std::thread::sleep(Duration::from_secs(600)),
        Ok("error") => return failure("internal error: fault injected", args.fail_open),
        _ => {}
    }
    // Read once, when a call needs it: its settings, and its path for the knowledge's errors
    // (`pyproject.toml` when the `[tool.netbox-lsp]` table there is the one found).
    let file = std::cell::OnceCell::new();
    let file = || {
        file.get_or_init(|| super::settings::settings_file(args.knowledge.config.as_deref(), false))
    };
    let settings = || -> Result<Settings, String> {
        match file() {
            Ok(f) => Ok(f.as_ref().map(|f| f.settings.clone()).unwrap_or_default()),
            Err(e) => Err(e.clone()),
        }
    };
    let knowledge = |s: &Settings| {
        let path = match file() {
            Ok(Some(f)) => f.path.clone(),
            _ => args
                .knowledge
                .config
                .clone()
                .unwrap_or_else(|| PathBuf::from(crate::config::FILE_NAME)),
        };
        super::mcp::knowledge_of(&args.knowledge, s, &path)
    };
    respond(
        &bytes,
        policy,
        args.fail_open,
        &Setup {
            settings: &settings,
            knowledge: &knowledge,
        },
    )
}

/// Recurses until the stack overflows (the `overflow` fault).
#[allow(unconditional_recursion)]
fn overflow(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 256]);
    overflow(depth + 1).wrapping_add(frame[255])
}

/// A short text for a panic's payload.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// `work`'s answer, or the failure answer when it panics, dies or runs past `deadline`.
fn supervise(deadline: Instant, args: &HookArgs, work: impl FnOnce() -> Answer + Send) -> Answer {
    #[cfg(unix)]
    {
        guard::run(deadline, args, work)
    }
    #[cfg(not(unix))]
    {
        in_thread(deadline, args, work)
    }
}

fn too_late(args: &HookArgs) -> Answer {
    failure(
        &format!(
            "the check did not answer within {} ms (--deadline-ms)",
            args.deadline_ms
        ),
        args.fail_open,
    )
}

fn panicked(args: &HookArgs, p: &(dyn std::any::Any + Send)) -> Answer {
    failure(
        &format!("internal error (panic: {})", panic_text(p)),
        args.fail_open,
    )
}

/// `work` on a thread of this process, waited for until `deadline` (where there are no
/// signal handlers).
fn in_thread(deadline: Instant, args: &HookArgs, work: impl FnOnce() -> Answer + Send) -> Answer {
    std::panic::set_hook(Box::new(|_| {}));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = tx.send(r);
        });
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Ok(a)) => a,
            Ok(Err(p)) => panicked(args, p.as_ref()),
            Err(_) => {
                // The thread cannot be stopped: answer, and end the process with it.
                let a = too_late(args);
                let _ = std::io::stdout().write_all(a.stdout.as_bytes());
                let _ = std::io::stdout().flush();
                let _ = std::io::stderr().write_all(a.stderr.as_bytes());
                std::process::exit(a.code)
            }
        }
    })
}

#[cfg(unix)]
mod guard {
    use super::*;
    use std::sync::OnceLock;

    /// The signals of a crash: an abort (a failed allocation too), a bad memory access or a
    /// stack overflow, an illegal instruction, an arithmetic fault, a trap.
    const CRASHES: [libc::c_int; 6] = [
        libc::SIGABRT,
        libc::SIGSEGV,
        libc::SIGBUS,
        libc::SIGILL,
        libc::SIGFPE,
        libc::SIGTRAP,
    ];

    /// An answer written by the handler of `signal`.
    struct Prepared {
        signal: libc::c_int,
        code: i32,
        stdout: Box<[u8]>,
        stderr: Box<[u8]>,
    }

    /// The answers of the crash signals and of `SIGALRM` (the deadline), made before the check
    /// starts: a handler may not allocate.
    static PREPARED: OnceLock<Vec<Prepared>> = OnceLock::new();

    /// Bytes of the stack the handlers run on (a stack overflow leaves none on the check's).
    const ALT_STACK: usize = 64 * 1024;

    /// `work`'s answer, or the prepared failure when a crash signal arrives or `deadline`
    /// passes first (the handler writes it and ends the process), or the failure of a panic.
    /// Falls back to [`in_thread`] when the handlers cannot be installed.
    pub(super) fn run(
        deadline: Instant,
        args: &HookArgs,
        work: impl FnOnce() -> Answer + Send,
    ) -> Answer {
        let prepare = |signal, a: Answer| Prepared {
            signal,
            code: a.code,
            stdout: a.stdout.into_bytes().into(),
            stderr: a.stderr.into_bytes().into(),
        };
        let mut all = vec![prepare(libc::SIGALRM, too_late(args))];
        for signal in CRASHES {
            let what = format!("the check ended without an answer (killed by signal {signal})");
            all.push(prepare(signal, failure(&what, args.fail_open)));
        }
        if PREPARED.set(all).is_err() || !install() {
            return in_thread(deadline, args, work);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !arm(left) {
            return too_late(args);
        }
        std::panic::set_hook(Box::new(|_| {}));
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .unwrap_or_else(|p| panicked(args, p.as_ref()));
        arm(Duration::ZERO);
        answer
    }

    /// Installs the handler on its own stack for the crash signals and `SIGALRM`; false when
    /// that fails.
    fn install() -> bool {
        let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT_STACK].into_boxed_slice());
        let ss = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: stack.len(),
        };
        // SAFETY: `ss` describes a leaked buffer that lives as long as the process.
        if unsafe { libc::sigaltstack(&ss, std::ptr::null_mut()) } != 0 {
            return false;
        }
        CRASHES.iter().chain([&libc::SIGALRM]).all(|&signal| {
            // SAFETY: an all-zero sigaction is valid; it is filled before use. `on_signal`
            // only reads `PREPARED` (set before), writes and ends the process: all
            // async-signal-safe.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                sa.sa_flags = libc::SA_ONSTACK;
                libc::sigfillset(&mut sa.sa_mask);
                libc::sigaction(signal, &sa, std::ptr::null_mut()) == 0
            }
        })
    }

    /// Sets the deadline's timer to fire once after `left` (`ZERO` disarms it); false when
    /// that fails.
    fn arm(left: Duration) -> bool {
        let micros = left.as_micros();
        let value = libc::timeval {
            // `as _`: the field types (`time_t`, `suseconds_t`) differ by target, and libc
            // deprecates naming them on musl.
            tv_sec: (micros / 1_000_000).min(i32::MAX as u128) as _,
            tv_usec: (micros % 1_000_000) as _,
        };
        let t = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: value,
        };
        // SAFETY: setitimer(2) with a valid itimerval.
        unsafe { libc::setitimer(libc::ITIMER_REAL, &t, std::ptr::null_mut()) == 0 }
    }

    /// The handler: writes the answer prepared for `signal` and ends the process with its code.
    extern "C" fn on_signal(signal: libc::c_int) {
        let prepared = PREPARED
            .get()
            .and_then(|all| all.iter().find(|p| p.signal == signal));
        let code = match prepared {
            Some(p) => {
                write_all(1, &p.stdout);
                write_all(2, &p.stderr);
                p.code
            }
            None => 2,
        };
        // SAFETY: _exit(2) is async-signal-safe; nothing else of the process runs after it.
        unsafe { libc::_exit(code) }
    }

    /// write(2) of all of `bytes` to `fd` (async-signal-safe); gives up on an error.
    fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // SAFETY: `bytes` is valid for its length.
            let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
            if n > 0 {
                bytes = &bytes[n as usize..];
            } else if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            } else {
                return;
            }
        }
    }
}
