//! `vrf-needs-rd`: a VRF filter that matches the route distinguisher given a name or id.

use super::endpoint::View;
use super::entry::elements;
use super::lookups::Key;
use super::{finding, Ctx};
use crate::extract::{FilterEntry, Value};
use crate::finding::Finding;
use crate::index::Parameter;

/// True when filter `key` (of parameter `param`) matches a VRF's route distinguisher: the only
/// filters [`vrf_needs_rd`] reports.
pub(super) fn is_rd_filter(key: &str, param: &Parameter) -> bool {
    // The description first: the key is parsed only for a filter that can be one (the base
    // is a prefix of the key).
    param
        .description
        .as_deref()
        .is_some_and(|d| super::text::contains(d, "(RD)"))
        || (key.starts_with("present_in_vrf") && Key::parse(key).base() == "present_in_vrf")
}

/// `vrf-needs-rd`: on ipam endpoints `vrf` matches the route distinguisher
/// (`to_field_name='rd'`, schema "VRF (RD)"), so a VRF name is an HTTP 400 (ground truth
/// `vrf=Alpha`). RDs are written `ASN:nn` or `IP:nn` (RFC 4364).
pub(super) fn vrf_needs_rd(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
) -> Option<Finding> {
    let key = entry.key.as_str();
    if !is_rd_filter(key, param) {
        return None;
    }
    let base = Key::parse(key).base();
    let id_key = format!("{base}_id");
    for (v, r) in elements(entry) {
        match v {
            Value::Int(i) => {
                let mut f = finding(
                    r.clone(),
                    "vrf-needs-rd",
                    format!(
                        "`{key}` matches the VRF's route distinguisher, not its id: `{i}` is an HTTP 400. Use `{id_key}` for ids."
                    ),
                );
                if view.has(&id_key) && !key.contains("__") {
                    f = f.with_fix(
                        format!("Replace with `{id_key}`"),
                        entry.key_range.clone(),
                        id_key.clone(),
                        true,
                    );
                }
                return Some(f);
            }
            Value::Str(s) if s != "null" && !s.contains(':') => {
                let _ = ctx;
                return Some(finding(
                    r,
                    "vrf-needs-rd",
                    format!(
                        "`{key}` matches the VRF's route distinguisher (like `65000:100`), not its name: `{s}` is an HTTP 400. Use the RD, or `{id_key}` with the VRF's id."
                    ),
                ));
            }
            _ => {}
        }
    }
    None
}
