//! What a live check keeps of one NetBox answer: the facts its verdict needs (a list's `count`
//! and first ids, a GraphQL answer's errors and the shape of each root field, NetBox's words
//! for a refusal), read as the answer streams in and never kept whole (issue 33 §1).
//!
//! Memory per answer is bounded whatever the server sends: the body is parsed by serde_json
//! from a reader, everything not kept is skipped without being stored, no JSON string may be
//! longer than [`MAX_STRING`] bytes (the longest thing held while parsing), and at most
//! [`MAX_ERRORS`] GraphQL errors, [`MAX_ROOTS`] root fields and [`MAX_FIELDS`] refusal
//! fields are kept. A list answer is read only as far as its `count` and first objects:
//! reading stops there (NetBox writes `count`, `next`, `previous`, then `results`).
//!
//! Every kept string passes through the caller's `clean` (the token redacted in any encoding
//! after JSON decoding, control characters escaped) and is then cut to [`MAX_WORDS`]
//! characters.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::io::{BufRead, Read};

/// Longest JSON string (bytes, as sent) an answer may hold.
pub const MAX_STRING: usize = 1 << 20;
/// Characters kept of one message of NetBox's.
pub const MAX_WORDS: usize = 400;
/// GraphQL errors kept of one answer (the rest are counted).
pub const MAX_ERRORS: usize = 20;
/// GraphQL root fields kept of one answer.
pub const MAX_ROOTS: usize = 200;
/// Fields kept of a refusal (`{"status": [...], "site": [...]}`).
pub const MAX_FIELDS: usize = 20;
/// Object ids kept of a list answer.
pub const MAX_IDS: usize = 3;
/// Bytes of a body kept as they came, for an answer that is not JSON.
const PREFIX: usize = 4096;

/// What is expected of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A REST list (`count`, `results`).
    List,
    /// A GraphQL answer (`data`, `errors`).
    Graphql,
}

/// The shape of one GraphQL root field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A list of this many objects.
    List(usize),
    Null,
    Object,
}

/// One GraphQL error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphqlError {
    /// NetBox's message, cleaned and cut.
    pub message: String,
    /// The first `locations` entry: 1-based line and column (graphql-core's `SourceLocation`).
    pub location: Option<(u64, u64)>,
    /// The first element of `path` when it is a name (the root field's response key).
    pub path0: Option<String>,
}

/// A GraphQL answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphqlAnswer {
    pub errors: Vec<GraphqlError>,
    /// Errors beyond [`MAX_ERRORS`], counted only.
    pub more_errors: usize,
    /// `data` as an object: each root field's response key and shape; `None` for `null` or
    /// no `data`.
    pub data: Option<Vec<(String, Shape)>>,
}

/// What a live check keeps of one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Digest {
    /// A NetBox list: `count` (`None` for `"count": null`, NetBox's answer with cursor
    /// paging) and the ids of the first objects.
    List { count: Option<u64>, ids: Vec<u64> },
    /// A GraphQL answer.
    Graphql(GraphqlAnswer),
    /// NetBox's own words for a refusal or a fault: `` `status`: Select a valid choice. … ``,
    /// `DataError: …`, a `detail`, else the start of the body; cleaned, at most
    /// [`MAX_WORDS`] characters.
    Words(String),
    /// An answer of the wrong kind (not JSON, JSON without `count`): why.
    Unreadable(String),
}

impl Digest {
    /// The count of a list answer.
    pub fn count(&self) -> Option<u64> {
        match self {
            Digest::List { count, .. } => *count,
            _ => None,
        }
    }
}

