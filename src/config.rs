//! The configuration model shared by the editor and `check`: the keys of `netbox-lsp.toml`,
//! of LSP `initializationOptions` and of the `netboxLsp` section of `workspace/configuration`.
//! Pure: text or JSON in, [`Settings`] (or a message saying what is wrong) out; no I/O.
//!
//! Keys: `netbox_version` (string), `index` (path), `graphql_schema` (path), `severity` (table
//! code → `error|warning|information|hint|off`), `exclude` (list of globs). Editors that use
//! camelCase may write `netboxVersion` and `graphqlSchema`.

use crate::finding::Severity;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The name of the per-folder configuration file.
pub const FILE_NAME: &str = "netbox-lsp.toml";

/// What a per-code severity override says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Report with this severity.
    Report(Severity),
    /// Do not report the code at all.
    Off,
}

impl Level {
    /// Parses `error`, `warning`, `information` (`info`), `hint`, `off`.
    pub fn parse(s: &str) -> Option<Level> {
        if s.eq_ignore_ascii_case("off") || s.eq_ignore_ascii_case("none") {
            return Some(Level::Off);
        }
        Severity::parse(s).map(Level::Report)
    }
}

/// One layer of settings. `None` / empty means "not set here": layers are combined with
/// [`Settings::overlay`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// NetBox version whose shipped index and schema to use (`4.3`, `4.3.3`); newest when unset.
    pub netbox_version: Option<String>,
    /// Index file built by `netbox-lsp index build` (absolute once resolved).
    pub index: Option<PathBuf>,
    /// GraphQL schema file (SDL or introspection JSON, optionally `.gz`).
    pub graphql_schema: Option<PathBuf>,
    /// Per-code severity overrides, e.g. `unknown-filter = "warning"`.
    pub severity: BTreeMap<String, Level>,
    /// Globs of files not to check, matched against the path relative to the workspace folder
    /// (and against the absolute path).
    pub exclude: Vec<String>,
}

/// A parsed layer plus non-fatal remarks (unknown keys), to be shown to the user.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub settings: Settings,
    pub warnings: Vec<String>,
}

const KEYS: &[&str] = &[
    "netbox_version",
    "index",
    "graphql_schema",
    "severity",
    "exclude",
];

/// camelCase spellings accepted from editor settings.
fn canonical_key(k: &str) -> &str {
    match k {
        "netboxVersion" => "netbox_version",
        "graphqlSchema" => "graphql_schema",
        other => other,
    }
}

impl Settings {
    /// Parses the text of a `netbox-lsp.toml`. Relative paths are resolved against `base` (the
    /// file's folder). Errors name the line/key that is wrong; the caller then uses defaults.
    pub fn from_toml(text: &str, base: &Path) -> Result<Parsed, String> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            e.to_string()
                .trim_end()
                .replace('\n', " ")
                .replace("  ", " ")
        })?;
        let json = serde_json::to_value(&table).map_err(|e| e.to_string())?;
        Self::from_json(&json, Some(base))
    }

    /// Parses editor settings (an `initializationOptions` object or the `netboxLsp` section).
    /// `null` gives empty settings. Relative paths are resolved against `base` when given.
    pub fn from_json(value: &serde_json::Value, base: Option<&Path>) -> Result<Parsed, String> {
        let mut parsed = Parsed::default();
        let obj = match value {
            serde_json::Value::Null => return Ok(parsed),
            serde_json::Value::Object(o) => o,
            other => return Err(format!("settings must be a table/object, found {other}")),
        };
        let s = &mut parsed.settings;
        for (key, v) in obj {
            let key = canonical_key(key);
            match key {
                "netbox_version" => s.netbox_version = opt_string(key, v)?,
                "index" => s.index = opt_string(key, v)?.map(|p| resolve(base, &p)),
                "graphql_schema" => {
                    s.graphql_schema = opt_string(key, v)?.map(|p| resolve(base, &p))
                }
                "severity" => s.severity = severity_table(v)?,
                "exclude" => s.exclude = string_list(key, v)?,
                _ => parsed
                    .warnings
                    .push(format!("unknown key `{key}` (known: {})", KEYS.join(", "))),
            }
        }
        Ok(parsed)
    }

    /// `over` on top of `self`: set values of `over` win; severity tables merge key by key;
    /// exclude lists add up.
    pub fn overlay(&self, over: &Settings) -> Settings {
        let mut out = self.clone();
        if over.netbox_version.is_some() {
            out.netbox_version = over.netbox_version.clone();
        }
        if over.index.is_some() {
            out.index = over.index.clone();
        }
        if over.graphql_schema.is_some() {
            out.graphql_schema = over.graphql_schema.clone();
        }
        for (k, v) in &over.severity {
            out.severity.insert(k.clone(), *v);
        }
        for g in &over.exclude {
            if !out.exclude.contains(g) {
                out.exclude.push(g.clone());
            }
        }
        out
    }

    /// The severity to report `code` with: the override if any, else `default`; `None` = off.
    pub fn severity_for(&self, code: &str, default: Severity) -> Option<Severity> {
        match self.severity.get(code) {
            Some(Level::Off) => None,
            Some(Level::Report(s)) => Some(*s),
            None => Some(default),
        }
    }

    /// True when `path` matches one of the `exclude` globs, tried against the path relative to
    /// `root` (when under it) and against the whole path. Invalid globs never match.
    pub fn is_excluded(&self, path: &Path, root: Option<&Path>) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let mut builder = globset::GlobSetBuilder::new();
        for g in &self.exclude {
            if let Ok(glob) = globset::GlobBuilder::new(g)
                .literal_separator(false)
                .build()
            {
                builder.add(glob);
            }
        }
        let Ok(set) = builder.build() else {
            return false;
        };
        if let Some(rel) = root.and_then(|r| path.strip_prefix(r).ok()) {
            if set.is_match(rel) {
                return true;
            }
        }
        set.is_match(path)
    }
}

