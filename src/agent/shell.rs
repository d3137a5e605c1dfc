//! Shell commands as an agent's shell tool runs them (Claude Code's `Bash` `command`): which of
//! their simple commands send a NetBox request, and where the filters and documents of those
//! requests are in the command line, so that each part is read as `check` reads it:
//!
//! - `curl` and `wget` (and every other word of their simple command): as a text host reads
//!   them ([`crate::extract::text`], [`crate::extract::curl`]: URLs with query strings,
//!   `curl -G -d k=v`), plus the JSON body of a `curl` request to a `/graphql/` URL (`-d`,
//!   `--data`, `--data-raw`, `--data-binary`, `--json`) as a JSON host reads `{"query": ...}`;
//! - HTTPie and xh (`http`, `https`, `xh`, `xhs`): a GET to a `/api/<app>/<endpoint>/` URL
//!   with its `name==value` query items (HTTPie's syntax for query string parameters; a request
//!   with data items is a POST and sends no filters);
//! - Python (`python`, `python3`, `python3.12`, ...): the code of `-c CODE`, or of a here
//!   document given as standard input (`python3 - <<'EOF'`), as a Python host reads it
//!   (requests, httpx, pynetbox, MCP tool calls).
//!
//! Any other command (`grep`, `echo`, `git`, ...) sends nothing, so a URL in it is not a call.
//! Words are read with their quotes (`'...'`, `"..."` with `\` escapes, `$'...'`, `\` outside
//! quotes, `\` line continuations); `$(...)` and backticks start a command of their own;
//! assignments (`NB=... curl`) and wrappers (`sudo`, `env`, `time`, `timeout 10`, `nohup`,
//! `exec`, `command`, `xargs`, `uv run`, `poetry run`) before a command name are skipped.
//!
//! A fix is kept only where it can be written back into the command as the shell reads it:
//! its text is quoted for the place it lands in (a `'` inside single quotes becomes `'\''`;
//! `"`, `\`, `$` and a backtick are escaped inside double quotes); a fix that would need a
//! shell special character in an unquoted word, or that lands inside an escape or a `$'...'`
//! string, is dropped (the finding stays, without that fix).

use crate::analysis::{analyze, Knowledge};
use crate::extract::{CallForm, FilterEntry, HostKind, OffsetMap, RestCall, Site, Syntax, Value};
use crate::finding::{Edit, Finding, Fix};
use std::ops::Range;

/// Tool names (compared case-insensitively) whose `command` string is a shell command line:
/// Claude Code's `Bash`, Gemini CLI's `run_shell_command`, Codex's `shell`, `local_shell`,
/// `shell_command` and `exec_command`, Cursor's `run_terminal_cmd`.
pub const SHELL_TOOLS: &[&str] = &[
    "bash",
    "shell",
    "run_shell_command",
    "local_shell",
    "shell_command",
    "exec_command",
    "run_terminal_cmd",
    "terminal",
];

/// True when `tool` names a shell tool ([`SHELL_TOOLS`]).
pub fn is_shell_tool(tool: &str) -> bool {
    SHELL_TOOLS.iter().any(|t| t.eq_ignore_ascii_case(tool))
}

/// How a piece of a word is written, which decides how a fix's text must be quoted there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// Outside quotes.
    Bare,
    /// Inside `'...'`.
    Single,
    /// Inside `"..."`.
    Double,
    /// Inside `$'...'` or `$(...)`: not decoded, never written to.
    Opaque,
    /// The body of a here document whose delimiter is quoted (`<<'EOF'`): taken as written.
    HeredocRaw,
    /// The body of a here document whose delimiter is not quoted: `$`, `` ` `` and `\` are
    /// special in it.
    HeredocExpand,
}

/// A piece of a word: the input range of its text (without the quotes) and its quoting.
#[derive(Debug, Clone)]
struct Piece {
    raw: Range<usize>,
    quote: Quote,
}

/// One shell word: its text as the command receives it, where that text comes from in the
/// command line (`map`: offsets in `text` → offsets in the command line), its pieces.
#[derive(Debug, Clone)]
struct Word {
    range: Range<usize>,
    text: String,
    map: OffsetMap,
    pieces: Vec<Piece>,
}

/// A simple command: its words (redirection targets left out), its input range, and the body
/// of a here document it reads, if any.
#[derive(Debug, Clone, Default)]
struct Simple {
    words: Vec<Word>,
    range: Range<usize>,
    heredoc: Option<Word>,
}

