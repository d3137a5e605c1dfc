//! Issue 9 §8: property-based fuzzing on stable Rust (proptest). Random edits of every fixture
//! and example, random bytes, and deep nesting in every host language go through extraction,
//! the checks, positions, completion context, hover and the code actions; nothing may panic,
//! abort or hang, and every range must lie on character boundaries inside the text.
//!
//! Brief in `cargo test` (`FUZZ_CASES`, default 48 per property); `scripts/fuzz.sh` runs the
//! long version.

use std::path::Path;
use std::sync::OnceLock;

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::config::Settings;
use netbox_lsp::extract::{extract, HostKind};
use netbox_lsp::finding::{Edit, Finding};
use netbox_lsp::graphql::embedded_schema;
use netbox_lsp::index::embedded::embedded_index;
use netbox_lsp::lines::{ColumnUnit, LineIndex};
use netbox_lsp::server::code_action::fix_all;
use netbox_lsp::suppress::ignore_edits;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

fn knowledge() -> &'static Knowledge {
    static K: OnceLock<Knowledge> = OnceLock::new();
    K.get_or_init(|| Knowledge {
        index: Some(embedded_index("4.6.8")),
        graphql: embedded_schema("4.6.8"),
        ..Default::default()
    })
}

const KINDS: [HostKind; 7] = [
    HostKind::Markdown,
    HostKind::Notebook,
    HostKind::Python,
    HostKind::Yaml,
    HostKind::Json,
    HostKind::Graphql,
    HostKind::Text,
];

/// Every example and fixture host under 200 KB, with its kind.
fn hosts() -> &'static [(HostKind, String)] {
    static H: OnceLock<Vec<(HostKind, String)>> = OnceLock::new();
    H.get_or_init(|| {
        fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.push(p);
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        walk(&root.join("examples"), &mut files);
        walk(&root.join("tests/fixtures"), &mut files);
        files.sort();
        let out: Vec<(HostKind, String)> = files
            .iter()
            .filter_map(|p| {
                let kind = HostKind::from_path(p)?;
                let text = std::fs::read_to_string(p).ok()?;
                (text.len() < 200_000).then_some((kind, text))
            })
            .collect();
        assert!(out.len() > 20, "{} hosts", out.len());
        out
    })
}

