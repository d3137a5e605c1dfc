//! Suggestions for a filter name the endpoint does not have, in the fixed order of ADR-0045:
//! 0. the per-endpoint tables of `renames`: renames across releases (with the release) and
//!    concept aliases (`prefix_length` → `mask_length` on prefixes);
//! 1. the alias table (known renames; each applies only where the old name is absent and the
//!    new one present on this endpoint, so `device_role_id` is never rewritten on interfaces);
//! 2. the longest real relation filter the wrong key ends with (`circuit_type_id` → `type_id`;
//!    never a field of another kind: `device_type` is not the port `type`);
//! 3. `<x>_id` ↔ `<x>`;
//! 4. string similarity, with a guard: never offer an `__n` filter for an `__in` / `__empty` /
//!    `__isnull` / `__null` input (the nearest string would invert the meaning);
//! 5. otherwise the endpoint's relation filters, as a hint in the message.

use super::endpoint::View;
use super::lookups::{has_dunder, Key, NETBOX_LOOKUPS};
use super::view_params::is_exempt;
use smallvec::SmallVec;

/// `(old name, new names in preference order)`. Sources: NetBox 4.0 release notes
/// (`device_role` → `role` on devices), netbox#16536 (components keep `device_role_id`), the
/// recorded wrong names of ADR-0045, and ipam filtersets (`parent` on IP addresses).
const ALIASES: &[(&str, &[&str])] = &[
    ("device_role_id", &["role_id"]),
    ("device_role", &["role"]),
    ("role_id", &["device_role_id"]),
    ("role", &["device_role"]),
    ("vlan_group_id", &["group_id"]),
    ("vlan_group", &["group"]),
    ("circuit_type_id", &["type_id"]),
    ("circuit_type", &["type"]),
    ("cluster_type_id", &["type_id"]),
    ("cluster_type", &["type"]),
    ("cluster_group_id", &["group_id"]),
    ("contact_role_id", &["role_id"]),
    ("rack_role_id", &["role_id"]),
    ("parent_prefix", &["parent"]),
    ("prefix", &["parent"]),
    ("ip_address", &["address"]),
    ("ip", &["address"]),
    ("tags", &["tag"]),
    ("tag_slug", &["tag"]),
    ("hostname", &["name"]),
    ("device_name", &["device"]),
    ("site_name", &["site"]),
    ("site_slug", &["site"]),
    ("tenant_name", &["tenant"]),
    ("tenant_slug", &["tenant"]),
    ("username", &["user"]),
    ("user_name", &["user"]),
    ("object_type", &["changed_object_type"]),
    ("object_type_id", &["changed_object_type_id"]),
    ("object_id", &["changed_object_id"]),
    ("content_type", &["object_type"]),
    ("content_type_id", &["object_type_id"]),
    ("serial_number", &["serial"]),
    ("mac", &["mac_address"]),
];

/// [`super::renames::NameSet`] of the old names of [`ALIASES`] (most wrong names are none:
/// the set says so without comparing them with 34 names).
const ALIASED: super::renames::NameSet = {
    let mut names = [""; ALIASES.len()];
    let mut i = 0;
    while i < ALIASES.len() {
        names[i] = ALIASES[i].0;
        i += 1;
    }
    super::renames::name_set(&names)
};

/// What the suggestion steps found.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Suggestions {
    /// Parameter names of this endpoint, best first.
    pub names: Vec<String>,
    /// True when one step gave exactly one answer (a certain fix).
    pub certain: bool,
    /// Relation id filters of the endpoint, when nothing else was found.
    pub relation_hint: Vec<String>,
    /// Why the first name is meant (a rename with its release, a concept alias), for the
    /// message; empty when the name speaks for itself.
    pub note: String,
}

impl Suggestions {
    fn one(name: String) -> Self {
        Suggestions {
            names: vec![name],
            certain: true,
            relation_hint: Vec::new(),
            note: String::new(),
        }
    }
}

/// Suggestions for `key`, which is not a parameter of `view`.
///
/// Remembered per thread for the shipped indexes, in the endpoint's [`Names`] (which are
/// remembered by release and endpoint key: a shipped release's index is the same data each
/// time it is decoded, so the release names its answers where an address would not). Code
/// repeats its mistakes. A text's own index (`--index`, an instance's) is not remembered: its
/// contents are not named by its release. The memo is one hash probe in the endpoint's own
/// map (the map by release, then endpoint, then name cost ~1,800 instructions a new answer
/// and ~800 a look-up, more than most computations it saved). Shared (`Rc`), so that neither
/// remembering an answer nor reading it back copies its names (two vectors of strings cloned
/// per answer were ~40 % of the memo's cost).
pub(crate) fn suggest(view: &View, key: &str) -> std::rc::Rc<Suggestions> {
    suggest_in(view, &names_of(view), key)
}

/// [`suggest`] with the endpoint's [`Names`] at hand.
fn suggest_in(view: &View, names: &Names, key: &str) -> std::rc::Rc<Suggestions> {
    suggest_known(view, names, key, None)
}

/// [`suggest_in`] for a key already parsed as `parsed.0` (not parsed again when the answer
/// is computed), which is no parameter of `view` when `parsed.1` (not probed again).
fn suggest_known(
    view: &View,
    names: &Names,
    key: &str,
    parsed: Option<(&Key, bool)>,
) -> std::rc::Rc<Suggestions> {
    let compute = || match parsed {
        Some((k, absent)) => compute_parsed(view, names, key, k, absent),
        None => compute_in(view, names, key),
    };
    if !names.shipped {
        return std::rc::Rc::new(compute());
    }
    if let Some(s) = names.memo.borrow().get(key) {
        return s.clone();
    }
    let s = std::rc::Rc::new(compute());
    MEMO_LEN.with(|len| {
        if len.get() >= MEMO_MAX {
            // Past the bound every endpoint's answers are dropped (a rare event: thousands of
            // distinct wrong names in one thread).
            NAMES.with(|cache| {
                for n in cache.borrow().values() {
                    n.memo.borrow_mut().clear();
                }
            });
            names.memo.borrow_mut().clear();
            len.set(0);
        }
        let mut memo = names.memo.borrow_mut();
        // Room for a few answers at once: an endpoint's map grown from 3 to 7 to 14 answers
        // hashed its names again at each step.
        if memo.capacity() == 0 {
            memo.reserve(MEMO_FIRST);
        }
        if memo.insert(key.into(), s.clone()).is_none() {
            len.set(len.get() + 1);
        }
    });
    s
}

