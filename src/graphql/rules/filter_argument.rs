//! `graphql-filter-argument`: filters given where NetBox does not read them. The singular
//! `filter:` argument (strawberry-django names it `filters:`), and filters written as plain
//! arguments of a list field (`vlan_list(vid: 100)`, the 3.x graphene form, netbox#8245):
//! since 4.0 a list field takes its filters inside `filters:` (release notes 4.0, "GraphQL API
//! Changes"), so such an argument is refused as unknown.
//!
//! Both fixes are certain and keep the values where they stand (a rename, or `filters: {` and
//! `}` inserted around the arguments), so the errors of the values themselves are found by
//! checking the fixed document and reported in the same run (`check`).

use super::lookups::{literal_fits, wrapped};
use super::{span, Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use apollo_compiler::schema::InputObjectType;
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
            does: None,
        });
    }

    /// `graphql-filter-argument` for arguments of `f` that are fields of
    /// its filter input `fobj`: one finding on the first, naming the form with all of them in
    /// `filters:`. The fix inserts `filters: {` and `}` around them when they stand together
    /// and no `filters:` is written (the values stay; their own errors are reported from the
    /// fixed document); else it moves them into `filters:` with each value as the filter
    /// field's type takes it, certain only when every value fits.
    pub(super) fn misplaced_filters(
        &mut self,
        f: &Node<ast::Field>,
        fobj: &InputObjectType,
        misplaced: &[usize],
    ) {
        let schema = &self.nb.schema;
        let args = &f.arguments;
        let Some(spans) = misplaced
            .iter()
            .map(|&i| {
                Some((
                    span(args[i].location())?,
                    span(args[i].name.location())?,
                    span(args[i].value.location())?,
                ))
            })
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        // Each value as the filter field's type takes it, for the message (and the moving fix).
        let mut fits_all = true;
        let entries: Vec<String> = misplaced
            .iter()
            .zip(&spans)
            .map(|(&i, (_, _, vr))| {
                let a = &args[i];
                let src = self.src(vr).to_string();
                let value = match fobj.fields.get(a.name.as_str()) {
                    Some(fd) if literal_fits(schema, &fd.ty, &a.value) => src,
                    Some(fd) => match schema
                        .get_input_object(fd.ty.inner_named_type())
                        .filter(|_| !fd.ty.is_list())
                        .and_then(|o| wrapped(schema, o, &a.value, &src))
                    {
                        Some(w) => w,
                        None => {
                            fits_all = false;
                            src
                        }
                    },
                    None => src,
                };
                format!("{}: {value}", a.name)
            })
            .collect();
        let field = f.name.as_str();
        let names: Vec<String> = misplaced
            .iter()
            .map(|&i| format!("`{}`", args[i].name))
            .collect();
        let written_filters = args.iter().find(|a| a.name == "filters");
        let together = misplaced.windows(2).all(|w| w[1] == w[0] + 1);
        let (first, last) = (&spans[0], &spans[spans.len() - 1]);
        let mut message = format!(
            "{} {} filter{} of `{field}`, not {}: NetBox (4.0 and later) reads a list's filters only inside `filters:` (`{}`), so it refuses the document",
            and_list(&names),
            if names.len() == 1 { "is a" } else { "are" },
            if names.len() == 1 { "" } else { "s" },
            if names.len() == 1 { "an argument" } else { "arguments" },
            fobj.name,
        );
        let shown = format!("{{{}}}", entries.join(", "));
        let fix = match written_filters {
            None if together => {
                message.push_str(&format!(": write `{field}(filters: {shown}"));
                let kept: Vec<String> = args
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !misplaced.contains(i))
                    .filter_map(|(_, a)| Some(self.src(&span(a.location())?).to_string()))
                    .collect();
                for k in &kept {
                    message.push_str(&format!(", {k}"));
                }
                message.push_str(")`.");
                self.out.claims.push(first.0.start..last.0.end);
                Some(RawFix {
                    title: "Put the filters inside `filters: {...}`".into(),
                    edits: vec![
                        (first.0.start..first.0.start, "filters: {".into()),
                        (last.0.end..last.0.end, "}".into()),
                    ],
                    certain: true,
                })
            }
            _ => {
                message.push_str(&format!(
                    ": move {} into `filters:` (`{shown}`).",
                    and_list(&names)
                ));
                for s in &spans {
                    self.out.claims.push(s.0.clone());
                }
                let target = written_filters.and_then(|a| span(a.value.location()));
                let mut edits: Vec<_> = spans
                    .iter()
                    .map(|s| (self.with_separator(s.0.clone()), String::new()))
                    .collect();
                match (written_filters, target) {
                    (Some(a), Some(tr)) if matches!(a.value.as_ref(), ast::Value::Object(_)) => {
                        let empty =
                            matches!(a.value.as_ref(), ast::Value::Object(o) if o.is_empty());
                        let sep = if empty { "" } else { ", " };
                        edits.push((
                            tr.end - 1..tr.end - 1,
                            format!("{sep}{}", entries.join(", ")),
                        ));
                    }
                    (None, _) => {
                        edits.push((first.0.start..first.0.start, format!("filters: {shown}, ")));
                    }
                    _ => edits.clear(),
                }
                edits.sort_by_key(|(r, _)| r.start);
                let overlapping = edits.windows(2).any(|w| w[0].0.end > w[1].0.start);
                (!edits.is_empty() && !overlapping).then(|| RawFix {
                    title: format!("Move {} into `filters:`", and_list(&names)),
                    edits,
                    certain: fits_all,
                })
            }
        };
        let claim = self
            .out
            .claims
            .last()
            .cloned()
            .filter(|_| written_filters.is_none() && together);
        self.push(RawFinding {
            range: first.1.clone(),
            code: "graphql-filter-argument",
            severity: Severity::Error,
            message,
            fixes: fix.into_iter().collect(),
            claim,
            does: None,
        });
    }
}

/// "`a`", "`a` and `b`", "`a`, `b` and `c`" (the names already quoted).
fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
