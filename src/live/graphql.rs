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

use super::{Answer, Answers, Bound, Request, Summary};
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
    /// `pagination: {limit: N}` was added with this `N`.
    pub added_limit: Option<u32>,
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
    /// Insertions made: (offset in the document text, length).
    added: Vec<(usize, usize)>,
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
    /// Refused before any request: the `live-not-sent` findings.
    Refused(Vec<Finding>),
    /// Not a document that can be sent (does not parse, several examples side by side,
    /// placeholders, variables without values); the reason.
    NotCheckable(String),
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
        return Planned::NotCheckable("the document holds placeholders".into());
    }
    let Ok(ast) = crate::graphql::check::parse(text) else {
        return Planned::NotCheckable("the document does not parse".into());
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
        return Planned::NotCheckable("the document has no operation".into());
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
        return Planned::Refused(writes);
    }
    if ops.len() > 1 && ops.iter().any(|o| o.name.is_none()) {
        return Planned::NotCheckable("an anonymous operation beside others".into());
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
    let mut added: Vec<(usize, String)> = Vec::new();
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
                return Planned::NotCheckable(format!("`${}` has no value", v.name));
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
            let key = f.alias.as_ref().unwrap_or(&f.name).to_string();
            let name_range =
                span(f.alias.as_ref().unwrap_or(&f.name).location()).unwrap_or(range.clone());
            let mut root = Root {
                key,
                name: f.name.to_string(),
                range: host(name_range),
                list,
                added_limit: None,
            };
            if list {
                match bounded(f, &mut variables, bound) {
                    Limit::Bounded => {}
                    Limit::Insert(at, s, n) if def.is_some_and(|d| d.arguments.iter().any(|a| a.name == "pagination")) => {
                        if !added.iter().any(|(p, t)| *p == at && *t == s) {
                            added.push((at, s));
                        }
                        root.added_limit = Some(n);
                    }
                    Limit::Unbounded | Limit::Insert(..) if bound == Bound::AsWritten => {}
                    _ => refused.push(not_sent(
                        root.range.clone(),
                        format!(
                            "Not sent to NetBox: `{}` is a list without `pagination: {{limit: N}}`, which could return every object. Add a limit, or let netbox-lsp add one (`check --live-graphql-limit N`; editor setting `live.graphqlLimit`).",
                            root.name
                        ),
                    )),
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
        return Planned::Refused(refused);
    }
    added.sort();
    let mut sent = String::with_capacity(text.len() + 32 * added.len());
    let mut last = 0;
    for (at, s) in &added {
        sent.push_str(&text[last..*at]);
        sent.push_str(s);
        last = *at;
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
        added: added.iter().map(|(p, s)| (*p, s.len())).collect(),
        map: doc.map.clone(),
        text: text.to_string(),
        len: text.len(),
    })
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
    Bounded,
    /// Insert this text at this offset to bound it with this limit.
    Insert(usize, String, u32),
    Unbounded,
}

