//! One semantic model per Python module, built by the one walk that also finds the calls:
//! scopes (module, functions, classes, lambdas, comprehensions) over an arena of bindings, each
//! with how the name was bound (a value, a loop target, a parameter, an import with its
//! qualified name, a function or class, an update of the dict it holds), and the blocks
//! (`if`/`for`/`while`/`try`/`match` bodies) that say whether a binding always ran before a use.
//! Modelled on ruff's `ruff_python_semantic` (scopes, bindings, "the only binding of a name",
//! qualified names of imports), written over the pinned `ruff_python_ast` 0.0.10: the model
//! never evaluates anything, it answers "which binding does this name read here" for
//! [`super::values`], which reads the values.
//!
//! What it records beside the bindings: every call with where it stands ([`At`]), the string
//! expressions that may hold a GraphQL document, the `{"query": ...}` dicts, and the dicts and
//! strings a `# netbox: ...` marker comment points at.

use std::collections::HashMap;

use ruff_python_ast::visitor::source_order::{self, SourceOrderVisitor};
use ruff_python_ast::{self as ast, Expr, InterpolatedStringElement, Operator, Stmt};
use ruff_text_size::Ranged;

use super::span;

/// Index of a scope in [`Semantic::scopes`]; the module is 0.
pub(super) type ScopeId = u32;
/// Index of a block in [`Semantic::blocks`].
pub(super) type BlockId = u32;

/// Where an expression stands: its scope, its innermost block and its offset (embedded bytes),
/// and, while a helper's body is read for one call of it, the parameters bound by that call
/// (an index into the environments of [`super::values::Values`]; 0 is none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct At {
    pub scope: ScopeId,
    pub block: BlockId,
    pub offset: u32,
    pub env: u32,
}

/// What kind of scope.
#[derive(Debug, Clone, Copy)]
pub(super) enum ScopeKind<'a> {
    Module,
    Function(&'a ast::StmtFunctionDef),
    Class,
    Lambda,
    Comprehension,
}

/// A scope: its kind, the enclosing scope, and the bindings of each name in source order.
pub(super) struct Scope<'a> {
    pub kind: ScopeKind<'a>,
    pub parent: Option<ScopeId>,
    /// The scope's first block.
    pub root: BlockId,
    /// The block of the enclosing scope the scope stands in, and where it starts (a function's
    /// `def`: its defaults are read there).
    pub outer: BlockId,
    pub start: u32,
    names: HashMap<&'a str, Vec<u32>>,
    /// Names declared `global` here: their bindings go to the module scope.
    globals: Vec<&'a str>,
    /// The calls made in this scope's own code: `calls[first..end]` holds them (and calls of
    /// scopes nested in it, told apart by their scope).
    pub calls: (u32, u32),
}

/// A block of statements: a branch (`if`/`elif`/`else`, `try`/`except`/`else`, `match` case)
/// or a loop body (`for`, `while`) that may run or not, or a scope's first block. `with` and
/// `finally` bodies always run and stay in the block around them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Block {
    pub parent: Option<BlockId>,
    pub is_loop: bool,
    pub start: u32,
    pub end: u32,
}

/// How a name was bound.
#[derive(Debug, Clone, Copy)]
pub(super) enum BindingKind<'a> {
    /// `x = <value>` (each target of `a = b = <value>`), `x: T = <value>`, `(x := <value>)`.
    Value {
        value: &'a Expr,
        annotation: Option<&'a Expr>,
    },
    /// `for <target> in <iter>` or a comprehension's target; `name` is the whole target or an
    /// element of a tuple target (`for k, v in m.items()`: `k` is element 0).
    Loop {
        iter: &'a Expr,
        element: Option<u32>,
    },
    /// A parameter of a function or lambda.
    Param {
        param: &'a ast::Parameter,
        default: Option<&'a Expr>,
        star: Star,
    },
    /// `import a.b as x` (`a.b`), `from a import b as x` (`a.b`), `import a.b` (`a`).
    Import {
        qualified: &'a str,
        member: &'a str,
    },
    Function {
        def: &'a ast::StmtFunctionDef,
        scope: ScopeId,
    },
    Class(&'a ast::StmtClassDef),
    /// An update of the dict the name holds; not a new binding.
    Update(Update<'a>),
    /// Anything else: augmented assignment, unpacking, `with ... as`, `except ... as`, `del`,
    /// a `global` write from a function, a `match` capture.
    Other,
}

/// Which kind of parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Star {
    None,
    Args,
    Kwargs,
}

/// An update of the dict a name holds.
#[derive(Debug, Clone, Copy)]
pub(super) enum Update<'a> {
    /// `d[key] = value`.
    Set { key: &'a Expr, value: &'a Expr },
    /// `d.setdefault(key, value)`.
    SetDefault { key: &'a Expr, value: &'a Expr },
    /// `d.update(<dict>)`, `d |= <dict>`.
    Merge(&'a Expr),
    /// `d.update(k=v, **x)`.
    Keywords(&'a ast::Arguments),
    /// `del d[key]`, `d.pop(key, ...)`.
    Remove(&'a Expr),
}

/// One binding: its kind, where it was made, and the offset from which it holds.
#[derive(Debug, Clone, Copy)]
pub(super) struct Binding<'a> {
    pub kind: BindingKind<'a>,
    pub scope: ScopeId,
    pub block: BlockId,
    /// Embedded offset from which the binding holds (the end of its statement).
    pub at: u32,
    /// Embedded offset where its statement starts.
    pub start: u32,
}

/// A call and where it stands.
#[derive(Debug, Clone, Copy)]
pub(super) struct CallSite<'a> {
    pub call: &'a ast::ExprCall,
    pub at: At,
}

