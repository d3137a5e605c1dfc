//! Release history: what release notes, a changelog or a migration note say a release removed,
//! renamed or deprecated is history, not a call. Read from the text, never from a file name:
//! - everything under a release heading of a document that is release notes (`# NetBox v4.1`,
//!   `## v4.1.0 (2024-09-03)`, `## [1.2.0] - 2024-01-01`, `# Release Notes`, `# Changelog`);
//! - anywhere, the old name of a rename or removal: "Removed the following endpoints:" above a
//!   list, "`x` was renamed", "renamed `x` to `y`" (`x` only: `y` is checked), an `Old` column.
//!
//! A current page that tells readers to use something that no longer works is not history: it
//! has no such words, and stays checked.

use super::cues::Cue;
use super::{quote, Doc, Piece, SiteCx, SiteFilter, Verdict, Why};
use regex::Regex;
use std::sync::OnceLock;

pub(super) fn prepare(doc: &Doc<'_>) -> Option<Box<dyn SiteFilter>> {
    let release = doc
        .outline
        .heading_texts(doc.text)
        .any(|h| matches!(heading(h), Some(Release::Named | Release::Dated)))
        || doc
            .outline
            .heading_texts(doc.text)
            .any(|h| heading(h).is_some())
            && doc.outline.heading_texts(doc.text).any(is_release_section);
    Some(Box::new(History { release }))
}

struct History {
    /// The document is release notes or a changelog (its headings say so).
    release: bool,
}

impl SiteFilter for History {
    fn read(&self, cx: &SiteCx<'_>) -> Verdict {
        if self.release {
            if let Some(h) = cx
                .around
                .headings
                .iter()
                .find(|h| heading(&h.text).is_some())
            {
                return Verdict::NotACall(under(h));
            }
        }
        match cx.label() {
            Some(l) if l.cue == Cue::Old => Verdict::NotACall(l.why()),
            _ => Verdict::Call,
        }
    }

    fn state(&self) -> u64 {
        u64::from(self.release)
    }
}

fn under(h: &Piece) -> Why {
    Why {
        text: format!("under the heading {} of release notes", quote(&h.text)),
        marker: Some(h.at..h.at + h.text.len()),
    }
}

/// What kind of release heading a heading is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Release {
    /// "Release Notes", "Changelog", "Unreleased", "What's new".
    Named,
    /// A version with a date (`v4.1.0 (2024-09-03)`, `[1.2.0] - 2024-01-01`, `(May 2026)`).
    Dated,
    /// A version alone (`NetBox v4.1`, `Version 2.6`).
    Version,
}

/// The release heading `text` (a heading's text) is, if any.
fn heading(text: &str) -> Option<Release> {
    static NAMED: OnceLock<Regex> = OnceLock::new();
    static VERSION: OnceLock<Regex> = OnceLock::new();
    static DATE: OnceLock<Regex> = OnceLock::new();
    let named = NAMED.get_or_init(|| {
        Regex::new(r"(?i)^\W*(?:release\s+notes|changelog|change\s+log|release\s+history|version\s+history|unreleased|what[’']?s\s+new)\b")
            .expect("valid pattern")
    });
    let version = VERSION.get_or_init(|| {
        Regex::new(r"(?i)^\W*\[?\s*(?:netbox\s+)?(?:version\s+|release\s+)?v?\d+\.\d+(?:\.\d+)?(?:[-.]?(?:alpha|beta|rc|dev)\.?\d*)?\s*\]?(?:\([^)]*\))?\s*(?:\([^)]*\))?\s*(?:[-–—:]\s*\S.*)?$")
            .expect("valid pattern")
    });
    let date = DATE.get_or_init(|| {
        Regex::new(r"(?i)\d{4}-\d{2}-\d{2}|\((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{4}\)|\((?:future|unreleased|tbd)\)")
            .expect("valid pattern")
    });
    let t = text.trim();
    if named.is_match(t) {
        Some(Release::Named)
    } else if version.is_match(t) {
        Some(if date.is_match(t) {
            Release::Dated
        } else {
            Release::Version
        })
    } else {
        None
    }
}

/// A section heading of release notes (`Enhancements`, `Bug Fixes`, `Breaking Changes`,
/// Keep a Changelog's `Added` / `Removed`, ...).
fn is_release_section(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^\W*(?:enhancements|bug\s+fixes|new\s+features|breaking\s+changes|(?:rest\s+|graphql\s+)?api\s+changes|other\s+changes|deprecations|added|changed|fixed|removed|security)\W*$")
            .expect("valid pattern")
    })
    .is_match(text.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_headings() {
        for (text, want) in [
            ("NetBox v4.1", Some(Release::Version)),
            ("v4.1.0 (2024-09-03)", Some(Release::Dated)),
            ("v4.7.0-beta1 (2026-08-17)", Some(Release::Dated)),
            ("[1.2.0] - 2024-01-01", Some(Release::Dated)),
            (
                "[Version 4.6](./version-4.6.md) (May 2026)",
                Some(Release::Dated),
            ),
            ("Release Notes", Some(Release::Named)),
            ("Changelog", Some(Release::Named)),
            ("NetBox 4.0+ filters", None),
            ("Recent changes", None),
            ("Filtering", None),
        ] {
            assert_eq!(heading(text), want, "{text:?}");
        }
        assert!(is_release_section("Bug Fixes"));
        assert!(!is_release_section("Finding devices"));
    }
}
