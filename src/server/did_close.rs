//! `textDocument/didClose`: forget the document, cancel its pending analysis and clear its
//! diagnostics; the knowledge only it used is dropped once the server is idle.

use super::{lock, Backend};
use tower_lsp_server::ls_types::DidCloseTextDocumentParams;

/// Handles `textDocument/didClose`.
pub async fn handle(backend: &Backend, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    lock(&backend.state.docs).remove(&uri);
    super::live::forget(backend, &uri);
    if let Some(task) = lock(&backend.state.pending).remove(&uri) {
        task.abort();
    }
    let state = backend.state.clone();
    backend.state.idle.after_analysis(move || {
        super::knowledge::release_unused(&state);
    });
    let settings = super::config::Settings::default();
    super::diagnostics::publish(backend, uri, None, &[], &settings).await;
}
