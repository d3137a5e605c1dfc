//! Knowledge for the data-driven tests: the embedded index of a shipped release by its version,
//! or `instance`, the index built from the customised NetBox 4.6.8's answers
//! (`tests/fixtures/instance/`: the netbox-bgp plugin, custom fields, a `FIELD_CHOICES` status).
#![allow(dead_code)]

use netbox_lsp::index::{embedded, FilterIndex};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The shipped release `v` (its `&'static` version string); panics when it is not shipped.
pub fn version(v: &str) -> &'static str {
    embedded::RELEASES
        .iter()
        .find(|r| r.version == v)
        .map(|r| r.version)
        .unwrap_or_else(|| panic!("NetBox {v} is not shipped"))
}

/// The index of the customised 4.6.8 instance, built once per test binary.
pub fn instance_index() -> Arc<FilterIndex> {
    static INDEX: OnceLock<Arc<FilterIndex>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/instance");
            let read = |n: &str| std::fs::read(dir.join(n)).unwrap();
            let inputs = netbox_lsp::instance::Inputs {
                status: Some(read("status.json.gz")),
                openapi: read("openapi.json.gz"),
                graphql: None,
                custom_fields: vec![read("custom-fields.json.gz")],
                choice_sets: vec![read("custom-field-choice-sets.json.gz")],
            };
            let built = netbox_lsp::instance::build(&inputs, "", &Default::default()).unwrap();
            Arc::new(built.index)
        })
        .clone()
}

/// The index for a case's `release`: `instance` or a shipped version.
pub fn index(release: &str) -> Arc<FilterIndex> {
    if release == "instance" {
        instance_index()
    } else {
        embedded::embedded_index(version(release))
    }
}
