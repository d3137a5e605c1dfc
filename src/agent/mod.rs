//! Agents at call time: the checks of one call an agent is about to make, for the pre-tool-use
//! hook of an agent harness (`netbox-lsp hook`, [`hook`]) and for the MCP server agents ask
//! before they call (`netbox-lsp mcp`, [`mcp`]).
//!
//! Both are thin: a call is read into the host text the analysis already knows (a JSON tool
//! call, a shell command, a filters dict, a GraphQL document: [`call`], [`shell`]), checked by
//! the same pipeline as `check` ([`crate::analysis`], [`crate::filters`]) against the knowledge
//! the command line chose, and its certain fixes applied by [`fix_rounds`]. What to do with the
//! result is decided from the findings' facts only (severity, code, whether a fix is certain:
//! [`decide`]), never from their message text. No rule knows it runs here.
//!
//! The process side (reading standard input within a deadline, the supervising process that
//! answers when the check dies, loading the knowledge) is `cli::hook` and `cli::mcp`.

pub mod call;
pub mod decide;
pub mod explain;
pub mod filters;
pub mod hook;
pub mod mcp;
pub mod shell;

use crate::config::Level;
use crate::finding::{Finding, Severity};
use crate::intent::{ReadAs, Readings};
use std::collections::BTreeMap;

/// What the check of one call found.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The findings (severity overrides applied), ranges into the text that was checked.
    pub findings: Vec<Finding>,
    /// The input with every certain fix applied, when that leaves no error or warning (checked
    /// again): the whole tool input as the harness takes it back (`updatedInput`).
    pub corrected: Option<serde_json::Value>,
    /// What changed, one line per fix applied (`Replace `device_role_id` with `role_id`
    /// (unknown-filter)`), when `corrected` is given.
    pub changes: Vec<String>,
    /// The corrected call in a form to quote to the model: the command for a shell command,
    /// the arguments as JSON for a tool call.
    pub corrected_text: Option<String>,
}

/// The readings of a call an agent makes: a call about to be sent is no lesson and no release
/// history, whatever its text says (`# wrong` in a command is not a marked counter-example), so
/// those readings are off; a Django query or another product's call is still not NetBox's.
pub fn call_readings() -> Readings {
    let mut r = Readings::default();
    r.set(ReadAs::Lesson, false);
    r.set(ReadAs::History, false);
    r
}

/// `findings` with the settings file's per-code severities applied (`severity` table of
/// `netbox-lsp.toml`): `off` drops a finding, a level replaces its severity.
pub fn with_severities(findings: Vec<Finding>, severity: &BTreeMap<String, Level>) -> Vec<Finding> {
    if severity.is_empty() {
        return findings;
    }
    findings
        .into_iter()
        .filter_map(|mut f| match severity.get(f.code) {
            Some(Level::Off) => None,
            Some(Level::Report(s)) => {
                f.severity = *s;
                Some(f)
            }
            None => Some(f),
        })
        .collect()
}

/// True for an error or a warning: what a call must not have to pass, and what a correction
/// must leave none of.
pub fn blocks(f: &Finding) -> bool {
    matches!(f.severity, Severity::Error | Severity::Warning)
}

/// Fix-all rounds on `text`, whose findings are `found` (as `check` gives them), each round's
/// fixed text checked again by `check` ([`crate::fix::certain_fixes`], as `check --fix` takes
/// them): the fixed text and the fixes applied (`code`, title), when the result has no error or
/// warning; `None` when a round leaves one without a certain fix. `text` itself (and no change)
/// when it has none to begin with. `text` is not checked again.
pub fn fix_rounds(
    text: &str,
    found: Vec<Finding>,
    check: &dyn Fn(&str) -> Vec<Finding>,
) -> Option<(String, Vec<(&'static str, String)>)> {
    const ROUNDS: usize = 4;
    let mut current = text.to_string();
    let mut applied = Vec::new();
    let mut findings = found;
    for round in 0..=ROUNDS {
        if round > 0 {
            findings = check(&current);
        }
        if !findings.iter().any(blocks) {
            return Some((current, applied));
        }
        let taken = crate::fix::certain_fixes(&findings);
        if taken.is_empty() {
            return None;
        }
        let edits: Vec<_> = taken
            .iter()
            .flat_map(|(_, fix)| fix.edits.iter().cloned())
            .collect();
        applied.extend(taken.iter().map(|(f, fix)| (f.code, fix.title.clone())));
        let next = crate::fix::apply(&current, &edits);
        if next == current {
            return None;
        }
        current = next;
    }
    None
}

/// `s` with control characters (a newline in a filter key, an escape sequence) written as
/// `\u{..}`, so that a value from the call cannot forge lines in a reason shown to the model.
pub fn printable(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}
