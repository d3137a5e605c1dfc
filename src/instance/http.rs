//! The HTTP client that talks to the user's NetBox: ureq on rustls (ring), system root
//! certificates plus an optional private CA, `HTTPS_PROXY`/`NO_PROXY` from the environment,
//! timeouts, redirects followed only within the same origin, and errors that say what happened
//! and what to do. The token goes only into the `Authorization` header of requests to the
//! configured origin; no message, log line or panic carries it.

use super::token::Token;
use rustls::pki_types::CertificateDer;
use std::io::{BufRead, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use ureq::http::Uri;
use ureq::tls::{Certificate, RootCerts, TlsConfig};
use ureq::unversioned::resolver::DefaultResolver;
use ureq::Agent;

use super::limits::{self, MAX_ANSWER_BYTES};

/// What [`Client::exchange`] hands the final answer to: the request (`GET /api/status/`), the
/// answer, the byte counter of the run and the time the request started.
type AnswerHandler<'a, T> = dyn FnMut(&str, ureq::http::Response<ureq::Body>, &AtomicU64, Instant) -> Result<T, String>
    + 'a;

/// Same-origin redirects followed before giving up.
const MAX_HOPS: usize = 5;

/// How to reach the instance.
#[derive(Debug, Clone)]
pub struct Options {
    /// Longest wait for an answer to start, and for each read after that. NetBox can take
    /// 10–30 s to generate its OpenAPI document when its cache is cold. One request may take
    /// [`limits::deadline`] of it in all (4×), however steadily the bytes trickle in.
    pub timeout: Duration,
    /// Extra PEM root certificates (a private CA), added to the system's.
    pub ca_cert: Option<PathBuf>,
    /// Turn certificate checks off (the caller warns on every use).
    pub insecure: bool,
    /// Report progress on stderr (bytes, seconds).
    pub progress: bool,
    /// Print each request and answer head on stderr (`> GET …`, `< HTTP 200`, headers), the
    /// `Authorization` value as `Token <redacted>` / `Bearer <redacted>` and `Set-Cookie`
    /// values redacted.
    pub verbose: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Duration::from_secs(120),
            ca_cert: None,
            insecure: false,
            progress: false,
            verbose: false,
        }
    }
}

/// `(scheme, host, port)`.
type Origin = (String, String, u16);

/// A client bound to one NetBox base URL.
pub struct Client {
    agent: Agent,
    /// `https://netbox.example.com` or `https://host/netbox` (no trailing slash).
    base: String,
    origin: Origin,
    token: Option<Token>,
    options: Options,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("token", &self.token)
            .finish()
    }
}

/// The origin of an absolute `http(s)` URL; errors say why it is not one.
fn origin_of(uri: &Uri) -> Result<Origin, String> {
    let scheme = uri.scheme_str().unwrap_or_default().to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err("the URL must start with https:// or http://".into());
    }
    let auth = uri.authority().ok_or("the URL has no host")?;
    if auth.as_str().contains('@') {
        return Err(
            "the URL carries a user name or password: give the token through an environment variable or file instead"
                .into(),
        );
    }
    let port = auth
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Ok((scheme, auth.host().to_ascii_lowercase(), port))
}

/// 443 for `https`, 80 otherwise.
fn default_port(scheme: &str) -> u16 {
    if scheme == "https" {
        443
    } else {
        80
    }
}

/// `url` as a message may show it: a user name or password before the host and anything from
/// the query or fragment on (`?token=...`) replaced by [`redact::REDACTED`](super::redact::REDACTED),
/// so that a secret a user put into the URL is not printed back, even for a URL that does not
/// parse.
pub fn shown_url(url: &str) -> String {
    let url = url.trim();
    let host_start = url.find("://").map_or(0, |i| i + 3);
    let authority_end = url[host_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| host_start + i);
    let mut shown = String::with_capacity(url.len());
    shown.push_str(&url[..host_start]);
    match url[host_start..authority_end].rfind('@') {
        Some(at) => {
            shown.push_str(super::redact::REDACTED);
            shown.push_str(&url[host_start + at..authority_end]);
        }
        None => shown.push_str(&url[host_start..authority_end]),
    }
    let rest = &url[authority_end..];
    match rest.find(['?', '#']) {
        Some(q) => {
            shown.push_str(&rest[..q]);
            shown.push_str(&rest[q..=q]);
            shown.push_str(super::redact::REDACTED);
        }
        None => shown.push_str(rest),
    }
    shown
}

