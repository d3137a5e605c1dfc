//! `check_document`: parse (bounded), NetBox rules, apollo-compiler validation, "did you mean",
//! variables; then every range is mapped from the GraphQL text to the host through the
//! document's offset map.

use super::renamed::renamed;
use super::ruler;
use super::rules::{self, did_you_mean_suffix, span, RawFinding, RawFix, Unknown};
use super::split::{self, Plan};
use super::suggest::clear_winner;
use super::variables;
use super::NetboxSchema;
use crate::extract::{GraphqlDoc, OffsetMap};
use crate::finding::{Edit, Finding, Fix, Severity};
use apollo_compiler::ast;
use apollo_compiler::diagnostic::ToCliReport;
use apollo_compiler::parser::{FileId, Parser};
use apollo_compiler::validation::{DiagnosticData, DiagnosticList, WithErrors};
use apollo_compiler::ExecutableDocument;
use std::ops::Range;

/// Nesting bound for the parser (selection sets, values, lists). NetBox documents are a few
/// levels deep; the bound keeps recursive validation far from the stack limit on any thread.
pub const RECURSION_LIMIT: usize = 200;
/// Token bound: about 1–2 MB of dense GraphQL. Beyond it the document is refused with a clear
/// finding rather than parsed.
pub const TOKEN_LIMIT: usize = 250_000;

/// Parses `text` with the bounded parser. `Err` carries the syntax findings in GraphQL-text
/// coordinates.
pub fn parse(text: &str) -> Result<ast::Document, Vec<RawFinding>> {
    let mut parser = Parser::new()
        .recursion_limit(RECURSION_LIMIT)
        .token_limit(TOKEN_LIMIT);
    match parser.parse_ast(text, "document.graphql") {
        Ok(doc) => Ok(doc),
        Err(with) => Err(first_error(with
            .errors
            .iter()
            .map(|d| {
                let r = span(d.error.location()).unwrap_or(0..0);
                let mut message = d.error.to_string();
                if message.contains("limit") {
                    message = format!(
                        "{message}: the document is too large or too deeply nested to check (limits: {TOKEN_LIMIT} tokens, nesting {RECURSION_LIMIT})"
                    );
                }
                RawFinding {
                    range: r,
                    code: "graphql-syntax",
                    severity: Severity::Error,
                    message,
                    fixes: Vec::new(),
                    claim: None,
                    does: None,
                }
            })
            .collect())),
    }
}

/// `text` read straight into apollo-compiler's AST ([`super::direct`]), else through
/// cynic-parser, where its conversion gives apollo-compiler's very AST ([`super::cynic_ast`]);
/// `None` for anything else (a syntax error, a long or unusual document), which [`parse`] then
/// reads.
fn parse_cynic(text: &str) -> Option<ast::Document> {
    #[cfg(test)]
    if tests_only::APOLLO_ONLY.with(std::cell::Cell::get) {
        return None;
    }
    super::direct::parse(text).or_else(|| super::cynic_ast::parse(text))
}

/// One mistake, one finding: the parser goes on after the first error and reports every
/// token it cannot place (5 errors for one `filters: {...}` fragment), so only the first
/// syntax error of a document is kept.
fn first_error(mut v: Vec<RawFinding>) -> Vec<RawFinding> {
    v.sort_by_key(|f| f.range.start);
    v.truncate(1);
    v
}

/// Checks one GraphQL document against `schema`; findings carry host byte ranges.
pub fn check_document(doc: &GraphqlDoc, schema: &NetboxSchema) -> Vec<Finding> {
    let raw = check_text(&doc.text, doc.variables.as_ref(), schema);
    let roots = if raw.is_empty() {
        Vec::new()
    } else {
        root_fields(&doc.text)
    };
    let release: Option<std::sync::Arc<str>> =
        (!schema.netbox_version.is_empty()).then(|| schema.netbox_version.as_str().into());
    raw.into_iter()
        .map(|f| {
            let at = f.range.start;
            let mut found = to_host(f, &doc.map, &doc.text);
            // The root field the finding sits under is the document's endpoint.
            found.facts.endpoint = roots
                .iter()
                .find(|(r, _)| r.start <= at && at < r.end)
                .map(|(_, name)| name.as_str().into());
            found.facts.release.clone_from(&release);
            found
        })
        .collect()
}

