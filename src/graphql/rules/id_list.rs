//! `graphql-id-list`: the form of ID filters per release (bare `ID` on 4.3/4.4 and every
//! `*_id`, `IDComparisonFilterLookup` on 4.5+ `id`).

use super::{span, Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use apollo_compiler::ast::Value;
use apollo_compiler::Name;
use std::ops::Range;

impl Ctx<'_> {
    /// A list or lookup object on a bare `ID` filter (NetBox 4.3/4.4 `id`, every `*_id`).
    pub(super) fn id_bare_wanted(
        &mut self,
        v: &Value,
        vr: &Range<usize>,
        fname: &Name,
        whole: &Range<usize>,
    ) {
        let single = match v {
            Value::List(items) if items.len() == 1 => Some(&items[0]),
            Value::Object(fields) if fields.len() == 1 && (fields[0].0 == "exact") => {
                Some(&fields[0].1)
            }
            Value::Object(fields) if fields.len() == 1 && fields[0].0 == "in_list" => {
                match fields[0].1.as_ref() {
                    Value::List(items) if items.len() == 1 => Some(&items[0]),
                    _ => None,
                }
            }
            _ => None,
        };
        let mut fixes = Vec::new();
        if let Some(one) = single.and_then(|n| span(n.location())) {
            let t = self.src(&one).to_string();
            fixes.push(RawFix {
                title: format!("Use `{fname}: {t}`"),
                edits: vec![(vr.clone(), t)],
                certain: true,
            });
        }
        let version = self.version_phrase();
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-id-list",
            severity: Severity::Error,
            message: format!(
                "`{fname}` takes one bare ID{version} (`{fname}: 6`); a list or lookup object is refused (\"ID cannot represent a non-string and non-integer value\"). For several IDs combine filters with `OR: {{{fname}: 7}}`."
            ),
            fixes,
            claim: Some(whole.clone()),
            does: None,
        });
    }

    /// A bare ID or list where the version wants a lookup object (NetBox 4.5+ `id`).
    pub(super) fn id_lookup_wanted(
        &mut self,
        v: &Value,
        vr: &Range<usize>,
        fname: &Name,
        lookup: &str,
    ) {
        let t = self.src(vr).to_string();
        let new = match v {
            Value::List(_) => format!("{{in_list: {t}}}"),
            Value::Variable(n) if self.vars.get(n).is_some_and(|t| t.is_list()) => {
                format!("{{in_list: {t}}}")
            }
            _ => format!("{{exact: {t}}}"),
        };
        let version = self.version_phrase();
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-id-list",
            severity: Severity::Error,
            message: format!(
                "`{fname}` takes a lookup object{version} (`{lookup}`): write `{fname}: {new}`; a bare ID or list is refused."
            ),
            fixes: vec![RawFix {
                title: format!("Use `{fname}: {new}`"),
                edits: vec![(vr.clone(), new.clone())],
                certain: true,
            }],
            claim: Some(vr.clone()),
            does: None,
        });
    }
}
