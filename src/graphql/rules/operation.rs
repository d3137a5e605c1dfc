//! `graphql-operation`: mutations and subscriptions on a read-only API.

use super::{span, Ctx, RawFinding};
use crate::finding::Severity;
use apollo_compiler::{ast, Node};

impl Ctx<'_> {
    /// `graphql-operation`: NetBox's GraphQL API is read-only (no mutation root; agents'
    /// tools refuse anything but `query`, seeds ADR-0034).
    pub(super) fn operation(&mut self, op: &Node<ast::OperationDefinition>) {
        let Some(whole) = span(op.location()) else {
            return;
        };
        let kw = op.operation_type.name();
        let range = whole.start..(whole.start + kw.len()).min(whole.end);
        self.push(RawFinding {
            range,
            code: "graphql-operation",
            severity: Severity::Error,
            message: format!(
                "NetBox's GraphQL API is read-only: a {kw} is refused (\"Schema is not configured to execute {kw} operation\"). Use a `query {{ ... }}`, or the REST API for changes."
            ),
            fixes: Vec::new(),
            claim: Some(whole),
            does: None,
        });
    }
}
