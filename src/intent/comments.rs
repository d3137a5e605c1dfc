//! Comments in code that label the code beside them (`# WRONG`, `// ✅ correct`, a trailing
//! `# ❌ ignored`): in a fence's body, a `.py` or YAML file, a GraphQL document. Read from the
//! text alone (`#` and `//` comments), so every host language is read the same way and no
//! parser is needed.

use super::cues::{self, Hit, Place};
use std::ops::Range;

/// How many lines above a site are looked at for its label.
const MAX_LINES_ABOVE: usize = 40;
/// How many code lines (other calls under the same label) the walk up may cross.
const MAX_CODE_ABOVE: usize = 12;

/// The cue the comments of `code` give the code at `at` (a byte range in `code`), with the
/// range of the comment in `code`:
/// 1. a comment at the end of the site's first or last line (`f(x)  # ❌ ignored`);
/// 2. else the comment lines just above it: reached over the code lines of its own paragraph,
///    or over blank lines right below the comment (`# WRONG` then a blank line then the code).
///
/// A comment without a cue there ends the search (it describes this code, not the lesson
/// further up): `None`.
pub(crate) fn cue(code: &str, at: Range<usize>) -> Option<Hit> {
    cue_in(code, at, None)
}

fn cue_in(code: &str, at: Range<usize>, marks: Option<&Marks>) -> Option<Hit> {
    let start = at.start.min(code.len());
    let end = at.end.clamp(start, code.len());
    if marks.is_some_and(|m| m.quiet(start, end.saturating_sub(1).max(start))) {
        return None;
    }
    let first = near_start(code, start)?;
    let last = near_start(code, end.saturating_sub(1).max(start))?;
    // The first line, and the last when it is another (no list allocated per site).
    for line in [Some(first), (last != first).then_some(last)]
        .into_iter()
        .flatten()
    {
        let line_end = near_end(code, line)?;
        let Some(c) = trailing(&code[line..line_end]) else {
            continue;
        };
        if line + c >= start {
            if let Some(hit) = comment_cue(code, line + c..line_end) {
                return Some(hit);
            }
        }
    }
    if marks.is_some_and(|m| !m.may_reach(first)) {
        return None;
    }
    above(code, first)
}

/// Where the lines of one code text start, and which of them may be comment lines: read once
/// for the sites that share the code ([`cue_marked`]), so that a site with no comment line
/// within reach above it (a file of calls with no comments) needs no walk up.
pub(crate) struct Marks {
    /// Byte offset of each line's start, ascending (lines end at `\n`, as [`near_start`] reads),
    /// up to the line at [`Marks::quiet_from`] (the lines after it are never asked for).
    starts: Vec<usize>,
    /// Indices (into `starts`) of the lines that may be comments, ascending: the first byte that
    /// is neither an ASCII control or space nor part of a non-ASCII character is `#` or `/` (a
    /// superset of the lines [`is_comment`] accepts after a trim).
    comments: Vec<usize>,
    /// Indices (into `starts`) of the lines that hold a `#` or `/` byte anywhere, ascending (a
    /// superset of the lines with a trailing comment, see [`trailing`]).
    hashes: Vec<usize>,
    /// The first byte of the line from which on every site is quiet ([`Marks::quiet`]): more
    /// than [`MAX_LINES_ABOVE`] lines after the last line with a `#` or `/` (`usize::MAX` when
    /// there is no such line; 0 when the code has neither byte).
    quiet_from: usize,
    /// The line [`Marks::line_of`] found last: the sites of a code come in order, and the next
    /// one is most often on that line or the next.
    hint: std::cell::Cell<usize>,
}

