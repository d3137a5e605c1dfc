//! Finds NetBox REST filter dicts and GraphQL documents in host documents (Markdown, Python,
//! YAML, JSON, GraphQL files, plain text) with ruff's parser (Python) and tree-sitter (YAML,
//! JSON), keeping exact byte ranges into the host. Error tolerant: half-written text yields what
//! can be read, never a panic.

pub(crate) mod forms;
pub use forms::table_markdown as call_forms_table;
pub mod ansible;
mod ansible_vars;
pub mod commands;
pub mod curl;
pub mod httpie;
pub mod json;
mod json_lit;
mod lit;
pub mod markdown;
#[cfg(test)]
mod mutations;
pub mod notebook;
pub mod offset_map;
pub(crate) mod old_mcp;
pub(crate) mod parse;
pub mod python;
mod scanner_guard;
pub mod shell;
pub(crate) mod terms;
pub mod text;
mod tools;
pub mod unit;
pub mod wget;
pub mod yaml;

pub use offset_map::OffsetMap;

pub use compact_str::CompactString;
use std::ops::Range;
use std::path::Path;

/// The language of a host document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    Markdown,
    Python,
    Yaml,
    Json,
    Graphql,
    /// A Jupyter notebook (`.ipynb`): code cells read as Python, Markdown cells as Markdown,
    /// positions in the JSON file.
    Notebook,
    /// Any other text: only REST URLs with query strings are looked for.
    Text,
}

impl HostKind {
    /// Host kind from a file name's extension (`.md`, `.markdown`, `.py`, `.yaml`, `.yml`,
    /// `.json`, `.graphql`, `.gql`, `.ipynb`, `.txt`; prompt templates `.prompt`, `.j2`, `.jinja`,
    /// `.jinja2`, `.tmpl` and shell scripts `.sh`, `.bash` are read as text); `None` for files
    /// `check` skips.
    pub fn from_path(path: &Path) -> Option<HostKind> {
        if let Some(kind) = HostKind::agent_rules(path) {
            return Some(kind);
        }
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Self::from_extension(&ext)
    }

    /// Host kind from a lower-case file extension without the dot (`md`, `sh`); `None` for
    /// one that is not read ([`EXTENSIONS`] lists those that are).
    pub fn from_extension(ext: &str) -> Option<HostKind> {
        Some(match ext {
            "md" | "markdown" | "mdx" => HostKind::Markdown,
            "py" | "pyi" => HostKind::Python,
            "yaml" | "yml" => HostKind::Yaml,
            "json" => HostKind::Json,
            "graphql" | "gql" => HostKind::Graphql,
            "ipynb" => HostKind::Notebook,
            "txt" | "prompt" | "j2" | "jinja" | "jinja2" | "tmpl" | "sh" | "bash" => HostKind::Text,
            _ => return None,
        })
    }

    /// Markdown for the rule files agents read that are not named `.md`: Cursor's rules
    /// (`*.mdc`, `.cursorrules`) and Windsurf's (`.windsurfrules`). (GitHub Copilot's
    /// `.github/copilot-instructions.md`, `*.instructions.md` and `*.prompt.md` are `.md`.) The
    /// name wins over the editor's language id: these files open as plain text.
    pub fn agent_rules(path: &Path) -> Option<HostKind> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        (matches!(name.as_str(), ".cursorrules" | ".windsurfrules") || name.ends_with(".mdc"))
            .then_some(HostKind::Markdown)
    }

    /// Host kind from an LSP language id (`markdown`, `python`, `yaml`, `json`, `graphql`, ...).
    pub fn from_language_id(id: &str) -> Option<HostKind> {
        Some(match id {
            "markdown" | "mdx" => HostKind::Markdown,
            "python" => HostKind::Python,
            "yaml" => HostKind::Yaml,
            "json" | "jsonc" => HostKind::Json,
            "graphql" => HostKind::Graphql,
            // VS Code's and Neovim's ids for text, prompt templates and shell scripts.
            "plaintext" | "text" | "jinja" | "jinja2" | "shellscript" | "sh" | "bash" => {
                HostKind::Text
            }
            _ => return None,
        })
    }
}

/// The file extensions a walked folder's files are read by (without the dot), in the order the
/// docs list them; [`HostKind::from_extension`] maps each to its host kind. README, the pre-commit
/// hook's `files:` and the editors' file types are tested against this list (tests/docs.rs).
pub const EXTENSIONS: &[&str] = &[
    "md", "markdown", "mdx", "py", "pyi", "yaml", "yml", "json", "ipynb", "graphql", "gql", "txt",
    "prompt", "j2", "jinja", "jinja2", "tmpl", "sh", "bash",
];

