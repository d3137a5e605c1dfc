//! `textDocument/completion`: object types where one is expected, the endpoint's real filter
//! names (lookups included) in a filters dict / keyword arguments / query string, and choice
//! values after a choice filter — from the selected NetBox version's filter index. Nothing is
//! offered outside a recognised NetBox call.

use super::context::{self, Context, Expect, Quote};
use super::position::{Encoding, Snapshot};
use super::request::{self, Request};
use super::{graphql_site, lock, Backend};
use crate::extract::unit::CodeUnit;
use crate::extract::{GraphqlDoc, HostKind};
use crate::graphql::{GqlCompletionKind, NetboxSchema};
use crate::index::{FilterIndex, Parameter, ValueKind};
use std::collections::BTreeSet;
use std::sync::Arc;
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
    // Filter documentation is left for `completionItem/resolve` when the client resolves it.
    let docs = if lock(&backend.state.caps).lazy_docs {
        Docs::Lazy(lock(&backend.state.lazy_docs).next_id())
    } else {
        Docs::Eager
    };
    let state = backend.state.clone();
    let items = request::run(backend, "completion", move || {
        let (snap, kind, enc) = (&req.view.snap, req.view.kind, req.enc);
        let offset = req.offset(pos.position);
        // The unit under the cursor, found once for the GraphQL and the REST contexts (a
        // Markdown document is read once per version: `Snapshot::unit_at`).
        let unit = snap.unit_at(kind, offset);
        if let Some(schema) = loaded.knowledge.graphql.as_deref() {
            if let Some((doc, at)) = graphql_site::locate_in_unit(snap, kind, offset, unit.as_ref())
            {
                let items = graphql_items(&doc, at, schema, snap, enc);
                return (!items.is_empty()).then_some(items);
            }
        }
        let ctx = rest_context(&snap.text, offset, kind, unit.as_ref())?;
        let index = loaded.knowledge.index.as_ref()?;
        let items = items_with(&ctx, index, snap, enc, docs);
        if let (Docs::Lazy(id), Expect::FilterName { target }) = (docs, &ctx.expect) {
            if items.iter().any(|i| i.data.is_some()) {
                lock(&state.lazy_docs).keep(id, index.clone(), target.clone());
            }
        }
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

/// The REST context at `offset` of `text` (a host document of `kind`): [`context::at_unit`], else
/// [`super::form_context::at_unit`], with `unit` the unit holding `offset` ([`Snapshot::unit_at`]).
pub fn rest_context(
    text: &str,
    offset: usize,
    kind: HostKind,
    unit: Option<&CodeUnit>,
) -> Option<Context> {
    unit.and_then(|u| context::at_unit(text, offset, u))
        .or_else(|| super::form_context::at_unit(text, offset, kind, unit))
}

/// Handles `completionItem/resolve`: fills in the documentation of a filter item whose list left
/// it out ([`Docs::Lazy`]); any other item comes back as it was sent.
pub async fn resolve(backend: &Backend, mut item: CompletionItem) -> Result<CompletionItem> {
    if item.documentation.is_some() {
        return Ok(item);
    }
    let Some(id) = item.data.as_ref().and_then(serde_json::Value::as_u64) else {
        return Ok(item);
    };
    let found = lock(&backend.state.lazy_docs).list(id);
    if let Some((index, target)) = found {
        if let Some((key, ep)) = index.resolve(&target) {
            if let Some(p) = ep.params.get(item.label.as_str()) {
                item.documentation = Some(markdown(param_doc(&item.label, p, &index, key)));
            }
        }
    }
    Ok(item)
}

/// How the documentation of filter items is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Docs {
    /// With each item.
    Eager,
    /// Left out; each filter item carries the list's id as `data`, and `completionItem/resolve`
    /// fills the documentation in ([`resolve`]). For clients that resolve `documentation`
    /// lazily: a filters list of `/api/dcim/devices/` is 369 items, about a fifth of whose JSON
    /// is documentation.
    Lazy(u64),
}

/// Lists answered with [`Docs::Lazy`] that `completionItem/resolve` may still ask about.
const LAZY_LISTS: usize = 4;

/// The last [`LAZY_LISTS`] filter lists whose documentation was left out: each list's id, the
/// index it was answered from and the target of its filters (an object type or endpoint as
/// written), newest last.
#[derive(Debug, Default)]
pub struct LazyDocs {
    next: u64,
    lists: std::collections::VecDeque<(u64, Arc<FilterIndex>, String)>,
}

impl LazyDocs {
    /// A new list id.
    pub fn next_id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// Keeps list `id` (its filters those of `target` in `index`), forgetting the oldest beyond
    /// [`LAZY_LISTS`].
    pub fn keep(&mut self, id: u64, index: Arc<FilterIndex>, target: String) {
        if self.lists.len() == LAZY_LISTS {
            self.lists.pop_front();
        }
        self.lists.push_back((id, index, target));
    }

    /// The index and target of list `id`, if it is still kept.
    pub fn list(&self, id: u64) -> Option<(Arc<FilterIndex>, String)> {
        self.lists
            .iter()
            .find(|(i, _, _)| *i == id)
            .map(|(_, index, target)| (index.clone(), target.clone()))
    }
}

fn markdown(value: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
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

/// Completion items for `ctx` from `index`, each with its documentation.
pub fn items(
    ctx: &Context,
    index: &FilterIndex,
    snap: &Snapshot,
    enc: Encoding,
) -> Vec<CompletionItem> {
    items_with(ctx, index, snap, enc, Docs::Eager)
}

/// [`items`], the documentation of filter items sent as `docs` says. The items' `filterText` is
/// left out: it was always the label, which a client filters by when it is absent.
pub fn items_with(
    ctx: &Context,
    index: &FilterIndex,
    snap: &Snapshot,
    enc: Encoding,
    docs: Docs,
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
            label,
            kind: Some(kind),
            detail,
            documentation: doc.map(markdown),
            sort_text: Some(sort),
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
                    let doc = match docs {
                        Docs::Eager => Some(param_doc(name, p, index, key)),
                        Docs::Lazy(_) => None,
                    };
                    let mut item = make(
                        name.to_string(),
                        name.to_string(),
                        if lookup {
                            CompletionItemKind::OPERATOR
                        } else {
                            CompletionItemKind::FIELD
                        },
                        Some(detail(p, index)),
                        doc,
                        format!("{}{name}", u8::from(lookup)),
                    );
                    if let Docs::Lazy(id) = docs {
                        item.data = Some(serde_json::Value::from(id));
                    }
                    item
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
    let mut s = kind_name(p.kind).to_string();
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

/// The name of a value kind as the index writes it (its serde name: `date-time`).
fn kind_name(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::String => "string",
        ValueKind::Integer => "integer",
        ValueKind::Number => "number",
        ValueKind::Boolean => "boolean",
        ValueKind::Date => "date",
        ValueKind::DateTime => "date-time",
        ValueKind::Uuid => "uuid",
    }
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
            label: c.label,
            kind: Some(match c.kind {
                GqlCompletionKind::Field => CompletionItemKind::FIELD,
                GqlCompletionKind::Argument => CompletionItemKind::PROPERTY,
                GqlCompletionKind::InputField => CompletionItemKind::PROPERTY,
                GqlCompletionKind::EnumValue => CompletionItemKind::ENUM_MEMBER,
                GqlCompletionKind::Keyword => CompletionItemKind::KEYWORD,
            }),
            detail: Some(c.detail),
            sort_text: Some(format!("{i:05}")),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The detail names a value kind as the index's serde name does.
    #[test]
    fn kind_names_are_the_serde_names() {
        for k in ValueKind::ALL {
            assert_eq!(serde_json::to_value(k).unwrap(), kind_name(k), "{k:?}");
        }
    }

    /// Lists are kept up to [`LAZY_LISTS`], the oldest forgotten first.
    #[test]
    fn lazy_lists_keep_the_newest() {
        let index = Arc::new(FilterIndex::empty("4.7.3"));
        let mut lazy = LazyDocs::default();
        let ids: Vec<u64> = (0..LAZY_LISTS + 1).map(|_| lazy.next_id()).collect();
        for (i, id) in ids.iter().enumerate() {
            lazy.keep(*id, index.clone(), format!("t{i}"));
        }
        assert!(lazy.list(ids[0]).is_none());
        assert_eq!(
            lazy.list(ids[LAZY_LISTS]).unwrap().1,
            format!("t{LAZY_LISTS}")
        );
        assert_eq!(lazy.list(ids[1]).unwrap().1, "t1");
    }
}
