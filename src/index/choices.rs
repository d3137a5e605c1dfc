//! [`ChoiceSets`]: the deduplicated choice sets of an index ([`super::FilterIndex::choice_sets`]),
//! read like a `Vec<ChoiceSet>`. The shipped indexes keep each set deflated apart (`build.rs`,
//! [`super::split`]) and decode it on first use: a check reads the one or two sets of the
//! filters it is given, not the ~40 KB of all of them (decoding every set of 4.7.3 was ~1.5 M
//! instructions, a third of a hook's check).

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
    /// When decoded lazily: the set's JSON (as the index file holds it) as a raw deflate stream
    /// in the shipped blob, and its inflated length in bytes.
    raw: Option<(&'static [u8], u32)>,
}

impl Lazy {
    /// The set; one that does not inflate or decode (prevented by the test that compares every
    /// shipped index with its whole decode) has no choices.
    fn get(&self) -> &ChoiceSet {
        self.data.get_or_init(|| {
            let Some((bytes, len)) = self.raw else {
                return ChoiceSet {
                    choices: Vec::new(),
                };
            };
            super::split::inflate(bytes, len)
                .and_then(|t| String::from_utf8(t).ok())
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or(ChoiceSet {
                    choices: Vec::new(),
                })
        })
    }
}

impl ChoiceSets {
    /// Sets each decoded from a raw deflate stream of its JSON (`(stream, inflated length in
    /// bytes)`) on first use ([`super::split`]).
    pub(super) fn deflated(raw: impl IntoIterator<Item = (&'static [u8], u32)>) -> ChoiceSets {
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
