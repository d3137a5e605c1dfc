//! `textDocument/didOpen`: store the document and analyse it at once (no debounce).

use super::document::Document;
use super::{lock, Backend};
use std::time::Duration;
use tower_lsp_server::ls_types::DidOpenTextDocumentParams;

/// Handles `textDocument/didOpen`.
pub async fn handle(backend: &Backend, params: DidOpenTextDocumentParams) {
    let d = params.text_document;
    let doc = Document::new(&d.uri, &d.language_id, d.version, &d.text);
    lock(&backend.state.docs).insert(d.uri.clone(), doc);
    backend.schedule(d.uri, Duration::ZERO);
}
