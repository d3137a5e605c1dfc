//! Upgrade readiness (`check --upgrade-to`, the editor's `upgradeTo`): data-driven cases in
//! `tests/fixtures/upgrade/cases.txt`, one or more per kind of change for each step to 4.7
//! (4.3 → 4.7, 4.5 → 4.7, 4.6 → 4.7), through the real `upgrade::compare`; then the CLI end
//! to end on `tests/fixtures/upgrade/repo/` (exit code, summary per file and kind, JSON).
//!
//! A case names the releases (`from`, `to`), the host kind, the changes it must report
//! (`expect`: `code/kind@covered text`, in position order, or `none`) and `fixed`: the text
//! after applying every certain upgrade fix (the form that works on both releases), which must
//! then be clean on both releases (no error or warning, and no change left); `fixed: none`
//! says there is no common form, so no fix may be certain.

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::finding::Severity;
use netbox_lsp::index::embedded;
use netbox_lsp::upgrade::{self, Kind};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The shipped knowledge of `version` (exact or `X.Y`), with the embedded schema.
fn knowledge(version: &str) -> Knowledge {
    let sel = embedded::select(Some(version)).unwrap();
    Knowledge {
        index: Some(embedded::embedded_index(sel.version)),
        graphql_embedded: Some(sel.version),
        ..Default::default()
    }
}

fn host(kind: &str) -> HostKind {
    match kind {
        "txt" => HostKind::Text,
        "md" => HostKind::Markdown,
        "py" => HostKind::Python,
        "yaml" => HostKind::Yaml,
        "json" => HostKind::Json,
        "graphql" => HostKind::Graphql,
        other => panic!("unknown host kind {other}"),
    }
}

struct Case {
    title: String,
    from: String,
    to: String,
    kind: String,
    expect: Vec<String>,
    fixed: Option<String>,
    text: String,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("tests/fixtures/upgrade/cases.txt")).unwrap();
    let mut out = Vec::new();
    for record in text.split("\n### ").skip(1) {
        let (head, body) = record.split_once("\n---\n").expect("a --- line");
        let mut lines = head.lines();
        let mut c = Case {
            title: lines.next().unwrap().trim().to_string(),
            from: String::new(),
            to: String::new(),
            kind: String::new(),
            expect: Vec::new(),
            fixed: None,
            text: body.trim_end_matches('\n').to_string() + "\n",
        };
        for l in lines {
            let (k, v) = l
                .split_once(": ")
                .unwrap_or_else(|| panic!("{}: {l}", c.title));
            match k {
                "from" => c.from = v.to_string(),
                "to" => c.to = v.to_string(),
                "kind" => c.kind = v.to_string(),
                "expect" if v == "none" => {}
                "expect" => c.expect = v.split(" | ").map(str::to_string).collect(),
                "fixed" if v == "none" => {}
                "fixed" => c.fixed = Some(v.to_string() + "\n"),
                other => panic!("{}: unknown key {other}", c.title),
            }
        }
        out.push(c);
    }
    out
}

fn serious(k: &Knowledge, text: &str, kind: HostKind) -> Vec<String> {
    analyze(text, kind, k)
        .into_iter()
        .filter(|f| matches!(f.severity, Severity::Error | Severity::Warning))
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect()
}

