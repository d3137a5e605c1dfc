//! The text edits of adding a release to a checkout: its row in `RELEASES`
//! (`src/index/embedded.rs`), README's release table, and the ground-truth fixtures whose
//! expected codes carry over from the previous release. Pure: text in, text out; the command
//! (`cli::release`) reads and writes the files.

use super::sweep::Class;
use crate::index::FilterIndex;
use crate::version::Version;
use std::collections::HashMap;

/// The versions of the `release!("…")` rows of `embedded.rs`, in file order.
pub fn rows(embedded_rs: &str) -> Vec<String> {
    embedded_rs
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let v = l.strip_prefix("release!(\"")?.strip_suffix("\"),")?;
            Some(v.to_string())
        })
        .collect()
}

/// `embedded_rs` with a row for `version` in version order (pre-releases before their final
/// release), and without the rows of the pre-releases a final release replaces (`4.8.0b1`
/// when `4.8.0` comes). Returns the text and the versions whose rows went. Unchanged when the
/// row is there. Errors when the table is not found or `version` is not a version.
pub fn insert_row(embedded_rs: &str, version: &str) -> Result<(String, Vec<String>), String> {
    let want = Version::parse(version).ok_or_else(|| format!("{version}: not a version"))?;
    let lines: Vec<&str> = embedded_rs.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("pub const RELEASES: &[Release] = &["))
        .ok_or("src/index/embedded.rs: no `pub const RELEASES: &[Release] = &[` line")?;
    let end = lines[start..]
        .iter()
        .position(|l| l.trim() == "];")
        .map(|i| start + i)
        .ok_or("src/index/embedded.rs: the RELEASES table does not end with `];`")?;
    let mut shipped: Vec<String> = rows(&lines[start..end].join("\n"));
    let mut gone = Vec::new();
    if !shipped.iter().any(|v| v == version) {
        if !want.is_pre_release() {
            shipped.retain(|v| {
                let replaced = Version::parse(v)
                    .is_some_and(|x| x.is_pre_release() && x.numbers == want.numbers);
                if replaced {
                    gone.push(v.clone());
                }
                !replaced
            });
        }
        shipped.push(version.to_string());
    }
    shipped.sort_by_key(|v| Version::parse(v));
    let mut out: Vec<String> = lines[..=start].iter().map(|l| l.to_string()).collect();
    out.extend(shipped.iter().map(|v| format!("    release!(\"{v}\"),")));
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut text = out.join("\n");
    if embedded_rs.ends_with('\n') {
        text.push('\n');
    }
    Ok((text, gone))
}

/// `embedded_rs` without the row of `version` (to re-add a release, or to drop a pre-release
/// that was not promoted). Errors when it would leave no release.
pub fn remove_row(embedded_rs: &str, version: &str) -> Result<String, String> {
    let row = format!("    release!(\"{version}\"),");
    let kept: Vec<&str> = embedded_rs.lines().filter(|l| *l != row).collect();
    if kept.len() == embedded_rs.lines().count() {
        return Err(format!("{version} is not a row of RELEASES"));
    }
    if rows(&kept.join("\n")).is_empty() {
        return Err("RELEASES would be empty".into());
    }
    let mut text = kept.join("\n");
    if embedded_rs.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// `1,234`.
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// README's table of shipped releases (`| NetBox | endpoints | object types | filter
/// parameters | with choices |`) rewritten for `indexes` (oldest first; the default marked, a
/// pre-release too). `None` when README has no such table.
pub fn readme_table(readme: &str, indexes: &[&FilterIndex]) -> Option<String> {
    let header = "| NetBox | endpoints | object types | filter parameters | with choices |";
    let start = readme.find(header)?;
    let lines: Vec<&str> = readme[start..].lines().collect();
    let body_start = start + lines.iter().take(2).map(|l| l.len() + 1).sum::<usize>();
    let body_len: usize = lines
        .iter()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.len() + 1)
        .sum();
    let versions: Vec<String> = indexes.iter().map(|i| i.netbox_version.clone()).collect();
    let default = crate::version::default_of(&versions)
        .cloned()
        .unwrap_or_default();
    let mut rows = String::new();
    for i in indexes {
        let v = &i.netbox_version;
        let name = if *v == default {
            format!("{v} (default)")
        } else if crate::version::is_pre_release(v) {
            format!("{v} (pre-release)")
        } else {
            v.clone()
        };
        rows.push_str(&format!(
            "| {name} | {} | {} | {} | {} |\n",
            i.endpoints.len(),
            i.object_types.len(),
            thousands(i.parameter_count()),
            thousands(i.parameters_with_choices())
        ));
    }
    let end = (body_start + body_len).min(readme.len());
    Some(format!("{}{rows}{}", &readme[..body_start], &readme[end..]))
}