thread_local! {
    /// How many answers this thread's [`Names::memo`]s hold together.
    static MEMO_LEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Answers an endpoint's [`Names::memo`] has room for at its first.
const MEMO_FIRST: usize = 16;

/// Most suggestions a thread remembers; past it the memos start again (each entry holds a
/// few short names: ~200 bytes).
const MEMO_MAX: usize = 16_384;

/// Wrong name → [`suggest`]'s answer, hashed with [`crate::index::table::hash`] (SipHash of
/// the name was most of a look-up).
type Answers = std::collections::HashMap<
    Box<str>,
    std::rc::Rc<Suggestions>,
    std::hash::BuildHasherDefault<NameHasher>,
>;

/// [`Answers`]' hasher (and `choices`' memo's): the names written, each hashed eight bytes at a
/// time.
#[derive(Default)]
pub(super) struct NameHasher(u64);

impl std::hash::Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = (self.0.rotate_left(5) ^ crate::index::table::hash(bytes))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    /// The end mark `str` writes after its bytes: mixed in, not hashed as a slice of its own.
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// [`suggest`] computed.
#[cfg(test)]
fn compute(view: &View, key: &str) -> Suggestions {
    compute_in(view, &names_of(view), key)
}

/// [`compute`] with the endpoint's [`Names`] at hand.
fn compute_in(view: &View, names: &Names, key: &str) -> Suggestions {
    compute_parsed(view, names, key, &Key::parse(key), false)
}

/// [`compute_in`] with `key` parsed as `k` ([`Key::parse`]); `absent`: `key` is known to be
/// no parameter of `view` (its probe is skipped; the answer is the same).
fn compute_parsed(view: &View, names: &Names, key: &str, k: &Key, absent: bool) -> Suggestions {
    match k.lookup() {
        // `vlan_group_id__n` → suggest for the base, keep the lookup when the result has it.
        Some(lookup) if NETBOX_LOOKUPS.contains(&lookup) => {
            // A renamed or borrowed name keeps its lookup: `prefix_length__gte` → `mask_length__gte`.
            if let Some(mut s) = table(view, k.base()) {
                let with = joined(&s.names[0], lookup);
                if view.has(&with) {
                    s.names = vec![with];
                    return s;
                }
            }
            if let Some(base) = structural(view, k.base()) {
                let with = joined(&base, lookup);
                if view.has(&with) {
                    return Suggestions::one(with);
                }
            }
        }
        None if k.parts.len() == 1 => {
            if let Some(s) = table(view, key) {
                return s;
            }
            if let Some(name) = structural_of(view, key, absent) {
                return Suggestions::one(name);
            }
        }
        _ => {}
    }
    let (similar, clear) = similar_in(view, names, key, k.lookup());
    if !similar.is_empty() {
        return Suggestions {
            certain: clear,
            names: similar,
            relation_hint: Vec::new(),
            note: String::new(),
        };
    }
    Suggestions {
        names: Vec::new(),
        certain: false,
        relation_hint: names.hint(view).to_vec(),
        note: String::new(),
    }
}

/// `<base>__<lookup>` in one allocation (a `format!` cost ~500 instructions).
fn joined(base: &str, lookup: &str) -> String {
    let mut with = String::with_capacity(base.len() + 2 + lookup.len());
    with.push_str(base);
    with.push_str("__");
    with.push_str(lookup);
    with
}

/// Step 0: a rename of this endpoint's filter in a NetBox release, or a concept alias.
fn table(view: &View, name: &str) -> Option<Suggestions> {
    if let Some((_, _, new, release, source)) = super::renames::rename(view.key, name) {
        if view.has(new) {
            let mut s = Suggestions::one(new.to_string());
            s.note = format!(" (`{name}` was renamed `{new}` in NetBox {release}, {source})");
            return Some(s);
        }
    }
    if let Some((_, _, filter, meaning)) = super::renames::concept(view.key, name) {
        if view.has(filter) {
            let mut s = Suggestions::one(filter.to_string());
            s.note = format!(" (`{filter}` is {meaning} on {})", view.path());
            return Some(s);
        }
    }
    None
}

/// Steps 1–3 for a name without lookup.
fn structural(view: &View, name: &str) -> Option<String> {
    structural_of(view, name, false)
}

/// [`structural`]; `absent`: `name` is known to be no parameter of `view` (not probed).
fn structural_of(view: &View, name: &str, absent: bool) -> Option<String> {
    if !absent && view.has(name) {
        return Some(name.to_string());
    }
    // 1. aliases
    if super::renames::may_be(&ALIASED, name) {
        for (old, news) in ALIASES {
            if *old == name {
                if let Some(n) = news.iter().find(|n| view.has(n)) {
                    return Some(n.to_string());
                }
            }
        }
    }
    // 2. longest real relation filter the key ends with, at a `_` boundary. Only relations:
    //    `circuit_type_id` → `type_id` keeps the relation, `device_type` → the port `type`
    //    choice filter would change what is asked.
    //    The candidates are the tails of `name` after a `_` (longest first), each one hash
    //    probe: scanning the endpoint's names for suffixes cost ~20,000 instructions a key.
    let bytes = name.as_bytes();
    let best = (1..bytes.len().saturating_sub(2))
        .filter(|&i| bytes[i] == b'_')
        .map(|i| (&name[i + 1..], &name[..i]))
        .find(|(p, prefix)| {
            *p != "id"
                && !has_dunder(p)
                && view.has(p)
                && !logical_prefix(prefix)
                && !is_exempt(p)
                && view.is_relation(p)
        })
        .map(|(p, _)| p);
    if let Some(p) = best {
        return Some(p.to_string());
    }
    // 3. `_id` ↔ bare
    if let Some(bare) = name.strip_suffix("_id") {
        if view.has(bare) {
            return Some(bare.to_string());
        }
    } else {
        // `<name>_id` probed from a buffer on the stack (allocated only when it is a filter).
        let mut buf = [0u8; 64];
        let id = match buf.get_mut(..name.len() + 3) {
            Some(room) => {
                room[..name.len()].copy_from_slice(name.as_bytes());
                room[name.len()..].copy_from_slice(b"_id");
                std::str::from_utf8(room).ok()
            }
            None => None,
        };
        match id {
            Some(id) => {
                if view.has(id) {
                    return Some(id.to_string());
                }
            }
            None => {
                let id = joined_id(name);
                if view.has(&id) {
                    return Some(id);
                }
            }
        }
    }
    None
}

/// `<name>_id` in one allocation.
fn joined_id(name: &str) -> String {
    let mut id = String::with_capacity(name.len() + 3);
    id.push_str(name);
    id.push_str("_id");
    id
}

/// True for a prefix that says how values combine or negate (`or_tag`, `not_site_id`,
/// `exclude_status`, as other client libraries write them): dropping it would change what is
/// asked (`or_tag` → `tag` turns an OR into NetBox's AND of tags), so it is no suffix match.
fn logical_prefix(prefix: &str) -> bool {
    matches!(
        prefix.trim_end_matches('_'),
        "or" | "and"
            | "not"
            | "no"
            | "non"
            | "any"
            | "all"
            | "exclude"
            | "excluded"
            | "except"
            | "without"
            | "neg"
            | "negate"
    )
}

/// `strsim::jaro_winkler(a, b)`, the same number, computed on bytes when both are ASCII
/// (parameter names are): without strsim's per-call allocation and char decoding, and skipped
/// (0.0) when the lengths alone keep the score below [`similar`]'s 0.88 threshold. The
/// suggestion step scores every parameter of an endpoint for each unknown name (a third of a
/// check of 10,000 calls went to strsim).
#[cfg(test)]
fn jaro_winkler(a: &str, b: &str) -> f64 {
    jaro_winkler_from(a, b, 0.87)
}

/// [`jaro_winkler`] with another floor: strsim's number wherever it is `floor` or more; below
/// `floor` possibly 0.0 (skipped by the lengths alone). ASCII bytes, no allocation. Every
/// "did you mean" of the REST rules that keeps the names scoring at least a threshold scores
/// with this, `floor` just under the threshold (object types, endpoints, response fields,
/// custom fields, detail parameters): the kept names and their order are strsim's.
pub(super) fn jaro_winkler_from(a: &str, b: &str, floor: f64) -> f64 {
    if !a.is_ascii() || !b.is_ascii() {
        return strsim::jaro_winkler(a, b);
    }
    jaro_winkler_bytes(a.as_bytes(), b.as_bytes(), floor)
}

/// [`jaro_winkler_from`] on ASCII bytes.
pub(super) fn jaro_winkler_bytes(a: &[u8], b: &[u8], floor: f64) -> f64 {
    match jaro_winkler_bound(a, b, floor) {
        Some(score) => score,
        None if b.len() <= 64 && a.is_ascii() && b.is_ascii() => jaro_winkler_bits(a, b),
        None => jaro_winkler_table(a, b),
    }
}

/// [`jaro_winkler_bytes`] with [`jaro_winkler_bits_in`]'s table of positions given (all zero,
/// left so), for a scan that scores many names.
fn jaro_winkler_bytes_in(a: &[u8], b: &[u8], floor: f64, at: &mut [u64; 128]) -> f64 {
    match jaro_winkler_bound(a, b, floor) {
        Some(score) => score,
        None if b.len() <= 64 && a.is_ascii() && b.is_ascii() => jaro_winkler_bits_in(a, b, at),
        None => jaro_winkler_table(a, b),
    }
}

/// [`jaro_winkler_bytes`]' answers that need no matching: empty strings, a pair whose lengths
/// keep it under `floor` (0.0), and strsim's own score past 128 bytes; `None` otherwise.
fn jaro_winkler_bound(a: &[u8], b: &[u8], floor: f64) -> Option<f64> {
    let (la, lb) = (a.len(), b.len());
    if la == 0 || lb == 0 {
        return Some(if la == lb { 1.0 } else { 0.0 });
    }
    // At most min(la, lb) matches: Jaro ≤ (m/la + m/lb + 1) / 3, Winkler adds ≤ 0.4 (1 − Jaro).
    let m = la.min(lb) as f64;
    let jaro_max = (m / la as f64 + m / lb as f64 + 1.0) / 3.0;
    if jaro_max + 0.4 * (1.0 - jaro_max) < floor {
        return Some(0.0);
    }
    if la > 128 || lb > 128 {
        return Some(strsim::jaro_winkler(
            std::str::from_utf8(a).unwrap_or(""),
            std::str::from_utf8(b).unwrap_or(""),
        ));
    }
    None
}

/// [`jaro_winkler_bytes`]' score by the flag tables (strsim's loops on bytes): for `b` over 64
/// bytes, and the oracle of [`jaro_winkler_bits`] in the tests. Both at most 128 bytes, not
/// empty.
fn jaro_winkler_table(a: &[u8], b: &[u8]) -> f64 {
    let (la, lb) = (a.len(), b.len());
    let range = (la.max(lb) / 2).saturating_sub(1);
    let mut a_flags = [false; 128];
    let mut b_flags = [false; 128];
    let mut matches = 0usize;
    for (i, &ca) in a.iter().enumerate() {
        let lo = i.saturating_sub(range);
        let hi = lb.min(i + range + 1);
        for j in lo..hi {
            if !b_flags[j] && b[j] == ca {
                a_flags[i] = true;
                b_flags[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let mut transpositions = 0usize;
    let mut k = 0;
    for i in 0..la {
        if a_flags[i] {
            while !b_flags[k] {
                k += 1;
            }
            if a[i] != b[k] {
                transpositions += 1;
            }
            k += 1;
        }
    }
    winkler(a, b, matches, transpositions)
}

/// [`jaro_winkler_table`] with the positions of `b` as bits (as rapidfuzz scores Jaro): each
/// byte of `a` takes the first free position of its byte in `b` inside the window with one mask
/// and a count of trailing zeros, where the table scanned the window byte by byte. The same
/// greedy matches in the same order, so the same matches, transpositions and float
/// expressions: the same number. `a` ASCII and at most 128 bytes, `b` ASCII and at most 64,
/// neither empty.
fn jaro_winkler_bits(a: &[u8], b: &[u8]) -> f64 {
    jaro_winkler_bits_in(a, b, &mut [0; 128])
}

/// [`jaro_winkler_bits`] with the table of positions of each byte given: all zero on entry, and
/// left all zero (filling 1 KB of zeros for each name scored was a tenth of its score).
fn jaro_winkler_bits_in(a: &[u8], b: &[u8], at: &mut [u64; 128]) -> f64 {
    let (la, lb) = (a.len(), b.len());
    let range = (la.max(lb) / 2).saturating_sub(1);
    for (j, &c) in b.iter().enumerate() {
        at[usize::from(c & 0x7f)] |= 1 << j;
    }
    let mut taken = 0u64;
    // The bytes of `a` matched, in `a`'s order.
    let mut matched = [0u8; 128];
    let mut matches = 0usize;
    // Positions `i − range ..= i + range` of the window of `a[i]`, moved along with `i` (bits
    // past `b`'s end or past 63 are never positions of a byte of `b`). `range` ≤ 63.
    let mut window = if range >= 63 {
        u64::MAX
    } else {
        (1u64 << (range + 1)) - 1
    };
    for (i, &ca) in a.iter().enumerate() {
        let free = at[usize::from(ca & 0x7f)] & !taken & window;
        if free != 0 {
            taken |= free & free.wrapping_neg();
            matched[matches & 0x7f] = ca;
            matches += 1;
        }
        window = if i + 1 > range {
            window << 1
        } else {
            (window << 1) | 1
        };
    }
    for &c in b {
        at[usize::from(c & 0x7f)] = 0;
    }
    if matches == 0 {
        return 0.0;
    }
    let mut transpositions = 0usize;
    let mut left = taken;
    for &ca in &matched[..matches] {
        let j = left.trailing_zeros() as usize;
        left &= left.wrapping_sub(1);
        if b.get(j) != Some(&ca) {
            transpositions += 1;
        }
    }
    winkler(a, b, matches, transpositions)
}

/// Jaro-Winkler from the matches and the transpositions counted (before halving), as strsim
/// computes it.
fn winkler(a: &[u8], b: &[u8], matches: usize, transpositions: usize) -> f64 {
    let (la, lb) = (a.len(), b.len());
    let transpositions = transpositions / 2;
    let m = matches as f64;
    let sim = (m / la as f64 + m / lb as f64 + (matches - transpositions) as f64 / m) / 3.0;
    if sim > 0.7 {
        let prefix = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
        sim + 0.1 * prefix as f64 * (1.0 - sim)
    } else {
        sim
    }
}

/// Step 4: Jaro-Winkler over the endpoint's parameters of the same shape (with or without a
/// lookup), above 0.88. One clear winner (edit distance ≤ 2, strictly nearer than the rest) is
/// certain; otherwise the nearest three.
#[cfg(test)]
fn similar(view: &View, key: &str, lookup: Option<&str>) -> (Vec<String>, bool) {
    similar_in(view, &names_of(view), key, lookup)
}

/// [`similar`] with the endpoint's [`Names`] at hand.
fn similar_in(view: &View, names: &Names, key: &str, lookup: Option<&str>) -> (Vec<String>, bool) {
    let null_like = matches!(lookup, Some("in" | "empty" | "isnull" | "null"));
    let has_lookup = has_dunder(key);
    // A lookup written is kept: `tag__any` must never become `tag__n` (OR into NOT).
    let wanted = match lookup {
        Some(l) if !null_like => Some(l),
        _ => None,
    };
    // A key without a lookup is scored against the names without one only (none holds `__`,
    // and no lookup is wanted or guarded); one with a wanted lookup against the names that end
    // with it. The order does not matter, the ranking below is total.
    let (text, pool) = if has_lookup {
        let dunder = names.dunder(view);
        let pool = match wanted.and_then(|l| dunder.with_tail(l)) {
            Some(sieve) => Pool::Sieve(sieve),
            None if wanted.is_some_and(|l| tail_key(l) != u64::MAX) => Pool::List(&[]),
            None => Pool::List(&dunder.all),
        };
        (dunder.text.as_str(), pool)
    } else {
        let bare = names.bare(view);
        (bare.text.as_str(), Pool::Sieve(&bare.sieve))
    };
    let guard = Guard {
        wanted,
        has_lookup,
        null_like,
    };
    // Most keys score a name or two: kept inline (a vector's first push was ~130 instructions).
    let mut scored: Scored = SmallVec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has `popcnt`, checked just above.
            unsafe { score_popcnt(key, text, pool, guard, &mut scored) };
        } else {
            score_into(key, text, pool, guard, &mut scored);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    score_into(key, text, pool, guard, &mut scored);
    rank(key, &scored)
}

/// The names [`score_into`] kept, with their scores.
type Scored<'t> = SmallVec<[(f64, &'t str); 4]>;

/// The names scored (name, Jaro-Winkler) ranked: nearest by edit distance first, then by
/// Jaro-Winkler, then by name; the clear winner alone (edit distance ≤ 2, strictly nearer than
/// the rest), else the first three.
fn rank(key: &str, scored: &[(f64, &str)]) -> (Vec<String>, bool) {
    // One name one edit away and every other two or more: that name is the clear winner,
    // whatever the others' distances (the table for each was most of a ranking).
    let mut one = None;
    let mut decided = true;
    for (_, p) in scored {
        match crate::distance::within_one(key, p) {
            Some(true) if one.is_none() => one = Some(*p),
            Some(false) => {}
            _ => {
                decided = false;
                break;
            }
        }
    }
    if let (true, Some(p)) = (decided, one) {
        return (vec![p.to_string()], true);
    }
    let mut ranked: Vec<(usize, f64, &str)> = scored
        .iter()
        .map(|&(s, p)| (crate::distance::damerau_levenshtein(key, p), s, p))
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(b.2)));
    let clear =
        ranked.first().is_some_and(|b| b.0 <= 2) && ranked.get(1).is_none_or(|s| s.0 > ranked[0].0);
    if clear {
        ranked.truncate(1);
    }
    let names = ranked
        .into_iter()
        .take(3)
        .map(|(_, _, p)| p.to_string())
        .collect();
    (names, clear)
}

/// What [`similar_in`] asks of a name besides its score: the lookup written (kept), whether
/// the key has one, and whether it is a null-like lookup (never answered with `__n`).
#[derive(Clone, Copy)]
struct Guard<'k> {
    wanted: Option<&'k str>,
    has_lookup: bool,
    null_like: bool,
}

