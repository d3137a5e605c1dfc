//! Where an "ignore this finding here" comment can go without changing what the host means.
//!
//! A comment line before the finding's line is the first choice, but not every line may be
//! preceded by one: after a Python backslash continuation it is a `SyntaxError`, inside a
//! triple-quoted string or a multi-line YAML scalar it becomes part of the value, between
//! Markdown table rows it ends the table. Each host is parsed once (ruff's parser for Python,
//! tree-sitter for YAML, the Markdown units of [`crate::extract::markdown::units`]) and every finding gets, in
//! this order: a comment line before it where one keeps the code as it is, else a comment at the
//! end of its line, else a comment before its Markdown code block (which covers the block), else
//! nothing. Markdown prose (tables included) gets an inline HTML comment at the end of the line,
//! which renders as nothing and never splits a paragraph, a list or a table.

use std::collections::HashMap;
use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_text_size::Ranged;
use tree_sitter::{Node, Tree};

use super::{comment_only, parse_line, MARKER};
use crate::extract::markdown::{self, Unit, UnitKind};
use crate::extract::parse::{self, Lang};
use crate::extract::HostKind;
use crate::finding::{Edit, Finding};
use crate::lines::LineIndex;

/// The suppression edit for each of `findings` (same order); `None` where no place keeps the
/// host's meaning (JSON files, a string with no comment syntax around it). One parse of each
/// code unit serves every finding, so the cost is linear in the number of findings.
pub fn ignore_edits(text: &str, kind: HostKind, findings: &[&Finding]) -> Vec<Option<Edit>> {
    let lines = LineIndex::new(text);
    let mut place = Placer {
        text,
        kind,
        lines: &lines,
        units: if kind == HostKind::Markdown {
            markdown::units(text)
        } else {
            Vec::new()
        },
        parsed: HashMap::new(),
    };
    // The edit depends only on the finding's line, code and Markdown unit: many findings on one
    // long line (a generated URL) are placed once, not each with a scan of the line.
    let mut placed: HashMap<(usize, &str, Option<usize>), Option<Edit>> = HashMap::new();
    findings
        .iter()
        .map(|f| {
            let unit = if kind == HostKind::Markdown {
                place.unit_at(f.range.start)
            } else {
                None
            };
            let key = (lines.line_of(f.range.start), f.code, unit);
            placed.entry(key).or_insert_with(|| place.edit(f)).clone()
        })
        .collect()
}

/// What a parse tells about where values are.
enum Values {
    /// A YAML tree.
    Yaml(Tree),
    /// The embedded ranges of Python's string literals (an f-string as a whole), sorted.
    Python(Vec<Range<usize>>),
}

/// Which language a code unit is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CodeLang {
    Python,
    Yaml,
}

/// A parsed code unit: where its values are, and the map from host offsets into the parsed text.
struct Code {
    values: Values,
    /// `(host_start, embedded_start, len)` segments, sorted; identity for a whole file.
    segments: Vec<(usize, usize, usize)>,
}

impl Code {
    /// Embedded offset of host offset `h`, when `h` lies in (or at the end of) a segment.
    fn embedded(&self, h: usize) -> Option<usize> {
        self.segments
            .iter()
            .find(|&&(hs, _, len)| hs <= h && h <= hs + len)
            .map(|&(hs, es, _)| es + h - hs)
    }

    /// True when a comment inserted at host offset `h` would land inside a value (a string, a
    /// multi-line scalar) rather than between tokens.
    fn inside_value(&self, h: usize) -> bool {
        let Some(e) = self.embedded(h) else {
            return true;
        };
        let tree = match &self.values {
            Values::Python(strings) => {
                let i = strings.partition_point(|r| r.end <= e);
                return strings.get(i).is_some_and(|r| r.start < e && e < r.end);
            }
            Values::Yaml(tree) => tree,
        };
        let root = tree.root_node();
        let mut node: Option<Node> = root.descendant_for_byte_range(e, e);
        while let Some(n) = node {
            let value = matches!(
                n.kind(),
                "plain_scalar"
                    | "double_quote_scalar"
                    | "single_quote_scalar"
                    | "block_scalar"
                    | "string_scalar"
            );
            if value && n.start_byte() < e && e < n.end_byte() {
                return true;
            }
            node = n.parent();
        }
        false
    }
}