/// Pieces that tend to matter to the scanners: brackets, quotes, escapes, line ends of every
/// kind, tabs, form feeds, indentation, multi-byte characters, comment and suppression markers.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\n".to_string()),
        Just("\r".to_string()),
        Just("\r\n".to_string()),
        Just("\t".to_string()),
        Just("\x0c".to_string()),
        Just("\\\n".to_string()),
        Just("    ".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("\"\"\"".to_string()),
        Just("`".to_string()),
        Just("```".to_string()),
        Just("```python\n".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just(": ".to_string()),
        Just("- ".to_string()),
        Just("# netbox-lsp: ignore[".to_string()),
        Just("<!-- ".to_string()),
        Just("|".to_string()),
        Just("“".to_string()),
        Just("—".to_string()),
        Just("😀".to_string()),
        Just("é".to_string()),
        Just("\u{feff}".to_string()),
        Just("\u{0}".to_string()),
        Just("netbox_get_objects(\"dcim.device\", filters={\"".to_string()),
        Just("/api/dcim/devices/?".to_string()),
        Just("device_role_id=3".to_string()),
        Just("nb.dcim.devices.filter(".to_string()),
        Just("tenant:".to_string()),
        // The other call forms: curl -G, Ansible lookups and inventories, notebook JSON strings.
        Just("curl -G https://nb/api/dcim/devices/ -d ".to_string()),
        Just("--data-urlencode ".to_string()),
        Just("query('netbox.netbox.nb_lookup', 'devices', api_filter='".to_string()),
        Just("{{ ".to_string()),
        Just("plugin: netbox.netbox.nb_inventory\nquery_filters:\n  - ".to_string()),
        Just("{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"".to_string()),
        Just("\\u00e9".to_string()),
        Just("\\\"".to_string()),
        Just("\\n".to_string()),
        "[a-z_]{1,8}".prop_map(|s| s),
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

/// A random edit: where (a fraction of the text), how many characters to delete, what to insert.
fn edits() -> impl Strategy<Value = Vec<(f64, usize, String)>> {
    prop::collection::vec(
        (
            0.0..=1.0f64,
            0usize..12,
            prop::collection::vec(piece(), 0..4).prop_map(|v| v.concat()),
        ),
        1..6,
    )
}

fn floor(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply_random(text: &str, edits: &[(f64, usize, String)]) -> String {
    let mut t = text.to_string();
    for (at, del, ins) in edits {
        let start = floor(&t, (t.len() as f64 * at) as usize);
        let end = t[start..]
            .char_indices()
            .nth(*del)
            .map_or(t.len(), |(i, _)| start + i);
        t.replace_range(start..end, ins);
    }
    t
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut edits: Vec<&Edit> = edits.iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut out = text.to_string();
    for e in edits {
        out.replace_range(e.range.clone(), &e.new_text);
    }
    out
}

fn on_boundaries(text: &str, r: &std::ops::Range<usize>) -> bool {
    r.start <= r.end
        && r.end <= text.len()
        && text.is_char_boundary(r.start)
        && text.is_char_boundary(r.end)
}

/// Everything a user's text goes through, with the invariants that must hold for any text.
fn exercise(text: &str, kind: HostKind) {
    let k = knowledge();
    let _ = extract(text, kind);
    let findings = analyze(text, kind, k);
    let lines = LineIndex::new(text);
    for f in &findings {
        assert!(
            on_boundaries(text, &f.range),
            "{kind:?} {} {:?}",
            f.code,
            f.range
        );
        for fix in &f.fixes {
            for e in &fix.edits {
                assert!(on_boundaries(text, &e.range), "{kind:?} fix {:?}", e.range);
            }
        }
        // Positions round-trip in every unit.
        for unit in [ColumnUnit::Utf16, ColumnUnit::Utf8, ColumnUnit::Char] {
            let p = lines.position(text, f.range.start, unit);
            assert_eq!(
                lines.offset(text, p, unit),
                f.range.start,
                "{kind:?} {unit:?}"
            );
        }
    }
    let refs: Vec<&Finding> = findings.iter().collect();
    for e in ignore_edits(text, kind, &refs).into_iter().flatten() {
        assert!(
            on_boundaries(text, &e.range),
            "{kind:?} ignore {:?}",
            e.range
        );
        let _ = analyze(&apply(text, &[e]), kind, k);
    }
    let all = fix_all(&findings, &Settings::default());
    for w in all.windows(2) {
        assert!(
            w[0].range.end <= w[1].range.start
                || w[0].range.start == w[1].range.start && w[0].range.is_empty()
        );
    }
    if !all.is_empty() {
        let _ = analyze(&apply(text, &all), kind, k);
    }
    // Completion context and hover at a sample of offsets (every boundary of short texts).
    let index = k.index.as_deref().unwrap();
    let step = (text.len() / 64).max(1);
    for offset in (0..=text.len()).step_by(step).chain([text.len()]) {
        let offset = floor(text, offset);
        if let Some(c) = netbox_lsp::server::context::at(text, offset, kind) {
            assert!(
                on_boundaries(text, &c.prefix),
                "{kind:?} prefix {:?}",
                c.prefix
            );
        }
        let _ = netbox_lsp::server::hover::describe(text, offset, kind, index, &findings);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Random edits of every fixture and example, read as its own kind and as Markdown.
    #[test]
    fn random_edits_of_fixtures(which in any::<prop::sample::Index>(), edits in edits()) {
        let (kind, text) = &hosts()[which.index(hosts().len())];
        let edited = apply_random(text, &edits);
        exercise(&edited, *kind);
        if *kind != HostKind::Markdown {
            exercise(&edited, HostKind::Markdown);
        }
    }

    /// Random bytes (decoded lossily, as `check` does) in every host kind.
    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let text = String::from_utf8_lossy(&bytes);
        for kind in KINDS {
            exercise(&text, kind);
        }
    }

    /// Deep nesting in every host language, with the line ends and indentation units that the
    /// scanners count differently.
    #[test]
    fn deep_nesting(depth in 1usize..1500, shape in 0usize..12, eol in 0usize..4, tail in piece()) {
        let nl = ["\n", "\r", "\r\n", "\x0c\n"][eol];
        let (kind, text): (HostKind, String) = match shape {
            0 => (HostKind::Python, (0..depth).map(|i| format!("{}if 1:{nl}", " ".repeat(i))).collect::<String>() + &" ".repeat(depth) + &tail),
            1 => (HostKind::Python, (0..depth).map(|i| format!("{}\\{nl}{}if 1:{nl}", " ".repeat(i % 150), " ".repeat(i.saturating_sub(i % 150)))).collect::<String>() + "x = '" + &tail),
            2 => (HostKind::Python, "f(".repeat(depth) + &tail + &")".repeat(depth / 2)),
            3 => (HostKind::Yaml, (0..depth).map(|i| format!("{}k{i}:{nl}", " ".repeat(i))).collect::<String>() + &tail),
            4 => (HostKind::Yaml, format!("a:{nl}{}x{nl}", "- ".repeat(depth)) + &tail),
            5 => (HostKind::Json, "[{\"a\":".repeat(depth) + &tail),
            6 => (HostKind::Graphql, "{ a(filters: {".repeat(depth) + &tail),
            9 => (HostKind::Notebook, "{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"".to_string() + &"f(".repeat(depth) + "\\\"" + &tail),
            10 => (HostKind::Text, "curl -G https://nb/api/dcim/devices/ ".to_string() + &format!("\\{nl}-d 'role=“x' ").repeat(depth.min(500)) + &tail),
            11 => (HostKind::Yaml, "x: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='".to_string() + &"(".repeat(depth) + &tail),
            7 => (HostKind::Markdown, "> ".repeat(depth) + "```python\n" + &"(".repeat(depth) + &tail),
            _ => (HostKind::Markdown, (0..depth.min(400)).map(|i| format!("{}- item{nl}", "  ".repeat(i))).collect::<String>() + "`/api/dcim/devices/?device_role_id=3`" + &tail),
        };
        exercise(&text, kind);
    }
}

/// Openers and their closers of every construct the parsers (ruff's, tree-sitter's JSON and
/// YAML grammars, apollo-parser, pulldown-cmark) and the walks of their trees recurse on, per
/// language: brackets, operators without brackets, f-/t-string fields, nested f-strings,
/// format specs, lambdas, conditionals, calls, subscripts; JSON arrays and objects; YAML flow
/// and block collections; GraphQL selections, lists and objects; Markdown block quotes and lists.
const PYTHON_NEST: &[(&str, &str)] = &[
    ("[", "]"),
    ("(", ")"),
    ("{", "}"),
    ("{1: ", "}"),
    ("f(", ")"),
    ("a[", "]"),
    ("f\"{", "}\""),
    ("f'{", "}'"),
    ("t\"{", "}\""),
    ("rf'''{", "}'''"),
    ("f\"{x:{", "}}\""),
    ("f\"{x!r:>{", "}}\""),
    ("(lambda: ", ")"),
    ("not ", ""),
    ("-", ""),
    ("a.", "b"),
    ("1 + ", "1"),
    ("await ", "x"),
    ("x if y else ", "z"),
    ("*", "a"),
    ("2 ** ", "2"),
    ("(y := ", ")"),
    ("(a for a in ", ")"),
];
const JSON_NEST: &[(&str, &str)] = &[("[", "]"), ("{\"a\": ", "}"), ("[1, ", "]")];
const YAML_NEST: &[(&str, &str)] = &[("[", "]"), ("{a: ", "}"), ("- ", ""), ("? ", "")];
const GRAPHQL_NEST: &[(&str, &str)] =
    &[("{ a ", "}"), ("{ a(x: [", "]) }"), ("{ a(x: {b: ", "}) }")];
const MARKDOWN_NEST: &[(&str, &str)] = &[
    ("> ", ""),
    ("- ", ""),
    ("1. ", ""),
    ("*", "*"),
    ("[", "](u)"),
];

/// The text that nests, for each `(construct, run)` of `segments`, the opener that construct
/// chooses from `set` `run` times over, and closes the first `closed` levels again (innermost
/// first). Runs make the shapes that matter: one construct nested 20,000 deep inside another.
fn nest(set: &[(&str, &str)], segments: &[(usize, usize)], closed: usize) -> String {
    let chosen: Vec<&(&str, &str)> = segments
        .iter()
        .flat_map(|(i, run)| std::iter::repeat_n(&set[i % set.len()], *run))
        .collect();
    let mut out: String = chosen.iter().map(|(o, _)| *o).collect();
    out.push('x');
    for (_, c) in chosen.iter().rev().take(closed) {
        out.push_str(c);
    }
    out
}

proptest! {
    // 16 cases in `cargo test` (each reads up to 72,000 levels in ten hosts), FUZZ_CASES in
    // `scripts/fuzz.sh`.
    // A fixed seed in `cargo test` (the same 16 cases on every run and in CI), a random one
    // under `scripts/fuzz.sh`.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("FUZZ_CASES").map_or(16, |_| cases()),
        rng_seed: std::env::var("FUZZ_CASES").map_or(RngSeed::Fixed(23), |_| RngSeed::Random),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random runs of every nesting construct of every host language, up to 72,000 levels deep,
    /// closed or left open (half-typed), in each host that reads the language (a `.py` file, a
    /// Markdown fence, a notebook cell; a YAML or JSON file and fence; a GraphQL file and
    /// fence; Markdown itself), read on half a worker thread's stack: nothing may abort, hang
    /// or panic; what is too deep to read is reported as `not-checked`, never passed silently
    /// when it held a NetBox call; and Python the nesting guard lets through is no deeper in
    /// ruff's tree than the guard's bound (the check that finds a blind spot of the guard,
    /// such as the f-string fields it once skipped, whatever the stack size).
    #[test]
    fn nested_constructs(
        // Short runs (a construct that wraps the next) and long ones (the depth).
        segments in prop::collection::vec(
            (any::<prop::sample::Index>(), prop_oneof![1usize..4, 1_000usize..12_000]),
            2..7,
        ),
        // Half the cases closed (what the parsers nest deepest on), half left open at a random
        // level (as while typing).
        closed in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let segments: Vec<(usize, usize)> = segments.iter().map(|(i, n)| (i.index(usize::MAX), *n)).collect();
        let closed = closed.map(|c| c.index(usize::MAX));
        for lang in 0..5 {
            nested_in_hosts(lang, &segments, closed);
        }
    }
}

/// [`nested_constructs`] for the constructs of one language (`lang`: Python, JSON, YAML,
/// GraphQL, Markdown) in every host that reads it.
fn nested_in_hosts(lang: usize, segments: &[(usize, usize)], closed: Option<usize>) {
    let set = [
        PYTHON_NEST,
        JSON_NEST,
        YAML_NEST,
        GRAPHQL_NEST,
        MARKDOWN_NEST,
    ][lang];
    let levels: usize = segments.iter().map(|(_, n)| n).sum();
    let body = nest(set, segments, closed.map_or(levels, |c| c % (levels + 1)));
    let call = "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})";
    // The call comes first: a construct left open can be an unterminated string
    // (`rf'''{x`), which rightly swallows whatever follows it.
    let code = format!("{call}\nx = {body}\n");
    let fence = |lang: &str, code: &str| format!("```{lang}\n{code}\n```\n");
    let hosts: Vec<(HostKind, String)> = match lang {
        0 => {
            let py = code.clone();
            let cell = serde_json::json!({"cells": [{"cell_type": "code", "source": [&py]}]});
            vec![
                (HostKind::Markdown, fence("python", &py)),
                (HostKind::Notebook, cell.to_string()),
                (HostKind::Python, py),
            ]
        }
        1 => {
            let tool = r#"{"object_type": "dcim.device", "filters": {"device_role_id": 3}}"#;
            vec![
                (HostKind::Json, format!("[{body}, {tool}]")),
                (HostKind::Markdown, fence("json", &body)),
            ]
        }
        2 => vec![
            (HostKind::Yaml, format!("a: {body}\nb: 1\n")),
            (HostKind::Markdown, fence("yaml", &format!("a: {body}"))),
        ],
        3 => vec![
            (HostKind::Markdown, fence("graphql", &body)),
            (HostKind::Graphql, body),
        ],
        _ => vec![(
            HostKind::Markdown,
            format!("{body}\n\n`/api/dcim/devices/?device_role_id=3`\n"),
        )],
    };
    for (kind, text) in hosts {
        // On half the stack of a rayon worker or tokio blocking thread: what the guards let
        // through must be read there without overflowing it (an overflow aborts the run).
        let found = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                exercise(&text, kind);
                analyze(&text, kind, knowledge())
            })
            .unwrap()
            .join()
            .expect("no panic");
        if lang == 0 {
            // The call after the nesting is checked, or the unit is reported.
            let refused = found.iter().any(|f| f.code == "not-checked");
            assert!(
                refused || found.iter().any(|f| f.code == "unknown-filter"),
                "{kind:?}: {found:?}"
            );
            // What the guard lets through nests no deeper than its bound: a blind spot (the
            // f-string fields of issue 23) shows here whatever the stack size.
            if kind == HostKind::Python && !refused {
                let depth = syntax_tree_depth(&code);
                assert!(depth <= 1050, "{depth} nodes deep passed the guard");
            }
        }
    }
}

/// The depth of ruff's syntax tree of Python `text` (nodes on the deepest path), as the
/// extractor's walks recurse on it; measured on a thread with a stack large enough for any depth.
fn syntax_tree_depth(text: &str) -> usize {
    use ruff_python_ast::visitor::source_order::{self, SourceOrderVisitor, TraversalSignal};
    use ruff_python_ast::AnyNodeRef;
    struct Depth(usize, usize);
    impl<'a> SourceOrderVisitor<'a> for Depth {
        fn enter_node(&mut self, _: AnyNodeRef<'a>) -> TraversalSignal {
            self.0 += 1;
            self.1 = self.1.max(self.0);
            TraversalSignal::Traverse
        }
        fn leave_node(&mut self, _: AnyNodeRef<'a>) {
            self.0 -= 1;
        }
    }
    let text = text.to_string();
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let parsed = ruff_python_parser::parse_unchecked_source(
                &text,
                ruff_python_ast::PySourceType::Python,
            );
            let mut d = Depth(0, 0);
            source_order::walk_body(&mut d, &parsed.syntax().body);
            d.1
        })
        .unwrap()
        .join()
        .unwrap()
}
