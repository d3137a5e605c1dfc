//! The user's own NetBox as the server's knowledge (issue 10 §3–4).
//!
//! - Which instance: only the user's own settings name it: `initializationOptions.instance`
//!   (`url`, `tokenEnv`, `tokenFile`; the VS Code extension passes only user-level values) or
//!   `~/.config/netbox-lsp/config.toml` (`$XDG_CONFIG_HOME`), table `[instance]`. A workspace
//!   (`netbox-lsp.toml`, workspace settings) may name a URL ([`Settings::instance_url`]), but no
//!   request is made to it unless the user's settings name the same URL, or the user's settings
//!   give a token source (`tokenEnv` / `tokenFile`, with or without a URL) and the user allows
//!   that URL once through `window/showMessageRequest`. "Allow" is remembered per normalised URL
//!   in [`approvals_file`]; "Not now" (or no answer) is asked again only after a restart.
//!   Without an instance in the user's settings the server never opens a connection.
//! - The token comes from the environment variable or file those settings name; it is never
//!   logged, shown or cached.
//! - The built index and schema are cached under `$XDG_CACHE_HOME/netbox-lsp/` (else
//!   `~/.cache/netbox-lsp/`), in a folder keyed by the URL; the index's stamp holds the NetBox
//!   version, plugins and input hash. On start the cached knowledge serves at once; a cheap
//!   `GET /api/status/` then tells whether it is stale (another version or other plugins), and
//!   a rebuild runs in the background with `$/progress` while the knowledge in use keeps
//!   serving. `workspace/executeCommand` `netbox-lsp.rebuildIndex` rebuilds on demand.

use super::config::Settings;
use super::knowledge::Loaded;
use super::{diagnostics, lock, Backend};
use crate::analysis::Knowledge;
use crate::index::load::{load_index, write_index};
use crate::index::FilterIndex;
use crate::instance::http::{normalise_url, Client, Options};
use crate::instance::token::Token;
use crate::safe_read::{read_to_string, FileKind};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower_lsp_server::ls_types::*;

/// The command that rebuilds the instance knowledge.
pub const REBUILD_COMMAND: &str = "netbox-lsp.rebuildIndex";

/// An instance named in the user's own settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInstance {
    /// Normalised base URL; empty when the user's settings give only a token source (which
    /// serves a workspace-named URL the user allows).
    pub url: String,
    /// Environment variable holding the token.
    pub token_env: Option<String>,
    /// File holding the token.
    pub token_file: Option<PathBuf>,
}

impl UserInstance {
    /// The token from the user's token source (`None` without one).
    pub(super) fn token(&self) -> Result<Option<Token>, String> {
        if let Some(f) = &self.token_file {
            return Token::from_file(f).map(Some);
        }
        match &self.token_env {
            Some(name) => Token::from_env(name).map(Some),
            None => Ok(None),
        }
    }
}

/// Instance state of the server: the user's instance and the knowledge built from it.
#[derive(Debug, Default)]
pub struct Slot {
    /// From `initializationOptions.instance` (taken out before the settings are parsed).
    pub from_init: Mutex<Option<UserInstance>>,
    /// Knowledge built from the instance, when there is some.
    pub knowledge: Mutex<Option<Arc<Loaded>>>,
    /// A build is running.
    busy: Mutex<bool>,
    /// Workspace URLs already reported as not contacted, or already asked about.
    warned: Mutex<Vec<String>>,
    /// A workspace-named instance the user allowed, with the user's token source.
    approved: Mutex<Option<UserInstance>>,
}

/// Reads `instance` out of `initializationOptions` (or its `netboxLsp` section) and removes it,
/// so the settings parser does not see it. Problems are returned as messages.
pub fn take_from_init(options: &mut Option<Value>) -> (Option<UserInstance>, Vec<String>) {
    let Some(v) = options.as_mut() else {
        return (None, Vec::new());
    };
    let obj = match v.get_mut("netboxLsp") {
        Some(inner) if inner.is_object() => inner,
        _ => v,
    };
    let Some(inst) = obj.as_object_mut().and_then(|o| o.remove("instance")) else {
        return (None, Vec::new());
    };
    parse_user(&inst, "initializationOptions.instance")
}

fn parse_user(v: &Value, source: &str) -> (Option<UserInstance>, Vec<String>) {
    let get = |a: &str, b: &str| {
        v.get(a)
            .or_else(|| v.get(b))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let Some(url) = get("url", "url") else {
        let (token_env, token_file) = (
            get("tokenEnv", "token_env"),
            get("tokenFile", "token_file").map(|p| expand_home(&p)),
        );
        if token_env.is_none() && token_file.is_none() {
            return (None, Vec::new());
        }
        // A token source alone: for a workspace-named URL the user allows.
        let user = UserInstance {
            url: String::new(),
            token_env,
            token_file,
        };
        return (Some(user), Vec::new());
    };
    match normalise_url(&url) {
        Ok(url) => (
            Some(UserInstance {
                url,
                token_env: get("tokenEnv", "token_env"),
                token_file: get("tokenFile", "token_file").map(|p| expand_home(&p)),
            }),
            Vec::new(),
        ),
        Err(e) => (None, vec![format!("netbox-lsp: {source}.url: {e}")]),
    }
}

fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(p),
    }
}

