//! The one table of shipped NetBox releases ([`RELEASES`]): each release's version and its two
//! embedded files, the filter index and the GraphQL schema. Everything else that depends on which
//! releases are shipped is derived from it: the default (the newest, [`default_version`]), the
//! fallback for a release that is not shipped ([`select`]), the decoded-index and schema caches
//! (one slot per row), `--help` (`cli::shipped_versions`), `index/version-differences.tsv`
//! (`rest::versions`, checked by a test), the per-release rules' list of shipped releases
//! (`rest::faults`), the ground-truth tests and README's release table (`tests/index.rs`).
//!
//! Adding a release is one row here plus its two files (CONTRIBUTING.md, "Adding a NetBox
//! release"): `index/netbox-<version>.index.json.gz`, built by
//! `netbox-lsp index build --openapi ../shared/netbox/v<version>/openapi.json.gz` (a test checks
//! it still equals a fresh build when `../shared` is present), and
//! `index/netbox-<version>.schema.graphql.gz`, the release's SDL copied unchanged. Then
//! regenerate `index/version-differences.tsv` (see `rest::versions`; a test fails until it
//! matches the shipped indexes).

use super::load::{load_embedded, load_index, IndexError};
use super::FilterIndex;
use std::sync::{Arc, OnceLock};

/// One shipped NetBox release.
#[derive(Debug, Clone, Copy)]
pub struct Release {
    /// Full NetBox version, e.g. `4.6.8`.
    pub version: &'static str,
    /// The gzip-compressed index file (`index/netbox-<version>.index.json.gz`).
    pub index_gz: &'static [u8],
    /// The gzip-compressed GraphQL SDL (`index/netbox-<version>.schema.graphql.gz`, as printed by
    /// that release's Strawberry: `../shared/netbox/v<version>/schema.graphql.gz`).
    pub schema_gz: &'static [u8],
}

/// A row of [`RELEASES`]: the version and its two files under `index/`, named by the version.
macro_rules! release {
    ($version:literal) => {
        Release {
            version: $version,
            index_gz: include_bytes!(concat!("../../index/netbox-", $version, ".index.json.gz")),
            schema_gz: include_bytes!(concat!(
                "../../index/netbox-",
                $version,
                ".schema.graphql.gz"
            )),
        }
    };
}

/// Shipped releases, oldest first; the last one is the default. The only list of releases in
/// the code: add a release here (and its two files).
pub const RELEASES: &[Release] = &[
    release!("4.3.3"),
    release!("4.4.10"),
    release!("4.5.10"),
    release!("4.6.8"),
    release!("4.7.3"),
];

const _: () = assert!(!RELEASES.is_empty(), "RELEASES needs at least one release");

/// The release used when none is asked for: the newest shipped one (`4.7.3`).
pub const fn default_version() -> &'static str {
    RELEASES[RELEASES.len() - 1].version
}

/// The position of shipped release `version` in [`RELEASES`] (exact version), for the
/// per-release caches and masks.
pub fn position(version: &str) -> Option<usize> {
    RELEASES.iter().position(|r| r.version == version)
}

/// The shipped versions, oldest first.
pub fn versions() -> impl Iterator<Item = &'static str> {
    RELEASES.iter().map(|r| r.version)
}

/// The result of choosing a shipped release for a requested version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The shipped version chosen, e.g. `4.3.3`.
    pub version: &'static str,
    /// Set when the choice is not an exact match: one plain sentence for the user saying what is
    /// used instead, what that may miss and how to get exact knowledge (`index build --url`).
    pub note: Option<String>,
    /// Set (to the requested version, e.g. `4.7.3`) when the shipped release stands in for
    /// another release of NetBox: a newer one, or another patch release of its minor. Findings a
    /// different release may have made valid are then warnings ([`crate::analysis::Knowledge`]).
    pub approximate: Option<String>,
}

/// `4.6.8` → `[4, 6, 8]`; a leading `v` and a `-suffix`/`+suffix` (`4.3.3-Docker-3.3.0`) are
/// ignored. `None` unless it is two or three dot-separated numbers.
pub fn parse_version(v: &str) -> Option<Vec<u32>> {
    let v = v.trim();
    let v = v.strip_prefix(['v', 'V']).unwrap_or(v);
    let v = v.split(['-', '+']).next()?;
    let parts: Option<Vec<u32>> = v.split('.').map(|p| p.parse().ok()).collect();
    parts.filter(|p| (2..=3).contains(&p.len()))
}

