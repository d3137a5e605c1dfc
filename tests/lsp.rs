//! Protocol tests of the language server, in process over `tokio::io::duplex` (the way typos-lsp
//! tests its tower-lsp-server backend): every advertised method, configuration changes, version
//! handling, panics, keystroke-by-keystroke typing, a 20 MB document and unknown methods.

use crate::lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const SKILL_URI: &str = "file:///ws/skills/find/SKILL.md";

fn skill() -> String {
    std::fs::read_to_string(fixture("SKILL.md")).unwrap()
}

/// Diagnostics without volatile parts, for snapshots.
fn summary(diags: &[Value]) -> Vec<Value> {
    diags
        .iter()
        .map(|d| {
            json!({
                "range": d["range"],
                "severity": d["severity"],
                "code": d["code"],
                "source": d["source"],
                "message": d["message"],
                "fixes": d["data"]["fixes"],
            })
        })
        .collect()
}

#[tokio::test]
async fn initialize_result_advertises_exactly_what_is_implemented() {
    let mut c = TestClient::in_process();
    let mut result = c
        .initialize(default_options(), default_capabilities(), Value::Null)
        .await;
    result["serverInfo"]["version"] = json!("[version]");
    insta::assert_json_snapshot!("initialize_result", result);
    // No pull diagnostics: a client would call textDocument/diagnostic.
    assert!(result["capabilities"].get("diagnosticProvider").is_none());
}

