//! Extraction from Jupyter notebooks (`.ipynb`, nbformat 4): the notebook is JSON; each code
//! cell's `source` (a string or a list of line strings) is read as Python and each Markdown
//! cell's as Markdown, with every position mapped back into the JSON file through the strings'
//! exact maps (an escape such as `\"` or `\n` maps to its last byte; a `\u00e9` escape or a
//! surrogate pair spans its whole escape, so no range starts or ends inside one). A cell
//! holding a string that cannot be mapped exactly (a lone surrogate) is skipped, never guessed. Code cells of a
//! notebook whose kernel language is not Python are skipped. Fix texts land inside JSON strings,
//! so the analysis escapes them (see `analysis`).

use std::ops::Range;

use super::lit::{Lit, LitKind};
use super::{json_lit, markdown, python, GraphqlDoc, HostKind, OffsetMap, RestCall, Site, Value};

/// Sites found in the notebook `text` (host byte ranges). A notebook that cannot be read (not
/// JSON even with Python's `NaN` and `Infinity`, a merge conflict, cut short, no `cells` list)
/// gives one [`Site::NotChecked`] at its start saying why, never a silent nothing; so does a
/// cell whose text cannot be mapped exactly. The code cells share one module scope, in order,
/// as the kernel runs them: the cells that parse are read as one module (a name bound in one
/// cell is read in the next); a cell with a syntax error (an IPython magic, half-typed code) is
/// read alone.
pub fn extract(text: &str) -> Vec<Site> {
    let mut out = Vec::new();
    let mut module = String::new();
    let mut module_map = OffsetMap::new();
    use super::parse::{self, Lang, Refusal};
    if let Some(Refusal::TooMany(_)) = parse::over_budget(Lang::Json, text) {
        let reason = format!(
            "this notebook holds more JSON values than netbox-lsp reads in {} bytes ({} and one per {} bytes)",
            text.len(),
            parse::MIN_NODES,
            parse::bytes_per_node(Lang::Json)
        );
        return vec![unreadable(
            0..0,
            reason,
            "Split the notebook to have it checked.",
        )];
    }
    let read = match cells(text) {
        Ok(read) => read,
        Err(reason) => return vec![unreadable(0..0, reason, UNREADABLE_ADVICE)],
    };
    for cell in read {
        let (source, map, kind) = match cell {
            Ok(cell) => cell,
            Err(range) => {
                out.push(unreadable(
                    range,
                    "this cell holds a string netbox-lsp cannot map back to the file exactly (a lone surrogate escape such as `\\ud800`)".to_string(),
                    "Remove the escape to have the cell checked.",
                ));
                continue;
            }
        };
        match kind {
            HostKind::Python if parses(&source) && !map.is_empty() => {
                if !module.is_empty() {
                    // A line end between cells, mapped onto the last byte of the cell before.
                    let last = module_map.to_host_end(module.len()).saturating_sub(1);
                    module.push('\n');
                    module_map.push(last, 1);
                }
                module.push_str(&source);
                module_map.append(&map);
            }
            HostKind::Python => out.extend(python::extract(&source, &map)),
            _ => out.extend(
                markdown::extract(&source)
                    .sites
                    .into_iter()
                    .map(|s| remap(s, &map)),
            ),
        }
    }
    if !module.is_empty() {
        out.extend(python::extract(&module, &module_map));
    }
    out
}

/// True when a code cell parses as Python without a syntax error.
fn parses(source: &str) -> bool {
    super::parse::python(source).is_ok_and(|p| p.errors().is_empty())
}

/// What a notebook that could not be read says to do.
const UNREADABLE_ADVICE: &str =
    "Fix the notebook (open and save it in Jupyter, or resolve the merge) to have it checked.";

fn unreadable(range: Range<usize>, reason: String, advice: &str) -> Site {
    Site::NotChecked(super::NotChecked {
        range,
        reason,
        advice: advice.to_string(),
    })
}

/// The cell holding host offset `offset`: its text, its map into the notebook, and its
/// language (Python or Markdown), for the server's completion and hover.
pub fn cell_at(text: &str, offset: usize) -> Option<(String, OffsetMap, HostKind)> {
    cells(text)
        .ok()?
        .into_iter()
        .flatten()
        .find(|(_, map, _)| map.to_embedded(offset).is_some())
}

