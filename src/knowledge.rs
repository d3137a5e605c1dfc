//! The knowledge a document is checked against ([`Knowledge`]: the filter index and GraphQL
//! schema of one NetBox version) and how it is chosen from the user's settings: release
//! selection ([`crate::index::embedded::select`]), an index file, and the GraphQL schema
//! `index build` writes beside it. A leaf: it reads `index`, `graphql` and `intent`'s
//! reading switches, and everything that checks (`analysis`, `filters`, `approx`, `cli`,
//! `server`, `live`, `agent`) uses it. [`knowledge_for`] returns notes for the user; the CLI
//! prints them, the language server shows them.

use crate::graphql::NetboxSchema;
use crate::index::embedded;
use crate::index::FilterIndex;
use crate::intent::Readings;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The knowledge a document is checked against: the filter index and GraphQL schema of one
/// NetBox version. Either may be missing; checks that need it then say nothing (fail open).
#[derive(Debug, Clone, Default)]
pub struct Knowledge {
    pub index: Option<Arc<FilterIndex>>,
    pub graphql: Option<Arc<NetboxSchema>>,
    /// The NetBox release the user asked for when the knowledge is a shipped release standing in
    /// for it (`4.7.3` checked with 4.6.8, see [`crate::index::embedded::select`]): errors that
    /// the other release may not have ([`crate::catalogue::Code::may_differ`]) become warnings.
    pub approximate: Option<String>,
    /// A shipped release (one of [`crate::graphql::embedded::SCHEMAS`]) whose embedded GraphQL schema
    /// stands in when `graphql` is `None`, built on the first GraphQL document checked: `check`
    /// of REST-only files never builds it (about half of a small check's time). The language
    /// server sets `graphql` itself (built in the background).
    pub graphql_embedded: Option<&'static str>,
    /// Which readings of a site as not a call are on (all by default; `netbox-lsp.toml`'s
    /// `[skip]` table turns one off): see [`crate::intent`].
    pub readings: Readings,
}

impl Knowledge {
    /// The GraphQL schema: `graphql`, else the embedded schema named by `graphql_embedded`
    /// (built once per process on the first call); `None` when neither is given.
    pub fn schema(&self) -> Option<Arc<NetboxSchema>> {
        match &self.graphql {
            Some(s) => Some(s.clone()),
            None => self
                .graphql_embedded
                .and_then(crate::graphql::embedded_schema),
        }
    }

    /// True when both hold the very same index and schema (pointer identity, not contents).
    pub(crate) fn same(&self, other: &Knowledge) -> bool {
        fn eq<T>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
        }
        eq(&self.index, &other.index)
            && eq(&self.graphql, &other.graphql)
            && self.approximate == other.approximate
            && self.graphql_embedded == other.graphql_embedded
            && self.readings == other.readings
    }
}

/// Builds the [`Knowledge`] for a check.
///
/// - `index`: an index file written by `netbox-lsp index build` (`.json.gz` or `.json`). It
///   decides the REST knowledge; when `netbox_version` is not given, the embedded GraphQL schema
///   of the index's NetBox version is used.
/// - `netbox_version`: `4.3`, `4.3.3`, ...; picks a shipped release (the closest one, with a note,
///   when it is not shipped: see `embedded::select`); default: the newest shipped one.
/// - `graphql_schema`: an SDL or introspection JSON file (`.gz` accepted) used instead of the
///   embedded schema.
///
/// Returns the knowledge and notes for the user (version fallback, knowledge that is missing so
/// some checks are off). Errors (a one-line message naming the file or the shipped versions)
/// when a named file cannot be read or is not usable, or the requested version is not shipped.
pub fn knowledge_for(
    netbox_version: Option<&str>,
    index: Option<&Path>,
    graphql_schema: Option<&Path>,
) -> Result<(Knowledge, Vec<String>), String> {
    fn named(path: &Path) -> Named<'_> {
        Named {
            path,
            by: Origin::CommandLine,
        }
    }
    knowledge_from(netbox_version, index.map(named), graphql_schema.map(named))
}

/// Who named a knowledge file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    /// The user, on the command line (or through the Python API): errors may quote the file.
    CommandLine,
    /// A settings file (`netbox-lsp.toml`, the one given here), which a repository may carry:
    /// errors name the file and the key but never quote the file's text (it may be anything
    /// the repository points at, and CI logs are public).
    SettingsFile(&'a Path),
}

/// A knowledge file's path and who named it.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    pub path: &'a Path,
    pub by: Origin<'a>,
}

impl Named<'_> {
    /// The error for a file that was read but is not usable as `what` (`a netbox-lsp index`),
    /// `detail` saying why (shown only when the user named the file: see [`Origin`]).
    fn unusable(&self, what: &str, key: &str, flag: &str, detail: &str) -> String {
        match self.by {
            Origin::CommandLine => format!("{} is not {what}: {detail}", self.path.display()),
            Origin::SettingsFile(settings) => format!(
                "{}: `{key}` names {}, which is not {what} (the reason is not shown, as it could quote the file; give the file with {flag} to see it)",
                settings.display(),
                self.path.display()
            ),
        }
    }
}

