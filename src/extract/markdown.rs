//! Extraction from Markdown (SKILL.md files, prompts): fenced code blocks by language (see
//! [`Code::of_fence`]: ```python / ```py / ```py3 / ```pycon, ```json / ```jsonl, ```yaml,
//! ```graphql / ```gql, shell and Jinja fences; `{.python}` and `python:file.py` info strings;
//! an unlabelled fence is read as JSON when it starts with `{` or `[`, else as Python), also
//! inside list items and block quotes, indented code blocks that mention `netbox` or `nb.` (read
//! like an unlabelled fence), inline code spans that read as a call, and REST URLs anywhere in
//! the text. Which spans are code and in which language is decided here once ([`units`],
//! [`Code::of`]): the checker reads every unit so, and the server's completion and hover read
//! the unit under the cursor so (`extract::unit`).
//!
//! The document structure comes from pulldown-cmark (CommonMark with GFM tables and YAML front
//! matter), which reads skill files at hundreds of MB/s; tree-sitter-md took 35 ms for the
//! block structure alone of a 5,000-line skill file. A code block's content arrives as text
//! events whose source ranges already leave out container prefixes (`> `, list indentation) and
//! the fence lines; the fence text gets a piecewise [`OffsetMap`] back to the host from them.
//! YAML front matter at the top is metadata, not a tool call: skipped.

use std::collections::HashSet;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::{json, python, text, yaml, Extraction, GraphqlDoc, OffsetMap, Site};

/// Largest Markdown host parsed structurally (bytes). Every fence costs a parse of its
/// language, so larger files (generated dumps, not skill files) only get the linear URL scan
/// and one file can never stall `check` or the server. 32 MiB: a 20 MB skill file is checked
/// in full (issue 13).
pub const MAX_MARKDOWN: usize = 32 * 1024 * 1024;

/// Everything found in the Markdown host `text` (ranges are host byte offsets).
pub fn extract(text: &str) -> Extraction {
    let units = units(text);
    let sites = units.iter().map(unit_sites).collect();
    assemble(text, &units, sites)
}

/// The [`Extraction`] of `text` from its `units` and the sites of each (`sites[i]` belongs to
/// `units[i]`), plus the REST URLs of the whole text that no unit already found.
fn assemble(text: &str, units: &[Unit], sites: Vec<Vec<Site>>) -> Extraction {
    let mut ex = Extraction::default();
    let mut seen = HashSet::new();
    for (unit, found) in units.iter().zip(sites) {
        if unit.is_block(!found.is_empty()) {
            ex.blocks.push(unit.range.clone());
        }
        for site in found {
            push_unique(&mut ex.sites, &mut seen, site);
        }
    }
    let urls = text::extract(text, &OffsetMap::identity(0, text.len()));
    for site in urls {
        push_scanned(&mut ex.sites, &mut seen, site);
    }
    let blocks: Vec<Range<usize>> = units
        .iter()
        .filter(|u| u.kind != UnitKind::Span)
        .map(|u| u.range.clone())
        .collect();
    for site in text::filter_snippets(text, &blocks) {
        push_unique(&mut ex.sites, &mut seen, site);
    }
    ex
}

/// Identity of a site for de-duplication: a URL inside a Python string is found both by the
/// fence's extractor and by the host-wide URL scan.
#[derive(Hash, PartialEq, Eq)]
enum SiteKey {
    Rest(usize, usize, bool),
    /// Where a URL call starts.
    UrlStart(usize),
    Graphql(usize, usize),
    NotChecked(usize),
}

/// What a [`Unit`] is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UnitKind {
    /// A fenced code block; the lowercased first word of its info string (`""` when none).
    Fence(String),
    /// An indented code block that mentions `netbox` or `nb.`.
    Indented,
    /// An inline code span (also in a table cell) that reads as a one-line call.
    Span,
}

