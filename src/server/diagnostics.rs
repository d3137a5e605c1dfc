//! Diagnostics: debounced after each change, computed on a snapshot in a blocking task, stored
//! only if still current (a newer change supersedes and aborts the pending run), and pushed
//! tagged with the document version — or, for a client that pulls, kept for its
//! `textDocument/diagnostic` (`super::pull`). Also the Finding → Diagnostic conversion.

use super::config::Settings;
use super::knowledge::Loaded;
use super::position::{Encoding, Snapshot};
use super::presentation::code_description;
pub use super::presentation::{effective, severity, SOURCE};
use super::{guarded, lock, Backend};
use crate::analysis::{self, UnitCache};
use crate::extract::HostKind;
use crate::finding::{Finding, Severity};
use crate::intent::Readings;
use serde_json::json;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Duration;
use tower_lsp_server::ls_types::{Diagnostic, MessageType, NumberOrString, TextEdit, Uri};

/// Delay after a change before analysing, so a burst of keystrokes is analysed once.
pub const DEBOUNCE: Duration = Duration::from_millis(60);

/// Environment variable overriding [`DEBOUNCE`] in milliseconds (`benches/lsp.rs` sets it to
/// `0` to time the analysis path without the wait).
pub const DEBOUNCE_ENV: &str = "NETBOX_LSP_DEBOUNCE_MS";