impl Simple {
    fn push(&mut self, w: Word) {
        if self.words.is_empty() {
            self.range = w.range.clone();
        }
        self.range.end = self.range.end.max(w.range.end);
        self.words.push(w);
    }
}

/// A here document waiting for the end of its line: the command that reads it, its
/// delimiter, whether the delimiter was quoted, whether leading tabs are stripped (`<<-`).
struct Pending {
    command: usize,
    delimiter: String,
    quoted: bool,
    strip_tabs: bool,
}

/// Bytes that end an unquoted word.
fn ends_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' | b'`'
    )
}

/// True when an unquoted run of word bytes stops at `b[i]`: a word end, a quote, a `\\`, `$(`
/// or `$'`.
fn ends_bare_run(b: &[u8], i: usize) -> bool {
    ends_word(b[i])
        || matches!(b[i], b'\'' | b'"' | b'\\')
        || (b[i] == b'$' && matches!(b.get(i + 1), Some(b'(' | b'\'')))
}

/// The simple commands of `cmd`. Linear in the length of `cmd`.
fn lex(cmd: &str) -> Vec<Simple> {
    let b = cmd.as_bytes();
    let mut done: Vec<Simple> = Vec::new();
    let mut cur = Simple::default();
    let mut pending: Vec<Pending> = Vec::new();
    let mut skip_next_word = false;
    let mut i = 0;
    let finish = |cur: &mut Simple, done: &mut Vec<Simple>| {
        if !cur.words.is_empty() || cur.heredoc.is_some() {
            done.push(std::mem::take(cur));
        } else {
            *cur = Simple::default();
        }
    };
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\\' if b.get(i + 1) == Some(&b'\n') => i += 2,
            b'\n' => {
                let index = done.len();
                finish(&mut cur, &mut done);
                i += 1;
                for p in pending.drain(..) {
                    let (body, next) = heredoc_body(cmd, i, &p);
                    // The command that opened it is pushed by now (it ended at this newline).
                    let target = p.command.min(index);
                    if let Some(c) = done.get_mut(target) {
                        c.heredoc = Some(body);
                    }
                    i = next;
                }
            }
            b';' | b'&' | b'|' | b'(' | b')' | b'`' => {
                finish(&mut cur, &mut done);
                i += 1;
            }
            b'$' if b.get(i + 1) == Some(&b'(') => {
                finish(&mut cur, &mut done);
                i += 2;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') => {
                i += 2;
                let strip_tabs = b.get(i) == Some(&b'-');
                if strip_tabs {
                    i += 1;
                }
                while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                    i += 1;
                }
                let (w, next) = word(cmd, i);
                i = next.max(i + 1).min(b.len().max(i));
                if let Some(w) = w {
                    pending.push(Pending {
                        command: done.len(),
                        delimiter: w.text.clone(),
                        quoted: w.pieces.iter().any(|p| p.quote != Quote::Bare),
                        strip_tabs,
                    });
                }
            }
            b'<' | b'>' => {
                while i < b.len() && matches!(b[i], b'<' | b'>' | b'&') {
                    i += 1;
                }
                skip_next_word = true;
            }
            _ => {
                let (w, next) = word(cmd, i);
                if next <= i {
                    // Nothing read (cannot happen at a non-delimiter byte): step on.
                    i += 1;
                    continue;
                }
                i = next;
                if let Some(w) = w {
                    if std::mem::take(&mut skip_next_word) {
                        continue;
                    }
                    // A `#` starts a comment only at the start of a word.
                    cur.push(w);
                }
            }
        }
    }
    finish(&mut cur, &mut done);
    done
}

/// The body of the here document `p`, starting at `from` (just after the line that opened
/// it): up to the line that is its delimiter (or the end of the input), and where reading goes
/// on after that line.
fn heredoc_body(cmd: &str, from: usize, p: &Pending) -> (Word, usize) {
    let mut line_start = from;
    let end;
    let next;
    loop {
        let line_end = cmd[line_start..]
            .find('\n')
            .map_or(cmd.len(), |n| line_start + n);
        let mut line = cmd[line_start..line_end].trim_end_matches('\r');
        if p.strip_tabs {
            line = line.trim_start_matches('\t');
        }
        if line == p.delimiter {
            end = line_start;
            next = (line_end + 1).min(cmd.len());
            break;
        }
        if line_end >= cmd.len() {
            end = cmd.len();
            next = cmd.len();
            break;
        }
        line_start = line_end + 1;
    }
    let quote = if p.quoted {
        Quote::HeredocRaw
    } else {
        Quote::HeredocExpand
    };
    (
        Word {
            range: from..end,
            text: cmd[from..end].to_string(),
            map: OffsetMap::identity(from, end - from),
            pieces: vec![Piece {
                raw: from..end,
                quote,
            }],
        },
        next,
    )
}

