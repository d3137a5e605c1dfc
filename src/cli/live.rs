//! `check --live`: the last step of each file's check: its REST calls and GraphQL documents (and
//! standard input's, with `-`) are verified against the NetBox of `--url` (the instance options
//! of `index build --url`), planned from that file's analysis, and the live findings join the
//! static ones in the same output, each with the requests it rests on, before the next file is
//! verified (the output streams per file). One run shares one request budget, one deadline and
//! one cache over all files. The instance's release is read from `/api/status/` first, so the
//! static findings use the knowledge of that release ([`connect`]). A summary goes to stderr.

use super::index_cmd::InstanceArgs;
use super::input::hide_bom;
use super::output::{self, Located, Proof};
use super::settings::apply_overrides;
use crate::analysis::{Knowledge, Report};
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

/// One checked document to verify: its path as shown (and the path itself, `None` for standard
/// input), text, kind and its analysis ([`crate::analysis::analyze_kept`], whose sites the
/// live plan reads).
pub struct Document {
    pub shown: String,
    pub path: Option<std::path::PathBuf>,
    pub text: String,
    pub kind: HostKind,
    pub report: Report,
}

/// The live step of a `check --live` run: one request budget, one deadline and one cache over
/// every file, and the tally for the summary. Each file is verified right after its check
/// ([`Step::file`]), in the order the files are taken (standard input, then the files in path
/// order), so the requests sent are those of verifying one file after another.
pub struct Step<'a> {
    runner: Runner<'a>,
    connected: &'a Connected,
    /// The knowledge the files were checked with (the instance's release).
    knowledge: &'a Knowledge,
    bound: Bound,
    summary: Summary,
}

impl<'a> Step<'a> {
    /// The step for `args`, verifying against `connected` through `transport` the files
    /// checked with `knowledge`.
    pub fn new(
        args: &LiveArgs,
        connected: &'a Connected,
        transport: &'a crate::live::http::Http<'a>,
        knowledge: &'a Knowledge,
    ) -> Step<'a> {
        let runner = Runner::new(
            transport,
            Limits {
                max_requests: args.live_max_requests,
                rate: args.live_rate,
                deadline: Duration::from_secs(args.live_deadline),
                ..Limits::default()
            },
        );
        Step {
            runner,
            connected,
            knowledge,
            bound: args.bound(),
            summary: Summary::default(),
        }
    }

    /// Verifies the calls of `doc` from its analysis (nothing is read or checked again) and
    /// gives `located`, its static findings, with its live findings (after `overrides`) put
    /// among them by position, each with the requests it rests on.
    pub fn file(
        &mut self,
        doc: Document,
        mut located: Vec<Located>,
        overrides: &HashMap<&str, Option<Severity>>,
    ) -> Vec<Located> {
        let text = doc.text.as_str();
        let plan = crate::live::plan::of_report(&doc.report, self.knowledge, text, self.bound);
        let answers = if plan.calls.is_empty() && plan.documents.is_empty() {
            Default::default()
        } else {
            self.runner.check(&plan)
        };
        let (findings, s) = plan.judge(&answers, text, doc.kind);
        self.summary.add(&s);
        let findings = apply_overrides(findings, overrides);
        if findings.is_empty() {
            return located;
        }
        let c = self.connected;
        let proofs: Vec<Vec<Proof>> = findings
            .iter()
            .map(|f| {
                f.proof
                    .iter()
                    .map(|e| Proof::new(e, c.client.base(), c.scheme, &c.token_env))
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
        // Static findings first at one position, as the live ones were added after them.
        located.extend(here);
        located.sort_by_key(|l| (l.span.start.line, l.span.start.utf16_col));
        located
    }

    /// Says the run's summary on stderr; true when a request got no answer (`check` then exits
    /// with 2).
    pub fn finish(self) -> bool {
        eprintln!(
            "netbox-lsp: {} ({} requests to {} in {:.1} s)",
            self.summary.describe(),
            self.runner.sent(),
            self.connected.client.base(),
            self.runner.elapsed().as_secs_f64()
        );
        if let Some(f) = self.runner.failure() {
            eprintln!("netbox-lsp: error: live check: {f}; nothing more was sent");
        }
        self.runner.failure().is_some() || self.summary.failed > 0
    }
}
