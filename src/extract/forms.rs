//! The call-form table: every way a NetBox REST call or GraphQL document is carried in Python
//! (MCP tools, their LangChain and MCP-client wrappers, code mode, pynetbox, HTTP clients, GraphQL
//! helpers), the tool names of JSON/YAML tool-call objects, and the Ansible, curl and URL forms
//! of other hosts, as data. For each form: how it is called, what it carries, where its object
//! type, endpoint or document is, where its filters or variables are, and how its values reach
//! NetBox. The Python extractor ([`super::python`]) recognises calls only through this table; the
//! server's completion and hover read the same extraction (on the error-tolerant parse of the
//! unit under the cursor), so a form added here is checked, completed and hovered alike.
//!
//! Sources: NetBox MCP server v1.2.1 `server.py` (tool signatures), and its first releases'
//! `server.py` for `get_objects` (see [`super::old_mcp`]); NetBox Labs Platform MCP
//! "code mode" helpers as published in netboxlabs/skills
//! `skills/netboxlabs-platform-mcp/references/code-mode-helpers.md` (`get(type, filters={},
//! fields=[], limit=50, offset=0, ordering=None)`, `get_by_id(type, id, fields=[])`,
//! `search(query, object_types=[], limit=5)`, `changelogs(filters={}, limit=50, offset=0)`,
//! `graphql(query, variables=None, analyze=True)`, `api(method, endpoint, params=None,
//! data=None)`); pynetbox 7 `core/endpoint.py`; requests / httpx / aiohttp / urllib docs;
//! LangChain `BaseTool.invoke(input)` / `run(tool_input)`; the MCP Python SDK
//! `ClientSession.call_tool(name, arguments)`; graphql-python/gql `gql(request_string)`.

use super::CallForm;

/// What a form's call carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Carries {
    /// A REST call of this form.
    Rest(CallForm),
    /// A GraphQL document (and its variables).
    Graphql,
    /// A call of the MCP tool the call names (by its receiver or an argument), read as that
    /// tool's row reads its arguments.
    NamedTool,
}

/// The host language a form is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    /// Python: `.py` files, notebooks' code cells, Python fences and inline code of Markdown,
    /// calls in prompts and other text.
    Python,
    /// Python, and the tool-call objects of JSON and YAML (`{"name": ..., "arguments": ...}`).
    PythonAndToolCalls,
    /// Jinja expressions, in YAML values (playbooks) and in templates (`.j2`).
    Jinja,
    /// A YAML document (an Ansible inventory source).
    Yaml,
    /// A shell command line: scripts, shell fences of Markdown, text.
    Shell,
    /// Any text: prose, strings, comments, command lines.
    Text,
}

/// How the call is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Callee {
    /// An MCP tool name, called bare or on any object and in any casing or namespace
    /// (`netbox_get_objects`, `tools.netboxGetObjects`, `mcp__netbox__netbox_get_objects`).
    Tool(&'static [&'static str]),
    /// A method of an MCP tool object, the receiver named as a tool in any casing or namespace
    /// (LangChain `netbox_get_objects.invoke({...})`, `tools.netbox_get_objects.ainvoke(...)`).
    ToolMethod(&'static [&'static str]),
    /// A function called by its bare name only (`get(...)`, never `x.get(...)`).
    Bare(&'static str),
    /// A method of any receiver (`requests.get`, `session.get`, `client.get`).
    Method(&'static str),
    /// A bare function or a method of any receiver (`urlopen`, `urllib.request.urlopen`), also
    /// under another name it was imported as (`from gql import gql as q`).
    Function(&'static str),
    /// A function called by one of these qualified names, whatever it is called here: the
    /// module's imports say (`from requests import get as http_get` → `requests.get`).
    Qualified(&'static [&'static str]),
    /// pynetbox `<api>.<app>.<endpoint>.<method>` or `<api>.plugins.<plugin>.<endpoint>.<method>`.
    Chain(&'static str),
    /// Any function or method (a project's own client wrapper: `self._get`, `api_get`,
    /// `client.request`); the target must then name a NetBox endpoint by itself.
    Any,
    /// A Jinja call of an Ansible lookup plugin: one of `calls` whose first argument is a
    /// string literal holding one of `plugins` (`query('netbox.netbox.nb_lookup', ...)`).
    Lookup {
        calls: &'static [&'static str],
        plugins: &'static [&'static str],
    },
    /// A YAML mapping whose `plugin:` is one of these names (an Ansible inventory source).
    InventoryPlugin(&'static [&'static str]),
    /// A shell command called by one of `names` (its words read as the shell reads them,
    /// `super::shell`), sending its data as a query string with one of the `get` options
    /// (`curl -G`; none for a command whose filters are in the URL or its own items).
    Command {
        names: &'static [&'static str],
        get: &'static [&'static str],
    },
    /// A REST URL `/api/<app>/<endpoint>/?<query>` anywhere in the text.
    Url,
}

