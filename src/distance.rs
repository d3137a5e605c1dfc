//! Edit distances between names, for the "did you mean" of the REST rules
//! (`rest::suggest`) and of GraphQL (`graphql::suggest`). Pure; depends on nothing in the crate.

/// `strsim::damerau_levenshtein(a, b)` (the unrestricted distance, Zhao and Sahni's linear-space
/// algorithm as strsim writes it), on bytes when both are ASCII and at most 128 bytes: no hash
/// map of characters and no heap vectors (strsim's cost ~8,000 instructions a pair, most of a
/// suggestion's ranking). The common prefix and suffix are cut first, as rapidfuzz-cpp's
/// `damerau_levenshtein_distance` does before the same algorithm (they do not change the
/// distance): a misspelt name shares most of its bytes with the names it is ranked against, so
/// the table shrinks from `|a|·|b|` cells to a few (5,500 instructions a pair before).
pub fn damerau_levenshtein(a: &str, b: &str) -> usize {
    let (s1, s2) = (a.as_bytes(), b.as_bytes());
    if !a.is_ascii() || !b.is_ascii() || s1.len() > MAX || s2.len() > MAX {
        return strsim::damerau_levenshtein(a, b);
    }
    let (s1, s2) = without_common_affix(s1, s2);
    // With one side empty the distance is the other's length (the table would say so too).
    if s1.is_empty() || s2.is_empty() {
        return s1.len().max(s2.len());
    }
    if let Some(d) = small(s1, s2) {
        return d;
    }
    // A misspelt name leaves a few bytes after the affixes are cut: a table of that many cells,
    // not of 128 (filling the whole table was a third of a pair's cost).
    if s2.len() <= SMALL {
        table::<{ 3 * (SMALL + 2) }>(s1, s2)
    } else {
        table::<{ 3 * (MAX + 2) }>(s1, s2)
    }
}

/// Whether [`damerau_levenshtein`]`(a, b)` is at most 1, without the table: `None` where that
/// distance is not computed on bytes (not ASCII, over 128 bytes). After the common prefix and
/// suffix are cut, the rest differs at both ends, so one edit is only a byte against none or
/// one, or a swap of two: any other rest is two edits or more (for a ranking that needs the
/// full distance only when no single name is one edit away).
pub fn within_one(a: &str, b: &str) -> Option<bool> {
    let (s1, s2) = (a.as_bytes(), b.as_bytes());
    if !a.is_ascii() || !b.is_ascii() || s1.len() > MAX || s2.len() > MAX {
        return None;
    }
    let (s1, s2) = without_common_affix(s1, s2);
    Some(match small(s1, s2) {
        Some(d) => d <= 1,
        None if s1.is_empty() || s2.is_empty() => s1.len().max(s2.len()) <= 1,
        None => false,
    })
}

/// The distance of two rests of at most one byte against any, or two against two, that
/// differ at both ends (the common affixes cut, neither empty): `n − 1` deletions when the one
/// byte is in the other, else a substitution too (a transposition needs two bytes on each
/// side); a swap of two is one edit, any other pair two. `None` for longer rests. A misspelt
/// name (one deletion, insertion or swap) ends here without a table.
fn small(s1: &[u8], s2: &[u8]) -> Option<usize> {
    match (s1, s2) {
        ([], _) | (_, []) => None,
        ([c], other) | (other, [c]) => Some(other.len() - usize::from(other.contains(c))),
        ([a, b], [c, d]) => Some(if a == d && b == c { 1 } else { 2 }),
        _ => None,
    }
}

/// Longest ASCII strings [`damerau_levenshtein`] computes on bytes.
const MAX: usize = 128;

/// Longest second string (after the affixes are cut) the small table holds.
const SMALL: usize = 14;

