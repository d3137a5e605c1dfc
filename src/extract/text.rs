//! REST URLs with query strings in any text (prose, curl lines, code, strings):
//! `/api/dcim/devices/?role_id=3&status=active`, with or without scheme and host, and plugin
//! collections `/api/plugins/<plugin>/<slug>/?...`.
//!
//! The wire carries only strings, so every value is [`Value::Str`] (percent-decoded, `+` read as a
//! space); a templated value (`{site}`, `{{ site }}`, `$SITE`) is [`Value::Expr`]. `key=` gives
//! `Value::Str("")`; a bare `key` gives `Value::Str("")` with an empty value range at the key's
//! end. Repeated keys are separate entries. List and detail URLs are taken: a detail URL
//! (`/api/dcim/devices/7/?brief=1`, `/api/dcim/devices/{id}/?fields=name`) keeps its id segment
//! in the target, and `rest` checks its query as a detail view reads it ([`detail_split`]).

use std::ops::Range;

use percent_encoding::percent_decode_str;

use super::{CallForm, CompactString, FilterEntry, OffsetMap, RestCall, Site, Syntax, Value};

/// Sites found in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    // The searcher is built once (SIMD, where `str::match_indices` reads every byte); the
    // matches are the same, in order and without overlaps.
    static API: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("/api/"));
    let mut out = Vec::new();
    for at in API.find_iter(text.as_bytes()) {
        if let Some(call) = url_at(text, at, map).or_else(|| bare_path_at(text, at, map)) {
            out.push(Site::Rest(call));
        }
    }
    out
}

/// The distinct list endpoint paths the URL scan finds in `text` (target text and host range
/// of the first mention of each), in document order: where a bare filter dict goes when
/// exactly one is named. Detail URLs are not among them (a dict beside one is not its query).
pub(crate) fn endpoints(text: &str, map: &OffsetMap) -> Vec<(CompactString, Range<usize>)> {
    let mut out: Vec<(CompactString, Range<usize>)> = Vec::new();
    for site in extract(text, map) {
        if let Site::Rest(RestCall {
            target: Some(t), ..
        }) = site
        {
            if detail_split(&t.0).is_some() {
                continue;
            }
            if !out.iter().any(|(p, _)| *p == t.0) {
                out.push(t);
            }
        }
    }
    out
}

/// A list-endpoint path without a query string (`/api/dcim/device/`, `GET /api/ipam/ip_addresses/`):
/// a site with no filters, so that a path NetBox answers with 404 is reported
/// (`unknown-endpoint`, issue 8 §7). The path must end the URL (whitespace, quote, bracket,
/// sentence punctuation, the text's end): `/api/dcim/devices/{id}/` or `/api/dcim/$EP/` is
/// a template, not a path.
fn bare_path_at(text: &str, at: usize, map: &OffsetMap) -> Option<RestCall> {
    let bytes = text.as_bytes();
    let end = list_path_end(text, at)?;
    let ends_url = match bytes.get(end) {
        None => true,
        Some(&b) => b.is_ascii_whitespace() || b"\"'`)]>,;:!#|*".contains(&b),
    };
    if !ends_url {
        return None;
    }
    // Trailing dots end a sentence (`... /api/ipam/ip_addresses.`); a dot inside the last
    // segment (`devices.json`) is no list path.
    let mut end = end;
    while bytes[end - 1] == b'.' {
        end -= 1;
    }
    if text[at..end].trim_end_matches('/').contains('.') {
        return None;
    }
    // `users`, `core` and `extras` are also other APIs' words (`/api/users/me/` on GitHub):
    // a bare path there is read only when it is a known NetBox endpoint.
    let mut segments = text[at + "/api/".len()..end].split('/');
    let (app, endpoint) = (segments.next()?, segments.next().unwrap_or(""));
    let netbox_app = app == "plugins" || super::forms::APPS.contains(&app);
    let generic = matches!(app, "users" | "core" | "extras");
    if !netbox_app || generic && !super::forms::known_endpoint(&format!("{app}/{endpoint}")) {
        return None;
    }
    let mut start = at;
    while start > 0 && is_prefix_byte(bytes[start - 1]) {
        start -= 1;
    }
    let path = at..end;
    Some(RestCall {
        form: CallForm::Url,
        syntax: Syntax::Query,
        target: Some((text[path.clone()].into(), map.range_to_host(path))),
        call_range: map.range_to_host(start..end),
        filters_range: None,
        filters: Vec::new(),
        args: Vec::new(),
        declared: false,
    })
}

