//! Language-server benchmarks of issue 3 §3 (custom harness: prints medians).
//!
//! Drives the real server, in process over `tokio::io::duplex` and as the real binary over
//! stdio, with the generated 5,000-line SKILL.md of `benches/common`:
//!
//! - `didChange` (full text, new version) → its `publishDiagnostics` (goal ≤ 15 ms median): an
//!   edit of one filter value in a Python fence mid-document (that fence is re-read, the blocks
//!   after it move), and in process also an edit of prose. The server debounces changes
//!   (60 ms); the bench sets `NETBOX_LSP_DEBOUNCE_MS=0` for the main figure and also reports
//!   the binary with the default debounce.
//! - completion inside a filters dict of that document (goal ≤ 5 ms); over stdio also for a
//!   client that resolves documentation lazily (`completion_stdio_lazy_docs`, VS Code's
//!   `resolveSupport`).
//! - spawn of the binary → first diagnostics after `didOpen` (goal ≤ 100 ms).
//! - resident memory (VmRSS / VmHWM of the spawned server) with the 4.6.8 knowledge loaded and
//!   then 4.3.3 as well, after `workspace/didChangeConfiguration` (goal ≤ 60 MB).
//!
//! Baselines, in the same run: the same `analyze()` (uncached: every block read) / completion
//! functions called directly in process, and for the start a cold in-process load (index decode + GraphQL schema build +
//! `analyze()`), so each ratio shows what the protocol and the process add.
//!
//! `NETBOX_LSP_BENCH_BIN=<path>` drives another build over stdio (a baseline, in the same run);
//! `NETBOX_LSP_BENCH_DUMP=<file>` writes the document, prints the completion site and exits (for
//! a profiler's driver).
//!
//! Output: a table, and one `BENCH <name> <median_ms> <p10_ms> <p90_ms> <n>` line per figure
//! (and `MEM <name> <kB>`) for `scripts/bench.sh`.

#[path = "common/mod.rs"]
mod common;

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::index::embedded::{embedded_index, RELEASES};
use netbox_lsp::server::diagnostics::DEBOUNCE_ENV;
use netbox_lsp::server::position::{Encoding, Snapshot};
use netbox_lsp::server::{completion, context, graphql_site};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, WriteHalf};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

const URI: &str = "file:///bench/skills/ops/SKILL.md";
/// The 114-line example skill file, for completion in a document of ordinary size.
const SMALL_URI: &str = "file:///bench/skills/inventory/SKILL.md";
const TIMEOUT: Duration = Duration::from_secs(30);
/// The binary driven over stdio: `NETBOX_LSP_BENCH_BIN` (another build, e.g. a baseline, in
/// the same run) or this build's.
fn bin() -> String {
    std::env::var("NETBOX_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_netbox-lsp").to_string())
}

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Splits LSP frames off `buf`; returns the complete messages.
fn unframe(buf: &mut Vec<u8>) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
        let len: usize = std::str::from_utf8(&buf[..end])
            .ok()
            .and_then(|h| {
                h.lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .and_then(|n| n.trim().parse().ok())
            })
            .expect("Content-Length header");
        if buf.len() < end + 4 + len {
            break;
        }
        let body: Vec<u8> = buf.drain(..end + 4 + len).skip(end + 4).collect();
        out.push(serde_json::from_slice(&body).expect("JSON body"));
    }
    out
}

enum Sink {
    InProcess(WriteHalf<DuplexStream>),
    Child(ChildStdin),
}

/// A minimal LSP client over the in-process server or a child process.
struct Client {
    sink: Sink,
    rx: UnboundedReceiver<Value>,
    next_id: i64,
    child: Option<Child>,
}