#[tokio::test]
async fn utf8_is_chosen_when_offered_and_columns_follow_it() {
    let mut c = TestClient::in_process();
    let caps = json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}});
    let r = c.initialize(default_options(), caps, Value::Null).await;
    assert_eq!(r["capabilities"]["positionEncoding"], "utf-8");
    let uri = "file:///ws/a.md";
    c.open(uri, "markdown", 1, "é").await;
    // Insert after the 2-byte character: column 2 in UTF-8.
    c.change(uri, 2, json!([{"range": {"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 2}}, "text": "x"}]))
        .await;
    assert_eq!(c.server_text(uri).await, (2, "éx".to_string()));
}

#[tokio::test]
async fn diagnostics_on_open_change_and_close() {
    let mut c = TestClient::start().await;
    let text = skill();
    c.open(SKILL_URI, "markdown", 1, &text).await;
    let diags = c.diagnostics(SKILL_URI, 1).await;
    insta::assert_json_snapshot!("skill_diagnostics", summary(&diags));
    assert!(diags.iter().all(|d| d["source"] == "netbox-lsp"));

    // A change is analysed again (debounced) and tagged with its version.
    c.change(SKILL_URI, 2, json!([{"text": "nothing to see\n"}]))
        .await;
    assert!(c.diagnostics(SKILL_URI, 2).await.is_empty());

    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": SKILL_URI}}),
    )
    .await;
    let cleared = c
        .notification("textDocument/publishDiagnostics", |p| {
            p["uri"] == SKILL_URI && p.get("version").is_none_or(Value::is_null)
        })
        .await;
    assert_eq!(cleared["diagnostics"], json!([]));
}

async fn labels_at(c: &mut TestClient, uri: &str, lang: &str, src: &str) -> Vec<String> {
    let text = src.replacen('|', "", 1);
    c.open(uri, lang, 1, &text).await;
    let (line, col) = pos_of(src, "|", 0);
    c.completion_labels(uri, line, col).await
}

#[tokio::test]
async fn completion_in_each_context() {
    let mut c = TestClient::start().await;
    // (file, language, text with cursor, must offer, must not offer)
    type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);
    let cases: &[Case] = &[
        (
            "a.py",
            "python",
            "netbox_get_objects(\"|",
            &["dcim.device", "ipam.prefix"],
            &[],
        ),
        (
            "b.py",
            "python",
            "netbox_get_objects(\"dcim.device\", filters={\"ro|",
            &["role_id", "role", "role_id__n"],
            &["device_role_id"],
        ),
        (
            "c.py",
            "python",
            "netbox_get_objects(\"dcim.interface\", filters={\"|",
            &["device_role_id", "device_id"],
            &["role_id"],
        ),
        (
            "d.py",
            "python",
            "netbox_get_objects(\"dcim.device\", filters={\"status\": \"|",
            &["active", "planned", "offline"],
            &["container"],
        ),
        (
            "e.py",
            "python",
            "netbox_get_objects(\"ipam.prefix\", filters={\"status\": \"|",
            &["container", "active"],
            &["planned"],
        ),
        (
            "f.py",
            "python",
            "nb.dcim.devices.filter(site_id=1, |",
            &["role_id", "status"],
            &[],
        ),
        ("g.py", "python", "nb.|", &["dcim", "ipam", "core"], &[]),
        (
            "h.py",
            "python",
            "nb.dcim.|",
            &["devices", "interfaces"],
            &["prefixes"],
        ),
        (
            "i.md",
            "markdown",
            "Call `/api/dcim/devices/?role_id=3&|`",
            &["status", "site_id"],
            &[],
        ),
        (
            "j.md",
            "markdown",
            "Call `/api/dcim/devices/?status=|`",
            &["active"],
            &[],
        ),
        (
            "k.yaml",
            "yaml",
            "tool: netbox_get_objects\nobject_type: dcim.device\nfilters:\n  |",
            &["role_id"],
            &[],
        ),
        ("l.yaml", "yaml", "object_type: |", &["dcim.device"], &[]),
        (
            "m.json",
            "json",
            "{\"name\": \"netbox_get_changelogs\", \"arguments\": {\"filters\": {\"action\": \"|",
            &["create", "update", "delete"],
            &["created"],
        ),
        (
            "n.py",
            "python",
            "netbox_get_changelogs(filters={\"|",
            &["action", "user_id"],
            &[],
        ),
    ];
    for (file, lang, src, want, not) in cases {
        let uri = format!("file:///ws/{file}");
        let got = labels_at(&mut c, &uri, lang, src).await;
        for w in *want {
            assert!(
                got.iter().any(|g| g == w),
                "{src:?}: {w} missing from {got:?}"
            );
        }
        for n in *not {
            assert!(
                !got.iter().any(|g| g == n),
                "{src:?}: {n} offered in {got:?}"
            );
        }
    }
    // Nothing outside a recognised NetBox call.
    for (file, lang, src) in [
        ("x.py", "python", "print(\"|"),
        ("y.py", "python", "requests.get(url, params={\"|"),
        ("z.md", "markdown", "Plain prose: |"),
        ("w.yaml", "yaml", "status: |"),
    ] {
        let uri = format!("file:///ws/{file}");
        assert!(
            labels_at(&mut c, &uri, lang, src).await.is_empty(),
            "{src:?}"
        );
    }
}

#[tokio::test]
async fn completion_items_carry_detail_and_replace_the_typed_part() {
    let mut c = TestClient::start().await;
    let src = "netbox_get_objects(\"dcim.device\", filters={\"sta|\"})";
    let text = src.replacen('|', "", 1);
    c.open("file:///ws/p.py", "python", 1, &text).await;
    let (line, col) = pos_of(src, "|", 0);
    let r = c
        .call(
            "textDocument/completion",
            json!({"textDocument": {"uri": "file:///ws/p.py"}, "position": {"line": line, "character": col}}),
        )
        .await;
    let status = r
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "status")
        .unwrap()
        .clone();
    assert_eq!(status["detail"], "string · multi-value · choices");
    assert_eq!(status["textEdit"]["newText"], "status");
    let start = pos_of(src, "sta|", 0).1;
    assert_eq!(status["textEdit"]["range"]["start"]["character"], start);
    assert_eq!(status["textEdit"]["range"]["end"]["character"], col);
    assert!(status["documentation"]["value"]
        .as_str()
        .unwrap()
        .contains("`planned`"));
}

/// A client that resolves `documentation` lazily gets filter items without it, and
/// `completionItem/resolve` fills in what a client that does not gets with the item.
#[tokio::test]
async fn completion_documentation_is_resolved_lazily_when_the_client_can() {
    let src = "netbox_get_objects(\"dcim.device\", filters={\"sta|\"})";
    let text = src.replacen('|', "", 1);
    let (line, col) = pos_of(src, "|", 0);
    let params = json!({"textDocument": {"uri": "file:///ws/p.py"}, "position": {"line": line, "character": col}});
    let status = |r: &Value| {
        r.as_array()
            .unwrap()
            .iter()
            .find(|i| i["label"] == "status")
            .unwrap()
            .clone()
    };

    let mut eager = TestClient::start().await;
    eager.open("file:///ws/p.py", "python", 1, &text).await;
    let full = status(&eager.call("textDocument/completion", params.clone()).await);
    assert!(full["documentation"]["value"]
        .as_str()
        .unwrap()
        .contains("`planned`"));

    let mut lazy = TestClient::in_process();
    let mut caps = default_capabilities();
    caps["textDocument"]["completion"] = json!({"completionItem": {"resolveSupport": {
        "properties": ["documentation", "detail"]}}});
    let init = lazy.initialize(default_options(), caps, Value::Null).await;
    assert_eq!(
        init["capabilities"]["completionProvider"]["resolveProvider"],
        true
    );
    lazy.open("file:///ws/p.py", "python", 1, &text).await;
    let light = status(&lazy.call("textDocument/completion", params).await);
    assert!(light.get("documentation").is_none(), "{light}");
    assert!(light["data"].is_u64(), "{light}");
    for key in ["label", "kind", "detail", "sortText", "textEdit"] {
        assert_eq!(light[key], full[key], "{key}");
    }
    let resolved = lazy.call("completionItem/resolve", light.clone()).await;
    assert_eq!(resolved["documentation"], full["documentation"]);
    assert_eq!(resolved["label"], full["label"]);
    // An item the server does not know comes back as it was.
    let mut unknown = light;
    unknown["data"] = json!(999_999);
    let back = lazy.call("completionItem/resolve", unknown.clone()).await;
    assert_eq!(back, unknown);
}

/// The server keeps the code blocks of a Markdown document per version (read once for every
/// request on it): an edit inside a block, and one that adds a block before it, change what
/// the next completion offers.
#[tokio::test]
async fn completion_follows_edits_of_a_markdown_document() {
    let mut c = TestClient::start().await;
    let uri = "file:///ws/skills/edit/SKILL.md";
    let src = "# Edit\n\n```python\nnetbox_get_objects(\"dcim.device\", filters={\"|\"})\n```\n";
    let text = src.replacen('|', "", 1);
    c.open(uri, "markdown", 1, &text).await;
    let (line, col) = pos_of(src, "|", 0);
    let devices = c.completion_labels(uri, line, col).await;
    assert!(devices.iter().any(|l| l == "role_id"), "{devices:?}");
    assert!(!devices.iter().any(|l| l == "vrf_id"), "{devices:?}");

    // The object type edited in place: the same position now completes prefix filters.
    let (tl, tc) = pos_of(src, "dcim.device", 0);
    c.change(
        uri,
        2,
        json!([{"range": {"start": {"line": tl, "character": tc}, "end": {"line": tl, "character": tc + 11}}, "text": "ipam.prefix"}]),
    )
    .await;
    let prefixes = c.completion_labels(uri, line, col).await;
    assert!(prefixes.iter().any(|l| l == "vrf_id"), "{prefixes:?}");
    assert!(!prefixes.iter().any(|l| l == "role_id"), "{prefixes:?}");

    // A block added above moves this one down two lines; where it was is now the new block,
    // whose interface filters are offered there.
    c.change(
        uri,
        3,
        json!([{"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "```python\nnetbox_get_objects(\"dcim.interface\", filters={\"\"})\n```\n"}]),
    )
    .await;
    let moved = c.completion_labels(uri, line + 3, col).await;
    assert!(moved.iter().any(|l| l == "vrf_id"), "{moved:?}");
    let added = c.completion_labels(uri, line, col + 3).await;
    assert!(added.iter().any(|l| l == "device_id"), "{added:?}");
    assert!(!added.iter().any(|l| l == "vrf_id"), "{added:?}");
}

#[tokio::test]
async fn completion_inside_graphql_fences() {
    let mut c = TestClient::start().await;
    let got = labels_at(
        &mut c,
        "file:///ws/g.md",
        "markdown",
        "# Q\n\n```graphql\n{ device_list { na| } }\n```\n",
    )
    .await;
    assert!(got.iter().any(|l| l == "name"), "{got:?}");
}

/// A GraphQL fence late in a long Markdown document, or inside a list item or block quote,
/// completes and hovers exactly like the same fence alone (the server extracts only the fence
/// under the cursor; see src/server/graphql_site.rs).
#[tokio::test]
async fn graphql_fences_late_nested_and_quoted_complete_alike() {
    let mut c = TestClient::start().await;
    let body =
        "query Q {\n  device_list(filters: {name: {exact: \"a\"}}) {\n    id\n    na|\n  }\n}\n";
    let alone = format!("# Q\n\n```graphql\n{body}```\n");
    let reference = labels_at(&mut c, "file:///ws/alone.md", "markdown", &alone).await;
    assert!(reference.iter().any(|l| l == "name"), "{reference:?}");
    let mut long = String::from("# Ops\n\n");
    for i in 0..600 {
        long.push_str(&format!(
            "Step {i}:\n\n```python\nnetbox_get_objects(\"dcim.device\", {{\"role_id\": {i}}})\n```\n\n"
        ));
    }
    long.push_str(&format!("```graphql\n{body}```\n"));
    let indent = |p: &str| body.replace('\n', &format!("\n{p}"));
    let cases = [
        ("late.md", long),
        (
            "list.md",
            format!("- First\n- ```graphql\n  {}```\n- Last\n", indent("  ")),
        ),
        (
            "ordered.md",
            format!("1. Run:\n\n   ```graphql\n   {}```\n", indent("   ")),
        ),
        (
            "quote.md",
            format!("> Note:\n>\n> ```graphql\n> {}```\n", indent("> ")),
        ),
    ];
    for (name, src) in cases {
        let uri = format!("file:///ws/{name}");
        let got = labels_at(&mut c, &uri, "markdown", &src).await;
        assert_eq!(got, reference, "{name}");
        let text = src.replacen('|', "", 1);
        let (l, k) = pos_of(&text, "device_list", 2);
        let h = hover_text(&mut c, &uri, l, k).await;
        assert!(h.contains("device_list"), "{name}: {h}");
    }
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

#[tokio::test]
async fn hover_on_filters_and_object_types() {
    let mut c = TestClient::start().await;
    let text = skill();
    c.open(SKILL_URI, "markdown", 1, &text).await;
    let (l, k) = pos_of(&text, "\"status\"", 2);
    let status = hover_text(&mut c, SKILL_URI, l, k).await;
    assert!(
        status.contains("`status` on `/api/dcim/devices/`"),
        "{status}"
    );
    assert!(status.contains("multi-value"), "{status}");
    assert!(status.contains("`decommissioning`"), "{status}");
    assert!(status.contains("NetBox 4.6.8"), "{status}");
    // On a flagged key the editor shows the diagnostic with the hover: the hover must not
    // repeat it (issue 12 §6) but add the endpoint's nearest real filters and their types.
    let diags = c.diagnostics(SKILL_URI, 1).await;
    let diag = diags
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("device_role_id"))
        .expect("a diagnostic on device_role_id");
    let message = diag["message"].as_str().unwrap();
    let (l, k) = pos_of(&text, "device_role_id", 3);
    let unknown = hover_text(&mut c, SKILL_URI, l, k).await;
    assert!(!unknown.contains(message), "{unknown}");
    assert!(!unknown.contains("is not a filter"), "{unknown}");
    assert!(!unknown.contains("unfiltered"), "{unknown}");
    assert!(
        unknown.contains("Nearest filters of `/api/dcim/devices/`"),
        "{unknown}"
    );
    // The fix's filter first, with its type.
    let first = unknown
        .lines()
        .find(|l| l.starts_with("- "))
        .unwrap_or_default();
    assert!(first.starts_with("- `role_id`: "), "{unknown}");
    assert!(first.contains("multi-value"), "{unknown}");
    assert!(unknown.contains("NetBox 4.6.8"), "{unknown}");
    let (l, k) = pos_of(&text, "dcim.device\"", 3);
    let ot = hover_text(&mut c, SKILL_URI, l, k).await;
    assert!(ot.contains("`GET /api/dcim/devices/`"), "{ot}");
    // Query-string keys too.
    let (l, k) = pos_of(&text, "role_id=3", 1);
    let q = hover_text(&mut c, SKILL_URI, l, k).await;
    assert!(q.contains("`role_id` on `/api/dcim/devices/`"), "{q}");
    assert!(q.contains("Lookups: `__n`"), "{q}");
    // GraphQL hover goes to the graphql module.
    let (l, k) = pos_of(&text, "device_list", 2);
    let g = hover_text(&mut c, SKILL_URI, l, k).await;
    assert!(g.contains("device_list"), "{g}");
    // Plain prose: nothing.
    let (l, k) = pos_of(&text, "switches", 2);
    assert_eq!(hover_text(&mut c, SKILL_URI, l, k).await, "");
}

fn apply_edits(text: &str, edits: &[Value]) -> String {
    // Edits in UTF-16 positions; apply from the last to the first.
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let ch = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        let mut off = start;
        for c in text[start..].chars() {
            if units >= ch || c == '\n' {
                break;
            }
            units += c.len_utf16();
            off += c.len_utf8();
        }
        off
    };
    let mut sorted: Vec<&Value> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    let mut out = text.to_string();
    for e in sorted {
        let (s, t) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
        out.replace_range(s..t, e["newText"].as_str().unwrap());
    }
    out
}

#[tokio::test]
async fn code_actions_quick_fix_ignore_and_fix_all() {
    let mut c = TestClient::start().await;
    let text = skill();
    c.open(SKILL_URI, "markdown", 1, &text).await;
    let diags = c.diagnostics(SKILL_URI, 1).await;
    let gql = diags
        .iter()
        .find(|d| d["code"] == "graphql-filter-argument")
        .expect("graphql-filter-argument diagnostic")
        .clone();
    let r = c
        .call(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": SKILL_URI}, "range": gql["range"], "context": {"diagnostics": [gql]}}),
        )
        .await;
    let actions = r.as_array().unwrap();
    let quick: Vec<&Value> = actions
        .iter()
        .filter(|a| a["kind"] == "quickfix" && a["isPreferred"] == true)
        .collect();
    assert_eq!(quick.len(), 1, "{actions:#?}");
    let edits = quick[0]["edit"]["changes"][SKILL_URI].as_array().unwrap();
    let fixed = apply_edits(&text, edits);
    assert!(fixed.contains("device_list(filters: {name"), "{fixed}");

    let ignore = actions
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Ignore `graphql-filter-argument`")
        })
        .expect("ignore action");
    let ignored = apply_edits(
        &text,
        ignore["edit"]["changes"][SKILL_URI].as_array().unwrap(),
    );
    assert!(
        ignored.contains("# netbox-lsp: ignore[graphql-filter-argument]\n{ device_list"),
        "{ignored}"
    );
    // Applying it makes the finding go away.
    c.change(SKILL_URI, 2, json!([{"text": ignored}])).await;
    let after = c.diagnostics(SKILL_URI, 2).await;
    assert!(
        after.iter().all(|d| d["code"] != "graphql-filter-argument"),
        "{after:#?}"
    );

    // Fix-all applies every certain fix at once.
    c.change(SKILL_URI, 3, json!([{"text": text}])).await;
    let before = c.diagnostics(SKILL_URI, 3).await;
    let r = c
        .call(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": SKILL_URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                   "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
        )
        .await;
    let all = r.as_array().unwrap();
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0]["kind"], "source.fixAll.netbox");
    let fixed_all = apply_edits(
        &text,
        all[0]["edit"]["changes"][SKILL_URI].as_array().unwrap(),
    );
    c.change(SKILL_URI, 4, json!([{"text": fixed_all}])).await;
    let remaining = c.diagnostics(SKILL_URI, 4).await;
    let certain = |ds: &[Value]| {
        ds.iter()
            .filter(|d| {
                let fixes = d["data"]["fixes"].as_array().cloned().unwrap_or_default();
                fixes.len() == 1 && fixes[0]["certain"] == true
            })
            .count()
    };
    assert!(certain(&before) >= 1);
    assert_eq!(certain(&remaining), 0, "{remaining:#?}");
}

