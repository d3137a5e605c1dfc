//! The other shipped NetBox versions, for `version-only` (a filter that exists in another
//! shipped release than the selected one) and `unknown-endpoint` ("it exists in NetBox …").
//!
//! For a shipped index the question "which other shipped releases have this filter / endpoint"
//! is answered from a vendored table (200 KB, embedded), `index/version-differences.tsv`, instead of
//! decoding the other embedded indexes (≈ 43 M instructions for three). The table lists every
//! endpoint and every (endpoint, filter) pair that exists in some but not all shipped releases,
//! with those releases; a name it does not list exists either in every shipped release or in
//! none, which the selected release's own index tells apart. It is generated from the shipped
//! indexes by
//!
//! ```text
//! NETBOX_LSP_WRITE_VERSION_TABLE=1 cargo test --release --lib rest::versions
//! ```
//!
//! and a test fails when it no longer equals a fresh computation (an index added or rebuilt).
//! Index files the user gives (`--index`, instance indexes, `others` passed by the caller) keep
//! the direct look-up in the indexes.

use crate::finding::AdviceKind;
use crate::index::embedded::{embedded_index, RELEASES};
use crate::index::FilterIndex;
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

/// Indexes of the shipped releases other than `index`'s version (decoded once per process by
/// [`embedded_index`]). Empty when none are embedded in this build.
fn others(index: &FilterIndex) -> Vec<Arc<FilterIndex>> {
    RELEASES
        .iter()
        .filter(|r| r.version != index.netbox_version)
        .map(|r| embedded_index(r.version))
        .collect()
}

/// Versions (other than `index`'s) that have filter `name` on `endpoint` (an index key such as
/// `dcim/devices`): from `given` when the caller passed other indexes, else from the shipped
/// releases (the vendored table when `index` is a shipped copy, the decoded indexes otherwise).
/// In the order of `given`, or oldest first.
pub(crate) fn with_filter<'a>(
    index: &FilterIndex,
    given: Option<&'a [&'a FilterIndex]>,
    endpoint: &str,
    name: &str,
) -> Vec<String> {
    let has = |i: &FilterIndex| {
        i.endpoints
            .get(endpoint)
            .is_some_and(|e| e.params.contains_key(name))
    };
    if given.is_none() {
        if let Some(t) = table_for(index) {
            // No row: in every shipped release or in none, as in this one.
            if let Some(mask) = t.filter_mask(endpoint, name) {
                let mask = mask.unwrap_or(if has(index) { t.all } else { 0 });
                return t.versions(mask, &index.netbox_version);
            }
        }
    }
    from_indexes(index, given, |i| has(i))
}

/// One endpoint's rows of the vendored table of differences ([`endpoint_rows`]): where they
/// are in the table (its filters that some shipped releases lack, each with the releases that
/// have it). [`EndpointRows::with_filter_if`] answers as [`with_filter`] with one binary search
/// over those rows only (a search over the table's ~3,800 rows cost ~2,000 instructions a
/// look-up; splitting and sorting the endpoint's rows up front cost ~22,000 an endpoint), and
/// none for a name whose [`shape`] no row has (finding every endpoint's rows and shapes when
/// the table is read cost more than it saved on 10,000 calls).
pub(crate) struct EndpointRows {
    table: &'static Differences,
    endpoint: Box<str>,
    /// The endpoint's rows: `first..end` of [`Differences::rows`].
    first: usize,
    end: usize,
    /// A bit per [`shape`] of the rows' filter names: a name whose bit is clear has no row
    /// (most names asked, the misspelt ones, are answered without the search).
    shapes: [u64; 4],
}

/// A filter name's bit in [`Differences::names`] ([`NAME_BITS`] of them).
fn name_bit(name: &[u8]) -> usize {
    (crate::index::table::hash(name) >> 48) as usize
}

/// True when [`with_filter`]`(index, None, endpoint, name)` is surely empty for a `name` that
/// `index`'s `endpoint` lacks, from the vendored table alone: `index` is a shipped copy and no
/// row of the table lists a filter of that name on any endpoint (most names asked, the
/// misspelt ones, are answered here without the endpoint's rows).
pub(crate) fn surely_nowhere_else(index: &FilterIndex, name: &str) -> bool {
    table_for(index).is_some_and(|t| !t.may_list(name))
}

