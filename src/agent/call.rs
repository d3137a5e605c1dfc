//! One tool call as an agent harness gives it (the tool's name and its input as JSON): which
//! reading it gets, and its check.
//!
//! - A shell tool's `command` ([`super::shell`]).
//! - A tool of another NetBox MCP server named in `netbox-lsp.toml` (`[tools.<name>]`,
//!   [`crate::config::ToolMap`]), and the explicit generic form `{"endpoint": ..., "filters":
//!   {...}}`: a filters dict for an endpoint or object type, checked as the Python API's
//!   `check_call` checks one ([`crate::filters::check_filters`]).
//! - Anything else is read as `check` reads a JSON tool call, `{"name": <tool>, "arguments":
//!   <input>}` ([`crate::analysis::analyze_outgoing`]): netbox-mcp-server's tools under any
//!   namespace (`mcp__netbox__netbox_get_objects`, the early `get_objects`), `{"object_type":
//!   ..., "filters": ...}` and `{"query": ...}` (GraphQL) inputs, REST URLs in string
//!   arguments. An input in which that reading finds nothing is no NetBox call.

use super::{with_severities, Checked};
use crate::analysis::{analyze_outgoing, analyze_outgoing_extracted, Knowledge};
use crate::config::{Level, ToolFilters, ToolMap, ToolTarget};
use crate::extract::{Extraction, HostKind};
use crate::filters::NewValue;
use crate::finding::Finding;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How a tool call is read.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// Not a NetBox call as far as can be told: it passes at once.
    None,
    /// A shell tool's command line.
    Shell { command: String },
    /// A JSON tool call: `text` is `{"name": <tool>, "arguments": <input>}`, and `extracted`
    /// its extraction (as a JSON host), which found a site: [`check`] does not extract it again.
    Json { text: String, extracted: Extraction },
    /// A filters dict sent to `target` (an endpoint or object type).
    Filters {
        target: String,
        filters: Map<String, Value>,
        place: Place,
    },
}

/// Where a [`Reading::Filters`] call's target and filters sit in the tool input, to write the
/// corrected ones back.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// The argument naming the target; `None` for a tool bound to one endpoint.
    pub target: Option<String>,
    /// The argument holding the filters dict; `None` when every other argument is a filter.
    pub filters: Option<String>,
}

/// The tool map for `tool` in `tools`: by its whole name, else by its last `__` part (Claude
/// Code names an MCP tool `mcp__<server>__<tool>`).
fn tool_map<'a>(tool: &str, tools: &'a BTreeMap<String, ToolMap>) -> Option<&'a ToolMap> {
    tools
        .get(tool)
        .or_else(|| tools.get(tool.rsplit("__").next().unwrap_or(tool)))
}

/// Reads the call of `tool` (empty for an event that names no tool: the generic form) with
/// input `input`, without the knowledge: what it is, and whether it is a NetBox call at all.
pub fn read(tool: &str, input: &Value, tools: &BTreeMap<String, ToolMap>) -> Reading {
    let Some(obj) = input.as_object() else {
        return Reading::None;
    };
    if super::shell::is_shell_tool(tool) {
        return match obj.get("command") {
            Some(Value::String(c)) if super::shell::calls(c) > 0 => {
                Reading::Shell { command: c.clone() }
            }
            _ => Reading::None,
        };
    }
    if let Some(map) = tool_map(tool, tools) {
        return mapped(obj, map);
    }
    if let (Some(Value::String(endpoint)), Some(filters)) =
        (obj.get("endpoint"), obj.get("filters"))
    {
        if let Some(filters) = filters_object(filters) {
            return Reading::Filters {
                target: endpoint.clone(),
                filters,
                place: Place {
                    target: Some("endpoint".into()),
                    filters: Some("filters".into()),
                },
            };
        }
    }
    let text = tool_call_text(tool, input);
    let extracted = crate::extract::extract(&text, HostKind::Json);
    if extracted.sites.is_empty() {
        return Reading::None;
    }
    Reading::Json { text, extracted }
}

/// `{"name": <tool>, "arguments": <input>}` (without the name when there is none).
fn tool_call_text(tool: &str, input: &Value) -> String {
    let args = input.to_string();
    if tool.is_empty() {
        return format!("{{\"arguments\": {args}}}");
    }
    let name = Value::String(tool.to_string()).to_string();
    format!("{{\"name\": {name}, \"arguments\": {args}}}")
}

/// A filters value as a dict: an object, or a JSON object held in a string (as some models
/// write arguments).
fn filters_object(v: &Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m.clone()),
        Value::String(s) => match serde_json::from_str(s) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        },
        Value::Null => Some(Map::new()),
        _ => None,
    }
}

