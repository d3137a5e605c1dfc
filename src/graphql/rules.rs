//! NetBox's own GraphQL rules: a type-directed walk over the parsed document that knows what
//! NetBox does with inputs the schema accepts (null filters, unpaginated lists, `start` with
//! `offset`) and how the grammar moved between releases (ID filters, choice filters, `filters:`,
//! `pagination:`). Facts: `design/netbox-facts.md` §3 and the ground-truth rows of
//! `netbox/v*/ground-truth.tsv`. All ranges here are byte offsets into the GraphQL text.
//!
//! The walk also records every unknown name with its candidates, so apollo-compiler's
//! diagnostics can be given a "did you mean".

use super::suggest::{did_you_mean, or_list};
use super::NetboxSchema;
use crate::finding::Severity;
use apollo_compiler::ast::{self, Selection, Type, Value};
use apollo_compiler::parser::SourceSpan;
use apollo_compiler::schema::{ExtendedType, InputObjectType};
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
}

/// A scalar written where a lookup object is wanted (`slug: "x"` for `StrFilterLookup`): the
/// fix `{exact: "x"}` is attached to apollo-compiler's diagnostic at `range`.
#[derive(Debug, Clone)]
pub struct WrapHint {
    pub range: Range<usize>,
    pub fix: RawFix,
}

/// What the walk found.
#[derive(Debug, Default)]
pub struct Walk {
    pub findings: Vec<RawFinding>,
    pub unknowns: Vec<Unknown>,
    pub hints: Vec<WrapHint>,
}

pub fn span(loc: Option<SourceSpan>) -> Option<Range<usize>> {
    loc.map(|l| l.offset()..l.end_offset())
}

