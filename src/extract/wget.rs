//! wget commands (GNU Wget manual, "Invoking"): each URL word as the shell passes it to wget
//! (row `forms::WGET`), read by [`super::shell`]: `wget "…?name='x'"` sends the quotes,
//! `wget …?name='x'` does not. The URL's query string is sent as written.

use super::forms;
use super::shell::{self, Word};
use super::{OffsetMap, Site};

/// Options whose argument is the next word (short, and long without `=`): never a URL.
const TAKES_ARG: &[&str] = &[
    "-O",
    "-o",
    "-a",
    "-P",
    "-e",
    "-t",
    "-T",
    "-w",
    "-U",
    "-i",
    "-B",
    "-l",
    "-Q",
    "-D",
    "--header",
    "--user",
    "--password",
    "--http-user",
    "--http-password",
    "--output-document",
    "--output-file",
    "--append-output",
    "--directory-prefix",
    "--execute",
    "--tries",
    "--timeout",
    "--wait",
    "--user-agent",
    "--input-file",
    "--base",
    "--referer",
    "--post-data",
    "--post-file",
    "--body-data",
    "--body-file",
    "--method",
    "--load-cookies",
    "--save-cookies",
    "--ca-certificate",
    "--certificate",
    "--private-key",
];

/// The command names of the row.
fn names() -> &'static [&'static str] {
    match forms::WGET.callee {
        forms::Callee::Command { names, .. } => names,
        _ => &[],
    }
}

/// Sites of the wget commands in `text`: one per URL word with a NetBox list path and a query
/// string; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut out = Vec::new();
    for name in names() {
        for (at, _) in text.match_indices(name) {
            if !shell::command_at(text, at, name) {
                continue;
            }
            let words = shell::words(text, at + name.len());
            for w in urls(&words) {
                out.extend(shell::url_call(w, map).map(Site::Rest));
            }
        }
    }
    out
}

/// The URL words among a command's `words` (option arguments skipped).
fn urls(words: &[Word]) -> Vec<&Word> {
    let mut out = Vec::new();
    let mut skip = false;
    for w in words {
        if std::mem::take(&mut skip) {
            continue;
        }
        if TAKES_ARG.contains(&w.text.as_str()) {
            skip = true;
        } else if !w.text.starts_with('-') && w.text.contains("/api/") {
            out.push(w);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{RestCall, Value};

    fn calls(t: &str) -> Vec<RestCall> {
        shell::rest_calls(extract(t, &OffsetMap::identity(0, t.len())))
    }

    #[test]
    fn url_words_as_the_shell_passes_them() {
        let t = "wget -qO- --header 'Authorization: Token x' http://h/api/dcim/devices/?name='edge 01'\\&statuss=active";
        let c = &calls(t)[0];
        let keys: Vec<&str> = c.filters.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["name", "statuss"]);
        assert_eq!(c.filters[0].value, Value::Str("edge 01".into()));
        assert_eq!(&t[c.filters[1].key_range.clone()], "statuss");
        assert!(calls("wget -O /tmp/api/x.json http://h/").is_empty());
    }
}