#[tokio::test]
async fn configuration_changes_apply_without_restart() {
    let mut c = TestClient::start().await;
    let text = skill();
    c.open(SKILL_URI, "markdown", 1, &text).await;
    let first = c.diagnostics(SKILL_URI, 1).await;
    assert!(first.iter().any(|d| d["code"] == "graphql-filter-argument"));

    // workspace/configuration answers with a severity override; the server is told to reload.
    *c.config.lock().unwrap() = json!({"severity": {"graphql-filter-argument": "hint"}});
    c.drain();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    )
    .await;
    let second = c.diagnostics(SKILL_URI, 1).await;
    let d = second
        .iter()
        .find(|d| d["code"] == "graphql-filter-argument")
        .unwrap();
    assert_eq!(d["severity"], 4);

    // `off` drops the code.
    *c.config.lock().unwrap() = json!({"severity": {"graphql-filter-argument": "off"}});
    c.drain();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"netboxLsp": {"severity": {"graphql-filter-argument": "off"}}}}),
    )
    .await;
    let third = c.diagnostics(SKILL_URI, 1).await;
    assert!(
        third.iter().all(|d| d["code"] != "graphql-filter-argument"),
        "{third:#?}"
    );
}

#[tokio::test]
async fn pushed_settings_are_used_by_clients_without_workspace_configuration() {
    let mut c = TestClient::in_process();
    c.initialize(default_options(), json!({}), Value::Null)
        .await;
    let text = skill();
    c.open(SKILL_URI, "markdown", 1, &text).await;
    assert!(c
        .diagnostics(SKILL_URI, 1)
        .await
        .iter()
        .any(|d| d["code"] == "graphql-filter-argument"));
    c.drain();
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"netboxLsp": {"severity": {"graphql-filter-argument": "off"}}}}),
    )
    .await;
    loop {
        let d = c.diagnostics(SKILL_URI, 1).await;
        if d.iter().all(|d| d["code"] != "graphql-filter-argument") {
            break;
        }
    }
}

