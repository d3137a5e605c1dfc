//! `announced-removal` in GraphQL documents: a field (or filter input field) that the selected
//! release's schema marks `@deprecated`, or that its release notes announce for removal in a
//! release to come ([`crate::forecast`]). The document works as written; the finding says in
//! which release the field goes, if one is announced, and what replaces it. Information.

use super::{Ctx, RawFinding};
use crate::finding::Severity;
use crate::forecast;
use apollo_compiler::ast::DirectiveList;
use std::ops::Range;

impl Ctx<'_> {
    /// Field or input field `field` of type `ty`, written at `range`, with the directives of
    /// its definition.
    pub(super) fn announced(
        &mut self,
        ty: &str,
        field: &str,
        range: Range<usize>,
        directives: &DirectiveList,
    ) {
        let version = self.nb.netbox_version.as_str();
        let reason = directives.get("deprecated").map(|d| {
            d.specified_argument_by_name("reason")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        });
        let announced = forecast::graphql(version, ty, field);
        let (goes, instead) = match (announced, &reason) {
            (Some(a), _) => (
                format!("goes in NetBox {} ({})", a.goes_in, a.source),
                a.instead.to_string(),
            ),
            (None, Some(r)) => (
                "goes in a later release (none announced yet)".to_string(),
                forecast::replacement_in_reason(r),
            ),
            (None, None) => return,
        };
        let on = if version.is_empty() {
            "this schema".to_string()
        } else {
            format!("NetBox {version}")
        };
        let marked = if reason.is_some() {
            format!("deprecated in {on}'s schema")
        } else {
            format!("announced for removal by {on}")
        };
        let instead = if instead.is_empty() {
            String::new()
        } else {
            format!(" Instead: {instead}.")
        };
        self.push(RawFinding {
            range,
            code: "announced-removal",
            severity: Severity::Information,
            message: format!(
                "`{field}` of `{ty}` is {marked} and {goes}; it works on {on}.{instead}"
            ),
            fixes: Vec::new(),
            claim: None,
            does: None,
        });
    }
}
