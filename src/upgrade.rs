//! Upgrade readiness: what changes for a document when its NetBox moves from one release (the
//! current one) to a newer one (the target). Pure: a text and two [`Knowledge`]s in, findings
//! out; `check --upgrade-to` (`cli::upgrade`) and the editor's `upgradeTo` setting
//! (`server::diagnostics`) render them.
//!
//! The document is checked against both releases. A call is the same call on both sides when
//! its findings cover the same bytes; only calls whose verdict differs are reported:
//! - clean on the current release, wrong on the target ([`BREAKS`], or [`CHANGES`] for a
//!   parameter that becomes a no-op): the target's finding, with its fixes. A fix that is also
//!   clean on the current release is the certain (preferred) one, so a file can be made ready
//!   before the upgrade; a fix only the target reads is offered, not certain.
//! - wrong on the current release, clean on the target ([`CHANGES`], "starts to work"): a
//!   filter, lookup or parameter the current release ignores or refuses that the target reads,
//!   so the call's result changes with the upgrade.
//!
//! Calls wrong on both releases are the plain check's business and are not repeated here.

pub mod announced;

use crate::analysis::{analyze, Knowledge};
use crate::extract::HostKind;
use crate::finding::{AdviceKind, Finding, Fix, Severity};
use std::ops::Range;

pub use crate::catalogue::{UpgradeKind as Kind, ANNOUNCED, BREAKS, CHANGES};

/// A release-note entry that explains a kind of change: cited in the message of every change of
/// that kind whose step from the current to the target release crosses `release`.
#[derive(Debug, Clone, Copy)]
pub struct Note {
    /// The release that made the change (`4.7.0`).
    pub release: &'static str,
    pub kind: Kind,
    /// What the finding (the target's, or the current's for [`Kind::StartsToWork`]) is about,
    /// by its facts ([`crate::finding::Facts`]): any one of these names it.
    pub mentions: &'static [Mention],
    /// The citation: release notes section and issue.
    pub cite: &'static str,
}

