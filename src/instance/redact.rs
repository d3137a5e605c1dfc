//! Finds a secret in text in every form a server can echo it: as written, URL-encoded (`%5F`,
//! also twice: `%255F`), JSON- or Python-escaped (`\u005f`, `\x5f`, `\/`), as HTML character
//! references (`&#95;`, `&#x5f;`), any of these mixed character by character, and base64 (of the
//! secret or of a header that holds it, at any alignment, standard or URL-safe alphabet).
//!
//! Callers decode what they can first (a JSON string through serde) and then redact the decoded
//! text: the matching here also catches what is still encoded, so a secret is redacted whether
//! the text was decoded or not. Linear in the text (times the secret's length).

use base64::Engine;

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// Secrets shorter than this are not searched for (they would match ordinary words).
const MIN_SECRET: usize = 4;
/// Base64 needles shorter than this are not searched for.
const MIN_BASE64: usize = 12;

/// A secret and its base64 needles, ready to redact text.
#[derive(Clone, PartialEq, Eq)]
pub struct Redactor {
    secret: Vec<u8>,
    base64: Vec<String>,
}

impl Redactor {
    /// A redactor for `secret`; `headers` are other texts that hold it and may be sent base64
    /// encoded (`Token <secret>`). `None` when the secret is too short to search for.
    pub fn new(secret: &str, headers: &[String]) -> Option<Redactor> {
        if secret.len() < MIN_SECRET {
            return None;
        }
        let mut base64 = Vec::new();
        for plain in std::iter::once(secret).chain(headers.iter().map(String::as_str)) {
            for needle in base64_needles(plain.as_bytes()) {
                if needle.len() >= MIN_BASE64 && !base64.contains(&needle) {
                    base64.push(needle);
                }
            }
        }
        Some(Redactor {
            secret: secret.as_bytes().to_vec(),
            base64,
        })
    }

    /// `text` with every occurrence of the secret, in any form above, replaced by
    /// [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        let mut out = redact_encoded(text, &self.secret);
        for needle in &self.base64 {
            if out.contains(needle.as_str()) {
                out = out.replace(needle.as_str(), REDACTED);
            }
        }
        out
    }
}

