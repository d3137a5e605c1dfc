//! The one table of shipped NetBox releases ([`RELEASES`]): each release's version and its two
//! embedded files, the filter index and the GraphQL schema. Everything else that depends on which
//! releases are shipped is derived from it: the default (the newest final release,
//! [`default_version`]; a pre-release such as `4.8.0b1` is shipped beside it, never as the
//! default, until its final release replaces it), the
//! fallback for a release that is not shipped ([`select`]), the decoded-index and schema caches
//! (one slot per row), `--help` (`cli::shipped_versions`), `index/version-differences.tsv`
//! (`rest::versions`, checked by a test), the per-release rules' list of shipped releases
//! (`rest::faults`), the ground-truth tests and README's release table (`tests/index.rs`).
//!
//! Adding a release is one row here plus its two files, all written by `scripts/add-release.sh`
//! (`netbox-lsp release add`, CONTRIBUTING.md "Adding a NetBox release"):
//! `index/netbox-<version>.index.json.gz`, built by `netbox-lsp index build --openapi
//! ../shared/netbox/v<version>/openapi.json.gz` (a test checks it still equals a fresh build
//! when `../shared` is present), and `index/netbox-<version>.schema.graphql.gz`, the release's
//! SDL copied unchanged (`build.rs` derives the row's [`Release::split`] from the index file);
//! the command also regenerates `index/version-differences.tsv` (see
//! `rest::versions`; a test fails until it matches the shipped indexes).

use super::load::{load_index, IndexError};
use super::split::Split;
use super::FilterIndex;
// A cache slot holds a finished value or nothing, so a poisoned one is still sound.
use crate::sync::lock as slot;
use crate::version::{self, Version};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex};

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
    /// The index laid out by `build.rs` from `index_gz` to be read in place, as the binary
    /// loads it ([`embedded_index`]): only the endpoints a process reads are read.
    pub split: Split,
}

/// The bytes of `$path` as a `&'static [u8]` held by a static: a `const` that holds
/// `include_bytes!` itself puts a copy of the bytes in the binary at each place it is used
/// ([`RELEASES`] is used in about ten).
macro_rules! embed {
    ($path:expr) => {{
        static BYTES: [u8; include_bytes!($path).len()] = *include_bytes!($path);
        &BYTES
    }};
}

/// A row of [`RELEASES`]: the version and its two files under `index/`, named by the version.
macro_rules! release {
    ($version:literal) => {
        Release {
            version: $version,
            index_gz: embed!(concat!("../../index/netbox-", $version, ".index.json.gz")),
            schema_gz: embed!(concat!(
                "../../index/netbox-",
                $version,
                ".schema.graphql.gz"
            )),
            split: include!(concat!(env!("OUT_DIR"), "/netbox-", $version, ".split.rs")),
        }
    };
}

/// Shipped releases, oldest first (in [`Version`] order: `4.8.0b1` before `4.8.0`); the newest
/// final release is the default. The only list of releases in the code: `netbox-lsp release
/// add` writes a row here (and its two files).
pub const RELEASES: &[Release] = &[
    release!("4.3.3"),
    release!("4.4.10"),
    release!("4.5.10"),
    release!("4.6.8"),
    release!("4.7.3"),
];

const _: () = assert!(!RELEASES.is_empty(), "RELEASES needs at least one release");

/// The release used when none is asked for: the newest shipped final release (`4.7.3`); a
/// pre-release (`4.8.0b1`) is shipped beside it but never the default.
pub const fn default_version() -> &'static str {
    let mut i = RELEASES.len();
    while i > 0 {
        i -= 1;
        if !version::is_pre_release_const(RELEASES[i].version) {
            return RELEASES[i].version;
        }
    }
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

/// `4.6.8` → `[4, 6, 8]`; a leading `v`, a pre-release (`4.8.0b1`, `-beta1`) and a build
/// suffix (`4.3.3-Docker-3.3.0`) are not part of the numbers. `None` unless it is two or three
/// dot-separated numbers. Order releases with [`Version`], which places `4.8.0b1` before `4.8.0`.
pub fn parse_version(v: &str) -> Option<Vec<u32>> {
    Version::parse(v).map(|v| v.numbers)
}

/// How to get exact knowledge, for notes.
const BUILD_HINT: &str =
    "for exact knowledge build an index from your instance: `netbox-lsp index build --url https://<your-netbox>`";