/// How a literal is written in the host, so fixes can render values (`"null"` in Python/JSON/YAML,
/// `null` in a query string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Python,
    Json,
    Yaml,
    /// A URL query string (`?k=v&k=v`).
    Query,
    /// JSON text held in a JSON string, as OpenAI-style tool calls carry their arguments
    /// (`"arguments": "{\"object_type\": ...}"`): values are written as JSON, and fix texts are
    /// escaped for the string they land in (see `analysis`).
    JsonInString,
    /// The `api_filter` string of the Ansible `netbox.netbox.nb_lookup` plugin: space-separated
    /// `k=v` words (Ansible's `split_args`/`parse_kv`), a value with spaces in quotes
    /// (`name="core 1"`), several values as repeated keys (`tag=a tag=b`). Read like
    /// [`Syntax::Query`] by the checks; fixes write words, not `&`-joined pairs.
    ApiFilter,
}

impl Syntax {
    /// True for the `key=value` pair forms that carry only strings ([`Syntax::Query`],
    /// [`Syntax::ApiFilter`]): a fix rewrites pairs there, not list literals.
    pub fn is_pairs(self) -> bool {
        matches!(self, Syntax::Query | Syntax::ApiFilter)
    }
}

/// The endpoint `netbox_get_changelogs` and code mode's `changelogs` query: NetBox MCP server
/// v1.2.1 `server.py` sends `GET core/object-changes/` (netbox-facts.md §4.1; the endpoint of
/// `core.objectchange`, moved from `extras/` in NetBox 4.1).
pub const CHANGELOG_TARGET: &str = "core/object-changes";

/// Which client sends the filters, because the wire encoding differs (see ARCHITECTURE.md,
/// "Wire encoding depends on the client").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallForm {
    /// `netbox_get_objects(object_type, filters, fields, brief, limit, offset, ordering)`.
    GetObjects,
    /// `netbox_get_changelogs(filters)`: endpoint `core/object-changes`.
    GetChangelogs,
    /// `netbox_get_object_by_id(object_type, object_id, fields, brief)`.
    GetObjectById,
    /// `netbox_search_objects(query, object_types, fields, limit)`.
    SearchObjects,
    /// The first netbox-mcp-server releases' `get_objects(object_type, filters)`: the object
    /// type one of that server's own names (`devices`, `ip-addresses`, see [`old_mcp`]), the
    /// filters sent with requests (lists as repeated keys, `None` dropped).
    OldGetObjects,
    /// NetBox Labs Platform MCP code mode `get(type, filters={}, fields=[], limit=50, offset=0,
    /// ordering=None)`: like [`CallForm::GetObjects`], but the type may also be written in the
    /// path form (`dcim/devices`), which code mode resolves to the endpoint.
    CodeModeGet,
    /// Code mode `get_by_id(type, id, fields=[])`: the type as in [`CallForm::CodeModeGet`].
    CodeModeGetById,
    /// Code mode `search(query, object_types=[], limit=5)`: each object type as in
    /// [`CallForm::CodeModeGet`].
    CodeModeSearch,
    /// pynetbox `nb.<app>.<endpoint>.filter/get/count(...)`: `None` is sent as `null`.
    Pynetbox,
    /// A REST URL with a query string.
    Url,
    /// Ansible `query('netbox.netbox.nb_lookup', '<term>', api_filter='k=v ...')` (also
    /// `lookup(...)`, `q(...)`): the collection sends the filters with pynetbox
    /// (`.filter(**{k: [v, ...]})`), so a repeated key is a list and every value a string.
    AnsibleLookup,
    /// A `device_query_filters` / `vm_query_filters` entry list of the Ansible inventory
    /// plugin `netbox.netbox.nb_inventory`: sent to one endpoint (urlencoded, repeated keys).
    Inventory,
    /// The inventory plugin's `query_filters`: sent to both `/api/dcim/devices/` (the call's
    /// target) and `/api/virtualization/virtual-machines/`; the plugin drops an entry that is
    /// no query parameter of one of them from that one's query (see `rest::inventory`).
    InventoryBoth,
    /// Filters written without an endpoint (`primary_ip4__isnull=false` or
    /// `{"id__in": [1, 2]}` in Markdown inline code of a NetBox document): only the lookups
    /// NetBox has on no endpoint are judged.
    Snippet,
}

