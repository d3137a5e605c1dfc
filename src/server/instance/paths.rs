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

/// The text of the user config file at `path` ([`user_config_file`]), read as a settings file
/// ([`crate::safe_read`]: a regular file of at most 1 MiB, so a named pipe there cannot block
/// the server); `Ok(None)` when there is none. Errors are one line, naming the file.
pub fn read_user_config(path: &std::path::Path) -> Result<Option<String>, String> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    crate::safe_read::read_to_string(path, crate::safe_read::FileKind::Config)
        .map(Some)
        .map_err(|e| format!("netbox-lsp: {}: {e}", path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// No file: nothing, silently. A named pipe or a directory in its place: an error naming
    /// the file (opening a pipe would wait for a writer). Quiet twin: a regular file is read.
    #[test]
    fn the_user_config_file_is_read_as_a_settings_file() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        std::fs::write(at("config.toml"), "[instance]\n").unwrap();
        std::fs::create_dir(at("folder.toml")).unwrap();
        let mut cases = vec![
            ("missing.toml", Ok(None)),
            ("config.toml", Ok(Some("[instance]\n".to_string()))),
            ("folder.toml", Err("not a regular file (a directory)")),
        ];
        #[cfg(unix)]
        if std::process::Command::new("mkfifo")
            .arg(at("pipe.toml"))
            .status()
            .is_ok_and(|s| s.success())
        {
            cases.push(("pipe.toml", Err("not a regular file (a named pipe)")));
        }
        for (name, want) in cases {
            let got = read_user_config(&at(name));
            match want {
                Ok(text) => assert_eq!(got, Ok(text), "{name}"),
                Err(why) => {
                    let e = got.unwrap_err();
                    assert!(e.contains(name) && e.contains(why), "{name}: {e}");
                }
            }
        }
    }
}
