//! The known-endpoint table: the `netbox.netbox` collection's lookup terms (netbox-community/
//! ansible_modules 3.22.0, `plugins/lookup/nb_lookup.py`), each with the REST endpoint it names.
//! Read by the Ansible lookup ([`super::ansible`]) and used as the list of endpoints known
//! without an index (a path written without `/api/`, the MCP tools' object types).

/// The lookup's terms and the endpoint (`<app>/<model>`) each names, from `get_endpoint` in
/// `nb_lookup.py` (pynetbox attributes, `_` written `-`). Terms the plugin maps to endpoints
/// NetBox removed (`rack-groups`, `interface-connections`, `graphs`, `reports`, ...) or
/// puts under another app than NetBox (`export-templates` under `dcim`) map as the plugin maps
/// them: NetBox answers those with 404.
pub const TERMS: &[(&str, &str)] = &[
    ("aggregates", "ipam/aggregates"),
    ("asns", "ipam/asns"),
    ("cable-terminations", "dcim/cable-terminations"),
    ("cables", "dcim/cables"),
    ("circuit-providers", "circuits/providers"),
    ("circuit-terminations", "circuits/circuit-terminations"),
    ("circuit-types", "circuits/circuit-types"),
    ("circuits", "circuits/circuits"),
    ("cluster-groups", "virtualization/cluster-groups"),
    ("cluster-types", "virtualization/cluster-types"),
    ("clusters", "virtualization/clusters"),
    ("config", "users/config"),
    ("config-contexts", "extras/config-contexts"),
    ("console-connections", "dcim/console-connections"),
    ("console-port-templates", "dcim/console-port-templates"),
    ("console-ports", "dcim/console-ports"),
    (
        "console-server-port-templates",
        "dcim/console-server-port-templates",
    ),
    ("console-server-ports", "dcim/console-server-ports"),
    ("contact-assignments", "tenancy/contact-assignments"),
    ("contact-groups", "tenancy/contact-groups"),
    ("contact-roles", "tenancy/contact-roles"),
    ("contacts", "tenancy/contacts"),
    ("content-types", "extras/content-types"),
    (
        "custom-field-choice-sets",
        "extras/custom-field-choice-sets",
    ),
    ("custom-fields", "extras/custom-fields"),
    ("custom-links", "extras/custom-links"),
    ("device-bay-templates", "dcim/device-bay-templates"),
    ("device-bays", "dcim/device-bays"),
    ("device-roles", "dcim/device-roles"),
    ("device-types", "dcim/device-types"),
    ("devices", "dcim/devices"),
    ("export-templates", "dcim/export-templates"),
    ("fhrp-group-assignments", "ipam/fhrp-group-assignments"),
    ("fhrp-groups", "ipam/fhrp-groups"),
    ("front-port-templates", "dcim/front-port-templates"),
    ("front-ports", "dcim/front-ports"),
    ("graphs", "extras/graphs"),
    ("groups", "users/groups"),
    ("image-attachments", "extras/image-attachments"),
    ("interface-connections", "dcim/interface-connections"),
    ("interface-templates", "dcim/interface-templates"),
    ("interfaces", "dcim/interfaces"),
    ("inventory-item-roles", "dcim/inventory-item-roles"),
    ("inventory-item-templates", "dcim/inventory-item-templates"),
    ("inventory-items", "dcim/inventory-items"),
    ("ip-addresses", "ipam/ip-addresses"),
    ("ip-ranges", "ipam/ip-ranges"),
    ("job-results", "extras/job-results"),
    ("journal-entries", "extras/journal-entries"),
    ("l2vpn-terminations", "vpn/l2vpn-terminations"),
    ("l2vpns", "vpn/l2vpns"),
    ("locations", "dcim/locations"),
    ("mac-addresses", "dcim/mac-addresses"),
    ("manufacturers", "dcim/manufacturers"),
    ("module-bay-templates", "dcim/module-bay-templates"),
    ("module-bay-types", "dcim/module-bay-types"),
    ("module-bays", "dcim/module-bays"),
    ("module-types", "dcim/module-types"),
    ("modules", "dcim/modules"),
    ("object-changes", "extras/object-changes"),
    ("permissions", "users/permissions"),
    ("platforms", "dcim/platforms"),
    ("power-connections", "dcim/power-connections"),
    ("power-feeds", "dcim/power-feeds"),
    ("power-outlet-templates", "dcim/power-outlet-templates"),
    ("power-outlets", "dcim/power-outlets"),
    ("power-panels", "dcim/power-panels"),
    ("power-port-templates", "dcim/power-port-templates"),
    ("power-ports", "dcim/power-ports"),
    ("prefixes", "ipam/prefixes"),
    ("provider-networks", "circuits/provider-networks"),
    ("providers", "circuits/providers"),
    ("rack-groups", "dcim/rack-groups"),
    ("rack-reservations", "dcim/rack-reservations"),
    ("rack-roles", "dcim/rack-roles"),
    ("racks", "dcim/racks"),
    ("rear-port-templates", "dcim/rear-port-templates"),
    ("rear-ports", "dcim/rear-ports"),
    ("regions", "dcim/regions"),
    ("reports", "extras/reports"),
    ("rirs", "ipam/rirs"),
    ("roles", "ipam/roles"),
    ("route-targets", "ipam/route-targets"),
    ("service-templates", "ipam/service-templates"),
    ("services", "ipam/services"),
    ("site-groups", "dcim/site-groups"),
    ("sites", "dcim/sites"),
    ("tags", "extras/tags"),
    ("tenant-groups", "tenancy/tenant-groups"),
    ("tenants", "tenancy/tenants"),
    ("tokens", "users/tokens"),
    ("topology-maps", "extras/topology-maps"),
    ("tunnel-terminations", "vpn/tunnel-terminations"),
    ("tunnels", "vpn/tunnels"),
    ("users", "users/users"),
    ("virtual-chassis", "dcim/virtual-chassis"),
    ("virtual-disks", "virtualization/virtual-disks"),
    ("virtual-machines", "virtualization/virtual-machines"),
    ("virtualization-interfaces", "virtualization/interfaces"),
    ("vlan-groups", "ipam/vlan-groups"),
    ("vlans", "ipam/vlans"),
    ("vrfs", "ipam/vrfs"),
    ("webhooks", "extras/webhooks"),
    ("wireless-lan-groups", "wireless/wireless-lan-groups"),
    ("wireless-lans", "wireless/wireless-lans"),
    ("wireless-links", "wireless/wireless-links"),
];

/// The REST path (`/api/dcim/devices/`) a lookup term names; `None` for a term the plugin does
/// not know (it fails with "Unrecognised term").
pub fn term_path(term: &str) -> Option<String> {
    TERMS
        .iter()
        .find(|(t, _)| *t == term)
        .map(|(_, p)| format!("/api/{p}/"))
}

/// The lookup term that names endpoint `key` (`dcim/devices` → `devices`), if the collection
/// has one.
pub fn term_of(key: &str) -> Option<&'static str> {
    let key = key.trim_matches('/');
    let key = key.strip_prefix("api/").unwrap_or(key);
    TERMS.iter().find(|(_, p)| *p == key).map(|(t, _)| *t)
}