impl Marks {
    /// The marks of `code`: its lines up to [`MAX_LINES_ABOVE`] past the last line with a `#`
    /// or `/` (found from the end); every site after them is quiet ([`Marks::quiet_from`]).
    pub(crate) fn new(code: &str) -> Marks {
        let b = code.as_bytes();
        // Where the lines that need reading end: the start of the 41st line after the last
        // with a `#` or `/` (no comment line is further up, so none reaches past it), or the
        // code's end. A file of calls with a comment at its top reads a few lines (a table of
        // every line was ~140 instructions a line).
        let quiet_from = match memchr::memrchr2(b'#', b'/', b) {
            None => 0,
            Some(last) => memchr::memchr_iter(b'\n', &b[last..])
                .nth(MAX_LINES_ABOVE)
                .map_or(usize::MAX, |i| last + i + 1),
        };
        let upto = quiet_from.min(b.len());
        let mut starts = Vec::new();
        let mut comments = Vec::new();
        let mut line = 0;
        if quiet_from > 0 {
            loop {
                let end = memchr::memchr(b'\n', &b[line..]).map(|i| line + i);
                // The line's first byte that is neither an ASCII control or space nor part of a
                // non-ASCII character (the bytes after its end are another line's).
                let lead = b[line..end.unwrap_or(b.len())]
                    .iter()
                    .find(|&&c| c > b' ' && c < 0x80);
                if matches!(lead, Some(b'#' | b'/')) {
                    comments.push(starts.len());
                }
                starts.push(line);
                match end {
                    // The line at `quiet_from` is the table's last (its start ends the one
                    // before).
                    Some(i) if line < upto => line = i + 1,
                    _ => break,
                }
            }
        }
        // One pass for the bytes that may start a trailing comment, each put on its line.
        let mut hashes: Vec<usize> = Vec::new();
        let mut at = 0;
        for p in memchr::memchr2_iter(b'#', b'/', &b[..upto]) {
            while at + 1 < starts.len() && starts[at + 1] <= p {
                at += 1;
            }
            if hashes.last() != Some(&at) {
                hashes.push(at);
            }
        }
        Marks {
            starts,
            comments,
            hashes,
            quiet_from,
            hint: std::cell::Cell::new(0),
        }
    }

    /// The first byte from which on every site is quiet ([`Marks::quiet`]): its lines hold no
    /// `#` or `/` and no comment line is within reach above them.
    pub(crate) fn quiet_from(&self) -> usize {
        self.quiet_from
    }

    /// The index of the line holding byte `at`.
    fn line_of(&self, at: usize) -> usize {
        let on = |i: usize| {
            self.starts.get(i).is_some_and(|&s| s <= at)
                && self.starts.get(i + 1).is_none_or(|&next| at < next)
        };
        let hint = self.hint.get();
        let line = if on(hint) {
            hint
        } else if on(hint + 1) {
            hint + 1
        } else {
            self.starts.partition_point(|&s| s <= at).saturating_sub(1)
        };
        self.hint.set(line);
        line
    }

    /// True when [`cue_in`] finds no label for a site whose first byte is `first` and last
    /// byte `last`: neither line holds a `#` or `/` (no trailing comment) and no comment line
    /// is within reach above the first (two binary searches in place of the lines' scans).
    fn quiet(&self, first: usize, last: usize) -> bool {
        // A file of calls has its comments at the top, if anywhere: no line to find.
        if first >= self.quiet_from {
            return true;
        }
        // A site that reaches past the lines read: the walk decides.
        if last >= self.quiet_from {
            return false;
        }
        let f = self.line_of(first);
        // Most sites are on one line.
        let l = if self.starts.get(f + 1).is_none_or(|&next| last < next) {
            f
        } else {
            self.line_of(last)
        };
        let i = self.hashes.partition_point(|&h| h < f);
        if self.hashes.get(i).is_some_and(|&h| h <= l) {
            return false;
        }
        !self.reaches(f)
    }

    /// False when none of the [`MAX_LINES_ABOVE`] lines above the line starting at byte `line`
    /// may be a comment: [`above`] finds no label there.
    fn may_reach(&self, line: usize) -> bool {
        self.reaches(self.line_of(line))
    }

    /// [`Marks::may_reach`] for the line of index `at`.
    fn reaches(&self, at: usize) -> bool {
        let before = self.comments.partition_point(|&c| c < at);
        before > 0 && at - self.comments[before - 1] <= MAX_LINES_ABOVE
    }
}

