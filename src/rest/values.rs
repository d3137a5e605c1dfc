//! Value rules the schema cannot say (hand rules, run before the choice check). Each is
//! verified in `../shared/netbox/*/ground-truth.tsv` or netbox-facts.md §2.B.

use super::api_filter_ampersand::ampersand_in_api_filter;
use super::boolean_value::boolean_value;
use super::comma_list::comma_list;
use super::endpoint::View;
use super::entry::elements;
use super::invalid_date::invalid_date;
use super::invalid_number::invalid_number;
use super::invalid_regex::invalid_regex;
use super::invalid_uuid::invalid_uuid;
use super::joined::joined;
use super::lookups::Key;
use super::null_refused::null_refused;
use super::quoted_value::quoted_value;
use super::single_value::several_ids;
use super::slug_expected::{number_on_slug, slug_expected};
use super::typed_empty::typed_empty;
use super::vrf_needs_rd::vrf_needs_rd;
use super::{choices, faults, finding, render, Ctx};
use crate::extract::{FilterEntry, Value};
use crate::finding::Finding;
use crate::index::{Parameter, ValueKind};
use std::ops::Range;

fn is_null_selector(v: &Value) -> bool {
    matches!(v, Value::Null) || matches!(v, Value::Str(s) if s == "null")
}

/// Value rules for `entry`, whose key is the parameter `param` of `view`. `relation`: `Some`
/// when `param` is `view`'s own parameter of that key, telling whether it is a relation filter
/// ([`View::param_relation`]); `None` for a parameter made here (a custom field's).
pub(crate) fn check(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    relation: Option<bool>,
    out: &mut Vec<Finding>,
) {
    let key = entry.key.as_str();
    let list_len = match &entry.value {
        Value::List(items) => Some(items.len()),
        _ => None,
    };
    let all_null = elements(entry).all(|(v, _)| is_null_selector(v));
    if let Some(f) = faults::server_fault(view, entry, all_null) {
        out.push(f);
        return;
    }
    if let Some(f) = vrf_needs_rd(ctx, view, entry, param) {
        out.push(f);
        return;
    }
    if !param.multi && list_len.unwrap_or(0) > 1 {
        out.push(finding(
            entry.value_range.clone(),
            "single-value-filter",
            format!(
                "`{key}` takes one value: NetBox uses only one of the {} given. Query once per value{}.",
                list_len.unwrap_or(0),
                several_ids(view, key)
            ),
        ));
        return;
    }
    // Parsed once for the rules that read the key's parts.
    let parsed = Key::parse(key);
    let here = Here {
        param,
        relation: relation.unwrap_or_else(|| view.is_relation(key)),
        own: relation.is_some(),
        parsed: &parsed,
    };
    for (v, r) in elements(entry) {
        if let Some(f) = check_scalar(ctx, view, entry, &here, v, r) {
            out.push(f);
            // One finding per entry for a scalar; per element for lists.
            if list_len.is_none() {
                return;
            }
        }
    }
}

/// What [`check`] knows of the entry's key: its parameter, whether it is a relation filter,
/// whether the parameter is the endpoint's own, its parts.
struct Here<'p, 'k> {
    param: &'p Parameter,
    relation: bool,
    own: bool,
    parsed: &'p Key<'k>,
}

/// The rules for one scalar value, first hit wins.
fn check_scalar(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    here: &Here,
    v: &Value,
    r: Range<usize>,
) -> Option<Finding> {
    let param = here.param;
    let key = entry.key.as_str();
    let syntax = ctx.syntax();
    if is_null_selector(v) {
        if let Some(f) = null_refused(view, key, param, r.clone()) {
            return Some(f);
        }
        let base = key.strip_suffix("__n")?;
        let nk = view.null_key(base)?;
        let plain = nk.clone();
        let base = base.strip_suffix("_id").unwrap_or(base);
        return Some(
            finding(
                entry.key_range.clone(),
                "null-complement",
                format!(
                    "`{key}=null` is honoured and selects objects that HAVE a {base} (it excludes those without one). For objects without a {base}, use `{plain}=null`."
                ),
            )
            .with_fix(format!("Select objects without a {base}: `{plain}`"), entry.key_range.clone(), plain, false),
        );
    }
    if let Value::Joined {
        separator,
        separator_range,
    } = v
    {
        return Some(joined(view, entry, key, separator, separator_range, false));
    }
    if matches!(v, Value::Expr | Value::Map | Value::List(_)) {
        return None;
    }
    if let Some(f) = quoted_value(ctx, key, v, r.clone()) {
        return Some(f);
    }
    if let Some(f) = ampersand_in_api_filter(ctx, key, v, r.clone()) {
        return Some(f);
    }
    if param.kind == ValueKind::Boolean {
        return boolean_value(view, entry, v, r, syntax);
    }
    let parsed = here.parsed;
    if parsed.lookup() == Some("empty") {
        // Boolean-typed `__empty` went through `boolean_value` above; one typed like its
        // number or date field refuses `true`/`false` (400) and every other value (500).
        return typed_empty(view, key, param, v, r);
    }
    let mut digits = itoa::Buffer::new();
    let text = render::wire_text_in(v, &mut digits)?;
    if let Some(f) = faults::value_form(view, entry, &text, r.clone()) {
        return Some(f);
    }
    if let Some(f) = super::object_type_value::check(view, entry, param, &text, r.clone(), syntax) {
        return Some(f);
    }
    if let Some(f) =
        super::relation_field::check(view, key, parsed, here.relation, param, &text, r.clone())
    {
        return Some(f);
    }
    let integers = view.takes_integers_known(key, param, here.own.then_some(here.relation));
    let number = integers || param.kind == ValueKind::Number;
    if number && matches!(v, Value::Str(_)) && text.contains(',') {
        return comma_list(ctx, view, entry, param, &text, integers);
    }
    if number {
        if let Some(f) = invalid_number(view, entry, v, &text, r.clone(), integers, syntax) {
            return Some(f);
        }
        // An integer choice set (`width`: 10, 19, 21, 23; `sync_interval`, IKE `version`) is
        // validated like a text one: a well-formed number outside it is a 400 too.
        return choices::check(ctx, view, entry, parsed, param, here.own, &text, r);
    }
    if matches!(param.kind, ValueKind::Date | ValueKind::DateTime) {
        return invalid_date(key, &text, r, param.kind);
    }
    if param.kind == ValueKind::Uuid {
        return invalid_uuid(key, &text, r);
    }
    if key.ends_with("__regex") || key.ends_with("__iregex") {
        if let Some(f) = invalid_regex(view.version(), key, &text, r.clone()) {
            return Some(f);
        }
        return choices::check(ctx, view, entry, parsed, param, here.own, &text, r);
    }
    // The slug question (a parameter probe and a scan of its description) asked once, and only
    // for a value either rule below can be about.
    let numeric = text.trim().parse::<i64>().is_ok();
    let is_str = matches!(v, Value::Str(_));
    let slug = (numeric || is_str)
        && view.is_slug_filter_known(key, here.own.then_some((param, here.relation)));
    if slug && numeric {
        if let Some(f) = number_on_slug(view, entry, &text, r.clone()) {
            return Some(f);
        }
    }
    if slug && is_str {
        if let Some(f) = slug_expected(view, key, &text, r.clone(), syntax) {
            return Some(f);
        }
    }
    choices::check(ctx, view, entry, parsed, param, here.own, &text, r)
}
