//! The pre-tool-use hook protocol of agent harnesses: one event in on standard input, one
//! answer out (exit code, standard output, standard error). The shapes are Claude Code's
//! `PreToolUse` hook (hooks reference, <https://code.claude.com/docs/en/hooks>; the field names
//! as the Claude Agent SDK types them, `PreToolUseHookInput` and
//! `PreToolUseHookSpecificOutput` in anthropics/claude-agent-sdk-python `types.py`):
//!
//! - in: `{"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name":
//!   "PreToolUse", "tool_name", "tool_input": {...}, "tool_use_id"}`; an event with no
//!   `tool_name` is the generic form, the event itself being the input (`{"endpoint": ...,
//!   "filters": {...}}`, `{"object_type": ..., "filters": ...}`, `{"query": ...}`);
//! - out: exit 0 with nothing to let the call run as it is; exit 0 with
//!   `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
//!   "allow"|"deny"|"ask", "permissionDecisionReason", "updatedInput", "additionalContext"}}` on
//!   standard output to decide; exit 2 with the reason on standard error blocks the call and
//!   shows the reason to the model (the convention other harnesses share). The two ways are
//!   exclusive: on exit 2 Claude Code reads standard error only and ignores standard output
//!   (hooks reference, "Exit code 2 behavior"), so a denial is exit 2 with the reason on
//!   standard error and nothing on standard output; `ask` and `allow` are exit 0 with the JSON
//!   decision. `updatedInput` replaces the whole tool input.
//!
//! Failures ([`failure`]) deny the call, saying why, unless the user chose to fail open.

use super::call::{self, Reading};
use super::decide::{decide, Decision, Policy};
use crate::analysis::Knowledge;
use crate::config::Settings;
use serde_json::{json, Value};

/// What the hook process ends with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// Exit code: 0, or 2 to block the call.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Answer {
    /// Exit 0, nothing written: the call runs as it is.
    pub fn pass() -> Answer {
        Answer {
            code: 0,
            stdout: String::new(),
            stderr: String::new(),
        }
    }
}

/// A hook event to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `hook_event_name` (`PreToolUse`), answered back in `hookEventName`.
    pub name: String,
    /// `tool_name`; empty for the generic form.
    pub tool: String,
    /// `tool_input`; the event itself for the generic form.
    pub input: Value,
    /// True when the event held lone UTF-16 surrogate escapes (`"\ud800"`, which JavaScript's
    /// `JSON.stringify` writes for a string cut inside a character and serde_json refuses):
    /// they were read as U+FFFD, so a corrected input would not be the input as written.
    pub repaired: bool,
}

/// The largest event read (bytes): a tool call's input is small; a larger one is refused as
/// unreadable rather than read without bound.
pub const MAX_EVENT: usize = 16 * 1024 * 1024;

/// The deepest bracket nesting of an event that is read: serde_json's recursion limit (128
/// levels) less one; no tool's input comes near it.
pub const MAX_EVENT_DEPTH: usize = 127;

/// Events judged (others, such as `PostToolUse`, pass): Claude Code's `PreToolUse` and Gemini
/// CLI's `BeforeTool`, which has the same fields.
const JUDGED: &[&str] = &["PreToolUse", "BeforeTool"];

/// Reads an event; `Ok(None)` for an event of another kind (it passes), `Err` with what is
/// wrong for one that cannot be read.
pub fn parse_event(bytes: &[u8]) -> Result<Option<Event>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the hook event is not UTF-8".to_string())?;
    // A byte-order mark is no part of the JSON (a harness on Windows may write one).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err("the hook event is empty (no JSON on standard input)".into());
    }
    let (v, repaired): (Value, bool) = match serde_json::from_str(text) {
        Ok(v) => (v, false),
        // serde_json stops at its recursion limit (a guard for the stack): the event is JSON,
        // only nested deeper than it reads, and said so rather than "not JSON".
        Err(_) if crate::extract::parse::json_depth(text.as_bytes()) > MAX_EVENT_DEPTH => {
            return Err(format!(
                "the hook event nests brackets more than {MAX_EVENT_DEPTH} deep, deeper than the hook reads"
            ))
        }
        Err(e) => match without_lone_surrogates(text) {
            Some(fixed) => (
                serde_json::from_str(&fixed)
                    .map_err(|e| format!("the hook event is not JSON ({e})"))?,
                true,
            ),
            None => return Err(format!("the hook event is not JSON ({e})")),
        },
    };
    let Value::Object(obj) = &v else {
        return Err("the hook event is not a JSON object".into());
    };
    let name = match obj.get("hook_event_name") {
        None => "PreToolUse".to_string(),
        Some(Value::String(n)) if JUDGED.contains(&n.as_str()) => n.clone(),
        Some(Value::String(_)) => return Ok(None),
        Some(other) => return Err(format!("`hook_event_name` is not a string: {other}")),
    };
    let tool = match obj.get("tool_name") {
        None => {
            return Ok(Some(Event {
                name,
                tool: String::new(),
                input: v,
                repaired,
            }))
        }
        Some(Value::String(t)) => t.clone(),
        Some(other) => return Err(format!("`tool_name` is not a string: {other}")),
    };
    match obj.get("tool_input") {
        Some(input @ Value::Object(_)) => Ok(Some(Event {
            name,
            tool,
            input: input.clone(),
            repaired,
        })),
        Some(other) => Err(format!(
            "`tool_input` of `{}` is not a JSON object: {}",
            super::printable(&tool),
            short(&other.to_string())
        )),
        None => Err(format!(
            "the event for `{}` has no `tool_input`",
            super::printable(&tool)
        )),
    }
}

