//! [`ResponseFields`]: the field names of the objects each endpoint answers with (the names
//! `?fields=` and `?omit=` take), from the OpenAPI response schema (`GET /api/<app>/<slug>/`
//! 200 → `Paginated<Model>List` → `results` items → `<Model>.properties`; the detail view
//! `/{id}/` answers the same serializer).
//!
//! Interned per index: each distinct name is stored once however many endpoints have it, and
//! each distinct set of names once however many endpoints share it. NetBox 4.7.3: 139 list
//! endpoints with a response schema, 2,515 names in all, 495 distinct names (5,498 bytes) in
//! 134 distinct sets (2,440 positions); on the heap about 13 KB, where one `String` per name
//! would take about 88 KB (4.3.3: 2,107 names, 433 distinct, 121 sets). In memory a set is a
//! run of 16-bit positions into one name buffer; in index files
//! `{"names": ["airflow", ...], "sets": [[0, 4, 9, ...], ...]}` and each endpoint's
//! `"fields": <set>`.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Most distinct names an index may hold (positions are 16 bits); a real NetBox has ~500.
const MAX_NAMES: usize = u16::MAX as usize;

/// The response field names of every endpoint of one index (see the module docs).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ResponseFields {
    /// Every distinct name, in byte order, concatenated.
    names: String,
    /// End (byte offset into `names`) of each name.
    name_ends: Vec<u32>,
    /// Every set's name positions, ascending within a set, sets one after another.
    ids: Vec<u16>,
    /// End (offset into `ids`) of each set.
    set_ends: Vec<u32>,
}

impl std::fmt::Debug for ResponseFields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseFields")
            .field("names", &self.name_ends.len())
            .field("sets", &self.set_ends.len())
            .finish()
    }
}

/// One endpoint's field names ([`ResponseFields::set`]), in byte order.
#[derive(Clone, Copy)]
pub struct FieldSet<'a> {
    table: &'a ResponseFields,
    ids: &'a [u16],
}

impl<'a> FieldSet<'a> {
    /// True when the objects have a field called `name` (exact; one binary search).
    pub fn contains(&self, name: &str) -> bool {
        self.ids
            .binary_search_by(|&i| self.table.name(i as usize).cmp(name))
            .is_ok()
    }

    /// The names, in byte order.
    pub fn names(&self) -> impl Iterator<Item = &'a str> + 'a {
        let table = self.table;
        self.ids.iter().map(move |&i| table.name(i as usize))
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True for an object without fields (never for a NetBox model).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

impl ResponseFields {
    /// True when no endpoint has field names (an index built before they were indexed, or
    /// from a document without response schemas).
    pub fn is_empty(&self) -> bool {
        self.set_ends.is_empty()
    }

    /// Number of distinct names.
    pub fn name_count(&self) -> usize {
        self.name_ends.len()
    }

    /// Number of distinct sets.
    pub fn set_count(&self) -> usize {
        self.set_ends.len()
    }

    /// Bytes held on the heap (names, positions and their offsets).
    pub fn heap_bytes(&self) -> usize {
        self.names.capacity()
            + self.name_ends.capacity() * 4
            + self.ids.capacity() * 2
            + self.set_ends.capacity() * 4
    }

    fn name(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.name_ends[i - 1] as usize
        };
        &self.names[start..self.name_ends[i] as usize]
    }

    /// Set number `set` (an endpoint's `fields`); `None` when there is no such set.
    pub fn set(&self, set: u32) -> Option<FieldSet<'_>> {
        let k = set as usize;
        let end = *self.set_ends.get(k)? as usize;
        let start = if k == 0 {
            0
        } else {
            self.set_ends[k - 1] as usize
        };
        Some(FieldSet {
            table: self,
            ids: self.ids.get(start..end)?,
        })
    }

    /// The table of a shipped index, copied out of its section (see [`super::split`]);
    /// `None` when the section does not read.
    pub(super) fn shipped(mut le: super::split::Le) -> Option<ResponseFields> {
        let (names, name_ends) = le.strings()?.parts();
        let sets = le.u32()? as usize;
        let set_ends = le.u32s(sets)?.collect();
        let ids = le.u32()? as usize;
        let ids = le
            .bytes(ids.checked_mul(2)?)?
            .chunks_exact(2)
            .map(|w| u16::from_le_bytes([w[0], w[1]]))
            .collect();
        Some(ResponseFields {
            names: names.to_string(),
            name_ends: name_ends.collect(),
            ids,
            set_ends,
        })
    }

