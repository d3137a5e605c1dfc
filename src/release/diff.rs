//! What two releases' documents say changed: endpoints, filters, lookups, value types and
//! choices of the REST indexes, and types, fields, input fields and enum values of the GraphQL
//! schemas. Each change is one line; a change made on many endpoints (a filter every model
//! gained) or types is one line with the list of where, so the review reads it once.

use crate::index::{FilterIndex, Parameter};
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::Schema;
use std::collections::{BTreeMap, BTreeSet};

/// One kind of change and where it happened (endpoint keys or GraphQL type names), sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouped {
    /// What changed, e.g. "+ filter `owner_id` (lookups: n)".
    pub what: String,
    /// Where: endpoint keys or type names.
    pub r#where: Vec<String>,
}

/// The differences of two releases, in sections, each sorted by what changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Differences {
    pub endpoints_added: Vec<String>,
    pub endpoints_removed: Vec<String>,
    /// Filters (a base name with its lookups) added or removed, lookups added to or removed
    /// from a filter both releases have, value types changed.
    pub filters: Vec<Grouped>,
    /// Choice values added or removed, and choice sets the document gained or lost.
    pub choices: Vec<Grouped>,
    pub types_added: Vec<String>,
    pub types_removed: Vec<String>,
    /// Fields, input fields, arguments and enum values added, removed or retyped, and fields
    /// newly marked `@deprecated`.
    pub graphql: Vec<Grouped>,
}

impl Differences {
    /// Lines of change in all sections (a group counts once).
    pub fn len(&self) -> usize {
        self.endpoints_added.len()
            + self.endpoints_removed.len()
            + self.filters.len()
            + self.choices.len()
            + self.types_added.len()
            + self.types_removed.len()
            + self.graphql.len()
    }

    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Collects `(what, where)` pairs into groups sorted by `what`.
#[derive(Default)]
struct Groups(BTreeMap<String, BTreeSet<String>>);

impl Groups {
    fn add(&mut self, what: String, r#where: &str) {
        self.0.entry(what).or_default().insert(r#where.to_string());
    }

    fn done(self) -> Vec<Grouped> {
        self.0
            .into_iter()
            .map(|(what, w)| Grouped {
                what,
                r#where: w.into_iter().collect(),
            })
            .collect()
    }
}

/// The filters of an endpoint by base name: base → lookups (`""` for the bare filter).
fn by_base(e: &crate::index::Endpoint) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut out: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for name in e.params.keys() {
        let (base, lookup) = name.split_once("__").unwrap_or((name, ""));
        out.entry(base).or_default().insert(lookup);
    }
    out
}

fn lookups_text(l: &BTreeSet<&str>) -> String {
    let named: Vec<&str> = l.iter().copied().filter(|l| !l.is_empty()).collect();
    if named.is_empty() {
        String::new()
    } else {
        format!(" (lookups: {})", named.join(", "))
    }
}

fn choice_values<'a>(i: &'a FilterIndex, p: &Parameter) -> Option<BTreeSet<&'a str>> {
    i.choices(p)
        .map(|c| c.choices.iter().map(|(v, _)| v.as_str()).collect())
}