/// Zhao and Sahni's table over `s1` × `s2` (ASCII, `s2` at most `N / 3 - 2` bytes), as strsim
/// writes it.
fn table<const N: usize>(s1: &[u8], s2: &[u8]) -> usize {
    let (len1, len2) = (s1.len(), s2.len());
    let max_val = len1.max(len2) as isize + 1;
    // Rows are at most 128 (`MAX`): 256 bytes to fill, not 1 KB.
    let mut last_row_id = [-1i16; 128];
    let size = len2 + 2;
    // Rows of `size` cells only, swapped as references (swapping the arrays copied 2 KB a
    // character of `a`).
    let mut cells = [max_val; N];
    let (fr, rows) = cells[..3 * size].split_at_mut(size);
    let (mut r1, mut r) = rows.split_at_mut(size);
    for (j, slot) in r[1..size].iter_mut().enumerate() {
        *slot = j as isize;
    }
    for (i, &ch1) in s1.iter().enumerate().map(|(i, c)| (i + 1, c)) {
        std::mem::swap(&mut r, &mut r1);
        let mut last_col_id: isize = -1;
        let mut last_i2l1 = r[1];
        r[1] = i as isize;
        let mut t = max_val;
        for (j, &ch2) in s2.iter().enumerate().map(|(j, c)| (j + 1, c)) {
            let diag = r1[j] + isize::from(ch1 != ch2);
            let left = r[j] + 1;
            let up = r1[j + 1] + 1;
            let mut temp = diag.min(left.min(up));
            if ch1 == ch2 {
                last_col_id = j as isize;
                fr[j + 1] = r1[j - 1];
                t = last_i2l1;
            } else {
                let k = isize::from(last_row_id[usize::from(ch2)]);
                let l = last_col_id;
                if j as isize - l == 1 {
                    temp = temp.min(fr[j + 1] + (i as isize - k));
                } else if i as isize - k == 1 {
                    temp = temp.min(t + (j as isize - l));
                }
            }
            last_i2l1 = r[j + 1];
            r[j + 1] = temp;
        }
        last_row_id[usize::from(ch1)] = i as i16;
    }
    r[len2 + 1] as usize
}

/// `a` and `b` without the bytes they start with and end with alike (the suffix taken from what
/// the prefix left).
fn without_common_affix<'s>(a: &'s [u8], b: &'s [u8]) -> (&'s [u8], &'s [u8]) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (&a[..a.len() - suffix], &b[..b.len() - suffix])
}

#[cfg(test)]
mod tests {
    use super::damerau_levenshtein;
    use proptest::prelude::*;

    /// The ASCII distance is strsim's: equal, empty, transposed and random pairs over small
    /// alphabets (where transpositions reach into the cut affixes) and over names.
    #[test]
    fn damerau_levenshtein_is_strsims() {
        let fixed = [
            ("", ""),
            ("", "abc"),
            ("abc", ""),
            ("abc", "abc"),
            ("ab", "ba"),
            ("ab", "bca"),
            ("abcd", "badc"),
            ("site_id", "stie_id"),
            ("tenant_grop", "tenant_group"),
            ("ca", "abc"),
            ("a_cb", "abc_"),
            ("préfix", "prefix"),
        ];
        for (a, b) in fixed {
            assert_eq!(damerau_levenshtein(a, b), strsim::damerau_levenshtein(a, b));
        }
        let mut small = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|s| ["a", "b", "c"].map(|c| format!("{s}{c}")))
                .collect();
            small.extend(last.iter().cloned());
        }
        for a in &small {
            for b in &small {
                let want = strsim::damerau_levenshtein(a, b);
                assert_eq!(damerau_levenshtein(a, b), want, "{a:?} {b:?}");
                assert_eq!(super::within_one(a, b), Some(want <= 1), "{a:?} {b:?}");
            }
        }
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 4000,
            ..ProptestConfig::default()
        });
        runner
            .run(
                &(
                    "[a-d_]{0,12}",
                    "[a-d_]{0,12}",
                    "[ -~]{0,40}",
                    "[a-zé_]{0,20}",
                ),
                |(a, b, c, d)| {
                    for (x, y) in [(&a, &b), (&b, &a), (&a, &c), (&c, &a), (&d, &a), (&c, &d)] {
                        let want = strsim::damerau_levenshtein(x, y);
                        prop_assert_eq!(damerau_levenshtein(x, y), want);
                        if x.is_ascii() && y.is_ascii() {
                            prop_assert_eq!(super::within_one(x, y), Some(want <= 1));
                        }
                    }
                    // Transposed neighbours of `a`.
                    for at in 1..a.len() {
                        let mut t = a.clone().into_bytes();
                        t.swap(at - 1, at);
                        let t = String::from_utf8(t).unwrap();
                        prop_assert_eq!(
                            damerau_levenshtein(&a, &t),
                            strsim::damerau_levenshtein(&a, &t)
                        );
                    }
                    Ok(())
                },
            )
            .unwrap();
    }
}
