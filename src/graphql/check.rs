//! `check_document`: parse (bounded), NetBox rules, apollo-compiler validation, "did you mean",
//! variables; then every range is mapped from the GraphQL text to the host through the
//! document's offset map.

use super::rules::{self, did_you_mean_suffix, span, RawFinding, RawFix};
use super::variables;
use super::NetboxSchema;
use crate::extract::{GraphqlDoc, OffsetMap};
use crate::finding::{Edit, Finding, Fix, Severity};
use apollo_compiler::ast;
use apollo_compiler::diagnostic::ToCliReport;
use apollo_compiler::parser::Parser;
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
        Err(with) => Err(dedup_ranges(with
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
                }
            })
            .collect())),
    }
}

/// The parser often reports two errors at one token ("expected an Argument", "expected
/// R_PAREN"); keep the first per range.
fn dedup_ranges(mut v: Vec<RawFinding>) -> Vec<RawFinding> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|f| seen.insert((f.range.start, f.range.end)));
    v
}

/// Checks one GraphQL document against `schema`; findings carry host byte ranges.
pub fn check_document(doc: &GraphqlDoc, schema: &NetboxSchema) -> Vec<Finding> {
    let raw = check_text(&doc.text, doc.variables.as_ref(), schema);
    raw.into_iter()
        .map(|f| to_host(f, &doc.map, &doc.text))
        .collect()
}

/// The same checks in GraphQL-text coordinates (used by tests and benchmarks).
pub fn check_text(
    text: &str,
    variables: Option<&serde_json::Value>,
    schema: &NetboxSchema,
) -> Vec<RawFinding> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let doc = match parse(text) {
        Ok(d) => d,
        Err(syntax) => return syntax,
    };
    let walk = rules::walk(&doc, schema, text);
    let mut out = walk.findings;
    let claims: Vec<Range<usize>> = out.iter().filter_map(|f| f.claim.clone()).collect();
    if let Err(with) = doc.to_executable_validate(&schema.schema) {
        for d in with.errors.iter() {
            let mut r = span(d.error.location()).unwrap_or(0..0);
            if d.error.unstable_error_name() == Some("MissingSubselection")
                && text.get(r.clone()).is_some_and(|t| t.contains('{'))
            {
                // The sub-selection holds only unknown fields, already reported.
                continue;
            }
            if claims.iter().any(|c| c.start <= r.start && r.end <= c.end) {
                continue;
            }
            let mut f = RawFinding {
                range: r.clone(),
                code: "graphql-validation",
                severity: Severity::Error,
                message: d.error.to_string(),
                fixes: Vec::new(),
                claim: None,
            };
            // "Did you mean": the unknown name recorded by the walk inside this diagnostic.
            let unknown = walk.unknowns.iter().find(|u| {
                (r.start <= u.range.start && u.range.end <= r.end)
                    || u.value_range.as_ref() == Some(&r)
            });
            if let Some(u) = unknown {
                // Point at the name, as NetBox does, not at the value after it.
                f.range = u.range.clone();
                r = u.range.clone();
                f.message.push_str(&did_you_mean_suffix(&u.candidates));
                let one = clear_winner(&walk_name(text, &u.range), &u.candidates);
                for c in &u.candidates {
                    f.fixes.push(RawFix {
                        title: format!("Replace with `{c}`"),
                        edits: vec![(u.range.clone(), c.clone())],
                        certain: one,
                    });
                }
            }
            if let Some(h) = walk.hints.iter().find(|h| h.range == r) {
                // `r` is still the value span when no unknown name matched.
                f.message.push_str(&format!(
                    ". NetBox filters take lookup objects: `{}`",
                    h.fix.edits[0].1
                ));
                f.fixes.push(h.fix.clone());
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
            })
        })
        .collect();
    Finding {
        range: map.range_to_host(clamp(&f.range)),
        code: f.code,
        severity: f.severity,
        message: f.message,
        fixes,
    }
}

fn walk_name(text: &str, r: &Range<usize>) -> String {
    text.get(r.clone()).unwrap_or("").to_ascii_lowercase()
}

/// One clear candidate: the only one, or one edit away while the next is three or more away
/// (`tenant_grop` → `tenant_group`, not `tenant_group_id`).
fn clear_winner(input: &str, candidates: &[String]) -> bool {
    let d = |c: &String| strsim::damerau_levenshtein(input, &c.to_ascii_lowercase());
    match candidates {
        [_] => true,
        [a, b, ..] => d(a) <= 1 && d(b) >= 3,
        [] => false,
    }
}