/// One cell read: its text, its map into the notebook and its language; or the host range of
/// a cell whose text cannot be mapped exactly.
type Cell = Result<(String, OffsetMap, HostKind), Range<usize>>;

/// The cells read: code cells of a Python notebook and Markdown cells, each with its text and
/// map into the notebook. `Err` with the reason (a clause: "this notebook is not …") when the
/// notebook cannot be read.
fn cells(text: &str) -> Result<Vec<Cell>, String> {
    let whole = OffsetMap::identity(0, text.len());
    let root = match json_lit::value(text, &whole) {
        Some(root) => root,
        // Python's `json` (and so nbformat) writes a float that is not finite as a bare
        // `NaN`, `Infinity` or `-Infinity` (in outputs, widget state): read as numbers of the
        // same length, every offset stays.
        None => match finite(text).and_then(|t| json_lit::value(&t, &whole)) {
            Some(root) => root,
            None => return Err(why_not_json(text)),
        },
    };
    let Some(cells) = root.get("cells").and_then(|c| match &c.value.kind {
        LitKind::Seq(items) => Some(items),
        _ => None,
    }) else {
        return Err(if root.get("worksheets").is_some() {
            "this notebook is in nbformat 3 (`worksheets`), which netbox-lsp does not read (nbformat 4 has a top-level `cells` list)".to_string()
        } else {
            "this notebook has no `cells` list (nbformat 4)".to_string()
        });
    };
    let python_kernel = kernel_language(&root).is_none_or(|l| l.eq_ignore_ascii_case("python"));
    let mut out = Vec::new();
    for cell in cells {
        let kind = match cell.get("cell_type").and_then(|t| t.value.as_str()) {
            Some(("code", _)) if python_kernel => HostKind::Python,
            Some(("markdown", _)) => HostKind::Markdown,
            _ => continue,
        };
        if let Some(source) = cell.get("source") {
            out.push(
                cell_text(&source.value)
                    .map(|(text, map)| (text, map, kind))
                    .ok_or(source.value.range.start..source.value.range.start),
            );
        }
    }
    Ok(out)
}

/// `text` with each bare `NaN`, `Infinity` and `-Infinity` outside strings replaced by a
/// number of the same length (`0  `, `0       `, `-0       `); `None` when there is none.
fn finite(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let word: &[u8] = if b[i..].starts_with(b"-Infinity") {
            b"-0       "
        } else if b[i..].starts_with(b"Infinity") {
            b"0       "
        } else if b[i..].starts_with(b"NaN") {
            b"0  "
        } else {
            i += 1;
            continue;
        };
        let ends = b
            .get(i + word.len())
            .is_none_or(|n| !n.is_ascii_alphanumeric() && *n != b'_');
        if ends {
            out.get_or_insert_with(|| b.to_vec())[i..i + word.len()].copy_from_slice(word);
        }
        i += word.len();
    }
    out.and_then(|o| String::from_utf8(o).ok())
}

/// Why `text` is not JSON, as a clause about the notebook: a merge conflict marker (the first
/// one's line), a text cut short, or serde_json's syntax error with its line and column.
fn why_not_json(text: &str) -> String {
    let conflict = text.lines().position(|l| {
        ["<<<<<<< ", ">>>>>>> ", "======="]
            .iter()
            .any(|m| l.starts_with(m) || l == m.trim_end())
    });
    if let Some(line) = conflict {
        return format!(
            "this notebook is not valid JSON (a merge conflict marker on line {})",
            line + 1
        );
    }
    let probe = finite(text);
    let probe = probe.as_deref().unwrap_or(text);
    match serde_json::from_str::<serde::de::IgnoredAny>(probe) {
        Err(e) if e.is_eof() => {
            "this notebook is not valid JSON (it ends before its JSON does: cut short?)".to_string()
        }
        Err(e) => format!(
            "this notebook is not valid JSON ({} at line {}, column {})",
            match e.classify() {
                serde_json::error::Category::Syntax => "a syntax error",
                _ => "an unreadable value",
            },
            e.line(),
            e.column()
        ),
        Ok(_) => "this notebook is not a JSON object".to_string(),
    }
}

/// `metadata.kernelspec.language` or `metadata.language_info.name`.
fn kernel_language(root: &Lit) -> Option<String> {
    let meta = &root.get("metadata")?.value;
    let from = |outer: &str, inner: &str| {
        meta.get(outer)?
            .value
            .get(inner)?
            .value
            .as_str()
            .map(|(s, _)| s.to_string())
    };
    from("kernelspec", "language").or_else(|| from("language_info", "name"))
}

