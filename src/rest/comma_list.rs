//! `comma-list`: a comma-separated string on a number or id filter.

use super::endpoint::View;
use super::text::comma_parts;
use super::{finding, render, Ctx};
use crate::extract::{FilterEntry, Value};
use crate::finding::Finding;
use crate::index::Parameter;

/// `comma-list`: `site_id=21,7` is an HTTP 400 ("“21,7” is not a valid value"); several
/// values go as a list (repeated keys). Ground truth rows `site_id=21,7`, `vid=100,200`.
pub(super) fn comma_list(
    ctx: &Ctx,
    view: &View,
    entry: &FilterEntry,
    param: &Parameter,
    text: &str,
    integers: bool,
) -> Option<Finding> {
    let key = entry.key.as_str();
    let parts = comma_parts(&Value::Str(text.into()))?;
    let all_numbers = parts.iter().all(|p| {
        if integers {
            p.parse::<i64>().is_ok() || p == "null"
        } else {
            p.parse::<f64>().is_ok()
        }
    });
    let mut f = finding(
        entry.value_range.clone(),
        "comma-list",
        if param.multi {
            format!(
                "`{key}` does not split a comma-separated string: NetBox {} answers HTTP 400. Pass a list (sent as repeated `{key}=` keys).",
                view.version()
            )
        } else {
            format!(
                "`{key}` does not split a comma-separated string: NetBox {} answers HTTP 400. It takes one value: query once per value.",
                view.version()
            )
        },
    );
    if param.multi && all_numbers && parts.len() > 1 {
        let (range, new) = match ctx.syntax() {
            s if s.is_pairs() => (ctx.pair_range(entry), render::pairs(key, &parts, s)),
            syntax => (
                entry.value_range.clone(),
                render::list(
                    &parts
                        .iter()
                        .map(|p| render::token(p, true, syntax))
                        .collect::<Vec<_>>(),
                ),
            ),
        };
        f = f.with_fix("Pass the values as a list", range, new, true);
    }
    Some(f)
}
