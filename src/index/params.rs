//! [`Params`]: the query parameters of one endpoint, a sorted map from name to [`Parameter`]
//! stored as one name buffer and two parallel arrays, so decoding an index does not allocate
//! once per parameter name (~15,000 names in a NetBox 4.6 index). Exact names are found through
//! a hash table (`table.rs`; a check asks 10–20 of them per dict: a binary search over the ~500
//! names of `dcim/devices` cost ~300 instructions each, a probe ~50), built at compile time for
//! the shipped indexes and on the first lookup for an index file.

use super::split::{Le, Strings};
use super::table::{self, Table};
use super::Parameter;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The query parameters of one list endpoint by name (`site_id`, `status__n`, `q`, ...), in
/// byte order of the name, names unique. Read it like a `BTreeMap<String, Parameter>`:
/// [`get`](Params::get), [`contains_key`](Params::contains_key), [`keys`](Params::keys),
/// [`iter`](Params::iter), `params["name"]` (panics when absent, as a map does).
///
/// Build one with `collect()` or `From<BTreeMap<String, Parameter>>`; a repeated name keeps the
/// last parameter given (as inserting into a map does). In index files it is a JSON object in
/// name order (see `compact.rs` for the value layout).
///
/// The shipped indexes are read lazily ([`super::split`]): each endpoint keeps its section of
/// the binary and reads it on first use (the names borrowed, the rest copied out, the lookup
/// table as built at compile time), so a process that checks one endpoint's call reads one
/// endpoint (the 4.7.3 index is 145 endpoints, 16,380 parameters).
#[derive(Clone, Default)]
pub struct Params {
    /// The parameters, decoded (at once, or from `raw` on first use).
    data: OnceLock<Data>,
    /// When read lazily: the parameters' section in a shipped index and the index's
    /// descriptions ([`super::split`]).
    raw: Option<(Le, Strings)>,
}

/// The decoded parameters of a [`Params`].
#[derive(Clone, Default)]
struct Data {
    /// Every name, concatenated in order (borrowed from a shipped index).
    names: Cow<'static, str>,
    /// End (byte offset into `names`) of each name; a name starts where the previous one ends.
    ends: Vec<u32>,
    /// The parameter of each name, same order as `ends`.
    values: Vec<Parameter>,
    /// The hash table and the lookup sets, built by the first exact lookup, dropped when a
    /// name is added.
    table: OnceLock<Table>,
    /// One word per name that the checks derive once ([`Params::memo_at`]).
    memo: Memo,
    /// The endpoint's key and release as shared strings ([`Params::shared_texts`]).
    texts: Texts,
}

/// The words of [`Params::memo_at`] and [`Params::quiet_at`]: two per name (the first
/// `len` words `memo_at`'s, the next `len` `quiet_at`'s), 0 = not made yet; allocated on first
/// use. A clone starts empty (the clone may be put in another index).
#[derive(Default)]
struct Memo(OnceLock<Box<[AtomicU64]>>);

impl Clone for Memo {
    fn clone(&self) -> Memo {
        Memo::default()
    }
}

/// The strings of [`Params::shared_texts`], made on first use. A clone starts empty, as
/// [`Memo`] does.
#[derive(Default)]
struct Texts(OnceLock<(Arc<str>, Arc<str>)>);

impl Clone for Texts {
    fn clone(&self) -> Texts {
        Texts::default()
    }
}

impl PartialEq for Params {
    /// Same names and parameters (the lookup table is a cache; a lazy `Params` is decoded).
    fn eq(&self, other: &Params) -> bool {
        let (a, b) = (self.data(), other.data());
        a.names == b.names && a.ends == b.ends && a.values == b.values
    }
}

impl Params {
    /// No parameters.
    pub fn new() -> Params {
        Params::default()
    }

    /// Parameters read from their section `le` of a shipped index (whose descriptions are
    /// `descriptions`) on first use ([`super::split`]).
    pub(super) fn shipped(le: Le, descriptions: Strings) -> Params {
        Params {
            data: OnceLock::new(),
            raw: Some((le, descriptions)),
        }
    }

    fn of(data: Data) -> Params {
        Params {
            data: OnceLock::from(data),
            raw: None,
        }
    }

    /// The decoded parameters; a lazy `Params` reads its section here, once. A section that
    /// does not read (the shipped indexes are compared with their whole decode by a test)
    /// gives no parameters.
    fn data(&self) -> &Data {
        self.data.get_or_init(|| {
            self.raw
                .and_then(|(le, descriptions)| Data::shipped(le, descriptions))
                .unwrap_or_default()
        })
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.data().len()
    }

