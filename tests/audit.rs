//! `netbox-lsp audit --url` against a NetBox 4.6.8 posing on loopback (issue 33 §4): the saved
//! filters, dashboard widgets, custom links and export templates it stores are checked against
//! its release and the upgrade target; only GETs of what holds filters leave; the token is in
//! no output.

use std::process::Command;

use crate::instance_replay;
use instance_replay::*;

const BIN: &str = env!("CARGO_BIN_EXE_netbox-lsp");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn audit(server: &Server, extra: &[&str]) -> Run {
    let url = server.url();
    let mut cmd = Command::new(BIN);
    cmd.args(["audit", "--url", &url]).args(extra);
    for v in PROXY_VARS.iter().chain(&["NO_PROXY", "no_proxy"]) {
        cmd.env_remove(v);
    }
    cmd.env("NETBOX_TOKEN", V2);
    let out = cmd.output().unwrap();
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    for secret in [V2, "s3cr3t"] {
        assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret));
    }
    r
}

/// A NetBox list of `objects`, all on one page.
fn page(objects: serde_json::Value) -> Reply {
    let n = objects.as_array().unwrap().len();
    json(
        serde_json::json!({"count": n, "next": null, "previous": null, "results": objects})
            .to_string()
            .into_bytes(),
    )
}

/// What the instance stores: saved filter 1 uses `protocol__isw` on services (a lookup 4.7.0
/// removed, netbox#20285), saved filter 2 is its quiet twin (`protocol`); a dashboard widget
/// lists devices by `role_id` (quiet) and another by a filter no release has; a custom link
/// builds an API URL with a choice value that does not exist; an export template is quiet.
fn instance() -> Server {
    Server::start(Box::new(|req: &Seen| {
        let (path, _) = req.path.split_once('?').unwrap_or((&req.path, ""));
        match (req.method.as_str(), path) {
            ("GET", "/api/status/") => {
                json(br#"{"netbox-version": "4.6.8", "plugins": {}}"#.to_vec())
            }
            ("GET", "/api/extras/saved-filters/") => page(serde_json::json!([
                {"id": 1, "name": "UDP services", "object_types": ["ipam.service"],
                 "parameters": {"protocol__isw": "ud", "per_page": 50}},
                {"id": 2, "name": "UDP services (exact)", "object_types": ["ipam.service"],
                 "parameters": {"protocol": ["udp"]}}
            ])),
            ("GET", "/api/extras/custom-links/") => page(serde_json::json!([
                {"id": 5, "name": "Same status", "object_types": ["dcim.device"],
                 "link_url": "{{ settings.BASE_PATH }}/api/dcim/devices/?status=workin"}
            ])),
            ("GET", "/api/extras/export-templates/") => page(serde_json::json!([
                {"id": 9, "name": "Devices", "object_types": ["dcim.device"],
                 "template_code": "{% for d in queryset %}{{ d.name }}\n{% endfor %}"}
            ])),
            ("GET", "/api/extras/dashboard/") => json(
                serde_json::json!({"layout": [], "config": {
                    "aaaa": {"class": "extras.ObjectListWidget", "title": "Routers",
                             "config": {"model": "dcim.device", "url_params": {"role_id": 3}}},
                    "bbbb": {"class": "extras.ObjectListWidget", "title": "Odd",
                             "config": {"model": "dcim.device", "url_params": {"no_such_filter": "x"}}},
                    "cccc": {"class": "extras.NoteWidget", "config": {"content": "hi"}}
                }})
                .to_string()
                .into_bytes(),
            ),
            _ => status_reply(404, "application/json", br#"{"detail": "Not found."}"#),
        }
    }))
}

#[test]
fn stored_filters_are_checked_against_the_release_and_the_upgrade() {
    let server = instance();
    let now = audit(&server, &["--format", "json"]);
    let up = audit(&server, &["--format", "json", "--upgrade-to", "4.7"]);
    let found = |r: &Run| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", r.stdout, r.stderr));
        assert_eq!(v["netbox_version"], "4.6.8");
        assert!(v["not_read"].as_array().unwrap().is_empty(), "{v}");
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                format!(
                    "{} {}: {}",
                    f["object"]["kind"].as_str().unwrap(),
                    f["object"]["id"].as_str().unwrap(),
                    f["code"].as_str().unwrap()
                )
            })
            .collect()
    };
    let today = found(&now);
    let after = found(&up);
    // On 4.6.8: the widget with a filter no release has, the custom link's bad choice.
    assert!(
        today.contains(&"dashboard widget bbbb: unknown-filter".to_string()),
        "{today:?}\n{}",
        now.stderr
    );
    assert!(
        today.contains(&"custom link 5: invalid-choice".to_string()),
        "{today:?}"
    );
    assert!(
        !today.iter().any(|f| f.starts_with("saved filter")),
        "{today:?}"
    );
    // After the upgrade, saved filter 1 breaks; its twin, the quiet widget and the export
    // template stay quiet.
    let new: Vec<&String> = after.iter().filter(|f| !today.contains(f)).collect();
    assert_eq!(new, ["saved filter 1: upgrade-breaks"], "{after:?}");
    for quiet in ["saved filter 2", "dashboard widget aaaa", "export template"] {
        assert!(!after.iter().any(|f| f.starts_with(quiet)), "{after:?}");
    }
    assert_eq!(up.code, 1, "{}", up.stderr);
    assert!(
        up.stderr.contains(
            "2 saved filters, 2 dashboard widgets, 1 custom links, 1 export templates read"
        ),
        "{}",
        up.stderr
    );
    // Read-only: only GETs of the status, the three lists and the dashboard.
    for s in server.seen() {
        let (path, _) = s.path.split_once('?').unwrap_or((&s.path, ""));
        assert_eq!(s.method, "GET", "{s:?}");
        assert!(
            [
                "/api/status/",
                "/api/extras/saved-filters/",
                "/api/extras/custom-links/",
                "/api/extras/export-templates/",
                "/api/extras/dashboard/"
            ]
            .contains(&path),
            "{s:?}"
        );
        assert_eq!(s.authorization.as_deref(), Some(&*format!("Bearer {V2}")));
    }
    // The text form names each object's page and what it stores.
    let text = audit(&server, &["--upgrade-to", "4.7"]);
    let url = server.url();
    assert!(
        text.stdout.contains(&format!(
            "{url}/extras/saved-filters/1/ saved filter 1 \"UDP services\" (ipam.service): "
        )),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("  stored: /api/ipam/services/?protocol__isw=ud"),
        "{}",
        text.stdout
    );
}

/// An endpoint the token may not read is said, with a non-zero exit; what was read is checked.
#[test]
fn what_cannot_be_read_is_said() {
    let server = Server::start(Box::new(|req: &Seen| {
        let (path, _) = req.path.split_once('?').unwrap_or((&req.path, ""));
        match path {
            "/api/status/" => json(br#"{"netbox-version": "4.6.8", "plugins": {}}"#.to_vec()),
            "/api/extras/dashboard/" => status_reply(
                403,
                "application/json",
                br#"{"detail": "You do not have permission to perform this action."}"#,
            ),
            _ => page(serde_json::json!([])),
        }
    }));
    let r = audit(&server, &["--format", "json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["not_read"][0]["endpoint"], "/api/extras/dashboard/",
        "{v}"
    );
    assert!(
        r.stderr
            .contains("/api/extras/dashboard/ not read: GET /api/extras/dashboard/: NetBox refused the request (HTTP 403"),
        "{}",
        r.stderr
    );
}
