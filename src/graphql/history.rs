//! Where a GraphQL field or input field went: for a name the selected release's schema lacks,
//! the shipped releases that have it (read from their SDL by `build.rs`, [`crate::index::embedded::RELEASES`]), so
//! the message can say "NetBox 4.4.10 had it; removed in 4.5.10" and what replaced it, from the
//! release notes. Release-generic: every shipped schema is read, oldest first.

use crate::index::embedded::RELEASES;

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

/// A defect of a shipped release's own GraphQL schema, fixed in a later patch: the document is
/// right and NetBox refuses it on the releases that have the defect. Each row is read from the
/// shipped schemas (the SDL of every release in `RELEASES` shows where the field is missing or
/// required) and cites the release note of the fix.
#[derive(Debug, Clone, Copy)]
pub struct Defect {
    /// The input type (`InterfaceFilter`).
    pub ty: &'static str,
    /// The fields concerned (`kind`, `connected`).
    pub fields: &'static [&'static str],
    /// What is wrong in the schema.
    pub kind: DefectKind,
    /// The shipped releases whose schema has the defect.
    pub releases: &'static [&'static str],
    /// The release that fixed it, and its release note.
    pub fixed_in: &'static str,
    pub source: &'static str,
    /// What works on the releases that have it.
    pub instead: &'static str,
}

/// How a schema defect shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefectKind {
    /// Filter fields a release lost by mistake (restored later).
    Missing,
    /// Filter fields declared required (`StrFilterLookup!`): every filter of the type must give
    /// all of them.
    Required,
}

/// Known defects of the shipped schemas (release notes of the fixing patch; the SDL of
/// `index/netbox-<release>.schema.graphql.gz`).
pub const DEFECTS: &[Defect] = &[
    // 4.3.3 SDL: `InterfaceFilter` has no `kind` and no `connected` (4.2 had both); 4.4.10 has
    // them. Release notes 4.4.1: "#19729 - Restore `kind` filter for interfaces in GraphQL API".
    Defect {
        ty: "InterfaceFilter",
        fields: &["kind", "connected"],
        kind: DefectKind::Missing,
        releases: &["4.3.3"],
        fixed_in: "4.4.1",
        source: "netbox#19729",
        instead: "upgrade to 4.4.1 or later, or filter by `type` (`type: {exact: TYPE_VIRTUAL}`) or `mark_connected`, or use REST `/api/dcim/interfaces/?kind=physical`",
    },
    // 4.3.3 and 4.4.10 SDL: no `cabled` on `InterfaceFilter`; 4.5.10 has it. Release notes
    // 4.5.2: "#20172 - Add `cabled` filter for interfaces in GraphQL API".
    Defect {
        ty: "InterfaceFilter",
        fields: &["cabled"],
        kind: DefectKind::Missing,
        releases: &["4.3.3", "4.4.10"],
        fixed_in: "4.5.2",
        source: "netbox#20172",
        instead: "upgrade to 4.5.2 or later, or use REST `/api/dcim/interfaces/?cabled=true`",
    },
    // 4.3.3 SDL: `name: StrFilterLookup!`, `description: StrFilterLookup!`, `is_active:
    // BoolFilterLookup!` in `ConfigContextFilter`; optional from 4.4.10. Release notes 4.4.1:
    // "#20215 - All GraphQL filters for config contexts should be optional".
    Defect {
        ty: "ConfigContextFilter",
        fields: &["name", "description", "is_active"],
        kind: DefectKind::Required,
        releases: &["4.3.3"],
        fixed_in: "4.4.1",
        source: "netbox#20215",
        instead: "upgrade to 4.4.1 or later, or use REST `/api/extras/config-contexts/`",
    },
    // 4.4.10 and 4.5.10 SDL: `name` and `description` of `ConfigContextProfileFilter` are
    // `StrFilterLookup!`; optional in 4.6.8. Release notes 4.6.2: "#22286 - Mark the `name` and
    // `description` fields on the GraphQL ConfigContextProfileFilter as optional".
    Defect {
        ty: "ConfigContextProfileFilter",
        fields: &["name", "description"],
        kind: DefectKind::Required,
        releases: &["4.4.10", "4.5.10"],
        fixed_in: "4.6.2",
        source: "netbox#22286",
        instead: "upgrade to 4.6.2 or later, or use REST `/api/extras/config-context-profiles/`",
    },
];

