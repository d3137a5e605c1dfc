//! A view of one endpoint's parameters that answers the questions the rules ask: is this a
//! relation filter, does it take ids, does it want a slug. Facts from NetBox's filtersets
//! (netbox-facts.md §1.3): relation filters get only the `__n` lookup; numbers get
//! `__gte`/`__lte`/...; char and choice filters get `__ic`, `__empty`, ...

use super::lookups::has_dunder;
use crate::extract::Value;
use crate::index::{Endpoint, FilterIndex, Parameter, ValueKind};

/// Relation filters whose schema description is empty but which match the related object's
/// slug (`to_field_name='slug'` in NetBox 4.3–4.6 filtersets). Names with a "(slug)"
/// description need no entry.
const SLUG_RELATIONS: &[&str] = &[
    "tag",
    "tenant",
    "tenant_group",
    "region",
    "site_group",
    "location",
    "role",
    "platform",
    "default_platform",
    "manufacturer",
    "contact_group",
    "cluster_group",
    "cluster_type",
    "device_role",
    "rir",
    "ancestor",
];

/// IPAM filters whose value is an address or prefix (`prefix=10.0.0.0/8`, NetBox's
/// `MultiValueCharFilter(method='filter_prefix')` and kin in ipam/filtersets.py).
const IP_FILTERS: &[&str] = &[
    "prefix",
    "parent",
    "within",
    "within_include",
    "contains",
    "address",
    "start_address",
    "end_address",
];

/// One endpoint of one index, with its key (`dcim/devices`).
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub key: &'a str,
    pub ep: &'a Endpoint,
    pub index: &'a FilterIndex,
}

impl<'a> View<'a> {
    pub fn param(&self, name: &str) -> Option<&'a Parameter> {
        self.ep.params.get(name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.ep.params.contains_key(name)
    }

    /// `/api/dcim/devices/`, for messages.
    pub fn path(&self) -> String {
        format!("/api/{}/", self.key)
    }

