//! Reads the files a user or a workspace names as settings or knowledge (`--index`,
//! `--graphql-schema`, `--config`, the `index` / `graphql_schema` keys of `netbox-lsp.toml`):
//! regular files only, each kind with a size cap. A FIFO would block the read until a writer
//! comes (hanging `check`, and every editor request waiting for the knowledge), and
//! `/dev/zero` never ends; both are refused with a message that says why, before anything is
//! opened.

use std::io::Read;
use std::path::Path;

/// What a file is read as, which sets its size cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A filter index (`index build` output, gzip-compressed JSON or plain JSON): 256 MiB.
    Index,
    /// A GraphQL schema (SDL or introspection JSON, `.gz` accepted): 64 MiB.
    Schema,
    /// A `netbox-lsp.toml` settings file: 1 MiB.
    Config,
    /// An API token file (`--token-file`, `instance.tokenFile`): 64 KiB.
    Token,
    /// A `check --baseline` file (JSON): 256 MiB.
    Baseline,
}

impl FileKind {
    /// Largest file read, in bytes.
    pub fn cap(self) -> u64 {
        match self {
            FileKind::Index => 256 * 1024 * 1024,
            FileKind::Schema => 64 * 1024 * 1024,
            FileKind::Config => 1024 * 1024,
            FileKind::Token => 64 * 1024,
            FileKind::Baseline => 256 * 1024 * 1024,
        }
    }

    fn name(self) -> &'static str {
        match self {
            FileKind::Index => "an index file",
            FileKind::Schema => "a GraphQL schema file",
            FileKind::Config => "a settings file",
            FileKind::Token => "a token file",
            FileKind::Baseline => "a baseline file",
        }
    }
}

/// The bytes of `path`, when it is a regular file (symbolic links followed) no larger than
/// `kind`'s cap. Errors are one line, without the path (callers name the file).
pub fn read(path: &Path, kind: FileKind) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    check_meta(&meta, kind)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // The file may have been swapped since the first look: look again at what was opened.
    check_meta(&file.metadata().map_err(|e| e.to_string())?, kind)?;
    let mut out = Vec::with_capacity(meta.len() as usize);
    file.take(kind.cap() + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    if out.len() as u64 > kind.cap() {
        return Err(too_large(kind));
    }
    Ok(out)
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path, kind: FileKind) -> Result<String, String> {
    String::from_utf8(read(path, kind)?).map_err(|_| "not valid UTF-8".to_string())
}

fn check_meta(meta: &std::fs::Metadata, kind: FileKind) -> Result<(), String> {
    let t = meta.file_type();
    if !t.is_file() {
        let what = if t.is_dir() {
            "a directory"
        } else {
            special_kind(&t)
        };
        return Err(format!(
            "not a regular file ({what}); {} must be a regular file",
            kind.name()
        ));
    }
    if meta.len() > kind.cap() {
        return Err(too_large(kind));
    }
    Ok(())
}

fn too_large(kind: FileKind) -> String {
    format!(
        "larger than the {} MiB {} may have",
        kind.cap() / (1024 * 1024),
        kind.name()
    )
}

#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a named pipe"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_before_they_are_opened() {
        #[cfg(unix)]
        {
            let e = read(Path::new("/dev/zero"), FileKind::Index).unwrap_err();
            assert!(e.contains("character device"), "{e}");
            let dir = tempfile::tempdir().unwrap();
            let fifo = dir.path().join("fifo");
            let ok = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                // Opening it would block until a writer comes: refused without opening.
                let e = read(&fifo, FileKind::Config).unwrap_err();
                assert!(e.contains("named pipe"), "{e}");
            } else {
                eprintln!("SKIPPED: mkfifo is not available");
            }
        }
        let e = read(Path::new("."), FileKind::Schema).unwrap_err();
        assert!(e.contains("directory"), "{e}");
    }

    #[test]
    fn files_over_the_cap_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.toml");
        std::fs::write(&big, vec![b'#'; (FileKind::Config.cap() + 1) as usize]).unwrap();
        assert!(read(&big, FileKind::Config).unwrap_err().contains("1 MiB"));
        let small = dir.path().join("small.toml");
        std::fs::write(&small, "x = 1\n").unwrap();
        assert_eq!(read_to_string(&small, FileKind::Config).unwrap(), "x = 1\n");
    }
}
