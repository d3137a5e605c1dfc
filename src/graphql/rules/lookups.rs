//! Scalars and `@oneOf` wrappers where NetBox wants lookup objects: the `{exact: ..}` wrap
//! offered on apollo-compiler's "expected value of type" diagnostic, and `IntegerLookup`'s
//! `filter_lookup` / `range_lookup` / `comparison_lookup` members (`graphql-validation`).

use super::{span, Ctx, RawFinding, RawFix, WrapHint};
use crate::finding::Severity;
use crate::graphql::suggest::or_list;
use apollo_compiler::ast::{Type, Value};
use apollo_compiler::schema::{ExtendedType, InputObjectType};
use apollo_compiler::{Name, Node};
use std::ops::Range;

impl Ctx<'_> {
    /// A scalar where a lookup object (`{exact: ..}`) is expected: offer the wrap as a fix on
    /// apollo-compiler's "expected value of type" diagnostic.
    pub(super) fn wrap_hint(&mut self, vr: &Range<usize>, v: &Value, obj: &InputObjectType) {
        if let Some(new) = wrapped(&self.nb.schema, obj, v, self.src(vr)) {
            self.out.hints.push(WrapHint {
                range: vr.clone(),
                fix: RawFix {
                    title: format!("Use `{new}`"),
                    edits: vec![(vr.clone(), new)],
                    certain: true,
                },
                note: None,
            });
        }
    }

    /// A list where a lookup object with `in_list` is declared (`name: ["a", "b"]` for
    /// `StrFilterLookup`), and the reverse, a one-key lookup object where NetBox declares a
    /// plain list (`parent: {in_list: [...]}` or `{exact: x}` for `[String!]`, the 4.3–4.6
    /// `IPAddressFilter.parent`, `AggregateFilter.contains`): the other form with the same
    /// values, offered on apollo-compiler's "expected value of type" diagnostic (certain: a list
    /// filter matches any of its values, as `in_list` does).
    pub(super) fn list_form_hint(&mut self, vr: &Range<usize>, v: &Value, ty: &Type) {
        let schema = &self.nb.schema;
        let written = self.src(vr).to_string();
        let new = match v {
            Value::List(_) if !ty.is_list() => {
                let Some(obj) = schema.get_input_object(ty.inner_named_type()) else {
                    return;
                };
                let Some(il) = obj.fields.get("in_list") else {
                    return;
                };
                if !literal_fits(schema, &il.ty, v) {
                    return;
                }
                format!("{{in_list: {written}}}")
            }
            Value::Object(fields) if ty.is_list() && fields.len() == 1 => {
                let (name, inner) = &fields[0];
                let Some(ir) = span(inner.location()) else {
                    return;
                };
                let inner_text = self.src(&ir).to_string();
                match name.as_str() {
                    "in_list" if literal_fits(schema, ty, inner) => inner_text,
                    "exact" if literal_fits(schema, ty.item_type(), inner) => {
                        format!("[{inner_text}]")
                    }
                    _ => return,
                }
            }
            _ => return,
        };
        let note = if ty.is_list() {
            format!(". This filter takes a plain list (`{ty}`), not a lookup object: write `{new}`")
        } else {
            format!(
                ". Several values go in the lookup's `in_list` (`{}`): write `{new}`",
                ty.inner_named_type()
            )
        };
        self.out.hints.push(WrapHint {
            range: vr.clone(),
            fix: RawFix {
                title: format!("Use `{new}`"),
                edits: vec![(vr.clone(), new)],
                certain: true,
            },
            note: Some(note),
        });
    }

    /// An unknown key inside a `@oneOf` wrapper of lookup objects (`IntegerLookup` on every
    /// shipped version: `filter_lookup`, `range_lookup`, `comparison_lookup`): `vid: {gte: 100}`
    /// must be written `vid: {comparison_lookup: {gte: 100}}`. Returns false when `obj` is not
    /// such a wrapper.
    pub(super) fn wrapper_form(
        &mut self,
        obj: &InputObjectType,
        named: &str,
        fields: &[(Name, Node<Value>)],
        vr: &Range<usize>,
        fname: Option<&Name>,
    ) -> bool {
        let Some(members) = one_of_members(&self.nb.schema, obj) else {
            return false;
        };
        let Some(first_unknown) = fields
            .iter()
            .find(|(n, _)| !obj.fields.contains_key(n))
            .and_then(|(n, _)| span(n.location()))
        else {
            return false;
        };
        let written = self.src(vr).to_string();
        let holder = fname.map(|n| format!("{n}: ")).unwrap_or_default();
        let fit = members
            .iter()
            .find(|(_, m)| fields.iter().all(|(k, _)| m.fields.contains_key(k)));
        let mut fixes = Vec::new();
        let message = match fit {
            Some((member, _)) => {
                let new = format!("{{{member}: {written}}}");
                fixes.push(RawFix {
                    title: format!("Use `{new}`"),
                    edits: vec![(vr.clone(), new.clone())],
                    certain: true,
                });
                format!(
                    "`{named}` takes one of {} holding the lookups: write `{holder}{new}`",
                    or_list(
                        &members
                            .iter()
                            .map(|(m, _)| m.to_string())
                            .collect::<Vec<_>>()
                    )
                )
            }
            None => {
                let forms: Vec<String> = members
                    .iter()
                    .map(|(m, o)| {
                        let keys: Vec<&str> = o.fields.keys().take(6).map(|k| k.as_str()).collect();
                        let more = if o.fields.len() > 6 { ", ..." } else { "" };
                        format!("`{m}: {{{}{more}}}`", keys.join(", "))
                    })
                    .collect();
                format!(
                    "`{named}` takes one of {} holding the lookups; no single one has every key written here",
                    forms.join(", ")
                )
            }
        };
        self.push(RawFinding {
            range: first_unknown,
            code: "graphql-validation",
            severity: Severity::Error,
            message,
            fixes,
            claim: Some(vr.clone()),
            does: None,
        });
        true
    }
}

