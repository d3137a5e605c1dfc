//! Upgrade readiness towards a release that is not shipped but announced (`--upgrade-to 5.0`):
//! the removals the shipped release's notes promise for it ([`crate::forecast`]) are applied to
//! the newest knowledge at hand — its filters, endpoints and GraphQL fields without them — and
//! the calls that break there are reported as `upgrade-announced`: expected, as announced, not
//! measured against that release.

use super::{same_site, Change, Kind, ANNOUNCED};
use crate::analysis::{analyze, Knowledge};
use crate::extract::HostKind;
use crate::finding::{Finding, Severity};
use crate::forecast::{self, Announcement, Removes};
use crate::graphql::NetboxSchema;
use crate::index::FilterIndex;
use apollo_compiler::schema::ExtendedType;
use std::sync::Arc;

/// The knowledge of release `to` as announced: `base` (the newest release at hand, `from`)
/// without what the announcements going in by `to` remove, stamped `to`. `None` when nothing is
/// announced for the step.
pub struct Forecast {
    pub knowledge: Knowledge,
    pub announcements: Vec<&'static Announcement>,
    pub from: String,
    pub to: String,
}

/// Builds the [`Forecast`] of `to` from `base`, the knowledge of release `from`.
pub fn forecast(base: &Knowledge, from: &str, to: &str) -> Option<Forecast> {
    let announcements: Vec<&'static Announcement> = forecast::ANNOUNCED
        .iter()
        .filter(|a| forecast::goes_between(a, from, to))
        .collect();
    if announcements.is_empty() {
        return None;
    }
    let index = base
        .index
        .as_ref()
        .map(|i| Arc::new(without(i, &announcements, to)));
    let graphql = base
        .schema()
        .and_then(|s| schema_without(&s, &announcements, to))
        .map(Arc::new);
    Some(Forecast {
        knowledge: Knowledge {
            index,
            graphql,
            approximate: None,
            graphql_embedded: None,
            readings: base.readings,
        },
        announcements,
        from: from.to_string(),
        to: to.to_string(),
    })
}

fn without(index: &FilterIndex, gone: &[&Announcement], to: &str) -> FilterIndex {
    let mut out = index.clone();
    out.netbox_version = to.to_string();
    out.source_sha256.clear();
    for a in gone {
        match a.removes {
            Removes::Filters { endpoints, bases } => {
                for e in endpoints {
                    if let Some(ep) = out.endpoints.get_mut(*e) {
                        ep.params = ep
                            .params
                            .iter()
                            .filter(|(k, _)| !bases.contains(&k.split("__").next().unwrap_or(k)))
                            .map(|(k, p)| (k.to_string(), p.clone()))
                            .collect();
                    }
                }
            }
            Removes::Endpoint(e) => {
                out.endpoints.remove(e);
                out.object_types.retain(|_, key| key != e);
            }
            Removes::Graphql { .. } => {}
        }
    }
    out
}

fn schema_without(s: &NetboxSchema, gone: &[&Announcement], to: &str) -> Option<NetboxSchema> {
    let mut schema = s.schema.clone().into_inner();
    for a in gone {
        let Removes::Graphql { types, fields } = a.removes else {
            continue;
        };
        for t in types {
            match schema.types.get_mut(*t) {
                Some(ExtendedType::Object(o)) => {
                    let o = o.make_mut();
                    o.fields.retain(|n, _| !fields.contains(&n.as_str()));
                }
                Some(ExtendedType::InputObject(o)) => {
                    let o = o.make_mut();
                    o.fields.retain(|n, _| !fields.contains(&n.as_str()));
                }
                _ => {}
            }
        }
    }
    let valid = schema.validate().ok()?;
    Some(NetboxSchema::from_valid(valid, to))
}

fn serious(f: &Finding) -> bool {
    matches!(f.severity, Severity::Error | Severity::Warning)
}

/// The announcement that explains a break at `written` (the document's text at the finding: a
/// filter key, a field name, an endpoint).
fn explained_by<'a>(written: &str, list: &[&'a Announcement]) -> Option<&'a Announcement> {
    let w = written.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ' '));
    let base = w.split("__").next().unwrap_or(w);
    list.iter().copied().find(|a| match a.removes {
        Removes::Filters { bases, .. } => bases.contains(&base),
        Removes::Graphql { fields, .. } => fields.contains(&base),
        Removes::Endpoint(e) => {
            let slug = e.rsplit('/').next().unwrap_or(e);
            w.contains(slug) || w.contains(&slug.replace('-', "_"))
        }
    })
}

/// The calls of `text` that work on the base release (`base_findings`, and `now` of the
/// current release when it is another) and break on the forecast, sorted by position.
pub fn changes(
    text: &str,
    kind: HostKind,
    base_findings: &[Finding],
    now: &[Finding],
    f: &Forecast,
) -> Vec<Change> {
    let then = analyze(text, kind, &f.knowledge);
    let mut out = Vec::new();
    for t in then.iter().filter(|t| serious(t)) {
        let wrong_before = base_findings
            .iter()
            .chain(now)
            .any(|b| serious(b) && same_site(text, &b.range, &t.range));
        if wrong_before {
            continue;
        }
        let written = text.get(t.range.clone()).unwrap_or("");
        let Some(a) = explained_by(written, &f.announcements) else {
            continue;
        };
        let then = match a.removes {
            Removes::Filters { .. } => {
                "NetBox would then ignore the filter and return every object"
            }
            Removes::Endpoint(_) => "NetBox would then answer 404",
            Removes::Graphql { .. } => "NetBox would then refuse the document (no such field)",
        };
        let message = format!(
            "Expected to break on NetBox {} as announced, not measured (works on {}): {} goes in NetBox {} ({}); {then}. Instead: {}.",
            f.to, f.from, quoted(written), a.goes_in, a.source, a.instead
        );
        out.push(Change {
            finding: Finding::new(t.range.clone(), ANNOUNCED, Severity::Warning, message),
            kind: Kind::Announced,
            release: f.to.clone(),
        });
    }
    out.sort_by_key(|c| (c.finding.range.start, c.finding.range.end));
    out
}

fn quoted(written: &str) -> String {
    let w = written.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ' '));
    format!("`{w}`")
}