/// A filter name's bit in [`EndpointRows::shapes`]: the top byte of its hash (a misspelt
/// name shares its length and end bytes with the name it misspells, not its hash).
fn shape(name: &[u8]) -> usize {
    (crate::index::table::hash(name) >> 56) as usize
}

/// The rows of `endpoint` (an index key) in the vendored table when `index` is a shipped copy;
/// `None` when there is no table for it or the endpoint key has a control byte (the caller
/// then asks [`with_filter`]).
pub(crate) fn endpoint_rows(index: &FilterIndex, endpoint: &str) -> Option<EndpointRows> {
    let t = table_for(index)?;
    if endpoint.bytes().any(|b| b < b' ') {
        return None;
    }
    let mut prefix = Vec::with_capacity(endpoint.len() + 8);
    prefix.extend_from_slice(b"filter\t");
    prefix.extend_from_slice(endpoint.as_bytes());
    prefix.push(b'\t');
    // Rows are in byte order (see `Differences::find`): those that start with the prefix are
    // one run, after the rows before it.
    let head = |i: usize| {
        let row = t.row(i);
        &row[..row.len().min(prefix.len())]
    };
    let first = partition(t.rows.len(), |i| head(i) < prefix.as_slice());
    let end = partition(t.rows.len(), |i| head(i) <= prefix.as_slice());
    let mut shapes = [0u64; 4];
    for i in first..end {
        // The name field (up to its tab, or the row's end in a malformed row).
        let rest = &t.row(i)[prefix.len()..];
        let name = &rest[..memchr::memchr(b'\t', rest).unwrap_or(rest.len())];
        let bit = shape(name);
        shapes[bit / 64] |= 1 << (bit % 64);
    }
    Some(EndpointRows {
        table: t,
        endpoint: endpoint.into(),
        first,
        end,
        shapes,
    })
}

impl EndpointRows {
    /// [`Differences::filter_mask`]`(endpoint, name)` searched among the endpoint's rows only,
    /// each compared from the name on (the fields before it are the endpoint's, the same in
    /// every row here): no key is assembled and no row is compared from its start.
    fn find(&self, name: &str) -> Option<Option<Mask>> {
        let t = self.table;
        let skip = "filter\t".len() + self.endpoint.len() + 1;
        let name = name.as_bytes();
        if name.iter().any(|b| *b < b' ') || skip + name.len() + 1 > 256 {
            // `Differences::find`'s own fallback for such fields.
            return t.filter_mask(&self.endpoint, std::str::from_utf8(name).ok()?);
        }
        let bit = shape(name);
        if self.shapes[bit / 64] & (1 << (bit % 64)) == 0 {
            return Some(None);
        }
        let (mut lo, mut hi) = (self.first, self.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let rest = &t.row(mid)[skip..];
            // `rest` against `name` and a tab, over the bytes `rest` has (as `find` compares a
            // row with its key).
            let n = name.len();
            let order = match rest[..rest.len().min(n)].cmp(name) {
                Ordering::Equal if rest.len() > n => rest[n].cmp(&b'\t'),
                // The row ends inside the name: too few fields (malformed, as in `find`).
                Ordering::Equal => return None,
                other => other,
            };
            match order {
                Ordering::Equal => return row_mask(&rest[n + 1..]),
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
            }
        }
        Some(None)
    }
}

/// The releases of a row found, from its last field (`versions`, the bytes after the fields
/// matched): `None` when the row is malformed (a further field, or no mask), as in
/// `compare_row`.
fn row_mask(versions: &[u8]) -> Option<Option<Mask>> {
    if versions.contains(&b'\t') {
        return None;
    }
    mask_of(std::str::from_utf8(versions).ok()?).map(Some)
}