    /// Interns `sets` (one per endpoint, in any order): returns the table and, for each input
    /// set, its set number. Equal sets get one number. `None` when there are more than 65,535
    /// distinct names or the buffers outgrow 32-bit offsets.
    pub fn intern(sets: &[BTreeSet<String>]) -> Option<(ResponseFields, Vec<u32>)> {
        let all: BTreeSet<&str> = sets.iter().flatten().map(String::as_str).collect();
        if all.len() > MAX_NAMES {
            return None;
        }
        let position: BTreeMap<&str, u16> = all
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, i as u16))
            .collect();
        let mut out = ResponseFields::default();
        for n in &all {
            out.names.push_str(n);
            out.name_ends.push(u32::try_from(out.names.len()).ok()?);
        }
        let mut numbers: BTreeMap<Vec<u16>, u32> = BTreeMap::new();
        let mut given = Vec::with_capacity(sets.len());
        for set in sets {
            // BTreeSet order is byte order, so the positions come out ascending.
            let ids: Vec<u16> = set.iter().map(|n| position[n.as_str()]).collect();
            let next = u32::try_from(numbers.len()).ok()?;
            let number = *numbers.entry(ids.clone()).or_insert_with(|| {
                out.ids.extend_from_slice(&ids);
                out.set_ends.push(out.ids.len() as u32);
                next
            });
            if u32::try_from(out.ids.len()).is_err() {
                return None;
            }
            given.push(number);
        }
        Some((out, given))
    }
}

/// The file form: `{"names": [...], "sets": [[...], ...]}` (written; read by [`TableVisitor`]).
#[derive(Serialize)]
struct Wire {
    names: Vec<String>,
    sets: Vec<Vec<u16>>,
}

impl Serialize for ResponseFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let wire = Wire {
            names: (0..self.name_count())
                .map(|i| self.name(i).to_string())
                .collect(),
            sets: (0..self.set_count() as u32)
                .filter_map(|k| self.set(k))
                .map(|s| s.ids.to_vec())
                .collect(),
        };
        wire.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ResponseFields {
    /// Refuses names out of byte order or repeated, more than 65,535 names, and a set whose
    /// positions are out of range or not ascending (lookups search the sets by halves). Reads
    /// straight into the buffers: no string or list is allocated per name or per set.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(TableVisitor)
    }
}

struct TableVisitor;

impl<'de> Visitor<'de> for TableVisitor {
    type Value = ResponseFields;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a response field table {\"names\": [...], \"sets\": [[...], ...]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = ResponseFields::default();
        let (mut names, mut sets, mut top) = (false, false, None::<u16>);
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Names if !names => {
                    names = true;
                    map.next_value_seed(NamesSeed(&mut out))?;
                }
                Key::Sets if !sets => {
                    sets = true;
                    top = map.next_value_seed(SetsSeed(&mut out))?;
                }
                Key::Names | Key::Sets => return Err(de::Error::custom("a repeated key")),
                Key::Other => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        if !names || !sets {
            return Err(de::Error::custom("`names` and `sets` are both required"));
        }
        if top.is_some_and(|t| t as usize >= out.name_count()) {
            return Err(de::Error::custom("a response field set is out of range"));
        }
        // The buffers grew by doubling: give back the slack (a quarter to a half of them).
        out.names.shrink_to_fit();
        out.name_ends.shrink_to_fit();
        out.ids.shrink_to_fit();
        out.set_ends.shrink_to_fit();
        Ok(out)
    }
}

/// A key of the table.
enum Key {
    Names,
    Sets,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "names" => Key::Names,
                    "sets" => Key::Sets,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// `names`: appended to the buffer in order.
struct NamesSeed<'a>(&'a mut ResponseFields);

impl<'de> DeserializeSeed<'de> for NamesSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NamesSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of names")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let t = self.0;
        while seq.next_element_seed(NameSeed(t))?.is_some() {
            if t.name_count() > MAX_NAMES {
                return Err(de::Error::custom("more than 65535 response field names"));
            }
        }
        Ok(())
    }
}

/// One name, appended after the previous one when it sorts after it.
struct NameSeed<'a>(&'a mut ResponseFields);

impl<'de> DeserializeSeed<'de> for NameSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NameSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        let t = self.0;
        let n = t.name_count();
        if n > 0 && t.name(n - 1) >= v {
            return Err(E::custom(
                "response field names are not unique and in byte order",
            ));
        }
        t.names.push_str(v);
        let end = u32::try_from(t.names.len())
            .map_err(|_| E::custom("response fields larger than 4 GiB"))?;
        t.name_ends.push(end);
        Ok(())
    }
}