/// Checks and normalises a NetBox base URL: `https://netbox.example.com/` →
/// `https://netbox.example.com`. A path below the host is kept (NetBox under `/netbox/`).
/// Errors say why the URL is refused and show it only as [`shown_url`] does.
pub fn normalise_url(url: &str) -> Result<String, String> {
    let url = url.trim();
    let uri: Uri = url.parse().map_err(|_| {
        format!(
            "`{}` is not a URL like https://netbox.example.com",
            shown_url(url)
        )
    })?;
    origin_of(&uri)?;
    if uri.query().is_some() {
        return Err("the NetBox URL must not have a query string".into());
    }
    // `http::Uri` leaves a fragment in the path; a base URL has no use for one.
    if url.contains('#') {
        return Err("the NetBox URL must not have a fragment (`#...`)".into());
    }
    let mut s = url.trim_end_matches('/').to_string();
    if let Some(stripped) = s.strip_suffix("/api") {
        s = stripped.to_string();
    }
    Ok(s)
}

/// The proxy for a NetBox URL of `scheme`, as curl and Python's requests choose it:
/// `HTTPS_PROXY` for https, `HTTP_PROXY` for http (either case), else `ALL_PROXY`; hosts in
/// `NO_PROXY` go direct. (ureq's own `Proxy::try_from_env` takes the first of ALL/HTTPS/HTTP
/// whatever the scheme, so an `http://` NetBox would go through `HTTPS_PROXY`.) A value that is
/// not a proxy URL is ignored.
fn proxy_for(scheme: &str) -> Option<ureq::Proxy> {
    let names: &[&str] = if scheme == "https" {
        &["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
    } else {
        &["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
    };
    let url = names
        .iter()
        .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))?;
    let p = ureq::Proxy::new(url.trim()).ok()?;
    let mut b = ureq::Proxy::builder(p.protocol())
        .host(p.host())
        .port(p.port());
    if let Some(u) = p.username() {
        b = b.username(u);
    }
    if let Some(pw) = p.password() {
        b = b.password(pw);
    }
    let no_proxy = std::env::var("NO_PROXY")
        .or_else(|_| std::env::var("no_proxy"))
        .unwrap_or_default();
    for expr in no_proxy.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        b = b.no_proxy(expr);
    }
    b.build().ok()
}

/// The roots a client trusts (the system's, then the user's `--ca-cert` file) and the
/// certificates of that file alone (DER). Errors name the file and what is wrong with it.
fn root_certs(
    options: &Options,
) -> Result<(Vec<Certificate<'static>>, Vec<Certificate<'static>>), String> {
    let mut certs: Vec<Certificate<'static>> = rustls_native_certs::load_native_certs()
        .certs
        .iter()
        .map(|c| Certificate::from_der(c.as_ref()).to_owned())
        .collect();
    let mut own = Vec::new();
    if let Some(path) = &options.ca_cert {
        let pem = crate::safe_read::read(path, crate::safe_read::FileKind::CaCert)
            .map_err(|e| format!("cannot read the CA certificate {}: {e}", path.display()))?;
        for item in ureq::tls::parse_pem(&pem) {
            match item {
                Ok(ureq::tls::PemItem::Certificate(c)) => own.push(c),
                Ok(_) => {}
                Err(e) => {
                    return Err(format!(
                        "{} is not a PEM certificate file: {e}",
                        path.display()
                    ))
                }
            }
        }
        if own.is_empty() {
            return Err(format!(
                "{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                path.display()
            ));
        }
        certs.extend(own.iter().cloned());
    }
    Ok((certs, own))
}

