//! Ground truth: the REST rows NetBox answered in `../shared/netbox/v<version>/ground-truth.tsv`
//! (copied to `tests/fixtures/ground-truth/`, with an `expected_code` column added), checked
//! through the real pipeline (`analyze` on the line `/api/<endpoint>/?<query>`) against the
//! embedded index of that exact version.
//!
//! - honoured → no error and no warning (information is allowed: `tenant__n=null`);
//! - silently ignored, 400, 500, partial → at least one error or warning with the expected code;
//! - rows whose fault is the instance's data (a tag, id or custom field that does not exist
//!   there) are out of reach and listed by name in [`OUT_OF_REACH`].

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::HostKind;
use netbox_lsp::finding::{Finding, Severity};
use netbox_lsp::index::embedded;
use std::path::Path;

/// Rows only a live instance can judge: `(endpoint, query)`.
const OUT_OF_REACH: &[(&str, &str)] = &[
    ("dcim/devices", "tag=nonexistent-tag"), // tag slug that does not exist there: 400
    ("dcim/devices", "cf_nonexistent=1"),    // custom field that does not exist there: ignored
    ("dcim/devices", "site_id=999999"),      // id that does not exist there: 400
];

struct Row {
    endpoint: String,
    query: String,
    verdict: String,
    expected: String,
}

fn rows(version: &str) -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ground-truth")
        .join(format!("v{version}.tsv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Row {
                endpoint: c[0].to_string(),
                query: c[1].to_string(),
                verdict: c[3].to_string(),
                expected: c.get(4).unwrap_or(&"").to_string(),
            }
        })
        .collect()
}

/// The query as it would be written in a URL (spaces form-encoded).
fn url_line(row: &Row) -> String {
    format!(
        "GET /api/{}/?{}\n",
        row.endpoint,
        row.query.replace(' ', "+")
    )
}

fn serious(f: &Finding) -> bool {
    matches!(f.severity, Severity::Error | Severity::Warning)
}

/// Checks one version; returns (honoured clean, honoured, caught, faulty in reach, out of reach).
fn check_version(version: &'static str) -> Vec<String> {
    let knowledge = Knowledge {
        index: Some(embedded::embedded_index(version)),
        graphql: None,
        ..Default::default()
    };
    assert_eq!(
        knowledge.index.as_ref().unwrap().netbox_version,
        version,
        "embedded index version"
    );
    let mut failures = Vec::new();
    let (mut honoured, mut clean, mut faulty, mut caught, mut out) = (0, 0, 0, 0, 0);
    for row in rows(version) {
        let line = url_line(&row);
        let findings = analyze(&line, HostKind::Text, &knowledge);
        let described: Vec<String> = findings
            .iter()
            .map(|f| format!("{}[{}] {}", f.severity.as_str(), f.code, f.message))
            .collect();
        let reach = !OUT_OF_REACH.contains(&(row.endpoint.as_str(), row.query.as_str()));
        if row.verdict == "honoured" {
            honoured += 1;
            if findings.iter().any(serious) {
                failures.push(format!(
                    "{version} honoured {line:?} flagged: {described:?}"
                ));
            } else {
                clean += 1;
            }
        } else if !reach {
            out += 1;
            assert!(
                row.expected.is_empty(),
                "{version}: out-of-reach row {:?} has an expected code",
                row.query
            );
        } else {
            faulty += 1;
            if row.expected.is_empty() {
                failures.push(format!(
                    "{version} {:?} ({}) has no expected code and is not listed as out of reach",
                    row.query, row.verdict
                ));
            } else if findings
                .iter()
                .any(|f| serious(f) && f.code == row.expected)
            {
                caught += 1;
            } else {
                failures.push(format!(
                    "{version} {} {line:?}: expected {}, got {described:?}",
                    row.verdict, row.expected
                ));
            }
        }
    }
    println!(
        "NetBox {version}: honoured clean {clean}/{honoured}, ignored/400/500/partial caught {caught}/{faulty}, out of reach {out}"
    );
    failures
}

#[test]
fn ground_truth_rest_rows() {
    let mut failures = Vec::new();
    for version in ["4.3.3", "4.4.10", "4.5.10", "4.6.8"] {
        if !embedded::RELEASES.iter().any(|r| r.version == version) {
            println!("NetBox {version}: not shipped in this build, skipped");
            continue;
        }
        failures.extend(check_version(version));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fixtures are copies of the shared ground truth: when `../shared` is present, the REST
/// rows (endpoint, query, status, verdict) must match it.
#[test]
fn fixtures_match_shared_ground_truth() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.parent().map(|p| p.join("shared/netbox")),
        Some(Path::new("/work/shared/netbox").to_path_buf()),
    ];
    let Some(shared) = candidates.into_iter().flatten().find(|p| p.is_dir()) else {
        println!("SKIPPED: ../shared/netbox not found; fixture copies not compared");
        return;
    };
    for version in ["4.3.3", "4.4.10", "4.5.10", "4.6.8"] {
        let Ok(text) = std::fs::read_to_string(shared.join(format!("v{version}/ground-truth.tsv")))
        else {
            println!("SKIPPED: no shared ground truth for {version}");
            continue;
        };
        let shared_rows: Vec<(String, String, String, String)> = text
            .lines()
            .skip(1)
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .filter(|c| c[0] != "graphql")
            .map(|c| (c[0].into(), c[1].into(), c[2].into(), c[5].into()))
            .collect();
        let ours: Vec<(String, String, String, String)> = rows(version)
            .into_iter()
            .map(|r| (r.endpoint, r.query, String::new(), r.verdict))
            .collect();
        assert_eq!(shared_rows.len(), ours.len(), "{version}: row count");
        for (s, o) in shared_rows.iter().zip(&ours) {
            assert_eq!((&s.0, &s.1, &s.3), (&o.0, &o.1, &o.3), "{version}");
        }
    }
}
