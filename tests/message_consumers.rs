//! No code reads a finding's message text (issue 37 §2): live verification, upgrade readiness,
//! the hook and the MCP server read the facts a finding carries (`finding::Facts`, the code's
//! catalogue row), so rewording a message cannot change a verdict. This test reads every file
//! of `src/` (up to its test module) and fails on any line that matches, splits or strips a
//! message.

use std::path::{Path, PathBuf};

/// What reading a message's text looks like.
const PATTERNS: &[&str] = &[
    "message.contains(",
    "message.starts_with(",
    "message.ends_with(",
    "message.find(",
    "message.rfind(",
    "message.replace(",
    "message.split",
    "message.strip_prefix(",
    "message.strip_suffix(",
    "message.matches(",
    "message.lines(",
    "message.trim",
];

/// Lines allowed to match, by file and the text they hold, each with why.
const ALLOWED: &[(&str, &str, &str)] = &[(
    "src/graphql/check.rs",
    "if message.contains(\"limit\")",
    "apollo-compiler's own parse error, which names a recursion or token limit only in its \
     wording (its error kinds are private to the crate): a library's text, not a finding's",
)];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A line reads a message when it calls one of [`PATTERNS`] on it, or strips a prefix or
/// suffix off a value named `message`/`msg`.
fn reads_message(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or(line);
    PATTERNS.iter().any(|p| code.contains(p))
        || ((code.contains("strip_prefix(") || code.contains("strip_suffix("))
            && (code.contains("message") || code.contains("msg")))
}

#[test]
fn no_consumer_reads_message_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 100, "src/ has {} Rust files", files.len());
    let mut hits = Vec::new();
    let mut allowed_seen = vec![false; ALLOWED.len()];
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        // A module of tests asserts on messages: it consumes nothing.
        if rel.ends_with("/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let body = text.split("#[cfg(test)]").next().unwrap_or(&text);
        for (n, line) in body.lines().enumerate() {
            if !reads_message(line) {
                continue;
            }
            match ALLOWED
                .iter()
                .position(|(f, l, _)| *f == rel && line.contains(l))
            {
                Some(i) => allowed_seen[i] = true,
                None => hits.push(format!("{rel}:{}: {}", n + 1, line.trim())),
            }
        }
    }
    assert!(
        hits.is_empty(),
        "code reads message text; read the finding's facts instead (finding::Facts, catalogue::does):\n{}",
        hits.join("\n")
    );
    for ((f, l, _), seen) in ALLOWED.iter().zip(allowed_seen) {
        assert!(
            seen,
            "allowed line `{l}` is no longer in {f}: drop it from ALLOWED"
        );
    }
}

/// The test catches what it is for: the readings upgrade readiness used to do.
#[test]
fn the_patterns_catch_message_reading() {
    for bad in [
        r#"            "graphql-pagination" if message.contains("MAX_PAGE_SIZE") => Kind::Truncated,"#,
        r#"    let message = message.replace(SWITCH_ADVICE, "");"#,
        r#"    if let Some(rest) = f.message.strip_prefix("Breaks on ") {"#,
        r#"    let head = msg.strip_suffix(ADVICE);"#,
        r#"    f.message.starts_with("`")"#,
    ] {
        assert!(reads_message(bad), "{bad}");
    }
    for good in [
        "    let message = format!(\"{lead}{said}\");",
        "    f.facts.filter.as_deref().unwrap_or(\"\").starts_with(p)",
        "    // message.contains( in a comment",
    ] {
        assert!(!reads_message(good), "{good}");
    }
}
