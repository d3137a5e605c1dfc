//! `graphql-plugin-field`: a root field the stock schema does not have but a plugin could.
//!
//! NetBox plugins add their own root fields to `Query` (netbox-bgp 0.19.0 on 4.6.8:
//! `netbox_bgp_session`, `netbox_bgp_session_list`, ...; `../shared/netbox/v4.6.8-instance`),
//! with their own filter and enum types. The shipped schemas cannot judge them, so with stock
//! knowledge such a field gets one information finding and nothing under it is checked; with an
//! instance's schema (`--graphql-schema`, `index build --graphql`) it is validated like any
//! other field.
//!
//! The rule, by similarity to the stock root fields: a name is a plugin's when it has the
//! shape `<app_label>_<model>[_list]` (lower snake_case, two or more words before an optional
//! `_list`) and no stock root field is within typo distance of it (Damerau-Levenshtein ≤
//! max(1, length / 5), case-insensitive). Anything else (`devcie_list`, `devices`,
//! `deviceList`, `nonexistent_list`: one word is a model name, not a plugin's) stays a
//! `graphql-validation` error with "did you mean".

use super::{field_names, span, Ctx, RawFinding};
use crate::finding::Severity;
use apollo_compiler::{ast, Node};

impl Ctx<'_> {
    /// Reports `f` (a root field of `parent` the schema does not have) as a plugin's field when
    /// the schema is stock and the name looks like one; true when reported (the caller then
    /// skips the field and everything under it).
    pub(super) fn plugin_field(&mut self, parent: &str, f: &Node<ast::Field>) -> bool {
        if !self.nb.stock {
            return false;
        }
        if !looks_like_plugin(f.name.as_str(), field_names(&self.nb.schema, parent)) {
            return false;
        }
        let (Some(name), Some(whole)) = (span(f.name.location()), span(f.location())) else {
            return false;
        };
        self.out.unchecked.push(whole.clone());
        self.push(RawFinding {
            range: name,
            code: "graphql-plugin-field",
            severity: Severity::Information,
            message: format!(
                "`{}` is not a field of stock NetBox {}'s GraphQL `Query`; if a plugin adds it, only the instance's own schema can check it and what is under it: give it with `--graphql-schema` (an introspection result of the instance's /graphql/, or `manage.py export_schema`).",
                f.name, self.nb.netbox_version
            ),
            fixes: Vec::new(),
            claim: Some(whole),
            does: None,
        });
        true
    }
}

/// Whether `name` has the shape of a plugin's root field (`<app_label>_<model>[_list]`: lower
/// snake_case, two or more words before an optional `_list`) and is not a typo of a stock one.
pub fn looks_like_plugin<'a>(name: &str, stock: impl IntoIterator<Item = &'a str>) -> bool {
    let words: Vec<&str> = name.split('_').collect();
    let snake = words.iter().all(|w| {
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    }) && name.starts_with(|c: char| c.is_ascii_lowercase());
    let model_words = words.len() - usize::from(words.last() == Some(&"list"));
    if !snake || model_words < 2 {
        return false;
    }
    !near_name(name, stock)
}

/// Whether one of `names` is within typo distance of `name`: Damerau-Levenshtein ≤ max(1,
/// length / 5), case-insensitive (`devcie_list` → `device_list`).
pub fn near_name<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> bool {
    let lower = name.to_ascii_lowercase();
    let max = (lower.chars().count() / 5).max(1);
    // Damerau-Levenshtein is at least the length difference: only near lengths are measured.
    let n = lower.chars().count();
    names.into_iter().any(|s| {
        n.abs_diff(s.chars().count()) <= max
            && strsim::damerau_levenshtein(&lower, &s.to_ascii_lowercase()) <= max
    })
}

#[cfg(test)]
mod tests {
    use super::looks_like_plugin;

    #[test]
    fn plugin_or_typo() {
        let stock = [
            "device",
            "device_list",
            "site_list",
            "custom_field_list",
            "ip_address_list",
        ];
        for plugin in [
            "netbox_bgp_session_list",
            "custom_objects_dhcp_scopes_list",
            "netbox_dns_zone",
        ] {
            assert!(looks_like_plugin(plugin, stock), "{plugin}");
        }
        for typo in [
            "devcie_list",
            "device_lists",
            "devices",
            "deviceList",
            "ipaddress_list",
            "site_lst",
            "Device_list",
            "nonexistent_list",
            "sites",
        ] {
            assert!(!looks_like_plugin(typo, stock), "{typo}");
        }
    }
}
