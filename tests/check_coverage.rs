//! `check` never passes what it did not read (issue 8 §7), through the real CLI: a file above
//! the structural size limit fails with `not-checked`, and the summary says how many NetBox
//! calls and GraphQL documents were found.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

fn check(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .arg("check")
        .args(args)
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn oversized_python_fails_instead_of_passing_unchecked() {
    let dir = tempfile_dir("oversized");
    let path = dir.join("huge.py");
    let line = "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n";
    let limit = netbox_lsp::analysis::structural_limit(netbox_lsp::extract::HostKind::Python)
        .expect("Python has a limit");
    let text = line.repeat(limit / line.len() + 10);
    std::fs::write(&path, text).unwrap();
    let (code, stdout, _) = check(&["--format", "json", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let codes: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["not-checked"], "only URLs are read above the limit");
}

#[test]
fn summary_counts_calls_and_documents() {
    let dir = tempfile_dir("summary");
    let tf = dir.join("notes.txt");
    std::fs::write(
        &tf,
        "resource \"netbox_device\" \"sw1\" { name = \"sw1\" }\n",
    )
    .unwrap();
    let (code, _, stderr) = check(&[tf.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stderr.contains(
            "0 errors, 0 warnings in 1 file (0 NetBox REST calls, 0 GraphQL documents found)"
        ),
        "{stderr}"
    );
    // The issue's case: a `.tf` named on the command line is read, holds no call, and says so.
    let tf = dir.join("main.tf");
    std::fs::write(
        &tf,
        "resource \"netbox_device\" \"sw1\" { name = \"sw1\" }\n",
    )
    .unwrap();
    let (code, _, stderr) = check(&[tf.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stderr.contains("in 1 file (0 NetBox REST calls, 0 GraphQL documents found)"),
        "{stderr}"
    );
    let md = dir.join("skill.md");
    std::fs::write(
        &md,
        "`/api/dcim/devices/?role_id=3`\n\n```graphql\n{ site_list { id } }\n```\n",
    )
    .unwrap();
    let (_, _, stderr) = check(&[md.to_str().unwrap()]);
    assert!(
        stderr.contains("(1 NetBox REST call, 1 GraphQL document found)"),
        "{stderr}"
    );
}

/// A list path without a query string is one call, also when it is the URL of a call that
/// holds it (`requests.get(f"{NB}/api/dcim/devices/", params=...)` in a Python fence).
#[test]
fn bare_list_paths_count_once() {
    let dir = tempfile_dir("bare");
    let md = dir.join("skill.md");
    std::fs::write(
        &md,
        "NetBox: `GET /api/dcim/sites/` and `/api/dcim/device/`.\n\n```python\nrequests.get(f\"{NB}/api/dcim/devices/\", params={\"site_id\": 3})\n```\n",
    )
    .unwrap();
    let (code, stdout, stderr) = check(&[md.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("unknown-endpoint"), "{stdout}");
    assert!(stderr.contains("(3 NetBox REST calls"), "{stderr}");
}

fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("netbox-lsp-coverage-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A JSON file of more values than its size allows (`[1,1,…]`: two bytes a value) is not read
/// structurally and fails with `not-checked` saying why, through the real CLI; its quiet twin,
/// the same call with a few values of padding, is read and its wrong filter found.
#[test]
fn json_above_the_node_budget_fails_instead_of_passing_unchecked() {
    let dir = tempfile_dir("node-budget");
    let call = r#"{"name": "netbox_get_objects", "arguments": {"object_type": "dcim.site", "filters": {"stauts": "active"}}}"#;
    for (values, want) in [(1_000, "unknown-filter"), (300_000, "not-checked")] {
        let path = dir.join(format!("calls-{values}.json"));
        std::fs::write(&path, format!("[{call}{}]", ",1".repeat(values))).unwrap();
        let (code, stdout, _) = check(&["--format", "json", path.to_str().unwrap()]);
        assert_eq!(code, 1, "{stdout}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let found = v.as_array().unwrap();
        let codes: Vec<&str> = found.iter().map(|f| f["code"].as_str().unwrap()).collect();
        assert_eq!(codes, [want], "{values} values");
        if want == "not-checked" {
            let message = found[0]["message"].as_str().unwrap();
            assert!(message.contains("holds more values"), "{message}");
        }
    }
}
