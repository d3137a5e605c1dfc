//! Finds the GraphQL document (a fence, a `.graphql` file, a `query` string) under a host offset,
//! so completion and hover can hand GraphQL positions to the `graphql` module.

use super::position::Snapshot;
use crate::extract::unit::{self, CodeUnit, Reading};
use crate::extract::{self, GraphqlDoc, HostKind, Site};

/// The GraphQL document containing host byte `offset`, and the offset inside its text.
///
/// Cheap on big hosts: a `.graphql` host is its own document; in Markdown only the code block
/// or span under the cursor is extracted; Python / YAML / JSON are extracted only when the text
/// can hold a GraphQL document at all. Same answer as [`locate_full`].
pub fn locate(text: &str, kind: HostKind, offset: usize) -> Option<(GraphqlDoc, usize)> {
    match fast(text, kind, offset) {
        Fast::Found(found) => found,
        Fast::Unsure => locate_full(text, kind, offset),
    }
}

/// [`locate`] on a snapshot: a full extraction the fast paths cannot avoid is kept with the
/// snapshot, so further requests on the same version reuse it.
pub fn locate_in(snap: &Snapshot, kind: HostKind, offset: usize) -> Option<(GraphqlDoc, usize)> {
    let unit = matches!(kind, HostKind::Markdown | HostKind::Notebook)
        .then(|| snap.unit_at(kind, offset))
        .flatten();
    locate_in_unit(snap, kind, offset, unit.as_ref())
}

/// [`locate_in`] with the unit that holds `offset` already found (`unit`:
/// [`Snapshot::unit_at`] of `kind` at `offset`; only a Markdown or notebook host reads it).
pub fn locate_in_unit(
    snap: &Snapshot,
    kind: HostKind,
    offset: usize,
    unit: Option<&CodeUnit>,
) -> Option<(GraphqlDoc, usize)> {
    let fast = match kind {
        HostKind::Markdown | HostKind::Notebook => unit_fast(unit, offset),
        _ => fast(&snap.text, kind, offset),
    };
    match fast {
        Fast::Found(found) => found,
        Fast::Unsure => {
            let (k, docs) = snap
                .graphql_docs
                .get_or_init(|| (kind, graphql_docs(&snap.text, kind)));
            if *k != kind {
                return locate_full(&snap.text, kind, offset);
            }
            find(docs.iter().cloned(), offset)
        }
    }
}

/// The answer by full extraction of the host (the reference the fast paths must equal).
pub fn locate_full(text: &str, kind: HostKind, offset: usize) -> Option<(GraphqlDoc, usize)> {
    find(graphql_docs(text, kind).into_iter(), offset)
}

/// Every GraphQL document of the host, in extraction order.
fn graphql_docs(text: &str, kind: HostKind) -> Vec<GraphqlDoc> {
    extract::extract(text, kind)
        .sites
        .into_iter()
        .filter_map(|site| match site {
            Site::Graphql(doc) => Some(doc),
            _ => None,
        })
        .collect()
}

/// The first document containing host `offset`.
fn find(docs: impl Iterator<Item = GraphqlDoc>, offset: usize) -> Option<(GraphqlDoc, usize)> {
    docs.into_iter()
        .find_map(|doc| embedded_offset(&doc, offset).map(|e| (doc, e)))
}

enum Fast {
    /// The answer, without extracting the whole host.
    Found(Option<(GraphqlDoc, usize)>),
    /// Only the full extraction can tell.
    Unsure,
}