/// One piece of a Markdown host read on its own: a code block or an inline code span. Units
/// never overlap, and each one's sites depend on nothing but its `kind`, `body` and `map`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub kind: UnitKind,
    /// Host byte range: the whole block (fence lines included, from the fence marker or the
    /// first code character) or the whole span (backticks included).
    pub range: Range<usize>,
    /// The code as its language reads it: container prefixes (`> `, list indentation) and
    /// fence lines removed; a span's text between its backtick runs, spaces kept.
    pub body: String,
    /// Maps byte offsets in `body` to host byte offsets.
    pub map: OffsetMap,
    /// For a fence: the one endpoint path (text and host range) the paragraph right before it
    /// names (`Query `/api/dcim/devices/` with:`), where a bare `params = {...}` in the block
    /// goes ([`python::bare_params`]).
    pub above: Option<(super::CompactString, Range<usize>)>,
}

impl Unit {
    /// Whether the unit is a block that a suppression comment right before it covers (see
    /// `Extraction::blocks`): every fence, and an indented block only when it holds calls
    /// (`has_sites`; most are shell or output).
    pub fn is_block(&self, has_sites: bool) -> bool {
        match self.kind {
            UnitKind::Fence(_) => true,
            UnitKind::Indented => has_sites,
            UnitKind::Span => false,
        }
    }
}

/// One heading of a Markdown host as CommonMark reads it: ATX (`## Wrong`) or setext (`Wrong`
/// underlined with `===` or `---`), also in a list item or block quote; none in code blocks or
/// front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// 1 to 6 (setext: `===` is 1, `---` is 2).
    pub level: u8,
    /// Host byte range of the whole heading: its `#`s, or its text and underline lines.
    pub range: Range<usize>,
    /// Host byte range of its text, without `#`s, underline or the spaces around (empty, at
    /// the heading's start, for a heading with no text).
    pub text: Range<usize>,
}

/// One GFM table of a Markdown host as pulldown-cmark reads it: a header row, a delimiter row
/// with as many cells, and the body rows up to a blank line or another block; also in a list
/// item or block quote; none in code blocks or front matter. A pipe splits a cell even inside a
/// code span unless escaped (`\|`), as GitHub renders it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Host byte range from the header row's first byte to the last row's end.
    pub range: Range<usize>,
    /// Host byte ranges of the header's cells, without the pipes and the spaces around.
    pub head: Vec<Range<usize>>,
    /// The body rows, in order (the delimiter row is none).
    pub rows: Vec<Row>,
}

/// One body row of a [`Table`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Host byte range of the row, from its first byte after any container prefix (`> `, list
    /// indentation) to its line end (included).
    pub range: Range<usize>,
    /// Host byte ranges of its cells, without the pipes and the spaces around; at most as many
    /// as the header has (GFM drops the excess).
    pub cells: Vec<Range<usize>>,
}

/// One list of a Markdown host that no other list holds, as CommonMark reads it (items marked
/// `-`, `*`, `+`, `1.` or `1)`; an ordered list interrupts a paragraph only when it starts at
/// 1), with every item in it, those of the lists nested in its items included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    /// Host byte range from its first item's marker to its last item's end.
    pub range: Range<usize>,
    /// Host byte range of every item in it, nested ones too, in document order: from the
    /// item's marker to its end.
    pub items: Vec<Range<usize>>,
}

/// The prose structure of a Markdown host that the intent stage reads around a piece: its
/// headings, tables and lists, each in document order.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub headings: Vec<Heading>,
    pub tables: Vec<Table>,
    pub lists: Vec<List>,
}

impl Layout {
    /// Adds `other`, the layout of a text that starts at byte `at` of this one's, with its
    /// ranges moved by `at` (a notebook's Markdown cells read as one document).
    pub fn append(&mut self, other: Layout, at: usize) {
        let mv = |r: &Range<usize>| r.start + at..r.end + at;
        self.headings
            .extend(other.headings.into_iter().map(|h| Heading {
                range: mv(&h.range),
                text: mv(&h.text),
                ..h
            }));
        self.tables.extend(other.tables.into_iter().map(|t| {
            Table {
                range: mv(&t.range),
                head: t.head.iter().map(mv).collect(),
                rows: t
                    .rows
                    .iter()
                    .map(|r| Row {
                        range: mv(&r.range),
                        cells: r.cells.iter().map(mv).collect(),
                    })
                    .collect(),
            }
        }));
        self.lists.extend(other.lists.into_iter().map(|l| List {
            range: mv(&l.range),
            items: l.items.iter().map(mv).collect(),
        }));
    }
}

