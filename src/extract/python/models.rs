//! Models as filter sets (issue 30 §2): a pydantic model, a dataclass or a `TypedDict` of the
//! module whose instance is sent as a request's parameters (`params=m.model_dump()`,
//! `asdict(m)`, `vars(m)`, `dict(m)`, a parameter typed as a `TypedDict`), and a function's
//! parameters sent with `locals()`, read as a dict: one key per field (its `alias` or
//! `serialization_alias` when dumped `by_alias=True`), its value the field's `Literal[...]` or
//! `Enum` choices (each checked: the first as the value, the others as alternatives) or its
//! literal default. The keys are declared names of the program: findings land on the field,
//! and a fix renaming one is never certain (the name is used elsewhere in the code).
//!
//! Python knowledge only (pydantic 1 and 2, `dataclasses`, `typing`, `enum`); which names are
//! NetBox filters is for the checks to say.

use std::ops::Range;

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::semantic::{At, BindingKind, ScopeId};
use super::span;
use super::values::{Given, Read, Values};
use crate::extract::lit::{Lit, Pair};
use crate::extract::Value;

/// What kind of model a class is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pydantic,
    Dataclass,
    TypedDict,
    Enum,
}

/// Deepest chain of base classes followed.
const MAX_BASES: usize = 8;

impl<'a> Values<'a> {
    /// A model dump call: `m.model_dump(...)` / `m.dict(...)` (pydantic), `asdict(m)` /
    /// `dataclasses.asdict(m)` / `vars(m)` (dataclasses, pydantic): the fields of `m`'s class,
    /// with the dump's `by_alias`, `include` and `exclude`.
    pub(super) fn dump_call(
        &self,
        c: &'a ast::ExprCall,
        at: At,
        depth: usize,
    ) -> Option<(Vec<Pair>, Range<usize>)> {
        let args = &c.arguments;
        match &*c.func {
            Expr::Attribute(a) => {
                let method = self.text(a.attr.range);
                if !matches!(method, "model_dump" | "dict") {
                    return None;
                }
                let class = self.class_of(&a.value, at, depth)?;
                if self.kind(class, 0) != Some(Kind::Pydantic) {
                    return None;
                }
                let by_alias = args.keywords.iter().any(|k| {
                    k.arg
                        .as_ref()
                        .is_some_and(|n| self.text(n.range) == "by_alias")
                        && matches!(
                            k.value,
                            Expr::BooleanLiteral(ast::ExprBooleanLiteral { value: true, .. })
                        )
                });
                let mut pairs = self.fields(class, by_alias, 0)?;
                for k in &args.keywords {
                    let Some(n) = &k.arg else {
                        continue;
                    };
                    let names = self.name_set(&k.value);
                    match (self.text(n.range), names) {
                        ("exclude", Some(names)) => {
                            pairs.retain(|p| !names.iter().any(|n| *n == p.key))
                        }
                        ("include", Some(names)) => {
                            pairs.retain(|p| names.iter().any(|n| *n == p.key))
                        }
                        ("exclude" | "include", None) => return None,
                        _ => {}
                    }
                }
                Some((pairs, self.host(span(c.range()))))
            }
            Expr::Name(n) => {
                let f = self.qualified(&c.func, at)?;
                let last = f.rsplit('.').next().unwrap_or(&f);
                let _ = n;
                if !matches!(last, "asdict" | "vars") {
                    return None;
                }
                let [one] = &*args.args else {
                    return None;
                };
                let class = self.class_of(one, at, depth)?;
                if !matches!(self.kind(class, 0), Some(Kind::Dataclass | Kind::Pydantic)) {
                    return None;
                }
                let pairs = self.fields(class, false, 0)?;
                Some((pairs, self.host(span(c.range()))))
            }
            _ => None,
        }
    }

    /// `dict(m)` of a pydantic model `m`: its field names.
    pub(super) fn model_dump(
        &self,
        e: &'a Expr,
        at: At,
        exclude: &[&str],
        depth: usize,
    ) -> Option<(Vec<Pair>, Range<usize>)> {
        let class = self.class_of(e, at, depth)?;
        if self.kind(class, 0) != Some(Kind::Pydantic) {
            return None;
        }
        let mut pairs = self.fields(class, false, 0)?;
        pairs.retain(|p| !exclude.contains(&p.key.as_str()));
        Some((pairs, self.host(span(e.range()))))
    }

