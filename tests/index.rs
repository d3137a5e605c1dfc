//! The filter index: building from OpenAPI, loading index files, version selection, and the
//! shipped (embedded) indexes.

use netbox_lsp::index::build::{
    build_from_openapi, build_with_options, build_with_report, singularise, BuildError,
    BuildOptions, IRREGULAR,
};
use netbox_lsp::index::embedded::{self, select, RELEASES};
use netbox_lsp::index::load::{load_index, write_index, IndexError};
use netbox_lsp::index::{FilterIndex, ValueKind, FORMAT_VERSION};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(manifest().join("tests/fixtures").join(name)).unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn choice_values(index: &FilterIndex, endpoint: &str, param: &str) -> Vec<(String, String)> {
    let p = &index.endpoints[endpoint].params[param];
    index
        .choices(p)
        .map(|c| c.choices.clone())
        .unwrap_or_default()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

// ---------------------------------------------------------------- build from the fixture

#[test]
fn fixture_endpoints_and_object_types() {
    let raw = fixture("openapi/mini.json");
    let (index, report) = build_with_report(&raw).unwrap();
    assert_eq!(index.format, FORMAT_VERSION);
    assert_eq!(index.netbox_version, "9.1.2");
    let sha: String = Sha256::digest(&raw)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(index.source_sha256, sha);
    assert!(!index.from_instance);

    let keys: Vec<&str> = index.endpoints.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "dcim/devices",
            "dcim/virtual-chassis",
            "extras/dashboard",
            "ipam/ip-addresses",
            "plugins/bgp/bgp-sessions",
            "virtualization/interfaces"
        ]
    );
    let types: Vec<(&str, &str)> = index
        .object_types
        .iter()
        .map(|(t, e)| (t.as_str(), e.as_str()))
        .collect();
    assert_eq!(
        types,
        [
            ("bgp.bgpsession", "plugins/bgp/bgp-sessions"),
            ("dcim.device", "dcim/devices"),
            ("dcim.virtualchassis", "dcim/virtual-chassis"),
            ("ipam.ipaddress", "ipam/ip-addresses"),
            ("virtualization.vminterface", "virtualization/interfaces"),
        ]
    );
    assert_eq!(index.endpoints["extras/dashboard"].object_type, None);
    assert_eq!(
        index.resolve("dcim.device").map(|r| r.0),
        Some("dcim/devices")
    );
    assert_eq!(
        index.resolve("/api/plugins/bgp/bgp-sessions/").map(|r| r.0),
        Some("plugins/bgp/bgp-sessions")
    );

    // Enum ids: 8 on indexed parameters; `face` resolves by its inline enum, `type` not at all.
    // Document-wide also the detail path's `face`; components hold 4 of the ids (6 uses).
    assert_eq!(report.enum_ids, 8);
    assert_eq!(report.enum_ids_resolved, 7);
    assert_eq!(report.unresolved, vec!["dcim/devices type".to_string()]);
    assert_eq!(report.document_enum_ids, 9);
    assert_eq!(report.document_enum_ids_in_components, 6);
}

#[test]
fn fixture_parameters() {
    let index = build_from_openapi(&fixture("openapi/mini.json")).unwrap();
    let dev = &index.endpoints["dcim/devices"].params;
    let names: Vec<&str> = dev.keys().collect();
    assert_eq!(
        names,
        [
            "airflow",
            "created",
            "face",
            "id",
            "last_updated",
            "limit",
            "q",
            "role_id",
            "serial__empty",
            "status",
            "type",
            "uuid",
            "weight"
        ]
    );
    let kind = |n: &str| (dev[n].kind, dev[n].multi);
    assert_eq!(kind("created"), (ValueKind::DateTime, true));
    assert_eq!(kind("id"), (ValueKind::Integer, true));
    assert_eq!(kind("last_updated"), (ValueKind::Date, false));
    assert_eq!(kind("limit"), (ValueKind::Integer, false));
    assert_eq!(kind("serial__empty"), (ValueKind::Boolean, false));
    assert_eq!(kind("uuid"), (ValueKind::Uuid, false));
    assert_eq!(kind("weight"), (ValueKind::Number, true));
    assert_eq!(kind("status"), (ValueKind::String, true));
    assert_eq!(kind("airflow"), (ValueKind::String, false));

    // Descriptions: bullets stripped; the title when nothing else is left; none when empty.
    let desc = |n: &str| dev[n].description.as_deref();
    assert_eq!(desc("limit"), Some("Number of results to return per page."));
    assert_eq!(desc("role_id"), Some("Role (ID)"));
    assert_eq!(desc("type"), Some("Physical port type"));
    assert_eq!(desc("face"), Some("Rack face"));
    assert_eq!(desc("airflow"), None);
    assert_eq!(desc("id"), None);

    // Inline enum, ordered by the bullets, `null` (the null selector) kept last.
    assert_eq!(
        choice_values(&index, "dcim/devices", "airflow"),
        pairs(&[
            ("front-to-rear", "Front to rear"),
            ("rear-to-front", "Rear to front"),
            ("passive", "Passive"),
            ("null", "null")
        ])
    );
    // Resolved through the component with the same x-spec-enum-id; "" dropped.
    let status = pairs(&[
        ("offline", "Offline"),
        ("active", "Active"),
        ("planned", "Planned"),
    ]);
    assert_eq!(choice_values(&index, "dcim/devices", "status"), status);
    // Labels from the parameter's own bullets when the component has none.
    assert_eq!(
        choice_values(&index, "virtualization/interfaces", "mode"),
        pairs(&[("access", "Access"), ("tagged", "Tagged")])
    );
    // Integer enum, path-level parameter.
    let fam = &index.endpoints["ipam/ip-addresses"].params["family"];
    assert_eq!((fam.kind, fam.multi), (ValueKind::Integer, false));
    assert_eq!(
        choice_values(&index, "ipam/ip-addresses", "family"),
        pairs(&[("4", "IPv4"), ("6", "IPv6")])
    );
    // Unresolvable enum id: no choices (fail open).
    assert_eq!(dev["type"].choices, None);

    // Choice sets are shared: `status` on three endpoints uses one set.
    let s = dev["status"].choices;
    assert_eq!(
        index.endpoints["dcim/virtual-chassis"].params["status"].choices,
        s
    );
    assert_eq!(
        index.endpoints["plugins/bgp/bgp-sessions"].params["status"].choices,
        s
    );
    assert_eq!(index.choice_sets.len(), 5);
    assert_eq!(index.parameters_with_choices(), 7);
}

