//! Limits on what a NetBox (or something posing as one) may send: the decoded size of an
//! answer, the number of JSON values in it, the pages of a list, and the time one request may
//! take in all. Each keeps peak memory and time bounded whatever the server answers; the
//! figures are measured on NetBox 4.6.8's own answers (`../shared/netbox/v4.6.8/`).

use std::io::Read;
use std::time::Duration;

pub use crate::index::limits::{json_separators, MAX_ANSWER_BYTES, MAX_JSON_SEPARATORS};

/// Most pages fetched of one list endpoint (`/api/extras/custom-fields/`).
pub const MAX_PAGES: usize = 200;

/// Most objects accepted from one list endpoint.
pub const MAX_OBJECTS: usize = 50_000;

/// The total time one request may take (connect, wait, and the whole body), given the
/// per-read `timeout`: four times it, so a server that trickles one byte per second cannot
/// hold a build forever while a slow but steady one (12.9 MB at 30 KB/s) still finishes.
pub fn deadline(timeout: Duration) -> Duration {
    timeout.saturating_mul(4)
}

/// `body` decoded when it is gzip (by magic bytes, whatever the headers say), at most
/// [`MAX_ANSWER_BYTES`]; anything else passes through. Errors say which limit was hit.
pub fn decoded(body: Vec<u8>) -> Result<Vec<u8>, String> {
    if !body.starts_with(&[0x1f, 0x8b]) {
        return Ok(body);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(body.as_slice())
        .take(MAX_ANSWER_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the answer is gzip but does not decompress: {e}"))?;
    if out.len() as u64 > MAX_ANSWER_BYTES {
        return Err(too_large());
    }
    Ok(out)
}

/// The error for an answer above [`MAX_ANSWER_BYTES`].
pub fn too_large() -> String {
    format!(
        "the answer is too large: more than {} MiB once decoded (NetBox 4.6.8's largest, its OpenAPI document, is 12.9 MB); netbox-lsp stops there rather than fill the memory",
        MAX_ANSWER_BYTES >> 20
    )
}

/// Refuses a JSON text with more than [`MAX_JSON_SEPARATORS`] separators, counted in one pass
/// over the bytes without building anything (a million tiny paths cost 3.6 GB once parsed and
/// built, in 29 MB of text). Text that is not JSON passes (its parser says what is wrong).
pub fn check_json_shape(text: &[u8]) -> Result<(), String> {
    if json_separators(text, MAX_JSON_SEPARATORS) > MAX_JSON_SEPARATORS {
        return Err(format!(
            "the answer holds more than {MAX_JSON_SEPARATORS} JSON items (NetBox 4.6.8's OpenAPI document holds 449,843); netbox-lsp stops there rather than fill the memory"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_outside_strings_only() {
        assert_eq!(json_separators(br#"{"a:b,{[": [1, {"c": "\",:"}]}"#, 10), 6);
        assert_eq!(json_separators(b"[1,2,3,4]", 2), 3);
        assert!(check_json_shape(b"[]").is_ok());
        let wide = format!("[{}]", "0,".repeat(MAX_JSON_SEPARATORS));
        assert!(check_json_shape(wide.as_bytes())
            .unwrap_err()
            .contains("JSON items"));
    }

    #[test]
    fn gzip_is_decoded_with_a_cap() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(br#"{"a": 1}"#).unwrap();
        assert_eq!(decoded(enc.finish().unwrap()).unwrap(), br#"{"a": 1}"#);
        let mut bomb = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..(MAX_ANSWER_BYTES >> 20) + 1 {
            bomb.write_all(&zeros).unwrap();
        }
        assert!(decoded(bomb.finish().unwrap())
            .unwrap_err()
            .contains("too large"));
        assert_eq!(decoded(b"plain".to_vec()).unwrap(), b"plain");
    }
}
