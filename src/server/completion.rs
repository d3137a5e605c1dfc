//! `textDocument/completion`: object types where one is expected, the endpoint's real filter
//! names (lookups included) in a filters dict / keyword arguments / query string, and choice
//! values after a choice filter — from the selected NetBox version's filter index. Nothing is
//! offered outside a recognised NetBox call.

use super::context::{self, Context, Expect, Quote};
use super::position::{Encoding, Snapshot};
use super::request::{self, Request};
use super::{graphql_site, Backend};
use crate::extract::{GraphqlDoc, HostKind};
use crate::graphql::{GqlCompletionKind, NetboxSchema};
use crate::index::{FilterIndex, Parameter};
use std::collections::BTreeSet;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

/// Handles `textDocument/completion`.
pub async fn handle(
    backend: &Backend,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>> {
    let pos = params.text_document_position;
    let Some(req) = Request::open(backend, &pos.text_document.uri) else {
        return Ok(None);
    };
    let (_, loaded) = backend.knowledge_of(&req.view).await;
    let req_kind = req.view.kind;
    let items = request::run(backend, "completion", move || {
        let (snap, kind, enc) = (&req.view.snap, req.view.kind, req.enc);
        let offset = req.offset(pos.position);
        if let Some(schema) = loaded.knowledge.graphql.as_deref() {
            if let Some((doc, at)) = graphql_site::locate_in(snap, kind, offset) {
                let items = graphql_items(&doc, at, schema, snap, enc);
                return (!items.is_empty()).then_some(items);
            }
        }
        let ctx = context::at(&snap.text, offset, kind)
            .or_else(|| super::form_context::at(&snap.text, offset, kind))?;
        let index = loaded.knowledge.index.as_deref()?;
        let items = items(&ctx, index, snap, enc);
        (!items.is_empty()).then_some(items)
    })
    .await;
    let mut items = items;
    if req_kind == HostKind::Notebook {
        // Every completion in a notebook lands inside a cell's JSON string.
        items.iter_mut().flatten().for_each(escape_for_json_string);
    }
    Ok(items.map(CompletionResponse::Array))
}

/// `item`'s edit text written as the inside of a JSON string (`"` → `\"`, `\` → `\\`,
/// control characters as escapes; other characters as they are), for a notebook cell, whose
/// text is a JSON string in the `.ipynb` file.
pub fn escape_for_json_string(item: &mut CompletionItem) {
    if let Some(CompletionTextEdit::Edit(edit)) = &mut item.text_edit {
        let quoted = serde_json::Value::String(std::mem::take(&mut edit.new_text)).to_string();
        edit.new_text = quoted[1..quoted.len() - 1].to_string();
    }
}

/// Completion items for `ctx` from `index`.
pub fn items(
    ctx: &Context,
    index: &FilterIndex,
    snap: &Snapshot,
    enc: Encoding,
) -> Vec<CompletionItem> {
    let range = snap.range(&ctx.prefix, enc);
    let make = |label: String,
                insert: String,
                kind,
                detail: Option<String>,
                doc: Option<String>,
                sort: String| {
        let new_text = match ctx.quote {
            Quote::Needed => format!("\"{insert}\""),
            Quote::None => insert,
        };
        CompletionItem {
            label: label.clone(),
            kind: Some(kind),
            detail,
            documentation: doc.map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            }),
            sort_text: Some(sort),
            filter_text: Some(label),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, new_text))),
            ..CompletionItem::default()
        }
    };
    match &ctx.expect {
        Expect::ObjectType => index
            .object_types
            .iter()
            .map(|(ot, ep)| {
                make(
                    ot.clone(),
                    ot.clone(),
                    CompletionItemKind::CLASS,
                    Some(format!("/api/{ep}/")),
                    None,
                    ot.clone(),
                )
            })
            .collect(),
        Expect::ApiPath => index
            .endpoints
            .iter()
            .map(|(key, ep)| {
                make(
                    format!("{key}/"),
                    format!("{key}/"),
                    CompletionItemKind::MODULE,
                    ep.object_type.clone(),
                    None,
                    key.clone(),
                )
            })
            .collect(),
        Expect::PynetboxApp => {
            let apps: BTreeSet<&str> = index
                .endpoints
                .keys()
                .filter_map(|k| k.split('/').next())
                .collect();
            apps.into_iter()
                .map(|a| {
                    make(
                        a.to_string(),
                        a.to_string(),
                        CompletionItemKind::MODULE,
                        Some(format!("/api/{a}/")),
                        None,
                        a.to_string(),
                    )
                })
                .collect()
        }
        Expect::PynetboxEndpoint { app } => index
            .endpoints
            .iter()
            .filter_map(|(key, ep)| {
                let (a, slug) = key.split_once('/')?;
                (a == app && !slug.contains('/')).then(|| {
                    let attr = slug.replace('-', "_");
                    make(
                        attr.clone(),
                        attr.clone(),
                        CompletionItemKind::FIELD,
                        Some(format!("/api/{key}/")),
                        ep.object_type.clone(),
                        attr,
                    )
                })
            })
            .collect(),
        Expect::FilterName { target } => {
            let Some((key, ep)) = index.resolve(target) else {
                return Vec::new();
            };
            ep.params
                .iter()
                .map(|(name, p)| {
                    let lookup = name.contains("__");
                    make(
                        name.to_string(),
                        name.to_string(),
                        if lookup {
                            CompletionItemKind::OPERATOR
                        } else {
                            CompletionItemKind::FIELD
                        },
                        Some(detail(p, index)),
                        Some(param_doc(name, p, index, key)),
                        format!("{}{name}", u8::from(lookup)),
                    )
                })
                .chain(custom_field_items(index, ep, &make))
                .collect()
        }
        Expect::ChoiceValue { target, filter } => {
            let Some((_, ep)) = index.resolve(target) else {
                return Vec::new();
            };
            if let Some(items) = custom_field_choices(index, ep, filter, &make) {
                return items;
            }
            let Some(set) = ep.params.get(filter).and_then(|p| index.choices(p)) else {
                return Vec::new();
            };
            set.choices
                .iter()
                .enumerate()
                .map(|(i, (value, label))| {
                    make(
                        value.clone(),
                        value.clone(),
                        CompletionItemKind::ENUM_MEMBER,
                        Some(label.clone()),
                        None,
                        format!("{i:04}"),
                    )
                })
                .collect()
        }
    }
}

