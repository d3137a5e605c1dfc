//! The other shipped NetBox versions, for `version-only` (a filter that exists in another
//! shipped release than the selected one).

use crate::index::embedded::{embedded_index, RELEASES};
use crate::index::FilterIndex;
use std::sync::Arc;

/// Indexes of the shipped releases other than `index`'s version (decoded once per process by
/// [`embedded_index`]). Empty when none are embedded in this build.
pub(crate) fn others(index: &FilterIndex) -> Vec<Arc<FilterIndex>> {
    RELEASES
        .iter()
        .filter(|r| r.version != index.netbox_version)
        .map(|r| embedded_index(r.version))
        .collect()
}

/// True when `index` is the process-wide copy of a shipped release (chosen by version), false
/// for an index file the user gave (`--index`, the `index` setting), which a version choice
/// does not override.
pub(crate) fn is_shipped(index: &FilterIndex) -> bool {
    RELEASES
        .iter()
        .find(|r| r.version == index.netbox_version)
        .is_some_and(|r| std::ptr::eq(index, &*embedded_index(r.version)))
}

/// The last sentence of a `version-only` message: how to check against the other version.
pub(crate) fn switch_advice(index: &FilterIndex) -> String {
    if is_shipped(index) {
        " If the instance runs another version, select it with --netbox-version.".into()
    } else if let Some(url) = index
        .instance
        .as_deref()
        .map(|i| i.url.as_str())
        .filter(|u| !u.is_empty())
    {
        // Built from the user's NetBox: rebuilding from it is the way to its current version.
        format!(
            " The index in use was built from {url} (NetBox {}); if that NetBox now runs another version, rebuild it (`netbox-lsp index build --url {url}`).",
            index.netbox_version
        )
    } else {
        format!(
            " The index in use is for NetBox {}; if the instance runs another version, build an index from its OpenAPI document (`netbox-lsp index build --openapi`) and use that one.",
            index.netbox_version
        )
    }
}