struct Ctx<'a> {
    nb: &'a NetboxSchema,
    text: &'a str,
    out: Walk,
    /// Declared variable types of the operation being walked.
    vars: HashMap<Name, Node<Type>>,
}

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
    fn src(&self, r: &Range<usize>) -> &str {
        self.text.get(r.clone()).unwrap_or("")
    }

    fn push(&mut self, f: RawFinding) {
        self.out.findings.push(f);
    }

    /// `graphql-operation`: NetBox's GraphQL API is read-only (no mutation root; agents'
    /// tools refuse anything but `query`, seeds ADR-0034).
    fn operation(&mut self, op: &Node<ast::OperationDefinition>) {
        let Some(whole) = span(op.location()) else {
            return;
        };
        let kw = op.operation_type.name();
        let range = whole.start..(whole.start + kw.len()).min(whole.end);
        self.push(RawFinding {
            range,
            code: "graphql-operation",
            severity: Severity::Error,
            message: format!(
                "NetBox's GraphQL API is read-only: a {kw} is refused (\"Schema is not configured to execute {kw} operation\"). Use a `query {{ ... }}`, or the REST API for changes."
            ),
            fixes: Vec::new(),
            claim: Some(whole),
        });
    }

    fn selections(&mut self, parent: &str, set: &[Selection], root: bool) {
        for sel in set {
            match sel {
                Selection::Field(f) => self.field(parent, f, root),
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

    fn field(&mut self, parent: &str, f: &Node<ast::Field>, root: bool) {
        let schema = &self.nb.schema;
        let Ok(def) = schema.type_field(parent, f.name.as_str()) else {
            if let Some(r) = span(f.name.location()) {
                let names = field_names(schema, parent);
                let candidates = did_you_mean(f.name.as_str(), names.iter().map(|s| s.as_str()));
                self.unknown(r, None, false, candidates, |_| None);
            }
            return;
        };
        let def = def.clone();
        let has = |n: &str| def.arguments.iter().any(|a| a.name == n);
        let mut legacy_pagination: Vec<&Node<ast::Argument>> = Vec::new();
        for arg in &f.arguments {
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
        if !legacy_pagination.is_empty() {
            self.legacy_pagination(
                &legacy_pagination,
                f,
                has("pagination") && f.arguments.iter().any(|a| a.name == "pagination"),
            );
        } else if root
            && has("pagination")
            && def.ty.is_list()
            && self.nb.caps_unpaginated_lists()
            && !f.arguments.iter().any(|a| a.name == "pagination")
        {
            if let Some(r) = span(f.name.location()) {
                self.push(RawFinding {
                    range: r,
                    code: "graphql-pagination",
                    severity: Severity::Warning,
                    message: format!(
                        "NetBox {} returns at most MAX_PAGE_SIZE (default 1000) objects from `{}` without `pagination`, silently. Add `pagination: {{limit: 500, offset: 0}}` and page through.",
                        self.nb.netbox_version,
                        f.name
                    ),
                    fixes: Vec::new(),
                    claim: None,
                });
            }
        }
        let inner = def.ty.inner_named_type().clone();
        if !f.selection_set.is_empty() {
            self.selections(inner.as_str(), &f.selection_set, false);
        }
    }

    /// `graphql-filter-argument`: `filter:` → `filters:` (strawberry-django names it plural).
    fn filter_argument(&mut self, arg: &Node<ast::Argument>, field: &Name) {
        let (Some(name_r), Some(whole)) = (span(arg.name.location()), span(arg.location())) else {
            return;
        };
        self.push(RawFinding {
            range: name_r.clone(),
            code: "graphql-filter-argument",
            severity: Severity::Error,
            message: format!(
                "`{field}` has no `filter` argument; NetBox's argument is `filters:` (plural), e.g. `{field}(filters: {{name: {{exact: \"x\"}}}})`."
            ),
            fixes: vec![RawFix {
                title: "Replace `filter` with `filters`".into(),
                edits: vec![(name_r, "filters".into())],
                certain: true,
            }],
            claim: Some(whole),
        });
    }

    /// `graphql-pagination`: `limit:`/`offset:` as field arguments → `pagination: {limit, offset}`.
    fn legacy_pagination(
        &mut self,
        args: &[&Node<ast::Argument>],
        f: &Node<ast::Field>,
        already: bool,
    ) {
        let parts: Vec<String> = args
            .iter()
            .filter_map(|a| {
                span(a.value.location()).map(|r| format!("{}: {}", a.name, self.src(&r)))
            })
            .collect();
        let working = format!("pagination: {{{}}}", parts.join(", "));
        let mut edits = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let Some(r) = span(a.location()) else { return };
            if i == 0 {
                edits.push((r, working.clone()));
            } else {
                edits.push((self.with_separator(r), String::new()));
            }
        }
        let claim = args
            .iter()
            .filter_map(|a| span(a.location()))
            .reduce(|a, b| a.start.min(b.start)..a.end.max(b.end));
        let Some(first) = span(args[0].location()) else {
            return;
        };
        let fixes = if already {
            Vec::new()
        } else {
            vec![RawFix {
                title: format!("Use `{working}`"),
                edits,
                certain: true,
            }]
        };
        self.push(RawFinding {
            range: first,
            code: "graphql-pagination",
            severity: Severity::Error,
            message: format!(
                "`{}` takes no `limit`/`offset` arguments; NetBox pages with `{working}`.",
                f.name
            ),
            fixes,
            claim,
        });
    }

    /// Extends an argument span over the separator before it (`, ` or spaces), for deletion.
    fn with_separator(&self, r: Range<usize>) -> Range<usize> {
        let before = &self.text[..r.start];
        let trimmed = before.trim_end_matches([' ', '\t', ',', '\n', '\r']);
        trimmed.len()..r.end
    }

    /// `pagination: {start, offset}` together: NetBox ≥ 4.5.10 answers "Cannot specify both
    /// `start` and `offset` in pagination".
    fn pagination(&mut self, arg: &Node<ast::Argument>) {
        let Value::Object(fields) = arg.value.as_ref() else {
            return;
        };
        if !self.nb.pagination_has_start {
            return;
        }
        let start = fields.iter().find(|(n, _)| n == "start");
        let offset = fields.iter().find(|(n, _)| n == "offset");
        if let (Some(s), Some(_)) = (start, offset) {
            if let Some(r) = span(s.0.location()) {
                self.push(RawFinding {
                    range: r,
                    code: "graphql-pagination",
                    severity: Severity::Error,
                    message: "NetBox refuses `start` together with `offset` (\"Cannot specify both `start` and `offset` in pagination\"): use `pagination: {offset: N, limit: M}` or `pagination: {start: ID, limit: M}`.".into(),
                    fixes: Vec::new(),
                    claim: None,
                });
            }
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
        let named = ty.inner_named_type().as_str().to_string();
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
                let Some(obj) = schema.get_input_object(&named).cloned() else {
                    return;
                };
                if fields.iter().any(|(n, _)| !obj.fields.contains_key(n))
                    && self.wrapper_form(&obj, &named, fields, &vr, field.map(|f| f.0))
                {
                    return;
                }
                for (name, fv) in fields {
                    match obj.fields.get(name) {
                        Some(fdef) => {
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
                            }
                        }
                    }
                }
            }
            Value::Enum(e) => {
                if let Some(en) = schema.get_enum(&named) {
                    if !en.values.contains_key(e.as_str()) {
                        let candidates =
                            did_you_mean(e.as_str(), en.values.keys().map(|k| k.as_str()));
                        self.unknown(vr, None, false, candidates, |_| None);
                    }
                } else if let Some(obj) = schema.get_input_object(&named).cloned() {
                    self.wrap_hint(&vr, v, &obj);
                }
            }
            Value::String(_) | Value::Int(_) | Value::Float(_) | Value::Boolean(_) => {
                if let Some(obj) = schema.get_input_object(&named).cloned() {
                    self.wrap_hint(&vr, v, &obj);
                }
            }
            _ => {}
        }
    }

    /// A scalar where a lookup object (`{exact: ..}`) is expected: offer the wrap as a fix on
    /// apollo-compiler's "expected value of type" diagnostic.
    fn wrap_hint(&mut self, vr: &Range<usize>, v: &Value, obj: &InputObjectType) {
        if let Some(new) = wrapped(&self.nb.schema, obj, v, self.src(vr)) {
            self.out.hints.push(WrapHint {
                range: vr.clone(),
                fix: RawFix {
                    title: format!("Use `{new}`"),
                    edits: vec![(vr.clone(), new)],
                    certain: true,
                },
            });
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
        });
    }

    /// An unknown key inside a `@oneOf` wrapper of lookup objects (`IntegerLookup` on every
    /// shipped version: `filter_lookup`, `range_lookup`, `comparison_lookup`): `vid: {gte: 100}`
    /// must be written `vid: {comparison_lookup: {gte: 100}}`. Returns false when `obj` is not
    /// such a wrapper.
    fn wrapper_form(
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
        });
        true
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
        let declared = schema.types.get(named);
        let lookup = schema.get_input_object(named);
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
            Value::Enum(_) | Value::String(_) | Value::List(_) if enum_lookup.is_some() => {
                let en = enum_lookup.unwrap_or_else(|| Name::new_unchecked("String"));
                self.choice_lookup_wanted(v, vr, fname, named, en.as_str());
                true
            }
            Value::String(_) | Value::Object(_)
                if matches!(declared, Some(ExtendedType::Enum(_))) && !ty.is_list() =>
            {
                self.choice_enum_wanted(v, vr, fname, named)
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

    /// `graphql-null-filter`: strawberry-django skips a filter whose value is `null` ("Filter
    /// will be skipped on `null` value"), so the query returns every object (ground truth:
    /// `tenant_id: null`, `tenant: {id: null}`, `serial: {exact: null}` → 72 of 72 devices).
    fn null_filter(
        &mut self,
        vr: &Range<usize>,
        fname: &Name,
        parent: &InputObjectType,
        lookup: Option<&InputObjectType>,
    ) {
        let schema = &self.nb.schema;
        let mut fixes = Vec::new();
        let working;
        if lookup.is_some_and(|o| o.fields.contains_key("is_null")) {
            // `name: null` where `name` is a lookup object.
            working = format!("{fname}: {{is_null: true}}");
            fixes.push(RawFix {
                title: "Use `{is_null: true}`".into(),
                edits: vec![(vr.clone(), "{is_null: true}".into())],
                certain: true,
            });
        } else if parent.fields.contains_key("is_null") && fname != "is_null" {
            // `{exact: null}` inside a lookup object: the fix replaces this lookup key.
            working = "{is_null: true}".to_string();
            if let Some(nr) = span(fname.location()) {
                fixes.push(RawFix {
                    title: "Use `is_null: true`".into(),
                    edits: vec![(nr.start..vr.end, "is_null: true".into())],
                    certain: true,
                });
            }
        } else {
            // A bare scalar (`tenant_id: null`, 4.3 `id: null`): point at a lookup with
            // `is_null` on the related filter (`tenant: {name: {is_null: true}}` is honoured
            // on every shipped version).
            let (target_filter, key) = match fname.as_str().strip_suffix("_id") {
                Some(base) => (
                    parent
                        .fields
                        .get(base)
                        .and_then(|f| schema.get_input_object(f.ty.inner_named_type()))
                        .map(|n| &**n),
                    Some(base.to_string()),
                ),
                None => (Some(parent), None),
            };
            let lookup_key = target_filter.and_then(|t| {
                ["id", "name", "slug"].into_iter().find(|k| {
                    t.fields.get(*k).is_some_and(|f| {
                        schema
                            .get_input_object(f.ty.inner_named_type())
                            .is_some_and(|o| o.fields.contains_key("is_null"))
                    })
                })
            });
            working = match (&key, lookup_key) {
                (Some(base), Some(k)) => format!("{base}: {{{k}: {{is_null: true}}}}"),
                (None, Some(k)) => format!("{k}: {{is_null: true}}"),
                _ => "an `is_null: true` lookup".to_string(),
            };
            if lookup_key.is_some() {
                if let Some(nr) = span(fname.location()) {
                    fixes.push(RawFix {
                        title: format!("Use `{working}`"),
                        edits: vec![(nr.start..vr.end, working.clone())],
                        certain: false,
                    });
                }
            }
        }
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-null-filter",
            severity: Severity::Error,
            message: format!(
                "NetBox skips a filter whose value is `null`: `{fname}: null` filters nothing and every object comes back. To match objects where it is empty use `{working}`; to filter by a value, give the value."
            ),
            fixes,
            claim: Some(vr.clone()),
        });
    }

    /// A list or lookup object on a bare `ID` filter (NetBox 4.3/4.4 `id`, every `*_id`).
    fn id_bare_wanted(&mut self, v: &Value, vr: &Range<usize>, fname: &Name, whole: &Range<usize>) {
        let single = match v {
            Value::List(items) if items.len() == 1 => Some(&items[0]),
            Value::Object(fields) if fields.len() == 1 && (fields[0].0 == "exact") => {
                Some(&fields[0].1)
            }
            Value::Object(fields) if fields.len() == 1 && fields[0].0 == "in_list" => {
                match fields[0].1.as_ref() {
                    Value::List(items) if items.len() == 1 => Some(&items[0]),
                    _ => None,
                }
            }
            _ => None,
        };
        let mut fixes = Vec::new();
        if let Some(one) = single.and_then(|n| span(n.location())) {
            let t = self.src(&one).to_string();
            fixes.push(RawFix {
                title: format!("Use `{fname}: {t}`"),
                edits: vec![(vr.clone(), t)],
                certain: true,
            });
        }
        let version = self.version_phrase();
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-id-list",
            severity: Severity::Error,
            message: format!(
                "`{fname}` takes one bare ID{version} (`{fname}: 6`); a list or lookup object is refused (\"ID cannot represent a non-string and non-integer value\"). For several IDs combine filters with `OR: {{{fname}: 7}}`."
            ),
            fixes,
            claim: Some(whole.clone()),
        });
    }

    /// A bare ID or list where the version wants a lookup object (NetBox 4.5+ `id`).
    fn id_lookup_wanted(&mut self, v: &Value, vr: &Range<usize>, fname: &Name, lookup: &str) {
        let t = self.src(vr).to_string();
        let new = match v {
            Value::List(_) => format!("{{in_list: {t}}}"),
            Value::Variable(n) if self.vars.get(n).is_some_and(|t| t.is_list()) => {
                format!("{{in_list: {t}}}")
            }
            _ => format!("{{exact: {t}}}"),
        };
        let version = self.version_phrase();
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-id-list",
            severity: Severity::Error,
            message: format!(
                "`{fname}` takes a lookup object{version} (`{lookup}`): write `{fname}: {new}`; a bare ID or list is refused."
            ),
            fixes: vec![RawFix {
                title: format!("Use `{fname}: {new}`"),
                edits: vec![(vr.clone(), new.clone())],
                certain: true,
            }],
            claim: Some(vr.clone()),
        });
    }

    /// A choice filter written as a bare enum or string where the version wants
    /// `{exact: ENUM}` (NetBox 4.5+ `*EnumBaseFilterLookup`).
    fn choice_lookup_wanted(
        &mut self,
        v: &Value,
        vr: &Range<usize>,
        fname: &Name,
        lookup: &str,
        en: &str,
    ) {
        let new = match v {
            Value::Enum(e) => Some(format!("{{exact: {e}}}")),
            Value::String(s) => self
                .enum_for_string(en, s)
                .map(|e| format!("{{exact: {e}}}")),
            Value::List(items) => {
                let vals: Option<Vec<String>> = items
                    .iter()
                    .map(|i| match i.as_ref() {
                        Value::Enum(e) => Some(e.to_string()),
                        Value::String(s) => self.enum_for_string(en, s),
                        _ => None,
                    })
                    .collect();
                vals.map(|v| format!("{{in_list: [{}]}}", v.join(", ")))
            }
            _ => None,
        };
        let example = new
            .clone()
            .unwrap_or_else(|| format!("{{exact: {}}}", self.first_enum_value(en)));
        let version = self.version_phrase();
        let message = format!(
            "Choice filter `{fname}` takes a lookup object{version} (`{lookup}`) with `{en}` values: write `{fname}: {example}`; a bare value is refused."
        );
        self.push_choice_form(vr, fname, message, new);
    }

    /// Pushes a `graphql-choice-form` finding on the value `vr`, with the version's form `new`
    /// as the certain fix when there is one.
    fn push_choice_form(
        &mut self,
        vr: &Range<usize>,
        fname: &str,
        message: String,
        new: Option<String>,
    ) {
        let mut f = RawFinding {
            range: vr.clone(),
            code: "graphql-choice-form",
            severity: Severity::Error,
            message,
            fixes: Vec::new(),
            claim: Some(vr.clone()),
        };
        if let Some(new) = new {
            f.fixes.push(RawFix {
                title: format!("Use `{fname}: {new}`"),
                edits: vec![(vr.clone(), new)],
                certain: true,
            });
        }
        self.push(f);
    }

    /// A choice filter given as a string or lookup object where the version wants a bare enum
    /// value (NetBox 4.3/4.4: `status: STATUS_ACTIVE`). Returns false when the value is fine.
    fn choice_enum_wanted(&mut self, v: &Value, vr: &Range<usize>, fname: &Name, en: &str) -> bool {
        let version = self.version_phrase();
        let (new, note) = match v {
            Value::String(s) => (self.enum_for_string(en, s), String::new()),
            Value::Object(fields) if fields.len() == 1 && fields[0].0 == "exact" => (
                span(fields[0].1.location()).map(|r| self.src(&r).to_string()),
                String::new(),
            ),
            Value::Object(fields) => {
                let items: Vec<String> = fields
                    .iter()
                    .filter(|(n, _)| n == "in_list")
                    .flat_map(|(_, v)| match v.as_ref() {
                        Value::List(items) => items
                            .iter()
                            .filter_map(|i| match i.as_ref() {
                                Value::Enum(e) => Some(e.to_string()),
                                _ => None,
                            })
                            .collect(),
                        _ => Vec::new(),
                    })
                    .collect();
                let example = match items.as_slice() {
                    [a, b, ..] => format!("`{fname}: {a}, OR: {{{fname}: {b}}}`"),
                    _ => format!("`OR: {{{fname}: ...}}`"),
                };
                (
                    items.first().cloned(),
                    format!(" Lookups such as `in_list` do not exist here; combine values with {example}."),
                )
            }
            _ => return false,
        };
        let example = new.clone().unwrap_or_else(|| self.first_enum_value(en));
        let message = format!(
            "Choice filter `{fname}` takes a bare `{en}` value{version}: write `{fname}: {example}` (not a string, not a lookup object).{note}"
        );
        self.push_choice_form(vr, fname, message, new);
        true
    }

    /// The enum value for a choice value written as a string: `"active"` → `STATUS_ACTIVE`
    /// (`ChoiceSet.as_enum(prefix=...)` names members `<PREFIX>_<VALUE>`), also exact names.
    fn enum_for_string(&self, en: &str, s: &str) -> Option<String> {
        let e = self.nb.schema.get_enum(en)?;
        let want = s.trim().to_ascii_uppercase().replace(['-', ' '], "_");
        if e.values.contains_key(want.as_str()) {
            return Some(want);
        }
        let hits: Vec<&Name> = e
            .values
            .keys()
            .filter(|k| k.as_str().ends_with(&format!("_{want}")))
            .collect();
        (hits.len() == 1).then(|| hits[0].to_string())
    }

    fn first_enum_value(&self, en: &str) -> String {
        self.nb
            .schema
            .get_enum(en)
            .and_then(|e| e.values.keys().next().map(|k| k.to_string()))
            .unwrap_or_else(|| "VALUE".into())
    }

    fn version_phrase(&self) -> String {
        if self.nb.netbox_version.is_empty() {
            " in this schema".into()
        } else {
            format!(" on NetBox {}", self.nb.netbox_version)
        }
    }

    /// `graphql-alias-limit`: strawberry's `MaxAliasesLimiter` counts aliased fields in every
    /// operation (nested fields and inline fragments, not fragment definitions) and refuses the
    /// document above `GRAPHQL_MAX_ALIASES` (default 10): "11 aliases found. Allowed: 10".
    fn aliases(&mut self, doc: &ast::Document) {
        let mut found = Vec::new();
        for def in &doc.definitions {
            if let ast::Definition::OperationDefinition(op) = def {
                collect_aliases(&op.selection_set, &mut found);
            }
        }
        let max = self.nb.max_aliases();
        if found.len() > max {
            let range = found[max].clone();
            self.push(RawFinding {
                range,
                code: "graphql-alias-limit",
                severity: Severity::Error,
                message: format!(
                    "{} aliases in this document; NetBox allows {max} (GRAPHQL_MAX_ALIASES) and refuses the whole request. Split it into several requests, or use one `*_list` field with `filters: {{id: ...}}` instead of one aliased field per object.",
                    found.len()
                ),
                fixes: Vec::new(),
                claim: None,
            });
        }
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
                    Value::Enum(_) => schema.get_enum(named).is_some(),
                    _ => true,
                }
        }
    }
}

