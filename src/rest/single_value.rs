//! `single-value-filter` for repeated keys in a query string.

use super::endpoint::View;
use super::{finding, Ctx};
use crate::extract::{CallForm, FilterEntry};
use crate::finding::Finding;
use std::collections::BTreeMap;

/// Repeated keys in a query string (`within=a&within=b`): single-value filters use one value.
/// Generic-relation ids (`scope_id`, `assigned_object_id`, `object_id`) take several: live
/// 4.3.3 and 4.6.8 OR them (`scope_id=15&scope_id=16` on vlan-groups: 1 + 1 → 2).
pub(crate) fn check_repeated(ctx: &Ctx, view: &View, out: &mut Vec<Finding>) {
    // The forms that send several values as repeated keys written one by one.
    if !matches!(
        ctx.call.form,
        CallForm::Url | CallForm::AnsibleLookup | CallForm::Inventory | CallForm::InventoryBoth
    ) {
        return;
    }
    let mut by_key: BTreeMap<&str, Vec<&FilterEntry>> = BTreeMap::new();
    for e in &ctx.call.filters {
        by_key.entry(e.key.as_str()).or_default().push(e);
    }
    for (key, entries) in by_key {
        if entries.len() < 2 || super::view_params::is_exempt(key) {
            continue;
        }
        let Some(param) = view.param(key) else {
            continue;
        };
        if !param.multi {
            out.push(finding(
                ctx.pair_range(entries[1]),
                "single-value-filter",
                format!(
                    "`{key}` takes one value: NetBox uses only one of the {} given. Query once per value{}.",
                    entries.len(),
                    several_ids(view, key)
                ),
            ));
        }
    }
}

/// ", or give the ids to `<key>_id`, which takes several" when that filter exists and reads
/// several values (`changed_object_type_id` beside the single `changed_object_type` before
/// 4.5.2); empty otherwise.
pub(super) fn several_ids(view: &View, key: &str) -> String {
    match view.param(&format!("{key}_id")) {
        Some(p) if p.multi => format!(", or give the ids to `{key}_id`, which takes several"),
        _ => String::new(),
    }
}
