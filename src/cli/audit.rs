//! `netbox-lsp audit --url URL [--upgrade-to VERSION]`: the filters a NetBox stores (saved
//! filters, dashboard widgets, custom links, export templates; see [`crate::audit`]) checked
//! against the instance's own release (read from `/api/status/`) and, with `--upgrade-to`,
//! against the target: a stored filter NetBox ignores today, or will after the upgrade, is a
//! finding. Read-only, with the limits of `check --live`: only GETs of `/api/status/`, of the
//! `extras` list endpoints that hold filters and of the token owner's dashboard, only to that
//! URL; answers read capped; an overall deadline. Exit code: 1 with any error finding, 2 when
//! something could not be read or on usage errors, 0 otherwise.

use super::index_cmd::InstanceArgs;
use crate::audit::{self, AuditFinding, Holds, Kind, Site, Stored, Unchecked};
use crate::finding::Severity;
use crate::instance::http::Client;
use crate::knowledge::knowledge_for;
use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// Arguments of `audit`.
#[derive(Debug, Clone, clap::Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// Also check every stored filter against this newer release (`4.7`, `4.7.3`): what the
    /// upgrade breaks or changes.
    #[arg(long, value_name = "VERSION")]
    pub upgrade_to: Option<String>,
    /// An index built from this NetBox (`index build --url`), instead of the shipped knowledge
    /// of its release.
    #[arg(long)]
    pub index: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
    pub format: AuditFormat,
    /// Seconds the whole audit may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub deadline: u64,
}

/// Output formats of `audit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuditFormat {
    /// One line per finding, then what was stored.
    Text,
    /// One JSON object: the instance, the findings, what was not checked.
    Json,
}

/// Objects asked for per page.
const PAGE: usize = 100;
/// Pages read at most of one endpoint.
const MAX_PAGES: usize = 200;
/// Bytes of one answer read at most.
const ANSWER_CAP: u64 = 8 << 20;

/// Runs `audit`; returns the exit code.
pub fn run(args: &AuditArgs) -> i32 {
    let Some(url) = args.instance.url.as_deref() else {
        eprintln!("netbox-lsp audit: error: give --url: the NetBox whose stored filters to check");
        return 2;
    };
    let client = match super::instance_build::client(&args.instance, url, 30, false) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("netbox-lsp audit: error: {e}");
            return 2;
        }
    };
    // The deadline: at it, the requests in flight are stopped.
    let (done, wait) = mpsc::channel::<()>();
    let deadline = Duration::from_secs(args.deadline);
    std::thread::scope(|s| {
        let client = &client;
        s.spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(deadline) {
                client.shutdown();
            }
        });
        let code = audit_with(args, client);
        let _ = done.send(());
        code
    })
}

