//! Agents at call time (issue 32): custom harness, prints percentiles.
//!
//! - `netbox-lsp hook`, the whole process from start to answer (what the harness waits for),
//!   for recorded events (tests/fixtures/hook/): a valid NetBox MCP call, a wrong one (denied),
//!   the same with `--fix` (corrected), a wrong `curl` command, and a Bash command that sends
//!   nothing to NetBox; interleaved round by round with `netbox-lsp --version` (the process with
//!   nothing loaded), so both see the same machine. Goal: median ≤ 5 ms.
//! - `check_call` over MCP: one `tools/call` round trip to a running `netbox-lsp mcp` (JSON-RPC
//!   lines on stdio), against the same check in process (`agent::call::check_filters`).
//!
//! Output: `BENCH <name> <p50_ms> <p99_ms> <n>` lines (wall), `CPU <name> <p50_ms>` (user + sys
//! of the process and its children, from wait4), and ratios to `--version`.
//!
//! Usage: `cargo bench --bench agents [-- ROUNDS]` (default 300 rounds).

use netbox_lsp::analysis::Knowledge;
use netbox_lsp::index::embedded::embedded_index;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hook")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// One run of `BIN args` with `stdin`: wall ms, CPU ms (user + sys, children included).
fn run(args: &[&str], stdin: &[u8]) -> (f64, f64) {
    let t = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    {
        let mut i = child.stdin.take().unwrap();
        let _ = i.write_all(stdin);
    }
    let cpu = wait_cpu(&mut child);
    (t.elapsed().as_secs_f64() * 1e3, cpu)
}

#[cfg(unix)]
fn wait_cpu(child: &mut std::process::Child) -> f64 {
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid, wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our child's, not yet waited for.
    unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(ru.ru_utime) + ms(ru.ru_stime)
}

#[cfg(not(unix))]
fn wait_cpu(child: &mut std::process::Child) -> f64 {
    let _ = child.wait();
    0.0
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(300);
    let ls = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls -la"}})
        .to_string()
        .into_bytes();
    let cases: Vec<(&str, Vec<&str>, Vec<u8>)> = vec![
        ("version", vec!["--version"], Vec::new()),
        ("hook_bash_no_netbox", vec!["hook"], ls),
        (
            "hook_mcp_valid",
            vec!["hook"],
            fixture("get-objects-renamed.ok.json"),
        ),
        (
            "hook_mcp_deny",
            vec!["hook"],
            fixture("get-objects-renamed.json"),
        ),
        (
            "hook_mcp_fix",
            vec!["hook", "--fix"],
            fixture("get-objects-renamed.json"),
        ),
        ("hook_curl_deny", vec!["hook"], fixture("curl.json")),
    ];
    // Warm-up: the binary's pages in the page cache.
    for (_, args, stdin) in &cases {
        for _ in 0..5 {
            run(args, stdin);
        }
    }
    let mut wall: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..rounds {
        for (i, (_, args, stdin)) in cases.iter().enumerate() {
            let (w, c) = run(args, stdin);
            wall[i].push(w);
            cpu[i].push(c);
        }
    }
    let base = pct(&mut wall[0].clone(), 0.5);
    let base_cpu = pct(&mut cpu[0].clone(), 0.5);
    println!(
        "{:<22} {:>9} {:>9} {:>9} {:>8}",
        "whole process", "p50 ms", "p99 ms", "cpu p50", "ratio"
    );
    for (i, (name, _, _)) in cases.iter().enumerate() {
        let (p50, p99) = (pct(&mut wall[i], 0.5), pct(&mut wall[i], 0.99));
        let c = pct(&mut cpu[i], 0.5);
        println!(
            "{name:<22} {p50:>9.2} {p99:>9.2} {c:>9.2} {:>7.2}×",
            p50 / base
        );
        println!("BENCH {name} {p50:.3} {p99:.3} {rounds}");
        println!("CPU {name} {c:.3} (×{:.2} of --version)", c / base_cpu);
    }
    mcp_check_call(rounds.max(200) * 5);
}

/// `check_call` round trips to a running `netbox-lsp mcp`, and the same check in process.
fn mcp_check_call(n: usize) {
    let mut child = Command::new(BIN)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn netbox-lsp mcp");
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut ask = |input: &mut std::process::ChildStdin, v: Value, reply: bool| -> Option<Value> {
        writeln!(input, "{v}").unwrap();
        input.flush().unwrap();
        if !reply {
            return None;
        }
        line.clear();
        output.read_line(&mut line).unwrap();
        Some(serde_json::from_str(&line).expect("a JSON-RPC line"))
    };
    ask(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}}),
        true,
    );
    ask(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
    );
    let args = json!({"target": "dcim.device", "filters": {"device_role_id": 3, "status": "Active", "site_id": 12}});
    let mut times = Vec::with_capacity(n);
    for i in 0..n + 50 {
        let t = Instant::now();
        let r = ask(
            &mut input,
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                   "params": {"name": "check_call", "arguments": args}}),
            true,
        )
        .unwrap();
        if i >= 50 {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        assert_eq!(r["result"]["isError"], false, "{r}");
    }
    drop(input);
    let _ = child.wait();
    let (p50, p99) = (pct(&mut times, 0.5), pct(&mut times, 0.99));
    println!("mcp check_call round trip: p50 {p50:.3} ms, p99 {p99:.3} ms ({n} calls)");
    println!("BENCH mcp_check_call {p50:.4} {p99:.4} {n}");

    let k = Knowledge {
        index: Some(embedded_index("4.7.3")),
        readings: netbox_lsp::agent::call_readings(),
        ..Knowledge::default()
    };
    let filters = args["filters"].as_object().unwrap().clone();
    let none = Default::default();
    let mut times = Vec::with_capacity(n);
    for i in 0..n + 50 {
        let t = Instant::now();
        let c = netbox_lsp::agent::call::check_filters(&k, "dcim.device", &filters, &none);
        std::hint::black_box(&c);
        if i >= 50 {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let (p50, p99) = (pct(&mut times, 0.5), pct(&mut times, 0.99));
    println!("in-process check_filters: p50 {p50:.4} ms, p99 {p99:.4} ms");
    println!("BENCH inprocess_check_call {p50:.4} {p99:.4} {n}");
}
