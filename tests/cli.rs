//! End-to-end tests of `netbox-lsp check`: the real binary on fixtures (tests/fixtures/cli/) and
//! on trees generated in temporary folders (.gitignore, binary, invalid UTF-8, 20 MB files).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `netbox-lsp <args>` in `cwd`.
fn run_in(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run netbox-lsp");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `netbox-lsp <args>` in the crate root (fixture paths are relative to it).
fn run(args: &[&str]) -> Run {
    run_in(&root(), args)
}

fn json(r: &Run) -> Vec<Value> {
    serde_json::from_str::<Value>(&r.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", r.stdout))
        .as_array()
        .expect("a JSON array")
        .clone()
}

/// `(path, 1-based line, code)` of each finding of a JSON run.
fn summary_of(findings: &[Value]) -> Vec<(String, u64, String)> {
    findings
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["range"]["start"]["line"].as_u64().unwrap() + 1,
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The number K of `... in K files` on stderr.
pub(crate) fn files_checked(stderr: &str) -> usize {
    let line = stderr
        .lines()
        .rfind(|l| l.contains(" in ") && l.contains("error"))
        .unwrap_or_else(|| panic!("no summary line in:\n{stderr}"));
    line.rsplit(" in ")
        .next()
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bad summary line: {line}"))
}

#[test]
fn text_output() {
    let r = run(&["check", "tests/fixtures/cli/mixed"]);
    insta::assert_snapshot!("text_mixed", r.stdout);
    assert_eq!(r.code, 1, "errors in the fixture: exit 1\n{}", r.stderr);
    assert_eq!(files_checked(&r.stderr), 4, "{}", r.stderr);
}

#[test]
fn json_output() {
    let r = run(&["check", "--format", "json", "tests/fixtures/cli/mixed"]);
    let findings = json(&r);
    insta::assert_json_snapshot!("json_mixed", findings);
    assert_eq!(r.code, 1);
    // Sorted by path, then position.
    let keys: Vec<_> = summary_of(&findings)
        .into_iter()
        .map(|(p, l, _)| (p, l))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn json_positions_are_utf16_after_non_ascii() {
    let r = run(&[
        "check",
        "--format",
        "json",
        "tests/fixtures/cli/mixed/skill.md",
    ]);
    let text = std::fs::read_to_string(root().join("tests/fixtures/cli/mixed/skill.md")).unwrap();
    let f = json(&r)
        .into_iter()
        .find(|f| f["code"] == "unknown-filter")
        .expect("device_role_id is flagged");
    let line = f["range"]["start"]["line"].as_u64().unwrap() as usize;
    let col = f["range"]["start"]["character"].as_u64().unwrap() as usize;
    let line_text = text.lines().nth(line).unwrap();
    let utf16: Vec<u16> = line_text.encode_utf16().collect();
    let at = String::from_utf16(&utf16[col..]).unwrap();
    assert!(at.starts_with("device_role_id"), "range starts at: {at}");
    // The text format counts characters, 1-based.
    let t = run(&["check", "tests/fixtures/cli/mixed/skill.md"]);
    let char_col = line_text
        .find("device_role_id")
        .map(|b| line_text[..b].chars().count() + 1);
    let expected = format!(
        "tests/fixtures/cli/mixed/skill.md:{}:{}: error[unknown-filter]",
        line + 1,
        char_col.unwrap()
    );
    assert!(
        t.stdout.contains(&expected),
        "{expected}\nnot in:\n{}",
        t.stdout
    );
}

#[test]
fn sarif_output_is_structurally_valid() {
    let r = run(&["check", "--format", "sarif", "tests/fixtures/cli/mixed"]);
    assert_eq!(r.code, 1);
    let log: Value = serde_json::from_str(&r.stdout).expect("SARIF is JSON");
    insta::assert_json_snapshot!("sarif_mixed", log);
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["columnKind"], "utf16CodeUnits");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "netbox-lsp");
    assert!(driver["version"].is_string());
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "one rule per code");
    for rule in rules {
        assert!(rule["shortDescription"]["text"].is_string());
        assert!(rule["help"]["text"].is_string());
    }
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for res in results {
        let id = res["ruleId"].as_str().unwrap();
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], id, "ruleIndex points at the rule");
        assert!(["error", "warning", "note"].contains(&res["level"].as_str().unwrap()));
        assert!(res["message"]["text"].is_string());
        let loc = &res["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            uri.starts_with("tests/fixtures/cli/mixed/"),
            "relative uri: {uri}"
        );
        let region = &loc["region"];
        for k in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[k].as_u64().unwrap() >= 1, "{k} is 1-based");
        }
        if let Some(fixes) = res["fixes"].as_array() {
            for fix in fixes {
                assert!(fix["description"]["text"].is_string());
                let change = &fix["artifactChanges"][0];
                assert!(change["artifactLocation"]["uri"].is_string());
                let rep = &change["replacements"][0];
                assert!(rep["deletedRegion"]["startLine"].as_u64().unwrap() >= 1);
                assert!(rep["insertedContent"]["text"].is_string());
            }
        }
    }
}