struct Placer<'a> {
    text: &'a str,
    kind: HostKind,
    lines: &'a LineIndex,
    units: Vec<Unit>,
    /// Parsed code per unit index (`usize::MAX`: the whole file); `None` when it cannot parse.
    parsed: HashMap<usize, Option<Code>>,
}

impl Placer<'_> {
    fn edit(&mut self, f: &Finding) -> Option<Edit> {
        let text = self.text;
        let line = self.lines.line_of(f.range.start);
        let range = self.lines.line_range(line);
        let line_text = &text[range.clone()];
        let code = f.code;
        // Extend an existing `ignore[...]` on the line, or alone on the line before.
        let prev = line.checked_sub(1).map(|l| self.lines.line_range(l));
        let own = std::iter::once(range.clone())
            .chain(prev.clone().filter(|p| comment_only(&text[p.clone()])));
        for r in own {
            let t = &text[r.clone()];
            if parse_line(t).is_some_and(|s| s.codes.is_some()) {
                let at = t.find(MARKER)? + MARKER.len();
                let close = t[at..].find(']')? + at;
                return Some(Edit {
                    range: r.start + close..r.start + close,
                    new_text: format!(",{code}"),
                });
            }
        }
        let eol = if line_text.ends_with("\r\n") {
            "\r\n"
        } else if line_text.ends_with('\r') {
            "\r"
        } else {
            "\n"
        };
        let prefix: String = line_text
            .chars()
            .take_while(|c| matches!(c, ' ' | '\t' | '>'))
            .collect();
        let content_end = range.start + line_text.trim_end().len();
        // Where the line's code starts (after container prefixes and indentation).
        let content_start = (range.start + prefix.len()).min(content_end);
        let hash_line = Edit {
            range: range.start..range.start,
            new_text: format!("{prefix}# {MARKER}[{code}]{eol}"),
        };
        let hash_end = Edit {
            range: content_end..content_end,
            new_text: format!("  # {MARKER}[{code}]"),
        };
        let continued = prev.as_ref().is_some_and(|p| {
            text[p.clone()]
                .trim_end_matches(['\r', '\n'])
                .ends_with('\\')
        });
        let own_continues = line_text.trim_end().ends_with('\\');
        match self.kind {
            HostKind::Json | HostKind::Notebook => None,
            HostKind::Python | HostKind::Yaml => {
                let lang = if self.kind == HostKind::Python {
                    CodeLang::Python
                } else {
                    CodeLang::Yaml
                };
                let code_unit = self.code(usize::MAX, lang, None)?;
                if !continued && !code_unit.inside_value(content_start) {
                    Some(hash_line)
                } else if !own_continues && !code_unit.inside_value(content_end) {
                    Some(hash_end)
                } else {
                    None
                }
            }
            HostKind::Markdown => {
                let Some(i) = self.unit_at(f.range.start) else {
                    return Some(self.prose_end(range, content_end, code));
                };
                let unit = &self.units[i];
                let lang = match &unit.kind {
                    UnitKind::Span => return Some(self.prose_end(range, content_end, code)),
                    UnitKind::Indented => return Some(self.block_marker(i, code)),
                    UnitKind::Fence(l) => match l.as_str() {
                        "python" | "py" | "python3" | "py3" | "ipython" => CodeLang::Python,
                        "yaml" | "yml" => CodeLang::Yaml,
                        "" if !unit.body.trim_start().starts_with(['{', '[']) => CodeLang::Python,
                        "graphql" | "gql" => return Some(hash_line),
                        _ => return Some(self.block_marker(i, code)),
                    },
                };
                let Some(code_unit) = self.code(i, lang, Some(i)) else {
                    return Some(self.block_marker(i, code));
                };
                if !continued && !code_unit.inside_value(content_start) {
                    Some(hash_line)
                } else if !own_continues && !code_unit.inside_value(content_end) {
                    Some(hash_end)
                } else {
                    Some(self.block_marker(i, code))
                }
            }
            _ => Some(hash_line),
        }
    }

    /// The unit holding host offset `at`.
    fn unit_at(&self, at: usize) -> Option<usize> {
        let i = self.units.partition_point(|u| u.range.end <= at);
        (self.units.get(i)?.range.start <= at).then_some(i)
    }

    /// The parsed code of unit `key` (the whole file for `usize::MAX`).
    fn code(&mut self, key: usize, lang: CodeLang, unit: Option<usize>) -> Option<&Code> {
        let text = self.text;
        let units = &self.units;
        self.parsed
            .entry(key)
            .or_insert_with(|| {
                let (body, segments) = match unit {
                    None => (text.to_string(), vec![(0, 0, text.len())]),
                    Some(i) => {
                        let u = &units[i];
                        (u.body.clone(), host_segments(u))
                    }
                };
                let values = match lang {
                    CodeLang::Python => Values::Python(python_strings(&body)?),
                    CodeLang::Yaml => Values::Yaml(parse::parse(Lang::Yaml, &body).ok()?),
                };
                Some(Code { values, segments })
            })
            .as_ref()
    }

    /// An inline HTML comment at the end of a prose line; in a table row, inside its last cell
    /// (before the closing `|`), so that the row keeps its cells.
    fn prose_end(&self, line: Range<usize>, content_end: usize, code: &str) -> Edit {
        let t = &self.text[line.start..content_end];
        let at = if t.ends_with('|') && !t.ends_with("\\|") {
            content_end - 1
        } else {
            content_end
        };
        let after = if at < content_end { " " } else { "" };
        Edit {
            range: at..at,
            new_text: format!(" <!-- {MARKER}[{code}] -->{after}"),
        }
    }

    /// An HTML comment line right before code block `i`, which covers the whole block.
    fn block_marker(&self, i: usize, code: &str) -> Edit {
        let unit = &self.units[i];
        let line = self.lines.line_of(unit.range.start);
        let start = self.lines.line_range(line).start;
        let lead = &self.text[start..unit.range.start];
        let mut prefix: String = lead
            .chars()
            .take_while(|c| matches!(c, ' ' | '\t' | '>'))
            .collect();
        if unit.kind == UnitKind::Indented {
            // The code's own 4-column indentation is not a container prefix.
            if prefix.ends_with('\t') {
                prefix.pop();
            } else if prefix.ends_with("    ") {
                prefix.truncate(prefix.len() - 4);
            }
        }
        Edit {
            range: start..start,
            new_text: format!("{prefix}<!-- {MARKER}[{code}] -->\n"),
        }
    }
}