impl Client {
    /// A client for the NetBox at `url` (see [`normalise_url`]), sending `token` if given.
    pub fn new(url: &str, token: Option<Token>, options: Options) -> Result<Client, String> {
        let base = normalise_url(url)?;
        let uri: Uri = base.parse().map_err(|_| "not a URL".to_string())?;
        let origin = origin_of(&uri)?;
        let roots = if options.insecure {
            None
        } else {
            Some(root_certs(&options)?)
        };
        let tls = TlsConfig::builder()
            .root_certs(match &roots {
                None => RootCerts::WebPki,
                Some((all, _)) => RootCerts::new_with_certs(all),
            })
            .disable_verification(options.insecure)
            .build();
        let config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .proxy(proxy_for(&origin.0))
            .timeout_connect(Some(Duration::from_secs(15).min(options.timeout)))
            .timeout_recv_response(Some(options.timeout))
            .timeout_per_read(Some(options.timeout))
            .timeout_global(Some(limits::deadline(options.timeout)))
            .user_agent(concat!("netbox-lsp/", env!("CARGO_PKG_VERSION")))
            .tls_config(tls)
            .build();
        // With `--ca-cert`, a self-signed certificate in that file may be the server's own
        // (super::tls); otherwise ureq's own TLS.
        let agent = match &roots {
            Some((all, own)) if !own.is_empty() => {
                let der = |c: &Certificate<'static>| CertificateDer::from(c.der().to_vec());
                let connector = super::tls::connector(
                    &all.iter().map(der).collect::<Vec<_>>(),
                    own.iter().map(der).collect(),
                )?;
                Agent::with_parts(config, connector, DefaultResolver::default())
            }
            _ => config.into(),
        };
        Ok(Client {
            agent,
            base,
            origin,
            token,
            options,
        })
    }

    /// Stops every request of this client, those in flight included (they fail at once with a
    /// transport error); later requests fail too.
    pub fn shutdown(&self) {
        self.agent.clone().shutdown();
    }

    /// Whether the token is a v2 one (`Bearer nbt_…`); `None` without a token.
    pub fn token_is_v2(&self) -> Option<bool> {
        self.token.as_ref().map(Token::is_v2)
    }

    /// The base URL (no token, no trailing slash).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `GET <base><path>`; the JSON body on HTTP 200.
    pub fn get(&self, path: &str) -> Result<Vec<u8>, String> {
        self.request(path, None, false).map(|r| r.body)
    }

    /// `POST <base><path>` with a JSON body; the JSON answer on HTTP 200.
    pub fn post_json(&self, path: &str, body: &[u8]) -> Result<Vec<u8>, String> {
        self.request(path, Some(body), false).map(|r| r.body)
    }

    /// [`Client::get`] for a caller that judges NetBox's refusals itself: an HTTP 4xx or 5xx
    /// answer (other than 401/403, which stay errors: the token is the run's problem, not the
    /// request's) is a [`Reply`] with NetBox's body, the token redacted in it. Transport
    /// failures, redirects to another origin and HTML pages on HTTP 200 are errors as for `get`.
    pub fn get_reply(&self, path: &str) -> Result<Reply, String> {
        self.request(path, None, true)
    }

    /// [`Client::post_json`] with the answers of [`Client::get_reply`].
    pub fn post_json_reply(&self, path: &str, body: &[u8]) -> Result<Reply, String> {
        self.request(path, Some(body), true)
    }

    /// `GET <base><path>`, the answer read as it streams in: `read` gets the HTTP status (200 or
    /// a 4xx/5xx other than 401/403, which are errors as for [`Client::get`]) and the body,
    /// decoded (gzip by its magic bytes) and cut at [`MAX_ANSWER_BYTES`]; it keeps what it
    /// needs, so memory stays bounded whatever the server sends. A redirect is followed only
    /// within the same origin and below the base URL, and only when `follow` accepts its path
    /// below the base URL (`/api/dcim/devices/?…`). A connection reset before the answer
    /// starts is retried once (a GET is idempotent; a loaded gunicorn resets a reused
    /// connection now and then). Errors never hold the token, in any encoding, nor a control
    /// character.
    pub fn get_streamed<T>(
        &self,
        path: &str,
        follow: &dyn Fn(&str) -> bool,
        read: &mut dyn FnMut(u16, &mut dyn BufRead) -> Result<T, String>,
    ) -> Result<T, String> {
        self.exchange(
            path,
            None,
            Some(follow),
            &mut |what, resp, progress, started| self.stream(what, resp, progress, started, read),
        )
    }

