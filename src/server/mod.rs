//! The language server over stdio (tower-lsp-server 0.23). The only module that knows LSP types.
//!
//! Layout: one file per LSP method (`initialize`, `did_open`, `did_change`, `did_close`,
//! `configuration` for the configuration/watched-files/workspace-folder notifications,
//! `completion`, `hover`, `code_action`, `pull` for pulled diagnostics, `debug` for the test
//! hooks), plus the state they share:
//! [`document`] (ropey text + version), [`position`] (the negotiated encoding, converted once at
//! the edge), [`config`] (pure settings model), [`knowledge`] (index/schema loading and cache),
//! [`diagnostics`] (debounced analysis and publishing), [`context`] (pure cursor context).
//!
//! Ordering: tower-lsp-server runs handlers concurrently and may reorder notifications
//! (lsp-anchors.md §1.3). This server runs them one at a time (`concurrency_level(1)`); every
//! handler is short because analysis runs in spawned tasks and client requests
//! (`workspace/configuration`) are sent from spawned tasks, never awaited in a handler. The
//! version guard in [`document::Document::apply`] drops changes that are not newer.

pub mod code_action;
pub mod completion;
pub use crate::config;
pub mod configuration;
pub mod context;
pub mod debug;
pub mod diagnostics;
pub mod did_change;
pub mod did_close;
pub mod did_open;
pub mod document;
pub mod form_context;
pub mod graphql_site;
pub mod hover;
pub mod idle;
pub mod initialize;
pub mod instance;
pub mod knowledge;
pub mod live;
pub mod outbox;
pub mod position;
pub mod presentation;
pub mod pull;
pub mod request;
pub mod transport;
pub mod wire;

use config::Settings;
use document::Document;
use position::Encoding;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinHandle;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, ClientSocket, LanguageServer, LspService, Server};

/// Environment variable that enables the test hooks (`netbox-lsp/debugPanic`, ...).
pub const DEBUG_HOOKS_ENV: &str = "NETBOX_LSP_DEBUG_HOOKS";

/// Serves LSP on stdin/stdout until the client exits; returns the exit code.
pub fn run_stdio() -> i32 {
    // Few threads on purpose: analysis is CPU-bound (stdin, stdout and 2 analyses at a time),
    // and every extra thread gets its own malloc arena, which is most of the resident memory.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(idle::WORKER_THREADS)
        .max_blocking_threads(idle::BLOCKING_THREADS)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("netbox-lsp: cannot start the async runtime: {e}");
            return 2;
        }
    };
    let debug_hooks = std::env::var_os(DEBUG_HOOKS_ENV).is_some_and(|v| v == "1");
    let code = runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout(), debug_hooks));
    // The stdin reader is a blocking thread that may still wait for input: do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

/// Serves LSP on `input`/`output` until the client sends `exit` or closes the input.
/// `debug_hooks` enables the test-only custom requests (see [`debug`]).
pub async fn serve<I, O>(input: I, output: O, debug_hooks: bool) -> i32
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let shut_down = Arc::new(AtomicBool::new(false));
    let (outbox, frames) = outbox::channel();
    let (service, socket) = service_with(debug_hooks, shut_down.clone(), Some(outbox));
    // Messages pass through `transport::sanitize` so one undecodable message cannot end the
    // connection (see there).
    let (clean_in, clean_out) = tokio::io::duplex(1 << 16);
    // The server's own output goes through `outbox::forward`, which adds the diagnostics the
    // server writes as bytes (`wire`).
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let server = Server::new(clean_out, server_out, socket)
        .concurrency_level(1)
        .serve(service);
    let guard = transport::sanitize(input, clean_in);
    let forward = outbox::forward(from_server, frames, output);
    tokio::pin!(server, guard, forward);
    let (mut input_open, mut output_open) = (true, true);
    loop {
        tokio::select! {
            _ = &mut server => break,
            _ = &mut guard, if input_open => input_open = false,
            _ = &mut forward, if output_open => output_open = false,
        }
    }
    // The server's writer is dropped with it: the forwarder writes what is left and ends.
    if output_open {
        forward.await;
    }
    // LSP: `exit` after `shutdown` is a clean end (0); without it (or the input just ending),
    // the exit code is 1.
    i32::from(!shut_down.load(std::sync::atomic::Ordering::SeqCst))
}