/// What the one pulldown-cmark pass over a Markdown host finds: its [`Unit`]s, its
/// [`Layout`] (headings, tables, lists) and its YAML front matter, each in document order.
/// Empty when the text is larger than [`MAX_MARKDOWN`].
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub units: Vec<Unit>,
    pub layout: Layout,
    /// Host byte range of the YAML front matter at the top (its `---` lines included), when
    /// there is one: metadata, neither code nor prose.
    pub front_matter: Option<Range<usize>>,
}

/// The units of the Markdown host `text` in document order ([`parse`]'s).
pub fn units(text: &str) -> Vec<Unit> {
    parse(text).units
}

/// The units, layout and front matter of the Markdown host `text` ([`Parsed`]). Cheap (one
/// pulldown-cmark pass): no code is parsed here.
pub fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    if text.len() > MAX_MARKDOWN {
        return parsed;
    }
    let out = &mut parsed.units;
    // A carriage return not followed by a line feed ends a line (CommonMark §2.1), but
    // pulldown-cmark 0.13 reads it as no line end (pulldown-cmark#1106): a file with CR-only
    // line ends had no fence, so its code was silently not checked. It is read as a line feed,
    // which has the same length: every offset stays that of `text`.
    let lf;
    let text = if has_lone_cr(text) {
        lf = lone_cr_as_lf(text);
        lf.as_str()
    } else {
        text
    };
    // A byte-order mark is not text: the first line (a fence, front matter) starts after it.
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let base = bom + front_matter_end(&text[bom..]);
    if base > bom {
        parsed.front_matter = Some(bom..base);
    }
    let mut block: Option<Unit> = None;
    // The heading being read: its level, whole range and the range of what is inside it.
    let mut heading: Option<(u8, Range<usize>, Option<Range<usize>>)> = None;
    // The table being read, and the cells of its row (the header's first).
    let mut table: Option<Table> = None;
    let mut cells: Vec<Range<usize>> = Vec::new();
    // How many lists hold the event (the outermost is the last of `parsed.layout.lists`).
    let mut lists = 0usize;
    let events = Parser::new_ext(&text[base..], Options::ENABLE_TABLES).into_offset_iter();
    for (event, r) in events {
        let r = r.start + base..r.end + base;
        match (&event, heading.as_mut()) {
            (Event::Start(Tag::Heading { level, .. }), _) => {
                heading = Some((*level as u8, r.clone(), None));
            }
            (Event::End(TagEnd::Heading(_)), Some((level, range, inner))) => {
                let text = inner.take().unwrap_or(range.start..range.start);
                parsed.layout.headings.push(Heading {
                    level: *level,
                    range: range.clone(),
                    text,
                });
                heading = None;
            }
            (_, Some((_, _, inner))) => {
                *inner = Some(match inner.take() {
                    Some(i) => i.start.min(r.start)..i.end.max(r.end),
                    None => r.clone(),
                });
            }
            _ => {}
        }
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let kind = match kind {
                    CodeBlockKind::Fenced(info) => UnitKind::Fence(fence_language(&info)),
                    CodeBlockKind::Indented => UnitKind::Indented,
                };
                let above = match kind {
                    UnitKind::Fence(_) => endpoint_above(text, base, r.start),
                    _ => None,
                };
                block = Some(Unit {
                    kind,
                    range: r,
                    body: String::new(),
                    map: OffsetMap::new(),
                    above,
                });
            }
            Event::Text(s) => {
                if let Some(b) = block.as_mut() {
                    // The event's text is the source slice except where a tab was expanded
                    // to spaces (then it maps to where the tab's remainder begins).
                    b.body.push_str(&s);
                    b.map.push(r.start, s.len());
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                out.extend(block.take().filter(|b| {
                    b.kind != UnitKind::Indented
                        || b.body.contains("netbox")
                        || b.body.contains("nb.")
                }));
            }
            Event::Code(_) => out.extend(code_span(text, r)),
            Event::Start(Tag::Table(_)) => {
                table = Some(Table {
                    range: r,
                    head: Vec::new(),
                    rows: Vec::new(),
                })
            }
            Event::End(TagEnd::TableCell) => cells.push(trimmed(text, r)),
            Event::End(TagEnd::TableHead) => {
                if let Some(t) = table.as_mut() {
                    t.head = std::mem::take(&mut cells);
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let Some(t) = table.as_mut() {
                    t.rows.push(Row {
                        range: r,
                        cells: std::mem::take(&mut cells),
                    });
                }
            }
            Event::End(TagEnd::Table) => parsed.layout.tables.extend(table.take()),
            Event::Start(Tag::List(_)) => {
                if lists == 0 {
                    parsed.layout.lists.push(List {
                        range: r,
                        items: Vec::new(),
                    });
                }
                lists += 1;
            }
            Event::End(TagEnd::List(_)) => lists = lists.saturating_sub(1),
            Event::Start(Tag::Item) => {
                if let Some(list) = parsed.layout.lists.last_mut() {
                    list.items.push(r);
                }
            }
            _ => {}
        }
    }
    parsed
}

