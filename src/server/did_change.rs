//! `textDocument/didChange`: apply full or incremental changes in order; a change whose version
//! is not newer than the stored one is ignored (and logged). Diagnostics follow, debounced.

use super::document::Rejected;
use super::{diagnostics, lock, Backend};
use tower_lsp_server::ls_types::{DidChangeTextDocumentParams, MessageType};

/// Handles `textDocument/didChange`.
pub async fn handle(backend: &Backend, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let version = params.text_document.version;
    let enc = backend.state.encoding();
    let outcome = {
        let mut docs = lock(&backend.state.docs);
        match docs.get_mut(&uri) {
            None => Err(None),
            Some(doc) => super::guarded(|| doc.apply(version, &params.content_changes, enc))
                .map_err(Some)
                .and_then(|r| {
                    r.map_err(|Rejected::Stale { stored, got }| {
                        Some(format!(
                            "ignored change to version {got}: version {stored} is already applied"
                        ))
                    })
                }),
        }
    };
    match outcome {
        Ok(()) => backend.schedule(uri, diagnostics::debounce()),
        Err(None) => {
            backend
                .log(
                    MessageType::WARNING,
                    format!("change to a document that is not open: {}", uri.as_str()),
                )
                .await
        }
        Err(Some(why)) => {
            backend
                .log(MessageType::WARNING, format!("{}: {why}", uri.as_str()))
                .await
        }
    }
}
