//! The shell commands that send NetBox filters (curl, wget, httpie; rows of the call-form
//! table with [`super::forms::Host::Shell`]), read as the shell passes their words, and how
//! their calls replace the host-wide URL scan's reading of the same URLs.

use super::shell::{self, Piece, Run};
use super::{curl, forms, httpie, wget, OffsetMap, RestCall, Site};
use crate::finding::Finding;

/// The calls of the curl, wget and httpie commands in `text` (ranges mapped to the host
/// through `map`).
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut out = curl::extract(text, map);
    out.extend(wget::extract(text, map));
    out.extend(httpie::extract(text, map));
    out
}

/// Adds to `sites` (command calls) the URL sites of the same text that no command read: a
/// command's URL is read once, as the shell passes it. A command call and the URL scan's site
/// of its URL start at the same host byte (the URL's first byte after any quote), though they
/// may end apart (`curl …?name='x y'`: the scan stops at the quote).
pub fn merge_urls(sites: &mut Vec<Site>, urls: Vec<Site>) {
    let taken: std::collections::HashSet<usize> = sites
        .iter()
        .filter_map(|s| match s {
            Site::Rest(c) => Some(c.call_range.start),
            _ => None,
        })
        .collect();
    for site in urls {
        if !matches!(&site, Site::Rest(c) if taken.contains(&c.call_range.start)) {
            sites.push(site);
        }
    }
}

/// The names of the shell commands of the call-form table (`curl`, `wget`, `http`, `https`).
fn names() -> Vec<&'static str> {
    forms::FORMS
        .iter()
        .filter_map(|f| match f.callee {
            forms::Callee::Command { names, .. } => Some(names),
            _ => None,
        })
        .flatten()
        .copied()
        .fold(Vec::new(), |mut out, n| {
            if !out.contains(&n) {
                out.push(n);
            }
            out
        })
}

/// True when `text` names one of the shell commands as a command somewhere.
pub fn names_a_command(text: &str) -> bool {
    names().iter().any(|name| {
        text.match_indices(name)
            .any(|(at, _)| shell::command_at(text, at, name))
    })
}

/// Keeps the fixes of `findings` (from checking `call`, found in host `text`) that can be
/// written into the shell command holding the call as the shell will read them: every edit
/// inside one verbatim run of one word, its new text written for that run's quoting (`&` in an
/// unquoted word as `\&`); in an httpie `==` item, no `&`, `%` or `=` (httpie encodes the
/// value, and `k=v` is a body item). A fix with an edit across quotes, an escape or an
/// expansion is dropped (the finding stays), as is one that needs a shell escape in a command
/// held in a JSON document. Calls outside a shell command are left alone.
pub fn guard_fixes(text: &str, call: &RestCall, findings: &mut [Finding]) {
    if !findings.iter().any(|f| !f.fixes.is_empty()) {
        return;
    }
    let names = names();
    let Some((name, words)) = shell::command_words(text, call.call_range.start, &names) else {
        return;
    };
    let httpie = httpie::is_name(name);
    // A command held in a JSON string (a hook event, a recorded tool call, a notebook): a
    // backslash the shell needs would have to be escaped again for JSON; such a fix is not
    // offered (the finding stays).
    let in_json = text.trim_start().starts_with(['{', '[']);
    let pieces: Vec<&Piece> = words.iter().flat_map(|w| &w.pieces).collect();
    for f in findings.iter_mut() {
        f.fixes.retain_mut(|fix| {
            fix.edits.iter_mut().all(|e| {
                let in_word = words
                    .iter()
                    .any(|w| w.range.start <= e.range.start && e.range.end <= w.range.end);
                if !in_word {
                    // An edit outside the command's words is no shell text.
                    return true;
                }
                if httpie
                    && e.new_text.contains(['&', '%', '='])
                    && httpie::in_item(&words, &e.range)
                {
                    return false;
                }
                let piece = pieces
                    .iter()
                    .find(|p| p.range.start <= e.range.start && e.range.end <= p.range.end);
                match piece {
                    Some(p) if p.run == Run::Verbatim => {
                        match shell::written(p.quoting, &e.new_text) {
                            Some(s) if in_json && s != e.new_text => false,
                            Some(s) => {
                                e.new_text = s;
                                true
                            }
                            None => false,
                        }
                    }
                    _ => false,
                }
            })
        });
    }
}
