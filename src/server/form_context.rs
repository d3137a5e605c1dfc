//! Completion and hover context for the call forms the text scanner (`context`) does not know
//! (Ansible `nb_lookup` `api_filter` words, nb_inventory filter lists, curl `-G` data), taken
//! from the extractor itself so the two cannot drift: the REST call whose filter key or value
//! holds the cursor. A stop-gap until every form comes from the shared call-form table
//! (issue 11 §1); only consulted when `context::at` finds nothing.

use super::context::{Context, Expect, Quote};
use crate::extract::{self, CallForm, HostKind, Site};

/// The forms read here (the others are `context`'s).
fn ours(form: CallForm, syntax: extract::Syntax) -> bool {
    matches!(
        form,
        CallForm::AnsibleLookup | CallForm::Inventory | CallForm::InventoryBoth
    ) || (form == CallForm::Url && syntax == extract::Syntax::Query)
}

/// The context at byte `offset` of `text`: a filter name (cursor in or at the end of a key) or
/// a value of that filter (cursor in its value). `None` outside the filters of such a call.
pub fn at(text: &str, offset: usize, kind: HostKind) -> Option<Context> {
    if kind == HostKind::Graphql || !text.is_char_boundary(offset.min(text.len())) {
        return None;
    }
    let ex = extract::extract(text, kind);
    for site in &ex.sites {
        let Site::Rest(call) = site else { continue };
        if !ours(call.form, call.syntax) {
            continue;
        }
        let Some((target, _)) = &call.target else {
            continue;
        };
        for e in &call.filters {
            if e.key_range.start <= offset && offset <= e.key_range.end {
                return Some(Context {
                    expect: Expect::FilterName {
                        target: target.clone(),
                    },
                    prefix: e.key_range.start..offset,
                    quote: Quote::None,
                });
            }
            if e.value_range.start <= offset
                && offset <= e.value_range.end
                && e.value_range.start > e.key_range.end
            {
                return Some(Context {
                    expect: Expect::ChoiceValue {
                        target: target.clone(),
                        filter: e.key.clone(),
                    },
                    prefix: e.value_range.start..offset,
                    quote: Quote::None,
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_filter_words_and_inventory_keys() {
        let t = "{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='role=leaf stat') }}";
        let at_end = t.find("stat").unwrap() + 4;
        let c = at(t, at_end, HostKind::Text).expect("context");
        assert_eq!(
            c.expect,
            Expect::FilterName {
                target: "/api/dcim/devices/".into()
            }
        );
        assert_eq!(&t[c.prefix.clone()], "stat");
        let v = t.find("leaf").unwrap() + 2;
        let c = at(t, v, HostKind::Text).expect("value context");
        assert!(matches!(c.expect, Expect::ChoiceValue { ref filter, .. } if filter == "role"));
        let y = "plugin: netbox.netbox.nb_inventory\nvm_query_filters:\n  - clus: 4\n";
        let c = at(y, y.find("clus").unwrap() + 4, HostKind::Yaml).expect("inventory");
        assert_eq!(
            c.expect,
            Expect::FilterName {
                target: "/api/virtualization/virtual-machines/".into()
            }
        );
        assert!(at("no calls here", 3, HostKind::Text).is_none());
    }
}
