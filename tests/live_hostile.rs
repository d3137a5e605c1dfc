//! `check --live` against a NetBox (or something posing as one) that misbehaves, one loopback
//! server per way (issue 33, "Why"): each run ends, within a memory bound where that is the
//! point, with what a security reviewer signs off on. Every run is killed after 120 s if it
//! hangs; peak memory is read from `/proc` on Linux.
//!
//! - memory: 60 MB answers are read for what the verdict needs;
//! - the token: echoed in a GraphQL error inside HTTP 200, JSON-escaped in a 4xx body, in a
//!   redirect's Location: in no output, text, JSON or SARIF, `-v` included;
//! - an oracle: sensitive endpoints and secret filters are never asked, and say why;
//! - a write: a POST redirect is not followed, a GET one only to a list of the same origin;
//! - control characters in NetBox's words are shown, not acted on;
//! - unbounded: GraphQL limits are lowered, nested lists bounded, introspection not forwarded,
//!   a run has a deadline, a 50 MB message is printed nowhere;
//! - silent no-ops: `--live -` verifies standard input, `--live --upgrade-to` says no;
//! - fragile: a reset connection is sent once more (a GET), not a POST;
//! - the wrong release: the instance's `/api/status/` decides the knowledge; a mismatch with
//!   `--netbox-version` is a clear error;
//! - live and static in one voice: `description=` and `x=14&x=0` read as NetBox reads them.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::instance_replay;
use instance_replay::*;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// Peak resident memory of the process (kB), where `/proc` tells.
    peak_kb: Option<u64>,
}

/// `netbox-lsp check --live --url <server> --live-rate 20 <extra> <file>` on `doc` (written to
/// `name` in a temporary folder), the token `token` in `NETBOX_TOKEN`; `stdin` is piped in.
fn live(server: &Server, token: &str, name: &str, doc: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, doc).unwrap();
    let url = server.url();
    let mut args = vec!["check", "--live", "--url", &url, "--live-rate", "20"];
    args.extend_from_slice(extra);
    let p = path.to_string_lossy().into_owned();
    args.push(&p);
    watched(&args, token, None)
}

/// Runs the binary with `args`, `NETBOX_TOKEN=token`, `stdin` piped in; polls its peak memory;
/// kills it after 120 s.
fn watched(args: &[&str], token: &str, stdin: Option<&str>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("NETBOX_TOKEN", token)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for v in PROXY_VARS {
        cmd.env_remove(v);
    }
    let mut child = cmd.spawn().unwrap();
    if let Some(text) = stdin {
        use std::io::Write;
        let mut pipe = child.stdin.take().unwrap();
        // A run that refuses its arguments exits without reading stdin: a broken pipe here
        // is that refusal, which the caller asserts on.
        match pipe.write_all(text.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r.unwrap(),
        }
    }
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut s = Vec::new();
        out.read_to_end(&mut s).unwrap();
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = Vec::new();
        err.read_to_end(&mut s).unwrap();
        s
    });
    let status = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    let mut peak = None;
    let code = loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            if let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = Some(kb);
            }
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s.code().unwrap_or(-1);
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("netbox-lsp {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code,
        stdout: String::from_utf8_lossy(&o.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&e.join().unwrap()).into_owned(),
        peak_kb: peak,
    }
}

fn status(version: &str) -> Reply {
    json(format!(r#"{{"netbox-version": "{version}", "plugins": {{}}}}"#).into_bytes())
}

/// A NetBox list answer of `n` objects (one on the page).
fn list(n: u64) -> Reply {
    json(
        format!(r#"{{"count": {n}, "next": null, "previous": null, "results": [{{"id": 1}}]}}"#)
            .into_bytes(),
    )
}

/// True for the bare request of an endpoint (`?limit=1` only).
fn bare(req: &Seen) -> bool {
    req.path.ends_with("/?limit=1")
}

fn findings(stdout: &str) -> Vec<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
        .as_array()
        .unwrap()
        .clone()
}

fn codes(f: &[serde_json::Value]) -> Vec<String> {
    f.iter()
        .map(|f| {
            format!(
                "{}:{}",
                f["range"]["start"]["line"].as_u64().unwrap() + 1,
                f["code"].as_str().unwrap()
            )
        })
        .filter(|c| c.contains(":live-"))
        .collect()
}

fn message<'a>(f: &'a [serde_json::Value], code: &str) -> &'a str {
    f.iter()
        .find(|f| f["code"] == code)
        .and_then(|f| f["message"].as_str())
        .unwrap_or_else(|| panic!("no {code} in {f:#?}"))
}

