//! `netbox-lsp hook` end to end (issue 32 §1): the real binary fed hook events recorded in the
//! shape Claude Code documents for `PreToolUse` (tests/fixtures/hook/, listed with what each
//! must give in `cases.tsv`), and every way the check can fail, each denied (fail closed) and
//! each let through with `--fail-open`.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hook")
}

#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// `hookSpecificOutput` of the JSON on stdout (`Null` when stdout is empty).
    fn output(&self) -> Value {
        if self.stdout.trim().is_empty() {
            return Value::Null;
        }
        let v: Value = serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout));
        v["hookSpecificOutput"].clone()
    }

    /// `deny` for exit 2 (whose standard output must be empty: Claude Code ignores it then,
    /// reading the reason from standard error), else the JSON decision (`-` for none).
    fn decision(&self) -> String {
        if self.code == 2 {
            assert_eq!(self.stdout, "", "exit 2 with standard output: {self:?}");
            return "deny".to_string();
        }
        self.output()["permissionDecision"]
            .as_str()
            .unwrap_or("-")
            .to_string()
    }
}

/// Runs `netbox-lsp hook <args>` in `cwd` with `stdin` and `env`; a run that does not end
/// within a minute fails the test (it would otherwise hang it).
fn hook_in(cwd: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.arg("hook")
        .args(args)
        .current_dir(cwd)
        .env_remove("NETBOX_LSP_HOOK_FAULT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn netbox-lsp hook");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "netbox-lsp hook {args:?} did not end"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = writer.join();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn hook(args: &[&str], stdin: &[u8]) -> Run {
    hook_in(&dir(), args, stdin, &[])
}

/// The codes of the errors and warnings a reason lists (`- error[unknown-filter] ...`).
fn codes(reason: &str) -> Vec<String> {
    let mut out: Vec<String> = reason
        .lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("- error[")
                .or_else(|| l.strip_prefix("- warning["))?;
            Some(rest[..rest.find(']')?].to_string())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every recorded event gives the exit code, decision and findings `cases.tsv` says; a
/// denial is exit 2 with the reason on stderr and nothing on stdout; a correction gives the
/// updated input of `<case>.fixed.json` and tells the model what changed; a quiet twin (and
/// every call that is no NetBox call) gets no word at all.
#[test]
fn recorded_events() {
    let manifest = std::fs::read_to_string(dir().join("cases.tsv")).unwrap();
    let mut listed = std::collections::BTreeSet::new();
    let mut rows = 0;
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [case, flags, code, decision, want_codes] = cols[..] else {
            panic!("bad row: {line}");
        };
        listed.insert(case.to_string());
        rows += 1;
        let flags: Vec<&str> = if flags == "-" {
            Vec::new()
        } else {
            flags.split(' ').collect()
        };
        let event = std::fs::read(dir().join(format!("{case}.json"))).unwrap();
        let r = hook(&flags, &event);
        let what = format!("{case} {flags:?}: {r:?}");
        assert_eq!(r.code.to_string(), code, "{what}");
        assert_eq!(r.decision(), decision, "{what}");
        let out = r.output();
        let reason = match decision {
            "-" => {
                assert!(r.stdout.is_empty() && r.stderr.is_empty(), "{what}");
                ""
            }
            "deny" => r.stderr.strip_suffix('\n').unwrap_or(&r.stderr),
            _ => {
                assert_eq!(out["hookEventName"], "PreToolUse", "{what}");
                assert_eq!(r.stderr, "", "{what}");
                out["permissionDecisionReason"].as_str().unwrap_or("")
            }
        };
        let want: Vec<String> = match want_codes {
            "-" => Vec::new(),
            c => c.split(',').map(str::to_string).collect(),
        };
        if matches!(decision, "deny" | "ask") && out.get("updatedInput").is_none() {
            assert_eq!(codes(reason), want, "{what}");
        }
        let fixed = dir().join(format!("{case}.fixed.json"));
        if let Some(updated) = out.get("updatedInput") {
            let want: Value = serde_json::from_str(&std::fs::read_to_string(&fixed).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", fixed.display()));
            assert_eq!(updated, &want, "{what}");
            let note = out["additionalContext"].as_str().unwrap_or("");
            assert!(note.starts_with("netbox-lsp corrected"), "{what}");
            // A corrected shell command is shown to the user; a corrected tool call runs.
            let shell = want.get("command").is_some();
            assert_eq!(decision, if shell { "ask" } else { "allow" }, "{what}");
            // The corrected call is clean: fed back, it passes without a word.
            // (A recorded event may start with a byte-order mark, which the hook skips.)
            let json = event.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&event);
            let mut again: Value = serde_json::from_slice(json).unwrap();
            if again.get("tool_input").is_some() {
                again["tool_input"] = want.clone();
            } else {
                again = want.clone();
            }
            let r2 = hook(&[], again.to_string().as_bytes());
            assert!(r2.code == 0 && r2.stdout.is_empty(), "{what}: again {r2:?}");
        } else if flags.contains(&"--fix") && decision != "-" {
            assert!(!fixed.exists(), "{what}: {} is not used", fixed.display());
        }
    }
    for e in std::fs::read_dir(dir()).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(case) = name
            .strip_suffix(".json")
            .filter(|c| !c.ends_with(".fixed"))
        {
            assert!(listed.contains(case), "{name} is not in cases.tsv");
        }
    }
    assert!(rows >= 90, "{rows} rows");
}

