//! The YAML grammar with an external-scanner state that always fits tree-sitter's 1,024-byte
//! buffer, so that no text can abort the process. (Python is parsed with ruff's parser, which
//! has no such state.)
//!
//! tree-sitter copies an external scanner's state into a 1,024-byte buffer after every external
//! token and `assert`s that it fit (`ts_parser__external_scanner_serialize`, tree-sitter 0.27
//! `parser.c`); a failed assertion aborts the whole process, which no panic guard can catch.
//! The scanner checks the size only *before* writing its last entry, so a deep enough state
//! writes one entry past the buffer: tree-sitter-yaml 0.7 stores 10 header bytes and 4 bytes per
//! level (1,026 bytes at ≥ 254 levels). [`super::parse::too_deep`] keeps real parses far below that; this is
//! the guarantee for whatever it misjudges.
//!
//! The guarded language is a copy of the grammar's `TSLanguage` (layout of
//! `tree_sitter/parser.h` shipped with the grammar crate) whose `serialize` calls the
//! grammar's own into a larger buffer and hands tree-sitter at most what fits, cut at an entry
//! boundary the grammar's `deserialize` reads back (the deepest levels are dropped: the tree
//! past them is an error tree, not an abort).

use std::ffi::{c_char, c_uint, c_void};
use std::sync::OnceLock;

use tree_sitter::Language;

/// tree-sitter's `TREE_SITTER_SERIALIZATION_BUFFER_SIZE`.
const BUFFER: usize = 1024;

type Serialize = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_uint;

/// `TSLanguage` as declared in `tree_sitter/parser.h` (ABI 14 and 15 share the layout; ABI 14
/// grammars leave the trailing fields zero).
#[repr(C)]
#[derive(Clone, Copy)]
struct RawLanguage {
    abi_version: u32,
    symbol_count: u32,
    alias_count: u32,
    token_count: u32,
    external_token_count: u32,
    state_count: u32,
    large_state_count: u32,
    production_id_count: u32,
    field_count: u32,
    max_alias_sequence_length: u16,
    tables: [*const c_void; 13],
    lex_fn: *const c_void,
    keyword_lex_fn: *const c_void,
    keyword_capture_token: u16,
    ext_states: *const c_void,
    ext_symbol_map: *const c_void,
    ext_create: *const c_void,
    ext_destroy: *const c_void,
    ext_scan: *const c_void,
    ext_serialize: Option<Serialize>,
    ext_deserialize: *const c_void,
    primary_state_ids: *const c_void,
    name: *const c_char,
    reserved_words: *const c_void,
    max_reserved_word_set_size: u16,
    supertype_count: u32,
    supertype_symbols: *const c_void,
    supertype_map_slices: *const c_void,
    supertype_map_entries: *const c_void,
    metadata: [u8; 3],
}

/// A guarded copy of a grammar, leaked once per process (tree-sitter keeps raw pointers to it).
struct Guarded(*const RawLanguage);
// SAFETY: the copy is never written after it is built; tree-sitter only reads it.
unsafe impl Send for Guarded {}
unsafe impl Sync for Guarded {}

/// The grammar's own serializer.
static YAML_SERIALIZE: OnceLock<Serialize> = OnceLock::new();

/// Calls `inner` into a buffer large enough for anything it writes (it writes at most a few
/// bytes past 1,024) and copies the longest prefix that fits, cut at `cut` bytes when it does not.
unsafe fn serialize_bounded(
    inner: Serialize,
    payload: *mut c_void,
    out: *mut c_char,
    cut: usize,
) -> c_uint {
    // Left uninitialised: this runs after every external token (each newline, indent and
    // string delimiter), and zeroing 4 KB each time was 12 % of a `.py` file's check.
    let mut big = std::mem::MaybeUninit::<[c_char; 4 * BUFFER]>::uninit();
    let big = big.as_mut_ptr().cast::<c_char>();
    // SAFETY: `big` outlasts the call and is larger than any state either scanner writes.
    let len = unsafe { inner(payload, big) } as usize;
    // Only bytes the scanner wrote are copied: the first `len` (or `cut` < `len`).
    let len = if len > BUFFER { cut } else { len };
    // SAFETY: tree-sitter's buffer holds BUFFER bytes and len ≤ BUFFER.
    unsafe { std::ptr::copy_nonoverlapping(big, out, len) };
    len as c_uint
}

/// YAML: 10 header bytes, then 4-byte levels; `deserialize` asserts whole levels.
unsafe extern "C" fn yaml_serialize(payload: *mut c_void, out: *mut c_char) -> c_uint {
    let inner = *YAML_SERIALIZE
        .get()
        .expect("set before the language is handed out");
    // SAFETY: as above.
    unsafe { serialize_bounded(inner, payload, out, 10 + (BUFFER - 10) / 4 * 4) }
}

fn guard(
    cell: &'static OnceLock<Guarded>,
    original: Language,
    saved: &'static OnceLock<Serialize>,
    wrapper: Serialize,
) -> Language {
    let guarded = cell.get_or_init(|| {
        let raw = original.into_raw() as *const RawLanguage;
        // SAFETY: `raw` points at the grammar's static `TSLanguage`, whose layout is
        // `RawLanguage` (checked against tree-sitter's own accessors in the tests below).
        let mut copy = unsafe { *raw };
        if let Some(inner) = copy.ext_serialize {
            let _ = saved.set(inner);
            copy.ext_serialize = Some(wrapper);
        }
        Guarded(Box::leak(Box::new(copy)))
    });
    // SAFETY: non-null, lives for the process; `ts_language_delete` frees only wasm languages.
    unsafe { Language::from_raw(guarded.0.cast()) }
}

/// tree-sitter-yaml with a bounded scanner state.
pub(crate) fn yaml() -> Language {
    static CELL: OnceLock<Guarded> = OnceLock::new();
    guard(
        &CELL,
        tree_sitter_yaml::LANGUAGE.into(),
        &YAML_SERIALIZE,
        yaml_serialize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_the_grammar() {
        let (guarded, original) = (yaml(), Language::from(tree_sitter_yaml::LANGUAGE));
        // Fields before and after the external scanner read the same through tree-sitter.
        assert_eq!(guarded.abi_version(), original.abi_version());
        assert_eq!(guarded.node_kind_count(), original.node_kind_count());
        assert_eq!(guarded.field_count(), original.field_count());
        assert_eq!(guarded.parse_state_count(), original.parse_state_count());
        assert_eq!(guarded.name(), original.name());
        assert_eq!(guarded.supertypes().len(), original.supertypes().len());
    }
}
