//! The shipped indexes laid out by `build.rs` to be read in place: no gunzip, no JSON and no
//! hash-table building at run time. Loading a release builds the endpoint map, the object
//! types and the response field table from static tables and sections (the latter copied
//! out); an endpoint's parameters and a choice set are read from their section on first use
//! ([`super::Params`], [`super::ChoiceSets`]): a hook checking one call reads one endpoint.
//! Index files a user names are decoded whole ([`super::load::load_index`]), so that a broken
//! one is an error at once.
//!
//! Sections are little-endian, each at a multiple of 8 bytes in [`Split::blob`]:
//! - strings: `count u32`, `ends[count] u32` (byte end of each string in the text), the text;
//! - response fields: the names as strings, then `sets u32`, `set_ends[sets] u32`, `ids u32`,
//!   `ids[ids] u16` ([`super::ResponseFields`]);
//! - an endpoint's parameters (names in byte order): `n, names_len, slots_len, bare_len`
//!   (u32), `ends[n]`, `choices[n]`, `descs[n]` (u32, `u32::MAX` for none; a description is
//!   a string of [`Split::descriptions`]), `lookups[n]` (u32), `slots[slots_len]` (u64),
//!   `bare[bare_len]` (u32), `codes[n]` (u8, as in `compact.rs`), the names' text; the
//!   lookup table is `table.rs`'s;
//! - a choice set: `(value, label)` pairs as strings `value0, label0, value1, ...`.

use super::{ChoiceSets, Endpoint, FilterIndex, Params, ResponseFields, FORMAT_VERSION};

/// One shipped index, laid out (written by `build.rs` as `netbox-<version>.split.rs`).
#[derive(Debug, Clone, Copy)]
pub struct Split {
    /// The sections (see the module docs).
    pub blob: &'static [u8],
    /// [`FilterIndex::format`].
    pub format: u32,
    /// [`FilterIndex::netbox_version`].
    pub netbox_version: &'static str,
    /// [`FilterIndex::source_sha256`].
    pub source_sha256: &'static str,
    /// [`FilterIndex::from_instance`].
    pub from_instance: bool,
    /// [`FilterIndex::object_types`]: `(object type, endpoint key)` in object type order.
    pub object_types: &'static [(&'static str, &'static str)],
    /// Byte range in [`Split::blob`] of the response field section.
    pub response_fields: (u32, u32),
    /// Byte range of the strings section of the parameters' descriptions (each text once).
    pub descriptions: (u32, u32),
    /// The endpoints, in key order.
    pub endpoints: &'static [SplitEndpoint],
    /// The byte range of each choice set's section, in index order.
    pub choice_sets: &'static [(u32, u32)],
}

/// One endpoint of a [`Split`].
#[derive(Debug, Clone, Copy)]
pub struct SplitEndpoint {
    /// The endpoint's key, e.g. `dcim/devices`.
    pub key: &'static str,
    /// [`Endpoint::object_type`].
    pub object_type: Option<&'static str>,
    /// [`Endpoint::fields`].
    pub fields: Option<u32>,
    /// Byte range in [`Split::blob`] of its parameters' section.
    pub params: (u32, u32),
}

/// A cursor over a little-endian section; every read is bounds-checked (`None` past the end).
#[derive(Debug, Clone, Copy)]
pub(super) struct Le {
    bytes: &'static [u8],
    at: usize,
}

impl Le {
    /// A cursor at the start of the section `range` of `blob` (empty when out of range).
    pub(super) fn new(blob: &'static [u8], (from, to): (u32, u32)) -> Le {
        Le {
            bytes: blob.get(from as usize..to as usize).unwrap_or_default(),
            at: 0,
        }
    }

    /// The next `n` bytes.
    pub(super) fn bytes(&mut self, n: usize) -> Option<&'static [u8]> {
        let b = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(b)
    }

    /// The next u32.
    pub(super) fn u32(&mut self) -> Option<u32> {
        self.bytes(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The next `n` u32s.
    pub(super) fn u32s(&mut self, n: usize) -> Option<impl ExactSizeIterator<Item = u32>> {
        let b = self.bytes(n.checked_mul(4)?)?;
        Some(
            b.chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        )
    }

    /// The next `n` u64s.
    pub(super) fn u64s(&mut self, n: usize) -> Option<impl ExactSizeIterator<Item = u64>> {
        let b = self.bytes(n.checked_mul(8)?)?;
        Some(b.chunks_exact(8).map(|w| {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            u64::from_le_bytes(a)
        }))
    }

    /// A strings section from here: its string ends (bytes of the text) and its text.
    pub(super) fn strings(&mut self) -> Option<Strings> {
        let count = self.u32()? as usize;
        let ends = self.bytes(count.checked_mul(4)?)?;
        let len = match count {
            0 => 0,
            _ => u32::from_le_bytes(ends[ends.len() - 4..].try_into().ok()?) as usize,
        };
        let text = std::str::from_utf8(self.bytes(len)?).ok()?;
        Some(Strings { ends, text })
    }
}

/// A strings section read in place.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Strings {
    /// `count` little-endian u32 ends.
    ends: &'static [u8],
    text: &'static str,
}

impl Strings {
    /// Number of strings.
    pub(super) fn len(&self) -> usize {
        self.ends.len() / 4
    }

    fn end(&self, i: usize) -> Option<usize> {
        let w = self.ends.get(i * 4..i * 4 + 4)?;
        Some(u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    }

    /// String `i`; `None` past the end.
    pub(super) fn get(&self, i: usize) -> Option<&'static str> {
        let start = if i == 0 { 0 } else { self.end(i - 1)? };
        self.text.get(start..self.end(i)?)
    }

    /// The whole text and the ends (as u32s).
    pub(super) fn parts(&self) -> (&'static str, impl ExactSizeIterator<Item = u32>) {
        (
            self.text,
            self.ends
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        )
    }
}

/// The index `split` holds, its endpoints' parameters and its choice sets read on first use;
/// `None` when a section does not read (prevented by the tests that load every shipped
/// index) or the format is newer than this build.
pub(super) fn load(split: &Split) -> Option<FilterIndex> {
    if split.format > FORMAT_VERSION {
        return None;
    }
    let blob = split.blob;
    let descriptions = Le::new(blob, split.descriptions).strings()?;
    let endpoints = split
        .endpoints
        .iter()
        .map(|e| {
            let endpoint = Endpoint {
                object_type: e.object_type.map(str::to_string),
                params: Params::shipped(Le::new(blob, e.params), descriptions),
                fields: e.fields,
            };
            (e.key.to_string(), endpoint)
        })
        .collect();
    Some(FilterIndex {
        format: split.format,
        netbox_version: split.netbox_version.to_string(),
        source_sha256: split.source_sha256.to_string(),
        from_instance: split.from_instance,
        endpoints,
        object_types: split
            .object_types
            .iter()
            .map(|(t, k)| (t.to_string(), k.to_string()))
            .collect(),
        choice_sets: ChoiceSets::shipped(split.choice_sets.iter().map(|&r| Le::new(blob, r))),
        response_fields: ResponseFields::shipped(Le::new(blob, split.response_fields))?,
        instance: None,
    })
}