fn xdg(var: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(fallback)))
}

/// `$XDG_CONFIG_HOME/netbox-lsp/config.toml` (else `~/.config/…`).
pub fn user_config_file() -> Option<PathBuf> {
    xdg("XDG_CONFIG_HOME", ".config").map(|d| d.join("netbox-lsp").join("config.toml"))
}

/// The cache folder of `url`: `$XDG_CACHE_HOME/netbox-lsp/instance-<sha256(url)[..16]>`.
pub fn cache_dir(url: &str) -> Option<PathBuf> {
    let h = Sha256::digest(url.as_bytes());
    let key: String = h.iter().take(8).map(|b| format!("{b:02x}")).collect();
    xdg("XDG_CACHE_HOME", ".cache").map(|d| d.join("netbox-lsp").join(format!("instance-{key}")))
}

/// The instance of the user config file, if any.
fn from_user_file() -> (Option<UserInstance>, Vec<String>) {
    let Some(path) = user_config_file() else {
        return (None, Vec::new());
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return (None, Vec::new());
    };
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => return (None, vec![format!("netbox-lsp: {}: {e}", path.display())]),
    };
    let Some(inst) = table.get("instance") else {
        return (None, Vec::new());
    };
    let v = serde_json::to_value(inst).unwrap_or(Value::Null);
    parse_user(&v, &path.display().to_string())
}

/// The user's own settings: `initializationOptions` first, else the user config file.
fn own_instance(backend: &Backend) -> (Option<UserInstance>, Vec<String>) {
    if let Some(u) = lock(&backend.state.instance.from_init).clone() {
        return (Some(u), Vec::new());
    }
    from_user_file()
}

/// The instance in use: an allowed workspace URL first, else the user's own (with a URL).
fn user_instance(backend: &Backend) -> (Option<UserInstance>, Vec<String>) {
    if let Some(u) = lock(&backend.state.instance.approved).clone() {
        return (Some(u), Vec::new());
    }
    let (user, problems) = own_instance(backend);
    (user.filter(|u| !u.url.is_empty()), problems)
}

/// The instance live checks are sent to: the one the knowledge comes from (an allowed
/// workspace URL, else the user's own), `None` without one.
pub(super) fn live_instance(backend: &Backend) -> Option<UserInstance> {
    user_instance(backend).0
}

/// `$XDG_CONFIG_HOME/netbox-lsp/approved-instances` (else `~/.config/…`): the workspace-named
/// instance URLs the user allowed, one normalised URL a line. Only the server writes it.
pub fn approvals_file() -> Option<PathBuf> {
    xdg("XDG_CONFIG_HOME", ".config").map(|d| d.join("netbox-lsp").join("approved-instances"))
}

/// The approved URLs (read as a settings file: regular file, 1 MiB cap); none on any error.
fn approvals() -> Vec<String> {
    approvals_file()
        .and_then(|p| read_to_string(&p, FileKind::Config).ok())
        .map(|t| t.lines().map(|l| l.trim().to_string()).collect())
        .unwrap_or_default()
}

