//! Live checks: a call verified against the user's own NetBox by its result set (issue 21).
//!
//! For each REST call read from a document whose endpoint the knowledge resolves and whose
//! filters are all literal values, `GET /api/<endpoint>/?<the call's filters>&limit=1` and, once
//! per endpoint per run, `GET /api/<endpoint>/?limit=1`; the two `count`s give the verdict
//! (narrowed, unchanged, empty, refused, server fault). A GraphQL document's query operations
//! are sent as `POST /graphql/` with every root list bounded; NetBox's errors and the objects
//! of each root list become findings. Where the answer contradicts the static knowledge, a
//! `live-differs` finding says so.
//!
//! Layout: [`plan`] (which requests a document's calls need, and what the static knowledge says
//! of each filter), [`wire`] (how each client puts values on the wire), [`verdict`] and
//! [`graphql`] (answers → findings), all pure: calls and answers in, findings out. [`run`]
//! sends the requests through a [`run::Transport`] (budget, per-run cache, at most 4 at a
//! time, a polite rate); [`http`] is that transport over [`crate::instance::http::Client`].
//! Nothing else here touches the network.

pub mod deny;
pub mod digest;
pub mod graphql;
pub mod http;
mod judge;
pub mod plan;
pub mod run;
pub mod verdict;
pub mod wire;

use crate::analysis::Knowledge;
use crate::extract::HostKind;
use crate::finding::Finding;
use std::collections::HashMap;

/// The `source` of live findings in the editor and in JSON/SARIF output.
pub const SOURCE: &str = "netbox (live)";

/// The advice of every `live-differs` finding.
pub(crate) const REBUILD: &str =
    "The instance differs from the knowledge: rebuild it from this NetBox (`netbox-lsp index build --url`).";

/// True for the codes of live findings (`live-…`).
pub fn is_live_code(code: &str) -> bool {
    code.starts_with("live-")
}

/// One request a live check sends. Only these two shapes exist, and only this module builds
/// them: a read of a list endpoint the knowledge names, and a GraphQL query.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Request {
    /// `GET /api/<endpoint>/?<query>`: `endpoint` is an index key (`dcim/devices`,
    /// `plugins/bgp/session`), `query` percent-encoded pairs ending in `limit=1`.
    List { endpoint: String, query: String },
    /// `POST /graphql/` with this JSON body (`{"query": …}` plus `variables` /
    /// `operationName` when the document needs them); the document holds only query
    /// operations.
    Graphql { body: String },
}

impl Request {
    /// What its answer is read as.
    pub fn expect(&self) -> digest::Expect {
        match self {
            Request::List { .. } => digest::Expect::List,
            Request::Graphql { .. } => digest::Expect::Graphql,
        }
    }

    /// `GET` or `POST`.
    pub fn method(&self) -> &'static str {
        match self {
            Request::List { .. } => "GET",
            Request::Graphql { .. } => "POST",
        }
    }

    /// The path and query below the NetBox base URL: `/api/dcim/devices/?role_id=6&limit=1`,
    /// `/graphql/`.
    pub fn path(&self) -> String {
        match self {
            Request::List { endpoint, query } => format!("/api/{endpoint}/?{query}"),
            Request::Graphql { .. } => "/graphql/".to_string(),
        }
    }

    /// `GET /api/dcim/devices/?…` (for messages and logs; never holds the token).
    pub fn describe(&self) -> String {
        format!("{} {}", self.method(), self.path())
    }
}

/// What became of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// NetBox answered: HTTP status (200, or a 4xx/5xx refusal) and what the verdict needs of
    /// the body ([`digest::Digest`]; the body itself is never kept).
    Reply { status: u16, digest: digest::Digest },
    /// The request was sent and failed (no answer, a timeout, a token NetBox refused, a
    /// redirect to another origin); the message names what happened, never the token.
    Failed(String),
    /// Not sent: why (the request budget was used up, the run's deadline passed, an earlier
    /// request failed).
    NotSent(Skip),
}

impl Answer {
    /// The answer `body` with HTTP `status` gives to `req` (replays and tests; the token, if
    /// any, is not known here: nothing is redacted, control characters are escaped).
    pub fn of_body(req: &Request, status: u16, body: &[u8]) -> Answer {
        Answer::Reply {
            status,
            digest: digest::of_bytes(req.expect(), status, body, &|s| {
                crate::sanitize::one_line(s).into_owned()
            }),
        }
    }
}

impl Request {
    /// `req` as a finding's proof, with what `answer` says of it (nothing when unanswered).
    pub fn exchange(&self, answer: Option<&Answer>) -> crate::finding::Exchange {
        let (status, count) = match answer {
            Some(Answer::Reply { status, digest }) => (Some(*status), digest.count()),
            _ => (None, None),
        };
        crate::finding::Exchange {
            method: self.method(),
            path: self.path(),
            body: match self {
                Request::Graphql { body } => Some(body.clone()),
                Request::List { .. } => None,
            },
            status,
            count,
        }
    }
}

/// The answers of one run, by request, and when the run ended.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    pub by_request: HashMap<Request, Answer>,
    /// RFC 3339 UTC time the answers were received (`2026-05-01T19:40:12Z`).
    pub at: String,
    /// The shipped release whose knowledge judged them when it is not the document's own (the
    /// instance runs another release than the settings name); empty otherwise.
    pub release: String,
}