impl CallForm {
    /// The MCP tool form a code-mode helper reads like (its checks of filters and arguments),
    /// or the form itself.
    pub fn tool_like(self) -> CallForm {
        match self {
            CallForm::CodeModeGet => CallForm::GetObjects,
            CallForm::CodeModeGetById => CallForm::GetObjectById,
            CallForm::CodeModeSearch => CallForm::SearchObjects,
            f => f,
        }
    }

    /// True for the code-mode helpers, whose object types may be written as paths
    /// (`dcim/devices`; netboxlabs/skills `code-mode-helpers.md`: "the path form also resolves").
    pub fn is_code_mode(self) -> bool {
        matches!(
            self,
            CallForm::CodeModeGet | CallForm::CodeModeGetById | CallForm::CodeModeSearch
        )
    }
}

/// A literal value as written in a filter dict or argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string (Python/JSON/YAML string, or any query-string value), unescaped; up to 24
    /// bytes held inline (most filter values: no allocation a value).
    Str(CompactString),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Python `None`, JSON/YAML `null`.
    Null,
    /// A list/tuple/sequence; each element with its host byte range.
    List(Vec<(Value, Range<usize>)>),
    /// A dict/mapping (not expected as a filter value).
    Map,
    /// Anything not a literal: a variable, call, f-string, expression. Never judged.
    Expr,
    /// Values the host joins into one string (Jinja `names | join(',')` glued to
    /// `'name__in='` in an Ansible `api_filter`): NetBox gets one value holding all of them.
    /// Boxed: rare, and twice the size of the other variants.
    Joined(Box<Joined>),
}

/// The separator of a [`Value::Joined`].
#[derive(Debug, Clone, PartialEq)]
pub struct Joined {
    /// The separator as the host writes it (`,`).
    pub separator: String,
    /// Host bytes of the separator's text (inside its quotes).
    pub separator_range: Range<usize>,
}

/// One `key: value` of a filter dict, keyword argument, or query-string pair.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterEntry {
    /// The key, unquoted (`device_role_id`); up to 24 bytes held inline.
    pub key: CompactString,
    /// Host bytes of the key text without quotes (replace it to rename the filter).
    pub key_range: Range<usize>,
    pub value: Value,
    /// Host bytes of the whole value literal, quotes included.
    pub value_range: Range<usize>,
}

// The calls read from a large file are held beside ruff's tree, a `FilterEntry` a filter: 88
// bytes with no allocation for a key or string value of up to 24 bytes (were 104 bytes and
// two allocations).
const _: () = assert!(std::mem::size_of::<Value>() == 32);
const _: () = assert!(std::mem::size_of::<FilterEntry>() == 88);

/// A named argument of a tool call other than the filters (`fields`, `limit`, `ordering`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    /// The argument's name (`fields`, `limit`); up to 24 bytes held inline.
    pub name: CompactString,
    /// Host bytes of the argument name (empty range at the value for positional arguments).
    pub name_range: Range<usize>,
    pub value: Value,
    pub value_range: Range<usize>,
}

/// A REST call with the filters it sends.
#[derive(Debug, Clone, PartialEq)]
pub struct RestCall {
    pub form: CallForm,
    pub syntax: Syntax,
    /// The object type or endpoint as written (`dcim.device`, `dcim/devices`, `/api/dcim/devices/`)
    /// and its host range (without quotes); `None` when not a literal.
    pub target: Option<(CompactString, Range<usize>)>,
    /// Host range of the whole call (for messages that concern the call).
    pub call_range: Range<usize>,
    /// Host range of the filters dict / argument list / query string, when there is one.
    pub filters_range: Option<Range<usize>>,
    /// The filters in order of appearance.
    pub filters: Vec<FilterEntry>,
    /// Other arguments (tool calls only).
    pub args: Vec<Argument>,
    /// The filter names are declared names of the program (a model's fields, a function's
    /// parameters), not keys written for this request: a fix renaming one is offered but never
    /// certain, since the name is used elsewhere in the code.
    pub declared: bool,
}

impl RestCall {
    /// The target as the index resolves it: for [`CallForm::OldGetObjects`] the endpoint the
    /// old server's map gives the name (`devices` → `dcim/devices`), else the target as
    /// written. `None` when the target is not a literal, or not a name of that map.
    pub fn endpoint_target(&self) -> Option<&str> {
        let (t, _) = self.target.as_ref()?;
        match self.form {
            CallForm::OldGetObjects => old_mcp::endpoint(t),
            _ => Some(t),
        }
    }
}

