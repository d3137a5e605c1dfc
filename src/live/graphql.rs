//! A GraphQL document checked live (pure): which operations may be sent and in what form, and
//! the findings NetBox's answer gives.
//!
//! - Only `query` operations are sent: a document with a mutation or subscription is refused
//!   before any request (`live-not-sent`), as is an operation whose variables have no values.
//! - Every root list is bounded: a root field of list type needs `pagination: {limit: N}`
//!   (a literal, or a variable with a value). Without it the operation is refused, unless the
//!   user lets netbox-lsp add `pagination: {limit: N}` ([`Bound::Limit`]) or send it as
//!   written ([`Bound::AsWritten`]).
//! - NetBox's errors become `live-graphql-error` at their location (`locations` are 1-based
//!   line and column in Unicode characters of the text sent, graphql-core's `SourceLocation`),
//!   mapped back through the added text to the host; the objects each root field returned
//!   become `live-graphql-objects`.
//! - Where the knowledge and NetBox disagree on whether the operation is valid (a static
//!   rejection NetBox runs without errors; a validation error, which graphql-core sends with
//!   `locations` and without a `path`, on an operation the knowledge accepts), `live-differs`.

use super::digest::{Digest, Shape};
use super::{deny, Answer, Answers, Bound, Request, Skip, Summary};
use crate::extract::{GraphqlDoc, OffsetMap};
use crate::finding::{Finding, Severity};
use crate::graphql::NetboxSchema;
use apollo_compiler::ast::{self, Definition, OperationType, Selection, Value};
use apollo_compiler::schema::ExtendedType;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// Static GraphQL codes that mean NetBox rejects the operation.
const REJECTS: &[&str] = &[
    "graphql-syntax",
    "graphql-validation",
    "graphql-filter-argument",
    "graphql-pagination",
    "graphql-id-list",
    "graphql-choice-form",
    "graphql-alias-limit",
];

/// One root field of an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The response key (alias, else the field name).
    pub key: String,
    pub name: String,
    /// Host bytes of the field's name (or alias).
    pub range: Range<usize>,
    pub list: bool,
    /// How netbox-lsp bounded it, for its finding (` (netbox-lsp added `pagination: {limit:
    /// 5}`)`); `None` when it was sent as written.
    pub bounded_by: Option<String>,
}

/// One query operation to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpProbe {
    pub request: Request,
    /// Host bytes of the operation.
    pub range: Range<usize>,
    pub roots: Vec<Root>,
    /// Static findings of this operation that mean NetBox rejects it.
    pub static_rejects: Vec<&'static str>,
}

/// The operations of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocProbe {
    /// Host bytes of the document.
    pub range: Range<usize>,
    pub operations: Vec<OpProbe>,
    /// The text sent (the document with any added `pagination`).
    sent: String,
    /// Changes made, in order: (offset in the document text, bytes removed there, bytes put
    /// in their place).
    edits: Vec<(usize, usize, usize)>,
    map: OffsetMap,
    /// The document as written.
    text: String,
    len: usize,
}

/// One query operation while it is planned: its range in the document text, name, root fields
/// and variables (with any limit added).
struct Op {
    range: Range<usize>,
    name: Option<String>,
    roots: Vec<Root>,
    variables: serde_json::Value,
}

