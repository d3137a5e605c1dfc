//! Deterministic benchmark inputs shared by `benches/check.rs` and `benches/lsp.rs`: a realistic
//! 5,000-line SKILL.md, and a corpus of filter dicts drawn from a real filter index (valid
//! names, typos, `__in`, Django lookups, `None` values, wrong choice labels).
//!
//! Everything comes from a fixed-seed generator, so every run (and the Python baseline, which
//! reads the dump written by [`dump`]) sees the same bytes.
#![allow(dead_code)]

use netbox_lsp::index::{FilterIndex, ValueKind};
use std::fmt::Write as _;
use std::path::Path;

/// A small fixed-seed generator (SplitMix64): deterministic across runs and platforms.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `pct` percent.
    pub fn pct(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Number of lines of the generated SKILL.md (issue 2 §5, issue 3 §3).
pub const SKILL_LINES: usize = 5_000;

/// Number of filter dicts in the corpus (issue 2 §5).
pub const CORPUS_SIZE: usize = 10_000;

const SITES: &[&str] = &[
    "dc-frankfurt-1",
    "dc-amsterdam-2",
    "pop-paris-3",
    "branch-lyon",
    "lab-berlin",
];
const ROLES: &[&str] = &["leaf", "spine", "access-switch", "firewall", "pdu"];

/// One section (~45 lines) of the SKILL.md: prose with URLs and inline code, and python, json,
/// yaml and graphql fences with MCP tool calls. Every fourth section carries wrong filters
/// (renamed, Django lookups, labels for choice values, null tests, `within` on IP addresses).
fn section(i: usize, rng: &mut Rng) -> String {
    let site = rng.pick(SITES);
    let role = rng.pick(ROLES);
    let role_id = 1 + rng.below(40);
    let dev_id = 100 + rng.below(5000);
    let vrf = 1 + rng.below(9);
    let wrong = i % 4 == 3;
    let mut s = String::new();
    let _ = write!(
        s,
        "## {i}. {role} devices at {site}\n\
         \n\
         Ask for the {role} devices of `{site}` by the site **slug** and the role id. NetBox ignores a\n\
         filter it does not know and returns the whole table, so compare the `count` with what you\n\
         expect. In the browser the same list is\n\
         https://netbox.example.net/api/dcim/devices/?site={site}&role_id={role_id}&status=active and the\n\
         prefixes of the site are at `/api/ipam/prefixes/?site={site}&status=container`.\n\
         \n"
    );
    let role_key = if wrong { "device_role_id" } else { "role_id" };
    let status = if wrong { "Active" } else { "active" };
    let _ = write!(
        s,
        "```python\n\
         netbox_get_objects(\n    \"dcim.device\",\n    filters={{\"site\": \"{site}\", \"{role_key}\": {role_id}, \"status\": \"{status}\"}},\n    fields=[\"id\", \"name\", \"primary_ip4\"],\n    limit=100,\n)\n\
         netbox_get_objects(\"dcim.interface\", filters={{\"device_id\": {dev_id}, \"enabled\": True}})\n\
         ```\n\
         \n\
         1. Then list the addresses on one interface:\n\
         \n   ```python\n   netbox_get_objects(\"ipam.ipaddress\", filters={{\"interface_id\": {}, \"vrf_id\": {vrf}}})\n   ```\n\
         \n",
        dev_id * 4
    );
    let tenant = if wrong {
        "\"tenant__isnull\": true"
    } else {
        "\"tenant_id\": \"null\""
    };
    let _ = write!(
        s,
        "Devices without a tenant, as a tool call object:\n\
         \n\
         ```json\n\
         {{\"name\": \"netbox_get_objects\", \"arguments\": {{\"object_type\": \"dcim.device\", \"filters\": {{\"site\": \"{site}\", {tenant}}}, \"limit\": 50}}}}\n\
         ```\n\
         \n"
    );
    let ip_filter = if wrong { "within" } else { "parent" };
    let _ = write!(
        s,
        "Addresses in the site's management prefix (recorded agent call):\n\
         \n\
         ```yaml\n\
         - tool: netbox_get_objects\n\
         \x20 arguments:\n\
         \x20   object_type: ipam.ipaddress\n\
         \x20   filters:\n\
         \x20     {ip_filter}: 10.{}.0.0/16\n\
         \x20     vrf_id: {vrf}\n\
         \x20     status: active\n\
         \x20   limit: 100\n\
         ```\n\
         \n",
        i % 250
    );
    let name_filter = if wrong { "name__icontains" } else { "name__ic" };
    let _ = write!(
        s,
        "The same devices through GraphQL, with their primary address:\n\
         \n\
         ```graphql\n\
         query Devices{i} {{\n\
         \x20 device_list(\n\
         \x20   filters: {{status: {{exact: STATUS_ACTIVE}}, site: {{slug: {{exact: \"{site}\"}}}}}}\n\
         \x20   pagination: {{limit: 100, offset: 0}}\n\
         \x20 ) {{\n\
         \x20   id\n\
         \x20   name\n\
         \x20   primary_ip4 {{ address }}\n\
         \x20 }}\n\
         }}\n\
         ```\n\
         \n\
         Search by name only when the user gives part of one:\n\
         `netbox_get_objects(\"dcim.device\", {{\"{name_filter}\": \"{role}\", \"site\": \"{site}\"}})`.\n\
         Recent changes to these devices: `netbox_get_changelogs({{\"changed_object_type\": \"dcim.device\", \"action\": \"update\"}})`.\n\
         \n"
    );
    s
}

/// A realistic SKILL.md of exactly `lines` lines: YAML front matter, a title, then generated
/// sections (see [`section`]), padded with prose.
pub fn skill_md(lines: usize) -> String {
    let mut rng = Rng::new(0x5EED_0001);
    let mut out = String::from(
        "---\n\
         name: netbox-operations\n\
         description: >-\n\
         \x20 Answer inventory and change questions from NetBox through the NetBox MCP server.\n\
         allowed-tools: netbox_get_objects, netbox_get_object_by_id, netbox_get_changelogs, netbox_graphql\n\
         ---\n\
         \n\
         # NetBox operations (generated for the benchmarks)\n\
         \n",
    );
    let mut i = 0;
    loop {
        let s = section(i, &mut rng);
        if out.lines().count() + s.lines().count() > lines {
            break;
        }
        out.push_str(&s);
        i += 1;
    }
    let mut n = out.lines().count();
    while n < lines {
        let _ = writeln!(out, "Keep each call narrow; note {n} on the runbook.");
        n += 1;
    }
    out
}

/// A literal value of the corpus, rendered as Python.
#[derive(Debug, Clone)]
pub enum Lit {
    Int(i64),
    Str(String),
    Bool(bool),
    Float(f64),
    None,
    List(Vec<Lit>),
}

impl Lit {
    pub fn python(&self, out: &mut String) {
        match self {
            Lit::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Lit::Str(s) => {
                let _ = write!(out, "\"{s}\"");
            }
            Lit::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            Lit::Float(f) => {
                let _ = write!(out, "{f:?}");
            }
            Lit::None => out.push_str("None"),
            Lit::List(items) => {
                out.push('[');
                for (k, it) in items.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    it.python(out);
                }
                out.push(']');
            }
        }
    }
}