#[test]
fn fixture_gzip_builds_the_same_and_round_trips() {
    let raw = fixture("openapi/mini.json");
    let plain = build_from_openapi(&raw).unwrap();
    assert_eq!(build_from_openapi(&gzip(&raw)).unwrap(), plain);
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(&raw);
    assert_eq!(build_from_openapi(&bom).unwrap().endpoints, plain.endpoints);
    let file = write_index(&plain);
    assert_eq!(&file[..2], &[0x1f, 0x8b]);
    assert_eq!(load_index(&file).unwrap(), plain);
    // Deterministic bytes.
    assert_eq!(write_index(&plain), file);
}

// ---------------------------------------------------------------- build errors

#[test]
fn build_errors_are_errors_not_panics() {
    let raw = fixture("openapi/mini.json");
    let gz = gzip(&raw);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], "not JSON"),
        ("text", b"hello".to_vec(), "not JSON"),
        ("cut json", raw[..raw.len() / 2].to_vec(), "not JSON"),
        ("array", b"[1,2]".to_vec(), "top level is not an object"),
        (
            "no paths",
            br#"{"openapi":"3.0.3","info":{"version":"1"}}"#.to_vec(),
            "no `paths`",
        ),
        (
            "paths not object",
            br#"{"paths":[]}"#.to_vec(),
            "no `paths`",
        ),
        ("truncated gz", gz[..gz.len() / 2].to_vec(), "truncated"),
        ("gz header only", gz[..4].to_vec(), "truncated"),
        ("gz of garbage json", gzip(b"{nope"), "not JSON"),
    ];
    for (name, bytes, want) in cases {
        let e = build_from_openapi(&bytes).expect_err(name);
        assert!(e.to_string().contains(want), "{name}: {e}");
    }
    let mut corrupt = gz.clone();
    for b in corrupt.iter_mut().skip(20).take(40) {
        *b ^= 0x5a;
    }
    assert!(build_from_openapi(&corrupt).is_err());
    assert_eq!(
        build_from_openapi(&gz[..gz.len() - 3]).unwrap_err(),
        BuildError::TruncatedGzip
    );
}

#[test]
fn odd_but_valid_documents_build() {
    // Schemas of unexpected shapes are typed as strings; non-query parameters are skipped.
    let doc = br##"{"info":{"version":"9.0"},"paths":{"/api/a/bs/":{"get":{"parameters":[
        {"in":"query","name":"x","schema":{"type":"array","items":{}}},
        {"in":"path","name":"p","schema":{"type":"string"}},
        {"in":"query","name":"y"}]}},
        "/api/a/cs/":"not an object"}}"##;
    let index = build_from_openapi(doc).unwrap();
    assert_eq!(index.netbox_version, "9.0");
    let p = &index.endpoints["a/bs"].params;
    assert_eq!(p.len(), 2);
    assert_eq!((p["x"].kind, p["x"].multi), (ValueKind::String, true));
    assert_eq!(p["y"].kind, ValueKind::String);
    assert_eq!(index.endpoints["a/bs"].object_type, None);
}

/// A list endpoint with `id` and `name` filters, its `parameters` spelled `params`.
fn endpoint_doc(version: &str, params: &str) -> Vec<u8> {
    format!(
        r##"{{"openapi":"3.0.3","info":{{"version":{version}}},"paths":{{
        "/api/dcim/sites/":{{"get":{{"parameters":[
            {{"in":"query","name":"id","schema":{{"type":"array","items":{{"type":"integer"}}}}}},
            {{"in":"query","name":"name","schema":{{"type":"array","items":{{"type":"string"}}}}}}]}}}},
        "/api/dcim/devices/":{{"get":{{"parameters":{params}}}}}}}}}"##
    )
    .into_bytes()
}

#[test]
fn unreadable_parameters_skip_the_endpoint() {
    // `parameters` that are not a list, or hold an entry that is not a parameter: the endpoint
    // is left out (no name findings there) rather than indexed with no filters (every filter
    // unknown).
    for params in [
        "null",
        "{}",
        "\"x\"",
        r#"[{"in":"query","name":"ok"}, 7]"#,
        r#"[{"in":"query","name":"ok"}, null]"#,
        r##"[{"in":"query","name":"ok"}, {"$ref":"#/nowhere"}]"##,
        r#"[{"in":"query","schema":{"type":"string"}}]"#,
    ] {
        let (index, report) = build_with_report(&endpoint_doc("\"4.6.8\"", params)).unwrap();
        assert!(!index.endpoints.contains_key("dcim/devices"), "{params}");
        assert_eq!(report.skipped, vec!["dcim/devices".to_string()], "{params}");
        assert_eq!(index.endpoints["dcim/sites"].params.len(), 2, "{params}");
    }
    // An empty list = none; absent `parameters` = none.
    let (index, report) = build_with_report(&endpoint_doc("\"4.6.8\"", "[]")).unwrap();
    assert!(index.endpoints["dcim/devices"].params.is_empty());
    assert!(report.skipped.is_empty());
    let doc = br#"{"info":{"version":"4.6.8"},"paths":{"/api/dcim/devices/":{"get":{}}}}"#;
    let (index, report) = build_with_report(doc).unwrap();
    assert!(index.endpoints["dcim/devices"].params.is_empty());
    assert!(report.skipped.is_empty());
    // Every list endpoint skipped: nothing to index.
    let doc = br#"{"info":{"version":"4.6.8"},"paths":{"/api/dcim/devices/":{"get":{"parameters":null}}}}"#;
    let e = build_from_openapi(doc).unwrap_err();
    assert_eq!(e, BuildError::NoListEndpoints { skipped: 1 });
    assert!(e.to_string().contains("1 skipped"), "{e}");
}