/// What becomes of a document.
#[derive(Debug)]
pub enum Planned {
    Probe(DocProbe),
    /// Refused before any request: the `live-not-sent` findings and the kind of refusal
    /// (`mutation`, `unbounded list`, `introspection`, `sensitive`).
    Refused(Vec<Finding>, &'static str),
    /// Not a document that can be sent (does not parse, several examples side by side,
    /// placeholders, variables without values); why.
    NotCheckable(Skip),
}

fn span(loc: Option<apollo_compiler::parser::SourceSpan>) -> Option<Range<usize>> {
    loc.map(|l| l.offset()..l.end_offset())
}

/// The live plan of one GraphQL document under `schema`.
pub fn doc_probe(doc: &GraphqlDoc, schema: &NetboxSchema, bound: Bound) -> Planned {
    let text = doc.text.as_str();
    let host = |r: Range<usize>| doc.map.range_to_host(r);
    let whole = host(0..text.len());
    if crate::graphql::split::blank_placeholders(text).is_some() {
        return Planned::NotCheckable(Skip::new(
            "value not literal",
            "the document holds placeholders",
        ));
    }
    let Ok(ast) = crate::graphql::check::parse(text) else {
        return Planned::NotCheckable(Skip::new("does not parse", "the document does not parse"));
    };
    let ops: Vec<&ast::OperationDefinition> = ast
        .definitions
        .iter()
        .filter_map(|d| match d {
            Definition::OperationDefinition(o) => Some(&**o),
            _ => None,
        })
        .collect();
    if ops.is_empty() {
        return Planned::NotCheckable(Skip::new("no operation", "the document has no operation"));
    }
    let not_sent =
        |r: Range<usize>, msg: String| Finding::new(r, "live-not-sent", Severity::Information, msg);
    let op_range = |o: &ast::OperationDefinition| {
        ast.definitions
            .iter()
            .find_map(|d| match d {
                Definition::OperationDefinition(n) if std::ptr::eq(&**n, o) => span(n.location()),
                _ => None,
            })
            .unwrap_or(0..text.len())
    };
    let writes: Vec<Finding> = ops
        .iter()
        .filter(|o| o.operation_type != OperationType::Query)
        .map(|o| {
            not_sent(
                host(op_range(o)),
                format!(
                    "Not sent to NetBox: a {}; live checks send only query operations, and never a document that holds anything else.",
                    if o.operation_type == OperationType::Mutation { "mutation" } else { "subscription" }
                ),
            )
        })
        .collect();
    if !writes.is_empty() {
        return Planned::Refused(writes, "mutation");
    }
    if ops.len() > 1 && ops.iter().any(|o| o.name.is_none()) {
        return Planned::NotCheckable(Skip::new(
            "does not parse",
            "an anonymous operation beside others",
        ));
    }
    let fragments: HashMap<&str, &ast::FragmentDefinition> = ast
        .definitions
        .iter()
        .filter_map(|d| match d {
            Definition::FragmentDefinition(f) => Some((f.name.as_str(), &**f)),
            _ => None,
        })
        .collect();
    let query_type = schema
        .schema
        .schema_definition
        .query
        .as_ref()
        .map_or("Query", |q| q.name.as_str());
    let query_fields = match schema.schema.types.get(query_type) {
        Some(ExtendedType::Object(o)) => Some(&o.fields),
        _ => None,
    };
    let statics = crate::graphql::check_document(doc, schema);
    // Never sent, whatever the bound: introspection, the users app, filters on secrets.
    let mut sensitive = Vec::new();
    let mut introspection = Vec::new();
    for o in &ops {
        let mut fields = Vec::new();
        collect_roots(
            &o.selection_set,
            &fragments,
            &mut HashSet::new(),
            &mut fields,
        );
        for f in fields {
            let r = host(span(f.name.location()).unwrap_or(op_range(o)));
            if f.name == "__schema" || f.name == "__type" {
                introspection.push(not_sent(r, format!(
                    "Not sent to NetBox: `{}` is an introspection query, which live checks never forward (the schema comes from `netbox-lsp index build --url`).",
                    f.name
                )));
            } else if deny::graphql_root(&f.name) {
                sensitive.push(not_sent(r, format!(
                    "Not sent to NetBox: `{}` lists users, groups, tokens, permissions or owners, which are never probed: its count would tell what it holds, and a repository's CI log is public.",
                    f.name
                )));
            }
        }
        if let Some((name, at)) = secret_argument(&o.selection_set, &fragments) {
            sensitive.push(not_sent(
                host(at.unwrap_or(op_range(o))),
                format!("Not sent to NetBox: `{name}` filters on a secret value, which is never probed: its count would tell what it holds."),
            ));
        }
    }
    if !introspection.is_empty() {
        return Planned::Refused(introspection, "introspection");
    }
    if !sensitive.is_empty() {
        return Planned::Refused(sensitive, "sensitive");
    }
    let mut edits: Vec<Edit> = Vec::new();
    let mut refused = Vec::new();
    let mut planned: Vec<Op> = Vec::new();
    for o in &ops {
        let range = op_range(o);
        let mut variables = doc.variables.clone().unwrap_or(serde_json::json!({}));
        if let Some(v) = o
            .variables
            .iter()
            .find(|v| v.default_value.is_none() && variables.get(v.name.as_str()).is_none())
        {
            if v.ty.is_non_null() || doc.variables.is_none() {
                return Planned::NotCheckable(Skip::new(
                    "value not literal",
                    format!("`${}` has no value", v.name),
                ));
            }
        }
        let mut fields = Vec::new();
        collect_roots(
            &o.selection_set,
            &fragments,
            &mut HashSet::new(),
            &mut fields,
        );
        let mut roots = Vec::new();
        for f in fields {
            let def = query_fields.and_then(|q| q.get(f.name.as_str()));
            let list = def.is_some_and(|d| d.ty.is_list());
            let paginated = def.is_some_and(|d| d.arguments.iter().any(|a| a.name == "pagination"));
            let key = f.alias.as_ref().unwrap_or(&f.name).to_string();
            let name_range =
                span(f.alias.as_ref().unwrap_or(&f.name).location()).unwrap_or(range.clone());
            let mut root = Root {
                key,
                name: f.name.to_string(),
                range: host(name_range),
                list,
                bounded_by: None,
            };
            if list {
                let add = match bound {
                    Bound::Limit(n) => Some(n.min(ROOT_LIMIT)),
                    _ => None,
                };
                match bounded(f, &mut variables, add, ROOT_LIMIT) {
                    Limit::Bounded => {}
                    Limit::Capped(edit) => {
                        push_edit(&mut edits, edit);
                        root.bounded_by = Some(format!(" (netbox-lsp lowered its `limit` to {ROOT_LIMIT}, the most a live check asks for)"));
                    }
                    Limit::CappedVariable => {
                        root.bounded_by = Some(format!(" (netbox-lsp lowered the `limit` of its variable to {ROOT_LIMIT}, the most a live check asks for)"));
                    }
                    Limit::Add(edit, n) if paginated => {
                        push_edit(&mut edits, edit);
                        root.bounded_by =
                            Some(format!(" (netbox-lsp added `pagination: {{limit: {n}}}`)"));
                    }
                    Limit::Unbounded | Limit::Add(..) if bound == Bound::AsWritten => {}
                    _ => refused.push(not_sent(
                        root.range.clone(),
                        format!(
                            "Not sent to NetBox: `{}` is a list without `pagination: {{limit: N}}`, which could return every object. Add a limit, or let netbox-lsp add one (`check --live-graphql-limit N`; editor setting `live.graphqlLimit`).",
                            root.name
                        ),
                    )),
                }
            }
            // Lists inside: bounded too, and nested at most MAX_LIST_DEPTH deep.
            if let Some(def) = def {
                let mut walk = Nested {
                    schema: &schema.schema,
                    fragments: &fragments,
                    variables: &mut variables,
                    edits: &mut edits,
                    stack: HashSet::new(),
                };
                if let Err((at, why)) = walk.set(
                    &f.selection_set,
                    def.ty.inner_named_type().as_str(),
                    usize::from(list),
                ) {
                    refused.push(not_sent(host(at.unwrap_or(range.clone())), why));
                }
            }
            roots.push(root);
        }
        let name = o.name.as_ref().map(|n| n.to_string());
        planned.push(Op {
            range,
            name,
            roots,
            variables,
        });
    }
    if !refused.is_empty() {
        return Planned::Refused(refused, "unbounded list");
    }
    edits.sort_by_key(|e| (e.at, e.remove));
    let mut sent = String::with_capacity(text.len() + 32 * edits.len());
    let mut last = 0;
    for e in &edits {
        sent.push_str(&text[last..e.at]);
        sent.push_str(&e.text);
        last = e.at + e.remove;
    }
    sent.push_str(&text[last..]);
    let operations = planned
        .into_iter()
        .map(
            |Op {
                 range,
                 name,
                 roots,
                 variables,
             }| {
                let mut body = serde_json::json!({ "query": sent });
                if variables.as_object().is_some_and(|v| !v.is_empty()) {
                    body["variables"] = variables;
                }
                if let Some(n) = &name {
                    body["operationName"] = serde_json::Value::String(n.clone());
                }
                let hr = host(range.clone());
                let static_rejects = statics
                    .iter()
                    .filter(|f| {
                        f.severity == Severity::Error
                            && REJECTS.contains(&f.code)
                            && f.range.start <= hr.end
                            && hr.start <= f.range.end
                    })
                    .map(|f| f.code)
                    .collect();
                OpProbe {
                    request: Request::Graphql {
                        body: body.to_string(),
                    },
                    range: hr,
                    roots,
                    static_rejects,
                }
            },
        )
        .collect();
    Planned::Probe(DocProbe {
        range: whole,
        operations,
        sent,
        edits: edits
            .iter()
            .map(|e| (e.at, e.remove, e.text.len()))
            .collect(),
        map: doc.map.clone(),
        text: text.to_string(),
        len: text.len(),
    })
}

/// Most objects a root list is asked for: a literal or variable `limit` above it is lowered,
/// and `--live-graphql-limit` is clamped to it.
pub const ROOT_LIMIT: u32 = 100;
/// Most objects a list inside a root list is asked for; one without a limit gets this one.
pub const NESTED_LIMIT: u32 = 10;
/// Lists nested deeper than this (a list of lists of lists of lists) are not sent: even
/// bounded, their answer grows as the product of the limits.
pub const MAX_LIST_DEPTH: usize = 3;

/// One change to the text sent: `remove` bytes at document offset `at` become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edit {
    at: usize,
    remove: usize,
    text: String,
}

