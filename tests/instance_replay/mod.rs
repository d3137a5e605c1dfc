//! A loopback HTTP server for tests that replays what the customised NetBox 4.6.8 answered
//! (`tests/fixtures/instance/`, see its README.md and headers.txt), and the failure modes.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const V1: &str = "0123456789abcdef0123456789abcdef01234567";

/// The proxy variables a loopback test clears: the replay server must get its requests directly.
pub const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];
pub const V2: &str = "nbt_K3yK3yK3y.s3cr3ts3cr3ts3cr3t";

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/instance")
        .join(name)
}

pub fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// One request as the replay server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub authorization: Option<String>,
    pub accept_encoding: Option<String>,
    /// The `Host` header.
    pub host: Option<String>,
    pub body: Vec<u8>,
}

/// What to answer.
pub enum Reply {
    Full {
        status: u16,
        content_type: &'static str,
        body: Vec<u8>,
        headers: Vec<(String, String)>,
    },
    /// Sleep, then close without answering.
    Stall(Duration),
    /// Declare `declared` bytes, send `body`, close.
    Truncated { declared: usize, body: Vec<u8> },
    /// Declare `body.len()` bytes, then send them one at a time, `every` apart.
    Trickle { body: Vec<u8>, every: Duration },
    /// Declare `declared` bytes, send `body`, then send nothing for `stall`.
    StallMidBody {
        declared: usize,
        body: Vec<u8>,
        stall: Duration,
    },
    /// A body of `total` bytes made on the fly: `head`, then `filler` over and over, then
    /// `tail` (the server never holds it whole); stops when the client hangs up.
    Stream {
        status: u16,
        head: Vec<u8>,
        filler: Vec<u8>,
        tail: Vec<u8>,
        total: usize,
    },
    /// Close the connection without answering (what a loaded gunicorn does to a connection
    /// now and then).
    Close,
}

pub fn json(body: Vec<u8>) -> Reply {
    Reply::Full {
        status: 200,
        content_type: "application/json",
        body,
        headers: vec![],
    }
}

pub fn status_reply(status: u16, content_type: &'static str, body: &[u8]) -> Reply {
    Reply::Full {
        status,
        content_type,
        body: body.to_vec(),
        headers: vec![],
    }
}

pub type Route = dyn Fn(&Seen) -> Reply + Send + Sync;

pub struct Server {
    pub port: u16,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    /// Serves HTTPS with `tests/fixtures/tls/server.pem` (issued by `ca.pem`).
    pub tls: bool,
}

impl Server {
    pub fn start(route: Box<Route>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let route: Arc<Route> = Arc::from(route);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (s, route) = (s.clone(), route.clone());
                std::thread::spawn(move || serve(stream, &s, &*route));
            }
        });
        Server {
            port,
            seen,
            tls: false,
        }
    }

    /// The same over TLS, with the test certificate for `127.0.0.1` (`tests/fixtures/tls/`).
    pub fn start_tls(route: Box<Route>) -> Server {
        Self::start_tls_as("server", route)
    }

    /// Over TLS with `tests/fixtures/tls/<name>.pem` and `<name>.key`.
    pub fn start_tls_as(name: &str, route: Box<Route>) -> Server {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let tls = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls");
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_file_iter(tls.join(format!("{name}.pem")))
                .unwrap()
                .map(Result::unwrap)
                .collect();
        let key = PrivateKeyDer::from_pem_file(tls.join(format!("{name}.key"))).unwrap();
        let config = Arc::new(
            rustls::ServerConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let route: Arc<Route> = Arc::from(route);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (s, route, config) = (s.clone(), route.clone(), config.clone());
                std::thread::spawn(move || {
                    let Ok(conn) = rustls::ServerConnection::new(config) else {
                        return;
                    };
                    serve_io(rustls::StreamOwned::new(conn, stream), &s, &*route)
                });
            }
        });
        Server {
            port,
            seen,
            tls: true,
        }
    }

    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Seen>>, route: &Route) {
    serve_io(stream, seen, route)
}