impl Client {
    fn in_process() -> Client {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(server_end);
        tokio::spawn(netbox_lsp::server::serve(sr, sw, false));
        let (mut cr, cw) = tokio::io::split(client_end);
        let (tx, rx) = unbounded_channel();
        tokio::spawn(async move {
            let mut buf = Vec::new();
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                let n = cr.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    return;
                }
                buf.extend_from_slice(&chunk[..n]);
                for m in unframe(&mut buf) {
                    if tx.send(m).is_err() {
                        return;
                    }
                }
            }
        });
        Client {
            sink: Sink::InProcess(cw),
            rx,
            next_id: 1,
            child: None,
        }
    }

    /// Spawns the binary (`netbox-lsp --stdio`) with `debounce_ms` (`None`: the default).
    fn spawn(debounce_ms: Option<u64>) -> Client {
        let mut cmd = Command::new(bin());
        cmd.arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .env_remove(DEBOUNCE_ENV);
        if let Some(ms) = debounce_ms {
            cmd.env(DEBOUNCE_ENV, ms.to_string());
        }
        let mut child = cmd.spawn().expect("spawn netbox-lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = unbounded_channel();
        std::thread::spawn(move || pump(stdout, tx));
        Client {
            sink: Sink::Child(stdin),
            rx,
            next_id: 1,
            child: Some(child),
        }
    }

    async fn send(&mut self, v: Value) {
        let bytes = frame(&v);
        match &mut self.sink {
            Sink::InProcess(w) => {
                w.write_all(&bytes).await.unwrap();
                w.flush().await.unwrap();
            }
            Sink::Child(w) => {
                w.write_all(&bytes).unwrap();
                w.flush().unwrap();
            }
        }
    }

    async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Waits for the first message matching `pred`, answering server requests on the way.
    async fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let m = tokio::time::timeout_at(deadline, self.rx.recv())
                .await
                .expect("the server answered in time")
                .expect("the server is running");
            if let (Some(_), Some(id)) = (m.get("method"), m.get("id")) {
                let id = id.clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}))
                    .await;
                continue;
            }
            if pred(&m) {
                return m;
            }
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let r = self
            .wait_for(|m| m["id"] == json!(id) && m.get("method").is_none())
            .await;
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    async fn initialize(&mut self) {
        self.initialize_with(json!({})).await
    }

    /// Initialises with `completion` as the client's `textDocument.completion` capabilities.
    async fn initialize_with(&mut self, completion: Value) {
        self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {
                "textDocument": {"publishDiagnostics": {"versionSupport": true}, "completion": completion},
                "general": {"positionEncodings": ["utf-16"]}}}),
        )
        .await;
        self.notify("initialized", json!({})).await;
    }

    async fn diagnostics(&mut self, version: i64) -> Vec<Value> {
        self.diagnostics_of(URI, version).await
    }

    async fn diagnostics_of(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let p = self
            .wait_for(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == json!(version)
            })
            .await;
        p["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    async fn open(&mut self, text: &str) {
        self.open_as(URI, text).await
    }

    async fn open_as(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        )
        .await;
    }

    async fn change(&mut self, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version}, "contentChanges": [{"text": text}]}),
        )
        .await;
    }

    async fn completion(&mut self, uri: &str, line: u32, character: u32) -> usize {
        let r = self
            .request(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
            )
            .await;
        r.as_array()
            .or_else(|| r["items"].as_array())
            .map_or(0, Vec::len)
    }

    async fn shutdown(mut self) {
        self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
    }

    fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

fn pump(stdout: impl Read, tx: UnboundedSender<Value>) {
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
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                len = n.parse::<usize>().ok();
            }
        }
        let mut body = vec![0; len.expect("Content-Length")];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
            return;
        }
    }
}

/// Median, 10th and 90th percentile of `samples` (milliseconds).
struct Stats {
    median: f64,
    p10: f64,
    p90: f64,
    n: usize,
}

