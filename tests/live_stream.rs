//! `check --live` is a step of each file's check (issue 37 §3): a file's findings, static and
//! live, are written before the next file's requests are sent, so the output streams per file
//! as a plain `check` does. Proved by order, not by time: the loopback NetBox answers the second
//! file's request only once the CLI's output already holds the first file's findings (it
//! waits for them, with a guard far longer than the run).

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::instance_replay;
use instance_replay::{json, Seen, Server, V1};

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

/// A NetBox list answer of `count` objects.
fn list(count: u64) -> Vec<u8> {
    serde_json::json!({"count": count, "next": null, "previous": null, "results": []})
        .to_string()
        .into_bytes()
}

#[test]
fn the_first_files_findings_are_written_before_the_second_files_requests() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.md"),
        "Devices: `/api/dcim/devices/?status=active`\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.md"),
        "Sites: `/api/dcim/sites/?status=active`\n",
    )
    .unwrap();
    let out = Arc::new(Mutex::new(String::new()));
    let seen_first = Arc::new(AtomicBool::new(false));
    let second_asked = Arc::new(AtomicUsize::new(0));
    let (o, s, n) = (out.clone(), seen_first.clone(), second_asked.clone());
    let server = Server::start(Box::new(move |req: &Seen| {
        if req.path.starts_with("/api/status/") {
            return json(br#"{"netbox-version": "4.7.3"}"#.to_vec());
        }
        if req.path.starts_with("/api/dcim/sites/") {
            n.fetch_add(1, Ordering::SeqCst);
            // Wait for the first file's findings on stdout (the guard only ends a wait that
            // would never end: a run that holds all output to the end).
            let guard = Instant::now();
            while guard.elapsed() < Duration::from_secs(20) {
                if o.lock().unwrap().contains("a.md:1:") {
                    s.store(true, Ordering::SeqCst);
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let filtered = req.path.contains("status=");
        json(list(if filtered { 3 } else { 10 }))
    }));
    let mut cmd = Command::new(BIN);
    for v in instance_replay::PROXY_VARS {
        cmd.env_remove(v);
    }
    let mut child = cmd
        .args([
            "check",
            "--live",
            "--url",
            &server.url(),
            "--format",
            "text",
            "--color",
            "never",
        ])
        .arg(dir.path())
        .env("NETBOX_TOKEN", V1)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(k) => out
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..k])),
            }
        }
        out
    });
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();
    let out = reader.join().unwrap();
    let out = out.lock().unwrap().clone();
    assert!(second_asked.load(Ordering::SeqCst) > 0, "{out}\n{stderr}");
    assert!(
        seen_first.load(Ordering::SeqCst),
        "the second file was verified before the first file's findings were written:\n{out}\n{stderr}"
    );
    // Each file's live finding, in path order, and nothing sent twice.
    let a = out.find("a.md:1:").expect("a.md's finding");
    let b = out.find("b.md:1:").expect("b.md's finding");
    assert!(a < b, "{out}");
    assert!(out.contains("live-narrowed"), "{out}");
    let paths: Vec<String> = server
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.path.clone())
        .collect();
    let mut unique = paths.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), paths.len(), "{paths:?}");
    // `/api/status/`, then per file its bare and filtered list.
    assert_eq!(paths.len(), 5, "{paths:?}");
}