/// Adds `url` to [`approvals_file`] (written aside, then renamed).
fn remember_approval(url: &str) -> Result<(), String> {
    let path = approvals_file().ok_or("no config folder (HOME is not set)")?;
    let mut urls = approvals();
    if urls.iter().any(|u| u == url) {
        return Ok(());
    }
    urls.retain(|u| !u.is_empty());
    urls.push(url.to_string());
    let dir = path.parent().ok_or("no config folder")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, urls.join("\n") + "\n")
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Uses the allowed workspace instance `inst` (same path as the user's own: cache, status
/// check, background build).
fn use_approved(backend: &Backend, inst: UserInstance) {
    *lock(&backend.state.instance.approved) = Some(inst);
    start(backend, false);
}

/// The knowledge built from the instance, for settings that do not choose another (no `index`
/// file, no `netbox_version`).
pub fn knowledge_for(backend: &Backend, settings: &Settings) -> Option<Arc<Loaded>> {
    if settings.index.is_some() || settings.netbox_version.is_some() {
        return None;
    }
    lock(&backend.state.instance.knowledge).clone()
}

/// Handles a workspace-named instance URL the user's settings do not name, once per URL and
/// server lifetime: with a user token source, an approved URL is used and an unknown one is
/// asked about (`window/showMessageRequest`, "Allow <url>" / "Not now"); without one, it is
/// reported as not contacted. No request goes there unless allowed.
pub async fn check_workspace_url(backend: &Backend, settings: &Settings) {
    let Some(url) = settings.instance_url.as_deref() else {
        return;
    };
    let Ok(url) = normalise_url(url) else { return };
    let (own, _) = own_instance(backend);
    let approved = lock(&backend.state.instance.approved).clone();
    if own.iter().chain(approved.iter()).any(|u| u.url == url) {
        return;
    }
    {
        let mut warned = lock(&backend.state.instance.warned);
        if warned.contains(&url) {
            return;
        }
        warned.push(url.clone());
    }
    if let Some(own) = own.filter(|u| u.token_env.is_some() || u.token_file.is_some()) {
        let inst = UserInstance {
            url: url.clone(),
            token_env: own.token_env,
            token_file: own.token_file,
        };
        if approvals().contains(&url) {
            use_approved(backend, inst);
            return;
        }
        let b = backend.clone();
        // Not awaited here: the settings keep applying while the user decides.
        tokio::spawn(async move {
            let allow = format!("Allow {url}");
            let action = |title: &str| MessageActionItem {
                title: title.to_string(),
                properties: Default::default(),
            };
            let answer = b
                .client
                .show_message_request(
                    MessageType::WARNING,
                    format!("netbox-lsp: the workspace names the NetBox instance {url}. Use it, with the token of your user settings, to learn its filters, custom fields and plugins?"),
                    Some(vec![action(&allow), action("Not now")]),
                )
                .await;
            if !matches!(answer, Ok(Some(a)) if a.title == allow) {
                return;
            }
            if let Err(e) = remember_approval(&url) {
                b.client
                    .show_message(
                        MessageType::WARNING,
                        format!("netbox-lsp: {e}; the approval holds until the server stops"),
                    )
                    .await;
            }
            use_approved(&b, inst);
        });
        return;
    }
    backend
        .client
        .show_message(
            MessageType::WARNING,
            format!(
                "netbox-lsp: the workspace names the NetBox instance {url}; it is not contacted and no token is sent to it, because your user settings do not name it. To use it, set instance.url (and instance.tokenEnv) in your user settings or ~/.config/netbox-lsp/config.toml, or set only instance.tokenEnv there and allow the URL when asked."
            ),
        )
        .await;
}

/// Starts using the user's instance: cached knowledge at once, then a status check and, when
/// stale or `force`d, a background rebuild. Does nothing (no network) without a user instance.
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
        {
            let mut busy = lock(&b.state.instance.busy);
            if *busy {
                return;
            }
            *busy = true;
        }
        refresh(&b, &user, force).await;
        *lock(&b.state.instance.busy) = false;
    });
}

async fn refresh(b: &Backend, user: &UserInstance, force: bool) {
    let cached = tokio::task::spawn_blocking({
        let url = user.url.clone();
        move || load_cache(&url)
    })
    .await
    .ok()
    .flatten();
    if let Some(k) = &cached {
        install(b, k.clone());
        b.log(
            MessageType::INFO,
            format!("using the cached knowledge of {}", user.url),
        )
        .await;
    }
    let token = match user.token() {
        Ok(t) => t,
        Err(e) => {
            b.client
                .show_message(MessageType::ERROR, format!("netbox-lsp: {e}"))
                .await;
            return;
        }
    };
    let client = match Client::new(
        &user.url,
        token,
        Options {
            timeout: Duration::from_secs(120),
            ..Options::default()
        },
    ) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            b.client
                .show_message(MessageType::ERROR, format!("netbox-lsp: {}: {e}", user.url))
                .await;
            return;
        }
    };
    let c = client.clone();
    let status = tokio::task::spawn_blocking(move || {
        c.get("/api/status/")
            .and_then(|s| crate::index::instance::parse_status(&s))
    })
    .await
    .unwrap_or_else(|_| Err("the status check failed".into()));
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            b.client
                .show_message(
                    MessageType::WARNING,
                    format!("netbox-lsp: cannot reach your NetBox: {e}"),
                )
                .await;
            return;
        }
    };
    let stamp = cached
        .as_ref()
        .and_then(|k| k.index.as_ref())
        .and_then(|i| i.instance.as_deref().cloned());
    if let (Some(s), false) = (&stamp, force) {
        if s.netbox_version == status.netbox_version && s.plugins == status.plugins {
            return;
        }
        b.client
            .show_message(
                MessageType::WARNING,
                format!(
                    "netbox-lsp: the knowledge of {} is stale (built for NetBox {}, the instance now runs {}{}); rebuilding",
                    user.url,
                    s.netbox_version,
                    status.netbox_version,
                    if s.plugins != status.plugins { " with other plugins" } else { "" }
                ),
            )
            .await;
    }
    rebuild(b, user, client).await;
}