    /// True when the endpoint has no parameters.
    pub fn is_empty(&self) -> bool {
        self.data().is_empty()
    }

    /// The [`LOOKUPS`] declared for filter `name` (`site_id` → `n` when `site_id__n` is a
    /// name); `None` when `name` is no parameter. One hash probe.
    pub fn lookup_set(&self, name: &str) -> Option<LookupSet> {
        self.data().lookup_set(name)
    }

    /// True when the endpoint has the parameter `base__lookup` (`site_id__n`).
    pub fn has_lookup(&self, base: &str, lookup: &str) -> bool {
        self.data().has_lookup(base, lookup)
    }

    /// The parameter called `name` (exact, case-sensitive), if any.
    pub fn get(&self, name: &str) -> Option<&Parameter> {
        self.data().get(name)
    }

    /// The parameter called `name` and its position (for [`Params::lookup_set_at`]), if any:
    /// one hash probe for both.
    pub fn get_at(&self, name: &str) -> Option<(usize, &Parameter)> {
        let data = self.data();
        data.position(name).map(|i| (i, &data.values[i]))
    }

    /// [`Params::lookup_set`] of the parameter at `position` (from [`Params::get_at`]), without
    /// a probe; empty for a position out of range.
    pub fn lookup_set_at(&self, position: usize) -> LookupSet {
        let data = self.data();
        if data.is_empty() {
            return LookupSet(0);
        }
        LookupSet(data.table().lookups.get(position).copied().unwrap_or(0))
    }

    /// A word the checks derive from the parameter at `position` (from [`Params::get_at`]),
    /// made by `make` on first use and kept with the parameters (one atomic word per name, so
    /// threads share it; two threads may both make it). `make` must give the same word every
    /// time for the same parameter of the same endpoint of the same index, and a nonzero one
    /// to be kept (0 is made again next time). What it may read besides the parameters (the
    /// endpoint's key, the release) is the caller's to keep the same: a clone of the
    /// parameters starts without the words, and [`crate::index::FilterIndex::forget_targets`]
    /// drops them. A position out of range gives `make()`, not kept.
    pub(crate) fn memo_at(&self, position: usize, make: impl FnOnce() -> u64) -> u64 {
        self.word_at(0, position, make)
    }

    /// A second word per name, kept as [`Params::memo_at`]'s is (same contract), for the quiet
    /// path of the REST checks (`rest::quiet`), which derives its own word from a parameter.
    pub(crate) fn quiet_at(&self, position: usize, make: impl FnOnce() -> u64) -> u64 {
        self.word_at(1, position, make)
    }

    /// Word `slot` (0: [`Params::memo_at`]'s, 1: [`Params::quiet_at`]'s) of the name at
    /// `position`.
    #[inline]
    fn word_at(&self, slot: usize, position: usize, make: impl FnOnce() -> u64) -> u64 {
        let data = self.data();
        if position >= data.len() {
            return make();
        }
        let words = data
            .memo
            .0
            .get_or_init(|| (0..2 * data.len()).map(|_| AtomicU64::new(0)).collect());
        let Some(word) = words.get(slot * data.len() + position) else {
            return make();
        };
        match word.load(Ordering::Relaxed) {
            0 => {
                let made = make();
                word.store(made, Ordering::Relaxed);
                made
            }
            kept => kept,
        }
    }

    /// `key` (the endpoint's key in its index) and `release` (the index's NetBox version) as
    /// shared strings, for the facts of the findings on this endpoint: the first pair asked is
    /// kept with the parameters and handed out again (a reference count each, where two
    /// allocations per call, and their frees, were most of what the facts cost); any other
    /// pair is made fresh, so the answer always equals what was asked.
    pub(crate) fn shared_texts(&self, key: &str, release: &str) -> (Arc<str>, Arc<str>) {
        let kept = self
            .data()
            .texts
            .0
            .get_or_init(|| (Arc::from(key), Arc::from(release)));
        if *kept.0 == *key && *kept.1 == *release {
            (Arc::clone(&kept.0), Arc::clone(&kept.1))
        } else {
            (Arc::from(key), Arc::from(release))
        }
    }

    /// Drops the words of [`Params::memo_at`] and [`Params::quiet_at`] (after a change to what
    /// they were made from).
    pub(crate) fn forget_memo(&mut self) {
        if let Some(data) = self.data.get_mut() {
            data.memo = Memo::default();
        }
    }

    /// The stored name and parameter called `name`, if any.
    pub fn get_key_value(&self, name: &str) -> Option<(&str, &Parameter)> {
        self.data().get_key_value(name)
    }