/// The LSP service and its client socket, for callers that run their own transport.
pub fn service(debug_hooks: bool) -> (LspService<Backend>, ClientSocket) {
    service_with(debug_hooks, Arc::default(), None)
}

/// [`service`], with the flag set when the client sends `shutdown`.
fn service_with(
    debug_hooks: bool,
    shut_down: Arc<AtomicBool>,
    outbox: Option<outbox::Outbox>,
) -> (LspService<Backend>, ClientSocket) {
    LspService::build(move |client| {
        Backend::new(client, debug_hooks, shut_down.clone(), outbox.clone())
    })
    .custom_method(
        transport::METHOD_NOT_FOUND_METHOD,
        Backend::method_not_found,
    )
    .custom_method(
        "window/workDoneProgress/cancel",
        Backend::work_done_progress_cancel,
    )
    .custom_method(debug::PANIC_METHOD, Backend::debug_panic)
    .custom_method(debug::DOCUMENT_METHOD, Backend::debug_document)
    .custom_method(transport::INVALID_REQUEST_METHOD, Backend::invalid_request)
    .finish()
}

/// Settings of one workspace folder.
#[derive(Debug, Clone)]
pub struct Folder {
    pub uri: Uri,
    pub path: Option<PathBuf>,
    /// From `workspace/configuration` scoped to this folder.
    pub editor: Settings,
    /// From the folder's `netbox-lsp.toml` (absent or broken → empty).
    pub file: Settings,
}

/// Settings from every source; [`State::settings_for`] combines them for one file.
#[derive(Debug, Default)]
pub struct SettingsState {
    /// `initializationOptions`.
    pub init: Settings,
    /// `workspace/configuration` without a scope, or `didChangeConfiguration` settings.
    pub global: Settings,
    pub folders: Vec<Folder>,
}

/// What the client said it can do (from `initialize`).
#[derive(Debug, Default, Clone)]
pub struct ClientCaps {
    pub configuration: bool,
    pub watched_files_dynamic: bool,
    pub snippets: bool,
    /// The client pulls diagnostics (`textDocument.diagnostic`) and takes
    /// `workspace/diagnostic/refresh`: answered, never pushed.
    pub pull: bool,
    /// The client resolves a completion item's `documentation` lazily
    /// (`completionItem.resolveSupport.properties`): filter lists leave it for
    /// `completionItem/resolve` ([`completion::Docs::Lazy`]).
    pub lazy_docs: bool,
}

/// Server state shared by handlers and background tasks.
#[derive(Debug, Default)]
pub struct State {
    pub docs: Mutex<HashMap<Uri, Document>>,
    pub encoding: Mutex<Encoding>,
    pub settings: Mutex<SettingsState>,
    pub caps: Mutex<ClientCaps>,
    pub knowledge: knowledge::Cache,
    /// Pending diagnostics task per document (aborted when superseded).
    pub pending: Mutex<HashMap<Uri, JoinHandle<()>>>,
    pub debug_hooks: bool,
    /// Test hook: the next analysis panics.
    pub panic_next_analysis: AtomicBool,
    /// Set by `shutdown`: the exit code of `exit` is 0 only then.
    pub shut_down: Arc<AtomicBool>,
    /// Configuration problems already shown (a popup once per distinct problem).
    pub shown_problems: Mutex<std::collections::HashSet<String>>,
    /// The user's own NetBox and the knowledge built from it.
    pub instance: instance::Slot,
    /// Live checks: the user's opt-in and the answers per document.
    pub live: live::Slot,
    /// Freed memory handed back once no analysis has run for a while.
    pub idle: idle::Idle,
    /// Where published diagnostics are written as bytes (`wire`); `None` for a service run on
    /// another transport ([`service`]), which publishes through the `Client`.
    pub outbox: Option<outbox::Outbox>,
    /// The filter lists whose documentation `completionItem/resolve` fills in.
    pub lazy_docs: Mutex<completion::LazyDocs>,
}

