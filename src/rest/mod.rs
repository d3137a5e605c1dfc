//! REST filter checks: names per endpoint, lookups, choice values and the value rules the
//! schema cannot say. Pure: a [`RestCall`] and an index in, findings out.
//!
//! Order: the target is resolved first (unknown endpoint → no name findings); then per filter
//! the wire-encoding rule (`dropped-value`), then for a known parameter the hand value rules
//! and the choice check, for an unknown one the name rules (`unsupported-lookup`, `multi-hop`,
//! `null-relation`, `wrong-filter-for-type`, `version-only`, `unknown-filter` with
//! suggestions); then call-level rules (repeated keys, removals announced for a release to come)
//! and the tool arguments. A detail URL (`/api/dcim/devices/42/?...`) reads its query as
//! NetBox's detail view does (`detail`).

mod announced;
mod api_filter_ampersand;
mod boolean_value;
mod choices;
mod comma_list;
mod detail;
mod dropped_value;
mod endpoint;
mod endpoint_history;
mod entry;
pub(crate) mod faults;
mod filler;
mod fit;
mod instance;
mod invalid_date;
mod invalid_number;
mod invalid_regex;
mod invalid_uuid;
mod inventory;
mod joined;
pub(crate) mod lookups;
mod names;
mod near;
mod notes;
mod null_refused;
pub(crate) mod nullable;
mod object_type_value;
mod quiet;
mod quoted_value;
mod relation_field;
pub(crate) mod renames;
pub use renames::renamed_on;
mod render;
mod single_value;
mod slug_expected;
mod suggest;
mod target;
mod text;
mod typed_empty;
mod values;
pub(crate) mod versions;
pub(crate) mod view_params;
mod view_values;
mod vrf_needs_rd;

use crate::extract::{CallForm, FilterEntry, RestCall, Syntax, Value};
use crate::finding::{Finding, Severity};
use crate::index::FilterIndex;
use compact_str::CompactString;
use std::ops::Range;

/// What every rule needs: the call, its endpoint (when known) and the other shipped versions.
pub(crate) struct Ctx<'a> {
    pub call: &'a RestCall,
    pub index: &'a FilterIndex,
    /// Indexes of other NetBox versions, for `version-only`; `None` = the embedded releases
    /// (decoded only when a name is unknown).
    pub others: Option<&'a [&'a FilterIndex]>,
}

impl Ctx<'_> {
    pub fn syntax(&self) -> Syntax {
        self.call.syntax
    }

    /// True for the MCP tool forms whose `None` values never reach NetBox.
    pub fn is_mcp(&self) -> bool {
        matches!(
            self.call.form.tool_like(),
            CallForm::GetObjects
                | CallForm::GetChangelogs
                | CallForm::GetObjectById
                | CallForm::SearchObjects
        )
    }

    /// Byte range of a whole `key=value` pair (query strings) or of the value.
    pub fn pair_range(&self, e: &FilterEntry) -> Range<usize> {
        e.key_range.start.min(e.value_range.start)..e.key_range.end.max(e.value_range.end)
    }
}

#[cfg(test)]
thread_local! {
    /// How many calls this thread checked (tests: no consumer of an analysis checks a call
    /// again).
    pub(crate) static CHECKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Checks one REST call against `index` (the selected NetBox version). Fails open: an unknown
/// endpoint or object type gives no name findings. Findings are in filter order, then the
/// call-level and argument findings.
pub fn check_call(call: &RestCall, index: &FilterIndex) -> Vec<Finding> {
    run(call, index, None).0
}

/// [`check_call`], also giving the endpoint key (`ipam/ip-addresses`) the filters were checked
/// against: the target's, or the one its certain fix names (`ipam.ip_address` →
/// `ipam/ip-addresses`). `None` when no endpoint of `index` was found, so no filter name or
/// value was checked (and for the inventory form, which checks two endpoints).
pub fn check_call_resolved(call: &RestCall, index: &FilterIndex) -> (Vec<Finding>, Option<String>) {
    let (found, key) = run(call, index, None);
    (found, key.map(str::to_string))
}

/// [`check_call_resolved`] with the endpoint key borrowed, not copied (the Python API's
/// `check_call` keeps one shared copy of it per endpoint, not one per call).
pub fn check_call_keyed<'a>(
    call: &'a RestCall,
    index: &'a FilterIndex,
) -> (Vec<Finding>, Option<&'a str>) {
    run(call, index, None)
}

/// What [`quiet_call`] found: the endpoint of a call it cannot tell quiet, when it resolved
/// it, for [`check_call_after`].
pub(crate) struct Resolved<'i>(Option<endpoint::View<'i>>);

