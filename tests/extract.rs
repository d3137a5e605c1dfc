//! Data-driven extraction tests: every fixture in `tests/fixtures/extract/` is extracted and
//! rendered readably (each range shown as `line:col` plus the host text it covers, so range
//! exactness is visible in the snapshot), and checked against properties that must hold for any
//! host: ranges inside the host on char boundaries, `&host[key_range] == key`, GraphQL maps that
//! land on the same characters.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use netbox_lsp::extract::{extract, Extraction, HostKind, Site, Value};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extract");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture dir")
        .map(|e| e.unwrap().path())
        .filter(|p| HostKind::from_path(p).is_some())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "fixtures missing in {}", dir.display());
    files
}

/// 1-based line and 1-based column in characters.
fn pos(host: &str, off: usize) -> String {
    let before = &host[..off];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap().chars().count() + 1;
    format!("{line}:{col}")
}

fn show(host: &str, r: &Range<usize>) -> String {
    let text = &host[r.clone()];
    let one_line: String = text.replace('\n', "⏎");
    let cut: String = one_line.chars().take(70).collect();
    let more = if one_line.chars().count() > 70 {
        "…"
    } else {
        ""
    };
    format!("{}..{} `{cut}{more}`", pos(host, r.start), pos(host, r.end))
}

fn value(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("{s:?}"),
        Value::Int(i) => format!("{i}"),
        Value::Float(f) => format!("{f:?}"),
        Value::Bool(b) => format!("{b}"),
        Value::Null => "null".into(),
        Value::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|(v, _)| value(v))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Map => "{map}".into(),
        Value::Expr => "<expr>".into(),
        Value::Joined(j) => format!("<joined by {:?}>", j.separator),
    }
}

fn render(host: &str, ex: &Extraction) -> String {
    let mut out = String::new();
    for b in &ex.blocks {
        writeln!(out, "block {}", show(host, b)).unwrap();
    }
    for site in &ex.sites {
        match site {
            Site::Rest(c) => {
                writeln!(out, "REST {:?} {:?}", c.form, c.syntax).unwrap();
                writeln!(out, "  call    {}", show(host, &c.call_range)).unwrap();
                match &c.target {
                    Some((t, r)) => writeln!(out, "  target  {t:?} {}", show(host, r)).unwrap(),
                    None => writeln!(out, "  target  none").unwrap(),
                }
                if let Some(r) = &c.filters_range {
                    writeln!(out, "  filters {}", show(host, r)).unwrap();
                }
                for f in &c.filters {
                    writeln!(
                        out,
                        "    {}@{} = {}   value {}",
                        f.key,
                        pos(host, f.key_range.start),
                        value(&f.value),
                        show(host, &f.value_range)
                    )
                    .unwrap();
                }
                for a in &c.args {
                    writeln!(
                        out,
                        "    arg {}@{} = {}   value {}",
                        a.name,
                        pos(host, a.name_range.start),
                        value(&a.value),
                        show(host, &a.value_range)
                    )
                    .unwrap();
                }
            }
            Site::Graphql(d) => {
                let start = d.map.to_host(0);
                let end = d.map.to_host_end(d.text.len());
                writeln!(out, "GRAPHQL {}", show(host, &(start..end))).unwrap();
                writeln!(out, "  text {:?}", d.text).unwrap();
                if let Some(v) = &d.variables {
                    writeln!(out, "  variables {v}").unwrap();
                }
            }
            Site::NotChecked(n) => {
                writeln!(out, "NOT CHECKED {} {}", show(host, &n.range), n.reason).unwrap();
            }
        }
    }
    out
}

/// Properties every extraction must have, whatever the host.
fn check_properties(name: &str, host: &str, ex: &Extraction) {
    let ok = |r: &Range<usize>| r.start <= r.end && host.get(r.clone()).is_some();
    for b in &ex.blocks {
        assert!(ok(b), "{name}: block {b:?}");
    }
    for site in &ex.sites {
        match site {
            Site::Rest(c) => {
                assert!(ok(&c.call_range), "{name}: call {:?}", c.call_range);
                if let Some((_, r)) = &c.target {
                    assert!(ok(r), "{name}: target {r:?}");
                }
                for f in &c.filters {
                    assert!(ok(&f.key_range) && ok(&f.value_range), "{name}: {f:?}");
                    if !f.key_range.is_empty() {
                        assert_eq!(&host[f.key_range.clone()], f.key, "{name}: key range");
                    }
                    if let Value::List(items) = &f.value {
                        for (_, r) in items {
                            assert!(ok(r), "{name}: list item {r:?}");
                        }
                    }
                }
                for a in &c.args {
                    assert!(ok(&a.name_range) && ok(&a.value_range), "{name}: {a:?}");
                    if !a.name_range.is_empty() {
                        assert_eq!(&host[a.name_range.clone()], a.name, "{name}: arg name");
                    }
                }
            }
            Site::Graphql(d) => {
                assert_eq!(
                    d.map.len(),
                    d.text.len(),
                    "{name}: graphql map covers the text"
                );
                for (i, ch) in d.text.char_indices() {
                    if ch.is_whitespace() {
                        continue;
                    }
                    let h = d.map.to_host(i);
                    assert_eq!(
                        host[h..].chars().next(),
                        Some(ch),
                        "{name}: graphql byte {i} maps to host {h}"
                    );
                }
            }
            Site::NotChecked(n) => assert!(ok(&n.range), "{name}: not checked {:?}", n.range),
        }
    }
}

