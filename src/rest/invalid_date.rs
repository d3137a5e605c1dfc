//! `invalid-value` for a date filter given no date.

use super::finding_sev;
use crate::finding::{Finding, Severity};
use crate::index::ValueKind;
use std::ops::Range;

/// `invalid-value` for date filters: a value that starts neither with `YYYY-MM-DD` nor with
/// Django's other default input forms `MM/DD/YY[YY]`, `Oct 25 2006` (Django answers 400 "Enter a valid
/// date/time"; sweeps 4.3.3 and 4.6.8: `created=notadate` → 400). Warning: only the shape is
/// checked.
pub(super) fn invalid_date(
    key: &str,
    text: &str,
    r: Range<usize>,
    kind: ValueKind,
) -> Option<Finding> {
    let b = text.as_bytes();
    let starts_with_date = b.len() >= 8
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && text[5..].split('-').count() >= 2;
    let head = text.split([' ', 'T']).next().unwrap_or("");
    let mut parts = head.split('/');
    let us_date = head.split('/').count() == 3
        && parts.all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|c| c.is_ascii_digit()));
    // Django's `%b %d %Y`, `%d %B, %Y`, ... forms (`Oct 25 2006`): a month's first three
    // letters anywhere (in any case), and four digits.
    const MONTHS: [&[u8; 3]; 12] = [
        b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov",
        b"dec",
    ];
    let month_name = text.bytes().filter(u8::is_ascii_digit).count() >= 4
        && b.windows(3).any(|w| {
            let w = [
                w[0].to_ascii_lowercase(),
                w[1].to_ascii_lowercase(),
                w[2].to_ascii_lowercase(),
            ];
            MONTHS.iter().any(|m| **m == w)
        });
    if starts_with_date || us_date || month_name {
        return None;
    }
    let what = if kind == ValueKind::Date {
        "a date (`2024-05-31`)"
    } else {
        "a date-time (`2024-05-31T12:00:00Z`)"
    };
    Some(finding_sev(
        r,
        "invalid-value",
        Severity::Warning,
        super::text::cat(&[
            "`",
            key,
            "` takes ",
            what,
            ": NetBox answers HTTP 400 for `",
            text,
            "`.",
        ]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_shapes() {
        let bad = |t: &str| invalid_date("created", t, 0..1, ValueKind::DateTime).is_some();
        assert!(bad("notadate") && bad("yesterday"));
        assert!(!bad("2024-05-31T12:00:00Z") && !bad("05/31/2024") && !bad("05/31/24 10:30"));
        assert!(!bad("Oct 25 2006") && !bad("25 October, 2006"));
    }
}