#[test]
fn upgrade_cases() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut seen: Vec<(String, Kind)> = Vec::new();
    for c in &cases {
        let (from, to) = (knowledge(&c.from), knowledge(&c.to));
        let kind = host(&c.kind);
        let changes = upgrade::compare(&c.text, kind, &from, &to);
        let got: Vec<String> = changes
            .iter()
            .map(|ch| {
                format!(
                    "{}/{}@{}",
                    ch.finding.code,
                    ch.kind.as_str(),
                    &c.text[ch.finding.range.clone()]
                )
            })
            .collect();
        if got != c.expect {
            failures.push(format!(
                "{}: expected {:?}, got {:?}",
                c.title, c.expect, got
            ));
            continue;
        }
        let to_release = upgrade::release_of(&to);
        let from_release = upgrade::release_of(&from);
        for ch in &changes {
            seen.push((c.from.clone(), ch.kind));
            // The message names the release it breaks on (the editor's tag) and the current one.
            if !(ch.finding.message.contains(&format!("NetBox {to_release}"))
                && ch.finding.message.contains(&from_release)
                && ch.release == to_release)
            {
                failures.push(format!("{}: message {:?}", c.title, ch.finding.message));
            }
            let certain = ch.finding.fixes.iter().filter(|f| f.certain).count();
            if certain > 1 {
                failures.push(format!("{}: {certain} certain fixes", c.title));
            }
        }
        let edits = netbox_lsp::fix::fix_all_edits(changes.iter().map(|ch| &ch.finding));
        let fixed = netbox_lsp::fix::apply(&c.text, &edits);
        match &c.fixed {
            None => {
                if !edits.is_empty() {
                    failures.push(format!(
                        "{}: no common form expected, yet a certain fix gives {fixed:?}",
                        c.title
                    ));
                }
            }
            Some(want) => {
                if &fixed != want {
                    failures.push(format!("{}: fixed {fixed:?}, want {want:?}", c.title));
                    continue;
                }
                // The fixed file is clean on both releases, and nothing changes any more.
                for (name, k) in [(&c.from, &from), (&c.to, &to)] {
                    let left = serious(k, &fixed, kind);
                    if !left.is_empty() {
                        failures.push(format!("{}: fixed text on {name}: {left:?}", c.title));
                    }
                }
                let again = upgrade::compare(&fixed, kind, &from, &to);
                if !again.is_empty() {
                    failures.push(format!(
                        "{}: the fixed text still changes: {:?}",
                        c.title,
                        again.iter().map(|c| &c.finding.message).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Each step to 4.7 has a case of every kind NetBox has a change of in that step.
    let want: &[(&str, &[Kind])] = &[
        (
            "4.3",
            &[
                Kind::RemovedFilter,
                Kind::RemovedEndpoint,
                Kind::GraphqlGrammar,
                Kind::NoOp,
                Kind::StartsToWork,
                Kind::RefusedValue,
                Kind::Truncated,
            ],
        ),
        (
            "4.5",
            &[
                Kind::RemovedFilter,
                Kind::GraphqlGrammar,
                Kind::NoOp,
                Kind::StartsToWork,
                Kind::RefusedValue,
            ],
        ),
        (
            "4.6",
            &[
                Kind::RemovedFilter,
                Kind::GraphqlGrammar,
                Kind::NoOp,
                Kind::StartsToWork,
                Kind::RefusedValue,
            ],
        ),
    ];
    for (from, kinds) in want {
        for k in *kinds {
            assert!(
                seen.iter().any(|(f, s)| f == from && s == k),
                "no {from} → 4.7 case of kind {}",
                k.as_str()
            );
        }
    }
    println!("{} upgrade cases", cases.len());
}

/// The faults 4.7.3 shares with every earlier release are no upgrade break (every fault of
/// 4.7.3 on these filters is also a fault of 4.3.3, 4.5.10 and 4.6.8, or a lookup 4.3.3
/// lacks). The `server-fault` kind of upgrade-breaks has its case in cases.txt: the object-type
/// filters that 4.3.3 filtered by id and 4.4 made `ContentTypeFilter`s.
#[test]
fn no_step_to_4_7_adds_a_server_fault() {
    let to = knowledge("4.7");
    for from in ["4.3", "4.5", "4.6"] {
        let from = knowledge(from);
        for (ep, q) in [
            ("dcim/console-ports", "speed__ie=9600"),
            ("dcim/console-server-ports", "speed__regex=9600"),
            ("users/tokens", "version__iregex=2"),
            ("extras/tagged-objects", "object_type__n=dcim.site"),
        ] {
            let text = format!("GET /api/{ep}/?{q}\n");
            let changes = upgrade::compare(&text, HostKind::Text, &from, &to);
            assert!(
                changes.iter().all(|c| c.kind != Kind::ServerFault),
                "{text}: {:?}",
                changes
                    .iter()
                    .map(|c| &c.finding.message)
                    .collect::<Vec<_>>()
            );
        }
    }
}

/// Every release-note citation is of a step between shipped releases, and docs/upgrade.md
/// cites the same issue.
#[test]
fn release_notes_are_cited_in_the_docs() {
    let doc = std::fs::read_to_string(root().join("docs/upgrade.md")).unwrap();
    let oldest = embedded::parse_version(embedded::RELEASES[0].version).unwrap();
    let newest = embedded::parse_version(embedded::default_version()).unwrap();
    for n in upgrade::NOTES {
        let r = embedded::parse_version(n.release).unwrap();
        assert!(oldest < r && r <= newest, "{}: {}", n.release, n.cite);
        for issue in n.cite.split("netbox#").skip(1) {
            let num: String = issue.chars().take_while(|c| c.is_ascii_digit()).collect();
            assert!(
                doc.contains(&format!("netbox#{num}")),
                "docs/upgrade.md does not cite netbox#{num} ({})",
                n.cite
            );
        }
        assert!(
            doc.contains(n.kind.as_str()),
            "docs/upgrade.md has no `{}`",
            n.kind.as_str()
        );
    }
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_netbox-lsp"))
}

/// The CLI on a small repository of files written for 4.6: exit 1 (something breaks), the
/// findings in JSON carry only the two upgrade codes with the target release in the message,
/// and the summary counts per file and kind.
#[test]
fn cli_upgrade_readiness_of_a_repository() {
    let repo = root().join("tests/fixtures/upgrade/repo");
    let out = Command::new(bin())
        .current_dir(&repo)
        .args([
            "check",
            "--netbox-version",
            "4.6",
            "--upgrade-to",
            "4.7",
            "--format",
            "json",
            ".",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = found.as_array().unwrap();
    assert!(!found.is_empty());
    for f in found {
        let code = f["code"].as_str().unwrap();
        assert!(
            code == upgrade::BREAKS || code == upgrade::CHANGES,
            "{code}"
        );
        assert!(
            f["message"].as_str().unwrap().contains("NetBox 4.7.3"),
            "{f}"
        );
    }
    let summary: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("netbox-lsp: note:"))
        .collect();
    insta::assert_snapshot!("upgrade_repo_summary", summary.join("\n"));
    // Text output: the same findings, one per line, with the fixes below.
    let text = Command::new(bin())
        .current_dir(&repo)
        .args([
            "check",
            "--netbox-version",
            "4.6",
            "--upgrade-to",
            "4.7",
            ".",
        ])
        .output()
        .unwrap();
    let text_out = String::from_utf8_lossy(&text.stdout).to_string();
    insta::assert_snapshot!("upgrade_repo_text", text_out);
    // docs/upgrade.md shows this very run as its worked example.
    let doc = std::fs::read_to_string(root().join("docs/upgrade.md")).unwrap();
    let shown = format!("{text_out}{}", String::from_utf8_lossy(&text.stderr));
    assert!(
        doc.contains(&shown),
        "docs/upgrade.md's worked example is not the output of this run:\n{shown}"
    );
    // SARIF carries the two codes as rules.
    let sarif = Command::new(bin())
        .current_dir(&repo)
        .args([
            "check",
            "--netbox-version",
            "4.6",
            "--upgrade-to",
            "4.7",
            "--format",
            "sarif",
            ".",
        ])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let results = s["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), found.len());
}

/// Usage errors: a target that is not newer, or not a version, is exit 2 with a message.
#[test]
fn cli_upgrade_refuses_a_target_that_is_not_newer() {
    let file = root().join("tests/fixtures/upgrade/repo/inventory.md");
    for (current, target) in [("4.7", "4.6"), ("4.6", "4.6"), ("4.6", "garbage")] {
        let out = Command::new(bin())
            .args([
                "check",
                "--netbox-version",
                current,
                "--upgrade-to",
                target,
                file.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{current} → {target}: {stderr}");
        assert!(stderr.contains("--upgrade-to"), "{stderr}");
    }
    // --upgrade-to and --fix do not go together (the fix of a target-only form would break the
    // current release).
    let out = Command::new(bin())
        .args([
            "check",
            "--upgrade-to",
            "4.7",
            "--fix",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A target past the shipped releases (`5.0`): the removals the 4.7 release notes announce for
/// it are expected breaks (`upgrade-announced`, a warning: announced, not measured), each with
/// its citation and replacement; what stays (`port_mappings`, the rack type's filters) is quiet.
/// From 4.6 the measured step to 4.7.3 comes first, then the announced one.
#[test]
fn cli_upgrade_to_an_announced_release() {
    let dir = root().join("tests/fixtures/upgrade/announced");
    for current in ["4.7", "4.6"] {
        let out = Command::new(bin())
            .current_dir(&dir)
            .args([
                "check",
                "--netbox-version",
                current,
                "--upgrade-to",
                "5.0",
                "--format",
                "json",
                ".",
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{current}: {stderr}");
        let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let got: Vec<(String, String)> = found
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap().to_string(),
                    f["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let announced: Vec<&(String, String)> = got
            .iter()
            .filter(|(c, _)| c == upgrade::ANNOUNCED)
            .collect();
        assert_eq!(announced.len(), 3, "{current}: {got:#?}");
        for (needle, replacement) in [
            ("`form_factor` goes in NetBox 5.0", "rack_type_id"),
            ("`protocol` goes in NetBox 5.0", "port_mappings"),
            ("`/api/extras/scripts/", "plugin"),
        ] {
            let m = announced
                .iter()
                .find(|(_, m)| m.contains(needle))
                .unwrap_or_else(|| panic!("{current}: no {needle}: {got:#?}"));
            assert!(
                m.1.starts_with("Expected to break on NetBox 5.0 as announced, not measured"),
                "{}",
                m.1
            );
            assert!(
                m.1.contains("release notes 4.7.0") && m.1.contains(replacement),
                "{}",
                m.1
            );
        }
        assert!(
            stderr.contains("1 call is expected to break")
                || stderr.contains("3 calls are expected to break"),
            "{stderr}"
        );
        assert!(stderr.contains("as announced (not measured)"), "{stderr}");
    }
    // A target past the shipped releases with nothing announced for it: nothing to report.
    let out = Command::new(bin())
        .current_dir(&dir)
        .args([
            "check",
            "--netbox-version",
            "4.7",
            "--upgrade-to",
            "4.8",
            ".",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
