//! What NetBox itself gets wrong, per release: filters in the OpenAPI document that fail for
//! every value (`server-fault`), and value forms a filter's schema lets through but NetBox
//! refuses with an HTTP 500 or a 400 the schema cannot say (`invalid-value`). Each entry
//! names its evidence: a row of the live sweep (`tests/fixtures/ground-truth/v<version>-sweep.tsv`,
//! copied from `../shared/netbox/v<version>/ground-truth-sweep.tsv`) or a NetBox source line.
//! Entries apply only to the releases whose live data showed them; other releases fail open.

use super::endpoint::View;
use super::lookups::Key;
use super::{finding, finding_sev};
use crate::extract::FilterEntry;
use crate::finding::{Finding, Severity};
use std::ops::Range;

/// A filter NetBox answers wrongly for any value (a NetBox bug in that release).
pub(crate) struct ServerFault {
    /// Releases the live sweep showed it on (exact versions).
    pub versions: &'static [&'static str],
    /// Endpoint key (`dcim/front-ports`).
    pub endpoint: &'static str,
    /// The filter name without lookup (`rear_port_id`).
    pub filter: &'static str,
    /// Lookups that fail (`""` = the bare filter).
    pub lookups: &'static [&'static str],
    /// False when `null` is honoured although every other value fails.
    pub null_fails: bool,
    /// What NetBox does, for the message.
    pub what: &'static str,
    /// The ground-truth row(s) that show it.
    pub evidence: &'static str,
}

/// Known server faults (live sweeps of 4.3.3 and 4.6.8 with the demo data).
pub(crate) const SERVER_FAULTS: &[ServerFault] = &[
    ServerFault {
        versions: &["4.6.8"],
        endpoint: "dcim/front-ports",
        filter: "rear_port_id",
        lookups: &["", "n"],
        null_fails: true,
        what: "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'rear_port'\")",
        evidence: "v4.6.8 sweep: dcim/front-ports rear_port_id=1250 → 500",
    },
    ServerFault {
        versions: &["4.6.8"],
        endpoint: "dcim/rear-ports",
        filter: "front_port_id",
        lookups: &["", "n"],
        null_fails: true,
        what: "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'front_port'\")",
        evidence: "v4.6.8 sweep: dcim/rear-ports front_port_id=1297 → 500",
    },
    ServerFault {
        versions: &["4.6.8"],
        endpoint: "dcim/front-port-templates",
        filter: "rear_port_id",
        lookups: &["", "n"],
        null_fails: true,
        what: "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'rear_port'\")",
        evidence: "v4.6.8 sweep: dcim/front-port-templates rear_port_id=73 → 500",
    },
    ServerFault {
        versions: &["4.6.8"],
        endpoint: "dcim/rear-port-templates",
        filter: "front_port_id",
        lookups: &["", "n"],
        null_fails: true,
        what: "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'front_port'\")",
        evidence: "v4.6.8 sweep: dcim/rear-port-templates front_port_id=999999 → 500",
    },
    ServerFault {
        versions: &["4.3.3", "4.6.8"],
        endpoint: "circuits/circuits",
        filter: "provider_account",
        lookups: &["", "n"],
        null_fails: true,
        what: "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'account'\")",
        evidence: "v4.6.8 sweep: circuits/circuits provider_account=zz-no-such → 500; v4.3.3 sweep: provider_account=999999 → 500",
    },
    ServerFault {
        versions: &["4.3.3", "4.6.8"],
        endpoint: "dcim/module-bays",
        filter: "installed_module_id",
        lookups: &["", "n"],
        null_fails: false,
        what: "answers HTTP 500 for any module id (ValueError: \"Must be \\\"Module\\\" instance\"); only `null` works",
        evidence: "v4.6.8 sweep: dcim/module-bays installed_module_id=4 → 500, installed_module_id=null honoured; v4.3.3 sweep: installed_module_id=1 → 500",
    },
    ServerFault {
        versions: &["4.6.8"],
        endpoint: "dcim/console-ports",
        filter: "speed",
        lookups: &["ie", "nie", "regex", "iregex"],
        null_fails: true,
        what: "answers HTTP 500 for any value (PostgreSQL: \"function upper(integer) does not exist\" / \"operator does not exist: text ~* integer\")",
        evidence: "v4.6.8 sweep: dcim/console-ports speed__ie=999999, speed__iregex=999999 → 500",
    },
    ServerFault {
        versions: &["4.6.8"],
        endpoint: "users/tokens",
        filter: "version",
        lookups: &["ie", "nie", "regex", "iregex"],
        null_fails: true,
        what: "answers HTTP 500 for any value (PostgreSQL: \"function upper(integer) does not exist\" / \"operator does not exist: text ~ integer\")",
        evidence: "v4.6.8 sweep: users/tokens version__ie=2, version__regex=2 → 500",
    },
    ServerFault {
        versions: &["4.3.3", "4.6.8"],
        endpoint: "extras/tagged-objects",
        filter: "object_type",
        lookups: &["n"],
        null_fails: true,
        what: "selects the objects OF that type, like `object_type` (the negation is lost)",
        evidence: "v4.6.8 and v4.3.3 sweeps: extras/tagged-objects object_type__n=dcim.site → the dcim.site rows",
    },
];

