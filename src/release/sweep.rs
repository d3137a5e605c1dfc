//! Live verdicts of two releases side by side: the rows of a sweep (`ground-truth-sweep.tsv`)
//! or of a replayed ground truth (`ground-truth.tsv`) whose verdict differs between the
//! previous release and the new one. Patch releases change what the schema cannot show (4.7.3
//! fixed 500s on four filters and turned malformed values into 400s), so these rows are what
//! the review of the hand rules starts from.
//!
//! Rows are matched by endpoint and query string first; sweeps draw their values from the
//! demo data and their parameters by sample, so a row without an exact twin is matched by its
//! keys and probe kind, and a bare filter with its `__n` (the same code path in NetBox's
//! filtersets). A value that names no object (`400 data`) counts as honoured: it says nothing
//! about the filter.

use std::collections::HashMap;

/// One REST row of a sweep or ground-truth file (GraphQL rows are skipped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Index key, `dcim/devices`.
    pub endpoint: String,
    /// The query string as sent (`site_id=21&site_id=7`).
    pub query: String,
    /// HTTP status as written (`200`, `400`, `500`).
    pub status: String,
    /// NetBox's verdict as written (`honoured`, `400 error`, `error 500 (...)`, ...).
    pub verdict: String,
    /// The sweep's probe kind (`param`, `comma`, ...); empty in ground-truth files.
    pub kind: String,
    /// The note (NetBox's error text for refusals).
    pub note: String,
}

/// What a verdict says about the filter, values aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Honoured, or refused only because the value names no object (`400 data`).
    Works,
    /// Honoured with another meaning than the name says.
    OtherMeaning,
    /// Ignored: every object came back.
    Ignored,
    /// Refused with HTTP 400.
    Refused,
    /// HTTP 500.
    Fault,
    /// Only one of several values used.
    Partial,
    /// A verdict this reader does not know.
    Other,
}

impl Class {
    /// The class of a verdict as the sweeps and ground-truth files write it.
    pub fn of(verdict: &str) -> Class {
        let v = verdict.trim();
        if v.starts_with("honoured (a different") {
            Class::OtherMeaning
        } else if v.starts_with("honoured") || v.starts_with("400 data") {
            Class::Works
        } else if v.starts_with("silently-ignored") {
            Class::Ignored
        } else if v.starts_with("400") {
            Class::Refused
        } else if v.starts_with("error 500") || v.starts_with("500") {
            Class::Fault
        } else if v.starts_with("partial") {
            Class::Partial
        } else {
            Class::Other
        }
    }

    /// A short name for the sheet.
    pub fn name(self) -> &'static str {
        match self {
            Class::Works => "honoured",
            Class::OtherMeaning => "honoured with another meaning",
            Class::Ignored => "ignored",
            Class::Refused => "HTTP 400",
            Class::Fault => "HTTP 500",
            Class::Partial => "one value used",
            Class::Other => "other",
        }
    }
}

/// Reads the REST rows of a sweep or ground-truth TSV by its header (`query` or
/// `query_string_or_graphql`, `verdict`, optional `http_status` and `note`). Lines that are not
/// rows (comments, blanks, a short line) are skipped. Errors name a missing column.
pub fn parse(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().ok_or("empty file")?.split('\t').collect();
    let col = |names: &[&str]| header.iter().position(|h| names.contains(h));
    let q = col(&["query", "query_string_or_graphql"]).ok_or("no query column")?;
    let v = col(&["verdict"]).ok_or("no verdict column")?;
    let s = col(&["http_status"]);
    let n = col(&["note"]);
    let mut out = Vec::new();
    for line in lines {
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() <= q.max(v) || c[0] == "graphql" || c[0].is_empty() {
            continue;
        }
        let note = n.and_then(|n| c.get(n)).copied().unwrap_or("");
        out.push(Row {
            endpoint: c[0].to_string(),
            query: c[q].to_string(),
            status: s.and_then(|s| c.get(s)).copied().unwrap_or("").to_string(),
            verdict: c[v].to_string(),
            kind: probe_kind(note).to_string(),
            note: note.to_string(),
        });
    }
    Ok(out)
}

/// `param-lookup` from a note `probe kind param-lookup; ...`; empty when it has none.
pub fn probe_kind(note: &str) -> &str {
    note.split("probe kind ")
        .nth(1)
        .map(|s| s.split([';', ' ', '|']).next().unwrap_or(""))
        .unwrap_or("")
}

