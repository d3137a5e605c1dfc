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
    let path = format!("/api/{}/", c.endpoint);
    let at = c.anchor.clone();
    let mut out = Vec::new();
    let mut push = |code: &'static str, sev: Severity, msg: String| {
        out.push(Finding::new(at.clone(), code, sev, msg));
    };
    let ignored: Vec<&ProbeFilter> = c
        .filters
        .iter()
        .filter(|f| matches!(f.knowledge, Static::Ignored(_)))
        .collect();
    let rejected: Vec<&ProbeFilter> = c
        .filters
        .iter()
        .filter(|f| matches!(f.knowledge, Static::Rejected(_)))
        .collect();
    let honoured: Vec<&ProbeFilter> = c
        .filters
        .iter()
        .filter(|f| f.knowledge == Static::Honoured)
        .collect();
    match filtered {
        Outcome::NotSent(skip) => {
            summary.skipped(skip.kind);
            push(
                "live-not-sent",
                Severity::Information,
                format!("Not sent to NetBox: {}.", skip.why),
            );
        }
        Outcome::Failed(why) => {
            summary.failed += 1;
            push(
                "live-no-answer",
                Severity::Warning,
                // The reason names the request (`GET /api/…: …`).
                format!("No answer from NetBox: {why}"),
            );
        }
        Outcome::Refused(status, netbox) => {
            summary.refused += 1;
            push(
                "live-refused",
                Severity::Error,
                format!("NetBox refused the call (HTTP {status}): {netbox}"),
            );
            // A 400 the knowledge did not foresee, other than a value that names no object
            // (data the knowledge cannot hold).
            let data = netbox.contains("not one of the available choices");
            if status == 400 && !data && honoured.len() == c.filters.len() {
                summary.differs += 1;
                out.push(Finding::new(
                    at.clone(),
                    "live-differs",
                    Severity::Warning,
                    format!(
                        "The knowledge expected NetBox to accept {} on {path}, but it refused the call (HTTP 400: {netbox}). {REBUILD}",
                        quoted(&c.filters.iter().collect::<Vec<_>>())
                    ),
                ));
            }
        }
        Outcome::Fault(status, netbox) => {
            summary.server_fault += 1;
            push(
                "live-server-fault",
                Severity::Error,
                format!(
                    "NetBox failed on the call (HTTP {status}): {netbox}. A fault of this NetBox, not of the call's form: filter another way."
                ),
            );
        }
        Outcome::Count(f) => {
            let bare = get(answers, &c.bare);
            let u = match bare {
                Some(Outcome::Count(u)) => u,
                other => {
                    // Only the filtered count is known.
                    let why = match other {
                        Some(Outcome::Refused(s, t) | Outcome::Fault(s, t)) => {
                            format!("HTTP {s}: {t}")
                        }
                        Some(Outcome::Failed(t)) => t,
                        Some(Outcome::NotSent(t)) => t.why,
                        _ => "not asked".to_string(),
                    };
                    summary.failed += 1;
                    push(
                        "live-no-answer",
                        Severity::Warning,
                        format!(
                            "NetBox answered {f} {} with the filters, but the unfiltered list of {path} gave no count ({why}): nothing to compare.",
                            objects(f)
                        ),
                    );
                    return out;
                }
            };
            // Any filter the knowledge says NetBox refuses was accepted (HTTP 200).
            if !rejected.is_empty() {
                summary.differs += 1;
                let codes: Vec<&str> = rejected
                    .iter()
                    .filter_map(|f| match f.knowledge {
                        Static::Rejected(c) => Some(c),
                        _ => None,
                    })
                    .collect();
                out.push(Finding::new(
                    at.clone(),
                    "live-differs",
                    Severity::Warning,
                    format!(
                        "NetBox accepted {} (HTTP 200, {f} of {u} objects), which the knowledge says it refuses ({}). {REBUILD}",
                        quoted(&rejected),
                        codes.join(", ")
                    ),
                ));
            }
            let mut push = |code: &'static str, sev: Severity, msg: String| {
                out.push(Finding::new(at.clone(), code, sev, msg));
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
                if ignored.len() == c.filters.len() {
                    summary.differs += 1;
                    push(
                        "live-differs",
                        Severity::Warning,
                        format!(
                            "NetBox narrowed the list with {}, which the knowledge says {path} does not have (it would be ignored). {REBUILD}",
                            quoted(&ignored)
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
                let all = format!("NetBox answered all {u} objects with and without the filters");
                if !ignored.is_empty() {
                    push(
                        "live-unchanged",
                        Severity::Warning,
                        format!(
                            "{all}: it ignored {}, as the knowledge says ({}).",
                            quoted(&ignored),
                            why_ignored(&ignored, &path)
                        ),
                    );
                } else if let Some(neg) = &c.negation {
                    let one = &c.filters[0].key;
                    match get(answers, neg) {
                        Some(Outcome::Count(0)) => push(
                            "live-unchanged",
                            Severity::Information,
                            format!(
                                "{all}: every object matches `{}` here (its negation selects none).",
                                super::wire::shown(&c.sent)
                            ),
                        ),
                        Some(Outcome::Count(n)) if n == u => {
                            push(
                                "live-unchanged",
                                Severity::Warning,
                                format!("{all}: it ignored `{one}`."),
                            );
                            summary.differs += 1;
                            push(
                                "live-differs",
                                Severity::Warning,
                                format!(
                                    "NetBox ignored `{one}` and its negation (both answered all {u} objects), which the knowledge says {path} has. {REBUILD}"
                                ),
                            );
                        }
                        Some(Outcome::Count(n)) => push(
                            "live-unchanged",
                            Severity::Warning,
                            format!(
                                "{all}, yet {n} objects with `{one}` negated: the objects changed between the requests, or NetBox reads `{one}` another way; verify again."
                            ),
                        ),
                        _ => push(
                            "live-unchanged",
                            Severity::Warning,
                            format!(
                                "{all}: either every object matches `{one}`, or NetBox ignored it (the knowledge says {path} has it)."
                            ),
                        ),
                    }
                } else {
                    let which = if honoured.is_empty() {
                        quoted(&c.filters.iter().collect::<Vec<_>>())
                    } else {
                        quoted(&honoured)
                    };
                    let msg = if c.filters.len() == 1 {
                        format!("{all}: either every object matches {which}, or NetBox ignored it (the knowledge says {path} has it).")
                    } else {
                        format!("{all}: either every object matches them, or NetBox ignored one of {which} (the knowledge says {path} has them).")
                    };
                    push("live-unchanged", Severity::Warning, msg);
                }
            }
        }
    }
    out
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
