//! What NetBox itself gets wrong, per release: filters in the OpenAPI document that fail for
//! every value (`server-fault`), and value forms a filter's schema lets through but NetBox
//! refuses with an HTTP 500 or a 400 the schema cannot say (`invalid-value`).
//!
//! Each row says, for every shipped release ([`crate::index::embedded::RELEASES`]), whether that
//! release has it and why: the NetBox source line of that release (`netbox/<app>/filtersets.py`
//! at the tag; 4.7.3 from the PyPI wheel, whose files are the same paths without `netbox/`) and,
//! where a live sweep probed it, its row (`tests/fixtures/ground-truth/v<version>-sweep.tsv`,
//! copied from `../shared/netbox/v<version>/ground-truth-sweep.tsv`). A fault seen live on one
//! release is carried to every release whose source has the same code; the sweep rows are the
//! check, not the definition. A test fails until a new release is reviewed for every row.

use super::endpoint::View;
use super::lookups::Key;
use super::{finding, finding_sev};
use crate::extract::FilterEntry;
use crate::finding::{Finding, Severity};
use std::ops::Range;

/// What one release does about a row.
#[derive(Debug, Clone, Copy)]
pub(crate) enum At {
    /// The release has it: what NetBox answers there, and the evidence.
    Has {
        answer: &'static str,
        evidence: &'static str,
    },
    /// The release does not: why (the fix in its source, or the filter it lacks). Read by the
    /// review test and the review sheet of the next release (`release::rules`), not by the
    /// checks.
    Not(&'static str),
}

/// `(release, what it does)` for every shipped release, oldest first.
pub(crate) type PerRelease = &'static [(&'static str, At)];

/// The entry of `releases` for `version`, when that release has it.
fn has(releases: PerRelease, version: &str) -> Option<(&'static str, &'static str)> {
    releases.iter().find_map(|(v, at)| match at {
        At::Has { answer, evidence } if *v == version => Some((*answer, *evidence)),
        _ => None,
    })
}

/// A filter NetBox answers wrongly for any value (a NetBox bug in that release).
pub(crate) struct ServerFault {
    /// Endpoint keys (`dcim/front-ports`) whose filterset has the same code.
    pub endpoints: &'static [&'static str],
    /// The filter name without lookup (`rear_port_id`).
    pub filter: &'static str,
    /// Lookups that fail (`""` = the bare filter).
    pub lookups: &'static [&'static str],
    /// False when `null` is honoured although every other value fails.
    pub null_fails: bool,
    /// What to do instead (the message's last sentence).
    pub instead: Instead,
    /// Per release: what NetBox does (for the message) and the evidence.
    pub releases: PerRelease,
}

/// The way around a server fault that a message names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Instead {
    /// No filter does the same: "Filter another way".
    Another,
    /// A negated object-type filter: the `<filter>_id__n` relation filter by the object type's
    /// id when the endpoint has one (its `__n` negates), else naming the wanted types.
    TypeId,
    /// A text lookup on an object-type filter: the filter itself with a whole `app_label.model`.
    WholeType,
}

const FIELD_ERROR_REAR: &str =
    "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'rear_port'\")";
const FIELD_ERROR_FRONT: &str =
    "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'front_port'\")";
const FIELD_ERROR_ACCOUNT: &str =
    "answers HTTP 500 for any value (FieldError: \"Cannot resolve keyword 'account'\")";
const NOT_A_MODULE: &str = "answers HTTP 500 for any module id (ValueError: \"Must be \\\"Module\\\" instance\"); only `null` works";
const TEXT_ON_INTEGER: &str = "answers HTTP 500 for any value (PostgreSQL: \"function upper(integer) does not exist\" / \"operator does not exist: text ~ integer\")";

mod content_types;

/// Every known server fault: [`SERVER_FAULTS`] and the object-type filters' rows
/// (`content_types`).
pub(crate) fn server_faults() -> impl Iterator<Item = &'static ServerFault> {
    SERVER_FAULTS.iter().chain(content_types::ROWS)
}