/// The digest of an answer with HTTP `status`, read from `body` as it streams in. Errors are
/// the reader's (the connection failed, the answer exceeded a cap): no digest then.
pub fn read(
    expect: Expect,
    status: u16,
    body: &mut dyn BufRead,
    clean: &dyn Fn(&str) -> String,
) -> Result<Digest, String> {
    let mut guard = Guard::new(body);
    let mut kept = Kept::default();
    let parsed = {
        let mut de = serde_json::Deserializer::from_reader(&mut guard);
        let top = Top {
            expect: if status >= 300 { None } else { Some(expect) },
            kept: &mut kept,
            clean,
        };
        top.deserialize(&mut de)
    };
    if let Some(e) = guard.failed.take() {
        return Err(e);
    }
    let not_json = parsed.is_err() && !kept.done;
    if not_json && status >= 300 {
        // The parse stopped at the first byte that is not JSON: read on, as far as the prefix
        // (and a little beyond, to know whether the body goes on).
        let mut buf = [0u8; 1024];
        while guard.prefix.len() < PREFIX || !guard.longer {
            match guard.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        guard.failed = None;
    }
    if status >= 300 {
        if not_json || kept.words.is_empty() {
            return Ok(Digest::Words(cut(&squash(&clean(&guard.prefix_text())))));
        }
        return Ok(Digest::Words(cut(&kept.words.join("; "))));
    }
    if not_json {
        return Ok(Digest::Unreadable("the answer is not JSON".into()));
    }
    Ok(match expect {
        Expect::List => match kept.count {
            Some(count) => Digest::List {
                count,
                ids: kept.ids,
            },
            None => Digest::Unreadable("the answer is not a NetBox list (no `count`)".into()),
        },
        Expect::Graphql => Digest::Graphql(kept.graphql),
    })
}

/// [`read`] of a body held in memory (replays, tests).
pub fn of_bytes(
    expect: Expect,
    status: u16,
    body: &[u8],
    clean: &dyn Fn(&str) -> String,
) -> Digest {
    let mut r = body;
    read(expect, status, &mut r, clean).unwrap_or_else(Digest::Unreadable)
}

/// Whitespace runs as one space.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most [`MAX_WORDS`] characters, with `…` when cut.
fn cut(s: &str) -> String {
    match s.char_indices().nth(MAX_WORDS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// What the parse keeps.
#[derive(Default)]
struct Kept {
    /// `count` was seen: `Some(None)` for `null`.
    count: Option<Option<u64>>,
    ids: Vec<u64>,
    graphql: GraphqlAnswer,
    /// A refusal's parts, in order.
    words: Vec<String>,
    /// What a list needs was read: the parse stopped on purpose.
    done: bool,
}

/// A reader that fails on a JSON string longer than [`MAX_STRING`] and keeps the first
/// [`PREFIX`] bytes.
struct Guard<'a> {
    inner: &'a mut dyn BufRead,
    prefix: Vec<u8>,
    /// More bytes came after the prefix.
    longer: bool,
    in_string: bool,
    escaped: bool,
    string_len: usize,
    failed: Option<String>,
}

impl<'a> Guard<'a> {
    fn new(inner: &'a mut dyn BufRead) -> Guard<'a> {
        Guard {
            inner,
            prefix: Vec::new(),
            longer: false,
            in_string: false,
            escaped: false,
            string_len: 0,
            failed: None,
        }
    }

    /// The start of the body as text; when the body went on, its last 256 bytes are dropped
    /// so that no head of a secret cut at the end is shown.
    fn prefix_text(&self) -> String {
        let end = if self.longer {
            self.prefix.len().saturating_sub(256)
        } else {
            self.prefix.len()
        };
        String::from_utf8_lossy(&self.prefix[..end]).into_owned()
    }
}

impl Read for Guard<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) => {
                self.failed.get_or_insert_with(|| e.to_string());
                return Err(e);
            }
        };
        for &b in &buf[..n] {
            if self.prefix.len() < PREFIX {
                self.prefix.push(b);
            } else {
                self.longer = true;
            }
            if self.in_string {
                self.string_len += 1;
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                if self.string_len > MAX_STRING {
                    let e = format!(
                        "the answer holds a text longer than {} MiB; netbox-lsp stops there rather than fill the memory",
                        MAX_STRING >> 20
                    );
                    self.failed.get_or_insert(e.clone());
                    return Err(std::io::Error::other(e));
                }
            } else if b == b'"' {
                self.in_string = true;
                self.string_len = 0;
            }
        }
        Ok(n)
    }
}