impl Guard<'_> {
    /// True when `p` may answer: it ends with `__<wanted>` (without building that string), and
    /// is no `__n` filter for a null-like lookup.
    fn keeps(&self, p: &str) -> bool {
        self.wanted
            .is_none_or(|l| p.ends_with(l) && p[..p.len() - l.len()].ends_with("__"))
            && !(self.has_lookup && self.null_like && p.ends_with("__n"))
    }
}

/// The names [`similar_in`] visits for a key: a [`Sieve`] (the names of one shape, indexed),
/// or a plain list of entries (the names with `__` for a key whose lookup has no run of its
/// own; each one bounded).
#[derive(Clone, Copy)]
enum Pool<'s> {
    Sieve(&'s Sieve),
    List(&'s [Entry]),
}

/// [`score_into`] compiled with the `popcnt` instruction: the byte-class bound counts bits of
/// every name visited, and the baseline x86-64 target counts them with ~18 instructions of
/// shifts and masks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn score_popcnt<'t>(key: &str, text: &'t str, pool: Pool, guard: Guard, scored: &mut Scored<'t>) {
    score_into(key, text, pool, guard, scored);
}

/// Pushes onto `scored` each name of `pool` (in `text`) that [`similar_in`] keeps with its
/// Jaro-Winkler score: 0.88 or more, [`Guard::keeps`] it. Only the names [`Probe::may_score`]
/// keeps are scored, and of a [`Sieve`] only those whose length and first byte let it keep
/// them are visited (test `the_sieve_answers_as_the_scan`); a key the probe does not cover
/// (not ASCII, over 255 bytes) scores every name.
#[inline(always)]
fn score_into<'t>(key: &str, text: &'t str, pool: Pool, guard: Guard, scored: &mut Scored<'t>) {
    let mut at = [0u64; 128];
    let ascii = key.is_ascii();
    let mut score = |e: &Entry| {
        let p = &text[e.start as usize..(e.start + e.len) as usize];
        if !guard.keeps(p) {
            return;
        }
        // `jaro_winkler(key, p)`, with one table of positions for the whole scan.
        let s = if ascii && e.plain {
            jaro_winkler_bytes_in(key.as_bytes(), p.as_bytes(), 0.87, &mut at)
        } else {
            strsim::jaro_winkler(key, p)
        };
        if s >= 0.88 {
            scored.push((s, p));
        }
    };
    let Some(probe) = Probe::new(key) else {
        match pool {
            Pool::Sieve(s) => s.by_len.iter().chain(&s.odd).for_each(score),
            Pool::List(list) => list.iter().for_each(score),
        }
        return;
    };
    match pool {
        Pool::List(list) => {
            for e in list {
                if !e.plain || probe.may_score(e, probe.prefix(e)) {
                    score(e);
                }
            }
        }
        Pool::Sieve(s) => {
            // Names of another first byte share no prefix with the key: only those of the
            // lengths the bound without Winkler's bonus lets through.
            let first = probe.first();
            let (lo, hi) = probe.window(0);
            let from = s.by_len.partition_point(|e| (e.len as usize) < lo);
            for e in &s.by_len[from..] {
                if e.len as usize > hi {
                    break;
                }
                if e.first() != first && probe.may_score(e, 0) {
                    score(e);
                }
            }
            // Names of the key's first byte, each with its prefix.
            for &i in s.run(first) {
                let e = &s.by_len[i as usize];
                if probe.may_score(e, probe.prefix(e)) {
                    score(e);
                }
            }
            s.odd.iter().for_each(score);
        }
    }
}

