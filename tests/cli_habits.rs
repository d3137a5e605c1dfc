//! The command-line habits of issue 35 §3–§4, end to end through the real binary: selection by
//! code and prefix, `--exit-zero`, `--quiet`, `--format github|gitlab`, `--color` and
//! `NO_COLOR`, `[tool.netbox-lsp]` in `pyproject.toml`, `rule CODE` / `--explain CODE`,
//! `--statistics`, `--upgrade-to` with `--fix`/`--diff`, a missing path, suppressions with a
//! reason, ranges and `unused-suppression`, and the baseline keyed across edits.

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

fn run_env(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(cwd).env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run netbox-lsp");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run_in(cwd: &Path, args: &[&str]) -> Run {
    run_env(cwd, args, &[])
}

fn run(args: &[&str]) -> Run {
    run_in(&root(), args)
}

fn codes_of(r: &Run) -> Vec<String> {
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", r.stdout, r.stderr));
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

const SKILLS: &str = "examples/skills";

#[test]
fn select_ignore_and_extend_select_by_code_and_prefix() {
    let all = codes_of(&run(&["check", "--format", "json", SKILLS]));
    assert!(
        all.iter().any(|c| c.starts_with("graphql-")) && all.contains(&"unknown-filter".into())
    );
    let graphql = codes_of(&run(&[
        "check", "--format", "json", "--select", "graphql", SKILLS,
    ]));
    assert!(
        !graphql.is_empty() && graphql.iter().all(|c| c.starts_with("graphql-")),
        "{graphql:?}"
    );
    let no_graphql = codes_of(&run(&[
        "check", "--format", "json", "--ignore", "graphql-", SKILLS,
    ]));
    assert_eq!(
        no_graphql,
        all.iter()
            .filter(|c| !c.starts_with("graphql-"))
            .cloned()
            .collect::<Vec<_>>()
    );
    let two = codes_of(&run(&[
        "check",
        "--format",
        "json",
        "--select",
        "unknown-filter",
        "--extend-select",
        "graphql-pagination,invalid-choice",
        SKILLS,
    ]));
    let mut want: Vec<String> = all
        .iter()
        .filter(|c| {
            ["unknown-filter", "graphql-pagination", "invalid-choice"].contains(&c.as_str())
        })
        .cloned()
        .collect();
    want.sort();
    let mut got = two.clone();
    got.sort();
    assert_eq!(got, want);
    // Only warnings left: exit 0.
    let r = run(&["check", "--select", "invalid-choice", SKILLS]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A selector that picks nothing is a usage error naming the closest code.
    let r = run(&["check", "--select", "unknown-filtre", SKILLS]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("did you mean `unknown-filter`"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, "");
}

#[test]
fn exit_zero_and_quiet() {
    let r = run(&["check", "--exit-zero", SKILLS]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("error[unknown-filter]"));
    assert!(
        r.stderr.contains(" errors, "),
        "the summary stays: {}",
        r.stderr
    );
    let r = run(&["check", "-q", SKILLS]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("error[unknown-filter]"));
    assert_eq!(r.stderr, "", "quiet: nothing but errors on stderr");
    // Errors are never quiet.
    let r = run(&["check", "-q", "--netbox-version", "3.1", SKILLS]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("error"), "{}", r.stderr);
}

#[test]
fn github_annotations_and_gitlab_code_quality() {
    let json = codes_of(&run(&["check", "--format", "json", SKILLS]));
    let r = run(&["check", "--format", "github", SKILLS]);
    assert_eq!(r.code, 1);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), json.len(), "{}", r.stdout);
    let first = lines[0];
    assert!(
        first.starts_with("::error file=examples/skills/netbox-inventory/SKILL.md,line=36,endLine=36,col=60,endColumn=74,title=netbox-lsp (unknown-filter)::unknown-filter: `device_role_id` is not a filter"),
        "{first}"
    );
    assert!(
        first.ends_with("Fix: Replace `device_role_id` with `role_id`"),
        "{first}"
    );
    assert!(lines.iter().any(|l| l.starts_with("::warning ")));

    let r = run(&["check", "--format", "gitlab", SKILLS]);
    assert_eq!(r.code, 1);
    let issues: Vec<Value> = serde_json::from_str(&r.stdout).expect("code quality JSON");
    assert_eq!(issues.len(), json.len());
    let mut prints: Vec<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    prints.sort();
    prints.dedup();
    assert_eq!(prints.len(), issues.len(), "fingerprints are unique");
    for i in &issues {
        assert!(
            ["major", "minor", "info"].contains(&i["severity"].as_str().unwrap()),
            "{i}"
        );
        assert!(i["location"]["path"]
            .as_str()
            .unwrap()
            .starts_with("examples/skills/"));
        assert!(
            i["location"]["positions"]["begin"]["line"]
                .as_u64()
                .unwrap()
                >= 1
        );
        assert!(i["check_name"].is_string() && i["description"].is_string());
    }
    // The same findings one line lower keep their fingerprints.
    let tmp = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(root().join(SKILLS).join("netbox-inventory/SKILL.md")).unwrap();
    std::fs::write(tmp.path().join("SKILL.md"), &text).unwrap();
    let a: Vec<Value> = serde_json::from_str(
        &run_in(tmp.path(), &["check", "--format", "gitlab", "SKILL.md"]).stdout,
    )
    .unwrap();
    std::fs::write(tmp.path().join("SKILL.md"), format!("\n{text}")).unwrap();
    let b: Vec<Value> = serde_json::from_str(
        &run_in(tmp.path(), &["check", "--format", "gitlab", "SKILL.md"]).stdout,
    )
    .unwrap();
    let fp = |v: &[Value]| {
        v.iter()
            .map(|i| i["fingerprint"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(fp(&a), fp(&b));
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let plain = run(&["check", SKILLS]).stdout;
    assert!(!plain.contains('\x1b'), "not a terminal: no colour");
    let coloured = run(&["check", "--color", "always", SKILLS]).stdout;
    assert!(
        coloured.contains("\x1b[1;31merror[unknown-filter]\x1b[0m"),
        "{coloured}"
    );
    let stripped = regex::Regex::new("\x1b\\[[0-9;]*m")
        .unwrap()
        .replace_all(&coloured, "");
    assert_eq!(stripped, plain, "the same text once the escapes are out");
    // NO_COLOR turns `auto` off; a flag wins over it.
    let r = run_env(
        &root(),
        &["check", "--color", "always", SKILLS],
        &[("NO_COLOR", "1")],
    );
    assert!(r.stdout.contains('\x1b'));
    let r = run_env(&root(), &["check", "--color", "never", SKILLS], &[]);
    assert!(!r.stdout.contains('\x1b'));
    let r = run_env(
        &root(),
        &["check", "--color", "auto", SKILLS],
        &[("NO_COLOR", "1")],
    );
    assert!(!r.stdout.contains('\x1b'));
}

/// `[tool.netbox-lsp]` in pyproject.toml: read from the nearest folder up; a netbox-lsp.toml
/// beside it wins (with a note); flags win over both.
#[test]
fn pyproject_settings_nearest_wins_and_flags_win() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path();
    let sub = proj.join("skills/inventory");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(
        root().join(SKILLS).join("netbox-inventory/SKILL.md"),
        sub.join("SKILL.md"),
    )
    .unwrap();
    std::fs::write(
        proj.join("pyproject.toml"),
        "[project]\nname = \"skills\"\n\n[tool.netbox-lsp]\nselect = [\"graphql\"]\nnetbox_version = \"4.6\"\n",
    )
    .unwrap();
    // From the project and from a folder below it.
    for cwd in [proj.to_path_buf(), sub.clone()] {
        let r = run_in(&cwd, &["check", "--format", "json", "."]);
        let codes = codes_of(&r);
        assert!(
            !codes.is_empty() && codes.iter().all(|c| c.starts_with("graphql-")),
            "{codes:?}\n{}",
            r.stderr
        );
    }
    // A flag's select replaces the file's; the file's release stays.
    let r = run_in(
        &sub,
        &[
            "check",
            "--format",
            "json",
            "--select",
            "unknown-filter",
            ".",
        ],
    );
    assert_eq!(codes_of(&r), ["unknown-filter"]);
    assert!(r.stdout.contains("(NetBox 4.6.8)"), "{}", r.stdout);
    // A netbox-lsp.toml in the same folder wins, and the pyproject table is named as not read.
    std::fs::write(
        proj.join("netbox-lsp.toml"),
        "[severity]\ngraphql-pagination = \"off\"\n",
    )
    .unwrap();
    let r = run_in(&sub, &["check", "--format", "json", "."]);
    let codes = codes_of(&r);
    assert!(
        codes.contains(&"unknown-filter".into()) && !codes.contains(&"graphql-pagination".into()),
        "{codes:?}"
    );
    assert!(
        r.stderr.contains("`[tool.netbox-lsp]` is not read"),
        "{}",
        r.stderr
    );
    // A bad value in the table fails the run, naming the table.
    std::fs::remove_file(proj.join("netbox-lsp.toml")).unwrap();
    std::fs::write(
        proj.join("pyproject.toml"),
        "[tool.netbox-lsp]\nselect = [\"nope\"]\n",
    )
    .unwrap();
    let r = run_in(&sub, &["check", "."]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("pyproject.toml: [tool.netbox-lsp] `select`"),
        "{}",
        r.stderr
    );
}

#[test]
fn rule_and_explain_print_a_code_page() {
    let r = run(&["rule", "unknown-filter"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with("### `unknown-filter`"), "{}", r.stdout);
    assert!(r.stdout.contains("**Evidence:**"));
    assert_eq!(run(&["--explain", "unknown-filter"]).stdout, r.stdout);
    assert_eq!(
        run(&["check", "--explain", "unknown-filter"]).stdout,
        r.stdout
    );
    let r = run(&["rule", "unknown-filtre"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("did you mean `unknown-filter`"),
        "{}",
        r.stderr
    );
    let all = run(&["rule", "--all"]);
    assert!(all
        .stdout
        .lines()
        .any(|l| l.starts_with("unused-suppression")));
}

#[test]
fn statistics_count_per_code() {
    let codes = codes_of(&run(&["check", "--format", "json", SKILLS]));
    let r = run(&["check", "--statistics", "--format", "json", SKILLS]);
    assert_eq!(r.code, 1);
    let rows: Vec<Value> = serde_json::from_str(&r.stdout).unwrap();
    let total: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(total as usize, codes.len());
    for row in &rows {
        let n = codes.iter().filter(|c| **c == row["code"]).count();
        assert_eq!(row["count"].as_u64().unwrap() as usize, n, "{row}");
    }
    let text = run(&["check", "--statistics", SKILLS]).stdout;
    assert!(
        text.lines()
            .any(|l| l.contains("unknown-filter") && l.contains("(1 fixable)")),
        "{text}"
    );
    assert_eq!(
        run(&["check", "--statistics", "--format", "sarif", SKILLS]).code,
        2
    );
}

#[test]
fn upgrade_to_fixes_to_the_form_both_releases_read() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "# Services\n\n`GET /api/ipam/services/?protocol__ic=tc`\n\n`GET /api/dcim/devices/?exclude=config_context`\n";
    std::fs::write(tmp.path().join("SKILL.md"), text).unwrap();
    let up = ["check", "--netbox-version", "4.6", "--upgrade-to", "4.7"];
    let diff = run_in(tmp.path(), &[&up[..], &["--diff", "SKILL.md"]].concat());
    assert!(
        diff.stdout
            .contains("+`GET /api/ipam/services/?protocol=tcp`"),
        "{}",
        diff.stdout
    );
    assert!(diff
        .stdout
        .contains("+`GET /api/dcim/devices/?omit=config_context`"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("SKILL.md")).unwrap(),
        text,
        "--diff changes nothing"
    );
    let fix = run_in(tmp.path(), &[&up[..], &["--fix", "SKILL.md"]].concat());
    assert_eq!(fix.code, 0, "{}{}", fix.stdout, fix.stderr);
    assert!(
        fix.stdout.contains("fixed[upgrade-breaks]"),
        "{}",
        fix.stdout
    );
    let fixed = std::fs::read_to_string(tmp.path().join("SKILL.md")).unwrap();
    assert!(
        fixed.contains("?protocol=tcp") && fixed.contains("?omit=config_context"),
        "{fixed}"
    );
    // Nothing left on either release.
    for v in ["4.6", "4.7"] {
        let r = run_in(tmp.path(), &["check", "--netbox-version", v, "SKILL.md"]);
        assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{v}: {}", r.stderr);
    }
}

#[test]
fn a_missing_path_fails_without_a_summary() {
    let r = run(&["check", SKILLS, "no/such/dir"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.contains("no/such/dir: no such file or folder"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains(" errors, "),
        "no summary line after it: {}",
        r.stderr
    );
    let r = run(&["check", "unknown-filter"]);
    assert!(
        r.stderr.contains("`netbox-lsp rule unknown-filter`"),
        "{}",
        r.stderr
    );
}

#[test]
fn suppressions_with_reasons_ranges_and_unused_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let md = "# Renames\n\n\
<!-- netbox-lsp: ignore-start[unknown-filter] -- the 3.x names, on purpose -->\n\
| 3.x | 4.x |\n|---|---|\n\
| `/api/dcim/devices/?device_role_id=4` | `/api/dcim/devices/?role_id=4` |\n\
| `/api/dcim/interfaces/?device_role_id=4` | `/api/dcim/interfaces/?role_id=4` |\n\
<!-- netbox-lsp: ignore-end -->\n\n\
Use `/api/dcim/devices/?device_role_id=5` <!-- netbox-lsp: ignore[unknown-filter] -- kept for the quiz -->\n\n\
And `/api/dcim/devices/?role_id=6` <!-- netbox-lsp: ignore[unknown-filter] -- kept from the 3.x notes -->\n\n\
After the range: `/api/dcim/devices/?device_role_id=7`\n";
    std::fs::write(tmp.path().join("a.md"), md).unwrap();
    let r = run_in(tmp.path(), &["check", "--format", "json", "a.md"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let found: Vec<(u64, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["range"]["start"]["line"].as_u64().unwrap() + 1,
                f["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(12, "unused-suppression"), (14, "unknown-filter")],
        "{}",
        r.stdout
    );
    let unused = &v[0];
    assert_eq!(unused["severity"], "warning");
    assert!(unused["message"]
        .as_str()
        .unwrap()
        .contains("-- kept from the 3.x notes"));
    assert_eq!(
        unused["fixes"][0]["preferred"], false,
        "never applied by --fix"
    );
    // --fix leaves the comment; --ignore turns the code off.
    let r = run_in(
        tmp.path(),
        &[
            "check",
            "--ignore",
            "unused-suppression",
            "--format",
            "json",
            "a.md",
        ],
    );
    assert_eq!(codes_of(&r), ["unknown-filter"]);
}

/// The baseline: recorded findings are not reported, also after lines are added above them;
/// a new or changed call is; a fixed one makes the baseline stale, which `--baseline-strict`
/// fails on until `--update-baseline` shrinks it.
#[test]
fn baseline_keys_survive_edits_and_ratchet() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("skills")).unwrap();
    let skill = dir.join("skills/SKILL.md");
    let calls = "```python\nnetbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\nnetbox_get_objects(\"ipam.ipaddress\", filters={\"within\": \"10.0.0.0/8\"})\n```\n";
    std::fs::write(&skill, format!("# Inventory\n\n{calls}")).unwrap();
    let b = ["check", "--baseline", "netbox-lsp-baseline.json"];
    let with = |more: &[&str]| run_in(dir, &[&b[..], more, &["skills"]].concat());
    // No baseline yet: an error that says how to make one.
    let r = with(&[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--update-baseline"), "{}", r.stderr);
    let r = with(&["--update-baseline"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(
        r.stderr.contains("2 findings in 1 file recorded"),
        "{}",
        r.stderr
    );
    let recorded: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("netbox-lsp-baseline.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(recorded["findings"][0]["path"], "skills/SKILL.md");
    assert!(
        recorded["findings"][0].get("line").is_none(),
        "no line in the key"
    );
    let r = with(&[]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(
        r.stderr.contains("2 known findings not shown"),
        "{}",
        r.stderr
    );
    // Lines added above, and the check run from elsewhere: still nothing new.
    std::fs::write(
        &skill,
        format!("# Inventory\n\nSome words first.\n\nMore words.\n\n{calls}"),
    )
    .unwrap();
    let r = run_in(
        &dir.join("skills"),
        &["check", "--baseline", "../netbox-lsp-baseline.json", "."],
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    // A new wrong call is reported; a recorded call that changed is new too.
    std::fs::write(
        &skill,
        format!("# Inventory\n\n{calls}\n`/api/dcim/devices/?device_role_id=9`\n"),
    )
    .unwrap();
    let r = with(&["--format", "json"]);
    assert_eq!(r.code, 1);
    assert_eq!(codes_of(&r), ["unknown-filter"], "only the new call");
    // Fixing a recorded finding makes the baseline stale: a note, or with --baseline-strict a
    // failure, until --update-baseline shrinks it.
    let fixed = calls.replace("device_role_id", "role_id");
    std::fs::write(&skill, format!("# Inventory\n\n{fixed}")).unwrap();
    let r = with(&[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("1 recorded findings are gone"),
        "{}",
        r.stderr
    );
    let r = with(&["--baseline-strict"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("--baseline-strict"));
    assert_eq!(with(&["--update-baseline"]).code, 0);
    let r = with(&["--baseline-strict"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    let shrunk: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("netbox-lsp-baseline.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(shrunk["findings"].as_array().unwrap().len(), 1);
}
