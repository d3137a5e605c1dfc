//! The quiet path: a call the rules provably say nothing of, told without running them nor
//! measuring the ranges of its canonical text, which only findings read. The Python API's
//! `check_call` asks it first (`filters::check_filters_buf`, through [`super::quiet_call`]);
//! `check` does not (on the generated 10,000-call file, 576 calls quiet, the probes and words
//! cost more than the rules they spared).
//!
//! A call is quiet here when it is an MCP `netbox_get_objects` call (the form the Python API's
//! `check_call` gives an object type, and the tool calls of agents' files) with no other
//! argument, not in a query string or `api_filter`, to an object type written exactly as the
//! index holds it, with at least one filter, and every filter is a parameter of that endpoint
//! in this release with a value the value rules cannot object to. Anything else, and any
//! filter this module cannot vouch for, goes to the rules ([`super::check_call_after`]), which
//! give the same answer for a quiet call: no finding, and the endpoint's key.
//!
//! What vouching rests on, rule by rule of the checks (`super::rules`) for such a call:
//! - the target: an object type the index holds as written resolves with no finding
//!   (`target::resolve`), and a call with a view and no detail URL has no plugin note;
//! - per filter (`check_entry`): no custom-field key (`cf_`), no view parameter (`limit`,
//!   `brief`, ...: they have rules of their own), no dropped value (null, empty string or list),
//!   a parameter of the endpoint (so no name rule runs), no announced removal of it, and a
//!   value [`Word::takes`] ([`super::values::check`]: the same facts its plan is made of);
//! - the call: no repeated-key rule on this form, no tag note (fewer than two `tag` values and
//!   two `tag_id` values), no cable-termination note, no announced removal of the endpoint, no
//!   tool argument to check.
//!
//! The property tests below check every parameter of every endpoint of every shipped release
//! and of the instance fixture's index, with values of every kind and calls of several filters,
//! against the rules.

use super::choices;
use super::endpoint::View;
use super::lookups::Key;
use crate::extract::{CallForm, RestCall, Syntax, Value};
use crate::index::{FilterIndex, Parameter, ValueKind};

/// The endpoint key (`dcim/devices`) when `call` is provably quiet: the rules
/// ([`super::check_call_keyed`]) give no finding for it and this key. Else (the rules then decide) the endpoint when it was
/// resolved: an MCP object type written as the index holds it, which `target::resolve`
/// resolves to the same endpoint with no finding. Cost: a probe for the target and one per
/// filter, and a word per parameter made once ([`crate::index::Params::quiet_at`]).
pub(crate) fn quiet<'i>(
    call: &RestCall,
    index: &'i FilterIndex,
) -> Result<&'i str, Option<View<'i>>> {
    if call.form != CallForm::GetObjects {
        return Err(None);
    }
    let Some((target, _)) = call.target.as_ref() else {
        return Err(None);
    };
    let Some(Some((key, ep))) = index.object_type_endpoint(target) else {
        return Err(None);
    };
    let view = View { key, ep, index };
    if !call.args.is_empty()
        || call.filters.is_empty()
        || call.filters.len() > MOST
        || matches!(call.syntax, Syntax::Query | Syntax::ApiFilter)
        // The values first: a value no word takes is refused before any probe.
        || !call.filters.iter().all(|e| shaped(&e.value))
    {
        return Err(Some(view));
    }
    // Every name is found before a word is made: a call with an unknown name (the rules'
    // business) makes none.
    let mut found: [(usize, Option<&Parameter>); MOST] = [(0, None); MOST];
    for (e, slot) in call.filters.iter().zip(&mut found) {
        let Some((position, param)) = ep.params.get_at(&e.key) else {
            return Err(Some(view));
        };
        *slot = (position, Some(param));
    }
    // `tag` and `tag_id` values so far (the tag note needs two of one key).
    let mut tags = [0usize; 2];
    for (e, &(position, param)) in call.filters.iter().zip(&found) {
        let Some(param) = param else {
            return Err(Some(view));
        };
        let word = Word(
            ep.params
                .quiet_at(position, || Word::make(&view, &e.key, param).0),
        );
        if !word.takes(&e.value, index) {
            return Err(Some(view));
        }
        if word.has(Word::TAG) {
            let n = match &e.value {
                Value::List(items) => items.len(),
                _ => 1,
            };
            let slot = &mut tags[usize::from(e.key == "tag_id")];
            *slot += n;
            if *slot >= 2 {
                return Err(Some(view));
            }
        }
    }
    Ok(key)
}