/// Host range `r` of `text` without the spaces and tabs at its ends (empty, at its start, when
/// it is all blank).
fn trimmed(text: &str, r: Range<usize>) -> Range<usize> {
    let Some(s) = text.get(r.clone()) else {
        return r.start..r.start;
    };
    let inner = s.trim_start_matches([' ', '\t']);
    let start = r.start + (s.len() - inner.len());
    start..start + inner.trim_end_matches([' ', '\t']).len()
}

/// True when `text` holds a carriage return not followed by a line feed.
fn has_lone_cr(text: &str) -> bool {
    memchr::memchr_iter(b'\r', text.as_bytes()).any(|i| text.as_bytes().get(i + 1) != Some(&b'\n'))
}

/// `text` with each carriage return not followed by a line feed replaced by a line feed (one
/// byte for one: the offsets stay).
fn lone_cr_as_lf(text: &str) -> String {
    let b = text.as_bytes();
    let out: Vec<u8> = b
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if c == b'\r' && b.get(i + 1) != Some(&b'\n') {
                b'\n'
            } else {
                c
            }
        })
        .collect();
    // Only an ASCII byte was replaced by another: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// The language a fence's info string names, lowercased: its first word, also in the
/// `python:example.py` (file name after it) and `{python}` / `{.python}` (Pandoc, Quarto) forms.
fn fence_language(info: &str) -> String {
    let word = info.trim_start().trim_start_matches(['{', '.']);
    word.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The language a unit's code is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Python,
    Json,
    Yaml,
    Graphql,
    /// Shell commands: curl `-G` calls.
    Shell,
    /// Jinja templates: Ansible `nb_lookup` calls.
    Jinja,
    /// A fence in a language no extractor reads (only the host-wide URL scan sees it).
    Other,
}

impl Code {
    /// The language of `unit`: a fence's by its info string, indented code and unlabelled
    /// fences by their first character, inline code as Python.
    pub fn of(unit: &Unit) -> Code {
        match &unit.kind {
            UnitKind::Fence(lang) => Code::of_fence(lang, &unit.body),
            UnitKind::Indented => Code::unlabelled(&unit.body),
            UnitKind::Span => Code::Python,
        }
    }

    /// The language of a fence whose info string names `lang` (lowercased first word, see
    /// [`fence_language`]) and whose code is `body`.
    pub fn of_fence(lang: &str, body: &str) -> Code {
        match lang {
            "python" | "py" | "python3" | "py3" | "ipython" | "pycon" => Code::Python,
            "json" | "jsonc" | "json5" | "jsonl" => Code::Json,
            "yaml" | "yml" => Code::Yaml,
            "bash" | "sh" | "shell" | "console" | "zsh" | "shell-session" | "terminal" => {
                Code::Shell
            }
            "jinja" | "jinja2" | "j2" => Code::Jinja,
            // A fence of a query's variables (`{"deviceName": "leaf1"}`), often labelled as
            // the query is, holds no document.
            "graphql" | "gql" if is_json_object(body) => Code::Other,
            "graphql" | "gql" => Code::Graphql,
            "" => Code::unlabelled(body),
            _ => Code::Other,
        }
    }