/// Adds `e` unless the same edit is there (a fragment used twice).
fn push_edit(edits: &mut Vec<Edit>, e: Edit) {
    if !edits.contains(&e) {
        edits.push(e);
    }
}

/// The first argument (or argument object field) anywhere in `set` whose name is a secret
/// field's, and where it is.
fn secret_argument(
    set: &[Selection],
    fragments: &HashMap<&str, &ast::FragmentDefinition>,
) -> Option<(String, Option<Range<usize>>)> {
    fn value(v: &Value) -> Option<(String, Option<Range<usize>>)> {
        match v {
            Value::Object(fields) => fields.iter().find_map(|(k, v)| {
                if deny::secret_filter(k.as_str()) {
                    Some((k.to_string(), span(k.location())))
                } else {
                    value(v)
                }
            }),
            Value::List(items) => items.iter().find_map(|v| value(v)),
            _ => None,
        }
    }
    fn walk(
        set: &[Selection],
        fragments: &HashMap<&str, &ast::FragmentDefinition>,
        seen: &mut HashSet<String>,
    ) -> Option<(String, Option<Range<usize>>)> {
        set.iter().find_map(|s| match s {
            Selection::Field(f) => f
                .arguments
                .iter()
                .find_map(|a| {
                    if deny::secret_filter(a.name.as_str()) {
                        Some((a.name.to_string(), span(a.location())))
                    } else {
                        value(&a.value)
                    }
                })
                .or_else(|| walk(&f.selection_set, fragments, seen)),
            Selection::InlineFragment(i) => walk(&i.selection_set, fragments, seen),
            Selection::FragmentSpread(sp) => {
                if !seen.insert(sp.fragment_name.to_string()) {
                    return None;
                }
                fragments
                    .get(sp.fragment_name.as_str())
                    .and_then(|fr| walk(&fr.selection_set, fragments, seen))
            }
        })
    }
    walk(set, fragments, &mut HashSet::new())
}

