//! Unit tests on a small hand-built index (a few endpoints of NetBox 4.6.8 / 4.3.3 as their
//! OpenAPI documents describe them). Every code has a failing and a passing input.

use super::*;
use crate::extract::{Argument, CallForm, FilterEntry, RestCall, Syntax, Value};
use crate::index::{ChoiceSet, Endpoint, FilterIndex, Parameter, ValueKind};
use std::collections::BTreeMap;

fn param(kind: ValueKind, multi: bool, desc: &str, choices: Option<u32>) -> Parameter {
    Parameter {
        kind,
        multi,
        choices,
        description: (!desc.is_empty()).then(|| desc.to_string().into()),
    }
}

use ValueKind::{Boolean, DateTime, Integer, Number, String as Str};

/// `(name, kind, multi, description, choice set, class)`.
type Spec<'a> = (&'a str, ValueKind, bool, &'a str, Option<u32>, &'a str);

/// Builds an endpoint from specs; relation filters get `__n`, numbers
/// `__n/__gte/__lte/__empty`, char filters their lookups (`regex` only when `regex`).
fn endpoint(ot: &str, spec: &[Spec], regex: bool) -> Endpoint {
    let mut params = BTreeMap::new();
    for (name, kind, multi, desc, ch, class) in spec {
        params.insert(name.to_string(), param(*kind, *multi, desc, *ch));
        let lookups: &[&str] = match *class {
            "rel" => &["n"],
            "num" => &["n", "gte", "lte", "gt", "lt", "empty"],
            "char" if regex => &[
                "n", "ic", "nic", "isw", "nisw", "iew", "niew", "ie", "nie", "empty", "regex",
                "iregex",
            ],
            "char" => &[
                "n", "ic", "nic", "isw", "nisw", "iew", "niew", "ie", "nie", "empty",
            ],
            _ => &[],
        };
        for l in lookups {
            let k = if *l == "empty" { Boolean } else { *kind };
            params.insert(
                format!("{name}__{l}"),
                param(k, *multi && *l != "empty", desc, *ch),
            );
        }
    }
    for n in ["limit", "offset"] {
        params.insert(n.into(), param(Integer, false, "", None));
    }
    params.insert("q".into(), param(Str, false, "Search", None));
    params.insert("ordering".into(), param(Str, false, "", None));
    Endpoint {
        object_type: Some(ot.to_string()),
        params: params.into(),
        fields: None,
    }
}

