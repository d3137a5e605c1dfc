//! What a block of GraphQL text is, decided by the text before it is parsed: one document,
//! several example documents side by side, a bare selection, a fragment of a document (an
//! argument such as `filters: {site_id: $x}`), or a schema excerpt (SDL).
//!
//! Skill files and READMEs put WRONG/CORRECT pairs in one ```` ```graphql ```` fence, one per
//! line or separated by blank lines. As one document every anonymous operation is an error
//! ("anonymous operation cannot be selected when the document contains other operations", 8×
//! on one real reference file), so operations that are each complete on their own and do not
//! refer to each other are checked as separate documents. All ranges are byte offsets into
//! the text.

use std::ops::Range;

/// How to check a block of GraphQL text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// One document (the usual case, and any text this module cannot read).
    One,
    /// Several documents side by side, each checked on its own: two or more operations, at
    /// least one anonymous or two with the same name, no fragment definitions or named fragment
    /// spreads (nothing refers to another definition), no `variables` object beside the text.
    Separate(Vec<Range<usize>>),
    /// Selections without their braces (`device_list(filters: {...}) { id }`) whose first field
    /// is a root field of `Query`: each top-level selection checked as `{ <selection> }` (a
    /// WRONG/CORRECT pair of the same field side by side would conflict as one selection set).
    Selection(Vec<Range<usize>>),
    /// A fragment of a document (it starts with an argument, an input field or a field that is
    /// not a root field): one information finding at `at`, naming what it starts with.
    Snippet {
        at: Range<usize>,
        starts_with: String,
    },
    /// Type-system definitions (`type DeviceType { ... }`): a schema excerpt, not a request.
    Schema,
}

/// `text` with every placeholder ellipsis (`...` or `…` standing for "more fields": followed by
/// `}`, `)`, a comment or the line end, not by a fragment name, `on`, `{` or `@`) blanked out,
/// byte for byte, so offsets stay valid. `None` when there is none.
pub fn blank_placeholders(text: &str) -> Option<String> {
    let mut out: Option<String> = None;
    for pat in ["...", "\u{2026}"] {
        // The same non-overlapping matches as `match_indices`, found with SIMD.
        for i in memchr::memmem::find_iter(text.as_bytes(), pat.as_bytes()) {
            let after = text[i + pat.len()..].trim_start_matches([' ', '\t']);
            let placeholder = after.is_empty()
                || after.starts_with(['}', ')', '\n', '\r', '#', ','])
                || (pat != "..."
                    && !after.starts_with(['{', '@'])
                    && leading_name(after).is_empty());
            if placeholder && !(pat == "..." && i > 0 && text[..i].ends_with('.')) {
                let o = out.get_or_insert_with(|| text.to_string());
                o.replace_range(i..i + pat.len(), &" ".repeat(pat.len()));
            }
        }
    }
    out
}

/// Most definitions split into separate documents; beyond it the text is one document.
const MAX_SEPARATE: usize = 200;

const SDL_KEYWORDS: &[&str] = &[
    "type",
    "input",
    "enum",
    "scalar",
    "interface",
    "union",
    "schema",
    "directive",
    "extend",
];

/// Decides how to check `text`. `has_variables`: a `variables` object came with it (a request
/// body, always one document). `is_root_field` says whether a name is a field of `Query`.
pub fn plan(text: &str, has_variables: bool, is_root_field: impl Fn(&str) -> bool) -> Plan {
    let chunks = top_level(text);
    let Some(first) = chunks.first() else {
        return Plan::One;
    };
    let head = &text[first.start..];
    let word = leading_name(head);
    if head.starts_with('{') || matches!(word, "query" | "mutation" | "subscription" | "fragment") {
        return separate(text, &chunks, has_variables).unwrap_or(Plan::One);
    }
    if SDL_KEYWORDS.contains(&word) && !leading_name(after_name(head, word)).is_empty() {
        return Plan::Schema;
    }
    if word.is_empty() {
        // A value (`[1, 2]`, `"x"`, `$id`) or stray punctuation.
        let at = first.start..first.start + head.chars().next().map_or(0, char::len_utf8);
        return Plan::Snippet {
            at,
            starts_with: "a value".into(),
        };
    }
    let at = first.start..first.start + word.len();
    let rest = after_name(head, word);
    if let Some(after_colon) = rest.strip_prefix(':') {
        // `alias: device_list(...)` is a field; `filters: {...}` is an argument.
        let target = leading_name(after_colon.trim_start());
        let then = after_name(after_colon.trim_start(), target);
        if !target.is_empty()
            && is_root_field(target)
            && (then.starts_with('(') || then.starts_with('{'))
        {
            return Plan::Selection(chunks);
        }
        return Plan::Snippet {
            at,
            starts_with: format!("the argument or input field `{word}:`"),
        };
    }
    if is_root_field(word) {
        return Plan::Selection(chunks);
    }
    Plan::Snippet {
        at,
        starts_with: format!("`{word}`, which is not a root field of `Query`"),
    }
}

