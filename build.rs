//! Lays out each shipped index (`index/netbox-<version>.index.json.gz`) so that the binary reads
//! it in place (`src/index/split.rs`): no gunzip, no JSON and no hash-table building at run
//! time. For each file it writes to `OUT_DIR`:
//! - `netbox-<version>.split.bin`: little-endian sections, uncompressed (layouts in
//!   `src/index/split.rs`): the response field table, the parameter descriptions (each distinct
//!   text once), each endpoint's parameters with their lookup table (built by
//!   `src/index/table.rs`, the code the crate uses for index files), and each choice set;
//! - `netbox-<version>.split.rs`: a `Split` expression with the index's scalar members, its
//!   object types, each endpoint's key, object type, response field set and section, and each
//!   choice set's section.
//!
//! It also writes `graphql-names.rs`, the table of every field name of the shipped GraphQL
//! schemas and the releases that have it (`src/graphql/history.rs`), and what
//! `src/rest/versions.rs` reads of `index/version-differences.tsv` before its first look-up
//! (`version-rows.bin`, `version-names.bin`: [`version_table`]).
//!
//! The sections hold what a whole decode of the file gives (a test compares every shipped index
//! both ways). A file of another shape fails the build.

use flate2::read::GzDecoder;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

#[path = "src/index/table.rs"]
#[allow(dead_code)]
mod table;

/// Marks an absent choice set or description in a parameter's section.
const NONE: u32 = u32::MAX;

fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).expect("an index section over 4 GiB")
}

/// Appends `section` to `blob`, 8-byte aligned; gives its byte range.
fn add(blob: &mut Vec<u8>, section: &[u8]) -> (u32, u32) {
    while !blob.len().is_multiple_of(8) {
        blob.push(0);
    }
    let from = len32(blob.len());
    blob.extend_from_slice(section);
    (from, len32(blob.len()))
}

/// `count u32, ends[count] u32, text`: strings one after another.
fn strings<'a>(items: impl ExactSizeIterator<Item = &'a str>) -> Vec<u8> {
    let mut out = Vec::new();
    put32(&mut out, len32(items.len()));
    let mut text = String::new();
    for s in items {
        text.push_str(s);
        put32(&mut out, len32(text.len()));
    }
    out.extend_from_slice(text.as_bytes());
    out
}

/// The response field table `{"names": [...], "sets": [[...], ...]}`: `names` as [`strings`],
/// then `sets u32, set_ends[sets] u32, ids u32, ids[ids] u16`.
fn response_fields(v: Option<&Value>) -> Vec<u8> {
    let empty = Vec::new();
    let (names, sets) = match v {
        Some(v) => (
            v["names"].as_array().expect("response field names"),
            v["sets"].as_array().expect("response field sets"),
        ),
        None => (&empty, &empty),
    };
    let mut out = strings(names.iter().map(|n| n.as_str().expect("a field name")));
    let mut ids = Vec::new();
    put32(&mut out, len32(sets.len()));
    for set in sets {
        for id in set.as_array().expect("a field set") {
            let id = u16::try_from(id.as_u64().expect("a field position")).expect("u16");
            ids.push(id);
        }
        put32(&mut out, len32(ids.len()));
    }
    put32(&mut out, len32(ids.len()));
    for id in ids {
        out.extend_from_slice(&id.to_le_bytes());
    }
    out
}

