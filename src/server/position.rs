//! The one place where LSP positions meet byte offsets. The negotiated `positionEncoding`
//! (UTF-16 by default, UTF-8 when the client offers it) decides how columns are counted.

use crate::extract::markdown::Unit;
use crate::extract::unit::{self, CodeUnit};
use crate::extract::{GraphqlDoc, HostKind};
use crate::lines::{ColumnUnit, LineCol, LineIndex};
use ropey::Rope;
use std::ops::Range;
use std::sync::OnceLock;
use tower_lsp_server::ls_types::{
    InitializeParams, Position, PositionEncodingKind, Range as LspRange,
};

/// How the client counts columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    #[default]
    Utf16,
    Utf8,
}

impl Encoding {
    /// UTF-8 when the client lists it among `general.positionEncodings`, else UTF-16 (which
    /// every client must support).
    pub fn negotiate(params: &InitializeParams) -> Encoding {
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        match offered {
            Some(list) if list.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    /// The LSP name, for the `initialize` result.
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf8 => PositionEncodingKind::UTF8,
        }
    }

    fn unit(self) -> ColumnUnit {
        match self {
            Encoding::Utf16 => ColumnUnit::Utf16,
            Encoding::Utf8 => ColumnUnit::Utf8,
        }
    }
}

/// A document's text at one version with its line index: converts both ways.
#[derive(Debug)]
pub struct Snapshot {
    pub text: String,
    pub lines: LineIndex,
    pub version: i32,
    /// The GraphQL documents of a full extraction, for the host kind they were computed for;
    /// filled on first need by `graphql_site::locate_in` (most requests never need it).
    pub graphql_docs: OnceLock<(HostKind, Vec<GraphqlDoc>)>,
    /// The code blocks and spans of the text read as Markdown ([`crate::extract::markdown::units`]),
    /// filled by the first request that needs the unit under a cursor of a Markdown document
    /// ([`Snapshot::unit_at`]), so completion, hover and code actions on one version read the
    /// document once (one pulldown-cmark pass: about 8 M instructions for a 5,000-line skill).
    markdown_units: OnceLock<Vec<Unit>>,
}

impl Snapshot {
    /// Indexes `text` at `version`.
    pub fn new(text: String, version: i32) -> Snapshot {
        let lines = LineIndex::new(&text);
        Snapshot {
            text,
            lines,
            version,
            graphql_docs: OnceLock::new(),
            markdown_units: OnceLock::new(),
        }
    }

    /// The unit of the text (a host document of `kind`) that holds byte `offset`: exactly
    /// [`unit::at`], with a Markdown document's units read once per snapshot.
    pub fn unit_at(&self, kind: HostKind, offset: usize) -> Option<CodeUnit<'_>> {
        match kind {
            HostKind::Markdown => {
                let units = self
                    .markdown_units
                    .get_or_init(|| crate::extract::markdown::units(&self.text));
                unit::markdown_at(&self.text, units, offset)
            }
            _ => unit::at(&self.text, kind, offset),
        }
    }

    /// Byte offset → LSP position.
    pub fn position(&self, offset: usize, enc: Encoding) -> Position {
        let lc = self.lines.position(&self.text, offset, enc.unit());
        Position::new(lc.line, lc.col)
    }

    /// Byte range → LSP range.
    pub fn range(&self, r: &Range<usize>, enc: Encoding) -> LspRange {
        LspRange::new(self.position(r.start, enc), self.position(r.end, enc))
    }

    /// LSP position → byte offset (clamped to the line / text).
    pub fn offset(&self, p: Position, enc: Encoding) -> usize {
        self.lines.offset(
            &self.text,
            LineCol {
                line: p.line,
                col: p.character,
            },
            enc.unit(),
        )
    }

    /// LSP range → byte range (start ≤ end).
    pub fn byte_range(&self, r: LspRange, enc: Encoding) -> Range<usize> {
        let start = self.offset(r.start, enc);
        let end = self.offset(r.end, enc).max(start);
        start..end
    }
}

/// LSP position → char index in a rope, for applying incremental changes. Lines end at `\r\n`,
/// `\n` or a bare `\r` (ropey is built with `cr_lines`, matching [`LineIndex`]). A column past the
/// end of its line clamps to the line end; a line past the end gives the rope's end.
pub fn rope_char(rope: &Rope, p: Position, enc: Encoding) -> usize {
    let line = p.line as usize;
    if line >= rope.len_lines() {
        return rope.len_chars();
    }
    let start = rope.line_to_char(line);
    let mut counted = 0usize;
    let mut idx = start;
    for ch in rope.line(line).chars() {
        if counted >= p.character as usize || ch == '\n' || ch == '\r' {
            break;
        }
        counted += match enc {
            Encoding::Utf16 => ch.len_utf16(),
            Encoding::Utf8 => ch.len_utf8(),
        };
        idx += 1;
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_both_encodings() {
        let text = "é😀x\r\nab\n".to_string();
        let snap = Snapshot::new(text.clone(), 1);
        let x = text.find('x').unwrap();
        assert_eq!(snap.position(x, Encoding::Utf16), Position::new(0, 3));
        assert_eq!(snap.position(x, Encoding::Utf8), Position::new(0, 6));
        assert_eq!(snap.offset(Position::new(0, 3), Encoding::Utf16), x);
        let rope = Rope::from_str(&text);
        assert_eq!(rope_char(&rope, Position::new(0, 3), Encoding::Utf16), 2);
        assert_eq!(rope_char(&rope, Position::new(0, 6), Encoding::Utf8), 2);
        // Past the end of line 1 clamps before its newline; past the last line → end.
        assert_eq!(rope_char(&rope, Position::new(1, 99), Encoding::Utf16), 7);
        assert_eq!(rope_char(&rope, Position::new(9, 0), Encoding::Utf16), 8);
    }
}