/// A GraphQL document embedded in (or forming) the host.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphqlDoc {
    /// The document text as GraphQL sees it (container prefixes and quotes removed).
    pub text: String,
    /// Maps byte offsets in `text` to byte offsets in the host.
    pub map: OffsetMap,
    /// A `variables` object given beside the query, as JSON, when it is a literal.
    pub variables: Option<serde_json::Value>,
    /// The ranges in `text` of the holes of a document built by a template (`{site}` of an
    /// f-string, `%s`, `$name`, a `.format` field), each written as `_`s: what stands there is
    /// known only at run time, so a finding is kept only when it does not depend on it (see
    /// `analysis`).
    pub holes: Vec<Range<usize>>,
    /// How the document was found: which ones are checked depends on it.
    pub found: DocFound,
}

/// How a GraphQL document was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DocFound {
    /// Sent by a call that carries GraphQL (a tool, `gql`, a POST body), written in a GraphQL
    /// fence or file, or marked `# netbox: graphql`: always checked.
    #[default]
    Carried,
    /// Known to be GraphQL, not known to be NetBox's: the body of a POST by a generic HTTP
    /// client (`requests.post(url, json={"query": ...})`, whose URL may be another API's), a
    /// string tagged as GraphQL (`#graphql` as its first line, or `/* GraphQL */` before the
    /// document). Checked when one of its root fields is NetBox's (or a near miss of one).
    Graphql,
    /// A string whose text parses as an executable document without a syntax error, sent to
    /// no call the tool knows: checked only when every root field is NetBox's and one of them
    /// is a list or takes an `id` (another API's document says nothing).
    Shape,
}

/// A unit of code that was not read (it nests deeper than the parsers and the walks of their
/// trees can take, see `parse::Refusal`; a notebook that is not JSON): its NetBox calls are not checked, which the analysis
/// reports as a `not-checked` error rather than passing it.
#[derive(Debug, Clone, PartialEq)]
pub struct NotChecked {
    /// Host byte range of the unit.
    pub range: Range<usize>,
    /// Why, as a clause about the code (`this code nests deeper than netbox-lsp reads …`,
    /// `this notebook is not valid JSON: …`).
    pub reason: String,
    /// What to do to have it checked, a sentence (`Flatten the nesting to have it checked.`).
    pub advice: String,
}

/// Something checkable found in a host document.
#[derive(Debug, Clone, PartialEq)]
pub enum Site {
    Rest(RestCall),
    Graphql(GraphqlDoc),
    /// A unit that could not be read: reported, never passed.
    NotChecked(NotChecked),
}

/// What extraction found in one host document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extraction {
    pub sites: Vec<Site>,
    /// Host byte ranges of Markdown fenced code blocks (fence lines included) and of indented
    /// code blocks that hold calls, so that a suppression comment right before a block can
    /// cover the whole block.
    pub blocks: Vec<Range<usize>>,
}

/// The calls and GraphQL documents of one unit of code of language `kind` (Python, JSON or
/// YAML; Markdown and text give nothing) whose text starts at host offset `host_start`, read
/// by the same extractors as whole documents (for the server's completion and hover, which read
/// the unit under the cursor). URLs in prose are not scanned.
pub fn calls_in(text: &str, host_start: usize, kind: HostKind) -> Vec<Site> {
    let map = OffsetMap::identity(host_start, text.len());
    match kind {
        HostKind::Python => python::extract_calls(text, &map),
        HostKind::Json => json::extract_calls(text, &map),
        HostKind::Yaml => yaml::extract_calls(text, &map),
        _ => Vec::new(),
    }
}

/// The text that closes every bracket and string still open at the end of `text`, a unit of
/// `kind` (Python comments and strings for Python, JSON/YAML flow rules otherwise).
pub fn closers_for(text: &str, kind: HostKind) -> String {
    parse::closers(text, kind == HostKind::Python)
}

/// [`closers_for`] for Python.
pub fn closers_python(text: &str) -> String {
    parse::closers(text, true)
}