fn index(version: &str, regex: bool) -> FilterIndex {
    let status = ChoiceSet {
        choices: vec![
            ("offline".into(), "Offline".into()),
            ("active".into(), "Active".into()),
            ("planned".into(), "Planned".into()),
        ],
    };
    let action = ChoiceSet {
        choices: vec![
            ("create".into(), "Created".into()),
            ("update".into(), "Updated".into()),
            ("delete".into(), "Deleted".into()),
        ],
    };
    let mut endpoints = BTreeMap::new();
    endpoints.insert(
        "dcim/devices".to_string(),
        endpoint(
            "dcim.device",
            &[
                ("id", Integer, true, "", None, "num"),
                ("name", Str, true, "", None, "char"),
                ("status", Str, true, "", Some(0), "char"),
                ("tenant", Str, true, "Tenant (slug)", None, "rel"),
                ("tenant_id", Integer, true, "Tenant (ID)", None, "rel"),
                ("site", Str, true, "Site name (slug)", None, "rel"),
                ("site_id", Integer, true, "Site (ID)", None, "rel"),
                ("role", Str, true, "", None, "rel"),
                ("role_id", Str, true, "", None, "rel"),
                (
                    "has_primary_ip",
                    Boolean,
                    false,
                    "Has a primary IP",
                    None,
                    "",
                ),
                ("created", DateTime, true, "", None, "num"),
                ("latitude", Number, true, "", None, "num"),
            ],
            regex,
        ),
    );
    endpoints.insert(
        "dcim/interfaces".to_string(),
        endpoint(
            "dcim.interface",
            &[
                ("name", Str, true, "", None, "char"),
                ("device_id", Integer, true, "Device (ID)", None, "rel"),
                ("device", Str, true, "Device (name)", None, "rel"),
                (
                    "device_role_id",
                    Integer,
                    true,
                    "Device role (ID)",
                    None,
                    "rel",
                ),
                ("site_id", Integer, true, "Site (ID)", None, "rel"),
            ],
            regex,
        ),
    );
    endpoints.insert(
        "ipam/ip-addresses".to_string(),
        endpoint(
            "ipam.ipaddress",
            &[
                ("address", Str, true, "", None, "char"),
                ("parent", Str, true, "", None, ""),
                ("vrf", Str, true, "VRF (RD)", None, "rel"),
                ("vrf_id", Integer, true, "VRF", None, "rel"),
                ("assigned_object_id", Integer, true, "", None, "num"),
                ("interface_id", Integer, true, "Interface (ID)", None, "rel"),
            ],
            regex,
        ),
    );
    endpoints.insert(
        "ipam/prefixes".to_string(),
        endpoint(
            "ipam.prefix",
            &[
                ("prefix", Str, true, "", None, "char"),
                ("within", Str, false, "Within prefix", None, ""),
                ("vrf", Str, true, "VRF (RD)", None, "rel"),
                ("vrf_id", Integer, true, "VRF", None, "rel"),
            ],
            regex,
        ),
    );
    endpoints.insert(
        "circuits/circuits".to_string(),
        endpoint(
            "circuits.circuit",
            &[
                ("type_id", Integer, true, "Circuit type (ID)", None, "rel"),
                ("type", Str, true, "Circuit type (slug)", None, "rel"),
            ],
            regex,
        ),
    );
    endpoints.insert(
        "core/object-changes".to_string(),
        endpoint(
            "core.objectchange",
            &[("action", Str, false, "", Some(1), "")],
            regex,
        ),
    );
    let object_types = endpoints
        .iter()
        .map(|(k, e)| (e.object_type.clone().unwrap(), k.clone()))
        .collect();
    FilterIndex {
        format: 1,
        netbox_version: version.into(),
        source_sha256: String::new(),
        from_instance: false,
        endpoints: endpoints.into(),
        object_types,
        choice_sets: vec![status, action].into(),
        response_fields: Default::default(),
        instance: None,
    }
}

/// A URL call `/api/<endpoint>/?<qs>` with exact ranges (no percent-decoding needed here).
fn url(endpoint: &str, qs: &str) -> (String, RestCall) {
    let prefix = format!("/api/{endpoint}/?");
    let text = format!("{prefix}{qs}");
    let mut filters = Vec::new();
    let mut pos = prefix.len();
    for pair in qs.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let ks = pos;
        let vs = ks + k.len() + 1;
        filters.push(FilterEntry {
            key: k.into(),
            key_range: ks..ks + k.len(),
            value: Value::Str(v.into()),
            value_range: vs..vs + v.len(),
        });
        pos += pair.len() + 1;
    }
    let call = RestCall {
        form: CallForm::Url,
        syntax: Syntax::Query,
        target: Some((
            compact_str::format_compact!("/api/{endpoint}/"),
            0..prefix.len() - 1,
        )),
        call_range: 0..text.len(),
        filters_range: Some(prefix.len()..text.len()),
        filters,
        args: Vec::new(),
        declared: false,
    };
    (text, call)
}

/// A Python MCP call `netbox_get_objects("<ot>", {"k": <lit>, ...}, <args>)`.
fn mcp(
    form: CallForm,
    ot: &str,
    filters: &[(&str, &str, Value)],
    args: &[(&str, &str, Value)],
) -> (String, RestCall) {
    let mut text = format!("netbox_get_objects(\"{ot}\", {{");
    let target = (ot.to_string(), 20..20 + ot.len());
    let mut entries = Vec::new();
    for (i, (k, lit, v)) in filters.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        text.push('"');
        let ks = text.len();
        text.push_str(k);
        text.push_str("\": ");
        let vs = text.len();
        text.push_str(lit);
        entries.push(FilterEntry {
            key: (*k).into(),
            key_range: ks..ks + k.len(),
            value: list_ranges(v.clone(), vs, lit),
            value_range: vs..vs + lit.len(),
        });
    }
    text.push('}');
    let mut arguments = Vec::new();
    for (name, lit, v) in args {
        text.push_str(", ");
        let ns = text.len();
        text.push_str(name);
        text.push('=');
        let vs = text.len();
        text.push_str(lit);
        arguments.push(Argument {
            name: (*name).into(),
            name_range: ns..ns + name.len(),
            value: list_ranges(v.clone(), vs, lit),
            value_range: vs..vs + lit.len(),
        });
    }
    text.push(')');
    let call = RestCall {
        form,
        syntax: Syntax::Python,
        target: Some((target.0.into(), target.1)),
        call_range: 0..text.len(),
        filters_range: None,
        filters: entries,
        args: arguments,
        declared: false,
    };
    (text, call)
}

