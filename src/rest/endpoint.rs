//! A view of one endpoint's parameters that answers the questions the rules ask: is this a
//! relation filter, does it take ids, does it want a slug. Facts from NetBox's filtersets
//! (netbox-facts.md §1.3): relation filters get only the `__n` lookup; numbers get
//! `__gte`/`__lte`/...; char and choice filters get `__ic`, `__empty`, ...

use super::lookups::has_dunder;
use crate::index::{Endpoint, FilterIndex, LookupSet, Parameter, ValueKind};

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

/// True when `set` (a filter's lookups) is a relation filter's: `__n` and none of the number
/// or char lookups ([`View::is_relation`]).
fn relation_set(set: LookupSet) -> bool {
    const N: LookupSet = LookupSet::of(&["n"]);
    const OTHERS: LookupSet = LookupSet::of(&["gte", "ic", "empty"]);
    set.contains_all(N) && !set.contains_any(OTHERS)
}

/// A parameter of a [`View`] found by name ([`View::param_relation`]).
#[derive(Clone, Copy)]
pub(crate) struct Known<'a> {
    pub param: &'a Parameter,
    /// [`View::is_relation`] of the name.
    pub relation: bool,
    /// Its position in the endpoint's parameters.
    pub position: usize,
}

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

    /// [`View::param`] with [`View::is_relation`] of the same name, from one hash probe, and
    /// the parameter's position (for [`crate::index::Params::memo_at`]).
    pub fn param_relation(&self, name: &str) -> Option<Known<'a>> {
        let (position, param) = self.ep.params.get_at(name)?;
        Some(Known {
            param,
            relation: relation_set(self.ep.params.lookup_set_at(position)),
            position,
        })
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
        self.ep.params.lookup_set(name).is_some_and(relation_set)
    }

    /// True when `name` (a parameter, possibly with a lookup) takes integer ids or numbers:
    /// the schema says integer, or it is a relation `_id` filter (tree-node filters such as
    /// `role_id`, `region_id` are typed string in the schema but take primary keys).
    pub fn takes_integers(&self, name: &str, param: &Parameter) -> bool {
        self.takes_integers_known(name, param, None)
    }

    /// [`View::takes_integers`] with [`View::is_relation`]`(name)` given when known (`name`'s
    /// parameter found by [`View::param_relation`]): no probe for a name without `__n`.
    pub fn takes_integers_known(
        &self,
        name: &str,
        param: &Parameter,
        relation: Option<bool>,
    ) -> bool {
        if param.kind == ValueKind::Integer {
            return true;
        }
        let base = name.strip_suffix("__n").unwrap_or(name);
        param.kind == ValueKind::String
            && base.ends_with("_id")
            && match relation {
                Some(r) if base.len() == name.len() => r,
                _ => self.is_relation(base),
            }
    }

    /// True when `name` (bare or `__n`) matches the related object's slug. `known`: `name`'s
    /// own parameter and [`View::is_relation`]`(name)` when the caller has them
    /// ([`View::param_relation`]): no probe then for a name without `__n`.
    pub fn is_slug_filter_known(&self, name: &str, known: Option<(&Parameter, bool)>) -> bool {
        let base = name.strip_suffix("__n").unwrap_or(name);
        let (p, relation) = match known {
            Some((p, r)) if base.len() == name.len() => (p, Some(r)),
            _ => match self.param(base) {
                Some(p) => (p, None),
                None => return false,
            },
        };
        let desc = p.description.as_deref().unwrap_or("");
        if super::text::contains(desc, "(slug)") {
            return true;
        }
        desc.is_empty()
            && SLUG_RELATIONS.contains(&base)
            && relation.unwrap_or_else(|| self.is_relation(base))
    }

    /// The field of the related object that relation filter `name` matches (lower case): from
    /// the schema's description (`Site name (slug)` → `slug`, `Installed device (name)` →
    /// `name`, `Device type (model)` → `model`, `Site (ID)` → `id`, `VRF (RD)` → `rd`), else
    /// `slug` for the tree-node and tag relations NetBox describes with nothing
    /// ([`SLUG_RELATIONS`]) and `id` for an undescribed `_id` relation. `None` when `name` is no
    /// relation filter here (a choice, text or number filter). Source: the filtersets'
    /// `to_field_name` at 4.3.3–4.6.8, which the OpenAPI descriptions name.
    pub fn relation_field(&self, name: &str) -> Option<String> {
        self.relation_field_known(name, self.param_relation(name)?)
    }

    /// [`View::relation_field`] of `name`, whose parameter is `known` ([`View::param_relation`]).
    pub fn relation_field_known(&self, name: &str, known: Known) -> Option<String> {
        if !known.relation {
            return None;
        }
        let p = known.param;
        let desc = p.description.as_deref().unwrap_or("").trim();
        if let Some(inner) = desc
            .strip_suffix(')')
            // `rsplit_once('(')` by a byte scan (no char searcher set up per call).
            .and_then(|d| {
                d.as_bytes()
                    .iter()
                    .rposition(|&b| b == b'(')
                    .map(|i| &d[i + 1..])
            })
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
}
