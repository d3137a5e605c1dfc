//! `announced-removal` on REST calls: a filter or list endpoint the release notes of the
//! selected release announce for removal in a release to come ([`crate::forecast`]). The call
//! works as written; the finding says in which release it stops and what replaces it.
//! Information: nothing is wrong yet.

use super::endpoint::View;
use super::{finding, Ctx};
use crate::extract::FilterEntry;
use crate::finding::Finding;
use crate::forecast;

/// For a filter of `view` that a release to come removes.
pub(crate) fn filter(view: &View, entry: &FilterEntry, out: &mut Vec<Finding>) {
    let Some(a) = forecast::filter(view.version(), view.key, &entry.key) else {
        return;
    };
    out.push(finding(
        entry.key_range.clone(),
        "announced-removal",
        format!(
            "`{}` on {} goes in NetBox {} ({}); it works on NetBox {}. Instead: {}.",
            entry.key,
            view.path(),
            a.goes_in,
            a.source,
            view.version(),
            a.instead
        ),
    ));
}

/// For a call to a list endpoint that a release to come removes.
pub(crate) fn endpoint(ctx: &Ctx, view: &View, out: &mut Vec<Finding>) {
    let Some(a) = forecast::endpoint(view.version(), view.key) else {
        return;
    };
    let range = ctx
        .call
        .target
        .as_ref()
        .map_or(ctx.call.call_range.clone(), |(_, r)| r.clone());
    out.push(finding(
        range,
        "announced-removal",
        format!(
            "{} goes in NetBox {} ({}); it works on NetBox {}. Instead: {}.",
            view.path(),
            a.goes_in,
            a.source,
            view.version(),
            a.instead
        ),
    ));
}
