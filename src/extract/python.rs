//! Extraction from Python: MCP tool calls (`netbox_get_objects(...)` and friends, also as
//! `tools.netboxGetObjects(...)`, `<tool>.invoke({...})`, `session.call_tool("name", {...})`),
//! pynetbox `nb.<app>.<endpoint>.filter/get/count(...)`, `requests.get(url, params={...})`,
//! GraphQL documents in `netbox_graphql(query=...)`, `gql("...")` and
//! `requests.post(".../graphql/", json={"query": ...})`, plus REST URLs in any string or comment.
//!
//! The text is parsed with ruff's parser (`ruff_python_parser`, see [`super::parse::python`]),
//! which recovers from syntax errors with a partial tree; byte ranges of its typed AST are
//! embedded offsets, mapped to the host through the [`OffsetMap`].
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

use ruff_python_ast::visitor::source_order::{self, SourceOrderVisitor};
use ruff_python_ast::{
    self as ast, ArgOrKeyword, Expr, InterpolatedStringElement, Number, Operator, Stmt, UnaryOp,
};
use ruff_text_size::{Ranged, TextRange};

use super::forms::{self, Callee, FiltersAt, Form, Guard, TargetAt, APPS, FORMS};
use super::lit::Pair;
use super::lit::{EscapedText, Lit, LitKind};
use super::parse::{self, MAX_DEPTH};
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
    let Some(parsed) = parse::python(text) else {
        return Vec::new();
    };
    let mut sites = Cx::new(text, text.len(), map, &parsed).sites(parsed.syntax());
    if !parsed.errors().is_empty() {
        // Re-read with what is open closed; keep the calls the first reading missed.
        let close = parse::closers(text, true);
        if !close.is_empty() {
            let repaired = format!("{text}{close}");
            if let Some(parsed2) = parse::python(&repaired) {
                let more = Cx::new(&repaired, text.len(), map, &parsed2).sites(parsed2.syntax());
                let mut broken: Vec<usize> = parsed
                    .errors()
                    .iter()
                    .map(|e| map.to_host(e.location.start().to_usize().min(text.len())))
                    .collect();
                broken.sort_unstable();
                add_repaired(&mut sites, more, &broken);
            }
        }
    }
    sites
}

/// Bare `params = {...}` dicts at the top level of a code block that no call of `found` (the
/// block's sites) reads, sent to the one endpoint the block names: the single
/// `/api/<app>/<endpoint>/` path in its strings or comments (`url = f"{NB}/api/dcim/devices/"`,
/// `# GET /api/dcim/devices/`), else `above`, the path the sentence right before the block
/// names (target text and host range). Issue 19 §4: a skill file shows the filters of a
/// request it describes in prose. No path, or several different ones, is no site: which
/// endpoint the dict goes to is then not known.
pub(crate) fn bare_params(
    text: &str,
    map: &OffsetMap,
    found: &[Site],
    above: Option<&(String, Range<usize>)>,
) -> Vec<Site> {
    if !text.contains("params") {
        return Vec::new();
    }
    let Some(parsed) = parse::python(text) else {
        return Vec::new();
    };
    let cx = Cx::new(text, text.len(), map, &parsed);
    let read: Vec<Range<usize>> = found
        .iter()
        .filter_map(|s| match s {
            Site::Rest(c) => c.filters_range.clone(),
            Site::Graphql(_) => None,
        })
        .collect();
    let mut dicts = Vec::new();
    for stmt in &parsed.syntax().body {
        let Stmt::Assign(a) = stmt else { continue };
        let [Expr::Name(n)] = a.targets.as_slice() else {
            continue;
        };
        if n.id.as_str() != "params" || !matches!(*a.value, Expr::Dict(_)) {
            continue;
        }
        let lit = cx.lit(&a.value, None, 0);
        if lit.pairs().is_some() && !read.contains(&lit.range) {
            dicts.push((cx.host(span(a.range)), lit));
        }
    }
    if dicts.is_empty() {
        return Vec::new();
    }
    let target = match super::text::endpoints(text, map).as_slice() {
        [one] => one.clone(),
        [] => match above {
            Some(t) => t.clone(),
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    dicts
        .into_iter()
        .filter_map(|(call_range, lit)| {
            let pairs = lit.pairs()?;
            Some(Site::Rest(RestCall {
                form: CallForm::Url,
                syntax: Syntax::Python,
                target: Some(target.clone()),
                call_range,
                filters_range: Some(lit.range.clone()),
                filters: tools::entries(pairs),
                args: Vec::new(),
            }))
        })
        .collect()
}

/// Adds to `sites` the REST calls and documents of `more` (the re-reading with what is open
/// closed) that start where none of `sites` starts, as [`super::add_missing`]; a REST call that
/// starts where one of `sites` starts replaces it when it ends later or holds a syntax error
/// (`broken`: host offsets, sorted) after its start. ruff's recovery ends a half-typed call at
/// its last token (`f(a=1, ` ends before the space) and drops what it cannot read
/// (`status="` at the end), the re-reading reads it up to the end of the text, where an
/// editor's cursor is.
fn add_repaired(sites: &mut Vec<Site>, more: Vec<Site>, broken: &[usize]) {
    let has_error = |r: &Range<usize>| {
        let i = broken.partition_point(|&e| e <= r.start);
        broken.get(i).is_some_and(|&e| e <= r.end)
    };
    let mut at: HashMap<usize, usize> = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        if let Site::Rest(c) = s {
            at.entry(c.call_range.start).or_insert(i);
        }
    }
    let mut rest = Vec::with_capacity(more.len());
    for site in more {
        if let Site::Rest(c) = &site {
            if let Some(&i) = at.get(&c.call_range.start) {
                if matches!(&sites[i], Site::Rest(old)
                    if old.call_range.end < c.call_range.end || has_error(&old.call_range))
                {
                    sites[i] = site;
                }
                continue;
            }
        }
        rest.push(site);
    }
    super::add_missing(sites, rest);
}

/// Embedded byte range of a ruff range.
fn span(r: TextRange) -> Range<usize> {
    r.start().to_usize()..r.end().to_usize()
}

/// The statement holding a node: its block (module or compound statement body) and index.
type StmtAt<'t> = Option<(&'t [Stmt], usize)>;

