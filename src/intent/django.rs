//! Django queries are not REST filters: in a permission constraint (`{"status__in":
//! ["planned", "reserved"]}`), a `Model.objects.filter(...)` or a `Q(...)`, `__in`,
//! `__startswith`, `__isnull` and traversals (`device__site__name`) are valid. Such a filter
//! written without an endpoint (a filter snippet) is held back when the text around it says
//! which language it is: a `Constraints` column or heading, a sentence about constraints,
//! querysets, the ORM or `.objects.`, a `constraints` key right before it in code.
//!
//! Only endpoint-less snippets are read so: a REST URL or a pynetbox call (`nb.dcim.devices
//! .filter(...)`) beside them names its endpoint and is checked.

use super::{quote, Doc, Piece, SiteCx, SiteFilter, Verdict, Why};
use crate::extract::{CallForm, Site};

pub(super) fn prepare(_doc: &Doc<'_>) -> Option<Box<dyn SiteFilter>> {
    Some(Box::new(Django))
}

struct Django;

/// The first place in `text` that names Django's query language (or a place that holds it):
/// `constraint(s)`, `queryset`, `query set`, `.objects.`, `Q(`, `Q object`, `ORM`, `nbshell`,
/// `Django shell`/`admin`/`ORM`/`query`. Its byte range.
fn django_words(text: &str) -> Option<std::ops::Range<usize>> {
    let lower = text.to_ascii_lowercase();
    let word_at = |i: usize, w: &str| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + w.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    };
    let mut best: Option<std::ops::Range<usize>> = None;
    let mut found = |r: std::ops::Range<usize>| {
        if best.as_ref().is_none_or(|b| r.start < b.start) {
            best = Some(r);
        }
    };
    for w in [
        "constraint",
        "constraints",
        "queryset",
        "querysets",
        "query set",
        "query sets",
        "nbshell",
        "django shell",
        "django admin",
        "django orm",
        "django query",
        "django queries",
    ] {
        if let Some(i) = lower
            .match_indices(w)
            .map(|(i, _)| i)
            .find(|&i| word_at(i, w))
        {
            found(i..i + w.len());
        }
    }
    // Case matters for these: `ORM` (not "form"), `Q(` (not "q(").
    for w in ["ORM", "Q(", "Q object"] {
        if let Some(i) = text.match_indices(w).map(|(i, _)| i).find(|&i| {
            !text[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
                && (w.ends_with('(') || !text[i + w.len()..].starts_with(char::is_alphanumeric))
        }) {
            found(i..i + w.len());
        }
    }
    if let Some(i) = text.find(".objects.") {
        found(i..i + ".objects.".len());
    }
    best
}

impl SiteFilter for Django {
    fn read(&self, cx: &SiteCx<'_>) -> Verdict {
        let Site::Rest(call) = cx.site else {
            return Verdict::Call;
        };
        if call.form != CallForm::Snippet {
            return Verdict::Call;
        }
        if let Some((code, at)) = cx.in_code() {
            let before = code[..at.start].trim_end();
            let key = before
                .trim_end_matches([':', '='])
                .trim_end()
                .trim_end_matches(['"', '\''])
                .to_ascii_lowercase();
            if before.len() > key.len() && key.ends_with("constraints") {
                return Verdict::NotACall(Why {
                    text: "it is the value of `constraints` (a permission constraint)".into(),
                    marker: None,
                });
            }
        }
        let a = cx.around;
        let places: [(Option<&Piece>, &str); 5] = [
            (a.column.as_ref(), "its table column"),
            (a.before.as_ref(), "its sentence"),
            (a.after.as_ref(), "its sentence"),
            (a.lead.as_ref(), "the sentence above it"),
            (a.section(), "its heading"),
        ];
        for (piece, place) in places {
            let Some(p) = piece else { continue };
            if let Some(m) = django_words(&p.raw) {
                return Verdict::NotACall(Why {
                    text: format!("{place} says {}", quote(&p.raw[m.clone()])),
                    marker: Some(p.host(&m)),
                });
            }
        }
        Verdict::Call
    }

    /// Only a filter snippet (no endpoint) is read; every other site is a call.
    fn unlabelled_call(&self, site: &Site) -> bool {
        !matches!(site, Site::Rest(call) if call.form == CallForm::Snippet)
    }
}

#[cfg(test)]
mod tests {
    use super::django_words;

    #[test]
    fn words_that_name_django() {
        for (text, want) in [
            ("A permission constraint such as", Some("constraint")),
            ("| Constraints |", Some("Constraints")),
            (
                "In a script, `Device.objects.filter()` takes",
                Some(".objects."),
            ),
            ("Combine them with `Q(a=1) | Q(b=2)`", Some("Q(")),
            ("the Django ORM", Some("Django ORM")),
            ("a form field", None),
            ("Filter examples", None),
            ("unconstrained queries", None),
        ] {
            assert_eq!(django_words(text).map(|r| &text[r]), want, "{text:?}");
        }
    }
}
