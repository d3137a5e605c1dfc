//! `check --live`: after the static check, each file's REST calls and GraphQL documents are
//! verified against the NetBox of `--url` (the instance options of `index build --url`), and
//! the live findings join the static ones in the same output. One run shares one request
//! budget and one cache over all files. A verdict summary goes to stderr.

use super::check::{apply_overrides, decode, display_path, hide_bom, Decoded};
use super::index_cmd::InstanceArgs;
use super::output::{self, Located};
use super::walk::Input;
use crate::analysis::Knowledge;
use crate::finding::Severity;
use crate::lines::LineIndex;
use crate::live::run::{Limits, Runner, DEFAULT_MAX_REQUESTS, DEFAULT_RATE, MAX_RATE};
use crate::live::{Bound, Summary};
use std::collections::HashMap;

/// Seconds `check --live` waits for an answer to start unless `--timeout` says otherwise.
const LIVE_TIMEOUT: u64 = 30;

/// The options of `check --live`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LiveArgs {
    /// Also verify each REST call and GraphQL document against your NetBox by its result set:
    /// `GET <endpoint>?<filters>&limit=1` and `GET <endpoint>?limit=1`, compare the counts;
    /// GraphQL query operations only, with bounded lists. Needs --url; sends only GETs of list
    /// endpoints and POST /graphql/ with queries, only to that URL.
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
    /// Add `pagination: {limit: N}` to GraphQL root lists that have no limit, instead of not
    /// sending their operation.
    #[arg(long, value_name = "N", requires = "live", conflicts_with = "live_unbounded",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub live_graphql_limit: Option<u32>,
    /// Send GraphQL operations with root lists that have no limit as written.
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

/// Verifies `inputs` live and adds the live findings to `located` (kept in file order, then
/// position). Returns true when a request got no answer (`check` then exits with 2); errors
/// (a bad URL, an unreadable token) stop the run before anything is sent.
pub fn run(
    args: &LiveArgs,
    inputs: &[Input],
    knowledge: &Knowledge,
    overrides: &HashMap<&str, Option<Severity>>,
    located: &mut Vec<Located>,
) -> Result<bool, String> {
    let url = args
        .instance
        .url
        .as_deref()
        .ok_or("--live needs --url: the NetBox to verify against")?;
    let client = super::instance_build::client(&args.instance, url, LIVE_TIMEOUT, false)?;
    let transport = crate::live::http::Http { client: &client };
    let runner = Runner::new(
        &transport,
        Limits {
            max_requests: args.live_max_requests,
            rate: args.live_rate,
            ..Limits::default()
        },
    );
    let bound = args.bound();
    let mut summary = Summary::default();
    let mut found = Vec::new();
    for input in inputs {
        let Ok(bytes) = std::fs::read(&input.path) else {
            continue; // the static check reported it
        };
        let text = match decode(&bytes) {
            Decoded::Binary => continue,
            Decoded::Utf8(t) | Decoded::Lossy(t) | Decoded::Transcoded(t, _) => t,
        };
        let plan = crate::live::plan::plan(&text, input.kind, knowledge, bound);
        if plan.calls.is_empty() && plan.documents.is_empty() {
            summary.add(&plan.judge(&Default::default(), &text, input.kind).1);
            continue;
        }
        let answers = runner.check(&plan);
        let (findings, s) = plan.judge(&answers, &text, input.kind);
        summary.add(&s);
        let findings = apply_overrides(findings, overrides);
        let mut here = output::locate(
            &display_path(&input.path),
            &text,
            &LineIndex::new(&text),
            findings,
        );
        if text.starts_with('\u{feff}') {
            hide_bom(&mut here);
        }
        output::set_path_bytes(
            super::check::path_bytes(&input.path).as_ref(),
            &mut here,
            &mut [],
        );
        found.extend(here);
    }
    let order: HashMap<String, usize> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| (display_path(&input.path), i))
        .collect();
    located.extend(found);
    located.sort_by_key(|l| {
        (
            order.get(&l.path).copied().unwrap_or(usize::MAX),
            l.span.start.line,
            l.span.start.utf16_col,
        )
    });
    eprintln!(
        "netbox-lsp: {} ({} requests to {})",
        summary.describe(),
        runner.sent(),
        client.base()
    );
    if let Some(f) = runner.failure() {
        eprintln!("netbox-lsp: error: live check: {f}; nothing more was sent");
    }
    Ok(runner.failure().is_some() || summary.failed > 0)
}