/// The ranges of the string literals of Python `body` (an f-string or t-string from its start to
/// its end, interpolations included), in order; `None` when it cannot be parsed.
fn python_strings(body: &str) -> Option<Vec<Range<usize>>> {
    let parsed = parse::python(body).ok()?;
    let mut out = Vec::new();
    let mut open: Option<(usize, usize)> = None; // (start, nesting)
    for t in parsed.tokens().iter() {
        let r = t.range();
        let (start, end) = (r.start().to_usize(), r.end().to_usize());
        match (t.kind(), &mut open) {
            (TokenKind::FStringStart | TokenKind::TStringStart, None) => open = Some((start, 1)),
            (TokenKind::FStringStart | TokenKind::TStringStart, Some((_, n))) => *n += 1,
            (TokenKind::FStringEnd | TokenKind::TStringEnd, Some((s, n))) => {
                *n -= 1;
                if *n == 0 {
                    out.push(*s..end);
                    open = None;
                }
            }
            (TokenKind::String, None) => out.push(start..end),
            _ => {}
        }
    }
    Some(out)
}

/// A unit's `(host_start, embedded_start, len)` segments, read back from its map.
fn host_segments(u: &Unit) -> Vec<(usize, usize, usize)> {
    // The map is piecewise-identity; probe each embedded offset's host offset to rebuild it.
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    for e in 0..u.body.len() {
        let h = u.map.to_host(e);
        match out.last_mut() {
            Some(last) if last.0 + last.2 == h && last.1 + last.2 == e => last.2 += 1,
            _ => out.push((h, e, 1)),
        }
    }
    out
}