/// The most filters of a call the quiet path looks at (a call with more goes to the rules).
const MOST: usize = 16;

/// False for a top-level value no [`Word`] takes (a null, a float, joined values, an empty
/// string or list: dropped or judged by the rules).
#[inline]
fn shaped(v: &Value) -> bool {
    match v {
        Value::Null | Value::Float(_) | Value::Joined(_) => false,
        Value::Str(s) => !s.is_empty(),
        Value::List(items) => !items.is_empty(),
        Value::Int(_) | Value::Bool(_) | Value::Map | Value::Expr => true,
    }
}

/// What the quiet path knows of one parameter of one endpoint of one index: which values of
/// it the rules say nothing of. The low 32 bits hold the choice set of [`Word::STR_CHOICE`].
#[derive(Clone, Copy)]
struct Word(u64);

impl Word {
    /// The key's own rules say nothing of it whatever its value (it is no custom field or view
    /// parameter; no removal of it or its endpoint is announced; no server fault, RD rule or
    /// cable note is about it). Without it no value is taken.
    const KEY: u64 = 1 << 32;
    /// An integer is taken.
    const INT: u64 = 1 << 33;
    /// A string other than `null` is taken.
    const STR: u64 = 1 << 34;
    /// A string of the choice set in the low 32 bits is taken (or any, when the index has no
    /// such set or it is empty).
    const STR_CHOICE: u64 = 1 << 35;
    /// A boolean filter: a boolean is taken, and the strings `true`, `false`, `True`, `False`.
    const BOOL: u64 = 1 << 36;
    /// Several values (a list of two or more) are taken.
    const MULTI: u64 = 1 << 37;
    /// `tag` or `tag_id`: two values of the call make a tag note.
    const TAG: u64 = 1 << 38;
    /// Always set: a made word is never 0 (the memo's "not made").
    const MADE: u64 = 1 << 63;

    /// The word of filter `key` (its parameter `param`, found by name on `view`). Mirrors
    /// [`super::values::check`] and its plan for a JSON or Python call: a value kind is taken
    /// only where every rule that can see it passes it whatever it is (or, for a choice, the
    /// set holds it).
    fn make(view: &View, key: &str, param: &Parameter) -> Word {
        let Some(known) = view.param_relation(key) else {
            return Word(Word::MADE);
        };
        let relation = known.relation;
        let version = view.version();
        let base = key.strip_suffix("__n").unwrap_or(key);
        let key_quiet = !key.is_empty()
            && !key.starts_with("cf_")
            && super::view_params::get(key).is_none()
            && crate::forecast::filter(version, view.key, key).is_none()
            && crate::forecast::endpoint(version, view.key).is_none()
            && !(view.key == "dcim/cables"
                && matches!(base, "termination_a_type" | "termination_b_type"))
            && !super::faults::broken(view, key)
            && !super::vrf_needs_rd::is_rd_filter(key, param);
        if !key_quiet {
            return Word(Word::MADE);
        }
        let parsed = Key::parse(key);
        let mut bits = Word::MADE | Word::KEY;
        if param.multi {
            bits |= Word::MULTI;
        }
        if key == "tag" || key == "tag_id" {
            bits |= Word::TAG;
        }
        if param.kind == ValueKind::Boolean {
            // `boolean_value` alone judges a scalar of a boolean filter.
            return Word(bits | Word::BOOL);
        }
        let ruled = parsed.lookup() == Some("empty")
            || super::faults::has_value_form(view, key)
            || super::object_type_value::is_object_type_filter(key, param)
            || super::relation_field::rule_of(view, &parsed, relation, param).is_some();
        if ruled {
            return Word(bits);
        }
        let choices = choices::set_of(view, key, &parsed, param, true);
        let number = view.takes_integers_known(key, param, Some(relation))
            || param.kind == ValueKind::Number;
        // The rules a non-number meets after the number rules: dates, UUIDs, regexes, slugs.
        let typed = matches!(
            param.kind,
            ValueKind::Date | ValueKind::DateTime | ValueKind::Uuid
        ) || key.ends_with("__regex")
            || key.ends_with("__iregex")
            || view.is_slug_filter_known(key, Some((param, relation)));
        if choices.is_none() && (number || !typed) {
            bits |= Word::INT;
        }
        if !number && !typed {
            bits |= match choices {
                None => Word::STR,
                Some(set) => Word::STR_CHOICE | u64::from(set),
            };
        }
        Word(bits)
    }