fn is_segment_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'
}

/// Characters that may precede `/api/` in the same URL (scheme, host, port, template).
fn is_prefix_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:/@%[]{}$+".contains(&b)
}

/// End of a list-endpoint path starting at `at` (the `/` of `/api/`): `/api/<app>/<slug>/` or
/// `/api/plugins/<plugin>/<slug>/`, trailing slash optional; `None` for any other path.
pub(crate) fn list_path_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = at + "/api/".len();
    let mut segments = Vec::new();
    loop {
        let seg_start = i;
        while i < bytes.len() && is_segment_byte(bytes[i]) {
            i += 1;
        }
        if i == seg_start {
            break;
        }
        segments.push(&text[seg_start..i]);
        if bytes.get(i) == Some(&b'/') {
            i += 1;
        } else {
            break;
        }
    }
    let wanted = if segments.first() == Some(&"plugins") {
        3
    } else {
        2
    };
    (segments.len() == wanted).then_some(i)
}

/// End of a detail path starting at `at` (the `/` of `/api/`): a list path followed by one
/// object id (see [`id_end`]) and an optional `/`, ending the path (a `?`, a blank, a quote,
/// the text's end: `/api/dcim/devices/7/napalm/` is no detail view). `None` for any other path.
pub(crate) fn detail_path_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = id_end(bytes, collection_end(text, at)?)?;
    if bytes.get(i) == Some(&b'/') {
        i += 1;
    }
    let continues = bytes
        .get(i)
        .is_some_and(|&b| is_segment_byte(b) || b"/{<$%:".contains(&b));
    (!continues).then_some(i)
}

/// End of `/api/<app>/<slug>/` or `/api/plugins/<plugin>/<slug>/` at `at`, after the slash
/// that ends the slug (where a detail path's id starts); `None` for a shorter path.
fn collection_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = at + "/api/".len();
    let mut wanted = 2;
    for n in 1.. {
        let start = i;
        while i < bytes.len() && is_segment_byte(bytes[i]) {
            i += 1;
        }
        if i == start || bytes.get(i) != Some(&b'/') {
            return None;
        }
        if n == 1 && &text[start..i] == "plugins" {
            wanted = 3;
        }
        i += 1;
        if n == wanted {
            break;
        }
    }
    Some(i)
}

/// End of an object id starting at `at`: digits, or a placeholder the code or the prose fills
/// in (`{id}`, `{{ item.id }}`, `<id>`, `:id`, `$ID`, `${ID}`, `%s`, `%d`, `%(id)s`, `{}`, or an
/// upper-case word such as `ID`, `DEVICE_ID`). `None` for anything else (a slug, a name).
fn id_end(bytes: &[u8], at: usize) -> Option<usize> {
    let word = |from: usize| {
        let mut i = from;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            i += 1;
        }
        i
    };
    let first = *bytes.get(at)?;
    let end = match first {
        b'0'..=b'9' => {
            let mut i = at;
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        }
        b'{' if bytes.get(at + 1) == Some(&b'}') => at + 2,
        b'{' | b'<' => placeholder_end(bytes, at)?,
        b':' | b'$' if bytes.get(at + 1).is_some_and(u8::is_ascii_alphabetic) => word(at + 1),
        b'$' if bytes.get(at + 1) == Some(&b'{') => {
            let close = bytes[at..].iter().take(66).position(|&b| b == b'}')?;
            at + close + 1
        }
        b'%' => match bytes.get(at + 1)? {
            b's' | b'd' | b'i' => at + 2,
            b'(' => {
                let close = bytes[at..].iter().take(66).position(|&b| b == b')')?;
                let t = at + close + 1;
                matches!(bytes.get(t), Some(b's' | b'd' | b'i')).then_some(t + 1)?
            }
            _ => return None,
        },
        b'A'..=b'Z' => {
            let end = word(at);
            let upper = bytes[at..end]
                .iter()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_');
            if !upper {
                return None;
            }
            end
        }
        _ => return None,
    };
    (end > at).then_some(end)
}