/// How the text of a string template marks its holes beside `{expr}` of f-strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holes {
    /// A plain string or f-string.
    Plain,
    /// The text of `string.Template(...)`: `$name`, `${name}`, `$$`.
    Dollar,
}

/// A string expression that may hold a GraphQL document (a literal, f-string, concatenation,
/// `%` or `.format` template, the text of `string.Template`), or a `{"query": ...}` dict.
#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate<'a> {
    pub expr: &'a Expr,
    pub at: At,
    pub holes: Holes,
    /// A `{"query": ...}` dict rather than a string.
    pub payload: bool,
}

/// What a `# netbox: <what>` marker comment says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Marker {
    /// `# netbox: graphql`: the string is a NetBox GraphQL document.
    Graphql,
    /// `# netbox: dcim/devices`: the dict's keys (or the string's `k=v` pairs) are filters of
    /// this endpoint; the range is the endpoint's text in the comment (embedded).
    Endpoint(String, std::ops::Range<usize>),
}

/// A dict or string a marker comment points at.
#[derive(Debug, Clone)]
pub(super) struct Marked<'a> {
    pub expr: &'a Expr,
    pub at: At,
    pub marker: Marker,
}

/// The model of one module.
pub(super) struct Semantic<'a> {
    pub scopes: Vec<Scope<'a>>,
    pub blocks: Vec<Block>,
    pub bindings: Vec<Binding<'a>>,
    /// Every call, in source order.
    pub calls: Vec<CallSite<'a>>,
    pub candidates: Vec<Candidate<'a>>,
    pub marked: Vec<Marked<'a>>,
    /// The scope of each comprehension and lambda, by the start of its expression.
    nested: HashMap<u32, ScopeId>,
}

impl<'a> Semantic<'a> {
    /// Builds the model of `module` (source `src`) in one walk.
    pub fn build(src: &'a str, module: &'a ast::ModModule) -> Semantic<'a> {
        let end = src.len() as u32;
        let mut w = Walk {
            src,
            m: Semantic {
                scopes: vec![Scope {
                    kind: ScopeKind::Module,
                    parent: None,
                    root: 0,
                    outer: 0,
                    start: 0,
                    names: HashMap::new(),
                    globals: Vec::new(),
                    calls: (0, 0),
                }],
                blocks: vec![Block {
                    parent: None,
                    is_loop: false,
                    start: 0,
                    end,
                }],
                bindings: Vec::new(),
                // Room for a call every 64 bytes (a file of calls has one a line, ~85 bytes):
                // the list of a file of calls is not copied as it grows, and stays a small
                // share of the text's size (24 bytes a call).
                calls: Vec::with_capacity(src.len() / 64),
                candidates: Vec::new(),
                marked: Vec::new(),
                nested: HashMap::new(),
            },
            scope: 0,
            block: 0,
            in_template: 0,
            markers: markers(src),
        };
        w.visit_body(&module.body);
        w.m.scopes[0].calls = (0, w.m.calls.len() as u32);
        w.m
    }

    /// The bindings of `name` in `scope`, in source order.
    pub fn bindings_of(&self, scope: ScopeId, name: &str) -> &[u32] {
        self.scopes[scope as usize]
            .names
            .get(name)
            .map_or(&[], Vec::as_slice)
    }

    /// True when `name` is declared `global` in `scope`.
    pub fn is_global(&self, scope: ScopeId, name: &str) -> bool {
        self.scopes[scope as usize].globals.contains(&name)
    }

    /// True when block `outer` is `inner` or holds it.
    pub fn encloses(&self, outer: BlockId, inner: BlockId) -> bool {
        let mut b = Some(inner);
        while let Some(id) = b {
            if id == outer {
                return true;
            }
            b = self.blocks[id as usize].parent;
        }
        false
    }

    /// The loops around block `b` (innermost first), up to its scope's first block.
    pub fn loops_around(&self, b: BlockId) -> impl Iterator<Item = &Block> {
        let mut cur = Some(b);
        std::iter::from_fn(move || {
            while let Some(id) = cur {
                let block = &self.blocks[id as usize];
                cur = block.parent;
                if block.is_loop {
                    return Some(block);
                }
            }
            None
        })
    }

    /// The scope of the comprehension or lambda that starts at embedded offset `start`.
    pub fn nested_scope(&self, start: u32) -> Option<ScopeId> {
        self.nested.get(&start).copied()
    }
}

/// The walk that builds the model.
struct Walk<'a> {
    src: &'a str,
    m: Semantic<'a>,
    scope: ScopeId,
    block: BlockId,
    /// Inside a string template already recorded (its parts are not candidates of their own).
    in_template: u32,
    /// Marker comments: the embedded offset of the line they apply to, and what they say.
    markers: Vec<(u32, Marker)>,
}

