//! The one entry point both `check` and the language server call: a host document in, findings
//! out (sorted by position, suppressions applied).
//!
//! A Markdown host is read as independent units (code blocks and code spans, see
//! [`markdown::units`]): their code is extracted and checked in parallel (rayon), and a
//! [`UnitCache`] lets a re-analysis of an edited document reuse the findings of every unit
//! whose code did not change.

use crate::extract::markdown::{self, Unit, UnitKind};
use crate::extract::{self, CallForm, HostKind, OffsetMap, Site, Syntax};
use crate::finding::Finding;
use crate::graphql::{self, NetboxSchema};
use crate::index::FilterIndex;
use crate::suppress;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// The knowledge a document is checked against: the filter index and GraphQL schema of one
/// NetBox version. Either may be missing; checks that need it then say nothing (fail open).
#[derive(Debug, Clone, Default)]
pub struct Knowledge {
    pub index: Option<Arc<FilterIndex>>,
    pub graphql: Option<Arc<NetboxSchema>>,
    /// The NetBox release the user asked for when the knowledge is a shipped release standing in
    /// for it (`4.7.3` checked with 4.6.8, see [`crate::index::embedded::select`]): errors that
    /// the other release may not have ([`crate::catalogue::Code::may_differ`]) become warnings.
    pub approximate: Option<String>,
    /// A shipped release (one of [`graphql::embedded::SCHEMAS`]) whose embedded GraphQL schema
    /// stands in when `graphql` is `None`, built on the first GraphQL document checked: `check`
    /// of REST-only files never builds it (about half of a small check's time). The language
    /// server sets `graphql` itself (built in the background).
    pub graphql_embedded: Option<&'static str>,
}

impl Knowledge {
    /// The GraphQL schema: `graphql`, else the embedded schema named by `graphql_embedded`
    /// (built once per process on the first call); `None` when neither is given.
    pub fn schema(&self) -> Option<Arc<NetboxSchema>> {
        match &self.graphql {
            Some(s) => Some(s.clone()),
            None => self.graphql_embedded.and_then(graphql::embedded_schema),
        }
    }

    /// True when both hold the very same index and schema (pointer identity, not contents).
    fn same(&self, other: &Knowledge) -> bool {
        fn eq<T>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
        }
        eq(&self.index, &other.index)
            && eq(&self.graphql, &other.graphql)
            && self.approximate == other.approximate
            && self.graphql_embedded == other.graphql_embedded
    }
}

/// Checks `text`, a host document of kind `kind`. Findings carry host byte ranges, are sorted by
/// start offset, and exclude those suppressed by `netbox-lsp: ignore` comments. Never panics on
/// user input.
pub fn analyze(text: &str, kind: HostKind, knowledge: &Knowledge) -> Vec<Finding> {
    analyze_with(text, kind, knowledge, None).0
}

/// What an analysis found to check: so that "0 errors" cannot hide "nothing read".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    /// NetBox REST calls (tool calls, pynetbox calls, URLs with or without a query string).
    pub rest_calls: usize,
    /// GraphQL documents.
    pub graphql_documents: usize,
}

/// [`analyze`], also saying how many REST calls and GraphQL documents the text holds (from the
/// same extraction: nothing is read twice).
pub fn analyze_counted(text: &str, kind: HostKind, knowledge: &Knowledge) -> (Vec<Finding>, Found) {
    analyze_with(text, kind, knowledge, None)
}

/// [`analyze`], reusing from `cache` the findings of Markdown units analysed before with the
/// same knowledge, and leaving in it the units of `text` (only those: the cache holds one
/// document's worth). The result is the same as [`analyze`]'s.
pub fn analyze_cached(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    cache: &mut UnitCache,
) -> Vec<Finding> {
    analyze_with(text, kind, knowledge, Some(cache)).0
}

/// Call forms a document's text rules out as NetBox calls: another product or client whose
/// calls look like NetBox's and mean something else there.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Foreign {
    /// The text names Nautobot (a NetBox fork with the same REST paths, other filters and
    /// another GraphQL schema) and never NetBox: its URLs and GraphQL documents are Nautobot's.
    nautobot: bool,
    /// The text imports another client with pynetbox-like chains and never names pynetbox: its
    /// `nb.<app>.<endpoint>.get(...)` chains are that client's. netbox3 and its successor
    /// nbforager (`from netbox3 import NbApi`; their `api/extended_get.py`, `api/base_c.py`:
    /// `or_<filter>` lists are OR-ed by the client, `site="SITE1"` is looked up by name and sent
    /// as `site_id`, lists of a single-value filter become one request each, `nested` and
    /// `max_limit` are client arguments); pynautobot (Nautobot's filters).
    chains: bool,
}

