//! No import cycles between the crate's files or its top-level modules (issue 37 §4): the layers
//! are stated in `src/lib.rs`'s docs, and each layer uses only the layers below it.
//!
//! The imports are read as text, as `../shared/tools/module_cycles.py` reads them (the same
//! rules, so both list the same cycles): a file's `use` trees and every `crate::`, `super::` and
//! `self::` path outside `//` comments and before its first `#[cfg(test)]`, each resolved to the
//! longest module prefix that is a file of `src/` (`src/a/b.rs` or `src/a/b/mod.rs` is
//! `a::b`). A file depends on another when one of its paths resolves there; a cycle is a
//! strongly connected set of more than one file, or of more than one top-level module (a
//! path from `src/a/...` to `src/b/...` is an edge `a -> b`).
//!
//! [`ALLOWED`] holds the cycles that other work of issue 37 removes, each with its
//! reference; it only shrinks. A cycle outside it fails, and so does an entry no cycle matches
//! any more (remove it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles between files still allowed, as the files of each (`cli::check`, ...), with the work
/// that removes them. A found cycle passes when all its files are in one entry.
const ALLOWED: &[(&[&str], &str)] = &[];

type Module = Vec<String>;

/// The crate's files as modules (`src/a/b.rs` → `a::b`; `src/lib.rs` and `src/main.rs` are
/// the root, which no edge leads to).
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut mods = BTreeMap::new();
    for file in files {
        let rel = file
            .strip_prefix(src)
            .expect("under src")
            .with_extension("");
        let mut parts: Module = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        if parts == ["lib"] || parts == ["main"] {
            parts.clear();
        }
        mods.insert(parts, file);
    }
    mods
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text whose paths count: `//` comments removed, cut at the first `#[cfg(test)]`.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.find("//") {
            Some(at) => {
                out.push_str(&line[..at]);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    match out.find("#[cfg(test)]") {
        Some(at) => out[..at].to_string(),
        None => out,
    }
}

/// The trees of the `use` declarations in `text` (`a::{b, c::d}`, without the `use`).
fn use_trees(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("use") {
        let at = from + found;
        let starts_word = !text[..at].chars().next_back().is_some_and(is_word);
        let after = &text[at + 3..];
        let space = after.len() - after.trim_start().len();
        if starts_word && space > 0 {
            if let Some(end) = after.find(';').filter(|&e| e > space) {
                out.push(&after[space..end]);
                from = at + 3 + end + 1;
                continue;
            }
        }
        from = at + 1;
    }
    out
}

/// A `use` tree's paths: `a::{b, c::{d}}` → `a::b`, `a::c::d`; `self` segments dropped.
fn expand(tree: &str) -> Vec<Vec<String>> {
    fn split(t: &str) -> Vec<String> {
        let (mut res, mut depth, mut s) = (Vec::new(), 0i32, String::new());
        for ch in t.chars() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if ch == ',' && depth == 0 {
                res.push(std::mem::take(&mut s));
            } else {
                s.push(ch);
            }
        }
        if !s.is_empty() {
            res.push(s);
        }
        res
    }
    fn rec(prefix: &[String], t: &str, out: &mut Vec<Vec<String>>) {
        match t.split_once('{') {
            Some((head, rest)) => {
                let inner = match rest.rfind('}') {
                    Some(end) => &rest[..end],
                    None => &rest[..rest.len().saturating_sub(1)],
                };
                let mut p = prefix.to_vec();
                p.extend(head.split("::").filter(|x| !x.is_empty()).map(String::from));
                for part in split(inner) {
                    rec(&p, &part, out);
                }
            }
            None => {
                let mut p = prefix.to_vec();
                p.extend(
                    t.split("::")
                        .filter(|x| !x.is_empty() && *x != "self")
                        .map(String::from),
                );
                out.push(p);
            }
        }
    }
    let tree: String = tree.chars().filter(|c| *c != ' ' && *c != '\n').collect();
    let mut out = Vec::new();
    rec(&[], &tree, &mut out);
    out
}