/// One filter dict of the corpus: the object type and its `(key, value)` pairs.
#[derive(Debug, Clone)]
pub struct Dict {
    pub object_type: String,
    pub filters: Vec<(String, Lit)>,
}

/// Object types agents query most; drawn 70 % of the time (the rest: any object type).
const COMMON: &[&str] = &[
    "dcim.device",
    "dcim.interface",
    "ipam.ipaddress",
    "ipam.prefix",
    "ipam.vlan",
    "dcim.site",
    "virtualization.virtualmachine",
    "circuits.circuit",
    "tenancy.tenant",
    "dcim.cable",
    "dcim.rack",
];

fn typo(name: &str, rng: &mut Rng) -> String {
    let b: Vec<char> = name.chars().collect();
    if b.len() < 3 {
        return format!("{name}s");
    }
    let at = 1 + rng.below(b.len() - 2);
    let mut out: Vec<char> = b.clone();
    match rng.below(3) {
        0 => {
            out.remove(at);
        }
        1 => out.swap(at, at - 1),
        _ => out.insert(at, 'e'),
    }
    out.into_iter().collect()
}

fn value_for(index: &FilterIndex, p: &netbox_lsp::index::Parameter, rng: &mut Rng) -> Lit {
    if let Some(set) = index.choices(p) {
        if !set.choices.is_empty() {
            return Lit::Str(rng.pick(&set.choices).0.clone());
        }
    }
    match p.kind {
        ValueKind::Integer => Lit::Int(1 + rng.below(5000) as i64),
        ValueKind::Number => Lit::Float(1.5),
        ValueKind::Boolean => Lit::Bool(rng.pct(50)),
        ValueKind::Date => Lit::Str("2025-01-15".into()),
        ValueKind::DateTime => Lit::Str("2025-01-15T10:00:00Z".into()),
        ValueKind::Uuid => Lit::Str("0f8fad5b-d9cb-469f-a165-70867728950e".into()),
        ValueKind::String => Lit::Str(rng.pick(SITES).to_string()),
    }
}

