//! A string (or a list of strings) where a filter of a related object is declared: `vrf:
//! "blue"` where `vrf` takes a `VRFFilter`, `site: ["fra1", "ams3"]` where it takes one
//! `SiteFilter`. NetBox refuses the document ("Expected value of type 'VRFFilter', found
//! \"blue\"", every shipped release); the working form matches a field of the related object:
//! `vrf: {name: {exact: "blue"}}`, `site: {name: {in_list: ["fra1", "ams3"]}}`, in the lookup
//! objects of the release's schema (`StrFilterLookup` on 4.3–4.6). The fix is certain when the
//! field is unique: the related object has a `name` and no `slug` a string could also be, and
//! the string is not shaped like another of its keys (a route distinguisher `65000:100` for a
//! VRF's `rd`). Reported as `graphql-validation`, in place of apollo-compiler's diagnostic.

use super::{Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use apollo_compiler::ast::Value;
use apollo_compiler::schema::InputObjectType;
use apollo_compiler::Name;
use std::ops::Range;

/// The fields of a related object a string is most often meant for, in this order.
const KEY_FIELDS: &[&str] = &["name", "slug", "rd"];

impl Ctx<'_> {
    /// The input object `named` when it is a filter of a model (it has a `name` field and no
    /// `exact`, unlike a lookup object).
    pub(super) fn related_filter(&self, named: &str) -> Option<&InputObjectType> {
        let o = self.nb.schema.get_input_object(named)?;
        (o.fields.contains_key("name") && !o.fields.contains_key("exact")).then_some(o.as_ref())
    }

    /// `graphql-validation` for strings on the related-object filter `fname` of type `named`,
    /// with the forms that match them by name (and slug or RD where the object has one).
    /// Returns false when the value is not all strings (left to apollo-compiler).
    pub(super) fn related_object_wanted(
        &mut self,
        v: &Value,
        vr: &Range<usize>,
        fname: &Name,
        named: &str,
    ) -> bool {
        let strings: Vec<String> = match v {
            Value::String(s) => vec![s.to_string()],
            Value::List(items) => {
                let all: Option<Vec<String>> = items
                    .iter()
                    .map(|i| match i.as_ref() {
                        Value::String(s) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect();
                match all {
                    Some(a) if !a.is_empty() => a,
                    _ => return false,
                }
            }
            _ => return false,
        };
        let many = matches!(v, Value::List(_));
        let Some(obj) = self.related_filter(named).cloned() else {
            return false;
        };
        let rd_shaped = strings.iter().all(|s| is_rd(s));
        let mut keys: Vec<&str> = KEY_FIELDS
            .iter()
            .copied()
            .filter(|k| obj.fields.contains_key(*k))
            .collect();
        if rd_shaped && keys.contains(&"rd") {
            keys.retain(|k| *k == "rd");
        } else {
            keys.retain(|k| *k != "rd");
        }
        // The value's form decides between name and slug where it can only be one of them
        // (issue 31 §1): a slug is letters, digits, `-` and `_` (Django's `SlugField`), so a
        // space or a dot says name; lower-case words joined by `-` are how NetBox slugifies a
        // name, so they say slug. That one is put first and preferred.
        let shape = key_by_shape(&strings);
        if let Some(k) = shape.filter(|k| keys.contains(k) && keys.len() > 1) {
            keys.retain(|x| x != &k);
            keys.insert(0, k);
            // A value that cannot be a slug gets no slug form.
            if k == "name" {
                keys.retain(|x| *x != "slug");
            }
        }
        let forms: Vec<(String, String)> = keys
            .iter()
            .filter_map(|k| Some((k.to_string(), self.key_form(&obj, k, &strings, many)?)))
            .collect();
        let decided = shape.is_some_and(|k| forms.first().is_some_and(|(f, _)| f == k));
        let written = if many {
            "a list of strings"
        } else {
            "a string"
        };
        let what = fname.as_str().replace('_', " ");
        let mut message = format!(
            "`{fname}` takes a `{named}` object (a filter of the related {what}), not {written}"
        );
        match forms.as_slice() {
            [] => message.push('.'),
            [(_, one)] => message.push_str(&format!(": write `{fname}: {one}`.")),
            [(k0, first), rest @ ..] => {
                message.push_str(&format!(": write `{fname}: {first}`"));
                if decided {
                    let why = if k0 == "slug" {
                        "has a slug's shape, lower-case words joined by `-`"
                    } else {
                        "cannot be a slug"
                    };
                    message.push_str(&format!(" (the value {why})"));
                }
                for (k, f) in rest {
                    message.push_str(&format!(", or `{fname}: {f}` to match its {k}"));
                }
                message.push('.');
            }
        }
        let fixes = forms
            .iter()
            .enumerate()
            .map(|(i, (k, f))| RawFix {
                title: format!("Match the {what} by {k}: `{fname}: {f}`"),
                edits: vec![(vr.clone(), f.clone())],
                certain: forms.len() == 1 || (decided && i == 0),
            })
            .collect();
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-validation",
            severity: Severity::Error,
            message,
            fixes,
            claim: Some(vr.clone()),
            does: None,
        });
        true
    }

    /// `{name: {exact: "x"}}` / `{name: {in_list: ["x", "y"]}}` for key `k` of `obj`, in the
    /// lookup object the schema declares for it (a bare string where it declares `String`).
    pub(super) fn key_form(
        &self,
        obj: &InputObjectType,
        k: &str,
        strings: &[String],
        many: bool,
    ) -> Option<String> {
        let ty = &obj.fields.get(k)?.ty;
        let quoted: Vec<String> = strings
            .iter()
            .map(|s| serde_json::to_string(s).unwrap_or_default())
            .collect();
        let named = ty.inner_named_type().as_str();
        let inner = match self.nb.schema.get_input_object(named) {
            Some(lookup) if many && lookup.fields.contains_key("in_list") => {
                format!("{{in_list: [{}]}}", quoted.join(", "))
            }
            Some(lookup) if !many && lookup.fields.contains_key("exact") => {
                format!("{{exact: {}}}", quoted[0])
            }
            None if named == "String" && !many => quoted[0].clone(),
            _ => return None,
        };
        Some(format!("{{{k}: {inner}}}"))
    }
}

/// A route distinguisher (RFC 4364: `ASN:nn` or `IPv4:nn`).
fn is_rd(s: &str) -> bool {
    s.rsplit_once(':').is_some_and(|(a, n)| {
        !a.is_empty()
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && a.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    })
}

/// Could be a slug: letters, digits, `-` and `_` only (Django's `SlugField` validator).
fn is_slug_like(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Shaped as NetBox slugifies a name: lower-case words and digits joined by `-` (at least
/// two), as `us-nc` or `border-leaf`.
fn is_slugified(s: &str) -> bool {
    s.contains('-')
        && s.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
        && s.bytes().any(|b| b.is_ascii_lowercase())
}

/// The key of a related object the strings' form decides: `name` when one cannot be a slug,
/// `slug` when all are shaped as NetBox slugifies names; `None` when both may be meant.
pub(super) fn key_by_shape(strings: &[String]) -> Option<&'static str> {
    if strings.iter().all(|s| !is_slug_like(s)) {
        Some("name")
    } else if strings.iter().all(|s| is_slugified(s)) {
        Some("slug")
    } else {
        None
    }
}
