//! A byte scanner over JSON text: the members of an object, the elements of an array and where
//! each value ends, without decoding them. `build.rs` includes this file to split the shipped indexes per endpoint
//! ([`super::split`]), so it uses only `std` and `memchr`; the crate builds it for its tests.

/// Walks the members of the object at `at` (`{`): `member(key, value_start)` reads each value
/// and gives the offset after it. Returns the offset after the object.
pub(crate) fn object(
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

/// Walks the elements of the array at `at` (`[`): `element(value_start)` reads each one and
/// gives the offset after it. Returns the offset after the array.
pub(crate) fn array(
    b: &[u8],
    at: usize,
    mut element: impl FnMut(usize) -> Option<usize>,
) -> Option<usize> {
    if b.get(at) != Some(&b'[') {
        return None;
    }
    let mut i = skip_ws(b, at + 1)?;
    if b[i] == b']' {
        return Some(i + 1);
    }
    loop {
        let end = element(i)?;
        let next = skip_ws(b, end)?;
        match b[next] {
            b',' => i = skip_ws(b, next + 1)?,
            b']' => return Some(next + 1),
            _ => return None,
        }
    }
}

/// The first offset from `i` that is not JSON whitespace; `None` at the end of the text.
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    (i < b.len()).then_some(i)
}

/// The offset after the string starting at `at` (`"`).
pub(crate) fn string_end(b: &[u8], at: usize) -> Option<usize> {
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
pub(crate) fn value_end(b: &[u8], at: usize) -> Option<usize> {
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
    fn scans_array_elements() {
        let s = br#"[ {"a": "],"}, [1, 2] ,null]"#;
        let mut got = Vec::new();
        let end = array(s, 0, |at| {
            let e = value_end(s, at)?;
            got.push(String::from_utf8_lossy(&s[at..e]).into_owned());
            Some(e)
        });
        assert_eq!(end, Some(s.len()));
        assert_eq!(got, [r#"{"a": "],"}"#, "[1, 2]", "null"]);
        assert_eq!(array(b"[ ]", 0, |_| None), Some(3));
        for bad in [&b"[1 2]"[..], b"[1,", b"{}", b"[1"] {
            assert_eq!(array(bad, 0, |at| value_end(bad, at)), None, "{bad:?}");
        }
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
