//! End-to-end tests of `netbox-lsp check --fix` and `--diff` (issue 12 §4), through the real
//! binary on copies of every fixture (tests/fixtures/) and of examples/:
//! - `--diff` changes nothing, and its output applied with `git apply` gives exactly the files
//!   `--fix` writes;
//! - after `--fix` no certain fix is left, and the exit code is that of a plain check of the
//!   fixed files (it exits by what is left);
//! - every fixed file still parses in its host language when it parsed before (Python, YAML via
//!   tree-sitter, JSON via serde_json, GraphQL via apollo-parser; Markdown and text keep their
//!   lines and backticks, and their Python/JSON/YAML fences keep parsing);
//! - what `--fix` prints matches what it changed.
//!
//! The safety of each fix (same meaning, a key the endpoint has) is tests/fix_property.rs's.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

/// One run of the binary: its exit code and output.
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs the binary with `args` in `cwd`.
pub(crate) fn run_in(cwd: &Path, args: &[&str]) -> Run {
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

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (relative path → bytes).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if p.is_file() {
                out.insert(
                    p.strip_prefix(base).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn write_tree(dir: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
    for (rel, bytes) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

/// Whether `text` parses in the language of `path` (true for hosts without a grammar).
fn parses(path: &Path, text: &str) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "py" | "pyi" => ts_ok(text, tree_sitter_python::LANGUAGE.into()),
        "yaml" | "yml" => ts_ok(text, tree_sitter_yaml::LANGUAGE.into()),
        "json" => serde_json::from_str::<Value>(text).is_ok(),
        "graphql" | "gql" => apollo_parser::Parser::new(text)
            .parse()
            .errors()
            .next()
            .is_none(),
        _ => true,
    }
}

fn ts_ok(text: &str, lang: tree_sitter::Language) -> bool {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&lang).expect("grammar");
    p.parse(text, None)
        .is_some_and(|t| !t.root_node().has_error())
}

/// The ```python / ```json / ```yaml fences of a Markdown text, in order: (language, body).
fn fences(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        let t = line.trim_start_matches(['>', ' ']);
        match &mut open {
            None if t.starts_with("```") => open = Some((t[3..].trim().to_string(), String::new())),
            Some(_) if t.starts_with("```") => out.push(open.take().unwrap()),
            Some((_, body)) => {
                body.push_str(t);
                body.push('\n');
            }
            None => {}
        }
    }
    out
}

/// Markdown and text keep their shape; their code fences keep parsing.
fn keeps_markdown(path: &Path, before: &str, after: &str) -> Result<(), String> {
    let count = |s: &str, c: char| s.chars().filter(|x| *x == c).count();
    if count(before, '\n') != count(after, '\n') || count(before, '`') != count(after, '`') {
        return Err(format!("{}: lines or backticks changed", path.display()));
    }
    for ((lang, b), (_, a)) in fences(before).iter().zip(fences(after)) {
        let ext = match lang.as_str() {
            "python" | "py" => "py",
            "json" => "json",
            "yaml" | "yml" => "yaml",
            "graphql" | "gql" => "graphql",
            _ => continue,
        };
        let fake = Path::new("f").with_extension(ext);
        if parses(&fake, b) && !parses(&fake, &a) {
            return Err(format!(
                "{}: a {lang} fence no longer parses:\n{a}",
                path.display()
            ));
        }
    }
    Ok(())
}

