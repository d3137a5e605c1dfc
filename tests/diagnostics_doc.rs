//! docs/diagnostics.md is generated from the code catalogue (`src/catalogue.rs`): per code, a
//! block between `<!-- generated:code:<code> -->` and `<!-- /generated -->` with the heading,
//! the severity, the catalogue's title and help, and each example run through the real checker
//! (`analyze`, embedded knowledge of the example's release): the input, every finding with its
//! message, the certain fix applied and the text after it re-checked. The hand-written prose of
//! each entry (what NetBox does, evidence) follows its block. A wrong example must give a
//! finding of its code, a right one no error or warning, so a message shown there can never
//! drift from what the tool says.
//!
//! After changing the catalogue or a message: `NETBOX_LSP_WRITE_DOCS=1 cargo test --release
//! --test suite diagnostics_doc::` rewrites the blocks (the prose stays).

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::catalogue::{self, Code, Example, CODES};
use netbox_lsp::extract::HostKind;
use netbox_lsp::finding::{Finding, Severity};
use std::fmt::Write as _;
use std::path::Path;

use crate::knowledge_support;

const OPEN: &str = "<!-- generated:";
const CLOSE: &str = "<!-- /generated -->";

fn doc_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md")
}

fn knowledge(release: &str) -> Knowledge {
    Knowledge {
        index: Some(knowledge_support::index(release)),
        graphql: None,
        graphql_embedded: Some(knowledge_support::version(if release == "instance" {
            "4.6.8"
        } else {
            release
        })),
        ..Default::default()
    }
}

fn kind(host: &str) -> HostKind {
    HostKind::from_path(Path::new(&format!("x.{host}"))).expect("host kind")
}

fn fence(host: &str) -> &'static str {
    match host {
        "py" => "python",
        "md" => "markdown",
        "yaml" | "yml" => "yaml",
        "json" => "json",
        "graphql" | "gql" => "graphql",
        _ => "text",
    }
}

fn host_name(host: &str) -> &'static str {
    match host {
        "py" => "Python",
        "md" => "Markdown",
        "yaml" | "yml" => "YAML",
        "json" => "JSON",
        "graphql" | "gql" => "GraphQL",
        _ => "a URL or text",
    }
}

fn release_name(release: &str) -> String {
    match release {
        "instance" => "an index built from a customised NetBox 4.6.8".to_string(),
        r => format!("NetBox {r}"),
    }
}

/// Every certain fix applied (last first; they do not overlap in the examples).
fn apply_certain(text: &str, findings: &[Finding]) -> Option<String> {
    let mut edits: Vec<_> = findings
        .iter()
        .flat_map(|f| f.fixes.iter().filter(|x| x.certain))
        .flat_map(|x| x.edits.iter().cloned())
        .collect();
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut s = text.to_string();
    for e in edits {
        s.replace_range(e.range, &e.new_text);
    }
    Some(s)
}

/// A message as Markdown text: `<` and `*` outside code spans are escaped.
fn prose(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("`{part}`")
            } else {
                part.replace('<', "&lt;").replace('*', "\\*")
            }
        })
        .collect()
}

fn is_loud(f: &Finding) -> bool {
    matches!(f.severity, Severity::Error | Severity::Warning)
}

fn block_fence(out: &mut String, host: &str, text: &str) {
    let _ = writeln!(
        out,
        "```{}\n{}\n```\n",
        fence(host),
        text.trim_end_matches('\n')
    );
}

/// One example, rendered; `Err` when the checker disagrees with the example.
fn render_example(code: &Code, ex: &Example) -> Result<String, String> {
    let text = format!("{}\n", ex.input);
    let k = knowledge(ex.release);
    let findings = analyze(&text, kind(ex.host), &k);
    let mut out = String::new();
    let where_ = format!("{}, {}", release_name(ex.release), host_name(ex.host));
    if !ex.wrong {
        if let Some(f) = findings.iter().find(|f| is_loud(f)) {
            return Err(format!(
                "{}: the right example {:?} gives {}[{}] {}",
                code.code,
                ex.input,
                f.severity.as_str(),
                f.code,
                f.message
            ));
        }
        let _ = writeln!(out, "Right ({where_}): no error or warning.\n");
        block_fence(&mut out, ex.host, ex.input);
        return Ok(out);
    }
    if !findings.iter().any(|f| f.code == code.code) {
        return Err(format!(
            "{}: the example {:?} gives no `{}` finding but {:?}",
            code.code,
            ex.input,
            code.code,
            findings
                .iter()
                .map(|f| format!("{}[{}] {}", f.severity.as_str(), f.code, f.message))
                .collect::<Vec<_>>()
        ));
    }
    let _ = writeln!(out, "Wrong ({where_}):\n");
    block_fence(&mut out, ex.host, ex.input);
    for f in &findings {
        let _ = writeln!(
            out,
            "- **{}** `{}`: {}",
            f.severity.as_str(),
            f.code,
            prose(&f.message)
        );
        let suggestions: Vec<String> = f
            .fixes
            .iter()
            .filter(|x| !x.certain)
            .map(|x| prose(&x.title))
            .collect();
        if !suggestions.is_empty() {
            let _ = writeln!(
                out,
                "  - suggested (not applied by fix-all): {}",
                suggestions.join("; ")
            );
        }
    }
    out.push('\n');
    if let Some(fixed) = apply_certain(&text, &findings) {
        let after = analyze(&fixed, kind(ex.host), &k);
        // A certain fix leaves no finding of the codes it fixed (fix-all converges).
        let fixed_codes: Vec<&str> = findings
            .iter()
            .filter(|f| f.fixes.iter().any(|x| x.certain))
            .map(|f| f.code)
            .collect();
        if let Some(f) = after
            .iter()
            .find(|f| fixed_codes.contains(&f.code) && f.fixes.iter().any(|x| x.certain))
        {
            return Err(format!(
                "{}: after the certain fix of {:?} the re-check still gives {}[{}] {}",
                code.code,
                ex.input,
                f.severity.as_str(),
                f.code,
                f.message
            ));
        }
        let _ = writeln!(out, "Fix (certain: fix-all applies it):\n");
        block_fence(&mut out, ex.host, &fixed);
        let left: Vec<String> = after
            .iter()
            .map(|f| format!("{} `{}`", f.severity.as_str(), f.code))
            .collect();
        if left.is_empty() {
            let _ = writeln!(out, "Re-checked: no finding.\n");
        } else {
            let _ = writeln!(out, "Re-checked: {}.\n", left.join(", "));
        }
    }
    Ok(out)
}