/// The first of `0..len` for which `before` is false (`before` true then false along it).
fn partition(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl EndpointRows {
    /// [`with_filter`]`(index, None, endpoint, name)` for the `index` and `endpoint` these rows
    /// were read for; `here` is whether `index`'s endpoint has `name`. `None` when the row of
    /// `name` is malformed or names a release not shipped (ask [`with_filter`]).
    #[cfg(test)]
    pub(crate) fn with_filter(
        &self,
        index: &FilterIndex,
        name: &str,
        here: bool,
    ) -> Option<Vec<String>> {
        self.with_filter_if(index, name, || here)
    }

    /// [`EndpointRows::with_filter`] asking `here` only when `name` has no row (a hash probe
    /// of the endpoint's names saved for the names the table lists).
    pub(crate) fn with_filter_if(
        &self,
        index: &FilterIndex,
        name: &str,
        here: impl FnOnce() -> bool,
    ) -> Option<Vec<String>> {
        let found = self.find(name)?;
        let mask = match found {
            Some(mask) => mask,
            // No row: in every shipped release or in none, as in this one.
            None if here() => self.table.all,
            None => 0,
        };
        if mask == 0 {
            return Some(Vec::new());
        }
        Some(versions_of(mask, &index.netbox_version))
    }
}

/// Versions (other than `index`'s) that have list endpoint `endpoint` (an index key), as
/// [`with_filter`].
pub(crate) fn with_endpoint<'a>(
    index: &FilterIndex,
    given: Option<&'a [&'a FilterIndex]>,
    endpoint: &str,
) -> Vec<String> {
    if given.is_none() {
        if let Some(t) = table_for(index) {
            if let Some(mask) = t.endpoint_mask(endpoint) {
                let here = index.endpoints.contains_key(endpoint);
                let mask = mask.unwrap_or(if here { t.all } else { 0 });
                return t.versions(mask, &index.netbox_version);
            }
        }
    }
    from_indexes(index, given, |i| i.endpoints.contains_key(endpoint))
}

/// The direct look-up: the given indexes, or the decoded other shipped ones.
fn from_indexes<'a>(
    index: &FilterIndex,
    given: Option<&'a [&'a FilterIndex]>,
    has: impl Fn(&FilterIndex) -> bool,
) -> Vec<String> {
    let embedded;
    let others: Vec<&FilterIndex> = match given {
        Some(o) => o.to_vec(),
        None => {
            embedded = others(index);
            embedded.iter().map(|a| a.as_ref()).collect()
        }
    };
    others
        .iter()
        .filter(|i| has(i))
        .map(|i| i.netbox_version.clone())
        .collect()
}

/// A set of shipped releases: bit `i` for `RELEASES[i]`.
type Mask = u64;
const _: () = assert!(
    RELEASES.len() <= Mask::BITS as usize,
    "more shipped releases than bits in rest::versions::Mask: widen the type"
);

/// Every shipped release's bit, for `n` releases.
const fn all_of(n: usize) -> Mask {
    if n >= Mask::BITS as usize {
        Mask::MAX
    } else {
        (1 << n) - 1
    }
}

/// The vendored table of names that differ between shipped releases.
const TABLE: &str = include_str!("../../index/version-differences.tsv");

/// The [`TABLE`]'s rows, found by binary search on the text itself over the offsets where its
/// rows start (laid out by build.rs for the shipped table, [`built_table`]; found by `memchr`
/// for another text; nothing is split or decoded until a row is hit: splitting the 3,800 rows
/// into strings up front cost 1–6 M instructions per process); a mask has bit `i` set for
/// `RELEASES[i]`.
struct Differences {
    /// Every shipped release's bit.
    all: Mask,
    /// The rows: `endpoint\tE\tversions`, then `filter\tE\tN\tversions`, one a line, sorted by
    /// their tab-separated fields before the versions; no line end after the last.
    body: &'static str,
    /// Byte offset in `body` of each row's start, in order (a binary search on the bytes found
    /// a row's bounds with two `memchr` calls a step: 6,400 instructions a look-up, 3.4 % of a
    /// check of 10,000 calls).
    rows: Vec<u32>,
    /// [`Differences::may_list`]'s bits (from build.rs for the shipped table, else made on
    /// first use).
    names: OnceLock<Option<Box<[u64]>>>,
}

/// Bits of [`Differences::names`]: a filter name's bit is the top 16 bits of its hash.
const NAME_BITS: usize = 1 << 16;

