//! The pipeline for a Markdown host, which is read as independent units (code blocks and code
//! spans, see [`markdown::units`]) plus the REST URLs and filter snippets of its prose:
//! 1. [`read`]: the two linear passes over the text (units, URLs), side by side when long;
//! 2. [`check_units`]: each unit's sites extracted, put to the site filters and checked, in
//!    parallel, by language, reusing a [`UnitCache`] entry when the unit's code and
//!    surroundings are unchanged;
//! 3. [`gather`]: the units' results in document order (and the cache refilled);
//! 4. [`prose`]: the URLs and snippets of the text that no unit read, filtered and checked.

use super::cache::{UnitCache, UnitKey};
use super::check::{bare_path, check_sites, url_ranges, Checked, Looks};
use super::{Knowledge, Parts};
use crate::extract::markdown::{self, Unit, UnitKind};
use crate::extract::{self, OffsetMap, Site};
use crate::intent::{site_range, Around, Filters, NotChecked, Outline, Sorted};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// Fewer units than this are read on the calling thread: waking the pool costs more.
const PARALLEL_FROM: usize = 8;

/// Shorter texts (bytes) get their two whole-text passes on the calling thread.
const PARALLEL_TEXT: usize = 32 * 1024;

/// The Markdown host `text` through extraction, site filters and checks.
pub(super) fn analyze(
    text: &str,
    knowledge: &Knowledge,
    cache: Option<&mut UnitCache>,
    keep: bool,
) -> Parts {
    let (parsed, urls) = read(text);
    let units = parsed.units;
    let blocks: Vec<Range<usize>> = units
        .iter()
        .filter(|u| u.kind != UnitKind::Span)
        .map(|u| u.range.clone())
        .collect();
    // Intent reads the headings, tables and lists the parse found; the front matter is no lead or paragraph.
    let outline = match &parsed.front_matter {
        Some(fm) => {
            let with: Vec<Range<usize>> = std::iter::once(fm.clone())
                .chain(blocks.iter().cloned())
                .collect();
            Outline::markdown(text, &with, &parsed.layout)
        }
        None => Outline::markdown(text, &blocks, &parsed.layout),
    };
    let filters = Filters::of(text, &outline, knowledge.readings);
    let mut cache = cache;
    if let Some(c) = cache.as_deref_mut() {
        c.keep_if(knowledge, &filters, keep);
    }
    let cx = Cx {
        text,
        knowledge,
        outline: &outline,
        filters: &filters,
        looks: Looks {
            keep,
            ..Looks::default()
        },
    };
    // Filter snippets without an endpoint in inline code (issue 8 §7), outside code blocks,
    // are looked for in the text while the units are checked.
    let entries = cache.as_deref().map(|c| &c.entries);
    let checked = || check_units(&cx, &units, entries);
    let snippets = || extract::text::filter_snippets(text, &blocks);
    let (results, snippets) = if text.len() >= PARALLEL_TEXT {
        rayon::join(checked, snippets)
    } else {
        (checked(), snippets())
    };
    let mut parts = gather(&units, results, cache);
    let mut prose_sites = urls;
    prose_sites.extend(snippets);
    prose(&cx, &units, prose_sites, &mut parts);
    parts
}

/// What every step of one Markdown analysis reads.
struct Cx<'a> {
    text: &'a str,
    knowledge: &'a Knowledge,
    outline: &'a Outline,
    filters: &'a Filters,
    /// What is looked for in the whole text once, on first need.
    looks: Looks,
}

/// The two linear passes over the whole text: the Markdown parse (units, headings, front
/// matter), and the REST URLs anywhere in it.
fn read(text: &str) -> (markdown::Parsed, Vec<Site>) {
    let units_of = || markdown::parse(text);
    let urls_of = || extract::text::extract(text, &OffsetMap::identity(0, text.len()));
    if text.len() >= PARALLEL_TEXT {
        rayon::join(units_of, urls_of)
    } else {
        (units_of(), urls_of())
    }
}

