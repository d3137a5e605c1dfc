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
use super::{json, markdown, python, GraphqlDoc, HostKind, OffsetMap, RestCall, Site, Value};

/// Sites found in the notebook `text` (host byte ranges). Not JSON, or no `cells`: nothing.
/// The code cells share one module scope, in order, as the kernel runs them: the cells that
/// parse are read as one module (a name bound in one cell is read in the next); a cell with a
/// syntax error (an IPython magic, half-typed code) is read alone.
pub fn extract(text: &str) -> Vec<Site> {
    let mut out = Vec::new();
    let mut module = String::new();
    let mut module_map = OffsetMap::new();
    for (source, map, kind) in cells(text) {
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

/// The cell holding host offset `offset`: its text, its map into the notebook, and its
/// language (Python or Markdown), for the server's completion and hover.
pub fn cell_at(text: &str, offset: usize) -> Option<(String, OffsetMap, HostKind)> {
    cells(text)
        .into_iter()
        .find(|(_, map, _)| map.to_embedded(offset).is_some())
}

/// The cells read: code cells of a Python notebook and Markdown cells, each with its text and
/// map into the notebook.
fn cells(text: &str) -> Vec<(String, OffsetMap, HostKind)> {
    let Some(root) = json::value(text, &OffsetMap::identity(0, text.len())) else {
        return Vec::new();
    };
    let Some(cells) = root.get("cells").and_then(|c| match &c.value.kind {
        LitKind::Seq(items) => Some(items),
        _ => None,
    }) else {
        return Vec::new();
    };
    let python_kernel = kernel_language(&root).is_none_or(|l| l.eq_ignore_ascii_case("python"));
    let mut out = Vec::new();
    for cell in cells {
        let kind = match cell.get("cell_type").and_then(|t| t.value.as_str()) {
            Some(("code", _)) if python_kernel => HostKind::Python,
            Some(("markdown", _)) => HostKind::Markdown,
            _ => continue,
        };
        if let Some((source, map)) = cell.get("source").and_then(|s| cell_text(&s.value)) {
            out.push((source, map, kind));
        }
    }
    out
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
