//! The compact on-disk form of a [`Parameter`]: a JSON array `[code, choices?, description?]`
//! instead of an object, so the ~15,000 parameters of a NetBox 4.6 index decode quickly.
//!
//! `code` = kind number × 2 + 1 when multi (`String` 0, `Integer` 1, `Number` 2, `Boolean` 3,
//! `Date` 4, `DateTime` 5, `Uuid` 6); `choices` is the choice-set index or `null`; trailing
//! absent items are left out: `"id":[3]`, `"status":[1,15]`, `"site":[1,null,"Site name (slug)"]`.

use super::{Parameter, ValueKind};
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

pub(super) const KINDS: [ValueKind; 7] = ValueKind::ALL;

/// Serde proxy of [`Parameter`] (see the module docs for the layout).
#[derive(Clone)]
pub(crate) struct CompactParameter(pub(crate) Parameter);

impl From<Parameter> for CompactParameter {
    fn from(p: Parameter) -> Self {
        CompactParameter(p)
    }
}

impl From<CompactParameter> for Parameter {
    fn from(c: CompactParameter) -> Self {
        c.0
    }
}

impl Serialize for CompactParameter {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = &self.0;
        let kind = KINDS.iter().position(|k| *k == p.kind).unwrap_or(0) as u32;
        let code = kind * 2 + u32::from(p.multi);
        let len = if p.description.is_some() {
            3
        } else if p.choices.is_some() {
            2
        } else {
            1
        };
        let mut seq = s.serialize_seq(Some(len))?;
        seq.serialize_element(&code)?;
        if len >= 2 {
            seq.serialize_element(&p.choices)?;
        }
        if let Some(d) = &p.description {
            seq.serialize_element(d)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for CompactParameter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(ParamVisitor)
    }
}

struct ParamVisitor;

impl<'de> Visitor<'de> for ParamVisitor {
    type Value = CompactParameter;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a parameter array [code, choices?, description?]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let code: u32 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let kind = *KINDS
            .get((code / 2) as usize)
            .ok_or_else(|| de::Error::custom(format!("unknown parameter kind code {code}")))?;
        let mut p = Parameter {
            kind,
            multi: code % 2 == 1,
            choices: None,
            description: None,
        };
        // Most arrays end after the code or the choice set: stop at the first missing item.
        let Some(choices) = seq.next_element::<Option<u32>>()? else {
            return Ok(CompactParameter(p));
        };
        p.choices = choices;
        let Some(description) = seq.next_element::<Option<String>>()? else {
            return Ok(CompactParameter(p));
        };
        p.description = description.map(std::borrow::Cow::Owned);
        // Tolerate (and skip) items a later format revision might append.
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(CompactParameter(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(json: &str) -> Result<Parameter, serde_json::Error> {
        serde_json::from_str::<CompactParameter>(json).map(Parameter::from)
    }

    fn param(kind: ValueKind, multi: bool, choices: Option<u32>, desc: Option<&str>) -> Parameter {
        Parameter {
            kind,
            multi,
            choices,
            description: desc.map(|d| d.to_string().into()),
        }
    }

    #[test]
    fn every_array_form() {
        use ValueKind::*;
        for (json, want) in [
            ("[3]", param(Integer, true, None, None)),
            ("[2]", param(Integer, false, None, None)),
            ("[13]", param(Uuid, true, None, None)),
            ("[1,15]", param(String, true, Some(15), None)),
            ("[1,null]", param(String, true, None, None)),
            ("[1,null,null]", param(String, true, None, None)),
            (
                "[0,null,\"Site (slug)\"]",
                param(String, false, None, Some("Site (slug)")),
            ),
            ("[6,2,\"x\"]", param(Boolean, false, Some(2), Some("x"))),
            // Items a later revision might append are skipped.
            (
                "[6,2,\"x\",7,[1]]",
                param(Boolean, false, Some(2), Some("x")),
            ),
        ] {
            let got = decode(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!(got, want, "{json}");
            let back = serde_json::to_string(&CompactParameter(got)).unwrap();
            assert_eq!(decode(&back).unwrap(), want, "{json} → {back}");
        }
        for bad in [
            "[]",
            "[14]",
            "[\"a\"]",
            "[1,\"a\"]",
            "[1,null,3]",
            "{}",
            "3",
        ] {
            assert!(decode(bad).is_err(), "{bad}");
        }
    }
}
