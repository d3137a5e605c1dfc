//! What an index built from the user's own NetBox knows beyond its OpenAPI document: where and
//! when it was built, the NetBox version and plugins `/api/status/` reported, a hash of every
//! input, and the custom fields (`/api/extras/custom-fields/` with the choice sets of
//! `/api/extras/custom-field-choice-sets/`), which the OpenAPI document does not list (no `cf_`
//! parameter at all: `../shared/netbox/v4.6.8-instance/README.md`).
//!
//! All of it is optional in the index file ([`super::FilterIndex::instance`]), so stock indexes
//! stay valid and unchanged.

use super::FilterIndex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The stamp and extra knowledge of an index built from an instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Instance {
    /// Base URL the inputs came from (`https://netbox.example.com`); empty when built from files.
    /// Never carries credentials.
    #[serde(default)]
    pub url: String,
    /// When the index was built, RFC 3339 UTC (`2026-11-30T12:07:01Z`).
    #[serde(default)]
    pub built: String,
    /// `netbox-version` of `/api/status/` (e.g. `4.6.8`); empty when no status was given.
    #[serde(default)]
    pub netbox_version: String,
    /// Installed plugins and their versions (`/api/status/` `plugins`: `netbox_bgp` → `0.19.0`).
    #[serde(default)]
    pub plugins: BTreeMap<String, String>,
    /// Lower-case hex SHA-256 over the SHA-256 of each input, in a fixed order (status, OpenAPI,
    /// GraphQL, custom fields, choice sets; a missing input counts as empty): equal inputs give
    /// an equal hash, whether fetched or read from files.
    #[serde(default)]
    pub inputs_sha256: String,
    /// The instance's custom fields; `None` when they were not fetched (then `cf_` filters are
    /// not checked, as with stock knowledge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_fields: Option<Vec<CustomField>>,
}

/// One custom field, as `/api/extras/custom-fields/` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomField {
    /// `name` (the filter is `cf_<name>`).
    pub name: String,
    /// Object types it is assigned to (`dcim.device`); on any other NetBox ignores `cf_<name>`.
    pub object_types: Vec<String>,
    /// `type.value`: `text`, `longtext`, `integer`, `decimal`, `boolean`, `date`, `datetime`,
    /// `url`, `json`, `select`, `multiselect`, `object`, `multiobject`.
    pub kind: String,
    /// `filter_logic.value`: `loose` (default; text is a case-insensitive contains), `exact`,
    /// `disabled` (no filter at all).
    pub filter_logic: String,
    /// Name of the choice set of a select/multiselect field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice_set: Option<String>,
    /// The choice values of that set; `None` when not all are known (a set with `base_choices`,
    /// or no choice sets were given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// `related_object_type` of an object/multiobject field (`tenancy.contact`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_object_type: Option<String>,
}

/// What `/api/status/` says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Status {
    /// `netbox-version`, e.g. `4.6.8` (`4.6.8-beta1` on a beta; empty when it is `null`, as
    /// on netbox-docker beta images).
    pub netbox_version: String,
    /// `plugins`: name → version.
    pub plugins: BTreeMap<String, String>,
}

/// Reads a `/api/status/` body. Errors say what is missing.
pub fn parse_status(bytes: &[u8]) -> Result<Status, String> {
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the status answer is not JSON: {e}"))?;
    // `null` (netbox-docker beta images) reads as "" here; the build then asks for
    // --netbox-version unless the OpenAPI document names a release.
    let version = match v.get("netbox-version") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Null) => "",
        _ => {
            return Err(
                "the status answer has no `netbox-version`: not a NetBox /api/status/".into(),
            )
        }
    };
    let plugins = v
        .get("plugins")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    Ok(Status {
        netbox_version: version.to_string(),
        plugins,
    })
}

/// The `results` of one or more pages of a NetBox list answer (`{"count", "next", "results"}`),
/// or of a bare JSON array.
fn results(pages: &[&[u8]], what: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for page in pages {
        let v: Value = serde_json::from_slice(page)
            .map_err(|e| format!("the {what} answer is not JSON: {e}"))?;
        match v {
            Value::Array(a) => out.extend(a),
            Value::Object(mut m) => match m.remove("results") {
                Some(Value::Array(a)) => out.extend(a),
                _ => return Err(format!("the {what} answer has no `results` list")),
            },
            _ => return Err(format!("the {what} answer is not a NetBox list")),
        }
    }
    Ok(out)
}

/// `{"value": "text", "label": "Text"}` or `"text"` → `text`.
fn choice_value(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => m.get("value")?.as_str().map(str::to_string),
        _ => None,
    }
}