impl Foreign {
    fn of(text: &str) -> Foreign {
        let any = |words: &[&str]| words.iter().any(|w| text.contains(w));
        Foreign {
            nautobot: any(&["nautobot", "Nautobot", "NAUTOBOT"])
                && !any(&["netbox", "NetBox", "Netbox", "NETBOX"]),
            chains: any(&[
                "from netbox3",
                "import netbox3",
                "from nbforager",
                "import nbforager",
                "from pynautobot",
                "import pynautobot",
            ]) && !text.contains("pynetbox"),
        }
    }

    /// True when `site` is a call this text rules out.
    fn rules_out(self, site: &Site) -> bool {
        match site {
            Site::Rest(c) => {
                (self.nautobot && c.form == CallForm::Url)
                    || (self.chains && c.form == CallForm::Pynetbox)
            }
            Site::Graphql(_) => self.nautobot,
        }
    }
}

/// How many leading bytes are looked at for a NUL byte by [`is_binary`].
pub const BINARY_SNIFF: usize = 8 * 1024;

/// True when `bytes` hold a NUL byte in their first [`BINARY_SNIFF`] bytes: a binary file, which
/// neither `check` (skipped with a note) nor the server (no diagnostics) reads.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0)
}

fn analyze_with(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    cache: Option<&mut UnitCache>,
) -> (Vec<Finding>, Found) {
    if is_binary(text.as_bytes()) {
        return (Vec::new(), Found::default());
    }
    // A byte-order mark (which `check` strips and most editors hide) is not code: read what
    // follows it, and report positions in the text as given.
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        let bom = text.len() - rest.len();
        let (findings, found) = analyze_with(rest, kind, knowledge, cache);
        return (
            findings.iter().map(|f| moved_finding(f, 0, bom)).collect(),
            found,
        );
    }
    let Parts {
        blocks,
        calls,
        findings,
        graphql_documents,
    } = match kind {
        HostKind::Markdown => markdown_findings(text, knowledge, cache),
        _ => {
            let mut ex = extract::extract(text, kind);
            let foreign = Foreign::of(text);
            ex.sites.retain(|s| !foreign.rules_out(s));
            let mut checked = check_sites(&ex.sites, knowledge, text, &OnceLock::new());
            if kind == HostKind::Notebook {
                // Every cell's code sits in JSON strings: fixes are written escaped.
                checked
                    .findings
                    .iter_mut()
                    .for_each(|f| escape_fixes(f, text));
            }
            Parts {
                blocks: ex.blocks,
                calls: checked.calls,
                findings: checked.findings,
                graphql_documents: checked.graphql,
            }
        }
    };
    let found = Found {
        rest_calls: calls.len(),
        graphql_documents,
    };
    let findings = crate::approx::soften(knowledge, findings);
    let findings = suppress::apply(text, kind, &blocks, findings);
    let mut findings = suppress::apply_to_calls(text, &calls, findings);
    findings.extend(not_checked(text, kind));
    findings.sort_by(|a, b| {
        (a.range.start, a.range.end, a.code).cmp(&(b.range.start, b.range.end, b.code))
    });
    findings.dedup();
    (findings, found)
}

/// The size above which extraction reads a host kind only for REST URLs (no structural parse),
/// so one huge file cannot stall `check` or the server (bytes); `None` when the kind has no limit.
pub fn structural_limit(kind: HostKind) -> Option<usize> {
    match kind {
        HostKind::Markdown => Some(markdown::MAX_MARKDOWN),
        HostKind::Python | HostKind::Yaml | HostKind::Json | HostKind::Notebook => {
            Some(extract::parse::MAX_PARSE)
        }
        HostKind::Graphql | HostKind::Text => None,
    }
}

/// `not-checked` (an error at the text's start) for a text above its kind's
/// [`structural_limit`]: only its REST URLs were read, so neither CI nor the editor may present
/// it as checked.
pub fn not_checked(text: &str, kind: HostKind) -> Option<Finding> {
    let limit = structural_limit(kind)?;
    (text.len() > limit).then(|| {
        Finding::new(
            0..0,
            "not-checked",
            crate::finding::Severity::Error,
            format!(
                "This file is larger than {} MiB ({} bytes): only the REST URLs in it were checked; tool calls, pynetbox calls and GraphQL documents were not. Split the file to have it checked.",
                limit / (1024 * 1024),
                text.len()
            ),
        )
    })
}

