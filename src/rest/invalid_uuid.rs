//! `invalid-value` for a UUID filter given no UUID.

use super::finding_sev;
use crate::finding::{Finding, Severity};
use std::ops::Range;

/// `invalid-value` for the filters the schema types `format: uuid`: `created_by_request`,
/// `updated_by_request`, `modified_by_request` (`django_filters.UUIDFilter`,
/// netbox/netbox/filtersets.py v4.3.3 L255-L261, v4.4.10 L262-L268, v4.5.10 L268-L274, v4.6.8
/// L290-L296, v4.7.3 L304-L310), and the generated `request_id` (core/object-changes) and
/// `job_id` (core/jobs). NetBox reads the value with Python's `uuid.UUID` (Django's
/// `forms.UUIDField`) and answers HTTP 400 "Enter a valid UUID." otherwise, `null` included.
/// Live 4.4.10 and 4.7.3: `created_by_request=zz-no-such` and `=null`, `request_id=` 31 hex
/// digits, `job_id=zz` → 400; 32 hex digits without dashes, `{...}` and `urn:uuid:...` → 200.
///
/// `uuid.UUID` drops `urn:`, `uuid:`, outer braces and every dash, then wants exactly 32
/// characters that `int(_, 16)` reads: a length other than 32 is surely refused; 32 hex digits
/// surely pass; 32 characters with a sign, blanks or `_` (which `int` may take) stay quiet.
pub(super) fn invalid_uuid(key: &str, text: &str, r: Range<usize>) -> Option<Finding> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None; // an empty value drops the filter (`dropped-value` says so)
    }
    // A text without `:` has no `urn:`/`uuid:` to drop (no string made for it).
    let dropped;
    let bare = if trimmed.contains(':') {
        dropped = trimmed.replace("urn:", "").replace("uuid:", "");
        dropped.as_str()
    } else {
        trimmed
    };
    let bare = bare.trim_matches(['{', '}']).chars().filter(|&c| c != '-');
    let refused = if bare.clone().count() != 32 {
        true
    } else {
        // Characters `int(_, 16)` never takes: surely refused.
        bare.clone()
            .any(|c| !(c.is_ascii_hexdigit() || c == '_' || c == '+' || c.is_whitespace()))
    };
    if !refused {
        return None;
    }
    Some(finding_sev(
        r,
        "invalid-value",
        Severity::Error,
        super::text::cat(&[
            "`",
            key,
            "` takes a UUID (`3fa85f64-5717-4562-b3fc-2c963f66afa6`): NetBox answers HTTP 400 (\"Enter a valid UUID.\") for `",
            text,
            "`.",
        ]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_shapes() {
        let bad = |t: &str| invalid_uuid("created_by_request", t, 0..1).is_some();
        // Refused live (4.4.10): a word, `null`, 31 hex digits.
        assert!(bad("zz-no-such") && bad("null") && bad("0000000000004000800000000000000"));
        assert!(bad("00000000-0000-4000-8000-00000000000g"));
        // Accepted live: dashed, 32 bare hex digits, braces, `urn:uuid:`.
        assert!(!bad("00000000-0000-4000-8000-000000000000"));
        assert!(!bad("00000000000040008000000000000000"));
        assert!(!bad("{00000000-0000-4000-8000-000000000000}"));
        assert!(!bad("urn:uuid:00000000-0000-4000-8000-000000000000"));
        // Not ours to judge: empty (dropped) and forms `int` may read.
        assert!(!bad("") && !bad("0000000000000000000000000000000_"));
    }
}
