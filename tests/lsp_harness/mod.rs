//! A small LSP client for the protocol tests: frames JSON-RPC messages over any byte stream,
//! answers the server's own requests (`workspace/configuration` and `window/showMessageRequest`
//! from settable values, `client/registerCapability`), and waits for responses and notifications with a timeout.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

pub const TIMEOUT: Duration = Duration::from_secs(20);

type Writer = Arc<tokio::sync::Mutex<Box<dyn AsyncWrite + Unpin + Send>>>;

pub struct TestClient {
    writer: Writer,
    incoming: mpsc::UnboundedReceiver<Value>,
    queue: VecDeque<Value>,
    next_id: i64,
    /// The value answered for the `netboxLsp` section of `workspace/configuration`.
    pub config: Arc<Mutex<Value>>,
    /// The action title answered to `window/showMessageRequest` (`None`: `null`, as when the
    /// user closes the message).
    pub message_action: Arc<Mutex<Option<String>>>,
    /// The params of every `window/showMessageRequest` received.
    pub prompts: Arc<Mutex<Vec<Value>>>,
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lsp")
        .join(name)
}

pub fn file_uri(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

/// Frames one message.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

async fn read_message<R: AsyncRead + Unpin>(r: &mut R, buf: &mut Vec<u8>) -> Option<Value> {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..end]).ok()?;
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|n| n.trim().parse().ok())?;
            if buf.len() >= end + 4 + len {
                let body: Vec<u8> = buf.drain(..end + 4 + len).skip(end + 4).collect();
                return serde_json::from_slice(&body).ok();
            }
        }
        let mut chunk = vec![0u8; 1 << 16];
        let n = r.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

