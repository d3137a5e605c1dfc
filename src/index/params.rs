//! [`Params`]: the query parameters of one endpoint, a sorted map from name to [`Parameter`]
//! stored as one name buffer and two parallel arrays, so decoding an index does not allocate
//! once per parameter name (~15,000 names in a NetBox 4.6 index). Exact names are found through
//! a hash table built on the first lookup (a check asks 10–20 of them per dict: a binary search
//! over the ~500 names of `dcim/devices` cost ~300 instructions each, a probe ~50).

use super::Parameter;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

/// The query parameters of one list endpoint by name (`site_id`, `status__n`, `q`, ...), in
/// byte order of the name, names unique. Read it like a `BTreeMap<String, Parameter>`:
/// [`get`](Params::get), [`contains_key`](Params::contains_key), [`keys`](Params::keys),
/// [`iter`](Params::iter), `params["name"]` (panics when absent, as a map does).
///
/// Build one with `collect()` or `From<BTreeMap<String, Parameter>>`; a repeated name keeps the
/// last parameter given (as inserting into a map does). In index files it is a JSON object in
/// name order (see `compact.rs` for the value layout).
///
/// The shipped indexes are decoded lazily ([`super::split`]): each endpoint keeps its
/// parameters' JSON text, deflated, and inflates and decodes it on first use, so a process that
/// checks one endpoint's call reads one endpoint (the 4.7.3 index is 145 endpoints, 532 KB of
/// JSON).
#[derive(Clone, Default)]
pub struct Params {
    /// The parameters, decoded (at once, or from `raw` on first use).
    data: OnceLock<Data>,
    /// When decoded lazily: the parameters' JSON object (as the index file holds it) as a raw
    /// deflate stream in the shipped blob, and its inflated length in bytes ([`super::split`]).
    raw: Option<(&'static [u8], u32)>,
}

/// The decoded parameters of a [`Params`].
#[derive(Clone, Default)]
struct Data {
    /// Every name, concatenated in order.
    names: String,
    /// End (byte offset into `names`) of each name; a name starts where the previous one ends.
    ends: Vec<u32>,
    /// The parameter of each name, same order as `ends`.
    values: Vec<Parameter>,
    /// The hash table and the lookup sets, built by the first exact lookup, dropped when a
    /// name is added.
    table: OnceLock<Table>,
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

    /// Parameters inflated from `deflated` (a raw deflate stream of `len` bytes of their JSON
    /// object) and decoded on first use ([`super::split`]).
    pub(super) fn deflated(deflated: &'static [u8], len: u32) -> Params {
        Params {
            data: OnceLock::new(),
            raw: Some((deflated, len)),
        }
    }

    fn of(data: Data) -> Params {
        Params {
            data: OnceLock::from(data),
            raw: None,
        }
    }