    /// `POST <base><path>` with a JSON body, read as [`Client::get_streamed`] reads. A redirect
    /// is never followed (it would send the body and the token again, perhaps as another
    /// method to another path), and a failed POST is not retried.
    pub fn post_streamed<T>(
        &self,
        path: &str,
        body: &[u8],
        read: &mut dyn FnMut(u16, &mut dyn BufRead) -> Result<T, String>,
    ) -> Result<T, String> {
        self.exchange(
            path,
            Some(body),
            None,
            &mut |what, resp, progress, started| self.stream(what, resp, progress, started, read),
        )
    }

    fn request(&self, path: &str, body: Option<&[u8]>, replies: bool) -> Result<Reply, String> {
        let any = |_: &str| true;
        self.exchange(
            path,
            body,
            Some(&any),
            &mut |what, resp, progress, started| {
                let reply = self.answer(what, resp, progress, started, replies)?;
                if self.options.progress {
                    eprintln!(
                        "netbox-lsp: {what}: {} bytes in {:.1} s",
                        reply.body.len(),
                        started.elapsed().as_secs_f64()
                    );
                }
                Ok(reply)
            },
        )
    }

    /// Sends `GET` (no `body`) or `POST`, follows redirects by the rules of
    /// [`Client::get_streamed`] (`follow`: `None` follows none), and hands the final answer to
    /// `handle`. Every error leaves through [`Client::clean`].
    fn exchange<T>(
        &self,
        path: &str,
        body: Option<&[u8]>,
        follow: Option<&dyn Fn(&str) -> bool>,
        handle: &mut AnswerHandler<'_, T>,
    ) -> Result<T, String> {
        let what = format!("{} {path}", if body.is_some() { "POST" } else { "GET" });
        let mut go = || -> Result<T, String> {
            let mut url = format!("{}{path}", self.base);
            for _ in 0..MAX_HOPS {
                let started = Instant::now();
                let ticker = self.ticker(&what, started);
                let result = match self.send_once_more(&what, &url, body) {
                    Err(e) => Err(e),
                    Ok(resp) if (300..400).contains(&resp.status().as_u16()) => {
                        let location = resp
                            .headers()
                            .get("location")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_string();
                        Ok(Err((resp.status().as_u16(), location)))
                    }
                    Ok(resp) => handle(&what, resp, &ticker.bytes, started).map(Ok),
                };
                ticker.stop();
                let (status, location) = match result? {
                    Ok(t) => return Ok(t),
                    Err(redirect) => redirect,
                };
                let Some(follow) = follow.filter(|_| body.is_none()) else {
                    return Err(format!(
                        "{what}: NetBox answered HTTP {status} (a redirect); netbox-lsp never follows the redirect of a POST: it would send the document and the token again, perhaps as another method to another path. Give the URL NetBox serves /graphql/ at."
                    ));
                };
                if location.is_empty() {
                    return Err(format!("{what}: HTTP {status} without a Location"));
                }
                let target = self.same_origin(&what, &url, &location)?;
                let below = target
                    .strip_prefix(&self.base)
                    .filter(|p| p.starts_with('/'));
                match below {
                    Some(p) if follow(p) => url = target,
                    _ => {
                        return Err(format!(
                            "{what}: redirected (HTTP {status}) to {}, which is not a request netbox-lsp sends; not followed",
                            below.map_or(location.as_str(), |p| p)
                        ))
                    }
                }
            }
            Err(format!(
                "{what}: more than {MAX_HOPS} redirects from {}",
                self.base
            ))
        };
        go().map_err(|e| self.clean(&e))
    }

    /// A server's or a transport's text as it may be shown: the token redacted in any
    /// encoding, control characters escaped ([`crate::sanitize`]).
    pub fn clean(&self, text: &str) -> String {
        match &self.token {
            Some(t) => t.clean(text),
            None => crate::sanitize::one_line(text).into_owned(),
        }
    }