/// The defect of `version`'s schema about field `field` of input type `ty` (any field of the
/// type when `field` is `None`), of kind `kind`.
pub fn defect(
    ty: &str,
    field: Option<&str>,
    kind: DefectKind,
    version: &str,
) -> Option<&'static Defect> {
    DEFECTS.iter().find(|d| {
        d.ty == ty
            && d.kind == kind
            && d.releases.contains(&version)
            && field.is_none_or(|f| d.fields.contains(&f))
    })
}

/// Every `(type, field)` name of the shipped schemas, each once, with the releases that have
/// it: one text and a sorted row table, built at compile time by `build.rs` from
/// `index/netbox-<version>.schema.graphql.gz` (reading the five SDL texts at run time was
/// ~76 M instructions, paid by a check's first unknown GraphQL name). 4.3.3–4.7.3: 6.7 k
/// distinct names.
struct Names {
    /// The versions the masks speak of: bit `i` is `versions[i]`.
    versions: &'static [&'static str],
    /// `type` then `field` of each row, concatenated in row order.
    text: &'static str,
    /// Per row: where its type starts in `text`, its type's and its field's length in bytes,
    /// and the mask of the [`Names::versions`] whose schema has it.
    rows: &'static [(u32, u16, u16, u32)],
}

impl Names {
    /// The versions (mask over [`Names::versions`]) whose schema has `field` on `ty`; 0 for
    /// none.
    fn mask(&self, ty: &str, field: &str) -> u32 {
        let part = |&(start, t, f, _): &(u32, u16, u16, u32)| {
            let start = start as usize;
            let mid = start + t as usize;
            let ty = self.text.get(start..mid).unwrap_or_default();
            (ty, self.text.get(mid..mid + f as usize).unwrap_or_default())
        };
        self.rows
            .binary_search_by(|row| part(row).cmp(&(ty, field)))
            .map_or(0, |i| self.rows[i].3)
    }

    /// True when the schema of `version` has `field` on `ty`, by its [`Names::mask`].
    fn has(&self, mask: u32, version: &str) -> bool {
        self.versions
            .iter()
            .position(|v| *v == version)
            .is_some_and(|bit| mask & (1 << bit) != 0)
    }
}

/// The names of every shipped release's schema (`build.rs`).
static NAMES: Names = include!(concat!(env!("OUT_DIR"), "/graphql-names.rs"));

/// " NetBox 4.4.10 had `rear_port` on `FrontPortType`; it was removed in 4.5.10 (use
/// `mappings`, ...)." for a name `ty.field` that `version` lacks and an earlier shipped release
/// has; " It exists from NetBox 4.6.8." for one only later releases have. `None` when no other
/// shipped release has it, or `version` is not a shipped release.
pub fn moved(ty: &str, field: &str, version: &str) -> Option<String> {
    let at = RELEASES.iter().position(|r| r.version == version)?;
    let mask = NAMES.mask(ty, field);
    let has = |i: usize| NAMES.has(mask, RELEASES[i].version);
    if has(at) {
        return None;
    }
    if let Some(d) = defect(ty, Some(field), DefectKind::Missing, version) {
        return Some(format!(
            ". `{field}` is missing from `{ty}` by a defect of NetBox {version}'s schema, not a wrong name: fixed in {} ({}); until then {}",
            d.fixed_in, d.source, d.instead
        ));
    }
    if let Some(last) = (0..at).rev().find(|&i| has(i)) {
        let gone = RELEASES.get(last + 1).map(|r| r.version)?;
        let replaced = REPLACED
            .iter()
            .find(|(t, f, _)| *f == field && (*t == ty || (*t == "*" && ty.ends_with("Filter"))))
            .map(|(_, _, r)| format!("; its replacement: {r}"))
            .unwrap_or_default();
        return Some(format!(
            ". NetBox {} had `{field}` on `{ty}`; it was removed in {gone}{replaced}",
            RELEASES[last].version
        ));
    }
    let first = (at + 1..RELEASES.len()).find(|&i| has(i))?;
    Some(format!(
        ". `{field}` on `{ty}` exists from NetBox {}",
        RELEASES[first].version
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_removed_and_added_between_shipped_releases() {
        // Every shipped release's schema was read, each once.
        for r in RELEASES {
            assert_eq!(
                NAMES.versions.iter().filter(|v| **v == r.version).count(),
                1,
                "{}",
                r.version
            );
        }
        assert!(NAMES.rows.len() > 6_000, "{}", NAMES.rows.len());
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
