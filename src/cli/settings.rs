//! `check`'s settings: the nearest settings file ([`crate::config::file`]: `netbox-lsp.toml`,
//! or `[tool.netbox-lsp]` in `pyproject.toml`, from the current folder up; or `--config FILE`)
//! under the command-line flags, and the per-code overrides that follow from `--severity` and
//! the selection (`select` / `extend_select` / `ignore`).
//!
//! Precedence, highest first: a flag; `--config FILE` (no search then); the nearest settings
//! file; the defaults. In one folder `netbox-lsp.toml` wins over `pyproject.toml`.

use super::CheckArgs;
use crate::config::select::{self, Selection};
use crate::finding::{Finding, Severity};
use std::collections::HashMap;
use std::path::PathBuf;

/// The settings file `check` read and the path keys it gave (`index`, `graphql_schema`), whose
/// errors must not quote the files they name.
pub type FromFile = Option<(PathBuf, Vec<&'static str>)>;

/// The arguments with the settings file's values filled in where no flag was given: the same
/// keys the editor reads, so CI and the editor agree. Severity flags override the file per
/// code; exclude globs add up; the file's selection is the lowest layer under the flags'. A
/// broken or missing `--config` file is an error; a broken found file is an error too (silently
/// ignoring it would change results), and so is any bad value in it (the editor drops such a
/// value and carries on; CI must not). Remarks (unknown keys, unknown severity codes) are
/// printed as notes. A path the file names must lie inside the file's folder (the editor's rule
/// for a workspace file, `Settings::paths_outside`): anything else is an error.
pub fn with_config_file(args: &CheckArgs) -> Result<(CheckArgs, FromFile), String> {
    let Some(SettingsFile {
        path,
        settings: file,
        warnings,
    }) = settings_file(args.config.as_deref(), true)?
    else {
        return Ok((args.clone(), None));
    };
    for w in &warnings {
        super::say::note(format!("{}: {w}", path.display()));
    }
    let mut keys = Vec::new();
    if args.index.is_none() && file.index.is_some() {
        keys.push("index");
    }
    if args.graphql_schema.is_none() && file.graphql_schema.is_some() {
        keys.push("graphql_schema");
    }
    let mut out = args.clone();
    out.readings = file.readings();
    out.selection = file.selection.clone();
    out.netbox_version = out.netbox_version.or(file.netbox_version);
    out.index = out.index.or(file.index);
    out.graphql_schema = out.graphql_schema.or(file.graphql_schema);
    let mut severity: Vec<(String, Option<Severity>)> = file
        .severity
        .iter()
        .map(|(code, level)| {
            let sev = match level {
                crate::config::Level::Off => None,
                crate::config::Level::Report(s) => Some(*s),
            };
            (code.clone(), sev)
        })
        .collect();
    severity.extend(args.severity.iter().cloned()); // later entries win in the map
    out.severity = severity;
    out.exclude = file.exclude;
    out.exclude.extend(args.exclude.iter().cloned());
    Ok((out, Some((path, keys))))
}

/// A settings file as [`settings_file`] reads it: its path (as the user would write it), its
/// settings and the remarks on it (unknown keys and the like, for the caller to show as notes).
pub(crate) struct SettingsFile {
    pub path: PathBuf,
    pub settings: crate::config::Settings,
    pub warnings: Vec<String>,
}

/// Reads the settings file a command uses: `config` when given (an error when it cannot be
/// read), else the nearest one ([`crate::config::file::nearest`], from the current folder up;
/// `None` when there is none). A TOML error, a bad value or a path outside the file's folder
/// is an error. With `notes`, a `pyproject.toml` table shadowed by a `netbox-lsp.toml` is told
/// on standard error (`check`); `hook` and `mcp` share this reader without it.
pub(crate) fn settings_file(
    config: Option<&std::path::Path>,
    notes: bool,
) -> Result<Option<SettingsFile>, String> {
    let path = match config {
        Some(p) => p.to_path_buf(),
        None => match crate::config::file::nearest(std::path::Path::new(".")) {
            Some(found) => {
                if let Some(py) = found.shadowed.as_ref().filter(|_| notes) {
                    super::say::note(format!(
                        "{}: `[tool.netbox-lsp]` is not read: {} in the same folder wins",
                        shown(py),
                        shown(&found.path)
                    ));
                }
                found.path
            }
            None => return Ok(None),
        },
    };
    let path = PathBuf::from(shown(&path));
    let parsed = crate::config::file::load(&path)?;
    if !parsed.errors.is_empty() {
        return Err(format!("{}: {}", path.display(), parsed.errors.join("; ")));
    }
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if let Some((key, outside)) = parsed.settings.paths_outside(base).into_iter().next() {
        return Err(format!(
            "{}: `{key}` names {}, outside the folder of this settings file; a settings file may only name files inside its folder (give the file with --{} to use it)",
            path.display(),
            outside.display(),
            key.replace('_', "-")
        ));
    }
    Ok(Some(SettingsFile {
        path,
        settings: parsed.settings,
        warnings: parsed.warnings.into_iter().map(|p| p.message).collect(),
    }))
}

/// A path as the user would write it from the current folder (`./netbox-lsp.toml` →
/// `netbox-lsp.toml`; a file found above stays relative: `../pyproject.toml`).
fn shown(p: &std::path::Path) -> String {
    let cwd = std::path::absolute(".").ok();
    let rel = cwd.as_ref().and_then(|c| {
        let mut up = PathBuf::new();
        for dir in c.ancestors() {
            if let Ok(rest) = p.strip_prefix(dir) {
                return Some(up.join(rest));
            }
            up.push("..");
        }
        None
    });
    super::paths::display_path(rel.as_deref().unwrap_or(p))
}

/// The command line's selection layer: `--select`, `--extend-select`, `--ignore`; an error
/// for a selector that picks no code.
pub fn flag_selection(args: &CheckArgs) -> Result<Selection, String> {
    let all = args
        .select
        .iter()
        .flatten()
        .map(|s| ("--select", s))
        .chain(args.extend_select.iter().map(|s| ("--extend-select", s)))
        .chain(args.ignore.iter().map(|s| ("--ignore", s)));
    for (flag, s) in all {
        select::check_selector(s).map_err(|e| format!("{flag}: {e}"))?;
    }
    Ok(Selection {
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.clone(),
    })
}

/// The per-code overrides of a run: `--severity` (and the file's `[severity]`), then every
/// code the selection leaves out as `off`. `check` reports every code by default.
pub fn overrides(args: &CheckArgs) -> Result<HashMap<&str, Option<Severity>>, String> {
    let flags = flag_selection(args)?;
    let mut layers: Vec<&Selection> = args.selection.iter().collect();
    layers.push(&flags);
    let mut map: HashMap<&str, Option<Severity>> = args
        .severity
        .iter()
        .map(|(code, sev)| (code.as_str(), *sev))
        .collect();
    for c in crate::catalogue::CODES {
        if !select::is_on(&layers, c.code, &[]) {
            map.insert(c.code, None);
        }
    }
    Ok(map)
}

/// Applies `--severity code=level` overrides; `off` drops the code's findings.
pub(super) fn apply_overrides(
    findings: Vec<Finding>,
    overrides: &HashMap<&str, Option<Severity>>,
) -> Vec<Finding> {
    if overrides.is_empty() {
        return findings;
    }
    findings
        .into_iter()
        .filter_map(|mut f| match overrides.get(f.code) {
            None => Some(f),
            Some(None) => None,
            Some(Some(sev)) => {
                f.severity = *sev;
                Some(f)
            }
        })
        .collect()
}

/// Whether the text output is coloured: `--color always|never`, or with `auto` when stdout is
/// a terminal and `NO_COLOR` is unset or empty.
pub(super) fn use_color(args: &CheckArgs) -> bool {
    match args.color {
        super::ColorChoice::Always => true,
        super::ColorChoice::Never => false,
        super::ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::IsTerminal::is_terminal(&std::io::stdout())
        }
    }
}
