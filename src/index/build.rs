//! Builds a [`FilterIndex`] from NetBox's OpenAPI document (`/api/schema/?format=json`, or the
//! `openapi.json.gz` files under `../shared/netbox/v<version>/`).
//!
//! What is taken from the document (facts: `netbox-facts.md` §1.2, checked on 4.3.3–4.6.8):
//! - list endpoints: `GET /api/<app>/<slug>/` (three segments, no `{`) and plugin collections
//!   `GET /api/plugins/<plugin>/<slug>/`;
//! - the object type each serves, from the `200` response `$ref` `Paginated<Model>List`
//!   (`WithConfigContext` dropped), overridden by [`IRREGULAR`] for the few whose model name is
//!   not what the path suggests;
//! - every query parameter, its value kind (`type` + `format`; `array` → `multi`) and its choices:
//!   the parameter's inline `enum`, or the component enum with the same `x-spec-enum-id`;
//! - the field names of the objects it answers with: the `200` response's `results` items'
//!   `properties` (interned, see [`super::ResponseFields`]), the names `?fields=`/`?omit=` take.

use super::{
    ChoiceSet, Endpoint, FilterIndex, Parameter, ResponseFields, ValueKind, FORMAT_VERSION,
};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::io::Read;

/// Largest uncompressed document accepted by default (bytes), as for an answer of a live
/// NetBox ([`super::limits::MAX_ANSWER_BYTES`]): the largest real one, NetBox 4.7.3's,
/// is 14,598,122 bytes. Raised with [`BuildOptions::max_document_bytes`].
pub const MAX_DOCUMENT_BYTES: u64 = super::limits::MAX_ANSWER_BYTES;

/// Most JSON items (separators `{ [ , :` outside strings) a document may hold by default, as
/// for an answer ([`super::limits::MAX_JSON_SEPARATORS`], 1,200,000): NetBox 4.7.3's
/// holds 497,601 and builds in about 100 MB; a million tiny paths (51 MB of text) took 1.96 GB
/// and 17 s to build before this limit. Raised with [`BuildOptions::max_json_items`].
pub const MAX_JSON_ITEMS: usize = super::limits::MAX_JSON_SEPARATORS;

/// Endpoints whose object type cannot be derived from the path or the response name, keyed by
/// endpoint key (facts: `netbox-facts.md` §1.2 and §B.3). `extras/object-types` served
/// `core.objecttype` before NetBox 4.4 (removed in 4.5).
pub const IRREGULAR: &[(&str, &str)] = &[
    ("core/object-types", "core.objecttype"),
    ("extras/object-types", "core.objecttype"),
    ("dcim/virtual-chassis", "dcim.virtualchassis"),
    ("extras/tagged-objects", "extras.taggeditem"),
    ("users/permissions", "users.objectpermission"),
    ("virtualization/interfaces", "virtualization.vminterface"),
];

