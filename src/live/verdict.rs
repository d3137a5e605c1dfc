//! The verdict of one REST call from NetBox's answers (pure): the `count` with the call's
//! filters against the `count` without any, NetBox's refusal text, and the comparison with
//! what the static knowledge says of each filter.
//!
//! | answers                          | finding              |
//! |----------------------------------|----------------------|
//! | 0 < filtered < unfiltered         | `live-narrowed`      |
//! | filtered = 0 < unfiltered         | `live-empty`         |
//! | filtered = unfiltered             | `live-unchanged`     |
//! | HTTP 4xx                          | `live-refused`       |
//! | HTTP 5xx                          | `live-server-fault`  |
//! | no answer                         | `live-no-answer`     |
//! | not sent (budget, earlier failure)| `live-not-sent`      |
//!
//! `live-differs` is added where the answer contradicts the knowledge: NetBox narrowed the list
//! with filters the knowledge says it ignores, accepted a value it says NetBox refuses, ignored
//! a filter (and its negation) it says NetBox has, or refused a value form it did not expect.

use super::digest::Digest;
use super::plan::{CallProbe, ProbeFilter, Static};
use super::{Answer, Answers, Request, Skip, Summary, REBUILD};
use crate::finding::{Finding, Severity};

/// What one answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// HTTP 200 with a NetBox list: its `count`.
    Count(u64),
    /// HTTP 4xx (status, NetBox's text).
    Refused(u16, String),
    /// HTTP 5xx (status, NetBox's text).
    Fault(u16, String),
    /// No usable answer (the reason).
    Failed(String),
    /// Not sent (why).
    NotSent(Skip),
}

fn outcome(a: &Answer) -> Outcome {
    match a {
        Answer::Reply {
            status: 200,
            digest,
        } => match digest {
            Digest::List { count: Some(n), .. } => Outcome::Count(*n),
            Digest::List { count: None, .. } => Outcome::Failed(
                "NetBox gave no count (`\"count\": null`): nothing to compare".into(),
            ),
            Digest::Unreadable(why) => {
                Outcome::Failed(format!("{why}: is the URL the NetBox base URL?"))
            }
            _ => Outcome::Failed("the answer is not a NetBox list".into()),
        },
        Answer::Reply { status, digest } => {
            let words = match digest {
                Digest::Words(w) => w.clone(),
                _ => String::new(),
            };
            match status {
                500.. => Outcome::Fault(*status, words),
                400.. => Outcome::Refused(*status, words),
                _ => Outcome::Failed(format!("HTTP {status}: not a NetBox answer")),
            }
        }
        Answer::Failed(m) => Outcome::Failed(m.clone()),
        Answer::NotSent(m) => Outcome::NotSent(m.clone()),
    }
}

fn get(answers: &Answers, req: &Request) -> Option<Outcome> {
    answers.get(req).map(outcome)
}

/// True when the call came back unchanged (same count as the endpoint, some objects) and its
/// negation could tell why.
pub(crate) fn needs_negation(c: &CallProbe, answers: &Answers) -> bool {
    c.negation.is_some()
        && matches!(
            (get(answers, &c.filtered), get(answers, &c.bare)),
            (Some(Outcome::Count(f)), Some(Outcome::Count(u))) if f == u && u > 0
        )
}

fn quoted(filters: &[&ProbeFilter]) -> String {
    let names: Vec<String> = filters.iter().map(|f| format!("`{}`", f.key)).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The live findings of one call from `answers`, each with the requests it rests on as its
/// proof; nothing when its requests have no answer.
pub(crate) fn judge(c: &CallProbe, answers: &Answers, summary: &mut Summary) -> Vec<Finding> {
    let mut out = findings(c, answers, summary);
    let mut proof = vec![
        c.filtered.exchange(answers.get(&c.filtered)),
        c.bare.exchange(answers.get(&c.bare)),
    ];
    if let Some(n) = c.negation.as_ref().filter(|n| answers.get(n).is_some()) {
        proof.push(n.exchange(answers.get(n)));
    }
    if proof.iter().any(|e| e.status.is_some()) {
        for f in &mut out {
            f.proof = proof.clone();
        }
    }
    out
}

fn findings(c: &CallProbe, answers: &Answers, summary: &mut Summary) -> Vec<Finding> {
    let Some(filtered) = get(answers, &c.filtered) else {
        return Vec::new();
    };
    let call = Judged::of(c);
    match filtered {
        Outcome::NotSent(skip) => not_sent(&call, &skip, summary),
        Outcome::Failed(why) => no_answer(&call, &why, summary),
        Outcome::Refused(status, netbox) => refused(&call, status, &netbox, summary),
        Outcome::Fault(status, netbox) => fault(&call, status, &netbox, summary),
        Outcome::Count(f) => counted(&call, f, answers, summary),
    }
}

/// A call being judged: its probe, its list path, and its filters by what the static
/// knowledge says of each.
struct Judged<'a> {
    c: &'a CallProbe,
    /// `/api/<endpoint>/`.
    path: String,
    /// Filters the knowledge says NetBox ignores, refuses, and honours.
    ignored: Vec<&'a ProbeFilter>,
    rejected: Vec<&'a ProbeFilter>,
    honoured: Vec<&'a ProbeFilter>,
}