impl Differences {
    /// False when no `filter` row of any endpoint has the name `name` (then
    /// [`with_filter`] of a name the index's endpoint lacks is empty): the names of the rows
    /// (~1,100 distinct) as bits of their hash (from build.rs for the shipped table, else made
    /// once per process from its ~5,000 rows). True
    /// when some row may have it, or a row is malformed (the look-up decides then).
    fn may_list(&self, name: &str) -> bool {
        let bits = self.names.get_or_init(|| {
            let mut bits = vec![0u64; NAME_BITS / 64].into_boxed_slice();
            for i in 0..self.rows.len() {
                let row = self.row(i);
                let Some(rest) = row.strip_prefix(b"filter\t") else {
                    continue;
                };
                // `E\tN\tversions`: the name is the second field, and there is no other.
                let mut fields = rest.split(|&b| b == b'\t');
                let (Some(_), Some(name), Some(_), None) =
                    (fields.next(), fields.next(), fields.next(), fields.next())
                else {
                    return None;
                };
                let bit = name_bit(name);
                bits[bit / 64] |= 1 << (bit % 64);
            }
            Some(bits)
        });
        match bits {
            Some(bits) => {
                let bit = name_bit(name.as_bytes());
                bits[bit / 64] & (1 << (bit % 64)) != 0
            }
            None => true,
        }
    }

    /// `Some(None)`: no row (the endpoint exists in all shipped releases or in none); `None`: a
    /// malformed row (the caller then looks in the indexes).
    fn endpoint_mask(&self, endpoint: &str) -> Option<Option<Mask>> {
        self.find(&["endpoint", endpoint])
    }

    /// As [`Differences::endpoint_mask`], for filter `name` of `endpoint`.
    fn filter_mask(&self, endpoint: &str, name: &str) -> Option<Option<Mask>> {
        self.find(&["filter", endpoint, name])
    }

    fn find(&self, fields: &[&str]) -> Option<Option<Mask>> {
        // The fields joined as a row's start (`filter\tE\tN\t`): rows are sorted by their
        // fields, and with no byte below `\t` in a field that order is the bytes' order, so
        // each step is one comparison of bytes (splitting each row probed at its tabs cost
        // ~5,000 instructions a look-up). A field with a control byte takes the field-wise
        // search (no row has one: it finds nothing, as there).
        let mut buf = [0u8; 256];
        let mut len = 0;
        for f in fields {
            let f = f.as_bytes();
            if f.iter().any(|b| *b < b' ') || len + f.len() + 1 > buf.len() {
                return self.find_by_fields(fields);
            }
            buf[len..len + f.len()].copy_from_slice(f);
            buf[len + f.len()] = b'\t';
            len += f.len() + 1;
        }
        let key = &buf[..len];
        let (mut lo, mut hi) = (0, self.rows.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let row = self.row(mid);
            match row[..row.len().min(len)].cmp(key) {
                // The row ends inside the fields it matches so far: too few fields (malformed,
                // as in `compare_row`).
                Ordering::Less if row.len() < len && key.starts_with(row) => return None,
                Ordering::Equal => return row_mask(&row[len..]),
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
            }
        }
        Some(None)
    }

    /// Row `i` of the body without its `\n` (the next row starts after it).
    fn row(&self, i: usize) -> &[u8] {
        let body = self.body.as_bytes();
        let end = self.rows.get(i + 1).map_or(body.len(), |&s| s as usize - 1);
        &body[self.rows[i] as usize..end]
    }

    /// [`Differences::find`] comparing field by field ([`compare_row`]), for any fields.
    fn find_by_fields(&self, fields: &[&str]) -> Option<Option<Mask>> {
        let (mut lo, mut hi) = (0, self.rows.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match compare_row(self.row(mid), fields)? {
                (Ordering::Equal, versions) => {
                    return mask_of(std::str::from_utf8(versions).ok()?).map(Some)
                }
                (Ordering::Less, _) => lo = mid + 1,
                (Ordering::Greater, _) => hi = mid,
            }
        }
        Some(None)
    }

    /// The releases of `mask` except `own`, oldest first.
    fn versions(&self, mask: Mask, own: &str) -> Vec<String> {
        versions_of(mask, own)
    }
}

/// The releases of `mask` except `own`, oldest first.
fn versions_of(mask: Mask, own: &str) -> Vec<String> {
    RELEASES
        .iter()
        .enumerate()
        .filter(|(i, r)| mask & (1 << i) != 0 && r.version != own)
        .map(|(_, r)| r.version.to_string())
        .collect()
}

