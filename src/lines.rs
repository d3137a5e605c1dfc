//! Line index over a host document: byte offset ↔ (line, column), with columns in UTF-16 code
//! units (LSP's default), UTF-8 bytes, or Unicode scalar values.

/// How columns are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnUnit {
    /// UTF-16 code units (LSP default, `--format json`).
    Utf16,
    /// UTF-8 bytes (LSP `positionEncoding: utf-8`).
    Utf8,
    /// Unicode scalar values (text output: what editors show as the column).
    Char,
}

/// Start offsets of every line of a text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
    /// Whether each line is all ASCII: then every column unit counts bytes, and a position on
    /// it is found without scanning the line (thousands of findings on one generated line).
    ascii: Vec<bool>,
}

/// A 0-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl LineIndex {
    /// Indexes `text`; lines end at `\r\n`, `\n` or a bare `\r`, as in LSP.
    pub fn new(text: &str) -> Self {
        let (starts, ascii) = starts_and_ascii(text.as_bytes());
        LineIndex {
            starts,
            len: text.len(),
            ascii,
        }
    }

    /// 0-based line of byte `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// Byte range of line `line` including its newline; empty past the end.
    pub fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let start = self.starts.get(line).copied().unwrap_or(self.len);
        let end = self.starts.get(line + 1).copied().unwrap_or(self.len);
        start..end
    }

    /// True when line `line` holds only ASCII (and `line` exists).
    fn is_ascii(&self, line: usize) -> bool {
        self.ascii.get(line).copied().unwrap_or(false)
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte `offset` → 0-based line and column in `unit`. An offset inside a multi-byte
    /// character is moved back to the character's start.
    pub fn position(&self, text: &str, offset: usize, unit: ColumnUnit) -> LineCol {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let prefix = &text[self.starts[line]..offset];
        let col = match unit {
            _ if self.is_ascii(line) => prefix.len(),
            ColumnUnit::Utf8 => prefix.len(),
            ColumnUnit::Utf16 => prefix.chars().map(char::len_utf16).sum(),
            ColumnUnit::Char => prefix.chars().count(),
        };
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// 0-based line and column in `unit` → byte offset. A column past the line's end clamps to
    /// the end of the line (before its newline); a line past the end gives the text's length.
    pub fn offset(&self, text: &str, pos: LineCol, unit: ColumnUnit) -> usize {
        let line = pos.line as usize;
        if line >= self.starts.len() {
            return text.len();
        }
        let range = self.line_range(line);
        let line_text = &text[range.clone()];
        let line_text = line_text.strip_suffix('\n').unwrap_or(line_text);
        let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
        if self.is_ascii(line) {
            return range.start + (pos.col as usize).min(line_text.len());
        }
        let mut counted = 0usize;
        for (i, ch) in line_text.char_indices() {
            if counted >= pos.col as usize {
                return range.start + i;
            }
            counted += match unit {
                ColumnUnit::Utf8 => ch.len_utf8(),
                ColumnUnit::Utf16 => ch.len_utf16(),
                ColumnUnit::Char => 1,
            };
        }
        range.start + line_text.len()
    }
}

/// Converts many byte offsets of one text to positions in both character and UTF-16 columns,
/// counting from the previous offset when it lies earlier on the same line, and finding the
/// line forward from the previous one's (a look at the next few line starts) before searching
/// the index. Findings come sorted, so thousands of them on one long line cost one pass over
/// it, not one pass each, and findings on successive lines no binary search each (it was
/// ~190 instructions a position in a check of 10,000 calls).
pub struct Cursor<'a> {
    text: &'a str,
    index: &'a LineIndex,
    /// Last offset converted, its line, and its (char, UTF-16) columns.
    last: Option<(usize, u32, u32, u32)>,
    /// The line of the last offset converted (0 before the first).
    line: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor over `text`, indexed by `index`.
    pub fn new(text: &'a str, index: &'a LineIndex) -> Self {
        Cursor {
            text,
            index,
            last: None,
            line: 0,
        }
    }

    /// The 0-based line of byte `offset` (at most the text's length): as
    /// [`LineIndex::line_of`], looking forward from the previous line first.
    fn line_of(&mut self, offset: usize) -> usize {
        let starts = &self.index.starts;
        let mut line = self.line;
        if starts.get(line).is_some_and(|&s| s <= offset) {
            // Forward: this line or one of the next few, else a search of the rest.
            let mut steps = 0;
            loop {
                match starts.get(line + 1) {
                    Some(&s) if s <= offset => line += 1,
                    _ => break,
                }
                steps += 1;
                if steps == 4 {
                    line += starts[line..].partition_point(|&s| s <= offset) - 1;
                    break;
                }
            }
        } else {
            line = self.index.line_of(offset);
        }
        self.line = line;
        line
    }

    /// Byte `offset` → (0-based line, column in chars, column in UTF-16 units). An offset inside
    /// a multi-byte character is moved back to the character's start. An offset on the line of
    /// the previous one or the next, when that line is all ASCII (a finding's end, the next
    /// finding on its line or the next), is its distance from the line's start: a few
    /// instructions, inlined.
    #[inline]
    pub fn position(&mut self, offset: usize) -> (u32, u32, u32) {
        let line = self.line;
        let starts = &self.index.starts;
        if let (Some(&start), Some(&next)) = (starts.get(line), starts.get(line + 1)) {
            // Every offset of an ASCII line is a character boundary.
            if start <= offset && offset < next && self.index.is_ascii(line) {
                let col = (offset - start) as u32;
                return (line as u32, col, col);
            }
            // The next line (the next finding, a line further down).
            if next <= offset
                && starts.get(line + 2).is_some_and(|&after| offset < after)
                && self.index.is_ascii(line + 1)
            {
                self.line = line + 1;
                let col = (offset - next) as u32;
                return (line as u32 + 1, col, col);
            }
        }
        self.position_found(offset)
    }

    /// [`Cursor::position`] after its line is looked for.
    fn position_found(&mut self, offset: usize) -> (u32, u32, u32) {
        let text = self.text;
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let line_start = self.index.starts[line];
        if self.index.is_ascii(line) {
            let col = (offset - line_start) as u32;
            return (line as u32, col, col);
        }
        let (from, mut chars, mut units) = match self.last {
            Some((o, l, c, u)) if l as usize == line && o <= offset => (o, c, u),
            _ => (line_start, 0, 0),
        };
        for ch in text[from..offset].chars() {
            chars += 1;
            units += ch.len_utf16() as u32;
        }
        self.last = Some((offset, line as u32, chars, units));
        (line as u32, chars, units)
    }
}

