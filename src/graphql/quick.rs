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
use apollo_compiler::ast::{self, Definition, Selection, Type, Value};
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::{Name, Node};
use std::collections::HashMap;

/// Deepest selection nesting (fields and fragment spreads) looked at; apollo-compiler's own
/// walks stop at 32 with a recursion diagnostic, so deeper documents are left to it.
const MAX_DEPTH: usize = 24;

/// True when apollo-compiler's `to_executable_validate` of `doc` against `nb` is certain to
/// return no diagnostic. `false` means "not shown", not "invalid".
pub fn certainly_valid(doc: &ast::Document, nb: &NetboxSchema) -> bool {
    let schema = &nb.schema;
    let mut op = None;
    let mut fragments: HashMap<&Name, &Node<ast::FragmentDefinition>> = HashMap::new();
    for def in &doc.definitions {
        match def {
            Definition::OperationDefinition(o) if op.is_none() => op = Some(o),
            Definition::FragmentDefinition(f) => {
                if fragments.insert(&f.name, f).is_some() {
                    return false;
                }
            }
            _ => return false,
        }
    }
    let Some(op) = op else { return false };
    if op.operation_type != ast::OperationType::Query || !op.directives.is_empty() {
        return false;
    }
    let Some(root) = schema.schema_definition.query.as_ref() else {
        return false;
    };
    let mut vars: HashMap<&Name, (&Node<ast::VariableDefinition>, bool)> = HashMap::new();
    for v in &op.variables {
        if !v.directives.is_empty() || vars.insert(&v.name, (v, false)).is_some() {
            return false;
        }
        if !matches!(
            schema.types.get(v.ty.inner_named_type()),
            Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_) | ExtendedType::InputObject(_))
        ) {
            return false;
        }
    }
    let mut q = Quick {
        nb,
        fragments,
        vars,
        used_fragments: Vec::new(),
        stack: Vec::new(),
    };
    // Default values are checked as apollo-compiler does: against the type, no variables.
    for v in &op.variables {
        if let Some(d) = &v.default_value {
            if has_variable(d) || !q.value_ok(&v.ty, d, false) {
                return false;
            }
        }
    }
    if !q.selections(root.name.as_str(), &op.selection_set, 0) {
        return false;
    }
    if !q.merges(root.name.as_str(), &[&op.selection_set], 0) {
        return false;
    }
    // Every fragment used, every variable used.
    q.fragments
        .keys()
        .all(|name| q.used_fragments.contains(name))
        && q.vars.values().all(|(_, used)| *used)
}

struct Quick<'a> {
    nb: &'a NetboxSchema,
    fragments: HashMap<&'a Name, &'a Node<ast::FragmentDefinition>>,
    vars: HashMap<&'a Name, (&'a Node<ast::VariableDefinition>, bool)>,
    used_fragments: Vec<&'a Name>,
    /// Fragments being expanded (a spread of one of them is a cycle: left to apollo-compiler).
    stack: Vec<&'a Name>,
}

