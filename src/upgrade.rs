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
use crate::finding::{Finding, Fix, Severity};
use std::ops::Range;

/// Code of a call that works on the current release and is wrong, ignored or refused on the
/// target (an error).
pub const BREAKS: &str = "upgrade-breaks";
/// Code of a call whose result changes without breaking: a parameter the target ignores, or one
/// the target starts to read (a warning).
pub const CHANGES: &str = "upgrade-changes";

/// Code of a call that works on the current release and breaks on a release that is not
/// shipped, as the shipped release's notes announce ([`announced`]; a warning: not measured).
pub const ANNOUNCED: &str = "upgrade-announced";

/// What changes for a call, for the summary and the docs' release-note citations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A filter or lookup the target does not have (ignored there: every object).
    RemovedFilter,
    /// A value the target refuses (HTTP 400/500) or no longer matches.
    RefusedValue,
    /// An endpoint or object type the target does not have.
    RemovedEndpoint,
    /// A GraphQL document the target's schema rejects (grammar, renamed enum values).
    GraphqlGrammar,
    /// A filter the target answers wrongly for any value (a NetBox bug of that release).
    ServerFault,
    /// A list the target cuts at `MAX_PAGE_SIZE` without saying so, where the current release
    /// returned every object (GraphQL lists without `pagination` from 4.5.5).
    Truncated,
    /// A parameter the target no longer reads (`exclude` on 4.7).
    NoOp,
    /// Ignored or refused on the current release, read by the target (`omit` from 4.5.2,
    /// `tag__any` from 4.6.6, a server fault fixed).
    StartsToWork,
    /// Breaks on a release that is not shipped, as the shipped release's notes announce
    /// (`--upgrade-to 5.0`, [`announced`]): expected, not measured.
    Announced,
}

impl Kind {
    /// Every kind, in summary order.
    pub const ALL: &'static [Kind] = &[
        Kind::RemovedFilter,
        Kind::RefusedValue,
        Kind::RemovedEndpoint,
        Kind::GraphqlGrammar,
        Kind::ServerFault,
        Kind::Truncated,
        Kind::NoOp,
        Kind::StartsToWork,
        Kind::Announced,
    ];

    /// Stable kebab-case name (`removed-filter`), for the summary and JSON consumers.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::RemovedFilter => "removed-filter",
            Kind::RefusedValue => "refused-value",
            Kind::RemovedEndpoint => "removed-endpoint",
            Kind::GraphqlGrammar => "graphql-grammar",
            Kind::ServerFault => "server-fault",
            Kind::Truncated => "truncated",
            Kind::NoOp => "no-op",
            Kind::StartsToWork => "starts-to-work",
            Kind::Announced => "announced",
        }
    }

    /// The kind of a finding the target release has and the current one does not.
    fn of_new(code: &str, message: &str) -> Kind {
        match code {
            "graphql-pagination" if message.contains("MAX_PAGE_SIZE") => Kind::Truncated,
            "unknown-filter"
            | "unsupported-lookup"
            | "version-only"
            | "multi-hop"
            | "null-relation"
            | "wrong-filter-for-type" => Kind::RemovedFilter,
            "unknown-endpoint" | "unknown-object-type" => Kind::RemovedEndpoint,
            "server-fault" => Kind::ServerFault,
            "ignored-parameter" => Kind::NoOp,
            c if c.starts_with("graphql-") => Kind::GraphqlGrammar,
            _ => Kind::RefusedValue,
        }
    }

    /// The code a change of this kind is reported with.
    pub fn code(self) -> &'static str {
        match self {
            Kind::Truncated | Kind::NoOp | Kind::StartsToWork => CHANGES,
            Kind::Announced => ANNOUNCED,
            _ => BREAKS,
        }
    }
}

