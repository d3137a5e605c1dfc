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
//! - A build can be stopped: its work-done progress is cancellable (`window/workDoneProgress/cancel`
//!   stops it), and `rebuildIndex` while one runs stops that one and starts again (a NetBox that
//!   trickles its answer would otherwise hold the build for the 4 × 120 s request deadline).
//!   A stopped build's requests are shut down, it writes no cache and installs nothing, its
//!   progress ends with "cancelled" and `window/showMessage` says what happened.

use super::config::Settings;
use super::knowledge::Loaded;
use super::{lock, Backend};
use crate::analysis::Knowledge;
use crate::index::load::{load_index, write_index};
use crate::index::FilterIndex;
use crate::instance::http::{normalise_url, Client, Options};
use crate::instance::token::Token;
use crate::safe_read::{read, read_to_string, FileKind};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// The build (status check and fetch) that is running, if one is.
    running: Mutex<Option<Arc<Run>>>,
    /// Numbers the builds (their progress tokens).
    runs: AtomicU64,
    /// Workspace URLs already reported as not contacted, or already asked about.
    warned: Mutex<Vec<String>>,
    /// A workspace-named instance the user allowed, with the user's token source.
    approved: Mutex<Option<UserInstance>>,
}

/// One build of the instance knowledge, as the canceller sees it.
#[derive(Debug)]
struct Run {
    /// `netbox-lsp/instance/<n>`: the token of its work-done progress.
    token: ProgressToken,
    cancelled: AtomicBool,
    /// Wakes the build's task when it is cancelled (a permit is kept if it is not waiting).
    wake: tokio::sync::Notify,
    /// Its HTTP client once made: cancelling shuts its requests down.
    client: Mutex<Option<Arc<Client>>>,
    /// Its progress was begun (and so must be ended).
    progress: AtomicBool,
}

impl Run {
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(c) = lock(&self.client).as_ref() {
            c.shutdown();
        }
        self.wake.notify_one();
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// Serialises cache writes with the cancelled check, so a build stopped while it saves never
/// writes after the build that replaced it.
static SAVING: Mutex<()> = Mutex::new(());

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
        Err(e) => {
            let e = crate::config::toml_error(&e, &text);
            return (None, vec![format!("netbox-lsp: {}: {e}", path.display())]);
        }
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
    private_dir(dir)?;
    write_private(&path, (urls.join("\n") + "\n").as_bytes())
}

/// Creates `dir` (and its missing parents) readable by the user only (0700 on Unix), and
/// makes an existing `dir` so: the cache and the approvals name the user's NetBox.
fn private_dir(dir: &Path) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot create {}: {e}", dir.display());
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        b.mode(0o700);
        b.create(dir).map_err(fail)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(fail)
    }
    #[cfg(not(unix))]
    b.create(dir).map_err(fail)
}

/// Writes `data` to `path` through a temporary file beside it (mode 0600 on Unix) that is
/// renamed over it: readers see the old file or the new one, never a part.
fn write_private(path: &Path, data: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let dir = path.parent().unwrap_or(Path::new("."));
    // A build killed between its write and its rename left its temporary file here.
    crate::leftovers::sweep(dir, ".netbox-lsp-");
    let mut tmp = tempfile::Builder::new()
        .prefix(".netbox-lsp-")
        .tempfile_in(dir)
        .map_err(fail)?; // 0600: tempfile creates it so
    tmp.write_all(data).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
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
            // Over plain http the token would cross the network readable by anyone on the way:
            // the prompt and its button say so.
            let plain = url
                .get(..7)
                .is_some_and(|s| s.eq_ignore_ascii_case("http://"));
            let allow = if plain {
                format!("Allow {url} (plain http)")
            } else {
                format!("Allow {url}")
            };
            let warning = if plain {
                " The URL is plain http: the token would be sent unencrypted."
            } else {
                ""
            };
            let action = |title: &str| MessageActionItem {
                title: title.to_string(),
                properties: Default::default(),
            };
            let answer = b
                .client
                .show_message_request(
                    MessageType::WARNING,
                    format!("netbox-lsp: the workspace names the NetBox instance {url}. Use it, with the token of your user settings, to learn its filters, custom fields and plugins?{warning}"),
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
        let mut running = lock(&slot.running);
        if running.as_ref().is_some_and(|r| Arc::ptr_eq(r, &run)) {
            *running = None;
        }
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

async fn refresh(b: &Backend, user: &UserInstance, force: bool, run: &Arc<Run>) {
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
        Ok(c) => {
            let c = Arc::new(c);
            *lock(&run.client) = Some(c.clone());
            if run.is_cancelled() {
                c.shutdown();
            }
            c
        }
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
        // Cancelled: its canceller speaks (the shut-down client's error is not news).
        Err(_) if run.is_cancelled() => return,
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
    rebuild(b, user, client, run).await;
}

async fn rebuild(b: &Backend, user: &UserInstance, client: Arc<Client>, run: &Arc<Run>) {
    let token = run.token.clone();
    let progress = match b.client.create_work_done_progress(token.clone()).await {
        Ok(()) => {
            run.progress.store(true, Ordering::SeqCst);
            Some(
                b.client
                    .progress(token, "NetBox instance knowledge")
                    .with_message(format!("fetching from {}", user.url))
                    .with_cancel_button()
                    .begin()
                    .await,
            )
        }
        Err(_) => None,
    };
    let this = run.clone();
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
        let _saving = lock(&SAVING);
        if this.is_cancelled() {
            return Err("cancelled".into());
        }
        save_cache(&url, &built.index, built.sdl.as_deref())?;
        Ok::<_, String>(built)
    });
    let built = loop {
        tokio::select! {
            Some(step) = steps.recv() => {
                if let Some(p) = &progress {
                    p.report_with_message(step, None).await;
                }
            }
            done = &mut task => break done.unwrap_or_else(|_| Err("the build failed".into())),
        }
    };
    if run.is_cancelled() {
        // Stopped while it finished: whatever it got is not installed.
        if let Some(p) = progress {
            run.progress.store(false, Ordering::SeqCst);
            p.finish_with_message("cancelled").await;
        }
        return;
    }
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
    b.refresh_all();
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
    let (index, sdl) = load_cache_in(&cache_dir(url)?, url)?;
    Some(knowledge_of(index, sdl.as_deref()))
}

