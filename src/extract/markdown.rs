//! Extraction from Markdown (SKILL.md files, prompts): fenced code blocks by language
//! (```python / ```py, ```json, ```yaml / ```yml, ```graphql / ```gql; an unlabelled fence is read as
//! JSON when it starts with `{` or `[`, else as Python), also inside list items and block
//! quotes, indented code blocks that mention `netbox` or `nb.` (read like an unlabelled fence),
//! inline code spans that read as a call, and REST URLs anywhere in the text.
//!
//! tree-sitter-md keeps the container prefixes (`> `, list indentation) inside a fence's content
//! as `block_continuation` children; they are cut out and the fence text gets a piecewise
//! [`OffsetMap`] back to the host. YAML front matter is metadata, not a tool call: skipped.

use std::collections::HashSet;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::parse::{for_each_node, with_parser, Lang};
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
        let tree = with_parser(Lang::MarkdownBlock, |p| p.parse(text, None)).flatten();
        if let Some(tree) = tree {
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

/// Visits the block tree in document order. Fences and inline nodes are handled whole, and
/// nodes that hold neither (code, HTML, tables) are not entered: their token children are many.
fn walk(text: &str, tree: &Tree, ex: &mut Extraction, seen: &mut HashSet<SiteKey>) {
    let mut cursor = tree.root_node().walk();
    // Whether each node on the cursor's path is a container (list item, block quote), and how
    // many are: only inside one does a fence's content hold prefixes to cut.
    let mut path = vec![false];
    let mut containers = 0usize;
    loop {
        let n = cursor.node();
        let enter = match n.kind() {
            "fenced_code_block" => {
                ex.blocks.push(n.byte_range());
                for site in fence(text, n, containers > 0) {
                    push_unique(&mut ex.sites, seen, site);
                }
                false
            }
            "inline" => {
                for site in inline_code_spans(text, n) {
                    push_unique(&mut ex.sites, seen, site);
                }
                false
            }
            "indented_code_block" => {
                let sites = indented(text, n);
                if !sites.is_empty() {
                    ex.blocks.push(n.byte_range());
                }
                for site in sites {
                    push_unique(&mut ex.sites, seen, site);
                }
                false
            }
            "html_block" | "pipe_table" => false,
            _ => true,
        };
        if enter && cursor.goto_first_child() {
            let c = is_container(cursor.node());
            containers += usize::from(c);
            path.push(c);
            continue;
        }
        loop {
            let left = path.pop().unwrap_or(false);
            containers -= usize::from(left);
            if cursor.goto_next_sibling() {
                let c = is_container(cursor.node());
                containers += usize::from(c);
                path.push(c);
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Container blocks: tree-sitter-md gives their prefixes (`> `, list indentation) on every
/// continued line as a `block_continuation` with width.
fn is_container(n: Node) -> bool {
    matches!(n.kind(), "list_item" | "block_quote")
}

/// The calls in the code spans of one inline node. The inline grammar runs only where a code
/// span can be (a backtick in the node), over the same ranges `tree_sitter_md::MarkdownParser`
/// gives it: the node minus its named children after the first (container prefixes).
fn inline_code_spans(text: &str, inline: Node) -> Vec<Site> {
    let Some(src) = text.get(inline.byte_range()) else {
        return Vec::new();
    };
    if !src.contains('`') {
        return Vec::new();
    }
    let mut range = inline.range();
    let mut ranges = Vec::new();
    let mut cursor = inline.walk();
    if cursor.goto_first_child() {
        while cursor.goto_next_sibling() {
            let child = cursor.node();
            if !child.is_named() {
                continue;
            }
            let r = child.range();
            ranges.push(tree_sitter::Range {
                start_byte: range.start_byte,
                start_point: range.start_point,
                end_byte: r.start_byte,
                end_point: r.start_point,
            });
            range.start_byte = r.end_byte;
            range.start_point = r.end_point;
        }
    }
    ranges.push(range);
    let tree = with_parser(Lang::MarkdownInline, |p| {
        p.set_included_ranges(&ranges).ok()?;
        p.parse(text, None)
    })
    .flatten();
    let Some(tree) = tree else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for_each_node(tree.root_node(), |c| {
        if c.kind() == "code_span" {
            out.extend(code_span(text, c));
        }
    });
    out
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
/// `nested`: the fence is inside a list item or block quote. Outside one, the content's
/// `block_continuation` children are empty (the scanner's fence match reads no bytes), so its
/// many token children need not be looked through.
pub(crate) fn fence_content(text: &str, fence: Node, nested: bool) -> Option<(String, OffsetMap)> {
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
    if nested {
        let mut c2 = content.walk();
        for child in content.named_children(&mut c2) {
            if child.kind() == "block_continuation" {
                push(pos..child.start_byte(), &mut out);
                pos = child.end_byte();
            }
        }
    }
    push(pos..content.end_byte(), &mut out);
    Some((out, map))
}

fn fence(text: &str, fence: Node, nested: bool) -> Vec<Site> {
    let lang = fence_language(text, fence).to_ascii_lowercase();
    let Some((body, map)) = fence_content(text, fence, nested) else {
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
        "" => unlabelled(&body, &map),
        _ => Vec::new(),
    }
}

/// Code without a language: JSON when it starts with `{` or `[`, else Python.
fn unlabelled(body: &str, map: &OffsetMap) -> Vec<Site> {
    let t = body.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        json::extract_calls(body, map)
    } else {
        python::extract_calls(body, map)
    }
}

/// An indented code block (four spaces or a tab), read like an unlabelled fence when it
/// mentions `netbox` or `nb.` (a cheap filter: most indented blocks are shell or output).
/// Each line's code starts four columns (tabs to multiples of four) after the column where
/// the block's first line starts, so container prefixes (`> `, list indentation) and the
/// code indentation are cut alike; the text keeps a piecewise map to the host.
fn indented(text: &str, block: Node) -> Vec<Site> {
    let r = block.byte_range();
    let Some(src) = text.get(r.clone()) else {
        return Vec::new();
    };
    if !(src.contains("netbox") || src.contains("nb.")) {
        return Vec::new();
    }
    let b = text.as_bytes();
    let line_start = text[..r.start].rfind('\n').map_or(0, |i| i + 1);
    let advance = |mut i: usize, mut col: usize, stop: usize, limit: usize| {
        while i < limit && col < stop && b[i] != b'\n' && b[i].is_ascii() {
            col = if b[i] == b'\t' {
                col / 4 * 4 + 4
            } else {
                col + 1
            };
            i += 1;
        }
        (i, col)
    };
    let (_, first_col) = advance(line_start, 0, usize::MAX, r.start);
    let target = first_col + 4;
    let mut body = String::with_capacity(src.len());
    let mut map = OffsetMap::new();
    let mut pos = line_start;
    while pos < r.end {
        let end = text[pos..r.end].find('\n').map_or(r.end, |i| pos + i + 1);
        let (from, _) = advance(pos, 0, target, end);
        if from < end {
            body.push_str(&text[from..end]);
            map.push(from, end - from);
        }
        pos = end;
    }
    unlabelled(&body, &map)
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
