//! "Did you mean" for GraphQL names (fields, arguments, input fields, types, enum values):
//! apollo-compiler 1.33 offers none, so candidates come from the schema and strsim.

/// Up to three names from `candidates` close to `input`, best first. A candidate qualifies when
/// it differs from `input` by few edits (Damerau-Levenshtein ≤ a third of the length, at least
/// 1, case-insensitive), when Jaro-Winkler similarity is ≥ 0.94, or when one name contains the
/// other (`has_primary_ip` → `primary_ip4`). Introspection names (`__*`) are never offered.
pub fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let lower = input.to_ascii_lowercase();
    if lower.is_empty() {
        return Vec::new();
    }
    let max_edits = (lower.chars().count() / 3).max(1);
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .filter(|c| !c.starts_with("__") && *c != input)
        .filter_map(|c| {
            let cl = c.to_ascii_lowercase();
            let edits = strsim::damerau_levenshtein(&lower, &cl);
            let jw = strsim::jaro_winkler(&lower, &cl);
            let contains =
                lower.len() >= 4 && cl.len() >= 4 && (cl.contains(&lower) || lower.contains(&cl));
            let stripped = strip_common(&lower, &cl);
            if edits <= max_edits || jw >= 0.94 || contains || stripped {
                // Fewer edits first, then higher similarity.
                Some((edits as f64 - jw, c))
            } else {
                None
            }
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}

/// `has_primary_ip` vs `primary_ip4`: equal after dropping a `has_`/`is_` prefix and a digit
/// suffix.
fn strip_common(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        let s = s
            .strip_prefix("has_")
            .or_else(|| s.strip_prefix("is_"))
            .unwrap_or(s);
        s.trim_end_matches(|c: char| c.is_ascii_digit()).to_string()
    };
    let (na, nb) = (norm(a), norm(b));
    na.len() >= 4 && na == nb
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
    let d = |c: &String| strsim::damerau_levenshtein(&lower, &c.to_ascii_lowercase());
    match candidates {
        [a] => d(a) <= (lower.chars().count() / 3).max(1),
        [a, b, ..] => d(a) <= 1 && d(b) >= 3,
        [] => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
