//! Benchmarks of issue 2 §5, each beside a baseline measured in the same run:
//!
//! - `index_load/*`: decoding the embedded NetBox 4.6.8 filter index from its bytes (goal ≤ 2 ms)
//!   vs plain gunzip + `serde_json::Value` of the same bytes; and each other shipped release's
//!   index (`embedded_<version>`, the default among them).
//! - `skill_md/*`: `analyze()` of a generated 5,000-line SKILL.md (goal ≤ 10 ms) vs the
//!   pulldown-cmark event stream of the same text (reading its structure, the floor of any
//!   Markdown host); `extract` alone (one thread), REST-only analysis and analysis on one thread
//!   split where the time goes.
//! - `corpus/*`: 10,000 filter dicts drawn from the 4.6.8 index: `rest::check_call` over the
//!   pre-extracted calls and end-to-end `analyze()` of the `.py` file holding them, vs the
//!   a name-set membership floor (each name looked up in a prebuilt hash set of the endpoint's
//!   parameters: not pynetbox, which rebuilds a list per call; the real pynetbox is measured by
//!   `scripts/bench-peers.sh`).
//!   Throughput is reported in dicts per second.
//!
//! - `code_actions/*` (issue 9 §5): fix-all and the ignore-comment placement of a whole document
//!   on 50,000 findings of one 1 MB line and on 8,000 findings on as many lines (quadratic
//!   before: 16.9 s and 24.5 s for the whole request over stdio).
//!
//! - `long_line/*` (issue 23): `analyze()` of 10,000 query-string URLs on one 540 KB line, per
//!   host kind, vs the same URLs one per line (`baseline_lines_*`). Each URL read its whole line
//!   before (Markdown, plain text, Python: 60,000 URLs on one line took 99 s, 401 s and 294 s
//!   for `check`).
//!
//! `NETBOX_LSP_BENCH_DUMP=DIR` also writes the inputs to `DIR` (`SKILL.md`, `corpus.py`,
//! `corpus.json`) for `benches/rest_baseline.py` and the memory measurement in `scripts/bench.sh`.

#[path = "common/mod.rs"]
mod common;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use flate2::read::GzDecoder;
use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::{self, HostKind, RestCall, Site};
use netbox_lsp::index::embedded::{embedded_index, RELEASES};
use netbox_lsp::index::load::load_index;
use netbox_lsp::index::FilterIndex;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::time::Duration;

const VERSION: &str = "4.6.8";

fn index_bytes() -> &'static [u8] {
    RELEASES
        .iter()
        .find(|r| r.version == VERSION)
        .expect("4.6.8 is shipped")
        .index_gz
}

fn bench_index_load(c: &mut Criterion) {
    let bytes = index_bytes();
    let mut g = c.benchmark_group("index_load");
    g.sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    g.bench_function("embedded_4.6.8", |b| {
        b.iter(|| load_index(black_box(bytes)).unwrap())
    });
    // Every other shipped release (the default among them), for the goal with all embedded.
    for r in RELEASES.iter().filter(|r| r.version != VERSION) {
        g.bench_function(format!("embedded_{}", r.version), |b| {
            b.iter(|| load_index(black_box(r.index_gz)).unwrap())
        });
    }
    g.bench_function("baseline_gunzip_serde_value", |b| {
        b.iter(|| {
            let mut json = Vec::new();
            GzDecoder::new(black_box(bytes))
                .read_to_end(&mut json)
                .unwrap();
            serde_json::from_slice::<serde_json::Value>(&json).unwrap()
        })
    });
    g.finish();
}

fn knowledge(graphql: bool) -> Knowledge {
    Knowledge {
        index: Some(embedded_index(VERSION)),
        graphql: if graphql {
            netbox_lsp::graphql::embedded_schema(VERSION)
        } else {
            None
        },
        ..Default::default()
    }
}

fn bench_skill(c: &mut Criterion) {
    let text = common::skill_md(common::SKILL_LINES);
    let full = knowledge(true);
    assert!(
        full.graphql.is_some(),
        "the 4.6.8 GraphQL schema is shipped"
    );
    let findings = analyze(&text, HostKind::Markdown, &full);
    eprintln!(
        "skill_md: {} lines, {} bytes, {} sites, {} findings",
        text.lines().count(),
        text.len(),
        extract::extract(&text, HostKind::Markdown).sites.len(),
        findings.len()
    );
    let rest_only = knowledge(false);
    let mut g = c.benchmark_group("skill_md");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    g.bench_function("analyze", |b| {
        b.iter(|| analyze(black_box(&text), HostKind::Markdown, &full))
    });
    // The same on one thread: what the parallel reading of the blocks gains on this machine.
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    g.bench_function("analyze_one_thread", |b| {
        b.iter(|| one_thread.install(|| analyze(black_box(&text), HostKind::Markdown, &full)))
    });
    g.bench_function("analyze_rest_only", |b| {
        b.iter(|| analyze(black_box(&text), HostKind::Markdown, &rest_only))
    });
    g.bench_function("extract_only", |b| {
        b.iter(|| extract::extract(black_box(&text), HostKind::Markdown))
    });
    // The floor of any Markdown host: reading its structure, before any fence is parsed.
    g.bench_function("baseline_pulldown_cmark_events", |b| {
        b.iter(|| {
            pulldown_cmark::Parser::new_ext(black_box(&text), pulldown_cmark::Options::all())
                .into_offset_iter()
                .count()
        })
    });
    g.finish();
}

/// A name-set membership floor: the endpoint's query parameter names in a prebuilt hash set and
/// an exact membership test per key (what pynetbox's `strict_filters` decides, without its cost:
/// pynetbox rebuilds a list of the names per call; see `scripts/bench-peers.sh` for the real one).
struct StrictFilters {
    params: HashMap<String, HashSet<String>>,
}

