//! The certain-fix property (issue 8 §6): a preferred fix is applied by fix-all without a look,
//! so for every certain fix of a REST finding — on every file of `examples/` and
//! `tests/fixtures/`, on the examples of the issue, and on a generated corpus of wrong filters
//! across all endpoints of all shipped NetBox versions — applying it gives
//! (a) text that still parses in its host language (Python via tree-sitter-python without
//!     ERROR nodes, YAML via tree-sitter-yaml, JSON via serde_json, Markdown with the same
//!     backticks and lines),
//! (b) keys that exist on that endpoint, whose value kind fits the value,
//! (c) the same number of values,
//! (d) no new error or warning on the edited text,
//! (e) no negation that was not asked for (`tag__any` never becomes `tag__n`),
//! and fix-all converges in one round (no certain REST fix is left after applying them all).
//!
//! GraphQL fixes are outside this test (their own checks live in tests/graphql.rs).

use netbox_lsp::analysis::{analyze, Knowledge};
use netbox_lsp::extract::{extract, HostKind, Site, Value};
use netbox_lsp::finding::{Finding, Severity};
use netbox_lsp::index::{embedded, FilterIndex, ValueKind};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// REST codes whose certain fixes this test covers (every REST code).
fn is_rest(code: &str) -> bool {
    netbox_lsp::catalogue::get(code)
        .is_some_and(|c| c.family == netbox_lsp::catalogue::Family::Rest)
}

fn knowledge(version: &'static str) -> Knowledge {
    Knowledge {
        index: Some(embedded::embedded_index(version)),
        graphql: None,
        ..Default::default()
    }
}

/// Parses without an error node (or as JSON), for the hosts that have a grammar.
fn parses(text: &str, kind: HostKind) -> bool {
    let lang: tree_sitter::Language = match kind {
        HostKind::Python => tree_sitter_python::LANGUAGE.into(),
        HostKind::Yaml => tree_sitter_yaml::LANGUAGE.into(),
        HostKind::Json => return serde_json::from_str::<serde_json::Value>(text).is_ok(),
        _ => return true,
    };
    let mut p = tree_sitter::Parser::new();
    p.set_language(&lang).expect("grammar");
    p.parse(text, None)
        .is_some_and(|t| !t.root_node().has_error())
}

/// Markdown and plain text keep their structure: the same lines and backticks.
fn same_shape(before: &str, after: &str) -> bool {
    let count = |s: &str, c: char| s.chars().filter(|x| *x == c).count();
    count(before, '\n') == count(after, '\n') && count(before, '`') == count(after, '`')
}

/// Applies edits (non-overlapping), last first; returns the text and the new ranges of the
/// edits in the result.
fn apply(text: &str, edits: &[(Range<usize>, String)]) -> (String, Vec<Range<usize>>) {
    let mut sorted: Vec<&(Range<usize>, String)> = edits.iter().collect();
    sorted.sort_by_key(|e| e.0.start);
    let mut out = String::new();
    let mut at = 0;
    let mut ranges = Vec::new();
    for (r, t) in sorted {
        if r.start < at {
            continue; // overlapping: the first wins, as an editor would refuse the rest
        }
        out.push_str(&text[at..r.start]);
        let s = out.len();
        out.push_str(t);
        ranges.push(s..out.len());
        at = r.end;
    }
    out.push_str(&text[at..]);
    (out, ranges)
}

/// Values an entry sends: list items, or the comma parts of a string on `__in` (which the fix
/// turns into a list or repeated keys) or on a view parameter NetBox splits at commas (a list
/// of which the fix joins), or one.
fn atoms(key: &str, v: &Value) -> usize {
    match v {
        Value::List(items) => items.len(),
        // `emea&tenant__n=lab` in an Ansible `api_filter`: the filters meant, joined by a `&`
        // the lookup does not split on (the fix writes them apart).
        Value::Str(s) if s.contains('&') && s.split('&').skip(1).all(|p| p.contains('=')) => {
            s.split('&').count()
        }
        Value::Str(s) if matches!(key, "fields" | "omit" | "ordering" | "exclude") => {
            s.split(',').filter(|p| !p.trim().is_empty()).count().max(1)
        }
        Value::Str(s) if key.ends_with("__in") || is_int_list(s) => {
            s.split(',').filter(|p| !p.trim().is_empty()).count().max(1)
        }
        _ => 1,
    }
}

