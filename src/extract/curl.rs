//! curl commands that send NetBox filters as data appended to the URL: `curl -G <url> -d k=v`
//! (`--get`; data options `-d`, `--data`, `--data-ascii`, `--data-raw`, `--data-urlencode`), in
//! shell scripts, shell fences of Markdown and plain text. With `-G` curl appends every data
//! argument to the URL's query string, joined with `&` (curl(1), `-G, --get`); without it the
//! data is a POST body and no filter at all, so such a command is not a filter call.
//!
//! The spellings (command name, `-G` options, data options) are the call-form table's row
//! `forms::CURL_GET`; this module reads them. The call form:
//! - endpoint: the URL argument (`/api/<app>/<model>/`, with or without scheme and host);
//! - filters: the URL's own query pairs, then each data argument in order;
//! - values: `-d`/`--data*` text is sent as written (percent-encoded by the writer), so it is read
//!   like a URL query string ([`Syntax::Query`]); `--data-urlencode name=content` sends `content`
//!   percent-encoded by curl, so its value is read as written, and fixes that would write `&`
//!   or `%` into it are not offered (see [`keeps_urlencode`]).
//!
//! Shell words are read with their quotes ('…', "…", backslash escapes, `\` line continuations);
//! `$VAR`, `${VAR}` and `$(…)` values are placeholders.

use std::ops::Range;

use super::forms;
use super::text::{detail_path_end, list_path_end, pairs, url_call};
use super::{CallForm, FilterEntry, OffsetMap, RestCall, Site, Syntax, Value};
use crate::finding::Finding;

/// curl options that take the next word as their argument (long and short), besides the data
/// options: so that an option's argument is never read as the URL.
const TAKES_ARG: &[&str] = &[
    "-H",
    "--header",
    "-X",
    "--request",
    "-o",
    "--output",
    "-u",
    "--user",
    "-A",
    "--user-agent",
    "-e",
    "--referer",
    "-b",
    "--cookie",
    "-c",
    "--cookie-jar",
    "-w",
    "--write-out",
    "-x",
    "--proxy",
    "-m",
    "--max-time",
    "--connect-timeout",
    "--cacert",
    "--capath",
    "-E",
    "--cert",
    "--key",
    "-K",
    "--config",
    "-T",
    "--upload-file",
    "-F",
    "--form",
    "-r",
    "--range",
    "--retry",
    "--resolve",
    "--oauth2-bearer",
    "-U",
    "--proxy-user",
];

/// The command's spellings, from the call-form table's row ([`forms::CURL_GET`]): its name,
/// the options that make data a query string, the data options (the next word is appended
/// to the query string) and the options whose value curl percent-encodes.
struct Spelling {
    name: &'static str,
    get: &'static [&'static str],
    data: &'static [&'static str],
    urlencode: &'static [&'static str],
    url_option: &'static str,
}

fn spelling() -> Option<Spelling> {
    let f = forms::CURL_GET;
    match (f.callee, f.filters, f.target) {
        (
            forms::Callee::Command { name, get },
            forms::FiltersAt::Data { data, urlencode },
            forms::TargetAt::UrlWord { url_option },
        ) => Some(Spelling {
            name,
            get,
            data,
            urlencode,
            url_option,
        }),
        _ => None,
    }
}

/// The short flag letter of a `-X` option (`-G` → `G`).
fn short_letter(options: &[&str]) -> Option<char> {
    options.iter().find_map(|o| {
        let c = o.strip_prefix('-').filter(|r| !r.starts_with('-'))?;
        let mut it = c.chars();
        let l = it.next()?;
        it.next().is_none().then_some(l)
    })
}

/// One shell word: its text with quotes removed, and where that text lies in the input.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    /// Input range of the whole word, quotes included.
    range: Range<usize>,
    /// Input range of `text` when the word is one piece (unquoted without escapes, or wholly
    /// inside one pair of quotes without escapes): byte `i` of `text` is input byte
    /// `content.start + i`. `None` for words made of several pieces.
    content: Option<Range<usize>>,
}

/// Sites of the curl `-G` commands in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut out = Vec::new();
    let Some(sp) = spelling() else {
        return out;
    };
    let bytes = text.as_bytes();
    let n = sp.name.len();
    for (at, _) in text.match_indices(sp.name) {
        let before_ok = at == 0 || b" \t\n;|&(`$\"'".contains(&bytes[at - 1]);
        let after_ok = bytes
            .get(at + n)
            .is_some_and(|b| *b == b' ' || *b == b'\t' || *b == b'\\');
        if !before_ok || !after_ok {
            continue;
        }
        let words = words(text, at + n);
        if let Some(call) = command(text, &words, map, &sp) {
            out.push(Site::Rest(call));
        }
    }
    out
}

