//! Fix fitness: judgements built on the endpoint view ([`View`]) and the rule tables — whether
//! a value fits a parameter a fix renames to ([`View::value_fits`]) and which key takes `null`
//! for a relation ([`View::null_key`]). They sit above the view and the tables they consult
//! (`faults`, `nullable`, `object_type_value`), so the view stays a plain reading of the index.

use super::endpoint::{Known, View};
use crate::extract::Value;
use crate::index::ValueKind;

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

impl View<'_> {
    /// The key that takes `null` for relation `base` (`tenant` → `tenant_id`, `role_id` →
    /// `role_id`); `None` when `base` is not a relation here.
    pub fn null_key(&self, base: &str) -> Option<String> {
        // A relation declared without a null value (`cable` on cable terminations) refuses it.
        let selects = |k: &str| self.is_relation(k) && !super::nullable::declared_refused(self, k);
        if base.ends_with("_id") && selects(base) {
            return Some(base.to_string());
        }
        let mut id = String::with_capacity(base.len() + 3);
        id.push_str(base);
        id.push_str("_id");
        if selects(&id) {
            return Some(id);
        }
        if selects(base) {
            return Some(base.to_string());
        }
        None
    }

    /// `self.null_key(base).is_some()`, told without writing the key: `<base>_id` is probed
    /// from a buffer on the stack.
    pub fn has_null_key(&self, base: &str) -> bool {
        let selects = |k: &str| self.is_relation(k) && !super::nullable::declared_refused(self, k);
        if base.ends_with("_id") && selects(base) {
            return true;
        }
        let mut buf = [0u8; 64];
        let id = match buf.get_mut(..base.len() + 3) {
            Some(room) => {
                room[..base.len()].copy_from_slice(base.as_bytes());
                room[base.len()..].copy_from_slice(b"_id");
                std::str::from_utf8(room)
                    .ok()
                    .map(std::borrow::Cow::Borrowed)
            }
            None => Some(std::borrow::Cow::Owned(format!("{base}_id"))),
        };
        id.is_some_and(|id| selects(&id)) || selects(base)
    }

    /// Whether `value` is of a kind parameter `name` takes, so a rename to `name` keeps the
    /// request valid: integer ids for id and number filters, text (not a bare number) for slug
    /// and name relations, `true`/`false` for booleans; every element of a list, and a list of
    /// several values only where the filter takes several. Non-literals fit (unknown).
    pub fn value_fits(&self, name: &str, value: &Value) -> Fit {
        // The parameter and whether it is a relation from one probe (`param`, then
        // `is_relation` in `takes_integers` and for a string filter: three probes of the name).
        let Some(known) = self.param_relation(name) else {
            return Fit::No("");
        };
        self.value_fits_known(name, known, value)
    }

    /// [`View::value_fits`] for `name`'s parameter already found ([`View::param_relation`]).
    pub fn value_fits_known(&self, name: &str, known: Known, value: &Value) -> Fit {
        // A filter this release answers with a server error is no target for a certain fix.
        if super::faults::broken(self, name) {
            return Fit::No("is broken in this NetBox release (server-fault)");
        }
        self.fits_param(name, known.param, known.relation, value)
    }

    /// [`View::value_fits`] once parameter `name` (`p`, a relation filter when `relation`) is
    /// found and not broken: asked per element of a list without finding the parameter again.
    fn fits_param(
        &self,
        name: &str,
        p: &crate::index::Parameter,
        relation: bool,
        value: &Value,
    ) -> Fit {
        match value {
            Value::List(items) => {
                if items.len() > 1 && !p.multi {
                    return Fit::No("takes one value");
                }
                items
                    .iter()
                    .map(|(v, _)| self.fits_param(name, p, relation, v))
                    .find(|f| *f != Fit::Yes)
                    .unwrap_or(Fit::Yes)
            }
            Value::Expr | Value::Null | Value::Map => Fit::Yes,
            Value::Joined(_) => Fit::No("gets all the values as one joined string"),
            Value::Str(s) if s == "null" => Fit::Yes,
            v => {
                // The text borrowed or on the stack where it can be (a `String` a value was
                // most of a fit's cost).
                let mut digits = itoa::Buffer::new();
                let owned;
                let text: &str = match v {
                    Value::Str(s) => s.trim(),
                    Value::Int(i) => digits.format(*i),
                    Value::Float(f) => {
                        owned = f.to_string();
                        &owned
                    }
                    Value::Bool(b) => {
                        if *b {
                            "true"
                        } else {
                            "false"
                        }
                    }
                    _ => return Fit::Yes,
                };
                if let Some(set) = self.index.choices(p) {
                    if !set.choices.iter().any(|(v, _)| *v == text) {
                        return Fit::No("takes one of its choice values");
                    }
                }
                let integer = text.parse::<i64>().is_ok();
                if self.takes_integers_known(name, p, Some(relation)) {
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
                    ValueKind::Boolean if !matches!(text, "true" | "false" | "True" | "False") => {
                        Fit::No("takes true or false")
                    }
                    ValueKind::String if integer && relation => {
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
