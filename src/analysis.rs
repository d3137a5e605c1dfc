//! The one entry point both `check` and the language server call: a host document in, findings
//! out. Every host goes through the same named pipeline:
//!
//! 1. **extract**: the host readers find the sites (REST calls, URLs, filter snippets, GraphQL
//!    documents) with their host byte ranges ([`extract`]);
//! 2. **site filters**: one reading of intent decides which sites are calls and which are not
//!    (a lesson, release history, a Django query, another product's call), reading the text
//!    around each site ([`crate::intent`]); those are [`NotChecked`], never checked;
//! 3. **checks**: the calls against the knowledge (`check`);
//! 4. **finding filters**: findings another release may not have become warnings
//!    ([`crate::approx::soften`]), suppression comments apply and those that cover nothing are
//!    reported ([`suppress`]), a file too large to
//!    read in full says so ([`not_checked`]).
//!
//! A Markdown host is read as independent units (code blocks and code spans, see
//! [`md::units`]) and its prose (`markdown` here): the units are extracted and checked in
//! parallel (rayon), and a [`UnitCache`] lets a re-analysis of an edited document reuse the
//! result of every unit whose code and surroundings did not change.

mod cache;
mod check;
mod markdown;
mod notebook;

/// The knowledge a document is checked against (it lives in [`crate::knowledge`]).
pub use crate::knowledge::Knowledge;
pub use cache::UnitCache;

use crate::extract::markdown as md;
use crate::extract::{self, HostKind, OffsetMap};
use crate::finding::Finding;
use crate::intent::{Around, Counts, Filters, NotChecked, Outline};
use crate::suppress;
use std::ops::Range;

/// Checks `text`, a host document of kind `kind`. Findings carry host byte ranges, are sorted by
/// start offset, and exclude those suppressed by `netbox-lsp: ignore` comments. Never panics on
/// user input.
pub fn analyze(text: &str, kind: HostKind, knowledge: &Knowledge) -> Vec<Finding> {
    analyze_report(text, kind, knowledge, None).findings
}

/// [`analyze`] for a JSON tool call about to be sent (the Python API's `check_tool_call`): a REST
/// call whose target resolves to no endpoint (a placeholder, a plugin type stock knowledge does
/// not hold) also gets the warning `Checker.check_call` gives for it
/// ([`crate::filters::check_filters`]; one rule, `filters::unchecked_target`), where a file
/// fails open. Findings as [`analyze`]'s.
///
/// One analysis ([`analyze_kept`]): the rule reads each checked call's endpoint from
/// [`Report::sites`], nothing is extracted or checked again.
pub fn analyze_outgoing(text: &str, knowledge: &Knowledge) -> Vec<Finding> {
    analyze_outgoing_extracted(text, extract::extract(text, HostKind::Json), knowledge)
}

/// [`analyze_outgoing`] of a JSON tool call `text` already extracted (`ex`, its
/// [`extract::extract`] as [`HostKind::Json`]): a caller that read the call to decide whether
/// it is a NetBox call at all does not extract it again.
pub fn analyze_outgoing_extracted(
    text: &str,
    ex: extract::Extraction,
    knowledge: &Knowledge,
) -> Vec<Finding> {
    let report = pipeline(text, HostKind::Json, knowledge, None, true, Some(ex), false).0;
    let mut findings = report.findings;
    let Some(index) = knowledge.index.as_deref() else {
        return findings;
    };
    for checked in &report.sites {
        if let extract::Site::Rest(call) = &checked.site {
            let endpoint = checked.endpoint.as_deref();
            crate::filters::unchecked_target(&mut findings, call, index, endpoint);
        }
    }
    findings.sort_by_key(Finding::sort_key);
    findings
}

/// What an analysis found to check: so that "0 errors" cannot hide "nothing read", nor
/// "nothing checked" a skipped call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    /// NetBox REST calls checked (tool calls, pynetbox calls, URLs with or without a query
    /// string).
    pub rest_calls: usize,
    /// GraphQL documents checked.
    pub graphql_documents: usize,
    /// Sites the site filters held back, per reading (lessons, history, ...).
    pub not_checked: Counts,
}

