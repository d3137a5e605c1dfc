//! Parsing helpers shared by the extractors: one reusable tree-sitter parser per language and
//! thread (a Markdown file may hold thousands of fences), a whole-tree walk without recursion,
//! and the "close what is open" repair used to read half-typed text.

use std::cell::RefCell;
use std::sync::OnceLock;

use tree_sitter::{Language, Node, Parser, Tree};

use super::scanner_guard;

/// Languages parsed with tree-sitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Json,
    Yaml,
}

/// Largest embedded text parsed structurally (bytes); larger texts only get the URL scan.
/// 32 MiB: a `.py` file of 100,000 tool calls (8.6 MB) is read in full (issue 13).
pub(crate) const MAX_PARSE: usize = 32 * 1024 * 1024;

/// Deepest literal nesting converted; deeper values become `Value::Expr`.
pub(crate) const MAX_DEPTH: usize = 64;

thread_local! {
    static PARSERS: RefCell<[Option<Parser>; 3]> = const { RefCell::new([None, None, None]) };
}

fn language(lang: Lang) -> Language {
    match lang {
        Lang::Python => scanner_guard::python(),
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
///
/// Python is parsed with every bare `\r` read as `\n` (Python's universal newlines; the
/// grammar's scanner only ends lines at `\n`); the replacement keeps every byte offset.
pub(crate) fn parse(lang: Lang, text: &str) -> Option<Tree> {
    if text.len() > MAX_PARSE {
        return None;
    }
    let text = match lang {
        Lang::Python => bare_cr_as_lf(text),
        _ => std::borrow::Cow::Borrowed(text),
    };
    if too_deep(lang, &text) {
        return None;
    }
    with_parser(lang, |p| p.parse(text.as_bytes(), None))?
}

/// `text` with each `\r` that is not followed by `\n` replaced by `\n` (same length).
fn bare_cr_as_lf(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let bare = |i: usize| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n');
    if !(0..b.len()).any(bare) {
        return std::borrow::Cow::Borrowed(text);
    }
    let out: Vec<u8> = (0..b.len())
        .map(|i| if bare(i) { b'\n' } else { b[i] })
        .collect();
    // Only an ASCII byte was replaced by another.
    std::borrow::Cow::Owned(String::from_utf8(out).expect("ASCII replaced by ASCII"))
}

/// Deepest block nesting read (an upper bound, see [`too_deep`]). The YAML and Python grammars
/// keep one indentation level per block in a state that tree-sitter copies into a 1,024-byte
/// buffer (4 bytes a level in tree-sitter-yaml 0.7, 2 in tree-sitter-python 0.25, plus up to 257
/// bytes of string delimiters); past it the C library aborts the process, which no panic guard
/// can catch ([`super::scanner_guard`] is the backstop). Real code stays far below this.
pub(crate) const MAX_NESTING: usize = 200;

/// True when `text` might nest blocks deeper than [`MAX_NESTING`]. Each level starts at a
/// deeper indentation, so the deepest indentation as each grammar's scanner measures it bounds
/// the depth:
/// - Python (tree-sitter-python 0.25 `scanner.c`): after a `\n`, a space counts 1, a tab 8, a
///   `\r` or form feed starts the count again, a backslash continuation (`\` then `\n` or
///   `\r\n`) carries the count on to the next line, a comment line is skipped;
/// - YAML (tree-sitter-yaml 0.7): columns restart at `\r` and at `\n`, and every `- `, `? ` or
///   `: ` on a line can open one more level there (`- - - x`).
pub(crate) fn too_deep(lang: Lang, text: &str) -> bool {
    match lang {
        Lang::Json => false, // no indentation state
        Lang::Python => python_indent_max(text.as_bytes()) > MAX_NESTING,
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

/// The deepest indentation tree-sitter-python's scanner can measure in `b`: its whitespace
/// loop run from the start and from after every `\n`.
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

/// `n.kind()` for a node of a tree of `lang`, read from a table by kind id: `Node::kind` finds
/// the name's C string, measures it and checks its UTF-8 on every call (≈ 4 % of a `.py` file
/// of tool calls). Ids outside the table (`ERROR`) take `Node::kind`.
pub(crate) fn kind<'t>(lang: Lang, n: Node<'t>) -> &'t str {
    static TABLES: [OnceLock<Box<[&'static str]>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let table = TABLES[lang as usize].get_or_init(|| {
        let l = language(lang);
        (0..l.node_kind_count())
            .map(|id| {
                let name = u16::try_from(id)
                    .ok()
                    .and_then(|id| l.node_kind_for_id(id))
                    .unwrap_or("");
                // Copied once per kind: the grammar's names outlive every tree, but the binding
                // ties them to the `Language` value.
                &*Box::leak(name.to_owned().into_boxed_str())
            })
            .collect()
    });
    match table.get(n.kind_id() as usize) {
        Some(name) if !name.is_empty() => name,
        _ => n.kind(),
    }
}

/// Field ids of tree-sitter-python used on hot paths (`child_by_field_id` instead of
/// `child_by_field_name`, which compares the name with every field name of the grammar).
pub(crate) struct PyFields {
    pub function: u16,
    pub arguments: u16,
    pub attribute: u16,
    pub object: u16,
    pub left: u16,
    pub right: u16,
    pub name: u16,
    pub value: u16,
    pub key: u16,
}

/// The [`PyFields`] of the Python grammar (0, no child, for a name it lacks).
pub(crate) fn py_fields() -> &'static PyFields {
    static FIELDS: OnceLock<PyFields> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let l = language(Lang::Python);
        let id = |name: &str| l.field_id_for_name(name).map_or(0, |f| f.get());
        PyFields {
            function: id("function"),
            arguments: id("arguments"),
            attribute: id("attribute"),
            object: id("object"),
            left: id("left"),
            right: id("right"),
            name: id("name"),
            value: id("value"),
            key: id("key"),
        }
    })
}

/// Every node of the tree in document order, without recursion; the children of a node for
/// which `f` returns false are not visited.
pub(crate) fn for_each_node_pruned<'t>(root: Node<'t>, mut f: impl FnMut(Node<'t>) -> bool) {
    let mut cursor = root.walk();
    loop {
        if f(cursor.node()) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Every node of the tree in document order, without recursion.
pub(crate) fn for_each_node<'t>(root: Node<'t>, mut f: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        f(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
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
        assert!(parse(Lang::Python, &py).is_none());
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
        assert!(too_deep(Lang::Python, &py));
        assert!(with_parser(Lang::Python, |p| p.parse(&py, None)).is_some());
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
        // A bare CR is a line end for Python, so it is parsed as one.
        assert_eq!(bare_cr_as_lf("a\rb\r\nc"), "a\nb\r\nc");
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