/// Locks a mutex, recovering from poisoning (a panic elsewhere must not take the server down).
pub use crate::sync::lock;

impl State {
    /// The effective settings for a file at `path` (or an unsaved document): defaults ⊕
    /// initializationOptions ⊕ workspace/configuration ⊕ the folder's `netbox-lsp.toml`, and
    /// the folder root (for `exclude`).
    pub fn settings_for(&self, path: Option<&Path>) -> (Settings, Option<PathBuf>) {
        let s = lock(&self.settings);
        let base = s.init.overlay(&s.global);
        let folder = path.and_then(|p| {
            s.folders
                .iter()
                .filter(|f| f.path.as_deref().is_some_and(|root| p.starts_with(root)))
                .max_by_key(|f| f.path.as_ref().map_or(0, |r| r.as_os_str().len()))
        });
        match folder {
            Some(f) => (base.overlay(&f.editor).overlay(&f.file), f.path.clone()),
            // A single folder is the natural home of files outside it too (untitled buffers).
            None if s.folders.len() == 1 => {
                let f = &s.folders[0];
                (base.overlay(&f.editor).overlay(&f.file), f.path.clone())
            }
            None => (base, None),
        }
    }

    /// The negotiated position encoding.
    pub fn encoding(&self) -> Encoding {
        *lock(&self.encoding)
    }
}

/// The language server.
#[derive(Debug, Clone)]
pub struct Backend {
    pub client: Client,
    pub state: Arc<State>,
}

impl Backend {
    fn new(
        client: Client,
        debug_hooks: bool,
        shut_down: Arc<AtomicBool>,
        outbox: Option<outbox::Outbox>,
    ) -> Backend {
        Backend {
            client,
            state: Arc::new(State {
                debug_hooks,
                shut_down,
                outbox,
                ..State::default()
            }),
        }
    }

    /// Logs to stderr and to the client (`window/logMessage`); never to stdout.
    pub async fn log(&self, typ: MessageType, message: impl std::fmt::Display) {
        eprintln!("netbox-lsp: {message}");
        self.client.log_message(typ, message).await;
    }

    /// Shows `message` with `window/showMessage` the first time this server meets it (every
    /// configuration change re-reads every setting, and the same problem must not pop up again:
    /// 71 popups for 13 changes before); logs it each time it is met.
    pub async fn popup(&self, typ: MessageType, message: String) {
        self.log(typ, &message).await;
        let fresh = lock(&self.state.shown_problems).insert(message.clone());
        if fresh {
            self.client.show_message(typ, message).await;
        }
    }

    /// Schedules diagnostics for `uri` after `delay` (the job is [`diagnostics::run`]),
    /// aborting any run still pending for it. The scheduling is the server's, not the
    /// diagnostics module's: settings, instance and live changes schedule runs here, and
    /// `diagnostics` consumes them without being called back.
    pub fn schedule(&self, uri: Uri, delay: std::time::Duration) {
        let b = self.clone();
        let key = uri.clone();
        let task = tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            diagnostics::run(&b, uri).await;
        });
        if let Some(old) = lock(&self.state.pending).insert(key, task) {
            old.abort();
        }
    }

    /// Re-analyses every open document now (settings or knowledge changed).
    pub fn refresh_all(&self) {
        let uris: Vec<Uri> = lock(&self.state.docs).keys().cloned().collect();
        for uri in uris {
            self.schedule(uri, std::time::Duration::ZERO);
        }
    }
}

