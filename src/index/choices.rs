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
    /// [`ChoiceSets::sketches`] of the set, made on first use.
    sketches: OnceLock<Box<[ChoiceSketch]>>,
}

/// One text of a choice (its value or its label) as the near-value scan of `invalid-choice`
/// reads it (`rest::choices`), made once per set ([`ChoiceSets::sketches`]) so that a wrong
/// value is not compared byte by byte with every choice of a long set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sketch {
    /// Length in bytes.
    pub len: u32,
    /// True when the text is ASCII.
    pub ascii: bool,
    /// True when `bytes`, `repeats` and `head` are made: an ASCII text of 1 to 64 bytes.
    pub bounded: bool,
    /// Bit `c` set when the ASCII-lowercased text holds byte `c`.
    pub bytes: u128,
    /// How many bytes of the lowercased text repeat an earlier byte of it (its length less
    /// the number of distinct bytes).
    pub repeats: u32,
    /// Its first four bytes lowercased (zero past its end).
    pub head: [u8; 4],
}

impl Sketch {
    /// The sketch of `s`.
    pub fn of(s: &str) -> Sketch {
        let b = s.as_bytes();
        let ascii = b.is_ascii();
        let bounded = ascii && !b.is_empty() && b.len() <= 64;
        let mut sk = Sketch {
            len: u32::try_from(b.len()).unwrap_or(u32::MAX),
            ascii,
            bounded,
            ..Sketch::default()
        };
        if bounded {
            for (i, &c) in b.iter().enumerate() {
                let c = c.to_ascii_lowercase();
                sk.bytes |= 1u128 << c;
                if let Some(h) = sk.head.get_mut(i) {
                    *h = c;
                }
            }
            sk.repeats = sk.len - sk.bytes.count_ones();
        }
        sk
    }
}

/// The [`Sketch`]es of one choice `(value, label)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChoiceSketch {
    /// The value's.
    pub value: Sketch,
    /// The label's.
    pub label: Sketch,
    /// True when the label is the value but for ASCII case (`Active`, `active`).
    pub same: bool,
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
                    sketches: OnceLock::new(),
                })
                .collect(),
        }
    }

    /// The set at `i`, if any.
    pub fn get(&self, i: usize) -> Option<&ChoiceSet> {
        self.sets.get(i).map(Lazy::get)
    }

    /// The [`ChoiceSketch`] of each choice of the set at `i` (same order as its `choices`),
    /// made on first use; `None` when there is no such set.
    pub fn sketches(&self, i: usize) -> Option<&[ChoiceSketch]> {
        let lazy = self.sets.get(i)?;
        Some(lazy.sketches.get_or_init(|| {
            lazy.get()
                .choices
                .iter()
                .map(|(v, l)| ChoiceSketch {
                    value: Sketch::of(v),
                    label: Sketch::of(l),
                    same: l.eq_ignore_ascii_case(v),
                })
                .collect()
        }))
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
                    sketches: OnceLock::new(),
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