/// The root fields of the operations of GraphQL `text` (`service_list`), each with its span
/// (name to closing brace); none when the text does not parse.
fn root_fields(text: &str) -> Vec<(Range<usize>, String)> {
    let Some(doc) = parse_cynic(text).or_else(|| parse(text).ok()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for def in &doc.definitions {
        let ast::Definition::OperationDefinition(op) = def else {
            continue;
        };
        for sel in &op.selection_set {
            if let ast::Selection::Field(f) = sel {
                if let Some(r) = span(f.location()) {
                    out.push((r, f.name.to_string()));
                }
            }
        }
    }
    out
}

/// The same checks in GraphQL-text coordinates (used by tests and benchmarks). The text is
/// first read by [`split::plan`]: example operations side by side are checked one by one, a
/// bare selection inside `{ }`, a fragment of a document gets one `graphql-snippet`
/// information finding, a schema excerpt nothing.
pub fn check_text(
    text: &str,
    variables: Option<&serde_json::Value>,
    schema: &NetboxSchema,
) -> Vec<RawFinding> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    // Template expressions (`{{ dev_id }}`) are typed holes: their values are not checked.
    let holes = super::holes::find(text);
    if holes.shapes_document {
        return Vec::new();
    }
    let mut out = check_plain(holes.blanked.as_deref().unwrap_or(text), variables, schema);
    out.retain(|f| {
        !holes
            .ranges
            .iter()
            .any(|h| super::holes::touches(&f.range, h))
    });
    out
}

/// [`check_text`] of a text without template holes.
fn check_plain(
    text: &str,
    variables: Option<&serde_json::Value>,
    schema: &NetboxSchema,
) -> Vec<RawFinding> {
    // `{ id name ... }` in prose: "more fields", not a fragment spread.
    let blanked = split::blank_placeholders(text);
    let text = blanked.as_deref().unwrap_or(text);
    // Asked only of a text that does not start like a document: the root field names are
    // borrowed from the schema, never copied per document.
    let root_names = rules::field_names(&schema.schema, ROOT);
    let is_root = |n: &str| {
        root_names.clone().any(|r| r == n)
            || (schema.stock && rules::looks_like_plugin(n, root_names.clone()))
            // A misspelled root list (`devcie_list`); nested lists never end in `_list`.
            || (n.ends_with("_list") && rules::near_name(n, root_names.clone()))
    };
    match split::plan(text, variables.is_some(), is_root) {
        Plan::One => check_one(text, variables, schema),
        Plan::Schema => Vec::new(),
        Plan::Separate(chunks) => {
            let mut out: Vec<RawFinding> = chunks
                .iter()
                .flat_map(|c| {
                    check_one(&text[c.clone()], None, schema)
                        .into_iter()
                        .map(|f| shifted(f, c.start as isize, 0..text.len()))
                })
                .collect();
            out.sort_by_key(|f| (f.range.start, f.range.end));
            out
        }
        Plan::Selection(chunks) => chunks
            .iter()
            .flat_map(|c| {
                let wrapped = format!("{{{}\n}}", &text[c.clone()]);
                check_one(&wrapped, variables, schema)
                    .into_iter()
                    .map(|f| shifted(f, c.start as isize - 1, c.clone()))
            })
            .collect(),
        Plan::Snippet { at, starts_with } => vec![RawFinding {
            range: at,
            code: "graphql-snippet",
            severity: Severity::Information,
            message: format!(
                "Not checked: this GraphQL is part of a document, not one NetBox can run (it starts with {starts_with}). Write it inside a query, e.g. `{{ device_list(filters: {{...}}) {{ id }} }}`, to have it checked."
            ),
            fixes: Vec::new(),
            claim: None,
            does: None,
        }],
    }
}

/// True when no operation of `doc` selects a root field of NetBox's `Query`, a near name of
/// one (`devcie_list`), a `<model>_list` or a plugin-shaped name (`<app>_<model>`): a document for another
/// GraphQL API (GitHub's `{ viewer { login } }`, `repository(...)`), whose mistakes are not
/// NetBox's (issue 30 §4). Introspection fields (`__schema`, `__typename`) decide nothing; a
/// document of fragment spreads only, or with a mutation or subscription, is NetBox's.
fn other_api(doc: &ast::Document, schema: &NetboxSchema) -> bool {
    let roots = rules::field_names(&schema.schema, ROOT);
    let mut foreign = 0;
    for def in &doc.definitions {
        let ast::Definition::OperationDefinition(op) = def else {
            continue;
        };
        // NetBox has no mutations: those are reported as such (`graphql-operation`).
        if op.operation_type != ast::OperationType::Query {
            return false;
        }
        for sel in &op.selection_set {
            let ast::Selection::Field(f) = sel else {
                return false;
            };
            let name = f.name.as_str();
            if name.starts_with("__") {
                continue;
            }
            // `<model>_list` is NetBox's naming of its list fields: NetBox refuses an unknown
            // one (ground truth: `{ nonexistent_list { id } }` → "Cannot query field").
            let netbox = roots.clone().any(|r| r == name)
                || name.ends_with("_list")
                || rules::near_name(name, roots.clone())
                || rules::looks_like_plugin(name, roots.clone());
            if netbox {
                return false;
            }
            foreign += 1;
        }
    }
    foreign > 0
}