/// One endpoint's parameters (`{"name": [code, choices?, description?], ...}`, names in byte
/// order): `n, names_len, slots_len, bare_len` (u32), `ends[n]`, `choices[n]`, `descs[n]`,
/// `lookups[n]` (u32), `slots[slots_len]` (u64), `bare[bare_len]` (u32), `codes[n]` (u8),
/// the names' text.
fn params(params: &serde_json::Map<String, Value>, descs: &mut BTreeMap<String, u32>) -> Vec<u8> {
    // serde_json's map without `preserve_order` is a BTreeMap: byte order of the names.
    let names: Vec<&str> = params.keys().map(String::as_str).collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]));
    let t = table::build(names.len(), |i| names[i]);
    let mut out = Vec::new();
    let text: String = names.concat();
    for v in [names.len(), text.len(), t.slots.len(), t.bare.len()] {
        put32(&mut out, len32(v));
    }
    let mut end = 0;
    for n in &names {
        end += n.len();
        put32(&mut out, len32(end));
    }
    let mut codes = Vec::new();
    let mut choice = Vec::new();
    let mut desc = Vec::new();
    for p in params.values() {
        let p = p.as_array().expect("a parameter array");
        let code = p[0].as_u64().expect("a parameter code");
        assert!(code < 14, "a parameter code");
        codes.push(code as u8);
        choice.push(match p.get(1) {
            Some(Value::Number(n)) => u32::try_from(n.as_u64().expect("a set")).expect("u32"),
            None | Some(Value::Null) => NONE,
            Some(other) => panic!("a choice set of another shape: {other}"),
        });
        desc.push(match p.get(2) {
            Some(Value::String(s)) => {
                let next = len32(descs.len());
                *descs.entry(s.clone()).or_insert(next)
            }
            None | Some(Value::Null) => NONE,
            Some(other) => panic!("a description of another shape: {other}"),
        });
        assert!(p.len() <= 3, "a parameter with more items");
    }
    for v in choice.iter().chain(&desc).chain(t.lookups.iter()) {
        put32(&mut out, *v);
    }
    for s in t.slots.iter() {
        out.extend_from_slice(&s.to_le_bytes());
    }
    for b in t.bare.iter() {
        put32(&mut out, *b);
    }
    out.extend_from_slice(&codes);
    out.extend_from_slice(text.as_bytes());
    out
}

fn split(version: &str, json: &str, out: &Path) {
    let index: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{version}: {e}"));
    let o = index.as_object().expect("an index object");
    for key in o.keys() {
        assert!(
            [
                "format",
                "netbox_version",
                "source_sha256",
                "from_instance",
                "endpoints",
                "object_types",
                "choice_sets",
                "response_fields",
            ]
            .contains(&key.as_str()),
            "index {version}: a member `{key}` the shipped layout does not hold"
        );
    }
    let mut blob = Vec::new();
    let fields = add(&mut blob, &response_fields(o.get("response_fields")));
    let mut descs: BTreeMap<String, u32> = BTreeMap::new();
    let mut table = String::new();
    for (key, e) in o["endpoints"].as_object().expect("endpoints") {
        let section = params(e["params"].as_object().expect("params"), &mut descs);
        let range = add(&mut blob, &section);
        let object_type = e.get("object_type").and_then(Value::as_str);
        let fields = e
            .get("fields")
            .and_then(Value::as_u64)
            .map(|f| u32::try_from(f).expect("u32"));
        writeln!(
            table,
            "        crate::index::split::SplitEndpoint {{ key: {key:?}, object_type: {object_type:?}, fields: {fields:?}, params: {range:?} }},"
        )
        .unwrap();
    }
    let mut by_number: Vec<(&u32, &String)> = descs.iter().map(|(d, i)| (i, d)).collect();
    by_number.sort();
    let descriptions = add(
        &mut blob,
        &strings(by_number.iter().map(|(_, d)| d.as_str())),
    );
    let mut set_table = String::new();
    for set in o["choice_sets"].as_array().expect("choice sets") {
        let pairs = set["choices"].as_array().expect("a choice set");
        let mut items = Vec::new();
        for pair in pairs {
            let pair = pair.as_array().expect("a (value, label) pair");
            assert_eq!(pair.len(), 2, "a (value, label) pair");
            items.push(pair[0].as_str().expect("a choice value"));
            items.push(pair[1].as_str().expect("a choice label"));
        }
        let range = add(&mut blob, &strings(items.into_iter()));
        write!(set_table, "{range:?}, ").unwrap();
    }
    let mut object_types = String::new();
    for (t, key) in o["object_types"].as_object().expect("object types") {
        let key = key.as_str().expect("an endpoint key");
        write!(object_types, "({t:?}, {key:?}), ").unwrap();
    }
    let bin = format!("netbox-{version}.split.bin");
    std::fs::write(out.join(&bin), &blob).expect("write the split index");
    let rs = format!(
        "crate::index::split::Split {{\n    blob: {{\n        // A static, so the bytes are in the binary once however often the const is used.\n        static BLOB: [u8; {}] = *include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{bin}\"));\n        &BLOB\n    }},\n    format: {},\n    netbox_version: {:?},\n    source_sha256: {:?},\n    from_instance: {},\n    object_types: &[{object_types}],\n    response_fields: {fields:?},\n    descriptions: {descriptions:?},\n    endpoints: &[\n{table}    ],\n    choice_sets: &[{set_table}],\n}}\n",
        blob.len(),
        o["format"].as_u64().expect("format"),
        o["netbox_version"].as_str().expect("netbox_version"),
        o["source_sha256"].as_str().expect("source_sha256"),
        o.get("from_instance").and_then(Value::as_bool).unwrap_or(false),
    );
    std::fs::write(out.join(format!("netbox-{version}.split.rs")), rs)
        .expect("write the split table");
}