/// Adds to `sites` (curl calls) the URL sites of the same text that are not the URL of one of
/// them: a curl command's URL is read once, with its data (a curl call's range is its URL's).
pub fn merge_urls(sites: &mut Vec<Site>, urls: Vec<Site>) {
    let taken: Vec<Range<usize>> = sites
        .iter()
        .filter_map(|s| match s {
            Site::Rest(c) => Some(c.call_range.clone()),
            _ => None,
        })
        .collect();
    for site in urls {
        if !matches!(&site, Site::Rest(c) if taken.contains(&c.call_range)) {
            sites.push(site);
        }
    }
}

/// The shell words of the command whose name ends at `from`: up to an unquoted line end (a
/// `\` before it continues the line), `|`, `;`, `&`, `)`, a backtick or a `#` comment.
fn words(text: &str, from: usize) -> Vec<Word> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    loop {
        // Blanks and line continuations between words.
        while i < b.len() {
            if b[i] == b' ' || b[i] == b'\t' || b[i] == b'\r' {
                i += 1;
            } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                i += 2;
            } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n')
            {
                i += 3;
            } else {
                break;
            }
        }
        if i >= b.len() || b"\n|;&)`#".contains(&b[i]) || out.len() > 200 {
            return out;
        }
        let start = i;
        let mut text_out = String::new();
        let mut pieces = 0;
        let mut content = None;
        let mut plain = true;
        while i < b.len() && !b" \t\r\n|;&)`".contains(&b[i]) {
            match b[i] {
                q @ (b'\'' | b'"') => {
                    let close = match text[i + 1..].find(q as char) {
                        Some(c) => i + 1 + c,
                        None => return out,
                    };
                    let inner = &text[i + 1..close];
                    if q == b'"' && inner.contains('\\') {
                        plain = false;
                    }
                    text_out.push_str(inner);
                    content = Some(i + 1..close);
                    pieces += 1;
                    i = close + 1;
                }
                b'\\' => {
                    plain = false;
                    if let Some(c) = text[i + 1..].chars().next() {
                        text_out.push(c);
                        i += 1 + c.len_utf8();
                    } else {
                        i += 1;
                    }
                }
                _ => {
                    let s = i;
                    while i < b.len() && !b" \t\r\n|;&)`'\"\\".contains(&b[i]) {
                        // `$(...)` may hold blanks: keep it in the word (its value is unknown).
                        if b[i] == b'$' && b.get(i + 1) == Some(&b'(') {
                            plain = false;
                            i = text[i..].find(')').map_or(b.len(), |c| i + c + 1);
                            continue;
                        }
                        i += 1;
                    }
                    text_out.push_str(&text[s..i]);
                    content = Some(s..i);
                    pieces += 1;
                }
            }
        }
        out.push(Word {
            text: text_out,
            range: start..i,
            content: (pieces == 1 && plain).then_some(content).flatten(),
        });
    }
}

