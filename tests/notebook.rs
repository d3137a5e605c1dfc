//! Jupyter notebooks (issue 11 §2): code cells read as Python and Markdown cells as Markdown,
//! positions in the JSON file, fixes written escaped so the notebook stays valid JSON; output
//! and raw cells are not read.

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::finding::Finding;
use netbox_lsp::index::embedded::embedded_index;
use std::ops::Range;
use std::path::Path;

fn notebook() -> String {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/notebook/leaf-switches.ipynb");
    assert_eq!(HostKind::from_path(&p), Some(HostKind::Notebook));
    std::fs::read_to_string(p).unwrap()
}

fn findings(text: &str) -> Vec<Finding> {
    let k = Knowledge {
        index: Some(embedded_index("4.6.8")),
        ..Default::default()
    };
    analyze(text, HostKind::Notebook, &k)
}

/// `(code, JSON line 1-based, host text under the finding)`.
fn summary(text: &str, fs: &[Finding]) -> Vec<(String, usize, String)> {
    fs.iter()
        .map(|f| {
            let line = text[..f.range.start].matches('\n').count() + 1;
            (f.code.to_string(), line, text[f.range.clone()].to_string())
        })
        .collect()
}

fn apply(text: &str, edits: &[(Range<usize>, String)]) -> String {
    let mut sorted: Vec<&(Range<usize>, String)> = edits.iter().collect();
    sorted.sort_by_key(|e| e.0.start);
    let (mut out, mut at) = (String::new(), 0);
    for (r, t) in sorted {
        if r.start < at {
            continue;
        }
        out.push_str(&text[at..r.start]);
        out.push_str(t);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

#[test]
fn cells_are_checked_at_their_place_in_the_json() {
    let text = notebook();
    let fs = findings(&text);
    let got = summary(&text, &fs);
    let want = [
        ("unknown-filter", 9, "device_role"),  // Markdown cell: REST URL
        ("unknown-filter", 20, "device_role"), // code cell: pynetbox
        ("invalid-choice", 21, "\"actve\\\""),
        ("unknown-filter", 39, "device_role"), // code cell: requests with an f-string base
    ];
    for (code, line, t) in want {
        assert!(
            got.iter()
                .any(|(c, l, x)| c == code && *l == line && x == t),
            "missing {code} at line {line} on {t}: {got:?}"
        );
    }
    // Output cells, raw cells: not read.
    assert!(got.iter().all(|(_, l, _)| *l != 35 && *l != 45), "{got:?}");
}

#[test]
fn fixes_keep_the_notebook_valid_json() {
    let text = notebook();
    let fs = findings(&text);
    let edits: Vec<(Range<usize>, String)> = fs
        .iter()
        .flat_map(|f| f.fixes.iter().take(1))
        .flat_map(|fix| {
            fix.edits
                .iter()
                .map(|e| (e.range.clone(), e.new_text.clone()))
        })
        .collect();
    assert!(edits.len() >= 3, "{fs:?}");
    let fixed = apply(&text, &edits);
    let json: serde_json::Value = serde_json::from_str(&fixed).expect("valid JSON after the fixes");
    assert!(json["cells"].is_array());
    let again = summary(&fixed, &findings(&fixed));
    assert!(
        again
            .iter()
            .all(|(c, _, _)| c != "unknown-filter" && c != "invalid-choice"),
        "{again:?}"
    );
}

#[test]
fn completion_and_hover_read_the_cell_under_the_cursor() {
    use netbox_lsp::server::context::{self, Expect};
    let text = notebook();
    // In the code cell: `filter(device_role=...` — a keyword name, positions in the JSON file.
    let key = text.find("filter(device_role=").unwrap() + "filter(".len();
    let c = context::at(&text, key + 6, HostKind::Notebook).expect("a context in the code cell");
    assert_eq!(
        c.expect,
        Expect::FilterName {
            target: "dcim/devices".into()
        }
    );
    assert_eq!(&text[c.prefix.clone()], "device");
    // A choice value inside the escaped string `\"actve\"`.
    let value = text.find("actve").unwrap();
    let c = context::at(&text, value + 3, HostKind::Notebook).expect("a value context");
    assert_eq!(
        c.expect,
        Expect::ChoiceValue {
            target: "dcim/sites".into(),
            filter: "status".into()
        }
    );
    assert_eq!(&text[c.prefix.clone()], "act");
    let index = embedded_index("4.6.8");
    let fs = findings(&text);
    let (range, hover) =
        netbox_lsp::server::hover::describe(&text, key + 2, HostKind::Notebook, &index, &fs)
            .expect("hover on the key");
    assert_eq!(&text[range], "device_role");
    // The diagnostic says what is wrong; the hover adds the endpoint's nearest real filters.
    assert!(
        hover.contains("Nearest filters of `/api/dcim/devices/`") && hover.contains("- `role"),
        "{hover}"
    );
    // Outputs are not cells: nothing there.
    let out = text.find("device_role=\\\"x\\\")\\n").unwrap();
    assert!(context::at(&text, out + 3, HostKind::Notebook).is_none());
}

/// Issue 11 gap: cells whose JSON strings hold `\uXXXX` escapes (non-ASCII, surrogate pairs)
/// are read; every finding lands on the JSON text of its name (escapes included, never inside
/// one), and the fixes keep the notebook valid JSON with the same decoded text elsewhere.
#[test]
fn cells_with_unicode_escapes_are_read_and_fixed_as_json() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/notebook/escapes.ipynb");
    let text = std::fs::read_to_string(p).unwrap();
    assert!(text.contains("\\ud83d\\ude00") && text.contains("\\u00e9"));
    let fs = findings(&text);
    let got = summary(&text, &fs);
    for (code, t) in [
        // Markdown cell, after `R\u00e9seau \ud83d\ude00` on an earlier line.
        ("unknown-filter", "device_role"),
        // Code cell: pynetbox after a comment line of escapes; `actve` after them.
        ("invalid-choice", "\"actve\\\""),
        // Code cell: a key that is itself an escape (`n\u00e4me`).
        ("unknown-filter", "n\\u00e4me"),
    ] {
        assert!(
            got.iter().any(|(c, _, x)| c == code && x == t),
            "missing {code} on {t}: {got:?}"
        );
    }
    let roles = got
        .iter()
        .filter(|(c, _, x)| c == "unknown-filter" && x == "device_role")
        .count();
    assert_eq!(roles, 3, "{got:?}");
    // No range starts or ends inside an escape.
    for f in &fs {
        for at in [f.range.start, f.range.end] {
            let before = &text[at.saturating_sub(5)..at];
            assert!(
                !before.contains("\\u") || before.ends_with('"'),
                "{f:?} cuts an escape"
            );
        }
    }
    let edits: Vec<(Range<usize>, String)> = fs
        .iter()
        .flat_map(|f| f.fixes.iter().take(1))
        .flat_map(|fix| {
            fix.edits
                .iter()
                .map(|e| (e.range.clone(), e.new_text.clone()))
        })
        .collect();
    let fixed = apply(&text, &edits);
    let json: serde_json::Value = serde_json::from_str(&fixed).expect("valid JSON after the fixes");
    let code = json["cells"][1]["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect::<String>();
    assert!(
        code.contains("# r\u{e9}seau \u{1f600} \u{2014}")
            // The slug suggestion replaced a value made of escapes as a whole.
            && code.contains("filter(role=\"leaf\", site=\"z-rich\")")
            && code.contains("status=\"active\", name=\"Z\u{fc}rich\""),
        "{code}"
    );
    let again = summary(&fixed, &findings(&fixed));
    assert!(
        again
            .iter()
            .all(|(c, _, x)| c != "invalid-choice" && x != "device_role"),
        "{again:?}"
    );
}

/// Issue 34: a notebook is either checked as far as it can be or reported `not-checked` with
/// the reason, never a silent nothing. From the real fixture: Python's bare `NaN`, `Infinity`
/// and `-Infinity` in an output (as `json` and nbformat write them) read as numbers, so the
/// same findings come at the same places; a merge conflict, a notebook cut short, nbformat 3
/// and a cell with a lone surrogate each give one `not-checked` error naming the cause; the
/// notebook as it is (the quiet twin) gives none.
#[test]
fn notebooks_that_cannot_be_read_whole_say_so() {
    let text = notebook();
    let plain = summary(&text, &findings(&text));
    assert!(plain.iter().all(|(code, ..)| code != "not-checked"));
    assert!(plain.len() >= 3, "{plain:?}");
    let with_output = |value: &str| {
        text.replacen(
            "\"outputs\": [],",
            &format!("\"outputs\": [{{\"data\": {{\"v\": {value}, \"w\": [NaN, Infinity]}}, \"output_type\": \"execute_result\"}}],"),
            1,
        )
    };
    for value in ["NaN", "Infinity", "-Infinity"] {
        let t = with_output(value);
        assert_ne!(t, text);
        // Same findings: every range after the output shifted by the same length.
        let got: Vec<(String, String)> = summary(&t, &findings(&t))
            .into_iter()
            .map(|(c, _, s)| (c, s))
            .collect();
        let want: Vec<(String, String)> = plain
            .iter()
            .map(|(c, _, s)| (c.clone(), s.clone()))
            .collect();
        assert_eq!(got, want, "{value}");
    }
    let lines: Vec<&str> = text.lines().collect();
    let conflict = [
        &lines[..11],
        &["<<<<<<< HEAD"],
        &lines[11..20],
        &["======="],
        &lines[11..20],
        &[">>>>>>> theirs"],
        &lines[20..],
    ]
    .concat()
    .join("\n");
    let cut = text[..text.len() / 2].to_string();
    let v3 = text
        .replacen("\"cells\": [", "\"worksheets\": [{\"cells\": [", 1)
        .replacen("\n ],\n \"metadata\"", "\n ]}],\n \"metadata\"", 1);
    assert!(serde_json::from_str::<serde_json::Value>(&v3).is_ok());
    let surrogate = text.replacen("# Leaf switches", "# Leaf \\ud800 switches", 1);
    for (name, t, reason) in [
        (
            "conflict",
            conflict.as_str(),
            "a merge conflict marker on line 12",
        ),
        ("cut short", cut.as_str(), "cut short"),
        ("nbformat 3", v3.as_str(), "nbformat 3"),
        ("lone surrogate", surrogate.as_str(), "lone surrogate"),
    ] {
        let fs = findings(t);
        let not_checked: Vec<&Finding> = fs.iter().filter(|f| f.code == "not-checked").collect();
        assert_eq!(not_checked.len(), 1, "{name}: {fs:?}");
        assert!(
            not_checked[0].message.contains(reason),
            "{name}: {}",
            not_checked[0].message
        );
        assert_eq!(
            not_checked[0].severity,
            netbox_lsp::finding::Severity::Error,
            "{name}"
        );
    }
    // The other cells of a notebook with one unreadable cell are still checked.
    let fs = findings(&surrogate);
    assert!(fs.iter().filter(|f| f.code != "not-checked").count() >= plain.len() - 1);
}

/// The CLI on such a notebook: exit 1 with the reason on the finding line, never a silent 0.
#[test]
fn check_fails_on_a_notebook_it_could_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("cut.ipynb");
    let text = notebook();
    std::fs::write(&p, &text[..text.len() / 2]).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
        .args(["check"])
        .arg(&p)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("error[not-checked] Not checked: this notebook is not valid JSON"),
        "{stdout}"
    );
}

