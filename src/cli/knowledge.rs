//! Chooses the knowledge (filter index + GraphQL schema of one NetBox version) from the user's
//! settings. One function, shared by `check` and the language server, so both pick the same
//! version the same way.

use crate::analysis::Knowledge;
use crate::index::embedded;
use crate::index::FilterIndex;
use std::path::Path;
use std::sync::Arc;

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
    let mut notes = Vec::new();
    let mut knowledge = Knowledge::default();

    let from_file = match index {
        Some(path) => Some(load_index_file(path)?),
        None => None,
    };
    // The version whose embedded knowledge is used where no file is given.
    let wanted = netbox_version
        .map(str::to_string)
        .or_else(|| from_file.as_ref().map(|i| i.netbox_version.clone()));
    let selection = match embedded::select(wanted.as_deref()) {
        Ok(sel) => {
            if let Some(note) = &sel.note {
                notes.push(note.clone());
            }
            Some(sel)
        }
        // An explicit request the shipped releases cannot meet is a usage error; with no request
        // (or a version taken from an index file) fail open: check with what we have.
        Err(e) if netbox_version.is_some() => return Err(e),
        Err(e) => {
            notes.push(e);
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
                notes.push("REST checks are off: no filter index is available".to_string());
                None
            }
        },
    };

    // `index build` writes the instance's GraphQL schema beside the index: use it unless a
    // schema is named.
    let beside = match (graphql_schema, index) {
        (None, Some(index)) => schema_beside(index),
        _ => None,
    };
    if let Some(path) = &beside {
        notes.push(format!(
            "using the GraphQL schema beside the index: {}",
            path.display()
        ));
    }
    knowledge.graphql = match graphql_schema.or(beside.as_deref()) {
        Some(path) => {
            let mut schema = load_schema_file(path)?;
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
    Ok((knowledge, notes))
}

/// The GraphQL schema `index build` writes beside the index file `index`
/// (`x/netbox.index.json.gz` → `x/netbox.schema.graphql.gz`), when it is there.
pub fn schema_beside(index: &Path) -> Option<std::path::PathBuf> {
    let path = super::index_cmd::schema_path_beside(index);
    path.is_file().then_some(path)
}

/// Reads and decodes an index file; errors name the file.
fn load_index_file(path: &Path) -> Result<FilterIndex, String> {
    let bytes = crate::safe_read::read(path, crate::safe_read::FileKind::Index)
        .map_err(|e| format!("cannot read index file {}: {e}", path.display()))?;
    crate::index::load::load_index(&bytes)
        .map_err(|e| format!("{} is not a usable netbox-lsp index: {e}", path.display()))
}

/// The shipped release whose embedded GraphQL schema `version` uses (not built here); `None`
/// (with a note) when none is shipped.
fn embedded_schema(version: &'static str, notes: &mut Vec<String>) -> Option<&'static str> {
    let schema = crate::graphql::embedded::versions().find(|v| *v == version);
    if schema.is_none() {
        notes.push(format!(
            "GraphQL checks are off: no GraphQL schema is embedded for NetBox {version}"
        ));
    }
    schema
}

/// Loads a GraphQL schema file named by the user (SDL or introspection JSON, `.gz` accepted).
fn load_schema_file(path: &Path) -> Result<crate::graphql::NetboxSchema, String> {
    let bytes = crate::safe_read::read(path, crate::safe_read::FileKind::Schema)
        .map_err(|e| format!("cannot read GraphQL schema {}: {e}", path.display()))?;
    crate::graphql::load_schema_file(&bytes)
        .map_err(|e| format!("{} is not a usable GraphQL schema: {e}", path.display()))
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
