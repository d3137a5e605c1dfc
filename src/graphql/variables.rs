//! Checks a `variables` object given beside the query (`netbox_graphql(query=..., variables=
//! {...})`, JSON bodies) against the operation's declared variable types, with GraphQL's input
//! coercion rules (ID: string or integer; Int: 32-bit integer; Float: number; lists accept a
//! single item; enums: a value name as a string; input objects: known keys, required fields).
//! Findings sit on the variable definition in the query (`$ids: [ID!]`), because the variables'
//! own host ranges are not known.

use super::rules::{span, RawFinding};
use super::suggest::did_you_mean;
use super::NetboxSchema;
use crate::finding::Severity;
use apollo_compiler::ast::{self, Type};
use apollo_compiler::schema::ExtendedType;
use serde_json::Value as J;

/// Checks `vars` (should be a JSON object) against every query operation of `doc`.
pub fn check(doc: &ast::Document, vars: &J, schema: &NetboxSchema) -> Vec<RawFinding> {
    let mut out = Vec::new();
    let Some(obj) = vars.as_object() else {
        if !vars.is_null() {
            out.push(RawFinding {
                range: 0..0,
                code: "graphql-validation",
                severity: Severity::Error,
                message: format!(
                    "`variables` must be a JSON object (`{{\"name\": value}}`), not {}",
                    kind(vars)
                ),
                fixes: Vec::new(),
                claim: None,
                does: None,
            });
        }
        return out;
    };
    for def in &doc.definitions {
        let ast::Definition::OperationDefinition(op) = def else {
            continue;
        };
        for v in &op.variables {
            let Some(r) = span(v.location()) else {
                continue;
            };
            let name = v.name.as_str();
            let problem = match obj.get(name) {
                None | Some(J::Null) if v.ty.is_non_null() && v.default_value.is_none() => {
                    Some(format!(
                        "variable `${name}` of type `{}` is required but `variables` has no value for it",
                        v.ty
                    ))
                }
                None => None,
                Some(value) => coerce(schema, &v.ty, value, &format!("${name}"), 0),
            };
            if let Some(p) = problem {
                out.push(RawFinding {
                    range: r,
                    code: "graphql-validation",
                    severity: Severity::Error,
                    message: p,
                    fixes: Vec::new(),
                    claim: None,
                    does: None,
                });
            }
        }
    }
    out
}

fn kind(v: &J) -> &'static str {
    match v {
        J::Null => "null",
        J::Bool(_) => "a boolean",
        J::Number(_) => "a number",
        J::String(_) => "a string",
        J::Array(_) => "a list",
        J::Object(_) => "an object",
    }
}

/// `None` when `value` coerces to `ty`; otherwise what is wrong, naming the path and the
/// working form.
fn coerce(schema: &NetboxSchema, ty: &Type, value: &J, path: &str, depth: usize) -> Option<String> {
    if depth > 64 {
        return None;
    }
    if value.is_null() {
        return ty
            .is_non_null()
            .then(|| format!("`{path}` is null but its type `{ty}` is non-null"));
    }
    if ty.is_list() {
        let item = ty.item_type();
        return match value {
            J::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, x)| coerce(schema, item, x, &format!("{path}[{i}]"), depth + 1)),
            // GraphQL input coercion wraps a single value in a list.
            single => coerce(schema, item, single, path, depth + 1),
        };
    }
    let named = ty.inner_named_type().as_str();
    let bad = |want: &str| {
        Some(format!(
            "`{path}` is {} but type `{named}` wants {want}",
            kind(value)
        ))
    };
    match named {
        "ID" => match value {
            J::String(_) => None,
            J::Number(n) if n.is_i64() || n.is_u64() => None,
            _ => bad("a string or an integer (`\"6\"` or `6`)"),
        },
        "Int" => match value.as_i64() {
            Some(i) if i32::try_from(i).is_ok() => None,
            _ => bad("a 32-bit integer"),
        },
        "Float" => match value {
            J::Number(_) => None,
            _ => bad("a number"),
        },
        "String" => match value {
            J::String(_) => None,
            _ => bad("a string"),
        },
        "Boolean" => match value {
            J::Bool(_) => None,
            _ => bad("`true` or `false`"),
        },
        _ => {
            match schema.schema.types.get(named) {
                Some(ExtendedType::Enum(e)) => match value.as_str() {
                    Some(s) if e.values.contains_key(s) => None,
                    Some(s) => {
                        let c = did_you_mean(s, e.values.keys().map(|k| k.as_str()));
                        let hint = if c.is_empty() {
                            e.values
                                .keys()
                                .take(4)
                                .map(|k| format!("`\"{k}\"`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        } else {
                            c.iter()
                                .map(|k| format!("`\"{k}\"`"))
                                .collect::<Vec<_>>()
                                .join(" or ")
                        };
                        Some(format!(
                            "`{path}` = \"{s}\" is not a `{named}` value; use {hint}"
                        ))
                    }
                    None => bad("an enum value name as a string"),
                },
                Some(ExtendedType::InputObject(o)) => {
                    let J::Object(map) = value else {
                        return bad("an object");
                    };
                    for (k, v) in map {
                        match o.fields.get(k.as_str()) {
                            Some(f) => {
                                if let Some(p) =
                                    coerce(schema, &f.ty, v, &format!("{path}.{k}"), depth + 1)
                                {
                                    return Some(p);
                                }
                            }
                            None => {
                                let c = did_you_mean(k, o.fields.keys().map(|k| k.as_str()));
                                let hint = if c.is_empty() {
                                    String::new()
                                } else {
                                    format!("; did you mean `{}`?", c[0])
                                };
                                return Some(format!("`{path}` has field `{k}`, which `{named}` does not define{hint}"));
                            }
                        }
                    }
                    o.fields
                        .iter()
                        .find(|(k, f)| {
                            f.ty.is_non_null()
                                && f.default_value.is_none()
                                && !map.contains_key(k.as_str())
                        })
                        .map(|(k, f)| format!("`{path}` lacks required field `{k}: {}`", f.ty))
                }
                // Custom scalars (JSON, DateTime, BigInt, ...): accept anything.
                _ => None,
            }
        }
    }
}