/// Runs `f`, turning a panic into an error message (logged by the caller) so that one bad
/// request or document never takes the server down.
pub fn guarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string())
    })
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        initialize::handle(self, params).await
    }

    async fn initialized(&self, _: InitializedParams) {
        initialize::initialized(self).await
    }

    async fn shutdown(&self) -> Result<()> {
        self.state
            .shut_down
            .store(true, std::sync::atomic::Ordering::SeqCst);
        for (_, task) in lock(&self.state.pending).drain() {
            task.abort();
        }
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        did_open::handle(self, params).await
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        did_change::handle(self, params).await
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        did_close::handle(self, params).await
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        configuration::did_change_configuration(self, params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        configuration::did_change_watched_files(self, params).await
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        configuration::did_change_workspace_folders(self, params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        completion::handle(self, params).await
    }

    async fn completion_resolve(&self, item: CompletionItem) -> Result<CompletionItem> {
        completion::resolve(self, item).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        hover::handle(self, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        code_action::handle(self, params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command == live::VERIFY_COMMAND {
            // Not awaited (handlers run one at a time): the verification reports with
            // `window/showMessage` and new diagnostics when it is done.
            let b = self.clone();
            tokio::spawn(async move { live::execute(&b, &params.arguments).await });
            return Ok(Some(serde_json::json!({ "started": true })));
        }
        Ok(instance::execute_command(self, params).await)
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        live::did_save(self, params).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        live::code_lens(self, params).await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        pull::document(self, params).await
    }

    async fn workspace_diagnostic(
        &self,
        params: WorkspaceDiagnosticParams,
    ) -> Result<WorkspaceDiagnosticReportResult> {
        pull::workspace(self, params).await
    }
}

/// What a request needs of one open document: its snapshot and analysis inputs.
#[derive(Debug, Clone)]
pub struct DocView {
    pub snap: Arc<position::Snapshot>,
    pub kind: crate::extract::HostKind,
    pub path: Option<PathBuf>,
    /// Findings of this snapshot's version, when analysis has finished for it.
    pub findings: Option<Arc<Vec<crate::finding::Finding>>>,
    /// The sites that analysis did not check (empty until it has finished).
    pub not_checked: Arc<Vec<crate::intent::NotChecked>>,
    /// The document's unit cache (see [`document::Document::units`]).
    pub units: Arc<Mutex<crate::analysis::UnitCache>>,
}

impl Backend {
    /// `window/workDoneProgress/cancel` (not in tower-lsp-server's trait): the user stopped a
    /// cancellable progress; only the instance build has one.
    pub async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        instance::cancel_progress(self, params).await;
    }

    /// The current state of an open document; `None` when it is not open.
    pub fn view(&self, uri: &Uri) -> Option<DocView> {
        let mut docs = lock(&self.state.docs);
        let doc = docs.get_mut(uri)?;
        Some(DocView {
            snap: doc.snapshot(),
            kind: doc.kind,
            path: doc.path.clone(),
            findings: doc.current_findings(),
            not_checked: doc.current_not_checked(),
            units: doc.units.clone(),
        })
    }

    /// The settings and knowledge that apply to `view`'s document.
    pub async fn knowledge_of(&self, view: &DocView) -> (Settings, Arc<knowledge::Loaded>) {
        let (settings, _) = self.state.settings_for(view.path.as_deref());
        let loaded = diagnostics::knowledge_for(self, &settings).await;
        (settings, loaded)
    }

    /// The findings of `view`'s version: cached, or computed now (off the async threads).
    pub async fn findings_of(&self, view: &DocView) -> Arc<Vec<crate::finding::Finding>> {
        if let Some(f) = &view.findings {
            return f.clone();
        }
        let (settings, loaded) = self.knowledge_of(view).await;
        let b = self.clone();
        let snap = view.snap.clone();
        let kind = view.kind;
        let units = view.units.clone();
        let readings = settings.readings();
        let r = tokio::task::spawn_blocking(move || {
            diagnostics::analyze_guarded(&b, &snap.text, kind, &loaded, readings, &units)
        })
        .await;
        match r {
            Ok(Ok(report)) => Arc::new(report.findings),
            Ok(Err(why)) => {
                self.log(MessageType::ERROR, format!("analysis panicked: {why}"))
                    .await;
                Arc::new(Vec::new())
            }
            Err(_) => Arc::new(Vec::new()),
        }
    }
}
