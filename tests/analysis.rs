//! `analyze_cached` (what the language server runs after each edit) must give exactly what a
//! fresh `analyze` gives: after edits anywhere in real Markdown hosts, when the knowledge changes,
//! and when identical blocks move.

use netbox_lsp::analysis::{analyze, analyze_cached, Knowledge, UnitCache};
use netbox_lsp::extract::HostKind;
use netbox_lsp::graphql::embedded_schema;
use netbox_lsp::index::embedded::embedded_index;
use std::path::{Path, PathBuf};

fn knowledge(version: &'static str) -> Knowledge {
    Knowledge {
        index: Some(embedded_index(version)),
        graphql: embedded_schema(version),
        ..Default::default()
    }
}

/// Every Markdown file under `examples/` and `tests/fixtures/`.
fn markdown_hosts() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(&root.join("examples"), &mut out);
    walk(&root.join("tests/fixtures"), &mut out);
    out.sort();
    assert!(out.len() >= 5, "expected Markdown hosts, found {out:?}");
    out
}

/// The text with one edit at byte `at` (a char boundary): `insert` put there, or the next
/// char removed.
fn edited(text: &str, at: usize, insert: Option<&str>) -> String {
    let mut t = text.to_string();
    match insert {
        Some(s) => t.insert_str(at, s),
        None => {
            if let Some(c) = t[at..].chars().next() {
                t.replace_range(at..at + c.len_utf8(), "");
            }
        }
    }
    t
}

#[test]
fn cached_analysis_after_edits_equals_fresh_analysis() {
    let k = knowledge("4.6.8");
    let mut checked = 0;
    let mut with_findings = 0;
    for path in markdown_hosts() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut cache = UnitCache::default();
        let first = analyze_cached(&text, HostKind::Markdown, &k, &mut cache);
        assert_eq!(first, analyze(&text, HostKind::Markdown, &k), "{path:?}");
        let mut current = text.clone();
        // Edits spread over the file, each applied on top of the last (as typing does): a
        // character, a line break, a backtick, a fence line, a deletion.
        let inserts = [
            Some("x"),
            Some("\n"),
            Some("`"),
            Some("\n```\n"),
            None,
            Some("\""),
        ];
        let step = (text.len() / 40).max(1);
        for (i, at) in (0..text.len()).step_by(step).enumerate() {
            let mut at = at.min(current.len());
            while !current.is_char_boundary(at) {
                at -= 1;
            }
            current = edited(&current, at, inserts[i % inserts.len()]);
            let cached = analyze_cached(&current, HostKind::Markdown, &k, &mut cache);
            let fresh = analyze(&current, HostKind::Markdown, &k);
            assert_eq!(cached, fresh, "{path:?} after edit {i} at byte {at}");
            checked += 1;
            with_findings += usize::from(!fresh.is_empty());
        }
    }
    println!("{checked} edited versions compared, {with_findings} with findings");
    assert!(with_findings > 0, "the hosts should hold findings");
}

#[test]
fn cache_follows_a_knowledge_change() {
    // `device_role_id` is the 4.0 rename: fine on no 4.x release, but `status` choices and
    // GraphQL forms differ between 4.3 and 4.6.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extract/skill.md");
    let text = std::fs::read_to_string(path).unwrap();
    let (old, new) = (knowledge("4.3.3"), knowledge("4.6.8"));
    let mut cache = UnitCache::default();
    let a = analyze_cached(&text, HostKind::Markdown, &old, &mut cache);
    assert_eq!(a, analyze(&text, HostKind::Markdown, &old));
    assert!(!cache.is_empty());
    let b = analyze_cached(&text, HostKind::Markdown, &new, &mut cache);
    assert_eq!(b, analyze(&text, HostKind::Markdown, &new));
    let none = analyze_cached(&text, HostKind::Markdown, &Knowledge::default(), &mut cache);
    assert!(none.is_empty(), "no knowledge, no findings: {none:?}");
}

#[test]
fn identical_blocks_moved_keep_their_own_positions() {
    let block = "```python\nnetbox_get_objects(\"dcim.device\", {\"device_role_id\": 3})\n```\n";
    let one = format!("# Skill\n\n{block}");
    let two = format!("# Skill\n\nSome prose first.\n\n{block}\nAgain:\n\n{block}");
    let k = knowledge("4.6.8");
    let mut cache = UnitCache::default();
    let a = analyze_cached(&one, HostKind::Markdown, &k, &mut cache);
    assert_eq!(a.len(), 1, "{a:?}");
    let b = analyze_cached(&two, HostKind::Markdown, &k, &mut cache);
    assert_eq!(b, analyze(&two, HostKind::Markdown, &k));
    assert_eq!(b.len(), 2);
    for f in &b {
        assert_eq!(&two[f.range.clone()], "device_role_id");
    }
    // Unchanged: each block takes its cached result where it stands; then back to one block.
    let c = analyze_cached(&two, HostKind::Markdown, &k, &mut cache);
    assert_eq!(c, b);
    let d = analyze_cached(&one, HostKind::Markdown, &k, &mut cache);
    assert_eq!(d, a);
}

