//! Input objects NetBox's GraphQL server refuses although apollo-compiler 1.33 lets them pass
//! (issue 8 §8):
//!
//! - a field repeated in one object (`filters: {custom_field_data: {...}, custom_field_data:
//!   {...}}`): graphql-core's `UniqueInputFieldNamesRule` (spec "Input Object Field
//!   Uniqueness") answers "There can be only one input field named 'custom_field_data'.";
//! - a `@oneOf` input (`IntegerLookup`, `FloatLookup`, 4.6 `BigIntegerLookup`) with other than
//!   exactly one member, or a `null` member: Strawberry's `OneOfInputValidationRule`
//!   (strawberry/schema/validation_rules/one_of.py) answers "OneOf Input Object
//!   'IntegerLookup' must specify exactly one key." / "Field 'IntegerLookup.x' must be non-null.".
//!
//! The working form of several conditions on one filter is `AND:` in the filter object.

use super::{span, Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use crate::graphql::history::{self, DefectKind};
use apollo_compiler::ast::Value;
use apollo_compiler::schema::InputObjectType;
use apollo_compiler::{Name, Node};
use std::ops::Range;

impl Ctx<'_> {
    /// Checks the written object `fields` of input type `obj` (named `named`, at `vr`, held by
    /// the input field `holder` when there is one) for repeated fields and `@oneOf` members.
    pub(super) fn input_object(
        &mut self,
        obj: &InputObjectType,
        named: &str,
        fields: &[(Name, Node<Value>)],
        vr: &Range<usize>,
        holder: Option<&Name>,
    ) {
        for (i, (name, value)) in fields.iter().enumerate() {
            if !fields[..i].iter().any(|(n, _)| n == name) {
                continue;
            }
            let Some(nr) = span(name.location()) else {
                continue;
            };
            self.repeated(name, value, nr, fields);
        }
        if obj.directives.has("oneOf") {
            self.one_of(obj, named, fields, vr, holder);
        }
        self.required_by_defect(obj, named, fields, vr);
    }

    /// Required fields a release's schema declares by mistake ([`history::DEFECTS`]): one
    /// finding for the object, in place of apollo-compiler's one per missing field, saying
    /// which release fixed it.
    fn required_by_defect(
        &mut self,
        obj: &InputObjectType,
        named: &str,
        fields: &[(Name, Node<Value>)],
        vr: &Range<usize>,
    ) {
        let version = self.nb.netbox_version.as_str();
        let Some(d) = history::defect(named, None, DefectKind::Required, version) else {
            return;
        };
        let missing: Vec<String> = obj
            .fields
            .iter()
            .filter(|(n, f)| {
                f.ty.is_non_null() && f.default_value.is_none() && d.fields.contains(&n.as_str())
            })
            .filter(|(n, _)| !fields.iter().any(|(w, _)| w == *n))
            .map(|(n, _)| n.to_string())
            .collect();
        if missing.is_empty() {
            return;
        }
        let all: Vec<String> = d.fields.iter().map(|f| f.to_string()).collect();
        self.push(RawFinding {
            range: vr.clone(),
            code: "graphql-validation",
            severity: Severity::Error,
            message: format!(
                "NetBox {version}'s schema declares {} of `{named}` required, a defect fixed in {} ({}): NetBox refuses this filter because it leaves out {}. Not a mistake of the document: {}.",
                and_list(&all),
                d.fixed_in,
                d.source,
                and_list(&missing),
                d.instead
            ),
            fixes: Vec::new(),
            claim: Some(vr.clone()),
            does: None,
        });
    }

    /// A repeated field: the finding sits on the second (and later) name; the fix moves it
    /// into `AND: {...}` when the object has no `AND` yet (not certain: NetBox refuses the
    /// written document, so which meaning was wanted is the writer's to say).
    fn repeated(
        &mut self,
        name: &Name,
        value: &Node<Value>,
        nr: Range<usize>,
        fields: &[(Name, Node<Value>)],
    ) {
        let pair = span(value.location()).map(|v| nr.start..v.end);
        let written = pair.as_ref().map(|p| self.src(p).to_string());
        let and_exists = fields.iter().any(|(n, _)| n == "AND");
        let mut fixes = Vec::new();
        if let (Some(p), Some(w), false) = (&pair, &written, and_exists) {
            fixes.push(RawFix {
                title: format!("Combine with `AND: {{{w}}}`"),
                edits: vec![(p.clone(), format!("AND: {{{w}}}"))],
                certain: false,
            });
        }
        self.push(RawFinding {
            range: nr,
            code: "graphql-validation",
            severity: Severity::Error,
            message: format!(
                "`{name}` is given twice in one input object; NetBox refuses the document (\"There can be only one input field named '{name}'.\"). To require both conditions write the second one under `AND:` (`{name}: {{...}}, AND: {{{name}: {{...}}}}`)."
            ),
            fixes,
            claim: None,
            does: None,
        });
    }

    /// A `@oneOf` input with zero or several members, or a `null` member.
    fn one_of(
        &mut self,
        obj: &InputObjectType,
        named: &str,
        fields: &[(Name, Node<Value>)],
        vr: &Range<usize>,
        holder: Option<&Name>,
    ) {
        let holder = holder.map(|h| h.to_string()).unwrap_or_else(|| "x".into());
        let mut fixes = Vec::new();
        let (range, message) = match fields {
            [(n, v)] if matches!(v.as_ref(), Value::Null) => {
                let r = span(v.location()).unwrap_or(vr.clone());
                let has_is_null = obj
                    .fields
                    .get(n)
                    .and_then(|f| self.nb.schema.get_input_object(f.ty.inner_named_type()))
                    .is_some_and(|o| o.fields.contains_key("is_null"));
                if has_is_null {
                    fixes.push(RawFix {
                        title: "Use `{is_null: true}` (match empty values)".into(),
                        edits: vec![(r.clone(), "{is_null: true}".into())],
                        certain: false,
                    });
                }
                (
                    r,
                    format!(
                        "`{named}` is a one-of input: its member `{n}` must not be null (\"Field '{named}.{n}' must be non-null.\"); give a lookup, or `{n}: {{is_null: true}}` to match empty values."
                    ),
                )
            }
            [_] => return,
            [] => (
                vr.clone(),
                format!(
                    "`{named}` is a one-of input and needs exactly one member (\"OneOf Input Object '{named}' must specify exactly one key.\"): `filter_lookup`, `range_lookup` or `comparison_lookup`."
                ),
            ),
            [(first, _), (second, _), ..] => (
                span(second.location()).unwrap_or(vr.clone()),
                format!(
                    "`{named}` is a one-of input: set exactly one member per object (\"OneOf Input Object '{named}' must specify exactly one key.\"). To combine `{first}` and `{second}`, put the second condition under `AND:` in the filter: `{holder}: {{{first}: {{...}}}}, AND: {{{holder}: {{{second}: {{...}}}}}}`."
                ),
            ),
        };
        self.push(RawFinding {
            range,
            code: "graphql-validation",
            severity: Severity::Error,
            message,
            fixes,
            claim: None,
            does: None,
        });
    }
}

/// "`a`", "`a` and `b`", "`a`, `b` and `c`".
fn and_list(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