/// Name bindings (`x = <expr>`; `None` for an earlier target of a chained assignment, whose
/// value is the rest of the chain) and the calls of a module, in document order.
struct Walk<'s, 't> {
    src: &'s str,
    names: HashMap<&'s str, Option<&'t Expr>>,
    calls: Vec<(&'t ast::ExprCall, StmtAt<'t>)>,
    stmt: StmtAt<'t>,
}

impl<'s, 't> Walk<'s, 't> {
    fn bind(&mut self, target: &Expr, value: Option<&'t Expr>) {
        if let Expr::Name(n) = target {
            if let Some(t) = self.src.get(span(n.range)) {
                self.names.insert(t, value);
            }
        }
    }
}

impl<'t> SourceOrderVisitor<'t> for Walk<'_, 't> {
    fn visit_body(&mut self, body: &'t [Stmt]) {
        let outer = self.stmt;
        for (i, s) in body.iter().enumerate() {
            self.stmt = Some((body, i));
            self.visit_stmt(s);
        }
        self.stmt = outer;
    }

    fn visit_stmt(&mut self, s: &'t Stmt) {
        match s {
            Stmt::Assign(a) => {
                let last = a.targets.len().saturating_sub(1);
                for (i, t) in a.targets.iter().enumerate() {
                    self.bind(t, (i == last).then_some(&*a.value));
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.bind(&a.target, Some(v));
                }
            }
            _ => {}
        }
        source_order::walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'t Expr) {
        if let Expr::Call(c) = e {
            self.calls.push((c, self.stmt));
        }
        source_order::walk_expr(self, e);
    }
}

/// True when statement `s` binds identifier `want` anywhere inside (`want = ...`,
/// `want += ...`, `want: T`, `for want in ...`).
struct Binds<'s> {
    src: &'s str,
    want: &'s str,
    found: bool,
}

impl<'t> SourceOrderVisitor<'t> for Binds<'_> {
    fn visit_stmt(&mut self, s: &'t Stmt) {
        let is =
            |e: &Expr| matches!(e, Expr::Name(n) if self.src.get(span(n.range)) == Some(self.want));
        let hit = match s {
            Stmt::Assign(a) => a.targets.iter().any(is),
            Stmt::AnnAssign(a) => is(&a.target),
            Stmt::AugAssign(a) => is(&a.target),
            Stmt::For(f) => is(&f.target),
            _ => false,
        };
        self.found |= hit;
        if !self.found {
            source_order::walk_stmt(self, s);
        }
    }
}

/// A string expression: its parts' ranges, whether it is one part (not an implicit
/// concatenation), and for each part whether it interpolates.
fn string_parts(e: &Expr) -> Option<Vec<(TextRange, bool)>> {
    Some(match e {
        Expr::StringLiteral(s) => s.value.iter().map(|p| (p.range, false)).collect(),
        Expr::BytesLiteral(s) => s.value.iter().map(|p| (p.range, false)).collect(),
        Expr::FString(s) => s
            .value
            .iter()
            .map(|p| match p {
                ast::FStringPart::Literal(l) => (l.range, false),
                ast::FStringPart::FString(f) => (
                    f.range,
                    f.elements
                        .iter()
                        .any(|el| matches!(el, InterpolatedStringElement::Interpolation(_))),
                ),
            })
            .collect(),
        _ => return None,
    })
}