    /// True when the endpoint has a parameter called `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.data().position(name).is_some()
    }

    /// The lookups declared for filter `base`: `n`, `ic`, `gte` for `base__n`, `base__ic`,
    /// `base__gte` (one binary search; the `base__*` names are adjacent in byte order).
    pub fn lookups<'a>(&'a self, base: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.data().lookups(base)
    }

    /// The names without `__` (no lookup, no relation path) in byte order; the same as
    /// `keys().filter(|k| !k.contains("__"))`, from a list made once per endpoint.
    pub fn bare_keys(&self) -> impl Iterator<Item = &str> + '_ {
        let data = self.data();
        let bare: &[u32] = if data.is_empty() {
            &[]
        } else {
            &data.table().bare
        };
        bare.iter().map(move |&i| data.name(i as usize))
    }

    /// Names in byte order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.iter().map(|(name, _)| name)
    }

    /// Parameters in name order.
    pub fn values(&self) -> std::slice::Iter<'_, Parameter> {
        self.data().values.iter()
    }

    /// `(name, parameter)` pairs in name order.
    pub fn iter(&self) -> ParamsIter<'_> {
        let data = self.data();
        ParamsIter {
            params: data,
            front: 0,
            back: data.len(),
        }
    }

    /// Builds from pairs in any order; a later pair with the same name replaces an earlier one.
    fn from_pairs(pairs: Vec<(String, Parameter)>) -> Params {
        Params::of(Data::from_pairs(pairs))
    }
}

pub use table::LOOKUPS;

/// The [`LOOKUPS`] declared for one filter ([`Params::lookup_set`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookupSet(u32);

impl LookupSet {
    /// True when `lookup` (one of [`LOOKUPS`]) is declared; false for any other name.
    pub fn contains(self, lookup: &str) -> bool {
        LOOKUPS
            .iter()
            .position(|l| *l == lookup)
            .is_some_and(|k| self.0 & (1 << k) != 0)
    }

    /// True when every lookup of `set` (made by [`LookupSet::of`]) is declared.
    pub fn contains_all(self, set: LookupSet) -> bool {
        self.0 & set.0 == set.0
    }

    /// True when some lookup of `set` (made by [`LookupSet::of`]) is declared.
    pub fn contains_any(self, set: LookupSet) -> bool {
        self.0 & set.0 != 0
    }

    /// The set of `lookups` (names of [`LOOKUPS`]; another name adds nothing), for
    /// [`LookupSet::contains_all`] and [`LookupSet::contains_any`] with the names compared
    /// once, at compile time (a `contains` compares names on every call).
    pub const fn of(lookups: &[&str]) -> LookupSet {
        let mut bits = 0u32;
        let mut i = 0;
        while i < lookups.len() {
            let mut k = 0;
            while k < LOOKUPS.len() {
                if const_eq(lookups[i].as_bytes(), LOOKUPS[k].as_bytes()) {
                    bits |= 1 << k;
                }
                k += 1;
            }
            i += 1;
        }
        LookupSet(bits)
    }
}