/// Known server faults, apart from the object-type filters (`content_types`).
pub(crate) const SERVER_FAULTS: &[ServerFault] = &[
    ServerFault {
        endpoints: &["dcim/front-ports", "dcim/front-port-templates"],
        filter: "rear_port_id",
        lookups: &["", "n"],
        null_fails: true,
        instead: Instead::Another,
        releases: &[
            ("4.3.3", At::Not("a plain relation filter in 4.3.3 (`rear_port_id = ModelMultipleChoiceFilter(queryset=RearPort.objects.all())`, dcim/filtersets.py L2040; v4.3.3 sweep: rear_port_id=625 honoured)")),
            ("4.4.10", At::Not("a plain relation filter in 4.4.10 (dcim/filtersets.py L2128, as in 4.3.3)")),
            ("4.5.10", At::Has { answer: FIELD_ERROR_REAR, evidence: "netbox/dcim/filtersets.py v4.5.10 L2327 and L965: `to_field_name='rear_port'` on a RearPort/RearPortTemplate queryset; v4.5.10 sweep: dcim/front-ports rear_port_id=999999 → 500" }),
            ("4.6.8", At::Has { answer: FIELD_ERROR_REAR, evidence: "netbox/dcim/filtersets.py v4.6.8 L2397 and L1035: `to_field_name='rear_port'`; v4.6.8 sweep: dcim/front-ports rear_port_id=1250, dcim/front-port-templates rear_port_id=73 → 500" }),
            ("4.7.3", At::Not("fixed in 4.7.3 (netbox#23326: dcim/filtersets.py L2604 and L1169 drop `to_field_name`; v4.7.3 sweep: no 500)")),
        ],
    },
    ServerFault {
        endpoints: &["dcim/rear-ports", "dcim/rear-port-templates"],
        filter: "front_port_id",
        lookups: &["", "n"],
        null_fails: true,
        instead: Instead::Another,
        releases: &[
            ("4.3.3", At::Not("no such filter in 4.3.3")),
            ("4.4.10", At::Not("no such filter in 4.4.10")),
            ("4.5.10", At::Has { answer: FIELD_ERROR_FRONT, evidence: "netbox/dcim/filtersets.py v4.5.10 L2349 and L984: `to_field_name='front_port'`; v4.5.10 sweep: dcim/rear-ports front_port_id=1297, dcim/rear-port-templates front_port_id=73 → 500" }),
            ("4.6.8", At::Has { answer: FIELD_ERROR_FRONT, evidence: "netbox/dcim/filtersets.py v4.6.8 L2419 and L1054: `to_field_name='front_port'`; v4.6.8 sweep: dcim/rear-ports front_port_id=1297, dcim/rear-port-templates front_port_id=999999 → 500" }),
            ("4.7.3", At::Not("fixed in 4.7.3 (netbox#23326: dcim/filtersets.py L2625 and L1187 drop `to_field_name`)")),
        ],
    },
    ServerFault {
        endpoints: &[
            "circuits/circuits",
            "circuits/virtual-circuits",
            "circuits/virtual-circuit-terminations",
        ],
        filter: "provider_account",
        lookups: &["", "n"],
        null_fails: true,
        instead: Instead::Another,
        releases: &[
            ("4.3.3", At::Has { answer: FIELD_ERROR_ACCOUNT, evidence: "netbox/circuits/filtersets.py v4.3.3 L175, L495, L563: `queryset=Provider.objects.all(), to_field_name='account'`; v4.3.3 sweep: circuits/circuits provider_account=999999 → 500" }),
            ("4.4.10", At::Has { answer: FIELD_ERROR_ACCOUNT, evidence: "netbox/circuits/filtersets.py v4.4.10 L173, L493, L561: `queryset=Provider.objects.all(), to_field_name='account'` (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: FIELD_ERROR_ACCOUNT, evidence: "netbox/circuits/filtersets.py v4.5.10 L190, L532, L611: `queryset=Provider.objects.all(), to_field_name='account'`; v4.5.10 sweep: circuits/circuits provider_account=zz-no-such, provider_account__n=999999 → 500" }),
            ("4.6.8", At::Has { answer: FIELD_ERROR_ACCOUNT, evidence: "netbox/circuits/filtersets.py v4.6.8 L190, L537, L616: `queryset=Provider.objects.all(), to_field_name='account'`; v4.6.8 sweep: circuits/circuits provider_account=zz-no-such → 500" }),
            ("4.7.3", At::Not("fixed in 4.7.3 (netbox#23325: circuits/filtersets.py L190, L538, L617 use `queryset=ProviderAccount.objects.all()`; v4.7.3 sweep: provider_account=999999 is a 400 for an unknown account)")),
        ],
    },
    ServerFault {
        endpoints: &["dcim/module-bays"],
        filter: "installed_module_id",
        lookups: &["", "n"],
        null_fails: false,
        instead: Instead::Another,
        releases: &[
            ("4.3.3", At::Has { answer: NOT_A_MODULE, evidence: "netbox/dcim/filtersets.py v4.3.3 L2075: `queryset=ModuleBay.objects.all()` for a Module field; v4.3.3 sweep: installed_module_id=1 → 500" }),
            ("4.4.10", At::Has { answer: NOT_A_MODULE, evidence: "netbox/dcim/filtersets.py v4.4.10 L2163: `queryset=ModuleBay.objects.all()` (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: NOT_A_MODULE, evidence: "netbox/dcim/filtersets.py v4.5.10 L2370: `queryset=ModuleBay.objects.all()`; v4.5.10 sweep: installed_module_id=1, installed_module_id__n=1 → 500" }),
            ("4.6.8", At::Has { answer: NOT_A_MODULE, evidence: "netbox/dcim/filtersets.py v4.6.8 L2440: `queryset=ModuleBay.objects.all()`; v4.6.8 sweep: installed_module_id=4 → 500, installed_module_id=null honoured" }),
            ("4.7.3", At::Not("fixed in 4.7.3 (netbox#23345: dcim/filtersets.py L2648 `queryset=Module.objects.all()`)")),
        ],
    },
    ServerFault {
        endpoints: &["dcim/console-ports", "dcim/console-server-ports"],
        filter: "speed",
        lookups: &["ie", "nie", "regex", "iregex"],
        null_fails: true,
        instead: Instead::Another,
        releases: &[
            ("4.3.3", At::Not("4.3.3 generates no text lookups for `speed` (not in its OpenAPI document)")),
            ("4.4.10", At::Not("4.4.10 generates no text lookups for `speed` (not in its OpenAPI document)")),
            ("4.5.10", At::Has { answer: TEXT_ON_INTEGER, evidence: "`speed` (an integer choice field) in ConsolePortFilterSet/ConsoleServerPortFilterSet Meta.fields, netbox/dcim/filtersets.py v4.5.10 L1892, L1907, with the text lookups netbox/netbox/filtersets.py generates for it; v4.5.10 sweep: dcim/console-ports speed__regex=999999, speed__iregex=999999 → 500" }),
            ("4.6.8", At::Has { answer: TEXT_ON_INTEGER, evidence: "netbox/dcim/filtersets.py v4.6.8 L1962, L1977 (Meta.fields); v4.6.8 sweep: dcim/console-ports speed__ie=999999, speed__iregex=999999 → 500" }),
            ("4.7.3", At::Has { answer: TEXT_ON_INTEGER, evidence: "dcim/filtersets.py v4.7.3 L2112, L2127 (Meta.fields); v4.7.3 sweep: dcim/console-ports speed__ie=999999, speed__regex=999999 → 500" }),
        ],
    },
    ServerFault {
        endpoints: &["users/tokens"],
        filter: "version",
        lookups: &["ie", "nie", "regex", "iregex"],
        null_fails: true,
        instead: Instead::Another,
        releases: &[
            ("4.3.3", At::Not("no token `version` before 4.5")),
            ("4.4.10", At::Not("no token `version` before 4.5")),
            ("4.5.10", At::Has { answer: TEXT_ON_INTEGER, evidence: "`version` (an integer choice field) in TokenFilterSet Meta.fields, netbox/users/filtersets.py v4.5.10 L175; v4.5.10 sweep: users/tokens version__regex=2, version__iregex=2 → 500" }),
            ("4.6.8", At::Has { answer: TEXT_ON_INTEGER, evidence: "netbox/users/filtersets.py v4.6.8 L175; v4.6.8 sweep: users/tokens version__ie=2, version__regex=2 → 500" }),
            ("4.7.3", At::Has { answer: TEXT_ON_INTEGER, evidence: "users/filtersets.py v4.7.3 L175; v4.7.3 sweep: users/tokens version__ie=2, version__iregex=2 → 500" }),
        ],
    },
];

/// The fault NetBox `view.version()` has on filter `key` (with its lookup), with its answer and
/// evidence there, if any.
fn fault_of(view: &View, key: &str) -> Option<(&'static ServerFault, &'static str, &'static str)> {
    // Most filters have no fault: skip the key parse (a Vec) for them. Every object-type
    // row's key is `<name>_type__<lookup>`.
    if !(super::text::contains(key, "_type__")
        || SERVER_FAULTS.iter().any(|f| key.starts_with(f.filter)))
    {
        return None;
    }
    let key = Key::parse(key);
    let lookup = match key.parts.as_slice() {
        [_] => "",
        [_, l] => l,
        _ => return None,
    };
    server_faults().find_map(|f| {
        if !(f.endpoints.contains(&view.key)
            && f.filter == key.base()
            && f.lookups.contains(&lookup))
        {
            return None;
        }
        let (what, evidence) = has(f.releases, view.version())?;
        Some((f, what, evidence))
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
    let (fault, what, evidence) = fault_of(view, &entry.key)?;
    if is_null && !fault.null_fails {
        return None;
    }
    Some(finding(
        entry.key_range.clone(),
        "server-fault",
        format!(
            "`{}` on {} is broken in NetBox {}: it {what}. {} (evidence: {evidence}).",
            entry.key,
            view.path(),
            view.version(),
            instead(view, fault),
        ),
    ))
}

/// The message's way around `fault` on `view`'s endpoint and release.
fn instead(view: &View, fault: &ServerFault) -> String {
    let f = fault.filter;
    // `MultiValueContentTypeFilter` (4.5+) takes the key repeated; `ContentTypeFilter` (4.3,
    // 4.4) uses one value, so the way around names one type per call there.
    let several = view.param(f).is_some_and(|p| p.multi);
    match fault.instead {
        Instead::Another => "Filter another way".to_string(),
        Instead::WholeType if several => {
            format!("Use `{f}` with whole object types (`{f}=dcim.device&{f}=dcim.site`)")
        }
        Instead::WholeType => {
            format!("Use `{f}` with one whole object type per call (`{f}=dcim.device`)")
        }
        Instead::TypeId => {
            let by_id = format!("{f}_id__n");
            if view.has(&by_id) {
                // Where the ids are listed: `core/object-types` since 4.4, `extras/object-types`
                // before (the index of the release says which it has).
                let list = ["core/object-types", "extras/object-types"]
                    .into_iter()
                    .find(|k| view.index.endpoints.contains_key(*k))
                    .map(|k| format!(" (the ids are listed at /api/{k}/)"))
                    .unwrap_or_default();
                format!("Use `{by_id}` with the object type's numeric id{list}: it negates")
            } else if several {
                format!(
                    "NetBox has no filter here that excludes an object type: name the types you want instead (`{f}=<app_label.model>&{f}=<app_label.model>`)"
                )
            } else {
                format!(
                    "NetBox has no filter here that excludes an object type: query each type you want instead (`{f}=<app_label.model>`, one per call)"
                )
            }
        }
    }
}

/// A value form NetBox refuses although the schema types the filter as text or any number.
pub(crate) struct ValueForm {
    /// Endpoint keys it applies to (empty = every endpoint with this filter).
    pub endpoints: &'static [&'static str],
    pub filter: &'static str,
    pub lookups: &'static [&'static str],
    accepts: fn(&str) -> bool,
    /// The code of the finding: `invalid-value`, or `invalid-choice` for a choice set the
    /// OpenAPI document does not declare.
    code: &'static str,
    /// What the filter wants.
    pub wants: &'static str,
    /// Per release: what NetBox answers otherwise, and the evidence.
    pub releases: PerRelease,
}

const VLAN_500: &str = "HTTP 500 (\"Field 'vid' expected a number\")";
const WWN_500: &str = "HTTP 500 (\"Invalid WWN format\")";
const WWN_400: &str = "HTTP 400 (\"Invalid WWN format\")";
const ZONE_500: &str = "HTTP 500 (\"Invalid timezone\")";
const ZONE_400: &str = "HTTP 400 (\"Invalid timezone\")";
const SMALLINT_500: &str = "HTTP 500 (\"smallint out of range\")";
const SPEED_400: &str = "HTTP 400 (\"Ensure this value is greater than or equal to 0\")";
const IP_400: &str = "HTTP 400 (\"not a valid value\" / \"Invalid IP address format\")";
const NOT_VALID_400: &str = "HTTP 400 (\"not a valid value\")";
const MAC_400: &str = "HTTP 400 (\"Invalid MAC address format\")";
const CHOICE_400: &str = "HTTP 400 (\"Select a valid choice\")";

pub(crate) const VALUE_FORMS: &[ValueForm] = &[
    ValueForm {
        endpoints: &["dcim/interfaces", "virtualization/interfaces"],
        filter: "vlan",
        lookups: &[""],
        accepts: is_integer,
        code: "invalid-value",
        wants: "a VLAN number (VID, like `100`)",
        releases: &[
            ("4.3.3", At::Has { answer: VLAN_500, evidence: "`vlan = CharFilter(method='filter_vlan')` filtering `vid=value`, netbox/dcim/filtersets.py v4.3.3 L1822, L1870; v4.3.3 sweep: dcim/interfaces vlan=zz-no-such → 500" }),
            ("4.4.10", At::Has { answer: VLAN_500, evidence: "netbox/dcim/filtersets.py v4.4.10 L1897, L1945 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: VLAN_500, evidence: "netbox/dcim/filtersets.py v4.5.10 L2080, L2132; v4.5.10 sweep: dcim/interfaces vlan=zz-no-such → 500" }),
            ("4.6.8", At::Has { answer: VLAN_500, evidence: "netbox/dcim/filtersets.py v4.6.8 L2150, L2202; v4.6.8 sweep: dcim/interfaces vlan=zz-no-such → 500, vlan=100 honoured" }),
            ("4.7.3", At::Not("a number filter in 4.7.3 (`vlan = NumberFilter(method='filter_vlan', decimal_places=0)`, dcim/filtersets.py L2358): the index types it as a number, so text is an `invalid-value` 400 from the type")),
        ],
    },
    ValueForm {
        endpoints: &["dcim/interfaces"],
        filter: "wwn",
        lookups: &["", "n"],
        accepts: is_wwn,
        code: "invalid-value",
        wants: "a WWN (`50:01:43:80:12:34:56:78`)",
        releases: &[
            ("4.3.3", At::Has { answer: WWN_500, evidence: "`wwn = MultiValueWWNFilter()`, netbox/dcim/filtersets.py v4.3.3 L1936 (no validation before the query); v4.3.3 sweep: dcim/interfaces wwn__n=zz-no-such → 500, wwn=00:00:00:00:00:00:00:01 honoured" }),
            ("4.4.10", At::Has { answer: WWN_500, evidence: "netbox/dcim/filtersets.py v4.4.10 L2021 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: WWN_500, evidence: "netbox/dcim/filtersets.py v4.5.10 L2214; v4.5.10 sweep: dcim/interfaces wwn__n=zz-no-such → 500" }),
            ("4.6.8", At::Has { answer: WWN_500, evidence: "netbox/dcim/filtersets.py v4.6.8 L2284 (as in 4.3.3)" }),
            ("4.7.3", At::Has { answer: WWN_400, evidence: "MultiValueWWNFilter validates with the model field (InvalidValueFilterMixin, utilities/filters.py v4.7.3 L116, L161; netbox#23328); v4.7.3 sweep: dcim/interfaces wwn=zz-no-such → 400" }),
        ],
    },
    ValueForm {
        endpoints: &["dcim/sites"],
        filter: "time_zone",
        lookups: &["", "n"],
        accepts: looks_like_time_zone,
        code: "invalid-value",
        wants: "an IANA time zone (`Europe/Berlin`, `UTC`)",
        releases: &[
            ("4.3.3", At::Has { answer: ZONE_500, evidence: "`time_zone = MultiValueCharFilter()` on a TimeZoneField, netbox/dcim/filtersets.py v4.3.3 L186 (the zone is checked by the query)" }),
            ("4.4.10", At::Has { answer: ZONE_500, evidence: "netbox/dcim/filtersets.py v4.4.10 L186 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: ZONE_500, evidence: "netbox/dcim/filtersets.py v4.5.10 L210; v4.5.10 sweep: dcim/sites time_zone__n=zz-no-such → 500" }),
            ("4.6.8", At::Has { answer: ZONE_500, evidence: "netbox/dcim/filtersets.py v4.6.8 L213; v4.6.8 sweep: dcim/sites time_zone=zz-no-such → 500, time_zone=America/New_York honoured" }),
            ("4.7.3", At::Has { answer: ZONE_400, evidence: "`time_zone = MultiValueTimeZoneFilter()` (InvalidValueFilterMixin), dcim/filtersets.py v4.7.3 L221, utilities/filters.py L156; v4.7.3 sweep: dcim/sites time_zone__n=zz-no-such → 400" }),
        ],
    },
    ValueForm {
        endpoints: &["dcim/rack-reservations"],
        filter: "unit",
        lookups: &["", "n", "gt", "gte", "lt", "lte"],
        accepts: is_small_integer,
        code: "invalid-value",
        wants: "a rack unit in PostgreSQL's small-integer range (-32768..32767)",
        releases: &[
            ("4.3.3", At::Has { answer: SMALLINT_500, evidence: "`unit = NumericArrayFilter(field_name='units', lookup_expr='contains')` with no bounds, netbox/dcim/filtersets.py v4.3.3 L512; v4.3.3 sweep: unit=999999 → 500" }),
            ("4.4.10", At::Has { answer: SMALLINT_500, evidence: "netbox/dcim/filtersets.py v4.4.10 L516 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: SMALLINT_500, evidence: "netbox/dcim/filtersets.py v4.5.10 L571; v4.5.10 sweep: dcim/rack-reservations unit__gte=999999 → 500" }),
            ("4.6.8", At::Has { answer: SMALLINT_500, evidence: "netbox/dcim/filtersets.py v4.6.8 L607; v4.6.8 sweep: dcim/rack-reservations unit=999999, unit__gte=999999 → 500" }),
            ("4.7.3", At::Not("bounded in 4.7.3 (the next row)")),
        ],
    },
    ValueForm {
        endpoints: &["dcim/rack-reservations"],
        filter: "unit",
        lookups: &["", "n", "gt", "gte", "lt", "lte"],
        accepts: is_rack_unit,
        code: "invalid-value",
        wants: "a rack unit from 0 to 32767",
        releases: &[
            ("4.3.3", At::Not("unbounded before 4.7 (the previous row)")),
            ("4.4.10", At::Not("unbounded before 4.7 (the previous row)")),
            ("4.5.10", At::Not("unbounded before 4.7 (the previous row)")),
            ("4.6.8", At::Not("unbounded before 4.7 (the previous row)")),
            ("4.7.3", At::Has { answer: "HTTP 400 (\"Ensure this value is less than or equal to 32767\" / \"greater than or equal to 0\")", evidence: "`unit = NumericArrayFilter(..., min_value=0, max_value=32767)`, dcim/filtersets.py v4.7.3 L625; v4.7.3 sweep: unit=999999, unit__lte=-999999 → 400" }),
        ],
    },
    ValueForm {
        endpoints: &["dcim/interfaces"],
        filter: "speed",
        lookups: &["", "n", "gt", "gte", "lt", "lte"],
        accepts: is_not_negative,
        code: "invalid-value",
        wants: "a speed of 0 or more (Kbps)",
        releases: &[
            ("4.3.3", At::Not("`speed = MultiValueNumberFilter()` without a bound in 4.3.3 (dcim/filtersets.py L1917)")),
            ("4.4.10", At::Not("`speed = MultiValueNumberFilter()` without a bound in 4.4.10 (dcim/filtersets.py L2002)")),
            ("4.5.10", At::Has { answer: SPEED_400, evidence: "netbox/dcim/filtersets.py v4.5.10 L2192 `speed = MultiValueBigNumberFilter(min_value=0)`" }),
            ("4.6.8", At::Has { answer: SPEED_400, evidence: "netbox/dcim/filtersets.py v4.6.8 L2262 `speed = MultiValueBigNumberFilter(min_value=0)`; v4.6.8 sweep: dcim/interfaces speed__lt=-999999 → 400" }),
            ("4.7.3", At::Has { answer: SPEED_400, evidence: "dcim/filtersets.py v4.7.3 L2470 `speed = MultiValueBigNumberFilter(min_value=0)`; v4.7.3 sweep: dcim/interfaces speed__lt=-999999 → 400" }),
        ],
    },
    ValueForm {
        endpoints: &[
            "dcim/devices",
            "virtualization/virtual-machines",
            "dcim/virtual-device-contexts",
        ],
        filter: "primary_ip4",
        lookups: &["", "n"],
        accepts: is_ip_address,
        code: "invalid-value",
        wants: "an IP address (`10.0.0.1` or `10.0.0.1/24`); for the id use `primary_ip4_id`",
        releases: &[
            ("4.3.3", At::Has { answer: IP_400, evidence: "PrimaryIPFilterSet `primary_ip4` (`to_field_name='address'`), netbox/ipam/filtersets.py v4.3.3 L1259; v4.3.3 sweep: virtualization/virtual-machines primary_ip4__n=999999 → 400" }),
            ("4.4.10", At::Has { answer: IP_400, evidence: "netbox/ipam/filtersets.py v4.4.10 L1250 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: IP_400, evidence: "netbox/ipam/filtersets.py v4.5.10 L1314; v4.5.10 sweep: dcim/devices primary_ip4=999999 → 400" }),
            ("4.6.8", At::Has { answer: IP_400, evidence: "netbox/ipam/filtersets.py v4.6.8 L1335; v4.6.8 sweep: virtualization/virtual-machines primary_ip4=999999 → 400" }),
            ("4.7.3", At::Has { answer: IP_400, evidence: "ipam/filtersets.py v4.7.3 L1467; v4.7.3 sweep: dcim/devices primary_ip4=181 → 400" }),
        ],
    },
    ValueForm {
        endpoints: &[
            "dcim/devices",
            "virtualization/virtual-machines",
            "dcim/virtual-device-contexts",
        ],
        filter: "primary_ip6",
        lookups: &["", "n"],
        accepts: is_ip_address,
        code: "invalid-value",
        wants: "an IP address (`2001:db8::1`); for the id use `primary_ip6_id`",
        releases: &[
            ("4.3.3", At::Has { answer: IP_400, evidence: "PrimaryIPFilterSet `primary_ip6` (`to_field_name='address'`), netbox/ipam/filtersets.py v4.3.3 L1270; v4.3.3 sweep: virtualization/virtual-machines primary_ip6__n=999999 → 400" }),
            ("4.4.10", At::Has { answer: IP_400, evidence: "netbox/ipam/filtersets.py v4.4.10 L1261 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: IP_400, evidence: "netbox/ipam/filtersets.py v4.5.10 L1327; v4.5.10 sweep: dcim/devices primary_ip6=999999 → 400" }),
            ("4.6.8", At::Has { answer: IP_400, evidence: "netbox/ipam/filtersets.py v4.6.8 L1348; v4.6.8 sweep: dcim/devices primary_ip6=999999 → 400" }),
            ("4.7.3", At::Has { answer: IP_400, evidence: "ipam/filtersets.py v4.7.3 L1480; v4.7.3 sweep: virtualization/virtual-machines primary_ip6=999999 → 400" }),
        ],
    },
    ValueForm {
        endpoints: &["ipam/services"],
        filter: "ip_address",
        lookups: &["", "n"],
        accepts: is_ip_address,
        code: "invalid-value",
        wants: "an IP address (`10.0.0.1/24`); for the id use `ip_address_id`",
        releases: &[
            ("4.3.3", At::Has { answer: NOT_VALID_400, evidence: "ServiceFilterSet `ip_address` (`to_field_name='address'` on IPAddress, the same form as primary_ip4), netbox/ipam/filtersets.py v4.3.3 L1201" }),
            ("4.4.10", At::Has { answer: NOT_VALID_400, evidence: "netbox/ipam/filtersets.py v4.4.10 L1192 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: NOT_VALID_400, evidence: "netbox/ipam/filtersets.py v4.5.10 L1255 (as in 4.3.3)" }),
            ("4.6.8", At::Has { answer: NOT_VALID_400, evidence: "netbox/ipam/filtersets.py v4.6.8 L1276 (as in 4.3.3)" }),
            ("4.7.3", At::Has { answer: NOT_VALID_400, evidence: "ipam/filtersets.py v4.7.3 L1412; v4.7.3 sweep: ipam/services ip_address__n=999999 → 400" }),
        ],
    },
    ValueForm {
        endpoints: &["dcim/interfaces", "virtualization/interfaces"],
        filter: "primary_mac_address",
        lookups: &["", "n"],
        accepts: is_mac,
        code: "invalid-value",
        wants: "a MAC address (`00:1a:2b:3c:4d:5e`); for the id use `primary_mac_address_id`",
        releases: &[
            ("4.3.3", At::Has { answer: NOT_VALID_400, evidence: "`primary_mac_address` (`to_field_name='mac_address'` on MACAddress), netbox/dcim/filtersets.py v4.3.3 L1930, netbox/virtualization/filtersets.py L277" }),
            ("4.4.10", At::Has { answer: NOT_VALID_400, evidence: "netbox/dcim/filtersets.py v4.4.10 L2015, netbox/virtualization/filtersets.py L280 (as in 4.3.3)" }),
            ("4.5.10", At::Has { answer: NOT_VALID_400, evidence: "netbox/dcim/filtersets.py v4.5.10 L2207, netbox/virtualization/filtersets.py L326; v4.5.10 sweep: dcim/interfaces primary_mac_address=999999 → 400" }),
            ("4.6.8", At::Has { answer: NOT_VALID_400, evidence: "netbox/dcim/filtersets.py v4.6.8 L2277, netbox/virtualization/filtersets.py L378; v4.6.8 sweep: dcim/interfaces primary_mac_address=999999 → 400" }),
            ("4.7.3", At::Has { answer: NOT_VALID_400, evidence: "dcim/filtersets.py v4.7.3 L2485, virtualization/filtersets.py L378; v4.7.3 sweep: dcim/interfaces primary_mac_address=999999 → 400" }),
        ],
    },
    ValueForm {
        endpoints: &[
            "dcim/devices",
            "dcim/interfaces",
            "dcim/mac-addresses",
            "virtualization/interfaces",
            "virtualization/virtual-machines",
        ],
        filter: "mac_address",
        lookups: &["", "n"],
        accepts: is_mac,
        code: "invalid-value",
        wants: "a MAC address (`00:1a:2b:3c:4d:5e`)",
        releases: &[
            ("4.3.3", At::Not("MultiValueMACAddressFilter turns a malformed MAC into an empty result in 4.3.3 (netbox/utilities/filters.py L104: `except ValidationError: return qs.none()`); v4.3.3 sweep: dcim/interfaces mac_address=zz-no-such → 200, nothing matched")),
            ("4.4.10", At::Not("an empty result, as in 4.3.3 (netbox/utilities/filters.py v4.4.10)")),
            ("4.5.10", At::Not("an empty result, as in 4.3.3 (netbox/utilities/filters.py v4.5.10)")),
            ("4.6.8", At::Not("an empty result (netbox/utilities/filters.py v4.6.8 L114); v4.6.8 sweep: dcim/devices mac_address=zz-no-such → 200")),
            ("4.7.3", At::Has { answer: MAC_400, evidence: "MultiValueMACAddressFilter validates with the model field (InvalidValueFilterMixin, utilities/filters.py v4.7.3 L116, L151; netbox#23328); v4.7.3 sweep: virtualization/virtual-machines mac_address=zz-no-such → 400" }),
        ],
    },
    ValueForm {
        endpoints: &["ipam/services", "ipam/service-templates"],
        filter: "protocol",
        lookups: &["", "n"],
        accepts: is_service_protocol,
        code: "invalid-choice",
        wants: "a protocol: `tcp`, `udp` or `sctp`",
        releases: &[
            ("4.3.3", At::Not("the OpenAPI document declares the choices before 4.7 (the index checks them)")),
            ("4.4.10", At::Not("the OpenAPI document declares the choices before 4.7")),
            ("4.5.10", At::Not("the OpenAPI document declares the choices before 4.7")),
            ("4.6.8", At::Not("the OpenAPI document declares the choices before 4.7")),
            ("4.7.3", At::Has { answer: CHOICE_400, evidence: "`protocol = MultipleChoiceFilter(choices=ServiceProtocolChoices, method=...)`, ipam/filtersets.py v4.7.3 L1253, L1261, which the 4.7.3 OpenAPI document types as plain text; v4.7.3 ground truth: ipam/services protocol=TCP → 400" }),
        ],
    },
];

impl ValueForm {
    /// True when the form takes `value` (its text, trimmed); `null` is handled apart.
    pub(crate) fn takes(&self, value: &str) -> bool {
        (self.accepts)(value)
    }
}

/// The row of [`VALUE_FORMS`] for filter `key` (with its lookup) on `view`'s endpoint and
/// release, with its answer and evidence there, if any.
fn form_of(view: &View, key: &str) -> Option<(&'static ValueForm, &'static str, &'static str)> {
    if !VALUE_FORMS.iter().any(|f| key.starts_with(f.filter)) {
        return None;
    }
    let key = Key::parse(key);
    let lookup = match key.parts.as_slice() {
        [_] => "",
        [_, l] => l,
        _ => return None,
    };
    VALUE_FORMS.iter().find_map(|f| {
        if !(f.filter == key.base()
            && f.lookups.contains(&lookup)
            && (f.endpoints.is_empty() || f.endpoints.contains(&view.key)))
        {
            return None;
        }
        let (answer, evidence) = has(f.releases, view.version())?;
        Some((f, answer, evidence))
    })
}

/// True when [`value_form`] can report some value of filter `key` on `view` (a row of
/// [`VALUE_FORMS`] holds there); false means it reports none.
pub(crate) fn has_value_form(view: &View, key: &str) -> bool {
    form_of(view, key).is_some()
}

/// `invalid-value` for a value form [`VALUE_FORMS`] knows NetBox refuses.
pub(crate) fn value_form(
    view: &View,
    entry: &FilterEntry,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    let (form, answer, evidence) = form_of(view, &entry.key)?;
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
        form.code,
        severity,
        format!(
            "`{}` takes {}: NetBox {} answers {answer} for `{text}` (evidence: {evidence}).",
            entry.key,
            form.wants,
            view.version(),
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

/// 4.7's bounded rack unit: a number from 0 to 32767 (other non-numbers are `invalid-value`'s
/// job).
fn is_rack_unit(s: &str) -> bool {
    s.parse::<f64>()
        .map_or(true, |n| (0.0..=32767.0).contains(&n))
}

/// `ServiceProtocolChoices` (netbox/ipam/choices.py): the values, case-sensitive.
fn is_service_protocol(s: &str) -> bool {
    matches!(s, "tcp" | "udp" | "sctp")
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

    /// Every row says, for every shipped release and in their order, whether that release has
    /// it and why: a new release fails here until each row was looked up in its source.
    #[test]
    fn every_row_reviews_every_shipped_release() {
        let shipped: Vec<&str> = crate::index::embedded::versions().collect();
        let rows = server_faults()
            .map(|f| (f.filter, f.releases))
            .chain(VALUE_FORMS.iter().map(|f| (f.filter, f.releases)));
        for (filter, releases) in rows {
            let listed: Vec<&str> = releases.iter().map(|(v, _)| *v).collect();
            assert_eq!(
                listed, shipped,
                "{filter}: review the row for every shipped release"
            );
            let mut seen = 0;
            for (v, at) in releases {
                match at {
                    At::Has { answer, evidence } => {
                        seen += 1;
                        assert!(!answer.is_empty(), "{filter} {v}");
                        // A source line or a live row, of that release.
                        assert!(
                            evidence.contains(&format!("v{v}"))
                                && (evidence.contains(".py") || evidence.contains("sweep")),
                            "{filter} {v}: {evidence}"
                        );
                    }
                    At::Not(why) => assert!(!why.is_empty(), "{filter} {v}"),
                }
            }
            assert!(seen > 0, "{filter}: a row no release has");
        }
    }

    #[test]
    fn value_forms_take_one_code() {
        for f in VALUE_FORMS {
            assert!(
                matches!(f.code, "invalid-value" | "invalid-choice"),
                "{}",
                f.filter
            );
        }
        assert!(is_rack_unit("0") && is_rack_unit("32767") && !is_rack_unit("-1"));
        assert!(!is_rack_unit("32768") && is_rack_unit("abc"));
        assert!(is_service_protocol("tcp") && !is_service_protocol("TCP"));
    }
}
