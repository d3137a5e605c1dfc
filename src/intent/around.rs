//! The text around a piece of a Markdown (or plain text) host that the site filters may read:
//! the headings it stands under, the sentence above its block, list or table, the sentence it
//! stands in, its table column and row. The filters read nothing else outside the code, so an
//! [`Around`] (taken relative to its piece) keys the analysis's block cache: a block whose code
//! and surroundings did not change gets the same reading.

use super::cues::normalise;
use crate::extract::markdown as md;
use crate::extract::OffsetMap;
use std::ops::Range;
use std::sync::Arc;

/// A piece of text around a site: its host byte offset, its text as written (`raw`) and
/// [`normalise`]d (`text`: code spans blanked, same length), so that a cue's range in either is
/// also a range in the host from `at`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Host byte offset of the text's first byte.
    pub at: usize,
    /// The text with its inline code blanked: what the cue readers read.
    pub text: String,
    /// The text as written (the Django reading looks into code spans: `.objects.`, `Q(`).
    pub raw: String,
    /// For a piece of a text read in place of its host (a notebook's cells as one Markdown
    /// document): the map from that text's offsets (`at` is one) to the host's. `None` when
    /// `at` is a host offset.
    pub to_host: Option<Arc<OffsetMap>>,
}

impl Piece {
    /// Host range of `r`, a byte range in [`Piece::text`].
    pub fn host(&self, r: &Range<usize>) -> Range<usize> {
        let r = self.at + r.start..self.at + r.end;
        match &self.to_host {
            Some(map) => map.range_to_host(r),
            None => r,
        }
    }

    /// Host range of the whole piece.
    pub fn host_range(&self) -> Range<usize> {
        self.host(&(0..self.text.len()))
    }
}

/// What stands around one piece of a host (a code block, a code span, a URL in prose). Every
/// field is empty for hosts that are code (Python, YAML, JSON files).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Around {
    /// The headings the piece stands under, outermost first (their text, without `#`s).
    pub headings: Vec<Piece>,
    /// The last sentence above the block, list or table the piece is in (`**Wrong:**`,
    /// `Not like this:`, a heading right above a fence), when there is one.
    pub lead: Option<Piece>,
    /// The sentence (or table cell) text before and after an inline piece.
    pub before: Option<Piece>,
    pub after: Option<Piece>,
    /// For a piece in a table: its column's header, and the other cells of its row.
    pub column: Option<Piece>,
    pub row: Vec<Piece>,
}

impl Around {
    /// The same with every offset taken relative to `base` (wrapping, so a piece above `base`
    /// keeps its distance): equal for the same surroundings wherever the piece sits.
    pub fn relative_to(&self, base: usize) -> Around {
        let rel = |p: &Piece| Piece {
            at: p.at.wrapping_sub(base),
            text: p.text.clone(),
            raw: p.raw.clone(),
            to_host: p.to_host.clone(),
        };
        Around {
            headings: self.headings.iter().map(rel).collect(),
            lead: self.lead.as_ref().map(rel),
            before: self.before.as_ref().map(rel),
            after: self.after.as_ref().map(rel),
            column: self.column.as_ref().map(rel),
            row: self.row.iter().map(rel).collect(),
        }
    }

    /// The nearest heading the piece stands under.
    pub fn section(&self) -> Option<&Piece> {
        self.headings.last()
    }

    /// The same around a piece of a text read in place of its host, whose offsets `to_host`
    /// maps to the host's: every piece's [`Piece::host`] range is then a host range.
    pub fn mapped(mut self, to_host: &Arc<OffsetMap>) -> Around {
        let pieces = self.headings.iter_mut().chain(self.row.iter_mut()).chain(
            [
                &mut self.lead,
                &mut self.before,
                &mut self.after,
                &mut self.column,
            ]
            .into_iter()
            .flatten(),
        );
        for p in pieces {
            p.to_host = Some(to_host.clone());
        }
        self
    }
}

/// One heading of an [`Outline`].
#[derive(Debug, Clone)]
struct Heading {
    /// Host range of the heading's text (without `#`s or underline).
    text: Range<usize>,
    /// Host range of the whole heading (an underlined heading's two lines).
    whole: Range<usize>,
    /// Index of the heading it stands under.
    parent: Option<usize>,
}

