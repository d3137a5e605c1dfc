//! A NetBox (or something posing as one) that misbehaves, as loopback servers: each answer
//! ends `index build --url` with a clear error and bounded work (issue 23 §2). Memory and time
//! figures are measured outside the tests (`/usr/bin/time -v`); here each case must end, with
//! the message that names what happened, and no index written.

use std::io::Write;
use std::process::Command;
use std::time::Duration;

use crate::instance_replay;
use instance_replay::*;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

struct Run {
    code: i32,
    stderr: String,
}

/// `index build --url` against `route` with the v1 token in `MY_NB`, plus `extra`; checks
/// that the token is never printed and that nothing is written on failure.
fn build(route: Box<Route>, extra: &[&str]) -> Run {
    let server = Server::start(route);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.index.json.gz");
    let url = server.url();
    let mut cmd = Command::new(BIN);
    cmd.args([
        "index",
        "build",
        "--url",
        &url,
        "--token-env",
        "MY_NB",
        "-o",
    ])
    .arg(&out)
    .args(extra)
    .env("MY_NB", V1);
    for v in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
    ] {
        cmd.env_remove(v);
    }
    let o = cmd.output().unwrap();
    let run = Run {
        code: o.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    // Not even a head of the token (a cut through it used to leave 39 of its 40 characters).
    assert!(!run.stderr.contains(&V1[..12]), "{}", run.stderr);
    assert_eq!(out.exists(), run.code == 0, "{}", run.stderr);
    run
}

/// The lab NetBox's answers, with `path` (a prefix) answered by `reply` instead.
fn with(
    prefix: &'static str,
    reply: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
) -> Box<Route> {
    let base = netbox(V1, false);
    Box::new(move |req: &Seen| {
        if req.path.starts_with(prefix) {
            reply(req)
        } else {
            base(req)
        }
    })
}

fn gzip(body: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(body).unwrap();
    enc.finish().unwrap()
}

/// The token echoed in an error body, placed so that the cut at 300 characters goes through
/// it: redacted before the cut, so no part of it is shown.
#[test]
fn a_token_straddling_the_cut_is_redacted() {
    for at in [261, 280, 299, 300] {
        let r = build(
            with("/api/status/", move |req: &Seen| {
                let echo = req.authorization.clone().unwrap_or_default();
                let body = format!("{}{echo} and more", "x".repeat(at - "Token ".len()));
                status_reply(500, "text/plain", body.as_bytes())
            }),
            &[],
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("HTTP 500"), "{}", r.stderr);
    }
}

