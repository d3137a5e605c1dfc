//! Issue 9 §1: no text may abort the process. tree-sitter's Python and YAML scanners keep one
//! entry per indentation level in a state that must fit 1,024 bytes; deep enough nesting used to
//! trip an `assert` in the C library (SIGABRT, exit 134), bypassing the indentation guard through
//! Python backslash continuations, YAML bare-CR line ends, and the same inside Markdown fences.
//! These inputs and their neighbours (CR/LF/CRLF mixes, tabs, form feeds, unterminated strings)
//! are generated here and run through extraction and analysis: a failure is an aborted test
//! binary.

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::{extract, HostKind};
use netbox_lsp::graphql::embedded_schema;
use netbox_lsp::index::embedded::embedded_index;

fn knowledge() -> Knowledge {
    Knowledge {
        index: Some(embedded_index("4.6.8")),
        graphql: embedded_schema("4.6.8"),
        ..Default::default()
    }
}

/// `levels` nested `if 1:` blocks; each level one `unit` deeper, the indentation spread over
/// backslash-continued lines of at most `max_line` units, lines ended by `eol(i)`; the innermost
/// statement is an unterminated string when `open_string`.
fn python_nest(
    levels: usize,
    max_line: usize,
    unit: &str,
    eol: &dyn Fn(usize) -> &'static str,
    open_string: bool,
) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut indent = |out: &mut String, width: usize| {
        let mut rest = width;
        while rest > max_line {
            out.push_str(&unit.repeat(max_line));
            out.push('\\');
            out.push_str(eol(n));
            n += 1;
            rest -= max_line;
        }
        out.push_str(&unit.repeat(rest));
    };
    for i in 0..levels {
        indent(&mut out, i);
        out.push_str("if 1:");
        out.push_str(eol(i));
    }
    indent(&mut out, levels);
    out.push_str(if open_string { "x = 'abc" } else { "x = 1" });
    out.push('\n');
    out
}

/// `levels` nested YAML mappings (`k<i>:` one `unit` deeper each), lines ended by `eol(i)`.
fn yaml_nest(levels: usize, unit: &str, eol: &dyn Fn(usize) -> &'static str) -> String {
    let mut out = String::new();
    for i in 0..levels {
        out.push_str(&unit.repeat(i));
        out.push_str(&format!("k{i}:"));
        out.push_str(eol(i));
    }
    out.push_str(&unit.repeat(levels));
    out.push_str("v: 'open");
    out
}

/// A line end for line `i`.
type Eol = fn(usize) -> &'static str;

const EOLS: [(&str, Eol); 6] = [
    ("lf", |_| "\n"),
    ("cr", |_| "\r"),
    ("crlf", |_| "\r\n"),
    ("cr-lf mix", |i| ["\r", "\n"][i % 2]),
    ("cr-crlf-lf mix", |i| ["\r", "\r\n", "\n"][i % 3]),
    ("form feed + lf", |_| "\x0c\n"),
];

fn hosts(python: &[String], yaml: &[String]) -> Vec<(HostKind, String)> {
    let mut out = Vec::new();
    for p in python {
        out.push((HostKind::Python, p.clone()));
        out.push((HostKind::Markdown, format!("# x\n\n```python\n{p}```\n")));
        out.push((HostKind::Markdown, format!("```python\n{p}")));
    }
    for y in yaml {
        out.push((HostKind::Yaml, y.clone()));
        out.push((HostKind::Markdown, format!("# x\n\n```yaml\n{y}\n```\n")));
    }
    out
}

