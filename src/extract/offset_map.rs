//! Piecewise map from byte offsets in an embedded text (a fence body with its `> ` / indent
//! prefixes removed, a Python string's content) to byte offsets in the host document.

use std::ops::Range;

use smallvec::{smallvec, SmallVec};

/// A sorted list of segments; each maps `len` bytes starting at `embedded` to bytes starting at
/// `host`. Offsets between segments (removed prefixes) map to the start of the next segment.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OffsetMap {
    /// `(embedded_start, host_start, len)`, sorted by `embedded_start`, non-overlapping; the
    /// one segment of a verbatim copy (most string literals) without an allocation.
    segments: SmallVec<[(usize, usize, usize); 1]>,
}

impl OffsetMap {
    /// A map for text copied verbatim from `host_start..host_start + len`.
    pub fn identity(host_start: usize, len: usize) -> Self {
        OffsetMap {
            segments: smallvec![(0, host_start, len)],
        }
    }

    /// An empty map, to be filled with [`OffsetMap::push`].
    pub fn new() -> Self {
        OffsetMap::default()
    }

    /// Appends a segment: the next `len` embedded bytes come from host bytes starting at
    /// `host_start`. Segments must be pushed in embedded order.
    pub fn push(&mut self, host_start: usize, len: usize) {
        let embedded = self.len();
        if let Some(last) = self.segments.last_mut() {
            if last.1 + last.2 == host_start {
                last.2 += len;
                return;
            }
        }
        self.segments.push((embedded, host_start, len));
    }

    /// Appends every segment of `other` (whose embedded text follows this map's).
    pub fn append(&mut self, other: &OffsetMap) {
        for &(_, h, l) in &other.segments {
            self.push(h, l);
        }
    }

    /// The embedded offset that maps to host offset `host` (a segment's end included), if any.
    pub fn to_embedded(&self, host: usize) -> Option<usize> {
        self.segments
            .iter()
            .find(|&&(_, h, l)| h <= host && host <= h + l)
            .map(|&(e, h, _)| e + host - h)
    }

    /// The segment `(embedded_start, host_start, len)` of a map that has exactly one (a whole
    /// host file, a verbatim string), for callers that map many offsets through it.
    pub fn single(&self) -> Option<(usize, usize, usize)> {
        match self.segments[..] {
            [one] => Some(one),
            _ => None,
        }
    }

    /// Total embedded length in bytes.
    pub fn len(&self) -> usize {
        self.segments.last().map(|s| s.0 + s.2).unwrap_or(0)
    }

    /// True when the map covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Host offset of embedded offset `off` (a start position: at a segment boundary it maps to
    /// the start of the next segment). Offsets past the end map to the end of the last segment.
    pub fn to_host(&self, off: usize) -> usize {
        // One segment (a whole host file, a verbatim string): the search's answer directly.
        if let [(e, h, l)] = self.segments[..] {
            return h + off.saturating_sub(e).min(l);
        }
        let i = self.segments.partition_point(|s| s.0 + s.2 <= off);
        match self.segments.get(i) {
            Some(&(e, h, l)) => h + off.saturating_sub(e).min(l),
            None => self.segments.last().map(|s| s.1 + s.2).unwrap_or(0),
        }
    }

    /// Host offset of embedded offset `off` as an end position: at a segment boundary it maps to
    /// the end of the previous segment, so a range never swallows a removed prefix.
    pub fn to_host_end(&self, off: usize) -> usize {
        if let [(e, h, l)] = self.segments[..] {
            return h + off.saturating_sub(e).min(l);
        }
        let i = self.segments.partition_point(|s| s.0 + s.2 < off);
        match self.segments.get(i) {
            Some(&(e, h, l)) => h + off.saturating_sub(e).min(l),
            None => self.segments.last().map(|s| s.1 + s.2).unwrap_or(0),
        }
    }

    /// Host range of an embedded range.
    #[inline]
    pub fn range_to_host(&self, r: Range<usize>) -> Range<usize> {
        // One segment (a whole host file, a verbatim string): both ends are the same clipped
        // shift, and an end never falls before the start.
        if let [(e, h, l)] = self.segments[..] {
            let at = |off: usize| h + off.saturating_sub(e).min(l);
            let start = at(r.start);
            let end = if r.end == r.start {
                start
            } else {
                at(r.end).max(start)
            };
            return start..end;
        }
        let start = self.to_host(r.start);
        let end = if r.end == r.start {
            start
        } else {
            self.to_host_end(r.end).max(start)
        };
        start..end
    }

