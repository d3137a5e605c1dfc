//! The one entry point both `check` and the language server call: a host document in, findings
//! out (sorted by position, suppressions applied).

use crate::extract::{self, HostKind, Site};
use crate::finding::Finding;
use crate::graphql::{self, NetboxSchema};
use crate::index::FilterIndex;
use crate::suppress;
use std::sync::Arc;

/// The knowledge a document is checked against: the filter index and GraphQL schema of one
/// NetBox version. Either may be missing; checks that need it then say nothing (fail open).
#[derive(Debug, Clone, Default)]
pub struct Knowledge {
    pub index: Option<Arc<FilterIndex>>,
    pub graphql: Option<Arc<NetboxSchema>>,
}

/// Checks `text`, a host document of kind `kind`. Findings carry host byte ranges, are sorted by
/// start offset, and exclude those suppressed by `netbox-lsp: ignore` comments. Never panics on
/// user input.
pub fn analyze(text: &str, kind: HostKind, knowledge: &Knowledge) -> Vec<Finding> {
    let extraction = extract::extract(text, kind);
    let mut findings = Vec::new();
    for site in &extraction.sites {
        match site {
            Site::Rest(call) => {
                if let Some(index) = &knowledge.index {
                    findings.extend(crate::rest::check_call(call, index));
                }
            }
            Site::Graphql(doc) => {
                if let Some(schema) = &knowledge.graphql {
                    findings.extend(graphql::check_document(doc, schema));
                }
            }
        }
    }
    let findings = suppress::apply(text, kind, &extraction.blocks, findings);
    let calls: Vec<_> = extraction
        .sites
        .iter()
        .filter_map(|s| match s {
            Site::Rest(call) => Some(call.call_range.clone()),
            Site::Graphql(_) => None,
        })
        .collect();
    let mut findings = suppress::apply_to_calls(text, &calls, findings);
    findings.sort_by(|a, b| {
        (a.range.start, a.range.end, a.code).cmp(&(b.range.start, b.range.end, b.code))
    });
    findings.dedup();
    findings
}
