//! Ansible variables bound in one YAML file, for the values that flow through them into the
//! `netbox.netbox` lookups and `uri` bodies (issue 30 §1, "the same idea, smaller, for YAML").
//!
//! Bindings: the pairs of every `vars:` mapping (play, block, task, role entry) and of every
//! `set_fact:` task (`ansible.builtin.set_fact`, `ansible.legacy.set_fact`; `cacheable` is an
//! option, not a variable). A name bound exactly once in the file resolves to the literal it is
//! bound to; findings land on that literal. Nothing else is followed: a name bound twice (two
//! `set_fact`s, a task `vars:` shadowing the play's), or bound elsewhere (inventory, group vars,
//! `vars_files`, `include_vars`, `-e`, a `register:`) stays unknown, no file is read and no
//! template is evaluated. A value holding Jinja (`"site={{ site_slug }}"`) is a typed hole
//! there: the key around it is checked, the value is not (as in the call itself). Extra vars
//! given on the command line (`-e`) outrank every binding of the file; the file's binding is
//! what the file says.
//!
//! A use is a Jinja expression that is one variable name (`api_filter=device_filter`,
//! `query: "{{ gql }}"`, `body: "{{ {'query': gql} | to_json }}"`). A binding whose name the
//! file mentions anywhere but at its binding and that one use is not read: one literal feeding
//! several calls would report its mistake once per call, a fix there may suit one call and not
//! the other, and a `when:` or a loop may pick another value.

use std::collections::HashMap;

use super::lit::{Lit, LitKind};

/// The keys whose mapping binds variables.
const VARS_KEYS: &[&str] = &["vars"];

/// The `set_fact` task spellings.
const SET_FACT: &[&str] = &[
    "set_fact",
    "ansible.builtin.set_fact",
    "ansible.legacy.set_fact",
];

/// Most pairs walked when collecting bindings (a generated YAML file of millions of pairs is
/// read up to here, then nothing more binds).
const MAX_PAIRS: usize = 200_000;

/// The variables bound in one file (see the module docs).
#[derive(Default)]
pub(crate) struct Bindings<'a> {
    /// Name → (how many bindings, the first one's literal).
    names: HashMap<&'a str, (usize, &'a Lit)>,
    /// The file's text (a YAML file, a fence's body), where the uses are counted.
    text: &'a str,
}

impl<'a> Bindings<'a> {
    /// Collects the bindings of a YAML literal tree read from `text`.
    pub fn of(root: &'a Lit, text: &'a str) -> Bindings<'a> {
        let mut b = Bindings {
            text,
            ..Bindings::default()
        };
        let mut stack = vec![root];
        let mut walked = 0;
        while let Some(lit) = stack.pop() {
            match &lit.kind {
                LitKind::Seq(items) => stack.extend(items.iter().rev()),
                LitKind::Map(pairs) => {
                    for p in pairs {
                        walked += 1;
                        if walked > MAX_PAIRS {
                            return b;
                        }
                        let binds = VARS_KEYS.contains(&p.key.as_str())
                            || SET_FACT.contains(&p.key.as_str());
                        if let (true, Some(inner)) = (binds, p.value.pairs()) {
                            for v in inner {
                                if v.key == "cacheable" && SET_FACT.contains(&p.key.as_str()) {
                                    continue;
                                }
                                let e = b.names.entry(v.key.as_str()).or_insert((0, &v.value));
                                e.0 += 1;
                            }
                        }
                    }
                    stack.extend(pairs.iter().rev().map(|p| &p.value));
                }
                _ => {}
            }
        }
        b
    }

    /// The literal `name` is bound to, when it is bound exactly once and the file names it
    /// only there and at the one use being resolved.
    pub fn resolve(&self, name: &str) -> Option<&'a Lit> {
        match self.names.get(name) {
            Some((1, lit)) if mentions(self.text, name) == 2 => Some(lit),
            _ => None,
        }
    }
}

