//! Checks one filters dict given as data (not as text in a host document): what an agent or an
//! MCP server holds at call time, just before the call leaves for NetBox. The Python API
//! (`python/`) calls it for `Checker.check_call`.
//!
//! The dict is written out once as canonical JSON (`"<target>" {"key": value, ...}`), so the
//! findings and their fixes are exactly those the REST checks give for the same call in a JSON
//! tool call (same rules, same messages, same fix texts), and ranges are byte offsets into that
//! text ([`FiltersCheck::text`]). [`FiltersCheck::corrected`] applies the certain fixes back onto
//! the keys and values. No tree-sitter parse: a valid dict costs a few hundred nanoseconds.

use crate::extract::{CallForm, FilterEntry, RestCall, Syntax, Value};
use crate::finding::Finding;
use crate::knowledge::Knowledge;
use std::ops::Range;
use std::sync::Arc;

/// The result of [`check_filters`]: the findings and the canonical text their ranges point into.
#[derive(Debug, Clone)]
pub struct FiltersCheck {
    /// Findings in filter order, then call-level ones (as [`crate::rest::check_call`] gives them,
    /// with approximate-release softening applied). Ranges are byte offsets into [`Self::text`].
    pub findings: Vec<Finding>,
    /// The canonical JSON text: the target as a JSON string, a space, the filters as a JSON object.
    pub text: String,
    /// The target as given.
    pub target: String,
    /// Byte range of the target inside its quotes.
    pub target_range: Range<usize>,
    /// Per filter (in the order given): byte range of the key inside its quotes, and of the value.
    pub entries: Vec<(Range<usize>, Range<usize>)>,
    /// Per filter, the value as given (list elements' ranges set to the canonical text's).
    pub values: Vec<Value>,
    /// The endpoint key (`ipam/ip-addresses`) the filters were checked against: the target's,
    /// or the one the target's certain fix names. `None` when none was found (then a finding
    /// says the filters are not checked) or without an index.
    pub endpoint: Option<String>,
}

/// A value of the corrected filters.
#[derive(Debug, Clone, PartialEq)]
pub enum NewValue {
    /// The value as given (the caller keeps its own object).
    Same,
    /// A value a certain fix wrote, as JSON.
    Json(serde_json::Value),
}

/// The filters with every certain fix applied ([`FiltersCheck::corrected`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Corrected {
    /// The new target when a fix changed it (`dcim.devices` → `dcim.device`).
    pub target: Option<String>,
    /// Per filter, in the order given: index of the filter given, its (new) key, its value.
    pub filters: Vec<(usize, String, NewValue)>,
}

/// Checks the filters `filters` sent to `target` against `knowledge`'s filter index.
///
/// `target` is an object type (`dcim.device`, checked as the MCP tools' `object_type`) or an
/// endpoint path (`dcim/devices`, `/api/dcim/devices/`, checked as a REST URL). Each filter is a
/// key and its value; the ranges inside [`Value::List`] elements are ignored (they are set to the
/// canonical text's). A `Value::Null` is what the MCP client or requests drops (`dropped-value`),
/// a `Value::Expr` is never judged. Without an index no findings (fail open). Never panics.
pub fn check_filters(
    knowledge: &Knowledge,
    target: &str,
    filters: Vec<(String, Value)>,
) -> FiltersCheck {
    let mut text = String::with_capacity(32 + filters.len() * 24);
    let mut call = new_call(target.to_string());
    call.filters = filters
        .into_iter()
        .map(|(key, value)| FilterEntry {
            key: key.into(),
            key_range: 0..0,
            value,
            value_range: 0..0,
        })
        .collect();
    write_call(&mut text, &mut call);
    let (findings, endpoint) = findings_of(knowledge, &call);
    check_of(&call, text, findings, endpoint)
}

/// A filters dict written in place, for checking dict after dict ([`check_filters_buf`], the
/// Python API's `Checker.check_call`): the buffers of one dict's keys, strings and lists are
/// reused for the next one's, so a dict that checks clean allocates nothing here but its text.
///
/// Use: [`FilterBuf::start`] with the target, then [`FilterBuf::push`] per filter, setting the
/// value it returns, then [`check_filters_buf`].
#[derive(Debug)]
pub struct FilterBuf {
    /// The call being written: `filters[..len]` are this dict's, the rest an earlier dict's.
    call: RestCall,
    /// Filters of this dict so far.
    len: usize,
    /// Entries of an earlier, longer dict, kept for their buffers (the next one to reuse last).
    spare: Vec<FilterEntry>,
    /// The canonical text (see [`FiltersCheck::text`]).
    text: String,
    /// True when `text` is this dict's, written by [`check_filters_buf`] (a dict with findings
    /// has it read next, by [`FilterBuf::checked`]: written once, not twice).
    written: bool,
    /// The endpoint key of the last dict checked, shared by the results that name it
    /// ([`BufChecked`]): a dict sent to the endpoint before copies no key.
    endpoint: Option<Arc<str>>,
}

