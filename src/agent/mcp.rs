//! `netbox-lsp mcp`: an MCP server on stdio (the official Rust SDK, `rmcp`) for agents that
//! should ask before they call NetBox. Four tools ([`TOOLS`]):
//!
//! - `check_call`: a REST call's target (endpoint or object type) and filters dict → verdict,
//!   findings, the corrected target and filters when every fix is certain
//!   ([`super::call::check_filters`], the Python API's `check_call`);
//! - `check_graphql`: a GraphQL document and its variables → verdict, findings (line and
//!   column in the document), the corrected document when every fix is certain;
//! - `list_filters`: an endpoint's real filters ([`super::filters::list_filters`]);
//! - `explain`: a code's catalogue entry ([`super::explain::explain`]).
//!
//! Each checks against the knowledge the command line chose (`--netbox-version`,
//! `netbox-lsp.toml`, or an instance index with its custom fields and plugins), or a shipped
//! release named in the call's `release`. Arguments that are not what a tool's schema says are
//! answered with a tool error (`isError: true` and what is wrong), never a crash. The tool
//! surface (names, descriptions, input schemas) is kept short: agents pay for it in every turn
//! (a test holds it under 8,000 characters).

use super::{blocks, fix_rounds, with_severities};
use crate::analysis::Knowledge;
use crate::config::Level;
use crate::extract::{GraphqlDoc, OffsetMap};
use crate::finding::{Finding, Severity};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The tools, as `tools/list` gives them: name, description, input schema (JSON).
pub const TOOLS: &str = r#"[
{"name": "check_call",
 "description": "Check a NetBox REST call's filters before sending it. NetBox ignores an unknown filter or lookup and answers HTTP 200 with every object; a wrong value or choice is HTTP 400. Returns verdict (ok, wrong, uncertain), findings (code, severity, filter, message naming the fix) and, when every fix is certain, the corrected target and filters.",
 "inputSchema": {"type": "object", "properties": {
   "target": {"type": "string", "description": "Endpoint path (/api/dcim/devices/) or object type (dcim.device)"},
   "filters": {"type": "object", "description": "Query filters as the client sends them: a list repeats the key, null is dropped"},
   "release": {"type": "string", "description": "NetBox release (4.6 or 4.6.8); default: the server's"}},
  "required": ["target", "filters"]}},
{"name": "check_graphql",
 "description": "Check a NetBox GraphQL query against the release's schema and NetBox's rules (filters: not filter:, pagination: {limit, offset}, per-release lookup and choice forms). Returns verdict, findings with line and column, and the corrected query when every fix is certain.",
 "inputSchema": {"type": "object", "properties": {
   "query": {"type": "string", "description": "The GraphQL document"},
   "variables": {"type": "object", "description": "Its variables"},
   "release": {"type": "string", "description": "NetBox release; default: the server's"}},
  "required": ["query"]}},
{"name": "list_filters",
 "description": "List the real filters of a NetBox endpoint: name, value type, list, lookups (name__ic, ...), choices. Ask this instead of guessing filter names.",
 "inputSchema": {"type": "object", "properties": {
   "endpoint": {"type": "string", "description": "Endpoint path (/api/dcim/devices/) or object type (dcim.device)"},
   "match": {"type": "string", "description": "Only filters whose name or description contains this (site, vlan, status)"},
   "offset": {"type": "integer", "minimum": 0},
   "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Default 40"},
   "release": {"type": "string", "description": "NetBox release; default: the server's"}},
  "required": ["endpoint"]}},
{"name": "explain",
 "description": "Explain a finding code (unknown-filter, invalid-choice, ...): what NetBox does, the fix, an example.",
 "inputSchema": {"type": "object", "properties": {
   "code": {"type": "string"}},
  "required": ["code"]}}
]"#;

/// The tools of [`TOOLS`] as rmcp's model.
pub fn tools() -> Vec<Tool> {
    let list: Vec<Value> = serde_json::from_str(TOOLS).unwrap_or_default();
    list.into_iter()
        .filter_map(|t| {
            let name = t["name"].as_str()?.to_string();
            let description = t["description"].as_str()?.to_string();
            let schema = t["inputSchema"].as_object()?.clone();
            Some(Tool::new(name, description, Arc::new(schema)))
        })
        .collect()
}

/// Loads the knowledge of a shipped release named in a call (`4.6`, `4.6.8`).
pub type Loader = dyn Fn(&str) -> Result<Knowledge, String> + Send + Sync;