/// A fact of a finding a release note is about ([`Note::mentions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mention {
    /// A filter whose key starts with this (`rear_port_position` also names
    /// `rear_port_position__gt`).
    FilterStarts(&'static str),
    /// A filter whose key ends with this (a lookup: `__any`).
    FilterEnds(&'static str),
    /// The REST endpoint (index key) or GraphQL root field the call goes to.
    Endpoint(&'static str),
    /// A finding of this code.
    Code(&'static str),
}

impl Mention {
    /// True when finding `f`'s facts name it.
    fn names(self, f: &Finding) -> bool {
        let filter = f.facts.filter.as_deref().unwrap_or("");
        match self {
            Mention::FilterStarts(p) => !filter.is_empty() && filter.starts_with(p),
            Mention::FilterEnds(s) => !filter.is_empty() && filter.ends_with(s),
            Mention::Endpoint(e) => f.facts.endpoint.as_deref() == Some(e),
            Mention::Code(c) => f.code == c,
        }
    }
}

use Mention::{Code, Endpoint, FilterEnds, FilterStarts};

/// The release notes of the steps between the shipped releases, per kind of change
/// (`docs/release-notes/version-4.x.md`; docs/upgrade.md lists the same entries).
pub const NOTES: &[Note] = &[
    Note {
        release: "4.5.0",
        kind: Kind::GraphqlGrammar,
        mentions: &[Code("graphql-id-list"), Code("graphql-choice-form")],
        cite: "release notes 4.5.0, Breaking Changes (netbox#19338): GraphQL filters on object IDs and enums take a lookup, `id: 123` becomes `id: {exact: 123}`",
    },
    Note {
        release: "4.5.5",
        kind: Kind::Truncated,
        mentions: &[],
        cite: "release notes 4.5.5 (netbox#20385): MAX_PAGE_SIZE is enforced on GraphQL lists",
    },
    Note {
        release: "4.7.0",
        kind: Kind::GraphqlGrammar,
        mentions: &[
            Endpoint("service_list"),
            Endpoint("service"),
            Endpoint("service_template_list"),
            Endpoint("service_template"),
        ],
        cite: "release notes 4.7.0, Breaking Changes (netbox#20285): the service filters changed shape, the nested `ports` lookup became the flat lists `port`, `port__gt`, `port__gte`, `port__lt`, `port__lte` beside `port_mappings`, and `ServiceProtocolEnum` dropped its `ROLE_` prefix (`protocol: [TCP]`)",
    },
    Note {
        release: "4.5.0",
        kind: Kind::RemovedEndpoint,
        mentions: &[Endpoint("extras/object-types")],
        cite: "release notes 4.5.0, Breaking Changes (netbox#19898): /api/extras/object-types/ was removed; /api/core/object-types/ (from 4.4) replaces it",
    },
    Note {
        release: "4.5.0",
        kind: Kind::RemovedFilter,
        mentions: &[FilterStarts("rear_port_position"), FilterStarts("is_staff")],
        cite: "release notes 4.5.0, Breaking Changes: front ports map to rear ports through PortMapping (no `rear_port_position`), and the User model lost `is_staff` (netbox#16137)",
    },
    Note {
        release: "4.7.0",
        kind: Kind::RemovedFilter,
        mentions: &[FilterStarts("protocol__"), FilterStarts("port__empty")],
        cite: "release notes 4.7.0, Breaking Changes (netbox#20285): the character lookups of `protocol` and `port__empty` are gone",
    },
    Note {
        release: "4.7.0",
        kind: Kind::NoOp,
        mentions: &[FilterStarts("exclude")],
        cite: "release notes 4.7.0, Breaking Changes (netbox#21025): config context is always included and `?exclude=config_context` is silently ignored",
    },
    Note {
        release: "4.7.3",
        kind: Kind::RefusedValue,
        mentions: &[FilterStarts("mac_address")],
        cite: "release notes 4.7.3 (netbox#23328): malformed values to certain filters are a 400 (a malformed MAC matched nothing before)",
    },
    Note {
        release: "4.5.2",
        kind: Kind::StartsToWork,
        mentions: &[FilterStarts("omit")],
        cite: "release notes 4.5.2 (netbox#21244): `?omit=` leaves the named fields out",
    },
    Note {
        release: "4.6.0",
        kind: Kind::StartsToWork,
        mentions: &[FilterStarts("start")],
        cite: "release notes 4.6.0 (netbox#21363): cursor-based pagination with `start`",
    },
    Note {
        release: "4.6.6",
        kind: Kind::StartsToWork,
        mentions: &[FilterEnds("__any")],
        cite: "release notes 4.6.6 (netbox#22685): an \"any\" lookup for `tag` and `tag_id`",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &[FilterStarts("rear_port_id"), FilterStarts("front_port_id")],
        cite: "release notes 4.7.3 (netbox#23326): the FieldError of front and rear ports filtered by `rear_port_id` / `front_port_id` is fixed",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &[FilterStarts("provider_account")],
        cite: "release notes 4.7.3 (netbox#23325): the FieldError of circuits filtered by provider account is fixed",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &[FilterStarts("installed_module_id")],
        cite: "release notes 4.7.3 (netbox#23345): `installed_module_id` is validated against modules",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &[FilterEnds("__empty")],
        cite: "release notes 4.7.3 (netbox#23340): `__empty` on number and date filters works",
    },
];

/// The citations of [`NOTES`] for a change of `kind` about finding `f` (by its facts; a note
/// that mentions nothing applies to every change of its kind), on the step from release `from`
/// to `to`.
fn cite(kind: Kind, f: &Finding, from: &str, to: &str) -> Vec<&'static str> {
    let v = crate::index::embedded::parse_version;
    let (Some(from), Some(to)) = (v(from), v(to)) else {
        return Vec::new();
    };
    NOTES
        .iter()
        .filter(|n| {
            n.kind == kind && (n.mentions.is_empty() || n.mentions.iter().any(|m| m.names(f)))
        })
        .filter(|n| v(n.release).is_some_and(|r| from < r && r <= to))
        .map(|n| n.cite)
        .collect()
}

/// The message of a change: `lead`, then finding `f`'s statement (without the plain check's
/// advice to pick another release: both are picked), then the release-note citations of the
/// change that `f` does not cite already ([`crate::finding::Facts::cites`]).
fn with_notes(lead: &str, kind: Kind, f: &Finding, from: &str, to: &str) -> String {
    let said = match f.facts.advice {
        Some(a) if a.kind == AdviceKind::SelectRelease => f.statement(),
        _ => f.message.as_str().into(),
    };
    let message = format!("{lead}{said}");
    let notes: Vec<&str> = cite(kind, f, from, to)
        .into_iter()
        .filter(|n| {
            let release = n.split(',').next().unwrap_or(n);
            let release = release.split(" (").next().unwrap_or(release);
            !f.facts.cites.is_some_and(|c| c.starts_with(release))
        })
        .collect();
    if notes.is_empty() {
        message
    } else {
        format!("{message} ({})", notes.join("; "))
    }
}

/// One change the upgrade makes for a call: a finding with code [`BREAKS`] or [`CHANGES`] whose
/// message names both releases, its kind, and the target release it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub finding: Finding,
    pub kind: Kind,
    /// The target NetBox release, e.g. `4.7.3`.
    pub release: String,
}

/// The NetBox release a knowledge is of (`4.7.3`), from its index, else its schema; empty when
/// neither says.
pub fn release_of(k: &Knowledge) -> String {
    k.index
        .as_ref()
        .map(|i| i.netbox_version.clone())
        .filter(|v| !v.is_empty())
        .or_else(|| k.schema().map(|s| s.netbox_version.clone()))
        .unwrap_or_default()
}

/// The changes for `text` (a host document of kind `kind`) when NetBox moves from `current` to
/// `target`, sorted by position. Never panics on user input (the analysis does not).
pub fn compare(text: &str, kind: HostKind, current: &Knowledge, target: &Knowledge) -> Vec<Change> {
    let now = analyze(text, kind, current);
    compare_with(text, kind, &now, current, target)
}

/// [`compare`] with the findings of `text` on `current` already computed (the editor has them).
///
/// Linear in the document (issue 34: 1,000 breaking calls took 13–36 s, each fix being checked
/// by analysing the whole document twice): both releases' findings are matched through sorted
/// indexes ([`SiteIndex`]), and the fixes are checked in rounds ([`judge_fixes`]) that apply
/// many fixes at once, each on its own lines.
pub fn compare_with(
    text: &str,
    kind: HostKind,
    now: &[Finding],
    current: &Knowledge,
    target: &Knowledge,
) -> Vec<Change> {
    let then = analyze(text, kind, target);
    compare_both(text, kind, now, &then, current, target)
}

/// [`compare_with`] with the findings of `text` on both releases already computed (`now` on
/// `current`, `then` on `target`): a caller that also needs `then` (the forecast of a target
/// past the shipped releases) analyses it once.
pub fn compare_both(
    text: &str,
    kind: HostKind,
    now: &[Finding],
    then: &[Finding],
    current: &Knowledge,
    target: &Knowledge,
) -> Vec<Change> {
    compare_rounds(text, kind, now, then, current, target, false, MAX_ROUNDS)
}

/// [`compare_with`] in at most `rounds` rounds; `one_per_round` checks each fix alone
/// ([`judge_fixes_with`]).
#[allow(clippy::too_many_arguments)] // both sides' texts, findings and knowledge
fn compare_rounds(
    text: &str,
    kind: HostKind,
    now: &[Finding],
    then: &[Finding],
    current: &Knowledge,
    target: &Knowledge,
    one_per_round: bool,
    rounds: usize,
) -> Vec<Change> {
    let (from, to) = (release_of(current), release_of(target));
    let now_serious = SiteIndex::new(now);
    let then_serious = SiteIndex::new(then);
    let sides = Sides {
        text,
        host: kind,
        current,
        target,
        now: &now_serious,
        then: &then_serious,
        from: &from,
        to: &to,
    };
    let mut out = Vec::new();
    let mut breaking = Vec::new();
    for f in then.iter().filter(|f| serious(f)) {
        if now_serious.any_same_site(text, &f.range) {
            continue; // wrong on both: the plain check reports it
        }
        let kind = Kind::of_new(f);
        let lead = match kind {
            Kind::NoOp => format!("Becomes a no-op on NetBox {to} (read by {from})"),
            Kind::Truncated => {
                format!("Returns fewer objects on NetBox {to} (all of them on {from})")
            }
            _ => format!("Breaks on NetBox {to} (works on {from})"),
        };
        let finding = Finding::new(
            f.range.clone(),
            kind.code(),
            severity(kind),
            with_notes(&format!("{lead}: "), kind, f, &from, &to),
        );
        breaking.push(f);
        out.push(Change {
            finding,
            kind,
            release: to.clone(),
        });
    }
    let judged = judge_fixes_with(&sides, &breaking, rounds, one_per_round);
    for (change, fixes) in out.iter_mut().zip(judged) {
        change.finding.fixes = fixes;
    }
    for n in now.iter().filter(|n| serious(n)) {
        if then_serious.any_same_site(text, &n.range) {
            continue;
        }
        let finding = Finding::new(
            n.range.clone(),
            CHANGES,
            severity(Kind::StartsToWork),
            with_notes(
                &format!(
                    "Starts to work on NetBox {to}, so the result of this call changes with the upgrade. On {from}: "
                ),
                Kind::StartsToWork,
                n,
                &from,
                &to,
            ),
        );
        out.push(Change {
            finding,
            kind: Kind::StartsToWork,
            release: to.clone(),
        });
    }
    out.sort_by_key(|c| c.finding.sort_key());
    out
}

/// Most rounds of fix checks per document (each analyses the document on both releases). A
/// round holds every fix not yet checked whose lines (on a crowded line: whose part of it,
/// [`narrow_crowded`]) no other fix of the round touches, so real documents need as many rounds
/// as one place holds fixes (one to a few); findings at one place with more fixes than this get
/// no fix for the rest, and are still reported: the work stays linear in the document.
pub const MAX_ROUNDS: usize = 16;

/// The serious findings (errors and warnings) of one release, sorted by start, for the
/// questions the comparison asks of them in logarithmic time: is a finding at the same site
/// ([`same_site`]), and which codes start in a region.
struct SiteIndex<'f> {
    /// Sorted by `(start, end)`.
    by_start: Vec<&'f Finding>,
    /// `max_end[i]`: the largest end among `by_start[..=i]`.
    max_end: Vec<usize>,
    /// Every end, sorted.
    ends: Vec<usize>,
    /// Every empty range's offset, sorted (an empty range equals only itself).
    empty: Vec<usize>,
}