#[test]
fn deep_python_and_yaml_never_abort() {
    let mut python = Vec::new();
    for levels in [300, 511, 520, 600, 1100] {
        for max_line in [150, 40, 1] {
            for (_, eol) in EOLS {
                for unit in [" ", "\t"] {
                    python.push(python_nest(levels, max_line, unit, &eol, true));
                }
            }
        }
        python.push(python_nest(levels, 150, " ", &|_| "\n", false));
    }
    let mut yaml = Vec::new();
    for levels in [200, 253, 254, 260, 300, 600] {
        for (_, eol) in EOLS {
            for unit in [" ", "\t", " \t"] {
                yaml.push(yaml_nest(levels, unit, &eol));
            }
        }
        // Sequences on one line, after bare CRs.
        yaml.push(format!("a:\r{}x\r", "- ".repeat(levels)));
        yaml.push(format!("a:\r{}x\r", "? ".repeat(levels)));
    }
    let k = knowledge();
    let all = hosts(&python, &yaml);
    for (kind, text) in &all {
        let _ = extract(text, *kind);
        let _ = analyze(text, *kind, &k);
    }
    eprintln!("{} deep inputs analysed without an abort", all.len());
}

/// The shallow versions of the same shapes are still read: a wrong filter below 100 levels of
/// continued indentation or of bare-CR YAML is found.
#[test]
fn moderate_nesting_with_continuations_and_bare_cr_is_still_checked() {
    let k = knowledge();
    let call = "netbox_get_objects('dcim.device', filters={'device_role_id': 3})";
    let mut py = python_nest(60, 20, " ", &|_| "\n", false);
    py.push_str(&" ".repeat(60));
    py.push_str(call);
    py.push('\n');
    let found = analyze(&py, HostKind::Python, &k);
    assert!(
        found.iter().any(|f| f.code == "unknown-filter"),
        "{found:?}"
    );
    let yaml = "tool: netbox_get_objects\rarguments:\r  object_type: dcim.device\r  filters:\r    device_role_id: 3\r";
    let found = analyze(yaml, HostKind::Yaml, &k);
    assert!(
        found.iter().any(|f| f.code == "unknown-filter"),
        "{found:?}"
    );
}

/// With one poisoned file in a folder, `check --format json .` used to print nothing (the
/// process aborted): every other file's findings must still be reported, and each poisoned
/// unit (two files, two fences) as not checked.
#[test]
fn a_folder_with_poisoned_files_still_reports_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let py = python_nest(520, 150, " ", &|_| "\n", true);
    let yaml = yaml_nest(260, " ", &|_| "\r");
    std::fs::write(dir.path().join("deep.py"), &py).unwrap();
    std::fs::write(dir.path().join("deep.yaml"), &yaml).unwrap();
    std::fs::write(
        dir.path().join("SKILL.md"),
        format!("```python\n{py}```\n\n```yaml\n{yaml}\n```\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("wrong.md"),
        "```python\nnetbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n```\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
        .args(["check", "--format", "json", "."])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let codes: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "not-checked",
            "not-checked",
            "not-checked",
            "not-checked",
            "unknown-filter"
        ],
        "{found}"
    );
}

/// Runs `netbox-lsp <args>` in `cwd`, killed after 30 s (a hang is a failure, not a stuck run).
fn run_bounded(cwd: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    run_bounded_env(cwd, args, &[])
}

