//! The NetBox MCP tools: their names, positional parameter order, and how a tool call's
//! arguments (from any host language, as a [`Lit`] mapping or argument list) become a
//! [`RestCall`] or a [`GraphqlDoc`].
//!
//! Signatures from the NetBox MCP server v1.2.1 `server.py` and the agent-side GraphQL tool
//! (netbox-facts.md §4.1, §4.2), and the first releases' `get_objects` ([`super::old_mcp`]).

use std::borrow::Cow;
use std::ops::Range;

use super::forms::{self, Callee, Carries, FiltersAt, Form, TargetAt};
use super::lit::{looks_like_graphql, Lit};
use super::{
    Argument, CallForm, FilterEntry, GraphqlDoc, RestCall, Site, Syntax, CHANGELOG_TARGET,
};

/// What a tool name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    Rest(CallForm),
    /// `netbox_graphql(query, variables)` / `netbox_graphql_query(query, variables)`.
    Graphql,
}

/// The call-form row of a tool name (a [`Callee::Tool`] row). Accepts `netbox_get_objects`,
/// camelCase `netboxGetObjects`, and namespaced names such as `mcp__netbox__netbox_get_objects`
/// or `netbox.netbox_get_objects`.
pub(crate) fn tool_row(name: &str) -> Option<&'static Form> {
    // The part after the last `__`, then after the last `.`, `/` or `:` (byte loops: a
    // searcher's set-up, `str`'s or `memmem`'s, costs more than a tool name's few bytes).
    // One pass from the end: the last `__` or separator, whichever comes later, is where the
    // name starts (a separator before the last `__` is cut away with what precedes it).
    // One forward pass: where the name starts and whether it has an upper-case letter.
    let b = name.as_bytes();
    let (mut cut, mut upper) = (0, false);
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'.' | b'/' | b':' => (cut, upper) = (i + 1, false),
            b'_' if i > 0 && b[i - 1] == b'_' => (cut, upper) = (i + 1, false),
            c if c.is_ascii_uppercase() => upper = true,
            _ => {}
        }
    }
    let last = &name[cut..];
    if upper {
        forms::tool_form(&to_snake(last))
    } else {
        forms::tool_form(last)
    }
}

/// The tool a name refers to (see [`tool_row`]).
pub(crate) fn tool_from_name(name: &str) -> Option<Tool> {
    match tool_row(name)?.carries {
        Carries::Rest(form) => Some(Tool::Rest(form)),
        Carries::Graphql => Some(Tool::Graphql),
        Carries::NamedTool => None,
    }
}

fn to_snake(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The row of a tool.
fn row_of(tool: Tool) -> Option<&'static Form> {
    let carries = match tool {
        Tool::Rest(form) => Carries::Rest(form),
        Tool::Graphql => Carries::Graphql,
    };
    forms::FORMS
        .iter()
        .find(|f| matches!(f.callee, Callee::Tool(_)) && f.carries == carries)
}

/// Positional parameter names of a tool, in order (from the call-form table).
pub(crate) fn positional_names(tool: Tool) -> &'static [&'static str] {
    row_of(tool).map_or(&[], |f| f.params)
}

/// One argument of a tool call: its name (and name range; empty at the value for positional
/// arguments) and its literal. The name is borrowed from the signature or the call where it
/// can be (no copy per argument).
pub(crate) struct Arg<'a> {
    pub name: Cow<'a, str>,
    pub name_range: Range<usize>,
    pub value: &'a Lit,
}