/// A scalar `text` wrapped into the lookup object `obj` when its `exact` can take it:
/// `{exact: "x"}`, or through a `@oneOf` wrapper `{filter_lookup: {exact: 100}}`.
fn wrapped(
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
fn one_of_members(
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

/// A literal's kind in words, for messages ("a boolean").
fn kind_words(v: &Value) -> &'static str {
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

fn vr_end(v: &Node<Value>, fallback: usize) -> usize {
    span(v.location()).map(|r| r.end).unwrap_or(fallback)
}

fn collect_aliases(set: &[Selection], out: &mut Vec<Range<usize>>) {
    for sel in set {
        match sel {
            Selection::Field(f) => {
                if let Some(r) = f.alias.as_ref().and_then(|a| span(a.location())) {
                    out.push(r);
                }
                collect_aliases(&f.selection_set, out);
            }
            Selection::InlineFragment(i) => collect_aliases(&i.selection_set, out),
            Selection::FragmentSpread(_) => {}
        }
    }
}

/// Names of the fields of an object or interface type (empty for other kinds).
pub fn field_names(schema: &apollo_compiler::Schema, ty: &str) -> Vec<String> {
    match schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => o.fields.keys().map(|k| k.to_string()).collect(),
        Some(ExtendedType::Interface(o)) => o.fields.keys().map(|k| k.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Message suffix for candidates: ". Did you mean `a` or `b`?" (apollo messages end without a period).
pub fn did_you_mean_suffix(c: &[String]) -> String {
    if c.is_empty() {
        String::new()
    } else {
        format!(". Did you mean {}?", or_list(c))
    }
}