/// Each seed below is its own visitor: it reads whatever JSON value comes (`deserialize_any`).
macro_rules! seeds {
    ($($t:ty),* $(,)?) => {$(
        impl<'de> DeserializeSeed<'de> for $t {
            type Value = <Self as Visitor<'de>>::Value;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    )*};
}

seeds!(
    Top<'_, '_>,
    Count,
    Ids<'_>,
    IdOf,
    Text<'_>,
    Messages<'_>,
    Errors<'_, '_>,
    ErrorOf<'_>,
    FirstLocation,
    Location,
    FirstName<'_>,
    Data,
    ShapeOf,
);

/// The top-level object.
struct Top<'a, 'k> {
    /// `None`: a refusal (NetBox's words are wanted).
    expect: Option<Expect>,
    kept: &'k mut Kept,
    clean: &'a dyn Fn(&str) -> String,
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let clean = self.clean;
        let mut error = None;
        let mut exception = None;
        let mut detail = None;
        while let Some(key) = map.next_key::<String>()? {
            match (self.expect, key.as_str()) {
                (Some(Expect::List), "count") => {
                    self.kept.count = Some(map.next_value_seed(Count)?);
                }
                (Some(Expect::List), "results") => {
                    // With the count known, the first ids are all a verdict needs: reading
                    // stops there, whatever follows.
                    let stop = self.kept.count.is_some();
                    let read = map.next_value_seed(Ids {
                        ids: &mut self.kept.ids,
                        stop,
                    });
                    if stop {
                        self.kept.done = true;
                        return Err(read
                            .err()
                            .unwrap_or_else(|| de::Error::custom("read enough")));
                    }
                    read?;
                }
                (Some(Expect::Graphql), "errors") => {
                    map.next_value_seed(Errors {
                        out: &mut self.kept.graphql,
                        clean,
                    })?;
                }
                (Some(Expect::Graphql), "data") => {
                    self.kept.graphql.data = map.next_value_seed(Data)?;
                }
                (None, "error") => error = map.next_value_seed(Text { clean })?,
                (None, "exception") => exception = map.next_value_seed(Text { clean })?,
                (None, "detail") => detail = map.next_value_seed(Text { clean })?,
                (None, _) if self.kept.words.len() < MAX_FIELDS => {
                    let msgs = map.next_value_seed(Messages { clean })?;
                    let k = clean(&key);
                    self.kept.words.push(format!("`{}`: {msgs}", cut(&k)));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // NetBox's server error (`{"error": …, "exception": …}`), then `detail`.
        let lead = match (exception, error) {
            (Some(x), Some(e)) => Some(format!("{x}: {e}")),
            (x, e) => e.or(x),
        };
        if let Some(l) = lead.or(detail) {
            self.kept.words = vec![l];
        }
        Ok(())
    }
}

/// `count`: a number, else `None` (null or anything else).
struct Count;

impl<'de> Visitor<'de> for Count {
    type Value = Option<u64>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a count")
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<u64>, E> {
        Ok(Some(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Option<u64>, E> {
        Ok(u64::try_from(v).ok())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<u64>, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<u64>, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// `results`: the `id` of the first [`MAX_IDS`] objects; the rest skipped, or with `stop`
/// not read at all (the parse ends there with an error the caller expects).
struct Ids<'k> {
    ids: &'k mut Vec<u64>,
    stop: bool,
}

impl<'de> Visitor<'de> for Ids<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        while self.ids.len() < MAX_IDS {
            match s.next_element_seed(IdOf)? {
                Some(Some(id)) => self.ids.push(id),
                Some(None) => {}
                None => return Ok(()),
            }
        }
        if self.stop {
            return Err(de::Error::custom("read enough"));
        }
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// One object's `id`.
struct IdOf;

impl<'de> Visitor<'de> for IdOf {
    type Value = Option<u64>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<u64>, A::Error> {
        let mut id = None;
        while let Some(k) = m.next_key::<String>()? {
            if k == "id" && id.is_none() {
                id = m.next_value_seed(Count)?;
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(id)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<u64>, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<u64>, E> {
        Ok(None)
    }
}

/// A string, cleaned and cut; `None` for anything else.
struct Text<'a> {
    clean: &'a dyn Fn(&str) -> String,
}

impl<'de> Visitor<'de> for Text<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a text")
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<String>, E> {
        Ok(Some(cut(&squash(&(self.clean)(v)))))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_unit<E>(self) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<String>, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<String>, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// A refusal field's messages: a text, or a list of texts joined with a space.
struct Messages<'a> {
    clean: &'a dyn Fn(&str) -> String,
}

impl<'de> Visitor<'de> for Messages<'_> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("messages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<String, A::Error> {
        let mut parts = Vec::new();
        while let Some(t) = s.next_element_seed(Text { clean: self.clean })? {
            if parts.len() < MAX_FIELDS {
                parts.extend(t);
            }
        }
        Ok(cut(&parts.join(" ")))
    }
    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(cut(&squash(&(self.clean)(v))))
    }
    fn visit_u64<E>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_i64<E>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_f64<E>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_bool<E>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_unit<E>(self) -> Result<String, E> {
        Ok("null".into())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<String, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok("{…}".into())
    }
}

/// GraphQL `errors`.
struct Errors<'a, 'k> {
    out: &'k mut GraphqlAnswer,
    clean: &'a dyn Fn(&str) -> String,
}

impl<'de> Visitor<'de> for Errors<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of errors")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        while self.out.errors.len() < MAX_ERRORS {
            match s.next_element_seed(ErrorOf { clean: self.clean })? {
                Some(e) => self.out.errors.push(e),
                None => return Ok(()),
            }
        }
        while s.next_element::<IgnoredAny>()?.is_some() {
            self.out.more_errors += 1;
        }
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// One GraphQL error object.
struct ErrorOf<'a> {
    clean: &'a dyn Fn(&str) -> String,
}

impl<'de> Visitor<'de> for ErrorOf<'_> {
    type Value = GraphqlError;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an error")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<GraphqlError, A::Error> {
        let mut e = GraphqlError {
            message: String::new(),
            location: None,
            path0: None,
        };
        while let Some(k) = m.next_key::<String>()? {
            match k.as_str() {
                "message" => {
                    e.message = m
                        .next_value_seed(Text { clean: self.clean })?
                        .unwrap_or_default()
                }
                "locations" => e.location = m.next_value_seed(FirstLocation)?,
                "path" => {
                    e.path0 = m
                        .next_value_seed(FirstName { clean: self.clean })?
                        .filter(|p| !p.is_empty())
                }
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(e)
    }
    fn visit_str<E>(self, v: &str) -> Result<GraphqlError, E> {
        Ok(GraphqlError {
            message: cut(&squash(&(self.clean)(v))),
            location: None,
            path0: None,
        })
    }
}

/// The first `{line, column}` of `locations`.
struct FirstLocation;

impl<'de> Visitor<'de> for FirstLocation {
    type Value = Option<(u64, u64)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("locations")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let first = s.next_element_seed(Location)?.flatten();
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(first)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// One `{line, column}`.
struct Location;

impl<'de> Visitor<'de> for Location {
    type Value = Option<(u64, u64)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a location")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        let (mut line, mut column) = (None, None);
        while let Some(k) = m.next_key::<String>()? {
            match k.as_str() {
                "line" => line = m.next_value_seed(Count)?,
                "column" => column = m.next_value_seed(Count)?,
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(line.zip(column))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The first element of `path` when it is a name.
struct FirstName<'a> {
    clean: &'a dyn Fn(&str) -> String,
}

impl<'de> Visitor<'de> for FirstName<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a path")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let first = s.next_element_seed(Text { clean: self.clean })?.flatten();
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(first)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// GraphQL `data`: each root field's shape.
struct Data;

impl<'de> Visitor<'de> for Data {
    type Value = Option<Vec<(String, Shape)>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("data")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = m.next_key::<String>()? {
            if out.len() < MAX_ROOTS {
                let shape = m.next_value_seed(ShapeOf)?;
                out.push((k, shape));
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Some(out))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The shape of one value: a list (counted, its items skipped), null, or anything else.
struct ShapeOf;

impl<'de> Visitor<'de> for ShapeOf {
    type Value = Shape;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Shape, A::Error> {
        let mut n = 0;
        while s.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(Shape::List(n))
    }
    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }
    fn visit_none<E>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Shape, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Shape::Object)
    }
    fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::Object)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Object)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Object)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Object)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::Object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        s.to_string()
    }

    #[test]
    fn lists_keep_the_count_and_first_ids() {
        let d = of_bytes(
            Expect::List,
            200,
            br#"{"count": 72, "next": "x", "previous": null, "results": [{"id": 5, "name": "a"}, {"id": 9}]}"#,
            &plain,
        );
        assert_eq!(
            d,
            Digest::List {
                count: Some(72),
                ids: vec![5, 9]
            }
        );
        let d = of_bytes(
            Expect::List,
            200,
            br#"{"count": null, "results": []}"#,
            &plain,
        );
        assert_eq!(d.count(), None);
        assert!(matches!(d, Digest::List { count: None, .. }));
        assert!(matches!(
            of_bytes(Expect::List, 200, b"<html>", &plain),
            Digest::Unreadable(_)
        ));
        assert!(matches!(
            of_bytes(Expect::List, 200, br#"{"results": []}"#, &plain),
            Digest::Unreadable(_)
        ));
    }

    #[test]
    fn reading_stops_after_what_a_list_needs() {
        // A body that never ends after the first object: the digest does not wait for it.
        let head = br#"{"count": 3, "results": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}"#;
        let mut endless = std::io::BufReader::new(head.chain(std::io::repeat(b' ')));
        let d = read(Expect::List, 200, &mut endless, &plain).unwrap();
        assert_eq!(d.count(), Some(3));
    }

    #[test]
    fn refusal_words() {
        let w = |b: &[u8]| match of_bytes(Expect::List, 400, b, &plain) {
            Digest::Words(w) => w,
            d => panic!("{d:?}"),
        };
        assert_eq!(
            w(br#"{"status":["Select a valid choice. bogus is not one of the available choices."]}"#),
            "`status`: Select a valid choice. bogus is not one of the available choices."
        );
        assert_eq!(
            w(br#"{"error": "invalid regular expression: brackets [] not balanced", "exception": "DataError", "netbox_version": "4.6.8"}"#),
            "DataError: invalid regular expression: brackets [] not balanced"
        );
        assert_eq!(w(br#"{"detail":"Not found."}"#), "Not found.");
        assert_eq!(w(b"<html>\n  oops </html>"), "<html> oops </html>");
        assert!(w(&vec![b'x'; 5000]).chars().count() <= MAX_WORDS + 1);
    }

    #[test]
    fn graphql_answers() {
        let d = of_bytes(
            Expect::Graphql,
            200,
            br#"{"data": {"a": [{"id": "1", "x": [1,2]}, {"id": "2"}], "b": null, "c": {"id": 1}}, "errors": [{"message": "bad\nthing", "locations": [{"line": 2, "column": 5}], "path": ["b", 0]}]}"#,
            &plain,
        );
        let Digest::Graphql(g) = d else { panic!() };
        assert_eq!(
            g.data,
            Some(vec![
                ("a".into(), Shape::List(2)),
                ("b".into(), Shape::Null),
                ("c".into(), Shape::Object)
            ])
        );
        assert_eq!(g.errors.len(), 1);
        assert_eq!(g.errors[0].location, Some((2, 5)));
        assert_eq!(g.errors[0].path0.as_deref(), Some("b"));
    }

    #[test]
    fn strings_are_bounded_and_cleaned_after_decoding() {
        let huge = format!(r#"{{"detail": "{}"}}"#, "x".repeat(MAX_STRING + 10));
        let mut r = huge.as_bytes();
        assert!(read(Expect::List, 400, &mut r, &plain)
            .unwrap_err()
            .contains("longer than"));
        // The secret escaped in JSON is decoded first, then cleaned.
        let clean = |s: &str| s.replace("nbt_secret", "<redacted>");
        let d = of_bytes(
            Expect::Graphql,
            200,
            br#"{"errors": [{"message": "token nbt\u005fsecret"}]}"#,
            &clean,
        );
        let Digest::Graphql(g) = d else { panic!() };
        assert_eq!(g.errors[0].message, "token <redacted>");
    }
}
