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

pub mod graphql;
pub mod http;
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
    /// NetBox answered: HTTP status (200, or a 4xx/5xx refusal) and body.
    Reply { status: u16, body: Vec<u8> },
    /// The request was sent and failed (no answer, a timeout, a token NetBox refused, a
    /// redirect to another origin); the message names what happened, never the token.
    Failed(String),
    /// Not sent: the reason (the request budget was used up, an earlier request failed).
    NotSent(String),
}

/// The answers of one run, by request, and when the run ended.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    pub by_request: HashMap<Request, Answer>,
    /// RFC 3339 UTC time the answers were received (`2026-05-01T19:40:12Z`).
    pub at: String,
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

/// Verdict tallies of one run, for the CLI summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
    /// Calls and operations not sent (budget, a mutation, an unbounded list, an earlier
    /// failure).
    pub not_sent: usize,
    /// Requests that got no answer.
    pub failed: usize,
    /// Calls read but not checkable live (a variable or placeholder value, an endpoint the
    /// knowledge does not know, no filters, a detail or search call).
    pub not_checkable: usize,
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
        self.not_sent += o.not_sent;
        self.failed += o.failed;
        self.not_checkable += o.not_checkable;
    }

    /// `live: 3 narrowed, 1 unchanged, 0 empty, 1 refused, 0 server faults, 1 differs from the
    /// knowledge; 2 GraphQL operations; 0 not sent; 4 not checkable`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "live: {} narrowed, {} unchanged, {} empty, {} refused, {} server {}, {} {} from the knowledge",
            self.narrowed,
            self.unchanged,
            self.empty,
            self.refused,
            self.server_fault,
            if self.server_fault == 1 { "fault" } else { "faults" },
            self.differs,
            if self.differs == 1 { "differs" } else { "differ" },
        );
        s.push_str(&format!(
            "; {} GraphQL {}",
            self.graphql,
            if self.graphql == 1 {
                "operation"
            } else {
                "operations"
            }
        ));
        s.push_str(&format!("; {} not sent", self.not_sent));
        if self.failed > 0 {
            s.push_str(&format!(", {} without an answer", self.failed));
        }
        s.push_str(&format!("; {} not checkable", self.not_checkable));
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
