//! `object-type-value`: a filter of object types (`object_type`, `assigned_object_type`,
//! `termination_a_type`, `scope_type`, ...) given a value that names no object type. NetBox's
//! `ContentTypeFilter` and `MultiValueContentTypeFilter` (`netbox/utilities/filters.py`
//! v4.3.3 l. 156–173, v4.4.10 l. 156–173, v4.5.10 and v4.6.8 l. 166–207) split the value as
//! `<app_label>.<model>` (lower-cased) and return `qs.none()` — HTTP 200, an empty list — for
//! anything else: a number (an object type's id goes to the `_id` filter beside it), a model
//! name without its app (`interface`), a plural or a path (`dcim.interfaces`). Live: v4.6.8 and
//! v4.3.3 sweeps, `dcim/cables termination_a_type=999999` → 0 of 108, `extras/tagged-objects
//! object_type=999999` → 0 of 72, `virtualization/clusters scope_type=999999` → 0 of 32, while
//! `ipam/prefixes scope_type=dcim.site` → 65 of 90.
//!
//! Which filters are object-type filters is read per release: the names below are the
//! filterset attributes assigned a (MultiValue)ContentTypeFilter in any filterset of 4.3.3–4.6.8
//! (`git grep 'ContentTypeFilter('`; the same names in 4.7.0-beta1), and a name is one only
//! where the release's OpenAPI document types it as text: 4.3.3's `assigned_object_type` on
//! IP and MAC addresses, `object_type` on jobs and `parent_object_type` on services are typed
//! integer there (a foreign key to the object type, taking its id) and are left to the number
//! rules. `content_type` on tags (a method filter that skips what it cannot split) is not one.

use super::endpoint::View;
use super::lookups::Key;
use super::{finding, render};
use crate::extract::{FilterEntry, Syntax};
use crate::finding::Finding;
use crate::index::{Parameter, ValueKind};
use std::ops::Range;

/// Filterset attributes declared as `ContentTypeFilter` / `MultiValueContentTypeFilter`.
const OBJECT_TYPE_FILTERS: &[&str] = &[
    "action_object_type",
    "assigned_object_type",
    "changed_object_type",
    "component_type",
    "interface_type",
    "member_type",
    "object_type",
    "parent_object_type",
    "related_object_type",
    "scope_type",
    "termination_a_type",
    "termination_b_type",
    "termination_type",
];

/// True when `key` (bare or `__n`) is an object-type filter of `view`'s release.
pub(crate) fn is_object_type_filter(key: &str, param: &Parameter) -> bool {
    let base = key.strip_suffix("__n").unwrap_or(key);
    // Every name of the list ends with `_type`: asked first, it spares the list's comparisons
    // on nearly every filter.
    base.ends_with("_type")
        && param.kind == ValueKind::String
        && param.choices.is_none()
        && OBJECT_TYPE_FILTERS.contains(&base)
}

/// `app_label.model` lower-cased without the characters NetBox's model names never hold
/// (`ip_address` → `ipaddress`, `IP Address` → `ipaddress`).
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The object types of `view`'s release whose model (or `app_label.model`) is `written`
/// squashed, or is it without a plural ending.
fn near_types(view: &View, written: &str) -> Vec<String> {
    let want = squash(written);
    let mut stems = vec![want.clone()];
    for end in ["ies", "es", "s"] {
        if let Some(stem) = want.strip_suffix(end) {
            stems.push(if end == "ies" {
                format!("{stem}y")
            } else {
                stem.to_string()
            });
        }
    }
    let dotted = want.contains('.');
    let mut out: Vec<String> = view
        .index
        .object_types
        .keys()
        .filter(|t| {
            // Compared in place: a string per object type made this most of a finding. The
            // model (after the first `.`) is told by its end: a stem (no `.` when `want` has
            // none) is the model when `t` ends with `.<stem>` and has no `.` before that; a
            // split of each of the release's object types per value cost ~30,000 instructions.
            if dotted {
                return stems.iter().any(|s| s == t.as_str());
            }
            stems.iter().any(|s| match t.len().checked_sub(s.len() + 1) {
                Some(dot) => {
                    t.ends_with(s.as_str())
                        && t.as_bytes()[dot] == b'.'
                        && !t.as_bytes()[..dot].contains(&b'.')
                }
                None => false,
            } || (s == t.as_str() && !t.contains('.')))
        })
        .cloned()
        .collect();
    out.dedup();
    out
}

/// The finding for one value `text` (at `r`) of the object-type filter `entry`, if it names no
/// object type; `None` for the `app_label.model` of a known type, and for a dotted name the
/// release does not know and nothing is near (a type without an endpoint, a plugin's).
pub(crate) fn check(
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    text: &str,
    r: Range<usize>,
    syntax: Syntax,
) -> Option<Finding> {
    let key = entry.key.as_str();
    if !is_object_type_filter(key, param) || text == "null" || text.is_empty() {
        return None;
    }
    let v = view.version();
    let form = "takes an object type as `app_label.model` (`dcim.interface`)";
    let empty = format!("NetBox {v} matches no object (HTTP 200, an empty list)");
    if text.trim().parse::<i64>().is_ok() {
        let base = Key::parse(key).base();
        let id = format!("{base}_id{}", key.strip_prefix(base).unwrap_or(""));
        let mut msg = format!("`{key}` {form}: for the number `{text}` {empty}.");
        if view.has(&id) {
            msg.push_str(&format!(" For the object type's numeric id use `{id}`."));
        }
        let f = finding(r, "object-type-value", msg);
        return Some(if view.has(&id) {
            f.with_fix(
                format!("Replace `{key}` with `{id}`"),
                entry.key_range.clone(),
                id,
                false,
            )
        } else {
            f
        });
    }
    let lower = text.to_ascii_lowercase();
    if view.index.object_types.contains_key(lower.as_str()) {
        return None;
    }
    let dotted = lower.contains('.');
    let near = near_types(view, text);
    if dotted && near.is_empty() {
        return None;
    }
    let mut msg = if dotted {
        format!(
            "`{key}` {form}: `{text}` is not an object type of NetBox {v}, so it matches no object (HTTP 200, an empty list)."
        )
    } else {
        format!("`{key}` {form}: `{text}` has no app label, so {empty}.")
    };
    match near.as_slice() {
        [one] => msg.push_str(&format!(" Use `{one}`.")),
        [] => {}
        many => msg.push_str(&format!(
            " Did you mean {}?",
            many.iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    let mut f = finding(r.clone(), "object-type-value", msg);
    let certain = near.len() == 1;
    for t in &near {
        f = f.with_fix(
            format!("Use `{t}`"),
            r.clone(),
            render::string(t, syntax),
            certain,
        );
    }
    Some(f)
}