/// `--diff` on one copy, `--fix` on another, `git apply` of the diff on the first: the same
/// files; then the checks on the fixed tree. Returns the number of fixes applied.
fn fix_and_diff_agree(src: &Path) -> usize {
    let original = tree(src);
    assert!(!original.is_empty(), "{}", src.display());
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    write_tree(a.path(), &original);
    write_tree(b.path(), &original);

    let plain = run_in(a.path(), &["check", "."]);
    let diff = run_in(a.path(), &["check", ".", "--diff"]);
    assert_eq!(
        diff.code, plain.code,
        "--diff exits as a plain check\n{}",
        diff.stderr
    );
    assert_eq!(tree(a.path()), original, "--diff changed files");
    assert!(
        diff.stdout.is_empty() || diff.stdout.starts_with("--- a/"),
        "stdout is only the diff:\n{}",
        diff.stdout
    );

    let fix = run_in(b.path(), &["check", ".", "--fix"]);
    assert_ne!(fix.code, 2, "{}", fix.stderr);
    let fixed = tree(b.path());
    let changed: Vec<&PathBuf> = original
        .keys()
        .filter(|k| original[*k] != fixed[*k])
        .collect();
    assert_eq!(original.len(), fixed.len(), "files added or removed");

    // The diff, applied, gives what --fix wrote.
    if !diff.stdout.is_empty() {
        let mut git = Command::new("git")
            .args(["apply", "--whitespace=nowarn", "-"])
            .current_dir(a.path())
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("git (for `git apply`)");
        use std::io::Write;
        git.stdin
            .take()
            .unwrap()
            .write_all(diff.stdout.as_bytes())
            .unwrap();
        assert!(
            git.wait().unwrap().success(),
            "git apply failed:\n{}",
            diff.stdout
        );
    }
    let applied = tree(a.path());
    for k in original.keys() {
        assert!(
            applied[k] == fixed[k],
            "{}: --diff applied differs from --fix:\n--- diff applied\n{}\n--- fix\n{}",
            k.display(),
            String::from_utf8_lossy(&applied[k]),
            String::from_utf8_lossy(&fixed[k])
        );
    }

    // Printed: one `fixed[` line per fix, in the changed files only; the counts agree.
    let lines: Vec<&str> = fix
        .stdout
        .lines()
        .filter(|l| l.contains(": fixed["))
        .collect();
    for l in &lines {
        let path = l.split(':').next().unwrap();
        assert!(
            changed.iter().any(|c| c.to_string_lossy() == path),
            "{l} names an unchanged file"
        );
    }
    for c in &changed {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("{}:", c.to_string_lossy()))),
            "{} changed without a fixed line",
            c.display()
        );
    }
    let count = |stderr: &str, word: &str| -> usize {
        stderr
            .lines()
            .find_map(|l| l.strip_prefix(word))
            .and_then(|r| r.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no `{word}` line in:\n{stderr}"))
    };
    assert_eq!(count(&fix.stderr, "fixed "), lines.len(), "{}", fix.stderr);
    assert_eq!(
        count(&diff.stderr, "would fix "),
        lines.len(),
        "{}",
        diff.stderr
    );

    // No certain fix left; the exit code is the fixed files' own.
    let after = run_in(b.path(), &["check", ".", "--format", "json"]);
    let left: Vec<Value> = serde_json::from_str(&after.stdout).unwrap();
    let certain: Vec<&Value> = left
        .iter()
        .filter(|f| {
            let fixes = f["fixes"].as_array().unwrap();
            fixes.len() == 1 && fixes[0]["preferred"] == true
        })
        .collect();
    assert!(
        certain.is_empty(),
        "certain fixes left after --fix: {certain:#?}"
    );
    assert_eq!(fix.code, after.code, "--fix exits by what is left");

    // Each fixed file still parses in its host language.
    for k in &changed {
        let before = String::from_utf8(original[*k].clone()).unwrap();
        let now = String::from_utf8(fixed[*k].clone()).unwrap();
        match k.extension().and_then(|e| e.to_str()).unwrap_or("") {
            "md" | "markdown" | "txt" | "prompt" => {
                if let Err(e) = keeps_markdown(k, &before, &now) {
                    panic!("{e}");
                }
            }
            _ => assert!(
                !parses(k, &before) || parses(k, &now),
                "{} no longer parses:\n{now}",
                k.display()
            ),
        }
    }
    eprintln!(
        "{}: {} fixes in {} of {} files; left: {} findings, exit {}",
        src.display(),
        lines.len(),
        changed.len(),
        original.len(),
        left.len(),
        after.code
    );
    lines.len()
}

#[test]
fn fix_and_diff_on_examples() {
    let n = fix_and_diff_agree(&root().join("examples"));
    // The examples hold wrong filters on purpose, most with a certain fix.
    assert!(n >= 10, "only {n} fixes on examples/");
}

#[test]
fn fix_and_diff_on_every_fixture() {
    let n = fix_and_diff_agree(&root().join("tests/fixtures"));
    assert!(n >= 30, "only {n} fixes on tests/fixtures/");
}