/// The lists inside a root field: each one with a `pagination` argument is bounded at
/// [`NESTED_LIMIT`], and lists nest at most [`MAX_LIST_DEPTH`] deep.
struct Nested<'a, 'b> {
    schema: &'a apollo_compiler::Schema,
    fragments: &'a HashMap<&'a str, &'a ast::FragmentDefinition>,
    variables: &'b mut serde_json::Value,
    edits: &'b mut Vec<Edit>,
    /// Fragments being walked (a cycle is the static check's business).
    stack: HashSet<String>,
}

impl Nested<'_, '_> {
    /// Walks `set` of type `parent` at list depth `depth`; the error is where and why the
    /// operation is not sent.
    fn set(
        &mut self,
        set: &[Selection],
        parent: &str,
        depth: usize,
    ) -> Result<(), (Option<Range<usize>>, String)> {
        for s in set {
            match s {
                Selection::Field(f) => {
                    if f.name.as_str().starts_with("__") {
                        continue;
                    }
                    let Ok(def) = self.schema.type_field(parent, f.name.as_str()) else {
                        continue;
                    };
                    let list = def.ty.is_list();
                    let depth = depth + usize::from(list);
                    if depth > MAX_LIST_DEPTH {
                        return Err((
                            span(f.name.location()),
                            format!(
                                "Not sent to NetBox: `{}` is a list inside {} lists; even bounded, such an answer grows as the product of the limits. Verify a shallower query.",
                                f.name,
                                depth - 1
                            ),
                        ));
                    }
                    if list && def.arguments.iter().any(|a| a.name == "pagination") {
                        match bounded(f, self.variables, Some(NESTED_LIMIT), NESTED_LIMIT) {
                            Limit::Capped(e) | Limit::Add(e, _) => push_edit(self.edits, e),
                            Limit::Bounded | Limit::CappedVariable | Limit::Unbounded => {}
                        }
                    }
                    self.set(&f.selection_set, def.ty.inner_named_type().as_str(), depth)?;
                }
                Selection::InlineFragment(i) => {
                    let ty = i.type_condition.as_ref().map_or(parent, |t| t.as_str());
                    self.set(&i.selection_set, ty, depth)?;
                }
                Selection::FragmentSpread(sp) => {
                    let name = sp.fragment_name.to_string();
                    let Some(fr) = self.fragments.get(name.as_str()).copied() else {
                        continue;
                    };
                    if !self.stack.insert(name.clone()) {
                        continue;
                    }
                    self.set(&fr.selection_set, fr.type_condition.as_str(), depth)?;
                    self.stack.remove(&name);
                }
            }
        }
        Ok(())
    }
}

