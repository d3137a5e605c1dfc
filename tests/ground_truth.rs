//! Ground truth: the REST rows NetBox answered in `../shared/netbox/v<version>/ground-truth.tsv`
//! (copied to `tests/fixtures/ground-truth/v<version>.tsv`, with an `expected_code` column
//! added) and the systematic live sweeps (`ground-truth-sweep.tsv`, copied to
//! `v<version>-sweep.tsv` with an `expected_code` column appended by `derive-expected.py`: the
//! code per probe kind and NetBox's error text), for every shipped release
//! ([`embedded::RELEASES`]; 4.4.10's sweep is the project's own capture, [`SWEPT_HERE`]), checked through the real
//! pipeline (`analyze` on the line `/api/<endpoint>/?<query>`) against the embedded index of
//! that exact version.
//!
//! - honoured → no error and no warning (information is allowed: `tenant__n=null`), unless the
//!   hand review gave the row an expected code (`derive-expected.py` NEGATION_ROWS: an
//!   object-type filter's `__n` returned the objects OF that type): then that code;
//! - silently ignored, 400, 500, partial, "honoured (a different meaning)" → at least one error
//!   or warning with the expected code;
//! - `400 data` (the value names no object of the demo data) → no error and no warning, except
//!   rows whose answer is a static choice set's "Select a valid choice" (`status__ic=zz-no-such`),
//!   which carry `invalid-choice`;
//! - rows whose fault is the instance's data (a tag, id or custom field that does not exist
//!   there) are out of reach and listed by name in [`OUT_OF_REACH`].
//!
//! Each test prints a tally per version. The fixtures run on a fresh clone; only the comparison
//! with `../shared` prints SKIPPED when it is missing.

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

/// Shipped releases without a live sweep (no `ground-truth-sweep.tsv` anywhere).
const UNSWEPT: &[&str] = &[];

/// Releases whose sweep this project captured itself (`scripts/add-release.sh` on the lab,
/// 2026-12-05: `ground-truth-sweep.tsv` is not in `../shared`, the fixture is the capture).
const SWEPT_HERE: &[&str] = &["4.4.10"];

struct Row {
    endpoint: String,
    query: String,
    verdict: String,
    expected: String,
    /// Objects NetBox returned (`count_filtered` of the sweep layout; empty when not given).
    count: String,
}

/// The rows of one fixture file, read by its header (`query` / `query_string_or_graphql`,
/// `verdict`, `expected_code`), so the original and the sweep layout both work.
fn read_rows(file: &str) -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ground-truth")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |names: &[&str]| {
        header
            .iter()
            .position(|h| names.contains(h))
            .unwrap_or_else(|| panic!("{file}: no column {names:?}"))
    };
    let (q, v, e) = (
        col(&["query", "query_string_or_graphql"]),
        col(&["verdict"]),
        col(&["expected_code"]),
    );
    let n = header.iter().position(|h| *h == "count_filtered");
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Row {
                endpoint: c[0].to_string(),
                query: c[q].to_string(),
                verdict: c[v].to_string(),
                expected: c.get(e).unwrap_or(&"").to_string(),
                count: n.and_then(|n| c.get(n)).unwrap_or(&"").to_string(),
            }
        })
        .collect()
}

fn rows(version: &str) -> Vec<Row> {
    read_rows(&format!("v{version}.tsv"))
}

