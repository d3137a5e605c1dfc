//! Live checks in the editor (issue 21 §2–§3): "Verify against NetBox" on a call or a whole
//! document (`workspace/executeCommand` [`VERIFY_COMMAND`], a code lens per call), and
//! verify-on-save when the user asks for it. Nothing is sent while typing: requests go only
//! from the command, a lens click or a save.
//!
//! - Opt-in per user only: `initializationOptions.live` (the VS Code extension passes only
//!   user-level values), `[live]` in `~/.config/netbox-lsp/config.toml`, or the environment
//!   variable [`LIVE_ENV`] (`1`, or `save` to verify on save too). A workspace (its
//!   `netbox-lsp.toml`, its editor settings) never turns live checks on.
//! - The NetBox is the user's own instance ([`super::instance`]: `instance.url` of the user's
//!   settings, or a workspace URL the user allowed), with its token; the requests and their
//!   limits are those of `check --live` ([`crate::live`]).
//! - Results: the answers are kept per document; each analysis of the document turns the
//!   answers of the calls that are still there into diagnostics (source `netbox (live)`) with
//!   the time of the check, and hover shows them. A call edited since has no answer and so no
//!   live diagnostic, until it is verified again.

use super::{lock, Backend};
use crate::analysis::Knowledge;
use crate::extract::HostKind;
use crate::finding::Finding;
use crate::instance::http::{Client, Options};
use crate::live::run::{Limits, Runner, DEFAULT_MAX_REQUESTS};
use crate::live::{Answers, Bound};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

/// The command that verifies a document (`[uri]`) or the calls in a range of it
/// (`[uri, range]`) against NetBox.
pub const VERIFY_COMMAND: &str = "netbox-lsp.verify";

/// Environment variable that turns live checks on for the user: `1` (commands and lenses) or
/// `save` (also verify on save).
pub const LIVE_ENV: &str = "NETBOX_LSP_LIVE";

/// Seconds to wait for each answer.
const TIMEOUT: u64 = 30;

/// The user's live-check settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveUser {
    pub enabled: bool,
    pub verify_on_save: bool,
    pub max_requests: usize,
    pub bound: Bound,
}

impl Default for LiveUser {
    fn default() -> Self {
        LiveUser {
            enabled: false,
            verify_on_save: false,
            max_requests: DEFAULT_MAX_REQUESTS,
            bound: Bound::Refuse,
        }
    }
}

/// Live state of the server.
#[derive(Debug, Default)]
pub struct Slot {
    /// From `initializationOptions.live` (taken out before the settings are parsed).
    pub from_init: Mutex<Option<LiveUser>>,
    /// The answers received per document.
    answers: Mutex<HashMap<Uri, Arc<Answers>>>,
    /// Documents being verified.
    running: Mutex<HashSet<Uri>>,
}

/// Reads `live` out of `initializationOptions` (or its `netboxLsp` section) and removes it.
pub fn take_from_init(options: &mut Option<Value>) -> (Option<LiveUser>, Vec<String>) {
    let Some(v) = options.as_mut() else {
        return (None, Vec::new());
    };
    let obj = match v.get_mut("netboxLsp") {
        Some(inner) if inner.is_object() => inner,
        _ => v,
    };
    let Some(live) = obj.as_object_mut().and_then(|o| o.remove("live")) else {
        return (None, Vec::new());
    };
    let (user, problems) = parse(&live, "initializationOptions.live");
    (Some(user), problems)
}

