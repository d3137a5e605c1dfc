//! Open documents: text in a rope, the client's version, the host kind, and a cached snapshot of
//! the current version that analysis and requests share.

use super::position::{rope_char, Encoding, Snapshot};
use crate::analysis::UnitCache;
use crate::extract::HostKind;
use crate::finding::Finding;
use crate::intent::NotChecked;
use ropey::Rope;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

/// One open document.
#[derive(Debug)]
pub struct Document {
    pub rope: Rope,
    pub version: i32,
    pub kind: HostKind,
    /// The file's path when the URI is a `file:` URI.
    pub path: Option<PathBuf>,
    snapshot: Option<Arc<Snapshot>>,
    /// Findings of the last analysis and the version they belong to.
    pub findings: Option<(i32, Arc<Vec<Finding>>)>,
    /// The sites that analysis did not check (lessons, history, ...), for hover.
    pub not_checked: Arc<Vec<NotChecked>>,
    /// The sites that analysis checked, each REST call with its own findings, and the version
    /// they belong to: what the code lens plans from ([`crate::analysis::Report::sites`]).
    pub sites: Option<(i32, Arc<crate::analysis::Report>)>,
    /// Bumped on every change; a diagnostics run publishes only if it is still current.
    pub generation: u64,
    /// Findings of the document's Markdown code blocks and spans from its last analysis, so a
    /// re-analysis after an edit re-reads only the code that changed.
    pub units: Arc<Mutex<UnitCache>>,
    /// The version and result id of the diagnostics a pulling client last got
    /// (`textDocument/diagnostic`, [`super::pull`]).
    pub pulled: Option<(i32, String)>,
}

/// Why a change was not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// The change's version is not newer than the stored one.
    Stale { stored: i32, got: i32 },
}

impl Document {
    /// A document opened with `text` at `version`.
    pub fn new(uri: &Uri, language_id: &str, version: i32, text: &str) -> Document {
        let path = uri.to_file_path().map(|p| p.into_owned());
        // A notebook opened as text says `json`; its cells are read by its extension. An agent
        // rule file (`.cursorrules`, `*.mdc`) opens as plain text and is Markdown.
        let notebook = path
            .as_deref()
            .and_then(HostKind::from_path)
            .filter(|k| *k == HostKind::Notebook)
            .or_else(|| path.as_deref().and_then(HostKind::agent_rules));
        let kind = notebook
            .or_else(|| HostKind::from_language_id(language_id))
            .or_else(|| path.as_deref().and_then(HostKind::from_path))
            .unwrap_or(HostKind::Text);
        Document {
            rope: Rope::from_str(text),
            version,
            kind,
            path,
            snapshot: None,
            findings: None,
            not_checked: Arc::default(),
            sites: None,
            generation: 0,
            units: Arc::default(),
            pulled: None,
        }
    }

    /// Applies the changes of one `didChange`, in order, unless `version` is not newer than the
    /// stored one. A change without a range replaces the whole text.
    pub fn apply(
        &mut self,
        version: i32,
        changes: &[TextDocumentContentChangeEvent],
        enc: Encoding,
    ) -> Result<(), Rejected> {
        if version <= self.version {
            return Err(Rejected::Stale {
                stored: self.version,
                got: version,
            });
        }
        for change in changes {
            match change.range {
                None => self.rope = Rope::from_str(&change.text),
                Some(r) => {
                    let start = rope_char(&self.rope, r.start, enc);
                    let end = rope_char(&self.rope, r.end, enc).max(start);
                    self.rope.remove(start..end);
                    self.rope.insert(start, &change.text);
                }
            }
        }
        self.version = version;
        self.snapshot = None;
        self.generation += 1;
        Ok(())
    }

    /// The text and line index of the current version (built once per version).
    pub fn snapshot(&mut self) -> Arc<Snapshot> {
        if let Some(s) = &self.snapshot {
            return s.clone();
        }
        let s = Arc::new(Snapshot::new(self.rope.to_string(), self.version));
        self.snapshot = Some(s.clone());
        s
    }

    /// The sites the current version's analysis did not check (empty until it has finished).
    pub fn current_not_checked(&self) -> Arc<Vec<NotChecked>> {
        match &self.findings {
            Some((v, _)) if *v == self.version => self.not_checked.clone(),
            _ => Arc::default(),
        }
    }

    /// The findings of the current version, if analysis has finished for it.
    pub fn current_findings(&self) -> Option<Arc<Vec<Finding>>> {
        match &self.findings {
            Some((v, f)) if *v == self.version => Some(f.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::{Position, Range};

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range.map(|(a, b)| Range::new(Position::new(a.0, a.1), Position::new(b.0, b.1))),
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn applies_incremental_changes_in_order_and_refuses_stale_ones() {
        let uri: Uri = "file:///w/SKILL.md".parse().unwrap();
        let mut d = Document::new(&uri, "markdown", 1, "ab\ncd\n");
        assert_eq!(d.kind, HostKind::Markdown);
        d.apply(
            2,
            &[
                change(Some(((1, 0), (1, 1))), "X"),
                change(Some(((0, 2), (0, 2))), "é"),
            ],
            Encoding::Utf16,
        )
        .unwrap();
        assert_eq!(d.rope.to_string(), "abé\nXd\n");
        assert_eq!(
            d.apply(2, &[change(None, "zzz")], Encoding::Utf16),
            Err(Rejected::Stale { stored: 2, got: 2 })
        );
        d.apply(3, &[change(None, "new")], Encoding::Utf16).unwrap();
        assert_eq!(d.snapshot().text, "new");
    }
}
