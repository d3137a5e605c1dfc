//! `relation-field`: a relation filter that matches another field of the related object than
//! the filter of the same name does on most endpoints, given the value that other convention
//! expects. Plugins write their own filtersets and do not always follow NetBox's conventions,
//! and a writer who knows NetBox's `site=<slug>` writes it on the plugin too:
//! - **a name where NetBox takes the slug.** netbox-bgp 0.19.0 `BGPSessionFilterSet.site`
//!   (`netbox_bgp/filtersets.py` l. 195–200: `to_field_name='name'`, label "DSite (name)"),
//!   while NetBox's own `site` filters take the slug (`to_field_name='slug'`, "Site name
//!   (slug)", dcim/filtersets.py at v4.3.3–v4.7.3). Live, the customised 4.6.8 instance
//!   (`tests/fixtures/instance/ground-truth.tsv`): `plugins/bgp/session site=DM-Akron` → 1 of
//!   5, `site=dm-akron` → HTTP 400 "not one of the available choices".
//! - **a number where the filter takes the object's id.** A foreign key listed in a
//!   filterset's `Meta.fields` becomes django-filter's `ModelMultipleChoiceFilter` on the primary
//!   key, which the OpenAPI document shows as a bare integer with no description:
//!   `BGPPeerGroupFilterSet` `fields = (..., 'local_as', 'remote_as', ...)` (l. 290–297), while
//!   the session's `remote_as` is the AS number (`to_field_name='asn'`, "Remote AS (Number)",
//!   l. 108–113). Live: `plugins/bgp/session remote_as=65002` → 2 of 5,
//!   `plugins/bgp/peer-group remote_as=65002` → HTTP 400 "Select a valid choice".
//!
//! The field a filter matches is read from the release's or instance's own OpenAPI document
//! (its description, [`View::relation_field`]), never from a list of plugin names. NetBox's own
//! labels can say `(ID)` for a filter that takes a number (`asn` on sites: `to_field_name='asn'`,
//! label "AS (ID)", dcim/filtersets.py v4.6.8 l. 202–207), so only an undescribed integer is
//! read as an id. The value decides the severity: whether it can only be the other convention's
//! form is unknowable without the instance's data (a site may be named `dm-akron`), so a warning
//! where that form is the likely reading — a slug with a separator, a number in the private-use
//! AS ranges of RFC 6996 that no id of a real instance reaches — and information otherwise.

use super::endpoint::View;
use super::finding_sev;
use super::lookups::Key;
use crate::finding::{Finding, Severity};
use crate::index::{Parameter, ValueKind};
use std::collections::BTreeMap;
use std::ops::Range;

/// The first private-use 16-bit AS number (RFC 6996); 4-byte private use starts at 4200000000.
const PRIVATE_AS_START: u64 = 64_512;

/// Checks one scalar `text` of relation filter `key` (bare or `__n`; `k` is `key` parsed;
/// `key_relation`: [`View::is_relation`]`(key)`, known to the caller). The value rules ask
/// [`rule_of`] once per filter and [`check_rule`] per value.
#[cfg(test)]
pub(crate) fn check(
    view: &View,
    key: &str,
    k: &Key,
    key_relation: bool,
    param: &Parameter,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let rule = rule_of(view, k, key_relation, param)?;
    check_rule(view, key, k, rule, param, text, r)
}

