//! `textDocument/codeAction`: a quick-fix per fix of each finding in the range (preferred when it
//! is the one certain fix), "ignore this finding here" (inserts a suppression comment on the line
//! before), and `source.fixAll.netbox` (every certain fix of the document, non-overlapping).

use super::config::Settings;
use super::diagnostics::{effective, to_diagnostics_with};
use super::initialize::FIX_ALL_KIND;
use super::position::{Encoding, Snapshot};
use super::request::{self, Request};
use super::Backend;
use crate::extract::HostKind;
use crate::finding::{Edit, Finding};
use crate::suppress;
use std::collections::HashMap;
use std::ops::Range;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

/// Handles `textDocument/codeAction`.
pub async fn handle(
    backend: &Backend,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let uri = params.text_document.uri.clone();
    let Some(req) = Request::open(backend, &uri) else {
        return Ok(None);
    };
    let findings = backend.findings_of(&req.view).await;
    let (settings, _) = backend.state.settings_for(req.view.path.as_deref());
    // A large document's actions take time: off the async threads (see `request`).
    Ok(request::run(backend, "code action", move || {
        let (snap, kind) = (&req.view.snap, req.view.kind);
        let a = actions(&uri, snap, kind, &findings, &settings, req.enc, &params);
        (!a.is_empty()).then_some(a)
    })
    .await)
}

fn wants(only: &Option<Vec<CodeActionKind>>, kind: &str) -> bool {
    match only {
        None => true,
        Some(list) => list
            .iter()
            .any(|k| kind == k.as_str() || kind.starts_with(&format!("{}.", k.as_str()))),
    }
}

fn workspace_edit(uri: &Uri, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..WorkspaceEdit::default()
    }
}

fn text_edits(edits: &[Edit], pos: &Positions) -> Vec<TextEdit> {
    edits
        .iter()
        .map(|e| TextEdit::new(pos.range(&e.range), e.new_text.clone()))
        .collect()
}

/// Most findings given quick fixes in one request: a whole-document request on a generated file
/// with tens of thousands of findings must not block the requests behind it (issue 9 §5); the
/// findings nearest the start of the requested range come first. Fix-all is not capped.
const MAX_QUICKFIX_FINDINGS: usize = 2000;

/// LSP positions of a set of byte offsets, converted in one ascending pass over the text, so
/// that thousands of findings on one long line cost one pass over it, not one each.
struct Positions {
    at: HashMap<usize, Position>,
}

impl Positions {
    fn new(snap: &Snapshot, enc: Encoding, mut offsets: Vec<usize>) -> Positions {
        offsets.sort_unstable();
        offsets.dedup();
        let mut cursor = crate::lines::Cursor::new(&snap.text, &snap.lines);
        let at = offsets
            .into_iter()
            .map(|o| {
                let (line, _, utf16) = cursor.position(o);
                let col = match enc {
                    Encoding::Utf16 => utf16,
                    Encoding::Utf8 => {
                        let mut b = o.min(snap.text.len());
                        while !snap.text.is_char_boundary(b) {
                            b -= 1;
                        }
                        (b - snap.lines.line_range(line as usize).start) as u32
                    }
                };
                (o, Position::new(line, col))
            })
            .collect();
        Positions { at }
    }

    fn range(&self, r: &Range<usize>) -> tower_lsp_server::ls_types::Range {
        let p = |o: &usize| self.at.get(o).copied().unwrap_or_default();
        tower_lsp_server::ls_types::Range::new(p(&r.start), p(&r.end))
    }
}

/// Every code action for `params` on this snapshot.
pub fn actions(
    uri: &Uri,
    snap: &Snapshot,
    kind: HostKind,
    findings: &[Finding],
    settings: &Settings,
    enc: Encoding,
    params: &CodeActionParams,
) -> Vec<CodeActionOrCommand> {
    let only = &params.context.only;
    let want = snap.byte_range(params.range, enc);
    let mut out = Vec::new();
    if wants(only, CodeActionKind::QUICKFIX.as_str()) {
        let hit: Vec<(&Finding, _)> = effective(findings, settings)
            .filter(|(f, _)| f.range.start <= want.end && want.start <= f.range.end)
            .take(MAX_QUICKFIX_FINDINGS)
            .collect();
        let only_findings: Vec<&Finding> = hit.iter().map(|(f, _)| *f).collect();
        let ignores = suppress::ignore_edits(&snap.text, kind, &only_findings);
        let mut offsets = Vec::new();
        for f in &only_findings {
            offsets.extend([f.range.start, f.range.end]);
            for e in f.fixes.iter().flat_map(|x| &x.edits) {
                offsets.extend([e.range.start, e.range.end]);
            }
        }
        for e in ignores.iter().flatten() {
            offsets.extend([e.range.start, e.range.end]);
        }
        let pos = Positions::new(snap, enc, offsets);
        for ((f, sev), ignore) in hit.into_iter().zip(ignores) {
            let mut shown = f.clone();
            shown.severity = sev;
            let diag = to_diagnostics_with(
                std::slice::from_ref(&shown),
                &|r| pos.range(r),
                &Settings::default(),
            );
            for fix in &f.fixes {
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title.clone(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(diag.clone()),
                    edit: Some(workspace_edit(uri, text_edits(&fix.edits, &pos))),
                    is_preferred: Some(fix.certain && f.fixes.len() == 1),
                    ..CodeAction::default()
                }));
            }
            // An unused suppression is removed, never suppressed in turn.
            if let Some(edit) = ignore.filter(|_| f.code != suppress::UNUSED) {
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("Ignore `{}` here (netbox-lsp: ignore)", f.code),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(diag),
                    edit: Some(workspace_edit(uri, text_edits(&[edit], &pos))),
                    is_preferred: Some(false),
                    ..CodeAction::default()
                }));
            }
        }
    }
    if wants(only, FIX_ALL_KIND) {
        let edits = fix_all(findings, settings);
        if !edits.is_empty() {
            let pos = Positions::new(
                snap,
                enc,
                edits
                    .iter()
                    .flat_map(|e| [e.range.start, e.range.end])
                    .collect(),
            );
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Fix all certain NetBox filter problems ({})", edits.len()),
                kind: Some(CodeActionKind::new(FIX_ALL_KIND)),
                edit: Some(workspace_edit(uri, text_edits(&edits, &pos))),
                ..CodeAction::default()
            }));
        }
    }
    out
}