/// What checking some sites gave: the findings, the host ranges of the REST calls (for
/// suppression comments before a multi-line call) and of the URL-form calls (a URL found in
/// a code block is not checked again by the host-wide URL scan).
#[derive(Debug, Clone, Default)]
struct Checked {
    findings: Vec<Finding>,
    calls: Vec<Range<usize>>,
    urls: Vec<Range<usize>>,
    /// Whether there was any site at all (an indented block counts as a block only then).
    any: bool,
    /// How many GraphQL documents the sites hold.
    graphql: usize,
}

impl Checked {
    /// The same result for the same code moved from host offset `from` to `to`.
    fn moved(&self, from: usize, to: usize) -> Checked {
        let mv = |r: &Range<usize>| moved_range(r, from, to);
        Checked {
            findings: self
                .findings
                .iter()
                .map(|f| moved_finding(f, from, to))
                .collect(),
            calls: self.calls.iter().map(mv).collect(),
            urls: self.urls.iter().map(mv).collect(),
            any: self.any,
            graphql: self.graphql,
        }
    }
}

/// `f` with its range and its fixes' edits moved from host offset `from` to `to`.
fn moved_finding(f: &Finding, from: usize, to: usize) -> Finding {
    let mut f = f.clone();
    f.range = moved_range(&f.range, from, to);
    for fix in &mut f.fixes {
        for edit in &mut fix.edits {
            edit.range = moved_range(&edit.range, from, to);
        }
    }
    f
}

/// Host range `r` moved from offset `from` to `to`.
fn moved_range(r: &Range<usize>, from: usize, to: usize) -> Range<usize> {
    (r.start + to).saturating_sub(from)..(r.end + to).saturating_sub(from)
}

/// Fix texts for a call written as JSON inside a JSON string (`Syntax::JsonInString`): escaped
/// for that string, and an edit that starts at an escaped quote (`\"Active\"`) takes its
/// backslash too, so applying the fix leaves valid JSON holding valid JSON.
fn escape_fixes(f: &mut Finding, text: &str) {
    for fix in &mut f.fixes {
        for e in &mut fix.edits {
            let quoted = serde_json::to_string(&e.new_text).unwrap_or_default();
            e.new_text = quoted
                .get(1..quoted.len().saturating_sub(1))
                .unwrap_or("")
                .to_string();
            let b = text.as_bytes();
            if e.range.start > 0
                && b.get(e.range.start) == Some(&b'"')
                && b.get(e.range.start - 1) == Some(&b'\\')
            {
                e.range.start -= 1;
            }
        }
    }
}

/// True for a list path without a query string (`/api/dcim/sites/`, see
/// `extract::text`), a site with no filters that is checked only for its endpoint.
fn bare_path(site: &Site) -> Option<&std::ops::Range<usize>> {
    match site {
        Site::Rest(c)
            if c.form == CallForm::Url && c.filters.is_empty() && c.filters_range.is_none() =>
        {
            c.target.as_ref().map(|(_, r)| r)
        }
        _ => None,
    }
}

/// `urlencode`: whether `text` holds `--data-urlencode`, filled on first need and shared by
/// every call of one analysis.
fn check_sites(
    sites: &[Site],
    knowledge: &Knowledge,
    text: &str,
    urlencode: &OnceLock<bool>,
) -> Checked {
    // A bare path that is the target of another call (`requests.get(f"{NB}/api/dcim/devices/",
    // params=...)`) is that call, not a second one.
    let given = sites;
    let owned;
    let sites = if sites.iter().any(|s| bare_path(s).is_some()) {
        let targets: std::collections::HashSet<(usize, usize)> = sites
            .iter()
            .filter(|s| bare_path(s).is_none())
            .filter_map(|s| match s {
                Site::Rest(c) => c.target.as_ref().map(|(_, r)| (r.start, r.end)),
                Site::Graphql(_) => None,
            })
            .collect();
        owned = sites
            .iter()
            .filter(|s| bare_path(s).is_none_or(|r| !targets.contains(&(r.start, r.end))))
            .cloned()
            .collect::<Vec<Site>>();
        &owned[..]
    } else {
        sites
    };
    let mut out = Checked {
        any: !sites.is_empty(),
        graphql: sites
            .iter()
            .filter(|s| matches!(s, Site::Graphql(_)))
            .count(),
        ..Checked::default()
    };
    for site in sites {
        if let Site::Rest(call) = site {
            out.calls.push(call.call_range.clone());
        }
    }
    // Every URL this unit read, also a bare path dropped above: the prose scan skips them.
    for site in given {
        if let Site::Rest(call) = site {
            if call.form == CallForm::Url {
                out.urls.push(call.call_range.clone());
            }
        }
    }
    let one = |site: &Site| -> Vec<Finding> {
        match site {
            Site::Rest(call) => {
                let Some(index) = &knowledge.index else {
                    return Vec::new();
                };
                let mut found = crate::rest::check_call(call, index);
                if call.syntax == Syntax::JsonInString {
                    found.iter_mut().for_each(|f| escape_fixes(f, text));
                }
                // `--data-urlencode` is looked for once per text, and only when a fix
                // could break one (a look per call is quadratic in a large skill file).
                if call.form == CallForm::Url
                    && extract::curl::may_break_urlencode(&found)
                    && *urlencode.get_or_init(|| text.contains("--data-urlencode"))
                {
                    extract::curl::guard_fixes_in(text, call, &mut found);
                }
                found
            }
            Site::Graphql(doc) => match knowledge.schema() {
                Some(schema) => graphql::check_document(doc, &schema),
                None => Vec::new(),
            },
        }
    };
    // A file of thousands of calls (one `.py` of tool calls) is checked on all cores, in
    // chunks so that each task amortises rayon's hand-off; findings keep the sites' order.
    if sites.len() >= PARALLEL_SITES {
        let parts: Vec<Vec<Finding>> = sites
            .par_chunks(PARALLEL_SITES / 2)
            .map(|chunk| chunk.iter().flat_map(one).collect())
            .collect();
        out.findings = parts.into_iter().flatten().collect();
    } else {
        out.findings = sites.iter().flat_map(one).collect();
    }
    out
}