/// True for a string made of one part (`"a"`, `f"a{x}"`), not an implicit concatenation.
fn single_string(e: &Expr) -> bool {
    string_parts(e).is_some_and(|p| p.len() == 1)
}

/// Extraction context: the (possibly repaired) source, the original length (ranges are clipped
/// to it) and the map to the host.
struct Cx<'a> {
    src: &'a str,
    len: usize,
    map: &'a OffsetMap,
    /// Where ruff reported syntax errors (embedded offsets, sorted).
    errors: Vec<usize>,
}

impl<'a> Cx<'a> {
    fn new(
        src: &'a str,
        len: usize,
        map: &'a OffsetMap,
        parsed: &ruff_python_parser::Parsed<ast::ModModule>,
    ) -> Self {
        let mut errors: Vec<usize> = parsed
            .errors()
            .iter()
            .map(|e| e.location.start().to_usize())
            .collect();
        errors.sort_unstable();
        Cx {
            src,
            len,
            map,
            errors,
        }
    }

    /// True when a syntax error starts strictly inside `start..end`: ruff's recovery made the
    /// item from broken text (a dict entry tree-sitter read as an error node, which was
    /// skipped).
    fn broken(&self, start: usize, end: usize) -> bool {
        let i = self.errors.partition_point(|&e| e <= start);
        self.errors.get(i).is_some_and(|&e| e < end)
    }

