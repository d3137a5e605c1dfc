//! netbox-lsp: checks NetBox REST filter dicts and GraphQL documents where people and agents
//! write them (skill files, prompts, Python, YAML, JSON), against the knowledge of a NetBox
//! version built from NetBox's own OpenAPI document and GraphQL schema.
//!
//! Pipeline: [`extract`] (host → sites with byte ranges) → [`rest`] / [`graphql`] (pure checks
//! against [`index`]) → [`finding::Finding`]s, rendered by [`cli`] or [`server`].

pub mod agent;
pub mod analysis;
pub mod approx;
pub mod audit;
pub mod catalogue;
pub mod cli;
pub mod config;
pub mod escape;
pub mod extract;
pub mod filters;
pub mod finding;
pub mod fix;
pub mod forecast;
pub mod graphql;
pub mod index;
pub mod instance;
pub mod intent;
pub mod knowledge;
pub mod leftovers;
pub mod lines;
pub mod live;
pub mod release;
pub mod rest;
pub mod safe_read;
pub mod sanitize;
pub mod server;
pub mod suppress;
pub mod upgrade;
pub mod version;

/// mimalloc for every binary built on this crate (the server, `check`, tests and benches
/// alike): parsing the code of a skill file makes many small short-lived allocations, and
/// tree-sitter's C side uses the same allocator (see `extract::parse`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