/// The root type's name in every NetBox schema.
const ROOT: &str = "Query";

/// A finding of a sub-text moved by `delta` bytes into the text `within`; a range is clamped
/// into `within`, a fix with an edit outside it (the braces added around a selection) is
/// dropped.
fn shifted(mut f: RawFinding, delta: isize, within: Range<usize>) -> RawFinding {
    let mv =
        |x: usize| (x as isize + delta).clamp(within.start as isize, within.end as isize) as usize;
    let inside = |r: &Range<usize>| {
        let (s, e) = (r.start as isize + delta, r.end as isize + delta);
        s >= within.start as isize && e <= within.end as isize
    };
    f.range = mv(f.range.start)..mv(f.range.end);
    f.claim = f.claim.map(|c| mv(c.start)..mv(c.end));
    f.fixes.retain(|fx| fx.edits.iter().all(|(r, _)| inside(r)));
    for fx in &mut f.fixes {
        for (r, _) in &mut fx.edits {
            *r = mv(r.start)..mv(r.end);
        }
    }
    f
}

/// One document: syntax (the first error only), NetBox rules, apollo-compiler validation with
/// "did you mean", variables.
fn check_one(
    text: &str,
    variables: Option<&serde_json::Value>,
    schema: &NetboxSchema,
) -> Vec<RawFinding> {
    let mut out = check_level(text, variables, schema);
    // The errors a `filters:` fix would reveal are the document's own: reported now, not after
    // the fix (issue 31 §2).
    let inner = unfolded(text, &out, schema);
    out.extend(inner);
    out.sort_by_key(|f| (f.range.start, f.range.end));
    out
}

/// The findings inside the arguments a certain `graphql-filter-argument` fix puts in their
/// place (`filter:` renamed, filter arguments put inside `filters:`): the document is checked
/// with every such fix applied, and the findings that lie inside the fixed arguments, away from
/// the edits, are mapped back.
fn unfolded(text: &str, out: &[RawFinding], schema: &NetboxSchema) -> Vec<RawFinding> {
    if text.len() > RECHECK_MAX_TEXT {
        return Vec::new();
    }
    let unfolding: Vec<(&RawFix, Range<usize>)> = out
        .iter()
        .filter(|f| f.code == "graphql-filter-argument")
        .filter_map(|f| Some((f.fixes.iter().find(|x| x.certain)?, f.claim.clone()?)))
        .collect();
    if unfolding.is_empty() {
        return Vec::new();
    }
    let mut edits: Vec<(Range<usize>, String)> = unfolding
        .iter()
        .flat_map(|(fx, _)| fx.edits.iter().cloned())
        .collect();
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    if edits.windows(2).any(|w| w[0].0.end > w[1].0.start) {
        return Vec::new();
    }
    let mut fixed = String::with_capacity(text.len() + 32);
    let mut at = 0;
    for (r, t) in &edits {
        fixed.push_str(&text[at..r.start]);
        fixed.push_str(t);
        at = r.end;
    }
    fixed.push_str(&text[at..]);
    let back = Back { edits: &edits };
    check_level(&fixed, None, schema)
        .into_iter()
        .filter_map(|mut f| {
            f.range = back.range(&f.range)?;
            if !unfolding
                .iter()
                .any(|(_, c)| c.start <= f.range.start && f.range.end <= c.end)
                || f.code == "graphql-filter-argument"
            {
                return None;
            }
            f.claim = f.claim.and_then(|c| back.range(&c));
            f.fixes = f
                .fixes
                .into_iter()
                .filter_map(|mut fx| {
                    for (r, _) in &mut fx.edits {
                        *r = back.range(r)?;
                    }
                    Some(fx)
                })
                .collect();
            Some(f)
        })
        .collect()
}

/// Maps ranges of a text with `edits` applied back to the text before them; `None` for a range
/// that touches an edited place.
struct Back<'a> {
    edits: &'a [(Range<usize>, String)],
}

impl Back<'_> {
    fn range(&self, r: &Range<usize>) -> Option<Range<usize>> {
        let mut delta: isize = 0;
        for (e, t) in self.edits {
            let ns = (e.start as isize + delta) as usize;
            let ne = ns + t.len();
            if !(ne <= r.start || r.end <= ns) || (r.is_empty() && ns < r.start && r.start < ne) {
                return None;
            }
            if r.end <= ns {
                break;
            }
            delta += t.len() as isize - e.len() as isize;
        }
        let m = |x: usize| (x as isize - delta).max(0) as usize;
        Some(m(r.start)..m(r.end))
    }
}