/// [`cue`] with the [`Marks`] of `code`: the same answer, the walk up skipped where no comment
/// line is within its reach.
pub(crate) fn cue_marked(code: &str, at: Range<usize>, marks: &Marks) -> Option<Hit> {
    cue_in(code, at, Some(marks))
}

/// Longest line read for a label, in bytes: a longer one (generated text, a minified file)
/// gives none. Each site reads its own lines, so without a bound many sites on one long line
/// take time in the square of its length (60,000 URLs on one 3.3 MB line: 401 s).
const MAX_LINE: usize = 8192;

/// Start of the line holding byte `at`, or `None` when it starts more than [`MAX_LINE`] bytes
/// before `at`.
fn near_start(code: &str, at: usize) -> Option<usize> {
    let at = code.floor_char_boundary(at.min(code.len()));
    let from = code.floor_char_boundary(at.saturating_sub(MAX_LINE));
    // `memchr` on the bytes (a `\n` byte is always the character): `str::rfind` set up a
    // searcher per line, and each site walks up to a dozen lines (12 % of a check of 10,000
    // calls in a `.py` file went to this walk).
    match memchr::memrchr(b'\n', &code.as_bytes()[from..at]) {
        Some(i) => Some(from + i + 1),
        None => (from == 0).then_some(0),
    }
}

/// End of the line at `at` (before its `\n`, `\r` kept out), or `None` when it ends more
/// than [`MAX_LINE`] bytes after `at`.
fn near_end(code: &str, at: usize) -> Option<usize> {
    let at = code.floor_char_boundary(at.min(code.len()));
    let to = code.floor_char_boundary(at.saturating_add(MAX_LINE).min(code.len()));
    let end = match memchr::memchr(b'\n', &code.as_bytes()[at..to]) {
        Some(i) => at + i,
        None if to == code.len() => to,
        None => return None,
    };
    Some(if end > at && code.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    })
}

/// The label of the comment group just above the line starting at `line`. The walk up crosses
/// code lines of the same paragraph only while they are indented at least as deep as `line`
/// (a less indented line opens the block the code is in: `def f():`, a YAML parent key), and
/// at most [`MAX_CODE_ABOVE`] of them.
fn above(code: &str, line: usize) -> Option<Hit> {
    let depth = indent(&code[line..near_end(code, line)?]);
    let mut end = line;
    let mut blank_seen = false;
    let mut code_lines = 0;
    for _ in 0..MAX_LINES_ABOVE {
        if end == 0 {
            return None;
        }
        let start = near_start(code, end - 1)?;
        // `end` starts a line, so the line above ends at `end - 1` (its `\n`): what
        // `near_end(code, start)` finds, without a search per line.
        let stop = end - 1;
        let raw = &code[start..if stop > start && code.as_bytes()[stop - 1] == b'\r' {
            stop - 1
        } else {
            stop
        }];
        // Most code lines open with a character that is no whitespace (ASCII): no trimming.
        let (blank, comment, deep) = match raw.as_bytes().first() {
            Some(&b) if b.is_ascii() && !char::from(b).is_whitespace() => {
                (false, is_comment(raw), 0)
            }
            _ => {
                let text = raw.trim();
                (text.is_empty(), is_comment(text), indent(raw))
            }
        };
        if blank {
            blank_seen = true;
        } else if comment {
            return group(code, start);
        } else {
            // A blank line, then code: another paragraph's.
            code_lines += 1;
            if blank_seen || deep < depth || code_lines > MAX_CODE_ABOVE {
                return None;
            }
        }
        end = start;
    }
    None
}

/// Width of a line's leading whitespace.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The first cue of the comment group whose last line starts at `last`, read top to bottom.
fn group(code: &str, last: usize) -> Option<Hit> {
    let mut first = last;
    while first > 0 {
        let Some(start) = near_start(code, first - 1) else {
            break;
        };
        if !is_comment(code[start..first].trim()) {
            break;
        }
        first = start;
    }
    let mut line = first;
    while line <= last {
        let end = near_end(code, line)?;
        let lead = code[line..end].len() - code[line..end].trim_start().len();
        if let Some(hit) = comment_cue(code, line + lead..end) {
            return Some(hit);
        }
        line = end + 1;
    }
    None
}