fn shipped_list() -> String {
    let v: Vec<&str> = versions().collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// How to get exact knowledge, for notes.
const BUILD_HINT: &str =
    "for exact knowledge build an index from your instance: `netbox-lsp index build --url https://<your-netbox>`";

/// Chooses a shipped release: `None` → newest; `4.3` → the newest 4.3.x; `4.3.3` → exact.
///
/// A release that is not shipped uses the closest shipped one, with a note and
/// [`Selection::approximate`] set:
/// - newer than every shipped release of its minor, or of a newer minor/major (`4.3.5`, `4.7.3`,
///   `5.0`): the newest shipped release of that minor, else the newest of all (names added
///   since are unknown to it);
/// - a patch older than the shipped one of its minor (`4.6.0` when `4.6.8` is shipped): that
///   shipped patch (names it added pass unchecked).
///
/// Errors (a message naming the shipped versions) for text that is not a version and for a
/// minor release older than every shipped one (`3.7`, `4.2`). A leading `v` and a build suffix
/// (`4.3.3-Docker-3.3.0`) are accepted.
pub fn select(requested: Option<&str>) -> Result<Selection, String> {
    let newest = RELEASES
        .last()
        .ok_or_else(|| "no NetBox release is shipped in this build".to_string())?;
    let exact = |version: &'static str| Selection {
        version,
        note: None,
        approximate: None,
    };
    let Some(req) = requested.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(exact(newest.version));
    };
    let err = |why: &str| {
        format!(
            "NetBox {req}: {why}; shipped versions: {} (or build an index with `netbox-lsp index build`)",
            shipped_list()
        )
    };
    let want = parse_version(req).ok_or_else(|| err("not a version like 4.6 or 4.6.8"))?;
    let shipped: Vec<(&'static str, Vec<u32>)> = RELEASES
        .iter()
        .filter_map(|r| Some((r.version, parse_version(r.version)?)))
        .collect();
    let same_minor: Vec<&(&'static str, Vec<u32>)> = shipped
        .iter()
        .filter(|(_, v)| v[..2] == want[..2])
        .collect();
    if want.len() == 2 {
        if let Some(last) = same_minor.last() {
            return Ok(exact(last.0));
        }
    } else if let Some((v, _)) = same_minor.iter().find(|(_, v)| *v == want) {
        return Ok(exact(v));
    }
    let newest_v = parse_version(newest.version).unwrap_or_default();
    let approx = |chosen: &'static str, what: String| Selection {
        version: chosen,
        note: Some(format!(
            "NetBox {req} is not shipped; using {chosen}, {what}; {BUILD_HINT}"
        )),
        approximate: Some(req.to_string()),
    };
    let newer_note = |chosen: &str| {
        format!(
            "the closest shipped release (older than {req}): filters, endpoints and choices added after {chosen} are unknown to it, so findings a newer release may have made valid are warnings, not errors"
        )
    };
    // Newer than every shipped release of its minor: the newest of that minor.
    if let Some(last) = same_minor.last().filter(|(_, v)| *v < want) {
        return Ok(approx(last.0, newer_note(last.0)));
    }
    // An older patch of a shipped minor.
    if let Some(first) = same_minor.first() {
        return Ok(approx(
            first.0,
            format!(
                "the closest shipped release (newer than {req}): filters and choices added after {req} pass here although NetBox {req} ignores or refuses them, and findings of names {req} may still have are warnings, not errors"
            ),
        ));
    }
    // A minor or major release newer than every shipped one.
    if want[..2] > newest_v[..2] {
        return Ok(approx(newest.version, newer_note(newest.version)));
    }
    Err(err("no release of this minor version is shipped"))
}

/// Decodes the shipped index of `version` (exact version, or anything [`select`] accepts).
/// Each call decodes afresh; use [`embedded_index`] for the shared copy.
pub fn load(version: &str) -> Result<FilterIndex, IndexError> {
    let sel = select(Some(version)).map_err(IndexError::UnknownVersion)?;
    let release = RELEASES
        .iter()
        .find(|r| r.version == sel.version)
        .ok_or_else(|| IndexError::UnknownVersion(format!("NetBox {version} is not shipped")))?;
    load_index(release.index_gz)
}

/// One decoded index per shipped release, decoded on first use (one slot per [`RELEASES`] row).
static CACHE: [OnceLock<Arc<FilterIndex>>; RELEASES.len()] =
    [const { OnceLock::new() }; RELEASES.len()];

/// The process-wide decoded index of a shipped release (`version` as in [`Selection::version`]).
/// Decoded once per process. A version that is not shipped, or an embedded file that fails to
/// decode (prevented by tests), gives an empty index so callers fail open.
pub fn embedded_index(version: &'static str) -> Arc<FilterIndex> {
    let Some(pos) = position(version) else {
        return Arc::new(FilterIndex::empty(version));
    };
    CACHE[pos]
        .get_or_init(|| {
            Arc::new(
                load_embedded(RELEASES[pos].index_gz)
                    .unwrap_or_else(|_| FilterIndex::empty(version)),
            )
        })
        .clone()
}
