//! URL expressions: the endpoint path in a string, f-string, concatenation, `urljoin(...)` or a
//! name bound to one of these, its filters in `params` and in the URL's own query string or
//! `urlencode({...})`, and whether a client wrapper's path names a NetBox endpoint by itself.

use std::collections::HashMap;
use std::ops::Range;

use ruff_python_ast::{self as ast, Expr, InterpolatedStringElement, Operator};
use ruff_text_size::Ranged;

use super::calls::Call;
use super::{span, Reader};
use crate::extract::forms::{self, APPS};
use crate::extract::lit::Lit;
use crate::extract::tools;
use crate::extract::{CallForm, FilterEntry, RestCall, Site, Syntax, Value};

impl Reader<'_> {
    /// A REST call through an HTTP client: the endpoint path in the URL `url` (a string, an
    /// f-string, a concatenation, `urljoin(...)`, or a name bound to one of these), its
    /// filters in `params` and in the URL's own query string or `urlencode({...})`.
    /// `api_relative`: the URL is an endpoint relative to `/api/` (code mode's `api()`).
    pub(super) fn url_call<'t>(
        &self,
        url: &'t Expr,
        api_relative: bool,
        params: Option<&Lit>,
        call: &Call<'_, 't>,
    ) -> Vec<Site> {
        let mut parts = Vec::new();
        self.url_parts(url, call.names, 0, &mut parts);
        if api_relative {
            parts.insert(0, UrlPart::Dynamic);
        }
        let Some((k, path, relative)) = self.url_path(&parts) else {
            return Vec::new();
        };
        let UrlPart::Text(piece) = parts[k].clone() else {
            return Vec::new();
        };
        // `f"{NB}/api/dcim/devices/{device_id}/"`: a detail URL, whose id is a hole; the target
        // says so (`rest` reads a detail URL's query as the detail view does), its range stays
        // the list path's.
        let detail = path.end == piece.end
            && self.src[path.clone()].ends_with('/')
            && matches!(parts.get(k + 1), Some(UrlPart::Dynamic))
            && matches!(parts.get(k + 2), Some(UrlPart::Text(r))
                if self.src[r.clone()].starts_with(['/', '?']));
        let mut written = self.src[path.clone()].to_string();
        if detail {
            written.push_str("{id}/");
        }
        let target = (written, self.host(path.clone()));
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

    /// Flattens a URL expression into literal text pieces (embedded ranges of string content),
    /// run-time pieces and `urlencode({...})` pieces, in order.
    fn url_parts<'t>(
        &self,
        n: &'t Expr,
        names: &HashMap<&str, Option<&'t Expr>>,
        depth: usize,
        out: &mut Vec<UrlPart>,
    ) {
        if depth > 8 {
            out.push(UrlPart::Dynamic);
            return;
        }
        let text = |r: Range<usize>, out: &mut Vec<UrlPart>| {
            if r.is_empty() {
                return;
            }
            match out.last_mut() {
                // Pieces of one string's content (around `{{`): keep one piece.
                Some(UrlPart::Text(p)) if p.end == r.start => p.end = r.end,
                _ => out.push(UrlPart::Text(r)),
            }
        };
        match n {
            Expr::StringLiteral(s) => {
                for p in s.value.iter() {
                    text(self.content(p.range), out);
                }
            }
            Expr::BytesLiteral(s) => {
                for p in s.value.iter() {
                    text(self.content(p.range), out);
                }
            }
            Expr::FString(s) => {
                for p in s.value.iter() {
                    match p {
                        ast::FStringPart::Literal(l) => text(self.content(l.range), out),
                        ast::FStringPart::FString(f) => {
                            for el in f.elements.iter() {
                                match el {
                                    InterpolatedStringElement::Literal(l) => {
                                        text(span(l.range), out)
                                    }
                                    InterpolatedStringElement::Interpolation(i) => {
                                        if self.is_urlencode(&i.expression) {
                                            self.url_parts(&i.expression, names, depth + 1, out)
                                        } else {
                                            out.push(UrlPart::Dynamic)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Expr::BinOp(b) if b.op == Operator::Add => {
                self.url_parts(&b.left, names, depth + 1, out);
                self.url_parts(&b.right, names, depth + 1, out);
            }
            Expr::Name(_) => match names.get(self.text(n.range())) {
                Some(Some(bound)) if !std::ptr::eq(*bound, n) => {
                    self.url_parts(bound, names, depth + 1, out)
                }
                _ => out.push(UrlPart::Dynamic),
            },
            Expr::Call(c) => {
                let func = match &*c.func {
                    Expr::Attribute(a) => Some(self.text(a.attr.range)),
                    Expr::Name(f) => Some(self.text(f.range)),
                    _ => None,
                };
                let mut positional = c.arguments.args.iter();
                match func {
                    // urljoin(base, "/api/dcim/devices/") keeps only the absolute path; a
                    // relative one is appended to the base.
                    Some("urljoin") => {
                        let (_, Some(rel)) = (positional.next(), positional.next()) else {
                            out.push(UrlPart::Dynamic);
                            return;
                        };
                        let mut tail = Vec::new();
                        self.url_parts(rel, names, depth + 1, &mut tail);
                        let absolute = matches!(tail.first(), Some(UrlPart::Text(r))
                            if self.src[r.clone()].starts_with('/'));
                        if !absolute {
                            out.push(UrlPart::Dynamic);
                        }
                        out.extend(tail);
                    }
                    Some("urlencode") => match positional.next() {
                        Some(d) => {
                            let open = Some(c.arguments.range.start().to_usize());
                            let lit = self.argument_literal(d, names, true, open);
                            if lit.pairs().is_some() {
                                out.push(UrlPart::Encoded(lit));
                            } else {
                                out.push(UrlPart::Dynamic);
                            }
                        }
                        None => out.push(UrlPart::Dynamic),
                    },
                    _ => out.push(UrlPart::Dynamic),
                }
            }
            _ => out.push(UrlPart::Dynamic),
        }
    }

    fn is_urlencode(&self, n: &Expr) -> bool {
        let Expr::Call(c) = n else {
            return false;
        };
        let name = match &*c.func {
            Expr::Attribute(a) => a.attr.range,
            f => f.range(),
        };
        self.text(name) == "urlencode"
    }
}

/// True when a wrapper's path literal names a NetBox endpoint by itself: `/api/<app>/...`
/// (also after a scheme and host) for a NetBox app or `plugins`, or `<app>/<endpoint>/` (with
/// or without a leading `/`) of a known endpoint. Apps whose names other APIs use too
/// (`users`, `core`, `extras`: `/api/users/profile`) need a known endpoint in both spellings.
/// A query string may follow.
pub(super) fn wrapper_path(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or("");
    let key_of = |rest: &str| {
        let rest = rest.trim_matches('/');
        let mut it = rest.splitn(3, '/');
        let (app, ep) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
        (app.to_string(), format!("{app}/{ep}"))
    };
    if let Some(at) = path.find("/api/") {
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
        let generic = matches!(app.as_str(), "users" | "core" | "extras");
        return app == "plugins"
            || APPS.contains(&app.as_str()) && (!generic || forms::known_endpoint(&key));
    }
    let rel = path.strip_prefix("api/").unwrap_or(path);
    let (app, key) = key_of(rel);
    APPS.contains(&app.as_str()) && forms::known_endpoint(&key)
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