impl Default for FilterBuf {
    fn default() -> Self {
        FilterBuf {
            call: new_call(String::new()),
            len: 0,
            spare: Vec::new(),
            text: String::new(),
            written: false,
            endpoint: None,
        }
    }
}

impl FilterBuf {
    /// Starts a dict sent to `target` (an object type or endpoint path, as [`check_filters`]
    /// takes it); the filters pushed before are forgotten.
    #[inline]
    pub fn start(&mut self, target: &str) {
        self.len = 0;
        self.written = false;
        self.call.form = form_of(target);
        match &mut self.call.target {
            Some((t, _)) => set_compact(t, target),
            None => self.call.target = Some((target.into(), 0..0)),
        }
    }

    /// Adds the filter `key` and returns its value to set. The value returned holds an earlier
    /// dict's value (its buffers are there to be reused by [`set_str`] and [`set_list`]): the
    /// caller always sets it.
    #[inline]
    pub fn push(&mut self, key: &str) -> &mut Value {
        let i = self.len;
        self.len += 1;
        self.written = false;
        if i == self.call.filters.len() {
            let entry = self.spare.pop().unwrap_or_else(|| FilterEntry {
                key: compact_str::CompactString::default(),
                key_range: 0..0,
                value: Value::Expr,
                value_range: 0..0,
            });
            self.call.filters.push(entry);
        }
        let entry = &mut self.call.filters[i];
        set_compact(&mut entry.key, key);
        &mut entry.value
    }
}

/// Sets `buf` to `s`: made anew when `s` fits inline (24 bytes on 64-bit targets), else written
/// in `buf`'s own heap buffer. A `CompactString`'s `clear` then `push_str` checks its
/// representation at each step: ~110 instructions a short key, ~25 made anew.
#[inline]
fn set_compact(buf: &mut compact_str::CompactString, s: &str) {
    if s.len() <= std::mem::size_of::<String>() {
        *buf = compact_str::CompactString::new(s);
    } else {
        buf.clear();
        buf.push_str(s);
    }
}

/// Sets `slot` to the string `s`, in the slot's own string buffer when it holds one.
#[inline]
pub fn set_str(slot: &mut Value, s: &str) {
    match slot {
        Value::Str(buf) => set_compact(buf, s),
        _ => *slot = Value::Str(s.into()),
    }
}

/// Makes `slot` a list and returns its elements: the slot's earlier elements when it held a
/// list (for their buffers: the caller sets each one it keeps, pushes more, and truncates the
/// rest), else none. The elements' ranges are set when the dict is checked.
#[inline]
pub fn set_list(slot: &mut Value) -> &mut Vec<(Value, Range<usize>)> {
    if !matches!(slot, Value::List(_)) {
        *slot = Value::List(Vec::new());
    }
    match slot {
        Value::List(items) => items,
        _ => unreachable!("made a list above"),
    }
}

/// What [`check_filters_buf`] gives. The endpoint key ([`FiltersCheck::endpoint`]) is shared
/// with the buffer: dicts sent to one endpoint one after the other share one copy of it.
#[derive(Debug)]
pub enum BufChecked {
    /// No finding: the endpoint. The correction is the dict as given; its canonical text
    /// ([`FiltersCheck::text`]) is written by [`FilterBuf::text`] when asked (a provably quiet
    /// dict has none written yet).
    Clean { endpoint: Option<Arc<str>> },
    /// Findings (as [`check_filters`] gives them; ranges into the canonical text, which is
    /// written in the buffer) and the endpoint: [`FilterBuf::checked`] makes the whole result of
    /// the same dict without writing the text again.
    Found {
        findings: Vec<Finding>,
        endpoint: Option<Arc<str>>,
    },
}

/// [`check_filters`] of the dict written in `buf`: the same findings and endpoint. The buffers
/// stay in `buf` for the next dict. A provably quiet dict has no text written; another one has
/// its text written in `buf` (the rules read its ranges). Nothing is copied:
/// [`FilterBuf::text`] and [`FilterBuf::checked`] make the text and the whole result of the same
/// dict when asked.
pub fn check_filters_buf(knowledge: &Knowledge, buf: &mut FilterBuf) -> BufChecked {
    buf.finish();
    // A provably quiet dict (`rest::quiet_call`): no finding, so no range is read and no text
    // is written.
    let resolved = match &knowledge.index {
        Some(index) => match crate::rest::quiet_call(&buf.call, index) {
            Ok(key) => {
                return BufChecked::Clean {
                    endpoint: Some(shared_endpoint(&mut buf.endpoint, key)),
                }
            }
            Err(resolved) => Some(resolved),
        },
        None => None,
    };
    // The text itself, not only its ranges: a dict that gets this far mostly has findings, and
    // its result ([`FilterBuf::checked`]) holds the text.
    write_call(&mut buf.text, &mut buf.call);
    buf.written = true;
    let (findings, endpoint) = match (&knowledge.index, resolved) {
        (Some(index), Some(resolved)) => {
            let (mut found, key) = crate::rest::check_call_after(&buf.call, index, resolved);
            unchecked_target(&mut found, &buf.call, index, key);
            let endpoint = key.map(|key| shared_endpoint(&mut buf.endpoint, key));
            (crate::approx::soften(knowledge, found), endpoint)
        }
        _ => (Vec::new(), None),
    };
    if findings.is_empty() {
        return BufChecked::Clean { endpoint };
    }
    BufChecked::Found { findings, endpoint }
}

