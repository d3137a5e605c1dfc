//! `initialize` and `initialized`: negotiate the position encoding, record what the client can
//! do, take `initializationOptions` and the workspace folders, and advertise exactly what this
//! server implements (pull diagnostics only to a client that pulls: [`super::pull`]).

use super::config::Settings;
use super::configuration;
use super::position::Encoding;
use super::{lock, Backend, ClientCaps, Folder};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

/// Characters after which editors should ask for completions: quotes open a value or key,
/// `?`/`&`/`=` a query string, `.` a pynetbox attribute or object type, `:` a YAML/JSON value,
/// `/` an API path, `_` a filter name's next part.
pub const TRIGGERS: &[&str] = &["\"", "'", "_", "?", "&", "=", ".", ":", "/"];

/// The code action kind of "apply every certain fix".
pub const FIX_ALL_KIND: &str = "source.fixAll.netbox";

/// Handles `initialize`.
pub async fn handle(backend: &Backend, params: InitializeParams) -> Result<InitializeResult> {
    let enc = Encoding::negotiate(&params);
    *lock(&backend.state.encoding) = enc;
    let caps = client_caps(&params.capabilities);
    let (pull, lazy_docs) = (caps.pull, caps.lazy_docs);
    *lock(&backend.state.caps) = caps;

    let mut messages = Vec::new();
    let mut options = params.initialization_options.clone();
    let (user_instance, problems) = super::instance::take_from_init(&mut options);
    *lock(&backend.state.instance.from_init) = user_instance;
    messages.extend(problems);
    let (live, problems) = super::live::take_from_init(&mut options);
    *lock(&backend.state.live.from_init) = live;
    messages.extend(problems);
    let init = match options.as_ref() {
        None => Settings::default(),
        Some(v) => {
            // Editors often nest the section: accept `{ "netboxLsp": {...} }` too.
            let v = v.get("netboxLsp").unwrap_or(v);
            match Settings::from_json(v, None) {
                Ok(p) => {
                    messages.extend(configuration::problems("initializationOptions", &p));
                    p.settings
                }
                Err(e) => {
                    messages.push(format!(
                        "netbox-lsp: initializationOptions ignored (using the defaults): {e}"
                    ));
                    Settings::default()
                }
            }
        }
    };
    let folders = folders_of(&params);
    {
        let mut s = lock(&backend.state.settings);
        s.init = init;
        s.folders = folders;
    }
    // window/showMessage may be sent while `initialize` is being answered (LSP 3.17).
    configuration::show_problems(backend, messages).await;

    Ok(InitializeResult {
        capabilities: capabilities(enc, pull, lazy_docs),
        server_info: Some(ServerInfo {
            name: "netbox-lsp".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
        offset_encoding: None,
    })
}

/// Handles `initialized`: reads the folders' `netbox-lsp.toml`, asks for `workspace/configuration`
/// and registers the file watcher, all in a spawned task (never awaited here).
pub async fn initialized(backend: &Backend) {
    backend
        .log(
            MessageType::INFO,
            format!("netbox-lsp {} ready", env!("CARGO_PKG_VERSION")),
        )
        .await;
    let b = backend.clone();
    tokio::spawn(async move {
        configuration::register_watchers(&b).await;
        configuration::reload(&b).await;
        super::instance::start(&b, false);
    });
}

fn client_caps(c: &ClientCapabilities) -> ClientCaps {
    let ws = c.workspace.as_ref();
    ClientCaps {
        configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
        watched_files_dynamic: ws
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        snippets: c
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false),
        lazy_docs: c
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.resolve_support.as_ref())
            .is_some_and(|r| r.properties.iter().any(|p| p == "documentation")),
        // Pull only where the server can also say "pull again" when diagnostics change
        // without an edit (your NetBox's knowledge ready, a live verification): Neovim 0.11
        // pulls but takes no refresh, so it is pushed to, as every other client.
        pull: c
            .text_document
            .as_ref()
            .is_some_and(|t| t.diagnostic.is_some())
            && ws
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false),
    }
}

#[allow(deprecated)] // root_uri: older clients send only that
fn folders_of(params: &InitializeParams) -> Vec<Folder> {
    let mut list: Vec<(Uri, String)> = params
        .workspace_folders
        .iter()
        .flatten()
        .map(|f| (f.uri.clone(), f.name.clone()))
        .collect();
    if list.is_empty() {
        if let Some(root) = &params.root_uri {
            list.push((root.clone(), String::new()));
        }
    }
    list.into_iter()
        .map(|(uri, _)| Folder {
            path: uri.to_file_path().map(|p| p.into_owned()),
            uri,
            editor: Settings::default(),
            file: Settings::default(),
        })
        .collect()
}

/// The advertised capabilities (snapshot-tested: every one is implemented); `pull`: the
/// client pulls diagnostics, so `diagnosticProvider` is advertised; `lazy_docs`: the client
/// resolves completion documentation lazily, so `completionItem/resolve` is advertised.
pub fn capabilities(enc: Encoding, pull: bool, lazy_docs: bool) -> ServerCapabilities {
    ServerCapabilities {
        diagnostic_provider: pull.then(super::pull::provider),
        position_encoding: Some(enc.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                // Verify on save (live checks), when the user turned it on.
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(TRIGGERS.iter().map(|s| s.to_string()).collect()),
            resolve_provider: Some(lazy_docs),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        // "Verify against NetBox" lenses; none unless the user turned live checks on.
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::new(FIX_ALL_KIND),
            ]),
            resolve_provider: Some(false),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![
                super::instance::REBUILD_COMMAND.to_string(),
                super::live::VERIFY_COMMAND.to_string(),
            ],
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}
