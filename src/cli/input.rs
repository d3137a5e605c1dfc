//! File input of `check`, `check --live` and `check --upgrade-to`: reading a file or standard
//! input, telling text from binary and decoding it (UTF-8, UTF-16/32), what is said about named
//! folders and excludes, and the byte-order mark in the text output's columns.

use super::output::{self, Located};
use super::paths::display_path;
use super::CheckArgs;
use std::path::Path;

/// Files checked at once on all cores before their findings are written: enough to keep the
/// cores busy, few enough that memory holds one batch's findings, not the run's.
pub const BATCH: usize = 512;

/// Standard input named as `-`: its bytes, the host kind and the path shown for it.
pub(super) struct Stdin {
    pub bytes: Vec<u8>,
    pub kind: crate::extract::HostKind,
    /// `--stdin-filename` as shown in the output, else `-`.
    pub shown: String,
}

/// Most bytes read from standard input (a stream that never ends is refused, not buffered).
const STDIN_CAP: u64 = 256 * 1024 * 1024;

/// Reads standard input when `-` is among the paths. Its kind is that of `--stdin-filename`'s
/// extension (any other name, or none: Markdown, which also reads URLs and fences in prose).
/// `--fix` cannot write back to a pipe: a usage error (`--diff` works).
pub(super) fn stdin_input(args: &CheckArgs, named: bool) -> Result<Option<Stdin>, String> {
    if !named {
        if args.stdin_filename.is_some() {
            eprintln!("netbox-lsp: note: --stdin-filename is used only with `-` among the paths");
        }
        return Ok(None);
    }
    if args.fix {
        return Err("--fix cannot write back to standard input (`-`); use --diff".into());
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::io::stdin().lock(), STDIN_CAP + 1),
        &mut bytes,
    )
    .map_err(|e| format!("reading standard input: {e}"))?;
    if bytes.len() as u64 > STDIN_CAP {
        return Err(format!(
            "standard input is larger than {} MiB",
            STDIN_CAP / 1024 / 1024
        ));
    }
    let name = args.stdin_filename.as_deref();
    Ok(Some(Stdin {
        bytes,
        kind: name
            .and_then(crate::extract::HostKind::from_path)
            .unwrap_or(crate::extract::HostKind::Markdown),
        shown: name.map_or_else(|| "-".to_string(), display_path),
    }))
}

/// The bytes of the regular file at `path` (shown as `shown`); errors are one-line messages
/// naming the file. A named pipe or device named on the command line would block or never
/// end: it is refused as not a regular file.
///
/// A file found by walking a folder (`walked`) was no symbolic link then (links are not
/// followed by the walk): on Linux it is opened without following one, so a file swapped for
/// a link during the run is not read through it.
pub(super) fn read_regular(path: &Path, shown: &str, walked: bool) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(target_os = "linux")]
    if walked {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = walked;
    let mut file = open.open(path).map_err(|e| {
        #[cfg(target_os = "linux")]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return format!(
                "{shown}: is a symbolic link now (it was not when the folder was walked); not read"
            );
        }
        format!("{shown}: {e}")
    })?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|e| format!("{shown}: {e}"))?;
    Ok(bytes)
}

/// The text `check` reads from the bytes of `shown` ([`decode`]): `None` for a binary file
/// and for a report netbox-lsp wrote ([`super::own_report`]), with a note for them and for invalid UTF-8 (whose bytes are replaced by U+FFFD) in `notes`.
pub(super) fn text_noting(shown: &str, bytes: &[u8], notes: &mut Vec<String>) -> Option<String> {
    noting(shown, decode(bytes), notes)
}

/// [`text_noting`] of bytes the caller gives up: UTF-8 becomes the text without a copy (a file
/// of 100,000 tool calls held 8.6 MB twice).
pub(super) fn text_noting_owned(
    shown: &str,
    bytes: Vec<u8>,
    notes: &mut Vec<String>,
) -> Option<String> {
    noting(shown, decode_owned(bytes), notes)
}

/// The text of `decoded`, saying in `notes` why there is none or why it is not the bytes.
fn noting(shown: &str, decoded: Decoded, notes: &mut Vec<String>) -> Option<String> {
    match decoded {
        Decoded::Binary => {
            notes.push(format!("{shown}: binary file skipped"));
            None
        }
        Decoded::Lossy(text) => {
            notes.push(format!(
                "{shown}: not valid UTF-8; invalid bytes were replaced by U+FFFD"
            ));
            Some(text)
        }
        Decoded::Utf8(text) | Decoded::Transcoded(text, _) => {
            match super::own_report::kind(&text) {
                // Checking it would report every finding again, inside the report.
                Some(what) => {
                    notes.push(format!("{shown}: a netbox-lsp {what} report, not checked"));
                    None
                }
                None => Some(text),
            }
        }
    }
}

