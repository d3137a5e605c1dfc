//! The first releases of netbox-mcp-server (netboxlabs/netbox-mcp-server, 2025-02-27 to
//! 2025-04-30) named their tool `get_objects(object_type: str, filters: dict)` and took short
//! plural object type names (`devices`, `ip-addresses`) that their own map turned into API
//! endpoints; any other name was refused (`ValueError("Invalid object_type. Must be one
//! of: ...")`) and the filters were sent as they are with `requests`
//! (`self.session.get(url, params=params)`, `netbox_client.py`).
//!
//! Source: `server.py` of commit c6f05b1ffa4be8432742e78c8dcb8391a6aeea3a (initial commit) and
//! e1155d53c58e63ad75869fd83f6d3f015c43fada, lines 5–87 (`NETBOX_OBJECT_TYPES`, identical in
//! both), `get_objects` at lines 92–194 of e1155d5. Commit
//! ff38a51ad8dc65cab3efe9e1a1ee43a8f970e466 ("include netbox prefix on tool names") renamed the
//! tool `netbox_get_objects`; [`OBJECT_TYPES`] is that map, in its order.
//!
//! A function called `get_objects` is common outside NetBox (Django helpers, ORMs), so a call
//! is read as this tool only when its `filters` is a dict literal and its `object_type` a string
//! literal that [`reads_as_name`].

/// `NETBOX_OBJECT_TYPES` of the old `server.py`: name → endpoint under `/api/`.
pub(crate) const OBJECT_TYPES: &[(&str, &str)] = &[
    // DCIM
    ("cables", "dcim/cables"),
    ("console-ports", "dcim/console-ports"),
    ("console-server-ports", "dcim/console-server-ports"),
    ("devices", "dcim/devices"),
    ("device-bays", "dcim/device-bays"),
    ("device-roles", "dcim/device-roles"),
    ("device-types", "dcim/device-types"),
    ("front-ports", "dcim/front-ports"),
    ("interfaces", "dcim/interfaces"),
    ("inventory-items", "dcim/inventory-items"),
    ("locations", "dcim/locations"),
    ("manufacturers", "dcim/manufacturers"),
    ("modules", "dcim/modules"),
    ("module-bays", "dcim/module-bays"),
    ("module-types", "dcim/module-types"),
    ("platforms", "dcim/platforms"),
    ("power-feeds", "dcim/power-feeds"),
    ("power-outlets", "dcim/power-outlets"),
    ("power-panels", "dcim/power-panels"),
    ("power-ports", "dcim/power-ports"),
    ("racks", "dcim/racks"),
    ("rack-reservations", "dcim/rack-reservations"),
    ("rack-roles", "dcim/rack-roles"),
    ("regions", "dcim/regions"),
    ("sites", "dcim/sites"),
    ("site-groups", "dcim/site-groups"),
    ("virtual-chassis", "dcim/virtual-chassis"),
    // IPAM
    ("asns", "ipam/asns"),
    ("asn-ranges", "ipam/asn-ranges"),
    ("aggregates", "ipam/aggregates"),
    ("fhrp-groups", "ipam/fhrp-groups"),
    ("ip-addresses", "ipam/ip-addresses"),
    ("ip-ranges", "ipam/ip-ranges"),
    ("prefixes", "ipam/prefixes"),
    ("rirs", "ipam/rirs"),
    ("roles", "ipam/roles"),
    ("route-targets", "ipam/route-targets"),
    ("services", "ipam/services"),
    ("vlans", "ipam/vlans"),
    ("vlan-groups", "ipam/vlan-groups"),
    ("vrfs", "ipam/vrfs"),
    // Circuits
    ("circuits", "circuits/circuits"),
    ("circuit-types", "circuits/circuit-types"),
    ("circuit-terminations", "circuits/circuit-terminations"),
    ("providers", "circuits/providers"),
    ("provider-networks", "circuits/provider-networks"),
    // Virtualization
    ("clusters", "virtualization/clusters"),
    ("cluster-groups", "virtualization/cluster-groups"),
    ("cluster-types", "virtualization/cluster-types"),
    ("virtual-machines", "virtualization/virtual-machines"),
    ("vm-interfaces", "virtualization/interfaces"),
    // Tenancy
    ("tenants", "tenancy/tenants"),
    ("tenant-groups", "tenancy/tenant-groups"),
    ("contacts", "tenancy/contacts"),
    ("contact-groups", "tenancy/contact-groups"),
    ("contact-roles", "tenancy/contact-roles"),
    // VPN
    ("ike-policies", "vpn/ike-policies"),
    ("ike-proposals", "vpn/ike-proposals"),
    ("ipsec-policies", "vpn/ipsec-policies"),
    ("ipsec-profiles", "vpn/ipsec-profiles"),
    ("ipsec-proposals", "vpn/ipsec-proposals"),
    ("l2vpns", "vpn/l2vpns"),
    ("tunnels", "vpn/tunnels"),
    ("tunnel-groups", "vpn/tunnel-groups"),
    // Wireless
    ("wireless-lans", "wireless/wireless-lans"),
    ("wireless-lan-groups", "wireless/wireless-lan-groups"),
    ("wireless-links", "wireless/wireless-links"),
];

