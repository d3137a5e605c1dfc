//! The index files shipped in `index/`, embedded in the binary, and version selection.
//! (Being written: the table is filled by the index builder work.)

/// One shipped NetBox release.
#[derive(Debug, Clone, Copy)]
pub struct Release {
    /// Full NetBox version, e.g. `4.6.8`.
    pub version: &'static str,
    /// The gzip-compressed index file (`index/netbox-<version>.index.json.gz`).
    pub index_gz: &'static [u8],
}

/// Shipped releases, oldest first.
pub const RELEASES: &[Release] = &[];

/// The result of choosing a shipped release for a requested version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// The shipped version chosen, e.g. `4.3.3`.
    pub version: &'static str,
    /// Set when the choice is not an exact match, e.g. "NetBox 4.3.5 is not shipped; using 4.3.3".
    pub note: Option<String>,
}

/// Chooses a shipped release: `None` → newest; `4.3` → the newest 4.3.x; `4.3.3` → exact; a
/// version between two shipped ones → the nearest older one of the same minor release, with a
/// note. Errors (a message naming the shipped versions) when nothing fits.
pub fn select(requested: Option<&str>) -> Result<Selection, String> {
    let _ = requested;
    Err("no NetBox release is shipped in this build".to_string())
}
