//! Adding a NetBox release to the shipped ones, for the project's maintainers
//! (`scripts/add-release.sh`, `netbox-lsp release add`; CONTRIBUTING.md "Adding a NetBox
//! release"): the release's files and row ([`files`]), and the review sheet ([`sheet`]) that
//! says what changed against the previous release — in its documents ([`diff`]), in the live
//! verdicts ([`sweep`]) and at the source line of every hand rule ([`rules`], [`source`]);
//! and the probes a fresh live sweep owes those rules ([`probes`]).
//!
//! Nothing here runs in the checker or the server; it reads the rule tables and the index, and
//! nothing reads it.

pub mod diff;
pub mod files;
pub mod probes;
pub mod rules;
pub mod sheet;
pub mod source;
pub mod sweep;
