//! `invalid-value` for quote marks sent as part of a URL query value.

use super::{finding, Ctx};
use crate::extract::{Syntax, Value};
use crate::finding::Finding;
use std::ops::Range;

/// `invalid-value` for quote marks that reach NetBox as part of a URL query value: a URL inside
/// a double-quoted string keeps its single quotes (`curl "...?name='edge-01'"`), so NetBox
/// looks for a name with quote marks and matches nothing (a choice or number filter answers
/// HTTP 400). The fix drops the quotes (certain: the value between them is the one meant).
pub(super) fn quoted_value(ctx: &Ctx, key: &str, v: &Value, r: Range<usize>) -> Option<Finding> {
    if ctx.syntax() != Syntax::Query {
        return None;
    }
    let Value::Str(s) = v else { return None };
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = s.strip_prefix(q)?.strip_suffix(q)?;
    if inner.is_empty() || inner.contains(q) {
        return None;
    }
    // The written value is the sent one when it is as long (no `%xx` escape) and the value
    // has only characters a query string carries as they are.
    let plain = r.len() == s.len()
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.~:/,".contains(&b));
    let mut f = finding(
        r.clone(),
        "invalid-value",
        format!(
            "The quote marks are sent as part of the value: NetBox looks for `{key}` equal to {s} with its quotes and matches nothing (a choice or number filter answers HTTP 400). Drop the quotes: `{key}={inner}`."
        ),
    );
    if plain {
        f = f.with_fix(
            format!("Drop the quotes: `{key}={inner}`"),
            r,
            inner.to_string(),
            true,
        );
    }
    Some(f)
}