/// Issue 31 §5 end to end: in `tests/fixtures/notebook/lessons.ipynb` a Markdown cell's
/// heading `## Never use device_role` holds the code cell under it as a lesson (not checked,
/// `--explain` names the heading's line), the same call under the next `## Usage` heading is
/// checked, and `check --fix` rewrites only that one, leaving valid JSON.
#[test]
fn a_heading_cell_holds_the_code_cells_of_its_section_through_the_cli() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_netbox-lsp");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/notebook/lessons.ipynb");
    let tmp = tempfile::tempdir().unwrap();
    let nb = tmp.path().join("lessons.ipynb");
    std::fs::copy(&src, &nb).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .current_dir(tmp.path())
            .output()
            .expect("run netbox-lsp");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = run(&[
        "check",
        "lessons.ipynb",
        "--netbox-version",
        "4.6",
        "--explain",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{out}");
    let all: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON");
    let line = |e: &serde_json::Value| e["range"]["start"]["line"].as_u64().unwrap() + 1;
    let found: Vec<(u64, &str)> = all
        .iter()
        .filter_map(|e| Some((line(e), e.get("code")?.as_str()?)))
        .collect();
    assert_eq!(found, [(42, "unknown-filter")], "{out}");
    let held: Vec<(u64, &str, &str)> = all
        .iter()
        .filter_map(|e| {
            Some((
                line(e),
                e["skipped"].as_str()?,
                e["message"].as_str().unwrap_or(""),
            ))
        })
        .collect();
    assert_eq!(held.len(), 1, "{out}");
    assert_eq!((held[0].0, held[0].1), (20, "lesson"), "{out}");
    assert!(
        held[0].2.contains("under the heading") && held[0].2.contains("(line 11)"),
        "{}",
        held[0].2
    );

    let (_, _) = run(&["check", "lessons.ipynb", "--netbox-version", "4.6", "--fix"]);
    let fixed = std::fs::read_to_string(&nb).unwrap();
    let json: serde_json::Value = serde_json::from_str(&fixed).expect("valid JSON after --fix");
    let cell = |i: usize| json["cells"][i]["source"][0].as_str().unwrap().to_string();
    assert_eq!(
        cell(1),
        "old = nb.dcim.devices.filter(device_role=\"leaf\")"
    );
    assert_eq!(cell(3), "leaf = nb.dcim.devices.filter(role=\"leaf\")");
}
