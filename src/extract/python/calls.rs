//! Which call form a call is: each call is matched against the rows of the call-form table
//! ([`crate::extract::forms::FORMS`]) in order, by its spelling or by its qualified name
//! (`from requests import get as g` → `requests.get`), and read as the first row that finds a
//! site in it, its arguments read through [`super::values`].

use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

use super::arguments::{pair_args, Call, CallArgs, KeywordOrSplat};
use super::literals::parse_int;
use super::semantic::At;
use super::span;
use super::strings::{single_string, string_parts};
use super::urls::{api_app_in, wrapper_path};
use super::values::Values;
use crate::extract::forms::{self, Callee, Carries, FiltersAt, Form, Guard, TargetAt, APPS, FORMS};
use crate::extract::lit::{Lit, LitKind, Pair};
use crate::extract::tools::{self, Tool};
use crate::extract::{CallForm, FilterEntry, RestCall, Site, Syntax, Value};
use smallvec::SmallVec;

impl<'a> Values<'a> {
    /// The sites of `expr` (standing at `at`), the first call form of the table that finds any.
    pub(super) fn call_sites(&self, expr: &'a ast::ExprCall, at: At) -> Vec<Site> {
        let mut out = Vec::new();
        self.call_sites_into(expr, at, &mut out);
        out
    }

    /// [`Values::call_sites`], pushed onto `out` (no list of its own per call).
    pub(super) fn call_sites_into(&self, expr: &'a ast::ExprCall, at: At, out: &mut Vec<Site>) {
        let arglist = &expr.arguments;
        // `f(x for x in y)`: a generator, not an argument list.
        if let [Expr::Generator(g)] = &*arglist.args {
            if !g.parenthesized && arglist.keywords.is_empty() {
                return;
            }
        }
        if let Some(site) = self.tool_call_direct(expr, at) {
            out.push(site);
            return;
        }
        let (name_range, object) = match &*expr.func {
            Expr::Name(n) => (n.range, None),
            Expr::Attribute(a) => (a.attr.range, Some(&*a.value)),
            _ => return,
        };
        let mut args = self.arguments(arglist, at);
        let call = Call {
            name: self.text(name_range),
            name_range,
            func: &expr.func,
            object,
            arglist,
            at,
            call_range: self.host(span(expr.range())),
            args: &args,
        };
        let before = out.len();
        for form in FORMS {
            if !self.spelled(form, &call) {
                continue;
            }
            let held = match form.carries {
                Carries::Rest(rest) => self.rest_call(form, rest, &call, out),
                Carries::Graphql => {
                    let named = self.name_args(form.params, call.args);
                    out.extend(tools::graphql_call(form, &named));
                    None
                }
                Carries::NamedTool => {
                    out.extend(self.named_tool_call(form, &call));
                    None
                }
            };
            if out.len() > before {
                // The filters' pairs moved out of the arguments, which are dropped next.
                if let (Some(held), [Site::Rest(c)]) = (held, &mut out[before..]) {
                    c.filters = held
                        .take(&mut args)
                        .map_or_else(Vec::new, tools::entries_owned);
                }
                return;
            }
        }
    }

