//! GraphQL checks, data-driven: NetBox ground truth per version, fixture documents with
//! expected findings, the introspection round trip, range mapping through an offset map, bad
//! input, completion and hover.

use netbox_lsp::extract::{GraphqlDoc, OffsetMap};
use netbox_lsp::finding::Severity;
use netbox_lsp::graphql::check::check_text;
use netbox_lsp::graphql::{
    check_document, complete, embedded_schema, hover, load_schema_file, GqlCompletionKind,
    NetboxSchema,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn schema(v: &str) -> Arc<NetboxSchema> {
    embedded_schema(v).unwrap_or_else(|| panic!("schema {v} not shipped"))
}

/// `../shared/netbox` beside the repository, or `/work/shared/netbox`; None (and a loud note)
/// when neither exists.
fn shared() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.parent().map(|p| p.join("shared/netbox")),
        Some(PathBuf::from("/work/shared/netbox")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_dir());
    if found.is_none() {
        eprintln!("!!! SKIPPED: ../shared/netbox not found; real-schema checks did not run");
    }
    found
}

#[test]
fn ground_truth_rows() {
    let mut tally = Vec::new();
    for v in netbox_lsp::index::embedded::versions() {
        let s = schema(v);
        let path = fixtures().join(format!("graphql-ground-truth/v{v}.tsv"));
        let text = std::fs::read_to_string(&path).unwrap();
        let (mut ok, mut rejected, mut ignored, mut out_of_reach) = (0, 0, 0, 0);
        for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            let [query, verdict, _note, code, span_text] = cols[..] else {
                panic!("bad row {line}");
            };
            // The fixture's expectation must agree with what NetBox did.
            match verdict {
                "error" => assert_ne!(
                    code, "-",
                    "{v}: rejected row without expected error: {query}"
                ),
                "silently-ignored" => assert_eq!(code, "graphql-null-filter", "{v}: {query}"),
                _ => assert_eq!(
                    code, "-",
                    "{v}: accepted row with an expected error: {query}"
                ),
            }
            let findings = check_text(query, None, &s);
            let errors: Vec<_> = findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .collect();
            match code {
                "out-of-reach" => {
                    out_of_reach += 1;
                    assert!(errors.is_empty(), "{v}: {query}: {errors:?}");
                }
                "-" => {
                    ok += 1;
                    assert!(
                        errors.is_empty(),
                        "{v}: accepted by NetBox, yet: {query}: {errors:?}"
                    );
                }
                code => {
                    if verdict == "error" {
                        rejected += 1;
                    } else {
                        ignored += 1;
                    }
                    assert_eq!(errors.len(), 1, "{v}: {query}: {errors:?}");
                    assert_eq!(errors[0].code, code, "{v}: {query}: {errors:?}");
                    assert_eq!(&query[errors[0].range.clone()], span_text, "{v}: {query}");
                }
            }
            // Warnings: only the unpaginated-list cap, only where it applies, and never on a
            // filtered list NetBox honoured (issue 8 §5: information there).
            for w in findings.iter().filter(|f| f.severity == Severity::Warning) {
                assert_eq!(w.code, "graphql-pagination", "{v}: {query}");
                assert!(s.caps_unpaginated_lists() && !query.contains("pagination"));
                assert!(
                    !query.contains("filters:"),
                    "{v}: warning on a filtered list: {query}"
                );
            }
        }
        tally.push(format!(
            "{v}: {ok} accepted → no error, {rejected} rejected → same error, {ignored} silently ignored → graphql-null-filter, {out_of_reach} out of reach (need live data)"
        ));
    }
    eprintln!("GraphQL ground truth tally:\n  {}", tally.join("\n  "));
}