/// Why an OpenAPI document could not be turned into an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// Gzip magic bytes but the stream is cut short.
    TruncatedGzip,
    /// Gzip magic bytes but the stream is corrupt (message from the decoder).
    BadGzip(String),
    /// The uncompressed document is larger than the accepted maximum (bytes).
    TooLarge(u64),
    /// The document holds more JSON items than the accepted maximum (the maximum).
    TooManyItems(usize),
    /// Not JSON (serde_json's message, with line and column).
    NotJson(String),
    /// JSON, but not an OpenAPI document (what is missing).
    NotOpenApi(String),
    /// An OpenAPI document without a single NetBox list endpoint (`GET /api/<app>/<model>/`);
    /// the count is of list endpoints skipped because their parameters were unreadable.
    NoListEndpoints { skipped: usize },
    /// No usable NetBox version: `info.version` missing or not `X.Y[.Z]` (nor starting with
    /// one), or a `--netbox-version` that is not a version. The message says which.
    BadVersion(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::TruncatedGzip => {
                write!(f, "the gzip file is truncated (download or copy it again)")
            }
            BuildError::BadGzip(e) => write!(f, "the gzip file is corrupt: {e}"),
            BuildError::TooLarge(max) => write!(
                f,
                "the OpenAPI document is larger than {} MiB once uncompressed (NetBox 4.7.3's is 14.6 MB); netbox-lsp stops there rather than fill the memory; for a larger real document, raise the limit with --max-document-mib N",
                max >> 20
            ),
            BuildError::TooManyItems(max) => write!(
                f,
                "the OpenAPI document holds more than {max} JSON items ({{ [ , : outside strings; NetBox 4.7.3's holds 497,601); netbox-lsp stops there rather than fill the memory (about 200 bytes per item); for a larger real document, raise the limit with --max-json-items N"
            ),
            BuildError::NotJson(e) => write!(f, "the OpenAPI document is not JSON: {e}"),
            BuildError::NotOpenApi(what) => write!(f, "not an OpenAPI document: {what}"),
            BuildError::NoListEndpoints { skipped } => {
                write!(
                    f,
                    "no NetBox list endpoints (GET /api/<app>/<model>/) in this document: not a NetBox OpenAPI document?"
                )?;
                if *skipped > 0 {
                    write!(f, " ({skipped} skipped: their `parameters` are not a list)")?;
                }
                Ok(())
            }
            BuildError::BadVersion(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Figures about choice resolution gathered while building (for `index build` output and tests).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Indexed parameters whose schema carries an `x-spec-enum-id`.
    pub enum_ids: usize,
    /// Of those, how many got a choice set (inline `enum` or a component with the same id).
    pub enum_ids_resolved: usize,
    /// `x-spec-enum-id` occurrences in every operation of the document (not only list endpoints).
    pub document_enum_ids: usize,
    /// Of those, how many have a component enum with the same id.
    pub document_enum_ids_in_components: usize,
    /// `endpoint key` + parameter name of indexed parameters whose enum id did not resolve.
    pub unresolved: Vec<String>,
    /// Endpoint keys left out because their `parameters` could not be read (not a list, or an
    /// entry without `in`/`name`): an endpoint missing from the index gives no name findings,
    /// where one with no parameters would make every filter unknown.
    pub skipped: Vec<String>,
    /// Paths and parameter names left out because they are not printable names (a NUL, a
    /// newline, a space, a quote...: [`printable_name`]), each written as a Rust string
    /// literal (escaped); at most [`MAX_REFUSED_SHOWN`] of them, `refused_count` counts all.
    pub refused: Vec<String>,
    /// How many paths and parameters were refused.
    pub refused_count: usize,
    /// What the builder decided on the user's behalf (the version it took from an irregular
    /// `info.version`, a `--netbox-version` override).
    pub notes: Vec<String>,
}

/// Options of `index build` beyond the document itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// NetBox version to stamp instead of `info.version` (`index build --netbox-version`);
    /// must be `X.Y` or `X.Y.Z`.
    pub netbox_version: Option<String>,
    /// Most uncompressed bytes (default [`MAX_DOCUMENT_BYTES`]).
    pub max_document_bytes: Option<u64>,
    /// Most JSON items, counted before anything is parsed (default [`MAX_JSON_ITEMS`]).
    pub max_json_items: Option<usize>,
}

/// Builds the index from an OpenAPI document, JSON or gzip-compressed JSON (detected by the magic
/// bytes `1f 8b`). The stamp is `info.version`, the SHA-256 of the uncompressed document and
/// [`FORMAT_VERSION`]. Errors, never panics, on anything that is not a readable OpenAPI document.
pub fn build_from_openapi(bytes: &[u8]) -> Result<FilterIndex, BuildError> {
    build_with_report(bytes).map(|(index, _)| index)
}

/// [`build_from_openapi`], also returning the choice-resolution figures.
pub fn build_with_report(bytes: &[u8]) -> Result<(FilterIndex, BuildReport), BuildError> {
    build_with_options(bytes, &BuildOptions::default())
}

