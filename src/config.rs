//! The configuration model shared by the editor and `check`: the keys of `netbox-lsp.toml`,
//! of LSP `initializationOptions` and of the `netboxLsp` section of `workspace/configuration`.
//! Pure: text or JSON in, [`Settings`] (or a message saying what is wrong) out; no I/O but
//! resolving symbolic links for the workspace-path rule ([`is_inside`], [`Settings::paths_outside`]).
//!
//! Keys: `netbox_version` (string), `index` (path), `graphql_schema` (path), `severity` (table
//! code → `error|warning|information|hint|off`), `exclude` (list of globs), `upgrade_to`
//! (string: the editor also reports what breaks on that newer release; `check` takes
//! `--upgrade-to` instead), `skip` (table reading → boolean: `lesson`, `history`, `django`,
//! `foreign`; `false` checks such calls), `select`, `extend_select` and `ignore` (lists of codes
//! or prefixes, [`select`]), `tools` (table tool name → [`ToolMap`]: the MCP tools of other
//! NetBox servers, for `netbox-lsp hook`). Editors that use camelCase may write `netboxVersion`,
//! `graphqlSchema`, `upgradeTo` and `extendSelect`; ruff's spelling `extend-select` is taken too.
//!
//! Where the files are found and read: [`file`] (`netbox-lsp.toml`, or `[tool.netbox-lsp]` in
//! `pyproject.toml`).

pub mod file;
pub mod select;

use crate::finding::Severity;
use crate::intent::{ReadAs, Readings};
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
    /// A newer NetBox release (`4.7`) to report upgrade findings for (`upgrade-breaks`,
    /// `upgrade-changes`, see `crate::upgrade`) beside the normal ones; unset: none.
    pub upgrade_to: Option<String>,
    /// `instance.url` named by a workspace (`netbox-lsp.toml`): the server contacts it only when
    /// the user's own settings name the same URL; token settings are never read from here.
    pub instance_url: Option<String>,
    /// `[skip]`: per reading of a site as not a call (`lesson = false`), whether such sites are
    /// held back (`true`, the default) or checked as calls (`false`).
    pub skip: BTreeMap<ReadAs, bool>,
    /// `select` / `extend_select` / `ignore`, one entry per layer that set any, lowest first
    /// ([`select::is_on`] reads them in order).
    pub selection: Vec<select::Selection>,
    /// `[tools.<name>]`: where the MCP tools of other NetBox servers carry their endpoint and
    /// filters, by tool name (`netbox-lsp hook` reads their calls; docs/agents.md).
    pub tools: BTreeMap<String, ToolMap>,
}

/// How a tool of some other NetBox MCP server sends a REST call (`[tools.<name>]` in
/// `netbox-lsp.toml`): where its endpoint is and which arguments are its filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMap {
    /// Where the endpoint (`/api/dcim/devices/`, `dcim/devices`) or object type (`dcim.device`)
    /// comes from.
    pub target: ToolTarget,
    /// Which arguments are the filters.
    pub filters: ToolFilters,
}

/// [`ToolMap::target`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolTarget {
    /// `target = "<argument>"`: the argument holding the endpoint or object type.
    Argument(String),
    /// `endpoint = "<endpoint>"`: a tool bound to one endpoint or object type.
    Fixed(String),
}

/// [`ToolMap::filters`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolFilters {
    /// `filters = "<argument>"`: the argument holding the filters as a dict.
    Argument(String),
    /// `filters = "*"`: every argument but the target is a filter (a tool whose parameters are
    /// the filters, as FastMCP tools declare them).
    Rest,
}

/// A parsed layer and what was wrong with it. A bad value drops only its own key (or its own
/// severity entry, or its own glob): the rest of the layer applies. The editor shows both lists
/// and carries on; `check` prints `warnings` as notes and fails on `errors`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub settings: Settings,
    /// Remarks on values that were still used or are harmless: unknown keys, severity codes no
    /// check reports (with the closest known code), a single string given for `exclude`.
    pub warnings: Vec<Problem>,
    /// Values that were wrong and dropped, one message each naming the key and what was found.
    pub errors: Vec<Problem>,
}

/// One problem of a settings layer: the message, and the top-level setting it is about (so
/// the editor can show one message per setting, however many values of it are wrong). Reads as
/// its message (`Deref<Target = str>`, `Display`, `Borrow<str>` for `join`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The top-level key as written (`severity`, `exclude`, an unknown key).
    pub setting: String,
    pub message: String,
}

impl std::ops::Deref for Problem {
    type Target = str;
    fn deref(&self) -> &str {
        &self.message
    }
}

