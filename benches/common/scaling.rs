//! Scaling scenarios of issue 34: each runs the real binary (`check`, `check --upgrade-to`,
//! `check --fix`, `index build`, the language server over stdio with and without `upgradeTo`) on an input of `n` items
//! generated here, and measures the child's CPU time (user + system, from `getrusage`) and
//! its wall time. `benches/scaling.rs` runs them at 1×, 10× and 100× (optionally beside an
//! older binary, `NETBOX_LSP_BEFORE`) and prints the slope ratios; `tests/scaling.rs` runs the
//! small sizes (1×, 10×) and bounds the ratio, never an absolute time.
//!
//! Linear work gives a ratio near 10 per tenfold size (less while the process start, some
//! 10 ms, is a fair part of the time); quadratic work gives 100.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One scenario: `run(bin, n, scratch)` makes the input of size `n` in the empty folder
/// `scratch` and runs `bin` on it once.
pub struct Scenario {
    pub name: &'static str,
    /// What grows, for the table (`calls per file`).
    pub unit: &'static str,
    /// The 1× size of the bench; the test uses [`Scenario::test_base`].
    pub bench_base: usize,
    pub test_base: usize,
    pub run: fn(&Path, usize, &Path, Duration) -> Measure,
}

/// One run's cost, or `None` when it did not end within the time limit (it was killed).
#[derive(Debug, Clone, Copy)]
pub struct Measure {
    pub cpu: Option<Duration>,
    pub wall: Option<Duration>,
}

impl Measure {
    fn timed_out() -> Measure {
        Measure {
            cpu: None,
            wall: None,
        }
    }
}

/// Reaps `child` if it has ended (`block`: waits for it): its own CPU time, user + system,
/// from `wait4` on its pid. Not `getrusage(RUSAGE_CHILDREN)`: the tests share their process
/// (tests/suite.rs), and other tests' children end at the same time. `None` while it runs.
/// After `Some`, `child` must not be waited for again.
#[cfg(target_os = "linux")]
fn reap(child: &mut std::process::Child, block: bool) -> Option<Duration> {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 writes the status and the struct it is given and nothing else; `pid` is
    // this process's child, not reaped yet (callers stop at the first `Some`).
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if block { 0 } else { libc::WNOHANG };
    let r = unsafe { libc::wait4(pid, &mut status, flags, &mut u) };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    (r == pid).then(|| tv(u.ru_utime) + tv(u.ru_stime))
}

/// Elsewhere: whether `child` has ended, with no CPU time (zero).
#[cfg(not(target_os = "linux"))]
fn reap(child: &mut std::process::Child, block: bool) -> Option<Duration> {
    let ended = if block {
        child.wait().ok()
    } else {
        child.try_wait().ok().flatten()
    };
    ended.map(|_| Duration::ZERO)
}