    /// A parameter annotation naming a `TypedDict` of the module: a dict of its fields.
    pub(super) fn typed_dict_lit(
        &self,
        annotation: &'a Expr,
        _scope: ScopeId,
        _depth: usize,
    ) -> Option<Lit> {
        let class = self.class_named(annotation)?;
        if self.kind(class, 0) != Some(Kind::TypedDict) {
            return None;
        }
        let pairs = self.fields(class, false, 0)?;
        Some(Lit::map(pairs, self.host(span(class.range))))
    }

    /// The value a declared name holds as a filter (a field, a parameter): the first choice
    /// of its `Literal[...]` or `Enum` annotation (the others returned as alternatives), else
    /// its literal default (not `None` or `""`: an unset optional value), else unknown (an
    /// empty range at `end`, the end of the name).
    pub(super) fn annotated_values(
        &self,
        annotation: Option<&'a Expr>,
        default: Option<&'a Expr>,
        end: usize,
        _scope: ScopeId,
    ) -> (Lit, Vec<Lit>) {
        let unknown = Lit::scalar(Value::Expr, end..end);
        if let Some(mut choices) = annotation.and_then(|a| self.choices(a, 0)) {
            if !choices.is_empty() {
                let first = choices.remove(0);
                return (first, choices);
            }
        }
        let default = default.and_then(|d| match d {
            // `Field(default, ...)` / `Field(default=...)` / `field(default=...)`.
            Expr::Call(c) => {
                let f = match &*c.func {
                    Expr::Name(n) => self.text(n.range),
                    Expr::Attribute(a) => self.text(a.attr.range),
                    _ => "",
                };
                if !matches!(f, "Field" | "field") {
                    return None;
                }
                c.arguments.args.first().or_else(|| {
                    c.arguments
                        .keywords
                        .iter()
                        .find(|k| {
                            k.arg
                                .as_ref()
                                .is_some_and(|n| self.text(n.range) == "default")
                        })
                        .map(|k| &k.value)
                })
            }
            d => Some(d),
        });
        match default {
            // `""`, like `None`, is how an optional value is left unset.
            Some(Expr::StringLiteral(s)) if s.value.is_empty() => (unknown, Vec::new()),
            Some(
                d @ (Expr::StringLiteral(_) | Expr::NumberLiteral(_) | Expr::BooleanLiteral(_)),
            ) => (self.literal(d, None, 0), Vec::new()),
            _ => (unknown, Vec::new()),
        }
    }

