//! Parsing helpers shared by the extractors: one reusable tree-sitter parser per language and
//! thread for JSON and YAML (a Markdown file may hold thousands of fences), ruff's parser for
//! Python behind a nesting guard ([`python`]), and the "close what is open" repair used to read
//! half-typed text.

use std::cell::RefCell;

use ruff_python_ast::{ModModule, PySourceType};
use ruff_python_parser::Parsed;
use tree_sitter::{Language, Parser, Tree};

use super::scanner_guard;

/// Languages parsed with tree-sitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Json,
    Yaml,
}

/// Largest embedded text parsed structurally (bytes); larger texts only get the URL scan.
/// 32 MiB: a `.py` file of 100,000 tool calls (8.6 MB) is read in full (issue 13).
pub(crate) const MAX_PARSE: usize = 32 * 1024 * 1024;

/// Deepest literal nesting converted; deeper values become `Value::Expr`.
pub(crate) const MAX_DEPTH: usize = 64;

thread_local! {
    static PARSERS: RefCell<[Option<Parser>; 2]> = const { RefCell::new([None, None]) };
}

fn language(lang: Lang) -> Language {
    match lang {
        Lang::Json => tree_sitter_json::LANGUAGE.into(),
        Lang::Yaml => scanner_guard::yaml(),
    }
}

/// Routes tree-sitter's C allocations to mimalloc, as the Rust side's global allocator in the
/// binary: a parse allocates and frees a node per token, and glibc's malloc was 15 % of the
/// instructions of a 5,000-line skill file's analysis. Runs once, before this crate's first
/// parser. Code outside this crate (a test, a host program) may have made tree-sitter objects
/// with the C allocator before the switch: `free`/`realloc` hand such blocks back to the C
/// allocator (`mi_is_in_heap_region` tells them apart), so freeing one later is no crash.
fn use_mimalloc() {
    use libmimalloc_sys as mi;
    use std::ffi::c_void;
    unsafe extern "C" {
        #[link_name = "free"]
        fn c_free(p: *mut c_void);
        #[link_name = "realloc"]
        fn c_realloc(p: *mut c_void, size: usize) -> *mut c_void;
    }
    unsafe extern "C" fn free(p: *mut c_void) {
        // SAFETY: `p` was allocated by mimalloc or, before the switch, by the C allocator.
        unsafe {
            if mi::mi_is_in_heap_region(p) {
                mi::mi_free(p)
            } else if !p.is_null() {
                c_free(p)
            }
        }
    }
    unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
        // SAFETY: as `free`; a block keeps the allocator that made it.
        unsafe {
            if p.is_null() || mi::mi_is_in_heap_region(p) {
                mi::mi_realloc(p, size)
            } else {
                c_realloc(p, size)
            }
        }
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: one allocator family with malloc's alignment that never returns null for
        // non-zero sizes (mimalloc aborts on out-of-memory instead); blocks of the C allocator
        // made before this call are freed and resized by it (see `free`/`realloc`).
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc: mi::mi_malloc,
                calloc: mi::mi_calloc,
                realloc,
                free,
            }))
        };
    });
}

/// Runs `f` with this thread's parser for `lang` (created on first use); `None` if the
/// language cannot be loaded.
pub(crate) fn with_parser<R>(lang: Lang, f: impl FnOnce(&mut Parser) -> R) -> Option<R> {
    use_mimalloc();
    let slot = lang as usize;
    // Take the parser out of its slot so that a nested use never double-borrows.
    let cached = PARSERS.with(|p| p.borrow_mut()[slot].take());
    let mut parser = match cached {
        Some(p) => p,
        None => {
            let mut p = Parser::new();
            p.set_language(&language(lang)).ok()?;
            p
        }
    };
    let out = f(&mut parser);
    PARSERS.with(|p| p.borrow_mut()[slot] = Some(parser));
    Some(out)
}

/// Why a unit of code was not read structurally (it then gets only the URL scan, and a
/// `not-checked` finding says so: see [`Refusal::site`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Larger than [`MAX_PARSE`] bytes.
    TooLarge,
    /// Deeper than a nesting bound: [`MAX_NESTING`] blocks (Python, YAML) or
    /// [`MAX_EXPR_NESTING`] levels of brackets, operators or f-string fields (Python, JSON,
    /// YAML flow collections).
    TooDeep,
    /// More nodes than [`node_budget`] allows for the text's size (see [`too_many`]).
    TooMany(Lang),
    /// The parser gave no tree (a grammar that cannot be loaded).
    Failed,
}

impl Refusal {
    /// The site that reports the unit of `len` bytes (mapped to the host by `map`) as not
    /// checked; `None` for a text above [`MAX_PARSE`], which only a whole file can be and which
    /// `analysis::not_checked` reports for the file.
    pub(crate) fn site(self, len: usize, map: &super::OffsetMap) -> Option<super::Site> {
        let reason = match self {
            Refusal::TooLarge => return None,
            Refusal::TooDeep => format!(
                "this code nests deeper than netbox-lsp reads (more than {MAX_NESTING} indented blocks, or {MAX_EXPR_NESTING} levels of brackets, operators or f-string fields)"
            ),
            Refusal::TooMany(lang) => format!(
                "this {} holds more {} than netbox-lsp reads in {len} bytes ({MIN_NODES} and one per {} bytes)",
                match lang {
                    Lang::Json => "JSON",
                    Lang::Yaml => "YAML",
                },
                match lang {
                    Lang::Json => "values",
                    Lang::Yaml => "lines and flow items",
                },
                bytes_per_node(lang)
            ),
            Refusal::Failed => "this code could not be parsed".to_string(),
        };
        let advice = match self {
            Refusal::TooMany(_) => "Split it to have it checked.",
            _ => "Flatten the nesting to have it checked.",
        };
        Some(super::Site::NotChecked(super::NotChecked {
            range: map.range_to_host(0..len),
            reason,
            advice: advice.to_string(),
        }))
    }
}

/// Why `text` is not to be read as `lang` at all, from its size alone and then its node count
/// ([`MAX_PARSE`], [`too_many`]; a text also too deep is said to be so, as [`parse`] says),
/// before a faster reader than [`parse`] tries it; `None` when it may be read.
pub(crate) fn over_budget(lang: Lang, text: &str) -> Option<Refusal> {
    if text.len() > MAX_PARSE {
        Some(Refusal::TooLarge)
    } else if too_many(lang, text) {
        Some(if too_deep(lang, text) {
            Refusal::TooDeep
        } else {
            Refusal::TooMany(lang)
        })
    } else {
        None
    }
}

/// Parses `text`; refused when the text is too large, holds too many nodes or nests too deep.
pub(crate) fn parse(lang: Lang, text: &str) -> Result<Tree, Refusal> {
    if text.len() > MAX_PARSE {
        return Err(Refusal::TooLarge);
    }
    if too_deep(lang, text) {
        return Err(Refusal::TooDeep);
    }
    if too_many(lang, text) {
        return Err(Refusal::TooMany(lang));
    }
    with_parser(lang, |p| p.parse(text.as_bytes(), None))
        .flatten()
        .ok_or(Refusal::Failed)
}

/// Parses Python `text` with ruff's parser, which recovers from syntax errors (the tree then
/// holds what it could read and `errors()` is not empty; a bare `\r` ends a line, as in
/// Python). Refused when the text is larger than [`MAX_PARSE`] or [`python_too_deep`].
pub(crate) fn python(text: &str) -> Result<Parsed<ModModule>, Refusal> {
    if text.len() > MAX_PARSE {
        return Err(Refusal::TooLarge);
    }
    if python_too_deep(text) {
        return Err(Refusal::TooDeep);
    }
    Ok(ruff_python_parser::parse_unchecked_source(
        text,
        PySourceType::Python,
    ))
}