fn fast(text: &str, kind: HostKind, offset: usize) -> Fast {
    match kind {
        HostKind::Graphql => Fast::Found(find(graphql_docs(text, kind).into_iter(), offset)),
        HostKind::Markdown | HostKind::Notebook => {
            unit_fast(unit::at(text, kind, offset).as_ref(), offset)
        }
        // Plain text yields REST URLs only (extract::text).
        HostKind::Text => Fast::Found(None),
        // A GraphQL document there comes from a `query` argument / key, a `gql(...)` call or a
        // GraphQL tool name (see extract::tools), or in Python a string that reads as a NetBox
        // document by its root fields (a list, or one asked `id:`): none of them without these
        // words.
        HostKind::Python | HostKind::Yaml | HostKind::Json => {
            let lower = text.to_ascii_lowercase();
            if ["query", "graphql", "gql", "_list", "id:"]
                .iter()
                .any(|w| lower.contains(w))
            {
                Fast::Unsure
            } else {
                Fast::Found(None)
            }
        }
    }
}

/// Markdown and notebooks: one pulldown-cmark pass (well under a millisecond on a 5,000-line
/// skill file) or one JSON read finds the code block, span or cell under the cursor
/// (`extract::unit`, as completion and hover find it), and only its code is extracted: units
/// are independent, so this is exactly what the full extraction finds there. Markdown prose
/// holds no GraphQL document.
fn unit_fast(unit: Option<&CodeUnit>, offset: usize) -> Fast {
    let docs = unit
        .filter(|u| u.reading != Reading::Prose)
        .map(|u| u.sites())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|site| match site {
            Site::Graphql(doc) => Some(doc),
            _ => None,
        });
    Fast::Found(find(docs, offset))
}

