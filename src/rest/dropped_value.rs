//! `dropped-value`: a value that never reaches NetBox as a filter (Python `None`, an empty
//! list or string), and what NetBox does with an empty value per kind of filter.

use super::endpoint::View;
use super::lookups::Key;
use super::nullable;
use super::{finding, render, Ctx};
use crate::extract::{CallForm, FilterEntry, Value};
use crate::finding::Finding;
use crate::index::ValueKind;

/// `dropped-value`: a value that never reaches NetBox as a filter. Python `None` / JSON null
/// in an MCP tool call (requests drops it, httpx sends `key=`; both unfiltered, ADR-0045: 141 of
/// 141 devices) or in `requests.get(params=...)`, an empty list (nothing sent), an empty string
/// (`key=` is no filter). pynetbox sends `None` as `null`, so `None` is fine there. Returns
/// true when the value was dropped.
/// `"null"` for the value at `r`; an empty YAML value (`tenant:`, `- `) gets a space before it
/// so the entry stays a mapping entry (`tenant: "null"`, not the plain scalar `tenant:"null"`).
fn null_value(ctx: &Ctx, r: &std::ops::Range<usize>) -> String {
    let s = render::null_string(ctx.syntax());
    if r.is_empty() && ctx.syntax() == crate::extract::Syntax::Yaml {
        format!(" {s}")
    } else {
        s
    }
}

#[inline]
pub(crate) fn dropped(
    ctx: &Ctx,
    view: Option<&View>,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) -> bool {
    // Only these values can be dropped: every other entry leaves without the frame of the
    // messages below.
    let maybe = match &entry.value {
        Value::Null => true,
        Value::List(items) => items.is_empty(),
        Value::Str(s) => s.is_empty(),
        _ => false,
    };
    maybe && dropped_value(ctx, view, entry, out)
}

/// [`dropped`] of a null, an empty list or an empty string.
#[inline(never)]
fn dropped_value(
    ctx: &Ctx,
    view: Option<&View>,
    entry: &FilterEntry,
    out: &mut Vec<Finding>,
) -> bool {
    let key = &entry.key;
    let r = entry.value_range.clone();
    let msg = match &entry.value {
        Value::Null if key == "q" && ctx.call.form != CallForm::Pynetbox => format!(
            "`q: {}` never reaches NetBox ({}), so the search is dropped and the call returns every object. Give the search text or leave `q` out.",
            render::describe(&Value::Null, ctx.syntax()),
            if ctx.is_mcp() {
                "the MCP client drops it or sends an empty `q=`"
            } else {
                "requests drops it"
            }
        ),
        Value::Null if ctx.call.form != CallForm::Pynetbox => {
            let base = Key::parse(key).base();
            // Certain where `null` is the null selector: relations, ids, char filters
            // (`name=null` selects unnamed objects); not on choice filters.
            let certain = base.ends_with("_id")
                || view.is_some_and(|v| {
                    v.has_null_key(base)
                        || v.param(base).is_some_and(|p| {
                            p.choices.is_none() && v.ep.params.has_lookup(base, "empty")
                        })
                });
            // `render::describe` of a null, borrowed; how it is dropped, as parts of the
            // message (neither written into a string of its own first).
            let shown = match ctx.syntax() {
                crate::extract::Syntax::Python => "None",
                _ => "null",
            };
            let how: [&str; 3] = if ctx.is_mcp() {
                ["the MCP client drops it or sends an empty `", key, "=`"]
            } else {
                ["requests drops it", "", ""]
            };
            let refused =
                view.and_then(|v| v.param(key).and_then(|p| nullable::refusal(v, key, p)));
            if refused.is_some() {
                out.push(finding(
                    r,
                    "dropped-value",
                    cat(&[
                        "`", key, ": ", shown, "` never reaches NetBox (", how[0], how[1], how[2],
                        "), so the call is unfiltered. `", key,
                        "` has no null selector either (`null` is an HTTP 400): give a value or drop the filter.",
                    ]),
                ));
                return true;
            }
            let f = finding(
                r.clone(),
                "dropped-value",
                cat(&[
                    "`", key, ": ", shown, "` never reaches NetBox (", how[0], how[1], how[2],
                    "), so the call is unfiltered. To select objects whose value is empty, send the string \"null\".",
                ]),
            )
            .with_fix("Send the null selector \"null\"", r.clone(), null_value(ctx, &r), certain);
            out.push(f);
            return true;
        }
        Value::List(items) if items.is_empty() => format!(
            "An empty list for `{key}` sends nothing, so NetBox returns every object. Give at least one value or drop the filter."
        ),
        Value::Str(s) if s.is_empty() => empty_value(view, key),
        _ => return false,
    };
    out.push(finding(r, "dropped-value", msg));
    true
}

/// What NetBox does with `key=` (an empty string), per kind of filter (live sweeps 4.3.3 and
/// 4.6.8, `empty-value` probes): a relation filter answers HTTP 400 ("“” is not a valid
/// value", `cable_id=` on circuit terminations), a declared choice filter (schema: an array of
/// choices) HTTP 400 ("Select a valid choice", `mode=` on VM interfaces), a text filter or a
/// single-valued model choice filter ignores it (`description=`, `cable_end=`).
fn empty_value(view: Option<&View>, key: &str) -> String {
    let base = Key::parse(key).base();
    let param = view.and_then(|v| v.param(key).map(|p| (v, p)));
    let kind = param.map(|(v, p)| {
        if p.choices.is_some() {
            if p.multi {
                "choice"
            } else {
                "text"
            }
        } else if v.null_key(base).as_deref() == Some(base)
            || v.takes_integers(key, p) && base.ends_with("_id")
        {
            "relation"
        } else if matches!(p.kind, ValueKind::Integer | ValueKind::Number) {
            "number"
        } else {
            "text"
        }
    });
    let version = view.map(|v| v.version()).unwrap_or("");
    match kind {
        Some("relation") => format!(
            "An empty value for `{key}` is an HTTP 400 on NetBox {version} (\"“” is not a valid value\"). Give an id, `null` for objects without one, or drop the filter."
        ),
        Some("choice") => format!(
            "An empty value for `{key}` is an HTTP 400 on NetBox {version} (\"Select a valid choice\"). Give a choice value or drop the filter."
        ),
        Some("number") => format!(
            "An empty value for `{key}` is no number: NetBox {version} ignores it or answers HTTP 400. Give a value or drop the filter."
        ),
        _ if key == "q" => "An empty `q` searches nothing: NetBox returns every object. Give the search text or leave `q` out.".to_string(),
        _ => format!(
            "An empty value for `{key}` is no filter: NetBox returns every object. Give a value, `null` for objects without one, or drop the filter."
        ),
    }
}

/// `parts` joined (a message written without `format!`'s machinery).
fn cat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}
