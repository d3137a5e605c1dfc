//! URL expressions: the endpoint path in a string, f-string, concatenation, `urljoin(...)` or a
//! name bound to one of these (as [`super::values`] folds them), its filters in `params` and in
//! the URL's own query string or `urlencode({...})`, and whether a client wrapper's path names a
//! NetBox endpoint by itself.

use compact_str::CompactString;
use std::ops::Range;

use ruff_python_ast::Expr;

use super::arguments::Call;
use super::semantic::{At, Holes};
use super::values::{Piece, Template, Values};
use crate::extract::forms::{self, APPS};
use crate::extract::lit::Lit;
use crate::extract::tools;
use crate::extract::{CallForm, FilterEntry, RestCall, Site, Syntax, Value};

impl<'a> Values<'a> {
    /// A REST call through an HTTP client: the endpoint path in the URL `url` (a string, an
    /// f-string, a concatenation, `urljoin(...)`, or a name bound to one of these), its
    /// filters in `params` and in the URL's own query string or `urlencode({...})`.
    /// `api_relative`: the URL is an endpoint relative to `/api/` (code mode's `api()`).
    pub(super) fn url_call(
        &self,
        url: &'a Expr,
        api_relative: bool,
        params: Option<&Lit>,
        call: &Call<'_, 'a>,
    ) -> Vec<Site> {
        let mut parts = self.url_parts(url, call.at);
        if api_relative {
            parts.insert(0, UrlPart::Dynamic);
        }
        let found = match self.url_path(&parts) {
            Some((k, path, relative)) => {
                let target = (self.src[path.clone()].to_string(), path.clone());
                Some((k, path, target, relative))
            }
            None => self.url_path_joined(&parts),
        };
        let Some((k, path, target, relative)) = found else {
            return Vec::new();
        };
        let UrlPart::Text(piece) = parts[k].clone() else {
            return Vec::new();
        };
        // `f"{NB}/api/dcim/devices/{device_id}/"`: a detail URL, whose id is a hole; the target
        // says so (`rest` reads a detail URL's query as the detail view does), its range stays
        // the list path's.
        let detail = path.end == piece.end
            && target.0.ends_with('/')
            && matches!(parts.get(k + 1), Some(UrlPart::Dynamic))
            && matches!(parts.get(k + 2), Some(UrlPart::Text(r))
                if self.src[r.clone()].starts_with(['/', '?']));
        let mut written = target.0;
        if detail {
            written.push_str("{id}/");
        }
        let target = (CompactString::from(written), self.host(target.1));
        let mut out = Vec::new();
        if let Some(pairs) = params.and_then(|p| p.pairs()) {
            out.push(Site::Rest(RestCall {
                form: CallForm::Url,
                syntax: Syntax::Python,
                target: Some(target.clone()),
                call_range: call.call_range.clone(),
                filters_range: params.map(|p| p.range.clone()),
                filters: tools::entries(pairs),
                args: Vec::new(),
                declared: false,
            }));
        }
        let rest = &self.src[path.end..piece.end];
        let next = parts.get(k + 1);
        // `... + "?" + urlencode({...})` / `f"...?{urlencode(q)}"`.
        let encoded = parts[k + 1..].iter().find_map(|p| match p {
            UrlPart::Encoded(d) => Some(d),
            _ => None,
        });
        if let Some(dict) = encoded.filter(|_| rest.starts_with('?') || rest.is_empty()) {
            if let Some(pairs) = dict.pairs() {
                out.push(Site::Rest(RestCall {
                    form: CallForm::Url,
                    syntax: Syntax::Python,
                    target: Some(target.clone()),
                    call_range: dict.range.clone(),
                    filters_range: Some(dict.range.clone()),
                    filters: tools::entries(pairs),
                    args: Vec::new(),
                    declared: false,
                }));
            }
        } else if relative && rest.starts_with('?') && rest.len() > 1 {
            // A query string after a base-relative path (the `/api/` form is found by the URL
            // scan of every string). Interpolated values are placeholders, interpolated names
            // are skipped, a value cut by a concatenation is unknown.
            let q = path.end + 1..piece.end;
            let mut filters: Vec<FilterEntry> =
                crate::extract::text::query_pairs(self.src, q.clone())
                    .into_iter()
                    .filter(|e| !e.key.contains(['{', '}']))
                    .map(|mut e| {
                        e.key_range = self.host(e.key_range);
                        e.value_range = self.host(e.value_range);
                        e
                    })
                    .collect();
            if piece.end == q.end && matches!(next, Some(UrlPart::Dynamic)) {
                if let Some(last) = filters.last_mut() {
                    last.value = Value::Expr;
                }
            }
            if !filters.is_empty() {
                out.push(Site::Rest(RestCall {
                    form: CallForm::Url,
                    syntax: Syntax::Query,
                    target: Some(target),
                    call_range: self.host(path.start..q.end),
                    filters_range: Some(self.host(q)),
                    filters,
                    args: Vec::new(),
                    declared: false,
                }));
            }
        }
        out
    }