/// What the one Markdown parse found that [`Around`] reads: the headings, tables and list items
/// of a Markdown host, outside its code blocks. A plain text host has only list items (see
/// [`Outline::text`]); a code host has nothing.
#[derive(Debug, Default, Clone)]
pub struct Outline {
    headings: Vec<Heading>,
    /// The tables, in document order ([`md::Table`]: host ranges of rows and cells).
    tables: Vec<md::Table>,
    /// The start of each line a list item starts on, sorted and distinct, with the start of
    /// the first line of its outermost list (whose lead the item reads).
    items: Vec<(usize, usize)>,
    /// Host ranges of the code blocks (fences and indented blocks), sorted.
    blocks: Vec<Range<usize>>,
    /// Offsets of the host's line starts, found on first use: every piece asks for its line,
    /// and a search from the piece is as long as the line (60,000 URLs on one 3.3 MB line
    /// took 88 s that way).
    lines: std::sync::OnceLock<Vec<usize>>,
}

/// Most bytes of a paragraph read on each side of a piece.
const MAX_SPAN: usize = 1000;
/// Most lines walked up to find a list item's line.
const MAX_WALK: usize = 200;

impl Outline {
    /// The outline of Markdown host `text` whose code blocks (fence lines included) are
    /// `blocks` and whose headings, tables and lists are `layout`, as the one Markdown parse
    /// found them ([`crate::extract::markdown::parse`]). The YAML front matter goes in
    /// `blocks`: it is neither a lead nor a paragraph.
    pub fn markdown(text: &str, blocks: &[Range<usize>], layout: &md::Layout) -> Outline {
        let mut blocks = blocks.to_vec();
        blocks.sort_by_key(|b| b.start);
        let mut out = Outline {
            blocks,
            tables: layout.tables.clone(),
            ..Outline::default()
        };
        let mut stack: Vec<(usize, u8)> = Vec::new();
        for h in &layout.headings {
            while stack.last().is_some_and(|&(_, level)| level >= h.level) {
                stack.pop();
            }
            out.headings.push(Heading {
                text: h.text.clone(),
                whole: h.range.clone(),
                parent: stack.last().map(|&(i, _)| i),
            });
            stack.push((out.headings.len() - 1, h.level));
        }
        let line_of = |at: usize| {
            let at = text.floor_char_boundary(at.min(text.len()));
            text[..at].rfind('\n').map_or(0, |i| i + 1)
        };
        for list in &layout.lists {
            let first = line_of(list.range.start);
            out.items
                .extend(list.items.iter().map(|i| (line_of(i.start), first)));
        }
        out.items.sort_unstable();
        out.items.dedup_by_key(|&mut (line, _)| line);
        out
    }

