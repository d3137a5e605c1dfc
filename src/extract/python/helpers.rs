//! A call of a helper of the module, read as the calls in the helper's body with the helper's
//! parameters bound to the call's arguments (one level: the helper's own helper calls are not
//! followed through; a caller's parameters are unknown). `def search(endpoint, **filters):
//! return requests.get(f"{NB}/api/{endpoint}/", params=filters)` called as
//! `search("dcim/devices", device_role="leaf")` sends `device_role` to `/api/dcim/devices/`;
//! the finding lands on the caller's `device_role`. Only calls of the body that read a bound
//! parameter give sites here (the others are the body's own sites, read once).
//!
//! Also here: the sites of a filter's other possible values ([`Values::alternative_sites`]).

use std::collections::HashSet;

use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;

use super::semantic::{At, BindingKind, CallSite, ScopeId, ScopeKind};
use super::span;
use super::values::{Env, Given, Read, Values};
use crate::extract::{FilterEntry, Site};

impl<'a> Values<'a> {
    /// The sites of a call of a helper function of the module (`helper(...)`, or
    /// `self.helper(...)` in a method of the class that defines it), each with the caller's
    /// call range.
    pub(super) fn helper_sites(&self, cs: &CallSite<'a>) -> Vec<Site> {
        // A module of one scope defines no function: no call of it is a helper's (the fuel set
        // here is set again before the call is read).
        if cs.at.env != 0 || self.m.scopes.len() == 1 {
            return Vec::new();
        }
        self.refuel();
        let Some((def, scope, method)) = self.helper(cs.call, cs.at) else {
            return Vec::new();
        };
        let env = self.bind_env(def, scope, method, cs.call, cs.at);
        let env = self.push_env(env);
        let (first, end) = self.m.scopes[scope as usize].calls;
        let call_range = self.host(span(cs.call.range()));
        let mut out = Vec::new();
        for inner in &self.m.calls[first as usize..end as usize] {
            if inner.at.scope != scope {
                continue;
            }
            // A module-wide budget: helpers called from thousands of places with hundreds of
            // calls each cannot make the reading grow faster than the code.
            let left = self.expansions.get();
            if left == 0 {
                // Said once, at the first call of a helper left unread.
                if !self.budget_reported.replace(true) {
                    out.push(Site::NotChecked(crate::extract::NotChecked {
                        range: call_range.clone(),
                        reason: format!(
                            "this code calls helpers of this module more often than netbox-lsp reads through them ({} calls of their bodies per file)",
                            super::values::EXPANSIONS
                        ),
                        advice: "Split the module, or mark a call with `# netbox: <endpoint>`, to have it checked.".to_string(),
                    }));
                }
                break;
            }
            self.expansions.set(left - 1);
            self.refuel();
            self.take_used_env();
            let found = self.call_sites(inner.call, At { env, ..inner.at });
            if !self.take_used_env() {
                continue;
            }
            for mut site in found {
                if let Site::Rest(c) = &mut site {
                    c.call_range = call_range.clone();
                }
                out.push(site);
            }
        }
        out
    }

