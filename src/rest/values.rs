//! Value rules the schema cannot say (hand rules, run before the choice check). Each is
//! verified in `../shared/netbox/*/ground-truth.tsv` or netbox-facts.md §2.B.

use super::api_filter_ampersand::ampersand_in_api_filter;
use super::boolean_value::boolean_value;
use super::comma_list::comma_list;
use super::endpoint::{Known, View};
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
use crate::extract::{FilterEntry, Syntax, Value};
use crate::finding::Finding;
use crate::index::{Parameter, ValueKind};
use std::ops::Range;

fn is_null_selector(v: &Value) -> bool {
    matches!(v, Value::Null) || matches!(v, Value::Str(s) if s == "null")
}

/// What the rules of [`check`] know of a filter before they see a value: which of the rules
/// that depend on the filter can report some value of it (a clear bit means that rule reports
/// no value of this filter, so it is not asked), and the choice set values are held to. Made
/// once per parameter of an endpoint of a release ([`crate::index::Params::memo_at`]): a
/// plain valid value then passes a few value tests, and a rule runs whole only where it can
/// fail.
#[derive(Clone, Copy)]
struct Plan(u64);

impl Plan {
    /// `server-fault` ([`faults::broken`]).
    const FAULT: u64 = 1 << 32;
    /// `vrf-needs-rd` ([`super::vrf_needs_rd::is_rd_filter`]).
    const VRF: u64 = 1 << 33;
    /// A row of [`faults::VALUE_FORMS`] ([`faults::has_value_form`]).
    const VALUE_FORM: u64 = 1 << 34;
    /// `object-type-value` ([`super::object_type_value::is_object_type_filter`]).
    const OBJECT_TYPE: u64 = 1 << 35;
    /// `relation-field` ([`super::relation_field::rule_of`] is `Some`).
    const RELATION: u64 = 1 << 36;
    /// [`View::takes_integers_known`].
    const INTEGERS: u64 = 1 << 37;
    /// [`View::is_slug_filter_known`].
    const SLUG: u64 = 1 << 38;
    /// The `__empty` lookup.
    const EMPTY: u64 = 1 << 39;
    /// A choice set ([`choices::set_of`]), whose number is the low 32 bits.
    const CHOICES: u64 = 1 << 40;
    /// None of the rules above applies and the type has no rule of its own (not a boolean,
    /// date, date-time or UUID; no `__regex`): an integer, and a string other than `null` of a
    /// filter that takes no number, pass every rule but those of the query-string and
    /// `api_filter` syntaxes.
    const BARE: u64 = 1 << 41;
    /// With [`Plan::RELATION`]: the name rule ([`super::relation_field::rule_of`] `true`),
    /// else the id rule.
    const RELATION_NAME: u64 = 1 << 42;
    /// Always set: a made plan is never 0 (the memo's "not made").
    const MADE: u64 = 1 << 63;

    /// The plan of filter `key` (its parameter `param`) on `view`: `here` as in [`check`].
    fn make(view: &View, key: &str, param: &Parameter, relation: bool, own: bool) -> Plan {
        let parsed = Key::parse(key);
        let flag = |on: bool, bit: u64| if on { bit } else { 0 };
        let choices = choices::set_of(view, key, &parsed, param, own);
        let relation_rule = super::relation_field::rule_of(view, &parsed, relation, param);
        let bits = Plan::MADE
            | flag(faults::broken(view, key), Plan::FAULT)
            | flag(super::vrf_needs_rd::is_rd_filter(key, param), Plan::VRF)
            | flag(faults::has_value_form(view, key), Plan::VALUE_FORM)
            | flag(
                super::object_type_value::is_object_type_filter(key, param),
                Plan::OBJECT_TYPE,
            )
            | flag(relation_rule.is_some(), Plan::RELATION)
            | flag(relation_rule == Some(true), Plan::RELATION_NAME)
            | flag(
                view.takes_integers_known(key, param, own.then_some(relation)),
                Plan::INTEGERS,
            )
            | flag(
                view.is_slug_filter_known(key, own.then_some((param, relation))),
                Plan::SLUG,
            )
            | flag(parsed.lookup() == Some("empty"), Plan::EMPTY)
            | flag(choices.is_some(), Plan::CHOICES);
        let ruled = Plan::EMPTY
            | Plan::VALUE_FORM
            | Plan::OBJECT_TYPE
            | Plan::RELATION
            | Plan::SLUG
            | Plan::CHOICES;
        let bare = bits & ruled == 0
            && matches!(
                param.kind,
                ValueKind::String | ValueKind::Integer | ValueKind::Number
            )
            && !(key.ends_with("__regex") || key.ends_with("__iregex"));
        let bits = bits | flag(bare, Plan::BARE);
        Plan(bits | u64::from(choices.unwrap_or(0)))
    }

    fn has(self, bit: u64) -> bool {
        self.0 & bit != 0
    }

    /// The number of the choice set (with [`Plan::CHOICES`]).
    fn choice_set(self) -> usize {
        (self.0 & 0xffff_ffff) as usize
    }
}

