//! The filters a NetBox instance stores, checked as calls (issue 33 §4): what `netbox-lsp
//! audit` reads from the instance ([`Stored`]) becomes documents the static checks read
//! ([`sites`]), checked against the instance's release and, for an upgrade, against the
//! target's ([`audit`]). Pure: stored objects and knowledge in, findings out.
//!
//! What holds filters, in the source of every shipped release (4.3.3–4.7.3, the same fields in
//! each; `extras/api/serializers_/`):
//! - saved filters: `parameters`, a map of filter → value or list of values, applied to each of
//!   their `object_types` by the model's filterset (`netbox/filtersets.py`, `BaseFilterSet`,
//!   for `?filter_id=` / `?filter=` in the UI and the REST API alike);
//! - dashboard widgets (`/api/extras/dashboard/`, the token owner's): an object list widget's
//!   `url_params` for its `model` (`extras/dashboard/widgets.py`, `ObjectListWidget`);
//! - custom links' `link_url` and export templates' `template_code`: Jinja2 text that may
//!   build API URLs with query strings, read as text.
//!
//! Event rules' `conditions` are a condition set (`extras/conditions.py`: attribute, operator,
//! value), no filter syntax: not read. Webhooks are not read either (they hold their secret).

use crate::analysis::{analyze, Knowledge};
use crate::extract::HostKind;
use crate::finding::Finding;
use crate::index::FilterIndex;

/// What kind of stored object holds the filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    SavedFilter,
    DashboardWidget,
    CustomLink,
    ExportTemplate,
}

impl Kind {
    /// `saved filter`, `dashboard widget`, …
    pub fn name(self) -> &'static str {
        match self {
            Kind::SavedFilter => "saved filter",
            Kind::DashboardWidget => "dashboard widget",
            Kind::CustomLink => "custom link",
            Kind::ExportTemplate => "export template",
        }
    }

    /// The object's page in NetBox's UI below the base URL, for an id: `/extras/saved-filters/3/`
    /// (a widget's is the dashboard, `/`).
    pub fn ui_path(self, id: &str) -> String {
        match self {
            Kind::SavedFilter => format!("/extras/saved-filters/{id}/"),
            Kind::DashboardWidget => "/".to_string(),
            Kind::CustomLink => format!("/extras/custom-links/{id}/"),
            Kind::ExportTemplate => format!("/extras/export-templates/{id}/"),
        }
    }
}

/// What a stored object holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Holds {
    /// Filter parameters (`parameters`, `url_params`): JSON object, as stored.
    Parameters(serde_json::Map<String, serde_json::Value>),
    /// Jinja2 text that may hold API URLs.
    Template(String),
}

/// One stored object that holds filters.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub kind: Kind,
    /// Its id (a widget's UUID).
    pub id: String,
    /// Its name (a widget's title), as NetBox gave it (cleaned before it is shown).
    pub name: String,
    /// The object types the filters apply to (`dcim.device`).
    pub object_types: Vec<String>,
    pub holds: Holds,
}

/// One document the checks read, made from a stored object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Index into the stored objects.
    pub stored: usize,
    /// The object type for filter parameters.
    pub object_type: Option<String>,
    /// The document: `/api/<endpoint>/?<parameters>` for parameters, the text of a template.
    pub text: String,
    pub kind: HostKind,
}

/// One stored object, or one of its object types, that could not be checked, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unchecked {
    pub stored: usize,
    pub object_type: Option<String>,
    pub why: String,
}

/// UI parameters that page, sort or embed a list: no filters, never sent to a filterset as
/// such (`utilities/views.py`, `netbox/tables`).
const UI_ONLY: &[&str] = &[
    "per_page",
    "page",
    "sort",
    "embedded",
    "export",
    "return_url",
    "tab",
    "limit",
    "offset",
];

/// The documents the stored objects make under `index`, and what could not be made.
pub fn sites(stored: &[Stored], index: &FilterIndex) -> (Vec<Site>, Vec<Unchecked>) {
    let mut out = Vec::new();
    let mut unchecked = Vec::new();
    for (i, s) in stored.iter().enumerate() {
        match &s.holds {
            Holds::Template(t) => out.push(Site {
                stored: i,
                object_type: None,
                text: t.clone(),
                kind: HostKind::Text,
            }),
            Holds::Parameters(params) => {
                let mut pairs = Vec::new();
                let mut odd = None;
                for (k, v) in params {
                    if UI_ONLY.contains(&k.as_str()) {
                        continue;
                    }
                    match values(v) {
                        Some(vs) => pairs.extend(vs.into_iter().map(|v| (k.clone(), v))),
                        None => odd = Some(k.clone()),
                    }
                }
                if let Some(k) = odd {
                    unchecked.push(Unchecked {
                        stored: i,
                        object_type: None,
                        why: format!("the value of `{k}` is an object, not a filter value"),
                    });
                    continue;
                }
                if pairs.is_empty() {
                    continue;
                }
                for ot in &s.object_types {
                    match index.resolve(ot) {
                        Some((endpoint, _)) => out.push(Site {
                            stored: i,
                            object_type: Some(ot.clone()),
                            text: format!("/api/{endpoint}/?{}\n", crate::live::wire::query(&pairs)),
                            kind: HostKind::Text,
                        }),
                        None => unchecked.push(Unchecked {
                            stored: i,
                            object_type: Some(ot.clone()),
                            why: format!(
                                "`{ot}` has no list endpoint in the knowledge of NetBox {} (a plugin's model needs an index built from the instance)",
                                index.netbox_version
                            ),
                        }),
                    }
                }
            }
        }
    }
    (out, unchecked)
}