impl<'a> Walk<'a> {
    fn text(&self, r: ruff_text_size::TextRange) -> &'a str {
        self.src.get(span(r)).unwrap_or("")
    }

    fn at(&self, offset: u32) -> At {
        At {
            scope: self.scope,
            block: self.block,
            offset,
            env: 0,
        }
    }

    /// Records a binding of `name` in the current scope (the module's for a `global` name).
    fn bind(&mut self, name: &'a str, kind: BindingKind<'a>, start: u32, at: u32) {
        if name.is_empty() {
            return;
        }
        let (scope, block, kind) = if self.scope != 0 && self.m.is_global(self.scope, name) {
            // A write to a module name from a function: the module's value changes at run time.
            (0, 0, BindingKind::Other)
        } else {
            (self.scope, self.block, kind)
        };
        let id = self.m.bindings.len() as u32;
        self.m.bindings.push(Binding {
            kind,
            scope,
            block,
            at,
            start,
        });
        self.m.scopes[scope as usize]
            .names
            .entry(name)
            .or_default()
            .push(id);
    }

    /// Binds the names of an assignment target: a name gets `kind`, a subscript of a name is
    /// an update of its dict, anything else (unpacking, attributes) binds its names as
    /// [`BindingKind::Other`].
    fn bind_target(&mut self, target: &'a Expr, kind: BindingKind<'a>, start: u32, at: u32) {
        match target {
            Expr::Name(n) => self.bind(self.text(n.range), kind, start, at),
            Expr::Subscript(s) => {
                if let (Expr::Name(n), BindingKind::Value { value, .. }) = (&*s.value, kind) {
                    let name = self.text(n.range);
                    let update = Update::Set {
                        key: &s.slice,
                        value,
                    };
                    self.bind(name, BindingKind::Update(update), start, at);
                }
            }
            Expr::Tuple(t) => {
                for e in &t.elts {
                    self.bind_target(e, BindingKind::Other, start, at);
                }
            }
            Expr::List(l) => {
                for e in &l.elts {
                    self.bind_target(e, BindingKind::Other, start, at);
                }
            }
            Expr::Starred(s) => self.bind_target(&s.value, BindingKind::Other, start, at),
            _ => {}
        }
    }

    /// Binds a loop target: a name is an item of `iter`, each name of a tuple an element.
    fn bind_loop(&mut self, target: &'a Expr, iter: &'a Expr, start: u32, at: u32) {
        match target {
            Expr::Name(n) => {
                let kind = BindingKind::Loop {
                    iter,
                    element: None,
                };
                self.bind(self.text(n.range), kind, start, at);
            }
            Expr::Tuple(t) => {
                for (i, e) in t.elts.iter().enumerate() {
                    match e {
                        Expr::Name(n) => {
                            let kind = BindingKind::Loop {
                                iter,
                                element: Some(i as u32),
                            };
                            self.bind(self.text(n.range), kind, start, at);
                        }
                        e => self.bind_target(e, BindingKind::Other, start, at),
                    }
                }
            }
            e => self.bind_target(e, BindingKind::Other, start, at),
        }
    }

    /// Opens a scope for code from `start` to `end` (its first block from `body`), standing in
    /// the current block at `at`.
    fn push_scope(
        &mut self,
        kind: ScopeKind<'a>,
        at: u32,
        start: u32,
        end: u32,
    ) -> (ScopeId, BlockId) {
        let block = self.m.blocks.len() as u32;
        self.m.blocks.push(Block {
            parent: None,
            is_loop: false,
            start,
            end,
        });
        let id = self.m.scopes.len() as u32;
        let first = self.m.calls.len() as u32;
        self.m.scopes.push(Scope {
            kind,
            parent: Some(self.scope),
            root: block,
            outer: self.block,
            start: at,
            names: HashMap::new(),
            globals: Vec::new(),
            calls: (first, first),
        });
        let saved = (self.scope, self.block);
        self.scope = id;
        self.block = block;
        saved
    }

    fn pop_scope(&mut self, saved: (ScopeId, BlockId)) {
        let end = self.m.calls.len() as u32;
        self.m.scopes[self.scope as usize].calls.1 = end;
        (self.scope, self.block) = saved;
    }

    /// Walks `body` as a block of its own (`is_loop`: a loop body).
    fn branch(&mut self, body: &'a [Stmt], is_loop: bool) {
        let (Some(first), Some(last)) = (body.first(), body.last()) else {
            return;
        };
        let id = self.m.blocks.len() as u32;
        self.m.blocks.push(Block {
            parent: Some(self.block),
            is_loop,
            start: first.range().start().to_u32(),
            end: last.range().end().to_u32(),
        });
        let saved = self.block;
        self.block = id;
        self.visit_body(body);
        self.block = saved;
    }

    /// Binds the parameters of a function or lambda in the current (new) scope.
    fn bind_params(&mut self, params: &'a ast::Parameters, at: u32) {
        for p in params.iter_non_variadic_params() {
            let kind = BindingKind::Param {
                param: &p.parameter,
                default: p.default.as_deref(),
                star: Star::None,
            };
            self.bind(self.text(p.parameter.name.range), kind, at, at);
        }
        for (p, star) in [(&params.vararg, Star::Args), (&params.kwarg, Star::Kwargs)] {
            if let Some(p) = p {
                let kind = BindingKind::Param {
                    param: p,
                    default: None,
                    star,
                };
                self.bind(self.text(p.name.range), kind, at, at);
            }
        }
    }

    /// Visits the defaults and annotations of `params` (evaluated in the enclosing scope).
    fn visit_param_parts(&mut self, params: &'a ast::Parameters) {
        for p in params.iter_non_variadic_params() {
            if let Some(d) = &p.default {
                self.visit_expr(d);
            }
            if let Some(a) = &p.parameter.annotation {
                self.visit_annotation(a);
            }
        }
        for p in [&params.vararg, &params.kwarg].into_iter().flatten() {
            if let Some(a) = &p.annotation {
                self.visit_annotation(a);
            }
        }
    }

    /// Records `e` as a GraphQL candidate when its text may start a document.
    fn candidate(&mut self, e: &'a Expr, holes: Holes) {
        if self.in_template == 0 && may_start_document(self.src, e) {
            let at = self.at(e.range().start().to_u32());
            self.m.candidates.push(Candidate {
                expr: e,
                at,
                holes,
                payload: false,
            });
        }
    }

    /// Records `e` (a dict or string) when a marker comment points at the line it starts on.
    #[inline(always)]
    fn marked(&mut self, e: &'a Expr) {
        // Asked for every string and dict of a module; most modules have no marker comment.
        if !self.markers.is_empty() {
            self.marked_at(e);
        }
    }

    /// [`Walk::marked`] once a marker comment is known to wait.
    #[inline(never)]
    fn marked_at(&mut self, e: &'a Expr) {
        let start = e.range().start().to_u32();
        let line = line_start(self.src, start as usize) as u32;
        if let Some(i) = self.markers.iter().position(|(l, _)| *l == line) {
            let (_, marker) = self.markers.swap_remove(i);
            let at = self.at(start);
            self.m.marked.push(Marked {
                expr: e,
                at,
                marker,
            });
        }
    }
}