/// `{enabled, verifyOnSave, maxRequests, graphqlLimit, unbounded}` (snake_case accepted).
fn parse(v: &Value, source: &str) -> (LiveUser, Vec<String>) {
    let mut problems = Vec::new();
    let mut user = LiveUser::default();
    let Some(o) = v.as_object() else {
        if v.as_bool() == Some(true) {
            user.enabled = true;
        } else if !v.is_null() && v.as_bool().is_none() {
            problems.push(format!("netbox-lsp: {source} must be a table, found {v}"));
        }
        return (user, problems);
    };
    for (k, val) in o {
        let bad = |want: &str| format!("netbox-lsp: {source}.{k} must be {want}, found {val}");
        match k.as_str() {
            "enabled" => match val.as_bool() {
                Some(b) => user.enabled = b,
                None => problems.push(bad("true or false")),
            },
            "verifyOnSave" | "verify_on_save" => match val.as_bool() {
                Some(b) => user.verify_on_save = b,
                None => problems.push(bad("true or false")),
            },
            "maxRequests" | "max_requests" => match val.as_u64() {
                Some(n) if n > 0 => user.max_requests = n as usize,
                _ => problems.push(bad("a positive number")),
            },
            "graphqlLimit" | "graphql_limit" => match val.as_u64() {
                Some(n) if (1..=u32::MAX as u64).contains(&n) => {
                    user.bound = Bound::Limit(n as u32)
                }
                None if val.is_null() => {}
                _ => problems.push(bad("a positive number")),
            },
            "unbounded" => match val.as_bool() {
                Some(true) if user.bound == Bound::Refuse => user.bound = Bound::AsWritten,
                Some(_) => {}
                None => problems.push(bad("true or false")),
            },
            other => problems.push(format!(
                "netbox-lsp: {source}: unknown key `{other}` (known: enabled, verifyOnSave, maxRequests, graphqlLimit, unbounded)"
            )),
        }
    }
    (user, problems)
}

/// `[live]` of the user config file, if any (a file that cannot be read is reported by the
/// instance settings, which read it too).
fn from_user_file() -> Option<(LiveUser, Vec<String>)> {
    let path = super::instance::user_config_file()?;
    let text = super::instance::read_user_config(&path).ok()??;
    let table: toml::Table = text.parse().ok()?;
    let v = serde_json::to_value(table.get("live")?).ok()?;
    Some(parse(&v, &path.display().to_string()))
}

/// [`LIVE_ENV`]: `1`/`true`/`on` → enabled, `save` → enabled with verify on save.
fn from_env() -> Option<LiveUser> {
    let v = std::env::var(LIVE_ENV).ok()?;
    let v = v.trim().to_ascii_lowercase();
    let on = matches!(v.as_str(), "1" | "true" | "on" | "yes" | "save");
    Some(LiveUser {
        enabled: on,
        verify_on_save: v == "save",
        ..LiveUser::default()
    })
}

/// The user's live settings: `initializationOptions.live`, else the user config file, else
/// the environment; off when none says anything.
pub fn settings(backend: &Backend) -> (LiveUser, Vec<String>) {
    if let Some(u) = lock(&backend.state.live.from_init).clone() {
        return (u, Vec::new());
    }
    if let Some(found) = from_user_file() {
        return found;
    }
    (from_env().unwrap_or_default(), Vec::new())
}

/// The answers of `uri`'s last verifications, if any.
fn answers_of(backend: &Backend, uri: &Uri) -> Option<Arc<Answers>> {
    lock(&backend.state.live.answers).get(uri).cloned()
}

/// What an analysis needs to add the live findings of `uri`: its answers and how lists are
/// bounded; `None` when the document was never verified.
pub fn for_analysis(backend: &Backend, uri: &Uri) -> Option<(Arc<Answers>, Bound)> {
    let answers = answers_of(backend, uri)?;
    Some((answers, settings(backend).0.bound))
}

/// `findings` with the live findings of `text` from `live` (the time of the check appended to
/// each message), sorted by position; planned from `report`, the analysis of `text` that gave
/// `findings` (made with [`crate::analysis::analyze_kept`]), unless the answers were judged with
/// another release's knowledge. Pure: no request is sent.
pub fn merged(
    mut findings: Vec<Finding>,
    report: &crate::analysis::Report,
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    live: Option<&(Arc<Answers>, Bound)>,
) -> Vec<Finding> {
    let Some((answers, bound)) = live else {
        return findings;
    };
    // Judged with the instance's release when it is not the document's: the same here.
    let release = (!answers.release.is_empty())
        .then(|| release_knowledge(&answers.release))
        .flatten();
    let (found, _) = match &release {
        Some(other) => crate::live::findings(text, kind, other, *bound, answers),
        None => {
            crate::live::plan::of_report(report, knowledge, text, *bound).judge(answers, text, kind)
        }
    };
    let at = checked_at(&answers.at);
    findings.extend(found.into_iter().map(|mut f| {
        f.message = format!("{} (checked {at})", f.message);
        f
    }));
    findings.sort_by_key(Finding::sort_key);
    findings
}