/// The instance's schema (netbox-bgp 0.19.0 and custom fields on 4.6.8): rows of its live
/// ground truth. With it, the plugin's fields are checked like any other; with the stock 4.6.8
/// schema they get one `graphql-plugin-field` information finding and nothing else (issue 8 §4).
#[test]
fn instance_ground_truth_rows() {
    let bytes =
        std::fs::read(fixtures().join("graphql/netbox-4.6.8-instance.introspection.json.gz"))
            .unwrap();
    let mut instance = load_schema_file(&bytes).expect("instance introspection loads");
    instance.netbox_version = "4.6.8".into();
    let stock = schema("4.6.8");
    let text = std::fs::read_to_string(fixtures().join("graphql-ground-truth/v4.6.8-instance.tsv"))
        .unwrap();
    let (mut plugin_rows, mut rows) = (0, 0);
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [query, verdict, _note, code, span_text] = cols[..] else {
            panic!("bad row {line}");
        };
        assert_eq!(verdict == "error", code != "-", "{query}");
        let findings = check_text(query, None, &instance);
        let loud: Vec<_> = findings
            .iter()
            .filter(|f| f.severity <= Severity::Warning)
            .collect();
        if code == "-" {
            assert!(
                loud.is_empty(),
                "instance: accepted by NetBox, yet: {query}: {loud:?}"
            );
        } else {
            assert_eq!(loud.len(), 1, "instance: {query}: {loud:?}");
            assert_eq!(loud[0].code, code, "{query}");
            assert_eq!(&query[loud[0].range.clone()], span_text, "{query}");
        }
        rows += 1;
        if query.contains("netbox_bgp_") {
            plugin_rows += 1;
            let got: Vec<(&str, &str)> = check_text(query, None, &stock)
                .iter()
                .map(|f| (f.code, &query[f.range.clone()]))
                .collect();
            assert_eq!(
                got,
                vec![("graphql-plugin-field", "netbox_bgp_session_list")],
                "stock: {query}"
            );
        }
    }
    assert!(
        rows >= 9 && plugin_rows >= 4,
        "{rows} rows, {plugin_rows} plugin rows"
    );
}

/// Fixture documents: `tests/fixtures/graphql/<version>/<name>.graphql`, each with a header
/// `# expect: code@text -> fix-text | ...` (or `# expect: none`). Each expectation names the
/// code, the GraphQL text its range covers and, optionally, the certain fix's replacement.
/// Optional `# message: text` lines: each is part of some finding's message.
#[test]
fn fixture_documents() {
    let dir = fixtures().join("graphql");
    let mut n = 0;
    for vdir in std::fs::read_dir(&dir).unwrap().flatten() {
        if !vdir.path().is_dir() {
            continue;
        }
        let v = vdir.file_name().to_string_lossy().to_string();
        let s = schema(&v);
        let mut files: Vec<_> = std::fs::read_dir(vdir.path()).unwrap().flatten().collect();
        files.sort_by_key(|f| f.path());
        for f in files {
            let text = std::fs::read_to_string(f.path()).unwrap();
            let vars = text
                .lines()
                .find_map(|l| l.strip_prefix("# variables: "))
                .map(|j| serde_json::from_str::<serde_json::Value>(j).unwrap());
            let expect_line = text
                .lines()
                .find_map(|l| l.strip_prefix("# expect: "))
                .unwrap_or_else(|| panic!("{:?} has no # expect line", f.path()));
            let mut want: Vec<String> = if expect_line.trim() == "none" {
                Vec::new()
            } else {
                expect_line
                    .split(" | ")
                    .map(|s| s.trim().to_string())
                    .collect()
            };
            let findings = check_text(&text, vars.as_ref(), &s);
            // `# message: <text>`: some finding's message holds it.
            for m in text.lines().filter_map(|l| l.strip_prefix("# message: ")) {
                assert!(
                    findings.iter().any(|f| f.message.contains(m)),
                    "{v}/{:?}: no message holds {m:?}: {:?}",
                    f.file_name(),
                    findings.iter().map(|f| &f.message).collect::<Vec<_>>()
                );
            }
            let mut got: Vec<String> = findings
                .iter()
                .map(|f| {
                    let mut e = format!("{}@{}", f.code, &text[f.range.clone()]);
                    if let Some(fx) = f.fixes.iter().find(|x| x.certain) {
                        e.push_str(" -> ");
                        e.push_str(&fx.edits[0].1);
                    }
                    e
                })
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{v}/{:?}", f.file_name());
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} fixture documents");
}

const INTROSPECTION_QUERY: &str = r#"
query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
  specifiedByURL
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } }
"#;

/// Printed types of a schema, keyed by name, ignoring applied `@oneOf` (introspection cannot
/// carry it in apollo-compiler 1.33) and built-in definitions.
fn types_of(s: &apollo_compiler::Schema) -> std::collections::BTreeMap<String, String> {
    s.types
        .iter()
        .filter(|(_, t)| !t.is_built_in())
        .map(|(n, t)| {
            let mut p = t.to_string().replace(" @oneOf", "");
            // NetBox's stored introspection results did not ask for `specifiedByURL`.
            if let Some(i) = p.find(" @specifiedBy(") {
                let end = p[i..].find(')').map(|e| i + e + 1).unwrap_or(p.len());
                p.replace_range(i..end, "");
            }
            (n.to_string(), p)
        })
        .collect()
}

