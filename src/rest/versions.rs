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
