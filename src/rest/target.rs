//! The call's target: resolved to an endpoint of the index, and reported as an unknown object
//! type when an MCP tool names one the server's map does not hold as written (the MCP server
//! rejects it, netbox-facts R13). pynetbox and URL targets that the index does not know fail
//! open.

use super::endpoint::View;
use super::suggest::jaro_winkler_from;
use super::{finding, finding_sev, Ctx};
use crate::extract::{old_mcp, CallForm, Value, CHANGELOG_TARGET};
use crate::finding::{Advice, Finding, Severity};
use crate::index::FilterIndex;
use std::ops::Range;

/// Resolves the call's endpoint; reports MCP object types the server would reject and paths
/// that are no endpoint. A target whose finding has one certain fix is resolved to the fixed
/// target, so the filters are checked as those of the call that fix-all (or an agent retrying
/// with the fix) sends: `ipam.ip_address` with `within` gets `within` → `parent` too, never a
/// call that passes with unchecked filters. The finding says which way it went.
pub(crate) fn resolve<'a>(ctx: &Ctx<'a>, out: &mut Vec<Finding>) -> Option<View<'a>> {
    let before = out.len();
    let view = resolve_as_written(ctx, out);
    let Some((_, Some(target_range))) = written(ctx) else {
        return view;
    };
    let Some(f) = out.get_mut(before..).and_then(|found| {
        found.iter_mut().rev().find(|f| {
            f.range == target_range && matches!(f.code, "unknown-object-type" | "unknown-endpoint")
        })
    }) else {
        return view;
    };
    let view = view.or_else(|| fixed_target(ctx.index, ctx.call.form, f));
    if !ctx.call.filters.is_empty() {
        match &view {
            Some(v) => f.message.push_str(&format!(
                " The filters are checked as filters of /api/{}/.",
                v.key
            )),
            None => f.message.push_str(" The filters are not checked."),
        }
    }
    view
}

/// The endpoint the one certain fix of a target finding names, if the index has it (for the
/// old `get_objects`, the endpoint of the name the fix writes).
fn fixed_target<'a>(index: &'a FilterIndex, form: CallForm, f: &Finding) -> Option<View<'a>> {
    let [fix] = f.fixes.as_slice() else {
        return None;
    };
    let [edit] = fix.edits.as_slice() else {
        return None;
    };
    if !fix.certain {
        return None;
    }
    let target = match form {
        CallForm::OldGetObjects => old_mcp::endpoint(&edit.new_text)?,
        _ => edit.new_text.as_str(),
    };
    index
        .resolve(target)
        .map(|(key, ep)| View { key, ep, index })
}

/// The call's target as the endpoint is read from it, with its host range: a detail URL
/// (`/api/dcim/devices/42/`) names its list endpoint before the id, so the target is that list
/// path and the range covers it alone (when the range holds the whole target as written; a
/// host that gives a detail target over a shorter range gives the list path's range).
fn written<'a>(ctx: &Ctx<'a>) -> Option<(&'a str, Option<Range<usize>>)> {
    let (target, range) = match (&ctx.call.target, ctx.call.form) {
        (Some((t, r)), _) => (t.as_str(), Some(r.clone())),
        (None, CallForm::GetChangelogs) => (CHANGELOG_TARGET, None),
        (None, _) => return None,
    };
    // Only a URL names a detail path (the split is not asked for other forms).
    let detail = (ctx.call.form == CallForm::Url)
        .then(|| crate::extract::text::detail_split(target))
        .flatten();
    match detail {
        Some((list, _)) => {
            let range = range.map(|r| {
                if r.len() == target.len() {
                    r.start..r.start + list.len()
                } else {
                    r
                }
            });
            Some((list, range))
        }
        _ => Some((target, range)),
    }
}