fn audit_with(args: &AuditArgs, client: &Client) -> i32 {
    let fail = |e: String| {
        eprintln!("netbox-lsp audit: error: {e}");
        2
    };
    let release = match crate::live::http::instance_release(client) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let named = (!release.is_empty()).then_some(release.as_str());
    let (current, notes) = match knowledge_for(named, args.index.as_deref(), None) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    let target = match &args.upgrade_to {
        Some(t) => match super::upgrade::target_knowledge(t) {
            Ok((k, n)) => {
                let (from, to) = (
                    crate::upgrade::release_of(&current),
                    crate::upgrade::release_of(&k),
                );
                if !super::upgrade::newer(&to, &from) {
                    return fail(format!(
                        "--upgrade-to {t}: NetBox {to} is not newer than {from}, the release {} runs",
                        client.base()
                    ));
                }
                for note in n {
                    eprintln!("netbox-lsp: note: {note}");
                }
                Some(k)
            }
            Err(e) => return fail(format!("--upgrade-to: {e}")),
        },
        None => None,
    };
    for note in notes {
        eprintln!("netbox-lsp: note: {note}");
    }
    let Some(index) = current.index.clone() else {
        return fail("no filter index is available for this release".into());
    };
    let (stored, unread) = read_stored(client);
    let (sites, mut unchecked) = audit::sites(&stored, &index);
    let found = audit::audit(&sites, &current, target.as_ref());
    unchecked.sort_by_key(|u| u.stored);
    let clean = |s: &str| client.clean(s);
    let out = match args.format {
        AuditFormat::Text => text(client.base(), &stored, &sites, &found, &unchecked, &clean),
        AuditFormat::Json => {
            let v = as_json(
                client.base(),
                &release,
                &stored,
                &sites,
                &found,
                &unchecked,
                &unread,
                &clean,
            );
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
    };
    print!("{out}");
    for (what, why) in &unread {
        eprintln!("netbox-lsp audit: error: {what} not read: {why}");
    }
    let count = |k: Kind| stored.iter().filter(|s| s.kind == k).count();
    eprintln!(
        "netbox-lsp audit: {} (NetBox {}{}): {} saved filters, {} dashboard widgets, {} custom links, {} export templates read; {} stored filters checked, {} not checkable; {} findings",
        client.base(),
        if release.is_empty() { "?" } else { &release },
        target
            .as_ref()
            .map(|t| format!(", upgrade to {}", crate::upgrade::release_of(t)))
            .unwrap_or_default(),
        count(Kind::SavedFilter),
        count(Kind::DashboardWidget),
        count(Kind::CustomLink),
        count(Kind::ExportTemplate),
        sites.len(),
        unchecked.len(),
        found.len()
    );
    if !unread.is_empty() {
        2
    } else if found.iter().any(|f| f.finding.severity == Severity::Error) {
        1
    } else {
        0
    }
}

/// Every stored object that holds filters, and what could not be read (what, why).
fn read_stored(client: &Client) -> (Vec<Stored>, Vec<(String, String)>) {
    let mut stored = Vec::new();
    let mut unread = Vec::new();
    let lists: [(&str, Kind); 3] = [
        ("extras/saved-filters", Kind::SavedFilter),
        ("extras/custom-links", Kind::CustomLink),
        ("extras/export-templates", Kind::ExportTemplate),
    ];
    for (endpoint, kind) in lists {
        match all_pages(client, endpoint) {
            Ok(objects) => stored.extend(objects.iter().filter_map(|o| of_object(kind, o))),
            Err(e) => unread.push((format!("/api/{endpoint}/"), e)),
        }
    }
    match get_json(client, "/api/extras/dashboard/") {
        Ok(d) => stored.extend(widgets(&d)),
        Err(e) => unread.push(("/api/extras/dashboard/".to_string(), e)),
    }
    (stored, unread)
}

/// One page's JSON, read at most [`ANSWER_CAP`] bytes; a redirect is followed only to
/// another `extras` list of the same origin.
fn get_json(client: &Client, path: &str) -> Result<Value, String> {
    let follow = |p: &str| p.starts_with("/api/extras/") && !p.contains("/../");
    client.get_streamed(path, &follow, &mut |status, body| {
        if status != 200 {
            return Err(format!("HTTP {status}"));
        }
        let mut bytes = Vec::new();
        body.take(ANSWER_CAP + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        if bytes.len() as u64 > ANSWER_CAP {
            return Err(format!(
                "{path}: the answer is larger than {} MiB",
                ANSWER_CAP >> 20
            ));
        }
        crate::instance::limits::check_json_shape(&bytes)?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{path}: not JSON: {e}"))
    })
}

/// The objects of every page of `/api/<endpoint>/`, by `offset`, at most [`MAX_PAGES`] pages.
fn all_pages(client: &Client, endpoint: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for _ in 0..MAX_PAGES {
        let v = get_json(
            client,
            &format!("/api/{endpoint}/?limit={PAGE}&offset={}", out.len()),
        )?;
        let results = v
            .get("results")
            .and_then(Value::as_array)
            .ok_or("not a NetBox list")?;
        let count = v.get("count").and_then(Value::as_u64).unwrap_or(0) as usize;
        let n = results.len();
        out.extend(results.iter().cloned());
        if n == 0 || out.len() >= count {
            return Ok(out);
        }
    }
    Err(format!(
        "still not complete after {MAX_PAGES} pages ({} objects)",
        out.len()
    ))
}

/// A saved filter, custom link or export template as a [`Stored`]; `None` when it holds no
/// filters (a disabled saved filter still does: it can be enabled).
fn of_object(kind: Kind, o: &Value) -> Option<Stored> {
    let id = o.get("id").map(|v| v.to_string())?;
    let name = o
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let object_types = o
        .get("object_types")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let holds = match kind {
        Kind::SavedFilter => Holds::Parameters(o.get("parameters")?.as_object()?.clone()),
        Kind::CustomLink => Holds::Template(o.get("link_url")?.as_str()?.to_string()),
        Kind::ExportTemplate => Holds::Template(o.get("template_code")?.as_str()?.to_string()),
        Kind::DashboardWidget => return None,
    };
    Some(Stored {
        kind,
        id,
        name,
        object_types,
        holds,
    })
}

/// The object list widgets of a dashboard (`{"config": {uuid: {"class":
/// "extras.ObjectListWidget", "title": …, "config": {"model": …, "url_params": {…}}}}}`).
fn widgets(dashboard: &Value) -> Vec<Stored> {
    let Some(config) = dashboard.get("config").and_then(Value::as_object) else {
        return Vec::new();
    };
    config
        .iter()
        .filter_map(|(id, w)| {
            if w.get("class").and_then(Value::as_str) != Some("extras.ObjectListWidget") {
                return None;
            }
            let c = w.get("config")?;
            let model = c.get("model")?.as_str()?.to_string();
            let params = c.get("url_params")?.as_object()?.clone();
            Some(Stored {
                kind: Kind::DashboardWidget,
                id: id.clone(),
                name: w
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                object_types: vec![model],
                holds: Holds::Parameters(params),
            })
        })
        .collect()
}

/// `saved filter 3 "Core devices" (dcim.device)`.
fn what(s: &Stored, object_type: Option<&str>, clean: &dyn Fn(&str) -> String) -> String {
    let mut w = format!("{} {} \"{}\"", s.kind.name(), clean(&s.id), clean(&s.name));
    if let Some(t) = object_type {
        w.push_str(&format!(" ({})", clean(t)));
    }
    w
}

/// The line of `site`'s text a finding is on, 1-based, and that line.
fn line_of(site: &Site, f: &AuditFinding) -> (usize, String) {
    let at = f.finding.range.start.min(site.text.len());
    let line = site.text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let text = site.text.lines().nth(line).unwrap_or_default();
    (line + 1, text.to_string())
}

fn text(
    base: &str,
    stored: &[Stored],
    sites: &[Site],
    found: &[AuditFinding],
    unchecked: &[Unchecked],
    clean: &dyn Fn(&str) -> String,
) -> String {
    let mut out = String::new();
    for f in found {
        let site = &sites[f.site];
        let s = &stored[site.stored];
        let (line, shown) = line_of(site, f);
        out.push_str(&format!(
            "{base}{} {}: {}[{}] {}\n",
            s.kind.ui_path(&clean(&s.id)),
            what(s, site.object_type.as_deref(), clean),
            f.finding.severity.as_str(),
            f.finding.code,
            clean(&f.finding.message)
        ));
        match &s.holds {
            Holds::Parameters(_) => {
                out.push_str(&format!("  stored: {}\n", clean(shown.trim_end())))
            }
            Holds::Template(_) => {
                out.push_str(&format!("  line {line}: {}\n", clean(shown.trim())))
            }
        }
    }
    for u in unchecked {
        let s = &stored[u.stored];
        out.push_str(&format!(
            "{base}{} {}: not checked: {}\n",
            s.kind.ui_path(&clean(&s.id)),
            what(s, u.object_type.as_deref(), clean),
            clean(&u.why)
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn as_json(
    base: &str,
    release: &str,
    stored: &[Stored],
    sites: &[Site],
    found: &[AuditFinding],
    unchecked: &[Unchecked],
    unread: &[(String, String)],
    clean: &dyn Fn(&str) -> String,
) -> Value {
    let object = |s: &Stored| {
        json!({
            "kind": s.kind.name(),
            "id": clean(&s.id),
            "name": clean(&s.name),
            "url": format!("{base}{}", s.kind.ui_path(&clean(&s.id))),
        })
    };
    json!({
        "url": base,
        "netbox_version": release,
        "findings": found.iter().map(|f| {
            let site = &sites[f.site];
            let s = &stored[site.stored];
            let (line, shown) = line_of(site, f);
            json!({
                "object": object(s),
                "object_type": site.object_type.as_deref().map(clean),
                "line": line,
                "stored": clean(shown.trim()),
                "severity": f.finding.severity.as_str(),
                "code": f.finding.code,
                "message": clean(&f.finding.message),
            })
        }).collect::<Vec<_>>(),
        "not_checked": unchecked.iter().map(|u| json!({
            "object": object(&stored[u.stored]),
            "object_type": u.object_type.as_deref().map(clean),
            "why": clean(&u.why),
        })).collect::<Vec<_>>(),
        "not_read": unread.iter().map(|(what, why)| json!({"endpoint": what, "why": why})).collect::<Vec<_>>(),
    })
}