/// Text-output columns of findings in a file that starts with a byte-order mark: the mark is
/// not counted on the first line (editors that people read the columns in hide it).
pub(super) fn hide_bom(located: &mut [Located]) {
    let hide = |p: &mut output::Pos| {
        if p.line == 0 {
            p.char_col = p.char_col.saturating_sub(1);
        }
    };
    for l in located {
        hide(&mut l.span.start);
        hide(&mut l.span.end);
        // An edit's range is in UTF-16 columns only (`LspSpan`), which count the mark.
    }
}

/// [`hide_bom`] for the sites not checked.
pub(super) fn hide_bom_skipped(skipped: &mut [output::Skipped]) {
    for s in skipped {
        for p in [&mut s.span.start, &mut s.span.end] {
            if p.line == 0 {
                p.char_col = p.char_col.saturating_sub(1);
            }
        }
    }
}

/// File bytes as text.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A NUL byte in the first 8 KB: not checked.
    Binary,
    Utf8(String),
    /// Invalid UTF-8, decoded with U+FFFD replacements (positions refer to the decoded text).
    Lossy(String),
    /// UTF-16 or UTF-32 text with a byte-order mark (the encoding's name, `UTF-16LE`), decoded
    /// (the mark kept as U+FEFF, like a UTF-8 one; bad units as U+FFFD). Checked, never fixed:
    /// fixes are written as UTF-8.
    Transcoded(String, &'static str),
}

