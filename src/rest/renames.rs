//! Filter names NetBox renamed across releases and names people borrow from other concepts,
//! per endpoint: looked up before string similarity, so a skill written for NetBox 3.x gets the
//! right certain fix on 4.x and `prefix_length` on prefixes reaches `mask_length`, not `prefix`.

/// Endpoints a row applies to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope {
    /// These endpoint keys.
    Only(&'static [&'static str]),
    /// The device-type component templates (`dcim/*-templates`).
    ComponentTemplates,
}

impl Scope {
    pub fn covers(&self, key: &str) -> bool {
        match self {
            Scope::Only(keys) => keys.contains(&key),
            Scope::ComponentTemplates => {
                key.starts_with("dcim/")
                    && key.ends_with("-templates")
                    && key != "dcim/config-templates"
            }
        }
    }
}

/// A filter renamed in a NetBox release: `(scope, old, new, release, source)`.
pub(crate) type Rename = (
    Scope,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

const OBJECT_TYPED: Scope = Scope::Only(&[
    "extras/custom-fields",
    "extras/custom-links",
    "extras/event-rules",
    "extras/export-templates",
    "extras/saved-filters",
]);

const DEVICES_AND_TYPES: Scope = Scope::Only(&["dcim/devices", "dcim/device-types"]);

/// Renames from NetBox's release notes (`docs/release-notes/version-4.0.md` "REST API
/// Changes", `version-4.1.md` #15410 "Remove various deprecated query filters", commit
/// c7176e86 in netbox-community/netbox), and back through the 3.x and 2.x release notes for
/// the names older answers still teach (`docs/release-notes/version-2.*.md` at tag v2.11.12).
/// Each new name takes the old one's values as they are (the same choices, booleans, prefixes):
/// `tests/fix_property.rs` checks the value kind against the new key for every row.
pub(crate) const RENAMES: &[Rename] = &[
    // 2.5 release notes, "API Changes": "The following boolean filters on dcim.Device and
    // dcim.DeviceType have been renamed: is_console_server: console_server_ports, is_pdu:
    // power_outlets, is_network_device: interfaces".
    (
        DEVICES_AND_TYPES,
        "is_console_server",
        "console_server_ports",
        "2.5",
        "release notes 2.5",
    ),
    (
        DEVICES_AND_TYPES,
        "is_pdu",
        "power_outlets",
        "2.5",
        "release notes 2.5",
    ),
    (
        DEVICES_AND_TYPES,
        "is_network_device",
        "interfaces",
        "2.5",
        "release notes 2.5",
    ),
    // 2.3 release notes: "Removed the `parent` filter for prefixes (use `within` or
    // `within_include` instead)" (2.2, netbox#1684); `within` is the exclusive one `parent` was.
    (
        Scope::Only(&["ipam/prefixes"]),
        "parent",
        "within",
        "2.3",
        "release notes 2.3, netbox#1684",
    ),
    // 4.1: rack types (netbox#12826, release notes 4.1.0 "Rack Types") renamed the rack's
    // `type` to `form_factor`; `RackFilterSet` has `type` at v4.0.0 and `form_factor` at v4.1.0
    // (netbox/dcim/filtersets.py), with the same choice values (RackFormFactorChoices).
    (
        Scope::Only(&["dcim/racks"]),
        "type",
        "form_factor",
        "4.1",
        "release notes 4.1.0, netbox#12826; RackFilterSet v4.0.0 → v4.1.0",
    ),
    (
        OBJECT_TYPED,
        "content_types",
        "object_type",
        "4.0",
        "release notes 4.0",
    ),
    (
        OBJECT_TYPED,
        "content_type",
        "object_type",
        "4.0",
        "release notes 4.0",
    ),
    (
        OBJECT_TYPED,
        "content_type_id",
        "object_type_id",
        "4.0",
        "release notes 4.0",
    ),
    (
        Scope::Only(&["extras/image-attachments"]),
        "content_type",
        "object_type",
        "4.0",
        "release notes 4.0",
    ),
    (
        Scope::Only(&["extras/image-attachments"]),
        "content_type_id",
        "object_type_id",
        "4.0",
        "release notes 4.0",
    ),
    (
        Scope::Only(&["tenancy/contact-assignments"]),
        "content_type_id",
        "object_type_id",
        "4.0",
        "release notes 4.0",
    ),
    (
        Scope::Only(&["tenancy/contact-assignments"]),
        "content_type",
        "object_type",
        "4.0",
        "release notes 4.0",
    ),
    (
        Scope::Only(&["dcim/devices"]),
        "device_role",
        "role",
        "4.0",
        "release notes 4.0, netbox#15099",
    ),
    (
        Scope::Only(&["dcim/devices"]),
        "device_role_id",
        "role_id",
        "4.0",
        "release notes 4.0, netbox#15099",
    ),
    (
        Scope::ComponentTemplates,
        "devicetype_id",
        "device_type_id",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::ComponentTemplates,
        "moduletype_id",
        "module_type_id",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["extras/config-contexts"]),
        "role",
        "device_role",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["extras/config-contexts"]),
        "role_id",
        "device_role_id",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["ipam/vlan-groups"]),
        "sitegroup",
        "site_group",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["ipam/vlan-groups"]),
        "clustergroup",
        "cluster_group",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["ipam/services"]),
        "ipaddress",
        "ip_address",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["ipam/services"]),
        "ipaddress_id",
        "ip_address_id",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["vpn/ike-policies"]),
        "proposal",
        "ike_proposal",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["vpn/ike-policies"]),
        "proposal_id",
        "ike_proposal_id",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["vpn/ipsec-policies"]),
        "proposal",
        "ipsec_proposal",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
    (
        Scope::Only(&["vpn/ipsec-policies"]),
        "proposal_id",
        "ipsec_proposal_id",
        "4.1",
        "release notes 4.1, netbox#15410",
    ),
];