/// The endpoint key when `call` provably gets no finding ([`check_call_keyed`] gives none and
/// this key), told without running the rules (`quiet.rs`); else what it resolved, for
/// [`check_call_after`].
pub(crate) fn quiet_call<'i>(
    call: &RestCall,
    index: &'i FilterIndex,
) -> Result<&'i str, Resolved<'i>> {
    quiet::quiet(call, index).map_err(Resolved)
}

/// [`check_call_keyed`] of a call [`quiet_call`] could not tell quiet (`resolved`: what it
/// gave): every rule, the target not resolved again.
pub(crate) fn check_call_after<'a>(
    call: &'a RestCall,
    index: &'a FilterIndex,
    resolved: Resolved<'a>,
) -> (Vec<Finding>, Option<&'a str>) {
    rules(call, index, None, resolved.0)
}

/// [`check_call`] with the other versions given explicitly (tests; callers that manage their
/// own indexes). `others` may be empty: `version-only` is then never reported.
pub fn check_call_with(
    call: &RestCall,
    index: &FilterIndex,
    others: &[&FilterIndex],
) -> Vec<Finding> {
    run(call, index, Some(others)).0
}

fn run<'a>(
    call: &'a RestCall,
    index: &'a FilterIndex,
    others: Option<&'a [&'a FilterIndex]>,
) -> (Vec<Finding>, Option<&'a str>) {
    // No quiet path here (`quiet.rs`, which the Python API asks first): on the 10,000-call
    // file (576 quiet calls) its probes and words cost 4.6 M instructions more than it saved.
    rules(call, index, others, None)
}

/// Every rule. `resolved`: the call's endpoint when the quiet path ([`quiet_call`]) resolved
/// it (an MCP object type written as the index holds it, which `target::resolve` resolves to
/// the same endpoint with no finding).
fn rules<'a>(
    call: &'a RestCall,
    index: &'a FilterIndex,
    others: Option<&'a [&'a FilterIndex]>,
    resolved: Option<endpoint::View<'a>>,
) -> (Vec<Finding>, Option<&'a str>) {
    #[cfg(test)]
    CHECKED.with(|n| n.set(n.get() + 1));
    if call.form == CallForm::InventoryBoth {
        return (inventory::check_both(call, index, others), None);
    }
    let ctx = Ctx {
        call,
        index,
        others,
    };
    // Room for a finding per filter (most calls with a finding have about that many): the
    // first push of an empty vector grew it to four (~240 instructions, 896 bytes).
    let mut out = Vec::with_capacity(call.filters.len().min(4));
    let view = match resolved {
        Some(view) => Some(view),
        None => target::resolve(&ctx, &mut out),
    };
    // A plugin path without a query string (`/api/plugins/bgp/session/`) has no filters to
    // leave unchecked: no note.
    let bare_url = call.form == CallForm::Url && call.filters.is_empty();
    if view.is_none() {
        instance::plugin_target(&ctx, bare_url, &mut out);
    }
    let detail = detail::of(&ctx);
    for entry in &call.filters {
        let n = out.len();
        check_entry(&ctx, view.as_ref(), detail.as_ref(), entry, &mut out);
        for f in &mut out[n..] {
            entry_facts(f, entry);
        }
    }
    if let Some(view) = view.as_ref().filter(|_| detail.is_none()) {
        single_value::check_repeated(&ctx, view, &mut out);
        notes::check(&ctx, view, &mut out);
        announced::endpoint(&ctx, view, &mut out);
    }
    view_values::check_args(&ctx, view.as_ref(), &mut out);
    filler::check(&ctx, &mut out);
    if call.form == CallForm::Inventory {
        inventory::reword(call, index, &mut out);
    }
    call_facts(call, index, view.as_ref(), &mut out);
    (out, view.map(|v| v.key))
}

/// Checks one filter entry of the call, pushing its findings to `out`.
fn check_entry(
    ctx: &Ctx,
    view: Option<&endpoint::View<'_>>,
    detail: Option<&detail::Detail<'_>>,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) {
    let call = ctx.call;
    if let Some(d) = detail {
        if detail::check(ctx, view, d, entry, out) {
            return;
        }
    }
    if instance::check_custom_field(ctx, view, entry, out) {
        return;
    }
    if entry.key.is_empty() || entry.key.starts_with("cf_") {
        return;
    }
    if let Some(p) = view_params::get(&entry.key) {
        match view_params::check(ctx, view, p, entry, out) {
            view_params::Reading::Read => {
                view_values::check(ctx, view, p, entry, out);
                return;
            }
            view_params::Reading::Ignored => return,
            view_params::Reading::Filter => {}
        }
    }
    if call.form == CallForm::Snippet {
        names::snippet(ctx, entry, out);
        return;
    }
    let dropped = dropped_value::dropped(ctx, view, entry, out);
    let Some(view) = view else {
        return;
    };
    match view.param_relation(&entry.key) {
        Some(known) => {
            if !dropped {
                values::check(ctx, view, entry, known.param, Some(known), out);
            }
            announced::filter(view, entry, out);
        }
        None => {
            names::check(ctx, view, entry, out);
            instance::custom_field_hint(ctx, view, entry, out);
        }
    }
}