/// [`check`] with its rule known ([`rule_of`] the same filter): `name` for the name rule
/// (`Some(true)` there), else the id rule.
pub(crate) fn check_rule(
    view: &View,
    key: &str,
    k: &Key,
    name: bool,
    param: &Parameter,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let base = k.base();
    let text = text.trim();
    match name {
        true if slug_shaped(text) && has_slug(view, base) => {
            let other = elsewhere(view, base, &["slug"])?;
            let spoken = base.replace('_', " ");
            let id = format!("{base}_id");
            let alternative = if view.has(&id) {
                format!(", or `{id}` with its id")
            } else {
                String::new()
            };
            let head = format!(
                "`{key}` on {} matches the {spoken}'s name (its schema: “{}”), not its slug as `{base}` does on {}",
                view.path(),
                description(param),
                other.paths
            );
            let (severity, message) = if text.contains(['-', '_']) {
                (Severity::Warning, format!("{head}: `{text}` looks like a slug, an HTTP 400 unless a {spoken} is named `{text}`. Give the {spoken}'s name{alternative}."))
            } else {
                (
                    Severity::Information,
                    format!(
                        "{head}. If `{text}` is a slug, give the {spoken}'s name{alternative}."
                    ),
                )
            };
            Some(finding_sev(r, "relation-field", severity, message))
        }
        true => None,
        false => {
            let n: u64 = text.parse().ok()?;
            let other = elsewhere(view, base, &["number"])?;
            let object = other
                .label
                .clone()
                .unwrap_or_else(|| base.replace('_', " "));
            let head = format!(
                "`{key}` on {} matches the {object} object's id (its schema: an integer with no description, the filterset's foreign key), not the number as `{base}` does on {}",
                view.path(),
                other.paths
            );
            let (severity, message) = if n >= PRIVATE_AS_START {
                (Severity::Warning, format!("{head}: `{text}` looks like the number, an HTTP 400 unless an object has id {text}. Give the {object} object's id."))
            } else {
                (
                    Severity::Information,
                    format!("{head}. If `{text}` is the number, give the {object} object's id."),
                )
            };
            Some(finding_sev(r, "relation-field", severity, message))
        }
    }
}

/// The related field relation filter `k` (parsed; bare or `__n`) matches here ([`field_here`]
/// of its base); `None` for another lookup, an `_id` filter or no relation filter.
/// `key_relation`: [`View::is_relation`] of the whole key.
fn here(view: &View, k: &Key, key_relation: bool) -> Option<String> {
    let lookup = k.lookup();
    if lookup.is_some_and(|l| l != "n") {
        return None;
    }
    let base = k.base();
    // An `_id` filter matches the id everywhere (`field_here` gives nothing for it): asked
    // first, it spares the relation probe on the most common filters. A key of one part is
    // its base, whose relation question `key_relation` answers.
    let relation = if k.parts.len() == 1 {
        key_relation
    } else {
        view.is_relation(base)
    };
    if base.ends_with("_id") || !relation {
        return None;
    }
    field_here(view, base)
}

/// Which rule [`check`] holds values of filter `k` (parsed, of parameter `param`;
/// `key_relation` as there) to: `Some(true)` the name rule (a slug where the filter takes the
/// name), `Some(false)` the id rule (a number
/// where it takes the id), `None` neither.
pub(crate) fn rule_of(view: &View, k: &Key, key_relation: bool, param: &Parameter) -> Option<bool> {
    match here(view, k, key_relation).as_deref() {
        Some("name") => Some(true),
        Some("id") if param.kind == ValueKind::Integer => Some(false),
        _ => None,
    }
}

/// The related field `base` matches here: the description's, or `id` for an integer relation
/// with no description and no `_id` suffix (django-filter's default for a `Meta.fields` foreign
/// key). `None` for `_id` filters and what cannot be read.
fn field_here(view: &View, base: &str) -> Option<String> {
    if base.ends_with("_id") {
        return None;
    }
    // One probe for the parameter and its relation flag (`relation_field` probed it again).
    let known = view.param_relation(base)?;
    let p = known.param;
    match p.description.as_deref().map(str::trim) {
        None | Some("") => (p.kind == ValueKind::Integer).then(|| "id".to_string()),
        Some(_) => view.relation_field_known(base, known),
    }
}

/// How most other endpoints' relation filter `base` reads, when it matches one of `fields`.
#[derive(Clone)]
struct Elsewhere {
    /// Up to two of those endpoints' paths (one per object type), and how many more.
    paths: String,
    /// Their description without the field (`Remote AS` of “Remote AS (Number)”).
    label: Option<String>,
}

/// When more than half of the other endpoints with relation filter `base` match one of
/// `fields`: how they read. An endpoint served twice (`plugins/bgp/session` and
/// `plugins/bgp/bgpsession`) is counted once per object type.
fn elsewhere(view: &View, base: &str, fields: &[&str]) -> Option<Elsewhere> {
    // A shipped release's answer is the same every time: kept per release, endpoint, filter
    // and fields (the walk over every endpoint was most of this rule on a valid value).
    if !super::versions::is_shipped(view.index) {
        return elsewhere_scan(view, base, fields);
    }
    let memo_key = (
        Box::<str>::from(view.index.netbox_version.as_str()),
        Box::<str>::from(view.key),
        Box::<str>::from(base),
        fields.join(" ").into_boxed_str(),
    );
    if let Some(kept) = ELSEWHERE.with(|m| m.borrow().get(&memo_key).cloned()) {
        return kept;
    }
    let found = elsewhere_scan(view, base, fields);
    ELSEWHERE.with(|m| m.borrow_mut().insert(memo_key, found.clone()));
    found
}