/// `"21,7"`: a comma-separated id list (the comma-list fix turns it into a list).
fn is_int_list(s: &str) -> bool {
    s.contains(',') && s.split(',').all(|p| p.trim().parse::<i64>().is_ok())
}

/// Negations an entry asks for: its own, and those of the filters an Ansible `api_filter`
/// joined to its value with `&` (`tenant_group=emea&tenant__n=lab` asks for `tenant__n`; the fix
/// that writes them apart keeps that negation, it does not add it).
fn negations(key: &str, v: &Value) -> usize {
    if let Value::Str(s) = v {
        let mut parts = s.split('&');
        let first = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        if !rest.is_empty() && rest.iter().all(|p| p.contains('=')) {
            let own = usize::from(negated(key, &Value::Str(first.into())));
            return own
                + rest
                    .iter()
                    .filter_map(|p| p.split_once('='))
                    .filter(|(k, v)| negated(k, &Value::Str((*v).into())))
                    .count();
        }
    }
    usize::from(negated(key, v))
}

/// A negation: an `__n*` lookup, or a null test asked as false.
fn negated(key: &str, v: &Value) -> bool {
    let Some((_, l)) = key.rsplit_once("__") else {
        return false;
    };
    let falsy = matches!(v, Value::Bool(false))
        || matches!(v, Value::Str(s) if s.eq_ignore_ascii_case("false") || s == "0")
        || matches!(v, Value::Int(0));
    match l {
        "n" | "ne" | "neq" | "not" | "nic" | "nie" | "nisw" | "niew" => true,
        "isnull" | "null" | "empty" => falsy,
        _ => false,
    }
}

/// Whether `v` fits parameter `key` of endpoint `ep_key` (the test's own reading of the
/// schema, independent of the checker).
fn fits(index: &FilterIndex, ep_key: &str, key: &str, v: &Value) -> Result<(), String> {
    let ep = &index.endpoints[ep_key];
    let Some(p) = ep.params.get(key) else {
        if key.starts_with("cf_") {
            return Ok(());
        }
        return Err(format!("`{key}` is not a parameter of {ep_key}"));
    };
    let items: Vec<&Value> = match v {
        Value::List(items) => {
            if items.len() > 1 && !p.multi {
                return Err(format!("a list on single-value `{key}`"));
            }
            items.iter().map(|(v, _)| v).collect()
        }
        v => vec![v],
    };
    let base = key.split("__").next().unwrap_or(key);
    let empty_lookup = key.ends_with("__empty");
    for v in items {
        let text = match v {
            Value::Str(s) => s.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Float(f) => f.to_string(),
            _ => continue,
        };
        if text == "null" || empty_lookup {
            continue;
        }
        let integer = text.trim().parse::<i64>().is_ok();
        // Relation ids: `_id` filters that are relations (`__n` but no text lookups).
        let relation = ep.params.contains_key(&format!("{base}__n"))
            && !ep.params.contains_key(&format!("{base}__ic"))
            && !ep.params.contains_key(&format!("{base}__empty"));
        let ids = p.kind == ValueKind::Integer
            || (base.ends_with("_id") && p.kind == ValueKind::String && relation);
        if ids && !integer {
            return Err(format!("`{key}` takes integers, got {text:?}"));
        }
        if p.kind == ValueKind::Boolean
            && !matches!(text.to_ascii_lowercase().as_str(), "true" | "false")
        {
            return Err(format!("`{key}` takes true/false, got {text:?}"));
        }
        let desc = p.description.as_deref().unwrap_or("");
        if integer && !ids && desc.contains("(slug)") {
            return Err(format!("`{key}` takes a slug, got the number {text}"));
        }
        let cidr = ep_key.starts_with("ipam/")
            && matches!(
                base,
                "prefix" | "parent" | "within" | "within_include" | "contains" | "address"
            );
        if let Some(set) = index.choices(p) {
            if !set.choices.iter().any(|(c, _)| *c == text) && !key.contains("__") {
                return Err(format!("`{key}` takes one of its choices, got {text:?}"));
            }
        }
        if cidr && p.kind == ValueKind::String && !text.contains(['.', ':']) {
            return Err(format!(
                "`{key}` takes an IP prefix or address, got {text:?}"
            ));
        }
    }
    Ok(())
}

