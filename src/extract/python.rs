//! Extraction from Python: MCP tool calls (`netbox_get_objects(...)` and friends, also as
//! `tools.netboxGetObjects(...)`, `<tool>.invoke({...})`, `session.call_tool("name", {...})`),
//! pynetbox `nb.<app>.<endpoint>.filter/get/count(...)`, `requests.get(url, params={...})`,
//! GraphQL documents in `netbox_graphql(query=...)`, `gql("...")` and
//! `requests.post(".../graphql/", json={"query": ...})`, plus REST URLs in any string or comment.
//!
//! Strings: simple escapes are decoded for values; f-strings and concatenations are
//! [`Value::Expr`]; `dict(a=1)` is a mapping like `{"a": 1}`. A GraphQL document is taken only
//! from a string whose text maps exactly to the host: escapes that decode to one ASCII character
//! (`\"`, `\n`) map to their last byte, as in JSON; a non-ASCII escape, interpolation or
//! concatenation skips the string, never guessed.
//! Half-typed text is re-read with its open brackets and strings closed (see
//! [`super::parse::closers`]).

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::lit::{EscapedText, Lit, LitKind, Pair};
use super::parse::{self, for_each_node, Lang, MAX_DEPTH};
use super::tools::{self, positional_names, Arg, Tool};
use super::{CallForm, FilterEntry, OffsetMap, RestCall, Site, Syntax, Value};

/// Sites found in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut sites = extract_calls(text, map);
    sites.extend(super::text::extract(text, map));
    sites
}

/// Calls and documents only (no URL scan), for hosts that scan URLs themselves.
pub(crate) fn extract_calls(text: &str, map: &OffsetMap) -> Vec<Site> {
    let Some(tree) = parse::parse(Lang::Python, text) else {
        return Vec::new();
    };
    let mut sites = Cx::new(text, text.len(), map).sites(tree.root_node());
    if tree.root_node().has_error() {
        // Re-read with what is open closed; keep the calls the first reading missed.
        let close = parse::closers(text, true);
        if !close.is_empty() {
            let repaired = format!("{text}{close}");
            if let Some(tree2) = parse::parse(Lang::Python, &repaired) {
                let more = Cx::new(&repaired, text.len(), map).sites(tree2.root_node());
                super::add_missing(&mut sites, more);
            }
        }
    }
    sites
}

/// NetBox REST apps, for recognising pynetbox endpoint chains (`nb.dcim.devices`).
const APPS: [&str; 10] = [
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

/// Extraction context: the (possibly repaired) source, the original length (ranges are clipped
/// to it) and the map to the host.
struct Cx<'a> {
    src: &'a str,
    len: usize,
    map: &'a OffsetMap,
}

impl<'a> Cx<'a> {
    fn new(src: &'a str, len: usize, map: &'a OffsetMap) -> Self {
        Cx { src, len, map }
    }

    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    /// Host range of an embedded range, clipped to the original text.
    fn host(&self, r: Range<usize>) -> Range<usize> {
        let end = r.end.min(self.len);
        let start = r.start.min(end);
        self.map.range_to_host(start..end)
    }