impl<'f> SiteIndex<'f> {
    fn new(findings: &'f [Finding]) -> SiteIndex<'f> {
        let mut by_start: Vec<&Finding> = findings.iter().filter(|f| serious(f)).collect();
        by_start.sort_by_key(|f| (f.range.start, f.range.end));
        let mut max_end = Vec::with_capacity(by_start.len());
        let mut m = 0;
        for f in &by_start {
            m = m.max(f.range.end);
            max_end.push(m);
        }
        let mut ends: Vec<usize> = by_start.iter().map(|f| f.range.end).collect();
        ends.sort_unstable();
        ends.dedup();
        let mut empty: Vec<usize> = by_start
            .iter()
            .filter(|f| f.range.is_empty())
            .map(|f| f.range.start)
            .collect();
        empty.dedup();
        SiteIndex {
            by_start,
            max_end,
            ends,
            empty,
        }
    }

    /// True when `same_site(text, e, r)` holds for some finding `e` here, in O(log n):
    /// - equal: an empty `r` and an empty finding at the same offset (non-empty equal ranges
    ///   overlap);
    /// - overlapping: among the findings starting before `r.end`, the largest end is past
    ///   `r.start`;
    /// - `e` first (`e.start <= r.start`) and ending at most 4 bytes before `r.start`: then
    ///   `e.end <= r.start`, and the gap depends only on `e.end`, so each of the at most 5
    ///   distinct ends in reach is tried once;
    /// - `r` first (`e.start > r.start`) and `e` starting at most 4 bytes after `r.end`: each
    ///   of the at most 5 distinct starts in reach is tried once.
    fn any_same_site(&self, text: &str, r: &Range<usize>) -> bool {
        if r.is_empty() && self.empty.binary_search(&r.start).is_ok() {
            return true;
        }
        let before_end = self.by_start.partition_point(|f| f.range.start < r.end);
        if before_end > 0 && self.max_end[before_end - 1] > r.start {
            return true;
        }
        let gap_ok = |from: usize, to: usize| {
            text.get(from..to).is_some_and(|gap| {
                gap.len() <= 4
                    && gap.bytes().all(|c| {
                        matches!(c, b'=' | b':' | b'"' | b'\'' | b' ' | b'\t' | b'{' | b'[')
                    })
            })
        };
        let lo = self.ends.partition_point(|&e| e + 4 < r.start);
        for &end in &self.ends[lo..] {
            if end > r.start {
                break;
            }
            if gap_ok(end, r.start) {
                return true;
            }
        }
        let mut i = self
            .by_start
            .partition_point(|f| f.range.start < r.end || f.range.start <= r.start);
        while let Some(f) = self.by_start.get(i) {
            let start = f.range.start;
            if start > r.end + 4 {
                break;
            }
            if gap_ok(r.end, start) {
                return true;
            }
            i = self.by_start.partition_point(|g| g.range.start <= start);
        }
        false
    }

    /// Codes of the findings starting within `region` (its end included), sorted.
    fn codes_in(&self, region: &Range<usize>) -> Vec<&'f str> {
        let lo = self
            .by_start
            .partition_point(|f| f.range.start < region.start);
        let hi = self
            .by_start
            .partition_point(|f| f.range.start <= region.end);
        let mut codes: Vec<&str> = self.by_start[lo..hi.max(lo)]
            .iter()
            .map(|f| f.code)
            .collect();
        codes.sort_unstable();
        codes
    }
}

