//! The unit of a host document at an offset: the one reading of which piece of a document a
//! cursor is in and in which language that piece is read, for the server's completion, hover
//! and GraphQL location. A Markdown host's unit is the code block or code span holding the
//! offset, read in its language as the checker reads it ([`markdown::units`], [`Code::of`]),
//! or the prose around it; a notebook's is the unit of the cell holding the offset, read as the
//! cell's language; any other host is its own unit. So every unit that is checked is read in
//! the same language when completed and hovered.

use std::borrow::Cow;

use super::markdown::{self, Code, Unit};
use super::{notebook, python, HostKind, OffsetMap, Site};

/// How a unit's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Code in this language: a Markdown code block or span, or a whole Python, JSON, YAML or
    /// GraphQL document.
    Code(Code),
    /// A text host (prose, prompt templates, shell scripts): REST URLs, curl `-G` commands and
    /// Ansible `nb_lookup` calls are checked there.
    Text,
    /// Markdown outside its code blocks and spans: REST URLs and filter snippets are checked
    /// there.
    Prose,
}

/// Which piece of the host a unit is, for its sites.
#[derive(Debug, Clone)]
enum Piece {
    /// The whole document of this kind (or notebook cell).
    Whole(HostKind),
    /// A Markdown code block or span.
    Markdown(Unit),
    /// The prose of a Markdown document (or cell).
    Prose,
}

/// The unit of a host document that holds an offset.
#[derive(Debug, Clone)]
pub struct CodeUnit<'a> {
    /// How the text is read.
    pub reading: Reading,
    /// The unit's text as its language reads it (container prefixes and fence lines removed);
    /// for a whole document or Markdown prose, the host text itself.
    pub text: Cow<'a, str>,
    /// Maps byte offsets in `text` to host byte offsets.
    pub map: OffsetMap,
    /// The offset in `text` (bytes).
    pub offset: usize,
    /// Where the unit starts in `text` (bytes): 0, or in Markdown prose the end of the last
    /// code block or span before the offset.
    pub start: usize,
    /// True when the text is held in a JSON string of the host (a notebook cell): an insertion
    /// with quotes would need escaping there.
    pub in_json_string: bool,
    piece: Piece,
    /// The notebook cell's map into the notebook, when the unit is in a cell (its sites are
    /// found in cell offsets and mapped through it).
    cell: Option<OffsetMap>,
}

/// The unit of `text` (a host document of `kind`) that holds host byte `offset`; `None` past
/// the end, between a notebook's cells, or where a code block holds no code (its fence lines,
/// a removed container prefix).
pub fn at(text: &str, kind: HostKind, offset: usize) -> Option<CodeUnit<'_>> {
    if offset > text.len() {
        return None;
    }
    let whole = |reading| CodeUnit {
        reading,
        text: Cow::Borrowed(text),
        map: OffsetMap::identity(0, text.len()),
        offset,
        start: 0,
        in_json_string: false,
        piece: Piece::Whole(kind),
        cell: None,
    };
    Some(match kind {
        HostKind::Python => whole(Reading::Code(Code::Python)),
        HostKind::Json => whole(Reading::Code(Code::Json)),
        HostKind::Yaml => whole(Reading::Code(Code::Yaml)),
        HostKind::Graphql => whole(Reading::Code(Code::Graphql)),
        HostKind::Text => whole(Reading::Text),
        HostKind::Markdown => return markdown_at(text, &markdown::units(text), offset),
        HostKind::Notebook => {
            let (cell, cell_map, cell_kind) = notebook::cell_at(text, offset)?;
            let inner = at(&cell, cell_kind, cell_map.to_embedded(offset)?)?;
            CodeUnit {
                reading: inner.reading,
                text: Cow::Owned(inner.text.into_owned()),
                map: inner.map.then(&cell_map),
                offset: inner.offset,
                start: inner.start,
                in_json_string: true,
                piece: inner.piece,
                cell: Some(cell_map),
            }
        }
    })
}

/// [`at`] for a Markdown host `text` whose units the caller has read already
/// (`units`: [`markdown::units`] of `text`, in document order), so a caller that keeps them per
/// version (the server) reads the document once: the same answer, with no pulldown-cmark pass.
/// Linear in the number of units; clones the body of the unit found.
pub fn markdown_at<'a>(text: &'a str, units: &[Unit], offset: usize) -> Option<CodeUnit<'a>> {
    if offset > text.len() {
        return None;
    }
    // The units holding the offset (a boundary can touch two), and the end of the last one
    // before it (where the prose around the offset starts).
    let mut prose_start = 0;
    let mut holding = Vec::new();
    for u in units {
        if u.range.start > offset {
            break;
        }
        if offset <= u.range.end {
            holding.push(u);
        } else {
            prose_start = u.range.end;
        }
    }
    if holding.is_empty() {
        return Some(CodeUnit {
            reading: Reading::Prose,
            text: Cow::Borrowed(text),
            map: OffsetMap::identity(0, text.len()),
            offset,
            start: prose_start,
            in_json_string: false,
            piece: Piece::Prose,
            cell: None,
        });
    }
    let (unit, at) = holding
        .into_iter()
        .find_map(|u| u.map.to_embedded(offset).map(|e| (u, e)))?;
    Some(CodeUnit {
        reading: Reading::Code(Code::of(unit)),
        text: Cow::Owned(unit.body.clone()),
        map: unit.map.clone(),
        offset: at,
        start: 0,
        in_json_string: false,
        piece: Piece::Markdown(unit.clone()),
        cell: None,
    })
}

impl CodeUnit<'_> {
    /// The sites the checker finds in the unit (host ranges): a Markdown unit's (with the REST
    /// URLs of its code), the prose's (the whole Markdown document's), a whole document's.
    pub fn sites(&self) -> Vec<Site> {
        let text = self.text.as_ref();
        let found = match (&self.piece, &self.cell) {
            // A code cell: read in place, as `notebook::extract` reads it.
            (Piece::Whole(HostKind::Python), Some(cell)) => return python::extract(text, cell),
            (Piece::Whole(kind), _) => super::extract(text, *kind).sites,
            (Piece::Markdown(unit), _) => markdown::unit_sites_with_urls(unit),
            (Piece::Prose, _) => markdown::extract(text).sites,
        };
        match &self.cell {
            Some(cell) => found
                .into_iter()
                .map(|s| notebook::remap(s, cell))
                .collect(),
            None => found,
        }
    }
}