/// The server: the default knowledge, the settings' severities, and the releases loaded on
/// request (kept for the next call).
pub struct Server {
    default: Arc<Knowledge>,
    severity: BTreeMap<String, Level>,
    load: Box<Loader>,
    releases: Mutex<HashMap<String, Arc<Knowledge>>>,
}

impl Server {
    /// A server checking against `default` unless a call names a release, which `load` loads.
    pub fn new(default: Knowledge, severity: BTreeMap<String, Level>, load: Box<Loader>) -> Self {
        Server {
            default: Arc::new(default),
            severity,
            load,
            releases: Mutex::new(HashMap::new()),
        }
    }

    /// The knowledge for a call's `release` argument (the default without one).
    fn knowledge(&self, args: &Map<String, Value>) -> Result<Arc<Knowledge>, String> {
        let release = match args.get("release") {
            None | Some(Value::Null) => return Ok(self.default.clone()),
            Some(Value::String(r)) if r.trim().is_empty() => return Ok(self.default.clone()),
            Some(Value::String(r)) => r.trim().to_string(),
            Some(other) => {
                return Err(format!(
                    "`release` must be a string such as \"4.6\", found {other}"
                ))
            }
        };
        let mut cache = crate::sync::lock(&self.releases);
        if let Some(k) = cache.get(&release) {
            return Ok(k.clone());
        }
        let k = Arc::new((self.load)(&release)?);
        cache.insert(release, k.clone());
        Ok(k)
    }

    /// Runs tool `name` with `args`: its result as JSON, or what is wrong with the call.
    pub fn run(&self, name: &str, args: &Map<String, Value>) -> Result<Value, String> {
        match name {
            "check_call" => self.check_call(args),
            "check_graphql" => self.check_graphql(args),
            "list_filters" => self.list_filters(args),
            "explain" => super::explain::explain(string(args, "code")?),
            other => Err(format!(
                "unknown tool `{}` (tools: check_call, check_graphql, list_filters, explain)",
                super::printable(other)
            )),
        }
    }

    fn check_call(&self, args: &Map<String, Value>) -> Result<Value, String> {
        let target = string(args, "target")?;
        let filters = match args.get("filters") {
            Some(Value::Object(m)) => m,
            None => {
                return Err("`filters` is required: an object of filter names and values".into())
            }
            Some(other) => {
                return Err(format!(
                    "`filters` must be an object of filter names and values, found {}",
                    kind(other)
                ))
            }
        };
        let k = self.knowledge(args)?;
        let c = super::call::check_filters(&k, target, filters, &self.severity);
        let findings: Vec<Value> = c
            .findings
            .iter()
            .zip(&c.keys)
            .map(|(f, key)| {
                let mut v = finding_json(f);
                if let (Some(o), Some(key)) = (v.as_object_mut(), key) {
                    o.insert("filter".into(), key.clone().into());
                }
                v
            })
            .collect();
        let mut out = json!({
            "verdict": verdict(&c.findings),
            "release": super::hook::release_of(&k),
            "findings": findings,
        });
        if let Some(o) = out.as_object_mut() {
            if let Some(ep) = &c.endpoint {
                o.insert("endpoint".into(), format!("/api/{ep}/").into());
            }
            if let Some(fixed) = &c.corrected {
                let mut corrected = json!({"filters": fixed.filters});
                if let (Some(t), Some(co)) = (&fixed.target, corrected.as_object_mut()) {
                    co.insert("target".into(), t.clone().into());
                }
                o.insert("corrected".into(), corrected);
            }
        }
        Ok(out)
    }

    fn check_graphql(&self, args: &Map<String, Value>) -> Result<Value, String> {
        let query = string(args, "query")?;
        let variables = match args.get("variables") {
            None | Some(Value::Null) => None,
            Some(v @ Value::Object(_)) => Some(v.clone()),
            Some(other) => {
                return Err(format!(
                    "`variables` must be an object, found {}",
                    kind(other)
                ))
            }
        };
        let k = self.knowledge(args)?;
        let Some(schema) = k.schema() else {
            return Err(format!(
                "no GraphQL schema is known for NetBox {}",
                super::hook::release_of(&k)
            ));
        };
        let run = |q: &str| {
            let doc = GraphqlDoc {
                text: q.to_string(),
                map: OffsetMap::identity(0, q.len()),
                variables: variables.clone(),
                holes: Vec::new(),
                // Handed over as a NetBox GraphQL query: checked whatever its root fields.
                found: crate::extract::DocFound::Carried,
            };
            let found = crate::graphql::check_document(&doc, &schema);
            with_severities(crate::approx::soften(&k, found), &self.severity)
        };
        let found = run(query);
        let findings: Vec<Value> = found
            .iter()
            .map(|f| {
                let mut v = finding_json(f);
                let (line, column) = line_column(query, f.range.start);
                if let Some(o) = v.as_object_mut() {
                    o.insert("line".into(), line.into());
                    o.insert("column".into(), column.into());
                }
                v
            })
            .collect();
        let mut out = json!({
            "verdict": verdict(&found),
            "release": super::hook::release_of(&k),
            "findings": findings,
        });
        if found.iter().any(blocks) {
            if let (Some((fixed, _)), Some(o)) =
                (fix_rounds(query, found.clone(), &run), out.as_object_mut())
            {
                o.insert("corrected".into(), fixed.into());
            }
        }
        Ok(out)
    }

