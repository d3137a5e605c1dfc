//! Issue 9 through the real server (in process): settings files that are not regular files or
//! point outside the workspace (§2), the protocol to the letter (§6), and a typing simulation of
//! every fixture (§8).

use crate::lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

fn mkfifo(path: &std::path::Path) -> bool {
    std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// A workspace `netbox-lsp.toml` naming a FIFO (inside the workspace) or `/dev/zero` (outside
/// it) used to hang the server or eat all memory: both are refused with a message, and the
/// server keeps publishing diagnostics and answering completion.
#[tokio::test]
async fn workspace_settings_naming_special_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let fifo = ws.join("pipe");
    if !mkfifo(&fifo) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    std::fs::write(
        ws.join("netbox-lsp.toml"),
        "index = \"pipe\"\ngraphql_schema = \"/dev/zero\"\n",
    )
    .unwrap();
    let mut c = TestClient::in_process();
    c.initialize(
        json!({}),
        default_capabilities(),
        json!([{"uri": file_uri(&ws), "name": "ws"}]),
    )
    .await;
    let outside = c
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .unwrap_or_default()
                .contains("outside the workspace")
        })
        .await;
    assert!(
        outside["message"]
            .as_str()
            .unwrap()
            .contains("graphql_schema"),
        "{outside}"
    );
    let uri = file_uri(&ws.join("t.py"));
    let text = "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n";
    c.open(&uri, "python", 1, text).await;
    let pipe = c
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .unwrap_or_default()
                .contains("named pipe")
        })
        .await;
    assert!(pipe["message"].as_str().unwrap().contains("pipe"), "{pipe}");
    let diags = c.diagnostics(&uri, 1).await;
    assert!(
        diags.iter().any(|d| d["code"] == "unknown-filter"),
        "{diags:?}"
    );
    let labels = c.completion_labels(&uri, 0, 46).await;
    assert!(labels.iter().any(|l| l == "role_id"), "{labels:?}");
}

/// §1 through the server: the poisoned inputs of issue 9 (520 `if 1:` levels carried over
/// backslash continuations with an open string; 260 bare-CR YAML mappings; both in Markdown
/// fences) used to kill the server with SIGABRT. They open, get their diagnostics, and the
/// server answers completion in another document afterwards.
#[tokio::test]
async fn poisoned_documents_do_not_take_the_server_down() {
    let mut py = String::new();
    for i in 0..520 {
        let (a, b) = (i.min(150), i - i.min(150));
        py.push_str(&format!("{}\\\n{}if 1:\n", " ".repeat(a), " ".repeat(b)));
    }
    py.push_str(&format!("{}x = 'abc\n", " ".repeat(520)));
    let yaml: String = (0..260)
        .map(|i| format!("{}k{i}:\r", " ".repeat(i)))
        .collect::<String>()
        + &" ".repeat(260)
        + "v: 'open";
    let md = format!("```python\n{py}```\n\n```yaml\n{yaml}\n```\n");
    opened_then_still_serving(&[
        ("deep.py", "python", &py),
        ("deep.yaml", "yaml", &yaml),
        ("deep.md", "markdown", &md),
    ])
    .await;
}

/// Python expressions nested 100,000 deep (`1+1+...`, `[[[...]]]`, `a.b.b...`), and inside
/// f-string fields (`f"{[[[...]]]}"`, `f"{f(f(...))}"`, nested f-strings: 15,000 levels used to
/// abort the server with SIGABRT), in a `.py` document, in a Markdown fence and in a notebook
/// cell sent as its own Python document, are not read on the server's threads but reported as
/// not checked; the server answers in another document afterwards.
#[tokio::test]
async fn deeply_nested_python_expressions_do_not_take_the_server_down() {
    let n = 100_000;
    let py = format!(
        "x = 1{}\ny = {}{}\nz = a{}\n",
        "+1".repeat(n),
        "[".repeat(n),
        "]".repeat(n),
        ".b".repeat(n)
    );
    let md = format!("```python\n{py}```\n");
    let f = format!(
        "x = f\"{{{}{}}}\"\ny = f\"{{{}{}}}\"\nz = {}x{}\n",
        "[".repeat(n),
        "]".repeat(n),
        "f(".repeat(n),
        ")".repeat(n),
        "f'{".repeat(n),
        "}'".repeat(n)
    );
    let fmd = format!("# Skill\n\n```python\n{f}```\n");
    let diags = opened_then_still_serving(&[
        ("deep.py", "python", &py),
        ("deep.md", "markdown", &md),
        ("fdeep.py", "python", &f),
        ("fdeep.md", "markdown", &fmd),
        ("cell.py", "python", &f),
    ])
    .await;
    for (d, line) in diags.iter().zip([0, 1, 0, 3, 0]) {
        assert!(
            d.iter()
                .any(|d| d["code"] == "not-checked" && d["range"]["start"]["line"] == line),
            "{d:?}"
        );
    }
}