/// Builds the site for a call of `tool` with `args`.
///
/// `name_range` is the host range of the tool name (the target of `netbox_get_changelogs`,
/// which names no object type), `call_range` the whole call.
pub(crate) fn build(
    tool: Tool,
    syntax: Syntax,
    name_range: Range<usize>,
    call_range: Range<usize>,
    args: &[Arg<'_>],
) -> Option<Site> {
    build_with(tool, syntax, name_range, call_range, args, true).map(|(site, _)| site)
}

/// [`build`], with the filter entries left for the caller when `copy_filters` is false: the
/// REST call then has no entries yet, and the second value is the argument (an element of
/// `args`) whose mapping pairs, given to [`entries_owned`], are its entries; the caller that
/// owns the literals moves them in place of copying them. With `copy_filters`, or when the
/// site takes no pairs, the second value is `None`.
pub(crate) fn build_with<'l>(
    tool: Tool,
    syntax: Syntax,
    name_range: Range<usize>,
    call_range: Range<usize>,
    args: &[Arg<'l>],
    copy_filters: bool,
) -> Option<(Site, Option<&'l Lit>)> {
    let form = match tool {
        Tool::Rest(form) => form,
        Tool::Graphql => {
            return row_of(tool)
                .and_then(|row| graphql_call(row, args))
                .map(|site| (site, None))
        }
    };
    let get = |n: &str| args.iter().find(|a| a.name == n);
    // `get_objects` is a common name: the old tool only with one of its names and a dict.
    if form == CallForm::OldGetObjects {
        let named = get("object_type")
            .and_then(|a| a.value.as_str())
            .is_some_and(|(s, _)| super::old_mcp::reads_as_name(s));
        if !named || get("filters").and_then(|a| a.value.pairs()).is_none() {
            return None;
        }
    }
    // Code-mode helpers take their arguments as the MCP tool they mirror.
    let form_kept = form;
    let form = form.tool_like();
    let target = match form {
        CallForm::GetChangelogs => Some((CHANGELOG_TARGET.into(), name_range)),
        CallForm::SearchObjects => None,
        _ => get("object_type")
            .and_then(|a| a.value.as_str())
            .map(|(s, r)| (s.into(), r)),
    };
    let takes_filters = matches!(
        form,
        CallForm::GetObjects | CallForm::GetChangelogs | CallForm::OldGetObjects
    );
    let mut pending = None;
    let (filters_range, filters) = match get("filters").filter(|_| takes_filters) {
        Some(a) => match a.value.pairs() {
            Some(pairs) if copy_filters || pairs.is_empty() => {
                (Some(a.value.range.clone()), entries(pairs))
            }
            Some(_) => {
                pending = Some(a.value);
                (Some(a.value.range.clone()), Vec::new())
            }
            None => (None, Vec::new()),
        },
        None => (None, Vec::new()),
    };
    let skip: &[&str] = match form {
        CallForm::SearchObjects => &[],
        CallForm::GetChangelogs => &["filters"],
        CallForm::GetObjectById => &["object_type"],
        _ => &["object_type", "filters"],
    };
    let args = args
        .iter()
        .filter(|a| !skip.contains(&&*a.name))
        .map(|a| Argument {
            name: a.name.as_ref().into(),
            name_range: a.name_range.clone(),
            value: super::unjudged(&a.value.value, &a.name),
            value_range: a.value.range.clone(),
        })
        .collect();
    let site = Site::Rest(RestCall {
        form: form_kept,
        syntax,
        target,
        call_range,
        filters_range,
        filters,
        args,
        declared: false,
    });
    Some((site, pending))
}

/// Filter entries from mapping pairs, in order.
pub(crate) fn entries(pairs: &[super::lit::Pair]) -> Vec<FilterEntry> {
    pairs
        .iter()
        .map(|p| FilterEntry {
            key: p.key.as_str().into(),
            key_range: p.key_range.clone(),
            value: super::unjudged(&p.value.value, &p.key),
            value_range: p.value.range.clone(),
        })
        .collect()
}

/// [`entries`] from pairs the caller owns: keys and values moved, not copied.
pub(crate) fn entries_owned(pairs: Vec<super::lit::Pair>) -> Vec<FilterEntry> {
    // A list of its own, sized once: collected in place, the pairs' larger buffer would be
    // shrunk by a reallocation that copies the entries.
    let mut out = Vec::with_capacity(pairs.len());
    for p in pairs {
        let value = super::unjudged_owned(p.value.value, &p.key);
        out.push(FilterEntry {
            key: p.key,
            key_range: p.key_range,
            value,
            value_range: p.value.range,
        });
    }
    out
}

/// The GraphQL document of a call of `row` (a [`Carries::Graphql`] row) with `args` named after
/// its signature: the document where [`TargetAt::Document`] says, when it reads as GraphQL and
/// maps exactly, with the literal variables object where [`FiltersAt::Variables`] says.
pub(crate) fn graphql_call(row: &Form, args: &[Arg<'_>]) -> Option<Site> {
    let part = |arg: &str, key: Option<&str>| {
        let value = args.iter().find(|a| a.name == arg)?.value;
        match key {
            Some(k) => value.get(k).map(|p| &p.value),
            None => Some(value),
        }
    };
    let TargetAt::Document { arg, key } = row.target else {
        return None;
    };
    let query = part(arg, key)?;
    let variables = match row.filters {
        FiltersAt::Variables { arg, key } => part(arg, key)
            .and_then(|v| v.to_json())
            .filter(|v| v.is_object()),
        _ => None,
    };
    let mut site = graphql_doc(query, variables)?;
    // A generic HTTP client's POST may go to another API's GraphQL endpoint: its root fields
    // say whether it is NetBox's.
    if let (Site::Graphql(d), Callee::Method(_) | Callee::Qualified(_)) = (&mut site, row.callee) {
        d.found = super::DocFound::Graphql;
    }
    Some(site)
}

/// A GraphQL document from a string literal (or a Python string template, its holes kept),
/// when it reads as GraphQL and maps exactly.
pub(crate) fn graphql_doc(query: &Lit, variables: Option<serde_json::Value>) -> Option<Site> {
    let (text, map, holes) = query.document_text()?;
    if !looks_like_graphql(text) {
        return None;
    }
    Some(Site::Graphql(GraphqlDoc {
        text: text.to_string(),
        map: map.clone(),
        variables,
        holes: holes.to_vec(),
        found: super::DocFound::Carried,
    }))
}

/// Keys that name the tool in a tool-call object.
const NAME_KEYS: [&str; 3] = ["name", "tool", "tool_name"];
/// Keys that hold a tool call's arguments (`tool_input`: Claude Code's hook events).
const ARG_KEYS: [&str; 6] = [
    "arguments",
    "input",
    "tool_input",
    "args",
    "parameters",
    "params",
];

/// Finds the tool calls in an object tree (JSON / YAML): tool-call objects
/// `{"name": "netbox_get_objects", "arguments": {...}}` (also `tool` / `tool_name`, and
/// `input` / `tool_input` / `args` / `parameters`, or the arguments beside the name), bare
/// `{"object_type": ..., "filters": {...}}` objects, and GraphQL bodies `{"query": "...",
/// "variables": {...}}`, anywhere in the tree.
pub(crate) fn find_in_tree(root: &Lit, syntax: Syntax, out: &mut Vec<Site>) {
    // Depth-first with an explicit stack: deep documents must not overflow the call stack.
    let mut stack = vec![root];
    while let Some(lit) = stack.pop() {
        match &lit.kind {
            super::lit::LitKind::Seq(items) => stack.extend(items.iter().rev()),
            super::lit::LitKind::Map(pairs) => {
                if let Some(site) = object_call(lit, syntax) {
                    out.push(site);
                    continue;
                }
                stack.extend(pairs.iter().rev().map(|p| &p.value));
            }
            _ => {}
        }
    }
}

/// The call an object stands for, if any.
fn object_call(obj: &Lit, syntax: Syntax) -> Option<Site> {
    let named = NAME_KEYS.iter().find_map(|k| {
        let p = obj.get(k)?;
        let (name, range) = p.value.as_str()?;
        Some((tool_from_name(name)?, range))
    });
    if let Some((tool, name_range)) = named {
        let holder = ARG_KEYS
            .iter()
            .find_map(|k| obj.get(k).filter(|p| p.value.pairs().is_some()))
            .map(|p| &p.value);
        // OpenAI-style calls hold their arguments as JSON text in a string.
        let decoded = match (holder, syntax) {
            (None, Syntax::Json) => ARG_KEYS
                .iter()
                .find_map(|k| json_in_string(&obj.get(k)?.value)),
            _ => None,
        };
        let (holder, syntax) = match &decoded {
            Some(d) => (Some(d), Syntax::JsonInString),
            None => (holder, syntax),
        };
        let args = match holder {
            Some(h) => pair_args(h),
            // Arguments beside the name: keep only the tool's own parameters, not `tool:` or
            // wrapper keys such as `id` / `type`.
            None => pair_args(obj)
                .into_iter()
                .filter(|a| positional_names(tool).contains(&&*a.name))
                .collect(),
        };
        return build(tool, syntax, name_range, obj.range.clone(), &args);
    }
    if obj.get("object_type").is_some() && obj.get("filters").is_some() {
        let args = pair_args(obj);
        let name_range = obj.range.start..obj.range.start;
        let tool = Tool::Rest(CallForm::GetObjects);
        return build(tool, syntax, name_range, obj.range.clone(), &args);
    }
    if let Some(q) = obj.get("query") {
        let variables = obj
            .get("variables")
            .and_then(|v| v.value.to_json())
            .filter(|v| v.is_object());
        return graphql_doc(&q.value, variables);
    }
    None
}

/// The object a JSON string holds as JSON text, when every decoded byte maps back to the host
/// (escapes such as `\"` do; `\n` or `\u00e9` inside do not, and such calls are not read).
fn json_in_string(lit: &Lit) -> Option<Lit> {
    let (text, map) = lit.exact_text()?;
    if !text.trim_start().starts_with('{') {
        return None;
    }
    super::json_lit::value(text, map).filter(|v| v.pairs().is_some())
}

fn pair_args(obj: &Lit) -> Vec<Arg<'_>> {
    obj.pairs()
        .unwrap_or(&[])
        .iter()
        .map(|p| Arg {
            name: Cow::Borrowed(&p.key),
            name_range: p.key_range.clone(),
            value: &p.value,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one reverse pass finds the name the two cuts found (after the last `__`, then after
    /// the last `.`, `/` or `:` of what is left).
    #[test]
    fn tool_names_cut_as_before() {
        let two_cuts = |name: &str| -> String {
            let b = name.as_bytes();
            let last = (1..b.len())
                .rev()
                .find(|&i| b[i - 1] == b'_' && b[i] == b'_')
                .map_or(name, |i| &name[i + 1..]);
            let last = last
                .bytes()
                .rposition(|c| matches!(c, b'.' | b'/' | b':'))
                .map_or(last, |i| &last[i + 1..]);
            last.to_string()
        };
        let one_pass = |name: &str| -> String {
            let b = name.as_bytes();
            (0..b.len())
                .rev()
                .find(|&i| {
                    matches!(b[i], b'.' | b'/' | b':')
                        || (i > 0 && b[i - 1] == b'_' && b[i] == b'_')
                })
                .map_or(name, |i| &name[i + 1..])
                .to_string()
        };
        let pieces = [
            "",
            "_",
            "__",
            "___",
            ".",
            "/",
            ":",
            "a",
            "netbox_get_objects",
            "é",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let name = format!("{a}{b}{c}");
                    assert_eq!(two_cuts(&name), one_pass(&name), "{name:?}");
                }
            }
        }
        assert!(tool_row("mcp__netbox__netbox_get_objects").is_some());
        assert!(tool_row("netbox.netboxGetObjects").is_some());
        assert!(tool_row("netbox_get_objects.x").is_none());
    }

    #[test]
    fn names() {
        assert_eq!(
            tool_from_name("netboxGetObjects"),
            Some(Tool::Rest(CallForm::GetObjects))
        );
        assert_eq!(
            tool_from_name("mcp__netbox__netbox_get_changelogs"),
            Some(Tool::Rest(CallForm::GetChangelogs))
        );
        assert_eq!(tool_from_name("netbox_graphql_query"), Some(Tool::Graphql));
        assert_eq!(
            tool_from_name("mcp__netbox__get_objects"),
            Some(Tool::Rest(CallForm::OldGetObjects))
        );
        assert_eq!(tool_from_name("objects"), None);
    }
}