#[test]
fn fix_prints_changes_and_exits_by_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("skill.py");
    let text = "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3, \"status\": \"active\"})\n";
    std::fs::write(&p, text).unwrap();
    let r = run_in(dir.path(), &["check", "skill.py", "--diff"]);
    assert_eq!(
        r.code, 1,
        "--diff changes nothing: the error is still there"
    );
    assert!(
        r.stdout
            .contains("-netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3")
            && r.stdout
                .contains("+netbox_get_objects(\"dcim.device\", filters={\"role_id\": 3"),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
    // The change is named where the plain check names the finding.
    let plain = run_in(dir.path(), &["check", "skill.py"]);
    let at = plain.stdout.split(": error[").next().unwrap().to_string();
    assert_eq!(at, "skill.py:1:45");
    let r = run_in(dir.path(), &["check", "skill.py", "--fix"]);
    assert_eq!(
        r.stdout,
        format!("{at}: fixed[unknown-filter] Replace `device_role_id` with `role_id`\n")
    );
    assert_eq!(r.code, 0, "nothing left: exit 0\n{}", r.stderr);
    assert!(
        r.stderr.contains("fixed 1 problem in 1 file"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        text.replace("device_role_id", "role_id")
    );
    // A second run has nothing to do and writes nothing.
    let r = run_in(dir.path(), &["check", "skill.py", "--fix"]);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.contains("fixed 0 problems in 0 files"),
        "{}",
        r.stderr
    );
}

#[test]
fn fix_with_json_keeps_stdout_json_and_keeps_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.md");
    // One certain fix and one finding without a fix (a GraphQL syntax error) that stays.
    std::fs::write(
        &p,
        "`/api/dcim/devices/?device_role_id=3`\n\n```graphql\n{ device_list( { id } }\n```\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o604)).unwrap();
    }
    let r = run_in(dir.path(), &["check", "a.md", "--fix", "--format", "json"]);
    let left: Vec<Value> = serde_json::from_str(&r.stdout).expect("stdout is JSON");
    assert!(!left.is_empty());
    assert!(
        left.iter().all(|f| f["code"] != "unknown-filter"),
        "{left:?}"
    );
    assert!(
        r.stderr.contains("a.md:1:21: fixed[unknown-filter]"),
        "{}",
        r.stderr
    );
    assert_eq!(r.code, 1, "the GraphQL error is left");
    assert!(std::fs::read_to_string(&p).unwrap().contains("?role_id=3"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o604);
    }
}

