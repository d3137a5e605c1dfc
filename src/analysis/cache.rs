//! The Markdown block cache: the result of each unit (code block or span) of one document from
//! its last analysis, keyed by everything that result depends on: the unit's code, its map to
//! the host (relative to its start) and the text around it that the site filters read
//! ([`Around`], relative); and, for the whole cache, the knowledge and what the filters took
//! from the whole document. An edit to the sentence above a fence changes that fence's key
//! (its reading as a call or a lesson may change); an edit elsewhere leaves it.

use super::check::Checked;
use super::Knowledge;
use crate::extract::markdown::{Unit, UnitKind};
use crate::extract::OffsetMap;
use crate::intent::{Around, Filters, ReadAs};
use std::collections::HashMap;

/// Identity of a unit's code and surroundings: equal keys give equal results up to a shift of
/// host offsets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct UnitKey {
    kind: UnitKind,
    body: String,
    /// The unit's map relative to the start of its range.
    map: OffsetMap,
    /// The unit's surroundings relative to the start of its range.
    around: Around,
    /// The endpoint named above a fence, with its distance back from the unit's start and its
    /// length: the unit's sites read it (a bare `params = {...}`).
    above: Option<(crate::extract::CompactString, usize, usize)>,
}

impl UnitKey {
    /// The key of `unit` standing in `around`.
    pub fn of(unit: &Unit, around: &Around) -> UnitKey {
        UnitKey {
            kind: unit.kind.clone(),
            body: unit.body.clone(),
            map: unit.map.relative_to(unit.range.start),
            around: around.relative_to(unit.range.start),
            above: unit
                .above
                .as_ref()
                .map(|(t, r)| (t.clone(), unit.range.start.saturating_sub(r.start), r.len())),
        }
    }
}

/// Results of the Markdown units of one document from its last analysis. Filled and pruned by
/// [`super::analyze_cached`]; emptied when the knowledge changes or the site filters' reading
/// of the whole document does (it starts or stops being about Nautobot alone, or release
/// notes, say).
#[derive(Debug, Default)]
pub struct UnitCache {
    knowledge: Knowledge,
    /// What the site filters took from the whole document when the entries were made.
    filters: Vec<(ReadAs, u64)>,
    /// Whether the entries keep their sites ([`super::analyze_kept`]).
    sites: bool,
    /// Each unit's result and the host offset its unit started at.
    pub(super) entries: HashMap<UnitKey, (usize, Checked)>,
}

impl UnitCache {
    /// Number of units held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no unit is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Empties the cache unless it was made with the same `knowledge` and filter `state`,
    /// and with the sites kept or not as `sites` asks.
    pub(super) fn keep_if(&mut self, knowledge: &Knowledge, filters: &Filters, sites: bool) {
        let state = filters.state();
        if !self.knowledge.same(knowledge) || self.filters != state || self.sites != sites {
            self.entries.clear();
            self.knowledge = knowledge.clone();
            self.filters = state;
            self.sites = sites;
        }
    }
}
