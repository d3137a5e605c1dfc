//! The checks step of the pipeline: the sites the site filters kept, checked against the
//! knowledge (REST calls by `rest`, GraphQL documents by `graphql`), on all cores when there
//! are many.

use super::Knowledge;
use crate::extract::{self, CallForm, DocFound, Site, Syntax};
use crate::finding::Finding;
use crate::graphql;
use crate::intent::NotChecked;
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
    /// With [`Looks::keep`]: every site given to the checks, in their order, each REST call
    /// with the findings its checks gave (before the finding filters).
    pub sites: Vec<super::CheckedSite>,
    /// With [`Looks::parted`] and [`check_sites_owned`]'s chunks: the findings of each chunk of
    /// sites as `check` writes them, in the sites' order, after [`Checked::findings`] (left
    /// empty then): the findings are `findings` then these, never joined into one buffer.
    pub parts: Vec<Vec<super::Written>>,
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
            sites: self.sites.iter().map(|s| s.moved(from, to)).collect(),
            parts: self
                .parts
                .iter()
                .map(|p| p.iter().map(|f| moved_written(f, from, to)).collect())
                .collect(),
        }
    }
}

impl super::CheckedSite {
    /// The same site moved from host offset `from` to `to`.
    pub fn moved(&self, from: usize, to: usize) -> super::CheckedSite {
        super::CheckedSite {
            site: moved_site(&self.site, from, to),
            findings: self
                .findings
                .iter()
                .map(|f| moved_finding(f, from, to))
                .collect(),
            endpoint: self.endpoint.clone(),
        }
    }
}