    /// Code without a language: a GraphQL document when it is one without a syntax error and
    /// is no JSON (NetBox's own docs write queries in bare fences: `query { site_list(...) }`),
    /// else JSON when it starts with `{` or `[`, else Python.
    fn unlabelled(body: &str) -> Code {
        let t = body.trim_start();
        let json_like = t.starts_with('{') || t.starts_with('[');
        let graphql_like = t.starts_with('{')
            || ["query", "mutation", "subscription", "fragment"]
                .iter()
                .any(|k| {
                    t.strip_prefix(k)
                        .is_some_and(|r| r.starts_with([' ', '\t', '\n', '\r', '{', '(']))
                });
        if graphql_like && !is_json_object(t) && is_graphql(t) {
            Code::Graphql
        } else if json_like {
            Code::Json
        } else {
            Code::Python
        }
    }
}

/// True when `body` is one JSON object.
fn is_json_object(body: &str) -> bool {
    body.trim_start().starts_with('{')
        && serde_json::from_str::<serde_json::Value>(body).is_ok_and(|v| v.is_object())
}

/// True when `body` parses as a GraphQL executable document without a syntax error (apollo-parser,
/// whose recursion limit bounds the work on deep input).
pub(crate) fn is_graphql(body: &str) -> bool {
    let cst = apollo_parser::Parser::new(body).parse();
    cst.errors().len() == 0
        && cst.document().definitions().all(|d| {
            matches!(
                d,
                apollo_parser::cst::Definition::OperationDefinition(_)
                    | apollo_parser::cst::Definition::FragmentDefinition(_)
            )
        })
        && cst.document().definitions().next().is_some()
}

/// The sites of one unit (host ranges). Never panics; an empty fence gives none.
pub fn unit_sites(unit: &Unit) -> Vec<Site> {
    if unit.body.trim().is_empty() {
        return Vec::new();
    }
    let (body, map) = (&unit.body, &unit.map);
    let code = Code::of(unit);
    let mut sites = match code {
        Code::Python => python::extract_calls(body, map),
        Code::Json => json::extract_calls(body, map),
        Code::Yaml => yaml::extract_calls(body, map),
        // curl, wget and httpie commands. A command call starts where the host-wide URL
        // scan's site for the same URL starts, which is dropped as a duplicate.
        Code::Shell => super::commands::extract(body, map),
        Code::Jinja => super::ansible::lookups(body, map),
        Code::Graphql => vec![Site::Graphql(GraphqlDoc {
            text: body.to_string(),
            map: map.clone(),
            variables: None,
            holes: Vec::new(),
            found: super::DocFound::Carried,
        })],
        Code::Other => Vec::new(),
    };
    // Issue 19 §4: a bare `params = {...}` in a Python fence no call reads goes to the one
    // endpoint the fence or the paragraph above it names.
    if matches!(unit.kind, UnitKind::Fence(_)) && matches!(code, Code::Python) {
        let bare = python::bare_params(body, map, &sites, unit.above.as_ref());
        sites.extend(bare);
    }
    sites
}

/// Longest paragraph before a fence searched for its endpoint (bytes).
const ABOVE_MAX: usize = 2048;

/// The one endpoint path the paragraph right before the fence at host offset `at` names (no
/// blank line between), from the URL scan; `None` when it names none or several, or the fence
/// starts the text (after `base`, the front matter).
fn endpoint_above(
    text: &str,
    base: usize,
    at: usize,
) -> Option<(super::CompactString, Range<usize>)> {
    let before = text.get(base..at)?.trim_end_matches([' ', '\t']);
    let before = before.strip_suffix('\n').unwrap_or(before);
    // Only the last ABOVE_MAX bytes are read (one byte more, for a blank line across the
    // window's start): searching the whole text before every fence was quadratic in fences
    // without a blank line between them (issue 34).
    let window = before.len().saturating_sub(ABOVE_MAX + 1);
    let mut start = before.as_bytes()[window..]
        .windows(2)
        .rposition(|w| w == b"\n\n")
        .map_or(0, |i| window + i + 2)
        .max(before.len().saturating_sub(ABOVE_MAX));
    while !before.is_char_boundary(start) {
        start += 1;
    }
    let para = &before[start..];
    if para.trim().is_empty() || para.contains("```") || para.contains("~~~") {
        return None;
    }
    let from = base + start;
    match text::endpoints(para, &OffsetMap::identity(from, para.len())).as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The sites of one unit as the whole document's extraction has them there: [`unit_sites`]
/// and the REST URLs of the unit's code (the host-wide URL scan's, which no unit's extractor
/// finds twice).
pub fn unit_sites_with_urls(unit: &Unit) -> Vec<Site> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for site in unit_sites(unit) {
        push_unique(&mut out, &mut seen, site);
    }
    for site in text::extract(&unit.body, &unit.map) {
        push_scanned(&mut out, &mut seen, site);
    }
    out
}

