//! A workspace-named instance URL: used only once the user allows it (remembered per URL).

use super::paths::approvals_file;
use super::private::{private_dir, write_private};
use super::run::start;
use super::user::{own_instance, UserInstance};
use crate::instance::http::normalise_url;
use crate::safe_read::{read_to_string, FileKind};
use crate::server::config::Settings;
use crate::server::{lock, Backend};
use tower_lsp_server::ls_types::*;

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

/// Uses the allowed workspace instance `inst` (same path as the user's own: cache, status
/// check, background build).
fn use_approved(backend: &Backend, inst: UserInstance) {
    *lock(&backend.state.instance.approved) = Some(inst);
    start(backend, false);
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