/// Where the object type or endpoint is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TargetAt {
    /// The `object_type` argument (first positional, or the keyword of the signature).
    ObjectType,
    /// A fixed endpoint (`core/object-changes`).
    Fixed(&'static str),
    /// A URL argument at this positional index or keyword: the path `/api/<app>/<endpoint>/`
    /// in it, or `/<app>/<endpoint>/` after an interpolated or concatenated base that ends in
    /// `/api` (f-strings, `+`, `urljoin`).
    Url(usize, &'static str),
    /// An endpoint path relative to `/api/` at this positional index or keyword
    /// (`api("GET", "/dcim/devices/", params=...)`).
    ApiPath(usize, &'static str),
    /// The pynetbox attribute chain.
    Chain,
    /// A string literal at this positional index that names a NetBox endpoint by itself:
    /// `/api/<app>/<endpoint>/` (with or without scheme and host) for a NetBox app, or
    /// `<app>/<endpoint>/` for an endpoint the table of known endpoints holds (client
    /// wrappers: `self._get("/api/dcim/devices/", params=...)`, `client.get("dcim/devices/")`).
    WrapperPath(usize),
    /// None (searches across object types).
    Nothing,
    /// The tool the receiver names ([`Callee::ToolMethod`]): what that tool's row reads.
    Receiver,
    /// A string naming the tool at this positional index or keyword
    /// (`call_tool("netbox_get_objects", ...)`): what that tool's row reads.
    ToolName(usize, &'static str),
    /// A GraphQL document: the argument `arg` of the signature (positional or keyword), or the
    /// key `key` of that argument when it is a dict (`json={"query": ...}`).
    Document {
        arg: &'static str,
        key: Option<&'static str>,
    },
    /// Ansible lookup terms: every positional argument after the plugin name, in the
    /// collection's own endpoint names (`devices`, `ip-addresses`; see
    /// [`super::terms::TERMS`]); with keyword `plugin_kw` a plugin's endpoint.
    Terms { plugin_kw: &'static str },
    /// Two fixed endpoints, both sent the same filters (the call's target is the first).
    Both(&'static str, &'static str),
    /// The command's URL word (the one holding `/api/`, or the argument of `url_option`).
    UrlWord { url_option: &'static str },
    /// The URL's own path.
    UrlPath,
}

/// Where the filters are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FiltersAt {
    /// The `filters` argument of the signature (positional or keyword).
    Filters,
    /// A dict argument given by keyword (`params=`), plus the URL's own query string. A name
    /// bound to a dict literal just above in the same block is read through.
    Params(&'static str),
    /// As [`FiltersAt::Params`], or a dict literal given right after the path
    /// (`api_get("/api/ipam/prefixes/", {...})`) when the callee's name reads like a read
    /// (`get`, `list`, `fetch`, `query`, `search`, `find`, `filter`).
    ParamsOrNext(&'static str),
    /// Keyword arguments and `**dict` splats (also a `**name` bound to a dict literal just
    /// above); the first positional argument is `q`.
    Kwargs,
    /// None.
    Nothing,
    /// A keyword argument holding a string of space-separated `k=v` words (Ansible
    /// `split_args` + `parse_kv`: a value may be quoted, `name="core 1"`).
    Words(&'static str),
    /// This key of the YAML document: a list of one-key mappings (`- status: active`).
    YamlList(&'static str),
    /// The URL's query string, then the argument of each `data` option (`k=v&k=v` pairs as
    /// written) and of each `urlencode` option (`k=content`, content encoded by the command).
    Data {
        data: &'static [&'static str],
        urlencode: &'static [&'static str],
    },
    /// The URL's query string, then each request item `name<separator>value` after the URL
    /// (httpie's `name==value`: the value encoded by the command).
    Items { separator: &'static str },
    /// The URL's query string (`?k=v&k=v`).
    Query,
    /// A dict of the named tool's arguments at this positional index, or at `keyword`.
    ToolArguments {
        at: usize,
        keyword: Option<&'static str>,
    },
    /// GraphQL variables: a dict in the argument `arg` of the signature, or in its key `key`
    /// (as [`TargetAt::Document`]).
    Variables {
        arg: &'static str,
        key: Option<&'static str>,
    },
}

/// How values reach NetBox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// The MCP server passes the dict to pynetbox: lists become repeated keys, `None` is
    /// dropped before the request (netbox-facts §4.1).
    McpJson,
    /// pynetbox: lists become repeated keys, `None` is sent as `null`.
    Pynetbox,
    /// An HTTP client's query parameters: lists become repeated keys (requests, httpx,
    /// aiohttp, `urlencode(..., doseq=True)`), `None` drops the key (requests, httpx).
    Query,
    /// Ansible `api_filter`: every value a string; a repeated key becomes a list, sent by
    /// pynetbox as repeated keys ([`super::Syntax::ApiFilter`]).
    ApiFilter,
    /// nb_inventory: each entry url-encoded as Python's `str()` of its YAML value (`true` →
    /// `True`), repeated entries as repeated keys; a key that is no query parameter of the
    /// endpoint is dropped by the plugin with a warning.
    Inventory,
    /// As written: query pairs as they stand in the URL (percent-encoded by the writer), a
    /// repeated key a list (curl `--data-urlencode` values are encoded by curl: see
    /// [`FiltersAt::Data`]).
    Written,
    /// A GraphQL request: the document and its variables as JSON (`POST /graphql/`).
    Graphql,
}

/// Extra condition a match must meet, for names too common to trust alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    /// None.
    Always,
    /// The object type is a literal shaped like a NetBox one (`dcim.site`, `dcim/sites`).
    ObjectTypeShape,
    /// The call has a `filters` argument (keyword, or a dict as first positional).
    HasFilters,
    /// The call has an `object_types` keyword.
    HasObjectTypes,
    /// The `object_type` is a string literal that reads as a name of the old MCP server's map
    /// ([`super::old_mcp::reads_as_name`]) and `filters` is a dict literal: checked by
    /// [`super::tools::build`], for every host.
    OldServerName,
    /// The method argument (first positional or `method=`) is `"GET"`.
    MethodGet,
    /// The callee's name does not read like a write (`post`, `put`, `patch`, `delete`,
    /// `create`, `update`, `remove`): its dict would be a body, not filters.
    NotWrite,
}

/// Words of a callee name that make it a write: its dict is a body, not filters.
pub(crate) const WRITE_WORDS: &[&str] = &[
    "post", "put", "patch", "delete", "create", "update", "remove", "add", "set",
];

/// Words of a callee name that make a positional dict after the path its query parameters.
pub(crate) const READ_WORDS: &[&str] = &[
    "get", "list", "fetch", "query", "search", "find", "filter", "read",
];

/// True when the snake/camel-case callee `name` holds one of `words` as a word
/// (`_api_get`, `getDevices`, `list_all`), not inside another word (`target`, `offset`).
pub(crate) fn name_has_word(name: &str, words: &[&str]) -> bool {
    // The words are cut at `_` and `.` (dropped) and before an ASCII capital that follows a
    // letter of the word, and compared lower-cased; bytes, not chars: a non-ASCII character's
    // bytes are none of these and compare as themselves. No word is copied.
    let b = name.as_bytes();
    let is = |word: &[u8]| {
        words
            .iter()
            .any(|w| w.as_bytes().eq_ignore_ascii_case(word))
    };
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' || c == b'.' {
            if is(&b[start..i]) {
                return true;
            }
            start = i + 1;
        } else if c.is_ascii_uppercase() && i > start {
            if is(&b[start..i]) {
                return true;
            }
            start = i;
        }
    }
    is(&b[start..])
}

/// One call form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Form {
    /// Short name, for tests and docs (`requests`, `code-mode get`).
    pub name: &'static str,
    pub host: Host,
    pub callee: Callee,
    pub carries: Carries,
    /// Positional parameter names, in order (the signature).
    pub params: &'static [&'static str],
    pub target: TargetAt,
    pub filters: FiltersAt,
    pub sent: Sent,
    pub guard: Guard,
}

const GET_OBJECTS: &[&str] = &[
    "object_type",
    "filters",
    "fields",
    "brief",
    "limit",
    "offset",
    "ordering",
];

/// The GraphQL tool's and code mode's `query` argument.
const QUERY_DOCUMENT: TargetAt = TargetAt::Document {
    arg: "query",
    key: None,
};

/// The GraphQL tool's and code mode's `variables` argument.
const VARIABLES: FiltersAt = FiltersAt::Variables {
    arg: "variables",
    key: None,
};

/// The table. Order matters where spellings overlap: the first match wins.
pub(crate) const FORMS: &[Form] = &[
    Form {
        name: "MCP netbox_get_objects",
        host: Host::PythonAndToolCalls,
        callee: Callee::Tool(&["netbox_get_objects"]),
        carries: Carries::Rest(CallForm::GetObjects),
        params: GET_OBJECTS,
        target: TargetAt::ObjectType,
        filters: FiltersAt::Filters,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP netbox_get_changelogs",
        host: Host::PythonAndToolCalls,
        callee: Callee::Tool(&["netbox_get_changelogs"]),
        carries: Carries::Rest(CallForm::GetChangelogs),
        params: &["filters"],
        target: TargetAt::Fixed(super::CHANGELOG_TARGET),
        filters: FiltersAt::Filters,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP netbox_get_object_by_id",
        host: Host::PythonAndToolCalls,
        callee: Callee::Tool(&["netbox_get_object_by_id"]),
        carries: Carries::Rest(CallForm::GetObjectById),
        params: &["object_type", "object_id", "fields", "brief"],
        target: TargetAt::ObjectType,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP netbox_search_objects",
        host: Host::PythonAndToolCalls,
        callee: Callee::Tool(&["netbox_search_objects"]),
        carries: Carries::Rest(CallForm::SearchObjects),
        params: &["query", "object_types", "fields", "limit"],
        target: TargetAt::Nothing,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP netbox_graphql",
        host: Host::PythonAndToolCalls,
        callee: Callee::Tool(&["netbox_graphql", "netbox_graphql_query"]),
        carries: Carries::Graphql,
        params: &["query", "variables"],
        target: QUERY_DOCUMENT,
        filters: VARIABLES,
        sent: Sent::Graphql,
        guard: Guard::Always,
    },
    Form {
        name: "MCP get_objects (netbox-mcp-server before 2025-04-30)",
        host: Host::PythonAndToolCalls,
        callee: Callee::Tool(&["get_objects"]),
        carries: Carries::Rest(CallForm::OldGetObjects),
        params: &["object_type", "filters"],
        target: TargetAt::ObjectType,
        filters: FiltersAt::Filters,
        sent: Sent::Query,
        guard: Guard::OldServerName,
    },
    Form {
        name: "LangChain tool invoke",
        host: Host::Python,
        callee: Callee::ToolMethod(&["invoke", "ainvoke", "run", "arun", "call"]),
        carries: Carries::NamedTool,
        params: &["input"],
        target: TargetAt::Receiver,
        filters: FiltersAt::ToolArguments {
            at: 0,
            keyword: None,
        },
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP client call_tool",
        host: Host::Python,
        callee: Callee::Function("call_tool"),
        carries: Carries::NamedTool,
        params: &["name", "arguments"],
        target: TargetAt::ToolName(0, "name"),
        filters: FiltersAt::ToolArguments {
            at: 1,
            keyword: Some("arguments"),
        },
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "gql",
        host: Host::Python,
        callee: Callee::Function("gql"),
        carries: Carries::Graphql,
        params: &["request_string"],
        target: TargetAt::Document {
            arg: "request_string",
            key: None,
        },
        filters: FiltersAt::Nothing,
        sent: Sent::Graphql,
        guard: Guard::Always,
    },
    Form {
        name: "code-mode get",
        host: Host::Python,
        callee: Callee::Bare("get"),
        carries: Carries::Rest(CallForm::CodeModeGet),
        params: &[
            "object_type",
            "filters",
            "fields",
            "limit",
            "offset",
            "ordering",
        ],
        target: TargetAt::ObjectType,
        filters: FiltersAt::Filters,
        sent: Sent::McpJson,
        guard: Guard::ObjectTypeShape,
    },
    Form {
        name: "code-mode get_by_id",
        host: Host::Python,
        callee: Callee::Bare("get_by_id"),
        carries: Carries::Rest(CallForm::CodeModeGetById),
        params: &["object_type", "object_id", "fields"],
        target: TargetAt::ObjectType,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::ObjectTypeShape,
    },
    Form {
        name: "code-mode changelogs",
        host: Host::Python,
        callee: Callee::Bare("changelogs"),
        carries: Carries::Rest(CallForm::GetChangelogs),
        params: &["filters", "limit", "offset"],
        target: TargetAt::Fixed(super::CHANGELOG_TARGET),
        filters: FiltersAt::Filters,
        sent: Sent::McpJson,
        guard: Guard::HasFilters,
    },
    Form {
        name: "code-mode search",
        host: Host::Python,
        callee: Callee::Bare("search"),
        carries: Carries::Rest(CallForm::CodeModeSearch),
        params: &["query", "object_types", "limit"],
        target: TargetAt::Nothing,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::HasObjectTypes,
    },
    Form {
        name: "code-mode graphql",
        host: Host::Python,
        callee: Callee::Bare("graphql"),
        carries: Carries::Graphql,
        params: &["query", "variables"],
        target: QUERY_DOCUMENT,
        filters: VARIABLES,
        sent: Sent::Graphql,
        guard: Guard::Always,
    },
    Form {
        name: "code-mode api",
        host: Host::Python,
        callee: Callee::Bare("api"),
        carries: Carries::Rest(CallForm::Url),
        params: &["method", "endpoint", "params", "data"],
        target: TargetAt::ApiPath(1, "endpoint"),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::MethodGet,
    },
    Form {
        name: "pynetbox filter",
        host: Host::Python,
        callee: Callee::Chain("filter"),
        carries: Carries::Rest(CallForm::Pynetbox),
        params: &["q"],
        target: TargetAt::Chain,
        filters: FiltersAt::Kwargs,
        sent: Sent::Pynetbox,
        guard: Guard::Always,
    },
    Form {
        name: "pynetbox count",
        host: Host::Python,
        callee: Callee::Chain("count"),
        carries: Carries::Rest(CallForm::Pynetbox),
        params: &["q"],
        target: TargetAt::Chain,
        filters: FiltersAt::Kwargs,
        sent: Sent::Pynetbox,
        guard: Guard::Always,
    },
    Form {
        name: "pynetbox get",
        host: Host::Python,
        callee: Callee::Chain("get"),
        carries: Carries::Rest(CallForm::Pynetbox),
        params: &["id"],
        target: TargetAt::Chain,
        filters: FiltersAt::Kwargs,
        sent: Sent::Pynetbox,
        guard: Guard::Always,
    },
    Form {
        name: "HTTP get (requests, httpx, aiohttp, Session, Client, AsyncClient)",
        host: Host::Python,
        callee: Callee::Method("get"),
        carries: Carries::Rest(CallForm::Url),
        params: &["url", "params"],
        target: TargetAt::Url(0, "url"),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::Always,
    },
    Form {
        name: "HTTP get, imported by name (`from requests import get`)",
        host: Host::Python,
        callee: Callee::Qualified(&["requests.get", "httpx.get"]),
        carries: Carries::Rest(CallForm::Url),
        params: &["url", "params"],
        target: TargetAt::Url(0, "url"),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::Always,
    },
    Form {
        name: "HTTP request(\"GET\", ...) (requests, httpx, aiohttp)",
        host: Host::Python,
        callee: Callee::Method("request"),
        carries: Carries::Rest(CallForm::Url),
        params: &["method", "url", "params"],
        target: TargetAt::Url(1, "url"),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::MethodGet,
    },
    Form {
        name: "client wrapper, method then path",
        host: Host::Python,
        callee: Callee::Any,
        carries: Carries::Rest(CallForm::Url),
        params: &["method", "path", "params"],
        target: TargetAt::WrapperPath(1),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::MethodGet,
    },
    Form {
        name: "urllib urlopen",
        host: Host::Python,
        callee: Callee::Function("urlopen"),
        carries: Carries::Rest(CallForm::Url),
        params: &["url"],
        target: TargetAt::Url(0, "url"),
        filters: FiltersAt::Nothing,
        sent: Sent::Query,
        guard: Guard::Always,
    },
    Form {
        name: "urllib Request",
        host: Host::Python,
        callee: Callee::Function("Request"),
        carries: Carries::Rest(CallForm::Url),
        params: &["url"],
        target: TargetAt::Url(0, "url"),
        filters: FiltersAt::Nothing,
        sent: Sent::Query,
        guard: Guard::Always,
    },
    Form {
        name: "client wrapper, path first",
        host: Host::Python,
        callee: Callee::Any,
        carries: Carries::Rest(CallForm::Url),
        params: &["path", "params"],
        target: TargetAt::WrapperPath(0),
        filters: FiltersAt::ParamsOrNext("params"),
        sent: Sent::Query,
        guard: Guard::NotWrite,
    },
    Form {
        name: "GraphQL over HTTP POST (requests, httpx, aiohttp)",
        host: Host::Python,
        callee: Callee::Method("post"),
        carries: Carries::Graphql,
        params: &["url"],
        target: TargetAt::Document {
            arg: "json",
            key: Some("query"),
        },
        filters: FiltersAt::Variables {
            arg: "json",
            key: Some("variables"),
        },
        sent: Sent::Graphql,
        guard: Guard::Always,
    },
    Form {
        name: "GraphQL over HTTP POST, imported by name (`from requests import post`)",
        host: Host::Python,
        callee: Callee::Qualified(&["requests.post", "httpx.post"]),
        carries: Carries::Graphql,
        params: &["url"],
        target: TargetAt::Document {
            arg: "json",
            key: Some("query"),
        },
        filters: FiltersAt::Variables {
            arg: "json",
            key: Some("variables"),
        },
        sent: Sent::Graphql,
        guard: Guard::Always,
    },
    NB_LOOKUP,
    Form {
        name: "Ansible nb_inventory query_filters",
        host: Host::Yaml,
        callee: INVENTORY_PLUGIN,
        carries: Carries::Rest(CallForm::InventoryBoth),
        params: &[],
        target: TargetAt::Both(
            "/api/dcim/devices/",
            "/api/virtualization/virtual-machines/",
        ),
        filters: FiltersAt::YamlList("query_filters"),
        sent: Sent::Inventory,
        guard: Guard::Always,
    },
    Form {
        name: "Ansible nb_inventory device_query_filters",
        host: Host::Yaml,
        callee: INVENTORY_PLUGIN,
        carries: Carries::Rest(CallForm::Inventory),
        params: &[],
        target: TargetAt::Fixed("/api/dcim/devices/"),
        filters: FiltersAt::YamlList("device_query_filters"),
        sent: Sent::Inventory,
        guard: Guard::Always,
    },
    Form {
        name: "Ansible nb_inventory vm_query_filters",
        host: Host::Yaml,
        callee: INVENTORY_PLUGIN,
        carries: Carries::Rest(CallForm::Inventory),
        params: &[],
        target: TargetAt::Fixed("/api/virtualization/virtual-machines/"),
        filters: FiltersAt::YamlList("vm_query_filters"),
        sent: Sent::Inventory,
        guard: Guard::Always,
    },
    CURL_GET,
    CURL,
    WGET,
    HTTPIE,
    Form {
        name: "REST URL with a query string (prose, strings, comments, curl)",
        host: Host::Text,
        callee: Callee::Url,
        carries: Carries::Rest(CallForm::Url),
        params: &[],
        target: TargetAt::UrlPath,
        filters: FiltersAt::Query,
        sent: Sent::Written,
        guard: Guard::Always,
    },
];

/// Ansible `netbox.netbox.nb_lookup` (netbox-community/ansible_modules 3.22.0
/// `plugins/lookup/nb_lookup.py`): read by [`super::ansible::lookups`] from this row.
pub(crate) const NB_LOOKUP: Form = Form {
    name: "Ansible nb_lookup",
    host: Host::Jinja,
    callee: Callee::Lookup {
        calls: &["query", "lookup", "q"],
        plugins: &["netbox.netbox.nb_lookup", "nb_lookup"],
    },
    carries: Carries::Rest(CallForm::AnsibleLookup),
    params: &["plugin name", "term"],
    target: TargetAt::Terms {
        plugin_kw: "plugin",
    },
    filters: FiltersAt::Words("api_filter"),
    sent: Sent::ApiFilter,
    guard: Guard::Always,
};

/// The `netbox.netbox.nb_inventory` plugin names (`plugins/inventory/nb_inventory.py`).
pub(crate) const INVENTORY_PLUGIN: Callee =
    Callee::InventoryPlugin(&["netbox.netbox.nb_inventory", "nb_inventory"]);

/// `curl -G <url> -d k=v` (curl(1), `-G, --get`): read by [`super::curl`] from this row.
pub(crate) const CURL_GET: Form = Form {
    name: "curl -G with data",
    host: Host::Shell,
    callee: Callee::Command {
        names: &["curl"],
        get: &["-G", "--get"],
    },
    carries: Carries::Rest(CallForm::Url),
    params: &[],
    target: TargetAt::UrlWord {
        url_option: "--url",
    },
    filters: FiltersAt::Data {
        data: &[
            "-d",
            "--data",
            "--data-ascii",
            "--data-binary",
            "--data-raw",
        ],
        urlencode: &["--data-urlencode"],
    },
    sent: Sent::Written,
    guard: Guard::Always,
};

/// `curl <url>`: the URL word as the shell passes it to curl (quotes removed, escapes read:
/// `curl "…?name='x'"` sends the quotes, `curl …?name='x'` does not), read by [`super::curl`].
pub(crate) const CURL: Form = Form {
    name: "curl, URL word as the shell reads it",
    host: Host::Shell,
    callee: Callee::Command {
        names: &["curl"],
        get: &[],
    },
    carries: Carries::Rest(CallForm::Url),
    params: &[],
    target: TargetAt::UrlWord {
        url_option: "--url",
    },
    filters: FiltersAt::Query,
    sent: Sent::Written,
    guard: Guard::Always,
};

/// `wget <url>` (GNU Wget manual, "Invoking"): each URL word as the shell passes it, read by
/// [`super::wget`].
pub(crate) const WGET: Form = Form {
    name: "wget",
    host: Host::Shell,
    callee: Callee::Command {
        names: &["wget"],
        get: &[],
    },
    carries: Carries::Rest(CallForm::Url),
    params: &[],
    target: TargetAt::UrlWord { url_option: "" },
    filters: FiltersAt::Query,
    sent: Sent::Written,
    guard: Guard::Always,
};

/// httpie `http [METHOD] <url> name==value ...` (httpie docs, "Querystring parameters": `==`
/// items are appended to the URL's query, encoded by httpie; `=` and `:=` items are a JSON
/// body, which makes the default method POST), read by [`super::httpie`].
pub(crate) const HTTPIE: Form = Form {
    name: "httpie",
    host: Host::Shell,
    callee: Callee::Command {
        names: &["http", "https"],
        get: &[],
    },
    carries: Carries::Rest(CallForm::Url),
    params: &[],
    target: TargetAt::UrlWord { url_option: "" },
    filters: FiltersAt::Items { separator: "==" },
    sent: Sent::Written,
    guard: Guard::Always,
};

/// The inventory rows: `(plugin names, filters key, form, target)` for each.
pub(crate) fn inventory_rows() -> impl Iterator<
    Item = (
        &'static [&'static str],
        &'static str,
        CallForm,
        &'static str,
    ),
