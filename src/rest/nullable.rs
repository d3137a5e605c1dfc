//! Where the string `null` is NetBox's null selector and where it is an HTTP 400.
//!
//! django-filter gives every `MultipleChoiceFilter` and `ModelMultipleChoiceFilter` the null
//! value `null` unless the filterset declares it with `null_value=None`; number filters have no
//! null value at all ("Enter a whole number"). The OpenAPI document says neither, so the
//! declarations are listed here from NetBox's filtersets (`null_value=None`, identical in
//! 4.3.3 and 4.6.8 apart from filters that exist only in 4.6.8). Live: `status=null` on
//! prefixes → 400, `type=null` on front-port templates → 400, `feed_leg=null` → 400,
//! `device_status=null` on device bays (declared without it) → honoured,
//! `cable_connector=null` → 400 (v4.6.8 sweep); `status=null` on virtual machines,
//! `length=null` on cables → 400 (v4.3.3 sweep).

use super::endpoint::View;
use super::lookups::Key;
use crate::index::{Parameter, ValueKind};

/// `(object type, filter)` declared with `null_value=None` (NetBox `netbox/*/filtersets.py`,
/// 4.3.3 and 4.6.8), plus `cable` on cable terminations (a `Meta.fields` filter on a
/// non-null foreign key: "Select a valid choice", v4.6.8 and v4.3.3 sweeps).
pub(crate) const NULL_REFUSED: &[(&str, &str)] = &[
    ("circuits.circuit", "status"),
    ("circuits.virtualcircuit", "status"),
    ("circuits.virtualcircuittermination", "role"),
    ("core.datasource", "type"),
    ("core.datasource", "status"),
    ("core.datasource", "sync_interval"),
    ("core.job", "status"),
    ("core.job", "notifications"),
    ("dcim.site", "status"),
    ("dcim.location", "status"),
    ("dcim.rack", "status"),
    ("dcim.rackreservation", "status"),
    ("dcim.poweroutlettemplate", "feed_leg"),
    ("dcim.interfacetemplate", "type"),
    ("dcim.frontporttemplate", "type"),
    ("dcim.rearporttemplate", "type"),
    ("dcim.device", "status"),
    ("dcim.module", "status"),
    ("dcim.consoleport", "type"),
    ("dcim.consoleserverport", "type"),
    ("dcim.powerport", "type"),
    ("dcim.poweroutlet", "type"),
    ("dcim.poweroutlet", "feed_leg"),
    ("dcim.poweroutlet", "status"),
    ("dcim.interface", "type"),
    ("dcim.frontport", "type"),
    ("dcim.rearport", "type"),
    ("dcim.inventoryitem", "status"),
    ("dcim.powerfeed", "status"),
    ("ipam.prefix", "status"),
    ("ipam.iprange", "status"),
    ("ipam.ipaddress", "status"),
    ("ipam.vlan", "status"),
    ("virtualization.cluster", "status"),
    ("virtualization.virtualmachine", "status"),
    ("virtualization.virtualmachine", "start_on_boot"),
    ("vpn.l2vpn", "type"),
    ("dcim.cabletermination", "cable"),
];

/// How NetBox answers `key=null` when it is not a null selector.
pub(crate) enum Refusal {
    /// A choice filter declared with `null_value=None`: "Select a valid choice".
    Choice,
    /// A number filter: "Enter a whole number" / "Enter a number".
    Number,
}

/// True when the filterset declares `key` on `view`'s object type without a null value
/// ([`NULL_REFUSED`]): `key=null` is an HTTP 400 there.
pub(crate) fn declared_refused(view: &View, key: &str) -> bool {
    // The filters the table names (a test holds them to it): any other key leaves here,
    // without comparing it with each of the table's pairs.
    if !matches!(
        key,
        "status"
            | "type"
            | "role"
            | "sync_interval"
            | "notifications"
            | "feed_leg"
            | "start_on_boot"
            | "cable"
    ) {
        return false;
    }
    view.ep
        .object_type
        .as_deref()
        .is_some_and(|ot| NULL_REFUSED.contains(&(ot, key)))
}

/// `None` when `null` on the bare filter `key` selects objects without a value (or may: fail
/// open), otherwise how NetBox refuses it.
pub(crate) fn refusal(view: &View, key: &str, param: &Parameter) -> Option<Refusal> {
    if super::lookups::has_dunder(key) {
        return None;
    }
    if declared_refused(view, key) {
        return Some(if param.choices.is_some() {
            Refusal::Choice
        } else {
            Refusal::Number
        });
    }
    if param.choices.is_some() {
        return None;
    }
    let number = matches!(param.kind, ValueKind::Integer | ValueKind::Number);
    // Relation filters (`cable_id`, `parent`, `vrf_id`) take `null`; counts, sizes and other
    // numbers do not.
    (number && view.null_key(Key::parse(key).base()).is_none()).then_some(Refusal::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The early exit of [`declared_refused`] keeps every filter of the table: each pair is
    /// refused on an endpoint of its object type (the scan of the whole table is the oracle).
    #[test]
    fn declared_refused_keeps_every_pair() {
        let index = crate::index::embedded::embedded_index("4.6.8");
        for (key, ep) in index.endpoints.iter() {
            let view = View {
                key,
                ep,
                index: &index,
            };
            let ot = ep.object_type.as_deref();
            for name in ep.params.keys().chain(NULL_REFUSED.iter().map(|(_, k)| *k)) {
                let want = ot.is_some_and(|ot| NULL_REFUSED.contains(&(ot, name)));
                assert_eq!(declared_refused(&view, name), want, "{key} {name}");
            }
        }
    }
}
