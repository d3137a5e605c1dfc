//! The integration tests, one module a file of tests/: one crate, so the library, the test
//! harnesses (`lsp_harness`, `instance_replay` …) and what they instantiate are compiled and
//! linked once, not once a file, and the files' tests share one run's threads. Run one file's
//! tests with `cargo test --release --test suite <file>::`.
//!
//! `lsp_instance`, `lsp_instance_approve`, `lsp_instance_cancel`, `lsp_instance_stale`,
//! `lsp_live`, `lsp_live_hostile` and `lsp_live_release` set the process's environment
//! (`XDG_CONFIG_HOME`, `XDG_CACHE_HOME`, a token's variable; `common::isolated_user`) for the
//! server they run in process, so each is a crate of its own (Cargo.toml's `[[test]]` list):
//! tests of two files running at once would read each other's.

// The helpers the files share.
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
mod cli_links;
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

/// No module of this crate sets the process's environment: its tests run at once, so one
/// file's `XDG_CACHE_HOME` would be another's (a file that must is a crate of its own).
#[test]
fn no_module_sets_the_environment() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let suite = std::fs::read_to_string(root.join("suite.rs")).unwrap();
    let mut modules = 0;
    for name in suite
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
    {
        let file = [
            root.join(format!("{name}.rs")),
            root.join(name).join("mod.rs"),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no file for `mod {name};`"));
        let text = std::fs::read_to_string(&file).unwrap();
        modules += 1;
        for call in ["set_var(", "remove_var(", "set_current_dir("] {
            assert!(
                !text.contains(&format!("env::{call}")),
                "{}: env::{call} in a module of the suite: make the file a crate of its own",
                file.display()
            );
        }
    }
    assert!(modules > 40, "{modules} modules");
}