/// [`build_with_report`] with [`BuildOptions`]. Besides the errors above: a document without
/// any list endpoint is [`BuildError::NoListEndpoints`]; one whose `info.version` is neither
/// `X.Y[.Z]` nor starts with one (`4.6.8 (4.6)` and `4.6.8-Docker-3.3.0` give `4.6.8`, with a
/// note) is [`BuildError::BadVersion`] unless `options.netbox_version` is given.
pub fn build_with_options(
    bytes: &[u8],
    options: &BuildOptions,
) -> Result<(FilterIndex, BuildReport), BuildError> {
    let max_bytes = options.max_document_bytes.unwrap_or(MAX_DOCUMENT_BYTES);
    let raw = decompress(bytes, max_bytes)?;
    if raw.len() as u64 > max_bytes {
        return Err(BuildError::TooLarge(max_bytes));
    }
    // A UTF-8 byte-order mark (some editors add one) is not JSON; skip it.
    let text = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&raw);
    // The shape first, in one pass over the bytes: a parsed value costs about 200 bytes per
    // item, a million tiny paths 2 GB.
    let max_items = options.max_json_items.unwrap_or(MAX_JSON_ITEMS);
    if super::limits::json_separators(text, max_items) > max_items {
        return Err(BuildError::TooManyItems(max_items));
    }
    let doc: Value =
        serde_json::from_slice(text).map_err(|e| BuildError::NotJson(e.to_string()))?;
    let root = doc
        .as_object()
        .ok_or_else(|| BuildError::NotOpenApi("the top level is not an object".into()))?;
    let paths = root
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| BuildError::NotOpenApi("no `paths` object".into()))?;
    let info_version = root
        .get("info")
        .and_then(|i| i.get("version"))
        .and_then(Value::as_str);
    let sha = Sha256::digest(&raw);
    let source_sha256: String = sha.iter().map(|b| format!("{b:02x}")).collect();

    let components = root
        .get("components")
        .and_then(|c| c.get("schemas"))
        .and_then(Value::as_object);
    let enums = component_enums(components);
    let mut builder = Builder {
        root: &doc,
        enums: &enums,
        sets: Vec::new(),
        set_ids: HashMap::new(),
        report: BuildReport::default(),
    };

    let mut endpoints = BTreeMap::new();
    let mut skipped_types: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut field_sets: Vec<(String, BTreeSet<String>)> = Vec::new();
    for (path, item) in paths {
        let Some(key) = list_endpoint_key(path) else {
            continue;
        };
        if !key.split('/').all(printable_name) {
            builder.refuse(format!("path {path:?}"));
            continue;
        }
        let Some(get) = item.get("get").and_then(Value::as_object) else {
            continue;
        };
        match builder.endpoint(&key, item, get) {
            Some(endpoint) => {
                if let Some(names) = builder.response_fields(get) {
                    field_sets.push((key.clone(), names));
                }
                endpoints.insert(key, endpoint);
            }
            None => {
                // Its object type stays known (an MCP `object_type` naming it is no error);
                // the endpoint itself is absent, so its filters fail open.
                skipped_types.insert(key.clone(), builder.object_type(&key, get));
                builder.report.skipped.push(key);
            }
        }
    }
    if endpoints.is_empty() {
        return Err(BuildError::NoListEndpoints {
            skipped: builder.report.skipped.len(),
        });
    }
    // Field names that cannot be interned (more than 65,535 distinct: no real NetBox) are left
    // out: `fields`/`omit` names are then not checked.
    let sets: Vec<BTreeSet<String>> = field_sets.iter().map(|(_, s)| s.clone()).collect();
    let response_fields = match ResponseFields::intern(&sets) {
        Some((table, numbers)) => {
            for ((key, _), number) in field_sets.iter().zip(numbers) {
                if let Some(ep) = endpoints.get_mut(key) {
                    ep.fields = Some(number);
                }
            }
            table
        }
        None => ResponseFields::default(),
    };
    // After the endpoints: "not NetBox at all" is the more useful error.
    let (version, version_note) = stamp_version(info_version, options.netbox_version.as_deref())?;
    builder.report.notes.extend(version_note);
    if let Some(p) = root.get("paths") {
        count_document_enum_ids(p, &enums, &mut builder.report);
    }

    let mut object_types: BTreeMap<String, String> = BTreeMap::new();
    let served = endpoints
        .iter()
        .map(|(k, ep)| (k.clone(), ep.object_type.clone()))
        .chain(skipped_types)
        .collect::<BTreeMap<_, _>>();
    for (key, ot) in &served {
        let Some(ot) = ot else { continue };
        // Two endpoints may serve one type (`core/object-types` and the older
        // `extras/object-types` on 4.4): prefer the one under the type's own app.
        let own_app = |k: &str| ot.split('.').next() == k.split('/').next();
        match object_types.get(ot) {
            Some(existing) if own_app(existing) || !own_app(key) => {}
            _ => {
                object_types.insert(ot.clone(), key.clone());
            }
        }
    }

    let index = FilterIndex {
        format: FORMAT_VERSION,
        netbox_version: version,
        source_sha256,
        from_instance: false,
        endpoints: endpoints.into(),
        object_types,
        choice_sets: builder.sets.into(),
        response_fields,
        instance: None,
    };
    Ok((index, builder.report))
}

