//! Test hooks, answered only when the server was started with them enabled (the test harness,
//! or `NETBOX_LSP_DEBUG_HOOKS=1`); otherwise they are "method not found".
//!
//! - `netbox-lsp/debugPanic` `{"in": "request"}` panics inside the request (the panic is caught
//!   and answered with an internal error); `{"in": "analysis"}` makes the next analysis panic.
//! - `netbox-lsp/debugDocument` `{"uri": ...}` returns `{"version", "text"}` as the server has
//!   them, to check change handling.

use super::{guarded, lock, Backend};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{MessageType, Uri};

/// Method name of the panic hook.
pub const PANIC_METHOD: &str = "netbox-lsp/debugPanic";
/// Method name of the document dump hook.
pub const DOCUMENT_METHOD: &str = "netbox-lsp/debugDocument";

impl Backend {
    /// `netbox-lsp/debugPanic`.
    pub async fn debug_panic(&self, params: Value) -> Result<Value> {
        if !self.state.debug_hooks {
            return Err(Error::method_not_found());
        }
        if params.get("in").and_then(Value::as_str) == Some("analysis") {
            self.state.panic_next_analysis.store(true, Ordering::SeqCst);
            return Ok(json!({"armed": true}));
        }
        match guarded(|| -> Value { panic!("debug hook: request panic") }) {
            Ok(v) => Ok(v),
            Err(why) => {
                self.log(
                    MessageType::ERROR,
                    format!("{PANIC_METHOD} panicked: {why}"),
                )
                .await;
                Err(Error::internal_error())
            }
        }
    }

    /// `netbox-lsp/debugDocument`.
    pub async fn debug_document(&self, params: Value) -> Result<Value> {
        if !self.state.debug_hooks {
            return Err(Error::method_not_found());
        }
        let uri: Uri = params
            .get("uri")
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| Error::invalid_params("uri"))?;
        let docs = lock(&self.state.docs);
        let doc = docs
            .get(&uri)
            .ok_or_else(|| Error::invalid_params("not open"))?;
        Ok(json!({"version": doc.version, "text": doc.rope.to_string()}))
    }
}
