//! The in-process side of `benches/graphql_vs_graphql_core.py` (issue 36): `check_text`
//! (parse, NetBox rules, apollo-compiler validation, "did you mean") of every document of one
//! class against NetBox 4.7.3's schema, timed per round in CPU time of this thread, printed as
//! `OURS <class> <median µs/doc> <min> <max> <rounds>` (class `all` is the whole mix: every
//! document of every class in one round).
//!
//! The documents come from `benches/gen_graphql.py` (JSON `{"small": [...], "large": [...],
//! "invalid": [...]}`). Usage: `graphql_classes FILE ROUNDS` (built by `cargo bench --no-run
//! --bench graphql_classes`; not a criterion bench: the script interleaves it with
//! graphql-core and takes the ratios itself).

use netbox_lsp::graphql::check::check_text;
use netbox_lsp::graphql::embedded::build;
use netbox_lsp::index::embedded::RELEASES;
use std::hint::black_box;

/// CPU time of this thread (µs), from `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`: on a shared
/// machine it says what the work cost, where wall time also counts the waits. Not
/// `/proc/thread-self/schedstat`, which some kernels (the CI machines' among them) advance only
/// at the scheduler tick (4 ms): a class of 400 documents then read in steps of 10 µs per
/// document, 15–20 % of its ratio to graphql-core.
fn cpu_us() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0.0;
    }
    t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(rounds)) = (args.get(1), args.get(2).and_then(|r| r.parse().ok())) else {
        eprintln!("usage: graphql_classes FILE ROUNDS");
        std::process::exit(2);
    };
    let rounds: usize = rounds;
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("documents file"))
            .expect("documents JSON");
    let release = RELEASES
        .iter()
        .find(|r| r.version == "4.7.3")
        .expect("4.7.3 shipped");
    let schema = build(release.version, release.schema_gz).expect("4.7.3 schema");
    let class = |name: &str| -> Vec<String> {
        json[name]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|d| d.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let classes = ["small", "large", "invalid"];
    let mut docs: Vec<(&str, Vec<String>)> = classes.iter().map(|c| (*c, class(c))).collect();
    docs.push(("all", classes.iter().flat_map(|c| class(c)).collect()));
    for (name, ds) in &docs {
        let run = || {
            for d in ds {
                black_box(check_text(black_box(d), None, &schema));
            }
        };
        run(); // warm-up
        let mut samples: Vec<f64> = (0..rounds)
            .map(|_| {
                let c = cpu_us();
                run();
                (cpu_us() - c) / ds.len() as f64
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        println!(
            "OURS {name} {:.3} {:.3} {:.3} {rounds}",
            samples[samples.len() / 2],
            samples[0],
            samples[samples.len() - 1]
        );
    }
}
