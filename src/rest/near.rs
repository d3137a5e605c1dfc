//! An upper bound of the Jaro-Winkler similarity of one text with many others, so that the
//! "did you mean" scans of the value rules (choice values, response field names) skip the
//! candidates that cannot reach their floor without scoring them: most of a wrong value's
//! check was scoring every choice of a long set (`dcim/interfaces` `type`) against it.

/// One ASCII text with the set of its bytes, to bound its similarity with others.
pub(super) struct Bound<'a> {
    text: &'a [u8],
    /// `in_text[c]` is 1 when byte `c` occurs in `text`.
    in_text: [u8; 128],
}

impl<'a> Bound<'a> {
    /// `None` for a text the bound does not cover (not ASCII, empty, longer than 128 bytes):
    /// score every candidate then.
    pub(super) fn new(text: &'a str) -> Option<Bound<'a>> {
        let text = text.as_bytes();
        if text.is_empty() || text.len() > 128 || !text.is_ascii() {
            return None;
        }
        let mut in_text = [0u8; 128];
        for &c in text {
            in_text[usize::from(c)] = 1;
        }
        Some(Bound { text, in_text })
    }

    /// False only when the Jaro-Winkler similarity of this text (as `a`) and `other` (as `b`)
    /// is surely below `floor`, as `suggest::jaro_winkler_bytes` and strsim score it. Each
    /// Jaro match pairs a byte of `b` with an equal byte of `a`, so there are at most `m` =
    /// the bytes of `b` that occur in `a` (and at most |a|): Jaro ≤ (m/|a| + m/|b| + 1) / 3,
    /// and Winkler adds 0.1 × the common prefix (of at most 4) × (1 − Jaro). With `lower`,
    /// `b` is `other` lower-cased (ASCII). True for an `other` the bound does not cover
    /// (empty, not ASCII, longer than 128 bytes).
    pub(super) fn may_reach(&self, other: &[u8], lower: bool, floor: f64) -> bool {
        if other.is_empty() || other.len() > 128 {
            return true;
        }
        let low = |c: u8| if lower { c.to_ascii_lowercase() } else { c };
        let mut shared = 0usize;
        for &c in other {
            match self.in_text.get(usize::from(low(c))) {
                Some(&hit) => shared += usize::from(hit),
                // Not ASCII.
                None => return true,
            }
        }
        let m = shared.min(self.text.len());
        if m == 0 {
            // No match: the score is 0.
            return 0.0 >= floor;
        }
        let m = m as f64;
        let jaro = (m / self.text.len() as f64 + m / other.len() as f64 + 1.0) / 3.0;
        let prefix = self
            .text
            .iter()
            .take(4)
            .zip(other)
            .take_while(|(x, y)| **x == low(**y))
            .count();
        // A margin for rounding: never skip a score at the floor.
        jaro + 0.1 * prefix as f64 * (1.0 - jaro) >= floor - 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::Bound;

    /// The bound never skips a pair that scores at or above the floor (every pair of a set of
    /// words, near and far, both ways).
    #[test]
    fn never_skips_a_near_pair() {
        let words = [
            "active",
            "activ",
            "Active",
            "planned",
            "staged",
            "failed",
            "offline",
            "decommissioning",
            "dc1",
            "edge",
            "core",
            "3",
            "42",
            "true",
            "1000base-t",
            "1000base-x-sfp",
            "virtual",
            "lag",
            "a",
            "aa",
            "ab",
            "ba",
            "abcd",
            "abdc",
            "name",
            "nmae",
            "names",
            "site_id",
            "siteid",
            "tenant",
            "tennant",
            "description",
            "descripton",
            "x",
            "created",
            "create",
        ];
        for a in words {
            let Some(b) = Bound::new(a) else { continue };
            for w in words {
                let score =
                    crate::rest::suggest::jaro_winkler_bytes(a.as_bytes(), w.as_bytes(), 0.0);
                for floor in [0.5, 0.79, 0.8, 0.84, 0.85, 0.9] {
                    if score >= floor {
                        assert!(
                            b.may_reach(w.as_bytes(), false, floor),
                            "{a} {w} {score} {floor}"
                        );
                    }
                    let low = w.to_ascii_lowercase();
                    let score =
                        crate::rest::suggest::jaro_winkler_bytes(a.as_bytes(), low.as_bytes(), 0.0);
                    if score >= floor {
                        assert!(
                            b.may_reach(w.as_bytes(), true, floor),
                            "{a} {w} lower {score} {floor}"
                        );
                    }
                }
                let strsim = strsim::jaro_winkler(a, w);
                if strsim >= 0.8 {
                    assert!(
                        b.may_reach(w.as_bytes(), false, 0.8),
                        "{a} {w} strsim {strsim}"
                    );
                }
            }
        }
    }
}
