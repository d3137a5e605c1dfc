//! The integration tests, one module a file of tests/: one crate, so the library, the test
//! harnesses (`lsp_harness`, `instance_replay` …) and what they instantiate are compiled and
//! linked once, not once a file, and the files' tests share one run's threads. Run one file's
//! tests with `cargo test --release --test suite <file>::`.
//!
//! `lsp_instance`, `lsp_instance_approve`, `lsp_instance_cancel` and `lsp_instance_stale` set the
//! process's environment (`XDG_CONFIG_HOME`, `XDG_CACHE_HOME`) for the server they run in
//! process, so each is a crate of its own (Cargo.toml's `[[test]]` list).

// The helpers the files share.
mod common;
mod instance_replay;
mod knowledge_support;
mod live_replay;
mod lsp_harness;

mod analysis;
mod audit;
mod check_coverage;
mod cli;
mod cli_fix;
mod cli_habits;
mod code_actions;
mod corpus_code;
mod diagnostics_doc;
mod docs;
mod extract;
mod filters_fixtures;
mod fix_property;
mod forms_parity;
mod fuzz;
mod graphql;
mod ground_truth;
mod hook;
mod hostile_server;
mod index;
mod instance;
mod lessons;
mod live;
mod live_hostile;
mod live_stream;
mod lsp;
mod lsp_forms_other;
mod lsp_instance_plugins;
mod lsp_live;
mod lsp_live_hostile;
mod lsp_live_release;
mod lsp_pull;
mod lsp_robust;
mod lsp_stdio;
mod lsp_upgrade;
mod message_consumers;
mod module_cycles;
mod notebook;
mod release;
mod rest_cases;
mod robust;
mod robust_forms;
mod robust_output;
mod scaling;
mod symbol_order;
mod upgrade;
mod values;

/// Every file of tests/ runs: a module above, or a crate of its own in Cargo.toml's `[[test]]`
/// list. Cargo.toml turns `autotests` off, so a file named in neither would never be compiled.
#[test]
fn every_file_of_tests_is_run() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = std::fs::read_to_string(root.join("tests/suite.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut files = 0;
    for entry in std::fs::read_dir(root.join("tests")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        if stem == "suite" {
            continue;
        }
        files += 1;
        let module = suite.lines().any(|l| l == format!("mod {stem};"));
        let own_crate = manifest.contains(&format!("path = \"tests/{name}\""));
        assert!(
            module ^ own_crate,
            "tests/{name}: name it once, as `mod {stem};` in tests/suite.rs or as a [[test]] of Cargo.toml (module: {module}, crate: {own_crate})"
        );
    }
    assert!(files > 40, "{files} files in tests/");
}
