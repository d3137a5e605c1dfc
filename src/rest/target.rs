//! The call's target: resolved to an endpoint of the index, and reported as an unknown object
//! type when an MCP tool names one the server's map does not hold as written (the MCP server
//! rejects it, netbox-facts R13). pynetbox and URL targets that the index does not know fail
//! open.

use super::endpoint::View;
use super::{finding, finding_sev, Ctx};
use crate::extract::{CallForm, Value};
use crate::finding::{Finding, Severity};
use crate::index::FilterIndex;
use std::ops::Range;

/// Resolves the call's endpoint; reports MCP object types the server would reject.
pub(crate) fn resolve<'a>(ctx: &Ctx<'a>, out: &mut Vec<Finding>) -> Option<View<'a>> {
    let index = ctx.index;
    if ctx.call.form == CallForm::SearchObjects {
        check_search_types(ctx, out);
    }
    let (target, range) = match (&ctx.call.target, ctx.call.form) {
        (Some((t, r)), _) => (t.as_str(), Some(r.clone())),
        (None, CallForm::GetChangelogs) => ("core/object-changes", None),
        (None, _) => return None,
    };
    if let (Some(range), true) = (range, is_tool_type(ctx.call.form)) {
        if let Some(f) = tool_type(index, target, range) {
            out.push(f);
        }
    }
    index
        .resolve(target)
        .map(|(key, ep)| View { key, ep, index })
}

/// Forms whose target is an MCP `object_type` argument.
fn is_tool_type(form: CallForm) -> bool {
    matches!(form, CallForm::GetObjects | CallForm::GetObjectById)
}

/// An MCP object type the index does not know as written. The MCP server accepts exactly the
/// `app.model` keys of its map (netbox-facts §B.3, R13: "Invalid object_type"), so any other
/// spelling of a known type (`dcim.devices`, `dcim/devices`, `device`, `Device`,
/// `ipam.ip_address`) is an error, with a certain fix when one object type is meant. A
/// `plugin.model` whose app is not a NetBox app is a warning: plugin discovery may add it.
/// Placeholders and non-identifiers are left alone.
fn tool_type(index: &FilterIndex, target: &str, range: Range<usize>) -> Option<Finding> {
    if index.object_types.contains_key(target) || index.object_types.is_empty() {
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
    let certain = names.len() == 1;
    let mut f = finding(range.clone(), "unknown-object-type", msg);
    for n in &names {
        f = f.with_fix(
            format!("Replace with `{n}`"),
            range.clone(),
            n.clone(),
            certain,
        );
    }
    Some(f)
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
        .map(|k| (strsim::jaro_winkler(&t, &key_form(k)), k))
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
            if let Some(f) = tool_type(ctx.index, s, inner) {
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