/// [`run_bounded`] with `env` set.
fn run_bounded_env(
    cwd: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Option<i32>, String, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(cwd)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("netbox-lsp {args:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Issue 9 §2: a FIFO or a device named as `--index`, `--graphql-schema`, `--config` or in
/// `netbox-lsp.toml` used to hang `check` (or read until memory ran out): each is refused with
/// a message that names the file and says why.
#[test]
fn special_files_as_settings_are_refused_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    std::fs::write(
        dir.path().join("a.md"),
        "`/api/dcim/devices/?status=active`\n",
    )
    .unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["check", "--index", "pipe", "a.md"], "named pipe"),
        (
            vec!["check", "--graphql-schema", "pipe", "a.md"],
            "named pipe",
        ),
        (vec!["check", "--config", "pipe", "a.md"], "named pipe"),
        (
            vec!["check", "--index", "/dev/zero", "a.md"],
            "character device",
        ),
        (
            vec!["check", "--graphql-schema", "/dev/zero", "a.md"],
            "character device",
        ),
        (vec!["check", "pipe"], "not a regular file"),
    ];
    for (args, why) in cases {
        let (code, _, stderr) = run_bounded(dir.path(), &args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
    // netbox-lsp.toml itself as a FIFO (a link to one) or a directory: refused, not skipped
    // (skipping it silently would change the results, and used to).
    for (make, why) in [
        (
            &(|p: &std::path::Path| std::os::unix::fs::symlink("pipe", p).unwrap())
                as &dyn Fn(&std::path::Path),
            "named pipe",
        ),
        (
            &|p: &std::path::Path| std::fs::create_dir(p).unwrap(),
            "directory",
        ),
        (
            &|p: &std::path::Path| std::os::unix::fs::symlink("missing.toml", p).unwrap(),
            "netbox-lsp.toml",
        ),
    ] {
        let toml = dir.path().join("netbox-lsp.toml");
        make(&toml);
        let (code, _, stderr) = run_bounded(dir.path(), &["check", "a.md"]);
        assert_eq!(code, Some(2), "{why}: {stderr}");
        assert!(stderr.contains(why), "{why}: {stderr}");
        let _ = std::fs::remove_dir(&toml);
        let _ = std::fs::remove_file(&toml);
    }
    for (toml, why) in [
        ("index = \"pipe\"\n", "regular file"),
        ("graphql_schema = \"/dev/zero\"\n", "outside the folder"),
    ] {
        std::fs::write(dir.path().join("netbox-lsp.toml"), toml).unwrap();
        let (code, _, stderr) = run_bounded(dir.path(), &["check", "a.md"]);
        assert_eq!(code, Some(2), "{toml}: {stderr}");
        assert!(stderr.contains(why), "{toml}: {stderr}");
    }
}

/// A FIFO, `/dev/zero` or a file over its kind's cap (sparse: no disk used) named as the input
/// of `index info`, `index build` or `--ca-cert` used to block, or to fill memory (up to 7 GB
/// before a timeout): each is refused at once, naming the file and why. Quiet twins: the real
/// files (a shipped index and schema, an OpenAPI fixture, a CA certificate) are still read.
#[test]
fn special_and_huge_files_as_command_inputs_are_refused() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .is_ok_and(|s| s.success());
    // Over every cap below (the index's, 256 MiB, is the largest).
    std::fs::File::create(dir.path().join("huge"))
        .unwrap()
        .set_len(300 * 1024 * 1024)
        .unwrap();
    std::fs::write(dir.path().join("a.md"), "`/api/dcim/devices/?rol=x`\n").unwrap();
    let mut inputs = vec![("huge", "larger than the")];
    if made {
        inputs.push(("pipe", "not a regular file (a named pipe)"));
    } else {
        eprintln!("SKIPPED: mkfifo is not available");
    }
    if std::path::Path::new("/dev/zero").exists() {
        inputs.push(("/dev/zero", "(a character device)"));
    }
    let token = [("NETBOX_TOKEN", "x")];
    let commands: [(&[&str], &[&str], &str); 4] = [
        (&["index", "info", "--index"], &[], "an index file"),
        (
            &["index", "build", "--graphql"],
            &["-o", "o.gz"],
            "a GraphQL schema file",
        ),
        (
            &["index", "build", "--openapi"],
            &["-o", "o.gz"],
            "an OpenAPI document",
        ),
        (
            &[
                "check",
                "--live",
                "--url",
                "https://127.0.0.1:9",
                "--ca-cert",
            ],
            &["a.md"],
            "a CA certificate file",
        ),
    ];
    for (before, after, kind) in commands {
        for (input, why) in &inputs {
            let args: Vec<&str> = before.iter().chain([input]).chain(after).copied().collect();
            let (code, _, stderr) = run_bounded_env(dir.path(), &args, &token);
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.contains(input) && stderr.contains(why),
                "{args:?}: {stderr}"
            );
            assert!(stderr.contains(kind), "{args:?}: {stderr}");
        }
    }
    // The quiet twins.
    let file = |p: &str| root.join(p).to_str().unwrap().to_string();
    let (index, schema) = (
        file("index/netbox-4.7.3.index.json.gz"),
        file("index/netbox-4.7.3.schema.graphql.gz"),
    );
    let (openapi, ca) = (
        file("tests/fixtures/openapi/mini.json"),
        file("tests/fixtures/tls/ca.pem"),
    );
    for (args, said) in [
        (
            vec!["index", "info", "--index", &index],
            "NetBox version:            4.7.3",
        ),
        (
            vec!["index", "build", "--graphql", &schema, "-o", "s.gz"],
            "wrote s.gz",
        ),
        (
            vec!["index", "build", "--openapi", &openapi, "-o", "i.gz"],
            "wrote i.gz",
        ),
    ] {
        let (code, stdout, stderr) = run_bounded(dir.path(), &args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stdout.contains(said), "{args:?}: {stdout}");
    }
    // Nothing listens on port 9: the certificate is read, the connection fails after.
    let args = [
        "check",
        "--live",
        "--url",
        "https://127.0.0.1:9",
        "--ca-cert",
        &ca,
        "a.md",
    ];
    let (_, _, stderr) = run_bounded_env(dir.path(), &args, &token);
    assert!(!stderr.contains("CA certificate"), "{stderr}");
}

