//! Extraction from Python: MCP tool calls (`netbox_get_objects(...)` and friends, also as
//! `tools.netboxGetObjects(...)`, `<tool>.invoke({...})`, `session.call_tool("name", {...})`),
//! pynetbox `nb.<app>.<endpoint>.filter/get/count(...)`, `requests.get(url, params={...})`,
//! GraphQL documents in `netbox_graphql(query=...)`, `gql("...")` and
//! `requests.post(".../graphql/", json={"query": ...})`, plus REST URLs in any string or comment.
//!
//! The text is parsed with ruff's parser (`ruff_python_parser`, see [`super::parse::python`]),
//! which recovers from syntax errors with a partial tree; byte ranges of its typed AST are
//! embedded offsets, mapped to the host through the [`OffsetMap`].
//!
//! Strings: simple escapes are decoded for values; f-strings and concatenations are
//! [`Value::Expr`]; `dict(a=1)` is a mapping like `{"a": 1}`. A GraphQL document is taken only
//! from a string whose text maps exactly to the host: escapes that decode to one ASCII character
//! (`\"`, `\n`) map to their last byte, as in JSON; a non-ASCII escape, interpolation or
//! concatenation skips the string, never guessed.
//! Half-typed text is re-read with its open brackets and strings closed (see
//! [`super::parse::closers`]).
//!
//! One job per file: [`semantic`] (the module's scopes, bindings and imports, built by the walk
//! that finds the calls), [`values`] (what an expression holds: names read through, dicts with
//! their updates, strings folded into templates), [`models`] (pydantic models, dataclasses,
//! `TypedDict`s and `locals()` as filter sets), [`calls`] (which call form a call is, through
//! the call-form table), [`helpers`] (a call of a helper of the module read as the calls in its
//! body), [`documents`] (GraphQL documents held in strings, marker comments), [`arguments`] (a
//! call's arguments as values), [`urls`] (endpoint paths and query strings in URL
//! expressions), [`literals`] (Python literals as [`Lit`]s) and [`strings`] (string literals,
//! their escapes and their map to the host).

mod arguments;
mod calls;
mod documents;
mod helpers;
mod literals;
mod models;
mod semantic;
mod strings;
mod urls;
mod values;

use semantic::Semantic;
use values::Values;

use std::collections::HashMap;
use std::ops::Range;

use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::{Ranged, TextRange};

#[cfg(doc)]
use super::lit::Lit;
use super::parse;
#[cfg(doc)]
use super::Value;
use super::{OffsetMap, Site};

/// Sites found in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut sites = extract_calls(text, map);
    sites.extend(super::text::extract(text, map));
    sites
}

/// Calls and documents only (no URL scan), for hosts that scan URLs themselves.
pub(crate) fn extract_calls(text: &str, map: &OffsetMap) -> Vec<Site> {
    let parsed = match parse::python(text) {
        Ok(p) => p,
        Err(refused) => return refused.site(text.len(), map).into_iter().collect(),
    };
    // Where ruff reported errors (embedded offsets), then the tree alone: its tokens (a dozen
    // bytes per token, the size of the tree's strings again) are freed before the tree is read.
    let errors = error_offsets(&parsed);
    let module = parsed.into_syntax();
    let mut sites = Reader::new(text, text.len(), map, errors.clone()).sites(&module);
    drop(module);
    if !errors.is_empty() {
        // Re-read with what is open closed; keep the calls the first reading missed.
        let close = parse::closers(text, true);
        if !close.is_empty() {
            let repaired = format!("{text}{close}");
            if let Ok(parsed2) = parse::python(&repaired) {
                let errors2 = error_offsets(&parsed2);
                let module2 = parsed2.into_syntax();
                let more = Reader::new(&repaired, text.len(), map, errors2).sites(&module2);
                let mut broken: Vec<usize> = errors
                    .iter()
                    .map(|&e| map.to_host(e.min(text.len())))
                    .collect();
                broken.sort_unstable();
                add_repaired(&mut sites, more, &broken);
            }
        }
    }
    sites
}

/// The embedded offsets where ruff reported syntax errors in `parsed`, sorted.
fn error_offsets(parsed: &ruff_python_parser::Parsed<ast::ModModule>) -> Vec<usize> {
    let mut errors: Vec<usize> = parsed
        .errors()
        .iter()
        .map(|e| e.location.start().to_usize())
        .collect();
    errors.sort_unstable();
    errors
}