#[tokio::test]
async fn netbox_lsp_toml_per_folder_and_broken_files() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    let bad = dir.path().join("bad");
    std::fs::create_dir_all(&good).unwrap();
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        good.join("netbox-lsp.toml"),
        "[severity]\ngraphql-filter-argument = \"warning\"\n",
    )
    .unwrap();
    std::fs::write(bad.join("netbox-lsp.toml"), "severity = [1,\n").unwrap();
    let folders = json!([
        {"uri": file_uri(&good), "name": "good"},
        {"uri": file_uri(&bad), "name": "bad"},
    ]);
    let mut c = TestClient::in_process();
    c.initialize(default_options(), default_capabilities(), folders)
        .await;
    let msg = c
        .notification("window/showMessage", |p| {
            p["message"]
                .as_str()
                .unwrap_or_default()
                .contains("netbox-lsp.toml")
        })
        .await;
    assert_eq!(msg["type"], 1, "{msg}");
    assert!(
        msg["message"]
            .as_str()
            .unwrap()
            .contains("using the defaults"),
        "{msg}"
    );

    let text = skill();
    let good_uri = file_uri(&good.join("SKILL.md"));
    let bad_uri = file_uri(&bad.join("SKILL.md"));
    c.open(&good_uri, "markdown", 1, &text).await;
    c.open(&bad_uri, "markdown", 1, &text).await;
    let sev = |ds: Vec<Value>| {
        ds.iter()
            .find(|d| d["code"] == "graphql-filter-argument")
            .map(|d| d["severity"].clone())
    };
    // Diagnostics may be published before and after the folder files are read: wait for the
    // final state.
    loop {
        let g = sev(c.diagnostics(&good_uri, 1).await);
        if g == Some(json!(2)) {
            break;
        }
    }
    assert_eq!(sev(c.diagnostics(&bad_uri, 1).await), Some(json!(1)));

    // Editing the file and telling the server (watched files) applies the change.
    std::fs::write(
        good.join("netbox-lsp.toml"),
        "[severity]\ngraphql-filter-argument = \"off\"\n",
    )
    .unwrap();
    c.drain();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&good.join("netbox-lsp.toml")), "type": 2}]}),
    )
    .await;
    loop {
        if sev(c.diagnostics(&good_uri, 1).await).is_none() {
            break;
        }
    }
}