impl<'a> Judged<'a> {
    fn of(c: &'a CallProbe) -> Judged<'a> {
        let with = |keep: &dyn Fn(&Static) -> bool| -> Vec<&'a ProbeFilter> {
            c.filters.iter().filter(|f| keep(&f.knowledge)).collect()
        };
        Judged {
            c,
            path: format!("/api/{}/", c.endpoint),
            ignored: with(&|k| matches!(k, Static::Ignored(_))),
            rejected: with(&|k| matches!(k, Static::Rejected(_))),
            honoured: with(&|k| *k == Static::Honoured),
        }
    }

    /// A finding on the call's anchor.
    fn finding(&self, code: &'static str, sev: Severity, msg: String) -> Finding {
        Finding::new(self.c.anchor.clone(), code, sev, msg)
    }

    /// Every filter of the call, quoted.
    fn all_quoted(&self) -> String {
        quoted(&self.c.filters.iter().collect::<Vec<_>>())
    }
}

/// The filtered request was not sent (budget, an earlier failure, the deny-list).
fn not_sent(call: &Judged, skip: &Skip, summary: &mut Summary) -> Vec<Finding> {
    summary.skipped(skip.kind);
    vec![call.finding(
        "live-not-sent",
        Severity::Information,
        format!("Not sent to NetBox: {}.", skip.why),
    )]
}

/// The filtered request got no usable answer.
fn no_answer(call: &Judged, why: &str, summary: &mut Summary) -> Vec<Finding> {
    summary.failed += 1;
    // The reason names the request (`GET /api/…: …`).
    vec![call.finding(
        "live-no-answer",
        Severity::Warning,
        format!("No answer from NetBox: {why}"),
    )]
}

/// NetBox refused the filtered request (HTTP 4xx); a 400 the knowledge did not foresee also
/// differs from it.
fn refused(call: &Judged, status: u16, netbox: &str, summary: &mut Summary) -> Vec<Finding> {
    summary.refused += 1;
    let mut out = vec![call.finding(
        "live-refused",
        Severity::Error,
        format!("NetBox refused the call (HTTP {status}): {netbox}"),
    )];
    // A 400 the knowledge did not foresee, other than a value that names no object (data the
    // knowledge cannot hold).
    let data = netbox.contains("not one of the available choices");
    if status == 400 && !data && call.honoured.len() == call.c.filters.len() {
        summary.differs += 1;
        out.push(call.finding(
            "live-differs",
            Severity::Warning,
            format!(
                "The knowledge expected NetBox to accept {} on {}, but it refused the call (HTTP 400: {netbox}). {REBUILD}",
                call.all_quoted(),
                call.path
            ),
        ));
    }
    out
}

/// NetBox failed on the filtered request (HTTP 5xx).
fn fault(call: &Judged, status: u16, netbox: &str, summary: &mut Summary) -> Vec<Finding> {
    summary.server_fault += 1;
    vec![call.finding(
        "live-server-fault",
        Severity::Error,
        format!(
            "NetBox failed on the call (HTTP {status}): {netbox}. A fault of this NetBox, not of the call's form: filter another way."
        ),
    )]
}

/// NetBox counted `f` objects with the filters: compared with the count without them.
fn counted(call: &Judged, f: u64, answers: &Answers, summary: &mut Summary) -> Vec<Finding> {
    let path = &call.path;
    let u = match get(answers, &call.c.bare) {
        Some(Outcome::Count(u)) => u,
        other => {
            // Only the filtered count is known.
            let why = match other {
                Some(Outcome::Refused(s, t) | Outcome::Fault(s, t)) => format!("HTTP {s}: {t}"),
                Some(Outcome::Failed(t)) => t,
                Some(Outcome::NotSent(t)) => t.why,
                _ => "not asked".to_string(),
            };
            summary.failed += 1;
            return vec![call.finding(
                "live-no-answer",
                Severity::Warning,
                format!(
                    "NetBox answered {f} {} with the filters, but the unfiltered list of {path} gave no count ({why}): nothing to compare.",
                    objects(f)
                ),
            )];
        }
    };
    let mut out = Vec::new();
    // Any filter the knowledge says NetBox refuses was accepted (HTTP 200).
    if !call.rejected.is_empty() {
        summary.differs += 1;
        let codes: Vec<&str> = call
            .rejected
            .iter()
            .filter_map(|f| match f.knowledge {
                Static::Rejected(c) => Some(c),
                _ => None,
            })
            .collect();
        out.push(call.finding(
            "live-differs",
            Severity::Warning,
            format!(
                "NetBox accepted {} (HTTP 200, {f} of {u} objects), which the knowledge says it refuses ({}). {REBUILD}",
                quoted(&call.rejected),
                codes.join(", ")
            ),
        ));
    }
    let mut push = |code: &'static str, sev: Severity, msg: String| {
        out.push(call.finding(code, sev, msg));
    };
    if u == 0 {
        summary.empty += 1;
        push(
            "live-empty",
            Severity::Information,
            format!("NetBox has no objects at {path}: nothing to compare."),
        );
    } else if f == 0 {
        summary.empty += 1;
        push(
            "live-empty",
            Severity::Warning,
            format!(
                "NetBox answered 0 of {u} objects: the values name nothing here (no object has them)."
            ),
        );
    } else if f < u {
        summary.narrowed += 1;
        push(
            "live-narrowed",
            Severity::Information,
            format!("NetBox answered {f} of {u} objects: the filters work here."),
        );
        if call.ignored.len() == call.c.filters.len() {
            summary.differs += 1;
            push(
                "live-differs",
                Severity::Warning,
                format!(
                    "NetBox narrowed the list with {}, which the knowledge says {path} does not have (it would be ignored). {REBUILD}",
                    quoted(&call.ignored)
                ),
            );
        }
    } else if f > u {
        summary.unchanged += 1;
        push(
            "live-unchanged",
            Severity::Warning,
            format!(
                "NetBox answered more objects with the filters ({f}) than without ({u}): the objects changed between the two requests; verify again."
            ),
        );
    } else {
        summary.unchanged += 1;
        out.extend(unchanged(call, u, answers, summary));
    }
    out
}

