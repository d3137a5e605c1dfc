//! `netbox-lsp mcp`: loads the knowledge the flags and `netbox-lsp.toml` choose, then serves
//! the MCP tools of [`crate::agent::mcp`] on stdio.

use crate::agent::mcp::{serve_stdio, Server};
use crate::analysis::Knowledge;
use crate::config::Settings;
use crate::knowledge::{knowledge_from, Named, Origin};
use std::path::{Path, PathBuf};

/// Arguments of `mcp`.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub knowledge: KnowledgeArgs,
}

/// The knowledge of `hook` and `mcp`: flags first, then the settings file.
#[derive(Debug, Clone, clap::Args)]
pub struct KnowledgeArgs {
    /// NetBox version whose embedded knowledge to use (`4.6`, `4.6.8`); default: the settings
    /// file's, else the newest shipped.
    #[arg(long)]
    pub netbox_version: Option<String>,
    /// An index file built by `netbox-lsp index build` (an instance's, with its custom fields
    /// and plugins).
    #[arg(long)]
    pub index: Option<PathBuf>,
    /// A GraphQL schema (SDL or introspection JSON, optionally .gz).
    #[arg(long)]
    pub graphql_schema: Option<PathBuf>,
    /// Settings file (default: the nearest `netbox-lsp.toml`, or `[tool.netbox-lsp]` in a
    /// `pyproject.toml`, from the current folder up): its `netbox_version`, `index`,
    /// `graphql_schema`, `severity` and `[tools.<name>]` apply.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Runs `mcp`; returns the exit code (2 when the knowledge cannot be loaded).
pub fn run(args: &McpArgs) -> i32 {
    let args = &args.knowledge;
    let file = match super::settings::settings_file(args.config.as_deref(), false) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("netbox-lsp mcp: error: {e}");
            return 2;
        }
    };
    let (settings, path) = match file {
        Some(f) => {
            for w in &f.warnings {
                eprintln!("netbox-lsp mcp: note: {}: {w}", f.path.display());
            }
            (f.settings, f.path)
        }
        None => (Settings::default(), PathBuf::from(crate::config::FILE_NAME)),
    };
    let knowledge = match knowledge_of(args, &settings, &path) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("netbox-lsp mcp: error: {e}");
            return 2;
        }
    };
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        eprintln!("netbox-lsp mcp: this is an MCP server, waiting for an MCP client on stdin/stdout; Ctrl-C quits");
    }
    let load = |release: &str| -> Result<Knowledge, String> {
        let (k, _) = knowledge_from(Some(release), None, None)?;
        Ok(Knowledge {
            readings: crate::agent::call_readings(),
            ..k
        })
    };
    serve_stdio(Server::new(knowledge, settings.severity, Box::new(load)))
}

/// The knowledge for an agent's calls: the flags first, then the settings file `file` (whose
/// errors do not quote the files it names), with the readings of a call
/// ([`crate::agent::call_readings`]). Shared with `hook`.
pub(crate) fn knowledge_of(
    args: &KnowledgeArgs,
    settings: &Settings,
    file: &Path,
) -> Result<Knowledge, String> {
    let named = |flag: Option<&'_ Path>, from_file: Option<&'_ PathBuf>| {
        flag.map(|path| (path.to_path_buf(), true))
            .or_else(|| from_file.map(|p| (p.clone(), false)))
    };
    let index = named(args.index.as_deref(), settings.index.as_ref());
    let schema = named(
        args.graphql_schema.as_deref(),
        settings.graphql_schema.as_ref(),
    );
    let origin = |on_command_line: bool| {
        if on_command_line {
            Origin::CommandLine
        } else {
            Origin::SettingsFile(file)
        }
    };
    let (k, _notes) = knowledge_from(
        args.netbox_version
            .as_deref()
            .or(settings.netbox_version.as_deref()),
        index.as_ref().map(|(path, cl)| Named {
            path,
            by: origin(*cl),
        }),
        schema.as_ref().map(|(path, cl)| Named {
            path,
            by: origin(*cl),
        }),
    )?;
    Ok(Knowledge {
        readings: crate::agent::call_readings(),
        ..k
    })
}