fn short(s: &str) -> String {
    let cut: String = s.chars().take(80).collect();
    if cut.len() < s.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// `text` with each `\uXXXX` escape of a lone UTF-16 surrogate (a high one not followed by a
/// low one, or a low one alone) replaced by `\ufffd`; `None` when it has none. Escapes are read
/// only inside JSON strings, after an odd run of backslashes. Linear in the text.
fn without_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = b.get(at + 2..at + 6)?;
        (b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u'))
            .then(|| u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok())
            .flatten()
    };
    let (mut out, mut last, mut i, mut in_string, mut changed) =
        (String::new(), 0, 0, false, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if let Some(u) = unit(i) {
                    let high = (0xD800..0xDC00).contains(&u);
                    let paired = high && unit(i + 6).is_some_and(|l| (0xDC00..0xE000).contains(&l));
                    if paired {
                        i += 12;
                        continue;
                    }
                    if (0xD800..0xE000).contains(&u) {
                        out.push_str(&text[last..i]);
                        out.push_str("\\ufffd");
                        last = i + 6;
                        changed = true;
                    }
                    i += 6;
                    continue;
                }
                i += 2; // `\"`, `\\`, `\n`, …: the escaped character is no delimiter
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    changed.then(|| {
        out.push_str(&text[last..]);
        out
    })
}

/// How the hook finds what it needs, each loaded only when a call needs it (a command that
/// sends nothing to NetBox passes without reading the settings or the index).
pub struct Setup<'a> {
    /// The settings (`netbox-lsp.toml`), or why they cannot be read.
    pub settings: &'a dyn Fn() -> Result<Settings, String>,
    /// The knowledge the settings and flags choose, or why it cannot be loaded.
    pub knowledge: &'a dyn Fn(&Settings) -> Result<Knowledge, String>,
}

/// The answer to the event `bytes` under `policy`. Failures (an unreadable event, settings or
/// knowledge that cannot be loaded) are answered by [`failure`] with `fail_open`.
pub fn respond(bytes: &[u8], policy: &Policy, fail_open: bool, setup: &Setup) -> Answer {
    let event = match parse_event(bytes) {
        Ok(Some(e)) => e,
        Ok(None) => return Answer::pass(),
        Err(e) => return failure(&e, fail_open),
    };
    let mut settings = None;
    let no_tools = Default::default();
    let reading = if super::shell::is_shell_tool(&event.tool) {
        call::read(&event.tool, &event.input, &no_tools)
    } else {
        match (setup.settings)() {
            Ok(s) => {
                let r = call::read(&event.tool, &event.input, &s.tools);
                settings = Some(s);
                r
            }
            Err(e) => return failure(&e, fail_open),
        }
    };
    if reading == Reading::None {
        return Answer::pass();
    }
    let settings = match settings.map_or_else(|| (setup.settings)(), Ok) {
        Ok(s) => s,
        Err(e) => return failure(&e, fail_open),
    };
    let knowledge = match (setup.knowledge)(&settings) {
        Ok(k) => k,
        Err(e) => return failure(&format!("cannot load the NetBox knowledge: {e}"), fail_open),
    };
    let release = release_of(&knowledge);
    let checked = call::check(&reading, &event.input, &knowledge, &settings.severity);
    let shell = matches!(reading, Reading::Shell { .. });
    // A corrected input rebuilt from a repaired event would carry U+FFFD where the tool input
    // had a lone surrogate: no correction then, the reason says what to change.
    let policy = Policy {
        fix: policy.fix && !event.repaired,
        ..*policy
    };
    answer(&decide(&checked, &policy, &release, shell), &event.name)
}

/// The release a knowledge is of, as reasons name it (`4.7.3`, `4.6.8 (instance index)`).
pub fn release_of(k: &Knowledge) -> String {
    match k.index.as_deref() {
        Some(i) if i.from_instance => format!("{} (instance index)", i.netbox_version),
        Some(i) => i.netbox_version.clone(),
        None => "(no index)".to_string(),
    }
}