> {
    FORMS
        .iter()
        .filter_map(|f| match (f.callee, f.carries, f.filters, f.target) {
            (
                Callee::InventoryPlugin(names),
                Carries::Rest(form),
                FiltersAt::YamlList(key),
                TargetAt::Fixed(t) | TargetAt::Both(t, _),
            ) => Some((names, key, form, t)),
            _ => None,
        })
}

/// The table as Markdown (`| form | spelled | object type / endpoint | filters | values sent |`),
/// for the docs and the parity test's report.
pub fn table_markdown() -> String {
    let mut out = String::from(
        "| form | host | spelled | object type / endpoint | filters | values sent |\n|---|---|---|---|---|---|\n",
    );
    for f in FORMS {
        let host = match f.host {
            Host::Python => "Python",
            Host::PythonAndToolCalls => "Python; JSON/YAML tool calls",
            Host::Jinja => "Jinja (YAML values, templates)",
            Host::Yaml => "YAML",
            Host::Shell => "shell (scripts, fences, text)",
            Host::Text => "any text",
        };
        let spelled = match f.callee {
            Callee::Tool(n) => format!("`{}(...)` (any casing, namespace)", n.join("/")),
            Callee::ToolMethod(m) => format!("`<tool>.{}({{...}})`", m.join("/")),
            Callee::Bare(n) => format!("`{n}(...)`"),
            Callee::Method(n) => format!("`<x>.{n}(...)`"),
            Callee::Function(n) => format!("`{n}(...)` / `<x>.{n}(...)`"),
            Callee::Qualified(names) => {
                format!("`{}(...)` by any name it is imported as", names.join("`/`"))
            }
            Callee::Chain(m) => format!("`<api>.<app>.<endpoint>.{m}(...)`"),
            Callee::Any if f.guard == Guard::MethodGet => {
                "any `<f>(\"GET\", path, ...)` / `<x>.<f>(...)`".to_string()
            }
            Callee::Any => {
                "any `<f>(path, ...)` / `<x>.<f>(...)` not named like a write".to_string()
            }
            Callee::Lookup { calls, plugins } => format!(
                "{}(`'{}'`, ...)",
                calls
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join("/"),
                plugins.join("'`/`'")
            ),
            Callee::InventoryPlugin(names) => format!("`plugin: {}`", names.join("` / `")),
            Callee::Command { names, get: [] } => {
                format!("`{} <url> ...`", names.join("`/`"))
            }
            Callee::Command { names, get } => {
                format!("`{} {} <url> ...`", names.join("`/`"), get.join("`/`"))
            }
            Callee::Url => "`/api/<app>/<endpoint>/?...` in the text".to_string(),
        };
        let target = match f.target {
            TargetAt::ObjectType
                if matches!(f.carries, Carries::Rest(form) if form.is_code_mode()) =>
            {
                "`type` (1st): `dcim.device` or path `dcim/devices`".to_string()
            }
            TargetAt::ObjectType if f.carries == Carries::Rest(CallForm::OldGetObjects) => {
                "`object_type` (1st): the old server's names (`devices`, `ip-addresses`); read only with a `filters` dict".to_string()
            }
            TargetAt::ObjectType => "`object_type` (1st)".to_string(),
            TargetAt::Fixed(t) => format!("`{t}`"),
            TargetAt::Url(i, k) => format!("URL path (arg {}, `{k}=`)", i + 1),
            TargetAt::ApiPath(i, k) => format!("path under /api/ (arg {}, `{k}=`)", i + 1),
            TargetAt::Chain => "attribute chain".to_string(),
            TargetAt::Terms { plugin_kw } => format!(
                "terms (args 2+) in the collection's endpoint names; `{plugin_kw}=` for a plugin"
            ),
            TargetAt::Both(a, b) => format!("`{a}` and `{b}`"),
            TargetAt::UrlWord { url_option: "" } => {
                "the URL word (`/api/<app>/<endpoint>/`)".to_string()
            }
            TargetAt::UrlWord { url_option } => {
                format!("the URL word (`/api/<app>/<endpoint>/`, or `{url_option}`)")
            }
            TargetAt::UrlPath => "the URL's path".to_string(),
            TargetAt::WrapperPath(i) => format!(
                "string literal (arg {}): `/api/<app>/<endpoint>/`, or `<app>/<endpoint>/` of a known endpoint",
                i + 1
            ),
            TargetAt::Nothing => "none".to_string(),
            TargetAt::Receiver => "the tool the receiver names, as its row".to_string(),
            TargetAt::ToolName(i, k) => {
                format!("the tool named by arg {} (`{k}=`), as its row", i + 1)
            }
            TargetAt::Document { arg, key: None } => format!("GraphQL document: `{arg}`"),
            TargetAt::Document {
                arg,
                key: Some(key),
            } => format!("GraphQL document: `{arg}={{\"{key}\": ...}}`"),
        };
        let filters = match f.filters {
            FiltersAt::Filters => "`filters`".to_string(),
            FiltersAt::Params(p) => format!("`{p}=` and the URL's query"),
            FiltersAt::ParamsOrNext(p) => format!(
                "`{p}=` (or a dict literal after the path, for a name like `get`/`list`) and the URL's query"
            ),
            FiltersAt::Kwargs => "keyword arguments, `**dict`".to_string(),
            FiltersAt::Words(k) => format!("`{k}=`: space-separated `k=v` words"),
            FiltersAt::YamlList(k) => format!("`{k}:` list of `key: value` entries"),
            FiltersAt::Data { data, urlencode } => format!(
                "the URL's query, then `{}` (pairs as written), `{}` (`k=content`)",
                data.join("`/`"),
                urlencode.join("`/`")
            ),
            FiltersAt::Items { separator } => format!(
                "the URL's query, then `name{separator}value` items (value encoded by the command)"
            ),
            FiltersAt::Query if matches!(f.callee, Callee::Command { .. }) => {
                "the URL word's query string, as the shell passes it".to_string()
            }
            FiltersAt::Query => "the query string".to_string(),
            FiltersAt::Nothing if matches!(f.target, TargetAt::Url(..)) => {
                "the URL's query string, `urlencode({...})`".to_string()
            }
            FiltersAt::Nothing => "none".to_string(),
            FiltersAt::ToolArguments { at, keyword: None } => {
                format!("the tool's arguments: a dict (arg {})", at + 1)
            }
            FiltersAt::ToolArguments {
                at,
                keyword: Some(k),
            } => format!("the tool's arguments: a dict (arg {}, `{k}=`)", at + 1),
            FiltersAt::Variables { arg, key: None } => format!("GraphQL variables: `{arg}`"),
            FiltersAt::Variables {
                arg,
                key: Some(key),
            } => format!("GraphQL variables: `{arg}={{\"{key}\": ...}}`"),
        };
        let sent = match f.sent {
            Sent::McpJson => "MCP: lists repeated, `None` dropped",
            Sent::Pynetbox => "pynetbox: lists repeated, `None` as `null`",
            Sent::Query => "query: lists repeated, `None` drops the key",
            Sent::ApiFilter => "every value a string; a repeated key is a list (repeated keys)",
            Sent::Inventory => "`str()` of the YAML value, url-encoded; repeated entries repeated keys; keys unknown to the endpoint dropped",
            Sent::Written => "as written (percent-encoded by the writer); a repeated key is a list",
            Sent::Graphql => "GraphQL: the document and its variables as JSON",
        };
        out.push_str(&format!(
            "| {} | {host} | {spelled} | {target} | {filters} | {sent} |\n",
            f.name
        ));
    }
    out
}

