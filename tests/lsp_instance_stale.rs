//! The server's instance knowledge over time (issue 10 §3), against the loopback replay of a
//! customised NetBox 4.6.8 (`tests/instance_replay`): while the first build runs (the OpenAPI
//! document held back, as NetBox takes 10–30 s to generate it) the embedded knowledge serves and
//! `$/progress` reports the build; when it is ready the instance's knowledge replaces it. On the
//! next start the cached knowledge serves at once, and a `/api/status/` that reports another
//! version or other plugins makes the server say the knowledge is stale and rebuild it.
//!
//! One test: it sets process-wide environment variables (XDG folders, the token variable).

mod instance_replay;
mod lsp_harness;

use instance_replay::*;
use lsp_harness::*;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const DOC: &str = "import pynetbox\nnb = pynetbox.api('https://x')\nnb.plugins.bgp.session.filter(peer_groups=1)\n";

fn codes(p: &Value) -> Vec<String> {
    p["diagnostics"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|d| d["code"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_serves_while_building_and_stale_knowledge_is_rebuilt() {
    let home = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_CONFIG_HOME", home.path().join("config"));
    std::env::set_var("XDG_CACHE_HOME", home.path().join("cache"));
    std::env::set_var("MY_NB", V1);
    for v in PROXY_VARS {
        std::env::remove_var(v);
    }
    // The replay, with a status answer and a schema delay the test changes.
    let status: Arc<Mutex<Option<Vec<u8>>>> = Arc::new(Mutex::new(None));
    let delay = Arc::new(Mutex::new(Duration::from_millis(1500)));
    let inner = netbox(V1, false);
    let (st, dl) = (status.clone(), delay.clone());
    let server = Server::start(Box::new(move |req: &Seen| {
        if req.path == "/api/status/" {
            if let Some(body) = st.lock().unwrap().clone() {
                return instance_replay::json(body);
            }
        }
        if req.path.starts_with("/api/schema/") {
            let d = *dl.lock().unwrap();
            std::thread::sleep(d);
        }
        inner(req)
    }));
    let opts = json!({"instance": {"url": server.url(), "tokenEnv": "MY_NB"}});
    let uri = file_uri(&home.path().join("skill.py"));

    // 1. First start, no cache: the embedded knowledge answers while the build runs.
    let mut c = TestClient::in_process();
    c.initialize(opts.clone(), default_capabilities(), Value::Null)
        .await;
    c.open(&uri, "python", 1, DOC).await;
    let u = uri.clone();
    let stock = c
        .notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(u) && !codes(p).is_empty()
        })
        .await;
    assert_eq!(codes(&stock), ["needs-instance"], "{stock}");
    let begin = c
        .notification("$/progress", |p| p["value"]["kind"] == "begin")
        .await;
    assert!(
        begin["token"]
            .as_str()
            .is_some_and(|t| t.starts_with("netbox-lsp/instance/")),
        "{begin}"
    );
    assert!(
        begin["value"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(&server.url())),
        "{begin}"
    );
    // Each step is reported; the OpenAPI document's says it may take a while.
    let report = c
        .notification("$/progress", |p| {
            p["value"]["kind"] == "report"
                && p["value"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("/api/schema/"))
        })
        .await;
    assert!(
        report["value"]["message"]
            .as_str()
            .unwrap()
            .contains("10–30 s"),
        "{report}"
    );
    let end = c
        .notification("$/progress", |p| p["value"]["kind"] == "end")
        .await;
    assert_eq!(end["value"]["message"], "ready");
    c.notification("window/showMessage", |p| {
        p["message"].as_str().is_some_and(|m| m.contains("ready"))
    })
    .await;
    let u = uri.clone();
    let inst = c
        .notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(u) && codes(p).contains(&"unknown-filter".to_string())
        })
        .await;
    assert_eq!(codes(&inst), ["unknown-filter"], "{inst}");

    // 2. Next start, same status: the cache serves, one status request, no rebuild.
    *delay.lock().unwrap() = Duration::ZERO;
    let before = server.seen().len();
    let mut c = TestClient::in_process();
    c.initialize(opts.clone(), default_capabilities(), Value::Null)
        .await;
    c.notification("window/logMessage", |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("using the cached knowledge"))
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let paths = |from: usize| -> Vec<String> {
        server.seen()[from..]
            .iter()
            .map(|s| s.path.clone())
            .collect()
    };
    assert_eq!(paths(before), ["/api/status/"]);

    // 3. The instance now reports another plugin, then another version: stale, rebuilt.
    let real = gunzip(&read("status.json.gz"));
    let mut v: Value = serde_json::from_slice(&real).unwrap();
    v["plugins"]["netbox_dns"] = json!("1.4.0");
    *status.lock().unwrap() = Some(serde_json::to_vec(&v).unwrap());
    for expect in ["with other plugins", "the instance now runs 4.6.9"] {
        if expect.contains("4.6.9") {
            v["netbox-version"] = json!("4.6.9");
            *status.lock().unwrap() = Some(serde_json::to_vec(&v).unwrap());
        }
        let before = server.seen().len();
        let mut c = TestClient::in_process();
        c.initialize(opts.clone(), default_capabilities(), Value::Null)
            .await;
        let stale = c
            .notification("window/showMessage", |p| {
                p["message"].as_str().is_some_and(|m| m.contains("stale"))
            })
            .await;
        let m = stale["message"].as_str().unwrap();
        assert!(m.contains(expect), "{m}");
        assert!(!m.contains(V1), "{m}");
        c.notification("window/showMessage", |p| {
            p["message"].as_str().is_some_and(|m| m.contains("ready"))
        })
        .await;
        assert!(
            paths(before).iter().any(|p| p.starts_with("/api/schema/")),
            "{:?}",
            paths(before)
        );
    }
}
