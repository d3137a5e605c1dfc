//! Starting and stopping a build of the instance knowledge: `netbox-lsp.rebuildIndex` and
//! `window/workDoneProgress/cancel`.

use super::refresh::refresh;
use super::slot::Run;
use super::user::user_instance;
use crate::server::{lock, Backend};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tower_lsp_server::ls_types::*;

/// The command that rebuilds the instance knowledge.
pub const REBUILD_COMMAND: &str = "netbox-lsp.rebuildIndex";

/// Starts using the user's instance: cached knowledge at once, then a status check and, when
/// stale or `force`d, a background rebuild. Does nothing (no network) without a user instance.
/// While a build runs, a `force`d start cancels it and starts again (and says so); an unforced
/// one does nothing.
pub fn start(backend: &Backend, force: bool) {
    let b = backend.clone();
    tokio::spawn(async move {
        let (user, problems) = user_instance(&b);
        for p in problems {
            b.client.show_message(MessageType::WARNING, p).await;
        }
        let Some(user) = user else {
            if force {
                b.client
                    .show_message(
                        MessageType::WARNING,
                        "netbox-lsp: no NetBox instance is configured (instance.url in your user settings or ~/.config/netbox-lsp/config.toml)",
                    )
                    .await;
            }
            return;
        };
        let slot = &b.state.instance;
        let n = slot.runs.fetch_add(1, Ordering::SeqCst) + 1;
        let run = Arc::new(Run {
            token: ProgressToken::String(format!("netbox-lsp/instance/{n}")),
            cancelled: AtomicBool::new(false),
            wake: tokio::sync::Notify::new(),
            client: Mutex::new(None),
            progress: AtomicBool::new(false),
        });
        let replaced = {
            let mut running = lock(&slot.running);
            match running.as_ref() {
                Some(_) if !force => return,
                _ => running.replace(run.clone()),
            }
        };
        if let Some(old) = replaced {
            old.cancel();
            b.client
                .show_message(
                    MessageType::INFO,
                    format!(
                        "netbox-lsp: the running build of the knowledge of {} is cancelled; building again",
                        user.url
                    ),
                )
                .await;
        }
        tokio::select! {
            biased;
            _ = run.wake.notified() => end_cancelled(&b, &run).await,
            _ = refresh(&b, &user, force, &run) => {}
        }
        slot.release(&run);
    });
}

/// Ends the progress of the cancelled `run`, if it was begun.
async fn end_cancelled(b: &Backend, run: &Run) {
    if run.progress.load(Ordering::SeqCst) {
        b.client
            .send_notification::<notification::Progress>(ProgressParams {
                token: run.token.clone(),
                value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(WorkDoneProgressEnd {
                    message: Some("cancelled".into()),
                })),
            })
            .await;
    }
}

/// Handles `window/workDoneProgress/cancel`: the user stopped the build whose progress it
/// names. The knowledge in use stays.
pub async fn cancel_progress(backend: &Backend, params: WorkDoneProgressCancelParams) {
    let run = {
        let mut running = lock(&backend.state.instance.running);
        match running.as_ref() {
            Some(r) if r.token == params.token => running.take(),
            _ => None,
        }
    };
    if let Some(run) = run {
        run.cancel();
        backend
            .client
            .show_message(
                MessageType::INFO,
                "netbox-lsp: the build of the instance knowledge is cancelled; the knowledge in use stays (run netbox-lsp.rebuildIndex to build again)",
            )
            .await;
    }
}

/// Handles `workspace/executeCommand`.
pub async fn execute_command(backend: &Backend, params: ExecuteCommandParams) -> Option<Value> {
    if params.command == REBUILD_COMMAND {
        start(backend, true);
    }
    None
}
