//! `graphql-choice-form`: the form of choice filters per release (bare enum on 4.3/4.4,
//! `*EnumBaseFilterLookup` on 4.5+), and strings mapped to enum members.

use super::{span, Ctx, RawFinding, RawFix};
use crate::finding::Severity;
use crate::graphql::suggest::{clear_winner, did_you_mean};
use apollo_compiler::ast::Value;
use apollo_compiler::Name;
use std::ops::Range;

impl Ctx<'_> {
    /// A choice filter written as a bare enum or string where the version wants
    /// `{exact: ENUM}` (NetBox 4.5+ `*EnumBaseFilterLookup`).
    pub(super) fn choice_lookup_wanted(
        &mut self,
        v: &Value,
        vr: &Range<usize>,
        fname: &Name,
        lookup: &str,
        en: &str,
    ) {
        let new = match v {
            Value::Enum(e) => self
                .enum_member(en, e.as_str())
                .map(|e| format!("{{exact: {e}}}")),
            Value::String(s) => self
                .enum_for_string(en, s)
                .map(|e| format!("{{exact: {e}}}")),
            Value::Int(i) => self
                .enum_for_string(en, &i.to_string())
                .map(|e| format!("{{exact: {e}}}")),
            Value::List(items) => {
                let vals: Option<Vec<String>> = items
                    .iter()
                    .map(|i| match i.as_ref() {
                        Value::Enum(e) => self.enum_member(en, e.as_str()),
                        Value::String(s) => self.enum_for_string(en, s),
                        Value::Int(n) => self.enum_for_string(en, &n.to_string()),
                        _ => None,
                    })
                    .collect();
                vals.map(|v| format!("{{in_list: [{}]}}", v.join(", ")))
            }
            _ => None,
        };
        let example = new
            .clone()
            .unwrap_or_else(|| format!("{{exact: {}}}", self.first_enum_value(en)));
        let version = self.version_phrase();
        let mut message = if new.is_some() {
            format!(
                "Choice filter `{fname}` takes a lookup object{version} (`{lookup}`) with `{en}` values: write `{fname}: {example}`; a bare value is refused."
            )
        } else {
            format!(
                "Choice filter `{fname}` takes a lookup object{version} (`{lookup}`) with `{en}` values, such as `{fname}: {example}`; a bare value is refused, and `{}` is no `{en}` member.",
                self.src(vr).trim()
            )
        };
        if let (Value::Int(i), None) = (v, &new) {
            message = format!(
                "`{i}` is no value of choice filter `{fname}`{version}: it takes a lookup object (`{lookup}`) of `{en}` members, such as `{fname}: {example}`."
            );
        }
        self.push_choice_form(vr, fname, message, new);
    }

    /// Pushes a `graphql-choice-form` finding on the value `vr`, with the version's form `new`
    /// as the certain fix when there is one.
    pub(super) fn push_choice_form(
        &mut self,
        vr: &Range<usize>,
        fname: &str,
        message: String,
        new: Option<String>,
    ) {
        let mut f = RawFinding {
            range: vr.clone(),
            code: "graphql-choice-form",
            severity: Severity::Error,
            message,
            fixes: Vec::new(),
            claim: Some(vr.clone()),
            does: None,
        };
        if let Some(new) = new {
            f.fixes.push(RawFix {
                title: format!("Use `{fname}: {new}`"),
                edits: vec![(vr.clone(), new)],
                certain: true,
            });
        }
        self.push(f);
    }

    /// A choice filter given as a string or lookup object where the version wants a bare enum
    /// value (NetBox 4.3/4.4: `status: STATUS_ACTIVE`). Returns false when the value is fine.
    pub(super) fn choice_enum_wanted(
        &mut self,
        v: &Value,
        vr: &Range<usize>,
        fname: &Name,
        en: &str,
        lookup_of: bool,
    ) -> bool {
        let version = self.version_phrase();
        // `exact` inside a 4.5+ `*EnumBaseFilterLookup` is a lookup of a choice filter.
        let what = if lookup_of { "Lookup" } else { "Choice filter" };
        // `fix`: the bare value when it keeps the meaning (one value, spelled right or
        // corrected with a clear winner); `shown`: the value the message names.
        let (fix, shown, note) = match v {
            Value::String(s) => {
                let e = self.enum_for_string(en, s);
                (e.clone(), e, String::new())
            }
            Value::Int(i) => {
                let e = self.enum_for_string(en, &i.to_string());
                (e.clone(), e, String::new())
            }
            Value::Object(fields) if fields.len() == 1 && fields[0].0 == "exact" => {
                let inner = fields[0].1.as_ref();
                let e = match inner {
                    Value::Enum(e) => self.enum_member(en, e.as_str()),
                    Value::String(s) => self.enum_for_string(en, s),
                    // `{exact: 6}`: the member for the choice value 6, never the bare number.
                    Value::Int(i) => self.enum_for_string(en, &i.to_string()),
                    Value::Variable(_) => {
                        span(fields[0].1.location()).map(|r| self.src(&r).to_string())
                    }
                    _ => None,
                };
                (e.clone(), e, String::new())
            }
            Value::Object(fields) => {
                let written: Vec<&Value> = fields
                    .iter()
                    .filter(|(n, _)| n == "in_list")
                    .flat_map(|(_, v)| match v.as_ref() {
                        Value::List(items) => items.iter().map(|i| i.as_ref()).collect(),
                        _ => Vec::new(),
                    })
                    .collect();
                let items: Vec<String> = written
                    .iter()
                    .filter_map(|i| match i {
                        Value::Enum(e) => Some(
                            self.enum_member(en, e.as_str())
                                .unwrap_or_else(|| e.to_string()),
                        ),
                        Value::String(s) => self.enum_for_string(en, s),
                        _ => None,
                    })
                    .collect();
                let example = match items.as_slice() {
                    [a, b, ..] => format!("`{fname}: {a}, OR: {{{fname}: {b}}}`"),
                    _ => format!("`OR: {{{fname}: ...}}`"),
                };
                // One value keeps its meaning bare; several need OR, which changes what the
                // object's other filters mean (`{site_id: 1, status: A, OR: {status: B}}` is
                // `(site 1 and A) or B`), so no certain fix drops or regroups them.
                let one = (written.len() == 1 && fields.len() == 1)
                    .then(|| items.first().cloned())
                    .flatten()
                    .filter(|e| self.enum_member(en, e).as_deref() == Some(e.as_str()));
                (
                    one,
                    items.first().cloned(),
                    format!(" Lookups such as `in_list` do not exist here; combine values with {example}."),
                )
            }
            _ => return false,
        };
        let unmapped = fix.is_none() && shown.is_none();
        let example = shown.unwrap_or_else(|| self.first_enum_value(en));
        let number = match v {
            Value::Int(i) => Some(i.to_string()),
            Value::Object(fields) => {
                fields
                    .iter()
                    .find(|(n, _)| n == "exact")
                    .and_then(|(_, x)| match x.as_ref() {
                        Value::Int(i) => Some(i.to_string()),
                        _ => None,
                    })
            }
            _ => None,
        };
        let message = if let Some(n) = number.filter(|_| unmapped) {
            format!(
                "`{n}` is no value of {} `{fname}`{version}: it takes one bare `{en}` member, such as `{fname}: {example}`.",
                what.to_ascii_lowercase()
            )
        } else if fix.is_none() && !note.is_empty() {
            format!(
                "{what} `{fname}` takes one bare `{en}` value{version} (`{fname}: {example}`), not a lookup object.{note}"
            )
        } else {
            format!(
                "{what} `{fname}` takes a bare `{en}` value{version}: write `{fname}: {example}` (not a number, a string or a lookup object).{note}"
            )
        };
        self.push_choice_form(vr, fname, message, fix);
        true
    }

    /// The member of enum `en` meant by `written`: itself when it is one, else the clear
    /// "did you mean" winner (`STATUS_ACTIV` → `STATUS_ACTIVE`: one edit away, the next
    /// candidate three or more), else `None`. So a form fix corrects the typo too and fix-all
    /// converges in one round.
    pub(super) fn enum_member(&self, en: &str, written: &str) -> Option<String> {
        let e = self.nb.schema.get_enum(en)?;
        if e.values.contains_key(written) {
            return Some(written.to_string());
        }
        // Core enums name members `<PREFIX>_<VALUE>` (`STATUS_ACTIVE`), plugin and some core
        // ones the bare value (`ACTIVE`, circuits' `StatusBaseFilterLookup` enum): the member
        // with the same value, when exactly one has it.
        let value = |m: &str| m.split_once('_').map(|(_, v)| v.to_string());
        let same: Vec<&Name> = e
            .values
            .keys()
            .filter(|k| {
                value(written).as_deref() == Some(k.as_str())
                    || value(k.as_str()).as_deref() == Some(written)
            })
            .collect();
        if same.len() == 1 {
            return Some(same[0].to_string());
        }
        let candidates = did_you_mean(written, e.values.keys().map(|k| k.as_str()));
        clear_winner(&written.to_ascii_lowercase(), &candidates).then(|| candidates[0].clone())
    }

    /// The enum value for a choice value written as a string: `"active"` → `STATUS_ACTIVE`
    /// (`ChoiceSet.as_enum(prefix=...)` names members `<PREFIX>_<VALUE>`), also exact names.
    pub(super) fn enum_for_string(&self, en: &str, s: &str) -> Option<String> {
        let e = self.nb.schema.get_enum(en)?;
        let want = s.trim().to_ascii_uppercase().replace(['-', ' ', '.'], "_");
        if e.values.contains_key(want.as_str()) {
            return Some(want);
        }
        let ending = |w: &str| -> Vec<&Name> {
            e.values
                .keys()
                .filter(|k| k.as_str().ends_with(&format!("_{w}")))
                .collect()
        };
        let hits = ending(&want);
        if hits.len() == 1 {
            return Some(hits[0].to_string());
        }
        // A label holding the value as its one number (`IPv4` for `FAMILY_4`).
        let digits: Vec<&str> = want
            .split(|c: char| !c.is_ascii_digit())
            .filter(|d| !d.is_empty())
            .collect();
        match (hits.is_empty(), digits.as_slice()) {
            (true, [d]) if *d != want => {
                let hits = ending(d);
                (hits.len() == 1).then(|| hits[0].to_string())
            }
            _ => None,
        }
    }

    pub(super) fn first_enum_value(&self, en: &str) -> String {
        self.nb
            .schema
            .get_enum(en)
            .and_then(|e| e.values.keys().next().map(|k| k.to_string()))
            .unwrap_or_else(|| "VALUE".into())
    }
}