/// Gives list elements ranges by finding their literal text inside `lit`.
fn list_ranges(v: Value, start: usize, lit: &str) -> Value {
    match v {
        Value::List(items) => {
            let mut from = 0;
            let items = items
                .into_iter()
                .map(|(item, _)| {
                    let t = match &item {
                        Value::Str(s) => format!("\"{s}\""),
                        Value::Int(i) => i.to_string(),
                        _ => String::new(),
                    };
                    let at = lit[from..].find(&t).map(|p| p + from).unwrap_or(from);
                    from = at + t.len();
                    (item, start + at..start + at + t.len())
                })
                .collect();
            Value::List(items)
        }
        v => v,
    }
}

fn run(call: &RestCall, idx: &FilterIndex) -> Vec<Finding> {
    check_call_with(call, idx, &[])
}

fn codes(fs: &[Finding]) -> Vec<&'static str> {
    fs.iter().map(|f| f.code).collect()
}

/// Applies the first fix of the first finding to `text`.
fn apply(text: &str, f: &Finding) -> String {
    let mut fix = f.fixes[0].edits.clone();
    fix.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut s = text.to_string();
    for e in fix {
        s.replace_range(e.range.clone(), &e.new_text);
    }
    s
}

fn url_findings(endpoint: &str, qs: &str) -> (String, Vec<Finding>) {
    let idx = index("4.6.8", true);
    let (text, call) = url(endpoint, qs);
    (text, run(&call, &idx))
}

#[track_caller]
fn assert_url(endpoint: &str, qs: &str, code: &str, fixed: Option<&str>) {
    let (text, fs) = url_findings(endpoint, qs);
    assert_eq!(codes(&fs), vec![code], "{qs}: {fs:#?}");
    if let Some(fixed) = fixed {
        assert!(fs[0].fixes.first().is_some_and(|f| f.certain), "{fs:#?}");
        assert_eq!(apply(&text, &fs[0]), format!("/api/{endpoint}/?{fixed}"));
    }
}

#[track_caller]
fn assert_clean(endpoint: &str, qs: &str) {
    let (_, fs) = url_findings(endpoint, qs);
    assert!(fs.is_empty(), "{qs}: {fs:#?}");
}

#[test]
fn unknown_filter_per_endpoint() {
    assert_url(
        "dcim/devices",
        "device_role_id=6",
        "unknown-filter",
        Some("role_id=6"),
    );
    assert_clean("dcim/interfaces", "device_role_id=6");
    assert_url(
        "circuits/circuits",
        "circuit_type_id=1",
        "unknown-filter",
        Some("type_id=1"),
    );
    assert_url(
        "dcim/devices",
        "tenant_name=x",
        "unknown-filter",
        Some("tenant=x"),
    );
    let (_, fs) = url_findings("dcim/devices", "nonexistent_filter=1");
    assert_eq!(codes(&fs), vec!["unknown-filter"]);
    assert!(fs[0].fixes.is_empty());
    assert!(fs[0].message.contains("site_id"), "{}", fs[0].message);
    // typo → one strsim hit → certain
    assert_url(
        "dcim/devices",
        "has_primary_ipp=true",
        "unknown-filter",
        Some("has_primary_ip=true"),
    );
    assert_clean(
        "dcim/devices",
        "cf_owner=x&cf_owner__ic=y&limit=5&brief=1&fields=id",
    );
}