fn resolve_as_written<'a>(ctx: &Ctx<'a>, out: &mut Vec<Finding>) -> Option<View<'a>> {
    let index = ctx.index;
    if ctx.call.form.tool_like() == CallForm::SearchObjects {
        check_search_types(ctx, out);
    }
    let (target, range) = written(ctx)?;
    if ctx.call.form == CallForm::OldGetObjects {
        let range = range?;
        if let Some(f) = old_tool_type(index, target, range) {
            out.push(f);
        }
        let (key, ep) = index.resolve(ctx.call.endpoint_target()?)?;
        return Some(View { key, ep, index });
    }
    // An object type as the MCP tools take it (nearly every tool call): `tool_type` has nothing
    // to say and the endpoint is found with the same probe.
    let mut exact = None;
    if let (Some(range), true) = (range.clone(), is_tool_type(ctx.call.form)) {
        let found = if ctx.call.form.is_code_mode() {
            code_mode_type(index, target, range)
        } else {
            exact = index.object_type_endpoint(target);
            match exact {
                Some(_) => None,
                None => tool_type(index, target, range),
            }
        };
        if let Some(f) = found {
            out.push(f);
        }
    }
    if let Some(range) = range.filter(|_| {
        matches!(
            ctx.call.form,
            CallForm::Url | CallForm::Pynetbox | CallForm::AnsibleLookup
        )
    }) {
        if let Some(f) = unknown_endpoint(ctx, target, range) {
            out.push(f);
            return None;
        }
    }
    exact
        .unwrap_or_else(|| index.resolve(target))
        .map(|(key, ep)| View { key, ep, index })
}

/// `unknown-endpoint`: a URL path (or pynetbox attribute) that is no list endpoint of this
/// release, for a NetBox app; NetBox answers 404 (pynetbox raises `RequestError`). A path
/// NetBox serves is written with dashes (`/api/ipam/ip-addresses/`); pynetbox turns `_` into
/// `-` itself. Plugins (`/api/plugins/...`), unknown apps (other APIs' `/api/v1/...`) and
/// placeholders (upper case) are left alone.
fn unknown_endpoint(ctx: &Ctx, target: &str, range: Range<usize>) -> Option<Finding> {
    let index = ctx.index;
    let key = target
        .trim()
        .trim_start_matches('/')
        .trim_start_matches("api/")
        .trim_end_matches('/');
    let (app, slug) = key.split_once('/')?;
    if app == "plugins"
        || slug.contains('/')
        || index.endpoints.is_empty()
        || index.endpoints.contains_key(key)
        || key.bytes().any(|b| b.is_ascii_uppercase())
    {
        return None;
    }
    let known_app = index
        .endpoints
        .keys()
        .any(|k| k.split('/').next() == Some(app));
    let dashed = key.replace('_', "-");
    let history = super::endpoint_history::removed(&dashed);
    let mut in_versions = super::versions::with_endpoint(index, ctx.others, &dashed);
    in_versions.sort_by_key(|v| {
        v.split('.')
            .map(|p| p.parse().unwrap_or(0))
            .collect::<Vec<u32>>()
    });
    if !known_app && history.is_none() && in_versions.is_empty() {
        return None;
    }
    let url = ctx.call.form == CallForm::Url;
    // A path after a base that ends in `/api` (`f"{API_URL}/dcim/device/"`) keeps the written
    // form: adding `/api` would double it.
    let url_base = if target.trim_start().starts_with("/api/") || !target.starts_with('/') {
        "/api/"
    } else {
        "/"
    };
    // An Ansible nb_lookup term is shown (and fixed) in the collection's own names.
    let ansible = ctx.call.form == CallForm::AnsibleLookup;
    let shown = |k: &str| {
        if url {
            format!("{url_base}{k}/")
        } else if ansible {
            crate::extract::terms::term_of(k).unwrap_or(k).to_string()
        } else {
            k.replacen('/', ".", 1).replace('-', "_")
        }
    };
    let version = &index.netbox_version;
    let mut msg = format!(
        "`{}` is not a REST endpoint of NetBox {version}: NetBox answers 404{}.",
        if url { target.to_string() } else { shown(key) },
        if url {
            String::new()
        } else if ansible {
            format!(" for the lookup's `/api/{key}/` (nb_lookup fails)")
        } else {
            " (pynetbox raises RequestError)".to_string()
        }
    );
    let mut names: Vec<String> = Vec::new();
    let mut certain = false;
    let mut advice = None;
    if url && dashed != key && index.endpoints.contains_key(dashed.as_str()) {
        msg.push_str(" NetBox's paths are written with dashes.");
        names.push(dashed);
        certain = true;
    } else if !in_versions.is_empty() {
        msg.push_str(&format!(" It exists in NetBox {}.", in_versions.join(", ")));
        let (kind, text) = super::versions::switch_advice(index);
        advice = Advice::push(&mut msg, kind, &text);
        if let Some(new) = moved_to(key).filter(|n| index.endpoints.contains_key(*n)) {
            names.push(new.to_string());
        }
        // The path also had an older meaning (rack groups before 2.11 are today's locations).
        if let Some((_, last, _, Some(new), source)) = history {
            if index.endpoints.contains_key(*new) {
                msg.push_str(&format!(
                    " Up to NetBox {last} it meant something else ({source})."
                ));
                names.push(new.to_string());
            }
        }
    } else if let Some((_, last, removed, new, source)) = history {
        msg.push_str(&format!(
            " It last existed in NetBox {last} and was removed in {removed} ({source})."
        ));
        if let Some(new) = new.filter(|n| index.endpoints.contains_key(*n)) {
            names.push(new.to_string());
        }
    } else if !ansible {
        // A lookup term is one of the collection's fixed names: a near name is no advice.
        (names, certain) = similar_endpoints(index, app, slug);
    }
    // Only endpoints the collection has a term for can be written in a lookup.
    if ansible {
        names.retain(|n| crate::extract::terms::term_of(n).is_some());
    }
    match names.as_slice() {
        [] => {}
        [one] => msg.push_str(&format!(" Use `{}`.", shown(one))),
        many => msg.push_str(&format!(
            " Did you mean {}?",
            quote_list(&many.iter().map(|n| shown(n)).collect::<Vec<_>>())
        )),
    }
    let certain = certain && names.len() == 1;
    let mut f = finding(range.clone(), "unknown-endpoint", msg);
    f.facts.advice = advice;
    for n in &names {
        let new_text = if url {
            let mut t = format!("{url_base}{n}");
            if target.ends_with('/') {
                t.push('/');
            }
            t
        } else {
            shown(n)
        };
        f = f.with_fix(
            format!("Replace with `{new_text}`"),
            range.clone(),
            new_text,
            certain,
        );
    }
    Some(f)
}