/// Compares a row's fields before its versions with `fields` (the first field, the row kind,
/// orders `endpoint` rows before `filter` rows); on a match also gives the versions. `None` for
/// a row of the same kind with too few or too many fields.
fn compare_row<'r>(row: &'r [u8], fields: &[&str]) -> Option<(Ordering, &'r [u8])> {
    let mut rest = row;
    for f in fields {
        let tab = rest.iter().position(|b| *b == b'\t')?;
        match rest[..tab].cmp(f.as_bytes()) {
            Ordering::Equal => rest = &rest[tab + 1..],
            other => return Some((other, rest)),
        }
    }
    (!rest.contains(&b'\t')).then_some((Ordering::Equal, rest))
}

/// `4.4.10,4.6.8` → the mask of those shipped releases; `None` for a version not shipped.
fn mask_of(list: &str) -> Option<Mask> {
    list.split(',').try_fold(0 as Mask, |m, v| {
        Some(m | 1 << RELEASES.iter().position(|r| r.version == v)?)
    })
}

/// The table, when `index` is the process-wide copy of a shipped release and the table was
/// generated for exactly the shipped releases (else `None`: the caller decodes the indexes).
fn table_for(index: &FilterIndex) -> Option<&'static Differences> {
    static PARSED: OnceLock<Option<Differences>> = OnceLock::new();
    if !is_shipped(index) {
        return None;
    }
    PARSED.get_or_init(built_table).as_ref()
}

/// What build.rs read of [`TABLE`] (its `version_table`): the body's length, then each row's
/// start, u32 little-endian.
static BUILT_ROWS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/version-rows.bin"));

/// The bits of [`TABLE`]'s filter names as build.rs found them ([`Differences::names`],
/// 1,024 u64 little-endian words), or nothing for a table with a malformed `filter` row.
static BUILT_NAMES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/version-names.bin"));

/// [`parse_table`] of [`TABLE`] with its rows' starts and names' bits from build.rs, not
/// found again (the rows by `memchr` over its 280 KB, 0.5 M instructions, and the names bits
/// from its ~5,000 rows, 3.0 M, on the first look-up of a process: half of what a hook call
/// with a renamed filter cost). Read as [`parse_table`] when the built rows are for a body of
/// another length.
fn built_table() -> Option<Differences> {
    let body = table_body(TABLE)?;
    let built = BUILT_ROWS
        .split_first_chunk::<4>()
        .filter(|(len, _)| u32::from_le_bytes(**len) as usize == body.len());
    let Some((_, starts)) = built else {
        return parse_table(TABLE);
    };
    let word = |w: &[u8]| u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    let table = Differences {
        all: all_of(RELEASES.len()),
        body,
        rows: starts.chunks_exact(4).map(word).collect(),
        names: OnceLock::new(),
    };
    if BUILT_NAMES.len() == NAME_BITS / 8 {
        let bits = BUILT_NAMES
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
            .collect();
        let _ = table.names.set(Some(bits));
    }
    Some(table)
}

/// Reads the table's header: `None` when its `releases` line (after the `#` comments) is not
/// [`RELEASES`]. Rows are not checked here (a malformed one fails its look-up; the test that
/// the table equals a fresh `render_table` keeps them well-formed and sorted).
fn parse_table(text: &'static str) -> Option<Differences> {
    let body = table_body(text)?;
    let rows = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', body.as_bytes()).map(|i| i + 1))
        .filter(|_| !body.is_empty())
        .map(|i| u32::try_from(i).ok())
        .collect::<Option<Vec<u32>>>()?;
    Some(Differences {
        all: all_of(RELEASES.len()),
        body,
        rows,
        names: OnceLock::new(),
    })
}

