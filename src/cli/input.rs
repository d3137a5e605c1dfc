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

/// Largest file `check`, `check --live` and `check --upgrade-to` read (bytes): 256 MiB. Files
/// above [`crate::extract::parse::MAX_PARSE`] (32 MiB) are still read, for their REST URLs
/// ([`crate::analysis::structural_limit`]); a larger one is an error naming it, unread (text
/// that is not checked must not pass as checked: the run exits 2, the other files checked).
pub const MAX_INPUT: u64 = 256 * 1024 * 1024;

/// The bytes of the regular file at `path` (shown as `shown`), or `None` with a note in
/// `notes` for a binary file, skipped unread: told from its first
/// [`crate::analysis::BINARY_SNIFF`] bytes as [`decode`] tells it (only those are read).
/// Errors are one-line messages naming the file, among them a file larger than [`MAX_INPUT`]
/// bytes (refused before it is opened, or once it grows past it while read). A named pipe or device
/// named on the command line would block or never end: it is refused as not a regular file.
///
/// A file found by walking a folder (`walked`) was no symbolic link then (links are not
/// followed by the walk): on Linux it is opened without following one, so a file swapped for
/// a link during the run is not read through it.
pub(super) fn read_regular(
    path: &Path,
    shown: &str,
    walked: bool,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<u8>>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    if meta.len() > MAX_INPUT {
        return Err(too_large(shown, MAX_INPUT));
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
    let file = open.open(path).map_err(|e| {
        #[cfg(target_os = "linux")]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return format!(
                "{shown}: is a symbolic link now (it was not when the folder was walked); not read"
            );
        }
        format!("{shown}: {e}")
    })?;
    let len = file.metadata().map_or(meta.len(), |m| m.len());
    if len > MAX_INPUT {
        return Err(too_large(shown, MAX_INPUT));
    }
    read_bounded(file, len, MAX_INPUT, shown, notes)
}