/// A cell's source text and its map into the JSON file: one string, or the concatenation of a
/// list of strings (nbformat splits a cell into lines that keep their `\n`).
fn cell_text(source: &Lit) -> Option<(String, OffsetMap)> {
    let parts: Vec<&Lit> = match &source.kind {
        LitKind::Seq(items) => items.iter().collect(),
        LitKind::Str { .. } => vec![source],
        _ => return None,
    };
    let mut text = String::new();
    let mut map = OffsetMap::new();
    for p in parts {
        let (t, m) = p.exact_text()?;
        text.push_str(t);
        map.append(m);
    }
    Some((text, map))
}

/// `site` (ranges into the cell text) with every range mapped into the host through `map`.
pub(crate) fn remap(site: Site, map: &OffsetMap) -> Site {
    let r = |x: &Range<usize>| map.range_to_host(x.clone());
    match site {
        Site::Rest(c) => Site::Rest(RestCall {
            form: c.form,
            syntax: c.syntax,
            target: c.target.map(|(t, x)| (t, r(&x))),
            call_range: r(&c.call_range),
            filters_range: c.filters_range.as_ref().map(r),
            filters: c
                .filters
                .into_iter()
                .map(|mut e| {
                    e.key_range = r(&e.key_range);
                    e.value_range = r(&e.value_range);
                    e.value = remap_value(e.value, map);
                    e
                })
                .collect(),
            args: c
                .args
                .into_iter()
                .map(|mut a| {
                    a.name_range = r(&a.name_range);
                    a.value_range = r(&a.value_range);
                    a.value = remap_value(a.value, map);
                    a
                })
                .collect(),
            declared: c.declared,
        }),
        Site::Graphql(d) => Site::Graphql(GraphqlDoc {
            map: d.map.then(map),
            ..d
        }),
        Site::NotChecked(n) => Site::NotChecked(super::NotChecked {
            range: r(&n.range),
            ..n
        }),
    }
}

fn remap_value(v: Value, map: &OffsetMap) -> Value {
    match v {
        Value::List(items) => Value::List(
            items
                .into_iter()
                .map(|(v, x)| (remap_value(v, map), map.range_to_host(x)))
                .collect(),
        ),
        v => v,
    }
}

/// A notebook as its reader sees it, for the site filters (issue 31 §5): the Markdown cells'
/// text and each code cell as a fenced `python` block, in cell order, one Markdown document
/// ([`View::text`]). So a heading of a Markdown cell (`## Never use device_role`, `### Wrong`)
/// covers the code cells under it, a `**Wrong:**` line above a code cell labels it, and a
/// changelog's release section holds the cells under its heading, as in a Markdown file.
#[derive(Debug, Clone)]
pub struct View {
    /// The Markdown document.
    pub text: String,
    /// From [`View::text`] offsets to the notebook's: a cell's text maps into its JSON strings;
    /// the lines between cells and the fence lines of code cells (not in the file) map to the
    /// start of their cell's text.
    pub to_host: std::sync::Arc<OffsetMap>,
    /// The code blocks of the document, in order: the code cells and the fences and indented
    /// blocks of Markdown cells.
    pub blocks: Vec<ViewBlock>,
    /// The headings, tables and lists of the Markdown cells, in [`View::text`] offsets, in
    /// order (from each cell's one Markdown parse: a table or list ends with its cell).
    pub layout: markdown::Layout,
    /// The Markdown cells: where each starts in [`View::text`], and its text's map into the
    /// notebook.
    prose: Vec<(usize, OffsetMap)>,
}

/// One code block of a [`View`].
#[derive(Debug, Clone)]
pub struct ViewBlock {
    /// Range in [`View::text`], fence lines included.
    pub range: Range<usize>,
    /// Its code, as its language reads it (a code cell's whole text, a fence's body).
    pub code: String,
    /// From `code` offsets to the notebook's.
    pub map: OffsetMap,
    /// Host range of its code (from its first byte's to its last byte's end).
    host: Range<usize>,
}

