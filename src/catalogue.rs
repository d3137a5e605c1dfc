//! The code catalogue: every diagnostic code `check` and the language server can report, with
//! its default severity, a one-line title, the fix in a sentence, whether another release may
//! make it valid, and worked examples. The one place these facts live: the REST checks take
//! their default severities from here, [`crate::approx`] its list of codes to soften, the
//! settings their list of known codes, SARIF its `rules`, the server its code descriptions, and
//! `docs/diagnostics.md` its generated block per code (the upgrade and live codes have no
//! snippet example: they need two releases or a NetBox's answers; tests/upgrade.rs and
//! tests/live.rs hold their cases) (`tests/diagnostics_doc.rs` runs every
//! example through the real checker and keeps the page in step).

use crate::finding::{Does, Finding, Severity};

/// Code of a call that works on the current release and is wrong, ignored or refused on the
/// target (an error).
pub const BREAKS: &str = "upgrade-breaks";
/// Code of a call whose result changes without breaking: a parameter the target ignores, or one
/// the target starts to read (a warning).
pub const CHANGES: &str = "upgrade-changes";
/// Code of a call that works on the current release and breaks on a release that is not
/// shipped, as the shipped release's notes announce ([`crate::upgrade::announced`]; a warning:
/// not measured).
pub const ANNOUNCED: &str = "upgrade-announced";

/// What changes for a call when NetBox is upgraded, for the summary and the docs' release-note
/// citations ([`crate::upgrade`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UpgradeKind {
    /// A filter or lookup the target does not have (ignored there: every object).
    RemovedFilter,
    /// A value the target refuses (HTTP 400/500) or no longer matches.
    RefusedValue,
    /// An endpoint or object type the target does not have.
    RemovedEndpoint,
    /// A GraphQL document the target's schema rejects (grammar, renamed enum values).
    GraphqlGrammar,
    /// A filter the target answers wrongly for any value (a NetBox bug of that release).
    ServerFault,
    /// A list the target cuts at `MAX_PAGE_SIZE` without saying so, where the current release
    /// returned every object (GraphQL lists without `pagination` from 4.5.5).
    Truncated,
    /// A parameter the target no longer reads (`exclude` on 4.7).
    NoOp,
    /// Ignored or refused on the current release, read by the target (`omit` from 4.5.2,
    /// `tag__any` from 4.6.6, a server fault fixed).
    StartsToWork,
    /// Breaks on a release that is not shipped, as the shipped release's notes announce
    /// (`--upgrade-to 5.0`): expected, not measured.
    Announced,
}

impl UpgradeKind {
    /// Every kind, in summary order.
    pub const ALL: &'static [UpgradeKind] = &[
        UpgradeKind::RemovedFilter,
        UpgradeKind::RefusedValue,
        UpgradeKind::RemovedEndpoint,
        UpgradeKind::GraphqlGrammar,
        UpgradeKind::ServerFault,
        UpgradeKind::Truncated,
        UpgradeKind::NoOp,
        UpgradeKind::StartsToWork,
        UpgradeKind::Announced,
    ];

    /// Stable kebab-case name (`removed-filter`), for the summary and JSON consumers.
    pub fn as_str(self) -> &'static str {
        match self {
            UpgradeKind::RemovedFilter => "removed-filter",
            UpgradeKind::RefusedValue => "refused-value",
            UpgradeKind::RemovedEndpoint => "removed-endpoint",
            UpgradeKind::GraphqlGrammar => "graphql-grammar",
            UpgradeKind::ServerFault => "server-fault",
            UpgradeKind::Truncated => "truncated",
            UpgradeKind::NoOp => "no-op",
            UpgradeKind::StartsToWork => "starts-to-work",
            UpgradeKind::Announced => "announced",
        }
    }

    /// The kind of a finding the target release has and the current one does not: a list cut
    /// at `MAX_PAGE_SIZE` ([`Does::Truncates`]) is [`UpgradeKind::Truncated`], any other its
    /// code's catalogue row ([`Code::upgrade`]); a refused value for a code not in the
    /// catalogue.
    pub fn of_new(f: &Finding) -> UpgradeKind {
        if does(f) == Does::Truncates {
            return UpgradeKind::Truncated;
        }
        get(f.code).map_or(UpgradeKind::RefusedValue, |c| c.upgrade)
    }

    /// The code a change of this kind is reported with.
    pub fn code(self) -> &'static str {
        match self {
            UpgradeKind::Truncated | UpgradeKind::NoOp | UpgradeKind::StartsToWork => CHANGES,
            UpgradeKind::Announced => ANNOUNCED,
            _ => BREAKS,
        }
    }
}

/// The part of the documentation a code belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// REST filters (tool calls, pynetbox, URLs, Ansible): `src/rest/`.
    Rest,
    /// GraphQL documents: `src/graphql/`.
    Graphql,
    /// The tool itself: what it could not check, which knowledge it uses.
    Knowledge,
}

