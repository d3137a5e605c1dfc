//! "Did you mean" for GraphQL names (fields, arguments, input fields, types, enum values):
//! apollo-compiler 1.33 offers none, so candidates come from the schema and strsim.

use crate::distance::damerau_levenshtein;

/// Up to three names from `candidates` close to `input`, best first. A candidate qualifies when
/// it differs from `input` by few edits (Damerau-Levenshtein ≤ a third of the length, at least
/// 1, case-insensitive), when Jaro-Winkler similarity is ≥ 0.94, or when one name contains the
/// other (`has_primary_ip` → `primary_ip4`). Introspection names (`__*`) are never offered.
pub fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let lower = input.to_ascii_lowercase();
    if lower.is_empty() {
        return Vec::new();
    }
    let n = lower.chars().count();
    let max_edits = (n / 3).max(1);
    // The input's letter counts, once: a candidate's letters in common with it bound every
    // measure below (ASCII names only; GraphQL names are).
    let ascii = lower.is_ascii();
    let mut have = [0u32; 128];
    if ascii {
        for &b in lower.as_bytes() {
            have[b as usize] += 1;
        }
    }
    let mut taken = [0u32; 128];
    let lower_norm = norm(&lower);
    let input_upper = upper(input);
    let mut cl = String::new();
    let mut scored: Vec<(f64, &str)> = Vec::new();
    for c in candidates {
        if c.starts_with("__") || c == input {
            continue;
        }
        cl.clear();
        cl.push_str(c);
        cl.make_ascii_lowercase();
        let both_ascii = ascii && cl.is_ascii();
        let m = if both_ascii {
            cl.len()
        } else {
            cl.chars().count()
        };
        // Letters in common (a multiset intersection): every letter of the shorter name is in
        // the longer where one contains the other; `n + m - 2 common` letters are not shared.
        let common = if both_ascii {
            common_letters(&have, &mut taken, cl.as_bytes())
        } else {
            0
        };
        let contains = lower.len() >= 4
            && cl.len() >= 4
            && (!both_ascii || common == n.min(m))
            && (cl.contains(&lower) || lower.contains(&cl));
        let stripped =
            strip_common_norm(lower_norm, &cl) || (input_upper && prefix_dropped_upper(input, c));
        // The string distances are the cost (a type has up to ~200 fields), so each is measured
        // only where it can decide. Damerau-Levenshtein is at least the length difference: not
        // within `max_edits` for a name of another length, where it only orders names that
        // pass another test. Jaro is at most (2 + shorter / longer) / 3 and Jaro-Winkler at most
        // 0.4 + 0.6 Jaro, so Jaro-Winkler ≥ 0.94 needs shorter / longer ≥ 0.7 (0.6 here, for
        // rounding).
        let near = n.abs_diff(m) <= max_edits;
        let similar_length = 10 * n.min(m) >= 6 * n.max(m);
        if !(contains || stripped || near || similar_length) {
            continue;
        }
        // Damerau-Levenshtein is at least half the letters the two names do not share (an
        // insertion or deletion changes one letter count, a substitution two, a transposition
        // none): a name that passes no other test is dropped on that bound unmeasured.
        let apart = if both_ascii { n + m - 2 * common } else { 0 };
        let near = near && apart.div_ceil(2) <= max_edits;
        // Jaro's matches are letters in common, so Jaro is at most (common / n + common / m +
        // 1) / 3, and Jaro-Winkler ≥ 0.94 needs Jaro ≥ 0.9: below (with a margin for rounding)
        // only the edits can qualify the name, and its similarity is measured only then.
        let may_be_similar = !both_ascii
            || (common > 0
                && (common as f64 / n as f64 + common as f64 / m as f64 + 1.0) / 3.0 >= 0.899);
        if !(contains || stripped || may_be_similar) {
            if !near {
                continue;
            }
            let edits = damerau_levenshtein(&lower, &cl);
            if edits <= max_edits {
                let jw = strsim::jaro_winkler(&lower, &cl);
                scored.push((edits as f64 - jw, c));
            }
            continue;
        }
        let jw = strsim::jaro_winkler(&lower, &cl);
        let other = jw >= 0.94 || contains || stripped;
        if !(other || near) {
            continue;
        }
        let edits = damerau_levenshtein(&lower, &cl);
        if edits <= max_edits || other {
            // Fewer edits first, then higher similarity.
            scored.push((edits as f64 - jw, c));
        }
    }
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}

