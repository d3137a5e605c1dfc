//! The lookup table of one endpoint's parameter names ([`super::Params`]): an open-addressing
//! hash table of the names, each name's declared [`LOOKUPS`] as a bit set, and the names
//! without `__`. `build.rs` includes this file to build the tables of the shipped indexes at
//! compile time (so it uses only `std`); the crate builds the table of an index file on its
//! first lookup. Both use this one [`build`], so the stored and the computed tables agree.

/// The lookups NetBox generates for its filters (`n`, `ic`, `gte`, ...; `any` from 4.6), whose
/// presence per filter [`super::Params::lookup_set`] answers without a search. None holds `_`.
pub const LOOKUPS: [&str; 17] = [
    "n", "ic", "nic", "iew", "niew", "isw", "nisw", "ie", "nie", "empty", "regex", "iregex", "lt",
    "lte", "gt", "gte", "any",
];

/// The table of `n` names in byte order (name `i` is `name(i)`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// Open addressing by name hash, a power of two and at least twice as many slots as names
    /// (8 at least): each slot is the high 32 bits of the name's hash above its position + 1
    /// (0 = empty), so a probe compares a name only when the hashes agree.
    pub slots: Box<[u64]>,
    /// Per name (in name order): bit `k` set when `<name>__<LOOKUPS[k]>` is a name too.
    pub lookups: Box<[u32]>,
    /// Positions of the names without `__` (`site_id`, not `site_id__n`), in name order: the
    /// suggestion step scores only these for a key without a lookup (a quarter of the names
    /// of `dcim/devices`).
    pub bare: Box<[u32]>,
}

/// A multiply-xor hash of `name`, eight bytes at a time (rustc-hash's constant); its high bits
/// are the best mixed: the slot is taken from them. The bytes after the last whole word are
/// read as one word ending at the name's end (overlapping the word before), a name under eight
/// bytes as two overlapping four-byte halves or its first, middle and last byte (the length is
/// hashed first, so these readings tell names apart): a byte at a time they were a third of a
/// look-up.
#[inline]
pub fn hash(name: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let len = name.len();
    let mut h = (len as u64).wrapping_mul(K);
    let word = |at: usize| {
        let w: [u8; 8] = name[at..at + 8].try_into().unwrap_or_default();
        u64::from_le_bytes(w)
    };
    if len >= 8 {
        let whole = len / 8 * 8;
        let mut at = 0;
        while at < whole {
            h = (h ^ word(at)).wrapping_mul(K);
            at += 8;
        }
        if whole < len {
            h = (h ^ word(len - 8)).wrapping_mul(K);
        }
    } else if len >= 4 {
        let half = |at: usize| {
            let w: [u8; 4] = name[at..at + 4].try_into().unwrap_or_default();
            u64::from(u32::from_le_bytes(w))
        };
        h = (h ^ (half(0) | half(len - 4) << 32)).wrapping_mul(K);
    } else if len > 0 {
        let w = u64::from(name[0]) | u64::from(name[len / 2]) << 8 | u64::from(name[len - 1]) << 16;
        h = (h ^ w).wrapping_mul(K);
    }
    h
}

/// Position of `target` through `slots` (a [`Table::slots`] of the names `name(i)`).
#[inline]
pub fn find<'a>(slots: &[u64], target: &[u8], name: impl Fn(usize) -> &'a str) -> Option<usize> {
    find_bytes(slots, target, |i| name(i).as_bytes())
}

/// [`find`] with the names given as bytes (no character boundaries checked).
#[inline]
pub fn find_bytes<'a>(
    slots: &[u64],
    target: &[u8],
    name: impl Fn(usize) -> &'a [u8],
) -> Option<usize> {
    if slots.is_empty() {
        return None;
    }
    let shift = 64 - slots.len().trailing_zeros();
    let h = hash(target);
    let mut s = (h >> shift) as usize;
    loop {
        let slot = *slots.get(s)?;
        if slot == 0 {
            return None;
        }
        if (slot ^ h) >> 32 == 0 {
            let i = (slot as u32 - 1) as usize;
            if name(i) == target {
                return Some(i);
            }
        }
        s = (s + 1) & (slots.len() - 1);
    }
}

/// The table of the `n` names `name(0..n)` (in byte order, unique).
pub fn build<'a>(n: usize, name: impl Fn(usize) -> &'a str) -> Table {
    let slots_len = (n * 2).max(8).next_power_of_two();
    let shift = 64 - slots_len.trailing_zeros();
    let mut slots = vec![0u64; slots_len].into_boxed_slice();
    for i in 0..n {
        let h = hash(name(i).as_bytes());
        let mut s = (h >> shift) as usize;
        while slots[s] != 0 {
            s = (s + 1) & (slots_len - 1);
        }
        // An endpoint has hundreds of names, never 2^32.
        let position = u32::try_from(i + 1).unwrap_or(u32::MAX);
        slots[s] = (h & 0xffff_ffff_0000_0000) | u64::from(position);
    }
    let mut lookups = vec![0u32; n].into_boxed_slice();
    // `<base>__<lookup>` with a lookup of LOOKUPS (no `_` in it) splits at its last `__`: the
    // bit goes to `base` when it is a name.
    for i in 0..n {
        let full = name(i);
        let Some(at) = full.rfind("__") else { continue };
        let Some(k) = LOOKUPS.iter().position(|l| *l == &full[at + 2..]) else {
            continue;
        };
        if let Some(base) = find(&slots, &full.as_bytes()[..at], &name) {
            lookups[base] |= 1 << k;
        }
    }
    let bare = (0..n)
        .filter(|&i| !name(i).contains("__"))
        // An endpoint has hundreds of names, never 2^32.
        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    Table {
        slots,
        lookups,
        bare,
    }
}