/// `integer · multi-value · choices`: the type and multiplicity of a filter.
pub fn detail(p: &Parameter, index: &FilterIndex) -> String {
    let kind = serde_json::to_value(p.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut s = kind;
    s.push_str(if p.multi {
        " · multi-value"
    } else {
        " · single value"
    });
    if index.choices(p).is_some() {
        s.push_str(" · choices");
    }
    s
}

/// Markdown documentation of a filter: description and choices.
pub fn param_doc(name: &str, p: &Parameter, index: &FilterIndex, endpoint: &str) -> String {
    let mut s = format!("`{name}` on `/api/{endpoint}/`");
    if let Some(d) = &p.description {
        s.push_str(&format!("\n\n{d}"));
    }
    if let Some(set) = index.choices(p) {
        let shown: Vec<String> = set
            .choices
            .iter()
            .take(30)
            .map(|(v, _)| format!("`{v}`"))
            .collect();
        s.push_str(&format!("\n\nChoices: {}", shown.join(", ")));
        if set.choices.len() > 30 {
            s.push_str(&format!(" … ({} in all)", set.choices.len()));
        }
    }
    s
}

/// Completion items inside a GraphQL document, from the `graphql` module, with host ranges.
fn graphql_items(
    doc: &GraphqlDoc,
    at: usize,
    schema: &NetboxSchema,
    snap: &Snapshot,
    enc: Encoding,
) -> Vec<CompletionItem> {
    let start = graphql_site::word_start(&doc.text, at);
    let host = doc.map.to_host(start)..doc.map.to_host_end(at).max(doc.map.to_host(start));
    let range = snap.range(&host, enc);
    crate::graphql::complete(&doc.text, at, schema)
        .into_iter()
        .enumerate()
        .map(|(i, c)| CompletionItem {
            label: c.label.clone(),
            kind: Some(match c.kind {
                GqlCompletionKind::Field => CompletionItemKind::FIELD,
                GqlCompletionKind::Argument => CompletionItemKind::PROPERTY,
                GqlCompletionKind::InputField => CompletionItemKind::PROPERTY,
                GqlCompletionKind::EnumValue => CompletionItemKind::ENUM_MEMBER,
                GqlCompletionKind::Keyword => CompletionItemKind::KEYWORD,
            }),
            detail: Some(c.detail),
            sort_text: Some(format!("{i:05}")),
            filter_text: Some(c.label),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                range,
                c.insert_text,
            ))),
            ..CompletionItem::default()
        })
        .collect()
}

/// Builds a completion item: label, insert text, kind, detail, documentation, sort text.
type MakeItem<'a> = &'a dyn Fn(
    String,
    String,
    CompletionItemKind,
    Option<String>,
    Option<String>,
    String,
) -> CompletionItem;

/// `cf_<name>` items for the custom fields of the endpoint's object type (instance indexes only).
fn custom_field_items(
    index: &FilterIndex,
    ep: &crate::index::Endpoint,
    make: MakeItem,
) -> Vec<CompletionItem> {
    let Some(ot) = ep.object_type.as_deref() else {
        return Vec::new();
    };
    index
        .custom_fields_of(ot)
        .into_iter()
        .filter(|f| f.filter_logic != "disabled" && f.kind != "json")
        .map(|f| {
            let name = format!("cf_{}", f.name);
            make(
                name.clone(),
                name.clone(),
                CompletionItemKind::FIELD,
                Some(format!(
                    "custom field · {} · filter logic {}",
                    f.kind, f.filter_logic
                )),
                Some(format!(
                    "Custom field `{}` of this NetBox ({}), assigned to {}.{}",
                    f.name,
                    f.kind,
                    f.object_types.join(", "),
                    f.choices
                        .as_ref()
                        .map(|c| format!(" Values: {}.", c.join(", ")))
                        .unwrap_or_default()
                )),
                format!("0{name}"),
            )
        })
        .collect()
}

/// The choice values of a select/multiselect custom field `cf_<name>`; `None` when `filter` is
/// not one.
fn custom_field_choices(
    index: &FilterIndex,
    ep: &crate::index::Endpoint,
    filter: &str,
    make: MakeItem,
) -> Option<Vec<CompletionItem>> {
    let name = filter.strip_prefix("cf_")?;
    let ot = ep.object_type.as_deref()?;
    let fields = index.custom_fields_of(ot);
    let field = fields.iter().find(|f| f.name == name)?;
    let choices = field.choices.as_ref()?;
    Some(
        choices
            .iter()
            .enumerate()
            .map(|(i, v)| {
                make(
                    v.clone(),
                    v.clone(),
                    CompletionItemKind::ENUM_MEMBER,
                    field.choice_set.clone(),
                    None,
                    format!("{i:04}"),
                )
            })
            .collect(),
    )
}
