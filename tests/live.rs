//! Live checks (`check --live`, issue 21) against what real NetBox releases answered: every row
//! of `../shared/netbox/v*/ground-truth.tsv` and `ground-truth-sweep.tsv`, extracted to
//! `tests/fixtures/live/answers.tsv.gz` and replayed (see `live_replay`).
//!
//! - each verdict kind, from real answers, through the real CLI and a loopback replay server;
//! - the request budget, the per-run cache, at most 4 requests in flight;
//! - the safety rules: only GET of list endpoints and POST /graphql/ with queries, only to the
//!   configured origin (a URL in the document names another host: nothing goes there; a
//!   redirect to another origin is not followed), never from a workspace file, the token never
//!   printed, a timeout on every request;
//! - live and static agree on the rows where they should: per dataset, every row's live verdict
//!   follows from NetBox's recorded answer, and the rows where the live check says the
//!   instance differs from the knowledge are exactly the ones listed here, each with why.

use netbox_lsp::analysis::Knowledge;
use netbox_lsp::extract::HostKind;
use netbox_lsp::index::embedded;
use netbox_lsp::live::{plan, Answer, Answers, Bound};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::instance_replay;
use crate::live_replay;
use instance_replay::{Reply, Seen, Server, V1};
use live_replay::{Record, Replay};

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/live")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn replay(dataset: &str) -> Replay {
    Replay::new(&live_replay::rows()[dataset]).release(dataset)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], dir: Option<&Path>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("NETBOX_TOKEN", V1);
    for v in instance_replay::PROXY_VARS {
        cmd.env_remove(v);
    }
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A strict replay server of `dataset` that also counts requests in flight (each answer waits a
/// little, so that requests overlap when the client sends several at once).
fn strict_server(dataset: &str) -> (Server, Arc<Record>, Arc<AtomicUsize>) {
    let record = Arc::new(Record::default());
    let inner = live_replay::strict(replay(dataset), V1, record.clone());
    let (now, max) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let m = max.clone();
    let server = Server::start(Box::new(move |req: &Seen| {
        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
        m.fetch_max(n, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(30));
        let r = inner(req);
        now.fetch_sub(1, Ordering::SeqCst);
        r
    }));
    (server, record, max)
}

fn json_findings(stdout: &str) -> Vec<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
        .as_array()
        .unwrap()
        .clone()
}

