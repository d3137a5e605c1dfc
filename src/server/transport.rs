//! A guard in front of tower-lsp-server's reader. Its codec ends the whole connection on the
//! first undecodable message (a body that is not UTF-8 or not JSON: tokio-util's `FramedRead`
//! stops after an error), so one bad message from a client would take the server down. This
//! re-frames every message: invalid UTF-8 is replaced (U+FFFD), a body that is not JSON or a
//! frame without `Content-Length` is dropped and logged to stderr.
//!
//! The codec also ends the connection on JSON that is not a JSON-RPC 2.0 message (`{}`, `null`,
//! `[1,2,3]`, `"jsonrpc": "1.0"`, an object `id`), so each body must also decode as the
//! reader's own message type ([`admit`]). A request that does not but carries a usable id
//! (integer or string) is rewritten into a request to [`INVALID_REQUEST_METHOD`], which answers
//! that id with `-32600`; a broken response with a usable id becomes an error response for that
//! id (so the server's pending request ends); anything else is dropped and logged to stderr.

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp_server::jsonrpc::{Request, Response};

/// Internal method that the guard routes invalid requests to; answered with `-32600`
/// (`-32002` before `initialize`, as tower-lsp-server answers every request then).
pub const INVALID_REQUEST_METHOD: &str = "netbox-lsp/invalidRequest";

/// Internal method that the guard routes requests for `$/…` methods to: LSP says a server that
/// does not implement one must answer MethodNotFound (tower-lsp-server leaves them unanswered).
pub const METHOD_NOT_FOUND_METHOD: &str = "netbox-lsp/methodNotFound";

/// Largest header block accepted before resynchronising, in bytes.
const MAX_HEADER: usize = 8 * 1024;

/// Largest message body accepted, in bytes (a 30 MB document in `didOpen`, JSON-escaped, is
/// well below). A larger `Content-Length` is skipped as its bytes arrive, never buffered; a
/// request among them is answered `-32600` (its id read from the body's first KiB).
const MAX_BODY: usize = 128 * 1024 * 1024;

/// How much of a skipped body is kept to find its id.
const PROBE: usize = 1024;

/// A message being skipped: bytes still to drop, and the head of its body.
#[derive(Default)]
struct Skip {
    remaining: usize,
    declared: usize,
    probe: Vec<u8>,
}

impl Skip {
    /// Drops up to `remaining` bytes off `buf`; when the message is done, the replacement to
    /// pass on (an invalid request for its id), if any.
    fn consume(&mut self, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
        let n = self.remaining.min(buf.len());
        let keep = n.min(PROBE.saturating_sub(self.probe.len()));
        self.probe.extend_from_slice(&buf[..keep]);
        buf.drain(..n);
        self.remaining -= n;
        if self.remaining > 0 {
            return None;
        }
        let id = probe_id(&self.probe)?;
        self.probe.clear();
        let reason = format!(
            "message too large: {} bytes (netbox-lsp reads at most {} MiB); skipped",
            self.declared,
            MAX_BODY >> 20
        );
        Some(
            json!({"jsonrpc": "2.0", "id": id, "method": INVALID_REQUEST_METHOD,
                   "params": {"reason": reason}})
            .to_string()
            .into_bytes(),
        )
    }
}

/// The request id in the head of a JSON-RPC body (`"id": 7` or `"id": "a"` before any
/// nested object), when the head also names a `"method"`; `None` otherwise.
fn probe_id(head: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(head);
    if !text.contains("\"method\"") {
        return None;
    }
    let at = text.find("\"id\"")? + 4;
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    if let Some(s) = rest.strip_prefix('"') {
        let end = s.find('"')?;
        return Some(Value::String(s[..end].to_string()));
    }
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse::<i64>().ok().map(Value::from)
}