/// Something the loader tells about how the knowledge was chosen. The CLI refuses a
/// [`Note::NotShipped`] release it was asked for and an [`Note::Unusable`] file (a usage
/// error); the language server shows every note (a popup or the log) and checks with what
/// [`load`] put in their place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Said as it is: a release standing in for the one asked for, checks that are off, the
    /// GraphQL schema found beside the index.
    Said(String),
    /// The release asked for is not shipped (the text names the shipped ones): the newest
    /// shipped release stands in.
    NotShipped(String),
    /// A named file cannot be used and is left out: the shipped knowledge stands in.
    Unusable {
        /// The file as named.
        path: PathBuf,
        /// `index` or `GraphQL schema`.
        what: &'static str,
        /// The one-line error naming the file, as [`Origin`] allows (what the CLI prints).
        error: String,
        /// Why, without the file's name (a read error or the decoder's message).
        detail: String,
    },
}

impl Note {
    /// The note as the user reads it where the loader fails open (the language server): an
    /// unusable file is named with what stands in for it.
    pub fn text(&self) -> String {
        match self {
            Note::Said(s) | Note::NotShipped(s) => s.clone(),
            Note::Unusable {
                path, what, detail, ..
            } => format!(
                "cannot use {what} {}: {detail}; using the shipped {} instead",
                path.display(),
                if *what == "index" { "index" } else { "schema" }
            ),
        }
    }
}

/// The knowledge [`load`] chose and what to tell the user about it.
#[derive(Debug, Default)]
pub struct Loaded {
    pub knowledge: Knowledge,
    /// NetBox version of the filter index, e.g. `4.6.8` (empty when there is none).
    pub index_version: String,
    pub notes: Vec<Note>,
}

/// [`knowledge_for`] with each file's [`Origin`]: [`load`], with a release that is not
/// shipped (when one is asked for) or a file that cannot be used as the error.
pub fn knowledge_from(
    netbox_version: Option<&str>,
    index: Option<Named>,
    graphql_schema: Option<Named>,
) -> Result<(Knowledge, Vec<String>), String> {
    let loaded = load(netbox_version, index, graphql_schema);
    let mut notes = Vec::new();
    for note in loaded.notes {
        match note {
            Note::Said(s) => notes.push(s),
            // Asked for by name: a usage error. Taken from an index file: fail open.
            Note::NotShipped(e) if netbox_version.is_some() => return Err(e),
            Note::NotShipped(e) => notes.push(e),
            Note::Unusable { error, .. } => return Err(error),
        }
    }
    Ok((loaded.knowledge, notes))
}

/// The one knowledge loader of the CLI and the language server. Fails open: whatever cannot
/// be had is noted ([`Note`]) and left out, a shipped release standing in for it.
///
/// - `index`: an index file written by `netbox-lsp index build` (`.json.gz`, or the same
///   JSON uncompressed). It decides the REST knowledge; when `netbox_version` is not given,
///   the embedded GraphQL schema of the index's NetBox version is named.
/// - `netbox_version`: `4.3`, `4.3.3`, ...; picks a shipped release (the closest one, with a
///   note, when it is not shipped: see `embedded::select`); default: the newest shipped one.
/// - `graphql_schema`: an SDL or introspection JSON file (`.gz` accepted) used instead of the
///   embedded schema; without it, the schema `index build` wrote beside the index.
pub fn load(
    netbox_version: Option<&str>,
    index: Option<Named>,
    graphql_schema: Option<Named>,
) -> Loaded {
    let mut notes = Vec::new();
    let mut knowledge = Knowledge::default();

    let from_file = index.and_then(|named| match load_index_file(named) {
        Ok(i) => Some(i),
        Err(e) => {
            notes.push(e);
            None
        }
    });
    // The version whose embedded knowledge is used where no file is given.
    let wanted = netbox_version
        .map(str::to_string)
        .or_else(|| from_file.as_ref().map(|i| i.netbox_version.clone()));
    let selection = match embedded::select(wanted.as_deref()) {
        Ok(sel) => {
            if let Some(note) = &sel.note {
                notes.push(Note::Said(note.clone()));
            }
            Some(sel)
        }
        // Asked for by name: the newest shipped release stands in.
        Err(e) if netbox_version.is_some() => {
            notes.push(Note::NotShipped(e));
            embedded::select(None).ok()
        }
        // Taken from an index file: check with what there is.
        Err(e) => {
            notes.push(Note::NotShipped(e));
            None
        }
    };

    if from_file.is_none() {
        knowledge.approximate = selection.as_ref().and_then(|s| s.approximate.clone());
    }
    knowledge.index = match from_file {
        Some(idx) => Some(Arc::new(idx)),
        None => match &selection {
            Some(sel) => Some(embedded::embedded_index(sel.version)),
            None => {
                notes.push(Note::Said(
                    "REST checks are off: no filter index is available".to_string(),
                ));
                None
            }
        },
    };
    let index_version = knowledge
        .index
        .as_ref()
        .map(|i| i.netbox_version.clone())
        .unwrap_or_default();

    // `index build` writes the instance's GraphQL schema beside the index: use it unless a
    // schema is named (named by whoever named the index).
    let beside = match (graphql_schema, index) {
        (None, Some(index)) => schema_beside(index.path).map(|p| (p, index.by)),
        _ => None,
    };
    if let Some((path, _)) = &beside {
        notes.push(Note::Said(format!(
            "using the GraphQL schema beside the index: {}",
            path.display()
        )));
    }
    let beside_named = beside.as_ref().map(|(path, by)| Named { path, by: *by });
    let from_file =
        graphql_schema
            .or(beside_named)
            .and_then(|named| match load_schema_file(named) {
                Ok(s) => Some(s),
                Err(e) => {
                    notes.push(e);
                    None
                }
            });
    knowledge.graphql = match from_file {
        Some(mut schema) => {
            // The file says nothing about its version; an explicit --netbox-version does.
            if let (Some(sel), Some(_)) = (&selection, netbox_version) {
                schema.netbox_version = sel.version.to_string();
            }
            Some(Arc::new(schema))
        }
        // Built only if a file holds a GraphQL document (see `Knowledge::graphql_embedded`).
        None => {
            knowledge.graphql_embedded = selection
                .as_ref()
                .and_then(|sel| embedded_schema(sel.version, &mut notes));
            None
        }
    };
    Loaded {
        knowledge,
        index_version,
        notes,
    }
}