/// How many letters of ASCII `name` are in the multiset `have` (each letter of `have` counted
/// at most as often as it occurs there). `taken` is all zeros before and after.
fn common_letters(have: &[u32; 128], taken: &mut [u32; 128], name: &[u8]) -> usize {
    let mut common = 0;
    for &b in name {
        let i = (b & 0x7f) as usize;
        if taken[i] < have[i] {
            taken[i] += 1;
            common += 1;
        }
    }
    for &b in name {
        taken[(b & 0x7f) as usize] = 0;
    }
    common
}

/// The letters two ASCII names do not share: the sum over every letter of the difference of
/// its counts in `a` and `b`. 0 (no bound) when either name is not ASCII: GraphQL names are.
/// (The unpruned rule of the tests; [`did_you_mean`] counts the letters in common.)
#[cfg(test)]
fn letters_apart(a: &str, b: &str) -> usize {
    if !(a.is_ascii() && b.is_ascii()) {
        return 0;
    }
    let mut counts = [0i32; 128];
    for &c in a.as_bytes() {
        counts[c as usize] += 1;
    }
    for &c in b.as_bytes() {
        counts[c as usize] -= 1;
    }
    counts.iter().map(|n| n.unsigned_abs() as usize).sum()
}

/// `has_primary_ip` vs `primary_ip4`: equal after dropping a `has_`/`is_` prefix and a digit
/// suffix.
#[cfg(test)]
fn strip_common(a: &str, b: &str) -> bool {
    strip_common_norm(norm(a), b)
}

/// [`strip_common`] with the first name already through [`norm`].
fn strip_common_norm(na: &str, b: &str) -> bool {
    na.len() >= 4 && na == norm(b)
}

/// A name without a `has_`/`is_` prefix and a digit suffix.
fn norm(s: &str) -> &str {
    s.strip_prefix("has_")
        .or_else(|| s.strip_prefix("is_"))
        .unwrap_or(s)
        .trim_end_matches(|c: char| c.is_ascii_digit())
}

/// Enum members one release writes with a type prefix and another without (`ROLE_TCP` and
/// `TCP`: 4.7.0 dropped the prefix of `ServiceProtocolEnum`, release notes 4.7.0, netbox#20285):
/// equal once the first `WORD_` of one is dropped. Only between upper-case names (enum values),
/// so a field `site_id` never suggests `id`.
fn prefix_dropped(a: &str, b: &str) -> bool {
    upper(a) && prefix_dropped_upper(a, b)
}

/// [`prefix_dropped`] of an `a` known to be upper-case.
fn prefix_dropped_upper(a: &str, b: &str) -> bool {
    fn drop(s: &str) -> Option<&str> {
        s.split_once('_').map(|(_, rest)| rest)
    }
    upper(b) && (drop(a) == Some(b) || drop(b) == Some(a))
}