/// The table's rows after its `#` comments and its `releases` line, without the last line
/// end; `None` when that line is not [`RELEASES`].
fn table_body(text: &'static str) -> Option<&'static str> {
    let mut rest = text;
    while rest.starts_with('#') {
        rest = rest.split_once('\n')?.1;
    }
    let (releases, body) = rest.split_once('\n').unwrap_or((rest, ""));
    let releases = releases.strip_prefix("releases\t")?;
    if !releases.split('\t').eq(RELEASES.iter().map(|r| r.version)) {
        return None;
    }
    Some(body.strip_suffix('\n').unwrap_or(body))
}

/// Renders the table for `indexes` (the shipped releases, oldest first): the text of
/// `index/version-differences.tsv` (written by `netbox-lsp release add`, checked by a test).
pub(crate) fn render_table(indexes: &[&FilterIndex]) -> String {
    use std::collections::BTreeMap;
    let all = all_of(indexes.len());
    let mut endpoints: BTreeMap<&str, Mask> = BTreeMap::new();
    let mut filters: BTreeMap<(&str, &str), Mask> = BTreeMap::new();
    for (i, index) in indexes.iter().enumerate() {
        for (key, ep) in &index.endpoints {
            *endpoints.entry(key).or_default() |= 1 << i;
            for name in ep.params.keys() {
                *filters.entry((key, name)).or_default() |= 1 << i;
            }
        }
    }
    let list = |mask: Mask| -> String {
        indexes
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, x)| x.netbox_version.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out = String::from(
        "# Endpoints and filters that exist in some but not all shipped NetBox releases\n\
         # (index/netbox-*.index.json.gz), with the releases that have them. Generated, do not\n\
         # edit: NETBOX_LSP_WRITE_VERSION_TABLE=1 cargo test --release --lib rest::versions\n",
    );
    out.push_str("releases");
    for index in indexes {
        out.push('\t');
        out.push_str(&index.netbox_version);
    }
    out.push('\n');
    for (e, m) in endpoints.into_iter().filter(|(_, m)| *m != all) {
        out.push_str(&format!("endpoint\t{e}\t{}\n", list(m)));
    }
    for ((e, n), m) in filters.into_iter().filter(|(_, m)| *m != all) {
        out.push_str(&format!("filter\t{e}\t{n}\t{}\n", list(m)));
    }
    out
}

/// True when `index` is the process-wide copy of a shipped release (chosen by version), false
/// for an index file the user gave (`--index`, the `index` setting), which a version choice
/// does not override.
pub(crate) fn is_shipped(index: &FilterIndex) -> bool {
    crate::index::embedded::is_embedded(index)
}

/// The last sentence of a `version-only` message: how to check against the other version, and
/// which advice it is ([`crate::finding::Facts::advice`]).
pub(crate) fn switch_advice(index: &FilterIndex) -> (AdviceKind, String) {
    if is_shipped(index) {
        (
            AdviceKind::SelectRelease,
            " If the instance runs another version, select it with --netbox-version.".into(),
        )
    } else if let Some(url) = index
        .instance
        .as_deref()
        .map(|i| i.url.as_str())
        .filter(|u| !u.is_empty())
    {
        // Built from the user's NetBox: rebuilding from it is the way to its current version.
        (
            AdviceKind::RebuildIndex,
            format!(
                " The index in use was built from {url} (NetBox {}); if that NetBox now runs another version, rebuild it (`netbox-lsp index build --url {url}`).",
                index.netbox_version
            ),
        )
    } else {
        (
            AdviceKind::BuildIndex,
            format!(
                " The index in use is for NetBox {}; if the instance runs another version, build an index from its OpenAPI document (`netbox-lsp index build --openapi`) and use that one.",
                index.netbox_version
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> Vec<Arc<FilterIndex>> {
        RELEASES.iter().map(|r| embedded_index(r.version)).collect()
    }

    /// [`surely_nowhere_else`] never hides a release: for every endpoint of every shipped
    /// release and names it lacks (every other release's names there, and misspellings), a name
    /// it calls nowhere else has no other release by [`from_indexes`].
    #[test]
    fn surely_nowhere_else_is_sure() {
        let indexes = shipped();
        let (mut sure, mut asked) = (0, 0);
        for index in &indexes {
            let others: Vec<&FilterIndex> = indexes
                .iter()
                .filter(|i| i.netbox_version != index.netbox_version)
                .map(|a| a.as_ref())
                .collect();
            for (key, ep) in &index.endpoints {
                let mut names: Vec<String> = Vec::new();
                for other in &indexes {
                    if let Some(e) = other.endpoints.get(key) {
                        for n in e.params.keys() {
                            names.push(n.to_string());
                            names.push(format!("{n}x"));
                        }
                    }
                }
                names.extend(["", "stauts", "site__icontains", "tag__any"].map(String::from));
                for n in names.iter().filter(|n| !ep.params.contains_key(n)) {
                    asked += 1;
                    if surely_nowhere_else(index, n) {
                        sure += 1;
                        let found = from_indexes(index, Some(&others), |i| {
                            i.endpoints
                                .get(key.as_str())
                                .is_some_and(|e| e.params.contains_key(n))
                        });
                        assert!(
                            found.is_empty(),
                            "{} {key} {n}: {found:?}",
                            index.netbox_version
                        );
                    }
                }
            }
        }
        // It must answer for most misspellings, or it would be no shortcut.
        assert!(sure > asked / 3, "{sure} of {asked}");
    }

    /// The vendored table equals one computed from the shipped indexes (fails when an index is
    /// added or rebuilt without regenerating it; `NETBOX_LSP_WRITE_VERSION_TABLE=1` rewrites it).
    #[test]
    fn vendored_table_is_current() {
        let indexes = shipped();
        let refs: Vec<&FilterIndex> = indexes.iter().map(|a| a.as_ref()).collect();
        let fresh = render_table(&refs);
        if std::env::var_os("NETBOX_LSP_WRITE_VERSION_TABLE").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/index/version-differences.tsv");
            std::fs::write(path, &fresh).expect("write index/version-differences.tsv");
            return;
        }
        assert!(
            TABLE == fresh,
            "index/version-differences.tsv is stale: regenerate it with \
             NETBOX_LSP_WRITE_VERSION_TABLE=1 cargo test --release --lib rest::versions"
        );
        assert!(
            parse_table(TABLE).is_some(),
            "the vendored table does not parse"
        );
    }

    /// Releases are listed oldest first, as the table's answers are.
    #[test]
    fn releases_are_oldest_first() {
        let keys: Vec<crate::version::Version> = RELEASES
            .iter()
            .map(|r| crate::version::Version::parse(r.version).unwrap())
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    }

    /// For every shipped release, every endpoint and filter of any shipped release (and names
    /// of none), the table answers what decoding the other indexes answers.
    #[test]
    fn table_answers_like_the_indexes() {
        let indexes = shipped();
        let mut endpoints: Vec<&str> = vec!["dcim/no-such-thing", "", "plugins/x"];
        let mut filters: Vec<(&str, &str)> = vec![("dcim/devices", "no_such_filter")];
        for i in &indexes {
            for (e, ep) in &i.endpoints {
                endpoints.push(e);
                filters.push((e, ""));
                filters.push((e, "no_such_filter"));
                filters.extend(ep.params.keys().map(|n| (e.as_str(), n)));
            }
        }
        endpoints.sort_unstable();
        endpoints.dedup();
        filters.sort_unstable();
        filters.dedup();
        let mut checked = 0;
        for index in &indexes {
            assert!(table_for(index).is_some(), "{}", index.netbox_version);
            for e in &endpoints {
                let direct = from_indexes(index, None, |i| i.endpoints.contains_key(*e));
                assert_eq!(with_endpoint(index, None, e), direct, "{e}");
            }
            for (e, n) in &filters {
                let direct = from_indexes(index, None, |i| {
                    i.endpoints
                        .get(*e)
                        .is_some_and(|x| x.params.contains_key(n))
                });
                assert_eq!(with_filter(index, None, e, n), direct, "{e} {n}");
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
        // A copy read from a file is not the shipped index: no table.
        assert!(table_for(&(*indexes[0]).clone()).is_none());
    }

    /// An endpoint's rows answer as [`with_filter`] for every endpoint and filter of every
    /// shipped release (and names of none).
    #[test]
    fn endpoint_rows_answer_like_with_filter() {
        let indexes = shipped();
        let mut checked = 0;
        for index in &indexes {
            for other in &indexes {
                for (e, ep) in &other.endpoints {
                    let rows = endpoint_rows(index, e).expect("the vendored table reads");
                    let here = index.endpoints.get(e.as_str());
                    for n in ep.params.keys().chain(["no_such_filter", "", "name__x"]) {
                        let has = here.is_some_and(|h| h.params.contains_key(n));
                        assert_eq!(
                            rows.with_filter(index, n, has).expect("every row reads"),
                            with_filter(index, None, e, n),
                            "{} {e} {n}",
                            index.netbox_version
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        assert!(endpoint_rows(&(*indexes[0]).clone(), "dcim/devices").is_none());
    }

    /// The look-up by bytes answers as the one field by field, on every row of the vendored
    /// table and on names beside each (shorter, longer, with a tab or a control byte), and on
    /// a table with malformed rows.
    #[test]
    fn find_by_bytes_is_find_by_fields() {
        let t = parse_table(TABLE).expect("the vendored table parses");
        let mut checked = 0;
        for row in t.body.lines() {
            let fields: Vec<&str> = row.split('\t').collect();
            let fields = &fields[..fields.len() - 1];
            let last = fields[fields.len() - 1];
            let variants = [
                last.to_string(),
                last[..last.len().saturating_sub(1)].to_string(),
                format!("{last}_"),
                format!("{last}\t4.3.3"),
                format!("{last}\n"),
                format!("a{last}"),
                String::new(),
            ];
            for v in &variants {
                let mut f = fields.to_vec();
                *f.last_mut().unwrap() = v;
                assert_eq!(t.find(&f), t.find_by_fields(&f), "{f:?}");
                checked += 1;
            }
        }
        assert!(checked > 20_000, "{checked}");
        let releases: Vec<&str> = RELEASES.iter().map(|r| r.version).collect();
        let v = RELEASES[1].version;
        let text = format!(
            "releases\t{}\nendpoint\tdcim/x\t9.9.9\nendpoint\tdcim/y\t{v}\nfilter\tdcim/y\tname\t{v}\tx\nfilter\tdcim/z\n",
            releases.join("\t")
        );
        let t = parse_table(Box::leak(text.into_boxed_str())).expect("parses");
        for f in [
            &["endpoint", "dcim/x"][..],
            &["endpoint", "dcim/y"],
            &["endpoint", "dcim/z"],
            &["filter", "dcim/y", "name"],
            &["filter", "dcim/y", "nam"],
            &["filter", "dcim/z", "a"],
            &["filter", "dcim/z", ""],
        ] {
            assert_eq!(t.find(f), t.find_by_fields(f), "{f:?}");
        }
    }

    /// The rows' starts and the names' bits that build.rs found in the shipped table are those
    /// the table gives when it is read at run time.
    #[test]
    fn the_built_table_is_the_table_read() {
        let built = built_table().expect("the shipped table");
        let read = parse_table(TABLE).expect("the shipped table");
        assert!(read.rows.len() > 3000, "{}", read.rows.len());
        assert_eq!(built.rows, read.rows);
        assert_eq!(built.body, read.body);
        assert!(read.names.get().is_none());
        // The names' bits are made by the first question.
        assert!(read.may_list("status"));
        let bits = built.names.get().expect("set from build.rs");
        assert_eq!(bits, read.names.get().unwrap());
        assert!(bits.as_ref().is_some_and(|b| b.iter().any(|w| *w != 0)));
        for name in [
            "status",
            "role_id",
            "device_role_id",
            "stauts",
            "",
            "site__icontains",
        ] {
            assert_eq!(built.may_list(name), read.may_list(name), "{name}");
        }
    }

    /// A table for other releases, or with a row of another kind, is not used; a row whose
    /// versions are not shipped, or that lacks them, sends its look-up to the indexes.
    #[test]
    fn malformed_tables_are_refused() {
        assert!(parse_table("").is_none());
        assert!(parse_table("releases\t4.3.3\n").is_none());
        let releases: Vec<&str> = RELEASES.iter().map(|r| r.version).collect();
        let table = |rows: &str| -> Option<Differences> {
            let text = format!("# c\nreleases\t{}\n{rows}", releases.join("\t"));
            parse_table(Box::leak(text.into_boxed_str()))
        };
        let v = RELEASES[1].version;
        let t = table(&format!(
            "endpoint\tdcim/x\t9.9.9\nendpoint\tdcim/y\t{v}\nfilter\tdcim/y\tname\t{v}\nfilter\tdcim/z\n"
        ))
        .expect("parses");
        assert_eq!(t.endpoint_mask("dcim/x"), None);
        assert_eq!(t.endpoint_mask("dcim/y"), Some(Some(2)));
        assert_eq!(t.endpoint_mask("dcim/z"), Some(None));
        assert_eq!(t.filter_mask("dcim/z", "a"), None);
        assert_eq!(t.filter_mask("dcim/y", "name"), Some(Some(2)));
        assert_eq!(t.filter_mask("dcim/y", "nam"), Some(None));
    }
}
