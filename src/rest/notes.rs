//! Information notes on filters whose meaning people commonly misread, where the call's form
//! makes them relevant (issue 11 §3). Sources are NetBox's own filtersets at each release tag.
//!
//! - `tag-match-all`: several values of `tag` / `tag_id` (repeated keys, a list) select objects
//!   that carry ALL of them: NetBox's `TagFilter` / `TagIDFilter` are `conjoined=True`
//!   (`netbox/extras/filters.py`, v4.3.3–v4.6.8). Not on `/api/extras/tagged-objects/` and
//!   `/api/extras/config-contexts/`, whose `tag` filters are plain OR filters
//!   (`netbox/extras/filtersets.py`; live: `tag=alpha&tag=delta` on tagged-objects gave the
//!   union, ground truth v4.6.8 sweep). From 4.6, `tag__any` / `tag_id__any` match any of them
//!   (`lookup_name == 'any'` sets `conjoined = False`, `netbox/netbox/filtersets.py` v4.6.8;
//!   in the 4.6.8 OpenAPI document, absent from 4.3.3–4.5.10; live: `tag_id__any` honoured on
//!   4.6.8, ground truth sweep).
//! - `cable-termination-type`: on `/api/dcim/cables/`, `termination_a_type` and
//!   `termination_b_type` both filter `terminations__termination_type` with no cable end
//!   (`CableFilterSet`, `netbox/dcim/filtersets.py` v4.3.3–v4.6.8), so each matches a
//!   termination of that type on either end, and `__n` excludes cables with that type on any
//!   end; only `termination_a_id` / `termination_b_id` are bound to an end
//!   (`filter_by_cable_end_a` / `_b`).

use super::endpoint::View;
use super::{finding, Ctx};
use crate::extract::Value;
use crate::finding::Finding;

/// Endpoints whose `tag` / `tag_id` filters OR their values.
const TAG_OR: &[&str] = &["extras/tagged-objects", "extras/config-contexts"];

/// Adds the notes for the call's filters on `view`.
pub(crate) fn check(ctx: &Ctx, view: &View, out: &mut Vec<Finding>) {
    tags(ctx, view, out);
    cable_types(ctx, view, out);
}

fn tags(ctx: &Ctx, view: &View, out: &mut Vec<Finding>) {
    if TAG_OR.contains(&view.key) {
        return;
    }
    for key in ["tag", "tag_id"] {
        // The call's keys first (a few compares): the parameter is looked up only when used.
        if !ctx.call.filters.iter().any(|e| e.key == key) || view.param(key).is_none() {
            continue;
        }
        let mut count = 0;
        let mut at = None;
        for e in ctx.call.filters.iter().filter(|e| e.key == key) {
            let n = match &e.value {
                Value::List(items) => items.len(),
                _ => 1,
            };
            count += n;
            if count >= 2 && at.is_none() {
                at = Some(ctx.pair_range(e));
            }
        }
        let Some(range) = at else {
            continue;
        };
        let any = format!("{key}__any");
        let how = if view.has(&any) {
            format!("For objects with any of them use `{any}` (NetBox 4.6+).")
        } else {
            format!(
                "NetBox {} has no filter for any of them (`{any}` came in 4.6): query once per tag.",
                view.version()
            )
        };
        out.push(finding(
            range,
            "tag-match-all",
            format!(
                "Several `{key}` values select objects that carry ALL of them (NetBox's tag filter is an AND), not any of them. {how}"
            ),
        ));
    }
}

fn cable_types(ctx: &Ctx, view: &View, out: &mut Vec<Finding>) {
    if view.key != "dcim/cables" {
        return;
    }
    for e in &ctx.call.filters {
        let base = e.key.strip_suffix("__n").unwrap_or(&e.key);
        let (end, id) = match base {
            "termination_a_type" => ("A", "termination_a_id"),
            "termination_b_type" => ("B", "termination_b_id"),
            _ => continue,
        };
        // Where `__n` loses its negation (`server-fault`, every shipped release), that finding
        // says what NetBox does; this note would claim an exclusion NetBox never makes.
        if view.param(&e.key).is_none() || super::faults::broken(view, &e.key) {
            continue;
        }
        let what = if e.key.ends_with("__n") {
            "excludes every cable with a termination of that type on either end"
        } else {
            "matches cables with a termination of that type on either end"
        };
        out.push(finding(
            e.key_range.clone(),
            "cable-termination-type",
            format!(
                "`{}` is not bound to the {end} end: NetBox {what}. The end-bound filter is `{id}` (the termination's id).",
                e.key
            ),
        ));
    }
}