/// An enum value's shape: upper-case letters, digits and `_`, not empty.
fn upper(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// Renders candidates as "`a`", "`a` or `b`", "`a`, `b` or `c`".
pub fn or_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [init @ .., last] => format!(
            "{} or `{last}`",
            init.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// One clear candidate: the only one within typo distance (a third of the length, at least 1),
/// or one edit away while the next is three or more away (`tenant_grop` → `tenant_group`, not
/// `tenant_group_id`). A name that only contains the input is another field, not a typo
/// (`connected` → `mark_connected` on 4.3: 102 vs 0 interfaces in the v4.3.3 sweep).
pub fn clear_winner(input: &str, candidates: &[String]) -> bool {
    let lower = input.to_ascii_lowercase();
    let d = |c: &String| damerau_levenshtein(&lower, &c.to_ascii_lowercase());
    match candidates {
        [a] => d(a) <= (lower.chars().count() / 3).max(1) || prefix_dropped(input, a),
        [a, b, ..] => d(a) <= 1 && d(b) >= 3,
        [] => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_prefix_renames() {
        assert!(prefix_dropped("ROLE_TCP", "TCP") && prefix_dropped("TCP", "ROLE_TCP"));
        assert!(!prefix_dropped("site_id", "id") && !prefix_dropped("ROLE_TCP", "UDP"));
        let c = did_you_mean("ROLE_TCP", ["TCP", "UDP", "SCTP"]);
        assert_eq!(c, ["TCP"]);
        assert!(clear_winner("ROLE_TCP", &c));
    }

    #[test]
    fn suggestions() {
        let names = [
            "filters",
            "pagination",
            "name",
            "primary_ip4",
            "primary_ip6",
            "role",
        ];
        assert_eq!(did_you_mean("filter", names), vec!["filters"]);
        assert_eq!(did_you_mean("rolee", names), vec!["role"]);
        assert_eq!(
            did_you_mean("has_primary_ip", names),
            vec!["primary_ip4", "primary_ip6"]
        );
        assert!(did_you_mean("nonexistent", names).is_empty());
        assert_eq!(
            or_list(&["a".into(), "b".into(), "c".into()]),
            "`a`, `b` or `c`"
        );
    }

    /// The unpruned rule of [`did_you_mean`]: both distances for every name.
    fn measured_all<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let lower = input.to_ascii_lowercase();
        let max_edits = (lower.chars().count() / 3).max(1);
        let mut scored: Vec<(f64, &str)> = candidates
            .into_iter()
            .filter(|c| !c.starts_with("__") && *c != input)
            .filter_map(|c| {
                let cl = c.to_ascii_lowercase();
                let edits = strsim::damerau_levenshtein(&lower, &cl);
                let jw = strsim::jaro_winkler(&lower, &cl);
                let contains = lower.len() >= 4
                    && cl.len() >= 4
                    && (cl.contains(&lower) || lower.contains(&cl));
                let stripped = strip_common(&lower, &cl) || prefix_dropped(input, c);
                (edits <= max_edits || jw >= 0.94 || contains || stripped)
                    .then_some((edits as f64 - jw, c))
            })
            .collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(3)
            .map(|(_, c)| c.to_string())
            .collect()
    }

    /// Skipping the distances of names that cannot qualify changes no answer: typos of the
    /// field, argument and enum names of the 4.6.8 and 4.7.3 schemas, asked of their own type's
    /// names.
    #[test]
    fn pruning_changes_no_answer() {
        use apollo_compiler::schema::ExtendedType;
        let mut asked = 0;
        for version in ["4.6.8", "4.7.3"] {
            let nb = crate::graphql::embedded_schema(version).expect("embedded schema");
            for ty in nb.schema.types.values() {
                let names: Vec<&str> = match ty {
                    ExtendedType::Object(o) => o.fields.keys().map(|k| k.as_str()).collect(),
                    ExtendedType::InputObject(o) => o.fields.keys().map(|k| k.as_str()).collect(),
                    ExtendedType::Enum(e) => e.values.keys().map(|k| k.as_str()).collect(),
                    _ => continue,
                };
                for name in names.iter().step_by(7) {
                    let b = name.as_bytes();
                    let mut typos = vec![
                        name[1..].to_string(),
                        format!("{name}s"),
                        format!("has_{name}"),
                        name.to_ascii_uppercase(),
                        name.chars().rev().collect(),
                        format!("x{}", &name[..name.len() / 2]),
                    ];
                    if b.len() >= 3 {
                        let mut swapped = b.to_vec();
                        swapped.swap(1, 2);
                        typos.push(String::from_utf8(swapped).unwrap());
                        // A letter dropped, doubled or replaced in the middle.
                        let mid = name.len() / 2;
                        typos.push(format!("{}{}", &name[..mid], &name[mid + 1..]));
                        typos.push(format!("{}{}", &name[..=mid], &name[mid..]));
                        typos.push(format!("{}q{}", &name[..mid], &name[mid + 1..]));
                    }
                    for typo in typos {
                        // The bound that drops a name unmeasured never exceeds the distance.
                        let lower = typo.to_ascii_lowercase();
                        for n in &names {
                            let cl = n.to_ascii_lowercase();
                            assert!(
                                letters_apart(&lower, &cl).div_ceil(2)
                                    <= strsim::damerau_levenshtein(&lower, &cl),
                                "{typo} {n}"
                            );
                        }
                        let want = measured_all(&typo, names.iter().copied());
                        assert_eq!(did_you_mean(&typo, names.iter().copied()), want, "{typo}");
                        asked += 1;
                    }
                }
            }
        }
        assert!(asked > 1000, "{asked}");
    }
}