/// Chooses a shipped release: `None` → the default ([`default_version`]); `4.3` → the newest
/// 4.3.x; `4.3.3` (or `4.8.0b1`) → exact.
///
/// A release that is not shipped uses the closest shipped one, with a note and
/// [`Selection::approximate`] set:
/// - newer than every shipped release of its minor, or of a newer minor/major (`4.3.5`, `4.7.3`,
///   `5.0`): the newest shipped release of that minor, else the newest of all (names added
///   since are unknown to it); a minor known only from its pre-release (`4.8` when `4.8.0b1`
///   is shipped) uses that pre-release;
/// - a patch older than the shipped one of its minor (`4.6.0` when `4.6.8` is shipped): that
///   shipped patch (names it added pass unchecked).
///
/// Errors (a message naming the shipped versions) for text that is not a version and for a
/// minor release older than every shipped one (`3.7`, `4.2`). A leading `v` and a build suffix
/// (`4.3.3-Docker-3.3.0`) are accepted.
pub fn select(requested: Option<&str>) -> Result<Selection, String> {
    let versions: Vec<&'static str> = versions().collect();
    select_in(&versions, requested)
}

/// [`select`] among `releases` (versions, oldest first), for a table other than the shipped
/// one (tests of a table with a pre-release).
pub fn select_in(releases: &[&'static str], requested: Option<&str>) -> Result<Selection, String> {
    let newest = *releases
        .last()
        .ok_or_else(|| "no NetBox release is shipped in this build".to_string())?;
    let exact = |version: &'static str| Selection {
        version,
        note: None,
        approximate: None,
    };
    let Some(req) = requested.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(exact(
            version::default_of(releases).copied().unwrap_or(newest),
        ));
    };
    let err = |why: &str| {
        format!(
            "NetBox {req}: {why}; shipped versions: {} (or build an index with `netbox-lsp index build`)",
            releases.join(", ")
        )
    };
    let want = Version::parse(req).ok_or_else(|| err("not a version like 4.6 or 4.6.8"))?;
    let shipped: Vec<(&'static str, Version)> = releases
        .iter()
        .filter_map(|r| Some((*r, Version::parse(r)?)))
        .collect();
    let same_minor: Vec<&(&'static str, Version)> = shipped
        .iter()
        .filter(|(_, v)| v.minor() == want.minor())
        .collect();
    if want.numbers.len() == 2 && want.pre.is_none() {
        // `4.7`: the newest final release of the minor.
        if let Some(last) = same_minor.iter().rev().find(|(_, v)| !v.is_pre_release()) {
            return Ok(exact(last.0));
        }
    } else if let Some((v, _)) = same_minor.iter().find(|(_, v)| *v == want) {
        return Ok(exact(v));
    }
    let newest_v = Version::parse(newest);
    let kind = |chosen: &str| {
        if version::is_pre_release(chosen) {
            " (a pre-release)"
        } else {
            ""
        }
    };
    let approx = |chosen: &'static str, what: String| Selection {
        version: chosen,
        note: Some(format!(
            "NetBox {req} is not shipped; using {chosen}{}, {what}; {BUILD_HINT}",
            kind(chosen)
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
    // An older patch (or pre-release) of a shipped minor.
    if let Some(first) = same_minor.first() {
        return Ok(approx(
            first.0,
            format!(
                "the closest shipped release (newer than {req}): filters and choices added after {req} pass here although NetBox {req} ignores or refuses them, and findings of names {req} may still have are warnings, not errors"
            ),
        ));
    }
    // A minor or major release newer than every shipped one.
    if newest_v.is_some_and(|n| want.minor() > n.minor()) {
        return Ok(approx(newest, newer_note(newest)));
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

/// One decoded index per shipped release, decoded on first use (one slot per [`RELEASES`] row)
/// and kept until [`release_unused`] drops it.
static CACHE: [Mutex<Option<Arc<FilterIndex>>>; RELEASES.len()] =
    [const { Mutex::new(None) }; RELEASES.len()];

/// The address of the index each slot of [`CACHE`] holds (null for none), set and cleared
/// under the slot's lock before anyone else can hold the index: [`is_embedded`] reads it
/// without the lock (every unknown filter asks it, from every thread).
static HELD: [AtomicPtr<FilterIndex>; RELEASES.len()] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; RELEASES.len()];

/// The process-wide decoded index of a shipped release (`version` as in [`Selection::version`]).
/// Decoded once and shared until [`release_unused`] finds no holder but the cache. A version
/// that is not shipped, or an embedded file that fails to decode (prevented by tests), gives an
/// empty index so callers fail open.
pub fn embedded_index(version: &'static str) -> Arc<FilterIndex> {
    let Some(pos) = position(version) else {
        return Arc::new(FilterIndex::empty(version));
    };
    let mut held = slot(&CACHE[pos]);
    let index = held
        .get_or_insert_with(|| {
            Arc::new(
                super::split::load(&RELEASES[pos].split)
                    .unwrap_or_else(|| FilterIndex::empty(version)),
            )
        })
        .clone();
    HELD[pos].store(Arc::as_ptr(&index).cast_mut(), Ordering::Release);
    index
}

/// True when `index` is the shared decoded copy of a shipped release ([`embedded_index`]),
/// without decoding anything: a copy someone holds is never dropped from the cache.
pub fn is_embedded(index: &FilterIndex) -> bool {
    // The slot's address, not its lock: whoever holds `index` keeps it in the slot, so the
    // address read is the held one's.
    position(&index.netbox_version)
        .is_some_and(|pos| std::ptr::eq(index, HELD[pos].load(Ordering::Acquire)))
}

/// Drops the decoded index of every shipped release that nothing holds but the cache (the
/// language server calls it when no open document uses a release); the next
/// [`embedded_index`] decodes it again. Returns how many were dropped.
pub fn release_unused() -> usize {
    CACHE
        .iter()
        .zip(&HELD)
        .filter(|(m, address)| {
            let mut held = slot(m);
            let unused = held.as_ref().is_some_and(|a| Arc::strong_count(a) == 1);
            if unused {
                address.store(std::ptr::null_mut(), Ordering::Release);
                *held = None;
            }
            unused
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table with a beta beside the newest final release: the final release stays the
    /// default, the beta answers for its own version and stands in (with a note) for its minor
    /// and its final release until that is shipped.
    #[test]
    fn a_pre_release_is_shipped_beside_the_default() {
        let table = ["4.6.8", "4.7.3", "4.8.0b1"];
        let sel = |r: Option<&str>| select_in(&table, r).unwrap();
        assert_eq!(sel(None).version, "4.7.3");
        assert_eq!(sel(None).note, None);
        assert_eq!(sel(Some("4.8.0b1")).version, "4.8.0b1");
        assert_eq!(sel(Some("v4.8.0-beta1")).version, "4.8.0b1");
        assert_eq!(sel(Some("4.8.0b1")).approximate, None);
        for req in ["4.8", "4.8.0", "4.8.1", "4.8.0rc1", "5.0"] {
            let s = sel(Some(req));
            assert_eq!(s.version, "4.8.0b1", "{req}");
            assert_eq!(s.approximate.as_deref(), Some(req));
            assert!(
                s.note.unwrap().contains("using 4.8.0b1 (a pre-release)"),
                "{req}"
            );
        }
        assert_eq!(
            sel(Some("4.8.0a1")).version,
            "4.8.0b1",
            "an older pre-release"
        );
        assert_eq!(sel(Some("4.7")).version, "4.7.3");
        // Promoted: the final release replaces the beta and becomes the default.
        let promoted = ["4.6.8", "4.7.3", "4.8.0"];
        assert_eq!(select_in(&promoted, None).unwrap().version, "4.8.0");
        assert!(select_in(&[], None).is_err());
        let e = select_in(&table, Some("4.2")).unwrap_err();
        assert!(e.contains("4.6.8, 4.7.3, 4.8.0b1"), "{e}");
    }

    /// A shared decoded index stays while anyone holds it (and is recognised as shipped without
    /// decoding anything); a copy decoded apart is not the shipped one.
    #[test]
    fn a_held_index_is_never_dropped() {
        let held = embedded_index("4.5.10");
        let weak = Arc::downgrade(&held);
        release_unused();
        assert!(is_embedded(&held));
        assert!(Arc::ptr_eq(&held, &embedded_index("4.5.10")));
        assert!(!is_embedded(&load("4.5.10").unwrap()));
        drop(held);
        release_unused();
        // Dropped, unless another test holds it at this moment.
        if let Some(again) = weak.upgrade() {
            assert!(is_embedded(&again));
        }
    }

    #[test]
    fn the_table_is_in_version_order_and_the_default_is_final() {
        let v: Vec<Version> = versions().map(|v| Version::parse(v).unwrap()).collect();
        assert!(v.windows(2).all(|w| w[0] < w[1]));
        assert!(!version::is_pre_release(default_version()));
        assert_eq!(select(None).unwrap().version, default_version());
    }
}