/// An event of NetBox's wrong call, for the failure modes.
fn netbox_event() -> Vec<u8> {
    std::fs::read(dir().join("get-objects-renamed.json")).unwrap()
}

fn shell_event(command: &str) -> Vec<u8> {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command}
    })
    .to_string()
    .into_bytes()
}

/// A failure: denied with exit 2, the reason on stderr (starting `netbox-lsp hook: `, naming
/// `what`), nothing on stdout; with `--fail-open`, exit 0, nothing on stdout, a note.
fn fails_closed(args: &[&str], stdin: &[u8], env: &[(&str, &str)], what: &str) {
    let r = hook_in(&dir(), args, stdin, env);
    assert_eq!(r.code, 2, "{what}: {r:?}");
    assert_eq!(r.decision(), "deny", "{what}: {r:?}");
    assert!(
        r.stderr.starts_with("netbox-lsp hook: ") && r.stderr.contains(what),
        "{what}: {r:?}"
    );
    assert!(r.stderr.contains("fails closed"), "{r:?}");
    let mut open: Vec<&str> = args.to_vec();
    open.push("--fail-open");
    let r = hook_in(&dir(), &open, stdin, env);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, ""),
        "{what} --fail-open: {r:?}"
    );
    assert!(
        r.stderr.contains(what) && r.stderr.contains("--fail-open"),
        "{what} --fail-open: {r:?}"
    );
}

#[test]
fn unreadable_events_are_denied() {
    fails_closed(&[], b"", &[], "the hook event is empty");
    fails_closed(&[], b"not json", &[], "is not JSON");
    fails_closed(&[], b"[1, 2]", &[], "is not a JSON object");
    fails_closed(&[], b"{\"tool_name\": \"B\xffsh\"}", &[], "is not UTF-8");
    fails_closed(
        &[],
        br#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}"#,
        &[],
        "is not a JSON object",
    );
    fails_closed(
        &[],
        br#"{"hook_event_name": "PreToolUse", "tool_name": "Bash"}"#,
        &[],
        "has no `tool_input`",
    );
    let huge = vec![b' '; 16 * 1024 * 1024 + 1];
    fails_closed(&[], &huge, &[], "larger than 16 MiB");
    // JSON nested deeper than the hook reads is said so, not "not JSON".
    let deep = |n: usize| {
        format!(
            r#"{{"tool_name": "x", "tool_input": {{"a": {}{}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    fails_closed(
        &[],
        deep(200).as_bytes(),
        &[],
        "nests brackets more than 127 deep",
    );
    // Its quiet twin: within the limit, an input with nothing for NetBox passes at once.
    let r = hook_in(&dir(), &[], deep(100).as_bytes(), &[]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
}

#[test]
fn an_internal_error_a_panic_and_a_dead_check_are_denied() {
    let ev = netbox_event();
    fails_closed(
        &[],
        &ev,
        &[("NETBOX_LSP_HOOK_FAULT", "error")],
        "internal error",
    );
    fails_closed(
        &[],
        &ev,
        &[("NETBOX_LSP_HOOK_FAULT", "panic")],
        "internal error (panic: fault injected",
    );
    // The check's process dies (SIGABRT; a stack overflow): the supervising process answers,
    // and nothing the dying process would print reaches the model.
    #[cfg(unix)]
    for fault in ["abort", "overflow"] {
        fails_closed(
            &[],
            &ev,
            &[("NETBOX_LSP_HOOK_FAULT", fault)],
            "the check ended without an answer (killed by signal",
        );
        let r = hook_in(&dir(), &[], &ev, &[("NETBOX_LSP_HOOK_FAULT", fault)]);
        assert_eq!(r.stderr.lines().count(), 1, "{fault}: {r:?}");
    }
}

#[test]
fn the_deadline_is_kept() {
    let ev = netbox_event();
    fails_closed(
        &["--deadline-ms", "300"],
        &ev,
        &[("NETBOX_LSP_HOOK_FAULT", "sleep")],
        "did not answer within 300 ms",
    );
}

/// A harness that never closes standard input: the hook still answers by its deadline.
#[test]
fn an_event_that_never_ends_meets_the_deadline() {
    for open in [false, true] {
        let mut cmd = Command::new(BIN);
        cmd.args(["hook", "--deadline-ms", "300"])
            .current_dir(dir())
            .env_remove("NETBOX_LSP_HOOK_FAULT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if open {
            cmd.arg("--fail-open");
        }
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"{\"tool_name\": \"Bash\", ").unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < Duration::from_secs(60), "no answer");
            std::thread::sleep(Duration::from_millis(5));
        }
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("did not answer within 300 ms"), "{stderr}");
        assert_eq!(
            out.status.code(),
            Some(if open { 0 } else { 2 }),
            "{stderr}"
        );
    }
}