#[test]
fn suppression_comments_end_to_end() {
    let r = run(&[
        "check",
        "--format",
        "json",
        "tests/fixtures/cli/mixed/skill.md",
    ]);
    let text = std::fs::read_to_string(root().join("tests/fixtures/cli/mixed/skill.md")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let flagged: Vec<&str> = json(&r)
        .iter()
        .map(|f| lines[f["range"]["start"]["line"].as_u64().unwrap() as usize])
        .collect();
    let on = |needle: &str| flagged.iter().any(|l| l.contains(needle));
    assert!(!on("\"Active\""), "same-line ignore: {flagged:?}");
    assert!(
        !on("\"leaf\""),
        "ignore[code] on the line before: {flagged:?}"
    );
    assert!(
        !on("tenant__isnull"),
        "HTML comment before the fence: {flagged:?}"
    );
    assert!(
        on("\"spine\""),
        "ignore[other-code] does not cover it: {flagged:?}"
    );
    assert!(on("site_id__in"), "list-item fence is checked: {flagged:?}");
}

#[test]
fn clean_files_exit_zero() {
    let r = run(&["check", "tests/fixtures/cli/clean"]);
    assert_eq!(r.stdout, "", "{}", r.stderr);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(files_checked(&r.stderr), 1);
}

#[test]
fn missing_path_exits_two() {
    let r = run(&["check", "tests/fixtures/cli/does-not-exist.md"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("does-not-exist.md"), "{}", r.stderr);
}

#[test]
fn usage_error_exits_two() {
    let r = run(&["check", "--format", "xml", "."]);
    assert_eq!(r.code, 2);
    let r = run(&["check", "--severity", "unknown-filter", "."]);
    assert_eq!(r.code, 2);
}

#[test]
fn severity_override_changes_exit_code() {
    let r = run(&[
        "check",
        "--format",
        "json",
        "--severity",
        "unknown-filter=warning",
        "tests/fixtures/cli/mixed/skill.md",
    ]);
    let findings = json(&r);
    assert!(findings
        .iter()
        .filter(|f| f["code"] == "unknown-filter")
        .all(|f| f["severity"] == "warning"));
    let off = run(&[
        "check",
        "--format",
        "json",
        "--severity",
        "unknown-filter=off",
        "tests/fixtures/cli/mixed/skill.md",
    ]);
    assert!(json(&off).iter().all(|f| f["code"] != "unknown-filter"));
}

#[test]
fn unknown_version_exits_two() {
    let r = run(&[
        "check",
        "--netbox-version",
        "2.0",
        "tests/fixtures/cli/clean",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("2.0"), "{}", r.stderr);
}

#[test]
fn netbox_version_changes_the_result() {
    // `owner_id` is a device filter from 4.5 on.
    let newest = run(&[
        "check",
        "--format",
        "json",
        "tests/fixtures/cli/versions/owner.py",
    ]);
    assert_eq!(json(&newest).len(), 0, "{}", newest.stdout);
    assert_eq!(newest.code, 0);
    let old = run(&[
        "check",
        "--format",
        "json",
        "--netbox-version",
        "4.3",
        "tests/fixtures/cli/versions/owner.py",
    ]);
    let codes: Vec<_> = summary_of(&json(&old))
        .into_iter()
        .map(|(_, l, c)| (l, c))
        .collect();
    assert_eq!(codes.len(), 1, "{codes:?}");
    assert_eq!(codes[0].0, 2);
    assert!(
        ["unknown-filter", "version-only"].contains(&codes[0].1.as_str()),
        "{codes:?}"
    );
    assert_eq!(old.code, 1);
}

#[test]
fn broken_index_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.index.json.gz");
    std::fs::write(&bad, b"\x1f\x8b\x08\x00garbage").unwrap();
    let r = run(&[
        "check",
        "--index",
        bad.to_str().unwrap(),
        "tests/fixtures/cli/clean",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("broken.index.json.gz"), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "one clear line: {}", r.stderr);
    let missing = run(&[
        "check",
        "--index",
        "nope.json.gz",
        "tests/fixtures/cli/clean",
    ]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("nope.json.gz"),
        "{}",
        missing.stderr
    );
}

#[test]
fn gitignore_is_respected_without_git() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let bad = "```python\nnetbox_get_objects(\"dcim.device\", {\"device_role_id\": 4})\n```\n";
    std::fs::write(p.join(".gitignore"), "drafts/\nscratch.md\n").unwrap();
    std::fs::create_dir_all(p.join("drafts")).unwrap();
    std::fs::create_dir_all(p.join(".claude/skills/x")).unwrap();
    std::fs::create_dir_all(p.join(".git")).unwrap();
    std::fs::write(p.join("drafts/d.md"), bad).unwrap();
    std::fs::write(p.join("scratch.md"), bad).unwrap();
    std::fs::write(p.join(".git/HEAD.md"), bad).unwrap();
    std::fs::write(p.join("kept.md"), bad).unwrap();
    std::fs::write(p.join(".claude/skills/x/SKILL.md"), bad).unwrap();
    std::fs::write(p.join("image.png.txt.rs"), bad).unwrap();
    let r = run_in(p, &["check", "--format", "json", "."]);
    assert_eq!(files_checked(&r.stderr), 2, "{}", r.stderr);
    let mut paths: Vec<_> = summary_of(&json(&r))
        .into_iter()
        .map(|(p, _, _)| p)
        .collect();
    paths.dedup();
    assert_eq!(paths, vec![".claude/skills/x/SKILL.md", "kept.md"]);
    // --exclude skips more.
    let r = run_in(p, &["check", "--exclude", ".claude/**", "."]);
    assert_eq!(files_checked(&r.stderr), 1, "{}", r.stderr);
}

#[test]
fn named_file_with_unknown_extension_is_checked_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("notes.log");
    std::fs::write(&f, "GET /api/dcim/devices/?device_role_id=4\n").unwrap();
    let r = run(&["check", "--format", "json", f.to_str().unwrap()]);
    assert_eq!(files_checked(&r.stderr), 1, "{}", r.stderr);
    assert_eq!(json(&r).len(), 1, "{}", r.stdout);
    // Walking the folder skips it.
    let r = run(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(files_checked(&r.stderr), 0, "{}", r.stderr);
}

#[test]
fn binary_file_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("blob.md");
    std::fs::write(&f, b"PK\x03\x04\0\0device_role_id\0").unwrap();
    let r = run(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("blob.md: binary file skipped"),
        "{}",
        r.stderr
    );
    assert_eq!(files_checked(&r.stderr), 0);
}

#[test]
fn invalid_utf8_is_decoded_lossily_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("latin1.md");
    let mut bytes = b"# Ger\xe4te\n\n".to_vec();
    bytes.extend_from_slice(
        b"```python\nnetbox_get_objects(\"dcim.device\", {\"device_role_id\": 4})\n```\n",
    );
    std::fs::write(&f, bytes).unwrap();
    let r = run(&["check", "--format", "json", f.to_str().unwrap()]);
    assert!(r.stderr.contains("not valid UTF-8"), "{}", r.stderr);
    let found = summary_of(&json(&r));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].1, found[0].2.as_str()), (4, "unknown-filter"));
    assert_eq!(r.code, 1);
}