/// The least `100·m·(la + lb) / (la·lb)` (rounded down a little) a name sharing `p` leading
/// bytes with the key (Winkler's prefix, at most 4) needs for 0.88: Jaro ≤ (m/la + m/lb + 1)/3
/// for `m` matches, and Jaro-Winkler = J + 0.1·p·(1 − J) ≥ 0.88 needs J ≥ t =
/// (0.88 − 0.1·p)/(1 − 0.1·p), so `m·(1/la + 1/lb) ≥ 3t − 1`: 1.64, 1.60, 1.55, 1.4857, 1.40.
const LEAST: [usize; 5] = [163, 159, 154, 148, 139];

/// An ASCII key (at most 255 bytes) as [`score_into`] bounds names with: its length, its first
/// four bytes and its byte classes ([`byte_classes_twice`]).
struct Probe {
    la: usize,
    head: u32,
    km: u64,
    k2: u64,
}

impl Probe {
    /// `None` for a key the bound does not cover: empty (every name scores 0 against it), not
    /// ASCII, or over 255 bytes.
    fn new(key: &str) -> Option<Probe> {
        let b = key.as_bytes();
        if b.is_empty() || b.len() > usize::from(u8::MAX) || !key.is_ascii() {
            return None;
        }
        let (km, k2) = byte_classes_twice(b);
        Some(Probe {
            la: b.len(),
            head: head_of(b),
            km,
            k2,
        })
    }

    /// The key's first byte.
    fn first(&self) -> u8 {
        self.head as u8
    }

    /// The common prefix of the key and `e` (at most 4 bytes), as Winkler counts it.
    fn prefix(&self, e: &Entry) -> usize {
        let same = ((self.head ^ e.head).trailing_zeros() / 8) as usize;
        same.min(self.la).min(e.len as usize)
    }

    /// The name lengths `lo..=hi` that [`Probe::may_score`] can keep with prefix `p`, by the
    /// lengths alone (`m ≤ min(la, lb)`): `lb ≥ (c − 100)·la/100` and `lb ≤ 100·la/(c − 100)`.
    fn window(&self, p: usize) -> (usize, usize) {
        let c = LEAST[p] - 100;
        ((c * self.la).div_ceil(100), 100 * self.la / c)
    }

    /// False when the name `e` (ASCII), sharing `p` leading bytes with the key, surely scores
    /// below 0.88 against it, from the lengths and byte classes alone. Each class the name has
    /// and the key lacks is at least one byte of the name no byte of the key matches (and the
    /// other way round), as is each class of two or more bytes in one and fewer in the other:
    /// the matches `m ≤ min(la − only_key, lb − only_name)`; then [`LEAST`].
    #[inline(always)]
    fn may_score(&self, e: &Entry, p: usize) -> bool {
        let (km, k2) = (self.km, self.k2);
        let (la, lb) = (self.la, e.len as usize);
        let least = LEAST[p] * la * lb;
        // The name's side first: most names are dropped by it alone.
        let only_name = ((e.mask & !km).count_ones() + (e.twice & !k2).count_ones()) as usize;
        let m = lb.saturating_sub(only_name);
        if 100 * m * (la + lb) < least {
            return false;
        }
        let only_key = ((km & !e.mask).count_ones() + (k2 & !e.twice).count_ones()) as usize;
        100 * m.min(la.saturating_sub(only_key)) * (la + lb) >= least
    }
}

/// The first four bytes of `s` as a little-endian number, zero past its end.
fn head_of(s: &[u8]) -> u32 {
    s.iter()
        .take(4)
        .enumerate()
        .fold(0, |h, (i, &c)| h | u32::from(c) << (8 * i))
}

/// The set of byte classes of `s` as a mask ([`CLASS`]), and the classes that occur two or
/// more times in it.
fn byte_classes_twice(s: &[u8]) -> (u64, u64) {
    s.iter().fold((0, 0), |(once, twice), &c| {
        let bit = CLASS[usize::from(c)];
        (once | bit, twice | (once & bit))
    })
}

/// The bit of each byte's class: one for each lower-case letter, digit, upper-case letter,
/// `_` and `-`, one for every other byte. Bytes of two strings in different classes never
/// match.
const CLASS: [u64; 256] = {
    let mut t = [1u64 << 63; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = match b {
            b'a'..=b'z' => 1 << (b - b'a'),
            b'0'..=b'9' => 1 << (26 + b - b'0'),
            b'_' => 1 << 36,
            b'-' => 1 << 37,
            // 'Z' shares the last bit with the other bytes (fewer bits only weaken the bound).
            b'A'..=b'Z' => 1 << (38 + b - b'A'),
            _ => 1 << 63,
        };
        c += 1;
    }
    t
};

/// One name [`similar_in`] may score: where it is in its text, its length in bytes, its first
/// bytes ([`head_of`]) and its byte classes.
#[derive(Clone, Copy)]
struct Entry {
    start: u32,
    len: u32,
    head: u32,
    /// ASCII (the bound covers it; a non-ASCII name is scored in characters, unbounded).
    plain: bool,
    mask: u64,
    /// The classes of `mask` that occur two or more times in the name.
    twice: u64,
}

impl Entry {
    /// `p` appended to `text`, as an entry; `None` past 4 GB of text.
    fn push(text: &mut String, p: &str) -> Option<Entry> {
        // One pass over the bytes for the classes and whether they are ASCII.
        let (mut mask, mut twice, mut high) = (0u64, 0u64, 0u8);
        for &c in p.as_bytes() {
            let bit = CLASS[usize::from(c)];
            twice |= mask & bit;
            mask |= bit;
            high |= c;
        }
        let e = Entry {
            start: u32::try_from(text.len()).ok()?,
            len: u32::try_from(p.len()).ok()?,
            head: head_of(p.as_bytes()),
            plain: high < 0x80,
            mask,
            twice,
        };
        u32::try_from(text.len() + p.len()).ok()?;
        text.push_str(p);
        Some(e)
    }

    fn first(&self) -> u8 {
        self.head as u8
    }
}

/// Names of one shape indexed for [`score_into`], made once per endpoint: the ASCII names by
/// length, and by first byte. A key's names of another first byte share no prefix with it, and
/// without Winkler's bonus a name needs nearly the key's length (0.64 to 1.56 times it) and
/// bytes: only that range of lengths is visited, and the key's first byte's names (a few) each
/// with its prefix. Scanning all the names of an endpoint (~46 a key) cost ~5,300
/// instructions a key.
#[derive(Default)]
struct Sieve {
    /// The ASCII names, shortest first.
    by_len: Vec<Entry>,
    /// Positions in `by_len`, by the name's first byte (then length).
    by_first: Vec<u32>,
    /// The names that are not ASCII (always scored).
    odd: Vec<Entry>,
}

impl Sieve {
    fn of(entries: impl Iterator<Item = Entry>) -> Sieve {
        let mut s = Sieve::default();
        for e in entries {
            if e.plain {
                s.by_len.push(e);
            } else {
                s.odd.push(e);
            }
        }
        // Any order among names of one length (or first byte): the ranking is total.
        // Counting sorts: the keys are small numbers (a comparison sort of each endpoint's
        // names was ~4,000 instructions a sieve).
        s.by_len = match counting_order(&s.by_len, |e| e.len as usize) {
            Some(order) => order.iter().map(|&i| s.by_len[i as usize]).collect(),
            None => {
                let mut v = std::mem::take(&mut s.by_len);
                v.sort_unstable_by_key(|e| e.len);
                v
            }
        };
        let by_len = &s.by_len;
        s.by_first = match counting_order(by_len, |e| usize::from(e.first())) {
            Some(order) => order,
            None => {
                let mut by_first: Vec<u32> = (0..by_len.len() as u32).collect();
                by_first.sort_unstable_by_key(|&i| by_len[i as usize].first());
                by_first
            }
        };
        s
    }

