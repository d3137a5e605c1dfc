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
use regex::Regex;
use std::sync::OnceLock;

pub(super) fn prepare(_doc: &Doc<'_>) -> Option<Box<dyn SiteFilter>> {
    Some(Box::new(Django))
}

struct Django;

/// Words that name Django's query language (or a place that holds it).
fn words() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\bconstraints?\b|\bquery\s?sets?\b|\.objects\.|\bQ\(|\bQ\s+objects?\b|\bORM\b|\bnbshell\b|\bdjango\s+(?:shell|admin|orm|quer(?:y|ies)|lookups?\s+in\s+(?:python|scripts?))")
            .expect("valid pattern")
    })
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
            if let Some(m) = words().find(&p.raw) {
                return Verdict::NotACall(Why {
                    text: format!("{place} says {}", quote(m.as_str())),
                    marker: Some(p.host(&m.range())),
                });
            }
        }
        Verdict::Call
    }
}