/// The version to stamp and, when it is not `info.version` verbatim, a note saying why.
fn stamp_version(
    info: Option<&str>,
    given: Option<&str>,
) -> Result<(String, Option<String>), BuildError> {
    // `{:?}`: the document's text is escaped (a newline or ESC in it is shown as `\n`, `\u{1b}`).
    let shown = match info {
        Some(v) => format!("`info.version` {v:?}"),
        None => "no `info.version`".to_string(),
    };
    if let Some(g) = given {
        let g = g.trim();
        // A pre-release as PyPI spells it (`4.8.0b1`) is stamped as given: its document says
        // `4.8.0-beta1` or only `4.8.0`.
        let pre = crate::version::Version::parse(g).is_some_and(|v| {
            v.is_pre_release() && crate::version::is_pre_release_const(g) && !g.contains(['-', '+'])
        });
        if !is_version(g) && !pre {
            return Err(BuildError::BadVersion(format!(
                "--netbox-version {g:?} is not a NetBox version like 4.6, 4.6.8 or 4.8.0b1"
            )));
        }
        let note = (info.map(str::trim) != Some(g))
            .then(|| format!("stamped NetBox {g} (--netbox-version); the document has {shown}"));
        return Ok((g.to_string(), note));
    }
    let Some(v) = info.map(str::trim) else {
        return Err(BuildError::BadVersion(
            "the document has no `info.version`: give --netbox-version X.Y.Z to stamp the NetBox version"
                .into(),
        ));
    };
    if is_version(v) {
        return Ok((v.to_string(), None));
    }
    match leading_version(v) {
        Some(lead) => Ok((
            lead.to_string(),
            Some(format!(
                "{shown} is not a plain NetBox version; using {lead} (give --netbox-version to stamp another)"
            )),
        )),
        None => Err(BuildError::BadVersion(format!(
            "{shown} is not a NetBox version like 4.6.8: give --netbox-version X.Y.Z to stamp one"
        ))),
    }
}

/// True for a plain NetBox release version: `X.Y` or `X.Y.Z`, digits only (`4.6`, `4.6.8`;
/// not `4.6.8-beta1`).
pub fn is_version(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    (2..=3).contains(&parts.len())
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The `X.Y[.Z]` a version string starts with (after an optional `v`), ended by anything but a
/// digit or a dot: `4.6.8 (4.6)` and `4.6.8-Docker-3.3.0` → `4.6.8`.
fn leading_version(v: &str) -> Option<&str> {
    let v = v.strip_prefix(['v', 'V']).unwrap_or(v);
    let end = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    // `4.6.8.1` (four parts) is not taken apart: no version.
    let lead = v[..end].trim_end_matches('.');
    is_version(lead).then_some(lead)
}

/// Uncompresses gzip input (by magic bytes); passes anything else through.
fn decompress(bytes: &[u8], max: u64) -> Result<Vec<u8>, BuildError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes.to_vec());
    }
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(bytes).take(max.saturating_add(1));
    match dec.read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > max => Err(BuildError::TooLarge(max)),
        Ok(_) => Ok(out),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(BuildError::TruncatedGzip),
        Err(e) => Err(BuildError::BadGzip(e.to_string())),
    }
}

/// `/api/dcim/devices/` → `dcim/devices`; `/api/plugins/bgp/sessions/` → `plugins/bgp/sessions`;
/// `None` for detail paths, actions and anything else.
pub fn list_endpoint_key(path: &str) -> Option<String> {
    if path.contains('{') {
        return None;
    }
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        ["api", "plugins", plugin, slug] => Some(format!("plugins/{plugin}/{slug}")),
        ["api", app, slug] if *app != "plugins" => Some(format!("{app}/{slug}")),
        _ => None,
    }
}