    /// The object type served, or the path, for messages ("devices" reads worse).
    pub fn version(&self) -> &'a str {
        &self.index.netbox_version
    }

    /// A relation filter (`site`, `site_id`, `tenant`, `role_id`, `tag`): present, has `__n`
    /// and none of the number or char lookups.
    pub fn is_relation(&self, name: &str) -> bool {
        // The lookup set is found with the name (one hash probe, no walk over the names).
        self.ep.params.lookup_set(name).is_some_and(|set| {
            set.contains("n") && !["gte", "ic", "empty"].iter().any(|l| set.contains(l))
        })
    }

    /// The key that takes `null` for relation `base` (`tenant` → `tenant_id`, `role_id` →
    /// `role_id`); `None` when `base` is not a relation here.
    pub fn null_key(&self, base: &str) -> Option<String> {
        // A relation declared without a null value (`cable` on cable terminations) refuses it.
        let selects = |k: &str| self.is_relation(k) && !super::nullable::declared_refused(self, k);
        if base.ends_with("_id") && selects(base) {
            return Some(base.to_string());
        }
        let id = format!("{base}_id");
        if selects(&id) {
            return Some(id);
        }
        if selects(base) {
            return Some(base.to_string());
        }
        None
    }

    /// True when `name` (a parameter, possibly with a lookup) takes integer ids or numbers:
    /// the schema says integer, or it is a relation `_id` filter (tree-node filters such as
    /// `role_id`, `region_id` are typed string in the schema but take primary keys).
    pub fn takes_integers(&self, name: &str, param: &Parameter) -> bool {
        if param.kind == ValueKind::Integer {
            return true;
        }
        let base = name.strip_suffix("__n").unwrap_or(name);
        param.kind == ValueKind::String && base.ends_with("_id") && self.is_relation(base)
    }

    /// True when `name` (bare or `__n`) matches the related object's slug.
    pub fn is_slug_filter(&self, name: &str) -> bool {
        let base = name.strip_suffix("__n").unwrap_or(name);
        let Some(p) = self.param(base) else {
            return false;
        };
        let desc = p.description.as_deref().unwrap_or("");
        if desc.contains("(slug)") {
            return true;
        }
        desc.is_empty() && SLUG_RELATIONS.contains(&base) && self.is_relation(base)
    }

    /// The field of the related object that relation filter `name` matches (lower case): from
    /// the schema's description (`Site name (slug)` → `slug`, `Installed device (name)` →
    /// `name`, `Device type (model)` → `model`, `Site (ID)` → `id`, `VRF (RD)` → `rd`), else
    /// `slug` for the tree-node and tag relations NetBox describes with nothing
    /// ([`SLUG_RELATIONS`]) and `id` for an undescribed `_id` relation. `None` when `name` is no
    /// relation filter here (a choice, text or number filter). Source: the filtersets'
    /// `to_field_name` at 4.3.3–4.6.8, which the OpenAPI descriptions name.
    pub fn relation_field(&self, name: &str) -> Option<String> {
        if !self.is_relation(name) {
            return None;
        }
        let p = self.param(name)?;
        let desc = p.description.as_deref().unwrap_or("").trim();
        if let Some(inner) = desc
            .strip_suffix(')')
            .and_then(|d| d.rsplit_once('(').map(|(_, f)| f))
        {
            let field = inner.trim().to_ascii_lowercase();
            if !field.is_empty() && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Some(field);
            }
        }
        if !desc.is_empty() {
            return None;
        }
        if name.ends_with("_id") {
            return Some("id".to_string());
        }
        SLUG_RELATIONS.contains(&name).then(|| "slug".to_string())
    }

    /// Relation id filters of this endpoint (`site_id`, `rack_id`, ...), for hints.
    pub fn relation_id_filters(&self) -> Vec<&'a str> {
        self.ep
            .params
            .keys()
            .filter(|k| !has_dunder(k) && k.ends_with("_id") && self.is_relation(k))
            .collect()
    }

    /// Whether `value` is of a kind parameter `name` takes, so a rename to `name` keeps the
    /// request valid: integer ids for id and number filters, text (not a bare number) for slug
    /// and name relations, `true`/`false` for booleans; every element of a list, and a list of
    /// several values only where the filter takes several. Non-literals fit (unknown).
    pub fn value_fits(&self, name: &str, value: &Value) -> Fit {
        let Some(p) = self.param(name) else {
            return Fit::No("");
        };
        // A filter this release answers with a server error is no target for a certain fix.
        if super::faults::broken(self, name) {
            return Fit::No("is broken in this NetBox release (server-fault)");
        }
        match value {
            Value::List(items) => {
                if items.len() > 1 && !p.multi {
                    return Fit::No("takes one value");
                }
                items
                    .iter()
                    .map(|(v, _)| self.value_fits(name, v))
                    .find(|f| *f != Fit::Yes)
                    .unwrap_or(Fit::Yes)
            }
            Value::Expr | Value::Null | Value::Map => Fit::Yes,
            Value::Joined { .. } => Fit::No("gets all the values as one joined string"),
            Value::Str(s) if s == "null" => Fit::Yes,
            v => {
                let text = match v {
                    Value::Str(s) => s.trim().to_string(),
                    Value::Int(i) => i.to_string(),
                    Value::Float(f) => f.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => return Fit::Yes,
                };
                if let Some(set) = self.index.choices(p) {
                    if !set.choices.iter().any(|(v, _)| *v == text) {
                        return Fit::No("takes one of its choice values");
                    }
                }
                let integer = text.parse::<i64>().is_ok();
                if self.takes_integers(name, p) {
                    return if integer {
                        Fit::Yes
                    } else {
                        Fit::No("takes numeric ids")
                    };
                }
                let date = text.len() >= 10
                    && text.as_bytes()[..4].iter().all(u8::is_ascii_digit)
                    && text.as_bytes()[4] == b'-';
                if super::object_type_value::is_object_type_filter(name, p) && !text.contains('.') {
                    return Fit::No("takes an object type as `app_label.model`");
                }
                if self.key.starts_with("ipam/")
                    && IP_FILTERS.contains(&name)
                    && !text.contains(['.', ':'])
                {
                    return Fit::No("takes an IP address or prefix");
                }
                match p.kind {
                    ValueKind::Number if text.parse::<f64>().is_err() => Fit::No("takes a number"),
                    ValueKind::Date | ValueKind::DateTime if !date => Fit::No("takes a date"),
                    ValueKind::Boolean
                        if !matches!(text.as_str(), "true" | "false" | "True" | "False") =>
                    {
                        Fit::No("takes true or false")
                    }
                    ValueKind::String if integer && self.is_relation(name) => {
                        Fit::No("takes the slug or name, not the id")
                    }
                    _ => Fit::Yes,
                }
            }
        }
    }
}

/// Whether a value fits a parameter ([`View::value_fits`]); `No` says why, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    Yes,
    No(&'static str),
}