impl<'a> SourceOrderVisitor<'a> for Walk<'a> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        let (start, end) = (s.range().start().to_u32(), s.range().end().to_u32());
        match s {
            Stmt::FunctionDef(f) => {
                for d in &f.decorator_list {
                    self.visit_decorator(d);
                }
                self.visit_param_parts(&f.parameters);
                if let Some(r) = &f.returns {
                    self.visit_annotation(r);
                }
                let name = self.text(f.name.range);
                let scope = self.m.scopes.len() as u32;
                self.bind(name, BindingKind::Function { def: f, scope }, start, end);
                let body_start = f.body.first().map_or(end, |b| b.range().start().to_u32());
                let saved = self.push_scope(ScopeKind::Function(f), start, body_start, end);
                self.bind_params(&f.parameters, body_start);
                self.visit_body(&f.body);
                self.pop_scope(saved);
            }
            Stmt::ClassDef(c) => {
                for d in &c.decorator_list {
                    self.visit_decorator(d);
                }
                if let Some(args) = &c.arguments {
                    self.visit_arguments(args);
                }
                let saved = self.push_scope(ScopeKind::Class, start, start, end);
                self.visit_body(&c.body);
                self.pop_scope(saved);
                self.bind(self.text(c.name.range), BindingKind::Class(c), start, end);
            }
            Stmt::If(i) => {
                self.visit_expr(&i.test);
                self.branch(&i.body, false);
                for clause in &i.elif_else_clauses {
                    if let Some(t) = &clause.test {
                        self.visit_expr(t);
                    }
                    self.branch(&clause.body, false);
                }
            }
            Stmt::For(f) => {
                self.visit_expr(&f.iter);
                let at = f.iter.range().end().to_u32();
                let (Some(first), Some(last)) = (f.body.first(), f.body.last()) else {
                    return;
                };
                let id = self.m.blocks.len() as u32;
                self.m.blocks.push(Block {
                    parent: Some(self.block),
                    is_loop: true,
                    start: first.range().start().to_u32().min(at),
                    end: last.range().end().to_u32(),
                });
                let saved = self.block;
                self.block = id;
                self.bind_loop(&f.target, &f.iter, start, at);
                self.visit_body(&f.body);
                self.block = saved;
                self.branch(&f.orelse, false);
            }
            Stmt::While(w) => {
                self.visit_expr(&w.test);
                self.branch(&w.body, true);
                self.branch(&w.orelse, false);
            }
            Stmt::Try(t) => {
                self.branch(&t.body, false);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(ty) = &h.type_ {
                        self.visit_expr(ty);
                    }
                    let (Some(first), Some(last)) = (h.body.first(), h.body.last()) else {
                        continue;
                    };
                    let id = self.m.blocks.len() as u32;
                    self.m.blocks.push(Block {
                        parent: Some(self.block),
                        is_loop: false,
                        start: first.range().start().to_u32(),
                        end: last.range().end().to_u32(),
                    });
                    let saved = self.block;
                    self.block = id;
                    if let Some(n) = &h.name {
                        self.bind(self.text(n.range), BindingKind::Other, start, start);
                    }
                    self.visit_body(&h.body);
                    self.block = saved;
                }
                self.branch(&t.orelse, false);
                self.visit_body(&t.finalbody);
            }
            Stmt::With(w) => {
                for item in &w.items {
                    self.visit_expr(&item.context_expr);
                    if let Some(v) = &item.optional_vars {
                        self.bind_target(v, BindingKind::Other, start, start);
                    }
                }
                self.visit_body(&w.body);
            }
            Stmt::Match(m) => {
                self.visit_expr(&m.subject);
                for case in &m.cases {
                    let id = self.m.blocks.len() as u32;
                    self.m.blocks.push(Block {
                        parent: Some(self.block),
                        is_loop: false,
                        start: case.range.start().to_u32(),
                        end: case.range.end().to_u32(),
                    });
                    let saved = self.block;
                    self.block = id;
                    self.visit_pattern(&case.pattern);
                    if let Some(g) = &case.guard {
                        self.visit_expr(g);
                    }
                    self.visit_body(&case.body);
                    self.block = saved;
                }
            }
            Stmt::Assign(a) => {
                self.visit_expr(&a.value);
                for t in &a.targets {
                    if !matches!(t, Expr::Name(_)) {
                        self.visit_expr(t);
                    }
                    let kind = BindingKind::Value {
                        value: &a.value,
                        annotation: None,
                    };
                    self.bind_target(t, kind, start, end);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.visit_expr(v);
                }
                self.visit_annotation(&a.annotation);
                if !matches!(&*a.target, Expr::Name(_)) {
                    self.visit_expr(&a.target);
                }
                // `x: T` alone binds nothing at run time (class fields are read by the models).
                if let Some(value) = &a.value {
                    let kind = BindingKind::Value {
                        value,
                        annotation: Some(&a.annotation),
                    };
                    self.bind_target(&a.target, kind, start, end);
                }
            }
            Stmt::AugAssign(a) => {
                self.visit_expr(&a.value);
                if let Expr::Name(n) = &*a.target {
                    let kind = if a.op == Operator::BitOr {
                        BindingKind::Update(Update::Merge(&a.value))
                    } else {
                        BindingKind::Other
                    };
                    self.bind(self.text(n.range), kind, start, end);
                } else {
                    self.visit_expr(&a.target);
                }
            }
            Stmt::Import(i) => {
                for alias in &i.names {
                    let full = self.text(alias.name.range);
                    match &alias.asname {
                        Some(as_name) => {
                            let kind = BindingKind::Import {
                                qualified: full,
                                member: "",
                            };
                            self.bind(self.text(as_name.range), kind, start, end);
                        }
                        None => {
                            // `import a.b.c` binds `a`.
                            let first = full.split('.').next().unwrap_or(full);
                            let kind = BindingKind::Import {
                                qualified: first,
                                member: "",
                            };
                            self.bind(first, kind, start, end);
                        }
                    }
                }
            }
            Stmt::ImportFrom(f) => {
                let module = f.module.as_ref().map_or("", |m| self.text(m.range));
                for alias in &f.names {
                    let member = self.text(alias.name.range);
                    if member == "*" {
                        continue;
                    }
                    let bound = alias.asname.as_ref().map_or(member, |a| self.text(a.range));
                    let kind = BindingKind::Import {
                        qualified: if f.level > 0 { "" } else { module },
                        member,
                    };
                    self.bind(bound, kind, start, end);
                }
            }
            Stmt::Delete(d) => {
                for t in &d.targets {
                    match t {
                        Expr::Subscript(s) => {
                            self.visit_expr(t);
                            if let Expr::Name(n) = &*s.value {
                                let kind = BindingKind::Update(Update::Remove(&s.slice));
                                self.bind(self.text(n.range), kind, start, end);
                            }
                        }
                        t => {
                            self.visit_expr(t);
                            self.bind_target(t, BindingKind::Other, start, end);
                        }
                    }
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    let name = self.text(n.range);
                    self.m.scopes[self.scope as usize].globals.push(name);
                }
            }
            Stmt::Expr(e) => {
                self.visit_expr(&e.value);
                if let Some((name, update)) = method_update(self.src, &e.value) {
                    self.bind(name, BindingKind::Update(update), start, end);
                }
            }
            _ => source_order::walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Call(c) => {
                let at = self.at(c.range().start().to_u32());
                self.m.calls.push(CallSite { call: c, at });
                // `Template("...")` (string.Template): `$name` holes.
                if let (Expr::Name(_) | Expr::Attribute(_), [arg]) = (&*c.func, &*c.arguments.args)
                {
                    let f = match &*c.func {
                        Expr::Name(n) => self.text(n.range),
                        Expr::Attribute(a) => self.text(a.attr.range),
                        _ => "",
                    };
                    if f == "Template" && is_string(arg) {
                        self.candidate(arg, Holes::Dollar);
                        self.in_template += 1;
                        source_order::walk_expr(self, e);
                        self.in_template -= 1;
                        return;
                    }
                }
                // `"...".format(...)` / `NAME.format(...)`.
                if let Expr::Attribute(a) = &*c.func {
                    if self.text(a.attr.range) == "format"
                        && (is_string(&a.value) || matches!(&*a.value, Expr::Name(_)))
                    {
                        self.candidate(e, Holes::Plain);
                        self.in_template += 1;
                        source_order::walk_expr(self, e);
                        self.in_template -= 1;
                        return;
                    }
                }
                // What `walk_expr` visits of a call, without its generic steps (this visitor
                // has no hooks on nodes that are no expressions).
                self.visit_leaf_or_expr(&c.func);
                if c.arguments.keywords.is_empty() {
                    // Positional arguments alone (most calls): their order is the source's.
                    for a in &*c.arguments.args {
                        self.visit_leaf_or_expr(a);
                    }
                } else {
                    for item in c.arguments.iter_source_order() {
                        match item {
                            ast::ArgOrKeyword::Arg(a) => self.visit_leaf_or_expr(a),
                            ast::ArgOrKeyword::Keyword(k) => self.visit_leaf_or_expr(&k.value),
                        }
                    }
                }
            }
            // Leaves: nothing below them to visit.
            Expr::StringLiteral(_)
            | Expr::Name(_)
            | Expr::NumberLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_) => {
                self.leaf(e);
            }
            Expr::FString(_) => {
                self.marked(e);
                self.candidate(e, Holes::Plain);
                self.in_template += 1;
                source_order::walk_expr(self, e);
                self.in_template -= 1;
            }
            Expr::BinOp(b)
                if self.in_template == 0
                    && match b.op {
                        Operator::Add => string_operand(&b.left) || string_operand(&b.right),
                        // `QUERY % args`: a template kept in a constant.
                        Operator::Mod => {
                            string_operand(&b.left) || matches!(&*b.left, Expr::Name(_))
                        }
                        _ => false,
                    } =>
            {
                self.marked(e);
                self.candidate(e, Holes::Plain);
                self.in_template += 1;
                source_order::walk_expr(self, e);
                self.in_template -= 1;
            }
            Expr::Dict(d) => {
                self.marked(e);
                let query = d.items.iter().any(|item| {
                    matches!(&item.key, Some(Expr::StringLiteral(s)) if s.value.to_str() == "query")
                });
                if query && self.in_template == 0 {
                    let at = self.at(d.range.start().to_u32());
                    self.m.candidates.push(Candidate {
                        expr: e,
                        at,
                        holes: Holes::Plain,
                        payload: true,
                    });
                }
                for item in &d.items {
                    if let Some(k) = &item.key {
                        self.visit_leaf_or_expr(k);
                    }
                    self.visit_leaf_or_expr(&item.value);
                }
            }
            // What `walk_expr` visits of a list or tuple (its elements), the leaves among them
            // visited in place.
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                for elt in elts {
                    self.visit_leaf_or_expr(elt);
                }
            }
            Expr::Named(n) => {
                self.visit_expr(&n.value);
                let kind = BindingKind::Value {
                    value: &n.value,
                    annotation: None,
                };
                let (start, end) = (n.range.start().to_u32(), n.range.end().to_u32());
                // A walrus in a comprehension binds in the scope around it.
                let saved = self.scope;
                while matches!(
                    self.m.scopes[self.scope as usize].kind,
                    ScopeKind::Comprehension
                ) {
                    self.scope = self.m.scopes[self.scope as usize].parent.unwrap_or(0);
                }
                self.bind_target(&n.target, kind, start, end);
                self.scope = saved;
            }
            Expr::Lambda(l) => {
                if let Some(p) = &l.parameters {
                    self.visit_param_parts(p);
                }
                let (start, end) = (l.range.start().to_u32(), l.range.end().to_u32());
                let saved = self.push_scope(ScopeKind::Lambda, start, start, end);
                self.m.nested.insert(start, self.scope);
                if let Some(p) = &l.parameters {
                    self.bind_params(p, start);
                }
                self.visit_expr(&l.body);
                self.pop_scope(saved);
            }
            Expr::ListComp(ast::ExprListComp {
                elt, generators, ..
            })
            | Expr::SetComp(ast::ExprSetComp {
                elt, generators, ..
            })
            | Expr::Generator(ast::ExprGenerator {
                elt, generators, ..
            }) => self.comprehension(e, generators, &[elt]),
            Expr::DictComp(d) => match &d.key {
                Some(k) => self.comprehension(e, &d.generators, &[k, &d.value]),
                None => self.comprehension(e, &d.generators, &[&d.value]),
            },
            _ => source_order::walk_expr(self, e),
        }
    }
}

