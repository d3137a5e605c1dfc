//! NetBox's own GraphQL rules: a type-directed walk over the parsed document that knows what
//! NetBox does with inputs the schema accepts (null filters, unpaginated lists, `start` with
//! `offset`) and how the grammar moved between releases (ID filters, choice filters, `filters:`,
//! `pagination:`). Facts: `design/netbox-facts.md` §3 and the ground-truth rows of
//! `netbox/v*/ground-truth.tsv`. All ranges here are byte offsets into the GraphQL text.
//!
//! The walk also records every unknown name with its candidates, so apollo-compiler's
//! diagnostics can be given a "did you mean".
//!
//! Layout (one file per rule family, like `rest/`): [`walk`] the type-directed walk and the
//! "did you mean" records; `operation` (`graphql-operation`), `filter_argument`
//! (`graphql-filter-argument`), `pagination` (`graphql-pagination`), `lookups` (scalars and
//! `@oneOf` wrappers where lookup objects are wanted), `null_filter` (`graphql-null-filter`),
//! `id_list` (`graphql-id-list`), `plugin` (`graphql-plugin-field`), `input_object` (repeated fields, `@oneOf` with several members: `graphql-validation`), `choice_form` (`graphql-choice-form`), `related` (a string for a related object's filter: `graphql-validation`), `object_type` (`app_label.model` for an object-type filter: `graphql-validation`), `alias_limit`
//! (`graphql-alias-limit`), `announced` (a field deprecated or announced for removal:
//! `announced-removal`). A new rule is one file with an `impl Ctx` block, called from the
//! walk, plus one fixture in `tests/fixtures/graphql/<version>/`.

mod alias_limit;
mod announced;
mod choice_form;
mod filter_argument;
mod id_list;
mod input_object;
mod lookups;
mod null_filter;
mod object_type;
mod operation;
mod pagination;
mod plugin;
mod related;
mod root_field;
mod walk;

pub use lookups::literal_fits;
pub use plugin::{looks_like_plugin, near_name};
pub use walk::walk;

use super::suggest::or_list;
use super::NetboxSchema;
use crate::finding::Severity;
use apollo_compiler::ast::{Type, Value};
use apollo_compiler::parser::SourceSpan;
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::{Name, Node};
use std::collections::HashMap;
use std::ops::Range;

/// A fix in GraphQL-text coordinates.
#[derive(Debug, Clone)]
pub struct RawFix {
    pub title: String,
    pub edits: Vec<(Range<usize>, String)>,
    pub certain: bool,
}

/// A finding in GraphQL-text coordinates. `claim` is the span whose apollo-compiler
/// diagnostics this finding replaces (so one problem is reported once, with NetBox's wording).
#[derive(Debug, Clone)]
pub struct RawFinding {
    pub range: Range<usize>,
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub fixes: Vec<RawFix>,
    pub claim: Option<Range<usize>>,
    /// What NetBox does, when it differs from the code's catalogue row
    /// ([`crate::finding::Facts::does`]).
    pub does: Option<crate::finding::Does>,
}

/// A name the schema does not know, with "did you mean" candidates.
#[derive(Debug, Clone)]
pub struct Unknown {
    pub range: Range<usize>,
    /// For an unknown input field: its value's span, where apollo-compiler reports it.
    pub value_range: Option<Range<usize>>,
    pub candidates: Vec<String>,
    /// For an unknown argument or input field: the written value's span. A fix is re-validated
    /// (`check`) there and at the name before it is offered.
    pub value_span: Option<Range<usize>>,
    /// One per candidate, same order: the fix that makes the name valid with the value as
    /// written (a rename, or a rename plus `{exact: ..}` around a scalar), or `None` when the
    /// candidate's type cannot take the value (`has_primary_ip: false` → `primary_ip4` wants an
    /// `IPAddressFilter` object, not a boolean).
    pub fixes: Vec<Option<RawFix>>,
    /// Each candidate's declared type (`IPAddressFilter`), for the message when none fits.
    pub types: Vec<String>,
    /// The written value's kind in words ("a boolean"), for an argument or input field.
    pub value_kind: Option<&'static str>,
    /// For an unknown field: its head (name and arguments) and the end of its selection set,
    /// so a fix is re-validated on the head and the selection is checked against the type the
    /// fix names (`devices(name: "x") { ... }` → `device_list(filters: ...)`'s `DeviceType`).
    pub field: Option<(Range<usize>, usize)>,
    /// Said instead of "did you mean" when the first candidate's fix is offered.
    pub note: Option<String>,
    /// Said when no candidate's fix is offered but the first one is a related object's filter
    /// the string value can be written for, matched by name or by slug and the value's form
    /// deciding neither (`tag: "Gateway"` → `tags: {name: {exact: "Gateway"}}` or
    /// `tags: {slug: ...}`).
    pub forms_note: Option<String>,
    /// The type or input type the name was looked up on (`DeviceType`, `DeviceFilter`), for
    /// the release that removed or added it ([`crate::graphql::history`]).
    pub owner: Option<String>,
}