/// `text` with each match of `secret` (see [`match_at`]) replaced.
fn redact_encoded(text: &str, secret: &[u8]) -> String {
    let bytes = text.as_bytes();
    let first = secret[0];
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let may_start = b.eq_ignore_ascii_case(&first) || matches!(b, b'%' | b'\\' | b'&');
        if may_start {
            if let Some(end) = match_at(bytes, i, secret) {
                out.push_str(&text[copied..i]);
                out.push_str(REDACTED);
                i = end;
                copied = end;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// The end of a match of `secret` in `text` starting at `at`, each byte of the secret written
/// as itself (ASCII case ignored) or in one of the encodings of [`decode_one`].
fn match_at(text: &[u8], at: usize, secret: &[u8]) -> Option<usize> {
    let mut j = at;
    for &want in secret {
        let got = text.get(j)?;
        if got.eq_ignore_ascii_case(&want) {
            j += 1;
            continue;
        }
        let (byte, len) = decode_one(&text[j..])?;
        if !byte.eq_ignore_ascii_case(&want) {
            return None;
        }
        j += len;
    }
    // Ends inside a UTF-8 sequence only if the secret does: then it is no match here.
    std::str::from_utf8(&text[at..j]).ok()?;
    Some(j)
}

fn hex(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b).ok()?;
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// One escaped ASCII byte at the start of `t` and the length of its escape: `%5F`, `%255F`,
/// `\u005f`, `\u{5f}`, `\U0000005f`, `\x5f`, `\/` (a backslash before punctuation), `&#95;`,
/// `&#x5f;`.
fn decode_one(t: &[u8]) -> Option<(u8, usize)> {
    let ascii = |v: u32| u8::try_from(v).ok().filter(u8::is_ascii);
    match t {
        [b'%', b'2', b'5', a, b, ..] if hex(&[*a, *b]).is_some() => {
            Some((ascii(hex(&[*a, *b])?)?, 5))
        }
        [b'%', a, b, ..] => Some((ascii(hex(&[*a, *b])?)?, 3)),
        [b'\\', b'u', b'{', rest @ ..] => {
            let close = rest.iter().take(7).position(|&c| c == b'}')?;
            Some((ascii(hex(&rest[..close])?)?, 3 + close + 1))
        }
        [b'\\', b'u', rest @ ..] if rest.len() >= 4 => Some((ascii(hex(&rest[..4])?)?, 6)),
        [b'\\', b'U', rest @ ..] if rest.len() >= 8 => Some((ascii(hex(&rest[..8])?)?, 10)),
        [b'\\', b'x', rest @ ..] if rest.len() >= 2 => Some((ascii(hex(&rest[..2])?)?, 4)),
        [b'\\', c, ..] if c.is_ascii_punctuation() => Some((*c, 2)),
        [b'&', b'#', b'x' | b'X', rest @ ..] => {
            let end = rest.iter().take(9).position(|&c| c == b';')?;
            Some((ascii(hex(&rest[..end])?)?, 3 + end + 1))
        }
        [b'&', b'#', rest @ ..] => {
            let end = rest.iter().take(9).position(|&c| c == b';')?;
            let digits = std::str::from_utf8(&rest[..end]).ok()?;
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            Some((ascii(digits.parse().ok()?)?, 2 + end + 1))
        }
        _ => None,
    }
}

/// The parts of the base64 encoding of `plain` that do not depend on what surrounds it: one
/// per alignment (0, 1 or 2 bytes before it), in both alphabets. Any base64 text that encodes
/// `plain` somewhere holds one of them.
fn base64_needles(plain: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for k in 0..3usize {
        let mut padded = vec![0u8; k];
        padded.extend_from_slice(plain);
        // 6-bit groups wholly inside `plain`'s bits [8k, 8(k + len)).
        let from = (8 * k).div_ceil(6);
        let to = 8 * (k + plain.len()) / 6;
        if to <= from {
            continue;
        }
        for engine in [
            &base64::engine::general_purpose::STANDARD_NO_PAD,
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        ] {
            let enc = engine.encode(&padded);
            if let Some(part) = enc.get(from..to) {
                out.push(part.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const V2: &str = "nbt_K3yK3yK3y.s3cr3ts3cr3ts3cr3t";

    fn r() -> Redactor {
        Redactor::new(V2, &[format!("Bearer {V2}")]).unwrap()
    }

    #[test]
    fn every_encoding_is_redacted() {
        let json_escaped = V2.replace('_', "\\u005f");
        let url = V2.replace('_', "%5F").replace('.', "%2e");
        let twice = V2.replace('_', "%255F");
        let html = V2.replace('_', "&#95;").replace('.', "&#x2E;");
        let mixed = "\\u006e%62t_K3yK3yK3y\\.s3cr3ts3cr3ts3cr3t";
        let upper = V2.to_ascii_uppercase();
        for form in [V2, &json_escaped, &url, &twice, &html, mixed, &upper] {
            let text = format!("echo: [{form}] end");
            assert_eq!(r().redact(&text), "echo: [<redacted>] end", "{form}");
        }
    }

    #[test]
    fn base64_at_any_alignment() {
        let e = &base64::engine::general_purpose::STANDARD;
        for prefix in ["", "x", "xy", "user:", "Bearer "] {
            let enc = e.encode(format!("{prefix}{V2}"));
            let out = r().redact(&format!("Authorization: Basic {enc}"));
            assert!(out.contains(REDACTED), "{prefix}: {out}");
            // Nothing of the secret's middle is left.
            let middle = &e.encode(V2)[4..20];
            assert!(!out.contains(middle), "{prefix}: {out}");
        }
    }

    #[test]
    fn other_text_is_left_alone() {
        assert_eq!(
            r().redact("100% \\u0041 &#95; nbt_other é"),
            "100% \\u0041 &#95; nbt_other é"
        );
        assert!(Redactor::new("abc", &[]).is_none());
    }
}
