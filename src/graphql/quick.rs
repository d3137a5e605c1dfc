//! A quick proof that apollo-compiler's validation of a document would find nothing, so the
//! checks can skip it (building an `ExecutableDocument` and running every rule costs about as
//! much as the parse; issue 36).
//!
//! [`certainly_valid`] answers `true` only for the plain shape most documents have: one query
//! operation, no directives, fields of object types, fragment spreads whose fragment is on the
//! very type it is spread in, arguments and input values apollo-compiler 1.33 accepts (the same
//! coercion table as its `validation/value.rs`), every variable defined, used and allowed where
//! it is used, every fragment used, no cycle, and fields of one response name that merge
//! trivially (same field, same arguments). Anything else (interfaces, unions, inline fragments,
//! directives, `__typename`, several operations, a merge it cannot decide at a glance) answers
//! `false`, and apollo-compiler validates as before: the findings are the same either way.

use super::NetboxSchema;
use apollo_compiler::ast::{self, Definition, FieldDefinition, Selection, Type, Value};
use apollo_compiler::schema::{ExtendedType, ObjectType};
use apollo_compiler::{Name, Node};
use std::collections::HashMap;
use std::ops::Range;

/// Deepest selection nesting (fields and fragment spreads) looked at; apollo-compiler's own
/// walks stop at 32 with a recursion diagnostic, so deeper documents are left to it.
const MAX_DEPTH: usize = 24;

/// True when apollo-compiler's `to_executable_validate` of `doc` against `nb` is certain to
/// return no diagnostic. `false` means "not shown", not "invalid".
pub fn certainly_valid(doc: &ast::Document, nb: &NetboxSchema) -> bool {
    diagnose(doc, nb).is_some_and(|d| d.is_empty())
}

/// One diagnostic apollo-compiler's validation gives, found without it: its byte range in the
/// document's text, its `unstable_error_name` and its message (apollo-compiler 1.33's words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub range: Range<usize>,
    pub name: &'static str,
    pub message: String,
}

/// Every diagnostic apollo-compiler's `to_executable_validate` of `doc` against `nb` gives, in
/// its order (by offset), for the plain shape of [`certainly_valid`] with the plain mistakes:
/// a field unknown on an object type (a leaf without arguments: `UndefinedField`), an unknown
/// argument (`UndefinedArgument`), an unknown input field (`UndefinedInputValue`, the first of
/// an object, at its value), a literal of the wrong kind (`UnsupportedValueType`), an unknown
/// enum value (`UndefinedEnumValue`), an undefined variable (`UndefinedVariable`), an unused
/// one (`UnusedVariable`) and a fragment spread on another object type than its own
/// (`InvalidFragmentSpread`, its fields checked on its own type). `Some(empty)`: valid. `None`: anything else (apollo-compiler then
/// validates); every span is read from `doc`'s nodes, so the ranges are those of the text `doc`
/// was parsed from.
pub fn diagnose(doc: &ast::Document, nb: &NetboxSchema) -> Option<Vec<Said>> {
    let schema = &nb.schema;
    let mut op = None;
    let mut fragments: HashMap<&Name, &Node<ast::FragmentDefinition>> = HashMap::new();
    for def in &doc.definitions {
        match def {
            Definition::OperationDefinition(o) if op.is_none() => op = Some(o),
            Definition::FragmentDefinition(f) => {
                if fragments.insert(&f.name, f).is_some() {
                    return None;
                }
            }
            _ => return None,
        }
    }
    let op = op?;
    if op.operation_type != ast::OperationType::Query || !op.directives.is_empty() {
        return None;
    }
    let root = schema.schema_definition.query.as_ref()?;
    let mut vars: HashMap<&Name, (&Node<ast::VariableDefinition>, bool)> = HashMap::new();
    for v in &op.variables {
        if !v.directives.is_empty() || vars.insert(&v.name, (v, false)).is_some() {
            return None;
        }
        if !matches!(
            schema.types.get(v.ty.inner_named_type()),
            Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_) | ExtendedType::InputObject(_))
        ) {
            return None;
        }
    }
    let mut q = Quick {
        nb,
        fragments,
        vars,
        used_fragments: Vec::new(),
        stack: Vec::new(),
        said: Vec::new(),
        unplain: Vec::new(),
    };
    // Default values are checked as apollo-compiler does: against the type, no variables.
    for v in &op.variables {
        if let Some(d) = &v.default_value {
            if has_variable(d) || !q.value_ok(&v.ty, d, false) || !q.said.is_empty() {
                return None;
            }
        }
    }
    let Some(ExtendedType::Object(root_ty)) = schema.types.get(root.name.as_str()) else {
        return None;
    };
    if !q.selections(root.name.as_str(), root_ty, &op.selection_set, 0, &mut true) {
        return None;
    }
    q.unplain.sort_unstable();
    if !q.merges(root.name.as_str(), &[&op.selection_set], 0) {
        return None;
    }
    // Every fragment used.
    if !q
        .fragments
        .keys()
        .all(|name| q.used_fragments.contains(name))
    {
        return None;
    }
    // Every variable used, or said unused from its `$` to the end of its name.
    for v in &op.variables {
        if !q.vars.get(&v.name).is_some_and(|(_, used)| *used) {
            let (Some(at), Some(name)) = (span(v.location()), span(v.name.location())) else {
                return None;
            };
            q.said.push(Said {
                range: at.start..name.end,
                name: "UnusedVariable",
                message: format!("unused variable: `${}`", v.name),
            });
        }
    }
    // apollo-compiler sorts its diagnostics by offset (stable).
    q.said.sort_by_key(|d| d.range.start);
    Some(q.said)
}

