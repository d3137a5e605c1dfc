//! Extraction from JSON: tool-call objects (`{"name": "netbox_get_objects", "arguments":
//! {...}}`, also `tool` / `tool_name` and `input` / `tool_input` / `args` / `parameters`), bare
//! `{"object_type": ..., "filters": {...}}` objects and GraphQL bodies `{"query": "...",
//! "variables": {...}}` anywhere in the tree (also in arrays), plus REST URLs in any string.
//!
//! The JSON text is read by [`super::json_lit`].

use super::json_lit::{strict, Cx};
use super::parse::{self, Lang};
use super::{tools, OffsetMap, Site, Syntax};

/// Sites found in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut sites = extract_calls(text, map);
    sites.extend(super::text::extract(text, map));
    sites
}

/// Calls and documents only (no URL scan).
pub(crate) fn extract_calls(text: &str, map: &OffsetMap) -> Vec<Site> {
    let cx = Cx {
        src: text,
        len: text.len(),
        map,
    };
    if let Some(refused) = parse::over_budget(Lang::Json, text) {
        return refused.site(text.len(), map).into_iter().collect();
    }
    let mut sites = Vec::new();
    if let Some(root) = strict::document(&cx) {
        tools::find_in_tree(&root, Syntax::Json, &mut sites);
        return sites;
    }
    let tree = match parse::parse(Lang::Json, text) {
        Ok(t) => t,
        Err(refused) => return refused.site(text.len(), map).into_iter().collect(),
    };
    tools::find_in_tree(&cx.lit(tree.root_node(), 0), Syntax::Json, &mut sites);
    if tree.root_node().has_error() {
        let close = parse::closers(text, false);
        if !close.is_empty() {
            let repaired = format!("{text}{close}");
            if let Ok(tree2) = parse::parse(Lang::Json, &repaired) {
                let cx = Cx {
                    src: &repaired,
                    len: text.len(),
                    map,
                };
                let mut more = Vec::new();
                tools::find_in_tree(&cx.lit(tree2.root_node(), 0), Syntax::Json, &mut more);
                super::add_missing(&mut sites, more);
            }
        }
    }
    sites
}
