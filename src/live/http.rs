//! The live checks' [`Transport`] over [`Client`] (the client of `index build --url`: the same
//! URL, token, TLS, proxy and timeout handling; redirects only within the configured origin;
//! the token only in the `Authorization` header and never in a message).
//!
//! It sends exactly the two request shapes of [`Request`], and checks each path once more
//! before sending: `GET /api/<app>/<endpoint>/?<query>` of a list endpoint (no id, no `..`), and
//! `POST /graphql/`.

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
        match req {
            Request::List { endpoint, query } => {
                if !is_list_endpoint(endpoint) || query.contains(['#', '/', '?']) {
                    return Err(format!(
                        "refused to send {}: not a list endpoint",
                        req.describe()
                    ));
                }
                self.client.get_reply(&req.path())
            }
            Request::Graphql { body } => self.client.post_json_reply("/graphql/", body.as_bytes()),
        }
    }
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
    }
}