/// Where `index build` writes the GraphQL schema beside index file `index_out`:
/// `x/netbox-4.6.8.index.json.gz` → `x/netbox-4.6.8.schema.graphql.gz`.
pub fn schema_path_beside(index_out: &Path) -> PathBuf {
    let name = index_out
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("netbox");
    let stem = name
        .strip_suffix(".index.json.gz")
        .or_else(|| name.strip_suffix(".json.gz"))
        .or_else(|| name.strip_suffix(".gz"))
        .unwrap_or(name);
    index_out.with_file_name(format!("{stem}.schema.graphql.gz"))
}

/// The GraphQL schema `index build` writes beside the index file `index`
/// (`x/netbox.index.json.gz` → `x/netbox.schema.graphql.gz`), when it is there.
pub fn schema_beside(index: &Path) -> Option<std::path::PathBuf> {
    let path = schema_path_beside(index);
    path.is_file().then_some(path)
}

/// Reads and decodes an index file (gzip-compressed JSON, or the same JSON uncompressed);
/// the error is a [`Note::Unusable`] naming the file.
fn load_index_file(named: Named) -> Result<FilterIndex, Note> {
    let path = named.path;
    let unusable = |error: String, detail: String| Note::Unusable {
        path: path.to_path_buf(),
        what: "index",
        error,
        detail,
    };
    let bytes = crate::safe_read::read(path, crate::safe_read::FileKind::Index).map_err(|e| {
        unusable(
            format!("cannot read index file {}: {e}", path.display()),
            e.to_string(),
        )
    })?;
    crate::index::load::load_index_or_json(&bytes).map_err(|e| {
        let detail = e.to_string();
        unusable(
            named.unusable("a usable netbox-lsp index", "index", "--index", &detail),
            detail,
        )
    })
}

/// The shipped release whose embedded GraphQL schema `version` uses (not built here); `None`
/// (with a note) when none is shipped.
fn embedded_schema(version: &'static str, notes: &mut Vec<Note>) -> Option<&'static str> {
    let schema = crate::graphql::embedded::versions().find(|v| *v == version);
    if schema.is_none() {
        notes.push(Note::Said(format!(
            "GraphQL checks are off: no GraphQL schema is embedded for NetBox {version}"
        )));
    }
    schema
}

/// Loads a GraphQL schema file (SDL or introspection JSON, `.gz` accepted); the error is a
/// [`Note::Unusable`] naming the file.
fn load_schema_file(named: Named) -> Result<crate::graphql::NetboxSchema, Note> {
    let path = named.path;
    let unusable = |error: String, detail: String| Note::Unusable {
        path: path.to_path_buf(),
        what: "GraphQL schema",
        error,
        detail,
    };
    let bytes = crate::safe_read::read(path, crate::safe_read::FileKind::Schema).map_err(|e| {
        unusable(
            format!("cannot read GraphQL schema {}: {e}", path.display()),
            e.to_string(),
        )
    })?;
    crate::graphql::load_schema_file(&bytes).map_err(|e| {
        unusable(
            named.unusable(
                "a usable GraphQL schema",
                "graphql_schema",
                "--graphql-schema",
                &e,
            ),
            e,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::extract::HostKind;

    /// Issue 13: `check` names the embedded GraphQL schema instead of building it (half of a
    /// small REST-only check's time), and a GraphQL document still gets its findings.
    #[test]
    fn the_embedded_schema_is_named_not_built() {
        let (k, notes) = knowledge_for(Some("4.6.8"), None, None).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        assert!(k.graphql.is_none());
        assert_eq!(k.graphql_embedded, Some("4.6.8"));
        let findings = analyze("{ device_list { nme } }", HostKind::Graphql, &k);
        assert!(
            findings.iter().any(|f| f.code.starts_with("graphql")),
            "{findings:?}"
        );
    }
}