fn stats(mut samples: Vec<f64>) -> Stats {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Stats {
        median: at(0.5),
        p10: at(0.1),
        p90: at(0.9),
        n: samples.len(),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(name: &str, s: &Stats) {
    println!(
        "BENCH {name} {:.3} {:.3} {:.3} {}",
        s.median, s.p10, s.p90, s.n
    );
}

/// `VmRSS` and `VmHWM` (kB) of a process.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The two texts a prose edit alternates between: one word differs near the end.
fn variants(text: &str) -> [String; 2] {
    let b = text.replacen("Keep each call narrow", "Keep every call narrow", 1);
    [text.to_string(), b]
}

/// The two texts a code edit alternates between: one filter value in a Python fence in the
/// middle of the document differs (`True` ↔ `False`), so that fence is re-read and every
/// block after it moves by a byte.
fn code_variants(text: &str) -> [String; 2] {
    let mid = text.len() / 2;
    let at = mid
        + text[mid..]
            .find("\"enabled\": True")
            .expect("an enabled filter");
    let mut b = text.to_string();
    b.replace_range(at..at + "\"enabled\": True".len(), "\"enabled\": False");
    [text.to_string(), b]
}

/// Position (line, UTF-16 column) of the completion site: inside the first `"role_id"` key of a
/// filters dict at or after byte `from` (ASCII text), after `"ro`.
fn completion_site(text: &str, from: usize) -> (u32, u32) {
    let at = text[from..]
        .find("\"role_id\"")
        .map(|i| i + from + 3)
        .expect("a role_id filter");
    let line = text[..at].matches('\n').count() as u32;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line, col as u32)
}

const CHANGE_ROUNDS: usize = 30;
/// Completion in the 5,000-line document re-extracts the whole document (see docs/benchmarks.md).
const BIG_COMPLETION_ROUNDS: usize = 30;
const COMPLETION_ROUNDS: usize = 200;
const START_ROUNDS: usize = 10;

async fn change_latency(c: &mut Client, texts: &[String; 2], rounds: usize, first: i64) -> Stats {
    let mut samples = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let v = first + i as i64;
        let t = Instant::now();
        c.change(v, &texts[i % 2]).await;
        c.diagnostics(v).await;
        samples.push(ms(t.elapsed()));
    }
    stats(samples)
}

async fn completion_latency(c: &mut Client, uri: &str, pos: (u32, u32), rounds: usize) -> Stats {
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        let n = c.completion(uri, pos.0, pos.1).await;
        samples.push(ms(t.elapsed()));
        assert!(n > 0, "completion offers filters at the site");
    }
    stats(samples)
}

fn knowledge(version: &'static str) -> Knowledge {
    Knowledge {
        index: Some(embedded_index(version)),
        graphql: netbox_lsp::graphql::embedded_schema(version),
        ..Default::default()
    }
}

/// The path `textDocument/completion` takes (see src/server/completion.rs), called directly.
fn direct_completion(text: &str, pos: (u32, u32), rounds: usize) -> Stats {
    let index = embedded_index("4.6.8");
    let snap = Snapshot::new(text.to_string(), 1);
    let position = tower_lsp_server::ls_types::Position::new(pos.0, pos.1);
    let mut c = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let offset = snap.offset(position, Encoding::Utf16);
        assert!(graphql_site::locate(&snap.text, HostKind::Markdown, offset).is_none());
        let ctx = context::at(&snap.text, offset, HostKind::Markdown).expect("a filter context");
        let items = completion::items(&ctx, &index, &snap, Encoding::Utf16);
        assert!(!items.is_empty());
        c.push(ms(t.elapsed()));
    }
    stats(c)
}

/// `analyze()` of `texts` (alternating), directly in process with cached knowledge.
fn direct_analyze(texts: &[String; 2]) -> Stats {
    let know = knowledge("4.6.8");
    let mut a = Vec::new();
    for i in 0..CHANGE_ROUNDS {
        let t = Instant::now();
        std::hint::black_box(analyze(&texts[i % 2], HostKind::Markdown, &know));
        a.push(ms(t.elapsed()));
    }
    stats(a)
}

