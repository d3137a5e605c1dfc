//! Pull diagnostics (issue 35 §5) with a client that only pulls: it declares
//! `textDocument.diagnostic` (and `workspace.diagnostics.refreshSupport`) and nothing for
//! `publishDiagnostics`, asks with
//! `textDocument/diagnostic` and `workspace/diagnostic`, and gets full reports with result ids,
//! `unchanged` reports for the ids it already has, a `workspace/diagnostic/refresh` when a
//! document's diagnostics change without an edit, a `codeDescription` link to each code's
//! docs entry, and never a pushed diagnostic. A client that does not pull, or pulls without
//! taking a refresh (Neovim 0.11), keeps the push path and is not offered `diagnosticProvider`.

use crate::lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const URI: &str = "file:///tmp/pull/SKILL.md";
const TEXT: &str = "# Devices\n\n\
`GET /api/dcim/devices/?device_role_id=3`\n\n\
`GET /api/dcim/devices/?role_id=3` <!-- netbox-lsp: ignore[unknown-filter] -- stale -->\n";

/// What a pull-only client says it can do.
fn pull_capabilities() -> Value {
    json!({
        "workspace": {"configuration": true, "diagnostics": {"refreshSupport": true}},
        "textDocument": {"diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false}},
        "general": {"positionEncodings": ["utf-16"]}
    })
}

async fn pull(c: &mut TestClient, previous: Option<&str>) -> Value {
    c.call(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": URI}, "identifier": "netbox-lsp", "previousResultId": previous}),
    )
    .await
}

fn codes(report: &Value) -> Vec<String> {
    report["items"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// Checks a diagnostic's `codeDescription` link: a build from a clone links to the page in
/// the source tree its binary sits in, which this test binary does unless cargo's target
/// folder is outside the tree (`CARGO_TARGET_DIR`, as docs/platforms.md suggests to share
/// builds); then there is no page to link to, and no link.
fn docs_link(href: Option<&str>, ends_with: &str) {
    let exe = std::env::current_exe().unwrap();
    let in_tree =
        exe.ancestors().skip(1).take(5).any(|dir| {
            dir.join("Cargo.toml").is_file() && dir.join("docs/diagnostics.md").is_file()
        });
    match href {
        Some(href) => assert!(in_tree && href.ends_with(ends_with), "{href}"),
        None => assert!(!in_tree, "no codeDescription from {}", exe.display()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_only_pulls_gets_reports_ids_unchanged_and_refresh() {
    let mut c = TestClient::in_process();
    let init = c
        .initialize(json!({}), pull_capabilities(), Value::Null)
        .await;
    let provider = &init["capabilities"]["diagnosticProvider"];
    assert_eq!(provider["identifier"], "netbox-lsp", "{init}");
    assert_eq!(provider["workspaceDiagnostics"], true);
    assert_eq!(provider["interFileDependencies"], false);
    c.open(URI, "markdown", 1, TEXT).await;

    // A full report: the finding, a result id, the docs link; the unused suppression is off
    // in the editor by default.
    let first = pull(&mut c, None).await;
    assert_eq!(first["kind"], "full", "{first}");
    assert_eq!(codes(&first), ["unknown-filter"], "{first}");
    let id = first["resultId"].as_str().expect("a result id").to_string();
    let href = first["items"][0]["codeDescription"]["href"].as_str();
    docs_link(href, "docs/diagnostics.md#unknown-filter");

    // The same id again: unchanged.
    let again = pull(&mut c, Some(&id)).await;
    assert_eq!(again["kind"], "unchanged", "{again}");
    assert_eq!(again["resultId"], id.as_str());

    // The workspace pull: unchanged for the id the client has, full without it.
    let ws = c
        .call(
            "workspace/diagnostic",
            json!({"identifier": "netbox-lsp", "previousResultIds": [{"uri": URI, "value": id}]}),
        )
        .await;
    let items = ws["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{ws}");
    assert_eq!(items[0]["kind"], "unchanged");
    assert_eq!(
        (&items[0]["uri"], &items[0]["version"]),
        (&json!(URI), &json!(1))
    );
    let ws = c
        .call(
            "workspace/diagnostic",
            json!({"identifier": "netbox-lsp", "previousResultIds": []}),
        )
        .await;
    assert_eq!(ws["items"][0]["kind"], "full");
    assert_eq!(ws["items"][0]["resultId"], id.as_str());

    // A setting that turns the unused suppression on changes the diagnostics of version 1:
    // the client is asked to pull again, and the new report has it under a new id.
    *c.config.lock().unwrap() = json!({"extendSelect": ["unused-suppression"]});
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    )
    .await;
    c.wait_for(|m| m["method"] == "workspace/diagnostic/refresh")
        .await;
    let after = pull(&mut c, Some(&id)).await;
    assert_eq!(after["kind"], "full", "{after}");
    assert_eq!(codes(&after), ["unknown-filter", "unused-suppression"]);
    let id2 = after["resultId"].as_str().unwrap().to_string();
    assert_ne!(id2, id);

    // An edit that fixes the filter: the next pull has only the suppression left.
    let (line, col) = pos_of(TEXT, "device_role_id", 0);
    c.change(
        URI,
        2,
        json!([{"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 14}}, "text": "role_id"}]),
    )
    .await;
    let fixed = pull(&mut c, Some(&id2)).await;
    assert_eq!(fixed["kind"], "full");
    assert_eq!(codes(&fixed), ["unused-suppression"], "{fixed}");

    // Nothing was pushed to this client.
    c.call("netbox-lsp/debugDocument", json!({"uri": URI}))
        .await;
    let pushed = c.received("textDocument/publishDiagnostics");
    assert_eq!(pushed, 0, "a pull client got pushed diagnostics");
}

/// A client that does not pull, and one that pulls but cannot be told to pull again (Neovim
/// 0.11: `textDocument.diagnostic` without `workspace.diagnostics.refreshSupport`), are not
/// offered `diagnosticProvider` and get pushed diagnostics (with the same docs link).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_clients_and_pull_clients_without_refresh_keep_the_push_path() {
    let neovim_011 = json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "general": {"positionEncodings": ["utf-16"]}
    });
    for caps in [default_capabilities(), neovim_011] {
        let mut c = TestClient::in_process();
        let init = c.initialize(json!({}), caps.clone(), Value::Null).await;
        assert!(
            init["capabilities"].get("diagnosticProvider").is_none(),
            "{caps}: {init}"
        );
        c.open(URI, "markdown", 1, TEXT).await;
        let d = c.diagnostics(URI, 1).await;
        assert_eq!(d.len(), 1, "{d:#?}");
        docs_link(d[0]["codeDescription"]["href"].as_str(), "#unknown-filter");
    }
}
