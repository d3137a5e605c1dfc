//! The live checks' [`Transport`] over [`Client`] (the client of `index build --url`: the same
//! URL, token, TLS, proxy and timeout handling; redirects only within the configured origin;
//! the token only in the `Authorization` header and never in a message).
//!
//! It sends exactly the two request shapes of [`Request`], and checks each once more before
//! sending, whatever built it: `GET /api/<app>/<endpoint>/?<query>` of a list endpoint (no id,
//! no `..`) that is not on the deny-list ([`super::deny`]) and filters on no secret field; and
//! `POST /graphql/` with a document of query operations only, without introspection, whose
//! root lists all carry a limit of at most [`super::graphql::ROOT_LIMIT`] (or the user let
//! them go as written). A GET redirect is followed only to such a list request of the same
//! origin; a POST redirect never. Answers are read as they stream in, into a
//! [`super::digest::Digest`], with every kept string cleaned of the token (in any encoding,
//! after decoding) and of control characters.

use super::digest;
use super::run::{Reply, Transport};
use super::Request;
use crate::instance::http::Client;

/// Live requests over HTTP to the NetBox of `client`.
pub struct Http<'a> {
    pub client: &'a Client,
}

/// True for an index key of a list endpoint: `dcim/devices`, `plugins/bgp/session`; lower-case
/// letters, digits, `-` and `_` between slashes, no segment of digits alone (a detail id).
pub fn is_list_endpoint(key: &str) -> bool {
    let parts: Vec<&str> = key.split('/').collect();
    (2..=3).contains(&parts.len())
        && (parts.len() == 2 || parts[0] == "plugins")
        && parts.iter().all(|p| {
            !p.is_empty()
                && !p.bytes().all(|b| b.is_ascii_digit())
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        })
}

impl Transport for Http<'_> {
    fn send(&self, req: &Request) -> Result<Reply, String> {
        let clean = |t: &str| self.client.clean(t);
        let expect = req.expect();
        let mut read = |status: u16, body: &mut dyn std::io::BufRead| {
            digest::read(expect, status, body, &clean).map(|digest| Reply { status, digest })
        };
        match req {
            Request::List { endpoint, query } => {
                allowed_list(endpoint, query)
                    .map_err(|why| format!("refused to send {}: {why}", req.describe()))?;
                self.client
                    .get_streamed(&req.path(), &allowed_path, &mut read)
            }
            Request::Graphql { body } => {
                allowed_graphql(body)
                    .map_err(|why| format!("refused to send POST /graphql/: {why}"))?;
                self.client
                    .post_streamed("/graphql/", body.as_bytes(), &mut read)
            }
        }
    }

    fn abort(&self) {
        self.client.shutdown();
    }
}

/// Bytes of `/api/status/` read at most (NetBox's is about 1 KB).
const STATUS_CAP: u64 = 1 << 20;

/// The release the NetBox of `client` reports in `GET /api/status/` (`4.7.3`; empty for a beta
/// image's `null`), read at most [`STATUS_CAP`] bytes and cleaned for output; a redirect is not
/// followed. The first request of every live run.
pub fn instance_release(client: &Client) -> Result<String, String> {
    use std::io::Read;
    let status = client.get_streamed("/api/status/", &|_| false, &mut |code, body| {
        if code != 200 {
            return Err(format!("HTTP {code}: not a NetBox /api/status/"));
        }
        let mut bytes = Vec::new();
        body.take(STATUS_CAP)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        crate::index::instance::parse_status(&bytes)
    })?;
    Ok(crate::sanitize::one_line(&status.netbox_version).into_owned())
}