    /// The function a call calls, when the module defines it: its definition, its scope, and
    /// whether it is a method called on `self`/`cls` (its first parameter is bound by Python).
    fn helper(
        &self,
        call: &'a ast::ExprCall,
        at: At,
    ) -> Option<(&'a ast::StmtFunctionDef, ScopeId, bool)> {
        match &*call.func {
            Expr::Name(n) => match self.read(self.text(n.range), at) {
                Read::Binding { id, .. } => match self.m.bindings[id as usize].kind {
                    BindingKind::Function { def, scope } => Some((def, scope, false)),
                    _ => None,
                },
                _ => None,
            },
            Expr::Attribute(a) => {
                let Expr::Name(recv) = &*a.value else {
                    return None;
                };
                if !matches!(self.text(recv.range), "self" | "cls") {
                    return None;
                }
                // The class of the method the call stands in.
                let mut scope = at.scope;
                let class = loop {
                    let s = &self.m.scopes[scope as usize];
                    match (s.kind, s.parent) {
                        (ScopeKind::Function(_), Some(p)) => {
                            if let ScopeKind::Class = self.m.scopes[p as usize].kind {
                                break p;
                            }
                            scope = p;
                        }
                        (ScopeKind::Comprehension | ScopeKind::Lambda, Some(p)) => scope = p,
                        _ => return None,
                    }
                };
                let name = self.text(a.attr.range);
                let ids = self.m.bindings_of(class, name);
                let [id] = ids else {
                    return None;
                };
                match self.m.bindings[*id as usize].kind {
                    BindingKind::Function { def, scope } => Some((def, scope, true)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The parameters of `def` bound by `call` (standing at `at`): positional arguments in
    /// order, keywords by name, the other keywords for `**kwargs`, defaults for the rest.
    fn bind_env(
        &self,
        def: &'a ast::StmtFunctionDef,
        scope: ScopeId,
        method: bool,
        call: &'a ast::ExprCall,
        at: At,
    ) -> Env<'a> {
        let p = &def.parameters;
        let named: Vec<&'a ast::ParameterWithDefault> = p
            .posonlyargs
            .iter()
            .chain(&p.args)
            .skip(usize::from(method))
            .chain(&p.kwonlyargs)
            .collect();
        let positional_count =
            (p.posonlyargs.len() + p.args.len()).saturating_sub(usize::from(method));
        let def_at = self.def_at(scope);
        let mut params: Vec<(&'a str, Given<'a>)> = Vec::new();
        let mut unknown_rest = false;
        for (i, arg) in call.arguments.args.iter().enumerate() {
            if matches!(arg, Expr::Starred(_)) {
                unknown_rest = true;
                break;
            }
            if let Some(param) = named.get(i).filter(|_| i < positional_count) {
                params.push((self.text(param.parameter.name.range), Given::Expr(arg, at)));
            }
        }
        let mut taken = Vec::new();
        for k in &call.arguments.keywords {
            let Some(id) = &k.arg else {
                unknown_rest = true;
                continue;
            };
            let name = self.text(id.range);
            if named
                .iter()
                .any(|q| self.text(q.parameter.name.range) == name)
            {
                params.push((name, Given::Expr(&k.value, at)));
                taken.push(name);
            }
        }
        if !unknown_rest {
            for q in &named {
                let name = self.text(q.parameter.name.range);
                if params.iter().any(|(n, _)| *n == name) {
                    continue;
                }
                if let (Some(d), Some(def_at)) = (&q.default, def_at) {
                    params.push((name, Given::Default(d, def_at)));
                }
            }
        }
        if let Some(kw) = &p.kwarg {
            params.push((
                self.text(kw.name.range),
                Given::Kwargs(&call.arguments, taken, at),
            ));
        }
        Env { scope, params }
    }

    /// Where the function of scope `scope` is defined (its defaults are read there).
    fn def_at(&self, scope: ScopeId) -> Option<At> {
        let s = &self.m.scopes[scope as usize];
        Some(At {
            scope: s.parent?,
            block: s.outer,
            offset: s.start,
            env: 0,
        })
    }

    /// For each filter of `sites` whose value is one of several a model field or parameter
    /// allows (`Literal["active", "offline"]`), one more site per other value, holding that
    /// filter alone: each value is checked, and nothing else is reported twice.
    pub(super) fn alternative_sites(&self, sites: &[Site]) -> Vec<Site> {
        let mut out = Vec::new();
        if self.nothing_recorded() {
            return out;
        }
        for site in sites {
            let Site::Rest(c) = site else {
                continue;
            };
            for e in &c.filters {
                let Some(others) = self.alternatives_of(&e.value_range) else {
                    continue;
                };
                for alt in others {
                    let mut one = c.clone();
                    one.filters = vec![FilterEntry {
                        key: e.key.clone(),
                        key_range: e.key_range.clone(),
                        value: crate::extract::unjudged(&alt.value, &e.key),
                        value_range: alt.range.clone(),
                    }];
                    one.filters_range = None;
                    one.args = Vec::new();
                    out.push(Site::Rest(one));
                }
            }
        }
        out
    }
}

/// Drops repeated sites of `more` (a helper called twice at one place is read once).
pub(super) fn dedup(more: &mut Vec<Site>) {
    let mut seen = HashSet::new();
    more.retain(|s| match s {
        Site::Rest(c) => seen.insert((
            c.call_range.start,
            c.call_range.end,
            c.target.as_ref().map(|(_, r)| (r.start, r.end)),
            c.filters.first().map(|e| e.key_range.start),
            c.filters.len(),
        )),
        _ => true,
    });
}