/// Copies LSP frames from `input` to `output`, repairing or dropping bad ones, until `input`
/// ends or `output` is closed.
pub async fn sanitize<R, W>(mut input: R, mut output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut skip = Skip::default();
    loop {
        // Complete frames already buffered (and the buffered part of a body being skipped).
        loop {
            let frame = if skip.remaining > 0 {
                let done = skip.consume(&mut buf);
                if skip.remaining > 0 {
                    break;
                }
                done
            } else {
                match next_frame(&mut buf, &mut skip) {
                    None => break,
                    Some(frame) => frame,
                }
            };
            if let Some(body) = frame {
                let head = format!("Content-Length: {}\r\n\r\n", body.len());
                if output.write_all(head.as_bytes()).await.is_err()
                    || output.write_all(&body).await.is_err()
                    || output.flush().await.is_err()
                {
                    return;
                }
            }
        }
        match input.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

impl super::Backend {
    /// [`METHOD_NOT_FOUND_METHOD`]: answers `-32601` naming the method asked for.
    pub async fn method_not_found(
        &self,
        params: Value,
    ) -> tower_lsp_server::jsonrpc::Result<Value> {
        let method = params.get("method").and_then(Value::as_str).unwrap_or("?");
        Err(tower_lsp_server::jsonrpc::Error {
            code: tower_lsp_server::jsonrpc::ErrorCode::MethodNotFound,
            message: format!("Method not found: {method}").into(),
            data: None,
        })
    }

    /// [`INVALID_REQUEST_METHOD`]: answers `-32600` with the reason the guard found.
    pub async fn invalid_request(&self, params: Value) -> tower_lsp_server::jsonrpc::Result<Value> {
        let reason = params
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("not a JSON-RPC 2.0 request");
        Err(tower_lsp_server::jsonrpc::Error {
            code: tower_lsp_server::jsonrpc::ErrorCode::InvalidRequest,
            message: format!("Invalid request: {reason}").into(),
            data: None,
        })
    }
}

/// Takes the next frame off `buf`: `None` when more bytes are needed, `Some(None)` when a bad
/// frame was dropped, `Some(Some(body))` for a good (possibly repaired) body.
/// A body above [`MAX_BODY`] is not read: its header is dropped, `skip` set to drop the body
/// as it arrives, and `Some(None)` returned.
fn next_frame(buf: &mut Vec<u8>, skip: &mut Skip) -> Option<Option<Vec<u8>>> {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        if buf.len() > MAX_HEADER {
            resync(buf, 1);
            return Some(None);
        }
        return None;
    };
    let Some(len) = content_length(&buf[..end]) else {
        eprintln!("netbox-lsp: dropped a message without a valid Content-Length header");
        resync(buf, end + 4);
        return Some(None);
    };
    if len > MAX_BODY {
        eprintln!(
            "netbox-lsp: skipped a message of {len} bytes (Content-Length): larger than the {} MiB accepted",
            MAX_BODY >> 20
        );
        buf.drain(..end + 4);
        *skip = Skip {
            remaining: len,
            declared: len,
            probe: Vec::new(),
        };
        return Some(None);
    }
    if buf.len() < end + 4 + len {
        return None;
    }
    let body: Vec<u8> = buf.drain(..end + 4 + len).skip(end + 4).collect();
    let body = match String::from_utf8(body) {
        Ok(s) => s.into_bytes(),
        Err(e) => {
            eprintln!("netbox-lsp: a message was not valid UTF-8; invalid bytes replaced");
            String::from_utf8_lossy(e.as_bytes())
                .into_owned()
                .into_bytes()
        }
    };
    Some(admit(body))
}

/// The shape tower-lsp-server's reader decodes (its `Message` is crate-private): a body that
/// decodes as this never ends the connection.
#[derive(serde::Deserialize)]
#[serde(untagged)]
#[allow(dead_code)] // only decoded, to test the shape
enum Message {
    Response(Response),
    Request(Request),
}

/// The body to pass on for a decoded frame: unchanged when it is a JSON-RPC 2.0 message the
/// reader accepts, rewritten when it is an invalid request or response with a usable id
/// (see the module docs), `None` (dropped, logged) otherwise.
fn admit(body: Vec<u8>) -> Option<Vec<u8>> {
    // Most bodies decode at once (one parse, not three, of a `didChange` carrying a whole
    // document): the reader's type decodes only valid JSON, so nothing below would change them.
    if serde_json::from_slice::<Message>(&body).is_ok() {
        return Some(dollar_request(body));
    }
    let body = match serde_json::from_slice::<Value>(&body) {
        Err(_) => {
            match repair_surrogates(&body) {
                Some(fixed) => {
                    eprintln!("netbox-lsp: a message held a lone UTF-16 surrogate escape; replaced by U+FFFD");
                    fixed
                }
                None => body,
            }
        }
        Ok(_) => body,
    };
    if serde_json::from_slice::<Message>(&body).is_ok() {
        return Some(dollar_request(body));
    }
    let Ok(value) = serde_json::from_slice::<Value>(&body) else {
        eprintln!("netbox-lsp: dropped a message that is not JSON");
        return None;
    };
    let why = invalid_reason(&value);
    let obj = value.as_object()?;
    // Only ids the reader can decode back (i64 or string) can be answered.
    let id = obj
        .get("id")
        .filter(|id| id.is_string() || id.is_i64())
        .cloned();
    let replacement = match id {
        Some(id) if obj.contains_key("method") => {
            eprintln!("netbox-lsp: invalid request (id {id}): {why}; answered with -32600");
            json!({"jsonrpc": "2.0", "id": id, "method": INVALID_REQUEST_METHOD,
                   "params": {"reason": why}})
        }
        Some(id) if obj.contains_key("result") || obj.contains_key("error") => {
            eprintln!("netbox-lsp: invalid response (id {id}): {why}; taken as an error");
            json!({"jsonrpc": "2.0", "id": id,
                   "error": {"code": -32600, "message": format!("invalid response: {why}")}})
        }
        _ => {
            eprintln!("netbox-lsp: dropped a message that is not a JSON-RPC 2.0 message: {why}");
            return None;
        }
    };
    Some(replacement.to_string().into_bytes())
}

/// A request (with an id) for a `$/…` method becomes a request to [`METHOD_NOT_FOUND_METHOD`];
/// `$/…` notifications (`$/cancelRequest`, `$/setTrace`) pass unchanged.
fn dollar_request(body: Vec<u8>) -> Vec<u8> {
    // Cheap test first: most messages are not `$/` requests.
    if !body.windows(2).any(|w| w == b"$/") {
        return body;
    }
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(&body) else {
        return body;
    };
    match (obj.get("id"), obj.get("method").and_then(Value::as_str)) {
        (Some(id), Some(m)) if !id.is_null() && m.starts_with("$/") => json!({
            "jsonrpc": "2.0", "id": id, "method": METHOD_NOT_FOUND_METHOD,
            "params": {"method": m}
        })
        .to_string()
        .into_bytes(),
        _ => body,
    }
}

/// `body` with each `\uXXXX` escape of a lone UTF-16 surrogate (a high one not followed by a
/// low one, or a low one alone) replaced by `\ufffd`, which serde_json refuses otherwise (and
/// the whole document would be dropped); `None` when there is none.
fn repair_surrogates(body: &[u8]) -> Option<Vec<u8>> {
    let hex = |at: usize| -> Option<u16> {
        let h = body.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u16> {
        (body.get(at) == Some(&b'\\') && body.get(at + 1) == Some(&b'u'))
            .then(|| hex(at + 2))
            .flatten()
    };
    let mut out = Vec::with_capacity(body.len());
    let mut changed = false;
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            out.push(body[i]);
            i += 1;
            continue;
        }
        match escape_at(i) {
            Some(0xD800..=0xDBFF) => {
                if matches!(escape_at(i + 6), Some(0xDC00..=0xDFFF)) {
                    out.extend_from_slice(&body[i..i + 12]);
                    i += 12;
                } else {
                    out.extend_from_slice(b"\\ufffd");
                    changed = true;
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                out.extend_from_slice(b"\\ufffd");
                changed = true;
                i += 6;
            }
            _ => {
                // Any other escape: copy it whole, so `\\` never starts a false match.
                let n = 2.min(body.len() - i);
                out.extend_from_slice(&body[i..i + n]);
                i += n;
            }
        }
    }
    changed.then_some(out)
}

/// Why `value` is not a JSON-RPC 2.0 message, in a few words.
fn invalid_reason(value: &Value) -> String {
    let Some(obj) = value.as_object() else {
        let kind = match value {
            Value::Array(_) => "an array (batches are not supported)",
            Value::Null => "null",
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            _ => "a boolean",
        };
        return format!("the message is {kind}, not an object");
    };
    match obj.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => return format!("`jsonrpc` must be \"2.0\", found {other}"),
        None => return "`jsonrpc` is missing".to_string(),
    }
    match obj.get("id") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(id) if id.is_i64() => {}
        Some(other) => return format!("`id` must be an integer, a string or null, found {other}"),
    }
    match obj.get("method") {
        Some(Value::String(_)) | None => "not a JSON-RPC 2.0 request or response".to_string(),
        Some(other) => format!("`method` must be a string, found {other}"),
    }
}