/// `site` with every host range moved from host offset `from` to `to`.
pub(super) fn moved_site(site: &Site, from: usize, to: usize) -> Site {
    let mv = |r: &Range<usize>| moved_range(r, from, to);
    fn value(v: &extract::Value, mv: &dyn Fn(&Range<usize>) -> Range<usize>) -> extract::Value {
        match v {
            extract::Value::List(items) => {
                extract::Value::List(items.iter().map(|(v, r)| (value(v, mv), mv(r))).collect())
            }
            extract::Value::Joined(j) => extract::Value::Joined(Box::new(extract::Joined {
                separator: j.separator.clone(),
                separator_range: mv(&j.separator_range),
            })),
            other => other.clone(),
        }
    }
    match site {
        Site::Rest(c) => {
            let mut c = c.clone();
            c.call_range = mv(&c.call_range);
            c.filters_range = c.filters_range.as_ref().map(mv);
            if let Some((_, r)) = &mut c.target {
                *r = mv(r);
            }
            for e in &mut c.filters {
                e.key_range = mv(&e.key_range);
                e.value_range = mv(&e.value_range);
                e.value = value(&e.value, &mv);
            }
            for a in &mut c.args {
                a.name_range = mv(&a.name_range);
                a.value_range = mv(&a.value_range);
                a.value = value(&a.value, &mv);
            }
            Site::Rest(c)
        }
        Site::Graphql(d) => {
            let mut d = d.clone();
            d.map = d.map.relative_to(from).shifted(to);
            Site::Graphql(d)
        }
        Site::NotChecked(n) => Site::NotChecked(extract::NotChecked {
            range: mv(&n.range),
            ..n.clone()
        }),
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

/// [`moved_finding`] for a finding as `check` writes it.
fn moved_written(f: &super::Written, from: usize, to: usize) -> super::Written {
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
    /// Whether [`Checked::sites`] is kept (for the consumers of the analysis: live
    /// verification, the editor's code lens); off for a plain check, which needs only findings.
    pub keep: bool,
    /// Whether the findings of many sites checked in chunks ([`check_sites_owned`]) are left
    /// in [`Checked::parts`] as [`super::Written`] (for `check`, which writes them part after
    /// part) rather than joined into [`Checked::findings`]. Only where nothing reads the
    /// findings' facts: not with [`Looks::keep`].
    pub parted: bool,
}

/// [`check_sites`] given the sites: when they are many and go to the plain checks (not kept;
/// no bare path, no GraphQL document found by its shape, nothing written away from its call),
/// each chunk of sites is dropped once checked, on the thread that checked it, so that the
/// findings that follow reuse its memory; with [`Looks::parted`] the chunks' findings are left
/// in [`Checked::parts`]. The result is [`check_sites`]'s (the findings, joined, the same).
pub(super) fn check_sites_owned(
    sites: Vec<Site>,
    knowledge: &Knowledge,
    text: &str,
    looks: &Looks,
) -> Checked {
    let plain = !looks.keep
        && sites.len() >= PARALLEL_SITES
        && !sites
            .iter()
            .any(|s| bare_path(s).is_some() || is_candidate_document(s) || has_remote_origin(s));
    if !plain {
        return check_sites(&sites, knowledge, text, looks);
    }
    let mut out = Checked {
        any: true,
        calls: Vec::with_capacity(sites.len()),
        ..Checked::default()
    };
    for site in &sites {
        match site {
            Site::Rest(call) => out.calls.push(call.call_range.clone()),
            Site::Graphql(_) => out.graphql += 1,
            Site::NotChecked(_) => {}
        }
    }
    // Each part is made to its size (a collect of unknown length left up to half of its
    // buffer unused), from the sites' own lists of findings, freed at once for the next site.
    fn joined<T>(found: Vec<Vec<Finding>>, into: impl Fn(Finding) -> T) -> Vec<T> {
        let mut part = Vec::with_capacity(found.iter().map(Vec::len).sum());
        for f in found {
            part.extend(f.into_iter().map(&into));
        }
        part
    }
    let chunks = sites.into_par_iter().chunks(PARALLEL_SITES / 2);
    let found = |chunk: Vec<Site>| -> Vec<Vec<Finding>> {
        chunk
            .iter()
            .map(|site| check_one(site, knowledge, text, looks).0)
            .collect()
    };
    if looks.parted {
        out.parts = chunks
            .map(|chunk| joined(found(chunk), super::Written::from))
            .collect();
        return out;
    }
    let parts: Vec<Vec<Finding>> = chunks.map(|chunk| joined(found(chunk), |f| f)).collect();
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for part in parts {
        all.extend(part);
    }
    out.findings = all;
    out
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
    let given = sites;
    // The positions in `given` of the sites checked (with `looks.keep`).
    let mut retained: Vec<usize> = if looks.keep {
        (0..given.len()).collect()
    } else {
        Vec::new()
    };
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
        let keep = |s: &Site| bare_path(s).is_none_or(|r| !targets.contains(&(r.start, r.end)));
        retained.retain(|&i| keep(&given[i]));
        owned = sites
            .iter()
            .filter(|s| keep(s))
            .cloned()
            .collect::<Vec<Site>>();
        &owned[..]
    } else {
        sites
    };
    // GraphQL documents found in strings by their shape or tag: only NetBox's are checked
    // (their root fields say, against the schema); another API's document is no site.
    let any = !sites.is_empty();
    let owned_docs;
    let sites = if sites.iter().any(is_candidate_document) {
        let schema = knowledge.schema();
        let keep = |s: &Site| match s {
            Site::Graphql(d) if d.found != DocFound::Carried => schema
                .as_ref()
                .is_some_and(|schema| graphql::roots::is_netbox_document(d, schema)),
            _ => true,
        };
        let kept: Vec<bool> = sites.iter().map(keep).collect();
        if looks.keep {
            retained = retained
                .iter()
                .zip(&kept)
                .filter(|(_, k)| **k)
                .map(|(i, _)| *i)
                .collect();
        }
        owned_docs = sites
            .iter()
            .zip(&kept)
            .filter(|(_, k)| **k)
            .map(|(s, _)| s.clone())
            .collect::<Vec<Site>>();
        &owned_docs[..]
    } else {
        sites
    };
    let mut out = Checked {
        any,
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
    let one_kept = |site: &Site| check_one(site, knowledge, text, looks);
    let one = |site: &Site| one_kept(site).0;
    // A file of thousands of calls (one `.py` of tool calls) is checked on all cores, in
    // chunks so that each task amortises rayon's hand-off; findings keep the sites' order.
    if sites.iter().any(has_remote_origin) {
        // Some filters are written away from their call (a dict bound to a name, a helper's
        // argument, a model's field): findings are kept per site to tell which.
        // A site that sends what an earlier one sends, from the same literals (one dict
        // constant read by a thousand calls), to an endpoint written the same way, is checked
        // once: its findings are the earlier site's (the checks never read the call's own
        // range); only those on its own endpoint literal are its own.
        let mut first: std::collections::HashMap<u64, Vec<usize>> =
            std::collections::HashMap::new();
        let repeat_of: Vec<Option<usize>> = sites
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if !has_remote_origin(s) {
                    return None;
                }
                let bucket = first.entry(content_key(s)).or_default();
                let earlier = bucket.iter().copied().find(|&j| same_content(&sites[j], s));
                if earlier.is_none() {
                    bucket.push(i);
                }
                earlier
            })
            .collect();
        let check = |(site, repeat): (&Site, &Option<usize>)| {
            if repeat.is_some() {
                (Vec::new(), None)
            } else {
                one_kept(site)
            }
        };
        let (mut per_site, mut endpoints): (Vec<Vec<Finding>>, Vec<Option<String>>) =
            if sites.len() >= PARALLEL_SITES {
                sites
                    .par_iter()
                    .zip(repeat_of.par_iter())
                    .map(check)
                    .unzip()
            } else {
                sites.iter().zip(repeat_of.iter()).map(check).unzip()
            };
        for (i, of) in repeat_of.iter().enumerate() {
            if let Some(j) = *of {
                per_site[i] = on_own_target(&sites[j], &per_site[j], &sites[i]);
                // Its endpoint is written as the earlier site's.
                endpoints[i] = endpoints[j].clone();
            }
        }
        if looks.keep {
            out.sites = kept_sites(given, &retained, &per_site, &endpoints);
        }
        out.findings = one_report_per_origin(sites, per_site);
    } else if looks.keep {
        let (per_site, endpoints): (Vec<Vec<Finding>>, Vec<Option<String>>) =
            if sites.len() >= PARALLEL_SITES {
                sites.par_iter().map(one_kept).unzip()
            } else {
                sites.iter().map(one_kept).unzip()
            };
        out.sites = kept_sites(given, &retained, &per_site, &endpoints);
        out.findings = per_site.into_iter().flatten().collect();
    } else if sites.len() >= PARALLEL_SITES {
        let parts: Vec<Vec<Finding>> = sites
            .par_chunks(PARALLEL_SITES / 2)
            .map(|chunk| chunk.iter().flat_map(one).collect())
            .collect();
        // Room for all of them at once: a collect of unknown length doubled its buffer up to
        // twice the findings (~240 bytes each), the old one copied and still held.
        let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
        for part in parts {
            all.extend(part);
        }
        out.findings = all;
    } else {
        out.findings = sites.iter().flat_map(one).collect();
    }
    out
}