/// The fault NetBox `view.version()` has on filter `key` (with its lookup), if any.
fn fault_of(view: &View, key: &str) -> Option<&'static ServerFault> {
    // Most filters have no fault: skip the key parse (a Vec) for them.
    if !SERVER_FAULTS.iter().any(|f| key.starts_with(f.filter)) {
        return None;
    }
    let key = Key::parse(key);
    let lookup = match key.parts.as_slice() {
        [_] => "",
        [_, l] => l,
        _ => return None,
    };
    SERVER_FAULTS.iter().find(|f| {
        f.endpoint == view.key
            && f.filter == key.base()
            && f.lookups.contains(&lookup)
            && f.versions.contains(&view.version())
    })
}

/// True when NetBox `view.version()` answers filter `key` wrongly for every value: a rename or
/// lookup fix must not lead there.
pub(crate) fn broken(view: &View, key: &str) -> bool {
    fault_of(view, key).is_some()
}

/// `server-fault`: `entry` uses a filter that NetBox `view.version()` answers wrongly whatever
/// the value. A warning: the request is valid, the server is not.
pub(crate) fn server_fault(view: &View, entry: &FilterEntry, is_null: bool) -> Option<Finding> {
    let fault = fault_of(view, &entry.key)?;
    if is_null && !fault.null_fails {
        return None;
    }
    Some(finding(
        entry.key_range.clone(),
        "server-fault",
        format!(
            "`{}` on {} is broken in NetBox {}: it {}. Filter another way (evidence: {}).",
            entry.key,
            view.path(),
            view.version(),
            fault.what,
            fault.evidence
        ),
    ))
}

/// A value form NetBox refuses although the schema types the filter as text or any number.
struct ValueForm {
    versions: &'static [&'static str],
    /// Endpoint keys it applies to (empty = every endpoint with this filter).
    endpoints: &'static [&'static str],
    filter: &'static str,
    lookups: &'static [&'static str],
    accepts: fn(&str) -> bool,
    /// What the filter wants, then what NetBox answers otherwise.
    wants: &'static str,
    answer: &'static str,
    evidence: &'static str,
}

const SHIPPED: &[&str] = &["4.3.3", "4.4.10", "4.5.10", "4.6.8"];