#[tokio::test]
async fn exclude_globs_silence_files() {
    let mut c = TestClient::in_process();
    let mut opts = default_options();
    opts["exclude"] = json!(["**/drafts/**"]);
    c.initialize(opts, default_capabilities(), Value::Null)
        .await;
    let uri = "file:///ws/drafts/SKILL.md";
    c.open(uri, "markdown", 1, &skill()).await;
    assert!(c.diagnostics(uri, 1).await.is_empty());
}

#[tokio::test]
async fn out_of_order_and_stale_versions_are_ignored() {
    let mut c = TestClient::start().await;
    let uri = "file:///ws/v.md";
    c.open(uri, "markdown", 5, "v5").await;
    c.change(uri, 7, json!([{"text": "v7"}])).await;
    c.change(uri, 6, json!([{"text": "v6"}])).await; // arrives late: ignored
    c.change(uri, 7, json!([{"text": "again"}])).await; // same version: ignored
    assert_eq!(c.server_text(uri).await, (7, "v7".to_string()));
    c.change(uri, 8, json!([{"range": {"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 2}}, "text": "!"}]))
        .await;
    assert_eq!(c.server_text(uri).await, (8, "v7!".to_string()));
    // Only the newest version's diagnostics are published last.
    c.diagnostics(uri, 8).await;
    // A change to a document that is not open is ignored too.
    c.change("file:///ws/never-opened.md", 1, json!([{"text": "x"}]))
        .await;
    assert_eq!(c.server_text(uri).await.0, 8);
}

#[tokio::test]
async fn the_server_keeps_serving_after_a_panic() {
    let mut c = TestClient::start().await;
    let resp = c
        .request("netbox-lsp/debugPanic", json!({"in": "request"}))
        .await;
    assert_eq!(resp["error"]["code"], -32603, "{resp}");
    let log = c
        .notification("window/logMessage", |p| {
            p["message"]
                .as_str()
                .unwrap_or_default()
                .contains("panicked")
        })
        .await;
    assert_eq!(log["type"], 1);

    // A panic inside analysis: logged, empty diagnostics, and the next analysis works.
    c.call("netbox-lsp/debugPanic", json!({"in": "analysis"}))
        .await;
    let text = skill();
    c.open(SKILL_URI, "markdown", 1, &text).await;
    // Whichever analysis run takes the one-shot panic (the one for the open, or the re-check
    // after the configuration answer), it is caught and logged, and the document stays served.
    let log = c
        .notification("window/logMessage", |p| {
            p["message"]
                .as_str()
                .unwrap_or_default()
                .contains("panicked")
        })
        .await;
    assert_eq!(log["type"], 1, "{log}");
    // The next analysis works: a document opened now gets its findings.
    let other = "file:///ws/skills/after-panic/SKILL.md";
    c.open(other, "markdown", 1, &text).await;
    assert!(!c.diagnostics(other, 1).await.is_empty());
    // Requests still work.
    let (l, k) = pos_of(&text, "\"status\"", 2);
    assert!(hover_text(&mut c, SKILL_URI, l, k).await.contains("status"));
}

#[tokio::test]
async fn typing_a_fixture_one_character_at_a_time() {
    let mut c = TestClient::start().await;
    let text = skill();
    let uri = "file:///ws/typed/SKILL.md";
    c.open(uri, "markdown", 0, "").await;
    let (mut line, mut col) = (0u32, 0u32);
    let mut version = 0;
    for ch in text.chars() {
        version += 1;
        let pos = json!({"line": line, "character": col});
        c.change(
            uri,
            version,
            json!([{"range": {"start": pos, "end": pos}, "text": ch.to_string()}]),
        )
        .await;
        if ch == '\n' {
            line += 1;
            col = 0;
        } else {
            col += ch.len_utf16() as u32;
        }
        // Ask for completions now and then on the half-typed text: never an error.
        if version % 7 == 0 {
            c.call(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}),
            )
            .await;
        }
    }
    assert_eq!(c.server_text(uri).await, (version, text.clone()));
    let typed = c.diagnostics(uri, version).await;
    c.open(SKILL_URI, "markdown", 1, &text).await;
    let opened = c.diagnostics(SKILL_URI, 1).await;
    assert_eq!(summary(&typed), summary(&opened));
}

#[tokio::test]
async fn a_20_mb_document_is_handled() {
    let mut c = TestClient::start().await;
    // 20 MB of prose around one skill: one document, a few sites.
    let prose = "Devices are racked per site; ask before changing anything in production.\n";
    let mut big = String::with_capacity(21 << 20);
    big.push_str(&skill());
    while big.len() < 20 << 20 {
        big.push_str(prose);
    }
    big.push_str(&skill());
    let uri = "file:///ws/big.md";
    c.open(uri, "markdown", 1, &big).await;
    c.diagnostics(uri, 1).await;
    // Still answering, at the end of the document.
    let lines = big.matches('\n').count() as u32;
    c.call(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": lines - 1, "character": 5}}),
    )
    .await;
}

#[tokio::test]
async fn unknown_methods_and_bad_input_do_not_take_the_server_down() {
    let mut c = TestClient::start().await;
    let r = c.request("netbox-lsp/noSuchMethod", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    c.notify("$/noSuchNotification", json!({})).await;
    c.notify("custom/noSuchNotification", json!({})).await;
    // Invalid UTF-8 inside a message body, then malformed JSON.
    let mut body = br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/u.md","languageId":"markdown","version":1,"text":""#.to_vec();
    body.extend_from_slice(&[0xff, 0xfe, b'x']);
    body.extend_from_slice(br#""}}}"#);
    c.send_raw(&frame(&body)).await;
    c.send_raw(&frame(b"{not json")).await;
    let (_, repaired) = c.server_text("file:///ws/u.md").await;
    assert_eq!(repaired, "\u{fffd}\u{fffd}x");
    // Requests about documents that are not open.
    let r = c
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///ws/none.md"}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    assert_eq!(r, Value::Null);
    // Positions past the end are clamped.
    c.open("file:///ws/s.md", "markdown", 1, "short").await;
    c.call(
        "textDocument/completion",
        json!({"textDocument": {"uri": "file:///ws/s.md"}, "position": {"line": 99, "character": 99}}),
    )
    .await;
    let r = c.call("shutdown", Value::Null).await;
    assert_eq!(r, Value::Null);
}

#[tokio::test]
async fn json_that_is_not_a_jsonrpc_message_does_not_end_the_session() {
    let mut c = TestClient::start().await;
    // (body, the id answered with -32600, if any)
    let cases: &[(&str, Option<Value>)] = &[
        ("{}", None),
        ("null", None),
        ("[1,2,3]", None),
        ("\"str\"", None),
        (
            r#"{"jsonrpc":"1.0","id":9,"method":"shutdown"}"#,
            Some(json!(9)),
        ),
        (r#"{"jsonrpc":"2.0","id":"s","method":5}"#, Some(json!("s"))),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover","params":{}}"#,
            None,
        ),
    ];
    for (body, id) in cases {
        c.send_raw(&frame(body.as_bytes())).await;
        if let Some(id) = id {
            let id = id.clone();
            let r = c
                .wait_for(move |m| m.get("id") == Some(&id) && m.get("method").is_none())
                .await;
            assert_eq!(r["error"]["code"], -32600, "{body}: {r}");
        }
        // The server still answers a normal request after each one.
        let r = c
            .call(
                "textDocument/hover",
                json!({"textDocument": {"uri": "file:///ws/none.md"}, "position": {"line": 0, "character": 0}}),
            )
            .await;
        assert_eq!(r, Value::Null, "after {body}");
    }
    // `shutdown` with version 1.0 was not taken as a shutdown.
    c.open("file:///ws/after.md", "markdown", 1, "still here")
        .await;
    assert_eq!(
        c.server_text("file:///ws/after.md").await,
        (1, "still here".to_string())
    );
}

/// A bad value in any settings layer drops only itself: the user is told with a warning
/// (window/showMessage) and the other keys apply. (layer, settings, message substrings, file,
/// the severity then expected for `graphql-filter-argument`, None = no diagnostic)
#[tokio::test]
async fn bad_setting_values_are_shown_and_the_rest_applies() {
    type Case<'a> = (&'a str, Value, &'a [&'a str], &'a str, Option<i64>);
    let cases: Vec<Case> = vec![
        (
            "init",
            json!({"netbox_version": "4.3", "severity": {"unknown-filter": "loud", "graphql-filter-argument": "hint"}}),
            &["initializationOptions: `severity.unknown-filter` must be one of", "\"loud\"", "ignored"],
            "SKILL.md",
            Some(4),
        ),
        (
            "init",
            json!({"exclude": ["[", "**/drafts/**"]}),
            &["invalid glob `[`"],
            "drafts/SKILL.md",
            None,
        ),
        (
            "init",
            json!({"exclude": "notalist", "severity": {"graphql-filter-argument": "warning"}}),
            &["`exclude` should be a list of globs", "[\"notalist\"]"],
            "SKILL.md",
            Some(2),
        ),
        (
            "init",
            json!({"severity": {"graphql_filter_argument": "off"}}),
            &["unknown code `graphql_filter_argument` (did you mean `graphql-filter-argument`?)"],
            "SKILL.md",
            Some(1),
        ),
        (
            "workspace/configuration",
            json!({"exclude": 3, "severity": {"graphql-filter-argument": "hint"}}),
            &["netboxLsp: `exclude` must be a list of globs, found 3"],
            "SKILL.md",
            Some(4),
        ),
        (
            "netbox-lsp.toml",
            json!("exclude = [\"[\", \"drafts/**\"]\n[severity]\nunknown-filter = \"loud\"\ngraphql-filter-argument = \"warning\"\n"),
            &["netbox-lsp.toml: `severity.unknown-filter` must be one of", "invalid glob `[`"],
            "SKILL.md",
            Some(2),
        ),
    ];
    for (layer, settings, messages, file, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = TestClient::in_process();
        let mut options = default_options();
        let mut folders = Value::Null;
        match layer {
            "init" => {
                for (k, v) in settings.as_object().unwrap() {
                    options[k] = v.clone();
                }
            }
            "workspace/configuration" => *c.config.lock().unwrap() = settings.clone(),
            _ => {
                std::fs::write(
                    dir.path().join("netbox-lsp.toml"),
                    settings.as_str().unwrap(),
                )
                .unwrap();
                folders = json!([{"uri": file_uri(dir.path()), "name": "ws"}]);
            }
        }
        c.initialize(options, default_capabilities(), folders).await;
        // Each substring in some window/showMessage warning (one message may hold several).
        let mut shown: Vec<Value> = Vec::new();
        for m in messages {
            while !shown
                .iter()
                .any(|p| p["message"].as_str().unwrap_or_default().contains(m))
            {
                let p = c.notification("window/showMessage", |_| true).await;
                assert_eq!(p["type"], 2, "{layer} {settings}: {p}");
                shown.push(p);
            }
        }
        let uri = file_uri(&dir.path().join(file));
        c.open(&uri, "markdown", 1, &skill()).await;
        // Diagnostics may be published before and after the settings are pulled: wait for the
        // expected state (the harness times out otherwise).
        loop {
            let d = c.diagnostics(&uri, 1).await;
            let sev = d
                .iter()
                .find(|d| d["code"] == "graphql-filter-argument")
                .and_then(|d| d["severity"].as_i64());
            if sev == want && (want.is_some() || d.is_empty()) {
                break;
            }
        }
    }
}

/// Issue 18 in the editor: the sentence above a fence decides whether its code is a call or a
/// lesson; an edit to that sentence alone (the fence's code unchanged, so its block cache entry
/// is keyed on the surroundings too) flips it from call to lesson and back; hover on the lesson
/// says why it was not checked.
#[tokio::test]
async fn the_sentence_above_a_fence_makes_it_a_call_or_a_lesson() {
    let mut c = TestClient::in_process();
    c.initialize(Value::Null, default_capabilities(), Value::Null)
        .await;
    let uri = "file:///ws/lesson/SKILL.md";
    let text = "# NetBox skill\n\nLeaf switches:\n\n```python\nnb.dcim.devices.filter(device_role=\"leaf\")\n```\n\n```python\nnb.dcim.devices.filter(site_id__in=[4, 5])\n```\n";
    let codes = |d: &[Value]| {
        d.iter()
            .map(|x| x["code"].as_str().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    c.open(uri, "markdown", 1, text).await;
    let first = c.diagnostics(uri, 1).await;
    assert_eq!(codes(&first), ["unknown-filter", "unsupported-lookup"]);
    let (line, col) = pos_of(text, "Leaf switches", 0);
    let lead = |from: u32, to: u32, new: &str| json!([{"range": {"start": {"line": line, "character": from}, "end": {"line": line, "character": to}}, "text": new}]);
    // "Leaf switches:" → "Wrong:": the first fence is a lesson, the second still a call.
    c.change(uri, 2, lead(col, col + 13, "Wrong")).await;
    let lesson = c.diagnostics(uri, 2).await;
    assert_eq!(codes(&lesson), ["unsupported-lookup"]);
    let (cl, cc) = pos_of(text, "device_role", 0);
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": cl, "character": cc}}),
        )
        .await;
    let shown = hover["result"]["contents"]["value"].as_str().unwrap_or("");
    assert!(
        shown.contains("Not checked") && shown.contains("“Wrong” above it (line 3)"),
        "{hover}"
    );
    // And back: the same code is a call again.
    c.change(uri, 3, lead(col, col + 5, "Leaf switches")).await;
    let again = c.diagnostics(uri, 3).await;
    assert_eq!(codes(&again), codes(&first));
}

/// `s` as a JSON string's inside; with `ascii`, every non-ASCII character as `\uXXXX` (UTF-16
/// escapes, a surrogate pair for astral ones), as `json.dump` writes by default.
fn json_inside(s: &str, ascii: bool) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Byte offset of LSP position (`line`, UTF-16 `character`) in `text`.
fn byte_at(text: &str, line: u64, character: u64) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line as usize)
        .map(str::len)
        .sum();
    let mut units = 0;
    for (i, ch) in text[start..].char_indices() {
        if units >= character as usize {
            return start + i;
        }
        units += ch.len_utf16();
    }
    text.len()
}

/// Completion in a notebook cell whose JSON string holds escapes before the cursor on the
/// same line (`\"`, `\\n`, `\u00e9`, surrogate pairs, `\t`, `\\\\`): each case of
/// `tests/fixtures/notebook/completion-escapes.jsonl`, in a cell written as one string or as a
/// list of lines, with non-ASCII escaped or not. Every item's edit is on the cursor's line and
/// covers the cursor (UTF-16 units of the notebook's own text), and applying the expected item
/// gives a valid notebook whose cell reads as the case's `after`.
#[tokio::test]
async fn notebook_completion_edits_cover_the_cursor_inside_json_escapes() {
    let cases = std::fs::read_to_string(fixture("../notebook/completion-escapes.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut c = TestClient::start().await;
    let head = "import pynetbox\nnb = pynetbox.api('https://x')\n";
    let mut version = 0;
    let mut tried = 0;
    for case in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(case).unwrap();
        let line = case["line"].as_str().unwrap();
        // `shift`: bytes to move the cursor in the JSON text (into an escape); `none`: no
        // completion is expected there.
        let shift = case["shift"].as_i64().unwrap_or(0);
        let none = case["none"].as_bool().unwrap_or(false);
        let (before_cursor, after_cursor) = line.split_once('‸').unwrap();
        for (ascii, as_lines) in [(true, true), (true, false), (false, true), (false, false)] {
            if !ascii && case["ascii_only"] == true {
                continue;
            }
            let source = format!("{head}{before_cursor}{after_cursor}\n");
            // The cell's JSON, and the cursor's byte offset in it.
            let (json_source, cursor_in_source) = if as_lines {
                let lines: Vec<String> = source
                    .split_inclusive('\n')
                    .map(|l| format!("\"{}\"", json_inside(l, ascii)))
                    .collect();
                let last = lines.len() - 1;
                let at = json_inside(before_cursor, ascii).len() + 1;
                let joined_before: usize = lines[..last]
                    .iter()
                    .map(|l| l.len() + ",\n    ".len())
                    .sum();
                (
                    format!("[\n    {}\n   ]", lines.join(",\n    ")),
                    6 + joined_before + at,
                )
            } else {
                let at = json_inside(&format!("{head}{before_cursor}"), ascii).len() + 1;
                (format!("\"{}\"", json_inside(&source, ascii)), at)
            };
            let prefix = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": ";
            let text = format!(
                "{prefix}{json_source}\n  }}\n ],\n \"metadata\": {{\"kernelspec\": {{\"language\": \"python\", \"name\": \"python3\"}}}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}}\n"
            );
            serde_json::from_str::<Value>(&text).expect("the notebook is JSON");
            let cursor = (prefix.len() + cursor_in_source).saturating_add_signed(shift as isize);
            let cursor_line = text[..cursor].matches('\n').count() as u64;
            let line_start = text[..cursor].rfind('\n').map_or(0, |i| i + 1);
            let cursor_char: usize = text[line_start..cursor].chars().map(char::len_utf16).sum();
            version += 1;
            let uri = file_uri(&dir.path().join(format!("c{version}.ipynb")));
            c.open(&uri, "jupyter", 1, &text).await;
            let r = c
                .call(
                    "textDocument/completion",
                    json!({"textDocument": {"uri": uri},
                           "position": {"line": cursor_line, "character": cursor_char}}),
                )
                .await;
            let items = r.as_array().cloned().unwrap_or_default();
            let what = format!("{} (ascii {ascii}, lines {as_lines})", case["why"]);
            tried += 1;
            if none {
                assert!(items.is_empty(), "{what}: {items:?}");
                continue;
            }
            assert!(!items.is_empty(), "{what}: no completion");
            let (label, after) = (
                case["label"].as_str().unwrap(),
                case["after"].as_str().unwrap(),
            );
            for item in &items {
                let range = &item["textEdit"]["range"];
                let (s, e) = (&range["start"], &range["end"]);
                assert!(
                    s["line"] == cursor_line
                        && e["line"] == cursor_line
                        && s["character"].as_u64().unwrap() <= cursor_char as u64
                        && e["character"].as_u64().unwrap() >= cursor_char as u64,
                    "{what}: {item} does not cover the cursor at {cursor_line}:{cursor_char}"
                );
            }
            let item = items
                .iter()
                .find(|i| i["label"] == label)
                .unwrap_or_else(|| panic!("{what}: no {label} in {items:?}"));
            let edit = &item["textEdit"];
            let range = &edit["range"];
            let at = |p: &Value| {
                byte_at(
                    &text,
                    p["line"].as_u64().unwrap(),
                    p["character"].as_u64().unwrap(),
                )
            };
            let mut edited = text.clone();
            edited.replace_range(
                at(&range["start"])..at(&range["end"]),
                edit["newText"].as_str().unwrap(),
            );
            let nb: Value = serde_json::from_str(&edited)
                .unwrap_or_else(|e| panic!("{what}: not JSON after the edit ({e}): {edited}"));
            let cell = &nb["cells"][0]["source"];
            let cell = match cell.as_array() {
                Some(lines) => lines.iter().map(|l| l.as_str().unwrap()).collect(),
                None => cell.as_str().unwrap().to_string(),
            };
            assert_eq!(cell, format!("{head}{after}\n"), "{what}");
            c.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        }
    }
    assert_eq!(tried, 34);
}

/// A document above the editor's size limit (a generated `.py` of 2.1 MiB): the part before
/// the limit is checked (its misspelled filter is reported), the rest is not (the misspelled
/// filter after it is not), and a `not-checked` diagnostic at its first line names the size
/// and the part checked.
#[tokio::test]
async fn a_document_above_the_editor_limit_is_checked_in_part_and_says_so() {
    let limit = netbox_lsp::server::diagnostics::EDITOR_MAX_BYTES;
    let call = |n: usize| format!("nb.dcim.devices.filter(nmae=\"d{n}\")\n");
    let mut text = String::from("import pynetbox\nnb = pynetbox.api('https://x')\n");
    text += &call(1);
    while text.len() < limit + 100_000 {
        text += "# padding of a generated file, one comment line after another\n";
    }
    text += &call(2);
    let mut c = TestClient::start().await;
    let uri = "file:///tmp/big/calls.py";
    c.open(uri, "python", 1, &text).await;
    let diags = c.diagnostics(uri, 1).await;
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["not-checked", "unknown-filter"], "{diags:?}");
    let msg = diags[0]["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("{} bytes", text.len()))
            && msg.contains("first")
            && msg.contains("netbox-lsp check"),
        "{msg}"
    );
    assert_eq!(diags[0]["range"]["start"]["line"], 0);
    assert_eq!(diags[1]["range"]["start"]["line"], 2);
}

/// Issue 30 §1 through the real server: a filter written away from its call (a helper's keyword
/// argument, read through the helper's body; a key set on a dict below its binding) gets its
/// diagnostic on the literal, completion of filter names and hover there.
#[tokio::test]
async fn filters_written_away_from_their_call_get_diagnostics_completion_and_hover() {
    let mut c = TestClient::start().await;
    let uri = "file:///work/values.py";
    let text = "import requests\nNB = \"https://netbox.example.com\"\n\ndef search(endpoint, **filters):\n    return requests.get(f\"{NB}/api/{endpoint}/\", params=filters)\n\nsearch(\"dcim/devices\", device_role=\"leaf\", status=\"active\")\n\nparams = {}\nparams[\"vrf_name\"] = \"blue\"\nrequests.get(NB + \"/api/ipam/prefixes/\", params=params)\n";
    c.open(uri, "python", 1, text).await;
    let diags = c.diagnostics(uri, 1).await;
    for (needle, code) in [
        ("device_role", "unknown-filter"),
        ("vrf_name", "unknown-filter"),
    ] {
        let (l, k) = pos_of(text, needle, 0);
        assert!(
            diags.iter().any(|d| d["code"] == code
                && d["range"]["start"]["line"] == l
                && d["range"]["start"]["character"] == k),
            "{needle}: {diags:#?}"
        );
    }
    let (l, k) = pos_of(text, "device_role", 2);
    let h = hover_text(&mut c, uri, l, k).await;
    assert!(h.contains("Nearest filters of `/api/dcim/devices/`"), "{h}");
    let labels = labels_at(
        &mut c,
        "file:///work/values2.py",
        "python",
        &text.replace("status=\"active\"", "sta|tus=\"active\""),
    )
    .await;
    assert!(labels.iter().any(|l| l == "status"), "{labels:?}");
    let labels = labels_at(
        &mut c,
        "file:///work/values3.py",
        "python",
        &text.replace("[\"vrf_name\"]", "[\"vr|f_id\"]"),
    )
    .await;
    assert!(labels.iter().any(|l| l == "vrf_id"), "{labels:?}");
}