/// Runs `cmd` to its end (stdout and stderr discarded) within `limit`; its CPU and wall time.
fn run_child(mut cmd: Command, limit: Duration) -> Measure {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .stdin(Stdio::null());
    let t = Instant::now();
    let mut child = cmd.spawn().expect("spawn the binary");
    loop {
        if let Some(cpu) = reap(&mut child, false) {
            return Measure {
                cpu: Some(cpu),
                wall: Some(t.elapsed()),
            };
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = reap(&mut child, true);
            return Measure::timed_out();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn write(path: &Path, text: &str) {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

fn check(bin: &Path, args: &[&str], file: &Path, limit: Duration) -> Measure {
    let mut cmd = Command::new(bin);
    cmd.arg("check").args(args).arg(file);
    run_child(cmd, limit)
}

/// A Python file of `n` pynetbox calls, one per line, each with an unknown filter (`nam`).
fn py_calls(n: usize) -> String {
    let mut t = String::from("import pynetbox\nnb = pynetbox.api(\"https://nb\")\n");
    for i in 0..n {
        t.push_str(&format!(
            "nb.dcim.devices.filter(nam=\"x{i}\", site=\"s{i}\")\n"
        ));
    }
    t
}

/// `check` on a `.py` file of `n` pynetbox calls ([`py_calls`]).
fn check_py_calls(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let f = dir.join("calls.py");
    write(&f, &py_calls(n));
    check(bin, &[], &f, limit)
}

/// `n` REST URLs as inline code in a Markdown file, one per line.
fn check_md_calls(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let mut t = String::from("# Calls\n\n");
    for i in 0..n {
        t.push_str(&format!("- `GET /api/dcim/devices/?nam=x{i}&site=s{i}`\n"));
    }
    let f = dir.join("SKILL.md");
    write(&f, &t);
    check(bin, &[], &f, limit)
}

/// The lines of a file with `n` calls that break from NetBox 4.6 to 4.7 (a text lookup of
/// `protocol`, removed in 4.7.0), each with a certain fix that works on both.
fn breaking_calls(n: usize) -> String {
    (0..n)
        .map(|i| format!("GET /api/ipam/services/?protocol__ic=tc&name=s{i}\n"))
        .collect()
}

/// `check --upgrade-to 4.7` from 4.6 on a file of `n` breaking calls.
fn upgrade_calls(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let f = dir.join("calls.txt");
    write(&f, &breaking_calls(n));
    check(
        bin,
        &["--netbox-version", "4.6", "--upgrade-to", "4.7"],
        &f,
        limit,
    )
}

/// The language server with `upgradeTo` 4.7 (from 4.6) on a document of `n` breaking calls.
fn editor_upgrade(bin: &Path, n: usize, _dir: &Path, limit: Duration) -> Measure {
    editor(
        bin,
        json!({"netboxVersion": "4.6", "upgradeTo": "4.7"}),
        ("file:///scaling/calls.txt", "plaintext", &breaking_calls(n)),
        &|d| d.iter().any(|d| d["code"] == "upgrade-breaks"),
        limit,
    )
}

/// The language server with its default settings (no `upgradeTo`) on a Python document of `n`
/// pynetbox calls, each with an unknown filter: done when all `n` are reported.
fn editor_calls(bin: &Path, n: usize, _dir: &Path, limit: Duration) -> Measure {
    editor(
        bin,
        json!({}),
        ("file:///scaling/calls.py", "python", &py_calls(n)),
        &|d| d.iter().filter(|d| d["code"] == "unknown-filter").count() >= n,
        limit,
    )
}

/// The language server over stdio: spawn with `options` (`initializationOptions`), open the
/// document `(uri, language, text)`, wait for diagnostics of it that satisfy `done`, shut
/// down. Wall time from the open to those diagnostics; CPU time of the whole server process.
fn editor(
    bin: &Path,
    options: Value,
    (uri, language, text): (&str, &str, &str),
    done: &dyn Fn(&[Value]) -> bool,
    limit: Duration,
) -> Measure {
    let mut child = Command::new(bin)
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let reader = std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut len = None;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    len = v.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; len.unwrap_or(0)];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            let Ok(v) = serde_json::from_slice(&body) else {
                return;
            };
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    let send = |w: &mut std::process::ChildStdin, v: Value| {
        let body = v.to_string();
        let _ = w.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        let _ = w.flush();
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "rootUri": null, "capabilities": {},
            "initializationOptions": options}}),
    );
    let deadline = Instant::now() + limit;
    let wait = |pred: &dyn Fn(&Value) -> bool, stdin: &mut std::process::ChildStdin| loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(m) => {
                if let (Some(_), Some(id)) = (m.get("method"), m.get("id")) {
                    send(stdin, json!({"jsonrpc": "2.0", "id": id, "result": null}));
                    continue;
                }
                if pred(&m) {
                    return true;
                }
            }
            Err(_) => return false,
        }
    };
    let mut ok = wait(&|m| m["id"] == json!(1), &mut stdin);
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    let t = Instant::now();
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}}}),
    );
    ok = ok
        && wait(
            &|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["diagnostics"]
                        .as_array()
                        .is_some_and(|d| done(d))
            },
            &mut stdin,
        );
    let wall = t.elapsed();
    if ok {
        send(
            &mut stdin,
            json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}),
        );
        let _ = wait(&|m| m["id"] == json!(2), &mut stdin);
        send(
            &mut stdin,
            json!({"jsonrpc": "2.0", "method": "exit", "params": null}),
        );
    }
    drop(stdin);
    let end = Instant::now() + Duration::from_secs(5);
    let mut cpu = reap(&mut child, false);
    while cpu.is_none() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
        cpu = reap(&mut child, false);
    }
    if cpu.is_none() {
        let _ = child.kill();
        cpu = reap(&mut child, true);
    }
    let _ = reader.join();
    if !ok {
        return Measure::timed_out();
    }
    Measure {
        cpu,
        wall: Some(wall),
    }
}

