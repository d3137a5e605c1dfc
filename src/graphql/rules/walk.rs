//! The walk: selections against their object types, arguments and input values against their
//! declared types. It calls each rule family where its input appears and records every
//! unknown name with its candidates and fixes (for `check`'s "did you mean").

use super::lookups::{literal_fits, wrapped};
use super::{kind_words, span, vr_end, Ctx, RawFix, Unknown, Walk};
use crate::graphql::suggest::did_you_mean;
use crate::graphql::NetboxSchema;
use apollo_compiler::ast::{self, Selection, Type, Value};
use apollo_compiler::schema::{ExtendedType, InputObjectType};
use apollo_compiler::{Name, Node};
use std::collections::HashMap;
use std::ops::Range;

/// Runs every NetBox rule over `doc` (already free of syntax errors).
pub fn walk(doc: &ast::Document, nb: &NetboxSchema, text: &str) -> Walk {
    let mut cx = Ctx {
        nb,
        text,
        out: Walk::default(),
        vars: HashMap::new(),
    };
    let query_root = nb.schema.root_operation(ast::OperationType::Query).cloned();
    for def in &doc.definitions {
        match def {
            ast::Definition::OperationDefinition(op) => {
                if op.operation_type != ast::OperationType::Query {
                    cx.operation(op);
                    continue;
                }
                cx.vars = op
                    .variables
                    .iter()
                    .map(|v| (v.name.clone(), v.ty.clone()))
                    .collect();
                if let Some(root) = &query_root {
                    cx.selections(root.as_str(), &op.selection_set, true);
                }
            }
            ast::Definition::FragmentDefinition(f) => {
                cx.vars.clear();
                cx.selections(f.type_condition.as_str(), &f.selection_set, false);
            }
            _ => {}
        }
    }
    cx.aliases(doc);
    cx.out
}

