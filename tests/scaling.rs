//! Issue 34: linear time on every path, at CI size. Each scenario of
//! `benches/common/scaling.rs` (calls per file in `check`, `--upgrade-to` and the editor, with
//! and without `upgradeTo`; fences, HTML comments, headings and lesson cues per Markdown file;
//! enum sizes, endpoints and parameters in `index build`; files in `--fix`) runs the real binary at its small size and at
//! ten times that, and the ratio of their CPU times (the smaller of two runs each) must stay
//! under a generous bound: linear work gives about 10 (less while the process start is a fair
//! part), quadratic work 100. No absolute time is asserted. `benches/scaling.rs` measures
//! 1×, 10× and 100× with figures.

#[cfg(target_os = "linux")]
#[path = "../benches/common/scaling.rs"]
mod scaling_bench;

/// The bound on the 10×/1× ratio of CPU times: a quadratic path gives 100, a linear one 10.
#[cfg(target_os = "linux")]
const MAX_RATIO: f64 = 35.0;

/// One test for every scenario, run one at a time (each child's own CPU time is read, from
/// `wait4`, so the other tests' children do not count).
#[cfg(target_os = "linux")]
#[test]
fn every_path_scales_linearly() {
    let bin = scaling_bench::bin();
    let limit = std::time::Duration::from_secs(120);
    let mut failed = Vec::new();
    for s in scaling_bench::scenarios() {
        let small = scaling_bench::measure(&s, &bin, s.test_base, 2, limit);
        let large = scaling_bench::measure(&s, &bin, s.test_base * 10, 2, limit);
        let (Some(a), Some(b)) = (small.cpu, large.cpu) else {
            failed.push(format!("{}: a run took over {} s", s.name, limit.as_secs()));
            continue;
        };
        // A floor of 5 ms keeps a run too short to time from making the ratio.
        let ratio = b.as_secs_f64() / a.as_secs_f64().max(0.005);
        eprintln!(
            "{}: {} → {} {}: CPU {:.1} ms → {:.1} ms, ratio {ratio:.1}",
            s.name,
            s.test_base,
            s.test_base * 10,
            s.unit,
            a.as_secs_f64() * 1000.0,
            b.as_secs_f64() * 1000.0
        );
        if ratio > MAX_RATIO {
            failed.push(format!("{}: ratio {ratio:.1} > {MAX_RATIO}", s.name));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