/// A filter a NetBox release removed without a rename, with what to write instead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Removed {
    /// Endpoint keys.
    pub endpoints: &'static [&'static str],
    /// The filter without lookup (`protocol`).
    pub base: &'static str,
    /// The lookups removed (`""` = the bare filter).
    pub lookups: &'static [&'static str],
    /// The release that removed them (`4.7.0`).
    pub release: &'static str,
    /// The filter the values map to on that release, when each value names exactly one of its
    /// `choices`: `protocol__ic=tc` → `protocol=tcp` (the negated lookups map to `<to>__n`).
    pub to: Option<(&'static str, &'static [&'static str])>,
    /// What to write instead, for the message.
    pub instead: &'static str,
    /// The release notes that say so.
    pub source: &'static str,
}

const SERVICES: &[&str] = &["ipam/services", "ipam/service-templates"];

/// Filters removed by a release (release notes, "Breaking Changes"; the removed parameters are
/// the difference of the two releases' OpenAPI documents, `index/version-differences.tsv`).
pub(crate) const REMOVED: &[Removed] = &[
    Removed {
        endpoints: SERVICES,
        base: "protocol",
        lookups: &[
            "ic", "nic", "ie", "nie", "isw", "nisw", "iew", "niew", "regex", "iregex", "empty",
        ],
        release: "4.7.0",
        // ServiceProtocolChoices (ipam/choices.py of 4.7.3): `tcp`, `udp`, `sctp`.
        to: Some(("protocol", &["tcp", "udp", "sctp"])),
        instead: "`protocol` takes the protocol itself (`protocol=tcp`, repeated for several), `protocol__n` leaves one out; both match any of a service's port mappings",
        source: "release notes 4.7.0, netbox#20285: protocol is filtered against the port_mappings array, so its character-based lookups are no longer available",
    },
    Removed {
        endpoints: SERVICES,
        base: "port",
        lookups: &["empty"],
        release: "4.7.0",
        to: None,
        instead: "every service has a port mapping; filter by `port`, `port__gte`/`port__lte` or `port_mappings` (`tcp/22`)",
        source: "release notes 4.7.0, netbox#20285: the port__empty lookup has been removed",
    },
    Removed {
        endpoints: &["dcim/front-ports", "dcim/front-port-templates"],
        base: "rear_port_position",
        lookups: &["", "n", "empty", "gt", "gte", "lt", "lte"],
        release: "4.5.0",
        to: None,
        instead: "front and rear ports are joined by port mappings; filter front ports by `rear_port_id`",
        source: "release notes 4.5.0: the rear_port and rear_port_position fields of front ports were replaced by the PortMapping model",
    },
    Removed {
        endpoints: &["users/users"],
        base: "is_staff",
        lookups: &["", "n"],
        release: "4.5.0",
        to: None,
        instead: "filter by `is_superuser` or by the user's permissions (`permission_id`)",
        source: "release notes 4.5.0, netbox#16137: the obsolete is_staff field was removed from the User model",
    },
];

/// The removal row of filter `key` (with its lookup) on endpoint `endpoint`, if a release
/// removed it.
pub(crate) fn removed(endpoint: &str, key: &str) -> Option<&'static Removed> {
    let (base, lookup) = key.split_once("__").unwrap_or((key, ""));
    REMOVED
        .iter()
        .find(|r| r.base == base && r.lookups.contains(&lookup) && r.endpoints.contains(&endpoint))
}

/// A name borrowed from another concept: `(endpoint keys, written, filter, what the filter is)`.
pub(crate) type Concept = (
    &'static [&'static str],
    &'static str,
    &'static str,
    &'static str,
);

const PREFIXES: &[&str] = &["ipam/prefixes", "ipam/ip-addresses"];

