//! A NetBox release's Python source, to find in the new release the line a hand rule cites in
//! the previous one. Two layouts are read: a git tree (`git archive v4.6.8`, the lab's
//! `src-<version>/`: `netbox/dcim/filtersets.py`) and an installed wheel (its site-packages:
//! `dcim/filtersets.py`, NetBox ≥ 4.7 from PyPI). Rules cite either spelling
//! (`netbox/dcim/filtersets.py v4.6.8 L2397`, `dcim/filtersets.py v4.7.3 L2112`); both resolve
//! in both layouts.
//!
//! Reading Python here is line-based and small on purpose: a statement is the cited line plus
//! the lines up to its closing bracket; its class is the last `class X(` above it at column 0.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Most bytes read from one source file (NetBox's largest, `dcim/filtersets.py`, is ~90 KB).
const MAX_FILE: u64 = 8 << 20;
/// Most lines one statement may span.
const MAX_STATEMENT_LINES: usize = 40;

/// One release's source tree.
#[derive(Debug)]
pub struct Tree {
    /// The folder that holds the apps (`dcim/`, `netbox/`, ...): `<root>/netbox` for a git tree,
    /// the site-packages folder for a wheel.
    apps: PathBuf,
    /// The folder `docs/release-notes/` lives under: the git tree's root, or the wheel's
    /// `netbox/_data/` (HTML there).
    docs: PathBuf,
    files: RefCell<HashMap<String, Option<std::rc::Rc<str>>>>,
}

impl Tree {
    /// Opens a git tree (`<root>/netbox/dcim/`) or a wheel's site-packages (`<root>/dcim/` and
    /// `<root>/netbox/settings.py`). Errors when `root` is neither.
    pub fn open(root: &Path) -> Result<Tree, String> {
        let (apps, docs) = if root.join("netbox/dcim").is_dir() {
            (root.join("netbox"), root.to_path_buf())
        } else if root.join("dcim").is_dir() && root.join("netbox").is_dir() {
            (root.to_path_buf(), root.join("netbox/_data"))
        } else {
            return Err(format!(
                "{}: not a NetBox source tree (no netbox/dcim/ nor dcim/ beside netbox/)",
                root.display()
            ));
        };
        Ok(Tree {
            apps,
            docs,
            files: RefCell::new(HashMap::new()),
        })
    }

    /// The text of cited file `path` (`netbox/dcim/filtersets.py` or `dcim/filtersets.py`), and
    /// its path relative to the apps (`dcim/filtersets.py`). `None` when the tree lacks it.
    pub fn read(&self, path: &str) -> Option<(String, std::rc::Rc<str>)> {
        let candidates = [Some(path), path.strip_prefix("netbox/")];
        for rel in candidates.into_iter().flatten() {
            if let Some(text) = self.read_rel(rel) {
                return Some((rel.to_string(), text));
            }
        }
        None
    }

    fn read_rel(&self, rel: &str) -> Option<std::rc::Rc<str>> {
        if rel.contains("..") {
            return None;
        }
        if let Some(hit) = self.files.borrow().get(rel) {
            return hit.clone();
        }
        let p = self.apps.join(rel);
        let text = std::fs::metadata(&p)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_FILE)
            .and_then(|_| std::fs::read(&p).ok())
            .map(|b| std::rc::Rc::from(String::from_utf8_lossy(&b).into_owned()));
        self.files
            .borrow_mut()
            .insert(rel.to_string(), text.clone());
        text
    }

    /// The release notes of `major.minor` as text lines: the Markdown file of a git tree
    /// (`docs/release-notes/version-4.7.md`) or the wheel's built page
    /// (`release-notes/version-4.7/index.html`, tags stripped). `None` when absent.
    pub fn release_notes(&self, major_minor: &str) -> Option<String> {
        let md = self
            .docs
            .join(format!("docs/release-notes/version-{major_minor}.md"));
        if let Ok(t) = std::fs::read_to_string(md) {
            return Some(t);
        }
        let html = self.docs.join(format!(
            "docs/release-notes/version-{major_minor}/index.html"
        ));
        std::fs::read_to_string(html).ok().map(|h| html_text(&h))
    }
}