#[test]
fn unknown_endpoint_fails_open() {
    // A plugin endpoint with stock knowledge: no name findings, one note that it needs the
    // instance's knowledge (issue 8 §4).
    let (_, fs) = url_findings("plugins/bgp/sessions", "whatever=1&x__in=2");
    assert!(
        fs.iter()
            .all(|f| f.code == "needs-instance"
                && f.severity == crate::finding::Severity::Information),
        "{fs:#?}"
    );
}

#[test]
fn in_lookup() {
    assert_url(
        "dcim/devices",
        "site_id__in=21,7",
        "unsupported-lookup",
        Some("site_id=21&site_id=7"),
    );
    assert_url(
        "dcim/devices",
        "id__in=1",
        "unsupported-lookup",
        Some("id=1"),
    );
    let idx = index("4.6.8", true);
    let (text, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[("site_id__in", "\"21,7\"", Value::Str("21,7".into()))],
        &[],
    );
    let fs = run(&call, &idx);
    assert_eq!(codes(&fs), vec!["unsupported-lookup"]);
    assert_eq!(
        apply(&text, &fs[0]),
        "netbox_get_objects(\"dcim.device\", {\"site_id\": [21, 7]})"
    );
    // the guard: never `__n` for `__in`
    assert!(fs[0]
        .fixes
        .iter()
        .all(|f| !f.edits[0].new_text.ends_with("__n")));
}

#[test]
fn django_lookups() {
    assert_url(
        "dcim/devices",
        "name__contains=akron",
        "unsupported-lookup",
        Some("name__ic=akron"),
    );
    assert_url(
        "dcim/devices",
        "name__icontains=akron",
        "unsupported-lookup",
        Some("name__ic=akron"),
    );
    assert_url(
        "dcim/devices",
        "name__startswith=a",
        "unsupported-lookup",
        Some("name__isw=a"),
    );
    assert_url(
        "dcim/devices",
        "name__exact=a",
        "unsupported-lookup",
        Some("name=a"),
    );
    assert_url(
        "dcim/devices",
        "name__iexact=a",
        "unsupported-lookup",
        Some("name__ie=a"),
    );
    assert_url(
        "dcim/devices",
        "name__isnull=true",
        "unsupported-lookup",
        Some("name__empty=true"),
    );
    assert_clean("dcim/devices", "name__ic=akron&name__empty=true&name=null");
}

#[test]
fn lookup_the_kind_lacks() {
    let (_, fs) = url_findings("dcim/devices", "site__ic=dc");
    assert_eq!(codes(&fs), vec!["unsupported-lookup"]);
    assert!(fs[0].message.contains("only `__n`"), "{}", fs[0].message);
    // 4.3.3: no regex lookups; without other versions → unsupported-lookup
    let old = index("4.3.3", false);
    let (_, call) = url("dcim/devices", "name__regex=^a");
    assert_eq!(codes(&run(&call, &old)), vec!["unsupported-lookup"]);
}

#[test]
fn version_only() {
    let old = index("4.3.3", false);
    let new = index("4.6.8", true);
    let (_, call) = url("dcim/devices", "name__regex=^a");
    let fs = check_call_with(&call, &old, &[&new]);
    assert_eq!(codes(&fs), vec!["version-only"]);
    assert!(fs[0].message.contains("4.6.8"), "{}", fs[0].message);
    // An index file (not the shipped copy): a version choice would not override it.
    assert!(
        fs[0]
            .message
            .contains("The index in use is for NetBox 4.3.3")
            && !fs[0].message.contains("--netbox-version"),
        "{}",
        fs[0].message
    );
    assert!(check_call_with(&call, &new, &[&old]).is_empty());
    // The shipped 4.3.3 index, selected by version: point at --netbox-version.
    let shipped = crate::index::embedded::embedded_index("4.3.3");
    let (_, call) = url("dcim/devices", "name__regex=^a");
    let fs = check_call_with(&call, &shipped, &[&new]);
    assert_eq!(codes(&fs), vec!["version-only"]);
    assert!(
        fs[0].message.contains("select it with --netbox-version"),
        "{}",
        fs[0].message
    );
    // A copy of the shipped index read from a file is not the shipped one.
    let copy = (*shipped).clone();
    let fs = check_call_with(&call, &copy, &[&new]);
    assert!(fs[0].message.contains("index in use"), "{}", fs[0].message);
}