    /// The text of every heading, in document order.
    pub fn heading_texts<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        self.headings.iter().map(move |h| &text[h.text.clone()])
    }

    /// The outline of a host that is code (Python, YAML, JSON): nothing around its pieces.
    pub fn plain() -> Outline {
        Outline::default()
    }

    /// The outline of plain text host `text` (a prompt): only its list items, as CommonMark
    /// reads them ([`crate::extract::markdown::parse`]), so an item reads the sentence above
    /// its list; no headings, tables or blocks (a `#` line or an indented line is text there).
    pub fn text(text: &str) -> Outline {
        let layout = md::Layout {
            lists: md::parse(text).layout.lists,
            ..md::Layout::default()
        };
        Outline::markdown(text, &[], &layout)
    }

    /// The host's line starts (the same `text` on every call of one outline).
    fn starts(&self, text: &str) -> &[usize] {
        self.lines.get_or_init(|| {
            std::iter::once(0)
                .chain(
                    text.bytes()
                        .enumerate()
                        .filter(|&(_, b)| b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .collect()
        })
    }

    /// Start of the line holding byte `at`.
    fn line_start(&self, text: &str, at: usize) -> usize {
        let at = text.floor_char_boundary(at.min(text.len()));
        let starts = self.starts(text);
        starts[starts.partition_point(|&s| s <= at) - 1]
    }

    /// End of the line at `at` (before its `\n`, `\r` kept out).
    fn line_end(&self, text: &str, at: usize) -> usize {
        let at = text.floor_char_boundary(at.min(text.len()));
        let starts = self.starts(text);
        let end = starts
            .get(starts.partition_point(|&s| s <= at))
            .map_or(text.len(), |&next| next - 1);
        if end > at && text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        }
    }

    /// True when host offset `at` lies in a code block.
    fn in_block(&self, at: usize) -> bool {
        let i = self.blocks.partition_point(|b| b.start <= at);
        i > 0 && self.blocks[i - 1].end > at
    }

    /// The headings over host offset `at`, outermost first.
    fn headings(&self, text: &str, at: usize) -> Vec<Piece> {
        let i = self.headings.partition_point(|h| h.text.start < at);
        let mut chain = Vec::new();
        let mut cur = i.checked_sub(1);
        while let Some(h) = cur {
            let r = self.headings[h].text.clone();
            chain.push(piece_of(text, r));
            cur = self.headings[h].parent;
        }
        chain.reverse();
        chain
    }

    /// The [`Around`] of a code block at host range `block`.
    pub fn around_block(&self, text: &str, block: &Range<usize>) -> Around {
        Around {
            headings: self.headings(text, block.start),
            lead: self.lead(text, self.line_start(text, block.start)),
            ..Around::default()
        }
    }

    /// The [`Around`] of an inline piece (a code span, a URL, a filter snippet) at host range
    /// `piece`.
    pub fn around_inline(&self, text: &str, piece: &Range<usize>) -> Around {
        let start = text.floor_char_boundary(piece.start.min(text.len()));
        let end = text.floor_char_boundary(piece.end.clamp(start, text.len()));
        let mut around = Around {
            headings: self.headings(text, start),
            ..Around::default()
        };
        if let Some((table, row)) = self.row_at(start, end) {
            let Some(i) = row
                .cells
                .iter()
                .position(|c| c.start <= start && end <= c.end)
            else {
                return around;
            };
            let cell = &row.cells[i];
            let row_range = row.range.start..self.line_end(text, row.range.start);
            // Normalised as one line, so a piece inside a code span reads its span as code.
            let norm = normalise(&text[row_range.clone()]);
            around.before = Some(slice(text, &norm, row_range.start, cell.start..start));
            around.after = Some(slice(text, &norm, row_range.start, end..cell.end));
            around.column = table.head.get(i).map(|h| piece_of(text, h.clone()));
            around.row = row
                .cells
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, c)| piece_of(text, c.clone()))
                .collect();
            around.lead = self.lead(text, self.line_start(text, table.range.start));
            return around;
        }
        let (para, item) = self.paragraph(text, start);
        let norm = normalise(&text[para.clone()]);
        let sentence = sentence(&norm, para.start, start, end);
        around.before = Some(slice(text, &norm, para.start, sentence.start..start));
        around.after = Some(slice(text, &norm, para.start, end..sentence.end));
        if let Some(list) = item {
            around.lead = self.lead(text, list);
        }
        around
    }

    /// The paragraph (or list item) holding host offset `at`, and, for a list item, the start
    /// of its list's first line.
    fn paragraph(&self, text: &str, at: usize) -> (Range<usize>, Option<usize>) {
        let home = self.line_start(text, at);
        let item_line = |l: usize| self.list_of(l).is_some();
        // Up: to a blank line, a heading, a block, or (in a list) the item's own line.
        let mut start = home;
        let mut item = item_line(home).then_some(home);
        let mut walked = 0;
        while item.is_none() && start > 0 && home - start < MAX_SPAN && walked < MAX_WALK {
            let prev = self.line_start(text, start - 1);
            if self.stops(text, prev) {
                break;
            }
            start = prev;
            walked += 1;
            if item_line(prev) {
                item = Some(prev);
            }
        }
        let start = item.unwrap_or(start);
        // Down: to a blank line, a heading, a block or the next list item.
        let mut end = self.line_end(text, home);
        while end < text.len() && end - home < MAX_SPAN {
            let next = end + 1 + usize::from(text.as_bytes()[end] == b'\r');
            if next >= text.len() || self.stops(text, next) || item_line(next) {
                break;
            }
            end = self.line_end(text, next);
        }
        let list = item.and_then(|i| self.list_of(i));
        // One long line (a generated file) is read only near the piece.
        let start = text.floor_char_boundary(start.max(at.saturating_sub(MAX_SPAN)));
        let end = text.floor_char_boundary(end.min(at.saturating_add(MAX_SPAN)).max(start));
        (start..end, list)
    }

    /// True when the line starting at `line` ends a paragraph (blank, heading, code block).
    fn stops(&self, text: &str, line: usize) -> bool {
        let end = self.line_end(text, line);
        content(&text[line..end]).is_empty()
            || self.heading_on(line, end).is_some()
            || self.in_block(line)
    }

    /// The heading on the line `line..end` (host offsets), if any: a line of its own, the text
    /// or underline line of an underlined one, or a heading after a list or quote marker.
    fn heading_on(&self, line: usize, end: usize) -> Option<&Heading> {
        let i = self
            .headings
            .partition_point(|h| h.whole.start < end.max(line + 1));
        let h = &self.headings[i.checked_sub(1)?];
        (h.whole.end > line).then_some(h)
    }

    /// The body row of a table holding host range `start..end` and its table, when it is one
    /// (a piece in a header row is read as a sentence). A row longer than [`MAX_SPAN`] is read
    /// as one too: only the text near the piece is read then.
    fn row_at(&self, start: usize, end: usize) -> Option<(&md::Table, &md::Row)> {
        let t = self.tables.partition_point(|t| t.range.start <= start);
        let table = &self.tables[t.checked_sub(1)?];
        let r = table.rows.partition_point(|r| r.range.start <= start);
        let row = &table.rows[r.checked_sub(1)?];
        (end <= row.range.end && row.range.len() <= MAX_SPAN).then_some((table, row))
    }

    /// When a list item starts on the line starting at `line`: the start of the first line of
    /// its outermost list.
    fn list_of(&self, line: usize) -> Option<usize> {
        let i = self.items.binary_search_by_key(&line, |&(l, _)| l).ok()?;
        Some(self.items[i].1)
    }

    /// The last sentence above the line starting at `line` (over at most two blank lines): a
    /// heading's text, or the end of the paragraph there. `None` when a code block, or
    /// nothing, is right above.
    fn lead(&self, text: &str, line: usize) -> Option<Piece> {
        let mut end = line;
        for _ in 0..3 {
            if end == 0 {
                return None;
            }
            let start = self.line_start(text, end - 1);
            let l = &text[start..self.line_end(text, start)];
            if self.in_block(start) {
                return None;
            }
            if let Some(h) = self.heading_on(start, self.line_end(text, start)) {
                return Some(piece_of(text, h.text.clone()));
            }
            if !content(l).is_empty() {
                let para_end = self.line_end(text, start);
                let mut para_start =
                    text.floor_char_boundary(start.max(para_end.saturating_sub(MAX_SPAN)));
                while para_start > 0 && para_end - para_start < MAX_SPAN {
                    let prev = self.line_start(text, para_start - 1);
                    if self.stops(text, prev) {
                        break;
                    }
                    para_start = prev;
                }
                let norm = normalise(&text[para_start..para_end]);
                // The sentence the paragraph ends with: its own final `.` is no boundary.
                let cut = norm.floor_char_boundary(norm.trim_end().len().saturating_sub(1));
                let from = last_boundary(&norm[..cut]).unwrap_or(0);
                return Some(piece_of(text, para_start + from..para_end));
            }
            end = start;
        }
        None
    }
}