    /// The most common call of a file of tool calls, `netbox_get_objects(<type>, {"key":
    /// <value>, ...})` (the tool of the table's first row, two positional arguments, a dict
    /// literal whose keys are plain string literals, each once), read straight into its site: the
    /// object type and each value are read through [`Values::lit`] as the general reading reads
    /// them (the same calls in the same order, the same steps), and the entries are built from
    /// the dict's items, without the argument list, the named arguments, the pairs and their
    /// copies in between. `None`, with nothing read, for any other call (which the call-form
    /// table then reads).
    fn tool_call_direct(&self, expr: &'a ast::ExprCall, at: At) -> Option<Site> {
        #[cfg(test)]
        if tests::GENERAL_ONLY.with(std::cell::Cell::get) {
            return None;
        }
        let arglist = &expr.arguments;
        let Expr::Name(name) = &*expr.func else {
            return None;
        };
        let ([type_arg, dict_arg @ Expr::Dict(dict)], []) = (&*arglist.args, &*arglist.keywords)
        else {
            return None;
        };
        // The first row of the table is the one that reads it (no row before it is spelled so).
        static FIRST_READS_IT: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
            let first = &FORMS[0];
            first.carries == Carries::Rest(CallForm::GetObjects)
                && first.guard == Guard::Always
                && first.target == TargetAt::ObjectType
                && first.filters == FiltersAt::Filters
                && first.params.get(..2) == Some(&["object_type", "filters"][..])
        });
        let row = self.tool_row(self.text(name.range))?;
        if row.name != FORMS[0].name || !*FIRST_READS_IT {
            return None;
        }
        let open = Some(arglist.range.start().to_usize());
        // As [`Values::arguments`] reads the arguments: positional, none a keyword being typed.
        if matches!(type_arg, Expr::Starred(_))
            || self.nameless_keyword(type_arg, open).is_some()
            || self.nameless_keyword(dict_arg, open).is_some()
        {
            return None;
        }
        // The keys: one-part string literals whose value is their text, read from whole text,
        // all different (a dict holds the last value of a key: the general reading drops the
        // others). A few: compared pairwise.
        let mut keys: SmallVec<[(std::ops::Range<usize>, &'a str); 8]> = SmallVec::new();
        for item in &dict.items {
            let Some(Expr::StringLiteral(k)) = &item.key else {
                return None;
            };
            let mut parts = k.value.iter();
            let (Some(part), None) = (parts.next(), parts.next()) else {
                return None;
            };
            let (content, raw) = self.plain(part.range)?;
            let (start, end) = (
                k.range.start().to_usize(),
                item.value.range().start().to_usize(),
            );
            if keys.len() == 16 || self.broken(start, end) || keys.iter().any(|(_, r)| *r == raw) {
                return None;
            }
            keys.push((content, raw));
        }
        // The object type's text and content range, as `tools::build_with` takes them from the
        // argument's literal.
        let target = match self.plain_string(type_arg, open) {
            Some((raw, _, content)) => Some((raw.to_string(), self.host(content))),
            None => {
                let object_type = self.arg(type_arg, at, open);
                match (object_type.value, object_type.kind) {
                    (Value::Str(s), LitKind::Str { content, .. }) => Some((s, content)),
                    _ => None,
                }
            }
        };
        // One entry an item, in order (a list of that exact length, written in place).
        let filters: Vec<FilterEntry> = dict
            .items
            .iter()
            .zip(keys.iter())
            .map(|(item, (content, raw))| {
                // As `Values::dict` reads a value, and `tools::entries_owned` makes it an entry
                // (a placeholder string is no value to judge: `unjudged_owned`).
                let (value, value_range) = match self.plain_scalar(&item.value, raw) {
                    Some(read) => read,
                    None => {
                        let lit = self.lit(&item.value, at, None, 1);
                        (crate::extract::unjudged_owned(lit.value, raw), lit.range)
                    }
                };
                FilterEntry {
                    value,
                    key: raw.to_string(),
                    key_range: self.host(content.clone()),
                    value_range,
                }
            })
            .collect();
        Some(Site::Rest(RestCall {
            form: CallForm::GetObjects,
            syntax: Syntax::Python,
            target,
            call_range: self.host(span(expr.range())),
            filters_range: Some(self.host(self.outer(dict_arg.range(), open))),
            filters,
            args: Vec::new(),
            declared: false,
        }))
    }

    /// A one-part string literal whose value is its text (see `Reader::plain`): the text, the
    /// host range of the literal with the parentheses around it (`open`: as in
    /// `Reader::outer`) and the embedded range of its content; what [`Values::lit`] reads
    /// from it, without building the literal (its value is that text, its range that range).
    fn plain_string(
        &self,
        e: &Expr,
        open: Option<usize>,
    ) -> Option<(&'a str, std::ops::Range<usize>, std::ops::Range<usize>)> {
        let Expr::StringLiteral(s) = e else {
            return None;
        };
        let mut parts = s.value.iter();
        let (Some(part), None) = (parts.next(), parts.next()) else {
            return None;
        };
        let (content, raw) = self.plain(part.range)?;
        Some((raw, self.host(self.outer(s.range, open)), content))
    }

    /// The value and host range (with the parentheses around it) [`Values::lit`] reads from a
    /// dict value that is a plain string (see [`Values::plain_string`]), `True`/`False`,
    /// `None`, an integer or a list of those, without building its literal, as the entry of
    /// filter `key` takes it (`crate::extract::unjudged_owned`: a placeholder string is
    /// [`Value::Expr`], never copied); `None` for anything else.
    fn plain_scalar(&self, e: &Expr, key: &str) -> Option<(Value, std::ops::Range<usize>)> {
        let (value, range) = match e {
            // A list of such values (one level): the items as `Lit::seq` lists them.
            Expr::List(l) => {
                let mut items = Vec::with_capacity(l.elts.len());
                for item in &l.elts {
                    if matches!(item, Expr::List(_)) {
                        return None;
                    }
                    items.push(self.plain_scalar(item, key)?);
                }
                (Value::List(items), l.range)
            }
            Expr::StringLiteral(_) => {
                let (text, range, _) = self.plain_string(e, None)?;
                let value = if crate::extract::is_placeholder(text, key) {
                    Value::Expr
                } else {
                    Value::Str(text.to_string())
                };
                return Some((value, range));
            }
            Expr::BooleanLiteral(b) => (Value::Bool(b.value), b.range),
            Expr::NoneLiteral(n) => (Value::Null, n.range),
            Expr::NumberLiteral(ast::ExprNumberLiteral {
                value: ast::Number::Int(_),
                range,
                ..
            }) => (
                parse_int(self.text(*range)).map_or(Value::Expr, Value::Int),
                *range,
            ),
            _ => return None,
        };
        Some((value, self.host(self.outer(range, None))))
    }

    /// A call of the MCP tool that `call` names (a [`Carries::NamedTool`] row): by its
    /// receiver (`netbox_get_objects.invoke({...})`: LangChain tools take one dict of
    /// arguments) or by a string argument (`session.call_tool("netbox_get_objects", {...})`),
    /// its arguments in a dict, read as the tool's own row reads them.
    fn named_tool_call(&self, form: &Form, call: &Call<'_, 'a>) -> Option<Site> {
        let args = call.args;
        let (tool, tool_range) = match form.target {
            TargetAt::Receiver => {
                let receiver = match call.object? {
                    Expr::Attribute(a) => a.attr.range,
                    Expr::Name(n) => n.range,
                    _ => return None,
                };
                let tool = tools::tool_from_name(self.text(receiver))?;
                (tool, self.host(span(receiver)))
            }
            TargetAt::ToolName(i, kw) => {
                let named = args.positional.get(i).or_else(|| args.keyword(kw))?;
                let (name, range) = named.as_str()?;
                (tools::tool_from_name(name)?, range)
            }
            _ => return None,
        };
        let FiltersAt::ToolArguments { at, keyword } = form.filters else {
            return None;
        };
        let dict = args
            .positional
            .get(at)
            .or_else(|| keyword.and_then(|k| args.keyword(k)))?;
        let named = pair_args(dict)?;
        let call_range = call.call_range.clone();
        tools::build(tool, Syntax::Python, tool_range, call_range, &named)
    }

    /// [`tools::tool_row`] of a called name, remembered for the last name asked.
    fn tool_row(&self, name: &'a str) -> Option<&'static Form> {
        if let Some((last, row)) = self.last_tool.get() {
            if last == name {
                return row;
            }
        }
        let row = tools::tool_row(name);
        self.last_tool.set(Some((name, row)));
        row
    }

    /// True when the call is spelled as `form` says and meets its guard.
    fn spelled(&self, form: &Form, call: &Call<'_, 'a>) -> bool {
        let spelled = match form.callee {
            Callee::Tool(_) => self
                .tool_row(call.name)
                .is_some_and(|row| row.name == form.name),
            Callee::ToolMethod(methods) => call.object.is_some() && methods.contains(&call.name),
            Callee::Bare(n) => call.object.is_none() && call.name == n,
            Callee::Method(n) => call.object.is_some() && call.name == n,
            // By its name or the name it was imported as (`from gql import gql as q`).
            Callee::Function(n) => {
                call.name == n
                    || (call.object.is_none()
                        && self
                            .qualified(call.func, call.at)
                            .is_some_and(|q| q.rsplit('.').next() == Some(n)))
            }
            Callee::Qualified(names) => {
                call.object.is_none()
                    && self
                        .qualified(call.func, call.at)
                        .is_some_and(|q| names.contains(&q.as_str()))
            }
            Callee::Chain(m) => call.name == m && call.object.is_some(),
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
        let arg = |i: usize, kw: &str| {
            call.args
                .positional
                .get(i)
                .or_else(|| call.args.keyword(kw))
        };
        match form.guard {
            Guard::Always => true,
            Guard::ObjectTypeShape => arg(0, "type")
                .or_else(|| call.args.keyword("object_type"))
                .and_then(|l| l.as_str())
                .is_some_and(|(s, _)| forms::object_type_shaped(s)),
            Guard::HasFilters => {
                call.args.keyword("filters").is_some()
                    || call
                        .args
                        .positional
                        .first()
                        .is_some_and(|l| l.pairs().is_some())
            }
            Guard::HasObjectTypes => call.args.keyword("object_types").is_some(),
            // Checked where every host's call of the tool is built (`tools::build`).
            Guard::OldServerName => true,
            Guard::MethodGet => arg(0, "method")
                .and_then(|l| l.as_str())
                .is_some_and(|(s, _)| s.eq_ignore_ascii_case("get")),
            Guard::NotWrite => !forms::name_has_word(call.name, forms::WRITE_WORDS),
        }
    }

    /// The REST calls of a call of `form`, which sends REST calls of `rest`, pushed onto `out`;
    /// where the filters' pairs are held when the one site pushed is to take them (see
    /// [`Values::call_sites_into`]).
    fn rest_call(
        &self,
        form: &Form,
        rest: CallForm,
        call: &Call<'_, 'a>,
        out: &mut Vec<Site>,
    ) -> Option<Held> {
        let args = call.args;
        match form.target {
            TargetAt::ObjectType | TargetAt::Fixed(_) | TargetAt::Nothing => {
                let mut named = self.name_args(form.params, args);
                // Code mode (called bare): the MCP server's `limit` range (1–100) is not code
                // mode's, whose published workflows ask for `limit=1000` (netboxlabs/skills
                // code-mode-workflows.md); and code mode names its parameters `type` and `id`.
                if matches!(form.callee, Callee::Bare(_)) {
                    named.retain(|a| a.name != "limit");
                    for a in &mut named {
                        match &*a.name {
                            "type" => a.name = "object_type".into(),
                            "id" => a.name = "object_id".into(),
                            _ => {}
                        }
                    }
                }
                let name_range = self.host(span(call.name_range));
                let (mut site, pending) = tools::build_with(
                    Tool::Rest(rest),
                    Syntax::Python,
                    name_range,
                    call.call_range.clone(),
                    &named,
                    false,
                )?;
                // Check, then take: the filters' pairs are moved out of the arguments once the
                // call is known to be this form's (see `call_sites_into`).
                let held = pending.and_then(|lit| match Held::locate(args, lit) {
                    Some(h) => Some(h),
                    None => {
                        if let (Site::Rest(c), Some(pairs)) = (&mut site, lit.pairs()) {
                            c.filters = tools::entries(pairs);
                        }
                        None
                    }
                });
                out.push(site);
                return held;
            }
            TargetAt::Chain => out.extend(
                call.object
                    .and_then(|obj| self.pynetbox(obj, call.name, call)),
            ),
            TargetAt::Url(i, kw) | TargetAt::ApiPath(i, kw) => {
                let url = args.node(i, kw)?;
                let params = self.params_dict(form, call, |p| {
                    form.params
                        .iter()
                        .position(|n| *n == p)
                        .and_then(|k| args.positional.get(k))
                        .filter(|l| l.pairs().is_some())
                });
                let api_relative = matches!(form.target, TargetAt::ApiPath(..));
                out.extend(self.url_call(url, api_relative, params, call));
            }
            TargetAt::WrapperPath(i) => out.extend(self.wrapper_call(form, i, call)),
            TargetAt::Receiver
            | TargetAt::ToolName(..)
            | TargetAt::Document { .. }
            | TargetAt::Terms { .. }
            | TargetAt::Both(..)
            | TargetAt::UrlWord { .. }
            | TargetAt::UrlPath => {}
        }
        None
    }

    /// The filters dict of `form`'s `params=` keyword ([`FiltersAt::Params`],
    /// [`FiltersAt::ParamsOrNext`]): the keyword's value (a dict, or a name bound to one with
    /// its updates), else what `positional` finds for the keyword's name.
    fn params_dict<'l>(
        &self,
        form: &Form,
        call: &Call<'l, 'a>,
        positional: impl FnOnce(&'static str) -> Option<&'l Lit>,
    ) -> Option<&'l Lit> {
        let (FiltersAt::Params(p) | FiltersAt::ParamsOrNext(p)) = form.filters else {
            return None;
        };
        call.args
            .keyword(p)
            .filter(|l| l.pairs().is_some())
            .or_else(|| positional(p))
    }

    /// A client wrapper's call: a string literal at positional `i` that names a NetBox
    /// endpoint by itself (see [`TargetAt::WrapperPath`]), its filters in `params=` or, for
    /// [`FiltersAt::ParamsOrNext`] and a read-like name, in a dict literal right after it.
    /// Anything else (another API's path, a detail path, a write) is no call.
    fn wrapper_call(&self, form: &Form, i: usize, call: &Call<'_, 'a>) -> Vec<Site> {
        let args = call.args;
        let Some(node) = args.positional_nodes.get(i).copied() else {
            return Vec::new();
        };
        let lit = args.positional.get(i);
        let plain = lit.and_then(|l| l.as_str());
        let open = Some(call.arglist.range.start().to_usize());
        let own = !self.parenthesized(node, open);
        let named = match plain {
            // A string literal, or a name bound to one.
            Some((path, _)) => {
                own && (matches!(node, Expr::Name(_)) || single_string(node)) && wrapper_path(path)
            }
            // An f-string or concatenation (or a name bound to one): its literal text must hold
            // `/api/<app>/`.
            None => {
                let raw = match node {
                    Expr::Name(_) => lit.and_then(|l| l.raw.clone()),
                    n if string_parts(n).is_some() || matches!(n, Expr::BinOp(_)) => {
                        Some(span(n.range()))
                    }
                    _ => None,
                };
                own && raw.is_some_and(|r| api_app_in(self.src.get(r).unwrap_or("")))
            }
        };
        if !named {
            return Vec::new();
        }
        let params = self.params_dict(form, call, |_| {
            let next = args.positional.get(i + 1).filter(|l| l.pairs().is_some());
            next.filter(|_| {
                matches!(form.filters, FiltersAt::ParamsOrNext(_))
                    && forms::name_has_word(call.name, forms::READ_WORDS)
            })
        });
        self.url_call(node, plain.is_some(), params, call)
    }

    /// pynetbox `<x>.<app>.<endpoint>.<method>(...)` (also `<x>.plugins.<plugin>.<endpoint>`).
    fn pynetbox(&self, obj: &'a Expr, method: &str, call: &Call<'_, 'a>) -> Option<Site> {
        let args = call.args;
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
                extra.push(crate::extract::Argument {
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
                KeywordOrSplat::Keyword(i) => {
                    let (k, r, lit) = &args.keywords[*i];
                    // pynetbox's own option: popped before the request
                    // (pynetbox/core/endpoint.py `kwargs.pop("strict_filters")`).
                    if k == "strict_filters" {
                        continue;
                    }
                    filters.push(FilterEntry {
                        key: k.clone(),
                        key_range: r.clone(),
                        value: crate::extract::unjudged(&lit.value, k),
                        value_range: lit.range.clone(),
                    });
                }
                KeywordOrSplat::Splat(i) => {
                    // `**params`: the dict (and its updates) the name holds.
                    if let Some(pairs) = args.splats[*i].pairs().map(<[Pair]>::to_vec) {
                        filters.extend(tools::entries(&pairs));
                    }
                }
            }
        }
        Some(Site::Rest(RestCall {
            form: CallForm::Pynetbox,
            syntax: Syntax::Python,
            target: Some((target, target_range)),
            call_range: call.call_range.clone(),
            filters_range: Some(self.host(span(call.arglist.range))),
            filters,
            args: extra,
            declared: false,
        }))
    }
}

/// Where the filters dict of a call's REST site is among the call's arguments (see
/// [`tools::build_with`]): its pairs are moved out of there, not copied.
enum Held {
    Positional(usize),
    Keyword(usize),
    /// The value of pair `j` of the one positional dict that holds every argument.
    Paired(usize),
}

impl Held {
    /// Where `lit` (an argument as [`Values::name_args`] named it) is in `args`.
    fn locate(args: &CallArgs<'_>, lit: &Lit) -> Option<Held> {
        if let Some(i) = args.positional.iter().position(|l| std::ptr::eq(l, lit)) {
            return Some(Held::Positional(i));
        }
        if let Some(i) = args.keywords.iter().position(|k| std::ptr::eq(&k.2, lit)) {
            return Some(Held::Keyword(i));
        }
        let pairs = args.positional.first()?.pairs()?;
        let j = pairs.iter().position(|p| std::ptr::eq(&p.value, lit))?;
        Some(Held::Paired(j))
    }

    /// The pairs of the mapping held here, taken out of `args` (left a scalar).
    fn take(self, args: &mut CallArgs<'_>) -> Option<Vec<Pair>> {
        let lit = match self {
            Held::Positional(i) => args.positional.get_mut(i)?,
            Held::Keyword(i) => &mut args.keywords.get_mut(i)?.2,
            Held::Paired(j) => match &mut args.positional.get_mut(0)?.kind {
                LitKind::Map(pairs) => &mut pairs.get_mut(j)?.value,
                _ => return None,
            },
        };
        match std::mem::replace(&mut lit.kind, LitKind::Scalar) {
            LitKind::Map(pairs) => Some(pairs),
            other => {
                lit.kind = other;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::python::extract_calls;
    use crate::extract::OffsetMap;

    thread_local! {
        /// Set: every call is read through the call-form table (no direct reading).
        pub(super) static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// The direct reading of `netbox_get_objects(<type>, {...})` finds what the call-form table
    /// finds, to the byte, for the shapes it reads and the ones it leaves to the table.
    #[test]
    fn direct_tool_calls_read_as_the_table_reads_them() {
        let calls = [
            r#"netbox_get_objects("dcim.device", {"name": "a", "site_id": 3, "x": True, "y": None})"#,
            r#"netbox_get_objects("dcim.device", {})"#,
            r#"netbox_get_objects("dcim.device", {"status__in": ["active", 42, None], "q": -1})"#,
            r#"netbox_get_objects("dcim.device", {"a": [("x"), "{p}", True], "b": [], "c": [[1], 2]})"#,
            r#"netbox_get_objects("dcim.device", {"a": [value, "x"], "b": ["a\nb"], "c": ("y")})"#,
            r#"netbox_get_objects( ("dcim.device") , ( {"name": ("a")} ))"#,
            r#"netbox_get_objects("dcim.device", {"name": "{name}", "site": "<site>", "tag": "..."})"#,
            r#"netbox_get_objects("dcim.device", {"name": "a", "name": "b"})"#,
            r#"netbox_get_objects("dcim.device", {"na\u006de": "a", 'site': 'b'})"#,
            r#"netbox_get_objects("dcim.device", {"name": "a\tb", "site": r"x", "tag": f"{v}"})"#,
            r#"netbox_get_objects("dcim.device", {"name": "a" "b", "tag": b"x", "n": 1_000})"#,
            r#"netbox_get_objects("dcim.device", {**base, "name": "a"})"#,
            r#"netbox_get_objects("dcim.device", {"name": value, "site": CHOICE, "id": int(x)})"#,
            r#"netbox_get_objects(kind, {"name": "a"})"#,
            r#"netbox_get_objects(f"dcim.{x}", {"name": "a"})"#,
            r#"netbox_get_objects(*a, {"name": "a"})"#,
            r#"netbox_get_objects("dcim.device", {"name": "a"}, fields=["id"])"#,
            r#"netbox_get_objects("dcim.device", {"nested": {"a": 1}, "list": [{"b": 2}]})"#,
            r#"netboxGetObjects("dcim.device", {"name": "a"})"#,
            r#"mcp__netbox__netbox_get_objects("dcim.device", {"name": "a"})"#,
            r#"netbox_get_changelogs("dcim.device", {"name": "a"})"#,
            r#"tools.netbox_get_objects("dcim.device", {"name": "a"})"#,
            r#"get_objects("devices", {"name": "a"})"#,
            r#"netbox_get_objects("dcim.device", {"""name""": "a", "site": """b"""})"#,
            r#"netbox_get_objects("dcim.device", {"name": "é", "ünï": "x"})"#,
            r#"netbox_get_objects('dcim.device', {'name': 'a', "1": 1.5, "2": 0x1f})"#,
            r#"netbox_get_objects("dcim.device", {"name": "a",})"#,
            r#"netbox_get_objects("dcim.device", {"name": "a", 1: "b"})"#,
        ];
        let prelude = "from typing import Literal\nvalue = 'v'\nCHOICE: Literal['a', 'b'] = 'a'\nkind = 'dcim.site'\nbase = {'site': 1}\n";
        let mut texts: Vec<String> = calls.iter().map(|c| format!("{prelude}{c}\n")).collect();
        // In a helper read for its callers, broken, half typed, and a typed keyword.
        texts.push(
            "def h(t, f):\n    netbox_get_objects(t, {\"name\": f, \"x\": \"y\"})\n\nh(\"dcim.device\", \"a\")\n"
                .to_string(),
        );
        texts.push(r#"netbox_get_objects("dcim.device", {"name": "a", "site": })"#.to_string());
        texts.push(r#"netbox_get_objects("dcim.device", {"name": "a", "si"#.to_string());
        texts.push(r#"netbox_get_objects("dcim.device", ={"name": "a"})"#.to_string());
        texts.push(
            "def f(p: Literal[\"a\", \"b\"]):\n    netbox_get_objects(\"dcim.device\", {\"status\": p})\n"
                .to_string(),
        );
        for text in texts {
            let map = OffsetMap::identity(0, text.len());
            let direct = format!("{:?}", extract_calls(&text, &map));
            GENERAL_ONLY.with(|g| g.set(true));
            let general = format!("{:?}", extract_calls(&text, &map));
            GENERAL_ONLY.with(|g| g.set(false));
            assert_eq!(direct, general, "{text}");
        }
    }
}
