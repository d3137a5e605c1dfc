//! The other shipped NetBox versions, for `version-only` (a filter that exists in another
//! shipped release than the selected one).

use crate::index::FilterIndex;
use std::sync::Arc;

/// Indexes of the shipped releases other than `index`'s version. Empty when none are
/// embedded in this build.
pub(crate) fn others(index: &FilterIndex) -> Vec<Arc<FilterIndex>> {
    let _ = index;
    Vec::new()
}