/// The sentence of a paragraph (`norm`, normalised, starting at host offset `base`) that holds
/// host range `start..end`: from the last sentence end before it to the first after it.
/// Sentence ends: `.`, `!`, `?` before a space (not in `e.g.`), `;`, `|` (a cell).
fn sentence(norm: &str, base: usize, start: usize, end: usize) -> Range<usize> {
    let s = norm.floor_char_boundary(start.saturating_sub(base).min(norm.len()));
    let e = norm.floor_char_boundary(end.saturating_sub(base).clamp(s, norm.len()));
    let mut from = last_boundary(&norm[..s]).unwrap_or(0);
    from += norm[from..s].len() - norm[from..s].trim_start().len();
    let to = first_boundary(&norm[e..]).map_or(norm.len(), |i| e + i);
    base + from..base + to
}

/// The piece at host range `r` of host `text`, whose stretch from host offset `base` is
/// normalised as `norm` (normalised as a whole: a piece inside a code span reads it as code).
fn slice(text: &str, norm: &str, base: usize, r: Range<usize>) -> Piece {
    let s = norm.floor_char_boundary(r.start.saturating_sub(base).min(norm.len()));
    let e = norm.floor_char_boundary(r.end.saturating_sub(base).clamp(s, norm.len()));
    Piece {
        at: base + s,
        text: norm[s..e].to_string(),
        raw: text[base + s..base + e].to_string(),
        to_host: None,
    }
}

