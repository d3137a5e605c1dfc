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

/// Parses `text`; `None` if the text is too large, nests too deep or the parser fails.
pub(crate) fn parse(lang: Lang, text: &str) -> Option<Tree> {
    if text.len() > MAX_PARSE || too_deep(lang, text) {
        return None;
    }
    with_parser(lang, |p| p.parse(text.as_bytes(), None))?
}

/// Parses Python `text` with ruff's parser, which recovers from syntax errors (the tree then
/// holds what it could read and `errors()` is not empty; a bare `\r` ends a line, as in
/// Python). `None` when the text is larger than [`MAX_PARSE`] or [`python_too_deep`].
pub(crate) fn python(text: &str) -> Option<Parsed<ModModule>> {
    if text.len() > MAX_PARSE || python_too_deep(text) {
        return None;
    }
    Some(ruff_python_parser::parse_unchecked_source(
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
    python_indent_max(text.as_bytes()) > MAX_NESTING
        || python_expr_depth(text.as_bytes()) > MAX_EXPR_NESTING
}

/// True when `text` might nest blocks deeper than [`MAX_NESTING`]. Each level starts at a
/// deeper indentation, so the deepest indentation as the grammar's scanner measures it bounds
/// the depth. YAML (tree-sitter-yaml 0.7): columns restart at `\r` and at `\n`, and every `- `,
/// `? ` or `: ` on a line can open one more level there (`- - - x`).
pub(crate) fn too_deep(lang: Lang, text: &str) -> bool {
    match lang {
        Lang::Json => false, // no indentation state
        Lang::Yaml => text.split(['\r', '\n']).any(|line| {
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
                .filter(|w| matches!(w[0], b'-' | b'?' | b':') && matches!(w[1], b' ' | b'\t'))
                .count();
            width + opens > MAX_NESTING
        }),
    }
}

/// The deepest indentation of Python text `b` (an upper bound of its block nesting): after a
/// `\n`, a space counts 1, a tab 8, a `\r` or form feed starts the count again, a backslash
/// continuation (`\` then `\n` or `\r\n`) carries the count on to the next line (the
/// measure of tree-sitter-python 0.25's scanner, kept as the bound).
fn python_indent_max(b: &[u8]) -> usize {
    let starts = std::iter::once(0).chain(
        b.iter()
            .enumerate()
            .filter(|(_, c)| **c == b'\n')
            .map(|(i, _)| i + 1),
    );
    let mut max = 0;
    // A start inside a stretch already measured from an earlier start counts less there.
    let mut measured_to = 0;
    for start in starts {
        if start < measured_to {
            continue;
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
            max = max.max(width);
        }
        measured_to = i;
        if max > MAX_NESTING {
            break;
        }
    }
    max
}

/// An upper bound of the expression nesting of Python text `b`, from one pass over its bytes.
/// Inside each bracket level, every token of the current element (up to a `,`; a statement at
/// the top level, up to a line end or `;`) may nest one level deeper than the one before it
/// (`a.b.c`, `-x`, `x + y + z`), and a closed bracket counts as deep as the deepest element it
/// held; the bound is the largest sum over the open levels. Adjacent strings (an implicit
/// concatenation) count once, an f-string counts its deepest `{`; comments are skipped.
fn python_expr_depth(b: &[u8]) -> usize {
    // Per open level: the current element's count, and the largest count in the level.
    let mut levels: Vec<(usize, usize)> = vec![(0, 0)];
    let mut sum = 0usize;
    let mut max = 0usize;
    let mut last_string = false;
    let mut i = 0;
    let count = |levels: &mut Vec<(usize, usize)>, sum: &mut usize, max: &mut usize, n: usize| {
        let top = levels.last_mut().expect("the top level stays");
        top.0 += n;
        top.1 = top.1.max(top.0);
        *sum += n;
        *max = (*max).max(*sum + levels.len());
    };
    while i < b.len() {
        let c = b[i];
        let string = c == b'"' || c == b'\'';
        match c {
            b' ' | b'\t' | b'\x0c' => {}
            b'#' => {
                while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                    i += 1;
                }
                continue;
            }
            b'\\' => {
                // A line continuation (or a stray backslash).
                i += 1;
            }
            b'\n' | b'\r' | b';' if levels.len() == 1 => {
                sum = 0;
                levels[0].0 = 0;
                last_string = false;
            }
            b'\n' | b'\r' => {}
            b',' => {
                let top = levels.last_mut().expect("the top level stays");
                sum -= top.0;
                top.0 = 0;
            }
            b'(' | b'[' | b'{' => {
                count(&mut levels, &mut sum, &mut max, 1);
                levels.push((0, 0));
            }
            b')' | b']' | b'}' => {
                if levels.len() > 1 {
                    let (cur, peak) = levels.pop().expect("more than one level");
                    sum -= cur;
                    count(&mut levels, &mut sum, &mut max, peak + 1);
                }
            }
            b'"' | b'\'' => {
                // The prefix letters were read as a word just before.
                let prefix = &b[i.saturating_sub(3)..i];
                let f = prefix
                    .iter()
                    .rev()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .any(|c| matches!(c, b'f' | b'F' | b't' | b'T'));
                let triple = b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
                let ql = if triple { 3 } else { 1 };
                i += ql;
                let (mut braces, mut deepest) = (0usize, 0usize);
                while i < b.len() {
                    match b[i] {
                        b'\\' => i += 1,
                        b'{' if f => {
                            braces += 1;
                            deepest = deepest.max(braces);
                        }
                        b'}' if f => braces = braces.saturating_sub(1),
                        b'\n' if !triple => {
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
                let n = if last_string { 0 } else { 1 } + 2 * deepest;
                count(&mut levels, &mut sum, &mut max, n);
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                while i + 1 < b.len()
                    && (b[i + 1].is_ascii_alphanumeric() || b[i + 1] == b'_' || b[i + 1] >= 0x80)
                {
                    i += 1;
                }
                // A string prefix (`rb"..."`) is part of the string.
                if matches!(b.get(i + 1), Some(b'"' | b'\'')) {
                    i += 1;
                    continue;
                }
                count(&mut levels, &mut sum, &mut max, 1);
            }
            _ => count(&mut levels, &mut sum, &mut max, 1),
        }
        let blank = matches!(c, b' ' | b'\t' | b'\x0c' | b'\\')
            || matches!(c, b'\n' | b'\r') && levels.len() > 1;
        if !blank {
            last_string = string;
        }
        i += 1;
    }
    max
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

    #[test]
    fn nesting_past_what_the_grammars_can_hold_is_not_parsed() {
        // 260 levels on one line and 300 indented lines would abort inside tree-sitter.
        let seq = format!("{}x\n", "- ".repeat(260));
        assert!(parse(Lang::Yaml, &seq).is_none());
        let mut py = String::new();
        for i in 0..300 {
            py.push_str(&format!("{}if x:\n", " ".repeat(i)));
        }
        py.push_str(&format!("{}y = 'a'\n", " ".repeat(300)));
        assert!(python(&py).is_none());
        // Ordinary depth, and long lines without depth, still parse.
        assert!(parse(Lang::Yaml, &format!("{}x\n", "- ".repeat(20))).is_some());
        let long = format!("a: \"{}\"\n", "x ".repeat(5000));
        assert!(parse(Lang::Yaml, &long).is_some());
        assert!(parse(
            Lang::Json,
            &format!("{}{}", "[".repeat(300), "]".repeat(300))
        )
        .is_some());
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
