//! The real filters of an endpoint, for an agent that asks before it calls (the MCP tool
//! `list_filters`): read from the filter index the command line chose (a shipped release's,
//! built from its OpenAPI document, or an instance's, with its plugins and custom fields).

use crate::index::FilterIndex;
use serde_json::{json, Map, Value};

/// Filters listed per page at most; the default page is [`PAGE`].
pub const MAX_PAGE: usize = 200;
/// The default page size.
pub const PAGE: usize = 40;
/// Choice values listed per filter; the rest are counted.
const CHOICES: usize = 25;

/// The filters of `target` (an endpoint path such as `/api/dcim/devices/` or an object type
/// such as `dcim.device`) in name order, each with its value type, whether it takes a list,
/// its lookups (`n ic nic ...`: `name__ic` is a filter), its choice values and the schema's
/// description; lookup variants are folded into their filter. `matching`: only filters whose
/// name or description holds it (case-insensitive: a prefix `site`, a concept `vlan`). Paged
/// by `offset` and `limit` ([`MAX_PAGE`] at most). `Err` names the closest endpoint when
/// `target` is none of the release's.
pub fn list_filters(
    index: &FilterIndex,
    target: &str,
    matching: Option<&str>,
    offset: usize,
    limit: usize,
) -> Result<Value, String> {
    let Some((key, endpoint)) = index.resolve(target) else {
        return Err(unknown_target(index, target));
    };
    let params = &endpoint.params;
    let wanted = matching
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    let mut rows: Vec<Value> = Vec::new();
    for (name, p) in params.iter() {
        // `site_id__n` is a lookup of `site_id`, listed with it.
        if name
            .rsplit_once("__")
            .is_some_and(|(base, _)| params.contains_key(base))
        {
            continue;
        }
        let about = p.description.as_deref().unwrap_or("");
        if let Some(m) = &wanted {
            if !name.to_ascii_lowercase().contains(m.as_str())
                && !about.to_ascii_lowercase().contains(m.as_str())
            {
                continue;
            }
        }
        let mut row = Map::new();
        row.insert("name".into(), name.into());
        row.insert(
            "type".into(),
            serde_json::to_value(p.kind).unwrap_or(Value::Null),
        );
        if p.multi {
            row.insert("list".into(), true.into());
        }
        let lookups: Vec<&str> = params.lookups(name).collect();
        if !lookups.is_empty() {
            row.insert("lookups".into(), lookups.join(" ").into());
        }
        if let Some(set) = index.choices(p) {
            let values: Vec<&str> = set.choices.iter().map(|(v, _)| v.as_str()).collect();
            row.insert("choices".into(), json!(values[..values.len().min(CHOICES)]));
            if values.len() > CHOICES {
                row.insert("more_choices".into(), (values.len() - CHOICES).into());
            }
        }
        if !about.is_empty() {
            row.insert("about".into(), short(about, 100).into());
        }
        rows.push(Value::Object(row));
    }
    // An instance index knows the custom fields of the endpoint's object type (`cf_<name>`).
    if let Some(ot) = &endpoint.object_type {
        for cf in index.custom_fields_of(ot) {
            let name = format!("cf_{}", cf.name);
            if wanted
                .as_ref()
                .is_some_and(|m| !name.to_ascii_lowercase().contains(m.as_str()))
            {
                continue;
            }
            let mut row = Map::new();
            row.insert("name".into(), name.into());
            row.insert("type".into(), format!("custom field: {}", cf.kind).into());
            row.insert("filter_logic".into(), cf.filter_logic.clone().into());
            if let Some(choices) = &cf.choices {
                row.insert(
                    "choices".into(),
                    json!(choices[..choices.len().min(CHOICES)]),
                );
            }
            rows.push(Value::Object(row));
        }
    }
    let total = rows.len();
    let limit = limit.clamp(1, MAX_PAGE);
    let page: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    let mut out = json!({
        "endpoint": format!("/api/{key}/"),
        "release": index.netbox_version,
        "total": total,
        "offset": offset,
        "filters": page,
    });
    if let Some(o) = out.as_object_mut() {
        if let Some(ot) = &endpoint.object_type {
            o.insert("object_type".into(), ot.clone().into());
        }
        if offset + limit < total {
            o.insert("next_offset".into(), (offset + limit).into());
        }
    }
    Ok(out)
}

fn short(s: &str, n: usize) -> String {
    let cut: String = s.chars().take(n).collect();
    if cut.len() < s.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// Why `target` names no endpoint, with the closest endpoint or object type when one is near.
fn unknown_target(index: &FilterIndex, target: &str) -> String {
    let t = target.trim().trim_matches('/');
    let t = t.strip_prefix("api/").unwrap_or(t);
    let nearest = index
        .endpoints
        .keys()
        .map(|k| (strsim::damerau_levenshtein(t, k), format!("/api/{k}/")))
        .chain(
            index
                .object_types
                .keys()
                .map(|k| (strsim::damerau_levenshtein(t, k), k.clone())),
        )
        .min()
        .filter(|(d, _)| *d <= (t.len() / 3).max(2));
    match nearest {
        Some((_, n)) => format!(
            "`{}` is no endpoint or object type of NetBox {}; did you mean `{n}`?",
            super::printable(target),
            index.netbox_version
        ),
        None => format!(
            "`{}` is no endpoint or object type of NetBox {} (give `/api/<app>/<endpoint>/` or `<app>.<model>`)",
            super::printable(target),
            index.netbox_version
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_role_filters() {
        let index = crate::index::embedded::embedded_index("4.7.3");
        let v = list_filters(&index, "dcim.device", Some("role"), 0, 10).unwrap();
        assert_eq!(v["endpoint"], "/api/dcim/devices/");
        let names: Vec<&str> = v["filters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"role_id"), "{names:?}");
        assert!(!names.iter().any(|n| n.contains("__")), "{names:?}");
        let status = list_filters(&index, "/api/dcim/devices/", Some("status"), 0, 5).unwrap();
        let first = &status["filters"][0];
        assert_eq!(first["name"], "status");
        assert!(first["choices"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "active"));
        assert!(first["lookups"]
            .as_str()
            .unwrap()
            .split(' ')
            .any(|l| l == "n"));
        let e = list_filters(&index, "/api/dcim/device/", None, 0, 5).unwrap_err();
        assert!(e.contains("did you mean `/api/dcim/devices/`"), "{e}");
    }

    #[test]
    fn pages() {
        let index = crate::index::embedded::embedded_index("4.7.3");
        let a = list_filters(&index, "dcim/devices", None, 0, 3).unwrap();
        let b = list_filters(&index, "dcim/devices", None, 3, 3).unwrap();
        assert_eq!(a["next_offset"], 3);
        assert_ne!(a["filters"][0]["name"], b["filters"][0]["name"]);
        assert_eq!(a["total"], b["total"]);
    }
}
