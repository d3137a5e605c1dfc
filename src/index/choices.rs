//! [`ChoiceSets`]: the deduplicated choice sets of an index ([`super::FilterIndex::choice_sets`]),
//! read like a `Vec<ChoiceSet>`. The shipped indexes keep each set in a section of their own
//! (`build.rs`, [`super::split`]) and read it on first use: a check reads the one or two sets
//! of the filters it is given, not all ~80 of them.

use super::split::Le;
use super::ChoiceSet;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::OnceLock;

/// The choice sets of an index; [`super::Parameter::choices`] indexes into it. In index files
/// a JSON array of [`ChoiceSet`].
#[derive(Clone, Default)]
pub struct ChoiceSets {
    sets: Vec<Lazy>,
}

/// One set, decoded (at once, or from `raw` on first use).
#[derive(Clone, Default)]
struct Lazy {
    data: OnceLock<ChoiceSet>,
    /// When read lazily: the set's section in the shipped index ([`super::split`]).
    raw: Option<Le>,
}

impl Lazy {
    /// The set; one whose section does not read (prevented by the test that compares every
    /// shipped index with its whole decode) has no choices.
    fn get(&self) -> &ChoiceSet {
        self.data.get_or_init(|| {
            let strings = self.raw.and_then(|mut le| le.strings());
            let choices = strings.map_or_else(Vec::new, |s| {
                (0..s.len() / 2)
                    .map_while(|i| Some((s.get(2 * i)?.to_string(), s.get(2 * i + 1)?.to_string())))
                    .collect()
            });
            ChoiceSet { choices }
        })
    }
}

impl ChoiceSets {
    /// Sets each read from its section of a shipped index on first use ([`super::split`]).
    pub(super) fn shipped(raw: impl IntoIterator<Item = Le>) -> ChoiceSets {
        ChoiceSets {
            sets: raw
                .into_iter()
                .map(|r| Lazy {
                    data: OnceLock::new(),
                    raw: Some(r),
                })
                .collect(),
        }
    }

    /// The set at `i`, if any.
    pub fn get(&self, i: usize) -> Option<&ChoiceSet> {
        self.sets.get(i).map(Lazy::get)
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// True when there is no set.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The sets in order (each decoded).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ChoiceSet> {
        self.sets.iter().map(Lazy::get)
    }
}

impl From<Vec<ChoiceSet>> for ChoiceSets {
    fn from(sets: Vec<ChoiceSet>) -> ChoiceSets {
        ChoiceSets {
            sets: sets
                .into_iter()
                .map(|s| Lazy {
                    data: OnceLock::from(s),
                    raw: None,
                })
                .collect(),
        }
    }
}

impl PartialEq for ChoiceSets {
    /// Same sets in the same order (lazy ones decoded).
    fn eq(&self, other: &ChoiceSets) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for ChoiceSets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for ChoiceSets {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for ChoiceSets {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ChoiceSets, D::Error> {
        Vec::<ChoiceSet>::deserialize(d).map(ChoiceSets::from)
    }
}