/// Singular model name from a path slug: hyphens removed, plural ending dropped
/// (`ip-addresses` → `ipaddress`, `prefixes` → `prefix`, `vlan-translation-policies` →
/// `vlantranslationpolicy`). Used when the response does not name the model.
pub fn singularise(slug: &str) -> String {
    let s = slug.replace('-', "");
    if let Some(stem) = s.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for end in ["sses", "xes", "ches", "shes"] {
        if s.ends_with(end) {
            return s[..s.len() - 2].to_string();
        }
    }
    // `chassis`, `address` are already singular.
    match s.strip_suffix('s') {
        Some(stem) if !stem.ends_with('s') && !stem.ends_with('i') => stem.to_string(),
        _ => s,
    }
}

/// Component enums by `x-spec-enum-id`: values in choice order (`""` and JSON `null` dropped)
/// and labels gathered from every component description with that id.
struct ComponentEnum {
    values: Vec<String>,
    labels: HashMap<String, String>,
}

fn component_enums(schemas: Option<&Map<String, Value>>) -> HashMap<String, ComponentEnum> {
    let mut out: HashMap<String, ComponentEnum> = HashMap::new();
    let mut stack: Vec<&Value> = schemas.into_iter().flat_map(|m| m.values()).collect();
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(id) = o.get("x-spec-enum-id").and_then(Value::as_str) {
                    let entry = out.entry(id.to_string()).or_insert_with(|| ComponentEnum {
                        values: Vec::new(),
                        labels: HashMap::new(),
                    });
                    if entry.values.is_empty() {
                        entry.values = enum_values(o.get("enum"));
                    }
                    if let Some(d) = o.get("description").and_then(Value::as_str) {
                        for (val, label) in bullets(d) {
                            entry.labels.entry(val).or_insert(label);
                        }
                    }
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    out.retain(|_, e| !e.values.is_empty());
    out
}

/// Counts `x-spec-enum-id` occurrences under `paths` and how many a component resolves.
fn count_document_enum_ids(
    v: &Value,
    enums: &HashMap<String, ComponentEnum>,
    report: &mut BuildReport,
) {
    match v {
        Value::Object(o) => {
            if let Some(id) = o.get("x-spec-enum-id").and_then(Value::as_str) {
                report.document_enum_ids += 1;
                if enums.contains_key(id) {
                    report.document_enum_ids_in_components += 1;
                }
            }
            o.values()
                .for_each(|x| count_document_enum_ids(x, enums, report));
        }
        Value::Array(a) => a
            .iter()
            .for_each(|x| count_document_enum_ids(x, enums, report)),
        _ => {}
    }
}

/// Enum values as strings (`4` → `"4"`), without `""` and JSON `null` (not filter values).
fn enum_values(e: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // A set beside the list: `Vec::contains` per value was quadratic in the enum's size
    // (300,000 values: 124 s, issue 34).
    let mut seen: HashSet<String> = HashSet::new();
    for v in e.and_then(Value::as_array).into_iter().flatten() {
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => continue,
        };
        if !s.is_empty() && seen.insert(s.clone()) {
            out.push(s);
        }
    }
    out
}

/// The `* `value` - Label` lines of a drf-spectacular description, in order.
fn bullets(desc: &str) -> Vec<(String, String)> {
    desc.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("* `")?;
            let (value, after) = rest.split_once('`')?;
            let label = after.trim_start().strip_prefix('-').unwrap_or(after).trim();
            let label = if label.is_empty() { value } else { label };
            Some((value.to_string(), label.to_string()))
        })
        .collect()
}

/// The `(value, label)` members of a grouped choice, from the label drf-spectacular writes for
/// a group: the Python repr of its list of pairs, `[('de-9', 'DE-9'), ("x", "Label's")]`.
/// `None` when the label is not such a list (an ordinary choice). NetBox's port-type choice
/// sets are grouped (`ConsolePortTypeChoices`, `PowerPortTypeChoices`, ...): live, the values
/// are honoured (`type=iec-60320-c14` on power-port templates) and the group labels are an HTTP
/// 400 (`type=Serial` on console-port templates, v4.6.8 and v4.3.3 sweeps).
fn group_members(label: &str) -> Option<Vec<(String, String)>> {
    let inner = label.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    if !inner.starts_with('(') {
        return None;
    }
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        rest = rest.strip_prefix('(')?;
        let (value, after) = python_string(rest)?;
        let after = after.trim_start().strip_prefix(',')?.trim_start();
        let (label, after) = python_string(after)?;
        rest = after.trim_start().strip_prefix(')')?.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
        out.push((value, label));
    }
    (!out.is_empty()).then_some(out)
}