/// The debounce in effect: [`DEBOUNCE_ENV`] when it holds a number, else [`DEBOUNCE`].
pub fn debounce() -> Duration {
    std::env::var(DEBOUNCE_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map_or(DEBOUNCE, Duration::from_millis)
}

/// The knowledge for `settings`, loaded off the async threads; notes are told once.
pub async fn knowledge_for(backend: &Backend, settings: &Settings) -> Arc<Loaded> {
    if let Some(loaded) = super::instance::knowledge_for(backend, settings) {
        return loaded;
    }
    let state = backend.state.clone();
    let s = settings.clone();
    let teller = backend.clone();
    let chosen = settings.netbox_version.is_some() || settings.index.is_some();
    let runtime = tokio::runtime::Handle::current();
    let got = tokio::task::spawn_blocking(move || {
        let got = guarded(|| state.knowledge.get(&s));
        // A fresh load's notes are told once, from a task of their own: the run awaiting this
        // load may be aborted by a newer run of the same document (a settings refresh right
        // after an open), and with it the only chance to tell them.
        if let Ok((loaded, true)) = &got {
            runtime.spawn(tell_notes(teller, loaded.clone(), chosen));
        }
        got
    })
    .await;
    match got {
        Ok(Ok((loaded, _))) => loaded,
        Ok(Err(why)) => {
            backend
                .log(
                    MessageType::ERROR,
                    format!("loading knowledge panicked: {why}"),
                )
                .await;
            Arc::new(Loaded::default())
        }
        Err(e) => {
            backend
                .log(MessageType::ERROR, format!("loading knowledge failed: {e}"))
                .await;
            Arc::new(Loaded::default())
        }
    }
}

/// Tells the notes of a fresh load: as popups when the user chose the release or index
/// (`chosen`), else in the log; then which filter index is in use.
async fn tell_notes(backend: Backend, loaded: Arc<Loaded>, chosen: bool) {
    for note in &loaded.notes {
        if chosen {
            let m = format!("netbox-lsp: {note}");
            backend.popup(MessageType::WARNING, m).await;
        } else {
            backend.log(MessageType::WARNING, note).await;
        }
    }
    if !loaded.index_version.is_empty() {
        backend
            .log(
                MessageType::INFO,
                format!("using the NetBox {} filter index", loaded.index_version),
            )
            .await;
    }
}

/// The knowledge of the `upgradeTo` release, when the setting names a shipped release newer
/// than the one in use (else `None`: no upgrade findings; a release that is not a version is
/// told once by the knowledge loader).
async fn upgrade_knowledge(
    backend: &Backend,
    settings: &Settings,
    current: &Loaded,
) -> Option<Arc<Loaded>> {
    let s = super::knowledge::upgrade_settings(settings)?;
    let next = knowledge_for(backend, &s).await;
    let parse = crate::version::Version::parse;
    let newer = match (parse(&next.index_version), parse(&current.index_version)) {
        (Some(a), Some(b)) => a > b,
        _ => false,
    };
    newer.then_some(next)
}

/// Largest part of a document the server analyses (bytes). A 25 MB generated skill file took
/// 33 s to its diagnostics and 2.5 GB of memory (246,000 diagnostics), a 25 MB `.py` of tool
/// calls 40 s and 3.5 GB; 2 MiB of either comes within about 3 s and 350 MB on a busy 2-core
/// machine (`scripts/lsp-large.py`). Real skill files and scripts are far below it; `check`
/// reads a file in full up to [`analysis::structural_limit`].
pub const EDITOR_MAX_BYTES: usize = 2 * 1024 * 1024;

/// Where the analysed part of `text` ends (a byte offset): `text.len()` up to
/// [`EDITOR_MAX_BYTES`], else the start of the last line before the limit that begins at column
/// 0 (a top-level statement or Markdown block, so no call is cut in two), or the last line
/// start. JSON, notebooks and GraphQL above the limit are not analysed at all (0): a prefix
/// would not parse, and reading the whole took 2.9 GB for a 10 MB JSON array.
pub fn editor_part(text: &str, kind: HostKind) -> usize {
    if text.len() <= EDITOR_MAX_BYTES {
        return text.len();
    }
    if whole_only(kind) {
        return 0;
    }
    let head = &text.as_bytes()[..EDITOR_MAX_BYTES];
    let top_level = head
        .windows(2)
        .rposition(|w| w[0] == b'\n' && !w[1].is_ascii_whitespace())
        .map(|i| i + 1);
    top_level
        .or_else(|| head.iter().rposition(|&b| b == b'\n').map(|i| i + 1))
        .unwrap_or(0)
}

/// True for the kinds read only whole (JSON, notebooks, GraphQL), which [`editor_part`] does not
/// cut.
fn whole_only(kind: HostKind) -> bool {
    matches!(
        kind,
        HostKind::Json | HostKind::Notebook | HostKind::Graphql
    )
}

/// The `not-checked` finding (at the document's start) for a document of kind `kind` whose
/// analysis stopped at byte `part` of `len`.
fn partly_checked(text: &str, part: usize, kind: HostKind) -> Finding {
    if whole_only(kind) {
        return Finding::new(
            0..0,
            "not-checked",
            Severity::Error,
            format!(
                "This document is {:.1} MB ({} bytes): the editor does not check a JSON document, notebook or GraphQL document above {} MiB (a part of one would not parse), so none of it is checked. Run `netbox-lsp check` on the file to check it, or split it.",
                text.len() as f64 / 1e6,
                text.len(),
                EDITOR_MAX_BYTES >> 20
            ),
        );
    }
    let line = text[..part].bytes().filter(|&b| b == b'\n').count();
    Finding::new(
        0..0,
        "not-checked",
        Severity::Error,
        format!(
            "This document is {:.1} MB ({} bytes): the editor checks only its first {} lines ({} bytes, up to {} MiB); the rest is not checked. Run `netbox-lsp check` on the file to check all of it, or split it.",
            text.len() as f64 / 1e6,
            text.len(),
            line,
            part,
            EDITOR_MAX_BYTES >> 20
        ),
    )
}

/// Analyses `text` under a panic guard with the readings of the document's settings, reusing
/// the document's `units` cache; the test hook can make it panic once. A cache busy with
/// another analysis of the same document is not waited for (a throwaway one is used), and one
/// left by a panic is emptied.
pub fn analyze_guarded(
    backend: &Backend,
    text: &str,
    kind: HostKind,
    loaded: &Loaded,
    readings: Readings,
    units: &Mutex<UnitCache>,
) -> Result<analysis::Report, String> {
    let arm = backend
        .state
        .panic_next_analysis
        .swap(false, Ordering::SeqCst);
    guarded(|| {
        if arm {
            panic!("debug hook: analysis panic");
        }
        let mut spare = UnitCache::default();
        let mut held = match units.try_lock() {
            Ok(g) => Some(g),
            Err(TryLockError::Poisoned(p)) => {
                let mut g = p.into_inner();
                *g = UnitCache::default();
                units.clear_poison();
                Some(g)
            }
            Err(TryLockError::WouldBlock) => None,
        };
        let cache = held.as_deref_mut().unwrap_or(&mut spare);
        let knowledge = analysis::Knowledge {
            readings,
            ..loaded.knowledge.clone()
        };
        let part = editor_part(text, kind);
        // The sites are kept: live findings are judged from this analysis.
        let mut report = analysis::analyze_kept(&text[..part], kind, &knowledge, Some(cache));
        if part < text.len() {
            report.findings.insert(0, partly_checked(text, part, kind));
        }
        report
    })
}

/// One analysis of a document's current version: its findings (live and upgrade findings
/// merged in), the snapshot they belong to and the settings that apply.
pub struct Analysed {
    pub snapshot: Arc<Snapshot>,
    pub findings: Arc<Vec<Finding>>,
    pub settings: Settings,
}

/// Analyses `uri`'s current version and stores the findings in the document (unless a newer
/// change came meanwhile); `None` when the document is not open, the run was superseded, or
/// another change arrived during it.
pub async fn analyse(backend: &Backend, uri: &Uri) -> Option<Analysed> {
    let (snapshot, kind, path, generation, units) = {
        let mut docs = lock(&backend.state.docs);
        let doc = docs.get_mut(uri)?;
        let units = doc.units.clone();
        (
            doc.snapshot(),
            doc.kind,
            doc.path.clone(),
            doc.generation,
            units,
        )
    };
    let (settings, root) = backend.state.settings_for(path.as_deref());
    let excluded = path
        .as_deref()
        .is_some_and(|p| settings.is_excluded(p, root.as_deref()));
    let (findings, not_checked, sites) = if excluded {
        (Arc::new(Vec::new()), Arc::new(Vec::new()), None)
    } else {
        let loaded = knowledge_for(backend, &settings).await;
        let next = upgrade_knowledge(backend, &settings, &loaded).await;
        let b = backend.clone();
        let snap = snapshot.clone();
        let live = super::live::for_analysis(backend, uri);
        let readings = settings.readings();
        let runtime = tokio::runtime::Handle::current();
        let name = uri.as_str().to_owned();
        let result = tokio::task::spawn_blocking(move || {
            // Dropped last, after the analysis's temporaries.
            let _collect = super::idle::CollectOnDrop;
            let logger = b.clone();
            let analysed = (|| {
                let mut report = analyze_guarded(&b, &snap.text, kind, &loaded, readings, &units)?;
                if let Some(next) = next {
                    let changes = guarded(|| {
                        crate::upgrade::compare_with(
                            &snap.text[..editor_part(&snap.text, kind)],
                            kind,
                            &report.findings,
                            &loaded.knowledge,
                            &next.knowledge,
                        )
                    })?;
                    report
                        .findings
                        .extend(changes.into_iter().map(|c| c.finding));
                    report.findings.sort_by_key(Finding::sort_key);
                }
                report.findings = super::live::merged(
                    std::mem::take(&mut report.findings),
                    &report,
                    &snap.text[..editor_part(&snap.text, kind)],
                    kind,
                    &loaded.knowledge,
                    live.as_ref(),
                );
                Ok::<_, String>(report)
            })();
            if let Err(panic) = &analysed {
                // Logged from a task of its own: a newer change may already have aborted the
                // run awaiting this one, and the panic must be reported all the same.
                let message = format!("analysis of {name} panicked: {panic}");
                runtime.spawn(async move { logger.log(MessageType::ERROR, message).await });
            }
            analysed
        })
        .await;
        match result {
            Ok(Ok(r)) => {
                let sites = analysis::Report {
                    sites: r.sites,
                    blocks: r.blocks,
                    ..analysis::Report::default()
                };
                (
                    Arc::new(r.findings),
                    Arc::new(r.not_checked),
                    Some(Arc::new(sites)),
                )
            }
            // Logged where it was caught (above).
            Ok(Err(_)) => (Arc::new(Vec::new()), Arc::new(Vec::new()), None),
            Err(_) => return None, // aborted: superseded
        }
    };
    {
        let mut docs = lock(&backend.state.docs);
        let doc = docs.get_mut(uri)?;
        if doc.generation != generation {
            return None; // superseded by a newer change
        }
        doc.findings = Some((snapshot.version, findings.clone()));
        doc.not_checked = not_checked;
        doc.sites = sites.map(|s| (snapshot.version, s));
    }
    Some(Analysed {
        snapshot,
        findings,
        settings,
    })
}

/// Analyses `uri` and publishes its diagnostics (or, to a pulling client, asks it to pull
/// again when they changed): the job [`Backend::schedule`] runs.
pub(super) async fn run(backend: &Backend, uri: Uri) {
    let Some(a) = analyse(backend, &uri).await else {
        return;
    };
    let state = backend.state.clone();
    backend.state.idle.after_analysis(move || {
        super::knowledge::release_unused(&state);
    });
    let enc = backend.state.encoding();
    if lock(&backend.state.caps).pull {
        // The client pulls (`textDocument/diagnostic`, see `pull`): it is told to pull again
        // only when what it last pulled for this version has changed (settings, knowledge,
        // a live verification), since an edit makes it pull anyway.
        let diags = to_diagnostics(&a.findings, &a.snapshot, enc, &a.settings);
        ask_to_pull_again(backend, &uri, a.snapshot.version, &diags).await;
        return;
    }
    publish(backend, uri, Some(&a.snapshot), &a.findings, &a.settings).await;
}

/// Publishes `findings` for `uri` at the version of `snap` (no findings and no version when
/// `snap` is `None`: a closed document): written as bytes through the outbox (`wire`) when the
/// server has one, else through tower-lsp-server's `Client`.
pub async fn publish(
    backend: &Backend,
    uri: Uri,
    snap: Option<&Snapshot>,
    findings: &[Finding],
    settings: &Settings,
) {
    let enc = backend.state.encoding();
    let version = snap.map(|s| s.version);
    let range = |r: &std::ops::Range<usize>| match snap {
        Some(s) => s.range(r, enc),
        None => tower_lsp_server::ls_types::Range::default(),
    };
    if let Some(outbox) = &backend.state.outbox {
        let frame = super::wire::publish_frame(&uri, version, findings, &range, settings);
        outbox.send(frame).await;
        return;
    }
    let diags = to_diagnostics_with(findings, &range, settings);
    backend
        .client
        .publish_diagnostics(uri, diags, version)
        .await;
}

/// The result id of a set of diagnostics for a pulling client: hex SHA-256 (16 digits) of their
/// JSON, so the same diagnostics always get the same id.
pub fn result_id(diags: &[Diagnostic]) -> String {
    let json = serde_json::to_vec(diags).unwrap_or_default();
    sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(&json))[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// After an analysis of `uri` at `version` gave `diags`: when the client pulled this very
/// version (`Document::pulled`) and got something else, ask it to pull again
/// (`workspace/diagnostic/refresh`, which every pulling client takes: `ClientCaps::pull`). An
/// edit needs no refresh: the client pulls after it.
async fn ask_to_pull_again(backend: &Backend, uri: &Uri, version: i32, diags: &[Diagnostic]) {
    let stale = lock(&backend.state.docs)
        .get(uri)
        .and_then(|d| d.pulled.clone())
        .is_some_and(|(v, id)| v == version && id != result_id(diags));
    if stale {
        if let Err(e) = backend.client.workspace_diagnostic_refresh().await {
            backend
                .log(
                    MessageType::WARNING,
                    format!("workspace/diagnostic/refresh failed: {e}"),
                )
                .await;
        }
    }
}

/// Converts findings to LSP diagnostics; `data` carries the fixes (LSP ranges of this version).
pub fn to_diagnostics(
    findings: &[Finding],
    snap: &Snapshot,
    enc: Encoding,
    settings: &Settings,
) -> Vec<Diagnostic> {
    to_diagnostics_with(findings, &|r| snap.range(r, enc), settings)
}

/// [`to_diagnostics`] with byte ranges converted by `range` (a precomputed table for many).
pub fn to_diagnostics_with(
    findings: &[Finding],
    range: &dyn Fn(&std::ops::Range<usize>) -> tower_lsp_server::ls_types::Range,
    settings: &Settings,
) -> Vec<Diagnostic> {
    effective(findings, settings)
        .map(|(f, sev)| {
            let fixes: Vec<_> = f
                .fixes
                .iter()
                .map(|fix| {
                    let edits: Vec<TextEdit> = fix
                        .edits
                        .iter()
                        .map(|e| TextEdit::new(range(&e.range), e.new_text.clone()))
                        .collect();
                    json!({"title": fix.title, "certain": fix.certain, "edits": edits})
                })
                .collect();
            Diagnostic {
                range: range(&f.range),
                severity: Some(severity(sev)),
                code: Some(NumberOrString::String(f.code.to_string())),
                code_description: code_description(f.code),
                source: Some(
                    if crate::live::is_live_code(f.code) {
                        crate::live::SOURCE
                    } else {
                        SOURCE
                    }
                    .to_string(),
                ),
                message: f.message.clone(),
                data: (!fixes.is_empty()).then(|| json!({ "fixes": fixes })),
                ..Diagnostic::default()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Up to the limit a document is analysed whole; above it the part ends at the start of a
    /// top-level line at or before the limit (never inside an indented continuation); JSON above
    /// it is not analysed (a prefix would not parse) and says so.
    #[test]
    fn the_part_ends_at_a_top_level_line() {
        assert_eq!(editor_part("x = 1\n", HostKind::Python), 6);
        let call = "nb.dcim.devices.filter(\n    name=\"a\",\n    status=\"active\",\n)\n";
        let text = call.repeat(EDITOR_MAX_BYTES / call.len() + 100);
        let part = editor_part(&text, HostKind::Python);
        assert!(part <= EDITOR_MAX_BYTES && part > EDITOR_MAX_BYTES - call.len());
        assert!(
            text[part..].starts_with("nb.dcim"),
            "{}",
            &text[part..part + 20]
        );
        assert_eq!(editor_part(&text, HostKind::Json), 0);
        let f = partly_checked(&text, part, HostKind::Python);
        assert!(
            f.message.contains(&format!("{} bytes", text.len())),
            "{}",
            f.message
        );
        // One line longer than the limit: nothing but what the URL scan of nothing finds.
        let long = "x".repeat(EDITOR_MAX_BYTES + 10);
        assert_eq!(editor_part(&long, HostKind::Markdown), 0);
        // JSON just under the limit is analysed whole; above it, not at all.
        let under = format!("[{}1]", "1,".repeat((EDITOR_MAX_BYTES - 3) / 2));
        assert!(under.len() <= EDITOR_MAX_BYTES);
        assert_eq!(editor_part(&under, HostKind::Json), under.len());
        let over = format!("[{}1]", "1,".repeat(EDITOR_MAX_BYTES / 2));
        for kind in [HostKind::Json, HostKind::Notebook, HostKind::Graphql] {
            assert_eq!(editor_part(&over, kind), 0);
            let f = partly_checked(&over, 0, kind);
            assert!(
                f.message.contains("none of it is checked")
                    && f.message.contains(&format!("{} bytes", over.len())),
                "{}",
                f.message
            );
        }
    }
}
