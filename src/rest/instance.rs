//! Checks that need the instance's own knowledge: `cf_<name>` custom field filters (from an
//! index built with the instance's custom fields, [`crate::index::instance`]) and, with stock
//! knowledge, the note that a plugin endpoint cannot be checked.
//!
//! Custom field filters, as NetBox builds them (`CustomField.to_filter()` and
//! `BaseFilterSet.get_additional_lookups()` in NetBox 4.6; measured on the customised 4.6.8 in
//! `tests/fixtures/instance/ground-truth.tsv`):
//! - only on the object types the field is assigned to; elsewhere `cf_x` is ignored
//!   (`cf_vm_tier=2` on devices: all 72), and `filter_logic: disabled` means no filter at all;
//! - lookups: text/longtext/url with `exact` and select fields get the text lookups
//!   (`cf_cust_id__ic`); integer, decimal, date, datetime, object and multiobject fields the
//!   number lookups (`cf_rack_units_budget__gte`, `cf_primary_contact__n`); a `loose` text field
//!   and boolean fields none (`cf_owner_team__isw`: ignored). A multiselect field gets the text
//!   lookups too (its filter's `contains` is a standard lookup), but `__n` compares the whole
//!   stored list with one value, never equal, so it excludes nothing (`cf_tags_extra__n=dmz`: all
//!   90 prefixes); its other lookups are not measured and pass. `__in` and `cf_x_id` are never
//!   filters (ignored);
//! - a `loose` text filter is a case-insensitive contains (`cf_owner_team=netops`: 7, not 5);
//! - select values are not validated: a value outside the choice set is HTTP 200 with no
//!   objects (`cf_lifecycle=bogus`, `=EOL`), not a 400;
//! - boolean fields take `true`/`false` (`cf_monitored=1` is ignored); number and object fields
//!   refuse other text with a 400 ("Enter a whole number.").

use super::endpoint::View;
use super::suggest::jaro_winkler_from;
use super::{finding, finding_sev, values, Ctx};
use crate::extract::{FilterEntry, Value};
use crate::finding::{Finding, Severity};
use crate::index::instance::CustomField;
use crate::index::{Parameter, ValueKind};

const TEXT_LOOKUPS: &[&str] = &[
    "n", "ic", "nic", "iew", "niew", "isw", "nisw", "ie", "nie", "empty", "regex", "iregex",
];
const NUMBER_LOOKUPS: &[&str] = &["n", "lt", "lte", "gt", "gte", "empty"];