/// The keys of a query string, in order (`site_id`, `site_id`).
pub fn keys(query: &str) -> Vec<&str> {
    query
        .split('&')
        .map(|p| p.split_once('=').map_or(p, |(k, _)| k))
        .collect()
}

/// How two rows were paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// The same endpoint and query.
    Exact,
    /// The same endpoint, keys and probe kind; other values.
    SameKeys,
    /// The same endpoint, filter and probe kind; one bare, one negated (`x` and `x__n`).
    SameFilter,
}

/// A row whose verdict class differs between the releases.
#[derive(Debug, Clone)]
pub struct Change<'a> {
    pub old: &'a Row,
    pub new: &'a Row,
    pub pairing: Pairing,
}

/// The comparison of two releases' rows.
#[derive(Debug, Default)]
pub struct Comparison<'a> {
    /// Rows whose class differs, in the new file's order.
    pub changes: Vec<Change<'a>>,
    /// New rows paired with an old one (same class or not).
    pub paired: usize,
    /// New rows without a twin that probe a value meant to narrow (`param`, `param-lookup`,
    /// `reprobe`, or any ground-truth row) and were not honoured: faults and refusals the
    /// previous release's rows cannot show.
    pub first_seen: Vec<&'a Row>,
    /// Rows of each file.
    pub old_rows: usize,
    pub new_rows: usize,
}

/// Probe kinds whose value is drawn from the data (an id, a name): a row of another value
/// with the same keys says the same about the filter. In the other kinds the value is the
/// point (`cabled=1`, `id=1,2`, `status=Active`): only the same query pairs.
fn value_is_data(kind: &str) -> bool {
    matches!(
        kind,
        "" | "param"
            | "param-lookup"
            | "reprobe"
            | "list-array"
            | "list-scalar"
            | "generic-id"
            | "generic-id-list"
            | "in-lookup"
            | "django-lookup"
            | "multi-hop"
            | "misspelled"
            | "regex"
            | "empty-lookup"
            | "null-relation"
    )
}

/// A bare filter and its `__n` are probed as `param` and `param-lookup` (or `reprobe`): one
/// family for [`Pairing::SameFilter`].
fn family(kind: &str) -> &str {
    match kind {
        "param" | "param-lookup" | "reprobe" => "param",
        k => k,
    }
}

/// `(endpoint, base filter)` of a one-key query whose lookup is bare or `n`.
fn filter_of(row: &Row) -> Option<(&str, &str)> {
    match keys(&row.query).as_slice() {
        [k] => {
            let (base, lookup) = k.split_once("__").unwrap_or((k, ""));
            matches!(lookup, "" | "n").then_some((row.endpoint.as_str(), base))
        }
        _ => None,
    }
}

