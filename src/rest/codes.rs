//! Every REST diagnostic code with its default severity and a one-line summary. The CLI docs and
//! the server's hover read this table; `check_call` only emits codes listed here.

use crate::finding::Severity;

/// One diagnostic code of the REST checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// Stable kebab-case code (`unknown-filter`).
    pub code: &'static str,
    /// Default severity. Some codes are raised or lowered in a given context (the finding
    /// carries the severity actually used): `invalid-choice` is an error with an index built
    /// from the instance; `filler-argument` is a warning when the server rejects the filler or
    /// returns nothing; `slug-expected` is a warning when only upper-case letters are wrong;
    /// `unknown-object-type` is a warning for a `plugin.model` type outside stock NetBox.
    pub severity: Severity,
    /// What the code means, in one line.
    pub summary: &'static str,
}

const fn c(code: &'static str, severity: Severity, summary: &'static str) -> CodeInfo {
    CodeInfo {
        code,
        severity,
        summary,
    }
}

use Severity::{Error, Hint, Information, Warning};

/// All REST codes, in documentation order.
pub const CODES: &[CodeInfo] = &[
    c("unknown-filter", Error, "Not a query parameter of this endpoint: NetBox ignores it and returns every object."),
    c("unsupported-lookup", Error, "A lookup NetBox does not offer on this filter (`__in`, `__isnull`, Django spellings, a lookup the field kind lacks): ignored."),
    c("multi-hop", Error, "A relation traversal (`device__site_id`) is not a NetBox filter: ignored; query in two steps."),
    c("invalid-choice", Warning, "Not one of the filter's choice values (HTTP 400), also on the text lookups of a declared choice filter and `null` where it has no null selector; an error when the index comes from the instance itself."),
    c("null-relation", Error, "`<relation>__empty` / `__isnull` is ignored; the null selector is `<relation>_id=null`."),
    c("null-complement", Information, "`<relation>__n=null` is honoured and selects objects that HAVE the relation; often meant the other way round."),
    c("dropped-value", Error, "A None/null, empty list or empty string never reaches NetBox as a filter: the call is unfiltered (`key=` on a relation or declared choice filter: HTTP 400)."),
    c("filler-argument", Hint, "An optional tool argument filled with \"\", [], 0 or null; says what the MCP server does with it."),
    c("single-value-filter", Error, "Several values given to a filter that takes one: NetBox uses only one of them."),
    c("comma-list", Error, "A comma-separated string on an id or number filter is an HTTP 400: pass a list (repeated keys)."),
    c("invalid-value", Error, "A value that does not fit the filter's type (`tenant_id=abc`): HTTP 400; a few forms NetBox refuses with HTTP 500 (`vlan=<text>`, a value on a date `__empty`)."),
    c("wrong-filter-for-type", Error, "A prefix filter on IP addresses (`within`, `contains`) or `without`, which exists nowhere: ignored."),
    c("vrf-needs-rd", Error, "`vrf` matches the route distinguisher, not the VRF name (HTTP 400): use the RD or `vrf_id`."),
    c("slug-expected", Error, "A display name on a slug filter (`site=Main Office`): HTTP 400; use the slug or the `_id` filter."),
    c("boolean-value", Error, "A boolean filter given `1`, `yes`, ...: NetBox ignores it; use `true` or `false`."),
    c("invalid-regex", Warning, "An invalid regular expression on a `__regex`/`__iregex` filter: HTTP 500."),
    c("server-fault", Warning, "A filter this NetBox release answers wrongly for any value (HTTP 500, or the wrong objects): a NetBox bug, shown by the live sweep."),
    c("unknown-object-type", Error, "The tool's object type is not a NetBox object type: the MCP server rejects the call."),
    c("version-only", Error, "The filter exists in another shipped NetBox version but not in the selected one: ignored here."),
    c("ignored-parameter", Warning, "A parameter NetBox reads outside its filtersets (`omit`, `start`, `exclude=config_context`) where that release or endpoint does not read it: ignored, nothing is filtered."),
    c("unknown-endpoint", Error, "Not a REST list endpoint of this NetBox release (NetBox answers 404); with the right spelling or the release where a removed endpoint last existed."),
    c("custom-field-match", Information, "A text custom field with filter_logic loose: `cf_x=v` is a case-insensitive contains, not an exact match."),
    c("needs-instance", Information, "A plugin endpoint with stock knowledge: its filters need an index built from the instance."),
    c("inventory-filter-scope", Warning, "A `query_filters` key of nb_inventory that is a filter of only one of devices and virtual machines: the plugin drops it from the other's query."),
    c("tag-match-all", Information, "Several `tag` values select objects with ALL of the tags (AND); `tag__any` (4.6+) selects any."),
    c("cable-termination-type", Information, "`termination_a_type` / `termination_b_type` on cables match either end; `termination_a_id` / `termination_b_id` are end-bound."),
    c("limit-range", Error, "`limit` outside 1..100 on netbox_get_objects / netbox_search_objects: the MCP server rejects the call."),
];

/// The entry for `code`, if it is a REST code.
pub fn info(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|c| c.code == code)
}

/// Default severity of a REST code (`Error` for an unknown code, which never happens).
pub(crate) fn default_severity(code: &str) -> Severity {
    info(code).map(|c| c.severity).unwrap_or(Error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for c in CODES {
            assert!(seen.insert(c.code), "duplicate {}", c.code);
            assert!(c
                .code
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch == '-'));
            assert!(!c.summary.is_empty());
        }
        assert_eq!(info("null-complement").unwrap().severity, Information);
        assert_eq!(default_severity("filler-argument"), Hint);
    }
}
