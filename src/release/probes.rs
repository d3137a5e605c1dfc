//! The probes a fresh live sweep (`scripts/release/sweep.py`) owes the hand rules: every
//! server fault, value form and declared null refusal of `rest/faults.rs` and
//! `rest/nullable.rs`, on each endpoint and lookup it names, with the values that trigger it.
//! A new release is then measured at every rule, whether the previous release had the rule or
//! not (a fault that went away shows as a changed verdict; one that came back, too).
//!
//! The trigger values are the ones the rows' evidence cites (`v4.6.8 sweep: dcim/front-ports
//! rear_port_id=1250 → 500`) and, for each endpoint and lookup, a made-up value: for a value
//! form the first of [`CANDIDATES`] its check refuses, for a fault `999999` (and `null` when
//! null fails too). Probe kinds are the sweeps' own words, so `derive-expected.py` reads the
//! rows like any other: `invalid-value` for a value form, `param` / `param-lookup` for a fault
//! (a value meant to narrow), `null-nonfk` for a null refusal.

use crate::rest::faults::{server_faults, At, PerRelease, VALUE_FORMS};
use crate::rest::nullable::NULL_REFUSED;

/// One probe: `endpoint` (`dcim/front-ports`), `query` (`rear_port_id=1250`), the sweep's
/// probe kind, and the rule it is for (the table and filter, for the row's note).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub endpoint: String,
    pub query: String,
    pub kind: &'static str,
    pub rule: String,
}

/// Made-up values tried against a value form's check, in this order: text, a number past
/// PostgreSQL's small-integer range, a negative one.
pub const CANDIDATES: &[&str] = &["zz-no-such", "999999", "-999999"];

/// `endpoint key=value` pairs an evidence text cites (`dcim/sites time_zone__n=zz-no-such`,
/// and `key=value` after a comma, which keeps the endpoint before it), limited to `filter`'s
/// keys and to `endpoints`.
fn cited(evidence: &str, filter: &str, endpoints: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut endpoint: Option<&str> = None;
    for word in evidence.split([' ', ',', ';', '(', ')']) {
        if word.is_empty() {
            continue;
        }
        if endpoints.contains(&word) {
            endpoint = Some(word);
            continue;
        }
        let Some((key, value)) = word.split_once('=') else {
            continue;
        };
        let base = key.split("__").next().unwrap_or(key);
        if base != filter || value.is_empty() || value.contains('`') {
            continue;
        }
        if let Some(ep) = endpoint {
            out.push((ep.to_string(), word.to_string()));
        }
    }
    out
}

fn evidence_texts(releases: PerRelease) -> impl Iterator<Item = &'static str> {
    releases.iter().map(|(_, at)| match at {
        At::Has { evidence, .. } => *evidence,
        At::Not(why) => *why,
    })
}

fn key(filter: &str, lookup: &str) -> String {
    if lookup.is_empty() {
        filter.to_string()
    } else {
        format!("{filter}__{lookup}")
    }
}

/// Every probe of the hand rules, without duplicates, in table order; `endpoint_of` maps an
/// object type (`dcim.site`) to its endpoint key in the release being swept.
pub fn all(endpoint_of: &dyn Fn(&str) -> Option<String>) -> Vec<Probe> {
    let mut out: Vec<Probe> = Vec::new();
    let mut push = |endpoint: &str, query: String, kind: &'static str, rule: String| {
        if !out
            .iter()
            .any(|p| p.endpoint == endpoint && p.query == query)
        {
            out.push(Probe {
                endpoint: endpoint.to_string(),
                query,
                kind,
                rule,
            });
        }
    };
    for f in server_faults() {
        let rule = format!("rest/faults.rs SERVER_FAULTS {}", f.filter);
        for ev in evidence_texts(f.releases) {
            for (ep, q) in cited(ev, f.filter, f.endpoints) {
                let kind = if q.contains("__") {
                    "param-lookup"
                } else {
                    "param"
                };
                push(&ep, q, kind, rule.clone());
            }
        }
        for ep in f.endpoints {
            for l in f.lookups {
                let kind = if l.is_empty() {
                    "param"
                } else {
                    "param-lookup"
                };
                push(
                    ep,
                    format!("{}=999999", key(f.filter, l)),
                    kind,
                    rule.clone(),
                );
                if f.null_fails && l.is_empty() {
                    push(ep, format!("{}=null", f.filter), kind, rule.clone());
                }
            }
        }
    }
    for f in VALUE_FORMS {
        let rule = format!("rest/faults.rs VALUE_FORMS {}", f.filter);
        let endpoints: Vec<String> = f.endpoints.iter().map(|e| e.to_string()).collect();
        let names: Vec<&str> = f.endpoints.to_vec();
        for ev in evidence_texts(f.releases) {
            for (ep, q) in cited(ev, f.filter, &names) {
                push(&ep, q, "invalid-value", rule.clone());
            }
        }
        let Some(value) = CANDIDATES.iter().find(|v| !f.takes(v)) else {
            continue;
        };
        for ep in &endpoints {
            for l in f.lookups {
                // A value form of a bounded number is refused below its bound too.
                let v = if matches!(*l, "lt" | "lte") && !f.takes("-999999") {
                    "-999999"
                } else {
                    value
                };
                push(
                    ep,
                    format!("{}={v}", key(f.filter, l)),
                    "invalid-value",
                    rule.clone(),
                );
            }
        }
    }
    for (object_type, filter) in NULL_REFUSED {
        if let Some(ep) = endpoint_of(object_type) {
            push(
                &ep,
                format!("{filter}=null"),
                "null-nonfk",
                format!("rest/nullable.rs NULL_REFUSED {object_type}"),
            );
        }
    }
    out
}

