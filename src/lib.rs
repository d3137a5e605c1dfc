//! netbox-lsp: checks NetBox REST filter dicts and GraphQL documents where people and agents
//! write them (skill files, prompts, Python, YAML, JSON), against the knowledge of a NetBox
//! version built from NetBox's own OpenAPI document and GraphQL schema.
//!
//! Pipeline: [`extract`] (host → sites with byte ranges) → [`intent`] (which sites are calls)
//! → [`rest`] / [`graphql`] (pure checks against [`index`]) → [`finding::Finding`]s, through
//! [`analysis`], rendered by [`cli`] or [`server`].
//!
//! # Layers
//!
//! Each layer uses only the layers below it; no module of a layer uses one of a layer above,
//! and no two files import each other, directly or round a loop (`tests/module_cycles.rs`
//! fails on a cycle between files or top-level modules). From the bottom:
//!
//! 1. **Leaves** (nothing of the crate): [`finding`] (the finding type), [`version`],
//!    [`lines`], [`safe_read`], [`sanitize`] and [`escape`] (text made safe for an output),
//!    [`leftovers`], [`sync`] (a lock that survives a panic elsewhere).
//! 2. **Facts**: [`index`] (the vendored knowledge of each release: endpoints, filters,
//!    lookup suffixes, document limits), [`catalogue`] (the codes), [`fix`], [`forecast`].
//! 3. **Reading**: [`extract`] (host documents → sites), which reads only facts.
//! 4. **Checks**: [`rest`] and [`graphql`] (a site and the knowledge in, findings out),
//!    [`suppress`]; then [`intent`] (which sites are not calls: it reads the sites and splits
//!    GraphQL text) and [`instance`] (a live NetBox's knowledge, built from its answers).
//! 5. **Knowledge and settings**: [`knowledge`] (the `Knowledge` a document is checked against
//!    and its one loader), [`config`].
//! 6. **The pipeline**: [`approx`] and [`filters`] (steps of it), [`analysis`] (the one entry
//!    point: a document in, findings out).
//! 7. **Consumers of an analysis**: [`upgrade`], [`live`], [`agent`], [`audit`], [`release`].
//! 8. **Front ends**: [`server`] (the only module that knows LSP types) and [`cli`] (which
//!    also starts the server; the server never uses the CLI).
//!
//! Inside a top-level module the same holds between its files: a file that several siblings
//! need (a table, a shared struct, a small helper) sits below them in a file of its own
//! (`rest/fit.rs` above `rest/endpoint.rs` and the rule tables, `extract/terms.rs`,
//! `extract/json_lit.rs`); dispatch between modes sits in the parent (`cli::run`), and the
//! server's scheduling is `server::Backend`'s, not a module's that also consumes the others.

pub mod agent;
pub mod analysis;
pub mod approx;
pub mod audit;
pub mod catalogue;
pub mod cli;
pub mod config;
pub mod distance;
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
pub mod sync;
pub mod upgrade;
pub mod version;

/// mimalloc for every binary built on this crate (the server, `check`, tests and benches
/// alike): parsing the code of a skill file makes many small short-lived allocations, and
/// tree-sitter's C side uses the same allocator (see `extract::parse`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