/// How many times `name` stands as a whole word in `text` (bounded: 3 means "more than 2").
fn mentions(text: &str, name: &str) -> usize {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    text.match_indices(name)
        .filter(|(at, _)| {
            let before = at.checked_sub(1).and_then(|i| b.get(i)).copied();
            let after = b.get(at + name.len()).copied();
            !before.is_some_and(word) && !after.is_some_and(word)
        })
        .take(3)
        .count()
}

/// The variable of a `'query': name` entry of a Jinja dict in a body template
/// (`{{ {'query': gql, 'variables': v} | to_json }}`).
pub(crate) fn query_entry(s: &str) -> Option<&str> {
    if !s.contains("{{") {
        return None;
    }
    for q in ["'query'", "\"query\""] {
        if let Some(at) = s.find(q) {
            let rest = s[at + q.len()..]
                .trim_start()
                .strip_prefix(':')?
                .trim_start();
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            return jinja_name(&rest[..end]);
        }
    }
    None
}

/// The variable a Jinja expression is, when it is one name (`device_filter`, `  gql `); not a
/// literal, an attribute, a call or a filter chain.
pub(crate) fn jinja_name(expr: &str) -> Option<&str> {
    let t = expr.trim();
    let mut chars = t.chars();
    let first = chars.next()?;
    let ident = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    let keyword = matches!(
        t,
        "true" | "false" | "none" | "True" | "False" | "None" | "omit"
    );
    (ident && !keyword).then_some(t)
}

/// The variable a whole YAML string is when it is one Jinja expression of one name
/// (`"{{ gql }}"`).
pub(crate) fn whole_jinja_name(s: &str) -> Option<&str> {
    let inner = s.trim().strip_prefix("{{")?.strip_suffix("}}")?;
    if inner.contains(['{', '}']) {
        return None;
    }
    jinja_name(inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::OffsetMap;

    fn tree(t: &str) -> Lit {
        crate::extract::yaml::tree_for_tests(t, &OffsetMap::identity(0, t.len()))
    }

    #[test]
    fn bound_once_and_used_once_resolves() {
        let t = "- hosts: all\n  vars:\n    f: \"role=leaf\"\n    twice: a\n    unused: x\n  tasks:\n    - set_fact:\n        g: \"site=x\"\n        cacheable: true\n        twice: b\n    - debug:\n        msg: \"{{ query('nb_lookup', 'devices', api_filter=f) }} {{ query('nb_lookup', 'sites', api_filter=g) }}\"\n    - debug:\n        msg: \"{{ twice }} {{ cacheable }}\"\n";
        let root = tree(t);
        let b = Bindings::of(&root, t);
        assert_eq!(b.resolve("f").unwrap().as_str().unwrap().0, "role=leaf");
        assert_eq!(b.resolve("g").unwrap().as_str().unwrap().0, "site=x");
        // Bound twice; an option of set_fact; bound but never used; not bound.
        for name in ["twice", "cacheable", "unused", "hosts"] {
            assert!(b.resolve(name).is_none(), "{name}");
        }
        // A second mention (a `var:` of debug) leaves it unread.
        let t2 = format!("{t}    - debug:\n        var: f\n");
        let root = tree(&t2);
        let b = Bindings::of(&root, &t2);
        assert!(b.resolve("f").is_none());
        assert!(b.resolve("g").is_some());
    }

    #[test]
    fn names() {
        assert_eq!(jinja_name(" device_filter "), Some("device_filter"));
        assert_eq!(jinja_name("filters.devices"), None);
        assert_eq!(jinja_name("'x'"), None);
        assert_eq!(jinja_name("none"), None);
        assert_eq!(whole_jinja_name("{{ gql }}"), Some("gql"));
        assert_eq!(whole_jinja_name("{{ gql | to_json }}"), None);
        assert_eq!(whole_jinja_name("x {{ gql }}"), None);
        assert_eq!(
            query_entry("{{ {'query': gql, 'variables': v} | to_json }}"),
            Some("gql")
        );
        assert_eq!(query_entry("{{ {\"query\": q} }}"), Some("q"));
        assert_eq!(query_entry("{'query': gql}"), None);
    }
}