#[test]
fn multi_hop() {
    let (_, fs) = url_findings("dcim/interfaces", "device__site_id=3");
    assert_eq!(codes(&fs), vec!["multi-hop"]);
    assert_eq!(fs[0].fixes[0].edits[0].new_text, "site_id");
    assert!(!fs[0].fixes[0].certain);
    let (_, fs) = url_findings("dcim/interfaces", "device__name__isw=edge");
    assert_eq!(codes(&fs), vec!["multi-hop"]);
    assert!(fs[0].message.contains("device_id"));
    assert_clean("dcim/interfaces", "device_id=3&site_id=3");
}

#[test]
fn null_relation_and_complement() {
    assert_url(
        "dcim/devices",
        "tenant__empty=true",
        "null-relation",
        Some("tenant_id=null"),
    );
    assert_url(
        "dcim/devices",
        "tenant__isnull=true",
        "null-relation",
        Some("tenant_id=null"),
    );
    assert_url(
        "dcim/devices",
        "tenant__isnull=false",
        "null-relation",
        Some("tenant_id__n=null"),
    );
    let (_, fs) = url_findings("dcim/devices", "tenant__n=null");
    assert_eq!(codes(&fs), vec!["null-complement"]);
    assert_eq!(fs[0].severity, Severity::Information);
    assert_clean(
        "dcim/devices",
        "tenant_id=null&tenant=null&tenant_id=13&tenant__n=acme",
    );
    let idx = index("4.6.8", true);
    let (text, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[("tenant__isnull", "True", Value::Bool(true))],
        &[],
    );
    let fs = run(&call, &idx);
    assert_eq!(
        apply(&text, &fs[0]),
        "netbox_get_objects(\"dcim.device\", {\"tenant_id\": \"null\"})"
    );
}

#[test]
fn dropped_value_by_form() {
    let idx = index("4.6.8", true);
    let (text, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[("tenant_id", "None", Value::Null)],
        &[],
    );
    let fs = run(&call, &idx);
    assert_eq!(codes(&fs), vec!["dropped-value"]);
    assert_eq!(
        apply(&text, &fs[0]),
        "netbox_get_objects(\"dcim.device\", {\"tenant_id\": \"null\"})"
    );
    let (_, mut call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[("tenant_id", "None", Value::Null)],
        &[],
    );
    call.form = CallForm::Pynetbox;
    assert!(run(&call, &idx).is_empty());
    let (_, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[("site_id", "[]", Value::List(vec![]))],
        &[],
    );
    assert_eq!(codes(&run(&call, &idx)), vec!["dropped-value"]);
    let (_, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[("tenant_id", "\"null\"", Value::Str("null".into()))],
        &[],
    );
    assert!(run(&call, &idx).is_empty());
    assert_url("dcim/devices", "site=", "dropped-value", None);
}

#[test]
fn value_rules() {
    assert_url(
        "dcim/devices",
        "site_id=21,7",
        "comma-list",
        Some("site_id=21&site_id=7"),
    );
    assert_url("dcim/devices", "tenant_id=abc", "invalid-value", None);
    assert_url("dcim/devices", "role_id=core", "invalid-value", None);
    assert_clean(
        "dcim/devices",
        "role_id=6&role_id=null&latitude=1.5&id__gte=70",
    );
    assert_url(
        "dcim/devices",
        "has_primary_ip=1",
        "boolean-value",
        Some("has_primary_ip=true"),
    );
    assert_url(
        "dcim/devices",
        "has_primary_ip=no",
        "boolean-value",
        Some("has_primary_ip=false"),
    );
    assert_clean("dcim/devices", "has_primary_ip=true");
    assert_clean("dcim/devices", "has_primary_ip=False");
    assert_url("dcim/devices", "site=Main Office", "slug-expected", None);
    let (_, fs) = url_findings("dcim/devices", "site=MDF");
    assert_eq!(fs[0].severity, Severity::Warning);
    assert_clean("dcim/devices", "site=ncsu-065&role=patch-panel");
    assert_url("ipam/ip-addresses", "vrf=Alpha", "vrf-needs-rd", None);
    assert_clean(
        "ipam/ip-addresses",
        "vrf=65000:100&vrf_id=null&vrf=1.2.3.4:5",
    );
    assert_url("dcim/devices", "name__regex=[", "invalid-regex", None);
    assert_clean("dcim/devices", "name__regex=^dmi01-a&name__iregex=(?i)x");
    assert_url(
        "ipam/ip-addresses",
        "within=10.0.0.0/8",
        "wrong-filter-for-type",
        Some("parent=10.0.0.0/8"),
    );
    assert_url(
        "ipam/prefixes",
        "without=10.0.0.0/8",
        "wrong-filter-for-type",
        None,
    );
    assert_clean("ipam/prefixes", "within=10.0.0.0/8");
    assert_url(
        "ipam/prefixes",
        "within=10.0.0.0/8&within=10.1.0.0/16",
        "single-value-filter",
        None,
    );
    // Generic-relation ids take several values (live 4.3.3/4.6.8: OR-ed).
    assert_clean(
        "ipam/ip-addresses",
        "assigned_object_id=1&assigned_object_id=2",
    );
    assert_clean(
        "ipam/ip-addresses",
        "assigned_object_id=1&interface_id=1&interface_id=2",
    );
    assert_url("dcim/devices", "created=yesterday", "invalid-value", None);
    assert_clean("dcim/devices", "created__gte=2024-01-01T00:00:00Z");
}

