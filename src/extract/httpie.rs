//! httpie commands (`http`, `https`; httpie docs, "Request items"): the URL word and the
//! `name==value` items after it (row `forms::HTTPIE`), words read as the shell passes them
//! ([`super::shell`]). httpie appends each `==` item to the URL's query string, encoding the
//! value itself (so it is read as written, like curl's `--data-urlencode`); `=`, `:=` and `@`
//! items are a request body, which makes the default method POST: such a command, or one with
//! a method other than GET, sends no filters and is not read. The URL may lack the scheme and
//! host (`:8000/api/...`, `nb.example.com/api/...`).

use super::forms;
use super::shell::{self, Word};
use super::{FilterEntry, OffsetMap, RestCall, Site, Value};

/// Options whose argument is the next word: never the method or the URL.
const TAKES_ARG: &[&str] = &[
    "-a",
    "--auth",
    "-A",
    "--auth-type",
    "--session",
    "--session-read-only",
    "-o",
    "--output",
    "-p",
    "--print",
    "-P",
    "--history-print",
    "--pretty",
    "-s",
    "--style",
    "--format-options",
    "--verify",
    "--cert",
    "--cert-key",
    "--cert-key-pass",
    "--proxy",
    "--timeout",
    "--max-redirects",
    "--max-headers",
    "--default-scheme",
    "--ssl",
    "--ciphers",
    "--boundary",
    "--response-charset",
    "--response-mime",
    "--raw",
];

/// httpie's item separators, longest first at one position (httpie `cli/constants.py`
/// `SEPARATOR_GROUP_ALL_ITEMS`).
const SEPARATORS: &[&str] = &[":=@", "=@", ":=", "==", "=", ":", "@"];

/// The command names and the query item separator of the row.
fn spelling() -> Option<(&'static [&'static str], &'static str)> {
    match (forms::HTTPIE.callee, forms::HTTPIE.filters) {
        (forms::Callee::Command { names, .. }, forms::FiltersAt::Items { separator }) => {
            Some((names, separator))
        }
        _ => None,
    }
}

/// Sites of the httpie GET commands in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut out = Vec::new();
    let Some((names, query_sep)) = spelling() else {
        return out;
    };
    for name in names {
        for (at, _) in text.match_indices(name) {
            if !shell::command_at(text, at, name) {
                continue;
            }
            let words = shell::words(text, at + name.len());
            out.extend(command(&words, map, query_sep).map(Site::Rest));
        }
    }
    out
}

/// One item: its separator and where it starts in the item's text.
fn separator(item: &str) -> Option<(usize, &'static str)> {
    let b = item.as_bytes();
    (0..b.len())
        .filter(|&i| i == 0 || b[i - 1] != b'\\')
        .find_map(|i| {
            SEPARATORS
                .iter()
                .find(|s| item[i..].starts_with(**s))
                .map(|s| (i, *s))
        })
}

/// The index of the URL word among `words` and the method, when the command is httpie's
/// `[options] [METHOD] URL [items]`.
fn url_index(words: &[Word]) -> Option<(usize, Option<&str>)> {
    let mut i = 0;
    let mut method = None;
    while i < words.len() {
        let t = words[i].text.as_str();
        if TAKES_ARG.contains(&t) {
            i += 2;
            continue;
        }
        if t.starts_with('-') {
            i += 1;
            continue;
        }
        if method.is_none() && !t.is_empty() && t.bytes().all(|c| c.is_ascii_uppercase()) {
            method = Some(t);
            i += 1;
            continue;
        }
        return Some((i, method));
    }
    None
}

/// The filter call of one httpie command (its words after the name).
fn command(words: &[Word], map: &OffsetMap, query_sep: &str) -> Option<RestCall> {
    let (u, method) = url_index(words)?;
    let url = &words[u];
    if !url.text.contains("/api/") {
        return None;
    }
    let items = &words[u + 1..];
    let mut query: Vec<(&Word, usize)> = Vec::new();
    let mut body = false;
    for w in items {
        if w.text.starts_with('-') {
            continue;
        }
        match separator(&w.text) {
            Some((at, s)) if s == query_sep => query.push((w, at)),
            Some((_, ":")) => {}
            Some(_) => body = true,
            None => {}
        }
    }
    let get = match method {
        Some(m) => m == "GET",
        None => !body,
    };
    if !get {
        return None;
    }
    let mut call = match shell::url_call(url, map) {
        Some(c) => c,
        None if !query.is_empty() => shell::path_call(url, map)?,
        None => return None,
    };
    for (w, at) in query {
        let composed = w.map.then(map);
        let key = &w.text[..at];
        if key.is_empty() || key.contains('\\') {
            continue;
        }
        let value_start = at + query_sep.len();
        let raw = &w.text[value_start..];
        let value = if super::is_placeholder(raw, key) {
            Value::Expr
        } else {
            Value::Str(raw.into())
        };
        let mut entry = [FilterEntry {
            key: key.into(),
            key_range: composed.range_to_host(0..at),
            value,
            value_range: composed.range_to_host(value_start..w.text.len()),
        }];
        shell::mark_expansions(w, map, &mut entry);
        call.filters.extend(entry);
    }
    Some(call)
}

/// True when `name` is one of httpie's command names.
pub(crate) fn is_name(name: &str) -> bool {
    spelling().is_some_and(|(names, _)| names.contains(&name))
}

/// True when host offset range `r` lies in a `==` item of an httpie command of `words`: a fix
/// there must not write `&`, `%` or `=` (httpie encodes the value; `k=v` is a body item).
pub(crate) fn in_item(words: &[Word], r: &std::ops::Range<usize>) -> bool {
    let Some(query_sep) = spelling().map(|s| s.1) else {
        return false;
    };
    let Some((u, _)) = url_index(words) else {
        return false;
    };
    words[u + 1..].iter().any(|w| {
        w.range.start <= r.start
            && r.end <= w.range.end
            && separator(&w.text).is_some_and(|(_, s)| s == query_sep)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(t: &str) -> Vec<RestCall> {
        shell::rest_calls(extract(t, &OffsetMap::identity(0, t.len())))
    }

    #[test]
    fn query_items() {
        let t = "http -a admin:pw GET nb.example.com/api/dcim/devices/?limit=5 name=='edge 01' staus==active Accept:application/json";
        let c = &calls(t)[0];
        let keys: Vec<&str> = c.filters.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["limit", "name", "staus"]);
        assert_eq!(c.filters[1].value, Value::Str("edge 01".into()));
        assert_eq!(&t[c.filters[1].value_range.clone()], "edge 01");
        assert_eq!(&t[c.filters[2].key_range.clone()], "staus");
        assert_eq!(c.target.as_ref().unwrap().0, "/api/dcim/devices/");
    }

    #[test]
    fn bodies_and_other_methods_are_no_filters() {
        for t in [
            "http POST :8000/api/dcim/devices/ name=x status==active",
            "http :8000/api/dcim/devices/ name=x",
            "http PATCH :8000/api/dcim/devices/?id=3 status=active",
            "http GET https://example.com/search q==x",
        ] {
            assert!(calls(t).is_empty(), "{t}");
        }
        assert_eq!(
            calls("https :8000/api/dcim/sites/ slug==$SLUG")[0].filters[0].value,
            Value::Expr
        );
    }
}