/// Every `crate::…`, `super::…` and `self::…` path in `text` (ASCII identifiers).
fn qualified_paths(text: &str) -> Vec<Vec<String>> {
    let ident_start = |c: char| c.is_ascii_alphabetic() || c == '_';
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let rest = &text[from..];
        let head = ["crate", "super", "self"]
            .into_iter()
            .find(|h| rest.starts_with(h));
        let starts_word = !text[..from].chars().next_back().is_some_and(is_word);
        if let (Some(head), true) = (head, starts_word) {
            let mut path = vec![head.to_string()];
            let mut at = head.len();
            while let Some(seg) = rest[at..].strip_prefix("::") {
                if !seg.starts_with(ident_start) {
                    break;
                }
                let len = seg.find(|c: char| !ident(c)).unwrap_or(seg.len());
                path.push(seg[..len].to_string());
                at += 2 + len;
            }
            if path.len() > 1 {
                out.push(path);
                from += at;
                continue;
            }
        }
        from += rest.chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// Edges between files: `a::b -> c` when a path of `a::b` resolves to file `c`.
fn edges(mods: &BTreeMap<Module, PathBuf>) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, file) in mods {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // As Python reads text: universal newlines.
        let text = code(&text.replace("\r\n", "\n").replace('\r', "\n"));
        let mut paths: Vec<Vec<String>> = use_trees(&text).into_iter().flat_map(expand).collect();
        paths.extend(qualified_paths(&text));
        for p in paths {
            let Some(first) = p.first() else { continue };
            let full: Vec<String> = match first.as_str() {
                "crate" => p[1..].to_vec(),
                "super" => {
                    let mut base = module[..module.len().saturating_sub(1)].to_vec();
                    let mut j = 1;
                    while p.get(j).is_some_and(|s| s == "super") {
                        base.pop();
                        j += 1;
                    }
                    base.extend_from_slice(&p[j..]);
                    base
                }
                "self" => {
                    let mut base = module.clone();
                    base.extend_from_slice(&p[1..]);
                    base
                }
                _ => continue,
            };
            let target = (1..=full.len())
                .rev()
                .map(|k| full[..k].to_vec())
                .find(|prefix| mods.contains_key(prefix));
            if let Some(target) = target.filter(|t| t != module && !t.is_empty()) {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// The strongly connected sets of more than one node (Tarjan), each sorted.
fn cycles(nodes: &[Module], adj: &BTreeMap<Module, BTreeSet<Module>>) -> BTreeSet<Vec<String>> {
    struct Tarjan<'a> {
        adj: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on: BTreeSet<Module>,
        out: BTreeSet<Vec<String>>,
    }
    impl Tarjan<'_> {
        fn strong(&mut self, v: &Module) {
            let n = self.index.len();
            self.index.insert(v.clone(), n);
            self.low.insert(v.clone(), n);
            self.stack.push(v.clone());
            self.on.insert(v.clone());
            for w in self.adj.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.strong(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v.clone(), low);
                } else if self.on.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v.clone(), low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = self.stack.pop().expect("on the stack");
                    self.on.remove(&w);
                    let done = &w == v;
                    comp.push(w.join("::"));
                    if done {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.out.insert(comp);
                }
            }
        }
    }
    let mut t = Tarjan {
        adj,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: BTreeSet::new(),
    };
    for v in nodes {
        if !t.index.contains_key(v) {
            t.strong(v);
        }
    }
    t.out
}