#[test]
fn twenty_megabyte_markdown_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("huge.md");
    let section = "## Section\n\nSome prose with `inline code` and a link /api/dcim/devices/?role_id=4.\n\n```python\nnetbox_get_objects(\"dcim.device\", filters={\"role_id\": 4, \"status\": \"active\"})\n```\n\n";
    let mut text = String::with_capacity(21 << 20);
    while text.len() < 20 << 20 {
        text.push_str(section);
    }
    text.push_str("```python\nnetbox_get_objects(\"dcim.device\", {\"device_role_id\": 4})\n```\n");
    std::fs::write(&f, &text).unwrap();
    let r = run(&["check", "--format", "json", f.to_str().unwrap()]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    assert!(
        json(&r).len() <= 1,
        "no false findings in the repeated right calls"
    );
    assert_eq!(files_checked(&r.stderr), 1);
}

#[test]
fn examples_fail_with_useful_findings() {
    let r = run(&["check", "--format", "json", "examples"]);
    assert_eq!(
        r.code, 1,
        "examples contain errors on purpose\n{}",
        r.stderr
    );
    let found = summary_of(&json(&r));
    for file in [
        "examples/skills/netbox-inventory/SKILL.md",
        "examples/prompts/triage-prompt.md",
        "examples/python/audit_devices.py",
        "examples/tool-calls/calls.yaml",
        "examples/tool-calls/calls.json",
    ] {
        assert!(
            found.iter().any(|(p, _, _)| p == file),
            "no finding in {file}: {found:?}"
        );
    }
}

