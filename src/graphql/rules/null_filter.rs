//! `graphql-null-filter`: a `null` filter value, which NetBox skips.

use super::{span, Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use apollo_compiler::schema::InputObjectType;
use apollo_compiler::Name;
use std::ops::Range;

impl Ctx<'_> {
    /// `graphql-null-filter`: strawberry-django skips a filter whose value is `null` ("Filter
    /// will be skipped on `null` value"), so the query returns every object (ground truth:
    /// `tenant_id: null`, `tenant: {id: null}`, `serial: {exact: null}` → 72 of 72 devices).
    pub(super) fn null_filter(
        &mut self,
        vr: &Range<usize>,
        fname: &Name,
        parent: &InputObjectType,
        lookup: Option<&InputObjectType>,
    ) {
        let schema = &self.nb.schema;
        let mut fixes = Vec::new();
        let working;
        if lookup.is_some_and(|o| o.fields.contains_key("is_null")) {
            // `name: null` where `name` is a lookup object.
            working = format!("{fname}: {{is_null: true}}");
            fixes.push(RawFix {
                title: "Use `{is_null: true}`".into(),
                edits: vec![(vr.clone(), "{is_null: true}".into())],
                certain: true,
            });
        } else if parent.fields.contains_key("is_null") && fname != "is_null" {
            // `{exact: null}` inside a lookup object: the fix replaces this lookup key.
            working = "{is_null: true}".to_string();
            if let Some(nr) = span(fname.location()) {
                fixes.push(RawFix {
                    title: "Use `is_null: true`".into(),
                    edits: vec![(nr.start..vr.end, "is_null: true".into())],
                    certain: true,
                });
            }
        } else {
            // A bare scalar (`tenant_id: null`, 4.3 `id: null`): point at a lookup with
            // `is_null` on the related filter (`tenant: {name: {is_null: true}}` is honoured
            // on every shipped version).
            let (target_filter, key) = match fname.as_str().strip_suffix("_id") {
                Some(base) => (
                    parent
                        .fields
                        .get(base)
                        .and_then(|f| schema.get_input_object(f.ty.inner_named_type()))
                        .map(|n| &**n),
                    Some(base.to_string()),
                ),
                None => (Some(parent), None),
            };
            let lookup_key = target_filter.and_then(|t| {
                ["id", "name", "slug"].into_iter().find(|k| {
                    t.fields.get(*k).is_some_and(|f| {
                        schema
                            .get_input_object(f.ty.inner_named_type())
                            .is_some_and(|o| o.fields.contains_key("is_null"))
                    })
                })
            });
            working = match (&key, lookup_key) {
                (Some(base), Some(k)) => format!("{base}: {{{k}: {{is_null: true}}}}"),
                (None, Some(k)) => format!("{k}: {{is_null: true}}"),
                _ => "an `is_null: true` lookup".to_string(),
            };
            if lookup_key.is_some() {
                if let Some(nr) = span(fname.location()) {
                    fixes.push(RawFix {
                        title: format!("Use `{working}`"),
                        edits: vec![(nr.start..vr.end, working.clone())],
                        certain: false,
                    });
                }
            }
        }
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-null-filter",
            severity: Severity::Error,
            message: format!(
                "NetBox skips a filter whose value is `null`: `{fname}: null` filters nothing and every object comes back. To match objects where it is empty use `{working}`; to filter by a value, give the value."
            ),
            fixes,
            claim: Some(vr.clone()),
            does: None,
        });
    }
}
