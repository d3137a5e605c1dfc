//! `graphql-pagination`: `limit:`/`offset:` as field arguments, `start` with `offset`, and
//! unpaginated root lists on releases that cut them at MAX_PAGE_SIZE.

use super::{span, Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use apollo_compiler::ast::{self, Value};
use apollo_compiler::Node;

impl Ctx<'_> {
    /// An unpaginated root list (`{ interface_list { id } }`): from 4.5.5 NetBox cuts it at
    /// MAX_PAGE_SIZE without telling (netbox#21933, #21935). A warning on an unfiltered list,
    /// where the cut is likely; information when the list has `filters:` (a filtered list rarely
    /// reaches 1000 objects, and the ground truth's filtered lists come back whole).
    pub(super) fn unpaginated(&mut self, f: &Node<ast::Field>) {
        if !self.nb.caps_unpaginated_lists() || f.arguments.iter().any(|a| a.name == "pagination") {
            return;
        }
        let Some(r) = span(f.name.location()) else {
            return;
        };
        // `filter:` is the misspelled `filters:` (its own finding): the list is meant filtered.
        let filtered = f
            .arguments
            .iter()
            .any(|a| a.name == "filters" || a.name == "filter");
        let (severity, what) = if filtered {
            (
                Severity::Information,
                "; a filtered list rarely reaches that, but if this one can, add `pagination: {limit: 500, offset: 0}` and page through.",
            )
        } else {
            (
                Severity::Warning,
                ", silently. Add `pagination: {limit: 500, offset: 0}` and page through.",
            )
        };
        self.push(RawFinding {
            range: r,
            code: "graphql-pagination",
            severity,
            message: format!(
                "NetBox {} returns at most MAX_PAGE_SIZE (default 1000) objects from `{}` without `pagination`{what}",
                self.nb.netbox_version, f.name
            ),
            fixes: Vec::new(),
            claim: None,
            does: Some(crate::finding::Does::Truncates),
        });
    }

    /// `graphql-pagination`: `limit:`/`offset:` as field arguments → `pagination: {limit, offset}`.
    pub(super) fn legacy_pagination(
        &mut self,
        args: &[&Node<ast::Argument>],
        f: &Node<ast::Field>,
        already: bool,
    ) {
        let parts: Vec<String> = args
            .iter()
            .filter_map(|a| {
                span(a.value.location()).map(|r| format!("{}: {}", a.name, self.src(&r)))
            })
            .collect();
        let working = format!("pagination: {{{}}}", parts.join(", "));
        let mut edits = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let Some(r) = span(a.location()) else { return };
            if i == 0 {
                edits.push((r, working.clone()));
            } else {
                edits.push((self.with_separator(r), String::new()));
            }
        }
        let claim = args
            .iter()
            .filter_map(|a| span(a.location()))
            .reduce(|a, b| a.start.min(b.start)..a.end.max(b.end));
        let Some(first) = span(args[0].location()) else {
            return;
        };
        let fixes = if already {
            Vec::new()
        } else {
            vec![RawFix {
                title: format!("Use `{working}`"),
                edits,
                certain: true,
            }]
        };
        self.push(RawFinding {
            range: first,
            code: "graphql-pagination",
            severity: Severity::Error,
            message: format!(
                "`{}` takes no `limit`/`offset` arguments; NetBox pages with `{working}`.",
                f.name
            ),
            fixes,
            claim,
            does: None,
        });
    }

    /// `pagination: {start, offset}` together: NetBox ≥ 4.5.10 answers "Cannot specify both
    /// `start` and `offset` in pagination".
    pub(super) fn pagination(&mut self, arg: &Node<ast::Argument>) {
        let Value::Object(fields) = arg.value.as_ref() else {
            return;
        };
        if !self.nb.pagination_has_start {
            return;
        }
        let start = fields.iter().find(|(n, _)| n == "start");
        let offset = fields.iter().find(|(n, _)| n == "offset");
        if let (Some(s), Some(_)) = (start, offset) {
            if let Some(r) = span(s.0.location()) {
                self.push(RawFinding {
                    range: r,
                    code: "graphql-pagination",
                    severity: Severity::Error,
                    message: "NetBox refuses `start` together with `offset` (\"Cannot specify both `start` and `offset` in pagination\"): use `pagination: {offset: N, limit: M}` or `pagination: {start: ID, limit: M}`.".into(),
                    fixes: Vec::new(),
                    claim: None,
                    does: None,
                });
            }
        }
    }
}