/// The token echoed JSON-escaped (`\u0030\u0031…`, which decodes to it) in an error body that
/// is shown as it came, and URL-encoded in another: redacted in every form, not only as
/// written (issue 34: `index build` printed the escaped echo).
#[test]
fn a_token_echoed_in_any_encoding_is_redacted() {
    let escaped: String = V1.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
    let url_encoded: String = V1.chars().map(|c| format!("%{:02X}", c as u32)).collect();
    for body in [
        format!(r#"{{"error": "bad token {escaped}", "exception": "ValueError"}}"#),
        format!("<html>bad token {url_encoded}</html>"),
        format!(r#"{{"detail": "bad token {escaped}"}}"#),
    ] {
        let (e, u) = (escaped.clone(), url_encoded.clone());
        let r = build(
            with("/api/status/", move |_: &Seen| {
                status_reply(500, "application/json", body.as_bytes())
            }),
            &[],
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("HTTP 500"), "{}", r.stderr);
        assert!(
            !r.stderr.contains(&e[..60]) && !r.stderr.contains(&u[..60]),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("<redacted>"), "{}", r.stderr);
    }
}

/// `count: 1000000000` with one object a page, and a count that is never reached: each ends
/// with an error naming the cap, not after a billion requests.
#[test]
fn endless_pagination_is_capped() {
    let r = build(
        with("/api/extras/custom-fields/", |_: &Seen| {
            json(
                br#"{"count": 1000000000, "next": "x", "previous": null, "results": [{"id": 1}]}"#
                    .to_vec(),
            )
        }),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("reports 1000000000 objects"),
        "{}",
        r.stderr
    );
    let r = build(
        with("/api/extras/custom-fields/", |_: &Seen| {
            json(
                br#"{"count": 5000, "next": "x", "previous": null, "results": [{"id": 1}]}"#
                    .to_vec(),
            )
        }),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("after 200 pages"), "{}", r.stderr);
}

/// A million tiny paths (29 MB of JSON, 3.6 GB once built before the shape limit), and gzip
/// bombs with and without `Content-Encoding` (65 MiB of spaces in 64 KB).
#[test]
fn answers_that_would_blow_up_memory_are_refused() {
    let mut doc = String::from(r#"{"openapi":"3.0.3","info":{"version":"4.6.8"},"paths":{"#);
    for i in 0..1_000_000 {
        if i > 0 {
            doc.push(',');
        }
        doc += &format!(r#""/api/a/x{i}/":{{"get":{{}}}}"#);
    }
    doc += "}}";
    let doc = doc.into_bytes();
    let r = build(with("/api/schema/", move |_: &Seen| json(doc.clone())), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("JSON items"), "{}", r.stderr);
    let bomb = gzip(&vec![b' '; (65 << 20) + 1]);
    for encoded in [false, true] {
        let bomb = bomb.clone();
        let r = build(
            with("/api/schema/", move |_: &Seen| Reply::Full {
                status: 200,
                content_type: "application/json",
                body: bomb.clone(),
                headers: if encoded {
                    vec![("Content-Encoding".into(), "gzip".into())]
                } else {
                    vec![]
                },
            }),
            &[],
        );
        assert_eq!(r.code, 2);
        assert!(
            r.stderr.contains("too large"),
            "encoded {encoded}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("Try again"), "{}", r.stderr);
    }
}

/// One byte every 300 ms never trips the 1 s per-read timeout; the total deadline (4 × it)
/// ends the request.
#[test]
fn a_trickling_server_meets_the_total_deadline() {
    let r = build(
        with("/api/status/", |_: &Seen| Reply::Trickle {
            body: vec![b' '; 200],
            every: Duration::from_millis(300),
        }),
        &["--timeout", "1"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("did not finish within 4 s"),
        "{}",
        r.stderr
    );
}

/// `/api/status/` of a netbox-docker beta (`null`) or a beta release: the build takes the
/// version from the OpenAPI document or --netbox-version, and when neither names one the
/// error names the status answer as the cause.
#[test]
fn a_status_without_a_release_version() {
    let status = gunzip(&read("status.json.gz"));
    let openapi: serde_json::Value =
        serde_json::from_slice(&gunzip(&read("openapi.json.gz"))).unwrap();
    let mut dev = openapi.clone();
    dev["info"]["version"] = serde_json::json!("dev");
    let dev = serde_json::to_vec(&dev).unwrap();
    for version in [serde_json::Value::Null, serde_json::json!("4.6.8-beta1")] {
        let mut s: serde_json::Value = serde_json::from_slice(&status).unwrap();
        s["netbox-version"] = version.clone();
        let s = serde_json::to_vec(&s).unwrap();
        let status_route = move |_: &Seen| json(s.clone());
        // The OpenAPI document names its release: built, with a note naming the status.
        let r = build(with("/api/status/", status_route.clone()), &[]);
        assert_eq!(r.code, 0, "{version}: {}", r.stderr);
        assert!(
            r.stderr.contains("/api/status/ reports `netbox-version`"),
            "{}",
            r.stderr
        );
        // Neither names one: the error says why and what to give.
        // The status answer above and an OpenAPI document without a release.
        let both = || -> Box<Route> {
            let (sr, d) = (status_route.clone(), dev.clone());
            let route = with("/api/schema/", move |_: &Seen| json(d.clone()));
            Box::new(move |req: &Seen| {
                if req.path.starts_with("/api/status/") {
                    sr(req)
                } else {
                    route(req)
                }
            })
        };
        let r = build(both(), &[]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains("/api/status/ reports `netbox-version`")
                && r.stderr.contains("give --netbox-version"),
            "{}",
            r.stderr
        );
        assert!(
            !r.stderr.contains("--netbox-version \"4.6.8-beta1\" is not"),
            "{}",
            r.stderr
        );
        let r = build(both(), &["--netbox-version", "4.6.8"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        // The loopback server is plain http and a token was given: warned.
        assert!(r.stderr.contains("is plain http"), "{}", r.stderr);
    }
}

/// A redirect to the same host and port on another scheme is named as a scheme change.
#[test]
fn a_scheme_change_is_named() {
    let r = build(
        Box::new(|req: &Seen| {
            let to = format!("https://127.0.0.1{}", req.path);
            Reply::Full {
                status: 301,
                content_type: "text/html",
                body: vec![],
                headers: vec![("Location".into(), to)],
            }
        }),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("a change of scheme"), "{}", r.stderr);
}

/// A FIFO as the token file would block the read until a writer comes: refused with a
/// message before anything is opened (the process is killed after 30 s if it hangs).
#[cfg(unix)]
#[test]
fn a_fifo_token_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("token");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut child = Command::new(BIN)
        .args([
            "index",
            "build",
            "--url",
            "http://127.0.0.1:9",
            "--token-file",
        ])
        .arg(&fifo)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("index build hung on a FIFO token file");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("named pipe"), "{stderr}");
}

/// A user name, password, query or fragment in `--url` is refused before any warning names the
/// URL, and never printed back: not by the plain-http warning, not by `--insecure`'s, not by
/// the refusal, for each command that takes `--url` (the quiet twin: the same URL without the
/// secret is named in the warning).
#[test]
fn a_secret_in_the_url_is_not_printed_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.md");
    std::fs::write(&file, "GET /api/dcim/devices/?role_id=1\n").unwrap();
    let file = file.to_str().unwrap().to_string();
    let commands: [&[&str]; 3] = [
        &["index", "build", "-o", "x.gz", "--url"],
        &["audit", "--url"],
        &["check", "--live", &file, "--url"],
    ];
    let secret = "S3cretPassw0rd";
    for base in commands {
        for url in [
            format!("http://user:{secret}@127.0.0.1:9/"),
            format!("http://127.0.0.1:9/?token={secret}"),
            format!("http://127.0.0.1:9/#{secret}"),
            format!("http://user:{secret}@[::1"),
        ] {
            for insecure in [false, true] {
                let mut cmd = Command::new(BIN);
                cmd.current_dir(dir.path())
                    .args(base)
                    .arg(&url)
                    .env("NETBOX_TOKEN", V1);
                if insecure {
                    cmd.arg("--insecure");
                }
                let o = cmd.output().unwrap();
                let stderr = String::from_utf8_lossy(&o.stderr);
                let stdout = String::from_utf8_lossy(&o.stdout);
                assert_eq!(o.status.code(), Some(2), "{base:?} {url}: {stderr}");
                assert!(
                    !stderr.contains(secret) && !stdout.contains(secret),
                    "{base:?} {url}: {stderr}{stdout}"
                );
                assert!(!stderr.contains("plain http"), "{base:?} {url}: {stderr}");
            }
        }
        // The quiet twin: nothing secret, so the warning names the URL (the port is closed).
        let o = Command::new(BIN)
            .current_dir(dir.path())
            .args(base)
            .arg("http://127.0.0.1:9/")
            .env("NETBOX_TOKEN", V1)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains("http://127.0.0.1:9 is plain http"),
            "{base:?}: {stderr}"
        );
    }
}
