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

use super::plan::{CallProbe, ProbeFilter, Static};
use super::{Answer, Answers, Request, Summary, REBUILD};
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
    /// Not sent (the reason).
    NotSent(String),
}

fn outcome(a: &Answer) -> Outcome {
    match a {
        Answer::Reply { status: 200, body } => {
            match serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v.get("count").and_then(serde_json::Value::as_u64))
            {
                Some(n) => Outcome::Count(n),
                None => Outcome::Failed(
                    "the answer is not a NetBox list (no `count`): is the URL the NetBox base URL?"
                        .into(),
                ),
            }
        }
        Answer::Reply { status, body } if *status >= 500 => Outcome::Fault(*status, text(body)),
        Answer::Reply { status, body } => Outcome::Refused(*status, text(body)),
        Answer::Failed(m) => Outcome::Failed(m.clone()),
        Answer::NotSent(m) => Outcome::NotSent(m.clone()),
    }
}

/// NetBox's own words from a refusal body: `` `status`: Select a valid choice. … `` for a
/// filter error (`{"status": ["…"]}`), the `detail` text, `DataError: …` for a server error
/// (`{"error": …, "exception": …}`), else the start of the body. At most 400 characters.
pub fn text(body: &[u8]) -> String {
    let v: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let s = match v.as_ref().and_then(|v| v.as_object()) {
        Some(o) if o.contains_key("error") => {
            let e = o.get("error").and_then(|e| e.as_str()).unwrap_or_default();
            match o.get("exception").and_then(|x| x.as_str()) {
                Some(x) => format!("{x}: {e}"),
                None => e.to_string(),
            }
        }
        Some(o) if o.get("detail").is_some_and(|d| d.is_string()) => {
            o["detail"].as_str().unwrap_or_default().to_string()
        }
        Some(o) if !o.is_empty() => o
            .iter()
            .map(|(k, v)| {
                let msgs = match v {
                    serde_json::Value::Array(a) => a
                        .iter()
                        .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_string))
                        .collect::<Vec<_>>()
                        .join(" "),
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                format!("`{k}`: {msgs}")
            })
            .collect::<Vec<_>>()
            .join("; "),
        _ => String::from_utf8_lossy(&body[..body.len().min(600)]).into_owned(),
    };
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match s.char_indices().nth(400) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
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

/// The live findings of one call from `answers`; nothing when its requests have no answer.
pub(crate) fn judge(c: &CallProbe, answers: &Answers, summary: &mut Summary) -> Vec<Finding> {
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
        Outcome::NotSent(why) => {
            summary.not_sent += 1;
            push(
                "live-not-sent",
                Severity::Information,
                format!("Not sent to NetBox: {why}."),
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
                        Some(Outcome::Failed(t) | Outcome::NotSent(t)) => t,
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
                            "{all}: it ignored {}, as the knowledge says (not {} of {path}).",
                            quoted(&ignored),
                            if ignored.len() == 1 {
                                "a filter"
                            } else {
                                "filters"
                            }
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

fn objects(n: u64) -> &'static str {
    if n == 1 {
        "object"
    } else {
        "objects"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netbox_texts() {
        assert_eq!(
            text(br#"{"status":["Select a valid choice. bogus is not one of the available choices."]}"#),
            "`status`: Select a valid choice. bogus is not one of the available choices."
        );
        assert_eq!(
            text(br#"{"error": "invalid regular expression: brackets [] not balanced", "exception": "DataError", "netbox_version": "4.6.8"}"#),
            "DataError: invalid regular expression: brackets [] not balanced"
        );
        assert_eq!(text(br#"{"detail":"Not found."}"#), "Not found.");
        assert_eq!(text(b"<html>\n  oops </html>"), "<html> oops </html>");
        assert!(text(&vec![b'x'; 5000]).chars().count() <= 401);
    }
}