/// A Python string literal in single or double quotes (backslash escapes kept simple) at the
/// start of `s`: its text and what follows.
fn python_string(s: &str) -> Option<(String, &str)> {
    let quote = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut chars = s[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?.1),
            c if c == quote => return Some((out, &s[1 + i + 1..])),
            c => out.push(c),
        }
    }
    None
}

/// The description without its bullet list of choices; `None` when nothing is left.
fn strip_bullets(desc: &str) -> Option<String> {
    let kept: Vec<&str> = desc
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("* `"))
        .collect();
    let s = kept.join(" ");
    (!s.is_empty()).then_some(s)
}

/// Most refused names [`BuildReport::refused`] keeps (the rest are counted).
pub const MAX_REFUSED_SHOWN: usize = 10;

/// True for an endpoint path segment or a query parameter name the index takes: RFC 3986
/// unreserved characters only (letters, digits, `-`, `_`, `.`, `~`), as every name of the
/// shipped releases' documents is (4.3.3–4.7.3: lower-case letters, digits, `-` in paths, `_`
/// in parameters). A NUL, a newline, a space or a quote cannot be part of a NetBox path or
/// filter, and would reach messages and the index unescaped.
pub fn printable_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
}

struct Builder<'a> {
    root: &'a Value,
    enums: &'a HashMap<String, ComponentEnum>,
    sets: Vec<ChoiceSet>,
    set_ids: HashMap<Vec<(String, String)>, u32>,
    report: BuildReport,
}

impl<'a> Builder<'a> {
    /// Records a refused path or parameter (`what`, already escaped).
    fn refuse(&mut self, what: String) {
        self.report.refused_count += 1;
        if self.report.refused.len() < MAX_REFUSED_SHOWN {
            self.report.refused.push(what);
        }
    }

    /// Follows a local `$ref` (`#/components/...`), a few levels deep at most.
    fn deref(&self, mut v: &'a Value) -> &'a Value {
        for _ in 0..8 {
            let Some(r) = v.get("$ref").and_then(Value::as_str) else {
                return v;
            };
            match r.strip_prefix('#').and_then(|p| self.root.pointer(p)) {
                Some(t) => v = t,
                None => return v,
            }
        }
        v
    }

    /// The endpoint, or `None` when its parameters cannot be read (`parameters` present but
    /// not a list, or an entry without a string `in` and `name` after following `$ref`).
    fn endpoint(
        &mut self,
        key: &str,
        item: &'a Value,
        get: &'a Map<String, Value>,
    ) -> Option<Endpoint> {
        // Path-level parameters first; the operation's own override them. Absent = none.
        let list = |v: Option<&'a Value>| match v {
            None => Some(&[][..]),
            Some(v) => v.as_array().map(Vec::as_slice),
        };
        let all = list(item.get("parameters"))?
            .iter()
            .chain(list(get.get("parameters"))?);
        let mut params = BTreeMap::new();
        for p in all {
            let p = self.deref(p);
            let (Some(place), Some(name)) = (
                p.get("in").and_then(Value::as_str),
                p.get("name").and_then(Value::as_str),
            ) else {
                return None;
            };
            if place != "query" {
                continue;
            }
            if !printable_name(name) {
                self.refuse(format!("parameter {name:?} of /api/{key}/"));
                continue;
            }
            let param = self.parameter(key, name, p);
            params.insert(name.to_string(), param);
        }
        Some(Endpoint {
            object_type: self.object_type(key, get),
            params: params.into(),
            fields: None,
        })
    }

    /// The field names of the objects a list endpoint answers with: the `200` response's
    /// `results` array items' `properties` (after `$ref`s); `None` when the response has no
    /// such shape (`/api/dcim/connected-device/`, `/api/users/config/`, ...) or no names.
    fn response_fields(&self, get: &'a Map<String, Value>) -> Option<BTreeSet<String>> {
        let schema = get
            .get("responses")?
            .get("200")?
            .get("content")?
            .get("application/json")?
            .get("schema")?;
        let page = self.deref(schema);
        let results = self.deref(page.get("properties")?.get("results")?);
        if results.get("type").and_then(Value::as_str) != Some("array") {
            return None;
        }
        let item = self.deref(results.get("items")?);
        let names: BTreeSet<String> = item
            .get("properties")?
            .as_object()?
            .keys()
            .cloned()
            .collect();
        (!names.is_empty()).then_some(names)
    }

