//! The filter index: per NetBox version, every list endpoint, the object type it serves, and every
//! query parameter it accepts with its value type, multiplicity and choice values.
//!
//! Built from NetBox's own OpenAPI document (`/api/schema/?format=json`, see [`build`]) and stored
//! as gzip-compressed JSON (`index/netbox-<version>.index.json.gz`); the shipped versions are
//! embedded in the binary (see [`embedded`]).

pub mod build;
mod choices;
mod compact;
pub mod embedded;
mod fields;
pub mod instance;
pub mod limits;
pub mod load;
mod params;
pub mod split;
pub(crate) mod suffixes;
pub(crate) mod table;

pub use choices::{ChoiceSets, ChoiceSketch, Sketch};
pub use fields::{FieldSet, ResponseFields};
pub use params::{LookupSet, Params, ParamsIter, LOOKUPS};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the index file layout written by this builder. A file with a larger number is
/// refused with [`load::IndexError::NewerFormat`].
pub const FORMAT_VERSION: u32 = 1;

/// Everything known about the REST filters of one NetBox version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilterIndex {
    /// Layout version ([`FORMAT_VERSION`] when written by this build).
    pub format: u32,
    /// NetBox version from the OpenAPI document's `info.version`, e.g. `4.6.8`.
    pub netbox_version: String,
    /// Lower-case hex SHA-256 of the (uncompressed) OpenAPI document the index was built from.
    pub source_sha256: String,
    /// True when the index was built from the instance the user talks to (choices are then
    /// authoritative: `invalid-choice` is an error rather than a warning).
    #[serde(default)]
    pub from_instance: bool,
    /// List endpoints keyed by their path without `/api/` and the slashes: `dcim/devices`,
    /// `plugins/<plugin>/<slug>` (a `BTreeMap` read and changed through [`Endpoints`]).
    pub endpoints: Endpoints,
    /// Object type (`app_label.model`, e.g. `dcim.device`) → endpoint key (`dcim/devices`).
    pub object_types: BTreeMap<String, String>,
    /// Choice sets, deduplicated; [`Parameter::choices`] indexes into this.
    pub choice_sets: ChoiceSets,
    /// The response field names of the endpoints (what `?fields=`/`?omit=` name), interned;
    /// [`Endpoint::fields`] indexes into this. Empty in an index built before they were
    /// indexed: field names are then not checked.
    #[serde(default, skip_serializing_if = "ResponseFields::is_empty")]
    pub response_fields: ResponseFields,
    /// Stamp, plugins and custom fields of an index built from an instance (`index build --url`
    /// or with `--status`/`--custom-fields`); absent in stock indexes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<Box<instance::Instance>>,
}

/// The list endpoints of an index by key: a `BTreeMap`, read through `Deref`, with the cache
/// behind [`FilterIndex::resolve`]. Every change to the map goes through `DerefMut`, which drops
/// the cache (which points into the map), so the cache never outlives what it points to.
#[derive(Default)]
pub struct Endpoints {
    map: BTreeMap<String, Endpoint>,
    /// The spellings [`FilterIndex::resolve`] answers most (every object type, every plain
    /// endpoint key) hashed once, on the first lookup, each with its endpoint: a cache, empty
    /// in a clone and equal to any other. Built from the index's `object_types` too: code that
    /// changes `object_types` of an index already asked calls [`FilterIndex::forget_targets`]
    /// ([`instance::apply`] does).
    targets: std::sync::OnceLock<TargetTable>,
}

/// The cache behind [`FilterIndex::resolve`]: per spelling, `(spelling, its endpoint in the map
/// (key and value) when the map holds it, from object_types)`, and an open-addressing table of
/// the spellings (`table.rs`'s).
struct TargetTable {
    names: Vec<(String, Option<Entry>, bool)>,
    table: table::Table,
}

/// An endpoint of [`Endpoints::map`]: its key and value, as pointers into the map. Valid while
/// the map is not changed, which the [`Endpoints`] holding both guarantees (its `DerefMut`
/// drops the table first; a move keeps the map's nodes where they are).
#[derive(Clone, Copy)]
struct Entry(*const String, *const Endpoint);