/// The document and both releases' findings, to judge a target finding's fixes.
struct Sides<'a> {
    text: &'a str,
    host: HostKind,
    current: &'a Knowledge,
    target: &'a Knowledge,
    now: &'a SiteIndex<'a>,
    then: &'a SiteIndex<'a>,
    from: &'a str,
    to: &'a str,
}

/// One fix of a target finding, to be checked: the lines its edits touch (`region`, the end
/// at the line's end, its newline excluded) and those lines once fixed.
struct Candidate<'f> {
    finding: usize,
    fix: &'f Fix,
    code: &'static str,
    region: Range<usize>,
    /// The host range of the fix's edits.
    edits: Range<usize>,
    fixed_lines: String,
}

/// What a checked fix gave: accepted by the target (else dropped), and whether the current
/// release accepts it too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Unchecked,
    Refused,
    Accepted { both: bool },
}

impl Sides<'_> {
    /// The candidate for `fix` of finding number `finding`: `None` when it changes nothing
    /// or its edits do not fall on character boundaries.
    fn candidate<'f>(&self, finding: usize, f: &Finding, fix: &'f Fix) -> Option<Candidate<'f>> {
        let text = self.text;
        let start = fix.edits.iter().map(|e| e.range.start).min()?;
        let end = fix.edits.iter().map(|e| e.range.end).max()?;
        let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
        let line_end = text.get(end..)?.find('\n').map_or(text.len(), |i| end + i);
        let mut c = Candidate {
            finding,
            fix,
            code: f.code,
            region: line_start..line_end,
            edits: start..end,
            fixed_lines: String::new(),
        };
        c.fixed_lines = self.fixed_in(&c)?;
        Some(c)
    }

    /// The text of `c.region` with `c.fix` applied; `None` when it changes nothing (or an
    /// edit is outside the region or off a character boundary).
    fn fixed_in(&self, c: &Candidate) -> Option<String> {
        let at = c.region.start;
        let local: Vec<crate::finding::Edit> = c
            .fix
            .edits
            .iter()
            .map(|e| {
                Some(crate::finding::Edit {
                    range: e.range.start.checked_sub(at)?..e.range.end.checked_sub(at)?,
                    new_text: e.new_text.clone(),
                })
            })
            .collect::<Option<_>>()?;
        let lines = self.text.get(c.region.clone())?;
        let fixed = crate::fix::apply(lines, &local);
        (fixed != lines).then_some(fixed)
    }
}

