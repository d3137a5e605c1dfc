//! GraphQL documents: NetBox's schema per version, validation with apollo-compiler, and
//! NetBox's own rules. (Being written.)

use crate::extract::GraphqlDoc;
use crate::finding::Finding;

/// A NetBox GraphQL schema of one version.
#[derive(Debug)]
pub struct NetboxSchema {
    /// NetBox version the schema comes from, e.g. `4.6.8`.
    pub netbox_version: String,
}

/// Checks one GraphQL document against `schema`.
pub fn check_document(doc: &GraphqlDoc, schema: &NetboxSchema) -> Vec<Finding> {
    let _ = (doc, schema);
    Vec::new()
}
