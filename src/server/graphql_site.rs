//! Finds the GraphQL document (a fence, a `.graphql` file, a `query` string) under a host offset,
//! so completion and hover can hand GraphQL positions to the `graphql` module.

use crate::extract::{self, GraphqlDoc, HostKind, Site};

/// The GraphQL document containing host byte `offset`, and the offset inside its text.
pub fn locate(text: &str, kind: HostKind, offset: usize) -> Option<(GraphqlDoc, usize)> {
    extract::extract(text, kind)
        .sites
        .into_iter()
        .find_map(|site| match site {
            Site::Graphql(doc) => embedded_offset(&doc, offset).map(|e| (doc, e)),
            Site::Rest(_) => None,
        })
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
    let at = at.min(text.len());
    text[..at]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_host_offsets_into_a_fence() {
        let text = "# T\n\n```graphql\n{ device_list { na } }\n```\n";
        let at = text.find("na }").unwrap() + 2;
        let (doc, e) = locate(text, HostKind::Markdown, at).expect("inside the fence");
        assert!(doc.text[..e].ends_with("{ na"), "{:?}", &doc.text[..e]);
        assert_eq!(doc.map.to_host(e), at);
        assert!(locate(text, HostKind::Markdown, 1).is_none());
    }
}