/// Drops bytes up to the next `Content-Length` after `skip`.
fn resync(buf: &mut Vec<u8>, skip: usize) {
    let skip = skip.min(buf.len());
    let next = find(&buf[skip..], b"Content-Length").map_or(buf.len(), |i| skip + i);
    buf.drain(..next);
}

/// The `Content-Length` (bytes) of a frame's header block (`head`: the header lines without the
/// blank line after them); `None` when it has none or it is not a number.
pub(super) fn content_length(head: &[u8]) -> Option<usize> {
    std::str::from_utf8(head).ok().and_then(|head| {
        head.split("\r\n").find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
    })
}

/// Byte offset of the first `needle` in `hay`.
pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Content-Length` above [`MAX_BODY`]: the body is dropped as it arrives (the buffer
    /// never holds more than one read), the request is answered `-32600` with its id, and the
    /// next message passes.
    #[test]
    fn an_oversized_body_is_skipped_as_it_arrives() {
        let mut buf = format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1).into_bytes();
        buf.extend_from_slice(
            br#"{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":"#,
        );
        let mut skip = Skip::default();
        assert!(matches!(next_frame(&mut buf, &mut skip), Some(None)));
        assert_eq!(skip.remaining, MAX_BODY + 1);
        let chunk = vec![b' '; 1 << 20];
        let mut answer = None;
        loop {
            answer = skip.consume(&mut buf).or(answer);
            if skip.remaining == 0 {
                break;
            }
            assert!(buf.is_empty());
            buf.extend_from_slice(&chunk[..chunk.len().min(skip.remaining)]);
        }
        let answer = String::from_utf8(answer.unwrap()).unwrap();
        assert!(
            answer.contains(r#""id":7"#) && answer.contains(INVALID_REQUEST_METHOD),
            "{answer}"
        );
        assert!(answer.contains("message too large"), "{answer}");
        let good = br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        buf.extend_from_slice(&frame(good));
        assert_eq!(next_frame(&mut buf, &mut skip), Some(Some(good.to_vec())));
        assert_eq!(probe_id(br#"{"id":"a-1","method":"x""#), Some(json!("a-1")));
        assert_eq!(
            probe_id(br#"{"jsonrpc":"2.0","method":"x","params":{"#),
            None
        );
    }

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn repairs_utf8_drops_non_json_and_resynchronises() {
        let mut buf = Vec::new();
        buf.extend(frame(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}"));
        buf.extend(frame(b"{not json"));
        buf.extend_from_slice(b"garbage\r\n\r\n");
        buf.extend(frame(b"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}"));
        buf.extend_from_slice(b"Content-Length: 10\r\n\r\n{\"c\"");
        let mut out = Vec::new();
        while let Some(f) = next_frame(&mut buf, &mut Skip::default()) {
            out.push(f.map(|b| String::from_utf8(b).unwrap()));
        }
        assert_eq!(
            out,
            vec![
                Some("{\"jsonrpc\":\"2.0\",\"method\":\"\u{fffd}\"}".to_string()),
                None,
                None,
                Some("{\"jsonrpc\":\"2.0\",\"method\":\"b\"}".to_string())
            ]
        );
        assert!(buf.starts_with(b"Content-Length: 10"), "partial frame kept");
    }
}

#[cfg(test)]
mod admit_tests {
    use super::*;

    fn admitted(body: &str) -> Option<Value> {
        admit(body.as_bytes().to_vec()).map(|b| serde_json::from_slice(&b).unwrap())
    }

    #[test]
    fn valid_messages_pass_unchanged() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"x","params":[1]}"#,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#,
        ] {
            assert_eq!(
                admit(body.as_bytes().to_vec()).as_deref(),
                Some(body.as_bytes())
            );
        }
    }

    #[test]
    fn invalid_bodies_are_answered_rewritten_or_dropped() {
        // (body, Some(id) = answered through the internal method, None = dropped)
        let cases: &[(&str, Option<Value>)] = &[
            ("{}", None),
            ("null", None),
            ("[1,2,3]", None),
            ("\"str\"", None),
            ("{not json", None),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover"}"#,
                None,
            ),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#, None),
            (r#"{"jsonrpc":"1.0","method":"exit"}"#, None),
            (
                r#"{"jsonrpc":"1.0","id":9,"method":"shutdown"}"#,
                Some(json!(9)),
            ),
            (r#"{"id":"s","method":"shutdown"}"#, Some(json!("s"))),
            (r#"{"jsonrpc":"2.0","id":4,"method":7}"#, Some(json!(4))),
        ];
        for (body, id) in cases {
            let got = admitted(body);
            match id {
                None => assert_eq!(got, None, "{body}"),
                Some(id) => {
                    let got = got.unwrap_or_else(|| panic!("{body} dropped"));
                    assert_eq!(got["id"], *id, "{body}");
                    assert_eq!(got["method"], INVALID_REQUEST_METHOD, "{body}");
                    assert!(got["params"]["reason"].is_string(), "{body}");
                    // The rewritten request is one the reader decodes.
                    assert!(serde_json::from_value::<Request>(got).is_ok(), "{body}");
                }
            }
        }
    }

    #[test]
    fn a_broken_response_becomes_an_error_for_its_id() {
        let got = admitted(r#"{"jsonrpc":"1.0","id":2,"result":[]}"#).unwrap();
        assert_eq!(got["id"], 2);
        assert_eq!(got["error"]["code"], -32600);
        assert!(serde_json::from_value::<Response>(got).is_ok());
    }
}
