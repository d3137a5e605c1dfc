//! Completion inside a GraphQL document (pure; the language server converts the items).

use super::cursor::{context_at, Frame};
use super::NetboxSchema;
use apollo_compiler::ast::Type;
use apollo_compiler::schema::ExtendedType;

/// What a completion item completes (the server maps it to an LSP `CompletionItemKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GqlCompletionKind {
    /// A field in a selection set (`device_list`, `name`, `site`).
    Field,
    /// A field argument (`filters`, `pagination`, `id`).
    Argument,
    /// An input-object field: a filter (`site`, `status`), a lookup (`exact`, `i_contains`,
    /// `in_list`, `is_null`) or a pagination key (`limit`, `offset`, `start`).
    InputField,
    /// An enum value (`STATUS_ACTIVE`).
    EnumValue,
    /// A literal or snippet (`true`, `false`, `{exact: }`).
    Keyword,
}

/// One completion item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GqlCompletion {
    /// Shown in the list and used for filtering (`device_list`, `exact`, `STATUS_ACTIVE`).
    pub label: String,
    /// The GraphQL type (`[DeviceType!]!`, `StrFilterLookup`), or a short note.
    pub detail: String,
    pub kind: GqlCompletionKind,
    /// Text to insert in place of the word at the cursor (`filters: `, `exact: `, `name`).
    pub insert_text: String,
}

/// Completion items at byte `offset` of the GraphQL document `text` (offset into the GraphQL
/// text, not the host; out-of-range offsets are clamped). Works on half-typed documents:
/// - in a selection set: the fields of the current type (root: every `*_list` and singular
///   field of `Query`);
/// - in a field's `( )`: its arguments (`filters`, `pagination`), inserted as `name: `;
/// - in an input object: its fields, so filters (`site`, `status`), lookup names (`exact`,
///   `i_contains`, `in_list`, `is_null`) and pagination keys (`limit`, `offset`, `start`),
///   nested to any depth;
/// - in a value position: enum values, `true`/`false`, or `{exact: }` for a lookup object.
///
/// Items are filtered by the word already typed (case-insensitive prefix) and keep schema order.
/// Never panics; returns nothing where the context is unknown (inside strings, unknown fields).
pub fn complete(text: &str, offset: usize, schema: &NetboxSchema) -> Vec<GqlCompletion> {
    let cx = context_at(text, offset, schema);
    let prefix = cx
        .word
        .as_ref()
        .map(|(w, _)| w.to_ascii_lowercase())
        .unwrap_or_default();
    let items = match cx.stack.last() {
        Some(Frame::Selection { ty: Some(ty), .. }) => fields(schema, ty),
        Some(Frame::Args {
            parent: Some(p),
            field: Some(f),
            pending: None,
            ..
        }) => arguments(schema, p, f),
        Some(Frame::Args {
            pending: Some(t), ..
        }) => values(schema, t),
        Some(Frame::Object {
            ty: Some(ty),
            pending: None,
            ..
        }) => input_fields(schema, ty),
        Some(Frame::Object {
            pending: Some(t), ..
        }) => values(schema, t),
        Some(Frame::List { item: Some(t) }) => values(schema, t),
        _ => Vec::new(),
    };
    items
        .into_iter()
        .filter(|i| i.label.to_ascii_lowercase().starts_with(&prefix))
        .collect()
}

fn fields(schema: &NetboxSchema, ty: &str) -> Vec<GqlCompletion> {
    let defs = match schema.schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => &o.fields,
        Some(ExtendedType::Interface(i)) => &i.fields,
        _ => return Vec::new(),
    };
    defs.values()
        .map(|f| GqlCompletion {
            label: f.name.to_string(),
            detail: f.ty.to_string(),
            kind: GqlCompletionKind::Field,
            insert_text: f.name.to_string(),
        })
        .collect()
}

fn arguments(schema: &NetboxSchema, ty: &str, field: &str) -> Vec<GqlCompletion> {
    let Ok(def) = schema.schema.type_field(ty, field) else {
        return Vec::new();
    };
    def.arguments
        .iter()
        .map(|a| GqlCompletion {
            label: a.name.to_string(),
            detail: a.ty.to_string(),
            kind: GqlCompletionKind::Argument,
            insert_text: format!("{}: ", a.name),
        })
        .collect()
}

fn input_fields(schema: &NetboxSchema, ty: &str) -> Vec<GqlCompletion> {
    let Some(o) = schema.schema.get_input_object(ty) else {
        return Vec::new();
    };
    o.fields
        .values()
        .map(|f| GqlCompletion {
            label: f.name.to_string(),
            detail: f.ty.to_string(),
            kind: GqlCompletionKind::InputField,
            insert_text: format!("{}: ", f.name),
        })
        .collect()
}

fn values(schema: &NetboxSchema, t: &Type) -> Vec<GqlCompletion> {
    let named = t.inner_named_type().as_str();
    let keyword = |label: &str, detail: &str| GqlCompletion {
        label: label.to_string(),
        detail: detail.to_string(),
        kind: GqlCompletionKind::Keyword,
        insert_text: label.to_string(),
    };
    match schema.schema.types.get(named) {
        Some(ExtendedType::Enum(e)) => e
            .values
            .values()
            .map(|v| GqlCompletion {
                label: v.value.to_string(),
                detail: named.to_string(),
                kind: GqlCompletionKind::EnumValue,
                insert_text: v.value.to_string(),
            })
            .collect(),
        Some(ExtendedType::InputObject(o)) if o.fields.contains_key("exact") => {
            vec![keyword("{exact: }", named), keyword("{in_list: []}", named)]
        }
        Some(ExtendedType::InputObject(_)) => vec![keyword("{}", named)],
        _ if named == "Boolean" => vec![keyword("true", "Boolean"), keyword("false", "Boolean")],
        _ => Vec::new(),
    }
}