/// Asserts two type maps are equal, naming the differing types (the maps are large).
fn assert_same_types(
    a: &std::collections::BTreeMap<String, String>,
    b: &std::collections::BTreeMap<String, String>,
    what: &str,
) {
    let differ: Vec<&String> = a
        .keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .collect();
    if let Some(k) = differ.first() {
        panic!(
            "{what}: {} types differ, first `{k}`:\n{:?}\n---\n{:?}",
            differ.len(),
            a.get(*k),
            b.get(*k)
        );
    }
}

#[test]
fn introspection_round_trip_on_shipped_schemas() {
    use apollo_compiler::{introspection, validation::Valid, ExecutableDocument};
    for v in netbox_lsp::index::embedded::versions() {
        let original = schema(v);
        let s = &original.schema;
        let doc = ExecutableDocument::parse_and_validate(s, INTROSPECTION_QUERY, "q.graphql")
            .expect("introspection query");
        let op = doc.operations.get(None).unwrap();
        let response = introspection::partial_execute(
            s,
            &s.implementers_map(),
            &doc,
            op,
            Valid::assume_valid_ref(&Default::default()),
        )
        .unwrap();
        let json = serde_json::to_string(&response).unwrap();
        let back = NetboxSchema::from_introspection(&json, v).expect("converter");
        assert_same_types(&types_of(s), &types_of(&back.schema), v);
    }
}

#[test]
fn real_introspection_results_load_and_match_sdl() {
    // Vendored 4.6.8 result (declares `@deprecated` on DIRECTIVE_DEFINITION and `@oneOf`).
    let bytes =
        std::fs::read(fixtures().join("graphql/netbox-4.6.8.introspection.json.gz")).unwrap();
    let loaded = load_schema_file(&bytes).expect("4.6.8 introspection loads");
    assert_same_types(
        &types_of(&loaded.schema),
        &types_of(&schema("4.6.8").schema),
        "4.6.8 json",
    );
    let Some(shared) = shared() else { return };
    for v in netbox_lsp::index::embedded::versions() {
        let bytes =
            std::fs::read(shared.join(format!("v{v}/graphql-introspection.json.gz"))).unwrap();
        let s = load_schema_file(&bytes).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_same_types(&types_of(&s.schema), &types_of(&schema(v).schema), v);
        let sdl = std::fs::read(shared.join(format!("v{v}/schema.graphql.gz"))).unwrap();
        load_schema_file(&sdl).unwrap_or_else(|e| panic!("{v} SDL: {e}"));
    }
}