/// The call of a configured tool: its target and filters where its map says.
fn mapped(obj: &Map<String, Value>, map: &ToolMap) -> Reading {
    let (target, target_arg) = match &map.target {
        ToolTarget::Fixed(t) => (t.clone(), None),
        ToolTarget::Argument(a) => match obj.get(a) {
            Some(Value::String(t)) => (t.clone(), Some(a.clone())),
            _ => return Reading::None,
        },
    };
    let (filters, filters_arg) = match &map.filters {
        ToolFilters::Argument(a) => match obj.get(a).map(filters_object) {
            None => (Map::new(), Some(a.clone())),
            Some(Some(f)) => (f, Some(a.clone())),
            Some(None) => return Reading::None,
        },
        ToolFilters::Rest => (
            obj.iter()
                .filter(|(k, _)| Some(k.as_str()) != target_arg.as_deref())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            None,
        ),
    };
    Reading::Filters {
        target,
        filters,
        place: Place {
            target: target_arg,
            filters: filters_arg,
        },
    }
}

/// Checks a call read by [`read`] against `knowledge`, with the settings' per-code severities;
/// `input` is the tool input as given (what a correction is written into).
pub fn check(
    reading: &Reading,
    input: &Value,
    knowledge: &Knowledge,
    severity: &BTreeMap<String, Level>,
) -> Checked {
    match reading {
        Reading::None => Checked {
            findings: Vec::new(),
            corrected: None,
            changes: Vec::new(),
            corrected_text: None,
        },
        Reading::Json { text, extracted } => {
            let run = |t: &str| with_severities(analyze_outgoing(t, knowledge), severity);
            let findings = with_severities(
                analyze_outgoing_extracted(text, extracted.clone(), knowledge),
                severity,
            );
            let fixed = if findings.iter().any(super::blocks) {
                super::fix_rounds(text, findings.clone(), &run).and_then(|(t, changes)| {
                    let mut v: Value = serde_json::from_str(&t).ok()?;
                    Some((v.get_mut("arguments")?.take(), changes))
                })
            } else {
                None
            };
            checked(findings, fixed, |args| args.to_string())
        }
        Reading::Shell { command } => {
            let run = |c: &str| with_severities(super::shell::findings(c, knowledge), severity);
            let findings = run(command);
            let fixed = if findings.iter().any(super::blocks) {
                super::fix_rounds(command, findings.clone(), &run)
                    // A fix that broke the quoting could hide a call: the fixed command must
                    // send as many requests.
                    .filter(|(fixed, _)| super::shell::calls(fixed) == super::shell::calls(command))
                    .map(|(fixed, changes)| {
                        let mut v = input.clone();
                        v["command"] = Value::String(fixed);
                        (v, changes)
                    })
            } else {
                None
            };
            checked(findings, fixed, |v| {
                v["command"].as_str().unwrap_or_default().to_string()
            })
        }
        Reading::Filters {
            target,
            filters,
            place,
        } => {
            let f = check_filters(knowledge, target, filters, severity);
            let fixed = match (&f.corrected, f.findings.iter().any(super::blocks)) {
                (Some(c), true) => written_into(input, place, c).map(|v| (v, f.changes.clone())),
                _ => None,
            };
            checked(f.findings, fixed, |v| v.to_string())
        }
    }
}