/// A release-note entry that explains a kind of change: cited in the message of every change of
/// that kind whose step from the current to the target release crosses `release`.
#[derive(Debug, Clone, Copy)]
pub struct Note {
    /// The release that made the change (`4.7.0`).
    pub release: &'static str,
    pub kind: Kind,
    /// Text the finding's message (the target's, or the current's for [`Kind::StartsToWork`])
    /// contains, naming the filter or type concerned.
    pub mentions: &'static [&'static str],
    /// The citation: release notes section and issue.
    pub cite: &'static str,
}

/// The release notes of the steps between the shipped releases, per kind of change
/// (`docs/release-notes/version-4.x.md`; docs/upgrade.md lists the same entries).
pub const NOTES: &[Note] = &[
    Note {
        release: "4.5.0",
        kind: Kind::GraphqlGrammar,
        mentions: &["takes a lookup object"],
        cite: "release notes 4.5.0, Breaking Changes (netbox#19338): GraphQL filters on object IDs and enums take a lookup, `id: 123` becomes `id: {exact: 123}`",
    },
    Note {
        release: "4.5.5",
        kind: Kind::Truncated,
        mentions: &["MAX_PAGE_SIZE"],
        cite: "release notes 4.5.5 (netbox#20385): MAX_PAGE_SIZE is enforced on GraphQL lists",
    },
    Note {
        release: "4.7.0",
        kind: Kind::GraphqlGrammar,
        mentions: &["ServiceProtocolEnum", "ServiceFilter", "ServiceTemplateFilter", "ROLE_"],
        cite: "release notes 4.7.0, Breaking Changes (netbox#20285): the service filters changed shape, the nested `ports` lookup became the flat lists `port`, `port__gt`, `port__gte`, `port__lt`, `port__lte` beside `port_mappings`, and `ServiceProtocolEnum` dropped its `ROLE_` prefix (`protocol: [TCP]`)",
    },
    Note {
        release: "4.5.0",
        kind: Kind::RemovedEndpoint,
        mentions: &["extras/object-types"],
        cite: "release notes 4.5.0, Breaking Changes (netbox#19898): /api/extras/object-types/ was removed; /api/core/object-types/ (from 4.4) replaces it",
    },
    Note {
        release: "4.5.0",
        kind: Kind::RemovedFilter,
        mentions: &["`rear_port_position", "`is_staff"],
        cite: "release notes 4.5.0, Breaking Changes: front ports map to rear ports through PortMapping (no `rear_port_position`), and the User model lost `is_staff` (netbox#16137)",
    },
    Note {
        release: "4.7.0",
        kind: Kind::RemovedFilter,
        mentions: &["`protocol__", "`port__empty`"],
        cite: "release notes 4.7.0, Breaking Changes (netbox#20285): the character lookups of `protocol` and `port__empty` are gone",
    },
    Note {
        release: "4.7.0",
        kind: Kind::NoOp,
        mentions: &["`exclude`"],
        cite: "release notes 4.7.0, Breaking Changes (netbox#21025): config context is always included and `?exclude=config_context` is silently ignored",
    },
    Note {
        release: "4.7.3",
        kind: Kind::RefusedValue,
        mentions: &["Invalid MAC address format"],
        cite: "release notes 4.7.3 (netbox#23328): malformed values to certain filters are a 400 (a malformed MAC matched nothing before)",
    },
    Note {
        release: "4.5.2",
        kind: Kind::StartsToWork,
        mentions: &["`omit`"],
        cite: "release notes 4.5.2 (netbox#21244): `?omit=` leaves the named fields out",
    },
    Note {
        release: "4.6.0",
        kind: Kind::StartsToWork,
        mentions: &["`start`"],
        cite: "release notes 4.6.0 (netbox#21363): cursor-based pagination with `start`",
    },
    Note {
        release: "4.6.6",
        kind: Kind::StartsToWork,
        mentions: &["__any`"],
        cite: "release notes 4.6.6 (netbox#22685): an \"any\" lookup for `tag` and `tag_id`",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &["`rear_port_id", "`front_port_id"],
        cite: "release notes 4.7.3 (netbox#23326): the FieldError of front and rear ports filtered by `rear_port_id` / `front_port_id` is fixed",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &["`provider_account"],
        cite: "release notes 4.7.3 (netbox#23325): the FieldError of circuits filtered by provider account is fixed",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &["`installed_module_id"],
        cite: "release notes 4.7.3 (netbox#23345): `installed_module_id` is validated against modules",
    },
    Note {
        release: "4.7.3",
        kind: Kind::StartsToWork,
        mentions: &["__empty` is typed as"],
        cite: "release notes 4.7.3 (netbox#23340): `__empty` on number and date filters works",
    },
];