/// Offset just after the last sentence end in `s` (normalised text).
fn last_boundary(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (0..b.len())
        .rev()
        .find_map(|i| ends_sentence(s, i).then_some(i + 1))
}

/// Offset of the first sentence end in `s` (normalised text).
fn first_boundary(s: &str) -> Option<usize> {
    (0..s.len()).find(|&i| ends_sentence(s, i))
}

/// True when byte `i` of `s` ends a sentence.
fn ends_sentence(s: &str, i: usize) -> bool {
    let b = s.as_bytes();
    match b[i] {
        b';' | b'|' => true,
        b'.' | b'!' | b'?' => {
            let spaced = b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace());
            let word = s[..i]
                .rsplit(|c: char| c.is_whitespace())
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            spaced && !matches!(word.as_str(), "e.g" | "i.e" | "etc" | "vs" | "cf")
        }
        _ => false,
    }
}

/// The piece of `text` at host range `r`.
fn piece_of(text: &str, r: Range<usize>) -> Piece {
    let start = text.floor_char_boundary(r.start.min(text.len()));
    let end = text.floor_char_boundary(r.end.clamp(start, text.len()));
    Piece {
        at: start,
        text: normalise(&text[start..end]),
        raw: text[start..end].to_string(),
        to_host: None,
    }
}

