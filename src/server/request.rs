//! The frame every document request (hover, completion, code action) shares: the open
//! document as the request finds it, LSP positions read as byte offsets in the client's
//! encoding, and the work run off the async threads under a panic guard, so that a request
//! cancelled meanwhile (`$/cancelRequest`) frees the server for the next one and a panic is
//! logged and answered with nothing, never fatal. A handler writes only its own work.

use super::position::Encoding;
use super::{guarded, Backend, DocView};
use tower_lsp_server::ls_types::{MessageType, Position, Uri};

/// An open document as a request sees it: the snapshot taken when the request arrived.
pub struct Request {
    /// The document's text, kind, path, findings (when analysed) and unit cache.
    pub view: DocView,
    /// The position encoding agreed with the client (UTF-16 units unless it offered UTF-8).
    pub enc: Encoding,
}

impl Request {
    /// The open document `uri`; `None` when it is not open (the request then answers nothing).
    pub fn open(backend: &Backend, uri: &Uri) -> Option<Request> {
        Some(Request {
            view: backend.view(uri)?,
            enc: backend.state.encoding(),
        })
    }

    /// The byte offset of an LSP position in the document (clamped to its line and text).
    pub fn offset(&self, p: Position) -> usize {
        self.view.snap.offset(p, self.enc)
    }
}

/// Runs `work` on a blocking thread under [`guarded`]: its answer, or `None` when it panicked
/// (logged to the client as "`what` panicked: …").
pub async fn run<T: Send + 'static>(
    backend: &Backend,
    what: &str,
    work: impl FnOnce() -> Option<T> + Send + 'static,
) -> Option<T> {
    let result = tokio::task::spawn_blocking(move || guarded(work))
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    match result {
        Ok(answer) => answer,
        Err(why) => {
            backend
                .log(MessageType::ERROR, format!("{what} panicked: {why}"))
                .await;
            None
        }
    }
}