// SAFETY: the pointers are only read, through `&Endpoints`, into the map the same `Endpoints`
// owns (see `Entry`); `String` and `Endpoint` are `Sync`.
unsafe impl Send for TargetTable {}
// SAFETY: as above.
unsafe impl Sync for TargetTable {}

impl Endpoints {
    /// The cached spelling `t` (exact): its endpoint (key and value, `None` when the map holds
    /// no endpoint of that key) and whether it is an object type. Every object type maps to its
    /// endpoint key; every endpoint key that no other spelling rule changes (no `.`, no slash or
    /// space at either end, not below `api/`) to itself.
    #[allow(clippy::type_complexity)]
    fn target(
        &self,
        object_types: &BTreeMap<String, String>,
        t: &str,
    ) -> Option<(Option<(&str, &Endpoint)>, bool)> {
        let cache = self.targets.get_or_init(|| {
            let entry = |k: &str| {
                self.map
                    .get_key_value(k)
                    .map(|(k, e)| Entry(k as *const String, e as *const Endpoint))
            };
            let mut names: Vec<(String, Option<Entry>, bool)> = object_types
                .iter()
                .map(|(t, k)| (t.clone(), entry(k), true))
                .collect();
            for k in self.map.keys() {
                let plain = !k.contains('.')
                    && !k.starts_with("api/")
                    && k.trim() == k
                    && !k.starts_with('/')
                    && !k.ends_with('/')
                    && !object_types.contains_key(k);
                if plain {
                    names.push((k.clone(), entry(k), false));
                }
            }
            let table = table::build(names.len(), |i| names[i].0.as_str());
            TargetTable { names, table }
        });
        let i = table::find(&cache.table.slots, t.as_bytes(), |i| {
            cache.names[i].0.as_str()
        })?;
        let (_, entry, ot) = &cache.names[i];
        // SAFETY: the pointers are into `self.map`, unchanged since the table was built (see
        // `Entry`), and borrowed here for as long as `self` is.
        let found = entry.map(|Entry(k, e)| unsafe { ((*k).as_str(), &*e) });
        Some((found, *ot))
    }

    /// Drops the cache of [`FilterIndex::resolve`].
    fn forget(&mut self) {
        self.targets = std::sync::OnceLock::new();
    }

    /// The map (the cache dropped).
    pub fn into_inner(self) -> BTreeMap<String, Endpoint> {
        self.map
    }
}

impl std::ops::Deref for Endpoints {
    type Target = BTreeMap<String, Endpoint>;
    fn deref(&self) -> &Self::Target {
        &self.map
    }
}

impl std::ops::DerefMut for Endpoints {
    /// The map to change: the cache, which points into it, is dropped first.
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.forget();
        &mut self.map
    }
}

impl Clone for Endpoints {
    /// A clone starts without the cache.
    fn clone(&self) -> Endpoints {
        Endpoints::from(self.map.clone())
    }
}

impl PartialEq for Endpoints {
    /// The maps' (the cache is never a difference).
    fn eq(&self, other: &Endpoints) -> bool {
        self.map == other.map
    }
}

impl std::fmt::Debug for Endpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.map.fmt(f)
    }
}

impl From<BTreeMap<String, Endpoint>> for Endpoints {
    fn from(map: BTreeMap<String, Endpoint>) -> Endpoints {
        Endpoints {
            map,
            targets: std::sync::OnceLock::new(),
        }
    }
}

impl FromIterator<(String, Endpoint)> for Endpoints {
    fn from_iter<I: IntoIterator<Item = (String, Endpoint)>>(iter: I) -> Endpoints {
        Endpoints::from(iter.into_iter().collect::<BTreeMap<_, _>>())
    }
}

impl<'a> IntoIterator for &'a Endpoints {
    type Item = (&'a String, &'a Endpoint);
    type IntoIter = std::collections::btree_map::Iter<'a, String, Endpoint>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.iter()
    }
}

