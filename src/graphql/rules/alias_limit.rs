//! `graphql-alias-limit`: strawberry's `MaxAliasesLimiter`.

use super::{span, Ctx, RawFinding};
use crate::finding::Severity;
use apollo_compiler::ast::{self, Selection};
use std::ops::Range;

impl Ctx<'_> {
    /// `graphql-alias-limit`: strawberry's `MaxAliasesLimiter` counts aliased fields in every
    /// operation (nested fields and inline fragments, not fragment definitions) and refuses the
    /// document above `GRAPHQL_MAX_ALIASES` (default 10): "11 aliases found. Allowed: 10".
    pub(super) fn aliases(&mut self, doc: &ast::Document) {
        let mut found = Vec::new();
        for def in &doc.definitions {
            if let ast::Definition::OperationDefinition(op) = def {
                collect_aliases(&op.selection_set, &mut found);
            }
        }
        let max = self.nb.max_aliases();
        if found.len() > max {
            let range = found[max].clone();
            self.push(RawFinding {
                range,
                code: "graphql-alias-limit",
                severity: Severity::Error,
                message: format!(
                    "{} aliases in this document; NetBox allows {max} (GRAPHQL_MAX_ALIASES) and refuses the whole request. Split it into several requests, or use one `*_list` field with `filters: {{id: ...}}` instead of one aliased field per object.",
                    found.len()
                ),
                fixes: Vec::new(),
                claim: None,
                does: None,
            });
        }
    }
}

fn collect_aliases(set: &[Selection], out: &mut Vec<Range<usize>>) {
    for sel in set {
        match sel {
            Selection::Field(f) => {
                if let Some(r) = f.alias.as_ref().and_then(|a| span(a.location())) {
                    out.push(r);
                }
                collect_aliases(&f.selection_set, out);
            }
            Selection::InlineFragment(i) => collect_aliases(&i.selection_set, out),
            Selection::FragmentSpread(_) => {}
        }
    }
}
