//! A stuck build of the instance knowledge does not hold `netbox-lsp.rebuildIndex` (issue 23 §2):
//! against a loopback NetBox whose OpenAPI document trickles in one byte per second (the
//! request deadline is 4 × 120 s), a second `rebuildIndex` cancels the running build (its
//! work-done progress ends "cancelled", `window/showMessage` says so) and starts again, and
//! `window/workDoneProgress/cancel` on a build's cancellable progress stops it.
//!
//! One test: it sets process-wide environment variables (XDG folders, the token variable).

mod instance_replay;
mod lsp_harness;

use instance_replay::*;
use lsp_harness::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

async fn begin(c: &mut TestClient) -> Value {
    let begin = c
        .notification("$/progress", |p| p["value"]["kind"] == "begin")
        .await;
    assert_eq!(begin["value"]["cancellable"], true, "{begin}");
    begin["token"].clone()
}

/// Waits for the progress report that the OpenAPI document is being fetched.
async fn fetching_openapi(c: &mut TestClient, token: &Value) {
    let t = token.clone();
    c.notification("$/progress", move |p| {
        p["token"] == t
            && p["value"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("/api/schema/"))
    })
    .await;
}

async fn end(c: &mut TestClient, token: &Value) -> String {
    let t = token.clone();
    let end = c
        .notification("$/progress", move |p| {
            p["token"] == t && p["value"]["kind"] == "end"
        })
        .await;
    end["value"]["message"].as_str().unwrap_or_default().into()
}

async fn message(c: &mut TestClient, part: &'static str) -> String {
    let m = c
        .notification("window/showMessage", move |p| {
            p["message"].as_str().is_some_and(|m| m.contains(part))
        })
        .await;
    m["message"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_build_is_cancelled_and_restarted() {
    let home = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_CONFIG_HOME", home.path().join("config"));
    std::env::set_var("XDG_CACHE_HOME", home.path().join("cache"));
    std::env::set_var("MY_NB", V1);
    for v in PROXY_VARS {
        std::env::remove_var(v);
    }
    // While `trickle` is set, the OpenAPI document comes one byte per second.
    let trickle = Arc::new(AtomicBool::new(true));
    let inner = netbox(V1, false);
    let t = trickle.clone();
    let server = Server::start(Box::new(move |req: &Seen| {
        if req.path.starts_with("/api/schema/") && t.load(Ordering::SeqCst) {
            return Reply::Trickle {
                body: vec![b' '; 10_000],
                every: Duration::from_secs(1),
            };
        }
        inner(req)
    }));
    let opts = json!({"instance": {"url": server.url(), "tokenEnv": "MY_NB"}});
    let schema_requests = || {
        server
            .seen()
            .iter()
            .filter(|s| s.path.starts_with("/api/schema/"))
            .count()
    };
    // The step is reported before its request is sent: wait until NetBox has it.
    let asked = |n: usize| async move {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        while schema_requests() < n {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no request for /api/schema/"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };

    // 1. The first build (no cache) is stuck in the OpenAPI document.
    let mut c = TestClient::in_process();
    c.initialize(opts, default_capabilities(), Value::Null)
        .await;
    let first = begin(&mut c).await;
    fetching_openapi(&mut c, &first).await;
    asked(1).await;
    trickle.store(false, Ordering::SeqCst);

    // 2. rebuildIndex cancels it and builds again, to the end.
    c.call(
        "workspace/executeCommand",
        json!({"command": "netbox-lsp.rebuildIndex", "arguments": []}),
    )
    .await;
    let m = message(&mut c, "cancelled").await;
    assert!(
        m.contains("building again") && m.contains(&server.url()),
        "{m}"
    );
    assert_eq!(end(&mut c, &first).await, "cancelled");
    let second = begin(&mut c).await;
    assert_ne!(second, first);
    assert_eq!(end(&mut c, &second).await, "ready");
    message(&mut c, "ready").await;
    assert_eq!(schema_requests(), 2);

    // 3. The user cancels a stuck build from its progress: it ends, nothing else starts.
    trickle.store(true, Ordering::SeqCst);
    c.call(
        "workspace/executeCommand",
        json!({"command": "netbox-lsp.rebuildIndex", "arguments": []}),
    )
    .await;
    let third = begin(&mut c).await;
    fetching_openapi(&mut c, &third).await;
    asked(3).await;
    c.notify("window/workDoneProgress/cancel", json!({"token": third}))
        .await;
    assert_eq!(end(&mut c, &third).await, "cancelled");
    let m = message(&mut c, "cancelled").await;
    assert!(m.contains("the knowledge in use stays"), "{m}");
    assert_eq!(schema_requests(), 3);
    // A cancel naming no running build is ignored; the server still builds. (The cancelled
    // builds' requests were shut down: the runtime would wait for their threads otherwise.)
    c.notify("window/workDoneProgress/cancel", json!({"token": third}))
        .await;
    trickle.store(false, Ordering::SeqCst);
    c.call(
        "workspace/executeCommand",
        json!({"command": "netbox-lsp.rebuildIndex", "arguments": []}),
    )
    .await;
    let fourth = begin(&mut c).await;
    assert_ne!(fourth, third);
    assert_eq!(end(&mut c, &fourth).await, "ready");
    assert_eq!(schema_requests(), 4);
}