/// `n` code fences, each right after an HTML comment, with no blank line between them.
fn md_fences_after_comments(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!(
            "<!-- step {i} -->\n```\nGET /api/dcim/devices/?nam=x{i}\n```\n"
        ));
    }
    let f = dir.join("SKILL.md");
    write(&f, &t);
    check(bin, &[], &f, limit)
}

/// `n` headings, each right above a Python fence.
fn md_headings(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let mut t = String::new();
    for i in 0..n {
        t.push_str(&format!(
            "## Step {i}\n```python\nnb.dcim.devices.filter(nam=\"x{i}\")\n```\n"
        ));
    }
    let f = dir.join("SKILL.md");
    write(&f, &t);
    check(bin, &[], &f, limit)
}

/// `n` lesson cues ("Wrong:" / "Right:" around calls) in one list.
fn md_lesson_cues(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let mut t = String::from("# Filters\n\n");
    for i in 0..n {
        t.push_str(&format!(
            "- Wrong: `/api/dcim/devices/?nam=x{i}`; right: `/api/dcim/devices/?name=x{i}`. Never use `nam`.\n"
        ));
    }
    let f = dir.join("SKILL.md");
    write(&f, &t);
    check(bin, &[], &f, limit)
}

/// An OpenAPI document with one list endpoint per item of `endpoints`, each with the query
/// parameters `params` gives.
fn openapi(endpoints: usize, params: &dyn Fn(usize) -> Vec<Value>) -> String {
    let mut paths = serde_json::Map::new();
    for e in 0..endpoints {
        paths.insert(
            format!("/api/dcim/model{e}s/"),
            json!({"get": {"parameters": params(e), "responses": {"200": {"content": {
                "application/json": {"schema": {"$ref": format!("#/components/schemas/PaginatedModel{e}List")}}}}}}}),
        );
    }
    json!({"openapi": "3.0.3", "info": {"version": "4.7.3"}, "paths": paths, "components": {"schemas": {}}})
        .to_string()
}

fn index_build(bin: &Path, doc: &str, dir: &Path, limit: Duration) -> Measure {
    let f = dir.join("openapi.json");
    write(&f, doc);
    let mut cmd = Command::new(bin);
    cmd.args(["index", "build", "--openapi"])
        .arg(&f)
        .arg("-o")
        .arg(dir.join("out.index.json.gz"))
        .args([
            "--max-json-items",
            "100000000",
            "--max-document-mib",
            "4096",
        ]);
    run_child(cmd, limit)
}

/// One parameter whose inline enum has `n` values (and a bullet per value in its description,
/// as drf-spectacular writes it).
fn index_enum(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let values: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
    let desc: String = (0..n).map(|i| format!("* `v{i}` - V{i}\n")).collect();
    let doc = openapi(1, &|_| {
        vec![json!({"in": "query", "name": "status", "description": desc,
            "schema": {"type": "string", "enum": values}})]
    });
    index_build(bin, &doc, dir, limit)
}

fn index_endpoints(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let doc = openapi(n, &|_| {
        vec![json!({"in": "query", "name": "name", "schema": {"type": "string"}})]
    });
    index_build(bin, &doc, dir, limit)
}