/// A detail target (`/api/dcim/devices/42/`, `https://nb/api/dcim/devices/{id}`) split into
/// its list path (`/api/dcim/devices/`, up to and with the slash before the id) and the id as
/// written (`42`, `{id}`); `None` for a list path or anything else. The target may start with
/// a scheme and host, as URL targets do not.
pub fn detail_split(target: &str) -> Option<(&str, &str)> {
    let at = target.find("/api/")?;
    let list = collection_end(target, at)?;
    let end = detail_path_end(target, at)?;
    if end != target.len() {
        return None;
    }
    let id = target[list..end].trim_end_matches('/');
    Some((&target[..list], id))
}

/// The URL whose path starts at `at` (the `/` of `/api/`).
fn url_at(text: &str, at: usize, map: &OffsetMap) -> Option<RestCall> {
    url_with(text, at, map, false)
}

/// The URL call whose path starts at `at` in `text`, one shell word as the command receives it
/// (`super::shell`): its query string runs to the word's end or a `#` fragment, so quotes,
/// brackets and blanks in it are bytes of the values sent.
pub(crate) fn word_url_call(text: &str, at: usize, map: &OffsetMap) -> Option<RestCall> {
    url_with(text, at, map, true)
}

/// [`url_at`], or [`word_url_call`] when `word`.
fn url_with(text: &str, at: usize, map: &OffsetMap, word: bool) -> Option<RestCall> {
    let bytes = text.as_bytes();
    let i = detail_path_end(text, at).or_else(|| list_path_end(text, at))?;
    if bytes.get(i) != Some(&b'?') {
        return None;
    }
    let path = at..i;
    let query_start = i + 1;
    let mut start = at;
    while start > 0 && is_prefix_byte(bytes[start - 1]) {
        start -= 1;
    }
    let query_end = if word {
        text[query_start..]
            .find('#')
            .map_or(text.len(), |k| query_start + k)
    } else {
        query_end(bytes, query_start, Opener::of(bytes, start))
    };
    if query_end <= query_start {
        return None;
    }
    let mut filters = pairs(text, query_start..query_end, map);
    // Cut at a backslash: the URL sits in an escaped string (`\u00fc`, `\/`) and the last
    // value is not known.
    if !word && bytes.get(query_end) == Some(&b'\\') {
        if let Some(last) = filters.last_mut() {
            last.value = Value::Expr;
        }
    }
    if filters.is_empty() {
        return None;
    }
    Some(RestCall {
        form: CallForm::Url,
        syntax: Syntax::Query,
        target: Some((text[path.clone()].into(), map.range_to_host(path))),
        call_range: map.range_to_host(start..query_end),
        filters_range: Some(map.range_to_host(query_start..query_end)),
        filters,
        args: Vec::new(),
        declared: false,
    })
}

/// What the URL stands in, read from the byte before it: a string or code span (its quote
/// ends the URL, and brackets, `>` and the other quote are part of the value: `'...?name=a]'`,
/// `"...?name='x'"` sends the single quotes), a Markdown link target `](` or autolink `<`
/// (their `)` / `>` end it), or bare text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opener {
    Quoted(u8),
    Link,
    Angle,
    Bare,
}

impl Opener {
    fn of(bytes: &[u8], start: usize) -> Opener {
        match start.checked_sub(1).map(|i| bytes[i]) {
            Some(q @ (b'"' | b'\'' | b'`')) => Opener::Quoted(q),
            Some(b'(') if start >= 2 && bytes[start - 2] == b']' => Opener::Link,
            Some(b'<') => Opener::Angle,
            _ => Opener::Bare,
        }
    }
}