impl<'a> Walk<'a> {
    /// [`SourceOrderVisitor::visit_expr`] of `e`, with the leaves most arguments and dict items
    /// are (a string, a name, a number, `True`, `None`) visited in place: what that visit does
    /// for them, without a call of it each.
    #[inline]
    fn visit_leaf_or_expr(&mut self, e: &'a Expr) {
        if !self.leaf(e) {
            self.visit_expr(e);
        }
    }

    /// What the visit of a leaf (a string, a name, a number, `True`, `None`, `...`) does: a
    /// string is a candidate document. False for any other expression, which is left alone.
    #[inline(always)]
    fn leaf(&mut self, e: &'a Expr) -> bool {
        match e {
            Expr::StringLiteral(s) => {
                self.marked(e);
                if !no_document_start(self.src, s) {
                    self.candidate(e, Holes::Plain);
                }
                true
            }
            Expr::Name(_)
            | Expr::NumberLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_) => true,
            _ => false,
        }
    }

    /// A comprehension: its first iterable in the scope around it, its targets in a scope of
    /// its own, then its conditions and elements.
    fn comprehension(
        &mut self,
        e: &'a Expr,
        generators: &'a [ast::Comprehension],
        elts: &[&'a Expr],
    ) {
        let Some(first) = generators.first() else {
            return;
        };
        self.visit_expr(&first.iter);
        let (start, end) = (e.range().start().to_u32(), e.range().end().to_u32());
        let saved = self.push_scope(ScopeKind::Comprehension, start, start, end);
        self.m.nested.insert(start, self.scope);
        for (i, g) in generators.iter().enumerate() {
            if i > 0 {
                self.visit_expr(&g.iter);
            }
            self.bind_loop(&g.target, &g.iter, start, start);
            for cond in &g.ifs {
                self.visit_expr(cond);
            }
        }
        for elt in elts {
            self.visit_expr(elt);
        }
        self.pop_scope(saved);
    }
}