/// Columns of a TSV header by name.
fn columns(header: &str) -> HashMap<&str, usize> {
    header
        .split('\t')
        .enumerate()
        .map(|(i, h)| (h, i))
        .collect()
}

/// The hand review's decisions on ground-truth rows of one release
/// (`tests/fixtures/ground-truth/reviewed.tsv`: `release endpoint query verdict expected span
/// evidence`, `#` comments, a header): `(endpoint, query, verdict)` → `(expected code, span)`;
/// GraphQL rows have the endpoint `graphql` and their expected error and span. A decision holds
/// only for the verdict it was made on.
#[derive(Debug, Default)]
pub struct Reviewed(HashMap<(String, String, String), (String, String)>);

impl Reviewed {
    /// The rows of `version` in `text`; malformed lines are skipped (a test checks the file).
    pub fn parse(text: &str, version: &str) -> Reviewed {
        let mut rows = HashMap::new();
        for l in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
            let c: Vec<&str> = l.split('\t').collect();
            if let [release, endpoint, query, verdict, expected, span, _evidence] = c[..] {
                if release == version {
                    rows.insert(
                        (endpoint.into(), query.into(), verdict.into()),
                        (expected.into(), span.into()),
                    );
                }
            }
        }
        Reviewed(rows)
    }

    fn get(&self, endpoint: &str, query: &str, verdict: &str) -> Option<&(String, String)> {
        self.0
            .get(&(endpoint.to_string(), query.to_string(), verdict.to_string()))
    }
}

/// The REST ground-truth fixture of a new release (`tests/fixtures/ground-truth/v<version>.tsv`:
/// `endpoint query http_status verdict expected_code note`) from its live
/// `ground-truth.tsv`: each row takes the expected code of the same row of the previous
/// release's fixture when NetBox's verdict did not change, else the hand review's decision
/// ([`Reviewed`]); an honoured row expects none; any other row gets `?`, which
/// `tests/ground_truth.rs` fails on until it is decided. Returns the fixture and the number of
/// `?` rows.
pub fn truth_fixture(
    live: &str,
    previous_fixture: Option<&str>,
    reviewed: &Reviewed,
) -> Result<(String, usize), String> {
    let mut lines = live.lines();
    let head = columns(lines.next().ok_or("empty ground-truth.tsv")?);
    let col = |n: &[&str]| {
        n.iter()
            .find_map(|x| head.get(x).copied())
            .ok_or_else(|| format!("ground-truth.tsv has no {n:?} column"))
    };
    let (q, st, v, note) = (
        col(&["query_string_or_graphql", "query"])?,
        col(&["http_status"])?,
        col(&["verdict"])?,
        col(&["note"])?,
    );
    let mut known: HashMap<(String, String), (Class, String)> = HashMap::new();
    if let Some(prev) = previous_fixture {
        let mut pl = prev.lines();
        if let Some(h) = pl.next() {
            let h = columns(h);
            if let (Some(&pq), Some(&pv), Some(&pe)) =
                (h.get("query"), h.get("verdict"), h.get("expected_code"))
            {
                for l in pl {
                    let c: Vec<&str> = l.split('\t').collect();
                    if let (Some(e), Some(qq), Some(vv), Some(code)) =
                        (c.first(), c.get(pq), c.get(pv), c.get(pe))
                    {
                        known.insert(
                            (e.to_string(), qq.to_string()),
                            (Class::of(vv), code.to_string()),
                        );
                    }
                }
            }
        }
    }
    let mut out = String::from("endpoint\tquery\thttp_status\tverdict\texpected_code\tnote\n");
    let mut open = 0;
    for l in lines {
        let c: Vec<&str> = l.split('\t').collect();
        if c.first().is_none_or(|e| e.is_empty() || *e == "graphql") {
            continue;
        }
        let get = |i: usize| c.get(i).copied().unwrap_or("");
        let class = Class::of(get(v));
        let code = match known.get(&(get(0).to_string(), get(q).to_string())) {
            Some((k, code)) if *k == class => code.clone(),
            _ => match reviewed.get(get(0), get(q), get(v)) {
                Some((code, _)) => code.clone(),
                None if class == Class::Works => String::new(),
                None => {
                    open += 1;
                    "?".to_string()
                }
            },
        };
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{code}\t{}\n",
            get(0),
            get(q),
            get(st),
            get(v),
            get(note)
        ));
    }
    Ok((out, open))
}

