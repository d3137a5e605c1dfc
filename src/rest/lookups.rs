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
        // As `key.split("__")`, by a byte scan: parsed several times per filter, and a
        // substring searcher per call cost more than the rest of a valid filter's check.
        let mut parts = Parts::Inline([""; 3], 0);
        let b = key.as_bytes();
        let (mut start, mut i) = (0, 0);
        while i + 1 < b.len() {
            if b[i] == b'_' && b[i + 1] == b'_' {
                parts.push(&key[start..i]);
                i += 2;
                start = i;
            } else {
                i += 1;
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
        ] {
            let want: Vec<&str> = key.split("__").collect();
            assert_eq!(Key::parse(key).parts.as_slice(), want.as_slice(), "{key:?}");
        }
    }
}
