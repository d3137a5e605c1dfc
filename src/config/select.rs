//! Which codes are reported: `select`, `extend_select` and `ignore`, by code or by prefix, as
//! ruff users write them (`--select graphql --ignore graphql-snippet`).
//!
//! A selector is a code (`unknown-filter`), a prefix that ends at a `-` of some codes (`graphql`
//! or `graphql-` is every `graphql-…` code, `live` every live verdict), or `ALL`. Layers are
//! read in order (the settings file, then the command line; in the editor the settings layers
//! in their order): a layer's `select` replaces what was selected before it, its
//! `extend_select` adds, its `ignore` takes away, so `--select X` on the command line brings
//! back an `X` the settings file ignored. What no layer touches keeps its default: on, except
//! [`crate::catalogue::OFF_IN_EDITOR`] in the editor.

use crate::catalogue::CODES;

/// One layer's selection; empty (`None`, no entries) touches nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// The codes reported, replacing earlier layers' choice (`None`: not set here).
    pub select: Option<Vec<String>>,
    /// Codes added to what is selected.
    pub extend_select: Vec<String>,
    /// Codes taken away (after `select` and `extend_select` of the same layer).
    pub ignore: Vec<String>,
}

impl Selection {
    /// True when this layer says nothing.
    pub fn is_empty(&self) -> bool {
        self.select.is_none() && self.extend_select.is_empty() && self.ignore.is_empty()
    }
}

/// True when `selector` picks `code`: the code itself, `ALL`, or a prefix ending where a `-`
/// of the code is (`graphql` and `graphql-` pick `graphql-syntax`; `graph` picks nothing).
pub fn picks(selector: &str, code: &str) -> bool {
    let s = selector.trim();
    if s == "ALL" || s == code {
        return true;
    }
    let s = s.strip_suffix('-').unwrap_or(s);
    !s.is_empty() && code.len() > s.len() && code.starts_with(s) && code.as_bytes()[s.len()] == b'-'
}

/// `Ok` when `selector` picks at least one code of the catalogue; else a message naming the
/// closest code (`unknown-filtre` → `unknown-filter`).
pub fn check_selector(selector: &str) -> Result<(), String> {
    if CODES.iter().any(|c| picks(selector, c.code)) {
        return Ok(());
    }
    Err(
        crate::config::unknown_code_warning(selector.trim()).unwrap_or_else(|| {
            format!(
                "`{selector}` selects no code (codes: docs/diagnostics.md; `netbox-lsp rule CODE`)"
            )
        }),
    )
}

/// True when `code` is reported after `layers`, starting from on unless `default_off` names it.
pub fn is_on(layers: &[&Selection], code: &str, default_off: &[&str]) -> bool {
    let any = |list: &[String]| list.iter().any(|s| picks(s, code));
    let mut on = !default_off.contains(&code);
    for layer in layers {
        if let Some(select) = &layer.select {
            on = any(select);
        }
        if any(&layer.extend_select) {
            on = true;
        }
        if any(&layer.ignore) {
            on = false;
        }
    }
    on
}

/// The codes of the catalogue reported after `layers` ([`is_on`]), in catalogue order.
pub fn selected(layers: &[&Selection], default_off: &[&str]) -> Vec<&'static str> {
    CODES
        .iter()
        .map(|c| c.code)
        .filter(|code| is_on(layers, code, default_off))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(select: Option<&[&str]>, extend: &[&str], ignore: &[&str]) -> Selection {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Selection {
            select: select.map(v),
            extend_select: v(extend),
            ignore: v(ignore),
        }
    }

    #[test]
    fn selectors_pick_codes_and_prefixes_at_a_dash() {
        assert!(picks("unknown-filter", "unknown-filter"));
        assert!(picks("graphql", "graphql-syntax") && picks("graphql-", "graphql-syntax"));
        assert!(picks("ALL", "multi-hop"));
        assert!(!picks("graph", "graphql-syntax"), "a prefix ends at a dash");
        assert!(!picks("unknow", "unknown-endpoint") && picks("unknown", "unknown-endpoint"));
        assert!(!picks("", "multi-hop") && !picks("-", "multi-hop"));
        assert!(check_selector("live").is_ok() && check_selector("graphql-").is_ok());
        let e = check_selector("unknown-filtre").unwrap_err();
        assert!(e.contains("did you mean `unknown-filter`"), "{e}");
        assert!(check_selector("graph").is_err());
    }

    #[test]
    fn layers_replace_extend_and_ignore_in_order() {
        let all = selected(&[], &[]);
        assert_eq!(all.len(), CODES.len());
        let off = selected(&[], &["unused-suppression"]);
        assert!(!off.contains(&"unused-suppression") && off.len() == CODES.len() - 1);
        // A select replaces, ignore wins within its layer.
        let file = sel(
            Some(&["graphql"]),
            &["unknown-filter"],
            &["graphql-snippet"],
        );
        let got = selected(&[&file], &[]);
        assert!(got.contains(&"graphql-syntax") && got.contains(&"unknown-filter"));
        assert!(!got.contains(&"graphql-snippet") && !got.contains(&"multi-hop"));
        // A later select brings back what an earlier layer ignored; a later ignore without a
        // select keeps the earlier choice.
        let flags = sel(Some(&["graphql-snippet"]), &[], &[]);
        assert_eq!(selected(&[&file, &flags], &[]), ["graphql-snippet"]);
        let flags = sel(None, &[], &["graphql-syntax"]);
        let got = selected(&[&file, &flags], &[]);
        assert!(!got.contains(&"graphql-syntax") && got.contains(&"graphql-validation"));
        // An extend_select turns on a code that is off by default.
        let on = sel(None, &["unused-suppression"], &[]);
        assert!(selected(&[&on], &["unused-suppression"]).contains(&"unused-suppression"));
    }
}