/// The embedded knowledge of the shipped release nearest `version` (none when nothing is
/// shipped).
fn release_knowledge(version: &str) -> Option<Knowledge> {
    crate::knowledge::knowledge_for(Some(version), None, None)
        .ok()
        .map(|(k, _)| k)
}

/// The knowledge a live verification uses: the document's, unless the instance runs another
/// minor release than it and the document's is not an index of an instance: then the nearest
/// shipped release to the instance's, and a note that says so.
fn for_release(
    knowledge: &Knowledge,
    release: &str,
    url: &str,
) -> (Option<Knowledge>, Option<String>) {
    let minor = crate::live::http::minor;
    let Some(index) = knowledge.index.as_deref() else {
        return (None, None);
    };
    if index.instance.is_some()
        || !crate::index::build::is_version(release)
        || minor(&index.netbox_version) == minor(release)
    {
        return (None, None);
    }
    let note = format!(
        "the settings check against NetBox {}, but {url} runs {release}: its live verdicts use the knowledge of {release}",
        index.netbox_version
    );
    (release_knowledge(release), Some(note))
}

/// `2026-05-01T19:40:12Z` → `2026-05-01 19:40:12 UTC`.
fn checked_at(rfc3339: &str) -> String {
    match rfc3339.strip_suffix('Z') {
        Some(t) => format!("{} UTC", t.replacen('T', " ", 1)),
        None => rfc3339.to_string(),
    }
}

/// The hover section for the live findings at `offset`: their messages (counts and the time of
/// the check) under a heading.
pub fn hover_section(findings: &[Finding], offset: usize) -> Option<String> {
    let lines: Vec<String> = findings
        .iter()
        .filter(|f| crate::live::is_live_code(f.code))
        .filter(|f| f.range.start <= offset && offset <= f.range.end)
        .map(|f| format!("- `{}` {}", f.code, f.message))
        .collect();
    (!lines.is_empty()).then(|| format!("**NetBox (live)**\n\n{}", lines.join("\n")))
}

/// Forgets `uri`'s answers (the document closed).
pub fn forget(backend: &Backend, uri: &Uri) {
    lock(&backend.state.live.answers).remove(uri);
}

/// `[uri]`, `[uri, range]` or `[{"uri": …, "range": …}]`.
fn command_target(args: &[Value]) -> Option<(Uri, Option<Range>)> {
    let (uri, range) = match args {
        [Value::Object(o)] => (o.get("uri")?, o.get("range")),
        [u] => (u, None),
        [u, r, ..] => (u, Some(r)),
        [] => return None,
    };
    let uri: Uri = uri.as_str()?.parse().ok()?;
    let range = range.and_then(|r| serde_json::from_value::<Range>(r.clone()).ok());
    Some((uri, range))
}

/// Runs [`VERIFY_COMMAND`]: the outcome as JSON (`sent`, `summary`, `failure`, `error`); the
/// user is told with `window/showMessage` (`netbox-lsp: verified against …`).
pub async fn execute(backend: &Backend, args: &[Value]) -> Option<Value> {
    let Some((uri, range)) = command_target(args) else {
        let m = "netbox-lsp: Verify against NetBox needs the document (arguments: [uri] or [uri, range])";
        backend.client.show_message(MessageType::WARNING, m).await;
        return Some(json!({"sent": 0, "error": "no document"}));
    };
    verify(backend, uri, range, false).await
}