/// The cached index and schema in `dir`, trusted only as a pair: the schema's gzip comment
/// must be the index's inputs hash (`instance.inputs_sha256`), so a write cut short between
/// the two files (the schema of one build, the index of another) is not used.
fn load_cache_in(dir: &Path, url: &str) -> Option<(FilterIndex, Option<String>)> {
    use std::io::Read;
    let index = load_index(&read(&dir.join("index.json.gz"), FileKind::Index).ok()?).ok()?;
    let stamp = index
        .instance
        .as_ref()
        .filter(|i| i.url == url)?
        .inputs_sha256
        .clone();
    let Ok(raw) = read(&dir.join("schema.graphql.gz"), FileKind::Schema) else {
        return Some((index, None));
    };
    let mut gz = flate2::read::GzDecoder::new(raw.as_slice());
    let mut text = String::new();
    gz.by_ref()
        .take(FileKind::Schema.cap())
        .read_to_string(&mut text)
        .ok()?;
    let comment = gz.header().and_then(|h| h.comment());
    (comment == Some(stamp.as_bytes())).then_some((index, Some(text)))
}

fn save_cache(url: &str, index: &FilterIndex, sdl: Option<&str>) -> Result<(), String> {
    let dir = cache_dir(url).ok_or("no cache folder (HOME is not set)")?;
    save_cache_in(&dir, index, sdl)
}

/// Writes the cache in `dir` (user-only): the schema first, stamped with the index's inputs
/// hash as its gzip comment, then the index; see [`load_cache_in`].
fn save_cache_in(dir: &Path, index: &FilterIndex, sdl: Option<&str>) -> Result<(), String> {
    private_dir(dir)?;
    let stamp = index
        .instance
        .as_ref()
        .map(|i| i.inputs_sha256.clone())
        .unwrap_or_default();
    let schema = dir.join("schema.graphql.gz");
    match sdl {
        Some(sdl) => {
            let mut gz = flate2::GzBuilder::new()
                .comment(stamp.as_bytes())
                .write(Vec::new(), flate2::Compression::default());
            let data = std::io::Write::write_all(&mut gz, sdl.as_bytes())
                .and_then(|_| gz.finish())
                .map_err(|e| e.to_string())?;
            write_private(&schema, &data)?;
        }
        None => match std::fs::remove_file(&schema) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("cannot remove {}: {e}", schema.display()))
            }
            _ => {}
        },
    }
    write_private(&dir.join("index.json.gz"), &write_index(index))
}

/// Handles `workspace/executeCommand`.
pub async fn execute_command(backend: &Backend, params: ExecuteCommandParams) -> Option<Value> {
    if params.command == REBUILD_COMMAND {
        start(backend, true);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamped(hash: &str) -> FilterIndex {
        let mut index = crate::index::embedded::load("4.6.8").unwrap();
        crate::index::instance::apply(
            &mut index,
            crate::index::instance::Instance {
                url: "https://nb.example".into(),
                inputs_sha256: hash.into(),
                ..Default::default()
            },
        );
        index
    }

    /// A write cut short between the schema and the index (the next build's schema beside
    /// the last build's index) is not trusted; a whole write is. Folder and files are the
    /// user's only.
    #[test]
    fn the_cache_is_one_unit_and_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("netbox-lsp/instance-x");
        let url = "https://nb.example";
        save_cache_in(&dir, &stamped("aaa"), Some("type Query { a: Int }")).unwrap();
        let (_, sdl) = load_cache_in(&dir, url).unwrap();
        assert_eq!(sdl.as_deref(), Some("type Query { a: Int }"));
        // The next build wrote its schema, then was killed before its index.
        let mut gz = flate2::GzBuilder::new()
            .comment("bbb")
            .write(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, b"type Query { b: Int }").unwrap();
        std::fs::write(dir.join("schema.graphql.gz"), gz.finish().unwrap()).unwrap();
        assert!(
            load_cache_in(&dir, url).is_none(),
            "a mixed pair is trusted"
        );
        save_cache_in(&dir, &stamped("bbb"), Some("type Query { b: Int }")).unwrap();
        let (index, sdl) = load_cache_in(&dir, url).unwrap();
        assert_eq!(index.instance.unwrap().inputs_sha256, "bbb");
        assert_eq!(sdl.as_deref(), Some("type Query { b: Int }"));
        // Without a schema, none is left beside the index.
        save_cache_in(&dir, &stamped("ccc"), None).unwrap();
        assert_eq!(load_cache_in(&dir, url).unwrap().1, None);
        assert!(load_cache_in(&dir, "https://other.example").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir), 0o700);
            assert_eq!(mode(&dir.join("index.json.gz")), 0o600);
            let names: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["index.json.gz"], "no temporary file left");
        }
    }
}