/// Whether a root list field is bounded by `pagination: {limit: …}`; with [`Bound::Limit`], the
/// insertion that bounds it (or the limit set in its `pagination` variable).
fn bounded(f: &ast::Field, variables: &mut serde_json::Value, bound: Bound) -> Limit {
    let n = match bound {
        Bound::Limit(n) => Some(n),
        _ => None,
    };
    let Some(p) = f.arguments.iter().find(|a| a.name == "pagination") else {
        let at = match f.arguments.last() {
            Some(last) => span(last.location()).map(|r| (r.end, ", ")),
            None => span(f.name.location()).map(|r| (r.end, "(")),
        };
        return match (n, at) {
            (Some(n), Some((at, "("))) => {
                Limit::Insert(at, format!("(pagination: {{limit: {n}}})"), n)
            }
            (Some(n), Some((at, _))) => {
                Limit::Insert(at, format!(", pagination: {{limit: {n}}}"), n)
            }
            _ => Limit::Unbounded,
        };
    };
    match &*p.value {
        Value::Object(fields) => {
            if fields
                .iter()
                .any(|(k, v)| k == "limit" && !matches!(**v, Value::Null))
            {
                return Limit::Bounded;
            }
            match (n, span(p.value.location())) {
                (Some(n), Some(r)) => {
                    let sep = if fields.is_empty() { "" } else { ", " };
                    Limit::Insert(r.start + 1, format!("limit: {n}{sep}"), n)
                }
                _ => Limit::Unbounded,
            }
        }
        Value::Variable(name) => {
            let slot = variables.get_mut(name.as_str());
            match slot {
                Some(serde_json::Value::Object(o))
                    if o.get("limit").is_some_and(|l| l.is_u64()) =>
                {
                    Limit::Bounded
                }
                Some(serde_json::Value::Object(o)) if n.is_some() => {
                    o.insert("limit".into(), serde_json::json!(n));
                    Limit::Bounded
                }
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
        // Back through the added text to the document as written.
        let mut shift = 0usize;
        for (p, l) in &self.added {
            if at < p + shift {
                break;
            }
            if at < p + shift + l {
                return Some(*p);
            }
            shift += l;
        }
        Some((at - shift).min(self.len))
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

/// The findings of one document's answers.
pub(crate) fn judge(d: &DocProbe, answers: &Answers, summary: &mut Summary) -> Vec<Finding> {
    let mut out = Vec::new();
    for op in &d.operations {
        let Some(answer) = answers.get(&op.request) else {
            continue;
        };
        let at = op.range.clone();
        let f = |code, sev, msg: String| Finding::new(at.clone(), code, sev, msg);
        let body = match answer {
            Answer::NotSent(why) => {
                summary.not_sent += 1;
                out.push(f(
                    "live-not-sent",
                    Severity::Information,
                    format!("Not sent to NetBox: {why}."),
                ));
                continue;
            }
            Answer::Failed(why) => {
                summary.failed += 1;
                out.push(f(
                    "live-no-answer",
                    Severity::Warning,
                    format!("No answer from NetBox: {why}"),
                ));
                continue;
            }
            Answer::Reply { status, body } if *status >= 500 => {
                summary.server_fault += 1;
                out.push(f(
                    "live-server-fault",
                    Severity::Error,
                    format!(
                        "NetBox failed on the document (HTTP {status}): {}",
                        super::verdict::text(body)
                    ),
                ));
                continue;
            }
            Answer::Reply { status, body } if *status != 200 => {
                summary.refused += 1;
                out.push(f(
                    "live-refused",
                    Severity::Error,
                    format!(
                        "NetBox refused the document (HTTP {status}): {}",
                        super::verdict::text(body)
                    ),
                ));
                continue;
            }
            Answer::Reply { body, .. } => body,
        };
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) else {
            summary.failed += 1;
            out.push(f(
                "live-no-answer",
                Severity::Warning,
                "NetBox's answer to POST /graphql/ is not JSON: is the URL the NetBox base URL?"
                    .into(),
            ));
            continue;
        };
        summary.graphql += 1;
        let errors = v
            .get("errors")
            .and_then(|e| e.as_array())
            .cloned()
            .unwrap_or_default();
        let mut failed_keys = HashSet::new();
        let mut validation = Vec::new();
        for e in &errors {
            let msg = e
                .get("message")
                .and_then(|m| m.as_str())
                .unwrap_or("(no message)");
            let path0 = e
                .get("path")
                .and_then(|p| p.as_array())
                .and_then(|p| p.first())
                .and_then(|p| p.as_str());
            let loc = e
                .get("locations")
                .and_then(|l| l.as_array())
                .and_then(|l| l.first())
                .and_then(|l| Some((l.get("line")?.as_u64()?, l.get("column")?.as_u64()?)));
            // graphql-core: a validation error has locations and no path; an execution error
            // (`Device matching query does not exist.`) has a path.
            match (path0, loc) {
                (Some(k), _) => {
                    failed_keys.insert(k.to_string());
                }
                (None, Some(_)) => validation.push(msg.to_string()),
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
        let data = v.get("data").filter(|d| d.is_object());
        for r in &op.roots {
            if failed_keys.contains(&r.key) {
                continue;
            }
            let Some(val) = data.and_then(|d| d.get(&r.key)) else {
                continue;
            };
            let added = r
                .added_limit
                .map(|n| format!(" (netbox-lsp added `pagination: {{limit: {n}}}`)"))
                .unwrap_or_default();
            let msg = match val {
                serde_json::Value::Array(a) => format!(
                    "NetBox returned {} {} for `{}`{added}.",
                    a.len(),
                    if a.len() == 1 { "object" } else { "objects" },
                    r.key
                ),
                serde_json::Value::Null => format!("NetBox returned no object for `{}`.", r.key),
                _ => format!("NetBox returned an object for `{}`.", r.key),
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
        } else if op.static_rejects.is_empty() && !validation.is_empty() {
            summary.differs += 1;
            out.push(f(
                "live-differs",
                Severity::Warning,
                format!(
                    "NetBox rejected the operation ({}), which the knowledge accepts. {}",
                    validation.join(" "),
                    super::REBUILD
                ),
            ));
        }
    }
    out
}
