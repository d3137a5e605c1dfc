//! Scaling benchmarks of issue 34: every path through the analysis is linear in its input (or
//! n log n). Each scenario of `benches/common/scaling.rs` runs the real binary at 1×, 10× and
//! 100× its base size and prints the CPU time (user + system of the child; wall time beside
//! it), the ratio of each tenfold step (linear: about 10, quadratic: 100) and the exponent
//! fitted to the 10× → 100× step (1.0 linear, 2.0 quadratic).
//!
//! `NETBOX_LSP_BEFORE=<binary>` runs the same inputs with an older build too (the "before"
//! column, same machine, same run); a run over the time limit (`NETBOX_LSP_SCALING_LIMIT_S`,
//! default 60) is killed and shown as `> limit`. Arguments select scenarios by substring:
//! `cargo bench --bench scaling -- upgrade index_enum`.
//!
//! Output: a table per binary, and `SCALE <binary> <scenario> <n> <cpu_ms> <wall_ms>` lines.

#[path = "common/scaling.rs"]
mod scaling;

use std::path::PathBuf;
use std::time::Duration;

fn fmt(d: Option<Duration>, limit: Duration) -> String {
    match d {
        Some(d) if d.as_secs_f64() >= 1.0 => format!("{:.2} s", d.as_secs_f64()),
        Some(d) => format!("{:.1} ms", d.as_secs_f64() * 1000.0),
        None => format!("> {} s", limit.as_secs()),
    }
}

fn ratio(a: Option<Duration>, b: Option<Duration>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a.as_secs_f64() > 0.0 => {
            format!("{:.1}", b.as_secs_f64() / a.as_secs_f64())
        }
        _ => "-".into(),
    }
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let limit = Duration::from_secs(
        std::env::var("NETBOX_LSP_SCALING_LIMIT_S")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(60),
    );
    let mut bins = vec![("after", scaling::bin())];
    if let Some(before) = std::env::var_os("NETBOX_LSP_BEFORE") {
        bins.insert(0, ("before", PathBuf::from(before)));
    }
    let chosen: Vec<scaling::Scenario> = scaling::scenarios()
        .into_iter()
        .filter(|s| filters.is_empty() || filters.iter().any(|f| s.name.contains(f.as_str())))
        .collect();
    let mut table = Vec::new();
    for s in &chosen {
        for (label, bin) in &bins {
            let sizes = [s.bench_base, s.bench_base * 10, s.bench_base * 100];
            let mut cpu = Vec::new();
            let mut skip = false;
            for &n in &sizes {
                // After a size over the limit, larger ones are too.
                let m = if skip {
                    scaling::Measure {
                        cpu: None,
                        wall: None,
                    }
                } else {
                    scaling::measure(s, bin, n, 3, limit)
                };
                skip |= m.cpu.is_none();
                println!(
                    "SCALE {label} {} {n} {} {}",
                    s.name,
                    m.cpu.map_or(-1.0, |d| d.as_secs_f64() * 1000.0),
                    m.wall.map_or(-1.0, |d| d.as_secs_f64() * 1000.0)
                );
                cpu.push((n, m));
            }
            let exponent = match (cpu[1].1.cpu, cpu[2].1.cpu) {
                (Some(a), Some(b)) if a.as_secs_f64() > 0.0 => {
                    format!("{:.2}", (b.as_secs_f64() / a.as_secs_f64()).log10())
                }
                _ => "-".into(),
            };
            table.push(format!(
                "| {} ({}) | {label} | {} | {} | {} | {} | {} / {} | {exponent} |",
                s.name,
                s.unit,
                cpu.iter()
                    .map(|(n, _)| n.to_string())
                    .collect::<Vec<_>>()
                    .join(" / "),
                fmt(cpu[0].1.cpu, limit),
                fmt(cpu[1].1.cpu, limit),
                fmt(cpu[2].1.cpu, limit),
                ratio(cpu[0].1.cpu, cpu[1].1.cpu),
                ratio(cpu[1].1.cpu, cpu[2].1.cpu),
            ));
        }
    }
    println!("\n| scenario | build | sizes (1× / 10× / 100×) | CPU 1× | CPU 10× | CPU 100× | slope ratio 10×/1× / 100×/10× | exponent |");
    println!("|---|---|---|---|---|---|---|---|");
    for row in table {
        println!("{row}");
    }
}