fn severity_line(code: &Code) -> String {
    let mut s = format!("**Severity:** {}", code.severity.as_str());
    if !code.severity_note.is_empty() {
        let _ = write!(s, " ({})", code.severity_note);
    }
    s.push('.');
    if code.may_differ && code.severity == Severity::Error {
        s.push_str(" A warning instead of an error when a shipped release stands in for the one asked for.");
    }
    s
}

/// The generated block of `code`, without its markers.
fn code_block(code: &Code) -> Result<String, String> {
    let mut out = format!(
        "### `{}`\n\n{} **In short:** {}. {}\n\n",
        code.code,
        severity_line(code),
        code.title,
        code.help
    );
    for ex in code.examples {
        out.push_str(&render_example(code, ex)?);
    }
    Ok(out)
}

/// The list of codes another release may make valid, from the catalogue.
fn may_differ_block() -> String {
    let codes: Vec<String> = CODES
        .iter()
        .filter(|c| c.may_differ)
        .map(|c| format!("`{}`", c.code))
        .collect();
    format!(
        "Findings another release may have made valid ({}) are warnings there instead of errors.\n",
        codes.join(", ")
    )
}

/// The page with every generated block rewritten from the catalogue; `Err` lists what is wrong.
fn regenerate(doc: &str) -> Result<String, Vec<String>> {
    let mut out = String::new();
    let mut errors = Vec::new();
    let mut seen = Vec::new();
    let mut rest = doc;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + OPEN.len()..];
        let Some(end_name) = after.find(" -->") else {
            errors.push("an unterminated `<!-- generated:` marker".into());
            return Err(errors);
        };
        let name = &after[..end_name];
        let Some(close) = after.find(CLOSE) else {
            errors.push(format!("block {name} has no `{CLOSE}`"));
            return Err(errors);
        };
        let body = if let Some(c) = name.strip_prefix("code:") {
            match catalogue::get(c) {
                Some(code) => {
                    seen.push(c.to_string());
                    code_block(code).unwrap_or_else(|e| {
                        errors.push(e);
                        String::new()
                    })
                }
                None => {
                    errors.push(format!(
                        "the page has a block for `{c}`, which is no catalogue code"
                    ));
                    String::new()
                }
            }
        } else if name == "may-differ" {
            may_differ_block()
        } else {
            errors.push(format!("unknown generated block `{name}`"));
            String::new()
        };
        let _ = write!(out, "{OPEN}{name} -->\n{body}{CLOSE}");
        rest = &after[close + CLOSE.len()..];
    }
    out.push_str(rest);
    for c in CODES {
        if !seen.iter().any(|s| s == c.code) {
            errors.push(format!(
                "`{}` has no `{OPEN}code:{} -->` block in docs/diagnostics.md",
                c.code, c.code
            ));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[test]
fn the_page_is_generated_from_the_catalogue() {
    let doc = std::fs::read_to_string(doc_path()).expect("docs/diagnostics.md");
    let fresh = match regenerate(&doc) {
        Ok(s) => s,
        Err(errors) => panic!("{}", errors.join("\n")),
    };
    if fresh == doc {
        return;
    }
    if std::env::var_os("NETBOX_LSP_WRITE_DOCS").is_some() {
        std::fs::write(doc_path(), &fresh).expect("write docs/diagnostics.md");
        return;
    }
    let first = doc
        .lines()
        .zip(fresh.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    panic!(
        "docs/diagnostics.md is out of date from line {} (now {:?}, generated {:?}); rewrite it with NETBOX_LSP_WRITE_DOCS=1 cargo test --release --test suite diagnostics_doc::",
        first + 1,
        doc.lines().nth(first).unwrap_or(""),
        fresh.lines().nth(first).unwrap_or("")
    );
}

/// Every code the checks can report with a snippet has a wrong example; only the codes of the
/// tool itself (a file over the size limit, a reserved code) have none.
#[test]
fn every_code_has_a_wrong_example() {
    for c in CODES {
        // The tool's own codes, and those whose input is two releases (tests/upgrade.rs) or a
        // NetBox's answers (tests/live.rs), which no snippet can show.
        if matches!(c.code, "not-checked" | "stale-index")
            || c.code.starts_with("upgrade-")
            || c.code.starts_with("live-")
        {
            continue;
        }
        assert!(
            c.examples.iter().any(|e| e.wrong),
            "`{}` has no wrong example in the catalogue",
            c.code
        );
    }
}