/// `check` refuses a file over its 256 MiB input cap (sparse: no disk used) with an error
/// naming the file and the cap (exit 2: text not checked does not pass), named or found in a
/// folder, and checks the others; it used to read
/// the whole file (3 GB of memory) before skipping it as binary. A file of NULs under the cap
/// is still skipped as binary, from its first bytes. Quiet twin: the small file is checked.
#[test]
fn check_refuses_files_over_the_input_cap_and_checks_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let sparse = |name: &str, len: u64| {
        std::fs::File::create(dir.path().join(name))
            .unwrap()
            .set_len(len)
            .unwrap();
    };
    sparse("big.md", 256 * 1024 * 1024 + 1);
    sparse("notes.txt", 2 * 1024 * 1024 * 1024);
    sparse("zeros.md", 200 * 1024 * 1024);
    std::fs::write(dir.path().join("a.md"), "`/api/dcim/devices/?rol=x`\n").unwrap();
    let over = |name: &str| {
        format!("{name}: larger than 256 MiB, the most netbox-lsp reads of one file; not checked")
    };
    let cases: [(&[&str], Vec<String>); 3] = [
        (&["check", "big.md", "a.md"], vec![over("big.md")]),
        (&["check", "notes.txt", "a.md"], vec![over("notes.txt")]),
        (
            &["check", "."],
            vec![
                over("big.md"),
                over("notes.txt"),
                "zeros.md: binary file skipped".to_string(),
            ],
        ),
    ];
    for (args, notes) in cases {
        let start = std::time::Instant::now();
        let (code, _, stderr) = run_bounded(dir.path(), args);
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{args:?}: {:?}",
            start.elapsed()
        );
        // The file too large to read fails the run (exit 2); a.md is still checked.
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("in 1 file "), "{args:?}: {stderr}");
        for note in notes {
            assert!(stderr.contains(&note), "{args:?}: {note} in {stderr}");
        }
    }
    // Quiet twin: the small file alone, no note.
    let (code, _, stderr) = run_bounded(dir.path(), &["check", "a.md"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("note:"), "{stderr}");
}