/// The cue of the comment at `range` of `code` (its opening `#` or `//` included).
fn comment_cue(code: &str, range: Range<usize>) -> Option<Hit> {
    let comment = &code[range.clone()];
    let body = comment.trim_start_matches(['#', '/', '!']);
    let skip = comment.len() - body.len();
    let hit = cues::label(body, Place::Comment)?;
    Some(Hit {
        cue: hit.cue,
        range: range.start + skip + hit.range.start..range.start + skip + hit.range.end,
    })
}

/// True for a line (trimmed) that is a comment only.
fn is_comment(t: &str) -> bool {
    t.starts_with('#') || t.starts_with("//")
}

/// Byte offset in `line` where a comment starts that is not inside a string
/// ([`crate::lines::outside_quotes`]): `#` or `//` at the line start or after a space
/// (`https://` is no comment).
fn trailing(line: &str) -> Option<usize> {
    // Most code lines hold neither byte: no need to read their quotes.
    memchr::memchr2(b'#', b'/', line.as_bytes())?;
    crate::lines::outside_quotes(line, |b, i| {
        let spaced = i == 0 || b[i - 1].is_ascii_whitespace();
        spaced && (b[i] == b'#' || (b[i] == b'/' && b.get(i + 1) == Some(&b'/')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::cues::Cue;

    fn cue_of(code: &str, needle: &str) -> Option<(Cue, String)> {
        let at = code.find(needle).unwrap();
        cue(code, at..at + needle.len()).map(|h| (h.cue, code[h.range].to_string()))
    }

    #[test]
    fn pairs_in_one_block_and_trailing_comments() {
        let code = "# WRONG: returns every device\nf(site_id__in=[1])\n\n# CORRECT\nf(site_id=[1])\ng(a=1)  # ❌ ignored\n# list devices\nh(b=2)\n";
        assert_eq!(
            cue_of(code, "f(site_id__in=[1])"),
            Some((Cue::Wrong, "WRONG".into()))
        );
        assert_eq!(
            cue_of(code, "f(site_id=[1])"),
            Some((Cue::Right, "CORRECT".into()))
        );
        assert_eq!(cue_of(code, "g(a=1)"), Some((Cue::Wrong, "❌".into())));
        assert_eq!(cue_of(code, "h(b=2)"), None);
    }

    /// The reach of the walk up: a comment on the 40th line above is found, on the 41st not,
    /// after short lines, after a long one, and above code lines.
    #[test]
    fn the_reach_above_is_forty_lines() {
        for before in [
            "",
            &"x = 1\n".repeat(1000),
            &format!("{}\n", "y".repeat(5000)),
        ] {
            for (blank, found) in [(39, true), (40, false)] {
                let code = format!("{before}# WRONG\n{}f(x=1)\n", "\n".repeat(blank));
                assert_eq!(cue_of(&code, "f(x=1)").is_some(), found, "{blank}");
                let code = format!(
                    "{before}# WRONG\n{}{}f(x=1)\n",
                    "\n".repeat(blank - 5),
                    "g()\n".repeat(5)
                );
                assert_eq!(
                    cue_of(&code, "f(x=1)").is_some(),
                    found,
                    "{blank} with code"
                );
            }
        }
        let long = format!("{}\n", "z".repeat(3000));
        let code = format!("# WRONG\n{}f(x=1)\n", long.repeat(3));
        assert_eq!(cue_of(&code, "f(x=1)").map(|c| c.0), Some(Cue::Wrong));
    }

    /// The marks give the walk's answer for every site of every text the tests here read,
    /// and for a label at each distance around the walk's reach (39–41 lines above).
    #[test]
    fn the_marks_give_the_same_cue() {
        let mut texts: Vec<String> = vec![
            "# WRONG: returns every device\nf(site_id__in=[1])\n\n# CORRECT\nf(site_id=[1])\ng(a=1)  # ❌ ignored\n# list devices\nh(b=2)\n".into(),
            "# WRONG\nf(x=1)\n\ng(y=2)\n".into(),
            "# WRONG\n\nf(x=1)\ng(y=2)\n".into(),
            "def f():\n    # WRONG\n    g(x=1)\n    g(y=2)\n".into(),
            "\u{3000}# WRONG\r\nf(x=1)\r\n\t// ✅ right\nf(y=2)\n".into(),
            "  \r# WRONG\nf(x=1)\n".into(),
            "  \n\t\n# WRONG\nf(x=1)\n\n\ng(y=2)\n\u{3000}\n// ✅\nh(z=3)".into(),
        ];
        for lines in [38, 39, 40, 41] {
            texts.push(format!("# WRONG\n{}f(x=1)\n", "g()\n".repeat(lines)));
            texts.push(format!("# WRONG\n{}f(x=1)\n", "\n".repeat(lines)));
            texts.push(format!(
                "x\n  # WRONG\n{}  f(x=1)\n",
                "  g()\n".repeat(lines)
            ));
        }
        // Trailing comments on a site's first or last line, far from any comment line above
        // (the marks' short answer is only for lines without `#` or `/`).
        let far = "g()\n".repeat(45);
        texts.push(format!(
            "{far}f(x=1)  # WRONG\ng(y=2)\nh(z=3) // ❌ no\n{far}f(a=\n1)  # WRONG\n"
        ));
        texts.push(format!(
            "{far}f(u='a/b')\n{far}g(\n  x=1,\n)  # ✅\nh(k=\"#\")\n"
        ));
        for code in &texts {
            let marks = Marks::new(code);
            let sites: Vec<usize> = code
                .match_indices(['f', 'g', 'h'])
                .map(|(i, _)| i)
                .collect();
            // In order, then backwards (the marks remember the line they found last).
            for &i in sites.iter().chain(sites.iter().rev()) {
                let at = i..code.len().min(i + 6);
                let plain = cue(code, at.clone()).map(|h| (h.cue, h.range));
                let marked = cue_marked(code, at, &marks).map(|h| (h.cue, h.range));
                assert_eq!(plain, marked, "{code:?} at {i}");
            }
        }
        let marks = Marks::new("a\nb\n");
        assert!(!marks.may_reach(2));
        let marks = Marks::new("# x\nb\n");
        assert!(marks.may_reach(4));
    }

    #[test]
    fn a_blank_line_after_code_ends_the_label() {
        let code = "# WRONG\nf(x=1)\n\ng(y=2)\n";
        assert_eq!(cue_of(code, "f(x=1)").map(|c| c.0), Some(Cue::Wrong));
        assert_eq!(cue_of(code, "g(y=2)"), None);
        let code = "# WRONG\n\nf(x=1)\ng(y=2)\n";
        assert_eq!(cue_of(code, "g(y=2)").map(|c| c.0), Some(Cue::Wrong));
    }

    #[test]
    fn a_less_indented_line_opens_the_block_of_the_code() {
        let code = "# Each wrong filter sits next to its right form.\n- name: a\n  debug:\n    msg: f(x=1)\n";
        assert_eq!(cue_of(code, "f(x=1)"), None);
        let code = "def f():\n    # WRONG\n    g(x=1)\n    g(y=2)\n";
        assert_eq!(cue_of(code, "g(y=2)").map(|c| c.0), Some(Cue::Wrong));
    }

    #[test]
    fn comment_markers_in_strings_are_no_comments() {
        assert_eq!(trailing("x = \"# WRONG\""), None);
        assert_eq!(trailing("url = 'https://a/b'"), None);
        assert_eq!(trailing("f(x)  # don't"), Some(6));
        assert_eq!(trailing("f(x) // bad"), Some(5));
        assert_eq!(cue_of("f(x)\n", "f(x)"), None);
        assert_eq!(cue_of("", ""), None);
    }
}