/// Everything one analysis gives.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// As [`analyze`] gives them.
    pub findings: Vec<Finding>,
    pub found: Found,
    /// The sites not checked and why, sorted by position.
    pub not_checked: Vec<NotChecked>,
    /// Host byte ranges of the REST calls checked (a baseline keys a finding by its call).
    pub calls: Vec<Range<usize>>,
    /// With [`analyze_kept`]: the sites the site filters kept, in the order read, each REST
    /// call with its checks' own findings (before the finding filters: what NetBox does with
    /// each filter, which live verification compares with the instance's answers). Empty
    /// otherwise.
    pub sites: Vec<CheckedSite>,
    /// With [`analyze_kept`]: host ranges of the Markdown code blocks (where suppression
    /// comments apply, for findings made from [`Report::sites`] later).
    pub blocks: Vec<Range<usize>>,
}

/// A site the checks were given (one the site filters kept), and for a REST call the findings
/// its checks gave, as [`crate::rest::check_call`] made them, before the finding filters
/// (softening, suppression). Host byte ranges.
#[derive(Debug, Clone)]
pub struct CheckedSite {
    pub site: extract::Site,
    pub findings: Vec<Finding>,
    /// For a REST call checked: the endpoint key (`ipam/ip-addresses`) its filters were checked
    /// against, as [`crate::rest::check_call_resolved`] gives it; `None` when no endpoint of
    /// the knowledge was found (no filter name or value was checked), and for other sites.
    pub endpoint: Option<String>,
}

/// [`analyze`], also saying how many REST calls and GraphQL documents the text holds (from the
/// same extraction: nothing is read twice).
pub fn analyze_counted(text: &str, kind: HostKind, knowledge: &Knowledge) -> (Vec<Finding>, Found) {
    let r = analyze_report(text, kind, knowledge, None);
    (r.findings, r.found)
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
    analyze_report(text, kind, knowledge, Some(cache)).findings
}

/// The whole pipeline (see the module documentation) on `text`, with `cache` for a Markdown
/// host's units when given: findings, counts and the sites not checked.
pub fn analyze_report(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    cache: Option<&mut UnitCache>,
) -> Report {
    pipeline(text, kind, knowledge, cache, false, None, false).0
}

/// [`analyze_report`] that also keeps the sites checked and their own findings
/// ([`Report::sites`], [`Report::blocks`]): one analysis for the consumers that read them
/// (live verification, the editor's code lens) instead of reading and checking again. The
/// findings are [`analyze_report`]'s.
pub fn analyze_kept(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    cache: Option<&mut UnitCache>,
) -> Report {
    pipeline(text, kind, knowledge, cache, true, None, false).0
}

/// [`analyze_report`] for a caller that writes the findings as JSON part after part (`check
/// --format json`): the report's findings are empty, and the parts, one after another, are
/// the findings [`analyze_report`] gives, in its order, as [`Written`]. A large file of many
/// calls is checked in chunks whose findings are never joined into one buffer (the join took
/// ~34 MB of new pages for 100,000 tool calls); any other host is one part.
pub fn analyze_parted(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
) -> (Report, Vec<Vec<Written>>) {
    pipeline(text, kind, knowledge, None, false, None, true)
}

/// A finding as `check --format json` writes it ([`analyze_parted`]): a [`Finding`] without
/// what it rests on ([`Finding::facts`], which no writer reads) nor the requests of a live
/// finding (none without `--live`): 88 bytes instead of 224, and the facts' strings freed as
/// soon as the finding is made. Equal, and ordered ([`Written::sort_key`]), as the finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// As [`Finding::range`] (host bytes).
    pub range: Range<usize>,
    /// As [`Finding::code`].
    pub code: &'static str,
    /// As [`Finding::severity`].
    pub severity: crate::finding::Severity,
    /// As [`Finding::message`].
    pub message: String,
    /// As [`Finding::fixes`].
    pub fixes: Vec<crate::finding::Fix>,
}

impl Written {
    /// [`Finding::sort_key`].
    pub fn sort_key(&self) -> (usize, usize, &'static str) {
        (self.range.start, self.range.end, self.code)
    }
}