/// A node's byte range.
fn span(l: Option<apollo_compiler::parser::SourceSpan>) -> Option<Range<usize>> {
    l.map(|l| l.offset()..l.end_offset())
}

struct Quick<'a> {
    nb: &'a NetboxSchema,
    fragments: HashMap<&'a Name, &'a Node<ast::FragmentDefinition>>,
    vars: HashMap<&'a Name, (&'a Node<ast::VariableDefinition>, bool)>,
    used_fragments: Vec<&'a Name>,
    /// Fragments being expanded (a spread of one of them is a cycle: left to apollo-compiler).
    stack: Vec<&'a Name>,
    /// The diagnostics found so far, in apollo-compiler's order of finding them.
    said: Vec<Said>,
    /// The fields (addresses of their nodes) whose selection, at any depth, has a fragment
    /// spread or two fields of one response name (or of one hash of it): [`Quick::merges`]
    /// looks only below these. Sorted once [`Quick::selections`] is done.
    unplain: Vec<usize>,
}

impl<'a> Quick<'a> {
    /// The selection set `sels` on object type `ty`: every field known with valid arguments,
    /// leaves without and objects with a selection, spreads of fragments on `ty` itself.
    /// `plain` is set to `false` when `sels` has a fragment spread or two fields of one
    /// response name, or a field below it does (that field is then in `unplain`).
    /// `obj` is the schema's object type `ty` (looked up by the caller).
    fn selections(
        &mut self,
        ty: &str,
        obj: &'a ObjectType,
        sels: &'a [Selection],
        depth: usize,
        plain: &mut bool,
    ) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        // The hashes of the response names, to find two of one name (a hash shared by two
        // names, or more fields than kept, only costs the merge check a look).
        let mut keys = [0u64; 32];
        let mut nkeys = 0;
        // Unknown fields are left out of the executable document: a selection of nothing but
        // them is empty there (a missing selection): left to apollo-compiler (asked at the end,
        // each field looked up once; any `false` before it gives the same answer, `None`).
        let mut only_unknown = true;
        for sel in sels {
            match sel {
                Selection::Field(f) => {
                    if !f.directives.is_empty() {
                        return false;
                    }
                    match keys.get_mut(nkeys) {
                        Some(k) => {
                            *k = fingerprint(f.alias.as_ref().unwrap_or(&f.name));
                            nkeys += 1;
                        }
                        None => *plain = false,
                    }
                    let def = obj.fields.get(&f.name);
                    only_unknown &= def.is_none();
                    let Some(def) = def else {
                        // Unknown here: reported at its name when building the executable
                        // document, and left out of it (so of every later rule). A field
                        // with arguments or a selection takes them out too (variables,
                        // fragments): left to apollo-compiler, as are introspection fields.
                        if f.name.starts_with("__")
                            || !f.arguments.is_empty()
                            || !f.selection_set.is_empty()
                        {
                            return false;
                        }
                        let Some(at) = span(f.name.location()) else {
                            return false;
                        };
                        self.said.push(Said {
                            range: at,
                            name: "UndefinedField",
                            message: format!("type `{ty}` does not have a field `{}`", f.name),
                        });
                        continue;
                    };
                    if !self.arguments(ty, f, &def.arguments) {
                        return false;
                    }
                    let inner = def.ty.inner_named_type();
                    match self.nb.type_named(inner) {
                        Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_)) => {
                            if !f.selection_set.is_empty() {
                                return false;
                            }
                        }
                        Some(ExtendedType::Object(below_ty)) => {
                            let mut below = true;
                            if f.selection_set.is_empty()
                                || !self.selections(
                                    inner.as_str(),
                                    below_ty,
                                    &f.selection_set,
                                    depth + 1,
                                    &mut below,
                                )
                            {
                                return false;
                            }
                            if !below {
                                self.unplain.push(&**f as *const ast::Field as usize);
                                *plain = false;
                            }
                        }
                        _ => return false,
                    }
                }
                Selection::FragmentSpread(s) => {
                    only_unknown = false;
                    *plain = false;
                    if !s.directives.is_empty() {
                        return false;
                    }
                    let Some(frag) = self.fragments.get(&s.fragment_name).copied() else {
                        return false;
                    };
                    if !frag.directives.is_empty() {
                        return false;
                    }
                    let cond = frag.type_condition.as_str();
                    let mut on = obj;
                    if cond != ty {
                        // On another object type: no type in common, reported at every
                        // spread; the fragment is still checked on its own type.
                        let Some(ExtendedType::Object(other)) = self.nb.schema.types.get(cond)
                        else {
                            return false;
                        };
                        on = other;
                        let Some(at) = span(s.location()) else {
                            return false;
                        };
                        self.said.push(Said {
                            range: at,
                            name: "InvalidFragmentSpread",
                            message: format!(
                                "fragment `{}` with type condition `{cond}` cannot be applied to `{ty}`",
                                s.fragment_name
                            ),
                        });
                    }
                    if self.stack.contains(&&frag.name) {
                        return false;
                    }
                    if self.used_fragments.contains(&&frag.name) {
                        // Already checked on its own type.
                        continue;
                    }
                    self.used_fragments.push(&frag.name);
                    self.stack.push(&frag.name);
                    let ok = self.selections(cond, on, &frag.selection_set, depth + 1, &mut true);
                    self.stack.pop();
                    if !ok {
                        return false;
                    }
                }
                Selection::InlineFragment(_) => return false,
            }
        }
        let keys = &mut keys[..nkeys];
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            *plain = false;
        }
        !only_unknown
    }

    /// Arguments of field `f` of type `ty`: each given once, each required one given; an
    /// unknown one is reported (`UndefinedArgument`, on the whole argument), a known one's
    /// value checked against its type.
    fn arguments(
        &mut self,
        ty: &str,
        f: &'a ast::Field,
        defs: &'a [Node<ast::InputValueDefinition>],
    ) -> bool {
        let args = &f.arguments;
        for (i, a) in args.iter().enumerate() {
            if args[..i].iter().any(|b| b.name == a.name) {
                return false;
            }
            let Some(def) = defs.iter().find(|d| d.name == a.name) else {
                // Its variables would count as used: left to apollo-compiler.
                let Some(at) = span(a.location()) else {
                    return false;
                };
                if has_variable(&a.value) {
                    return false;
                }
                self.said.push(Said {
                    range: at,
                    name: "UndefinedArgument",
                    message: format!(
                        "the argument `{}` is not supported by `{ty}.{}`",
                        a.name, f.name
                    ),
                });
                continue;
            };
            if !self.value_ok(&def.ty, &a.value, def.default_value.is_some()) {
                return false;
            }
        }
        defs.iter()
            .filter(|d| d.ty.is_non_null() && d.default_value.is_none())
            .all(|d| {
                args.iter()
                    .any(|a| a.name == d.name && !matches!(*a.value, Value::Null))
            })
    }

    /// Reports `value` as not of type `ty` (`UnsupportedValueType`, on the value); `false`
    /// (not answered) when the value holds a variable (apollo-compiler counts it used) or has
    /// no span.
    fn unsupported(&mut self, ty: &Type, value: &Node<Value>) -> bool {
        let Some(at) = span(value.location()) else {
            return false;
        };
        if has_variable(value) {
            return false;
        }
        self.said.push(Said {
            range: at,
            name: "UnsupportedValueType",
            message: format!("expected value of type {ty}, found {}", describe(value)),
        });
        true
    }

    /// Whether `value` fits `ty` as apollo-compiler 1.33 judges it (`value_of_correct_type`
    /// and, for a variable, `is_variable_usage_allowed`): the plain mistakes are reported (see
    /// [`diagnose`]); `false` when apollo-compiler's answer is not known here.
    /// `location_default`: the argument or input field has a default value.
    fn value_ok(&mut self, ty: &'a Type, value: &'a Node<Value>, location_default: bool) -> bool {
        let Some(td) = self.nb.type_named(ty.inner_named_type()) else {
            return false;
        };
        let custom = matches!(td, ExtendedType::Scalar(s) if !s.is_built_in());
        let builtin =
            |name: &str| matches!(td, ExtendedType::Scalar(s) if s.is_built_in() && s.name == name);
        match &**value {
            Value::Variable(name) => {
                let Some((def, used)) = self.vars.get_mut(name) else {
                    let Some(at) = span(value.location()) else {
                        return false;
                    };
                    self.said.push(Said {
                        range: at,
                        name: "UndefinedVariable",
                        message: format!("variable `${name}` is not defined"),
                    });
                    return true;
                };
                *used = true;
                def.ty.inner_named_type() == ty.inner_named_type()
                    && usage_allowed(def, ty, location_default)
            }
            Value::Null => !ty.is_non_null(),
            Value::Int(i) => {
                if custom
                    || builtin("ID")
                    || (builtin("Int") && i.try_to_i32().is_ok())
                    || (builtin("Float") && i.try_to_f64().is_ok())
                {
                    true
                } else if builtin("Int") || builtin("Float") {
                    // A coercion error: left to apollo-compiler.
                    false
                } else {
                    self.unsupported(ty, value)
                }
            }
            Value::Float(f) => {
                if custom || (builtin("Float") && f.try_to_f64().is_ok()) {
                    true
                } else if builtin("Float") {
                    false
                } else {
                    self.unsupported(ty, value)
                }
            }
            Value::String(_) => {
                if custom || builtin("String") || builtin("ID") {
                    true
                } else {
                    self.unsupported(ty, value)
                }
            }
            Value::Boolean(_) => {
                if custom || builtin("Boolean") {
                    true
                } else {
                    self.unsupported(ty, value)
                }
            }
            Value::Enum(v) => match td {
                _ if custom => true,
                ExtendedType::Enum(e) => {
                    if e.values.contains_key(v) {
                        return true;
                    }
                    let Some(at) = span(v.location()) else {
                        return false;
                    };
                    self.said.push(Said {
                        range: at,
                        name: "UndefinedEnumValue",
                        message: format!("value `{v}` does not exist on `{}`", e.name),
                    });
                    true
                }
                _ => self.unsupported(ty, value),
            },
            Value::List(items) => {
                if !(ty.is_list() || custom) {
                    return self.unsupported(ty, value);
                }
                if !td.is_input_type() {
                    return false;
                }
                let item = ty.item_type();
                items.iter().all(|v| self.value_ok(item, v, false))
            }
            Value::Object(fields) => {
                // A custom scalar takes any object, unchecked: its variables are left to
                // apollo-compiler.
                if custom {
                    return false;
                }
                let ExtendedType::InputObject(io) = td else {
                    return self.unsupported(ty, value);
                };
                let mut unknown = false;
                for (i, (name, v)) in fields.iter().enumerate() {
                    if fields[..i].iter().any(|(n, _)| n == name) {
                        return false;
                    }
                    let Some(def) = io.fields.get(name) else {
                        // The first unknown one is reported, at its value; none is looked
                        // into (its variables would count as used: left to apollo-compiler).
                        if has_variable(v) {
                            return false;
                        }
                        if !unknown {
                            unknown = true;
                            let Some(at) = span(v.location()) else {
                                return false;
                            };
                            self.said.push(Said {
                                range: at,
                                name: "UndefinedInputValue",
                                message: format!("field `{name}` does not exist on `{}`", io.name),
                            });
                        }
                        continue;
                    };
                    if !self.value_ok(&def.ty, v, def.default_value.is_some()) {
                        return false;
                    }
                }
                // Required input fields: precomputed per release, most filters have none.
                !self.nb.has_required_fields(&io.name)
                    || io
                        .fields
                        .iter()
                        .filter(|(_, f)| f.ty.is_non_null() && f.default_value.is_none())
                        .all(|(n, _)| {
                            fields
                                .iter()
                                .any(|(m, v)| m == n && !matches!(**v, Value::Null))
                        })
            }
        }
    }

    /// Fields of one response name in the selection sets `sets` (all on object type `ty`, with
    /// fragment spreads expanded) are the same field with the same arguments, and their
    /// selections merge in turn (the "fields in set can merge" rule, for this plain shape).
    fn merges(&self, ty: &str, sets: &[&'a [Selection]], depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let nb: &'a NetboxSchema = self.nb;
        let types = &nb.schema.types;
        let Some(ExtendedType::Object(obj)) = nb.type_named(ty) else {
            return false;
        };
        // Each field with the object type it is selected on (a fragment's own type) and its
        // definition there, each looked up once.
        let mut fields: Vec<(&'a Node<ast::Field>, &'a ObjectType, &'a FieldDefinition)> =
            Vec::with_capacity(sets.iter().map(|s| s.len()).sum());
        let mut todo: Vec<(&'a [Selection], usize, &'a ObjectType)> =
            sets.iter().map(|s| (*s, 0, &**obj)).collect();
        while let Some((sels, d, parent)) = todo.pop() {
            if d > MAX_DEPTH {
                return false;
            }
            for sel in sels {
                match sel {
                    Selection::Field(f) => {
                        // An unknown field is not in the executable document.
                        if let Some(def) = parent.fields.get(&f.name) {
                            fields.push((f, parent, &**def));
                        }
                    }
                    Selection::FragmentSpread(s) => match self.fragments.get(&s.fragment_name) {
                        Some(frag) => match types.get(frag.type_condition.as_str()) {
                            Some(ExtendedType::Object(on)) => {
                                todo.push((&frag.selection_set, d + 1, &**on))
                            }
                            _ => return false,
                        },
                        None => return false,
                    },
                    Selection::InlineFragment(_) => return false,
                }
            }
        }
        let key = |f: &'a ast::Field| f.alias.as_ref().unwrap_or(&f.name).as_str();
        // The fields by response name, each group in the order of selection: every group
        // must merge, in any order (nothing is said here). Sorted by a hash of the name, with
        // the names compared only within a run of one hash (by name where two names share one).
        let mut order: Vec<(u64, u32)> = fields
            .iter()
            .enumerate()
            .map(|(i, (f, _, _))| (fingerprint(key(f)), i as u32))
            .collect();
        order.sort_unstable();
        let same_hash_other_name = order.windows(2).any(|w| {
            w[0].0 == w[1].0 && key(fields[w[0].1 as usize].0) != key(fields[w[1].1 as usize].0)
        });
        if same_hash_other_name {
            order.sort_unstable_by(|a, b| {
                key(fields[a.1 as usize].0)
                    .cmp(key(fields[b.1 as usize].0))
                    .then(a.1.cmp(&b.1))
            });
        }
        let mut rest = &order[..];
        while let Some(&(_, first)) = rest.first() {
            let (f, on, def) = fields[first as usize];
            let k = key(f);
            let len = rest
                .iter()
                .position(|&(_, g)| key(fields[g as usize].0) != k)
                .unwrap_or(rest.len());
            let (group, after) = rest.split_at(len);
            rest = after;
            let group = group.iter().map(|&(_, g)| fields[g as usize]);
            if group.clone().any(|(_, o, _)| !std::ptr::eq(o, on)) {
                // Fields of one response name on two object types need only the same shape:
                // shown here for leaves of one declared type, each the same field with the
                // same arguments.
                let want = &def.ty;
                if group.clone().any(|(g, _, gd)| {
                    !g.selection_set.is_empty()
                        || g.name != f.name
                        || !same_arguments(&g.arguments, &f.arguments)
                        || gd.ty != *want
                }) {
                    return false;
                }
                continue;
            }
            if len == 1 {
                // A plain selection below (no spread, each response name once, and so at every
                // depth) merges: `selections` saw each of its fields, within the depth bound.
                let plain = || {
                    self.unplain
                        .binary_search(&(&**f as *const ast::Field as usize))
                        .is_err()
                };
                if !f.selection_set.is_empty() && !plain() {
                    let sub = def.ty.inner_named_type().as_str();
                    if !self.merges(sub, &[&f.selection_set], depth + 1) {
                        return false;
                    }
                }
                continue;
            }
            if group
                .clone()
                .any(|(g, _, _)| g.name != f.name || !same_arguments(&g.arguments, &f.arguments))
            {
                return false;
            }
            if !f.selection_set.is_empty() {
                let sub = def.ty.inner_named_type().as_str();
                let subs: Vec<&'a [Selection]> =
                    group.map(|(g, _, _)| &g.selection_set[..]).collect();
                if !self.merges(sub, &subs, depth + 1) {
                    return false;
                }
            }
        }
        true
    }
}

/// A 64-bit hash of a response name (FxHash's step): equal names, equal hashes.
fn fingerprint(name: &str) -> u64 {
    name.bytes().fold(name.len() as u64, |h, b| {
        (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95)
    })
}

/// The same arguments in the same order with equal values (stricter than the rule, which
/// compares them as sets: a reordering is left to apollo-compiler).
fn same_arguments(a: &[Node<ast::Argument>], b: &[Node<ast::Argument>]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.name == y.name && *x.value == *y.value)
}