/// End of the YAML front matter (after its closing `---` or `...` line) when `text` starts with
/// one, else 0. Only the top of the file counts: pulldown-cmark's own metadata option also
/// takes a `---` block in the middle of a document, where CommonMark reads a heading. A block
/// with no `key:` line, or with a code fence, is not metadata but a thematic break and content.
fn front_matter_end(text: &str) -> usize {
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return 0;
    }
    let mut end = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut keys = false;
    for line in lines {
        end += line.len();
        let t = line.trim_end();
        if matches!(t, "---" | "...") {
            return if keys { end } else { 0 };
        }
        let trimmed = t.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            return 0;
        }
        keys |= !t.starts_with([' ', '\t', '#', '-']) && (t.ends_with(':') || t.contains(": "));
    }
    0
}

/// Adds `site` unless one at the same place is already there.
fn push_unique(sites: &mut Vec<Site>, seen: &mut HashSet<SiteKey>, site: Site) {
    let key = match &site {
        Site::Rest(c) => SiteKey::Rest(
            c.call_range.start,
            c.call_range.end,
            c.form == super::CallForm::Url,
        ),
        Site::Graphql(d) => SiteKey::Graphql(d.map.to_host(0), d.text.len()),
        Site::NotChecked(n) => SiteKey::NotChecked(n.range.start),
    };
    if let Site::Rest(c) = &site {
        if c.form == super::CallForm::Url {
            seen.insert(SiteKey::UrlStart(c.call_range.start));
        }
    }
    if seen.insert(key) {
        sites.push(site);
    }
}

/// [`push_unique`] for a site of the host-wide URL scan: a URL a unit already read as a URL
/// call starting at the same byte is that call (a shell command's URL is read as the shell
/// passes it, and may end elsewhere than the scan's: `curl …?name='x y'`).
fn push_scanned(sites: &mut Vec<Site>, seen: &mut HashSet<SiteKey>, site: Site) {
    if let Site::Rest(c) = &site {
        if seen.contains(&SiteKey::UrlStart(c.call_range.start)) {
            return;
        }
    }
    push_unique(sites, seen, site);
}

/// The unit of an inline code span (host range `r`, backticks included) when it reads as a
/// one-line call (`netbox_get_objects("dcim.site", {...})`). The body is everything between
/// the backtick runs, spaces kept, so it maps to the host verbatim.
fn code_span(text: &str, r: Range<usize>) -> Option<Unit> {
    let src = text.get(r.clone())?;
    let ticks = src.bytes().take_while(|&b| b == b'`').count();
    if ticks == 0 || src.len() < 2 * ticks || !src.ends_with(&src[..ticks]) {
        return None;
    }
    let body = &src[ticks..src.len() - ticks];
    if !looks_like_call(body) || body.contains('\n') {
        return None;
    }
    Some(Unit {
        kind: UnitKind::Span,
        map: OffsetMap::identity(r.start + ticks, body.len()),
        range: r,
        body: body.to_string(),
        above: None,
    })
}

/// `name(` or `a.b.c(` at the start, after optional spaces.
fn looks_like_call(s: &str) -> bool {
    let t = s.trim_start();
    let head = t.find('(').map(|i| &t[..i]).unwrap_or("");
    !head.is_empty()
        && head
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}