    /// The endpoint path in `parts`: the part index, the path's embedded range, and whether it
    /// is base-relative (`/dcim/devices/` after an interpolated or concatenated base that ends
    /// in `/api`) rather than written with `/api/`.
    fn url_path(&self, parts: &[UrlPart]) -> Option<(usize, Range<usize>, bool)> {
        for (k, part) in parts.iter().enumerate() {
            let UrlPart::Text(r) = part else {
                continue;
            };
            let raw = self.src.get(r.clone())?;
            let end_ok =
                |raw: &str, end: usize| matches!(raw.as_bytes().get(end), None | Some(b'?'));
            if let Some(at) = raw.find("/api/") {
                let end = crate::extract::text::list_path_end(raw, at)?;
                return end_ok(raw, end).then(|| (k, r.start + at..r.start + end, false));
            }
            // The base: known only at run time, or a constant that ends in `/api`.
            let after_base = k > 0
                && match &parts[k - 1] {
                    UrlPart::Dynamic => true,
                    UrlPart::Text(b) => self
                        .src
                        .get(b.clone())
                        .is_some_and(|b| b.trim_end_matches('/').ends_with("/api")),
                    UrlPart::Encoded(_) => false,
                };
            if after_base {
                let rel = raw.trim_start_matches('/');
                let lead = raw.len() - rel.len();
                let probe = format!("/api/{rel}");
                let app = rel.split('/').next().unwrap_or("");
                if let Some(end) =
                    crate::extract::text::list_path_end(&probe, 0).map(|e| e - 5 + lead)
                {
                    if (APPS.contains(&app) || app == "plugins") && end_ok(raw, end) {
                        return Some((k, r.start..r.start + end, true));
                    }
                }
            }
            if raw.contains('?') {
                return None;
            }
        }
        None
    }

    /// The endpoint path `/api/<app>/<endpoint>/` written across consecutive text parts of
    /// different literals (`f"{NB}/api/{endpoint}/"` with `endpoint` bound to
    /// `"dcim/devices"` by a helper's caller): the part index and the embedded range of the
    /// path's end in it, and the target, `<app>/<endpoint>` as written in the one literal that
    /// holds it (where a finding on it lands). `None` when no literal holds it whole.
    #[allow(clippy::type_complexity)]
    fn url_path_joined(
        &self,
        parts: &[UrlPart],
    ) -> Option<(usize, Range<usize>, (String, Range<usize>), bool)> {
        let mut k = 0;
        while k < parts.len() {
            // A run of text parts from `k`.
            let mut joined = String::new();
            let mut segs: Vec<(usize, usize, Range<usize>)> = Vec::new();
            let mut j = k;
            while let Some(UrlPart::Text(r)) = parts.get(j) {
                segs.push((joined.len(), j, r.clone()));
                joined.push_str(self.src.get(r.clone())?);
                j += 1;
            }
            if segs.len() >= 2 {
                if let Some(at) = joined.find("/api/") {
                    let end = crate::extract::text::list_path_end(&joined, at)?;
                    if !matches!(joined.as_bytes().get(end), None | Some(b'?')) {
                        return None;
                    }
                    let inner = at + 5..joined[..end].trim_end_matches('/').len();
                    let seg_of = |off: usize| {
                        segs.iter()
                            .rev()
                            .find(|(start, _, _)| *start <= off)
                            .cloned()
                    };
                    let (s_start, _, s_raw) = seg_of(inner.start)?;
                    if inner.end > s_start + s_raw.len() || inner.is_empty() {
                        return None;
                    }
                    let target_range =
                        s_raw.start + inner.start - s_start..s_raw.start + inner.end - s_start;
                    let (e_start, e_part, e_raw) = seg_of(end - 1)?;
                    let path_end = e_raw.start + end - e_start;
                    let path_start = if e_part == seg_of(at)?.1 {
                        e_raw.start + at - e_start
                    } else {
                        e_raw.start
                    };
                    let text = joined[inner].to_string();
                    return Some((e_part, path_start..path_end, (text, target_range), true));
                }
            }
            k = j.max(k + 1);
        }
        None
    }