/// The word starting at `at` and the offset after it; `None` for a comment (which runs to the
/// end of the line, left for the caller to skip).
fn word(cmd: &str, at: usize) -> (Option<Word>, usize) {
    let b = cmd.as_bytes();
    if b.get(at) == Some(&b'#') {
        return (None, at);
    }
    let mut i = at;
    let mut text = String::new();
    let mut map = OffsetMap::new();
    let mut pieces: Vec<Piece> = Vec::new();
    while i < b.len() && !ends_word(b[i]) {
        match b[i] {
            b'\'' => {
                let close = cmd[i + 1..].find('\'').map_or(b.len(), |c| i + 1 + c);
                push_piece(
                    &mut text,
                    &mut map,
                    &mut pieces,
                    cmd,
                    i + 1..close,
                    Quote::Single,
                );
                i = (close + 1).min(b.len());
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let close = j.min(b.len());
                push_piece(
                    &mut text,
                    &mut map,
                    &mut pieces,
                    cmd,
                    i + 2..close,
                    Quote::Opaque,
                );
                i = (close + 1).min(b.len());
            }
            b'$' if b.get(i + 1) == Some(&b'(') => break,
            b'"' => i = double_quoted(cmd, i, &mut text, &mut map, &mut pieces),
            b'\\' => {
                match cmd[i + 1..].chars().next() {
                    Some('\n') => {}
                    Some(c) => {
                        push_piece(
                            &mut text,
                            &mut map,
                            &mut pieces,
                            cmd,
                            i + 1..i + 1 + c.len_utf8(),
                            Quote::Bare,
                        );
                        // An escaped character is no place to write a fix.
                        if let Some(p) = pieces.last_mut() {
                            p.quote = Quote::Opaque;
                        }
                    }
                    None => {}
                }
                i = (i + 1 + cmd[i + 1..].chars().next().map_or(0, char::len_utf8)).min(b.len());
            }
            _ => {
                let s = i;
                while i < b.len() && !ends_bare_run(b, i) {
                    i += 1;
                }
                if i == s {
                    // A lone `$` before `(` or `'` handled above; never loop in place.
                    i += 1;
                }
                push_piece(&mut text, &mut map, &mut pieces, cmd, s..i, Quote::Bare);
            }
        }
    }
    if i == at {
        return (None, at);
    }
    (
        Some(Word {
            range: at..i,
            text,
            map,
            pieces,
        }),
        i,
    )
}

/// Appends the input bytes `raw` (taken as written) to a word.
fn push_piece(
    text: &mut String,
    map: &mut OffsetMap,
    pieces: &mut Vec<Piece>,
    cmd: &str,
    raw: Range<usize>,
    quote: Quote,
) {
    let s = cmd.get(raw.clone()).unwrap_or("");
    text.push_str(s);
    map.push(raw.start, s.len());
    pieces.push(Piece { raw, quote });
}