/// `n` filter dicts for object types of `index` (see the module docs for the mix). Each key is:
/// a valid filter (55 %: a bare filter, sometimes with a lookup), a typo of one (12 %), a bare
/// filter with `__in` and a list (10 %), a valid filter with `None` (8 %), a Django lookup (5 %),
/// a choice label instead of its value (5 %), or an exempt name (5 %).
pub fn filter_corpus(index: &FilterIndex, n: usize) -> Vec<Dict> {
    let mut rng = Rng::new(0x5EED_0002);
    let all: Vec<&String> = index.object_types.keys().collect();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let ot: String = if rng.pct(70) {
            rng.pick(COMMON).to_string()
        } else {
            rng.pick(&all).to_string()
        };
        let Some((_, ep)) = index.resolve(&ot) else {
            continue;
        };
        let names: Vec<(&str, _)> = ep.params.iter().collect();
        let bare: Vec<(&str, _)> = names
            .iter()
            .copied()
            .filter(|(k, _)| !k.contains("__"))
            .collect();
        if bare.is_empty() {
            continue;
        }
        let keys = 1 + rng.below(4);
        let mut filters = Vec::with_capacity(keys);
        for _ in 0..keys {
            let (name, p) = *rng.pick(&bare);
            let roll = rng.below(100);
            let entry = match roll {
                0..=39 => (name.to_string(), value_for(index, p, &mut rng)),
                40..=54 => {
                    let (k, p) = *rng.pick(&names);
                    (k.to_string(), value_for(index, p, &mut rng))
                }
                55..=66 => (typo(name, &mut rng), value_for(index, p, &mut rng)),
                67..=76 => (
                    format!("{name}__in"),
                    Lit::List(vec![
                        value_for(index, p, &mut rng),
                        value_for(index, p, &mut rng),
                    ]),
                ),
                77..=84 => (name.to_string(), Lit::None),
                85..=89 => (format!("{name}__icontains"), Lit::Str("edge".into())),
                90..=94 => match index.choices(p).and_then(|s| s.choices.first()) {
                    Some((_, label)) => (name.to_string(), Lit::Str(label.clone())),
                    None => (name.to_string(), value_for(index, p, &mut rng)),
                },
                _ => (
                    rng.pick(&["limit", "ordering", "q", "brief"]).to_string(),
                    Lit::Str("name".into()),
                ),
            };
            if !filters.iter().any(|(k, _): &(String, Lit)| *k == entry.0) {
                filters.push(entry);
            }
        }
        out.push(Dict {
            object_type: ot,
            filters,
        });
    }
    out
}

/// The corpus as a Python file: one `netbox_get_objects(...)` call per line.
pub fn corpus_python(corpus: &[Dict]) -> String {
    let mut out = String::from("# Generated benchmark corpus: one MCP tool call per line.\n");
    for d in corpus {
        let _ = write!(out, "netbox_get_objects(\"{}\", filters={{", d.object_type);
        for (k, (key, v)) in d.filters.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "\"{key}\": ");
            v.python(&mut out);
        }
        out.push_str("})\n");
    }
    out
}

fn lit_json(v: &Lit) -> serde_json::Value {
    match v {
        Lit::Int(n) => (*n).into(),
        Lit::Str(s) => s.clone().into(),
        Lit::Bool(b) => (*b).into(),
        Lit::Float(f) => (*f).into(),
        Lit::None => serde_json::Value::Null,
        Lit::List(items) => items.iter().map(lit_json).collect(),
    }
}

/// Writes the inputs to `dir` for the Python baseline and the CLI runs: `SKILL.md`,
/// `corpus.py`, and `corpus.json` (`[{"object_type", "filters": {..}}]`, keys in order).
pub fn dump(dir: &Path, skill: &str, corpus: &[Dict]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("SKILL.md"), skill)?;
    std::fs::write(dir.join("corpus.py"), corpus_python(corpus))?;
    let json: Vec<serde_json::Value> = corpus
        .iter()
        .map(|d| {
            let filters: serde_json::Map<String, serde_json::Value> = d
                .filters
                .iter()
                .map(|(k, v)| (k.clone(), lit_json(v)))
                .collect();
            serde_json::json!({"object_type": d.object_type, "filters": filters})
        })
        .collect();
    std::fs::write(
        dir.join("corpus.json"),
        serde_json::to_string(&json).unwrap_or_default(),
    )?;
    Ok(())
}