    /// The same map for the embedded text found `by` host bytes further on (segments kept as
    /// they are, empty ones included, so every offset maps exactly `by` bytes later).
    pub fn shifted(&self, by: usize) -> OffsetMap {
        OffsetMap {
            segments: self
                .segments
                .iter()
                .map(|&(e, h, l)| (e, h + by, l))
                .collect(),
        }
    }

    /// The same map with every host offset lowered by `base` (saturating at 0): the map's
    /// shape relative to a host position, equal for the same code wherever it sits.
    pub fn relative_to(&self, base: usize) -> OffsetMap {
        OffsetMap {
            segments: self
                .segments
                .iter()
                .map(|&(e, h, l)| (e, h.saturating_sub(base), l))
                .collect(),
        }
    }

    /// Composes two maps: `self` maps A → B, `outer` maps B → host; the result maps A → host.
    pub fn then(&self, outer: &OffsetMap) -> OffsetMap {
        let mut out = OffsetMap::new();
        for &(_, b_start, len) in &self.segments {
            outer.push_window(&mut out, b_start, len);
        }
        out
    }

    /// `OffsetMap::identity(start, len).then(self)`: the map of `len` bytes copied verbatim
    /// from offset `start` of the text `self` maps (a string literal's content in code read
    /// from a host), without the intermediate map.
    pub fn window(&self, start: usize, len: usize) -> OffsetMap {
        // A window that starts inside a one-segment map (a string of a whole host file): the
        // one segment [`OffsetMap::push_window`] pushes, without its search.
        if let [(e, h, l)] = self.segments[..] {
            if len > 0 && e <= start && start < e + l {
                return OffsetMap {
                    segments: smallvec![(0, h + (start - e), (e + l - start).min(len))],
                };
            }
        }
        let mut out = OffsetMap::new();
        self.push_window(&mut out, start, len);
        out
    }

    /// Pushes onto `out` the host segments of this map's bytes `b_start..b_start + len`, split
    /// where this map has gaps.
    fn push_window(&self, out: &mut OffsetMap, b_start: usize, len: usize) {
        let mut done = 0;
        while done < len {
            let b = b_start + done;
            let i = self.segments.partition_point(|s| s.0 + s.2 <= b);
            let Some(&(oe, oh, ol)) = self.segments.get(i) else {
                break;
            };
            let take = (oe + ol - b).min(len - done);
            out.push(oh + (b - oe), take);
            done += take;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_across_removed_prefixes() {
        // host: "> ab\n> cd" ; embedded: "ab\ncd"
        let mut m = OffsetMap::new();
        m.push(2, 3); // "ab\n"
        m.push(7, 2); // "cd"
        assert_eq!(m.to_host(0), 2);
        assert_eq!(m.to_host(3), 7);
        assert_eq!(m.to_host(4), 8);
        assert_eq!(m.range_to_host(3..5), 7..9);
        assert_eq!(m.range_to_host(0..3), 2..5);
        assert_eq!(m.len(), 5);
    }

    /// The one-segment shortcut of `to_host` and `to_host_end` answers as the search over
    /// segments does: the same bytes split in two segments map every offset the same.
    #[test]
    fn one_segment_maps_as_the_search() {
        let one = OffsetMap::identity(5, 10);
        let split = OffsetMap {
            segments: smallvec![(0, 5, 4), (4, 9, 6)],
        };
        for off in 0..20 {
            assert_eq!(one.to_host(off), split.to_host(off), "{off}");
            assert_eq!(one.to_host_end(off), split.to_host_end(off), "{off}");
        }
        let shifted = OffsetMap::identity(0, 3).shifted(7);
        assert_eq!(shifted.range_to_host(1..3), 8..10);
    }

    #[test]
    fn composes() {
        let mut outer = OffsetMap::new();
        outer.push(2, 3);
        outer.push(7, 2);
        let inner = OffsetMap::identity(1, 3); // "b\nc"
        let c = inner.then(&outer);
        assert_eq!(c.to_host(0), 3);
        assert_eq!(c.to_host(2), 7);
    }
}
