//! REST list endpoints that NetBox removed or moved before the oldest shipped release (4.3.3),
//! from NetBox's release notes (`docs/release-notes/version-<x>.md`). Endpoints that exist in
//! some shipped release but not the selected one are found in the shipped indexes instead.

/// `(endpoint key, last release that had it, release that removed or moved it, replacement
/// endpoint key or a hint, source)`.
pub(crate) const REMOVED: &[(&str, &str, &str, Option<&str>, &str)] = &[
    // NetBox 4.6 added a new, flat rack-group model under the old path: a release between
    // 2.11 and 4.5 that names it most likely follows pre-2.11 docs and means locations.
    (
        "dcim/rack-groups",
        "2.10",
        "2.11",
        Some("dcim/locations"),
        "release notes 2.11: rack groups became locations, /api/dcim/locations/",
    ),
    (
        "dcim/interface-connections",
        "2.11",
        "3.0",
        None,
        "release notes 3.0 (netbox#5223): query /api/dcim/interfaces/ with `connected=true`",
    ),
    (
        "dcim/console-connections",
        "2.11",
        "3.0",
        None,
        "release notes 3.0 (netbox#5223): query /api/dcim/console-ports/ with `connected=true`",
    ),
    (
        "dcim/power-connections",
        "2.11",
        "3.0",
        None,
        "release notes 3.0 (netbox#5223): query /api/dcim/power-ports/ with `connected=true`",
    ),
    (
        "extras/content-types",
        "3.7",
        "4.0",
        Some("core/object-types"),
        "release notes 4.0: moved to /api/extras/object-types/, which 4.5 removed for /api/core/object-types/",
    ),
    (
        "extras/reports",
        "3.7",
        "4.0",
        Some("extras/scripts"),
        "release notes 4.0: reports are scripts since 4.0",
    ),
    (
        "extras/object-changes",
        "4.0",
        "4.1",
        Some("core/object-changes"),
        "release notes 4.1: moved to /api/core/object-changes/",
    ),
];

/// The history row of `key`, if NetBox removed it before the shipped releases.
pub(crate) fn removed(
    key: &str,
) -> Option<&'static (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
)> {
    REMOVED.iter().find(|r| r.0 == key)
}