    /// Flattens a URL expression into literal text pieces (embedded ranges of string content),
    /// run-time pieces and `urlencode({...})` pieces, in order (the template of the value).
    fn url_parts(&self, n: &'a Expr, at: At) -> Vec<UrlPart> {
        let mut t = Template::default();
        self.template(n, at, Holes::Plain, 0, &mut t);
        let mut out = Vec::with_capacity(t.pieces.len());
        for p in t.pieces {
            match p {
                Piece::Text { raw, .. } => {
                    if raw.is_empty() {
                        continue;
                    }
                    match out.last_mut() {
                        // Pieces of one string's content (around `{{`): keep one piece.
                        Some(UrlPart::Text(p)) if p.end == raw.start => p.end = raw.end,
                        _ => out.push(UrlPart::Text(raw)),
                    }
                }
                Piece::Hole { .. } => out.push(UrlPart::Dynamic),
                Piece::Encoded(l) => out.push(UrlPart::Encoded(l)),
            }
        }
        out
    }
}

/// True when a wrapper's path literal names a NetBox endpoint by itself: `/api/<app>/...`
/// (also after a scheme and host) for a NetBox app or `plugins`, or `<app>/<endpoint>/` (with
/// or without a leading `/`) of a known endpoint. Apps whose names other APIs use too
/// (`users`, `core`, `extras`: `/api/users/profile`) need a known endpoint in both spellings.
/// A query string may follow.
pub(super) fn wrapper_path(path: &str) -> bool {
    // The path before the query string, and the first `/api/` in it: one loop over the bytes
    // (most strings are short, and hold neither; a searcher's set-up costs more).
    let b = path.as_bytes();
    let mut end = b.len();
    let mut api = None;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'?' => {
                end = i;
                break;
            }
            b'/' if api.is_none() && b[i..].starts_with(b"/api/") => api = Some(i),
            _ => {}
        }
    }
    let path = &path[..end];
    // The app and `<app>/<endpoint>` of `rest` (its `/` at both ends trimmed), slices of it
    // (`<app>` alone when no endpoint follows: the known-endpoint table trims the `/` that
    // `<app>/` would end with).
    fn key_of(rest: &str) -> (&str, &str) {
        let b = rest.as_bytes();
        let start = b.iter().position(|&c| c != b'/').unwrap_or(b.len());
        let end = b.iter().rposition(|&c| c != b'/').map_or(start, |i| i + 1);
        let rest = &rest[start..end];
        let b = rest.as_bytes();
        let Some(slash) = b.iter().position(|&c| c == b'/') else {
            return (rest, rest);
        };
        let app = &rest[..slash];
        let ep_end = b[slash + 1..]
            .iter()
            .position(|&c| c == b'/')
            .map_or(b.len(), |j| slash + 1 + j);
        let key = if ep_end == slash + 1 {
            app
        } else {
            &rest[..ep_end]
        };
        (app, key)
    }
    if let Some(at) = api {
        let before = &path[..at];
        // Only the host may come before `/api/` (`https://nb.example.com/api/...`).
        let host_only = match before.split_once("://") {
            Some((_, host)) => !host.contains('/'),
            None => before.is_empty(),
        };
        if !host_only {
            return false;
        }
        let (app, key) = key_of(&path[at + 5..]);
        let generic = matches!(app, "users" | "core" | "extras");
        return app == "plugins" || APPS.contains(&app) && (!generic || forms::known_endpoint(key));
    }
    let rel = path.strip_prefix("api/").unwrap_or(path);
    let (app, key) = key_of(rel);
    APPS.contains(&app) && forms::known_endpoint(key)
}

