//! `check --format json` on a Python file of tool calls run again and again in one warm process
//! (issue 36), beside the project's pinned parser alone on the same file in the same process.
//!
//! Why: the peer of the `.py` figures, pynetbox's `strict_filters` check, is timed in process
//! after a warm-up (its import, the OpenAPI document's load and the first 200 dicts are left
//! out: `scripts/bench-python-calls.sh`). `check` in a fresh process also pays the process's
//! start and a first-touch page fault for every page its parse tree fills (~4.4 µs each on the
//! virtual machines of this project's CI: a third of the parse floor's CPU). This bench times
//! the same work the way the peer is timed: the command line's own code path
//! ([`netbox_lsp::cli::main_from`]: argument parsing, the file read, the check, the JSON written
//! to standard output, which the caller sends to `/dev/null`), after one round of warm-up, each
//! round measured as the process's CPU time (all threads: `CLOCK_PROCESS_CPUTIME_ID`), and the
//! parse alone (read, ruff_python_parser 0.0.10's `parse_unchecked_source`, `into_syntax`, the
//! tree dropped, as `benches/python_parse_floor.rs` does) the same way, round by round.
//!
//! Each round frees its findings, as the peer's do: `main_from`, unlike the command line's
//! `main`, does not leave the last file's findings to the process's exit (which would fault in
//! fresh pages for them round after round).
//!
//! Usage: `python_calls_warm FILE.py ROUNDS OUT` (Linux and other Unix). Writes to `OUT` one
//! line per measured round: `check <seconds> parse <seconds>` of CPU; exit 2 on a usage or read
//! error, 3 when a round's `check` exits with a code other than 0 or 1.

use ruff_python_ast::PySourceType;
use std::io::Write;

#[cfg(unix)]
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write to; the clock id is a constant of the platform.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

#[cfg(not(unix))]
fn cpu_seconds() -> f64 {
    eprintln!("python_calls_warm: the process CPU clock is read on Unix only");
    std::process::exit(2);
}

/// One `check --format json FILE` through the command line's code path; its exit code.
fn check(path: &str) -> i32 {
    netbox_lsp::cli::main_from(["netbox-lsp", "check", "--format", "json", path])
}

/// The parse floor: read, parse, keep the tree without its tokens, drop it. The number of
/// top-level statements, so the parse cannot be optimised away.
fn parse(path: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let parsed = ruff_python_parser::parse_unchecked_source(&text, PySourceType::Python);
    let module = parsed.into_syntax();
    std::hint::black_box(&module).body.len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(Ok(rounds)), Some(out)) = (
        args.get(1),
        args.get(2).map(|r| r.parse::<usize>()),
        args.get(3),
    ) else {
        eprintln!("usage: python_calls_warm FILE.py ROUNDS OUT");
        std::process::exit(2);
    };
    if let Err(e) = std::fs::metadata(path) {
        eprintln!("python_calls_warm: {path}: {e}");
        std::process::exit(2);
    }
    let mut lines = String::new();
    // Round 0 warms both up (the index's decoding, the code's pages, the allocator's pages).
    for round in 0..=rounds {
        let t = cpu_seconds();
        let code = check(path);
        let c = cpu_seconds() - t;
        if code != 0 && code != 1 {
            eprintln!("python_calls_warm: check exited with {code}");
            std::process::exit(3);
        }
        let t = cpu_seconds();
        let statements = parse(path);
        let p = cpu_seconds() - t;
        if statements == 0 {
            eprintln!("python_calls_warm: {path}: no statement parsed");
            std::process::exit(2);
        }
        if round > 0 {
            lines.push_str(&format!("check {c:.6} parse {p:.6}\n"));
        }
    }
    if let Err(e) = std::fs::File::create(out).and_then(|mut f| f.write_all(lines.as_bytes())) {
        eprintln!("python_calls_warm: {out}: {e}");
        std::process::exit(2);
    }
}