/// End of the query string starting at `start`: at whitespace, the quote that opened the
/// string it stands in, a bracket that closes something opened before the URL, a fragment, or
/// (in bare text) trailing sentence punctuation. Brackets the value opens itself (a regex
/// `[0-9]+`, a name `edge (old)`) are part of it.
fn query_end(bytes: &[u8], start: usize, opener: Opener) -> usize {
    let quoted = matches!(opener, Opener::Quoted(_));
    let mut depth = 0i32;
    let mut square = 0i32;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        let stop = match b {
            b if b.is_ascii_whitespace() => true,
            b if Opener::Quoted(b) == opener => true,
            // Inside a string the other quotes, `|` and `>` are characters of the value.
            b'"' | b'\'' | b'|' | b'>' if quoted => false,
            b'>' => opener == Opener::Angle || opener == Opener::Bare,
            // `<id>`, `<each device>`, `<acc03|acc04>`, `{device_id}`, `{{ site }}` are template
            // placeholders inside the value, not the URL's end.
            b'<' | b'{' => match placeholder_end(bytes, i) {
                Some(end) => {
                    i = end;
                    continue;
                }
                None => b == b'<',
            },
            b'"' | b'\'' | b'`' | b'\\' | b'|' | b'#' | 0 => true,
            b'(' => {
                depth += 1;
                false
            }
            b')' => {
                depth -= 1;
                depth < 0 && !quoted
            }
            b'[' => {
                square += 1;
                false
            }
            b']' => {
                square -= 1;
                square < 0 && !quoted
            }
            _ => false,
        };
        if stop {
            break;
        }
        i += 1;
    }
    if quoted {
        return i;
    }
    // Trailing punctuation and Markdown emphasis are prose, as GitHub's autolinker reads them
    // (`**/api/...?status=active**`, `...?status=active.`); a bare `=...` is a placeholder.
    let full = i;
    while i > start && b".,;:!?*_~".contains(&bytes[i - 1]) {
        i -= 1;
    }
    if i > start && bytes[i - 1] == b'=' && bytes[i..full].starts_with(b"...") {
        i += 3;
    }
    i
}

/// End (exclusive) of a template placeholder starting at `at`: `<...>` or `{...}` / `{{ ... }}`
/// on one line, at most 64 bytes inside, holding a letter or digit and none of the characters
/// that end a URL in prose or code (quotes, backticks, another opener); `None` for any other
/// `<` or `{`.
fn placeholder_end(bytes: &[u8], at: usize) -> Option<usize> {
    let (open, close) = match bytes[at] {
        b'<' => (b'<', b'>'),
        _ => (b'{', b'}'),
    };
    let braces = if open == b'{' && bytes.get(at + 1) == Some(&b'{') {
        2
    } else {
        1
    };
    let inner_start = at + braces;
    let rest = bytes.get(inner_start..)?;
    let len = rest.iter().take(65).position(|&b| {
        b == close || b == open || b"\n\r\"'`\\".contains(&b) || (open == b'<' && b == b'=')
    })?;
    if len == 0 || len > 64 || rest[len] != close {
        return None;
    }
    let inner = &rest[..len];
    if !inner.iter().any(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let mut end = inner_start + len;
    for _ in 0..braces {
        if bytes.get(end) != Some(&close) {
            return None;
        }
        end += 1;
    }
    Some(end)
}

/// The `key=value` pairs of the query string at `range` of `text`, with ranges into `text`.
pub(crate) fn query_pairs(text: &str, range: Range<usize>) -> Vec<FilterEntry> {
    pairs(text, range, &OffsetMap::identity(0, text.len()))
}

/// The `key=value` pairs of the query string in `range`.
pub(crate) fn pairs(text: &str, range: Range<usize>, map: &OffsetMap) -> Vec<FilterEntry> {
    let mut out = Vec::new();
    let first = range.start;
    let mut pos = first;
    for piece in text[range].split('&') {
        let mut piece_start = pos;
        pos += piece.len() + 1;
        // `&amp;` in HTML (`<a href="...?a=1&amp;b=2">`) is the separator `&`.
        let piece = match piece.strip_prefix("amp;") {
            Some(p) if piece_start > first => {
                piece_start += 4;
                p
            }
            _ => piece,
        };
        if piece.is_empty() {
            continue;
        }
        let (key_raw, value) = match piece.find('=') {
            Some(eq) => {
                let v = piece_start + eq + 1..piece_start + piece.len();
                (&piece[..eq], v)
            }
            None => (piece, piece_start + piece.len()..piece_start + piece.len()),
        };
        // An empty key, or a templated one (`?{key}={value}` in an f-string, `?<filter>=x`),
        // names no filter that can be judged.
        if key_raw.is_empty() || key_raw.contains(['{', '}']) || super::is_placeholder(key_raw, "")
        {
            continue;
        }
        let raw_value = &text[value.clone()];
        let key = decode(key_raw);
        let value_lit = if super::is_placeholder(raw_value, &key) {
            Value::Expr
        } else {
            Value::Str(decode(raw_value).into())
        };
        out.push(FilterEntry {
            key: key.into(),
            key_range: map.range_to_host(piece_start..piece_start + key_raw.len()),
            value: value_lit,
            value_range: map.range_to_host(value),
        });
    }
    out
}

// Lookups NetBox generates on no endpoint (Django spellings): a filter snippet using one is
// wrong wherever it stands (issue 8 §7); and NetBox's own lookups, which a snippet may use on a
// filter that has them on no endpoint (`vlan_id__gte`, issue 19 §4). The lists the REST checks
// use.
use crate::index::suffixes::{NETBOX_LOOKUPS, NEVER_LOOKUPS as NEVER};

/// Filter snippets without an endpoint in the inline code of a Markdown host that mentions
/// NetBox (`primary_ip4__isnull=false`, `status=active&site_id__in=1,2`,
/// `{"id__in": [1, 2]}`, `vlan_id__gte=100`), outside the code blocks in `blocks`. Only spans
/// that are nothing but filters and use at least one lookup (of [`NEVER`] or NetBox's) are
/// taken, so Django ORM code
/// (`Device.objects.filter(...)`, Python fences) and prose are never read as NetBox filters.
pub fn filter_snippets(text: &str, blocks: &[Range<usize>]) -> Vec<Site> {
    // "netbox" in any ASCII case, found without a lowercased copy of the whole text.
    static NETBOX: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let netbox = NETBOX.get_or_init(|| regex::Regex::new("(?i-u)netbox").expect("valid regex"));
    if !netbox.is_match(text) {
        return Vec::new();
    }
    // "In a block": blocks sorted by start, with the furthest end so far, searched by halves
    // (a scan of every block per code span was quadratic in a 20 MB skill file).
    let mut sorted: Vec<(usize, usize)> = blocks.iter().map(|r| (r.start, r.end)).collect();
    sorted.sort_unstable();
    let mut furthest = 0;
    let ends: Vec<usize> = sorted
        .iter()
        .map(|&(_, end)| {
            furthest = furthest.max(end);
            furthest
        })
        .collect();
    let in_block = |at: usize| {
        let k = sorted.partition_point(|&(start, _)| start <= at);
        k > 0 && ends[k - 1] > at
    };
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let mut i = 0;
        let b = line.as_bytes();
        while let Some(open) = line[i..].find('`').map(|o| i + o) {
            let Some(close) = line[open + 1..].find('`').map(|c| open + 1 + c) else {
                break;
            };
            let at = line_start + open;
            if b.get(open + 1) != Some(&b'`') && !in_block(at) {
                if let Some(call) = snippet(text, line_start + open + 1..line_start + close) {
                    out.push(Site::Rest(call));
                }
            }
            i = close + 1;
        }
        line_start += line.len();
    }
    out
}

fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

fn has_lookup(key: &str) -> bool {
    key.rsplit_once("__")
        .is_some_and(|(_, l)| NEVER.contains(&l) || NETBOX_LOOKUPS.contains(&l))
}

/// The snippet in `body` (host bytes), if it is only filters and uses a lookup.
fn snippet(text: &str, body: Range<usize>) -> Option<RestCall> {
    let src = &text[body.clone()];
    let map = OffsetMap::identity(0, text.len());
    let filters = if src.trim_start().starts_with('{') {
        dict_snippet(src, body.start)?
    } else {
        if src.contains([' ', '?', '/', '(']) {
            return None;
        }
        let entries = pairs(text, body.clone(), &map);
        if entries.is_empty() || !entries.iter().all(|e| is_name(&e.key)) {
            return None;
        }
        entries
    };
    if !filters.iter().any(|e| has_lookup(&e.key)) {
        return None;
    }
    Some(RestCall {
        form: CallForm::Snippet,
        syntax: Syntax::Query,
        target: None,
        call_range: body.clone(),
        filters_range: Some(body),
        filters,
        args: Vec::new(),
        declared: false,
    })
}

/// `{"id__in": [1, 2], "status": "active"}`: a JSON object whose keys are all filter names.
/// Key ranges are exact; values are not judged (they are [`Value::Expr`]).
fn dict_snippet(src: &str, base: usize) -> Option<Vec<FilterEntry>> {
    let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_str(src).ok()?;
    let mut out = Vec::new();
    let mut from = 0;
    for key in obj.keys() {
        if !is_name(key) {
            return None;
        }
        let quoted = format!("\"{key}\"");
        let at = from + src[from..].find(&quoted)?;
        from = at + quoted.len();
        let r = base + at + 1..base + at + 1 + key.len();
        out.push(FilterEntry {
            key: key.as_str().into(),
            key_range: r.clone(),
            value: Value::Expr,
            value_range: r.end + 1..r.end + 1,
        });
    }
    Some(out)
}