/// apollo-compiler's `is_variable_usage_allowed` (the spec's IsVariableUsageAllowed).
fn usage_allowed(def: &ast::VariableDefinition, location: &Type, location_default: bool) -> bool {
    if location.is_non_null() && !def.ty.is_non_null() {
        if def.default_value.is_none() && !location_default {
            return false;
        }
        return def.ty.is_assignable_to(&location.clone().nullable());
    }
    def.ty.is_assignable_to(location)
}

/// A value's kind in apollo-compiler's words (`Value::describe`).
fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Enum(_) => "an enum",
        Value::Variable(_) => "a variable",
        Value::String(_) => "a string",
        Value::Float(_) => "a float",
        Value::Int(_) => "an integer",
        Value::Boolean(_) => "a boolean",
        Value::List(_) => "a list",
        Value::Object(_) => "an input object",
    }
}

/// Whether a variable occurs in `v` (a default value must be constant).
fn has_variable(v: &Value) -> bool {
    match v {
        Value::Variable(_) => true,
        Value::List(items) => items.iter().any(|i| has_variable(i)),
        Value::Object(fields) => fields.iter().any(|(_, f)| has_variable(f)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphql::check::parse;
    use crate::graphql::embedded_schema;
    use apollo_compiler::diagnostic::ToCliReport;

    /// The fixture documents of every release (`tests/fixtures/graphql/<version>/`), each with
    /// variants: every name with `x` appended, every string literal written as an integer and
    /// every integer as a string or out of `Int`'s range. Wherever the quick proof says valid,
    /// apollo-compiler must find nothing; and it must say valid for some of them.
    #[test]
    fn valid_only_where_apollo_finds_nothing() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/graphql");
        let (mut shown, mut asked, mut said_some) = (0, 0, 0);
        // Every variant of `text` the proof shows valid, apollo-compiler finds nothing in.
        let mut try_all = |version: &str, what: &str, text: &str| {
            let nb = embedded_schema(version).unwrap();
            for variant in variants(text) {
                let Ok(doc) = parse(&variant) else { continue };
                asked += 1;
                if certainly_valid(&doc, &nb) {
                    shown += 1;
                    let apollo = doc.to_executable_validate(&nb.schema);
                    assert!(
                        apollo.is_ok(),
                        "{version}/{what}: shown valid, apollo-compiler: {:?}\n{variant}",
                        apollo.err().map(|e| e.errors.to_string())
                    );
                } else if let Some(said) = diagnose(&doc, &nb) {
                    said_some += 1;
                    assert_eq!(said, apollo_said(&doc, &nb), "{version}/{what}\n{variant}");
                }
            }
        };
        for dir in std::fs::read_dir(&root).unwrap().flatten() {
            let version = dir.file_name().to_string_lossy().to_string();
            if embedded_schema(&version).is_none() {
                continue;
            }
            for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                let text = std::fs::read_to_string(file.path()).unwrap();
                try_all(&version, &format!("{:?}", file.file_name()), &text);
            }
        }
        // Realistic documents: the bench's (4.6.8, one per line) and four generated ones (4.7.3).
        let benches = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/graphql-docs");
        let one_per_line = std::fs::read_to_string(benches.join("documents.txt")).unwrap();
        let generated = std::fs::read_to_string(benches.join("generated-4.7.3.graphql")).unwrap();
        let realistic = one_per_line.lines().map(|d| ("4.6.8", d)).chain(
            // Each document after its `# --- name` line.
            generated
                .split("# ---")
                .map(|d| ("4.7.3", d.split_once('\n').map_or("", |(_, doc)| doc))),
        );
        for (version, text) in realistic {
            try_all(version, "a realistic document", text);
        }
        assert!(
            asked > 1_500 && shown > 40 && said_some > 300,
            "asked {asked}, shown valid {shown}, diagnosed {said_some}"
        );
    }

    /// apollo-compiler's diagnostics of `doc` as [`Said`]s (every one has a location).
    fn apollo_said(doc: &ast::Document, nb: &NetboxSchema) -> Vec<Said> {
        let Err(with) = doc.to_executable_validate(&nb.schema) else {
            return Vec::new();
        };
        with.errors
            .iter()
            .map(|d| Said {
                range: span(d.error.location()).expect("a location"),
                name: d.error.unstable_error_name().expect("a name"),
                message: d.error.to_string(),
            })
            .collect()
    }

    /// The bench's mistakes (`benches/gen_graphql.py`), each diagnosed as apollo-compiler
    /// does: a misspelled field, filter and enum value, a string for a lookup, an undefined
    /// and an unused variable, an unknown argument.
    #[test]
    fn plain_mistakes_diagnosed_as_apollo_does() {
        let nb = embedded_schema("4.7.3").expect("embedded 4.7.3 schema");
        for bad in [
            "query Q($limit: Int = 5) { device_list(pagination: {limit: $limit}) { id nmae ...D } } fragment D on DeviceType { id serila }",
            "query Q { device_list(filters: {site_name: {exact: \"a\"}, name: \"x\", status: {exact: status_active}}) { id } }",
            "query Q($ofset: Int = 0) { device_list(pagination: {offset: $offset}) { id } }",
            "query Q { device_list(filter: {name: {exact: \"a\"}}, limit: 5) { id } }",
            "query Q { device_list(filters: {name: [\"a\"], id: {exact: true}}) { id } }",
            "query Q { device_list { id serial ...S } } fragment S on SiteType { id slug serial }",
        ] {
            let doc = parse(bad).unwrap();
            let said = diagnose(&doc, &nb).unwrap_or_else(|| panic!("not diagnosed: {bad}"));
            assert!(!said.is_empty(), "{bad}");
            assert_eq!(said, apollo_said(&doc, &nb), "{bad}");
        }
    }

    fn variants(text: &str) -> Vec<String> {
        let mut out = vec![text.to_string()];
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c == b'#' {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            } else if c == b'"' {
                let end = text[i + 1..].find('"').map_or(b.len(), |e| i + 2 + e);
                out.push(format!("{}7{}", &text[..i], &text[end.min(b.len())..]));
                i = end;
                continue;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(format!("{}x{}", &text[..i], &text[i..]));
                let _ = start;
                continue;
            } else if c.is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push(format!(
                    "{}\"{}\"{}",
                    &text[..start],
                    &text[start..i],
                    &text[i..]
                ));
                out.push(format!("{}99999999999{}", &text[..start], &text[i..]));
                continue;
            }
            i += 1;
        }
        out
    }

    /// Mistakes apollo-compiler reports that a look at names alone would miss: each refused by
    /// apollo-compiler and never shown valid; their valid twin is shown valid.
    #[test]
    fn mistakes_apollo_reports_are_never_shown_valid() {
        let nb = embedded_schema("4.7.3").expect("embedded 4.7.3 schema");
        let ok = "query Q($n: String, $limit: Int = 5) { device_list(filters: {name: {exact: $n}}, pagination: {limit: $limit}) { id name ...D site { id slug } } } fragment D on DeviceType { id serial }";
        let doc = parse(ok).unwrap();
        assert!(doc.to_executable_validate(&nb.schema).is_ok());
        assert!(certainly_valid(&doc, &nb), "valid twin");
        for bad in [
            // unused variable
            "query Q($n: String, $m: Int) { device_list(filters: {name: {exact: $n}}) { id } }",
            // unused fragment
            "query Q { device_list { id } } fragment D on DeviceType { id }",
            // a variable of another type
            "query Q($n: Int) { device_list(filters: {name: {exact: $n}}) { id } }",
            // a nullable variable where a non-null one is wanted
            "query Q($i: ID) { device(id: $i) { id } }",
            // a required argument left out
            "query Q { device { id } }",
            // an argument given twice
            "query Q { device(id: 1, id: 2) { id } }",
            // a fragment spread on another type
            "query Q { device_list { id ...S } } fragment S on SiteType { id }",
            // an integer out of Int's range
            "query Q { device_list(pagination: {limit: 99999999999}) { id } }",
            // a selection under a scalar; an object without one
            "query Q { device_list { id { x } } }",
            "query Q { device_list { id site } }",
            // one response name for two fields, and for one field with other arguments
            "query Q { device_list { id: name id } }",
            // the same two levels down, and inside a fragment's selection
            "query Q { device_list { site { tenant { id: name id } } } }",
            "query Q { device_list { id ...D } } fragment D on DeviceType { site { id: slug id } }",
            "query Q { device_list { site { id } ...D } } fragment D on DeviceType { site { id: slug } }",
            "query Q { device_list { interfaces(filters: {name: {exact: \"a\"}}) { id } interfaces { id } } }",
            // an undefined variable; a string for a boolean
            "query Q { device_list(filters: {name: {exact: $n}}) { id } }",
            "query Q { device_list(filters: {name: {is_null: \"yes\"}}) { id } }",
        ] {
            let doc = parse(bad).unwrap();
            assert!(doc.to_executable_validate(&nb.schema).is_err(), "{bad}");
            assert!(!certainly_valid(&doc, &nb), "{bad}");
        }
    }
}
