//! curl commands: the URL word as the shell passes it to curl (row `forms::CURL`), and with
//! `-G` the data appended to it (row `forms::CURL_GET`: `curl -G <url> -d k=v`, `--get`; data
//! options `-d`, `--data`, `--data-ascii`, `--data-raw`, `--data-urlencode`), in shell scripts,
//! shell fences of Markdown, YAML and plain text. With `-G` curl appends every data argument to
//! the URL's query string, joined with `&` (curl(1), `-G, --get`); without it the data is a
//! POST body and no filter at all.
//!
//! The spellings (command name, `-G` options, data options) are the call-form table's rows;
//! this module reads them. The call form:
//! - endpoint: the URL argument (`/api/<app>/<model>/`, with or without scheme and host);
//! - filters: the URL's own query pairs, then each data argument in order;
//! - values: words are read as the shell reads them ([`super::shell`]: `curl "…?name='x'"`
//!   sends the quotes, `curl …?name='x'` and `curl $'…'` do not); the URL's query and
//!   `-d`/`--data*` text are sent as written (percent-encoded by the writer), so they are read
//!   like a URL query string ([`super::Syntax::Query`]); `--data-urlencode name=content` sends
//!   `content` percent-encoded by curl, so its value is read as written, and fixes that would
//!   write `&` or `%` into it are not offered (see [`keeps_urlencode`]). `$VAR`, `${VAR}` and
//!   `$(…)` values are placeholders.

use std::ops::Range;

use super::forms;
use super::shell::{self, Word};
use super::text::pairs;
use super::{CallForm, FilterEntry, OffsetMap, RestCall, Site, Value};
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
            forms::Callee::Command { names, get },
            forms::FiltersAt::Data { data, urlencode },
            forms::TargetAt::UrlWord { url_option },
        ) => Some(Spelling {
            name: names.first()?,
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

/// Sites of the curl commands in `text` (a URL word with a query string, or `-G` with data);
/// ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut out = Vec::new();
    let Some(sp) = spelling() else {
        return out;
    };
    let n = sp.name.len();
    for (at, _) in text.match_indices(sp.name) {
        if !shell::command_at(text, at, sp.name) {
            continue;
        }
        let words = shell::words(text, at + n);
        out.extend(command(&words, map, &sp).into_iter().map(Site::Rest));
    }
    out
}

/// The filter calls of one curl command (its words after `curl`): each URL word holding a
/// NetBox list endpoint, the first with the data of `-G`. A call's range is its URL's.
fn command(words: &[Word], map: &OffsetMap, sp: &Spelling) -> Vec<RestCall> {
    let get_letter = short_letter(sp.get).unwrap_or('G');
    let data_letter = short_letter(sp.data).unwrap_or('d');
    let mut get = false;
    let mut urls: Vec<&Word> = Vec::new();
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
            urls.extend(next);
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
        } else if t.contains("/api/") && !t.starts_with('-') {
            urls.push(w);
        }
        i += 1;
    }
    let mut out: Vec<RestCall> = Vec::new();
    for (k, url) in urls.iter().enumerate() {
        let with_data = k == 0 && get && !data.is_empty();
        let found = shell::url_call(url, map).or_else(|| {
            if with_data {
                shell::path_call(url, map)
            } else {
                None
            }
        });
        let Some(mut call) = found else {
            continue;
        };
        if with_data {
            add_data(&mut call, &data, map);
        }
        out.push(call);
    }
    out
}

/// Appends to `call` the filters of each `-G` data word (`true`: a `--data-urlencode` one).
fn add_data(call: &mut RestCall, data: &[(&Word, bool)], map: &OffsetMap) {
    for (w, urlencode) in data {
        if w.text.starts_with('@') {
            continue;
        }
        let composed = w.map.then(map);
        let mut found: Vec<FilterEntry> = if *urlencode {
            urlencoded(&w.text, 0..w.text.len(), &composed)
                .into_iter()
                .collect()
        } else {
            pairs(&w.text, 0..w.text.len(), &composed)
        };
        // The shell expands `$(…)`, `${…}`, `$VAR` and backticks anywhere in an unquoted or
        // double-quoted word (not only at a value's start): such a value is not known.
        shell::mark_expansions(w, map, &mut found);
        call.filters.extend(found);
    }
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
        Value::Str(raw.into())
    };
    Some(FilterEntry {
        key: key.into(),
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
        shell::rest_calls(extract(t, &OffsetMap::identity(0, t.len())))
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
        // Without `-G` the URL word itself is read, as the shell passes it.
        let c = &calls("curl https://nb/api/dcim/devices/?status=active")[0];
        assert_eq!(c.filters[0].value, Value::Str("active".into()));
    }

    #[test]
    fn placeholders_and_unclosed_quotes() {
        let t = "curl --get $NETBOX/api/ipam/prefixes/ -d \"site=${SITE}\" -d vrf_id=$(get_vrf x) -d \"vlan_id=1$N\" -d 'q=a$b'";
        let c = &calls(t)[0];
        // `$(get_vrf x)` is one word of the command, and `1$N` a value the shell expands.
        assert_eq!(c.filters.len(), 4);
        assert_eq!(c.filters[0].value, Value::Expr);
        assert_eq!(c.filters[1].value, Value::Expr);
        assert_eq!(c.filters[2].value, Value::Expr);
        assert_eq!(c.filters[3].value, Value::Str("a$b".into()));
        assert!(calls("curl -G /api/dcim/devices/ -d 'status=act").is_empty());
    }
}
