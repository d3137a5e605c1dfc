//! Which call form a call is: each call is matched against the rows of the call-form table
//! ([`crate::extract::forms::FORMS`]) in order, by its spelling or by its qualified name
//! (`from requests import get as g` → `requests.get`), and read as the first row that finds a
//! site in it, its arguments read through [`super::values`].

use ruff_python_ast::{self as ast, ArgOrKeyword, Expr};
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
        // Most calls of real code are no NetBox call: told from the callee's name and the
        // arguments' nodes, before any argument is read or copied.
        #[cfg(test)]
        let screen = !tests::NO_SCREEN.with(std::cell::Cell::get);
        #[cfg(not(test))]
        let screen = true;
        if screen && self.no_site(expr, self.text(name_range), object, at) {
            return;
        }
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

    /// True when no row of the call-form table can find a site in `expr` (called `name`, on
    /// `object`, standing at `at`), told without reading its arguments; the arguments that
    /// are not [`Values::inert`] are then read as [`Values::arguments`] reads them, in the
    /// same order, and dropped, so that what reading them leaves in the reading's state (the
    /// fuel used, whose end [`Reader::sites`] reports; other possible values and declared keys
    /// recorded) is what the reading through the table leaves.
    ///
    /// Each row is asked what [`Values::spelled`] asks of it, on the callee alone (the row's
    /// guard aside: a row whose callee is spelled so counts as one that may find a site), and
    /// for the rows of any callee ([`Callee::Any`], client wrappers) what their guard and
    /// [`Values::wrapper_call`] ask of the argument's node ([`ArgCue`]): a row that would find
    /// nothing there finds nothing here, and a row this cannot tell counts as one that may. A
    /// row of another form of callee counts as one that may: a new form is read through the
    /// table until it is told here.
    fn no_site(
        &self,
        expr: &'a ast::ExprCall,
        name: &'a str,
        object: Option<&Expr>,
        at: At,
    ) -> bool {
        let arglist = &expr.arguments;
        let open = Some(arglist.range.start().to_usize());
        // The positional arguments' nodes as `Values::arguments` lists them (a starred one
        // too, a keyword being typed not), the first keyword named `method`, and the
        // arguments to read (not inert), with what they are read with.
        let mut positional: SmallVec<[&'a Expr; 4]> = SmallVec::new();
        let mut keywords: SmallVec<[(&'a str, &'a Expr); 4]> = SmallVec::new();
        let mut unread: SmallVec<[(&'a Expr, Option<usize>); 4]> = SmallVec::new();
        // (Most calls have no keyword: their arguments are in order as they are.)
        let items = arglist.args.iter().map(ArgOrKeyword::Arg);
        let items: &mut dyn Iterator<Item = ArgOrKeyword<'a>> = if arglist.keywords.is_empty() {
            &mut { items }
        } else {
            &mut arglist.iter_source_order()
        };
        for item in items {
            match item {
                ArgOrKeyword::Keyword(k) => match &k.arg {
                    Some(id) if id.is_valid() => {
                        keywords.push((self.text(id.range), &k.value));
                        if !Self::inert(&k.value, 0) {
                            unread.push((&k.value, None));
                        }
                    }
                    Some(_) => {}
                    None => {
                        if !Self::inert(&k.value, 0) {
                            unread.push((&k.value, None));
                        }
                    }
                },
                ArgOrKeyword::Arg(e @ Expr::Starred(_)) => positional.push(e),
                ArgOrKeyword::Arg(e) => {
                    let typed = self.nameless_keyword(e, open).is_some();
                    if !Self::inert(e, 0) {
                        unread.push((e, if typed { None } else { open }));
                    }
                    if typed {
                        keywords.push(("", e));
                    } else {
                        positional.push(e);
                    }
                }
            }
        }
        // What the rows ask of the callee, asked once: its tool row, and its qualified name
        // (read by the first row that asks, as `Values::spelled` reads it); and what the
        // first two positional arguments' nodes tell.
        let tool = self.tool_row(name);
        let cues: [Option<ArgCue<'a>>; 2] = [
            positional.first().map(|n| self.arg_cue(n)),
            positional.get(1).map(|n| self.arg_cue(n)),
        ];
        let cue = |i: usize| match cues.get(i) {
            Some(c) => *c,
            None => positional.get(i).map(|n| self.arg_cue(n)),
        };
        // As `CallArgs::keyword` and `CallArgs::node` find them: the first keyword so named;
        // positional `i`, else that keyword.
        let keyword = |kw: &str| keywords.iter().find(|(n, _)| *n == kw).map(|(_, e)| *e);
        let node_cue = |i: usize, kw: &str| cue(i).or_else(|| keyword(kw).map(|e| self.arg_cue(e)));
        // `Guard::MethodGet`: the method (first positional, else `method=`) may be `"GET"`.
        let may_get = || {
            node_cue(0, "method").is_some_and(|m| match m {
                ArgCue::Str(s) => s.eq_ignore_ascii_case("get"),
                ArgCue::NotStr => false,
                ArgCue::Unknown => true,
            })
        };
        // (With its last part, which every `Callee::Function` row compares.)
        let mut qualified = None;
        let mut qualified = || match &*expr.func {
            Expr::Name(n) => Some(*qualified.get_or_insert_with(|| {
                let q = self.name_qualified(n, at);
                (q, q.last())
            })),
            _ => None,
        };
        // The rows of Python calls, in the table's order: `Values::spelled` spells no Python
        // call as another host's form.
        static PYTHON_ROWS: std::sync::LazyLock<Vec<&'static Form>> =
            std::sync::LazyLock::new(|| {
                FORMS
                    .iter()
                    .filter(|f| {
                        !matches!(
                            f.callee,
                            Callee::Lookup { .. }
                                | Callee::InventoryPlugin(_)
                                | Callee::Command { .. }
                                | Callee::Url
                        )
                    })
                    .collect()
            });
        for form in PYTHON_ROWS.iter() {
            let spelled = match form.callee {
                Callee::Tool(_) => tool.is_some_and(|row| row.name == form.name),
                Callee::ToolMethod(methods) => object.is_some() && methods.contains(&name),
                Callee::Bare(n) => object.is_none() && name == n,
                Callee::Method(n) | Callee::Chain(n) => object.is_some() && name == n,
                Callee::Function(n) => {
                    name == n
                        || (object.is_none() && qualified().is_some_and(|(_, last)| last == n))
                }
                Callee::Qualified(names) => {
                    object.is_none()
                        && qualified().is_some_and(|(q, _)| names.iter().any(|n| q.is(n)))
                }
                // (The argument first: the name's words are looked at only for a path.)
                Callee::Any => match (form.guard, form.target) {
                    // The guard reads the method (first positional, else `method=`), then the
                    // wrapper reads the path at `i`: a string there must name an endpoint.
                    (Guard::MethodGet, TargetAt::WrapperPath(i)) => {
                        may_get() && may_name_endpoint(cue(i))
                    }
                    (Guard::NotWrite, TargetAt::WrapperPath(i)) => {
                        may_name_endpoint(cue(i)) && !forms::name_has_word(name, forms::WRITE_WORDS)
                    }
                    _ => true,
                },
                // Other hosts' forms: `Values::spelled` never spells a Python call so.
                Callee::Lookup { .. }
                | Callee::InventoryPlugin(_)
                | Callee::Command { .. }
                | Callee::Url => false,
            };
            // A row spelled so, asked what its reader asks first.
            let may = spelled
                && match (form.carries, form.target) {
                    // `Values::pynetbox`: the receiver is `<x>.<app>.<endpoint>` for a NetBox
                    // app, or `<x>.plugins.<plugin>.<endpoint>`.
                    (Carries::Rest(_), TargetAt::Chain) => {
                        object.is_some_and(|o| self.chain_shaped(o))
                    }
                    // `Values::named_tool_call`: the receiver names a tool.
                    (Carries::NamedTool, TargetAt::Receiver) => {
                        let receiver = match object {
                            Some(Expr::Attribute(a)) => Some(a.attr.range),
                            Some(Expr::Name(n)) => Some(n.range),
                            _ => None,
                        };
                        receiver.is_some_and(|r| tools::tool_from_name(self.text(r)).is_some())
                    }
                    // `Values::url_call` (the guard first): a string must hold `/api/` (a
                    // plain one is one piece of text, where `url_path` looks for it and
                    // `url_path_joined`, which joins two or more, does not); a node that is
                    // no string is a hole, no path.
                    (Carries::Rest(_), TargetAt::Url(i, kw)) => {
                        let guard = match form.guard {
                            Guard::Always => true,
                            Guard::MethodGet => may_get(),
                            _ => true,
                        };
                        guard
                            && node_cue(i, kw).is_some_and(|c| match c {
                                ArgCue::Str(url) => url.contains("/api/"),
                                ArgCue::NotStr => false,
                                ArgCue::Unknown => true,
                            })
                    }
                    _ => true,
                };
            if may {
                return false;
            }
        }
        for (e, open) in unread {
            drop(self.arg(e, at, open));
        }
        true
    }

    /// True when `obj`, the receiver of a call, is shaped as [`Values::pynetbox`] reads it:
    /// `<x>.<app>.<endpoint>` for a NetBox app, or `<x>.plugins.<plugin>.<endpoint>`.
    fn chain_shaped(&self, obj: &Expr) -> bool {
        let Expr::Attribute(obj) = obj else {
            return false;
        };
        let Expr::Attribute(parent) = &*obj.value else {
            return false;
        };
        APPS.contains(&self.text(parent.attr.range))
            || matches!(&*parent.value, Expr::Attribute(g) if self.text(g.attr.range) == "plugins")
    }

    /// What an argument's node tells of its value without reading it (see [`ArgCue`]).
    fn arg_cue(&self, e: &Expr) -> ArgCue<'a> {
        match e {
            Expr::StringLiteral(s) => {
                let mut parts = s.value.iter();
                match (parts.next(), parts.next()) {
                    (Some(part), None) => match self.plain(part.range) {
                        Some((_, raw)) => ArgCue::Str(raw),
                        None => ArgCue::Unknown,
                    },
                    _ => ArgCue::Unknown,
                }
            }
            Expr::NumberLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_)
            | Expr::Attribute(_)
            | Expr::UnaryOp(_)
            | Expr::Dict(_)
            | Expr::List(_)
            | Expr::Set(_)
            | Expr::Tuple(_)
            | Expr::Starred(_) => ArgCue::NotStr,
            _ => ArgCue::Unknown,
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
            let [part] = k.value.as_slice() else {
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
        // (Only its content: the literal's own range, with the parentheses around it, is not
        // needed here.)
        let plain_type = match type_arg {
            Expr::StringLiteral(s) => match s.value.as_slice() {
                [part] => self.plain(part.range),
                _ => None,
            },
            _ => None,
        };
        let target = match plain_type {
            Some((content, raw)) => Some((raw.into(), self.host(content))),
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
                    key: (*raw).into(),
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
        let [part] = s.value.as_slice() else {
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
                    Value::Str(text.into())
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
            // (A call on no object calls a bare name: its qualified name is read, not built.)
            Callee::Function(n) => {
                call.name == n
                    || (call.object.is_none()
                        && matches!(call.func, Expr::Name(f) if self.name_qualified(f, call.at).last() == n))
            }
            Callee::Qualified(names) => {
                call.object.is_none()
                    && matches!(call.func, Expr::Name(f)
                        if { let q = self.name_qualified(f, call.at); names.iter().any(|n| q.is(n)) })
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
                        compact_str::format_compact!("arg{i}")
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
            target: Some((target.into(), target_range)),
            call_range: call.call_range.clone(),
            filters_range: Some(self.host(span(call.arglist.range))),
            filters,
            args: extra,
            declared: false,
        }))
    }
}

/// What [`Values::wrapper_call`] may find at a path argument, by what its node tells (`None`:
/// there is none, and it finds nothing): a string must be a path [`wrapper_path`] takes; a
/// node that is no string is no path; a node whose value is not known here may be one.
fn may_name_endpoint(cue: Option<ArgCue<'_>>) -> bool {
    cue.is_some_and(|c| match c {
        ArgCue::Str(path) => wrapper_path(path),
        ArgCue::NotStr => false,
        ArgCue::Unknown => true,
    })
}

/// What an argument's node tells of its value before it is read ([`Values::no_site`]).
#[derive(Clone, Copy)]
enum ArgCue<'a> {
    /// A one-part string literal whose value is its text (see `Reader::plain`): that text,
    /// which [`Lit::as_str`] gives for it.
    Str(&'a str),
    /// A node whose value is never a string: [`Lit::as_str`] gives none for it (a number,
    /// `True`/`False`/`None`/`...`, an attribute or a unary operation, read as a scalar
    /// that is no string; a dict, list, set or tuple, read as a mapping or a sequence; a
    /// starred argument, read as an expression), and [`Values::wrapper_call`] reads no text
    /// in it (no string parts, no `+`, no name).
    NotStr,
    /// Anything else (a name, a call, an f-string, a string with escapes or parts, bytes).
    Unknown,
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
        /// Set: every call is read through the call-form table (no `Values::no_site`).
        pub(super) static NO_SCREEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// `extract_calls` of `text` with and without `Values::no_site`, as debug text.
    fn screened_and_not(text: &str) -> (String, String) {
        let map = OffsetMap::identity(0, text.len());
        let screened = format!("{:?}", extract_calls(text, &map));
        NO_SCREEN.with(|g| g.set(true));
        let all = format!("{:?}", extract_calls(text, &map));
        NO_SCREEN.with(|g| g.set(false));
        (screened, all)
    }

    /// A call that `Values::no_site` skips is one the call-form table finds nothing in, and
    /// skipping it leaves what reading its arguments leaves (a call read past its budget, other
    /// possible values, declared keys): the sites are the same, to the byte, for calls of every
    /// row, of no row, and for the Python files of the examples and fixtures (and of the folder
    /// `NETBOX_LSP_SCREEN_CORPUS` names, when set).
    #[test]
    fn skipped_calls_are_calls_the_table_finds_nothing_in() {
        let calls = [
            // Client wrappers: path first, method then path, by name, parenthesized, escaped.
            r#"api_get("/api/dcim/devices/", {"name": "a"})"#,
            r#"fetch_all("dcim/devices/", {"name": "a"})"#,
            r#"client.get("dcim/devices/", params={"site": 1})"#,
            r#"self._get("https://nb.example.com/api/dcim/devices/?name=a")"#,
            r#"self._request("GET", "/api/dcim/sites/", params={"slug": "x"})"#,
            r#"self._request("get", "/api/dcim/sites/?q=1")"#,
            r#"self._request(method="GET", path="/api/dcim/sites/", params={"slug": "x"})"#,
            r#"do("POST", "/api/dcim/sites/", {"slug": "x"})"#,
            r#"do(METHOD, "/api/dcim/sites/", params={"slug": "x"})"#,
            r#"api_get(PATH, {"name": "a"})"#,
            r#"api_get(("/api/dcim/devices/"), {"name": "a"})"#,
            r#"api_get("/api/dcim/devices/?name=a", {"name": "a"})"#,
            r#"api_get(r"/api/dcim/devices/", {"name": "a"})"#,
            r#"api_get(b"/api/dcim/devices/", {"name": "a"})"#,
            r#"api_get("/api/dcim/" "devices/", {"name": "a"})"#,
            r#"api_get(f"{BASE}/api/dcim/devices/", {"name": "a"})"#,
            r#"api_get(BASE + "/api/dcim/devices/", {"name": "a"})"#,
            r#"create_device("/api/dcim/devices/", {"name": "a"})"#,
            r#"api_get(*paths, {"name": "a"})"#,
            r#"api_get(path="/api/dcim/devices/", params={"name": "a"})"#,
            r#"api_get(1, "/api/dcim/devices/")"#,
            r#"api_get("/api/users/profile/", {"x": 1})"#,
            r#"api_get("/api/users/users/", {"x": 1})"#,
            r#"api_get("https://x/y/api/dcim/devices/", {"x": 1})"#,
            r#"api_get("/api/plugins/bgp/sessions/", {"x": 1})"#,
            // HTTP clients, by import.
            r#"requests.get("https://nb/api/dcim/devices/", params={"site": "a"})"#,
            r#"g("https://nb/api/dcim/devices/", params={"site": "a"})"#,
            r#"httpx.get(URL, params=P)"#,
            r#"uo("https://nb/api/dcim/devices/?site=a")"#,
            r#"urllib.request.urlopen("https://nb/api/dcim/devices/?site=a")"#,
            r#"Request("https://nb/api/dcim/devices/?site=a")"#,
            r#"session.request("GET", "https://nb/api/dcim/devices/", params={"site": "a"})"#,
            r#"requests.post("https://nb/graphql/", json={"query": "{ site_list { id } }"})"#,
            r#"p("https://nb/graphql/", json={"query": "{ site_list { id } }"})"#,
            r#"q("{ device_list { nme } }")"#,
            // Tools, their wrappers, code mode, pynetbox.
            r#"netbox_get_objects("dcim.device", {"nme": "a"})"#,
            r#"tools.netboxGetObjects("dcim.device", {"nme": "a"})"#,
            r#"netbox_get_objects.invoke({"object_type": "dcim.device", "filters": {"nme": "a"}})"#,
            r#"session.call_tool("netbox_get_objects", {"object_type": "dcim.device", "filters": {"nme": "a"}})"#,
            r#"ct("netbox_get_objects", {"object_type": "dcim.device", "filters": {"nme": "a"}})"#,
            r#"get("dcim.device", {"nme": "a"})"#,
            r#"changelogs({"action": "x"})"#,
            r#"search("a", object_types=["dcim.device"])"#,
            r#"api("GET", "/dcim/devices/", params={"nme": "a"})"#,
            r#"graphql("{ device_list { nme } }")"#,
            r#"nb.dcim.devices.filter(site="a", nme="b")"#,
            r#"nb.plugins.bgp.sessions.get(1)"#,
            r#"nb.dcim.devices.count()"#,
            r#"api.x.plugins.bgp.sessions.filter(q="a")"#,
            r#"d.get("key", None)"#,
            r#"proc.run(["ls"])"#,
            r#"tools.netbox_get_objects.run({"object_type": "dcim.device", "filters": {"nme": "a"}})"#,
            r#"netbox_graphql.invoke({"query": "{ device_list { nme } }"})"#,
            r#"netbox_call.invoke({"query": "{ device_list { nme } }"})"#,
            r#"self.nb.dcim.get(name="a")"#,
            r#"nb.foo.devices.filter(site="a")"#,
            r#"config.get(key)"#,
            r#"session.get(url="https://nb/api/dcim/devices/", params={"site": "a"})"#,
            r#"session.get("https://nb/dcim/devices/?site=a", params={"site": "a"})"#,
            r#"session.get(PATH, params={"site": "a"})"#,
            r#"session.get(1, params={"site": "a"})"#,
            r#"session.get(params={"site": "a"})"#,
            r#"session.request("POST", "https://nb/api/dcim/devices/", params={"site": "a"})"#,
            r#"session.request(method="GET", url="https://nb/api/dcim/devices/", params={"site": "a"})"#,
            r#"urlopen("https://nb/api/dcim/devices/?site=a")"#,
            r#"urlopen("https://example.com/")"#,
            // No row: literals, names, calls, keywords, splats, typed keywords, generators.
            r#"xetbox_get_objectz("dcim.site", {"stauts": 3})"#,
            r#"print("dcim/devices", x, y=z, **kw)"#,
            r#"logger.info("fetching %s", path, extra={"a": [1, (2, 3)], "b": -1})"#,
            r#"f(a=1, =x)"#,
            r#"f(=x)"#,
            r#"f(*args, **{"a": 1})"#,
            r#"f(x for x in y)"#,
            r#"f(a39)"#,
            r#"f(d39)"#,
            r#"f(status)"#,
            r#"log.info("msg %s", a39)"#,
            r#"log("msg", d=d39)"#,
            r#"log("msg", status, x)"#,
            r#"log(1, **d39)"#,
            r#"log("msg", Filters(status=status).model_dump())"#,
            r#"f({1: "a", "b": 2}, {**base}, [{"a": b}])"#,
            r#"f(lambda: 1, not x, a if b else c, 1 < 2, ...)"#,
            r#"f(Model(**x).model_dump())"#,
        ];
        let mut prelude = String::from(
            "import requests, httpx\nimport urllib.request\nfrom requests import get as g, post as p\nfrom gql import gql as q\nfrom urllib.request import urlopen as uo, Request\nfrom mcp import call_tool as ct\nfrom typing import Literal\nfrom pydantic import BaseModel\nclass Filters(BaseModel):\n    status: Literal[\"active\", \"planned\"] = \"active\"\nPATH = \"/api/dcim/devices/\"\nMETHOD = \"GET\"\nBASE = \"https://nb\"\nURL = BASE + PATH\nP = {\"site\": 1}\nbase = {\"site\": 1}\na0 = 'x'\nd0 = {'site': 1}\n",
        );
        for i in 1..40 {
            prelude.push_str(&format!("a{i} = a{} + a{}\n", i - 1, i - 1));
            prelude.push_str(&format!("d{i} = {{**d{}, **d{}}}\n", i - 1, i - 1));
        }
        let mut texts: Vec<String> = Vec::new();
        for c in calls {
            texts.push(format!("{prelude}{c}\n"));
            // In a function whose parameter has choices, used before a site reads it.
            texts.push(format!(
                "{prelude}def run(status: Literal[\"active\", \"planned\"], x=1):\n    {c}\n    f(status)\n    netbox_get_objects(\"dcim.device\", {{\"status\": status}})\n"
            ));
            // In a helper read for its callers.
            texts.push(format!(
                "{prelude}def h(path, params):\n    {c}\n    api_get(path, params)\n\nh(\"/api/dcim/devices/\", {{\"nme\": 1}})\n"
            ));
        }
        texts.push(calls.join("\n"));
        let mut files = Vec::new();
        let mut dirs: Vec<std::path::PathBuf> = vec!["examples".into(), "tests/fixtures".into()];
        if let Some(extra) = std::env::var_os("NETBOX_LSP_SCREEN_CORPUS") {
            dirs.push(extra.into());
        }
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "py") {
                    files.push(path);
                }
            }
        }
        assert!(files.len() > 20, "{files:?}");
        for f in &files {
            if let Ok(text) = std::fs::read_to_string(f) {
                texts.push(text);
            }
        }
        for text in &texts {
            let (screened, all) = screened_and_not(text);
            assert_eq!(screened, all, "{text}");
        }
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
