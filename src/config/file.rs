//! The one loader of settings files, for `check` and the editor alike: `netbox-lsp.toml`, or
//! the `[tool.netbox-lsp]` table of a `pyproject.toml` (as ruff reads `[tool.ruff]`).
//!
//! In one folder `netbox-lsp.toml` wins; a `pyproject.toml` without the table is no settings
//! file. `check` takes the nearest folder that has one, from the current folder up; the editor
//! reads each workspace folder's own (a workspace's settings come from inside it). Reading goes
//! through [`crate::safe_read`] (a regular file, at most 1 MiB).

use super::{Parsed, Settings, FILE_NAME};
use std::path::{Path, PathBuf};

/// The Python project file whose `[tool.netbox-lsp]` table holds settings.
pub const PYPROJECT: &str = "pyproject.toml";

/// The table of [`PYPROJECT`] that holds the settings.
pub const TOOL_TABLE: &str = "netbox-lsp";

/// A settings file found in a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    /// True for a `pyproject.toml` (the settings are its `[tool.netbox-lsp]` table).
    pub pyproject: bool,
    /// A `pyproject.toml` with the table beside the `netbox-lsp.toml` that won (told once).
    pub shadowed: Option<PathBuf>,
}

/// The settings file of `dir` itself: its `netbox-lsp.toml` when anything has that name (a
/// FIFO or a dangling link too: reading it then says what is wrong, rather than skipping it),
/// else its `pyproject.toml` when that mentions `[tool.netbox-lsp]`.
pub fn in_folder(dir: &Path) -> Option<Found> {
    let own = dir.join(FILE_NAME);
    let py = dir.join(PYPROJECT);
    let py_has_table = has_tool_table(&py);
    if std::fs::symlink_metadata(&own).is_ok() {
        return Some(Found {
            path: own,
            pyproject: false,
            shadowed: py_has_table.then_some(py),
        });
    }
    py_has_table.then_some(Found {
        path: py,
        pyproject: true,
        shadowed: None,
    })
}

/// The nearest settings file: [`in_folder`] of `dir`, then of each folder above it.
pub fn nearest(dir: &Path) -> Option<Found> {
    let start = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    start.ancestors().find_map(in_folder)
}

/// True when `path` is a readable regular `pyproject.toml` whose text names the tool table. A
/// pyproject that cannot be read is not ours to complain about: it is no settings file.
fn has_tool_table(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    crate::safe_read::read_to_string(path, crate::safe_read::FileKind::Config)
        .is_ok_and(|t| t.contains("tool.netbox-lsp") || t.contains("tool.\"netbox-lsp\""))
}

/// Reads and parses a settings file (`pyproject` as told by [`Found::pyproject`], else by the
/// file name); relative paths in it resolve against its folder. Errors are one line naming the
/// file (and the table for a pyproject).
pub fn load(path: &Path) -> Result<Parsed, String> {
    let text = crate::safe_read::read_to_string(path, crate::safe_read::FileKind::Config)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if path.file_name().is_some_and(|n| n == PYPROJECT) {
        return from_pyproject(&text, base).map_err(|e| format!("{}: {e}", path.display()));
    }
    Settings::from_toml(&text, base).map_err(|e| format!("{}: {e}", path.display()))
}

/// The settings of a `pyproject.toml`'s `[tool.netbox-lsp]` table (empty settings without one).
pub fn from_pyproject(text: &str, base: &Path) -> Result<Parsed, String> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| super::toml_error(&e, text))?;
    let Some(ours) = table.get("tool").and_then(|t| t.get(TOOL_TABLE)).cloned() else {
        return Ok(Parsed::default());
    };
    if !ours.is_table() {
        return Err(format!(
            "`[tool.{TOOL_TABLE}]` must be a table, found {ours}"
        ));
    }
    let json = serde_json::to_value(&ours).map_err(|e| e.to_string())?;
    let mut parsed = Settings::from_json(&json, Some(base))?;
    parsed.restore_release_numbers(text);
    for m in parsed.warnings.iter_mut().chain(parsed.errors.iter_mut()) {
        m.message = format!("[tool.{TOOL_TABLE}] {}", m.message);
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyproject_table_is_read_and_the_own_file_wins_in_a_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let sub = root.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        // No settings anywhere (a pyproject without the table is none).
        std::fs::write(root.join("a").join(PYPROJECT), "[project]\nname = \"x\"\n").unwrap();
        assert_eq!(in_folder(&root.join("a")), None);
        // The table in the folder above is the nearest.
        std::fs::write(
            root.join(PYPROJECT),
            "[project]\nname = \"x\"\n[tool.netbox-lsp]\nnetbox_version = \"4.5\"\nselect = [\"graphql\", \"unknown-filter\"]\n[tool.netbox-lsp.severity]\nunknown-filter = \"warning\"\n",
        )
        .unwrap();
        let found = nearest(&sub).unwrap();
        assert!(found.pyproject && found.path.ends_with(PYPROJECT));
        let p = load(&found.path).unwrap();
        assert!(p.errors.is_empty() && p.warnings.is_empty(), "{p:?}");
        assert_eq!(p.settings.netbox_version.as_deref(), Some("4.5"));
        assert_eq!(
            p.settings
                .severity_for("unknown-filter", crate::finding::Severity::Error),
            Some(crate::finding::Severity::Warning)
        );
        assert_eq!(
            p.settings.selection[0].select.as_deref(),
            Some(&["graphql".to_string(), "unknown-filter".to_string()][..])
        );
        // A netbox-lsp.toml beside it wins, and the pyproject's table is named as shadowed.
        std::fs::write(root.join(FILE_NAME), "netbox_version = \"4.3\"\n").unwrap();
        let found = nearest(&sub).unwrap();
        assert!(!found.pyproject && found.shadowed.is_some());
        assert_eq!(
            load(&found.path)
                .unwrap()
                .settings
                .netbox_version
                .as_deref(),
            Some("4.3")
        );
        // A nearer folder's file wins over both.
        std::fs::write(sub.join(FILE_NAME), "netbox_version = \"4.4\"\n").unwrap();
        assert_eq!(nearest(&sub).unwrap().path, sub.join(FILE_NAME));
    }

    #[test]
    fn pyproject_errors_name_the_table() {
        let p = from_pyproject(
            "[tool.netbox-lsp]\nnetbox_version = true\ncolour = 1\n",
            Path::new("/"),
        )
        .unwrap();
        assert!(
            p.errors[0].starts_with("[tool.netbox-lsp] `netbox_version`"),
            "{p:?}"
        );
        assert!(p.warnings[0].contains("unknown key `colour`"), "{p:?}");
        assert!(from_pyproject("[tool]\nnetbox-lsp = 3\n", Path::new("/"))
            .unwrap_err()
            .contains("must be a table"));
        assert!(from_pyproject("[tool.netbox-lsp\n", Path::new("/")).is_err());
        assert_eq!(
            from_pyproject("[tool.black]\nline-length = 1\n", Path::new("/")).unwrap(),
            Parsed::default()
        );
    }
}
