//! The editor's live verify against a NetBox that runs another release than the editor checks
//! against (issue 33 §2): the instance's knowledge cannot be built (its OpenAPI document is
//! refused), so the editor checks with the default release (4.7.3); "Verify against NetBox"
//! reads `/api/status/` first (4.6.8) and judges the answers with the knowledge of 4.6.8, and
//! a note says so.
//!
//! `protocol__ic` on `/api/ipam/services/` exists in 4.6.8 and was removed in 4.7.0: on this
//! NetBox it narrows the list, which 4.6.8's knowledge expects (`live-narrowed`); judged with
//! 4.7.3's it would contradict the knowledge (`live-differs`). The quiet twin, `protocol=tcp`,
//! narrows under both.
//!
//! One test: it sets process-wide environment variables (XDG folders, the token variable).

mod common;
mod instance_replay;
mod lsp_harness;

use common::*;
use instance_replay::*;
use lsp_harness::*;
use serde_json::{json, Value};

const DOC: &str = "import pynetbox\nnb = pynetbox.api('https://netbox.example.com')\nnb.ipam.services.filter(protocol__ic='tc')\nnb.ipam.services.filter(protocol='tcp')\n";

fn live_on_line(d: &[Value], line: u64) -> Vec<String> {
    let mut codes: Vec<String> = d
        .iter()
        .filter(|d| d["source"] == "netbox (live)" && d["range"]["start"]["line"] == line)
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    codes.sort();
    codes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_verify_judges_with_the_instance_release() {
    let (_home, ws) = isolated_user(V1);
    let server = Server::start(Box::new(move |req: &Seen| {
        let p = req.path.as_str();
        if p == "/api/status/" {
            json(br#"{"netbox-version": "4.6.8", "plugins": {}}"#.to_vec())
        } else if p.starts_with("/api/ipam/services/?") {
            let filtered = p.contains("protocol");
            let body = format!(
                r#"{{"count": {}, "next": null, "previous": null, "results": [{{"id": 1}}]}}"#,
                if filtered { 2 } else { 4 }
            );
            json(body.into_bytes())
        } else {
            // The OpenAPI document and the rest: this token may not read them.
            status_reply(
                403,
                "application/json",
                br#"{"detail":"You do not have permission to perform this action."}"#,
            )
        }
    }));
    let uri = file_uri(&ws.join("skill.py"));
    let instance = json!({"url": server.url(), "tokenEnv": "MY_NB"});
    let opts = json!({"instance": instance, "live": {"enabled": true}});
    let (mut c, _) = editor(opts, &ws).await;
    c.open(&uri, "python", 1, DOC).await;
    // The static check uses the default release: 4.7.3 removed `protocol__ic`.
    let u = uri.clone();
    let p = c
        .notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(u)
                && p["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["code"] == "version-only"))
        })
        .await;
    let d = p["diagnostics"].as_array().unwrap();
    let static_msg = d.iter().find(|d| d["code"] == "version-only").unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(static_msg.contains("in NetBox 4.7.3"), "{static_msg}");
    c.call(
        "workspace/executeCommand",
        json!({"command": "netbox-lsp.verify", "arguments": [uri]}),
    )
    .await;
    let note = c
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.contains("its live verdicts use the knowledge of"))
        })
        .await;
    let note = note["message"].as_str().unwrap();
    assert!(
        note.contains("the settings check against NetBox 4.7.3, but ")
            && note.contains(&format!("{} runs 4.6.8", server.url()))
            && note.ends_with("its live verdicts use the knowledge of 4.6.8"),
        "{note}"
    );
    let done = c
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.contains("verified against"))
        })
        .await;
    let done = done["message"].as_str().unwrap();
    assert!(
        done.contains("2 narrowed") && done.contains("0 differ from the knowledge"),
        "{done}"
    );
    let u = uri.clone();
    let p = c
        .notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(u)
                && p["diagnostics"].as_array().is_some_and(|d| {
                    d.iter().filter(|d| d["source"] == "netbox (live)").count() >= 2
                })
        })
        .await;
    let d = p["diagnostics"].as_array().cloned().unwrap();
    assert_eq!(live_on_line(&d, 2), ["live-narrowed"], "{d:#?}");
    assert_eq!(live_on_line(&d, 3), ["live-narrowed"], "{d:#?}");
    let narrowed = d
        .iter()
        .find(|d| d["code"] == "live-narrowed" && d["range"]["start"]["line"] == 2)
        .unwrap();
    assert!(
        narrowed["message"]
            .as_str()
            .unwrap()
            .starts_with("NetBox answered 2 of 4 objects: the filters work here."),
        "{narrowed}"
    );
    // Only the status and the list requests of the two calls left (and the refused knowledge
    // build); no token in any message.
    let mut sent: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| s.path.starts_with("/api/ipam/"))
        .map(|s| s.path.clone())
        .collect();
    sent.sort();
    assert_eq!(
        sent,
        [
            "/api/ipam/services/?limit=1",
            "/api/ipam/services/?protocol=tcp&limit=1",
            "/api/ipam/services/?protocol__ic=tc&limit=1",
        ],
        "{sent:?}"
    );
    assert!(!serde_json::to_string(&d).unwrap().contains(V1));
}
