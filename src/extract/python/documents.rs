//! GraphQL documents held in Python strings that no call of the table carries, and what marker
//! comments point at.
//!
//! A string (a literal, an f-string with `{{ }}` escapes and `{var}` holes, a concatenation, a
//! `%` or `.format` template, the text of a `string.Template`), or the `"query"` of a
//! `{"query": ..., "variables": ...}` dict, is a document when its text, each hole written as
//! `_`s, is one: tagged (`#graphql` as its first line, `/* GraphQL */` before it), or parsing as
//! an executable document without a syntax error. Which of these are NetBox's is decided where
//! the schema is known ([`crate::extract::DocFound`]): a document for another API gets nothing.
//!
//! Marker comments (`# netbox: graphql`, `# netbox: dcim/devices` on or above a dict or a
//! string) point the checks at what no reading can find: the string is a NetBox document, the
//! dict's keys (or the string's `k=v` pairs) are filters of that endpoint.

use std::ops::Range;

use ruff_python_ast::Expr;
use ruff_text_size::Ranged;

use super::semantic::{Holes, Marker};
use super::span;
use super::values::{Template, Values};
use crate::extract::lit::{looks_like_graphql, Lit};
use crate::extract::{CallForm, DocFound, GraphqlDoc, OffsetMap, RestCall, Site, Syntax};

impl<'a> Values<'a> {
    /// The documents of the module's strings: those marked `# netbox: graphql`, the `"query"`
    /// of `{"query": ...}` dicts (with their variables), then every other string that reads as
    /// a document.
    pub(super) fn documents(&self) -> Vec<Site> {
        let mut out = Vec::new();
        for mk in &self.m.marked {
            self.refuel();
            if mk.marker == Marker::Graphql {
                if let Some((text, map, holes)) = self.template_text(mk.expr, mk.at, Holes::Plain) {
                    out.push(doc(text, map, holes, None, DocFound::Carried));
                }
            }
        }
        for c in self.m.candidates.iter().filter(|c| c.payload) {
            self.refuel();
            let lit = self.resolve(c.expr, c.at);
            let Some(q) = lit.get("query") else {
                continue;
            };
            let Some((text, map, holes)) = q.value.document_text() else {
                continue;
            };
            let variables = lit
                .get("variables")
                .and_then(|v| v.value.to_json())
                .filter(|v| v.is_object());
            if let Some((text, found)) = classify(text) {
                out.push(doc(text, map.clone(), holes.to_vec(), variables, found));
            }
        }
        for c in self.m.candidates.iter().filter(|c| !c.payload) {
            self.refuel();
            let Some((text, map, holes)) = self.template_text(c.expr, c.at, c.holes) else {
                continue;
            };
            if let Some((text, found)) = classify(&text) {
                out.push(doc(text, map, holes, None, found));
            }
        }
        out
    }

    /// The text of string expression `e` with its map to the host and its holes' ranges in the
    /// text, when it maps exactly.
    fn template_text(
        &self,
        e: &'a Expr,
        at: super::semantic::At,
        holes: Holes,
    ) -> Option<(String, OffsetMap, Vec<Range<usize>>)> {
        let mut t = Template::default();
        self.template(e, at, holes, 0, &mut t);
        let (text, map, hole_ranges) = self.render(&t);
        let map = map?.then(self.r.map);
        if text.len() > self.len || hole_ranges.iter().any(|h| h.end > self.len) {
            return None;
        }
        Some((
            text,
            map,
            hole_ranges.into_iter().map(|h| self.host(h)).collect(),
        ))
    }

