//! The values of a filter entry, which the value rules walk.

use crate::extract::{FilterEntry, Value};
use std::ops::Range;

/// The values of an entry: list elements with their ranges, or the scalar itself.
pub(super) fn elements(entry: &FilterEntry) -> impl Iterator<Item = (&Value, Range<usize>)> {
    // An iterator, not a Vec: asked twice per filter on the no-finding path.
    let (items, single): (&[(Value, Range<usize>)], _) = match &entry.value {
        Value::List(items) => (items.as_slice(), None),
        v => (&[], Some((v, entry.value_range.clone()))),
    };
    items.iter().map(|(v, r)| (v, r.clone())).chain(single)
}
