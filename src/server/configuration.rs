//! Configuration changes: `workspace/didChangeConfiguration`, `workspace/didChangeWatchedFiles`
//! (for `netbox-lsp.toml`, `pyproject.toml` and index files) and `workspace/didChangeWorkspaceFolders`. Each
//! handler records what it was told and spawns [`reload`], which pulls `workspace/configuration`
//! (section `netboxLsp`), re-reads every folder's `netbox-lsp.toml` and re-analyses the open
//! documents; nothing needs a restart.

use super::config::{Parsed, Settings};
use super::{lock, Backend, Folder};
use std::path::{Path, PathBuf};
use tower_lsp_server::ls_types::*;

/// The settings section asked for with `workspace/configuration`.
pub const SECTION: &str = "netboxLsp";

/// Handles `workspace/didChangeConfiguration`. Clients that support `workspace/configuration`
/// are asked again (their answer is the truth; the notification's payload is often empty);
/// for the others the settings pushed in the notification are used.
pub async fn did_change_configuration(backend: &Backend, params: DidChangeConfigurationParams) {
    if lock(&backend.state.caps).configuration {
        spawn_reload(backend);
        return;
    }
    let pushed = params
        .settings
        .get(SECTION)
        .cloned()
        .unwrap_or(serde_json::Value::Null);
    if !pushed.is_null() {
        match Settings::from_json(&pushed, None) {
            Ok(p) => {
                let msgs = problems("settings", &p);
                lock(&backend.state.settings).global = p.settings;
                show_problems(backend, msgs).await;
            }
            Err(e) => {
                backend
                    .popup(MessageType::ERROR, format!("netbox-lsp settings: {e}"))
                    .await
            }
        }
    }
    spawn_reload(backend);
}

/// Handles `workspace/didChangeWatchedFiles`: a `netbox-lsp.toml` or an index file changed.
pub async fn did_change_watched_files(backend: &Backend, _: DidChangeWatchedFilesParams) {
    backend.state.knowledge.clear();
    spawn_reload(backend);
}

/// Handles `workspace/didChangeWorkspaceFolders`.
pub async fn did_change_workspace_folders(
    backend: &Backend,
    params: DidChangeWorkspaceFoldersParams,
) {
    {
        let mut s = lock(&backend.state.settings);
        s.folders
            .retain(|f| !params.event.removed.iter().any(|r| r.uri == f.uri));
        for added in params.event.added {
            s.folders.push(Folder {
                path: added.uri.to_file_path().map(|p| p.into_owned()),
                uri: added.uri,
                editor: Settings::default(),
                file: Settings::default(),
            });
        }
    }
    spawn_reload(backend);
}

fn spawn_reload(backend: &Backend) {
    let b = backend.clone();
    tokio::spawn(async move { reload(&b).await });
}