    /// The choices an annotation allows: the literals of `Literal[...]`, the values of an
    /// `Enum` of the module, through `Optional[...]`, `Union[...]`, `X | None`, `Annotated[X,
    /// ...]`. `None` for any other annotation.
    fn choices(&self, a: &'a Expr, depth: usize) -> Option<Vec<Lit>> {
        if depth > MAX_BASES {
            return None;
        }
        match a {
            Expr::Subscript(s) => {
                let head = self.last_name(&s.value)?;
                let items: Vec<&'a Expr> = match &*s.slice {
                    Expr::Tuple(t) => t.elts.iter().collect(),
                    e => vec![e],
                };
                match head {
                    "Literal" => Some(
                        items
                            .iter()
                            .filter(|e| !matches!(e, Expr::NoneLiteral(_)))
                            .map(|e| self.literal(e, None, 0))
                            .filter(|l| !matches!(l.value, Value::Expr))
                            .collect(),
                    ),
                    "Optional" | "Annotated" => self.choices(items.first()?, depth + 1),
                    "Union" => self.union_choices(&items, depth),
                    _ => None,
                }
            }
            Expr::BinOp(b) if b.op == ast::Operator::BitOr => {
                self.union_choices(&[&b.left, &b.right], depth)
            }
            Expr::Name(_) | Expr::Attribute(_) => {
                let class = self.class_named(a)?;
                (self.kind(class, 0) == Some(Kind::Enum)).then(|| self.enum_values(class))
            }
            _ => None,
        }
    }

    /// The choices of a union: those of its one member that is not `None`.
    fn union_choices(&self, items: &[&'a Expr], depth: usize) -> Option<Vec<Lit>> {
        let mut some = items.iter().filter(|e| !matches!(e, Expr::NoneLiteral(_)));
        let one = some.next()?;
        if some.next().is_some() {
            return None;
        }
        self.choices(one, depth + 1)
    }

    /// The values of an `Enum`'s members (`ACTIVE = "active"`), literals only.
    fn enum_values(&self, class: &'a ast::StmtClassDef) -> Vec<Lit> {
        class
            .body
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign(a) if matches!(a.targets.as_slice(), [Expr::Name(_)]) => {
                    let l = self.literal(&a.value, None, 0);
                    (!matches!(l.value, Value::Expr)).then_some(l)
                }
                _ => None,
            })
            .collect()
    }

    /// The fields of a model class and its model bases: `name: T [= default]`, keyed by name
    /// (or alias, `by_alias`), each key a declared name. `None` when a key cannot be known
    /// (an alias generator with `by_alias`).
    fn fields(
        &self,
        class: &'a ast::StmtClassDef,
        by_alias: bool,
        depth: usize,
    ) -> Option<Vec<Pair>> {
        if depth > MAX_BASES {
            return None;
        }
        let mut pairs: Vec<Pair> = Vec::new();
        for base in class.arguments.iter().flat_map(|a| a.args.iter()) {
            if let Some(b) = self.class_named(base) {
                if self.kind(b, 0).is_some() && !std::ptr::eq(b, class) {
                    pairs.extend(self.fields(b, by_alias, depth + 1)?);
                }
            }
        }
        for s in &class.body {
            match s {
                Stmt::AnnAssign(a) => {
                    let Expr::Name(n) = &*a.target else {
                        continue;
                    };
                    let name = self.text(n.range);
                    if name.starts_with('_')
                        || name == "model_config"
                        || self.last_name_of_head(&a.annotation) == Some("ClassVar")
                    {
                        continue;
                    }
                    let alias = by_alias
                        .then(|| self.alias(a.value.as_deref(), &a.annotation))
                        .flatten();
                    let (key, key_range) = match alias {
                        Some((s, r)) => (s, r),
                        None => (name.to_string(), self.host(span(n.range))),
                    };
                    self.record_declared(key_range.clone());
                    let (value, others) = self.annotated_values(
                        Some(&a.annotation),
                        a.value.as_deref(),
                        key_range.end,
                        0,
                    );
                    self.record_alternatives(value.range.clone(), others);
                    let pair = Pair {
                        key: key.into(),
                        key_range,
                        value,
                    };
                    match pairs.iter_mut().find(|p| p.key == pair.key) {
                        Some(p) => *p = pair,
                        None => pairs.push(pair),
                    }
                }
                Stmt::Assign(a) if by_alias => {
                    // `model_config = ConfigDict(alias_generator=...)`: aliases not known here.
                    let config = a.targets.iter().any(
                        |t| matches!(t, Expr::Name(n) if self.text(n.range) == "model_config"),
                    );
                    if config && self.text(a.value.range()).contains("alias_generator") {
                        return None;
                    }
                }
                Stmt::ClassDef(c)
                    if by_alias
                        && self.text(c.name.range) == "Config"
                        && self.text(c.range).contains("alias_generator") =>
                {
                    return None;
                }
                _ => {}
            }
        }
        Some(pairs)
    }

    /// The alias a pydantic field is dumped under (`serialization_alias`, else `alias`), from
    /// `Field(...)` as its value or in `Annotated[T, Field(...)]`: the text and its host range.
    fn alias(
        &self,
        value: Option<&'a Expr>,
        annotation: &'a Expr,
    ) -> Option<(String, Range<usize>)> {
        let mut calls: Vec<&'a ast::ExprCall> = Vec::new();
        if let Some(Expr::Call(c)) = value {
            calls.push(c);
        }
        if let Expr::Subscript(s) = annotation {
            if self.last_name(&s.value) == Some("Annotated") {
                if let Expr::Tuple(t) = &*s.slice {
                    calls.extend(t.elts.iter().filter_map(|e| match e {
                        Expr::Call(c) => Some(c),
                        _ => None,
                    }));
                }
            }
        }
        for want in ["serialization_alias", "alias"] {
            for c in &calls {
                if self.last_name(&c.func) != Some("Field") {
                    continue;
                }
                let found = c.arguments.keywords.iter().find_map(|k| {
                    let n = k.arg.as_ref()?;
                    (self.text(n.range) == want).then_some(&k.value)
                });
                if let Some(v) = found {
                    let l = self.literal(v, None, 0);
                    if let Some((s, r)) = l.as_str() {
                        return Some((s.to_string(), r));
                    }
                }
            }
        }
        None
    }

    /// The names of a set, list or dict literal of strings (`exclude={"a", "b"}`).
    fn name_set(&self, e: &Expr) -> Option<Vec<String>> {
        let items: Vec<&Expr> = match e {
            Expr::Set(s) => s.elts.iter().collect(),
            Expr::List(l) => l.elts.iter().collect(),
            Expr::Tuple(t) => t.elts.iter().collect(),
            Expr::Dict(d) => d.items.iter().filter_map(|i| i.key.as_ref()).collect(),
            _ => return None,
        };
        items
            .iter()
            .map(|i| {
                self.literal(i, None, 0)
                    .as_str()
                    .map(|(s, _)| s.to_string())
            })
            .collect()
    }

    /// The class of the model instance `e`: a parameter annotated with a model class, a name
    /// bound to `K(...)` or annotated `K`, what a helper's call gave, or `K(...)` itself.
    fn class_of(&self, e: &'a Expr, at: At, depth: usize) -> Option<&'a ast::StmtClassDef> {
        if depth > MAX_BASES * 3 {
            return None;
        }
        match e {
            Expr::Call(c) => self.class_named(&c.func),
            Expr::Name(n) => match self.read(self.text(n.range), at) {
                Read::Binding { id, .. } => {
                    let b = self.m.bindings[id as usize];
                    match b.kind {
                        BindingKind::Param { param, .. } => {
                            self.class_named(param.annotation.as_deref()?)
                        }
                        BindingKind::Value { value, annotation } => {
                            annotation.and_then(|a| self.class_named(a)).or_else(|| {
                                let at2 = At {
                                    scope: b.scope,
                                    block: b.block,
                                    offset: b.start,
                                    env: at.env,
                                };
                                self.class_of(value, at2, depth + 1)
                            })
                        }
                        _ => None,
                    }
                }
                Read::Given(Given::Expr(e2, at2)) => self.class_of(e2, at2, depth + 1),
                _ => None,
            },
            _ => None,
        }
    }

    /// The class of the module an annotation or callee names (`K`, `Optional[K]`, `K | None`,
    /// `Annotated[K, ...]`, `models.K` by its last name).
    fn class_named(&self, e: &'a Expr) -> Option<&'a ast::StmtClassDef> {
        match e {
            Expr::Name(n) => {
                let name = self.text(n.range);
                let ids = self.m.bindings_of(0, name);
                let mut class = None;
                for &id in ids {
                    match self.m.bindings[id as usize].kind {
                        BindingKind::Class(c) if class.is_none() => class = Some(c),
                        BindingKind::Update(_) => {}
                        _ => return None,
                    }
                }
                class
            }
            Expr::Subscript(s) => match self.last_name(&s.value)? {
                "Optional" | "Annotated" => match &*s.slice {
                    Expr::Tuple(t) => self.class_named(t.elts.first()?),
                    e => self.class_named(e),
                },
                "Union" => {
                    let Expr::Tuple(t) = &*s.slice else {
                        return self.class_named(&s.slice);
                    };
                    let mut some = t.elts.iter().filter(|e| !matches!(e, Expr::NoneLiteral(_)));
                    let one = some.next()?;
                    some.next()
                        .is_none()
                        .then(|| self.class_named(one))
                        .flatten()
                }
                _ => None,
            },
            Expr::BinOp(b) if b.op == ast::Operator::BitOr => match (&*b.left, &*b.right) {
                (Expr::NoneLiteral(_), x) | (x, Expr::NoneLiteral(_)) => self.class_named(x),
                _ => None,
            },
            _ => None,
        }
    }

    /// What kind of model `class` is, from its bases and decorators (and its model bases').
    fn kind(&self, class: &'a ast::StmtClassDef, depth: usize) -> Option<Kind> {
        if depth > MAX_BASES {
            return None;
        }
        let dataclass = class.decorator_list.iter().any(|d| {
            let e = match &d.expression {
                Expr::Call(c) => &*c.func,
                e => e,
            };
            self.last_name(e) == Some("dataclass")
        });
        if dataclass {
            return Some(Kind::Dataclass);
        }
        for base in class.arguments.iter().flat_map(|a| a.args.iter()) {
            match self.last_name(base) {
                Some("BaseModel" | "BaseSettings") => return Some(Kind::Pydantic),
                Some("TypedDict") => return Some(Kind::TypedDict),
                Some("Enum" | "StrEnum" | "IntEnum") => return Some(Kind::Enum),
                _ => {}
            }
            if let Some(b) = self.class_named(base) {
                if !std::ptr::eq(b, class) {
                    if let Some(k) = self.kind(b, depth + 1) {
                        return Some(k);
                    }
                }
            }
        }
        None
    }

    /// The last name of a dotted name (`pydantic.BaseModel` → `BaseModel`).
    fn last_name(&self, e: &Expr) -> Option<&'a str> {
        match e {
            Expr::Name(n) => Some(self.text(n.range)),
            Expr::Attribute(a) => Some(self.text(a.attr.range)),
            _ => None,
        }
    }

    /// The last name of an annotation's head (`ClassVar[int]` → `ClassVar`).
    fn last_name_of_head(&self, e: &Expr) -> Option<&'a str> {
        match e {
            Expr::Subscript(s) => self.last_name(&s.value),
            e => self.last_name(e),
        }
    }
}