/// Root fields through inline fragments and the document's named fragments.
fn collect_roots<'a>(
    set: &'a [Selection],
    fragments: &HashMap<&str, &'a ast::FragmentDefinition>,
    seen: &mut HashSet<String>,
    out: &mut Vec<&'a ast::Field>,
) {
    for s in set {
        match s {
            Selection::Field(f) => out.push(f),
            Selection::InlineFragment(i) => collect_roots(&i.selection_set, fragments, seen, out),
            Selection::FragmentSpread(sp) => {
                if seen.insert(sp.fragment_name.to_string()) {
                    if let Some(fr) = fragments.get(sp.fragment_name.as_str()) {
                        collect_roots(&fr.selection_set, fragments, seen, out);
                    }
                }
            }
        }
    }
}

enum Limit {
    /// Bounded at or below the cap as written.
    Bounded,
    /// A literal `limit` above the cap: this edit lowers it.
    Capped(Edit),
    /// The `limit` of a `pagination` variable was above the cap: lowered in the variables.
    CappedVariable,
    /// No limit: this edit adds this one.
    Add(Edit, u32),
    /// No limit, and none to add.
    Unbounded,
}

/// Whether a list field is bounded by `pagination: {limit: …}` at most `cap`; the edit that
/// lowers a larger literal, or that adds `add` where there is no limit (also set in a
/// `pagination` variable).
fn bounded(f: &ast::Field, variables: &mut serde_json::Value, add: Option<u32>, cap: u32) -> Limit {
    let Some(p) = f.arguments.iter().find(|a| a.name == "pagination") else {
        let at = match f.arguments.last() {
            Some(last) => span(last.location()).map(|r| (r.end, ", ")),
            None => span(f.name.location()).map(|r| (r.end, "(")),
        };
        return match (add, at) {
            (Some(n), Some((at, "("))) => Limit::Add(
                Edit {
                    at,
                    remove: 0,
                    text: format!("(pagination: {{limit: {n}}})"),
                },
                n,
            ),
            (Some(n), Some((at, _))) => Limit::Add(
                Edit {
                    at,
                    remove: 0,
                    text: format!(", pagination: {{limit: {n}}}"),
                },
                n,
            ),
            _ => Limit::Unbounded,
        };
    };
    match &*p.value {
        Value::Object(fields) => {
            if let Some((_, v)) = fields.iter().find(|(k, _)| k == "limit") {
                match &**v {
                    Value::Null => {}
                    Value::Int(i) => {
                        let big = i.try_to_i32().map_or(true, |n| n > cap as i32);
                        return match (big, span(v.location())) {
                            (true, Some(r)) => Limit::Capped(Edit {
                                at: r.start,
                                remove: r.end - r.start,
                                text: cap.to_string(),
                            }),
                            _ => Limit::Bounded,
                        };
                    }
                    Value::Variable(name) => {
                        return match variables.get_mut(name.as_str()) {
                            Some(slot) if slot.as_u64().is_some_and(|n| n > u64::from(cap)) => {
                                *slot = serde_json::json!(cap);
                                Limit::CappedVariable
                            }
                            _ => Limit::Bounded,
                        };
                    }
                    _ => return Limit::Bounded,
                }
            }
            match (add, span(p.value.location())) {
                (Some(n), Some(r)) => {
                    let sep = if fields.is_empty() { "" } else { ", " };
                    Limit::Add(
                        Edit {
                            at: r.start + 1,
                            remove: 0,
                            text: format!("limit: {n}{sep}"),
                        },
                        n,
                    )
                }
                _ => Limit::Unbounded,
            }
        }
        Value::Variable(name) => {
            let slot = variables.get_mut(name.as_str());
            match slot {
                Some(serde_json::Value::Object(o)) => match o.get("limit").and_then(|l| l.as_u64())
                {
                    Some(l) if l > u64::from(cap) => {
                        o.insert("limit".into(), serde_json::json!(cap));
                        Limit::CappedVariable
                    }
                    Some(_) => Limit::Bounded,
                    None => match add {
                        Some(n) => {
                            o.insert("limit".into(), serde_json::json!(n));
                            Limit::Bounded
                        }
                        None => Limit::Unbounded,
                    },
                },
                _ => Limit::Unbounded,
            }
        }
        _ => Limit::Unbounded,
    }
}

