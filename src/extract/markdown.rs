//! Extraction from Markdown (SKILL.md files, prompts): fenced code blocks by language
//! (```python / ```py, ```json, ```yaml / ```yml, ```graphql / ```gql; an unlabelled fence is read as
//! JSON when it starts with `{` or `[`, else as Python), also inside list items and block
//! quotes, inline code spans that read as a call, and REST URLs anywhere in the text.
//!
//! tree-sitter-md keeps the container prefixes (`> `, list indentation) inside a fence's content
//! as `block_continuation` children; they are cut out and the fence text gets a piecewise
//! [`OffsetMap`] back to the host. YAML front matter is metadata, not a tool call: skipped.

use std::collections::HashSet;
use std::ops::Range;

use tree_sitter::Node;
use tree_sitter_md::{MarkdownParser, MarkdownTree};

use super::parse::for_each_node;
use super::{json, python, text, yaml, Extraction, GraphqlDoc, OffsetMap, Site};

/// Largest Markdown host parsed structurally (bytes). tree-sitter-md reads about 1 MB/s on
/// fence-heavy text (release build), so larger files (generated dumps, not skill files) only
/// get the linear URL scan and one file can never stall `check` or the server.
pub const MAX_MARKDOWN: usize = 1024 * 1024;

/// Everything found in the Markdown host `text` (ranges are host byte offsets).
pub fn extract(text: &str) -> Extraction {
    let mut ex = Extraction::default();
    let mut seen = HashSet::new();
    if text.len() <= MAX_MARKDOWN {
        let mut parser = MarkdownParser::default();
        if let Some(tree) = parser.parse(text.as_bytes(), None) {
            walk(text, &tree, &mut ex, &mut seen);
        }
    }
    let urls = text::extract(text, &OffsetMap::identity(0, text.len()));
    for site in urls {
        push_unique(&mut ex.sites, &mut seen, site);
    }
    ex
}

/// Identity of a site for de-duplication: a URL inside a Python string is found both by the
/// fence's extractor and by the host-wide URL scan.
#[derive(Hash, PartialEq, Eq)]
enum SiteKey {
    Rest(usize, usize, bool),
    Graphql(usize, usize),
}

fn walk(text: &str, tree: &MarkdownTree, ex: &mut Extraction, seen: &mut HashSet<SiteKey>) {
    for_each_node(tree.block_tree().root_node(), |n| match n.kind() {
        "fenced_code_block" => {
            ex.blocks.push(n.byte_range());
            for site in fence(text, n) {
                push_unique(&mut ex.sites, seen, site);
            }
        }
        "inline" => {
            if let Some(inline) = tree.inline_tree(&n) {
                for_each_node(inline.root_node(), |c| {
                    if c.kind() == "code_span" {
                        for site in code_span(text, c) {
                            push_unique(&mut ex.sites, seen, site);
                        }
                    }
                });
            }
        }
        _ => {}
    });
}

/// Adds `site` unless one at the same place is already there.
fn push_unique(sites: &mut Vec<Site>, seen: &mut HashSet<SiteKey>, site: Site) {
    let key = match &site {
        Site::Rest(c) => SiteKey::Rest(
            c.call_range.start,
            c.call_range.end,
            c.form == super::CallForm::Url,
        ),
        Site::Graphql(d) => SiteKey::Graphql(d.map.to_host(0), d.text.len()),
    };
    if seen.insert(key) {
        sites.push(site);
    }
}

/// The language a fence's info string names, lowercased.
fn fence_language<'t>(text: &'t str, fence: Node) -> &'t str {
    let mut cursor = fence.walk();
    let info = fence
        .named_children(&mut cursor)
        .find(|c| c.kind() == "info_string");
    let Some(info) = info else { return "" };
    let mut c2 = info.walk();
    let lang = info
        .named_children(&mut c2)
        .find(|c| c.kind() == "language")
        .unwrap_or(info);
    text.get(lang.byte_range()).unwrap_or("").trim()
}

/// A fence's content with container prefixes removed, and its map to the host.
pub(crate) fn fence_content(text: &str, fence: Node) -> Option<(String, OffsetMap)> {
    let mut cursor = fence.walk();
    let content = fence
        .named_children(&mut cursor)
        .find(|c| c.kind() == "code_fence_content")?;
    let mut out = String::new();
    let mut map = OffsetMap::new();
    let mut pos = content.start_byte();
    let mut push = |r: Range<usize>, out: &mut String| {
        if let Some(s) = text.get(r.clone()) {
            out.push_str(s);
            map.push(r.start, s.len());
        }
    };
    let mut c2 = content.walk();
    for child in content.named_children(&mut c2) {
        if child.kind() == "block_continuation" {
            push(pos..child.start_byte(), &mut out);
            pos = child.end_byte();
        }
    }
    push(pos..content.end_byte(), &mut out);
    Some((out, map))
}

fn fence(text: &str, fence: Node) -> Vec<Site> {
    let lang = fence_language(text, fence).to_ascii_lowercase();
    let Some((body, map)) = fence_content(text, fence) else {
        return Vec::new();
    };
    match lang.as_str() {
        "python" | "py" | "python3" | "py3" | "ipython" => python::extract_calls(&body, &map),
        "json" | "jsonc" | "json5" | "jsonl" => json::extract_calls(&body, &map),
        "yaml" | "yml" => yaml::extract_calls(&body, &map),
        "graphql" | "gql" => vec![Site::Graphql(GraphqlDoc {
            text: body,
            map,
            variables: None,
        })],
        "" => {
            let t = body.trim_start();
            if t.starts_with('{') || t.starts_with('[') {
                json::extract_calls(&body, &map)
            } else {
                python::extract_calls(&body, &map)
            }
        }
        _ => Vec::new(),
    }
}

/// An inline code span that reads as a call (`netbox_get_objects("dcim.site", {...})`).
fn code_span(text: &str, span: Node) -> Vec<Site> {
    let count = span.child_count();
    if count < 2 {
        return Vec::new();
    }
    let (Some(open), Some(close)) = (span.child(0), span.child(count - 1)) else {
        return Vec::new();
    };
    if open.kind() != "code_span_delimiter" || close.kind() != "code_span_delimiter" {
        return Vec::new();
    }
    let r = open.end_byte()..close.start_byte().max(open.end_byte());
    let Some(body) = text.get(r.clone()) else {
        return Vec::new();
    };
    if !looks_like_call(body) || body.contains('\n') {
        return Vec::new();
    }
    python::extract_calls(body, &OffsetMap::identity(r.start, body.len()))
}

/// `name(` or `a.b.c(` at the start, after optional spaces.
fn looks_like_call(s: &str) -> bool {
    let t = s.trim_start();
    let head = t.find('(').map(|i| &t[..i]).unwrap_or("");
    !head.is_empty()
        && head
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}