impl Answers {
    /// The answer to `req`, if the run has one.
    pub fn get(&self, req: &Request) -> Option<&Answer> {
        self.by_request.get(req)
    }

    /// Adds `other`'s answers (newer ones win) and takes its time.
    pub fn merge(&mut self, other: Answers) {
        self.by_request.extend(other.by_request);
        if !other.at.is_empty() {
            self.at = other.at;
        }
        if !other.release.is_empty() {
            self.release = other.release;
        }
    }
}

/// How GraphQL lists are bounded before a document is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Bound {
    /// A root list without `pagination: {limit: N}` stops the document (the default).
    #[default]
    Refuse,
    /// Such a list gets `pagination: {limit: N}` added.
    Limit(u32),
    /// Send the document as written (the user said so).
    AsWritten,
}

/// Why a call or operation was not verified: a short kind the summary counts by
/// (`budget`, `sensitive endpoint`, `value not literal`, …) and the reason its finding gives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Skip {
    pub kind: &'static str,
    pub why: String,
}

impl Skip {
    pub fn new(kind: &'static str, why: impl Into<String>) -> Skip {
        Skip {
            kind,
            why: why.into(),
        }
    }
}

/// Verdict tallies of one run, for the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub narrowed: usize,
    pub unchanged: usize,
    pub empty: usize,
    pub refused: usize,
    pub server_fault: usize,
    /// `live-differs` findings: the instance differs from the knowledge.
    pub differs: usize,
    /// GraphQL operations answered (with or without errors).
    pub graphql: usize,
    /// Requests that got no answer.
    pub failed: usize,
    /// Calls and operations not sent, by [`Skip::kind`] (the budget, the deadline, a mutation,
    /// an unbounded list, a sensitive endpoint, an earlier failure).
    pub not_sent: std::collections::BTreeMap<&'static str, usize>,
    /// Calls read but not checkable live, by [`Skip::kind`] (a value that is not literal, an
    /// endpoint the knowledge does not know, no filters, a detail or search call).
    pub not_checkable: std::collections::BTreeMap<&'static str, usize>,
}

impl Summary {
    /// Adds `other`.
    pub fn add(&mut self, o: &Summary) {
        self.narrowed += o.narrowed;
        self.unchanged += o.unchanged;
        self.empty += o.empty;
        self.refused += o.refused;
        self.server_fault += o.server_fault;
        self.differs += o.differs;
        self.graphql += o.graphql;
        self.failed += o.failed;
        for (k, n) in &o.not_sent {
            *self.not_sent.entry(k).or_default() += n;
        }
        for (k, n) in &o.not_checkable {
            *self.not_checkable.entry(k).or_default() += n;
        }
    }

    /// Counts one call or operation not sent.
    pub fn skipped(&mut self, kind: &'static str) {
        *self.not_sent.entry(kind).or_default() += 1;
    }

    /// Calls and operations not sent, in all.
    pub fn not_sent_total(&self) -> usize {
        self.not_sent.values().sum()
    }

    /// Calls verified: those NetBox answered.
    pub fn verified(&self) -> usize {
        self.narrowed + self.unchanged + self.empty + self.refused + self.server_fault
    }

    /// `live: 10 calls verified (3 narrowed, 1 unchanged, 0 empty, 5 refused, 1 server fault;
    /// 1 differs from the knowledge), 2 GraphQL operations; 2 not sent (budget 1, mutation 1);
    /// 4 not checkable (value not literal 3, no filters 1)`.
    pub fn describe(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let by = |m: &std::collections::BTreeMap<&'static str, usize>| {
            if m.is_empty() {
                String::new()
            } else {
                let parts: Vec<String> = m.iter().map(|(k, n)| format!("{k} {n}")).collect();
                format!(" ({})", parts.join(", "))
            }
        };
        let mut s = format!(
            "live: {} verified ({} narrowed, {} unchanged, {} empty, {} refused, {}; {} from the knowledge), {}",
            plural(self.verified(), "call", "calls"),
            self.narrowed,
            self.unchanged,
            self.empty,
            self.refused,
            plural(self.server_fault, "server fault", "server faults"),
            plural(self.differs, "differs", "differ"),
            plural(self.graphql, "GraphQL operation", "GraphQL operations"),
        );
        s.push_str(&format!(
            "; {} not sent{}",
            self.not_sent_total(),
            by(&self.not_sent)
        ));
        if self.failed > 0 {
            s.push_str(&format!(", {} without an answer", self.failed));
        }
        s.push_str(&format!(
            "; {} not checkable{}",
            self.not_checkable.values().sum::<usize>(),
            by(&self.not_checkable)
        ));
        s
    }
}

/// The live findings of `text` (a host document of `kind`) from `answers`: the planned
/// requests of its calls looked up in `answers` (a call whose requests have no answer there
/// gives nothing, so a document edited since the check keeps the verdicts of the calls that did
/// not change and drops the others). Suppression comments apply as to static findings.
pub fn findings(
    text: &str,
    kind: HostKind,
    knowledge: &Knowledge,
    bound: Bound,
    answers: &Answers,
) -> (Vec<Finding>, Summary) {
    let planned = plan::plan(text, kind, knowledge, bound);
    planned.judge(answers, text, kind)
}
