//! The shipped indexes split per endpoint and per choice set at build time (`build.rs`): the
//! index without its endpoints' contents and its choice sets, each endpoint's parameters and
//! each choice set are separate raw deflate streams in one blob, with a table of each. Loading
//! a release inflates and decodes only the rest (object types and response fields: ~23 KB of
//! the 532 KB of 4.7.3's JSON) and builds the endpoint map and the choice sets from the tables;
//! an endpoint's parameters and a choice set are inflated and decoded on first use
//! ([`super::Params`], [`super::ChoiceSets`]). A hook checking one call so reads one endpoint, instead of
//! gunzipping and scanning the whole index. Index files a user names are decoded whole
//! ([`super::load::load_index`]), so that a broken one is an error at once.

use super::{Endpoint, FilterIndex, Params, FORMAT_VERSION};

/// One shipped index, split (written by `build.rs` as `netbox-<version>.split.rs`).
#[derive(Debug, Clone, Copy)]
pub struct Split {
    /// The rest of the index (its JSON with `"endpoints":{}` and `"choice_sets":[]`), then each
    /// endpoint's parameters, then each choice set, each a raw deflate stream.
    pub blob: &'static [u8],
    /// Length in bytes of the rest's JSON text, inflated.
    pub rest_len: u32,
    /// End of the rest's deflate stream in `blob` (it starts at 0).
    pub rest_end: u32,
    /// The endpoints, in key order.
    pub endpoints: &'static [SplitEndpoint],
    /// The choice sets, in index order: the byte range in [`Split::blob`] of each one's
    /// deflated JSON and its length in bytes, inflated.
    pub choice_sets: &'static [(u32, u32, u32)],
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
    /// Byte range in [`Split::blob`] of the deflated JSON object of its parameters.
    pub params: (u32, u32),
    /// Length in bytes of that JSON text, inflated.
    pub params_len: u32,
}

/// Inflates the raw deflate stream `bytes` that holds exactly `len` bytes; `None` when it
/// does not.
pub(super) fn inflate(bytes: &[u8], len: u32) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(len as usize);
    let mut d = flate2::Decompress::new(false);
    let status = d
        .decompress_vec(bytes, &mut out, flate2::FlushDecompress::Finish)
        .ok()?;
    (status == flate2::Status::StreamEnd && out.len() == len as usize).then_some(out)
}

/// The index `split` holds, its endpoints' parameters decoded on first use; `None` when the
/// rest does not inflate or decode (prevented by the tests that load every shipped index).
pub(super) fn load(split: &Split) -> Option<FilterIndex> {
    let rest = inflate(split.blob.get(..split.rest_end as usize)?, split.rest_len)?;
    // One UTF-8 check for the whole text is cheaper than serde_json's per-string checks.
    let rest = String::from_utf8(rest).ok()?;
    let mut index: FilterIndex = serde_json::from_str(&rest).ok()?;
    if index.format > FORMAT_VERSION {
        return None;
    }
    let blob = split.blob;
    index.choice_sets =
        super::ChoiceSets::deflated(split.choice_sets.iter().map(|&(from, to, len)| {
            (
                blob.get(from as usize..to as usize).unwrap_or_default(),
                len,
            )
        }));
    index.endpoints = split
        .endpoints
        .iter()
        .map(|e| {
            let (from, to) = (e.params.0 as usize, e.params.1 as usize);
            let params =
                Params::deflated(split.blob.get(from..to).unwrap_or_default(), e.params_len);
            let endpoint = Endpoint {
                object_type: e.object_type.map(str::to_string),
                params,
                fields: e.fields,
            };
            (e.key.to_string(), endpoint)
        })
        .collect();
    Some(index)
}
