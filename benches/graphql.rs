//! GraphQL benchmarks (criterion): schema build from the shipped SDL, and per-document checking
//! against the NetBox 4.6.8 schema (`check_text`: parse + NetBox rules + apollo-compiler
//! validation), on the documents in `benches/graphql-docs/documents.txt` (one per line). The
//! comparison with graphql-core per document class is `benches/graphql_vs_graphql_core.py`
//! with `benches/graphql_classes.rs`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use netbox_lsp::graphql::check::check_text;
use netbox_lsp::graphql::embedded::build;
use netbox_lsp::index::embedded::RELEASES;

fn documents() -> Vec<String> {
    include_str!("graphql-docs/documents.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn bench(c: &mut Criterion) {
    let release = RELEASES
        .iter()
        .find(|r| r.version == "4.6.8")
        .expect("4.6.8 shipped");
    let (version, gz) = (release.version, release.schema_gz);
    c.bench_function("graphql_schema_load_4.6.8", |b| {
        b.iter(|| build(version, black_box(gz)).unwrap())
    });
    let schema = build(version, gz).unwrap();
    let docs = documents();
    c.bench_function("graphql_check_per_document", |b| {
        let mut i = 0;
        b.iter(|| {
            let d = &docs[i % docs.len()];
            i += 1;
            check_text(black_box(d), None, &schema)
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
