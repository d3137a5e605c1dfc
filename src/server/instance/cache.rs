//! The instance knowledge cached on disk: an index and a GraphQL schema trusted only as a pair.

use super::paths::cache_dir;
use super::private::{private_dir, write_private};
use crate::analysis::Knowledge;
use crate::index::load::{load_index, write_index};
use crate::index::FilterIndex;
use crate::safe_read::{read, FileKind};
use std::path::Path;
use std::sync::Arc;

pub(super) fn knowledge_of(index: FilterIndex, sdl: Option<&str>) -> Knowledge {
    let version = index.netbox_version.clone();
    let graphql = sdl
        .and_then(|s| crate::graphql::load_schema_file(s.as_bytes()).ok())
        .map(|mut s| {
            s.netbox_version = version;
            Arc::new(s)
        });
    Knowledge {
        index: Some(Arc::new(index)),
        graphql,
        ..Default::default()
    }
}

pub(super) fn load_cache(url: &str) -> Option<Knowledge> {
    let (index, sdl) = load_cache_in(&cache_dir(url)?, url)?;
    Some(knowledge_of(index, sdl.as_deref()))
}

/// The cached index and schema in `dir`, trusted only as a pair: the schema's gzip comment
/// must be the index's inputs hash (`instance.inputs_sha256`), so a write cut short between
/// the two files (the schema of one build, the index of another) is not used.
fn load_cache_in(dir: &Path, url: &str) -> Option<(FilterIndex, Option<String>)> {
    use std::io::Read;
    let index = load_index(&read(&dir.join("index.json.gz"), FileKind::Index).ok()?).ok()?;
    let stamp = index
        .instance
        .as_ref()
        .filter(|i| i.url == url)?
        .inputs_sha256
        .clone();
    let Ok(raw) = read(&dir.join("schema.graphql.gz"), FileKind::Schema) else {
        return Some((index, None));
    };
    let mut gz = flate2::read::GzDecoder::new(raw.as_slice());
    let mut text = String::new();
    gz.by_ref()
        .take(FileKind::Schema.cap())
        .read_to_string(&mut text)
        .ok()?;
    let comment = gz.header().and_then(|h| h.comment());
    (comment == Some(stamp.as_bytes())).then_some((index, Some(text)))
}

pub(super) fn save_cache(url: &str, index: &FilterIndex, sdl: Option<&str>) -> Result<(), String> {
    let dir = cache_dir(url).ok_or("no cache folder (HOME is not set)")?;
    save_cache_in(&dir, index, sdl)
}

/// Writes the cache in `dir` (user-only): the schema first, stamped with the index's inputs
/// hash as its gzip comment, then the index; see [`load_cache_in`].
fn save_cache_in(dir: &Path, index: &FilterIndex, sdl: Option<&str>) -> Result<(), String> {
    private_dir(dir)?;
    let stamp = index
        .instance
        .as_ref()
        .map(|i| i.inputs_sha256.clone())
        .unwrap_or_default();
    let schema = dir.join("schema.graphql.gz");
    match sdl {
        Some(sdl) => {
            let mut gz = flate2::GzBuilder::new()
                .comment(stamp.as_bytes())
                .write(Vec::new(), flate2::Compression::default());
            let data = std::io::Write::write_all(&mut gz, sdl.as_bytes())
                .and_then(|_| gz.finish())
                .map_err(|e| e.to_string())?;
            write_private(&schema, &data)?;
        }
        None => match std::fs::remove_file(&schema) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("cannot remove {}: {e}", schema.display()))
            }
            _ => {}
        },
    }
    write_private(&dir.join("index.json.gz"), &write_index(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamped(hash: &str) -> FilterIndex {
        let mut index = crate::index::embedded::load("4.6.8").unwrap();
        crate::index::instance::apply(
            &mut index,
            crate::index::instance::Instance {
                url: "https://nb.example".into(),
                inputs_sha256: hash.into(),
                ..Default::default()
            },
        );
        index
    }

    /// A write cut short between the schema and the index (the next build's schema beside
    /// the last build's index) is not trusted; a whole write is. Folder and files are the
    /// user's only.
    #[test]
    fn the_cache_is_one_unit_and_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("netbox-lsp/instance-x");
        let url = "https://nb.example";
        save_cache_in(&dir, &stamped("aaa"), Some("type Query { a: Int }")).unwrap();
        let (_, sdl) = load_cache_in(&dir, url).unwrap();
        assert_eq!(sdl.as_deref(), Some("type Query { a: Int }"));
        // The next build wrote its schema, then was killed before its index.
        let mut gz = flate2::GzBuilder::new()
            .comment("bbb")
            .write(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, b"type Query { b: Int }").unwrap();
        std::fs::write(dir.join("schema.graphql.gz"), gz.finish().unwrap()).unwrap();
        assert!(
            load_cache_in(&dir, url).is_none(),
            "a mixed pair is trusted"
        );
        save_cache_in(&dir, &stamped("bbb"), Some("type Query { b: Int }")).unwrap();
        let (index, sdl) = load_cache_in(&dir, url).unwrap();
        assert_eq!(index.instance.unwrap().inputs_sha256, "bbb");
        assert_eq!(sdl.as_deref(), Some("type Query { b: Int }"));
        // Without a schema, none is left beside the index.
        save_cache_in(&dir, &stamped("ccc"), None).unwrap();
        assert_eq!(load_cache_in(&dir, url).unwrap().1, None);
        assert!(load_cache_in(&dir, "https://other.example").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir), 0o700);
            assert_eq!(mode(&dir.join("index.json.gz")), 0o600);
            let names: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["index.json.gz"], "no temporary file left");
        }
    }
}
