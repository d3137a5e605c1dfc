//! The finding model shared by every check: what the core returns and what `cli/` and `server/`
//! render. Positions are byte offsets into the host document (UTF-8); conversion to line/column
//! (UTF-16 for LSP by default) happens only at the edges.

use serde::Serialize;
use std::ops::Range;

/// How serious a finding is. Ordered from most to least serious.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// NetBox ignores the filter (unfiltered result), answers 400/500, or rejects the document.
    Error,
    /// Likely wrong, but an instance could make it right (e.g. an extended choice set).
    Warning,
    /// Worth knowing; the call works as written (e.g. `__n` with `null`).
    Information,
    /// A suggestion about an optional argument.
    Hint,
}

impl Severity {
    /// Lower-case name as used in the text, JSON and config formats.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }

    /// Parses `error`, `warning`, `information` (or `info`), `hint`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s.to_ascii_lowercase().as_str() {
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "information" | "info" => Some(Severity::Information),
            "hint" => Some(Severity::Hint),
            _ => None,
        }
    }
}

/// One replacement in the host document: bytes `range` become `new_text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// Byte range in the host document.
    pub range: Range<usize>,
    /// Replacement text (UTF-8).
    pub new_text: String,
}

/// A fix the user can apply. A finding whose fix is certain carries exactly one fix with
/// `certain = true`; several uncertain suggestions carry several fixes, none certain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// Short imperative title, e.g. "Replace `device_role_id` with `role_id`".
    pub title: String,
    /// Edits applied together.
    pub edits: Vec<Edit>,
    /// True when this is the one right fix (preferred quick-fix, part of fix-all).
    pub certain: bool,
}

/// One request a live finding rests on and what NetBox answered to it (issue 33 §3): what was
/// sent, so anyone can send it again, and what came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exchange {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// Path and query below the NetBox base URL (`/api/dcim/devices/?role_id=6&limit=1`,
    /// `/graphql/`).
    pub path: String,
    /// The JSON body of a POST.
    pub body: Option<String>,
    /// The HTTP status NetBox answered with; `None` when it did not answer.
    pub status: Option<u16>,
    /// The `count` of a REST list answer.
    pub count: Option<u64>,
}

/// One problem found in a host document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Byte range in the host document that the finding is about (a filter key, a value, ...).
    pub range: Range<usize>,
    /// Stable kebab-case code, documented in `docs/diagnostics.md` (e.g. `unknown-filter`).
    pub code: &'static str,
    /// Default severity for this code in this context (config can override it).
    pub severity: Severity,
    /// What NetBox does with it and the working form.
    pub message: String,
    /// Fixes, possibly empty.
    pub fixes: Vec<Fix>,
    /// The requests a live finding rests on, in the order sent (the call with its filters,
    /// without, and the negation); empty for every other finding.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proof: Vec<Exchange>,
}

impl Finding {
    /// Builds a finding without fixes.
    pub fn new(
        range: Range<usize>,
        code: &'static str,
        severity: Severity,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            range,
            code,
            severity,
            message: message.into(),
            fixes: Vec::new(),
            proof: Vec::new(),
        }
    }

    /// Adds a fix replacing `range` with `new_text`.
    pub fn with_fix(
        mut self,
        title: impl Into<String>,
        range: Range<usize>,
        new_text: impl Into<String>,
        certain: bool,
    ) -> Self {
        self.fixes.push(Fix {
            title: title.into(),
            edits: vec![Edit {
                range,
                new_text: new_text.into(),
            }],
            certain,
        });
        self
    }
}
