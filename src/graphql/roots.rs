//! Whether a GraphQL document found in a string by its shape or its tag (not sent by a call the
//! tool knows, see [`DocFound`]) is one for NetBox, from its root fields: a query whose root
//! fields are the fields of NetBox's `Query` (the release's schema) is NetBox's; one for
//! another API (`{ viewer { login } }`, `{ repository(...) }`) is not, and gets nothing.
//!
//! - [`DocFound::Shape`] (a string that parses as a document): every root field is NetBox's, or
//!   a near miss of a `_list` field (`devcie_list`: the typo is what the check reports), and one
//!   of them is a list or is asked by `id` (`device(id: ...)`), the forms NetBox's root fields
//!   take; `user`, `group` or `tag` alone, which other APIs have too, say nothing.
//! - [`DocFound::Graphql`] (`#graphql`, `/* GraphQL */`): one root field is NetBox's or a near
//!   miss of one.
//! - `DocFound::Carried`: always.

use apollo_parser::cst;

use super::rules::{field_names, near_name};
use super::NetboxSchema;
use crate::extract::{DocFound, GraphqlDoc};

/// True when `doc` is to be checked against `schema` (see the module documentation).
pub fn is_netbox_document(doc: &GraphqlDoc, schema: &NetboxSchema) -> bool {
    if doc.found == DocFound::Carried {
        return true;
    }
    let cst = apollo_parser::Parser::new(&doc.text)
        .recursion_limit(super::check::RECURSION_LIMIT)
        .token_limit(super::check::TOKEN_LIMIT)
        .parse();
    let document = cst.document();
    let fragments: Vec<cst::FragmentDefinition> = document
        .definitions()
        .filter_map(|d| match d {
            cst::Definition::FragmentDefinition(f) => Some(f),
            _ => None,
        })
        .collect();
    let mut roots: Vec<(String, bool)> = Vec::new();
    for d in document.definitions() {
        let cst::Definition::OperationDefinition(op) = d else {
            continue;
        };
        let query = op
            .operation_type()
            .is_none_or(|t| t.query_token().is_some());
        if !query {
            // NetBox's GraphQL API has no mutations or subscriptions.
            return false;
        }
        if let Some(set) = op.selection_set() {
            root_fields(&set, &fragments, 0, &mut roots);
        }
    }
    if roots.is_empty() {
        return false;
    }
    let names = field_names(&schema.schema, "Query");
    let netbox = |n: &str| names.clone().any(|r| r == n);
    let near_list = |n: &str| n.ends_with("_list") && near_name(n, names.clone());
    match doc.found {
        DocFound::Carried => true,
        DocFound::Graphql => roots
            .iter()
            .any(|(n, _)| netbox(n) || near_name(n, names.clone())),
        DocFound::Shape => {
            roots.iter().all(|(n, _)| netbox(n) || near_list(n))
                && roots
                    .iter()
                    .any(|(n, by_id)| n.ends_with("_list") || *by_id)
        }
    }
}

/// The root fields of a selection set (through inline fragments and fragment spreads, a few
/// levels), each with whether it is asked with an `id` argument; `__typename` aside.
fn root_fields(
    set: &cst::SelectionSet,
    fragments: &[cst::FragmentDefinition],
    depth: usize,
    out: &mut Vec<(String, bool)>,
) {
    if depth > 4 {
        return;
    }
    for s in set.selections() {
        match s {
            cst::Selection::Field(f) => {
                let Some(name) = f.name() else {
                    continue;
                };
                let name = name.text().to_string();
                if name == "__typename" {
                    continue;
                }
                let by_id = f.arguments().is_some_and(|args| {
                    args.arguments()
                        .any(|a| a.name().is_some_and(|n| n.text() == "id"))
                });
                out.push((name, by_id));
            }
            cst::Selection::InlineFragment(i) => {
                if let Some(inner) = i.selection_set() {
                    root_fields(&inner, fragments, depth + 1, out);
                }
            }
            cst::Selection::FragmentSpread(spread) => {
                let Some(name) = spread.fragment_name().and_then(|n| n.name()) else {
                    continue;
                };
                let def = fragments.iter().find(|f| {
                    f.fragment_name()
                        .and_then(|n| n.name())
                        .is_some_and(|n| n.text() == name.text())
                });
                if let Some(inner) = def.and_then(|f| f.selection_set()) {
                    root_fields(&inner, fragments, depth + 1, out);
                }
            }
        }
    }
}