/// Opens `docs` (name, language id, text), then checks that the server still reports and
/// completes in another document; returns the diagnostics of each of `docs`.
async fn opened_then_still_serving(docs: &[(&str, &str, &String)]) -> Vec<Vec<Value>> {
    let mut c = TestClient::in_process();
    c.initialize(json!({}), default_capabilities(), Value::Null)
        .await;
    let mut all = Vec::new();
    for (name, lang, text) in docs {
        let uri = format!("file:///p/{name}");
        c.open(&uri, lang, 1, text).await;
        all.push(c.diagnostics(&uri, 1).await);
    }
    let uri = "file:///p/t.py";
    c.open(
        uri,
        "python",
        1,
        "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n",
    )
    .await;
    let diags = c.diagnostics(uri, 1).await;
    assert!(
        diags.iter().any(|d| d["code"] == "unknown-filter"),
        "{diags:?}"
    );
    let labels = c.completion_labels(uri, 0, 46).await;
    assert!(labels.iter().any(|l| l == "role_id"), "{labels:?}");
    all
}

/// §6: a request for a `$/` method is answered with MethodNotFound (it was never answered).
#[tokio::test]
async fn dollar_requests_get_method_not_found() {
    let mut c = TestClient::start().await;
    let r = c.request("$/netbox/unknown", json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // `$/` notifications are still fine, and the server answers afterwards.
    c.notify("$/setTrace", json!({"value": "off"})).await;
    let r = c.request("$/cancelRequest", json!({"id": 99})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
    c.call("shutdown", Value::Null).await;
}

/// §6: `exit` without `shutdown` ends with exit code 1, after `shutdown` with 0.
#[tokio::test]
async fn exit_code_follows_shutdown() {
    for shutdown in [false, true] {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(server_end);
        let server = tokio::spawn(netbox_lsp::server::serve(sr, sw, false));
        let (cr, cw) = tokio::io::split(client_end);
        let mut c = TestClient::connect(cr, cw);
        c.initialize(default_options(), default_capabilities(), Value::Null)
            .await;
        if shutdown {
            c.call("shutdown", Value::Null).await;
        }
        c.notify("exit", Value::Null).await;
        let code = tokio::time::timeout(TIMEOUT, server)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(code, if shutdown { 0 } else { 1 }, "shutdown: {shutdown}");
    }
}

/// §6: a document whose text holds a lone UTF-16 surrogate escape used to be dropped whole; it
/// opens with the character replaced by U+FFFD.
#[tokio::test]
async fn lone_surrogate_escape_opens_with_a_replacement() {
    let mut c = TestClient::start().await;
    let uri = "file:///ws/s.md";
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{uri}","languageId":"markdown","version":1,"text":"a\ud800b \\ud800 `/api/dcim/devices/?device_role_id=3` \ud83d\ude00"}}}}}}"#
    );
    c.send_raw(&frame(body.as_bytes())).await;
    let (version, text) = c.server_text(uri).await;
    assert_eq!(version, 1);
    assert_eq!(
        text,
        "a\u{fffd}b \\ud800 `/api/dcim/devices/?device_role_id=3` 😀"
    );
    let diags = c.diagnostics(uri, 1).await;
    assert!(
        diags.iter().any(|d| d["code"] == "unknown-filter"),
        "{diags:?}"
    );
}

/// §6: a configuration problem pops up once, however often the configuration changes.
#[tokio::test]
async fn configuration_problems_pop_up_once() {
    let mut c = TestClient::start().await;
    // The client answers `workspace/configuration` with the bad value on every pull.
    *c.config.lock().unwrap() = json!({"severity": {"no-such-code": "error"}});
    for _ in 0..5 {
        c.notify("workspace/didChangeConfiguration", json!({"settings": {}}))
            .await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // A request after the changes, so that every popup they cause has been sent.
    c.request("netbox-lsp/debugDocument", json!({"uri": "file:///none"}))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    c.request("netbox-lsp/debugDocument", json!({"uri": "file:///none"}))
        .await;
    let mut popups = 0;
    while let Ok(Some(m)) = tokio::time::timeout(std::time::Duration::from_millis(200), async {
        Some(c.wait_for(|m| m["method"] == "window/showMessage").await)
    })
    .await
    {
        assert!(
            m["params"]["message"]
                .as_str()
                .unwrap()
                .contains("no-such-code"),
            "{m}"
        );
        popups += 1;
    }
    assert_eq!(popups, 1);
}

/// §6: `check --format json` and the server give the same positions for the same text: bare
/// CR line ends (Markdown and Python), CRLF, a byte-order mark, a NUL byte (binary: nothing).
#[tokio::test]
async fn check_and_server_agree_on_positions() {
    let dir = tempfile::tempdir().unwrap();
    let call = "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3, \"stat\": 1})";
    let cases: Vec<(&str, &str, String)> = vec![
        (
            "cr.md",
            "markdown",
            format!(
                "# T\r\rtext\r`/api/dcim/devices/?device_role_id=3`\r\r```python\r{call}\r```\r"
            ),
        ),
        ("cr.py", "python", format!("import x\r\r{call}\r")),
        ("crlf.py", "python", format!("import x\r\n\r\n{call}\r\n")),
        (
            "mixed.md",
            "markdown",
            "a\r\nb\rc\n`/api/dcim/devices/?device_role_id=3` é\r".to_string(),
        ),
        (
            "bom.md",
            "markdown",
            "\u{feff}`/api/dcim/devices/?device_role_id=3`\n".to_string(),
        ),
        ("bom.py", "python", format!("\u{feff}{call}\n")),
        (
            "nul.md",
            "markdown",
            "a\0b\n`/api/dcim/devices/?device_role_id=3`\n".to_string(),
        ),
    ];
    let mut c = TestClient::in_process();
    c.initialize(json!({}), default_capabilities(), Value::Null)
        .await;
    for (i, (name, lang, text)) in cases.iter().enumerate() {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
            .args(["check", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let cli: Value = serde_json::from_slice(&out.stdout).unwrap_or(json!([]));
        let mut want: Vec<(String, Value)> = cli
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["code"].as_str().unwrap().to_string(), f["range"].clone()))
            .collect();
        let uri = file_uri(&path);
        c.open(&uri, lang, i as i64 + 1, text).await;
        let diags = c.diagnostics(&uri, i as i64 + 1).await;
        let mut got: Vec<(String, Value)> = diags
            .iter()
            .map(|d| (d["code"].as_str().unwrap().to_string(), d["range"].clone()))
            .collect();
        want.sort_by_key(|w| w.1.to_string());
        got.sort_by_key(|w| w.1.to_string());
        assert_eq!(got, want, "{name}");
        if *name == "nul.md" {
            assert!(got.is_empty(), "binary: {got:?}");
        } else {
            assert!(!got.is_empty(), "{name}: no finding");
        }
        // Every range lies on its line: the character is within the line's length.
        let lines: Vec<&str> = text
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .split('\n')
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .leak()
            .iter()
            .map(String::as_str)
            .collect();
        for (_, r) in &got {
            let line = r["start"]["line"].as_u64().unwrap() as usize;
            let ch = r["start"]["character"].as_u64().unwrap() as usize;
            assert!(ch < lines[line].encode_utf16().count(), "{name}: {r}");
        }
    }
}

/// The LSP position of the end of `text` (lines end at `\r\n`, `\n` or `\r`; UTF-16 columns).
fn end_position(text: &str) -> (u32, u32) {
    let mut line = 0;
    let mut col = 0;
    let mut prev_cr = false;
    for ch in text.chars() {
        match ch {
            '\n' if prev_cr => {}
            '\n' | '\r' => {
                line += 1;
                col = 0;
            }
            c => col += c.len_utf16() as u32,
        }
        prev_cr = ch == '\r';
    }
    (line, col)
}

/// §8: typing simulation over the real server. The example and fixture hosts are typed
/// character by character (the first 1,200 characters of each), with completion and hover asked
/// along the way: every request is answered without an error, the server's copy of each
/// document equals what was typed, and its final diagnostics equal a fresh `check`.
#[tokio::test]
async fn typing_every_fixture_character_by_character() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        ("examples/skills/netbox-inventory/SKILL.md", "markdown"),
        ("examples/python/audit_devices.py", "python"),
        ("examples/tool-calls/calls.yaml", "yaml"),
        ("examples/tool-calls/calls.json", "json"),
        ("examples/graphql/devices.graphql", "graphql"),
        ("examples/prompts/triage-prompt.md", "markdown"),
        ("tests/fixtures/extract/skill.md", "markdown"),
        ("tests/fixtures/extract/tools.py", "python"),
        ("tests/fixtures/extract/calls.yaml", "yaml"),
        ("tests/fixtures/extract/calls.json", "json"),
        ("tests/fixtures/extract/indented.md", "markdown"),
        ("tests/fixtures/extract/commonmark.md", "markdown"),
        ("tests/fixtures/lsp/SKILL.md", "markdown"),
    ];
    let mut c = TestClient::in_process();
    c.initialize(json!({}), default_capabilities(), Value::Null)
        .await;
    let (mut keystrokes, mut requests) = (0, 0);
    for (n, (file, lang)) in files.iter().enumerate() {
        let full = std::fs::read_to_string(root.join(file)).unwrap();
        let text: String = full.chars().take(1200).collect();
        let uri = format!("file:///typing/{n}/{}", file.rsplit('/').next().unwrap());
        c.open(&uri, lang, 0, "").await;
        let mut typed = String::new();
        let mut version = 0;
        for ch in text.chars() {
            let (line, col) = end_position(&typed);
            version += 1;
            c.change(
                &uri,
                version,
                json!([{"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}}, "text": ch.to_string()}]),
            )
            .await;
            typed.push(ch);
            keystrokes += 1;
            if keystrokes % 5 == 0 {
                let (line, col) = end_position(&typed);
                let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}});
                for method in ["textDocument/completion", "textDocument/hover"] {
                    let r = c.request(method, at.clone()).await;
                    assert!(
                        r.get("error").is_none(),
                        "{method} in {file} at {line}:{col}: {r}"
                    );
                    requests += 1;
                }
            }
            if keystrokes % 100 == 0 {
                c.drain(); // published diagnostics of old versions
            }
        }
        let (v, server_text) = c.server_text(&uri).await;
        assert_eq!(
            (v, server_text.as_str()),
            (version, typed.as_str()),
            "{file}"
        );
        let diags = c.diagnostics(&uri, version).await;
        let path = std::env::temp_dir().join(format!(
            "netbox-lsp-typing-{n}-{}",
            file.rsplit('/').next().unwrap()
        ));
        std::fs::write(&path, &typed).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
            .args(["check", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        let cli: Value = serde_json::from_slice(&out.stdout).unwrap_or(json!([]));
        let mut want: Vec<String> = cli
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{} {}", f["code"], f["range"]))
            .collect();
        let mut got: Vec<String> = diags
            .iter()
            .map(|d| format!("{} {}", d["code"], d["range"]))
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{file}");
        c.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }
    eprintln!("{keystrokes} keystrokes, {requests} completion/hover requests");
    assert!(keystrokes > 5000);
}

/// §5: a whole-document code action on thousands of findings (8,000 took 16.9 s and blocked
/// every other request) is answered with the quick fixes of at most 2,000 findings plus fix-all,
/// positions converted in one pass (also on one long non-ASCII line), and a hover sent right
/// after it is answered too.
#[tokio::test]
async fn whole_document_code_action_on_thousands_of_findings() {
    let mut c = TestClient::in_process();
    c.initialize(json!({}), default_capabilities(), Value::Null)
        .await;
    let docs = [
        (
            "many.md",
            (0..8000)
                .map(|i| format!("call `/api/dcim/devices/?device_role_id={i}` é\n"))
                .collect::<String>(),
        ),
        (
            "line.md",
            (0..3000)
                .map(|i| format!("/api/dcim/devices/?device_role_id={i} 😀 "))
                .collect::<String>(),
        ),
    ];
    for (name, text) in docs {
        let uri = format!("file:///p/{name}");
        c.open(&uri, "markdown", 1, &text).await;
        let diags = c.diagnostics(&uri, 1).await;
        let whole = json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99999, "character": 0}}, "context": {"diagnostics": []}});
        let id_actions = c.request("textDocument/codeAction", whole).await;
        let hover = c
            .request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 30}}),
            )
            .await;
        assert!(hover.get("error").is_none(), "{hover}");
        let actions = id_actions["result"].as_array().unwrap();
        let quick: Vec<&Value> = actions.iter().filter(|a| a["kind"] == "quickfix").collect();
        let fixes = quick
            .iter()
            .filter(|a| !a["title"].as_str().unwrap().starts_with("Ignore"))
            .count();
        assert_eq!(fixes, diags.len().min(2000), "{name}");
        // The first quick fix edits exactly the range of its diagnostic.
        let first = quick[0];
        let edit_range = &first["edit"]["changes"][&uri][0]["range"];
        assert_eq!(edit_range, &first["diagnostics"][0]["range"], "{name}");
        assert_eq!(
            first["diagnostics"][0]["range"], diags[0]["range"],
            "{name}"
        );
        // And the last one on the long line lands where its diagnostic is.
        let last = quick
            .iter()
            .rev()
            .find(|a| !a["title"].as_str().unwrap().starts_with("Ignore"))
            .unwrap();
        let d = diags
            .iter()
            .find(|d| d["range"] == last["diagnostics"][0]["range"]);
        assert!(d.is_some(), "{name}: {}", last["diagnostics"][0]["range"]);
        let all = actions
            .iter()
            .find(|a| a["kind"] == "source.fixAll.netbox")
            .unwrap();
        assert_eq!(
            all["edit"]["changes"][&uri].as_array().unwrap().len(),
            diags.len(),
            "{name}"
        );
    }
}