/// A document inside a Markdown block quote: the GraphQL text has the `> ` prefixes removed,
/// the map sends each line back to the host.
#[test]
fn ranges_and_fixes_map_through_offset_map() {
    let host = "Intro\n> ```graphql\n> { device_list(filter: {name: {exact: \"a\"}}) {\n>   nmae } }\n> ```\n";
    let line1 = host.find("{ device_list").unwrap();
    let line1_end = host[line1..].find('\n').unwrap() + line1 + 1;
    let line2 = host.find("  nmae").unwrap();
    let line2_end = host[line2..].find('\n').unwrap() + line2;
    let mut map = OffsetMap::new();
    map.push(line1, line1_end - line1);
    map.push(line2, line2_end - line2);
    let text = format!("{}{}", &host[line1..line1_end], &host[line2..line2_end]);
    let doc = GraphqlDoc {
        text,
        map,
        variables: None,
        holes: Vec::new(),
        found: Default::default(),
    };
    let findings = check_document(&doc, &schema("4.3.3"));
    let got: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f.code, &host[f.range.clone()]))
        .collect();
    assert_eq!(
        got,
        vec![
            ("graphql-filter-argument", "filter"),
            ("graphql-validation", "nmae")
        ]
    );
    // Applying the certain fixes to the host gives the working document.
    let mut fixed = host.to_string();
    let mut edits: Vec<_> = findings
        .iter()
        .flat_map(|f| {
            f.fixes
                .iter()
                .filter(|x| x.certain)
                .flat_map(|x| x.edits.clone())
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    for e in edits {
        fixed.replace_range(e.range, &e.new_text);
    }
    assert!(fixed.contains("> { device_list(filters: {name"), "{fixed}");
    assert!(fixed.contains(">   name } }"), "{fixed}");
}

#[test]
fn bad_input_gives_findings_not_panics() {
    let s = schema("4.6.8");
    let unterminated = r#"{ device_list(filters: {name: {exact: "abc}) { id } }"#;
    let f = check_text(unterminated, None, &s);
    assert!(f.iter().any(|f| f.code == "graphql-syntax"), "{f:?}");

    // 5000 nested selections: the parser's recursion limit answers, no stack overflow.
    let deep = format!(
        "{{ device_list {}{} }}",
        "{ site ".repeat(5000),
        "}".repeat(5000)
    );
    let f = check_text(&deep, None, &s);
    assert!(
        f.iter()
            .any(|f| f.code == "graphql-syntax" && f.message.contains("nest")),
        "{:?}",
        &f[..1]
    );

    // 1 MB document: many fields in one selection set.
    let big = format!(
        "{{ device_list(pagination: {{limit: 1}}) {{ {} }} }}",
        "id name ".repeat(140_000)
    );
    assert!(big.len() > 1_000_000);
    let f = check_text(&big, None, &s);
    assert!(
        f.iter().all(|f| f.code == "graphql-syntax"),
        "{:?}",
        f.first()
    );
    assert!(!f.is_empty());

    // Completion and hover on the same inputs stay bounded and quiet.
    let _ = complete(&deep, deep.len() / 2, &s);
    let _ = hover(&big, big.len() - 3, &s);
    let _ = complete(unterminated, 40, &s);
    assert!(complete("", 99, &s).is_empty());

    for (bytes, want) in [
        (&b"not a schema at all"[..], "neither"),
        (
            &br#"{"errors": [{"message": "introspection disabled"}]}"#[..],
            "__schema",
        ),
        (
            &br#"{"data": {"__schema": {"types": "x"}}}"#[..],
            "introspection",
        ),
    ] {
        let e = load_schema_file(bytes).unwrap_err();
        assert!(e.contains(want), "{e}");
    }
}

fn labels(text_with_cursor: &str, v: &str) -> Vec<(String, GqlCompletionKind)> {
    let offset = text_with_cursor.find('|').unwrap();
    let text = text_with_cursor.replacen('|', "", 1);
    complete(&text, offset, &schema(v))
        .into_iter()
        .map(|c| (c.label, c.kind))
        .collect()
}

#[test]
fn completion_contexts() {
    use GqlCompletionKind::*;
    let has = |items: &[(String, GqlCompletionKind)], l: &str, k: GqlCompletionKind| {
        items.iter().any(|(a, b)| a == l && *b == k)
    };
    let root = labels("{ devi|", "4.6.8");
    assert!(has(&root, "device_list", Field), "{root:?}");
    assert!(root.iter().all(|(l, _)| l.starts_with("devi")));
    let fields = labels("{ device_list { id si| } }", "4.6.8");
    assert!(has(&fields, "site", Field), "{fields:?}");
    let args = labels("{ device_list(| ) { id } }", "4.6.8");
    assert!(
        has(&args, "filters", Argument) && has(&args, "pagination", Argument),
        "{args:?}"
    );
    let filt = labels("{ device_list(filters: {site: {sl|", "4.6.8");
    assert!(has(&filt, "slug", InputField), "{filt:?}");
    let lookups = labels("{ device_list(filters: {name: {|", "4.6.8");
    assert!(has(&lookups, "i_contains", InputField) && has(&lookups, "is_null", InputField));
    let en = labels("{ device_list(filters: {status: {exact: STATUS_A|", "4.6.8");
    assert!(has(&en, "STATUS_ACTIVE", EnumValue), "{en:?}");
    let en43 = labels("{ device_list(filters: {status: |", "4.3.3");
    assert!(has(&en43, "STATUS_ACTIVE", EnumValue), "{en43:?}");
    let pag = labels(
        "{ device_list(filters: {name: {exact: \"x\"}}, pagination: {|",
        "4.6.8",
    );
    assert!(
        has(&pag, "limit", InputField) && has(&pag, "start", InputField),
        "{pag:?}"
    );
    let pag43 = labels("{ device_list(pagination: {|", "4.3.3");
    assert!(!has(&pag43, "start", InputField) && has(&pag43, "offset", InputField));
    let nested = labels("{ device_list { interfaces(filters: {enab|", "4.6.8");
    assert!(has(&nested, "enabled", InputField), "{nested:?}");
    assert!(labels("{ device_list(filters: {name: {exact: \"ab|", "4.6.8").is_empty());
}

#[test]
fn hover_contents() {
    let s = schema("4.6.8");
    let h = |t: &str| {
        let o = t.find('|').unwrap();
        hover(&t.replacen('|', "", 1), o, &s)
    };
    let f = h("{ device_l|ist { id } }").unwrap();
    assert!(
        f.contains("[DeviceType!]!") && f.contains("filters: DeviceFilter"),
        "{f}"
    );
    let st = h("{ device_list(filters: {sta|tus: {exact: STATUS_ACTIVE}}) { id } }").unwrap();
    assert!(
        st.contains("DeviceStatusEnumBaseFilterLookup") && st.contains("exact"),
        "{st}"
    );
    let ev = h("{ device_list(filters: {status: {exact: STATUS_AC|TIVE}}) { id } }").unwrap();
    assert!(
        ev.contains("DeviceStatusEnum") && ev.contains("STATUS_PLANNED"),
        "{ev}"
    );
    let lk = h("{ device_list(filters: {name: {i_con|tains: \"x\"}}) { id } }").unwrap();
    assert!(lk.contains("i_contains: String"), "{lk}");
    assert!(h("{ device_list { nope| } }").is_none());
}

/// "Did you mean" fixes are offered only when the document validates at that place with the fix
/// applied (QA: `has_primary_ip: false` → `primary_ip4: false` failed "expected value of type
/// IPAddressFilter, found a boolean").
#[test]
fn did_you_mean_fixes_validate() {
    let find = |q: &str, v: &str, name: &str| {
        check_text(q, None, &schema(v))
            .into_iter()
            .find(|f| &q[f.range.clone()] == name)
            .unwrap_or_else(|| panic!("no finding at {name} in {q}"))
    };
    for v in ["4.3.3", "4.6.8"] {
        // A boolean cannot go into an IPAddressFilter: no fix, the message says what exists.
        let f = find(
            "{ device_list(filters: {has_primary_ip: false}) { id } }",
            v,
            "has_primary_ip",
        );
        assert!(f.fixes.is_empty(), "{v}: {:?}", f.fixes);
        assert!(
            f.message.contains("`primary_ip4` (`IPAddressFilter`)")
                && f.message.contains("cannot take a boolean"),
            "{v}: {}",
            f.message
        );
        // The shallow kind fits (an enum value for an enum) but the value does not exist:
        // re-validation drops the rename.
        let q = "{ device_list(filters: {statuss: NO_SUCH_VALUE}) { id } }";
        let f = find(q, v, "statuss");
        assert!(f.fixes.is_empty(), "{v}: {:?}", f.fixes);
        // An error nested inside the value is the value's own: the rename is still offered.
        let q = r#"{ site_list(filters: {tenant_grop: {nmae: {exact: "x"}}}) { id } }"#;
        let f = find(q, v, "tenant_grop");
        assert_eq!(f.fixes[0].edits[0].1, "tenant_group", "{v}");
        // Rename and wrap together: `nmae: "x"` → `name: {exact: "x"}`.
        let q = r#"{ site_list(filters: {nmae: "x"}) { id } }"#;
        let f = find(q, v, "nmae");
        assert_eq!(f.fixes.len(), 1, "{v}: {:?}", f.fixes);
        let mut fixed = q.to_string();
        let mut edits = f.fixes[0].edits.clone();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
        for e in edits {
            fixed.replace_range(e.0, &e.1);
        }
        assert_eq!(
            fixed,
            r#"{ site_list(filters: {name: {exact: "x"}}) { id } }"#
        );
        assert!(check_text(&fixed, None, &schema(v))
            .iter()
            .all(|f| f.severity != Severity::Error));
    }
}

/// `IntegerLookup` (`@oneOf`, every shipped version): the comparison lookups sit under
/// `comparison_lookup`; every certain fix validates.
#[test]
fn integer_lookup_fixes_validate() {
    for v in netbox_lsp::index::embedded::versions() {
        for (q, want) in [
            (
                "{ vlan_list(filters: {vid: {gte: 100}}) { id } }",
                "`vid: {comparison_lookup: {gte: 100}}`",
            ),
            (
                "{ vlan_list(filters: {vid: 100}) { id } }",
                "`{filter_lookup: {exact: 100}}`",
            ),
            (
                "{ vlan_list(filters: {vid: {start: 1, end: 9}}) { id } }",
                "`vid: {range_lookup: {start: 1, end: 9}}`",
            ),
        ] {
            let fs = check_text(q, None, &schema(v));
            let errors: Vec<_> = fs
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .collect();
            assert_eq!(errors.len(), 1, "{v}: {q}: {errors:?}");
            assert!(
                errors[0].message.contains(want),
                "{v}: {}",
                errors[0].message
            );
            let fix = errors[0].fixes.iter().find(|x| x.certain).unwrap();
            let mut fixed = q.to_string();
            fixed.replace_range(fix.edits[0].0.clone(), &fix.edits[0].1);
            assert!(
                check_text(&fixed, None, &schema(v))
                    .iter()
                    .all(|f| f.severity != Severity::Error),
                "{v}: {fixed}"
            );
        }
    }
}

/// Issue 8 §5 through the whole pipeline: a Markdown fence of example pairs is read as separate
/// documents (findings at their host positions, no "anonymous operation" cascade); a fence that
/// is a filter fragment gets one information finding instead of five syntax errors.
#[test]
fn markdown_fences_of_examples_and_fragments() {
    use netbox_lsp::analysis::{analyze, Knowledge};
    use netbox_lsp::extract::HostKind;
    // (Unlabelled pairs: a `# WRONG` comment would make its half a lesson, see tests/lessons.rs.)
    let host = "# Filters\n\n```graphql\n# active devices\n{ device_list(filters: {status: STATUS_ACTIVE}) { id } }\n# the same\n{ device_list(filters: {status: {exact: STATUS_ACTIVE}}) { id } }\n\n{ site_list(filter: {name: {exact: \"a\"}}) { id } }\n```\n\nThe filter alone:\n\n```graphql\nfilters: {site_id: $x}\n```\n";
    let knowledge = Knowledge {
        index: None,
        graphql: Some(schema("4.6.8")),
        ..Default::default()
    };
    let findings = analyze(host, HostKind::Markdown, &knowledge);
    let got: Vec<(&str, Severity, &str)> = findings
        .iter()
        .map(|f| (f.code, f.severity, &host[f.range.clone()]))
        .collect();
    assert_eq!(
        got,
        vec![
            ("graphql-pagination", Severity::Information, "device_list"),
            ("graphql-choice-form", Severity::Error, "STATUS_ACTIVE"),
            ("graphql-pagination", Severity::Information, "device_list"),
            ("graphql-pagination", Severity::Information, "site_list"),
            ("graphql-filter-argument", Severity::Error, "filter"),
            ("graphql-snippet", Severity::Information, "filters"),
        ]
    );
    // The fixes apply at the host positions of their own document.
    let fix = &findings[1].fixes[0];
    assert!(fix.certain);
    assert_eq!(&host[fix.edits[0].range.clone()], "STATUS_ACTIVE");
    assert_eq!(fix.edits[0].new_text, "{exact: STATUS_ACTIVE}");
}

/// Literal values in a piece of GraphQL (strings, numbers, enum members, variables, booleans,
/// null): a certain fix must keep their number (issue 8 §6: "same values").
fn value_count(t: &str) -> usize {
    let b = t.as_bytes();
    let (mut n, mut i) = (0, 0);
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            n += 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'-' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_$-.".contains(&b[i])) {
                i += 1;
            }
            let w = &t[s..i];
            let after = t[i..].trim_start();
            let is_key = after.starts_with(':');
            let value = w.starts_with('$')
                || w.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                || matches!(w, "true" | "false" | "null")
                || (w.bytes().any(|c| c.is_ascii_uppercase())
                    && !w.bytes().any(|c| c.is_ascii_lowercase()));
            if value && !is_key {
                n += 1;
            }
        } else {
            i += 1;
        }
    }
    n
}