#[test]
fn fix_leaves_invalid_utf8_alone_and_refuses_fix_with_diff() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.txt");
    let bytes = b"\xff /api/dcim/devices/?device_role_id=3\n".to_vec();
    std::fs::write(&p, &bytes).unwrap();
    let r = run_in(dir.path(), &["check", "a.txt", "--fix"]);
    assert!(
        r.stderr.contains("a.txt: not valid UTF-8; not fixed"),
        "{}",
        r.stderr
    );
    assert_eq!(r.code, 1);
    assert_eq!(std::fs::read(&p).unwrap(), bytes);
    let r = run_in(dir.path(), &["check", "a.txt", "--fix", "--diff"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(std::fs::read(&p).unwrap(), bytes);
}

/// The binary the race test drives: this build, or another one named by
/// `NETBOX_LSP_RACE_BIN` (to measure an older build with the same writer).
fn race_bin() -> PathBuf {
    std::env::var_os("NETBOX_LSP_RACE_BIN").map_or_else(|| PathBuf::from(BIN), PathBuf::from)
}

/// Issue 23 §3: `check --fix` never overwrites an edit that lands in the file during the run.
/// 150 rounds; in each, a writer edits the file while `check --fix` runs on it, from a moment
/// spread over the run (so that some rounds write before the read, some during the analysis,
/// some around the rename and some after it), a burst of edits a few microseconds apart: odd
/// rounds append a marker line, even rounds rewrite the whole file in place with the marker
/// added. Every marker the writer wrote must be in the file at the end (or, for an edit that
/// landed in the file as it was being replaced while the fixed file was written again, in the
/// file `--fix` names as keeping it). Asserts zero lost writes, never a time; the rounds where
/// the fix was written and where it was refused are printed.
///
/// On Linux the write is guarded by a read lease and a name swap (src/cli/lease.rs), which
/// leaves no window, so this runs in the default suite there. Elsewhere a rename leaves one (an
/// in-place write to the old file after the final look is lost, see docs/output-formats.md),
/// and a round on a loaded machine can land in it: run it by hand there,
/// `cargo test --release --test suite cli_fix::fix_never_overwrites -- --ignored`.
#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "no lease here: cargo test --release --test suite cli_fix:: -- --ignored"
)]
fn fix_never_overwrites_a_concurrent_edit() {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    const ROUNDS: usize = 150;
    const BURST: usize = 24;
    let bin = race_bin();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("skill.md");
    let body: String = (0..40)
        .map(|i| format!("Step {i}: call `/api/dcim/devices/?device_role_id={i}` then read it.\n"))
        .collect();
    // How long one run takes here, to spread the writer's start over it (not asserted).
    std::fs::write(&p, &body).unwrap();
    let t = std::time::Instant::now();
    let calibrate = Command::new(&bin)
        .args(["check", "--fix"])
        .arg(&p)
        .output()
        .unwrap();
    let run_us = t.elapsed().as_micros().max(1000) as u64;
    assert!(
        std::fs::read_to_string(&p).unwrap().contains("?role_id=0"),
        "the file is fixed when nobody else writes it\n{}",
        String::from_utf8_lossy(&calibrate.stderr)
    );
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut lost, mut fixed, mut refused) = (Vec::new(), 0, 0);
    for round in 0..ROUNDS {
        std::fs::write(&p, &body).unwrap();
        // From a bit before the start to a bit after the end of a typical run.
        let start = std::time::Duration::from_micros(next() % (run_us + run_us / 4));
        let gap = std::time::Duration::from_micros(next() % 20);
        let done = Arc::new(AtomicBool::new(false));
        let writer = {
            let (p, done) = (p.clone(), done.clone());
            std::thread::spawn(move || {
                std::thread::sleep(start);
                let mut written = Vec::new();
                for k in 0..BURST {
                    if k > 0 && done.load(Ordering::Relaxed) {
                        break;
                    }
                    let marker = format!("<!-- edit {round}.{k} -->\n");
                    if round % 2 == 1 {
                        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
                        f.write_all(marker.as_bytes()).unwrap();
                    } else {
                        let mut text = std::fs::read(&p).unwrap();
                        text.extend_from_slice(marker.as_bytes());
                        std::fs::write(&p, text).unwrap();
                    }
                    written.push(marker);
                    std::thread::sleep(gap);
                }
                written
            })
        };
        let out = Command::new(&bin)
            .args(["check", "--fix"])
            .arg(&p)
            .output()
            .unwrap();
        done.store(true, Ordering::Relaxed);
        let written = writer.join().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "round {round}: {stderr}"
        );
        let mut now = std::fs::read_to_string(&p).unwrap();
        // An edit kept beside the file (see the test's docstring) counts as kept.
        for e in std::fs::read_dir(dir.path()).unwrap() {
            let e = e.unwrap().path();
            if e != p {
                now.push_str(&std::fs::read_to_string(&e).unwrap());
                std::fs::remove_file(&e).unwrap();
            }
        }
        let missing = written.iter().filter(|m| !now.contains(m.as_str())).count();
        if missing > 0 {
            lost.push((round, missing));
        }
        if stderr.contains("changed on disk during the run")
            || stderr.contains("is open for writing in another program")
        {
            refused += 1;
        } else if stderr.contains("fixed 40 problems") {
            fixed += 1;
        }
    }
    eprintln!(
        "fix race: {ROUNDS} rounds, {fixed} fixed, {refused} refused as changed, {} with lost writes {lost:?}",
        lost.len()
    );
    assert!(lost.is_empty(), "lost writes (round, markers): {lost:?}");
    // Both outcomes occur, or the test shows nothing about the window between them.
    assert!(fixed > 0 && refused > 0, "{fixed} fixed, {refused} refused");
}

/// Issue 23 §4: an interrupted `--fix` leaves no temporary file behind. `check --fix` runs over
/// 3,000 fixable files; as soon as the first is fixed it gets SIGINT (SIGTERM in the second
/// run). It ends with 128 + the signal, no `.netbox-lsp-fix-*` file is left, and every file is
/// either as it was or wholly fixed.
#[cfg(unix)]
#[test]
fn an_interrupted_fix_leaves_no_temporary_file() {
    const FILES: usize = 3000;
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let dir = tempfile::tempdir().unwrap();
        let text = |i: usize| format!("Call `/api/dcim/devices/?device_role_id={i}` now.\n");
        for i in 0..FILES {
            std::fs::write(dir.path().join(format!("s{i:04}.md")), text(i)).unwrap();
        }
        let mut child = Command::new(BIN)
            .args(["check", "--fix", "."])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Wait (bounded) until the first file is fixed, then interrupt.
        let first = dir.path().join("s0000.md");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while std::fs::read_to_string(&first).unwrap() == text(0) {
            assert!(std::time::Instant::now() < deadline, "no file fixed");
            assert!(
                child.try_wait().unwrap().is_none(),
                "ended before any file was fixed"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let sent = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "SIG{signal}: {stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        let mut fixed = 0;
        for e in std::fs::read_dir(dir.path()).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with(".netbox-lsp-fix-"), "left behind: {name}");
            let i: usize = name[1..5].parse().unwrap();
            let now = std::fs::read_to_string(e.path()).unwrap();
            if now != text(i) {
                assert_eq!(now, text(i).replace("device_role_id", "role_id"), "{name}");
                fixed += 1;
            }
        }
        assert!(
            fixed > 0 && fixed < FILES,
            "SIG{signal}: {fixed} of {FILES} fixed"
        );
    }
}