/// A site's findings and, for a REST call when the sites are kept ([`Looks::keep`]), the
/// endpoint key its filters were checked against (the agents' unchecked-target rule reads it).
fn check_one(
    site: &Site,
    knowledge: &Knowledge,
    text: &str,
    looks: &Looks,
) -> (Vec<Finding>, Option<String>) {
    match site {
        Site::Rest(call) => {
            let Some(index) = &knowledge.index else {
                return (Vec::new(), None);
            };
            let (mut found, endpoint) = if looks.keep {
                crate::rest::check_call_resolved(call, index)
            } else {
                (crate::rest::check_call(call, index), None)
            };
            if call.declared {
                declared_fixes_uncertain(call, &mut found);
            }
            if !call.syntax.is_pairs() {
                merging_renames_uncertain(call, &mut found);
            }
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
            (found, endpoint)
        }
        Site::Graphql(doc) => match knowledge.schema() {
            Some(schema) if doc.holes.is_empty() => (graphql::check_document(doc, &schema), None),
            Some(schema) => (check_with_holes(doc, &schema), None),
            None => (Vec::new(), None),
        },
        Site::NotChecked(n) => (vec![unit_not_checked(n)], None),
    }
}

/// Every site of `given` with the findings and endpoint of the REST calls checked
/// (`retained[k]` is the position in `given` of the site whose findings are `per_site[k]` and
/// endpoint `endpoints[k]`).
fn kept_sites(
    given: &[Site],
    retained: &[usize],
    per_site: &[Vec<Finding>],
    endpoints: &[Option<String>],
) -> Vec<super::CheckedSite> {
    let mut of: Vec<Option<(&Vec<Finding>, &Option<String>)>> = vec![None; given.len()];
    for (&i, found) in retained.iter().zip(per_site.iter().zip(endpoints)) {
        of[i] = Some(found);
    }
    given
        .iter()
        .zip(of)
        .map(|(site, found)| match (site, found) {
            (Site::Rest(_), Some((f, endpoint))) => super::CheckedSite {
                site: site.clone(),
                findings: f.clone(),
                endpoint: endpoint.clone(),
            },
            _ => super::CheckedSite {
                site: site.clone(),
                findings: Vec::new(),
                endpoint: None,
            },
        })
        .collect()
}