/// [`check_one`] without the unfolding: the walk, then apollo-compiler's diagnostics.
fn check_level(
    text: &str,
    variables: Option<&serde_json::Value>,
    schema: &NetboxSchema,
) -> Vec<RawFinding> {
    let (mut doc, mut converted) = match parse_cynic(text) {
        Some(d) => (d, true),
        None => match parse(text) {
            Ok(d) => (d, false),
            Err(syntax) => return syntax,
        },
    };
    if other_api(&doc, schema) {
        return Vec::new();
    }
    // A plain document (valid, or with the plain mistakes) needs no ExecutableDocument nor
    // apollo-compiler's rules: its diagnostics are found without them.
    let quick = super::quick::diagnose(&doc, schema);
    let mut invalid = if quick.is_some() {
        None
    } else {
        doc.to_executable_validate(&schema.schema).err()
    };
    if converted
        && invalid
            .as_ref()
            .is_some_and(|w| in_order(&w.errors, text, true).is_none())
    {
        // Diagnostics whose spans or order the ruler's files could change: apollo-compiler's
        // own parse, validated again.
        doc = match parse(text) {
            Ok(d) => d,
            Err(syntax) => return syntax,
        };
        invalid = doc.to_executable_validate(&schema.schema).err();
        converted = false;
    }
    #[cfg(test)]
    if converted && (invalid.is_some() || quick.as_ref().is_some_and(|q| !q.is_empty())) {
        tests_only::VALIDATED_CONVERTED.with(|n| n.set(n.get() + 1));
    }
    let walk = rules::walk(&doc, schema, text);
    let mut out = walk.findings;
    let claims: Vec<Range<usize>> = out
        .iter()
        .filter_map(|f| f.claim.clone())
        .chain(walk.claims.iter().cloned())
        .collect();
    let errors: Option<Vec<Said>> = match (quick, invalid) {
        (Some(q), _) => (!q.is_empty()).then(|| {
            q.into_iter()
                .map(|d| Said {
                    range: d.range,
                    name: Some(d.name),
                    message: d.message,
                })
                .collect()
        }),
        (None, Some(with)) => Some(
            in_order(&with.errors, text, converted)
                .unwrap_or_default()
                .iter()
                .map(|(at, d)| Said {
                    range: at.as_ref().map_or(0..0, |(_, r)| r.clone()),
                    name: d.unstable_error_name(),
                    message: d.to_string(),
                })
                .collect(),
        ),
        (None, None) => None,
    };
    if let Some(errors) = errors {
        let all: Vec<Range<usize>> = errors.iter().map(|d| d.range.clone()).collect();
        let mut recheck = Recheck {
            text,
            doc: &doc,
            converted,
            schema,
            before: &all,
            budget: RECHECK_BUDGET,
        };
        for (i, d) in errors.iter().enumerate() {
            let mut r = all[i].clone();
            if d.name == Some("MissingSubselection")
                && text.get(r.clone()).is_some_and(|t| t.contains('{'))
            {
                // The sub-selection holds only unknown fields, already reported.
                continue;
            }
            if claims.iter().any(|c| c.start <= r.start && r.end <= c.end) {
                continue;
            }
            if d.name == Some("UnusedVariable") && used_in(text, &r, &walk.unchecked) {
                continue;
            }
            let mut f = RawFinding {
                range: r.clone(),
                code: "graphql-validation",
                severity: Severity::Error,
                message: d.message.clone(),
                fixes: Vec::new(),
                claim: None,
                does: None,
            };
            // "Did you mean": the unknown name recorded by the walk inside this diagnostic.
            // Only "undefined name" diagnostics: a wider one (an ambiguous anonymous operation
            // spans the whole operation) must not take the name's suggestions.
            let about_a_name = matches!(
                d.name,
                None | Some(
                    "UndefinedField"
                        | "UndefinedArgument"
                        | "UndefinedInputValue"
                        | "UndefinedEnumValue"
                        | "UnsupportedValueType"
                )
            );
            // A value of the wrong type ("found a list") that holds an unknown name: renaming
            // the name leaves the type error, so its "did you mean" is no fix for this one
            // (`status: [STATUS_ACTIVE, STATUS_PLANED]` on 4.4, where one bare value is wanted).
            let wrong_type = d.name == Some("UnsupportedValueType");
            let unknown = walk.unknowns.iter().filter(|_| about_a_name).find(|u| {
                (!wrong_type && r.start <= u.range.start && u.range.end <= r.end)
                    || u.range == r
                    || u.value_range.as_ref() == Some(&r)
            });
            let mut below = Vec::new();
            if let Some(u) = unknown {
                // Point at the name, as NetBox does, not at the value after it.
                f.range = u.range.clone();
                let one = clear_winner(&walk_name(text, &u.range), &u.candidates);
                let mut offered = Vec::new();
                for (k, (c, fix)) in u.candidates.iter().zip(&u.fixes).enumerate() {
                    let Some(mut fix) = fix.clone() else { continue };
                    fix.certain = fix.certain || (one && k == 0);
                    if let Some(value) = &u.value_span {
                        match recheck.still_fails(&fix, &u.range, value, i) {
                            Some(true) => continue,
                            Some(false) => {}
                            // Out of budget: offered, but never applied on its own.
                            None => fix.certain = false,
                        }
                    } else if let Some((head, end)) = &u.field {
                        match recheck.field(&fix, head, *end) {
                            None => fix.certain = false,
                            Some(Err(())) => continue,
                            Some(Ok(errors)) => {
                                if offered.is_empty() {
                                    below = errors
                                        .into_iter()
                                        .map(|(r, m)| (r, m, c.clone()))
                                        .collect();
                                }
                            }
                        }
                    }
                    offered.push(c.clone());
                    f.fixes.push(fix);
                }
                match (&u.note, offered.first()) {
                    (Some(note), Some(first)) if Some(first) == u.candidates.first() => {
                        f.message.push_str(note)
                    }
                    (_, None) if u.forms_note.is_some() => {
                        f.message
                            .push_str(u.forms_note.as_deref().unwrap_or_default());
                    }
                    _ => {
                        f.message.push_str(&did_you_mean_message(u, &offered));
                        // A rename that also rewrites the value (`tag: "x"` → `tags: {slug:
                        // {exact: "x"}}`): the name alone would be refused, so the message
                        // names the whole step.
                        let whole = f.fixes.first().filter(|x| x.certain).and_then(|x| {
                            match x.edits.as_slice() {
                                [_, (_, w)] => Some(w.clone()),
                                _ => None,
                            }
                        });
                        if let (Some(w), Some(c)) = (whole, offered.first()) {
                            f.message.push_str(&format!(" Write `{c}: {w}`."));
                        }
                    }
                }
                if let Some(owner) = &u.owner {
                    let name = text.get(u.range.clone()).unwrap_or("");
                    if let Some(h) = super::history::moved(owner, name, &schema.netbox_version) {
                        f.message.push_str(&h);
                    }
                }
                r = u.range.clone();
            }
            // The selection under a misspelled field, checked against the type of the field
            // meant (apollo-compiler cannot check it under a field it does not know).
            for (br, message, meant) in below {
                out.push(RawFinding {
                    range: br,
                    code: "graphql-validation",
                    severity: Severity::Error,
                    message: format!("{message} (checked as the selection of `{meant}`)"),
                    fixes: Vec::new(),
                    claim: None,
                    does: None,
                });
            }
            let said_nothing = f.message == d.message;
            if let Some(h) = walk.hints.iter().find(|h| h.range == r) {
                // `r` is still the value span when no unknown name matched.
                match &h.note {
                    Some(note) => f.message.push_str(note),
                    None => f.message.push_str(&format!(
                        ". NetBox filters take lookup objects: `{}`",
                        h.fix.edits[0].1
                    )),
                }
                f.fixes.push(h.fix.clone());
            } else if said_nothing {
                f.message
                    .push_str(&super::words::context(d.name, &schema.netbox_version));
            }
            out.push(f);
        }
    }
    if let Some(vars) = variables {
        out.extend(variables::check(&doc, vars, schema));
    }
    out.sort_by_key(|f| (f.range.start, f.range.end));
    out
}

