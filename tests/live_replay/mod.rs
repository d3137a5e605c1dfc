//! The answers real NetBox releases gave (`tests/fixtures/live/answers.tsv.gz`, extracted from
//! every row of `../shared/netbox/v*/ground-truth.tsv` and `ground-truth-sweep.tsv` by
//! `make-answers.py`), replayed: a row's query gets a NetBox-shaped list body (`count`,
//! `next`, `previous`, `results`) with its filtered count, or its refusal with NetBox's body;
//! the bare endpoint gets the dataset's unfiltered count; a GraphQL row gets `data` with as many
//! objects as NetBox returned, or its error; anything else 404. Also the strict recording
//! route of the safety tests: it answers only GET of `/api/<list>/?…` and POST `/graphql/`
//! on its own host, and records every other request as a violation.
#![allow(dead_code)]

use crate::instance_replay::{status_reply, Reply, Route, Seen};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// One recorded answer.
#[derive(Debug, Clone)]
pub struct Row {
    pub endpoint: String,
    pub query: String,
    pub status: u16,
    /// `None` also where NetBox answered `"count": null` (recorded as `None`).
    pub filtered: Option<u64>,
    pub unfiltered: Option<u64>,
    /// NetBox's refusal body (REST), or GraphQL error message.
    pub body: String,
}

/// Every row of the fixture, by dataset (`4.6.8`, `4.6.8-sweep`, …).
pub fn rows() -> HashMap<String, Vec<Row>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/live/answers.tsv.gz");
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    let mut out: HashMap<String, Vec<Row>> = HashMap::new();
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let row = Row {
            endpoint: c[1].to_string(),
            query: c[2].to_string(),
            status: c[3].parse().unwrap(),
            filtered: c[4].parse().ok(),
            unfiltered: c[5].parse().ok(),
            body: c.get(6).unwrap_or(&"").to_string(),
        };
        for d in c[0].split(',') {
            out.entry(d.to_string()).or_default().push(row.clone());
        }
    }
    out
}

/// The pairs of a query string, decoded, without `limit` and `offset`, sorted (the order of
/// the pairs does not matter to NetBox's filtersets).
pub fn pairs(query: &str) -> Vec<(String, String)> {
    let dec = |s: &str| {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    let mut v: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (dec(k), dec(v)),
            None => (dec(p), String::new()),
        })
        .filter(|(k, _)| k != "limit" && k != "offset")
        .collect();
    v.sort();
    v
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One dataset's answers.
pub struct Replay {
    rest: HashMap<(String, Vec<(String, String)>), Row>,
    bare: HashMap<String, u64>,
    graphql: HashMap<String, Row>,
    /// The release `/api/status/` reports (`4.6.8`; set with [`Replay::release`]).
    pub version: String,
}