impl IntoIterator for Endpoints {
    type Item = (String, Endpoint);
    type IntoIter = std::collections::btree_map::IntoIter<String, Endpoint>;
    fn into_iter(self) -> Self::IntoIter {
        self.map.into_iter()
    }
}

impl Serialize for Endpoints {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.map.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Endpoints {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Endpoints, D::Error> {
        BTreeMap::deserialize(d).map(Endpoints::from)
    }
}

/// `t.trim().len() == t.len()`: no white space at either end. An ASCII first and last byte
/// (nearly every target) is tested without decoding characters; `trim` decides the rest.
fn is_trimmed(t: &str) -> bool {
    // ASCII `White_Space`: tab, line feed, vertical tab, form feed, carriage return, space.
    let space = |b: u8| matches!(b, b'\t'..=b'\r' | b' ');
    match t.as_bytes() {
        [] => true,
        [first, .., last] | [first @ last] if first.is_ascii() && last.is_ascii() => {
            !space(*first) && !space(*last)
        }
        _ => t.trim().len() == t.len(),
    }
}

/// One list endpoint (`GET /api/<app>/<slug>/`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    /// Object type served, e.g. `dcim.device`; `None` for collections that are not object types.
    pub object_type: Option<String>,
    /// Query parameters by name (filters with their lookup variants, `q`, `ordering`, `limit`, ...).
    pub params: Params,
    /// The set of [`FilterIndex::response_fields`] naming the fields of the objects it answers
    /// with (list and detail view alike); `None` when the schema gives no object shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<u32>,
}

/// One query parameter of a list endpoint. Stored compactly in index files (see `compact.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "compact::CompactParameter", from = "compact::CompactParameter")]
pub struct Parameter {
    /// Value type of one value.
    pub kind: ValueKind,
    /// True when the schema declares an array (the key may be repeated: `id=1&id=2`, or a list
    /// in a filters dict). False means NetBox uses only one value.
    pub multi: bool,
    /// Index into [`FilterIndex::choice_sets`] when the value must be one of a fixed set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<u32>,
    /// The schema's description, without the bullet list of choices (e.g. `Site name (slug)`).
    /// Borrowed from the binary for a shipped index (decoding an endpoint copied ~110 of
    /// them), owned when read from an index file or built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<std::borrow::Cow<'static, str>>,
}

/// The value type of a query parameter, from its OpenAPI schema (`type` + `format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ValueKind {
    String,
    Integer,
    Number,
    Boolean,
    Date,
    DateTime,
    Uuid,
}

impl ValueKind {
    /// Every kind, in declaration order (the compact index's kind codes are positions here).
    pub const ALL: [ValueKind; 7] = [
        ValueKind::String,
        ValueKind::Integer,
        ValueKind::Number,
        ValueKind::Boolean,
        ValueKind::Date,
        ValueKind::DateTime,
        ValueKind::Uuid,
    ];
}

/// A choice set: machine values with their display labels, in schema order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChoiceSet {
    /// `(value, label)` pairs, e.g. `("active", "Active")`. The label is the value itself when
    /// the schema gives none.
    pub choices: Vec<(String, String)>,
}

impl FilterIndex {
    /// An index that knows nothing (every lookup fails open), stamped with `netbox_version`.
    pub fn empty(netbox_version: &str) -> FilterIndex {
        FilterIndex {
            format: FORMAT_VERSION,
            netbox_version: netbox_version.to_string(),
            source_sha256: String::new(),
            from_instance: false,
            endpoints: Endpoints::default(),
            object_types: BTreeMap::new(),
            choice_sets: ChoiceSets::default(),
            response_fields: ResponseFields::default(),
            instance: None,
        }
    }

    /// Drops the cache of [`FilterIndex::resolve`] and what the checks kept per parameter
    /// (after changing `object_types`, `endpoints` or the release of an index that was already
    /// asked).
    pub fn forget_targets(&mut self) {
        // `values_mut` drops the cache too (`Endpoints`' `DerefMut`).
        self.endpoints.forget();
        for ep in self.endpoints.values_mut() {
            ep.params.forget_memo();
        }
    }