/// Bare `params = {...}` dicts at the top level of a code block that no call of `found` (the
/// block's sites) reads, sent to the one endpoint the block names: the single
/// `/api/<app>/<endpoint>/` path in its strings or comments (`url = f"{NB}/api/dcim/devices/"`,
/// `# GET /api/dcim/devices/`), else `above`, the path the sentence right before the block
/// names (target text and host range). Issue 19 §4: a skill file shows the filters of a
/// request it describes in prose. No path, or several different ones, is no site: which
/// endpoint the dict goes to is then not known.
pub(crate) fn bare_params(
    text: &str,
    map: &OffsetMap,
    found: &[Site],
    above: Option<&(crate::extract::CompactString, Range<usize>)>,
) -> Vec<Site> {
    if !text.contains("params") {
        return Vec::new();
    }
    let Ok(parsed) = parse::python(text) else {
        return Vec::new();
    };
    let reader = Reader::new(text, text.len(), map, error_offsets(&parsed));
    let read: Vec<Range<usize>> = found
        .iter()
        .filter_map(|s| match s {
            Site::Rest(c) => c.filters_range.clone(),
            _ => None,
        })
        .collect();
    let model = Semantic::build(text, parsed.syntax());
    let mut dicts = Vec::new();
    // Module-level `params = {...}` statements.
    for &id in model.bindings_of(0, "params") {
        let b = &model.bindings[id as usize];
        let semantic::BindingKind::Value { value, .. } = b.kind else {
            continue;
        };
        if b.block != 0 || !matches!(value, Expr::Dict(_)) {
            continue;
        }
        let lit = reader.literal(value, None, 0);
        if lit.pairs().is_some() && !read.contains(&lit.range) {
            let stmt = b.start as usize..b.at as usize;
            dicts.push((reader.host(stmt), lit));
        }
    }
    if dicts.is_empty() {
        return Vec::new();
    }
    let target = match super::text::endpoints(text, map).as_slice() {
        [one] => one.clone(),
        [] => match above {
            Some(t) => t.clone(),
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    dicts
        .into_iter()
        .filter_map(|(call_range, lit)| {
            let pairs = lit.pairs()?;
            Some(Site::Rest(super::RestCall {
                form: super::CallForm::Url,
                syntax: super::Syntax::Python,
                target: Some(target.clone()),
                call_range,
                filters_range: Some(lit.range.clone()),
                filters: super::tools::entries(pairs),
                args: Vec::new(),
                declared: false,
            }))
        })
        .collect()
}

/// Adds to `sites` the REST calls and documents of `more` (the re-reading with what is open
/// closed) that start where none of `sites` starts, as [`super::add_missing`]; a REST call that
/// starts where one of `sites` starts replaces it when it ends later or holds a syntax error
/// (`broken`: host offsets, sorted) after its start. ruff's recovery ends a half-typed call at
/// its last token (`f(a=1, ` ends before the space) and drops what it cannot read
/// (`status="` at the end), the re-reading reads it up to the end of the text, where an
/// editor's cursor is.
fn add_repaired(sites: &mut Vec<Site>, more: Vec<Site>, broken: &[usize]) {
    let has_error = |r: &Range<usize>| {
        let i = broken.partition_point(|&e| e <= r.start);
        broken.get(i).is_some_and(|&e| e <= r.end)
    };
    let mut at: HashMap<usize, usize> = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        if let Site::Rest(c) = s {
            at.entry(c.call_range.start).or_insert(i);
        }
    }
    let mut rest = Vec::with_capacity(more.len());
    for site in more {
        if let Site::Rest(c) = &site {
            if let Some(&i) = at.get(&c.call_range.start) {
                if matches!(&sites[i], Site::Rest(old)
                    if old.call_range.end < c.call_range.end || has_error(&old.call_range))
                {
                    sites[i] = site;
                }
                continue;
            }
        }
        rest.push(site);
    }
    super::add_missing(sites, rest);
}

/// The bytes [`Reader::outer`] skips between an expression and a parenthesis around it.
#[inline(always)]
fn outer_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\\')
}

/// Embedded byte range of a ruff range.
fn span(r: TextRange) -> Range<usize> {
    r.start().to_usize()..r.end().to_usize()
}

/// A Python text being read: the (possibly repaired) source, the original length (ranges are
/// clipped to it) and the map to the host.
struct Reader<'a> {
    src: &'a str,
    len: usize,
    map: &'a OffsetMap,
    /// Where ruff reported syntax errors (embedded offsets, sorted).
    errors: Vec<usize>,
    /// The one segment of `map`, when it has one (see [`OffsetMap::single`]).
    one: Option<(usize, usize, usize)>,
}