/// From this many sites on, [`check_sites`] checks them in parallel.
const PARALLEL_SITES: usize = 64;

/// Identity of a unit's code: equal keys give equal findings up to a shift of host offsets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct UnitKey {
    kind: UnitKind,
    body: String,
    /// The unit's map relative to the start of its range.
    map: OffsetMap,
    /// The endpoint named above a fence, with its distance back from the unit's start and its
    /// length: the unit's sites read it.
    above: Option<(String, usize, usize)>,
}

impl UnitKey {
    fn of(unit: &Unit) -> UnitKey {
        UnitKey {
            kind: unit.kind.clone(),
            body: unit.body.clone(),
            map: unit.map.relative_to(unit.range.start),
            above: unit
                .above
                .as_ref()
                .map(|(t, r)| (t.clone(), unit.range.start.saturating_sub(r.start), r.len())),
        }
    }
}

/// Findings of the Markdown units of one document from its last analysis, keyed by the units'
/// code. Filled and pruned by [`analyze_cached`]; emptied when the knowledge changes or the
/// document's [`Foreign`] forms change (it starts or stops being about Nautobot alone, say).
#[derive(Debug, Default)]
pub struct UnitCache {
    knowledge: Knowledge,
    /// The forms the document ruled out when the entries were made: the entries hold for
    /// one answer.
    foreign: Foreign,
    /// Each unit's result and the host offset its unit started at.
    entries: HashMap<UnitKey, (usize, Checked)>,
}