/// Cold start, in process: decode the 4.6.8 index, build its GraphQL schema, analyse `text`.
fn direct_cold(text: &str) -> Stats {
    let release = RELEASES.iter().find(|r| r.version == "4.6.8").unwrap();
    let (gz, sdl) = (release.index_gz, release.schema_gz);
    let mut s = Vec::new();
    for _ in 0..START_ROUNDS {
        let t = Instant::now();
        let k = Knowledge {
            index: Some(std::sync::Arc::new(
                netbox_lsp::index::load::load_index(gz).unwrap(),
            )),
            graphql: Some(std::sync::Arc::new(
                netbox_lsp::graphql::embedded::build("4.6.8", sdl).unwrap(),
            )),
            ..Default::default()
        };
        std::hint::black_box(analyze(text, HostKind::Markdown, &k));
        s.push(ms(t.elapsed()));
    }
    stats(s)
}

async fn start_to_diagnostics(text: &str) -> Stats {
    let mut samples = Vec::new();
    for _ in 0..START_ROUNDS {
        let t = Instant::now();
        let mut c = Client::spawn(None);
        c.initialize().await;
        c.open(text).await;
        c.diagnostics(1).await;
        samples.push(ms(t.elapsed()));
        c.shutdown().await;
    }
    stats(samples)
}

/// Memory of the spawned server: after the document is analysed with the default (4.6.8), and
/// after the configuration switches it to 4.3 (both versions' knowledge stay cached).
async fn memory_two_versions(text: &str) -> [(u64, u64); 2] {
    let mut c = Client::spawn(None);
    c.initialize().await;
    c.open(text).await;
    let d68 = c.diagnostics(1).await.len();
    let pid = c.pid().unwrap();
    let m68 = memory(pid);
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"netboxLsp": {"netbox_version": "4.3"}}}),
    )
    .await;
    let d43 = c.diagnostics(1).await.len();
    // Completion and hover paths touch the same knowledge; one completion makes sure nothing
    // is loaded lazily later.
    let pos = completion_site(text, 0);
    c.completion(URI, pos.0, pos.1).await;
    let m43 = memory(pid);
    eprintln!("memory run: {d68} diagnostics with 4.6.8, {d43} with 4.3.3");
    c.shutdown().await;
    [m68, m43]
}

