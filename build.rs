//! Splits each shipped index (`index/netbox-<version>.index.json.gz`) per endpoint, so that a
//! process inflates and reads only the endpoints it checks (`src/index/split.rs`). For each file
//! it writes to `OUT_DIR`:
//! - `netbox-<version>.split.bin`: the index without its endpoints' contents and its choice
//!   sets (`"endpoints":{}`, `"choice_sets":[]`), then each endpoint's `params` JSON object,
//!   then each choice set's JSON, each a raw deflate stream;
//! - `netbox-<version>.split.rs`: a `Split` expression naming each endpoint's key, object type,
//!   response field set and the byte range and inflated length of its parameters in the blob,
//!   and each choice set's byte range and inflated length.
//!
//! The JSON texts are cut from the decompressed file unchanged (`src/index/scan.rs` finds the
//! members), so the parameters decode to what a whole decode gives (a test compares every
//! shipped index both ways). A file of another shape fails the build.

use flate2::read::GzDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;

#[path = "src/index/scan.rs"]
#[allow(dead_code)]
mod scan;

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::best());
    enc.write_all(bytes).expect("deflate into memory");
    enc.finish().expect("deflate into memory")
}

/// The text of the JSON string `s` (quotes included) when it has no escapes.
fn plain_string(s: &str) -> &str {
    assert!(
        s.len() >= 2 && s.starts_with('"') && s.ends_with('"') && !s.contains('\\'),
        "an index string with escapes or not a string: {s}"
    );
    &s[1..s.len() - 1]
}

fn split(version: &str, json: &str, out: &Path) {
    let b = json.as_bytes();
    let (mut endpoints, mut sets) = (None, None);
    scan::object(b, scan::skip_ws(b, 0).expect("empty index"), |key, at| {
        let end = scan::value_end(b, at)?;
        match key {
            b"\"endpoints\"" => endpoints = Some((at, end)),
            b"\"choice_sets\"" => sets = Some((at, end)),
            _ => {}
        }
        Some(end)
    })
    .unwrap_or_else(|| panic!("index {version} is not a JSON object"));
    let (start, _) = endpoints.unwrap_or_else(|| panic!("index {version} has no endpoints"));
    let (sets_start, _) = sets.unwrap_or_else(|| panic!("index {version} has no choice sets"));
    // The rest: the two members emptied, in the order the file has them.
    let mut cuts = [(endpoints.unwrap(), "{}"), (sets.unwrap(), "[]")];
    cuts.sort_by_key(|((from, _), _)| *from);
    let mut rest = String::new();
    let mut at = 0;
    for ((from, to), empty) in cuts {
        rest.push_str(&json[at..from]);
        rest.push_str(empty);
        at = to;
    }
    rest.push_str(&json[at..]);
    let mut blob = deflate(rest.as_bytes());
    let rest_end = blob.len();
    let mut table = String::new();
    scan::object(b, start, |key, at| {
        let key = plain_string(std::str::from_utf8(key).ok()?);
        let (mut object_type, mut params, mut fields) = (None, None, None);
        let end = scan::object(b, at, |field, at| {
            let end = scan::value_end(b, at)?;
            let text = &json[at..end];
            match field {
                b"\"object_type\"" if text != "null" => object_type = Some(plain_string(text)),
                b"\"params\"" => params = Some(text),
                b"\"fields\"" if text != "null" => fields = Some(text.parse::<u32>().ok()?),
                _ => {}
            }
            Some(end)
        })?;
        let params = params?;
        let chunk = deflate(params.as_bytes());
        let from = blob.len();
        blob.extend_from_slice(&chunk);
        writeln!(
            table,
            "        crate::index::split::SplitEndpoint {{ key: {key:?}, object_type: {object_type:?}, fields: {fields:?}, params: ({from}, {}), params_len: {} }},",
            blob.len(),
            params.len()
        )
        .ok()?;
        Some(end)
    })
    .unwrap_or_else(|| panic!("index {version}: an endpoint of another shape"));
    let mut set_table = String::new();
    scan::array(b, sets_start, |at| {
        let end = scan::value_end(b, at)?;
        let text = &json[at..end];
        let from = blob.len();
        blob.extend_from_slice(&deflate(text.as_bytes()));
        write!(set_table, "({from}, {}, {}), ", blob.len(), text.len()).ok()?;
        Some(end)
    })
    .unwrap_or_else(|| panic!("index {version}: choice sets of another shape"));
    let bin = format!("netbox-{version}.split.bin");
    std::fs::write(out.join(&bin), &blob).expect("write the split index");
    let rs = format!(
        "crate::index::split::Split {{\n    blob: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{bin}\")),\n    rest_len: {},\n    rest_end: {},\n    endpoints: &[\n{table}    ],\n    choice_sets: &[{set_table}],\n}}\n",
        rest.len(),
        rest_end
    );
    std::fs::write(out.join(format!("netbox-{version}.split.rs")), rs)
        .expect("write the split table");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/index/scan.rs");
    println!("cargo:rerun-if-changed=index");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    let mut names: Vec<String> = std::fs::read_dir("index")
        .expect("index/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    for name in names {
        let Some(version) = name
            .strip_prefix("netbox-")
            .and_then(|n| n.strip_suffix(".index.json.gz"))
        else {
            continue;
        };
        println!("cargo:rerun-if-changed=index/{name}");
        let gz = std::fs::read(Path::new("index").join(&name)).expect("read index");
        let mut json = String::new();
        GzDecoder::new(&gz[..])
            .read_to_string(&mut json)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        split(version, &json, out);
    }
}