    /// The positions of the names whose first byte is `first`.
    fn run(&self, first: u8) -> &[u32] {
        let first_of = |i: &u32| self.by_len[*i as usize].first();
        let lo = self.by_first.partition_point(|i| first_of(i) < first);
        let hi = lo + self.by_first[lo..].partition_point(|i| first_of(i) == first);
        &self.by_first[lo..hi]
    }
}

/// The positions of `items` ordered by `key` (ascending; equal keys in their order): a
/// counting sort over the keys' range. `None` when the range is over 256 keys wide or there
/// are 2^32 items or more (the caller sorts by comparison).
fn counting_order<T>(items: &[T], key: impl Fn(&T) -> usize) -> Option<Vec<u32>> {
    u32::try_from(items.len()).ok()?;
    let lo = items.iter().map(&key).min()?;
    let hi = items.iter().map(&key).max()?;
    if hi - lo >= 256 {
        return None;
    }
    // `count[k + 1]`: how many keys are `lo + k`; then where each key's run starts.
    let mut count = [0u32; 257];
    for it in items {
        count[key(it) - lo + 1] += 1;
    }
    for k in 0..=hi - lo {
        count[k + 1] += count[k];
    }
    let mut order = vec![0u32; items.len()];
    for (i, it) in items.iter().enumerate() {
        let at = &mut count[key(it) - lo];
        order[*at as usize] = i as u32;
        *at += 1;
    }
    Some(order)
}

/// An endpoint's parameter names as [`similar`] scans them, made once per endpoint (remembered
/// per thread for the shipped indexes, [`names_of`]): the names that are not exempt
/// ([`is_exempt`]), split into those without `__` and those with it, the latter grouped by
/// their tail after the last `__` (the lookup), each group a [`Sieve`]. The names with `__`
/// and the relation hint of the last step are made on first use.
struct Names {
    /// The release and endpoint key this was made for (a remembered copy is checked against
    /// them).
    release: Box<str>,
    endpoint: Box<str>,
    /// True for a shipped index's endpoint (remembered, and its answers with it).
    shipped: bool,
    /// [`suggest`]'s answers on this endpoint (kept only when `shipped`).
    memo: std::cell::RefCell<Answers>,
    /// Names without `__` (made on first use).
    bare: std::cell::OnceCell<Bare>,
    /// Names with `__`, by tail ([`Dunder::with_tail`]).
    dunder: std::cell::OnceCell<Dunder>,
    /// [`View::relation_id_filters`], the first eight.
    hint: std::cell::OnceCell<Vec<String>>,
    /// The endpoint's rows of the table of differences between releases (made on first use;
    /// `None`: no table for this index).
    rows: std::cell::OnceCell<Option<super::versions::EndpointRows>>,
}

/// The names without `__`: their text and their [`Sieve`].
struct Bare {
    text: String,
    sieve: Sieve,
}

/// The names with `__`: their text, all of them, and a [`Sieve`] for each tail with a
/// [`tail_key`], sorted by that key.
struct Dunder {
    text: String,
    all: Vec<Entry>,
    tails: Vec<(u64, Sieve)>,
}

/// A tail of up to 7 bytes without `_` as a number (its bytes, then its length): equal
/// numbers are equal tails. `u64::MAX` for any other tail (never asked for by
/// [`Dunder::with_tail`]).
fn tail_key(tail: &str) -> u64 {
    let b = tail.as_bytes();
    if b.len() > 7 || b.contains(&b'_') {
        return u64::MAX;
    }
    b.iter().fold(0u64, |k, &c| (k << 8) | u64::from(c)) << 8 | b.len() as u64
}

/// Where `p`'s tail after its last `__` starts, if it has `__` (a byte scan).
fn tail_start(p: &str) -> Option<usize> {
    let b = p.as_bytes();
    (1..b.len())
        .rev()
        .find(|&i| b[i] == b'_' && b[i - 1] == b'_')
        .map(|i| i + 1)
}

impl Names {
    fn of(view: &View, shipped: bool) -> Names {
        Names {
            release: view.index.netbox_version.as_str().into(),
            endpoint: view.key.into(),
            shipped,
            memo: std::cell::RefCell::default(),
            bare: std::cell::OnceCell::new(),
            dunder: std::cell::OnceCell::new(),
            hint: std::cell::OnceCell::new(),
            rows: std::cell::OnceCell::new(),
        }
    }

    /// The names without `__` (made on first use).
    fn bare(&self, view: &View) -> &Bare {
        self.bare.get_or_init(|| {
            let mut text = String::with_capacity(1024);
            let mut entries = Vec::with_capacity(64);
            for p in view.ep.params.bare_keys() {
                if is_exempt(p) {
                    continue;
                }
                match Entry::push(&mut text, p) {
                    Some(e) => entries.push(e),
                    None => break,
                }
            }
            let sieve = Sieve::of(entries.into_iter());
            Bare { text, sieve }
        })
    }

    /// The names with `__` (made on first use).
    fn dunder(&self, view: &View) -> &Dunder {
        self.dunder.get_or_init(|| {
            let mut text = String::new();
            let mut keyed: Vec<(u64, Entry)> = Vec::new();
            for p in view.ep.params.keys() {
                let Some(at) = tail_start(p) else {
                    continue;
                };
                if is_exempt(p) {
                    continue;
                }
                match Entry::push(&mut text, p) {
                    Some(e) => keyed.push((tail_key(&p[at..]), e)),
                    None => break,
                }
            }
            keyed.sort_by_key(|(k, _)| *k);
            let mut tails: Vec<(u64, Sieve)> = Vec::new();
            for run in keyed.chunk_by(|a, b| a.0 == b.0) {
                if run[0].0 != u64::MAX {
                    tails.push((run[0].0, Sieve::of(run.iter().map(|(_, e)| *e))));
                }
            }
            let all = keyed.into_iter().map(|(_, e)| e).collect();
            Dunder { text, all, tails }
        })
    }

    /// The relation hint of the last step (made on first use).
    fn hint(&self, view: &View) -> &[String] {
        self.hint.get_or_init(|| {
            let mut hint: Vec<String> = view
                .relation_id_filters()
                .into_iter()
                .map(String::from)
                .collect();
            hint.truncate(8);
            hint
        })
    }
}

impl Dunder {
    /// The names ending with `__<tail>` as a [`Sieve`]; `None` when `tail` has no
    /// [`tail_key`] of its own (the caller scans them all) or no name has it.
    fn with_tail(&self, tail: &str) -> Option<&Sieve> {
        let key = tail_key(tail);
        if key == u64::MAX {
            return None;
        }
        self.tails
            .binary_search_by_key(&key, |(k, _)| *k)
            .ok()
            .map(|i| &self.tails[i].1)
    }
}

/// [`super::versions::with_filter`]`(view.index, None, view.key, name)`: for a shipped index
/// from the endpoint's rows of the table of differences, read once per thread
/// ([`super::versions::endpoint_rows`]).
/// `absent`: `name` is known to be no parameter of `view` (not probed again).
fn versions_with_filter_in(view: &View, names: &Names, name: &str, absent: bool) -> Vec<String> {
    if names.shipped {
        let rows = names
            .rows
            .get_or_init(|| super::versions::endpoint_rows(view.index, view.key));
        if let Some(found) = rows
            .as_ref()
            .and_then(|rows| rows.with_filter_if(view.index, name, || !absent && view.has(name)))
        {
            return found;
        }
    }
    super::versions::with_filter(view.index, None, view.key, name)
}

/// One filter's questions to its endpoint's [`Names`] ([`suggest`],
/// [`versions_with_filter_in`]): [`names_of`] is asked at most once however many steps need
/// them (a misspelt name asked twice, ~250 instructions each).
pub(crate) struct Asked<'v> {
    view: &'v View<'v>,
    names: std::cell::OnceCell<std::rc::Rc<Names>>,
}

impl<'v> Asked<'v> {
    pub(crate) fn new(view: &'v View<'v>) -> Self {
        Asked {
            view,
            names: std::cell::OnceCell::new(),
        }
    }

    fn names(&self) -> &Names {
        self.names.get_or_init(|| names_of(self.view))
    }

    /// [`suggest`]`(view, key)`.
    pub(crate) fn suggest(&self, key: &str) -> std::rc::Rc<Suggestions> {
        suggest_in(self.view, self.names(), key)
    }

    /// [`suggest`]`(view, key)` for a `key` that is no parameter of the endpoint, parsed as
    /// `k` ([`Key::parse`]): the same answer, without parsing or probing `key` again.
    pub(crate) fn suggest_absent(&self, key: &str, k: &Key) -> std::rc::Rc<Suggestions> {
        suggest_known(self.view, self.names(), key, Some((k, true)))
    }

