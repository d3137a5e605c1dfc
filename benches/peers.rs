//! The in-process side of `scripts/bench-peers.sh` (issue 13): our checks timed on the same
//! inputs the Python peers get, printed as `OURS <figure> <median µs> <p10> <p90> <rounds>`.
//!
//! - `dict`: `rest::check_call` per filter dict (the calls pre-extracted from `calls.py`);
//! - `py_call`: `analyze()` of `calls.py` (one `netbox_get_objects(...)` per line) per call;
//! - `md_url`: `analyze()` of `urls.md` (one REST URL per list item) per URL;
//! - `graphql_doc`: `analyze()` of each document of `docs.txt` (one per line) as a `.graphql`
//!   host, per document.
//!
//! - `index_load_ms`, `skill5000_analyze_ms`: the embedded 4.6.8 index decoded from its bytes,
//!   and `analyze()` of the generated 5,000-line SKILL.md of `benches/check.rs` (goals of
//!   issue 2 kept by issue 13: ≤ 2 ms and ≤ 10 ms), in the same run as the peers.
//!
//! It also writes `verdicts.txt`: for each dict (line order of `calls.py`), `1` when our check
//! reports an error or warning on it, else `0`, for the verdict agreement table.
//!
//! Usage: `peers DIR ROUNDS` (built by `cargo bench --no-run --bench peers`; not a criterion
//! bench: the script interleaves it with the Python peers and takes medians itself).

#[path = "common/mod.rs"]
mod common;

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::{self, HostKind, Site};
use netbox_lsp::finding::Severity;
use netbox_lsp::index::embedded::embedded_index;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

fn stats(name: &str, per: usize, mut samples: Vec<f64>) {
    samples.sort_by(f64::total_cmp);
    let q = |p: f64| samples[((samples.len() - 1) as f64 * p).round() as usize] / per as f64;
    println!(
        "OURS {name} {:.3} {:.3} {:.3} {}",
        q(0.5),
        q(0.1),
        q(0.9),
        samples.len()
    );
}

/// CPU time of this process so far (all threads, µs), from `/proc/self/task/*/schedstat`
/// (nanoseconds on the CPU, updated at scheduler ticks: rounds must last milliseconds): on a
/// shared machine it says what the work cost, where wall time also counts the waits for a core.
fn cpu_us() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .sum::<f64>()
        / 1000.0
}

thread_local! {
    static CPU: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Wall µs per round; the CPU µs of each round are kept for [`stats_cpu`].
fn time(rounds: usize, mut f: impl FnMut()) -> Vec<f64> {
    f(); // warm-up (and the lazy schema / index builds)
    let mut cpu = Vec::new();
    let wall = (0..rounds)
        .map(|_| {
            let c = cpu_us();
            let t = Instant::now();
            f();
            let w = t.elapsed().as_secs_f64() * 1e6;
            cpu.push(cpu_us() - c);
            w
        })
        .collect();
    CPU.with(|c| *c.borrow_mut() = cpu);
    wall
}

/// [`stats`] of the wall times, then of the CPU times of the same rounds (`<name>_cpu`).
fn stats_both(name: &str, per: usize, wall: Vec<f64>) {
    stats(name, per, wall);
    let cpu = CPU.with(|c| c.borrow().clone());
    stats(&format!("{name}_cpu"), per, cpu);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: peers DIR ROUNDS");
        std::process::exit(2);
    }
    let dir = Path::new(&args[1]);
    let rounds: usize = args[2].parse().expect("ROUNDS is a number");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect(f);
    let knowledge = Knowledge {
        index: Some(embedded_index("4.6.8")),
        graphql_embedded: Some("4.6.8"),
        ..Default::default()
    };
    let index = knowledge.index.clone().expect("index");

    let py = read("calls.py");
    let calls: Vec<_> = extract::extract(&py, HostKind::Python)
        .sites
        .into_iter()
        .filter_map(|s| match s {
            Site::Rest(c) => Some(c),
            _ => None,
        })
        .collect();
    let n = calls.len();
    stats_both(
        "dict",
        n,
        time(rounds, || {
            for c in &calls {
                black_box(netbox_lsp::rest::check_call(c, &index));
            }
        }),
    );
    stats_both(
        "py_call",
        n,
        time(rounds, || {
            black_box(analyze(&py, HostKind::Python, &knowledge));
        }),
    );
    let md = read("urls.md");
    let urls = md.lines().filter(|l| l.starts_with("- ")).count();
    stats_both(
        "md_url",
        urls,
        time(rounds, || {
            black_box(analyze(&md, HostKind::Markdown, &knowledge));
        }),
    );
    let docs: Vec<String> = read("docs.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    // 50 passes per round: a pass (≈ 0.4 ms) is below the resolution of the CPU clock.
    stats_both(
        "graphql_doc",
        docs.len() * 50,
        time(rounds, || {
            for _ in 0..50 {
                for d in &docs {
                    black_box(analyze(d, HostKind::Graphql, &knowledge));
                }
            }
        }),
    );

    let gz = netbox_lsp::index::embedded::RELEASES
        .iter()
        .find(|r| r.version == "4.6.8")
        .expect("4.6.8 is shipped")
        .index_gz;
    let ms = |v: Vec<f64>| v.into_iter().map(|us| us / 1000.0).collect::<Vec<f64>>();
    stats(
        "index_load_ms",
        1,
        ms(time(rounds.max(5), || {
            black_box(netbox_lsp::index::load::load_index(gz).expect("loads"));
        })),
    );
    let skill = common::skill_md(5000);
    stats(
        "skill5000_analyze_ms",
        1,
        ms(time(rounds.max(5), || {
            black_box(analyze(&skill, HostKind::Markdown, &knowledge));
        })),
    );

    // Verdicts: one line per call of calls.py (line 1 is a comment; call k is on line k + 2).
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(py.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut flagged = vec![false; line_starts.len().saturating_sub(2)];
    for f in analyze(&py, HostKind::Python, &knowledge) {
        if !matches!(f.severity, Severity::Error | Severity::Warning) {
            continue;
        }
        let line = line_starts.partition_point(|&s| s <= f.range.start) - 1;
        if let Some(slot) = line.checked_sub(1).and_then(|k| flagged.get_mut(k)) {
            *slot = true;
        }
    }
    let text: String = flagged
        .iter()
        .map(|&b| if b { "1\n" } else { "0\n" })
        .collect();
    std::fs::write(dir.join("verdicts.txt"), text).expect("write verdicts.txt");
}
