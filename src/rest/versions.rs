//! The other shipped NetBox versions, for `version-only` (a filter that exists in another
//! shipped release than the selected one) and `unknown-endpoint` ("it exists in NetBox …").
//!
//! For a shipped index the question "which other shipped releases have this filter / endpoint"
//! is answered from a small vendored table, `index/version-differences.tsv`, instead of
//! decoding the other embedded indexes (≈ 10 M instructions each). The table lists every
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

use crate::index::embedded::{embedded_index, RELEASES};
use crate::index::FilterIndex;
use std::collections::BTreeMap;
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
            let mask = t
                .filter_mask(endpoint, name)
                .unwrap_or(if has(index) { t.all } else { 0 });
            return t.versions(mask, &index.netbox_version);
        }
    }
    from_indexes(index, given, |i| has(i))
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
            let mask =
                t.endpoint_mask(endpoint)
                    .unwrap_or(if index.endpoints.contains_key(endpoint) {
                        t.all
                    } else {
                        0
                    });
            return t.versions(mask, &index.netbox_version);
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

/// The vendored table of names that differ between shipped releases.
const TABLE: &str = include_str!("../../index/version-differences.tsv");

/// The parsed [`TABLE`]; a mask has bit `i` set for `RELEASES[i]`.
struct Differences {
    /// Every shipped release's bit.
    all: u8,
    /// `(endpoint, mask)`, sorted by endpoint.
    endpoints: Vec<(&'static str, u8)>,
    /// `(endpoint, filter, mask)`, sorted by (endpoint, filter).
    filters: Vec<(&'static str, &'static str, u8)>,
}

impl Differences {
    fn endpoint_mask(&self, endpoint: &str) -> Option<u8> {
        self.endpoints
            .binary_search_by(|(e, _)| (*e).cmp(endpoint))
            .ok()
            .map(|i| self.endpoints[i].1)
    }

    fn filter_mask(&self, endpoint: &str, name: &str) -> Option<u8> {
        self.filters
            .binary_search_by(|(e, n, _)| (*e, *n).cmp(&(endpoint, name)))
            .ok()
            .map(|i| self.filters[i].2)
    }

    /// The releases of `mask` except `own`, oldest first.
    fn versions(&self, mask: u8, own: &str) -> Vec<String> {
        RELEASES
            .iter()
            .enumerate()
            .filter(|(i, r)| mask & (1 << i) != 0 && r.version != own)
            .map(|(_, r)| r.version.to_string())
            .collect()
    }
}

/// The table, when `index` is the process-wide copy of a shipped release and the table was
/// generated for exactly the shipped releases (else `None`: the caller decodes the indexes).
fn table_for(index: &FilterIndex) -> Option<&'static Differences> {
    static PARSED: OnceLock<Option<Differences>> = OnceLock::new();
    if !is_shipped(index) {
        return None;
    }
    PARSED.get_or_init(|| parse_table(TABLE)).as_ref()
}

/// Parses the table text; `None` when its `releases` line is not [`RELEASES`], when a line is
/// malformed or rows are out of order.
fn parse_table(text: &'static str) -> Option<Differences> {
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty());
    let releases: Vec<&str> = lines
        .next()?
        .strip_prefix("releases\t")?
        .split('\t')
        .collect();
    if releases.len() != RELEASES.len()
        || releases.len() > 8
        || releases.iter().zip(RELEASES).any(|(a, r)| *a != r.version)
    {
        return None;
    }
    let mask_of = |list: &str| -> Option<u8> {
        list.split(',').try_fold(0u8, |m, v| {
            Some(m | 1 << RELEASES.iter().position(|r| r.version == v)?)
        })
    };
    let mut d = Differences {
        all: (((1u16 << RELEASES.len()) - 1) & 0xff) as u8,
        endpoints: Vec::new(),
        filters: Vec::new(),
    };
    for line in lines {
        let f: Vec<&'static str> = line.split('\t').collect();
        match f.as_slice() {
            ["endpoint", e, vs] => d.endpoints.push((e, mask_of(vs)?)),
            ["filter", e, n, vs] => d.filters.push((e, n, mask_of(vs)?)),
            _ => return None,
        }
    }
    let sorted = d.endpoints.windows(2).all(|w| w[0].0 < w[1].0)
        && d.filters
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1));
    sorted.then_some(d)
}

/// Renders the table for `indexes` (the shipped releases, oldest first): the text of
/// `index/version-differences.tsv`.
pub(crate) fn render_table(indexes: &[&FilterIndex]) -> String {
    let all: u8 = (((1u16 << indexes.len()) - 1) & 0xff) as u8;
    let mut endpoints: BTreeMap<&str, u8> = BTreeMap::new();
    let mut filters: BTreeMap<(&str, &str), u8> = BTreeMap::new();
    for (i, index) in indexes.iter().enumerate() {
        for (key, ep) in &index.endpoints {
            *endpoints.entry(key).or_default() |= 1 << i;
            for name in ep.params.keys() {
                *filters.entry((key, name)).or_default() |= 1 << i;
            }
        }
    }
    let list = |mask: u8| -> String {
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
    RELEASES
        .iter()
        .find(|r| r.version == index.netbox_version)
        .is_some_and(|r| std::ptr::eq(index, &*embedded_index(r.version)))
}

/// The last sentence of a `version-only` message: how to check against the other version.
pub(crate) fn switch_advice(index: &FilterIndex) -> String {
    if is_shipped(index) {
        " If the instance runs another version, select it with --netbox-version.".into()
    } else if let Some(url) = index
        .instance
        .as_deref()
        .map(|i| i.url.as_str())
        .filter(|u| !u.is_empty())
    {
        // Built from the user's NetBox: rebuilding from it is the way to its current version.
        format!(
            " The index in use was built from {url} (NetBox {}); if that NetBox now runs another version, rebuild it (`netbox-lsp index build --url {url}`).",
            index.netbox_version
        )
    } else {
        format!(
            " The index in use is for NetBox {}; if the instance runs another version, build an index from its OpenAPI document (`netbox-lsp index build --openapi`) and use that one.",
            index.netbox_version
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> Vec<Arc<FilterIndex>> {
        RELEASES.iter().map(|r| embedded_index(r.version)).collect()
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
        let keys: Vec<Vec<u32>> = RELEASES
            .iter()
            .map(|r| crate::index::embedded::parse_version(r.version).unwrap())
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

    #[test]
    fn malformed_tables_are_refused() {
        assert!(parse_table("").is_none());
        assert!(parse_table("releases\t4.3.3\n").is_none());
        let releases: Vec<&str> = RELEASES.iter().map(|r| r.version).collect();
        let head: &'static str =
            Box::leak(format!("releases\t{}\n", releases.join("\t")).into_boxed_str());
        assert!(parse_table(head).is_some());
        let bad =
            |rest: &str| -> &'static str { Box::leak(format!("{head}{rest}").into_boxed_str()) };
        assert!(parse_table(bad("endpoint\tdcim/x\t9.9.9\n")).is_none());
        assert!(parse_table(bad("filter\tdcim/x\n")).is_none());
        let v = RELEASES[0].version;
        assert!(parse_table(bad(&format!("endpoint\tdcim/x\t{v}\n"))).is_some());
        let unsorted = format!("endpoint\tdcim/y\t{v}\nendpoint\tdcim/x\t{v}\n");
        assert!(parse_table(bad(&unsorted)).is_none());
    }
}