/// Several example operations, or `None` when the text is one document.
fn separate(text: &str, chunks: &[Range<usize>], has_variables: bool) -> Option<Plan> {
    if chunks.len() < 2 || chunks.len() > MAX_SEPARATE || has_variables {
        return None;
    }
    let mut names = Vec::new();
    let mut anonymous = false;
    for c in chunks {
        let t = &text[c.clone()];
        if t.starts_with('{') {
            anonymous = true;
            continue;
        }
        let kw = leading_name(t);
        if !matches!(kw, "query" | "mutation" | "subscription") {
            return None;
        }
        let name = leading_name(after_name(t, kw));
        if name.is_empty() {
            anonymous = true;
        } else {
            names.push(name);
        }
    }
    if has_named_spread(text) {
        return None;
    }
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    (anonymous || sorted.len() < names.len()).then(|| Plan::Separate(chunks.to_vec()))
}

/// `...Name` (a named fragment spread; `... on Type` and `... {` are inline fragments).
fn has_named_spread(text: &str) -> bool {
    text.match_indices("...").any(|(i, _)| {
        let name = leading_name(text[i + 3..].trim_start());
        !name.is_empty() && name != "on"
    })
}

/// The GraphQL name at the start of `s` (empty when `s` does not start with one).
fn leading_name(s: &str) -> &str {
    let end = s
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .unwrap_or(s.len());
    if s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return "";
    }
    &s[..end]
}

/// What follows the leading `name` of `s`, without leading whitespace, commas and comments.
fn after_name<'a>(s: &'a str, name: &str) -> &'a str {
    skip_ignored(&s[name.len().min(s.len())..])
}

fn skip_ignored(mut s: &str) -> &str {
    loop {
        s = s.trim_start_matches(|c: char| c.is_whitespace() || c == ',' || c == '\u{feff}');
        match s.strip_prefix('#') {
            Some(rest) => s = rest.find('\n').map_or("", |i| &rest[i..]),
            None => return s,
        }
    }
}

