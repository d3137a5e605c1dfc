//! The editor's live verify against a NetBox that echoes the token and control characters
//! (issue 33 §1, "the editor included"): the refusal reaches the diagnostic with the token
//! redacted after decoding (it came JSON-escaped) and control characters shown as escapes,
//! and no message carries the token.
//!
//! One test: it sets process-wide environment variables (XDG folders, the token variable).

mod common;
mod instance_replay;
mod lsp_harness;

use common::*;
use instance_replay::*;
use lsp_harness::*;
use serde_json::json;

const DOC: &str = "import pynetbox\nnb = pynetbox.api('https://netbox.example.com')\nnb.dcim.devices.filter(status='maintenance')\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_shows_no_token_and_no_control_character() {
    let (_home, ws) = isolated_user(V1);
    let escaped: String = V1.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
    let refusal = format!(
        r#"{{"status": ["Invalid token {escaped}\n::error file=forged.py,line=1::forged\u001b[2J"]}}"#
    );
    let knowledge = netbox(V1, false);
    let server = Server::start(Box::new(move |req: &Seen| {
        if knowledge_request(req) {
            knowledge(req)
        } else if req.path.contains("status=maintenance") {
            status_reply(400, "application/json", refusal.as_bytes())
        } else {
            json(
                br#"{"count": 72, "next": null, "previous": null, "results": [{"id": 1}]}"#
                    .to_vec(),
            )
        }
    }));
    let uri = file_uri(&ws.join("skill.py"));
    let instance = json!({"url": server.url(), "tokenEnv": "MY_NB"});
    let opts = json!({"instance": instance, "live": {"enabled": true}});
    let (mut c, _) = editor(opts, &ws).await;
    c.open(&uri, "python", 1, DOC).await;
    c.notification("window/showMessage", |p| {
        p["message"].as_str().is_some_and(|m| m.contains("ready"))
    })
    .await;
    c.call(
        "workspace/executeCommand",
        json!({"command": "netbox-lsp.verify", "arguments": [uri]}),
    )
    .await;
    let done = c
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.contains("verified against"))
        })
        .await;
    let u = uri.clone();
    let p = c
        .notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(u)
                && p["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["code"] == "live-refused"))
        })
        .await;
    let d = p["diagnostics"].as_array().cloned().unwrap();
    let refused = d.iter().find(|d| d["code"] == "live-refused").unwrap();
    let msg = refused["message"].as_str().unwrap();
    assert!(msg.contains("Invalid token <redacted>"), "{msg}");
    assert!(
        !msg.chars().any(|c| c.is_control()),
        "a control character in {msg:?}"
    );
    assert!(msg.contains("\\u{1b}[2J"), "{msg:?}");
    for shown in [done.to_string(), serde_json::to_string(&d).unwrap()] {
        assert!(
            !shown.contains(V1) && !shown.contains(&escaped[..60]),
            "token in {shown}"
        );
    }
}