/// Deepest block nesting read (an upper bound, see [`too_deep`] and [`python_too_deep`]). The
/// YAML grammar keeps one indentation level per block in a state that tree-sitter copies into a
/// 1,024-byte buffer (4 bytes a level in tree-sitter-yaml 0.7); past it the C library aborts the
/// process, which no panic guard can catch ([`super::scanner_guard`] is the backstop). For
/// Python it bounds the statement nesting that the recursive walks of ruff's tree (and its
/// `Drop`) see. Real code stays far below this.
pub(crate) const MAX_NESTING: usize = 200;

/// Deepest expression nesting read from Python, as [`python_expr_depth`] bounds it. ruff's
/// parser grows its own stack, but its tree is dropped and walked by recursion on whatever
/// thread analyses the text (rayon workers and tokio blocking threads have 2 MiB stacks):
/// `1+1+...` or `a.b.c...` nests one level per operator without any bracket.
pub(crate) const MAX_EXPR_NESTING: usize = 1000;

/// True when Python `text` might nest blocks deeper than [`MAX_NESTING`] or expressions deeper
/// than [`MAX_EXPR_NESTING`]; such a text gets only the URL scan.
pub(crate) fn python_too_deep(text: &str) -> bool {
    python_over(text.as_bytes(), MAX_EXPR_NESTING, MAX_NESTING)
}

/// True when [`python_expr_depth`] of `b` is above [`MAX_EXPR_NESTING`], as the guard reads it.
#[cfg(test)]
fn python_expr_too_deep(b: &[u8]) -> bool {
    python_expr_over(b, MAX_EXPR_NESTING)
}

/// True when [`python_expr_depth`] of `b` is above `limit` (at least 1), as
/// [`python_expr_too_deep`] reads it.
#[cfg(test)]
fn python_expr_over(b: &[u8], limit: usize) -> bool {
    python_over(b, limit, usize::MAX)
}

/// True when [`python_expr_depth`] of `b` is above `limit` (at least 1) or [`python_indent_max`]
/// above `indent_limit`, found with less work: thirty-two bytes a step where the processor has
/// AVX2, else sixteen (see [`python_over_by`]).
fn python_over(b: &[u8], limit: usize, indent_limit: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2.
        return unsafe { python_over_avx2(b, limit, indent_limit) };
    }
    // SAFETY: sixteen bytes a step (SSE2, part of the x86_64 baseline).
    unsafe { python_over_by::<false>(b, limit, indent_limit) }
}

/// [`python_over`] compiled for AVX2.
///
/// # Safety
/// The processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn python_over_avx2(b: &[u8], limit: usize, indent_limit: usize) -> bool {
    // SAFETY: AVX2 is there, and this function is compiled for it.
    unsafe { python_over_by::<true>(b, limit, indent_limit) }
}

/// [`python_over`]'s reading, [`stop_mask`]'s width (`WIDE`: thirty-two bytes, else sixteen) a
/// step.
/// The bound is the largest over the statements at the top level, each read as the text's
/// first (no level open, no element counted), and it grows by two at most per byte of a
/// statement that holds no f- or t-string: a token counts one and has a byte at least, a
/// bracket counts two (its element's token and its level) and a closed one no more than its
/// bytes twice, a plain string one. So a statement of at most `(limit - 1) / 2` bytes (499 for
/// [`MAX_EXPR_NESTING`]) keeps within the bound, and only its end is looked for: its strings,
/// comments, backslashes, brackets and line ends, from the candidates of [`stop_mask`] (sixteen
/// bytes a step). A longer statement, or one with an f- or t-string, is read again exactly from
/// its start. Every byte is read at most twice; the answer is [`python_expr_depth`]'s. The
/// lines are measured from the line ends the reading meets (and those in what it skips).
///
/// # Safety
/// With `WIDE`, the processor has AVX2 and the caller is compiled for it
/// (`#[target_feature(enable = "avx2")]`, where this is inlined).
#[inline(always)]
unsafe fn python_over_by<const WIDE: bool>(b: &[u8], limit: usize, indent_limit: usize) -> bool {
    let w = if WIDE { 32 } else { 16 };
    let mut indent = Indent::default();
    indent.line(b, 0);
    if indent.max > indent_limit {
        return true;
    }
    // The longest statement without f- or t-strings that need not be read exactly: its bound
    // is one (the top level) and two a byte at most.
    let longest = (limit.max(1) - 1) / 2;
    // The current statement's start and its open brackets; the quote of the plain string being
    // read (0: none) and whether it is triple-quoted; whether a comment is being read; the
    // offset below which candidates were read (a backslash's next byte, a string's quotes).
    let (mut s, mut depth, mut next) = (0usize, 0usize, 0usize);
    let (mut quote, mut triple, mut comment) = (0u8, false, false);
    let mut base = 0;
    while base < b.len() {
        // SAFETY: `WIDE` only where AVX2 is (the caller's promise).
        let mut m = unsafe { stop_mask::<WIDE>(b, base) };
        while m != 0 {
            let p = base + m.trailing_zeros() as usize;
            m &= m - 1;
            let c = b[p];
            if c == b'\n' {
                indent.after(b, p);
                if indent.max > indent_limit {
                    return true;
                }
            }
            if p < next {
                continue;
            }
            if quote != 0 {
                if c == quote {
                    if !triple {
                        quote = 0;
                    } else if b[p..].starts_with(&[c, c, c]) {
                        (quote, next) = (0, p + 3);
                    }
                    continue;
                }
                match c {
                    b'\\' => {
                        next = p + 2;
                        continue;
                    }
                    // A one-line string left open at a line end: the line end is code.
                    b'\n' | b'\r' if !triple => quote = 0,
                    _ => continue,
                }
            } else if comment {
                if !matches!(c, b'\n' | b'\r') {
                    continue;
                }
                comment = false;
            }
            let exact = match c {
                b'"' | b'\'' => {
                    let f = p > 0
                        && is_word(b[p - 1])
                        && string_prefix(b, p)
                            .iter()
                            .any(|l| matches!(l.to_ascii_lowercase(), b'f' | b't'));
                    if !f {
                        quote = c;
                        triple = b.get(p + 1) == Some(&c) && b.get(p + 2) == Some(&c);
                        if triple {
                            next = p + 3;
                        }
                    }
                    f
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    false
                }
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    false
                }
                b'\n' | b'\r' | b';' if depth == 0 => {
                    let long = p.saturating_sub(s) > longest;
                    if !long {
                        s = p + 1;
                    }
                    long
                }
                b'#' => {
                    comment = true;
                    false
                }
                b'\\' => {
                    next = p + 2;
                    false
                }
                _ => false,
            };
            if exact {
                // An f- or t-string, or a long statement: read exactly from its start.
                let (max, end) = python_expr_depth_from(b, s, true);
                if max > limit {
                    return true;
                }
                (s, depth, next, quote, comment) = (end, 0, end, 0, false);
                if end >= base + w {
                    // The lines that start in the chunks skipped.
                    let to = end - end % w;
                    for q in memchr::memchr_iter(b'\n', &b[p + 1..to]) {
                        indent.after(b, p + 1 + q);
                    }
                    if indent.max > indent_limit {
                        return true;
                    }
                    break;
                }
            }
        }
        base = (base + w).max(next - next % w);
    }
    b.len().saturating_sub(s) > longest && python_expr_depth_from(b, s, true).0 > limit
}