/// A line without its block-quote markers and indentation.
fn content(line: &str) -> &str {
    line.trim_start_matches(|c: char| c == '>' || c.is_whitespace())
        .trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> Range<usize> {
        let i = text.find(needle).unwrap();
        i..i + needle.len()
    }

    /// The outline of Markdown `text` with code blocks `blocks`, its layout from the parse.
    fn outline(text: &str, blocks: &[Range<usize>]) -> Outline {
        Outline::markdown(text, blocks, &md::parse(text).layout)
    }

    fn show(text: &str, p: &Option<Piece>) -> String {
        p.as_ref()
            .map(|p| text[p.at..p.at + p.text.len()].to_string())
            .unwrap_or_default()
    }

    #[test]
    fn tables_give_column_row_and_lead() {
        let text = "# Lookups\n\nThese do not exist:\n\n| Wrong | Right | Status |\n|---|---|---|\n| `a__in=1` | `a=1` | ❌ |\n";
        let o = outline(text, &[]);
        let a = o.around_inline(text, &at(text, "`a__in=1`"));
        assert_eq!(show(text, &a.column), "Wrong");
        assert_eq!(a.row.len(), 2);
        assert_eq!(show(text, &a.lead), "These do not exist:");
        assert_eq!(a.headings.len(), 1);
        let b = o.around_inline(text, &at(text, "`a=1`"));
        assert_eq!(show(text, &b.column), "Right");
    }

    #[test]
    fn sentences_lists_and_block_leads() {
        let text = "## Filters\n\nUse `role_id`. Never use `device_role_id` here; it fails.\n\nNever write these:\n- `x=1`\n- `y=2`\n\n**Wrong:**\n\n```python\nf()\n```\n";
        let fence = at(text, "```python\nf()\n```");
        let o = outline(text, std::slice::from_ref(&fence));
        let s = o.around_inline(text, &at(text, "`device_role_id`"));
        assert_eq!(show(text, &s.before), "Never use ");
        assert_eq!(show(text, &s.after), " here");
        let y = o.around_inline(text, &at(text, "`y=2`"));
        assert_eq!(show(text, &y.lead), "Never write these:");
        let f = o.around_block(text, &fence);
        assert_eq!(show(text, &f.lead), "**Wrong:**");
        assert_eq!(
            f.headings
                .iter()
                .map(|h| h.text.as_str())
                .collect::<Vec<_>>(),
            ["Filters"]
        );
        // A heading inside a fence is none.
        let text = "# A\n```\n# B\n```\n`x`\n";
        let fence = at(text, "```\n# B\n```");
        let o = outline(text, &[fence]);
        assert_eq!(o.around_inline(text, &at(text, "`x`")).headings.len(), 1);
    }

    #[test]
    fn relative_arounds_are_equal_wherever_they_sit() {
        let one = "Wrong:\n\n```\nf()\n```\n";
        let two = format!("Intro.\n\n{one}");
        let a = at(one, "```\nf()\n```");
        let b = at(&two, "```\nf()\n```");
        let x = outline(one, std::slice::from_ref(&a)).around_block(one, &a);
        let y = outline(&two, std::slice::from_ref(&b)).around_block(&two, &b);
        assert_eq!(x.relative_to(a.start), y.relative_to(b.start));
        assert_ne!(x, y);
    }

    #[test]
    fn underlined_headings_are_headings_and_a_thematic_break_is_none() {
        let text = "Devices\n=======\n\nNever use __in\n--------------\nNetBox has no such lookup.\n\n```\nf()\n```\n";
        let fence = at(text, "```\nf()\n```");
        let o = outline(text, std::slice::from_ref(&fence));
        let f = o.around_block(text, &fence);
        let names: Vec<&str> = f.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(names, ["Devices", "Never use __in"]);
        assert_eq!(show(text, &f.lead), "NetBox has no such lookup.");
        // Right under the underline, the heading is the lead.
        let text = "Wrong\n=====\n\n```\nf()\n```\n";
        let fence = at(text, "```\nf()\n```");
        let f = outline(text, std::slice::from_ref(&fence)).around_block(text, &fence);
        assert_eq!(show(text, &f.lead), "Wrong");
        // After a blank line `---` is a thematic break: no heading.
        let text = "Devices\n\nNever use __in\n\n--------------\n\nNetBox has no such lookup.\n\n```\nf()\n```\n";
        let fence = at(text, "```\nf()\n```");
        let f = outline(text, std::slice::from_ref(&fence)).around_block(text, &fence);
        assert!(f.headings.is_empty(), "{:?}", f.headings);
    }

    #[test]
    fn tables_and_lists_are_the_parse_s() {
        // A table in a block quote: its cells without the `> ` prefix.
        let text = "Never:\n\n> | Wrong | Right |\n> |---|---|\n> | `a` | `b` |\n";
        let o = outline(text, &[]);
        let a = o.around_inline(text, &at(text, "`a`"));
        assert_eq!(show(text, &a.column), "Wrong");
        assert_eq!(
            a.row.iter().map(|p| p.raw.as_str()).collect::<Vec<_>>(),
            ["`b`"]
        );
        assert_eq!(show(text, &a.lead), "Never:");
        // A delimiter row narrower than the header: no table, the cell is a sentence.
        let text = "| Wrong | Right |\n|---|\n| `a` | `b` |\n";
        let a = outline(text, &[]).around_inline(text, &at(text, "`a`"));
        assert!(a.column.is_none() && a.row.is_empty(), "{a:?}");
        // A nested item reads the lead of its outermost list; `2.` inside a paragraph is text.
        let text = "Never write these:\n- Devices\n  - `a`\n\nText.\n2. `b`\n";
        let o = outline(text, &[]);
        let a = o.around_inline(text, &at(text, "`a`"));
        assert_eq!(show(text, &a.lead), "Never write these:");
        assert_eq!(show(text, &a.before), "- ");
        let b = o.around_inline(text, &at(text, "`b`"));
        assert!(b.lead.is_none(), "{b:?}");
    }
}