/// Issue 34: a `check --fix` killed outright (SIGKILL runs no handler) leaves its
/// `.netbox-lsp-fix-*` temporary files; the next `--fix` that fixes a file in that folder
/// removes them, and nothing else: not a name of another shape, a symbolic link or a folder of
/// our shape, a file with a second link, a kept edit (`.netbox-lsp-kept-*`), nor a temporary
/// file in a folder where nothing is fixed. A real `--fix` over 3,000 files is killed while it
/// writes (up to 20 tries until one leaves a temporary file).
#[cfg(target_os = "linux")]
#[test]
fn a_killed_fix_leaves_temporary_files_the_next_run_sweeps() {
    const FILES: usize = 3000;
    let text = |i: usize| format!("Call `/api/dcim/devices/?device_role_id={i}` now.\n");
    let fixed = |i: usize| text(i).replace("device_role_id", "role_id");
    let is_temp = |n: &str| n.starts_with(".netbox-lsp-fix-");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let mut left = Vec::new();
    for attempt in 0..20 {
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        for i in 0..FILES {
            std::fs::write(root.join(format!("s{i:04}.md")), text(i)).unwrap();
        }
        let mut child = Command::new(BIN)
            .args(["check", "--fix", "."])
            .current_dir(&root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Kill as soon as a temporary file is seen (bounded: the run may end first).
        let mut seen = false;
        while !seen && child.try_wait().unwrap().is_none() {
            seen = std::fs::read_dir(&root)
                .unwrap()
                .any(|e| is_temp(&e.unwrap().file_name().to_string_lossy()));
        }
        child.kill().unwrap();
        let status = child.wait().unwrap();
        left = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| is_temp(n))
            .collect();
        eprintln!(
            "attempt {attempt}: {status}, {} temporary files left",
            left.len()
        );
        if !left.is_empty() {
            break;
        }
    }
    assert!(
        !left.is_empty(),
        "no kill in 20 tries left a temporary file"
    );
    // Decoys beside them, and a leftover in a folder where nothing is fixed.
    let outside = dir.path().join("outside.md");
    std::fs::write(&outside, "outside\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join(".netbox-lsp-fix-0123456789ab")).unwrap();
    std::fs::create_dir(root.join(".netbox-lsp-fix-abcdefabcdef")).unwrap();
    std::fs::write(root.join(".netbox-lsp-fix-notours"), "keep\n").unwrap();
    std::fs::write(root.join(".netbox-lsp-fix-ABCDEF012345"), "keep\n").unwrap();
    std::fs::write(root.join(".netbox-lsp-fix-0123456789abc"), "keep\n").unwrap();
    std::fs::write(root.join(".netbox-lsp-kept-0123456789ab"), "an edit\n").unwrap();
    std::fs::write(dir.path().join("linked.md"), "linked\n").unwrap();
    std::fs::hard_link(
        dir.path().join("linked.md"),
        root.join(".netbox-lsp-fix-111111111111"),
    )
    .unwrap();
    std::fs::create_dir(root.join("quiet")).unwrap();
    std::fs::write(root.join("quiet/ok.md"), "Nothing to fix.\n").unwrap();
    std::fs::write(root.join("quiet/.netbox-lsp-fix-222222222222"), "x").unwrap();
    let run = run_in(&root, &["check", "--fix", "."]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".netbox-lsp"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".netbox-lsp-fix-0123456789ab",
            ".netbox-lsp-fix-0123456789abc",
            ".netbox-lsp-fix-111111111111",
            ".netbox-lsp-fix-ABCDEF012345",
            ".netbox-lsp-fix-abcdefabcdef",
            ".netbox-lsp-fix-notours",
            ".netbox-lsp-kept-0123456789ab",
        ],
        "only the killed run's temporary files go ({} of them)",
        left.len()
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("linked.md")).unwrap(),
        "linked\n"
    );
    assert!(root.join("quiet/.netbox-lsp-fix-222222222222").exists());
    // Every file is fixed, whole.
    for i in 0..FILES {
        let now = std::fs::read_to_string(root.join(format!("s{i:04}.md"))).unwrap();
        assert_eq!(now, fixed(i), "s{i:04}.md");
    }
}

