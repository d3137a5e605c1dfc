//! The finding model shared by every check: what the core returns and what `cli/` and `server/`
//! render. Positions are byte offsets into the host document (UTF-8); conversion to line/column
//! (UTF-16 for LSP by default) happens only at the edges.

use compact_str::CompactString;
use serde::Serialize;
use std::ops::Range;
use std::sync::Arc;

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

/// What NetBox does with a call a finding is about: the fact live verification, upgrade
/// readiness and the agent tools read (never the message). Each code's usual answer is in its
/// catalogue row ([`crate::catalogue::Code::netbox`]); a finding whose answer differs from its
/// code's carries its own in [`Facts::does`] ([`crate::catalogue::does`] reads both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Does {
    /// Ignores the filter or parameter: HTTP 200 with the objects the call would get without it.
    Ignores,
    /// Refuses the call: HTTP 400 (a value, a choice, a document its schema rejects) or 404 (no
    /// such endpoint).
    Refuses,
    /// Answers HTTP 200 with no objects: the value matches nothing.
    MatchesNothing,
    /// Faults: HTTP 500, or a wrong answer for every value (a bug of that release).
    Faults,
    /// Cuts the list at `MAX_PAGE_SIZE` without saying so (GraphQL lists without `pagination`
    /// from 4.5.5).
    Truncates,
    /// Answers the call as written; the finding informs (a negation matching nulls, a
    /// custom-field match).
    Answers,
    /// Depends on the instance, the value or the client, or the finding is about this tool
    /// (not checked, a stale index): no one answer a count could confirm.
    Varies,
}

/// Which advice a finding's message ends with ([`Advice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdviceKind {
    /// Select another shipped release (`--netbox-version`): the finding depends on the
    /// release picked.
    SelectRelease,
    /// Rebuild the index from the NetBox it was built from, which may run another release.
    RebuildIndex,
    /// Build an index from the instance's OpenAPI document (an index of unknown origin).
    BuildIndex,
}

/// The advice part of a finding's message: bytes `from..from + len` of [`Finding::message`],
/// apart from the statement around them (`rest::versions::switch_advice`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Advice {
    pub kind: AdviceKind,
    /// Byte offset in the message where the advice starts (its leading space included).
    /// 32 bits, as `len`: a message is short, and every finding carries the room for an advice.
    pub from: u32,
    /// Its length in bytes.
    pub len: u32,
}

impl Advice {
    /// Appends advice `text` of `kind` to `message`, saying where it went (`None` for an empty
    /// text; the text is appended unmarked to a message of 4 GiB or more).
    pub fn push(message: &mut String, kind: AdviceKind, text: &str) -> Option<Advice> {
        if text.is_empty() {
            return None;
        }
        let from = u32::try_from(message.len()).ok();
        message.push_str(text);
        Some(Advice {
            kind,
            from: from?,
            len: u32::try_from(text.len()).ok()?,
        })
    }
}

/// The facts a finding rests on, as typed fields: what consumers (live verification, upgrade
/// readiness, the hook, the MCP server) read instead of the message. Every field is optional:
/// a check fills what it knows. Not part of any output format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// The endpoint the call goes to: the REST index key (`dcim/devices`; the key as written
    /// when no release has it, `extras/object-types`), or a GraphQL document's root field
    /// (`service_list`). Shared by the findings of one call (one allocation per call).
    pub endpoint: Option<Arc<str>>,
    /// The filter or query parameter concerned, as written (`role__slug`, `exclude`). Up to 24
    /// bytes are held inline: most findings' facts make no allocation (they are made for every
    /// finding, and `check`'s writers drop them unread).
    pub filter: Option<CompactString>,
    /// Its value as written in the host (`"Active"`, `zz-00`), when the finding is on one pair
    /// (inline up to 24 bytes, as [`Facts::filter`]).
    pub value: Option<CompactString>,
    /// The NetBox release the finding was made against (`4.7.3`; empty knowledge: `None`).
    /// Shared by the findings of one call (one allocation per call).
    pub release: Option<Arc<str>>,
    /// What NetBox does, when it differs from the code's catalogue row
    /// ([`crate::catalogue::Code::netbox`]).
    pub does: Option<Does>,
    /// Where the message's advice starts, and which advice it is.
    pub advice: Option<Advice>,
    /// The release-note entry the message cites (`release notes 4.7.0, netbox#20285: …`), so a
    /// consumer that cites release notes does not cite it twice.
    pub cites: Option<&'static str>,
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
    /// The NetBox releases the fixed call is known to work on (`["4.6.8", "4.7.3"]`), when a
    /// check compared releases (upgrade readiness); empty otherwise. Not part of any output.
    #[serde(skip)]
    pub releases: Vec<String>,
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