/// Checks every certain REST fix of `text`; returns the failures (empty = property holds).
fn check_text(name: &str, text: &str, kind: HostKind, version: &'static str) -> Vec<String> {
    let k = knowledge(version);
    let index = k.index.clone().expect("index");
    let findings = analyze(text, kind, &k);
    let mut bad = Vec::new();
    let parsed_before = parses(text, kind);
    let mut all_edits = Vec::new();
    for f in findings.iter().filter(|f| is_rest(f.code)) {
        for fix in f.fixes.iter().filter(|x| x.certain) {
            let edits: Vec<(Range<usize>, String)> = fix
                .edits
                .iter()
                .map(|e| (e.range.clone(), e.new_text.clone()))
                .collect();
            all_edits.extend(edits.iter().cloned());
            let what = format!("{name} [{version}] {}: {:?}", f.code, fix.title);
            let (after, ranges) = apply(text, &edits);
            // (a) host syntax
            if parsed_before && !parses(&after, kind) {
                bad.push(format!("{what}: (a) no longer parses:\n{after}"));
                continue;
            }
            if matches!(kind, HostKind::Markdown | HostKind::Text) && !same_shape(text, &after) {
                bad.push(format!(
                    "{what}: (a) changed the Markdown structure:\n{after}"
                ));
                continue;
            }
            // (b), (c), (e): the entries the edit wrote, in the call it belongs to.
            let before_call = rest_call_at(text, kind, f.range.start);
            let after_call = rest_call_at(&after, kind, ranges[0].start);
            match (before_call, after_call) {
                (Some(b), Some(a)) => {
                    let n_before: usize = b.filters.iter().map(|e| atoms(&e.key, &e.value)).sum();
                    let n_after: usize = a.filters.iter().map(|e| atoms(&e.key, &e.value)).sum();
                    if n_before != n_after && f.code != "dropped-value" {
                        bad.push(format!(
                            "{what}: (c) {n_before} values became {n_after}:\n{after}"
                        ));
                    }
                    let neg_before: usize =
                        b.filters.iter().map(|e| negations(&e.key, &e.value)).sum();
                    let neg_after: usize =
                        a.filters.iter().map(|e| negations(&e.key, &e.value)).sum();
                    if neg_after > neg_before {
                        bad.push(format!("{what}: (e) the fix adds a negation:\n{after}"));
                    }
                    if let Some(ep_key) = a
                        .target
                        .as_ref()
                        .and_then(|(t, _)| index.resolve(t).map(|(k, _)| k.to_string()))
                    {
                        for e in &a.filters {
                            let touched = ranges
                                .iter()
                                .any(|r| overlaps(&e.key_range, r) || overlaps(&e.value_range, r));
                            if touched && !netbox_lsp_view_param(&e.key) {
                                if let Err(why) = fits(&index, &ep_key, &e.key, &e.value) {
                                    bad.push(format!("{what}: (b) {why}:\n{after}"));
                                }
                            }
                        }
                    }
                }
                // A fix of the call's target (unknown-endpoint, unknown-object-type) may leave
                // a call without filters; any other fix must keep the call.
                (Some(_), None)
                    if !matches!(f.code, "unknown-endpoint" | "unknown-object-type") =>
                {
                    bad.push(format!("{what}: (a) the call is no longer found:\n{after}"));
                }
                _ => {}
            }
            // (d) no new error or warning on the edited text
            let again = analyze(&after, kind, &k);
            for g in again.iter().filter(|g| {
                matches!(g.severity, Severity::Error | Severity::Warning)
                    && ranges.iter().any(|r| {
                        overlaps(&g.range, r) || (r.is_empty() && g.range.start == r.start)
                    })
            }) {
                bad.push(format!(
                    "{what}: (d) new finding {}: {}\n{after}",
                    g.code, g.message
                ));
            }
        }
    }
    // Fix-all converges in one round.
    if !all_edits.is_empty() {
        let (after, _) = apply(text, &all_edits);
        let again = analyze(&after, kind, &k);
        let left: Vec<&Finding> = again
            .iter()
            .filter(|g| is_rest(g.code) && g.fixes.iter().any(|x| x.certain))
            .collect();
        if !left.is_empty() {
            bad.push(format!(
                "{name} [{version}]: fix-all needs a second round: {:?}",
                left.iter()
                    .map(|g| (g.code, &g.message))
                    .collect::<Vec<_>>()
            ));
        }
    }
    bad
}