    /// [`super::versions::with_filter`]`(view.index, None, view.key, name)`
    /// ([`versions_with_filter_in`]) for a `name` that is no parameter of the endpoint (the
    /// endpoint is not probed for it).
    pub(crate) fn versions_without_filter(&self, name: &str) -> Vec<String> {
        versions_with_filter_in(self.view, self.names(), name, true)
    }
}

thread_local! {
    /// [`Names`] of the shipped indexes' endpoints, by the endpoint's address (checked against
    /// the release and endpoint key: a shipped release's endpoint is the same data wherever it
    /// is decoded).
    static NAMES: std::cell::RefCell<AddressMap<std::rc::Rc<Names>>> =
        std::cell::RefCell::default();
}

/// A map keyed by an address, hashed with one multiplication (SipHash of the address was most
/// of a look-up).
type AddressMap<V> =
    std::collections::HashMap<usize, V, std::hash::BuildHasherDefault<AddressHasher>>;

/// [`AddressMap`]'s hasher: the address times an odd constant (Fibonacci hashing), its high
/// half folded onto the low one (the table's position is read from the low bits, which alone
/// would repeat the address's alignment zeros).
#[derive(Default)]
struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        let h = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

/// Most endpoints a thread keeps [`Names`] of (each a few KB to ~30 KB); past it they are made
/// again.
const NAMES_MAX: usize = 512;

/// The [`Names`] of `view`'s endpoint: remembered for a shipped index, made each time for
/// another (its contents are not named by its release).
fn names_of(view: &View) -> std::rc::Rc<Names> {
    if !super::versions::is_shipped(view.index) {
        return std::rc::Rc::new(Names::of(view, false));
    }
    let addr = std::ptr::from_ref(view.ep) as usize;
    NAMES.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(n) = cache.get(&addr) {
            if *n.release == *view.index.netbox_version && *n.endpoint == *view.key {
                return n.clone();
            }
        }
        if cache.len() >= NAMES_MAX {
            cache.clear();
            MEMO_LEN.with(|len| len.set(0));
        }
        let n = std::rc::Rc::new(Names::of(view, true));
        if let Some(old) = cache.insert(addr, n.clone()) {
            // Another endpoint at this address: its answers go with it.
            MEMO_LEN.with(|len| len.set(len.get().saturating_sub(old.memo.borrow().len())));
        }
        n
    })
}

/// The similarity scan of s47 (before the names were indexed), kept as the oracle of the
/// [`Sieve`]s: every name of the shape, the byte-class bound counted twice (for 0.87, no
/// prefix), the byte-count bound [`Reach`], then the score.
#[cfg(test)]
mod oracle {
    use super::super::endpoint::View;
    use super::super::view_params::is_exempt;
    use super::{byte_classes_twice, jaro_winkler_bytes_in, tail_key, tail_start, Guard};

    /// The byte counts of an ASCII key, for [`may_reach`]; `None` for a non-ASCII key or one
    /// over 255 bytes (no prefilter then).
    pub(super) struct Bag(pub(super) [u8; 128]);

    impl Bag {
        pub(super) fn of(key: &str) -> Option<Bag> {
            if key.len() > usize::from(u8::MAX) {
                return None;
            }
            let mut counts = [0u8; 128];
            for &c in key.as_bytes() {
                *counts.get_mut(usize::from(c))? += 1;
            }
            Some(Bag(counts))
        }
    }

    /// False when `jaro_winkler(a, b)` is surely below 0.87 (shared bytes as multisets).
    pub(super) fn may_reach(a: &str, bag: Option<&Bag>, b: &str) -> bool {
        match bag {
            Some(bag) => Reach::new(a, bag).may_reach(b),
            None => true,
        }
    }

    /// [`may_reach`] for one key against many names, the bounds remembered per length.
    pub(super) struct Reach<'k> {
        key: &'k [u8],
        bag: &'k Bag,
        need: [[u16; REACH_LENGTHS]; 5],
    }

    const REACH_LENGTHS: usize = 64;

    impl<'k> Reach<'k> {
        pub(super) fn new(key: &'k str, bag: &'k Bag) -> Self {
            Reach {
                key: key.as_bytes(),
                bag,
                need: [[0; REACH_LENGTHS]; 5],
            }
        }

        fn need(&mut self, prefix: usize, lb: usize) -> usize {
            if lb < REACH_LENGTHS {
                let slot = &mut self.need[prefix][lb];
                if *slot == 0 {
                    *slot = u16::try_from(need(self.key.len(), prefix, lb)).unwrap_or(u16::MAX);
                }
                return usize::from(*slot);
            }
            need(self.key.len(), prefix, lb)
        }

        pub(super) fn may_reach(&mut self, b: &str) -> bool {
            let (a, b) = (self.key, b.as_bytes());
            let (la, lb) = (a.len(), b.len());
            if la == 0 || lb == 0 || !b.is_ascii() {
                return true;
            }
            let mut prefix = 0;
            while prefix < 4 && prefix < la && prefix < lb && a[prefix] == b[prefix] {
                prefix += 1;
            }
            let need = self.need(prefix, lb);
            if la.min(lb) < need {
                return false;
            }
            let mut left = self.bag.0;
            let mut m = 0usize;
            for (i, &c) in b.iter().enumerate() {
                if m + lb - i < need {
                    return false;
                }
                let n = &mut left[usize::from(c)];
                if *n > 0 {
                    *n -= 1;
                    m += 1;
                }
            }
            m >= need
        }
    }

    /// The least shared bytes for 0.87 with `prefix` common leading bytes.
    fn need(la: usize, prefix: usize, lb: usize) -> usize {
        let prefix = prefix as f64;
        let t = (0.87 - 0.1 * prefix) / (1.0 - 0.1 * prefix);
        ((3.0 * t - 1.0) / (1.0 / la as f64 + 1.0 / lb as f64) - 1e-6)
            .ceil()
            .max(1.0) as usize
    }

    /// The byte-class bound for 0.87 without prefix, each class counted twice.
    pub(super) fn shares_enough_twice(la: usize, km: u64, k2: u64, lb: usize, b: &str) -> bool {
        let (mask, twice) = byte_classes_twice(b.as_bytes());
        let only_key = ((km & !mask).count_ones() + (k2 & !twice).count_ones()) as usize;
        let only_name = ((mask & !km).count_ones() + (twice & !k2).count_ones()) as usize;
        let m = la
            .saturating_sub(only_key)
            .min(lb.saturating_sub(only_name));
        100 * m * (la + lb) >= 134 * la * lb
    }

    /// `similar` as s47 computed it: the candidates in parameter order, every one bounded.
    pub(super) fn similar(view: &View, key: &str, lookup: Option<&str>) -> (Vec<String>, bool) {
        let null_like = matches!(lookup, Some("in" | "empty" | "isnull" | "null"));
        let has_lookup = super::has_dunder(key);
        let wanted = match lookup {
            Some(l) if !null_like => Some(l),
            _ => None,
        };
        let cands: Vec<&str> = if has_lookup {
            view.ep
                .params
                .keys()
                .filter(|p| !is_exempt(p))
                .filter(|p| match (tail_start(p), wanted) {
                    (None, _) => false,
                    (Some(at), Some(l)) if tail_key(l) != u64::MAX => {
                        tail_key(&p[at..]) == tail_key(l)
                    }
                    _ => true,
                })
                .collect()
        } else {
            view.ep
                .params
                .bare_keys()
                .filter(|p| !is_exempt(p))
                .collect()
        };
        let guard = Guard {
            wanted,
            has_lookup,
            null_like,
        };
        let bag = Bag::of(key);
        let mut reach = bag.as_ref().map(|bag| Reach::new(key, bag));
        let key_mask = bag.as_ref().map(|_| byte_classes_twice(key.as_bytes()));
        let la = key.len();
        let mut at = [0u64; 128];
        let mut scored = Vec::new();
        for p in cands {
            if let Some((km, k2)) = key_mask {
                if p.is_ascii() && !shares_enough_twice(la, km, k2, p.len(), p) {
                    continue;
                }
            }
            if !guard.keeps(p) || !reach.as_mut().is_none_or(|r| r.may_reach(p)) {
                continue;
            }
            let s = if key.is_ascii() && p.is_ascii() {
                jaro_winkler_bytes_in(key.as_bytes(), p.as_bytes(), 0.87, &mut at)
            } else {
                strsim::jaro_winkler(key, p)
            };
            if s >= 0.88 {
                scored.push((s, p));
            }
        }
        super::rank(key, &scored)
    }
}