/// Percent-decoding with `+` as a space (form encoding, as Django reads query strings).
fn decode(s: &str) -> String {
    let plus = s.replace('+', " ");
    percent_decode_str(&plus).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> RestCall {
        match extract(text, &OffsetMap::identity(0, text.len())).pop() {
            Some(Site::Rest(c)) => c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn prose_url() {
        let t = "See https://nb.example.com/api/dcim/devices/?role_id=3&status=active&tag=a%20b.";
        let c = one(t);
        assert_eq!(c.target.as_ref().unwrap().0, "/api/dcim/devices/");
        assert_eq!(c.filters.len(), 3);
        assert_eq!(&t[c.filters[0].key_range.clone()], "role_id");
        assert_eq!(c.filters[2].value, Value::Str("a b".into()));
        assert_eq!(&t[c.call_range.clone()], &t[4..t.len() - 1]);
    }

    #[test]
    fn empty_and_bare_values() {
        let t = "/api/ipam/prefixes/?tenant_id=&q&vrf_id={vrf}";
        let c = one(t);
        assert_eq!(c.filters[0].value, Value::Str(Default::default()));
        assert_eq!(c.filters[1].key, "q");
        assert_eq!(c.filters[2].value, Value::Expr);
    }

    #[test]
    fn bare_paths_of_other_apis_skipped() {
        let t =
            "/api/users/me/ /api/core/settings/ /api/extras/foo/ /api/v1/users/ /api/auth/login/";
        assert!(extract(t, &OffsetMap::identity(0, t.len())).is_empty());
        let t = "/api/users/tokens/ /api/extras/tags/";
        assert_eq!(extract(t, &OffsetMap::identity(0, t.len())).len(), 2);
    }

    #[test]
    fn bare_detail_and_other_paths_skipped() {
        let t = "/api/status/?x=1 /api/dcim/devices/{id}/ /api/dcim/devices/7/ /api/dcim/$EP/ /api/dcim/devices.json /api/dcim/racks/1/elevation/?face=front";
        assert!(extract(t, &OffsetMap::identity(0, t.len())).is_empty());
    }

    /// A detail URL keeps its id in the target, whatever placeholder the id is written as.
    #[test]
    fn detail_urls() {
        for (t, target) in [
            ("/api/dcim/devices/7/?brief=1", "/api/dcim/devices/7/"),
            ("/api/dcim/devices/7?brief=1", "/api/dcim/devices/7"),
            (
                "https://nb/api/dcim/devices/{id}/?brief=1",
                "/api/dcim/devices/{id}/",
            ),
            (
                "/api/dcim/devices/{{ item.id }}/?brief=1",
                "/api/dcim/devices/{{ item.id }}/",
            ),
            ("/api/dcim/devices/<id>/?brief=1", "/api/dcim/devices/<id>/"),
            ("/api/dcim/devices/:id/?brief=1", "/api/dcim/devices/:id/"),
            ("/api/dcim/devices/$ID/?brief=1", "/api/dcim/devices/$ID/"),
            (
                "/api/dcim/devices/${ID}/?brief=1",
                "/api/dcim/devices/${ID}/",
            ),
            ("/api/dcim/devices/%s/?brief=1", "/api/dcim/devices/%s/"),
            (
                "/api/dcim/devices/%(pk)d/?brief=1",
                "/api/dcim/devices/%(pk)d/",
            ),
            ("/api/dcim/devices/{}/?brief=1", "/api/dcim/devices/{}/"),
            (
                "/api/dcim/devices/DEVICE_ID/?brief=1",
                "/api/dcim/devices/DEVICE_ID/",
            ),
            (
                "/api/plugins/bgp/sessions/3/?brief=1",
                "/api/plugins/bgp/sessions/3/",
            ),
        ] {
            let c = one(t);
            assert_eq!(c.target.as_ref().unwrap().0, target, "{t}");
            assert_eq!(c.filters[0].key, "brief", "{t}");
            let (list, _) = detail_split(target).unwrap();
            assert!(list.ends_with('/') && list.matches('/').count() >= 4, "{t}");
        }
        assert_eq!(
            detail_split("/api/dcim/devices/42/"),
            Some(("/api/dcim/devices/", "42"))
        );
        for not in [
            "/api/dcim/devices/",
            "/api/dcim/devices/name/",
            "/api/dcim/devices/42/napalm/",
            "/api/dcim/devices/Device1/",
            "/api/dcim/devices/42/x",
        ] {
            assert_eq!(detail_split(not), None, "{not}");
        }
        // A dict beside a detail URL is not its query: no endpoint for it.
        let t = "GET /api/dcim/devices/42/?brief=1";
        assert!(endpoints(t, &OffsetMap::identity(0, t.len())).is_empty());
    }

    #[test]
    fn list_path_without_query_has_no_filters() {
        let t = "List them with `GET https://nb/api/dcim/device/`, then /api/ipam/ip_addresses.";
        let sites = extract(t, &OffsetMap::identity(0, t.len()));
        let calls: Vec<&RestCall> = sites
            .iter()
            .map(|s| match s {
                Site::Rest(c) => c,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].target.as_ref().unwrap().0, "/api/dcim/device/");
        assert_eq!(
            &t[calls[0].call_range.clone()],
            "https://nb/api/dcim/device/"
        );
        assert!(calls[0].filters.is_empty() && calls[0].filters_range.is_none());
        assert_eq!(
            calls[1].target.as_ref().unwrap().0,
            "/api/ipam/ip_addresses"
        );
    }

    #[test]
    fn placeholders_with_spaces_and_bars() {
        for (t, n) in [
            ("/api/dcim/interfaces/?device_id=<each device>&name=eth0", 2),
            ("/api/dcim/interfaces/?device=<acc03|acc04>", 1),
            ("/api/dcim/power-outlets/?device=<12 HVL pdus>&x=1", 2),
            ("/api/dcim/devices/?site={{ site }}&status=active", 2),
            ("/api/dcim/devices/?site={site slug}", 1),
        ] {
            let c = one(t);
            assert_eq!(c.filters.len(), n, "{t}");
            assert_eq!(c.filters[0].value, Value::Expr, "{t}");
            assert_eq!(&t[c.call_range.clone()], t, "{t}");
        }
        // An HTML tag after a space ends the URL; `<` with `=` inside is not a placeholder.
        let c = one("/api/dcim/devices/?status=active <b>x</b>");
        assert_eq!(c.filters[0].value, Value::Str("active".into()));
    }

    #[test]
    fn filter_snippets_only_in_netbox_markdown() {
        let t = "NetBox filters: `primary_ip4__isnull=false`, `{\"id__in\": [1, 2]}`, `status=active`, `Device.objects.filter(name__icontains=x)`.\n";
        let sites = filter_snippets(t, &[]);
        assert_eq!(sites.len(), 2);
        let Site::Rest(c) = &sites[1] else { panic!() };
        assert_eq!(&t[c.filters[0].key_range.clone()], "id__in");
        assert!(filter_snippets("Django: `name__isnull=true`", &[]).is_empty());
    }

    /// A span is skipped when any block holds its opening backtick, whatever the blocks' order
    /// or nesting (they are searched by halves).
    #[test]
    fn filter_snippets_skip_spans_in_blocks() {
        let span = "`a__isnull=true`";
        let t = format!("NetBox\n{span} {span} {span} {span}\n");
        let at: Vec<usize> = t.match_indices(span).map(|(i, _)| i).collect();
        let found = |blocks: &[Range<usize>]| -> Vec<usize> {
            filter_snippets(&t, blocks)
                .iter()
                .map(|s| match s {
                    Site::Rest(c) => c.call_range.start - 1,
                    _ => unreachable!(),
                })
                .collect()
        };
        assert_eq!(found(&[]), at);
        // Unsorted, nested, empty and touching blocks.
        let blocks = [
            at[3]..at[3] + 1,
            at[0]..at[2],
            at[0] + 1..at[0] + 2,
            at[2]..at[2],
            at[2] + 1..at[3],
        ];
        assert_eq!(found(&blocks), [at[2]]);
        for b in &blocks {
            let naive: Vec<usize> = at.iter().copied().filter(|&a| !b.contains(&a)).collect();
            assert_eq!(found(std::slice::from_ref(b)), naive);
        }
    }

    #[test]
    fn plugins() {
        let c = one("(/api/plugins/bgp/sessions/?status=active)");
        assert_eq!(c.target.unwrap().0, "/api/plugins/bgp/sessions/");
        assert_eq!(c.filters[0].value, Value::Str("active".into()));
    }
}