#[test]
fn documents_without_list_endpoints_are_refused() {
    for doc in [
        &br#"{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{}}"#[..],
        br#"{"openapi":"3.0.3","info":{"version":"4.6.8"},"paths":{"/pets":{"get":{}},"/api/dcim/devices/{id}/":{"get":{}},"/api/status/":{"get":{}}}}"#,
        // A list path without a GET.
        br#"{"openapi":"3.0.3","info":{"version":"4.6.8"},"paths":{"/api/dcim/devices/":{"post":{}}}}"#,
    ] {
        let e = build_from_openapi(doc).unwrap_err();
        assert_eq!(e, BuildError::NoListEndpoints { skipped: 0 });
        assert_eq!(
            e.to_string(),
            "no NetBox list endpoints (GET /api/<app>/<model>/) in this document: not a NetBox OpenAPI document?"
        );
    }
}

#[test]
fn info_version_forms() {
    let ok = |v: &str| {
        let (index, report) = build_with_report(&endpoint_doc(v, "[]")).unwrap();
        (index.netbox_version, report.notes)
    };
    // Plain versions are taken verbatim, without a note.
    for v in ["4.6.8", "4.6", " 4.6.8 ", "10.20.30"] {
        let (got, notes) = ok(&format!("\"{v}\""));
        assert_eq!(got, v.trim());
        assert!(notes.is_empty(), "{v}: {notes:?}");
    }
    // A leading X.Y[.Z] is taken, with a note saying so.
    for (v, want) in [
        ("4.6.8 (4.6)", "4.6.8"),
        ("4.6.8-Docker-3.3.0", "4.6.8"),
        ("v4.5.10", "4.5.10"),
        ("4.4 beta", "4.4"),
    ] {
        let (got, notes) = ok(&format!("\"{v}\""));
        assert_eq!(got, want, "{v}");
        assert_eq!(notes.len(), 1, "{v}");
        assert!(
            notes[0].contains(v) && notes[0].contains(&format!("using {want}")),
            "{notes:?}"
        );
    }
    // No version at all: an error naming --netbox-version.
    for v in ["\"1\"", "\"dev\"", "\"4.6.8.1\"", "\"\"", "null", "7"] {
        let e = build_from_openapi(&endpoint_doc(v, "[]")).unwrap_err();
        assert!(matches!(e, BuildError::BadVersion(_)), "{v}: {e:?}");
        assert!(e.to_string().contains("--netbox-version"), "{v}: {e}");
    }
    let no_info = br#"{"paths":{"/api/dcim/devices/":{"get":{}}}}"#;
    let e = build_from_openapi(no_info).unwrap_err();
    assert!(e.to_string().contains("no `info.version`"), "{e}");

    // --netbox-version stamps the version (and says so when the document disagrees).
    let given = |doc: &[u8], v: &str| {
        build_with_options(
            doc,
            &BuildOptions {
                netbox_version: Some(v.into()),
                ..BuildOptions::default()
            },
        )
    };
    let (index, report) = given(no_info, "4.5.10").unwrap();
    assert_eq!(index.netbox_version, "4.5.10");
    assert!(
        report.notes[0].contains("--netbox-version"),
        "{:?}",
        report.notes
    );
    let (index, report) = given(&endpoint_doc("\"4.6.8\"", "[]"), "4.6.8").unwrap();
    assert_eq!(index.netbox_version, "4.6.8");
    assert!(report.notes.is_empty());
    let e = given(no_info, "latest").unwrap_err();
    assert!(
        e.to_string().contains("\"latest\" is not a NetBox version"),
        "{e}"
    );
}

// ---------------------------------------------------------------- load errors