/// Markdown-ish text of a built MkDocs page: headings as `## `, list items as `* `, tags
/// dropped, the common entities decoded. Only the `<article>` when there is one.
fn html_text(html: &str) -> String {
    let body = html
        .find("<article")
        .and_then(|s| html[s..].find("</article>").map(|e| &html[s..s + e]))
        .unwrap_or(html);
    let mut out = String::new();
    let mut rest = body;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('>') else {
            break;
        };
        let tag = &rest[i + 1..i + j];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        match (tag.starts_with('/'), name.as_str()) {
            (false, "h1" | "h2") => out.push_str("\n## "),
            (false, "h3" | "h4") => out.push_str("\n### "),
            (false, "li") => out.push_str("\n* "),
            (false, "p" | "br") | (true, "h1" | "h2" | "h3" | "h4" | "ul" | "p") => out.push('\n'),
            _ => {}
        }
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&para;", "")
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The section of release `version` (`4.7.3`, `4.8.0b1`) in release notes `notes`: from its
/// heading (`## v4.7.3 (2026-…)`, `## v4.8.0-beta1`) to the next heading of that level.
pub fn notes_section(notes: &str, version: &str) -> Option<String> {
    let v = crate::version::Version::parse(version)?;
    let nums: Vec<String> = v.numbers.iter().map(u32::to_string).collect();
    let base = format!("v{}", nums.join("."));
    let wanted: Vec<String> = match v.pre {
        None => vec![base.clone()],
        Some((stage, n)) => {
            let word = match stage {
                crate::version::Stage::Alpha => "alpha",
                crate::version::Stage::Beta => "beta",
                crate::version::Stage::Candidate => "rc",
            };
            vec![format!("{base}-{word}{n}"), format!("{base}{}", &word[..1])]
        }
    };
    let lines: Vec<&str> = notes.lines().collect();
    let start = lines.iter().position(|l| {
        let h = l.trim_start_matches('#').trim();
        l.starts_with("## ")
            && wanted.iter().any(|w| {
                h.strip_prefix(w.as_str())
                    .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_digit()))
            })
    })?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |i| start + 1 + i);
    Some(lines[start..end].join("\n"))
}

/// The statement that starts at 1-based `line` of `text` and the line it ends on: that line
/// and the following ones up to its closing bracket (at most [`MAX_STATEMENT_LINES`]);
/// whitespace collapsed. `None` when the line closes a bracket opened above it (it is inside
/// another statement: see [`enclosing`]) or does not exist.
fn statement_span(lines: &[&str], line: usize) -> Option<(String, usize)> {
    lines.get(line.checked_sub(1)?)?;
    let mut depth: i32 = 0;
    let mut out = Vec::new();
    let mut end = line;
    for (i, l) in lines
        .iter()
        .enumerate()
        .skip(line - 1)
        .take(MAX_STATEMENT_LINES)
    {
        out.push(l.trim());
        end = i + 1;
        for c in code_part(l).chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return None;
            }
        }
        if depth == 0 {
            break;
        }
    }
    Some((collapse(&out.join(" ")), end))
}

/// The statement that starts at 1-based `line` of `text` (see [`statement_span`]); the line
/// alone when it sits inside a bracket opened above.
pub fn statement(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let first = *lines.get(line.checked_sub(1)?)?;
    Some(statement_span(&lines, line).map_or_else(|| collapse(first), |(s, _)| s))
}

/// The statement that holds 1-based `line` of `text`, and the line it starts on: a cited
/// `to_field_name='rear_port',` is read as the whole `rear_port_id = ...(...)` around it.
pub fn enclosing(text: &str, line: usize) -> Option<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    lines.get(line.checked_sub(1)?)?;
    // The nearest line above whose statement reaches past the cited one opens its bracket.
    for start in (line.saturating_sub(MAX_STATEMENT_LINES).max(1)..line).rev() {
        if let Some((s, end)) = statement_span(&lines, start) {
            if end >= line {
                return Some((start, s));
            }
        }
    }
    statement(text, line).map(|s| (line, s))
}

/// A line without its comment and string contents (brackets inside strings do not count).
fn code_part(line: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' => break,
            None => out.push(c),
        }
    }
    out
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The class a 1-based `line` of `text` sits in: the last `class Name(` at column 0 above it.
pub fn class_at(text: &str, line: usize) -> Option<String> {
    text.lines()
        .take(line)
        .filter_map(class_name)
        .last()
        .map(str::to_string)
}

