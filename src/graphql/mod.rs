//! GraphQL documents: NetBox's schema per version, validation with apollo-compiler, NetBox's own
//! rules, completion and hover. See `docs/graphql.md` for every finding with an example.
//!
//! - [`schema`]: [`NetboxSchema`], loading SDL / introspection JSON (gz accepted).
//! - [`introspection`]: introspection JSON → SDL converter.
//! - [`embedded`]: the schemas shipped in `index/` and [`embedded_schema`].
//! - [`check`]: [`check_document`] (syntax, apollo-compiler validation, NetBox rules, variables);
//!   [`split`]: what a block of GraphQL text is (one document, examples side by side, a snippet).
//! - [`rules`]: the NetBox rules; [`suggest`]: "did you mean"; [`history`]: the release that
//!   removed or added a name; [`variables`]: variable values; [`words`]: NetBox's words for
//!   every validation diagnostic.
//! - [`complete`] / [`hover`]: editor support on half-typed documents (apollo-parser CST).
//! - [`quick`]: the proof that apollo-compiler's validation of a plain document would find
//!   nothing, so it is skipped; [`renamed`]: a "did you mean" rename applied to the parse
//!   itself, so its re-validation needs no second parse.
//! - [`roots`]: whether a document found in a string by its shape or tag is NetBox's.

pub mod check;
pub mod complete;
pub mod cursor;
pub mod cynic_ast;
pub mod direct;
pub mod embedded;
pub mod history;
pub mod holes;
pub mod hover;
pub mod introspection;
pub mod quick;
pub mod renamed;
pub mod roots;
pub mod ruler;
pub mod rules;
pub mod schema;
pub mod split;
pub mod suggest;
pub mod variables;
pub mod words;

pub use check::check_document;
pub use complete::{complete, GqlCompletion, GqlCompletionKind};
pub use embedded::embedded_schema;
pub use hover::hover;
pub use schema::{load_schema_file, NetboxSchema};