/// The instance's own index, built by `index build` in `dir` from the instance fixtures (its
/// OpenAPI document, custom fields and choice sets; `status` adds its status answer).
fn instance_index(dir: &Path, status: bool) -> std::path::PathBuf {
    let index = dir.join("instance.index.json.gz");
    let inst = |n: &str| format!("{}/tests/fixtures/instance/{n}", env!("CARGO_MANIFEST_DIR"));
    let mut args = vec!["index".to_string(), "build".into(), "--openapi".into()];
    args.push(inst("openapi.json.gz"));
    if status {
        args.extend(["--status".into(), inst("status.json.gz")]);
    }
    args.extend(["--custom-fields".into(), inst("custom-fields.json.gz")]);
    args.extend([
        "--choice-sets".into(),
        inst("custom-field-choice-sets.json.gz"),
    ]);
    args.extend(["-o".into(), index.to_str().unwrap().into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let b = run(&args, None);
    assert_eq!(b.code, 0, "{}", b.stderr);
    index
}

/// `line:code` of every live finding, in output order.
fn live_codes(findings: &[serde_json::Value]) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("live-"))
        .map(|f| {
            format!(
                "{}:{}",
                f["range"]["start"]["line"].as_u64().unwrap() + 1,
                f["code"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn fixture_holds_every_shared_row() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/netbox");
    if !shared.exists() {
        eprintln!(
            "SKIPPED fixture_holds_every_shared_row: {} is missing (the fixture itself is tested below)",
            shared.display()
        );
        return;
    }
    let rows = live_replay::rows();
    let mut checked = 0;
    for entry in std::fs::read_dir(&shared).unwrap() {
        let dir = entry.unwrap().path();
        let Some(version) = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix('v'))
        else {
            continue;
        };
        for (file, suffix) in [
            ("ground-truth.tsv", ""),
            ("ground-truth-sweep.tsv", "-sweep"),
        ] {
            let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
                continue;
            };
            let dataset = format!("{version}{suffix}");
            let have = rows
                .get(&dataset)
                .unwrap_or_else(|| panic!("no dataset {dataset}"));
            for line in text.lines().skip(1) {
                // A count the sweep could not read is written `None` (no number in the answer).
                let c: Vec<&str> = line
                    .split('\t')
                    .map(|f| if f == "None" { "" } else { f })
                    .collect();
                if c.len() < 5 || c[2].parse::<u16>().is_err() {
                    continue;
                }
                let found = have.iter().any(|r| {
                    r.endpoint == c[0]
                        && r.query == c[1]
                        && r.status.to_string() == c[2]
                        && r.filtered.map(|n| n.to_string()).unwrap_or_default() == c[3]
                        && r.unfiltered.map(|n| n.to_string()).unwrap_or_default() == c[4]
                });
                assert!(found, "{dataset}: row missing from answers.tsv.gz: {line}");
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} rows");
    eprintln!("answers.tsv.gz holds all {checked} rows of ../shared/netbox");
}

/// The live verdict a row's answers must give, by NetBox's recorded status and counts.
fn expected_kind(row: &live_replay::Row) -> &'static str {
    match (row.status, row.filtered, row.unfiltered) {
        (500..=599, _, _) => "live-server-fault",
        (400..=499, _, _) => "live-refused",
        (_, Some(0), _) => "live-empty",
        (_, Some(f), Some(u)) if f == u => "live-unchanged",
        (_, Some(f), Some(u)) if f < u => "live-narrowed",
        _ => "?",
    }
}

/// Rows where the live check says the instance differs from the knowledge, per dataset:
/// `(dataset, endpoint, query, why)`. Each would be a real difference between what NetBox
/// answered and what the static knowledge of that release says. None is left: the last five
/// (4.5.10 refusing a non-address on `primary_ip4`/`primary_ip6`/`primary_mac_address`) went
/// when those value forms were carried to 4.5.10 from its source (`src/rest/faults.rs`).
const DIFFERS: &[(&str, &str, &str, &str)] = &[];

#[test]
fn live_and_static_agree_on_every_recorded_row() {
    let rows = live_replay::rows();
    let mut differs_seen: Vec<(String, String, String)> = Vec::new();
    let mut unmatched: Vec<String> = Vec::new();
    let mut tally: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    for (dataset, list) in &rows {
        let version = dataset.trim_end_matches("-sweep");
        if !embedded::RELEASES.iter().any(|r| r.version == version) {
            continue; // a release without an embedded index of its own (4.7.3, the customised instance)
        }
        let index = embedded::load(version).unwrap();
        let release = embedded::RELEASES
            .iter()
            .find(|r| r.version == version)
            .unwrap();
        let knowledge = Knowledge {
            index: Some(Arc::new(index)),
            graphql_embedded: Some(release.version),
            ..Default::default()
        };
        let replay = Replay::new(list);
        // GraphQL rows, sent as written: NetBox's errors against the static validation.
        for row in list.iter().filter(|r| r.endpoint == "graphql") {
            let p = plan::plan(&row.query, HostKind::Graphql, &knowledge, Bound::AsWritten);
            let t = tally.entry(dataset.clone()).or_default();
            let Some(op) = p.documents.first().and_then(|d| d.operations.first()) else {
                *t.entry("graphql not sent").or_default() += 1;
                continue;
            };
            let netbox_lsp::live::Request::Graphql { body } = &op.request else {
                unreachable!()
            };
            let (status, _, reply) =
                replay.answer("POST", "/graphql/", body.as_bytes(), "127.0.0.1:1");
            let mut answers = Answers::default();
            answers.by_request.insert(
                op.request.clone(),
                Answer::of_body(&op.request, status, &reply),
            );
            let (findings, _) = p.judge(&answers, &row.query, HostKind::Graphql);
            let codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
            let want = match (row.body.is_empty(), row.filtered) {
                (false, _) => "live-graphql-error",
                (true, Some(_)) => "live-graphql-objects",
                (true, None) => "graphql without a count",
            };
            assert!(
                codes.contains(&want)
                    || (want == "graphql without a count"
                        && !codes.contains(&"live-graphql-error")),
                "{dataset} {}: expected {want}, got {codes:?}",
                row.query
            );
            *t.entry(want).or_default() += 1;
            if codes.contains(&"live-differs") {
                *t.entry("live-differs").or_default() += 1;
                differs_seen.push((dataset.clone(), "graphql".into(), row.query.clone()));
            }
        }
        for row in list.iter().filter(|r| r.endpoint != "graphql") {
            // As a user writes the URL: a blank or a sentence's last dot would end it in text.
            let mut query = row.query.replace(' ', "%20");
            if query.ends_with('.') {
                query = format!("{}%2E", query.trim_end_matches('.'));
            }
            let text = format!("/api/{}/?{query}\n", row.endpoint);
            let p = plan::plan(&text, HostKind::Text, &knowledge, Bound::Refuse);
            let t = tally.entry(dataset.clone()).or_default();
            if p.calls.len() != 1 {
                *t.entry("not checkable").or_default() += 1;
                continue;
            }
            let mut answers = Answers::default();
            for req in p.all_requests() {
                let (status, _, body) =
                    replay.answer(req.method(), &req.path(), b"", "127.0.0.1:1");
                let answer = Answer::of_body(&req, status, &body);
                answers.by_request.insert(req, answer);
            }
            if matches!(
                answers.get(&p.calls[0].filtered),
                Some(Answer::Reply { status: 404, .. })
            ) {
                // The call read from the row's text is not the row's request.
                unmatched.push(format!(
                    "{dataset} {} {} sent {:?}",
                    row.endpoint,
                    row.query,
                    p.calls[0].filtered.path()
                ));
                continue;
            }
            let (findings, _) = p.judge(&answers, &text, HostKind::Text);
            let codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
            let want = expected_kind(row);
            assert!(
                codes.contains(&want),
                "{dataset} {} {}: expected {want}, got {codes:?}",
                row.endpoint,
                row.query
            );
            *t.entry(want).or_default() += 1;
            if codes.contains(&"live-differs") {
                *t.entry("live-differs").or_default() += 1;
                differs_seen.push((dataset.clone(), row.endpoint.clone(), row.query.clone()));
            }
        }
    }
    for (d, t) in &tally {
        eprintln!("{d}: {t:?}");
    }
    for d in &differs_seen {
        eprintln!("differs: {d:?}");
    }
    for u in &unmatched {
        eprintln!("unmatched: {u}");
    }
    let listed: Vec<(String, String, String)> = DIFFERS
        .iter()
        .map(|(d, e, q, _)| (d.to_string(), e.to_string(), q.to_string()))
        .collect();
    differs_seen.sort();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    assert_eq!(differs_seen, listed_sorted);
}

/// The CLI against the strict replay of NetBox 4.6.8's answers.
fn live_run(server: &Server, files: &[&str], extra: &[&str]) -> Run {
    let url = server.url();
    let mut args = vec![
        "check",
        "--format",
        "json",
        "--live",
        "--url",
        &url,
        "--live-rate",
        "20",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(files);
    run(&args, None)
}

#[test]
fn each_verdict_kind_from_real_answers() {
    let (server, record, max_in_flight) = strict_server("4.6.8");
    let calls = fixture("calls.md");
    let r = live_run(&server, &[&calls], &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let findings = json_findings(&r.stdout);
    assert_eq!(
        live_codes(&findings),
        [
            "6:live-narrowed",
            "7:live-unchanged",
            "8:live-unchanged",
            "9:live-empty",
            "10:live-refused",
            "11:live-server-fault",
            "12:live-refused",
            "15:live-narrowed",
            "16:live-narrowed",
            "23:live-narrowed",
            "28:live-graphql-objects",
            "32:live-not-sent",
            "36:live-not-sent",
        ]
    );
    let msg = |line: u64, code: &str| -> String {
        findings
            .iter()
            .find(|f| f["code"] == code && f["range"]["start"]["line"].as_u64() == Some(line - 1))
            .map(|f| f["message"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    // Both counts, NetBox's own words, and what the knowledge says.
    assert_eq!(
        msg(6, "live-narrowed"),
        "NetBox answered 19 of 72 objects: the filters work here."
    );
    assert!(msg(7, "live-unchanged").contains("ignored `device_role_id`, as the knowledge says"));
    assert!(msg(8, "live-unchanged")
        .contains("either every object matches `cf_nonexistent`, or NetBox ignored it"));
    assert_eq!(
        msg(9, "live-empty"),
        "NetBox answered 0 of 185 objects: the values name nothing here (no object has them)."
    );
    assert_eq!(
        msg(10, "live-refused"),
        "NetBox refused the call (HTTP 400): `status`: Select a valid choice. bogus is not one of the available choices."
    );
    assert!(
        msg(11, "live-server-fault").contains("HTTP 500): DataError: invalid regular expression")
    );
    assert!(msg(28, "live-graphql-objects").contains("2 objects for `device_list`"));
    assert!(msg(32, "live-not-sent").contains("`device_list` is a list without `pagination"));
    assert!(msg(36, "live-not-sent").contains("a mutation"));
    for f in findings
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("live-"))
    {
        assert_eq!(f["source"], "netbox (live)");
    }
    // The summary on stderr (the detail URL of calls.md is read, and not checkable: never sent).
    assert!(
        r.stderr.contains("live: 10 calls verified (4 narrowed, 2 unchanged, 1 empty, 2 refused, 1 server fault; 0 differ from the knowledge), 1 GraphQL operation; 2 not sent (mutation 1, unbounded list 1); 3 not checkable ("),
        "{}",
        r.stderr
    );
    // Safety: only the two request shapes, on this host; no mutation; no detail URL.
    assert!(
        record.violations.lock().unwrap().is_empty(),
        "{:?}",
        record.violations
    );
    // The instance's release first, then the live requests.
    let seen = server.seen();
    assert_eq!(seen[0].path, "/api/status/");
    let seen = &seen[1..];
    assert_eq!(
        seen.len(),
        13,
        "{:#?}",
        seen.iter().map(|s| &s.path).collect::<Vec<_>>()
    );
    // The per-run cache: the devices list is asked once, however many calls use it.
    assert_eq!(
        seen.iter()
            .filter(|s| s.path == "/api/dcim/devices/?limit=1")
            .count(),
        1
    );
    assert_eq!(
        seen.iter()
            .filter(|s| s.path == "/api/dcim/devices/?role_id=6&limit=1")
            .count(),
        1
    );
    assert!(!seen.iter().any(|s| s.path.contains("/5/")));
    // The host in the document is not contacted: its call went to the configured NetBox.
    assert!(seen
        .iter()
        .any(|s| s.path == "/api/ipam/vlans/?group_id=2&limit=1"));
    assert!(seen
        .iter()
        .all(|s| s.host.as_deref() == Some(&server.url()["http://".len()..])));
    // At most 4 requests in flight.
    let max = max_in_flight.load(Ordering::SeqCst);
    assert!((1..=4).contains(&max), "{max} requests in flight");
    // The token only in the Authorization header, never printed.
    assert!(seen
        .iter()
        .all(|s| s.authorization.as_deref() == Some(&format!("Token {V1}")[..])));
    assert!(!r.stdout.contains(V1) && !r.stderr.contains(V1));
}

#[test]
fn unbounded_lists_are_sent_only_bounded_or_when_asked() {
    let (server, record, _) = strict_server("4.6.8");
    let calls = fixture("calls.md");
    // A limit the user sets is added; the replay has no answer for that changed document.
    let r = live_run(&server, &[&calls], &["--live-graphql-limit", "3"]);
    let sent: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| s.path == "/graphql/")
        .map(|s| String::from_utf8_lossy(&s.body).into_owned())
        .collect();
    assert!(
        sent.iter()
            .any(|b| b.contains("has_primary_ip: true}, pagination: {limit: 3})")),
        "{sent:?}"
    );
    assert!(!sent.iter().any(|b| b.contains("mutation")), "{sent:?}");
    assert!(record.violations.lock().unwrap().is_empty());
    drop(r);
    // As written, when the user says so: NetBox's recorded error, at the document.
    let (server, record, _) = strict_server("4.6.8");
    let r = live_run(&server, &[&calls], &["--live-unbounded"]);
    let findings = json_findings(&r.stdout);
    let err = findings
        .iter()
        .find(|f| f["code"] == "live-graphql-error")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(err["range"]["start"]["line"], 31);
    assert!(err["message"]
        .as_str()
        .unwrap()
        .contains("Field 'has_primary_ip' is not defined by type 'DeviceFilter'"));
    assert!(record.violations.lock().unwrap().is_empty());
    // The static check said so too: no disagreement.
    assert!(!live_codes(&findings)
        .iter()
        .any(|c| c.ends_with("live-differs")));
}

#[test]
fn the_budget_caps_the_requests_of_a_run() {
    let (server, _, _) = strict_server("4.6.8");
    let calls = fixture("calls.md");
    let r = live_run(&server, &[&calls], &["--live-max-requests", "4"]);
    // `/api/status/`, then the budget.
    assert_eq!(server.seen().len(), 1 + 4);
    let findings = json_findings(&r.stdout);
    let codes = live_codes(&findings);
    // Bare + filtered of the first call, then the second call's filtered one (the bare one is
    // cached); the rest is not sent.
    assert_eq!(
        &codes[..3],
        ["6:live-narrowed", "7:live-unchanged", "8:live-unchanged"]
    );
    let not_sent = findings
        .iter()
        .filter(|f| f["code"] == "live-not-sent")
        .filter(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("budget of 4 requests")
        })
        .count();
    assert!(not_sent >= 5, "{codes:?}");
}

#[test]
fn the_instance_differs_from_the_stock_knowledge() {
    let (server, record, _) = strict_server("4.6.8-instance");
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("maintenance.md");
    std::fs::write(
        &doc,
        "`/api/dcim/devices/?status=maintenance`\n`/api/dcim/devices/?cf_owner_team__n=netops`\n",
    )
    .unwrap();
    let doc = doc.to_str().unwrap();
    // Stock 4.6.8: `maintenance` is no choice there, but this NetBox adds it (FIELD_CHOICES).
    let r = live_run(&server, &[doc], &[]);
    let findings = json_findings(&r.stdout);
    assert_eq!(
        live_codes(&findings),
        ["1:live-differs", "1:live-narrowed", "2:live-unchanged"],
        "{findings:#?}"
    );
    let differs = findings
        .iter()
        .find(|f| f["code"] == "live-differs")
        .unwrap();
    assert!(differs["message"].as_str().unwrap().starts_with(
        "NetBox accepted `status` (HTTP 200, 3 of 72 objects), which the knowledge says it refuses (invalid-choice). The instance differs from the knowledge: rebuild it"
    ));
    // The instance's own knowledge agrees with it.
    let index = instance_index(dir.path(), true);
    let r = live_run(&server, &[doc], &["--index", index.to_str().unwrap()]);
    let codes = live_codes(&json_findings(&r.stdout));
    assert_eq!(codes, ["1:live-narrowed", "2:live-unchanged"]);
    assert!(record.violations.lock().unwrap().is_empty());
}

/// A custom field's select value outside its choice set: NetBox does not validate it and answers
/// 200 with no objects (`cf_lifecycle=bogus`, 0 of 72), which live confirms; a value in the set
/// is the quiet twin.
#[test]
fn a_custom_field_choice_matches_nothing_live() {
    let (server, record, _) = strict_server("4.6.8-instance");
    let dir = tempfile::tempdir().unwrap();
    let index = instance_index(dir.path(), false);
    let doc = dir.path().join("lifecycle.md");
    std::fs::write(
        &doc,
        "`/api/dcim/devices/?cf_lifecycle=bogus`\n`/api/dcim/devices/?cf_lifecycle=eol&cf_lifecycle=retired`\n",
    )
    .unwrap();
    let r = live_run(
        &server,
        &[doc.to_str().unwrap()],
        &["--index", index.to_str().unwrap()],
    );
    let findings = json_findings(&r.stdout);
    let codes = live_codes(&findings);
    assert_eq!(codes, ["1:live-empty", "2:live-narrowed"], "{findings:#?}");
    assert!(record.violations.lock().unwrap().is_empty());
}

#[test]
fn nothing_is_sent_without_live_on_the_command_line() {
    let (server, _, _) = strict_server("4.6.8");
    // A workspace file naming the instance and asking for live checks does not turn them on.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("netbox-lsp.toml"),
        format!("[instance]\nurl = \"{}\"\n", server.url()),
    )
    .unwrap();
    std::fs::copy(fixture("calls.md"), dir.path().join("calls.md")).unwrap();
    let r = run(&["check", "calls.md"], Some(dir.path()));
    assert_eq!(r.code, 1, "{}", r.stderr);
    // `--url` without `--live` sends nothing either.
    let url = server.url();
    let r = run(&["check", "--url", &url, "calls.md"], Some(dir.path()));
    assert!(
        r.stderr.contains("--url is used only with --live"),
        "{}",
        r.stderr
    );
    assert!(server.seen().is_empty(), "{:?}", server.seen());
}

#[test]
fn no_redirect_to_another_origin_and_a_timeout_on_every_request() {
    let other = Server::start(Box::new(|_: &Seen| instance_replay::json(b"{}".to_vec())));
    let to = other.url();
    let server = Server::start(Box::new(move |req: &Seen| Reply::Full {
        status: 302,
        content_type: "text/html",
        body: vec![],
        headers: vec![("Location".into(), format!("{to}{}", req.path))],
    }));
    let calls = fixture("calls.md");
    let r = live_run(&server, &[&calls], &["-v"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("redirected to another origin"),
        "{}",
        r.stderr
    );
    assert!(other.seen().is_empty(), "{:?}", other.seen());
    // One failure stops the run: nothing is sent after it (only what was already in flight).
    assert!(server.seen().len() <= 4, "{:?}", server.seen());
    assert!(
        !r.stdout.contains(V1) && !r.stderr.contains(V1),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("Authorization: Token <redacted>"),
        "{}",
        r.stderr
    );
    // A NetBox that never answers: the request times out; the first one, `/api/status/`,
    // stops the run before anything else is sent.
    let stall = Server::start(Box::new(|_: &Seen| Reply::Stall(Duration::from_secs(5))));
    let r = live_run(&stall, &[&calls], &["--timeout", "1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("GET /api/status/: no answer from"),
        "{}",
        r.stderr
    );
    assert_eq!(stall.seen().len(), 1, "{:?}", stall.seen());
    // One that answers its status, then stalls: each list request times out.
    let status = br#"{"netbox-version": "4.6.8", "plugins": {}}"#;
    let stall = Server::start(Box::new(move |req: &Seen| {
        if req.path == "/api/status/" {
            instance_replay::json(status.to_vec())
        } else {
            Reply::Stall(Duration::from_secs(5))
        }
    }));
    let r = live_run(&stall, &[&calls], &["--timeout", "1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let findings = json_findings(&r.stdout);
    assert!(
        findings.iter().any(|f| f["code"] == "live-no-answer"
            && f["message"].as_str().unwrap().contains("no answer from")),
        "{findings:#?}"
    );
}

/// Two answers the replay rows cannot give, recorded from NetBox 4.6.8 with the bare demo data
/// (`../shared/lab`, `build.sh 4.6.8`, where every device is active): a filter every object
/// matches (`status=active`: 72 of 72, `status__n=active`: 0), and a GraphQL validation error
/// after the `pagination` netbox-lsp added (its location is in the text sent).
#[test]
fn lab_answers_decide_every_match_and_map_graphql_locations_back() {
    let knowledge = Knowledge {
        index: Some(embedded::embedded_index("4.6.8")),
        graphql_embedded: Some("4.6.8"),
        ..Default::default()
    };
    let list = |n: u64| {
        let body = format!(r#"{{"count":{n},"next":null,"previous":null,"results":[]}}"#);
        // Any list request: the answer is read as a list.
        let any_list = netbox_lsp::live::Request::List {
            endpoint: "dcim/devices".into(),
            query: "limit=1".into(),
        };
        Answer::of_body(&any_list, 200, body.as_bytes())
    };
    let text = "/api/dcim/devices/?status=active\n";
    let p = plan::plan(text, HostKind::Text, &knowledge, Bound::Refuse);
    let c = &p.calls[0];
    let negation = c.negation.clone().expect("status__n exists on devices");
    assert_eq!(
        negation.path(),
        "/api/dcim/devices/?status__n=active&limit=1"
    );
    let mut answers = Answers::default();
    answers.by_request.insert(c.bare.clone(), list(72));
    answers.by_request.insert(c.filtered.clone(), list(72));
    // Without the negation's answer the counts cannot tell.
    let (f, _) = p.judge(&answers, text, HostKind::Text);
    assert!(f[0]
        .message
        .contains("either every object matches `status`, or NetBox ignored it"));
    assert_eq!(p.follow_ups(&answers), std::slice::from_ref(&negation));
    answers.by_request.insert(negation, list(0));
    let (f, s) = p.judge(&answers, text, HostKind::Text);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].code, "live-unchanged");
    assert_eq!(f[0].severity, netbox_lsp::finding::Severity::Information);
    assert!(f[0]
        .message
        .ends_with("every object matches `status=active` here (its negation selects none)."));
    assert_eq!((s.unchanged, s.differs), (1, 0));
    // The same 72 with the negation too: NetBox ignored both, the knowledge says both exist.
    answers
        .by_request
        .insert(c.negation.clone().unwrap(), list(72));
    let (f, s) = p.judge(&answers, text, HostKind::Text);
    assert_eq!(
        f.iter().map(|f| f.code).collect::<Vec<_>>(),
        ["live-differs", "live-unchanged"]
    );
    assert_eq!(s.differs, 1);

    let doc = "{ device_list { id nonexistent } }";
    let p = plan::plan(doc, HostKind::Graphql, &knowledge, Bound::Limit(2));
    let op = &p.documents[0].operations[0];
    let netbox_lsp::live::Request::Graphql { body } = &op.request else {
        unreachable!()
    };
    let sent: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(
        sent["query"],
        "{ device_list(pagination: {limit: 2}) { id nonexistent } }"
    );
    let mut answers = Answers::default();
    answers.by_request.insert(
        op.request.clone(),
        Answer::of_body(&op.request, 200, br#"{"data": null, "errors": [{"message": "Cannot query field 'nonexistent' on type 'DeviceType'.", "locations": [{"line": 1, "column": 44}]}]}"#),
    );
    let (f, _) = p.judge(&answers, doc, HostKind::Graphql);
    let err = f.iter().find(|f| f.code == "live-graphql-error").unwrap();
    assert_eq!(&doc[err.range.clone()], "nonexistent");
    // The static check rejects it too: no disagreement.
    assert!(!f.iter().any(|f| f.code == "live-differs"), "{f:?}");
}