fn serve_io<S: Read + Write>(stream: S, seen: &Mutex<Vec<Seen>>, route: &Route) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let (mut auth, mut enc, mut host, mut len) = (None, None, None, 0usize);
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            let v = v.trim().to_string();
            match k.trim().to_ascii_lowercase().as_str() {
                "authorization" => auth = Some(v),
                "accept-encoding" => enc = Some(v),
                "host" => host = Some(v),
                "content-length" => len = v.parse().unwrap_or(0),
                _ => {}
            }
        }
    }
    let mut body = vec![0u8; len];
    let _ = reader.read_exact(&mut body);
    let req = Seen {
        method,
        path,
        authorization: auth,
        accept_encoding: enc,
        host,
        body,
    };
    seen.lock().unwrap().push(req.clone());
    let out = reader.get_mut();
    match route(&req) {
        Reply::Full {
            status,
            content_type,
            body,
            headers,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nServer: gunicorn\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head += &format!("{k}: {v}\r\n");
            }
            head += "\r\n";
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(&body);
        }
        Reply::Stall(d) => std::thread::sleep(d),
        Reply::Close => return,
        Reply::Stream {
            status,
            head,
            filler,
            tail,
            total,
        } => {
            // Whole fillers only, so that the body stays well-formed.
            let reps = total.saturating_sub(head.len() + tail.len()) / filler.len().max(1);
            let declared = head.len() + reps * filler.len() + tail.len();
            let h = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
            );
            if out
                .write_all(h.as_bytes())
                .and_then(|_| out.write_all(&head))
                .is_err()
            {
                return;
            }
            let per = (64 * 1024 / filler.len().max(1)).max(1);
            let chunk = filler.repeat(per);
            let mut left = reps;
            while left > 0 {
                let n = left.min(per);
                if out.write_all(&chunk[..n * filler.len()]).is_err() {
                    return;
                }
                left -= n;
            }
            let _ = out.write_all(&tail);
        }
        Reply::Truncated { declared, body } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
            );
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(&body);
        }
        Reply::Trickle { body, every } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = out.write_all(head.as_bytes());
            for b in body {
                std::thread::sleep(every);
                if out.write_all(&[b]).and_then(|_| out.flush()).is_err() {
                    return;
                }
            }
        }
        Reply::StallMidBody {
            declared,
            body,
            stall,
        } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
            );
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(&body);
            let _ = out.flush();
            std::thread::sleep(stall);
        }
    }
    let _ = out.flush();
}

/// The lab instance's answers (`headers.txt`): a v1 token is required except on the schema.
pub fn netbox(token: &'static str, gzip: bool) -> Box<Route> {
    let status = gunzip(&read("status.json.gz"));
    let openapi = gunzip(&read("openapi.json.gz"));
    let graphql = gunzip(&read("graphql-introspection.json.gz"));
    let cf = gunzip(&read("custom-fields.json.gz"));
    let cs = gunzip(&read("custom-field-choice-sets.json.gz"));
    Box::new(move |req: &Seen| {
        let want = if token.starts_with("nbt_") {
            format!("Bearer {token}")
        } else {
            format!("Token {token}")
        };
        let authed = req.authorization.as_deref() == Some(want.as_str());
        let body = match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/api/schema/?format=json") => openapi.clone(),
            (_, p) if !authed && p.starts_with("/graphql") => {
                return status_reply(403, "text/html; charset=utf-8", b"Invalid v1 token")
            }
            (_, _) if req.authorization.is_none() => {
                return status_reply(
                    403,
                    "application/json",
                    br#"{"detail":"Authentication credentials were not provided."}"#,
                )
            }
            (_, _) if !authed => {
                return status_reply(403, "application/json", br#"{"detail":"Invalid v1 token"}"#)
            }
            ("GET", "/api/status/") => status.clone(),
            ("POST", "/graphql/") => graphql.clone(),
            ("GET", "/api/extras/custom-fields/?limit=1000&offset=0") => cf.clone(),
            ("GET", "/api/extras/custom-field-choice-sets/?limit=1000&offset=0") => cs.clone(),
            _ => {
                return status_reply(
                    404,
                    "text/html; charset=utf-8",
                    b"   <!DOCTYPE html> <html><title>Page Not Found | NetBox</title></html>",
                )
            }
        };
        if gzip
            && req
                .accept_encoding
                .as_deref()
                .is_some_and(|e| e.contains("gzip"))
        {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(&body).unwrap();
            return Reply::Full {
                status: 200,
                content_type: "application/json",
                body: enc.finish().unwrap(),
                headers: vec![("Content-Encoding".into(), "gzip".into())],
            };
        }
        json(body)
    })
}

/// A forward proxy on loopback that speaks `CONNECT host:port` (what ureq sends to an HTTP
/// proxy) and tunnels to the target; records each request line.
pub struct Proxy {
    pub port: u16,
    pub seen: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    pub fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let s = s.clone();
                std::thread::spawn(move || tunnel(stream, &s));
            }
        });
        Proxy { port, seen }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

fn tunnel(stream: TcpStream, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
    }
    seen.lock().unwrap().push(line.trim().to_string());
    let mut client = stream;
    let target = match line.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["CONNECT", target, ..] => target.to_string(),
        _ => {
            let _ =
                client.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
            return;
        }
    };
    let Ok(upstream) = TcpStream::connect(&target) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
    let (mut up_r, mut up_w) = (upstream.try_clone().unwrap(), upstream);
    // Bytes the reader already buffered belong to the tunnel.
    let _ = up_w.write_all(reader.buffer());
    let mut down_w = client.try_clone().unwrap();
    let t = std::thread::spawn(move || {
        let _ = std::io::copy(&mut up_r, &mut down_w);
        let _ = down_w.shutdown(std::net::Shutdown::Both);
    });
    let mut client_r = client;
    let _ = std::io::copy(&mut client_r, &mut up_w);
    let _ = up_w.shutdown(std::net::Shutdown::Write);
    let _ = t.join();
}