/// `limit`, `brief`, ... are not filters: their values are not judged here.
fn netbox_lsp_view_param(key: &str) -> bool {
    matches!(
        key,
        "limit"
            | "offset"
            | "start"
            | "ordering"
            | "brief"
            | "fields"
            | "omit"
            | "format"
            | "export"
            | "exclude"
    )
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// The REST call of `text` whose call range holds `at`, else the one that sends the filter
/// written at `at` away from its call (a dict bound to a name, a helper's argument, a model's
/// field).
fn rest_call_at(text: &str, kind: HostKind, at: usize) -> Option<netbox_lsp::extract::RestCall> {
    let holds = |r: &Range<usize>| r.start <= at && at <= r.end;
    let sites: Vec<netbox_lsp::extract::RestCall> = extract(text, kind)
        .sites
        .into_iter()
        .filter_map(|s| match s {
            Site::Rest(c) => Some(c),
            _ => None,
        })
        .collect();
    let by_call = sites.iter().position(|c| holds(&c.call_range));
    let python = matches!(kind, HostKind::Python | HostKind::Notebook);
    let i = by_call.or_else(|| {
        if !python {
            return None;
        }
        sites.iter().position(|c| {
            c.filters
                .iter()
                .any(|e| holds(&e.key_range) || holds(&e.value_range))
        })
    })?;
    sites.into_iter().nth(i)
}

fn versions() -> Vec<&'static str> {
    embedded::RELEASES.iter().map(|r| r.version).collect()
}

/// The examples of issue 8 §6 (and their kin): each fails the property on a checker that
/// offers the wrong certain fix.
const ISSUE_EXAMPLES: &[(&str, HostKind, &str)] = &[
    ("device_type on templates", HostKind::Python, "nb.dcim.interface_templates.filter(device_type=\"dcs-7280\")\n"),
    ("device_type on templates (id)", HostKind::Text, "GET /api/dcim/power-port-templates/?device_type=3\n"),
    ("cluster name", HostKind::Python, "netbox_get_objects(\"dcim.device\", filters={\"cluster\": \"prod-a\"})\n"),
    ("tag__any", HostKind::Text, "GET /api/dcim/devices/?tag__any=core&tag__any=edge\n"),
    ("prefix_length", HostKind::Text, "GET /api/ipam/prefixes/?prefix_length=24\n"),
    ("vlan_id", HostKind::Python, "nb.ipam.vlans.filter(vlan_id=100)\n"),
    ("content_types", HostKind::Python, "nb.extras.custom_fields.filter(content_types=\"dcim.device\")\n"),
    ("content_types (custom links)", HostKind::Json, "{\"name\": \"netbox_get_objects\", \"arguments\": {\"object_type\": \"extras.customlink\", \"filters\": {\"content_types\": \"dcim.site\"}}}\n"),
    ("devicetype_id", HostKind::Text, "GET /api/dcim/interface-templates/?devicetype_id=4\n"),
    ("device_role", HostKind::Yaml, "- tool: netbox_get_objects\n  arguments:\n    object_type: dcim.device\n    filters:\n      device_role: leaf\n"),
    ("multi-hop", HostKind::Python, "nb.dcim.power_outlets.filter(device__rack__name=\"R1\")\nnb.dcim.cables.filter(termination_a__device__site_id=3)\n"),
    ("__in", HostKind::Markdown, "Use `/api/dcim/interfaces/?device_id__in=1,2` here.\n"),
    ("isnull", HostKind::Python, "nb.dcim.devices.filter(tenant__isnull=False, name__isnull=True)\n"),
    // 4.7.0 removed the text lookups of `protocol` (the fix names the one protocol they select)
    // and stopped reading `exclude` (the fix is `omit`, read from 4.5.2).
    ("removed protocol lookup", HostKind::Text, "GET /api/ipam/services/?protocol__ic=tc\n"),
    ("removed protocol lookup, negated", HostKind::Python, "nb.ipam.service_templates.filter(protocol__nie=\"UDP\")\n"),
    ("removed protocol lookup, api_filter", HostKind::Yaml, "- set_fact:\n    s: \"{{ query('netbox.netbox.nb_lookup', 'services', api_filter='protocol__isw=SC') }}\"\n"),
    ("exclude on 4.7", HostKind::Python, "requests.get(f\"{url}/api/dcim/devices/\", params={\"exclude\": \"config_context\"})\n"),
    // Issue 19: the endpoint's own filter, values pointing at a filter of the same concept,
    // values that match nothing.
    ("own filter", HostKind::Python, "nb.dcim.device_bays.filter(installed_device__name=\"blade-7\")\nnb.dcim.interfaces.filter(device__name=\"spine-02\", site__id__in=[1, 2])\n"),
    ("own filter (url, dotted)", HostKind::Text, "GET /api/dcim/devices/?role__slug=leaf&site.id=3&tenant__slug__n=ops&manufacturer__name=Juniper\n"),
    ("value kinds", HostKind::Text, "GET /api/dcim/devices/?interface_count=true&virtual_chassis_id=true&power_ports=4&tenant_id=true&site=12\n"),
    ("object types", HostKind::Json, "{\"object_type\": \"extras.journalentry\", \"filters\": {\"assigned_object_type\": [\"device\", \"dcim.interfaces\", \"7\"]}}\n"),
    ("bare params (issue 19 §4)", HostKind::Markdown, "# NetBox\n\nQuery `/api/dcim/devices/` with:\n\n```python\nparams = {\"device_role_id\": 3, \"site__slug\": \"fra1\", \"tenant_id__in\": [4, 5]}\n```\n\n```python\nurl = f\"{NB}/api/dcim/interfaces/\"\nparams = {\"device__name\": \"spine-02\", \"enabled\": \"yes\"}\n```\n"),
    // Issue 30 §3: view parameters read once (the fix joins a list with commas), field names,
    // detail URLs.
    ("fields list (pynetbox)", HostKind::Python, "nb.dcim.devices.filter(site=\"fra1\", fields=[\"id\", \"name\"], ordering=[\"name\", \"-id\"])\n"),
    ("fields repeated (url)", HostKind::Text, "GET /api/dcim/devices/?fields=id&fields=name&site=fra1&fields=status\n"),
    ("fields repeated (api_filter)", HostKind::Yaml, "- set_fact:\n    d: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='fields=id fields=name site=fra1') }}\"\n"),
    ("fields names", HostKind::Text, "GET /api/dcim/devices/?fields=id,Name,tag&site=fra1\n"),
    ("fields names (mcp)", HostKind::Python, "netbox_get_object_by_id(\"dcim.device\", 42, fields=[\"id\", \"Name\"])\n"),
    ("omit names (requests)", HostKind::Python, "requests.get(f\"{NB}/api/ipam/prefixes/\", params={\"omit\": \"vlans,children\", \"status\": \"active\"})\n"),
    ("detail exclude", HostKind::Text, "GET /api/dcim/devices/42/?exclude=config_context&fields=id,Name\n"),
    ("nb_lookup join", HostKind::Yaml, "- set_fact:\n    x: \"{{ query('netbox.netbox.nb_lookup', 'devices', api_filter='name__in=' + names | join(',')) }}\"\n"),
];