/// `d.update(...)`, `d.setdefault(k, v)`, `d.pop(k, ...)` as an update of the dict `d` holds.
fn method_update<'a>(src: &'a str, e: &'a Expr) -> Option<(&'a str, Update<'a>)> {
    let Expr::Call(c) = e else {
        return None;
    };
    let Expr::Attribute(a) = &*c.func else {
        return None;
    };
    let Expr::Name(n) = &*a.value else {
        return None;
    };
    let name = src.get(span(n.range))?;
    let args = &c.arguments;
    let update = match (src.get(span(a.attr.range))?, &*args.args) {
        ("update", [one]) if args.keywords.is_empty() => Update::Merge(one),
        ("update", []) => Update::Keywords(args),
        ("setdefault", [key, value]) => Update::SetDefault { key, value },
        ("pop", [key, ..]) => Update::Remove(key),
        _ => return None,
    };
    Some((name, update))
}

/// True for a string literal or f-string.
fn is_string(e: &Expr) -> bool {
    matches!(e, Expr::StringLiteral(_) | Expr::FString(_))
}

/// True when `e` is a string or a concatenation or `%` template that starts with one.
fn string_operand(e: &Expr) -> bool {
    match e {
        Expr::StringLiteral(_) | Expr::FString(_) => true,
        Expr::BinOp(b) if matches!(b.op, Operator::Add | Operator::Mod) => string_operand(&b.left),
        _ => false,
    }
}

