//! Which requests a document's calls need: per REST call the filtered request, the bare
//! request of its endpoint and, for a single filter, the request with the filter negated (sent
//! only when the first two tell nothing apart); per GraphQL document its query operations.
//! Also what the static knowledge says of each filter, for the comparison in [`super::verdict`].
//! Pure: a document and the knowledge in, requests out.

use super::graphql::{self, DocProbe};
use super::{deny, wire, Answers, Bound, Request, Skip};
use crate::analysis::{Knowledge, Report};
use crate::extract::{CallForm, HostKind, RestCall, Site};
use crate::finding::{Does, Finding, Severity};
use crate::index::FilterIndex;
use std::ops::Range;

/// Query parameters that only page the list: the live request sets `limit=1` itself, and the
/// count does not depend on them (with `start`, NetBox 4.6's cursor paging, NetBox answers
/// `"count": null`: 4.6.8 sweep, `start=999999`).
const PAGING: &[&str] = &["limit", "offset", "start"];

/// What the static knowledge says NetBox does with one filter (from the static findings on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Static {
    /// No finding that says otherwise: NetBox filters by it.
    Honoured,
    /// NetBox ignores it (the code that says so: `unknown-filter`, `unsupported-lookup`, …).
    Ignored(&'static str),
    /// NetBox refuses it with HTTP 400 or 500 (`invalid-choice`, `invalid-value`, …).
    Rejected(&'static str),
    /// A finding whose outcome the counts cannot confirm (`server-fault`, `dropped-value`,
    /// `single-value-filter`, …): not compared.
    Unclear,
}

impl Static {
    /// The static verdict a finding stands for, from what NetBox does with it
    /// ([`crate::catalogue::does`]): an information or hint is no refusal (a value that may
    /// well be right), and what the counts cannot confirm (a fault, a value matching nothing,
    /// an answer that varies) is not compared.
    fn of(f: &Finding) -> Static {
        let informs = matches!(f.severity, Severity::Information | Severity::Hint);
        match crate::catalogue::does(f) {
            Does::Ignores => Static::Ignored(f.code),
            Does::Refuses if !informs => Static::Rejected(f.code),
            _ if informs => Static::Honoured,
            _ => Static::Unclear,
        }
    }

    pub(super) fn rank(self) -> u8 {
        match self {
            Static::Honoured => 0,
            Static::Unclear => 1,
            Static::Ignored(_) => 2,
            Static::Rejected(_) => 3,
        }
    }
}

/// One filter of a probed call: a key and all its values, as NetBox reads them (`x=14&x=0` is
/// one filter `x` with two values, not two filters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeFilter {
    /// The key as sent (`role_id`).
    pub key: String,
    /// Host bytes from its first `key: value` pair to its last (a repeated key has several).
    pub range: Range<usize>,
    /// Host bytes of each of its pairs.
    pub pairs: Vec<Range<usize>>,
    /// What the knowledge says of it.
    pub knowledge: Static,
}

/// The requests of one REST call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallProbe {
    /// Host bytes of the whole call.
    pub call_range: Range<usize>,
    /// Host bytes the call's live findings are reported on (its filters, else the call).
    pub anchor: Range<usize>,
    /// Index key of the endpoint (`dcim/devices`).
    pub endpoint: String,
    pub filters: Vec<ProbeFilter>,
    /// The pairs sent, in order (without `limit=1`).
    pub sent: Vec<(String, String)>,
    /// `GET /api/<endpoint>/?<sent>&limit=1`.
    pub filtered: Request,
    /// `GET /api/<endpoint>/?limit=1`.
    pub bare: Request,
    /// The one filter negated (`status__n=active`), when the call has one filter the knowledge
    /// says NetBox honours and the endpoint has the negated lookup: tells "every object
    /// matches" (the negation selects none) from "NetBox ignores it" (it selects all).
    pub negation: Option<Request>,
}

/// The live plan of one document.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub calls: Vec<CallProbe>,
    pub documents: Vec<DocProbe>,
    /// REST calls read but not checkable live: their host range and why.
    pub not_checkable: Vec<(Range<usize>, Skip)>,
    /// Findings made without any request, with the kind of refusal: calls and operations
    /// never sent (a sensitive endpoint, a secret field, a mutation, an unbounded list,
    /// introspection).
    pub refused: Vec<(Finding, &'static str)>,
    /// Host ranges of every REST call and of the Markdown code blocks (for suppression
    /// comments, as for static findings).
    pub(super) call_ranges: Vec<Range<usize>>,
    pub(super) blocks: Vec<Range<usize>>,
}

