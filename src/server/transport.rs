//! A guard in front of tower-lsp-server's reader. Its codec ends the whole connection on the
//! first undecodable message (a body that is not UTF-8 or not JSON: tokio-util's `FramedRead`
//! stops after an error), so one bad message from a client would take the server down. This
//! re-frames every message: invalid UTF-8 is replaced (U+FFFD), a body that is not JSON or a
//! frame without `Content-Length` is dropped and logged to stderr.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest header block accepted before resynchronising, in bytes.
const MAX_HEADER: usize = 8 * 1024;

/// Copies LSP frames from `input` to `output`, repairing or dropping bad ones, until `input`
/// ends or `output` is closed.
pub async fn sanitize<R, W>(mut input: R, mut output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        // Complete frames already buffered.
        while let Some(frame) = next_frame(&mut buf) {
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

/// Takes the next frame off `buf`: `None` when more bytes are needed, `Some(None)` when a bad
/// frame was dropped, `Some(Some(body))` for a good (possibly repaired) body.
fn next_frame(buf: &mut Vec<u8>) -> Option<Option<Vec<u8>>> {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        if buf.len() > MAX_HEADER {
            resync(buf, 1);
            return Some(None);
        }
        return None;
    };
    let len = std::str::from_utf8(&buf[..end]).ok().and_then(|head| {
        head.split("\r\n").find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
    });
    let Some(len) = len else {
        eprintln!("netbox-lsp: dropped a message without a valid Content-Length header");
        resync(buf, end + 4);
        return Some(None);
    };
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
    if serde_json::from_slice::<serde::de::IgnoredAny>(&body).is_err() {
        eprintln!("netbox-lsp: dropped a message that is not JSON");
        return Some(None);
    }
    Some(Some(body))
}

/// Drops bytes up to the next `Content-Length` after `skip`.
fn resync(buf: &mut Vec<u8>, skip: usize) {
    let skip = skip.min(buf.len());
    let next = find(&buf[skip..], b"Content-Length").map_or(buf.len(), |i| skip + i);
    buf.drain(..next);
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn repairs_utf8_drops_non_json_and_resynchronises() {
        let mut buf = Vec::new();
        buf.extend(frame(b"{\"a\":\"\xff\"}"));
        buf.extend(frame(b"{not json"));
        buf.extend_from_slice(b"garbage\r\n\r\n");
        buf.extend(frame(b"{\"b\":1}"));
        buf.extend_from_slice(b"Content-Length: 10\r\n\r\n{\"c\"");
        let mut out = Vec::new();
        while let Some(f) = next_frame(&mut buf) {
            out.push(f.map(|b| String::from_utf8(b).unwrap()));
        }
        assert_eq!(
            out,
            vec![
                Some("{\"a\":\"\u{fffd}\"}".to_string()),
                None,
                None,
                Some("{\"b\":1}".to_string())
            ]
        );
        assert!(buf.starts_with(b"Content-Length: 10"), "partial frame kept");
    }
}
