//! Live checks in the editor (issue 21 §2–§3) against what a customised NetBox 4.6.8 really
//! answered: its knowledge answers (`tests/instance_replay`) and the live rows of the same
//! instance (`tests/fixtures/live/answers.tsv.gz`, dataset `4.6.8-instance`).
//!
//! - Off unless the user turns it on: the command sends nothing and says how to turn it on; a
//!   workspace file asking for it is ignored (and told so); no code lenses.
//! - On (`initializationOptions.live`): code lenses above each call, "Verify against NetBox" on
//!   one call sends only that call's requests, then on the document the rest; the verdicts
//!   are diagnostics (source `netbox (live)`, counts and the time of the check) and in hover.
//! - Nothing is sent while typing: an edit keeps the verdicts of the calls that did not change
//!   and drops the others, without a request; verify-on-save verifies on save.
//! - Only GET of list endpoints with `limit=1` and POST /graphql/ beyond the knowledge requests,
//!   the token in no message.
//!
//! One test: it sets process-wide environment variables (XDG folders, the token variable).

mod common;
mod instance_replay;
mod live_replay;
mod lsp_harness;

use common::*;
use instance_replay::*;
use live_replay::{Record, Replay};
use lsp_harness::*;
use serde_json::{json, Value};
use std::sync::Arc;

const DOC: &str = "import pynetbox\nnb = pynetbox.api('https://netbox.example.com')\nnb.dcim.devices.filter(status='maintenance')\nnb.dcim.devices.filter(cf_owner_team='netops')\n";

fn live_requests(server: &Server) -> Vec<String> {
    server
        .seen()
        .iter()
        .filter(|s| !knowledge_request(s))
        .map(|s| format!("{} {}", s.method, s.path))
        .collect()
}

async fn shown(c: &mut TestClient, needle: &str) -> String {
    let n = needle.to_string();
    let p = c
        .notification("window/showMessage", move |p| {
            p["message"].as_str().is_some_and(|m| m.contains(&n))
        })
        .await;
    assert!(!p.to_string().contains(V1), "token in a message: {p}");
    p["message"].as_str().unwrap().to_string()
}

/// Waits for diagnostics of `uri` that satisfy `pred`.
async fn diagnostics_where(
    c: &mut TestClient,
    uri: &str,
    pred: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let u = uri.to_string();
    let p = c
        .notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(u) && p["diagnostics"].as_array().is_some_and(|d| pred(d))
        })
        .await;
    p["diagnostics"].as_array().cloned().unwrap()
}