    /// [`Client::send`]; a GET whose connection was reset or closed before the answer started
    /// is sent once more.
    fn send_once_more(
        &self,
        what: &str,
        url: &str,
        body: Option<&[u8]>,
    ) -> Result<ureq::http::Response<ureq::Body>, String> {
        match self.send(url, body) {
            Err(e) if body.is_none() && is_reset(&e) => {
                self.trace(&format!("{what}: {e}; sending it once more"));
                self.send(url, body)
                    .map_err(|e| self.transport_error(what, &e))
            }
            r => r.map_err(|e| self.transport_error(what, &e)),
        }
    }

    /// The final answer of a streamed request: 401/403 and HTML pages on HTTP 200 are errors
    /// (as in [`Client::answer`]); anything else goes to `read`, decoded and capped.
    fn stream<T>(
        &self,
        what: &str,
        resp: ureq::http::Response<ureq::Body>,
        progress: &AtomicU64,
        started: Instant,
        read: &mut dyn FnMut(u16, &mut dyn BufRead) -> Result<T, String>,
    ) -> Result<T, String> {
        let status = resp.status().as_u16();
        self.trace_head(&resp);
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        if matches!(status, 401 | 403) || (status == 200 && content_type.starts_with("text/html")) {
            // A refusal or a login page: small, and read whole (capped) for its words.
            return self.answer(what, resp, progress, started, false).and_then(|_| {
                Err(format!(
                    "{what}: {} answered with an HTML page, not JSON (a login page, a proxy or not the NetBox base URL?)",
                    self.base
                ))
            });
        }
        let reader = resp
            .into_body()
            .into_with_config()
            .limit(MAX_ANSWER_BYTES)
            .reader();
        let mut counted = std::io::BufReader::with_capacity(
            64 * 1024,
            Counted {
                inner: reader,
                progress,
            },
        );
        let gzip = counted
            .fill_buf()
            .map(|b| b.starts_with(&[0x1f, 0x8b]))
            .unwrap_or(false);
        let deadline = limits::deadline(self.options.timeout);
        let out = if gzip {
            let mut dec = std::io::BufReader::new(
                flate2::read::MultiGzDecoder::new(counted).take(MAX_ANSWER_BYTES),
            );
            read(status, &mut dec)
        } else {
            read(status, &mut counted)
        };
        out.map_err(|e| {
            if started.elapsed() + Duration::from_millis(200) >= deadline {
                format!(
                    "{what}: the answer did not finish within {} s ({} bytes arrived): netbox-lsp gives one request at most 4 × --timeout in all",
                    deadline.as_secs(),
                    progress.load(Ordering::Relaxed)
                )
            } else {
                format!("{what}: {e}")
            }
        })
    }

    /// Writes one `--verbose` line on stderr, with the token redacted wherever it might be.
    fn trace(&self, line: &str) {
        if self.options.verbose {
            let line = match &self.token {
                Some(t) => t.redact(line),
                None => line.to_string(),
            };
            eprintln!("netbox-lsp: {line}");
        }
    }