/// Offsets of the last byte of each line end: every `\n`, and every `\r` not followed by `\n`.
/// The line starts of `bytes` (after `\n`, after a `\r` not followed by `\n`; the first is 0)
/// and whether each line (up to the next start) is all ASCII, in one pass: sixteen bytes a step
/// on x86-64 (SSE2, part of its baseline), each step a mask of its line ends and one of its
/// non-ASCII bytes. (Finding the line ends with `memchr`, then testing each line for ASCII, read
/// the text twice and restarted the search at every line: ~290 instructions a line of a file of
/// calls.)
fn starts_and_ascii(bytes: &[u8]) -> (Vec<usize>, Vec<bool>) {
    // A line every 64 bytes: a file of calls (~66 bytes a line) grows the lists once or twice.
    let guess = bytes.len() / 64 + 1;
    let mut starts = Vec::with_capacity(guess);
    let mut ascii = Vec::with_capacity(guess);
    starts.push(0);
    // Whether the line being read has a non-ASCII byte so far.
    let mut wide = false;
    let mut at = 0;
    #[cfg(target_arch = "x86_64")]
    while at + 16 <= bytes.len() {
        // SAFETY: sixteen bytes from `at` are in `bytes`; SSE2 is part of x86-64's baseline.
        let (lf, cr, high) = unsafe { ends_and_high16(bytes, at) };
        let mut ends = lf | cr;
        let mut seen = 0u32;
        while ends != 0 {
            let k = ends.trailing_zeros();
            ends &= ends - 1;
            let p = at + k as usize;
            // A `\r` before a `\n` is not a line end (the `\n` is).
            if cr & (1 << k) != 0 && bytes.get(p + 1) == Some(&b'\n') {
                continue;
            }
            let upto = (2u32 << k) - 1;
            wide |= high & upto & !seen != 0;
            seen = upto;
            ascii.push(!wide);
            starts.push(p + 1);
            wide = false;
        }
        wide |= high & !seen != 0;
        at += 16;
    }
    for (p, &c) in bytes.iter().enumerate().skip(at) {
        wide |= !c.is_ascii();
        if c == b'\n' || (c == b'\r' && bytes.get(p + 1) != Some(&b'\n')) {
            ascii.push(!wide);
            starts.push(p + 1);
            wide = false;
        }
    }
    ascii.push(!wide);
    (starts, ascii)
}