#[test]
fn issue_examples_keep_their_meaning() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let mut bad = Vec::new();
    for v in versions() {
        for (name, kind, text) in ISSUE_EXAMPLES {
            bad.extend(check_text(name, text, *kind, v));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// The Python cases of `tests/fixtures/values/cases.txt` (issue 30: filters read through
/// names, dict updates, helpers, models), on every version: their certain fixes land on the
/// literal the filter comes from and keep the host and the query.
#[test]
fn values_cases_keep_their_meaning() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/values/cases.txt");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/values/cases.txt");
    let mut bad = Vec::new();
    let mut cases = 0;
    for block in text.split("\n=== ").skip(1) {
        let (head, body) = block.split_once("\n---\n").expect("`---` after the header");
        if head.lines().any(|l| l.starts_with("kind:")) {
            continue;
        }
        cases += 1;
        let name = head.lines().next().unwrap_or_default();
        for v in versions() {
            bad.extend(check_text(name, body, HostKind::Python, v));
        }
    }
    assert!(cases >= 30, "{cases} cases");
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// Every file of `examples/` and `tests/fixtures/` that the checker reads, on every version.
#[test]
fn fixtures_and_examples_keep_their_meaning() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["examples", "tests/fixtures"] {
        collect(&root.join(dir), &mut files);
    }
    assert!(files.len() >= 10, "{} files", files.len());
    let mut bad: Vec<String> = Vec::new();
    let mut fixes = 0usize;
    for v in versions() {
        let k = knowledge(v);
        for path in &files {
            let Some(kind) = HostKind::from_path(path) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            fixes += analyze(&text, kind, &k)
                .iter()
                .filter(|f| is_rest(f.code))
                .flat_map(|f| f.fixes.iter().filter(|x| x.certain))
                .count();
            let name = path
                .strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string();
            bad.extend(check_text(&name, &text, kind, v));
        }
    }
    println!(
        "fixtures and examples: {} files, {fixes} certain REST fixes checked",
        files.len()
    );
    assert!(fixes > 20, "too few certain fixes: {fixes}");
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if HostKind::from_path(&p).is_some()
            && p.file_name().is_some_and(|n| n != "cases.txt")
        {
            out.push(p);
        }
    }
}