impl UnitCache {
    /// Number of units held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no unit is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Fewer units than this are read on the calling thread: waking the pool costs more.
const PARALLEL_FROM: usize = 8;

/// Shorter texts (bytes) get their two whole-text passes on the calling thread.
const PARALLEL_TEXT: usize = 32 * 1024;

fn markdown_findings(
    text: &str,
    knowledge: &Knowledge,
    mut cache: Option<&mut UnitCache>,
) -> Parts {
    // In a document about Nautobot alone, URLs (with or without a query) are Nautobot's; in one
    // using the netbox3 client, pynetbox-like chains are netbox3's (see `Foreign`).
    let foreign = Foreign::of(text);
    if let Some(c) = cache.as_deref_mut() {
        if !c.knowledge.same(knowledge) || c.foreign != foreign {
            c.entries.clear();
            c.knowledge = knowledge.clone();
            c.foreign = foreign;
        }
    }
    let sites_of = |unit: &Unit| -> Vec<Site> {
        let mut sites = markdown::unit_sites(unit);
        sites.retain(|s| !foreign.rules_out(s));
        sites
    };
    // The two linear passes over the whole text, side by side when it is long.
    let units_of = || markdown::units(text);
    let urls_of = || extract::text::extract(text, &OffsetMap::identity(0, text.len()));
    let (units, prose) = if text.len() >= PARALLEL_TEXT {
        rayon::join(units_of, urls_of)
    } else {
        (units_of(), urls_of())
    };
    // Filter snippets without an endpoint in inline code (issue 8 §7), outside code blocks.
    let code: Vec<std::ops::Range<usize>> = units
        .iter()
        .filter(|u| u.kind != markdown::UnitKind::Span)
        .map(|u| u.range.clone())
        .collect();
    let urlencode = OnceLock::new();
    let entries = cache.as_deref().map(|c| &c.entries);
    // A unit's key (a copy of its code) is made only when there is a cache to consult and fill.
    let one = |unit: &Unit| -> (Option<UnitKey>, Checked) {
        let Some(entries) = entries else {
            return (
                None,
                check_sites(&sites_of(unit), knowledge, text, &urlencode),
            );
        };
        let key = UnitKey::of(unit);
        let done = match entries.get(&key) {
            Some((start, done)) => done.moved(*start, unit.range.start),
            None => check_sites(&sites_of(unit), knowledge, text, &urlencode),
        };
        (Some(key), done)
    };
    // Units of one language are read together: each grammar's parse tables stay in the CPU
    // caches (interleaved, the four grammars evict each other). Results return to unit order.
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by_key(|&i| match &units[i].kind {
        UnitKind::Fence(lang) => (0, lang.as_str()),
        UnitKind::Indented => (1, ""),
        UnitKind::Span => (2, ""),
    });
    let checked = || -> Vec<(Option<UnitKey>, Checked)> {
        if units.len() >= PARALLEL_FROM {
            order.par_iter().map(|&i| one(&units[i])).collect()
        } else {
            order.iter().map(|&i| one(&units[i])).collect()
        }
    };
    // The inline filter snippets are looked for in the text while the units are checked.
    let snippets = || extract::text::filter_snippets(text, &code);
    let (grouped, snippets) = if text.len() >= PARALLEL_TEXT {
        rayon::join(checked, snippets)
    } else {
        (checked(), snippets())
    };
    let mut prose = prose;
    prose.extend(snippets);
    prose.retain(|s| !foreign.rules_out(s));
    let mut slots: Vec<Option<(Option<UnitKey>, Checked)>> =
        (0..units.len()).map(|_| None).collect();
    for (&i, r) in order.iter().zip(grouped) {
        slots[i] = Some(r);
    }
    let results = slots.into_iter().flatten();

    let mut blocks = Vec::new();
    let mut calls = Vec::new();
    let mut findings = Vec::new();
    let mut urls = HashSet::new();
    let mut kept = HashMap::new();
    let mut graphql_documents = 0;
    for (unit, (key, done)) in units.iter().zip(results) {
        if unit.is_block(done.any) {
            blocks.push(unit.range.clone());
        }
        calls.extend(done.calls.iter().cloned());
        graphql_documents += done.graphql;
        urls.extend(done.urls.iter().map(|r| (r.start, r.end)));
        match key {
            Some(key) => {
                findings.extend(done.findings.iter().cloned());
                kept.insert(key, (unit.range.start, done));
            }
            None => findings.extend(done.findings),
        }
    }
    if let Some(c) = cache {
        c.entries = kept;
    }

    // REST URLs in prose (and in code the units did not read); those a unit found are done,
    // and so is a bare list path inside a unit's call (`requests.get(f"{NB}/api/dcim/devices/",
    // params=...)`): sorted call ranges with the running maximum of their ends answer "inside
    // some call" by a binary search.
    let mut spans: Vec<(usize, usize)> = calls.iter().map(|r| (r.start, r.end)).collect();
    spans.sort_unstable();
    let mut reach = Vec::with_capacity(spans.len());
    let mut max_end = 0;
    for (_, end) in &spans {
        max_end = max_end.max(*end);
        reach.push(max_end);
    }
    let inside_call = |r: &Range<usize>| {
        let i = spans.partition_point(|(start, _)| *start <= r.start);
        i > 0 && reach[i - 1] >= r.end
    };
    let prose: Vec<Site> = prose
        .into_iter()
        .filter(|s| match s {
            Site::Rest(c) => {
                let done = urls.contains(&(c.call_range.start, c.call_range.end));
                let held = bare_path(s).is_some() && inside_call(&c.call_range);
                !done && !held
            }
            Site::Graphql(_) => true,
        })
        .collect();
    let rest = check_sites(&prose, knowledge, text, &urlencode);
    calls.extend(rest.calls);
    findings.extend(rest.findings);
    Parts {
        blocks,
        calls,
        findings,
        graphql_documents: graphql_documents + rest.graphql,
    }
}

/// What a host's analysis gathered before suppression: the block ranges, the REST call ranges,
/// the findings and the number of GraphQL documents.
struct Parts {
    blocks: Vec<Range<usize>>,
    calls: Vec<Range<usize>>,
    findings: Vec<Finding>,
    graphql_documents: usize,
}