#[test]
fn load_errors_are_errors_not_panics() {
    let index = build_from_openapi(&fixture("openapi/mini.json")).unwrap();
    let file = write_index(&index);

    assert_eq!(load_index(b"{\"format\":1}"), Err(IndexError::NotGzip));
    assert_eq!(load_index(&[]), Err(IndexError::NotGzip));
    assert_eq!(
        load_index(&file[..file.len() / 3]),
        Err(IndexError::Truncated)
    );
    assert_eq!(load_index(&file[..10]), Err(IndexError::Truncated));

    // A newer format, even with a layout this build cannot read.
    let e = load_index(&gzip(br#"{"format":7,"layout":"something new"}"#)).unwrap_err();
    assert_eq!(
        e,
        IndexError::NewerFormat {
            found: 7,
            supported: FORMAT_VERSION
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "index format 7 is newer than this netbox-lsp supports ({FORMAT_VERSION}); \
             upgrade netbox-lsp or rebuild the index"
        )
    );
    // A newer format with a readable layout is refused too.
    let mut newer = index.clone();
    newer.format = FORMAT_VERSION + 1;
    assert!(matches!(
        load_index(&write_index(&newer)),
        Err(IndexError::NewerFormat { .. })
    ));

    for (name, json) in [
        ("not json", &b"hello"[..]),
        ("no format", br#"{"netbox_version":"4.6.8"}"#),
        ("wrong shape", br#"{"format":1,"endpoints":[]}"#),
        ("bad parameter", br#"{"format":1,"netbox_version":"1","source_sha256":"","endpoints":{"a/b":{"object_type":null,"params":{"x":[99]}}},"object_types":{},"choice_sets":[]}"#),
        ("not utf-8", &[0xff, 0xfe, 0x7b][..]),
    ] {
        let e = load_index(&gzip(json)).expect_err(name);
        assert!(matches!(e, IndexError::Malformed(_)), "{name}: {e:?}");
        assert!(e.to_string().starts_with("the index file is malformed"), "{name}: {e}");
    }
    let mut corrupt = file.clone();
    for b in corrupt.iter_mut().skip(12).take(50) {
        *b = !*b;
    }
    assert!(load_index(&corrupt).is_err());
}

// ---------------------------------------------------------------- version selection

#[test]
fn shipped_releases() {
    let v: Vec<&str> = RELEASES.iter().map(|r| r.version).collect();
    assert_eq!(v, ["4.3.3", "4.4.10", "4.5.10", "4.6.8", "4.7.3"]);
    assert_eq!(embedded::default_version(), "4.7.3");
    assert_eq!(select(None).unwrap().version, embedded::default_version());
}

/// README's table of shipped releases ("## Shipped NetBox versions") is the release table's:
/// one row per release, oldest first, the default marked, and each count that of the embedded
/// index (as `netbox-lsp index info` prints them).
#[test]
fn readme_release_table_is_the_release_table() {
    let readme = std::fs::read_to_string(manifest().join("README.md")).unwrap();
    let header = "| NetBox | endpoints | object types | filter parameters | with choices |";
    let start = readme
        .find(header)
        .expect("README.md has the table of shipped releases");
    let rows: Vec<&str> = readme[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    let thousands = |n: usize| {
        let s = n.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let want: Vec<String> = RELEASES
        .iter()
        .map(|r| {
            let i = embedded::embedded_index(r.version);
            let name = if r.version == embedded::default_version() {
                format!("{} (default)", r.version)
            } else {
                r.version.to_string()
            };
            format!(
                "| {name} | {} | {} | {} | {} |",
                i.endpoints.len(),
                i.object_types.len(),
                thousands(i.parameter_count()),
                thousands(i.parameters_with_choices())
            )
        })
        .collect();
    assert_eq!(
        rows,
        want,
        "README.md's release table differs from the embedded releases; write these rows:\n{}",
        want.join("\n")
    );
}

#[test]
fn select_table() {
    // (requested, Some((version, has note)) | None for an error)
    type Case = (Option<&'static str>, Option<(&'static str, bool)>);
    let cases: &[Case] = &[
        (None, Some(("4.7.3", false))),
        (Some(""), Some(("4.7.3", false))),
        (Some("4.3"), Some(("4.3.3", false))),
        (Some("4.3.3"), Some(("4.3.3", false))),
        (Some("v4.3.3"), Some(("4.3.3", false))),
        (Some(" 4.6 "), Some(("4.6.8", false))),
        (Some("4.4"), Some(("4.4.10", false))),
        (Some("4.4.10"), Some(("4.4.10", false))),
        (Some("4.3.3-Docker-3.3.0"), Some(("4.3.3", false))),
        (Some("4.3.5"), Some(("4.3.3", true))),
        (Some("4.4.12"), Some(("4.4.10", true))),
        (Some("4.6.9"), Some(("4.6.8", true))),
        (Some("4.6.2"), Some(("4.6.8", true))),
        (Some("4.7"), Some(("4.7.3", false))),
        (Some("4.7.3"), Some(("4.7.3", false))),
        (Some("v4.7.3"), Some(("4.7.3", false))),
        (Some("4.7.0"), Some(("4.7.3", true))),
        (Some("4.7.1"), Some(("4.7.3", true))),
        (Some("4.7.5"), Some(("4.7.3", true))),
        (Some("4.8"), Some(("4.7.3", true))),
        (Some("5.0"), Some(("4.7.3", true))),
        (Some("4.2"), None),
        (Some("3.7"), None),
        (Some("4"), None),
        (Some("garbage"), None),
        (Some("4.x"), None),
        (Some("4.6.8.1"), None),
    ];
    for (req, want) in cases {
        let got = select(*req);
        match (want, &got) {
            (Some((v, note)), Ok(sel)) => {
                assert_eq!(sel.version, *v, "{req:?}");
                assert_eq!(sel.note.is_some(), *note, "{req:?}: {:?}", sel.note);
                // Every stand-in release is approximate, and only those.
                assert_eq!(sel.approximate.is_some(), *note, "{req:?}");
            }
            (None, Err(msg)) => {
                for shipped in embedded::versions() {
                    assert!(msg.contains(shipped), "{req:?}: {msg}");
                }
            }
            _ => panic!("{req:?}: got {got:?}, want {want:?}"),
        }
    }
    // Issue 8 §7 / issue 10 §5: the note says which release is used, in which direction it
    // differs, what that may miss, and how to get exact knowledge.
    let note = select(Some("4.3.5")).unwrap().note.unwrap();
    assert!(
        note.starts_with("NetBox 4.3.5 is not shipped; using 4.3.3, the closest shipped release (older than 4.3.5)"),
        "{note}"
    );
    let note = select(Some("4.6.0")).unwrap().note.unwrap();
    assert!(
        note.starts_with("NetBox 4.6.0 is not shipped; using 4.6.8, the closest shipped release (newer than 4.6.0): filters and choices added after 4.6.0 pass here"),
        "{note}"
    );
    assert!(!note.contains("older"), "{note}");
    let sel = select(Some("4.8.1")).unwrap();
    assert_eq!(sel.approximate.as_deref(), Some("4.8.1"));
    let note = sel.note.unwrap();
    assert!(
        note.contains("using 4.7.3, the closest shipped release (older than 4.8.1)"),
        "{note}"
    );
    assert!(note.contains("are warnings, not errors"), "{note}");
    assert!(note.contains("netbox-lsp index build --url"), "{note}");
    // A patch of the newest minor before the shipped one: the patch-gap wording.
    let note = select(Some("4.7.1")).unwrap().note.unwrap();
    assert!(
        note.starts_with("NetBox 4.7.1 is not shipped; using 4.7.3, the closest shipped release (newer than 4.7.1): filters and choices added after 4.7.1 pass here"),
        "{note}"
    );
}

// ---------------------------------------------------------------- the shipped indexes

#[test]
fn embedded_indexes_load_with_sane_counts() {
    for r in RELEASES {
        let i = embedded::load(r.version).unwrap();
        assert_eq!(i.netbox_version, r.version);
        assert_eq!(i.format, FORMAT_VERSION);
        assert_eq!(i.source_sha256.len(), 64);
        assert!(
            (130..200).contains(&i.endpoints.len()),
            "{}: {}",
            r.version,
            i.endpoints.len()
        );
        assert!((120..200).contains(&i.object_types.len()), "{}", r.version);
        assert!(
            (11_000..20_000).contains(&i.parameter_count()),
            "{}",
            r.version
        );
        assert!(
            (900..1500).contains(&i.parameters_with_choices()),
            "{}",
            r.version
        );
        // Every object type points at an endpoint that says it serves that type.
        for (t, key) in &i.object_types {
            assert_eq!(
                i.endpoints[key].object_type.as_deref(),
                Some(t.as_str()),
                "{t}"
            );
        }
        // Every choice index is in range.
        for e in i.endpoints.values() {
            for p in e.params.values() {
                if let Some(c) = p.choices {
                    assert!((c as usize) < i.choice_sets.len());
                }
            }
        }
    }
    let a = embedded::embedded_index("4.6.8");
    let b = embedded::embedded_index("4.6.8");
    assert!(std::sync::Arc::ptr_eq(&a, &b), "decoded once per process");
    assert!(embedded::embedded_index("1.0.0").endpoints.is_empty());
    assert!(matches!(
        embedded::load("3.7"),
        Err(IndexError::UnknownVersion(_))
    ));
}

#[test]
fn netbox_4_6_8_facts() {
    let i = embedded::load("4.6.8").unwrap();
    let dev = &i.endpoints["dcim/devices"].params;
    assert!(dev.contains_key("role_id") && dev.contains_key("role"));
    assert!(!dev.contains_key("device_role_id") && !dev.contains_key("device_role"));
    // Interfaces still filter by the device's role as `device_role_id` (checked in the 4.6.8 document).
    let intf = &i.endpoints["dcim/interfaces"].params;
    assert!(intf.contains_key("device_role_id") && intf.contains_key("device_role"));
    assert!(!intf.contains_key("role_id"));

    let ip = &i.endpoints["ipam/ip-addresses"].params;
    assert!(ip.contains_key("parent"));
    assert!(!ip.contains_key("within") && !ip.contains_key("within_include"));
    let pfx = &i.endpoints["ipam/prefixes"].params;
    assert!(pfx.contains_key("within") && pfx.contains_key("within_include"));

    // Change-log action verbs (plus NetBox's null selector).
    let action: Vec<String> = choice_values(&i, "core/object-changes", "action")
        .into_iter()
        .map(|(v, _)| v)
        .collect();
    assert_eq!(action, ["create", "update", "delete", "null"]);
    assert_eq!(
        choice_values(&i, "core/object-changes", "action")[0],
        ("create".to_string(), "Created".to_string())
    );
    let status = choice_values(&i, "dcim/devices", "status");
    assert!(status.contains(&("active".to_string(), "Active".to_string())));
    assert!(!status.iter().any(|(v, _)| v.is_empty() || v == "Active"));
    let p = &i.endpoints["dcim/devices"].params["status"];
    assert!(p.multi && p.kind == ValueKind::String);
    assert_eq!(dev["id"].kind, ValueKind::Integer);
    assert_eq!(dev["created"].kind, ValueKind::DateTime);
    assert_eq!(dev["site"].description.as_deref(), Some("Site name (slug)"));
    // fields / omit / brief are listed from 4.6 on.
    assert!(dev.contains_key("fields") && dev.contains_key("omit") && dev.contains_key("brief"));

    assert_eq!(i.resolve("dcim.device").map(|r| r.0), Some("dcim/devices"));
    assert_eq!(
        i.resolve("ipam.ipaddress").map(|r| r.0),
        Some("ipam/ip-addresses")
    );
    assert_eq!(
        i.resolve("core.objecttype").map(|r| r.0),
        Some("core/object-types")
    );
    assert_eq!(i.endpoints["dcim/connected-device"].object_type, None);
}

#[test]
fn netbox_4_3_3_facts() {
    let i = embedded::load("4.3").unwrap();
    assert_eq!(i.netbox_version, "4.3.3");
    // Before 4.4 object types are served under extras.
    assert_eq!(i.object_types["core.objecttype"], "extras/object-types");
    assert!(!i.endpoints.contains_key("core/object-types"));
    let action: Vec<String> = choice_values(&i, "core/object-changes", "action")
        .into_iter()
        .map(|(v, _)| v)
        .collect();
    assert_eq!(action, ["create", "update", "delete"]);
    // fields/omit/brief are accepted by NetBox but not listed before 4.6.
    assert!(!i.endpoints["dcim/devices"].params.contains_key("fields"));
    // 4.4 lists both; the core one wins.
    let i44 = embedded::load("4.4").unwrap();
    assert_eq!(i44.object_types["core.objecttype"], "core/object-types");
    assert_eq!(
        i44.endpoints["extras/object-types"].object_type.as_deref(),
        Some("core.objecttype")
    );
}

/// Every §B.3 object type (netbox-mcp-server's table) whose endpoint exists resolves to it.
#[test]
fn object_types_match_the_b3_table() {
    let table = String::from_utf8(fixture("object-types-b3.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 129);
    for r in RELEASES {
        let i = embedded::load(r.version).unwrap();
        let mut resolved = 0;
        for row in &rows {
            let (t, ep, fallback) = (row[0], row[1], row.get(2).copied().unwrap_or(""));
            let want = if i.endpoints.contains_key(ep) {
                ep
            } else if !fallback.is_empty() && i.endpoints.contains_key(fallback) {
                fallback
            } else {
                continue;
            };
            assert_eq!(
                i.object_types.get(t).map(String::as_str),
                Some(want),
                "{} {t}",
                r.version
            );
            assert_eq!(i.resolve(t).map(|x| x.0), Some(want), "{} {t}", r.version);
            resolved += 1;
        }
        if r.version == "4.6.8" {
            assert_eq!(resolved, 129, "every §B.3 entry has an endpoint in 4.6.8");
        }
    }
}

/// The path-derived singular form agrees with the response schema's model name for every
/// endpoint outside the irregular table.
#[test]
fn singularisation_agrees_with_response_names() {
    for r in RELEASES {
        let i = embedded::load(r.version).unwrap();
        for (key, e) in &i.endpoints {
            let Some(t) = &e.object_type else { continue };
            if IRREGULAR.iter().any(|(k, _)| k == key) {
                continue;
            }
            let (app, slug) = key.rsplit_once('/').unwrap();
            assert_eq!(
                *t,
                format!("{app}.{}", singularise(slug)),
                "{} {key}",
                r.version
            );
        }
    }
}

// ---------------------------------------------------------------- vendored == rebuilt

/// Says a test is skipped on the real stderr (not captured by the test harness).
fn skipped(why: &str) {
    let _ = writeln!(std::io::stderr(), "\n*** SKIPPED: {why} ***\n");
}

fn shared_dir() -> Option<PathBuf> {
    let m = manifest();
    let candidates = [
        m.parent().map(|p| p.join("shared")),
        Some(PathBuf::from("/work/shared")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("netbox").is_dir())
}

#[test]
fn vendored_indexes_equal_a_fresh_build() {
    let Some(shared) = shared_dir() else {
        skipped("../shared not found (vendored index rebuild check)");
        return;
    };
    let mut checked = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(shared.join("netbox"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    dirs.sort();
    for dir in dirs {
        let doc = dir.join("openapi.json.gz");
        // `v4.6.8-instance` is a customised instance (plugins), not a release to vendor.
        let release_dir = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| !n.contains('-'));
        if !doc.is_file() || !release_dir {
            continue;
        }
        let built = build_from_openapi(&std::fs::read(&doc).unwrap()).unwrap();
        let vendored_path = manifest()
            .join("index")
            .join(format!("netbox-{}.index.json.gz", built.netbox_version));
        let vendored = load_index(&std::fs::read(&vendored_path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", vendored_path.display()));
        assert!(
            vendored == built,
            "{} differs from a fresh build of {}; rebuild with `netbox-lsp index build`",
            vendored_path.display(),
            doc.display()
        );
        assert!(
            RELEASES.iter().any(|r| r.version == built.netbox_version),
            "{} is in ../shared but not embedded",
            built.netbox_version
        );
        checked += 1;
    }
    assert!(
        checked >= 2,
        "expected the shared OpenAPI documents in {}",
        shared.display()
    );
}

/// On 4.3.3 the document's `x-spec-enum-id`s resolve 916 of 917 (the one left is a detail
/// path's parameter, `/api/dcim/racks/{id}/elevation/`, outside the index).
#[test]
fn enum_resolution_on_4_3_3() {
    let Some(shared) = shared_dir() else {
        skipped("../shared not found (enum resolution figure)");
        return;
    };
    let doc = shared.join("netbox/v4.3.3/openapi.json.gz");
    if !doc.is_file() {
        skipped(&format!("{} not found", doc.display()));
        return;
    }
    let (_, report) = build_with_report(&std::fs::read(Path::new(&doc)).unwrap()).unwrap();
    assert_eq!(
        (
            report.document_enum_ids_in_components,
            report.document_enum_ids
        ),
        (916, 917)
    );
    assert_eq!((report.enum_ids_resolved, report.enum_ids), (915, 915));
    assert!(report.unresolved.is_empty());
}

// ---------------------------------------------------------------- the commands

fn run(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netbox-lsp"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn index_build_and_info_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = manifest().join("tests/fixtures/openapi/mini.json");
    let doc = doc.to_str().unwrap();

    // Default output name from info.version, in the current folder.
    let (code, out, err) = run(&["index", "build", "--openapi", doc], tmp.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("wrote netbox-9.1.2.index.json.gz ("),
        "{out}"
    );
    assert!(out.contains("endpoints:                 6\n"), "{out}");
    assert!(out.contains("7 of 8 indexed parameters"), "{out}");
    let written =
        load_index(&std::fs::read(tmp.path().join("netbox-9.1.2.index.json.gz")).unwrap());
    assert_eq!(
        written.unwrap(),
        build_from_openapi(&fixture("openapi/mini.json")).unwrap()
    );

    // -o, from gzip input.
    let gz = tmp.path().join("doc.json.gz");
    std::fs::write(&gz, gzip(&fixture("openapi/mini.json"))).unwrap();
    let (code, _, err) = run(
        &[
            "index",
            "build",
            "--openapi",
            gz.to_str().unwrap(),
            "-o",
            "x.gz",
        ],
        tmp.path(),
    );
    assert_eq!(code, 0, "{err}");

    let (code, out, _) = run(&["index", "info", "--index", "x.gz"], tmp.path());
    assert_eq!(code, 0);
    for line in [
        "NetBox version:            9.1.2",
        "index format:              1",
        "object types:              5",
        "parameters:                18",
        "parameters with choices:   7",
        "choice sets:               5",
    ] {
        assert!(out.contains(line), "{line} in {out}");
    }

    let (code, out, _) = run(&["index", "info"], tmp.path());
    assert_eq!(code, 0);
    assert!(
        out.starts_with(&format!(
            "NetBox version:            {}\n",
            embedded::default_version()
        )),
        "{out}"
    );
    let (code, out, err) = run(&["index", "info", "--netbox-version", "4.3.5"], tmp.path());
    assert_eq!(code, 0);
    assert!(
        out.starts_with("NetBox version:            4.3.3\n"),
        "{out}"
    );
    assert!(err.contains("using 4.3.3"), "{err}");
}

#[test]
fn index_command_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("bad.json"), b"{\"a\":1}").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["index", "build"], "--openapi"),
        (&["index", "build", "--graphql", "s.graphql"], "cannot read"),
        (
            &["index", "build", "--graphql", "bad.json"],
            "not a GraphQL introspection result",
        ),
        (
            &["index", "build", "--openapi", "missing.json"],
            "cannot read missing.json",
        ),
        (
            &["index", "build", "--openapi", "bad.json"],
            "not an OpenAPI document",
        ),
        (
            &[
                "index",
                "build",
                "--openapi",
                "bad.json",
                "-o",
                "no/such/dir/x.gz",
            ],
            "not an OpenAPI",
        ),
        (
            &["index", "info", "--index", "bad.json"],
            "not an index file",
        ),
        (
            &["index", "info", "--index", "missing.gz"],
            "cannot read missing.gz",
        ),
        (
            &["index", "info", "--netbox-version", "3.7"],
            "shipped versions: 4.3.3",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err) = run(args, tmp.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let doc = manifest().join("tests/fixtures/openapi/mini.json");
    let (code, _, err) = run(
        &[
            "index",
            "build",
            "--openapi",
            doc.to_str().unwrap(),
            "-o",
            "no/such/dir/x.gz",
        ],
        tmp.path(),
    );
    assert_eq!(code, 2);
    assert!(err.contains("cannot write no/such/dir/x.gz"), "{err}");
}

#[test]
fn index_build_graphql_writes_sdl_that_check_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let intro = manifest().join("tests/fixtures/graphql/netbox-4.6.8.introspection.json.gz");
    let (code, out, err) = run(
        &[
            "index",
            "build",
            "--graphql",
            intro.to_str().unwrap(),
            "-o",
            "s.graphql.gz",
        ],
        tmp.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("wrote s.graphql.gz ("), "{out}");
    // The written schema is gzip SDL that `check --graphql-schema` uses: on 4.6.8 an ID filter
    // takes a lookup object, so the bare form is the one flagged.
    std::fs::write(
        tmp.path().join("q.graphql"),
        "{ device_list(filters: {id: [1, 2]}, pagination: {limit: 5}) { id } }\n",
    )
    .unwrap();
    let (code, out, err) = run(
        &["check", "q.graphql", "--graphql-schema", "s.graphql.gz"],
        tmp.path(),
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("q.graphql:1:"), "{out}");
    let (code, out, err) = run(
        &["check", "q.graphql", "--graphql-schema", "no-such.graphql"],
        tmp.path(),
    );
    assert_eq!(code, 2, "{out}{err}");
}

#[test]
fn index_build_refuses_non_netbox_documents_and_stamps_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(tmp.path().join(name), text).unwrap();
    // QA reproduction `fs/m_nopaths.json`: no list endpoint → exit 2, no index written.
    write(
        "nopaths.json",
        r#"{"openapi": "3.0.3", "info": {"title": "x", "version": "1"}, "paths": {}}"#,
    );
    let (code, out, err) = run(&["index", "build", "--openapi", "nopaths.json"], tmp.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("no NetBox list endpoints (GET /api/<app>/<model>/)"),
        "{err}"
    );
    assert!(std::fs::read_dir(tmp.path()).unwrap().count() == 1);

    // `info.version` "4.6.8 (4.6)": 4.6.8 is used, with a note on stderr.
    let doc = |v: &str| {
        format!(
            r#"{{"info":{{"version":"{v}"}},"paths":{{"/api/dcim/devices/":{{"get":{{"parameters":[{{"in":"query","name":"name"}}]}}}}}}}}"#
        )
    };
    write("odd.json", &doc("4.6.8 (4.6)"));
    let (code, out, err) = run(&["index", "build", "--openapi", "odd.json"], tmp.path());
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("wrote netbox-4.6.8.index.json.gz"), "{out}");
    assert!(
        err.contains("note:") && err.contains("using 4.6.8"),
        "{err}"
    );

    // No version in the document: refused unless --netbox-version stamps one.
    write("dev.json", &doc("dev"));
    let (code, _, err) = run(&["index", "build", "--openapi", "dev.json"], tmp.path());
    assert_eq!(code, 2);
    assert!(err.contains("--netbox-version"), "{err}");
    let (code, out, err) = run(
        &[
            "index",
            "build",
            "--openapi",
            "dev.json",
            "--netbox-version",
            "4.5.10",
        ],
        tmp.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("wrote netbox-4.5.10.index.json.gz"),
        "{out}"
    );
    let (_, out, _) = run(
        &["index", "info", "--index", "netbox-4.5.10.index.json.gz"],
        tmp.path(),
    );
    assert!(
        out.starts_with("NetBox version:            4.5.10\n"),
        "{out}"
    );

    // An endpoint with `parameters: null` is skipped and reported; its object type stays known,
    // and its filters fail open while the other endpoints are checked.
    let ok = r##"{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/PaginatedDeviceList"}}}}}"##;
    write(
        "nullparams.json",
        &format!(
            r#"{{"info":{{"version":"4.6.8"}},"paths":{{
            "/api/dcim/devices/":{{"get":{{"parameters":null,"responses":{ok}}}}},
            "/api/dcim/sites/":{{"get":{{"parameters":[{{"in":"query","name":"name"}}]}}}}}}}}"#
        ),
    );
    let (code, out, err) = run(
        &[
            "index",
            "build",
            "--openapi",
            "nullparams.json",
            "-o",
            "n.gz",
        ],
        tmp.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("skipped: /api/dcim/devices/"), "{out}");
    let n = load_index(&std::fs::read(tmp.path().join("n.gz")).unwrap()).unwrap();
    assert_eq!(n.object_types["dcim.device"], "dcim/devices");
    assert!(!n.endpoints.contains_key("dcim/devices"));
    write(
        "skill.md",
        "```python\nnetbox_get_objects(\"dcim.device\", filters={\"nonsense\": 1})\nnetbox_get_objects(\"dcim.site\", filters={\"nonsense\": 1})\n```\n",
    );
    let (code, out, _) = run(&["check", "skill.md", "--index", "n.gz"], tmp.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("skill.md:3:") && !out.contains("skill.md:2:"),
        "{out}"
    );
}

/// Issue 23 §2/§4: a local OpenAPI file gets the shape limit of a server's answer. A generated
/// document of a million paths (51 MB of text; it took 1.96 GB and 17 s to build without the
/// limit) is refused before it is parsed, with an error naming the limit and the flag that
/// raises it; the flag lets a document through, and the size limit is named as well.
#[test]
fn index_build_refuses_a_million_paths_and_names_the_limit() {
    use std::fmt::Write as _;
    let tmp = tempfile::tempdir().unwrap();
    let mut doc = String::from(r#"{"openapi":"3.0.3","info":{"version":"4.6.8"},"paths":{"#);
    for i in 0..1_000_000 {
        let sep = if i == 0 { "" } else { "," };
        write!(
            doc,
            r#"{sep}"/api/dcim/x{i}/":{{"get":{{"parameters":[]}}}}"#
        )
        .unwrap();
    }
    doc.push_str("}}");
    std::fs::write(tmp.path().join("million.json"), &doc).unwrap();
    let build = |args: &[&str]| {
        let all: Vec<&str> = ["index", "build", "--openapi"]
            .iter()
            .chain(args)
            .copied()
            .collect();
        run(&all, tmp.path())
    };
    let (code, _, err) = build(&["million.json", "-o", "out.gz"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("holds more than 1200000 JSON items")
            && err.contains("raise the limit with --max-json-items N"),
        "{err}"
    );
    assert!(!tmp.path().join("out.gz").exists());
    // The library says the same, before parsing anything.
    assert_eq!(
        build_with_options(doc.as_bytes(), &BuildOptions::default()).unwrap_err(),
        BuildError::TooManyItems(1_200_000)
    );

    // The flag raises the limit (and lowers it, to show it is the one applied).
    let mini = manifest().join("tests/fixtures/openapi/mini.json");
    let mini = mini.to_str().unwrap();
    let (code, _, err) = build(&[mini, "--max-json-items", "10", "-o", "a.gz"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than 10 JSON items"), "{err}");
    let (code, _, err) = build(&[mini, "--max-json-items", "100000", "-o", "b.gz"]);
    assert_eq!(code, 0, "{err}");
    // The size limit: a plain file larger than it is refused without being read whole.
    let (code, _, err) = build(&["million.json", "--max-document-mib", "1", "-o", "c.gz"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("larger than the 1 MiB an OpenAPI document may have")
            && err.contains("--max-document-mib N"),
        "{err}"
    );
}

/// The cache behind `resolve` points into the endpoint map: a change to the map (through its
/// `DerefMut`) drops it, so a look-up after the change answers from the map as it is now, with
/// no call to `forget_targets`; a clone answers the same as its original.
#[test]
fn resolve_follows_changes_to_the_endpoint_map() {
    let mut i = embedded::load("4.6.8").unwrap();
    let ep = i
        .resolve("dcim.device")
        .map(|(k, e)| (k.to_string(), e.clone()));
    let (key, ep) = ep.unwrap();
    assert_eq!(key, "dcim/devices");
    assert_eq!(
        i.object_type_endpoint("dcim.device").flatten().map(|r| r.0),
        Some("dcim/devices")
    );
    assert!(i.is_object_type("dcim.device"));
    let removed = i.endpoints.remove("dcim/devices").unwrap();
    assert_eq!(i.resolve("dcim.device"), None);
    assert_eq!(i.resolve("dcim/devices"), None);
    assert_eq!(i.object_type_endpoint("dcim.device"), Some(None));
    // Every other endpoint moved in the map's nodes or not: each one still resolves to itself.
    for (k, e) in i.endpoints.iter() {
        assert_eq!(
            i.resolve(k).map(|(k2, e2)| (k2, e2 as *const _)),
            Some((k.as_str(), e as *const _))
        );
    }
    i.endpoints.insert(key.clone(), removed);
    assert_eq!(i.resolve("dcim.device").map(|r| r.0), Some("dcim/devices"));
    assert_eq!(i.resolve("dcim.device").map(|r| r.1), Some(&ep));
    let copy = i.clone();
    let moved = i;
    assert_eq!(
        copy.resolve("/api/dcim/devices/").map(|r| r.0),
        Some("dcim/devices")
    );
    assert_eq!(moved.resolve("dcim.device").map(|r| r.1), Some(&ep));
}