thread_local! {
    /// [`elsewhere`] of the shipped releases, by (release, endpoint key, filter, fields).
    static ELSEWHERE: std::cell::RefCell<ElsewhereMemo> = std::cell::RefCell::default();
}

type ElsewhereMemo =
    std::collections::HashMap<(Box<str>, Box<str>, Box<str>, Box<str>), Option<Elsewhere>>;

/// [`elsewhere`], found by walking every endpoint.
fn elsewhere_scan(view: &View, base: &str, fields: &[&str]) -> Option<Elsewhere> {
    let here = view.ep.object_type.as_deref();
    let mut seen = std::collections::BTreeSet::new();
    let mut counts: BTreeMap<String, Vec<(&str, Option<&str>)>> = BTreeMap::new();
    // Shorter keys first, so that one object type served twice shows its plain path
    // (`plugins/bgp/session`, not `plugins/bgp/bgpsession`).
    let mut endpoints: Vec<_> = view.index.endpoints.iter().collect();
    endpoints.sort_by_key(|(k, _)| (k.len(), *k));
    for (key, ep) in endpoints {
        if key == view.key || (ep.object_type.is_some() && ep.object_type.as_deref() == here) {
            continue;
        }
        if ep
            .object_type
            .as_ref()
            .is_some_and(|t| !seen.insert(t.clone()))
        {
            continue;
        }
        let other = View {
            key,
            ep,
            index: view.index,
        };
        if !other.is_relation(base) {
            continue;
        }
        if let Some(f) = other.relation_field(base) {
            let desc = other.param(base).and_then(|p| p.description.as_deref());
            counts.entry(f).or_default().push((key, desc));
        }
    }
    let total: usize = counts.values().map(Vec::len).sum();
    let (field, found) = counts.into_iter().max_by_key(|(_, v)| v.len())?;
    if !fields.contains(&field.as_str()) || found.len() * 2 <= total {
        return None;
    }
    // NetBox's own endpoints first (`dcim/` before `circuits/`), as the writer knows them.
    let mut keys: Vec<&str> = found.iter().map(|(k, _)| *k).collect();
    keys.sort_by_key(|k| {
        (
            *k != "dcim/devices",
            !k.starts_with("dcim/"),
            k.starts_with("plugins/"),
            k.len(),
            *k,
        )
    });
    let mut paths: Vec<String> = keys.iter().take(2).map(|k| format!("/api/{k}/")).collect();
    if keys.len() > 2 {
        paths.push(format!("{} more", keys.len() - 2));
    }
    let label = found.iter().find_map(|(_, d)| {
        let (label, _) = (*d)?.trim().rsplit_once('(')?;
        let label = label.trim();
        (!label.is_empty()).then(|| label.to_string())
    });
    Some(Elsewhere {
        paths: paths.join(", "),
        label,
    })
}

/// True when the object type `base` names (`site` → `dcim.site`) has a slug: its endpoint
/// filters by `slug`. `group` on user permissions names `users.group`, which has none.
fn has_slug(view: &View, base: &str) -> bool {
    // `ip_address` → `ipaddress`, made once, not once per object type.
    let model_name = base.replace('_', "");
    if model_name.contains('.') {
        return false;
    }
    if super::versions::is_shipped(view.index) {
        let release = view.index.netbox_version.as_str();
        let known = SLUGGED.with(|cache| {
            cache
                .borrow()
                .get(release)
                .and_then(|models| models.get(model_name.as_str()).copied())
        });
        return known.unwrap_or_else(|| {
            let found = has_slug_scan(view.index, &model_name);
            SLUGGED.with(|cache| {
                cache
                    .borrow_mut()
                    .entry(release.into())
                    .or_default()
                    .insert(model_name.into(), found)
            });
            found
        });
    }
    has_slug_scan(view.index, &model_name)
}

