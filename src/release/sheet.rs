//! The review sheet of a new release against the previous shipped one: what the documents say
//! changed ([`super::diff`]), which live verdicts changed ([`super::sweep`]), and every hand
//! rule ([`super::rules`]) with its source line in the new release (unchanged, changed, or
//! gone), the sweep rows that probed it and the index facts it rests on. The reviewer writes
//! the decisions into the rule tables; the tests that ask every per-release row for every
//! shipped release fail until then.

use super::diff::{self, Differences, Grouped};
use super::rules::{self, Rule};
use super::source::{self, Fate, Tree};
use super::sweep::{self, Class, Row};
use crate::index::FilterIndex;
use std::fmt::Write as _;

/// What the sheet is made from. Every part but the indexes may be missing (a release never
/// swept, no source at hand): its section then says so.
pub struct Inputs<'a> {
    /// The previous shipped release (`4.6.8`) and the new one (`4.7.3`).
    pub previous: &'a str,
    pub new: &'a str,
    pub old_index: &'a FilterIndex,
    pub new_index: &'a FilterIndex,
    /// The GraphQL SDL of each.
    pub old_sdl: Option<&'a str>,
    pub new_sdl: Option<&'a str>,
    /// Live sweep rows (`ground-truth-sweep.tsv`) of each.
    pub old_sweep: Option<&'a [Row]>,
    pub new_sweep: Option<&'a [Row]>,
    /// Replayed ground-truth rows (`ground-truth.tsv`) of each.
    pub old_truth: Option<&'a [Row]>,
    pub new_truth: Option<&'a [Row]>,
    /// Source trees of each.
    pub old_tree: Option<&'a Tree>,
    pub new_tree: Option<&'a Tree>,
}

/// The sheet and its figures.
#[derive(Debug, Default)]
pub struct Sheet {
    pub text: String,
    /// Lines of document differences (a group counts once).
    pub differences: usize,
    /// Sweep and ground-truth rows whose verdict changed, and rows first seen refused.
    pub verdicts_changed: usize,
    pub first_seen: usize,
    /// Hand-rule rows listed, and per-release rows the new release has no entry in yet.
    pub rules: usize,
    pub unreviewed: usize,
    /// Cited source lines followed into the new release: unchanged, changed, gone.
    pub unchanged: usize,
    pub changed: usize,
    pub gone: usize,
}

const MAX_WHERE: usize = 10;

fn where_text(w: &[String]) -> String {
    if w.len() <= MAX_WHERE {
        w.join(", ")
    } else {
        format!(
            "{} and {} more",
            w[..MAX_WHERE - 2].join(", "),
            w.len() - (MAX_WHERE - 2)
        )
    }
}