    /// The decoded parameters; a lazy `Params` decodes its JSON text here, once. Text that no
    /// longer decodes (it was read as JSON when the index was loaded, and the shipped indexes
    /// are decoded whole by a test) gives no parameters.
    fn data(&self) -> &Data {
        self.data.get_or_init(|| {
            let Some((bytes, len)) = self.raw else {
                return Data::default();
            };
            // One UTF-8 check for the text (cheaper than serde_json's per string).
            let text = super::split::inflate(bytes, len).and_then(|t| String::from_utf8(t).ok());
            let Some(text) = text else {
                return Data::default();
            };
            let mut de = serde_json::Deserializer::from_str(&text);
            de.deserialize_map(ParamsVisitor)
                .ok()
                .filter(|_| de.end().is_ok())
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

/// What [`Params`] builds on its first exact lookup.
#[derive(Clone, Default)]
struct Table {
    /// Open addressing by name hash, at least twice as many slots as names: each slot is 32
    /// bits of the name's hash above its position + 1 (0 = empty), so a probe compares a name
    /// only when the hashes agree.
    slots: Box<[u64]>,
    /// Per name (same order as `Data::ends`): bit `k` set when `<name>__<LOOKUPS[k]>` is a
    /// name too.
    lookups: Box<[u32]>,
}

/// The lookups NetBox generates for its filters (`n`, `ic`, `gte`, ...; `any` from 4.6), whose
/// presence per filter [`Params::lookup_set`] answers without a search. None holds `_`.
pub const LOOKUPS: [&str; 17] = [
    "n", "ic", "nic", "iew", "niew", "isw", "nisw", "ie", "nie", "empty", "regex", "iregex", "lt",
    "lte", "gt", "gte", "any",
];

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
}

/// A multiply-xor hash of `name`, eight bytes at a time (rustc-hash's constant); its high bits
/// are the best mixed: the slot is taken from them.
fn hash(name: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h = (name.len() as u64).wrapping_mul(K);
    let mut words = name.chunks_exact(8);
    for w in &mut words {
        let w: [u8; 8] = w.try_into().unwrap_or_default();
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut w = [0u8; 8];
        w[..tail.len()].copy_from_slice(tail);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    h
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
        self.table.get_or_init(|| {
            let n = self.len();
            let slots_len = (n * 2).max(8).next_power_of_two();
            let shift = 64 - slots_len.trailing_zeros();
            let mut slots = vec![0u64; slots_len].into_boxed_slice();
            for i in 0..n {
                let h = hash(self.name(i).as_bytes());
                let mut s = (h >> shift) as usize;
                while slots[s] != 0 {
                    s = (s + 1) & (slots_len - 1);
                }
                // An endpoint has hundreds of names, never 2^32.
                let position = u32::try_from(i + 1).unwrap_or(u32::MAX);
                slots[s] = (h & 0xffff_ffff_0000_0000) | u64::from(position);
            }
            let mut table = Table {
                slots,
                lookups: vec![0u32; n].into_boxed_slice(),
            };
            // `<base>__<lookup>` with a lookup of LOOKUPS (no `_` in it) splits at its last
            // `__`: the bit goes to `base` when it is a name.
            for i in 0..n {
                let name = self.name(i);
                let Some(at) = name.rfind("__") else { continue };
                let Some(k) = LOOKUPS.iter().position(|l| *l == &name[at + 2..]) else {
                    continue;
                };
                if let Some(base) = self.find(&table.slots, &name.as_bytes()[..at]) {
                    table.lookups[base] |= 1 << k;
                }
            }
            table
        })
    }

    /// Position of `name` through `slots`.
    fn find(&self, slots: &[u64], name: &[u8]) -> Option<usize> {
        let shift = 64 - slots.len().trailing_zeros();
        let h = hash(name);
        let mut s = (h >> shift) as usize;
        loop {
            let slot = *slots.get(s)?;
            if slot == 0 {
                return None;
            }
            if (slot ^ h) >> 32 == 0 {
                let i = (slot as u32 - 1) as usize;
                if self.name(i).as_bytes() == name {
                    return Some(i);
                }
            }
            s = (s + 1) & (slots.len() - 1);
        }
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
        (lo..self.len())
            .map(move |i| self.name(i))
            .map_while(move |n| n.strip_prefix(base).and_then(|r| r.strip_prefix("__")))
    }

    /// Appends `name` when it sorts after every name so far; gives `p` back otherwise.
    fn push_sorted(&mut self, name: &str, p: Parameter) -> Result<(), Parameter> {
        let start = self.names.len();
        self.names.push_str(name);
        self.commit_last(start, p)
            .inspect_err(|_| self.names.truncate(start))
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
            names: String::with_capacity(map.keys().map(String::len).sum()),
            ends: Vec::with_capacity(map.len()),
            values: Vec::with_capacity(map.len()),
            table: OnceLock::new(),
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
        work.names.clear();
        work.ends.clear();
        work.values.clear();
        let out = fill(&mut work, m).map(|rest| {
            let exact = Data {
                names: work.names.as_str().to_owned(),
                ends: work.ends.clone(),
                values: work.values.drain(..).collect(),
                table: OnceLock::new(),
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
        if m.next_key_seed(NameSeed(&mut out.names))?.is_none() {
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
        out.names.truncate(start);
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

    fn p(kind: ValueKind, description: Option<&str>) -> Parameter {
        Parameter {
            kind,
            multi: false,
            choices: None,
            description: description.map(str::to_string),
        }
    }

    /// What a `BTreeMap<String, Parameter>` makes of the same JSON object.
    fn as_map(json: &str) -> BTreeMap<String, Parameter> {
        serde_json::from_str(json).unwrap()
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
