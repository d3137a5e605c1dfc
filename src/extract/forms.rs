//! The call-form table: every way a NetBox REST call is spelled in Python (and the tool names of
//! JSON/YAML tool-call objects), as data. For each form: how it is called, where its object type
//! or endpoint is, where its filters are, and how its values reach NetBox. The Python extractor
//! ([`super::python`]) recognises calls only through this table; the server's completion and
//! hover read the same extraction (on the error-tolerant parse of the unit under the cursor), so
//! a form added here is checked, completed and hovered alike.
//!
//! Sources: NetBox MCP server v1.2.1 `server.py` (tool signatures); NetBox Labs Platform MCP
//! "code mode" helpers as published in netboxlabs/skills
//! `skills/netboxlabs-platform-mcp/references/code-mode-helpers.md` (`get(type, filters={},
//! fields=[], limit=50, offset=0, ordering=None)`, `get_by_id(type, id, fields=[])`,
//! `search(query, object_types=[], limit=5)`, `changelogs(filters={}, limit=50, offset=0)`,
//! `graphql(query, variables=None, analyze=True)`, `api(method, endpoint, params=None,
//! data=None)`); pynetbox 7 `core/endpoint.py`; requests / httpx / aiohttp / urllib docs.

use super::CallForm;

/// How the call is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Callee {
    /// An MCP tool name, called bare or on any object and in any casing or namespace
    /// (`netbox_get_objects`, `tools.netboxGetObjects`, `mcp__netbox__netbox_get_objects`).
    Tool(&'static [&'static str]),
    /// A function called by its bare name only (`get(...)`, never `x.get(...)`).
    Bare(&'static str),
    /// A method of any receiver (`requests.get`, `session.get`, `client.get`).
    Method(&'static str),
    /// A bare function or a method of any receiver (`urlopen`, `urllib.request.urlopen`).
    Function(&'static str),
    /// pynetbox `<api>.<app>.<endpoint>.<method>` or `<api>.plugins.<plugin>.<endpoint>.<method>`.
    Chain(&'static str),
    /// Any function or method (a project's own client wrapper: `self._get`, `api_get`,
    /// `client.request`); the target must then name a NetBox endpoint by itself.
    Any,
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
pub(crate) const READ_WORDS: &[&str] =
    &["get", "list", "fetch", "query", "search", "find", "filter", "read"];

/// True when the snake/camel-case callee `name` holds one of `words` as a word
/// (`_api_get`, `getDevices`, `list_all`), not inside another word (`target`, `offset`).
pub(crate) fn name_has_word(name: &str, words: &[&str]) -> bool {
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

/// One call form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Form {
    /// Short name, for tests and docs (`requests`, `code-mode get`).
    pub name: &'static str,
    pub callee: Callee,
    pub form: CallForm,
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

/// The table. Order matters where spellings overlap: the first match wins.
pub(crate) const FORMS: &[Form] = &[
    Form {
        name: "MCP netbox_get_objects",
        callee: Callee::Tool(&["netbox_get_objects"]),
        form: CallForm::GetObjects,
        params: GET_OBJECTS,
        target: TargetAt::ObjectType,
        filters: FiltersAt::Filters,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP netbox_get_changelogs",
        callee: Callee::Tool(&["netbox_get_changelogs"]),
        form: CallForm::GetChangelogs,
        params: &["filters"],
        target: TargetAt::Fixed(super::tools::CHANGELOG_TARGET),
        filters: FiltersAt::Filters,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP netbox_get_object_by_id",
        callee: Callee::Tool(&["netbox_get_object_by_id"]),
        form: CallForm::GetObjectById,
        params: &["object_type", "object_id", "fields", "brief"],
        target: TargetAt::ObjectType,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "MCP netbox_search_objects",
        callee: Callee::Tool(&["netbox_search_objects"]),
        form: CallForm::SearchObjects,
        params: &["query", "object_types", "fields", "limit"],
        target: TargetAt::Nothing,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::Always,
    },
    Form {
        name: "code-mode get",
        callee: Callee::Bare("get"),
        form: CallForm::CodeModeGet,
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
        callee: Callee::Bare("get_by_id"),
        form: CallForm::CodeModeGetById,
        params: &["object_type", "object_id", "fields"],
        target: TargetAt::ObjectType,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::ObjectTypeShape,
    },
    Form {
        name: "code-mode changelogs",
        callee: Callee::Bare("changelogs"),
        form: CallForm::GetChangelogs,
        params: &["filters", "limit", "offset"],
        target: TargetAt::Fixed(super::tools::CHANGELOG_TARGET),
        filters: FiltersAt::Filters,
        sent: Sent::McpJson,
        guard: Guard::HasFilters,
    },
    Form {
        name: "code-mode search",
        callee: Callee::Bare("search"),
        form: CallForm::CodeModeSearch,
        params: &["query", "object_types", "limit"],
        target: TargetAt::Nothing,
        filters: FiltersAt::Nothing,
        sent: Sent::McpJson,
        guard: Guard::HasObjectTypes,
    },
    Form {
        name: "code-mode api",
        callee: Callee::Bare("api"),
        form: CallForm::Url,
        params: &["method", "endpoint", "params", "data"],
        target: TargetAt::ApiPath(1, "endpoint"),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::MethodGet,
    },
    Form {
        name: "pynetbox filter",
        callee: Callee::Chain("filter"),
        form: CallForm::Pynetbox,
        params: &["q"],
        target: TargetAt::Chain,
        filters: FiltersAt::Kwargs,
        sent: Sent::Pynetbox,
        guard: Guard::Always,
    },
    Form {
        name: "pynetbox count",
        callee: Callee::Chain("count"),
        form: CallForm::Pynetbox,
        params: &["q"],
        target: TargetAt::Chain,
        filters: FiltersAt::Kwargs,
        sent: Sent::Pynetbox,
        guard: Guard::Always,
    },
    Form {
        name: "pynetbox get",
        callee: Callee::Chain("get"),
        form: CallForm::Pynetbox,
        params: &["id"],
        target: TargetAt::Chain,
        filters: FiltersAt::Kwargs,
        sent: Sent::Pynetbox,
        guard: Guard::Always,
    },
    Form {
        name: "HTTP get (requests, httpx, aiohttp, Session, Client, AsyncClient)",
        callee: Callee::Method("get"),
        form: CallForm::Url,
        params: &["url", "params"],
        target: TargetAt::Url(0, "url"),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::Always,
    },
    Form {
        name: "HTTP request(\"GET\", ...) (requests, httpx, aiohttp)",
        callee: Callee::Method("request"),
        form: CallForm::Url,
        params: &["method", "url", "params"],
        target: TargetAt::Url(1, "url"),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::MethodGet,
    },
    Form {
        name: "client wrapper, method then path",
        callee: Callee::Any,
        form: CallForm::Url,
        params: &["method", "path", "params"],
        target: TargetAt::WrapperPath(1),
        filters: FiltersAt::Params("params"),
        sent: Sent::Query,
        guard: Guard::MethodGet,
    },
    Form {
        name: "urllib urlopen",
        callee: Callee::Function("urlopen"),
        form: CallForm::Url,
        params: &["url"],
        target: TargetAt::Url(0, "url"),
        filters: FiltersAt::Nothing,
        sent: Sent::Query,
        guard: Guard::Always,
    },
    Form {
        name: "urllib Request",
        callee: Callee::Function("Request"),
        form: CallForm::Url,
        params: &["url"],
        target: TargetAt::Url(0, "url"),
        filters: FiltersAt::Nothing,
        sent: Sent::Query,
        guard: Guard::Always,
    },
    Form {
        name: "client wrapper, path first",
        callee: Callee::Any,
        form: CallForm::Url,
        params: &["path", "params"],
        target: TargetAt::WrapperPath(0),
        filters: FiltersAt::ParamsOrNext("params"),
        sent: Sent::Query,
        guard: Guard::NotWrite,
    },
];

/// The table as Markdown (`| form | spelled | object type / endpoint | filters | values sent |`),
/// for the docs and the parity test's report.
pub fn table_markdown() -> String {
    let mut out = String::from(
        "| form | spelled | object type / endpoint | filters | values sent |\n|---|---|---|---|---|\n",
    );
    for f in FORMS {
        let spelled = match f.callee {
            Callee::Tool(n) => format!("`{}(...)` (any casing, namespace)", n.join("/")),
            Callee::Bare(n) => format!("`{n}(...)`"),
            Callee::Method(n) => format!("`<x>.{n}(...)`"),
            Callee::Function(n) => format!("`{n}(...)` / `<x>.{n}(...)`"),
            Callee::Chain(m) => format!("`<api>.<app>.<endpoint>.{m}(...)`"),
            Callee::Any if f.guard == Guard::MethodGet => {
                "any `<f>(\"GET\", path, ...)` / `<x>.<f>(...)`".to_string()
            }
            Callee::Any => "any `<f>(path, ...)` / `<x>.<f>(...)` not named like a write".to_string(),
        };
        let target = match f.target {
            TargetAt::ObjectType if f.form.is_code_mode() => {
                "`type` (1st): `dcim.device` or path `dcim/devices`".to_string()
            }
            TargetAt::ObjectType => "`object_type` (1st)".to_string(),
            TargetAt::Fixed(t) => format!("`{t}`"),
            TargetAt::Url(i, k) => format!("URL path (arg {}, `{k}=`)", i + 1),
            TargetAt::ApiPath(i, k) => format!("path under /api/ (arg {}, `{k}=`)", i + 1),
            TargetAt::Chain => "attribute chain".to_string(),
            TargetAt::WrapperPath(i) => format!(
                "string literal (arg {}): `/api/<app>/<endpoint>/`, or `<app>/<endpoint>/` of a known endpoint",
                i + 1
            ),
            TargetAt::Nothing => "none".to_string(),
        };
        let filters = match f.filters {
            FiltersAt::Filters => "`filters`".to_string(),
            FiltersAt::Params(p) => format!("`{p}=` and the URL's query"),
            FiltersAt::ParamsOrNext(p) => format!(
                "`{p}=` (or a dict literal after the path, for a name like `get`/`list`) and the URL's query"
            ),
            FiltersAt::Kwargs => "keyword arguments, `**dict`".to_string(),
            FiltersAt::Nothing if matches!(f.target, TargetAt::Url(..)) => {
                "the URL's query string, `urlencode({...})`".to_string()
            }
            FiltersAt::Nothing => "none".to_string(),
        };
        let sent = match f.sent {
            Sent::McpJson => "MCP: lists repeated, `None` dropped",
            Sent::Pynetbox => "pynetbox: lists repeated, `None` as `null`",
            Sent::Query => "query: lists repeated, `None` drops the key",
        };
        out.push_str(&format!(
            "| {} | {spelled} | {target} | {filters} | {sent} |\n",
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
/// `netbox.netbox` collection's lookup terms, see [`super::ansible::TERMS`]): enough to trust a
/// path written without `/api/` as NetBox's.
pub(crate) fn known_endpoint(key: &str) -> bool {
    super::ansible::term_of(key).is_some()
}

/// The form a tool name stands for (MCP tool names only).
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

    #[test]
    fn every_mcp_tool_has_one_form() {
        for t in [
            "netbox_get_objects",
            "netbox_get_changelogs",
            "netbox_get_object_by_id",
            "netbox_search_objects",
        ] {
            assert!(tool_form(t).is_some(), "{t}");
        }
    }
}
