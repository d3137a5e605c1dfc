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

/// Codes that say a value is refused by the endpoint (HTTP 400).
const VALUE_CODES: &[&str] = &["invalid-choice", "invalid-value"];

/// Says for the name findings of an nb_inventory query what the plugin does before NetBox
/// would: it drops the key itself. A key of `device_query_filters` that the virtual machines
/// endpoint has (or the other way round: `cluster_type`) belongs in the other list.
pub(crate) fn reword(call: &RestCall, index: &FilterIndex, findings: &mut [Finding]) {
    let target = call.target.as_ref().and_then(|(t, _)| index.resolve(t));
    let is_target =
        |path: &str| target.is_some_and(|(key, _)| path.trim_matches('/').ends_with(key));
    let other = BOTH
        .iter()
        .find(|(path, _)| !is_target(path))
        .filter(|_| BOTH.iter().any(|(path, _)| is_target(path)));
    for f in findings.iter_mut().filter(|f| NAME_CODES.contains(&f.code)) {
        let moved = other.and_then(|(path, list)| {
            let (_, ep) = index.resolve(path)?;
            let e = call
                .filters
                .iter()
                .find(|e| e.key_range.start <= f.range.start && f.range.end <= e.key_range.end)?;
            ep.params.contains_key(e.key.as_str()).then(|| {
                format!(
                    " `{}` is a filter of {path}: move the entry to `{list}`.",
                    e.key
                )
            })
        });
        f.message.push_str(" (nb_inventory drops a key that is no query parameter of the endpoint before sending, with a warning at run time: the query runs without it.)");
        if let Some(m) = moved {
            f.message.push_str(&m);
        }
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
            *t = path.into();
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
    // A value one endpoint refuses and the other takes (`status: paused`, a status of virtual
    // machines alone): the refusing query fails with HTTP 400 and the inventory with it.
    let refused = |run: &[Finding], r: &std::ops::Range<usize>| {
        run.iter()
            .any(|f| VALUE_CODES.contains(&f.code) && f.range == *r)
    };
    let mut moves: Vec<(std::ops::Range<usize>, usize)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        for f in run.iter().filter(|f| VALUE_CODES.contains(&f.code)) {
            // Only where both endpoints have the key (else the scope finding says it).
            let both_keys = call.filters.iter().any(|e| {
                e.value_range.start <= f.range.start
                    && f.range.end <= e.value_range.end
                    && !scoped.contains(&e.key_range)
            });
            if both_keys && !refused(&runs[1 - i], &f.range) {
                moves.push((f.range.clone(), 1 - i));
            }
        }
    }
    for (i, run) in runs.into_iter().enumerate() {
        for mut f in run {
            if let Some((_, takes)) = moves
                .iter()
                .find(|(r, t)| *r == f.range && *t != i && VALUE_CODES.contains(&f.code))
            {
                f.message.push_str(&format!(
                    " {} takes it, and `query_filters` go to both endpoints: move the entry to `{}`.",
                    BOTH[*takes].0, BOTH[*takes].1
                ));
            }
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
