//! Limits on a document the index is built from, read from a file (`index build --openapi`) or
//! fetched from a NetBox (`crate::instance::limits` applies them to every answer): its decoded
//! size and the number of JSON values in it, which keep peak memory bounded whatever the
//! document holds. Figures measured on NetBox 4.6.8's own answers (`../shared/netbox/v4.6.8/`).

/// Largest answer accepted once decoded (bytes), with or without `Content-Encoding`. NetBox
/// 4.6.8's OpenAPI document is 12.9 MB (12,936,263 bytes), its introspection answer 2.4 MB.
pub const MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// Most JSON separators (`{`, `[`, `,`, `:` outside strings, about two per value) one answer
/// may hold. NetBox 4.6.8's OpenAPI document has 449,843 (244,591 values) and builds in 91 MB
/// peak; the build costs about 200 bytes per separator, so this keeps it under 300 MB.
pub const MAX_JSON_SEPARATORS: usize = 1_200_000;

/// `{`, `[`, `,` and `:` outside strings in `text` (about two per JSON value), counted in one
/// pass without building anything, up to one past `max`: the shape limit of an OpenAPI answer
/// and of a local OpenAPI file (`index build --openapi`).
pub fn json_separators(text: &[u8], max: usize) -> usize {
    let (mut n, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b'{' | b'[' | b',' | b':') {
            n += 1;
            if n > max {
                break;
            }
        }
    }
    n
}