/// A line holding more fixes than this (a minified JSON file of many calls, a generated line
/// of URLs) has its fixes judged each in its own part of the line, between the neighbouring
/// findings, rather than by the whole line: else it would need one round per fix.
const CROWDED: usize = 4;

/// Narrows the regions of the candidates of each line holding more than [`CROWDED`] of them:
/// the line is cut in the gaps between clusters of findings (a finding with its fixes' edits;
/// overlapping ones form one cluster), each candidate gets its cluster's part, and its fixed
/// text is made again for it. A gap is cut at the character in its middle (the character
/// boundary at or before its middle byte, so a multi-byte character is left out whole and
/// never split); clusters that touch share a part.
fn narrow_crowded(sides: &Sides, breaking: &[&Finding], candidates: &mut [Candidate]) {
    let mut by_line: std::collections::BTreeMap<(usize, usize), Vec<usize>> = Default::default();
    for (j, c) in candidates.iter().enumerate() {
        by_line
            .entry((c.region.start, c.region.end))
            .or_default()
            .push(j);
    }
    for ((line_start, line_end), group) in by_line {
        if group.len() <= CROWDED {
            continue;
        }
        // Clusters: each candidate's finding range joined with its edits, merged when they meet.
        let mut spans: Vec<(Range<usize>, usize)> = group
            .iter()
            .map(|&j| {
                let f = &breaking[candidates[j].finding].range;
                let e = &candidates[j].edits;
                (f.start.min(e.start)..f.end.max(e.end), j)
            })
            .collect();
        spans.sort_by_key(|(r, _)| (r.start, r.end));
        let mut clusters: Vec<(Range<usize>, Vec<usize>)> = Vec::new();
        for (r, j) in spans {
            match clusters.last_mut() {
                Some((c, members)) if r.start <= c.end => {
                    c.end = c.end.max(r.end);
                    members.push(j);
                }
                _ => clusters.push((r, vec![j])),
            }
        }
        // Parts: consecutive clusters, cut at the character in the middle of a gap (left out
        // of both parts, so no finding counts in two); each part's region ends before the cut
        // (a finding starting at its end counts in it, as at a line's end). Finding and edit
        // bounds are character boundaries, so that character lies wholly in the gap.
        let mut part_start = line_start;
        let mut members: Vec<usize> = Vec::new();
        for (k, (_, cluster)) in clusters.iter().enumerate() {
            if k > 0 {
                let (gap_start, gap_end) = (clusters[k - 1].0.end, clusters[k].0.start);
                let mut mid = gap_start + (gap_end - gap_start) / 2;
                while mid > gap_start && !sides.text.is_char_boundary(mid) {
                    mid -= 1;
                }
                let cut = sides.text.get(mid..gap_end).and_then(|t| t.chars().next());
                if let Some(ch) = cut.filter(|_| gap_end > gap_start) {
                    for &j in &members {
                        candidates[j].region = part_start..mid;
                    }
                    members.clear();
                    part_start = mid + ch.len_utf8();
                }
            }
            members.extend(cluster);
        }
        for &j in &members {
            candidates[j].region = part_start..line_end;
        }
        for &j in &group {
            match sides.fixed_in(&candidates[j]) {
                Some(t) => candidates[j].fixed_lines = t,
                None => candidates[j].region = line_start..line_end, // keep the whole line
            }
        }
    }
}