    /// The endpoint of object type `t` (exact, as written) with its key, when `t` is one: what
    /// [`FilterIndex::resolve`] gives for it, from the one hash probe that also answers
    /// [`FilterIndex::is_object_type`] (`None` when `t` is no object type: ask `resolve`).
    pub fn object_type_endpoint(&self, t: &str) -> Option<Option<(&str, &Endpoint)>> {
        match self.endpoints.target(&self.object_types, t) {
            // `resolve` trims first: a spelling with blanks around it is left to it.
            Some((found, true)) if is_trimmed(t) => Some(found),
            _ => None,
        }
    }

    /// True when `t` (exact) is a key of `object_types` (one hash probe when it is).
    pub fn is_object_type(&self, t: &str) -> bool {
        matches!(
            self.endpoints.target(&self.object_types, t),
            Some((_, true))
        ) || self.object_types.contains_key(t)
    }

    /// Looks up an endpoint by any common spelling of its target: object type `dcim.device`,
    /// plural `dcim.devices`, `dcim/devices`, `/api/dcim/devices/`, `api/dcim/devices`.
    /// Returns the endpoint key and the endpoint; `None` when unknown (callers fail open).
    pub fn resolve(&self, target: &str) -> Option<(&str, &Endpoint)> {
        let t = target.trim();
        // An object type or a plain endpoint key: one hash probe, then the endpoint.
        match self.endpoints.target(&self.object_types, t) {
            Some((found, true)) => return found,
            Some((Some(found), false)) => return Some(found),
            _ => {}
        }
        if let Some(key) = self.object_types.get(t) {
            return self
                .endpoints
                .get_key_value(key.as_str())
                .map(|(k, e)| (k.as_str(), e));
        }
        let t = t.trim_start_matches('/');
        let t = t.strip_prefix("api/").unwrap_or(t).trim_end_matches('/');
        let key = t.replacen('.', "/", 1);
        if let Some((k, e)) = self.endpoints.get_key_value(key.as_str()) {
            return Some((k.as_str(), e));
        }
        // `dcim.device_types` / `dcim/device_types` (pynetbox attribute spelling).
        let dashed = key.replace('_', "-");
        self.endpoints
            .get_key_value(dashed.as_str())
            .map(|(k, e)| (k.as_str(), e))
    }

    /// The response field names of `ep` (the names `?fields=`/`?omit=` take), when known.
    pub fn fields_of(&self, ep: &Endpoint) -> Option<FieldSet<'_>> {
        self.response_fields.set(ep.fields?)
    }

    /// The choice set of a parameter, if it has one.
    pub fn choices(&self, param: &Parameter) -> Option<&ChoiceSet> {
        self.choice_sets.get(param.choices? as usize)
    }

    /// Number of parameters across all endpoints.
    pub fn parameter_count(&self) -> usize {
        self.endpoints.values().map(|e| e.params.len()).sum()
    }

    /// Number of parameters across all endpoints that have a choice set.
    pub fn parameters_with_choices(&self) -> usize {
        self.endpoints
            .values()
            .flat_map(|e| e.params.values())
            .filter(|p| p.choices.is_some())
            .count()
    }
}

#[cfg(test)]
mod tests {
    /// `is_trimmed` answers as `trim` does (the oracle), on ASCII and non-ASCII ends.
    #[test]
    fn is_trimmed_is_trim() {
        let ends = [
            "", "a", " ", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{1c}", "\u{1f}", "\u{85}",
            "\u{a0}", "é", "\u{3000}", "\u{200b}", "x.y",
        ];
        for a in ends {
            for m in ["", "dcim.device", " ", "é"] {
                for b in ends {
                    let t = format!("{a}{m}{b}");
                    assert_eq!(super::is_trimmed(&t), t.trim().len() == t.len(), "{t:?}");
                }
            }
        }
    }
}