/// The edits of every certain fix of the reported findings, in document order; a fix that
/// overlaps one already taken is left for a second pass. The same engine as `check --fix`
/// ([`crate::fix`]), given the findings as the editor reports them (severity settings applied).
pub fn fix_all(findings: &[Finding], settings: &Settings) -> Vec<Edit> {
    crate::fix::fix_all_edits(effective(findings, settings).map(|(f, _)| f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn ignore_edit(text: &str, kind: HostKind, f: &Finding) -> Option<Edit> {
        suppress::ignore_edits(text, kind, &[f]).pop().flatten()
    }

    fn finding(text: &str, needle: &str) -> Finding {
        let at = text.find(needle).unwrap();
        Finding::new(
            at..at + needle.len(),
            "unknown-filter",
            Severity::Error,
            "m",
        )
    }

    fn apply(text: &str, e: &Edit) -> String {
        let mut s = text.to_string();
        s.replace_range(e.range.clone(), &e.new_text);
        s
    }

    #[test]
    fn ignore_comments_fit_the_host_and_are_honoured() {
        let cases = [
            (
                HostKind::Python,
                "x = 1\n    f(filters={\"bad\": 1})\n",
                "    # netbox-lsp: ignore[unknown-filter]\n    f(",
            ),
            (
                HostKind::Markdown,
                "Use `?bad=1` here.\n",
                "Use `?bad=1` here. <!-- netbox-lsp: ignore[unknown-filter] -->\n",
            ),
            (
                HostKind::Markdown,
                "> ```python\n> f(bad=1)\n> ```\n",
                "> # netbox-lsp: ignore[unknown-filter]\n> f(",
            ),
            (
                HostKind::Markdown,
                "- x\n  ```json\n  {\"bad\": 1}\n  ```\n",
                "  <!-- netbox-lsp: ignore[unknown-filter] -->\n  ```json",
            ),
            (
                HostKind::Yaml,
                "# netbox-lsp: ignore[multi-hop]\nbad: 1\n",
                "# netbox-lsp: ignore[multi-hop,unknown-filter]\nbad",
            ),
        ];
        for (kind, text, want) in cases {
            let f = finding(text, "bad");
            let e = ignore_edit(text, kind, &f).unwrap();
            let after = apply(text, &e);
            assert!(after.contains(want), "{kind:?}: {after:?}");
            // The new comment suppresses the finding (blocks: the fence range).
            let blocks: Vec<Range<usize>> = after
                .find("```")
                .map(|s| s..after.rfind("```").unwrap() + 3)
                .into_iter()
                .collect();
            let f2 = finding(&after, "bad");
            assert!(
                suppress::apply(&after, kind, &blocks, vec![f2]).is_empty(),
                "{kind:?}: {after:?}"
            );
        }
        let json = "{\"bad\": 1}";
        assert!(ignore_edit(json, HostKind::Json, &finding(json, "bad")).is_none());
    }

    #[test]
    fn fix_all_takes_certain_non_overlapping_fixes() {
        let text = "aaa bbb ccc";
        let certain = |n: &str, to: &str| {
            finding(text, n).with_fix(
                "t",
                text.find(n).unwrap()..text.find(n).unwrap() + 3,
                to,
                true,
            )
        };
        let findings = vec![
            certain("aaa", "A"),
            certain("aaa", "Z"), // same range: skipped
            finding(text, "bbb")
                .with_fix("t", 4..7, "B1", false)
                .with_fix("t", 4..7, "B2", false),
            certain("ccc", "C"),
        ];
        let edits = fix_all(&findings, &Settings::default());
        let texts: Vec<&str> = edits.iter().map(|e| e.new_text.as_str()).collect();
        assert_eq!(texts, vec!["A", "C"]);
    }
}