/// The fixes of each target finding in `breaking` that the target accepts at that call, each
/// re-checked on both releases: certain only when it was certain and the current release
/// accepts it too (at most one per finding), else offered for the target with a title that
/// says so; the form that works on both releases first.
///
/// The fixes are checked in at most `rounds` rounds: each round applies a set of fixes whose
/// lines do not meet (first fit by position, which needs as many rounds as the most fixes on
/// one line, or on one part of a crowded line) and analyses the result once per release; a fix
/// is judged by the findings on its own lines, as when it was applied alone. `one_per_round`
/// checks each fix alone, in a round of its own and by its whole lines, as before issue 34
/// (the tests compare both).
fn judge_fixes_with(
    sides: &Sides,
    breaking: &[&Finding],
    rounds: usize,
    one_per_round: bool,
) -> Vec<Vec<Fix>> {
    let mut candidates: Vec<Candidate> = Vec::new();
    for (i, f) in breaking.iter().enumerate() {
        for fix in &f.fixes {
            if let Some(c) = sides.candidate(i, f, fix) {
                candidates.push(c);
            }
        }
    }
    if !one_per_round {
        narrow_crowded(sides, breaking, &mut candidates);
    }
    // Rounds by first fit in position order: a min-heap of (end of the round's last region,
    // round); a candidate joins the round that ended first if it ended before the candidate's
    // region starts.
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&c| (candidates[c].region.start, candidates[c].region.end));
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut free: std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>> =
        std::collections::BinaryHeap::new();
    for c in order {
        let region = &candidates[c].region;
        let joined = match free.peek() {
            Some(std::cmp::Reverse((end, round))) if !one_per_round && *end < region.start => {
                let round = *round;
                free.pop();
                Some(round)
            }
            _ => None,
        };
        let round = match joined {
            Some(r) => r,
            None if members.len() < rounds => {
                members.push(Vec::new());
                members.len() - 1
            }
            None => continue, // over the budget: this fix is not offered
        };
        members[round].push(c);
        free.push(std::cmp::Reverse((region.end, round)));
    }
    let mut verdicts = vec![Verdict::Unchecked; candidates.len()];
    for round in &members {
        judge_round(sides, &candidates, round, &mut verdicts);
    }
    let mut out: Vec<Vec<Fix>> = vec![Vec::new(); breaking.len()];
    // Candidates are in finding order, then in the finding's own order of fixes.
    for (c, verdict) in candidates.iter().zip(verdicts) {
        let Verdict::Accepted { both } = verdict else {
            continue;
        };
        let fixes = &mut out[c.finding];
        let certain = c.fix.certain && both && !fixes.iter().any(|x| x.certain);
        fixes.push(Fix {
            title: if both {
                format!("{} (works on {} and {})", c.fix.title, sides.from, sides.to)
            } else {
                format!(
                    "{} (for NetBox {}; {} does not read it)",
                    c.fix.title, sides.to, sides.from
                )
            },
            edits: c.fix.edits.clone(),
            certain,
            releases: if both {
                vec![sides.from.to_string(), sides.to.to_string()]
            } else {
                vec![sides.to.to_string()]
            },
        });
    }
    for fixes in &mut out {
        // The form that works on both releases first: it is the one to apply before the upgrade.
        fixes.sort_by_key(|x| !x.releases.iter().any(|r| r == sides.from));
    }
    out
}

/// Checks the fixes `round` (indexes into `candidates`, sorted by position, their regions
/// apart) applied together: the document with each one's lines replaced by its fixed lines is
/// analysed on the target and, when any fix passes there, on the current release.
fn judge_round(sides: &Sides, candidates: &[Candidate], round: &[usize], verdicts: &mut [Verdict]) {
    let text = sides.text;
    let mut fixed = String::with_capacity(text.len() + 64);
    let mut after: Vec<Range<usize>> = Vec::with_capacity(round.len());
    let mut at = 0;
    for &c in round {
        let c = &candidates[c];
        fixed.push_str(&text[at..c.region.start]);
        let start = fixed.len();
        fixed.push_str(&c.fixed_lines);
        after.push(start..fixed.len());
        at = c.region.end;
    }
    fixed.push_str(&text[at..]);
    let on_target = analyze(&fixed, sides.host, sides.target);
    let on_target = SiteIndex::new(&on_target);
    let mut passed = Vec::new();
    for (&c, after) in round.iter().zip(&after) {
        let cand = &candidates[c];
        let mut allowed = sides.then.codes_in(&cand.region);
        if let Some(i) = allowed.iter().position(|code| *code == cand.code) {
            allowed.remove(i);
        }
        if within(&on_target.codes_in(after), &allowed) {
            passed.push((c, after));
        } else {
            verdicts[c] = Verdict::Refused; // the target still refuses the fixed call
        }
    }
    if passed.is_empty() {
        return;
    }
    let on_current = analyze(&fixed, sides.host, sides.current);
    let on_current = SiteIndex::new(&on_current);
    for (c, after) in passed {
        let both = within(
            &on_current.codes_in(after),
            &sides.now.codes_in(&candidates[c].region),
        );
        verdicts[c] = Verdict::Accepted { both };
    }
}