    fn object_type(&self, key: &str, get: &'a Map<String, Value>) -> Option<String> {
        if let Some((_, ot)) = IRREGULAR.iter().find(|(k, _)| *k == key) {
            return Some((*ot).to_string());
        }
        let app = match key.split('/').collect::<Vec<_>>().as_slice() {
            ["plugins", plugin, _] => plugin.replace('-', "_"),
            [app, _] => (*app).to_string(),
            _ => return None,
        };
        let schema = get
            .get("responses")?
            .get("200")?
            .get("content")?
            .get("application/json")?
            .get("schema")?;
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next()?;
            let model = name.strip_prefix("Paginated")?.strip_suffix("List")?;
            let model = model.strip_suffix("WithConfigContext").unwrap_or(model);
            return printable_name(model).then(|| format!("{app}.{}", model.to_ascii_lowercase()));
        }
        // An inline paginated shape: derive the model from the slug.
        let results = schema.get("properties")?.get("results")?;
        let slug = key.rsplit('/').next()?;
        (results.get("type").and_then(Value::as_str) == Some("array"))
            .then(|| format!("{app}.{}", singularise(slug)))
    }

    fn parameter(&mut self, key: &str, name: &str, p: &'a Value) -> Parameter {
        let mut schema = self.deref(p.get("schema").unwrap_or(&Value::Null));
        let multi = schema.get("type").and_then(Value::as_str) == Some("array");
        if multi {
            schema = self.deref(schema.get("items").unwrap_or(&Value::Null));
        }
        let desc = p.get("description").and_then(Value::as_str).unwrap_or("");
        let description = strip_bullets(desc).or_else(|| {
            schema
                .get("title")
                .and_then(Value::as_str)
                .and_then(strip_bullets)
        });
        let choices = self.choices(key, name, schema, desc);
        Parameter {
            kind: value_kind(schema),
            multi,
            choices,
            description: description.map(std::borrow::Cow::Owned),
        }
    }

    /// The parameter's choice set: its inline `enum` (ordered by the description's bullets), or
    /// the component enum with the same `x-spec-enum-id`.
    fn choices(&mut self, key: &str, name: &str, schema: &Value, desc: &str) -> Option<u32> {
        let enum_id = schema.get("x-spec-enum-id").and_then(Value::as_str);
        let component = enum_id.and_then(|id| self.enums.get(id));
        let mut labels: HashMap<String, String> = bullets(desc).into_iter().collect();
        if let Some(c) = component {
            for (v, l) in &c.labels {
                labels.entry(v.clone()).or_insert_with(|| l.clone());
            }
        }
        let inline = enum_values(schema.get("enum"));
        let values = if !inline.is_empty() {
            // drf-spectacular sorts inline enums; the bullets keep NetBox's choice order.
            let in_enum: HashSet<&str> = inline.iter().map(String::as_str).collect();
            let mut placed: HashSet<String> = HashSet::new();
            let mut ordered: Vec<String> = bullets(desc)
                .into_iter()
                .map(|(v, _)| v)
                .filter(|v| in_enum.contains(v.as_str()) && placed.insert(v.clone()))
                .collect();
            let rest: Vec<String> = inline
                .iter()
                .filter(|v| !placed.contains(*v))
                .cloned()
                .collect();
            ordered.extend(rest);
            ordered
        } else {
            component.map(|c| c.values.clone()).unwrap_or_default()
        };
        if enum_id.is_some() {
            self.report.enum_ids += 1;
            if values.is_empty() {
                self.report.unresolved.push(format!("{key} {name}"));
            } else {
                self.report.enum_ids_resolved += 1;
            }
        }
        if values.is_empty() {
            return None;
        }
        let pairs: Vec<(String, String)> = values
            .into_iter()
            .flat_map(|v| {
                let label = labels.get(&v).cloned().unwrap_or_else(|| v.clone());
                // A grouped choice set lists group labels in its enum; the values are in the
                // group's bullet (`Serial` - [('de-9', 'DE-9'), ...]).
                match group_members(&label) {
                    Some(members) => members,
                    None => vec![(v, label)],
                }
            })
            .collect();
        if let Some(&id) = self.set_ids.get(&pairs) {
            return Some(id);
        }
        let id = self.sets.len() as u32;
        self.set_ids.insert(pairs.clone(), id);
        self.sets.push(ChoiceSet { choices: pairs });
        Some(id)
    }
}