/// Issue 34: a file that cannot be read whole is checked as far as it can be, or reported
/// `not-checked` with the reason and a non-zero exit; never a silent zero. From real example
/// files of each host (JSON tool calls, Python, a skill file, a notebook): a UTF-8 byte-order
/// mark, merge-conflict markers around the middle, the file cut at two thirds, and a Latin-1
/// byte inside (mixed encodings). Each variant either has calls found (the summary's count) or
/// a `not-checked` error (exit 1).
#[test]
fn damaged_files_are_checked_as_far_as_they_can_be_or_said_unchecked() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for example in [
        "examples/tool-calls/calls.json",
        "examples/python/audit_devices.py",
        "examples/notebooks/leaf-switches.ipynb",
        "tests/fixtures/notebook/leaf-switches.ipynb",
        "examples/ansible/playbook.yml",
        "examples/skills/netbox-inventory/SKILL.md",
    ] {
        let bytes = std::fs::read(root.join(example)).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let name = std::path::Path::new(example)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mid = lines.len() / 2;
        let conflict = [
            &lines[..mid],
            &["<<<<<<< HEAD"],
            &lines[mid..mid + 2],
            &["======="],
            &lines[mid..mid + 2],
            &[">>>>>>> theirs"],
            &lines[mid + 2..],
        ]
        .concat()
        .join("\n");
        let mut at = text.len() * 2 / 3;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let cut = text[..at].to_string();
        let mut latin1 = bytes.clone();
        latin1.splice(bytes.len() / 3..bytes.len() / 3, [b'\xe9']);
        let variants: [(&str, Vec<u8>); 4] = [
            ("bom", [&b"\xef\xbb\xbf"[..], &bytes].concat()),
            ("conflict", conflict.into_bytes()),
            ("cut", cut.into_bytes()),
            ("latin1", latin1),
        ];
        for (how, content) in variants {
            let p = dir.path().join(format!("{how}-{name}"));
            std::fs::write(&p, content).unwrap();
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
                .args(["check"])
                .arg(&p)
                .output()
                .unwrap();
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            let calls: usize = stderr
                .split(" NetBox REST call")
                .next()
                .and_then(|s| s.rsplit('(').next())
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0);
            let unchecked = stdout.contains("error[not-checked]");
            assert!(
                calls > 0 || unchecked,
                "{how} {example}: a silent zero\n{stdout}\n{stderr}"
            );
            if unchecked {
                assert_eq!(out.status.code(), Some(1), "{how} {example}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 24);
}

/// A Markdown file is read the same with every line end CommonMark knows (LF, CR, CRLF and
/// their mixes): a fence after bare CRs is a fence (pulldown-cmark 0.13 read a bare CR as no
/// line end, so a CR-only file's fences were silently not checked: 0 of its 3 fenced calls).
/// Each fence and the inline URL hold an unknown filter; the quiet twin, the same file with
/// the right filters, gives nothing under every line end.
#[test]
fn markdown_fences_are_read_under_every_line_end() {
    let k = knowledge();
    let doc = |eol: &str, key: &str| -> String {
        [
            "# Devices",
            "",
            &format!("Call `/api/dcim/devices/?{key}=x` first."),
            "",
            "```python",
            "import pynetbox",
            "nb = pynetbox.api('https://nb')",
            &format!("nb.dcim.devices.filter({key}='x')"),
            "```",
            "",
            "```yaml",
            "- uri:",
            &format!("    url: https://nb/api/dcim/devices/?{key}=x"),
            "```",
            "",
            "```json",
            &format!("{{\"url\": \"https://nb/api/dcim/devices/?{key}=x\"}}"),
            "```",
            "",
        ]
        .join(eol)
    };
    let unknown = |text: &str| -> Vec<(usize, String)> {
        analyze(text, HostKind::Markdown, &k)
            .iter()
            .filter(|f| f.code == "unknown-filter")
            .map(|f| (f.range.start, text[f.range.clone()].to_string()))
            .collect()
    };
    let lf = unknown(&doc("\n", "nam"));
    assert_eq!(lf.len(), 4, "{lf:?}");
    for (name, _) in EOLS {
        let eol = match name {
            "lf" => "\n",
            "cr" => "\r",
            "crlf" => "\r\n",
            _ => continue,
        };
        let found = unknown(&doc(eol, "nam"));
        assert_eq!(found.len(), 4, "{name}: {found:?}");
        assert!(found.iter().all(|(_, t)| t == "nam"), "{name}: {found:?}");
        assert!(unknown(&doc(eol, "name")).is_empty(), "{name}: quiet twin");
    }
    // Mixed line ends: each line its own.
    let mixed: String = doc("\n", "nam")
        .split('\n')
        .enumerate()
        .map(|(i, l)| format!("{l}{}", ["\r", "\r\n", "\n"][i % 3]))
        .collect();
    assert_eq!(unknown(&mixed).len(), 4, "{:?}", unknown(&mixed));
}