/// One generated wrong filter: key and value, written in one of the host forms.
fn host_text(
    form: usize,
    key: &str,
    value: &GenValue,
    ep_key: &str,
    object_type: Option<&str>,
) -> (HostKind, String) {
    let py = |v: &GenValue| match v {
        GenValue::Int(i) => i.to_string(),
        GenValue::Str(s) => serde_json::to_string(s).unwrap(),
        GenValue::Ints(xs) => format!(
            "[{}]",
            xs.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let query = |v: &GenValue| match v {
        GenValue::Int(i) => i.to_string(),
        GenValue::Str(s) => s.replace(' ', "%20"),
        GenValue::Ints(xs) => xs
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(","),
    };
    match (form % 4, object_type) {
        (0, Some(ot)) => (
            HostKind::Python,
            format!("netbox_get_objects(\"{ot}\", filters={{\"{key}\": {}}})\n", py(value)),
        ),
        (1, Some(ot)) => (
            HostKind::Json,
            format!(
                "{{\"name\": \"netbox_get_objects\", \"arguments\": {{\"object_type\": \"{ot}\", \"filters\": {{\"{key}\": {}}}}}}}\n",
                py(value)
            ),
        ),
        (2, Some(ot)) => (
            HostKind::Yaml,
            format!(
                "- tool: netbox_get_objects\n  arguments:\n    object_type: {ot}\n    filters:\n      {key}: {}\n",
                py(value)
            ),
        ),
        _ => (
            HostKind::Markdown,
            format!("List them with `GET /api/{ep_key}/?{key}={}` first.\n", query(value)),
        ),
    }
}

#[derive(Clone)]
enum GenValue {
    Int(i64),
    Str(String),
    Ints(Vec<i64>),
}

/// Wrong filters for one endpoint: misspellings, `__in`, Django lookups, `x`↔`x_id` swaps with
/// ids and with names, traversals, borrowed names.
fn wrong_filters(index: &FilterIndex, ep_key: &str) -> Vec<(String, GenValue)> {
    let ep = &index.endpoints[ep_key];
    let bare: Vec<&str> = ep.params.keys().filter(|k| !k.contains("__")).collect();
    let mut out = Vec::new();
    let val = |k: &str| {
        let p = &ep.params[k];
        if p.kind == ValueKind::Integer || k.ends_with("_id") {
            GenValue::Int(7)
        } else {
            GenValue::Str("edge-01".into())
        }
    };
    for (i, k) in bare
        .iter()
        .enumerate()
        .filter(|(_, k)| !netbox_lsp_view_param(k) && **k != "q")
    {
        if i % 3 != 0 {
            continue; // a third of the names per endpoint keeps the run short
        }
        // misspelling: a doubled letter, a dropped letter
        if k.len() > 4 {
            let mut chars: Vec<char> = k.chars().collect();
            chars.insert(2, chars[2]);
            out.push((chars.iter().collect(), val(k)));
            let mut chars: Vec<char> = k.chars().collect();
            chars.remove(k.len() / 2);
            out.push((chars.iter().collect(), val(k)));
        }
        // Numbers are no MAC addresses: from 4.7.3 NetBox refuses them there (src/rest/faults.rs),
        // so the fix's repeated keys would be reported for their values, not their keys.
        if !k.contains("mac_address") {
            out.push((format!("{k}__in"), GenValue::Ints(vec![3, 4])));
        }
        out.push((format!("{k}__icontains"), GenValue::Str("core".into())));
        out.push((format!("{k}__isnull"), GenValue::Str("true".into())));
        if let Some(b) = k.strip_suffix("_id") {
            out.push((b.to_string(), GenValue::Int(7)));
            out.push((b.to_string(), GenValue::Str("prod-a".into())));
            out.push((format!("{b}__name"), GenValue::Str("prod-a".into())));
            out.push((format!("{b}__site_id"), GenValue::Int(3)));
            // Traversals of the relation's own id, and a boolean for "is it set".
            out.push((format!("{b}__id"), GenValue::Int(7)));
            out.push((format!("{b}.id"), GenValue::Int(7)));
            out.push((k.to_string(), GenValue::Str("true".into())));
        } else {
            out.push((format!("{k}_id"), GenValue::Str("prod-a".into())));
            out.push((format!("{k}_name"), GenValue::Str("prod-a".into())));
            out.push((format!("{k}__slug"), GenValue::Str("edge-01".into())));
            out.push((format!("{k}__name__n"), GenValue::Str("edge-01".into())));
        }
        if k.ends_with("_count") {
            out.push((k.to_string(), GenValue::Str("true".into())));
        }
        if k.ends_with("_type") {
            out.push((k.to_string(), GenValue::Str("device".into())));
            out.push((k.to_string(), GenValue::Str("dcim.interfaces".into())));
        }
    }
    for borrowed in [
        "device_type",
        "prefix_length",
        "vlan_id",
        "content_types",
        "devicetype_id",
        "device_role",
        "cluster",
    ] {
        out.push((borrowed.to_string(), GenValue::Str("prod-a".into())));
        out.push((borrowed.to_string(), GenValue::Int(5)));
    }
    out
}

#[test]
fn generated_wrong_filters_keep_their_meaning() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let mut bad = Vec::new();
    let mut texts = 0usize;
    for v in versions() {
        let index: Arc<FilterIndex> = embedded::embedded_index(v);
        for (n, (ep_key, ep)) in index.endpoints.iter().enumerate() {
            let ot = ep
                .object_type
                .as_deref()
                .filter(|o| index.object_types.contains_key(*o));
            for (i, (key, value)) in wrong_filters(&index, ep_key).into_iter().enumerate() {
                let (kind, text) = host_text(n + i, &key, &value, ep_key, ot);
                texts += 1;
                bad.extend(check_text(&format!("{ep_key}?{key}"), &text, kind, v));
            }
        }
    }
    println!("generated corpus: {texts} texts");
    assert!(texts > 5000, "{texts}");
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        bad[..bad.len().min(30)].join("\n\n")
    );
}

