//! Lessons: a filter, URL, dict, tool call or GraphQL document the text around it marks as a
//! wrong example (`# WRONG` above it, `❌` in its row, a `Wrong` column, "never use `x`",
//! "`x` is silently ignored", `Not like this:` above its block). A wrong example is taught,
//! not sent: no finding. The form the text teaches as right stays checked, and so does a wrong
//! form with no negative marker (a skill that teaches it as right is the worst error it can
//! hold).
//!
//! In one GraphQL document of several operations (a WRONG/CORRECT pair in one fence), each
//! operation is read on its own: the wrong ones are blanked out and the rest is checked.

use super::cues::Cue;
use super::{comments, Doc, Label, SiteCx, SiteFilter, Verdict};
use crate::extract::{GraphqlDoc, Site};

/// The lesson filter: it applies to every host (comments in code, the text around prose).
pub(super) fn prepare(_doc: &Doc<'_>) -> Option<Box<dyn SiteFilter>> {
    Some(Box::new(Lesson))
}

struct Lesson;

impl SiteFilter for Lesson {
    fn read(&self, cx: &SiteCx<'_>) -> Verdict {
        if let Site::Graphql(doc) = cx.site {
            if let Some(v) = operations(cx, doc) {
                return v;
            }
        }
        verdict(cx.label())
    }

    /// A GraphQL document's operations read their own comments; any other site only its label.
    fn unlabelled_call(&self, site: &Site) -> bool {
        !matches!(site, Site::Graphql(_))
    }
}

/// A wrong-cue makes a lesson; any other label, or none, leaves a call.
fn verdict(label: Option<&Label>) -> Verdict {
    match label {
        Some(l) if l.cue == Cue::Wrong => Verdict::NotACall(l.why()),
        _ => Verdict::Call,
    }
}

/// The verdict for a GraphQL document of two or more operations, each labelled by its own
/// comment (or, without one, by the text around the document); `None` for one operation.
fn operations(cx: &SiteCx<'_>, doc: &GraphqlDoc) -> Option<Verdict> {
    let ops = crate::graphql::split::top_level(&doc.text);
    if ops.len() < 2 {
        return None;
    }
    let outer = cx.around_label();
    let mut wrong = Vec::new();
    for op in &ops {
        let own = comments::cue(&doc.text, op.clone()).map(|hit| Label {
            cue: hit.cue,
            source: super::Source::Comment,
            marker: doc.map.range_to_host(hit.range.clone()),
            words: doc.text[hit.range].to_string(),
        });
        if let Verdict::NotACall(why) = verdict(own.as_ref().or(outer.as_ref())) {
            wrong.push((op.clone(), why));
        }
    }
    Some(if wrong.len() == ops.len() {
        Verdict::NotACall(wrong.swap_remove(0).1)
    } else if wrong.is_empty() {
        Verdict::Call
    } else {
        Verdict::Parts(wrong)
    })
}
