//! Reads the files a user or a workspace names as settings or knowledge (`--index`,
//! `--graphql-schema`, `--config`, the `index` / `graphql_schema` keys of `netbox-lsp.toml`)
//! or as the inputs of a command (`index info --index`, `index build --openapi` / `--graphql`
//! and its saved answers, `--ca-cert`): regular files only, each kind with a size cap. A FIFO would block the read until a writer
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
    /// An OpenAPI document (`index build --openapi`, JSON or gzip-compressed JSON): 64 MiB,
    /// [`crate::index::build::MAX_DOCUMENT_BYTES`] (the largest real one, NetBox 4.7.3's, is
    /// 14,598,122 bytes plain and 575,246 compressed). `--max-document-mib` reads larger ones
    /// through [`read_capped`].
    OpenApi,
    /// A saved answer of a NetBox (`index build --status`, `--custom-fields`,
    /// `--choice-sets`): 64 MiB, [`crate::index::limits::MAX_ANSWER_BYTES`], as for an answer
    /// fetched live.
    Answer,
    /// A PEM file of CA certificates (`--ca-cert`): 4 MiB (a whole system bundle is about
    /// 220 KB).
    CaCert,
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
            // The figures of `index::build` and `index::limits`, written here so that reading a
            // file does not depend on the index (a test keeps them equal).
            FileKind::OpenApi => 64 * 1024 * 1024,
            FileKind::Answer => 64 * 1024 * 1024,
            FileKind::CaCert => 4 * 1024 * 1024,
        }
    }

    fn name(self) -> &'static str {
        match self {
            FileKind::Index => "an index file",
            FileKind::Schema => "a GraphQL schema file",
            FileKind::Config => "a settings file",
            FileKind::Token => "a token file",
            FileKind::Baseline => "a baseline file",
            FileKind::OpenApi => "an OpenAPI document",
            FileKind::Answer => "a saved NetBox answer",
            FileKind::CaCert => "a CA certificate file",
        }
    }
}

/// The bytes of `path`, when it is a regular file (symbolic links followed) no larger than
/// `kind`'s cap ([`FileKind::cap`], bytes). Errors are one line, without the path (callers
/// name the file): a missing or unreadable file (the system's message), not a regular file
/// (a directory, a named pipe, a device: refused before it is opened), larger than the cap.
pub fn read(path: &Path, kind: FileKind) -> Result<Vec<u8>, String> {
    read_capped(path, kind, kind.cap())
}

/// [`read`] with a cap of `cap` bytes instead of `kind`'s (an option that raises it, as
/// `index build --max-document-mib` does); the same errors. Never more than `cap + 1` bytes
/// are read, whatever the file's length says (a file may grow while it is read).
pub fn read_capped(path: &Path, kind: FileKind, cap: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    check_meta(&meta, kind, cap)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // The file may have been swapped since the first look: look again at what was opened.
    check_meta(&file.metadata().map_err(|e| e.to_string())?, kind, cap)?;
    let mut out = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    if out.len() as u64 > cap {
        return Err(too_large(kind, cap));
    }
    Ok(out)
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path, kind: FileKind) -> Result<String, String> {
    String::from_utf8(read(path, kind)?).map_err(|_| "not valid UTF-8".to_string())
}

fn check_meta(meta: &std::fs::Metadata, kind: FileKind, cap: u64) -> Result<(), String> {
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
    if meta.len() > cap {
        return Err(too_large(kind, cap));
    }
    Ok(())
}

fn too_large(kind: FileKind, cap: u64) -> String {
    let hint = match kind {
        FileKind::OpenApi => {
            "; for a larger real document, raise the limit with --max-document-mib N"
        }
        _ => "",
    };
    format!(
        "larger than the {} {} may have{hint}",
        mib(cap),
        kind.name()
    )
}

/// `cap` bytes as people read a cap: `N MiB`, `N KiB` or `N bytes`.
pub(crate) fn mib(cap: u64) -> String {
    if cap >= 1024 * 1024 && cap.is_multiple_of(1024 * 1024) {
        format!("{} MiB", cap / (1024 * 1024))
    } else if cap >= 1024 && cap.is_multiple_of(1024) {
        format!("{} KiB", cap / 1024)
    } else {
        format!("{cap} bytes")
    }
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
    fn caps_agree_with_the_limits_on_documents() {
        assert_eq!(
            FileKind::OpenApi.cap(),
            crate::index::build::MAX_DOCUMENT_BYTES
        );
        assert_eq!(
            FileKind::Answer.cap(),
            crate::index::limits::MAX_ANSWER_BYTES
        );
    }

    /// Each kind's cap, with a file one byte over it (sparse: no disk used) refused before it
    /// is read, and its quiet twin, a file of exactly the cap's length, read when small
    /// enough to write: the caps of settings and certificates.
    #[test]
    fn files_over_the_cap_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                FileKind::Index,
                "larger than the 256 MiB an index file may have",
            ),
            (
                FileKind::Schema,
                "larger than the 64 MiB a GraphQL schema file may have",
            ),
            (
                FileKind::Config,
                "larger than the 1 MiB a settings file may have",
            ),
            (
                FileKind::Token,
                "larger than the 64 KiB a token file may have",
            ),
            (
                FileKind::Baseline,
                "larger than the 256 MiB a baseline file may have",
            ),
            (
                FileKind::OpenApi,
                "larger than the 64 MiB an OpenAPI document may have; for a larger real \
                 document, raise the limit with --max-document-mib N",
            ),
            (
                FileKind::Answer,
                "larger than the 64 MiB a saved NetBox answer may have",
            ),
            (
                FileKind::CaCert,
                "larger than the 4 MiB a CA certificate file may have",
            ),
        ];
        for (kind, message) in cases {
            let big = dir.path().join("big");
            std::fs::File::create(&big)
                .unwrap()
                .set_len(kind.cap() + 1)
                .unwrap();
            assert_eq!(read(&big, kind).unwrap_err(), message, "{kind:?}");
            if kind.cap() <= 4 * 1024 * 1024 {
                std::fs::File::create(&big)
                    .unwrap()
                    .set_len(kind.cap())
                    .unwrap();
                assert_eq!(
                    read(&big, kind).unwrap().len() as u64,
                    kind.cap(),
                    "{kind:?}"
                );
            }
        }
        // A cap given by an option: the file over it refused, its twin under it read.
        let doc = dir.path().join("doc.json");
        std::fs::write(&doc, vec![b' '; 2048]).unwrap();
        assert_eq!(
            read_capped(&doc, FileKind::OpenApi, 1024).unwrap_err(),
            "larger than the 1 KiB an OpenAPI document may have; for a larger real document, \
             raise the limit with --max-document-mib N"
        );
        assert_eq!(
            read_capped(&doc, FileKind::OpenApi, 2048).unwrap().len(),
            2048
        );
        let small = dir.path().join("small.toml");
        std::fs::write(&small, "x = 1\n").unwrap();
        assert_eq!(read_to_string(&small, FileKind::Config).unwrap(), "x = 1\n");
    }

    #[test]
    fn caps_are_said_in_their_unit() {
        for (cap, said) in [
            (256 * 1024 * 1024, "256 MiB"),
            (64 * 1024, "64 KiB"),
            (1536 * 1024, "1536 KiB"),
            (1000, "1000 bytes"),
        ] {
            assert_eq!(mib(cap), said);
        }
    }
}
