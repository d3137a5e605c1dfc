//! Protocol tests of the Ansible, curl and template forms (issue 11 §2): diagnostics, completion
//! of filter names and choice values, and hover, through the real server in process.

use crate::lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

async fn labels_at(c: &mut TestClient, uri: &str, lang: &str, src: &str) -> Vec<String> {
    let text = src.replacen('|', "", 1);
    c.open(uri, lang, 1, &text).await;
    let (line, col) = pos_of(src, "|", 0);
    c.completion_labels(uri, line, col).await
}

async fn hover_text(c: &mut TestClient, uri: &str, line: u32, col: u32) -> String {
    let r = c
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}),
        )
        .await;
    r["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A server on the embedded default knowledge (NetBox 4.6.8): the forms need endpoints the
/// harness's mini index does not have.
async fn embedded() -> TestClient {
    let mut c = TestClient::in_process();
    c.initialize(json!({}), default_capabilities(), Value::Null)
        .await;
    c
}

#[tokio::test]
async fn completion_in_ansible_and_curl_forms() {
    let mut c = embedded().await;
    type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);
    let cases: &[Case] = &[
        (
            "file:///ws/play.yml",
            "yaml",
            "msg: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='site=dc1 ro|') }}\"\n",
            &["role", "role_id"],
            &["device_role_id"],
        ),
        (
            "file:///ws/play2.yml",
            "yaml",
            "msg: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='status=pl|') }}\"\n",
            &["planned", "active"],
            &[],
        ),
        (
            "file:///ws/switch.j2",
            "jinja",
            "{% for i in query('netbox.netbox.nb_lookup', 'virtualization-interfaces', api_filter='virtual_m|') %}{% endfor %}\n",
            &["virtual_machine", "virtual_machine_id"],
            &["device_id"],
        ),
        (
            "file:///ws/inv.yml",
            "yaml",
            "plugin: netbox.netbox.nb_inventory\nvm_query_filters:\n  - clus|: 4\n",
            &["cluster_id", "cluster"],
            &[],
        ),
        (
            "file:///ws/q.sh",
            "shellscript",
            "curl -G \"$NB/api/dcim/devices/\" -d ro|\n",
            &["role", "role_id"],
            &[],
        ),
    ];
    for (uri, lang, src, want, not) in cases {
        let labels = labels_at(&mut c, uri, lang, src).await;
        for w in *want {
            assert!(labels.iter().any(|l| l == w), "{src}: no {w} in {labels:?}");
        }
        for n in *not {
            assert!(!labels.iter().any(|l| l == n), "{src}: unexpected {n}");
        }
    }
}

#[tokio::test]
async fn diagnostics_and_hover_in_ansible_curl_and_templates() {
    let mut c = embedded().await;
    let uri = "file:///ws/netbox_inventory.yml";
    let text = "plugin: netbox.netbox.nb_inventory\nquery_filters:\n  - rack_id: 12\n  - tag: a\n  - tag: b\n";
    c.open(uri, "yaml", 1, text).await;
    let diags = c.diagnostics(uri, 1).await;
    let codes: Vec<&str> = diags.iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(
        codes,
        ["inventory-filter-scope", "tag-match-all"],
        "{diags:?}"
    );
    // Hover on a tag key says the values are ANDed.
    let (l, k) = pos_of(text, "tag: a", 1);
    let h = hover_text(&mut c, uri, l, k).await;
    assert!(h.contains("ALL of them"), "{h}");

    let uri = "file:///ws/q.sh";
    let text = "curl -sG \"$NB/api/dcim/devices/\" -d device_role_id=3 -d status=active\n";
    c.open(uri, "shellscript", 1, text).await;
    let diags = c.diagnostics(uri, 1).await;
    let codes: Vec<&str> = diags.iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(codes, ["unknown-filter"], "{diags:?}");
    let (l, k) = pos_of(text, "status", 1);
    let h = hover_text(&mut c, uri, l, k).await;
    assert!(h.contains("status"), "{h}");

    let uri = "file:///ws/prompt.j2";
    let text = "Find devices: GET /api/dcim/devices/?site={{ site }}&status={{ status }}\n";
    c.open(uri, "jinja", 1, text).await;
    let diags: Vec<Value> = c.diagnostics(uri, 1).await;
    assert!(diags.is_empty(), "{diags:?}");
}

/// With knowledge that lacks one of the two endpoints (the harness's mini index has devices,
/// not virtual machines), `query_filters` get the devices endpoint's findings and no
/// `inventory-filter-scope`: nothing is known about the other endpoint.
#[tokio::test]
async fn query_filters_with_a_partial_index_claim_no_scope() {
    let mut c = TestClient::start().await;
    let uri = "file:///ws/inv.yml";
    let text = "plugin: netbox.netbox.nb_inventory\nquery_filters:\n  - status: active\n  - device_role_id: 3\n";
    c.open(uri, "yaml", 1, text).await;
    let diags = c.diagnostics(uri, 1).await;
    let codes: Vec<&str> = diags.iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(codes, ["unknown-filter"], "{diags:?}");
}