/// The top-level definitions of `text`: from the first token at nesting depth 0 to the `}` that
/// closes its selection set (or the end of the text). Comments, strings and block strings are
/// skipped, so braces inside them do not count. Unbalanced text gives one range to the end.
pub fn top_level(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut start, mut i) = (0usize, None::<usize>, 0usize);
    while i < b.len() {
        if start.is_some() {
            // Inside a definition only a bracket, a string or a comment changes anything:
            // whitespace, names, punctuation (and a BOM) up to it are skipped.
            while let Some(eight) = b.get(i..i + 8) {
                if eight.iter().any(|&c| MARKS[c as usize]) {
                    break;
                }
                i += 8;
            }
            while i < b.len() && !MARKS[b[i] as usize] {
                i += 1;
            }
            if i == b.len() {
                break;
            }
        }
        let c = b[i];
        match c {
            b'#' => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                continue;
            }
            b'"' => {
                start.get_or_insert(i);
                i = skip_string(b, i);
                continue;
            }
            b' ' | b'\t' | b'\n' | b'\r' | b',' => {}
            _ if c >= 0x80 && b[i..].starts_with("\u{feff}".as_bytes()) => {
                // Skip the whole BOM: a start inside its three bytes is no char boundary.
                i += "\u{feff}".len();
                continue;
            }
            _ => {
                start.get_or_insert(i);
                match c {
                    b'{' | b'(' | b'[' => depth += 1,
                    b'}' | b')' | b']' => {
                        depth = depth.saturating_sub(1);
                        // `}` closes a definition; `)` closes a bare field without a selection
                        // set (`device_list(filters: {...})`) unless `{` or `@` follows.
                        let ends = depth == 0
                            && (c == b'}'
                                || (c == b')'
                                    && !skip_ignored(&text[i + 1..]).starts_with(['{', '@'])));
                        if ends {
                            if let Some(s) = start.take() {
                                out.push(s..i + 1);
                            }
                        }
                    }
                    _ => {
                        // With a start set, only a bracket, a string or a comment changes
                        // anything: names, punctuation and whitespace up to it are skipped.
                        i += 1;
                        while i < b.len()
                            && !matches!(
                                b[i],
                                b'#' | b'"' | b'{' | b'}' | b'(' | b')' | b'[' | b']'
                            )
                        {
                            i += 1;
                        }
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
    if let Some(s) = start {
        let end = text.trim_end().len().max(s);
        out.push(s..end);
    }
    out
}

/// The bytes [`top_level`] stops at inside a definition: `#`, `"` and the brackets.
static MARKS: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let marks = b"#\"{}()[]";
    while k < marks.len() {
        t[marks[k] as usize] = true;
        k += 1;
    }
    t
};

/// The index after the string starting at `i` (`"..."` ends at an unescaped quote or a line
/// end; `"""..."""` at the closing triple quote).
fn skip_string(b: &[u8], i: usize) -> usize {
    if b[i..].starts_with(b"\"\"\"") {
        let mut j = i + 3;
        while j < b.len() {
            if b[j] == b'\\' && b[j + 1..].starts_with(b"\"\"\"") {
                j += 4;
            } else if b[j..].starts_with(b"\"\"\"") {
                return j + 3;
            } else {
                j += 1;
            }
        }
        return b.len();
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            b'\n' => return j,
            _ => j += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(n: &str) -> bool {
        matches!(n, "device_list" | "site_list" | "device")
    }

    #[test]
    fn definitions() {
        let t = "# WRONG\n{ a(x: \"}\") { b } }\n\n# CORRECT\nquery Q($v: Int) { a { b } }\n";
        let r = top_level(t);
        assert_eq!(r.len(), 2);
        assert_eq!(&t[r[0].clone()], "{ a(x: \"}\") { b } }");
        assert!(t[r[1].clone()].starts_with("query Q("));
        assert_eq!(
            top_level("  # only a comment\n"),
            Vec::<Range<usize>>::new()
        );
        assert_eq!(top_level("{ a { b }").len(), 1);
        assert_eq!(top_level("a(x: 1)\na(x: 2)").len(), 2);
        assert_eq!(top_level("query Q($v: Int) { a }").len(), 1);
        assert_eq!(top_level("query Q($v: Int)\n  @d { a }").len(), 1);
        // A bracket in a comment or a string after a name is no bracket.
        assert_eq!(
            top_level("query Q # {\n{ a(x: \"}\") }\n{ b }"),
            [0..25, 26..31]
        );
        // A BOM before a definition (pasted mid-text) is skipped whole (found by tests/fuzz.rs).
        let bom = "# \n\u{feff}xpect: none\nquery($id: ID!) { a }";
        let r = top_level(bom);
        assert_eq!(&bom[r[0].clone()], "xpect: none\nquery($id: ID!) { a }");
        assert!(matches!(plan(bom, false, root), Plan::Snippet { .. }));
    }

    #[test]
    fn plans() {
        let pair = "{ device_list { id } }\n{ site_list { id } }";
        assert!(matches!(plan(pair, false, root), Plan::Separate(v) if v.len() == 2));
        assert_eq!(plan(pair, true, root), Plan::One);
        let same_name = "query Q { device_list { id } }\nquery Q { site_list { id } }";
        assert!(matches!(plan(same_name, false, root), Plan::Separate(_)));
        let named = "query A { device_list { id } }\nquery B { site_list { id } }";
        assert_eq!(plan(named, false, root), Plan::One);
        let spread =
            "{ device_list { ...F } }\n{ site_list { id } }\nfragment F on DeviceType { id }";
        assert_eq!(plan(spread, false, root), Plan::One);
        let inline = "{ device_list { ... on DeviceType { id } } }\n{ site_list { id } }";
        assert!(matches!(plan(inline, false, root), Plan::Separate(_)));
        let one = plan("device_list(filters: {}) { id }", false, root);
        assert!(matches!(one, Plan::Selection(v) if v.len() == 1 && v[0].end == 31));
        assert!(matches!(
            plan("a: device(id: 1) { id }\nsite_list { id }", false, root),
            Plan::Selection(v) if v.len() == 2
        ));
        assert!(matches!(
            plan("filters: {site_id: $x}", false, root),
            Plan::Snippet { at, .. } if at == (0..7)
        ));
        assert!(matches!(
            plan("interfaces { name }", false, root),
            Plan::Snippet { .. }
        ));
        assert!(matches!(plan("[1, 2]", false, root), Plan::Snippet { .. }));
        assert_eq!(
            plan("type DeviceType { id: ID! }", false, root),
            Plan::Schema
        );
        assert_eq!(plan("{ device_list { id } }", false, root), Plan::One);
        assert_eq!(plan("", false, root), Plan::One);
        assert_eq!(
            blank_placeholders("{ a { id ... } b { ...F } c { ... on T { id } } }").as_deref(),
            Some("{ a { id     } b { ...F } c { ... on T { id } } }")
        );
        assert_eq!(
            blank_placeholders("{ a { id \u{2026} } }").as_deref(),
            Some("{ a { id     } }")
        );
        assert_eq!(blank_placeholders("{ a { ...F } }"), None);
    }

    // The scans as they were before the table and memmem (issue 36), for `same_as_before`.
    fn top_level_before(text: &str) -> Vec<Range<usize>> {
        let b = text.as_bytes();
        let mut out = Vec::new();
        let (mut depth, mut start, mut i) = (0usize, None::<usize>, 0usize);
        while i < b.len() {
            let c = b[i];
            match c {
                b'#' => {
                    i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                    continue;
                }
                b'"' => {
                    start.get_or_insert(i);
                    i = skip_string(b, i);
                    continue;
                }
                b' ' | b'\t' | b'\n' | b'\r' | b',' => {}
                _ if c >= 0x80 && b[i..].starts_with("\u{feff}".as_bytes()) => {
                    // Skip the whole BOM: a start inside its three bytes is no char boundary.
                    i += "\u{feff}".len();
                    continue;
                }
                _ => {
                    start.get_or_insert(i);
                    match c {
                        b'{' | b'(' | b'[' => depth += 1,
                        b'}' | b')' | b']' => {
                            depth = depth.saturating_sub(1);
                            // `}` closes a definition; `)` closes a bare field without a selection
                            // set (`device_list(filters: {...})`) unless `{` or `@` follows.
                            let ends = depth == 0
                                && (c == b'}'
                                    || (c == b')'
                                        && !skip_ignored(&text[i + 1..]).starts_with(['{', '@'])));
                            if ends {
                                if let Some(s) = start.take() {
                                    out.push(s..i + 1);
                                }
                            }
                        }
                        _ => {
                            // With a start set, only a bracket, a string or a comment changes
                            // anything: names, punctuation and whitespace up to it are skipped.
                            i += 1;
                            while i < b.len()
                                && !matches!(
                                    b[i],
                                    b'#' | b'"' | b'{' | b'}' | b'(' | b')' | b'[' | b']'
                                )
                            {
                                i += 1;
                            }
                            continue;
                        }
                    }
                }
            }
            i += 1;
        }
        if let Some(s) = start {
            let end = text.trim_end().len().max(s);
            out.push(s..end);
        }
        out
    }

    fn blank_placeholders_before(text: &str) -> Option<String> {
        let mut out: Option<String> = None;
        for pat in ["...", "\u{2026}"] {
            for (i, _) in text.match_indices(pat) {
                let after = text[i + pat.len()..].trim_start_matches([' ', '\t']);
                let placeholder = after.is_empty()
                    || after.starts_with(['}', ')', '\n', '\r', '#', ','])
                    || (pat != "..."
                        && !after.starts_with(['{', '@'])
                        && leading_name(after).is_empty());
                if placeholder && !(pat == "..." && i > 0 && text[..i].ends_with('.')) {
                    let o = out.get_or_insert_with(|| text.to_string());
                    o.replace_range(i..i + pat.len(), &" ".repeat(pat.len()));
                }
            }
        }
        out
    }

    /// The table-driven `top_level` and the memmem `blank_placeholders` give what the scans
    /// before them gave, on every fixture and bench document and on their heads and tails cut
    /// at 300 places or every 7th byte (unbalanced brackets, strings and comments cut open).
    #[test]
    fn same_as_before() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = vec![
            std::fs::read_to_string(root.join("benches/graphql-docs/documents.txt")).unwrap(),
            std::fs::read_to_string(root.join("benches/graphql-docs/generated-4.7.3.graphql"))
                .unwrap(),
            "{ a { id .... } b { ...... } c \u{2026}\u{2026} d { ... } } # ...\n\u{feff}{ x }"
                .to_string(),
        ];
        for dir in std::fs::read_dir(root.join("tests/fixtures/graphql"))
            .unwrap()
            .flatten()
        {
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            texts.extend(
                files
                    .flatten()
                    .filter_map(|f| std::fs::read_to_string(f.path()).ok()),
            );
        }
        let mut asked = 0;
        for t in &texts {
            let step = (t.len() / 300).max(7);
            for cut in (0..t.len())
                .step_by(step)
                .filter(|&c| t.is_char_boundary(c))
            {
                for part in [&t[..cut], &t[cut..]] {
                    assert_eq!(top_level(part), top_level_before(part), "{part}");
                    assert_eq!(blank_placeholders(part), blank_placeholders_before(part));
                    asked += 1;
                }
            }
        }
        assert!(asked > 1000, "{asked}");
    }
}