/// Maps a finding to host coordinates. A fix whose edit would cross a gap in the map (a removed
/// `> ` prefix) is dropped rather than applied wrongly.
fn to_host(f: RawFinding, map: &OffsetMap, text: &str) -> Finding {
    let clamp = |r: &Range<usize>| {
        r.start.min(text.len())..r.end.min(text.len()).max(r.start.min(text.len()))
    };
    let fixes = f
        .fixes
        .into_iter()
        .filter_map(|fx| {
            let edits: Option<Vec<Edit>> = fx
                .edits
                .iter()
                .map(|(r, t)| {
                    let r = clamp(r);
                    let h = map.range_to_host(r.clone());
                    (h.len() == r.len()).then(|| Edit {
                        range: h,
                        new_text: t.clone(),
                    })
                })
                .collect();
            edits.map(|edits| Fix {
                title: fx.title,
                edits,
                certain: fx.certain,
                releases: Vec::new(),
            })
        })
        .collect();
    Finding {
        range: map.range_to_host(clamp(&f.range)),
        code: f.code,
        severity: f.severity,
        message: f.message,
        fixes,
        proof: Vec::new(),
        facts: crate::finding::Facts {
            does: f.does,
            ..Default::default()
        },
    }
}

/// "Did you mean" text: the candidates whose fix validates; when none does, the similar names
/// with the types they want ("`primary_ip4` (`IPAddressFilter`) ... do not take a boolean").
fn did_you_mean_message(u: &Unknown, offered: &[String]) -> String {
    if !offered.is_empty() || u.candidates.is_empty() {
        return did_you_mean_suffix(offered);
    }
    let named: Vec<String> = u
        .candidates
        .iter()
        .zip(&u.types)
        .map(|(c, t)| {
            if t.is_empty() {
                format!("`{c}`")
            } else {
                format!("`{c}` (`{t}`)")
            }
        })
        .collect();
    let list = match named.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => String::new(),
    };
    let verb = if named.len() == 1 { "exists" } else { "exist" };
    let kind = u.value_kind.unwrap_or("this value");
    format!(". Similar: {list} {verb} but cannot take {kind} as written")
}