/// The answer that carries `decision` for an event named `event`.
pub fn answer(decision: &Decision, event: &str) -> Answer {
    let out = |fields: Value| {
        let mut o = json!({"hookEventName": event});
        if let (Some(o), Value::Object(f)) = (o.as_object_mut(), fields) {
            o.extend(f);
        }
        format!("{}\n", json!({"hookSpecificOutput": o}))
    };
    match decision {
        Decision::Pass => Answer::pass(),
        // Exit 2: the harness reads standard error only (standard output would be ignored).
        Decision::Deny { reason } => Answer {
            code: 2,
            stdout: String::new(),
            stderr: format!("{reason}\n"),
        },
        Decision::Ask { reason } => Answer {
            code: 0,
            stdout: out(json!({"permissionDecision": "ask", "permissionDecisionReason": reason})),
            stderr: String::new(),
        },
        Decision::Correct {
            input,
            note,
            confirm,
        } => Answer {
            code: 0,
            stdout: out(json!({
                "permissionDecision": if *confirm { "ask" } else { "allow" },
                "permissionDecisionReason": note,
                "updatedInput": input,
                "additionalContext": note,
            })),
            stderr: String::new(),
        },
    }
}

/// The answer when the check could not run (`what` says why): a denial that says so, or with
/// `fail_open` a pass with a note on standard error.
pub fn failure(what: &str, fail_open: bool) -> Answer {
    let what = super::printable(what);
    if fail_open {
        return Answer {
            code: 0,
            stdout: String::new(),
            stderr: format!(
                "netbox-lsp hook: {what}; the call was let through unchecked (--fail-open)\n"
            ),
        };
    }
    answer(
        &Decision::Deny {
            reason: format!(
                "netbox-lsp hook: {what}. The call was not checked, so it was not sent (the hook fails closed; run it again once this is fixed, or start the hook with --fail-open to let unchecked calls through)."
            ),
        },
        "PreToolUse",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events() {
        let e = parse_event(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!((e.name.as_str(), e.tool.as_str()), ("PreToolUse", "Bash"));
        assert_eq!(
            parse_event(br#"{"hook_event_name":"PostToolUse","tool_name":"Bash"}"#),
            Ok(None)
        );
        let generic = parse_event(br#"{"endpoint":"/api/dcim/devices/","filters":{}}"#)
            .unwrap()
            .unwrap();
        assert_eq!(generic.tool, "");
        for bad in [
            &b""[..],
            b"[1]",
            b"{",
            b"\xff",
            br#"{"tool_name":"x","tool_input":"s"}"#,
            br#"{"tool_name":"x"}"#,
            br#"{"tool_name":3,"tool_input":{}}"#,
        ] {
            assert!(
                parse_event(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn lone_surrogates_are_read_as_replacement_characters() {
        let fix = |t: &str| without_lone_surrogates(t);
        assert_eq!(
            fix(r#"{"a": "x\ud83d"}"#).as_deref(),
            Some(r#"{"a": "x\ufffd"}"#)
        );
        assert_eq!(
            fix(r#"{"a": "\udc00y"}"#).as_deref(),
            Some(r#"{"a": "\ufffdy"}"#)
        );
        // A pair is a character; an escaped backslash before `ud83d` is text; outside strings
        // nothing is an escape.
        assert_eq!(fix(r#"{"a": "\ud83d\ude00"}"#), None);
        assert_eq!(fix(r#"{"a": "\\ud83d"}"#), None);
        assert_eq!(
            fix(r#"{"a\"": "\"\ud83d"}"#).as_deref(),
            Some(r#"{"a\"": "\"\ufffd"}"#)
        );
        let e = parse_event(br#"{"tool_name": "Bash", "tool_input": {"command": "echo \ud83d"}}"#)
            .unwrap()
            .unwrap();
        assert!(e.repaired);
        assert_eq!(e.input["command"], "echo \u{fffd}");
        let e = parse_event("\u{feff}{\"tool_name\": \"Bash\", \"tool_input\": {}}".as_bytes())
            .unwrap()
            .unwrap();
        assert!(!e.repaired && e.tool == "Bash");
    }

    #[test]
    fn failures_deny_unless_open() {
        let a = failure("x", false);
        assert_eq!(a.code, 2);
        assert!(a.stderr.starts_with("netbox-lsp hook: x."));
        assert_eq!(
            a.stdout, "",
            "exit 2: standard output is ignored by the harness"
        );
        let a = failure("x", true);
        assert_eq!((a.code, a.stdout.as_str()), (0, ""));
    }
}