/// The probes as TSV (`endpoint query kind rule`, with a header), for `sweep.py`.
pub fn tsv(probes: &[Probe]) -> String {
    let mut s = String::from("endpoint\tquery\tkind\trule\n");
    for p in probes {
        s.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            p.endpoint, p.query, p.kind, p.rule
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_values_are_cited_per_endpoint() {
        let got = cited(
            "netbox/dcim/filtersets.py v4.6.8 L2397 and L1035: `to_field_name='rear_port'`; v4.6.8 sweep: dcim/front-ports rear_port_id=1250, dcim/front-port-templates rear_port_id=73 → 500",
            "rear_port_id",
            &["dcim/front-ports", "dcim/front-port-templates"],
        );
        assert_eq!(
            got,
            [
                (
                    "dcim/front-ports".to_string(),
                    "rear_port_id=1250".to_string()
                ),
                (
                    "dcim/front-port-templates".to_string(),
                    "rear_port_id=73".to_string()
                ),
            ]
        );
        // Source text (`to_field_name='rear_port'`) and other filters are not probes.
        assert!(cited(
            "`vlan = CharFilter(method='filter_vlan')` vid=value",
            "vlan",
            &[]
        )
        .is_empty());
    }

    #[test]
    fn every_rule_gets_its_triggers() {
        let probes = all(&|t: &str| (t == "dcim.site").then(|| "dcim/sites".to_string()));
        let has = |ep: &str, q: &str, kind: &str| {
            probes
                .iter()
                .any(|p| p.endpoint == ep && p.query == q && p.kind == kind)
        };
        // A fault: the cited values, the made-up value on each lookup, null.
        assert!(has("dcim/front-ports", "rear_port_id=1250", "param"));
        assert!(has(
            "dcim/front-port-templates",
            "rear_port_id__n=999999",
            "param-lookup"
        ));
        assert!(has("dcim/front-ports", "rear_port_id=null", "param"));
        assert!(has(
            "extras/tagged-objects",
            "object_type__n=dcim.site",
            "param-lookup"
        ));
        // installed_module_id honours null: no null probe.
        assert!(!probes.iter().any(|p| p.query == "installed_module_id=null"));
        // A value form: a value its check refuses; a bounded number below its bound.
        assert!(has("dcim/sites", "time_zone=zz-no-such", "invalid-value"));
        assert!(has(
            "dcim/rack-reservations",
            "unit=999999",
            "invalid-value"
        ));
        assert!(has(
            "dcim/rack-reservations",
            "unit__lte=-999999",
            "invalid-value"
        ));
        assert!(has("dcim/interfaces", "speed__lt=-999999", "invalid-value"));
        assert!(has("ipam/services", "protocol=zz-no-such", "invalid-value"));
        // A declared null refusal, on the endpoint of its object type only.
        assert!(has("dcim/sites", "status=null", "null-nonfk"));
        // No duplicates.
        let mut keys: Vec<(&str, &str)> = probes
            .iter()
            .map(|p| (p.endpoint.as_str(), p.query.as_str()))
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n);
    }
}
