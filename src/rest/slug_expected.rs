//! `slug-expected`: a slug filter given a display name or a number.

use super::endpoint::View;
use super::lookups::Key;
use super::text::slugify;
use super::{finding_sev, render};
use crate::extract::{FilterEntry, Syntax};
use crate::finding::{Finding, Severity};
use std::ops::Range;

/// `slug-expected`: a slug filter given a display name. Characters outside `[-a-zA-Z0-9_]`
/// can never be in a slug (HTTP 400 "not one of the available choices"); upper case only is a
/// warning (a slug may contain it, NetBox's own never do).
pub(super) fn slug_expected(
    view: &View,
    key: &str,
    text: &str,
    r: Range<usize>,
    syntax: Syntax,
) -> Option<Finding> {
    if text.is_empty() {
        return None;
    }
    let bad = text
        .chars()
        .any(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'));
    let upper = text.chars().any(|c| c.is_ascii_uppercase());
    if !bad && !upper {
        return None;
    }
    let severity = if bad {
        Severity::Error
    } else {
        Severity::Warning
    };
    let slug = slugify(text);
    let base = Key::parse(key).base();
    let id = format!("{base}_id");
    let mut msg = format!(
        "`{key}` matches the {base}'s slug, not its name: `{text}` is an HTTP 400 unless a {base} has that slug. Use the slug (probably `{slug}`)"
    );
    if view.has(&id) {
        msg.push_str(&format!(" or `{id}` with the id"));
    }
    msg.push('.');
    let mut f = finding_sev(r.clone(), "slug-expected", severity, msg);
    if !slug.is_empty() && slug != text {
        f = f.with_fix(
            format!("Use the slug `{slug}`"),
            r,
            render::string(&slug, syntax),
            false,
        );
    }
    Some(f)
}

/// `slug-expected` (information) for a number on a slug filter (`site=12`): a slug may be
/// digits, but a number there is most often an id, which goes to the `_id` filter
/// (`site_id=12`); NetBox answers HTTP 400 ("Select a valid choice") unless a slug is that
/// number. A suggestion, not a fix-all edit.
pub(super) fn number_on_slug(
    view: &View,
    entry: &FilterEntry,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let k = Key::parse(key);
    let base = k.base();
    let lookup = key.strip_prefix(base).unwrap_or("");
    let id = super::text::cat(&[base, "_id", lookup]);
    if !view.has(&id) {
        return None;
    }
    let spoken = base.replace('_', " ");
    let spoken = spoken.as_str();
    let f = finding_sev(
        r,
        "slug-expected",
        Severity::Information,
        super::text::cat(&[
            "`",
            key,
            "` matches the ",
            spoken,
            "'s slug; `",
            text,
            "` looks like an id: NetBox ",
            view.version(),
            " answers HTTP 400 unless a ",
            spoken,
            " has the slug `",
            text,
            "`. For the ",
            spoken,
            " with id ",
            text,
            " use `",
            &id,
            "`.",
        ]),
    );
    Some(f.with_fix(
        super::text::cat(&["Replace `", key, "` with `", &id, "`"]),
        entry.key_range.clone(),
        id,
        false,
    ))
}