fn apply(text: &str, edits: &[(std::ops::Range<usize>, String)]) -> String {
    let mut e = edits.to_vec();
    e.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut out = text.to_string();
    for (r, t) in e {
        out.replace_range(r, &t);
    }
    out
}

/// Issue 8 §6 as a property over every GraphQL fixture and ground-truth row of all four
/// versions (and the instance's): each certain fix keeps the number of values, leaves no error
/// at the place it edited and no finding of its own code there; applying every certain fix once
/// (fix-all) leaves no certain fix to apply (one round) and no more errors than before.
#[test]
fn certain_fixes_keep_meaning_and_converge() {
    let mut docs: Vec<(String, String, Option<serde_json::Value>)> = Vec::new();
    for v in netbox_lsp::index::embedded::versions() {
        let gt = std::fs::read_to_string(fixtures().join(format!("graphql-ground-truth/v{v}.tsv")))
            .unwrap();
        for line in gt.lines().filter(|l| !l.starts_with('#')).skip(1) {
            docs.push((v.into(), line.split('\t').next().unwrap().into(), None));
        }
        let mut files: Vec<_> = std::fs::read_dir(fixtures().join("graphql").join(v))
            .unwrap()
            .flatten()
            .collect();
        files.sort_by_key(|f| f.path());
        for f in files {
            let text = std::fs::read_to_string(f.path()).unwrap();
            let vars = text
                .lines()
                .find_map(|l| l.strip_prefix("# variables: "))
                .map(|j| serde_json::from_str(j).unwrap());
            docs.push((v.into(), text, vars));
        }
    }
    let (mut fixes, mut docs_fixed) = (0, 0);
    for (v, text, vars) in &docs {
        let s = schema(v);
        let before = check_text(text, vars.as_ref(), &s);
        let certain: Vec<_> = before
            .iter()
            .filter_map(|f| f.fixes.iter().find(|x| x.certain).map(|x| (f, x)))
            .collect();
        for (f, fix) in &certain {
            fixes += 1;
            let old: usize = fix
                .edits
                .iter()
                .map(|(r, _)| value_count(&text[r.clone()]))
                .sum();
            let new: usize = fix.edits.iter().map(|(_, t)| value_count(t)).sum();
            assert_eq!(
                old, new,
                "{v}: {} changes the values: {:?}\n{text}",
                f.code, fix.edits
            );
            let fixed = apply(text, &fix.edits);
            // Where the edits landed in the fixed text.
            let mut places = Vec::new();
            let mut sorted = fix.edits.clone();
            sorted.sort_by_key(|(r, _)| r.start);
            let mut delta: isize = 0;
            for (r, t) in &sorted {
                let start = (r.start as isize + delta) as usize;
                places.push(start..start + t.len());
                delta += t.len() as isize - r.len() as isize;
            }
            let after = check_text(&fixed, vars.as_ref(), &s);
            for g in &after {
                let here = places.iter().any(|p| {
                    g.range.start < p.end.max(p.start + 1)
                        && p.start < g.range.end.max(g.range.start + 1)
                });
                assert!(
                    !(here && (g.severity == Severity::Error || g.code == f.code)),
                    "{v}: fix {:?} of {} leaves {} `{}` at its place:\n{fixed}",
                    fix.edits,
                    f.code,
                    g.code,
                    g.message
                );
            }
        }
        if certain.is_empty() {
            continue;
        }
        // Fix-all: every certain fix once (overlapping ones after the first are skipped).
        let mut all: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        for (_, fix) in &certain {
            if fix.edits.iter().all(|(r, _)| {
                all.iter()
                    .all(|(a, _)| r.end <= a.start || a.end <= r.start)
            }) {
                all.extend(fix.edits.iter().cloned());
            }
        }
        let fixed = apply(text, &all);
        let after = check_text(&fixed, vars.as_ref(), &s);
        let left: Vec<_> = after
            .iter()
            .filter(|f| f.fixes.iter().any(|x| x.certain))
            .collect();
        assert!(
            left.is_empty(),
            "{v}: fix-all needs another round: {left:?}\n{fixed}"
        );
        let errors = |fs: &[netbox_lsp::graphql::rules::RawFinding]| {
            fs.iter().filter(|f| f.severity == Severity::Error).count()
        };
        assert!(
            errors(&after) < errors(&before),
            "{v}: fix-all removed no error:\n{fixed}"
        );
        docs_fixed += 1;
    }
    eprintln!(
        "{fixes} certain fixes on {} documents checked; fix-all on {docs_fixed}",
        docs.len()
    );
    assert!(fixes >= 30, "only {fixes} certain fixes exercised");
}