/// True when `src` holds `/api/<app>/` for a NetBox app or `/api/plugins/` (an app other APIs
/// use too, `users`, `core`, `extras`, with a known endpoint: see [`wrapper_path`]).
pub(super) fn api_app_in(src: &str) -> bool {
    src.match_indices("/api/").any(|(at, _)| {
        let rest = &src[at + 5..];
        let mut it = rest.split('/');
        let (app, ep) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
        let generic = matches!(app, "users" | "core" | "extras");
        rest.len() > app.len()
            && (app == "plugins"
                || APPS.contains(&app)
                    && (!generic || forms::known_endpoint(&format!("{app}/{ep}"))))
    })
}

/// A piece of a URL expression.
#[derive(Clone)]
enum UrlPart {
    /// Literal text: the embedded range of a string's content.
    Text(Range<usize>),
    /// Known only at run time (an interpolation, a variable, a call).
    Dynamic,
    /// `urlencode({...})`: the dict.
    Encoded(Lit),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wrapper_path` as it was written with `str`'s searchers and owned keys: the byte loops
    /// take the same paths.
    fn wrapper_path_before(path: &str) -> bool {
        let path = path.split('?').next().unwrap_or("");
        let key_of = |rest: &str| {
            let rest = rest.trim_matches('/');
            let mut it = rest.splitn(3, '/');
            let (app, ep) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
            (app.to_string(), format!("{app}/{ep}"))
        };
        if let Some(at) = path.find("/api/") {
            let before = &path[..at];
            let host_only = match before.split_once("://") {
                Some((_, host)) => !host.contains('/'),
                None => before.is_empty(),
            };
            if !host_only {
                return false;
            }
            let (app, key) = key_of(&path[at + 5..]);
            let generic = matches!(app.as_str(), "users" | "core" | "extras");
            return app == "plugins"
                || APPS.contains(&app.as_str()) && (!generic || forms::known_endpoint(&key));
        }
        let rel = path.strip_prefix("api/").unwrap_or(path);
        let (app, key) = key_of(rel);
        APPS.contains(&app.as_str()) && forms::known_endpoint(&key)
    }

    #[test]
    fn wrapper_paths_read_as_before() {
        let heads = [
            "",
            "/",
            "//",
            "api/",
            "/api/",
            "https://nb.example.com/api/",
            "https://nb/x/api/",
            "http://h/api//",
            "x/api/",
            "?",
            "/api?/",
            "/ap/api/",
            "é/api/",
        ];
        let tails = [
            "",
            "dcim",
            "dcim/",
            "dcim/devices",
            "dcim/devices/",
            "/dcim/devices/",
            "dcim//devices/",
            "dcim/devices/1/",
            "users",
            "users/users/",
            "users/profile/",
            "core/jobs/",
            "extras/tags/",
            "plugins",
            "plugins/bgp/sessions/",
            "ipam/prefixes/?q=1",
            "api/dcim/devices/",
            "dcim.site",
            "virtualization.virtualmachine",
            "dcim/dévices/",
            "xetbox",
            "?dcim/devices/",
        ];
        for h in heads {
            for t in tails {
                let path = format!("{h}{t}");
                assert_eq!(wrapper_path(&path), wrapper_path_before(&path), "{path:?}");
            }
        }
        assert!(wrapper_path("/api/dcim/devices/"));
        assert!(wrapper_path("dcim/devices/"));
        assert!(!wrapper_path("dcim.site"));
    }
}