const DOC: &str = "`/api/dcim/devices/?role_id=1`\n`/api/dcim/devices/?status=bogus`\n\n```graphql\nquery Q { device_list(pagination: {limit: 5}) { id } }\n```\n";

/// Memory: every answer is 60 MB (a list with 60 MB of objects, a refusal with 60 MB of
/// messages, a GraphQL answer with 60 MB of objects). The verdicts come out as from small
/// answers, and the peak memory stays within 64 MB of a run against small answers (before,
/// every body was kept: `check --live` aborted at 1.5 GB).
#[test]
fn sixty_megabyte_answers_are_read_for_what_the_verdict_needs() {
    const BIG: usize = 60 << 20;
    let small = Server::start(Box::new(|req: &Seen| match req.path.as_str() {
        "/api/status/" => status("4.7.3"),
        "/graphql/" => json(br#"{"data": {"device_list": [{"id": "1"}]}}"#.to_vec()),
        p if p.contains("status=bogus") => status_reply(
            400,
            "application/json",
            br#"{"status": ["Select a valid choice. bogus is not one of the available choices."]}"#,
        ),
        _ if bare(req) => list(72),
        _ => list(19),
    }));
    let big = Server::start(Box::new(|req: &Seen| {
        let stream = |status: u16, head: &str, filler: &str, tail: &str| Reply::Stream {
            status,
            head: head.as_bytes().to_vec(),
            filler: filler.as_bytes().to_vec(),
            tail: tail.as_bytes().to_vec(),
            total: BIG,
        };
        match req.path.as_str() {
            "/api/status/" => status("4.7.3"),
            "/graphql/" => stream(
                200,
                r#"{"data": {"device_list": ["#,
                r#"{"id": "1"}, "#,
                r#"{"id": "2"}]}}"#,
            ),
            p if p.contains("status=bogus") => stream(
                400,
                r#"{"status": ["Select a valid choice.", "#,
                r#""x", "#,
                r#""y"]}"#,
            ),
            _ => stream(
                200,
                &format!(
                    r#"{{"count": {}, "next": null, "previous": null, "results": ["#,
                    if bare(req) { 72 } else { 19 }
                ),
                r#"{"id": 7, "name": "core-router-with-a-long-name", "tags": []}, "#,
                r#"{"id": 8}]}"#,
            ),
        }
    }));
    let a = live(&small, V1, "calls.md", DOC, &["--format", "json"]);
    let b = live(&big, V1, "calls.md", DOC, &["--format", "json"]);
    for r in [&a, &b] {
        assert_eq!(r.code, 1, "{}", r.stderr);
        let f = findings(&r.stdout);
        assert_eq!(
            codes(&f),
            [
                "1:live-narrowed",
                "2:live-refused",
                "5:live-graphql-objects"
            ],
            "{}",
            r.stderr
        );
        assert_eq!(
            message(&f, "live-narrowed"),
            "NetBox answered 19 of 72 objects: the filters work here."
        );
        assert!(message(&f, "live-refused")
            .starts_with("NetBox refused the call (HTTP 400): `status`: Select a valid choice."));
        assert!(message(&f, "live-refused").chars().count() < 500);
    }
    if let (Some(small_kb), Some(big_kb)) = (a.peak_kb, b.peak_kb) {
        eprintln!(
            "peak memory: {small_kb} kB against small answers, {big_kb} kB against 60 MB ones"
        );
        assert!(
            big_kb < small_kb + 64 * 1024,
            "{big_kb} kB against 60 MB answers, {small_kb} kB against small ones"
        );
    }
}

/// `Bearer <token>` in base64, as a Basic header or a proxy would carry it.
fn b64() -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(format!("Bearer {V2}"))
}