/// The filter call of one curl command (its words after `curl`), when it has `-G` and a
/// NetBox list endpoint URL. Its range is the URL's.
fn command(text: &str, words: &[Word], map: &OffsetMap, sp: &Spelling) -> Option<RestCall> {
    let get_letter = short_letter(sp.get).unwrap_or('G');
    let data_letter = short_letter(sp.data).unwrap_or('d');
    let mut get = false;
    let mut url: Option<&Word> = None;
    let mut data: Vec<(&Word, bool)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let t = w.text.as_str();
        let next = words.get(i + 1);
        if sp.get.contains(&t) {
            get = true;
        } else if sp.data.contains(&t) || sp.urlencode.contains(&t) {
            if let Some(n) = next {
                data.push((n, sp.urlencode.contains(&t)));
            }
            i += 1;
        } else if t == sp.url_option {
            url = url.or(next);
            i += 1;
        } else if TAKES_ARG.contains(&t) {
            i += 1;
        } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.starts_with('-')) {
            // A bundle of short flags (`-sG`, `-Gd`): `G` sets --get; a trailing `d` takes the
            // next word, `-dkey=v` carries it.
            if let Some(pos) = flags.find(data_letter) {
                get |= flags[..pos].contains(get_letter);
                if pos + 1 == flags.len() {
                    if let Some(n) = next {
                        data.push((n, false));
                    }
                    i += 1;
                }
                // `-dk=v` (data attached) is left unread: rare, and its range differs.
            } else {
                get |= flags.contains(get_letter);
                let last = flags.chars().last().map(|c| format!("-{c}"));
                if last.is_some_and(|l| TAKES_ARG.contains(&l.as_str())) {
                    i += 1;
                }
            }
        } else if url.is_none() && t.contains("/api/") {
            url = Some(w);
        }
        i += 1;
    }
    if !get || data.is_empty() {
        return None;
    }
    let url = url?;
    let ucontent = url.content.clone()?;
    let rel = url.text.find("/api/")?;
    let path_at = ucontent.start + rel;
    let end = detail_path_end(text, path_at).or_else(|| list_path_end(text, path_at))?;
    let mut call = match url_call(text, path_at, map) {
        Some(c) => c,
        None => RestCall {
            form: CallForm::Url,
            syntax: Syntax::Query,
            target: Some((
                text[path_at..end].to_string(),
                map.range_to_host(path_at..end),
            )),
            call_range: map.range_to_host(ucontent.clone()),
            filters_range: None,
            filters: Vec::new(),
            args: Vec::new(),
            declared: false,
        },
    };
    for (w, urlencode) in data {
        let Some(content) = w.content.clone() else {
            continue;
        };
        if w.text.starts_with('@') {
            continue;
        }
        let from = call.filters.len();
        if urlencode {
            call.filters.extend(urlencoded(text, content, map));
        } else {
            call.filters.extend(pairs(text, content, map));
        }
        // The shell expands `$(…)`, `${…}`, `$VAR` and backticks anywhere in an unquoted or
        // double-quoted word (not only at a value's start): such a value is not known.
        if !text[w.range.clone()].starts_with('\'') {
            for e in &mut call.filters[from..] {
                let raw = text.get(e.value_range.clone()).unwrap_or("");
                if shell_expands(raw) {
                    e.value = Value::Expr;
                }
            }
        }
    }
    // The call's range stays its URL's (as the URL scan reads it), so that the same URL found
    // by the host-wide scan is a duplicate of this call, not a second call.
    Some(call)
}

/// True when the shell would expand part of `raw` (`$(…)`, `${…}`, `$NAME`, a backtick).
fn shell_expands(raw: &str) -> bool {
    raw.contains('`')
        || raw.match_indices('$').any(|(i, _)| {
            raw[i + 1..]
                .chars()
                .next()
                .is_some_and(|c| c == '(' || c == '{' || c == '_' || c.is_ascii_alphabetic())
        })
}

/// `--data-urlencode name=content`: one filter whose value curl percent-encodes itself (read as
/// written). The `=content`, `content` and `name@file` forms carry no filter name.
fn urlencoded(text: &str, content: Range<usize>, map: &OffsetMap) -> Option<FilterEntry> {
    let s = &text[content.clone()];
    let eq = s.find('=')?;
    let key = &s[..eq];
    if key.is_empty() || key.contains('@') {
        return None;
    }
    let raw = &s[eq + 1..];
    let value = if super::is_placeholder(raw, key) {
        Value::Expr
    } else {
        Value::Str(raw.to_string())
    };
    Some(FilterEntry {
        key: key.to_string(),
        key_range: map.range_to_host(content.start..content.start + eq),
        value,
        value_range: map.range_to_host(content.start + eq + 1..content.end),
    })
}

/// False when `f` has a fix edit that writes `&` or `%` into the value of a
/// `--data-urlencode` argument of `call` (curl would percent-encode it: `k=1&k=2` would become
/// one value). Such fixes are removed by [`guard_fixes`].
fn keeps_urlencode(text: &str, call: &RestCall, edit: &Range<usize>, new_text: &str) -> bool {
    if !new_text.contains(['&', '%']) {
        return true;
    }
    !call.filters.iter().any(|e| {
        let pair = e.key_range.start..e.value_range.end;
        pair.start <= edit.start && edit.end <= pair.end && after_urlencode(text, e.key_range.start)
    })
}

/// True when the shell word holding host offset `at` follows a `--data-urlencode` option.
fn after_urlencode(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or("");
    let word_start = before.rfind([' ', '\t', '\n']).map_or(0, |i| i + 1);
    let option = before[..word_start].trim_end_matches([' ', '\t', '\n', '\\']);
    spelling().is_some_and(|sp| sp.urlencode.iter().any(|o| option.ends_with(o)))
}