#[test]
fn a_missing_or_broken_index_is_denied_for_netbox_calls_only() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.index.json.gz");
    let broken = tmp.path().join("broken.index.json.gz");
    std::fs::write(&broken, b"\x1f\x8b not gzip").unwrap();
    let ev = netbox_event();
    for index in [&missing, &broken] {
        let index = index.to_str().unwrap();
        fails_closed(
            &["--index", index],
            &ev,
            &[],
            "cannot load the NetBox knowledge",
        );
        // A command that sends nothing to NetBox needs no knowledge: it passes at once.
        let r = hook(&["--index", index], &shell_event("ls -la"));
        assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    }
    fails_closed(
        &["--netbox-version", "3.7"],
        &ev,
        &[],
        "cannot load the NetBox knowledge",
    );
}

#[test]
fn broken_settings_are_denied() {
    let tmp = tempfile::tempdir().unwrap();
    let toml = tmp.path().join("netbox-lsp.toml");
    std::fs::write(&toml, "[tools.nb_query\ntarget = 1\n").unwrap();
    let config = toml.to_str().unwrap();
    fails_closed(
        &["--config", config],
        &netbox_event(),
        &[],
        "netbox-lsp.toml",
    );
    // Found in the folder the harness runs the hook in, too.
    let r = hook_in(tmp.path(), &[], &netbox_event(), &[]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("netbox-lsp.toml"), "{r:?}");
}

/// A bad index named in `pyproject.toml`'s `[tool.netbox-lsp]` table is reported as coming
/// from `pyproject.toml` (the file that names it), not from a `netbox-lsp.toml` that does not
/// exist; the same index named in `netbox-lsp.toml` names that file.
#[test]
fn a_bad_index_names_the_settings_file_that_names_it() {
    for (file, table) in [
        ("pyproject.toml", "[tool.netbox-lsp]\n"),
        ("netbox-lsp.toml", ""),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("bad.index.json.gz"), "not an index").unwrap();
        std::fs::write(
            tmp.path().join(file),
            format!("{table}index = \"bad.index.json.gz\"\n"),
        )
        .unwrap();
        let r = hook_in(tmp.path(), &[], &netbox_event(), &[]);
        assert_eq!(
            (r.code, r.decision().as_str()),
            (2, "deny"),
            "{file}: {r:?}"
        );
        let named = format!("{file}: `index` names ");
        let at = r
            .stderr
            .find(&named)
            .unwrap_or_else(|| panic!("{file}: {r:?}"));
        assert!(
            r.stderr[at + named.len()..]
                .trim_start_matches("./")
                .starts_with("bad.index.json.gz"),
            "{file}: {r:?}"
        );
        let other = if file == "pyproject.toml" {
            "netbox-lsp.toml"
        } else {
            "pyproject.toml"
        };
        assert!(!r.stderr.contains(other), "{file}: {r:?}");
    }
}

/// The settings file's severities apply: a code turned off passes, a code lowered to a warning
/// asks instead of denying.
#[test]
fn settings_severities_apply() {
    let tmp = tempfile::tempdir().unwrap();
    let ev = netbox_event();
    std::fs::write(
        tmp.path().join("netbox-lsp.toml"),
        "[severity]\nunknown-filter = \"warning\"\n",
    )
    .unwrap();
    let r = hook_in(tmp.path(), &[], &ev, &[]);
    assert_eq!((r.code, r.decision().as_str()), (0, "ask"), "{r:?}");
    std::fs::write(
        tmp.path().join("netbox-lsp.toml"),
        "[severity]\nunknown-filter = \"off\"\n",
    )
    .unwrap();
    let r = hook_in(tmp.path(), &[], &ev, &[]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
}

/// The settings snippet of docs/agents.md is valid Claude Code settings: the hook on NetBox
/// MCP tools and on Bash, running `netbox-lsp hook`.
#[test]
fn the_documented_settings_snippet() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents.md"))
        .unwrap();
    let start = doc
        .find("```json\n{\n  \"hooks\"")
        .expect("docs/agents.md has the .claude/settings.json snippet");
    let body = &doc[start + "```json\n".len()..];
    let body = &body[..body.find("```").unwrap()];
    let v: Value = serde_json::from_str(body).expect("the snippet is JSON");
    let entries = v["hooks"]["PreToolUse"].as_array().unwrap();
    let matchers: Vec<&str> = entries
        .iter()
        .map(|e| e["matcher"].as_str().unwrap())
        .collect();
    assert_eq!(matchers, ["mcp__netbox.*", "Bash"]);
    for e in entries {
        let h = &e["hooks"][0];
        assert_eq!(h["type"], "command");
        assert!(h["command"]
            .as_str()
            .unwrap()
            .starts_with("netbox-lsp hook"));
    }
}
