//! The parse alone (issue 36): apollo-compiler's `parse_ast` (apollo-parser's lexer and rowan
//! tree, then the conversion to apollo-compiler's AST) against cynic-parser's
//! `parse_executable_document` (logos lexer, lalrpop, arena AST) on the documents of
//! `benches/gen_graphql.py`, per class, in CPU time of this thread. Prints
//! `PARSE <class> <apollo µs/doc> <cynic µs/doc> <ratio>` (medians of ROUNDS interleaved rounds).
//! Usage: `graphql_parse FILE ROUNDS`.

use apollo_compiler::parser::Parser;
use std::hint::black_box;

/// CPU time of this thread (µs), from `/proc/thread-self/schedstat`.
fn cpu_us() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(rounds)) = (args.get(1), args.get(2).and_then(|r| r.parse().ok())) else {
        eprintln!("usage: graphql_parse FILE ROUNDS");
        std::process::exit(2);
    };
    let rounds: usize = rounds;
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("documents file"))
            .expect("documents JSON");
    for class in ["small", "large", "invalid"] {
        let docs: Vec<&str> = json[class]
            .as_array()
            .map(|a| a.iter().filter_map(|d| d.as_str()).collect())
            .unwrap_or_default();
        let apollo = || {
            for d in &docs {
                let _ = black_box(Parser::new().parse_ast(black_box(*d), "document.graphql"));
            }
        };
        let cynic = || {
            for d in &docs {
                let _ = black_box(cynic_parser::parse_executable_document(black_box(d)));
            }
        };
        apollo();
        cynic();
        let (mut a, mut c) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = cpu_us();
            apollo();
            a.push((cpu_us() - t) / docs.len() as f64);
            let t = cpu_us();
            cynic();
            c.push((cpu_us() - t) / docs.len() as f64);
        }
        let (a, c) = (median(a), median(c));
        println!("PARSE {class} {a:.2} {c:.2} {:.2}x", a / c);
    }
}