/// Endpoints of shipped releases that moved: `extras/object-types` (removed in 4.5, release
/// notes 4.5) → `core/object-types`.
fn moved_to(key: &str) -> Option<&'static str> {
    match key {
        "extras/object-types" => Some("core/object-types"),
        _ => None,
    }
}

/// Endpoints of `app` close to `slug`: the plural (`device` → `devices`, certain), else
/// Jaro-Winkler ≥ 0.85 after removing `_`/`-`, best three (never certain: a near name can be
/// another object type).
fn similar_endpoints(index: &FilterIndex, app: &str, slug: &str) -> (Vec<String>, bool) {
    let norm = |s: &str| s.replace(['_', '-'], "").to_ascii_lowercase();
    let t = norm(slug);
    let in_app: Vec<(&String, String)> = index
        .endpoints
        .keys()
        .filter_map(|k| {
            let (a, s) = k.split_once('/')?;
            (a == app).then(|| (k, norm(s)))
        })
        .collect();
    let plural: Vec<String> = in_app
        .iter()
        .filter(|(_, s)| {
            *s == format!("{t}s")
                || *s == format!("{t}es")
                || t.strip_suffix('y').is_some_and(|b| *s == format!("{b}ies"))
                || t.strip_suffix('s').is_some_and(|b| *s == b)
        })
        .map(|(k, _)| k.to_string())
        .collect();
    if !plural.is_empty() {
        return (plural, true);
    }
    let mut scored: Vec<(f64, &String)> = in_app
        .iter()
        .map(|(k, s)| (jaro_winkler_from(&t, s, 0.84), *k))
        .filter(|(s, _)| *s >= 0.85)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let names = scored.into_iter().take(3).map(|(_, k)| k.clone()).collect();
    (names, false)
}

/// Forms whose target is an MCP `object_type` argument (or a code-mode helper's `type`).
fn is_tool_type(form: CallForm) -> bool {
    matches!(
        form.tool_like(),
        CallForm::GetObjects | CallForm::GetObjectById
    )
}

