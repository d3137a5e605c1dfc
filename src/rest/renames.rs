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

/// Renames from NetBox's release notes (`docs/release-notes/version-4.0.md` "REST API
/// Changes", `version-4.1.md` #15410 "Remove various deprecated query filters", commit
/// c7176e86 in netbox-community/netbox).
pub(crate) const RENAMES: &[Rename] = &[
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
    RENAMES.iter().find(|r| r.1 == name && r.0.covers(key))
}

/// The concept alias of `name` on endpoint `key`.
pub(crate) fn concept(key: &str, name: &str) -> Option<&'static Concept> {
    CONCEPTS.iter().find(|c| c.1 == name && c.0.contains(&key))
}