/// Calls `each(type, field)` for the fields of each `type`, `input` and `interface` of an SDL
/// text (Strawberry prints one field per line, indented: `  name: String!`,
/// `  devices(filters: ...): [...]`).
fn sdl_fields(sdl: &str, mut each: impl FnMut(&str, &str)) {
    let mut current: Option<&str> = None;
    for line in sdl.lines() {
        if let Some(rest) = ["type ", "input ", "interface "]
            .iter()
            .find_map(|k| line.strip_prefix(k))
        {
            current = rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next();
            continue;
        }
        if line.starts_with('}') {
            current = None;
            continue;
        }
        if let (Some(t), Some(body)) = (current, line.strip_prefix("  ")) {
            let len = body
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(body.len());
            let name = &body[..len];
            if !name.is_empty() && body[len..].starts_with([':', '(']) {
                each(t, name);
            }
        }
    }
}

/// `graphql-names.rs`: every `(type, field)` name of the shipped GraphQL schemas
/// (`index/netbox-<version>.schema.graphql.gz`), each once, with the mask of the versions
/// whose schema has it (bit `i` for `versions[i]`), for `src/graphql/history.rs`.
fn graphql_names(versions: &[&str], out: &Path) {
    assert!(versions.len() <= 32, "a version mask is a u32");
    let mut all: BTreeMap<(String, String), u32> = BTreeMap::new();
    for (i, version) in versions.iter().enumerate() {
        let name = format!("netbox-{version}.schema.graphql.gz");
        println!("cargo:rerun-if-changed=index/{name}");
        let gz = std::fs::read(Path::new("index").join(&name)).expect("read a schema");
        let mut sdl = String::new();
        GzDecoder::new(&gz[..])
            .read_to_string(&mut sdl)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        sdl_fields(&sdl, |ty, field| {
            *all.entry((ty.to_string(), field.to_string())).or_default() |= 1 << i;
        });
    }
    let (mut text, mut rows) = (String::new(), String::new());
    for ((ty, field), mask) in all {
        let start = len32(text.len());
        let (t, f) = (
            u16::try_from(ty.len()).expect("u16"),
            u16::try_from(field.len()).expect("u16"),
        );
        text.push_str(&ty);
        text.push_str(&field);
        write!(rows, "({start}, {t}, {f}, {mask}), ").unwrap();
    }
    let rs = format!(
        "Names {{\n    versions: &{versions:?},\n    text: {text:?},\n    rows: &[{rows}],\n}}\n"
    );
    std::fs::write(out.join("graphql-names.rs"), rs).expect("write the GraphQL names");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/index/table.rs");
    println!("cargo:rerun-if-changed=index");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    let mut names: Vec<String> = std::fs::read_dir("index")
        .expect("index/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut versions = Vec::new();
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
        versions.push(version.to_string());
    }
    let versions: Vec<&str> = versions.iter().map(String::as_str).collect();
    graphql_names(&versions, out);
    version_table(out);
    symbol_order(out);
}