#[test]
fn fixtures_snapshot_and_properties() {
    for path in fixtures() {
        let host = std::fs::read_to_string(&path).unwrap();
        let kind = HostKind::from_path(&path).unwrap();
        let ex = extract(&host, kind);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        check_properties(&name, &host, &ex);
        insta::assert_snapshot!(name.clone(), render(&host, &ex));
    }
}

/// Types each fixture one character at a time: every prefix must extract without a panic and
/// keep the properties.
#[test]
fn every_prefix_of_every_fixture() {
    for path in fixtures() {
        let host = std::fs::read_to_string(&path).unwrap();
        let kind = HostKind::from_path(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for (i, _) in host
            .char_indices()
            .chain(std::iter::once((host.len(), ' ')))
        {
            let prefix = &host[..i];
            let ex = extract(prefix, kind);
            check_properties(&format!("{name}[..{i}]"), prefix, &ex);
        }
    }
}

/// A call still being typed at the end of a fence yields what can be read.
#[test]
fn half_typed_call_is_read() {
    let host = "```python\nnetbox_get_objects(\"dcim.device\", filters={\"site_id\": 1, \"sta";
    let ex = extract(host, HostKind::Markdown);
    let Some(Site::Rest(c)) = ex.sites.first() else {
        panic!("no call: {ex:?}");
    };
    assert_eq!(c.target.as_ref().unwrap().0, "dcim.device");
    assert_eq!(c.filters[0].key, "site_id");
    assert_eq!(c.filters[0].value, Value::Int(1));
}

/// A dict that repeats a key sends the key's last value (Python keeps the last): one filter
/// per key, at the last one's place, in a small dict and in one of more than 16 keys; the same
/// dict without the repeat keeps every key.
#[test]
fn a_repeated_dict_key_keeps_its_last_value() {
    for n in [3usize, 20] {
        for repeat in [true, false] {
            let mut pairs: Vec<String> = (0..n).map(|i| format!("\"k{i}\": {i}")).collect();
            if repeat {
                pairs.push("\"k1\": 99".into());
            }
            let host = format!(
                "netbox_get_objects(\"dcim.device\", {{{}}})\n",
                pairs.join(", ")
            );
            let ex = extract(&host, HostKind::Python);
            let Some(Site::Rest(c)) = ex.sites.first() else {
                panic!("no call: {ex:?}");
            };
            assert_eq!(c.filters.len(), n, "{host}");
            let k1: Vec<_> = c.filters.iter().filter(|f| f.key == "k1").collect();
            assert_eq!(k1.len(), 1, "{host}");
            assert_eq!(
                k1[0].value,
                Value::Int(if repeat { 99 } else { 1 }),
                "{host}"
            );
            assert_eq!(&host[k1[0].key_range.clone()], "k1");
            let last = host.rfind("\"k1\"").unwrap() + 1;
            assert_eq!(k1[0].key_range.start, last, "{host}");
        }
    }
}

/// Odd input: NUL bytes, deep nesting, thousands of fences, a huge file.
#[test]
fn odd_input_does_not_panic() {
    for kind in [
        HostKind::Markdown,
        HostKind::Python,
        HostKind::Yaml,
        HostKind::Json,
        HostKind::Text,
    ] {
        extract(
            "\0\0netbox_get_objects(\0\"dcim.device\", {\"a\0\": \0})",
            kind,
        );
        extract(&"[".repeat(20_000), kind);
        extract(&"{\"a\": ".repeat(5_000), kind);
        extract("```python\n", kind);
        extract("- ```yaml\n  a: |\n", kind);
    }
    let many: String = (0..10_000)
        .map(|i| format!("```python\nnetbox_get_objects(\"dcim.device\", {{\"id\": {i}}})\n```\n"))
        .collect();
    let ex = extract(&many, HostKind::Markdown);
    assert_eq!(ex.blocks.len(), 10_000);
    assert_eq!(ex.sites.len(), 10_000);
}

#[test]
fn huge_markdown_falls_back_to_url_scan() {
    let line =
        "text /api/dcim/devices/?status=active and `netbox_get_objects(\"dcim.site\", {})`\n";
    let big = line.repeat(20 * 1024 * 1024 / line.len() + 1);
    let ex = extract(&big, HostKind::Markdown);
    assert!(ex.sites.len() > 200_000);
}