impl std::borrow::Borrow<str> for Problem {
    fn borrow(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

const KEYS: &[&str] = &[
    "netbox_version",
    "index",
    "graphql_schema",
    "severity",
    "exclude",
    "instance",
    "upgrade_to",
    "skip",
    "select",
    "extend_select",
    "ignore",
    "tools",
];

/// camelCase spellings accepted from editor settings.
fn canonical_key(k: &str) -> &str {
    match k {
        "netboxVersion" => "netbox_version",
        "graphqlSchema" => "graphql_schema",
        "upgradeTo" => "upgrade_to",
        "extendSelect" | "extend-select" => "extend_select",
        other => other,
    }
}

/// A TOML syntax error of `text` on one line: its line, its column (in characters) and the
/// toml crate's message cut to 200 characters. The crate's own rendering quotes the whole line
/// under a caret; that line can hold a secret (`token = abc123` in a settings file is a syntax
/// error, and no token reaches any output) or be megabytes long (a generated or hostile file),
/// so it is not shown: the position leads the reader's editor there.
pub fn toml_error(e: &toml::de::Error, text: &str) -> String {
    let mut message = e.message().replace('\n', " ");
    if message.chars().nth(200).is_some() {
        message = message.chars().take(200).collect::<String>() + "…";
    }
    match e.span().and_then(|s| text.get(..s.start)) {
        Some(before) => {
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("TOML parse error at line {line}, column {column}: {message}")
        }
        None => format!("TOML parse error: {message}"),
    }
}

impl Parsed {
    /// Release settings written as unquoted TOML numbers lose their trailing zeros
    /// (`netbox_version = 4.10` parses as the float 4.1): where a line of `text` gives one so,
    /// the setting takes the digits as written, with a warning to quote them.
    pub(crate) fn restore_release_numbers(&mut self, text: &str) {
        for line in text.lines() {
            let Some((key, raw)) = line.split_once('=') else {
                continue;
            };
            let key = key.trim();
            let raw = raw.split('#').next().unwrap_or("").trim();
            let setting = match canonical_key(key) {
                "netbox_version" => &mut self.settings.netbox_version,
                "upgrade_to" => &mut self.settings.upgrade_to,
                _ => continue,
            };
            let Some((major, minor)) = raw.split_once('.') else {
                continue;
            };
            let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            if !(digits(major) && digits(minor) && minor.len() > 1 && minor.ends_with('0')) {
                continue;
            }
            let read = raw.parse::<f64>().ok().map(|f| f.to_string());
            if setting.is_some() && *setting == read {
                *setting = Some(raw.to_string());
                self.warnings.push(Problem {
                    setting: key.to_string(),
                    message: format!(
                        "`{key} = {raw}` is a TOML number, which reads as {}: write it quoted (`{key} = \"{raw}\"`); it is taken as {raw}",
                        read.unwrap_or_default()
                    ),
                });
            }
        }
    }
}

impl Settings {
    /// Parses the text of a `netbox-lsp.toml`. Relative paths are resolved against `base` (the
    /// file's folder). A TOML syntax error fails the whole file (the message names the line);
    /// a bad value is reported in [`Parsed::errors`] and only that key is dropped.
    pub fn from_toml(text: &str, base: &Path) -> Result<Parsed, String> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| toml_error(&e, text))?;
        let json = serde_json::to_value(&table).map_err(|e| e.to_string())?;
        let mut parsed = Self::from_json(&json, Some(base))?;
        parsed.restore_release_numbers(text);
        Ok(parsed)
    }

    /// Parses editor settings (an `initializationOptions` object or the `netboxLsp` section).
    /// `null` gives empty settings; anything but an object or `null` is an error. Bad values of
    /// single keys are collected in [`Parsed::errors`] and dropped, the other keys are kept.
    /// Relative paths are resolved against `base` when given.
    pub fn from_json(value: &serde_json::Value, base: Option<&Path>) -> Result<Parsed, String> {
        let mut parsed = Parsed::default();
        let obj = match value {
            serde_json::Value::Null => return Ok(parsed),
            serde_json::Value::Object(o) => o,
            other => return Err(format!("settings must be a table/object, found {other}")),
        };
        let s = &mut parsed.settings;
        let (mut warnings, mut errors) = (Vec::new(), Vec::new());
        let (warnings, errors) = (&mut warnings, &mut errors);
        let mut selection = select::Selection::default();
        for (written, v) in obj {
            let key = canonical_key(written);
            // Each key's messages are tagged with it once parsed (below).
            let tag = |list: &mut Vec<String>, into: &mut Vec<Problem>| {
                into.extend(list.drain(..).map(|message| Problem {
                    setting: written.clone(),
                    message,
                }));
            };
            match key {
                "select" => selection.select = Some(selector_list(key, v, warnings, errors)),
                "extend_select" => selection.extend_select = selector_list(key, v, warnings, errors),
                "ignore" => selection.ignore = selector_list(key, v, warnings, errors),
                "netbox_version" => s.netbox_version = keep(opt_string(key, v), errors),
                "index" => {
                    s.index = keep(opt_string(key, v), errors).map(|p| resolve(base, &p));
                }
                "graphql_schema" => {
                    s.graphql_schema = keep(opt_string(key, v), errors).map(|p| resolve(base, &p));
                }
                "severity" => s.severity = severity_table(v, warnings, errors),
                "exclude" => s.exclude = glob_list(key, v, warnings, errors),
                "instance" => s.instance_url = instance_url(v, warnings, errors),
                "live" => warnings.push(
                    "`live` is ignored here: live checks against NetBox are turned on only in your user settings (the editor's user settings, `[live]` in ~/.config/netbox-lsp/config.toml, NETBOX_LSP_LIVE=1) or with `check --live`, never by a workspace".into(),
                ),
                "upgrade_to" => s.upgrade_to = keep(opt_string(key, v), errors),
                "skip" => s.skip = skip_table(v, warnings, errors),
                "tools" => s.tools = tool_table(v, warnings, errors),
                _ => warnings.push(format!("unknown key `{key}` (known: {})", KEYS.join(", "))),
            }
            tag(errors, &mut parsed.errors);
            tag(warnings, &mut parsed.warnings);
        }
        if !selection.is_empty() {
            s.selection.push(selection);
        }
        Ok(parsed)
    }

