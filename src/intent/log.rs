//! Request logs: a URL on a line that records a request NetBox (or a proxy before it) served,
//! in the request-line form of the Common Log Format that gunicorn, nginx, Apache and Django's
//! development server write (`"GET /api/dcim/devices/?site_id=3 HTTP/1.1" 200 1532`). A record
//! says what was sent and answered, not what to send: a skill or a debugging page that pastes
//! one ("the log shows `... HTTP/1.1" 200`: the filter was ignored") is read, not called. The
//! same URL without the protocol and status stays a call.

use super::{Doc, SiteCx, SiteFilter, Verdict, Why};
use crate::extract::{CallForm, Site};
use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// The request line and status of one log record: method, target, protocol, 3-digit status.
fn record() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r#"\b(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) +\S+ +HTTP/[0-9](?:\.[0-9])?"? +[1-5][0-9]{2}\b"#)
            .expect("log record pattern")
    })
}

pub(super) fn prepare(doc: &Doc<'_>) -> Option<Box<dyn SiteFilter>> {
    // One scan for the protocol word first: most documents have none.
    // `memmem`: its rare bytes (`H`, `P`) skip most of a text (`str::contains` read every
    // byte: 0.5 M instructions of a file of 10,000 tool calls).
    memchr::memmem::find(doc.text.as_bytes(), b" HTTP/")?;
    let lines: Vec<Range<usize>> = record()
        .find_iter(doc.text)
        .map(|m| doc.host(m.range()))
        .collect();
    (!lines.is_empty()).then(|| Box::new(Log { records: lines }) as Box<dyn SiteFilter>)
}

/// The host ranges of the log records' request lines, in order.
struct Log {
    records: Vec<Range<usize>>,
}

impl SiteFilter for Log {
    fn read(&self, cx: &SiteCx<'_>) -> Verdict {
        if !matches!(cx.site, Site::Rest(c) if c.form == CallForm::Url) {
            return Verdict::Call;
        }
        let at = self.records.partition_point(|r| r.end <= cx.range.start);
        match self.records.get(at) {
            Some(r) if r.start <= cx.range.start && cx.range.end <= r.end => {
                Verdict::NotACall(Why {
                    text: "its line gives the method, URL, protocol and status".into(),
                    marker: Some(r.clone()),
                })
            }
            _ => Verdict::Call,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::record;

    #[test]
    fn records() {
        for line in [
            r#"127.0.0.1 - - [02/Dec/2026:10:00:00 +0000] "GET /api/dcim/devices/?site_id__in=1 HTTP/1.1" 200 1532"#,
            r#"[02/Dec/2026 10:00:00] "GET /api/ipam/prefixes/?within=10.0.0.0/8 HTTP/1.1" 200 88"#,
            "GET /api/dcim/devices/?role=leaf HTTP/2 200",
        ] {
            assert!(record().is_match(line), "{line}");
        }
        for line in [
            "GET /api/dcim/devices/?role=leaf",
            "curl -s 'https://netbox/api/dcim/devices/?role=leaf'",
            "GET /api/dcim/devices/?role=leaf HTTP/1.1",
        ] {
            assert!(!record().is_match(line), "{line}");
        }
    }
}
