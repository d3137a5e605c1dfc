//! Filter key grammar: `<field>[__<lookup>]`, NetBox's public lookups, and the Django spellings
//! agents write instead (netbox-facts.md §1.3, R4).

pub(crate) use crate::index::suffixes::{NETBOX_LOOKUPS, NEVER_LOOKUPS};

/// True when `name` holds `__` (a lookup or a relation path). A byte scan: `str::contains`
/// sets up a substring searcher per call, and the suggestion steps ask this for every
/// parameter of an endpoint (8 % of a check of 10,000 calls).
pub(crate) fn has_dunder(name: &str) -> bool {
    name.as_bytes().windows(2).any(|w| w == b"__")
}

/// A key split at its last `__` when the tail is a lookup (NetBox's or Django's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key<'a> {
    /// All `__`-separated parts.
    pub parts: Parts<'a>,
}

/// A key's `__`-separated parts: up to three inline (nearly every key: no allocation on the
/// per-filter path), more on the heap. Reads as a slice.
#[derive(Debug, Clone)]
pub(crate) enum Parts<'a> {
    Inline([&'a str; 3], usize),
    Heap(Vec<&'a str>),
}

impl<'a> Parts<'a> {
    #[inline(always)]
    fn push(&mut self, part: &'a str) {
        match self {
            Parts::Inline(a, n) if *n < a.len() => {
                a[*n] = part;
                *n += 1;
            }
            Parts::Inline(a, _) => {
                let mut v = a.to_vec();
                v.push(part);
                *self = Parts::Heap(v);
            }
            Parts::Heap(v) => v.push(part),
        }
    }

    pub fn as_slice(&self) -> &[&'a str] {
        match self {
            Parts::Inline(a, n) => &a[..*n],
            Parts::Heap(v) => v,
        }
    }
}

impl<'a> std::ops::Deref for Parts<'a> {
    type Target = [&'a str];
    fn deref(&self) -> &[&'a str] {
        self.as_slice()
    }
}

impl PartialEq for Parts<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Parts<'_> {}

impl<'a> Key<'a> {
    pub fn parse(key: &'a str) -> Key<'a> {
        // As `key.split("__")`: parsed several times per filter, and a substring searcher per
        // call cost more than the rest of a valid filter's check. A key of up to 64 bytes
        // (nearly all) is split at the pairs of `_` of its mask of `_` bytes, eight bytes at a
        // time; the byte loop below it cost ~150 instructions a key.
        let mut parts = Parts::Inline([""; 3], 0);
        let b = key.as_bytes();
        let mut start = 0;
        if b.len() <= 64 {
            let u = underscores(b);
            // Bit `i`: bytes `i` and `i + 1` are both `_`.
            let mut pairs = u & (u >> 1);
            while pairs != 0 {
                let i = pairs.trailing_zeros() as usize;
                pairs &= pairs - 1;
                // A pair overlapping the last one taken (`___`): `split` takes the leftmost.
                if i >= start {
                    parts.push(&key[start..i]);
                    start = i + 2;
                }
            }
        } else {
            let mut i = 0;
            while i + 1 < b.len() {
                if b[i] == b'_' && b[i + 1] == b'_' {
                    parts.push(&key[start..i]);
                    i += 2;
                    start = i;
                } else {
                    i += 1;
                }
            }
        }
        parts.push(&key[start..]);
        Key { parts }
    }

    /// The lookup tail when the key has exactly one `__` and the tail is a known lookup.
    pub fn lookup(&self) -> Option<&'a str> {
        match self.parts.as_slice() {
            [_, l] if is_lookup(l) => Some(l),
            _ => None,
        }
    }

    pub fn base(&self) -> &'a str {
        self.parts[0]
    }
}

/// The `_` bytes of `b` (at most 64 bytes) as a mask: bit `i` set when `b[i]` is `_`. Eight
/// bytes at a time (each byte equal to `_` found exactly, no borrow between bytes, its flag
/// gathered into one bit by a multiplication), then the rest byte by byte.
fn underscores(b: &[u8]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut mask = 0u64;
    let mut n = 0;
    while let Some(chunk) = b.get(n..n + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        // Zero where the byte is `_`.
        let x = u64::from_le_bytes(w) ^ 0x5f5f_5f5f_5f5f_5f5f;
        // The high bit of each zero byte of `x`, exactly.
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        let bits = ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        mask |= bits << n;
        n += 8;
    }
    // The last few bytes one by one (a copy of a part of a word is a call to `memcpy`).
    for (j, &c) in b[n..].iter().enumerate() {
        mask |= u64::from(c == b'_') << (n + j);
    }
    mask
}

/// True for a NetBox or a Django lookup name.
pub(crate) fn is_lookup(s: &str) -> bool {
    NETBOX_LOOKUPS.contains(&s) || NEVER_LOOKUPS.contains(&s)
}

/// The NetBox lookup for a Django spelling, with a note when the meaning shifts. `None` for
/// `exact` means "the bare key" (the bare filter is already the exact match).
pub(crate) fn django_to_netbox(lookup: &str) -> Option<(Option<&'static str>, &'static str)> {
    Some(match lookup {
        "icontains" => (Some("ic"), ""),
        "contains" => (
            Some("ic"),
            " (NetBox has no case-sensitive contains; `__ic` ignores case)",
        ),
        "istartswith" => (Some("isw"), ""),
        "startswith" => (
            Some("isw"),
            " (NetBox has no case-sensitive starts-with; `__isw` ignores case)",
        ),
        "iendswith" => (Some("iew"), ""),
        "endswith" => (
            Some("iew"),
            " (NetBox has no case-sensitive ends-with; `__iew` ignores case)",
        ),
        "iexact" => (Some("ie"), ""),
        "exact" => (None, " (the bare filter is the exact match)"),
        "ne" | "neq" | "not" => (Some("n"), ""),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keys() {
        let k = Key::parse("site_id__in");
        assert_eq!(k.base(), "site_id");
        assert_eq!(k.lookup(), Some("in"));
        assert_eq!(Key::parse("device__site_id").lookup(), None);
        assert_eq!(Key::parse("a__b__ic").lookup(), None);
        assert!(super::super::view_params::is_exempt("cf_owner__ic"));
        assert!(!super::super::view_params::is_exempt("name"));
        assert_eq!(django_to_netbox("icontains").unwrap().0, Some("ic"));
        assert_eq!(django_to_netbox("exact").unwrap().0, None);
    }

    #[test]
    fn parse_splits_as_str_split_does() {
        for key in [
            "",
            "_",
            "__",
            "___",
            "____",
            "a",
            "a__b",
            "a___b",
            "a____b",
            "__a",
            "a__",
            "név__ic",
            "a_b__c_d__e",
            "x__y__",
            "ü__ß",
            "a_b_c_d_e_f_g__h",
            "________",
            "_______",
            "abcdefg__hijklmn__opqrstu__vwxyz__",
            "x_______y",
            "tenant_group__n",
            "a__b__c__d__e",
            "0123456789012345678901234567890123456789012345678901234567890__x",
            "0123456789012345678901234567890123456789012345678901234567890_x__y",
            "012345678901234567890123456789012345678901234567890123456789012__",
        ] {
            let want: Vec<&str> = key.split("__").collect();
            assert_eq!(Key::parse(key).parts.as_slice(), want.as_slice(), "{key:?}");
        }
    }

    /// Every key of `a`, `_` and `é` up to 10 bytes, and keys around the 64-byte mask's edge.
    #[test]
    fn parse_splits_every_short_key() {
        let mut keys = vec![String::new()];
        for _ in 0..10 {
            let mut next = Vec::new();
            for k in &keys {
                for c in ["a", "_", "é"] {
                    if k.len() + c.len() <= 10 {
                        next.push(format!("{k}{c}"));
                    }
                }
            }
            keys.extend(next);
            keys.sort();
            keys.dedup();
        }
        for n in 56usize..72 {
            for at in [0, 1, n / 2, n.saturating_sub(3), n.saturating_sub(2), n - 1] {
                let mut k = "x".repeat(n);
                k.replace_range(at..(at + 2).min(n), &"_".repeat((at + 2).min(n) - at));
                keys.push(k);
            }
        }
        for key in &keys {
            let want: Vec<&str> = key.split("__").collect();
            assert_eq!(Key::parse(key).parts.as_slice(), want.as_slice(), "{key:?}");
        }
    }
}