/// The major.minor of a release (`4.7.3` → `4.7`), to tell whether two releases are the same
/// minor one.
pub fn minor(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// Why `GET /api/<endpoint>/?<query>` may not be sent; `Ok` when it may.
pub fn allowed_list(endpoint: &str, query: &str) -> Result<(), String> {
    if !is_list_endpoint(endpoint) || query.contains(['#', '/', '?']) {
        return Err("not a list endpoint".into());
    }
    if let Some(why) = super::deny::endpoint(endpoint) {
        return Err(why.into());
    }
    for pair in query.split('&') {
        let key = pair.split('=').next().unwrap_or_default();
        let key = percent_encoding::percent_decode_str(key).decode_utf8_lossy();
        if super::deny::secret_filter(&key) {
            return Err(format!("`{key}` filters on a secret value"));
        }
    }
    Ok(())
}

/// True for a path below the base URL that a GET of a live check may be redirected to: a list
/// request [`allowed_list`] accepts.
fn allowed_path(path: &str) -> bool {
    let (p, q) = path.split_once('?').unwrap_or((path, ""));
    p.strip_prefix("/api/")
        .and_then(|e| e.strip_suffix('/'))
        .is_some_and(|e| allowed_list(e, q).is_ok())
}

/// Why a GraphQL request body may not be sent; `Ok` when it is `{"query": …}` (with
/// `variables`, `operationName`) whose document parses and holds only query operations, no
/// introspection field, no root field of the users app, and a `limit` of at most
/// [`super::graphql::ROOT_LIMIT`] wherever it gives one as a literal.
pub fn allowed_graphql(body: &str) -> Result<(), String> {
    let v: serde_json::Value =
        serde_json::from_str(body).map_err(|_| "the body is not JSON".to_string())?;
    let obj = v.as_object().ok_or("the body is not a JSON object")?;
    if obj
        .keys()
        .any(|k| !matches!(k.as_str(), "query" | "variables" | "operationName"))
    {
        return Err("the body holds more than a query".into());
    }
    let query = obj
        .get("query")
        .and_then(|q| q.as_str())
        .ok_or("the body has no query")?;
    let doc = crate::graphql::check::parse(query).map_err(|_| "the document does not parse")?;
    use apollo_compiler::ast::{Definition, OperationType, Selection, Value};
    fn check(set: &[Selection], root: bool) -> Result<(), String> {
        for s in set {
            match s {
                Selection::Field(f) => {
                    let name = f.name.as_str();
                    if root && (name == "__schema" || name == "__type") {
                        return Err("introspection is never forwarded".into());
                    }
                    if root && super::deny::graphql_root(name) {
                        return Err(format!("`{name}` is never probed"));
                    }
                    for a in &f.arguments {
                        if let Value::Object(fields) = &*a.value {
                            for (k, v) in fields {
                                if k == "limit" {
                                    if let Value::Int(i) = &**v {
                                        if i.try_to_i32()
                                            .map_or(true, |n| n > super::graphql::ROOT_LIMIT as i32)
                                        {
                                            return Err(format!(
                                                "a limit above {}",
                                                super::graphql::ROOT_LIMIT
                                            ));
                                        }
                                    }
                                }
                            }
                        }
                    }
                    check(&f.selection_set, false)?;
                }
                Selection::InlineFragment(i) => check(&i.selection_set, root)?,
                Selection::FragmentSpread(_) => {}
            }
        }
        Ok(())
    }
    for d in &doc.definitions {
        match d {
            Definition::OperationDefinition(o) => {
                if o.operation_type != OperationType::Query {
                    return Err("the document holds a mutation or subscription".into());
                }
                check(&o.selection_set, true)?;
            }
            Definition::FragmentDefinition(f) => check(&f.selection_set, false)?,
            _ => return Err("the document holds more than operations and fragments".into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_endpoints_only() {
        assert!(is_list_endpoint("dcim/devices"));
        assert!(is_list_endpoint("plugins/bgp/session"));
        assert!(is_list_endpoint("ipam/ip-addresses"));
        assert!(!is_list_endpoint("dcim/devices/5"));
        assert!(!is_list_endpoint("dcim/../users"));
        assert!(!is_list_endpoint("dcim"));
        assert!(!is_list_endpoint("dcim/devices/x/y"));
        assert!(!is_list_endpoint("dcim/Devices"));
        assert!(allowed_list("dcim/devices", "role_id=6&limit=1").is_ok());
        assert!(allowed_list("users/tokens", "limit=1").is_err());
        assert!(allowed_list("extras/webhooks", "secret__isw=a&limit=1").is_err());
        assert!(allowed_list("extras/webhooks", "s%65cret__isw=a&limit=1").is_err());
        assert!(allowed_path("/api/dcim/devices/?role_id=6&limit=1"));
        assert!(!allowed_path("/api/users/tokens/?limit=1"));
        assert!(!allowed_path("/api/dcim/devices/5/"));
    }

    #[test]
    fn graphql_bodies() {
        let ok = r#"{"query": "{ device_list(pagination: {limit: 5}) { id } }"}"#;
        assert!(allowed_graphql(ok).is_ok());
        for bad in [
            r#"{"query": "mutation { x }"}"#,
            r#"{"query": "{ __schema { types { name } } }"}"#,
            r#"{"query": "{ user_list { id } }"}"#,
            r#"{"query": "{ device_list(pagination: {limit: 100000000}) { id } }"}"#,
            r#"{"query": "{ a }", "extensions": {}}"#,
            r#"{"query": "{ a "}"#,
        ] {
            assert!(allowed_graphql(bad).is_err(), "{bad}");
        }
    }
}
