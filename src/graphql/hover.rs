//! Hover inside a GraphQL document (pure; markdown for the language server).

use super::cursor::{arg_type, context_at, field_type, input_field_type, Frame};
use super::NetboxSchema;
use apollo_compiler::ast::Type;
use apollo_compiler::schema::ExtendedType;
use std::fmt::Write;

/// Enum values listed in a hover before "… and N more".
const MAX_VALUES: usize = 30;

/// Markdown describing the name at byte `offset` of the GraphQL document `text` (offset into
/// the GraphQL text; clamped):
/// - a field: `` `device_list(filters: DeviceFilter, pagination: OffsetPaginationInput): [DeviceType!]!` ``
///   and its description;
/// - an argument or input field (a filter, a lookup, a pagination key): its type and
///   description, plus the lookups of a lookup type or the values of an enum type;
/// - an enum value: the enum and its values.
///
/// `None` when the offset is not on a name the schema knows.
pub fn hover(text: &str, offset: usize, schema: &NetboxSchema) -> Option<String> {
    let cx = context_at(text, offset, schema);
    let (_, range) = cx.word.as_ref()?;
    let word = text.get(range.clone())?;
    let mut out = String::new();
    match cx.stack.last()? {
        Frame::Selection { ty: Some(ty), .. } => {
            let def = schema.schema.type_field(ty, word).ok()?;
            let args: Vec<String> = def
                .arguments
                .iter()
                .map(|a| format!("{}: {}", a.name, a.ty))
                .collect();
            let args = if args.is_empty() {
                String::new()
            } else {
                format!("({})", args.join(", "))
            };
            let _ = writeln!(out, "```graphql\n{ty}.{word}{args}: {}\n```", def.ty);
            if let Some(d) = &def.description {
                let _ = writeln!(out, "\n{}", d.trim());
            }
            type_summary(schema, &def.ty, &mut out);
        }
        Frame::Args {
            parent: Some(p),
            field: Some(f),
            pending: None,
            ..
        } => {
            let t = arg_type(schema, p, f, word)?;
            let _ = writeln!(out, "```graphql\n{word}: {t}\n```\nArgument of `{p}.{f}`.");
            type_summary(schema, &t, &mut out);
        }
        Frame::Object {
            ty: Some(ty),
            pending: None,
            ..
        } => {
            let t = input_field_type(schema, ty, word)?;
            let _ = writeln!(out, "```graphql\n{word}: {t}\n```\nInput field of `{ty}`.");
            if let Some(ExtendedType::InputObject(o)) = schema.schema.types.get(ty.as_str()) {
                if let Some(d) = o.fields.get(word).and_then(|f| f.description.clone()) {
                    let _ = writeln!(out, "\n{}", d.trim());
                }
            }
            type_summary(schema, &t, &mut out);
        }
        Frame::Args {
            pending: Some(t), ..
        }
        | Frame::Object {
            pending: Some(t), ..
        }
        | Frame::List { item: Some(t) } => {
            let en = schema.schema.get_enum(t.inner_named_type())?;
            if !en.values.contains_key(word) {
                return None;
            }
            let _ = writeln!(out, "`{word}`: value of enum `{}`", en.name);
            type_summary(schema, t, &mut out);
        }
        _ => return None,
    }
    Some(out)
}

/// Appends what a type holds: an enum's values, an input object's fields (lookups).
fn type_summary(schema: &NetboxSchema, t: &Type, out: &mut String) {
    let named = t.inner_named_type();
    match schema.schema.types.get(named) {
        Some(ExtendedType::Enum(e)) => {
            let vals: Vec<String> = e
                .values
                .keys()
                .take(MAX_VALUES)
                .map(|v| format!("`{v}`"))
                .collect();
            let more = e.values.len().saturating_sub(MAX_VALUES);
            let _ = write!(out, "\nValues of `{named}`: {}", vals.join(", "));
            if more > 0 {
                let _ = write!(out, " … and {more} more");
            }
            out.push('\n');
        }
        Some(ExtendedType::InputObject(o)) if o.fields.len() <= 20 => {
            let fields: Vec<String> = o
                .fields
                .values()
                .map(|f| format!("`{}: {}`", f.name, f.ty))
                .collect();
            let _ = writeln!(out, "\n`{named}` fields: {}", fields.join(", "));
        }
        _ => {}
    }
}

/// The type of field `f` of `t` as text (used by tests and the server's signature help).
pub fn field_type_text(schema: &NetboxSchema, t: &str, f: &str) -> Option<String> {
    field_type(schema, t, f).map(|t| t.to_string())
}
