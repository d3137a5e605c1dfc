//! Tool arguments other than the filters (netbox-mcp-server v1.2.x `server.py`):
//! `filler-argument` for the "", [], 0, null that strict-schema clients put into every
//! optional argument (seed PR-filler-values-before-validation), and `limit-range` for a limit
//! outside the server's `1..100` (Pydantic `ge=1, le=100`). Intentional valid values (the
//! defaults `offset=0`, `brief=False`, a real list) are never flagged.

use super::{finding, finding_sev, Ctx};
use crate::extract::{Argument, CallForm, Syntax, Value};
use crate::finding::{Finding, Severity};

/// Checks the arguments of `netbox_get_objects`, `netbox_get_object_by_id` and
/// `netbox_search_objects`.
pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let form = ctx.call.form;
    if !matches!(
        form,
        CallForm::GetObjects | CallForm::GetObjectById | CallForm::SearchObjects
    ) {
        return;
    }
    for arg in &ctx.call.args {
        if let Some(f) = check_arg(ctx.syntax(), form, arg) {
            out.push(f);
        }
    }
}

fn is_filler(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Str(s) => s.is_empty(),
        Value::List(items) => items.is_empty(),
        Value::Int(0) => true,
        _ => false,
    }
}

fn check_arg(syntax: Syntax, form: CallForm, arg: &Argument) -> Option<Finding> {
    let name = arg.name.as_str();
    let v = &arg.value;
    let r = arg.value_range.clone();
    let tool = match form {
        CallForm::GetObjects => "netbox_get_objects",
        CallForm::GetObjectById => "netbox_get_object_by_id",
        _ => "netbox_search_objects",
    };
    let with_limit = matches!(form, CallForm::GetObjects | CallForm::SearchObjects);
    if name == "limit" && with_limit {
        if let Value::Int(n) = v {
            if *n > 100 || *n < 0 {
                let to = if *n > 100 { "100" } else { "1" };
                return Some(
                    finding(
                        r.clone(),
                        "limit-range",
                        format!(
                            "{tool} takes `limit` from 1 to 100: the MCP server rejects {n}. Use `limit={to}` and page with `offset`."
                        ),
                    )
                    .with_fix(format!("Use {to}"), r, to, true),
                );
            }
        }
    }
    if !is_filler(v) {
        return None;
    }
    // (what the server does, rejected?)
    let (what, rejected) = match (name, v) {
        ("fields", Value::Str(_)) => ("rejects the call: `fields` must be a list of field names", true),
        ("fields", _) => ("returns every field of every object, as if `fields` were omitted; name the fields you need (e.g. [\"id\", \"name\"]) or omit it", false),
        ("ordering", _) if form == CallForm::GetObjects => ("uses NetBox's default ordering, as if `ordering` were omitted", false),
        ("brief", Value::Null | Value::Str(_)) => ("rejects the call: `brief` must be true or false", true),
        ("limit", Value::Int(0)) if with_limit => ("rejects the call: `limit` must be 1 to 100; omit it for the default of 5", true),
        ("limit", _) if with_limit => ("rejects the call: `limit` must be a number from 1 to 100; omit it for the default of 5", true),
        ("offset", Value::Null | Value::Str(_)) if form == CallForm::GetObjects => ("rejects the call: `offset` must be a number; omit it for 0", true),
        ("object_types", Value::List(_)) if form == CallForm::SearchObjects => ("searches no object type at all and returns nothing; omit `object_types` to search the default types", true),
        ("object_types", Value::Null) if form == CallForm::SearchObjects => ("searches its eight default object types, as if `object_types` were omitted", false),
        _ => return None,
    };
    let severity = if rejected {
        Severity::Warning
    } else {
        Severity::Hint
    };
    let shown = super::render::describe(v, syntax);
    Some(finding_sev(
        r,
        "filler-argument",
        severity,
        format!("`{name}={shown}` looks like a filler for an optional argument: {tool} {what}."),
    ))
}
