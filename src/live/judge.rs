//! Judging a plan: the findings that NetBox's answers give for every call and operation of one
//! document ([`super::verdict`] for a REST call, [`super::graphql`] for an operation), with
//! the document's suppression comments applied. Planning ([`super::plan`]) never judges.

use super::plan::Plan;
use super::{graphql, verdict, Answers, Request, Summary};
use crate::extract::HostKind;
use crate::finding::Finding;

impl Plan {
    /// The requests that the first answers leave open: the negation of a single honoured filter
    /// whose call came back unchanged.
    pub fn follow_ups(&self, answers: &Answers) -> Vec<Request> {
        self.calls
            .iter()
            .filter(|c| verdict::needs_negation(c, answers))
            .filter_map(|c| c.negation.clone())
            .collect()
    }

    /// The findings `answers` give (a call or operation without an answer gives none), with
    /// the document's suppression comments applied, sorted by position; and their tally.
    pub fn judge(&self, answers: &Answers, text: &str, kind: HostKind) -> (Vec<Finding>, Summary) {
        let mut summary = Summary::default();
        for (_, skip) in &self.not_checkable {
            *summary.not_checkable.entry(skip.kind).or_default() += 1;
        }
        for (_, kind) in &self.refused {
            summary.skipped(kind);
        }
        let mut out: Vec<Finding> = self.refused.iter().map(|(f, _)| f.clone()).collect();
        for c in &self.calls {
            out.extend(verdict::judge(c, answers, &mut summary));
        }
        for d in &self.documents {
            out.extend(graphql::judge(d, answers, &mut summary));
        }
        let out = crate::suppress::apply(text, kind, &self.blocks, out);
        let mut out = crate::suppress::apply_to_calls(text, &self.call_ranges, out);
        out.sort_by_key(Finding::sort_key);
        out.dedup();
        (out, summary)
    }
}