fn class_name(l: &str) -> Option<&str> {
    let rest = l.strip_prefix("class ")?;
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    Some(&rest[..end])
}

/// The 1-based line range of class `name` in `text` (its `class` line to the line before the
/// next column-0 statement).
fn class_range(text: &str, name: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| class_name(l) == Some(name))?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| !l.is_empty() && !l.starts_with([' ', '\t', '#', ')']))
        .map_or(lines.len(), |i| start + 1 + i);
    Some((start + 1, end))
}

/// The filterset class of model `model` (`frontport` → `FrontPortFilterSet`) in `text`.
pub fn filterset_class(text: &str, model: &str) -> Option<String> {
    let want = format!("{model}filterset");
    text.lines()
        .filter_map(class_name)
        .find(|c| c.to_ascii_lowercase() == want)
        .map(str::to_string)
}

/// What became of a cited line in the new release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// The same statement, at this line of the new file.
    Unchanged(usize),
    /// A statement of the same name (or a line naming the rule's filter) in the same class,
    /// different: the new line and its text.
    Changed(usize, String),
    /// Nothing of the same name in the same class.
    Gone,
}

/// Where a statement is now: the statement `old` (from class `class` of the previous release)
/// looked up in the new file `new`, `name` (the rule's filter or parameter) helping when the
/// statement changed. Linear in the file.
pub fn follow(new: &str, old: &str, class: Option<&str>, name: Option<&str>) -> Fate {
    let (lo, hi) = class
        .and_then(|c| class_range(new, c))
        .unwrap_or((1, new.lines().count()));
    let lines: Vec<&str> = new.lines().collect();
    let in_range = |n: usize| n >= lo && n <= hi;
    let first_line = old.split(" ").next().unwrap_or("");
    // Same first token: candidates; the identical statement wins.
    let mut head_match = None;
    for (i, l) in lines.iter().enumerate() {
        let n = i + 1;
        if !in_range(n) {
            continue;
        }
        let t = l.trim();
        if t.is_empty() || !t.starts_with(first_line) {
            continue;
        }
        let s = statement(new, n).unwrap_or_default();
        if s == old {
            return Fate::Unchanged(n);
        }
        if head_match.is_none() && same_head(&s, old) {
            head_match = Some((n, s));
        }
    }
    if let Some((n, s)) = head_match {
        return Fate::Changed(n, s);
    }
    if let Some(name) = name {
        if let Some(n) = name_line(new, name, lo, hi) {
            return Fate::Changed(n, statement(new, n).unwrap_or_default());
        }
    }
    Fate::Gone
}

/// True when two statements assign or define the same name (`x = ...`, `def x(`, `'x',`).
fn same_head(a: &str, b: &str) -> bool {
    let head = |s: &str| -> String {
        let s = s.trim_start_matches("def ").trim_start_matches("class ");
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '\'' || *c == '"')
            .collect()
    };
    let (ha, hb) = (head(a), head(b));
    !ha.is_empty() && ha == hb
}

/// The first line in `lo..=hi` that declares `name` (`name = ...`) or lists it in quotes.
fn name_line(text: &str, name: &str, lo: usize, hi: usize) -> Option<usize> {
    let decl = format!("{name} =");
    let quoted = [format!("'{name}'"), format!("\"{name}\"")];
    let lines: Vec<&str> = text.lines().collect();
    let range = lo.saturating_sub(1)..hi.min(lines.len());
    let find = |pred: &dyn Fn(&str) -> bool| range.clone().find(|&i| pred(lines[i].trim()));
    find(&|t: &str| t.starts_with(&decl))
        .or_else(|| find(&|t: &str| quoted.iter().any(|q| t.contains(q.as_str()))))
        .map(|i| i + 1)
}

/// The base classes named on the `class Name(A, B):` line of class `name`.
fn bases(text: &str, name: &str) -> Vec<String> {
    let Some(line) = text.lines().find(|l| class_name(l) == Some(name)) else {
        return Vec::new();
    };
    let inner = line
        .split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map_or("", |(i, _)| i);
    inner
        .split(',')
        .map(|b| b.trim().rsplit('.').next().unwrap_or("").to_string())
        .filter(|b| !b.is_empty())
        .collect()
}

