//! `--format sarif`: SARIF 2.1.0 for code-scanning uploads (GitHub, GitLab, Azure DevOps).
//! One run; `tool.driver.rules` lists every known code with its help (plus any other code that
//! occurs); results carry `ruleId`/`ruleIndex`, `level`, the message, the location as a
//! relative URI with a 1-based region in UTF-16 code units (`columnKind: utf16CodeUnits`,
//! `endColumn` exclusive), and fixes as `artifactChanges`/`replacements`.

use super::{Located, Skipped, Span};
use crate::catalogue::{self, CODES};
use crate::finding::Severity;
use crate::intent::{Counts, ReadAs};
use serde_json::{json, Map, Value};

/// The `ruleId` of the results `--explain` adds for the sites not checked.
pub const SKIPPED: &str = "skipped";

/// The SARIF schema address written in `$schema`.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// SARIF `level` of a severity: information and hints are `note`.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// `artifactLocation.uri` of a shown path ([`super::escape::sarif_uri`] of its bytes).
pub fn uri(path: &str) -> String {
    super::escape::sarif_uri(path.as_bytes())
}

fn region(span: &Span) -> Value {
    json!({
        "startLine": span.start.line + 1,
        "startColumn": span.start.utf16_col + 1,
        "endLine": span.end.line + 1,
        "endColumn": span.end.utf16_col + 1,
    })
}

/// One entry of `tool.driver.rules`: a catalogue code, or a code the catalogue lacks (never
/// expected; it still gets a rule so that `ruleIndex` stays valid).
struct Rule {
    code: &'static str,
    title: &'static str,
    help: &'static str,
}

fn rule_json(rule: &Rule) -> Value {
    let mut v = json!({
        "id": rule.code,
        "name": rule.code,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.help},
        "help": {
            "text": rule.help,
            "markdown": format!("**{}** — {}\n\nSee docs/diagnostics.md#{} for examples.", rule.title, rule.help, rule.code),
        },
    });
    if let Some(url) = catalogue::doc_url(rule.code) {
        v["helpUri"] = json!(url);
    }
    v
}

/// The project's repository address from Cargo.toml, when it is set.
fn repository() -> Option<&'static str> {
    let repo = env!("CARGO_PKG_REPOSITORY");
    (!repo.is_empty()).then_some(repo.trim_end_matches('/'))
}

/// The rule of the results `--explain` adds for the sites not checked.
fn skipped_rule() -> Rule {
    Rule {
        code: SKIPPED,
        title: "Not checked: read as a wrong example, release history, a Django query or another product's call",
        help: "netbox-lsp reads the text around each call: a call the text marks as a wrong example, release history, a Django queryset lookup or another product's call is not checked (docs/diagnostics.md#calls-that-are-not-checked).",
    }
}

/// Rules in the catalogue: the first index after them is that of a code it lacks.
pub const CODES_LEN: usize = CODES.len();

/// The `ruleIndex` of `code`: its place in the catalogue, else after it in the order `extra`
/// (codes the catalogue lacks, in order of first occurrence; `code` is added when new).
pub fn rule_index(code: &'static str, extra: &mut Vec<&'static str>) -> usize {
    if let Some(i) = CODES.iter().position(|c| c.code == code) {
        return i;
    }
    let i = extra.iter().position(|c| *c == code).unwrap_or_else(|| {
        extra.push(code);
        extra.len() - 1
    });
    CODES.len() + i
}

/// One finding as a SARIF result, its rule at `index`.
pub fn result(f: &Located, index: usize) -> Value {
    let artifact = json!({
        "uri": super::escape::sarif_uri(super::uri_bytes(&f.path, f.path_bytes.as_ref()))
    });
    let mut result = json!({
        "ruleId": f.code,
        "ruleIndex": index,
        "level": level(f.severity),
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": artifact,
                "region": region(&f.span),
            }
        }],
    });
    if !f.fixes.is_empty() {
        result["fixes"] = Value::Array(
            f.fixes
                .iter()
                .map(|fix| {
                    json!({
                        "description": {"text": fix.title},
                        "artifactChanges": [{
                            "artifactLocation": artifact,
                            "replacements": fix.edits.iter().map(|e| json!({
                                "deletedRegion": region(&e.span),
                                "insertedContent": {"text": e.new_text},
                            })).collect::<Vec<_>>(),
                        }],
                    })
                })
                .collect(),
        );
    }
    if !f.proof.is_empty() {
        result["properties"] = json!({ "proof": super::json::proof(&f.proof) });
    }
    result
}

/// One site not checked (`--explain`) as a SARIF result of the skipped rule at `index`.
pub fn skipped_result(s: &Skipped, index: usize) -> Value {
    json!({
        "ruleId": SKIPPED,
        "ruleIndex": index,
        "kind": "notApplicable",
        "level": "none",
        "message": {"text": s.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {
                    "uri": super::escape::sarif_uri(super::uri_bytes(&s.path, s.path_bytes.as_ref()))
                },
                "region": region(&s.span),
            }
        }],
        "properties": {"readAs": s.read_as.name()},
    })
}

/// The SARIF log around `results`: the rules are the catalogue's, then `extra` (codes it
/// lacks), then the skipped rule when `skipped` (its index is the last).
pub fn log(extra: &[&'static str], skipped: bool, counts: Counts, results: Vec<Value>) -> Value {
    let mut rules: Vec<Rule> = CODES
        .iter()
        .map(|c| Rule {
            code: c.code,
            title: c.title,
            help: c.help,
        })
        .collect();
    rules.extend(extra.iter().map(|code| Rule {
        code,
        title: code,
        help: "See docs/diagnostics.md.",
    }));
    if skipped {
        rules.push(skipped_rule());
    }
    let mut driver = Map::new();
    driver.insert("name".into(), json!("netbox-lsp"));
    driver.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    driver.insert("semanticVersion".into(), json!(env!("CARGO_PKG_VERSION")));
    if let Some(base) = repository() {
        driver.insert("informationUri".into(), json!(base));
    }
    driver.insert(
        "rules".into(),
        Value::Array(rules.iter().map(rule_json).collect()),
    );
    let mut run = json!({
        "tool": {"driver": Value::Object(driver)},
        "columnKind": "utf16CodeUnits",
        "results": results,
    });
    if counts.total() > 0 {
        let by: Map<String, Value> = ReadAs::ALL
            .into_iter()
            .map(|r| (r.name().to_string(), json!(counts.get(r))))
            .collect();
        run["properties"] = json!({ "notChecked": by });
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [run],
    })
}

/// The whole SARIF log, pretty-printed, with a final newline. `counts`: the sites not checked
/// per reading, written as the run's `properties.notChecked` when there are any; `skipped`
/// (`--explain`): each as a result of `kind` `notApplicable`, `level` `none`. The same bytes
/// as [`super::stream::Sink`] writes for these findings.
pub fn render(findings: &[Located], counts: Counts, skipped: &[Skipped]) -> String {
    let mut sink = super::stream::Sink::in_memory(crate::cli::Format::Sarif, Vec::new(), "")
        .expect("writing to memory");
    sink.add(findings.to_vec(), skipped.to_vec())
        .expect("writing to memory");
    let (out, _) = sink.finish(counts).expect("writing to memory");
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(
            uri("examples/my skill/SKILL.md"),
            "examples/my%20skill/SKILL.md"
        );
        assert_eq!(uri("/tmp/a.md"), "file:///tmp/a.md");
        assert_eq!(uri("dir/a#1.md"), "dir/a%231.md");
    }
}
