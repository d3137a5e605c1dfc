//! The NetBox GraphQL schemas shipped in `index/` (SDL, gzip; copied unchanged from
//! `netbox/v<version>/schema.graphql.gz`, as printed by each release's Strawberry), embedded in
//! the binary and built once per process on first use. Which releases they are is the release
//! table's ([`crate::index::embedded::RELEASES`], one schema per row).

use super::schema::{maybe_gunzip, NetboxSchema};
use crate::index::embedded::{position, RELEASES};
use std::sync::{Arc, OnceLock};

type Slot = OnceLock<Option<Arc<NetboxSchema>>>;
/// One built schema per [`RELEASES`] row.
static CACHE: [Slot; RELEASES.len()] = [const { OnceLock::new() }; RELEASES.len()];

/// The shipped schema of NetBox `version` (exactly one of [`RELEASES`]' versions), built on the
/// first call and cached for the process (later calls are a clone of an `Arc`). The first call
/// costs the schema build (see `benches/graphql.rs`), so call it off the request path.
/// `None` for a version that is not shipped.
pub fn embedded_schema(version: &str) -> Option<Arc<NetboxSchema>> {
    let i = position(version)?;
    let release = &RELEASES[i];
    CACHE[i]
        .get_or_init(|| build(release.version, release.schema_gz).ok().map(Arc::new))
        .clone()
}

/// Builds a shipped schema without the cache (benchmarks, tests).
pub fn build(version: &str, gz: &[u8]) -> Result<NetboxSchema, String> {
    let bytes = maybe_gunzip(gz)?;
    let sdl = std::str::from_utf8(&bytes).map_err(|e| e.to_string())?;
    let mut schema = NetboxSchema::from_sdl(sdl, version)?;
    schema.stock = true;
    Ok(schema)
}

/// Versions of the shipped schemas, oldest first (every shipped release has one).
pub fn versions() -> impl Iterator<Item = &'static str> {
    crate::index::embedded::versions()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_schema_builds() {
        for v in versions() {
            let s = embedded_schema(v).unwrap_or_else(|| panic!("{v} does not build"));
            assert_eq!(s.netbox_version, v);
            assert!(s.schema.get_object("Query").is_some());
        }
        assert!(embedded_schema("4.2.0").is_none());
        assert!(!embedded_schema("4.3.3").unwrap().pagination_has_start);
        assert!(embedded_schema("4.5.10").unwrap().pagination_has_start);
        assert!(embedded_schema("4.6.8").unwrap().caps_unpaginated_lists());
        assert!(!embedded_schema("4.4.10").unwrap().caps_unpaginated_lists());
        assert!(embedded_schema("4.7.3").unwrap().caps_unpaginated_lists());
    }
}
