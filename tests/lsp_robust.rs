//! Issue 9 through the real server (in process): settings files that are not regular files or
//! point outside the workspace (§2), the protocol to the letter (§6), and a typing simulation of
//! every fixture (§8).

mod lsp_harness;

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