#[cfg(test)]
mod jaro_tests {
    /// The byte version gives strsim's number exactly wherever the score can reach 0.88.
    #[test]
    fn jaro_winkler_is_strsims() {
        let names = [
            "",
            "a",
            "id",
            "site",
            "site_id",
            "stie_id",
            "device_role_id",
            "role_id",
            "tenant",
            "tennat",
            "status",
            "stauts",
            "mac_address",
            "mac",
            "vlan_group_id",
            "group_id",
            "interface_id__n",
            "interface__n",
            "description__ic",
            "descrption__ic",
            "created_by_request",
            "é_site",
            "virtual_chassis_member",
            "x_x_x_x_x_x_x_x_x",
            "active",
            "actve",
            "planned",
            "decommissioning",
            "offline",
            "Active",
            "staged",
            "failed",
        ];
        for a in names {
            for b in names {
                assert_eq!(
                    crate::distance::damerau_levenshtein(a, b),
                    strsim::damerau_levenshtein(a, b),
                    "{a:?} {b:?}"
                );
                let want = strsim::jaro_winkler(a, b);
                let got = super::jaro_winkler(a, b);
                if want >= 0.87 {
                    assert_eq!(got, want, "{a:?} {b:?}");
                } else {
                    assert!(got < 0.88, "{a:?} {b:?}: {got}");
                }
                // The floor the choice suggestions use (0.8 there).
                let got = super::jaro_winkler_from(a, b, 0.79);
                if want >= 0.79 {
                    assert_eq!(got, want, "{a:?} {b:?}");
                } else {
                    assert!(got < 0.8, "{a:?} {b:?}: {got}");
                }
            }
        }
    }

    /// The set of alias names holds every old name of the table.
    #[test]
    fn alias_set_holds_its_names() {
        for (old, _) in super::ALIASES {
            assert!(super::super::renames::may_be(&super::ALIASED, old), "{old}");
        }
    }

