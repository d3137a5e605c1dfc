//! A workspace `netbox-lsp.toml` naming a NetBox URL the user's settings do not name (issue 10
//! §4), against the loopback replay of a customised NetBox 4.6.8 (`tests/instance_replay`): with
//! a token source in the user's settings the server asks once (`window/showMessageRequest`);
//! "Not now" or no answer sends nothing anywhere; "Allow <url>" (with "(plain http)" for an
//! http URL, whose token would cross the network unencrypted) builds the knowledge with the
//! user's token and remembers the URL in `$XDG_CONFIG_HOME/netbox-lsp/approved-instances`, so
//! the next start uses it without asking.
//!
//! One test: it sets process-wide environment variables (XDG folders, the token variable).

mod instance_replay;
mod lsp_harness;

use instance_replay::*;
use lsp_harness::*;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

const DOC: &str =
    "import pynetbox\nnb = pynetbox.api('https://x')\nnb.dcim.devices.filter(cf_vm_tier=2)\n";

/// A workspace folder whose `netbox-lsp.toml` names `url` (as `<url>/api/`, normalised).
fn workspace(root: &Path, name: &str, url: &str) -> Value {
    let ws = root.join(name);
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        ws.join("netbox-lsp.toml"),
        format!("[instance]\nurl = \"{url}/api/\"\n"),
    )
    .unwrap();
    json!([{"uri": file_uri(&ws), "name": name}])
}

/// Starts a client answering `answer` to `window/showMessageRequest`.
async fn start(options: Value, folders: Value, answer: Option<String>) -> TestClient {
    let mut c = TestClient::in_process();
    *c.message_action.lock().unwrap() = answer;
    c.initialize(options, default_capabilities(), folders).await;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_instance_is_used_only_once_allowed() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    std::env::set_var("XDG_CONFIG_HOME", &config);
    std::env::set_var("XDG_CACHE_HOME", home.path().join("cache"));
    std::env::set_var("MY_NB", V1);
    for v in PROXY_VARS {
        std::env::remove_var(v);
    }
    let approvals = config.join("netbox-lsp").join("approved-instances");
    let user = json!({"instance": {"tokenEnv": "MY_NB"}});

    // 1. "Not now", then (next start) no answer: asked each time, nothing is contacted.
    let refused = Server::start(netbox(V1, false));
    let folders = workspace(home.path(), "refused", &refused.url());
    for answer in [Some("Not now".to_string()), None] {
        let mut c = start(user.clone(), folders.clone(), answer).await;
        let prompt = c
            .wait_for(|m| m["method"] == "window/showMessageRequest")
            .await;
        let p = &prompt["params"];
        assert!(
            p["message"].as_str().unwrap().contains(&refused.url()),
            "{p}"
        );
        // The test servers are plain http: the prompt and its button say so (issue 34).
        assert!(refused.url().starts_with("http://"));
        assert!(
            p["message"]
                .as_str()
                .unwrap()
                .contains("The URL is plain http: the token would be sent unencrypted."),
            "{p}"
        );
        assert_eq!(
            p["actions"],
            json!([{"title": format!("Allow {} (plain http)", refused.url())}, {"title": "Not now"}])
        );
        assert!(!p.to_string().contains(V1), "{p}");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(c.prompts.lock().unwrap().len(), 1);
    }
    assert!(refused.seen().is_empty(), "{:?}", refused.seen());
    assert!(!approvals.exists());

    // 2. "Allow <url>": the knowledge is built with the user's token and the URL remembered.
    let allowed = Server::start(netbox(V1, false));
    let folders = workspace(home.path(), "allowed", &allowed.url());
    let mut c = start(
        user.clone(),
        folders.clone(),
        Some(format!("Allow {} (plain http)", allowed.url())),
    )
    .await;
    c.notification("window/showMessage", |p| {
        p["message"].as_str().is_some_and(|m| m.contains("ready"))
    })
    .await;
    let uri = file_uri(&home.path().join("allowed").join("skill.py"));
    c.open(&uri, "python", 1, DOC).await;
    let u = uri.clone();
    c.notification("textDocument/publishDiagnostics", move |p| {
        p["uri"] == json!(u)
            && p["diagnostics"].as_array().is_some_and(|d| {
                d.iter()
                    .any(|d| d["message"].as_str().unwrap_or("").contains("vm_tier"))
            })
    })
    .await;
    let seen = allowed.seen();
    assert!(
        seen.iter().any(|s| s.path.starts_with("/api/schema/")),
        "{seen:?}"
    );
    assert!(seen
        .iter()
        .all(|s| s.authorization.as_deref() == Some(&format!("Token {V1}")[..])));
    let text = std::fs::read_to_string(&approvals).unwrap();
    assert_eq!(text.lines().collect::<Vec<_>>(), [allowed.url()]);
    assert!(refused.seen().is_empty());

    // 3. Next start, the token source in the user config file: no prompt, the approved
    //    instance serves from the cache after one status check.
    std::fs::write(
        config.join("netbox-lsp").join("config.toml"),
        "[instance]\ntoken_env = \"MY_NB\"\n",
    )
    .unwrap();
    let before = allowed.seen().len();
    let mut c = start(json!({}), folders, None).await;
    c.notification("window/logMessage", |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("using the cached knowledge"))
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(c.prompts.lock().unwrap().is_empty());
    let after: Vec<String> = allowed.seen()[before..]
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert_eq!(after, ["/api/status/"]);
}