/// True for a GraphQL document found in a string by its shape or tag, not sent by a call.
fn is_candidate_document(site: &Site) -> bool {
    matches!(site, Site::Graphql(d) if d.found != DocFound::Carried)
}

/// The findings of a document built by a template whose holes (written as `_`s: a name) stand
/// for values known only at run time: a finding is kept when it does not depend on what the hole
/// holds. Each hole outside a GraphQL string is also filled with a number and with a string (of
/// its length); a finding is kept when every filling that parses gives it (same range, same
/// code) and it is not inside a hole; with no other filling that parses (a hole in a selection,
/// a name), and for a hole inside a GraphQL string, no finding that touches a hole is kept.
fn check_with_holes(doc: &extract::GraphqlDoc, schema: &graphql::NetboxSchema) -> Vec<Finding> {
    let host = |h: &Range<usize>| doc.map.range_to_host(h.clone());
    let holes: Vec<(Range<usize>, bool)> = doc
        .holes
        .iter()
        .filter(|h| h.end <= doc.text.len())
        .map(|h| (h.clone(), in_graphql_string(&doc.text, h.start)))
        .collect();
    let found = graphql::check_document(doc, schema);
    let outside: Vec<&Range<usize>> = holes.iter().filter(|(_, s)| !s).map(|(h, _)| h).collect();
    // The other fillings that parse, each as the (range, code) of its findings.
    let mut others: Vec<std::collections::HashSet<(usize, usize, &'static str)>> = Vec::new();
    if !outside.is_empty() {
        for fill in [b'0', b'"'] {
            let mut text = doc.text.clone().into_bytes();
            for h in &outside {
                if h.len() < 2 && fill == b'"' {
                    continue;
                }
                text[(*h).clone()].fill(b'0');
                if fill == b'"' {
                    text[(*h).clone()].fill(b'_');
                    text[h.start] = b'"';
                    text[h.end - 1] = b'"';
                }
            }
            let Ok(text) = String::from_utf8(text) else {
                continue;
            };
            let variant = extract::GraphqlDoc {
                text,
                ..doc.clone()
            };
            let got = graphql::check_document(&variant, schema);
            if got.iter().any(|f| f.code == "graphql-syntax") {
                continue;
            }
            others.push(
                got.iter()
                    .map(|f| (f.range.start, f.range.end, f.code))
                    .collect(),
            );
        }
    }
    found
        .into_iter()
        .filter(|f| {
            holes.iter().all(|(h, in_string)| {
                let h = host(h);
                if !touches(&f.range, &h) {
                    return true;
                }
                let inside = h.start <= f.range.start && f.range.end <= h.end;
                !in_string
                    && !inside
                    && !others.is_empty()
                    && others
                        .iter()
                        .all(|o| o.contains(&(f.range.start, f.range.end, f.code)))
            })
        })
        .collect()
}

/// True when byte `at` of GraphQL `text` is inside a string (`"..."` or a `"""` block
/// string); comments are skipped.
fn in_graphql_string(text: &str, at: usize) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let mut block = false;
    let mut string = false;
    while i < at.min(b.len()) {
        if block {
            if b[i..].starts_with(b"\"\"\"") {
                block = false;
                i += 3;
                continue;
            }
        } else if string {
            match b[i] {
                b'\\' => i += 1,
                b'"' | b'\n' => string = false,
                _ => {}
            }
        } else if b[i..].starts_with(b"\"\"\"") {
            block = true;
            i += 3;
            continue;
        } else if b[i] == b'"' {
            string = true;
        } else if b[i] == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        }
        i += 1;
    }
    block || string
}