/// A scalar written where a lookup object is wanted (`slug: "x"` for `StrFilterLookup`): the
/// fix `{exact: "x"}` is attached to apollo-compiler's diagnostic at `range`.
#[derive(Debug, Clone)]
pub struct WrapHint {
    pub range: Range<usize>,
    pub fix: RawFix,
    /// Said after the diagnostic instead of "NetBox filters take lookup objects".
    pub note: Option<String>,
}

/// What the walk found.
#[derive(Debug, Default)]
pub struct Walk {
    pub findings: Vec<RawFinding>,
    pub unknowns: Vec<Unknown>,
    pub hints: Vec<WrapHint>,
    /// Spans of root fields left to the instance's schema (`graphql-plugin-field`): a variable
    /// used only there is not "unused".
    pub unchecked: Vec<Range<usize>>,
    /// More spans whose apollo-compiler diagnostics a finding stands for (the misplaced filter
    /// arguments of one field, reported once).
    pub claims: Vec<Range<usize>>,
}

pub fn span(loc: Option<SourceSpan>) -> Option<Range<usize>> {
    loc.map(|l| l.offset()..l.end_offset())
}

pub(super) struct Ctx<'a> {
    pub(super) nb: &'a NetboxSchema,
    pub(super) text: &'a str,
    pub(super) out: Walk,
    /// Declared variable types of the operation being walked.
    pub(super) vars: HashMap<Name, Node<Type>>,
}

impl Ctx<'_> {
    pub(super) fn src(&self, r: &Range<usize>) -> &str {
        self.text.get(r.clone()).unwrap_or("")
    }

    pub(super) fn push(&mut self, f: RawFinding) {
        self.out.findings.push(f);
    }

    /// Extends an argument span over the separator before it (`, ` or spaces), for deletion.
    pub(super) fn with_separator(&self, r: Range<usize>) -> Range<usize> {
        let before = &self.text[..r.start];
        let trimmed = before.trim_end_matches([' ', '\t', ',', '\n', '\r']);
        trimmed.len()..r.end
    }

    pub(super) fn version_phrase(&self) -> String {
        if self.nb.netbox_version.is_empty() {
            " in this schema".into()
        } else {
            format!(" on NetBox {}", self.nb.netbox_version)
        }
    }
}

/// A literal's kind in words, for messages ("a boolean").
pub(super) fn kind_words(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Enum(_) => "an enum value",
        Value::Variable(_) => "this variable",
        Value::String(_) => "a string",
        Value::Float(_) => "a number",
        Value::Int(_) => "an integer",
        Value::Boolean(_) => "a boolean",
        Value::List(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(super) fn vr_end(v: &Node<Value>, fallback: usize) -> usize {
    span(v.location()).map(|r| r.end).unwrap_or(fallback)
}

/// Names of the fields of an object or interface type (none for other kinds), borrowed from
/// the schema: a document's check never copies a type's field list.
pub fn field_names<'a>(
    schema: &'a apollo_compiler::Schema,
    ty: &str,
) -> impl Iterator<Item = &'a str> + Clone {
    let fields = match schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => Some(&o.fields),
        Some(ExtendedType::Interface(o)) => Some(&o.fields),
        _ => None,
    };
    fields
        .into_iter()
        .flat_map(|f| f.keys().map(|k| k.as_str()))
}

/// Message suffix for candidates: ". Did you mean `a` or `b`?" (apollo messages end without a period).
pub fn did_you_mean_suffix(c: &[String]) -> String {
    if c.is_empty() {
        String::new()
    } else {
        format!(". Did you mean {}?", or_list(c))
    }
}