    fn has(self, bit: u64) -> bool {
        self.0 & bit != 0
    }

    /// True when the rules say nothing of `v` as this filter's value (a list: of each item,
    /// and of their number).
    #[inline]
    fn takes(self, v: &Value, index: &FilterIndex) -> bool {
        if !self.has(Word::KEY) {
            return false;
        }
        match v {
            Value::List(items) => {
                !items.is_empty()
                    && (items.len() == 1 || self.has(Word::MULTI))
                    && items.iter().all(|(item, _)| self.item(item, index))
            }
            // Dropped (`dropped-value`).
            Value::Str(s) if s.is_empty() => false,
            v => self.item(v, index),
        }
    }

    /// [`Word::takes`] of one scalar (or a list's item).
    #[inline]
    fn item(self, v: &Value, index: &FilterIndex) -> bool {
        match v {
            Value::Int(_) => self.has(Word::INT),
            // `null` is the null selector, which rules of its own judge.
            Value::Str(s) if s == "null" => false,
            Value::Str(s) => {
                self.has(Word::STR)
                    || (self.has(Word::BOOL)
                        && matches!(s.as_str(), "true" | "false" | "True" | "False"))
                    || (self.has(Word::STR_CHOICE) && self.in_set(s, index))
            }
            Value::Bool(_) => self.has(Word::BOOL),
            // Not judged by any value rule (a list in a list included).
            Value::Expr | Value::Map | Value::List(_) => true,
            Value::Null | Value::Float(_) | Value::Joined(_) => false,
        }
    }

