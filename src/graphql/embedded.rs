//! The NetBox GraphQL schemas shipped in `index/` (SDL, gzip; copied unchanged from
//! `netbox/v<version>/schema.graphql.gz`, as printed by each release's Strawberry), embedded in
//! the binary and built once per process on first use.

use super::schema::{maybe_gunzip, NetboxSchema};
use std::sync::{Arc, OnceLock};

/// Shipped schemas, oldest first: `(version, gzip SDL)`. The version strings are the ones
/// `crate::index::embedded::select()` returns.
pub const SCHEMAS: &[(&str, &[u8])] = &[
    (
        "4.3.3",
        include_bytes!("../../index/netbox-4.3.3.schema.graphql.gz"),
    ),
    (
        "4.4.10",
        include_bytes!("../../index/netbox-4.4.10.schema.graphql.gz"),
    ),
    (
        "4.5.10",
        include_bytes!("../../index/netbox-4.5.10.schema.graphql.gz"),
    ),
    (
        "4.6.8",
        include_bytes!("../../index/netbox-4.6.8.schema.graphql.gz"),
    ),
];

type Slot = OnceLock<Option<Arc<NetboxSchema>>>;
static CACHE: [Slot; 4] = [
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
];

/// The shipped schema of NetBox `version` (exactly one of [`SCHEMAS`]' versions), built on the
/// first call and cached for the process (later calls are a clone of an `Arc`). The first call
/// costs the schema build (see `benches/graphql.rs`), so call it off the request path.
/// `None` for a version that is not shipped.
pub fn embedded_schema(version: &str) -> Option<Arc<NetboxSchema>> {
    let i = SCHEMAS.iter().position(|(v, _)| *v == version)?;
    CACHE[i]
        .get_or_init(|| build(SCHEMAS[i].0, SCHEMAS[i].1).ok().map(Arc::new))
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

/// Versions of the shipped schemas, oldest first.
pub fn versions() -> impl Iterator<Item = &'static str> {
    SCHEMAS.iter().map(|(v, _)| *v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_schema_builds() {
        assert_eq!(SCHEMAS.len(), CACHE.len());
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
    }
}
