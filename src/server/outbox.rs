//! A second way out to the client, for messages the server writes as bytes itself
//! ([`super::wire`]'s diagnostics): tower-lsp-server's writer goes to a pipe, and
//! [`forward`] copies its frames to the real output whole, with the frames of the [`Outbox`]
//! between them (never inside one).

use super::transport::{content_length, find};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// Frames waiting for the output at most; a sender waits beyond (a client that does not read).
const QUEUE: usize = 8;

/// The sending side: framed messages (header and body, bytes) to write to the client.
#[derive(Debug, Clone)]
pub struct Outbox {
    frames: mpsc::Sender<Vec<u8>>,
}

/// The receiving side, for [`forward`].
#[derive(Debug)]
pub struct Frames(mpsc::Receiver<Vec<u8>>);

/// A new outbox and the frames it sends.
pub fn channel() -> (Outbox, Frames) {
    let (tx, rx) = mpsc::channel(QUEUE);
    (Outbox { frames: tx }, Frames(rx))
}

impl Outbox {
    /// Queues `frame` for the output; false when the output is gone (the server is ending).
    pub async fn send(&self, frame: Vec<u8>) -> bool {
        self.frames.send(frame).await.is_ok()
    }
}

/// Copies the frames `from_server` (tower-lsp-server's writer, which writes whole
/// `Content-Length` frames) and those of `frames` to `output`, each frame whole, until
/// `from_server` ends (then the frames already queued are written) or `output` fails (then
/// `from_server` is dropped, so the server's next write fails as it did on the output itself).
pub async fn forward<R, W>(mut from_server: R, mut frames: Frames, output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite,
{
    tokio::pin!(output);
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut queue_open = true;
    loop {
        tokio::select! {
            read = from_server.read(&mut chunk) => {
                let n = match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                buf.extend_from_slice(&chunk[..n]);
                let whole = whole_frames(&buf);
                if whole > 0 {
                    if write(&mut output, &buf[..whole]).await.is_err() {
                        return;
                    }
                    buf.drain(..whole);
                }
            }
            frame = frames.0.recv(), if queue_open => match frame {
                Some(frame) => {
                    if write(&mut output, &frame).await.is_err() {
                        return;
                    }
                }
                None => queue_open = false,
            },
        }
    }
    // The server has ended: what it wrote last is whole; then what was queued.
    let _ = write(&mut output, &buf).await;
    while let Ok(frame) = frames.0.try_recv() {
        if write(&mut output, &frame).await.is_err() {
            return;
        }
    }
}

/// Most bytes handed to the output at once. tokio's stdout copies each write into a buffer of
/// its own (up to 2 MiB) that keeps its capacity: one 325 kB `publishDiagnostics` written
/// whole kept 305 kB of it for the server's life. Each piece is one trip to a blocking thread
/// and back: a 140 kB completion list took 9 trips in 16 kB pieces, 3 in 64 kB ones.
const WRITE_CHUNK: usize = 64 * 1024;

async fn write<W: AsyncWrite>(
    output: &mut std::pin::Pin<&mut W>,
    bytes: &[u8],
) -> std::io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    for piece in bytes.chunks(WRITE_CHUNK) {
        output.write_all(piece).await?;
    }
    output.flush().await
}

/// Length of the complete frames at the start of `buf` (bytes): each a `Content-Length: N`
/// header, a blank line and N bytes of body, as tower-lsp-server's codec writes them.
fn whole_frames(buf: &[u8]) -> usize {
    let mut at = 0;
    while let Some(end) = find(&buf[at..], b"\r\n\r\n") {
        let Some(len) = content_length(&buf[at..at + end]) else {
            // Not a frame the codec writes: pass the bytes on as they are.
            return buf.len();
        };
        let next = at + end + 4 + len;
        if next > buf.len() {
            break;
        }
        at = next;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    #[test]
    fn whole_frames_stop_before_a_partial_one() {
        let mut buf = frame("{\"a\":1}");
        buf.extend(frame("{\"b\":2}"));
        let two = buf.len();
        buf.extend_from_slice(&frame("{\"c\":3}")[..10]);
        assert_eq!(whole_frames(&buf), two);
        assert_eq!(whole_frames(&buf[..5]), 0);
        assert_eq!(whole_frames(b""), 0);
    }

    /// The server's frames, written a few bytes at a time, and queued frames come out each
    /// whole and in the order each side sent them; frames queued before the server ends are
    /// written after its last one.
    #[tokio::test]
    async fn frames_of_both_sides_come_out_whole() {
        let (mut server_w, server_r) = tokio::io::duplex(64);
        let (out_w, mut out_r) = tokio::io::duplex(1 << 20);
        let (outbox, frames) = channel();
        let forwarding = tokio::spawn(forward(server_r, frames, out_w));
        let (done, finished) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            for i in 0..50 {
                let f = frame(&format!(
                    "{{\"server\":{i},\"pad\":\"{}\"}}",
                    "x".repeat(i * 7)
                ));
                for piece in f.chunks(13) {
                    server_w.write_all(piece).await.unwrap();
                }
            }
            // The server's writer ends only after every queued frame was sent.
            let _ = finished.await;
        });
        for i in 0..50 {
            assert!(outbox.send(frame(&format!("{{\"ours\":{i}}}"))).await);
        }
        done.send(()).unwrap();
        server.await.unwrap();
        forwarding.await.unwrap();
        let mut out = Vec::new();
        out_r.read_to_end(&mut out).await.unwrap();
        let mut bodies = Vec::new();
        let mut at = 0;
        while at < out.len() {
            let n = whole_frames(&out[at..]);
            assert!(n > 0, "a partial frame at {at}");
            let end = at + find(&out[at..], b"\r\n\r\n").unwrap() + 4;
            let len: usize = std::str::from_utf8(&out[at + 16..end - 4])
                .unwrap()
                .parse()
                .unwrap();
            let v: serde_json::Value = serde_json::from_slice(&out[end..end + len]).unwrap();
            bodies.push(v);
            at = end + len;
        }
        let of = |key: &str| -> Vec<u64> {
            bodies.iter().filter_map(|v| v.get(key)?.as_u64()).collect()
        };
        assert_eq!(of("server"), (0..50).collect::<Vec<_>>());
        assert_eq!(of("ours"), (0..50).collect::<Vec<_>>());
    }
}