const VALUE_FORMS: &[ValueForm] = &[
    ValueForm {
        versions: &["4.3.3", "4.6.8"],
        endpoints: &["dcim/interfaces", "virtualization/interfaces"],
        filter: "vlan",
        lookups: &[""],
        accepts: is_integer,
        wants: "a VLAN number (VID, like `100`)",
        answer: "HTTP 500 (\"Field 'vid' expected a number\")",
        evidence: "v4.6.8 and v4.3.3 sweeps: dcim/interfaces vlan=zz-no-such → 500, vlan=100 honoured",
    },
    ValueForm {
        versions: &["4.3.3", "4.6.8"],
        endpoints: &["dcim/interfaces"],
        filter: "wwn",
        lookups: &["", "n"],
        accepts: is_wwn,
        wants: "a WWN (`50:01:43:80:12:34:56:78`)",
        answer: "HTTP 500 (\"Invalid WWN format\")",
        evidence: "v4.3.3 sweep: dcim/interfaces wwn__n=zz-no-such → 500, wwn=00:00:00:00:00:00:00:01 honoured",
    },
    ValueForm {
        versions: &["4.6.8"],
        endpoints: &["dcim/sites"],
        filter: "time_zone",
        lookups: &["", "n"],
        accepts: looks_like_time_zone,
        wants: "an IANA time zone (`Europe/Berlin`, `UTC`)",
        answer: "HTTP 500 (\"Invalid timezone\")",
        evidence: "v4.6.8 sweep: dcim/sites time_zone=zz-no-such → 500, time_zone=America/New_York honoured",
    },
    ValueForm {
        versions: SHIPPED,
        endpoints: &["dcim/rack-reservations"],
        filter: "unit",
        lookups: &["", "n", "gt", "gte", "lt", "lte"],
        accepts: is_small_integer,
        wants: "a rack unit in PostgreSQL's small-integer range (-32768..32767)",
        answer: "HTTP 500 (\"smallint out of range\")",
        evidence: "v4.6.8 sweep: dcim/rack-reservations unit=999999, unit__gte=999999 → 500; v4.3.3 sweep: unit=999999 → 500",
    },
    ValueForm {
        versions: &["4.5.10", "4.6.8"],
        endpoints: &["dcim/interfaces"],
        filter: "speed",
        lookups: &["", "n", "gt", "gte", "lt", "lte"],
        accepts: is_not_negative,
        wants: "a speed of 0 or more (Kbps)",
        answer: "HTTP 400 (\"Ensure this value is greater than or equal to 0\")",
        evidence: "v4.6.8 sweep: dcim/interfaces speed__lt=-999999 → 400; netbox/dcim/filtersets.py `speed = MultiValueBigNumberFilter(min_value=0)` (4.5.10, 4.6.8)",
    },
    ValueForm {
        versions: &["4.3.3", "4.6.8"],
        endpoints: &["dcim/devices", "virtualization/virtual-machines"],
        filter: "primary_ip4",
        lookups: &["", "n"],
        accepts: is_ip_address,
        wants: "an IP address (`10.0.0.1` or `10.0.0.1/24`); for the id use `primary_ip4_id`",
        answer: "HTTP 400 (\"not a valid value\" / \"Invalid IP address format\")",
        evidence: "v4.6.8 sweep: virtualization/virtual-machines primary_ip4=999999 → 400; v4.3.3 sweep: primary_ip4__n=999999 → 400",
    },
    ValueForm {
        versions: &["4.3.3", "4.6.8"],
        endpoints: &["dcim/devices", "virtualization/virtual-machines"],
        filter: "primary_ip6",
        lookups: &["", "n"],
        accepts: is_ip_address,
        wants: "an IP address (`2001:db8::1`); for the id use `primary_ip6_id`",
        answer: "HTTP 400 (\"not a valid value\" / \"Invalid IP address format\")",
        evidence: "v4.6.8 sweep: dcim/devices primary_ip6=999999 → 400; v4.3.3 sweep: virtualization/virtual-machines primary_ip6__n=999999 → 400",
    },
    ValueForm {
        versions: &["4.6.8"],
        endpoints: &["dcim/interfaces"],
        filter: "primary_mac_address",
        lookups: &["", "n"],
        accepts: is_mac,
        wants: "a MAC address (`00:1a:2b:3c:4d:5e`)",
        answer: "HTTP 400 (\"not a valid value\")",
        evidence: "v4.6.8 sweep: dcim/interfaces primary_mac_address=999999 → 400",
    },
];

/// `invalid-value` for a value form [`VALUE_FORMS`] knows NetBox refuses.
pub(crate) fn value_form(
    view: &View,
    entry: &FilterEntry,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    if !VALUE_FORMS.iter().any(|f| entry.key.starts_with(f.filter)) {
        return None;
    }
    let key = Key::parse(&entry.key);
    let lookup = match key.parts.as_slice() {
        [_] => "",
        [_, l] => l,
        _ => return None,
    };
    let form = VALUE_FORMS.iter().find(|f| {
        f.filter == key.base()
            && f.lookups.contains(&lookup)
            && (f.endpoints.is_empty() || f.endpoints.contains(&view.key))
            && f.versions.contains(&view.version())
    })?;
    if text == "null" || (form.accepts)(text.trim()) {
        return None;
    }
    // Time zones are checked by shape only: a warning.
    let severity = if form.filter == "time_zone" {
        Severity::Warning
    } else {
        Severity::Error
    };
    Some(finding_sev(
        r,
        "invalid-value",
        severity,
        format!(
            "`{}` takes {}: NetBox {} answers {} for `{text}` (evidence: {}).",
            entry.key,
            form.wants,
            view.version(),
            form.answer,
            form.evidence
        ),
    ))
}