/// The citations of [`NOTES`] for a change of `kind` whose message is `message`, on the step
/// from release `from` to `to`.
fn cite(kind: Kind, message: &str, from: &str, to: &str) -> Vec<&'static str> {
    let v = crate::index::embedded::parse_version;
    let (Some(from), Some(to)) = (v(from), v(to)) else {
        return Vec::new();
    };
    NOTES
        .iter()
        .filter(|n| n.kind == kind && n.mentions.iter().any(|m| message.contains(m)))
        .filter(|n| v(n.release).is_some_and(|r| from < r && r <= to))
        .map(|n| n.cite)
        .collect()
}

/// `message` with the release-note citations of its change appended (those it does not cite
/// already), and without the plain check's advice to pick another release (both are picked).
fn with_notes(message: String, kind: Kind, source: &str, from: &str, to: &str) -> String {
    let message = message.replace(SWITCH_ADVICE, "");
    let notes: Vec<&str> = cite(kind, source, from, to)
        .into_iter()
        .filter(|n| {
            let release = n.split(',').next().unwrap_or(n);
            let release = release.split(" (").next().unwrap_or(release);
            !message.contains(release)
        })
        .collect();
    if notes.is_empty() {
        message
    } else {
        format!("{message} ({})", notes.join("; "))
    }
}