impl View {
    /// The view of notebook `text`; `None` when the notebook cannot be read (see [`extract`]).
    /// Cells whose text cannot be mapped exactly are left out, as they are from extraction.
    pub fn of(text: &str) -> Option<View> {
        let mut out = String::new();
        let mut to_host = OffsetMap::new();
        let mut blocks = Vec::new();
        let mut prose = Vec::new();
        let mut layout = markdown::Layout::default();
        for (source, map, kind) in cells(text).ok()?.into_iter().flatten() {
            let anchor = map.to_host(0);
            let synthetic = |out: &mut String, to_host: &mut OffsetMap, s: &str| {
                out.push_str(s);
                to_host.push(anchor, s.len());
            };
            let start = out.len();
            if kind == HostKind::Python {
                // A fence longer than any backtick run of the code, so the code cannot close it.
                let run = longest_run(&source, '`').max(2) + 1;
                let fence = "`".repeat(run);
                synthetic(&mut out, &mut to_host, &format!("{fence}python\n"));
                out.push_str(&source);
                to_host.append(&map);
                let close = if source.ends_with('\n') || source.is_empty() {
                    format!("{fence}\n\n")
                } else {
                    format!("\n{fence}\n\n")
                };
                let end = out.len() + close.len() - 1;
                synthetic(&mut out, &mut to_host, &close);
                blocks.push(ViewBlock {
                    range: start..end,
                    host: map.to_host(0)..map.to_host_end(source.len()),
                    code: source,
                    map,
                });
            } else {
                // A Markdown cell is rendered alone: a fence it leaves open ends with it.
                let parsed = markdown::parse(&source);
                let units = parsed.units;
                layout.append(parsed.layout, start);
                let open = open_fence(&source, &units);
                for u in units {
                    if u.kind == markdown::UnitKind::Span {
                        continue;
                    }
                    let map = u.map.then(&map);
                    blocks.push(ViewBlock {
                        range: start + u.range.start..start + u.range.end,
                        host: map.to_host(0)..map.to_host_end(u.body.len()),
                        code: u.body,
                        map,
                    });
                }
                out.push_str(&source);
                to_host.append(&map);
                prose.push((start, map));
                let sep = match open {
                    Some(fence) => format!("\n{fence}\n\n"),
                    None => "\n\n".to_string(),
                };
                synthetic(&mut out, &mut to_host, &sep);
            }
        }
        Some(View {
            text: out,
            to_host: std::sync::Arc::new(to_host),
            blocks,
            layout,
            prose,
        })
    }

    /// The code block holding host offset `at` (a code cell's, or a Markdown cell's fence).
    pub fn block_at(&self, at: usize) -> Option<&ViewBlock> {
        // Blocks are in host order (cells in file order, a cell's blocks in its order).
        let i = self.blocks.partition_point(|b| b.host.start <= at);
        let b = self.blocks.get(i.checked_sub(1)?)?;
        (at <= b.host.end && b.map.to_embedded(at).is_some()).then_some(b)
    }

    /// The range in [`View::text`] of host range `r` of a Markdown cell's text (prose); `None`
    /// when `r` is in no Markdown cell.
    pub fn prose_range(&self, r: &Range<usize>) -> Option<Range<usize>> {
        self.prose.iter().find_map(|(start, map)| {
            let s = map.to_embedded(r.start)?;
            let e = map.to_embedded(r.end).unwrap_or(s).max(s);
            Some(start + s..start + e)
        })
    }
}

/// The fence that closes the code block a Markdown cell's text `source` leaves open at its end
/// (its `units`), if it does: its opening run of backticks or tildes.
fn open_fence(source: &str, units: &[markdown::Unit]) -> Option<String> {
    let u = units.iter().rfind(|u| u.kind != markdown::UnitKind::Span)?;
    if !matches!(u.kind, markdown::UnitKind::Fence(_)) || source[u.range.end..].trim() != "" {
        return None;
    }
    let block = &source[u.range.clone()];
    let first = block.lines().next()?.trim_start();
    let c = first.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let fence: String = first.chars().take_while(|&x| x == c).collect();
    let closed = block.lines().count() > 1
        && block.lines().last().is_some_and(|l| {
            let l = l.trim();
            l.len() >= fence.len() && l.chars().all(|x| x == c)
        });
    (!closed).then_some(fence)
}

/// The length of the longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for ch in s.chars() {
        cur = if ch == c { cur + 1 } else { 0 };
        best = best.max(cur);
    }
    best
}
