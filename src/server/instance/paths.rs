//! Where the user's settings, approvals and the instance cache live (XDG folders).

use sha2::{Digest, Sha256};
use std::path::PathBuf;

pub(super) fn expand_home(p: &str) -> PathBuf {
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

/// `$XDG_CONFIG_HOME/netbox-lsp/approved-instances` (else `~/.config/…`): the workspace-named
/// instance URLs the user allowed, one normalised URL a line. Only the server writes it.
pub fn approvals_file() -> Option<PathBuf> {
    xdg("XDG_CONFIG_HOME", ".config").map(|d| d.join("netbox-lsp").join("approved-instances"))
}