/// GraphQL certain fixes in the hosts of `examples/` and `tests/fixtures/` (Markdown fences,
/// Python strings, `.graphql` files), on every shipped version with its embedded schema: each
/// fix keeps its host parsing (a), leaves no error or warning at its place (d), and applying
/// all certain fixes (REST and GraphQL) leaves none to apply (fix-all in one round).
/// `tests/graphql.rs` (`certain_fixes_keep_meaning_and_converge`) checks the values (c) on the
/// GraphQL fixtures and ground truth.
#[test]
fn graphql_fixes_in_fixtures_and_examples_keep_the_host_and_converge() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["examples", "tests/fixtures"] {
        collect(&root.join(dir), &mut files);
    }
    let mut bad: Vec<String> = Vec::new();
    let mut fixes = 0usize;
    for v in versions() {
        let k = Knowledge {
            graphql_embedded: Some(v),
            ..knowledge(v)
        };
        for path in &files {
            let (Some(kind), Ok(text)) = (HostKind::from_path(path), std::fs::read_to_string(path))
            else {
                continue;
            };
            let name = path
                .strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string();
            let findings = analyze(&text, kind, &k);
            let parsed_before = parses(&text, kind);
            let mut all_edits = Vec::new();
            for f in &findings {
                for fix in f.fixes.iter().filter(|x| x.certain) {
                    let edits: Vec<(Range<usize>, String)> = fix
                        .edits
                        .iter()
                        .map(|e| (e.range.clone(), e.new_text.clone()))
                        .collect();
                    all_edits.extend(edits.iter().cloned());
                    if !f.code.starts_with("graphql-") {
                        continue; // REST fixes: the tests above
                    }
                    fixes += 1;
                    let what = format!("{name} [{v}] {}: {:?}", f.code, fix.title);
                    let (after, ranges) = apply(&text, &edits);
                    if parsed_before && !parses(&after, kind) {
                        bad.push(format!("{what}: (a) no longer parses"));
                        continue;
                    }
                    if matches!(kind, HostKind::Markdown | HostKind::Text)
                        && !same_shape(&text, &after)
                    {
                        bad.push(format!("{what}: (a) changed the Markdown structure"));
                        continue;
                    }
                    for g in analyze(&after, kind, &k).iter().filter(|g| {
                        matches!(g.severity, Severity::Error | Severity::Warning)
                            && ranges.iter().any(|r| overlaps(&g.range, r))
                    }) {
                        bad.push(format!("{what}: (d) new finding {}: {}", g.code, g.message));
                    }
                }
            }
            if !all_edits.is_empty() {
                let (after, _) = apply(&text, &all_edits);
                let left: Vec<&'static str> = analyze(&after, kind, &k)
                    .iter()
                    .filter(|g| g.fixes.iter().any(|x| x.certain))
                    .map(|g| g.code)
                    .collect();
                if !left.is_empty() {
                    bad.push(format!(
                        "{name} [{v}]: fix-all needs a second round: {left:?}"
                    ));
                }
            }
        }
    }
    println!("fixtures and examples: {fixes} certain GraphQL fixes checked");
    assert!(fixes > 20, "too few certain GraphQL fixes: {fixes}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Issue 31 §2: fix-all converges. One round of fix-all (the certain fixes the editor's
/// `source.fixAll` and `check --fix` take, [`netbox_lsp::fix::fix_all_edits`]) leaves a text on
/// which fix-all changes nothing: fix-all twice equals fix-all once, on every file of
/// `examples/` and `tests/fixtures/`, on every shipped release with its index and GraphQL
/// schema.
#[test]
fn fix_all_twice_equals_fix_all_once() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["examples", "tests/fixtures"] {
        collect(&root.join(dir), &mut files);
    }
    let once = |text: &str, kind: HostKind, k: &Knowledge| {
        let findings = analyze(text, kind, k);
        netbox_lsp::fix::apply(text, &netbox_lsp::fix::fix_all_edits(&findings))
    };
    let (mut bad, mut changed) = (Vec::new(), 0usize);
    for v in versions() {
        let k = Knowledge {
            graphql_embedded: Some(v),
            ..knowledge(v)
        };
        for path in &files {
            let (Some(kind), Ok(text)) = (HostKind::from_path(path), std::fs::read_to_string(path))
            else {
                continue;
            };
            let first = once(&text, kind, &k);
            if first == text {
                continue;
            }
            changed += 1;
            let second = once(&first, kind, &k);
            if second != first {
                let left: Vec<String> = analyze(&first, kind, &k)
                    .iter()
                    .filter(|f| f.fixes.len() == 1 && f.fixes[0].certain)
                    .map(|f| format!("{} {:?}", f.code, f.fixes[0].title))
                    .collect();
                bad.push(format!(
                    "{} [{v}]: a second round still fixes {left:?}",
                    path.strip_prefix(root).unwrap_or(path).display()
                ));
            }
        }
    }
    println!("fix-all changed {changed} file versions");
    assert!(changed > 20, "only {changed} files changed by fix-all");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Issue 31 §3: every rename row's certain fix carries the value only to a key that reads it.
/// For each shipped release, each endpoint and each row of the rename table that applies
/// there, the old name is written with values of every kind people send (an id, a slug, an
/// object type, a boolean); every certain fix must keep the property's (a)–(e), (b) being
/// that the value kind fits the new key.
#[test]
fn every_rename_row_keeps_the_value_kind() {
    if embedded::RELEASES.is_empty() {
        println!("SKIPPED: no NetBox index is embedded in this build");
        return;
    }
    let values = [
        "7",
        "leaf-01",
        "dcim.device",
        "true",
        "4-post-cabinet",
        "10.0.0.0/16",
    ];
    let (mut bad, mut rows) = (Vec::new(), 0usize);
    for v in versions() {
        let index: Arc<FilterIndex> = embedded::embedded_index(v);
        for ep_key in index.endpoints.keys() {
            for (old, new, _, _) in netbox_lsp::rest::renamed_on(ep_key) {
                if !index.endpoints[ep_key].params.contains_key(new) {
                    continue;
                }
                rows += 1;
                for value in values {
                    let text =
                        format!("List them with `GET /api/{ep_key}/?{old}={value}` first.\n");
                    bad.extend(check_text(
                        &format!("{ep_key}?{old}={value}"),
                        &text,
                        HostKind::Markdown,
                        v,
                    ));
                }
            }
        }
    }
    assert!(rows >= 30, "only {rows} rename rows applied");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