fn index_params(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let doc = openapi(1, &|_| {
        (0..n)
            .map(|i| json!({"in": "query", "name": format!("p{i}"), "schema": {"type": "string"}}))
            .collect()
    });
    index_build(bin, &doc, dir, limit)
}

/// `check --fix` on a folder of `n` files (in folders of 1,000), each with one certain fix.
fn fix_files(bin: &Path, n: usize, dir: &Path, limit: Duration) -> Measure {
    let root = dir.join("skills");
    for i in 0..n {
        write(
            &root.join(format!("d{}/s{i}.md", i / 1000)),
            &format!("Call `/api/dcim/devices/?device_role_id={i}`.\n"),
        );
    }
    check(bin, &["--fix"], &root, limit)
}

/// Every scenario.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "check_py_calls",
            unit: "pynetbox calls per .py file",
            bench_base: 1000,
            test_base: 400,
            run: check_py_calls,
        },
        Scenario {
            name: "check_md_calls",
            unit: "URLs per Markdown file",
            bench_base: 1000,
            test_base: 400,
            run: check_md_calls,
        },
        Scenario {
            name: "upgrade_calls",
            unit: "breaking calls per file, check --upgrade-to",
            bench_base: 100,
            test_base: 60,
            run: upgrade_calls,
        },
        Scenario {
            name: "editor_calls",
            unit: "pynetbox calls per document, editor without upgradeTo",
            bench_base: 200,
            test_base: 100,
            run: editor_calls,
        },
        Scenario {
            name: "editor_upgrade",
            unit: "breaking calls per document, editor with upgradeTo",
            bench_base: 50,
            test_base: 60,
            run: editor_upgrade,
        },
        Scenario {
            name: "md_fences_after_comments",
            unit: "fences after HTML comments, no blank line",
            bench_base: 160,
            test_base: 1000,
            run: md_fences_after_comments,
        },
        Scenario {
            name: "md_headings",
            unit: "headings over Python fences",
            bench_base: 160,
            test_base: 1000,
            run: md_headings,
        },
        Scenario {
            name: "md_lesson_cues",
            unit: "lesson cue lines",
            bench_base: 160,
            test_base: 400,
            run: md_lesson_cues,
        },
        Scenario {
            name: "index_enum",
            unit: "values of one enum, index build",
            bench_base: 3000,
            test_base: 2000,
            run: index_enum,
        },
        Scenario {
            name: "index_endpoints",
            unit: "endpoints, index build",
            bench_base: 100,
            test_base: 200,
            run: index_endpoints,
        },
        Scenario {
            name: "index_params",
            unit: "parameters of one endpoint, index build",
            bench_base: 100,
            test_base: 200,
            run: index_params,
        },
        Scenario {
            name: "fix_files",
            unit: "files, check --fix",
            bench_base: 100,
            test_base: 40,
            run: fix_files,
        },
    ]
}

/// The smallest CPU time of `reps` runs of `s` at size `n` with `bin` (each in a fresh
/// folder), and the wall time of that run; `None` when a run did not end within `limit`.
pub fn measure(s: &Scenario, bin: &Path, n: usize, reps: usize, limit: Duration) -> Measure {
    let mut best: Option<Measure> = None;
    for _ in 0..reps {
        let dir = tempfile::tempdir().unwrap();
        let m = (s.run)(bin, n, dir.path(), limit);
        if m.cpu.is_none() {
            return m;
        }
        let long = m.wall.is_some_and(|w| w > Duration::from_secs(2));
        if best.is_none_or(|b| m.cpu < b.cpu) {
            best = Some(m);
        }
        if long {
            break; // one run of seconds says enough
        }
    }
    best.unwrap_or(Measure::timed_out())
}

/// The binary this crate built, or the one `NETBOX_LSP_SCALING_BIN` names (to see an older
/// build fail the bound).
pub fn bin() -> PathBuf {
    std::env::var_os("NETBOX_LSP_SCALING_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_netbox-lsp")),
        PathBuf::from,
    )
}