/// Issue 34: a cloned `netbox-lsp.toml` with 15,000 bad severity levels and 2,000 invalid
/// exclude globs (and one unknown key) gave 15,000 popups. Now one message per setting and
/// kind, with the count and the first values; the server keeps working.
#[tokio::test]
async fn a_settings_file_full_of_bad_values_gives_one_message_per_setting() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let mut toml = String::from("colour = \"blue\"\nexclude = [");
    toml.push_str(
        &(0..2000)
            .map(|i| format!("\"[{i}\""))
            .collect::<Vec<_>>()
            .join(", "),
    );
    toml.push_str("]\n[severity]\n");
    for i in 0..15000 {
        toml.push_str(&format!("unknown-filter-{i} = \"loud\"\n"));
    }
    std::fs::write(ws.join("netbox-lsp.toml"), toml).unwrap();
    let mut c = TestClient::in_process();
    c.initialize(
        json!({}),
        default_capabilities(),
        json!([{"uri": file_uri(&ws), "name": "ws"}]),
    )
    .await;
    let uri = file_uri(&ws.join("t.py"));
    c.open(
        &uri,
        "python",
        1,
        "netbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n",
    )
    .await;
    let diags = c.diagnostics(&uri, 1).await;
    assert!(!diags.is_empty());
    // Whatever came by now, and a little later.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    c.open(&file_uri(&ws.join("u.py")), "python", 1, "x = 1\n")
        .await;
    let _ = c.diagnostics(&file_uri(&ws.join("u.py")), 1).await;
    let popups: Vec<String> = c
        .take_all("window/showMessage")
        .iter()
        .map(|m| m["params"]["message"].to_string())
        .collect();
    assert!(popups.len() <= 4, "{} popups: {popups:#?}", popups.len());
    let all = popups.join("\n");
    assert!(
        all.contains("`severity`: 15000 values were ignored"),
        "{all}"
    );
    assert!(all.contains("`exclude`: 2000 values were ignored"), "{all}");
    assert!(all.contains("and 14997 more"), "{all}");
    assert!(all.contains("unknown key `colour`"), "{all}");
}
