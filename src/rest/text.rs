//! String helpers the name and value rules share: comma-separated parts and NetBox's slugify.

use crate::extract::Value;

/// True when `needle` occurs in `hay` (as `str::contains`). For the short keys and schema
/// descriptions the per-filter rules scan: a first-byte loop, where `str::contains` sets up a
/// two-way searcher per call and `memchr::memmem::find` a finder, each costing more than the
/// scan itself on a 10-byte key.
pub(crate) fn contains(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = n.split_first() else {
        return true;
    };
    h.len() >= n.len()
        && (0..=h.len() - n.len()).any(|i| h[i] == first && &h[i + 1..i + n.len()] == rest)
}

/// `parts` concatenated into one string of exactly their length: for the rules' messages,
/// where `format!` cost more than the rest of building a finding.
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

/// `f` of `parts` concatenated, written on the stack when they fit 96 bytes (a name probed
/// in the index, `has_<rel>`, `<rel>_member`, that is no string of the finding): no
/// allocation for a probe that finds nothing.
pub(crate) fn with_joined<T>(parts: &[&str], f: impl FnOnce(&str) -> T) -> T {
    let mut buf = [0u8; 96];
    let len: usize = parts.iter().map(|p| p.len()).sum();
    match buf.get_mut(..len) {
        Some(room) => {
            let mut at = 0;
            for p in parts {
                room[at..at + p.len()].copy_from_slice(p.as_bytes());
                at += p.len();
            }
            // Whole `str`s joined: always UTF-8.
            f(std::str::from_utf8(room).unwrap_or_default())
        }
        None => f(&cat(parts)),
    }
}

/// Appends `name` to `out` with each `_` as a space (`name.replace('_', " ")` written in
/// place: `virtual_chassis` → `virtual chassis`).
pub(crate) fn push_spoken(out: &mut String, name: &str) {
    let mut rest = name;
    while let Some(i) = rest.as_bytes().iter().position(|&b| b == b'_') {
        out.push_str(&rest[..i]);
        out.push(' ');
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

/// The part of `key` before its first `__` (`Key::parse(key).base()`, without the parts).
pub(crate) fn dunder_base(key: &str) -> &str {
    split_dunder(key).map_or(key, |(base, _)| base)
}

/// `s.split_once("__")`, by a byte scan (no two-way searcher set up per call, as in
/// [`contains`]).
pub(crate) fn split_dunder(s: &str) -> Option<(&str, &str)> {
    let i = s.as_bytes().windows(2).position(|w| w == b"__")?;
    Some((&s[..i], &s[i + 2..]))
}

/// `s.rsplit_once("__")`, by a byte scan.
pub(crate) fn rsplit_dunder(s: &str) -> Option<(&str, &str)> {
    let i = s.as_bytes().windows(2).rposition(|w| w == b"__")?;
    Some((&s[..i], &s[i + 2..]))
}

/// The parts of a comma-separated string value (`"21,7"` → `21`, `7`); `None` otherwise.
pub(crate) fn comma_parts(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Str(s) => Some(
            s.split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect(),
        ),
        Value::Int(i) => Some(vec![i.to_string()]),
        _ => None,
    }
}

/// NetBox's slugify: lower case, runs of other characters → `-`.
pub(crate) fn slugify(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::contains;

    #[test]
    fn contains_agrees_with_str_contains() {
        let hays = [
            "",
            "a",
            "_type__n",
            "site_type__x",
            "VRF (RD)",
            "Site name (slug)",
            "__",
            "a__b",
            "é(RD)",
        ];
        let needles = ["", "_", "__", "_type__", "(RD)", "(slug)", "a__b", "b", "é"];
        for h in hays {
            for n in needles {
                assert_eq!(contains(h, n), h.contains(n), "{h:?} {n:?}");
            }
        }
    }

    /// The byte scans split where `split_once("__")` and `rsplit_once("__")` do.
    #[test]
    fn dunder_splits_are_strs() {
        for s in [
            "",
            "_",
            "__",
            "___",
            "____",
            "a__b",
            "a___b",
            "a____b",
            "__a",
            "a__",
            "site__id__n",
            "é__ü",
            "é_",
            "_é__",
            "x__y__z",
            "role_id",
        ] {
            assert_eq!(super::split_dunder(s), s.split_once("__"), "{s:?}");
            assert_eq!(super::rsplit_dunder(s), s.rsplit_once("__"), "{s:?}");
        }
    }
}