fn checked(
    findings: Vec<Finding>,
    fixed: Option<(Value, Vec<(&'static str, String)>)>,
    shown: impl Fn(&Value) -> String,
) -> Checked {
    match fixed {
        Some((v, changes)) => Checked {
            findings,
            corrected_text: Some(shown(&v)),
            corrected: Some(v),
            changes: changes
                .into_iter()
                .map(|(code, title)| format!("{title} ({code})"))
                .collect(),
        },
        None => Checked {
            findings,
            corrected: None,
            changes: Vec::new(),
            corrected_text: None,
        },
    }
}

/// The input with a corrected target and filters written back where `place` says; `None` when
/// the target needs a fix and the tool is bound to its endpoint (nothing to write it into).
fn written_into(input: &Value, place: &Place, c: &CorrectedCall) -> Option<Value> {
    let mut v = input.clone();
    let obj = v.as_object_mut()?;
    match (&c.target, &place.target) {
        (Some(t), Some(arg)) => {
            obj.insert(arg.clone(), Value::String(t.clone()));
        }
        (Some(_), None) => return None,
        (None, _) => {}
    }
    match &place.filters {
        Some(arg) => {
            obj.insert(arg.clone(), Value::Object(c.filters.clone()));
        }
        None => {
            obj.retain(|k, _| Some(k.as_str()) == place.target.as_deref());
            obj.extend(c.filters.clone());
        }
    }
    Some(v)
}

/// A filters dict with every certain fix applied: the new target when a fix changed it, and
/// the filters (keys renamed, values rewritten, the others as given), in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrectedCall {
    pub target: Option<String>,
    pub filters: Map<String, Value>,
}

/// [`check_filters`]' result.
#[derive(Debug, Clone)]
pub struct FiltersChecked {
    /// Findings, ranges into [`crate::filters::FiltersCheck::text`] (as `check`).
    pub findings: Vec<Finding>,
    /// The filter each finding is about (its key as given), `None` for the target or the call.
    pub keys: Vec<Option<String>>,
    /// The endpoint key (`dcim/devices`) the filters were checked against, when one was found.
    pub endpoint: Option<String>,
    /// The corrected call, when every error and warning has a certain fix and the corrected
    /// call checks clean (`FiltersCheck::corrected_checked`).
    pub corrected: Option<CorrectedCall>,
    /// The fixes applied, `Title (code)`.
    pub changes: Vec<(&'static str, String)>,
}

/// Checks a filters dict sent to `target` (an endpoint path or object type) as the Python
/// API's `Checker.check_call` does ([`crate::filters::check_filters`]): JSON `null` is a value
/// the client drops, lists send the key once per element.
pub fn check_filters(
    knowledge: &Knowledge,
    target: &str,
    filters: &Map<String, Value>,
    severity: &BTreeMap<String, Level>,
) -> FiltersChecked {
    let given: Vec<(String, crate::extract::Value)> = filters
        .iter()
        .map(|(k, v)| (k.clone(), crate::filters::value_of_json(v, 0)))
        .collect();
    let check = crate::filters::check_filters(knowledge, target, given);
    let findings = with_severities(check.findings.clone(), severity);
    let names: Vec<&String> = filters.keys().collect();
    let values: Vec<&Value> = filters.values().collect();
    let keys = findings
        .iter()
        .map(|f| {
            check
                .filter_of(f)
                .and_then(|i| names.get(i).map(|k| (*k).clone()))
        })
        .collect();
    let corrected = findings
        .iter()
        .any(super::blocks)
        .then(|| check.corrected_checked(knowledge))
        .flatten()
        .map(|c| CorrectedCall {
            target: c.target,
            filters: c
                .filters
                .into_iter()
                .filter_map(|(i, key, value)| {
                    let v = match value {
                        NewValue::Same => (*values.get(i)?).clone(),
                        NewValue::Json(j) => j,
                    };
                    Some((key, v))
                })
                .collect(),
        });
    let changes = if corrected.is_some() {
        findings
            .iter()
            .filter_map(|f| {
                let fix = f.fixes.iter().find(|x| x.certain)?;
                Some((f.code, fix.title.clone()))
            })
            .collect()
    } else {
        Vec::new()
    };
    FiltersChecked {
        findings,
        keys,
        endpoint: check.endpoint,
        corrected,
        changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn knowledge() -> Knowledge {
        Knowledge {
            index: Some(crate::index::embedded::embedded_index("4.6.8")),
            ..Default::default()
        }
    }

    /// A tool call is read (extracted) once and checked once: [`check`] takes the extraction
    /// [`read`] made, and the fix rounds start from the findings of the call as given. Only a
    /// corrected call is read and checked again (once per fix round).
    #[test]
    fn a_tool_call_is_extracted_once() {
        let k = knowledge();
        let (tools, severity) = (BTreeMap::new(), BTreeMap::new());
        // One thread: every extraction and check of the run is counted on it.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        pool.install(|| {
            let counts = || {
                (
                    crate::extract::EXTRACTED.with(|n| n.get()),
                    crate::rest::CHECKED.with(|n| n.get()),
                )
            };
            let call = |filters: Value| json!({"object_type": "dcim.device", "filters": filters});
            for (input, reads, corrected) in [
                // Clean: read and checked once.
                (call(json!({"role": "leaf"})), 1, false),
                // A certain fix (`device_role` -> `role`): the corrected call once more.
                (call(json!({"device_role": "leaf"})), 2, true),
                // An error without a certain fix: no second round.
                (call(json!({"no_such_filter": "x"})), 1, false),
            ] {
                let before = counts();
                let reading = read("netbox_get_objects", &input, &tools);
                assert!(matches!(reading, Reading::Json { .. }), "{input}");
                let c = check(&reading, &input, &k, &severity);
                let after = counts();
                assert_eq!(
                    (after.0 - before.0, after.1 - before.1),
                    (reads, reads),
                    "{input}: {:?}",
                    c.findings
                );
                assert_eq!(
                    c.corrected.is_some(),
                    corrected,
                    "{input}: {:?}",
                    c.findings
                );
                assert_eq!(c.findings.is_empty(), input["filters"]["role"].is_string());
            }
        });
    }
}