/// Reads the double-quoted string opening at `open`; returns the offset after its closing
/// quote. `\` escapes `$`, `` ` ``, `"`, `\` and a line end; `$(...)` inside is kept as written
/// and marked opaque.
fn double_quoted(
    cmd: &str,
    open: usize,
    text: &mut String,
    map: &mut OffsetMap,
    pieces: &mut Vec<Piece>,
) -> usize {
    let b = cmd.as_bytes();
    let mut i = open + 1;
    let mut run = i;
    let flush = |text: &mut String,
                 map: &mut OffsetMap,
                 pieces: &mut Vec<Piece>,
                 r: Range<usize>,
                 q: Quote| {
        if !r.is_empty() {
            push_piece(text, map, pieces, cmd, r, q);
        }
    };
    while i < b.len() && b[i] != b'"' {
        if b[i] == b'\\' && matches!(b.get(i + 1), Some(b'$' | b'`' | b'"' | b'\\' | b'\n')) {
            flush(text, map, pieces, run..i, Quote::Double);
            if b[i + 1] != b'\n' {
                push_piece(text, map, pieces, cmd, i + 1..i + 2, Quote::Opaque);
            }
            i += 2;
            run = i;
        } else if b[i] == b'$' && b.get(i + 1) == Some(&b'(') {
            flush(text, map, pieces, run..i, Quote::Double);
            let mut depth = 0usize;
            let s = i;
            while i < b.len() {
                match b[i] {
                    b'(' => depth += 1,
                    b')' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            flush(text, map, pieces, s..i, Quote::Opaque);
            run = i;
        } else {
            i += 1;
        }
    }
    let close = i.min(b.len());
    flush(text, map, pieces, run..close, Quote::Double);
    (close + 1).min(b.len())
}

/// What a simple command is, by its name (after assignments and wrappers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Curl,
    Wget,
    Httpie,
    Python,
}

/// The kind of `c` and the position of its name among its words; `None` for a command that
/// sends no NetBox request.
fn kind_of(c: &Simple) -> Option<(Kind, usize)> {
    let w = &c.words;
    let mut i = 0;
    while i < w.len() {
        let t = w[i].text.as_str();
        let name = t.rsplit('/').next().unwrap_or(t);
        let is_assignment = t
            .split_once('=')
            .is_some_and(|(k, _)| is_identifier(k) && !t.starts_with('='));
        if is_assignment {
            i += 1;
            continue;
        }
        match name {
            "sudo" | "env" | "nice" => {
                i += 1;
                while i < w.len() && (w[i].text.starts_with('-') || w[i].text.contains('=')) {
                    // `-u user`, `-n 10`: an option that takes the next word.
                    let takes = matches!(w[i].text.as_str(), "-u" | "-g" | "-n" | "-C" | "-S");
                    i += if takes { 2 } else { 1 };
                }
            }
            "time" | "nohup" | "exec" | "command" | "builtin" => {
                i += 1;
                while i < w.len() && w[i].text.starts_with('-') {
                    i += 1;
                }
            }
            "timeout" => {
                i += 1;
                while i < w.len() && w[i].text.starts_with('-') {
                    let takes = matches!(w[i].text.as_str(), "-s" | "-k" | "--signal");
                    i += if takes { 2 } else { 1 };
                }
                i += 1; // the duration
            }
            "xargs" => {
                i += 1;
                while i < w.len() && w[i].text.starts_with('-') {
                    let takes = matches!(
                        w[i].text.as_str(),
                        "-I" | "-n" | "-P" | "-L" | "-d" | "-E" | "-s" | "-a"
                    );
                    i += if takes { 2 } else { 1 };
                }
            }
            "uv" | "poetry" | "pipenv" | "pdm" | "pipx" | "hatch" | "rye"
                if w.get(i + 1).is_some_and(|n| n.text == "run") =>
            {
                i += 2;
                while i < w.len() && w[i].text.starts_with('-') {
                    let takes = matches!(w[i].text.as_str(), "--with" | "--python" | "-p");
                    i += if takes { 2 } else { 1 };
                }
            }
            "curl" => return Some((Kind::Curl, i)),
            "wget" => return Some((Kind::Wget, i)),
            "http" | "https" | "httpie" | "xh" | "xhs" => return Some((Kind::Httpie, i)),
            _ if is_python(name) => return Some((Kind::Python, i)),
            _ => return None,
        }
    }
    None
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// `python`, `python3`, `python3.12`, `py`.
fn is_python(name: &str) -> bool {
    name == "py"
        || name
            .strip_prefix("python")
            .is_some_and(|v| v.bytes().all(|c| c.is_ascii_digit() || c == b'.'))
}

/// A part of the command line read as a host of its own: its text as the program receives it,
/// and where that text comes from in the command line.
struct Segment {
    kind: HostKind,
    text: String,
    map: OffsetMap,
}

/// What a command line holds for NetBox: the ranges of the commands that send HTTP requests
/// (read as text), the code and bodies read as hosts of their own, HTTPie requests as calls.
struct Reading {
    http: Vec<Range<usize>>,
    segments: Vec<Segment>,
    httpie: Vec<RestCall>,
    /// Every piece of every word, for writing fixes back.
    pieces: Vec<Piece>,
}

/// Options of curl whose next word is the request body.
const CURL_DATA: &[&str] = &["-d", "--data", "--data-raw", "--data-binary", "--json"];

/// Options of HTTPie and xh that take the next word as their value.
const HTTPIE_TAKES: &[&str] = &[
    "-a",
    "--auth",
    "-A",
    "--auth-type",
    "--session",
    "--session-read-only",
    "-o",
    "--output",
    "--verify",
    "--cert",
    "--cert-key",
    "--timeout",
    "--proxy",
    "-p",
    "--print",
    "--pretty",
    "-s",
    "--style",
    "--format-options",
    "--max-redirects",
    "--ssl",
    "--ciphers",
    "--default-scheme",
    "--response-charset",
    "--response-mime",
    "--boundary",
];

fn read(cmd: &str) -> Reading {
    let commands = lex(cmd);
    let mut r = Reading {
        http: Vec::new(),
        segments: Vec::new(),
        httpie: Vec::new(),
        pieces: Vec::new(),
    };
    for c in &commands {
        r.pieces
            .extend(c.words.iter().flat_map(|w| w.pieces.iter().cloned()));
        if let Some(h) = &c.heredoc {
            r.pieces.extend(h.pieces.iter().cloned());
        }
        let Some((kind, name)) = kind_of(c) else {
            continue;
        };
        let args = &c.words[name + 1..];
        match kind {
            Kind::Curl | Kind::Wget => {
                r.http.push(c.range.clone());
                if kind == Kind::Curl && args.iter().any(|w| w.text.contains("/graphql")) {
                    for pair in args.windows(2) {
                        if CURL_DATA.contains(&pair[0].text.as_str())
                            && pair[1].text.trim_start().starts_with('{')
                        {
                            r.segments.push(segment(HostKind::Json, &pair[1]));
                        }
                    }
                }
            }
            Kind::Httpie => {
                r.http.push(c.range.clone());
                if let Some(call) = httpie_call(cmd, args) {
                    r.httpie.push(call);
                }
            }
            Kind::Python => {
                let code = args
                    .iter()
                    .position(|w| w.text == "-c")
                    .and_then(|at| args.get(at + 1));
                match code {
                    Some(w) => r.segments.push(segment(HostKind::Python, w)),
                    None => {
                        // Code on standard input: `python3 - <<'EOF'` or `python3 <<EOF`.
                        let script = args
                            .iter()
                            .find(|w| !w.text.starts_with('-') || w.text == "-");
                        if script.is_none_or(|w| w.text == "-") {
                            if let Some(h) = &c.heredoc {
                                r.segments.push(segment(HostKind::Python, h));
                            }
                        }
                    }
                }
            }
        }
    }
    r
}

fn segment(kind: HostKind, w: &Word) -> Segment {
    Segment {
        kind,
        text: w.text.clone(),
        map: w.map.clone(),
    }
}

/// An HTTPie / xh GET to a NetBox list endpoint with its `name==value` query items: a REST call
/// with the items as filters (ranges in the command line; a value that is not one plain piece
/// of the word, or that holds `$`, is not judged).
fn httpie_call(cmd: &str, args: &[Word]) -> Option<RestCall> {
    let mut i = 0;
    let mut method: Option<&str> = None;
    let mut url: Option<&Word> = None;
    let mut items: Vec<&Word> = Vec::new();
    while i < args.len() {
        let t = args[i].text.as_str();
        if url.is_none() && t.starts_with('-') {
            i += if HTTPIE_TAKES.contains(&t) { 2 } else { 1 };
            continue;
        }
        if url.is_none() {
            if method.is_none() && !t.is_empty() && t.bytes().all(|c| c.is_ascii_uppercase()) {
                method = Some(t);
            } else {
                url = Some(&args[i]);
            }
        } else if !t.starts_with('-') {
            items.push(&args[i]);
        }
        i += 1;
    }
    let url = url?;
    let at = url.text.find("/api/")?;
    let path_end = url.text[at..]
        .find(['?', '#'])
        .map_or(url.text.len(), |q| at + q);
    let path = &url.text[at..path_end];
    let mut filters = Vec::new();
    let mut sends_data = false;
    for w in items {
        let t = w.text.as_str();
        let Some(sep) = t.find([':', '=', '@']) else {
            continue;
        };
        if !t[sep..].starts_with("==") {
            // `name=value`, `name:=json`, `name@file` are data (`Header:value` is a header).
            sends_data |= !t[sep..].starts_with(':') || t[sep..].starts_with(":=");
            continue;
        }
        let key = &t[..sep];
        let value = &t[sep + 2..];
        let key_range = mapped(cmd, w, 0..sep)?;
        let value_range = mapped(cmd, w, sep + 2..t.len()).unwrap_or(w.range.end..w.range.end);
        let plain = mapped(cmd, w, sep + 2..t.len()).is_some();
        filters.push(FilterEntry {
            key: key.into(),
            key_range,
            value: if plain && !value.contains('$') {
                crate::extract::unjudged(&Value::Str(value.into()), key)
            } else {
                Value::Expr
            },
            value_range,
        });
    }
    let get = match method {
        Some(m) => m == "GET",
        None => !sends_data,
    };
    if !get {
        return None;
    }
    let target_range = mapped(cmd, url, at..path_end).unwrap_or(url.range.clone());
    let start = filters
        .first()
        .map_or(url.range.start, |f| f.key_range.start);
    let end = filters.last().map_or(url.range.end, |f| f.value_range.end);
    Some(RestCall {
        form: CallForm::Url,
        syntax: Syntax::Query,
        target: Some((path.into(), target_range)),
        call_range: url.range.start..end.max(url.range.end),
        filters_range: (!filters.is_empty()).then_some(start..end),
        filters,
        args: Vec::new(),
        declared: false,
    })
}

/// The command-line range of bytes `r` of word `w`'s text, when they are written there as
/// they are read (no escape or quote inside).
fn mapped(cmd: &str, w: &Word, r: Range<usize>) -> Option<Range<usize>> {
    let raw = w.map.range_to_host(r.clone());
    (cmd.get(raw.clone())? == w.text.get(r)?).then_some(raw)
}

/// How many NetBox calls and GraphQL documents the command line sends (no knowledge needed):
/// 0 means it is no NetBox call, and passes at once.
pub fn calls(cmd: &str) -> usize {
    let r = read(cmd);
    calls_in(cmd, &r)
}

fn calls_in(cmd: &str, r: &Reading) -> usize {
    let text_sites = if r.http.is_empty() {
        0
    } else {
        crate::extract::extract(cmd, HostKind::Text)
            .sites
            .iter()
            .filter(|s| site_start(s).is_some_and(|at| inside_any(&r.http, at)))
            .count()
    };
    let segment_sites: usize = r
        .segments
        .iter()
        .map(|s| crate::extract::extract(&s.text, s.kind).sites.len())
        .sum();
    text_sites + segment_sites + r.httpie.len()
}

fn site_start(s: &Site) -> Option<usize> {
    match s {
        Site::Rest(c) => Some(c.call_range.start),
        Site::Graphql(d) => Some(d.map.to_host(0)),
        Site::NotChecked(n) => Some(n.range.start),
    }
}

fn inside_any(spans: &[Range<usize>], at: usize) -> bool {
    spans
        .iter()
        .any(|s| s.start <= at && at < s.end.max(s.start + 1))
}

/// The findings of the NetBox requests of command line `cmd` (ranges and fixes in `cmd`, fixes
/// quoted for the shell or dropped, see the module documentation), sorted by position.
pub fn findings(cmd: &str, knowledge: &Knowledge) -> Vec<Finding> {
    let r = read(cmd);
    let mut out = Vec::new();
    if !r.http.is_empty() {
        out.extend(
            analyze(cmd, HostKind::Text, knowledge)
                .into_iter()
                .filter(|f| inside_any(&r.http, f.range.start)),
        );
    }
    let identity = OffsetMap::identity(0, cmd.len());
    let mut out: Vec<Finding> = out
        .into_iter()
        .map(|f| placed(cmd, f, cmd, &identity, &r.pieces))
        .collect();
    for s in &r.segments {
        for f in analyze(&s.text, s.kind, knowledge) {
            let mut f = placed(cmd, f, &s.text, &s.map, &r.pieces);
            f.range = s.map.range_to_host(f.range.clone());
            out.push(f);
        }
    }
    if let Some(index) = knowledge.index.as_deref() {
        for call in &r.httpie {
            let (mut found, endpoint) = crate::rest::check_call_resolved(call, index);
            crate::filters::unchecked_target(&mut found, call, index, endpoint.as_deref());
            for f in crate::approx::soften(knowledge, found) {
                out.push(placed(cmd, f, cmd, &identity, &r.pieces));
            }
        }
    }
    out.sort_by_key(Finding::sort_key);
    out.dedup();
    out
}

/// `f` (found in `text`, whose bytes come from `cmd` through `map`) with each fix's edits moved
/// into `cmd` and quoted for where they land; a fix that cannot be written there is dropped.
/// The finding's own range is left to the caller.
fn placed(cmd: &str, mut f: Finding, text: &str, map: &OffsetMap, pieces: &[Piece]) -> Finding {
    let fixes = std::mem::take(&mut f.fixes);
    f.fixes = fixes
        .into_iter()
        .filter_map(|fix| {
            let edits: Option<Vec<Edit>> = fix
                .edits
                .iter()
                .map(|e| written_back(cmd, e, text, map, pieces))
                .collect();
            Some(Fix {
                edits: edits?,
                ..fix
            })
        })
        .collect();
    f
}

/// Edit `e` of `text` as an edit of `cmd`: where its bytes come from (written there as read,
/// within one piece of one word), its text quoted for that piece.
fn written_back(
    cmd: &str,
    e: &Edit,
    text: &str,
    map: &OffsetMap,
    pieces: &[Piece],
) -> Option<Edit> {
    let raw = map.range_to_host(e.range.clone());
    if cmd.get(raw.clone())? != text.get(e.range.clone())? {
        return None;
    }
    let piece = pieces
        .iter()
        .find(|p| p.raw.start <= raw.start && raw.end <= p.raw.end)?;
    Some(Edit {
        range: raw,
        new_text: quoted(piece.quote, &e.new_text)?,
    })
}

/// `s` written for a place quoted as `q`; `None` where it cannot be written as is.
fn quoted(q: Quote, s: &str) -> Option<String> {
    let escape = |specials: &[char]| {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            if specials.contains(&c) {
                out.push('\\');
            }
            out.push(c);
        }
        out
    };
    match q {
        Quote::Bare => (!s
            .chars()
            .any(|c| c.is_whitespace() || "'\"\\$`;&|<>()*?[]#~{}!".contains(c)))
        .then(|| s.to_string()),
        Quote::Single => Some(s.replace('\'', "'\\''")),
        Quote::Double => Some(escape(&['\\', '"', '$', '`'])),
        Quote::HeredocRaw => (!s.contains('\n')).then(|| s.to_string()),
        Quote::HeredocExpand => (!s.contains('\n')).then(|| escape(&['\\', '$', '`'])),
        Quote::Opaque => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cmd: &str) -> Vec<Vec<String>> {
        lex(cmd)
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn words_and_commands() {
        assert_eq!(
            names(r#"NB=x curl -s "a b" 'c'd\ e && echo $(wget -q u) | jq . # note"#),
            vec![
                vec!["NB=x", "curl", "-s", "a b", "cd e"],
                vec!["echo"],
                vec!["wget", "-q", "u"],
                vec!["jq", "."],
            ]
        );
        assert_eq!(
            names("curl u 2>/dev/null > out.json"),
            vec![vec!["curl", "u", "2"]]
        );
    }

    #[test]
    fn heredoc_goes_to_its_command() {
        let cmd = "python3 - <<'EOF'\nprint(1)\nEOF\necho done";
        let c = lex(cmd);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].heredoc.as_ref().unwrap().text, "print(1)\n");
        assert_eq!(
            c[0].heredoc.as_ref().unwrap().pieces[0].quote,
            Quote::HeredocRaw
        );
        assert_eq!(c[1].words[0].text, "echo");
    }

    #[test]
    fn kinds() {
        let kind = |cmd: &str| lex(cmd).first().and_then(kind_of).map(|(k, _)| k);
        assert_eq!(kind("sudo -u nb /usr/bin/curl x"), Some(Kind::Curl));
        assert_eq!(kind("timeout 10 http GET x"), Some(Kind::Httpie));
        assert_eq!(
            kind("uv run --with requests python3.12 -c x"),
            Some(Kind::Python)
        );
        assert_eq!(kind("grep -r /api/dcim/devices/?x=1 ."), None);
    }

    #[test]
    fn quoting_fixes() {
        assert_eq!(quoted(Quote::Single, "it's").as_deref(), Some("it'\\''s"));
        assert_eq!(quoted(Quote::Double, "a\"$b").as_deref(), Some("a\\\"\\$b"));
        assert_eq!(quoted(Quote::Bare, "a&b"), None);
        assert_eq!(quoted(Quote::Bare, "role_id").as_deref(), Some("role_id"));
        assert_eq!(quoted(Quote::Opaque, "x"), None);
    }
}
