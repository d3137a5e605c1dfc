//! The index files shipped in `index/`, embedded in the binary, and version selection.
//!
//! Each file is built by `netbox-lsp index build --openapi ../shared/netbox/v<version>/openapi.json.gz`
//! (a test checks it still equals a fresh build when `../shared` is present).

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
    /// Set when the choice is not an exact match, e.g. "NetBox 4.3.5 is not shipped; using 4.3.3".
    pub note: Option<String>,
}

/// `4.6.8` → `[4, 6, 8]`; a leading `v` and a `-suffix`/`+suffix` (`4.3.3-Docker-3.3.0`) are
/// ignored. `None` unless it is two or three dot-separated numbers.
fn parse_version(v: &str) -> Option<Vec<u32>> {
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

/// Chooses a shipped release: `None` → newest; `4.3` → the newest 4.3.x; `4.3.3` → exact; a
/// version between two shipped ones → the nearest older one of the same minor release, with a
/// note. Errors (a message naming the shipped versions) when nothing fits.
///
/// Also: a leading `v` and a build suffix (`4.3.3-Docker-3.3.0`) are accepted; a patch release
/// older than every shipped one of its minor release (`4.3.1` when `4.3.3` is shipped) uses the
/// oldest shipped one of that minor release, with a note. Another minor or major release
/// (`4.7`, `5.0`, `3.7`) is an error.
pub fn select(requested: Option<&str>) -> Result<Selection, String> {
    let newest = RELEASES
        .last()
        .ok_or_else(|| "no NetBox release is shipped in this build".to_string())?;
    let Some(req) = requested.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(Selection {
            version: newest.version,
            note: None,
        });
    };
    let err = |why: &str| {
        format!(
            "NetBox {req}: {why}; shipped versions: {} (or build an index with `netbox-lsp index build`)",
            shipped_list()
        )
    };
    let want = parse_version(req).ok_or_else(|| err("not a version like 4.6 or 4.6.8"))?;
    let same_minor: Vec<(&'static str, Vec<u32>)> = RELEASES
        .iter()
        .filter_map(|r| Some((r.version, parse_version(r.version)?)))
        .filter(|(_, v)| v[..2] == want[..2])
        .collect();
    let Some(last) = same_minor.last() else {
        return Err(err("no release of this minor version is shipped"));
    };
    if want.len() == 2 {
        return Ok(Selection {
            version: last.0,
            note: None,
        });
    }
    if let Some((v, _)) = same_minor.iter().find(|(_, v)| *v == want) {
        return Ok(Selection {
            version: v,
            note: None,
        });
    }
    let older = same_minor.iter().rev().find(|(_, v)| *v < want);
    let (chosen, how) = match older {
        Some((v, _)) => (*v, "the nearest older release"),
        None => (
            same_minor[0].0,
            "the nearest release of the same minor version",
        ),
    };
    Ok(Selection {
        version: chosen,
        note: Some(format!(
            "NetBox {req} is not shipped; using {chosen} ({how})"
        )),
    })
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