/// The table of names that differ between shipped releases (`index/version-differences.tsv`,
/// which `src/rest/versions.rs` includes as text), read here as `versions::parse_table` and
/// `Differences::may_list` read it at run time (3.5 M instructions, half of what one hook call
/// with a renamed filter cost):
/// - `version-rows.bin`: the length in bytes of the table's body (after the `#` comments and
///   the `releases` line, without the last line end), then the byte offset in it where each
///   row starts, u32 little-endian each;
/// - `version-names.bin`: the bits of the `filter` rows' names (bit = the top 16 bits of
///   `table::hash` of the name), 1,024 u64 little-endian words; empty when a `filter` row
///   does not have exactly three fields after its kind (then every name may be listed).
fn version_table(out: &Path) {
    const FILE: &str = "index/version-differences.tsv";
    println!("cargo:rerun-if-changed={FILE}");
    let text = std::fs::read_to_string(FILE).unwrap_or_else(|e| panic!("{FILE}: {e}"));
    let mut rest = text.as_str();
    while rest.starts_with('#') {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    let body = rest.split_once('\n').map_or("", |(_, b)| b);
    let body = body.strip_suffix('\n').unwrap_or(body);
    let mut rows = Vec::new();
    put32(&mut rows, len32(body.len()));
    if !body.is_empty() {
        put32(&mut rows, 0);
        for (i, b) in body.bytes().enumerate() {
            if b == b'\n' {
                put32(&mut rows, len32(i + 1));
            }
        }
    }
    std::fs::write(out.join("version-rows.bin"), rows).expect("write version-rows.bin");
    let mut bits = vec![0u64; (1 << 16) / 64];
    let mut whole = true;
    for row in body.split('\n') {
        let Some(fields) = row.strip_prefix("filter\t") else {
            continue;
        };
        let fields: Vec<&str> = fields.split('\t').collect();
        if fields.len() != 3 {
            whole = false;
            break;
        }
        let bit = (table::hash(fields[1].as_bytes()) >> 48) as usize;
        bits[bit / 64] |= 1 << (bit % 64);
    }
    let names: Vec<u8> = if whole {
        bits.iter().flat_map(|w| w.to_le_bytes()).collect()
    } else {
        Vec::new()
    };
    std::fs::write(out.join("version-names.bin"), names).expect("write version-names.bin");
}

/// The functions an editor session and a `check` run execute (`build/symbol-order.txt`, written
/// by `scripts/symbol-order.sh`) go first in the binary's `.text`, together: the kernel maps code
/// in whole page-cache folios around each page touched, so with them scattered the language
/// server kept 11.4 MB of its 13.3 MB of code resident (issue 36, server RSS). Only where the
/// linker is known to be rust-lld, which takes `--symbol-ordering-file`: x86_64 Linux with glibc
/// (rust-lld is the default there since Rust 1.90; the crate needs 1.95), no other linker named
/// in the flags or the environment
/// (`NETBOX_LSP_NO_SYMBOL_ORDER=1` turns it off). A name the binary lacks (a stale file) is
/// skipped quietly by the linker; `tests/symbol_order.rs` says when the file needs regenerating.
fn symbol_order(out: &Path) {
    const FILE: &str = "build/symbol-order.txt";
    println!("cargo::rustc-check-cfg=cfg(netbox_lsp_symbol_order)");
    println!("cargo:rerun-if-changed={FILE}");
    println!("cargo:rerun-if-env-changed=NETBOX_LSP_NO_SYMBOL_ORDER");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let target = var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = flags.contains("linker")
        || flags.contains("fuse-ld")
        || std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some();
    let off = std::env::var_os("NETBOX_LSP_NO_SYMBOL_ORDER").is_some_and(|v| v == "1");
    let path = Path::new(&var("CARGO_MANIFEST_DIR")).join(FILE);
    if !target || own_linker || off || !path.is_file() {
        return;
    }
    // A copy in OUT_DIR: cargo may reuse this script's output for another checkout that shares
    // the target directory (CI's pre-commit step builds a scratch clone there), whose own path
    // is gone by the time the binary is linked again.
    let copy = out.join("symbol-order.txt");
    if std::fs::copy(&path, &copy).is_err() {
        return;
    }
    println!("cargo:rustc-cfg=netbox_lsp_symbol_order");
    println!(
        "cargo:rustc-link-arg-bin=netbox-lsp=-Wl,--symbol-ordering-file={}",
        copy.display()
    );
    println!("cargo:rustc-link-arg-bin=netbox-lsp=-Wl,--no-warn-symbol-ordering");
}