fn list(values: &BTreeSet<&str>) -> String {
    const MAX: usize = 12;
    let shown: Vec<String> = values.iter().take(MAX).map(|v| format!("`{v}`")).collect();
    let more = values.len().saturating_sub(MAX);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The REST differences of `old` → `new`.
pub fn rest(old: &FilterIndex, new: &FilterIndex, out: &mut Differences) {
    let mut filters = Groups::default();
    let mut choices = Groups::default();
    for key in old.endpoints.keys() {
        if !new.endpoints.contains_key(key) {
            out.endpoints_removed.push(key.clone());
        }
    }
    for (key, e) in &new.endpoints {
        let Some(o) = old.endpoints.get(key) else {
            out.endpoints_added
                .push(format!("{key} ({} parameters)", e.params.len()));
            continue;
        };
        let (ob, nb) = (by_base(o), by_base(e));
        for (base, ls) in &nb {
            match ob.get(base) {
                None => filters.add(format!("+ filter `{base}`{}", lookups_text(ls)), key),
                Some(ol) => {
                    let added: BTreeSet<&str> = ls.difference(ol).copied().collect();
                    let removed: BTreeSet<&str> = ol.difference(ls).copied().collect();
                    for (sign, set) in [("+", &added), ("-", &removed)] {
                        if set.is_empty() {
                            continue;
                        }
                        let names: Vec<String> = set
                            .iter()
                            .map(|l| {
                                if l.is_empty() {
                                    format!("`{base}`")
                                } else {
                                    format!("`{base}__{l}`")
                                }
                            })
                            .collect();
                        filters.add(format!("{sign} lookups {}", names.join(", ")), key);
                    }
                }
            }
        }
        for (base, ls) in &ob {
            if !nb.contains_key(base) {
                filters.add(format!("- filter `{base}`{}", lookups_text(ls)), key);
            }
        }
        // Value types and choices of the names both have (the bare filter speaks for its
        // lookups, which share its choice set).
        for (name, p) in e.params.iter() {
            let Some(op) = o.params.get(name) else {
                continue;
            };
            let mut changed = Vec::new();
            if op.kind != p.kind {
                changed.push(format!("{:?} (was {:?})", p.kind, op.kind).to_lowercase());
            }
            if op.multi != p.multi {
                changed.push(if p.multi { "a list" } else { "one value" }.to_string());
            }
            if !changed.is_empty() {
                filters.add(format!("~ `{name}` takes {}", changed.join(", ")), key);
            }
            if name.contains("__") {
                continue;
            }
            match (choice_values(old, op), choice_values(new, p)) {
                (Some(a), Some(b)) if a != b => {
                    let plus: BTreeSet<&str> = b.difference(&a).copied().collect();
                    let minus: BTreeSet<&str> = a.difference(&b).copied().collect();
                    let mut parts = Vec::new();
                    if !plus.is_empty() {
                        parts.push(format!("+ {}", list(&plus)));
                    }
                    if !minus.is_empty() {
                        parts.push(format!("- {}", list(&minus)));
                    }
                    choices.add(format!("`{name}`: {}", parts.join("; ")), key);
                }
                (Some(a), None) => choices.add(
                    format!(
                        "`{name}` lost its choice set in the document ({} values): the index no longer checks them",
                        a.len()
                    ),
                    key,
                ),
                (None, Some(b)) => choices.add(
                    format!("`{name}` gained a choice set ({})", list(&b)),
                    key,
                ),
                _ => {}
            }
        }
    }
    out.filters = filters.done();
    out.choices = choices.done();
}

/// The GraphQL differences of SDL `old` → `new`. Errors when either does not parse.
pub fn graphql(old: &str, new: &str, out: &mut Differences) -> Result<(), String> {
    let parse = |sdl: &str, name: &str| {
        Schema::parse(sdl, name).map_err(|e| {
            let first = e.errors.iter().next().map(|d| d.to_string());
            format!("{name}: {}", first.unwrap_or_default())
        })
    };
    let (a, b) = (parse(old, "old.graphql")?, parse(new, "new.graphql")?);
    let user = |s: &Schema| -> BTreeMap<String, ExtendedType> {
        s.types
            .iter()
            .filter(|(n, t)| !n.starts_with("__") && !t.is_built_in())
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect()
    };
    let (ta, tb) = (user(&a), user(&b));
    out.types_removed = ta
        .keys()
        .filter(|n| !tb.contains_key(*n))
        .cloned()
        .collect();
    out.types_added = tb
        .keys()
        .filter(|n| !ta.contains_key(*n))
        .cloned()
        .collect();
    let mut g = Groups::default();
    for (name, nt) in &tb {
        let Some(ot) = ta.get(name) else {
            continue;
        };
        compare_type(name, ot, nt, &mut g);
    }
    out.graphql = g.done();
    Ok(())
}

/// `name: Type` of each field (or input field), with `@deprecated` noted.
fn members(t: &ExtendedType) -> BTreeMap<String, (String, bool)> {
    let mut out = BTreeMap::new();
    match t {
        ExtendedType::Object(o) => {
            for (n, f) in &o.fields {
                let args: Vec<String> = f
                    .arguments
                    .iter()
                    .map(|a| format!("{}: {}", a.name, a.ty))
                    .collect();
                let sig = if args.is_empty() {
                    f.ty.to_string()
                } else {
                    format!("{} ({})", f.ty, args.join(", "))
                };
                out.insert(n.to_string(), (sig, f.directives.has("deprecated")));
            }
        }
        ExtendedType::Interface(o) => {
            for (n, f) in &o.fields {
                out.insert(
                    n.to_string(),
                    (f.ty.to_string(), f.directives.has("deprecated")),
                );
            }
        }
        ExtendedType::InputObject(o) => {
            for (n, f) in &o.fields {
                out.insert(
                    n.to_string(),
                    (f.ty.to_string(), f.directives.has("deprecated")),
                );
            }
        }
        ExtendedType::Enum(e) => {
            for (n, v) in &e.values {
                out.insert(
                    n.to_string(),
                    (String::new(), v.directives.has("deprecated")),
                );
            }
        }
        ExtendedType::Union(u) => {
            for m in &u.members {
                out.insert(m.to_string(), (String::new(), false));
            }
        }
        ExtendedType::Scalar(_) => {}
    }
    out
}

fn kind_name(t: &ExtendedType) -> &'static str {
    match t {
        ExtendedType::Object(_) => "type",
        ExtendedType::Interface(_) => "interface",
        ExtendedType::InputObject(_) => "input",
        ExtendedType::Enum(_) => "enum",
        ExtendedType::Union(_) => "union",
        ExtendedType::Scalar(_) => "scalar",
    }
}

