//! The server's instance state: the user's instance, the knowledge built from it and the
//! build that runs.

use super::user::UserInstance;
use crate::analysis::Knowledge;
use crate::instance::http::Client;
use crate::server::config::Settings;
use crate::server::knowledge::Loaded;
use crate::server::{lock, Backend};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tower_lsp_server::ls_types::*;

/// Instance state of the server: the user's instance and the knowledge built from it.
#[derive(Debug, Default)]
pub struct Slot {
    /// From `initializationOptions.instance` (taken out before the settings are parsed).
    pub from_init: Mutex<Option<UserInstance>>,
    /// Knowledge built from the instance, when there is some.
    pub knowledge: Mutex<Option<Arc<Loaded>>>,
    /// The build (status check and fetch) that is running, if one is.
    pub(super) running: Mutex<Option<Arc<Run>>>,
    /// Numbers the builds (their progress tokens).
    pub(super) runs: AtomicU64,
    /// Workspace URLs already reported as not contacted, or already asked about.
    pub(super) warned: Mutex<Vec<String>>,
    /// A workspace-named instance the user allowed, with the user's token source.
    pub(super) approved: Mutex<Option<UserInstance>>,
}

/// One build of the instance knowledge, as the canceller sees it.
#[derive(Debug)]
pub(super) struct Run {
    /// `netbox-lsp/instance/<n>`: the token of its work-done progress.
    pub(super) token: ProgressToken,
    pub(super) cancelled: AtomicBool,
    /// Wakes the build's task when it is cancelled (a permit is kept if it is not waiting).
    pub(super) wake: tokio::sync::Notify,
    /// Its HTTP client once made: cancelling shuts its requests down.
    pub(super) client: Mutex<Option<Arc<Client>>>,
    /// Its progress was begun (and so must be ended).
    pub(super) progress: AtomicBool,
}

impl Slot {
    /// Clears the running build if it is `run` (a build that replaced it stays). A build
    /// calls it once it is done, before it says so: a rebuild asked for after its "ready"
    /// must start a build, not cancel one that has ended.
    pub(super) fn release(&self, run: &Arc<Run>) {
        let mut running = lock(&self.running);
        if running.as_ref().is_some_and(|r| Arc::ptr_eq(r, run)) {
            *running = None;
        }
    }
}

impl Run {
    pub(super) fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(c) = lock(&self.client).as_ref() {
            c.shutdown();
        }
        self.wake.notify_one();
    }

    pub(super) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// The knowledge built from the instance, for settings that do not choose another (no `index`
/// file, no `netbox_version`).
pub fn knowledge_for(backend: &Backend, settings: &Settings) -> Option<Arc<Loaded>> {
    if settings.index.is_some() || settings.netbox_version.is_some() {
        return None;
    }
    lock(&backend.state.instance.knowledge).clone()
}

pub(super) fn install(b: &Backend, knowledge: Knowledge) {
    let index_version = knowledge
        .index
        .as_ref()
        .map(|i| i.netbox_version.clone())
        .unwrap_or_default();
    *lock(&b.state.instance.knowledge) = Some(Arc::new(Loaded {
        knowledge,
        index_version,
        notes: Vec::new(),
    }));
    b.state.knowledge.clear();
    b.refresh_all();
}