/// Where filter `name` is declared for model `model` in filterset file `text`: in the model's
/// filterset class (`name = ...` or its `Meta.fields`), else in the classes it inherits from
/// that the same file defines. `(line, class)`; `None` when neither declares it (a parent in
/// another file, or a filter generated from a model field of another class).
pub fn declaration(text: &str, model: &str, name: &str) -> Option<(usize, String)> {
    let mut todo = vec![filterset_class(text, model)?];
    let mut seen: Vec<String> = Vec::new();
    while let Some(class) = todo.pop() {
        if seen.contains(&class) || seen.len() > 8 {
            continue;
        }
        seen.push(class.clone());
        if let Some((lo, hi)) = class_range(text, &class) {
            if let Some(n) = name_line(text, name, lo, hi) {
                return Some((n, class));
            }
            // Parents first in the order Python looks them up.
            let mut parents = bases(text, &class);
            parents.reverse();
            todo.extend(parents);
        }
    }
    None
}

/// Cited files and 1-based lines in an evidence text: `netbox/dcim/filtersets.py v4.6.8 L2397
/// and L1035`, `dcim/filtersets.py v4.7.3 L2112, L2127`, `… L116, L151` (a line belongs to the
/// last file named before it).
pub fn cites(evidence: &str) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for word in
        evidence.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '`'))
    {
        let w = word.trim_matches(|c: char| matches!(c, '.' | ':'));
        if w.ends_with(".py") && w.len() > 3 {
            out.push((w.to_string(), Vec::new()));
        } else if let Some(n) = w.strip_prefix('L').and_then(|n| {
            let n = n.split('-').next().unwrap_or(n);
            n.parse::<usize>().ok()
        }) {
            if let Some(last) = out.last_mut() {
                last.1.push(n);
            }
        }
    }
    out.retain(|(_, l)| !l.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "\
class FrontPortFilterSet(ModularDeviceComponentFilterSet):
    type = django_filters.MultipleChoiceFilter(
        choices=PortTypeChoices,
        null_value=None
    )
    rear_port_id = django_filters.ModelMultipleChoiceFilter(
        queryset=RearPort.objects.all(),
        to_field_name='rear_port',
        label=_('Rear port (ID)'),
    )

    class Meta:
        model = FrontPort
        fields = (
            'id', 'name', 'label', 'type', 'color', 'mark_connected', 'description',
        )


class RearPortFilterSet(ModularDeviceComponentFilterSet):
    rear_port_id = django_filters.ModelMultipleChoiceFilter(
        queryset=RearPort.objects.all(),
        to_field_name='rear_port',
        label=_('Rear port (ID)'),
    )
";

    fn new_text() -> String {
        format!(
            "# a line above\n\n{}",
            OLD.replacen("        to_field_name='rear_port',\n", "", 1)
                .replace("'description',", "'description', 'positions',")
        )
    }

    #[test]
    fn statements_and_classes() {
        assert_eq!(
            statement(OLD, 6).unwrap(),
            "rear_port_id = django_filters.ModelMultipleChoiceFilter( queryset=RearPort.objects.all(), to_field_name='rear_port', label=_('Rear port (ID)'), )"
        );
        // A line inside a tuple opened above is its own statement.
        assert_eq!(
            statement(OLD, 15).unwrap(),
            "'id', 'name', 'label', 'type', 'color', 'mark_connected', 'description',"
        );
        assert_eq!(class_at(OLD, 6).as_deref(), Some("FrontPortFilterSet"));
        assert_eq!(class_at(OLD, 21).as_deref(), Some("RearPortFilterSet"));
        assert_eq!(
            filterset_class(OLD, "frontport").as_deref(),
            Some("FrontPortFilterSet")
        );
        assert_eq!(statement(OLD, 999), None);
        assert_eq!(statement(OLD, 0), None);
    }

    #[test]
    fn following_a_cited_line() {
        let new = new_text();
        // Changed in FrontPortFilterSet (the first), found there and not in RearPortFilterSet.
        let old = statement(OLD, 6).unwrap();
        match follow(&new, &old, Some("FrontPortFilterSet"), Some("rear_port_id")) {
            Fate::Changed(n, s) => {
                assert_eq!(n, 8);
                assert!(!s.contains("to_field_name"), "{s}");
            }
            other => panic!("{other:?}"),
        }
        // Unchanged in RearPortFilterSet, two lines lower.
        let old = statement(OLD, 20).unwrap();
        assert_eq!(
            follow(&new, &old, Some("RearPortFilterSet"), None),
            Fate::Unchanged(21)
        );
        // The Meta.fields line changed: found by the filter's quoted name.
        let old = statement(OLD, 15).unwrap();
        assert!(matches!(
            follow(
                &new,
                &old,
                Some("FrontPortFilterSet"),
                Some("mark_connected")
            ),
            Fate::Changed(16, _)
        ));
        assert_eq!(
            follow(
                &new,
                "gone = X()",
                Some("FrontPortFilterSet"),
                Some("nothing")
            ),
            Fate::Gone
        );
    }

    #[test]
    fn declarations() {
        assert_eq!(
            declaration(OLD, "frontport", "rear_port_id"),
            Some((6, "FrontPortFilterSet".to_string()))
        );
        assert_eq!(
            declaration(OLD, "frontport", "color"),
            Some((15, "FrontPortFilterSet".to_string()))
        );
        // No filterset class for the model: nothing (a name elsewhere says nothing about it).
        assert_eq!(declaration(OLD, "interface", "rear_port_id"), None);
        // Inherited: found in the parent class of the same file.
        let text = format!(
            "{OLD}\n\nclass FrontPortTemplateFilterSet(x.Base, FrontPortFilterSet):\n    pass\n"
        );
        assert_eq!(
            declaration(&text, "frontporttemplate", "rear_port_id"),
            Some((6, "FrontPortFilterSet".to_string()))
        );
        assert_eq!(declaration(&text, "frontporttemplate", "nothing"), None);
    }

    #[test]
    fn enclosing_statements() {
        // A line inside a call is read as the call.
        let (start, s) = enclosing(OLD, 8).unwrap();
        assert_eq!(start, 6);
        assert!(
            s.starts_with("rear_port_id = ") && s.contains("to_field_name"),
            "{s}"
        );
        // A statement of its own line.
        assert_eq!(
            enclosing(OLD, 19).unwrap(),
            (
                19,
                "class RearPortFilterSet(ModularDeviceComponentFilterSet):".to_string()
            )
        );
        // The start line itself.
        assert_eq!(enclosing(OLD, 6).unwrap().0, 6);
    }

    #[test]
    fn cited_lines() {
        assert_eq!(
            cites("netbox/dcim/filtersets.py v4.6.8 L2397 and L1035: `to_field_name='rear_port'`; v4.6.8 sweep: x"),
            [("netbox/dcim/filtersets.py".to_string(), vec![2397, 1035])]
        );
        assert_eq!(
            cites("`primary_mac_address` (…), netbox/dcim/filtersets.py v4.3.3 L1930, netbox/virtualization/filtersets.py L277"),
            [
                ("netbox/dcim/filtersets.py".to_string(), vec![1930]),
                ("netbox/virtualization/filtersets.py".to_string(), vec![277])
            ]
        );
        assert_eq!(
            cites(
                "(InvalidValueFilterMixin, utilities/filters.py v4.7.3 L116, L151; netbox#23328)"
            ),
            [("utilities/filters.py".to_string(), vec![116, 151])]
        );
        assert!(cites("release notes 4.0").is_empty());
    }

    #[test]
    fn release_note_sections() {
        let notes = "# NetBox v4.7\n\n## v4.7.3 (2026-11-20)\n\n### Bug Fixes\n\n* #23326 - Fix FieldError\n\n## v4.7.2 (2026-11-01)\n\n* older\n";
        let s = notes_section(notes, "4.7.3").unwrap();
        assert!(s.contains("#23326") && !s.contains("older"), "{s}");
        assert!(notes_section(notes, "4.7.30").is_none());
        let beta = "## v4.8.0-beta1 (2027-01-01)\n\n* new\n";
        assert!(notes_section(beta, "4.8.0b1").unwrap().contains("new"));
        let html = "<html><article><h2 id=\"v473\">v4.7.3 (2026-11-20)<a>&para;</a></h2><h3>Bug Fixes</h3><ul><li><a>#23326</a> - Fix &lt;x&gt;</li></ul></article></html>";
        let text = html_text(html);
        assert!(text.contains("## v4.7.3 (2026-11-20)"), "{text}");
        assert!(text.contains("* #23326 - Fix <x>"), "{text}");
    }
}