/// Most fix re-validations per document; beyond it fixes are offered as uncertain.
const RECHECK_BUDGET: usize = 32;
/// Documents above this size are not re-validated (each re-validation parses the whole text).
const RECHECK_MAX_TEXT: usize = 64 * 1024;

/// Re-validates the document with one candidate fix applied, so a "did you mean" rename that
/// would only trade one error for another (`has_primary_ip: false` → `primary_ip4: false`,
/// "expected value of type IPAddressFilter, found a boolean") is never offered.
struct Recheck<'a> {
    text: &'a str,
    /// The parse of `text`.
    doc: &'a ast::Document,
    /// `doc` is cynic-parser's, converted ([`super::cynic_ast`]).
    converted: bool,
    schema: &'a NetboxSchema,
    /// Every diagnostic span of the unedited document.
    before: &'a [Range<usize>],
    budget: usize,
}

impl Recheck<'_> {
    /// `Some(true)` when, with `fix` applied, more diagnostics sit at the edited name or value
    /// (at the name, on the whole value, or around both) than sat there before, not counting
    /// diagnostic `own` (the one the fix answers). Errors nested inside the value are the
    /// value's own problems and do not count. `None` when the budget is spent or the document
    /// is too large to re-validate.
    fn still_fails(
        &mut self,
        fix: &RawFix,
        name: &Range<usize>,
        value: &Range<usize>,
        own: usize,
    ) -> Option<bool> {
        if self.budget == 0 || self.text.len() > RECHECK_MAX_TEXT {
            return None;
        }
        self.budget -= 1;
        let before = self
            .before
            .iter()
            .enumerate()
            .filter(|(k, d)| *k != own && at_place(d, name, value, false))
            .count();
        let mut edits = fix.edits.clone();
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut fixed = self.text.to_string();
        let (mut new_name, mut new_value) = (name.clone(), value.clone());
        // A fix that rewrites the value (`{exact: ..}` around a scalar) answers for all of it.
        let wraps = fix.edits.iter().any(|(r, _)| r == value);
        for (r, t) in &edits {
            if r.end > fixed.len()
                || !fixed.is_char_boundary(r.start)
                || !fixed.is_char_boundary(r.end)
            {
                return Some(true);
            }
            fixed.replace_range(r.clone(), t);
            // Edits are the name itself or the whole value; shift what follows them.
            let grow =
                |x: usize| (x as isize + t.len() as isize - r.len() as isize).max(0) as usize;
            if r.start <= new_name.start && new_name.end <= r.end {
                new_name.end = grow(new_name.end);
            }
            if r.start <= new_value.start && new_value.end <= r.end {
                new_value.end = grow(new_value.end);
            } else if r.end <= new_value.start {
                new_value = grow(new_value.start)..grow(new_value.end);
            }
        }
        let Some(after) = self.diagnostics(&fix.edits, &fixed, false) else {
            return Some(true);
        };
        let after = after
            .iter()
            .filter(|(d, _)| at_place(d, &new_name, &new_value, wraps))
            .count();
        Some(after > before)
    }
}

/// A diagnostic's range in the document and its message.
type Located = (Range<usize>, String);