/// True when finding range `f` touches hole `h` (overlaps it, or is empty inside it).
fn touches(f: &Range<usize>, h: &Range<usize>) -> bool {
    (f.start < h.end && h.start < f.end) || (f.is_empty() && h.start <= f.start && f.start <= h.end)
}

/// A hash of what a REST site sends (its form, its target as written, its filters and
/// arguments with their ranges), its call's range and its target's range aside.
fn content_key(site: &Site) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if let Site::Rest(c) = site {
        std::mem::discriminant(&c.form).hash(&mut h);
        std::mem::discriminant(&c.syntax).hash(&mut h);
        c.target.as_ref().map(|(t, _)| t).hash(&mut h);
        c.filters_range.hash(&mut h);
        c.declared.hash(&mut h);
        for e in &c.filters {
            (&e.key, &e.key_range, &e.value_range).hash(&mut h);
        }
        for a in &c.args {
            (&a.name, &a.name_range, &a.value_range).hash(&mut h);
        }
    }
    h.finish()
}

/// True when REST sites `a` and `b` send the same thing from the same literals (all that
/// [`content_key`] hashes, compared whole, values included).
fn same_content(a: &Site, b: &Site) -> bool {
    let (Site::Rest(a), Site::Rest(b)) = (a, b) else {
        return false;
    };
    a.form == b.form
        && a.syntax == b.syntax
        && a.target.as_ref().map(|(t, _)| t) == b.target.as_ref().map(|(t, _)| t)
        && a.filters_range == b.filters_range
        && a.declared == b.declared
        && a.filters == b.filters
        && a.args == b.args
}

/// The findings of `site`, a site that sends what `earlier` sends (see [`content_key`]), from
/// `found`, the findings of `earlier`: those on the endpoint as written, moved to `site`'s own
/// endpoint literal (the others, on the shared literals, are `earlier`'s to report).
fn on_own_target(earlier: &Site, found: &[Finding], site: &Site) -> Vec<Finding> {
    let (Site::Rest(a), Site::Rest(b)) = (earlier, site) else {
        return Vec::new();
    };
    let (Some((_, from)), Some((_, to))) = (&a.target, &b.target) else {
        return Vec::new();
    };
    if from == to {
        return Vec::new();
    }
    found
        .iter()
        .filter(|f| f.range == *from)
        .map(|f| {
            let mut f = f.clone();
            f.range = to.clone();
            for e in f.fixes.iter_mut().flat_map(|x| x.edits.iter_mut()) {
                if e.range == *from {
                    e.range = to.clone();
                }
            }
            f
        })
        .collect()
}