/// The embedded offset that maps to host `offset` (`to_host` is monotonic, so a binary search
/// inverts it); `None` when the offset is outside the document or in a removed prefix.
fn embedded_offset(doc: &GraphqlDoc, offset: usize) -> Option<usize> {
    let len = doc.map.len();
    if len == 0 || offset < doc.map.to_host(0) || offset > doc.map.to_host_end(len) {
        return None;
    }
    if offset == doc.map.to_host_end(len) {
        return Some(len);
    }
    let (mut lo, mut hi) = (0usize, len);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if doc.map.to_host(mid) < offset {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (doc.map.to_host(lo) == offset).then_some(lo)
}

/// The GraphQL name being typed before embedded offset `at` (start of the word).
pub fn word_start(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    super::context::word_start(&text[..at], |c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_start_after_multi_byte_characters() {
        for (text, want) in [("{ “na", "na"), ("é_x", "_x"), ("😀", ""), ("a—b", "b")] {
            for at in 0..=text.len() + 1 {
                let _ = word_start(text, at); // any offset, even inside a character
            }
            assert_eq!(&text[word_start(text, text.len())..], want);
        }
    }

    #[test]
    fn maps_host_offsets_into_a_fence() {
        let text = "# T\n\n```graphql\n{ device_list { na } }\n```\n";
        let at = text.find("na }").unwrap() + 2;
        let (doc, e) = locate(text, HostKind::Markdown, at).expect("inside the fence");
        assert!(doc.text[..e].ends_with("{ na"), "{:?}", &doc.text[..e]);
        assert_eq!(doc.map.to_host(e), at);
        assert!(locate(text, HostKind::Markdown, 1).is_none());
    }

    /// Hosts whose fences the line scan must read exactly as the full extraction does (or
    /// hand over to it): fences late in a long file, in list items and block quotes, nested in
    /// longer fences, in HTML comments and indented code, cut short by their container, ...
    fn hosts() -> Vec<(HostKind, String)> {
        let q = "query Q {\n  device_list(filters: {name: {exact: \"a\"}}) { id na }\n}\n";
        let mut long = String::from("---\nname: ops\n---\n# Ops\n\n");
        for i in 0..200 {
            long.push_str(&format!(
                "Step {i} `netbox_get_objects(\"dcim.device\", {{\"site\": \"x\"}})`.\n\n```python\nnetbox_get_objects(\"dcim.device\", filters={{\"role_id\": {i}}})\n```\n\n"
            ));
        }
        long.push_str(&format!("```graphql\n{q}```\n\nEnd.\n"));
        let md = |s: &str| (HostKind::Markdown, s.to_string());
        vec![
            (HostKind::Markdown, long),
            md(&format!(
                "- item\n- ```graphql\n  {}  ```\n- next\n",
                q.replace('\n', "\n  ")
            )),
            md(&format!(
                "- item\n- ```graphql\n  {}```\n- next\n",
                q.replace('\n', "\n  ")
            )),
            md(&format!(
                "> Quote\n>\n> ```graphql\n> {}```\n",
                q.replace('\n', "\n> ")
            )),
            md(&format!(
                "1. Step:\n\n   ```gql\n   {}```\n",
                q.replace('\n', "\n   ")
            )),
            md(&format!(
                "1. Step:\n\n   ```gql\n   {}   ```\n",
                q.replace('\n', "\n   ")
            )),
            md(&format!(
                "- Step:\n   ```graphql\n   {}   ```\n",
                q.replace('\n', "\n   ")
            )),
            md(&format!(
                "> Quote\n>\n> ```graphql\n> {}> ```\n",
                q.replace('\n', "\n> ")
            )),
            md(&format!(
                "> ```graphql\n> {}\n> ```\n",
                q.replace('\n', "\n>\n> ")
            )),
            md(&format!(
                "- a\n  - b\n\n    ```graphql\n    {}    ```\n",
                q.replace('\n', "\n    ")
            )),
            md(&format!("> ```graphql\n{q}> ```\n")),
            md(&format!("- ```graphql\n{q}```\n")),
            md(&format!(
                "````markdown\n```graphql\n{q}```\n````\n\n```graphql\n{q}```\n"
            )),
            md(&format!(
                "<!--\n```graphql\n{q}```\n-->\n\n```graphql\n{q}```\n"
            )),
            md(&format!("<details>\n```graphql\n{q}```\n</details>\n")),
            md(&format!("Text\n\n    ```graphql\n    {q}\n    ```\n")),
            md(&format!("~~~graphql\n{q}~~~\n```graphql\n{q}")),
            md(&format!("```graphql\r\n{}```\r\n", q.replace('\n', "\r\n"))),
            md(&format!("``` graphql ```\n{q}```\n")),
            md("```python\nnetbox_graphql(query=\"{ device_list { id na } }\")\n```\n"),
            md("Call `gql(\"{ device_list { id na } }\")` inline.\n"),
            md(&format!("\u{feff}```graphql\n{q}```\n")),
            md(&format!("Intro\n```graphql\n{q}```\nafter ``` text\n")),
            (HostKind::Graphql, q.to_string()),
            (HostKind::Python, format!("gql(\"\"\"{q}\"\"\")\n")),
            (
                HostKind::Yaml,
                format!("query: |\n  {}\n", q.replace('\n', "\n  ")),
            ),
            (HostKind::Json, "{\"site\": \"a\"}\n".to_string()),
            (
                HostKind::Text,
                format!("GET /api/dcim/devices/?name=a\n{q}"),
            ),
        ]
    }

    #[test]
    fn fast_paths_agree_with_full_extraction_at_every_offset() {
        let mut with_docs = 0;
        for (kind, text) in hosts() {
            let snap = Snapshot::new(text.clone(), 1);
            let docs = graphql_docs(&text, kind);
            let mut found = 0;
            // Every offset of the short hosts; of the long one, a sample and its last fence.
            let tail = text.len().saturating_sub(300);
            let offsets = (0..=text.len() + 1)
                .filter(|&o| o > text.len() || text.is_char_boundary(o))
                .filter(|&o| text.len() < 2000 || o >= tail || o % 97 == 0);
            for offset in offsets {
                let full = find(docs.iter().cloned(), offset);
                assert_eq!(
                    locate(&text, kind, offset),
                    full,
                    "{kind:?} at {offset} in {text:?}"
                );
                assert_eq!(locate_in(&snap, kind, offset), full, "{kind:?} at {offset}");
                found += usize::from(full.is_some());
            }
            with_docs += usize::from(found > 0);
        }
        // The comparison must not be vacuous: most hosts hold a document.
        assert!(with_docs >= 15, "{with_docs}");
    }
}