/// Each rule the value plan (`values::Plan`) can leave unasked still reports a value it
/// would flag, beside its quiet twin, in a Python call (where plain values take the plan's
/// shortcut): on a fresh index, and again once the plan is kept (made by the quiet twin
/// first, then by the flagged one first).
#[test]
fn value_plan_keeps_every_finding() {
    let s = |t: &str| Value::Str(t.into());
    // (object type, key, flagged value, its literal, code, quiet twin, its literal)
    let pairs: Vec<(&str, &str, Value, &str, &str, Value, &str)> = vec![
        (
            "dcim.device",
            "site_id",
            s("abc"),
            "\"abc\"",
            "invalid-value",
            Value::Int(3),
            "3",
        ),
        (
            "dcim.device",
            "site_id",
            Value::Float(1.5),
            "1.5",
            "invalid-value",
            Value::Float(2.0),
            "2.0",
        ),
        (
            "dcim.device",
            "site_id",
            Value::Bool(true),
            "True",
            "invalid-value",
            Value::Int(7),
            "7",
        ),
        (
            "dcim.device",
            "role_id",
            s("core"),
            "\"core\"",
            "invalid-value",
            s("6"),
            "\"6\"",
        ),
        (
            "dcim.device",
            "site_id",
            s("21,7"),
            "\"21,7\"",
            "comma-list",
            s("21"),
            "\"21\"",
        ),
        (
            "dcim.device",
            "latitude",
            s("north"),
            "\"north\"",
            "invalid-value",
            Value::Float(1.5),
            "1.5",
        ),
        (
            "dcim.device",
            "status",
            s("bogus"),
            "\"bogus\"",
            "invalid-choice",
            s("active"),
            "\"active\"",
        ),
        (
            "dcim.device",
            "status__n",
            s("Active"),
            "\"Active\"",
            "invalid-choice",
            s("active"),
            "\"active\"",
        ),
        (
            "dcim.device",
            "status",
            Value::Int(3),
            "3",
            "invalid-choice",
            s("planned"),
            "\"planned\"",
        ),
        (
            "dcim.device",
            "site",
            s("Main Office"),
            "\"Main Office\"",
            "slug-expected",
            s("main-office"),
            "\"main-office\"",
        ),
        (
            "dcim.device",
            "site",
            Value::Int(21),
            "21",
            "slug-expected",
            s("dc1"),
            "\"dc1\"",
        ),
        (
            "dcim.device",
            "has_primary_ip",
            s("no"),
            "\"no\"",
            "boolean-value",
            Value::Bool(true),
            "True",
        ),
        (
            "dcim.device",
            "created",
            s("yesterday"),
            "\"yesterday\"",
            "invalid-value",
            s("2024-01-01T00:00:00Z"),
            "\"2024-01-01T00:00:00Z\"",
        ),
        (
            "dcim.device",
            "name__regex",
            s("["),
            "\"[\"",
            "invalid-regex",
            s("^dmi01-a"),
            "\"^dmi01-a\"",
        ),
        (
            "ipam.ipaddress",
            "vrf",
            s("Alpha"),
            "\"Alpha\"",
            "vrf-needs-rd",
            s("65000:100"),
            "\"65000:100\"",
        ),
        (
            "ipam.ipaddress",
            "vrf",
            Value::Int(5),
            "5",
            "vrf-needs-rd",
            s("1.2.3.4:5"),
            "\"1.2.3.4:5\"",
        ),
    ];
    let one = |idx: &FilterIndex, ot: &str, key: &str, v: &Value, lit: &str| {
        let (_, call) = mcp(CallForm::GetObjects, ot, &[(key, lit, v.clone())], &[]);
        codes(&run(&call, idx))
    };
    for (ot, key, bad, bad_lit, code, good, good_lit) in &pairs {
        for quiet_first in [true, false] {
            let idx = index("4.6.8", true);
            for _ in 0..2 {
                let order: [bool; 2] = if quiet_first {
                    [true, false]
                } else {
                    [false, true]
                };
                for quiet in order {
                    if quiet {
                        let got = one(&idx, ot, key, good, good_lit);
                        assert!(got.is_empty(), "{key}={good_lit}: {got:?}");
                    } else {
                        let got = one(&idx, ot, key, bad, bad_lit);
                        assert_eq!(got, vec![*code], "{key}={bad_lit}");
                    }
                }
            }
        }
    }
    // On a shipped release: a value form, an object-type filter and a server fault.
    let shipped = crate::index::embedded::embedded_index("4.6.8");
    let fixed = crate::index::embedded::embedded_index("4.7.3");
    for _ in 0..2 {
        let got = one(
            &shipped,
            "dcim.site",
            "time_zone",
            &s("zz-no-such"),
            "\"zz-no-such\"",
        );
        assert_eq!(got, vec!["invalid-value"]);
        let got = one(
            &shipped,
            "dcim.site",
            "time_zone",
            &s("Europe/Berlin"),
            "\"Europe/Berlin\"",
        );
        assert!(got.is_empty(), "{got:?}");
        let got = one(
            &shipped,
            "ipam.prefix",
            "scope_type",
            &Value::Int(999999),
            "999999",
        );
        assert_eq!(got, vec!["object-type-value"]);
        let got = one(
            &shipped,
            "ipam.prefix",
            "scope_type",
            &s("dcim.site"),
            "\"dcim.site\"",
        );
        assert!(got.is_empty(), "{got:?}");
        let got = one(
            &shipped,
            "dcim.frontport",
            "rear_port_id",
            &Value::Int(1),
            "1",
        );
        assert_eq!(got, vec!["server-fault"]);
        let got = one(
            &fixed,
            "dcim.frontport",
            "rear_port_id",
            &Value::Int(1),
            "1",
        );
        assert!(got.is_empty(), "{got:?}");
    }
}

