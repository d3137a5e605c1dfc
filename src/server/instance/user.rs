//! The instance named in the user's own settings (`initializationOptions.instance`, else
//! the user config file), and which one is in use (an allowed workspace URL first).

use super::paths::{expand_home, user_config_file};
use crate::instance::http::normalise_url;
use crate::instance::token::Token;
use crate::server::{lock, Backend};
use serde_json::Value;
use std::path::PathBuf;

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
    pub(in crate::server) fn token(&self) -> Result<Option<Token>, String> {
        if let Some(f) = &self.token_file {
            return Token::from_file(f).map(Some);
        }
        match &self.token_env {
            Some(name) => Token::from_env(name).map(Some),
            None => Ok(None),
        }
    }
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

/// The instance of the user config file, if any.
fn from_user_file() -> (Option<UserInstance>, Vec<String>) {
    let Some(path) = user_config_file() else {
        return (None, Vec::new());
    };
    let text = match super::paths::read_user_config(&path) {
        Ok(Some(t)) => t,
        Ok(None) => return (None, Vec::new()),
        Err(e) => return (None, vec![e]),
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
pub(super) fn own_instance(backend: &Backend) -> (Option<UserInstance>, Vec<String>) {
    if let Some(u) = lock(&backend.state.instance.from_init).clone() {
        return (Some(u), Vec::new());
    }
    from_user_file()
}

/// The instance in use: an allowed workspace URL first, else the user's own (with a URL).
pub(super) fn user_instance(backend: &Backend) -> (Option<UserInstance>, Vec<String>) {
    if let Some(u) = lock(&backend.state.instance.approved).clone() {
        return (Some(u), Vec::new());
    }
    let (user, problems) = own_instance(backend);
    (user.filter(|u| !u.url.is_empty()), problems)
}

/// The instance live checks are sent to: the one the knowledge comes from (an allowed
/// workspace URL, else the user's own), `None` without one.
pub(in crate::server) fn live_instance(backend: &Backend) -> Option<UserInstance> {
    user_instance(backend).0
}