/// `a == b` in a `const fn`.
const fn const_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Data {
    /// Number of parameters.
    fn len(&self) -> usize {
        self.values.len()
    }

    fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The name at position `i` (`i < len()`).
    #[inline]
    fn name(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.names[start..self.ends[i] as usize]
    }

    /// The lookup table (built on first use).
    fn table(&self) -> &Table {
        self.table
            .get_or_init(|| table::build(self.len(), |i| self.name(i)))
    }

    /// The name at position `i` as bytes (`i < len()`; no character boundaries checked).
    #[inline]
    fn name_bytes(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.names
            .as_bytes()
            .get(start..self.ends[i] as usize)
            .unwrap_or_default()
    }

    /// Position of `name` through `slots`.
    fn find(&self, slots: &[u64], name: &[u8]) -> Option<usize> {
        table::find_bytes(slots, name, |i| self.name_bytes(i))
    }

    /// The parameters in section `le` of a shipped index (see [`super::split`] for the
    /// layout), the names borrowed; `None` when the section does not read or does not hold
    /// a well-formed table (ends ascending on character boundaries, slots a power of two at
    /// least twice the names, positions in range), so that no lookup can panic or loop.
    fn shipped(mut le: Le, descriptions: Strings) -> Option<Data> {
        let n = le.u32()? as usize;
        let names_len = le.u32()? as usize;
        let slots_len = le.u32()? as usize;
        let bare_len = le.u32()? as usize;
        let ends: Vec<u32> = le.u32s(n)?.collect();
        let choices = le.bytes(n.checked_mul(4)?)?;
        let descs = le.bytes(n.checked_mul(4)?)?;
        let lookups = le.u32s(n)?.collect();
        let slots: Box<[u64]> = le.u64s(slots_len)?.collect();
        let bare: Box<[u32]> = le.u32s(bare_len)?.collect();
        let codes = le.bytes(n)?;
        let names = std::str::from_utf8(le.bytes(names_len)?).ok()?;
        let mut last = 0;
        for &e in &ends {
            let e = e as usize;
            if e < last || !names.is_char_boundary(e) {
                return None;
            }
            last = e;
        }
        let well_formed = last == names_len
            && slots_len.is_power_of_two()
            && slots_len >= (2 * n).max(8)
            && slots.iter().all(|&s| (s as u32 as usize) <= n)
            && bare.iter().all(|&b| (b as usize) < n);
        if !well_formed {
            return None;
        }
        // A loop into a vector of the final size: collecting `Option`s grew it by doubling,
        // and the zipped word iterators were a call per parameter.
        let mut values = Vec::with_capacity(n);
        for (i, &code) in codes.iter().enumerate() {
            let word = |b: &[u8]| {
                b.get(4 * i..4 * i + 4)
                    .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            };
            let (choices, desc) = (word(choices)?, word(descs)?);
            values.push(Parameter {
                kind: *super::compact::KINDS.get(usize::from(code / 2))?,
                multi: code % 2 == 1,
                choices: (choices != u32::MAX).then_some(choices),
                description: match desc {
                    u32::MAX => None,
                    d => Some(Cow::Borrowed(descriptions.get(d as usize)?)),
                },
            });
        }
        Some(Data {
            names: Cow::Borrowed(names),
            ends,
            values,
            table: OnceLock::from(Table {
                slots,
                lookups,
                bare,
            }),
            memo: Memo::default(),
            texts: Texts::default(),
        })
    }

    fn position(&self, name: &str) -> Option<usize> {
        if self.is_empty() {
            return None;
        }
        self.find(&self.table().slots, name.as_bytes())
    }

    fn lookup_set(&self, name: &str) -> Option<LookupSet> {
        let i = self.position(name)?;
        Some(LookupSet(self.table().lookups[i]))
    }

    fn has_lookup(&self, base: &str, lookup: &str) -> bool {
        if let Some(set) = LOOKUPS
            .contains(&lookup)
            .then(|| self.lookup_set(base))
            .flatten()
        {
            return set.contains(lookup);
        }
        // Another lookup, or `base` itself is no name.
        self.position(&format!("{base}__{lookup}")).is_some()
    }

    fn get(&self, name: &str) -> Option<&Parameter> {
        self.position(name).map(|i| &self.values[i])
    }

    fn get_key_value(&self, name: &str) -> Option<(&str, &Parameter)> {
        self.position(name).map(|i| (self.name(i), &self.values[i]))
    }

    fn lookups<'a>(&'a self, base: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let start = self
            .lookups_after_base(base)
            .unwrap_or_else(|| self.lookups_search(base));
        (start..self.len())
            .map(move |i| self.name(i))
            .map_while(move |n| n.strip_prefix(base).and_then(|r| r.strip_prefix("__")))
    }

    /// Where the `base__*` names start when `base` is itself a name (nearly always: the rules
    /// list the lookups of a filter they found): one hash probe, then the few names between
    /// `base` and `base__` in byte order (`base` followed by a byte below `_`, or `_` and a
    /// byte below `_`: `site` → `site__n` follows at once). `None` when `base` is no name or
    /// more than a few names lie between (the caller searches; the binary search read ~9
    /// names scattered over the buffer, ~600 instructions a list).
    fn lookups_after_base(&self, base: &str) -> Option<usize> {
        let first = self.position(base)? + 1;
        let b = base.as_bytes();
        for i in first..first + 8 {
            let Some(n) = (i < self.len()).then(|| self.name_bytes(i)) else {
                return Some(i);
            };
            // Still below `base__`: `base` then a byte under `_`, or `base_` then a byte
            // under `_` (every name here starts with `base` or sorts after `base__`).
            let below = n.starts_with(b)
                && match (n.get(b.len()), n.get(b.len() + 1)) {
                    (Some(&c), _) if c < b'_' => true,
                    (Some(&b'_'), Some(&c)) => c < b'_',
                    (Some(&b'_'), None) => true,
                    _ => false,
                };
            if !below {
                return Some(i);
            }
        }
        None
    }

    /// The first name at or after `base__` in byte order (a binary search).
    fn lookups_search(&self, base: &str) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        // First name >= `base__` (compared without building it).
        let below = |n: &str| {
            let b = base.as_bytes();
            let nb = n.as_bytes();
            let common = nb.len().min(b.len());
            match nb[..common].cmp(&b[..common]) {
                std::cmp::Ordering::Equal if nb.len() < b.len() => true,
                std::cmp::Ordering::Equal => nb[b.len()..] < *b"__".as_slice(),
                o => o == std::cmp::Ordering::Less,
            }
        };
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(self.name(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Appends `name` when it sorts after every name so far; gives `p` back otherwise.
    fn push_sorted(&mut self, name: &str, p: Parameter) -> Result<(), Parameter> {
        let start = self.names.len();
        self.names.to_mut().push_str(name);
        self.commit_last(start, p)
            .inspect_err(|_| self.names.to_mut().truncate(start))
    }

    /// Keeps the name just appended at `names[start..]` with `p` when it sorts after every
    /// earlier name (and offsets fit in u32); gives `p` back otherwise (the caller removes it).
    fn commit_last(&mut self, start: usize, p: Parameter) -> Result<(), Parameter> {
        self.table.take();
        let sorted = self.is_empty() || self.name(self.len() - 1) < &self.names[start..];
        match u32::try_from(self.names.len()) {
            Ok(end) if sorted => {
                self.ends.push(end);
                self.values.push(p);
                Ok(())
            }
            _ => Err(p),
        }
    }

    /// Builds from pairs in any order; a later pair with the same name replaces an earlier one.
    fn from_pairs(pairs: Vec<(String, Parameter)>) -> Data {
        let map: BTreeMap<String, Parameter> = pairs.into_iter().collect();
        let mut out = Data {
            names: Cow::Owned(String::with_capacity(map.keys().map(String::len).sum())),
            ends: Vec::with_capacity(map.len()),
            values: Vec::with_capacity(map.len()),
            table: OnceLock::new(),
            memo: Memo::default(),
            texts: Texts::default(),
        };
        for (name, p) in map {
            // Names are unique and ascending here; only a > 4 GiB name buffer is refused.
            let _ = out.push_sorted(&name, p);
        }
        out
    }
}

/// Iterator over `(name, parameter)` pairs of a [`Params`], in name order.
#[derive(Clone)]
pub struct ParamsIter<'a> {
    params: &'a Data,
    front: usize,
    back: usize,
}