    /// `over` on top of `self`: set values of `over` win; severity tables merge key by key;
    /// exclude lists add up.
    pub fn overlay(&self, over: &Settings) -> Settings {
        let mut out = self.clone();
        if over.instance_url.is_some() {
            out.instance_url = over.instance_url.clone();
        }
        if over.netbox_version.is_some() {
            out.netbox_version = over.netbox_version.clone();
        }
        if over.upgrade_to.is_some() {
            out.upgrade_to = over.upgrade_to.clone();
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
        for (r, on) in &over.skip {
            out.skip.insert(*r, *on);
        }
        for (name, map) in &over.tools {
            out.tools.insert(name.clone(), map.clone());
        }
        out.selection.extend(over.selection.iter().cloned());
        out
    }

    /// The readings in effect: every one on unless `[skip]` turns it off.
    pub fn readings(&self) -> Readings {
        let mut r = Readings::default();
        for (read_as, on) in &self.skip {
            r.set(*read_as, *on);
        }
        r
    }

    /// The severity the editor reports `code` with: `None` when the selection leaves it out (the
    /// editor's defaults: [`crate::catalogue::OFF_IN_EDITOR`] off) or its override is `off`; else
    /// the override if any, else `default`.
    pub fn severity_for(&self, code: &str, default: Severity) -> Option<Severity> {
        if !self.is_selected(code, crate::catalogue::OFF_IN_EDITOR) {
            return None;
        }
        match self.severity.get(code) {
            Some(Level::Off) => None,
            Some(Level::Report(s)) => Some(*s),
            None => Some(default),
        }
    }

    /// True when the selection layers report `code`, starting from every code on but those
    /// `default_off` names ([`select::is_on`]).
    pub fn is_selected(&self, code: &str, default_off: &[&str]) -> bool {
        let layers: Vec<&select::Selection> = self.selection.iter().collect();
        select::is_on(&layers, code, default_off)
    }

    /// True when `path` matches one of the `exclude` globs, tried against the path relative to
    /// `root` (when under it) and against the whole path. Invalid globs never match.
    pub fn is_excluded(&self, path: &Path, root: Option<&Path>) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let mut builder = globset::GlobSetBuilder::new();
        for g in &self.exclude {
            if let Ok(glob) = exclude_glob(g) {
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

impl Settings {
    /// The path settings (`index`, `graphql_schema`) that lie outside `root`, symbolic links
    /// resolved (see [`is_inside`]), with their key. A settings file that a repository carries
    /// (`netbox-lsp.toml`) may only name files inside its own folder: the editor and `check`
    /// both drop (editor) or refuse (`check`) the others, so that a cloned repository cannot
    /// make the tool read `/proc/self/environ` or `~/.ssh/…` and quote it in an error.
    pub fn paths_outside(&self, root: &Path) -> Vec<(&'static str, PathBuf)> {
        [
            ("index", &self.index),
            ("graphql_schema", &self.graphql_schema),
        ]
        .into_iter()
        .filter_map(|(key, p)| {
            p.as_deref()
                .filter(|f| !is_inside(root, f))
                .map(|f| (key, f.to_path_buf()))
        })
        .collect()
    }

    /// [`Settings::paths_outside`], and those settings unset (what the editor does with them).
    pub fn drop_paths_outside(&mut self, root: &Path) -> Vec<(&'static str, PathBuf)> {
        let outside = self.paths_outside(root);
        for (key, _) in &outside {
            match *key {
                "index" => self.index = None,
                _ => self.graphql_schema = None,
            }
        }
        outside
    }
}

/// True when `file` (absolute, or relative to `root`) lies inside the folder `root` once
/// symbolic links and `..` are resolved on disk (the one look at the file system in this
/// module). A path that does not exist (yet) is resolved through its deepest existing folder;
/// a `..` below that cannot be resolved and counts as outside.
pub fn is_inside(root: &Path, file: &Path) -> bool {
    match (resolved(root), resolved(&root.join(file))) {
        (Some(r), Some(f)) => f.starts_with(r),
        _ => false,
    }
}

/// `p` with links resolved: the canonical form of its deepest existing ancestor, then the rest
/// of its components as written; `None` when that rest climbs (`..`).
fn resolved(p: &Path) -> Option<PathBuf> {
    let mut rest = Vec::new();
    let mut at = p;
    loop {
        if let Ok(c) = std::fs::canonicalize(at) {
            let mut out = c;
            for part in rest.iter().rev() {
                match part {
                    std::path::Component::Normal(n) => out.push(n),
                    std::path::Component::CurDir => {}
                    _ => return None,
                }
            }
            return Some(out);
        }
        if at == Path::new(".") {
            return None; // the working folder itself is gone
        }
        let mut parts = at.components();
        rest.push(parts.next_back()?);
        at = parts.as_path();
        if at.as_os_str().is_empty() {
            at = Path::new(".");
        }
    }
}

fn resolve(base: Option<&Path>, p: &str) -> PathBuf {
    let path = PathBuf::from(p);
    match base {
        Some(b) if path.is_relative() => b.join(path),
        _ => path,
    }
}

/// The value of a key, or `None` with its message added to `errors`.
fn keep<T>(r: Result<Option<T>, String>, errors: &mut Vec<String>) -> Option<T> {
    r.unwrap_or_else(|e| {
        errors.push(e);
        None
    })
}

fn opt_string(key: &str, v: &serde_json::Value) -> Result<Option<String>, String> {
    match v {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) if s.trim().is_empty() => Ok(None),
        serde_json::Value::String(s) => Ok(Some(s.trim().to_string())),
        // `netbox_version = 4.3` in TOML is a float; accept it as written.
        serde_json::Value::Number(n) if key == "netbox_version" || key == "upgrade_to" => {
            Ok(Some(n.to_string()))
        }
        other => Err(format!("`{key}` must be a string, found {other}")),
    }
}

/// The items of the list setting `key`, a list of `what.0` (`globs`): none for `null`; a
/// single string is taken as one item (`what.1`: `one glob`) with a warning; anything else is
/// an error and gives none.
fn list_items<'v>(
    key: &str,
    v: &'v serde_json::Value,
    what: (&str, &str),
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> Vec<&'v serde_json::Value> {
    let (list, one) = what;
    match v {
        serde_json::Value::Null => Vec::new(),
        serde_json::Value::String(_) => {
            warnings.push(format!(
                "`{key}` should be a list of {list}; the string was taken as {one}: [{v}]"
            ));
            vec![v]
        }
        serde_json::Value::Array(items) => items.iter().collect(),
        other => {
            errors.push(format!("`{key}` must be a list of {list}, found {other}"));
            Vec::new()
        }
    }
}

/// The valid globs of `exclude`. A single string is taken as one glob (with a warning); an
/// item that is not a string or not a valid glob is dropped with an error.
fn glob_list(
    key: &str,
    v: &serde_json::Value,
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> Vec<String> {
    let items = list_items(key, v, ("globs", "one glob"), warnings, errors);
    if v.as_str() == Some("") {
        return Vec::new();
    }
    items
        .into_iter()
        .filter_map(|item| match item {
            serde_json::Value::String(g) => match glob(g) {
                Ok(_) => Some(g.clone()),
                Err(e) => {
                    errors.push(format!("`{key}`: invalid glob `{g}`: {}", e.kind()));
                    None
                }
            },
            other => {
                errors.push(format!("`{key}` must list strings (globs), found {other}"));
                None
            }
        })
        .collect()
}

/// Compiles one `exclude` glob the way it is matched (`*` crosses `/`, as in `check`), after
/// [`exclude_pattern`].
fn glob(g: &str) -> Result<globset::Glob, globset::Error> {
    exclude_glob(g)
}

/// An `exclude` glob as it is matched against `/`-separated relative paths: a backslash is a
/// folder separator (as Windows users write globs; on Unix globset would read it as an escape
/// and `docs\old\*` would silently match nothing: use `[*]` for a literal `*`), and a
/// leading `./` is dropped (paths are matched relative to the folder, without it).
pub fn exclude_pattern(g: &str) -> String {
    let g = g.replace('\\', "/");
    let mut g = g.as_str();
    while let Some(rest) = g.strip_prefix("./") {
        g = rest;
    }
    g.to_string()
}

/// Compiles an `exclude` glob of `check --exclude` or a settings file ([`exclude_pattern`];
/// `*` crosses `/`).
pub fn exclude_glob(g: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(&exclude_pattern(g))
        .literal_separator(false)
        .backslash_escape(false)
        .build()
}

/// The valid selectors of `select`, `extend_select` or `ignore` (codes or prefixes, see
/// [`select::picks`]). A single string is taken as one selector (with a warning); a selector
/// that picks no code is dropped with an error naming the closest code.
fn selector_list(
    key: &str,
    v: &serde_json::Value,
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> Vec<String> {
    list_items(key, v, ("codes", "one"), warnings, errors)
        .into_iter()
        .filter_map(|item| match item.as_str().map(str::trim) {
            Some(sel) => match select::check_selector(sel) {
                Ok(()) => Some(sel.to_string()),
                Err(e) => {
                    errors.push(format!("`{key}`: {e}"));
                    None
                }
            },
            None => {
                errors.push(format!("`{key}` must list codes (strings), found {item}"));
                None
            }
        })
        .collect()
}

/// The valid entries of a `severity` table. A bad level drops its entry with an error; a code
/// no check reports is kept with a warning naming the closest known code.
fn severity_table(
    v: &serde_json::Value,
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> BTreeMap<String, Level> {
    let obj = match v {
        serde_json::Value::Null => return BTreeMap::new(),
        serde_json::Value::Object(o) => o,
        other => {
            errors.push(format!(
                "`severity` must be a table of code = level, found {other}"
            ));
            return BTreeMap::new();
        }
    };
    let mut out = BTreeMap::new();
    for (code, level) in obj {
        let Some(parsed) = level.as_str().and_then(Level::parse) else {
            errors.push(format!(
                "`severity.{code}` must be one of error, warning, information, hint, off; found {level}"
            ));
            continue;
        };
        if let Some(w) = unknown_code_warning(code) {
            warnings.push(format!("`severity`: {w}"));
        }
        out.insert(code.clone(), parsed);
    }
    out
}

/// A remark for a severity override of `code` when no check reports that code (source: the
/// code catalogue, REST and GraphQL): it names the closest known code when
/// one is near (`unknown_filter` → `unknown-filter`). `None` for a known code.
pub fn unknown_code_warning(code: &str) -> Option<String> {
    let known = crate::catalogue::CODES.iter().map(|c| c.code);
    if known.clone().any(|k| k == code) {
        return None;
    }
    let wanted = code.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    let nearest = known
        .map(|k| (strsim::damerau_levenshtein(&wanted, k), k))
        .min()
        .filter(|(d, k)| *d <= (k.len() / 4).max(2));
    Some(match nearest {
        Some((_, k)) => format!("unknown code `{code}` (did you mean `{k}`?)"),
        None => format!(
            "unknown code `{code}`: no check reports it (codes: docs/diagnostics.md, docs/graphql.md)"
        ),
    })
}

/// The valid entries of a `skip` table (`lesson = false`). A value that is not a boolean drops
/// its entry with an error; an unknown reading is dropped with a warning naming the known ones.
fn skip_table(
    v: &serde_json::Value,
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> BTreeMap<ReadAs, bool> {
    let names = || {
        ReadAs::ALL
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let obj = match v {
        serde_json::Value::Null => return BTreeMap::new(),
        serde_json::Value::Object(o) => o,
        other => {
            errors.push(format!(
                "`skip` must be a table of reading = true|false ({}), found {other}",
                names()
            ));
            return BTreeMap::new();
        }
    };
    let mut out = BTreeMap::new();
    for (name, on) in obj {
        let Some(read_as) = ReadAs::from_name(name) else {
            warnings.push(format!("unknown key `skip.{name}` (known: {})", names()));
            continue;
        };
        match on.as_bool() {
            Some(b) => {
                out.insert(read_as, b);
            }
            None => errors.push(format!("`skip.{name}` must be true or false, found {on}")),
        }
    }
    out
}

/// `instance = { url = "https://…" }` of a workspace: only the URL is taken; token settings here
/// are refused (the token is named only in the user's own settings).
/// The valid entries of a `tools` table (`[tools.nb_query] target = "resource"` and
/// `filters = "params"`): each needs `filters` and exactly one of `target` / `endpoint`, all
/// non-empty strings; an entry that lacks one is dropped with an error naming it.
fn tool_table(
    v: &serde_json::Value,
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> BTreeMap<String, ToolMap> {
    let mut out = BTreeMap::new();
    let Some(obj) = v.as_object() else {
        errors.push(format!(
            "`tools` must be a table of tool name = {{ target or endpoint, filters }}, found {v}"
        ));
        return out;
    };
    for (name, entry) in obj {
        let Some(fields) = entry.as_object() else {
            errors.push(format!(
                "`tools.{name}` must be a table with `filters` and `target` or `endpoint`, found {entry}"
            ));
            continue;
        };
        let text = |k: &str| match fields.get(k) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) if !s.trim().is_empty() => {
                Ok(Some(s.trim().to_string()))
            }
            Some(other) => Err(format!(
                "`tools.{name}.{k}` must be a non-empty string, found {other}"
            )),
        };
        for k in fields.keys() {
            if !matches!(k.as_str(), "target" | "endpoint" | "filters") {
                warnings.push(format!(
                    "unknown key `tools.{name}.{k}` (known: target, endpoint, filters)"
                ));
            }
        }
        let (target, endpoint, filters) = match (text("target"), text("endpoint"), text("filters"))
        {
            (Ok(t), Ok(e), Ok(f)) => (t, e, f),
            (t, e, f) => {
                errors.extend([t.err(), e.err(), f.err()].into_iter().flatten());
                continue;
            }
        };
        let target = match (target, endpoint) {
            (Some(arg), None) => ToolTarget::Argument(arg),
            (None, Some(ep)) => ToolTarget::Fixed(ep),
            _ => {
                errors.push(format!(
                    "`tools.{name}` needs exactly one of `target` (the argument naming the endpoint or object type) and `endpoint` (a fixed one)"
                ));
                continue;
            }
        };
        let filters = match filters.as_deref() {
            Some("*") => ToolFilters::Rest,
            Some(arg) => ToolFilters::Argument(arg.to_string()),
            None => {
                errors.push(format!(
                    "`tools.{name}` needs `filters`: the argument holding the filters, or \"*\" when every other argument is a filter"
                ));
                continue;
            }
        };
        out.insert(name.clone(), ToolMap { target, filters });
    }
    out
}

fn instance_url(
    v: &serde_json::Value,
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> Option<String> {
    let Some(obj) = v.as_object() else {
        errors.push(format!("`instance` must be a table with `url`, found {v}"));
        return None;
    };
    for k in obj.keys() {
        match k.as_str() {
            "url" => {}
            "token_env" | "tokenEnv" | "token_file" | "tokenFile" | "token" => warnings.push(format!(
                "`instance.{k}` is ignored here: the API token is named only in your user settings (~/.config/netbox-lsp/config.toml or the editor's user settings)"
            )),
            other => warnings.push(format!("unknown key `instance.{other}` (known: url)")),
        }
    }
    match obj.get("url") {
        Some(serde_json::Value::String(u)) if !u.trim().is_empty() => Some(u.trim().to_string()),
        Some(other) => {
            errors.push(format!(
                "`instance.url` must be a URL string, found {other}"
            ));
            None
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TOML syntax error on a line of megabytes (a generated or hostile `netbox-lsp.toml`)
    /// is said by its position and message, not by quoting the line (it was 200,154 bytes of
    /// stderr, or of an editor message, for a line of 200,000); on a short line the rendering
    /// with the line and a caret stays.
    #[test]
    fn a_toml_error_on_a_huge_line_is_short() {
        let base = Path::new(".");
        let huge = format!(
            "netbox_version = \"4.6\"\n\u{e9}a={}{}\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let e = Settings::from_toml(&huge, base).unwrap_err();
        assert!(
            e.len() < 400,
            "{} bytes: {}",
            e.len(),
            &e[..400.min(e.len())]
        );
        assert!(e.starts_with("TOML parse error at line 2, column "), "{e}");
        let key = format!("{} = 1\n{} = 2\n", "k".repeat(50_000), "k".repeat(50_000));
        let e = Settings::from_toml(&key, base).unwrap_err();
        assert!(e.len() < 400, "{} bytes", e.len());
        assert!(
            e.starts_with("TOML parse error at line 2, column 1: "),
            "{e}"
        );
        let short =
            Settings::from_toml("netbox_version = \"4.6\"\rexclude = []\r", base).unwrap_err();
        assert!(
            short.starts_with("TOML parse error at line 1, column ") && !short.contains('^'),
            "{short}"
        );
    }

    /// A syntax error on a line that holds a secret says where, never the line: the toml
    /// crate's rendering would quote it (the quiet twin: the same value quoted parses).
    #[test]
    fn a_toml_error_does_not_quote_its_line() {
        let base = Path::new(".");
        for text in [
            "token = S3cretTok3n bad\n",
            "[instance]\ntoken = S3cretTok3n\n",
            "netbox_version = \"4.6\"\npassword = \"S3cretTok3n\n",
        ] {
            let e = Settings::from_toml(text, base).unwrap_err();
            assert!(!e.contains("S3cretTok3n"), "{e}");
            assert!(e.starts_with("TOML parse error at line "), "{e}");
        }
        // Whatever becomes of a well-formed line with an unknown key, it is no syntax error
        // and the value is not shown either.
        match Settings::from_toml("token = \"S3cretTok3n\"\n", base) {
            Ok(_) => {}
            Err(e) => assert!(
                !e.starts_with("TOML parse error") && !e.contains("S3cretTok3n"),
                "{e}"
            ),
        }
    }

    /// `[tools.<name>]`: each entry with `filters` and one of `target` / `endpoint` is kept;
    /// an entry without `filters`, with both or neither target key, or with a value that is not
    /// a string is dropped with an error naming it, and the other entries still apply.
    #[test]
    fn tool_maps() {
        let text = r#"
[tools.nb_query]
target = "resource"
filters = "params"
[tools.list_devices]
endpoint = "dcim/devices"
filters = "*"
[tools.no_filters]
endpoint = "dcim/sites"
[tools.both]
target = "a"
endpoint = "dcim/sites"
filters = "f"
[tools.number]
target = 3
filters = "f"
[tools.extra]
endpoint = "dcim/sites"
filters = "*"
note = "x"
"#;
        let p = Settings::from_toml(text, Path::new("/ws")).unwrap();
        let tools = &p.settings.tools;
        assert_eq!(
            tools["nb_query"],
            ToolMap {
                target: ToolTarget::Argument("resource".into()),
                filters: ToolFilters::Argument("params".into()),
            }
        );
        assert_eq!(
            tools["list_devices"],
            ToolMap {
                target: ToolTarget::Fixed("dcim/devices".into()),
                filters: ToolFilters::Rest,
            }
        );
        assert!(tools.contains_key("extra"));
        let dropped: Vec<&str> = ["no_filters", "both", "number"]
            .into_iter()
            .filter(|n| !tools.contains_key(*n))
            .collect();
        assert_eq!(dropped, ["no_filters", "both", "number"]);
        assert_eq!(p.errors.len(), 3, "{:?}", p.errors);
        assert!(p.errors.iter().any(|e| e.contains("`tools.number.target`")));
        assert_eq!(
            p.warnings
                .iter()
                .map(|w| w.message.as_str())
                .collect::<Vec<_>>(),
            ["unknown key `tools.extra.note` (known: target, endpoint, filters)"]
        );
    }

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
        // A release number with a trailing zero keeps it; one without needs no note.
        let p = Settings::from_toml(
            "netbox_version = 4.10  # next\nupgrade_to = 5.0\n",
            Path::new("/"),
        )
        .unwrap();
        assert_eq!(p.settings.netbox_version.as_deref(), Some("4.10"));
        assert_eq!(p.settings.upgrade_to.as_deref(), Some("5.0"));
        assert!(
            p.warnings.iter().any(|w| w
                .message
                .contains("reads as 4.1: write it quoted (`netbox_version = \"4.10\"`)")),
            "{:?}",
            p.warnings
        );
        let p = Settings::from_toml(
            "netbox_version = 4.3\nupgrade_to = \"4.10\"\n",
            Path::new("/"),
        )
        .unwrap();
        assert_eq!(p.settings.netbox_version.as_deref(), Some("4.3"));
        assert_eq!(p.settings.upgrade_to.as_deref(), Some("4.10"));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let e = Settings::from_toml("netbox_version = ", Path::new("/")).unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        let e = Settings::from_toml("severity = [1,\n", Path::new("/")).unwrap_err();
        assert!(e.contains("line"), "{e}");
    }

    /// One bad value drops only itself: (settings JSON, the kept settings, the errors'
    /// substrings, the warnings' substrings).
    #[test]
    fn bad_values_drop_only_their_key() {
        let cases = [
            (
                serde_json::json!({"netbox_version": "4.3", "severity": {"unknown-filter": "loud", "multi-hop": "off"}}),
                serde_json::json!({"netbox_version": "4.3", "severity": {"multi-hop": "off"}}),
                vec!["`severity.unknown-filter` must be one of", "\"loud\""],
                vec![],
            ),
            (
                serde_json::json!({"netbox_version": true, "index": ["x"], "exclude": ["drafts/**"]}),
                serde_json::json!({"exclude": ["drafts/**"]}),
                vec![
                    "`netbox_version` must be a string, found true",
                    "`index` must be a string",
                ],
                vec![],
            ),
            (
                serde_json::json!({"netbox_version": "4.4", "severity": "loud"}),
                serde_json::json!({"netbox_version": "4.4"}),
                vec!["`severity` must be a table"],
                vec![],
            ),
            (
                serde_json::json!({"exclude": ["[", "drafts/**", 3]}),
                serde_json::json!({"exclude": ["drafts/**"]}),
                vec!["invalid glob `[`", "must list strings (globs), found 3"],
                vec![],
            ),
            (
                serde_json::json!({"exclude": 3, "netboxVersion": "4.5"}),
                serde_json::json!({"netbox_version": "4.5"}),
                vec!["`exclude` must be a list of globs, found 3"],
                vec![],
            ),
            (
                serde_json::json!({"exclude": "notalist"}),
                serde_json::json!({"exclude": ["notalist"]}),
                vec![],
                vec!["`exclude` should be a list of globs", "[\"notalist\"]"],
            ),
            (
                serde_json::json!({"severity": {"unknown_filter": "off", "graphql-filter-arg": "hint", "zzz": "off"}}),
                serde_json::json!({"severity": {"unknown_filter": "off", "graphql-filter-arg": "hint", "zzz": "off"}}),
                vec![],
                vec![
                    "unknown code `unknown_filter` (did you mean `unknown-filter`?)",
                    "unknown code `graphql-filter-arg` (did you mean `graphql-filter-argument`?)",
                    "unknown code `zzz`: no check reports it",
                ],
            ),
        ];
        for (input, kept, errors, warnings) in cases {
            let p = Settings::from_json(&input, None).unwrap();
            let want = Settings::from_json(&kept, None).unwrap();
            assert_eq!(p.settings, want.settings, "{input}");
            let all_errors = p.errors.join("\n");
            for e in &errors {
                assert!(all_errors.contains(e), "{input}: {e:?} not in {all_errors}");
            }
            assert_eq!(
                errors.is_empty(),
                p.errors.is_empty(),
                "{input}: {:?}",
                p.errors
            );
            let all_warnings = p.warnings.join("\n");
            for w in &warnings {
                assert!(
                    all_warnings.contains(w),
                    "{input}: {w:?} not in {all_warnings}"
                );
            }
            assert_eq!(
                warnings.is_empty(),
                p.warnings.is_empty(),
                "{input}: {:?}",
                p.warnings
            );
        }
        // The same in a netbox-lsp.toml: the good keys stay.
        let p = Settings::from_toml(
            "netbox_version = \"4.3\"\nexclude = [\"[\", \"a/**\"]\n[severity]\nunknown-filter = \"loud\"\n",
            Path::new("/"),
        )
        .unwrap();
        assert_eq!(p.settings.netbox_version.as_deref(), Some("4.3"));
        assert_eq!(p.settings.exclude, vec!["a/**".to_string()]);
        assert_eq!(p.errors.len(), 2, "{:?}", p.errors);
    }

    /// The workspace-path rule: inside after links and `..` are resolved, also for files that
    /// do not exist yet; a `..` below the deepest existing folder counts as outside.
    #[cfg(unix)]
    #[test]
    fn paths_stay_inside_after_links_are_resolved() {
        let tmp = tempfile::tempdir().unwrap();
        let (ws, out) = (tmp.path().join("ws"), tmp.path().join("out"));
        std::fs::create_dir_all(ws.join("a")).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("f"), "x").unwrap();
        std::os::unix::fs::symlink(&out, ws.join("link")).unwrap();
        std::os::unix::fs::symlink(out.join("f"), ws.join("f")).unwrap();
        std::os::unix::fs::symlink(ws.join("a"), ws.join("in")).unwrap();
        for (file, inside) in [
            ("a/x.json.gz", true),
            ("in/x.json.gz", true),
            ("./a/../a/y", true),
            ("link/f", false),
            ("link/missing/deeper", false),
            ("f", false),
            ("../out/f", false),
            ("a/missing/../../../out/f", false),
            ("/etc/passwd", false),
            ("/proc/self/environ", false),
        ] {
            assert_eq!(is_inside(&ws, Path::new(file)), inside, "{file}");
        }
        let mut s = Settings {
            index: Some(ws.join("a/i.json.gz")),
            graphql_schema: Some(ws.join("link/f")),
            ..Default::default()
        };
        let dropped = s.drop_paths_outside(&ws);
        assert_eq!(dropped, vec![("graphql_schema", ws.join("link/f"))]);
        assert!(s.graphql_schema.is_none() && s.index.is_some());
    }

    #[test]
    fn skip_turns_a_reading_off() {
        let p = Settings::from_toml(
            "[skip]\nlesson = false\nhistory = true\ncolour = false\ndjango = \"no\"\n",
            Path::new("/"),
        )
        .unwrap();
        let r = p.settings.readings();
        assert!(!r.is_on(ReadAs::Lesson));
        assert!(r.is_on(ReadAs::History) && r.is_on(ReadAs::Django) && r.is_on(ReadAs::Foreign));
        assert!(
            p.warnings.iter().any(|w| w.contains("skip.colour")),
            "{:?}",
            p.warnings
        );
        assert!(
            p.errors.iter().any(|e| e.contains("skip.django")),
            "{:?}",
            p.errors
        );
        assert_eq!(Settings::default().readings(), Readings::default());
    }

    #[test]
    fn known_codes_give_no_warning() {
        for c in crate::catalogue::CODES {
            assert_eq!(unknown_code_warning(c.code), None, "{}", c.code);
        }
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