    fn send(
        &self,
        url: &str,
        body: Option<&[u8]>,
    ) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        let auth = self.token.as_ref().map(Token::header_value);
        if self.options.verbose {
            let method = if body.is_some() { "POST" } else { "GET" };
            self.trace(&format!("> {method} {url}"));
            self.trace("> Accept: application/json");
            if body.is_some() {
                self.trace("> Content-Type: application/json");
            }
            if let Some(t) = &self.token {
                let scheme = if t.is_v2() { "Bearer" } else { "Token" };
                self.trace(&format!("> Authorization: {scheme} <redacted>"));
            }
        }
        match body {
            None => {
                let mut r = self.agent.get(url).header("Accept", "application/json");
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.call()
            }
            Some(b) => {
                let mut r = self
                    .agent
                    .post(url)
                    .header("Accept", "application/json")
                    .header("Content-Type", "application/json");
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.send(b)
            }
        }
    }

    /// Resolves a redirect target; errors unless it is on the same origin (the token is never
    /// sent elsewhere, and nothing is requested from the other host).
    fn same_origin(&self, what: &str, from: &str, location: &str) -> Result<String, String> {
        let target = if location.starts_with('/') && !location.starts_with("//") {
            let uri: Uri = from.parse().map_err(|_| format!("{what}: bad URL"))?;
            format!(
                "{}://{}{location}",
                uri.scheme_str().unwrap_or("https"),
                uri.authority().map(|a| a.as_str()).unwrap_or_default()
            )
        } else {
            location.to_string()
        };
        let uri: Uri = target
            .parse()
            .map_err(|_| format!("{what}: redirected to an unreadable location"))?;
        match origin_of(&uri) {
            Ok(o) if o == self.origin => Ok(target),
            Ok(o) if o.1 == self.origin.1 && o.0 != self.origin.0 => Err(format!(
                "{what}: {} redirected from {} to {}://{}{} (a change of scheme{}); netbox-lsp follows redirects only within the same scheme, host and port and sends the token nowhere else. If that is your NetBox, give the URL it redirects to.",
                self.base,
                self.origin.0,
                o.0,
                o.1,
                if o.2 == default_port(&o.0) { String::new() } else { format!(":{}", o.2) },
                if o.2 == self.origin.2 { "" } else { " and port" },
            )),
            _ => Err(format!(
                "{what}: {} redirected to another origin ({}); netbox-lsp follows redirects only within the same scheme, host and port and sends the token nowhere else. If that is your NetBox, give its URL instead.",
                self.base,
                uri.authority().map(|a| a.as_str()).unwrap_or(location)
            )),
        }
    }

    /// `--verbose`: the status line and headers of an answer (`Set-Cookie` values redacted).
    fn trace_head(&self, resp: &ureq::http::Response<ureq::Body>) {
        if self.options.verbose {
            self.trace(&format!("< HTTP {}", resp.status().as_u16()));
            for (name, value) in resp.headers() {
                let value = if name.as_str().eq_ignore_ascii_case("set-cookie") {
                    "<redacted>".to_string()
                } else {
                    String::from_utf8_lossy(value.as_bytes()).into_owned()
                };
                self.trace(&format!("< {name}: {value}"));
            }
        }
    }

    fn answer(
        &self,
        what: &str,
        resp: ureq::http::Response<ureq::Body>,
        progress: &AtomicU64,
        started: Instant,
        replies: bool,
    ) -> Result<Reply, String> {
        let status = resp.status().as_u16();
        self.trace_head(&resp);
        let header = |n: &str| {
            resp.headers()
                .get(n)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        let content_type = header("content-type").to_ascii_lowercase();
        // Content-Length counts wire bytes; with a Content-Encoding (ureq undoes gzip) it says
        // nothing about the decoded length.
        let length: Option<u64> = header("content-length")
            .parse()
            .ok()
            .filter(|_| header("content-encoding").is_empty());
        let body = self.read_body(what, resp.into_body(), length, progress, started)?;
        // Redacted before it is cut: a token straddling the cut must not leave its head.
        let text = || {
            let t = String::from_utf8_lossy(&body);
            let t = match &self.token {
                Some(tok) => tok.redact(&t),
                None => t.into_owned(),
            };
            let t: String = t.chars().take(300).collect();
            t.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        let detail = || {
            serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("detail").and_then(|d| d.as_str()).map(str::to_string))
                .map(|d| match &self.token {
                    Some(t) => t.redact(&d),
                    None => d,
                })
                .unwrap_or_else(text)
        };
        let html =
            content_type.starts_with("text/html") && body.trim_ascii_start().starts_with(b"<");
        match status {
            200 if html => Err(format!(
                "{what}: {} answered with an HTML page, not JSON (a login page, a proxy or not the NetBox base URL?). Give the URL you open NetBox at, e.g. https://netbox.example.com.",
                self.base
            )),
            200 => {
                let body = limits::decoded(body).map_err(|e| format!("{what}: {e}"))?;
                limits::check_json_shape(&body).map_err(|e| format!("{what}: {e}"))?;
                Ok(Reply { status, body })
            }
            400..=599 if replies && status != 401 && status != 403 => {
                let body = match &self.token {
                    Some(t) => t.redact(&String::from_utf8_lossy(&body)).into_bytes(),
                    None => body,
                };
                Ok(Reply { status, body })
            }
            401 | 403 => {
                let d = detail();
                let hint = if self.token.is_none() {
                    "this NetBox needs an API token: set one in an environment variable and name it with --token-env (or instance.tokenEnv)".to_string()
                } else {
                    "check the token: v1 tokens (40 hex digits) are sent as `Token …`, v2 tokens (`nbt_<key>.<secret>`, NetBox 4.5+) as `Bearer …`; the token needs read permission".to_string()
                };
                Err(format!("{what}: NetBox refused the request (HTTP {status}: {d}); {hint}"))
            }
            404 => Err(format!(
                "{what}: HTTP 404 at {}: no NetBox API there. Give the NetBox base URL (the one that serves /api/status/).",
                self.base
            )),
            _ => Err(format!("{what}: HTTP {status} from {}: {}", self.base, text())),
        }
    }

    fn read_body(
        &self,
        what: &str,
        body: ureq::Body,
        length: Option<u64>,
        progress: &AtomicU64,
        started: Instant,
    ) -> Result<Vec<u8>, String> {
        let mut reader = body.into_with_config().limit(MAX_ANSWER_BYTES).reader();
        let mut out = Vec::with_capacity(length.unwrap_or(0).min(64 << 20) as usize);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    progress.store(out.len() as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if out.len() as u64 >= MAX_ANSWER_BYTES
                        || e.to_string().contains("larger than request limit")
                    {
                        return Err(format!("{what}: {}", limits::too_large()));
                    }
                    let deadline = limits::deadline(self.options.timeout);
                    if started.elapsed() + Duration::from_millis(200) >= deadline {
                        return Err(format!(
                            "{what}: the answer did not finish within {} s ({} bytes arrived): netbox-lsp gives one request at most 4 × --timeout in all. Check the network, or raise --timeout.",
                            deadline.as_secs(),
                            out.len()
                        ));
                    }
                    let timed_out = matches!(
                        e.kind(),
                        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                    ) || e.to_string().to_ascii_lowercase().contains("timeout");
                    if timed_out {
                        return Err(format!(
                            "{what}: the answer stalled after {} bytes: nothing arrived for {} s. Try again, or raise --timeout.",
                            out.len(),
                            self.options.timeout.as_secs()
                        ));
                    }
                    let of = length.map(|l| format!(" of {l}")).unwrap_or_default();
                    return Err(format!(
                        "{what}: the answer was cut off after {} bytes{of} (the connection closed early: {e}). Try again.",
                        out.len()
                    ));
                }
            }
        }
        if let Some(l) = length {
            if (out.len() as u64) < l {
                return Err(format!(
                    "{what}: the answer was cut off after {} of {l} bytes. Try again.",
                    out.len()
                ));
            }
        }
        Ok(out)
    }

    fn transport_error(&self, what: &str, e: &ureq::Error) -> String {
        let msg = e.to_string();
        let msg = match &self.token {
            Some(t) => t.redact(&msg),
            None => msg,
        };
        let base = &self.base;
        if msg.contains(super::tls::NOT_PINNED) {
            let file = self
                .options
                .ca_cert
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            return format!(
                "{what}: TLS failure talking to {base}: it presents a self-signed certificate that is not in {file}. Give that server's own certificate (e.g. from `openssl s_client -connect HOST:PORT -showcerts`, after checking it is your NetBox's) or the CA that issued it."
            );
        }
        match e {
            ureq::Error::Timeout(_) => format!(
                "{what}: no answer from {base} within {} s. NetBox can take 10–30 s to generate its OpenAPI document on a cold cache; raise --timeout, or check the URL and network.",
                self.options.timeout.as_secs()
            ),
            ureq::Error::HostNotFound => format!("{what}: cannot resolve the host of {base}"),
            ureq::Error::Rustls(_) | ureq::Error::Tls(_) => format!(
                "{what}: TLS failure talking to {base}: {msg}. For a private CA give --ca-cert FILE (PEM)."
            ),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => format!(
                "{what}: no answer from {base} within {} s; raise --timeout, or check the URL and network.",
                self.options.timeout.as_secs()
            ),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                format!("{what}: cannot connect to {base}: connection refused")
            }
            // rustls reports some handshake failures as I/O errors; a connection closed before
            // any answer on https is one too (the server does not speak TLS there).
            _ if ["certificate", "tls", "handshake", "corrupt message", "alert"]
                .iter()
                .any(|w| msg.to_ascii_lowercase().contains(w))
                || (self.origin.0 == "https" && msg.contains("end of file")) =>
            {
                format!(
                "{what}: TLS failure talking to {base}: {msg}. For a private CA give --ca-cert FILE (PEM)."
            )
            }
            _ => format!("{what}: cannot talk to {base}: {msg}"),
        }
    }

    /// Prints "waiting …" / bytes-so-far lines every few seconds on stderr while a request runs.
    fn ticker(&self, what: &str, started: Instant) -> Ticker {
        let bytes = Arc::new(AtomicU64::new(0));
        let (tx, rx) = mpsc::channel::<()>();
        if self.options.progress {
            let what = what.to_string();
            let b = bytes.clone();
            std::thread::spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) =
                    rx.recv_timeout(Duration::from_secs(3))
                {
                    let n = b.load(Ordering::Relaxed);
                    let s = started.elapsed().as_secs();
                    if n == 0 {
                        eprintln!("netbox-lsp: {what}: waiting for NetBox, {s} s");
                    } else {
                        eprintln!("netbox-lsp: {what}: {n} bytes, {s} s");
                    }
                }
            });
        }
        Ticker { bytes, stop: tx }
    }
}

