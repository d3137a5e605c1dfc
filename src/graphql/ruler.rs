//! apollo-compiler [`SourceSpan`]s at any byte offset, for an AST built from another parser's
//! output ([`super::cynic_ast`]).
//!
//! apollo-compiler 1.33 has no public constructor for a `SourceSpan`: a span comes only from its
//! own parse, or from [`SourceSpan::recompose`] of two spans of one file (the start of one, the
//! end of the other). A ruler is the parse, once per process, of a field with directives `a` one
//! after the other (`{a@a@a…}`): a directive starts at every `@`, its name at every `a`, so a
//! span starts at every offset, and one ends after every `a`, at every other offset. Three
//! rulers (`{a@a…}`, `{aa@a…}`, `{ a@a…}`) give, for every start and end, one file with both.
//! The spans carry the ruler's file ids; every reader in this crate reads only their offsets
//! ([`super::rules::span`]). apollo-compiler's validation reads the ids twice: it sorts its
//! diagnostics by file, then offset, and joins a node's span with its name's only within one
//! file; `graphql::check` answers from it only where neither can differ from its own parse.

use apollo_compiler::ast::{Definition, Selection};
use apollo_compiler::parser::{FileId, Parser, SourceSpan};
use std::ops::Range;
use std::sync::OnceLock;

/// One ruler file's spans starting (`.0[o]`) and ending (`.1[o]`) at offset `o`.
type File = (Vec<Option<SourceSpan>>, Vec<Option<SourceSpan>>);

/// Spans starting and ending at each byte offset, each from one of three ruler files.
pub struct Ruler {
    files: [File; 3],
    /// The three files' ids.
    ids: [FileId; 3],
    /// Per offset, bit `i` set when file `i` has a span starting (`.0`) or ending (`.1`) there:
    /// the first file with both is found without reading the files' spans.
    marks: (Vec<u8>, Vec<u8>),
}

/// The rulers' lengths (bytes): each is built the first time a text needs it, at about 4.8 k
/// instructions and 96 bytes kept per byte of ruler (1 KiB: 4.9 M instructions, 96 KiB).
const SIZES: [usize; 3] = [1 << 10, 4 << 10, 16 << 10];
/// Longest text any ruler covers (bytes); a longer document is parsed by apollo-parser.
pub const MAX_TEXT: usize = SIZES[2];

/// The rulers of [`SIZES`], each built on first use.
static RULERS: [OnceLock<Option<Ruler>>; 3] = [const { OnceLock::new() }; 3];

/// The smallest ruler for a text of `len` bytes, built on first use; `None` beyond [`MAX_TEXT`].
pub fn for_len(len: usize) -> Option<&'static Ruler> {
    let i = SIZES.iter().position(|&s| len <= s)?;
    RULERS[i].get_or_init(|| Ruler::build(SIZES[i])).as_ref()
}

/// Whether `id` is the file of a ruler built so far: a span of a converted document (never the
/// schema's file, nor a document apollo-compiler parsed).
pub fn owns(id: FileId) -> bool {
    RULERS
        .iter()
        .filter_map(|r| r.get()?.as_ref())
        .any(|r| r.ids.contains(&id))
}

impl Ruler {
    /// Parses the three rulers covering offsets `0..=len`; `None` if apollo-compiler's parse
    /// does not give the spans (never with 1.33).
    fn build(len: usize) -> Option<Ruler> {
        let one = |lead: &str| -> Option<File> {
            let mut starts = vec![None; len + 3];
            let mut ends = vec![None; len + 3];
            let mut text = String::with_capacity(len + 8);
            text.push_str(lead);
            while text.len() <= len + 2 {
                text.push_str("@a");
            }
            text.push('}');
            let doc = Parser::new().parse_ast(&text, "ruler.graphql").ok()?;
            let Some(Definition::OperationDefinition(op)) = doc.definitions.first() else {
                return None;
            };
            let Some(Selection::Field(f)) = op.selection_set.first() else {
                return None;
            };
            let mut put = |s: Option<SourceSpan>| {
                if let Some(s) = s {
                    if let Some(slot) = starts.get_mut(s.offset()) {
                        slot.get_or_insert(s);
                    }
                    if let Some(slot) = ends.get_mut(s.end_offset()) {
                        slot.get_or_insert(s);
                    }
                }
            };
            put(op.location());
            put(f.location());
            put(f.name.location());
            for d in f.directives.iter() {
                put(d.location());
                put(d.name.location());
            }
            Some((starts, ends))
        };
        let files = [one("{a")?, one("{aa")?, one("{ a")?];
        let id = |f: &File| f.0.iter().flatten().next().map(SourceSpan::file_id);
        let ids = [id(&files[0])?, id(&files[1])?, id(&files[2])?];
        let mark = |side: fn(&File) -> &Vec<Option<SourceSpan>>| -> Vec<u8> {
            (0..len + 3)
                .map(|o| {
                    (0..3)
                        .filter(|&i| side(&files[i])[o].is_some())
                        .fold(0, |m, i| m | 1 << i)
                })
                .collect()
        };
        let marks = (mark(|f| &f.0), mark(|f| &f.1));
        Some(Ruler { files, ids, marks })
    }

    /// The span of bytes `r` (start < end); `None` where no ruler file has both ends (offsets
    /// beyond the ruler, a node ending at offset 1).
    pub fn span(&self, r: Range<usize>) -> Option<SourceSpan> {
        if r.start >= r.end {
            return None;
        }
        // The first file with a span at both ends (as a search of the files in order finds).
        let both = self.marks.0.get(r.start)? & self.marks.1.get(r.end)?;
        let (starts, ends) = self.files.get(both.trailing_zeros() as usize)?;
        SourceSpan::recompose(*starts.get(r.start)?, *ends.get(r.end)?)
    }
}