impl Plan {
    /// The first requests to send, in document order: per call its bare and filtered request,
    /// per GraphQL operation its request. A call's two requests are sent together or not at
    /// all (see [`super::run`]).
    pub fn requests(&self) -> Vec<Vec<Request>> {
        let mut out: Vec<(usize, Vec<Request>)> = self
            .calls
            .iter()
            .map(|c| (c.call_range.start, vec![c.bare.clone(), c.filtered.clone()]))
            .collect();
        out.extend(self.documents.iter().flat_map(|d| {
            d.operations
                .iter()
                .map(|o| (o.range.start, vec![o.request.clone()]))
        }));
        out.sort_by_key(|(at, _)| *at);
        out.into_iter().map(|(_, g)| g).collect()
    }

    /// Every request the plan may send.
    pub fn all_requests(&self) -> Vec<Request> {
        let mut out: Vec<Request> = self.requests().into_iter().flatten().collect();
        out.extend(self.calls.iter().filter_map(|c| c.negation.clone()));
        out
    }

    /// Keeps only the calls and operations that `answers` has no answer for (a call edited
    /// since the last verification).
    pub fn unanswered(mut self, answers: &Answers) -> Plan {
        self.calls.retain(|c| answers.get(&c.filtered).is_none());
        for d in &mut self.documents {
            d.operations.retain(|o| answers.get(&o.request).is_none());
        }
        self.documents.retain(|d| !d.operations.is_empty());
        self
    }

    /// Keeps only the calls and documents that overlap host bytes `range` (a "verify this
    /// call" request from the editor).
    pub fn only(mut self, range: &Range<usize>) -> Plan {
        let hit = |r: &Range<usize>| overlaps(r, range);
        self.calls
            .retain(|c| hit(&c.call_range) || c.filters.iter().any(|f| hit(&f.range)));
        self.documents.retain(|d| hit(&d.range));
        self.not_checkable.retain(|(r, _)| hit(r));
        self.refused.retain(|(f, _)| hit(&f.range));
        self
    }
}

/// The live plan of `text`, a host document of `kind`, under `knowledge`: its analysis
/// ([`crate::analysis::analyze_kept`]) read by [`of_report`]. A caller that has the analysis
/// calls [`of_report`] itself.
pub fn plan(text: &str, kind: HostKind, knowledge: &Knowledge, bound: Bound) -> Plan {
    if crate::analysis::is_binary(text.as_bytes()) {
        return Plan::default();
    }
    of_report(
        &crate::analysis::analyze_kept(text, kind, knowledge, None),
        knowledge,
        text,
        bound,
    )
}

/// The live plan of host document `text` from its analysis `report` (made by
/// [`crate::analysis::analyze_kept`] with `knowledge`): the sites the site filters kept (what
/// they held back, a lesson, release history, a Django query, another product's call, is no
/// call and is never sent), each REST call's static verdicts from its own findings in the
/// report. Nothing is read or checked again.
pub fn of_report(report: &Report, knowledge: &Knowledge, text: &str, bound: Bound) -> Plan {
    let mut plan = Plan {
        blocks: report.blocks.clone(),
        ..Plan::default()
    };
    let schema = report
        .sites
        .iter()
        .any(|s| matches!(s.site, Site::Graphql(_)))
        .then(|| knowledge.schema())
        .flatten();
    for checked in &report.sites {
        let site = &checked.site;
        match site {
            Site::Rest(call) => {
                plan.call_ranges.push(call.call_range.clone());
                let Some(index) = knowledge.index.as_deref() else {
                    continue;
                };
                match call_probe(call, index, text, &checked.findings) {
                    Ok(p) => match denied(&p) {
                        Some(why) => plan.refused.push((
                            Finding::new(
                                p.anchor.clone(),
                                "live-not-sent",
                                Severity::Information,
                                format!("Not sent to NetBox: {why}. Its count would tell what it holds, and a repository's CI log is public."),
                            ),
                            "sensitive",
                        )),
                        None => plan.calls.push(p),
                    },
                    Err(skip) => plan.not_checkable.push((call.call_range.clone(), skip)),
                }
            }
            Site::Graphql(doc) => {
                let Some(schema) = schema.as_deref() else {
                    continue;
                };
                match graphql::doc_probe(doc, schema, bound) {
                    graphql::Planned::Probe(p) => plan.documents.push(p),
                    graphql::Planned::Refused(f, kind) => {
                        plan.refused.extend(f.into_iter().map(|f| (f, kind)))
                    }
                    graphql::Planned::NotCheckable(skip) => plan
                        .not_checkable
                        .push((doc.map.range_to_host(0..doc.text.len()), skip)),
                }
            }
            // Refused by the nesting guard: the static check reports it as not checked.
            Site::NotChecked(_) => {}
        }
    }
    plan
}

