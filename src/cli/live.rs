//! `check --live`: after the static check, each file's REST calls and GraphQL documents (and
//! standard input's, with `-`) are verified against the NetBox of `--url` (the instance options
//! of `index build --url`), and the live findings join the static ones in the same output,
//! each with the requests it rests on. One run shares one request budget, one deadline and one
//! cache over all files. The instance's release is read from `/api/status/` first, so the
//! static findings use the knowledge of that release ([`connect`]). A summary goes to stderr.

use super::check::{apply_overrides, decode, display_path, hide_bom, Decoded};
use super::index_cmd::InstanceArgs;
use super::output::{self, Located, Proof};
use super::walk::Input;
use crate::analysis::Knowledge;
use crate::extract::HostKind;
use crate::finding::Severity;
use crate::instance::http::Client;
use crate::lines::LineIndex;
use crate::live::run::{
    Limits, Runner, DEFAULT_DEADLINE_SECS, DEFAULT_MAX_REQUESTS, DEFAULT_RATE, MAX_RATE,
};
use crate::live::{Bound, Summary};
use std::collections::HashMap;
use std::time::Duration;

/// Seconds `check --live` waits for an answer to start unless `--timeout` says otherwise.
const LIVE_TIMEOUT: u64 = 30;

/// The options of `check --live`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LiveArgs {
    /// Also verify each REST call and GraphQL document against your NetBox by its result set:
    /// `GET <endpoint>?<filters>&limit=1` and `GET <endpoint>?limit=1`, compare the counts;
    /// GraphQL query operations only, with bounded lists. Needs --url; sends only
    /// `GET /api/status/`, GETs of list endpoints and POST /graphql/ with queries, only to that
    /// URL. The static checks use the knowledge of the release the NetBox reports.
    #[arg(long, requires = "url", conflicts_with = "diff")]
    pub live: bool,
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// Requests a live run sends at most (cache hits are free); calls beyond it are reported
    /// as not sent.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REQUESTS, requires = "live")]
    pub live_max_requests: usize,
    /// Request starts per second at most (1 to 20); at most 4 requests are in flight.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RATE, requires = "live",
          value_parser = clap::value_parser!(u32).range(1..=MAX_RATE as i64))]
    pub live_rate: u32,
    /// Seconds the whole live run may take; at the deadline the requests in flight are
    /// stopped and the rest are reported as not sent.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_DEADLINE_SECS, requires = "live",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub live_deadline: u64,
    /// Add `pagination: {limit: N}` to GraphQL root lists that have no limit, instead of not
    /// sending their operation (at most 100).
    #[arg(long, value_name = "N", requires = "live", conflicts_with = "live_unbounded",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub live_graphql_limit: Option<u32>,
    /// Send GraphQL operations with root lists that have no limit without adding one (NetBox
    /// 4.5.5+ cuts them at its MAX_PAGE_SIZE); limits above 100 are still lowered.
    #[arg(long, requires = "live")]
    pub live_unbounded: bool,
}

impl LiveArgs {
    /// How GraphQL lists are bounded.
    pub fn bound(&self) -> Bound {
        match (self.live_graphql_limit, self.live_unbounded) {
            (Some(n), _) => Bound::Limit(n),
            (None, true) => Bound::AsWritten,
            (None, false) => Bound::Refuse,
        }
    }
}

/// The NetBox of a live run: its client and the release `/api/status/` reports.
pub struct Connected {
    pub client: Client,
    /// `4.7.3` (empty when the status names no release: a beta image).
    pub netbox_version: String,
    /// The header scheme of the token (`Token`, `Bearer`) and the variable a proof's `curl`
    /// reads it from.
    scheme: &'static str,
    token_env: String,
}

/// Opens the NetBox of `--url` and reads its `/api/status/` (the first request of a live run).
/// Errors (a bad URL, an unreadable token, no answer, not a NetBox) stop the run before
/// anything else is sent.
pub fn connect(args: &LiveArgs) -> Result<Connected, String> {
    let url = args
        .instance
        .url
        .as_deref()
        .ok_or("--live needs --url: the NetBox to verify against")?;
    let client = super::instance_build::client(&args.instance, url, LIVE_TIMEOUT, false)?;
    let netbox_version = crate::live::http::instance_release(&client)?;
    let scheme = match client.token_is_v2() {
        Some(true) => "Bearer",
        _ => "Token",
    };
    let token_env = args
        .instance
        .token_env
        .clone()
        .unwrap_or_else(|| "NETBOX_TOKEN".to_string());
    Ok(Connected {
        client,
        netbox_version,
        scheme,
        token_env,
    })
}

