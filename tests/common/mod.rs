//! Set-ups shared by the editor's live tests (`tests/lsp_live*.rs`): an isolated user (XDG
//! folders in a temporary home, the token in an environment variable, no proxy, live checks
//! not turned on from the environment), the requests of the instance knowledge build, and
//! the editor started on a workspace. Needs `mod instance_replay;` and `mod lsp_harness;` in
//! the test file.
#![allow(dead_code)]

use super::instance_replay::{Seen, PROXY_VARS};
use super::lsp_harness::{default_capabilities, file_uri, TestClient};
use serde_json::{json, Value};
use std::path::PathBuf;

/// A temporary home for one test (process-wide environment: one such test per file): XDG
/// config and cache folders in it, `token` in the variable `MY_NB`, no proxy variable, no
/// `NETBOX_LSP_LIVE`. Returns the home and its (created) workspace folder `ws`.
pub fn isolated_user(token: &str) -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    std::env::set_var("XDG_CONFIG_HOME", home.path().join("config"));
    std::env::set_var("XDG_CACHE_HOME", home.path().join("cache"));
    std::env::set_var("MY_NB", token);
    std::env::remove_var("NETBOX_LSP_LIVE");
    for v in PROXY_VARS {
        std::env::remove_var(v);
    }
    let ws = home.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    (home, ws)
}

/// Requests of the instance knowledge build (issue 10), which are not live-check requests.
pub fn knowledge_request(s: &Seen) -> bool {
    s.path == "/api/status/"
        || s.path.starts_with("/api/schema/")
        || s.path.starts_with("/api/extras/custom-field")
        || (s.path == "/graphql/"
            && String::from_utf8_lossy(&s.body).contains("IntrospectionQuery"))
}

/// An in-process editor initialised with `options` on the workspace folder `ws`; the
/// `initialize` result.
pub async fn editor(options: Value, ws: &std::path::Path) -> (TestClient, Value) {
    let mut c = TestClient::in_process();
    let init = c
        .initialize(
            options,
            default_capabilities(),
            json!([{"uri": file_uri(ws), "name": "ws"}]),
        )
        .await;
    (c, init)
}
