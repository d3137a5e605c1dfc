//! What the shipped releases announce for releases to come: removals their release notes
//! promise ("will be removed in NetBox v5.0") and fields their GraphQL schemas mark
//! `@deprecated`. The checks report a use of one as information (`announced-removal`: the
//! release it goes in and what replaces it); `check --upgrade-to` a release past the shipped
//! ones reports it as an expected break (`upgrade-announced`), labelled as announced, not
//! measured (`upgrade::announced`).
//!
//! A leaf: the table and its look-ups, read by `rest::announced`,
//! `graphql::rules::announced` and `upgrade::announced`.

use crate::version::Version;

/// What an announcement removes.
#[derive(Debug, Clone, Copy)]
pub enum Removes {
    /// REST filters (every lookup of each base name) on these endpoints.
    Filters {
        endpoints: &'static [&'static str],
        bases: &'static [&'static str],
    },
    /// A REST list endpoint.
    Endpoint(&'static str),
    /// GraphQL fields of these object types and input fields of these input types.
    Graphql {
        types: &'static [&'static str],
        fields: &'static [&'static str],
    },
}

/// One removal a release's notes announce.
#[derive(Debug, Clone, Copy)]
pub struct Announcement {
    /// The release it goes in (`5.0`).
    pub goes_in: &'static str,
    /// The first release whose notes announce it (`4.7.0`); releases before it say nothing.
    pub announced_in: &'static str,
    pub removes: Removes,
    /// What to use instead.
    pub instead: &'static str,
    /// The release notes that say so.
    pub source: &'static str,
}

const RACK_FIELDS: &[&str] = &[
    "form_factor",
    "width",
    "outer_width",
    "outer_height",
    "outer_depth",
    "outer_unit",
];
const RACK_NOTE: &str = "release notes 4.7.0, Deprecations (netbox#22593): the form_factor, width, outer_width, outer_height, outer_depth and outer_unit fields of racks \"will be removed in NetBox v5.0\"; they are inferred from the rack's rack type, which becomes mandatory";
const SERVICE_NOTE: &str = "release notes 4.7.0, Deprecations: the protocol and ports fields of services and service templates \"will be removed from the REST & GraphQL APIs in NetBox v5.0\" in favour of port_mappings";

/// The announced removals, from the release notes of the shipped releases
/// (`docs/release-notes/version-4.7.md` of the 4.7.3 wheel, section "Deprecations"). Changes
/// outside the API (configuration parameters, plugin base classes) are not here.
pub const ANNOUNCED: &[Announcement] = &[
    Announcement {
        goes_in: "5.0",
        announced_in: "4.7.0",
        removes: Removes::Filters {
            endpoints: &["dcim/racks"],
            bases: RACK_FIELDS,
        },
        instead: "the rack type holds them: filter /api/dcim/rack-types/ by the same field and the racks by `rack_type_id`",
        source: RACK_NOTE,
    },
    Announcement {
        goes_in: "5.0",
        announced_in: "4.7.0",
        removes: Removes::Graphql {
            types: &["RackType", "RackFilter"],
            fields: RACK_FIELDS,
        },
        instead: "the rack type holds them: `rack_type { form_factor width ... }`, and `rack_type: {...}` in filters",
        source: RACK_NOTE,
    },
    Announcement {
        goes_in: "5.0",
        announced_in: "4.7.0",
        removes: Removes::Graphql {
            types: &["ServiceType", "ServiceTemplateType"],
            fields: &["protocol", "ports"],
        },
        instead: "`port_mappings` (`tcp/22`, one entry per protocol and port)",
        source: SERVICE_NOTE,
    },
    Announcement {
        goes_in: "5.0",
        announced_in: "4.7.0",
        removes: Removes::Endpoint("extras/scripts"),
        instead: "the plugin that takes over custom scripts",
        source: "release notes 4.7.0, Deprecations (netbox#22935): custom scripts in core NetBox \"will be removed in NetBox v5.0\" in favour of a dedicated plugin",
    },
];

/// True when release `version` is at or after the announcement and before the removal.
fn in_window(a: &Announcement, version: &str) -> bool {
    let (Some(v), Some(from), Some(until)) = (
        Version::parse(version),
        Version::parse(a.announced_in),
        Version::parse(a.goes_in),
    ) else {
        return false;
    };
    from <= v && v < until
}

