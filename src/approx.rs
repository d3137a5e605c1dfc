//! Checking against a shipped release that stands in for another one (`--netbox-version 4.7.3`
//! checked with 4.6.8, `4.6.0` with 4.6.8; see [`crate::index::embedded::select`]).
//!
//! Names and choices differ between releases, so an error saying "NetBox does not have this"
//! may be wrong for the release the user runs: such findings become warnings. Findings about
//! value forms and grammar that every release shares stay errors. The user is told once (the
//! selection's note), not per finding.

use crate::finding::{Finding, Severity};
use crate::knowledge::Knowledge;

/// Lowers errors of the codes another release may make valid ([`crate::catalogue::Code::may_differ`]:
/// an unknown filter, lookup, choice, object type, endpoint, GraphQL name, or a filter the index
/// places in another release) to warnings when `knowledge` is approximate; returns
/// `findings` unchanged otherwise.
pub fn soften(knowledge: &Knowledge, mut findings: Vec<Finding>) -> Vec<Finding> {
    if knowledge.approximate.is_none() {
        return findings;
    }
    for f in &mut findings {
        soften_one(&mut f.severity, f.code);
    }
    findings
}

/// [`soften`] of one finding's `severity`, of code `code`, when the knowledge is approximate.
pub fn soften_one(severity: &mut Severity, code: &str) {
    if *severity == Severity::Error && crate::catalogue::may_differ(code) {
        *severity = Severity::Warning;
    }
}