/// The plain check's last sentence for a shipped release (`rest::versions::switch_advice`).
const SWITCH_ADVICE: &str =
    " If the instance runs another version, select it with --netbox-version.";

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
pub fn compare_with(
    text: &str,
    kind: HostKind,
    now: &[Finding],
    current: &Knowledge,
    target: &Knowledge,
) -> Vec<Change> {
    let then = analyze(text, kind, target);
    let (from, to) = (release_of(current), release_of(target));
    let host = kind;
    let mut out = Vec::new();
    for f in then.iter().filter(|f| serious(f)) {
        if now
            .iter()
            .any(|n| serious(n) && same_site(text, &n.range, &f.range))
        {
            continue; // wrong on both: the plain check reports it
        }
        let kind = Kind::of_new(f.code, &f.message);
        let lead = match kind {
            Kind::NoOp => format!("Becomes a no-op on NetBox {to} (read by {from})"),
            Kind::Truncated => {
                format!("Returns fewer objects on NetBox {to} (all of them on {from})")
            }
            _ => format!("Breaks on NetBox {to} (works on {from})"),
        };
        let mut finding = Finding::new(
            f.range.clone(),
            kind.code(),
            severity(kind),
            with_notes(
                format!("{lead}: {}", f.message),
                kind,
                &f.message,
                &from,
                &to,
            ),
        );
        let sides = Sides {
            text,
            host,
            current,
            target,
            now,
            then: &then,
            from: &from,
            to: &to,
        };
        finding.fixes = sides.judge_fixes(f);
        out.push(Change {
            finding,
            kind,
            release: to.clone(),
        });
    }
    for n in now.iter().filter(|n| serious(n)) {
        if then
            .iter()
            .any(|f| serious(f) && same_site(text, &f.range, &n.range))
        {
            continue;
        }
        let finding = Finding::new(
            n.range.clone(),
            CHANGES,
            severity(Kind::StartsToWork),
            with_notes(
                format!(
                    "Starts to work on NetBox {to}, so the result of this call changes with the upgrade. On {from}: {}",
                    n.message
                ),
                Kind::StartsToWork,
                &n.message,
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
    out.sort_by_key(|c| (c.finding.range.start, c.finding.range.end, c.finding.code));
    out
}

/// The document and both releases' findings, to judge a target finding's fixes.
struct Sides<'a> {
    text: &'a str,
    host: HostKind,
    current: &'a Knowledge,
    target: &'a Knowledge,
    now: &'a [Finding],
    then: &'a [Finding],
    from: &'a str,
    to: &'a str,
}

impl Sides<'_> {
    /// The fixes of target finding `f` that the target accepts at that call, each re-checked on
    /// both releases: certain only when it was certain and the current release accepts it too
    /// (at most one), else offered for the target with a title that says so.
    fn judge_fixes(&self, f: &Finding) -> Vec<Fix> {
        let mut out: Vec<Fix> = Vec::new();
        for fix in &f.fixes {
            let Some((fixed, before, after)) = self.apply(fix) else {
                continue;
            };
            let on_target = analyze(&fixed, self.host, self.target);
            let mut allowed = codes_in(self.then, &before);
            if let Some(i) = allowed.iter().position(|c| *c == f.code) {
                allowed.remove(i);
            }
            if !within(&codes_in(&on_target, &after), &allowed) {
                continue; // the target still refuses the fixed call
            }
            let on_current = analyze(&fixed, self.host, self.current);
            let both = within(&codes_in(&on_current, &after), &codes_in(self.now, &before));
            let certain = fix.certain && both && !out.iter().any(|x| x.certain);
            out.push(Fix {
                title: if both {
                    format!("{} (works on {} and {})", fix.title, self.from, self.to)
                } else {
                    format!(
                        "{} (for NetBox {}; {} does not read it)",
                        fix.title, self.to, self.from
                    )
                },
                edits: fix.edits.clone(),
                certain,
            });
        }
        // The form that works on both releases first: it is the one to apply before the upgrade.
        out.sort_by_key(|x| !x.title.contains(" (works on "));
        out
    }

    /// `text` with `fix` applied, and the lines the edits touch: in the text before and after.
    /// `None` when the fix changes nothing.
    fn apply(&self, fix: &Fix) -> Option<(String, Range<usize>, Range<usize>)> {
        let text = self.text;
        let fixed = crate::fix::apply(text, &fix.edits);
        if fixed == text || fix.edits.is_empty() {
            return None;
        }
        let start = fix.edits.iter().map(|e| e.range.start).min()?;
        let end = fix.edits.iter().map(|e| e.range.end).max()?;
        let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
        let line_end = text.get(end..)?.find('\n').map_or(text.len(), |i| end + i);
        let delta = fixed.len() as isize - text.len() as isize;
        let after_end = (line_end as isize + delta).max(line_start as isize) as usize;
        Some((fixed, line_start..line_end, line_start..after_end))
    }
}

/// Codes of the serious findings within `region`, sorted.
fn codes_in<'f>(findings: &'f [Finding], region: &Range<usize>) -> Vec<&'f str> {
    let mut codes: Vec<&str> = findings
        .iter()
        .filter(|f| serious(f) && f.range.start >= region.start && f.range.start <= region.end)
        .map(|f| f.code)
        .collect();
    codes.sort_unstable();
    codes
}

/// True when every code of `after` is in `before` (as a multiset, both sorted).
fn within(after: &[&str], before: &[&str]) -> bool {
    let mut pool = before.to_vec();
    after
        .iter()
        .all(|c| match pool.iter().position(|p| p == c) {
            Some(i) => {
                pool.remove(i);
                true
            }
            None => false,
        })
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

/// True when two findings are about the same filter: their ranges share a byte, or one is the
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