/// Issue 34: `check --fix` on a folder never writes outside it, with a local writer swapping
/// a walked folder for a symbolic link to another folder (and back) all through the run. 200
/// rounds; the file outside must keep its text in every one (main before: 19 of 200 rounds
/// wrote through the link). The rounds where the file inside was fixed, and where the swap
/// made the fix refused, are printed; `NETBOX_LSP_RACE_BIN` runs another build.
#[cfg(unix)]
#[test]
fn fix_never_writes_through_a_folder_swapped_for_a_link() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    const ROUNDS: usize = 200;
    let bin = race_bin();
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("root"), dir.path().join("outside"));
    let body: String = (0..40)
        .map(|i| format!("Step {i}: call `/api/dcim/devices/?device_role_id={i}` then read it.\n"))
        .collect();
    let (mut wrote_outside, mut fixed, mut refused) = (Vec::new(), 0, 0);
    for round in 0..ROUNDS {
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&outside);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("sub/skill.md"), &body).unwrap();
        std::fs::write(outside.join("skill.md"), &body).unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (root, outside, done) = (root.clone(), outside.clone(), done.clone());
            std::thread::spawn(move || {
                let (sub, away) = (root.join("sub"), root.join("away"));
                let mut swaps = 0;
                while !done.load(Ordering::Relaxed) {
                    std::fs::rename(&sub, &away).unwrap();
                    std::os::unix::fs::symlink(&outside, &sub).unwrap();
                    std::thread::sleep(std::time::Duration::from_micros(50 + (swaps % 7) * 30));
                    std::fs::remove_file(&sub).unwrap();
                    std::fs::rename(&away, &sub).unwrap();
                    std::thread::sleep(std::time::Duration::from_micros(40 + (swaps % 5) * 20));
                    swaps += 1;
                }
            })
        };
        let out = Command::new(&bin)
            .args(["check", "--fix"])
            .arg(&root)
            .output()
            .unwrap();
        done.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if std::fs::read_to_string(outside.join("skill.md")).unwrap() != body
            || std::fs::read_dir(&outside).unwrap().count() != 1
        {
            wrote_outside.push(round);
        }
        if std::fs::read_to_string(root.join("sub/skill.md")).unwrap() != body {
            fixed += 1;
        } else if stderr.contains("not fixed") {
            refused += 1;
        }
    }
    eprintln!(
        "swap race: {ROUNDS} rounds, {fixed} fixed inside, {refused} refused, {} wrote outside {wrote_outside:?}",
        wrote_outside.len()
    );
    assert!(
        wrote_outside.is_empty(),
        "rounds that wrote outside: {wrote_outside:?}"
    );
}

/// Issue 34: a fixed file keeps its extended attributes (a `user.*` attribute here; ACLs and
/// SELinux labels are attributes too) and its mode. Says so when the file system has none.
#[cfg(target_os = "linux")]
#[test]
fn fix_keeps_extended_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("skill.md");
    std::fs::write(&p, "Call `/api/dcim/devices/?device_role_id=1`.\n").unwrap();
    let f = std::fs::File::open(&p).unwrap();
    if let Err(e) =
        rustix::fs::fsetxattr(&f, "user.origin", b"kept", rustix::fs::XattrFlags::empty())
    {
        eprintln!("SKIPPED: fix_keeps_extended_attributes: no user.* attributes here ({e})");
        return;
    }
    drop(f);
    let r = run_in(dir.path(), &["check", "--fix", "skill.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::read_to_string(&p).unwrap().contains("?role_id=1"));
    let f = std::fs::File::open(&p).unwrap();
    let mut buf = [0u8; 16];
    let n = rustix::fs::fgetxattr(&f, "user.origin", &mut buf[..]).expect("the attribute is kept");
    assert_eq!(&buf[..n], b"kept");
}