    fn text(&self, r: TextRange) -> &'a str {
        self.src.get(span(r)).unwrap_or("")
    }

    /// Host range of an embedded range, clipped to the original text.
    fn host(&self, r: Range<usize>) -> Range<usize> {
        let end = r.end.min(self.len);
        let start = r.start.min(end);
        self.map.range_to_host(start..end)
    }

    /// `r` widened over the parentheses around it (ruff's ranges leave them out); `open`: the
    /// offset of a call's own `(`, which is not the expression's.
    fn outer(&self, r: TextRange, open: Option<usize>) -> Range<usize> {
        let b = self.src.as_bytes();
        let (mut start, mut end) = (r.start().to_usize(), r.end().to_usize());
        let blank = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\\');
        loop {
            let mut s = start;
            while s > 0 && blank(b[s - 1]) {
                s -= 1;
            }
            if s == 0 || b[s - 1] != b'(' || Some(s - 1) == open {
                return start..end;
            }
            let mut e = end;
            while e < b.len() && blank(b[e]) {
                e += 1;
            }
            if b.get(e) != Some(&b')') {
                return start..end;
            }
            start = s - 1;
            end = e + 1;
        }
    }

    /// True when `e` is written in parentheses of its own.
    fn parenthesized(&self, e: &Expr, open: Option<usize>) -> bool {
        self.outer(e.range(), open) != span(e.range())
    }

    fn sites(&self, module: &ast::ModModule) -> Vec<Site> {
        let mut walk = Walk {
            src: self.src,
            names: HashMap::new(),
            calls: Vec::new(),
            stmt: None,
        };
        walk.visit_body(&module.body);
        let Walk { names, calls, .. } = walk;
        let found = calls
            .into_iter()
            .filter(|(call, _)| call.range().start().to_usize() < self.len)
            .flat_map(|(call, stmt)| self.call(call, stmt, &names))
            .collect();
        let mut out = Vec::new();
        super::add_missing(&mut out, found);
        out
    }

    fn call<'t>(
        &self,
        call: &'t ast::ExprCall,
        stmt: StmtAt<'t>,
        names: &HashMap<&str, Option<&'t Expr>>,
    ) -> Vec<Site> {
        let arglist = &call.arguments;
        // `f(x for x in y)`: a generator, not an argument list.
        if let [Expr::Generator(g)] = &*arglist.args {
            if !g.parenthesized && arglist.keywords.is_empty() {
                return Vec::new();
            }
        }
        let (name_range, object) = match &*call.func {
            Expr::Name(n) => (n.range, None),
            Expr::Attribute(a) => (a.attr.range, Some(&*a.value)),
            _ => return Vec::new(),
        };
        let args = self.arguments(arglist, names);
        let cx = CallCx {
            name: self.text(name_range),
            name_range,
            object,
            arglist,
            stmt,
            call_range: self.host(span(call.range())),
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
        let name_range = self.host(span(cx.name_range));
        if let Some(tool) = tools::tool_from_name(name) {
            let named = self.name_args(positional_names(tool), args);
            return tools::build(tool, Syntax::Python, name_range, call_range, &named);
        }
        // `netbox_get_objects.invoke({...})`: LangChain tools take one dict of arguments.
        if let Some(obj) = cx.object {
            let obj_name = match obj {
                Expr::Attribute(a) => Some(a.attr.range),
                Expr::Name(n) => Some(n.range),
                _ => None,
            };
            if let Some((tool, tool_range)) =
                obj_name.and_then(|r| Some((tools::tool_from_name(self.text(r))?, r)))
            {
                if matches!(name, "invoke" | "ainvoke" | "run" | "arun" | "call") {
                    let dict = args.positional.first()?;
                    let named = pair_args(dict)?;
                    let name_range = self.host(span(tool_range));
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
                let name_range = self.host(span(cx.name_range));
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
        let dict = self.dict_assigned_above(node, cx.stmt)?;
        Some(self.lit(dict, None, 0))
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
        let open = Some(cx.arglist.range.start().to_usize());
        let own = !self.parenthesized(node, open);
        let named = match plain {
            Some((path, _)) => own && single_string(node) && wrapper_path(path),
            // An f-string or concatenation: its literal text must hold `/api/<app>/`.
            None => {
                own && (string_parts(node).is_some() || matches!(node, Expr::BinOp(_)))
                    && api_app_in(self.text(node.range()))
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
    fn pynetbox<'t>(&self, obj: &'t Expr, method: &str, cx: &CallCx<'_, 't>) -> Option<Site> {
        let args = cx.args;
        let Expr::Attribute(obj) = obj else {
            return None;
        };
        let endpoint = obj.attr.range;
        let Expr::Attribute(parent) = &*obj.value else {
            return None;
        };
        let app = parent.attr.range;
        let app_name = self.text(app);
        let plugins = match &*parent.value {
            Expr::Attribute(g) if self.text(g.attr.range) == "plugins" => Some(g.attr.range),
            _ => None,
        };
        let (prefix, start) = if APPS.contains(&app_name) {
            (app_name.to_string(), app.start())
        } else if let Some(plugins) = plugins {
            (format!("plugins/{app_name}"), plugins.start())
        } else {
            return None;
        };
        let target = format!("{prefix}/{}", self.text(endpoint).replace('_', "-"));
        let target_range = self.host(start.to_usize()..endpoint.end().to_usize());
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
                        let dict = self.dict_assigned_above(node, cx.stmt)?;
                        self.lit(dict, None, 0).pairs().map(<[Pair]>::to_vec)
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
            filters_range: Some(self.host(span(cx.arglist.range))),
            filters,
            args: extra,
        }))
    }

    /// The dict literal bound to identifier `name` by the nearest assignment above the
    /// statement `stmt` (the one holding the call), in the same block (`params = {...}` then
    /// `.filter(**params)`). A dict bound in another scope or further away is not read: it may
    /// have changed.
    fn dict_assigned_above<'t>(&self, name: &'t Expr, stmt: StmtAt<'t>) -> Option<&'t Expr> {
        let Expr::Name(name) = name else {
            return None;
        };
        let want = self.text(name.range);
        let (body, at) = stmt?;
        let is_want = |e: &Expr| matches!(e, Expr::Name(n) if self.text(n.range) == want);
        for s in body.get(..at)?.iter().rev() {
            // An assignment statement answers by its first target only.
            let (first, value) = match s {
                Stmt::Assign(a) => (
                    &a.targets[0],
                    // `a = b = {...}`: `a` is bound to the assignment `b = {...}`.
                    (a.targets.len() == 1).then_some(&*a.value),
                ),
                Stmt::AnnAssign(a) => (&*a.target, a.value.as_deref()),
                _ => {
                    if self.assigns(s, want) {
                        // Rebound inside an `if`/`for`/`try` between the dict and the call:
                        // which dict is sent is known only at run time.
                        return None;
                    }
                    continue;
                }
            };
            if is_want(first) {
                return value
                    .filter(|v| matches!(v, Expr::Dict(_)) && !self.parenthesized(v, None));
            }
        }
        None
    }

    /// True when statement `s` binds identifier `want` anywhere inside (`want = ...`,
    /// `want += ...`, `for want in ...`).
    fn assigns(&self, s: &Stmt, want: &str) -> bool {
        if !self.text(s.range()).contains(want) {
            return false;
        }
        let mut b = Binds {
            src: self.src,
            want,
            found: false,
        };
        b.visit_stmt(s);
        b.found
    }

    /// A REST call through an HTTP client: the endpoint path in the URL `url` (a string, an
    /// f-string, a concatenation, `urljoin(...)`, or a name bound to one of these), its
    /// filters in `params` and in the URL's own query string or `urlencode({...})`.
    /// `api_relative`: the URL is an endpoint relative to `/api/` (code mode's `api()`).
    fn url_call<'t>(
        &self,
        url: &'t Expr,
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
        n: &'t Expr,
        names: &HashMap<&str, Option<&'t Expr>>,
        depth: usize,
        out: &mut Vec<UrlPart>,
    ) {
        if depth > 8 {
            out.push(UrlPart::Dynamic);
            return;
        }
        let text = |r: Range<usize>, out: &mut Vec<UrlPart>| {
            if r.is_empty() {
                return;
            }
            match out.last_mut() {
                // Pieces of one string's content (around `{{`): keep one piece.
                Some(UrlPart::Text(p)) if p.end == r.start => p.end = r.end,
                _ => out.push(UrlPart::Text(r)),
            }
        };
        match n {
            Expr::StringLiteral(s) => {
                for p in s.value.iter() {
                    text(self.content(p.range), out);
                }
            }
            Expr::BytesLiteral(s) => {
                for p in s.value.iter() {
                    text(self.content(p.range), out);
                }
            }
            Expr::FString(s) => {
                for p in s.value.iter() {
                    match p {
                        ast::FStringPart::Literal(l) => text(self.content(l.range), out),
                        ast::FStringPart::FString(f) => {
                            for el in f.elements.iter() {
                                match el {
                                    InterpolatedStringElement::Literal(l) => {
                                        text(span(l.range), out)
                                    }
                                    InterpolatedStringElement::Interpolation(i) => {
                                        if self.is_urlencode(&i.expression) {
                                            self.url_parts(&i.expression, names, depth + 1, out)
                                        } else {
                                            out.push(UrlPart::Dynamic)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Expr::BinOp(b) if b.op == Operator::Add => {
                self.url_parts(&b.left, names, depth + 1, out);
                self.url_parts(&b.right, names, depth + 1, out);
            }
            Expr::Name(_) => match names.get(self.text(n.range())) {
                Some(Some(bound)) if !std::ptr::eq(*bound, n) => {
                    self.url_parts(bound, names, depth + 1, out)
                }
                _ => out.push(UrlPart::Dynamic),
            },
            Expr::Call(c) => {
                let func = match &*c.func {
                    Expr::Attribute(a) => Some(self.text(a.attr.range)),
                    Expr::Name(f) => Some(self.text(f.range)),
                    _ => None,
                };
                let mut positional = c.arguments.args.iter();
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
                            let open = Some(c.arguments.range.start().to_usize());
                            let lit = self.lit_resolved(d, names, true, open);
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

    fn is_urlencode(&self, n: &Expr) -> bool {
        let Expr::Call(c) = n else {
            return false;
        };
        let name = match &*c.func {
            Expr::Attribute(a) => a.attr.range,
            f => f.range(),
        };
        self.text(name) == "urlencode"
    }

    fn arguments<'t>(
        &self,
        arglist: &'t ast::Arguments,
        names: &HashMap<&str, Option<&'t Expr>>,
    ) -> Args<'t> {
        let mut args = Args::default();
        let open = Some(arglist.range.start().to_usize());
        for item in arglist.iter_source_order() {
            match item {
                ArgOrKeyword::Keyword(k) => match &k.arg {
                    Some(id) if id.is_valid() => {
                        args.ordered.push(Item::Keyword(args.keywords.len()));
                        let name = self.text(id.range);
                        let dicts = matches!(name, "variables" | "json");
                        args.keywords.push((
                            name.to_string(),
                            self.host(span(id.range)),
                            self.lit_resolved(&k.value, names, dicts, None),
                        ));
                        args.keyword_nodes.push(&k.value);
                    }
                    Some(_) => {}
                    None => {
                        args.ordered.push(Item::Splat(args.splats.len()));
                        args.splats
                            .push(self.lit_resolved(&k.value, names, false, None));
                        args.splat_nodes.push(&k.value);
                    }
                },
                ArgOrKeyword::Arg(e @ Expr::Starred(_)) => {
                    args.positional
                        .push(Lit::scalar(Value::Expr, self.host(span(e.range()))));
                    args.positional_nodes.push(e);
                }
                ArgOrKeyword::Arg(e) => {
                    if let Some(eq) = self.nameless_keyword(e, open) {
                        // Being typed: `f(a=1, =x)` (an editor's probe of the name slot).
                        args.ordered.push(Item::Keyword(args.keywords.len()));
                        args.keywords.push((
                            String::new(),
                            self.host(eq..eq),
                            self.lit_resolved(e, names, false, None),
                        ));
                        args.keyword_nodes.push(e);
                        continue;
                    }
                    args.positional
                        .push(self.lit_resolved(e, names, false, open));
                    args.positional_nodes.push(e);
                }
            }
        }
        args
    }

    /// The offset of the `=` of a keyword argument written without its name (`f(a=1, =x)`,
    /// a syntax error ruff reads as the positional argument `x`; tree-sitter read a keyword
    /// argument with an empty name there, where completion looks for the name being typed).
    fn nameless_keyword(&self, e: &Expr, open: Option<usize>) -> Option<usize> {
        let b = self.src.as_bytes();
        let blank = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\\');
        let mut i = e.range().start().to_usize();
        while i > 0 && blank(b[i - 1]) {
            i -= 1;
        }
        if i == 0 || b[i - 1] != b'=' {
            return None;
        }
        let eq = i - 1;
        let mut j = eq;
        while j > 0 && blank(b[j - 1]) {
            j -= 1;
        }
        let after_open = j > 0 && b[j - 1] == b'(' && Some(j - 1) == open;
        (after_open || j > 0 && b[j - 1] == b',').then_some(eq)
    }

    /// A literal; an identifier bound to a string literal (`QUERY = """..."""`) is read
    /// through, since GraphQL documents are usually kept in constants; with `dicts`, also one
    /// bound to a dict (GraphQL `variables`, a `json=` body). Filter dicts are not read through:
    /// one constant used by two calls would report its mistakes twice.
    /// In such a dict, a value that is an identifier bound to a string is read through too
    /// (`json={"query": QUERY}`). `open`: as in [`Cx::outer`].
    fn lit_resolved<'t>(
        &self,
        n: &'t Expr,
        names: &HashMap<&str, Option<&'t Expr>>,
        dicts: bool,
        open: Option<usize>,
    ) -> Lit {
        let mut node = n;
        let mut at = open;
        if let Expr::Name(_) = n {
            if let Some(Some(target)) = names.get(self.text(n.range())) {
                let own = !self.parenthesized(target, None);
                if own && single_string(target) {
                    return self.lit(target, None, 0);
                }
                if dicts && own && matches!(target, Expr::Dict(_)) {
                    node = target;
                    at = None;
                }
            }
        }
        let mut lit = self.lit(node, at, 0);
        if let (true, Expr::Dict(d)) = (dicts, node) {
            if !self.parenthesized(node, at) {
                self.resolve_string_values(d, &mut lit, names);
            }
        }
        lit
    }

    /// Replaces the values of `lit` (the literal of `dict`) that are identifiers bound to a
    /// string literal with that literal.
    fn resolve_string_values<'t>(
        &self,
        dict: &'t ast::ExprDict,
        lit: &mut Lit,
        names: &HashMap<&str, Option<&'t Expr>>,
    ) {
        let LitKind::Map(pairs) = &mut lit.kind else {
            return;
        };
        for item in &dict.items {
            if item.key.is_none() {
                continue;
            }
            let v = &item.value;
            if !matches!(v, Expr::Name(_)) {
                continue;
            }
            let Some(Some(target)) = names.get(self.text(v.range())) else {
                continue;
            };
            if !single_string(target) || self.parenthesized(target, None) {
                continue;
            }
            let range = self.host(span(v.range()));
            if let Some(pair) = pairs.iter_mut().find(|q| q.value.range == range) {
                pair.value = self.lit(target, None, 0);
            }
        }
    }

    /// The literal of `n`; its range takes in the parentheses around it (`open`: as in
    /// [`Cx::outer`]).
    fn lit(&self, n: &Expr, open: Option<usize>, depth: usize) -> Lit {
        let outer = self.outer(n.range(), open);
        let mut l = self.lit_inner(n, depth);
        l.range = self.host(outer);
        l
    }

    fn lit_inner(&self, n: &Expr, depth: usize) -> Lit {
        let range = self.host(span(n.range()));
        if depth > MAX_DEPTH {
            return Lit::scalar(Value::Expr, range);
        }
        if let Some(parts) = string_parts(n) {
            return match parts[..] {
                [(part, interpolated)] => self.string(part, interpolated),
                _ => {
                    let mut l = Lit::scalar(Value::Expr, range);
                    l.raw = Some(span(n.range()));
                    l
                }
            };
        }
        match n {
            Expr::NumberLiteral(num) => {
                let t = self.text(num.range);
                let value = match num.value {
                    Number::Int(_) => parse_int(t).map_or(Value::Expr, Value::Int),
                    Number::Float(_) => t
                        .replace('_', "")
                        .parse::<f64>()
                        .map_or(Value::Expr, Value::Float),
                    Number::Complex { .. } => Value::Expr,
                };
                Lit::scalar(value, range)
            }
            Expr::BooleanLiteral(b) => Lit::scalar(Value::Bool(b.value), range),
            Expr::NoneLiteral(_) => Lit::scalar(Value::Null, range),
            Expr::UnaryOp(u) => {
                let inner = self.lit_inner(&u.operand, depth + 1);
                let value = match (u.op, inner.value) {
                    (UnaryOp::USub, Value::Int(i)) => Value::Int(-i),
                    (UnaryOp::USub, Value::Float(f)) => Value::Float(-f),
                    _ => Value::Expr,
                };
                Lit::scalar(value, range)
            }
            Expr::List(ast::ExprList { elts, .. }) | Expr::Set(ast::ExprSet { elts, .. }) => {
                let items = elts.iter().map(|c| self.lit(c, None, depth + 1)).collect();
                Lit::seq(items, range)
            }
            Expr::Tuple(t) if t.parenthesized => {
                let items = t
                    .elts
                    .iter()
                    .map(|c| self.lit(c, None, depth + 1))
                    .collect();
                Lit::seq(items, range)
            }
            Expr::Dict(d) => {
                let mut pairs = Vec::new();
                for item in &d.items {
                    let Some(k) = &item.key else {
                        continue;
                    };
                    // A key read from broken text (an error before its value starts).
                    let (start, end) = (k.range().start(), item.value.range().start());
                    if self.broken(start.to_usize(), end.to_usize()) {
                        continue;
                    }
                    let key = self.lit(k, None, depth + 1);
                    let Some((key_text, key_range)) = key.as_str() else {
                        continue;
                    };
                    pairs.push(Pair {
                        key: key_text.to_string(),
                        key_range,
                        value: self.lit(&item.value, None, depth + 1),
                    });
                }
                Lit::map(pairs, range)
            }
            Expr::Call(c) => self
                .dict_call(c, depth)
                .unwrap_or_else(|| Lit::scalar(Value::Expr, range)),
            _ => Lit::scalar(Value::Expr, range),
        }
    }

    /// `dict(a=1, b="x")`: a mapping whose keys are the keyword names; `None` for any other
    /// call or when positional or `**` arguments make the keys unknown.
    fn dict_call(&self, n: &ast::ExprCall, depth: usize) -> Option<Lit> {
        let Expr::Name(func) = &*n.func else {
            return None;
        };
        if self.text(func.range) != "dict" || !n.arguments.args.is_empty() {
            return None;
        }
        let mut pairs = Vec::new();
        for k in &n.arguments.keywords {
            let name = k.arg.as_ref()?;
            pairs.push(Pair {
                key: self.text(name.range).to_string(),
                key_range: self.host(span(name.range)),
                value: self.lit(&k.value, None, depth + 1),
            });
        }
        Some(Lit::map(pairs, self.host(span(n.range()))))
    }

    /// The prefix (`rb`, `f`, ...) and the content range of a one-part string literal at `r`.
    fn string_layout(&self, r: TextRange) -> (&'a str, Range<usize>) {
        let (start, end) = (r.start().to_usize(), r.end().to_usize());
        let t = self.src.get(start..end).unwrap_or("");
        let prefix_len = t.find(['"', '\'']).unwrap_or(t.len());
        let prefix = &t[..prefix_len];
        let body = &t[prefix_len..];
        let q = body.as_bytes().first().copied().unwrap_or(b'"');
        let triple = body.len() >= 3 && body.as_bytes()[..3].iter().all(|&c| c == q);
        let ql = if triple { 3 } else { 1 };
        let open = (start + prefix_len + ql).min(end);
        // An unterminated string (error recovery) has no closing quotes.
        let closed =
            body.len() >= 2 * ql && body.as_bytes()[body.len() - ql..].iter().all(|&c| c == q);
        let close = if closed { end - ql } else { end };
        (prefix, open..close.max(open))
    }

    /// The content range of a one-part string literal at `r`.
    fn content(&self, r: TextRange) -> Range<usize> {
        self.string_layout(r).1
    }

    /// A string literal: decoded value, content range, and an exact map when it has one.
    fn string(&self, r: TextRange, interpolated: bool) -> Lit {
        let range = self.host(span(r));
        let (prefix, raw_content) = self.string_layout(r);
        let (content_start, content_end) = (raw_content.start, raw_content.end);
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
            self.escaped_text(raw_content.clone(), &escape_sequences(raw, content_start))
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

/// The escape sequences of a string's content `raw` (starting at embedded offset `at`), as
/// tree-sitter-python's grammar reads them: `\` then `u` + 4 hex digits, `U` + 8, `x` + 2, 1–3
/// digits, a line end, one of `'"abfrntv\`, or `N{...}`. Other backslashes are plain text.
fn escape_sequences(raw: &str, at: usize) -> Vec<Range<usize>> {
    let b = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let rest = &b[i + 1..];
        let hex = |n: usize| rest.len() > n && rest[1..=n].iter().all(u8::is_ascii_hexdigit);
        let len = match rest.first() {
            Some(b'u') if hex(4) => 5,
            Some(b'U') if hex(8) => 9,
            Some(b'x') if hex(2) => 3,
            Some(c) if c.is_ascii_digit() => {
                1 + rest
                    .iter()
                    .skip(1)
                    .take(2)
                    .take_while(|c| c.is_ascii_digit())
                    .count()
            }
            Some(b'\n') => 1,
            Some(b'\r') if rest.get(1) == Some(&b'\n') => 2,
            Some(b'\'' | b'"' | b'a' | b'b' | b'f' | b'r' | b'n' | b't' | b'v' | b'\\') => 1,
            Some(b'N') if rest.get(1) == Some(&b'{') => {
                match rest[2..].iter().position(|&c| c == b'}') {
                    Some(p) if p > 0 => p + 3,
                    _ => 0,
                }
            }
            _ => 0,
        };
        if len == 0 {
            i += 1;
            continue;
        }
        out.push(at + i..at + i + 1 + len);
        i += 1 + len;
    }
    out
}

/// The arguments of a call, as literals (and their nodes, for URL expressions).
#[derive(Default)]
struct Args<'t> {
    positional: Vec<Lit>,
    positional_nodes: Vec<&'t Expr>,
    /// `(name, name host range, value)`.
    keywords: Vec<(String, Range<usize>, Lit)>,
    keyword_nodes: Vec<&'t Expr>,
    /// `**{...}` dicts.
    splats: Vec<Lit>,
    splat_nodes: Vec<&'t Expr>,
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
    fn node(&self, i: usize, kw: &str) -> Option<&'t Expr> {
        self.positional_nodes.get(i).copied().or_else(|| {
            let k = self.keywords.iter().position(|k| k.0 == kw)?;
            self.keyword_nodes.get(k).copied()
        })
    }
}

/// One call being recognised: its name, receiver, arguments and host range.
struct CallCx<'c, 't> {
    name: &'c str,
    /// Embedded range of the called name (the attribute of `a.b(...)`).
    name_range: TextRange,
    object: Option<&'t Expr>,
    arglist: &'t ast::Arguments,
    /// The statement holding the call.
    stmt: StmtAt<'t>,
    call_range: Range<usize>,
    args: &'c Args<'t>,
    names: &'c HashMap<&'c str, Option<&'t Expr>>,
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
    if !s.contains('\\') {
        return s.to_string();
    }
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

    /// The deepest expressions the nesting guard lets through are walked (and their tree
    /// dropped) on a thread with half the stack of a rayon worker or tokio blocking thread
    /// (2 MiB); one level deeper, the text gets only the URL scan.
    #[test]
    fn expressions_at_the_nesting_bound_are_read_on_a_small_stack() {
        let call = "\nnetbox_get_objects(\"dcim.device\", {\"nme\": \"a\"})\n";
        let shapes: [(&str, &str, &str); 7] = [
            ("x = 1", "+1", ""),
            ("x = a", ".b", ""),
            ("x = ", "-", "1"),
            ("x = ", "not ", "y"),
            ("x = f", "()", ""),
            ("x = ", "lambda: ", "0"),
            ("x = ", "[", ""),
        ];
        for (head, step, tail) in shapes {
            let text = |k: usize| {
                let close = if step == "[" {
                    "]".repeat(k)
                } else {
                    String::new()
                };
                format!("{head}{}{tail}{close}{call}", step.repeat(k))
            };
            let k = (1..5000)
                .find(|&k| parse::python_too_deep(&text(k)))
                .expect("the guard stops every shape")
                - 1;
            assert!(k > 300, "{step:?}: only {k} levels pass the guard");
            let (at, over) = (text(k), text(k + 1));
            let found = std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn(move || {
                    let map = |t: &str| OffsetMap::identity(0, t.len());
                    (
                        extract_calls(&at, &map(&at)).len(),
                        extract_calls(&over, &map(&over)).len(),
                    )
                })
                .unwrap()
                .join()
                .expect("no stack overflow");
            assert_eq!(found, (1, 0), "{step:?} at {k} levels");
        }
    }

    #[test]
    fn escapes() {
        assert_eq!(decode_escapes(r"a\nb\x41\u00e9\q"), "a\nbAé\\q");
    }
}
