//! Completion and hover with an index built from the customised NetBox 4.6.8
//! (`tests/fixtures/instance/`, issue 10 §2 and §7): the netbox-bgp plugin's endpoints, object
//! types, pynetbox path and GraphQL types are completed and explained like NetBox's own, with the
//! plugin's own conventions (its `site` filter takes the site name, `remote_as` is an AS number on
//! sessions but an object id on peer groups, its GraphQL lists have no `pagination` and its enums
//! are bare `ACTIVE`); custom fields complete with their names and choice values.

use crate::lsp_harness;

use lsp_harness::*;
use netbox_lsp::instance::{build, Inputs};
use serde_json::{json, Value};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/instance")
            .join(name),
    )
    .unwrap()
}

async fn hover(c: &mut TestClient, uri: &str, text: &str, needle: &str, delta: usize) -> String {
    let (line, ch) = pos_of(text, needle, delta);
    let h = c
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": ch}}),
        )
        .await;
    h["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn labels(
    c: &mut TestClient,
    text: &str,
    uri: &str,
    needle: &str,
    delta: usize,
) -> Vec<String> {
    let (line, ch) = pos_of(text, needle, delta);
    c.completion_labels(uri, line, ch).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugin_and_custom_field_completion_and_hover() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = Inputs {
        status: Some(read("status.json.gz")),
        openapi: read("openapi.json.gz"),
        graphql: Some(read("graphql-introspection.json.gz")),
        custom_fields: vec![read("custom-fields.json.gz")],
        choice_sets: vec![read("custom-field-choice-sets.json.gz")],
    };
    let built = build(&inputs, "", &Default::default()).unwrap();
    let index = dir.path().join("netbox.index.json.gz");
    let schema = dir.path().join("netbox.schema.graphql");
    std::fs::write(&index, netbox_lsp::index::load::write_index(&built.index)).unwrap();
    std::fs::write(&schema, built.sdl.unwrap()).unwrap();
    let mut c = TestClient::in_process();
    c.initialize(
        json!({"index": index.display().to_string(), "graphql_schema": schema.display().to_string()}),
        default_capabilities(),
        Value::Null,
    )
    .await;

    // REST: pynetbox plugin path, MCP object type, URL.
    let py = "import pynetbox\nnb = pynetbox.api('https://x')\nnb.plugins.bgp.session.filter(stat)\nnb.plugins.bgp.session.filter(status=\"\")\nnetbox_get_objects(\"netbox_bgp.\", filters={})\nnetbox_get_objects(\"netbox_bgp.bgpsession\", filters={\"site\": \"DM-Akron\"})\nnb.dcim.devices.filter(cf_lifecycle=\"\")\nrequests.get(f\"{NB}/api/plugins/bgp/session/?remote_as=65002\")\nrequests.get(f\"{NB}/api/plugins/bgp/peer-group/?remote_as=2\")\n";
    let uri = file_uri(&dir.path().join("skill.py"));
    c.open(&uri, "python", 1, py).await;
    let l = labels(&mut c, py, &uri, "stat)", 4).await;
    assert!(l.iter().any(|l| l == "status"), "{l:?}");
    let l = labels(&mut c, py, &uri, "status=\"\"", 8).await;
    assert!(l.iter().any(|l| l == "active"), "{l:?}");
    assert!(!l.iter().any(|l| l == "maintenance"), "{l:?}");
    let l = labels(&mut c, py, &uri, "\"netbox_bgp.\"", 12).await;
    assert!(l.iter().any(|l| l == "netbox_bgp.bgpsession"), "{l:?}");
    let h = hover(&mut c, &uri, py, "netbox_bgp.bgpsession", 3).await;
    assert!(h.contains("plugins/bgp/"), "{h}");
    // The plugin's `site` filter takes the name (the OpenAPI says so; core `site` takes slugs).
    let h = hover(&mut c, &uri, py, "\"site\"", 2).await;
    assert!(h.contains("(name)"), "{h}");
    // `remote_as`: an AS number on sessions, an object id on peer groups.
    let h = hover(&mut c, &uri, py, "session/?remote_as", 10).await;
    assert!(h.contains("Remote AS (Number)"), "{h}");
    let h = hover(&mut c, &uri, py, "peer-group/?remote_as", 13).await;
    assert!(h.contains("integer") && !h.contains("Number"), "{h}");
    // Custom field choice values; FIELD_CHOICES' device status `maintenance` is a choice.
    let l = labels(&mut c, py, &uri, "cf_lifecycle=\"\"", 14).await;
    assert_eq!(l, ["active", "eol", "retired"], "{l:?}");

    // GraphQL: the plugin's list takes `filters` but no `pagination`; its enum is bare.
    let gql = "{ netbox_bgp_session_list( ) { id } }\n{ netbox_bgp_session_list(filters: {status: }) { id } }\n";
    let guri = file_uri(&dir.path().join("q.graphql"));
    c.open(&guri, "graphql", 1, gql).await;
    let l = labels(&mut c, gql, &guri, "_list( )", 6).await;
    assert!(l.iter().any(|l| l == "filters"), "{l:?}");
    assert!(!l.iter().any(|l| l == "pagination"), "{l:?}");
    let l = labels(&mut c, gql, &guri, "status: }", 8).await;
    assert!(l.iter().any(|l| l == "ACTIVE"), "{l:?}");
    assert!(!l.iter().any(|l| l.starts_with("STATUS_")), "{l:?}");
    let h = hover(&mut c, &guri, gql, "netbox_bgp_session_list", 3).await;
    assert!(h.contains("BGPSession"), "{h}");
}

/// Issue 10 §5 in the editor: a release newer than the shipped ones (`4.8.2`), or a patch older
/// than the shipped one of its minor (`4.6.0`, `4.7.1`), is checked with the closest shipped release; the
/// user is told once, findings a newer release may have made valid are warnings, and the note
/// points to `index build --url`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releases_not_shipped_are_said_once_and_soften_errors() {
    let doc = "GET /api/dcim/devices/?statuss=active\n";
    for (version, side) in [
        ("4.8.2", "older than 4.8.2"),
        ("4.6.0", "newer than 4.6.0"),
        ("4.7.1", "newer than 4.7.1"),
    ] {
        let mut c = TestClient::in_process();
        c.initialize(
            json!({"netbox_version": version}),
            default_capabilities(),
            Value::Null,
        )
        .await;
        let dir = tempfile::tempdir().unwrap();
        for (i, name) in ["a.md", "b.md"].iter().enumerate() {
            let uri = file_uri(&dir.path().join(name));
            c.open(&uri, "markdown", 1, doc).await;
            let d = c.diagnostics(&uri, 1).await;
            assert_eq!(d.len(), 1, "{d:?}");
            assert_eq!(d[0]["code"], "unknown-filter");
            assert_eq!(d[0]["severity"], 2, "a warning, not an error: {d:?}");
            assert!(
                !d[0]["message"].as_str().unwrap().contains("not shipped"),
                "the note is not repeated per finding: {d:?}"
            );
            if i == 0 {
                let note = c
                    .notification("window/showMessage", |p| {
                        p["message"]
                            .as_str()
                            .is_some_and(|m| m.contains("not shipped"))
                    })
                    .await;
                let m = note["message"].as_str().unwrap();
                assert!(m.contains(side) && m.contains("index build --url"), "{m}");
            }
        }
        let again = tokio::time::timeout(
            std::time::Duration::from_millis(700),
            c.notification("window/showMessage", |p| {
                p["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("not shipped"))
            }),
        )
        .await;
        assert!(again.is_err(), "the note is shown once: {again:?}");
    }
}