/// The token, three ways (and `index build` the same in `tests/hostile_server.rs`): a GraphQL
/// error inside HTTP 200 that quotes it, a 4xx body that echoes it JSON-escaped (decoded, it is
/// the token), a redirect whose Location carries it (as user info and in the query). In no
/// output format, `-v` included, in any encoding.
#[test]
fn the_token_reaches_no_output_in_any_encoding() {
    let escaped: String = V2.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
    let echo = format!(r#"{{"detail": "Invalid token {escaped}"}}"#);
    let server = Server::start(Box::new(move |req: &Seen| {
        match req.path.as_str() {
        "/api/status/" => status("4.7.3"),
        "/graphql/" => json(
            format!(
                r#"{{"data": null, "errors": [{{"message": "token {} is not allowed ({})", "locations": [{{"line": 1, "column": 11}}]}}]}}"#,
                V2,
                V2.replace('_', "%5F")
            )
            .into_bytes(),
        ),
        p if p.contains("role_id") => status_reply(400, "application/json", echo.as_bytes()),
        p if p.contains("site_id") => Reply::Full {
            status: 302,
            content_type: "text/html",
            body: vec![],
            headers: vec![(
                "Location".into(),
                format!("http://{V2}@evil.example:8080/api/?token={V2}&auth={}", b64()),
            )],
        },
        _ => list(3),
    }
    }));
    let doc = "`/api/dcim/devices/?role_id=1`\n\n```graphql\nquery Q { device_list(pagination: {limit: 5}) { id } }\n```\n\n`/api/dcim/devices/?site_id=1`\n";
    let secret = V2.split('.').nth(1).unwrap();
    for format in ["text", "json", "sarif"] {
        let r = live(&server, V2, "calls.md", doc, &["-v", "--format", format]);
        let all = format!("{}{}", r.stdout, r.stderr);
        for form in [
            V2.to_string(),
            secret.to_string(),
            escaped.clone(),
            V2.replace('_', "%5F"),
            b64(),
        ] {
            assert!(!all.contains(&form), "{format}: `{form}` shown:\n{all}");
        }
        assert!(all.contains("<redacted>"), "{format}: {all}");
        assert!(
            r.stderr.contains("Authorization: Bearer <redacted>"),
            "{}",
            r.stderr
        );
    }
    // The three ways were met (the findings are there, with the token redacted).
    let r = live(&server, V2, "calls.md", doc, &["--format", "json"]);
    let f = findings(&r.stdout);
    assert!(
        message(&f, "live-refused").contains("Invalid token <redacted>"),
        "{f:#?}"
    );
    assert!(
        message(&f, "live-graphql-error").contains("token <redacted> is not allowed (<redacted>)")
    );
    assert!(
        r.stderr.contains("redirected to another origin"),
        "{}",
        r.stderr
    );
}

/// An oracle: a merged file asks for counts of tokens by key prefix, users by name, webhooks
/// by secret, and GraphQL `user_list`. None is sent; each says why; the call beside them is.
#[test]
fn sensitive_endpoints_and_secret_filters_are_never_probed() {
    let server = Server::start(Box::new(|req: &Seen| match req.path.as_str() {
        "/api/status/" => status("4.4.10"),
        "/graphql/" => json(br#"{"data": {}}"#.to_vec()),
        _ if bare(req) => list(72),
        _ => list(4),
    }));
    let doc = "\
`/api/users/tokens/?key__isw=ab`
`/api/users/users/?username__isw=a`
`/api/extras/webhooks/?secret__isw=x`
`/api/ipam/fhrp-groups/?auth_key__ic=s`
`/api/dcim/devices/?name__isw=ab`

```graphql
query U { user_list(pagination: {limit: 1}) { id } }
```

```graphql
query W { webhook_list(filters: {secret: {starts_with: \"a\"}}, pagination: {limit: 1}) { id } }
```
";
    let r = live(&server, V1, "oracle.md", doc, &["--format", "json"]);
    let sent: Vec<String> = server.seen().iter().map(|s| s.path.clone()).collect();
    assert_eq!(
        sent.iter()
            .filter(|p| !p.starts_with("/api/status/"))
            .cloned()
            .collect::<Vec<_>>()
            .len(),
        2,
        "{sent:?}"
    );
    assert!(sent.iter().any(|p| p.contains("name__isw=ab")), "{sent:?}");
    for p in &sent {
        assert!(
            !p.contains("users")
                && !p.contains("secret")
                && !p.contains("auth_key")
                && p != "/graphql/",
            "{sent:?}"
        );
    }
    let f = findings(&r.stdout);
    assert_eq!(
        codes(&f),
        [
            "1:live-not-sent",
            "2:live-not-sent",
            "3:live-not-sent",
            "4:live-not-sent",
            "5:live-narrowed",
            "8:live-not-sent",
            "12:live-not-sent"
        ],
        "{f:#?}"
    );
    for f in f.iter().filter(|f| f["code"] == "live-not-sent") {
        assert!(
            f["message"].as_str().unwrap().contains("never probed"),
            "{f}"
        );
    }
    assert!(r.stderr.contains("not sent (sensitive 6)"), "{}", r.stderr);
}

/// A write: a 307 of `POST /graphql/` would resend the document and the token elsewhere; a
/// same-origin redirect of a GET to `/api/users/tokens/`, or to a detail URL, leaves the list
/// requests. Neither is followed; a redirect to another list of the same origin is.
#[test]
fn only_reads_of_lists_and_graphql_queries_leave() {
    let server = Server::start(Box::new(|req: &Seen| {
        let to = |loc: &str, status: u16| Reply::Full {
            status,
            content_type: "text/html",
            body: vec![],
            headers: vec![("Location".into(), loc.into())],
        };
        match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/api/status/") => status("4.7.3"),
            ("POST", "/graphql/") => to("/api/extras/scripts/1/", 307),
            ("GET", p) if p.contains("site_id=1&") => to("/api/dcim/sites/?id=1&limit=1", 301),
            ("GET", p) if p.starts_with("/api/dcim/sites/") => list(1),
            ("GET", p) if p.contains("role_id") => to("/api/users/tokens/?limit=1", 302),
            ("GET", _) if bare(req) => list(72),
            ("GET", _) => list(4),
            _ => status_reply(405, "application/json", b"{}"),
        }
    }));
    let followed = live(
        &server,
        V1,
        "a.md",
        "`/api/dcim/devices/?site_id=1`\n",
        &["--format", "json"],
    );
    assert_eq!(followed.code, 0, "{}", followed.stderr);
    assert!(server
        .seen()
        .iter()
        .any(|s| s.path == "/api/dcim/sites/?id=1&limit=1"));
    for doc in [
        "`/api/dcim/devices/?role_id=1`\n",
        "```graphql\nquery Q { device_list(pagination: {limit: 5}) { id } }\n```\n",
    ] {
        let r = live(&server, V1, "b.md", doc, &["--format", "json"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains("not a request netbox-lsp sends")
                || r.stderr.contains("never follows the redirect of a POST"),
            "{}",
            r.stderr
        );
    }
    let seen = server.seen();
    assert_eq!(
        seen.iter().filter(|s| s.method == "POST").count(),
        1,
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .all(|s| s.method == "GET" || (s.method == "POST" && s.path == "/graphql/")),
        "{seen:?}"
    );
    assert!(
        !seen
            .iter()
            .any(|s| s.path.contains("users") || s.path.contains("scripts")),
        "{seen:?}"
    );
}

/// Control characters in NetBox's words (a refusal, a GraphQL error) would forge a finding
/// line or a CI annotation, or drive the terminal: shown as escapes, on one line.
#[test]
fn control_characters_from_netbox_are_shown_not_acted_on() {
    let server = Server::start(Box::new(|req: &Seen| {
        match req.path.as_str() {
        "/api/status/" => status("4.7.3"),
        "/graphql/" => json(
            br#"{"data": null, "errors": [{"message": "bad\r\n::error file=forged.md,line=1::forged\u001b]0;title\u0007"}]}"#
                .to_vec(),
        ),
        _ => status_reply(
            400,
            "application/json",
            br#"{"status": ["bad\n/etc/forged.md:1:1: error[forged] injected\u001b[2J\u202e"]}"#,
        ),
    }
    }));
    let doc = "`/api/dcim/devices/?status=x`\n\n```graphql\nquery Q { device_list(pagination: {limit: 5}) { id } }\n```\n";
    let r = live(&server, V1, "c.md", doc, &[]);
    assert!(r.stdout.contains("error[live-refused]"), "{}", r.stdout);
    for line in r.stdout.lines() {
        assert!(
            !line.starts_with("/etc/forged.md") && !line.starts_with("::error"),
            "{line}"
        );
    }
    assert!(
        !r.stdout
            .chars()
            .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
        "{:?}",
        r.stdout
    );
    assert!(r.stdout.contains("\\u{1b}[2J"), "{}", r.stdout);
    for format in ["json", "sarif"] {
        let r = live(&server, V1, "c.md", doc, &["--format", format]);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let text = v.to_string();
        assert!(
            !text.contains("\\u001b") && !text.contains("\\r\\n::error"),
            "{text}"
        );
    }
}

/// Unbounded: `limit: 100000000` is lowered to 100, a nested list without a limit gets 10, a
/// list four deep and an introspection query are not sent.
#[test]
fn graphql_documents_are_bounded_before_they_leave() {
    let server = Server::start(Box::new(|req: &Seen| match req.path.as_str() {
        "/api/status/" => status("4.7.3"),
        _ => json(br#"{"data": {"device_list": [{"id": "1"}]}}"#.to_vec()),
    }));
    let doc = "\
```graphql
query Big { device_list(pagination: {limit: 100000000}) { id interfaces { id } } }
```

```graphql
query Deep { site_list(pagination: {limit: 2}) { devices { interfaces { ip_addresses { id } } } } }
```

```graphql
query Schema { __schema { types { name } } }
```
";
    let r = live(&server, V1, "g.md", doc, &["--format", "json"]);
    let bodies: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| s.path == "/graphql/")
        .map(|s| String::from_utf8_lossy(&s.body).into_owned())
        .collect();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert!(
        bodies[0].contains("device_list(pagination: {limit: 100}) { id interfaces(pagination: {limit: 10}) { id } }"),
        "{bodies:?}"
    );
    let f = findings(&r.stdout);
    assert_eq!(
        codes(&f),
        [
            "2:live-graphql-objects",
            "6:live-not-sent",
            "10:live-not-sent"
        ],
        "{f:#?}"
    );
    assert!(message(&f, "live-graphql-objects").contains("lowered its `limit` to 100"));
    let msgs: Vec<&str> = f
        .iter()
        .filter(|f| f["code"] == "live-not-sent")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        msgs.iter().any(|m| m.contains("inside 3 lists")),
        "{msgs:?}"
    );
    assert!(msgs.iter().any(|m| m.contains("introspection")), "{msgs:?}");
}

/// Unbounded: a NetBox that answers each list after a long while cannot hold a run past its
/// deadline: the requests in flight are stopped, the rest said not sent.
#[test]
fn a_run_has_an_overall_deadline() {
    let server = Server::start(Box::new(|req: &Seen| match req.path.as_str() {
        "/api/status/" => status("4.7.3"),
        _ => Reply::Stall(Duration::from_secs(30)),
    }));
    let doc: String = (1..=12)
        .map(|i| format!("`/api/dcim/devices/?role_id={i}`\n"))
        .collect();
    let r = live(
        &server,
        V1,
        "d.md",
        &doc,
        &["--format", "json", "--live-deadline", "2"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let f = findings(&r.stdout);
    let deadline =
        |f: &&serde_json::Value| f["message"].as_str().unwrap().contains("deadline of 2 s");
    assert!(f.iter().filter(deadline).count() >= 8, "{f:#?}");
    assert!(r.stderr.contains("deadline"), "{}", r.stderr);
}

/// Unbounded: a 50 MB GraphQL message is printed nowhere (once cut, it would have been printed
/// twice); a long one is cut to 400 characters and shown once.
#[test]
fn long_netbox_messages_are_cut_and_shown_once() {
    let server = Server::start(Box::new(|req: &Seen| {
        if req.path == "/api/status/" {
            return status("4.7.3");
        }
        let body = String::from_utf8_lossy(&req.body).into_owned();
        if body.contains("Huge") {
            Reply::Stream {
                status: 200,
                head: br#"{"data": null, "errors": [{"locations": [{"line": 1, "column": 3}], "message": ""#.to_vec(),
                filler: b"0123456789".to_vec(),
                tail: br#""}]}"#.to_vec(),
                total: 50 << 20,
            }
        } else {
            json(
                format!(
                    r#"{{"data": null, "errors": [{{"locations": [{{"line": 1, "column": 3}}], "message": "{}"}}]}}"#,
                    "wrong ".repeat(400)
                )
                .into_bytes(),
            )
        }
    }));
    let doc = "```graphql\nquery Huge { device_list(pagination: {limit: 5}) { id } }\n```\n\n```graphql\nquery Long { device_list(pagination: {limit: 5}) { id } }\n```\n";
    let r = live(&server, V1, "m.md", doc, &["--format", "json"]);
    assert!(r.stdout.len() < 50_000, "{} bytes", r.stdout.len());
    let f = findings(&r.stdout);
    let long: Vec<&serde_json::Value> = f
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("wrong wrong"))
        .collect();
    assert_eq!(long.len(), 1, "{f:#?}");
    assert!(long[0]["message"].as_str().unwrap().chars().count() <= 410);
    assert!(
        r.stderr.contains("longer than 1 MiB") || r.stdout.contains("longer than 1 MiB"),
        "{}",
        r.stdout
    );
}

/// Silent no-ops: `--live -` verifies standard input; `--live --upgrade-to` says it will not
/// and sends nothing.
#[test]
fn stdin_is_verified_and_upgrade_to_says_no() {
    let server = Server::start(Box::new(|req: &Seen| match req.path.as_str() {
        "/api/status/" => status("4.7.3"),
        _ if bare(req) => list(72),
        _ => list(19),
    }));
    let url = server.url();
    let r = watched(
        &["check", "--live", "--url", &url, "--format", "json", "-"],
        V1,
        Some("`/api/dcim/devices/?role_id=1`\n"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let f = findings(&r.stdout);
    assert_eq!(codes(&f), ["1:live-narrowed"]);
    assert_eq!(f[0]["path"], "-");
    assert_eq!(server.seen().len(), 3);
    let before = server.seen().len();
    let r = watched(
        &["check", "--live", "--url", &url, "--upgrade-to", "4.7", "-"],
        V1,
        Some("`/api/dcim/devices/?role_id=1`\n"),
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--live") && r.stderr.contains("--upgrade-to"),
        "{}",
        r.stderr
    );
    assert_eq!(server.seen().len(), before);
}

/// Fragile: a loaded gunicorn resets a connection now and then; a GET is sent once more and
/// the run goes on. A POST is not sent again.
#[test]
fn a_reset_connection_is_sent_once_more_for_a_get_only() {
    let tries: Arc<Mutex<std::collections::HashMap<String, usize>>> = Default::default();
    let t = tries.clone();
    let server = Server::start(Box::new(move |req: &Seen| {
        let n = {
            let mut t = t.lock().unwrap();
            let n = t.entry(req.path.clone()).or_default();
            *n += 1;
            *n
        };
        match req.path.as_str() {
            "/api/status/" => status("4.7.3"),
            _ if n == 1 => Reply::Close,
            _ if bare(req) => list(72),
            "/graphql/" => json(br#"{"data": {"device_list": [{"id": "1"}]}}"#.to_vec()),
            _ => list(19),
        }
    }));
    let r = live(
        &server,
        V1,
        "r.md",
        "`/api/dcim/devices/?role_id=1`\n`/api/dcim/devices/?role_id=2`\n",
        &["--format", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        codes(&findings(&r.stdout)),
        ["1:live-narrowed", "2:live-narrowed"]
    );
    for (path, n) in tries.lock().unwrap().iter() {
        if path != "/api/status/" {
            assert_eq!(*n, 2, "{path}");
        }
    }
    let r = live(
        &server,
        V1,
        "p.md",
        "```graphql\nquery Q { device_list(pagination: {limit: 5}) { id } }\n```\n",
        &["--format", "json"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(tries.lock().unwrap()["/graphql/"], 1);
}

/// The wrong release: the instance says which release it runs, and the static findings use
/// its knowledge (`/api/dcim/cable-bundles/` is new in 4.6: an unknown endpoint on a 4.3
/// NetBox, a known one on 4.7). A `--netbox-version` of another minor release is an error that
/// says why; one of a release that is not shipped gets the nearest, with the usual note.
#[test]
fn the_instance_says_which_release_to_check_against() {
    let reporting = |v: &'static str| {
        Server::start(Box::new(move |req: &Seen| match req.path.as_str() {
            "/api/status/" => status(v),
            _ if bare(req) => list(3),
            _ => list(1),
        }))
    };
    let doc = "`/api/dcim/cable-bundles/?name=a`\n";
    let static_codes = |r: &Run| -> Vec<String> {
        findings(&r.stdout)
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .filter(|c| !c.starts_with("live-"))
            .collect()
    };
    let old = live(&reporting("4.3.3"), V1, "v.md", doc, &["--format", "json"]);
    assert_eq!(static_codes(&old), ["unknown-endpoint"], "{}", old.stderr);
    let new = live(&reporting("4.7.3"), V1, "v.md", doc, &["--format", "json"]);
    assert!(static_codes(&new).is_empty(), "{}", new.stdout);
    let r = live(
        &reporting("4.7.3"),
        V1,
        "v.md",
        doc,
        &["--netbox-version", "4.6"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--netbox-version 4.6 does not match the NetBox at")
            && r.stderr.contains("runs 4.7.3"),
        "{}",
        r.stderr
    );
    let r = live(&reporting("4.7.1"), V1, "v.md", doc, &[]);
    assert!(
        r.stderr
            .contains("NetBox 4.7.1 is not shipped; using 4.7.3"),
        "{}",
        r.stderr
    );
}

/// Live and static in one voice: NetBox drops an empty value (`description=`), which the
/// static check says for certain; the live line says the same, not "either … or". Repeated
/// keys are one filter with two values, as NetBox reads them, its negation repeated too.
#[test]
fn live_and_static_read_a_call_as_netbox_does() {
    let sent = Arc::new(AtomicUsize::new(0));
    let s = sent.clone();
    let server = Server::start(Box::new(move |req: &Seen| {
        s.fetch_add(1, Ordering::SeqCst);
        match req.path.as_str() {
            "/api/status/" => status("4.7.3"),
            p if p.contains("site_id__n") => list(0),
            _ => list(72),
        }
    }));
    let doc = "`/api/dcim/devices/?description=`\n`/api/dcim/devices/?site_id=14&site_id=0`\n";
    let r = live(&server, V1, "w.md", doc, &["--format", "json"]);
    let f = findings(&r.stdout);
    let on = |line: u64, code: &str| -> String {
        f.iter()
            .find(|f| f["code"] == code && f["range"]["start"]["line"] == line - 1)
            .map(|f| f["message"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("no {code} on line {line}: {f:#?}"))
    };
    assert!(f.iter().any(|f| f["code"] == "dropped-value"));
    let empty = on(1, "live-unchanged");
    assert!(
        empty.contains("as the knowledge says (an empty value is no filter"),
        "{empty}"
    );
    assert!(!empty.contains("either"), "{empty}");
    let repeated = on(2, "live-unchanged");
    assert_eq!(
        repeated.matches("`site_id`").count() + repeated.matches("site_id=14&site_id=0").count(),
        1,
        "{repeated}"
    );
    let paths: Vec<String> = server.seen().iter().map(|s| s.path.clone()).collect();
    assert!(
        paths.contains(&"/api/dcim/devices/?site_id=14&site_id=0&limit=1".to_string()),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/api/dcim/devices/?site_id__n=14&site_id__n=0&limit=1".to_string()),
        "{paths:?}"
    );
}

/// Findings carry their proof (issue 33 §3): the two requests of a narrowed call (with and
/// without the filter) as `curl` commands that take the token from the variable it came from,
/// with both counts; in JSON and SARIF the same as fields. Running the `curl` of the proof
/// against the same server gives the same count.
#[test]
fn a_live_finding_carries_its_requests_and_counts() {
    let server = Server::start(Box::new(|req: &Seen| match req.path.as_str() {
        "/api/status/" => status("4.7.3"),
        _ if bare(req) => list(72),
        _ => list(19),
    }));
    let doc = "`/api/dcim/devices/?role_id=1`\n";
    let url = server.url();
    let text = live(&server, V2, "p.md", doc, &[]);
    let sent: Vec<&str> = text
        .stdout
        .lines()
        .filter(|l| l.starts_with("  sent: "))
        .collect();
    assert_eq!(
        sent,
        [
            format!("  sent: curl -sS -H 'Accept: application/json' -H \"Authorization: Bearer $NETBOX_TOKEN\" '{url}/api/dcim/devices/?role_id=1&limit=1'  # HTTP 200, count 19"),
            format!("  sent: curl -sS -H 'Accept: application/json' -H \"Authorization: Bearer $NETBOX_TOKEN\" '{url}/api/dcim/devices/?limit=1'  # HTTP 200, count 72"),
        ],
        "{}",
        text.stdout
    );
    let json = live(&server, V2, "p.md", doc, &["--format", "json"]);
    let f = findings(&json.stdout);
    let proof = &f.iter().find(|f| f["code"] == "live-narrowed").unwrap()["proof"];
    let counts: Vec<(u64, u64)> = proof
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["method"], "GET");
            assert!(p["curl"].as_str().unwrap().contains("$NETBOX_TOKEN"), "{p}");
            (p["status"].as_u64().unwrap(), p["count"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(counts, [(200, 19), (200, 72)], "{proof}");
    let sarif = live(&server, V2, "p.md", doc, &["--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let narrowed = results
        .iter()
        .find(|r| r["ruleId"] == "live-narrowed")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(&narrowed["properties"]["proof"], proof);
    // The proof is a command that works: curl it with the token in the variable.
    let has_curl = Command::new("curl").arg("--version").output().is_ok();
    if has_curl {
        let cmd = proof[0]["curl"].as_str().unwrap();
        let out = Command::new("sh")
            .args(["-c", cmd])
            .env("NETBOX_TOKEN", V2)
            .env_remove("http_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("ALL_PROXY")
            .env_remove("all_proxy")
            .output()
            .unwrap();
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(answer["count"], 19);
        let last = server.seen().pop().unwrap();
        assert_eq!(
            last.authorization.as_deref(),
            Some(&*format!("Bearer {V2}"))
        );
    } else {
        eprintln!("curl is not installed: the proof's command was not run");
    }
}