/// The endpoint the old server's map gives `name` (exactly as written), if any.
pub(crate) fn endpoint(name: &str) -> Option<&'static str> {
    OBJECT_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, e)| *e)
}

/// The names of the map whose endpoint is `key` (`dcim/devices` → `devices`).
pub(crate) fn names_of_endpoint(key: &str) -> Vec<&'static str> {
    OBJECT_TYPES
        .iter()
        .filter(|(_, e)| *e == key)
        .map(|(n, _)| *n)
        .collect()
}

/// The names of the map that `written` misspells by case, `_` for `-` or number
/// (`Devices`, `ip_addresses`, `device`, `ip_address`, `prefix`, `IKE_Policy`).
pub(crate) fn near_names(written: &str) -> Vec<&'static str> {
    let t = written.trim().to_ascii_lowercase().replace('_', "-");
    let mut forms = vec![t.clone(), format!("{t}s"), format!("{t}es")];
    if let Some(stem) = t.strip_suffix('y') {
        forms.push(format!("{stem}ies"));
    }
    OBJECT_TYPES
        .iter()
        .filter(|(n, _)| *n != written && forms.iter().any(|f| f == n))
        .map(|(n, _)| *n)
        .collect()
}

/// True when `written` may be meant as an object type of the old tool: a name of its map, a
/// near spelling of one ([`near_names`]), or a NetBox object type or endpoint (`dcim.device`,
/// `dcim/devices`, the newer tools' names). Any other string (`"user"`, `"orders"`) is some
/// other `get_objects`, not this tool.
pub(crate) fn reads_as_name(written: &str) -> bool {
    endpoint(written).is_some()
        || !near_names(written).is_empty()
        || super::forms::object_type_shaped(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_is_the_old_servers() {
        assert_eq!(OBJECT_TYPES.len(), 67);
        assert_eq!(endpoint("devices"), Some("dcim/devices"));
        assert_eq!(endpoint("ip-addresses"), Some("ipam/ip-addresses"));
        assert_eq!(endpoint("vm-interfaces"), Some("virtualization/interfaces"));
        assert_eq!(endpoint("roles"), Some("ipam/roles"));
        assert_eq!(endpoint("ip_addresses"), None);
        assert_eq!(endpoint("dcim.device"), None);
        let mut names: Vec<&str> = OBJECT_TYPES.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OBJECT_TYPES.len(), "one row per name");
    }

    #[test]
    fn near_spellings() {
        assert_eq!(near_names("ip_addresses"), ["ip-addresses"]);
        assert_eq!(near_names("ip_address"), ["ip-addresses"]);
        assert_eq!(near_names("Devices"), ["devices"]);
        assert_eq!(near_names("device"), ["devices"]);
        assert_eq!(near_names("prefix"), ["prefixes"]);
        assert_eq!(near_names("ike-policy"), ["ike-policies"]);
        assert_eq!(near_names("virtual_chassis"), ["virtual-chassis"]);
        assert!(near_names("devices").is_empty());
        assert!(near_names("user").is_empty());
    }

    #[test]
    fn what_reads_as_a_name() {
        for s in [
            "devices",
            "ip_addresses",
            "Sites",
            "dcim.device",
            "dcim/devices",
        ] {
            assert!(reads_as_name(s), "{s}");
        }
        for s in ["user", "orders", "", "Device.objects", "auth.user"] {
            assert!(!reads_as_name(s), "{s}");
        }
    }
}