fn resolve(base: Option<&Path>, p: &str) -> PathBuf {
    let path = PathBuf::from(p);
    match base {
        Some(b) if path.is_relative() => b.join(path),
        _ => path,
    }
}

fn opt_string(key: &str, v: &serde_json::Value) -> Result<Option<String>, String> {
    match v {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) if s.trim().is_empty() => Ok(None),
        serde_json::Value::String(s) => Ok(Some(s.trim().to_string())),
        // `netbox_version = 4.3` in TOML is a float; accept it as written.
        serde_json::Value::Number(n) if key == "netbox_version" => Ok(Some(n.to_string())),
        other => Err(format!("`{key}` must be a string, found {other}")),
    }
}

fn string_list(key: &str, v: &serde_json::Value) -> Result<Vec<String>, String> {
    match v {
        serde_json::Value::Null => Ok(Vec::new()),
        serde_json::Value::String(s) => Ok(vec![s.clone()]),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| match i {
                serde_json::Value::String(s) => Ok(s.clone()),
                other => Err(format!("`{key}` must list strings, found {other}")),
            })
            .collect(),
        other => Err(format!("`{key}` must be a list of globs, found {other}")),
    }
}

fn severity_table(v: &serde_json::Value) -> Result<BTreeMap<String, Level>, String> {
    let obj = match v {
        serde_json::Value::Null => return Ok(BTreeMap::new()),
        serde_json::Value::Object(o) => o,
        other => {
            return Err(format!(
                "`severity` must be a table of code = level, found {other}"
            ))
        }
    };
    obj.iter()
        .map(|(code, level)| {
            let level_str = level.as_str().unwrap_or_default();
            Level::parse(level_str).map(|l| (code.clone(), l)).ok_or_else(|| {
                format!(
                    "`severity.{code}` must be one of error, warning, information, hint, off; found {level}"
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key_and_resolves_paths() {
        let text = r#"
netbox_version = "4.3"
index = "idx/netbox.index.json.gz"
graphql_schema = "/abs/schema.graphql"
exclude = ["drafts/**", "*.txt"]
[severity]
unknown-filter = "warning"
null-complement = "off"
"#;
        let p = Settings::from_toml(text, Path::new("/ws")).unwrap();
        assert!(p.warnings.is_empty());
        let s = p.settings;
        assert_eq!(s.netbox_version.as_deref(), Some("4.3"));
        assert_eq!(s.index, Some(PathBuf::from("/ws/idx/netbox.index.json.gz")));
        assert_eq!(s.graphql_schema, Some(PathBuf::from("/abs/schema.graphql")));
        assert_eq!(
            s.severity_for("unknown-filter", Severity::Error),
            Some(Severity::Warning)
        );
        assert_eq!(
            s.severity_for("null-complement", Severity::Information),
            None
        );
        assert_eq!(
            s.severity_for("multi-hop", Severity::Error),
            Some(Severity::Error)
        );
        assert!(s.is_excluded(Path::new("/ws/drafts/a/SKILL.md"), Some(Path::new("/ws"))));
        assert!(s.is_excluded(Path::new("/ws/notes.txt"), Some(Path::new("/ws"))));
        assert!(!s.is_excluded(Path::new("/ws/SKILL.md"), Some(Path::new("/ws"))));
    }

    #[test]
    fn broken_files_give_a_clear_message() {
        let e = Settings::from_toml("netbox_version = ", Path::new("/")).unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        let e = Settings::from_toml("[severity]\nunknown-filter = \"loud\"", Path::new("/"))
            .unwrap_err();
        assert!(e.contains("severity.unknown-filter"), "{e}");
        let e = Settings::from_toml("exclude = 3", Path::new("/")).unwrap_err();
        assert!(e.contains("exclude"), "{e}");
    }

    #[test]
    fn unknown_keys_warn_and_camel_case_is_accepted() {
        let v = serde_json::json!({"netboxVersion": "4.6", "colour": "blue"});
        let p = Settings::from_json(&v, None).unwrap();
        assert_eq!(p.settings.netbox_version.as_deref(), Some("4.6"));
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("colour"));
    }

    #[test]
    fn overlay_prefers_the_upper_layer() {
        let base = Settings {
            netbox_version: Some("4.3".into()),
            exclude: vec!["a".into()],
            ..Default::default()
        };
        let over = Settings {
            netbox_version: Some("4.6".into()),
            exclude: vec!["b".into()],
            ..Default::default()
        };
        let s = base.overlay(&over);
        assert_eq!(s.netbox_version.as_deref(), Some("4.6"));
        assert_eq!(s.exclude, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(base.overlay(&Settings::default()), base);
    }
}