impl From<Finding> for Written {
    fn from(f: Finding) -> Written {
        Written {
            range: f.range,
            code: f.code,
            severity: f.severity,
            message: f.message,
            fixes: f.fixes,
        }
    }
}

/// The pipeline; `keep`: the sites too ([`analyze_kept`]); `given`: the extraction of `text`
/// as `kind` when the caller has it (a host read whole; a Markdown host is read by units);
/// `parted`: the findings in parts ([`analyze_parted`]), else in the report (and no part).
fn pipeline(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    cache: Option<&mut UnitCache>,
    keep: bool,
    given: Option<extract::Extraction>,
    parted: bool,
) -> (Report, Vec<Vec<Written>>) {
    if is_binary(text.as_bytes()) {
        return (Report::default(), Vec::new());
    }
    // A byte-order mark (which `check` strips and most editors hide) is not code: read what
    // follows it, and report positions in the text as given.
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        let bom = text.len() - rest.len();
        // `given` has the offsets of `text`: the text after the mark is extracted again.
        let mut r = pipeline(rest, kind, knowledge, cache, keep, None, false).0;
        r.findings = r
            .findings
            .iter()
            .map(|f| check::moved_finding(f, 0, bom))
            .collect();
        r.not_checked = r.not_checked.iter().map(|n| n.moved(0, bom)).collect();
        r.calls = r.calls.iter().map(|c| c.start + bom..c.end + bom).collect();
        r.blocks = r
            .blocks
            .iter()
            .map(|c| c.start + bom..c.end + bom)
            .collect();
        r.sites = r.sites.iter().map(|s| s.moved(0, bom)).collect();
        return as_parted(r, parted);
    }
    // 1–3: extract, site filters, checks. The checks leave their findings in parts only when
    // the finding filters need them not whole: no suppression comment in the text (none is
    // dropped nor added) and the text read in full (no `not-checked` to add).
    let in_parts = parted
        && kind != HostKind::Markdown
        && !text.contains(suppress::MARKER)
        && not_checked(text, kind).is_none();
    let parts = match kind {
        HostKind::Markdown => markdown::analyze(text, knowledge, cache, keep),
        _ => whole_host(text, kind, knowledge, keep, given, in_parts),
    };
    if !parts.parts.is_empty() {
        return parted_report(knowledge, parts);
    }
    let calls = parts.calls.clone();
    let found = Found {
        rest_calls: parts.calls.len(),
        graphql_documents: parts.graphql_documents,
        not_checked: Counts::of(&parts.not_checked),
    };
    // 4: finding filters.
    let mut findings = crate::approx::soften(knowledge, parts.findings);
    let held: Vec<Range<usize>> = parts.not_checked.iter().map(|n| n.range.clone()).collect();
    let applied = suppress::apply_all(text, kind, &parts.blocks, &parts.calls, &held, findings);
    let blocks = if keep { parts.blocks } else { Vec::new() };
    findings = applied.kept;
    findings.extend(applied.unused);
    findings.extend(not_checked(text, kind));
    Finding::sort_all(&mut findings);
    findings.dedup();
    let mut not_checked = parts.not_checked;
    not_checked.sort_by_key(|n| (n.range.start, n.range.end));
    not_checked.dedup();
    as_parted(
        Report {
            findings,
            found,
            not_checked,
            calls,
            sites: parts.sites,
            blocks,
        },
        parted,
    )
}

/// `r` as [`pipeline`] gives it: with `parted`, its findings as the one part.
fn as_parted(mut r: Report, parted: bool) -> (Report, Vec<Vec<Written>>) {
    if parted {
        let findings = std::mem::take(&mut r.findings);
        (r, vec![findings.into_iter().map(Written::from).collect()])
    } else {
        (r, Vec::new())
    }
}

