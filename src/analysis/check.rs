//! The checks step of the pipeline: the sites the site filters kept, checked against the
//! knowledge (REST calls by `rest`, GraphQL documents by `graphql`), on all cores when there
//! are many.

use super::Knowledge;
use crate::extract::intent::NotChecked;
use crate::extract::{self, CallForm, Site, Syntax};
use crate::finding::Finding;
use crate::graphql;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::OnceLock;

/// What reading and checking some sites gave: the findings, the host ranges of the REST calls
/// checked (for suppression comments before a multi-line call) and of every URL-form site read
/// (a URL found in a code block is not read again by the host-wide URL scan, checked or not),
/// and the sites the filters held back.
#[derive(Debug, Clone, Default)]
pub(super) struct Checked {
    pub findings: Vec<Finding>,
    pub calls: Vec<Range<usize>>,
    pub urls: Vec<Range<usize>>,
    /// Whether there was any site at all, held back or not (an indented block counts as a
    /// block only then).
    pub any: bool,
    /// How many GraphQL documents the sites hold.
    pub graphql: usize,
    pub not_checked: Vec<NotChecked>,
}

impl Checked {
    /// The same result for the same code moved from host offset `from` to `to`.
    pub fn moved(&self, from: usize, to: usize) -> Checked {
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
            not_checked: self.not_checked.iter().map(|n| n.moved(from, to)).collect(),
        }
    }
}

/// `f` with its range and its fixes' edits moved from host offset `from` to `to`.
pub(super) fn moved_finding(f: &Finding, from: usize, to: usize) -> Finding {
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
pub(super) fn escape_fixes(f: &mut Finding, text: &str) {
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
pub(super) fn bare_path(site: &Site) -> Option<&std::ops::Range<usize>> {
    match site {
        Site::Rest(c)
            if c.form == CallForm::Url && c.filters.is_empty() && c.filters_range.is_none() =>
        {
            c.target.as_ref().map(|(_, r)| r)
        }
        _ => None,
    }
}

/// What is looked for in a whole host text at most once per analysis, on first need (a look
/// per call is quadratic in a large skill file).
#[derive(Debug, Default)]
pub(super) struct Looks {
    /// Whether the text holds `--data-urlencode`.
    pub urlencode: OnceLock<bool>,
    /// Whether the text names a shell command that sends filters (curl, wget, httpie).
    pub shell: OnceLock<bool>,
}

/// Checks `sites` of host `text` against `knowledge` (`urls` and `not_checked` are left
/// empty for the caller, which knows what was read). `looks` is shared by every call of one
/// analysis.
pub(super) fn check_sites(
    sites: &[Site],
    knowledge: &Knowledge,
    text: &str,
    looks: &Looks,
) -> Checked {
    // A bare path that is the target of another call (`requests.get(f"{NB}/api/dcim/devices/",
    // params=...)`) is that call, not a second one.
    let owned;
    let sites = if sites.iter().any(|s| bare_path(s).is_some()) {
        let targets: std::collections::HashSet<(usize, usize)> = sites
            .iter()
            .filter(|s| bare_path(s).is_none())
            .filter_map(|s| match s {
                Site::Rest(c) => c.target.as_ref().map(|(_, r)| (r.start, r.end)),
                _ => None,
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
                    && *looks
                        .urlencode
                        .get_or_init(|| text.contains("--data-urlencode"))
                {
                    extract::curl::guard_fixes_in(text, call, &mut found);
                }
                // A fix inside a shell command is written as the shell will read it, or not
                // offered (looked for only when the text names a command).
                if call.form == CallForm::Url
                    && found.iter().any(|f| !f.fixes.is_empty())
                    && *looks
                        .shell
                        .get_or_init(|| extract::commands::names_a_command(text))
                {
                    extract::commands::guard_fixes(text, call, &mut found);
                }
                found
            }
            Site::Graphql(doc) => match knowledge.schema() {
                Some(schema) => graphql::check_document(doc, &schema),
                None => Vec::new(),
            },
            Site::NotChecked(n) => vec![unit_not_checked(n)],
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

/// The host ranges of the URL-form sites among `sites` (bare paths included).
pub(super) fn url_ranges(sites: &[Site]) -> Vec<Range<usize>> {
    sites
        .iter()
        .filter_map(|s| match s {
            Site::Rest(c) if c.form == CallForm::Url => Some(c.call_range.clone()),
            _ => None,
        })
        .collect()
}

/// From this many sites on, [`check_sites`] checks them in parallel.
const PARALLEL_SITES: usize = 64;

/// `not-checked` (an error at the unit's start) for a unit of code that was not read.
fn unit_not_checked(n: &extract::NotChecked) -> Finding {
    Finding::new(
        n.range.start..n.range.start,
        "not-checked",
        crate::finding::Severity::Error,
        format!(
            "Not checked: this code {}, so its NetBox calls were not read. Flatten the nesting to have it checked.",
            n.reason
        ),
    )
}