/// NetBox answered all `u` objects with and without the filters: ignored as the knowledge
/// says, or (with one filter) told apart by its negation, or either.
fn unchanged(call: &Judged, u: u64, answers: &Answers, summary: &mut Summary) -> Vec<Finding> {
    let (c, path) = (call.c, &call.path);
    let all = format!("NetBox answered all {u} objects with and without the filters");
    if !call.ignored.is_empty() {
        return vec![call.finding(
            "live-unchanged",
            Severity::Warning,
            format!(
                "{all}: it ignored {}, as the knowledge says ({}).",
                quoted(&call.ignored),
                why_ignored(&call.ignored, path)
            ),
        )];
    }
    let Some(neg) = &c.negation else {
        let which = if call.honoured.is_empty() {
            call.all_quoted()
        } else {
            quoted(&call.honoured)
        };
        let msg = if c.filters.len() == 1 {
            format!("{all}: either every object matches {which}, or NetBox ignored it (the knowledge says {path} has it).")
        } else {
            format!("{all}: either every object matches them, or NetBox ignored one of {which} (the knowledge says {path} has them).")
        };
        return vec![call.finding("live-unchanged", Severity::Warning, msg)];
    };
    let one = &c.filters[0].key;
    match get(answers, neg) {
        Some(Outcome::Count(0)) => vec![call.finding(
            "live-unchanged",
            Severity::Information,
            format!(
                "{all}: every object matches `{}` here (its negation selects none).",
                super::wire::shown(&c.sent)
            ),
        )],
        Some(Outcome::Count(n)) if n == u => {
            summary.differs += 1;
            vec![
                call.finding(
                    "live-unchanged",
                    Severity::Warning,
                    format!("{all}: it ignored `{one}`."),
                ),
                call.finding(
                    "live-differs",
                    Severity::Warning,
                    format!(
                        "NetBox ignored `{one}` and its negation (both answered all {u} objects), which the knowledge says {path} has. {REBUILD}"
                    ),
                ),
            ]
        }
        Some(Outcome::Count(n)) => vec![call.finding(
            "live-unchanged",
            Severity::Warning,
            format!(
                "{all}, yet {n} objects with `{one}` negated: the objects changed between the requests, or NetBox reads `{one}` another way; verify again."
            ),
        )],
        _ => vec![call.finding(
            "live-unchanged",
            Severity::Warning,
            format!(
                "{all}: either every object matches `{one}`, or NetBox ignored it (the knowledge says {path} has it)."
            ),
        )],
    }
}

/// Why the knowledge says NetBox ignores `ignored`, by the codes of their static findings: an
/// empty value (`dropped-value`) is no filter; other codes name something the endpoint does
/// not read.
fn why_ignored(ignored: &[&ProbeFilter], path: &str) -> String {
    let dropped = |f: &&&ProbeFilter| f.knowledge == Static::Ignored("dropped-value");
    let empties: Vec<&ProbeFilter> = ignored.iter().filter(dropped).copied().collect();
    let others: Vec<&ProbeFilter> = ignored.iter().filter(|f| !dropped(f)).copied().collect();
    let mut parts = Vec::new();
    if !empties.is_empty() {
        parts.push(format!(
            "an empty value is no filter: NetBox drops {}",
            quoted(&empties)
        ));
    }
    if !others.is_empty() {
        let what = if others.len() == 1 {
            "a filter"
        } else {
            "filters"
        };
        if empties.is_empty() {
            parts.push(format!("not {what} of {path}"));
        } else {
            parts.push(format!(
                "{} {} not {what} of {path}",
                quoted(&others),
                if others.len() == 1 { "is" } else { "are" }
            ));
        }
    }
    parts.join("; ")
}

fn objects(n: u64) -> &'static str {
    if n == 1 {
        "object"
    } else {
        "objects"
    }
}