async fn rebuild(b: &Backend, user: &UserInstance, client: Arc<Client>) {
    let token = ProgressToken::String("netbox-lsp/instance".into());
    let progress = match b.client.create_work_done_progress(token.clone()).await {
        Ok(()) => Some(
            b.client
                .progress(token, "NetBox instance knowledge")
                .with_message(format!("fetching from {}", user.url))
                .begin()
                .await,
        ),
        Err(_) => None,
    };
    let url = user.url.clone();
    // Each step of the fetch becomes a `$/progress` report (the OpenAPI document alone can take
    // 10–30 s on NetBox's side).
    let (tx, mut steps) = tokio::sync::mpsc::unbounded_channel::<String>();
    let mut task = tokio::task::spawn_blocking(move || {
        let step = |s: &str| {
            let _ = tx.send(s.to_string());
        };
        let inputs = crate::instance::fetch_with(&client, &step)?;
        step("building the index");
        let built = crate::instance::build(&inputs, client.base(), &Default::default())?;
        save_cache(&url, &built.index, built.sdl.as_deref())?;
        Ok::<_, String>(built)
    });
    let built = loop {
        tokio::select! {
            Some(step) = steps.recv() => {
                if let Some(p) = &progress {
                    p.report(step).await;
                }
            }
            done = &mut task => break done.unwrap_or_else(|_| Err("the build failed".into())),
        }
    };
    match built {
        Ok(built) => {
            let summary = summary(&built.index);
            let knowledge = knowledge_of(built.index, built.sdl.as_deref());
            install(b, knowledge);
            if let Some(p) = progress {
                p.finish_with_message("ready").await;
            }
            b.client
                .show_message(
                    MessageType::INFO,
                    format!("netbox-lsp: knowledge of {} ready: {summary}", user.url),
                )
                .await;
        }
        Err(e) => {
            if let Some(p) = progress {
                p.finish_with_message("failed").await;
            }
            b.client
                .show_message(
                    MessageType::ERROR,
                    format!(
                        "netbox-lsp: cannot build the knowledge of {}: {e}",
                        user.url
                    ),
                )
                .await;
        }
    }
}

fn summary(index: &FilterIndex) -> String {
    let Some(i) = index.instance.as_deref() else {
        return format!("NetBox {}", index.netbox_version);
    };
    let plugins: Vec<String> = i.plugins.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!(
        "NetBox {}, plugins: {}, {} custom fields",
        i.netbox_version,
        if plugins.is_empty() {
            "none".into()
        } else {
            plugins.join(", ")
        },
        i.custom_fields.as_ref().map_or(0, Vec::len)
    )
}

fn install(b: &Backend, knowledge: Knowledge) {
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
    diagnostics::refresh_all(b);
}

fn knowledge_of(index: FilterIndex, sdl: Option<&str>) -> Knowledge {
    let version = index.netbox_version.clone();
    let graphql = sdl
        .and_then(|s| crate::graphql::load_schema_file(s.as_bytes()).ok())
        .map(|mut s| {
            s.netbox_version = version;
            Arc::new(s)
        });
    Knowledge {
        index: Some(Arc::new(index)),
        graphql,
        ..Default::default()
    }
}

fn load_cache(url: &str) -> Option<Knowledge> {
    let dir = cache_dir(url)?;
    let index = load_index(&std::fs::read(dir.join("index.json.gz")).ok()?).ok()?;
    if index.instance.as_ref().map(|i| i.url.as_str()) != Some(url) {
        return None;
    }
    let sdl = std::fs::read(dir.join("schema.graphql.gz"))
        .ok()
        .and_then(|b| crate::graphql::schema::maybe_gunzip(&b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    Some(knowledge_of(index, sdl.as_deref()))
}

fn save_cache(url: &str, index: &FilterIndex, sdl: Option<&str>) -> Result<(), String> {
    let dir = cache_dir(url).ok_or("no cache folder (HOME is not set)")?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let write = |name: &str, data: &[u8]| {
        let tmp = dir.join(format!("{name}.tmp"));
        std::fs::write(&tmp, data)
            .and_then(|_| std::fs::rename(&tmp, dir.join(name)))
            .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))
    };
    write("index.json.gz", &write_index(index))?;
    if let Some(sdl) = sdl {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let data = std::io::Write::write_all(&mut gz, sdl.as_bytes())
            .and_then(|_| gz.finish())
            .map_err(|e| e.to_string())?;
        write("schema.graphql.gz", &data)?;
    }
    Ok(())
}

/// Handles `workspace/executeCommand`.
pub async fn execute_command(backend: &Backend, params: ExecuteCommandParams) -> Option<Value> {
    if params.command == REBUILD_COMMAND {
        start(backend, true);
    }
    None
}