/// The GraphQL ground-truth fixture of a new release
/// (`tests/fixtures/graphql-ground-truth/v<version>.tsv`: `query verdict note expected_error
/// expected_span`) from the `graphql` rows of its live `ground-truth.tsv`, as
/// [`truth_fixture`]: the previous fixture's expectation when the query and verdict are the
/// same, else the hand review's ([`Reviewed`], endpoint `graphql`), `-` for an honoured row,
/// `?` otherwise (`tests/graphql.rs` fails on it).
pub fn graphql_fixture(
    version: &str,
    live: &str,
    previous_fixture: Option<&str>,
    reviewed: &Reviewed,
) -> Result<(String, usize), String> {
    let mut lines = live.lines();
    let head = columns(lines.next().ok_or("empty ground-truth.tsv")?);
    let q = *head
        .get("query_string_or_graphql")
        .or_else(|| head.get("query"))
        .ok_or("ground-truth.tsv has no query column")?;
    let v = *head
        .get("verdict")
        .ok_or("ground-truth.tsv has no verdict column")?;
    let n = *head
        .get("note")
        .ok_or("ground-truth.tsv has no note column")?;
    let mut known: HashMap<(String, String), (String, String)> = HashMap::new();
    for l in previous_fixture
        .unwrap_or("")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
    {
        let c: Vec<&str> = l.split('\t').collect();
        if let [query, verdict, _, code, span] = c[..] {
            known.insert(
                (query.to_string(), verdict.to_string()),
                (code.to_string(), span.to_string()),
            );
        }
    }
    let mut out = format!(
        "# GraphQL rows of netbox/v{version}/ground-truth.tsv (query, NetBox verdict, NetBox note/error) plus our\n\
         # expected error code (- = none; out-of-reach = needs live data) and the text the error range covers.\n\
         query\tverdict\tnote\texpected_error\texpected_span\n"
    );
    let mut open = 0;
    for l in lines {
        let c: Vec<&str> = l.split('\t').collect();
        if c.first() != Some(&"graphql") {
            continue;
        }
        let get = |i: usize| c.get(i).copied().unwrap_or("");
        let (query, verdict) = (get(q), get(v));
        let (code, span) = match known.get(&(query.to_string(), verdict.to_string())) {
            Some((c, s)) => (c.clone(), s.clone()),
            None => match reviewed.get("graphql", query, verdict) {
                Some(d) => d.clone(),
                None if verdict == "honoured" => ("-".into(), "-".into()),
                None => {
                    open += 1;
                    ("?".into(), "?".into())
                }
            },
        };
        out.push_str(&format!("{query}\t{verdict}\t{}\t{code}\t{span}\n", get(n)));
    }
    Ok((out, open))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "use x;\n\npub const RELEASES: &[Release] = &[\n    release!(\"4.6.8\"),\n    release!(\"4.7.3\"),\n];\n\nconst _: () = ();\n";

    #[test]
    fn rows_in_version_order() {
        let (t, gone) = insert_row(TABLE, "4.8.0b1").unwrap();
        assert_eq!(rows(&t), ["4.6.8", "4.7.3", "4.8.0b1"]);
        assert!(gone.is_empty());
        assert!(t.ends_with("];\n\nconst _: () = ();\n"), "{t}");
        // Idempotent.
        assert_eq!(insert_row(&t, "4.8.0b1").unwrap().0, t);
        // An older patch goes before.
        let (t2, _) = insert_row(&t, "4.7.1").unwrap();
        assert_eq!(rows(&t2), ["4.6.8", "4.7.1", "4.7.3", "4.8.0b1"]);
        // The final release replaces its pre-release.
        let (t3, gone) = insert_row(&t, "4.8.0").unwrap();
        assert_eq!(rows(&t3), ["4.6.8", "4.7.3", "4.8.0"]);
        assert_eq!(gone, ["4.8.0b1"]);
        assert_eq!(remove_row(&t3, "4.8.0").unwrap(), TABLE);
        assert!(remove_row(TABLE, "4.5.10").is_err());
        assert!(insert_row("fn x() {}", "4.8.0").is_err());
        assert!(insert_row(TABLE, "garbage").is_err());
    }

    #[test]
    fn defaults() {
        use crate::version::default_of;
        assert_eq!(default_of(&["4.7.3", "4.8.0b1"]), Some(&"4.7.3"));
        assert_eq!(default_of(&["4.7.3", "4.8.0"]), Some(&"4.8.0"));
        assert_eq!(default_of(&["4.8.0b1"]), Some(&"4.8.0b1"));
        assert_eq!(default_of::<&str>(&[]), None);
        assert_eq!(thousands(16380), "16,380");
        assert_eq!(thousands(915), "915");
    }

    #[test]
    fn readme_rows() {
        let readme = "# x\n\n| NetBox | endpoints | object types | filter parameters | with choices |\n|---|---|---|---|---|\n| 4.7.3 (default) | 1 | 1 | 1 | 1 |\n\nafter\n";
        let mut a = FilterIndex::empty("4.7.3");
        a.endpoints.insert(
            "dcim/sites".into(),
            crate::index::Endpoint {
                object_type: Some("dcim.site".into()),
                params: Default::default(),
                fields: None,
            },
        );
        let b = FilterIndex::empty("4.8.0b1");
        let out = readme_table(readme, &[&a, &b]).unwrap();
        assert!(
            out.contains("|---|---|---|---|---|\n| 4.7.3 (default) | 1 | 0 | 0 | 0 |\n| 4.8.0b1 (pre-release) | 0 | 0 | 0 | 0 |\n\nafter\n"),
            "{out}"
        );
        assert!(readme_table("no table", &[&a]).is_none());
    }

    #[test]
    fn fixtures_carry_codes_over() {
        let live = "endpoint\tquery_string_or_graphql\thttp_status\tcount_filtered\tcount_unfiltered\tverdict\tnote\n\
            dcim/devices\ttenant__empty=true\t200\t72\t72\tsilently-ignored\texpected 14\n\
            dcim/devices\tsite_id=1\t200\t3\t72\thonoured\t\n\
            dcim/devices\trole_id__in=1\t400\t\t72\t400 error\tnew\n\
            graphql\t{ a }\t200\t\t72\terror\tERROR: x\n\
            graphql\t{ b }\t200\t1\t72\thonoured\t\n\
            graphql\t{ c }\t200\t\t72\terror\tERROR: y\n";
        let prev = "endpoint\tquery\thttp_status\tverdict\texpected_code\tnote\n\
            dcim/devices\ttenant__empty=true\t200\tsilently-ignored\tnull-relation\texpected 14\n\
            dcim/devices\trole_id__in=1\t200\tsilently-ignored\tunsupported-lookup\t\n";
        let none = Reviewed::default();
        let (fx, open) = truth_fixture(live, Some(prev), &none).unwrap();
        let codes: Vec<&str> = fx
            .lines()
            .skip(1)
            .map(|l| l.split('\t').nth(4).unwrap())
            .collect();
        // Same verdict: carried; honoured: none; a verdict that changed: to decide.
        assert_eq!(codes, ["null-relation", "", "?"]);
        assert_eq!(open, 1);
        // The hand review's decision, for that verdict only; another release's rows are not read.
        let reviewed = Reviewed::parse(
            "# c\nrelease\tendpoint\tquery\tverdict\texpected\tspan\tevidence\n\
             4.8.0\tdcim/devices\trole_id__in=1\t400 error\tinvalid-value\t-\tsource L1\n\
             4.8.0\tgraphql\t{ c }\terror\tgraphql-validation\tc\tsource L2\n\
             4.7.3\tdcim/devices\ttenant__empty=true\thonoured\tx\t-\tother release\n",
            "4.8.0",
        );
        let (fx, open) = truth_fixture(live, Some(prev), &reviewed).unwrap();
        assert_eq!(
            fx.lines().nth(3).unwrap().split('\t').nth(4),
            Some("invalid-value")
        );
        assert_eq!(open, 0);
        let changed = live.replace("400\t\t72\t400 error", "500\t\t72\terror 500");
        assert_eq!(truth_fixture(&changed, Some(prev), &reviewed).unwrap().1, 1);
        let (g, open) = graphql_fixture("4.8.0", live, None, &reviewed).unwrap();
        assert!(
            g.ends_with("{ c }\terror\tERROR: y\tgraphql-validation\tc\n"),
            "{g}"
        );
        assert_eq!(
            open, 1,
            "{{ a }} is still open without the previous fixture"
        );
        let gprev = "# c\n# c\nquery\tverdict\tnote\texpected_error\texpected_span\n{ a }\terror\tERROR: x\tgraphql-validation\ta\n";
        let (g, open) = graphql_fixture("4.8.0", live, Some(gprev), &none).unwrap();
        let body: Vec<&str> = g.lines().skip(3).collect();
        assert_eq!(
            body,
            [
                "{ a }\terror\tERROR: x\tgraphql-validation\ta",
                "{ b }\thonoured\t\t-\t-",
                "{ c }\terror\tERROR: y\t?\t?"
            ]
        );
        assert_eq!(open, 1);
        assert!(g.starts_with("# GraphQL rows of netbox/v4.8.0/"));
    }
}