/// True when the string value `s` of filter `key` is a template placeholder, not a value a
/// user would send: `<id>`, `<site id>`, `{site_id}`, `{{ site_id }}`, `$SITE_ID`, `${SITE}`,
/// `{1}` (an f-string's field), `...`, `…`, or the key in capitals (`site_id=SITE_ID`); not a
/// regular expression's quantifier after something (`^sw[0-9]{2}$`). Such values are never judged
/// (extractors turn them into [`Value::Expr`]).
pub fn is_placeholder(s: &str, key: &str) -> bool {
    // Every form below needs one of these bytes (`…` starts with 0xE2): most values hold none,
    // and are answered by one pass over their bytes.
    if !s.bytes().any(|b| PLACEHOLDER_BYTE[b as usize]) {
        return false;
    }
    let t = s.trim();
    // A quantifier repeats what comes before it: a value that opens with a brace group has
    // nothing there, and is a template field (`role_id={1}` from an f-string's `{1}`).
    if (t.contains(['{', '}']) && (t.starts_with('{') || !only_quantifiers(t)))
        || matches!(t, "..." | "…")
    {
        return true;
    }
    if let Some(rest) = t.strip_prefix('$') {
        if rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '{') {
            return true;
        }
    }
    if let Some(open) = t.find('<') {
        let after = &t[open + 1..];
        if let Some(close) = after.find('>') {
            let inner = &after[..close];
            if (1..=64).contains(&inner.len())
                && !inner.contains('<')
                && inner.chars().any(|c| c.is_alphanumeric())
            {
                return true;
            }
        }
    }
    t.len() >= 2
        && t.bytes().any(|b| b.is_ascii_uppercase())
        && key.bytes().any(|b| b.is_ascii_lowercase())
        && t == key.to_ascii_uppercase()
}

/// The bytes one of which every placeholder of [`is_placeholder`] holds: `{`, `}`, `$`, `<`,
/// `.`, 0xE2 (the first byte of `…`) and the ASCII capitals; a table, one load a byte.
const PLACEHOLDER_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = matches!(b, b'{' | b'}' | b'$' | b'<' | b'.' | 0xE2) || b.is_ascii_uppercase();
        i += 1;
    }
    t
};

/// True when every brace in `t` belongs to a regular-expression quantifier (`{2}`, `{2,}`,
/// `{2,4}`: digits and commas only), which names nothing and so is no template placeholder
/// (`name__regex=^sw[0-9]{2}$` is checked as a value).
fn only_quantifiers(t: &str) -> bool {
    let mut rest = t;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return false;
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return false;
        };
        let inner = &after[..close];
        if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit() || b == b',') {
            return false;
        }
        rest = &after[close + 1..];
    }
    true
}

/// `value` with placeholder strings (see [`is_placeholder`]) turned into [`Value::Expr`], also
/// inside lists.
pub(crate) fn unjudged(value: &Value, key: &str) -> Value {
    match value {
        Value::Str(s) if is_placeholder(s, key) => Value::Expr,
        Value::List(items) => Value::List(
            items
                .iter()
                .map(|(v, r)| (unjudged(v, key), r.clone()))
                .collect(),
        ),
        v => v.clone(),
    }
}

/// [`unjudged`] of a value the caller owns (no copy of what stays as it is).
pub(crate) fn unjudged_owned(value: Value, key: &str) -> Value {
    match value {
        Value::Str(s) if is_placeholder(&s, key) => Value::Expr,
        Value::List(items) => Value::List(
            items
                .into_iter()
                .map(|(v, r)| (unjudged_owned(v, key), r))
                .collect(),
        ),
        v => v,
    }
}