impl DocProbe {
    /// The document offset of 1-based `line` and `column` (Unicode characters) in the text sent.
    fn offset_of(&self, line: u64, column: u64) -> Option<usize> {
        let mut start = 0usize;
        for _ in 1..line {
            start += self.sent[start..].find('\n')? + 1;
        }
        let col = column.saturating_sub(1) as usize;
        let at = self.sent[start..]
            .char_indices()
            .nth(col)
            .map_or(self.sent.len(), |(i, _)| start + i);
        // Back through the changes to the document as written.
        let mut shift = 0isize;
        for &(p, removed, put) in &self.edits {
            let start = p as isize + shift;
            if (at as isize) < start {
                break;
            }
            if (at as isize) < start + put as isize {
                return Some(p);
            }
            shift += put as isize - removed as isize;
        }
        Some(((at as isize - shift).max(0) as usize).min(self.len))
    }

    /// Host bytes of the name or token at document offset `at`.
    fn token_at(&self, at: usize) -> Range<usize> {
        let rest = self.text.get(at..).unwrap_or("");
        let len = rest
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(rest.len(), |(i, _)| i)
            .max(rest.chars().next().map_or(0, char::len_utf8));
        self.map.range_to_host(at..(at + len).min(self.len))
    }
}

/// The findings of one document's answers, each with its request as its proof.
pub(crate) fn judge(d: &DocProbe, answers: &Answers, summary: &mut Summary) -> Vec<Finding> {
    let mut all = Vec::new();
    for op in &d.operations {
        let Some(answer) = answers.get(&op.request) else {
            continue;
        };
        let mut out = Vec::new();
        judge_op(d, op, answer, summary, &mut out);
        if matches!(answer, Answer::Reply { .. }) {
            let proof = vec![op.request.exchange(Some(answer))];
            for f in &mut out {
                f.proof = proof.clone();
            }
        }
        all.extend(out);
    }
    all
}

