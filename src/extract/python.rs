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

use super::forms::{self, Callee, FiltersAt, Form, Guard, TargetAt, APPS, FORMS};
use super::lit::Pair;
use super::lit::{EscapedText, Lit, LitKind};
use super::parse::{self, for_each_node, for_each_node_pruned, Lang, MAX_DEPTH};
use super::tools::{self, positional_names, Arg, Tool};
use super::{CallForm, FilterEntry, OffsetMap, RestCall, Site, Syntax, Value};

/// `n.kind()` of a Python node (see [`parse::kind`]).
fn py_kind<'t>(n: Node<'t>) -> &'t str {
    parse::kind(Lang::Python, n)
}

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
        let f = parse::py_fields();
        // A string holds no call or assignment unless it interpolates (`f"{x(1)}"`), which
        // needs a `{`: the others' parts (about a third of a tool call's nodes) are not visited.
        for_each_node_pruned(root, |n| match py_kind(n) {
            "assignment" => {
                if let (Some(l), Some(r)) =
                    (n.child_by_field_id(f.left), n.child_by_field_id(f.right))
                {
                    if py_kind(l) == "identifier" {
                        names.insert(self.text(l), r);
                    }
                }
                true
            }
            "call" => {
                calls.push(n);
                true
            }
            "string" => self.text(n).contains('{'),
            _ => true,
        });
        let found = calls
            .into_iter()
            .filter(|call| call.start_byte() < self.len)
            .flat_map(|call| self.call(call, &names))
            .collect();
        let mut out = Vec::new();
        super::add_missing(&mut out, found);
        out
    }

    fn call<'t>(&self, call: Node<'t>, names: &HashMap<&str, Node<'t>>) -> Vec<Site> {
        let f = parse::py_fields();
        let Some(func) = call.child_by_field_id(f.function) else {
            return Vec::new();
        };
        let Some(arglist) = call
            .child_by_field_id(f.arguments)
            .filter(|a| py_kind(*a) == "argument_list")
        else {
            return Vec::new();
        };
        let (name_node, object) = match py_kind(func) {
            "identifier" => (func, None),
            "attribute" => match func.child_by_field_id(f.attribute) {
                Some(a) => (a, func.child_by_field_id(f.object)),
                None => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        let args = self.arguments(arglist, names);
        let cx = CallCx {
            name: self.text(name_node),
            name_node,
            object,
            arglist,
            call_range: self.host(call.byte_range()),
            args: &args,
            names,
        };
        if let Some(site) = self.wrapped_call(&cx) {
            return vec![site];
        }
        for form in FORMS {
            if !self.spelled(form, &cx) {
                continue;
            }
            let found = self.form_call(form, &cx);
            if !found.is_empty() {
                return found;
            }
        }
        self.graphql_post(&cx).into_iter().collect()
    }

    /// Tool calls (by name, as LangChain tools, through an MCP client) and GraphQL helpers.
    fn wrapped_call<'t>(&self, cx: &CallCx<'_, 't>) -> Option<Site> {
        let (name, args, call_range) = (cx.name, cx.args, cx.call_range.clone());
        let name_range = self.host(cx.name_node.byte_range());
        if let Some(tool) = tools::tool_from_name(name) {
            let named = self.name_args(positional_names(tool), args);
            return tools::build(tool, Syntax::Python, name_range, call_range, &named);
        }
        // `netbox_get_objects.invoke({...})`: LangChain tools take one dict of arguments.
        if let Some(obj) = cx.object {
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
        // Platform MCP code mode: `graphql(query, variables=None, analyze=True)`.
        if name == "graphql" && cx.object.is_none() {
            let named = self.name_args(&["query", "variables"], args);
            return tools::graphql_site(&named);
        }
        None
    }

    /// `requests.post(".../graphql/", json={"query": ..., "variables": ...})`.
    fn graphql_post<'t>(&self, cx: &CallCx<'_, 't>) -> Option<Site> {
        if cx.name != "post" || cx.object.is_none() {
            return None;
        }
        let body = cx.args.keyword("json")?;
        let query = &body.get("query")?.value;
        let variables = body
            .get("variables")
            .and_then(|v| v.value.to_json())
            .filter(|v| v.is_object());
        tools::graphql_doc(query, variables)
    }

    /// True when the call is spelled as `form` says and meets its guard.
    fn spelled<'t>(&self, form: &Form, cx: &CallCx<'_, 't>) -> bool {
        let spelled = match form.callee {
            Callee::Tool(_) => false,
            Callee::Bare(n) => cx.object.is_none() && cx.name == n,
            Callee::Method(n) => cx.object.is_some() && cx.name == n,
            Callee::Function(n) => cx.name == n,
            Callee::Chain(m) => cx.name == m && cx.object.is_some(),
            Callee::Any => true,
            // Other hosts' forms (read by `ansible`, `curl`, `text`).
            Callee::Lookup { .. }
            | Callee::InventoryPlugin(_)
            | Callee::Command { .. }
            | Callee::Url => false,
        };
        if !spelled {
            return false;
        }
        let arg = |i: usize, kw: &str| cx.args.positional.get(i).or_else(|| cx.args.keyword(kw));
        match form.guard {
            Guard::Always => true,
            Guard::ObjectTypeShape => arg(0, "type")
                .or_else(|| cx.args.keyword("object_type"))
                .and_then(|l| l.as_str())
                .is_some_and(|(s, _)| forms::object_type_shaped(s)),
            Guard::HasFilters => {
                cx.args.keyword("filters").is_some()
                    || cx
                        .args
                        .positional
                        .first()
                        .is_some_and(|l| l.pairs().is_some())
            }
            Guard::HasObjectTypes => cx.args.keyword("object_types").is_some(),
            Guard::MethodGet => arg(0, "method")
                .and_then(|l| l.as_str())
                .is_some_and(|(s, _)| s.eq_ignore_ascii_case("get")),
            Guard::NotWrite => !forms::name_has_word(cx.name, forms::WRITE_WORDS),
        }
    }

    /// The sites of a call of `form`.
    fn form_call<'t>(&self, form: &Form, cx: &CallCx<'_, 't>) -> Vec<Site> {
        let args = cx.args;
        match form.target {
            TargetAt::ObjectType | TargetAt::Fixed(_) | TargetAt::Nothing => {
                let mut named = self.name_args(form.params, args);
                // The MCP server's `limit` range (1–100) is not code mode's: its published
                // workflows ask for `limit=1000` (netboxlabs/skills code-mode-workflows.md).
                if matches!(form.callee, Callee::Bare(_)) {
                    named.retain(|a| a.name != "limit");
                }
                for a in &mut named {
                    // Code mode names its parameters `type` and `id`.
                    match a.name.as_str() {
                        "type" => a.name = "object_type".into(),
                        "id" => a.name = "object_id".into(),
                        _ => {}
                    }
                }
                let name_range = self.host(cx.name_node.byte_range());
                tools::build(
                    Tool::Rest(form.form),
                    Syntax::Python,
                    name_range,
                    cx.call_range.clone(),
                    &named,
                )
                .into_iter()
                .collect()
            }
            TargetAt::Chain => cx
                .object
                .and_then(|obj| self.pynetbox(obj, cx.name, cx))
                .into_iter()
                .collect(),
            TargetAt::Url(i, kw) | TargetAt::ApiPath(i, kw) => {
                let Some(url) = args.node(i, kw) else {
                    return Vec::new();
                };
                let bound;
                let params = match form.filters {
                    FiltersAt::Params(p) | FiltersAt::ParamsOrNext(p) => {
                        bound = self.params_bound_above(p, cx);
                        bound.as_ref().or_else(|| args.keyword(p)).or_else(|| {
                            form.params
                                .iter()
                                .position(|n| *n == p)
                                .and_then(|k| args.positional.get(k))
                                .filter(|l| l.pairs().is_some())
                        })
                    }
                    _ => None,
                };
                let api_relative = matches!(form.target, TargetAt::ApiPath(..));
                self.url_call(url, api_relative, params, cx)
            }
            TargetAt::WrapperPath(i) => self.wrapper_call(form, i, cx),
            TargetAt::Terms { .. }
            | TargetAt::Both(..)
            | TargetAt::UrlWord { .. }
            | TargetAt::UrlPath => Vec::new(),
        }
    }

    /// `params=name` where `name` is bound to a dict literal by the nearest assignment above
    /// the call in the same block (`params = {...}` then `requests.get(url, params=params)`):
    /// that dict, so positions and fixes land in it.
    fn params_bound_above<'t>(&self, kw: &str, cx: &CallCx<'_, 't>) -> Option<Lit> {
        let k = cx.args.keywords.iter().position(|k| k.0 == kw)?;
        if cx.args.keywords[k].2.pairs().is_some() {
            return None;
        }
        let node = *cx.args.keyword_nodes.get(k)?;
        let dict = self.dict_assigned_above(node, cx.arglist)?;
        Some(self.lit(dict, 0))
    }

    /// A client wrapper's call: a string literal at positional `i` that names a NetBox
    /// endpoint by itself (see [`TargetAt::WrapperPath`]), its filters in `params=` or, for
    /// [`FiltersAt::ParamsOrNext`] and a read-like name, in a dict literal right after it.
    /// Anything else (another API's path, a detail path, a write) is no call.
    fn wrapper_call<'t>(&self, form: &Form, i: usize, cx: &CallCx<'_, 't>) -> Vec<Site> {
        let args = cx.args;
        let Some(node) = args.positional_nodes.get(i).copied() else {
            return Vec::new();
        };
        let plain = args.positional.get(i).and_then(|l| l.as_str());
        let named = match plain {
            Some((path, _)) => node.kind() == "string" && wrapper_path(path),
            // An f-string or concatenation: its literal text must hold `/api/<app>/`.
            None => {
                matches!(
                    node.kind(),
                    "string" | "binary_operator" | "concatenated_string"
                ) && api_app_in(self.text(node))
            }
        };
        if !named {
            return Vec::new();
        }
        let bound;
        let params = match form.filters {
            FiltersAt::Params(p) | FiltersAt::ParamsOrNext(p) => {
                bound = self.params_bound_above(p, cx);
                bound.as_ref().or_else(|| args.keyword(p)).or_else(|| {
                    let next = args.positional.get(i + 1).filter(|l| l.pairs().is_some());
                    next.filter(|_| {
                        matches!(form.filters, FiltersAt::ParamsOrNext(_))
                            && forms::name_has_word(cx.name, forms::READ_WORDS)
                    })
                })
            }
            _ => None,
        };
        self.url_call(node, plain.is_some(), params, cx)
    }

    /// Positional and keyword arguments named after the signature `names`.
    fn name_args<'l, 't>(&self, names: &[&str], args: &'l Args<'t>) -> Vec<Arg<'l>> {
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
    fn pynetbox<'t>(&self, obj: Node<'t>, method: &str, cx: &CallCx<'_, 't>) -> Option<Site> {
        let args = cx.args;
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
                    let pairs = args.splats[*i].pairs().map(<[Pair]>::to_vec).or_else(|| {
                        // `**params` with `params = {...}` assigned just above.
                        let node = args.splat_nodes.get(*i)?;
                        let dict = self.dict_assigned_above(*node, cx.arglist)?;
                        self.lit(dict, 0).pairs().map(<[Pair]>::to_vec)
                    });
                    if let Some(pairs) = pairs {
                        filters.extend(tools::entries(&pairs));
                    }
                }
            }
        }
        Some(Site::Rest(RestCall {
            form: CallForm::Pynetbox,
            syntax: Syntax::Python,
            target: Some((target, target_range)),
            call_range: cx.call_range.clone(),
            filters_range: Some(self.host(cx.arglist.byte_range())),
            filters,
            args: extra,
        }))
    }

    /// The dict literal bound to identifier `name` by the nearest assignment above the
    /// statement holding `at`, in the same block (`params = {...}` then `.filter(**params)`).
    /// A dict bound in another scope or further away is not read: it may have changed.
    fn dict_assigned_above<'t>(&self, name: Node<'t>, at: Node<'t>) -> Option<Node<'t>> {
        if name.kind() != "identifier" {
            return None;
        }
        let want = self.text(name);
        // The statement holding the call: climb to a child of a block or module.
        let mut stmt = at;
        while let Some(p) = stmt.parent() {
            if matches!(p.kind(), "block" | "module") {
                break;
            }
            stmt = p;
        }
        let mut prev = stmt.prev_named_sibling();
        while let Some(s) = prev {
            let assignment = (s.kind() == "expression_statement")
                .then(|| s.named_child(0))
                .flatten()
                .filter(|a| a.kind() == "assignment");
            if let Some(a) = assignment {
                let left = a.child_by_field_name("left")?;
                if left.kind() == "identifier" && self.text(left) == want {
                    let right = a.child_by_field_name("right")?;
                    return (right.kind() == "dictionary").then_some(right);
                }
            } else if self.assigns(s, want) {
                // Rebound inside an `if`/`for`/`try` between the dict and the call: which
                // dict is sent is known only at run time.
                return None;
            }
            prev = s.prev_named_sibling();
        }
        None
    }

    /// True when statement `s` binds identifier `want` anywhere inside (`want = ...`,
    /// `want += ...`, `for want in ...`).
    fn assigns(&self, s: Node, want: &str) -> bool {
        if !self.text(s).contains(want) {
            return false;
        }
        let mut found = false;
        for_each_node(s, |n| {
            let left = match n.kind() {
                "assignment" | "augmented_assignment" => n.child_by_field_name("left"),
                "for_statement" => n.child_by_field_name("left"),
                _ => None,
            };
            if left.is_some_and(|l| l.kind() == "identifier" && self.text(l) == want) {
                found = true;
            }
        });
        found
    }

    /// A REST call through an HTTP client: the endpoint path in the URL `url` (a string, an
    /// f-string, a concatenation, `urljoin(...)`, or a name bound to one of these), its
    /// filters in `params` and in the URL's own query string or `urlencode({...})`.
    /// `api_relative`: the URL is an endpoint relative to `/api/` (code mode's `api()`).
    fn url_call<'t>(
        &self,
        url: Node<'t>,
        api_relative: bool,
        params: Option<&Lit>,
        cx: &CallCx<'_, 't>,
    ) -> Vec<Site> {
        let mut parts = Vec::new();
        self.url_parts(url, cx.names, 0, &mut parts);
        if api_relative {
            parts.insert(0, UrlPart::Dynamic);
        }
        let Some((k, path, relative)) = self.url_path(&parts) else {
            return Vec::new();
        };
        let UrlPart::Text(piece) = parts[k].clone() else {
            return Vec::new();
        };
        let target = (self.src[path.clone()].to_string(), self.host(path.clone()));
        let mut out = Vec::new();
        if let Some(pairs) = params.and_then(|p| p.pairs()) {
            out.push(Site::Rest(RestCall {
                form: CallForm::Url,
                syntax: Syntax::Python,
                target: Some(target.clone()),
                call_range: cx.call_range.clone(),
                filters_range: params.map(|p| p.range.clone()),
                filters: tools::entries(pairs),
                args: Vec::new(),
            }));
        }
        let rest = &self.src[path.end..piece.end];
        let next = parts.get(k + 1);
        // `... + "?" + urlencode({...})` / `f"...?{urlencode(q)}"`.
        let encoded = parts[k + 1..].iter().find_map(|p| match p {
            UrlPart::Encoded(d) => Some(d),
            _ => None,
        });
        if let Some(dict) = encoded.filter(|_| rest.starts_with('?') || rest.is_empty()) {
            if let Some(pairs) = dict.pairs() {
                out.push(Site::Rest(RestCall {
                    form: CallForm::Url,
                    syntax: Syntax::Python,
                    target: Some(target.clone()),
                    call_range: dict.range.clone(),
                    filters_range: Some(dict.range.clone()),
                    filters: tools::entries(pairs),
                    args: Vec::new(),
                }));
            }
        } else if relative && rest.starts_with('?') && rest.len() > 1 {
            // A query string after a base-relative path (the `/api/` form is found by the URL
            // scan of every string). Interpolated values are placeholders, interpolated names
            // are skipped, a value cut by a concatenation is unknown.
            let q = path.end + 1..piece.end;
            let mut filters: Vec<FilterEntry> = super::text::query_pairs(self.src, q.clone())
                .into_iter()
                .filter(|e| !e.key.contains(['{', '}']))
                .map(|mut e| {
                    e.key_range = self.host(e.key_range);
                    e.value_range = self.host(e.value_range);
                    e
                })
                .collect();
            if piece.end == q.end && matches!(next, Some(UrlPart::Dynamic)) {
                if let Some(last) = filters.last_mut() {
                    last.value = Value::Expr;
                }
            }
            if !filters.is_empty() {
                out.push(Site::Rest(RestCall {
                    form: CallForm::Url,
                    syntax: Syntax::Query,
                    target: Some(target),
                    call_range: self.host(path.start..q.end),
                    filters_range: Some(self.host(q)),
                    filters,
                    args: Vec::new(),
                }));
            }
        }
        out
    }

    /// The endpoint path in `parts`: the part index, the path's embedded range, and whether it
    /// is base-relative (`/dcim/devices/` after an interpolated or concatenated base that ends
    /// in `/api`) rather than written with `/api/`.
    fn url_path(&self, parts: &[UrlPart]) -> Option<(usize, Range<usize>, bool)> {
        for (k, part) in parts.iter().enumerate() {
            let UrlPart::Text(r) = part else {
                continue;
            };
            let raw = self.src.get(r.clone())?;
            let end_ok =
                |raw: &str, end: usize| matches!(raw.as_bytes().get(end), None | Some(b'?'));
            if let Some(at) = raw.find("/api/") {
                let end = super::text::list_path_end(raw, at)?;
                return end_ok(raw, end).then(|| (k, r.start + at..r.start + end, false));
            }
            // The base: known only at run time, or a constant that ends in `/api`.
            let after_base = k > 0
                && match &parts[k - 1] {
                    UrlPart::Dynamic => true,
                    UrlPart::Text(b) => self
                        .src
                        .get(b.clone())
                        .is_some_and(|b| b.trim_end_matches('/').ends_with("/api")),
                    UrlPart::Encoded(_) => false,
                };
            if after_base {
                let rel = raw.trim_start_matches('/');
                let lead = raw.len() - rel.len();
                let probe = format!("/api/{rel}");
                let app = rel.split('/').next().unwrap_or("");
                if let Some(end) = super::text::list_path_end(&probe, 0).map(|e| e - 5 + lead) {
                    if (APPS.contains(&app) || app == "plugins") && end_ok(raw, end) {
                        return Some((k, r.start..r.start + end, true));
                    }
                }
            }
            if raw.contains('?') {
                return None;
            }
        }
        None
    }

    /// Flattens a URL expression into literal text pieces (embedded ranges of string content),
    /// run-time pieces and `urlencode({...})` pieces, in order.
    fn url_parts<'t>(
        &self,
        n: Node<'t>,
        names: &HashMap<&str, Node<'t>>,
        depth: usize,
        out: &mut Vec<UrlPart>,
    ) {
        if depth > 8 {
            out.push(UrlPart::Dynamic);
            return;
        }
        match n.kind() {
            "string" => {
                let mut cursor = n.walk();
                for c in n.children(&mut cursor) {
                    match c.kind() {
                        "string_content" => match out.last_mut() {
                            // Escapes split the content; keep one piece.
                            Some(UrlPart::Text(r)) if r.end == c.start_byte() => {
                                r.end = c.end_byte()
                            }
                            _ => out.push(UrlPart::Text(c.byte_range())),
                        },
                        "interpolation" => {
                            let inner = c.named_child(0);
                            match inner.filter(|i| self.is_urlencode(*i)) {
                                Some(call) => self.url_parts(call, names, depth + 1, out),
                                None => out.push(UrlPart::Dynamic),
                            }
                        }
                        _ => {}
                    }
                }
            }
            "concatenated_string" => {
                let mut cursor = n.walk();
                for c in n.named_children(&mut cursor) {
                    self.url_parts(c, names, depth + 1, out);
                }
            }
            "binary_operator"
                if n.child_by_field_name("operator")
                    .is_some_and(|o| self.text(o) == "+") =>
            {
                if let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) {
                    self.url_parts(l, names, depth + 1, out);
                    self.url_parts(r, names, depth + 1, out);
                }
            }
            "parenthesized_expression" if n.named_child_count() == 1 => {
                if let Some(inner) = n.named_child(0) {
                    self.url_parts(inner, names, depth + 1, out);
                }
            }
            "identifier" => match names.get(self.text(n)) {
                Some(bound) if bound.id() != n.id() => {
                    self.url_parts(*bound, names, depth + 1, out)
                }
                _ => out.push(UrlPart::Dynamic),
            },
            "call" => {
                let args = n
                    .child_by_field_name("arguments")
                    .filter(|a| a.kind() == "argument_list");
                let func = n.child_by_field_name("function").map(|f| {
                    let name = f.child_by_field_name("attribute").unwrap_or(f);
                    self.text(name)
                });
                let mut positional = args
                    .map(|a| {
                        let mut c = a.walk();
                        a.named_children(&mut c)
                            .filter(|x| !matches!(x.kind(), "comment" | "keyword_argument"))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
                    .into_iter();
                match func {
                    // urljoin(base, "/api/dcim/devices/") keeps only the absolute path; a
                    // relative one is appended to the base.
                    Some("urljoin") => {
                        let (_, Some(rel)) = (positional.next(), positional.next()) else {
                            out.push(UrlPart::Dynamic);
                            return;
                        };
                        let mut tail = Vec::new();
                        self.url_parts(rel, names, depth + 1, &mut tail);
                        let absolute = matches!(tail.first(), Some(UrlPart::Text(r))
                            if self.src[r.clone()].starts_with('/'));
                        if !absolute {
                            out.push(UrlPart::Dynamic);
                        }
                        out.extend(tail);
                    }
                    Some("urlencode") => match positional.next() {
                        Some(d) => {
                            let lit = self.lit_resolved(d, names, true);
                            if lit.pairs().is_some() {
                                out.push(UrlPart::Encoded(lit));
                            } else {
                                out.push(UrlPart::Dynamic);
                            }
                        }
                        None => out.push(UrlPart::Dynamic),
                    },
                    _ => out.push(UrlPart::Dynamic),
                }
            }
            _ => out.push(UrlPart::Dynamic),
        }
    }

    fn is_urlencode(&self, n: Node) -> bool {
        n.kind() == "call"
            && n.child_by_field_name("function").is_some_and(|f| {
                let name = f.child_by_field_name("attribute").unwrap_or(f);
                self.text(name) == "urlencode"
            })
    }

    fn arguments<'t>(&self, arglist: Node<'t>, names: &HashMap<&str, Node<'t>>) -> Args<'t> {
        let mut args = Args::default();
        let f = parse::py_fields();
        let mut cursor = arglist.walk();
        for child in arglist.named_children(&mut cursor) {
            match py_kind(child) {
                "comment" => {}
                "keyword_argument" => {
                    let (Some(n), Some(v)) = (
                        child.child_by_field_id(f.name),
                        child.child_by_field_id(f.value),
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
                    args.keyword_nodes.push(v);
                }
                "dictionary_splat" => {
                    if let Some(inner) = child.named_child(0) {
                        args.ordered.push(Item::Splat(args.splats.len()));
                        args.splats.push(self.lit_resolved(inner, names, false));
                        args.splat_nodes.push(inner);
                    }
                }
                "list_splat" => {
                    args.positional
                        .push(Lit::scalar(Value::Expr, self.host(child.byte_range())));
                    args.positional_nodes.push(child);
                }
                _ => {
                    args.positional.push(self.lit_resolved(child, names, false));
                    args.positional_nodes.push(child);
                }
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
        if py_kind(n) == "identifier" {
            if let Some(target) = names.get(self.text(n)) {
                if py_kind(*target) == "string" {
                    return self.lit(*target, 0);
                }
                if dicts && py_kind(*target) == "dictionary" {
                    node = *target;
                }
            }
        }
        let mut lit = self.lit(node, 0);
        if dicts && py_kind(node) == "dictionary" {
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
        match py_kind(n) {
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
                    .filter(|c| py_kind(*c) != "comment")
                    .map(|c| self.lit(c, depth + 1))
                    .collect();
                Lit::seq(items, range)
            }
            "dictionary" => {
                let mut cursor = n.walk();
                let mut pairs = Vec::new();
                let f = parse::py_fields();
                for p in n.named_children(&mut cursor) {
                    if py_kind(p) != "pair" {
                        continue;
                    }
                    let (Some(k), Some(v)) =
                        (p.child_by_field_id(f.key), p.child_by_field_id(f.value))
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
            match py_kind(c) {
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
                            .filter(|e| py_kind(*e) == "escape_sequence")
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

/// The arguments of a call, as literals (and their nodes, for URL expressions).
#[derive(Default)]
struct Args<'t> {
    positional: Vec<Lit>,
    positional_nodes: Vec<Node<'t>>,
    /// `(name, name host range, value)`.
    keywords: Vec<(String, Range<usize>, Lit)>,
    keyword_nodes: Vec<Node<'t>>,
    /// `**{...}` dicts.
    splats: Vec<Lit>,
    splat_nodes: Vec<Node<'t>>,
    /// Keywords and splats in source order.
    ordered: Vec<Item>,
}

enum Item {
    Keyword(usize),
    Splat(usize),
}

impl<'t> Args<'t> {
    fn keyword(&self, name: &str) -> Option<&Lit> {
        self.keywords.iter().find(|k| k.0 == name).map(|k| &k.2)
    }

    /// The node of positional argument `i`, else of keyword `kw`.
    fn node(&self, i: usize, kw: &str) -> Option<Node<'t>> {
        self.positional_nodes.get(i).copied().or_else(|| {
            let k = self.keywords.iter().position(|k| k.0 == kw)?;
            self.keyword_nodes.get(k).copied()
        })
    }
}

/// One call being recognised: its name, receiver, arguments and host range.
struct CallCx<'c, 't> {
    name: &'c str,
    name_node: Node<'t>,
    object: Option<Node<'t>>,
    arglist: Node<'t>,
    call_range: Range<usize>,
    args: &'c Args<'t>,
    names: &'c HashMap<&'c str, Node<'t>>,
}

/// True when a wrapper's path literal names a NetBox endpoint by itself: `/api/<app>/...`
/// (also after a scheme and host) for a NetBox app or `plugins`, or `<app>/<endpoint>/` (with
/// or without a leading `/`) of a known endpoint. Apps whose names other APIs use too
/// (`users`, `core`, `extras`: `/api/users/profile`) need a known endpoint in both spellings.
/// A query string may follow.
fn wrapper_path(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or("");
    let key_of = |rest: &str| {
        let rest = rest.trim_matches('/');
        let mut it = rest.splitn(3, '/');
        let (app, ep) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
        (app.to_string(), format!("{app}/{ep}"))
    };
    if let Some(at) = path.find("/api/") {
        let before = &path[..at];
        // Only the host may come before `/api/` (`https://nb.example.com/api/...`).
        let host_only = match before.split_once("://") {
            Some((_, host)) => !host.contains('/'),
            None => before.is_empty(),
        };
        if !host_only {
            return false;
        }
        let (app, key) = key_of(&path[at + 5..]);
        let generic = matches!(app.as_str(), "users" | "core" | "extras");
        return app == "plugins"
            || APPS.contains(&app.as_str()) && (!generic || forms::known_endpoint(&key));
    }
    let rel = path.strip_prefix("api/").unwrap_or(path);
    let (app, key) = key_of(rel);
    APPS.contains(&app.as_str()) && forms::known_endpoint(&key)
}

/// True when `src` holds `/api/<app>/` for a NetBox app or `/api/plugins/` (an app other APIs
/// use too, `users`, `core`, `extras`, with a known endpoint: see [`wrapper_path`]).
fn api_app_in(src: &str) -> bool {
    src.match_indices("/api/").any(|(at, _)| {
        let rest = &src[at + 5..];
        let mut it = rest.split('/');
        let (app, ep) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
        let generic = matches!(app, "users" | "core" | "extras");
        rest.len() > app.len()
            && (app == "plugins"
                || APPS.contains(&app)
                    && (!generic || forms::known_endpoint(&format!("{app}/{ep}"))))
    })
}

/// A piece of a URL expression.
#[derive(Clone)]
enum UrlPart {
    /// Literal text: the embedded range of a string's content.
    Text(Range<usize>),
    /// Known only at run time (an interpolation, a variable, a call).
    Dynamic,
    /// `urlencode({...})`: the dict.
    Encoded(Lit),
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
