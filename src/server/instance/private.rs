//! Files only the user may read: the instance cache and the approvals name the user's NetBox.

use std::path::Path;

/// Creates `dir` (and its missing parents) readable by the user only (0700 on Unix), and
/// makes an existing `dir` so: the cache and the approvals name the user's NetBox.
pub(super) fn private_dir(dir: &Path) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot create {}: {e}", dir.display());
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        b.mode(0o700);
        b.create(dir).map_err(fail)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(fail)
    }
    #[cfg(not(unix))]
    b.create(dir).map_err(fail)
}

/// Writes `data` to `path` through a temporary file beside it (mode 0600 on Unix) that is
/// renamed over it: readers see the old file or the new one, never a part.
pub(super) fn write_private(path: &Path, data: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let dir = path.parent().unwrap_or(Path::new("."));
    // A build killed between its write and its rename left its temporary file here.
    crate::leftovers::sweep(dir, ".netbox-lsp-");
    let mut tmp = tempfile::Builder::new()
        .prefix(".netbox-lsp-")
        .tempfile_in(dir)
        .map_err(fail)?; // 0600: tempfile creates it so
    tmp.write_all(data).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
