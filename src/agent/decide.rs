//! What to do with a checked call, from its findings' facts (severity, whether a fix is
//! certain) and never their wording:
//!
//! - no error and no warning: pass (information findings do not stop a call);
//! - with `fix` chosen and a correction that checks clean ([`Checked::corrected`]): run the
//!   corrected call, telling the model what changed;
//! - an error (NetBox ignores the filter and answers with every object, refuses the call with
//!   HTTP 400, or answers another question than the one asked): deny, with every finding's
//!   message (each names the one right step) and the corrected call when there is one;
//! - only warnings (likely wrong, but an instance could make it right, e.g. a choice value its
//!   own choice set may add): ask the user, or deny ([`Uncertain`]).

use super::{printable, Checked};
use crate::finding::Severity;
use serde_json::Value;
use std::fmt::Write;

/// What a call whose findings are only warnings gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Uncertain {
    /// The harness asks the user (the default).
    #[default]
    Ask,
    /// Denied, as an error is.
    Deny,
}

/// The choices of the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Policy {
    /// Run a call whose errors and warnings all have certain fixes in its corrected form.
    pub fix: bool,
    pub uncertain: Uncertain,
}

/// The decision on one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Let it run as it is, without a word.
    Pass,
    /// Stop it; `reason` is shown to the model.
    Deny { reason: String },
    /// Ask the user; `reason` is shown in the prompt.
    Ask { reason: String },
    /// Run `input` instead; `note` tells the model what changed. `confirm`: the user confirms
    /// the corrected call (a shell command, whose other parts this tool does not vouch for).
    Correct {
        input: Value,
        note: String,
        confirm: bool,
    },
}

/// Findings listed in a reason; the rest are counted.
const LISTED: usize = 8;

/// Decides on `checked` (a call checked against NetBox `release`) under `policy`. `confirm_fix`:
/// a correction is run only after the user confirms it (see [`Decision::Correct`]).
pub fn decide(checked: &Checked, policy: &Policy, release: &str, confirm_fix: bool) -> Decision {
    let blocking: Vec<_> = checked
        .findings
        .iter()
        .filter(|f| super::blocks(f))
        .collect();
    if blocking.is_empty() {
        return Decision::Pass;
    }
    if policy.fix {
        if let (Some(input), Some(shown)) = (&checked.corrected, &checked.corrected_text) {
            return Decision::Correct {
                input: input.clone(),
                note: format!(
                    "netbox-lsp corrected this NetBox call before it ran (checked against NetBox {release}): {}. It runs as: {}",
                    printable(&checked.changes.join("; ")),
                    shown
                ),
                confirm: confirm_fix,
            };
        }
    }
    let error = blocking.iter().any(|f| f.severity == Severity::Error);
    let mut reason = if error {
        format!("netbox-lsp: NetBox {release} would not answer this call as intended; it was not sent:\n")
    } else {
        format!("netbox-lsp: this NetBox call may not do what it intends (checked against NetBox {release}):\n")
    };
    for f in blocking.iter().take(LISTED) {
        let _ = writeln!(
            reason,
            "- {}[{}] {}",
            f.severity.as_str(),
            f.code,
            printable(&f.message)
        );
        if let Some(fix) = f.fixes.iter().find(|x| x.certain) {
            let _ = writeln!(reason, "  fix: {}", printable(&fix.title));
        }
    }
    if blocking.len() > LISTED {
        let _ = writeln!(reason, "- and {} more", blocking.len() - LISTED);
    }
    if let Some(shown) = &checked.corrected_text {
        // As written by the caller, fixes applied (a command may hold newlines).
        let _ = writeln!(reason, "Retry with: {shown}");
    }
    let reason = reason.trim_end().to_string();
    if error || policy.uncertain == Uncertain::Deny {
        Decision::Deny { reason }
    } else {
        Decision::Ask { reason }
    }
}