/// The finding filters of [`pipeline`] on findings left in parts ([`Parts::parts`]; the text holds
/// no suppression comment and was read in full), part by part: softened, each part sorted and
/// then, when each part's findings all sort before the next part's (the stable sort of the
/// whole is then the parts one after another), a run of equal findings removed as one even
/// across a part's end; otherwise the parts are joined, sorted and deduplicated whole. The
/// findings are those [`pipeline`] gives joined, in its order.
fn parted_report(knowledge: &Knowledge, mut parts: Parts) -> (Report, Vec<Vec<Written>>) {
    let mut chunks = std::mem::take(&mut parts.parts);
    if !parts.findings.is_empty() {
        let first = std::mem::take(&mut parts.findings);
        chunks.insert(0, first.into_iter().map(Written::from).collect());
    }
    let softened = knowledge.approximate.is_some();
    let mut in_order = true;
    let mut last: Option<(usize, usize, &'static str)> = None;
    for c in &mut chunks {
        if softened {
            for f in c.iter_mut() {
                crate::approx::soften_one(&mut f.severity, f.code);
            }
        }
        if !c.is_sorted_by_key(Written::sort_key) {
            c.sort_by_key(Written::sort_key);
        }
        if let (Some(l), Some(f)) = (last, c.first()) {
            in_order &= l <= f.sort_key();
        }
        if let Some(l) = c.last() {
            last = Some(l.sort_key());
        }
    }
    if in_order {
        // `dedup` of the whole: a finding equal to the last one kept is removed.
        let mut kept: Option<usize> = None;
        for i in 0..chunks.len() {
            chunks[i].dedup();
            if let Some(k) = kept {
                let (before, after) = chunks.split_at_mut(i);
                if let Some(l) = before[k].last() {
                    let equal = after[0].iter().take_while(|f| *f == l).count();
                    after[0].drain(..equal);
                }
            }
            if !chunks[i].is_empty() {
                kept = Some(i);
            }
        }
    } else {
        let mut all: Vec<Written> = chunks.into_iter().flatten().collect();
        all.sort_by_key(Written::sort_key);
        all.dedup();
        chunks = vec![all];
    }
    let mut not_checked = parts.not_checked;
    not_checked.sort_by_key(|n| (n.range.start, n.range.end));
    not_checked.dedup();
    let found = Found {
        rest_calls: parts.calls.len(),
        graphql_documents: parts.graphql_documents,
        not_checked: Counts::of(&not_checked),
    };
    let report = Report {
        findings: Vec::new(),
        found,
        not_checked,
        calls: parts.calls,
        sites: parts.sites,
        blocks: Vec::new(),
    };
    (report, chunks)
}

/// A host read as one piece of code (Python, YAML, JSON, GraphQL, a notebook, plain text):
/// extracted whole, each site put to the site filters with the whole text as its code (its
/// comments), a text host's sites also with their sentence, then checked. `given`: its
/// extraction, when the caller already has it.
fn whole_host(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    keep: bool,
    given: Option<extract::Extraction>,
    parted: bool,
) -> Parts {
    let mut ex = given.unwrap_or_else(|| extract::extract(text, kind));
    let mut notebook_sorted = None;
    if kind == HostKind::Notebook {
        match notebook::sort(text, std::mem::take(&mut ex.sites), knowledge.readings) {
            Ok(sorted) => notebook_sorted = Some(sorted),
            Err(sites) => ex.sites = sites,
        }
    }
    let outline = match kind {
        HostKind::Text => Outline::text(text),
        _ => Outline::plain(),
    };
    let filters = Filters::of(text, &outline, knowledge.readings);
    let map = OffsetMap::identity(0, text.len());
    // A notebook's cells sit in JSON strings: its text is no code to read comments in.
    let code = (kind != HostKind::Notebook).then_some((text, &map));
    let (calls, held) = if let Some(sorted) = notebook_sorted {
        sorted
    } else if kind == HostKind::Text && !filters.is_empty() {
        let mut calls = Vec::new();
        let mut held = Vec::new();
        for site in ex.sites {
            let around = outline.around_inline(text, &crate::intent::site_range(&site));
            match filters.sort(site, code, &around) {
                crate::intent::Sorted::Call(site, parts) => {
                    calls.push(site);
                    held.extend(parts);
                }
                crate::intent::Sorted::NotChecked(n) => held.push(n),
            }
        }
        (calls, held)
    } else {
        filters.sort_all(ex.sites, code, &Around::default())
    };
    // A notebook's fixes are escaped below: its findings are joined.
    let looks = check::Looks {
        keep,
        parted: parted && !keep && kind != HostKind::Notebook,
        ..check::Looks::default()
    };
    let mut checked = check::check_sites_owned(calls, knowledge, text, &looks);
    if kind == HostKind::Notebook {
        // Every cell's code sits in JSON strings: fixes are written escaped.
        checked
            .findings
            .iter_mut()
            .for_each(|f| check::escape_fixes(f, text));
    }
    Parts {
        blocks: ex.blocks,
        calls: checked.calls,
        urls: Vec::new(),
        findings: checked.findings,
        graphql_documents: checked.graphql,
        not_checked: held,
        sites: checked.sites,
        parts: checked.parts,
    }
}

/// What a host's analysis gathered before the finding filters: the block ranges (for
/// suppression comments), the REST call ranges checked, the URL sites read, the findings, the
/// number of GraphQL documents checked, and the sites not checked.
#[derive(Debug, Default)]
struct Parts {
    blocks: Vec<Range<usize>>,
    calls: Vec<Range<usize>>,
    urls: Vec<Range<usize>>,
    findings: Vec<Finding>,
    graphql_documents: usize,
    not_checked: Vec<NotChecked>,
    /// The sites checked, with [`check::Looks::keep`].
    sites: Vec<CheckedSite>,
    /// With [`check::Looks::parted`]: findings after [`Parts::findings`], in parts
    /// ([`check::Checked::parts`]).
    parts: Vec<Vec<Written>>,
}

/// How many leading bytes are looked at for a NUL byte by [`is_binary`].
pub const BINARY_SNIFF: usize = 8 * 1024;

/// True when `bytes` hold a NUL byte in their first [`BINARY_SNIFF`] bytes: a binary file, which
/// neither `check` (skipped with a note) nor the server (no diagnostics) reads.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0)
}