impl<'a> Reader<'a> {
    /// `errors`: where ruff reported syntax errors (embedded offsets, sorted).
    fn new(src: &'a str, len: usize, map: &'a OffsetMap, errors: Vec<usize>) -> Self {
        Reader {
            src,
            len,
            map,
            errors,
            one: map.single(),
        }
    }

    /// True when a syntax error starts strictly inside `start..end`: ruff's recovery made the
    /// item from broken text (a dict entry tree-sitter read as an error node, which was
    /// skipped).
    fn broken(&self, start: usize, end: usize) -> bool {
        let i = self.errors.partition_point(|&e| e <= start);
        self.errors.get(i).is_some_and(|&e| e < end)
    }

    fn text(&self, r: TextRange) -> &'a str {
        self.src.get(span(r)).unwrap_or("")
    }

    /// Host range of an embedded range, clipped to the original text.
    #[inline(always)]
    fn host(&self, r: Range<usize>) -> Range<usize> {
        let end = r.end.min(self.len);
        let start = r.start.min(end);
        // A one-segment map (a whole `.py` file): [`OffsetMap::range_to_host`]'s own shortcut,
        // without looking at the map.
        if let Some((e, h, l)) = self.one {
            let at = |off: usize| h + off.saturating_sub(e).min(l);
            let s = at(start);
            let end = if end == start { s } else { at(end).max(s) };
            return s..end;
        }
        self.map.range_to_host(start..end)
    }

    /// `r` widened over the parentheses around it (ruff's ranges leave them out); `open`: the
    /// offset of a call's own `(`, which is not the expression's.
    #[inline(always)]
    fn outer(&self, r: TextRange, open: Option<usize>) -> Range<usize> {
        let b = self.src.as_bytes();
        let (start, end) = (r.start().to_usize(), r.end().to_usize());
        // Most expressions stand in no parentheses of their own: settled here, in the caller.
        let mut s = start;
        while s > 0 && outer_blank(b[s - 1]) {
            s -= 1;
        }
        if s == 0 || b[s - 1] != b'(' || Some(s - 1) == open {
            return start..end;
        }
        self.outer_from(start, end, open)
    }

    /// [`Reader::outer`] of `start..end` once a `(` stands before it.
    #[inline(never)]
    fn outer_from(&self, start: usize, end: usize, open: Option<usize>) -> Range<usize> {
        let b = self.src.as_bytes();
        let (mut start, mut end) = (start, end);
        let blank = outer_blank;
        loop {
            let mut s = start;
            while s > 0 && blank(b[s - 1]) {
                s -= 1;
            }
            if s == 0 || b[s - 1] != b'(' || Some(s - 1) == open {
                return start..end;
            }
            let mut e = end;
            while e < b.len() && blank(b[e]) {
                e += 1;
            }
            if b.get(e) != Some(&b')') {
                return start..end;
            }
            start = s - 1;
            end = e + 1;
        }
    }

    /// True when `e` is written in parentheses of its own.
    fn parenthesized(&self, e: &Expr, open: Option<usize>) -> bool {
        self.outer(e.range(), open) != span(e.range())
    }

    /// The sites of `module`: its semantic model is built in one walk, then every call is read
    /// as the call-form table says with its arguments' values, a call of a helper of the module
    /// as the calls in the helper's body with the parameters it binds, then the GraphQL
    /// documents held in strings and what marker comments point at.
    fn sites(&'a self, module: &'a ast::ModModule) -> Vec<Site> {
        let model = Semantic::build(self.src, module);
        let v = Values::new(self, &model);
        // Most calls of a file of calls are sites: room for one per call, a list no larger than
        // a constant share of the tree that holds the calls (no copies as it grows).
        let mut direct = Vec::with_capacity(model.calls.len());
        // Sites that share their call's start: a helper's calls, a field's other choices.
        let mut more = Vec::new();
        for cs in &model.calls {
            if cs.call.range().start().to_usize() >= self.len {
                continue;
            }
            // A helper of the module is read through its body (what it does with its
            // arguments is known); another call through the call-form table.
            let expanded = v.helper_sites(cs);
            if expanded.is_empty() {
                v.refuel();
                v.call_sites_into(cs.call, cs.at, &mut direct);
            } else {
                more.extend(expanded);
            }
            if v.exhausted() {
                // Names that refer to each other over and over: what was read is reported, and
                // the call is said not to be read whole.
                more.push(Site::NotChecked(super::NotChecked {
                    range: self.host(span(cs.call.range())),
                    reason: format!(
                        "this call builds its values through more names, calls and dict updates than netbox-lsp follows ({})",
                        values::FUEL
                    ),
                    advice: "Write its filters as a dict in the call to have it checked.".to_string(),
                }));
            }
        }
        let mut out = Vec::new();
        super::add_missing(&mut out, direct);
        helpers::dedup(&mut more);
        out.extend(more);
        out.extend(v.marked_sites());
        let alternatives = v.alternative_sites(&out);
        out.extend(alternatives);
        let recorded = !v.nothing_recorded();
        for site in &mut out {
            if let Site::Rest(c) = site {
                c.declared = recorded && c.filters.iter().any(|e| v.is_declared(&e.key_range));
            }
        }
        let documents = v.documents();
        super::add_missing(&mut out, documents);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names that refer to each other twice over (`a1 = a0 + a0`, ..., each a doubling) would
    /// take 2^60 steps to fold: the reading stops at its budget, reports what it read and says
    /// the call was not read whole; helpers called from more places than the module budget are
    /// read up to it, and the rest is said not read, once.
    #[test]
    fn values_that_double_stop_at_their_budget() {
        let mut text = String::from("import requests\na0 = 'x'\nd0 = {'site': 1}\n");
        for i in 1..60 {
            text.push_str(&format!("a{i} = a{} + a{}\n", i - 1, i - 1));
            text.push_str(&format!("d{i} = {{**d{}, **d{}}}\n", i - 1, i - 1));
        }
        text.push_str("requests.get(a59 + '/api/dcim/devices/', params=d59)\n");
        let map = OffsetMap::identity(0, text.len());
        let sites = extract_calls(&text, &map);
        assert!(
            sites.iter().any(|s| matches!(s, Site::NotChecked(n) if n.reason.contains("names, calls and dict updates"))),
            "{sites:?}"
        );

        let mut text = String::from("import requests\ndef h(p):\n");
        for _ in 0..300 {
            text.push_str("    requests.get('/api/dcim/devices/', params=p)\n");
        }
        for _ in 0..100 {
            text.push_str("h({'site': 1})\n");
        }
        let map = OffsetMap::identity(0, text.len());
        let sites = extract_calls(&text, &map);
        let not_read = sites
            .iter()
            .filter(|s| matches!(s, Site::NotChecked(n) if n.reason.contains("helpers")))
            .count();
        let read = sites.iter().filter(|s| matches!(s, Site::Rest(_))).count();
        assert_eq!(not_read, 1);
        // The body's calls are read through its callers (its parameter is known there), up to
        // the budget.
        assert_eq!(read as u32, values::EXPANSIONS);
    }

    /// The deepest expressions the nesting guard lets through are walked (and their tree
    /// dropped) on a thread with half the stack of a rayon worker or tokio blocking thread
    /// (2 MiB); one level deeper, the text gets only the URL scan.
    #[test]
    fn expressions_at_the_nesting_bound_are_read_on_a_small_stack() {
        let call = "\nnetbox_get_objects(\"dcim.device\", {\"nme\": \"a\"})\n";
        let shapes: [(&str, &str, &str); 7] = [
            ("x = 1", "+1", ""),
            ("x = a", ".b", ""),
            ("x = ", "-", "1"),
            ("x = ", "not ", "y"),
            ("x = f", "()", ""),
            ("x = ", "lambda: ", "0"),
            ("x = ", "[", ""),
        ];
        for (head, step, tail) in shapes {
            let text = |k: usize| {
                let close = if step == "[" {
                    "]".repeat(k)
                } else {
                    String::new()
                };
                format!("{head}{}{tail}{close}{call}", step.repeat(k))
            };
            let k = (1..5000)
                .find(|&k| parse::python_too_deep(&text(k)))
                .expect("the guard stops every shape")
                - 1;
            assert!(k > 300, "{step:?}: only {k} levels pass the guard");
            let (at, over) = (text(k), text(k + 1));
            let found = std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn(move || {
                    let map = |t: &str| OffsetMap::identity(0, t.len());
                    (
                        extract_calls(&at, &map(&at)).len(),
                        extract_calls(&over, &map(&over))
                            .iter()
                            .filter(|s| !matches!(s, Site::NotChecked(_)))
                            .count(),
                    )
                })
                .unwrap()
                .join()
                .expect("no stack overflow");
            assert_eq!(found, (1, 0), "{step:?} at {k} levels");
        }
    }
}