    fn list_filters(&self, args: &Map<String, Value>) -> Result<Value, String> {
        let endpoint = string(args, "endpoint")?;
        let matching = match args.get("match") {
            None | Some(Value::Null) => None,
            Some(Value::String(m)) => Some(m.as_str()),
            Some(other) => return Err(format!("`match` must be a string, found {}", kind(other))),
        };
        let count = |key: &str, default: usize| match args.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .map(|n| n.min(usize::MAX as u64) as usize)
                .ok_or_else(|| format!("`{key}` must be a whole number ≥ 0, found {v}")),
        };
        let offset = count("offset", 0)?;
        let limit = count("limit", super::filters::PAGE)?;
        let k = self.knowledge(args)?;
        let Some(index) = k.index.as_deref() else {
            return Err("no filter index is loaded".into());
        };
        super::filters::list_filters(index, endpoint, matching, offset, limit)
    }
}

/// The string argument `key`, or what is wrong with it.
fn string<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(format!("`{key}` is required (a string)")),
        Some(other) => Err(format!("`{key}` must be a string, found {}", kind(other))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `wrong` with an error, `uncertain` with only warnings, else `ok`.
fn verdict(found: &[Finding]) -> &'static str {
    if found.iter().any(|f| f.severity == Severity::Error) {
        "wrong"
    } else if found.iter().any(blocks) {
        "uncertain"
    } else {
        "ok"
    }
}

/// A finding as the tools give it: code, severity, message, and the certain fix's title.
fn finding_json(f: &Finding) -> Value {
    let mut v = json!({"code": f.code, "severity": f.severity.as_str(), "message": f.message});
    if let (Some(fix), Some(o)) = (f.fixes.iter().find(|x| x.certain), v.as_object_mut()) {
        o.insert("fix".into(), fix.title.clone().into());
    }
    v
}

/// 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |n| n + 1);
    (line, before[start..].chars().count() + 1)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("netbox-lsp", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Check NetBox REST filters and GraphQL queries before calling NetBox, and list an endpoint's real filters instead of guessing them.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        // A panic in a check is this call's error, not the server's end.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.run(&request.name, &args)
        }))
        .unwrap_or_else(|_| Err("internal error while checking this call".into()));
        Ok(match result {
            Ok(v) => CallToolResult::success(vec![ContentBlock::text(v.to_string())]),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
        }
        .into())
    }
}

/// Serves MCP on standard input and output until the client closes them; returns the exit code.
pub fn serve_stdio(server: Server) -> i32 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("netbox-lsp mcp: cannot start the async runtime: {e}");
            return 2;
        }
    };
    let code = runtime.block_on(async {
        match server
            .serve((tokio::io::stdin(), tokio::io::stdout()))
            .await
        {
            Ok(running) => match running.waiting().await {
                Ok(_) => 0,
                Err(e) => {
                    eprintln!("netbox-lsp mcp: {e}");
                    1
                }
            },
            Err(e) => {
                eprintln!("netbox-lsp mcp: the client did not initialize the session: {e}");
                1
            }
        }
    });
    // The stdin reader may still wait for input: do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 32 §2: agents pay for every tool description in every turn.
    #[test]
    fn the_tool_surface_is_under_8000_characters() {
        let surface = serde_json::to_string(&tools()).unwrap();
        assert_eq!(tools().len(), 4);
        assert!(
            surface.chars().count() < 8000,
            "{} characters",
            surface.chars().count()
        );
    }

    #[test]
    fn lines_and_columns() {
        assert_eq!(line_column("a\nbé c", 6), (2, 4));
        assert_eq!(line_column("abc", 0), (1, 1));
    }
}
