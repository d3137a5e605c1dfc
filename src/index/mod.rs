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
    /// `plugins/<plugin>/<slug>`.
    pub endpoints: BTreeMap<String, Endpoint>,
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
    /// The spellings [`FilterIndex::resolve`] answers most (every object type, every plain
    /// endpoint key) hashed once, on the first lookup: a cache, empty in a clone and equal to
    /// any other. Code that changes `object_types` or `endpoints` of an index already asked
    /// calls [`FilterIndex::forget_targets`] ([`instance::apply`] does).
    #[serde(skip)]
    pub(crate) targets: Targets,
}

/// The cache behind [`FilterIndex::resolve`]: `(spelling, endpoint key, from object_types)`
/// and an open-addressing table of the spellings (`table.rs`'s), built on first use.
#[derive(Default)]
pub(crate) struct Targets(std::sync::OnceLock<TargetTable>);

/// `(spelling, endpoint key, from object_types)` per spelling, and their hash table.
type TargetTable = (Vec<(String, String, bool)>, table::Table);

impl Clone for Targets {
    /// A clone starts empty: the clone's maps may be changed.
    fn clone(&self) -> Targets {
        Targets::default()
    }
}

impl PartialEq for Targets {
    /// A cache: never a difference between indexes.
    fn eq(&self, _: &Targets) -> bool {
        true
    }
}

impl std::fmt::Debug for Targets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Targets")
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
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
            endpoints: BTreeMap::new(),
            object_types: BTreeMap::new(),
            choice_sets: ChoiceSets::default(),
            response_fields: ResponseFields::default(),
            instance: None,
            targets: Targets::default(),
        }
    }

    /// Drops the cache of [`FilterIndex::resolve`] and what the checks kept per parameter
    /// (after changing `object_types`, `endpoints` or the release of an index that was already
    /// asked).
    pub fn forget_targets(&mut self) {
        self.targets = Targets::default();
        for ep in self.endpoints.values_mut() {
            ep.params.forget_memo();
        }
    }

    /// The cached spelling `t` (exact): its endpoint key and whether it is an object type.
    /// Every object type maps to its endpoint key; every endpoint key that no other spelling
    /// rule changes (no `.`, no slash or space at either end, not below `api/`) to itself.
    fn target(&self, t: &str) -> Option<(&str, bool)> {
        let (names, table) = self.targets.0.get_or_init(|| {
            let mut names: Vec<(String, String, bool)> = self
                .object_types
                .iter()
                .map(|(t, k)| (t.clone(), k.clone(), true))
                .collect();
            for k in self.endpoints.keys() {
                let plain = !k.contains('.')
                    && !k.starts_with("api/")
                    && k.trim() == k
                    && !k.starts_with('/')
                    && !k.ends_with('/')
                    && !self.object_types.contains_key(k);
                if plain {
                    names.push((k.clone(), k.clone(), false));
                }
            }
            let table = table::build(names.len(), |i| names[i].0.as_str());
            (names, table)
        });
        let i = table::find(&table.slots, t.as_bytes(), |i| names[i].0.as_str())?;
        let (_, key, ot) = &names[i];
        Some((key.as_str(), *ot))
    }

    /// The endpoint of object type `t` (exact, as written) with its key, when `t` is one: what
    /// [`FilterIndex::resolve`] gives for it, from the one hash probe that also answers
    /// [`FilterIndex::is_object_type`] (`None` when `t` is no object type: ask `resolve`).
    pub fn object_type_endpoint(&self, t: &str) -> Option<Option<(&str, &Endpoint)>> {
        match self.target(t) {
            // `resolve` trims first: a spelling with blanks around it is left to it.
            Some((key, true)) if t.trim().len() == t.len() => Some(
                self.endpoints
                    .get_key_value(key)
                    .map(|(k, e)| (k.as_str(), e)),
            ),
            _ => None,
        }
    }

    /// True when `t` (exact) is a key of `object_types` (one hash probe when it is).
    pub fn is_object_type(&self, t: &str) -> bool {
        matches!(self.target(t), Some((_, true))) || self.object_types.contains_key(t)
    }

    /// Looks up an endpoint by any common spelling of its target: object type `dcim.device`,
    /// plural `dcim.devices`, `dcim/devices`, `/api/dcim/devices/`, `api/dcim/devices`.
    /// Returns the endpoint key and the endpoint; `None` when unknown (callers fail open).
    pub fn resolve(&self, target: &str) -> Option<(&str, &Endpoint)> {
        let t = target.trim();
        // An object type or a plain endpoint key: one hash probe, then the endpoint.
        match self.target(t) {
            Some((key, true)) => {
                return self
                    .endpoints
                    .get_key_value(key)
                    .map(|(k, e)| (k.as_str(), e))
            }
            Some((key, false)) => {
                if let Some((k, e)) = self.endpoints.get_key_value(key) {
                    return Some((k.as_str(), e));
                }
            }
            None => {}
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