impl<'a> Quick<'a> {
    /// The selection set `sels` on object type `ty`: every field known with valid arguments,
    /// leaves without and objects with a selection, spreads of fragments on `ty` itself.
    fn selections(&mut self, ty: &str, sels: &'a [Selection], depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let Some(ExtendedType::Object(obj)) = self.nb.schema.types.get(ty) else {
            return false;
        };
        for sel in sels {
            match sel {
                Selection::Field(f) => {
                    if !f.directives.is_empty() {
                        return false;
                    }
                    let Some(def) = obj.fields.get(&f.name) else {
                        return false;
                    };
                    if !self.arguments(&def.arguments, &f.arguments) {
                        return false;
                    }
                    let inner = def.ty.inner_named_type();
                    match self.nb.schema.types.get(inner) {
                        Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_)) => {
                            if !f.selection_set.is_empty() {
                                return false;
                            }
                        }
                        Some(ExtendedType::Object(_)) => {
                            if f.selection_set.is_empty()
                                || !self.selections(inner.as_str(), &f.selection_set, depth + 1)
                            {
                                return false;
                            }
                        }
                        _ => return false,
                    }
                }
                Selection::FragmentSpread(s) => {
                    if !s.directives.is_empty() {
                        return false;
                    }
                    let Some(frag) = self.fragments.get(&s.fragment_name).copied() else {
                        return false;
                    };
                    if frag.type_condition.as_str() != ty || !frag.directives.is_empty() {
                        return false;
                    }
                    if self.stack.contains(&&frag.name) {
                        return false;
                    }
                    if self.used_fragments.contains(&&frag.name) {
                        // Already shown valid on this very type.
                        continue;
                    }
                    self.used_fragments.push(&frag.name);
                    self.stack.push(&frag.name);
                    let ok = self.selections(ty, &frag.selection_set, depth + 1);
                    self.stack.pop();
                    if !ok {
                        return false;
                    }
                }
                Selection::InlineFragment(_) => return false,
            }
        }
        true
    }

    /// Arguments of a field: each known and given once, each required one given, each value of
    /// its type.
    fn arguments(
        &mut self,
        defs: &'a [Node<ast::InputValueDefinition>],
        args: &'a [Node<ast::Argument>],
    ) -> bool {
        for (i, a) in args.iter().enumerate() {
            if args[..i].iter().any(|b| b.name == a.name) {
                return false;
            }
            let Some(def) = defs.iter().find(|d| d.name == a.name) else {
                return false;
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

    /// Whether `value` fits `ty` as apollo-compiler 1.33 judges it (`value_of_correct_type`
    /// and, for a variable, `is_variable_usage_allowed`). `location_default`: the argument or
    /// input field has a default value.
    fn value_ok(&mut self, ty: &'a Type, value: &'a Node<Value>, location_default: bool) -> bool {
        let Some(td) = self.nb.schema.types.get(ty.inner_named_type()) else {
            return false;
        };
        let custom = matches!(td, ExtendedType::Scalar(s) if !s.is_built_in());
        let builtin =
            |name: &str| matches!(td, ExtendedType::Scalar(s) if s.is_built_in() && s.name == name);
        match &**value {
            Value::Variable(name) => {
                let Some((def, used)) = self.vars.get_mut(name) else {
                    return false;
                };
                *used = true;
                def.ty.inner_named_type() == ty.inner_named_type()
                    && usage_allowed(def, ty, location_default)
            }
            Value::Null => !ty.is_non_null(),
            Value::Int(i) => {
                custom
                    || builtin("ID")
                    || (builtin("Int") && i.try_to_i32().is_ok())
                    || (builtin("Float") && i.try_to_f64().is_ok())
            }
            Value::Float(f) => custom || (builtin("Float") && f.try_to_f64().is_ok()),
            Value::String(_) => custom || builtin("String") || builtin("ID"),
            Value::Boolean(_) => custom || builtin("Boolean"),
            Value::Enum(v) => {
                custom || matches!(td, ExtendedType::Enum(e) if e.values.contains_key(v))
            }
            Value::List(items) => {
                if !(ty.is_list() || custom) || !td.is_input_type() {
                    return false;
                }
                let item = ty.item_type();
                items.iter().all(|v| self.value_ok(item, v, false))
            }
            Value::Object(fields) => {
                // A custom scalar takes any object, unchecked: its variables are left to
                // apollo-compiler.
                let ExtendedType::InputObject(io) = td else {
                    return false;
                };
                for (i, (name, v)) in fields.iter().enumerate() {
                    if fields[..i].iter().any(|(n, _)| n == name) {
                        return false;
                    }
                    let Some(def) = io.fields.get(name) else {
                        return false;
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
        let mut fields: Vec<&'a Node<ast::Field>> = Vec::new();
        let mut todo: Vec<(&'a [Selection], usize)> = sets.iter().map(|s| (*s, 0)).collect();
        while let Some((sels, d)) = todo.pop() {
            if d > MAX_DEPTH {
                return false;
            }
            for sel in sels {
                match sel {
                    Selection::Field(f) => fields.push(f),
                    Selection::FragmentSpread(s) => match self.fragments.get(&s.fragment_name) {
                        Some(frag) => todo.push((&frag.selection_set, d + 1)),
                        None => return false,
                    },
                    Selection::InlineFragment(_) => return false,
                }
            }
        }
        let Some(ExtendedType::Object(obj)) = self.nb.schema.types.get(ty) else {
            return false;
        };
        let key = |f: &'a ast::Field| f.alias.as_ref().unwrap_or(&f.name).as_str();
        for (i, f) in fields.iter().enumerate() {
            let k = key(f);
            // The first field of each response name speaks for its group.
            if fields[..i].iter().any(|g| key(g) == k) {
                continue;
            }
            if !fields[i + 1..].iter().any(|g| key(g) == k) {
                if !f.selection_set.is_empty() {
                    let Some(def) = obj.fields.get(&f.name) else {
                        return false;
                    };
                    let sub = def.ty.inner_named_type().as_str();
                    if !self.merges(sub, &[&f.selection_set], depth + 1) {
                        return false;
                    }
                }
                continue;
            }
            let group: Vec<&Node<ast::Field>> = fields[i..]
                .iter()
                .copied()
                .filter(|g| key(g) == k)
                .collect();
            if group
                .iter()
                .any(|g| g.name != f.name || !same_arguments(&g.arguments, &f.arguments))
            {
                return false;
            }
            if !f.selection_set.is_empty() {
                let Some(def) = obj.fields.get(&f.name) else {
                    return false;
                };
                let sub = def.ty.inner_named_type().as_str();
                let subs: Vec<&'a [Selection]> =
                    group.iter().map(|g| &g.selection_set[..]).collect();
                if !self.merges(sub, &subs, depth + 1) {
                    return false;
                }
            }
        }
        true
    }
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

    /// The fixture documents of every release (`tests/fixtures/graphql/<version>/`), each with
    /// variants: every name with `x` appended, every string literal written as an integer and
    /// every integer as a string or out of `Int`'s range. Wherever the quick proof says valid,
    /// apollo-compiler must find nothing; and it must say valid for some of them.
    #[test]
    fn valid_only_where_apollo_finds_nothing() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/graphql");
        let (mut shown, mut asked) = (0, 0);
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
            asked > 1_500 && shown > 40,
            "asked {asked}, shown valid {shown}"
        );
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