impl TestClient {
    /// Connects to a server reading `to_server` and writing `from_server`.
    pub fn connect<R, W>(from_server: R, to_server: W) -> TestClient
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(Box::new(to_server)));
        let config = Arc::new(Mutex::new(Value::Null));
        let (tx, rx) = mpsc::unbounded_channel();
        let message_action: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let prompts: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(Vec::new()));
        let (w, cfg, act, seen) = (
            writer.clone(),
            config.clone(),
            message_action.clone(),
            prompts.clone(),
        );
        tokio::spawn(async move {
            let mut r = from_server;
            let mut buf = Vec::new();
            while let Some(msg) = read_message(&mut r, &mut buf).await {
                if let (Some(method), Some(id)) = (msg.get("method"), msg.get("id")) {
                    let result = match method.as_str() {
                        Some("workspace/configuration") => {
                            let n = msg["params"]["items"].as_array().map_or(0, Vec::len);
                            let v = cfg.lock().unwrap().clone();
                            Value::Array(vec![v; n])
                        }
                        Some("window/showMessageRequest") => {
                            seen.lock().unwrap().push(msg["params"].clone());
                            match act.lock().unwrap().clone() {
                                Some(title) => json!({"title": title}),
                                None => Value::Null,
                            }
                        }
                        _ => Value::Null,
                    };
                    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
                    let bytes = frame(reply.to_string().as_bytes());
                    let _ = w.lock().await.write_all(&bytes).await;
                }
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        TestClient {
            writer,
            incoming: rx,
            queue: VecDeque::new(),
            next_id: 1,
            config,
            message_action,
            prompts,
        }
    }

    /// A client connected to an in-process server over `tokio::io::duplex`, with test hooks on.
    pub fn in_process() -> TestClient {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(netbox_lsp::server::serve(server_read, server_write, true));
        let (client_read, client_write) = tokio::io::split(client_end);
        TestClient::connect(client_read, client_write)
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        let mut w = self.writer.lock().await;
        w.write_all(bytes).await.unwrap();
        w.flush().await.unwrap();
    }

    pub async fn send(&mut self, msg: Value) {
        self.send_raw(&frame(msg.to_string().as_bytes())).await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request and returns the whole response message (`result` or `error`).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
            .await
    }

    /// The `result` of a request (panics on an error response).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let resp = self.request(method, params).await;
        assert!(resp.get("error").is_none(), "{method} failed: {resp}");
        resp["result"].clone()
    }

    /// Waits for (and removes) the first message matching `pred`, keeping the others.
    pub async fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.queue.iter().position(&pred) {
            return self.queue.remove(i).unwrap();
        }
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.incoming.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out; unconsumed: {:?}", self.queue))
                .expect("server closed the connection");
            if pred(&msg) {
                return msg;
            }
            self.queue.push_back(msg);
        }
    }

    /// Waits for a notification `method` whose params satisfy `pred`.
    pub async fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let m = method.to_string();
        self.wait_for(move |msg| {
            msg["method"] == json!(m) && msg.get("id").is_none() && pred(&msg["params"])
        })
        .await["params"]
            .clone()
    }

    /// Waits for the diagnostics of `uri` at `version`.
    pub async fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let u = uri.to_string();
        let p = self
            .notification("textDocument/publishDiagnostics", move |p| {
                p["uri"] == json!(u) && p["version"] == json!(version)
            })
            .await;
        p["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// How many of the messages received so far (and not taken by a wait) are `method`.
    pub fn received(&mut self, method: &str) -> usize {
        while let Ok(m) = self.incoming.try_recv() {
            self.queue.push_back(m);
        }
        self.queue.iter().filter(|m| m["method"] == method).count()
    }

    /// Drops every queued message (e.g. diagnostics of older versions).
    pub fn drain(&mut self) {
        while let Ok(m) = self.incoming.try_recv() {
            self.queue.push_back(m);
        }
        self.queue.clear();
    }

    /// `initialize` + `initialized` with `options` as initializationOptions; returns the result.
    pub async fn initialize(
        &mut self,
        options: Value,
        capabilities: Value,
        folders: Value,
    ) -> Value {
        let result = self
            .call(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": null,
                    "capabilities": capabilities,
                    "initializationOptions": options,
                    "workspaceFolders": folders,
                }),
            )
            .await;
        self.notify("initialized", json!({})).await;
        result
    }

    /// Initialises with the test index and common client capabilities.
    pub async fn start() -> TestClient {
        let mut c = TestClient::in_process();
        c.initialize(default_options(), default_capabilities(), Value::Null)
            .await;
        c
    }

    pub async fn open(&mut self, uri: &str, language: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}}),
        )
        .await;
    }

    pub async fn change(&mut self, uri: &str, version: i64, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        )
        .await;
    }

    /// The server's copy of a document (test hook).
    pub async fn server_text(&mut self, uri: &str) -> (i64, String) {
        let r = self
            .call("netbox-lsp/debugDocument", json!({"uri": uri}))
            .await;
        (
            r["version"].as_i64().unwrap(),
            r["text"].as_str().unwrap().to_string(),
        )
    }

    pub async fn completion_labels(&mut self, uri: &str, line: u32, character: u32) -> Vec<String> {
        let r = self
            .call(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
            )
            .await;
        let items = r
            .as_array()
            .cloned()
            .or_else(|| r["items"].as_array().cloned())
            .unwrap_or_default();
        items
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    }
}

pub fn default_options() -> Value {
    json!({"index": fixture("mini.index.json").display().to_string()})
}

pub fn default_capabilities() -> Value {
    json!({
        "workspace": {"configuration": true, "didChangeWatchedFiles": {"dynamicRegistration": true}},
        "textDocument": {"publishDiagnostics": {"versionSupport": true}},
        "general": {"positionEncodings": ["utf-16"]}
    })
}

/// LSP position (UTF-16) of the first occurrence of `needle` in `text`, plus `delta` characters.
pub fn pos_of(text: &str, needle: &str, delta: usize) -> (u32, u32) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col: usize = text[line_start..at]
        .chars()
        .map(char::len_utf16)
        .sum::<usize>()
        + text[at..]
            .chars()
            .take(delta)
            .map(char::len_utf16)
            .sum::<usize>();
    (line, col as u32)
}