/// True when a REST site's target or a filter is written outside the call's own range.
fn has_remote_origin(site: &Site) -> bool {
    let Site::Rest(c) = site else {
        return false;
    };
    let outside = |r: &Range<usize>| r.start < c.call_range.start || r.end > c.call_range.end;
    c.filters
        .iter()
        .any(|e| outside(&e.key_range) || outside(&e.value_range))
        || c.target.as_ref().is_some_and(|(_, r)| outside(r))
}

/// The findings of `sites` (one list per site), one report per origin: a literal written
/// away from its call that several sites send (a dict constant used by two calls, a helper's
/// literal sent by each of its callers) is reported once, at its first site, and a fix of it
/// is never certain (it would change every call it feeds; the other calls may want it as it
/// is).
fn one_report_per_origin(sites: &[Site], per_site: Vec<Vec<Finding>>) -> Vec<Finding> {
    use std::collections::{HashMap, HashSet};
    let mut uses: HashMap<(usize, usize), u32> = HashMap::new();
    for site in sites {
        let Site::Rest(c) = site else {
            continue;
        };
        let outside = |r: &Range<usize>| r.start < c.call_range.start || r.end > c.call_range.end;
        let mut own: HashSet<(usize, usize)> = HashSet::new();
        let ranges = c
            .filters
            .iter()
            .flat_map(|e| [&e.key_range, &e.value_range])
            .chain(c.target.as_ref().map(|(_, r)| r));
        for r in ranges.filter(|r| outside(r)) {
            if own.insert((r.start, r.end)) {
                *uses.entry((r.start, r.end)).or_default() += 1;
            }
        }
    }
    let shared: Vec<(usize, usize)> = uses
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(r, _)| r)
        .collect();
    let in_shared = |r: &Range<usize>| {
        shared.iter().any(|&(s, e)| {
            (r.start < e && s < r.end) || (r.is_empty() && s <= r.start && r.start <= e)
        })
    };
    let mut seen: HashSet<(usize, usize, &'static str)> = HashSet::new();
    let mut out = Vec::new();
    for (site, found) in sites.iter().zip(per_site) {
        let call = match site {
            Site::Rest(c) => Some(&c.call_range),
            _ => None,
        };
        for mut f in found {
            let remote = call.is_some_and(|c| f.range.start < c.start || f.range.end > c.end);
            if remote && !seen.insert((f.range.start, f.range.end, f.code)) {
                continue;
            }
            if remote
                && (in_shared(&f.range)
                    || f.fixes
                        .iter()
                        .flat_map(|x| &x.edits)
                        .any(|e| in_shared(&e.range)))
            {
                f.fixes.iter_mut().for_each(|x| x.certain = false);
            }
            out.push(f);
        }
    }
    out
}

/// A rename of a filter to a key the same mapping already has (`{"device_role": "leaf",
/// "role": "spine"}`) is no certain fix: a dict (Python, JSON, YAML) holds one value per key,
/// so one of the two values would be lost.
fn merging_renames_uncertain(call: &extract::RestCall, found: &mut [Finding]) {
    for f in found {
        for fix in &mut f.fixes {
            let merges = fix.edits.iter().any(|e| {
                call.filters.iter().any(|k| k.key_range == e.range)
                    && call
                        .filters
                        .iter()
                        .any(|k| k.key == e.new_text && k.key_range != e.range)
            });
            if merges {
                fix.certain = false;
            }
        }
    }
}

/// The fixes of a call whose filter names are declared names of the program (a model's fields,
/// a function's parameters): a fix renaming one is offered, never certain.
fn declared_fixes_uncertain(call: &extract::RestCall, found: &mut [Finding]) {
    for f in found {
        for fix in &mut f.fixes {
            let renames = fix.edits.iter().any(|e| {
                call.filters
                    .iter()
                    .any(|k| e.range.start < k.key_range.end && k.key_range.start < e.range.end)
            });
            if renames {
                fix.certain = false;
            }
        }
    }
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
            "Not checked: {}, so its NetBox calls were not read. {}",
            n.reason, n.advice
        ),
    )
}