/// True when host ranges `a` and `b` overlap or touch (an empty range at either end counts).
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// Why the probe of a call is never sent: its endpoint or one of its filters is on the
/// deny-list ([`deny`]).
fn denied(p: &CallProbe) -> Option<String> {
    if let Some(why) = deny::endpoint(&p.endpoint) {
        return Some(format!("`/api/{}/`: {why}", p.endpoint));
    }
    p.filters
        .iter()
        .find(|f| deny::secret_filter(&f.key))
        .map(|f| {
            format!(
                "`{}` filters on a secret value, which is never probed",
                f.key
            )
        })
}

/// The probe of one REST call of host document `text`, or why it cannot be checked live;
/// `found`: the findings the static checks gave on the call (its filters' static verdicts).
pub fn call_probe(
    call: &RestCall,
    index: &FilterIndex,
    text: &str,
    found: &[Finding],
) -> Result<CallProbe, Skip> {
    let skip = |kind: &'static str, why: String| Skip::new(kind, why);
    match call.form.tool_like() {
        CallForm::GetObjectById | CallForm::SearchObjects => {
            return Err(skip(
                "detail or search",
                "a detail or search call, not a list: never sent".into(),
            ))
        }
        CallForm::Snippet => return Err(skip("no endpoint", "filters without an endpoint".into())),
        CallForm::InventoryBoth => {
            return Err(skip(
                "two endpoints",
                "nb_inventory `query_filters` go to two endpoints: not checked live".into(),
            ))
        }
        _ => {}
    }
    let (written, _) = call.target.as_ref().ok_or_else(|| {
        skip(
            "endpoint not literal",
            "the endpoint is not a literal".into(),
        )
    })?;
    if call.form == CallForm::Url && crate::extract::text::detail_split(written).is_some() {
        return Err(skip(
            "detail or search",
            "a detail URL (one object), not a list: never sent".into(),
        ));
    }
    let target = call.endpoint_target().ok_or_else(|| {
        skip(
            "endpoint unknown",
            format!("`{written}` is not an object type the old MCP tool takes"),
        )
    })?;
    let (endpoint, ep) = index.resolve(target).ok_or_else(|| {
        skip(
            "endpoint unknown",
            format!("`{target}` is not a list endpoint the knowledge knows"),
        )
    })?;
    if call.form == CallForm::Pynetbox {
        if call.args.iter().any(|a| a.name == "id") {
            return Err(skip(
                "detail or search",
                "`.get(<id>)` reads one object by id: never sent".into(),
            ));
        }
        // `**kwargs`: read only when it is a dict literal just above; either way not sure.
        let args = call
            .filters_range
            .as_ref()
            .and_then(|r| text.get(r.clone()));
        if args.is_some_and(|a| a.contains("**")) {
            return Err(skip(
                "value not literal",
                "the filters come (partly) from `**kwargs`: not all literal".into(),
            ));
        }
    }
    let mut sent = Vec::new();
    let mut filters: Vec<ProbeFilter> = Vec::new();
    for e in &call.filters {
        if PAGING.contains(&e.key.as_str()) {
            continue;
        }
        if e.key.is_empty() {
            return Err(skip(
                "value not literal",
                "a filter name is not a literal".into(),
            ));
        }
        let values = wire::values(call.form, &e.value).ok_or_else(|| {
            skip(
                "value not literal",
                format!("the value of `{}` is not a literal", e.key),
            )
        })?;
        for v in values {
            sent.push((e.key.to_string(), v));
        }
        let range =
            e.key_range.start.min(e.value_range.start)..e.key_range.end.max(e.value_range.end);
        // A repeated key is one filter with several values, as NetBox reads a query string.
        match filters.iter_mut().find(|f| f.key == e.key) {
            Some(f) => {
                f.range = f.range.start.min(range.start)..f.range.end.max(range.end);
                f.pairs.push(range);
            }
            None => filters.push(ProbeFilter {
                key: e.key.to_string(),
                range: range.clone(),
                pairs: vec![range],
                knowledge: Static::Honoured,
            }),
        }
    }
    if filters.is_empty() {
        return Err(skip("no filters", "no filters to verify".into()));
    }
    // The static verdict of each filter, from the static findings on its pair.
    for f in found {
        let s = Static::of(f);
        for pf in filters
            .iter_mut()
            .filter(|pf| pf.pairs.iter().any(|r| overlaps(r, &f.range)))
        {
            if s.rank() > pf.knowledge.rank() {
                pf.knowledge = s;
            }
        }
    }
    let with_limit = |pairs: &[(String, String)]| {
        let mut q = pairs.to_vec();
        q.push(("limit".into(), "1".into()));
        wire::query(&q)
    };
    let list = |pairs: &[(String, String)]| Request::List {
        endpoint: endpoint.to_string(),
        query: with_limit(pairs),
    };
    let negation = match filters.as_slice() {
        [one] if one.knowledge == Static::Honoured => negated(&one.key)
            .filter(|n| ep.params.contains_key(n))
            .map(|n| {
                let pairs: Vec<(String, String)> =
                    sent.iter().map(|(_, v)| (n.clone(), v.clone())).collect();
                list(&pairs)
            }),
        _ => None,
    };
    Ok(CallProbe {
        call_range: call.call_range.clone(),
        anchor: call
            .filters_range
            .clone()
            .unwrap_or_else(|| call.call_range.clone()),
        endpoint: endpoint.to_string(),
        filtered: list(&sent),
        bare: list(&[]),
        negation,
        filters,
        sent,
    })
}

