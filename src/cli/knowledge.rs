//! Chooses the knowledge (filter index + GraphQL schema of one NetBox version) from the user's
//! settings: the loader lives in [`crate::knowledge`], shared by `check` and the language
//! server so both pick the same version the same way; its names stay reachable here.

pub use crate::knowledge::{knowledge_for, knowledge_from, schema_beside, Named, Origin};