fn compare_type(name: &str, old: &ExtendedType, new: &ExtendedType, g: &mut Groups) {
    if kind_name(old) != kind_name(new) {
        g.add(
            format!("~ became {} (was {})", kind_name(new), kind_name(old)),
            name,
        );
        return;
    }
    let noun = match new {
        ExtendedType::Enum(_) => "enum value",
        ExtendedType::Union(_) => "member",
        ExtendedType::InputObject(_) => "input field",
        _ => "field",
    };
    let (a, b) = (members(old), members(new));
    if let ExtendedType::Enum(_) | ExtendedType::Union(_) = new {
        // Values of one enum in one line: `+ enum values A, B`.
        let plus: Vec<String> = b
            .keys()
            .filter(|n| !a.contains_key(*n))
            .map(|n| format!("`{n}`"))
            .collect();
        let minus: Vec<String> = a
            .keys()
            .filter(|n| !b.contains_key(*n))
            .map(|n| format!("`{n}`"))
            .collect();
        for (sign, list) in [("+", plus), ("-", minus)] {
            if !list.is_empty() {
                g.add(format!("{sign} {noun}s {}", list.join(", ")), name);
            }
        }
        return;
    }
    for (n, (ty, dep)) in &b {
        let shown = if ty.is_empty() {
            format!("`{n}`")
        } else {
            format!("`{n}: {ty}`")
        };
        match a.get(n) {
            None => g.add(format!("+ {noun} {shown}"), name),
            Some((oty, odep)) => {
                if oty != ty {
                    g.add(format!("~ {noun} {shown} (was `{oty}`)"), name);
                }
                if *dep && !odep {
                    g.add(format!("~ {noun} `{n}` marked @deprecated"), name);
                }
            }
        }
    }
    for (n, (ty, _)) in &a {
        if !b.contains_key(n) {
            let shown = if ty.is_empty() {
                format!("`{n}`")
            } else {
                format!("`{n}: {ty}`")
            };
            g.add(format!("- {noun} {shown}"), name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::build::build_from_openapi;

    fn doc(version: &str, params: &[(&str, &str)]) -> FilterIndex {
        let params: Vec<String> = params
            .iter()
            .map(|(n, schema)| format!(r#"{{"name":"{n}","in":"query","schema":{schema}}}"#))
            .collect();
        let json = format!(
            r#"{{"openapi":"3.0.3","info":{{"title":"NetBox REST API","version":"{version}"}},
            "paths":{{"/api/ipam/services/":{{"get":{{"operationId":"ipam_services_list","parameters":[{}],
            "responses":{{"200":{{"content":{{"application/json":{{"schema":{{"type":"object"}}}}}}}}}}}}}}}}}}"#,
            params.join(",")
        );
        build_from_openapi(json.as_bytes()).unwrap()
    }

    const TEXT: &str = r#"{"type":"array","items":{"type":"string"}}"#;
    const PROTO: &str = r#"{"type":"array","items":{"type":"string","enum":["sctp","tcp","udp"]}}"#;

    /// 4.6.8 → 4.7.3 on services, in miniature: the text lookups of `protocol` went, its choice
    /// set left the document, `port_mappings` came.
    #[test]
    fn rest_changes_are_grouped() {
        let old = doc(
            "4.6.8",
            &[
                ("protocol", PROTO),
                ("protocol__ic", TEXT),
                ("port__empty", TEXT),
                ("port", TEXT),
            ],
        );
        let new = doc(
            "4.7.3",
            &[("protocol", TEXT), ("port", TEXT), ("port_mappings", TEXT)],
        );
        let mut d = Differences::default();
        rest(&old, &new, &mut d);
        let filters: Vec<&str> = d.filters.iter().map(|g| g.what.as_str()).collect();
        assert_eq!(
            filters,
            [
                "+ filter `port_mappings`",
                "- lookups `port__empty`",
                "- lookups `protocol__ic`"
            ]
        );
        assert_eq!(d.filters[0].r#where, ["ipam/services"]);
        assert_eq!(d.choices.len(), 1);
        assert!(
            d.choices[0]
                .what
                .starts_with("`protocol` lost its choice set"),
            "{:?}",
            d.choices
        );
        let mut same = Differences::default();
        rest(&new, &new, &mut same);
        assert!(same.is_empty());
    }

    #[test]
    fn graphql_changes() {
        let old = "type Query { a: A }\ntype A { x: Int\n y: String }\nenum E { ONE TWO }\ninput F { p: Int }";
        let new = "type Query { a: A }\ntype A { x: String\n y: String @deprecated(reason: \"use z\")\n z: String }\nenum E { ONE }\ninput F { p: Int q: Int }\ntype B { b: Int }";
        let mut d = Differences::default();
        graphql(old, new, &mut d).unwrap();
        assert_eq!(d.types_added, ["B"]);
        let lines: Vec<String> = d
            .graphql
            .iter()
            .map(|g| format!("{} @ {}", g.what, g.r#where.join(",")))
            .collect();
        assert_eq!(
            lines,
            [
                "+ field `z: String` @ A",
                "+ input field `q: Int` @ F",
                "- enum values `TWO` @ E",
                "~ field `x: String` (was `Int`) @ A",
                "~ field `y` marked @deprecated @ A",
            ]
        );
        assert!(graphql("type {", new, &mut d).is_err());
    }
}
