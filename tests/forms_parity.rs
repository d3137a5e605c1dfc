//! Issue 11 §1 parity: every host form of `tests/fixtures/forms/parity.txt` gets diagnostics,
//! completion of filter names and choice values (typed half-way, the text cut at the cursor),
//! and hover — all from the one call-form table; every form of
//! `tests/fixtures/forms/parity-graphql.txt` that carries a GraphQL document gets its
//! diagnostics, completion and hover likewise. Prints the table of forms it ran.

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::index::embedded::embedded_index;
use netbox_lsp::server::position::{Encoding, Snapshot};
use netbox_lsp::server::{completion, context, graphql_site, hover};

struct Case {
    name: String,
    kind: HostKind,
    text: String,
    /// Completion is asked in the finished text (the call comes after the cursor's unit).
    finished: bool,
}

fn cases() -> Vec<Case> {
    let out = cases_of("parity.txt");
    assert!(out.len() >= 20, "only {} forms", out.len());
    out
}

/// The sections of `tests/fixtures/forms/<file>`.
fn cases_of(file: &str) -> Vec<Case> {
    let path = format!("{}/tests/fixtures/forms/{file}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).expect("parity fixture");
    let mut out: Vec<Case> = Vec::new();
    for line in src.lines() {
        if let Some(head) = line.strip_prefix("## ") {
            let (name, kind) = head.rsplit_once(" | ").expect("`## name | kind`");
            let (kind, finished) = match kind.trim().split_once(' ') {
                Some((k, "finished")) => (k, true),
                _ => (kind.trim(), false),
            };
            let kind = match kind {
                "python" => HostKind::Python,
                "json" => HostKind::Json,
                "yaml" => HostKind::Yaml,
                "markdown" => HostKind::Markdown,
                "text" => HostKind::Text,
                "notebook" => HostKind::Notebook,
                k => panic!("unknown host kind {k}"),
            };
            out.push(Case {
                name: name.to_string(),
                kind,
                text: String::new(),
                finished,
            });
        } else if let Some(c) = out.last_mut() {
            c.text.push_str(line);
            c.text.push('\n');
        }
    }
    out
}

/// Completion labels at `cut`, with the text cut there (a half-typed call) unless the case
/// says `finished`.
fn labels(c: &Case, cut: usize, index: &netbox_lsp::index::FilterIndex) -> Vec<String> {
    let text = if c.finished {
        &c.text[..]
    } else {
        &c.text[..cut]
    };
    // As the server asks: the call-form context, then the extractor-driven one (Ansible, curl).
    let ctx = context::at(text, cut, c.kind)
        .or_else(|| netbox_lsp::server::form_context::at(text, cut, c.kind));
    let Some(ctx) = ctx else {
        return Vec::new();
    };
    let snap = Snapshot::new(text.to_string(), 1);
    completion::items(&ctx, index, &snap, Encoding::Utf16)
        .into_iter()
        .map(|i| i.label)
        .collect()
}

#[test]
fn every_form_gets_diagnostics_completion_and_hover() {
    let index = embedded_index("4.6.8");
    let knowledge = Knowledge {
        index: Some(index.clone()),
        ..Default::default()
    };
    let mut table = String::from("| form | host | diagnostic | filter names | choice values | hover |\n|---|---|---|---|---|---|\n");
    let mut failures = Vec::new();
    for c in cases() {
        let findings = analyze(&c.text, c.kind, &knowledge);
        let at = c
            .text
            .find("device_role")
            .expect("device_role in the snippet");
        let diag = findings
            .iter()
            .any(|f| f.code == "unknown-filter" && f.range.start == at);
        let key = c.text.find("status").expect("status") + 4;
        let names = labels(&c, key, &index).iter().any(|l| l == "status");
        let value = c.text.find("active").expect("active") + 3;
        let values = labels(&c, value, &index).iter().any(|l| l == "active");
        let hovered =
            hover::describe(&c.text, at + 2, c.kind, &index, &findings).is_some_and(|(_, t)| {
                // On a flagged key the hover adds the endpoint's nearest real filters (the
                // diagnostic, shown with it, says what is wrong).
                t.contains("Nearest filters of `/api/dcim/devices/`") && t.contains("- `role")
            });
        let mark = |b: bool| if b { "yes" } else { "NO" };
        table.push_str(&format!(
            "| {} | {:?} | {} | {} | {} | {} |\n",
            c.name,
            c.kind,
            mark(diag),
            mark(names),
            mark(values),
            mark(hovered)
        ));
        if !(diag && names && values && hovered) {
            failures.push(c.name.clone());
        }
    }
    println!(
        "Call-form table:\n{}",
        netbox_lsp::extract::call_forms_table()
    );
    println!("{table}");
    assert!(
        failures.is_empty(),
        "forms without parity: {failures:?}\n{table}"
    );
}

/// Every form that carries a GraphQL document (the `Carries::Graphql` rows of the call-form
/// table, the GraphQL tool through its wrappers, a Markdown fence) gets the GraphQL diagnostic,
/// completion and hover at the document's positions in the host.
#[test]
fn every_graphql_carrier_gets_diagnostics_completion_and_hover() {
    let schema = netbox_lsp::graphql::embedded_schema("4.6.8").expect("4.6.8 schema");
    let knowledge = Knowledge {
        graphql: Some(schema.clone()),
        ..Default::default()
    };
    let cases = cases_of("parity-graphql.txt");
    assert!(cases.len() >= 10, "only {} forms", cases.len());
    let mut failures = Vec::new();
    for c in cases {
        let findings = analyze(&c.text, c.kind, &knowledge);
        let at = c.text.find("device_role").expect("device_role");
        let diag = findings
            .iter()
            .any(|f| f.range.start <= at && at < f.range.end && f.message.contains("device_role"));
        let locate = |offset: usize| graphql_site::locate(&c.text, c.kind, offset);
        let status = c.text.find("status").expect("status") + 3;
        let completes = locate(status).is_some_and(|(doc, e)| {
            netbox_lsp::graphql::complete(&doc.text, e, &schema)
                .iter()
                .any(|i| i.label == "status")
        });
        let list = c.text.find("device_list").expect("device_list") + 2;
        let hovers = locate(list)
            .and_then(|(doc, e)| netbox_lsp::graphql::hover(&doc.text, e, &schema))
            .is_some_and(|t| t.contains("Query.device_list(filters: DeviceFilter"));
        if !(diag && completes && hovers) {
            failures.push(format!(
                "{} (diagnostic {diag}, completion {completes}, hover {hovers})",
                c.name
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "GraphQL forms without parity: {failures:#?}"
    );
}

fn apply(text: &str, edits: &[(std::ops::Range<usize>, String)]) -> String {
    let mut sorted: Vec<&(std::ops::Range<usize>, String)> = edits.iter().collect();
    sorted.sort_by_key(|e| e.0.start);
    let (mut out, mut at) = (String::new(), 0);
    for (r, t) in sorted {
        if r.start < at {
            continue;
        }
        out.push_str(&text[at..r.start]);
        out.push_str(t);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

fn parses_as_python(text: &str) -> bool {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_python::LANGUAGE.into())
        .unwrap();
    p.parse(text, None)
        .is_some_and(|t| !t.root_node().has_error())
}

/// Certain fixes (fix-all) inside f-strings, concatenations and `params=` dicts keep the file
/// valid Python, and the fixed file has nothing left to fix.
#[test]
fn certain_fixes_keep_python_valid() {
    let knowledge = Knowledge {
        index: Some(embedded_index("4.6.8")),
        ..Default::default()
    };
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/python/http_clients.py"
    );
    let mut texts = vec![std::fs::read_to_string(example).unwrap()];
    texts.extend(
        cases()
            .into_iter()
            .filter(|c| c.kind == HostKind::Python)
            .map(|c| c.text),
    );
    for text in texts {
        assert!(parses_as_python(&text));
        let findings = analyze(&text, HostKind::Python, &knowledge);
        let edits: Vec<_> = findings
            .iter()
            .flat_map(|f| f.fixes.iter().filter(|x| x.certain).take(1))
            .flat_map(|x| {
                x.edits
                    .iter()
                    .map(|e| (e.range.clone(), e.new_text.clone()))
            })
            .collect();
        let fixed = apply(&text, &edits);
        assert!(parses_as_python(&fixed), "{fixed}");
        let again = analyze(&fixed, HostKind::Python, &knowledge);
        assert!(
            again.iter().all(|f| f.fixes.iter().all(|x| !x.certain)),
            "{fixed}\n{again:?}"
        );
    }
    // The f-string stays an f-string with its interpolations.
    let src = "requests.get(f\"{API_URL}/dcim/devices/?device_role_id={rid}&site_id={sid}\")\n";
    let findings = analyze(src, HostKind::Python, &knowledge);
    let edits: Vec<_> = findings
        .iter()
        .flat_map(|f| f.fixes.iter().filter(|x| x.certain).take(1))
        .flat_map(|x| {
            x.edits
                .iter()
                .map(|e| (e.range.clone(), e.new_text.clone()))
        })
        .collect();
    assert_eq!(
        apply(src, &edits),
        "requests.get(f\"{API_URL}/dcim/devices/?role_id={rid}&site_id={sid}\")\n"
    );
}

/// docs/call-forms.md shows the call-form table as the code has it.
#[test]
fn the_docs_show_the_table() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/call-forms.md"))
        .unwrap();
    assert!(
        doc.contains(&netbox_lsp::extract::call_forms_table()),
        "docs/call-forms.md is out of date; its table is:\n{}",
        netbox_lsp::extract::call_forms_table()
    );
}