/// The endpoint key `key` shared: `kept` ([`FilterBuf`]'s `endpoint`) when it is the last
/// dict's endpoint, else a new copy kept there.
fn shared_endpoint(kept: &mut Option<Arc<str>>, key: &str) -> Arc<str> {
    match kept {
        Some(shared) if **shared == *key => shared.clone(),
        _ => kept.insert(Arc::from(key)).clone(),
    }
}

impl FilterBuf {
    /// Forgets the filters of an earlier, longer dict (kept in `spare` for their buffers).
    fn finish(&mut self) {
        if self.len < self.call.filters.len() {
            let extra = self.call.filters.drain(self.len..);
            self.spare.extend(extra.rev());
        }
    }

    /// The canonical text ([`FiltersCheck::text`]) of the dict written in the buffer, as
    /// [`check_filters`] writes it for the same target and filters.
    pub fn text(&mut self) -> String {
        self.write();
        self.text.clone()
    }

    /// Writes the canonical text of the dict in the buffer, unless [`check_filters_buf`] did.
    fn write(&mut self) {
        self.finish();
        if !self.written {
            write_call(&mut self.text, &mut self.call);
            self.written = true;
        }
    }

    /// The result [`check_filters`] gives for the dict written in the buffer, but with
    /// `findings` left empty: the text written, the target, ranges and values copied, and
    /// `endpoint` ([`check_filters_buf`]'s for this dict). The caller keeps the findings
    /// [`check_filters_buf`] gave and passes them to [`FiltersCheck::corrected_of`] and
    /// [`FiltersCheck::corrected_checked_of`] (no copy of them).
    pub fn checked(&mut self, endpoint: Option<&str>) -> FiltersCheck {
        self.write();
        check_of(
            &self.call,
            self.text.clone(),
            Vec::new(),
            endpoint.map(str::to_string),
        )
    }
}

/// How a target is checked: a path as a REST URL, else as the MCP tools' object type.
fn form_of(target: &str) -> CallForm {
    if target.as_bytes().contains(&b'/') {
        CallForm::Url
    } else {
        CallForm::GetObjects
    }
}

/// A JSON call to `target` without filters; ranges are set by [`write_call`].
fn new_call(target: String) -> RestCall {
    RestCall {
        form: form_of(&target),
        syntax: Syntax::Json,
        target: Some((target.into(), 0..0)),
        call_range: 0..0,
        filters_range: None,
        filters: Vec::new(),
        args: Vec::new(),
        declared: false,
    }
}

/// Writes `call` as the canonical text into `text` (cleared first) and sets every range of
/// `call` (target, keys, values, list elements, the call, the filters) to the text's.
fn write_call(text: &mut String, call: &mut RestCall) {
    text.clear();
    let mut filters_start = 2;
    if let Some((target, range)) = &mut call.target {
        *range = push_string(text, target);
        filters_start = range.end + 2;
    }
    text.push_str(" {");
    for (i, entry) in call.filters.iter_mut().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        entry.key_range = push_string(text, &entry.key);
        text.push_str(": ");
        let start = text.len();
        write_value(text, &mut entry.value);
        entry.value_range = start..text.len();
    }
    text.push('}');
    call.call_range = 0..text.len();
    call.filters_range = Some(filters_start..text.len());
}

/// The findings of `call` (approximate-release softening applied) and the endpoint checked.
fn findings_of(knowledge: &Knowledge, call: &RestCall) -> (Vec<Finding>, Option<String>) {
    match &knowledge.index {
        Some(index) => {
            let (mut found, endpoint) = crate::rest::check_call_resolved(call, index);
            unchecked_target(&mut found, call, index, endpoint.as_deref());
            (crate::approx::soften(knowledge, found), endpoint)
        }
        None => (Vec::new(), None),
    }
}

/// The result of checking `call`, whose canonical text is `text` (the target and values copied).
fn check_of(
    call: &RestCall,
    text: String,
    findings: Vec<Finding>,
    endpoint: Option<String>,
) -> FiltersCheck {
    let (target, target_range) = call.target.clone().unwrap_or_default();
    FiltersCheck {
        findings,
        text,
        target: target.to_string(),
        target_range,
        entries: call
            .filters
            .iter()
            .map(|e| (e.key_range.clone(), e.value_range.clone()))
            .collect(),
        values: call.filters.iter().map(|e| e.value.clone()).collect(),
        endpoint,
    }
}