#[test]
fn choices() {
    assert_url(
        "dcim/devices",
        "status=Active",
        "invalid-choice",
        Some("status=active"),
    );
    assert_url(
        "core/object-changes",
        "action=created",
        "invalid-choice",
        Some("action=create"),
    );
    let (_, fs) = url_findings("dcim/devices", "status=bogus");
    assert_eq!(codes(&fs), vec!["invalid-choice"]);
    assert_eq!(fs[0].severity, Severity::Warning);
    let mut idx = index("4.6.8", true);
    idx.from_instance = true;
    let (_, call) = url("dcim/devices", "status=bogus");
    assert_eq!(run(&call, &idx)[0].severity, Severity::Error);
    assert_clean(
        "dcim/devices",
        "status=active&status__n=active&status__ic=active",
    );
    // Live 4.6.8: the text lookups of a choice filter validate the whole value (400).
    for q in [
        "status__ic=act",
        "status__ie=ACTIVE",
        "status__n=xyz",
        "status__isw=act",
    ] {
        let (_, fs) = url_findings("dcim/devices", q);
        assert_eq!(codes(&fs), vec!["invalid-choice"], "{q}");
    }
}

#[test]
fn object_types() {
    let idx = index("4.6.8", true);
    let (text, call) = mcp(CallForm::GetObjects, "dcim.devicee", &[], &[]);
    let fs = run(&call, &idx);
    assert_eq!(codes(&fs), vec!["unknown-object-type"]);
    assert_eq!(
        apply(&text, &fs[0]),
        "netbox_get_objects(\"dcim.device\", {})"
    );
    let (_, call) = mcp(CallForm::GetObjects, "ipam.ip_address", &[], &[]);
    assert_eq!(
        run(&call, &idx)[0].fixes[0].edits[0].new_text,
        "ipam.ipaddress"
    );
    // A plugin type: the stock map lacks it, plugin discovery may add it.
    let (_, call) = mcp(CallForm::GetObjects, "netbox_bgp.session", &[], &[]);
    let fs = run(&call, &idx);
    assert_eq!(codes(&fs), vec!["unknown-object-type"]);
    assert_eq!(fs[0].severity, Severity::Warning);
    assert!(fs[0].fixes.is_empty());
    let (_, call) = mcp(CallForm::GetObjects, "dcim.device", &[], &[]);
    assert!(run(&call, &idx).is_empty());
}