#[test]
fn netbox_lsp_toml_is_read_and_flags_win() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("a.md"),
        "Use `/api/dcim/devices/?device_role_id=3&status=Active`\n",
    )
    .unwrap();
    // Without a settings file: 4.6.8, an error and a warning.
    let r = run_in(dir, &["check", "a.md", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(json(&r).len(), 2);

    std::fs::write(
        dir.join("netbox-lsp.toml"),
        "netbox_version = \"4.3\"\n[severity]\nunknown-filter = \"warning\"\ninvalid-choice = \"off\"\n",
    )
    .unwrap();
    let r = run_in(dir, &["check", "a.md", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let found = json(&r);
    assert_eq!(found.len(), 1, "{}", r.stdout);
    assert_eq!(found[0]["severity"], "warning");
    assert!(found[0]["message"].as_str().unwrap().contains("4.3.3"));

    // A flag beats the file, per code.
    let r = run_in(
        dir,
        &["check", "a.md", "--severity", "unknown-filter=error"],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);

    // A broken settings file is an error, not silently ignored; --config names another file.
    std::fs::write(dir.join("netbox-lsp.toml"), "x = [\n").unwrap();
    let r = run_in(dir, &["check", "a.md"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("netbox-lsp.toml"), "{}", r.stderr);
    std::fs::write(dir.join("ci.toml"), "exclude = [\"a.md\"]\n").unwrap();
    let r = run_in(dir, &["check", ".", "--config", "ci.toml"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

/// Issue 23 §1: a repository's netbox-lsp.toml may only name files inside its folder, links
/// resolved (the editor's rule): `/proc/self/environ`, `../`, an absolute path and a link that
/// leads out are refused before anything is read, and the message never shows the file. A file
/// inside that is not a schema or an index is named but not quoted; the same file given on
/// the command line gets the parser's full message.
#[test]
fn settings_file_paths_stay_inside_and_are_never_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, outside) = (tmp.path().join("ws"), tmp.path().join("outside"));
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let secret = "SECRET_hunter2_7f3a";
    std::fs::write(outside.join("secret.graphql"), format!("{secret}=1\n")).unwrap();
    std::fs::write(ws.join("a.md"), "# notes\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.graphql"), ws.join("link.graphql")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("sub/out")).unwrap();
    let far = outside.join("secret.graphql");
    for (key, value) in [
        ("graphql_schema", "/proc/self/environ".to_string()),
        ("index", "/proc/self/environ".to_string()),
        ("graphql_schema", "../outside/secret.graphql".to_string()),
        ("graphql_schema", far.display().to_string()),
        ("graphql_schema", "link.graphql".to_string()),
        ("index", "sub/out/secret.graphql".to_string()),
        ("index", "sub/out/missing.json.gz".to_string()),
    ] {
        std::fs::write(ws.join("netbox-lsp.toml"), format!("{key} = \"{value}\"\n")).unwrap();
        let out = Command::new(BIN)
            .args(["check", "a.md"])
            .current_dir(&ws)
            .env("NETBOX_LSP_TEST_SECRET", secret)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{value}: {stderr}");
        assert!(!stderr.contains(secret), "{value}: {stderr}");
        assert!(
            stderr.contains(&format!("`{key}` names")) && stderr.contains("outside the folder"),
            "{value}: {stderr}"
        );
    }
    // Inside, but not a schema: named, not quoted; on the command line: the parser's message
    // and position, the schema's text not quoted either (a line can be megabytes long).
    std::fs::write(
        ws.join("bad.graphql"),
        format!("type Query {{ {secret}: String\n"),
    )
    .unwrap();
    std::fs::write(
        ws.join("netbox-lsp.toml"),
        "graphql_schema = \"bad.graphql\"\n",
    )
    .unwrap();
    let r = run_in(&ws, &["check", "a.md"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains(secret), "{}", r.stderr);
    assert!(
        r.stderr.contains("bad.graphql") && r.stderr.contains("not shown"),
        "{}",
        r.stderr
    );
    let r = run_in(&ws, &["check", "a.md", "--graphql-schema", "bad.graphql"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains(secret), "{}", r.stderr);
    assert!(
        r.stderr.contains("syntax error") && r.stderr.contains("at line 1, column "),
        "{}",
        r.stderr
    );
    // A schema inside the folder (here through a link that stays inside) is used.
    std::fs::copy(
        root().join("tests/fixtures/graphql/netbox-4.6.8.introspection.json.gz"),
        ws.join("sub/schema.json.gz"),
    )
    .unwrap();
    std::os::unix::fs::symlink("sub/schema.json.gz", ws.join("schema.json.gz")).unwrap();
    std::fs::write(
        ws.join("netbox-lsp.toml"),
        "graphql_schema = \"schema.json.gz\"\n",
    )
    .unwrap();
    let r = run_in(&ws, &["check", "a.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// `check` stays strict: one bad value in netbox-lsp.toml is an error (exit 2) naming it; a
/// severity code no check reports is a note naming the closest known code, from the file and
/// from `--severity`. (file text or None, extra args, exit code, stderr must contain)
#[test]
fn bad_settings_values_and_unknown_codes() {
    type Case<'a> = (Option<&'a str>, &'a [&'a str], i32, &'a [&'a str]);
    let cases: &[Case] = &[
        (
            Some("netbox_version = \"4.3\"\n[severity]\nunknown-filter = \"loud\"\n"),
            &[],
            2,
            &["netbox-lsp.toml: `severity.unknown-filter` must be one of", "\"loud\""],
        ),
        (
            Some("exclude = [\"[\", \"b/**\"]\n"),
            &[],
            2,
            &["netbox-lsp.toml: `exclude`: invalid glob `[`"],
        ),
        (
            Some("netbox_version = [4]\n"),
            &[],
            2,
            &["`netbox_version` must be a string"],
        ),
        (
            Some("[severity]\nunknown_filter = \"off\"\n"),
            &[],
            1,
            &["note: netbox-lsp.toml: `severity`: unknown code `unknown_filter` (did you mean `unknown-filter`?)"],
        ),
        (
            None,
            &["--severity", "unknown_filter=off"],
            1,
            &["note: --severity: unknown code `unknown_filter` (did you mean `unknown-filter`?)"],
        ),
        (None, &["--severity", "unknown-filter=off"], 0, &[]),
    ];
    for (file, extra, code, stderr) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(
            dir.join("a.md"),
            "Use `/api/dcim/devices/?device_role_id=3`\n",
        )
        .unwrap();
        if let Some(text) = file {
            std::fs::write(dir.join("netbox-lsp.toml"), text).unwrap();
        }
        let mut args = vec!["check", "a.md"];
        args.extend_from_slice(extra);
        let r = run_in(dir, &args);
        assert_eq!(
            r.code, *code,
            "{file:?} {extra:?}: {}{}",
            r.stdout, r.stderr
        );
        for want in *stderr {
            assert!(
                r.stderr.contains(want),
                "{file:?} {extra:?}: {want:?} not in {}",
                r.stderr
            );
        }
        if stderr.is_empty() {
            assert!(!r.stderr.contains("unknown code"), "{}", r.stderr);
        }
    }
}

/// Nesting deeper than tree-sitter's YAML and Python grammars can hold used to abort the
/// process inside the C library (no panic guard catches that): such code is now not read, the
/// run goes on, and the other files' findings are still reported.
#[test]
fn deeply_nested_code_does_not_abort_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let yaml_line = format!("{}x\n", "- ".repeat(260));
    let mut mapping = String::from("filters:\n");
    for i in 1..=260 {
        mapping.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
    }
    let mut python = String::new();
    for i in 0..511 {
        python.push_str(&format!("{}if x:\n", " ".repeat(i)));
    }
    python.push_str(&format!("{}y = 'a'\n", " ".repeat(511)));
    std::fs::write(dir.path().join("seq.yaml"), &yaml_line).unwrap();
    std::fs::write(dir.path().join("map.yaml"), &mapping).unwrap();
    std::fs::write(dir.path().join("deep.py"), &python).unwrap();
    std::fs::write(
        dir.path().join("SKILL.md"),
        format!("```yaml\n{yaml_line}```\n\n```python\n{python}```\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("wrong.md"),
        "```python\nnetbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n```\n",
    )
    .unwrap();
    only_the_wrong_call_is_reported(dir.path(), 5, 5);
}

/// `check` of `dir` reads all its `files` and reports the `device_role_id` of the one wrong
/// call the folder holds, and a `not-checked` error for each of the `refused` units of code
/// that nest too deep to be read (never a pass, never an abort).
fn only_the_wrong_call_is_reported(dir: &std::path::Path, files: usize, refused: usize) {
    let r = run_in(dir, &["check", "--format", "json", "."]);
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    let found = json(&r);
    let codes: Vec<&str> = found.iter().map(|f| f["code"].as_str().unwrap()).collect();
    let count = |c: &str| codes.iter().filter(|x| **x == c).count();
    assert_eq!(count("unknown-filter"), 1, "{codes:?}");
    assert_eq!(count("not-checked"), refused, "{codes:?}");
    assert_eq!(codes.len(), 1 + refused, "{codes:?}");
    assert_eq!(files_checked(&r.stderr), files, "{}", r.stderr);
}

/// Python expressions nested 100,000 deep without any indentation (`1+1+...`, `[[[...]]]`,
/// `a.b.b...`, `----1`), and nested inside f-string and t-string fields (`f"{[[[...]]]}"`,
/// `f"{f(f(...))}"`, nested f-strings and format specs, which used to abort with SIGABRT), in
/// `.py` files, in Markdown fences and in a notebook's cells: ruff's tree is walked and dropped
/// by recursion, so such text is not read (only its URLs) and is reported as not checked, and
/// the run goes on with the other files' findings (`--format json` prints all of them).
#[test]
fn deeply_nested_python_expressions_do_not_crash_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let n = 100_000;
    let texts = [
        format!("x = 1{}\n", "+1".repeat(n)),
        format!("x = {}{}\n", "[".repeat(n), "]".repeat(n)),
        format!("x = a{}\n", ".b".repeat(n)),
        format!("x = {}1\n", "-".repeat(n)),
        format!("x = f\"{{{}{}}}\"\n", "[".repeat(n), "]".repeat(n)),
        format!("x = f\"{{{}{}}}\"\n", "f(".repeat(n), ")".repeat(n)),
        format!("x = t'''{{{}{}}}'''\n", "(1,".repeat(n), ")".repeat(n)),
        format!("x = {}x{}\n", "f'{".repeat(n), "}'".repeat(n)),
        format!("x = f\"{{x:{}{}}}\"\n", "{x:".repeat(n), "}".repeat(n)),
    ];
    let mut md = String::new();
    let mut cells = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        std::fs::write(dir.path().join(format!("deep{i}.py")), t).unwrap();
        md.push_str(&format!("```python\n{t}```\n\n"));
        cells.push(serde_json::json!({"cell_type": "code", "source": [t], "metadata": {}}));
    }
    std::fs::write(dir.path().join("SKILL.md"), md).unwrap();
    let notebook = serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4});
    std::fs::write(dir.path().join("deep.ipynb"), notebook.to_string()).unwrap();
    std::fs::write(
        dir.path().join("wrong.py"),
        "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n",
    )
    .unwrap();
    let k = texts.len();
    only_the_wrong_call_is_reported(dir.path(), k + 3, 3 * k);
}

/// OpenAI-style tool calls carry their arguments as JSON text in a string: the filters in it
/// are checked, and applying every fix leaves valid JSON whose arguments hold the right filters.
#[test]
fn arguments_given_as_a_json_string_are_checked_and_fixed_in_place() {
    let path = "tests/fixtures/cli/openai/calls.json";
    let r = run(&["check", "--format", "json", path]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let found = json(&r);
    let codes: Vec<&str> = found.iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert_eq!(
        codes,
        [
            "unknown-filter",
            "invalid-choice",
            "dropped-value",
            "unsupported-lookup"
        ]
    );
    // Apply the first fix of each finding, last edit first (the file is one ASCII line, so
    // UTF-16 characters are bytes).
    let mut text = std::fs::read_to_string(root().join(path)).unwrap();
    let mut edits: Vec<(usize, usize, String)> = found
        .iter()
        .flat_map(|f| f["fixes"][0]["edits"].as_array().unwrap().clone())
        .map(|e| {
            let at = |p: &Value| p["character"].as_u64().unwrap() as usize;
            let r = &e["range"];
            assert_eq!(r["start"]["line"], 0);
            (
                at(&r["start"]),
                at(&r["end"]),
                e["new_text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (start, end, new) in edits {
        text.replace_range(start..end, &new);
    }
    let outer: Value = serde_json::from_str(&text).expect("still valid JSON");
    let args = outer["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap();
    let inner: Value = serde_json::from_str(args).expect("the arguments are still JSON");
    assert_eq!(
        inner["filters"],
        serde_json::json!({"role_id": 3, "status": "active", "tenant_id": "null", "site_id": [1, 2]})
    );
}

/// Issue 10 §5 / issue 8 §7: a release that is not shipped is checked with the closest shipped
/// one; the note is said once (not per finding or file), names a newer release may have are
/// warnings, value errors stay errors.
#[test]
fn newer_release_uses_the_closest_and_softens_name_errors() {
    let file = "tests/fixtures/cli/versions/newer.py";
    let exact = run(&["check", "--format", "json", file]);
    let sev = |r: &Run| -> Vec<(String, String)> {
        json(r)
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap().to_string(),
                    f["severity"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let exact_sev = sev(&exact);
    assert!(
        exact_sev.contains(&("unknown-filter".into(), "error".into())),
        "{exact_sev:?}"
    );
    assert!(exact.stderr.is_empty() || !exact.stderr.contains("not shipped"));
    for (req, used) in [
        ("4.7.1", "4.7.3"),
        ("4.8.2", "4.7.3"),
        ("4.6.0", "4.6.8"),
        ("5.0", "4.7.3"),
    ] {
        let r = run(&[
            "check",
            "--format",
            "json",
            "--netbox-version",
            req,
            file,
            "tests/fixtures/cli/versions/owner.py",
        ]);
        let got = sev(&r);
        assert!(
            got.contains(&("unknown-filter".into(), "warning".into())),
            "{req}: {got:?}"
        );
        assert!(
            got.contains(&("invalid-value".into(), "error".into())),
            "{req}: {got:?}"
        );
        assert_eq!(
            r.stderr.matches("is not shipped").count(),
            1,
            "{req}: {}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains(&format!("using {used}, the closest shipped release")),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("index build --url"), "{}", r.stderr);
        assert_eq!(r.code, 1, "{req}: the value error still fails the run");
    }
    // 4.7 and 4.7.3 are shipped: exact knowledge, no note.
    for req in ["4.7", "4.7.3"] {
        let r = run(&["check", "--netbox-version", req, file]);
        assert!(!r.stderr.contains("is not shipped"), "{req}: {}", r.stderr);
    }
    let newer = run(&["check", "--netbox-version", "4.8.2", file]);
    assert!(
        newer.stderr.contains("(older than 4.8.2)"),
        "{}",
        newer.stderr
    );
    let gap = run(&["check", "--netbox-version", "4.7.1", file]);
    assert!(
        gap.stderr
            .contains("using 4.7.3, the closest shipped release (newer than 4.7.1)"),
        "{}",
        gap.stderr
    );
    let older = run(&["check", "--netbox-version", "4.6.0", file]);
    assert!(
        older.stderr.contains("(newer than 4.6.0)"),
        "{}",
        older.stderr
    );
    assert!(!older.stderr.contains("older than"), "{}", older.stderr);
}

/// `--help` (and `check --help`) name every shipped NetBox version, i.e. every index in index/,
/// and the default (issue 12 §7).
#[test]
fn help_lists_the_shipped_netbox_versions() {
    let mut shipped: Vec<String> = std::fs::read_dir(root().join("index"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            Some(
                name.strip_prefix("netbox-")?
                    .strip_suffix(".index.json.gz")?
                    .to_string(),
            )
        })
        .collect();
    shipped.sort();
    assert!(shipped.len() >= 4, "{shipped:?}");
    for args in [&["--help"][..], &["check", "--help"]] {
        let r = run(args);
        assert_eq!(r.code, 0);
        let line = r
            .stdout
            .lines()
            .find(|l| l.starts_with("Shipped NetBox versions"))
            .unwrap_or_else(|| panic!("no version line in:\n{}", r.stdout));
        for v in &shipped {
            assert!(line.contains(v.as_str()), "{v} missing: {line}");
        }
        assert!(line.ends_with(" (default)"), "{line}");
    }
}

/// The summary line counts in the findings' own severity words (`information`, `hint`), never
/// "notes" (issue 12 §7).
#[test]
fn summary_uses_the_severity_words() {
    let r = run(&["check", "tests/fixtures/extract/tools.py"]);
    let summary = r.stderr.lines().last().unwrap_or_default().to_string();
    for sev in ["information", "hint"] {
        assert!(r.stdout.contains(&format!(": {sev}[")), "{}", r.stdout);
    }
    assert!(
        summary.contains(" information,") && summary.contains(" hint"),
        "{summary}"
    );
    assert!(!summary.contains("note"), "{summary}");
}

/// Runs `netbox-lsp <args>` in the crate root with `input` on standard input.
fn run_stdin(args: &[&str], input: &str) -> Run {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run netbox-lsp");
    // A run refused before it reads (`check - --fix`) may exit first: its closed pipe is no
    // failure of the test, which then asserts on the exit and the messages.
    if let Err(e) = child.stdin.take().unwrap().write_all(input.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().expect("wait");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Issue 22 §4: `check -` reads standard input, read and shown as `--stdin-filename` says.
#[test]
fn stdin_is_checked_as_the_named_file() {
    let md =
        "List leaves: `netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})`\n";
    let r = run_stdin(
        &["check", "-", "--stdin-filename", "skills/leaves/SKILL.md"],
        md,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("skills/leaves/SKILL.md:1:")
            && r.stdout
                .contains(": error[unknown-filter] `device_role_id`"),
        "{}",
        r.stdout
    );
    // Without a name: Markdown, shown as `-`.
    let r = run_stdin(&["check", "-", "--format", "json"], md);
    assert_eq!(
        summary_of(&json(&r)),
        [("-".into(), 1, "unknown-filter".into())]
    );
    // The name's extension picks the reader: the same call as Python code.
    let py = "nb.dcim.devices.filter(site_id__in=[1, 2])\n";
    let r = run_stdin(&["check", "-", "--stdin-filename", "x.py"], py);
    assert!(
        r.stdout.starts_with("x.py:1:24: error[unsupported-lookup]"),
        "{}",
        r.stdout
    );
    let r = run_stdin(&["check", "-", "--stdin-filename", "x.md"], py);
    assert_eq!(r.code, 0, "prose is not Python: {}", r.stdout);
    // --diff works on it; --fix cannot write back.
    let r = run_stdin(&["check", "-", "--stdin-filename", "x.py", "--diff"], py);
    assert!(
        r.stdout.starts_with("--- a/x.py\n+++ b/x.py\n")
            && r.stdout.contains("+nb.dcim.devices.filter(site_id=[1, 2])"),
        "{}",
        r.stdout
    );
    let r = run_stdin(&["check", "-", "--fix"], py);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--fix cannot write back to standard input"),
        "{}",
        r.stderr
    );
    // Files and `-` together.
    let r = run_stdin(
        &[
            "check",
            "-",
            "tests/fixtures/cli/clean/ok.md",
            "--stdin-filename",
            "x.py",
        ],
        py,
    );
    assert_eq!(files_checked(&r.stderr), 2, "{}", r.stderr);
}

/// Issue 22 §4: a folder with no file the tool reads says so on stderr (exit 0).
#[test]
fn a_folder_with_nothing_to_read_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(dir.path().join("notes.md"), "nothing here\n").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "\n").unwrap();
    let r = run_in(dir.path(), &["check", "src", "."]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("note: src: no file here has an extension netbox-lsp reads (.md .markdown"),
        "{}",
        r.stderr
    );
    // `.` has notes.md: no note for it.
    assert_eq!(r.stderr.matches("no file here").count(), 1, "{}", r.stderr);
}

/// Issue 22 §4: `--index FILE` uses the GraphQL schema `index build` wrote beside it.
#[test]
fn index_picks_up_the_schema_beside_it() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("my.index.json.gz");
    std::fs::copy(root().join("index/netbox-4.6.8.index.json.gz"), &index).unwrap();
    let doc = dir.path().join("q.graphql");
    std::fs::write(&doc, "{ device_list { id } }\n").unwrap();
    let (i, d) = (index.to_str().unwrap(), doc.to_str().unwrap());
    // The embedded schema of the index's version knows `device_list`.
    let r = run(&["check", d, "--index", i]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // A schema beside the index that has no `device_list`: now an error, and a note names it.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"type Query { site_list: [Int] }\n").unwrap();
    std::fs::write(
        dir.path().join("my.schema.graphql.gz"),
        gz.finish().unwrap(),
    )
    .unwrap();
    let r = run(&["check", d, "--index", i]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("error[graphql-validation]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("using the GraphQL schema beside the index: ")
            && r.stderr.contains("my.schema.graphql.gz"),
        "{}",
        r.stderr
    );
    // A named schema wins.
    let named = dir.path().join("other.graphql");
    std::fs::write(
        &named,
        "type D { id: ID }\ntype Query { device_list: [D] }\n",
    )
    .unwrap();
    let r = run(&[
        "check",
        d,
        "--index",
        i,
        "--graphql-schema",
        named.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stderr.contains("beside the index"), "{}", r.stderr);
}

/// Issue 18 §4: the calls not checked are counted in the summary (every format), listed with
/// why by `--explain` (text lines, JSON elements, SARIF `notApplicable` results), and a
/// `[skip]` switch in netbox-lsp.toml checks one kind again.
#[test]
fn calls_not_checked_are_counted_explained_and_switchable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("skill.md"),
        "# NetBox skill\n\nNever use `/api/dcim/devices/?site_id__in=4,5`.\n\n```python\n# WRONG\nnb.dcim.devices.filter(device_role=\"leaf\")\n```\n\n| Constraints |\n|---|\n| `{\"status__in\": [\"planned\"]}` |\n\nLeaf switches: `/api/dcim/devices/?role_id=3&colour=red`.\n",
    )
    .unwrap();
    let plain = run_in(dir, &["check", "skill.md"]);
    assert_eq!(plain.code, 1, "{}", plain.stderr);
    assert_eq!(
        plain.stdout.matches("error[").count(),
        1,
        "{}",
        plain.stdout
    );
    assert!(plain.stdout.contains("colour"), "{}", plain.stdout);
    assert!(
        plain
            .stderr
            .contains("found; not checked: 1 Django query, 2 lessons)"),
        "{}",
        plain.stderr
    );

    let text = run_in(dir, &["check", "skill.md", "--explain"]);
    let skipped: Vec<&str> = text
        .stdout
        .lines()
        .filter(|l| l.contains(": skipped["))
        .collect();
    assert_eq!(skipped.len(), 3, "{}", text.stdout);
    assert!(
        skipped[0].starts_with("skill.md:3:12: skipped[lesson] read as a wrong example: its sentence says “Never use” (line 3)"),
        "{}",
        skipped[0]
    );
    assert!(
        skipped[1].contains("skipped[lesson]")
            && skipped[1].contains("“WRONG” in its comment (line 6)"),
        "{}",
        skipped[1]
    );
    assert!(
        skipped[2].contains("skipped[django]")
            && skipped[2].contains("its table column says “Constraints”"),
        "{}",
        skipped[2]
    );

    let j = run_in(dir, &["check", "skill.md", "--explain", "--format", "json"]);
    let all = json(&j);
    assert_eq!(all.iter().filter(|e| e.get("code").is_some()).count(), 1);
    let held: Vec<&str> = all.iter().filter_map(|e| e["skipped"].as_str()).collect();
    assert_eq!(held, ["lesson", "lesson", "django"]);
    assert!(all.iter().all(|e| e["range"]["start"]["line"].is_u64()));
    // Without --explain the JSON holds the findings alone.
    assert_eq!(
        json(&run_in(dir, &["check", "skill.md", "--format", "json"])).len(),
        1
    );

    let sarif = |args: &[&str]| -> Value {
        let r = run_in(dir, args);
        serde_json::from_str(&r.stdout).expect("SARIF")
    };
    let log = sarif(&["check", "skill.md", "--format", "sarif"]);
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["notChecked"]["lesson"], 2);
    assert_eq!(run["properties"]["notChecked"]["django"], 1);
    assert_eq!(run["results"].as_array().unwrap().len(), 1);
    let log = sarif(&["check", "skill.md", "--format", "sarif", "--explain"]);
    let results = log["runs"][0]["results"].as_array().unwrap().clone();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .clone();
    let na: Vec<&Value> = results
        .iter()
        .filter(|r| r["kind"] == "notApplicable")
        .collect();
    assert_eq!(na.len(), 3);
    for r in &na {
        assert_eq!(r["level"], "none");
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
    }

    // [skip] lesson = false: the lessons are checked as calls again; the Django query is not.
    std::fs::write(dir.join("netbox-lsp.toml"), "[skip]\nlesson = false\n").unwrap();
    let r = run_in(dir, &["check", "skill.md"]);
    assert_eq!(r.stdout.matches("error[").count(), 3, "{}", r.stdout);
    assert!(
        r.stderr.contains("not checked: 1 Django query)"),
        "{}",
        r.stderr
    );
    std::fs::write(dir.join("netbox-lsp.toml"), "[skip]\nlessons = false\n").unwrap();
    let r = run_in(dir, &["check", "skill.md"]);
    assert!(
        r.stderr.contains("unknown key `skip.lessons`"),
        "{}",
        r.stderr
    );
}

/// Issue 23 §4: a UTF-16 or UTF-32 file with its byte-order mark (either byte order) is
/// checked like its UTF-8 twin (same finding, same range), not skipped as binary; `--fix`
/// leaves it alone with a note.
#[test]
fn utf16_and_utf32_files_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let text = "\u{feff}# Devices\n\n`GET /api/dcim/devices/?naem=x`\n";
    let files: [(&str, Vec<u8>); 4] = [
        (
            "le16.md",
            text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        ),
        (
            "be16.md",
            text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        ),
        (
            "le32.md",
            text.chars()
                .flat_map(|c| (c as u32).to_le_bytes())
                .collect(),
        ),
        (
            "be32.md",
            text.chars()
                .flat_map(|c| (c as u32).to_be_bytes())
                .collect(),
        ),
    ];
    std::fs::write(dir.path().join("utf8.md"), text).unwrap();
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let r = run_in(dir.path(), &["check", "--format", "json", "."]);
    let found: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let of = |path: &str| -> Vec<String> {
        found
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["path"] == path)
            .map(|f| format!("{} {}", f["code"], f["range"]))
            .collect()
    };
    let want = of("utf8.md");
    assert_eq!(want.len(), 1, "{}", r.stdout);
    for (name, _) in &files {
        assert_eq!(of(name), want, "{name}: {}", r.stderr);
    }
    assert!(!r.stderr.contains("binary"), "{}", r.stderr);
    let r = run_in(dir.path(), &["check", "--fix", "le16.md"]);
    assert!(r.stderr.contains("UTF-16LE; not fixed"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(dir.path().join("le16.md")).unwrap(),
        files[0].1
    );
}

/// Issue 19 §4: agent rule files are Markdown wherever they are (Cursor's `.mdc` rules with
/// their front matter and `.cursorrules`, Windsurf's `.windsurfrules`, GitHub Copilot's
/// instructions and prompt files): a folder walk reads each, and a wrong filter in a fence or in
/// inline code is reported in each, at its line.
#[test]
fn agent_rule_files_are_read_as_markdown() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let body = "# NetBox rules\n\nList leaf switches with `GET /api/dcim/devices/?device_role_id=3`.\n\n```python\nnb.dcim.interfaces.filter(device__name=\"spine-02\")\n```\n";
    let files = [
        ".cursorrules",
        ".windsurfrules",
        ".cursor/rules/netbox.mdc",
        ".github/copilot-instructions.md",
        ".github/instructions/netbox.instructions.md",
        ".github/prompts/audit.prompt.md",
    ];
    for f in files {
        let path = dir.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let front = if f.ends_with(".mdc") {
            "---\ndescription: NetBox queries\nglobs: \"**/*.py\"\nalwaysApply: false\n---\n"
        } else {
            ""
        };
        std::fs::write(&path, format!("{front}{body}")).unwrap();
    }
    let r = run_in(dir, &["check", ".", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let found = summary_of(&json(&r));
    for f in files {
        let shift = if f.ends_with(".mdc") { 5 } else { 0 };
        for (line, code) in [(3 + shift, "unknown-filter"), (6 + shift, "multi-hop")] {
            assert!(
                found
                    .iter()
                    .any(|(p, l, c)| p == f && *l == line && c == code),
                "{f}: no {code} on line {line}: {found:?}"
            );
        }
    }
    // One file named on the command line is read the same way.
    let r = run_in(dir, &["check", ".cursorrules", "--format", "json"]);
    assert_eq!(json(&r).len(), 2, "{}", r.stdout);
}

/// `cli::main_from` runs the command line on the arguments it is given, not the process's (the
/// test harness's, which are no `netbox-lsp` command line and would be a usage error): a clean
/// file checks to 0, as the binary does; an unknown option is a usage error (2). `--quiet` and
/// the text format keep a clean check's output empty (nothing in the test's output).
#[test]
fn main_from_runs_the_given_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.py");
    std::fs::write(&clean, "nb.dcim.devices.filter(site='dc1')\n").unwrap();
    let clean = clean.to_str().unwrap();
    assert_eq!(
        netbox_lsp::cli::main_from(["netbox-lsp", "check", "--quiet", clean]),
        0
    );
    assert_eq!(
        netbox_lsp::cli::main_from(["netbox-lsp", "check", "--no-such-option", clean]),
        2
    );
    // The same through the binary: the exit codes agree.
    assert_eq!(run(&["check", "--quiet", clean]).code, 0);
}

/// How often the child of [`main_from_again_and_again_holds_no_more_memory`] runs `check`, and
/// after how many runs its resident set has settled: each of the pool's threads and the main
/// thread keep the memory they freed (`purge_delay`), and it takes a few runs for each to have
/// held its share of the largest run.
const RUNS: usize = 24;
const SETTLED: usize = 8;

/// The resident set of this process in KiB (Linux: `/proc/self/status`).
#[cfg(target_os = "linux")]
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The child of [`main_from_again_and_again_holds_no_more_memory`], run alone in a process of
/// its own (its RSS is its own, no other test allocating beside it): `check --format json` on
/// 5,000 wrong calls through `main_from`, [`RUNS`] times; says on stderr the resident set after
/// each run and how many KiB it grew from the end of run [`SETTLED`] to the end of the last.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by main_from_again_and_again_holds_no_more_memory in a process of its own"]
fn main_from_again_and_again_child() {
    let Some(path) = std::env::var_os("NETBOX_LSP_REPEAT_FILE") else {
        return;
    };
    let path = path.to_str().unwrap().to_string();
    let mut after = Vec::new();
    for _ in 0..RUNS {
        let code = netbox_lsp::cli::main_from(["netbox-lsp", "check", "--format", "json", &path]);
        assert_eq!(code, 1);
        after.push(resident_kib());
    }
    eprintln!("rss-kib={after:?}");
    eprintln!(
        "grew-kib={}",
        after[RUNS - 1].saturating_sub(after[SETTLED - 1])
    );
}

/// `cli::main_from` frees what each run allocated: in a process that runs `check` again and
/// again (an agent's or a bench's), memory stays as it was after the first runs. Before, each
/// run left its last file's findings to an exit that did not come, and the allocator kept
/// each thread's full pages (the blocks other threads had freed in them): the resident set
/// grew by ~9 MB a run of these 5,000 calls (143–147 MB from the 8th run to the 24th, two
/// runs); now by 0.9–2.3 MB over those 16 runs (three runs), as each thread's heap settles.
#[cfg(target_os = "linux")]
#[test]
fn main_from_again_and_again_holds_no_more_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.py");
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!(
            "netbox_get_objects(\"dcim.device\", {{\"device_role_id\": {i}, \"status\": \"Active\", \"site_id__in\": [{i}, 2]}})\n"
        ));
    }
    std::fs::write(&file, text).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "cli::main_from_again_and_again_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("NETBOX_LSP_REPEAT_FILE", &file)
        .stdout(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let grew: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("grew-kib="))
        .unwrap_or_else(|| panic!("the child said nothing: {stderr}"))
        .parse()
        .unwrap();
    assert!(
        grew < 8192,
        "the resident set grew {grew} KiB from run {SETTLED} to run {RUNS}"
    );
}