#[cfg(test)]
thread_local! {
    /// How many host documents this thread extracted (tests: a consumer that has a document's
    /// extraction does not extract it again).
    pub(crate) static EXTRACTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Extracts every REST call and GraphQL document from `text`, a host document of kind `kind`.
/// Never panics; malformed regions yield nothing.
pub fn extract(text: &str, kind: HostKind) -> Extraction {
    #[cfg(test)]
    EXTRACTED.with(|n| n.set(n.get() + 1));
    match kind {
        HostKind::Markdown => markdown::extract(text),
        HostKind::Python => Extraction {
            sites: python::extract(text, &OffsetMap::identity(0, text.len())),
            blocks: Vec::new(),
        },
        HostKind::Yaml => Extraction {
            sites: yaml::extract(text, &OffsetMap::identity(0, text.len())),
            blocks: Vec::new(),
        },
        HostKind::Json => Extraction {
            sites: json::extract(text, &OffsetMap::identity(0, text.len())),
            blocks: Vec::new(),
        },
        HostKind::Graphql => Extraction {
            sites: vec![Site::Graphql(GraphqlDoc {
                text: text.to_string(),
                map: OffsetMap::identity(0, text.len()),
                variables: None,
                holes: Vec::new(),
                found: DocFound::Carried,
            })],
            blocks: Vec::new(),
        },
        HostKind::Text => Extraction {
            sites: text_sites(text, &OffsetMap::identity(0, text.len())),
            blocks: Vec::new(),
        },
        HostKind::Notebook => Extraction {
            sites: notebook::extract(text),
            blocks: Vec::new(),
        },
    }
}

/// The sites of a text host (prose, prompt templates, shell scripts): REST URLs, curl, wget
/// and httpie commands (which replace the URL scan's site of their URL) and Ansible
/// `nb_lookup` calls in Jinja (`.j2` templates).
fn text_sites(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut sites = commands::extract(text, map);
    commands::merge_urls(&mut sites, text::extract(text, map));
    sites.extend(ansible::lookups(text, map));
    sites
}

/// Adds to `sites` the sites of `more` (from a re-parse of half-typed text with its open
/// brackets closed) that do not start where a site already found starts (nor where an earlier
/// site of `more` starts). One hash lookup per site: a file of 100,000 calls passes here twice.
pub(crate) fn add_missing(sites: &mut Vec<Site>, more: Vec<Site>) {
    let start = |s: &Site| match s {
        Site::Rest(c) => (0, c.call_range.start),
        Site::Graphql(d) => (1, d.map.to_host(0)),
        Site::NotChecked(n) => (2, n.range.start),
    };
    if more.is_empty() {
        return;
    }
    // Starts that only grow along `sites` then `more` (calls read in source order) have no
    // repeat: no set is needed.
    let mut last = None;
    let rising = sites.iter().chain(&more).all(|s| {
        let k = Some(start(s));
        let up = last < k;
        last = k;
        up
    });
    if rising {
        if sites.is_empty() {
            // The sites themselves, not a copy of each into an empty list.
            *sites = more;
            return;
        }
        sites.extend(more);
        return;
    }
    let mut seen: std::collections::HashSet<(u8, usize)> = sites.iter().map(start).collect();
    sites.reserve(more.len());
    for site in more {
        if seen.insert(start(&site)) {
            sites.push(site);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_at(start: usize, target: &str) -> Site {
        Site::Rest(RestCall {
            form: CallForm::GetObjects,
            syntax: Syntax::Python,
            target: Some((target.into(), start..start + 1)),
            call_range: start..start + 10,
            filters_range: None,
            filters: Vec::new(),
            args: Vec::new(),
            declared: false,
        })
    }

    fn doc_at(start: usize) -> Site {
        Site::Graphql(GraphqlDoc {
            text: "{ a }".into(),
            map: OffsetMap::identity(start, 5),
            variables: None,
            holes: Vec::new(),
            found: DocFound::Carried,
        })
    }

    #[test]
    fn add_missing_keeps_the_first_site_per_start_in_order() {
        let mut sites = vec![call_at(0, "a"), doc_at(20)];
        // 0 is taken by a call (the repaired one is dropped); a document at 0 is another kind;
        // 30 comes twice in `more`: the first one is kept; 20 is taken by a document.
        let more = vec![
            call_at(0, "b"),
            doc_at(0),
            call_at(30, "c"),
            call_at(30, "d"),
            call_at(20, "e"),
            doc_at(20),
        ];
        add_missing(&mut sites, more);
        assert_eq!(
            sites,
            vec![
                call_at(0, "a"),
                doc_at(20),
                doc_at(0),
                call_at(30, "c"),
                call_at(20, "e"),
            ]
        );
    }

    /// Starts that only grow take the path without a set: the same sites in the same order.
    #[test]
    fn add_missing_with_rising_starts_keeps_them_all() {
        let mut sites = vec![call_at(0, "a")];
        add_missing(
            &mut sites,
            vec![call_at(5, "b"), doc_at(1), call_at(9, "c")],
        );
        let targets: Vec<_> = sites
            .iter()
            .map(|s| match s {
                Site::Rest(c) => c.target.as_ref().map_or("", |t| t.0.as_str()),
                _ => "doc",
            })
            .collect();
        assert_eq!(targets, ["a", "b", "doc", "c"]);
        let mut sites = Vec::new();
        add_missing(
            &mut sites,
            vec![call_at(3, "a"), call_at(3, "b"), call_at(1, "c")],
        );
        assert_eq!(sites, vec![call_at(3, "a"), call_at(1, "c")]);
    }
}