/// One worked example of a code: a host snippet checked against one shipped release.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// The NetBox release whose embedded knowledge checks it (`4.6.8`), or `instance` for the
    /// customised 4.6.8 of `tests/fixtures/instance/` (custom fields, a plugin).
    pub release: &'static str,
    /// The host's file extension (`py`, `md`, `txt`, `yaml`, `json`, `graphql`).
    pub host: &'static str,
    /// The snippet (without a final newline).
    pub input: &'static str,
    /// True for a wrong input (it must give a finding of the code), false for the right form
    /// shown beside it (it must give no error or warning).
    pub wrong: bool,
}

/// One diagnostic code.
#[derive(Debug, Clone, Copy)]
pub struct Code {
    /// Stable kebab-case code (`unknown-filter`).
    pub code: &'static str,
    /// Where it is documented and which checks report it.
    pub family: Family,
    /// Default severity. The finding carries the severity actually used ([`Self::severity_note`]).
    pub severity: Severity,
    /// When the severity differs from the default, in words (empty when it never does).
    pub severity_note: &'static str,
    /// What is wrong, in a few words (SARIF `shortDescription`).
    pub title: &'static str,
    /// What NetBox does and how to fix it, in one or two sentences (SARIF `help`).
    pub help: &'static str,
    /// True when the error says a name or value is missing from the selected release, which
    /// another release may have: lowered to a warning when a shipped release stands in for the
    /// one asked for ([`crate::approx`]).
    pub may_differ: bool,
    /// What NetBox does with a call this code's finding is about: ignores the filter, refuses
    /// the call, matches nothing, faults... (a finding may say otherwise in
    /// [`crate::finding::Facts::does`]; [`does`] reads both). Live verification compares the
    /// counts with it; a live row that answered no object agrees with
    /// [`Does::MatchesNothing`].
    pub netbox: Does,
    /// The kind of change when an upgrade's target release reports this code on a call the
    /// current release accepts ([`crate::upgrade`]).
    pub upgrade: UpgradeKind,
    /// Worked examples, wrong inputs first; empty for codes no snippet can show.
    pub examples: &'static [Example],
}

const fn wrong(host: &'static str, input: &'static str) -> Example {
    Example {
        release: "4.6.8",
        host,
        input,
        wrong: true,
    }
}

const fn right(host: &'static str, input: &'static str) -> Example {
    Example {
        release: "4.6.8",
        host,
        input,
        wrong: false,
    }
}

const fn on(release: &'static str, e: Example) -> Example {
    Example { release, ..e }
}

#[allow(clippy::too_many_arguments)]
const fn code(
    code: &'static str,
    netbox: Does,
    upgrade: UpgradeKind,
    family: Family,
    severity: Severity,
    severity_note: &'static str,
    title: &'static str,
    help: &'static str,
    may_differ: bool,
    examples: &'static [Example],
) -> Code {
    Code {
        code,
        family,
        severity,
        severity_note,
        title,
        help,
        may_differ,
        netbox,
        upgrade,
        examples,
    }
}

use Does::{Answers, Faults, Ignores, MatchesNothing, Refuses, Varies};
use Family::{Graphql, Knowledge, Rest};
use Severity::{Error, Hint, Information, Warning};
use UpgradeKind::{
    GraphqlGrammar, NoOp, RefusedValue, RemovedEndpoint, RemovedFilter, ServerFault,
};