impl Ctx<'_> {
    fn selections(&mut self, parent: &str, set: &[Selection], root: bool) {
        // The parent type looked up once for all its fields.
        let nb = self.nb;
        let parent_ty = nb.type_named(parent);
        for sel in set {
            match sel {
                Selection::Field(f) => self.field(parent, parent_ty, f, root),
                Selection::InlineFragment(i) => {
                    let ty = i
                        .type_condition
                        .as_ref()
                        .map(|t| t.as_str().to_string())
                        .unwrap_or_else(|| parent.to_string());
                    if self.nb.schema.types.contains_key(ty.as_str()) {
                        self.selections(&ty, &i.selection_set, root);
                    }
                }
                Selection::FragmentSpread(_) => {}
            }
        }
    }

    /// Field `f` selected on `parent` (`parent_ty`: its definition, when the schema has it).
    fn field(
        &mut self,
        parent: &str,
        parent_ty: Option<&ExtendedType>,
        f: &Node<ast::Field>,
        root: bool,
    ) {
        let schema = &self.nb.schema;
        // `Schema::type_field`'s answer: the type's own field, else (meta fields, errors)
        // asked of it.
        let own = match parent_ty {
            Some(ExtendedType::Object(o)) => o.fields.get(f.name.as_str()),
            Some(ExtendedType::Interface(i)) => i.fields.get(f.name.as_str()),
            _ => None,
        };
        let Some(def) = own.map_or_else(|| schema.type_field(parent, f.name.as_str()).ok(), Some)
        else {
            if root && self.plugin_field(parent, f) {
                return;
            }
            if let Some(r) = span(f.name.location()) {
                self.unknown_field(parent, f, r, root);
            }
            return;
        };
        let def = def.clone();
        if let Some(r) = span(f.name.location()) {
            self.announced(parent, f.name.as_str(), r, &def.directives);
        }
        let has = |n: &str| def.arguments.iter().any(|a| a.name == n);
        let mut legacy_pagination: Vec<&Node<ast::Argument>> = Vec::new();
        // The list's filter input, where a misplaced filter argument belongs.
        let fobj = def
            .arguments
            .iter()
            .find(|a| a.name == "filters")
            .and_then(|a| self.nb.input_object(a.ty.inner_named_type()))
            .cloned();
        let mut misplaced = Vec::new();
        for (k, arg) in f.arguments.iter().enumerate() {
            let name = arg.name.as_str();
            if let Some(adef) = def.arguments.iter().find(|a| a.name == arg.name) {
                let in_filter = name == "filters";
                let ty = adef.ty.clone();
                if name == "pagination" {
                    self.pagination(arg);
                }
                self.value(&arg.value, &ty, in_filter, None);
            } else if name == "filter" && has("filters") {
                self.filter_argument(arg, &f.name);
            } else if (name == "limit" || name == "offset") && has("pagination") {
                legacy_pagination.push(arg);
            } else if fobj.as_ref().is_some_and(|o| o.fields.contains_key(name)) {
                misplaced.push(k);
            } else if let Some(r) = span(arg.name.location()) {
                let candidates = did_you_mean(name, def.arguments.iter().map(|a| a.name.as_str()));
                self.unknown(r, Some(&arg.value), false, candidates, |c| {
                    def.arguments
                        .iter()
                        .find(|a| a.name == c)
                        .map(|a| (*a.ty).clone())
                });
            }
        }
        if let (false, Some(o)) = (misplaced.is_empty(), &fobj) {
            self.misplaced_filters(f, o, &misplaced);
        }
        if !legacy_pagination.is_empty() {
            self.legacy_pagination(
                &legacy_pagination,
                f,
                has("pagination") && f.arguments.iter().any(|a| a.name == "pagination"),
            );
        } else if root && has("pagination") && def.ty.is_list() {
            self.unpaginated(f);
        }
        let inner = def.ty.inner_named_type().clone();
        if !f.selection_set.is_empty() {
            self.selections(inner.as_str(), &f.selection_set, false);
        }
    }

    /// Walks an input value against its declared type. `in_filter`: inside a `filters:`
    /// argument, where NetBox-specific value rules apply. `field`: the input field holding this
    /// value, with the enclosing input object (for sibling lookups).
    fn value(
        &mut self,
        v: &Node<Value>,
        ty: &Type,
        in_filter: bool,
        field: Option<(&Name, &InputObjectType, Range<usize>)>,
    ) {
        let schema = &self.nb.schema;
        let named = ty.inner_named_type().as_str();
        let Some(vr) = span(v.location()) else {
            return;
        };
        if in_filter {
            if let Some(fld) = &field {
                if self.filter_rules(v, &vr, ty, fld) {
                    return;
                }
            }
        }
        match v.as_ref() {
            Value::List(items) => {
                self.list_form_hint(&vr, v, ty);
                let item_ty = if ty.is_list() {
                    ty.item_type().clone()
                } else {
                    ty.clone()
                };
                for item in items {
                    self.value(item, &item_ty, in_filter, None);
                }
            }
            Value::Object(fields) => {
                if ty.is_list() {
                    self.list_form_hint(&vr, v, ty);
                }
                let Some(obj) = self.nb.input_object(named).cloned() else {
                    return;
                };
                if fields.iter().any(|(n, _)| !obj.fields.contains_key(n))
                    && self.wrapper_form(&obj, named, fields, &vr, field.as_ref().map(|f| f.0))
                {
                    return;
                }
                self.input_object(&obj, named, fields, &vr, field.as_ref().map(|f| f.0));
                for (name, fv) in fields {
                    match obj.fields.get(name) {
                        Some(fdef) => {
                            if let Some(r) = span(name.location()) {
                                self.announced(named, name.as_str(), r, &fdef.directives);
                            }
                            let fty = fdef.ty.clone();
                            let whole = span(name.location())
                                .map(|n| n.start..vr_end(fv, n.end))
                                .unwrap_or(vr.clone());
                            self.value(fv, &fty, in_filter, Some((name, &obj, whole)));
                        }
                        None => {
                            if let Some(r) = span(name.location()) {
                                let candidates = did_you_mean(
                                    name.as_str(),
                                    obj.fields.keys().map(|k| k.as_str()),
                                );
                                self.unknown(r, Some(fv), true, candidates, |c| {
                                    obj.fields.get(c).map(|f| (*f.ty).clone())
                                });
                                self.owned_by(named);
                            }
                        }
                    }
                }
            }
            Value::Enum(e) => {
                if let Some(en) = schema.get_enum(named) {
                    if !en.values.contains_key(e.as_str()) {
                        let candidates =
                            did_you_mean(e.as_str(), en.values.keys().map(|k| k.as_str()));
                        self.unknown(vr, None, false, candidates, |_| None);
                    }
                } else if let Some(obj) = self.nb.input_object(named).cloned() {
                    self.wrap_hint(&vr, v, &obj);
                }
            }
            Value::String(_) | Value::Int(_) | Value::Float(_) | Value::Boolean(_) => {
                if let Some(obj) = self.nb.input_object(named).cloned() {
                    self.wrap_hint(&vr, v, &obj);
                }
            }
            _ => {}
        }
    }

    /// Sets the type the last recorded unknown name was looked up on.
    pub(super) fn owned_by(&mut self, owner: &str) {
        if let Some(u) = self.out.unknowns.last_mut() {
            u.owner = Some(owner.to_string());
        }
    }

    /// Records an unknown name with its candidates and, for an argument or input field
    /// (`value` given), one fix per candidate whose type (`type_of`) can take the value.
    /// `at_value`: apollo-compiler reports this name at its value's span (input fields).
    fn unknown(
        &mut self,
        range: Range<usize>,
        value: Option<&Node<Value>>,
        at_value: bool,
        candidates: Vec<String>,
        type_of: impl Fn(&str) -> Option<Type>,
    ) {
        let schema = &self.nb.schema;
        let value_range = value.and_then(|v| span(v.location()));
        let mut fixes = Vec::new();
        let mut types = Vec::new();
        for c in &candidates {
            let rename = (range.clone(), c.clone());
            let ty = type_of(c);
            types.push(ty.as_ref().map(|t| t.to_string()).unwrap_or_default());
            let fix = match (value, &value_range, &ty) {
                (Some(v), Some(vr), Some(t)) => {
                    if literal_fits(schema, t, v) {
                        Some(vec![rename])
                    } else {
                        schema
                            .get_input_object(t.inner_named_type())
                            .filter(|_| !t.is_list())
                            .and_then(|o| wrapped(schema, o, v, self.src(vr)))
                            .or_else(|| self.related_form(t, v))
                            .map(|w| vec![rename, (vr.clone(), w)])
                    }
                }
                _ => Some(vec![rename]),
            };
            fixes.push(fix.map(|edits| RawFix {
                title: match edits.as_slice() {
                    [_, (_, w)] => format!("Replace with `{c}: {w}`"),
                    _ => format!("Replace with `{c}`"),
                },
                edits,
                certain: false,
            }));
        }
        let forms_note = match (value.map(|v| v.as_ref()), candidates.first()) {
            (Some(Value::String(s)), Some(c)) => self.forms_note(c, s, type_of(c)),
            _ => None,
        };
        self.out.unknowns.push(Unknown {
            range,
            // apollo-compiler reports an unknown input field at its value, an unknown argument
            // at the whole argument (which holds the name).
            value_range: value_range.clone().filter(|_| at_value),
            candidates,
            value_span: value_range,
            fixes,
            types,
            value_kind: value.map(|v| kind_words(v)),
            field: None,
            note: None,
            forms_note,
            owner: None,
        });
    }

    /// The forms a string `s` takes on candidate `c` of type `t` when `t` is a related
    /// object's filter matched by name or by slug: "Did you mean `tags`? It takes a `TagFilter`
    /// object: write `tags: {name: {exact: \"Gateway\"}}` to match its name, or ...".
    fn forms_note(&self, c: &str, s: &str, t: Option<Type>) -> Option<String> {
        let t = t?;
        let named = t.inner_named_type().as_str();
        let obj = self.related_filter(named)?.clone();
        let strings = vec![s.to_string()];
        let forms: Vec<String> = ["name", "slug"]
            .into_iter()
            .filter_map(|k| {
                let f = self.key_form(&obj, k, &strings, false)?;
                Some(format!("`{c}: {f}` to match its {k}"))
            })
            .collect();
        (forms.len() >= 2).then(|| {
            format!(
                ". Did you mean `{c}`? It takes a `{named}` object (a filter of the related object), not a string: write {}.",
                forms.join(", or ")
            )
        })
    }

    /// A string for a related object's filter `t` written as that filter matching it by the
    /// key its form decides (`tag: "evpn-fabric"` → `tags: {slug: {exact: "evpn-fabric"}}`), so
    /// a "did you mean" rename keeps the value; `None` when the form decides nothing.
    fn related_form(&self, t: &Type, v: &Value) -> Option<String> {
        let Value::String(s) = v else { return None };
        let obj = self.related_filter(t.inner_named_type())?.clone();
        let strings = vec![s.to_string()];
        let keys: Vec<&str> = ["name", "slug"]
            .into_iter()
            .filter(|k| obj.fields.contains_key(*k))
            .collect();
        let k = match keys.as_slice() {
            [one] => *one,
            _ => super::related::key_by_shape(&strings)?,
        };
        self.key_form(&obj, k, &strings, false)
    }

    /// The NetBox value rules for one input field inside `filters:`. Returns true when a rule
    /// fired and the value should not be walked further.
    fn filter_rules(
        &mut self,
        v: &Node<Value>,
        vr: &Range<usize>,
        ty: &Type,
        (fname, parent, whole): &(&Name, &InputObjectType, Range<usize>),
    ) -> bool {
        let schema = &self.nb.schema;
        let named = ty.inner_named_type().as_str();
        let declared = self.nb.type_named(named);
        let lookup = self.nb.input_object(named);
        let is_id_scalar = named == "ID" && !ty.is_list();
        let id_lookup = lookup.filter(|o| {
            o.fields
                .get("exact")
                .is_some_and(|e| e.ty.inner_named_type() == "ID")
        });
        let enum_lookup = lookup.and_then(|o| {
            o.fields
                .get("exact")
                .map(|e| e.ty.inner_named_type().clone())
                .filter(|n| schema.get_enum(n).is_some())
        });
        match v.as_ref() {
            // A null member of a `@oneOf` input is refused, not skipped (`input_object`).
            Value::Null if parent.directives.has("oneOf") => true,
            Value::Null => {
                self.null_filter(vr, fname, parent, lookup.cloned().as_deref());
                true
            }
            Value::List(_) | Value::Object(_) if is_id_scalar => {
                self.id_bare_wanted(v, vr, fname, whole);
                true
            }
            Value::Int(_) | Value::String(_) | Value::Variable(_) | Value::List(_)
                if id_lookup.is_some() && !self.is_object_variable(v) =>
            {
                let lookup_name = named.to_string();
                self.id_lookup_wanted(v, vr, fname, &lookup_name);
                true
            }
            // A choice value as a number (`family: 4`) or a label is an enum member too.
            Value::Enum(_) | Value::String(_) | Value::Int(_) | Value::List(_)
                if enum_lookup.is_some() =>
            {
                let en = enum_lookup.unwrap_or_else(|| Name::new_unchecked("String"));
                self.choice_lookup_wanted(v, vr, fname, named, en.as_str());
                true
            }
            Value::String(_) | Value::Object(_) | Value::Int(_)
                if matches!(declared, Some(ExtendedType::Enum(_))) && !ty.is_list() =>
            {
                let lookup_of = parent.name.as_str().ends_with("FilterLookup");
                self.choice_enum_wanted(v, vr, fname, named, lookup_of)
            }
            Value::String(_) | Value::List(_) if self.related_filter(named).is_some() => {
                self.related_object_wanted(v, vr, fname, named)
            }
            Value::String(s) if self.object_type_filter(named) => {
                let s = s.to_string();
                self.object_type_wanted(&s, vr, fname, named)
            }
            _ => false,
        }
    }

    fn is_object_variable(&self, v: &Value) -> bool {
        match v {
            Value::Variable(n) => self.vars.get(n).is_some_and(|t| {
                self.nb
                    .schema
                    .get_input_object(t.inner_named_type())
                    .is_some()
            }),
            _ => false,
        }
    }
}