/// One problem found in a host document. Two findings are equal when they say the same (range,
/// code, severity, message, fixes, proof): their [`Facts`] are what they rest on, so findings
/// on a repeated filter that say the same are one.
#[derive(Debug, Clone, Serialize)]
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
    /// What the finding rests on, typed ([`Facts`]); not serialised.
    #[serde(skip)]
    pub facts: Facts,
}

impl PartialEq for Finding {
    fn eq(&self, other: &Finding) -> bool {
        self.range == other.range
            && self.code == other.code
            && self.severity == other.severity
            && self.message == other.message
            && self.fixes == other.fixes
            && self.proof == other.proof
    }
}

impl Eq for Finding {}

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
            facts: Facts::default(),
        }
    }

    /// The order findings are reported in, everywhere (CLI, server, hook): by host byte range
    /// (start, then end), then code. `findings.sort_by_key(Finding::sort_key)`.
    pub fn sort_key(&self) -> (usize, usize, &'static str) {
        (self.range.start, self.range.end, self.code)
    }

    /// Sorts `findings` into the report order ([`Finding::sort_key`]), stably: the result of
    /// `findings.sort_by_key(Finding::sort_key)`. The keys and positions are sorted, then each
    /// finding is moved once into its place: a stable sort of the findings themselves (~240
    /// bytes each) moved them at each merge and took a scratch buffer of half of them (6.4 M
    /// instructions of memcpy for the 14,324 findings of a file of 10,000 tool calls). A key is
    /// the range packed in one `u64` and the finding's index (16 bytes; the codes compared
    /// only between equal ranges), so that the keys and the sort's scratch, which stand beside
    /// every finding and call of the file at the check's peak of memory, are 4.6 MB rather than
    /// 10.4 MB for the 143,939 findings of a file of 100,000 calls.
    pub fn sort_all(findings: &mut [Finding]) {
        if findings.is_sorted_by_key(Finding::sort_key) {
            return;
        }
        let fits = |n: usize| u32::try_from(n).is_ok();
        if !fits(findings.len())
            || !findings
                .iter()
                .all(|f| fits(f.range.start) && fits(f.range.end))
        {
            return Finding::sort_wide(findings);
        }
        let mut keys: Vec<(u64, u32)> = findings
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (
                    ((f.range.start as u64) << 32) | f.range.end as u64,
                    i as u32,
                )
            })
            .collect();
        let after = |a: &(u64, u32), b: &(u64, u32)| {
            a.0.cmp(&b.0)
                .then_with(|| findings[a.1 as usize].code.cmp(findings[b.1 as usize].code))
        };
        // The findings come a site after another, each a few places from where it goes: an
        // insertion sort (stable: a key moves only past greater ones) puts them in order in
        // one pass, within a budget of moves linear in their count; past it, the stable sort
        // of what is left half done (equal keys still in their first order). The stable sort
        // alone merged runs of a few findings: 29.0 M instructions for the 143,939 findings
        // of 100,000 calls (an unstable sort of the keys took 5.0 M on 10,000).
        let mut budget = 8 * keys.len();
        let mut done = true;
        for i in 1..keys.len() {
            let k = keys[i];
            let mut j = i;
            while j > 0 && after(&keys[j - 1], &k) == std::cmp::Ordering::Greater {
                if budget == 0 {
                    done = false;
                    break;
                }
                budget -= 1;
                keys[j] = keys[j - 1];
                j -= 1;
            }
            keys[j] = k;
            if !done {
                break;
            }
        }
        if !done {
            keys.sort_by(after);
        }
        // `findings[k]` becomes the finding at `keys[k].1`, one cycle of the permutation at a
        // time (a place done is marked `keys[k].1 == k`).
        for start in 0..keys.len() {
            let mut at = start;
            loop {
                let next = keys[at].1 as usize;
                keys[at].1 = at as u32;
                if next == start || next == at {
                    break;
                }
                findings.swap(at, next);
                at = next;
            }
        }
    }

    /// [`Finding::sort_all`] with keys of full width (offsets or counts past `u32`).
    fn sort_wide(findings: &mut [Finding]) {
        let mut keys: Vec<(usize, usize, &'static str, usize)> = findings
            .iter()
            .enumerate()
            .map(|(i, f)| (f.range.start, f.range.end, f.code, i))
            .collect();
        keys.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
        let mut from: Vec<usize> = keys.into_iter().map(|k| k.3).collect();
        for start in 0..from.len() {
            let mut at = start;
            loop {
                let next = from[at];
                from[at] = at;
                if next == start || next == at {
                    break;
                }
                findings.swap(at, next);
                at = next;
            }
        }
    }

    /// The message without its advice ([`Facts::advice`]): what NetBox does and the working
    /// form.
    pub fn statement(&self) -> std::borrow::Cow<'_, str> {
        let m = &self.message;
        match self.facts.advice {
            Some(a) => match (
                m.get(..a.from as usize),
                m.get(a.from as usize + a.len as usize..),
            ) {
                (Some(before), Some(after)) => format!("{before}{after}").into(),
                _ => m.into(),
            },
            None => m.into(),
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
        let fix = Fix {
            title: title.into(),
            edits: vec![Edit {
                range,
                new_text: new_text.into(),
            }],
            certain,
            releases: Vec::new(),
        };
        // Most findings have one fix: room for exactly one, not the four a first push makes,
        // allocated at once (`reserve_exact` on the empty vector went through its growth path).
        if self.fixes.is_empty() {
            self.fixes = vec![fix];
        } else {
            self.fixes.push(fix);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every finding of a file is held until its output: their size is the check's memory
    /// (143,939 findings in a file of 100,000 tool calls).
    #[test]
    fn sizes() {
        assert!(
            std::mem::size_of::<Finding>() <= 224,
            "{}",
            std::mem::size_of::<Finding>()
        );
        assert!(std::mem::size_of::<Facts>() <= 112);
    }

    /// `sort_all` gives `sort_by_key(Finding::sort_key)`'s order, equal keys in their order.
    #[test]
    fn sort_all_is_the_stable_sort() {
        let codes = ["b-code", "a-code", "c-code"];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        // Random (the budget of the insertion sort spent: the stable sort finishes) and
        // nearly in order (a few places off: the insertion sort alone), with equal keys.
        for (n, near) in [
            (0, false),
            (1, false),
            (2, false),
            (5, false),
            (40, false),
            (300, false),
            (3000, false),
            (300, true),
            (3000, true),
        ] {
            let findings: Vec<Finding> = (0..n)
                .map(|i| {
                    let start = if near { i + next() % 6 } else { next() % 20 };
                    let end = start + next() % 3;
                    Finding::new(
                        start..end,
                        codes[next() % 3],
                        Severity::Error,
                        format!("{i}"),
                    )
                })
                .collect();
            let mut expected = findings.clone();
            expected.sort_by_key(Finding::sort_key);
            let mut got = findings.clone();
            Finding::sort_all(&mut got);
            assert_eq!(got, expected);
            Finding::sort_all(&mut got);
            assert_eq!(got, expected);
            // Offsets past `u32` (the keys of full width), in the same order.
            let far = |v: &[Finding]| -> Vec<Finding> {
                v.iter()
                    .map(|f| Finding {
                        range: f.range.start + (1 << 33)..f.range.end + (1 << 33),
                        ..f.clone()
                    })
                    .collect()
            };
            let mut got = far(&findings);
            Finding::sort_all(&mut got);
            assert_eq!(got, far(&expected));
        }
    }
}