impl<'a> Iterator for ParamsIter<'a> {
    type Item = (&'a str, &'a Parameter);

    fn next(&mut self) -> Option<Self::Item> {
        (self.front < self.back).then(|| {
            self.front += 1;
            let i = self.front - 1;
            (self.params.name(i), &self.params.values[i])
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.back - self.front, Some(self.back - self.front))
    }
}

impl DoubleEndedIterator for ParamsIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            (self.params.name(self.back), &self.params.values[self.back])
        })
    }
}

impl ExactSizeIterator for ParamsIter<'_> {}

impl<'a> IntoIterator for &'a Params {
    type Item = (&'a str, &'a Parameter);
    type IntoIter = ParamsIter<'a>;

    fn into_iter(self) -> ParamsIter<'a> {
        self.iter()
    }
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<&str> for Params {
    type Output = Parameter;

    /// Panics when there is no parameter called `name` (use [`Params::get`] otherwise).
    fn index(&self, name: &str) -> &Parameter {
        self.get(name)
            .unwrap_or_else(|| panic!("no parameter named {name:?}"))
    }
}

impl<K: Into<String>> FromIterator<(K, Parameter)> for Params {
    fn from_iter<I: IntoIterator<Item = (K, Parameter)>>(iter: I) -> Params {
        Params::from_pairs(iter.into_iter().map(|(k, p)| (k.into(), p)).collect())
    }
}

impl From<BTreeMap<String, Parameter>> for Params {
    fn from(map: BTreeMap<String, Parameter>) -> Params {
        map.into_iter().collect()
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.len()))?;
        for (name, p) in self.iter() {
            m.serialize_entry(name, p)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamsVisitor).map(Params::of)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Data;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of parameters")
    }

    /// Index files hold names in order (they are written from a `Params`), so each name is
    /// appended straight into the name buffer; out-of-order or repeated names (a hand-edited
    /// file) fall back to sorting. The growing is done in per-thread scratch buffers, so the
    /// result is allocated once at its exact size.
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Data, A::Error> {
        let mut work = SCRATCH.take().unwrap_or_default();
        work.names.to_mut().clear();
        work.ends.clear();
        work.values.clear();
        let out = fill(&mut work, m).map(|rest| {
            let exact = Data {
                names: Cow::Owned(work.names.to_string()),
                ends: work.ends.clone(),
                values: work.values.drain(..).collect(),
                table: OnceLock::new(),
                memo: Memo::default(),
                texts: Texts::default(),
            };
            if rest.is_empty() {
                return exact;
            }
            let names: Vec<String> = (0..exact.len())
                .map(|i| exact.name(i).to_string())
                .collect();
            let mut all: Vec<(String, Parameter)> = names.into_iter().zip(exact.values).collect();
            all.extend(rest);
            Data::from_pairs(all)
        });
        SCRATCH.set(Some(work));
        out
    }
}

