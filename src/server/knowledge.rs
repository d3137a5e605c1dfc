//! Which knowledge (filter index + GraphQL schema) a document is checked against, loaded once per
//! distinct setting and shared. Loading does file I/O and decompression: call it off the request
//! path (`spawn_blocking`).

use super::config::Settings;
use super::{lock, State};
use crate::knowledge::{Knowledge, Named, Note, Origin};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Knowledge for one setting, with what the user should be told about how it was chosen.
#[derive(Debug, Default)]
pub struct Loaded {
    pub knowledge: Knowledge,
    /// NetBox version of the filter index, e.g. `4.6.8` (empty when there is none).
    pub index_version: String,
    /// Problems and notes (a version that is not shipped, an index file that failed to load).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    version: Option<String>,
    index: Option<PathBuf>,
    graphql: Option<PathBuf>,
}

/// A cache of loaded knowledge keyed by the settings that choose it.
#[derive(Debug, Default)]
pub struct Cache {
    map: Mutex<HashMap<Key, Arc<Loaded>>>,
}

impl Key {
    /// The key of the knowledge `settings` choose.
    fn of(settings: &Settings) -> Key {
        Key {
            version: settings.netbox_version.clone(),
            index: settings.index.clone(),
            graphql: settings.graphql_schema.clone(),
        }
    }
}

impl Cache {
    /// The knowledge for `settings`, loading it on first use. The second value is true when it
    /// was loaded by this call (so notes are shown once).
    pub fn get(&self, settings: &Settings) -> (Arc<Loaded>, bool) {
        let key = Key::of(settings);
        if let Some(l) = lock(&self.map).get(&key) {
            return (l.clone(), false);
        }
        let loaded = Arc::new(load(settings));
        lock(&self.map).insert(key, loaded.clone());
        (loaded, true)
    }

    /// Forgets the knowledge of every setting but those of `in_use` (loaded again when asked
    /// for).
    pub fn retain(&self, in_use: &[Settings]) {
        let keep: HashSet<Key> = in_use.iter().map(Key::of).collect();
        lock(&self.map).retain(|k, _| keep.contains(k));
    }

    /// Forgets everything (index files may have changed on disk).
    pub fn clear(&self) {
        lock(&self.map).clear();
    }
}

/// Loads the knowledge `settings` ask for with the one loader ([`crate::knowledge::load`]):
/// anything that fails is noted and left out (fail open), a shipped release standing in. The
/// GraphQL schema is built here, off the request path (completion and hover read it).
pub fn load(settings: &Settings) -> Loaded {
    fn named(path: &Path) -> Named<'_> {
        Named {
            path,
            by: Origin::CommandLine,
        }
    }
    let got = crate::knowledge::load(
        settings.netbox_version.as_deref(),
        settings.index.as_deref().map(named),
        settings.graphql_schema.as_deref().map(named),
    );
    let mut knowledge = got.knowledge;
    // A schema file says nothing about its version: that of the index it serves.
    if let Some(schema) = knowledge.graphql.as_mut().and_then(Arc::get_mut) {
        if schema.netbox_version.is_empty() {
            schema.netbox_version = got.index_version.clone();
        }
    }
    knowledge.graphql = knowledge.schema();
    Loaded {
        knowledge,
        index_version: got.index_version,
        notes: got.notes.iter().map(Note::text).collect(),
    }
}

/// The settings of the `upgradeTo` release of `settings` (the shipped release alone, no index
/// or schema file), when the setting is given.
pub fn upgrade_settings(settings: &Settings) -> Option<Settings> {
    let target = settings.upgrade_to.as_deref()?;
    let mut s = settings.clone();
    s.netbox_version = Some(target.to_string());
    s.index = None;
    s.graphql_schema = None;
    s.upgrade_to = None;
    Some(s)
}

/// Drops the knowledge no open document uses (a release set before the current one, that of a
/// closed document): the cache's entries for other settings, then every shipped index and
/// schema nothing holds any more (each document's unit cache holds the knowledge of its last
/// analysis). Each about 4 MB of decoded REST index and 3.5 MB of GraphQL schema; loaded again
/// when a document asks for it (off the request path). Returns how many shipped
/// indexes and schemas were dropped.
pub fn release_unused(state: &State) -> usize {
    let paths: Vec<Option<PathBuf>> = lock(&state.docs).values().map(|d| d.path.clone()).collect();
    let mut in_use = Vec::with_capacity(paths.len() * 2);
    for path in paths {
        let (settings, _) = state.settings_for(path.as_deref());
        in_use.extend(upgrade_settings(&settings));
        in_use.push(settings);
    }
    state.knowledge.retain(&in_use);
    let (indexes, schemas) = (
        crate::index::embedded::release_unused(),
        crate::graphql::embedded::release_unused(),
    );
    if indexes + schemas > 0 {
        eprintln!(
            "netbox-lsp: dropped {indexes} filter indexes and {schemas} GraphQL schemas no open document uses"
        );
    }
    indexes + schemas
}