/// Pulls editor settings, re-reads the folders' `netbox-lsp.toml` files (a broken file is shown
/// with `window/showMessage` and ignored), and re-analyses every open document.
pub async fn reload(backend: &Backend) {
    pull_configuration(backend).await;
    let roots: Vec<Option<PathBuf>> = lock(&backend.state.settings)
        .folders
        .iter()
        .map(|f| f.path.clone())
        .collect();
    let read = tokio::task::spawn_blocking(move || {
        roots
            .iter()
            .map(|r| r.as_deref().map(read_folder_file))
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    let mut messages = Vec::new();
    {
        let mut s = lock(&backend.state.settings);
        for (folder, result) in s.folders.iter_mut().zip(read) {
            let Some((settings, msgs)) = result else {
                continue;
            };
            folder.file = settings;
            messages.extend(msgs);
        }
    }
    for (typ, m) in messages {
        backend.popup(typ, m).await;
    }
    let named: Vec<Settings> = {
        let s = lock(&backend.state.settings);
        let mut v = vec![s.global.clone()];
        v.extend(
            s.folders
                .iter()
                .flat_map(|f| [f.editor.clone(), f.file.clone()]),
        );
        v
    };
    for s in &named {
        super::instance::check_workspace_url(backend, s).await;
    }
    backend.refresh_all();
}

/// The messages to show for a parsed settings layer named `source` (`initializationOptions`,
/// `settings`, a file path): the dropped values, then the remarks, one message per setting
/// and kind however many values of it are wrong (a cloned `netbox-lsp.toml` with 15,000 bad
/// severity entries gave 15,000 popups): a single problem as it is, several as their count
/// with the first [`SHOWN_PER_SETTING`]. Names and values from the file are escaped.
pub fn problems(source: &str, p: &Parsed) -> Vec<String> {
    let source = crate::escape::text(source);
    let mut out = Vec::new();
    for (list, single, many) in [
        (
            &p.errors,
            "; this setting was ignored, the others apply",
            "were ignored, the others apply",
        ),
        (&p.warnings, "", "remarks"),
    ] {
        for (setting, group) in by_setting(list) {
            let text = |m: &str| crate::escape::text(m).into_owned();
            if let [one] = group.as_slice() {
                out.push(format!("netbox-lsp: {source}: {}{single}", text(one)));
                continue;
            }
            let shown: Vec<String> = group
                .iter()
                .take(SHOWN_PER_SETTING)
                .map(|m| text(m))
                .collect();
            let more = group.len() - shown.len();
            out.push(format!(
                "netbox-lsp: {source}: `{}`: {} values {many}: {}{}",
                text(setting),
                group.len(),
                shown.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    out
}

/// How many of a setting's problems one message quotes.
pub const SHOWN_PER_SETTING: usize = 3;

/// `problems` grouped by setting, in the order each setting first appears.
fn by_setting(problems: &[crate::config::Problem]) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for p in problems {
        let i = *at.entry(p.setting.as_str()).or_insert_with(|| {
            out.push((p.setting.as_str(), Vec::new()));
            out.len() - 1
        });
        out[i].1.push(p.message.as_str());
    }
    out
}

/// Logs each message and shows it with `window/showMessage` (warning), once each.
pub async fn show_problems(backend: &Backend, messages: Vec<String>) {
    for m in messages {
        backend.popup(MessageType::WARNING, m).await;
    }
}

/// Reads the folder's settings file (`<root>/netbox-lsp.toml`, else `[tool.netbox-lsp]` in
/// `<root>/pyproject.toml`: [`crate::config::file`], the loader `check` uses): its settings
/// (empty when there is none or it is not TOML; without the bad values otherwise) and the
/// messages to show (the error of a broken file, each dropped value and remark).
pub fn read_folder_file(root: &Path) -> (Settings, Vec<(MessageType, String)>) {
    let Some(found) = crate::config::file::in_folder(root) else {
        return (Settings::default(), vec![]);
    };
    let path = found.path;
    let mut msgs: Vec<(MessageType, String)> = Vec::new();
    if let Some(py) = &found.shadowed {
        msgs.push((
            MessageType::INFO,
            format!(
                "netbox-lsp: {}: `[tool.netbox-lsp]` is not read: {} in the same folder wins",
                py.display(),
                path.display()
            ),
        ));
    }
    match crate::config::file::load(&path) {
        Ok(p) => {
            msgs.extend(
                problems(&path.display().to_string(), &p)
                    .into_iter()
                    .map(|m| (MessageType::WARNING, m)),
            );
            let mut settings = p.settings;
            for (key, outside) in settings.drop_paths_outside(root) {
                msgs.push((
                    MessageType::WARNING,
                    format!(
                        "netbox-lsp: {}: `{key}` names {}, outside the workspace folder; a workspace file may only name files inside it (name it in your own editor settings to use it). This setting was ignored.",
                        path.display(),
                        outside.display()
                    ),
                ));
            }
            (settings, msgs)
        }
        Err(e) => {
            let m = if e.starts_with("cannot read") {
                format!("netbox-lsp: {e}; using the defaults")
            } else {
                format!("netbox-lsp: {e} (the file is invalid and was ignored; using the defaults)")
            };
            msgs.push((MessageType::ERROR, m));
            (Settings::default(), msgs)
        }
    }
}

/// Asks the client for the `netboxLsp` section, globally and per folder (when it can answer).
async fn pull_configuration(backend: &Backend) {
    if !lock(&backend.state.caps).configuration {
        return;
    }
    let folders: Vec<(Uri, Option<PathBuf>)> = lock(&backend.state.settings)
        .folders
        .iter()
        .map(|f| (f.uri.clone(), f.path.clone()))
        .collect();
    let mut items = vec![ConfigurationItem {
        scope_uri: None,
        section: Some(SECTION.to_string()),
    }];
    items.extend(folders.iter().map(|(uri, _)| ConfigurationItem {
        scope_uri: Some(uri.clone()),
        section: Some(SECTION.to_string()),
    }));
    let values = match backend.client.configuration(items).await {
        Ok(v) => v,
        Err(e) => {
            backend
                .log(
                    MessageType::WARNING,
                    format!("workspace/configuration failed: {e}"),
                )
                .await;
            return;
        }
    };
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    let mut messages = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let base = i
            .checked_sub(1)
            .and_then(|k| folders.get(k))
            .and_then(|f| f.1.clone());
        match Settings::from_json(v, base.as_deref()) {
            Ok(p) => {
                messages.extend(problems(SECTION, &p));
                parsed.push(p.settings);
            }
            Err(e) => {
                errors.push(format!("netbox-lsp settings: {e}"));
                parsed.push(Settings::default());
            }
        }
    }
    {
        let mut s = lock(&backend.state.settings);
        let mut it = parsed.into_iter();
        if let Some(global) = it.next() {
            s.global = global;
        }
        for (folder, settings) in s.folders.iter_mut().zip(it) {
            // Only folders that existed when asking (a folder added meanwhile keeps defaults).
            folder.editor = settings;
        }
    }
    for e in errors {
        backend.popup(MessageType::ERROR, e).await;
    }
    show_problems(backend, messages).await;
}

/// Registers a watcher for `netbox-lsp.toml` files and index files, when the client supports
/// dynamic registration.
pub async fn register_watchers(backend: &Backend) {
    if !lock(&backend.state.caps).watched_files_dynamic {
        return;
    }
    let watchers = [
        "**/netbox-lsp.toml",
        "**/pyproject.toml",
        "**/*.index.json.gz",
    ]
    .iter()
    .map(|g| FileSystemWatcher {
        glob_pattern: GlobPattern::String(g.to_string()),
        kind: None,
    })
    .collect();
    let options = DidChangeWatchedFilesRegistrationOptions { watchers };
    let registration = Registration {
        id: "netbox-lsp-watch".to_string(),
        method: "workspace/didChangeWatchedFiles".to_string(),
        register_options: serde_json::to_value(options).ok(),
    };
    if let Err(e) = backend.client.register_capability(vec![registration]).await {
        backend
            .log(
                MessageType::WARNING,
                format!("cannot watch config files: {e}"),
            )
            .await;
    }
}
