//! How a finding is shown to the client, whichever way its diagnostic is written
//! (`diagnostics::to_diagnostics` or `wire`): whether it is reported and with which severity,
//! its `source`, and the link of its code.

use super::config::Settings;
use crate::finding::{Finding, Severity};
use tower_lsp_server::ls_types::{CodeDescription, DiagnosticSeverity, Uri};

/// The `source` of every diagnostic but the live ones ([`crate::live::SOURCE`]).
pub const SOURCE: &str = "netbox-lsp";

/// The findings that are reported under `settings`, with their effective severity.
pub fn effective<'a>(
    findings: &'a [Finding],
    settings: &'a Settings,
) -> impl Iterator<Item = (&'a Finding, Severity)> + 'a {
    findings
        .iter()
        .filter_map(|f| settings.severity_for(f.code, f.severity).map(|s| (f, s)))
}

/// The link to the code's entry in docs/diagnostics.md: on the repository's pages when the
/// package names its repository (a release does: `scripts/versions.sh`), else the page in the
/// source tree this server was built from, while that exists (a build from a clone).
pub fn code_description(code: &str) -> Option<CodeDescription> {
    let href = crate::catalogue::doc_url(code)
        .or_else(|| local_docs().map(|page| format!("{page}#{code}")))?
        .parse::<Uri>()
        .ok()?;
    Some(CodeDescription { href })
}

/// `file://…/docs/diagnostics.md` of the source tree this binary was built from, when the file
/// is still there (looked at once).
fn local_docs() -> Option<&'static str> {
    static PAGE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    PAGE.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md");
        if !path.is_file() {
            return None;
        }
        let text = path.to_str()?.replace('\\', "/");
        let encoded: String =
            percent_encoding::utf8_percent_encode(&text, percent_encoding::NON_ALPHANUMERIC)
                .to_string()
                .replace("%2F", "/")
                .replace("%3A", ":")
                .replace("%2E", ".")
                .replace("%2D", "-")
                .replace("%5F", "_");
        let slash = if encoded.starts_with('/') { "" } else { "/" };
        Some(format!("file://{slash}{encoded}"))
    })
    .as_deref()
}

/// LSP severity of a finding severity.
pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Information => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}