/// `sets`: each set's positions appended to one buffer; gives the largest position.
struct SetsSeed<'a>(&'a mut ResponseFields);

impl<'de> DeserializeSeed<'de> for SetsSeed<'_> {
    type Value = Option<u16>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<u16>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SetsSeed<'_> {
    type Value = Option<u16>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of sets")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<u16>, A::Error> {
        let t = self.0;
        let mut top = None;
        while let Some(last) = seq.next_element_seed(SetSeed(t))? {
            let end = u32::try_from(t.ids.len())
                .map_err(|_| de::Error::custom("response fields larger than 4 GiB"))?;
            t.set_ends.push(end);
            top = top.max(last);
        }
        Ok(top)
    }
}

/// One set: ascending positions, appended; gives its last (largest) position.
struct SetSeed<'a>(&'a mut ResponseFields);

impl<'de> DeserializeSeed<'de> for SetSeed<'_> {
    type Value = Option<u16>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<u16>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SetSeed<'_> {
    type Value = Option<u16>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of name positions")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<u16>, A::Error> {
        let mut last: Option<u16> = None;
        while let Some(i) = seq.next_element::<u16>()? {
            if last.is_some_and(|l| l >= i) {
                return Err(de::Error::custom("a response field set is not ascending"));
            }
            self.0.ids.push(i);
            last = Some(i);
        }
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn interns_names_and_sets_once() {
        let sets = [
            set(&["id", "name", "site"]),
            set(&["id", "name"]),
            set(&["id", "name", "site"]),
        ];
        let (t, numbers) = ResponseFields::intern(&sets).unwrap();
        assert_eq!(numbers, [0, 1, 0]);
        assert_eq!(t.name_count(), 3);
        assert_eq!(t.set_count(), 2);
        let s = t.set(0).unwrap();
        assert!(s.contains("site") && s.contains("id") && !s.contains("nam"));
        assert_eq!(s.names().collect::<Vec<_>>(), ["id", "name", "site"]);
        assert!(!t.set(1).unwrap().contains("site"));
        assert!(t.set(2).is_none());
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            r#"{"names":["id","name","site"],"sets":[[0,1,2],[0,1]]}"#
        );
        let back: ResponseFields = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);
    }

    /// The shipped indexes carry the names compactly: under 16 KiB of heap per release
    /// (4.7.3: 12,894 bytes), and the fields of a device in every release.
    #[test]
    fn shipped_releases_are_small_and_know_their_fields() {
        for r in crate::index::embedded::RELEASES {
            let index = crate::index::embedded::load(r.version).unwrap();
            let f = &index.response_fields;
            assert!(
                f.heap_bytes() < 16 * 1024,
                "{}: {}",
                r.version,
                f.heap_bytes()
            );
            assert!(f.name_count() > 400 && f.set_count() > 100, "{}", r.version);
            let devices = index.fields_of(&index.endpoints["dcim/devices"]).unwrap();
            for name in [
                "id",
                "name",
                "primary_ip4",
                "config_context",
                "custom_fields",
            ] {
                assert!(devices.contains(name), "{} {name}", r.version);
            }
            assert!(!devices.contains("nme") && !devices.contains("site__name"));
        }
    }

    #[test]
    fn refuses_broken_tables() {
        for bad in [
            r#"{"names":["b","a"],"sets":[]}"#,
            r#"{"names":["a","a"],"sets":[]}"#,
            r#"{"names":["a"],"sets":[[1]]}"#,
            r#"{"names":["a","b"],"sets":[[1,0]]}"#,
            r#"{"names":["a"],"sets":[[70000]]}"#,
            r#"{"names":"a","sets":[]}"#,
            r#"{"names":["a"]}"#,
            r#"{"names":["a"],"sets":[],"names":["b"]}"#,
            r#"{"sets":[[0]],"names":[]}"#,
        ] {
            assert!(
                serde_json::from_str::<ResponseFields>(bad).is_err(),
                "{bad}"
            );
        }
        // Sets before names, an escaped name, an unknown key: read.
        let t: ResponseFields =
            serde_json::from_str(r#"{"sets":[[0,1]],"x":1,"names":["a\u0062","c"]}"#).unwrap();
        assert_eq!(t.set(0).unwrap().names().collect::<Vec<_>>(), ["ab", "c"]);
        let empty: ResponseFields = serde_json::from_str(r#"{"names":[],"sets":[]}"#).unwrap();
        assert!(empty.is_empty());
    }
}
