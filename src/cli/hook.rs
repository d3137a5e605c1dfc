//! `netbox-lsp hook`: the process side of the pre-tool-use hook ([`crate::agent::hook`] has the
//! protocol and the decision). It fails closed: whatever keeps the check from answering (an
//! unreadable event, settings or an index that cannot be loaded, an internal error, a panic,
//! the check's process dying, the deadline) denies the call with a reason that says so, unless
//! `--fail-open` was given.
//!
//! On Unix the check runs in a child process (`fork`, before any thread exists) that sends its
//! answer back through a pipe; this process only waits, at most until the deadline, and answers
//! itself when the child dies (a signal, an abort, a stack overflow, the kernel's out-of-memory
//! killer) or does not answer in time (it is then killed). What no process can guard against:
//! this supervising process itself being killed (`SIGKILL`, or the harness's own timeout),
//! which harnesses treat as a non-blocking error and so let the call run. Elsewhere the check
//! runs on a thread: a panic or the deadline still deny, a crash of the process does not.

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
        unix::supervise(deadline, args, work)
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

/// `work` on a thread of this process, waited for until `deadline` (where there is no fork).
#[cfg_attr(unix, allow(dead_code))]
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
mod unix {
    use super::*;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    /// `work` in a forked child; see the module documentation.
    pub(super) fn supervise(
        deadline: Instant,
        args: &HookArgs,
        work: impl FnOnce() -> Answer + Send,
    ) -> Answer {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` is a valid array of two descriptors for pipe(2) to fill.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return in_thread(deadline, args, work);
        }
        // SAFETY: pipe(2) succeeded, so both descriptors are open and owned by nothing else.
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: this process has a single thread (no thread is started before `hook` gets
        // here), so the child may run any code.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            drop((read_end, write_end));
            return in_thread(deadline, args, work);
        }
        if pid == 0 {
            drop(read_end);
            #[cfg(target_os = "linux")]
            // SAFETY: prctl(2) with PR_SET_PDEATHSIG takes a signal number.
            unsafe {
                libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                );
            }
            // The reason goes to the model through the answer only: no panic message, and
            // nothing the runtime may print when the child dies (a stack overflow's note)
            // reaches the hook's own standard output or error.
            std::panic::set_hook(Box::new(|_| {}));
            quiet_stdio();
            let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .unwrap_or_else(|p| panicked(args, p.as_ref()));
            let mut out = std::fs::File::from(write_end);
            let _ = out.write_all(&encode(&answer));
            drop(out);
            // SAFETY: _exit(2) ends the child at once, without running this process's exit
            // handlers a second time.
            unsafe { libc::_exit(0) }
        }
        drop(write_end);
        let got = read_until(&read_end, deadline);
        match got {
            None => {
                // SAFETY: `pid` is our child; kill(2) and waitpid(2) on it.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
                too_late(args)
            }
            Some(bytes) => {
                let mut status: libc::c_int = 0;
                // SAFETY: `pid` is our child, which has closed its end of the pipe (ended).
                unsafe { libc::waitpid(pid, &mut status, 0) };
                decode(&bytes).unwrap_or_else(|| failure(&died(status), args.fail_open))
            }
        }
    }

    /// Points the child's standard output and error at `/dev/null`.
    fn quiet_stdio() {
        // SAFETY: open(2) of a constant path, dup2(2) onto the standard descriptors, close(2)
        // of the descriptor opened here.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
            if null >= 0 {
                libc::dup2(null, 1);
                libc::dup2(null, 2);
                libc::close(null);
            }
        }
    }

    /// Everything the child sends until it closes the pipe; `None` when `deadline` passes
    /// first.
    fn read_until(fd: &OwnedFd, deadline: Instant) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            let mut p = libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut p, 1, ms) };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Some(out);
            }
            if n == 0 {
                continue;
            }
            // SAFETY: `buf` is valid for its length.
            let r = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            match r {
                0 => return Some(out),
                r if r > 0 => out.extend_from_slice(&buf[..r as usize]),
                _ => {
                    if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                        return Some(out);
                    }
                }
            }
        }
    }

    /// Why a child that sent no whole answer ended, from its wait status.
    fn died(status: libc::c_int) -> String {
        if libc::WIFSIGNALED(status) {
            format!(
                "the check ended without an answer (killed by signal {})",
                libc::WTERMSIG(status)
            )
        } else if libc::WIFEXITED(status) {
            format!(
                "the check ended without an answer (exit code {})",
                libc::WEXITSTATUS(status)
            )
        } else {
            "the check ended without an answer".to_string()
        }
    }
}

/// An answer as the child sends it: the exit code, then standard output and standard error,
/// each after its length (4 bytes, little-endian).
#[cfg_attr(not(unix), allow(dead_code))]
fn encode(a: &Answer) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + a.stdout.len() + a.stderr.len());
    out.extend_from_slice(&a.code.to_le_bytes());
    for s in [&a.stdout, &a.stderr] {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// [`encode`]'s answer read back; `None` unless the bytes are exactly one whole answer.
#[cfg_attr(not(unix), allow(dead_code))]
fn decode(b: &[u8]) -> Option<Answer> {
    let code = i32::from_le_bytes(b.get(0..4)?.try_into().ok()?);
    let mut at = 4;
    let mut text = || -> Option<String> {
        let n = u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize;
        let s = std::str::from_utf8(b.get(at + 4..at + 4 + n)?)
            .ok()?
            .to_string();
        at += 4 + n;
        Some(s)
    };
    let stdout = text()?;
    let stderr = text()?;
    (at == b.len()).then_some(Answer {
        code,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_round_trip_and_cut_answers_are_refused() {
        let a = Answer {
            code: 2,
            stdout: "{\"x\": 1}\n".into(),
            stderr: "é\n".into(),
        };
        let b = encode(&a);
        assert_eq!(decode(&b), Some(a));
        for cut in 0..b.len() {
            assert_eq!(decode(&b[..cut]), None, "{cut}");
        }
        let mut long = b.clone();
        long.push(0);
        assert_eq!(decode(&long), None);
    }
}