    /// The REST sites of the dicts and strings a `# netbox: <app>/<endpoint>` marker points at:
    /// a dict's keys, a string's `k=v&k=v` pairs, sent to that endpoint.
    pub(super) fn marked_sites(&self) -> Vec<Site> {
        let mut out = Vec::new();
        for mk in &self.m.marked {
            self.refuel();
            let Marker::Endpoint(path, range) = &mk.marker else {
                continue;
            };
            let target = Some((path.as_str().into(), self.host(range.clone())));
            let call_range = self.host(span(mk.expr.range()));
            match mk.expr {
                Expr::Dict(_) => {
                    let lit = self.resolve(mk.expr, mk.at);
                    let Some(pairs) = lit.pairs() else {
                        continue;
                    };
                    out.push(Site::Rest(RestCall {
                        form: CallForm::Url,
                        syntax: Syntax::Python,
                        target,
                        call_range,
                        filters_range: Some(lit.range.clone()),
                        filters: crate::extract::tools::entries(pairs),
                        args: Vec::new(),
                        declared: false,
                    }));
                }
                Expr::StringLiteral(s) if s.value.iter().count() == 1 => {
                    let lit: Lit = self.literal(mk.expr, None, 0);
                    let Some((text, _)) = lit.as_str() else {
                        continue;
                    };
                    if !text.contains('=') || lit.exact_text().is_none() {
                        continue;
                    }
                    let content = self.content(s.range);
                    let filters: Vec<_> =
                        crate::extract::text::query_pairs(self.src, content.clone())
                            .into_iter()
                            .map(|mut e| {
                                e.key_range = self.host(e.key_range);
                                e.value_range = self.host(e.value_range);
                                e
                            })
                            .collect();
                    if filters.is_empty() {
                        continue;
                    }
                    out.push(Site::Rest(RestCall {
                        form: CallForm::Url,
                        syntax: Syntax::Query,
                        target,
                        call_range,
                        filters_range: Some(self.host(content)),
                        filters,
                        args: Vec::new(),
                        declared: false,
                    }));
                }
                _ => {}
            }
        }
        out
    }
}

fn doc(
    text: String,
    map: OffsetMap,
    holes: Vec<Range<usize>>,
    variables: Option<serde_json::Value>,
    found: DocFound,
) -> Site {
    Site::Graphql(GraphqlDoc {
        text,
        map,
        variables,
        holes,
        found,
    })
}

/// How a string's text is a document: tagged (`#graphql` first, or `/* GraphQL */` before it,
/// blanked so the text parses), or by its shape (an executable document without a syntax
/// error). `None` for any other text.
fn classify(text: &str) -> Option<(String, DocFound)> {
    let lead = text.len() - text.trim_start().len();
    let t = &text[lead..];
    let lower: String = t.chars().take(16).collect::<String>().to_ascii_lowercase();
    let hash_tag = lower
        .strip_prefix('#')
        .map(str::trim_start)
        .is_some_and(|r| r.starts_with("graphql"));
    if hash_tag {
        return Some((text.to_string(), DocFound::Graphql));
    }
    if let Some(rest) = lower.strip_prefix("/*") {
        let inner = rest.trim_start();
        if inner.starts_with("graphql") {
            if let Some(close) = t.find("*/") {
                let mut blanked = text.to_string();
                blanked.replace_range(lead..lead + close + 2, &" ".repeat(close + 2));
                return Some((blanked, DocFound::Graphql));
            }
        }
        return None;
    }
    // A root field of NetBox's is an object or a list: it selects fields of its own, so a
    // document has a nested selection (`"{status}"`, a format placeholder, is none).
    let nested = text.bytes().filter(|&b| b == b'{').nth(1).is_some();
    (nested && looks_like_graphql(text) && crate::extract::markdown::is_graphql(text))
        .then(|| (text.to_string(), DocFound::Shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_shapes() {
        assert_eq!(
            classify("#graphql\n{ a }").map(|c| c.1),
            Some(DocFound::Graphql)
        );
        assert_eq!(
            classify("  # GraphQL\nquery { a(").map(|c| c.1),
            Some(DocFound::Graphql)
        );
        let (t, f) = classify("/* GraphQL */ { a }").unwrap();
        assert_eq!((t.as_str(), f), ("              { a }", DocFound::Graphql));
        assert_eq!(
            classify("query { a { b } }").map(|c| c.1),
            Some(DocFound::Shape)
        );
        // A syntax error, a JSON-ish or format template, prose: no document.
        for no in [
            "query { a(",
            "{\"a\": 1}",
            "{name}/{id}",
            "select * from t",
            "/* c */ { a }",
            "{status}",
        ] {
            assert_eq!(classify(no), None, "{no}");
        }
    }
}