/// The findings of one operation's answer.
fn judge_op(
    d: &DocProbe,
    op: &OpProbe,
    answer: &Answer,
    summary: &mut Summary,
    out: &mut Vec<Finding>,
) {
    {
        let at = op.range.clone();
        let f = |code, sev, msg: String| Finding::new(at.clone(), code, sev, msg);
        let body = match answer {
            Answer::NotSent(skip) => {
                summary.skipped(skip.kind);
                out.push(f(
                    "live-not-sent",
                    Severity::Information,
                    format!("Not sent to NetBox: {}.", skip.why),
                ));
                return;
            }
            Answer::Failed(why) => {
                summary.failed += 1;
                out.push(f(
                    "live-no-answer",
                    Severity::Warning,
                    format!("No answer from NetBox: {why}"),
                ));
                return;
            }
            Answer::Reply { status, digest } if *status >= 500 => {
                summary.server_fault += 1;
                out.push(f(
                    "live-server-fault",
                    Severity::Error,
                    format!(
                        "NetBox failed on the document (HTTP {status}): {}",
                        words(digest)
                    ),
                ));
                return;
            }
            Answer::Reply { status, digest } if *status != 200 => {
                summary.refused += 1;
                out.push(f(
                    "live-refused",
                    Severity::Error,
                    format!(
                        "NetBox refused the document (HTTP {status}): {}",
                        words(digest)
                    ),
                ));
                return;
            }
            Answer::Reply { digest, .. } => digest,
        };
        let Digest::Graphql(answer) = body else {
            summary.failed += 1;
            out.push(f(
                "live-no-answer",
                Severity::Warning,
                "NetBox's answer to POST /graphql/ is not JSON: is the URL the NetBox base URL?"
                    .into(),
            ));
            return;
        };
        summary.graphql += 1;
        let errors = &answer.errors;
        let mut failed_keys = HashSet::new();
        let mut validation = 0usize;
        for e in errors {
            let msg = if e.message.is_empty() {
                "(no message)"
            } else {
                e.message.as_str()
            };
            let path0 = e.path0.as_deref();
            let loc = e.location;
            // graphql-core: a validation error has locations and no path; an execution error
            // (`Device matching query does not exist.`) has a path.
            match (path0, loc) {
                (Some(k), _) => {
                    failed_keys.insert(k.to_string());
                }
                (None, Some(_)) => validation += 1,
                (None, None) => {}
            }
            let range = loc
                .and_then(|(l, c)| d.offset_of(l, c))
                .map(|o| d.token_at(o))
                .or_else(|| {
                    path0.and_then(|k| {
                        op.roots
                            .iter()
                            .find(|r| r.key == k)
                            .map(|r| r.range.clone())
                    })
                })
                .unwrap_or_else(|| at.clone());
            out.push(Finding::new(
                range,
                "live-graphql-error",
                Severity::Error,
                format!("NetBox: {msg}"),
            ));
        }
        if answer.more_errors > 0 {
            out.push(f(
                "live-graphql-error",
                Severity::Error,
                format!(
                    "NetBox reported {} more errors (netbox-lsp shows the first {}).",
                    answer.more_errors,
                    super::digest::MAX_ERRORS
                ),
            ));
        }
        for r in &op.roots {
            if failed_keys.contains(&r.key) {
                continue;
            }
            let Some(shape) = answer
                .data
                .as_ref()
                .and_then(|d| d.iter().find(|(k, _)| *k == r.key))
                .map(|(_, s)| *s)
            else {
                continue;
            };
            let added = r.bounded_by.clone().unwrap_or_default();
            let msg = match shape {
                Shape::List(n) => format!(
                    "NetBox returned {n} {} for `{}`{added}.",
                    if n == 1 { "object" } else { "objects" },
                    r.key
                ),
                Shape::Null => format!("NetBox returned no object for `{}`.", r.key),
                Shape::Object => format!("NetBox returned an object for `{}`.", r.key),
            };
            out.push(Finding::new(
                r.range.clone(),
                "live-graphql-objects",
                Severity::Information,
                msg,
            ));
        }
        if errors.is_empty() && !op.static_rejects.is_empty() {
            summary.differs += 1;
            out.push(f(
                "live-differs",
                Severity::Warning,
                format!(
                    "NetBox ran the operation without errors, which the knowledge says it rejects ({}). {}",
                    op.static_rejects.join(", "),
                    super::REBUILD
                ),
            ));
        } else if op.static_rejects.is_empty() && validation > 0 {
            summary.differs += 1;
            out.push(f(
                "live-differs",
                Severity::Warning,
                format!(
                    "NetBox rejected the operation ({validation} validation {}, each shown as `live-graphql-error`), which the knowledge accepts. {}",
                    if validation == 1 { "error" } else { "errors" },
                    super::REBUILD
                ),
            ));
        }
    }
}

/// NetBox's words in a refusal's digest.
fn words(d: &Digest) -> &str {
    match d {
        Digest::Words(w) | Digest::Unreadable(w) => w,
        _ => "",
    }
}