    fn sites(&self, root: Node<'_>) -> Vec<Site> {
        let mut names: HashMap<&str, Node> = HashMap::new();
        let mut calls = Vec::new();
        for_each_node(root, |n| match n.kind() {
            "assignment" => {
                if let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) {
                    if l.kind() == "identifier" {
                        names.insert(self.text(l), r);
                    }
                }
            }
            "call" => calls.push(n),
            _ => {}
        });
        let found = calls
            .into_iter()
            .filter(|call| call.start_byte() < self.len)
            .filter_map(|call| self.call(call, &names))
            .collect();
        let mut out = Vec::new();
        super::add_missing(&mut out, found);
        out
    }

    fn call(&self, call: Node, names: &HashMap<&str, Node>) -> Option<Site> {
        let func = call.child_by_field_name("function")?;
        let arglist = call.child_by_field_name("arguments")?;
        if arglist.kind() != "argument_list" {
            return None;
        }
        let (name_node, object) = match func.kind() {
            "identifier" => (func, None),
            "attribute" => (
                func.child_by_field_name("attribute")?,
                func.child_by_field_name("object"),
            ),
            _ => return None,
        };
        let name = self.text(name_node);
        let args = self.arguments(arglist, names);
        let call_range = self.host(call.byte_range());
        let name_range = self.host(name_node.byte_range());

        if let Some(tool) = tools::tool_from_name(name) {
            let named = self.name_args(tool, &args);
            return tools::build(tool, Syntax::Python, name_range, call_range, &named);
        }
        // `netbox_get_objects.invoke({...})`: LangChain tools take one dict of arguments.
        if let Some(obj) = object {
            let obj_name = match obj.kind() {
                "attribute" => obj
                    .child_by_field_name("attribute")
                    .map(|a| (self.text(a), a)),
                "identifier" => Some((self.text(obj), obj)),
                _ => None,
            };
            if let Some((tool, tool_node)) =
                obj_name.and_then(|(n, node)| Some((tools::tool_from_name(n)?, node)))
            {
                if matches!(name, "invoke" | "ainvoke" | "run" | "arun" | "call") {
                    let dict = args.positional.first()?;
                    let named = pair_args(dict)?;
                    let name_range = self.host(tool_node.byte_range());
                    return tools::build(tool, Syntax::Python, name_range, call_range, &named);
                }
            }
        }
        // MCP client: `session.call_tool("netbox_get_objects", {...})`.
        if name == "call_tool" {
            let tool_lit = args.positional.first().or_else(|| args.keyword("name"))?;
            let (tool_name, tool_range) = tool_lit.as_str()?;
            let tool = tools::tool_from_name(tool_name)?;
            let dict = args
                .positional
                .get(1)
                .or_else(|| args.keyword("arguments"))?;
            let named = pair_args(dict)?;
            return tools::build(tool, Syntax::Python, tool_range, call_range, &named);
        }
        if name == "gql" {
            return tools::graphql_doc(args.positional.first()?, None);
        }
        if let Some(obj) = object {
            if matches!(name, "filter" | "get" | "count") {
                if let Some(site) = self.pynetbox(obj, name, &args, arglist, call_range.clone()) {
                    return Some(site);
                }
            }
            if name == "get" {
                return self.requests_get(&args, call_range);
            }
            if name == "post" {
                let body = args.keyword("json")?;
                let query = &body.get("query")?.value;
                let variables = body
                    .get("variables")
                    .and_then(|v| v.value.to_json())
                    .filter(|v| v.is_object());
                return tools::graphql_doc(query, variables);
            }
        }
        None
    }

    /// Positional and keyword arguments named after the tool's signature.
    fn name_args<'l>(&self, tool: Tool, args: &'l Args) -> Vec<Arg<'l>> {
        // One positional dict and nothing else: the LangChain "all arguments in one dict" form.
        if args.positional.len() == 1 && args.keywords.is_empty() {
            let only = &args.positional[0];
            if only.get("object_type").is_some()
                || only.get("filters").is_some()
                || only.get("query").is_some()
            {
                if let Some(named) = pair_args(only) {
                    return named;
                }
            }
        }
        let names = positional_names(tool);
        let mut out: Vec<Arg> = args
            .positional
            .iter()
            .enumerate()
            .map(|(i, lit)| Arg {
                name: names
                    .get(i)
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| format!("arg{i}")),
                name_range: lit.range.start..lit.range.start,
                value: lit,
            })
            .collect();
        out.extend(args.keywords.iter().map(|(n, r, lit)| Arg {
            name: n.clone(),
            name_range: r.clone(),
            value: lit,
        }));
        out
    }

    /// pynetbox `<x>.<app>.<endpoint>.<method>(...)` (also `<x>.plugins.<plugin>.<endpoint>`).
    fn pynetbox(
        &self,
        obj: Node,
        method: &str,
        args: &Args,
        arglist: Node,
        call_range: Range<usize>,
    ) -> Option<Site> {
        if obj.kind() != "attribute" {
            return None;
        }
        let endpoint = obj.child_by_field_name("attribute")?;
        let parent = obj.child_by_field_name("object")?;
        if parent.kind() != "attribute" {
            return None;
        }
        let app = parent.child_by_field_name("attribute")?;
        let app_name = self.text(app);
        let grand = parent.child_by_field_name("object")?;
        let (prefix, start) = if APPS.contains(&app_name) {
            (app_name.to_string(), app.start_byte())
        } else if grand.kind() == "attribute"
            && grand
                .child_by_field_name("attribute")
                .is_some_and(|g| self.text(g) == "plugins")
        {
            let plugins = grand.child_by_field_name("attribute")?;
            (format!("plugins/{app_name}"), plugins.start_byte())
        } else {
            return None;
        };
        let target = format!("{prefix}/{}", self.text(endpoint).replace('_', "-"));
        let target_range = self.host(start..endpoint.end_byte());
        let mut filters = Vec::new();
        let mut extra = Vec::new();
        for (i, lit) in args.positional.iter().enumerate() {
            let at = lit.range.start..lit.range.start;
            if method == "get" {
                extra.push(super::Argument {
                    name: if i == 0 {
                        "id".into()
                    } else {
                        format!("arg{i}")
                    },
                    name_range: at,
                    value: lit.value.clone(),
                    value_range: lit.range.clone(),
                });
            } else if i == 0 {
                // pynetbox sends the first positional argument of filter()/count() as `q`.
                filters.push(FilterEntry {
                    key: "q".into(),
                    key_range: at,
                    value: lit.value.clone(),
                    value_range: lit.range.clone(),
                });
            }
        }
        for item in &args.ordered {
            match item {
                Item::Keyword(i) => {
                    let (k, r, lit) = &args.keywords[*i];
                    // pynetbox's own option: popped before the request
                    // (pynetbox/core/endpoint.py `kwargs.pop("strict_filters")`).
                    if k == "strict_filters" {
                        continue;
                    }
                    filters.push(FilterEntry {
                        key: k.clone(),
                        key_range: r.clone(),
                        value: super::unjudged(&lit.value, k),
                        value_range: lit.range.clone(),
                    });
                }
                Item::Splat(i) => {
                    if let Some(pairs) = args.splats[*i].pairs() {
                        filters.extend(tools::entries(pairs));
                    }
                }
            }
        }
        Some(Site::Rest(RestCall {
            form: CallForm::Pynetbox,
            syntax: Syntax::Python,
            target: Some((target, target_range)),
            call_range,
            filters_range: Some(self.host(arglist.byte_range())),
            filters,
            args: extra,
        }))
    }

    /// `requests.get("https://nb/api/dcim/devices/", params={...})` (any `<x>.get`).
    fn requests_get(&self, args: &Args, call_range: Range<usize>) -> Option<Site> {
        let params = args.keyword("params")?;
        let pairs = params.pairs()?;
        let url = args.positional.first().or_else(|| args.keyword("url"))?;
        // The URL may be an f-string: find the path in its raw host text.
        let (path, range) = self.api_path(url)?;
        Some(Site::Rest(RestCall {
            form: CallForm::Url,
            syntax: Syntax::Python,
            target: Some((path, range)),
            call_range,
            filters_range: Some(params.range.clone()),
            filters: tools::entries(pairs),
            args: Vec::new(),
        }))
    }

    /// The `/api/<app>/<slug>/` path inside a string literal (raw text, so f-strings work).
    fn api_path(&self, url: &Lit) -> Option<(String, Range<usize>)> {
        let content = url.raw.clone()?;
        let raw = self.src.get(content.clone())?;
        let at = raw.find("/api/")?;
        let end = super::text::list_path_end(raw, at)?;
        let next = raw.as_bytes().get(end).copied();
        if !matches!(next, None | Some(b'?') | Some(b'"') | Some(b'\'')) {
            return None;
        }
        let path = &raw[at..end];
        Some((
            path.to_string(),
            self.host(content.start + at..content.start + end),
        ))
    }

    fn arguments(&self, arglist: Node, names: &HashMap<&str, Node>) -> Args {
        let mut args = Args::default();
        let mut cursor = arglist.walk();
        for child in arglist.named_children(&mut cursor) {
            match child.kind() {
                "comment" => {}
                "keyword_argument" => {
                    let (Some(n), Some(v)) = (
                        child.child_by_field_name("name"),
                        child.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    args.ordered.push(Item::Keyword(args.keywords.len()));
                    let name = self.text(n);
                    let dicts = matches!(name, "variables" | "json");
                    args.keywords.push((
                        name.to_string(),
                        self.host(n.byte_range()),
                        self.lit_resolved(v, names, dicts),
                    ));
                }
                "dictionary_splat" => {
                    if let Some(inner) = child.named_child(0) {
                        args.ordered.push(Item::Splat(args.splats.len()));
                        args.splats.push(self.lit_resolved(inner, names, false));
                    }
                }
                "list_splat" => args
                    .positional
                    .push(Lit::scalar(Value::Expr, self.host(child.byte_range()))),
                _ => args.positional.push(self.lit_resolved(child, names, false)),
            }
        }
        args
    }

    /// A literal; an identifier bound to a string literal (`QUERY = """..."""`) is read
    /// through, since GraphQL documents are usually kept in constants; with `dicts`, also one
    /// bound to a dict (GraphQL `variables`, a `json=` body). Filter dicts are not read through:
    /// one constant used by two calls would report its mistakes twice.
    /// In such a dict, a value that is an identifier bound to a string is read through too
    /// (`json={"query": QUERY}`).
    fn lit_resolved(&self, n: Node, names: &HashMap<&str, Node>, dicts: bool) -> Lit {
        let mut node = n;
        if n.kind() == "identifier" {
            if let Some(target) = names.get(self.text(n)) {
                if target.kind() == "string" {
                    return self.lit(*target, 0);
                }
                if dicts && target.kind() == "dictionary" {
                    node = *target;
                }
            }
        }
        let mut lit = self.lit(node, 0);
        if dicts && node.kind() == "dictionary" {
            self.resolve_string_values(node, &mut lit, names);
        }
        lit
    }

    /// Replaces the values of `lit` (the literal of `dict`) that are identifiers bound to a
    /// string literal with that literal.
    fn resolve_string_values(&self, dict: Node, lit: &mut Lit, names: &HashMap<&str, Node>) {
        let LitKind::Map(pairs) = &mut lit.kind else {
            return;
        };
        let mut cursor = dict.walk();
        for p in dict.named_children(&mut cursor) {
            let Some(v) = p.child_by_field_name("value") else {
                continue;
            };
            if v.kind() != "identifier" {
                continue;
            }
            let Some(target) = names.get(self.text(v)).filter(|t| t.kind() == "string") else {
                continue;
            };
            let range = self.host(v.byte_range());
            if let Some(pair) = pairs.iter_mut().find(|q| q.value.range == range) {
                pair.value = self.lit(*target, 0);
            }
        }
    }

    fn lit(&self, n: Node, depth: usize) -> Lit {
        let range = self.host(n.byte_range());
        if depth > MAX_DEPTH {
            return Lit::scalar(Value::Expr, range);
        }
        match n.kind() {
            "string" => self.string(n),
            "integer" => Lit::scalar(
                parse_int(self.text(n)).map_or(Value::Expr, Value::Int),
                range,
            ),
            "float" => Lit::scalar(
                self.text(n)
                    .replace('_', "")
                    .parse::<f64>()
                    .map_or(Value::Expr, Value::Float),
                range,
            ),
            "true" => Lit::scalar(Value::Bool(true), range),
            "false" => Lit::scalar(Value::Bool(false), range),
            "none" => Lit::scalar(Value::Null, range),
            "unary_operator" => {
                let inner = n
                    .child_by_field_name("argument")
                    .map(|a| self.lit(a, depth + 1));
                let op = n.child_by_field_name("operator").map(|o| self.text(o));
                let value = match (op, inner.map(|l| l.value)) {
                    (Some("-"), Some(Value::Int(i))) => Value::Int(-i),
                    (Some("-"), Some(Value::Float(f))) => Value::Float(-f),
                    _ => Value::Expr,
                };
                Lit::scalar(value, range)
            }
            "parenthesized_expression" => match n.named_child(0) {
                Some(inner) if n.named_child_count() == 1 => {
                    let mut l = self.lit(inner, depth + 1);
                    l.range = range;
                    l
                }
                _ => Lit::scalar(Value::Expr, range),
            },
            "list" | "tuple" | "set" => {
                let mut cursor = n.walk();
                let items = n
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .map(|c| self.lit(c, depth + 1))
                    .collect();
                Lit::seq(items, range)
            }
            "dictionary" => {
                let mut cursor = n.walk();
                let mut pairs = Vec::new();
                for p in n.named_children(&mut cursor) {
                    if p.kind() != "pair" {
                        continue;
                    }
                    let (Some(k), Some(v)) =
                        (p.child_by_field_name("key"), p.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    let key = self.lit(k, depth + 1);
                    let Some((key_text, key_range)) = key.as_str() else {
                        continue;
                    };
                    pairs.push(Pair {
                        key: key_text.to_string(),
                        key_range,
                        value: self.lit(v, depth + 1),
                    });
                }
                Lit::map(pairs, range)
            }
            "call" => self
                .dict_call(n, depth)
                .unwrap_or_else(|| Lit::scalar(Value::Expr, range)),
            "concatenated_string" => {
                let mut l = Lit::scalar(Value::Expr, range.clone());
                l.raw = Some(n.byte_range());
                l
            }
            _ => Lit::scalar(Value::Expr, range),
        }
    }

    /// `dict(a=1, b="x")`: a mapping whose keys are the keyword names; `None` for any other
    /// call or when positional or `**` arguments make the keys unknown.
    fn dict_call(&self, n: Node, depth: usize) -> Option<Lit> {
        let func = n.child_by_field_name("function")?;
        let args = n.child_by_field_name("arguments")?;
        if func.kind() != "identifier"
            || self.text(func) != "dict"
            || args.kind() != "argument_list"
        {
            return None;
        }
        let mut pairs = Vec::new();
        let mut cursor = args.walk();
        for a in args.named_children(&mut cursor) {
            match a.kind() {
                "comment" => {}
                "keyword_argument" => {
                    let name = a.child_by_field_name("name")?;
                    let value = a.child_by_field_name("value")?;
                    pairs.push(Pair {
                        key: self.text(name).to_string(),
                        key_range: self.host(name.byte_range()),
                        value: self.lit(value, depth + 1),
                    });
                }
                _ => return None,
            }
        }
        Some(Lit::map(pairs, self.host(n.byte_range())))
    }

    /// A string literal: decoded value, content range, and an exact map when it has one.
    fn string(&self, n: Node) -> Lit {
        let range = self.host(n.byte_range());
        let mut prefix = "";
        let mut content_start = n.start_byte();
        let mut content_end = n.end_byte();
        let mut interpolated = false;
        let mut escapes = Vec::new();
        let mut cursor = n.walk();
        for c in n.children(&mut cursor) {
            match c.kind() {
                "string_start" => {
                    let t = self.text(c);
                    prefix = t.trim_end_matches(['"', '\'']);
                    content_start = c.end_byte();
                }
                "string_end" => content_end = c.start_byte(),
                "interpolation" => interpolated = true,
                "string_content" => {
                    let mut cc = c.walk();
                    escapes.extend(
                        c.named_children(&mut cc)
                            .filter(|e| e.kind() == "escape_sequence")
                            .map(|e| e.byte_range()),
                    );
                }
                _ => {}
            }
        }
        let content_end = content_end.max(content_start);
        let raw_content = content_start..content_end;
        let raw = self.src.get(raw_content.clone()).unwrap_or("");
        let lower = prefix.to_ascii_lowercase();
        let is_raw = lower.contains('r');
        let is_f = lower.contains('f');
        if interpolated {
            let mut l = Lit::scalar(Value::Expr, range);
            l.raw = Some(raw_content);
            return l;
        }
        let braces = is_f && (raw.contains("{{") || raw.contains("}}"));
        let value = if is_raw {
            raw.to_string()
        } else if braces {
            decode_escapes(raw).replace("{{", "{").replace("}}", "}")
        } else {
            decode_escapes(raw)
        };
        let exact = if braces || content_end > self.len {
            None
        } else if is_raw || !raw.contains('\\') {
            let map = OffsetMap::identity(content_start, raw.len()).then(self.map);
            Some((raw.to_string(), map))
        } else {
            self.escaped_text(raw_content.clone(), &escapes)
        };
        Lit {
            value: Value::Str(value),
            range,
            kind: LitKind::Str {
                content: self.host(raw_content.clone()),
                exact,
            },
            raw: Some(raw_content),
        }
    }
}

impl Cx<'_> {
    /// The decoded text of a string's content `content` with its escapes (embedded ranges) and
    /// a piecewise map to the host, when every escape decodes to at most one ASCII character.
    fn escaped_text(
        &self,
        content: Range<usize>,
        escapes: &[Range<usize>],
    ) -> Option<(String, OffsetMap)> {
        let mut b = EscapedText::new();
        let mut pos = content.start;
        for e in escapes {
            b.plain(pos, self.src.get(pos..e.start)?);
            let written = self.src.get(e.clone())?;
            let decoded = decode_escapes(written);
            let mut chars = decoded.chars();
            match (chars.next(), chars.next()) {
                // A line continuation decodes to nothing.
                (None, _) => {}
                (Some(c), None) => b.escape(e.end, Some(c)),
                // An unknown escape (`\q`) stays as written.
                _ if decoded == written => b.plain(e.start, written),
                _ => b.inexact(),
            }
            pos = e.end;
        }
        b.plain(pos, self.src.get(pos..content.end)?);
        let (text, map) = b.finish();
        Some((text, map?.then(self.map)))
    }
}

