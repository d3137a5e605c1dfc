//! Completion and hover context for the call forms the text scanner (`context`) does not know
//! (Ansible `nb_lookup` `api_filter` words, nb_inventory filter lists, curl `-G` data), taken
//! from the extractor itself so the two cannot drift: the REST call whose filter key or value
//! holds the cursor. The forms' spellings are rows of the call-form table (`extract::forms`);
//! only consulted when `context::at` finds nothing. The cursor's unit (a Markdown code block or
//! span, a notebook cell, the whole document) is `extract::unit`'s, as for `context`. An
//! `nb_lookup` call being typed (its `api_filter` quote still open) is read from its line up to
//! the cursor, closed.

use super::context::{Context, Expect, Quote};
use crate::extract::{self, forms, CallForm, HostKind, Site};

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
    match before_unit(text, offset, kind) {
        Before::Answer(c) => c,
        // The sites of the unit holding the cursor, as the checker finds them there.
        Before::Unit => entry_at(&extract::unit::at(text, kind, offset)?.sites(), offset),
    }
}

/// [`at`] with the unit that holds `offset` already found (`unit`: [`extract::unit::at`] of
/// `text` at `offset`, e.g. from [`super::position::Snapshot::unit_at`]).
pub fn at_unit(
    text: &str,
    offset: usize,
    kind: HostKind,
    unit: Option<&extract::unit::CodeUnit>,
) -> Option<Context> {
    match before_unit(text, offset, kind) {
        Before::Answer(c) => c,
        Before::Unit => entry_at(&unit?.sites(), offset),
    }
}

/// What is known before the unit under the cursor is read.
enum Before {
    /// The answer: no context (a GraphQL host, an offset off the text) or an `nb_lookup` call
    /// being typed.
    Answer(Option<Context>),
    /// Only the unit's sites can tell.
    Unit,
}

fn before_unit(text: &str, offset: usize, kind: HostKind) -> Before {
    if kind == HostKind::Graphql || offset > text.len() || !text.is_char_boundary(offset) {
        return Before::Answer(None);
    }
    match open_lookup(text, offset) {
        Some(c) => Before::Answer(Some(c)),
        None => Before::Unit,
    }
}

/// How far back from the cursor an `nb_lookup` call may start, in bytes.
const LOOKUP_WINDOW: usize = 4096;

/// The cursor in the `api_filter` string of an `nb_lookup` call being typed, its quote (and
/// the call) possibly still open (`api_filter='role=le`): the call is read from the line it
/// starts on up to the cursor, closed with each ending that can close it. Only the text
/// since the call's plugin name is read (no whole-document work).
fn open_lookup(text: &str, offset: usize) -> Option<Context> {
    let forms::Callee::Lookup { plugins, .. } = forms::NB_LOOKUP.callee else {
        return None;
    };
    let short = plugins.iter().min_by_key(|p| p.len())?;
    let mut from = offset.saturating_sub(LOOKUP_WINDOW);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let at = from + text[from..offset].rfind(short)?;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let head = &text[line_start..offset];
    for end in ["')", "\")", ")"] {
        let probe = format!("{head}{end}");
        let map = extract::OffsetMap::identity(line_start, probe.len());
        let sites = extract::ansible::lookups(&probe, &map);
        if let Some(c) = entry_at(&sites, offset) {
            return Some(c);
        }
    }
    None
}

/// The filter-name or value context of the entry of one of `sites` (of our forms) that holds
/// host offset `offset`.
fn entry_at(sites: &[Site], offset: usize) -> Option<Context> {
    for site in sites {
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
                        target: target.to_string(),
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
                        target: target.to_string(),
                        filter: e.key.to_string(),
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

    /// Issue 11 gap: the `api_filter` quote (and the call) still open at the cursor, in a YAML
    /// value and in a Jinja template, with the rest of the document after the cursor.
    #[test]
    fn api_filter_with_its_quote_still_open() {
        for (t, kind) in [
            (
                "- debug:\n    msg: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='role=le\n- name: next\n  x: 'y'\n",
                HostKind::Yaml,
            ),
            (
                "{% for d in query('netbox.netbox.nb_lookup', 'devices', api_filter=\"site=dc1 role=le\n{{ d }}\n{% endfor %}\n",
                HostKind::Text,
            ),
        ] {
            let v = t.find("le\n").unwrap() + 2;
            let c = at(t, v, kind).expect("value context");
            assert!(
                matches!(c.expect, Expect::ChoiceValue { ref filter, ref target } if filter == "role" && target == "/api/dcim/devices/"),
                "{c:?}"
            );
            assert_eq!(&t[c.prefix.clone()], "le");
            let k = t.find("role").unwrap() + 3;
            let c = at(t, k, kind).expect("name context");
            assert!(matches!(c.expect, Expect::FilterName { .. }), "{c:?}");
            assert_eq!(&t[c.prefix.clone()], "rol");
        }
    }
}