/// The bytes of `file` (`len` bytes long when it was opened), reading at most `cap` + 1 bytes
/// whatever it holds by then: its head first, and the rest only when the head does not make
/// it binary; `None` with a note, or an error past `cap`, as in [`read_regular`] (`cap` is
/// [`MAX_INPUT`] there).
fn read_bounded(
    file: impl std::io::Read,
    len: u64,
    cap: u64,
    shown: &str,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<u8>>, String> {
    use std::io::Read;
    let sniff = crate::analysis::BINARY_SNIFF as u64;
    let mut file = file.take(cap.saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(len.min(cap)).unwrap_or(0));
    (&mut file)
        .take(sniff)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: {e}"))?;
    if binary_by_head(&bytes) {
        notes.push(binary_note(shown));
        return Ok(None);
    }
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: {e}"))?;
    if bytes.len() as u64 > cap {
        // It grew past the limit while it was read.
        return Err(too_large(shown, cap));
    }
    Ok(Some(bytes))
}

/// The error for a file larger than `cap` bytes ([`MAX_INPUT`]).
fn too_large(shown: &str, cap: u64) -> String {
    format!(
        "{shown}: larger than {}, the most netbox-lsp reads of one file; not checked",
        crate::safe_read::mib(cap)
    )
}

/// The note for a binary file.
fn binary_note(shown: &str) -> String {
    format!("{shown}: binary file skipped")
}

/// True when [`decode`] tells any file starting with `head` binary, whatever follows: `head`
/// is the file's first [`crate::analysis::BINARY_SNIFF`] bytes (all of a shorter file), with
/// a NUL byte, no byte-order mark, and not the NULs of UTF-16 text without a mark (whose
/// decoding also depends on the file's length: left to [`decode`]).
fn binary_by_head(head: &[u8]) -> bool {
    byte_order_mark(head).is_none()
        && crate::analysis::is_binary(head)
        && utf16_shape(head).is_none()
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
            notes.push(binary_note(shown));
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
    let (name, width, big) = byte_order_mark(b)?;
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

/// The encoding `b` starts with the byte-order mark of (its name, its unit's width in bytes,
/// and whether it is big-endian), if any.
fn byte_order_mark(b: &[u8]) -> Option<(&'static str, usize, bool)> {
    match b {
        [0xFF, 0xFE, 0, 0, ..] => Some(("UTF-32LE", 4, false)),
        [0, 0, 0xFE, 0xFF, ..] => Some(("UTF-32BE", 4, true)),
        [0xFF, 0xFE, ..] => Some(("UTF-16LE", 2, false)),
        [0xFE, 0xFF, ..] => Some(("UTF-16BE", 2, true)),
        _ => None,
    }
}

/// UTF-16 text without a byte-order mark (Windows tools write it so), told by its NULs: in the
/// first [`crate::analysis::BINARY_SNIFF`] bytes, every unit's high byte is NUL at the odd
/// (little-endian) or even (big-endian) offsets and no other byte is, as for text that is mostly
/// ASCII; decoded like a marked file. `None` for anything else (a binary file).
fn utf16_without_mark(bytes: &[u8]) -> Option<Decoded> {
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let (name, mark) = utf16_shape(bytes)?;
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

/// The NULs of UTF-16 text without a byte-order mark in the first
/// [`crate::analysis::BINARY_SNIFF`] bytes of `bytes` (see [`utf16_without_mark`], which also
/// wants an even length): the encoding's name and the mark it would have.
fn utf16_shape(bytes: &[u8]) -> Option<(&'static str, [u8; 2])> {
    let head = &bytes[..bytes.len().min(crate::analysis::BINARY_SNIFF) & !1];
    if head.len() < 4 {
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
    if even == 0 && odd * 10 >= units * 9 {
        Some(("UTF-16LE (no byte-order mark)", [0xFF, 0xFE]))
    } else if odd == 0 && even * 10 >= units * 9 {
        Some(("UTF-16BE (no byte-order mark)", [0xFE, 0xFF]))
    } else {
        None
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

    /// A reader of `head` then endless `fill` bytes that counts what was read from it.
    struct Counted<'a> {
        head: &'a [u8],
        fill: u8,
        read: &'a std::cell::Cell<usize>,
    }

    impl std::io::Read for Counted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = if self.head.is_empty() {
                buf.fill(self.fill);
                buf.len()
            } else {
                let n = self.head.len().min(buf.len());
                buf[..n].copy_from_slice(&self.head[..n]);
                self.head = &self.head[n..];
                n
            };
            self.read.set(self.read.get() + n);
            Ok(n)
        }
    }

    /// Whatever a file holds, [`read_bounded`] gives its bytes exactly when [`decode`] does
    /// not call them binary, and otherwise the binary note, from the head alone: binary
    /// files, their quiet twins (a NUL after the head, byte-order marks, UTF-16 without a
    /// mark of even length; of odd length it is binary, told after the whole is read), and
    /// short and empty files.
    #[test]
    fn binary_is_told_from_the_head_as_decode_tells_it() {
        let utf16: Vec<u8> = "GET /api/dcim/devices/?rol=x\n"
            .repeat(400)
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let mut utf16_odd = utf16.clone();
        utf16_odd.push(b'a');
        let mut late_nul = vec![b'a'; BINARY_SNIFF];
        late_nul.push(0);
        let mut big_binary = vec![b'a'; 4 * BINARY_SNIFF];
        big_binary[BINARY_SNIFF - 1] = 0;
        // (what, bytes, binary by `decode`, told from the head alone)
        let cases: Vec<(&str, Vec<u8>, bool, bool)> = vec![
            (
                "NUL in the head",
                b"PK\x03\x04\0\0device_role_id\0".to_vec(),
                true,
                true,
            ),
            ("NUL at the head's last byte", big_binary, true, true),
            ("NUL after the head", late_nul, false, false),
            (
                "UTF-8",
                "caf\u{e9} `/api/`".as_bytes().to_vec(),
                false,
                false,
            ),
            ("invalid UTF-8", b"a\xffb".to_vec(), false, false),
            ("UTF-16LE mark", b"\xff\xfea\0b\0".to_vec(), false, false),
            (
                "UTF-32BE mark",
                b"\0\0\xfe\xff\0\0\0a".to_vec(),
                false,
                false,
            ),
            ("UTF-16 without a mark", utf16, false, false),
            ("UTF-16 without a mark, odd length", utf16_odd, true, false),
            ("one NUL", vec![0], true, true),
            ("empty", Vec::new(), false, false),
        ];
        for (what, bytes, binary, by_head) in cases {
            assert_eq!(decode(&bytes) == Decoded::Binary, binary, "{what}");
            let mut notes = Vec::new();
            let got =
                read_bounded(&bytes[..], bytes.len() as u64, MAX_INPUT, "f", &mut notes).unwrap();
            if by_head {
                assert!(got.is_none(), "{what}");
                assert_eq!(notes, ["f: binary file skipped"], "{what}");
            } else {
                // Read whole; `decode` then tells it as before.
                assert!(got.as_deref() == Some(&bytes[..]), "{what}");
                assert!(notes.is_empty(), "{what}: {notes:?}");
            }
        }
    }

    /// A binary file is read no further than its head, and a file that grows (or a stream
    /// that never ends) no further than one byte past the cap, with the note naming the file
    /// and the cap; its quiet twin, a file of exactly the cap, is read whole.
    #[test]
    fn reads_stop_at_the_head_of_binary_and_past_the_cap() {
        let cap = 64 * 1024;
        let cases: Vec<(&str, &[u8], u8, usize, &str)> = vec![
            (
                "binary head, endless",
                b"\0",
                0,
                BINARY_SNIFF,
                "big.md: binary file skipped",
            ),
            (
                "text that grows without end",
                b"# notes\n",
                b'a',
                cap + 1,
                "big.md: larger than 64 KiB, the most netbox-lsp reads of one file; not checked",
            ),
        ];
        for (what, head, fill, most, said) in cases {
            let read = std::cell::Cell::new(0);
            let mut notes = Vec::new();
            let reader = Counted {
                head,
                fill,
                read: &read,
            };
            let got = read_bounded(reader, 10, cap as u64, "big.md", &mut notes);
            assert!(read.get() <= most, "{what}: {} bytes read", read.get());
            match got {
                // The binary head: skipped with a note.
                Ok(None) => assert_eq!(notes, [said], "{what}"),
                // Past the cap: an error, no note.
                Err(e) => assert!(e == said && notes.is_empty(), "{what}: {e} {notes:?}"),
                Ok(Some(b)) => panic!("{what}: {} bytes read whole", b.len()),
            }
        }
        // The quiet twin: exactly the cap.
        let full = vec![b'a'; cap];
        let mut notes = Vec::new();
        let got = read_bounded(&full[..], cap as u64, cap as u64, "f", &mut notes).unwrap();
        assert_eq!(got.map(|b| b.len()), Some(cap));
        assert!(notes.is_empty(), "{notes:?}");
    }

    /// A file whose length is over [`MAX_INPUT`] is an error before it is opened (a sparse
    /// file: no disk used); its quiet twin, a small file, is read.
    #[test]
    fn files_over_the_input_cap_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [("huge.md", MAX_INPUT + 1, true), ("small.md", 12, false)];
        for (name, len, skipped) in cases {
            let p = dir.path().join(name);
            std::fs::File::create(&p).unwrap().set_len(len).unwrap();
            let mut notes = Vec::new();
            if skipped {
                let e = read_regular(&p, name, false, &mut notes).unwrap_err();
                assert_eq!(
                    e,
                    format!(
                        "{name}: larger than 256 MiB, the most netbox-lsp reads of one file; not checked"
                    )
                );
                assert!(notes.is_empty(), "{notes:?}");
            } else {
                let got = read_regular(&p, name, false, &mut notes).unwrap();
                // Twelve NULs: binary, told from the head.
                assert_eq!(got, None, "{name}");
                assert_eq!(notes, [format!("{name}: binary file skipped")]);
                std::fs::write(&p, "`/api/dcim/devices/`\n").unwrap();
                notes.clear();
                let got = read_regular(&p, name, false, &mut notes).unwrap();
                assert_eq!(got.as_deref(), Some(&b"`/api/dcim/devices/`\n"[..]));
                assert!(notes.is_empty(), "{notes:?}");
            }
        }
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