/// Each unit's result (in unit order), and its cache key when there is a cache to consult and
/// fill; `None` for a unit the cache holds at the same offset, whose cached result [`gather`]
/// takes as it is (not copied). Units of one language are read together: each grammar's parse
/// tables stay in the CPU caches (interleaved, the four grammars evict each other).
fn check_units(
    cx: &Cx<'_>,
    units: &[Unit],
    entries: Option<&HashMap<UnitKey, (usize, Checked)>>,
) -> Vec<(Option<UnitKey>, Option<Checked>)> {
    let one = |unit: &Unit| -> (Option<UnitKey>, Option<Checked>) {
        let Some(entries) = entries else {
            return (None, Some(check_unit(cx, unit, None)));
        };
        let around = cx.outline_around(unit);
        let key = UnitKey::of(unit, &around);
        let done = match entries.get(&key) {
            Some((start, _)) if *start == unit.range.start => None,
            Some((start, done)) => Some(done.moved(*start, unit.range.start)),
            None => Some(check_unit(cx, unit, Some(around))),
        };
        (Some(key), done)
    };
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by_key(|&i| match &units[i].kind {
        UnitKind::Fence(lang) => (0, lang.as_str()),
        UnitKind::Indented => (1, ""),
        UnitKind::Span => (2, ""),
    });
    let grouped: Vec<(Option<UnitKey>, Option<Checked>)> = if units.len() >= PARALLEL_FROM {
        order.par_iter().map(|&i| one(&units[i])).collect()
    } else {
        order.iter().map(|&i| one(&units[i])).collect()
    };
    let mut slots: Vec<Option<(Option<UnitKey>, Option<Checked>)>> =
        (0..units.len()).map(|_| None).collect();
    for (&i, r) in order.iter().zip(grouped) {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

impl Cx<'_> {
    /// The surroundings of `unit` the site filters read.
    fn outline_around(&self, unit: &Unit) -> Around {
        match unit.kind {
            UnitKind::Span => self.outline.around_inline(self.text, &unit.range),
            _ => self.outline.around_block(self.text, &unit.range),
        }
    }
}

/// One unit through extraction, the site filters (with its surroundings `around`, taken from
/// the outline when not given) and the checks.
fn check_unit(cx: &Cx<'_>, unit: &Unit, around: Option<Around>) -> Checked {
    let sites = markdown::unit_sites(unit);
    if sites.is_empty() {
        return Checked::default();
    }
    let urls = url_ranges(&sites);
    let around = around.unwrap_or_else(|| cx.outline_around(unit));
    let code = Some((unit.body.as_str(), &unit.map));
    let (calls, held) = cx.filters.sort_all(sites, code, &around);
    let mut done = check_sites(&calls, cx.knowledge, cx.text, &cx.looks);
    done.urls = urls;
    done.any = true;
    done.not_checked = held;
    done
}

/// The units' results in document order, with the block ranges for suppression comments; the
/// cache, when given, keeps exactly these units. A result `None` is the cache's own entry for
/// the unit's key (moved out of the previous entries, not copied).
fn gather(
    units: &[Unit],
    results: Vec<(Option<UnitKey>, Option<Checked>)>,
    mut cache: Option<&mut UnitCache>,
) -> Parts {
    let mut parts = Parts::default();
    let mut previous = cache
        .as_deref_mut()
        .map(|c| std::mem::take(&mut c.entries))
        .unwrap_or_default();
    let mut kept: HashMap<UnitKey, (usize, Checked)> = HashMap::new();
    for (unit, (key, done)) in units.iter().zip(results) {
        let done = match (&key, done) {
            (_, Some(done)) => done,
            (Some(key), None) => match previous.remove(key) {
                Some((_, done)) => done,
                // A unit of the same key met earlier in this document took the entry.
                None => kept
                    .get(key)
                    .map(|(start, done)| done.moved(*start, unit.range.start))
                    .unwrap_or_default(),
            },
            (None, None) => Checked::default(),
        };
        if unit.is_block(done.any) {
            parts.blocks.push(unit.range.clone());
        }
        parts.calls.extend(done.calls.iter().cloned());
        parts.graphql_documents += done.graphql;
        parts.urls.extend(done.urls.iter().cloned());
        parts.not_checked.extend(done.not_checked.iter().cloned());
        parts.sites.extend(done.sites.iter().cloned());
        match key {
            Some(key) => {
                parts.findings.extend(done.findings.iter().cloned());
                kept.insert(key, (unit.range.start, done));
            }
            None => parts.findings.extend(done.findings),
        }
    }
    if let Some(c) = cache {
        c.entries = kept;
    }
    parts
}

/// The REST URLs in prose (and in code the units did not read) and the filter snippets:
/// those a unit read are done, and so is a bare list path inside a unit's call
/// (`requests.get(f"{NB}/api/dcim/devices/", params=...)`). The rest go through the site
/// filters (a URL inside a block with the block's code and surroundings, one in prose with its
/// sentence) and the checks; their results are added to `parts`.
fn prose(cx: &Cx<'_>, units: &[Unit], sites: Vec<Site>, parts: &mut Parts) {
    // A URL a unit read starts where the scan's site of it starts (a shell command's URL, read
    // as the shell passes it, may end elsewhere: `curl …?name='x y'`).
    let read: HashSet<usize> = parts.urls.iter().map(|r| r.start).collect();
    // Sorted call ranges (checked or held back) with the running maximum of their ends answer
    // "inside some call" by a binary search.
    let mut spans: Vec<(usize, usize)> = parts
        .calls
        .iter()
        .chain(parts.not_checked.iter().map(|n| &n.range))
        .map(|r| (r.start, r.end))
        .collect();
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
    let mut calls = Vec::new();
    let mut held: Vec<NotChecked> = Vec::new();
    for site in sites {
        if let Site::Rest(c) = &site {
            let done = read.contains(&c.call_range.start);
            if done || (bare_path(&site).is_some() && inside_call(&c.call_range)) {
                continue;
            }
        }
        let range = site_range(&site);
        let (around, code) = match unit_at(units, range.start) {
            Some(u) if u.kind != UnitKind::Span => {
                (cx.outline_around(u), Some((u.body.as_str(), &u.map)))
            }
            _ => (cx.outline.around_inline(cx.text, &range), None),
        };
        match cx.filters.sort(site, code, &around) {
            Sorted::Call(site, parts) => {
                calls.push(site);
                held.extend(parts);
            }
            Sorted::NotChecked(n) => held.push(n),
        }
    }
    let rest = check_sites(&calls, cx.knowledge, cx.text, &cx.looks);
    parts.calls.extend(rest.calls);
    parts.findings.extend(rest.findings);
    parts.sites.extend(rest.sites);
    parts.graphql_documents += rest.graphql;
    parts.not_checked.extend(held);
}

/// The unit whose range holds host offset `at` (units are in document order and never
/// overlap).
fn unit_at(units: &[Unit], at: usize) -> Option<&Unit> {
    let i = units.partition_point(|u| u.range.start <= at);
    units.get(i.checked_sub(1)?).filter(|u| u.range.end > at)
}
