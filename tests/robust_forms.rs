//! Issue 9 §3 for the call forms added since (curl `-G`, Ansible lookups and inventories,
//! notebooks, the JSON/YAML tool calls, Python calls): a multi-byte character (curly quote,
//! em dash, emoji) placed right before and right after every delimiter of every call-form
//! fixture, a byte-order mark in mid-file, and every line-end form; extraction, the checks, the
//! code actions, completion context (both scanners) and hover run at every character boundary
//! near the change. Nothing may panic, and every range must lie on character boundaries.

use std::path::Path;

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::config::Settings;
use netbox_lsp::extract::{extract, HostKind};
use netbox_lsp::finding::Finding;
use netbox_lsp::graphql::embedded_schema;
use netbox_lsp::index::embedded::embedded_index;
use netbox_lsp::server::code_action::fix_all;
use netbox_lsp::suppress::ignore_edits;

fn knowledge() -> Knowledge {
    Knowledge {
        index: Some(embedded_index("4.6.8")),
        graphql: embedded_schema("4.6.8"),
        ..Default::default()
    }
}

const FIXTURES: [&str; 11] = [
    "tests/fixtures/extract/ansible.yml",
    "tests/fixtures/extract/nb_inventory.yml",
    "tests/fixtures/extract/curl.sh",
    "tests/fixtures/extract/prompt.j2",
    "tests/fixtures/extract/prompt.txt",
    "tests/fixtures/extract/calls.yaml",
    "tests/fixtures/extract/calls.json",
    "tests/fixtures/extract/tools.py",
    "tests/fixtures/extract/skill.md",
    "tests/fixtures/extract/indented.md",
    "tests/fixtures/notebook/leaf-switches.ipynb",
];

fn on_boundaries(text: &str, r: &std::ops::Range<usize>) -> bool {
    r.start <= r.end
        && r.end <= text.len()
        && text.is_char_boundary(r.start)
        && text.is_char_boundary(r.end)
}

/// Everything the text goes through; completion and hover are asked at the character
/// boundaries from 1 byte before `near` to 5 after it.
fn exercise(k: &Knowledge, text: &str, kind: HostKind, near: usize) {
    let _ = extract(text, kind);
    let findings = analyze(text, kind, k);
    for f in &findings {
        assert!(on_boundaries(text, &f.range), "{kind:?} {f:?}\n{text}");
        for e in f.fixes.iter().flat_map(|x| &x.edits) {
            assert!(on_boundaries(text, &e.range), "{kind:?} {e:?}\n{text}");
        }
    }
    let refs: Vec<&Finding> = findings.iter().collect();
    for e in ignore_edits(text, kind, &refs).into_iter().flatten() {
        assert!(
            on_boundaries(text, &e.range),
            "{kind:?} ignore {e:?}\n{text}"
        );
    }
    let _ = fix_all(&findings, &Settings::default());
    let index = k.index.as_deref().unwrap();
    let from = near.saturating_sub(1);
    let to = (near + 5).min(text.len());
    for offset in (from..=to).filter(|&o| text.is_char_boundary(o)) {
        for c in [
            netbox_lsp::server::context::at(text, offset, kind),
            netbox_lsp::server::form_context::at(text, offset, kind),
        ]
        .into_iter()
        .flatten()
        {
            assert!(
                on_boundaries(text, &c.prefix),
                "{kind:?} {:?}\n{text}",
                c.prefix
            );
        }
        let _ = netbox_lsp::server::hover::describe(text, offset, kind, index, &findings);
    }
}

#[test]
fn multi_byte_neighbours_of_every_delimiter_in_the_call_forms() {
    let k = knowledge();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for name in FIXTURES {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let kind = HostKind::from_path(&path).unwrap();
        for (i, b) in text.bytes().enumerate() {
            if !(b.is_ascii_punctuation() || b.is_ascii_whitespace()) {
                continue;
            }
            // Before or after the delimiter, in turn; the character rotates (every one meets every
            // kind of delimiter across the fixtures while the run stays short).
            let chars = ["“", "😀", "—", "\u{feff}", "é"];
            let at = i + n % 2;
            let mut t = text.clone();
            t.insert_str(at, chars[n % chars.len()]);
            exercise(&k, &t, kind, at);
            n += 1;
        }
    }
    eprintln!("{n} variants of {} call-form fixtures", FIXTURES.len());
}

/// The same fixtures with every line end as `\r`, as `\r\n`, and with a form feed before each.
#[test]
fn every_line_end_form_in_the_call_forms() {
    let k = knowledge();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in FIXTURES {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let kind = HostKind::from_path(&path).unwrap();
        for eol in ["\r", "\r\n", "\x0c\n", "\u{2028}\n"] {
            let t = text.replace('\n', eol);
            for near in (0..t.len()).step_by(48) {
                exercise(&k, &t, kind, near);
            }
        }
    }
}