/// `type` + `format` → [`ValueKind`]; a schema without `type` is typed by its enum values, else
/// taken as a string (NetBox accepts any string for untyped filters).
fn value_kind(schema: &Value) -> ValueKind {
    let ty = schema.get("type").and_then(Value::as_str).or_else(|| {
        let first = schema
            .get("enum")?
            .as_array()?
            .iter()
            .find(|v| !v.is_null())?;
        Some(match first {
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            _ => "string",
        })
    });
    match (ty, schema.get("format").and_then(Value::as_str)) {
        (Some("integer"), _) => ValueKind::Integer,
        (Some("number"), _) => ValueKind::Number,
        (Some("boolean"), _) => ValueKind::Boolean,
        (_, Some("date")) => ValueKind::Date,
        (_, Some("date-time")) => ValueKind::DateTime,
        (_, Some("uuid")) => ValueKind::Uuid,
        _ => ValueKind::String,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_keys() {
        let cases = [
            ("/api/dcim/devices/", Some("dcim/devices")),
            ("/api/plugins/bgp/sessions/", Some("plugins/bgp/sessions")),
            ("/api/dcim/devices/{id}/", None),
            ("/api/plugins/bgp/", None),
            ("/api/status/", None),
            ("/api/dcim/racks/{id}/elevation/", None),
            ("/other/dcim/devices/", None),
        ];
        for (path, want) in cases {
            assert_eq!(list_endpoint_key(path).as_deref(), want, "{path}");
        }
    }

    #[test]
    fn singular_forms() {
        let cases = [
            ("ip-addresses", "ipaddress"),
            ("prefixes", "prefix"),
            ("vlan-translation-policies", "vlantranslationpolicy"),
            ("devices", "device"),
            ("journal-entries", "journalentry"),
            ("asns", "asn"),
            ("virtual-chassis", "virtualchassis"),
            ("mac-addresses", "macaddress"),
        ];
        for (slug, want) in cases {
            assert_eq!(singularise(slug), want, "{slug}");
        }
    }

    #[test]
    fn bullets_and_description() {
        let d = "Physical port type\n\n* `de-9` - DE-9\n* `rj-45` - RJ-45";
        assert_eq!(
            bullets(d),
            vec![
                ("de-9".to_string(), "DE-9".to_string()),
                ("rj-45".to_string(), "RJ-45".to_string())
            ]
        );
        assert_eq!(strip_bullets(d).as_deref(), Some("Physical port type"));
        assert_eq!(strip_bullets("* `a` - A"), None);
    }

    #[test]
    fn grouped_choices() {
        let members = group_members("[('de-9', 'DE-9'), ('usb-a', \"USB Type A's\")]").unwrap();
        assert_eq!(
            members,
            vec![
                ("de-9".to_string(), "DE-9".to_string()),
                ("usb-a".to_string(), "USB Type A's".to_string())
            ]
        );
        assert_eq!(group_members("Active"), None);
        assert_eq!(group_members("[not a list]"), None);
        assert_eq!(group_members("[('a', 'A'"), None);
    }

    #[test]
    fn kinds() {
        let k = |v: Value| value_kind(&v);
        assert_eq!(
            k(serde_json::json!({"type": "string", "format": "date-time"})),
            ValueKind::DateTime
        );
        assert_eq!(
            k(serde_json::json!({"type": "string", "format": "uuid"})),
            ValueKind::Uuid
        );
        assert_eq!(
            k(serde_json::json!({"type": "integer", "format": "int32"})),
            ValueKind::Integer
        );
        assert_eq!(k(serde_json::json!({"enum": [4, 6]})), ValueKind::Integer);
        assert_eq!(k(serde_json::json!({})), ValueKind::String);
    }
}