impl Recheck<'_> {
    /// Re-validates the document with `fix` applied to the head of a field (`head`: its name
    /// and arguments; the selection set runs to `end`). `Err` when a diagnostic sits on the
    /// edited head; else the diagnostics inside the selection, mapped back into the unedited
    /// text (the edits are all before it). `None` when the budget is spent or the document is
    /// too large.
    fn field(
        &mut self,
        fix: &RawFix,
        head: &Range<usize>,
        end: usize,
    ) -> Option<Result<Vec<Located>, ()>> {
        if self.budget == 0 || self.text.len() > RECHECK_MAX_TEXT {
            return None;
        }
        self.budget -= 1;
        if fix
            .edits
            .iter()
            .any(|(r, _)| r.start < head.start || r.end > head.end)
        {
            return Some(Err(()));
        }
        let mut edits = fix.edits.clone();
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut fixed = self.text.to_string();
        let mut delta: isize = 0;
        for (r, t) in &edits {
            if r.end > fixed.len()
                || !fixed.is_char_boundary(r.start)
                || !fixed.is_char_boundary(r.end)
            {
                return Some(Err(()));
            }
            fixed.replace_range(r.clone(), t);
            delta += t.len() as isize - r.len() as isize;
        }
        let moved = |x: usize| (x as isize + delta).max(0) as usize;
        let new_head = head.start..moved(head.end);
        let Some(after) = self.diagnostics(&fix.edits, &fixed, true) else {
            return Some(Err(()));
        };
        let mut below = Vec::new();
        for (r, message) in after {
            if new_head.start <= r.start && r.start < new_head.end {
                return Some(Err(()));
            }
            if new_head.end <= r.start && r.end <= moved(end) {
                let back = |x: usize| (x as isize - delta).max(0) as usize;
                below.push((back(r.start)..back(r.end), message));
            }
        }
        Some(Ok(below))
    }

    /// apollo-compiler's diagnostics of the document with `edits` applied (`fixed`), each with
    /// its span in `fixed` and (with `messages`) its message, in apollo-compiler's order;
    /// diagnostics without a span are left out. `None` when `fixed` does not parse. A fix that
    /// only renames names is applied to the parse of the unedited text ([`renamed`]): the same
    /// diagnostics without a second parse.
    fn diagnostics(
        &self,
        edits: &[(Range<usize>, String)],
        fixed: &str,
        messages: bool,
    ) -> Option<Vec<Located>> {
        let mut edited = renamed(self.doc, self.text, edits);
        let mut reparsed = None;
        let mut with = None;
        if let Some(e) = &edited {
            let w = match quick_or_validate(&e.doc, self.schema, messages, |r| e.span(r)) {
                Ok(said) => return Some(said),
                Err(w) => w,
            };
            // The renamed spans are the unedited text's, where a `$` or a name is sought.
            if in_order(&w.errors, self.text, self.converted).is_some() {
                with = Some(w);
            } else {
                edited = None;
            }
        }
        // The edited text's own parse: cynic-parser's, converted, as `check_level` reads a
        // document (apollo-compiler's parse cost twice as much), unless a diagnostic's span
        // or order could differ from apollo-compiler's parse (then that parse, as before).
        let mut converted = self.converted && edited.is_some();
        let mut spans_of = self.text;
        let with = match with {
            Some(w) => w,
            None => {
                let mut cynic = None;
                if let Some(doc) = parse_cynic(fixed) {
                    let doc = reparsed.insert(doc);
                    let w = match quick_or_validate(doc, self.schema, messages, |r| r.clone()) {
                        Ok(said) => return Some(said),
                        Err(w) => w,
                    };
                    if in_order(&w.errors, fixed, true).is_some() {
                        (converted, spans_of) = (true, fixed);
                        cynic = Some(w);
                    }
                }
                match cynic {
                    Some(w) => w,
                    None => {
                        let doc = reparsed.insert(parse(fixed).ok()?);
                        match quick_or_validate(doc, self.schema, messages, |r| r.clone()) {
                            Ok(said) => return Some(said),
                            Err(w) => w,
                        }
                    }
                }
            }
        };
        let errors = in_order(&with.errors, spans_of, converted)?;
        Some(
            errors
                .iter()
                .filter_map(|(at, d)| {
                    let (file, r) = at.clone()?;
                    let r = match &edited {
                        Some(e) => e.located_at(file, r),
                        None => r,
                    };
                    let message = if messages {
                        d.to_string()
                    } else {
                        String::new()
                    };
                    Some((r, message))
                })
                .collect(),
        )
    }
}

/// The diagnostics of `doc` without their order or file: [`super::quick::diagnose`]'s when it
/// answers, else none when apollo-compiler's validation finds nothing (`Ok`, each range mapped
/// by `place`, each message kept with `messages`); `Err` with apollo-compiler's diagnostics.
// The `Err` (224 bytes) is moved once per re-check, to a caller that keeps it.
#[allow(clippy::result_large_err)]
fn quick_or_validate(
    doc: &ast::Document,
    schema: &NetboxSchema,
    messages: bool,
    place: impl Fn(&Range<usize>) -> Range<usize>,
) -> Result<Vec<Located>, WithErrors<ExecutableDocument>> {
    if let Some(said) = super::quick::diagnose(doc, schema) {
        return Ok(said
            .into_iter()
            .map(|d| {
                let message = if messages { d.message } else { String::new() };
                (place(&d.range), message)
            })
            .collect());
    }
    match doc.to_executable_validate(&schema.schema) {
        Ok(_) => Ok(Vec::new()),
        Err(w) => Err(w),
    }
}