/// [`has_slug`] by a walk over every object type (~9,000 instructions; remembered per model
/// for the shipped releases). `model_name` holds no `.`.
fn has_slug_scan(index: &crate::index::FilterIndex, model_name: &str) -> bool {
    // The model is what follows the object type's last `.`: `dcim.site` ends with `.site`.
    index.object_types.iter().any(|(object_type, key)| {
        object_type
            .strip_suffix(model_name)
            .is_some_and(|head| head.ends_with('.'))
            && index
                .endpoints
                .get(key)
                .is_some_and(|ep| ep.params.get("slug").is_some())
    })
}

thread_local! {
    /// [`has_slug_scan`]'s answers for the shipped releases, by release and model name (a
    /// shipped release's index is the same data each time it is decoded; at most one entry
    /// per relation filter name of a release).
    static SLUGGED: std::cell::RefCell<Slugged> = std::cell::RefCell::default();
}

/// Release → model name → whether its endpoint filters by `slug` ([`SLUGGED`]).
type Slugged = std::collections::HashMap<Box<str>, std::collections::HashMap<Box<str>, bool>>;

/// A value NetBox's slugify would leave as it is: lower-case ASCII letters, digits, `-`, `_`,
/// with at least one letter.
fn slug_shaped(text: &str) -> bool {
    !text.is_empty()
        && text.chars().any(|c| c.is_ascii_lowercase())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn description(p: &Parameter) -> &str {
    p.description.as_deref().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::{check, slug_shaped, View};
    use crate::index::embedded::{embedded_index, RELEASES};

    /// NetBox's own filtersets follow their conventions: in no shipped release does a relation
    /// filter get `relation-field` for a slug with a separator or a private AS number.
    #[test]
    fn no_netbox_filter_is_reported_in_any_shipped_release() {
        for release in RELEASES {
            let index = embedded_index(release.version);
            let mut flagged = Vec::new();
            for (key, ep) in &index.endpoints {
                let view = View {
                    key,
                    ep,
                    index: &index,
                };
                for (name, param) in ep.params.iter() {
                    for value in ["dm-akron", "65002"] {
                        let relation = view.is_relation(name);
                        let k = super::Key::parse(name);
                        if check(&view, name, &k, relation, param, value, 0..1).is_some() {
                            flagged.push(format!("{key} {name}={value}"));
                        }
                    }
                }
            }
            assert!(flagged.is_empty(), "{}: {flagged:?}", release.version);
        }
    }

    /// The answers remembered per shipped release are the walk's over the object types, for
    /// every model, every relation filter's base and a few odd names, on every shipped release
    /// and on an index loaded apart (not shipped: walked).
    #[test]
    fn remembered_slugs_answer_as_the_walk() {
        let mut asked = 0;
        for release in RELEASES {
            let index = embedded_index(release.version);
            let own = crate::index::embedded::load(release.version).unwrap();
            let mut bases: Vec<String> = ["", "x", "site", "ip_address", "a.b", "dcim.site"]
                .map(String::from)
                .to_vec();
            for t in index.object_types.keys() {
                bases.push(t.rsplit('.').next().unwrap_or("").to_string());
            }
            for ep in index.endpoints.values() {
                bases.extend(ep.params.bare_keys().map(String::from));
            }
            let (key, ep) = index.endpoints.iter().next().unwrap();
            for idx in [&*index, &own] {
                let view = View {
                    key,
                    ep,
                    index: idx,
                };
                for b in &bases {
                    let model = b.replace('_', "");
                    let walked = !model.contains('.') && super::has_slug_scan(idx, &model);
                    assert_eq!(
                        super::has_slug(&view, b),
                        walked,
                        "{} {b:?}",
                        release.version
                    );
                    asked += 1;
                }
            }
        }
        assert!(asked > 10_000, "{asked}");
    }

    #[test]
    fn slug_shapes() {
        assert!(slug_shaped("dm-akron"));
        assert!(slug_shaped("nyc1"));
        assert!(!slug_shaped("DM-Akron"));
        assert!(!slug_shaped("DM Akron"));
        assert!(!slug_shaped("12"));
        assert!(!slug_shaped(""));
    }
}