/// A final answer: its HTTP status and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status (200, or 4xx/5xx from [`Client::get_reply`] / [`Client::post_json_reply`]).
    pub status: u16,
    /// The body as received (ureq undoes gzip), at most the client's body cap.
    pub body: Vec<u8>,
}

/// A body reader that counts the bytes read (for the progress line).
struct Counted<'a, R> {
    inner: R,
    progress: &'a AtomicU64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// True for a connection reset or closed before the answer started (what a reused connection
/// that the server dropped gives): worth sending an idempotent request once more.
fn is_reset(e: &ureq::Error) -> bool {
    use std::io::ErrorKind::*;
    match e {
        ureq::Error::Io(io) => matches!(
            io.kind(),
            ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof
        ),
        ureq::Error::Protocol(_) => true,
        _ => false,
    }
}

struct Ticker {
    bytes: Arc<AtomicU64>,
    stop: mpsc::Sender<()>,
}

impl Ticker {
    fn stop(self) {
        let _ = self.stop.send(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            normalise_url("https://netbox.example.com/").unwrap(),
            "https://netbox.example.com"
        );
        assert_eq!(
            normalise_url("http://127.0.0.1:8046/api/").unwrap(),
            "http://127.0.0.1:8046"
        );
        assert!(normalise_url("netbox.example.com").is_err());
        assert!(normalise_url("https://u:p@netbox.example.com").is_err());
        assert!(normalise_url("ftp://x").is_err());
        assert!(normalise_url("https://nb.example.com/#x").is_err());
        assert!(normalise_url("https://nb.example.com/?x=1").is_err());
    }