/// Checks a `cf_` entry when the index knows the instance's custom fields. Returns false when it
/// does not (the caller then leaves `cf_` keys alone, as before).
pub(crate) fn check_custom_field(
    ctx: &Ctx,
    view: Option<&View>,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) -> bool {
    let Some(fields) = ctx
        .index
        .instance
        .as_deref()
        .and_then(|i| i.custom_fields.as_ref())
    else {
        return false;
    };
    let Some(rest) = entry.key.strip_prefix("cf_") else {
        return false;
    };
    let (Some(view), Some(ot)) = (view, view.and_then(|v| v.ep.object_type.as_deref())) else {
        return true;
    };
    let (name, lookup) = match rest.split_once("__") {
        Some((n, l)) => (n, Some(l)),
        None => (rest, None),
    };
    let here: Vec<&CustomField> = fields
        .iter()
        .filter(|f| f.object_types.iter().any(|t| t == ot))
        .collect();
    let ignored = format!(
        "NetBox {} ignores it and returns every object of {}",
        view.version(),
        view.path()
    );
    let Some(field) = fields.iter().find(|f| f.name == name) else {
        out.push(unknown_field(entry, name, &here, ot, &ignored));
        return true;
    };
    if !field.object_types.iter().any(|t| t == ot) {
        let on = field.object_types.join(", ");
        out.push(finding(
            entry.key_range.clone(),
            "unknown-filter",
            format!(
                "The custom field `{name}` is assigned to {on}, not to {ot}: {ignored}.{}",
                others_hint(&here)
            ),
        ));
        return true;
    }
    if field.filter_logic == "disabled" || field.kind == "json" {
        let why = if field.kind == "json" {
            "a JSON custom field has no filter"
        } else {
            "filtering is disabled for this custom field (filter_logic: disabled)"
        };
        out.push(finding(
            entry.key_range.clone(),
            "unknown-filter",
            format!("`{}`: {why}: {ignored}.", entry.key),
        ));
        return true;
    }
    let allowed = lookups(field);
    if let Some(l) = lookup {
        if !allowed.contains(&l) {
            out.push(bad_lookup(entry, field, l, allowed, &ignored));
            return true;
        }
    }
    let kind = match lookup {
        Some("empty") => ValueKind::Boolean,
        _ => value_kind(field),
    };
    if lookup.is_none() && matches!(field.kind.as_str(), "select" | "multiselect") {
        check_choices(ctx, view, entry, field, out);
        return true;
    }
    if lookup.is_none()
        && matches!(field.kind.as_str(), "text" | "longtext" | "url")
        && field.filter_logic == "loose"
    {
        out.push(finding_sev(
            entry.key_range.clone(),
            "custom-field-match",
            Severity::Information,
            format!(
                "`{}` matches any value that contains the given text, in any case: the custom field's filter_logic is loose (`cf_owner_team=netops` also matches `NetOps-Core`); set it to exact in NetBox for an exact match and lookups such as `__ic`.",
                entry.key
            ),
        ));
    }
    let param = Parameter {
        kind,
        multi: true,
        choices: None,
        description: None,
    };
    values::check(ctx, view, entry, &param, None, out);
    true
}

/// The lookups NetBox adds to `cf_<name>` (see the module docs).
fn lookups(f: &CustomField) -> &'static [&'static str] {
    match f.kind.as_str() {
        "text" | "longtext" | "url" if f.filter_logic == "exact" => TEXT_LOOKUPS,
        "select" => TEXT_LOOKUPS,
        // `__n` is left out: measured to exclude nothing (see the module docs).
        "multiselect" => &TEXT_LOOKUPS[1..],
        "integer" | "decimal" | "date" | "datetime" | "object" | "multiobject" => NUMBER_LOOKUPS,
        _ => &[],
    }
}

fn value_kind(f: &CustomField) -> ValueKind {
    match f.kind.as_str() {
        "integer" | "object" | "multiobject" => ValueKind::Integer,
        "decimal" => ValueKind::Number,
        "boolean" => ValueKind::Boolean,
        "date" => ValueKind::Date,
        "datetime" => ValueKind::DateTime,
        _ => ValueKind::String,
    }
}

/// " Custom fields of this object type: `cf_a`, `cf_b`." (or nothing).
fn others_hint(here: &[&CustomField]) -> String {
    if here.is_empty() {
        return " This object type has no custom fields.".into();
    }
    let names: Vec<String> = here.iter().map(|f| format!("`cf_{}`", f.name)).collect();
    format!(" Custom fields of this object type: {}.", names.join(", "))
}