    /// The score by position bits is the score by flag tables, to the bit: random ASCII pairs
    /// over small alphabets (many repeated bytes, long windows) and printable ones, names and
    /// their one-edit typos, both ways, up to 64 bytes for `b` and 128 for `a`.
    #[test]
    fn jaro_winkler_bits_is_the_tables() {
        use proptest::prelude::*;
        let same = |a: &str, b: &str| -> Result<(), TestCaseError> {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            if a.is_empty() || b.is_empty() || b.len() > 64 || a.len() > 128 {
                return Ok(());
            }
            let bits = super::jaro_winkler_bits(a, b);
            let table = super::jaro_winkler_table(a, b);
            prop_assert_eq!(bits.to_bits(), table.to_bits(), "{:?} {:?}", a, b);
            Ok(())
        };
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 6000,
            ..ProptestConfig::default()
        });
        runner
            .run(
                &(
                    "[a-c_]{0,20}",
                    "[a-c_]{0,70}",
                    "[ -~]{0,64}",
                    "[a-z_]{0,130}",
                ),
                |(a, b, c, d)| {
                    for (x, y) in [(&a, &b), (&b, &a), (&a, &c), (&c, &a), (&d, &c), (&c, &d)] {
                        same(x, y)?;
                    }
                    for at in 1..c.len() {
                        let mut t = c.clone().into_bytes();
                        t.swap(at - 1, at);
                        let t = String::from_utf8(t).unwrap();
                        same(&c, &t)?;
                    }
                    Ok(())
                },
            )
            .unwrap();
        let index = crate::index::embedded::embedded_index("4.6.8");
        let names: Vec<&str> = index.endpoints["dcim/interfaces"].params.keys().collect();
        for k in names.iter().step_by(3) {
            let mut keys = vec![k.to_string()];
            for at in 1..k.len().saturating_sub(1) {
                keys.push(format!("{}{}", &k[..at], &k[at + 1..]));
                keys.push(format!("{}e{}", &k[..at], &k[at..]));
            }
            for key in &keys {
                for n in names.iter().step_by(2) {
                    same(key, n).unwrap();
                    same(n, key).unwrap();
                    let want = strsim::jaro_winkler(key, n);
                    if want >= 0.87 {
                        assert_eq!(super::jaro_winkler(key, n), want, "{key:?} {n:?}");
                    }
                }
            }
        }
    }

    /// The distance with the common prefix and suffix cut is strsim's: every pair of a sample
    /// of `dcim/interfaces`'s names and of keys one or two edits from them (deletions, swaps,
    /// insertions, a doubled byte: affixes that overlap the edit). Short and random strings are
    /// `distance`'s own tests.
    #[test]
    fn damerau_levenshtein_without_affixes_is_strsims() {
        let index = crate::index::embedded::embedded_index("4.6.8");
        let names: Vec<&str> = index.endpoints["dcim/interfaces"]
            .params
            .keys()
            .step_by(7)
            .collect();
        let mut keys: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        for n in &names {
            for at in 1..n.len().saturating_sub(1) {
                let b = n.as_bytes();
                keys.push(format!("{}{}", &n[..at], &n[at + 1..]));
                let mut swapped = b.to_vec();
                swapped.swap(at - 1, at);
                keys.push(String::from_utf8(swapped).unwrap());
                keys.push(format!("{}{}{}", &n[..at], &n[at - 1..at], &n[at..]));
                keys.push(format!("{}ab{}", &n[..at], &n[at + 1..]));
            }
        }
        for k in &keys {
            for n in &names {
                assert_eq!(
                    crate::distance::damerau_levenshtein(k, n),
                    strsim::damerau_levenshtein(k, n),
                    "{k:?} {n:?}"
                );
            }
        }
    }

    /// A remembered suggestion is the one computed, for a shipped index, asked twice (the
    /// second answer from the memo) and on both endpoints that share a wrong name; an index
    /// built in the process (not shipped) is computed each time.
    #[test]
    fn the_memo_answers_as_computed() {
        let index = crate::index::embedded::embedded_index("4.6.8");
        let own = crate::index::embedded::load("4.6.8").unwrap();
        for idx in [&*index, &own] {
            for key in [
                "stauts",
                "device_role_id",
                "site_slug",
                "nmae__ic",
                "tags",
                "xyz",
            ] {
                for ep in ["dcim/devices", "dcim/interfaces", "ipam/prefixes"] {
                    let (key_of, e) = idx.endpoints.get_key_value(ep).unwrap();
                    let view = crate::rest::endpoint::View {
                        key: key_of,
                        ep: e,
                        index: idx,
                    };
                    let computed = super::compute(&view, key);
                    if !view.has(key) {
                        // Parsed and known absent by the caller: the same answer, computed
                        // (`own`) or remembered.
                        let k = super::super::lookups::Key::parse(key);
                        let asked = super::Asked::new(&view);
                        assert_eq!(*asked.suggest_absent(key, &k), computed, "{ep} {key}");
                    }
                    assert_eq!(*super::suggest(&view, key), computed, "{ep} {key}");
                    assert_eq!(*super::suggest(&view, key), computed, "{ep} {key} again");
                }
            }
        }
        // The index built here is never remembered, even with a shipped release's version.
        assert!(!crate::rest::versions::is_shipped(&own));
        let len = || super::MEMO_LEN.with(std::cell::Cell::get);
        let (key_of, e) = own.endpoints.get_key_value("dcim/sites").unwrap();
        let view = |index| crate::rest::endpoint::View {
            key: key_of,
            ep: e,
            index,
        };
        let before = len();
        super::suggest(&view(&own), "regoin_id");
        assert_eq!(len(), before);
        let (key_of, e) = index.endpoints.get_key_value("dcim/sites").unwrap();
        let shipped = crate::rest::endpoint::View {
            key: key_of,
            ep: e,
            index: &index,
        };
        super::suggest(&shipped, "regoin_id");
        assert_eq!(len(), before + 1);
    }

    /// [`super::similar`] over the remembered [`super::Names`] answers as scoring every
    /// parameter of the endpoint does (the scan before the names were grouped), for keys one
    /// edit from real names, with and without lookups, on endpoints large and small.
    #[test]
    fn similar_answers_as_the_full_scan() {
        use super::super::lookups::{has_dunder, Key};
        use super::super::view_params::is_exempt;
        fn scan(
            view: &crate::rest::endpoint::View,
            key: &str,
            lookup: Option<&str>,
        ) -> (Vec<String>, bool) {
            let null_like = matches!(lookup, Some("in" | "empty" | "isnull" | "null"));
            let has_lookup = key.contains("__");
            let wanted = match lookup {
                Some(l) if !null_like => Some(format!("__{l}")),
                _ => None,
            };
            let same_lookup = |p: &str| wanted.as_deref().is_none_or(|w| p.ends_with(w));
            let scored: Vec<(f64, &str)> = view
                .ep
                .params
                .keys()
                .filter(|p| has_dunder(p) == has_lookup)
                .filter(|p| !has_lookup || same_lookup(p))
                .filter(|p| !is_exempt(p))
                .filter(|p| !(has_lookup && null_like && p.ends_with("__n")))
                .map(|p| (strsim::jaro_winkler(key, p), p))
                .filter(|(s, _)| *s >= 0.88)
                .collect();
            let mut ranked: Vec<(usize, f64, &str)> = scored
                .into_iter()
                .map(|(s, p)| (strsim::damerau_levenshtein(key, p), s, p))
                .collect();
            ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(b.2)));
            let clear = ranked.first().is_some_and(|b| b.0 <= 2)
                && ranked.get(1).is_none_or(|s| s.0 > ranked[0].0);
            if clear {
                ranked.truncate(1);
            }
            let names = ranked
                .into_iter()
                .take(3)
                .map(|(_, _, p)| p.to_string())
                .collect();
            (names, clear)
        }
        let index = crate::index::embedded::embedded_index("4.7.3");
        let own = crate::index::embedded::load("4.7.3").unwrap();
        let mut checked = 0;
        for idx in [&*index, &own] {
            for ep in [
                "dcim/devices",
                "dcim/interfaces",
                "ipam/vlans",
                "tenancy/tenants",
                "extras/tags",
            ] {
                let (key_of, e) = idx.endpoints.get_key_value(ep).unwrap();
                let view = crate::rest::endpoint::View {
                    key: key_of,
                    ep: e,
                    index: idx,
                };
                let mut keys: Vec<String> = [
                    "",
                    "x",
                    "é_site",
                    "stauts__n",
                    "nmae__ic",
                    "a__b__c",
                    "sit___n",
                    "tag__any",
                    "tga__any",
                    "namé__ic",
                ]
                .map(String::from)
                .to_vec();
                for n in e
                    .params
                    .keys()
                    .step_by(if idx.netbox_version.is_empty() { 1 } else { 3 })
                {
                    for at in 1..n.len().saturating_sub(1) {
                        keys.push(format!("{}{}", &n[..at], &n[at + 1..]));
                        keys.push(format!(
                            "{}{}{}{}",
                            &n[..at - 1],
                            &n[at..=at],
                            &n[at - 1..at],
                            &n[at + 1..]
                        ));
                    }
                    keys.push(format!("{n}__in"));
                    keys.push(format!("{n}x__empty"));
                }
                for k in &keys {
                    let lookup = Key::parse(k).lookup();
                    assert_eq!(
                        super::similar(&view, k, lookup),
                        scan(&view, k, lookup),
                        "{ep} {k:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The bounds never drop a name that scores 0.88 or more: every pair of the real
    /// parameter names of an endpoint and keys made of them with one edit (deletion, swap,
    /// insertion), plus odd keys (empty, non-ASCII, longer than 255 bytes). The sieve's bound
    /// with Winkler's prefix ([`super::Probe::may_score`], its length window) and the s47
    /// bounds of the oracle (byte classes counted twice, [`super::oracle::Reach`]).
    /// Three typos of ASCII name `n` at byte `at` (`1 <= at`, `at + 1 < n.len()`): byte `at`
    /// dropped, bytes `at - 1` and `at` swapped, an `e` put before byte `at`.
    fn typos_at(n: &str, at: usize) -> [String; 3] {
        [
            format!("{}{}", &n[..at], &n[at + 1..]),
            format!(
                "{}{}{}{}",
                &n[..at - 1],
                &n[at..=at],
                &n[at - 1..at],
                &n[at + 1..]
            ),
            format!("{}e{}", &n[..at], &n[at..]),
        ]
    }

    #[test]
    fn prefilters_keep_every_near_name() {
        use super::oracle::{may_reach, shares_enough_twice, Bag, Reach};
        let index = crate::index::embedded::embedded_index("4.6.8");
        let params = &index.endpoints["dcim/interfaces"].params;
        let names: Vec<&str> = params.keys().collect();
        let mut keys: Vec<String> = ["", "a", "é_site", "namé", "x".repeat(300).as_str()]
            .map(String::from)
            .to_vec();
        keys.extend(names.iter().map(|n| n.to_string()));
        for n in names.iter().step_by(5) {
            for at in 1..n.len().saturating_sub(1) {
                keys.extend(typos_at(n, at));
            }
        }
        let (mut kept, mut dropped) = (0, 0);
        for k in &keys {
            let bag = Bag::of(k);
            let mut reach = bag.as_ref().map(|b| Reach::new(k, b));
            let probe = super::Probe::new(k);
            for n in &names {
                let score = strsim::jaro_winkler(k, n);
                // One `Reach` for the key over every name answers as a new one per name.
                let kept_once = reach.as_mut().is_none_or(|r| r.may_reach(n));
                assert_eq!(kept_once, may_reach(k, bag.as_ref(), n), "{k:?} {n:?}");
                if !kept_once {
                    assert!(score < 0.87, "{k:?} {n:?}");
                }
                if bag.is_some() && n.is_ascii() {
                    let (km, k2) = super::byte_classes_twice(k.as_bytes());
                    if !shares_enough_twice(k.len(), km, k2, n.len(), n) {
                        assert!(score < 0.87, "{k:?} {n:?}");
                    }
                }
                let Some(probe) = &probe else {
                    continue;
                };
                let mut text = String::new();
                let e = super::Entry::push(&mut text, n).unwrap();
                if !e.plain {
                    continue;
                }
                let p = probe.prefix(&e);
                let want = k
                    .bytes()
                    .zip(n.bytes())
                    .take(4)
                    .take_while(|(x, y)| x == y)
                    .count();
                assert_eq!(p, want, "{k:?} {n:?}");
                let (lo, hi) = probe.window(p);
                let keeps = probe.may_score(&e, p);
                assert!(!keeps || (lo..=hi).contains(&n.len()), "{k:?} {n:?}");
                if keeps {
                    kept += 1;
                } else {
                    dropped += 1;
                    assert!(score < 0.88, "{k:?} {n:?} {score}");
                }
            }
        }
        // The bound must drop names too, or it would be no prefilter.
        assert!(dropped > 20 * kept, "kept {kept}, dropped {dropped}");
    }

    /// [`super::counting_order`] orders as a stable sort by the key, and declines keys over
    /// 256 apart.
    #[test]
    fn counting_order_is_a_stable_sort() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for n in [0usize, 1, 2, 7, 64, 300] {
            for width in [1u64, 3, 40, 256] {
                let items: Vec<(usize, usize)> = (0..n)
                    .map(|i| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        (100 + (state % width) as usize, i)
                    })
                    .collect();
                let mut sorted: Vec<u32> = (0..n as u32).collect();
                sorted.sort_by_key(|&i| items[i as usize].0);
                match super::counting_order(&items, |it| it.0) {
                    Some(order) => assert_eq!(order, sorted, "{n} {width}"),
                    None => assert_eq!(n, 0),
                }
            }
        }
        let wide = [(0usize, 0usize), (256, 1)];
        assert_eq!(super::counting_order(&wide, |it| it.0), None);
        let edge = [(255usize, 0usize), (0, 1)];
        assert_eq!(super::counting_order(&edge, |it| it.0), Some(vec![1, 0]));
    }

    /// The suggestions by the [`super::Sieve`]s are the s47 scan's ([`super::oracle`]) on
    /// every endpoint of every shipped release: for keys one edit from a sample of its names
    /// (deletion, swap, insertion, substitution, the first two bytes swapped), with the
    /// lookups the rules pass, and random keys (proptest).
    #[test]
    fn the_sieve_answers_as_the_scan() {
        use super::super::lookups::Key;
        let mut checked = 0usize;
        // Random keys: a fixed xorshift over names' bytes, printable ASCII and `é`.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for release in crate::index::embedded::RELEASES {
            let index = crate::index::embedded::embedded_index(release.version);
            for (key_of, e) in &index.endpoints {
                let view = crate::rest::endpoint::View {
                    key: key_of,
                    ep: e,
                    index: &index,
                };
                let mut keys: Vec<String> = Vec::new();
                let bare: Vec<&str> = e.params.bare_keys().collect();
                for (i, n) in bare.iter().enumerate().filter(|(i, _)| i % 4 == 0) {
                    let b = n.as_bytes();
                    if b.len() < 3 {
                        keys.push(format!("{n}s"));
                        continue;
                    }
                    let at = 1 + i % (b.len() - 2);
                    keys.extend(typos_at(n, at));
                    keys.push(format!("{}x{}", &n[..at], &n[at + 1..]));
                    keys.push(format!("{}{}{}", &n[1..2], &n[..1], &n[2..]));
                    keys.push(format!("{}__in", &n[..b.len() - 1]));
                    keys.push(format!("{}__n", &n[..b.len() - 1]));
                    keys.push(format!("{}e__ic", &n[..at]));
                    keys.push(format!("{}__isnull", &n[1..]));
                }
                for _ in 0..12 {
                    let len = next(20);
                    let k: String = (0..len)
                        .map(|_| match next(40) {
                            0..=25 => char::from(b'a' + next(26) as u8),
                            26..=31 => '_',
                            32..=37 => char::from(b' ' + next(95) as u8),
                            _ => 'é',
                        })
                        .collect();
                    keys.push(k);
                }
                keys.extend(["", "é", "x__y__z", "__", "a__"].map(String::from));
                for k in &keys {
                    let lookup = Key::parse(k).lookup();
                    assert_eq!(
                        super::similar(&view, k, lookup),
                        super::oracle::similar(&view, k, lookup),
                        "{} {key_of} {k:?}",
                        release.version
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 50_000, "{checked}");
    }
}
