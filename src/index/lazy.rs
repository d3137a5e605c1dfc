//! The shipped indexes, loaded lazily ([`super::load::load_embedded`]): one pass of a byte
//! scanner over the `endpoints` object gives each endpoint's object type and the JSON text of
//! its parameters ([`super::Params`] decodes that text on first use), and serde reads only the
//! rest (object types, choice sets, the stamp). A process that checks the calls of one endpoint
//! so decodes one endpoint's parameters, not 145 (the 4.7.3 index is 513 KB of JSON, most of it
//! parameters).

use super::{Endpoint, FilterIndex, Params};
use std::collections::BTreeMap;

/// The index in `json` (an index file's text as `index build` writes it), its endpoints'
/// parameters kept as text; `None` when the text does not have that shape (the caller then
/// decodes it whole).
pub(super) fn load(json: &str) -> Option<FilterIndex> {
    let b = json.as_bytes();
    let mut found = None;
    object(b, skip_ws(b, 0)?, |key, at| {
        if key == b"\"endpoints\"" && found.is_none() {
            let (endpoints, end) = endpoints(json, at)?;
            found = Some((at, end, endpoints));
            return Some(end);
        }
        value_end(b, at)
    })?;
    let (start, end, endpoints) = found?;
    let mut rest = String::with_capacity(json.len() - (end - start) + 2);
    rest.push_str(&json[..start]);
    rest.push_str("{}");
    rest.push_str(&json[end..]);
    let mut index: FilterIndex = serde_json::from_str(&rest).ok()?;
    index.endpoints = endpoints;
    Some(index)
}

/// The endpoints of the object at `at` (key → object type and parameters as text), and the
/// offset after it.
fn endpoints(json: &str, at: usize) -> Option<(BTreeMap<String, Endpoint>, usize)> {
    let b = json.as_bytes();
    let mut out = BTreeMap::new();
    let end = object(b, at, |key, at| {
        let key: String = serde_json::from_slice(key).ok()?;
        let mut object_type = None;
        let mut params = None;
        let end = object(b, at, |field, at| {
            let end = value_end(b, at)?;
            match field {
                b"\"object_type\"" => {
                    object_type = serde_json::from_str::<Option<String>>(&json[at..end]).ok()?;
                }
                b"\"params\"" => params = Some(Params::lazy(json.get(at..end)?)),
                _ => {}
            }
            Some(end)
        })?;
        out.insert(
            key,
            Endpoint {
                object_type,
                params: params?,
            },
        );
        Some(end)
    })?;
    Some((out, end))
}

/// Walks the members of the object at `at` (`{`): `member(key, value_start)` reads each value
/// and gives the offset after it. Returns the offset after the object.
fn object(
    b: &[u8],
    at: usize,
    mut member: impl FnMut(&[u8], usize) -> Option<usize>,
) -> Option<usize> {
    if b.get(at) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(b, at + 1)?;
    if b[i] == b'}' {
        return Some(i + 1);
    }
    loop {
        if b[i] != b'"' {
            return None;
        }
        let key_end = string_end(b, i)?;
        let colon = skip_ws(b, key_end)?;
        if b[colon] != b':' {
            return None;
        }
        let value = skip_ws(b, colon + 1)?;
        let end = member(&b[i..key_end], value)?;
        let next = skip_ws(b, end)?;
        match b[next] {
            b',' => i = skip_ws(b, next + 1)?,
            b'}' => return Some(next + 1),
            _ => return None,
        }
    }
}

/// The first offset from `i` that is not JSON whitespace; `None` at the end of the text.
fn skip_ws(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    (i < b.len()).then_some(i)
}

/// The offset after the string starting at `at` (`"`).
fn string_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// The offset after the value starting at `at`: a string, an object or array (brackets
/// matched outside strings), or a scalar (up to the next `,`, `}`, `]` or whitespace). A byte
/// loop: the strings between brackets are short (memchr3 over the brackets and quotes costs
/// more instructions here).
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    match *b.get(at)? {
        b'"' => string_end(b, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = at;
            while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shipped index has the shape the scanner reads (else `load_embedded` would decode
    /// it whole: right, but slow); `load::tests::lazy_and_whole_decodes_agree` compares the
    /// contents.
    #[test]
    fn every_shipped_index_is_read_lazily() {
        use std::io::Read;
        for r in crate::index::embedded::RELEASES {
            let mut json = String::new();
            flate2::read::GzDecoder::new(r.index_gz)
                .read_to_string(&mut json)
                .unwrap();
            let index = load(&json).unwrap_or_else(|| panic!("{}", r.version));
            assert!(index.endpoints.len() > 100, "{}", r.version);
        }
    }

    /// `(key, value)` texts of the members of the object `s`, or `None` when it is malformed.
    fn members(s: &[u8]) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        let end = object(s, 0, |k, at| {
            let e = value_end(s, at)?;
            out.push((
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(&s[at..e]).into_owned(),
            ));
            Some(e)
        })?;
        (end == s.len()).then_some(out)
    }

    #[test]
    fn scans_members_and_values() {
        let s = br#"{ "a" : [1, {"x": "}\"]"}], "b":null,"c":{"d":-1.5e3} }"#;
        let texts = members(s).unwrap();
        let texts: Vec<(&str, &str)> = texts.iter().map(|(k, v)| (&k[..], &v[..])).collect();
        assert_eq!(
            texts,
            [
                ("\"a\"", r#"[1, {"x": "}\"]"}]"#),
                ("\"b\"", "null"),
                ("\"c\"", r#"{"d":-1.5e3}"#),
            ]
        );
        for bad in [&b"{"[..], b"{\"a\"}", b"{\"a\":1,}", b"[1]", b"{\"a\":\"x"] {
            assert_eq!(members(bad), None, "{:?}", std::str::from_utf8(bad));
        }
        assert_eq!(members(b"{}"), Some(Vec::new()));
    }
}