/// True when every code of `after` is in `before` (as a multiset; both sorted), in one merge.
fn within(after: &[&str], before: &[&str]) -> bool {
    let mut pool = before.iter();
    'next: for code in after {
        for p in pool.by_ref() {
            match (*p).cmp(*code) {
                std::cmp::Ordering::Less => continue,
                std::cmp::Ordering::Equal => continue 'next,
                std::cmp::Ordering::Greater => return false,
            }
        }
        return false;
    }
    true
}

fn severity(kind: Kind) -> Severity {
    match kind.code() {
        BREAKS => Severity::Error,
        _ => Severity::Warning,
    }
}

fn serious(f: &Finding) -> bool {
    matches!(f.severity, Severity::Error | Severity::Warning)
}

/// The rule [`SiteIndex::any_same_site`] answers for many findings at once (kept as the
/// tests' reference): true when two findings are about the same filter: their ranges share a byte, or one is the
/// key and the other the value of one pair (only `=`, `:`, quotes and blanks between them:
/// `port__empty=true`, `"port__empty": True`), since one release may flag the key and the other
/// the value.
pub(crate) fn same_site(text: &str, a: &Range<usize>, b: &Range<usize>) -> bool {
    if a == b || (a.start < b.end && b.start < a.end) {
        return true;
    }
    let (first, second) = if a.start <= b.start { (a, b) } else { (b, a) };
    text.get(first.end..second.start).is_some_and(|gap| {
        gap.len() <= 4
            && gap
                .bytes()
                .all(|c| matches!(c, b'=' | b':' | b'"' | b'\'' | b' ' | b'\t' | b'{' | b'['))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::embedded;

    fn knowledge(version: &str) -> Knowledge {
        let sel = embedded::select(Some(version)).unwrap();
        Knowledge {
            index: Some(embedded::embedded_index(sel.version)),
            graphql_embedded: Some(sel.version),
            ..Default::default()
        }
    }

    /// The sorted index answers exactly as the pairwise rule, on every pair of ranges over a
    /// text of separators and letters (empty ranges, equal starts, gaps of 0 to 6 bytes).
    #[test]
    fn site_index_agrees_with_same_site() {
        let text = "ab=\"c d'{e [f:gh\tij=k";
        let n = text.len();
        let ranges: Vec<Range<usize>> = (0..=n)
            .flat_map(|s| (s..=n.min(s + 3)).map(move |e| s..e))
            .collect();
        let mut state = 0x2545_f491_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..400 {
            let k = (next() % 4) as usize;
            let set: Vec<Finding> = (0..k)
                .map(|_| {
                    let r = ranges[(next() % ranges.len() as u64) as usize].clone();
                    Finding::new(r, "unknown-filter", Severity::Error, String::new())
                })
                .collect();
            let index = SiteIndex::new(&set);
            for r in &ranges {
                let expect = set.iter().any(|e| same_site(text, &e.range, r));
                assert_eq!(
                    index.any_same_site(text, r),
                    expect,
                    "{r:?} against {:?}",
                    set.iter().map(|f| f.range.clone()).collect::<Vec<_>>()
                );
            }
        }
    }

    /// Checking fixes in rounds gives the very changes and fixes of checking each fix alone:
    /// on every upgrade case of tests/fixtures/upgrade/cases.txt, and on the cases of one host
    /// kind and step put in one document (many fixes, several on neighbouring lines).
    #[test]
    fn rounds_give_the_fixes_of_one_fix_at_a_time() {
        let cases = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/upgrade/cases.txt"),
        )
        .unwrap();
        let mut joined: std::collections::BTreeMap<(String, String, String), String> =
            Default::default();
        let mut checked = 0;
        for record in cases.split("\n### ").skip(1) {
            let (head, body) = record.split_once("\n---\n").unwrap();
            let get = |k: &str| {
                head.lines()
                    .find_map(|l| l.strip_prefix(&format!("{k}: ")))
                    .unwrap()
                    .to_string()
            };
            let (from, to, kind) = (get("from"), get("to"), get("kind"));
            let body = body.trim_end_matches('\n').to_string() + "\n";
            let doc = joined.entry((from, to, kind)).or_default();
            doc.push_str(&body);
            doc.push('\n');
        }
        for ((from, to, kind), text) in &joined {
            let host = match kind.as_str() {
                "txt" => HostKind::Text,
                "md" => HostKind::Markdown,
                "py" => HostKind::Python,
                "yaml" => HostKind::Yaml,
                "json" => HostKind::Json,
                "graphql" => HostKind::Graphql,
                other => panic!("{other}"),
            };
            let (current, target) = (knowledge(from), knowledge(to));
            let now = analyze(text, host, &current);
            let rounds = compare_rounds(
                text,
                host,
                &now,
                &analyze(text, host, &target),
                &current,
                &target,
                false,
                MAX_ROUNDS,
            );
            let alone = compare_rounds(
                text,
                host,
                &now,
                &analyze(text, host, &target),
                &current,
                &target,
                true,
                usize::MAX,
            );
            assert_eq!(rounds, alone, "{from} → {to} {kind}:\n{text}");
            checked += rounds.iter().map(|c| c.finding.fixes.len()).sum::<usize>();
        }
        assert!(checked >= 10, "only {checked} fixes were compared");
    }

    /// A crowded line (60 breaking calls on one line, as in a minified file): every call keeps
    /// its fixes, judged in its own part of the line, and they are those of judging each fix
    /// alone by the whole line; the document needs two rounds, not sixty.
    #[test]
    fn a_crowded_line_gets_every_fix() {
        let (current, target) = (knowledge("4.6"), knowledge("4.7"));
        let n = 60;
        let text: String = (0..n)
            .map(|i| format!("GET /api/ipam/services/?protocol__ic=tc&name=s{i} "))
            .collect::<String>()
            + "\n";
        let now = analyze(&text, HostKind::Text, &current);
        let rounds = compare_rounds(
            &text,
            HostKind::Text,
            &now,
            &analyze(&text, HostKind::Text, &target),
            &current,
            &target,
            false,
            2,
        );
        let alone = compare_rounds(
            &text,
            HostKind::Text,
            &now,
            &analyze(&text, HostKind::Text, &target),
            &current,
            &target,
            true,
            usize::MAX,
        );
        assert_eq!(rounds.len(), n);
        assert!(rounds
            .iter()
            .all(|c| c.finding.fixes.iter().any(|f| f.certain)));
        assert_eq!(rounds, alone);
    }

    /// The same crowded line with non-ASCII text between the calls (each gap's middle byte
    /// inside a three-byte character): the line is still cut between the calls, on a character
    /// boundary, and every call keeps its fixes in two rounds; the quiet twin is the ASCII
    /// line above.
    #[test]
    fn a_crowded_line_of_non_ascii_text_gets_every_fix() {
        let (current, target) = (knowledge("4.6"), knowledge("4.7"));
        let n = 60;
        let text: String = (0..n)
            .map(|i| {
                format!(
                    "GET /api/ipam/services/?protocol__ic=tc&name=s{i} {} ",
                    "服務說明".repeat(12)
                )
            })
            .collect::<String>()
            + "\n";
        let now = analyze(&text, HostKind::Text, &current);
        let rounds = compare_rounds(
            &text,
            HostKind::Text,
            &now,
            &analyze(&text, HostKind::Text, &target),
            &current,
            &target,
            false,
            2,
        );
        assert_eq!(rounds.len(), n);
        let fixed = rounds
            .iter()
            .filter(|c| c.finding.fixes.iter().any(|f| f.certain))
            .count();
        assert_eq!(fixed, n, "calls with a certain fix in two rounds");
        let alone = compare_rounds(
            &text,
            HostKind::Text,
            &now,
            &analyze(&text, HostKind::Text, &target),
            &current,
            &target,
            true,
            usize::MAX,
        );
        assert_eq!(rounds, alone);
    }

    /// Over the budget of rounds, the fixes left are not offered; every change is still
    /// reported (three calls on one line need three rounds; two are given).
    #[test]
    fn fixes_over_the_budget_of_rounds_are_not_offered() {
        let (current, target) = (knowledge("4.6"), knowledge("4.7"));
        let text = "GET /api/ipam/services/?protocol__ic=tc GET /api/ipam/services/?protocol__ic=ud GET /api/ipam/services/?protocol__ic=sc\n";
        let now = analyze(text, HostKind::Text, &current);
        let changes = compare_rounds(
            text,
            HostKind::Text,
            &now,
            &analyze(text, HostKind::Text, &target),
            &current,
            &target,
            false,
            2,
        );
        assert_eq!(changes.len(), 3);
        let with_fix = changes
            .iter()
            .filter(|c| !c.finding.fixes.is_empty())
            .count();
        assert_eq!(with_fix, 2);
    }
}