    /// True when the choice set of the word holds `s` (as the choice rule asks it: a set the
    /// index lacks, or an empty one, holds every value).
    fn in_set(self, s: &str, index: &FilterIndex) -> bool {
        match index.choice_sets.get((self.0 & 0xffff_ffff) as usize) {
            None => true,
            Some(set) => set.choices.is_empty() || set.choices.iter().any(|(v, _)| v == s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::FilterEntry;
    use std::collections::BTreeSet;

    fn s(t: &str) -> Value {
        Value::Str(t.into())
    }

    fn list(items: Vec<Value>) -> Value {
        Value::List(items.into_iter().map(|v| (v, 0..0)).collect())
    }

    /// Values of every kind the rules tell apart: numbers, texts, dates, UUIDs, booleans,
    /// nulls, lists, empty strings, object types, slugs, regexes, and the filter's own choice
    /// values (and their labels, and near misses) with those of its base filter.
    fn values_for(index: &FilterIndex, ep: &crate::index::Endpoint, key: &str) -> Vec<Value> {
        let mut texts: Vec<String> = [
            "",
            "null",
            "Null",
            "None",
            "active",
            "Active",
            "dc1",
            "core-1",
            "core_1",
            "a b",
            "3",
            "0",
            "-1",
            "65001",
            "4200000001",
            "1,2",
            "21, 7",
            "1.5",
            "2024-01-01",
            "2024-01-01T00:00:00Z",
            "2024-13-45",
            "yesterday",
            "123e4567-e89b-12d3-a456-426614174000",
            "not-a-uuid",
            "true",
            "false",
            "True",
            "False",
            "yes",
            "1",
            "on",
            "a&b",
            "\"q\"",
            "'q'",
            "dcim.device",
            "dcim | device",
            "ipam.ipaddress",
            "65001:100",
            "10.0.0.1",
            "10.0.0.0/24",
            "[a-z]+",
            "(",
            "*",
            "ünïcode",
            " padded ",
            "x".repeat(70).as_str(),
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        let base = Key::parse(key).base().to_string();
        for name in [key, base.as_str()] {
            let Some(set) = ep
                .params
                .get(name)
                .and_then(|p| p.choices)
                .and_then(|n| index.choice_sets.get(n as usize))
            else {
                continue;
            };
            for (v, label) in set.choices.iter().take(12) {
                texts.push(v.clone());
                texts.push(label.clone());
                texts.push(v.to_uppercase());
                texts.push(format!("{v}x"));
            }
        }
        let mut out: Vec<Value> = texts.iter().map(|t| s(t)).collect();
        out.extend([
            Value::Int(0),
            Value::Int(1),
            Value::Int(3),
            Value::Int(-1),
            Value::Int(42),
            Value::Int(65_000),
            Value::Int(4_200_000_001),
            Value::Int(i64::MAX),
            Value::Bool(true),
            Value::Bool(false),
            Value::Null,
            Value::Float(1.5),
            Value::Float(2.0),
            Value::Float(f64::NAN),
            Value::Expr,
            Value::Map,
            Value::Joined(Box::new(crate::extract::Joined {
                separator: ",".into(),
                separator_range: 0..0,
            })),
            list(vec![]),
            list(vec![Value::Int(1)]),
            list(vec![Value::Int(1), Value::Int(2)]),
            list(vec![s("active")]),
            list(vec![s("active"), s("planned")]),
            list(vec![s(""), s("x")]),
            list(vec![s("x"), s("null")]),
            list(vec![Value::Null]),
            list(vec![Value::Int(1), Value::Null]),
            list(vec![list(vec![Value::Int(1)])]),
            list(vec![Value::Expr, Value::Map]),
            list(vec![Value::Bool(true), Value::Bool(false)]),
            list(vec![Value::Int(1), s("a")]),
            list(vec![Value::Float(1.5)]),
            list(vec![s("2024-01-01"), s("2024-01-02")]),
        ]);
        // The filter's own choices as a list.
        let choice_list: Vec<Value> = texts[texts.len().saturating_sub(8)..]
            .iter()
            .map(|t| s(t))
            .collect();
        out.push(list(choice_list));
        out
    }

    fn call(target: &str, syntax: Syntax, filters: &[(&str, &Value)]) -> RestCall {
        RestCall {
            form: CallForm::GetObjects,
            syntax,
            target: Some((target.into(), 0..target.len())),
            call_range: 0..0,
            filters_range: None,
            filters: filters
                .iter()
                .map(|(k, v)| FilterEntry {
                    key: (*k).into(),
                    key_range: 0..0,
                    value: (*v).clone(),
                    value_range: 0..0,
                })
                .collect(),
            args: Vec::new(),
            declared: false,
        }
    }

    /// [`quiet`]'s key, when quiet.
    fn q<'i>(call: &RestCall, index: &'i FilterIndex) -> Option<&'i str> {
        quiet(call, index).ok()
    }

    /// Asserts that `call` is quiet only where the rules give nothing (and the same endpoint);
    /// true when it is quiet. With `whole`, a call it is not quiet of is also checked by the
    /// rules both with the endpoint it resolved and without: the same findings.
    fn agrees(call: &RestCall, index: &FilterIndex, whole: bool) -> bool {
        let key = match quiet(call, index) {
            Ok(key) => key,
            Err(resolved) => {
                if whole && resolved.is_some() {
                    let given = super::super::rules(call, index, None, resolved);
                    let own = super::super::rules(call, index, None, None);
                    assert_eq!(format!("{given:?}"), format!("{own:?}"), "{call:?}");
                }
                return false;
            }
        };
        let (found, resolved) = super::super::rules(call, index, None, None);
        let codes: Vec<&str> = found.iter().map(|f| f.code).collect();
        assert!(
            found.is_empty() && resolved == Some(key),
            "quiet, but the rules say {codes:?} (endpoint {resolved:?}, quiet {key}) on NetBox {}: {:?} {:?}",
            index.netbox_version,
            call.target,
            call.filters
                .iter()
                .map(|e| (&e.key, &e.value))
                .collect::<Vec<_>>()
        );
        true
    }

    /// The instance fixture's index (a customised 4.6.8: custom fields, the netbox-bgp plugin).
    fn instance_index() -> FilterIndex {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/instance");
        let read = |n: &str| std::fs::read(dir.join(n)).unwrap();
        let inputs = crate::instance::Inputs {
            status: Some(read("status.json.gz")),
            openapi: read("openapi.json.gz"),
            graphql: None,
            custom_fields: vec![read("custom-fields.json.gz")],
            choice_sets: vec![read("custom-field-choice-sets.json.gz")],
        };
        crate::instance::build(&inputs, "", &Default::default())
            .unwrap()
            .index
    }

    /// Every index the property runs on: the shipped releases and the instance fixture's.
    fn indexes() -> Vec<std::sync::Arc<FilterIndex>> {
        let mut all: Vec<_> = crate::index::embedded::versions()
            .map(crate::index::embedded::embedded_index)
            .collect();
        all.push(std::sync::Arc::new(instance_index()));
        all
    }

    /// The object types of `index` that name their endpoint exactly, with the endpoint.
    fn targets(index: &FilterIndex) -> Vec<(String, &crate::index::Endpoint)> {
        index
            .object_types
            .keys()
            .filter_map(|ot| match index.object_type_endpoint(ot) {
                Some(Some((_, ep))) => Some((ot.clone(), ep)),
                _ => None,
            })
            .collect()
    }

    /// One filter: every parameter of every endpoint of every index, with every value of
    /// [`values_for`], in a JSON (the Python API's) and a Python call; and names that are no
    /// parameter here (other releases' names, renamed and version-only ones, `cf_` and view
    /// parameters, near misses), which are never quiet.
    #[test]
    fn quiet_is_only_said_of_calls_without_findings() {
        let indexes = indexes();
        let mut names_anywhere: BTreeSet<String> = BTreeSet::new();
        for index in &indexes {
            for ep in index.endpoints.values() {
                names_anywhere.extend(ep.params.keys().map(str::to_string));
            }
        }
        let (mut quiet_calls, mut calls) = (0usize, 0usize);
        for index in &indexes {
            let index: &FilterIndex = index;
            let mut quiet_here = 0;
            for (ot, ep) in targets(index) {
                for (key, _) in ep.params.iter() {
                    for v in values_for(index, ep, key) {
                        for syntax in [Syntax::Json, Syntax::Python] {
                            calls += 1;
                            let whole = calls % 23 == 0;
                            if agrees(&call(&ot, syntax, &[(key, &v)]), index, whole) {
                                quiet_here += 1;
                            }
                        }
                    }
                }
                for key in names_anywhere
                    .iter()
                    .filter(|k| !ep.params.contains_key(k))
                    .step_by(7)
                    .map(String::as_str)
                    .chain([
                        "cf_x", "limit", "brief", "fields", "omit", "q__ic", "", "Status",
                    ])
                {
                    let c = call(&ot, Syntax::Json, &[(key, &Value::Int(3))]);
                    assert!(
                        ep.params.contains_key(key) || q(&c, index).is_none(),
                        "{key} is no parameter of {ot}, yet quiet"
                    );
                    agrees(&c, index, true);
                }
            }
            assert!(
                quiet_here > 0,
                "nothing quiet on NetBox {}",
                index.netbox_version
            );
            quiet_calls += quiet_here;
        }
        println!("{quiet_calls} of {calls} one-filter calls quiet");
    }

    /// Calls of several filters, drawn (seeded) from the one-filter calls that are quiet, with
    /// `tag` / `tag_id` among them, repeated keys, and one refused filter mixed in: quiet only
    /// without a finding, and always quiet when every filter alone is and fewer than two
    /// values of `tag` (and of `tag_id`) are given.
    #[test]
    fn quiet_calls_of_several_filters_have_no_findings() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for index in indexes() {
            let index: &FilterIndex = &index;
            for (ot, ep) in targets(index) {
                let mut singles: Vec<(String, Value)> = Vec::new();
                let mut refused: Vec<(String, Value)> = Vec::new();
                for (key, _) in ep.params.iter() {
                    for v in values_for(index, ep, key).into_iter().step_by(3) {
                        let c = call(&ot, Syntax::Json, &[(key, &v)]);
                        if q(&c, index).is_some() {
                            singles.push((key.to_string(), v));
                        } else if refused.len() < 50 {
                            refused.push((key.to_string(), v));
                        }
                    }
                }
                for key in ["tag", "tag_id"] {
                    if ep.params.contains_key(key) {
                        singles.push((key.into(), s("alpha")));
                        singles.push((key.into(), Value::Int(1)));
                        singles.push((key.into(), list(vec![s("a"), s("b")])));
                    }
                }
                if singles.is_empty() {
                    continue;
                }
                for round in 0..40 {
                    let n = 2 + next(4);
                    let mut picked: Vec<&(String, Value)> =
                        (0..n).map(|_| &singles[next(singles.len())]).collect();
                    if round % 5 == 0 {
                        // A repeated key.
                        picked.push(picked[0]);
                    }
                    let one_refused = round % 4 == 1 && !refused.is_empty();
                    if one_refused {
                        picked.insert(next(picked.len()), &refused[next(refused.len())]);
                    }
                    let filters: Vec<(&str, &Value)> =
                        picked.iter().map(|(k, v)| (k.as_str(), v)).collect();
                    let c = call(&ot, Syntax::Json, &filters);
                    let was = agrees(&c, index, true);
                    let tags = |key: &str| -> usize {
                        picked
                            .iter()
                            .filter(|(k, _)| k == key)
                            .map(|(_, v)| match v {
                                Value::List(items) => items.len(),
                                _ => 1,
                            })
                            .sum()
                    };
                    let all_alone = picked.iter().all(|(k, v)| {
                        q(&call(&ot, Syntax::Json, &[(k.as_str(), v)]), index).is_some()
                    });
                    if all_alone && tags("tag") < 2 && tags("tag_id") < 2 {
                        assert!(
                            was,
                            "every filter quiet alone, the call not: {ot} {filters:?}"
                        );
                    }
                }
            }
        }
    }

    /// The forms, syntaxes and shapes of call the quiet path leaves to the rules.
    #[test]
    fn other_forms_and_shapes_are_left_to_the_rules() {
        let index = crate::index::embedded::embedded_index("4.7.3");
        let v = Value::Int(3);
        let good = call("dcim.device", Syntax::Json, &[("role_id", &v)]);
        assert_eq!(q(&good, &index), Some("dcim/devices"));
        let mut c = good.clone();
        for form in [
            CallForm::Url,
            CallForm::Pynetbox,
            CallForm::CodeModeGet,
            CallForm::GetObjectById,
            CallForm::SearchObjects,
            CallForm::Snippet,
            CallForm::Inventory,
        ] {
            c.form = form;
            assert_eq!(q(&c, &index), None, "{form:?}");
        }
        for syntax in [Syntax::Query, Syntax::ApiFilter] {
            let mut c = good.clone();
            c.syntax = syntax;
            assert_eq!(q(&c, &index), None);
        }
        let mut c = good.clone();
        c.args.push(crate::extract::Argument {
            name: "limit".into(),
            name_range: 0..0,
            value: Value::Int(500),
            value_range: 0..0,
        });
        assert_eq!(q(&c, &index), None);
        let mut c = good.clone();
        c.filters.clear();
        assert_eq!(q(&c, &index), None);
        for target in [
            "dcim.devices",
            "dcim/devices",
            " dcim.device",
            "Dcim.Device",
        ] {
            let mut c = good.clone();
            c.target = Some((target.into(), 0..target.len()));
            assert_eq!(q(&c, &index), None, "{target}");
        }
        let mut c = good.clone();
        c.target = None;
        assert_eq!(q(&c, &index), None);
    }
}