thread_local! {
    /// Scratch buffers of [`ParamsVisitor`], reused from one endpoint to the next.
    static SCRATCH: Cell<Option<Data>> = const { Cell::new(None) };
}

/// Reads the object's entries into `out` while names ascend; returns the entries from the first
/// one out of order on (empty for an index file written by this crate).
fn fill<'de, A: MapAccess<'de>>(
    out: &mut Data,
    mut m: A,
) -> Result<Vec<(String, Parameter)>, A::Error> {
    let mut rest: Vec<(String, Parameter)> = Vec::new();
    loop {
        let start = out.names.len();
        if m.next_key_seed(NameSeed(out.names.to_mut()))?.is_none() {
            return Ok(rest);
        }
        let p: Parameter = m.next_value()?;
        let p = if rest.is_empty() {
            match out.commit_last(start, p) {
                Ok(()) => continue,
                Err(p) => p,
            }
        } else {
            p
        };
        rest.push((out.names[start..].to_string(), p));
        out.names.to_mut().truncate(start);
    }
}

/// Appends a map key to the name buffer (no allocation per name once it has grown).
struct NameSeed<'a>(&'a mut String);

impl<'de> DeserializeSeed<'de> for NameSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NameSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a parameter name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::ValueKind;

    /// [`Data::lookups`] from the base's own position answers as the binary search, for every
    /// name of every shipped endpoint and names that are none, on a map with names between
    /// `base` and `base__` (`site0`, `site_0`, `site_`).
    #[test]
    fn lookups_after_base_answers_as_the_search() {
        let search = |d: &Data, base: &str| -> Vec<String> {
            (d.lookups_search(base)..d.len())
                .map(|i| d.name(i))
                .map_while(|n| n.strip_prefix(base).and_then(|r| r.strip_prefix("__")))
                .map(String::from)
                .collect()
        };
        let mut checked = 0;
        let mut check = |params: &Params, base: &str| {
            let d = params.data();
            let got: Vec<String> = params.lookups(base).map(String::from).collect();
            assert_eq!(got, search(d, base), "{base:?}");
            checked += 1;
        };
        let odd: Params = [
            "site",
            "site-x",
            "site0",
            "site_",
            "site_0",
            "site_A",
            "site__",
            "site__ic",
            "site__n",
            "site_a",
            "site_id",
            "site_id__n",
            "siteb",
            "z",
        ]
        .into_iter()
        .map(|n| (n.to_string(), p(ValueKind::String, None)))
        .collect::<BTreeMap<_, _>>()
        .into();
        for n in ["site", "site_", "site_id", "sit", "z", "zz", ""] {
            check(&odd, n);
        }
        for release in crate::index::embedded::RELEASES {
            let index = crate::index::embedded::embedded_index(release.version);
            for ep in index.endpoints.values() {
                for n in ep.params.keys() {
                    check(&ep.params, n);
                    check(&ep.params, n.get(..n.len() / 2).unwrap_or(""));
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    fn p(kind: ValueKind, description: Option<&str>) -> Parameter {
        Parameter {
            kind,
            multi: false,
            choices: None,
            description: description.map(|d| d.to_string().into()),
        }
    }

    /// What a `BTreeMap<String, Parameter>` makes of the same JSON object.
    fn as_map(json: &str) -> BTreeMap<String, Parameter> {
        serde_json::from_str(json).unwrap()
    }

    /// A set made by `LookupSet::of` answers as `contains` on every set of lookups a filter
    /// can have (each lookup alone and with every other), and other names add nothing.
    #[test]
    fn lookup_sets_of_names_answer_as_contains() {
        assert_eq!(LookupSet::of(&["xyz", ""]), LookupSet(0));
        for (i, a) in LOOKUPS.iter().enumerate() {
            for b in LOOKUPS.iter().chain(&["xyz"]) {
                let both = LookupSet::of(&[a, b]);
                for bits in [0u32, 1 << i, u32::MAX >> 15, 0x1_5555, 0xaaaa] {
                    let set = LookupSet(bits);
                    assert_eq!(
                        set.contains_all(both),
                        set.contains(a) && (*b == "xyz" || set.contains(b)),
                        "{a} {b} {bits:x}"
                    );
                    assert_eq!(
                        set.contains_any(both),
                        set.contains(a) || set.contains(b),
                        "{a} {b} {bits:x}"
                    );
                }
            }
        }
    }

    #[test]
    fn lookups_are_the_base_double_underscore_names() {
        let params: Params = [
            "site",
            "site_1",
            "site__ic",
            "site__n",
            "site_id",
            "site_id__n",
            "sit",
            "sitf__n",
        ]
        .into_iter()
        .map(|n| (n.to_string(), p(ValueKind::String, None)))
        .collect();
        fn lookups<'a>(params: &'a Params, b: &'a str) -> Vec<&'a str> {
            params.lookups(b).collect()
        }
        let got = |b: &'static str| lookups(&params, b);
        assert_eq!(got("site"), ["ic", "n"]);
        assert_eq!(got("site_id"), ["n"]);
        assert_eq!(got("site_1"), Vec::<&str>::new());
        assert_eq!(got("si"), Vec::<&str>::new());
        assert_eq!(got("zzz"), Vec::<&str>::new());
        assert_eq!(got(""), Vec::<&str>::new());
        // Against the naive definition on a real endpoint.
        let index = crate::index::embedded::embedded_index("4.6.8");
        let ep = &index.endpoints["dcim/devices"];
        for base in ep.params.keys() {
            let want: Vec<&str> = ep
                .params
                .keys()
                .filter_map(|k| k.strip_prefix(base)?.strip_prefix("__"))
                .collect();
            assert_eq!(ep.params.lookups(base).collect::<Vec<_>>(), want, "{base}");
        }
    }

    #[test]
    fn hashed_lookups_agree_with_the_sorted_names() {
        for version in ["4.3.3", "4.6.8"] {
            let index = crate::index::embedded::embedded_index(version);
            for (key, ep) in &index.endpoints {
                let params = &ep.params;
                let names: Vec<&str> = params.keys().collect();
                for (i, name) in names.iter().enumerate() {
                    assert_eq!(params.data().position(name), Some(i), "{key} {name}");
                    let set = params.lookup_set(name).unwrap();
                    for l in LOOKUPS.iter().chain(&["in", "", "_n", "x__n"]) {
                        let want = params.lookups(name).any(|x| x == *l);
                        assert_eq!(params.has_lookup(name, l), want, "{key} {name}__{l}");
                        assert_eq!(set.contains(l), want && LOOKUPS.contains(l), "{key} {name}");
                    }
                    // A base that is no name of its own.
                    if let Some((base, l)) = name.rsplit_once("__") {
                        assert!(params.has_lookup(base, l), "{key} {name}");
                    }
                    for absent in [
                        format!("{name}_"),
                        format!("_{name}"),
                        name[1..].to_string(),
                    ] {
                        assert_eq!(
                            params.get(&absent).is_some(),
                            names.binary_search(&absent.as_str()).is_ok(),
                            "{key} {absent}"
                        );
                    }
                }
            }
        }
        let empty = Params::new();
        assert!(empty.get("").is_none() && !empty.has_lookup("a", "n"));
        assert_eq!(empty.lookup_set("a"), None);
        let one: Params = [("".to_string(), p(ValueKind::String, None))]
            .into_iter()
            .collect();
        assert!(one.contains_key("") && !one.contains_key("a") && !one.has_lookup("", ""));
    }

    /// The lookup tables `build.rs` stored in the shipped indexes are the ones `table.rs`
    /// builds for an index file.
    #[test]
    fn shipped_tables_are_the_computed_ones() {
        for r in crate::index::embedded::RELEASES {
            let index = crate::index::split::load(&r.split).unwrap();
            for (key, ep) in &index.endpoints {
                let d = ep.params.data();
                assert!(matches!(d.names, Cow::Borrowed(_)), "{} {key}", r.version);
                let fresh = table::build(d.len(), |i| d.name(i));
                assert_eq!(*d.table(), fresh, "{} {key}", r.version);
            }
        }
    }

    /// A section cut short or with an end, a slot or a code out of range reads as no
    /// parameters: never a panic, a lookup out of bounds or an endless probe.
    #[test]
    fn a_broken_section_reads_as_nothing() {
        let split = &crate::index::embedded::RELEASES[0].split;
        let descriptions = Le::new(split.blob, split.descriptions).strings().unwrap();
        let (from, to) = split.endpoints[0].params;
        let whole = Data::shipped(Le::new(split.blob, (from, to)), descriptions).unwrap();
        let n = whole.len();
        assert!(n > 0);
        for cut in [0, 3, 16, (to - from) / 2, to - from - 1] {
            let le = Le::new(split.blob, (from, from + cut));
            assert!(Data::shipped(le, descriptions).is_none(), "{cut}");
        }
        // Header (16 bytes), then ends, choices, descriptions, lookups (4 n bytes each), the
        // slots, the bare positions and the codes.
        let mut bytes = split.blob[from as usize..to as usize].to_vec();
        let slots = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
        let bare = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let codes = 16 + 16 * n + 8 * slots + 4 * bare;
        let bad = |at: usize, value: &[u8]| {
            let mut b = bytes.clone();
            b[at..at + value.len()].copy_from_slice(value);
            let b: &'static [u8] = Box::leak(b.into_boxed_slice());
            Data::shipped(Le::new(b, (0, b.len() as u32)), descriptions).is_none()
        };
        assert!(bad(16, &u32::MAX.to_le_bytes()), "an end past the names");
        assert!(bad(8, &3u32.to_le_bytes()), "slots not a power of two");
        assert!(
            bad(16 + 16 * n, &u64::MAX.to_le_bytes()),
            "a slot out of range"
        );
        assert!(bad(codes, &[14]), "a kind code out of range");
        assert!(
            bad(16 + 8 * n, &(u32::MAX - 1).to_le_bytes()),
            "a description"
        );
        // Unchanged, it reads.
        let b: &'static [u8] = Box::leak(std::mem::take(&mut bytes).into_boxed_slice());
        assert!(Data::shipped(Le::new(b, (0, b.len() as u32)), descriptions).is_some());
    }

    #[test]
    fn decodes_like_a_map() {
        for json in [
            r#"{}"#,
            r#"{"a":[0],"b":[3],"b__n":[3,null,"B"],"c":[1,4]}"#,
            // Out of order, repeated (the later one wins), escaped and non-ASCII names.
            r#"{"z":[0],"a":[2],"m":[6],"a":[4,null,"second"],"\u0062":[0],"é":[1]}"#,
            r#"{"b":[0],"a":[2]}"#,
            r#"{"a":[0],"a":[2]}"#,
        ] {
            let params: Params = serde_json::from_str(json).unwrap();
            let map = as_map(json);
            let got: Vec<(&str, &Parameter)> = params.iter().collect();
            let want: Vec<(&str, &Parameter)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
            assert_eq!(got, want, "{json}");
            assert_eq!(params, Params::from(map.clone()), "{json}");
            assert_eq!(
                serde_json::to_string(&params).unwrap(),
                serde_json::to_string(&map).unwrap(),
                "{json}"
            );
            for (k, v) in &map {
                assert_eq!(params.get(k), Some(v), "{json} {k}");
                assert_eq!(params.get_key_value(k), Some((k.as_str(), v)));
                assert!(params.contains_key(k));
            }
            for absent in ["", "aa", "0", "~", "a_"] {
                assert_eq!(params.get(absent), map.get(absent), "{json} {absent}");
            }
            assert_eq!(params.len(), map.len());
            assert_eq!(params.keys().rev().collect::<Vec<_>>().len(), map.len());
        }
    }

    #[test]
    fn builds_and_reads() {
        let params: Params = [
            ("status", p(ValueKind::String, Some("Status"))),
            ("id", p(ValueKind::Integer, None)),
            ("status", p(ValueKind::Uuid, None)),
        ]
        .into_iter()
        .collect();
        assert_eq!(params.keys().collect::<Vec<_>>(), ["id", "status"]);
        assert_eq!(params["status"].kind, ValueKind::Uuid);
        assert_eq!(params.values().len(), 2);
        assert_eq!(params.iter().next_back().map(|(k, _)| k), Some("status"));
        assert!(Params::new().is_empty());
        assert_eq!(
            format!("{params:?}"),
            format!("{:?}", params.iter().collect::<BTreeMap<_, _>>())
        );
    }

    #[test]
    fn bad_values_are_errors() {
        assert!(serde_json::from_str::<Params>(r#"{"a":[99]}"#).is_err());
        assert!(serde_json::from_str::<Params>(r#"["a"]"#).is_err());
        assert!(serde_json::from_str::<Params>(r#"{"a":[0],"b":"x"}"#).is_err());
    }
}
