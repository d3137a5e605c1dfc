//! The editor's `upgradeTo` setting (issue 20 §2) over LSP: with the release in use and a newer
//! one named, each call that works now and breaks on that release gets an `upgrade-breaks`
//! diagnostic naming it, beside the normal diagnostics; the preferred quick-fix is the form that
//! works on both releases; without the setting, or with a release that is not newer, nothing of
//! the kind is reported.

use crate::lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const URI: &str = "file:///tmp/upgrade/SKILL.md";
const TEXT: &str = "# Services\n\n\
`GET /api/ipam/services/?protocol__ic=tc`\n\n\
`GET /api/dcim/devices/?exclude=config_context`\n\n\
`GET /api/dcim/devices/?device_role_id=3`\n";

async fn diagnostics_with(options: Value) -> (TestClient, Vec<Value>) {
    let mut c = TestClient::in_process();
    c.initialize(options, default_capabilities(), Value::Null)
        .await;
    c.open(URI, "markdown", 1, TEXT).await;
    let d = c.diagnostics(URI, 1).await;
    (c, d)
}

fn codes(d: &[Value]) -> Vec<String> {
    d.iter()
        .map(|x| x["code"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrade_to_adds_findings_tagged_with_the_release() {
    let (mut c, d) = diagnostics_with(json!({"netbox_version": "4.6", "upgradeTo": "4.7"})).await;
    let got = codes(&d);
    // The normal finding of the call wrong on both releases stays; the two that change are added.
    assert!(got.contains(&"unknown-filter".to_string()), "{got:?}");
    let breaks: Vec<&Value> = d.iter().filter(|x| x["code"] == "upgrade-breaks").collect();
    let changes: Vec<&Value> = d
        .iter()
        .filter(|x| x["code"] == "upgrade-changes")
        .collect();
    assert_eq!((breaks.len(), changes.len()), (1, 1), "{d:#?}");
    let m = breaks[0]["message"].as_str().unwrap();
    assert!(
        m.starts_with("Breaks on NetBox 4.7.3 (works on 4.6.8)"),
        "{m}"
    );
    assert_eq!(breaks[0]["severity"], 1);
    assert!(changes[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("Becomes a no-op on NetBox 4.7.3"));
    // The preferred quick-fix writes the form both releases read.
    let r = c
        .call(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": breaks[0]["range"], "context": {"diagnostics": [breaks[0]]}}),
        )
        .await;
    let preferred: Vec<&Value> = r
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "quickfix" && a["isPreferred"] == true)
        .collect();
    assert_eq!(preferred.len(), 1, "{r:#?}");
    let title = preferred[0]["title"].as_str().unwrap();
    assert!(title.contains("works on 4.6.8 and 4.7.3"), "{title}");
    let edits = preferred[0]["edit"]["changes"][URI].as_array().unwrap();
    let texts: Vec<&str> = edits
        .iter()
        .map(|e| e["newText"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["protocol", "tcp"], "{edits:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_upgrade_findings_without_a_newer_target() {
    for options in [
        json!({"netbox_version": "4.6"}),
        json!({"netbox_version": "4.7", "upgrade_to": "4.6"}),
        json!({"netbox_version": "4.7", "upgrade_to": "4.7"}),
    ] {
        let (_, d) = diagnostics_with(options.clone()).await;
        assert!(
            !codes(&d).iter().any(|c| c.starts_with("upgrade-")),
            "{options}: {d:#?}"
        );
    }
}
