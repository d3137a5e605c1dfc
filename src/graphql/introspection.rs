//! Introspection JSON → SDL. apollo-compiler only goes the other way (schema → introspection
//! response), so this module deserializes the standard `__schema` result and prints SDL that
//! `Schema::parse_and_validate` accepts.
//!
//! Accepted shapes: `{"data": {"__schema": ...}}` and `{"__schema": ...}`. Traps seen in real
//! NetBox results (`/work/shared/netbox/v*/graphql-introspection.json.gz`): Strawberry's JSON
//! scalar carries `specifiedByURL` when asked for; NetBox 4.6.8 redefines the built-in
//! `@deprecated` with the location `DIRECTIVE_DEFINITION` (unknown to apollo-compiler 1.x) and
//! declares `@oneOf`. Built-in directives are skipped (apollo-compiler supplies its own), and
//! unknown directive locations are dropped rather than failing the whole schema.

use serde::Deserialize;
use std::fmt::Write;

#[derive(Deserialize)]
struct Envelope {
    data: Option<Box<Envelope>>,
    #[serde(rename = "__schema")]
    schema: Option<SchemaJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemaJson {
    description: Option<String>,
    query_type: Option<NamedRef>,
    mutation_type: Option<NamedRef>,
    subscription_type: Option<NamedRef>,
    #[serde(default)]
    types: Vec<TypeJson>,
    #[serde(default)]
    directives: Vec<DirectiveJson>,
}

#[derive(Deserialize)]
struct NamedRef {
    name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TypeJson {
    kind: String,
    name: Option<String>,
    description: Option<String>,
    fields: Option<Vec<FieldJson>>,
    input_fields: Option<Vec<InputValueJson>>,
    interfaces: Option<Vec<TypeRef>>,
    enum_values: Option<Vec<EnumValueJson>>,
    possible_types: Option<Vec<TypeRef>>,
    #[serde(rename = "specifiedByURL", alias = "specifiedByUrl")]
    specified_by_url: Option<String>,
    /// `__Type.isOneOf` (graphql-core 3.3+, NetBox 4.7+); absent when it was not asked.
    #[serde(rename = "isOneOf")]
    is_one_of: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FieldJson {
    name: String,
    description: Option<String>,
    #[serde(default)]
    args: Vec<InputValueJson>,
    #[serde(rename = "type")]
    ty: TypeRef,
    #[serde(default)]
    is_deprecated: bool,
    deprecation_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InputValueJson {
    name: String,
    description: Option<String>,
    #[serde(rename = "type")]
    ty: TypeRef,
    default_value: Option<String>,
    #[serde(default)]
    is_deprecated: bool,
    deprecation_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EnumValueJson {
    name: String,
    description: Option<String>,
    #[serde(default)]
    is_deprecated: bool,
    deprecation_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DirectiveJson {
    name: String,
    description: Option<String>,
    #[serde(default)]
    locations: Vec<String>,
    #[serde(default)]
    args: Vec<InputValueJson>,
    #[serde(default)]
    is_repeatable: bool,
}

/// A reference to a type: `{kind, name, ofType}`, recursive for LIST / NON_NULL wrappers.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TypeRef {
    kind: String,
    name: Option<String>,
    of_type: Option<Box<TypeRef>>,
}

/// Directives apollo-compiler defines itself; a redefinition in the JSON is skipped.
const BUILT_IN_DIRECTIVES: &[&str] = &["skip", "include", "deprecated", "specifiedBy"];
/// Scalars apollo-compiler defines itself.
const BUILT_IN_SCALARS: &[&str] = &["String", "Int", "Float", "Boolean", "ID"];
/// Directive locations apollo-compiler 1.33 knows (spec October 2021 + VARIABLE_DEFINITION).
const KNOWN_LOCATIONS: &[&str] = &[
    "QUERY",
    "MUTATION",
    "SUBSCRIPTION",
    "FIELD",
    "FRAGMENT_DEFINITION",
    "FRAGMENT_SPREAD",
    "INLINE_FRAGMENT",
    "VARIABLE_DEFINITION",
    "SCHEMA",
    "SCALAR",
    "OBJECT",
    "FIELD_DEFINITION",
    "ARGUMENT_DEFINITION",
    "INTERFACE",
    "UNION",
    "ENUM",
    "ENUM_VALUE",
    "INPUT_OBJECT",
    "INPUT_FIELD_DEFINITION",
];

/// True when `json` looks like an introspection result (has a `__schema` key at the top or
/// under `data`). Cheap: only the first bytes are not enough, so this parses lazily via serde.
pub fn looks_like_introspection(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"__schema\"")
}

/// Converts an introspection result (JSON text) into SDL text. Errors name what is missing or
/// malformed ("not JSON", "no `__schema` object", "type without a name").
pub fn introspection_to_sdl(json: &str) -> Result<String, String> {
    introspection_to_sdl_with(json, &|_| false)
}

/// [`introspection_to_sdl`], an input type marked `@oneOf` where the result says `isOneOf:
/// true`, or, where the result does not say (a server before graphql-core 3.3, NetBox ≤ 4.6,
/// cannot be asked), where `one_of` says so for its name (the embedded schema of the same
/// release: Strawberry declares `@oneOf` on NetBox's lookup inputs in every shipped release).
pub fn introspection_to_sdl_with(
    json: &str,
    one_of: &dyn Fn(&str) -> bool,
) -> Result<String, String> {
    let env: Envelope =
        serde_json::from_str(json).map_err(|e| format!("not an introspection result: {e}"))?;
    let schema = match env {
        Envelope {
            schema: Some(s), ..
        } => s,
        Envelope {
            data: Some(inner), ..
        } => inner
            .schema
            .ok_or("introspection JSON has `data` but no `data.__schema` object")?,
        _ => return Err("JSON has no `__schema` object (expected `{\"data\": {\"__schema\": ...}}` or `{\"__schema\": ...}`)".into()),
    };
    Ok(print_sdl(&schema, one_of))
}

fn print_sdl(s: &SchemaJson, one_of: &dyn Fn(&str) -> bool) -> String {
    let is_one_of = |t: &TypeJson| {
        t.kind == "INPUT_OBJECT"
            && match t.is_one_of {
                Some(b) => b,
                None => t.name.as_deref().is_some_and(one_of),
            }
    };
    let mut out = String::with_capacity(256 * 1024);
    let query = s.query_type.as_ref().map(|t| t.name.as_str());
    let mutation = s.mutation_type.as_ref().map(|t| t.name.as_str());
    let subscription = s.subscription_type.as_ref().map(|t| t.name.as_str());
    // A schema block is needed only when root names differ from the defaults or a description
    // exists; writing it always is harmless and keeps the output explicit.
    if query.is_some() {
        description(&mut out, s.description.as_deref(), "");
        out.push_str("schema {\n");
        for (op, name) in [
            ("query", query),
            ("mutation", mutation),
            ("subscription", subscription),
        ] {
            if let Some(name) = name {
                let _ = writeln!(out, "  {op}: {name}");
            }
        }
        out.push_str("}\n\n");
    }
    if s.types.iter().any(is_one_of) && !s.directives.iter().any(|d| d.name == "oneOf") {
        out.push_str("directive @oneOf on INPUT_OBJECT\n\n");
    }
    for d in &s.directives {
        if BUILT_IN_DIRECTIVES.contains(&d.name.as_str()) {
            continue;
        }
        let locations: Vec<&str> = d
            .locations
            .iter()
            .map(String::as_str)
            .filter(|l| KNOWN_LOCATIONS.contains(l))
            .collect();
        if locations.is_empty() {
            continue;
        }
        description(&mut out, d.description.as_deref(), "");
        let _ = write!(out, "directive @{}", d.name);
        args(&mut out, &d.args);
        if d.is_repeatable {
            out.push_str(" repeatable");
        }
        let _ = writeln!(out, " on {}\n", locations.join(" | "));
    }
    for t in &s.types {
        let Some(name) = t.name.as_deref() else {
            continue;
        };
        if name.starts_with("__") || BUILT_IN_SCALARS.contains(&name) {
            continue;
        }
        description(&mut out, t.description.as_deref(), "");
        match t.kind.as_str() {
            "SCALAR" => {
                let _ = write!(out, "scalar {name}");
                if let Some(url) = &t.specified_by_url {
                    let _ = write!(out, " @specifiedBy(url: {})", string_literal(url));
                }
                out.push('\n');
            }
            "OBJECT" | "INTERFACE" => {
                let kw = if t.kind == "OBJECT" {
                    "type"
                } else {
                    "interface"
                };
                let _ = write!(out, "{kw} {name}");
                let ifaces: Vec<&str> = t
                    .interfaces
                    .iter()
                    .flatten()
                    .filter_map(|i| i.name.as_deref())
                    .collect();
                if !ifaces.is_empty() {
                    let _ = write!(out, " implements {}", ifaces.join(" & "));
                }
                let fields = t.fields.as_deref().unwrap_or_default();
                if !fields.is_empty() {
                    out.push_str(" {\n");
                    for f in fields {
                        description(&mut out, f.description.as_deref(), "  ");
                        let _ = write!(out, "  {}", f.name);
                        args(&mut out, &f.args);
                        let _ = write!(out, ": {}", type_ref(&f.ty));
                        deprecated(&mut out, f.is_deprecated, f.deprecation_reason.as_deref());
                        out.push('\n');
                    }
                    out.push('}');
                }
                out.push('\n');
            }
            "UNION" => {
                let members: Vec<&str> = t
                    .possible_types
                    .iter()
                    .flatten()
                    .filter_map(|m| m.name.as_deref())
                    .collect();
                let _ = write!(out, "union {name}");
                if !members.is_empty() {
                    let _ = write!(out, " = {}", members.join(" | "));
                }
                out.push('\n');
            }
            "ENUM" => {
                let _ = writeln!(out, "enum {name} {{");
                for v in t.enum_values.iter().flatten() {
                    description(&mut out, v.description.as_deref(), "  ");
                    let _ = write!(out, "  {}", v.name);
                    deprecated(&mut out, v.is_deprecated, v.deprecation_reason.as_deref());
                    out.push('\n');
                }
                out.push_str("}\n");
            }
            "INPUT_OBJECT" => {
                let directive = if is_one_of(t) { " @oneOf" } else { "" };
                let _ = writeln!(out, "input {name}{directive} {{");
                for f in t.input_fields.iter().flatten() {
                    description(&mut out, f.description.as_deref(), "  ");
                    let _ = write!(out, "  ");
                    input_value(&mut out, f);
                    out.push('\n');
                }
                out.push_str("}\n");
            }
            _ => continue,
        }
        out.push('\n');
    }
    out
}

fn args(out: &mut String, args: &[InputValueJson]) {
    if args.is_empty() {
        return;
    }
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if let Some(d) = a.description.as_deref() {
            out.push_str(&string_literal(d));
            out.push(' ');
        }
        input_value(out, a);
    }
    out.push(')');
}

fn input_value(out: &mut String, v: &InputValueJson) {
    let _ = write!(out, "{}: {}", v.name, type_ref(&v.ty));
    if let Some(default) = &v.default_value {
        // `defaultValue` is already a GraphQL literal ("0", "\"x\"", "[A, B]").
        let _ = write!(out, " = {default}");
    }
    deprecated(out, v.is_deprecated, v.deprecation_reason.as_deref());
}

fn deprecated(out: &mut String, is: bool, reason: Option<&str>) {
    if !is {
        return;
    }
    match reason {
        Some(r) => {
            let _ = write!(out, " @deprecated(reason: {})", string_literal(r));
        }
        None => out.push_str(" @deprecated"),
    }
}

fn type_ref(t: &TypeRef) -> String {
    match (t.kind.as_str(), &t.of_type) {
        ("NON_NULL", Some(inner)) => format!("{}!", type_ref(inner)),
        ("LIST", Some(inner)) => format!("[{}]", type_ref(inner)),
        _ => t.name.clone().unwrap_or_else(|| "String".into()),
    }
}

fn description(out: &mut String, d: Option<&str>, indent: &str) {
    if let Some(d) = d {
        let _ = writeln!(out, "{indent}{}", string_literal(d));
    }
}

/// A GraphQL string literal (single line, escaped) for any text: quotes, backslashes, control
/// characters and line breaks are escaped, so descriptions containing `"""` stay valid.
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_minimal_with_traps() {
        let json = r#"{"data":{"__schema":{
          "queryType":{"name":"Query"},"mutationType":null,"subscriptionType":null,
          "directives":[
            {"name":"deprecated","locations":["FIELD_DEFINITION","DIRECTIVE_DEFINITION"],"args":[]},
            {"name":"oneOf","locations":["INPUT_OBJECT"],"args":[]}],
          "types":[
            {"kind":"SCALAR","name":"JSON","description":"has \"\"\" inside","specifiedByURL":"https://x/\"y\""},
            {"kind":"OBJECT","name":"Query","fields":[
              {"name":"a","args":[{"name":"n","type":{"kind":"SCALAR","name":"Int"},"defaultValue":"3"}],
               "type":{"kind":"NON_NULL","ofType":{"kind":"LIST","ofType":{"kind":"SCALAR","name":"JSON"}}},
               "isDeprecated":true,"deprecationReason":"use b"}],"interfaces":[]}
          ]}}}"#;
        let sdl = introspection_to_sdl(json).unwrap();
        let schema = apollo_compiler::Schema::parse_and_validate(sdl.clone(), "x.graphql");
        assert!(schema.is_ok(), "{sdl}\n{:?}", schema.err());
        assert!(sdl.contains("directive @oneOf on INPUT_OBJECT"));
        assert!(sdl.contains("@specifiedBy(url: \"https://x/\\\"y\\\"\")"));
    }

    #[test]
    fn rejects_non_schema_json() {
        let e = introspection_to_sdl(r#"{"openapi": "3.0"}"#).unwrap_err();
        assert!(e.contains("__schema"), "{e}");
        assert!(introspection_to_sdl("nope").is_err());
    }
}
