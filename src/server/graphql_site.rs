//! Finds the GraphQL document (a fence, a `.graphql` file, a `query` string) under a host offset,
//! so completion and hover can hand GraphQL positions to the `graphql` module.

use super::position::Snapshot;
use crate::extract::{self, markdown, GraphqlDoc, HostKind, Site};

/// The GraphQL document containing host byte `offset`, and the offset inside its text.
///
/// Cheap on big hosts: a `.graphql` host is its own document; in Markdown only the fence under
/// the cursor is extracted (found by a line scan, see [`scan_fences`]), falling back to the
/// whole host when the scan is unsure; Python / YAML / JSON are extracted only when the text
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
    match fast(&snap.text, kind, offset) {
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
            Site::Rest(_) => None,
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
        HostKind::Markdown => markdown_fast(text, offset),
        // Plain text yields REST URLs only (extract::text).
        HostKind::Text => Fast::Found(None),
        // A GraphQL document there comes from a `query` argument / key, a `gql(...)` call or a
        // GraphQL tool name (see extract::tools): none of them without these words.
        HostKind::Python | HostKind::Yaml | HostKind::Json => {
            let lower = text.to_ascii_lowercase();
            if ["query", "graphql", "gql"]
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

/// Markdown: extracts only the fence around `offset`. Outside every fence, only an inline code
/// span (one line) can hold a document, so a cursor line without a backtick has none.
fn markdown_fast(text: &str, offset: usize) -> Fast {
    if text.len() > markdown::MAX_MARKDOWN || offset > text.len() {
        return Fast::Unsure;
    }
    match scan_fences(text, offset) {
        Scan::Unsure => Fast::Unsure,
        Scan::Fence(range) => {
            let Some(slice) = text.get(range.clone()) else {
                return Fast::Unsure;
            };
            let docs = graphql_docs(slice, HostKind::Markdown)
                .into_iter()
                .map(|doc| GraphqlDoc {
                    map: doc.map.shifted(range.start),
                    ..doc
                });
            Fast::Found(find(docs, offset))
        }
        Scan::Outside(line) => {
            if text[line].contains('`') {
                Fast::Unsure
            } else {
                Fast::Found(None)
            }
        }
    }
}

/// Where a line scan puts a host offset.
#[derive(Debug, PartialEq)]
enum Scan {
    /// In the fenced block spanning these host bytes (opening line start to closing line end).
    Fence(std::ops::Range<usize>),
    /// Outside every fence, on the line spanning these bytes.
    Outside(std::ops::Range<usize>),
    /// Something the scan does not model (deep indentation, tabs, HTML blocks, front matter,
    /// a fence cut short by its container) comes first.
    Unsure,
}

/// A line that opens or could close a fence: `prefix` bytes of container prefixes (`>`, list
/// markers, spaces) before `count` (≥ 3) `ch` characters (the info string is not read: any
/// fence can hold a GraphQL document, e.g. a Python `query=` string).
struct FenceLine {
    prefix: usize,
    ch: u8,
    count: usize,
}

/// Reads `line` as a fence line. `Err(())` when its prefix is beyond this scan (a run of 4+
/// spaces — maybe indented code, maybe a nested list — or a tab).
fn fence_line(line: &str) -> Result<Option<FenceLine>, ()> {
    let b = line.as_bytes();
    let mut i = 0;
    // Spaces allowed here: after a list marker (the item's content indent), one after `>`.
    // Other indentation belongs to a container opened on an earlier line, whose prefix a slice
    // from this line would not strip: beyond this scan.
    let mut allowed = 0;
    loop {
        let spaces = b[i..].iter().take_while(|&&c| c == b' ').count();
        if spaces >= 4 || spaces > allowed {
            return if spaces > 0 && looks_like_fence(&line[i + spaces..]) {
                Err(())
            } else {
                Ok(None)
            };
        }
        i += spaces;
        match b.get(i) {
            Some(b'\t') => return Err(()),
            Some(b'>') => {
                i += 1;
                allowed = 1;
            }
            Some(b'-' | b'*' | b'+') if matches!(b.get(i + 1), Some(b' ')) => {
                i += 1;
                allowed = 3;
            }
            Some(c) if c.is_ascii_digit() => {
                let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits <= 9
                    && matches!(b.get(i + digits), Some(b'.' | b')'))
                    && matches!(b.get(i + digits + 1), Some(b' '))
                {
                    i += digits + 1;
                    allowed = 3;
                } else {
                    return Ok(None);
                }
            }
            _ => break,
        }
        if i >= b.len() {
            return Ok(None);
        }
    }
    let ch = match b.get(i) {
        Some(&c @ (b'`' | b'~')) => c,
        _ => return Ok(None),
    };
    let count = b[i..].iter().take_while(|&&c| c == ch).count();
    if count < 3 {
        return Ok(None);
    }
    // A backtick in a backtick fence's info string makes the line a code span instead.
    if ch == b'`' && line[i + count..].contains('`') {
        return Ok(None);
    }
    Ok(Some(FenceLine {
        prefix: i,
        ch,
        count,
    }))
}

/// Whether `s` (after some indentation) starts like a fence line, whatever its prefix.
fn looks_like_fence(s: &str) -> bool {
    s.contains("```") || s.contains("~~~")
}

/// The fence being scanned: where it opens, the prefix every line of it must carry, its fence.
struct Open {
    start: usize,
    cont: String,
    ch: u8,
    count: usize,
}

/// Scans the lines of Markdown `text` from the top, tracking fenced blocks (CommonMark rules,
/// conservatively: whatever is not modelled makes the scan [`Scan::Unsure`]).
fn scan_fences(text: &str, offset: usize) -> Scan {
    let mut open: Option<Open> = None;
    // An HTML block swallows fence lines: until a blank line (`<div>`...), or for good as far
    // as this scan goes (`<!--`, `<pre>`, ...); front matter likewise until its end.
    let mut html_para = false;
    let mut html_sticky = false;
    let mut front = text.starts_with("---\n") || text.starts_with("---\r\n");
    let mut start = 0;
    let mut first = true;
    while start <= text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let next = (end + 1).min(text.len() + 1);
        let line = text[start..end].trim_end_matches('\r');
        let here = offset >= start && offset <= end;
        if let Some(o) = &open {
            // Inside a fence: the line must carry the container prefix, else its container
            // (and the fence) may have ended.
            let rest = if let Some(r) = line.strip_prefix(o.cont.as_str()) {
                r
            } else if (line.trim().is_empty() && !o.cont.contains('>')) || line == o.cont.trim_end()
            {
                ""
            } else {
                return Scan::Unsure;
            };
            let ind = rest.bytes().take_while(|&c| c == b' ').count();
            let run = rest[ind..].bytes().take_while(|&c| c == o.ch).count();
            let closes = ind < 4 && run >= o.count && rest[ind + run..].trim().is_empty();
            if closes || end == text.len() {
                let o_start = o.start;
                open = None;
                if offset <= end && offset >= o_start {
                    return Scan::Fence(o_start..next.min(text.len()));
                }
            }
        } else {
            let blank = line.trim().is_empty();
            if front {
                if !first && (line == "---" || line == "...") {
                    front = false;
                }
                if !matches!(fence_line(line), Ok(None)) {
                    return Scan::Unsure;
                }
            } else {
                match fence_line(line) {
                    Err(()) => return Scan::Unsure,
                    Ok(Some(_)) if html_para || html_sticky => return Scan::Unsure,
                    Ok(Some(f)) => {
                        let cont: String = line[..f.prefix]
                            .bytes()
                            .map(|c| if c == b'>' { '>' } else { ' ' })
                            .collect();
                        open = Some(Open {
                            start,
                            cont,
                            ch: f.ch,
                            count: f.count,
                        });
                        if end == text.len() && offset >= start {
                            return Scan::Fence(start..text.len());
                        }
                    }
                    Ok(None) => {
                        let t = line.trim_start_matches([' ', '>']).to_ascii_lowercase();
                        if t.starts_with('<') {
                            html_para = true;
                            html_sticky |= ["<!", "<?", "<pre", "<script", "<style", "<textarea"]
                                .iter()
                                .any(|p| t.starts_with(p));
                        } else if blank {
                            html_para = false;
                        }
                        if here {
                            return Scan::Outside(start..end);
                        }
                    }
                }
            }
            if here && open.is_none() {
                return Scan::Outside(start..end);
            }
        }
        first = false;
        start = next;
    }
    Scan::Outside(text.len()..text.len())
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

    #[test]
    fn the_scan_reads_plain_fences_itself() {
        let text = "# T\n\n```graphql\n{ a }\n```\n\nProse\n";
        let at = text.find("a }").unwrap();
        assert_eq!(scan_fences(text, at), Scan::Fence(5..26));
        assert!(matches!(
            scan_fences(text, text.len() - 2),
            Scan::Outside(_)
        ));
        let quoted = "> ```graphql\n> { a }\n> ```\n";
        assert_eq!(scan_fences(quoted, 16), Scan::Fence(0..quoted.len()));
        // Indented code or a fence left by its block quote: the full extraction decides.
        assert_eq!(scan_fences("    ```graphql\n    { a }\n", 20), Scan::Unsure);
        assert_eq!(scan_fences("> ```graphql\n{ a }\n", 15), Scan::Unsure);
    }
}
