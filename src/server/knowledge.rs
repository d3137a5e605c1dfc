//! Which knowledge (filter index + GraphQL schema) a document is checked against, loaded once per
//! distinct setting and shared. Loading does file I/O and decompression: call it off the request
//! path (`spawn_blocking`).

use super::config::Settings;
use crate::index::load::load_index;
use crate::index::{embedded, FilterIndex, FORMAT_VERSION};
use crate::knowledge::Knowledge;
use std::collections::HashMap;
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

impl Cache {
    /// The knowledge for `settings`, loading it on first use. The second value is true when it
    /// was loaded by this call (so notes are shown once).
    pub fn get(&self, settings: &Settings) -> (Arc<Loaded>, bool) {
        let key = Key {
            version: settings.netbox_version.clone(),
            index: settings.index.clone(),
            graphql: settings.graphql_schema.clone(),
        };
        if let Some(l) = lock(&self.map).get(&key) {
            return (l.clone(), false);
        }
        let loaded = Arc::new(load(settings));
        lock(&self.map).insert(key, loaded.clone());
        (loaded, true)
    }

    /// Forgets everything (index files may have changed on disk).
    pub fn clear(&self) {
        lock(&self.map).clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Loads the knowledge `settings` ask for; anything that fails is noted and left out (fail open),
/// falling back to the newest shipped index when the requested one cannot be had.
pub fn load(settings: &Settings) -> Loaded {
    let mut loaded = Loaded::default();
    let mut index = None;
    if let Some(path) = &settings.index {
        match load_index_file(path) {
            Ok(i) => index = Some(Arc::new(i)),
            Err(e) => loaded.notes.push(format!(
                "cannot use index {}: {e}; using the shipped index instead",
                path.display()
            )),
        }
    }
    if index.is_none() {
        loaded.knowledge.approximate = settings
            .netbox_version
            .as_deref()
            .and_then(|v| embedded::select(Some(v)).ok())
            .and_then(|s| s.approximate);
        index = match embedded_index(settings.netbox_version.as_deref(), &mut loaded.notes) {
            Some(i) => Some(i),
            None if settings.netbox_version.is_some() => embedded_index(None, &mut Vec::new()),
            None => None,
        };
    }
    if let Some(i) = &index {
        loaded.index_version = i.netbox_version.clone();
    }
    loaded.knowledge.index = index;
    let version = settings
        .netbox_version
        .clone()
        .or_else(|| Some(loaded.index_version.clone()).filter(|v| !v.is_empty()));
    loaded.knowledge.graphql = graphql_schema(settings, version.as_deref(), &mut loaded.notes);
    loaded
}

/// The GraphQL schema for `version` (or the configured file). Fail open: `None` when the build
/// has no schema for it.
fn graphql_schema(
    settings: &Settings,
    version: Option<&str>,
    notes: &mut Vec<String>,
) -> Option<Arc<crate::graphql::NetboxSchema>> {
    // As `check --index`: the schema `index build` wrote beside the index, unless one is named.
    let beside = match (&settings.graphql_schema, &settings.index) {
        (None, Some(index)) => crate::knowledge::schema_beside(index),
        _ => None,
    };
    if let Some(path) = settings.graphql_schema.as_ref().or(beside.as_ref()) {
        let loaded = crate::safe_read::read(path, crate::safe_read::FileKind::Schema)
            .and_then(|b| crate::graphql::load_schema_file(&b));
        match loaded {
            Ok(mut s) => {
                s.netbox_version = version.unwrap_or_default().to_string();
                return Some(Arc::new(s));
            }
            Err(e) => notes.push(format!(
                "cannot use GraphQL schema {}: {e}; using the shipped schema instead",
                path.display()
            )),
        }
    }
    let shipped = shipped_schema_version(version)?;
    crate::graphql::embedded_schema(shipped)
}

/// The shipped GraphQL schema version for a requested version: exact, else the newest of the
/// same `major.minor` (or of the requested prefix), else the newest.
fn shipped_schema_version(requested: Option<&str>) -> Option<&'static str> {
    let versions: Vec<&'static str> = crate::graphql::embedded::versions().collect();
    let newest = versions.last().copied();
    let Some(req) = requested.map(str::trim).filter(|r| !r.is_empty()) else {
        return newest;
    };
    if let Some(v) = versions.iter().find(|v| **v == req) {
        return Some(v);
    }
    let minor: Vec<&str> = req.split('.').take(2).collect();
    let minor = minor.join(".");
    versions
        .iter()
        .rev()
        .find(|v| v.split('.').take(2).collect::<Vec<_>>().join(".") == minor)
        .copied()
        .or(newest)
}

/// The shipped index chosen for `requested` (newest when `None`), decoded once per process.
fn embedded_index(requested: Option<&str>, notes: &mut Vec<String>) -> Option<Arc<FilterIndex>> {
    let selection = match embedded::select(requested) {
        Ok(s) => s,
        Err(e) => {
            notes.push(e);
            return None;
        }
    };
    if let Some(note) = &selection.note {
        notes.push(note.clone());
    }
    Some(embedded::embedded_index(selection.version))
}

/// Reads an index file: as written by `netbox-lsp index build` (gzip-compressed JSON), or the
/// same JSON uncompressed.
pub fn load_index_file(path: &Path) -> Result<FilterIndex, String> {
    let bytes = crate::safe_read::read(path, crate::safe_read::FileKind::Index)?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return load_index(&bytes).map_err(|e| e.to_string());
    }
    let index: FilterIndex =
        serde_json::from_slice(&bytes).map_err(|e| format!("not an index file: {e}"))?;
    if index.format > FORMAT_VERSION {
        return Err(format!(
            "index format {} is newer than this netbox-lsp understands ({FORMAT_VERSION}); upgrade netbox-lsp",
            index.format
        ));
    }
    Ok(index)
}