/// The size above which extraction reads a host kind only for REST URLs (no structural parse),
/// so one huge file cannot stall `check` or the server (bytes); `None` when the kind has no limit.
pub fn structural_limit(kind: HostKind) -> Option<usize> {
    match kind {
        HostKind::Markdown => Some(md::MAX_MARKDOWN),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Edit, Fix, Severity};

    fn knowledge(approximate: Option<&str>) -> Knowledge {
        Knowledge {
            index: Some(crate::index::embedded::embedded_index("4.7.3")),
            graphql: crate::graphql::embedded_schema("4.7.3"),
            approximate: approximate.map(str::to_string),
            ..Default::default()
        }
    }

    /// Lines of tool calls (of `benches/gen_calls.py`'s shape), most with findings.
    const CALLS: &[&str] = &[
        r#"netbox_get_objects("dcim.site", {"stauts": 3})"#,
        r#"netbox_get_objects("ipam.fhrpgroup", {"auth_type": 42})"#,
        r#"netbox_get_objects("extras.customfield", {"label__in": ["active", True], "omit": "core"})"#,
        r#"netbox_get_objects("dcim.device", {"longitude__n": "core"})"#,
        r#"netbox_get_objects("dcim.site", {"start": "active"})"#,
        r#"netbox_get_objects("ipam.vlan", {"staetus": "core", "site_gorup_id": True, "owner__n": "edge"})"#,
        r#"netbox_get_objects("virtualization.virtualmachine", {"cluster_id": None, "seerial": True})"#,
        r#"netbox_get_objects("tenancy.tenant", {"lsug": "active", "tag": "edge", "last_updated__gte": "edge"})"#,
        r#"netbox_get_objects("users.user", {"owner_id": None, "permission_id__icontains": "edge", "username__niew": "active"})"#,
        r#"netbox_get_objects("dcim.site", {"status": "active"})"#,
    ];

    fn calls(n: usize) -> String {
        let mut text = String::from("# Generated.\n");
        for i in 0..n {
            text.push_str(CALLS[(i * 7) % CALLS.len()]);
            text.push('\n');
        }
        text
    }

    /// What [`analyze_parted`] gives, joined.
    fn parted(text: &str, kind: HostKind, k: &Knowledge) -> (Report, Vec<Vec<Written>>) {
        analyze_parted(text, kind, k)
    }

    fn report_written(text: &str, kind: HostKind, k: &Knowledge) -> Vec<Written> {
        analyze_report(text, kind, k, None)
            .findings
            .into_iter()
            .map(Written::from)
            .collect()
    }

    /// The node budget of JSON, YAML and notebooks ([`extract::parse::node_budget`]), each
    /// with its quiet twin: a call with a wrong filter padded to exactly the budget for its size
    /// is checked (the call's findings, as without padding); one node more and the text gets
    /// the `not-checked` note saying why, and nothing else.
    #[test]
    fn texts_above_the_node_budget_are_not_checked_and_say_so() {
        use crate::extract::parse::{node_budget, too_many, Lang};
        const JSON_CALL: &str = r#"{"name": "netbox_get_objects", "arguments": {"object_type": "dcim.site", "filters": {"stauts": "active"}}}"#;
        const YAML_CALL: &str = "- name: netbox_get_objects\n  arguments:\n    object_type: dcim.site\n    filters:\n      stauts: active\n";
        const NOTEBOOK: &str = r#"{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["nb.dcim.sites.filter(stauts=\"active\")\n"]}], "metadata": {"kernelspec": {"language": "python"}}, "nbformat": 4, "nbformat_minor": 5, "pad": [0PAD]}"#;
        // (kind, language counted, text with `n` padding nodes, nodes of the text without them)
        type Padded = fn(usize) -> String;
        let punct = |t: &str| t.bytes().filter(|b| b"[{,:".contains(b)).count();
        let cases: [(HostKind, Lang, Padded, usize); 3] = [
            (
                HostKind::Json,
                Lang::Json,
                |n| format!("[{JSON_CALL}{}]", ", 1".repeat(n)),
                1 + punct(JSON_CALL),
            ),
            (
                HostKind::Yaml,
                Lang::Yaml,
                |n| format!("{YAML_CALL}{}", "- 1\n".repeat(n)),
                1 + YAML_CALL.matches('\n').count(),
            ),
            (
                HostKind::Notebook,
                Lang::Json,
                |n| NOTEBOOK.replace("PAD", &", 1".repeat(n)),
                punct(NOTEBOOK),
            ),
        ];
        let k = knowledge(None);
        for (kind, lang, padded, frame) in cases {
            let alone: Vec<_> = analyze(&padded(0), kind, &k)
                .into_iter()
                .map(|f| (f.code, f.message))
                .collect();
            assert!(
                alone.iter().any(|(c, _)| *c == "unknown-filter"),
                "{kind:?}: {alone:?}"
            );
            // The least `n` whose text holds as many nodes as its size allows (the budget
            // grows by 3/16 or 3/24 of a node a node of padding), then the first one above.
            let mut n = 0;
            loop {
                let next = node_budget(lang, padded(n).len()) - frame;
                if next == n {
                    break;
                }
                n = next;
            }
            while !too_many(lang, &padded(n + 1)) {
                n += 1;
            }
            let under = padded(n);
            assert!(!too_many(lang, &under), "{kind:?}");
            assert!(frame + n <= node_budget(lang, under.len()), "{kind:?}");
            let found: Vec<_> = analyze(&under, kind, &k)
                .into_iter()
                .map(|f| (f.code, f.message))
                .collect();
            assert_eq!(found, alone, "{kind:?}: the text at the budget is checked");
            let over = padded(n + 1);
            assert!(too_many(lang, &over), "{kind:?}");
            let found = analyze(&over, kind, &k);
            assert_eq!(found.len(), 1, "{kind:?}: {found:?}");
            assert_eq!(found[0].code, "not-checked");
            assert!(
                found[0].message.contains("holds more")
                    && found[0].message.contains(&format!("{} bytes", over.len())),
                "{kind:?}: {}",
                found[0].message
            );
        }
    }

    #[test]
    fn parted_findings_are_the_reports() {
        let many = calls(300);
        let shared = format!(
            "PARAMS = {{\"stauts\": 1}}\n{}",
            (0..100)
                .map(|_| "netbox_get_objects(\"dcim.site\", PARAMS)\n")
                .collect::<String>()
        );
        let suppressed = format!(
            "{many}netbox_get_objects(\"dcim.site\", {{\"stauts\": 3}})  # netbox-lsp: ignore\n"
        );
        let bom = format!("\u{feff}{many}");
        let few = calls(10);
        for approximate in [None, Some("4.8.0")] {
            let k = knowledge(approximate);
            for (text, kind, in_parts) in [
                (&many, HostKind::Python, Some(true)),
                (&shared, HostKind::Python, Some(false)),
                (&suppressed, HostKind::Python, Some(false)),
                (&bom, HostKind::Python, Some(false)),
                (&few, HostKind::Python, Some(false)),
                (&many, HostKind::Text, None),
            ] {
                let (report, parts) = parted(text, kind, &k);
                assert!(report.findings.is_empty());
                if let Some(in_parts) = in_parts {
                    assert_eq!(parts.len() > 1, in_parts, "{kind:?} {:?}", &text[..40]);
                }
                let want = report_written(text, kind, &k);
                assert!(kind != HostKind::Python || !want.is_empty());
                let got: Vec<Written> = parts.into_iter().flatten().collect();
                assert_eq!(got, want, "{kind:?} {:?}", &text[..40]);
                let whole = analyze_report(text, kind, &k, None);
                assert_eq!(report.found, whole.found);
                assert_eq!(report.calls, whole.calls);
                assert_eq!(report.not_checked, whole.not_checked);
            }
        }
    }

    fn written(start: usize, end: usize, code: &'static str, message: &str) -> Written {
        Written {
            range: start..end,
            code,
            severity: Severity::Error,
            message: message.to_string(),
            fixes: vec![Fix {
                title: format!("fix {message}"),
                edits: vec![Edit {
                    range: start..end,
                    new_text: message.to_string(),
                }],
                certain: false,
                releases: Vec::new(),
            }],
        }
    }

    /// The stable sort and `dedup` of the parts joined, softened first when `approximate`.
    fn joined(parts: &[Vec<Written>], approximate: bool) -> Vec<Written> {
        let mut all: Vec<Finding> = parts
            .iter()
            .flatten()
            .map(|w| Finding {
                fixes: w.fixes.clone(),
                ..Finding::new(w.range.clone(), w.code, w.severity, w.message.clone())
            })
            .collect();
        if approximate {
            all = crate::approx::soften(&knowledge(Some("4.8.0")), all);
        }
        Finding::sort_all(&mut all);
        all.dedup();
        all.into_iter().map(Written::from).collect()
    }

    #[test]
    fn parts_are_sorted_and_deduplicated_as_the_whole() {
        let a = |s, e, m| written(s, e, "unknown-filter", m);
        let b = |s, e, m| written(s, e, "invalid-choice", m);
        let cases: Vec<Vec<Vec<Written>>> = vec![
            // In order, a run of equal findings across two part ends and an empty part.
            vec![
                vec![a(0, 2, "x"), a(5, 6, "y")],
                vec![a(5, 6, "y"), a(5, 6, "y")],
                vec![],
                vec![a(5, 6, "y"), b(7, 8, "z")],
            ],
            // Equal keys, different findings, across a part's end: stable.
            vec![
                vec![a(1, 2, "p"), a(3, 4, "q")],
                vec![a(3, 4, "r"), a(3, 4, "q")],
            ],
            // Unsorted inside a part.
            vec![vec![a(9, 10, "x"), a(1, 2, "y")], vec![b(11, 12, "z")]],
            // A part before the previous one's end: joined.
            vec![
                vec![a(10, 12, "x"), a(20, 21, "y")],
                vec![a(15, 16, "z"), a(20, 21, "y")],
                vec![a(30, 31, "w")],
            ],
            // By code at one range.
            vec![vec![a(4, 5, "x")], vec![b(4, 5, "y")]],
        ];
        for case in cases {
            for approximate in [false, true] {
                let k = if approximate {
                    knowledge(Some("4.8.0"))
                } else {
                    Knowledge::default()
                };
                let parts = Parts {
                    parts: case.clone(),
                    calls: std::iter::once(0..1).collect(),
                    ..Parts::default()
                };
                let (report, got) = parted_report(&k, parts);
                assert_eq!(report.found.rest_calls, 1);
                let got: Vec<Written> = got.into_iter().flatten().collect();
                assert_eq!(got, joined(&case, approximate), "{case:?}");
            }
        }
    }
}