impl StrictFilters {
    fn new(index: &FilterIndex) -> StrictFilters {
        let params = index
            .object_types
            .iter()
            .filter_map(|(ot, key)| {
                let ep = index.endpoints.get(key)?;
                Some((ot.clone(), ep.params.keys().map(str::to_string).collect()))
            })
            .collect();
        StrictFilters { params }
    }

    /// Number of keys the endpoint does not accept (0 for an unknown object type).
    fn unknown(&self, object_type: &str, keys: &[&str]) -> usize {
        self.params
            .get(object_type)
            .map_or(0, |set| keys.iter().filter(|k| !set.contains(**k)).count())
    }
}

fn bench_corpus(c: &mut Criterion) {
    let index = embedded_index(VERSION);
    let corpus = common::filter_corpus(&index, common::CORPUS_SIZE);
    let py = common::corpus_python(&corpus);
    if let Some(dir) = std::env::var_os("NETBOX_LSP_BENCH_DUMP") {
        let skill = common::skill_md(common::SKILL_LINES);
        common::dump(std::path::Path::new(&dir), &skill, &corpus).expect("write the bench dump");
    }
    let calls: Vec<RestCall> = extract::extract(&py, HostKind::Python)
        .sites
        .into_iter()
        .filter_map(|s| match s {
            Site::Rest(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), corpus.len(), "every corpus line is extracted");
    let keys: Vec<(String, Vec<&str>)> = calls
        .iter()
        .map(|c| {
            let target = c.target.as_ref().map_or("", |t| t.0.as_str()).to_string();
            (target, c.filters.iter().map(|f| f.key.as_str()).collect())
        })
        .collect();
    let strict = StrictFilters::new(&index);
    let n_findings: usize = calls
        .iter()
        .map(|c| netbox_lsp::rest::check_call(c, &index).len())
        .sum();
    let n_unknown: usize = keys.iter().map(|(t, k)| strict.unknown(t, k)).sum();
    let n_keys: usize = keys.iter().map(|(_, k)| k.len()).sum();
    eprintln!(
        "corpus: {} dicts, {} keys, {} bytes of Python; check_call findings: {n_findings}; \
         name-set membership rejects: {n_unknown} keys",
        calls.len(),
        n_keys,
        py.len()
    );
    let know = knowledge(true);
    let mut g = c.benchmark_group("corpus");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(calls.len() as u64));
    g.bench_function(BenchmarkId::new("rest_check_call", calls.len()), |b| {
        b.iter(|| {
            calls
                .iter()
                .map(|c| netbox_lsp::rest::check_call(black_box(c), &index).len())
                .sum::<usize>()
        })
    });
    g.bench_function(
        BenchmarkId::new("baseline_name_set_membership", calls.len()),
        |b| {
            b.iter(|| {
                keys.iter()
                    .map(|(t, k)| strict.unknown(black_box(t), black_box(k)))
                    .sum::<usize>()
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("analyze_py_end_to_end", calls.len()),
        |b| b.iter(|| analyze(black_box(&py), HostKind::Python, &know)),
    );
    g.finish();
}

fn bench_code_actions(c: &mut Criterion) {
    let know = knowledge(false);
    let line = format!(
        "`/api/dcim/devices/?{}`\n",
        (0..50_000)
            .map(|i| format!("device_role_id={i}"))
            .collect::<Vec<_>>()
            .join("&")
    );
    let lines: String = (0..8000)
        .map(|i| format!("`/api/dcim/devices/?device_role_id={i}`\n"))
        .collect();
    let mut g = c.benchmark_group("code_actions");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, text) in [("one_1mb_line", &line), ("8000_lines", &lines)] {
        let findings = analyze(text, HostKind::Markdown, &know);
        let refs: Vec<&netbox_lsp::finding::Finding> = findings.iter().take(2000).collect();
        g.bench_function(BenchmarkId::new("fix_all", name), |b| {
            b.iter(|| netbox_lsp::fix::fix_all_edits(black_box(&findings)).len())
        });
        g.bench_function(BenchmarkId::new("ignore_edits_2000", name), |b| {
            b.iter(|| {
                netbox_lsp::suppress::ignore_edits(black_box(text), HostKind::Markdown, &refs).len()
            })
        });
    }
    g.finish();
}

fn bench_long_line(c: &mut Criterion) {
    let urls: Vec<String> = (0..10_000)
        .map(|i| format!("/api/dcim/devices/?device_role_id={i}&site=s{i}"))
        .collect();
    let one_line = urls.join(" ") + "\n";
    let lines = urls.join("\n") + "\n";
    let k = knowledge(false);
    let mut g = c.benchmark_group("long_line");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, kind) in [
        ("markdown", HostKind::Markdown),
        ("text", HostKind::Text),
        ("python", HostKind::Python),
    ] {
        // The same calls found (a Python line of 10,000 `/` and `&` operators is also
        // reported as nested deeper than read: one `not-checked` more).
        let found = |text: &str| {
            analyze(text, kind, &k)
                .iter()
                .filter(|f| f.code == "unknown-filter")
                .count()
        };
        assert_eq!(
            found(&one_line),
            found(&lines),
            "{name}: the same findings on one line as on many"
        );
        g.bench_function(BenchmarkId::new("one_line", name), |b| {
            b.iter(|| analyze(black_box(&one_line), kind, &k))
        });
        g.bench_function(BenchmarkId::new("baseline_lines", name), |b| {
            b.iter(|| analyze(black_box(&lines), kind, &k))
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    bench_index_load,
    bench_skill,
    bench_corpus,
    bench_code_actions,
    bench_long_line
);
criterion_main!(benches);