/// The rule for a call about to be sent (`check_filters`, and
/// [`crate::analysis::analyze_outgoing`] for a tool call): a target that resolves to no endpoint
/// (`endpoint`: what [`crate::rest::check_call_resolved`] gave) with filters, and that no error or
/// warning is about yet (a placeholder, an empty or odd string, a plugin path stock knowledge
/// does not hold), gets an `unknown-object-type` / `unknown-endpoint` warning at its range. A file
/// fails open there, but a call about to be sent must not pass with filters nobody checked.
pub(crate) fn unchecked_target(
    found: &mut Vec<Finding>,
    call: &RestCall,
    index: &crate::index::FilterIndex,
    endpoint: Option<&str>,
) {
    let Some((target, target_range)) = &call.target else {
        return;
    };
    // The inventory form checks two endpoints and names none; a snippet has no target.
    let two_or_none = matches!(call.form, CallForm::InventoryBoth | CallForm::Snippet);
    if two_or_none || endpoint.is_some() || index.endpoints.is_empty() || call.filters.is_empty() {
        return;
    }
    let flagged = found.iter().any(|f| f.range == *target_range && blocks(f));
    if flagged {
        return;
    }
    let (code, what) = if call.form == CallForm::Url {
        ("unknown-endpoint", "endpoint")
    } else {
        ("unknown-object-type", "object type")
    };
    found.push(Finding::new(
        target_range.clone(),
        code,
        crate::finding::Severity::Warning,
        format!(
            "`{target}` is no {what} of NetBox {} known here: the filters are not checked, and NetBox may ignore them and return every object.",
            index.netbox_version
        ),
    ));
}

/// True when `s` needs no escape in a JSON string (no control character, quote or
/// backslash): eight bytes at a time, the last word overlapping the one before, and a short
/// string as one word.
#[inline]
fn plain(s: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    // Some byte of the word below 0x20, or a quote or backslash (each test exact as a yes/no).
    let special = |x: u64| {
        let q = x ^ (ONES * b'"' as u64);
        let b = x ^ (ONES * b'\\' as u64);
        (x.wrapping_sub(ONES * 0x20) & !x | q.wrapping_sub(ONES) & !q | b.wrapping_sub(ONES) & !b)
            & HIGH
            != 0
    };
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
    let half = |w: &[u8]| u64::from(u32::from_le_bytes(w.try_into().unwrap_or([0; 4])));
    let n = s.len();
    if n >= 8 {
        let mut chunks = s.chunks_exact(8);
        if chunks.any(|c| special(word(c))) {
            return false;
        }
        return n.is_multiple_of(8) || !special(word(&s[n - 8..]));
    }
    if n >= 4 {
        return !special(half(&s[..4]) | half(&s[n - 4..]) << 32);
    }
    s.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// Appends `s` as a JSON string; returns the byte range inside the quotes.
#[inline]
fn push_string(text: &mut String, s: &str) -> Range<usize> {
    if plain(s.as_bytes()) {
        text.push('"');
        let start = text.len();
        text.push_str(s);
        let end = text.len();
        text.push('"');
        start..end
    } else {
        let start = text.len() + 1;
        text.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
        start..text.len() - 1
    }
}

/// Appends `v` as JSON and sets its list elements' ranges; a value JSON cannot hold as given (a
/// non-finite float) or that is no literal becomes [`Value::Expr`].
fn write_value(text: &mut String, v: &mut Value) {
    match v {
        Value::Str(s) => {
            push_string(text, s);
        }
        Value::Int(i) => text.push_str(itoa::Buffer::new().format(*i)),
        Value::Float(f) if f.is_finite() => {
            text.push_str(&serde_json::to_string(f).unwrap_or_else(|_| "0".into()));
        }
        Value::Bool(b) => text.push_str(if *b { "true" } else { "false" }),
        Value::Null => text.push_str("null"),
        Value::List(items) => {
            text.push('[');
            for (i, (item, range)) in items.iter_mut().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                let start = text.len();
                write_value(text, item);
                *range = start..text.len();
            }
            text.push(']');
        }
        Value::Map => text.push_str("{}"),
        // Not a literal (and a non-finite float, which JSON cannot hold): never judged; the
        // text only holds a place.
        Value::Float(_) | Value::Joined(_) => {
            text.push_str("null");
            *v = Value::Expr;
        }
        Value::Expr => text.push_str("null"),
    }
}

impl FiltersCheck {
    /// The index of the filter a finding is about (its range lies in the filter's key or
    /// value); `None` for findings about the target or the call.
    pub fn filter_of(&self, f: &Finding) -> Option<usize> {
        self.entries
            .iter()
            .position(|(k, v)| f.range.start >= k.start && f.range.end <= v.end)
    }

    /// The filters with every certain fix applied, when that is all it takes: `None` when an
    /// error or warning has no certain fix, or a fix cannot be read back as a key or value (two
    /// filters renamed to one key included). With no findings, every filter as given.
    pub fn corrected(&self) -> Option<Corrected> {
        self.corrected_of(&self.findings)
    }