/// Tells binary from text and decodes text.
pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some(t) = by_byte_order_mark(bytes) {
        return t;
    }
    if crate::analysis::is_binary(bytes) {
        return utf16_without_mark(bytes).unwrap_or(Decoded::Binary);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Decoded::Utf8(s.to_string()),
        Err(_) => Decoded::Lossy(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// [`decode`] of bytes the caller gives up: UTF-8 (most files) is kept as it is, not copied.
pub fn decode_owned(bytes: Vec<u8>) -> Decoded {
    if let Some(t) = by_byte_order_mark(&bytes) {
        return t;
    }
    if crate::analysis::is_binary(&bytes) {
        return utf16_without_mark(&bytes).unwrap_or(Decoded::Binary);
    }
    match String::from_utf8(bytes) {
        Ok(s) => Decoded::Utf8(s),
        Err(e) => Decoded::Lossy(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// UTF-32 (checked first: its little-endian mark starts like UTF-16's) or UTF-16 text, told by
/// its byte-order mark; `None` without one (such text has NULs and counts as binary).
fn by_byte_order_mark(b: &[u8]) -> Option<Decoded> {
    let (name, width, big) = match b {
        [0xFF, 0xFE, 0, 0, ..] => ("UTF-32LE", 4, false),
        [0, 0, 0xFE, 0xFF, ..] => ("UTF-32BE", 4, true),
        [0xFF, 0xFE, ..] => ("UTF-16LE", 2, false),
        [0xFE, 0xFF, ..] => ("UTF-16BE", 2, true),
        _ => return None,
    };
    let text: String = if width == 2 {
        let units = b.chunks(2).map(|c| match (c, big) {
            ([x, y], true) => u16::from_be_bytes([*x, *y]),
            ([x, y], false) => u16::from_le_bytes([*x, *y]),
            _ => 0xFFFD, // an odd last byte
        });
        char::decode_utf16(units)
            .map(|r| r.unwrap_or('\u{fffd}'))
            .collect()
    } else {
        b.chunks(4)
            .map(|c| {
                let v = match (<[u8; 4]>::try_from(c), big) {
                    (Ok(a), true) => u32::from_be_bytes(a),
                    (Ok(a), false) => u32::from_le_bytes(a),
                    _ => 0xFFFD,
                };
                char::from_u32(v).unwrap_or('\u{fffd}')
            })
            .collect()
    };
    Some(Decoded::Transcoded(text, name))
}

/// UTF-16 text without a byte-order mark (Windows tools write it so), told by its NULs: in the
/// first [`crate::analysis::BINARY_SNIFF`] bytes, every unit's high byte is NUL at the odd
/// (little-endian) or even (big-endian) offsets and no other byte is, as for text that is mostly
/// ASCII; decoded like a marked file. `None` for anything else (a binary file).
fn utf16_without_mark(bytes: &[u8]) -> Option<Decoded> {
    let head = &bytes[..bytes.len().min(crate::analysis::BINARY_SNIFF) & !1];
    if head.len() < 4 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units = head.len() / 2;
    let nul_at = |parity: usize| {
        head.iter()
            .skip(parity)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let (even, odd) = (nul_at(0), nul_at(1));
    // Mostly ASCII: the high byte of nine units in ten is NUL, the low byte never is.
    let (name, mark): (&str, [u8; 2]) = if even == 0 && odd * 10 >= units * 9 {
        ("UTF-16LE (no byte-order mark)", [0xFF, 0xFE])
    } else if odd == 0 && even * 10 >= units * 9 {
        ("UTF-16BE (no byte-order mark)", [0xFE, 0xFF])
    } else {
        return None;
    };
    let mut marked = Vec::with_capacity(bytes.len() + 2);
    marked.extend_from_slice(&mark);
    marked.extend_from_slice(bytes);
    match by_byte_order_mark(&marked)? {
        // The mark added here is no part of the file: positions are the file's.
        Decoded::Transcoded(text, _) => Some(Decoded::Transcoded(
            text.strip_prefix('\u{feff}').unwrap_or(&text).to_string(),
            name,
        )),
        _ => None,
    }
}

/// The stderr notes for `--exclude` globs that matched nothing (`check` and `check
/// --upgrade-to`).
pub(super) fn say_unused_excludes(globs: &[String]) {
    for g in globs {
        let read = crate::config::exclude_pattern(g);
        let shown = if read == *g {
            String::new()
        } else {
            format!(" (read as {read})")
        };
        super::say::note(format!(
            "--exclude {g}{shown} matched no path under the named folders"
        ));
    }
}

/// The stderr note for a named folder with no file the tool reads, so that "0 errors" never
/// hides "nothing read" (`check` and `check --upgrade-to`).
pub(super) fn say_empty_folder(dir: &std::path::Path) {
    eprintln!(
        "netbox-lsp: note: {}: no file here has an extension netbox-lsp reads ({})",
        super::output::escape::text(&display_path(dir)),
        crate::extract::EXTENSIONS
            .iter()
            .map(|e| format!(".{e}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
}

/// `check --explain CODE...`: when every path named is a diagnostic code and no such file
/// exists, the codes' pages are printed (as `netbox-lsp rule CODE`); the exit code, else `None`.
pub(super) fn explained_code(args: &CheckArgs) -> Option<i32> {
    if !args.explain || args.paths.is_empty() {
        return None;
    }
    let codes = args.paths.iter().all(|p| {
        crate::catalogue::get(&p.to_string_lossy()).is_some()
            && std::fs::symlink_metadata(p).is_err()
    });
    if !codes {
        return None;
    }
    let mut out = 0;
    for (i, p) in args.paths.iter().enumerate() {
        if i > 0 {
            println!();
        }
        out = out.max(super::rule::print(&p.to_string_lossy()));
    }
    Some(out)
}

/// Says which named paths do not exist (a clear error each, naming `netbox-lsp rule CODE` for a
/// diagnostic code given as a path); true when any is missing, and then nothing is checked.
pub(super) fn missing_paths(args: &CheckArgs) -> bool {
    let mut missing = false;
    for p in args.paths.iter().filter(|p| p.as_os_str() != "-") {
        if let Err(e) = std::fs::symlink_metadata(p) {
            missing = true;
            let shown = display_path(p);
            let hint = if crate::catalogue::get(&shown).is_some() {
                format!(" (`{shown}` is a diagnostic code: `netbox-lsp rule {shown}` explains it)")
            } else {
                String::new()
            };
            let why = if e.kind() == std::io::ErrorKind::NotFound {
                "no such file or folder".to_string()
            } else {
                e.to_string()
            };
            super::say::error(format!("{shown}: {why}{hint}"));
        }
    }
    if missing {
        super::say::error("nothing was checked");
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::BINARY_SNIFF;

    #[test]
    fn decodes_binary_lossy_and_utf8() {
        assert_eq!(decode(b"a\0b"), Decoded::Binary);
        assert_eq!(decode(b"caf\xc3\xa9"), Decoded::Utf8("café".into()));
        assert_eq!(decode(b"a\xffb"), Decoded::Lossy("a\u{fffd}b".into()));
        for b in [&b"a\0b"[..], b"caf\xc3\xa9", b"a\xffb", b"\xff\xfea\0"] {
            assert_eq!(decode_owned(b.to_vec()), decode(b));
        }
        // A NUL after the first 8 KB does not make a file binary.
        let mut late = vec![b'a'; BINARY_SNIFF];
        late.push(0);
        assert!(matches!(decode(&late), Decoded::Utf8(_)));
    }

    /// UTF-16 and UTF-32 with a byte-order mark, both byte orders, are decoded (the mark kept,
    /// an astral character through a surrogate pair, an odd last byte as U+FFFD).
    #[test]
    fn decodes_utf16_and_utf32_by_their_mark() {
        let text = "\u{feff}`/api/dcim/devices/?rol=x` \u{1f600}é";
        let le16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be16: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let le32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        let be32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        for (bytes, name) in [
            (le16, "UTF-16LE"),
            (be16, "UTF-16BE"),
            (le32, "UTF-32LE"),
            (be32, "UTF-32BE"),
        ] {
            assert_eq!(decode(&bytes), Decoded::Transcoded(text.into(), name));
        }
        let mut odd: Vec<u8> = "\u{feff}a"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        odd.push(b'b');
        assert_eq!(
            decode(&odd),
            Decoded::Transcoded("\u{feff}a\u{fffd}".into(), "UTF-16LE")
        );
    }
}