fn main() {
    // Only the in-process server reads this process's environment; the spawned binaries get
    // theirs explicitly.
    std::env::set_var(DEBOUNCE_ENV, "0");
    let text = common::skill_md(common::SKILL_LINES);
    let texts = code_variants(&text);
    let prose = variants(&text);
    let pos = completion_site(&text, text.len() / 2);
    let small = include_str!("../examples/skills/netbox-inventory/SKILL.md");
    let small_pos = completion_site(small, 0);
    if let Ok(path) = std::env::var("NETBOX_LSP_BENCH_DUMP") {
        // The document and the completion site, for a driver of the server under a profiler.
        std::fs::write(&path, &text).expect("write the document");
        println!("{} {}", pos.0, pos.1);
        return;
    }
    eprintln!(
        "lsp bench: SKILL.md {} lines, {} bytes; completion at {}:{}",
        text.lines().count(),
        text.len(),
        pos.0,
        pos.1
    );

    let baselines = [
        ("baseline_analyze_direct", direct_analyze(&texts)),
        (
            "baseline_completion_direct",
            direct_completion(&text, pos, BIG_COMPLETION_ROUNDS),
        ),
        (
            "baseline_completion_small_doc_direct",
            direct_completion(small, small_pos, COMPLETION_ROUNDS),
        ),
        ("baseline_cold_load_analyze_direct", direct_cold(&text)),
        (
            "baseline_cold_load_analyze_small_direct",
            direct_cold(small),
        ),
    ];

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let results = rt.block_on(async {
        let mut r: Vec<(&str, Stats)> = Vec::new();
        // In process, debounce 0.
        let mut c = Client::in_process();
        c.initialize().await;
        c.open(&text).await;
        c.diagnostics(1).await;
        r.push((
            "change_to_diagnostics_inprocess",
            change_latency(&mut c, &texts, CHANGE_ROUNDS, 2).await,
        ));
        r.push((
            "change_prose_to_diagnostics_inprocess",
            change_latency(&mut c, &prose, CHANGE_ROUNDS, 2 + CHANGE_ROUNDS as i64).await,
        ));
        r.push((
            "completion_inprocess",
            completion_latency(&mut c, URI, pos, BIG_COMPLETION_ROUNDS).await,
        ));
        c.open_as(SMALL_URI, small).await;
        c.diagnostics_of(SMALL_URI, 1).await;
        r.push((
            "completion_small_doc_inprocess",
            completion_latency(&mut c, SMALL_URI, small_pos, COMPLETION_ROUNDS).await,
        ));
        c.shutdown().await;

        // The binary over stdio, debounce 0 and default.
        let mut c = Client::spawn(Some(0));
        c.initialize().await;
        c.open(&text).await;
        c.diagnostics(1).await;
        r.push((
            "change_to_diagnostics_stdio",
            change_latency(&mut c, &texts, CHANGE_ROUNDS, 2).await,
        ));
        r.push((
            "completion_stdio",
            completion_latency(&mut c, URI, pos, BIG_COMPLETION_ROUNDS).await,
        ));
        c.open_as(SMALL_URI, small).await;
        c.diagnostics_of(SMALL_URI, 1).await;
        r.push((
            "completion_small_doc_stdio",
            completion_latency(&mut c, SMALL_URI, small_pos, COMPLETION_ROUNDS).await,
        ));
        c.shutdown().await;
        // A client that resolves documentation lazily, as VS Code declares it.
        let mut c = Client::spawn(Some(0));
        c.initialize_with(json!({"completionItem": {"resolveSupport": {
            "properties": ["documentation", "detail", "additionalTextEdits"]}}}))
            .await;
        c.open(&text).await;
        c.diagnostics(1).await;
        r.push((
            "completion_stdio_lazy_docs",
            completion_latency(&mut c, URI, pos, BIG_COMPLETION_ROUNDS).await,
        ));
        c.shutdown().await;
        let mut c = Client::spawn(None);
        c.initialize().await;
        c.open(&text).await;
        c.diagnostics(1).await;
        r.push((
            "change_to_diagnostics_stdio_debounced",
            change_latency(&mut c, &texts, 20, 2).await,
        ));
        c.shutdown().await;

        r.push((
            "start_to_diagnostics_5000_lines",
            start_to_diagnostics(&text).await,
        ));
        r.push((
            "start_to_diagnostics_small",
            start_to_diagnostics(small).await,
        ));
        let mem = memory_two_versions(&text).await;
        (r, mem)
    });
    let (mut rows, mem) = results;
    rows.extend(baselines);

    println!("\nnetbox-lsp language server (medians, ms; p10–p90 in brackets)");
    for (name, s) in &rows {
        println!(
            "  {name:<40} {:>9.3}  [{:.3} – {:.3}]  n={}",
            s.median, s.p10, s.p90, s.n
        );
    }
    println!(
        "  memory with 4.6.8 loaded: VmRSS {} kB, VmHWM {} kB",
        mem[0].0, mem[0].1
    );
    println!(
        "  memory with 4.6.8 + 4.3.3 loaded: VmRSS {} kB, VmHWM {} kB",
        mem[1].0, mem[1].1
    );
    for (name, s) in &rows {
        report(name, s);
    }
    println!("MEM rss_4.6.8 {}", mem[0].0);
    println!("MEM hwm_4.6.8 {}", mem[0].1);
    println!("MEM rss_4.6.8_4.3.3 {}", mem[1].0);
    println!("MEM hwm_4.6.8_4.3.3 {}", mem[1].1);
}
