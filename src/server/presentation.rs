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
/// source tree the running binary sits in (a build from a clone: [`source_tree_of`]).
pub fn code_description(code: &str) -> Option<CodeDescription> {
    let href = crate::catalogue::doc_url(code)
        .or_else(|| local_docs().map(|page| format!("{page}#{code}")))?
        .parse::<Uri>()
        .ok()?;
    Some(CodeDescription { href })
}

/// `file://…/docs/diagnostics.md` of the source tree the running executable sits in, when there
/// is one (looked up once). Found at run time rather than built in, so that the binary carries
/// no path of the folder it was built in: a library built from another copy of the same sources
/// (CI's pre-commit step builds one from a scratch clone) links to this tree's page.
fn local_docs() -> Option<&'static str> {
    static PAGE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    PAGE.get_or_init(|| {
        let exe = std::env::current_exe().ok()?;
        let path = source_tree_of(&exe)?.join("docs/diagnostics.md");
        Some(crate::escape::sarif_uri(path.to_str()?.as_bytes()))
    })
    .as_deref()
}

/// The netbox-lsp source tree that holds `exe` in its cargo target folder
/// (`<tree>/target[/<triple>]/<profile>[/deps]/<exe>`): the nearest of its five parent folders
/// with both `Cargo.toml` and `docs/diagnostics.md`. `None` for an installed binary (a wheel's,
/// a release archive's), or a target folder outside the tree (`CARGO_TARGET_DIR`).
fn source_tree_of(exe: &std::path::Path) -> Option<&std::path::Path> {
    exe.ancestors()
        .skip(1)
        .take(5)
        .find(|dir| dir.join("Cargo.toml").is_file() && dir.join("docs/diagnostics.md").is_file())
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

#[cfg(test)]
mod tests {
    use super::source_tree_of;

    #[test]
    fn the_source_tree_is_found_from_the_binary_in_its_target_folder() {
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/diagnostics.md"), "# codes\n").unwrap();
        let deep = root.join("target/x86_64-unknown-linux-musl/release/deps/lsp-0123");
        for exe in [
            root.join("target/release/netbox-lsp"),
            root.join("target/release/deps/lsp_pull-0123"),
            deep.clone(),
        ] {
            // Without Cargo.toml the folder is not a source tree.
            assert_eq!(source_tree_of(&exe), None, "{}", exe.display());
        }
        std::fs::write(root.join("Cargo.toml"), "[package]\n").unwrap();
        for exe in [
            root.join("target/release/netbox-lsp"),
            root.join("target/release/deps/lsp_pull-0123"),
            root.join("target/x86_64-pc-windows-gnu/release/netbox-lsp.exe"),
            deep,
        ] {
            assert_eq!(source_tree_of(&exe), Some(root), "{}", exe.display());
        }
        // An installed binary: no tree among its parents.
        let venv = tempfile::tempdir().unwrap();
        assert_eq!(source_tree_of(&venv.path().join("bin/netbox-lsp")), None);
    }
}
