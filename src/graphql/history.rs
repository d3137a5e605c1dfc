//! Where a GraphQL field or input field went: for a name the selected release's schema lacks,
//! the shipped releases that have it (read from their SDL, [`crate::index::embedded::RELEASES`]), so
//! the message can say "NetBox 4.4.10 had it; removed in 4.5.10" and what replaced it, from the
//! release notes. Release-generic: every shipped schema is read, oldest first.

use super::schema::maybe_gunzip;
use crate::index::embedded::RELEASES;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// What replaced a removed name, from NetBox's release notes: `(type, field, replacement)`.
/// A type ending in `*` matches every type with that prefix and a `Filter` suffix.
const REPLACED: &[(&str, &str, &str)] = &[
    // 4.5 release notes, "Advanced Port Mappings" (#20564): front and rear ports map through
    // PortMapping objects.
    (
        "FrontPortType",
        "rear_port",
        "`mappings` (front-to-rear port mappings, netbox#20564)",
    ),
    (
        "FrontPortType",
        "rear_port_position",
        "`mappings` (front-to-rear port mappings, netbox#20564)",
    ),
    (
        "FrontPortTemplateType",
        "rear_port",
        "`mappings` (netbox#20564)",
    ),
    (
        "FrontPortTemplateType",
        "rear_port_position",
        "`mappings` (netbox#20564)",
    ),
    ("RearPortType", "frontports", "`mappings` (netbox#20564)"),
    (
        "RearPortTemplateType",
        "frontport_templates",
        "`mappings` (netbox#20564)",
    ),
    (
        "FrontPortFilter",
        "rear_port",
        "no filter of front ports (port mappings, netbox#20564)",
    ),
    (
        "FrontPortFilter",
        "rear_port_id",
        "no filter of front ports (port mappings, netbox#20564)",
    ),
    (
        "FrontPortFilter",
        "rear_port_position",
        "no filter of front ports (port mappings, netbox#20564)",
    ),
    // 4.5 release notes, breaking changes: "The obsolete boolean field `is_staff` has been
    // removed from the `User` model" (#16137).
    (
        "UserType",
        "is_staff",
        "nothing (the obsolete flag went, netbox#16137)",
    ),
    (
        "UserFilter",
        "is_staff",
        "nothing (the obsolete flag went, netbox#16137)",
    ),
    // 4.6 release notes: "Remove errant `changelog` relation from GraphQL schema" (#22440).
    (
        "*",
        "changelog",
        "nothing (an errant relation, netbox#22440)",
    ),
];

/// Type name → its field and input field names.
type Fields = HashMap<String, HashSet<String>>;

/// Per shipped release, oldest first: type name → its field and input field names.
fn names() -> &'static [(&'static str, Fields)] {
    static NAMES: OnceLock<Vec<(&'static str, Fields)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        RELEASES
            .iter()
            .filter_map(|r| {
                let bytes = maybe_gunzip(r.schema_gz).ok()?;
                Some((r.version, fields(std::str::from_utf8(&bytes).ok()?)))
            })
            .collect()
    })
}

/// The fields of each `type`, `input` and `interface` of an SDL text (Strawberry prints one
/// field per line, indented: `  name: String!`, `  devices(filters: ...): [...]`).
fn fields(sdl: &str) -> Fields {
    let mut out: Fields = HashMap::new();
    let mut current: Option<String> = None;
    for line in sdl.lines() {
        if let Some(rest) = ["type ", "input ", "interface "]
            .iter()
            .find_map(|k| line.strip_prefix(k))
        {
            current = rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .map(str::to_string);
            continue;
        }
        if line.starts_with('}') {
            current = None;
            continue;
        }
        if let (Some(t), Some(body)) = (&current, line.strip_prefix("  ")) {
            let name: String = body
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && body[name.len()..].starts_with([':', '(']) {
                out.entry(t.clone()).or_default().insert(name);
            }
        }
    }
    out
}

/// " NetBox 4.4.10 had `rear_port` on `FrontPortType`; it was removed in 4.5.10 (use
/// `mappings`, ...)." for a name `ty.field` that `version` lacks and an earlier shipped release
/// has; " It exists from NetBox 4.6.8." for one only later releases have. `None` when no other
/// shipped release has it, or `version` is not a shipped release.
pub fn moved(ty: &str, field: &str, version: &str) -> Option<String> {
    let all = names();
    let at = all.iter().position(|(v, _)| *v == version)?;
    let has = |i: usize| all[i].1.get(ty).is_some_and(|f| f.contains(field));
    if has(at) {
        return None;
    }
    if let Some(last) = (0..at).rev().find(|&i| has(i)) {
        let gone = all.get(last + 1).map(|(v, _)| *v)?;
        let replaced = REPLACED
            .iter()
            .find(|(t, f, _)| *f == field && (*t == ty || (*t == "*" && ty.ends_with("Filter"))))
            .map(|(_, _, r)| format!("; its replacement: {r}"))
            .unwrap_or_default();
        return Some(format!(
            ". NetBox {} had `{field}` on `{ty}`; it was removed in {gone}{replaced}",
            all[last].0
        ));
    }
    let first = (at + 1..all.len()).find(|&i| has(i))?;
    Some(format!(
        ". `{field}` on `{ty}` exists from NetBox {}",
        all[first].0
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_removed_and_added_between_shipped_releases() {
        let old = RELEASES.first().map(|r| r.version).unwrap();
        let new = RELEASES.last().map(|r| r.version).unwrap();
        // 4.5 replaced front-to-rear port fields with port mappings (#20564).
        let m = moved("FrontPortType", "rear_port", new).unwrap();
        assert!(
            m.contains("removed in 4.5.10") && m.contains("`mappings`"),
            "{m}"
        );
        assert!(moved("UserFilter", "is_staff", new)
            .unwrap()
            .contains("#16137"));
        assert!(moved("DeviceFilter", "changelog", new)
            .unwrap()
            .contains("removed in 4.6.8"));
        // A name every release has, or none has, is no move.
        assert_eq!(moved("DeviceType", "name", new), None);
        assert_eq!(moved("DeviceType", "no_such_field", old), None);
        // `mappings` came with 4.5: on 4.4 it exists from a later release.
        assert!(moved("FrontPortType", "mappings", "4.4.10")
            .unwrap()
            .contains("exists from NetBox 4.5.10"));
        assert_eq!(moved("FrontPortType", "rear_port", "9.9.9"), None);
    }
}
