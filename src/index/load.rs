//! Reads and writes index files: gzip-compressed compact JSON of a [`FilterIndex`].

use super::{FilterIndex, FORMAT_VERSION};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::fmt;
use std::io::{Read, Write};

/// Largest uncompressed index accepted (bytes); the 4.6.8 index is well under 2 MB.
const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

/// Why an index file could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexError {
    /// The bytes do not start with the gzip magic `1f 8b`.
    NotGzip,
    /// The gzip stream ends early.
    Truncated,
    /// Corrupt gzip data, or JSON that is not an index of a known format (the parser's message).
    Malformed(String),
    /// Written by a newer netbox-lsp: its format number is larger than [`FORMAT_VERSION`].
    NewerFormat { found: u32, supported: u32 },
    /// No shipped index for the requested NetBox version (message names the shipped ones).
    UnknownVersion(String),
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::NotGzip => write!(
                f,
                "not an index file (expected gzip-compressed JSON written by `netbox-lsp index build`)"
            ),
            IndexError::Truncated => write!(f, "the index file is truncated; rebuild or copy it again"),
            IndexError::Malformed(e) => write!(f, "the index file is malformed: {e}"),
            IndexError::NewerFormat { found, supported } => write!(
                f,
                "index format {found} is newer than this netbox-lsp supports ({supported}); \
                 upgrade netbox-lsp or rebuild the index"
            ),
            IndexError::UnknownVersion(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for IndexError {}

/// Only the format number, to tell "newer format" from "broken" when a full decode fails.
#[derive(serde::Deserialize)]
struct FormatProbe {
    format: u32,
}

/// Decodes an index file (gzip + JSON). Errors, never panics, on anything else.
pub fn load_index(bytes: &[u8]) -> Result<FilterIndex, IndexError> {
    parse(&gunzip(bytes)?)
}

/// Decodes an index file as written by `netbox-lsp index build` (gzip-compressed JSON) or the
/// same JSON uncompressed (a file that starts with `{`); anything else is [`IndexError::NotGzip`].
pub fn load_index_or_json(bytes: &[u8]) -> Result<FilterIndex, IndexError> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    match start.map(|i| bytes[i]) {
        Some(b'{') => parse(bytes),
        _ => load_index(bytes),
    }
}

/// The JSON text of a gzip-compressed index file.
fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, IndexError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(IndexError::NotGzip);
    }
    // The gzip trailer's ISIZE (uncompressed length mod 2^32) sizes the buffer in one go;
    // bounded, since a truncated file ends in arbitrary bytes.
    let isize = bytes
        .len()
        .checked_sub(4)
        .and_then(|at| bytes.get(at..))
        .and_then(|t| <[u8; 4]>::try_from(t).ok())
        .map_or(0, u32::from_le_bytes) as usize;
    let mut json = Vec::with_capacity(isize.min(bytes.len().saturating_mul(64)) + 1);
    let mut dec = GzDecoder::new(bytes).take(MAX_INDEX_BYTES + 1);
    match dec.read_to_end(&mut json) {
        Ok(_) if json.len() as u64 > MAX_INDEX_BYTES => {
            return Err(IndexError::Malformed(format!(
                "larger than {MAX_INDEX_BYTES} bytes uncompressed"
            )))
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            return Err(IndexError::Truncated)
        }
        Err(e) => return Err(IndexError::Malformed(format!("corrupt gzip data: {e}"))),
    }
    Ok(json)
}

/// Decodes an index file's JSON text whole.
fn parse(json: &[u8]) -> Result<FilterIndex, IndexError> {
    let newer = |found: u32| IndexError::NewerFormat {
        found,
        supported: FORMAT_VERSION,
    };
    // One UTF-8 check for the whole text is cheaper than serde_json's per-string checks.
    let json = std::str::from_utf8(json)
        .map_err(|e| IndexError::Malformed(format!("not UTF-8 text: {e}")))?;
    match serde_json::from_str::<FilterIndex>(json) {
        Ok(index) if index.format > FORMAT_VERSION => Err(newer(index.format)),
        Ok(index) => Ok(index),
        Err(e) => match serde_json::from_str::<FormatProbe>(json) {
            Ok(p) if p.format > FORMAT_VERSION => Err(newer(p.format)),
            _ => Err(IndexError::Malformed(e.to_string())),
        },
    }
}

/// Encodes an index file: compact JSON, gzip at the best compression (deterministic bytes:
/// the gzip header carries no time stamp).
pub fn write_index(index: &FilterIndex) -> Vec<u8> {
    // Serialising plain structs and maps with string keys cannot fail.
    let json = serde_json::to_vec(index).unwrap_or_default();
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    // Writes into a Vec cannot fail.
    let _ = enc.write_all(&json);
    enc.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn tiny() -> FilterIndex {
        FilterIndex {
            format: FORMAT_VERSION,
            netbox_version: "9.9.9".into(),
            source_sha256: "00".into(),
            from_instance: false,
            endpoints: Default::default(),
            object_types: BTreeMap::new(),
            choice_sets: Default::default(),
            response_fields: Default::default(),
            instance: None,
        }
    }

    /// The shipped indexes split per endpoint and per choice set by `build.rs` and decoded
    /// lazily (as the binary uses them) hold exactly what a whole decode of the shipped files
    /// gives, endpoint by endpoint and set by set.
    #[test]
    fn split_and_whole_decodes_agree() {
        for r in crate::index::embedded::RELEASES {
            let lazy = crate::index::split::load(&r.split).unwrap();
            let whole = load_index(r.index_gz).unwrap();
            assert_eq!(lazy.endpoints.len(), whole.endpoints.len(), "{}", r.version);
            for (key, e) in &whole.endpoints {
                let l = &lazy.endpoints[key];
                assert!(
                    !l.params.is_empty() || e.params.is_empty(),
                    "{} {key}",
                    r.version
                );
                assert_eq!(l, e, "{} {key}", r.version);
            }
            assert_eq!(
                lazy.choice_sets.len(),
                whole.choice_sets.len(),
                "{}",
                r.version
            );
            for (i, (l, w)) in lazy
                .choice_sets
                .iter()
                .zip(whole.choice_sets.iter())
                .enumerate()
            {
                assert_eq!(l, w, "{} set {i}", r.version);
            }
            assert_eq!(lazy, whole, "{}", r.version);
        }
    }

    #[test]
    fn round_trip() {
        let i = tiny();
        assert_eq!(load_index(&write_index(&i)).unwrap(), i);
    }

    #[test]
    fn errors() {
        assert_eq!(load_index(b"{}"), Err(IndexError::NotGzip));
        assert_eq!(load_index(b""), Err(IndexError::NotGzip));
        let full = write_index(&tiny());
        assert_eq!(
            load_index(&full[..full.len() / 2]),
            Err(IndexError::Truncated)
        );
        let mut newer = tiny();
        newer.format = 7;
        let e = load_index(&write_index(&newer)).unwrap_err();
        assert_eq!(
            e,
            IndexError::NewerFormat {
                found: 7,
                supported: FORMAT_VERSION
            }
        );
        assert!(e.to_string().starts_with("index format 7 is newer"), "{e}");
    }
}