/// Verifies `uri` (the calls overlapping `range`, or all; with `only_new`, only the calls
/// without an answer yet, and without asking again what is answered) against the user's
/// NetBox, keeps the answers and re-publishes the document's diagnostics.
async fn verify(
    backend: &Backend,
    uri: Uri,
    range: Option<Range>,
    only_new: bool,
) -> Option<Value> {
    let say = |t: MessageType, m: String| async move {
        backend.client.show_message(t, m).await;
    };
    let (live, problems) = settings(backend);
    for p in problems {
        say(MessageType::WARNING, p).await;
    }
    if !live.enabled {
        say(MessageType::WARNING, format!(
            "netbox-lsp: live checks are off. Turn them on in your user settings (live.enabled; VS Code: netboxLsp.live.enabled), in ~/.config/netbox-lsp/config.toml ([live] enabled = true) or with {LIVE_ENV}=1; a workspace cannot."
        )).await;
        return Some(json!({"sent": 0, "error": "live checks are off"}));
    }
    let Some(user) = super::instance::live_instance(backend) else {
        say(MessageType::WARNING, "netbox-lsp: no NetBox to verify against: set instance.url (and instance.tokenEnv) in your user settings or ~/.config/netbox-lsp/config.toml".to_string()).await;
        return Some(json!({"sent": 0, "error": "no instance"}));
    };
    let Some(view) = backend.view(&uri) else {
        return Some(json!({"sent": 0, "error": "the document is not open"}));
    };
    if !lock(&backend.state.live.running).insert(uri.clone()) {
        say(
            MessageType::INFO,
            "netbox-lsp: a verification of this document is running".into(),
        )
        .await;
        return Some(json!({"sent": 0, "error": "running"}));
    }
    let (_, loaded) = backend.knowledge_of(&view).await;
    let enc = backend.state.encoding();
    let snap = view.snap.clone();
    let bytes = range.map(|r| snap.offset(r.start, enc)..snap.offset(r.end, enc));
    let kind = view.kind;
    let url = user.url.clone();
    let kept = match only_new {
        true => answers_of(backend, &uri),
        false => None,
    };
    let analysed = kept_report(backend, &uri, snap.version);
    let done = tokio::task::spawn_blocking(move || {
        // From the document's analysis when it is of this version and this knowledge; read
        // again only for another release's knowledge (or before the first analysis ends).
        let planned = |knowledge: &Knowledge, own: bool| {
            let mut plan = match analysed.as_deref().filter(|_| own) {
                Some(report) => {
                    crate::live::plan::of_report(report, knowledge, &snap.text, live.bound)
                }
                None => crate::live::plan::plan(&snap.text, kind, knowledge, live.bound),
            };
            if let Some(r) = &bytes {
                plan = plan.only(r);
            }
            if let Some(kept) = &kept {
                plan = plan.unanswered(kept);
            }
            plan
        };
        // Nothing to send: said before any request.
        let plan = planned(&loaded.knowledge, true);
        if kept.is_some() && plan.calls.is_empty() && plan.documents.is_empty() {
            return Ok(None);
        }
        let (_, refused) = plan.judge(&Answers::default(), &snap.text, kind);
        if plan.calls.is_empty() && plan.documents.is_empty() {
            let why: Vec<String> = plan
                .not_checkable
                .iter()
                .map(|(_, w)| w.why.clone())
                .collect();
            return Err(if why.is_empty() && refused.not_sent_total() == 0 {
                "no NetBox call to verify here".to_string()
            } else if why.is_empty() {
                "nothing here may be sent (see the diagnostics)".to_string()
            } else {
                format!("nothing to verify here: {}", why.join("; "))
            });
        }
        let client = Client::new(
            &user.url,
            user.token()?,
            Options {
                timeout: Duration::from_secs(TIMEOUT),
                ..Options::default()
            },
        )?;
        // The instance's release first: its knowledge judges the answers.
        let release = crate::live::http::instance_release(&client)?;
        let (other, note) = for_release(&loaded.knowledge, &release, client.base());
        let plan = match &other {
            Some(k) => planned(k, false),
            None => plan,
        };
        let transport = crate::live::http::Http { client: &client };
        let limits = Limits {
            max_requests: live.max_requests,
            ..Limits::default()
        };
        let runner = match &kept {
            Some(k) => Runner::with_answers(&transport, limits, k),
            None => Runner::new(&transport, limits),
        };
        let mut answers = runner.check(&plan);
        if other.is_some() {
            answers.release = release;
        }
        let (_, summary) = plan.judge(&answers, &snap.text, kind);
        Ok(Some((
            answers,
            summary,
            runner.sent(),
            runner.failure(),
            note,
        )))
    })
    .await;
    lock(&backend.state.live.running).remove(&uri);
    let (answers, summary, sent, failure, note) = match done {
        Ok(Ok(Some(r))) => r,
        Ok(Ok(None)) => return Some(json!({"sent": 0})),
        Ok(Err(e)) => {
            say(MessageType::WARNING, format!("netbox-lsp: {e}")).await;
            return Some(json!({"sent": 0, "error": e}));
        }
        Err(_) => return Some(json!({"sent": 0, "error": "the verification failed"})),
    };
    {
        let mut all = lock(&backend.state.live.answers);
        let mut merged = all.get(&uri).map(|a| (**a).clone()).unwrap_or_default();
        merged.merge(answers);
        all.insert(uri.clone(), Arc::new(merged));
    }
    backend.schedule(uri, Duration::ZERO);
    if let Some(note) = note {
        say(MessageType::INFO, format!("netbox-lsp: {note}")).await;
    }
    let text = format!(
        "netbox-lsp: verified against {url} ({sent} requests): {}",
        summary.describe()
    );
    match &failure {
        Some(f) => say(MessageType::ERROR, format!("{text}; a request failed: {f}")).await,
        None => say(MessageType::INFO, text).await,
    }
    Some(json!({"sent": sent, "summary": summary.describe(), "failure": failure}))
}

