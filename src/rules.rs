//! The code catalogue: one line of help per diagnostic code, for SARIF `rules`, the settings'
//! check of severity codes (`config`), and any tool that wants a summary. Core, so that neither
//! `config` nor the server depends on `cli`.
//! The long form of each entry is `docs/diagnostics.md`; a test keeps the two in step.

/// A diagnostic code with its one-line summary and the fix in one sentence.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable kebab-case code, e.g. `unknown-filter`.
    pub code: &'static str,
    /// What is wrong, in one line.
    pub summary: &'static str,
    /// What NetBox does and how to fix it.
    pub help: &'static str,
}

const fn r(code: &'static str, summary: &'static str, help: &'static str) -> Rule {
    Rule {
        code,
        summary,
        help,
    }
}

/// Every code `check` can report, REST first, then GraphQL, then knowledge.
pub const RULES: &[Rule] = &[
    r("unknown-filter", "Not a filter of this endpoint",
      "NetBox ignores unknown query parameters and returns every object (HTTP 200). Use the suggested filter of this endpoint (e.g. `role_id` instead of `device_role_id` on /api/dcim/devices/)."),
    r("unsupported-lookup", "Lookup NetBox does not generate for this filter",
      "NetBox has no `__in`, `__isnull`, `__null` or Django lookups (`__icontains`, `__startswith`, ...) and relation filters only get `__n`; the filter is ignored. Pass a list on the bare key instead of `__in`; use `__ic`, `__isw`, `__iew`, `__ie` for the Django spellings."),
    r("multi-hop", "Filter across two relations",
      "REST filters cannot traverse relations (`device__site_id`); NetBox ignores the key. Query the intermediate object first, then filter by its id (`device_id`)."),
    r("invalid-choice", "Value is not one of the filter's choices",
      "NetBox answers HTTP 400 for a value outside the choice set, also on `__ic`/`__isw`/... of a declared choice filter. Use the machine value (`active`, not `Active`; `create`, not `created`)."),
    r("null-relation", "Null test written as a lookup",
      "`<relation>__empty` and `__isnull` are not filters on relations and are ignored. Select objects without the relation with the value `null` on the id filter: `tenant_id: \"null\"`."),
    r("null-complement", "`__n` with null selects objects that HAVE the relation",
      "`tenant__n: null` is honoured: it excludes objects without a tenant. If you meant objects without a tenant, use `tenant_id: \"null\"`."),
    r("dropped-value", "Value never reaches NetBox",
      "None/null, an empty list or an empty string is dropped (or sent empty) by the client, so the call is unfiltered (an empty relation id or choice is an HTTP 400). Use the string `\"null\"` to select empty relations, or remove the filter."),
    r("filler-argument", "Optional tool argument filled with an empty value",
      "Strict-schema clients fill optional arguments with `\"\"`, `[]`, `0` or `null`; remove the argument so the server default applies."),
    r("single-value-filter", "List given to a filter that takes one value",
      "NetBox uses only one of the values. Make one call per value."),
    r("comma-list", "Comma-separated values on a numeric filter",
      "`site_id=21,7` is an HTTP 400. Give a list (repeated key): `site_id: [21, 7]`."),
    r("invalid-value", "Value does not fit the filter's type",
      "NetBox answers HTTP 400 (e.g. `tenant_id=abc`), for some forms HTTP 500 (`vlan=<text>`, `created__empty=<date>`). Give a value of the parameter's type (an integer id, a date, a boolean)."),
    r("wrong-filter-for-type", "Filter of another object type",
      "`within`, `within_include` and `contains` exist on prefixes, not IP addresses (ignored there); use `parent`. `without` exists nowhere."),
    r("vrf-needs-rd", "`vrf` takes the route distinguisher",
      "On IPAM endpoints `vrf` matches the VRF's RD (`65000:100`); a name is an HTTP 400. Use `vrf_id` for ids."),
    r("slug-expected", "Display name given to a slug filter",
      "Relation filters such as `site`, `tenant`, `role` match the slug; a display name is an HTTP 400. Use the slug (`main-office`) or the `_id` filter."),
    r("boolean-value", "Boolean filter given something other than true/false",
      "`has_primary_ip=1` or `=yes` is ignored. Use `true` or `false`."),
    r("invalid-regex", "Invalid regular expression in a `__regex` lookup",
      "NetBox passes the pattern to PostgreSQL, which fails with an HTTP 500. Fix the pattern."),
    r("server-fault", "Filter this NetBox release answers wrongly for any value",
      "A NetBox bug shown by the live sweep of that release (e.g. `rear_port_id` on /api/dcim/front-ports/ is an HTTP 500 on 4.6.8). Filter another way."),
    r("unknown-object-type", "Object type or endpoint NetBox does not have",
      "The MCP server rejects it and a REST URL answers 404. Use a known object type such as `dcim.device`."),
    r("version-only", "Filter exists only in another NetBox version",
      "The filter is not in the selected NetBox version and is ignored there. Use the form of your version, or select the right version with --netbox-version."),
    r("ignored-parameter", "Parameter NetBox reads elsewhere, not here",
      "`omit` (4.5.2+), `start` (4.6+) and `exclude=config_context` (devices and virtual machines only) are read by NetBox's views and paginator, not its filtersets. Elsewhere NetBox ignores them: nothing is filtered, and `start` on ≤ 4.5 still pages from the first object."),
    r("unknown-endpoint", "Not a REST endpoint of this NetBox release",
      "NetBox answers 404. Use the endpoint's path with dashes (`/api/ipam/ip-addresses/`), the plural (`/api/dcim/devices/`), or the replacement of a removed endpoint."),
    r("custom-field-match", "Loose text custom field matches by contains",
      "A text custom field with filter_logic loose filters with a case-insensitive contains, not an exact match. Set its filter logic to exact in NetBox for exact matches and lookups."),
    r("needs-instance", "Plugin endpoint needs the instance's knowledge",
      "Stock NetBox knowledge does not know plugin endpoints. Build an index from your instance with `netbox-lsp index build --url` to check them."),
    r("inventory-filter-scope", "nb_inventory `query_filters` key of only devices or only virtual machines",
      "`query_filters` go to /api/dcim/devices/ and /api/virtualization/virtual-machines/; nb_inventory drops a key that is not a filter of one of them from that query (a warning at run time), so that query is not filtered by it, or not made at all. Move the entry to `device_query_filters` or `vm_query_filters`."),
    r("tag-match-all", "Several tags mean all of them (information)",
      "NetBox's `tag` and `tag_id` filters AND their values: `tag=a&tag=b` selects objects tagged both. From NetBox 4.6 `tag__any` / `tag_id__any` select objects with any of them; before, query once per tag."),
    r("cable-termination-type", "Cable termination type filter is not bound to an end (information)",
      "`termination_a_type` and `termination_b_type` both match a termination of that type on either end of a cable, and `__n` excludes cables with that type on any end. Filter an end by `termination_a_id` / `termination_b_id`."),
    r("limit-range", "limit out of range",
      "The MCP tools accept `limit` from 1 to 100. Use 100 and page with `offset`."),
    r("graphql-syntax", "GraphQL syntax error",
      "NetBox rejects a document that does not parse. Fix the syntax at the position shown."),
    r("graphql-validation", "GraphQL document does not fit the schema",
      "NetBox rejects unknown fields, arguments, input fields, types and enum values. Use the suggested name of the selected NetBox version's schema."),
    r("graphql-filter-argument", "`filter:` instead of `filters:`",
      "NetBox's list fields take `filters:`; `filter:` is an unknown argument. Rename it."),
    r("graphql-pagination", "limit/offset written outside `pagination`",
      "NetBox's list fields take `pagination: {limit: N, offset: M}`; `limit:`/`offset:` arguments are rejected, and `start` with `offset` together is an error."),
    r("graphql-id-list", "ID filter in the wrong form for this NetBox version",
      "On 4.3/4.4 ID filters are bare (`id: 6`); on 4.5+ they are lookup objects (`id: {exact: 6}`, `id: {in_list: [1, 2]}`). Use the selected version's form."),
    r("graphql-choice-form", "Choice filter value in the wrong form for this NetBox version",
      "Choice fields take enum values (`STATUS_ACTIVE`, never `\"active\"`): bare on 4.3/4.4 (`status: STATUS_ACTIVE`), a lookup object from 4.5 (`status: {exact: STATUS_ACTIVE}`). Use the selected version's form."),
    r("graphql-null-filter", "`null` as a filter value",
      "NetBox treats a null filter as no filter and returns everything. Test for null with `{is_null: true}`."),
    r("graphql-alias-limit", "More than 10 aliases",
      "NetBox refuses documents with more than GRAPHQL_MAX_ALIASES (default 10) aliases. Split the query."),
    r("graphql-operation", "Mutation or subscription",
      "NetBox's GraphQL API is read-only. Use the REST API to change data."),
    r("graphql-snippet", "GraphQL that is part of a document (information)",
      "A block starting with an argument (`filters: {...}`) or a nested field is not a document NetBox can run and is not checked; write it inside a query to have it checked."),
    r("graphql-plugin-field", "Root field a plugin may add (information)",
      "The stock schema has no such `Query` field; if a plugin adds it, check it with the instance's schema (`--graphql-schema`, `index build --graphql`)."),
    r("upgrade-breaks", "Works on the current NetBox release, breaks on the upgrade target",
      "Reported by `check --upgrade-to` and the editor's `upgradeTo`: the target release ignores the filter, refuses the value or the GraphQL form, or answers it wrongly (release notes of each step, docs/upgrade.md). Apply the fix that works on both releases before the upgrade where there is one."),
    r("upgrade-changes", "The call's result changes with the upgrade",
      "Reported by `check --upgrade-to` and the editor's `upgradeTo`: a parameter the target no longer reads (`exclude` on 4.7: use `omit`), or one the current release ignores and the target reads (`omit` from 4.5.2, `tag__any` from 4.6, a fixed server fault), so the same call returns something else after the upgrade."),
    r("not-checked", "File too large to be checked completely",
      "Above the size limit only REST URLs are read: tool calls, pynetbox calls and GraphQL documents are not checked, so the file fails instead of passing unchecked. Split the file."),
    r("stale-index", "Index version differs from the instance",
      "The knowledge is for another NetBox version than the instance reports. Select the instance's version or rebuild the index from its /api/schema/."),
];

/// The rule of `code`, if it is a known code.
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}
