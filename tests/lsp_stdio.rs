//! The real binary over stdio: `netbox-lsp --stdio` (and with no arguments) initialises,
//! publishes diagnostics for a SKILL.md with the shipped index, answers a completion, writes
//! nothing but LSP frames to stdout, and exits 0 after `shutdown` + `exit`.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn read_frames(out: impl Read + Send + 'static) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        loop {
            let mut len = None;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                // Anything but headers on stdout would break the client.
                let n = line
                    .strip_prefix("Content-Length: ")
                    .unwrap_or_else(|| panic!("not an LSP header on stdout: {line:?}"));
                len = n.parse::<usize>().ok();
            }
            let mut body = vec![0; len.expect("Content-Length")];
            r.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        }
    });
    rx
}

fn wait(rx: &mpsc::Receiver<Value>, pred: impl Fn(&Value) -> bool) -> Value {
    loop {
        let m = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server answered in time");
        if pred(&m) {
            return m;
        }
    }
}

fn session(args: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rx = read_frames(child.stdout.take().unwrap());
    let mut send = |v: Value| {
        stdin.write_all(&frame(&v)).unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "rootUri": null, "capabilities": {}}}),
    );
    let init = wait(&rx, |m| m["id"] == 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "netbox-lsp");
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let uri = "file:///tmp/netbox-lsp-stdio/SKILL.md";
    let text =
        "```python\nnetbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 3})\n```\n";
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}}),
    );
    let diags = wait(&rx, |m| m["method"] == "textDocument/publishDiagnostics");
    let d = &diags["params"]["diagnostics"][0];
    assert_eq!(d["code"], "unknown-filter", "{diags}");
    assert_eq!(d["range"]["start"], json!({"line": 1, "character": 44}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/completion", "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 44}}}),
    );
    let items = wait(&rx, |m| m["id"] == 2);
    let labels: Vec<&str> = items["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert!(labels.contains(&"role_id"), "{labels:?}");
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    wait(&rx, |m| m["id"] == 3);
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// The binary keeps serving after bodies that are JSON but not JSON-RPC 2.0 messages (the
/// reader of tower-lsp-server would end the connection on them).
#[test]
fn invalid_jsonrpc_messages_do_not_end_the_real_binary() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rx = read_frames(child.stdout.take().unwrap());
    let mut send_raw = |body: &[u8]| {
        let mut f = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        f.extend_from_slice(body);
        stdin.write_all(&f).unwrap();
        stdin.flush().unwrap();
    };
    send_raw(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "rootUri": null, "capabilities": {}}})
            .to_string()
            .as_bytes(),
    );
    wait(&rx, |m| m["id"] == 1);
    send_raw(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
    let bodies: &[&[u8]] = &[
        b"{}",
        b"null",
        b"[1,2,3]",
        b"\"str\"",
        br#"{"jsonrpc":"1.0","id":9,"method":"shutdown"}"#,
        br#"{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover","params":{}}"#,
    ];
    for (i, body) in bodies.iter().enumerate() {
        send_raw(body);
        let id = 100 + i as i64;
        send_raw(
            json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///x.md"}, "position": {"line": 0, "character": 0}}})
                .to_string()
                .as_bytes(),
        );
        let r = wait(&rx, |m| m["id"] == id);
        assert_eq!(
            r["result"],
            Value::Null,
            "after {}: {r}",
            String::from_utf8_lossy(body)
        );
    }
    send_raw(br#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#);
    wait(&rx, |m| m["id"] == 2);
    send_raw(br#"{"jsonrpc":"2.0","method":"exit"}"#);
    assert!(child.wait().unwrap().success());
}

#[test]
fn stdio_session_with_the_real_binary() {
    session(&["--stdio"]);
}

#[test]
fn no_arguments_also_serves_stdio() {
    session(&[]);
}
