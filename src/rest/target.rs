//! The call's target: resolved to an endpoint of the index, or reported as an unknown object
//! type when an MCP tool names one (the MCP server rejects a type outside its map, netbox-facts
//! R13). Anything else unknown fails open.

use super::endpoint::View;
use super::{finding, finding_sev, Ctx};
use crate::extract::{CallForm, Value};
use crate::finding::{Finding, Severity};
use crate::index::FilterIndex;
use std::ops::Range;

/// Resolves the call's endpoint; reports unknown or non-canonical MCP object types.
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
    match index.resolve(target) {
        Some((key, ep)) => {
            if let Some(range) = range {
                if is_tool_type(ctx.call.form) {
                    canonical(index, target, ep.object_type.as_deref(), range, out);
                }
            }
            Some(View { key, ep, index })
        }
        None => {
            if let (Some(range), true) = (range, is_tool_type(ctx.call.form)) {
                if let Some(f) = unknown_type(index, target, range) {
                    out.push(f);
                }
            }
            None
        }
    }
}

/// Forms whose target is an MCP `object_type` argument.
fn is_tool_type(form: CallForm) -> bool {
    matches!(form, CallForm::GetObjects | CallForm::GetObjectById)
}

/// `dcim.devices` resolves, but the MCP server only knows `dcim.device`: a warning with the
/// certain fix.
fn canonical(
    index: &FilterIndex,
    target: &str,
    object_type: Option<&str>,
    range: Range<usize>,
    out: &mut Vec<Finding>,
) {
    let Some(ot) = object_type else { return };
    if target == ot || !index.object_types.contains_key(ot) {
        return;
    }
    out.push(
        finding_sev(
            range.clone(),
            "unknown-object-type",
            Severity::Warning,
            format!(
                "The MCP tools take the object type `{ot}`, not `{target}`; the server rejects other spellings."
            ),
        )
        .with_fix(format!("Replace with `{ot}`"), range, ot, true),
    );
}

/// An unresolvable target shaped like `app.model` whose app the index knows (an unknown app
/// is probably a plugin: fail open).
fn unknown_type(index: &FilterIndex, target: &str, range: Range<usize>) -> Option<Finding> {
    // A known object type whose endpoint the index left out (unreadable parameters).
    if index.object_types.contains_key(target) {
        return None;
    }
    let (app, model) = target.split_once('.')?;
    let shaped = !app.is_empty()
        && !model.is_empty()
        && target
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-');
    if !shaped || model.contains('.') {
        return None;
    }
    let known_app = index
        .object_types
        .keys()
        .any(|k| k.split('.').next() == Some(app));
    if !known_app {
        return None;
    }
    let names = similar_types(index, target);
    let mut msg = format!(
        "`{target}` is not a NetBox {} object type: netbox_get_objects rejects it.",
        index.netbox_version
    );
    match names.as_slice() {
        [] => msg.push_str(&format!(
            " Object types of `{app}` are listed by `netbox-lsp index info`."
        )),
        [one] => msg.push_str(&format!(" Use `{one}`.")),
        many => msg.push_str(&format!(" Did you mean {}?", quote_list(many))),
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
    if let Some(k) = index
        .object_types
        .keys()
        .find(|k| norm(k) == t || norm(k) == singular)
    {
        return vec![k.clone()];
    }
    let mut scored: Vec<(f64, &String)> = index
        .object_types
        .keys()
        .map(|k| (strsim::jaro_winkler(&t, &norm(k)), k))
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
            match ctx.index.resolve(s) {
                Some((_, ep)) => canonical(ctx.index, s, ep.object_type.as_deref(), inner, out),
                None => {
                    if let Some(f) = unknown_type(ctx.index, s, inner) {
                        out.push(f);
                    }
                }
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
