//! Every hand-written row about NetBox that a new release must be reviewed against: server
//! faults and value forms (`rest/faults.rs`, one entry per shipped release), parameters read
//! outside the filtersets (`rest/view_params.rs`), renamed, removed and borrowed filter names
//! (`rest/renames.rs`), filters declared without a null value (`rest/nullable.rs`) and the
//! release-note citations of upgrade readiness (`upgrade.rs` `NOTES`). Each row says what to
//! look up in the new release's source: the file and lines its previous release's entry cites,
//! or the filter and the endpoints whose filtersets declare it.
//!
//! The rows are read from the tables themselves, so a row added to a table is on the next
//! sheet without a change here.

use crate::rest::faults::{server_faults, At, PerRelease, VALUE_FORMS};
use crate::rest::nullable::NULL_REFUSED;
use crate::rest::renames::{Scope, CONCEPTS, REMOVED, RENAMES};
use crate::rest::view_params::{Applies, VIEW_PARAMS};
use crate::version::Version;

/// One row of a hand-rule table.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The table: `rest/faults.rs SERVER_FAULTS`.
    pub table: &'static str,
    /// What the row says, in a few words.
    pub title: String,
    /// Endpoint keys whose filtersets the row is about (`dcim/front-ports`); empty for rows
    /// about a view or a release note.
    pub endpoints: Vec<String>,
    /// The filter (base name, `rear_port_id`) or parameter the row is about.
    pub name: Option<String>,
    /// Source files to search for [`Rule::name`] when no line is cited (view parameters).
    pub files: Vec<String>,
    /// What the previous release's entry says (`has: …` / `not: …`), for per-release rows.
    pub previous: Option<String>,
    /// Files and lines the previous release's entry cites.
    pub cites: Vec<(String, Vec<usize>)>,
    /// For per-release rows: whether the new release has its entry already.
    pub reviewed: Option<bool>,
    /// Text the row's source statement holds while the row is true (`null_value=None`).
    pub expect: Option<&'static str>,
}

