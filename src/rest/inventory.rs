//! The Ansible inventory plugin's `query_filters` (`netbox.netbox.nb_inventory`): the same
//! entries go to `/api/dcim/devices/` and `/api/virtualization/virtual-machines/`. The plugin
//! drops, with a warning, every key that is no query parameter of an endpoint from that
//! endpoint's query (`validate_query_parameter` in `plugins/inventory/nb_inventory.py`,
//! ansible_modules 3.22.0), and fetches no objects of an endpoint none of the entries fit. So a
//! key of only one endpoint filters that one and silently widens (or empties) the other:
//! `inventory-filter-scope`, pointing to `device_query_filters` / `vm_query_filters`.

use super::{finding, run};
use crate::extract::{CallForm, RestCall};
use crate::finding::Finding;
use crate::index::FilterIndex;

/// The endpoints `query_filters` go to, with the list that sends to that one alone.
const BOTH: [(&str, &str); 2] = [
    ("/api/dcim/devices/", "device_query_filters"),
    ("/api/virtualization/virtual-machines/", "vm_query_filters"),
];

/// Codes that say a key is not a query parameter of the endpoint.
const NAME_CODES: &[&str] = &[
    "unknown-filter",
    "unsupported-lookup",
    "multi-hop",
    "null-relation",
    "wrong-filter-for-type",
    "version-only",
];

/// Says for the name findings of an nb_inventory query what the plugin does before NetBox
/// would: it drops the key itself.
pub(crate) fn reword(findings: &mut [Finding]) {
    for f in findings.iter_mut().filter(|f| NAME_CODES.contains(&f.code)) {
        f.message.push_str(" (nb_inventory drops a key that is no query parameter of the endpoint before sending, with a warning at run time: the query runs without it.)");
    }
}

/// Checks a [`CallForm::InventoryBoth`] call against both endpoints: a key unknown on both
/// gets the devices endpoint's findings; a key of one endpoint only gets
/// `inventory-filter-scope`; every other finding is kept once.
pub(crate) fn check_both(
    call: &RestCall,
    index: &FilterIndex,
    others: Option<&[&FilterIndex]>,
) -> Vec<Finding> {
    let single = |path: &str| {
        let mut one = call.clone();
        one.form = CallForm::Inventory;
        if let Some((t, _)) = one.target.as_mut() {
            *t = path.to_string();
        }
        one
    };
    // Without both endpoints in the index (a partial or plugin-only index) nothing can be said
    // about the scope: check the devices query alone.
    if BOTH.iter().any(|(p, _)| index.resolve(p).is_none()) {
        return run(&single(BOTH[0].0), index, others).0;
    }
    let runs: Vec<Vec<Finding>> = BOTH
        .iter()
        .map(|(path, _)| run(&single(path), index, others).0)
        .collect();
    let unknown = |run: &[Finding], key: &std::ops::Range<usize>| {
        run.iter().any(|f| {
            NAME_CODES.contains(&f.code)
                && f.range.start >= key.start
                && f.range.start < key.end.max(key.start + 1)
        })
    };
    let mut out: Vec<Finding> = Vec::new();
    let mut scoped = Vec::new();
    for e in &call.filters {
        let on: Vec<bool> = runs.iter().map(|r| !unknown(r, &e.key_range)).collect();
        if on[0] != on[1] {
            let (valid, other) = if on[0] { (0, 1) } else { (1, 0) };
            scoped.push(e.key_range.clone());
            out.push(finding(
                e.key_range.clone(),
                "inventory-filter-scope",
                format!(
                    "`{}` is a filter of {} but not of {}: `query_filters` go to both, and nb_inventory drops `{}` from the {} query (a warning at run time), which then is not filtered by it (or not made at all when no entry fits it). Move the entry to `{}`.",
                    e.key, BOTH[valid].0, BOTH[other].0, e.key, BOTH[other].0, BOTH[valid].1
                ),
            ));
        }
    }
    for (i, run) in runs.into_iter().enumerate() {
        for f in run {
            let in_scoped = scoped
                .iter()
                .any(|r| f.range.start >= r.start && f.range.start < r.end);
            if in_scoped && NAME_CODES.contains(&f.code) {
                continue;
            }
            // The second endpoint adds only what the first did not say at the same place.
            if i > 0 && out.iter().any(|g| g.range == f.range && g.code == f.code) {
                continue;
            }
            out.push(f);
        }
    }
    out
}
