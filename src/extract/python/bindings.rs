//! Names bound above a call: the walk of a module that collects its name bindings and calls,
//! and the dict literal a name is bound to just above the statement that uses it.

use std::collections::HashMap;

use ruff_python_ast::visitor::source_order::{self, SourceOrderVisitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::{span, Reader};

/// The statement holding a node: its block (module or compound statement body) and index.
pub(super) type StmtAt<'t> = Option<(&'t [Stmt], usize)>;

/// Name bindings (`x = <expr>`; `None` for an earlier target of a chained assignment, whose
/// value is the rest of the chain) and the calls of a module, in document order.
pub(super) struct ModuleWalk<'s, 't> {
    pub(super) src: &'s str,
    pub(super) names: HashMap<&'s str, Option<&'t Expr>>,
    pub(super) calls: Vec<(&'t ast::ExprCall, StmtAt<'t>)>,
    pub(super) stmt: StmtAt<'t>,
}

impl<'s, 't> ModuleWalk<'s, 't> {
    fn bind(&mut self, target: &Expr, value: Option<&'t Expr>) {
        if let Expr::Name(n) = target {
            if let Some(t) = self.src.get(span(n.range)) {
                self.names.insert(t, value);
            }
        }
    }
}

impl<'t> SourceOrderVisitor<'t> for ModuleWalk<'_, 't> {
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
struct BindsName<'s> {
    src: &'s str,
    want: &'s str,
    found: bool,
}

impl<'t> SourceOrderVisitor<'t> for BindsName<'_> {
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

impl Reader<'_> {
    /// The dict literal bound to identifier `name` by the nearest assignment above the
    /// statement `stmt` (the one holding the call), in the same block (`params = {...}` then
    /// `.filter(**params)`). A dict bound in another scope or further away is not read: it may
    /// have changed.
    pub(super) fn dict_assigned_above<'t>(
        &self,
        name: &'t Expr,
        stmt: StmtAt<'t>,
    ) -> Option<&'t Expr> {
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
        let mut b = BindsName {
            src: self.src,
            want,
            found: false,
        };
        b.visit_stmt(s);
        b.found
    }
}
