//! Values of Python expressions, read from the module's [`Semantic`] model without running
//! anything: a name is read through the binding it has at the use (the one binding that always
//! ran before it in the same scope, or the only binding of a module name used in a function),
//! dicts with their updates (`d[k] = v`, `d.update(...)`, `d |= {...}`, `**d`, comprehensions
//! over a known dict), strings folded into templates of text and holes (f-strings, `+`, `%`,
//! `.format`, `string.Template`, `urljoin`), and a helper's parameters bound to the literal
//! arguments of one call of it (one level).
//!
//! It knows Python, not NetBox: it yields values with the host ranges of the literals they
//! come from ([`Lit`]), the checks judge them. What it refuses to read: another file, a name
//! rebound under `if`/`for`/`while`/`try`/`match` before the use (which value is sent is known
//! only at run time), a value more than one call level away, anything that needs running code.

use compact_str::CompactString;
use std::cell::{Cell, RefCell};
use std::ops::{Deref, Range};

use ruff_python_ast::{self as ast, ConversionFlag, Expr, InterpolatedStringElement, Operator};
use ruff_text_size::{Ranged, TextRange};
use smallvec::{smallvec, SmallVec};

use super::semantic::{At, BindingKind, Holes, ScopeId, ScopeKind, Semantic, Star, Update};
use super::strings::{decode_escapes, escape_sequences};
use super::{span, Reader};
use crate::extract::forms::Form;
use crate::extract::lit::{EscapedText, Lit, LitKind, Pair};
use crate::extract::parse::MAX_DEPTH;
use crate::extract::{OffsetMap, Value};

/// The strings a key expression may be, with their host ranges: most keys are one literal,
/// kept without an allocation of its own.
type Keys = SmallVec<[(CompactString, Range<usize>); 1]>;

/// Deepest chain of names, templates and updates followed for one value.
const MAX_FOLLOW: usize = 24;

/// The values of one module: the reader of its text and its semantic model.
pub(super) struct Values<'a> {
    pub r: &'a Reader<'a>,
    pub m: &'a Semantic<'a>,
    /// Parameters bound by a call of a helper, while its body is read for that call (index 0
    /// is unused: [`At::env`] 0 means none).
    envs: RefCell<Vec<Env<'a>>>,
    /// Set when a value was read from an environment's parameter.
    used_env: Cell<bool>,
    /// Other possible values of a filter whose model field or parameter allows several
    /// (`Literal[...]`, an `Enum`): by the host range of the first one (the value read).
    alternatives: RefCell<Vec<(Range<usize>, Vec<Lit>)>>,
    /// Host ranges of keys that are declared names of the program (model fields, function
    /// parameters) rather than dict keys written for the request.
    declared: RefCell<Vec<Range<usize>>>,
    /// Steps left for reading the value at hand ([`Values::refuel`]): names that refer to each
    /// other twice over (`a = b + b; b = c + c`) cannot make the work grow past it.
    fuel: Cell<u32>,
    /// Calls of helpers' bodies left to read for the whole module.
    pub(super) expansions: Cell<u32>,
    /// Whether the module was said to call helpers past [`EXPANSIONS`].
    pub(super) budget_reported: Cell<bool>,
    /// The last called name looked up in the tool table and its row: a file of tool calls
    /// calls the same few names over and over, and every tool row of the call-form table asks.
    pub(super) last_tool: Cell<Option<(&'a str, Option<&'static Form>)>>,
}

/// Steps of reading one call's values (a real one takes tens).
pub(super) const FUEL: u32 = 1024;

/// Calls of helpers' bodies read per module (each caller reads the calls of its helper).
pub(super) const EXPANSIONS: u32 = 20_000;

impl<'a> Deref for Values<'a> {
    type Target = Reader<'a>;
    fn deref(&self) -> &Reader<'a> {
        self.r
    }
}

/// The parameters of a helper bound by one call of it.
pub(super) struct Env<'a> {
    /// The helper's scope.
    pub scope: ScopeId,
    /// Parameter name → what the call gave it.
    pub params: Vec<(&'a str, Given<'a>)>,
}

/// What a call gave a parameter.
#[derive(Clone)]
pub(super) enum Given<'a> {
    /// An argument, read where the call stands.
    Expr(&'a Expr, At),
    /// The keyword arguments no named parameter took (and `**x` splats), for `**kwargs`.
    Kwargs(&'a ast::Arguments, Vec<&'a str>, At),
    /// Nothing: the default, read where the function is defined.
    Default(&'a Expr, At),
}

/// What a name reads at a use.
pub(super) enum Read<'a> {
    /// A binding (index), in `scope`; `flow`: read in the order the code runs (the use is in
    /// the binding's own scope), else the only binding of a name of an enclosing scope.
    Binding { id: u32, scope: ScopeId, flow: bool },
    /// A parameter of the helper being read for one call: what the call gave it.
    Given(Given<'a>),
    /// No binding in the module: a builtin, or a name the snippet does not define.
    Unbound,
    /// Bound, but not to one value known here.
    Unknown,
}

/// A string value as pieces of source text and holes, in order.
#[derive(Debug, Clone, Default)]
pub(super) struct Template {
    pub pieces: Vec<Piece>,
}

/// A piece of a [`Template`].
#[derive(Debug, Clone)]
pub(super) enum Piece {
    /// Source text (an embedded range of a string's content, or of a number substituted into
    /// a template) and how it is escaped.
    Text { raw: Range<usize>, esc: Esc },
    /// A value known only at run time: the embedded range of what stands for it.
    Hole { raw: Range<usize> },
    /// `urlencode({...})`: the dict (for URLs).
    Encoded(Lit),
}

/// How a [`Piece::Text`] is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Esc {
    /// Backslash escapes are decoded (not a raw string, not a number).
    pub backslash: bool,
    /// `{{`/`}}` stand for one brace (f-strings, `.format` templates).
    pub braces: bool,
    /// `%%` stands for `%` (`%` templates).
    pub percent: bool,
    /// `$$` stands for `$` (`string.Template`).
    pub dollar: bool,
}

impl<'a> Values<'a> {
    pub fn new(r: &'a Reader<'a>, m: &'a Semantic<'a>) -> Self {
        Values {
            r,
            m,
            envs: RefCell::new(Vec::new()),
            used_env: Cell::new(false),
            alternatives: RefCell::new(Vec::new()),
            declared: RefCell::new(Vec::new()),
            fuel: Cell::new(FUEL),
            expansions: Cell::new(EXPANSIONS),
            budget_reported: Cell::new(false),
            last_tool: Cell::new(None),
        }
    }

    /// Gives the reading of one call's (or one string's) values its steps.
    pub fn refuel(&self) {
        self.fuel.set(FUEL);
    }

    /// True when the reading at hand used all of its steps: what it read is only part of the
    /// values.
    pub fn exhausted(&self) -> bool {
        self.fuel.get() == 0
    }

    /// Takes one step; false when the reading at hand has used all of its steps.
    fn step(&self) -> bool {
        let left = self.fuel.get();
        self.fuel.set(left.saturating_sub(1));
        left > 0
    }

    /// Adds an environment; its index for [`At::env`].
    pub fn push_env(&self, env: Env<'a>) -> u32 {
        let mut envs = self.envs.borrow_mut();
        if envs.is_empty() {
            envs.push(Env {
                scope: u32::MAX,
                params: Vec::new(),
            });
        }
        envs.push(env);
        (envs.len() - 1) as u32
    }

    /// Clears the "read from an environment" flag and returns what it was.
    pub fn take_used_env(&self) -> bool {
        self.used_env.replace(false)
    }

    /// The other possible values recorded for the value at host range `value`.
    pub fn alternatives_of(&self, value: &Range<usize>) -> Option<Vec<Lit>> {
        self.alternatives
            .borrow()
            .iter()
            .find(|(k, _)| k == value)
            .map(|(_, v)| v.clone())
    }