    /// [`Self::corrected`] with `findings` as the findings (a result made by
    /// [`FilterBuf::checked`], which holds none).
    pub fn corrected_of(&self, findings: &[Finding]) -> Option<Corrected> {
        let edits = crate::fix::all_certain_edits(findings)?;
        let apply = |span: &Range<usize>| -> Option<String> {
            let mut out = self.text.get(span.clone())?.to_string();
            for e in edits.iter().rev() {
                if e.range.start >= span.start && e.range.end <= span.end {
                    out.replace_range(
                        e.range.start - span.start..e.range.end - span.start,
                        &e.new_text,
                    );
                }
            }
            Some(out)
        };
        let inside = |e: &crate::finding::Edit, r: &Range<usize>| {
            e.range.start >= r.start && e.range.end <= r.end
        };
        // Every edit must land in the target, a key or a value.
        let placed = edits.iter().all(|e| {
            inside(e, &self.target_range)
                || self
                    .entries
                    .iter()
                    .any(|(k, v)| inside(e, k) || inside(e, v))
        });
        if !placed {
            return None;
        }
        let touched = |r: &Range<usize>| edits.iter().any(|e| inside(e, r));
        let target = if touched(&self.target_range) {
            Some(unquote(&apply(&self.target_range)?))
        } else {
            None
        };
        let mut filters = Vec::with_capacity(self.entries.len());
        for (i, (k, v)) in self.entries.iter().enumerate() {
            let key = unquote(&apply(k)?);
            let value = if touched(v) {
                NewValue::Json(serde_json::from_str(&apply(v)?).ok()?)
            } else {
                NewValue::Same
            };
            if filters.iter().any(|(_, other, _)| *other == key) {
                return None;
            }
            filters.push((i, key, value));
        }
        Some(Corrected { target, filters })
    }
}

/// Rounds of fixes [`FiltersCheck::corrected_checked`] applies before it gives up: a rename can
/// show a value rule the old name hid (`rol__in` → `role` → the role's slug), whose own certain
/// fix is the next round.
const MAX_ROUNDS: usize = 4;

impl FiltersCheck {
    /// [`Self::corrected`], re-checked: the certain fixes are applied and the result checked
    /// again against the (fixed) target, round after round, until it has no error or warning;
    /// `None` when a round leaves one without a certain fix. So what it returns is a call that
    /// checks clean: never one whose renamed filter or fixed target has a value the first check
    /// could not see. With no error or warning, the filters as given.
    pub fn corrected_checked(&self, knowledge: &Knowledge) -> Option<Corrected> {
        self.corrected_checked_of(&self.findings, knowledge)
    }

    /// [`Self::corrected_checked`] with `findings` as the findings (a result made by
    /// [`FilterBuf::checked`], which holds none).
    pub fn corrected_checked_of(
        &self,
        findings: &[Finding],
        knowledge: &Knowledge,
    ) -> Option<Corrected> {
        let mut fixed = self.corrected_of(findings)?;
        if !findings.iter().any(blocks) {
            return Some(fixed);
        }
        for _ in 0..MAX_ROUNDS {
            let filters: Vec<(String, Value)> = fixed
                .filters
                .iter()
                .map(|(i, key, value)| {
                    let v = match value {
                        NewValue::Same => self.values[*i].clone(),
                        NewValue::Json(j) => value_of_json(j, 0),
                    };
                    (key.clone(), v)
                })
                .collect();
            let target = fixed.target.as_deref().unwrap_or(&self.target);
            let check = check_filters(knowledge, target, filters);
            if !check.findings.iter().any(blocks) {
                return Some(fixed);
            }
            let next = check.corrected()?;
            // Compose: `next` indexes this round's filters, which index the given ones.
            fixed = Corrected {
                target: next.target.or(fixed.target),
                filters: next
                    .filters
                    .into_iter()
                    .map(|(j, key, value)| {
                        let (i, _, before) = &fixed.filters[j];
                        let value = match value {
                            NewValue::Same => before.clone(),
                            json => json,
                        };
                        (*i, key, value)
                    })
                    .collect(),
            };
        }
        None
    }
}

/// An error or a warning: what a corrected call must not have.
fn blocks(f: &Finding) -> bool {
    matches!(
        f.severity,
        crate::finding::Severity::Error | crate::finding::Severity::Warning
    )
}

/// A value a fix wrote (JSON) as the checks read a literal.
pub(crate) fn value_of_json(v: &serde_json::Value, depth: usize) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(f)) => Value::Float(f),
            _ => Value::Expr,
        },
        J::String(s) => Value::Str(s.as_str().into()),
        J::Array(items) if depth < 64 => Value::List(
            items
                .iter()
                .map(|i| (value_of_json(i, depth + 1), 0..0))
                .collect(),
        ),
        J::Array(_) => Value::Expr,
        J::Object(_) => Value::Map,
    }
}