/// Pairs the rows of `new` with those of `old` and lists what changed. Linear in the rows.
pub fn compare<'a>(old: &'a [Row], new: &'a [Row]) -> Comparison<'a> {
    let mut exact: HashMap<(&str, &str), &Row> = HashMap::new();
    let mut same_keys: HashMap<(&str, String, &str), &Row> = HashMap::new();
    let mut same_filter: HashMap<(&str, &str, &str), &Row> = HashMap::new();
    for r in old {
        exact.entry((&r.endpoint, &r.query)).or_insert(r);
        if !value_is_data(&r.kind) {
            continue;
        }
        same_keys
            .entry((&r.endpoint, keys(&r.query).join("&"), &r.kind))
            .or_insert(r);
        if let Some((e, base)) = filter_of(r) {
            same_filter.entry((e, base, family(&r.kind))).or_insert(r);
        }
    }
    let mut out = Comparison {
        old_rows: old.len(),
        new_rows: new.len(),
        ..Comparison::default()
    };
    for r in new {
        let found = exact
            .get(&(r.endpoint.as_str(), r.query.as_str()))
            .map(|o| (*o, Pairing::Exact))
            .or_else(|| {
                if !value_is_data(&r.kind) {
                    return None;
                }
                same_keys
                    .get(&(
                        r.endpoint.as_str(),
                        keys(&r.query).join("&"),
                        r.kind.as_str(),
                    ))
                    .map(|o| (*o, Pairing::SameKeys))
            })
            .or_else(|| {
                let (e, base) = filter_of(r)?;
                same_filter
                    .get(&(e, base, family(&r.kind)))
                    .map(|o| (*o, Pairing::SameFilter))
            });
        match found {
            Some((o, pairing)) => {
                out.paired += 1;
                if Class::of(&o.verdict) != Class::of(&r.verdict) {
                    out.changes.push(Change {
                        old: o,
                        new: r,
                        pairing,
                    });
                }
            }
            None => {
                let narrowing =
                    matches!(r.kind.as_str(), "" | "param" | "param-lookup" | "reprobe");
                if narrowing && Class::of(&r.verdict) != Class::Works {
                    out.first_seen.push(r);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "endpoint\tquery_string_or_graphql\thttp_status\tcount_filtered\tcount_unfiltered\tverdict\tnote\n";

    fn rows(body: &str) -> Vec<Row> {
        parse(&format!("{HEAD}{body}")).unwrap()
    }

    #[test]
    fn classes() {
        assert_eq!(Class::of("honoured"), Class::Works);
        assert_eq!(
            Class::of("400 data (the value names no existing object: out of reach)"),
            Class::Works
        );
        assert_eq!(
            Class::of("error 500 (a NetBox fault for this filter)"),
            Class::Fault
        );
        assert_eq!(Class::of("400 error"), Class::Refused);
        assert_eq!(Class::of("partial: only ONE value used"), Class::Partial);
        assert_eq!(
            Class::of("honoured (a different meaning: the negation is lost)"),
            Class::OtherMeaning
        );
        assert_eq!(Class::of("silently-ignored"), Class::Ignored);
        assert_eq!(probe_kind("probe kind param-lookup; x"), "param-lookup");
        assert_eq!(probe_kind("probe kind misspelled;"), "misspelled");
        assert_eq!(probe_kind("expected 14"), "");
    }

    /// A fault fixed (exact twin), a 500 turned into a 400 on the negated filter (same filter),
    /// a value that now names nothing (no change), and a refusal with no twin (first seen).
    #[test]
    fn pairs_and_changes() {
        let old = rows(concat!(
            "dcim/front-ports\trear_port_id=1250\t500\t\t912\terror 500 (a NetBox fault for this filter)\tprobe kind param; FieldError\n",
            "dcim/sites\ttime_zone=zz-no-such\t500\t\t24\terror 500 (a NetBox fault for this filter)\tprobe kind param; ValueError\n",
            "dcim/sites\ttenant_group=1\t200\t1\t24\thonoured\tprobe kind param;\n",
            "dcim/interfaces\tcabled=True\t200\t1\t9\thonoured\tprobe kind bool-form;\n",
            "graphql\t{ x }\t200\t\t\thonoured\t\n",
        ));
        let new = rows(concat!(
            "dcim/front-ports\trear_port_id=1250\t200\t3\t912\thonoured\tprobe kind param;\n",
            "dcim/sites\ttime_zone__n=zz-no-such\t400\t\t24\t400 error\tprobe kind param; Invalid timezone\n",
            "dcim/sites\ttenant_group=999999\t400\t\t24\t400 data (the value names no existing object)\tprobe kind param;\n",
            "virtualization/virtual-machines\tmac_address=zz-no-such\t400\t\t182\t400 error\tprobe kind param; Invalid MAC\n",
            "dcim/sites\tid=1,2\t400\t\t24\t400 error\tprobe kind comma; id: Enter a whole number.\n",
            "dcim/interfaces\tcabled=1\t200\t9\t9\tsilently-ignored\tprobe kind bool-form;\n",
        ));
        assert_eq!(old.len(), 4, "the GraphQL row is skipped");
        let c = compare(&old, &new);
        let got: Vec<(&str, &str, Pairing)> = c
            .changes
            .iter()
            .map(|ch| (ch.old.query.as_str(), ch.new.query.as_str(), ch.pairing))
            .collect();
        assert_eq!(
            got,
            [
                ("rear_port_id=1250", "rear_port_id=1250", Pairing::Exact),
                (
                    "time_zone=zz-no-such",
                    "time_zone__n=zz-no-such",
                    Pairing::SameFilter
                ),
            ]
        );
        assert_eq!(c.paired, 3);
        let first: Vec<&str> = c.first_seen.iter().map(|r| r.query.as_str()).collect();
        assert_eq!(
            first,
            ["mac_address=zz-no-such"],
            "a comma probe is meant to fail"
        );
        // `cabled=1` and `cabled=True` are different probes, not one probe with two values.
        assert!(c.changes.iter().all(|ch| ch.new.kind != "bool-form"));
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("endpoint\tverdict\n").is_err());
        assert!(parse("endpoint\tquery\n").is_err());
        // A short line is skipped, not a panic.
        assert_eq!(
            parse("endpoint\tquery\tverdict\ndcim/devices\n")
                .unwrap()
                .len(),
            0
        );
    }
}