/// The candidate stops of `b[base..base + 16]` (`WIDE`: `b[base..base + 32]`; fewer bytes at
/// the end of `b`) as bits, bit `k` for `b[base + k]`: the bytes of [`STOP`]. With SSE2 (every
/// x86-64 processor) sixteen bytes are tested at once, with AVX2 thirty-two, elsewhere one by
/// one.
///
/// # Safety
/// With `WIDE`, the processor has AVX2 and the caller is compiled for it.
#[inline(always)]
unsafe fn stop_mask<const WIDE: bool>(b: &[u8], base: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        // SAFETY: AVX2 is the caller's promise.
        return unsafe { stop_mask32(&block_at::<32>(b, base)) };
    }
    stop_mask16(&block_at::<16>(b, base))
}

/// The `N` bytes of `b` from `base`, the last ones padded with zeros (no stop).
#[inline(always)]
fn block_at<const N: usize>(b: &[u8], base: usize) -> [u8; N] {
    match b.get(base..base + N) {
        Some(full) => full.try_into().expect("N bytes"),
        None => {
            let mut chunk = [0u8; N];
            let rest = b.get(base..).unwrap_or_default();
            chunk[..rest.len()].copy_from_slice(rest);
            chunk
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn stop_mask16(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is in every x86-64 processor (the target's baseline); the load reads the
    // sixteen bytes of `block` (unaligned loads are allowed).
    unsafe {
        let x = _mm_loadu_si128(block.as_ptr().cast());
        let eq = |v: __m128i, c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        // `[\]` and `{|}` differ in one bit, `(` and `)` in another.
        let folded = _mm_and_si128(x, _mm_set1_epi8(0xdfu8 as i8));
        let paren = _mm_or_si128(x, _mm_set1_epi8(1));
        let m = _mm_or_si128(
            _mm_or_si128(
                _mm_or_si128(eq(folded, b'['), eq(folded, b'\\')),
                _mm_or_si128(eq(folded, b']'), eq(paren, b')')),
            ),
            _mm_or_si128(
                _mm_or_si128(
                    _mm_or_si128(eq(x, b'"'), eq(x, b'#')),
                    _mm_or_si128(eq(x, b'\''), eq(x, b'\n')),
                ),
                _mm_or_si128(eq(x, b'\r'), eq(x, b';')),
            ),
        );
        _mm_movemask_epi8(m) as u32
    }
}

/// [`stop_mask16`] of thirty-two bytes, with AVX2.
///
/// # Safety
/// The processor has AVX2 and the caller is compiled for it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stop_mask32(block: &[u8; 32]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: AVX2 is the caller's promise; the load reads the thirty-two bytes of `block`
    // (unaligned loads are allowed).
    unsafe {
        let x = _mm256_loadu_si256(block.as_ptr().cast());
        // A macro, not a closure: the comparison is compiled where AVX2 is.
        macro_rules! eq {
            ($v:expr, $c:expr) => {
                _mm256_cmpeq_epi8($v, _mm256_set1_epi8($c as i8))
            };
        }
        // As in `stop_mask16`.
        let folded = _mm256_and_si256(x, _mm256_set1_epi8(0xdfu8 as i8));
        let paren = _mm256_or_si256(x, _mm256_set1_epi8(1));
        let m = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_or_si256(eq!(folded, b'['), eq!(folded, b'\\')),
                _mm256_or_si256(eq!(folded, b']'), eq!(paren, b')')),
            ),
            _mm256_or_si256(
                _mm256_or_si256(
                    _mm256_or_si256(eq!(x, b'"'), eq!(x, b'#')),
                    _mm256_or_si256(eq!(x, b'\''), eq!(x, b'\n')),
                ),
                _mm256_or_si256(eq!(x, b'\r'), eq!(x, b';')),
            ),
        );
        _mm256_movemask_epi8(m) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn stop_mask16(block: &[u8; 16]) -> u32 {
    block
        .iter()
        .enumerate()
        .fold(0, |m, (k, &c)| m | (u32::from(STOP[c as usize]) << k))
}

/// The bytes [`python_over`] stops at: what can open, close or end a level, a
/// statement, a string or a comment, or escape the next byte, and `|` (which the SSE2 test
/// takes with the braces; it is read as code and does nothing there).
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
const STOP: [bool; 256] = {
    let mut t = [false; 256];
    let stops = b"\n\r\"#'();[\\]{|}";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

/// Nodes a JSON or YAML text may hold beyond one per [`bytes_per_node`] bytes
/// ([`node_budget`]). Reading costs about 500 bytes of memory a JSON value (the strict reader's
/// tokens and tree, then the literal tree; tree-sitter's tree is as large) and about 1,200 bytes
/// a YAML line of `- a: 1` (measured with `[1,1,…]` and `- a: 1` files of 1 MB): 50,000 nodes
/// are at most some 25 MB (JSON) or 60 MB (YAML) beyond the 30 times the text's size the nodes
/// a byte allow, and real files are far from it (the largest JSON under tests/fixtures/ holds
/// 1,314 values, examples/ hold fewer; a notebook's cells are strings, a few values each).
pub(crate) const MIN_NODES: usize = 50_000;

/// Bytes of text a node must have on average beyond [`MIN_NODES`], so that reading a text takes
/// at most about 60 (JSON) or 50 (YAML) times its size (see [`MIN_NODES`] for the cost of a
/// node). JSON: 8, below the densest real JSON the tool reads, tool calls (10.5 bytes a value:
/// an agent's log of tool calls is checked whole), and above what only a generated or hostile
/// file has: `[1,1,…]` 2, `[{"a": 1}, …]` 3.3 (other real JSON has more: an AWS service
/// description 32.5 bytes a value, a CloudFormation schema 23.5, an IAM policy list 16.3).
/// YAML: 24 bytes a line (an OpenAPI document's lines hold 30 and more), while a list of
/// `- a: 1` has 7.
pub(crate) fn bytes_per_node(lang: Lang) -> usize {
    match lang {
        Lang::Json => 8,
        Lang::Yaml => 24,
    }
}

/// Most nodes read in a `lang` text of `len` bytes: [`MIN_NODES`] and one per
/// [`bytes_per_node`] bytes. Above it the text is not read structurally (its REST URLs still
/// are) and a `not-checked` site says so: memory and time grow with the nodes, not the bytes (a
/// 32 MB `[1,1,…]` took 7.7 GB and 14 s to read).
pub(crate) fn node_budget(lang: Lang, len: usize) -> usize {
    MIN_NODES + len / bytes_per_node(lang)
}

/// True when `text` holds more nodes than [`node_budget`] allows, as counted in one pass that
/// stops at the budget. JSON: the `[`, `{`, `,` and `:` outside strings (about one a value: each
/// value but the first follows one of them). YAML: the lines (ended by `\n`, or a `\r` not
/// before one) and every `[`, `{` and `,` (flow items, quoting not read: an upper bound). A text
/// of at most [`MIN_NODES`] bytes is never above it and is not scanned.
pub(crate) fn too_many(lang: Lang, text: &str) -> bool {
    if text.len() <= MIN_NODES {
        return false;
    }
    let budget = node_budget(lang, text.len());
    let b = text.as_bytes();
    let mut n = 0usize;
    match lang {
        Lang::Json => {
            let mut i = 0;
            while i < b.len() {
                match b[i] {
                    b'"' => i = json_string_end(b, i + 1),
                    b'[' | b'{' | b',' | b':' => {
                        n += 1;
                        if n > budget {
                            return true;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        Lang::Yaml => {
            n = 1;
            for (i, &c) in b.iter().enumerate() {
                let counts = match c {
                    b'\n' | b'[' | b'{' | b',' => true,
                    b'\r' => b.get(i + 1) != Some(&b'\n'),
                    _ => false,
                };
                if counts {
                    n += 1;
                    if n > budget {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// True when `text` might nest deeper than the parser and the walks of its tree can take.
/// YAML (tree-sitter-yaml 0.7), blocks: columns restart at `\r` and at `\n`, and every `- `,
/// `? ` or `: ` on a line can open one more level there (`- - - x`), so the deepest
/// indentation bounds the block depth ([`MAX_NESTING`]). JSON and YAML flow collections: the
/// running count of open brackets (`[`, `{`, less the closed ones), strings not skipped, bounds
/// their depth ([`MAX_EXPR_NESTING`]); tree-sitter keeps a parse stack per level (a JSON text of
/// a million nested objects took 880 MB and 8 s).
pub(crate) fn too_deep(lang: Lang, text: &str) -> bool {
    match lang {
        Lang::Json => json_depth(text.as_bytes()) > MAX_EXPR_NESTING,
        Lang::Yaml => {
            bracket_depth(text.as_bytes()) > MAX_EXPR_NESTING
                || text.split(['\r', '\n']).any(|line| {
                    let mut width = 0;
                    for b in line.bytes() {
                        match b {
                            b' ' => width += 1,
                            b'\t' => width += 8,
                            _ => break,
                        }
                    }
                    let opens = line
                        .as_bytes()
                        .windows(2)
                        .filter(|w| {
                            matches!(w[0], b'-' | b'?' | b':') && matches!(w[1], b' ' | b'\t')
                        })
                        .count();
                    width + opens > MAX_NESTING
                })
        }
    }
}

/// The deepest running count of `[`/`{` not yet closed by `]`/`}` in `b`, every byte counted
/// (an upper bound of the flow nesting whatever the quoting: a quote cannot open a level).
fn bracket_depth(b: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for &c in b {
        match c {
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The offset of the `"` that closes the JSON string whose content starts at `i` in `b` (its
/// escapes skipped), or at least `b.len()` when none does.
fn json_string_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// The deepest bracket nesting of JSON text `b`, strings (with their escapes) skipped.
pub(crate) fn json_depth(b: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = json_string_end(b, i + 1),
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

/// The deepest indentation of Python text `b` (an upper bound of its block nesting): after a
/// `\n`, a space counts 1, a tab 8, a `\r` or form feed starts the count again, a backslash
/// continuation (`\` then `\n` or `\r\n`) carries the count on to the next line (the
/// measure of tree-sitter-python 0.25's scanner, kept as the bound).
// The guard measures lines through `python_over`; the tests take it as the oracle.
#[cfg_attr(not(test), allow(dead_code))]
fn python_indent_max(b: &[u8]) -> usize {
    let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', b).map(|i| i + 1));
    let mut indent = Indent::default();
    for start in starts {
        indent.line(b, start);
        if indent.max > MAX_NESTING {
            break;
        }
    }
    indent.max
}

/// The running measure of [`python_indent_max`], line by line.
#[derive(Default)]
struct Indent {
    max: usize,
    /// Where the last measure stopped: a start inside a stretch already measured from an
    /// earlier start counts less there.
    measured_to: usize,
}

impl Indent {
    /// Measures the line that starts at `start` (0, or right after a `\n`; starts come in
    /// order).
    fn line(&mut self, b: &[u8], start: usize) {
        if start < self.measured_to {
            return;
        }
        let mut width = 0usize;
        let mut i = start;
        while i < b.len() {
            match b[i] {
                b' ' => width += 1,
                b'\t' => width += 8,
                b'\r' | b'\x0c' => width = 0,
                b'\\' => {
                    let mut j = i + 1;
                    if b.get(j) == Some(&b'\r') {
                        j += 1;
                    }
                    if b.get(j) != Some(&b'\n') {
                        break;
                    }
                    i = j; // the continuation's newline does not restart the count
                }
                _ => break,
            }
            i += 1;
            self.max = self.max.max(width);
        }
        self.measured_to = i;
    }

    /// [`Indent::line`] for the line after the `\n` at `p`; most lines start with no blank.
    #[inline]
    fn after(&mut self, b: &[u8], p: usize) {
        if matches!(b.get(p + 1), Some(b' ' | b'\t' | b'\r' | b'\x0c' | b'\\')) {
            self.line(b, p + 1);
        }
    }
}

/// An upper bound of the expression nesting of Python text `b`, from one pass over its bytes
/// that tokenizes as ruff's lexer does (strings, f-/t-strings with their replacement fields and
/// format specs, comments, continuations). Inside each bracket level, every token of the
/// current element (up to a `,`; a statement at the top level, up to a line end or `;`) may nest
/// one level deeper than the one before it (`a.b.c`, `-x`, `x + y + z`, `not not x`,
/// `lambda: lambda: x`), and a closed bracket counts as deep as the deepest element it held; the
/// bound is the largest sum over the open levels. An f-string's replacement field is a level of
/// its own (its code is read like any other: `f"{[[[x]]]}"`, `f"{f"{x}"}"`, `f"{x:{y:{z}}}"`)
/// and counts one more for the element that holds it; a closed f-string counts as deep as its
/// deepest field. Adjacent strings (an implicit concatenation) count once.
// The guard reads it through `python_over`; the tests take it as the oracle.
#[cfg_attr(not(test), allow(dead_code))]
fn python_expr_depth(b: &[u8]) -> usize {
    python_expr_depth_from(b, 0, false).0
}

/// [`python_expr_depth`] of `b` read from `start` (a statement's start, where the reading is as
/// at the text's start) and the offset where it stopped: with `one`, right after the first end
/// of a statement at the top level, else (and when no statement ends) the end of the text.
fn python_expr_depth_from(b: &[u8], start: usize, one: bool) -> (usize, usize) {
    let mut d = Depth::default();
    // The f-/t-strings open around the cursor, innermost last.
    let mut fstrings: Vec<FString> = Vec::new();
    let mut i = start;
    while i < b.len() {
        if let Some(f) = fstrings.last_mut() {
            // In an f-string's literal text (or format spec) unless a field is open above it.
            if d.levels() - f.base <= f.spec {
                match fstring_literal(b, &mut i, f) {
                    Literal::Open => {
                        d.push(1);
                        i += 1;
                    }
                    // The end of a format spec and of its field (a lone `}` in the literal
                    // text is an error token: nothing closes).
                    Literal::Close => {
                        i += 1;
                        if f.spec > 0 {
                            f.spec -= 1;
                            d.close_into(&mut fstrings);
                        }
                    }
                    Literal::End(unterminated) => {
                        let f = fstrings.pop().expect("an f-string is open");
                        if unterminated {
                            // As ruff: what the fields opened is dropped with the string.
                            d.truncate(f.base);
                        }
                        d.string_end(&f);
                    }
                }
                continue;
            }
        }
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\x0c' => {}
            b'#' => {
                while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                    i += 1;
                }
                continue;
            }
            // A line continuation (or a stray backslash).
            b'\\' => i += 1,
            b'\n' | b'\r' | b';' if d.levels() == 1 => {
                d.statement_end();
                if one {
                    return (d.max, i + 1);
                }
            }
            b'\n' | b'\r' => {}
            b',' => d.comma(),
            b'(' | b'[' | b'{' => d.open(),
            b')' | b']' | b'}' => d.close_into(&mut fstrings),
            b':' if fstrings
                .last()
                .is_some_and(|f| d.levels() - f.base == f.spec + 1) =>
            {
                // A format spec starts at the top of a field: literal text again.
                fstrings.last_mut().expect("an f-string is open").spec += 1;
            }
            b'"' | b'\'' => {
                let lower = string_prefix(b, i);
                let has = |l: u8| lower.iter().any(|c| c.to_ascii_lowercase() == l);
                let triple = b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
                let ql = if triple { 3 } else { 1 };
                if has(b'f') || has(b't') {
                    fstrings.push(FString {
                        quote: c,
                        triple,
                        raw: has(b'r'),
                        base: d.levels(),
                        spec: 0,
                        peak: 0,
                        after_string: d.last_string,
                    });
                    d.string_start();
                    i += ql;
                    continue;
                }
                i = skip_string(b, i, c, triple);
                d.string(0);
            }
            c if is_word(c) => {
                let start = i;
                i = word_end(b, i + 1) - 1;
                // A string prefix (`rb"..."`, `f'...'`) is part of its string.
                if matches!(b.get(i + 1), Some(b'"' | b'\'')) && is_string_prefix(&b[start..=i]) {
                    i += 1;
                    continue;
                }
                d.token(1);
            }
            _ => d.token(1),
        }
        i += 1;
    }
    (d.max, b.len())
}

/// The letters of the string prefix right before the quote at `i` (none when the word before
/// the quote is no prefix; most quotes follow no word).
fn string_prefix(b: &[u8], i: usize) -> &[u8] {
    match i.checked_sub(1).map(|p| is_word(b[p])) {
        Some(true) => {
            let word = &b[word_start(b, i)..i];
            if is_string_prefix(word) {
                word
            } else {
                &[]
            }
        }
        _ => &[],
    }
}

/// Reads the plain (not f- or t-) string whose quote `c` (three of them when `triple`) is at
/// `i`: the offset of its last byte (the closing quote's last); for a one-line string left open
/// at a line end, of the byte before the line end (which is read as code next); at or past the
/// end of the text when the text ends inside it.
fn skip_string(b: &[u8], mut i: usize, c: u8, triple: bool) -> usize {
    let ql = if triple { 3 } else { 1 };
    i += ql;
    while i < b.len() {
        // To the next byte that can end or escape the string (every other byte of a string is
        // text).
        i = next_string_stop(b, i, c);
        let Some(&x) = b.get(i) else { break };
        match x {
            b'\\' => i += 1,
            b'\n' | b'\r' if !triple => {
                // Unterminated: the line end is read as code.
                i -= 1;
                break;
            }
            q if q == c && (!triple || b[i..].starts_with(&[c, c, c])) => {
                i += ql - 1;
                break;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The first offset from `i` whose byte may end or escape a string opened by quote `q`: `q`, a
/// backslash, or a byte below `\x0e` (the line ends and a few other control bytes, which the
/// caller reads as text); `b.len()` when none. Eight bytes a step while eight are left, each
/// step a test of the eight at once.
fn next_string_stop(b: &[u8], mut i: usize, q: u8) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `x` equal to `v` (below `v` for `below`); exact up to the
    // first such byte (a borrow can only mark bytes above it).
    let eq = |x: u64, v: u8| {
        let y = x ^ (LO * u64::from(v));
        y.wrapping_sub(LO) & !y & HI
    };
    let below = |x: u64, v: u8| x.wrapping_sub(LO * u64::from(v)) & !x & HI;
    while let Some(chunk) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let m = eq(x, q) | eq(x, b'\\') | below(x, 0x0e);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&x| x == q || x == b'\\' || x < 0x0e)
        .unwrap_or(b.len() - i)
}

/// Where the word that goes on at `i` ends (`i` when `b[i]` is no word byte): four bytes a
/// step while they are all word bytes, their table entries and-ed without a branch each.
fn word_end(b: &[u8], mut i: usize) -> usize {
    while let Some(w) = b.get(i..i + 4) {
        if !(WORD[w[0] as usize] & WORD[w[1] as usize] & WORD[w[2] as usize] & WORD[w[3] as usize])
        {
            break;
        }
        i += 4;
    }
    while i < b.len() && is_word(b[i]) {
        i += 1;
    }
    i
}

fn is_word(c: u8) -> bool {
    WORD[c as usize]
}

/// The bytes of a word (a name, keyword or number): ASCII letters and digits, `_`, and every
/// byte of a non-ASCII character; a table, as the guard reads every byte of the text.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        i += 1;
    }
    t
};

/// Where the word that ends right before `i` starts (`i` when none does).
fn word_start(b: &[u8], i: usize) -> usize {
    let mut s = i;
    while s > 0 && is_word(b[s - 1]) {
        s -= 1;
    }
    s
}

/// True for the prefixes Python reads as part of a string (`r`, `b`, `u`, `f`, `t` and their
/// pairs, any case); another word before a quote (`if"x"`) is a word, then a string.
fn is_string_prefix(w: &[u8]) -> bool {
    // Lower-cased in place of a copy: this runs before every quote of a file.
    let lower = match *w {
        [a] => [a.to_ascii_lowercase(), 0],
        [a, b] => [a.to_ascii_lowercase(), b.to_ascii_lowercase()],
        _ => return false,
    };
    let lower = if lower[1] == 0 {
        &lower[..1]
    } else {
        &lower[..]
    };
    matches!(
        lower,
        b"r" | b"u" | b"b" | b"f" | b"t" | b"br" | b"rb" | b"fr" | b"rf" | b"tr" | b"rt"
    )
}

/// The running bound of [`python_expr_depth`].
struct Depth {
    /// The open levels around the innermost one, outermost first: per level, its current
    /// element's count and the largest count in the level.
    outer: Vec<(usize, usize)>,
    /// The innermost level's current element count and largest count.
    cur: usize,
    peak: usize,
    /// The sum of the current elements' counts over the open levels, plus the number of open
    /// levels (the bound where the cursor is).
    total: usize,
    max: usize,
    /// The last token was a string (a string right after it is the same expression).
    last_string: bool,
    /// The deepest field of the strings concatenated so far.
    run: usize,
}

impl Default for Depth {
    fn default() -> Self {
        Depth {
            outer: Vec::new(),
            cur: 0,
            peak: 0,
            total: 1,
            max: 0,
            last_string: false,
            run: 0,
        }
    }
}

impl Depth {
    /// The number of open levels (the top level counts).
    #[inline]
    fn levels(&self) -> usize {
        self.outer.len() + 1
    }

    #[inline]
    fn add(&mut self, n: usize) {
        self.cur += n;
        self.peak = self.peak.max(self.cur);
        self.total += n;
        self.max = self.max.max(self.total);
    }

    #[inline]
    fn token(&mut self, n: usize) {
        self.add(n);
        self.last_string = false;
    }

    /// A new level whose element already counts `n` (a bracket: 0; a field: 1).
    #[inline]
    fn push(&mut self, n: usize) {
        self.outer.push((self.cur, self.peak));
        self.cur = n;
        self.peak = n;
        self.total += n + 1;
        self.max = self.max.max(self.total);
        self.last_string = false;
    }

    #[inline]
    fn open(&mut self) {
        self.token(1);
        self.push(0);
    }

    /// The peak of the level closed, if one was open above the top level.
    #[inline]
    fn pop(&mut self) -> Option<usize> {
        let (cur, peak) = self.outer.pop()?;
        let closed = self.peak;
        self.total -= self.cur + 1;
        self.cur = cur;
        self.peak = peak;
        Some(closed)
    }

    /// Closes a level: a field of the innermost f-string when that string's text starts again
    /// below it (its depth goes to the string), else a bracket (its depth goes to the element
    /// that holds it).
    fn close_into(&mut self, fstrings: &mut [FString]) {
        let Some(peak) = self.pop() else { return };
        match fstrings.last_mut() {
            Some(f) if self.levels() == f.base => {
                f.peak = f.peak.max(peak + 1);
                self.last_string = false;
            }
            _ => self.token(peak + 1),
        }
    }

    /// Drops the levels above `base`.
    fn truncate(&mut self, base: usize) {
        while self.levels() > base.max(1) {
            self.pop();
        }
    }

    #[inline]
    fn comma(&mut self) {
        self.total -= self.cur;
        self.cur = 0;
        self.last_string = false;
    }

    /// The end of a statement at the top level (no other level is open).
    #[inline]
    fn statement_end(&mut self) {
        self.total = 1;
        self.cur = 0;
        self.last_string = false;
    }

    /// A string whose fields nest `peak` deep, after a string or not.
    #[inline]
    fn string(&mut self, peak: usize) {
        let n = if self.last_string {
            let n = peak.saturating_sub(self.run);
            self.run = self.run.max(peak);
            n
        } else {
            self.run = peak;
            peak + 1
        };
        self.add(n);
        self.last_string = true;
    }

    /// An f-string starts: it counts as a string at once, so that its fields nest below it.
    fn string_start(&mut self) {
        if !self.last_string {
            self.add(1);
            self.run = 0;
        }
        self.last_string = false;
    }

    /// An f-string `f` ends: its fields' depth is added, as for [`Depth::string`].
    fn string_end(&mut self, f: &FString) {
        let n = if f.after_string {
            f.peak.saturating_sub(self.run)
        } else {
            f.peak
        };
        self.run = self.run.max(f.peak);
        self.add(n);
        self.last_string = true;
    }
}

/// An f-string (or t-string) being read.
struct FString {
    quote: u8,
    triple: bool,
    raw: bool,
    /// The number of open levels when it started: more than that (and than `spec`) means a
    /// field is open.
    base: usize,
    /// How many format specs are open (`{x:{y:` is two).
    spec: usize,
    /// The deepest field closed so far.
    peak: usize,
    /// It follows a string (an implicit concatenation).
    after_string: bool,
}

/// Where the literal text of an f-string stopped.
enum Literal {
    /// At a `{` that opens a field.
    Open,
    /// At a `}` that is not an escaped `}}`.
    Close,
    /// After its closing quote, or (`true`) at a line end of a one-line string or the end of
    /// the text: unterminated.
    End(bool),
}

/// Reads the literal text (or format spec) of f-string `f` from `b[*i]` as ruff's lexer does
/// (`lex_interpolated_string_middle_or_end`): `{{` and `}}` are text outside a format spec, a
/// backslash escapes the next character but a brace, and `\N{...}` is a named escape outside
/// raw strings.
fn fstring_literal(b: &[u8], i: &mut usize, f: &FString) -> Literal {
    let in_spec = f.spec > 0;
    let q = f.quote;
    let mut named = false;
    while *i < b.len() {
        match b[*i] {
            b'\n' | b'\r' if !f.triple => return Literal::End(true),
            b'\\' => {
                *i += 1;
                match b.get(*i) {
                    Some(b'{' | b'}') => continue,
                    Some(b'N') if !f.raw && b.get(*i + 1) == Some(&b'{') => {
                        named = true;
                        *i += 2;
                        continue;
                    }
                    Some(b'\r') if b.get(*i + 1) == Some(&b'\n') => *i += 1,
                    _ => {}
                }
            }
            c if c == q => {
                if !f.triple {
                    *i += 1;
                    return Literal::End(false);
                }
                if b[*i..].starts_with(&[q, q, q]) {
                    *i += 3;
                    return Literal::End(false);
                }
            }
            b'{' if !in_spec && b.get(*i + 1) == Some(&b'{') => *i += 1,
            b'{' => return Literal::Open,
            b'}' if named => named = false,
            b'}' if !in_spec && b.get(*i + 1) == Some(&b'}') => *i += 1,
            b'}' => return Literal::Close,
            _ => {}
        }
        *i += 1;
    }
    Literal::End(true)
}

/// The text that closes every bracket and string still open at the end of `text`, so a
/// half-typed call (`f("a", filters={"x": 1`) parses as a whole. `python` enables `#` comments,
/// triple quotes and single-line strings.
pub(crate) fn closers(text: &str, python: bool) -> String {
    let b = text.as_bytes();
    let mut stack: Vec<u8> = Vec::new();
    let mut open_string: Option<&'static str> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' if python => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let triple = python && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
                let quote: &'static str = match (q, triple) {
                    (b'"', true) => "\"\"\"",
                    (b'"', false) => "\"",
                    (_, true) => "'''",
                    _ => "'",
                };
                i += quote.len();
                let mut closed = false;
                while i < b.len() {
                    if b[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if !triple && b[i] == b'\n' {
                        // A broken one-line string: the parser recovers at the line end.
                        closed = true;
                        break;
                    }
                    if b[i..].starts_with(quote.as_bytes()) {
                        i += quote.len() - 1;
                        closed = true;
                        break;
                    }
                    i += 1;
                }
                if !closed {
                    open_string = Some(quote);
                }
            }
            c @ (b'(' | b'[' | b'{') => stack.push(c),
            c @ (b')' | b']' | b'}') => {
                let want = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if stack.last() == Some(&want) {
                    stack.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut out = String::new();
    if let Some(q) = open_string {
        out.push_str(q);
    }
    for &c in stack.iter().rev() {
        out.push(match c {
            b'(' => ')',
            b'[' => ']',
            _ => '}',
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eight-bytes-a-step search finds the byte the byte loop finds, from every start, in
    /// texts with each stop byte at every position (and non-ASCII bytes, whose high bits must
    /// not read as a match).
    #[test]
    fn string_stops_as_the_byte_loop() {
        let slow = |b: &[u8], i: usize, q: u8| {
            i + b[i..]
                .iter()
                .position(|&x| x == q || x == b'\\' || x < 0x0e)
                .unwrap_or(b.len() - i)
        };
        for stop in [
            b'\\', b'\n', b'\r', b'\t', b'\x0d', b'\x0e', b'"', b'\'', b'x',
        ] {
            for len in 0..40 {
                for at in 0..len.max(1) {
                    let mut b: Vec<u8> = (0..len)
                        .map(|k| [b'a', 0xc3, 0xa9, 0x80, b'!'][k % 5])
                        .collect();
                    if at < len {
                        b[at] = stop;
                    }
                    for i in 0..=len {
                        for q in [b'"', b'\'', b'x'] {
                            assert_eq!(
                                next_string_stop(&b, i, q),
                                slow(&b, i, q),
                                "{b:?} from {i}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn nesting_past_what_the_grammars_can_hold_is_not_parsed() {
        // 260 levels on one line and 300 indented lines would abort inside tree-sitter.
        let seq = format!("{}x\n", "- ".repeat(260));
        assert!(parse(Lang::Yaml, &seq).is_err());
        let mut py = String::new();
        for i in 0..300 {
            py.push_str(&format!("{}if x:\n", " ".repeat(i)));
        }
        py.push_str(&format!("{}y = 'a'\n", " ".repeat(300)));
        assert!(python(&py).is_err());
        // Ordinary depth, and long lines without depth, still parse.
        assert!(parse(Lang::Yaml, &format!("{}x\n", "- ".repeat(20))).is_ok());
        let long = format!("a: \"{}\"\n", "x ".repeat(5000));
        assert!(parse(Lang::Yaml, &long).is_ok());
        assert!(parse(
            Lang::Json,
            &format!("{}{}", "[".repeat(300), "]".repeat(300))
        )
        .is_ok());
    }

    /// The state guard alone (without [`too_deep`]) keeps the poisoned inputs of issue 9 from
    /// aborting: 520 levels carried over backslash continuations with an open string, and 260
    /// bare-CR mappings.
    #[test]
    fn the_scanner_guard_alone_prevents_the_abort() {
        let mut py = String::new();
        for i in 0..520 {
            py.push_str(&format!(
                "{}\\\n{}if 1:\n",
                " ".repeat(i / 2),
                " ".repeat(i - i / 2)
            ));
        }
        py.push_str(&format!("{}x = 'abc\n", " ".repeat(520)));
        assert!(python_too_deep(&py));
        let mut yaml = String::new();
        for i in 0..300 {
            yaml.push_str(&format!("{}k{i}:\r", " ".repeat(i)));
        }
        assert!(too_deep(Lang::Yaml, &yaml));
        assert!(with_parser(Lang::Yaml, |p| p.parse(&yaml, None)).is_some());
    }

    /// Every construct ruff's parser nests on, inside f-strings (and t-strings) too: at the
    /// deepest depth the guard lets through the text is read (and its tree dropped) on a thread
    /// with half the stack of a rayon worker or tokio blocking thread; one level deeper it is
    /// refused, and the refusal is a site that says so.
    #[test]
    fn nesting_inside_f_strings_is_bounded_and_read_on_a_small_stack() {
        use crate::extract::{calls_in, HostKind, Site};
        let call = "\nnetbox_get_objects(\"dcim.device\", {\"nme\": \"a\"})\n";
        // (head, step, middle, closing step, tail): the text is head + step*k + middle +
        // close*k + tail.
        let shapes: [(&str, &str, &str, &str, &str); 14] = [
            ("x = f\"{", "[", "", "]", "}\""),
            ("x = f\"{", "(", "1,", ")", "}\""),
            ("x = f\"{", "f(", "", ")", "}\""),
            ("x = t\"{", "[", "", "]", "}\""),
            ("x = f'''{", "[", "", "]", "}'''"),
            ("x = rf\"{", "{1: ", "1", "}", "}\""),
            ("x = f\"{", "not ", "y", "", "}\""),
            ("x = f\"{", "-", "1", "", "}\""),
            ("x = f\"{", "1+", "1", "", "}\""),
            ("x = f\"{", "(lambda: ", "0", ")", "}\""),
            ("x = ", "f\"{", "x", "}\"", ""),
            ("x = ", "f'{", "x", "}'", ""),
            ("x = f\"{x:", "{x:", "", "}", "}\""),
            ("x = f\"{a", "[b", "", "]", "!r:>{w}}\""),
        ];
        for (head, step, middle, close, tail) in shapes {
            let text = |k: usize| {
                format!(
                    "{head}{}{middle}{}{tail}{call}",
                    step.repeat(k),
                    close.repeat(k)
                )
            };
            let k = (1..5000)
                .find(|&k| python_too_deep(&text(k)))
                .expect("the guard stops every shape")
                - 1;
            assert!(k > 150, "{step:?}: only {k} levels pass the guard");
            let (at, over) = (text(k), text(k + 1));
            let found = std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn(move || {
                    let kinds = |t: &str| -> Vec<&'static str> {
                        calls_in(t, 0, HostKind::Python)
                            .iter()
                            .map(|s| match s {
                                Site::Rest(_) => "rest",
                                Site::Graphql(_) => "graphql",
                                Site::NotChecked(_) => "not checked",
                            })
                            .collect()
                    };
                    (kinds(&at), kinds(&over))
                })
                .unwrap()
                .join()
                .expect("no stack overflow");
            assert_eq!(
                found,
                (vec!["rest"], vec!["not checked"]),
                "{step:?} at {k} levels"
            );
        }
    }

    /// The guard reads Python's tokens as ruff's lexer does: what is text (escaped braces,
    /// named escapes, plain strings, comments, a word that is no string prefix) opens nothing,
    /// and what an unterminated one-line f-string opened ends with its line.
    #[test]
    fn the_guard_tokenizes_as_the_lexer_does() {
        // 14 brackets nest 28 deep (a level and the element that holds it).
        for (inner, code) in [
            // Text, not code: no level opens.
            ("f\"{{[[[[[[[[[[[[[[}}\"", false),
            ("\"{[[[[[[[[[[[[[[\"", false),
            ("if\"{[[[[[[[[[[[[[[\" else 1", false),
            ("f\"\\N{LEFT SQUARE BRACKET}\"", false),
            ("b'{' # [[[[[[[[[[[[[[\n", false),
            // Code inside a field: levels open (a raw f-string's `\{` still opens a field).
            ("f\"{[[[[[[[[[[[[[[]]]]]]]]]]]]]]}\"", true),
            ("rf\"\\{[[[[[[[[[[[[[[]]]]]]]]]]]]]]}\"", true),
            ("f\"{x:{[[[[[[[[[[[[[[]]]]]]]]]]]]]]}}\"", true),
            ("f\"{\n[[[[[[[[[[[[[[]]]]]]]]]]]]]]}\"", true),
            ("f'{f\"{[[[[[[[[[[[[[[]]]]]]]]]]]]]]}\"}'", true),
        ] {
            let depth = python_expr_depth(format!("x = {inner}").as_bytes());
            assert_eq!(depth >= 28, code, "{inner:?}: {depth}");
        }
        // A one-line f-string left open in its text (here a format spec) at its line end
        // drops the fields it opened; a field's code goes on over lines (as in ruff's lexer).
        let open = format!("x = f\"{}\ny = 1\n", "{x:".repeat(100));
        assert!(python_expr_depth(open.as_bytes()) > 200);
        assert!(!python_too_deep(&open.repeat(50)));
        assert!(python_too_deep(&format!("x = f\"{{\n{}", "[".repeat(600))));
    }

    /// No example or fixture is refused, nor is it once a bracket or an f-string field is left
    /// open at its top (as while typing): the bound only stops what nests.
    #[test]
    fn real_files_pass_the_guard_also_half_typed() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = vec![root.join("examples"), root.join("tests/fixtures")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "py" || x == "md") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 10, "{files:?}");
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for head in ["", "x = (\n", "x = f\"{\n", "x = f\"{(\n"] {
                assert!(
                    !python_too_deep(&format!("{head}{text}")),
                    "{} with {head:?}",
                    p.display()
                );
            }
        }
    }

    /// The SSE2 test of sixteen bytes takes the bytes of the table, at every position.
    #[test]
    fn stop_mask_takes_the_table_s_bytes() {
        for c in 0..=255u8 {
            for at in 0..16 {
                let mut block = [b'a'; 16];
                block[at] = c;
                let want = if STOP[c as usize] { 1 << at } else { 0 };
                assert_eq!(stop_mask16(&block), want, "{c:#x} at {at}");
            }
        }
        // The tail of a text: the bytes past its end are no stops.
        // SAFETY: sixteen bytes a step.
        unsafe {
            assert_eq!(stop_mask::<false>(b"x(\n", 0), 0b110);
            assert_eq!(stop_mask::<false>(b"0123456789abcdef\"", 16), 1);
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // The AVX2 test of thirty-two bytes, likewise.
            for c in 0..=255u8 {
                for at in 0..32 {
                    let mut block = [b'a'; 32];
                    block[at] = c;
                    let want = if STOP[c as usize] { 1 << at } else { 0 };
                    // SAFETY: the processor has AVX2.
                    assert_eq!(unsafe { stop_mask32(&block) }, want, "{c:#x} at {at}");
                }
            }
            // SAFETY: the processor has AVX2.
            unsafe {
                assert_eq!(stop_mask::<true>(b"x(\n", 0), 0b110);
                let t = b"0123456789abcdef0123456789abcdef\"";
                assert_eq!(stop_mask::<true>(t, 32), 1);
                assert_eq!(stop_mask::<true>(t, 16), 1 << 16);
            }
        }
    }

    /// [`python_over`] read sixteen bytes a step, whatever the processor has (the tests of the
    /// guard take both widths where AVX2 is).
    fn python_over_narrow(b: &[u8], limit: usize, indent_limit: usize) -> bool {
        // SAFETY: sixteen bytes a step.
        unsafe { python_over_by::<false>(b, limit, indent_limit) }
    }

    /// The guard's reading ([`python_expr_over`]) decides as the exact bound does, for every
    /// limit, on texts made of the pieces that tokenize differently (brackets, strings of every
    /// kind and prefix, f-string fields and specs, escapes, comments, line ends, `;`, words
    /// before quotes), long ones (past the length it proves without reading exactly) and deep
    /// ones.
    #[test]
    fn the_fast_guard_decides_as_the_exact_bound() {
        use proptest::prelude::*;
        const PIECES: &[&str] = &[
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            ",",
            ";",
            "\n",
            "\r",
            "\r\n",
            " ",
            "\t",
            "x",
            "ab",
            "1",
            "+",
            ".",
            ":",
            "=",
            "|",
            "é",
            "if",
            "r",
            "b",
            "rb",
            "f",
            "F",
            "t",
            "fr",
            "u",
            "#",
            "# c(\n",
            "\\",
            "\\\n",
            "\"",
            "'",
            "\"\"\"",
            "'''",
            "\"a\"",
            "'b'",
            "\"\\\"\"",
            "'(['",
            "\"\"\"a\n(\"\"\"",
            "f\"",
            "f'",
            "rb\"",
            "F'",
            "t\"",
            "f\"{x}\"",
            "f'{x:{y}}'",
            "f\"{",
            "{{",
            "}}",
            "\\N{",
            "not ",
            "lambda: ",
            "-",
            "x = (",
            "\"x\" * 300",
            "\n    ",
            "\n\t",
            "\n  \\\n  ",
            "\x0c",
            "\n \r ",
        ];
        let text = prop::collection::vec(prop::sample::select(PIECES), 0..200)
            .prop_map(|pieces| pieces.concat());
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 3000,
            ..ProptestConfig::default()
        });
        runner
            .run(&(text, 1usize..8), |(text, repeat)| {
                let text = text.repeat(repeat);
                let b = text.as_bytes();
                let depth = python_expr_depth(b);
                let indent = python_indent_max(b);
                for limit in (1..12).chain([depth.saturating_sub(1), depth, depth + 1]) {
                    let limit = limit.max(1);
                    prop_assert_eq!(
                        python_expr_over(b, limit),
                        depth > limit,
                        "limit {} depth {} {:?}",
                        limit,
                        depth,
                        text
                    );
                    prop_assert_eq!(
                        python_over_narrow(b, limit, usize::MAX),
                        depth > limit,
                        "sixteen bytes a step: limit {} depth {} {:?}",
                        limit,
                        depth,
                        text
                    );
                    for k in [0, 1, 4, indent.saturating_sub(1), indent] {
                        prop_assert_eq!(
                            python_over(b, limit, k),
                            depth > limit || indent > k,
                            "limit {} depth {} indent {} of {} {:?}",
                            limit,
                            depth,
                            k,
                            indent,
                            text
                        );
                        prop_assert_eq!(
                            python_over_narrow(b, limit, k),
                            depth > limit || indent > k,
                            "sixteen bytes a step: limit {} depth {} indent {} of {} {:?}",
                            limit,
                            depth,
                            k,
                            indent,
                            text
                        );
                    }
                }
                Ok(())
            })
            .unwrap();
        // Deep and long texts at the real bound.
        for (head, step, tail) in [
            ("x = ", "[", ""),
            ("x = 1", "+1", ""),
            ("x = ", "(", ""),
            ("x = \"", "[", "\"\n"),
            ("x = '''", "(\n", "'''\n"),
            ("# ", "(", "\nx = 1\n"),
            ("x = ", "\\\n(", ""),
            ("x = ", "f\"{", ""),
            ("x = [", "1,\n", "]\n"),
        ] {
            for k in [100, 498, 499, 500, 501, 999, 1000, 1001, 3000] {
                let t = format!("{head}{}{tail}", step.repeat(k));
                let b = t.as_bytes();
                assert_eq!(
                    python_expr_too_deep(b),
                    python_expr_depth(b) > MAX_EXPR_NESTING,
                    "{step:?} x {k}"
                );
                assert_eq!(
                    python_over_narrow(b, MAX_EXPR_NESTING, usize::MAX),
                    python_expr_depth(b) > MAX_EXPR_NESTING,
                    "sixteen bytes a step: {step:?} x {k}"
                );
            }
        }
    }

    /// On real files (the examples and fixtures, each also after an open bracket), the fast
    /// guard finds the exact bound: at it nothing is over, one below it something is.
    #[test]
    fn the_fast_guard_finds_the_bound_of_real_files() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("examples"), root.join("tests/fixtures")];
        let mut n = 0;
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                for head in ["", "x = (\n", "x = f\"{\n"] {
                    let t = format!("{head}{text}");
                    let b = t.as_bytes();
                    let depth = python_expr_depth(b);
                    assert!(!python_expr_over(b, depth.max(1)), "{}", p.display());
                    assert!(
                        !python_over_narrow(b, depth.max(1), usize::MAX),
                        "{}",
                        p.display()
                    );
                    if depth > 1 {
                        assert!(python_expr_over(b, depth - 1), "{}", p.display());
                        assert!(
                            python_over_narrow(b, depth - 1, usize::MAX),
                            "{}",
                            p.display()
                        );
                    }
                    n += 1;
                }
            }
        }
        assert!(n > 100, "{n}");
    }

    #[test]
    fn python_indentation_is_measured_as_the_scanner_does() {
        // Continuations carry the count; \r and form feed restart it; tabs count 8.
        assert_eq!(python_indent_max(b"x\n   \\\n    y"), 7);
        assert_eq!(python_indent_max(b"x\n   \\\r\n    y"), 7);
        assert_eq!(python_indent_max(b"x\n   \x0c  y"), 3);
        assert_eq!(python_indent_max(b"\t\ty"), 16);
        assert_eq!(python_indent_max(b"  \\x"), 2);
    }

    #[test]
    fn closes_open_brackets_and_strings() {
        assert_eq!(closers("f(\"a\", {\"x\": 1", true), "})");
        assert_eq!(closers("f(\"a\", {\"x", true), "\"})");
        assert_eq!(closers("f('''abc", true), "''')");
        assert_eq!(closers("f(x) # (", true), "");
        assert_eq!(closers("[{\"a\": [1", false), "]}]");
    }
}
