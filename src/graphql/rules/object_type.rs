//! An object type written as the REST form `app_label.model` (`object_type: "dcim.interface"`)
//! where the filter declares a `ContentTypeFilter` (`object_type`, `component_type`,
//! `assigned_object_type`, ... on every shipped release, 4.3.3 to 4.7.3): NetBox refuses the
//! document ("Expected value of type 'ContentTypeFilter', found \"dcim.interface\""). The
//! working form matches the two fields the schema declares on it, each a `StrFilterLookup`:
//! `object_type: {app_label: {exact: "dcim"}, model: {exact: "interface"}}`, the same object
//! type (one app label and model name name one content type). Reported as
//! `graphql-validation`, in place of apollo-compiler's diagnostic; the fix is certain.

use super::{Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use apollo_compiler::Name;
use std::ops::Range;

impl Ctx<'_> {
    /// True when input object `named` is an object-type filter: an `app_label` and a `model`
    /// field, and no `name` (a model's filter).
    pub(super) fn object_type_filter(&self, named: &str) -> bool {
        self.nb.schema.get_input_object(named).is_some_and(|o| {
            o.fields.contains_key("app_label")
                && o.fields.contains_key("model")
                && !o.fields.contains_key("name")
        })
    }

    /// `graphql-validation` for the string `s` on object-type filter `fname` (of type
    /// `named`), with the form that matches it when `s` is `app_label.model`. Returns false
    /// (left to apollo-compiler) when `s` has another shape.
    pub(super) fn object_type_wanted(
        &mut self,
        s: &str,
        vr: &Range<usize>,
        fname: &Name,
        named: &str,
    ) -> bool {
        let Some((app, model)) = s.split_once('.') else {
            return false;
        };
        let word = |w: &str| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        };
        if !word(app) || !word(model) {
            return false;
        }
        let Some(obj) = self.nb.schema.get_input_object(named).cloned() else {
            return false;
        };
        let (Some(a), Some(m)) = (
            self.key_form(&obj, "app_label", &[app.to_string()], false),
            self.key_form(&obj, "model", &[model.to_string()], false),
        ) else {
            return false;
        };
        // `{app_label: {exact: "dcim"}}` and `{model: {exact: "interface"}}` joined.
        let inner = |f: &str| {
            f.strip_prefix('{')
                .and_then(|f| f.strip_suffix('}'))
                .unwrap_or(f)
                .to_string()
        };
        let form = format!("{{{}, {}}}", inner(&a), inner(&m));
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-validation",
            severity: Severity::Error,
            message: format!(
                "`{fname}` takes a `{named}` object (the app label and model of an object type), not the string `{s}`: write `{fname}: {form}`."
            ),
            fixes: vec![RawFix {
                title: format!("Match the object type: `{fname}: {form}`"),
                edits: vec![(vr.clone(), form.clone())],
                certain: true,
            }],
            claim: Some(vr.clone()),
            does: None,
        });
        true
    }
}