/// Whether a literal of `v`'s kind can stand where `ty` is declared (shallow: an object needs an
/// input object, a boolean `Boolean`, a string `String`/`ID`, ...). Variables and custom scalars
/// always fit; re-validation in `check` catches the rest.
pub fn literal_fits(schema: &apollo_compiler::Schema, ty: &Type, v: &Value) -> bool {
    let named = ty.inner_named_type().as_str();
    match v {
        Value::Variable(_) => true,
        Value::Null => !ty.is_non_null(),
        Value::List(items) => {
            ty.is_list()
                && items
                    .iter()
                    .all(|i| literal_fits(schema, ty.item_type(), i))
        }
        _ if ty.is_list() => literal_fits(schema, ty.item_type(), v),
        _ => {
            let custom = matches!(schema.types.get(named), Some(ExtendedType::Scalar(_)))
                && !matches!(named, "Int" | "Float" | "String" | "Boolean" | "ID");
            custom
                || match v {
                    Value::Object(_) => schema.get_input_object(named).is_some(),
                    Value::Boolean(_) => named == "Boolean",
                    Value::Int(_) => matches!(named, "Int" | "Float" | "ID"),
                    Value::Float(_) => named == "Float",
                    Value::String(_) => matches!(named, "String" | "ID"),
                    // A member the enum has: the form written with one it lacks (`ROLE_TCP`
                    // on 4.7) would fail again.
                    Value::Enum(e) => schema
                        .get_enum(named)
                        .is_some_and(|en| en.values.contains_key(e)),
                    _ => true,
                }
        }
    }
}

/// A scalar `text` wrapped into the lookup object `obj` when its `exact` can take it:
/// `{exact: "x"}`, or through a `@oneOf` wrapper `{filter_lookup: {exact: 100}}`.
pub(super) fn wrapped(
    schema: &apollo_compiler::Schema,
    obj: &InputObjectType,
    v: &Value,
    text: &str,
) -> Option<String> {
    if matches!(
        v,
        Value::Object(_) | Value::List(_) | Value::Null | Value::Variable(_)
    ) {
        return None;
    }
    let exact_fits = |o: &InputObjectType| {
        o.fields
            .get("exact")
            .is_some_and(|e| literal_fits(schema, &e.ty, v))
    };
    if exact_fits(obj) {
        return Some(format!("{{exact: {text}}}"));
    }
    one_of_members(schema, obj)?
        .into_iter()
        .find(|(_, m)| exact_fits(m))
        .map(|(m, _)| format!("{{{m}: {{exact: {text}}}}}"))
}

/// The members of a `@oneOf` input object whose every field is itself an input object (NetBox's
/// `IntegerLookup`, `FloatLookup`, `BigIntegerLookup`), in declaration order; `None` otherwise.
pub(super) fn one_of_members(
    schema: &apollo_compiler::Schema,
    obj: &InputObjectType,
) -> Option<Vec<(Name, Node<InputObjectType>)>> {
    if !obj.directives.has("oneOf") {
        return None;
    }
    obj.fields
        .iter()
        .map(|(n, f)| {
            schema
                .get_input_object(f.ty.inner_named_type())
                .filter(|_| !f.ty.is_list())
                .map(|o| (n.clone(), o.clone()))
        })
        .collect()
}