/// The negated form of a filter key: `status` → `status__n`, `name__ic` → `name__nic`
/// (NetBox's negated lookups, netbox-facts.md §1.3); `None` for other lookups.
fn negated(key: &str) -> Option<String> {
    match key.rsplit_once("__") {
        None => Some(format!("{key}__n")),
        Some((base, l @ ("ic" | "ie" | "isw" | "iew"))) => Some(format!("{base}__n{l}")),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negations() {
        assert_eq!(negated("status").as_deref(), Some("status__n"));
        assert_eq!(negated("name__ic").as_deref(), Some("name__nic"));
        assert_eq!(negated("id__gte"), None);
        assert_eq!(negated("site_id__n"), None);
    }

    /// A call the text marks as a wrong example is a lesson: never sent; the call beside it is.
    #[test]
    fn a_lesson_is_not_sent() {
        let knowledge = Knowledge {
            index: Some(crate::index::embedded::embedded_index("4.6.8")),
            ..Knowledge::default()
        };
        let text = "# Devices\n\n```python\n# WRONG: NetBox ignores it\nnb.dcim.devices.filter(site_id__in=[1, 2])\n```\n\n```python\nnb.dcim.devices.filter(site_id=[1, 2])\n```\n";
        let p = plan(text, HostKind::Markdown, &knowledge, Bound::Refuse);
        assert_eq!(p.calls.len(), 1, "{:?}", p.calls);
        assert!(
            text[p.calls[0].call_range.clone()].contains("site_id=["),
            "{:?}",
            &text[p.calls[0].call_range.clone()]
        );
    }

    /// One analysis, many consumers (issue 37 §3): the live plan and its judgement read the
    /// analysis's sites, so each call is checked once, by the analysis; the plan from a
    /// report is the plan made from the text, and its findings the same.
    #[test]
    fn each_call_is_checked_once_by_the_analysis() {
        let knowledge = Knowledge {
            index: Some(crate::index::embedded::embedded_index("4.6.8")),
            ..Knowledge::default()
        };
        let text = "```python\nnb.dcim.devices.filter(role='leaf')\nnb.dcim.devices.filter(status='active')\nnb.dcim.sites.filter(nme='x', status='planned')\n```\n";
        // One thread: every check of the run is counted on it.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        pool.install(|| {
            let checked = || crate::rest::CHECKED.with(|n| n.get());
            let before = checked();
            let report = crate::analysis::analyze_kept(text, HostKind::Markdown, &knowledge, None);
            assert_eq!(checked() - before, 3, "the analysis checks each call");
            let plan = of_report(&report, &knowledge, text, Bound::Refuse);
            let mut answers = Answers::default();
            for r in plan.all_requests() {
                answers.by_request.insert(
                    r.clone(),
                    super::super::Answer::of_body(
                        &r,
                        200,
                        br#"{"count": 2, "next": null, "previous": null, "results": []}"#,
                    ),
                );
            }
            let (found, _) = plan.judge(&answers, text, HostKind::Markdown);
            assert_eq!(
                checked() - before,
                3,
                "planning and judging check nothing again"
            );
            assert_eq!(plan.calls.len(), 3);
            // The filter the analysis says NetBox ignores is read as ignored from the report.
            assert!(plan.calls[2]
                .filters
                .iter()
                .any(|f| f.key == "nme" && matches!(f.knowledge, Static::Ignored(_))));
            // The same plan and findings as planning from the text (which analyses it).
            let again = plan_text(text, &knowledge);
            assert_eq!(again.calls, plan.calls);
            assert_eq!(again.judge(&answers, text, HostKind::Markdown).0, found);
        });
    }

    fn plan_text(text: &str, knowledge: &Knowledge) -> Plan {
        plan(text, HostKind::Markdown, knowledge, Bound::Refuse)
    }
}