/// Issue 31 §1: every kind of validation error the checker can emit (argument, field, type,
/// value, variable, fragment, directive, and the selection and operation kinds) says what it
/// means in NetBox's terms: no finding's message is the validator's text alone. Each document
/// is also validated by apollo-compiler directly, and a finding whose message equals (or only
/// ends with) one of its messages fails.
#[test]
fn every_validation_kind_speaks_netbox() {
    let walk: &[(&str, &str, &str)] = &[
        ("argument: a filter as a plain argument", "4.7.3", "{ vlan_list(vid: 100) { id } }"),
        ("argument: no such argument", "4.7.3", "{ vlan_list(sort: \"vid\") { id } }"),
        ("argument: single object without id", "4.7.3", "{ device { id } }"),
        ("argument: filter for filters", "4.7.3", "{ device_list(filter: {name: {exact: \"a\"}}) { id } }"),
        ("field: no such field", "4.7.3", "{ device_list(pagination: {limit: 5}) { id hostname } }"),
        ("field: removed in a release", "4.7.3", "{ user_list(pagination: {limit: 5}) { id is_staff } }"),
        ("field: missing by a schema defect", "4.3.3", "{ interface_list(filters: {kind: KIND_PHYSICAL}) { id } }"),
        ("field: required by a schema defect", "4.3.3", "{ config_context_list(filters: {name: {exact: \"x\"}}) { id } }"),
        ("field: needs a selection", "4.7.3", "{ device_list(pagination: {limit: 5}) { id site } }"),
        ("field: a value selected with braces", "4.7.3", "{ device_list(pagination: {limit: 5}) { id name { x } } }"),
        ("field: two selections, one name", "4.7.3", "{ device_list(pagination: {limit: 5}) { id id: name } }"),
        ("type: fragment on an unknown type", "4.7.3", "{ device_list(pagination: {limit: 5}) { ...D } } fragment D on Device { id }"),
        ("value: scalar for a lookup", "4.7.3", "{ site_list(filters: {name: \"x\"}, pagination: {limit: 5}) { id } }"),
        ("value: wrong scalar", "4.7.3", "{ device_list(pagination: {limit: \"five\"}) { id } }"),
        ("value: no such enum member", "4.7.3", "{ device_list(filters: {status: {exact: RUNNING}}, pagination: {limit: 5}) { id } }"),
        ("value: no such input field", "4.7.3", "{ cable_list(filters: {site: {slug: {exact: \"x\"}}}, pagination: {limit: 5}) { id } }"),
        ("variable: undefined", "4.7.3", "{ device(id: $id) { name } }"),
        ("variable: unused", "4.7.3", "query Q($id: ID!) { device(id: 7) { name } }"),
        ("variable: wrong type", "4.7.3", "query Q($id: String) { device(id: $id) { name } }"),
        ("fragment: undefined", "4.7.3", "{ device_list(pagination: {limit: 5}) { ...Missing } }"),
        ("fragment: unused", "4.7.3", "{ device_list(pagination: {limit: 5}) { id } } fragment U on DeviceType { id }"),
        ("directive: unknown", "4.7.3", "{ device_list(pagination: {limit: 5}) @cached { id } }"),
        ("operation: a mutation", "4.7.3", "mutation { device_list { id } }"),
        ("type: inline fragment on an unknown type", "4.7.3", "{ device_list(pagination: {limit: 5}) { ... on Device { id } } }"),
    ];
    let mut kinds = 0;
    for (what, v, doc) in walk {
        let s = schema(v);
        let raw: Vec<String> = match apollo_compiler::ast::Document::parse(*doc, "d.graphql") {
            Ok(ast) => match ast.to_executable_validate(&s.schema) {
                Ok(_) => Vec::new(),
                Err(e) => e.errors.iter().map(|d| d.error.to_string()).collect(),
            },
            Err(e) => e.errors.iter().map(|d| d.error.to_string()).collect(),
        };
        let findings: Vec<_> = check_text(doc, None, &s)
            .into_iter()
            .filter(|f| f.severity <= Severity::Warning && f.code != "graphql-pagination")
            .collect();
        assert!(!findings.is_empty(), "{what}: no finding for {doc}");
        for f in &findings {
            let only_validator = raw
                .iter()
                .any(|r| f.message == *r || f.message.trim_end_matches('.') == r.as_str());
            assert!(
                !only_validator,
                "{what}: the message is the validator's text alone: {}",
                f.message
            );
            // What the checker adds after a validator's text says more than punctuation.
            if let Some(r) = raw.iter().find(|r| f.message.starts_with(r.as_str())) {
                let added = f.message[r.len()..].trim_matches(|c: char| !c.is_alphanumeric());
                assert!(added.len() > 8, "{what}: nothing added to {r:?}");
            }
        }
        kinds += 1;
    }
    assert!(kinds >= 20, "{kinds}");
}