/// Concept aliases: the field each name really means on that endpoint (NetBox filtersets:
/// `mask_length` on prefixes and IP addresses, `vid` on VLANs, `cid` on circuits, `asn` on
/// ASNs, `position` on devices).
pub(crate) const CONCEPTS: &[Concept] = &[
    (
        PREFIXES,
        "prefix_length",
        "mask_length",
        "the prefix length (24 for a /24)",
    ),
    (
        PREFIXES,
        "prefixlen",
        "mask_length",
        "the prefix length (24 for a /24)",
    ),
    (
        PREFIXES,
        "prefix_len",
        "mask_length",
        "the prefix length (24 for a /24)",
    ),
    (
        PREFIXES,
        "mask",
        "mask_length",
        "the prefix length (24 for a /24)",
    ),
    (
        PREFIXES,
        "netmask",
        "mask_length",
        "the prefix length (24 for a /24)",
    ),
    (
        PREFIXES,
        "length",
        "mask_length",
        "the prefix length (24 for a /24)",
    ),
    (
        PREFIXES,
        "cidr",
        "mask_length",
        "the prefix length (24 for a /24)",
    ),
    (&["ipam/vlans"], "vlan_id", "vid", "the 802.1Q VLAN number"),
    (&["ipam/vlans"], "vlan", "vid", "the 802.1Q VLAN number"),
    (
        &["ipam/vlans"],
        "vlan_number",
        "vid",
        "the 802.1Q VLAN number",
    ),
    (&["ipam/vlans"], "number", "vid", "the 802.1Q VLAN number"),
    (&["ipam/asns"], "as_number", "asn", "the AS number"),
    (&["ipam/asns"], "number", "asn", "the AS number"),
    (
        &["circuits/circuits"],
        "circuit_id",
        "cid",
        "the circuit's ID from the provider",
    ),
    (
        &["circuits/circuits"],
        "circuit_number",
        "cid",
        "the circuit's ID from the provider",
    ),
    (
        &["dcim/devices"],
        "rack_position",
        "position",
        "the lowest rack unit the device occupies",
    ),
    (
        &["dcim/devices"],
        "rack_unit",
        "position",
        "the lowest rack unit the device occupies",
    ),
];

/// The rename of `name` on endpoint `key`, if NetBox renamed it.
pub(crate) fn rename(key: &str, name: &str) -> Option<&'static Rename> {
    if !may_be(&RENAMED, name) {
        return None;
    }
    RENAMES.iter().find(|r| r.1 == name && r.0.covers(key))
}

/// The concept alias of `name` on endpoint `key`.
pub(crate) fn concept(key: &str, name: &str) -> Option<&'static Concept> {
    if !may_be(&BORROWED, name) {
        return None;
    }
    CONCEPTS.iter().find(|c| c.1 == name && c.0.contains(&key))
}

/// A set of names by length and first byte, made at compile time: bit `first byte % 64` of
/// entry `length % 32`. A name whose bit is clear is surely not in the set; a set bit says
/// "maybe" (then the table is scanned). Every wrong filter name asks [`rename`] and [`concept`]:
/// scanning their 60 rows cost ~450 instructions a name, nearly all of them for names in
/// neither.
pub(crate) type NameSet = [u64; 32];

/// [`NameSet`] of `names`.
pub(crate) const fn name_set(names: &[&str]) -> NameSet {
    let mut set = [0u64; 32];
    let mut i = 0;
    while i < names.len() {
        let b = names[i].as_bytes();
        if !b.is_empty() {
            set[b.len() % 32] |= 1 << (b[0] % 64);
        }
        i += 1;
    }
    set
}

/// False when `name` is surely not in `set` (an empty name is in no set made of names).
#[inline]
pub(crate) fn may_be(set: &NameSet, name: &str) -> bool {
    match name.as_bytes().first() {
        Some(&first) => set[name.len() % 32] & (1 << (first % 64)) != 0,
        None => false,
    }
}

/// [`NameSet`] of the old names of [`RENAMES`].
const RENAMED: NameSet = {
    let mut names = [""; RENAMES.len()];
    let mut i = 0;
    while i < RENAMES.len() {
        names[i] = RENAMES[i].1;
        i += 1;
    }
    name_set(&names)
};

/// [`NameSet`] of the written names of [`CONCEPTS`].
const BORROWED: NameSet = {
    let mut names = [""; CONCEPTS.len()];
    let mut i = 0;
    while i < CONCEPTS.len() {
        names[i] = CONCEPTS[i].1;
        i += 1;
    }
    name_set(&names)
};

/// Every rename row that applies to endpoint `key`: `(old, new, release, source)`, for the
/// fix-safety property (`tests/fix_property.rs`) and docs.
pub fn renamed_on(key: &str) -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    RENAMES
        .iter()
        .filter(|r| r.0.covers(key))
        .map(|r| (r.1, r.2, r.3, r.4))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name of each table is "maybe" in its set (so the sets never skip a row), and
    /// common wrong names are surely not.
    #[test]
    fn name_sets_hold_their_names() {
        for r in RENAMES {
            assert!(may_be(&RENAMED, r.1), "{}", r.1);
            assert_eq!(
                rename("dcim/devices", r.1).is_some(),
                RENAMES
                    .iter()
                    .any(|x| x.1 == r.1 && x.0.covers("dcim/devices"))
            );
        }
        for c in CONCEPTS {
            assert!(may_be(&BORROWED, c.1), "{}", c.1);
        }
        assert!(!may_be(&RENAMED, ""));
        let skipped = ["stauts", "tennat", "x", "serial_numbr", "z_zz"]
            .iter()
            .filter(|n| !may_be(&RENAMED, n) && !may_be(&BORROWED, n))
            .count();
        assert!(skipped >= 3, "{skipped}");
    }
}