#[test]
fn arguments() {
    let idx = index("4.6.8", true);
    let (_, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[],
        &[
            ("fields", "[]", Value::List(vec![])),
            ("ordering", "\"\"", Value::Str(Default::default())),
            ("limit", "0", Value::Int(0)),
            ("offset", "None", Value::Null),
        ],
    );
    let fs = run(&call, &idx);
    assert_eq!(codes(&fs), vec!["filler-argument"; 4]);
    assert_eq!(fs[0].severity, Severity::Hint);
    assert_eq!(fs[2].severity, Severity::Warning);
    let (_, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[],
        &[
            (
                "fields",
                "[\"id\"]",
                Value::List(vec![(Value::Str("id".into()), 0..0)]),
            ),
            ("limit", "100", Value::Int(100)),
            ("offset", "0", Value::Int(0)),
            ("brief", "False", Value::Bool(false)),
        ],
    );
    assert!(run(&call, &idx).is_empty());
    let (text, call) = mcp(
        CallForm::GetObjects,
        "dcim.device",
        &[],
        &[("limit", "500", Value::Int(500))],
    );
    let fs = run(&call, &idx);
    assert_eq!(codes(&fs), vec!["limit-range"]);
    assert!(apply(&text, &fs[0]).ends_with("limit=100)"));
}

#[test]
fn every_code_is_documented() {
    // Each code emitted above is a REST code of the catalogue.
    for code in [
        "unknown-filter",
        "unsupported-lookup",
        "multi-hop",
        "invalid-choice",
        "null-relation",
        "null-complement",
        "dropped-value",
        "filler-argument",
        "single-value-filter",
        "comma-list",
        "invalid-value",
        "wrong-filter-for-type",
        "vrf-needs-rd",
        "slug-expected",
        "boolean-value",
        "invalid-regex",
        "unknown-object-type",
        "limit-range",
        "version-only",
    ] {
        assert_eq!(
            crate::catalogue::get(code).map(|c| c.family),
            Some(crate::catalogue::Family::Rest),
            "{code}"
        );
    }
}

#[test]
fn odd_inputs_never_panic() {
    let idx = index("4.6.8", true);
    for qs in [
        "__in=1",
        "a__=1",
        "__=",
        "___in=x",
        "x__in__in=1",
        "é__ic=ü",
        "site_id=٣",
        "name__regex=(?<=a)b",
        "created=2024-",
        "latitude=1e999",
        "id=99999999999999999999",
        "has_primary_ip=",
        "status=ACTIVE",
        "tenant__isnull=maybe",
        "vrf=",
        "=1",
    ] {
        let (_, call) = url("dcim/devices", qs);
        let _ = run(&call, &idx);
        let (_, call) = url("ipam/ip-addresses", qs);
        let _ = run(&call, &idx);
    }
    let (_, call) = mcp(CallForm::GetObjects, "", &[("", "None", Value::Null)], &[]);
    let _ = run(&call, &idx);
    let (_, call) = mcp(
        CallForm::GetObjects,
        ".",
        &[("x", "f(x)", Value::Expr)],
        &[],
    );
    assert!(run(&call, &idx).is_empty());
}