/// The analysis of `uri` at `version` with its sites kept ([`crate::analysis::analyze_kept`]),
/// when the last one finished is of that version: what verification and the code lens plan
/// from.
fn kept_report(backend: &Backend, uri: &Uri, version: i32) -> Option<Arc<crate::analysis::Report>> {
    lock(&backend.state.docs)
        .get(uri)
        .and_then(|d| d.sites.clone())
        .filter(|(v, _)| *v == version)
        .map(|(_, report)| report)
}

/// Handles `textDocument/didSave`: verifies the document when the user asked for it.
pub async fn did_save(backend: &Backend, params: DidSaveTextDocumentParams) {
    let (live, _) = settings(backend);
    if live.enabled && live.verify_on_save {
        let b = backend.clone();
        tokio::spawn(async move {
            verify(&b, params.text_document.uri, None, true).await;
        });
    }
}

/// Handles `textDocument/codeLens`: with live checks on, "Verify against NetBox" above each
/// call and GraphQL document that can be verified, and one for the whole document when it has
/// several. Nothing when live checks are off.
pub async fn code_lens(backend: &Backend, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    if !settings(backend).0.enabled {
        return Ok(None);
    }
    let uri = params.text_document.uri;
    let Some(view) = backend.view(&uri) else {
        return Ok(None);
    };
    let (_, loaded) = backend.knowledge_of(&view).await;
    let enc = backend.state.encoding();
    let snap = view.snap.clone();
    let kind = view.kind;
    let bound = settings(backend).0.bound;
    let verified = answers_of(backend, &uri);
    // The last analysis of this version, when there is one: nothing is analysed again.
    let analysed = kept_report(backend, &uri, snap.version);
    let planned = tokio::task::spawn_blocking(move || {
        super::guarded(|| {
            let plan = match &analysed {
                Some(report) => {
                    crate::live::plan::of_report(report, &loaded.knowledge, &snap.text, bound)
                }
                None => crate::live::plan::plan(&snap.text, kind, &loaded.knowledge, bound),
            };
            let mut ranges: Vec<(std::ops::Range<usize>, bool)> = plan
                .calls
                .iter()
                .map(|c| {
                    let done = verified
                        .as_ref()
                        .is_some_and(|a| a.get(&c.filtered).is_some());
                    (c.call_range.clone(), done)
                })
                .collect();
            ranges.extend(plan.documents.iter().map(|d| {
                let done = verified
                    .as_ref()
                    .is_some_and(|a| d.operations.iter().any(|o| a.get(&o.request).is_some()));
                (d.range.clone(), done)
            }));
            ranges.sort_by_key(|(r, _)| r.start);
            (snap, ranges)
        })
    })
    .await;
    let Ok(Ok((snap, ranges))) = planned else {
        return Ok(None);
    };
    let lens = |r: &std::ops::Range<usize>, title: String, args: Vec<Value>| {
        let at = snap.range(&(r.start..r.start), enc);
        CodeLens {
            range: at,
            command: Some(Command {
                title,
                command: VERIFY_COMMAND.to_string(),
                arguments: Some(args),
            }),
            data: None,
        }
    };
    let mut out = Vec::new();
    if ranges.len() > 1 {
        out.push(lens(
            &(0..0),
            format!("Verify document against NetBox ({} calls)", ranges.len()),
            vec![json!(uri.as_str())],
        ));
    }
    for (r, done) in &ranges {
        let lsp = snap.range(r, enc);
        let title = if *done {
            "Verify again against NetBox"
        } else {
            "Verify against NetBox"
        };
        out.push(lens(
            r,
            title.to_string(),
            vec![json!(uri.as_str()), json!(lsp)],
        ));
    }
    Ok(Some(out))
}