/// The `\n` bytes, the `\r` bytes and the bytes with the high bit set (not ASCII) of
/// `bytes[at..at + 16]`, each as bits (bit `k` for `bytes[at + k]`).
///
/// # Safety
/// `at + 16 <= bytes.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn ends_and_high16(bytes: &[u8], at: usize) -> (u32, u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: the caller's promise: the sixteen bytes are in `bytes`; SSE2 is always there.
    unsafe {
        let v = _mm_loadu_si128(bytes.as_ptr().add(at).cast::<__m128i>());
        let lf = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))) as u32;
        let cr = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\r' as i8))) as u32;
        let high = _mm_movemask_epi8(v) as u32;
        (lf, cr, high)
    }
}

#[cfg(test)]
fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    // `memchr` finds the candidates (a byte-by-byte filter was 1 % of a check of 10,000 calls).
    memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(move |&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
}

/// Byte offset of the first place in `line` outside a quoted string where `opens(bytes, i)`
/// holds (a comment opener, say), by a quote-parity scan of the one line: `"` and `'` open and
/// close strings, `\` escapes the next byte inside one, and `'` after an ASCII letter or digit
/// is an apostrophe (`don't`), not a quote. Used by the suppression comments
/// ([`crate::suppress`]) and the comment cues of the intent readers.
pub fn outside_quotes(line: &str, opens: impl Fn(&[u8], usize) -> bool) -> Option<usize> {
    let b = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(_) if c == b'\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => {
                if opens(b, i) {
                    return Some(i);
                }
                let apostrophe = c == b'\'' && i > 0 && b[i - 1].is_ascii_alphanumeric();
                if c == b'"' || (c == b'\'' && !apostrophe) {
                    quote = Some(c);
                }
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_quotes_skips_strings_and_apostrophes() {
        let hash = |line: &str| outside_quotes(line, |b, i| b[i] == b'#');
        assert_eq!(hash(r#"x = "a # b" # c"#), Some(12));
        assert_eq!(hash(r#"x = 'a \' # b' # c"#), Some(15));
        assert_eq!(hash("don't # x"), Some(6));
        assert_eq!(hash("'# quoted"), None);
    }

    #[test]
    fn utf16_columns_after_non_ascii() {
        let text = "é😀x\nab";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(
            idx.position(text, x, ColumnUnit::Utf16),
            LineCol { line: 0, col: 3 }
        );
        assert_eq!(
            idx.position(text, x, ColumnUnit::Char),
            LineCol { line: 0, col: 2 }
        );
        assert_eq!(
            idx.position(text, x, ColumnUnit::Utf8),
            LineCol { line: 0, col: 6 }
        );
        assert_eq!(
            idx.offset(text, LineCol { line: 0, col: 3 }, ColumnUnit::Utf16),
            x
        );
        assert_eq!(
            idx.offset(text, LineCol { line: 1, col: 9 }, ColumnUnit::Utf16),
            text.len()
        );
    }

    /// LSP: `\r\n`, `\n` and a bare `\r` each end a line; a column past the end clamps before
    /// the line end, whichever it is.
    #[test]
    fn every_lsp_line_end() {
        let text = "a\rbc\r\nd\ne\r\rf";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 6);
        let at = |o| idx.position(text, o, ColumnUnit::Utf16);
        assert_eq!(at(text.find('b').unwrap()), LineCol { line: 1, col: 0 });
        assert_eq!(at(text.find('d').unwrap()), LineCol { line: 2, col: 0 });
        assert_eq!(at(text.find('f').unwrap()), LineCol { line: 5, col: 0 });
        let past = |line| idx.offset(text, LineCol { line, col: 99 }, ColumnUnit::Utf16);
        assert_eq!(past(0), 1);
        assert_eq!(past(1), text.find("\r\n").unwrap());
        assert_eq!(past(4), text.rfind('\r').unwrap());
    }

    /// The one-pass index finds the line starts and ASCII lines that `memchr` and a test of
    /// each line find, for texts of every length with line ends (`\n`, `\r\n`, a bare `\r`,
    /// also across a sixteen-byte step) and non-ASCII bytes at every position.
    #[test]
    fn one_pass_index_as_two_passes() {
        let two = |t: &str| {
            let b = t.as_bytes();
            let mut starts = vec![0];
            starts.extend(memchr_newlines(b).map(|i| i + 1));
            let ascii: Vec<bool> = (0..starts.len())
                .map(|i| b[starts[i]..starts.get(i + 1).copied().unwrap_or(b.len())].is_ascii())
                .collect();
            (starts, ascii)
        };
        let pieces = ["a", "\n", "\r", "\r\n", "é", "xxxxxxxxxxxxxxx", "😀"];
        let mut texts = vec![String::new()];
        for len in 1..50 {
            for seed in 0..40usize {
                let mut t = String::new();
                let mut x = seed * 7 + len;
                while t.len() < len {
                    t.push_str(pieces[x % pieces.len()]);
                    x = x * 31 + 11;
                }
                texts.push(t);
            }
        }
        for t in &texts {
            let idx = LineIndex::new(t);
            assert_eq!((idx.starts.clone(), idx.ascii.clone()), two(t), "{t:?}");
        }
    }

    #[test]
    fn cursor_agrees_with_position_in_any_order() {
        let text = "é😀x y😀\nab😀c\n";
        let idx = LineIndex::new(text);
        let mut cur = Cursor::new(text, &idx);
        let offsets: Vec<usize> = (0..=text.len()).chain((0..=text.len()).rev()).collect();
        for o in offsets {
            let c = idx.position(text, o, ColumnUnit::Char);
            let u = idx.position(text, o, ColumnUnit::Utf16);
            assert_eq!(cur.position(o), (c.line, c.col, u.col), "offset {o}");
        }
        // Many lines, offsets forward with jumps of every size, then backward.
        let text: String = (0..200).map(|i| "x".repeat(i % 7) + "é\n").collect();
        let idx = LineIndex::new(&text);
        let mut cur = Cursor::new(&text, &idx);
        let mut offsets: Vec<usize> = Vec::new();
        let (mut o, mut step) = (0, 1);
        while o <= text.len() {
            offsets.push(o);
            o += step;
            step = step % 97 + 3;
        }
        offsets.extend((0..=text.len()).rev().step_by(13));
        for o in offsets {
            let c = idx.position(&text, o, ColumnUnit::Char);
            let u = idx.position(&text, o, ColumnUnit::Utf16);
            assert_eq!(cur.position(o), (c.line, c.col, u.col), "offset {o}");
        }
    }
}
