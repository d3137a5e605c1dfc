//! Pull diagnostics (LSP 3.17): `textDocument/diagnostic` and `workspace/diagnostic`, for
//! clients that say they pull (`textDocument.diagnostic`) and take
//! `workspace/diagnostic/refresh` (`workspace.diagnostics.refreshSupport`: VS Code). The server
//! then advertises `diagnosticProvider` and no longer pushes (`publishDiagnostics` would show
//! every finding twice). Every other client is pushed to, as before — Neovim 0.11 too: it pulls
//! only after an open or an edit and takes no refresh, so diagnostics that change without an
//! edit (your NetBox's knowledge ready, a live verification) would never reach it.
//!
//! Every report carries a result id, a hash of the diagnostics it holds: a pull whose
//! `previousResultId` is that id gets an `unchanged` report. The analysis is the one the push
//! path runs (debounced after each change, with the upgrade and live findings merged in): a
//! pull takes its stored result for the current version, or runs it then. When a document's
//! diagnostics change without an edit (settings, knowledge built from your NetBox, a live
//! verification), the client is asked to pull again (`workspace/diagnostic/refresh`, sent by
//! [`super::diagnostics`] after such an analysis). `workspace/diagnostic` reports the open documents (the
//! server reads no other file; `netbox-lsp check` covers the whole tree).

use super::diagnostics::result_id;
use super::{lock, Backend};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

/// The identifier of this server's diagnostics in the pull requests.
pub const IDENTIFIER: &str = "netbox-lsp";

/// The diagnostics of `uri`'s current version: the stored analysis when it is of this version,
/// else one run now. `None` when the document is not open.
async fn current(backend: &Backend, uri: &Uri) -> Option<(i32, Vec<Diagnostic>)> {
    let view = backend.view(uri)?;
    let enc = backend.state.encoding();
    if let Some(findings) = &view.findings {
        let (settings, _) = backend.state.settings_for(view.path.as_deref());
        let diags = super::diagnostics::to_diagnostics(findings, &view.snap, enc, &settings);
        return Some((view.snap.version, diags));
    }
    // Not analysed yet (a pull right after an edit): analyse now; a change during that run
    // makes it give up, and the analysis of the newer version answers.
    for _ in 0..3 {
        if let Some(a) = super::diagnostics::analyse(backend, uri).await {
            let diags =
                super::diagnostics::to_diagnostics(&a.findings, &a.snapshot, enc, &a.settings);
            return Some((a.snapshot.version, diags));
        }
    }
    let view = backend.view(uri)?;
    let findings = backend.findings_of(&view).await;
    let (settings, _) = backend.state.settings_for(view.path.as_deref());
    let diags = super::diagnostics::to_diagnostics(&findings, &view.snap, enc, &settings);
    Some((view.snap.version, diags))
}

/// Records what the client got for `uri` at `version`.
fn remember(backend: &Backend, uri: &Uri, version: i32, id: &str) {
    if let Some(doc) = lock(&backend.state.docs).get_mut(uri) {
        doc.pulled = Some((version, id.to_string()));
    }
}

/// Handles `textDocument/diagnostic`.
pub async fn document(
    backend: &Backend,
    params: DocumentDiagnosticParams,
) -> Result<DocumentDiagnosticReportResult> {
    let uri = params.text_document.uri;
    let Some((version, diags)) = current(backend, &uri).await else {
        // Not open here: nothing is known about it.
        return Ok(full(Vec::new(), None));
    };
    let id = result_id(&diags);
    remember(backend, &uri, version, &id);
    if params.previous_result_id.as_deref() == Some(id.as_str()) {
        return Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                related_documents: None,
                unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                    result_id: id,
                },
            }),
        ));
    }
    Ok(full(diags, Some(id)))
}

fn full(items: Vec<Diagnostic>, result_id: Option<String>) -> DocumentDiagnosticReportResult {
    DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
        RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport { result_id, items },
        },
    ))
}

/// Handles `workspace/diagnostic`: a report per open document, `unchanged` where the client
/// already has its result id.
pub async fn workspace(
    backend: &Backend,
    params: WorkspaceDiagnosticParams,
) -> Result<WorkspaceDiagnosticReportResult> {
    let mut uris: Vec<Uri> = lock(&backend.state.docs).keys().cloned().collect();
    uris.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    let mut items = Vec::new();
    for uri in uris {
        let Some((version, diags)) = current(backend, &uri).await else {
            continue; // closed meanwhile
        };
        let id = result_id(&diags);
        remember(backend, &uri, version, &id);
        let had = params
            .previous_result_ids
            .iter()
            .any(|p| p.uri == uri && p.value == id);
        let version = Some(i64::from(version));
        items.push(if had {
            WorkspaceDocumentDiagnosticReport::Unchanged(
                WorkspaceUnchangedDocumentDiagnosticReport {
                    uri,
                    version,
                    unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                        result_id: id,
                    },
                },
            )
        } else {
            WorkspaceDocumentDiagnosticReport::Full(WorkspaceFullDocumentDiagnosticReport {
                uri,
                version,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: Some(id),
                    items: diags,
                },
            })
        });
    }
    Ok(WorkspaceDiagnosticReportResult::Report(
        WorkspaceDiagnosticReport { items },
    ))
}

/// The `diagnosticProvider` this server advertises to a client that pulls.
pub fn provider() -> DiagnosticServerCapabilities {
    DiagnosticServerCapabilities::Options(DiagnosticOptions {
        identifier: Some(IDENTIFIER.to_string()),
        inter_file_dependencies: false,
        workspace_diagnostics: true,
        work_done_progress_options: WorkDoneProgressOptions::default(),
    })
}