/// Custom fields from the pages of `/api/extras/custom-fields/` and, for their choice values,
/// of `/api/extras/custom-field-choice-sets/` (may be empty: choices are then unknown).
pub fn parse_custom_fields(
    field_pages: &[&[u8]],
    choice_set_pages: &[&[u8]],
) -> Result<Vec<CustomField>, String> {
    let mut sets: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    for s in results(choice_set_pages, "custom field choice sets")? {
        let Some(name) = s.get("name").and_then(Value::as_str) else {
            continue;
        };
        let base = s.get("base_choices").is_some_and(|b| !b.is_null());
        let extra: Vec<String> = s
            .get("extra_choices")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|c| c.get(0).and_then(Value::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        sets.insert(name.to_string(), (!base).then_some(extra));
    }
    let mut out = Vec::new();
    for f in results(field_pages, "custom fields")? {
        let Some(name) = f.get("name").and_then(Value::as_str) else {
            continue;
        };
        let choice_set = f
            .get("choice_set")
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let choices = choice_set
            .as_ref()
            .and_then(|c| sets.get(c).cloned().flatten());
        out.push(CustomField {
            name: name.to_string(),
            object_types: f
                .get("object_types")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            kind: choice_value(f.get("type")).unwrap_or_default(),
            filter_logic: choice_value(f.get("filter_logic")).unwrap_or_else(|| "loose".into()),
            choice_set,
            choices,
            related_object_type: f
                .get("related_object_type")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// SHA-256 over the SHA-256 of each input (see [`Instance::inputs_sha256`]).
pub fn inputs_hash(inputs: &[&[u8]]) -> String {
    let mut outer = Sha256::new();
    for i in inputs {
        outer.update(Sha256::digest(i));
    }
    hex(&outer.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Now as RFC 3339 UTC, to the second.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since 1970 → `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, H. Hinnant's algorithm).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The app label of the plugin mounted at `/api/plugins/<segment>/`, from the installed plugin
/// names: the plugin named `segment`, `netbox_<segment>` or `<x>_<segment>` when exactly one
/// fits (netbox-bgp: base URL `bgp`, app `netbox_bgp`).
fn plugin_app(segment: &str, plugins: &BTreeMap<String, String>) -> Option<String> {
    let seg = segment.replace('-', "_");
    let fits: Vec<&String> = plugins
        .keys()
        .filter(|p| **p == seg || p.ends_with(&format!("_{seg}")))
        .collect();
    match fits.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// Makes `index` an instance index: stamps it, marks its choices authoritative
/// ([`FilterIndex::from_instance`]), and gives each plugin endpoint the object type NetBox knows
/// it by, under the plugin's app label (`netbox_bgp.bgpsession`, the name custom fields are
/// assigned to), keeping the path-derived one (`bgp.bgpsession`) as another name for it.
pub fn apply(index: &mut FilterIndex, instance: Instance) {
    let mut extra = Vec::new();
    for (ot, key) in &index.object_types {
        let Some(rest) = key.strip_prefix("plugins/") else {
            continue;
        };
        let segment = rest.split('/').next().unwrap_or_default();
        let (Some(app), Some((_, model))) =
            (plugin_app(segment, &instance.plugins), ot.split_once('.'))
        else {
            continue;
        };
        extra.push((ot.clone(), format!("{app}.{model}"), key.clone()));
    }
    for (path_ot, ot, key) in extra {
        // Every endpoint serving the type (`session` and `bgpsession` both serve BGPSession).
        for ep in index.endpoints.values_mut() {
            if ep.object_type.as_deref() == Some(path_ot.as_str()) {
                ep.object_type = Some(ot.clone());
            }
        }
        index.object_types.entry(ot).or_insert(key);
    }
    index.from_instance = true;
    index.instance = Some(Box::new(instance));
    index.forget_targets();
}

impl FilterIndex {
    /// The instance's custom fields assigned to `object_type` (`dcim.device`), by name; empty
    /// for stock indexes.
    pub fn custom_fields_of(&self, object_type: &str) -> Vec<&CustomField> {
        self.instance
            .as_deref()
            .and_then(|i| i.custom_fields.as_ref())
            .map(|fields| {
                fields
                    .iter()
                    .filter(|f| f.object_types.iter().any(|t| t == object_type))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_435_621), "2026-11-23T12:07:01Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn plugin_apps() {
        let p: BTreeMap<String, String> = [("netbox_bgp".to_string(), "0.19.0".to_string())]
            .into_iter()
            .collect();
        assert_eq!(plugin_app("bgp", &p).as_deref(), Some("netbox_bgp"));
        assert_eq!(plugin_app("dns", &p), None);
    }
}