    /// True when the key at host range `key` is a declared name (a model field, a parameter).
    pub fn is_declared(&self, key: &Range<usize>) -> bool {
        self.declared.borrow().contains(key)
    }

    /// True when no value was found to have other possible values, and no key to be a declared
    /// name (most modules): [`Values::alternatives_of`] and [`Values::is_declared`] then answer
    /// `None` and false for all.
    pub fn nothing_recorded(&self) -> bool {
        self.alternatives.borrow().is_empty() && self.declared.borrow().is_empty()
    }

    pub(super) fn record_alternatives(&self, key: Range<usize>, others: Vec<Lit>) {
        if !others.is_empty() {
            self.alternatives.borrow_mut().push((key, others));
        }
    }

    pub(super) fn record_declared(&self, key: Range<usize>) {
        self.declared.borrow_mut().push(key);
    }

    // ---- names ----

    /// What `name` reads at `at`.
    pub fn read(&self, name: &str, at: At) -> Read<'a> {
        let m = self.m;
        let mut scope = at.scope;
        let mut block = at.block;
        let mut flow = true;
        if m.is_global(scope, name) {
            scope = 0;
            flow = false;
        }
        loop {
            let s = &m.scopes[scope as usize];
            let skip = !flow && matches!(s.kind, ScopeKind::Class);
            let ids = m.bindings_of(scope, name);
            if !skip && !ids.is_empty() {
                let found = if flow {
                    self.pick_flow(ids, at.offset, block)
                } else {
                    self.pick_only(ids)
                };
                return match found {
                    Some(id) => {
                        self.given(id, scope, at)
                            .unwrap_or(Read::Binding { id, scope, flow })
                    }
                    None => Read::Unknown,
                };
            }
            let Some(parent) = s.parent else {
                return Read::Unbound;
            };
            // A comprehension runs where it stands; a function or lambda body later.
            if matches!(s.kind, ScopeKind::Comprehension) && flow {
                block = self.m.scopes[scope as usize].outer;
            } else {
                flow = false;
            }
            scope = parent;
        }
    }

    /// The binding read in code order at `offset` in block `block`: the last binding before it,
    /// when that binding always ran before the use and no binding in a loop around the use
    /// may come after it.
    fn pick_flow(&self, ids: &[u32], offset: u32, block: u32) -> Option<u32> {
        let m = self.m;
        let last = ids.iter().copied().rfind(|&id| {
            let b = &m.bindings[id as usize];
            !matches!(b.kind, BindingKind::Update(_)) && b.at <= offset
        })?;
        let b = &m.bindings[last as usize];
        if !m.encloses(b.block, block) || matches!(b.kind, BindingKind::Other) {
            return None;
        }
        for l in m.loops_around(block) {
            let later = ids.iter().any(|&id| {
                let b2 = &m.bindings[id as usize];
                !matches!(b2.kind, BindingKind::Update(_))
                    && b2.at > offset
                    && l.start <= b2.start
                    && b2.start < l.end
            });
            if later {
                return None;
            }
        }
        Some(last)
    }

    /// The one binding of a name (updates aside), if it has exactly one.
    fn pick_only(&self, ids: &[u32]) -> Option<u32> {
        let mut found = None;
        for &id in ids {
            let b = &self.m.bindings[id as usize];
            match b.kind {
                BindingKind::Update(_) => {}
                BindingKind::Other => return None,
                _ if found.is_some() => return None,
                _ => found = Some(id),
            }
        }
        found
    }

    /// A parameter binding of the helper being read for a call: what the call gave it.
    fn given(&self, id: u32, scope: ScopeId, at: At) -> Option<Read<'a>> {
        if at.env == 0 {
            return None;
        }
        let b = &self.m.bindings[id as usize];
        let BindingKind::Param { param, .. } = b.kind else {
            return None;
        };
        let envs = self.envs.borrow();
        let env = envs.get(at.env as usize)?;
        if env.scope != scope {
            return None;
        }
        let name = self.text(param.name.range);
        let given = env.params.iter().find(|(n, _)| *n == name)?.1.clone();
        self.used_env.set(true);
        Some(Read::Given(given))
    }

    /// Where binding `id` stands, for reading its value (in the environment of `at`).
    fn binding_at(&self, id: u32, at: At) -> At {
        let b = &self.m.bindings[id as usize];
        At {
            scope: b.scope,
            block: b.block,
            offset: b.start,
            env: at.env,
        }
    }

    /// The updates of the dict `name` holds that apply to a read of binding `id`: in code order
    /// (`flow`), those between the binding and the use; else all of them.
    fn updates(&self, name: &str, scope: ScopeId, id: u32, use_at: u32, flow: bool) -> Vec<u32> {
        let base = self.m.bindings[id as usize].at;
        self.m
            .bindings_of(scope, name)
            .iter()
            .copied()
            .filter(|&u| {
                let b = &self.m.bindings[u as usize];
                matches!(b.kind, BindingKind::Update(_))
                    && (!flow || (b.at >= base && b.at <= use_at))
            })
            .collect()
    }

    /// The qualified name of a bare name `n` called at `at`, as [`Values::qualified`] spells it,
    /// without building it: the import path the name is bound to (`from requests import get
    /// as g` → `requests` and `get`), else the name itself. Reads the name as `qualified` does
    /// (the same steps, the same note of a helper's parameter read).
    pub fn name_qualified(&self, n: &ast::ExprName, at: At) -> Qualified<'a> {
        let name = self.text(n.range);
        match self.read(name, at) {
            Read::Binding { id, .. } => match self.m.bindings[id as usize].kind {
                BindingKind::Import { qualified, member } => Qualified {
                    module: qualified,
                    member,
                },
                _ => Qualified {
                    module: name,
                    member: "",
                },
            },
            _ => Qualified {
                module: name,
                member: "",
            },
        }
    }

    /// The qualified name of a callee: the import path of the name it starts with
    /// (`from requests import get as g` → `requests.get`), else as spelled (`urljoin`,
    /// `session.get`). `None` for a callee that is not a dotted name.
    pub fn qualified(&self, callee: &Expr, at: At) -> Option<String> {
        match callee {
            Expr::Name(n) => {
                let name = self.text(n.range);
                Some(match self.read(name, at) {
                    Read::Binding { id, .. } => match self.m.bindings[id as usize].kind {
                        BindingKind::Import { qualified, member } => join(qualified, member),
                        _ => name.to_string(),
                    },
                    _ => name.to_string(),
                })
            }
            Expr::Attribute(a) => {
                let base = self.qualified(&a.value, at)?;
                Some(format!("{base}.{}", self.text(a.attr.range)))
            }
            _ => None,
        }
    }

    // ---- literals ----

    /// The value of `e` at `at` with names read through (see the module documentation): the
    /// literal, its ranges those of the literals it comes from (a finding lands on the origin:
    /// the dict's key, the mapping's value, the model's field). Whether a fix there may be
    /// certain is decided where all its uses are known: a declared name never
    /// ([`crate::extract::RestCall::declared`]), a literal that feeds several calls neither
    /// (the analysis counts the sites that send it).
    pub fn resolve(&self, e: &'a Expr, at: At) -> Lit {
        self.lit(e, at, None, 0)
    }

    /// The literal of an argument (`open`: the call's own `(`, see [`Reader::outer`]).
    pub fn arg(&self, e: &'a Expr, at: At, open: Option<usize>) -> Lit {
        self.lit(e, at, open, 0)
    }

    fn unknown(&self, e: &Expr) -> Lit {
        Lit::scalar(Value::Expr, self.host(span(e.range())))
    }

    /// True when reading `e` with [`Values::lit`] changes nothing in the reading's state: it
    /// takes no step of the fuel and records no other possible value and no declared key,
    /// whatever the module holds, because it reads no name. A literal made of literals: a
    /// string, bytes, a number, `True`/`False`/`None`/`...`, an attribute or a unary operation
    /// (read by [`Reader::literal`], which reads no name), a list, set or tuple of such, a dict
    /// whose keys are string literals (which `Values::dict` reads without a step) and whose
    /// values are such. Anything else (a name, a call, a subscript, an f-string, `+`, `%`, `|`,
    /// a comprehension, a `**` splat, another key) is not, nor a literal nested past
    /// [`MAX_DEPTH`] levels. Follows the arms of [`Values::lit`]: a change there is a change
    /// here.
    pub(super) fn inert(e: &Expr, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match e {
            Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::NumberLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_)
            | Expr::Attribute(_)
            | Expr::UnaryOp(_) => true,
            Expr::List(ast::ExprList { elts, .. })
            | Expr::Set(ast::ExprSet { elts, .. })
            | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                elts.iter().all(|c| Self::inert(c, depth + 1))
            }
            Expr::Dict(d) => d.items.iter().all(|item| {
                matches!(item.key, Some(Expr::StringLiteral(_)))
                    && Self::inert(&item.value, depth + 1)
            }),
            _ => false,
        }
    }

    /// The literal of `e` (see [`Values::resolve`]); `depth` bounds the names and nesting
    /// followed. A change of its arms is a change of [`Values::inert`].
    pub(super) fn lit(&self, e: &'a Expr, at: At, open: Option<usize>, depth: usize) -> Lit {
        if depth > MAX_FOLLOW.max(MAX_DEPTH) {
            return self.unknown(e);
        }
        // A step for every indirection (a name, a call, a subscript), none for the literal's
        // own structure: its size is the source's.
        if matches!(e, Expr::Name(_) | Expr::Call(_) | Expr::Subscript(_)) && !self.step() {
            return self.unknown(e);
        }
        match e {
            Expr::Name(n) => self.name_lit(n, at, depth),
            Expr::Dict(_) | Expr::DictComp(_) => match self.dict(e, at, depth) {
                Some((pairs, _)) => {
                    let range = self.host(self.outer(e.range(), open));
                    Lit::map(pairs, range)
                }
                None => self.unknown(e),
            },
            Expr::List(ast::ExprList { elts, .. }) | Expr::Set(ast::ExprSet { elts, .. }) => {
                let items = elts
                    .iter()
                    .map(|c| self.lit(c, at, None, depth + 1))
                    .collect();
                Lit::seq(items, self.host(self.outer(e.range(), open)))
            }
            Expr::Tuple(t) if t.parenthesized => {
                let items = t
                    .elts
                    .iter()
                    .map(|c| self.lit(c, at, None, depth + 1))
                    .collect();
                Lit::seq(items, self.host(self.outer(e.range(), open)))
            }
            Expr::StringLiteral(s) if s.value.iter().count() == 1 => self.literal(e, open, depth),
            Expr::StringLiteral(_)
            | Expr::FString(_)
            | Expr::BinOp(ast::ExprBinOp {
                op: Operator::Add | Operator::Mod,
                ..
            }) => self.string_lit(e, at, open, depth),
            Expr::BinOp(ast::ExprBinOp {
                op: Operator::BitOr,
                ..
            }) => match self.dict(e, at, depth) {
                Some((pairs, _)) => Lit::map(pairs, self.host(self.outer(e.range(), open))),
                None => self.unknown(e),
            },
            Expr::Subscript(s) => match self.subscript(s, at, depth) {
                Some(l) => l,
                None => self.unknown(e),
            },
            Expr::Call(c) => {
                if let Some((pairs, range)) = self.dict_call(c, at, depth) {
                    return Lit::map(pairs, range);
                }
                if self.is_string_call(c) {
                    return self.string_lit(e, at, open, depth);
                }
                self.unknown(e)
            }
            _ => self.literal(e, open, depth),
        }
    }

    /// The literal a name reads.
    fn name_lit(&self, n: &'a ast::ExprName, at: At, depth: usize) -> Lit {
        let e_range = self.host(span(n.range));
        let name = self.text(n.range);
        match self.read(name, at) {
            Read::Binding { id, scope, flow } => {
                let b = self.m.bindings[id as usize];
                match b.kind {
                    BindingKind::Value { value, .. } => {
                        let mut lit = self.lit(value, self.binding_at(id, at), None, depth + 1);
                        if let LitKind::Map(pairs) = &mut lit.kind {
                            let ups = self.updates(name, scope, id, at.offset, flow);
                            self.apply_updates(pairs, &ups, at, depth);
                        }
                        lit
                    }
                    BindingKind::Param {
                        param,
                        default,
                        star: Star::None,
                    } => {
                        // A parameter typed as a TypedDict: its fields are the keys.
                        if let Some(mut lit) = param
                            .annotation
                            .as_deref()
                            .and_then(|a| self.typed_dict_lit(a, b.scope, depth))
                        {
                            if let LitKind::Map(pairs) = &mut lit.kind {
                                let ups = self.updates(name, scope, id, at.offset, flow);
                                self.apply_updates(pairs, &ups, at, depth);
                            }
                            return lit;
                        }
                        // A parameter typed with choices (`Literal[...]`, an `Enum`): each is
                        // a value the function may send (a tool's agent picks one).
                        let (value, others) = self.annotated_values(
                            param.annotation.as_deref(),
                            default,
                            e_range.end,
                            b.scope,
                        );
                        if matches!(value.value, Value::Expr) {
                            return Lit::scalar(Value::Expr, e_range);
                        }
                        self.record_alternatives(value.range.clone(), others);
                        value
                    }
                    _ => Lit::scalar(Value::Expr, e_range),
                }
            }
            Read::Given(g) => {
                let mut lit = self.given_lit(&g, depth);
                // The helper's own updates of a dict it was given.
                if let LitKind::Map(pairs) = &mut lit.kind {
                    if let Some((id, scope)) = self.param_binding(name, at) {
                        let ups = self.updates(name, scope, id, at.offset, true);
                        self.apply_updates(pairs, &ups, at, depth);
                    }
                }
                lit
            }
            Read::Unbound | Read::Unknown => Lit::scalar(Value::Expr, e_range),
        }
    }

    /// The parameter binding of `name` in the scope of `at` (for the updates of a given dict).
    fn param_binding(&self, name: &str, at: At) -> Option<(u32, ScopeId)> {
        let id = self
            .m
            .bindings_of(at.scope, name)
            .iter()
            .copied()
            .find(|&id| matches!(self.m.bindings[id as usize].kind, BindingKind::Param { .. }))?;
        Some((id, at.scope))
    }

    /// The literal of what a call gave a parameter.
    fn given_lit(&self, g: &Given<'a>, depth: usize) -> Lit {
        match g {
            Given::Expr(e, at) | Given::Default(e, at) => self.lit(e, *at, None, depth + 1),
            Given::Kwargs(args, taken, at) => {
                let mut pairs = Vec::new();
                for k in &args.keywords {
                    match &k.arg {
                        Some(id) => {
                            let key = self.text(id.range);
                            if taken.contains(&key) {
                                continue;
                            }
                            upsert(
                                &mut pairs,
                                Pair {
                                    key: key.into(),
                                    key_range: self.host(span(id.range)),
                                    value: self.lit(&k.value, *at, None, depth + 1),
                                },
                            );
                        }
                        None => self.splice(&mut pairs, &k.value, *at, depth + 1),
                    }
                }
                dedup_last(&mut pairs);
                Lit::map(pairs, self.host(span(args.range)))
            }
        }
    }

    /// `m["k"]` of a dict `m` known here.
    fn subscript(&self, s: &'a ast::ExprSubscript, at: At, depth: usize) -> Option<Lit> {
        let (pairs, _) = self.dict(&s.value, at, depth + 1)?;
        let key = self.strings(&s.slice, at, depth + 1)?;
        let [(k, _)] = key.as_slice() else {
            return None;
        };
        pairs.into_iter().find(|p| p.key == *k).map(|p| p.value)
    }

    // ---- dicts ----

    /// The pairs of a dict-valued expression and its host range: a dict literal (with `**`
    /// splats), a comprehension over a known dict, `dict(...)`, `a | b`, `d.copy()`, a name
    /// bound to one (with its updates), what a helper's call gave, `locals()` of a function,
    /// a model's dump ([`super::models`]). `None` when it is not known to be a dict.
    pub(super) fn dict(
        &self,
        e: &'a Expr,
        at: At,
        depth: usize,
    ) -> Option<(Vec<Pair>, Range<usize>)> {
        if depth > MAX_FOLLOW || (!matches!(e, Expr::Dict(_)) && !self.step()) {
            return None;
        }
        let range = self.host(span(e.range()));
        match e {
            Expr::Dict(d) => {
                let mut pairs = Vec::with_capacity(d.items.len());
                for item in &d.items {
                    match &item.key {
                        Some(k) => {
                            // A key read from broken text (an error before its value starts).
                            if self.broken(
                                k.range().start().to_usize(),
                                item.value.range().start().to_usize(),
                            ) {
                                continue;
                            }
                            // The common one-part string key: what `strings` gives for it,
                            // without a list of keys.
                            if let Expr::StringLiteral(s) = k {
                                let mut parts = s.value.iter();
                                if let (Some(part), None, true) =
                                    (parts.next(), parts.next(), depth < MAX_FOLLOW)
                                {
                                    let (key, key_range) = self.string_value(part.range);
                                    let value = self.lit(&item.value, at, None, depth + 1);
                                    upsert(
                                        &mut pairs,
                                        Pair {
                                            key,
                                            key_range,
                                            value,
                                        },
                                    );
                                    continue;
                                }
                            }
                            let Some(keys) = self.strings(k, at, depth + 1) else {
                                continue;
                            };
                            let several = keys.len() > 1;
                            for (key, key_range) in keys {
                                let value = if several {
                                    Lit::scalar(Value::Expr, key_range.end..key_range.end)
                                } else {
                                    self.lit(&item.value, at, None, depth + 1)
                                };
                                upsert(
                                    &mut pairs,
                                    Pair {
                                        key,
                                        key_range,
                                        value,
                                    },
                                );
                            }
                        }
                        None => self.splice(&mut pairs, &item.value, at, depth + 1),
                    }
                }
                dedup_last(&mut pairs);
                Some((pairs, range))
            }
            Expr::DictComp(c) => self.dict_comprehension(c, at, depth),
            Expr::BinOp(b) if b.op == Operator::BitOr => {
                let (mut left, _) = self.dict(&b.left, at, depth + 1)?;
                let (right, _) = self.dict(&b.right, at, depth + 1)?;
                right.into_iter().for_each(|p| upsert(&mut left, p));
                dedup_last(&mut left);
                Some((left, range))
            }
            Expr::Name(_) => {
                let lit = self.lit(e, at, None, depth);
                let r = lit.range.clone();
                match lit.kind {
                    LitKind::Map(pairs) => Some((pairs, r)),
                    _ => None,
                }
            }
            Expr::Call(c) => self.dict_call(c, at, depth),
            _ => None,
        }
    }

    /// A call that gives a dict: `dict(...)`, `d.copy()`, `copy(d)`, `locals()`, a model dump.
    fn dict_call(
        &self,
        c: &'a ast::ExprCall,
        at: At,
        depth: usize,
    ) -> Option<(Vec<Pair>, Range<usize>)> {
        let range = self.host(span(c.range()));
        let args = &c.arguments;
        let func = match &*c.func {
            Expr::Name(n) => self.text(n.range),
            Expr::Attribute(a) => self.text(a.attr.range),
            _ => return None,
        };
        match (func, &*args.args) {
            ("dict", pos) if matches!(&*c.func, Expr::Name(_)) && pos.len() <= 1 => {
                let mut pairs = match pos.first() {
                    Some(p) => match self.dict(p, at, depth + 1) {
                        Some((p, _)) => p,
                        // `dict(model)` of a pydantic model: its field names.
                        None => self.model_dump(p, at, &[], depth)?.0,
                    },
                    None => Vec::new(),
                };
                for k in &args.keywords {
                    match &k.arg {
                        Some(id) => upsert(
                            &mut pairs,
                            Pair {
                                key: self.text(id.range).into(),
                                key_range: self.host(span(id.range)),
                                value: self.lit(&k.value, at, None, depth + 1),
                            },
                        ),
                        None => self.splice(&mut pairs, &k.value, at, depth + 1),
                    }
                }
                dedup_last(&mut pairs);
                Some((pairs, range))
            }
            ("copy", []) => match &*c.func {
                Expr::Attribute(a) => self.dict(&a.value, at, depth + 1),
                _ => None,
            },
            ("copy" | "deepcopy", [one]) => self.dict(one, at, depth + 1),
            ("locals", []) if matches!(&*c.func, Expr::Name(_)) => self.locals(at),
            _ => {
                let (pairs, r) = self.dump_call(c, at, depth)?;
                Some((pairs, r))
            }
        }
    }

    /// `{k: v for k, v in d.items() if ...}` (a filtered copy of a known dict: its pairs), and
    /// `{K: V for ...}` whose keys `K` are read from known values (`MAP[k]`, a loop over a known
    /// dict's keys or values): one pair per key it may have.
    fn dict_comprehension(
        &self,
        c: &'a ast::ExprDictComp,
        at: At,
        depth: usize,
    ) -> Option<(Vec<Pair>, Range<usize>)> {
        let range = self.host(span(c.range()));
        let scope = self.m.nested_scope(c.range.start().to_u32())?;
        let inner = At {
            scope,
            block: self.m.scopes[scope as usize].root,
            offset: c.range.start().to_u32(),
            env: at.env,
        };
        // A filtered copy: `{k: v for k, v in X.items()}`.
        let key = c.key.as_deref()?;
        if let ([g], Expr::Name(k), Expr::Name(v)) = (&*c.generators, key, &*c.value) {
            if let Expr::Tuple(t) = &g.target {
                if let [Expr::Name(tk), Expr::Name(tv)] = &*t.elts {
                    let same = |a: &ast::ExprName, b: &ast::ExprName| {
                        self.text(a.range) == self.text(b.range)
                    };
                    if same(k, tk) && same(v, tv) {
                        if let Some(x) = items_of(self, &g.iter) {
                            return self.dict(x, at, depth + 1).map(|(p, _)| (p, range));
                        }
                    }
                }
            }
        }
        let keys = self.strings(key, inner, depth + 1)?;
        let mut pairs: Vec<Pair> = keys
            .into_iter()
            .map(|(key, key_range)| Pair {
                value: Lit::scalar(Value::Expr, key_range.end..key_range.end),
                key,
                key_range,
            })
            .collect();
        dedup_last(&mut pairs);
        Some((pairs, range))
    }

    /// `locals()` at the start of a function: its parameters, their names declared ones.
    fn locals(&self, at: At) -> Option<(Vec<Pair>, Range<usize>)> {
        let ScopeKind::Function(f) = self.m.scopes[at.scope as usize].kind else {
            return None;
        };
        let mut pairs = Vec::new();
        for p in f.parameters.iter_non_variadic_params() {
            let name = self.text(p.parameter.name.range);
            if matches!(name, "self" | "cls" | "ctx" | "context") {
                continue;
            }
            let key_range = self.host(span(p.parameter.name.range));
            self.record_declared(key_range.clone());
            let (value, others) = self.annotated_values(
                p.parameter.annotation.as_deref(),
                p.default.as_deref(),
                key_range.end,
                at.scope,
            );
            self.record_alternatives(value.range.clone(), others);
            pairs.push(Pair {
                key: name.into(),
                key_range,
                value,
            });
        }
        Some((pairs, self.host(span(f.parameters.range))))
    }

    /// Applies updates `ups` (binding indexes) to `pairs`, read where each update stands.
    fn apply_updates(&self, pairs: &mut Vec<Pair>, ups: &[u32], use_at: At, depth: usize) {
        for &u in ups {
            if !self.step() {
                break;
            }
            let b = self.m.bindings[u as usize];
            let BindingKind::Update(update) = b.kind else {
                continue;
            };
            let at = self.binding_at(u, use_at);
            match update {
                Update::Set { key, value } | Update::SetDefault { key, value } => {
                    let Some(keys) = self.strings(key, at, depth + 1) else {
                        continue;
                    };
                    let several = keys.len() > 1;
                    for (k, key_range) in keys {
                        if matches!(update, Update::SetDefault { .. })
                            && pairs.iter().any(|p| p.key == k)
                        {
                            continue;
                        }
                        let value = if several {
                            Lit::scalar(Value::Expr, key_range.end..key_range.end)
                        } else {
                            self.lit(value, at, None, depth + 1)
                        };
                        upsert(
                            pairs,
                            Pair {
                                key: k,
                                key_range,
                                value,
                            },
                        );
                    }
                }
                Update::Merge(d) => self.splice(pairs, d, at, depth + 1),
                Update::Keywords(args) => {
                    for k in &args.keywords {
                        match &k.arg {
                            Some(id) => upsert(
                                pairs,
                                Pair {
                                    key: self.text(id.range).into(),
                                    key_range: self.host(span(id.range)),
                                    value: self.lit(&k.value, at, None, depth + 1),
                                },
                            ),
                            None => self.splice(pairs, &k.value, at, depth + 1),
                        }
                    }
                }
                Update::Remove(key) => {
                    // Only a removal that always runs before the use.
                    if !self.m.encloses(b.block, use_at.block) {
                        continue;
                    }
                    if let Some(keys) = self.strings(key, at, depth + 1) {
                        if let [(k, _)] = keys.as_slice() {
                            pairs.retain(|p| p.key != *k);
                        }
                    }
                }
            }
        }
        dedup_last(pairs);
    }

    // ---- strings ----

    /// The strings `e` may be, each with the host range of its text: one for a string literal
    /// or a name bound to one; several for a loop target over a known dict's keys or values, or
    /// `MAP[k]` / `MAP.get(k)` of a known dict with an unknown `k` (each value of `MAP`).
    pub(super) fn strings(&self, e: &'a Expr, at: At, depth: usize) -> Option<Keys> {
        if depth > MAX_FOLLOW || (!matches!(e, Expr::StringLiteral(_)) && !self.step()) {
            return None;
        }
        match e {
            // What the literal's `as_str` gives, without its exact text and map.
            Expr::StringLiteral(s) if s.value.iter().count() == 1 => {
                let part = s.value.iter().next()?;
                Some(smallvec![self.string_value(part.range)])
            }
            Expr::Name(n) => {
                let name = self.text(n.range);
                match self.read(name, at) {
                    Read::Binding { id, .. } => {
                        let b = self.m.bindings[id as usize];
                        match b.kind {
                            BindingKind::Value { value, .. } => {
                                self.strings(value, self.binding_at(id, at), depth + 1)
                            }
                            BindingKind::Loop { iter, element } => {
                                self.loop_strings(iter, element, self.binding_at(id, at), depth)
                            }
                            _ => None,
                        }
                    }
                    Read::Given(Given::Expr(e2, at2)) => self.strings(e2, at2, depth + 1),
                    _ => None,
                }
            }
            Expr::Subscript(s) => {
                let (pairs, _) = self.dict(&s.value, at, depth + 1)?;
                self.map_values(pairs, &s.slice, at, depth)
            }
            Expr::Call(c) => {
                let Expr::Attribute(a) = &*c.func else {
                    return None;
                };
                if self.text(a.attr.range) != "get" {
                    return None;
                }
                let key = c.arguments.args.first()?;
                let (pairs, _) = self.dict(&a.value, at, depth + 1)?;
                self.map_values(pairs, key, at, depth)
            }
            _ => None,
        }
    }

    /// The string values of `pairs` that key `key` may select.
    fn map_values(&self, pairs: Vec<Pair>, key: &'a Expr, at: At, depth: usize) -> Option<Keys> {
        let wanted = self.strings(key, at, depth + 1);
        let mut out = Keys::new();
        for p in pairs {
            if wanted
                .as_ref()
                .is_some_and(|w| !w.iter().any(|(k, _)| *k == p.key))
            {
                continue;
            }
            if let Some((s, r)) = p.value.as_str() {
                out.push((s.into(), r));
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// What a loop target over `iter` may be: keys of a known dict (`for k in d`,
    /// `d.keys()`, element 0 of `d.items()`), its values (`d.values()`, element 1 of
    /// `d.items()`), or the strings of a list or tuple literal.
    fn loop_strings(
        &self,
        iter: &'a Expr,
        element: Option<u32>,
        at: At,
        depth: usize,
    ) -> Option<Keys> {
        let (method, base) = match iter {
            Expr::Call(c) if c.arguments.args.is_empty() => match &*c.func {
                Expr::Attribute(a) => (self.text(a.attr.range), &*a.value),
                _ => return None,
            },
            e => ("", e),
        };
        let keys = |pairs: Vec<Pair>| -> Keys {
            pairs.into_iter().map(|p| (p.key, p.key_range)).collect()
        };
        let values = |pairs: Vec<Pair>| -> Keys {
            pairs
                .into_iter()
                .filter_map(|p| p.value.as_str().map(|(s, r)| (s.into(), r)))
                .collect()
        };
        let out = match (method, element) {
            ("items", Some(0)) | ("keys", None) => keys(self.dict(base, at, depth + 1)?.0),
            ("items", Some(1)) | ("values", None) => values(self.dict(base, at, depth + 1)?.0),
            ("", None) => match self.dict(base, at, depth + 1) {
                Some((pairs, _)) => keys(pairs),
                None => {
                    let lit = self.lit(base, at, None, depth + 1);
                    match lit.kind {
                        LitKind::Seq(items) => items
                            .iter()
                            .filter_map(|l| l.as_str().map(|(s, r)| (s.into(), r)))
                            .collect(),
                        _ => return None,
                    }
                }
            },
            _ => return None,
        };
        (!out.is_empty()).then_some(out)
    }

    /// True for a call that gives a string template (`.format`, `%`, `string.Template`'s
    /// `substitute`, `urljoin`, `.strip()`, `textwrap.dedent`, `str(...)` of a string).
    fn is_string_call(&self, c: &ast::ExprCall) -> bool {
        let f = match &*c.func {
            Expr::Name(n) => self.text(n.range),
            Expr::Attribute(a) => self.text(a.attr.range),
            _ => return false,
        };
        matches!(
            f,
            "format"
                | "substitute"
                | "safe_substitute"
                | "urljoin"
                | "strip"
                | "lstrip"
                | "rstrip"
                | "dedent"
                | "cleandoc"
        )
    }

    /// A string built from several pieces: [`LitKind::Template`] (or a plain string literal
    /// when it is one piece of one literal).
    fn string_lit(&self, e: &'a Expr, at: At, open: Option<usize>, depth: usize) -> Lit {
        let range = self.host(self.outer(e.range(), open));
        let mut t = Template::default();
        self.template(e, at, Holes::Plain, depth, &mut t);
        if let [Piece::Text { raw, esc }] = t.pieces.as_slice() {
            // One piece of one literal, written in place: a plain string literal.
            if *esc == Esc::plain(esc.backslash) && self.single_literal_at(e, raw) {
                return self.literal(e, open, depth);
            }
        }
        let (text, map, holes) = self.render(&t);
        let value = if holes.is_empty() && !t.pieces.iter().any(|p| matches!(p, Piece::Encoded(_)))
        {
            Value::Str(text.as_str().into())
        } else {
            Value::Expr
        };
        let raw = Some(span(e.range()));
        Lit {
            value,
            range,
            kind: LitKind::Template {
                exact: map.map(|m| (text, m.then(self.r.map))),
                holes,
            },
            raw,
        }
    }

    /// True when `e` is one string literal whose content is `raw`.
    fn single_literal_at(&self, e: &Expr, raw: &Range<usize>) -> bool {
        matches!(e, Expr::StringLiteral(s) if s.value.iter().count() == 1 && self.content(s.range) == *raw)
    }

    /// Appends the pieces of string expression `e` to `t` (`holes`: how the text marks holes,
    /// for `string.Template`).
    pub(super) fn template(
        &self,
        e: &'a Expr,
        at: At,
        holes: Holes,
        depth: usize,
        t: &mut Template,
    ) {
        let start = t.pieces.len();
        self.template_inner(e, at, depth, t);
        if holes == Holes::Dollar {
            split_dollars(self, t, start, None, at, depth);
        }
    }

    fn hole(&self, e: &Expr, t: &mut Template) {
        t.pieces.push(Piece::Hole {
            raw: self.outer(e.range(), None),
        });
    }

    fn template_inner(&self, e: &'a Expr, at: At, depth: usize, t: &mut Template) {
        let indirect = matches!(e, Expr::Name(_) | Expr::Call(_));
        if depth > MAX_FOLLOW || (indirect && !self.step()) {
            self.hole(e, t);
            return;
        }
        match e {
            Expr::StringLiteral(s) => {
                for p in s.value.iter() {
                    self.text_piece(p.range, t);
                }
            }
            Expr::FString(f) => {
                for p in f.value.iter() {
                    match p {
                        ast::FStringPart::Literal(l) => self.text_piece(l.range, t),
                        ast::FStringPart::FString(fs) => {
                            let backslash = !self.prefix(fs.range).contains(['r', 'R']);
                            for el in fs.elements.iter() {
                                match el {
                                    InterpolatedStringElement::Literal(l) => {
                                        t.pieces.push(Piece::Text {
                                            raw: span(l.range),
                                            esc: Esc {
                                                backslash,
                                                braces: true,
                                                ..Esc::default()
                                            },
                                        })
                                    }
                                    InterpolatedStringElement::Interpolation(i) => {
                                        let plain = i.debug_text.is_none()
                                            && i.conversion == ConversionFlag::None
                                            && i.format_spec.is_none();
                                        if plain && self.foldable(&i.expression) {
                                            self.template_inner(&i.expression, at, depth + 1, t);
                                        } else {
                                            t.pieces.push(Piece::Hole { raw: span(i.range) });
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Expr::BinOp(b) if b.op == Operator::Add => {
                self.template_inner(&b.left, at, depth + 1, t);
                self.template_inner(&b.right, at, depth + 1, t);
            }
            Expr::BinOp(b) if b.op == Operator::Mod => {
                let start = t.pieces.len();
                self.template_inner(&b.left, at, depth + 1, t);
                if t.pieces[start..]
                    .iter()
                    .all(|p| matches!(p, Piece::Hole { .. }))
                {
                    // Not a string template we can read (`a % b` of numbers, an unknown format).
                    t.pieces.truncate(start);
                    self.hole(e, t);
                    return;
                }
                split_percent(self, t, start, &b.right, at, depth);
            }
            Expr::Name(n) => match self.read(self.text(n.range), at) {
                Read::Binding { id, .. } => match self.m.bindings[id as usize].kind {
                    BindingKind::Value { value, .. } if self.foldable(value) => {
                        self.template_inner(value, self.binding_at(id, at), depth + 1, t)
                    }
                    _ => self.hole(e, t),
                },
                Read::Given(Given::Expr(e2, at2)) if self.foldable(e2) => {
                    self.template_inner(e2, at2, depth + 1, t)
                }
                _ => self.hole(e, t),
            },
            Expr::Call(c) => self.template_call(e, c, at, depth, t),
            _ => self.hole(e, t),
        }
    }

    /// True for an expression that may hold a string: worth folding into a template.
    fn foldable(&self, e: &Expr) -> bool {
        match e {
            Expr::StringLiteral(_) | Expr::FString(_) | Expr::Name(_) => true,
            Expr::BinOp(b) => matches!(b.op, Operator::Add | Operator::Mod),
            Expr::Call(c) => self.is_string_call(c) || self.is_urlencode(c),
            _ => false,
        }
    }

    fn is_urlencode(&self, c: &ast::ExprCall) -> bool {
        let name = match &*c.func {
            Expr::Attribute(a) => a.attr.range,
            f => f.range(),
        };
        self.text(name) == "urlencode"
    }

    fn template_call(
        &self,
        e: &'a Expr,
        c: &'a ast::ExprCall,
        at: At,
        depth: usize,
        t: &mut Template,
    ) {
        let (func, receiver) = match &*c.func {
            Expr::Attribute(a) => (self.text(a.attr.range), Some(&*a.value)),
            Expr::Name(n) => (self.text(n.range), None),
            _ => {
                self.hole(e, t);
                return;
            }
        };
        let mut positional = c.arguments.args.iter();
        match (func, receiver) {
            ("format", Some(r)) => {
                let start = t.pieces.len();
                self.template_inner(r, at, depth + 1, t);
                split_braces(self, t, start, &c.arguments, at, depth);
            }
            ("substitute" | "safe_substitute", Some(Expr::Call(tc))) => {
                let is_template = match &*tc.func {
                    Expr::Name(n) => self.text(n.range) == "Template",
                    Expr::Attribute(a) => self.text(a.attr.range) == "Template",
                    _ => false,
                };
                match (is_template, tc.arguments.args.first()) {
                    (true, Some(text)) => {
                        let start = t.pieces.len();
                        self.template_inner(text, at, depth + 1, t);
                        split_dollars(self, t, start, Some(&c.arguments), at, depth);
                    }
                    _ => self.hole(e, t),
                }
            }
            ("strip" | "lstrip" | "rstrip", Some(r)) => {
                let chars = match positional.next() {
                    Some(a) => match self.literal(a, None, 0).as_str() {
                        Some((s, _)) => s.to_string(),
                        None => {
                            self.hole(e, t);
                            return;
                        }
                    },
                    None => " \t\n\r".to_string(),
                };
                let start = t.pieces.len();
                self.template_inner(r, at, depth + 1, t);
                let (left, right) = match func {
                    "lstrip" => (true, false),
                    "rstrip" => (false, true),
                    _ => (true, true),
                };
                strip_pieces(self, t, start, &chars, left, right);
            }
            ("dedent" | "cleandoc", _) => match positional.next() {
                // Whitespace inside a document changes nothing GraphQL reads; positions stay
                // those of the literal.
                Some(a) => self.template_inner(a, at, depth + 1, t),
                None => self.hole(e, t),
            },
            ("urljoin", _) => {
                let (Some(base), Some(rel)) = (positional.next(), positional.next()) else {
                    self.hole(e, t);
                    return;
                };
                let mut tail = Template::default();
                self.template_inner(rel, at, depth + 1, &mut tail);
                let absolute = matches!(tail.pieces.first(), Some(Piece::Text { raw, .. })
                    if self.src.get(raw.clone()).is_some_and(|s| s.starts_with('/') || s.contains("://")));
                if !absolute {
                    // A relative path is appended to the base when the base ends with `/`;
                    // otherwise urljoin drops the base's last segment: known only at run time.
                    let mut head = Template::default();
                    self.template_inner(base, at, depth + 1, &mut head);
                    let slash = matches!(head.pieces.last(), Some(Piece::Text { raw, .. })
                        if self.src.get(raw.clone()).is_some_and(|s| s.ends_with('/')));
                    if slash {
                        t.pieces.extend(head.pieces);
                    } else {
                        self.hole(base, t);
                    }
                }
                t.pieces.extend(tail.pieces);
            }
            ("urlencode", _) => match positional.next() {
                Some(d) => {
                    let open = Some(c.arguments.range.start().to_usize());
                    let lit = self.lit(d, at, open, depth + 1);
                    if lit.pairs().is_some() {
                        t.pieces.push(Piece::Encoded(lit));
                    } else {
                        self.hole(e, t);
                    }
                }
                None => self.hole(e, t),
            },
            ("str", None) => match positional.next() {
                Some(a) if self.foldable(a) => self.template_inner(a, at, depth + 1, t),
                _ => self.hole(e, t),
            },
            _ => self.hole(e, t),
        }
    }

    /// The prefix of the string literal at `r` (`rb`, `f`, ...).
    fn prefix(&self, r: TextRange) -> &str {
        let t = self.text(r);
        &t[..t.find(['"', '\'']).unwrap_or(t.len())]
    }

    /// A piece for one string literal part (with its quotes) at `r`.
    fn text_piece(&self, r: TextRange, t: &mut Template) {
        let backslash = !self.prefix(r).contains(['r', 'R']);
        t.pieces.push(Piece::Text {
            raw: self.content(r),
            esc: Esc::plain(backslash),
        });
    }

    /// The text of a template with each hole written as `_`s (as many as its source has
    /// bytes), its map to the embedded text when every decoded character maps to one byte, and
    /// the holes' ranges in that text.
    pub(super) fn render(&self, t: &Template) -> (String, Option<OffsetMap>, Vec<Range<usize>>) {
        let mut b = EscapedText::new();
        let mut holes = Vec::new();
        for p in &t.pieces {
            match p {
                Piece::Text { raw, esc } => decode_piece(self.src, raw.clone(), *esc, &mut b),
                Piece::Hole { raw } | Piece::Encoded(Lit { raw: Some(raw), .. }) => {
                    let at = b.text_len();
                    b.plain(raw.start, &"_".repeat(raw.len()));
                    holes.push(at..at + raw.len());
                }
                Piece::Encoded(_) => b.inexact(),
            }
        }
        let (text, map) = b.finish();
        (text, map, holes)
    }
}

impl Esc {
    fn plain(backslash: bool) -> Esc {
        Esc {
            backslash,
            ..Esc::default()
        }
    }
}

/// A qualified name held as the two parts [`join`] joins (`requests` and `get` for
/// `requests.get`), compared without being built.
#[derive(Clone, Copy)]
pub(super) struct Qualified<'a> {
    module: &'a str,
    member: &'a str,
}

impl<'a> Qualified<'a> {
    /// True when the joined name is `name`.
    pub(super) fn is(&self, name: &str) -> bool {
        match (self.module.is_empty(), self.member.is_empty()) {
            (_, true) => self.module == name,
            (true, false) => self.member == name,
            (false, false) => name
                .strip_prefix(self.module)
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|rest| rest == self.member),
        }
    }

    /// The joined name's last dotted part (`get` of `requests.get`).
    pub(super) fn last(&self) -> &'a str {
        let whole = if self.member.is_empty() {
            self.module
        } else {
            self.member
        };
        // (A few bytes: a loop, not a searcher.)
        match whole.bytes().rposition(|b| b == b'.') {
            Some(dot) => &whole[dot + 1..],
            None => whole,
        }
    }
}

/// `module.member`, or one of them when the other is empty.
fn join(module: &str, member: &str) -> String {
    match (module.is_empty(), member.is_empty()) {
        (_, true) => module.to_string(),
        (true, false) => member.to_string(),
        (false, false) => format!("{module}.{member}"),
    }
}

/// Adds `p` to `pairs` (a pair of the same key is dropped by [`dedup_last`] when the dict is
/// done).
fn upsert(pairs: &mut Vec<Pair>, p: Pair) {
    pairs.push(p);
}

/// Keeps the last pair of each key (a dict holds one value per key; the later assignment
/// wins), in linear time whatever the dict's size.
fn dedup_last(pairs: &mut Vec<Pair>) {
    if pairs.len() < 2 {
        return;
    }
    // Most dicts have a few keys, all different: compared in place, no set of copies.
    let dropped = |i: usize| pairs[i + 1..].iter().any(|q| q.key == pairs[i].key);
    if pairs.len() <= 16 && !(0..pairs.len()).any(dropped) {
        return;
    }
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut keep: Vec<bool> = vec![false; pairs.len()];
    for (i, p) in pairs.iter().enumerate().rev() {
        keep[i] = seen.insert(p.key.as_str());
    }
    if keep.iter().all(|k| *k) {
        return;
    }
    let mut i = 0;
    pairs.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

impl<'a> Values<'a> {
    /// Puts the pairs of the dict `e` holds (a `**` splat, an update's argument) in `pairs`.
    fn splice(&self, pairs: &mut Vec<Pair>, e: &'a Expr, at: At, depth: usize) {
        if let Some((more, _)) = self.dict(e, at, depth) {
            more.into_iter().for_each(|p| upsert(pairs, p));
        }
    }
}

/// The dict of `X.items()`.
fn items_of<'a>(v: &Values<'a>, iter: &'a Expr) -> Option<&'a Expr> {
    let Expr::Call(c) = iter else {
        return None;
    };
    let Expr::Attribute(a) = &*c.func else {
        return None;
    };
    (v.text(a.attr.range) == "items" && c.arguments.args.is_empty()).then_some(&*a.value)
}

/// Decodes the source text `raw` of a piece into `b`: backslash escapes, doubled braces,
/// `%%`, `$$` as `esc` says, each decoded character mapped to one source byte.
fn decode_piece(src: &str, raw: Range<usize>, esc: Esc, b: &mut EscapedText) {
    let Some(text) = src.get(raw.clone()) else {
        b.inexact();
        return;
    };
    let escapes = if esc.backslash && text.contains('\\') {
        escape_sequences(text, raw.start)
    } else {
        Vec::new()
    };
    let bytes = text.as_bytes();
    let mut pos = raw.start;
    let mut next_escape = 0;
    while pos < raw.end {
        if let Some(e) = escapes.get(next_escape).filter(|e| e.start == pos) {
            next_escape += 1;
            let written = &src[e.clone()];
            let decoded = decode_escapes(written);
            let mut chars = decoded.chars();
            match (chars.next(), chars.next()) {
                (None, _) => {}
                (Some(c), None) => b.escape(e.end, Some(c)),
                _ if decoded == written => b.plain(e.start, written),
                _ => b.inexact(),
            }
            pos = e.end;
            continue;
        }
        let c = bytes[pos - raw.start];
        let doubled = (esc.braces && (c == b'{' || c == b'}'))
            || (esc.percent && c == b'%')
            || (esc.dollar && c == b'$');
        if doubled && bytes.get(pos + 1 - raw.start) == Some(&c) {
            b.escape(pos + 2, Some(c as char));
            pos += 2;
            continue;
        }
        // Plain text up to the next special byte.
        let end = escapes
            .get(next_escape)
            .map_or(raw.end, |e| e.start)
            .min(raw.end);
        let mut stop = pos + 1;
        while stop < end {
            let d = bytes[stop - raw.start];
            if (esc.braces && (d == b'{' || d == b'}'))
                || (esc.percent && d == b'%')
                || (esc.dollar && d == b'$')
            {
                break;
            }
            stop += 1;
        }
        // Keep whole characters.
        while stop < end && !text.is_char_boundary(stop - raw.start) {
            stop += 1;
        }
        b.plain(pos, &src[pos..stop]);
        pos = stop;
    }
}

/// Splits the text pieces of `t` from `start` on `{field}`s of a `.format` template: each field
/// becomes the text of a literal argument it names (a string or number literal, or a name
/// bound to one), else a hole; `{{`/`}}` stand for one brace.
fn split_braces<'a>(
    v: &Values<'a>,
    t: &mut Template,
    start: usize,
    args: &'a ast::Arguments,
    at: At,
    depth: usize,
) {
    let mut auto = 0usize;
    let pieces: Vec<Piece> = t.pieces.drain(start..).collect();
    for p in pieces {
        let Piece::Text { raw, mut esc } = p else {
            t.pieces.push(p);
            continue;
        };
        esc.braces = true;
        let text = v.src.get(raw.clone()).unwrap_or("").as_bytes();
        let mut i = 0;
        let mut from = 0;
        while i < text.len() {
            match text[i] {
                b'{' | b'}' if text.get(i + 1) == Some(&text[i]) => i += 2,
                b'{' => {
                    let Some(close) = text[i..].iter().position(|&c| c == b'}') else {
                        break;
                    };
                    if from < i {
                        t.pieces.push(Piece::Text {
                            raw: raw.start + from..raw.start + i,
                            esc,
                        });
                    }
                    let field = std::str::from_utf8(&text[i + 1..i + close]).unwrap_or("!");
                    let hole = raw.start + i..raw.start + i + close + 1;
                    let name = field.split([':', '!', '.', '[']).next().unwrap_or("");
                    let plain = name.len() == field.len();
                    let arg = if !plain {
                        None
                    } else if name.is_empty() {
                        auto += 1;
                        args.args.get(auto - 1)
                    } else if let Ok(n) = name.parse::<usize>() {
                        args.args.get(n)
                    } else {
                        args.keywords
                            .iter()
                            .find(|k| k.arg.as_ref().is_some_and(|a| v.text(a.range) == name))
                            .map(|k| &k.value)
                    };
                    substitute(v, t, arg, hole, at, depth);
                    i += close + 1;
                    from = i;
                }
                _ => i += 1,
            }
        }
        if from < text.len() {
            t.pieces.push(Piece::Text {
                raw: raw.start + from..raw.end,
                esc,
            });
        }
    }
}

/// The text of a substituted argument `arg` (a literal string or number, or a name bound to
/// one), else a hole standing at `hole` (embedded range of the field).
fn substitute<'a>(
    v: &Values<'a>,
    t: &mut Template,
    arg: Option<&'a Expr>,
    hole: Range<usize>,
    at: At,
    depth: usize,
) {
    match arg {
        Some(a @ (Expr::StringLiteral(_) | Expr::FString(_) | Expr::Name(_) | Expr::BinOp(_))) => {
            let mut sub = Template::default();
            v.template_inner(a, at, depth + 1, &mut sub);
            if sub.pieces.iter().all(|p| matches!(p, Piece::Text { .. })) {
                t.pieces.extend(sub.pieces);
            } else {
                t.pieces.push(Piece::Hole { raw: hole });
            }
        }
        Some(Expr::NumberLiteral(n)) => t.pieces.push(Piece::Text {
            raw: span(n.range),
            esc: Esc::default(),
        }),
        _ => t.pieces.push(Piece::Hole { raw: hole }),
    }
}

/// Splits the text pieces of `t` from `start` on the conversions of a `%` template with the
/// operand `right` (one value, a tuple, or a dict for `%(name)s`); `%%` stands for `%`.
fn split_percent<'a>(
    v: &Values<'a>,
    t: &mut Template,
    start: usize,
    right: &'a Expr,
    at: At,
    depth: usize,
) {
    let values: Vec<&'a Expr> = match right {
        Expr::Tuple(tu) => tu.elts.iter().collect(),
        Expr::Dict(_) => Vec::new(),
        e => vec![e],
    };
    let named = |name: &str| -> Option<&'a Expr> {
        let Expr::Dict(d) = right else {
            return None;
        };
        d.items.iter().find_map(|item| match &item.key {
            Some(k)
                if v.literal(k, None, 0)
                    .as_str()
                    .is_some_and(|(s, _)| s == name) =>
            {
                Some(&item.value)
            }
            _ => None,
        })
    };
    let mut next = 0usize;
    let pieces: Vec<Piece> = t.pieces.drain(start..).collect();
    for p in pieces {
        let Piece::Text { raw, mut esc } = p else {
            t.pieces.push(p);
            continue;
        };
        esc.percent = true;
        let text = v.src.get(raw.clone()).unwrap_or("").as_bytes();
        let mut i = 0;
        let mut from = 0;
        while i < text.len() {
            if text[i] != b'%' {
                i += 1;
                continue;
            }
            if text.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            // `%[(name)][flags][width][.precision]type`
            let mut j = i + 1;
            let mut name = None;
            if text.get(j) == Some(&b'(') {
                let Some(close) = text[j..].iter().position(|&c| c == b')') else {
                    break;
                };
                name = std::str::from_utf8(&text[j + 1..j + close]).ok();
                j += close + 1;
            }
            while j < text.len() && b"#0- +*.0123456789".contains(&text[j]) {
                j += 1;
            }
            if j >= text.len() {
                break;
            }
            let conv = text[j];
            if from < i {
                t.pieces.push(Piece::Text {
                    raw: raw.start + from..raw.start + i,
                    esc,
                });
            }
            let hole = raw.start + i..raw.start + j + 1;
            let arg = match name {
                Some(n) => named(n),
                None => {
                    next += 1;
                    values.get(next - 1).copied()
                }
            };
            let arg = arg.filter(|_| matches!(conv, b's' | b'd' | b'i'));
            substitute(v, t, arg, hole, at, depth);
            i = j + 1;
            from = i;
        }
        if from < text.len() {
            t.pieces.push(Piece::Text {
                raw: raw.start + from..raw.end,
                esc,
            });
        }
    }
}

/// Splits the text pieces of `t` from `start` on the `$name` / `${name}` holes of a
/// `string.Template` (substituted from the keyword arguments `args` when literal); `$$`
/// stands for `$`.
fn split_dollars<'a>(
    v: &Values<'a>,
    t: &mut Template,
    start: usize,
    args: Option<&'a ast::Arguments>,
    at: At,
    depth: usize,
) {
    let pieces: Vec<Piece> = t.pieces.drain(start..).collect();
    for p in pieces {
        let Piece::Text { raw, mut esc } = p else {
            t.pieces.push(p);
            continue;
        };
        esc.dollar = true;
        let text = v.src.get(raw.clone()).unwrap_or("").as_bytes();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut i = 0;
        let mut from = 0;
        while i < text.len() {
            if text[i] != b'$' {
                i += 1;
                continue;
            }
            if text.get(i + 1) == Some(&b'$') {
                i += 2;
                continue;
            }
            let (name_range, end) = if text.get(i + 1) == Some(&b'{') {
                let Some(close) = text[i..].iter().position(|&c| c == b'}') else {
                    i += 1;
                    continue;
                };
                (i + 2..i + close, i + close + 1)
            } else {
                let mut j = i + 1;
                while j < text.len() && ident(text[j]) {
                    j += 1;
                }
                if j == i + 1 {
                    i += 1;
                    continue;
                }
                (i + 1..j, j)
            };
            if from < i {
                t.pieces.push(Piece::Text {
                    raw: raw.start + from..raw.start + i,
                    esc,
                });
            }
            let name = std::str::from_utf8(&text[name_range]).unwrap_or("");
            let arg = args.and_then(|a| {
                a.keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|id| v.text(id.range) == name))
                    .map(|k| &k.value)
            });
            substitute(v, t, arg, raw.start + i..raw.start + end, at, depth);
            i = end;
            from = end;
        }
        if from < text.len() {
            t.pieces.push(Piece::Text {
                raw: raw.start + from..raw.end,
                esc,
            });
        }
    }
}

/// `.strip(chars)` on the pieces of `t` from `start`: trims the first and last text pieces
/// when the template is all text (with holes the ends are not known: left as they are).
fn strip_pieces(
    v: &Values<'_>,
    t: &mut Template,
    start: usize,
    chars: &str,
    left: bool,
    right: bool,
) {
    if !t.pieces[start..]
        .iter()
        .all(|p| matches!(p, Piece::Text { .. }))
    {
        return;
    }
    let trim = |c: char| chars.contains(c);
    if left {
        if let Some(Piece::Text { raw, .. }) = t.pieces.get_mut(start) {
            let s = v.src.get(raw.clone()).unwrap_or("");
            raw.start += s.len() - s.trim_start_matches(trim).len();
        }
    }
    if right {
        if let Some(Piece::Text { raw, .. }) = t.pieces.last_mut() {
            let s = v.src.get(raw.clone()).unwrap_or("");
            raw.end -= s.len() - s.trim_end_matches(trim).len();
        }
    }
}