/// A code-mode helper's type: an `app.model` object type, judged as the MCP tools judge it, or
/// the path form `app/endpoint` (`dcim/interfaces`, also with `/api/` and slashes around), which
/// code mode resolves to the endpoint (netboxlabs/skills `code-mode-helpers.md`). A path of a
/// NetBox app that is no endpoint of this release is `unknown-object-type` with the near
/// endpoints; plugin paths and unknown apps are left alone.
fn code_mode_type(index: &FilterIndex, target: &str, range: Range<usize>) -> Option<Finding> {
    if !target.contains('/') {
        return tool_type(index, target, range);
    }
    let key = target
        .trim()
        .trim_start_matches('/')
        .trim_start_matches("api/")
        .trim_end_matches('/');
    let (app, slug) = key.split_once('/')?;
    if index.endpoints.is_empty()
        || index.resolve(key).is_some()
        || app == "plugins"
        || slug.contains('/')
        || crate::extract::is_placeholder(target, "type")
        || !key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-/".contains(&b))
        || !index
            .endpoints
            .keys()
            .any(|k| k.split('/').next() == Some(app))
    {
        return None;
    }
    let (names, certain) = similar_endpoints(index, app, slug);
    let mut msg = format!(
        "`{target}` is no endpoint path of NetBox {}: code mode resolves `app.model` object types (`dcim.device`) and endpoint paths (`dcim/devices`), and rejects this one.",
        index.netbox_version
    );
    match names.as_slice() {
        [] => {}
        [one] => msg.push_str(&format!(" Use `{one}`.")),
        many => msg.push_str(&format!(" Did you mean {}?", quote_list(many))),
    }
    Some(type_finding(&range, msg, &names, certain))
}

/// An MCP object type the index does not know as written. The MCP server accepts exactly the
/// `app.model` keys of its map (netbox-facts §B.3, R13: "Invalid object_type"), so any other
/// spelling of a known type (`dcim.devices`, `dcim/devices`, `device`, `Device`,
/// `ipam.ip_address`) is an error, with a certain fix when one object type is meant. A
/// `plugin.model` whose app is not a NetBox app is a warning: plugin discovery may add it.
/// Placeholders and non-identifiers are left alone.
fn tool_type(index: &FilterIndex, target: &str, range: Range<usize>) -> Option<Finding> {
    if index.is_object_type(target) || index.object_types.is_empty() {
        return None;
    }
    let shaped = !target.is_empty()
        && target
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'));
    if !shaped || crate::extract::is_placeholder(target, "object_type") {
        return None;
    }
    // A spelling the index resolves to one object type (`dcim.devices`, `dcim/devices`).
    if let Some(ot) = index
        .resolve(target)
        .and_then(|(_, ep)| ep.object_type.as_deref())
        .filter(|ot| index.object_types.contains_key(*ot))
    {
        return Some(
            finding(
                range.clone(),
                "unknown-object-type",
                format!(
                    "The MCP tools take the object type `{ot}`, not `{target}`; the server rejects other spellings (\"Invalid object_type\")."
                ),
            )
            .with_fix(format!("Replace with `{ot}`"), range, ot, true),
        );
    }
    let app = target.split_once('.').map(|(a, _)| a);
    let known_app = |a: &str| {
        index
            .object_types
            .keys()
            .any(|k| k.split('.').next() == Some(a))
    };
    if let Some(app) = app.filter(|a| !known_app(a)) {
        let shaped = !app.is_empty() && target.matches('.').count() == 1 && !target.ends_with('.');
        if !shaped {
            return None;
        }
        return Some(finding_sev(
            range,
            "unknown-object-type",
            Severity::Warning,
            format!(
                "`{target}` is not an object type of stock NetBox {}: the MCP server rejects it unless plugin discovery adds it (`{app}` is not a NetBox app).",
                index.netbox_version
            ),
        ));
    }
    let names = similar_types(index, target);
    let mut msg = format!(
        "`{target}` is not a NetBox {} object type: the MCP server rejects it (\"Invalid object_type\"); it takes `app.model` keys such as `dcim.device`.",
        index.netbox_version
    );
    match (names.as_slice(), app) {
        ([], Some(app)) => msg.push_str(&format!(
            " Object types of `{app}` are listed by `netbox-lsp index info`."
        )),
        ([], None) => {}
        ([one], _) => msg.push_str(&format!(" Use `{one}`.")),
        (many, _) => msg.push_str(&format!(" Did you mean {}?", quote_list(many))),
    }
    Some(type_finding(&range, msg, &names, true))
}