fn groups(out: &mut String, title: &str, g: &[Grouped]) {
    if g.is_empty() {
        let _ = writeln!(out, "{title}: none");
        return;
    }
    let _ = writeln!(out, "{title} ({}):", g.len());
    for x in g {
        let _ = writeln!(
            out,
            "  {}  [{}: {}]",
            x.what,
            x.r#where.len(),
            where_text(&x.r#where)
        );
    }
}

fn names(out: &mut String, title: &str, n: &[String]) {
    if n.is_empty() {
        let _ = writeln!(out, "{title}: none");
    } else {
        let _ = writeln!(out, "{title} ({}): {}", n.len(), n.join(", "));
    }
}

fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// The model of an endpoint (`dcim.frontport` → `frontport`) in `index`.
fn model_of(index: &FilterIndex, endpoint: &str) -> Option<String> {
    let t = index.endpoints.get(endpoint)?.object_type.as_deref()?;
    Some(t.split_once('.').map_or(t, |(_, m)| m).to_string())
}

/// `dcim/filtersets.py` for `dcim/front-ports`.
fn filterset_file(endpoint: &str) -> String {
    let app = endpoint.split('/').next().unwrap_or(endpoint);
    format!("{app}/filtersets.py")
}

/// Builds the sheet.
pub fn build(i: &Inputs) -> Sheet {
    let mut s = Sheet::default();
    let mut out = String::new();
    let (p, n) = (i.previous, i.new);
    let _ = writeln!(
        out,
        "# Review sheet: NetBox {n} against {p}\n\nWhat changed between the two releases, and every hand rule with its source line in {n}. \
         Write each decision into its table (the per-release rows of rest/faults.rs need a `(\"{n}\", At::Has {{..}} | At::Not(..))` entry), \
         with its evidence: a source line of {n} or a live row.\n"
    );

    // 1. The documents.
    let mut d = Differences::default();
    diff::rest(i.old_index, i.new_index, &mut d);
    let gql = match (i.old_sdl, i.new_sdl) {
        (Some(a), Some(b)) => diff::graphql(a, b, &mut d).err(),
        _ => Some("a schema is missing".to_string()),
    };
    s.differences = d.len();
    let _ = writeln!(out, "## 1. REST: the OpenAPI documents ({p} → {n})\n");
    names(&mut out, "endpoints added", &d.endpoints_added);
    names(&mut out, "endpoints removed", &d.endpoints_removed);
    groups(&mut out, "filters, lookups and value types", &d.filters);
    groups(&mut out, "choices", &d.choices);
    let _ = writeln!(out, "\n## 2. GraphQL: the schemas ({p} → {n})\n");
    if let Some(e) = gql {
        let _ = writeln!(out, "not compared: {e}");
    }
    names(&mut out, "types added", &d.types_added);
    names(&mut out, "types removed", &d.types_removed);
    groups(&mut out, "fields, input fields, enum values", &d.graphql);

    // 2. Live verdicts.
    let _ = writeln!(
        out,
        "\n## 3. Live: rows whose verdict differs ({p} → {n})\n"
    );
    for (label, old, new) in [
        ("sweep (ground-truth-sweep.tsv)", i.old_sweep, i.new_sweep),
        ("ground truth (ground-truth.tsv)", i.old_truth, i.new_truth),
    ] {
        let (Some(old), Some(new)) = (old, new) else {
            let _ = writeln!(out, "{label}: not compared (a release has no such file)\n");
            continue;
        };
        let c = sweep::compare(old, new);
        s.verdicts_changed += c.changes.len();
        s.first_seen += c.first_seen.len();
        let _ = writeln!(
            out,
            "{label}: {} rows of {n}, {} paired with one of the {} rows of {p}; {} changed, {} refused or faulted with no twin",
            c.new_rows,
            c.paired,
            c.old_rows,
            c.changes.len(),
            c.first_seen.len()
        );
        for ch in &c.changes {
            let q = if ch.old.query == ch.new.query {
                ch.new.query.clone()
            } else {
                format!("{} ({p}: {})", ch.new.query, ch.old.query)
            };
            let kind = if ch.new.kind.is_empty() {
                String::new()
            } else {
                format!(" [{}]", ch.new.kind)
            };
            let _ = writeln!(
                out,
                "  {} {q}: {} → {}{kind}{}",
                ch.new.endpoint,
                Class::of(&ch.old.verdict).name(),
                Class::of(&ch.new.verdict).name(),
                error_text(&ch.new.note)
            );
        }
        for r in &c.first_seen {
            let _ = writeln!(
                out,
                "  first seen: {} {}: {}{}",
                r.endpoint,
                r.query,
                Class::of(&r.verdict).name(),
                error_text(&r.note)
            );
        }
        out.push('\n');
    }

    // 3. Release notes.
    let mm = crate::version::Version::parse(n)
        .map(|v| format!("{}.{}", v.numbers[0], v.numbers[1]))
        .unwrap_or_default();
    let _ = writeln!(out, "## 4. Release notes of {n}\n");
    match i
        .new_tree
        .and_then(|t| t.release_notes(&mm))
        .and_then(|notes| source::notes_section(&notes, n))
    {
        Some(section) => {
            for line in notes_lines(&section) {
                let _ = writeln!(out, "  {line}");
            }
        }
        None => {
            let _ = writeln!(
                out,
                "not found (no source tree of {n}, or no section for it)"
            );
        }
    }
    out.push('\n');

    // 4. Hand rules.
    let keys: Vec<&str> = i.new_index.endpoints.keys().map(String::as_str).collect();
    let endpoint_of = |t: &str| i.new_index.object_types.get(t).cloned();
    let rows = rules::all(n, &keys, &endpoint_of);
    s.rules = rows.len();
    let _ = writeln!(
        out,
        "## 5. Hand rules: {} rows, each with its source in {n}\n",
        rows.len()
    );
    if i.new_tree.is_none() {
        let _ = writeln!(
            out,
            "(no source tree of {n} given: source lines are not looked up)\n"
        );
    }
    let mut table = "";
    let mut unreviewed: Vec<String> = Vec::new();
    for r in &rows {
        if r.table != table {
            table = r.table;
            let _ = writeln!(out, "### {table}\n");
        }
        if r.reviewed == Some(false) {
            unreviewed.push(format!("{}: {}", r.table, r.title));
        }
        rule(&mut out, &mut s, i, r);
    }
    s.unreviewed = unreviewed.len();

    let _ = writeln!(out, "## 6. To do\n");
    if unreviewed.is_empty() {
        let _ = writeln!(out, "Every per-release row has a {n} entry.");
    } else {
        let _ = writeln!(
            out,
            "{} per-release rows have no {n} entry (rest::faults::tests::every_row_reviews_every_shipped_release fails until they do):",
            unreviewed.len()
        );
        for u in &unreviewed {
            let _ = writeln!(out, "  - {u}");
        }
    }
    let _ = writeln!(
        out,
        "Then: a NOTES row (upgrade.rs) for each breaking change of {n} that a finding shows, view_params.rs and renames.rs rows for what section 1 and 4 show, and the ground-truth fixtures' new rows."
    );
    s.text = out;
    s
}

/// ` (NetBox: …)` with the error text of a refusal's note, or nothing.
fn error_text(note: &str) -> String {
    let t = note
        .split(" | ")
        .nth(1)
        .or_else(|| note.split_once("; ").map(|(_, t)| t))
        .unwrap_or("")
        .trim();
    if t.is_empty() {
        String::new()
    } else {
        format!(" — {}", short(t, 140))
    }
}

/// The lines of a release-notes section worth reading for filters and APIs: every line of a
/// patch release; for a minor release (`x.y.0`), its breaking changes, deprecations, bug fixes
/// and API sections.
fn notes_lines(section: &str) -> Vec<String> {
    let lines: Vec<&str> = section.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() <= 80 {
        return lines.iter().map(|l| short(l.trim(), 240)).collect();
    }
    let wanted = |h: &str| {
        let h = h.to_ascii_lowercase();
        [
            "breaking", "deprecat", "bug fix", "api", "graphql", "filter",
        ]
        .iter()
        .any(|w| h.contains(w))
    };
    let mut keep = false;
    let mut out = Vec::new();
    for l in lines {
        if l.starts_with('#') {
            keep = wanted(l);
            if keep || l.starts_with("## ") {
                out.push(l.trim().to_string());
            }
            continue;
        }
        if keep {
            out.push(short(l.trim(), 240));
        }
    }
    out
}

/// One rule's lines.
fn rule(out: &mut String, s: &mut Sheet, i: &Inputs, r: &Rule) {
    let n = i.new;
    let mark = match r.reviewed {
        Some(true) => format!(" [{n} entry present]"),
        Some(false) => format!(" [{n}: TO REVIEW]"),
        None => String::new(),
    };
    let _ = writeln!(out, "- {}{mark}", r.title);
    if let Some(p) = &r.previous {
        let _ = writeln!(out, "    previous: {}", short(p, 400));
    }
    // Index facts: the filter on its endpoints in both releases.
    if let Some(name) = &r.name {
        let facts: Vec<String> = r
            .endpoints
            .iter()
            .map(|e| {
                let has = |idx: &FilterIndex| {
                    idx.endpoints.get(e).map(|x| {
                        x.params.contains_key(name)
                            || x.params.keys().any(|k| k.starts_with(&format!("{name}__")))
                    })
                };
                let say = |h: Option<bool>| match h {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "no endpoint",
                };
                format!("{e} {}/{}", say(has(i.old_index)), say(has(i.new_index)))
            })
            .collect();
        if !facts.is_empty() {
            let _ = writeln!(
                out,
                "    index ({} / {n}) has `{name}`: {}",
                i.previous,
                where_text(&facts)
            );
        }
    }
    let Some(new_tree) = i.new_tree else {
        sweep_rows(out, i, r);
        return;
    };
    let mut shown = 0;
    // Cited lines of the previous release, followed into the new one.
    if let Some(old_tree) = i.old_tree {
        for (file, lines) in &r.cites {
            let (Some((rel, old_text)), Some((_, new_text))) =
                (old_tree.read(file), new_tree.read(file))
            else {
                let _ = writeln!(out, "    {file}: not in both source trees");
                continue;
            };
            for &line in lines {
                let Some(cited) = old_text.lines().nth(line.saturating_sub(1)) else {
                    let _ = writeln!(out, "    {rel} L{line}: no such line in {}", i.previous);
                    continue;
                };
                // A line that lists the filter (`Meta.fields`) is followed as a line; any other
                // as the statement it belongs to (`to_field_name=...` → the whole filter).
                let listed = r.name.as_ref().is_some_and(|n| {
                    cited.contains(&format!("'{n}'")) || cited.contains(&format!("\"{n}\""))
                });
                let old_stmt = if listed {
                    source::statement(&old_text, line)
                } else {
                    source::enclosing(&old_text, line).map(|(_, s)| s)
                }
                .unwrap_or_default();
                let class = source::class_at(&old_text, line);
                let fate =
                    source::follow(&new_text, &old_stmt, class.as_deref(), r.name.as_deref());
                shown += 1;
                let cls = class.map_or(String::new(), |c| format!(" ({c})"));
                match fate {
                    Fate::Unchanged(l) => {
                        s.unchanged += 1;
                        let _ = writeln!(
                            out,
                            "    {rel} L{line}{cls} → {n} L{l}: unchanged: {}",
                            short(&old_stmt, 160)
                        );
                    }
                    Fate::Changed(l, now) => {
                        s.changed += 1;
                        let _ = writeln!(
                            out,
                            "    {rel} L{line}{cls} → {n} L{l}: CHANGED\n      {}: {}\n      {n}: {}",
                            i.previous,
                            short(&old_stmt, 200),
                            short(&now, 200)
                        );
                    }
                    Fate::Gone => {
                        s.gone += 1;
                        let _ = writeln!(
                            out,
                            "    {rel} L{line}{cls} → {n}: GONE (nothing of that name in the class)\n      {}: {}",
                            i.previous,
                            short(&old_stmt, 200)
                        );
                    }
                }
            }
        }
    }
    // Without cited lines: the declaration by name, in each endpoint's filterset.
    if shown == 0 {
        if let Some(name) = &r.name {
            let mut seen: Vec<(String, usize)> = Vec::new();
            for e in &r.endpoints {
                let file = filterset_file(e);
                let Some(model) = model_of(i.new_index, e).or_else(|| model_of(i.old_index, e))
                else {
                    continue;
                };
                let Some((rel, text)) = new_tree.read(&file) else {
                    continue;
                };
                match source::declaration(&text, &model, name) {
                    Some((l, class)) => {
                        if seen.contains(&(rel.clone(), l)) {
                            continue;
                        }
                        seen.push((rel.clone(), l));
                        let stmt = source::statement(&text, l).unwrap_or_default();
                        let before = i.old_tree.and_then(|t| {
                            let (_, old) = t.read(&file)?;
                            let (ol, _) = source::declaration(&old, &model, name)?;
                            source::statement(&old, ol)
                        });
                        let state = match &before {
                            Some(b) if *b == stmt => {
                                s.unchanged += 1;
                                "unchanged"
                            }
                            Some(_) => {
                                s.changed += 1;
                                "CHANGED"
                            }
                            None if i.old_tree.is_some() => "new",
                            None => "found",
                        };
                        let _ = writeln!(
                            out,
                            "    {rel} L{l} ({class}): {state}: {}",
                            short(&stmt, 200)
                        );
                        if let (Some(b), "CHANGED") = (&before, state) {
                            let _ = writeln!(out, "      {}: {}", i.previous, short(b, 200));
                        }
                        if let Some(x) = r.expect {
                            if !stmt.contains(x) {
                                let _ = writeln!(out, "      NOTE: no longer has `{x}`");
                            }
                        }
                    }
                    None => {
                        let _ = writeln!(
                            out,
                            "    {file}: no declaration of `{name}` for {e} (generated from a model field, or gone)"
                        );
                    }
                }
            }
            for file in &r.files {
                let Some((rel, text)) = new_tree.read(file) else {
                    let _ = writeln!(out, "    {file}: not in the {n} source");
                    continue;
                };
                let hits = mentions(&text, name);
                let old_hits = i
                    .old_tree
                    .and_then(|t| t.read(file))
                    .map(|(_, o)| mentions(&o, name));
                let same = old_hits.as_ref().map(|o| {
                    o.iter().map(|x| &x.1).collect::<Vec<_>>()
                        == hits.iter().map(|x| &x.1).collect::<Vec<_>>()
                });
                let state = match same {
                    Some(true) => {
                        s.unchanged += 1;
                        "unchanged"
                    }
                    Some(false) => {
                        s.changed += 1;
                        "CHANGED"
                    }
                    None => "found",
                };
                if hits.is_empty() {
                    let _ = writeln!(out, "    {rel}: `{name}` not mentioned in {n} ({state})");
                }
                for (l, t) in hits.iter().take(4) {
                    let _ = writeln!(out, "    {rel} L{l}: {state}: {}", short(t, 160));
                }
                if let (Some(false), Some(o)) = (same, &old_hits) {
                    for (l, t) in o.iter().take(4) {
                        let _ = writeln!(out, "      {} L{l}: {}", i.previous, short(t, 160));
                    }
                }
            }
        }
    }
    sweep_rows(out, i, r);
}

/// Lines of `text` that name parameter `name` in quotes or as `<name>_query_param`.
fn mentions(text: &str, name: &str) -> Vec<(usize, String)> {
    let q = [
        format!("'{name}'"),
        format!("\"{name}\""),
        format!("{name}_query_param"),
    ];
    text.lines()
        .enumerate()
        .filter(|(_, l)| q.iter().any(|x| l.contains(x.as_str())))
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .collect()
}

/// The sweep rows of both releases that probed the rule's filter on its endpoints.
fn sweep_rows(out: &mut String, i: &Inputs, r: &Rule) {
    let Some(name) = &r.name else {
        return;
    };
    if r.endpoints.is_empty() {
        return;
    }
    for (version, rows) in [(i.previous, i.old_sweep), (i.new, i.new_sweep)] {
        let Some(rows) = rows else {
            continue;
        };
        let hits: Vec<&Row> = rows
            .iter()
            .filter(|x| {
                r.endpoints.contains(&x.endpoint)
                    && sweep::keys(&x.query)
                        .iter()
                        .any(|k| k.split("__").next() == Some(name.as_str()))
            })
            .collect();
        if hits.is_empty() {
            continue;
        }
        let mut by_class: Vec<(Class, Vec<&Row>)> = Vec::new();
        for h in &hits {
            let c = Class::of(&h.verdict);
            match by_class.iter_mut().find(|(k, _)| *k == c) {
                Some((_, v)) => v.push(h),
                None => by_class.push((c, vec![h])),
            }
        }
        let parts: Vec<String> = by_class
            .iter()
            .map(|(c, v)| {
                let ex: Vec<String> = v
                    .iter()
                    .take(2)
                    .map(|x| format!("{} {}", x.endpoint, x.query))
                    .collect();
                format!("{} {} (e.g. {})", v.len(), c.name(), ex.join("; "))
            })
            .collect();
        let _ = writeln!(out, "    {version} sweep: {}", parts.join("; "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::embedded;

    /// The vendored files of 4.6.8 and 4.7.3 (indexes, schemas, sweep fixtures) give a sheet
    /// that shows what the hand review of 4.7.3 found: the four server faults fixed, the 400s
    /// that replaced 500s, the lookups of `protocol` removed and its choices gone from the
    /// document, and every per-release row reviewed.
    #[test]
    fn sheet_of_4_7_3_from_the_vendored_files() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |p: &str| std::fs::read(root.join(p)).unwrap();
        let sdl = |v: &str| {
            let b = crate::graphql::schema::maybe_gunzip(&read(&format!(
                "index/netbox-{v}.schema.graphql.gz"
            )))
            .unwrap();
            String::from_utf8(b).unwrap()
        };
        let sweep = |v: &str| {
            let t = String::from_utf8(read(&format!("tests/fixtures/ground-truth/v{v}-sweep.tsv")))
                .unwrap();
            sweep::parse(&t).unwrap()
        };
        let (old_i, new_i) = (
            embedded::load("4.6.8").unwrap(),
            embedded::load("4.7.3").unwrap(),
        );
        let (old_s, new_s) = (sdl("4.6.8"), sdl("4.7.3"));
        let (old_w, new_w) = (sweep("4.6.8"), sweep("4.7.3"));
        let sheet = build(&Inputs {
            previous: "4.6.8",
            new: "4.7.3",
            old_index: &old_i,
            new_index: &new_i,
            old_sdl: Some(&old_s),
            new_sdl: Some(&new_s),
            old_sweep: Some(&old_w),
            new_sweep: Some(&new_w),
            old_truth: None,
            new_truth: None,
            old_tree: None,
            new_tree: None,
        });
        let t = &sheet.text;
        for want in [
            // The faults 4.7.3 fixed, from the sweeps.
            "dcim/front-ports rear_port_id=1250: HTTP 500 → honoured",
            "dcim/module-bays installed_module_id=4: HTTP 500 → honoured",
            "circuits/circuits provider_account=999999: HTTP 500 → honoured",
            // 500s that became 400s.
            "dcim/rack-reservations unit=999999: HTTP 500 → HTTP 400",
            "time_zone__n=zz-no-such (4.6.8: time_zone=zz-no-such): HTTP 500 → HTTP 400",
            // The lookups of `protocol` removed, and its choice set gone from the document.
            "- lookups `protocol__empty`, `protocol__ic`",
            "`protocol` lost its choice set",
            // The new endpoints.
            "dcim/cooling-feeds",
            // Every per-release row has its 4.7.3 entry.
            "Every per-release row has a 4.7.3 entry.",
        ] {
            assert!(t.contains(want), "the sheet lacks {want:?}:\n{t}");
        }
        assert!(sheet.verdicts_changed >= 10, "{}", sheet.verdicts_changed);
        assert_eq!(sheet.unreviewed, 0);
        assert!(sheet.rules > 100, "{}", sheet.rules);
    }
}