    #[test]
    fn a_shown_url_keeps_no_secret() {
        for (url, shown) in [
            ("https://netbox.example.com/", "https://netbox.example.com/"),
            ("http://127.0.0.1:8046/api", "http://127.0.0.1:8046/api"),
            (
                "https://u:p@nb.example.com/x",
                "https://<redacted>@nb.example.com/x",
            ),
            (
                "https://a@b@nb.example.com",
                "https://<redacted>@nb.example.com",
            ),
            (
                "https://nb.example.com/?token=abc",
                "https://nb.example.com/?<redacted>",
            ),
            (
                "https://nb.example.com#tok",
                "https://nb.example.com#<redacted>",
            ),
            ("nb.example.com/x?y=1", "nb.example.com/x?<redacted>"),
            ("https://u:p@[::1", "https://<redacted>@[::1"),
            ("", ""),
        ] {
            assert_eq!(shown_url(url), shown, "{url}");
        }
        let err = normalise_url("http://u:s3cret@[::1").unwrap_err();
        assert!(!err.contains("s3cret"), "{err}");
    }

    /// A client in a panic message or a debug log (`{:?}`) shows no token.
    #[test]
    fn debug_hides_the_token() {
        let secret = "nbt_K3yK3y.s3cr3ts3cr3t";
        let c = Client::new(
            "https://netbox.example.com",
            Token::new(secret),
            Options::default(),
        )
        .unwrap();
        let shown = format!("{c:?} {:?}", c.options);
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
    }
}