/// The sweep rows of `version` (`v<version>-sweep.tsv`), if that release was swept.
fn sweep_rows(version: &str) -> Option<Vec<Row>> {
    let file = format!("v{version}-sweep.tsv");
    let exists = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ground-truth")
        .join(&file)
        .exists();
    exists.then(|| read_rows(&file))
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

/// Checks the rows of one file against `version`'s embedded index; returns the failures and
/// prints a tally.
fn check_rows(version: &'static str, label: &str, rows: Vec<Row>) -> Vec<String> {
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
    let (mut data, mut data_clean) = (0, 0);
    for row in rows {
        let line = url_line(&row);
        let findings = analyze(&line, HostKind::Text, &knowledge);
        let described: Vec<String> = findings
            .iter()
            .map(|f| format!("{}[{}] {}", f.severity.as_str(), f.code, f.message))
            .collect();
        let reach = !OUT_OF_REACH.contains(&(row.endpoint.as_str(), row.query.as_str()));
        // A `400 data` row with an expected code is a static choice set the sweep counted as
        // data (`status__ic=zz-no-such`: "Select a valid choice"): checked like a 400.
        let data_row = row.verdict.starts_with("400 data") && row.expected.is_empty();
        // `clean`: the hand review found the filter narrowing where the sweep's values all
        // matched (derive-expected.py REVIEWED).
        let reviewed_clean = row.expected == "clean";
        if (row.verdict == "honoured" && row.expected.is_empty()) || data_row || reviewed_clean {
            let is_data = row.verdict != "honoured";
            if is_data {
                data += 1;
            } else {
                honoured += 1;
            }
            // A "matches nothing" finding (an object-type filter given a number) is the truth
            // where NetBox answered no object.
            let agrees = |f: &Finding| {
                row.count == "0"
                    && netbox_lsp::catalogue::get(f.code)
                        .is_some_and(|c| c.netbox == netbox_lsp::finding::Does::MatchesNothing)
            };
            if findings.iter().any(|f| serious(f) && !agrees(f)) {
                failures.push(format!(
                    "{version} {label} {} {line:?} flagged: {described:?}",
                    if is_data { "400 data" } else { "honoured" }
                ));
            } else if is_data {
                data_clean += 1;
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
                    "{version} {label} {:?} ({}) has no expected code and is not listed as out of reach",
                    row.query, row.verdict
                ));
            } else if findings
                .iter()
                .any(|f| serious(f) && f.code == row.expected)
            {
                caught += 1;
            } else {
                failures.push(format!(
                    "{version} {label} {} {line:?}: expected {}, got {described:?}",
                    row.verdict, row.expected
                ));
            }
        }
    }
    println!(
        "NetBox {version} {label}: honoured clean {clean}/{honoured}, ignored/400/500/partial caught {caught}/{faulty}, 400 data clean {data_clean}/{data}, out of reach {out}"
    );
    failures
}

/// Every shipped release has its ground truth (a release added without it fails here).
#[test]
fn ground_truth_rest_rows() {
    let mut failures = Vec::new();
    for version in embedded::versions() {
        failures.extend(check_rows(version, "ground truth", rows(version)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The systematic live sweeps (`v<version>-sweep.tsv`) of every shipped release but
/// [`UNSWEPT`]: every row agrees, and `400 data` rows (a value naming no object of the demo
/// data) stay clean.
#[test]
fn ground_truth_sweep_rows() {
    let mut failures = Vec::new();
    for version in embedded::versions() {
        let rows = sweep_rows(version);
        assert_eq!(
            rows.is_some(),
            !UNSWEPT.contains(&version),
            "NetBox {version}: a sweep fixture (v{version}-sweep.tsv) exactly for the swept releases"
        );
        if let Some(rows) = rows {
            failures.extend(check_rows(version, "sweep", rows));
        }
    }
    let shown: Vec<&String> = failures.iter().take(400).collect();
    assert!(
        failures.is_empty(),
        "{} sweep rows disagree:\n{}",
        failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
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
    for version in embedded::versions() {
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

/// The sweep fixtures are the shared sweeps with an `expected_code` column appended: when
/// `../shared` is present, every shared line must be the fixture line without that column.
#[test]
fn sweep_fixtures_match_shared_sweeps() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.parent().map(|p| p.join("shared/netbox")),
        Some(Path::new("/work/shared/netbox").to_path_buf()),
    ];
    let Some(shared) = candidates.into_iter().flatten().find(|p| p.is_dir()) else {
        println!("SKIPPED: ../shared/netbox not found; sweep fixture copies not compared");
        return;
    };
    for version in embedded::versions() {
        let Ok(text) =
            std::fs::read_to_string(shared.join(format!("v{version}/ground-truth-sweep.tsv")))
        else {
            assert!(
                UNSWEPT.contains(&version) || SWEPT_HERE.contains(&version),
                "{version}: ../shared has no sweep, but it is not listed in UNSWEPT or SWEPT_HERE"
            );
            println!("SKIPPED: no shared sweep for {version}");
            continue;
        };
        let path = manifest.join(format!("tests/fixtures/ground-truth/v{version}-sweep.tsv"));
        let ours = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let ours: Vec<&str> = ours
            .lines()
            .map(|l| l.rsplit_once('\t').map_or(l, |(head, _)| head))
            .collect();
        let theirs: Vec<&str> = text.lines().collect();
        assert_eq!(theirs.len(), ours.len(), "{version}: sweep row count");
        for (t, o) in theirs.iter().zip(&ours) {
            assert_eq!(t, o, "{version}: sweep fixture differs from ../shared");
        }
    }
}