#[test]
fn a_long_document_read_in_parallel_equals_its_parts_read_alone() {
    // Well past the sizes where units and the two whole-text passes run on the pool.
    let part = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/skills/netbox-inventory/SKILL.md"),
    )
    .unwrap();
    let k = knowledge("4.6.8");
    let alone = analyze(&part, HostKind::Markdown, &k);
    assert!(
        !alone.is_empty(),
        "the example skill holds planted mistakes"
    );
    let sep = "\n\n---\n\n";
    let copies = 40;
    let big = vec![part.as_str(); copies].join(sep);
    assert!(big.len() > 64 * 1024, "{} bytes", big.len());
    let mut expected = Vec::new();
    for i in 0..copies {
        let shift = i * (part.len() + sep.len());
        for f in &alone {
            let mut f = f.clone();
            f.range = f.range.start + shift..f.range.end + shift;
            for fix in &mut f.fixes {
                for e in &mut fix.edits {
                    e.range = e.range.start + shift..e.range.end + shift;
                }
            }
            expected.push(f);
        }
    }
    let got = analyze(&big, HostKind::Markdown, &k);
    assert_eq!(got.len(), expected.len());
    assert_eq!(got, expected);
    let mut cache = UnitCache::default();
    assert_eq!(
        analyze_cached(&big, HostKind::Markdown, &k, &mut cache),
        expected
    );
    assert_eq!(
        analyze_cached(&big, HostKind::Markdown, &k, &mut cache),
        expected
    );
}

#[test]
fn a_byte_order_mark_is_not_code() {
    // A fence on the first line and front matter right after the mark: read as without it,
    // positions counted in the text as given (the mark is 3 bytes).
    let k = knowledge("4.6.8");
    for text in [
        "```python\nnetbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n```\n",
        "---\nname: `netbox_get_objects(\"dcim.device\", {\"x\": 1})`\n---\n`netbox_get_objects(\"dcim.device\", {\"device_role_id\": 3})`\n",
    ] {
        let plain = analyze(text, HostKind::Markdown, &k);
        assert_eq!(plain.len(), 1, "{plain:?}");
        let with_bom = format!("\u{feff}{text}");
        let got = analyze(&with_bom, HostKind::Markdown, &k);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].range, plain[0].range.start + 3..plain[0].range.end + 3);
        assert_eq!(&with_bom[got[0].range.clone()], "device_role_id");
    }
    let py = "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n";
    let got = analyze(&format!("\u{feff}{py}"), HostKind::Python, &k);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0].range.start,
        analyze(py, HostKind::Python, &k)[0].range.start + 3
    );
}

/// Issue 8 §7: a Markdown host above the structural limit (32 MiB) is not presented as checked,
/// in the server's cached analysis as in `check`: one `not-checked` error at its start, and its
/// REST URLs still checked; a host below the limit gets none.
#[test]
fn markdown_above_the_limit_is_not_presented_as_checked() {
    let k = knowledge("4.6.8");
    let line = "- `/api/dcim/devices/?device_role_id=1` see the fence below\n";
    // One URL, then prose up to the limit (a URL per line would make 500,000 findings).
    let prose = "Plain prose without code in it.\n";
    let big = format!(
        "{line}{}",
        prose.repeat(
            netbox_lsp::analysis::structural_limit(HostKind::Markdown).unwrap() / prose.len() + 1
        )
    );
    let mut cache = UnitCache::default();
    for findings in [
        analyze(&big, HostKind::Markdown, &k),
        analyze_cached(&big, HostKind::Markdown, &k, &mut cache),
    ] {
        assert_eq!(findings[0].code, "not-checked");
        assert_eq!(findings[0].range, 0..0);
        assert!(findings.iter().any(|f| f.code == "unknown-filter"));
        assert_eq!(
            findings.iter().filter(|f| f.code == "not-checked").count(),
            1
        );
    }
    let small = analyze(line, HostKind::Markdown, &k);
    assert!(small.iter().all(|f| f.code != "not-checked"), "{small:?}");
}

/// A GraphQL fence in a document about Nautobot alone is Nautobot's (its schema has `devices`),
/// and netbox3/pynautobot chains are their clients': the same fence naming NetBox is checked, and
/// the editor's unit cache follows the document into and out of that state.
#[test]
fn documents_about_other_products_keep_their_own_calls() {
    let fence = "```graphql\nquery {\n  devices(location: \"ams01\") {\n    name\n  }\n}\n```\n";
    let nautobot = format!("# Nautobot GraphQL\n\nQuery Nautobot:\n\n{fence}");
    let netbox = format!("# NetBox GraphQL\n\nQuery NetBox:\n\n{fence}");
    let k = knowledge("4.6.8");
    assert_eq!(analyze(&nautobot, HostKind::Markdown, &k), vec![]);
    let codes: Vec<&str> = analyze(&netbox, HostKind::Markdown, &k)
        .iter()
        .map(|f| f.code)
        .collect();
    assert_eq!(codes, ["graphql-validation"]);
    let chains = "```python\nnb.dcim.devices.get(nested=True)\n```\n";
    let netbox3 = format!("# Inventory\n\n```python\nfrom netbox3 import NbApi\n```\n\n{chains}");
    let pynetbox = format!("# Inventory\n\n```python\nimport pynetbox\n```\n\n{chains}");
    assert_eq!(analyze(&netbox3, HostKind::Markdown, &k), vec![]);
    assert_eq!(analyze(&pynetbox, HostKind::Markdown, &k).len(), 1);
    let mut cache = UnitCache::default();
    for text in [&nautobot, &netbox, &nautobot, &netbox3, &pynetbox, &netbox3] {
        assert_eq!(
            analyze_cached(text, HostKind::Markdown, &k, &mut cache),
            analyze(text, HostKind::Markdown, &k),
            "{text}"
        );
    }
}