/// The string a key or target text inside its quotes stands for (JSON escapes read).
fn unquote(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    serde_json::from_str(&format!("\"{s}\"")).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knowledge() -> Knowledge {
        Knowledge {
            index: Some(crate::index::embedded::embedded_index("4.6.8")),
            ..Knowledge::default()
        }
    }

    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }

    fn check(target: &str, filters: &[(&str, Value)]) -> FiltersCheck {
        let filters = filters
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        check_filters(&knowledge(), target, filters)
    }

    fn codes(c: &FiltersCheck) -> Vec<&'static str> {
        c.findings.iter().map(|f| f.code).collect()
    }

    #[test]
    fn valid_filters_give_nothing_and_correct_to_themselves() {
        let c = check(
            "dcim.device",
            &[("role_id", Value::Int(3)), ("status", s("active"))],
        );
        assert_eq!(codes(&c), Vec::<&str>::new());
        assert_eq!(
            c.text,
            r#""dcim.device" {"role_id": 3, "status": "active"}"#
        );
        let fixed = c.corrected().unwrap();
        assert_eq!(fixed.target, None);
        assert_eq!(
            fixed.filters,
            vec![
                (0, "role_id".to_string(), NewValue::Same),
                (1, "status".to_string(), NewValue::Same)
            ]
        );
    }

    #[test]
    fn renamed_filter_and_choice_are_fixed() {
        let c = check(
            "dcim.device",
            &[("device_role_id", Value::Int(3)), ("status", s("Active"))],
        );
        assert_eq!(codes(&c), vec!["unknown-filter", "invalid-choice"]);
        assert_eq!(c.filter_of(&c.findings[0]), Some(0));
        assert_eq!(c.filter_of(&c.findings[1]), Some(1));
        let fixed = c.corrected().unwrap();
        assert_eq!(
            fixed.filters,
            vec![
                (0, "role_id".to_string(), NewValue::Same),
                (1, "status".to_string(), NewValue::Json("active".into()))
            ]
        );
    }

    #[test]
    fn none_is_a_dropped_value_fixed_by_the_null_selector() {
        let c = check("dcim.device", &[("tenant_id", Value::Null)]);
        assert_eq!(codes(&c), vec!["dropped-value"]);
        let fixed = c.corrected().unwrap();
        assert_eq!(
            fixed.filters,
            vec![(0, "tenant_id".to_string(), NewValue::Json("null".into()))]
        );
    }

    #[test]
    fn in_lookup_on_a_list_is_renamed() {
        let c = check(
            "dcim.interface",
            &[(
                "device_id__in",
                Value::List(vec![(Value::Int(1), 0..0), (Value::Int(2), 0..0)]),
            )],
        );
        assert_eq!(codes(&c), vec!["unsupported-lookup"]);
        let fixed = c.corrected().unwrap();
        assert_eq!(fixed.filters[0].1, "device_id");
        assert_eq!(fixed.filters[0].2, NewValue::Same);
    }

    #[test]
    fn an_unknown_name_without_a_certain_fix_gives_no_correction() {
        let c = check("dcim.device", &[("xyzzy_plugh", Value::Int(1))]);
        assert_eq!(codes(&c), vec!["unknown-filter"]);
        assert_eq!(c.corrected(), None);
    }

    #[test]
    fn an_endpoint_path_is_checked_as_a_url() {
        let c = check("/api/ipam/ip-addresses/", &[("within", s("10.0.0.0/8"))]);
        assert_eq!(codes(&c), vec!["wrong-filter-for-type"]);
        assert_eq!(c.corrected().unwrap().filters[0].1, "parent");
    }

    #[test]
    fn object_type_spelling_is_fixed_in_the_target() {
        let c = check("dcim.devices", &[("role_id", Value::Int(3))]);
        assert_eq!(codes(&c), vec!["unknown-object-type"]);
        assert_eq!(
            c.corrected().unwrap().target.as_deref(),
            Some("dcim.device")
        );
    }

    /// Issue 22: a misspelled object type's filters are checked against the type its certain
    /// fix names, so the corrected call carries both fixes (never `within` sent as corrected).
    #[test]
    fn a_fixed_object_type_has_its_filters_checked_against_the_fix() {
        let c = check("ipam.ip_address", &[("within", s("10.0.0.0/8"))]);
        assert_eq!(
            codes(&c),
            vec!["unknown-object-type", "wrong-filter-for-type"]
        );
        assert!(c.findings[0]
            .message
            .ends_with("The filters are checked as filters of /api/ipam/ip-addresses/."));
        assert_eq!(c.endpoint.as_deref(), Some("ipam/ip-addresses"));
        let fixed = c.corrected().unwrap();
        assert_eq!(fixed.target.as_deref(), Some("ipam.ipaddress"));
        assert_eq!(fixed.filters[0].1, "parent");
        let again = check("ipam.ipaddress", &[("parent", s("10.0.0.0/8"))]);
        assert_eq!(codes(&again), Vec::<&str>::new());
        // The same for a path with underscores.
        let c = check("/api/ipam/ip_addresses/", &[("within", s("10.0.0.0/8"))]);
        assert_eq!(codes(&c), vec!["unknown-endpoint", "wrong-filter-for-type"]);
    }

    /// A target that names nothing known gives no finding in a file (fail open), but a call
    /// about to be sent is never passed with unchecked filters.
    #[test]
    fn an_unresolved_target_is_never_passed_unchecked() {
        for target in [
            "",
            "<object type>",
            "netbox_bgp.session",
            "/api/plugins/bgp/session/",
        ] {
            let c = check(target, &[("within", s("10.0.0.0/8"))]);
            assert_eq!(c.endpoint, None, "{target}");
            assert!(
                c.findings.iter().any(|f| f.range == c.target_range
                    && f.severity == crate::finding::Severity::Warning
                    && f.message.contains("not checked")),
                "{target}: {:?}",
                c.findings
            );
            assert_eq!(c.corrected(), None, "{target}");
        }
    }

    /// The same rule for the same call sent as a JSON tool call (the Python API's
    /// `check_tool_call`): the unresolved object type is a warning there too, while a file that
    /// holds that call fails open.
    #[test]
    fn a_tool_call_with_an_unresolved_target_gets_the_same_warning() {
        for target in [
            "<object type>",
            "{{ object_type }}",
            "netbox_bgp.session",
            "",
        ] {
            let direct = check(target, &[("within", s("10.0.0.0/8"))]);
            let call = format!(
                r#"{{"name": "netbox_get_objects", "arguments": {{"object_type": {}, "filters": {{"within": "10.0.0.0/8"}}}}}}"#,
                serde_json::to_string(target).unwrap()
            );
            let sent = crate::analysis::analyze_outgoing(&call, &knowledge());
            let brief = |fs: &[Finding]| -> Vec<(&str, crate::finding::Severity, String)> {
                fs.iter()
                    .map(|f| (f.code, f.severity, f.message.clone()))
                    .collect()
            };
            assert_eq!(brief(&sent), brief(&direct.findings), "{target}");
            // A file fails open on a placeholder; a plugin type is a warning there too (the
            // MCP server rejects it unless plugin discovery adds it).
            let file =
                crate::analysis::analyze(&call, crate::extract::HostKind::Json, &knowledge());
            let placeholder = !target.contains('.');
            assert_eq!(file.iter().any(blocks), !placeholder, "{target}: {file:?}");
        }
        // No filters: nothing goes unchecked, no warning (as `check_filters`).
        let bare = r#"{"name": "netbox_get_objects", "arguments": {"object_type": "<object type>", "filters": {}}}"#;
        assert!(crate::analysis::analyze_outgoing(bare, &knowledge()).is_empty());
    }

    /// A tool call is checked once: the unchecked-target rule reads each call's endpoint from
    /// the analysis's report, it does not check the call again to find it.
    #[test]
    fn a_tool_call_is_checked_once() {
        let known = r#"{"name": "netbox_get_objects", "arguments": {"object_type": "dcim.device", "filters": {"device_role": "leaf"}}}"#;
        let unknown = r#"{"name": "netbox_get_objects", "arguments": {"object_type": "netbox_bgp.session", "filters": {"within": "10.0.0.0/8"}}}"#;
        // One thread: every check of the run is counted on it.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        pool.install(|| {
            let checked = || crate::rest::CHECKED.with(|n| n.get());
            for (call, code) in [(known, "unknown-filter"), (unknown, "unknown-object-type")] {
                let before = checked();
                let found = crate::analysis::analyze_outgoing(call, &knowledge());
                assert_eq!(checked() - before, 1, "{call}");
                assert!(found.iter().any(|f| f.code == code), "{call}: {found:?}");
            }
        });
    }

    /// Writes `filters` into `buf` as the Python API does: every value set in place.
    fn fill(buf: &mut FilterBuf, target: &str, filters: &[(&str, Value)]) {
        fn set(slot: &mut Value, v: &Value) {
            match v {
                Value::Str(s) => set_str(slot, s),
                Value::List(items) => {
                    let slots = set_list(slot);
                    for (i, (item, _)) in items.iter().enumerate() {
                        if i == slots.len() {
                            slots.push((Value::Expr, 0..0));
                        }
                        set(&mut slots[i].0, item);
                    }
                    slots.truncate(items.len());
                }
                other => *slot = other.clone(),
            }
        }
        buf.start(target);
        for (k, v) in filters {
            set(buf.push(k), v);
        }
    }

    /// The reused buffer gives what a fresh check gives, dict after dict, whatever shape the
    /// dict before had (longer, shorter, other value kinds, findings or none).
    #[test]
    fn a_reused_buffer_checks_as_a_fresh_call() {
        let list = |xs: &[Value]| Value::List(xs.iter().map(|x| (x.clone(), 0..0)).collect());
        let dicts: Vec<(&str, Vec<(&str, Value)>)> = vec![
            (
                "dcim.device",
                vec![
                    ("role_id", Value::Int(3)),
                    ("status", s("active")),
                    ("site_id", list(&[Value::Int(1), Value::Int(2)])),
                ],
            ),
            (
                "dcim.device",
                vec![
                    ("device_role_id", Value::Int(3)),
                    ("status", s("Active")),
                    ("site_id__in", list(&[Value::Int(1), Value::Int(2)])),
                ],
            ),
            (
                "dcim.device",
                vec![
                    ("role_id", Value::Int(3)),
                    ("status", s("active")),
                    ("site_id", list(&[Value::Int(1), Value::Int(2)])),
                ],
            ),
            ("/api/ipam/ip-addresses/", vec![("within", s("10.0.0.0/8"))]),
            (
                "dcim.device",
                vec![
                    (
                        "status",
                        list(&[s("active"), s("Planned"), Value::Float(f64::NAN)]),
                    ),
                    ("name", Value::Null),
                    ("site", s("x")),
                    ("tag", list(&[])),
                ],
            ),
            (
                "dcim.device",
                vec![("role_id", s("3")), ("status", Value::Int(1))],
            ),
            ("dcim.device", vec![]),
            ("<object type>", vec![("within", s("10.0.0.0/8"))]),
            (
                "dcim.device",
                vec![
                    ("name", s("a")),
                    ("name__ic", s("b")),
                    ("site_id", Value::Bool(true)),
                    ("x", Value::Map),
                    ("y", Value::Expr),
                ],
            ),
            (
                "dcim.device",
                vec![("role_id", Value::Int(3)), ("status", s("active"))],
            ),
        ];
        let k = knowledge();
        let mut buf = FilterBuf::default();
        // The endpoint of the dict before: one sent to the same endpoint shares its copy.
        let mut before: Option<Arc<str>> = None;
        for _ in 0..2 {
            for (target, filters) in &dicts {
                let fresh = check(target, filters);
                fill(&mut buf, target, filters);
                let checked = check_filters_buf(&k, &mut buf);
                let (BufChecked::Clean { endpoint } | BufChecked::Found { endpoint, .. }) =
                    &checked;
                if let (Some(a), Some(b)) = (endpoint, &before) {
                    assert_eq!(Arc::ptr_eq(a, b), a == b, "{target}");
                }
                before = endpoint.clone().or(before);
                match checked {
                    BufChecked::Clean { endpoint } => {
                        assert!(fresh.findings.is_empty(), "{target} {filters:?}");
                        assert_eq!(buf.text(), fresh.text);
                        assert_eq!(endpoint.as_deref(), fresh.endpoint.as_deref());
                    }
                    BufChecked::Found { findings, endpoint } => {
                        assert!(!findings.is_empty());
                        assert_eq!(findings, fresh.findings);
                        assert_eq!(endpoint.as_deref(), fresh.endpoint.as_deref());
                        let mut c = buf.checked(endpoint.as_deref());
                        assert!(c.findings.is_empty());
                        assert_eq!(c.corrected_of(&findings), fresh.corrected());
                        assert_eq!(
                            c.corrected_checked_of(&findings, &k),
                            fresh.corrected_checked(&k)
                        );
                        c.findings = findings;
                        assert_eq!(c.findings, fresh.findings);
                        assert_eq!(c.text, fresh.text);
                        assert_eq!(c.endpoint, fresh.endpoint);
                        assert_eq!(c.target, fresh.target);
                        assert_eq!(c.target_range, fresh.target_range);
                        assert_eq!(c.entries, fresh.entries);
                        assert_eq!(c.values, fresh.values);
                        assert_eq!(c.corrected(), fresh.corrected());
                        assert_eq!(c.corrected_checked(&k), fresh.corrected_checked(&k));
                        assert_eq!(buf.text(), fresh.text);
                    }
                }
            }
        }
    }

    /// The eight-bytes-at-a-time test agrees with the byte-wise one, wherever the odd byte is.
    #[test]
    fn plain_agrees_with_the_bytewise_test() {
        let bytewise = |s: &[u8]| s.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
        for len in 0..26 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut s = vec![b'a'; len];
                    s[at] = b;
                    assert_eq!(plain(&s), bytewise(&s), "{len} {at} {b}");
                }
            }
        }
        for s in [
            "",
            "dcim.device",
            "ümlaut ✓",
            "a\"b",
            "tab\there",
            "back\\slash012345",
        ] {
            assert_eq!(plain(s.as_bytes()), bytewise(s.as_bytes()), "{s:?}");
        }
    }

    #[test]
    fn odd_keys_and_values_are_quiet_and_never_panic() {
        let c = check(
            "dcim.device",
            &[
                ("na\"me", s("a\\b\n")),
                ("", Value::Expr),
                ("id", Value::Float(f64::NAN)),
            ],
        );
        assert!(
            serde_json::from_str::<serde_json::Value>(&c.text[c.target_range.end + 2..]).is_ok()
        );
        let _ = c.corrected();
        let empty = check_filters(
            &Knowledge::default(),
            "dcim.device",
            vec![("x".into(), Value::Int(1))],
        );
        assert!(empty.findings.is_empty());
    }
}