/// An object type of the old MCP server's `get_objects` that its map does not hold as written:
/// the server refuses it (`ValueError("Invalid object_type. Must be one of: ...")`, `server.py`
/// of netboxlabs/netbox-mcp-server e1155d5, lines 185–188), as the newer tools refuse theirs.
/// The names it may mean: near spellings of its names (`ip_addresses`, `device`), and for a
/// NetBox object type or endpoint (`dcim.device`, `ipam/ip-addresses`) the names of that
/// endpoint; a certain fix when there is one.
fn old_tool_type(index: &FilterIndex, target: &str, range: Range<usize>) -> Option<Finding> {
    if old_mcp::endpoint(target).is_some() || index.endpoints.is_empty() {
        return None;
    }
    let mut names = old_mcp::near_names(target);
    if names.is_empty() {
        if let Some((key, _)) = index.resolve(target) {
            names = old_mcp::names_of_endpoint(key);
        }
    }
    let mut msg = format!(
        "`{target}` is not an object type of the old MCP tool `get_objects`: that server takes only the names of its own map (`devices`, `ip-addresses`, `virtual-machines`, ...) and rejects others (\"Invalid object_type\")."
    );
    let names: Vec<String> = names.into_iter().map(str::to_string).collect();
    match names.as_slice() {
        [] => msg.push_str(" Its names are listed in `docs/call-forms.md`."),
        [one] => msg.push_str(&format!(" Use `{one}`.")),
        many => msg.push_str(&format!(" Did you mean {}?", quote_list(many))),
    }
    Some(type_finding(&range, msg, &names, true))
}

/// An `unknown-object-type` finding at `range` with one "Replace with" fix per name in `names`;
/// certain when `certain` and there is exactly one name.
fn type_finding(range: &Range<usize>, msg: String, names: &[String], certain: bool) -> Finding {
    let certain = certain && names.len() == 1;
    let mut f = finding(range.clone(), "unknown-object-type", msg);
    for n in names {
        f = f.with_fix(
            format!("Replace with `{n}`"),
            range.clone(),
            n.clone(),
            certain,
        );
    }
    f
}

/// Object types close to `target`: exact after removing `_`/`-`, else Jaro-Winkler ≥ 0.85.
fn similar_types(index: &FilterIndex, target: &str) -> Vec<String> {
    let norm = |s: &str| s.replace(['_', '-'], "").to_ascii_lowercase();
    let t = norm(target);
    let singular = t.strip_suffix('s').unwrap_or(&t).to_string();
    let dotted = t.contains('.');
    // Without an app (`device`, `Devices`), compare with the model part only.
    let key_form = |k: &str| {
        let k = norm(k);
        if dotted {
            k
        } else {
            k.split_once('.').map_or(k.clone(), |(_, m)| m.to_string())
        }
    };
    let exact: Vec<&String> = index
        .object_types
        .keys()
        .filter(|k| key_form(k) == t || key_form(k) == singular)
        .collect();
    if !exact.is_empty() {
        return exact.into_iter().take(3).cloned().collect();
    }
    let mut scored: Vec<(f64, &String)> = index
        .object_types
        .keys()
        .map(|k| (jaro_winkler_from(&t, &key_form(k), 0.84), k))
        .filter(|(s, _)| *s >= 0.85)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, k)| k.clone()).collect()
}

/// `netbox_search_objects(object_types=[...])`: each literal must be a known object type.
fn check_search_types(ctx: &Ctx, out: &mut Vec<Finding>) {
    for arg in &ctx.call.args {
        if arg.name != "object_types" {
            continue;
        }
        let Value::List(items) = &arg.value else {
            continue;
        };
        for (v, r) in items {
            let Value::Str(s) = v else { continue };
            let inner = unquoted(r.clone(), s);
            let found = if ctx.call.form.is_code_mode() {
                code_mode_type(ctx.index, s, inner)
            } else {
                tool_type(ctx.index, s, inner)
            };
            if let Some(f) = found {
                out.push(f);
            }
        }
    }
}

/// The range of a string literal's content when the literal is exactly `"s"`/`'s'`.
fn unquoted(r: Range<usize>, s: &str) -> Range<usize> {
    if r.len() == s.len() + 2 {
        r.start + 1..r.end - 1
    } else {
        r
    }
}

/// `` `a`, `b` or `c` ``.
pub(crate) fn quote_list(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}
