//! The language server with the user's own NetBox (issue 10 §3–4), against the loopback replay
//! of a customised NetBox 4.6.8 (`tests/instance_replay`): no request unless the user's settings
//! name the instance (a workspace `netbox-lsp.toml` naming it is not enough and never gets the
//! token); with it, the knowledge is built in the background, cached under the user cache folder,
//! reused on the next start after a status check, rebuilt on `netbox-lsp.rebuildIndex`, and it
//! flags a wrong `cf_` filter and completes a plugin filter. The token is in no message and no
//! cached file.
//!
//! One test: it sets process-wide environment variables (XDG folders, the token variable).

mod instance_replay;
mod lsp_harness;

use instance_replay::*;
use lsp_harness::*;
use serde_json::{json, Value};

const DOC: &str = "import pynetbox\nnb = pynetbox.api('https://x')\nnb.dcim.devices.filter(cf_vm_tier=2)\nnb.plugins.bgp.session.filter(peer_gr)\n";

fn no_token_in(v: &Value) {
    let s = v.to_string();
    assert!(!s.contains(V1), "token in a message: {s}");
}

async fn shown(c: &mut TestClient, needle: &str) -> String {
    let n = needle.to_string();
    let p = c
        .notification("window/showMessage", move |p| {
            p["message"].as_str().is_some_and(|m| m.contains(&n))
        })
        .await;
    no_token_in(&p);
    p["message"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_instance_knowledge_in_the_editor() {
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    std::env::set_var("XDG_CONFIG_HOME", home.path().join("config"));
    std::env::set_var("XDG_CACHE_HOME", &cache);
    std::env::set_var("MY_NB", V1);
    for v in PROXY_VARS {
        std::env::remove_var(v);
    }
    let server = Server::start(netbox(V1, false));

    // 1. A workspace names the instance (and a token variable): nothing is sent anywhere.
    let ws = home.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        ws.join("netbox-lsp.toml"),
        format!(
            "[instance]\nurl = \"{}\"\ntoken_env = \"MY_NB\"\n",
            server.url()
        ),
    )
    .unwrap();
    let mut c = TestClient::in_process();
    c.initialize(
        json!({}),
        default_capabilities(),
        json!([{"uri": file_uri(&ws), "name": "ws"}]),
    )
    .await;
    let m = shown(&mut c, "is not contacted").await;
    assert!(m.contains(&server.url()), "{m}");
    shown(&mut c, "instance.token_env` is ignored here").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(server.seen().is_empty(), "{:?}", server.seen());

    // 2. The user's settings name it: built in the background, then used.
    let opts = json!({"instance": {"url": server.url(), "tokenEnv": "MY_NB"}});
    let mut c = TestClient::in_process();
    let init = c
        .initialize(opts.clone(), default_capabilities(), Value::Null)
        .await;
    assert_eq!(
        init["capabilities"]["executeCommandProvider"]["commands"],
        json!(["netbox-lsp.rebuildIndex", "netbox-lsp.verify"])
    );
    let uri = file_uri(&home.path().join("skill.py"));
    c.open(&uri, "python", 1, DOC).await;
    let ready = shown(&mut c, "ready").await;
    assert!(
        ready.contains("netbox_bgp 0.19.0") && ready.contains("8 custom fields"),
        "{ready}"
    );
    let u = uri.clone();
    let diags = c
        .notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(u)
                && p["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["code"] == "unknown-filter"))
        })
        .await;
    let d = &diags["diagnostics"][0];
    assert!(d["message"].as_str().unwrap().contains("vm_tier"), "{d}");
    assert_eq!(d["range"]["start"]["line"], 2);
    let (line, ch) = pos_of(DOC, "peer_gr)", 7);
    let labels = c.completion_labels(&uri, line, ch).await;
    assert!(labels.iter().any(|l| l == "peer_group"), "{labels:?}");
    let (line, ch) = pos_of(DOC, "cf_vm_tier", 3);
    let labels = c.completion_labels(&uri, line, ch).await;
    assert!(labels.iter().any(|l| l == "cf_owner_team"), "{labels:?}");
    // Hover on the custom field says what it is and where it applies.
    let (line, ch) = pos_of(DOC, "cf_vm_tier", 2);
    let hover = c
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": ch}}),
        )
        .await;
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("custom field `vm_tier`") && text.contains("virtualization.virtualmachine"),
        "{hover}"
    );
    let seen = server.seen();
    assert!(
        seen.iter().any(|s| s.path.starts_with("/api/schema/")),
        "{seen:?}"
    );
    assert!(seen
        .iter()
        .all(|s| s.authorization.as_deref() == Some(&format!("Token {V1}")[..])));
    // The cache holds the index and schema, without the token.
    let dir = std::fs::read_dir(cache.join("netbox-lsp"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for f in ["index.json.gz", "schema.graphql.gz"] {
        let raw = std::fs::read(dir.join(f)).unwrap();
        assert!(!String::from_utf8_lossy(&gunzip(&raw)).contains(V1), "{f}");
    }

    // 3. Next start: the cache serves, one status check finds it current; the command rebuilds.
    let before = server.seen().len();
    let mut c = TestClient::in_process();
    c.initialize(opts, default_capabilities(), Value::Null)
        .await;
    c.notification("window/logMessage", |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("using the cached knowledge"))
    })
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let after: Vec<String> = server.seen()[before..]
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert_eq!(after, ["/api/status/"]);
    // A build killed between writing the cache and renaming it left its temporary file
    // (issue 34): the next build removes it.
    let left = dir.join(".netbox-lsp-k1LLed");
    std::fs::write(&left, "half an index").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&left)
        .unwrap()
        .set_modified(
            std::time::SystemTime::now()
                - netbox_lsp::leftovers::STALE
                - std::time::Duration::from_secs(1),
        )
        .unwrap();
    c.call(
        "workspace/executeCommand",
        json!({"command": "netbox-lsp.rebuildIndex", "arguments": []}),
    )
    .await;
    shown(&mut c, "ready").await;
    assert!(server.seen()[before..]
        .iter()
        .any(|s| s.path.starts_with("/api/schema/")));
    assert!(!left.exists(), "the killed build's temporary file is left");
}