/// Every code, in documentation order: REST, then GraphQL, then knowledge.
pub const CODES: &[Code] = &[
    code("unknown-filter", Ignores, RemovedFilter, Rest, Error, "",
      "Not a filter of this endpoint",
      "NetBox ignores unknown query parameters and returns every object (HTTP 200). Use the suggested filter of this endpoint (e.g. `role_id` instead of `device_role_id` on /api/dcim/devices/).",
      true,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"device_role_id": 4})"#),
        wrong("py", r#"netbox_get_objects("circuits.circuit", filters={"circuit_type_id": 1})"#),
        right("py", r#"netbox_get_objects("dcim.interface", filters={"device_role_id": 4})"#),
      ]),
    code("unsupported-lookup", Ignores, RemovedFilter, Rest, Error, "",
      "Lookup NetBox does not generate for this filter",
      "NetBox has no `__in`, `__isnull`, `__null` or Django lookups (`__icontains`, `__startswith`, ...) and relation filters only get `__n`; the filter is ignored. Pass a list on the bare key instead of `__in`; use `__ic`, `__isw`, `__iew`, `__ie` for the Django spellings.",
      true,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"site_id__in": [21, 7]})"#),
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"name__icontains": "edge"})"#),
        wrong("yaml", "- set_fact:\n    found: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='name__in=' + names | join(',')) }}\""),
      ]),
    code("multi-hop", Ignores, RemovedFilter, Rest, Error, "",
      "Filter across a relation",
      "REST filters cannot traverse relations (`device__site_id`, `site.id`); NetBox ignores the key. Use the endpoint's own filter for the same thing when it has one (`installed_device__name` → `installed_device` on device bays, `role__slug` → `role`), else query the intermediate object first, then filter by its id (`device_id`).",
      false,
      &[
        wrong("py", r#"nb.dcim.device_bays.filter(installed_device__name="blade-7")"#),
        wrong("txt", "/api/dcim/devices/?role__slug=leaf&site.id=3"),
        wrong("py", r#"nb.dcim.devices.filter(manufacturer__name="Juniper Networks")"#),
        wrong("py", r#"netbox_get_objects("dcim.interface", filters={"device__site_id": 12})"#),
      ]),
    code("invalid-choice", Refuses, RefusedValue, Rest, Warning, "an error when the index was built from your own instance: the stock index says warning because an instance can extend some choice sets",
      "Value is not one of the filter's choices",
      "NetBox answers HTTP 400 for a value outside the choice set, also on `__ic`/`__isw`/... of a declared choice filter, and for a number outside an integer choice set (`width`: 10, 19, 21, 23). Use the machine value (`active`, not `Active`; `create`, not `created`).",
      true,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"status": "Active"})"#),
        wrong("py", r#"netbox_get_changelogs(filters={"action": "created"})"#),
        wrong("py", r#"nb.dcim.racks.filter(width=24)"#),
      ]),
    code("null-relation", Ignores, RemovedFilter, Rest, Error, "",
      "Null test written as a lookup",
      "`<relation>__empty` and `__isnull` are not filters on relations and are ignored. Select objects without the relation with the value `null` on the id filter: `tenant_id: \"null\"`.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"tenant__isnull": True})"#),
      ]),
    code("null-complement", Answers, RefusedValue, Rest, Information, "",
      "`__n` with null selects objects that HAVE the relation",
      "`tenant__n: null` is honoured: it excludes objects without a tenant. If you meant objects without a tenant, use `tenant_id: \"null\"`.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"tenant_id__n": "null"})"#),
      ]),
    code("dropped-value", Ignores, RefusedValue, Rest, Error, "",
      "Value never reaches NetBox",
      "None/null, an empty list or an empty string is dropped (or sent empty) by the client, so the call is unfiltered (an empty relation id or choice is an HTTP 400). Use the string `\"null\"` to select empty relations, or remove the filter.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"tenant_id": None})"#),
      ]),
    code("filler-argument", Varies, RefusedValue, Rest, Hint, "a warning when the MCP server rejects the filler or returns nothing",
      "Optional tool argument filled with an empty value",
      "Strict-schema clients fill optional arguments with `\"\"`, `[]`, `0` or `null`; remove the argument so the server default applies.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("ipam.vlan", filters={"group_id": 2}, fields=[], ordering="")"#),
      ]),
    code("single-value-filter", Varies, RefusedValue, Rest, Error, "",
      "List given to a filter that takes one value",
      "NetBox uses only one of the values. Make one call per value; `fields`, `omit`, `ordering` and `exclude` take several names in one value joined with commas (`fields=id,name`), not a list (pynetbox and `requests` send it as repeated keys, of which NetBox reads the last).",
      false,
      &[
        wrong("py", r#"netbox_get_objects("ipam.prefix", filters={"within": ["10.0.0.0/16", "10.1.0.0/16"]})"#),
        wrong("py", r#"nb.dcim.devices.filter(site="fra1", fields=["id", "name"])"#),
        right("py", r#"nb.dcim.devices.filter(site="fra1", fields="id,name")"#),
      ]),
    code("comma-list", Refuses, RefusedValue, Rest, Error, "",
      "Several values in one comma-separated value",
      "`site_id=21,7` is an HTTP 400: give a list (repeated key), `site_id: [21, 7]`. Values an Ansible `api_filter` joins with commas reach NetBox as one value (an HTTP 400 on id, number and choice filters, a match for the whole string on text filters): join with `' name='` instead.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"site_id": "21,7"})"#),
        wrong("yaml", "- debug:\n    msg: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='site=fra1 name=' + names | join(',')) }}\""),
      ]),
    code("invalid-value", Refuses, RefusedValue, Rest, Error, "a warning for dates and time zones, which are checked by shape",
      "Value does not fit the filter's type",
      "NetBox answers HTTP 400 (e.g. `tenant_id=abc`, `created_by_request=abc`), for some forms HTTP 500 (`vlan=<text>`, `created__empty=<date>`). Give a value of the parameter's type (an integer id, a date, a boolean, a UUID).",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"tenant_id": "abc"})"#),
        wrong("py", r#"nb.dcim.interfaces.filter(device_id="leaf-01")"#),
        wrong("txt", "/api/dcim/devices/?interface_count=true&virtual_chassis_id=true"),
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"tenant_id": True})"#),
        wrong("txt", "/api/core/object-changes/?request_id=last"),
      ]),
    code("object-type-value", MatchesNothing, RefusedValue, Rest, Warning, "",
      "Object-type filter given no `app_label.model`",
      "Filters of object types (`object_type`, `assigned_object_type`, `termination_a_type`, `scope_type`, ...) take `app_label.model` (`dcim.interface`); a number, a model name without its app or a plural matches nothing (HTTP 200, an empty list). Use the object type, or the `_id` filter for its numeric id.",
      false,
      &[
        wrong("txt", "/api/ipam/ip-addresses/?assigned_object_type=interface"),
        wrong("py", r#"nb.extras.journal_entries.filter(assigned_object_type="dcim.devices")"#),
        wrong("txt", "/api/extras/tagged-objects/?object_type=12"),
        right("txt", "/api/ipam/prefixes/?scope_type=dcim.site"),
      ]),
    code("relation-field", Refuses, RefusedValue, Rest, Warning, "information when the value may well be the field the filter takes: a slug with no separator, a small number",
      "Relation filter matches another field here",
      "Most endpoints' filter of this name match one field of the related object (the site's slug, the AS number); this endpoint's matches another (the site's name, the ASN object's id), as its own OpenAPI document says. Plugins write their own filtersets. Give the field this filter takes, or use its `_id` filter.",
      false,
      &[
        on("instance", wrong("txt", "/api/plugins/bgp/session/?site=dm-akron")),
        on("instance", wrong("txt", "/api/plugins/bgp/peer-group/?remote_as=65002")),
        on("instance", right("txt", "/api/plugins/bgp/session/?site=DM-Akron&remote_as=65002")),
      ]),
    code("wrong-filter-for-type", Ignores, RemovedFilter, Rest, Error, "",
      "Filter of another object type",
      "`within`, `within_include` and `contains` exist on prefixes, not IP addresses (ignored there); use `parent`. `without` exists nowhere.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("ipam.ipaddress", filters={"within": "10.20.0.0/16"})"#),
        right("py", r#"netbox_get_objects("ipam.prefix", filters={"within": "10.20.0.0/16"})"#),
      ]),
    code("vrf-needs-rd", Refuses, RefusedValue, Rest, Error, "",
      "`vrf` takes the route distinguisher",
      "On IPAM endpoints `vrf` matches the VRF's RD (`65000:100`); a name is an HTTP 400. Use `vrf_id` for ids.",
      false,
      &[
        wrong("yaml", "tool: netbox_get_objects\nobject_type: ipam.prefix\nfilters:\n  vrf: Production"),
      ]),
    code("slug-expected", Refuses, RefusedValue, Rest, Error, "a warning when only upper-case letters are wrong (a slug may have them)",
      "Display name given to a slug filter",
      "Relation filters such as `site`, `tenant`, `role` match the slug; a display name is an HTTP 400. Use the slug (`main-office`) or the `_id` filter; a number there is most often an id, for the `_id` filter (information).",
      false,
      &[
        wrong("txt", "/api/dcim/devices/?site=Frankfurt%20DC1"),
        wrong("txt", "/api/dcim/devices/?site=12"),
      ]),
    code("boolean-value", Ignores, RefusedValue, Rest, Error, "",
      "Boolean filter given something other than true/false",
      "`has_primary_ip=1` or `=yes` is ignored. Use `true` or `false`.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"has_primary_ip": "yes"})"#),
        wrong("txt", "/api/dcim/devices/?interfaces=48"),
      ]),
    code("invalid-regex", Refuses, RefusedValue, Rest, Warning, "",
      "Invalid regular expression in a `__regex` lookup",
      "NetBox passes the pattern to PostgreSQL, which fails with an HTTP 500. Fix the pattern.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"name__regex": "["})"#),
      ]),
    code("server-fault", Faults, ServerFault, Rest, Warning, "",
      "Filter this NetBox release answers wrongly for any value",
      "A NetBox bug shown by the live sweep of that release (e.g. `rear_port_id` on /api/dcim/front-ports/ is an HTTP 500 on 4.6.8). Filter another way.",
      false,
      &[
        wrong("txt", "/api/dcim/front-ports/?rear_port_id=1250"),
      ]),
    code("unknown-object-type", Varies, RemovedEndpoint, Rest, Error, "a warning for a `plugin.model` type outside stock NetBox",
      "Object type or endpoint NetBox does not have",
      "The MCP server rejects it and a REST URL answers 404. Use a known object type such as `dcim.device`.",
      true,
      &[
        wrong("py", r#"netbox_get_objects("dcim.devices_list", filters={})"#),
        wrong("py", r#"netbox_get_objects("device", filters={})"#),
        wrong("py", r#"netbox_get_objects("netbox_bgp.session", filters={})"#),
      ]),
    code("version-only", Ignores, RemovedFilter, Rest, Error, "a warning when the filter exists in a newer release than the selected one",
      "Filter exists only in another NetBox version",
      "The filter is not in the selected NetBox version and is ignored there. Use the form of your version, or select the right version with --netbox-version.",
      true,
      &[
        on("4.3.3", wrong("py", r#"netbox_get_objects("dcim.device", filters={"owner_id": 3})"#)),
      ]),
    code("ignored-parameter", Ignores, NoOp, Rest, Warning, "",
      "Parameter NetBox reads elsewhere, not here",
      "`omit` (4.5.2+), `start` (4.6+) and `exclude=config_context` (devices and virtual machines only) are read by NetBox's views and paginator, not its filtersets. Elsewhere NetBox ignores them: nothing is filtered, and `start` on ≤ 4.5 still pages from the first object. A detail URL (`/api/dcim/devices/42/`) reads `brief`, `fields`, `omit` and `format`; there `limit`, `offset`, `start`, `export` and `ordering` do nothing, and any name that is no filter of the list is ignored.",
      false,
      &[
        wrong("txt", "/api/dcim/sites/?exclude=config_context"),
        on("4.5.10", wrong("txt", "/api/dcim/interfaces/?start=5000&limit=1000")),
        wrong("txt", "/api/dcim/devices/42/?limit=5&embed=interfaces"),
        right("txt", "/api/dcim/devices/?exclude=config_context&brief=1"),
      ]),
    code("detail-filter", Varies, RefusedValue, Rest, Warning, "",
      "Filter on a detail URL",
      "A detail URL (`/api/dcim/devices/42/`) answers one object. NetBox still applies the list's filters to it (Django REST framework's `get_object` filters the queryset first): the object when it matches, HTTP 404 when not, never another object. Leave the filter out, or query the list with it.",
      false,
      &[
        wrong("txt", "/api/dcim/devices/42/?role_id=3"),
        right("txt", "/api/dcim/devices/42/?fields=id,name,role"),
      ]),
    code("unknown-field", Varies, RefusedValue, Rest, Error, "a warning in `omit` (the answer is only larger)",
      "Not a field of the endpoint's objects",
      "NetBox drops names of `fields` and `omit` that its objects do not have, without an error: `fields=nme` alone answers objects with no field at all, `omit=nme` leaves nothing out. Use the field names of the endpoint's response (top-level names only: `site`, not `site.name`).",
      true,
      &[
        wrong("txt", "/api/dcim/devices/?fields=id,nme,primary_ip"),
        wrong("py", r#"netbox_get_object_by_id("dcim.device", 42, fields=["id", "hostname"])"#),
        right("txt", "/api/dcim/devices/?fields=id,name,primary_ip"),
      ]),
    code("unknown-endpoint", Refuses, RemovedEndpoint, Rest, Error, "",
      "Not a REST endpoint of this NetBox release",
      "NetBox answers 404. Use the endpoint's path with dashes (`/api/ipam/ip-addresses/`), the plural (`/api/dcim/devices/`), or the replacement of a removed endpoint.",
      true,
      &[
        wrong("txt", "/api/ipam/ip_addresses/?device=sw1"),
        wrong("txt", "/api/dcim/interface_connections/?device_id=1"),
      ]),
    code("custom-field-match", Answers, RefusedValue, Rest, Information, "",
      "Loose text custom field matches by contains",
      "A text custom field with filter_logic loose filters with a case-insensitive contains, not an exact match. Set its filter logic to exact in NetBox for exact matches and lookups.",
      false,
      &[
        on("instance", wrong("txt", "/api/dcim/devices/?cf_owner_team=netops")),
      ]),
    code("needs-instance", Varies, RefusedValue, Rest, Information, "",
      "Plugin endpoint needs the instance's knowledge",
      "Stock NetBox knowledge does not know plugin endpoints. Build an index from your instance with `netbox-lsp index build --url` to check them.",
      false,
      &[
        wrong("txt", "/api/plugins/bgp/session/?remote_as=65001"),
      ]),
    code("inventory-filter-scope", Varies, RefusedValue, Rest, Warning, "",
      "nb_inventory `query_filters` key of only devices or only virtual machines",
      "`query_filters` go to /api/dcim/devices/ and /api/virtualization/virtual-machines/; nb_inventory drops a key that is not a filter of one of them from that query (a warning at run time), so that query is not filtered by it, or not made at all. Move the entry to `device_query_filters` or `vm_query_filters`.",
      false,
      &[
        wrong("yaml", "plugin: netbox.netbox.nb_inventory\nquery_filters:\n  - rack_id: 12"),
        right("yaml", "plugin: netbox.netbox.nb_inventory\ndevice_query_filters:\n  - rack_id: 12"),
      ]),
    code("tag-match-all", Answers, RefusedValue, Rest, Information, "",
      "Several tags mean all of them (information)",
      "NetBox's `tag` and `tag_id` filters AND their values: `tag=a&tag=b` selects objects tagged both. From NetBox 4.6 `tag__any` / `tag_id__any` select objects with any of them; before, query once per tag.",
      false,
      &[
        wrong("txt", "/api/dcim/devices/?tag=edge&tag=prod"),
        right("txt", "/api/dcim/devices/?tag__any=edge&tag__any=prod"),
      ]),
    code("cable-termination-type", Answers, RefusedValue, Rest, Information, "",
      "Cable termination type filter is not bound to an end (information)",
      "`termination_a_type` and `termination_b_type` both match a termination of that type on either end of a cable, and `__n` excludes cables with that type on any end. Filter an end by `termination_a_id` / `termination_b_id`.",
      false,
      &[
        wrong("txt", "/api/dcim/cables/?termination_a_type=dcim.interface"),
      ]),
    code("limit-range", Varies, RefusedValue, Rest, Error, "",
      "limit out of range",
      "The MCP tools accept `limit` from 1 to 100. Use 100 and page with `offset`.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={}, limit=500)"#),
      ]),
    code("graphql-syntax", Refuses, GraphqlGrammar, Graphql, Error, "",
      "GraphQL syntax error",
      "NetBox rejects a document that does not parse. Fix the syntax at the position shown.",
      false,
      &[wrong("graphql", "{ device_list( { id } }")]),
    code("graphql-validation", Refuses, GraphqlGrammar, Graphql, Error, "",
      "GraphQL document does not fit the schema",
      "NetBox rejects unknown fields, arguments, input fields, types and enum values. Use the suggested name of the selected NetBox version's schema.",
      true,
      &[
        wrong("graphql", "{ device_list(filters: {has_primary_ip: true}) { id } }"),
        wrong("graphql", "{ vlan_list(filters: {vid: {gte: 100}}) { id } }"),
        wrong("graphql", "{ device_list(filters: {name: {exact: \"a\"}, name: {exact: \"b\"}}) { id } }"),
        wrong("graphql", "{ devcie_list { id } }"),
        wrong("graphql", "{ ip_address_list(filters: {vrf: \"blue\"}, pagination: {limit: 50}) { id address } }"),
        on("4.4.10", wrong("graphql", "{ devices(name: \"leaf-01\") { id name serial } }")),
        wrong("graphql", "{ front_port_list(pagination: {limit: 50}) { id rear_port { id } } }"),
      ]),
    code("graphql-filter-argument", Refuses, GraphqlGrammar, Graphql, Error, "",
      "Filters outside `filters:`",
      "NetBox's list fields (4.0 and later) read their filters only inside `filters:`: `filter:` is an unknown argument (rename it), and a filter written as a plain argument (`vlan_list(vid: 100)`, the 3.x form) is refused (put it inside `filters: {...}`). The errors of the values inside are reported in the same run.",
      false,
      &[
        wrong("graphql", "{ device_list(filter: {name: {exact: \"fra1-leaf01\"}}) { id } }"),
        wrong("graphql", "{ site_list(region: \"emea\", pagination: {limit: 50}) { id } }"),
      ]),
    code("graphql-pagination", Refuses, GraphqlGrammar, Graphql, Error, "a warning (no `filters:`) or information (with `filters:`) for a root list without `pagination` on releases that cap unpaginated lists (4.5.5+)",
      "limit/offset written outside `pagination`",
      "NetBox's list fields take `pagination: {limit: N, offset: M}`; `limit:`/`offset:` arguments are rejected, and `start` with `offset` together is an error.",
      false,
      &[wrong("graphql", "{ device_list(limit: 5) { id } }")]),
    code("graphql-id-list", Refuses, GraphqlGrammar, Graphql, Error, "",
      "ID filter in the wrong form for this NetBox version",
      "On 4.3/4.4 ID filters are bare (`id: 6`); on 4.5+ they are lookup objects (`id: {exact: 6}`, `id: {in_list: [1, 2]}`). Use the selected version's form.",
      false,
      &[
        wrong("graphql", "{ device_list(filters: {id: [1, 2]}) { id } }"),
        on("4.4.10", wrong("graphql", "{ device_list(filters: {id: {exact: 6}}) { id } }")),
      ]),
    code("graphql-choice-form", Refuses, GraphqlGrammar, Graphql, Error, "",
      "Choice filter value in the wrong form for this NetBox version",
      "Choice fields take enum values (`STATUS_ACTIVE`, never `\"active\"`, a label or a number: `family: 4` is `FAMILY_4`): bare on 4.3/4.4 (`status: STATUS_ACTIVE`), a lookup object from 4.5 (`status: {exact: STATUS_ACTIVE}`). Use the selected version's form.",
      false,
      &[
        wrong("graphql", "{ device_list(filters: {status: \"active\"}) { id } }"),
        wrong("graphql", "{ prefix_list(filters: {family: {exact: 6}}, pagination: {limit: 50}) { id prefix } }"),
        on("4.4.10", wrong("graphql", "{ device_list(filters: {status: {exact: STATUS_ACTIVE}}) { id } }")),
      ]),
    code("graphql-null-filter", Refuses, GraphqlGrammar, Graphql, Error, "",
      "`null` as a filter value",
      "NetBox treats a null filter as no filter and returns everything. Test for null with `{is_null: true}`.",
      false,
      &[wrong("graphql", "{ device_list(filters: {tenant_id: null}) { id } }")]),
    code("graphql-alias-limit", Refuses, GraphqlGrammar, Graphql, Error, "",
      "More than 10 aliases",
      "NetBox refuses documents with more than GRAPHQL_MAX_ALIASES (default 10) aliases. Split the query.",
      false,
      &[wrong("graphql", "{\n  a1: device(id: 1) { id }\n  a2: device(id: 2) { id }\n  a3: device(id: 3) { id }\n  a4: device(id: 4) { id }\n  a5: device(id: 5) { id }\n  a6: device(id: 6) { id }\n  a7: device(id: 7) { id }\n  a8: device(id: 8) { id }\n  a9: device(id: 9) { id }\n  a10: device(id: 10) { id }\n  a11: device(id: 11) { id }\n}")]),
    code("graphql-operation", Refuses, GraphqlGrammar, Graphql, Error, "",
      "Mutation or subscription",
      "NetBox's GraphQL API is read-only. Use the REST API to change data.",
      false,
      &[wrong("graphql", "mutation { create_device(data: {name: \"x\"}) { id } }")]),
    code("graphql-snippet", Answers, GraphqlGrammar, Graphql, Information, "",
      "GraphQL that is part of a document (information)",
      "A block starting with an argument (`filters: {...}`) or a nested field is not a document NetBox can run and is not checked; write it inside a query to have it checked.",
      false,
      &[wrong("graphql", "filters: {site_id: $siteId}")]),
    code("graphql-plugin-field", Answers, GraphqlGrammar, Graphql, Information, "",
      "Root field a plugin may add (information)",
      "The stock schema has no such `Query` field; if a plugin adds it, check it with the instance's schema (`--graphql-schema`, `index build --graphql`).",
      false,
      &[wrong("graphql", "{ netbox_bgp_session_list { id } }")]),
    code("not-checked", Varies, RefusedValue, Knowledge, Error, "",
      "File or code that could not be checked completely",
      "A file above the size limit (only its REST URLs are read), code nested deeper than the parsers take, or a notebook that is not valid JSON (a merge conflict, cut short) is not checked in full, so it fails instead of passing unchecked. The message says why and what to do.",
      false,
      &[]),
    code("stale-index", Varies, RefusedValue, Knowledge, Warning, "",
      "Index version differs from the instance",
      "The knowledge is for another NetBox version than the instance reports. Select the instance's version or rebuild the index from its /api/schema/.",
      false,
      &[]),
    code("unused-suppression", Varies, RefusedValue, Knowledge, Warning, "off in the editor unless selected (`extend_select = [\"unused-suppression\"]`): it would flag a comment while its call is being typed",
      "Suppression comment that covers no finding",
      "A `netbox-lsp: ignore` comment (or a code in its list, or an `ignore-start` range) that suppresses nothing: the mistake was fixed or the check changed, and the comment now hides whatever comes next. Remove it (the suggested fix), or the code from its list.",
      false,
      &[
        wrong("py", r#"netbox_get_objects("dcim.device", filters={"role_id": 4})  # netbox-lsp: ignore[unknown-filter] -- the 3.x name"#),
        wrong("py", "# netbox-lsp: ignore[unknown-filter,invalid-choice]\nnetbox_get_objects(\"dcim.device\", filters={\"device_role_id\": 4})"),
        right("py", r#"netbox_get_objects("dcim.device", filters={"device_role_id": 4})  # netbox-lsp: ignore[unknown-filter] -- a lesson on the 3.x name"#),
      ]),
    code("upgrade-breaks", Varies, RefusedValue, Knowledge, Error, "",
      "Works on the current NetBox release, breaks on the upgrade target",
      "Reported by `check --upgrade-to` and the editor's `upgradeTo`: the target release ignores the filter, refuses the value or the GraphQL form, or answers it wrongly (release notes of each step, docs/upgrade.md). Apply the fix that works on both releases before the upgrade where there is one.",
      false,
      &[]),
    code("upgrade-changes", Varies, RefusedValue, Knowledge, Warning, "",
      "The call's result changes with the upgrade",
      "Reported by `check --upgrade-to` and the editor's `upgradeTo`: a parameter the target no longer reads (`exclude` on 4.7: use `omit`), or one the current release ignores and the target reads (`omit` from 4.5.2, `tag__any` from 4.6, a fixed server fault), so the same call returns something else after the upgrade.",
      false,
      &[]),
    code("upgrade-announced", Varies, RefusedValue, Knowledge, Warning, "",
      "Announced to break on a release that is not shipped yet",
      "Reported by `check --upgrade-to` a release past the shipped ones (`5.0`): the call uses a filter, endpoint or GraphQL field that the release notes of the newest shipped release say goes in that release. Expected, not measured: the knowledge of that release does not exist yet. Move to the replacement the message names.",
      false,
      &[]),
    code("announced-removal", Varies, RefusedValue, Knowledge, Information, "",
      "Works now; announced to go in a later release",
      "The filter, endpoint or GraphQL field works on the selected release, but its release notes announce its removal (`will be removed in NetBox v5.0`) or its schema marks it `@deprecated`. The message names the release it goes in and what replaces it; `check --upgrade-to` that release lists every use.",
      false,
      &[
        on("4.7.3", wrong("py", r#"netbox_get_objects("dcim.rack", filters={"form_factor": "4-post-cabinet"})"#)),
        on("4.7.3", wrong("graphql", "{ service_list(pagination: {limit: 10}) { name protocol ports } }")),
        on("4.7.3", right("graphql", "{ service_list(pagination: {limit: 10}) { name port_mappings } }")),
      ]),
    code("live-narrowed", Varies, RefusedValue, Knowledge, Information, "",
      "Live: the filters narrowed the list",
      "`check --live` / Verify against NetBox: NetBox answered fewer objects with the call's filters than without (both counts shown): they work on this instance.",
      false,
      &[]),
    code("live-unchanged", Varies, RefusedValue, Knowledge, Warning, "",
      "Live: the same objects with and without the filters",
      "NetBox answered as many objects with the filters as without: it ignored a filter, or every object matches. The message says which, from the knowledge and, for one filter, its negation. Fix the filter the message names.",
      false,
      &[]),
    code("live-empty", Varies, RefusedValue, Knowledge, Information, "a warning where the static knowledge says the filters work (the values name nothing here)",
      "Live: no object matches",
      "NetBox answered 0 objects with the filters (and some without): the values name nothing on this instance (a slug, id or value no object has).",
      false,
      &[]),
    code("live-refused", Varies, RefusedValue, Knowledge, Error, "",
      "Live: NetBox refused the call (HTTP 4xx)",
      "NetBox's own text is quoted. Use a value NetBox accepts (a slug or id that exists there, a machine choice value).",
      false,
      &[]),
    code("live-server-fault", Varies, RefusedValue, Knowledge, Error, "",
      "Live: NetBox failed on the call (HTTP 5xx)",
      "NetBox's error text is quoted. A fault of that NetBox for this filter or value; filter another way.",
      false,
      &[]),
    code("live-differs", Varies, RefusedValue, Knowledge, Warning, "",
      "Live: the instance differs from the knowledge",
      "NetBox did something the knowledge says it does not (narrowed with a filter said to be ignored, accepted a value said to be refused, ignored a filter said to exist, rejected a GraphQL operation said to be valid). Rebuild the knowledge from the instance: `netbox-lsp index build --url`.",
      false,
      &[]),
    code("live-graphql-error", Varies, RefusedValue, Knowledge, Error, "",
      "Live: NetBox's GraphQL error",
      "NetBox's GraphQL answer holds this error at this location. Fix what it names.",
      false,
      &[]),
    code("live-graphql-objects", Varies, RefusedValue, Knowledge, Information, "",
      "Live: objects a GraphQL root list returned",
      "How many objects NetBox returned for each root field of the operation.",
      false,
      &[]),
    code("live-not-sent", Varies, RefusedValue, Knowledge, Information, "",
      "Live: not sent to NetBox",
      "A mutation or subscription is never sent, a root list without `pagination: {limit: N}` is not sent unless a limit is set (`--live-graphql-limit`), and nothing is sent once the request budget (`--live-max-requests`) is used up or a request failed.",
      false,
      &[]),
    code("live-no-answer", Varies, RefusedValue, Knowledge, Warning, "",
      "Live: no answer from NetBox",
      "The request timed out, the connection failed, or the answer was not a NetBox list. Check the URL, token and network; `check --live` exits with 2.",
      false,
      &[]),
];

/// Codes the editor leaves out unless a selection turns them on (`extend_select`): `check`
/// reports every code by default.
pub const OFF_IN_EDITOR: &[&str] = &["unused-suppression"];

/// The entry of `code`, if it is a known code.
pub fn get(code: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.code == code)
}

/// What NetBox does with the call finding `f` is about: its own fact
/// ([`crate::finding::Facts::does`]), else its code's row ([`Code::netbox`]);
/// [`Does::Varies`] for a code not in the catalogue.
pub fn does(f: &Finding) -> Does {
    f.facts
        .does
        .or_else(|| get(f.code).map(|c| c.netbox))
        .unwrap_or(Does::Varies)
}

/// The codes of one family, in documentation order.
pub fn family(family: Family) -> impl Iterator<Item = &'static Code> {
    CODES.iter().filter(move |c| c.family == family)
}

/// Default severity of `code` (`Error` for a code not in the catalogue, which a test rules out).
pub fn default_severity(code: &str) -> Severity {
    get(code).map(|c| c.severity).unwrap_or(Error)
}

/// True when another release may make a finding of `code` valid ([`Code::may_differ`]).
pub fn may_differ(code: &str) -> bool {
    get(code).is_some_and(|c| c.may_differ)
}

/// The address of `code`'s entry in docs/diagnostics.md at this version's release tag
/// (`v<version>`), when the package names its repository (`repository` in Cargo.toml): the
/// language server's code description and SARIF's `helpUri`.
pub fn doc_url(code: &str) -> Option<String> {
    let repo = env!("CARGO_PKG_REPOSITORY");
    (!repo.is_empty()).then(|| {
        format!(
            "{}/blob/v{}/docs/diagnostics.md#{code}",
            repo.trim_end_matches('/'),
            env!("CARGO_PKG_VERSION")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case_and_complete() {
        let mut seen = std::collections::HashSet::new();
        for c in CODES {
            assert!(seen.insert(c.code), "duplicate {}", c.code);
            assert!(
                c.code
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch == '-'),
                "{}",
                c.code
            );
            assert!(!c.title.is_empty() && !c.help.is_empty(), "{}", c.code);
            // Documentation order: the families do not interleave.
        }
        let order: Vec<Family> = CODES.iter().map(|c| c.family).collect();
        let mut families = order.clone();
        families.dedup();
        assert_eq!(families, vec![Rest, Graphql, Knowledge]);
        assert_eq!(get("null-complement").unwrap().severity, Information);
        assert_eq!(default_severity("filler-argument"), Hint);
        assert!(may_differ("unknown-filter") && !may_differ("comma-list"));
    }
}