fn live_on_line(d: &[Value], line: u64) -> Vec<String> {
    d.iter()
        .filter(|d| d["source"] == "netbox (live)" && d["range"]["start"]["line"] == line)
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_against_netbox_in_the_editor() {
    let (_home, ws) = isolated_user(V1);
    let record = Arc::new(Record::default());
    let rows = live_replay::rows();
    let strict = live_replay::strict(Replay::new(&rows["4.6.8-instance"]), V1, record.clone());
    let knowledge = netbox(V1, false);
    let server = Server::start(Box::new(move |req: &Seen| {
        if knowledge_request(req) {
            knowledge(req)
        } else {
            strict(req)
        }
    }));
    let uri = file_uri(&ws.join("skill.py"));
    let verify = |args: Value| json!({"command": "netbox-lsp.verify", "arguments": args});

    // 1. Off: a workspace asking for live checks does not turn them on; nothing is sent.
    std::fs::write(ws.join("netbox-lsp.toml"), "[live]\nenabled = true\n").unwrap();
    let instance = json!({"url": server.url(), "tokenEnv": "MY_NB"});
    let (mut c, init) = editor(json!({"instance": instance}), &ws).await;
    assert_eq!(
        init["capabilities"]["executeCommandProvider"]["commands"],
        json!(["netbox-lsp.rebuildIndex", "netbox-lsp.verify"])
    );
    shown(&mut c, "`live` is ignored here").await;
    c.open(&uri, "python", 1, DOC).await;
    shown(&mut c, "ready").await;
    let lenses = c
        .call(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert_eq!(lenses, Value::Null);
    c.call("workspace/executeCommand", verify(json!([uri])))
        .await;
    let m = shown(&mut c, "live checks are off").await;
    assert!(m.contains("a workspace cannot"), "{m}");
    assert!(
        live_requests(&server).is_empty(),
        "{:?}",
        live_requests(&server)
    );
    drop(c);

    // 2. On, from the user's settings.
    let opts = json!({"instance": instance, "live": {"enabled": true, "verifyOnSave": true}});
    let (mut c, _) = editor(opts, &ws).await;
    c.open(&uri, "python", 1, DOC).await;
    // The instance's knowledge (built above) serves: `maintenance` is one of its choices.
    c.notification("window/logMessage", |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("using the cached knowledge"))
    })
    .await;
    let lenses = c
        .call(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let titles: Vec<(u64, String)> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["command"]["title"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        titles,
        [
            (0, "Verify document against NetBox (2 calls)".to_string()),
            (2, "Verify against NetBox".to_string()),
            (3, "Verify against NetBox".to_string()),
        ]
    );
    // The lens of one call verifies that call only.
    let lens = lenses[1]["command"].clone();
    assert_eq!(lens["command"], "netbox-lsp.verify");
    c.call(
        "workspace/executeCommand",
        json!({"command": lens["command"], "arguments": lens["arguments"]}),
    )
    .await;
    let m = shown(&mut c, "verified against").await;
    assert!(m.contains("1 narrowed"), "{m}");
    assert_eq!(
        live_requests(&server),
        [
            "GET /api/dcim/devices/?limit=1",
            "GET /api/dcim/devices/?status=maintenance&limit=1"
        ]
    );
    let d = diagnostics_where(&mut c, &uri, |d| {
        d.iter().any(|d| d["source"] == "netbox (live)")
    })
    .await;
    assert_eq!(live_on_line(&d, 2), ["live-narrowed"]);
    assert!(live_on_line(&d, 3).is_empty());
    let narrowed = d.iter().find(|d| d["code"] == "live-narrowed").unwrap();
    let msg = narrowed["message"].as_str().unwrap();
    assert!(
        msg.starts_with("NetBox answered 3 of 72 objects: the filters work here. (checked "),
        "{msg}"
    );
    assert!(msg.ends_with(" UTC)"), "{msg}");
    // Hover on the call shows the verdict with its counts and time.
    let (line, ch) = pos_of(DOC, "status='maintenance'", 2);
    let hover = c
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": ch}}),
        )
        .await;
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("**NetBox (live)**")
            && text.contains("3 of 72 objects")
            && text.contains("(checked "),
        "{hover}"
    );
    // The whole document, verified afresh: its two calls and their endpoint.
    let before = live_requests(&server).len();
    c.call("workspace/executeCommand", verify(json!([uri])))
        .await;
    shown(&mut c, "verified against").await;
    assert_eq!(live_requests(&server).len(), before + 3);
    let d = diagnostics_where(&mut c, &uri, |d| {
        d.iter().filter(|d| d["source"] == "netbox (live)").count() >= 2
    })
    .await;
    assert_eq!(live_on_line(&d, 3), ["live-narrowed"]);

    // 3. Typing sends nothing: the changed call loses its verdict, the other keeps it.
    let before = live_requests(&server).len();
    let (line, ch) = pos_of(DOC, "netops", 0);
    c.change(
        &uri,
        2,
        json!([{"range": {"start": {"line": line, "character": ch}, "end": {"line": line, "character": ch + 6}}, "text": "sre"}]),
    )
    .await;
    let d = c.diagnostics(&uri, 2).await;
    assert_eq!(live_on_line(&d, 2), ["live-narrowed"]);
    assert!(live_on_line(&d, 3).is_empty(), "{d:?}");
    assert_eq!(live_requests(&server).len(), before);

    // 4. Verify on save: the calls without an answer (the edited one; its endpoint's answer is
    // kept).
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    )
    .await;
    shown(&mut c, "verified against").await;
    let after = live_requests(&server);
    assert_eq!(
        after[before..],
        ["GET /api/dcim/devices/?cf_owner_team=sre&limit=1"]
    );
    assert!(
        record.violations.lock().unwrap().is_empty(),
        "{:?}",
        record.violations
    );
    assert!(server
        .seen()
        .iter()
        .all(|s| s.authorization.as_deref() == Some(&format!("Token {V1}")[..])));
}