/// Drops the fixes of `findings` (from checking `call`) that would break a `--data-urlencode`
/// argument (see [`keeps_urlencode`]). `text` is the host text the ranges point into.
pub fn guard_fixes(text: &str, call: &RestCall, findings: &mut [Finding]) {
    let encoding = spelling().is_some_and(|sp| sp.urlencode.iter().any(|o| text.contains(o)));
    if call.form != CallForm::Url || !encoding {
        return;
    }
    guard_fixes_in(text, call, findings);
}

/// True when some fix of `findings` writes `&` or `%`: only such fixes can break a
/// `--data-urlencode` argument, so [`guard_fixes`] has nothing to do without one.
pub fn may_break_urlencode(findings: &[Finding]) -> bool {
    findings
        .iter()
        .flat_map(|f| &f.fixes)
        .flat_map(|fix| &fix.edits)
        .any(|e| e.new_text.contains(['&', '%']))
}

/// [`guard_fixes`] for a host text already known to hold `--data-urlencode` (the caller looks
/// once per text: one look per call made a 20 MB skill file's check quadratic).
pub fn guard_fixes_in(text: &str, call: &RestCall, findings: &mut [Finding]) {
    if call.form != CallForm::Url {
        return;
    }
    for f in findings.iter_mut() {
        f.fixes.retain(|fix| {
            fix.edits
                .iter()
                .all(|e| keeps_urlencode(text, call, &e.range, &e.new_text))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(t: &str) -> Vec<RestCall> {
        extract(t, &OffsetMap::identity(0, t.len()))
            .into_iter()
            .filter_map(|s| match s {
                Site::Rest(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn get_with_data() {
        let t = "curl -sG \"$NB/api/dcim/devices/?status=active\" \\\n  -H 'Accept: application/json' \\\n  -d role=leaf --data-urlencode 'site=dc 1' -d 'tag=a&tag=b'\n";
        let c = &calls(t)[0];
        assert_eq!(c.target.as_ref().unwrap().0, "/api/dcim/devices/");
        let keys: Vec<&str> = c.filters.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["status", "role", "site", "tag", "tag"]);
        assert_eq!(c.filters[2].value, Value::Str("dc 1".into()));
        assert_eq!(&t[c.filters[1].key_range.clone()], "role");
        assert_eq!(&t[c.filters[2].value_range.clone()], "dc 1");
        assert_eq!(
            &t[c.call_range.clone()],
            "$NB/api/dcim/devices/?status=active"
        );
    }

    #[test]
    fn post_and_other_commands_skipped() {
        for t in [
            "curl -X POST https://nb/api/dcim/devices/ -d '{\"name\": \"x\"}'",
            "curl https://nb/api/dcim/devices/?status=active",
            "mycurl -G /api/dcim/devices/ -d status=active",
            "curl -G https://example.com/search -d q=x",
            // Other APIs' `curl -G` (restated from public files): no NetBox list endpoint.
            "curl -G 'https://api.example.kr/api/151/v1/uddi:9024' --data-urlencode 'page=1'",
            "curl -G -v -X DELETE --data-urlencode \"id=http://h:9182/metrics\" http://localhost:3002/v1/services/x",
            "curl -G 'http://127.0.0.1:7076/query?db=mydb' --data-urlencode 'q=select * from cpu'",
            "curl -GET http://192.168.1.50:8098/dkr/scripts/list.txt -o list.txt",
            "curl -G https://api.github.com/search/repositories --data-urlencode \"q=topic:AI created:>$(date -v-7d '+%Y-%m-%d')\"",
        ] {
            assert!(calls(t).is_empty(), "{t}");
        }
    }

    #[test]
    fn placeholders_and_unclosed_quotes() {
        let t = "curl --get $NETBOX/api/ipam/prefixes/ -d \"site=${SITE}\" -d vrf_id=$(get_vrf x) -d \"vlan_id=1$N\" -d 'q=a$b'";
        let c = &calls(t)[0];
        assert_eq!(c.filters.len(), 3);
        assert_eq!(c.filters[0].value, Value::Expr);
        assert_eq!(c.filters[1].value, Value::Expr);
        assert_eq!(c.filters[2].value, Value::Str("a$b".into()));
        assert!(calls("curl -G /api/dcim/devices/ -d 'status=act").is_empty());
    }
}