/// The release a live run's static checks use, given the instance's `reported` release and
/// the one the user named (`named`, with `on_command_line` when it came from a flag rather
/// than a settings file): `Ok(version to use, note)`; an error for a flag whose major.minor
/// differs from the instance's.
pub fn release_for(
    reported: &str,
    named: Option<&str>,
    on_command_line: bool,
    base: &str,
) -> Result<(Option<String>, Option<String>), String> {
    let minor = crate::live::http::minor;
    if !crate::index::build::is_version(reported) {
        let note = format!(
            "{base} reports no NetBox release (`netbox-version` \"{reported}\"); checking with {}",
            named.map_or("the default release".to_string(), |n| format!("NetBox {n}"))
        );
        return Ok((named.map(str::to_string), Some(note)));
    }
    match named {
        None => Ok((Some(reported.to_string()), None)),
        Some(n) if minor(n) == minor(reported) => Ok((Some(n.to_string()), None)),
        Some(n) if on_command_line => Err(format!(
            "--netbox-version {n} does not match the NetBox at {base}, which runs {reported}: live verdicts would be compared with the knowledge of another release. Drop --netbox-version (live checks use the instance's release), or give --url of a NetBox {n}"
        )),
        Some(n) => Ok((
            Some(reported.to_string()),
            Some(format!(
                "the settings file names NetBox {n}, but {base} runs {reported}: checking with {reported}"
            )),
        )),
    }
}

/// One document to verify: its path as shown (and the path itself, `None` for standard input),
/// text and kind.
pub struct Document<'a> {
    pub shown: String,
    pub path: Option<std::path::PathBuf>,
    pub text: std::borrow::Cow<'a, str>,
    pub kind: HostKind,
}

/// Verifies standard input (`stdin`, already read) and `inputs` live and adds the live findings
/// to `located` (kept in file order, then position). Returns true when a request got no
/// answer (`check` then exits with 2).
pub fn run(
    args: &LiveArgs,
    connected: &Connected,
    stdin: Option<Document>,
    inputs: &[Input],
    knowledge: &Knowledge,
    overrides: &HashMap<&str, Option<Severity>>,
    located: &mut Vec<Located>,
) -> bool {
    let client = &connected.client;
    let transport = crate::live::http::Http { client };
    let runner = Runner::new(
        &transport,
        Limits {
            max_requests: args.live_max_requests,
            rate: args.live_rate,
            deadline: Duration::from_secs(args.live_deadline),
            ..Limits::default()
        },
    );
    let bound = args.bound();
    // Standard input first, then the files in the order walked.
    let mut order: HashMap<String, usize> = HashMap::new();
    for p in stdin
        .iter()
        .map(|d| d.shown.clone())
        .chain(inputs.iter().map(|i| display_path(&i.path)))
    {
        let n = order.len();
        order.entry(p).or_insert(n);
    }
    let mut summary = Summary::default();
    let mut found = Vec::new();
    let files = inputs.iter().filter_map(|input| {
        let bytes = std::fs::read(&input.path).ok()?; // the static check reported it
        let text = match decode(&bytes) {
            Decoded::Binary => return None,
            Decoded::Utf8(t) | Decoded::Lossy(t) | Decoded::Transcoded(t, _) => t,
        };
        Some(Document {
            shown: display_path(&input.path),
            path: Some(input.path.clone()),
            text: text.into(),
            kind: input.kind,
        })
    });
    for doc in stdin.into_iter().chain(files) {
        let text = doc.text.as_ref();
        let plan = crate::live::plan::plan(text, doc.kind, knowledge, bound);
        let answers = if plan.calls.is_empty() && plan.documents.is_empty() {
            Default::default()
        } else {
            runner.check(&plan)
        };
        let (findings, s) = plan.judge(&answers, text, doc.kind);
        summary.add(&s);
        let findings = apply_overrides(findings, overrides);
        let proofs: Vec<Vec<Proof>> = findings
            .iter()
            .map(|f| {
                f.proof
                    .iter()
                    .map(|e| Proof::new(e, client.base(), connected.scheme, &connected.token_env))
                    .collect()
            })
            .collect();
        let mut here = output::locate(&doc.shown, text, &LineIndex::new(text), findings);
        for (l, p) in here.iter_mut().zip(proofs) {
            l.proof = p;
        }
        if text.starts_with('\u{feff}') {
            hide_bom(&mut here);
        }
        output::set_path_bytes(
            doc.path
                .as_deref()
                .and_then(super::paths::path_bytes)
                .as_ref(),
            &mut here,
            &mut [],
        );
        found.extend(here);
    }
    located.extend(found);
    located.sort_by_key(|l| {
        (
            order.get(&l.path).copied().unwrap_or(usize::MAX),
            l.span.start.line,
            l.span.start.utf16_col,
        )
    });
    eprintln!(
        "netbox-lsp: {} ({} requests to {} in {:.1} s)",
        summary.describe(),
        runner.sent(),
        client.base(),
        runner.elapsed().as_secs_f64()
    );
    if let Some(f) = runner.failure() {
        eprintln!("netbox-lsp: error: live check: {f}; nothing more was sent");
    }
    runner.failure().is_some() || summary.failed > 0
}
