//! `graphql-filter-argument`: the singular `filter:` argument.

use super::{span, Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use apollo_compiler::{ast, Name, Node};

impl Ctx<'_> {
    /// `graphql-filter-argument`: `filter:` → `filters:` (strawberry-django names it plural).
    pub(super) fn filter_argument(&mut self, arg: &Node<ast::Argument>, field: &Name) {
        let (Some(name_r), Some(whole)) = (span(arg.name.location()), span(arg.location())) else {
            return;
        };
        self.push(RawFinding {
            range: name_r.clone(),
            code: "graphql-filter-argument",
            severity: Severity::Error,
            message: format!(
                "`{field}` has no `filter` argument; NetBox's argument is `filters:` (plural), e.g. `{field}(filters: {{name: {{exact: \"x\"}}}})`."
            ),
            fixes: vec![RawFix {
                title: "Replace `filter` with `filters`".into(),
                edits: vec![(name_r, "filters".into())],
                certain: true,
            }],
            claim: Some(whole),
        });
    }
}
