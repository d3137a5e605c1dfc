//! The index files shipped in `index/`, embedded in the binary, and version selection.
//!
//! Each file is built by `netbox-lsp index build --openapi ../shared/netbox/v<version>/openapi.json.gz`
//! (a test checks it still equals a fresh build when `../shared` is present).
//! After adding or rebuilding one, regenerate `index/version-differences.tsv` (see
//! `rest::versions`; a test fails until it matches the shipped indexes).

use super::load::{load_index, IndexError};
use super::FilterIndex;
use std::sync::{Arc, OnceLock};

/// One shipped NetBox release.
#[derive(Debug, Clone, Copy)]
pub struct Release {
    /// Full NetBox version, e.g. `4.6.8`.
    pub version: &'static str,
    /// The gzip-compressed index file (`index/netbox-<version>.index.json.gz`).
    pub index_gz: &'static [u8],
}

/// Shipped releases, oldest first.
pub const RELEASES: &[Release] = &[
    Release {
        version: "4.3.3",
        index_gz: include_bytes!("../../index/netbox-4.3.3.index.json.gz"),
    },
    Release {
        version: "4.4.10",
        index_gz: include_bytes!("../../index/netbox-4.4.10.index.json.gz"),
    },
    Release {
        version: "4.5.10",
        index_gz: include_bytes!("../../index/netbox-4.5.10.index.json.gz"),
    },
    Release {
        version: "4.6.8",
        index_gz: include_bytes!("../../index/netbox-4.6.8.index.json.gz"),
    },
];

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
    let v: Vec<&str> = RELEASES.iter().map(|r| r.version).collect();
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

/// One decoded index per shipped release, decoded on first use.
static CACHE: [OnceLock<Arc<FilterIndex>>; 8] = [const { OnceLock::new() }; 8];
const _: () = assert!(RELEASES.len() <= 8, "grow CACHE with RELEASES");

/// The process-wide decoded index of a shipped release (`version` as in [`Selection::version`]).
/// Decoded once per process. A version that is not shipped, or an embedded file that fails to
/// decode (prevented by tests), gives an empty index so callers fail open.
pub fn embedded_index(version: &'static str) -> Arc<FilterIndex> {
    let Some(pos) = RELEASES.iter().position(|r| r.version == version) else {
        return Arc::new(FilterIndex::empty(version));
    };
    let Some(slot) = CACHE.get(pos) else {
        return Arc::new(
            load_index(RELEASES[pos].index_gz).unwrap_or_else(|_| FilterIndex::empty(version)),
        );
    };
    slot.get_or_init(|| {
        Arc::new(load_index(RELEASES[pos].index_gz).unwrap_or_else(|_| FilterIndex::empty(version)))
    })
    .clone()
}