/// The announcement that removes filter `key` (any lookup of its base) on `endpoint`, as
/// release `version` knows it.
pub fn filter(version: &str, endpoint: &str, key: &str) -> Option<&'static Announcement> {
    // The endpoint first: asked for every known filter of every call, and nearly no endpoint
    // has an announcement, so the key is split (a byte scan, no substring searcher) only then.
    ANNOUNCED.iter().find(|a| {
        matches!(a.removes, Removes::Filters { endpoints, bases }
            if endpoints.contains(&endpoint) && bases.contains(&base_of(key)))
            && in_window(a, version)
    })
}

/// `key` up to its first `__` (as `key.split("__").next()`).
fn base_of(key: &str) -> &str {
    let b = key.as_bytes();
    let end = (0..b.len().saturating_sub(1))
        .find(|&i| b[i] == b'_' && b[i + 1] == b'_')
        .unwrap_or(b.len());
    &key[..end]
}

/// The announcement that removes list endpoint `endpoint`, as release `version` knows it.
pub fn endpoint(version: &str, endpoint: &str) -> Option<&'static Announcement> {
    ANNOUNCED.iter().find(|a| {
        matches!(a.removes, Removes::Endpoint(e) if e == endpoint) && in_window(a, version)
    })
}

/// The announcement that removes field (or input field) `field` of GraphQL type `ty`, as
/// release `version` knows it.
pub fn graphql(version: &str, ty: &str, field: &str) -> Option<&'static Announcement> {
    ANNOUNCED.iter().find(|a| {
        matches!(a.removes, Removes::Graphql { types, fields }
            if types.contains(&ty) && fields.contains(&field))
            && in_window(a, version)
    })
}

/// What a `@deprecated(reason: ...)` says to use instead: the text after "use "
/// (`Deprecated; use port_mappings. Populated only ...` → `port_mappings`), else the reason.
pub fn replacement_in_reason(reason: &str) -> String {
    let lower = reason.to_ascii_lowercase();
    match lower.find("use ") {
        Some(i) => {
            let rest = &reason[i + 4..];
            let end = rest.find(['.', ';', ',']).unwrap_or(rest.len());
            format!("`{}`", rest[..end].trim())
        }
        None => reason.trim().to_string(),
    }
}

/// True when `goes_in` lies after release `from` and at or before `to` (`to` may be a release
/// that is not shipped, `5.0`).
pub fn goes_between(a: &Announcement, from: &str, to: &str) -> bool {
    let (Some(g), Some(f), Some(t)) = (
        Version::parse(a.goes_in),
        Version::parse(from),
        Version::parse(to),
    ) else {
        return false;
    };
    f < g && g <= t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_lookups() {
        assert!(filter("4.7.3", "dcim/racks", "form_factor__n").is_some());
        assert!(filter("4.7.3", "dcim/rack-types", "form_factor").is_none());
        assert!(
            filter("4.6.8", "dcim/racks", "form_factor").is_none(),
            "announced in 4.7.0"
        );
        assert!(
            filter("5.0.0", "dcim/racks", "form_factor").is_none(),
            "gone by then"
        );
        assert!(filter("4.8.0b1", "dcim/racks", "width").is_some());
        assert!(endpoint("4.7.3", "extras/scripts").is_some());
        assert!(graphql("4.7.3", "ServiceType", "ports").is_some());
        assert!(graphql("4.7.3", "ServiceType", "port_mappings").is_none());
        let a = graphql("4.7.3", "RackFilter", "outer_unit").unwrap();
        assert!(goes_between(a, "4.7.3", "5.0"));
        assert!(goes_between(a, "4.7.3", "5.1.2"));
        assert!(!goes_between(a, "4.7.3", "4.9"));
        assert!(!goes_between(a, "5.0", "5.1"));
    }

    #[test]
    fn reasons() {
        assert_eq!(
            replacement_in_reason(
                "Deprecated; use port_mappings. Populated only for single-protocol services."
            ),
            "`port_mappings`"
        );
        assert_eq!(replacement_in_reason("going away"), "going away");
    }

    /// Every announcement names a release to come and cites the release notes.
    #[test]
    fn rows_are_sourced() {
        for a in ANNOUNCED {
            assert!(Version::parse(a.goes_in) > Version::parse(a.announced_in));
            assert!(a.source.starts_with("release notes "), "{}", a.source);
            assert!(!a.instead.is_empty());
        }
    }
}