/// Value rules for `entry`, whose key is the parameter `param` of `view`. `known`: `Some` when
/// `param` is `view`'s own parameter of that key, found by [`View::param_relation`] (whether
/// it is a relation filter, its position); `None` for a parameter made here (a custom
/// field's).
pub(crate) fn check(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    known: Option<Known>,
    out: &mut Vec<Finding>,
) {
    let key = entry.key.as_str();
    let list_len = match &entry.value {
        Value::List(items) => Some(items.len()),
        _ => None,
    };
    let relation = match known {
        Some(k) => k.relation,
        None => view.is_relation(key),
    };
    let own = known.is_some();
    let plan = match known {
        Some(k) => Plan(
            view.ep
                .params
                .memo_at(k.position, || Plan::make(view, key, param, relation, own).0),
        ),
        None => Plan::make(view, key, param, relation, own),
    };
    if plan.has(Plan::FAULT) {
        let all_null = elements(entry).all(|(v, _)| is_null_selector(v));
        if let Some(f) = faults::server_fault(view, entry, all_null) {
            out.push(f);
            return;
        }
    }
    if plan.has(Plan::VRF) {
        if let Some(f) = vrf_needs_rd(ctx, view, entry, param) {
            out.push(f);
            return;
        }
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
    let here = Here { param, plan };
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

/// What [`check`] knows of the entry's key: its parameter, its plan.
struct Here<'p> {
    param: &'p Parameter,
    plan: Plan,
}

/// [`choices::check`] of one value when the plan holds a choice set: a value of the set (or
/// `null`) passes here, any other is checked whole.
fn choice(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    here: &Here,
    text: &str,
    r: Range<usize>,
) -> Option<Finding> {
    if !here.plan.has(Plan::CHOICES) {
        return None;
    }
    let set = view.index.choice_sets.get(here.plan.choice_set())?;
    if set.choices.is_empty() || text == "null" || set.choices.iter().any(|(v, _)| v == text) {
        return None;
    }
    let parsed = Key::parse(&entry.key);
    choices::check(ctx, view, entry, &parsed, here.plan.choice_set(), text, r)
}

/// The rules for one scalar value, first hit wins: what [`Plan::BARE`] lets pass at once (the
/// rules say nothing of it) here, the rest in [`check_rules`] (kept apart so that this path
/// does not carry the rules' stack frame).
#[inline]
fn check_scalar(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    here: &Here,
    v: &Value,
    r: Range<usize>,
) -> Option<Finding> {
    let plan = here.plan;
    if plan.has(Plan::BARE) && !matches!(ctx.syntax(), Syntax::Query | Syntax::ApiFilter) {
        let number = plan.has(Plan::INTEGERS) || here.param.kind == ValueKind::Number;
        match v {
            Value::Int(_) => return None,
            Value::Str(s) if !number && s != "null" => return None,
            _ => {}
        }
    }
    check_rules(ctx, view, entry, here, v, r)
}

/// [`check_scalar`] past its shortcut: every rule the plan allows, in order.
#[inline(never)]
fn check_rules(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    here: &Here,
    v: &Value,
    r: Range<usize>,
) -> Option<Finding> {
    let param = here.param;
    let plan = here.plan;
    let key = entry.key.as_str();
    let syntax = ctx.syntax();
    let number = plan.has(Plan::INTEGERS) || param.kind == ValueKind::Number;
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
    if let Value::Joined(j) = v {
        return Some(joined(
            view,
            entry,
            key,
            &j.separator,
            &j.separator_range,
            false,
        ));
    }
    if matches!(v, Value::Expr | Value::Map | Value::List(_)) {
        return None;
    }
    // Each is about a string in its own syntax only.
    if syntax == Syntax::Query {
        if let Some(f) = quoted_value(ctx, key, v, r.clone()) {
            return Some(f);
        }
    }
    if syntax == Syntax::ApiFilter {
        if let Some(f) = ampersand_in_api_filter(ctx, key, v, r.clone()) {
            return Some(f);
        }
    }
    if param.kind == ValueKind::Boolean {
        return boolean_value(view, entry, v, r, syntax);
    }
    if plan.has(Plan::EMPTY) {
        // Boolean-typed `__empty` went through `boolean_value` above; one typed like its
        // number or date field refuses `true`/`false` (400) and every other value (500).
        return typed_empty(view, key, param, v, r);
    }
    let mut digits = itoa::Buffer::new();
    let text = render::wire_text_in(v, &mut digits)?;
    if plan.has(Plan::VALUE_FORM) {
        if let Some(f) = faults::value_form(view, entry, &text, r.clone()) {
            return Some(f);
        }
    }
    if plan.has(Plan::OBJECT_TYPE) {
        if let Some(f) =
            super::object_type_value::check(view, entry, param, &text, r.clone(), syntax)
        {
            return Some(f);
        }
    }
    if plan.has(Plan::RELATION) {
        let parsed = Key::parse(key);
        let name = plan.has(Plan::RELATION_NAME);
        if let Some(f) =
            super::relation_field::check_rule(view, key, &parsed, name, param, &text, r.clone())
        {
            return Some(f);
        }
    }
    let integers = plan.has(Plan::INTEGERS);
    if number && matches!(v, Value::Str(_)) && text.contains(',') {
        return comma_list(ctx, view, entry, param, &text, integers);
    }
    if number {
        // An integer is a well-formed number for every number filter.
        if !matches!(v, Value::Int(_)) {
            if let Some(f) = invalid_number(view, entry, v, &text, r.clone(), integers, syntax) {
                return Some(f);
            }
        }
        // An integer choice set (`width`: 10, 19, 21, 23; `sync_interval`, IKE `version`) is
        // validated like a text one: a well-formed number outside it is a 400 too.
        return choice(ctx, view, entry, here, &text, r);
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
        return choice(ctx, view, entry, here, &text, r);
    }
    // The slug rules, only for a filter that matches a slug and a value either can be about.
    if plan.has(Plan::SLUG) {
        let numeric = text.trim().parse::<i64>().is_ok();
        if numeric {
            if let Some(f) = number_on_slug(view, entry, &text, r.clone()) {
                return Some(f);
            }
        }
        if matches!(v, Value::Str(_)) {
            if let Some(f) = slug_expected(view, key, &text, r.clone(), syntax) {
                return Some(f);
            }
        }
    }
    choice(ctx, view, entry, here, &text, r)
}
