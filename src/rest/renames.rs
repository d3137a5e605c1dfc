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
    RENAMES.iter().find(|r| r.1 == name && r.0.covers(key))
}

/// The concept alias of `name` on endpoint `key`.
pub(crate) fn concept(key: &str, name: &str) -> Option<&'static Concept> {
    CONCEPTS.iter().find(|c| c.1 == name && c.0.contains(&key))
}

/// Every rename row that applies to endpoint `key`: `(old, new, release, source)`, for the
/// fix-safety property (`tests/fix_property.rs`) and docs.
pub fn renamed_on(key: &str) -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    RENAMES
        .iter()
        .filter(|r| r.0.covers(key))
        .map(|r| (r.1, r.2, r.3, r.4))
        .collect()
}