/// apollo-compiler's diagnostics in the order its validation gives them for the document as
/// its own parse reads it, each with the file and byte range of its location there; `None`
/// when a location of a `converted` document ([`super::cynic_ast`]) may differ from that
/// parse's. apollo-compiler sorts diagnostics by file and offset, and the converted spans come
/// from three ruler files ([`super::ruler`]): sorted by offset again (stable), they are in the
/// parse's order unless two at one offset come from two files (their order then is the files',
/// not the rules'). apollo-compiler joins a node's span with its name's for an unused variable
/// (`$` to the end of the name) and for a fragment nested too deeply: from two files that
/// join gives the name alone, so the variable's range is taken from its `$` again (and such a
/// fragment is not answered).
fn in_order<'a>(list: &'a DiagnosticList, text: &str, converted: bool) -> Option<Vec<Diag<'a>>> {
    let mut out: Vec<Diag> = list
        .iter()
        .map(|d| {
            let at = d
                .error
                .location()
                .map(|l| (l.file_id(), l.offset()..l.end_offset()));
            (at, d.error)
        })
        .collect();
    if !converted {
        return Some(out);
    }
    // Ranges taken again: no file holds them (`None` as their file below).
    let mut joined = Vec::new();
    for (k, (at, d)) in out.iter_mut().enumerate() {
        match d.unstable_error_name() {
            Some("DeeplyNestedType") => return None,
            Some("UnusedVariable") => {
                let (_, r) = at.as_mut()?;
                if text.as_bytes().get(r.start) != Some(&b'$') {
                    // The name alone: the `$` before it (only whitespace and commas between,
                    // as the conversion wants).
                    let head = text.get(..r.start)?;
                    let dollar = head.trim_end_matches([' ', '\t', '\n', '\r', ',']);
                    r.start = dollar.strip_suffix('$')?.len();
                    joined.push(k);
                }
            }
            _ => {}
        }
    }
    // The schema's file was parsed before any document (a smaller id).
    let key = |(at, _): &Diag| at.as_ref().map(|(f, r)| (ruler::owns(*f), r.start));
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by_key(|&k| key(&out[k]));
    for w in order.windows(2) {
        let (x, y) = (&out[w[0]], &out[w[1]]);
        if let (Some((fx, rx)), Some((fy, ry))) = (&x.0, &y.0) {
            let unknown_file = joined.contains(&w[0]) || joined.contains(&w[1]);
            if rx.start == ry.start && (fx != fy || unknown_file) {
                return None;
            }
        }
    }
    Some(order.into_iter().map(|k| out[k].clone()).collect())
}

/// One validation diagnostic: its range in the document (`0..0` without a location), its
/// `unstable_error_name` and its message; from apollo-compiler or [`super::quick::diagnose`].
struct Said {
    range: Range<usize>,
    name: Option<&'static str>,
    message: String,
}

/// A diagnostic with the file and byte range of its location.
type Diag<'a> = (Option<(FileId, Range<usize>)>, &'a DiagnosticData);

/// A diagnostic about this `name: value` pair as a whole: touching the name, on exactly the
/// value (anywhere in it with `whole_value`), or enclosing both.
fn at_place(
    d: &Range<usize>,
    name: &Range<usize>,
    value: &Range<usize>,
    whole_value: bool,
) -> bool {
    touches(d, name)
        || d == value
        || (whole_value && touches(d, value))
        || (d.start <= name.start && value.end <= d.end)
}

/// Whether `d` overlaps `r` (an empty `d` counts when at or inside `r`).
fn touches(d: &Range<usize>, r: &Range<usize>) -> bool {
    if d.is_empty() {
        r.start <= d.start && d.start <= r.end
    } else {
        d.start < r.end && r.start < d.end
    }
}

/// Whether the variable defined at `def` (`$asn: Int`) is used inside one of `spans`.
fn used_in(text: &str, def: &Range<usize>, spans: &[Range<usize>]) -> bool {
    let Some(name) = text.get(def.clone()).and_then(|t| {
        let t = t.strip_prefix('$')?;
        let end = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(t.len());
        Some(&t[..end])
    }) else {
        return false;
    };
    let needle = format!("${name}");
    spans.iter().filter_map(|s| text.get(s.clone())).any(|t| {
        t.match_indices(&needle).any(|(i, _)| {
            !t[i + needle.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

fn walk_name(text: &str, r: &Range<usize>) -> String {
    text.get(r.clone()).unwrap_or("").to_ascii_lowercase()
}

/// The switch the differential test (`cynic_ast`'s tests) turns to check a text with
/// apollo-compiler's parse alone, and what it counts.
#[cfg(test)]
pub(crate) mod tests_only {
    thread_local! {
        pub(crate) static APOLLO_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        /// Documents whose converted AST apollo-compiler validated (the findings of an
        /// invalid document without apollo-compiler's parse).
        pub(crate) static VALIDATED_CONVERTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
}