/// `cf_<name>` where no custom field has that name (also `cf_x_id` for the object field `x`).
fn unknown_field(
    entry: &FilterEntry,
    name: &str,
    here: &[&CustomField],
    ot: &str,
    ignored: &str,
) -> Finding {
    let r = entry.key_range.clone();
    if let Some(base) = name.strip_suffix("_id") {
        if here.iter().any(|f| f.name == base) {
            let to = format!("cf_{base}");
            return finding(
                r.clone(),
                "unknown-filter",
                format!("Custom field filters have no `_id` form: {ignored}. `{to}` takes the id."),
            )
            .with_fix(format!("Replace with `{to}`"), r, to, true);
        }
    }
    let mut scored: Vec<(f64, &str)> = here
        .iter()
        .map(|f| (jaro_winkler_from(name, &f.name, 0.79), f.name.as_str()))
        .filter(|(s, _)| *s >= 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let mut f = finding(
        r.clone(),
        "unknown-filter",
        format!(
            "This NetBox has no custom field `{name}` on {ot}: {ignored}.{}",
            others_hint(here)
        ),
    );
    for (_, n) in scored.into_iter().take(3) {
        f = f.with_fix(
            format!("Replace with `cf_{n}`"),
            r.clone(),
            format!("cf_{n}"),
            false,
        );
    }
    f
}

/// A lookup the custom field's filter does not have.
fn bad_lookup(
    entry: &FilterEntry,
    field: &CustomField,
    lookup: &str,
    allowed: &[&str],
    ignored: &str,
) -> Finding {
    let r = entry.key_range.clone();
    let bare = format!("cf_{}", field.name);
    let why = match (field.kind.as_str(), field.filter_logic.as_str()) {
        _ if lookup == "in" => {
            "custom field filters have no `__in`; a list on the bare key (repeated keys) is OR-ed"
                .to_string()
        }
        ("multiselect", _) if lookup == "n" => format!(
            "`__n` compares the whole list of values of the multiselect custom field `{}` with one value, which never matches, so it excludes nothing",
            field.name
        ),
        ("text" | "longtext" | "url", "loose") => format!(
            "the text custom field `{}` has filter_logic loose, which gives no lookup variants (the bare `{bare}` is already a case-insensitive contains)",
            field.name
        ),
        _ if allowed.is_empty() => format!(
            "a {} custom field has no lookup variants",
            field.kind
        ),
        _ => format!(
            "a {} custom field has only {}",
            field.kind,
            allowed
                .iter()
                .map(|l| format!("`__{l}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let f = finding(
        r.clone(),
        "unsupported-lookup",
        format!("`{}`: {why}: {ignored}.", entry.key),
    );
    // `__in` with a list: the same values on the bare key keep the meaning (OR).
    if lookup == "in" && matches!(entry.value, Value::List(_)) {
        return f.with_fix(format!("Replace with `{bare}`"), r, bare, true);
    }
    f
}

/// A select/multiselect value outside the field's choice set: NetBox does not validate it and
/// answers 200 with no objects. Values that differ only in case get a certain fix.
fn check_choices(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    field: &CustomField,
    out: &mut Vec<Finding>,
) {
    let Some(choices) = field.choices.as_ref() else {
        return;
    };
    let items: Vec<(&Value, std::ops::Range<usize>)> = match &entry.value {
        Value::List(l) => l.iter().map(|(v, r)| (v, r.clone())).collect(),
        v => vec![(v, entry.value_range.clone())],
    };
    for (v, r) in items {
        let Value::Str(s) = v else { continue };
        if crate::extract::is_placeholder(s, &entry.key) || choices.iter().any(|c| c == s) {
            continue;
        }
        let set = field.choice_set.as_deref().unwrap_or("its choice set");
        let list = choices
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut f = finding_sev(
            r.clone(),
            "invalid-choice",
            Severity::Warning,
            format!(
                "`{s}` is not a value of `{set}` ({list}): NetBox {} does not check custom field values and answers with no objects (HTTP 200); matching is case-sensitive.",
                view.version()
            ),
        );
        // Not the code's usual 400: tests/fixtures/instance/README.md, `cf_lifecycle=bogus`.
        f.facts.does = Some(crate::finding::Does::MatchesNothing);
        if let Some(c) = choices.iter().find(|c| c.eq_ignore_ascii_case(s)) {
            let new = super::render::string(c, ctx.syntax());
            let keep = new.len() == r.len() || ctx.syntax().is_pairs();
            f = f.with_fix(format!("Replace with `{c}`"), r, new, keep);
        }
        out.push(f);
    }
}

/// A key the endpoint does not have that is the name of one of its custom fields
/// (`owner_team` for `cf_owner_team`): the finding just pushed for it gets `cf_<name>` as its
/// one certain fix instead of the name rules' guesses.
pub(crate) fn custom_field_hint(ctx: &Ctx, view: &View, entry: &FilterEntry, out: &mut [Finding]) {
    let Some(fields) = ctx
        .index
        .instance
        .as_deref()
        .and_then(|i| i.custom_fields.as_ref())
    else {
        return;
    };
    let Some(ot) = view.ep.object_type.as_deref() else {
        return;
    };
    let (name, lookup) = match entry.key.split_once("__") {
        Some((n, l)) => (n, Some(l)),
        None => (entry.key.as_str(), None),
    };
    let Some(field) = fields
        .iter()
        .find(|f| f.name == name && f.object_types.iter().any(|t| t == ot))
    else {
        return;
    };
    let Some(f) = out
        .iter_mut()
        .rev()
        .find(|f| f.range == entry.key_range && f.code == "unknown-filter")
    else {
        return;
    };
    let to = match lookup {
        Some(l) => format!("cf_{}__{l}", field.name),
        None => format!("cf_{}", field.name),
    };
    f.message = format!(
        "`{}` is not a filter on {}: NetBox {} ignores it and returns every object. `{name}` is a custom field here: its filter is `{to}`.",
        entry.key,
        view.path(),
        view.version()
    );
    f.fixes.clear();
    let r = entry.key_range.clone();
    *f = std::mem::replace(f, Finding::new(0..0, "unknown-filter", Severity::Error, "")).with_fix(
        format!("Replace with `{to}`"),
        r,
        to,
        true,
    );
}

/// A call to a plugin endpoint (`/api/plugins/bgp/session/`, `nb.plugins.bgp.session`) that
/// the knowledge does not resolve. With stock knowledge it is not checked: one information
/// finding says the instance's knowledge is needed (none for a bare URL, which has no filters
/// to leave unchecked). With an index built from an instance, which lists every endpoint its
/// plugins serve, it is `unknown-endpoint`: that NetBox answers 404. Nothing when the target is
/// not a plugin's, or is a placeholder.
pub(crate) fn plugin_target(ctx: &Ctx, bare_url: bool, out: &mut Vec<Finding>) {
    let Some((target, range)) = ctx.call.target.as_ref() else {
        return;
    };
    let t = target.trim().trim_start_matches('/');
    let t = t.strip_prefix("api/").unwrap_or(t);
    if !t.starts_with("plugins/") && !t.starts_with("plugins.") {
        return;
    }
    if ctx.index.instance.is_some() || ctx.index.from_instance {
        let placeholder = t
            .bytes()
            .any(|b| !(b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-/.".contains(&b)));
        if placeholder || ctx.index.endpoints.is_empty() {
            return;
        }
        let served: Vec<&str> = ctx
            .index
            .endpoints
            .keys()
            .filter(|k| k.starts_with("plugins/"))
            .map(String::as_str)
            .collect();
        let apps: std::collections::BTreeSet<&str> =
            served.iter().filter_map(|k| k.split('/').nth(1)).collect();
        let which = match ctx.index.instance.as_ref().map(|i| i.url.as_str()) {
            Some(url) if !url.is_empty() => format!("the NetBox at {url}"),
            _ => "the NetBox this index was built from".to_string(),
        };
        let plugins = if apps.is_empty() {
            "it serves no plugin endpoint".to_string()
        } else {
            format!(
                "its plugins serve {} endpoints under {}",
                served.len(),
                apps.iter()
                    .map(|a| format!("`/api/plugins/{a}/`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push(finding_sev(
            range.clone(),
            "unknown-endpoint",
            Severity::Error,
            format!(
                "`{target}` is not served by {which} (NetBox {}): it answers 404; {plugins}.",
                ctx.index.netbox_version
            ),
        ));
        return;
    }
    if bare_url {
        return;
    }
    out.push(finding_sev(
        range.clone(),
        "needs-instance",
        Severity::Information,
        format!(
            "`{target}` belongs to a plugin: stock NetBox {} knowledge cannot check its filters. Build an index from your instance (`netbox-lsp index build --url https://<your-netbox>`) to check them.",
            ctx.index.netbox_version
        ),
    ));
}