/// The entry of `releases` for the newest release older than `new`, and whether `new` has its
/// own entry.
fn previous_entry(releases: PerRelease, new: &str) -> (Option<(&'static str, At)>, bool) {
    let Some(nv) = Version::parse(new) else {
        return (None, false);
    };
    let prev = releases
        .iter()
        .filter(|(v, _)| Version::parse(v).is_some_and(|v| v < nv))
        .max_by(|a, b| Version::parse(a.0).cmp(&Version::parse(b.0)))
        .copied();
    (prev, releases.iter().any(|(v, _)| *v == new))
}

fn per_release(
    table: &'static str,
    title: String,
    endpoints: &[&str],
    filter: &str,
    releases: PerRelease,
    new: &str,
) -> Rule {
    let (prev, reviewed) = previous_entry(releases, new);
    let (previous, cites) = match prev {
        Some((v, At::Has { answer, evidence })) => (
            Some(format!("{v} has it: {answer} (evidence: {evidence})")),
            super::source::cites(evidence),
        ),
        Some((v, At::Not(why))) => (
            Some(format!("{v} does not: {why}")),
            super::source::cites(why),
        ),
        None => (None, Vec::new()),
    };
    Rule {
        table,
        title,
        endpoints: endpoints.iter().map(|e| e.to_string()).collect(),
        name: Some(filter.to_string()),
        files: Vec::new(),
        previous,
        cites,
        reviewed: Some(reviewed),
        expect: None,
    }
}

fn lookups_text(filter: &str, lookups: &[&str]) -> String {
    lookups
        .iter()
        .map(|l| {
            if l.is_empty() {
                format!("`{filter}`")
            } else {
                format!("`{filter}__{l}`")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The endpoint keys of a rename scope among `known` (the new release's endpoints).
fn scope_endpoints(scope: &Scope, known: &[&str]) -> Vec<String> {
    match scope {
        Scope::Only(keys) => keys.iter().map(|k| k.to_string()).collect(),
        Scope::ComponentTemplates => known
            .iter()
            .filter(|k| scope.covers(k))
            .map(|k| k.to_string())
            .collect(),
    }
}

/// Every hand-rule row, for the review of release `new`; `endpoints` are the new release's
/// endpoint keys (for rows scoped by a pattern) and `endpoint_of` maps an object type
/// (`dcim.device`) to its endpoint key.
pub fn all(
    new: &str,
    endpoints: &[&str],
    endpoint_of: &dyn Fn(&str) -> Option<String>,
) -> Vec<Rule> {
    let mut out = Vec::new();
    for f in server_faults() {
        out.push(per_release(
            "rest/faults.rs SERVER_FAULTS",
            format!(
                "server fault: {} on {}",
                lookups_text(f.filter, f.lookups),
                f.endpoints.join(", ")
            ),
            f.endpoints,
            f.filter,
            f.releases,
            new,
        ));
    }
    for f in VALUE_FORMS {
        let on = if f.endpoints.is_empty() {
            "every endpoint with it".to_string()
        } else {
            f.endpoints.join(", ")
        };
        out.push(per_release(
            "rest/faults.rs VALUE_FORMS",
            format!(
                "value form: {} takes {} on {on}",
                lookups_text(f.filter, f.lookups),
                f.wants
            ),
            f.endpoints,
            f.filter,
            f.releases,
            new,
        ));
    }
    for p in VIEW_PARAMS {
        let applies = match p.applies {
            Applies::All => "every list endpoint".to_string(),
            Applies::Only(keys) => keys.join(", "),
        };
        let until = p.until.map_or(String::new(), |g| {
            format!(
                ", ignored from {}{} ({})",
                g.release,
                g.instead.map_or(String::new(), |i| format!(", use `{i}`")),
                g.source
            )
        });
        let file = p.source.split(' ').next().unwrap_or(p.source).to_string();
        out.push(Rule {
            table: "rest/view_params.rs VIEW_PARAMS",
            title: format!(
                "`{}` read since {} on {applies}{until}: {}",
                p.name, p.since, p.does
            ),
            endpoints: Vec::new(),
            name: Some(p.name.to_string()),
            files: vec![file],
            previous: None,
            cites: Vec::new(),
            reviewed: None,
            expect: None,
        });
    }
    for (scope, old, renamed, release, source) in RENAMES {
        out.push(Rule {
            table: "rest/renames.rs RENAMES",
            title: format!("`{old}` → `{renamed}` from {release} ({source})"),
            endpoints: scope_endpoints(scope, endpoints),
            name: Some(renamed.to_string()),
            files: Vec::new(),
            previous: None,
            cites: Vec::new(),
            reviewed: None,
            expect: None,
        });
    }
    for r in REMOVED {
        out.push(Rule {
            table: "rest/renames.rs REMOVED",
            title: format!(
                "{} removed in {} ({}); instead: {}",
                lookups_text(r.base, r.lookups),
                r.release,
                r.source,
                r.instead
            ),
            endpoints: r.endpoints.iter().map(|e| e.to_string()).collect(),
            name: Some(r.base.to_string()),
            files: Vec::new(),
            previous: None,
            cites: Vec::new(),
            reviewed: None,
            expect: None,
        });
    }
    for (keys, written, filter, what) in CONCEPTS {
        out.push(Rule {
            table: "rest/renames.rs CONCEPTS",
            title: format!("`{written}` means `{filter}` ({what})"),
            endpoints: keys.iter().map(|e| e.to_string()).collect(),
            name: Some(filter.to_string()),
            files: Vec::new(),
            previous: None,
            cites: Vec::new(),
            reviewed: None,
            expect: None,
        });
    }
    for (object_type, filter) in NULL_REFUSED {
        out.push(Rule {
            table: "rest/nullable.rs NULL_REFUSED",
            title: format!(
                "`{filter}=null` is a 400 on {object_type} (declared with null_value=None)"
            ),
            endpoints: endpoint_of(object_type).into_iter().collect(),
            name: Some(filter.to_string()),
            files: Vec::new(),
            previous: None,
            cites: Vec::new(),
            reviewed: None,
            expect: (*filter != "cable").then_some("null_value=None"),
        });
    }
    for n in crate::upgrade::NOTES {
        out.push(Rule {
            table: "upgrade.rs NOTES",
            title: format!("{} {}: {}", n.release, n.kind.as_str(), n.cite),
            endpoints: Vec::new(),
            name: None,
            files: Vec::new(),
            previous: None,
            cites: Vec::new(),
            reviewed: None,
            expect: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_gives_rows_and_faults_cite_the_previous_release() {
        let rows = all("4.7.3", &["dcim/console-port-templates"], &|t| {
            Some(t.replace('.', "/") + "s")
        });
        for table in [
            "rest/faults.rs SERVER_FAULTS",
            "rest/faults.rs VALUE_FORMS",
            "rest/view_params.rs VIEW_PARAMS",
            "rest/renames.rs RENAMES",
            "rest/renames.rs REMOVED",
            "rest/renames.rs CONCEPTS",
            "rest/nullable.rs NULL_REFUSED",
            "upgrade.rs NOTES",
        ] {
            assert!(rows.iter().any(|r| r.table == table), "{table}");
        }
        let rear = rows
            .iter()
            .find(|r| r.title.starts_with("server fault: `rear_port_id`"))
            .unwrap();
        assert!(
            rear.previous
                .as_deref()
                .unwrap()
                .starts_with("4.6.8 has it"),
            "{rear:?}"
        );
        assert_eq!(rear.cites[0].0, "netbox/dcim/filtersets.py");
        assert_eq!(rear.cites[0].1, [2397, 1035]);
        assert_eq!(rear.reviewed, Some(true));
        // A release after every entry has none yet.
        let next = all("9.9.9", &[], &|_| None);
        assert!(next
            .iter()
            .filter(|r| r.table.starts_with("rest/faults.rs"))
            .all(|r| r.reviewed == Some(false)));
    }
}