/// The strings a stored value stands for, as the filterset gets them (`BaseFilterSet` turns a
/// scalar into a one-item list; Python's `str()` of a boolean is `True`); `None` for an object
/// or a nested list.
fn values(v: &serde_json::Value) -> Option<Vec<String>> {
    use serde_json::Value;
    let one = |v: &Value| -> Option<String> {
        Some(match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Null => String::new(),
            _ => return None,
        })
    };
    match v {
        Value::Array(items) => items.iter().map(one).collect(),
        v => one(v).map(|s| vec![s]),
    }
}

/// One finding on a stored object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditFinding {
    /// The site it is on ([`sites`]).
    pub site: usize,
    /// The finding; its range is in the site's text.
    pub finding: Finding,
}

/// The findings of `sites` on the `current` release (every finding that is not a hint), and
/// with `target` the upgrade's changes ([`crate::upgrade`]: `upgrade-breaks`,
/// `upgrade-changes`), by site then position.
pub fn audit(sites: &[Site], current: &Knowledge, target: Option<&Knowledge>) -> Vec<AuditFinding> {
    let mut out = Vec::new();
    for (i, site) in sites.iter().enumerate() {
        let now = analyze(&site.text, site.kind, current);
        if let Some(target) = target {
            for c in crate::upgrade::compare_with(&site.text, site.kind, &now, current, target) {
                out.push(AuditFinding {
                    site: i,
                    finding: c.finding,
                });
            }
        }
        for f in now {
            if f.severity != crate::finding::Severity::Hint {
                out.push(AuditFinding {
                    site: i,
                    finding: f,
                });
            }
        }
    }
    out.sort_by_key(|a| (a.site, a.finding.range.start, a.finding.code));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::embedded;

    fn knowledge(v: &'static str) -> Knowledge {
        Knowledge {
            index: Some(embedded::embedded_index(v)),
            ..Knowledge::default()
        }
    }

    fn saved(params: serde_json::Value, types: &[&str]) -> Stored {
        Stored {
            kind: Kind::SavedFilter,
            id: "1".into(),
            name: "x".into(),
            object_types: types.iter().map(|t| t.to_string()).collect(),
            holds: Holds::Parameters(params.as_object().unwrap().clone()),
        }
    }

    #[test]
    fn parameters_become_calls_of_each_object_type() {
        let k = knowledge("4.6.8");
        let stored = [saved(
            serde_json::json!({"status": ["active", "planned"], "site_id": 3, "per_page": 50, "q": null}),
            &["dcim.device", "virtualization.virtualmachine", "nope.thing"],
        )];
        let (s, un) = sites(&stored, k.index.as_deref().unwrap());
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0].text,
            "/api/dcim/devices/?q=&site_id=3&status=active&status=planned\n"
        );
        assert!(s[1]
            .text
            .starts_with("/api/virtualization/virtual-machines/?"));
        assert_eq!(un.len(), 1);
        assert_eq!(un[0].object_type.as_deref(), Some("nope.thing"));
    }

    /// NetBox 4.7.0 removed the character lookups of `protocol` on services (netbox#20285): a
    /// saved filter with `protocol__isw` becomes silently ignored after the upgrade; the same
    /// filter with `protocol` itself stays quiet.
    #[test]
    fn a_stored_filter_that_breaks_on_the_target_and_its_quiet_twin() {
        let current = knowledge("4.6.8");
        let target = knowledge("4.7.3");
        let index = current.index.clone().unwrap();
        let stored = [
            saved(
                serde_json::json!({"protocol__isw": "ud"}),
                &["ipam.service"],
            ),
            saved(serde_json::json!({"protocol": ["udp"]}), &["ipam.service"]),
        ];
        let (s, _) = sites(&stored, &index);
        let found = audit(&s, &current, Some(&target));
        let codes: Vec<(usize, &str)> = found.iter().map(|f| (f.site, f.finding.code)).collect();
        assert_eq!(codes, [(0, "upgrade-breaks")]);
        // Without the target: nothing is wrong on 4.6.8.
        assert!(audit(&s, &current, None).is_empty());
    }
}