/// The cycles between files and between top-level modules of the crate at `src`.
fn listing(src: &Path) -> (BTreeSet<Vec<String>>, BTreeSet<Vec<String>>) {
    let mods = modules(src);
    let edges = edges(&mods);
    let nodes: Vec<Module> = mods.keys().cloned().collect();
    let files = cycles(&nodes, &edges);
    let mut top: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (a, bs) in &edges {
        for b in bs {
            if let (Some(a0), Some(b0)) = (a.first(), b.first()) {
                if a0 != b0 {
                    top.entry(vec![a0.clone()])
                        .or_default()
                        .insert(vec![b0.clone()]);
                }
            }
        }
    }
    let tops: BTreeSet<Module> = mods
        .keys()
        .filter_map(|m| m.first().map(|f| vec![f.clone()]))
        .collect();
    let tops: Vec<Module> = tops.into_iter().collect();
    (files, cycles(&tops, &top))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_import_cycle_outside_the_allowed_ones() {
    let (files, tops) = listing(&src());
    assert!(
        tops.is_empty(),
        "import cycles between top-level modules (each layer may use only the layers below it, see src/lib.rs): {tops:?}"
    );
    let allowed = |c: &Vec<String>| {
        ALLOWED
            .iter()
            .any(|(files, _)| c.iter().all(|f| files.contains(&f.as_str())))
    };
    let new: Vec<&Vec<String>> = files.iter().filter(|c| !allowed(c)).collect();
    assert!(
        new.is_empty(),
        "import cycles between files (move the shared part below both; see src/lib.rs and CONTRIBUTING.md): {new:?}"
    );
    let stale: Vec<&str> = ALLOWED
        .iter()
        .filter(|(allowed, _)| {
            !files
                .iter()
                .any(|c| c.iter().all(|f| allowed.contains(&f.as_str())))
        })
        .map(|(_, why)| *why)
        .collect();
    assert!(
        stale.is_empty(),
        "allowed cycles that no longer exist: remove them from ALLOWED: {stale:?}"
    );
}

/// The reader finds what it must: a cycle through `super::`, `crate::` paths and `use` trees,
/// and a top-level one; none from a comment, a test module or a one-way import.
#[test]
fn the_reader_sees_cycles_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    write("a/mod.rs", "mod x;\nmod y;\nuse crate::b::f;\n");
    write("a/x.rs", "use super::{y::{self, g}, z};\n");
    write("a/y.rs", "fn h() { super::x::k(); }\n");
    write("b.rs", "pub fn f() { crate::c::q(); }\n");
    write(
        "c.rs",
        "// crate::a::x\nuse std::fmt;\n#[cfg(test)]\nmod tests { use crate::b; }\n",
    );
    let (files, tops) = listing(src);
    let want: BTreeSet<Vec<String>> = [vec!["a::x".to_string(), "a::y".to_string()]].into();
    assert_eq!(files, want);
    assert!(tops.is_empty(), "{tops:?}");
    // One path back from `c` to `a` closes a top-level cycle a -> b -> c -> a.
    write("c.rs", "pub fn q() { crate::a::x::k(); }\n");
    let (_, tops) = listing(src);
    let want: BTreeSet<Vec<String>> = [vec!["a".into(), "b".into(), "c".into()]].into();
    assert_eq!(tops, want);
}

/// Where `../shared/tools/module_cycles.py` and `python3` are at hand, both list the same
/// cycles (the tool is the reference this test reimplements). Says so when it cannot run.
#[test]
fn the_listing_matches_the_shared_tool() {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/module_cycles.py");
    if !tool.is_file() {
        eprintln!(
            "NOT RUN: {} is not there (a clone without ../shared)",
            tool.display()
        );
        return;
    }
    let out = match std::process::Command::new("python3")
        .arg(&tool)
        .arg(src())
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("NOT RUN: python3 cannot be started: {e}");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let read = |prefix: &str| -> BTreeSet<Vec<String>> {
        text.lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(|l| {
                let mut c: Vec<String> = l.split(" <-> ").map(String::from).collect();
                c.sort();
                c
            })
            .collect()
    };
    let (files, tops) = listing(&src());
    assert_eq!(read("file cycle: "), files, "{text}");
    assert_eq!(read("top-level cycle: "), tops, "{text}");
}
