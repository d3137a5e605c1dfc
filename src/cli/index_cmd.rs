//! `netbox-lsp index build` and `index info`. (Being written.)

use std::path::PathBuf;

/// Arguments of `index build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// OpenAPI document (`.json` or `.json.gz`), as served at `/api/schema/?format=json`.
    #[arg(long)]
    pub openapi: Option<PathBuf>,
    /// GraphQL schema: SDL or introspection JSON (`.gz` accepted).
    #[arg(long)]
    pub graphql: Option<PathBuf>,
    /// Output file (default: `netbox-<version>.index.json.gz` in the current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Arguments of `index info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Embedded NetBox version to describe (default: newest).
    #[arg(long)]
    pub netbox_version: Option<String>,
    /// An index file to describe instead of an embedded one.
    #[arg(long)]
    pub index: Option<PathBuf>,
}

/// Runs `index build`; returns the exit code.
pub fn build(args: &BuildArgs) -> i32 {
    let _ = args;
    0
}

/// Runs `index info`; returns the exit code.
pub fn info(args: &InfoArgs) -> i32 {
    let _ = args;
    0
}