/// A cheap look at whether the text of `e` may start a GraphQL document: a string whose first
/// non-blank character could start one (`{`, a keyword, a `#` comment, a `/* GraphQL */` tag,
/// or an interpolated hole), or any template (its first part may be a name).
fn may_start_document(src: &str, e: &Expr) -> bool {
    let first_text = match e {
        Expr::StringLiteral(s) => s.value.iter().next().map(|p| p.range),
        Expr::FString(f) => match f.value.iter().next() {
            Some(ast::FStringPart::Literal(l)) => Some(l.range),
            Some(ast::FStringPart::FString(f)) => match f.elements.first() {
                Some(InterpolatedStringElement::Literal(l)) => {
                    return starts_document(src.get(span(l.range)).unwrap_or(""));
                }
                Some(InterpolatedStringElement::Interpolation(_)) => return true,
                None => None,
            },
            None => None,
        },
        _ => return true,
    };
    let Some(r) = first_text else {
        return false;
    };
    let raw = src.get(span(r)).unwrap_or("");
    // Bytes: the prefix letters and quotes are ASCII, and so is what decides most strings.
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    while i < b.len() && matches!(b[i], b'"' | b'\'') {
        i += 1;
    }
    let mut j = i;
    while j < b.len() && (matches!(b[j], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\\')) {
        j += 1;
    }
    match b.get(j) {
        None => false,
        // An ASCII byte that starts no document (a vertical tab is a blank to `char`).
        Some(&c)
            if c.is_ascii()
                && c != b'\x0b'
                && !matches!(c, b'{' | b'#' | b'/' | b'q' | b'm' | b's' | b'f') =>
        {
            false
        }
        _ => starts_document(&raw[i..]),
    }
}

/// True when the string literal `s` opens with a quote (no prefix) followed by a byte that
/// starts no GraphQL document and is no blank, quote or backslash: what [`may_start_document`]
/// finds false for most strings of code, in a few steps (a string it does not settle is asked
/// there).
fn no_document_start(src: &str, s: &ast::ExprStringLiteral) -> bool {
    let Some(part) = s.value.iter().next() else {
        return false;
    };
    let b = src.as_bytes();
    let i = part.range.start().to_usize();
    match (b.get(i), b.get(i + 1)) {
        (Some(b'"' | b'\''), Some(&c)) => {
            c.is_ascii()
                && !matches!(
                    c,
                    b' ' | b'\t'
                        | b'\n'
                        | b'\r'
                        | b'\x0b'
                        | b'\x0c'
                        | b'\\'
                        | b'"'
                        | b'\''
                        | b'{'
                        | b'#'
                        | b'/'
                        | b'q'
                        | b'm'
                        | b's'
                        | b'f'
                )
        }
        _ => false,
    }
}

/// True when `t` (string content) may start a GraphQL document after blanks.
fn starts_document(t: &str) -> bool {
    let t = t.trim_start_matches(|c: char| c.is_whitespace() || c == '\\');
    let t = t.strip_prefix('n').filter(|_| false).unwrap_or(t);
    match t.as_bytes().first() {
        Some(b'{' | b'#' | b'/') => true,
        Some(b'q' | b'm' | b's' | b'f') => ["query", "mutation", "subscription", "fragment"]
            .iter()
            .any(|k| {
                t.strip_prefix(k).is_some_and(|r| {
                    r.is_empty() || r.starts_with([' ', '\t', '\n', '\r', '{', '(', '\\'])
                })
            }),
        _ => false,
    }
}

/// The start of the line holding byte `at`.
fn line_start(src: &str, at: usize) -> usize {
    src.as_bytes()[..at.min(src.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// The marker comments of `src` (`# netbox: graphql`, `# netbox: dcim/devices`): each with the
/// start of the line it applies to (its own line when code comes before it, else the next
/// line that holds code).
fn markers(src: &str) -> Vec<(u32, Marker)> {
    const MARK: &str = "netbox:";
    // Most modules have none: one SIMD search, its searcher built once.
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(MARK));
    if FINDER.find(src.as_bytes()).is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut pending: Option<Marker> = None;
    let mut at = 0usize;
    for line in src.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim();
        if let Some(p) = pending.take() {
            if trimmed.is_empty() || trimmed.starts_with('#') {
                pending = Some(p);
            } else {
                out.push((start as u32, p));
                continue;
            }
        }
        let Some(hash) = comment_start(line) else {
            continue;
        };
        let comment = &line[hash + 1..];
        let Some(rest) = comment.trim_start().strip_prefix(MARK) else {
            continue;
        };
        let what = rest.trim();
        let what_at = start
            + hash
            + 1
            + (comment.len() - comment.trim_start().len())
            + MARK.len()
            + (rest.len() - rest.trim_start().len());
        let marker = if what.eq_ignore_ascii_case("graphql") {
            Marker::Graphql
        } else {
            let word = what.split_whitespace().next().unwrap_or("");
            let path = word.trim_matches('/');
            let mut parts = path.split('/');
            let shaped = matches!((parts.next(), parts.next()), (Some(a), Some(b)) if !a.is_empty() && !b.is_empty())
                && path
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-/".contains(&b));
            if !shaped {
                continue;
            }
            let lead = word.len() - word.trim_start_matches('/').len();
            Marker::Endpoint(
                path.to_string(),
                what_at + lead..what_at + lead + path.len(),
            )
        };
        if line[..hash].trim().is_empty() {
            pending = Some(marker);
        } else {
            out.push((start as u32, marker));
        }
    }
    out
}

/// The offset of the `#` that opens a comment in `line` (not inside a string).
fn comment_start(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(_), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, b'"' | b'\'') => quote = Some(b[i]),
            (None, b'#') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte look at a string's start answers as the `char` trims it replaced.
    #[test]
    fn document_starts_read_by_bytes_as_by_chars() {
        let by_chars = |raw: &str| {
            let body = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            starts_document(body.trim_start_matches(['"', '\'']))
        };
        let heads = ["", "r", "rb", "f", "u"];
        let quotes = ["\"", "'", "\"\"\"", "'''"];
        let blanks = [
            "", " ", "\t\n", "\\n", "\u{b}", "\u{a0}", "\u{3000}", "\r\n ",
        ];
        let bodies = [
            "",
            "{",
            "query",
            "query{",
            "queryx",
            "mutation (",
            "subscription",
            "fragment F",
            "# c",
            "/* GraphQL */",
            "dcim.site",
            "status",
            "s",
            "q",
            "é",
            "\"",
            "x{",
        ];
        for h in heads {
            for q in quotes {
                for b in blanks {
                    for body in bodies {
                        let src = format!("{h}{q}{b}{body}{q}");
                        let parsed = ruff_python_parser::parse_unchecked_source(
                            &src,
                            ast::PySourceType::Python,
                        );
                        let Some(Stmt::Expr(e)) = parsed.syntax().body.first() else {
                            continue;
                        };
                        let r = match &*e.value {
                            Expr::StringLiteral(s) => s.value.iter().next().map(|p| p.range),
                            Expr::FString(f) => match f.value.iter().next() {
                                Some(ast::FStringPart::Literal(l)) => Some(l.range),
                                _ => None,
                            },
                            _ => None,
                        };
                        let Some(r) = r else { continue };
                        let raw = &src[span(r)];
                        assert_eq!(may_start_document(&src, &e.value), by_chars(raw), "{src:?}");
                    }
                }
            }
        }
    }

    fn model(src: &str) -> (ruff_python_parser::Parsed<ast::ModModule>, String) {
        let parsed = ruff_python_parser::parse_unchecked_source(src, ast::PySourceType::Python);
        (parsed, src.to_string())
    }

    #[test]
    fn scopes_blocks_and_bindings() {
        let src = "import requests as r\nfrom a.b import c as d\nX = {}\nX['k'] = 1\ndef f(p, *a, **kw):\n    if p:\n        y = 1\n    for i in X: pass\n    return [j for j in X]\n";
        let (parsed, text) = model(src);
        let m = Semantic::build(&text, parsed.syntax());
        let kinds: Vec<&str> = ["r", "d", "X", "f"]
            .iter()
            .map(
                |n| match m.bindings[*m.bindings_of(0, n).last().unwrap() as usize].kind {
                    BindingKind::Import { .. } => "import",
                    BindingKind::Value { .. } => "value",
                    BindingKind::Update(_) => "update",
                    BindingKind::Function { .. } => "function",
                    _ => "other",
                },
            )
            .collect();
        assert_eq!(kinds, ["import", "import", "update", "function"]);
        assert_eq!(m.bindings_of(0, "X").len(), 2);
        // f's scope: p, a, kw, y, i; the comprehension has j.
        assert_eq!(m.scopes.len(), 3);
        assert_eq!(m.bindings_of(1, "kw").len(), 1);
        let y = m.bindings[m.bindings_of(1, "y")[0] as usize];
        assert!(!m.encloses(y.block, m.scopes[1].root));
        assert!(m.encloses(m.scopes[1].root, y.block));
        assert_eq!(m.bindings_of(2, "j").len(), 1);
    }

    #[test]
    fn markers_point_at_the_next_code_line_or_their_own() {
        let src = "# netbox: dcim/devices\nP = {'a': 1}\nQ = \"{ x }\"  # netbox: graphql\n# netbox: nothing here\n";
        let m = markers(src);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].0, 23);
        assert!(
            matches!(&m[0].1, Marker::Endpoint(p, r) if p == "dcim/devices" && &src[r.clone()] == "dcim/devices")
        );
        assert_eq!(m[1], (36, Marker::Graphql));
    }

    #[test]
    fn document_starts() {
        for yes in [
            "{ a }",
            "query Q {",
            "  #graphql\n{",
            "/* GraphQL */ {",
            "query",
        ] {
            assert!(starts_document(yes), "{yes}");
        }
        for no in ["site", "queryset", "status", "", "fields"] {
            assert!(!starts_document(no), "{no}");
        }
    }
}