fn is_integer(s: &str) -> bool {
    s.parse::<i64>().is_ok()
}

/// Not a number past the small-integer range (other non-numbers are `invalid-value`'s job).
fn is_small_integer(s: &str) -> bool {
    s.parse::<f64>().map_or(true, |n| {
        (f64::from(i16::MIN)..=f64::from(i16::MAX)).contains(&n)
    })
}

fn is_not_negative(s: &str) -> bool {
    s.parse::<f64>().map_or(true, |n| n >= 0.0)
}

/// 8 hex pairs (NetBox's WWN is an EUI-64), separated by `:` or `-`, or 16 hex digits.
fn is_wwn(s: &str) -> bool {
    let hex: String = s.chars().filter(|c| *c != ':' && *c != '-').collect();
    hex.len() == 16 && hex.chars().all(|c| c.is_ascii_hexdigit())
}

/// 6 hex pairs separated by `:`, `-` or `.` (netaddr's EUI-48 forms), or 12 hex digits.
fn is_mac(s: &str) -> bool {
    let hex: String = s
        .chars()
        .filter(|c| !matches!(c, ':' | '-' | '.'))
        .collect();
    hex.len() == 12 && hex.chars().all(|c| c.is_ascii_hexdigit())
}

fn is_ip_address(s: &str) -> bool {
    let addr = s.split_once('/').map_or(s, |(a, _)| a);
    addr.parse::<std::net::IpAddr>().is_ok()
}

/// The shape of an IANA zone name: `Area/Location[/Sub]` with letters, digits, `_`, `-`, `+`,
/// or one of the zones without a slash.
fn looks_like_time_zone(s: &str) -> bool {
    const FLAT: &[&str] = &[
        "UTC",
        "GMT",
        "UCT",
        "Zulu",
        "Universal",
        "Greenwich",
        "GMT0",
        "GMT+0",
        "GMT-0",
        "EST",
        "MST",
        "HST",
        "CET",
        "EET",
        "MET",
        "WET",
        "EST5EDT",
        "CST6CDT",
        "MST7MDT",
        "PST8PDT",
        "Cuba",
        "Egypt",
        "Eire",
        "GB",
        "GB-Eire",
        "Hongkong",
        "Iceland",
        "Iran",
        "Israel",
        "Jamaica",
        "Japan",
        "Kwajalein",
        "Libya",
        "NZ",
        "NZ-CHAT",
        "Navajo",
        "PRC",
        "Poland",
        "Portugal",
        "ROC",
        "ROK",
        "Singapore",
        "Turkey",
        "W-SU",
    ];
    if FLAT.contains(&s) {
        return true;
    }
    let parts: Vec<&str> = s.split('/').collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+'))
        })
        && parts[0].starts_with(|c: char| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_shapes() {
        assert!(is_wwn("50:01:43:80:12:34:56:78"));
        assert!(!is_wwn("zz-no-such"));
        assert!(is_mac("00:1a:2b:3c:4d:5e"));
        assert!(!is_mac("999999"));
        assert!(is_ip_address("10.0.0.1/32"));
        assert!(!is_ip_address("999999"));
        assert!(looks_like_time_zone("America/New_York"));
        assert!(looks_like_time_zone("UTC"));
        assert!(!looks_like_time_zone("zz-no-such"));
        assert!(is_small_integer("32767"));
        assert!(!is_small_integer("999999"));
        assert!(is_small_integer("1.5"));
        assert!(!is_not_negative("-999999"));
    }

    #[test]
    fn faults_name_live_versions() {
        for f in SERVER_FAULTS {
            assert!(!f.versions.is_empty() && f.evidence.contains("sweep"));
            assert!(f.versions.iter().all(|v| SHIPPED.contains(v)));
        }
    }
}
