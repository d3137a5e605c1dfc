//! The NetBox GraphQL schemas shipped in `index/` (SDL, gzip; copied unchanged from
//! `netbox/v<version>/schema.graphql.gz`, as printed by each release's Strawberry), embedded in
//! the binary and built once per process on first use. Which releases they are is the release
//! table's ([`crate::index::embedded::RELEASES`], one schema per row).

use super::schema::{maybe_gunzip, NetboxSchema};
use crate::index::embedded::{position, RELEASES};
use std::sync::{Arc, Mutex, MutexGuard};

/// One built schema per [`RELEASES`] row, kept until [`release_unused`] drops it. A schema
/// that fails to build (prevented by `every_shipped_schema_builds`) is not kept.
static CACHE: [Mutex<Option<Arc<NetboxSchema>>>; RELEASES.len()] =
    [const { Mutex::new(None) }; RELEASES.len()];

/// Locks a cache slot, recovering from poisoning (a slot holds a finished value or nothing).
fn slot(i: usize) -> MutexGuard<'static, Option<Arc<NetboxSchema>>> {
    CACHE[i].lock().unwrap_or_else(|e| e.into_inner())
}

/// The shipped schema of NetBox `version` (exactly one of [`RELEASES`]' versions), built on the
/// first call and shared until [`release_unused`] finds no holder but the cache (later calls
/// are a clone of an `Arc`). The first call
/// costs the schema build (see `benches/graphql.rs`), so call it off the request path.
/// `None` for a version that is not shipped.
pub fn embedded_schema(version: &str) -> Option<Arc<NetboxSchema>> {
    let i = position(version)?;
    let release = &RELEASES[i];
    let mut held = slot(i);
    if held.is_none() {
        *held = build(release.version, release.schema_gz).ok().map(Arc::new);
    }
    held.clone()
}

/// Drops the built schema of every shipped release that nothing holds but the cache (the
/// language server calls it when no open document uses a release); the next
/// [`embedded_schema`] builds it again. Returns how many were dropped.
pub fn release_unused() -> usize {
    (0..RELEASES.len())
        .filter(|&i| {
            let mut held = slot(i);
            let unused = held.as_ref().is_some_and(|a| Arc::strong_count(a) == 1);
            if unused {
                *held = None;
            }
            unused
        })
        .count()
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
