//! `invalid-value` for `&` inside a value of the Ansible `nb_lookup` `api_filter` string.

use super::{finding, Ctx};
use crate::extract::{Syntax, Value};
use crate::finding::Finding;
use std::ops::Range;

/// `invalid-value` for `&` inside a value of the Ansible `nb_lookup` `api_filter` string: the
/// lookup splits the string on spaces (netbox.netbox `plugins/lookup/nb_lookup.py`,
/// `build_filters`: `api_filter.split(" ")`), so `tenant_group=emea&tenant__n=lab` sends one
/// filter whose value is `emea&tenant__n=lab` (ansible_modules#245). The fix writes a space
/// for each `&` that starts another `key=value` (certain: the same filters, as meant).
pub(super) fn ampersand_in_api_filter(
    ctx: &Ctx,
    key: &str,
    v: &Value,
    r: Range<usize>,
) -> Option<Finding> {
    if ctx.syntax() != Syntax::ApiFilter {
        return None;
    }
    let Value::Str(s) = v else { return None };
    let (first, rest) = s.split_once('&')?;
    let pairs: Vec<&str> = rest.split('&').collect();
    let all_pairs = pairs.iter().all(|p| {
        p.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
    });
    if !all_pairs {
        return None;
    }
    let spaced = s.replace('&', " ");
    let mut f = finding(
        r.clone(),
        "invalid-value",
        format!(
            "`api_filter` separates filters with spaces, not `&`: `{key}` gets `{s}` as one value and the other filters are never sent. Write `{key}={first} {}`.",
            pairs.join(" ")
        ),
    );
    if r.len() == s.len() {
        f = f.with_fix(
            format!("Separate the filters with spaces: `{key}={spaced}`"),
            r,
            spaced,
            true,
        );
    }
    Some(f)
}