/// An HTTP answer: status, content type, body.
pub type Http = (u16, &'static str, Vec<u8>);

impl Replay {
    pub fn new(rows: &[Row]) -> Replay {
        let mut r = Replay {
            rest: HashMap::new(),
            bare: HashMap::new(),
            graphql: HashMap::new(),
            version: "4.6.8".into(),
        };
        for row in rows {
            if row.endpoint == "graphql" {
                r.graphql.entry(squash(&row.query)).or_insert(row.clone());
                continue;
            }
            if let Some(u) = row.unfiltered {
                r.bare.entry(row.endpoint.clone()).or_insert(u);
            }
            r.rest
                .entry((row.endpoint.clone(), pairs(&row.query)))
                .or_insert(row.clone());
        }
        r
    }

    /// The same answers from a NetBox that reports `version` (a dataset name's release:
    /// `4.6.8-sweep` → `4.6.8`).
    pub fn release(mut self, version: &str) -> Replay {
        self.version = version.split('-').next().unwrap_or(version).to_string();
        self
    }

    /// The answer to `method path` with `body`, as NetBox gave it (`host` for `next` links).
    pub fn answer(&self, method: &str, path: &str, body: &[u8], host: &str) -> Http {
        let not_found = (
            404,
            "application/json",
            br#"{"detail":"Not found."}"#.to_vec(),
        );
        if method == "POST" && path == "/graphql/" {
            return self.graphql(body);
        }
        if method == "GET" && path == "/api/status/" {
            let status = serde_json::json!({"netbox-version": self.version, "plugins": {}});
            return (200, "application/json", status.to_string().into_bytes());
        }
        let (p, q) = path.split_once('?').unwrap_or((path, ""));
        let Some(endpoint) = p
            .strip_prefix("/api/")
            .and_then(|e| e.strip_suffix('/'))
            .filter(|_| method == "GET")
        else {
            return not_found;
        };
        let got = pairs(q);
        if got.is_empty() {
            return match self.bare.get(endpoint) {
                Some(n) => list(*n, host, path),
                None => not_found,
            };
        }
        match self.rest.get(&(endpoint.to_string(), got)) {
            Some(row) if row.status == 200 => match row.filtered {
                Some(n) => list(n, host, path),
                None => (
                    200,
                    "application/json",
                    br#"{"count":null,"next":null,"previous":null,"results":[]}"#.to_vec(),
                ),
            },
            Some(row) => (
                row.status,
                "application/json",
                row.body.clone().into_bytes(),
            ),
            None => not_found,
        }
    }

    fn graphql(&self, body: &[u8]) -> Http {
        let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        let query = v.get("query").and_then(|q| q.as_str()).unwrap_or_default();
        let Some(row) = self.graphql.get(&squash(query)) else {
            return (
                404,
                "application/json",
                br#"{"detail":"Not found."}"#.to_vec(),
            );
        };
        let answer = match row.filtered {
            Some(n) if row.body.is_empty() => {
                let key = root_key(query).unwrap_or_else(|| "data".into());
                let objects: Vec<serde_json::Value> = (1..=n)
                    .map(|i| serde_json::json!({"id": i.to_string()}))
                    .collect();
                serde_json::json!({"data": {key: objects}})
            }
            // An answer without errors whose objects were not counted.
            None if row.body.is_empty() => serde_json::json!({"data": {}}),
            _ => serde_json::json!({"data": null, "errors": [{"message": row.body}]}),
        };
        (200, "application/json", answer.to_string().into_bytes())
    }
}

/// The response key of the first root field of `{ key: name(...) … }` / `{ name … }`.
fn root_key(query: &str) -> Option<String> {
    let rest = &query[query.find('{')? + 1..];
    let word: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

/// NetBox's list body with `n` objects in all and one on this page.
fn list(n: u64, host: &str, path: &str) -> Http {
    let results: Vec<serde_json::Value> = (1..=n.min(1))
        .map(|i| serde_json::json!({"id": i, "display": format!("object {i}")}))
        .collect();
    let next = (n > 1).then(|| {
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("http://{host}{path}{sep}offset=1")
    });
    let body = serde_json::json!({"count": n, "next": next, "previous": null, "results": results});
    (200, "application/json", body.to_string().into_bytes())
}

/// A recording of what a live check sent, and what it should never have sent.
#[derive(Default)]
pub struct Record {
    pub violations: Mutex<Vec<String>>,
}

/// The replay as a route of [`crate::instance_replay::Server`] that answers only what a live
/// check may send (`GET /api/status/` first, then the two request shapes), only with the
/// token `token`, only on its own `127.0.0.1` host; anything else is recorded in
/// `record.violations` and answered 405.
pub fn strict(replay: Replay, token: &'static str, record: Arc<Record>) -> Box<Route> {
    Box::new(move |req: &Seen| {
        let host = req.host.clone().unwrap_or_default();
        let segments: Vec<&str> = req
            .path
            .split('?')
            .next()
            .unwrap_or_default()
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        let list = req.method == "GET"
            && req.path.starts_with("/api/")
            && req.path.contains("/?")
            && (3..=4).contains(&segments.len())
            && segments
                .iter()
                .all(|s| *s != ".." && !s.bytes().all(|b| b.is_ascii_digit()));
        let graphql = req.method == "POST" && req.path == "/graphql/";
        let status = req.method == "GET" && req.path == "/api/status/";
        let mut bad = Vec::new();
        if !(list || graphql || status) {
            bad.push(format!("{} {}", req.method, req.path));
        }
        if !host.starts_with("127.0.0.1:") {
            bad.push(format!("Host: {host}"));
        }
        if graphql {
            let q: serde_json::Value = serde_json::from_slice(&req.body).unwrap_or_default();
            let text = q.get("query").and_then(|t| t.as_str()).unwrap_or_default();
            if text.contains("mutation") || text.contains("subscription") {
                bad.push(format!("a GraphQL write: {text}"));
            }
        }
        if !bad.is_empty() {
            record.violations.lock().unwrap().extend(bad);
            return status_reply(
                405,
                "application/json",
                br#"{"detail":"Method not allowed"}"#,
            );
        }
        let want = format!("Token {token}");
        if req.authorization.as_deref() != Some(want.as_str()) {
            return status_reply(403, "application/json", br#"{"detail":"Invalid v1 token"}"#);
        }
        let (status, content_type, body) = replay.answer(&req.method, &req.path, &req.body, &host);
        Reply::Full {
            status,
            content_type,
            body,
            headers: vec![],
        }
    })
}