/// The arguments of a call, as literals.
#[derive(Default)]
struct Args {
    positional: Vec<Lit>,
    /// `(name, name host range, value)`.
    keywords: Vec<(String, Range<usize>, Lit)>,
    /// `**{...}` dicts.
    splats: Vec<Lit>,
    /// Keywords and splats in source order.
    ordered: Vec<Item>,
}

enum Item {
    Keyword(usize),
    Splat(usize),
}

impl Args {
    fn keyword(&self, name: &str) -> Option<&Lit> {
        self.keywords.iter().find(|k| k.0 == name).map(|k| &k.2)
    }
}

fn pair_args(dict: &Lit) -> Option<Vec<Arg<'_>>> {
    Some(
        dict.pairs()?
            .iter()
            .map(|p| Arg {
                name: p.key.clone(),
                name_range: p.key_range.clone(),
                value: &p.value,
            })
            .collect(),
    )
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else {
        t.parse().ok()
    }
}

/// Decodes Python's simple escapes; unknown escapes stay as written (as Python does).
fn decode_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' => out.push(e),
            '\n' => {}
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n)
                    .filter_map(|_| chars.next_if(|c| c.is_ascii_hexdigit()))
                    .collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if hex.len() == n => out.push(ch),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&hex);
                    }
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(decode_escapes(r"a\nb\x41\u00e9\q"), "a\nbAé\\q");
    }
}
