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
            if let Some(h) = release_section(&cx.around.headings) {
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

    /// Outside release notes only the label says history.
    fn unlabelled_call(&self, _site: &crate::extract::Site) -> bool {
        !self.release
    }
}

/// The release heading whose section a piece stands in, read from its headings (outermost
/// first): a version heading (`## v4.1.0 (2024-09-03)`) makes its whole section history; a
/// named one (`# Changelog`, `## Unreleased`) only where no other heading stands between it and
/// the piece, release-notes section names (`Bug Fixes`, `Added`) aside, so `## Usage` under
/// `# Changelog` is current text, checked like any page (issue 31 §5).
fn release_section(headings: &[Piece]) -> Option<&Piece> {
    // A version heading covers everything under it, its subsections too (`### New Features`,
    // `#### GraphQL API` under `## v3.0.0 (2021-08-30)`).
    if let Some(h) = headings
        .iter()
        .find(|h| matches!(heading(&h.text), Some(Release::Version | Release::Dated)))
    {
        return Some(h);
    }
    // A named one (`# Changelog`, `## Unreleased`) only its own text and its release-notes
    // sections, not another section under it (`## Usage`).
    let h = headings
        .iter()
        .rev()
        .find(|h| !is_release_section(&h.text))?;
    heading(&h.text).is_some().then_some(h)
}

fn under(h: &Piece) -> Why {
    Why {
        text: format!("under the heading {} of release notes", quote(&h.text)),
        marker: Some(h.host_range()),
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
    let t = text.trim().to_lowercase();
    let bare = t.trim_start_matches(|c: char| !c.is_alphanumeric());
    let named = [
        "release notes",
        "changelog",
        "change log",
        "release history",
        "version history",
        "unreleased",
        "what's new",
        "what’s new",
    ];
    // The name alone, or with what it is of (`Release Notes for 4.1`, `Changelog: v2`);
    // "Changelog Messages" (a section of NetBox's REST guide) names a feature, not history.
    let names_it = |rest: &str| {
        let rest = rest.trim_start();
        rest.is_empty()
            || rest.starts_with([':', '-', '–', '—', '(', '['])
            || ["for ", "in ", "of ", "since "]
                .iter()
                .any(|w| rest.starts_with(w))
    };
    if named
        .iter()
        .any(|n| bare.strip_prefix(n).is_some_and(names_it))
    {
        return Some(Release::Named);
    }
    let rest = version_prefix(bare)?;
    // After the version: nothing, a link target and a date in parentheses, or a dash or a
    // colon and a date or a title (`[1.2.0] - 2024-01-01`); no more words.
    let mut rest = rest.trim_start_matches(']').trim_start();
    while let Some(inner) = rest.strip_prefix('(') {
        rest = inner.split_once(')').map_or("", |(_, r)| r).trim_start();
    }
    let tail_ok = rest.is_empty() || rest.starts_with(['-', '–', '—', ':']);
    if !tail_ok {
        return None;
    }
    Some(if dated(&t) {
        Release::Dated
    } else {
        Release::Version
    })
}

/// What follows a heading's version (`netbox v4.1.0-beta1`, `version 2.6`, `[1.2.0`), or
/// `None` when it does not start with one.
fn version_prefix(t: &str) -> Option<&str> {
    let mut t = t.trim_start_matches('[').trim_start();
    for word in ["netbox ", "version ", "release "] {
        t = t.strip_prefix(word).unwrap_or(t).trim_start();
    }
    let t = t.strip_prefix('v').unwrap_or(t);
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let major = digits(t);
    let after_major = t.get(major..)?.strip_prefix('.')?;
    let minor = digits(after_major);
    if major == 0 || minor == 0 {
        return None;
    }
    let mut rest = &after_major[minor..];
    if let Some(p) = rest.strip_prefix('.').filter(|p| digits(p) > 0) {
        rest = &p[digits(p)..];
    }
    for pre in ["alpha", "beta", "rc", "dev"] {
        if let Some(p) = rest
            .strip_prefix(['-', '.'])
            .and_then(|p| p.strip_prefix(pre))
        {
            let p = p.trim_start_matches('.');
            rest = &p[digits(p)..];
        }
    }
    (!rest.starts_with(char::is_alphanumeric)).then_some(rest)
}

/// True when a heading holds a release date: `2024-09-03`, `(May 2026)`, `(FUTURE)`.
fn dated(t: &str) -> bool {
    let b = t.as_bytes();
    let iso = b.windows(10).any(|w| {
        w.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
    });
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month_year = t.split('(').skip(1).any(|p| {
        let inner = p.split(')').next().unwrap_or("");
        let mut words = inner.split_whitespace();
        let (Some(m), Some(y)) = (words.next(), words.next()) else {
            return false;
        };
        months.iter().any(|x| m.starts_with(x))
            && y.len() == 4
            && y.bytes().all(|c| c.is_ascii_digit())
    });
    iso || month_year
        || ["(future)", "(unreleased)", "(tbd)"]
            .iter()
            .any(|w| t.contains(w))
}

/// A section heading of release notes (`Enhancements`, `Bug Fixes`, `Breaking Changes`,
/// Keep a Changelog's `Added` / `Removed`, ...).
fn is_release_section(text: &str) -> bool {
    let t = text
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    [
        "enhancements",
        "bug fixes",
        "new features",
        "breaking changes",
        "api changes",
        "rest api changes",
        "graphql api changes",
        "other changes",
        "deprecations",
        "added",
        "changed",
        "fixed",
        "removed",
        "security",
    ]
    .contains(&t.as_str())
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
            ("Release Notes for NetBox 4.1", Some(Release::Named)),
            ("What's New in v4.0", Some(Release::Named)),
            ("Changelog Messages", None),
            ("Unreleased features", None),
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