/// NetBox REST apps, for recognising endpoint paths and pynetbox chains.
pub(crate) const APPS: [&str; 10] = [
    "circuits",
    "core",
    "dcim",
    "extras",
    "ipam",
    "tenancy",
    "users",
    "virtualization",
    "vpn",
    "wireless",
];

/// True when `s` is shaped like a NetBox object type or endpoint key of a NetBox app or a
/// plugin (`dcim.site`, `dcim/sites`, `plugins/bgp/sessions`).
pub(crate) fn object_type_shaped(s: &str) -> bool {
    let Some((app, rest)) = s.split_once(['.', '/']) else {
        return false;
    };
    (APPS.contains(&app) || app == "plugins")
        && !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-/".contains(&b))
}

/// True when `key` (`dcim/devices`) is an endpoint of the known-endpoint table (the
/// `netbox.netbox` collection's lookup terms, see [`super::terms::TERMS`]): enough to trust a
/// path written without `/api/` as NetBox's.
pub(crate) fn known_endpoint(key: &str) -> bool {
    super::terms::term_of(key).is_some()
}

/// The row of an MCP tool name in snake case (`netbox_get_objects`, `netbox_graphql`).
pub(crate) fn tool_form(snake: &str) -> Option<&'static Form> {
    FORMS
        .iter()
        .find(|f| matches!(f.callee, Callee::Tool(names) if names.contains(&snake)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_type_shapes() {
        assert!(object_type_shaped("dcim.site"));
        assert!(object_type_shaped("dcim/sites"));
        assert!(object_type_shaped("plugins/bgp/sessions"));
        assert!(!object_type_shaped("key.sub"));
        assert!(!object_type_shaped("dcim."));
        assert!(!object_type_shaped("HOST"));
    }

    /// The Ansible and curl extractors read their rows: the rows are in the table, and the
    /// inventory rows are the plugin's three filter keys.
    #[test]
    fn ansible_and_curl_rows_are_in_the_table() {
        for row in [NB_LOOKUP, CURL_GET, CURL, WGET, HTTPIE] {
            assert!(FORMS.iter().any(|f| f.name == row.name), "{}", row.name);
        }
        let keys: Vec<&str> = inventory_rows().map(|(_, k, _, _)| k).collect();
        assert_eq!(
            keys,
            ["query_filters", "device_query_filters", "vm_query_filters"]
        );
        let md = table_markdown();
        for needle in ["`api_filter=`", "`--data-urlencode`", "`query_filters:`"] {
            assert!(md.contains(needle), "{needle}");
        }
    }

    /// `name_has_word` as it was written, with the words copied: the byte loop finds the same.
    fn name_has_word_before(name: &str, words: &[&str]) -> bool {
        let mut parts: Vec<String> = Vec::new();
        let mut cur = String::new();
        for c in name.chars() {
            if c == '_' || c == '.' {
                parts.push(std::mem::take(&mut cur));
            } else if c.is_ascii_uppercase() && !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
                cur.push(c.to_ascii_lowercase());
            } else {
                cur.push(c.to_ascii_lowercase());
            }
        }
        parts.push(cur);
        parts.iter().any(|p| words.contains(&p.as_str()))
    }

    #[test]
    fn callee_words_read_as_before() {
        let names = [
            "",
            "_",
            "get",
            "GET",
            "Get",
            "getDevices",
            "_api_get",
            "api.get",
            "list_all",
            "target",
            "offset",
            "create_device",
            "address_get",
            "DeleteItem",
            "xUpdate",
            "SETUP",
            "set_",
            "__post__",
            "pOST",
            "fetchAll",
            "éget_list",
            "getÉ",
            "getÉList",
            "a.b_c.Put",
            "x__remove",
            "readme",
            "Read",
            "HTTPGet",
            "addTag",
            "x_add",
        ];
        for n in names {
            for words in [WRITE_WORDS, READ_WORDS] {
                assert_eq!(
                    name_has_word(n, words),
                    name_has_word_before(n, words),
                    "{n}"
                );
            }
        }
    }

    #[test]
    fn callee_words() {
        assert!(name_has_word("_api_get", READ_WORDS));
        assert!(name_has_word("getDevices", READ_WORDS));
        assert!(!name_has_word("target", READ_WORDS));
        assert!(name_has_word("create_device", WRITE_WORDS));
        assert!(!name_has_word("address_get", WRITE_WORDS));
    }

    #[test]
    fn every_mcp_tool_has_one_form() {
        for t in [
            "netbox_get_objects",
            "netbox_get_changelogs",
            "netbox_get_object_by_id",
            "netbox_search_objects",
            "netbox_graphql",
            "netbox_graphql_query",
            "get_objects",
        ] {
            assert!(tool_form(t).is_some(), "{t}");
        }
    }
}