/// Records filter `entry` (its key, and its value when a scalar literal) as the facts of
/// finding `f` ([`crate::finding::Facts`]), unless a check recorded others.
fn entry_facts(f: &mut Finding, entry: &FilterEntry) {
    if f.facts.filter.is_none() {
        f.facts.filter = Some(CompactString::from(entry.key.as_str()));
    }
    if f.facts.value.is_none() {
        f.facts.value = scalar(&entry.value);
    }
}

/// A scalar literal as NetBox gets it in a query string; `None` for lists and non-literals.
fn scalar(v: &Value) -> Option<CompactString> {
    match v {
        Value::Str(s) => Some(CompactString::from(s.as_str())),
        // `i.to_string()`'s digits without the formatting machinery (inline: no allocation).
        Value::Int(i) => Some(CompactString::from(itoa::Buffer::new().format(*i))),
        Value::Float(x) => Some(CompactString::from(x.to_string())),
        Value::Bool(b) => Some(CompactString::const_new(if *b { "true" } else { "false" })),
        Value::Null => Some(CompactString::const_new("null")),
        _ => None,
    }
}

/// The facts every finding of `call` shares: the endpoint (the key of `view`, the index key it
/// was checked against, else the target as written, below `/api/` and without slashes), the
/// release of `index`, and for a finding made after the per-filter checks (a repeated key, an
/// endpoint note) the filter whose pair it is on.
fn call_facts(
    call: &RestCall,
    index: &FilterIndex,
    view: Option<&endpoint::View>,
    out: &mut [Finding],
) {
    use std::sync::Arc;
    // A valid call: nothing to record, so no endpoint or release text is made for it.
    if out.is_empty() {
        return;
    }
    let version = index.netbox_version.as_str();
    // Shared by every call to the endpoint (kept with its parameters); else one allocation
    // each for the call, shared by its findings.
    let (endpoint, release): (Option<Arc<str>>, Option<Arc<str>>) = match view {
        Some(v) => {
            let (key, release) = v.ep.params.shared_texts(v.key, version);
            (Some(key), Some(release))
        }
        None => (
            call.endpoint_target().map(|t| {
                let t = t.split(['?', '#']).next().unwrap_or(t);
                let t = t.find("/api/").map_or(t, |i| &t[i + "/api/".len()..]);
                Arc::from(t.trim_matches('/'))
            }),
            None,
        ),
    };
    let release = match release {
        _ if version.is_empty() => None,
        Some(r) => Some(r),
        None => Some(Arc::from(version)),
    };
    for f in out.iter_mut() {
        if f.facts.filter.is_none() {
            let on = |r: &Range<usize>| r.start < f.range.end && f.range.start < r.end;
            if let Some(e) = call
                .filters
                .iter()
                .find(|e| on(&e.key_range) || on(&e.value_range))
            {
                entry_facts(f, e);
            }
        }
        if f.facts.endpoint.is_none() {
            f.facts.endpoint.clone_from(&endpoint);
        }
        if f.facts.release.is_none() {
            f.facts.release.clone_from(&release);
        }
    }
}

/// Builds a finding with the code's default severity.
pub(crate) fn finding(range: Range<usize>, code: &'static str, message: String) -> Finding {
    Finding::new(range, code, default_severity(code), message)
}

/// [`crate::catalogue::default_severity`] of `code`, remembered per thread by the address and
/// length of its text: the catalogue's rows were scanned for every finding (~180
/// instructions). A code's text is static, so its address names it; a slot taken by another
/// code is looked up again and replaced.
fn default_severity(code: &'static str) -> Severity {
    use std::cell::Cell;
    type Slot = Cell<(usize, usize, Severity)>;
    thread_local! {
        static SEEN: [Slot; 16] = const { [const { Cell::new((0, 0, Severity::Error)) }; 16] };
    }
    let at = code.as_ptr() as usize;
    let slot = ((at >> 3) ^ (at >> 9)) & 15;
    SEEN.with(|seen| {
        let (a, n, severity) = seen[slot].get();
        if a == at && n == code.len() {
            return severity;
        }
        let severity = crate::catalogue::default_severity(code);
        seen[slot].set((at, code.len(), severity));
        severity
    })
}

/// Builds a finding with an explicit severity.
pub(crate) fn finding_sev(
    range: Range<usize>,
    code: &'static str,
    severity: Severity,
    message: String,
) -> Finding {
    Finding::new(range, code, severity, message)
}

#[cfg(test)]
mod tests;
