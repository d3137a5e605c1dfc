//! A parsed document with names replaced in place, standing for the parse of its text with
//! the same replacements: a "did you mean" fix re-validation (a field, argument, input field or
//! enum value renamed) needs no second parse (about half a million instructions each; issue 36).
//!
//! Replacing one GraphQL name token by another name keeps every other token, so the parse of
//! the edited text is this document with those names changed; its spans are this document's,
//! moved by the length differences of the edits before them ([`Renamed::shift`]).

use apollo_compiler::ast::{self, Definition, Selection, Value};
use apollo_compiler::parser::{FileId, SourceSpan};
use apollo_compiler::{Name, Node};
use std::ops::Range;

/// The document with the edits applied, and the edits (for [`Renamed::shift`]).
pub struct Renamed<'a> {
    /// The edited document; its spans are those of the unedited text.
    pub doc: ast::Document,
    edits: &'a [(Range<usize>, String)],
}

impl Renamed<'_> {
    /// A byte offset of the unedited text in the edited text's coordinates: an offset at or
    /// after an edit's end moves by that edit's length difference (offsets inside a name never
    /// occur: spans start and end on token boundaries).
    fn shift(&self, x: usize) -> usize {
        let delta: isize = self
            .edits
            .iter()
            .filter(|(r, _)| r.end <= x)
            .map(|(r, t)| t.len() as isize - r.len() as isize)
            .sum();
        (x as isize + delta).max(0) as usize
    }

    /// A diagnostic's location as a byte range of the edited text (see [`Renamed::span`]); a
    /// location in another file (the schema) is left as it is, as the parse would leave it. A
    /// converted document's spans are in the ruler's files ([`super::ruler`]).
    pub fn located(&self, l: SourceSpan) -> Range<usize> {
        self.located_at(l.file_id(), l.offset()..l.end_offset())
    }

    /// [`Renamed::located`] of the range `r` in file `file`.
    pub fn located_at(&self, file: FileId, r: Range<usize>) -> Range<usize> {
        let own = self.doc.definitions.first().and_then(|d| d.location());
        if own.is_some_and(|o| o.file_id() == file) || super::ruler::owns(file) {
            self.span(&r)
        } else {
            r
        }
    }

    /// A span of the edited document in the edited text's coordinates. A replaced name's span
    /// already has the new name's length (apollo-compiler's `Name` keeps its start and reads
    /// its end from its own length); every other span is the unedited text's.
    pub fn span(&self, r: &Range<usize>) -> Range<usize> {
        let start = self.shift(r.start);
        match self
            .edits
            .iter()
            .find(|(e, t)| e.start == r.start && r.end == e.start + t.len())
        {
            Some((_, t)) => start..start + t.len(),
            None => start..self.shift(r.end),
        }
    }
}

/// `doc` (parsed from `text`) with every edit applied when each edit replaces exactly the name
/// of a field, an argument, an input object field or an enum value by another name; `None` for
/// any other edit (a value rewritten, a variable, a type, an alias, overlapping edits), which
/// needs the edited text parsed.
pub fn renamed<'a>(
    doc: &ast::Document,
    text: &str,
    edits: &'a [(Range<usize>, String)],
) -> Option<Renamed<'a>> {
    if edits.is_empty() {
        return None;
    }
    for (k, (r, t)) in edits.iter().enumerate() {
        // `true`, `false` and `null` are names to the lexer but values to the parser.
        if !Name::is_valid_syntax(t) || matches!(t.as_str(), "true" | "false" | "null") {
            return None;
        }
        if !text.get(r.clone()).is_some_and(Name::is_valid_syntax) {
            return None;
        }
        if edits[..k]
            .iter()
            .any(|(o, _)| o.start < r.end && r.start < o.end)
        {
            return None;
        }
    }
    let mut out = doc.clone();
    for (r, t) in edits {
        if !out.definitions.iter_mut().any(|d| in_definition(d, r, t)) {
            return None;
        }
    }
    Some(Renamed { doc: out, edits })
}

/// Whether the span of `loc` holds `r`.
fn holds(loc: Option<SourceSpan>, r: &Range<usize>) -> bool {
    loc.is_some_and(|l| l.offset() <= r.start && r.end <= l.end_offset())
}

/// Whether `name` sits exactly at `r`.
fn at(name: &Name, r: &Range<usize>) -> bool {
    name.location()
        .is_some_and(|l| l.offset() == r.start && l.end_offset() == r.end)
}

/// `name` replaced by `t`, keeping its place.
fn rename(name: &mut Name, t: &str) {
    let mut new = Name::new_unchecked(t);
    if let Some(l) = name.location() {
        new = new.with_location(l);
    }
    *name = new;
}

fn in_definition(d: &mut Definition, r: &Range<usize>, t: &str) -> bool {
    match d {
        Definition::OperationDefinition(op) if holds(op.location(), r) => {
            in_selections(&mut op.make_mut().selection_set, r, t)
        }
        Definition::FragmentDefinition(f) if holds(f.location(), r) => {
            in_selections(&mut f.make_mut().selection_set, r, t)
        }
        _ => false,
    }
}

fn in_selections(set: &mut [Selection], r: &Range<usize>, t: &str) -> bool {
    set.iter_mut().any(|s| match s {
        Selection::Field(f) if holds(f.location(), r) => in_field(f, r, t),
        Selection::InlineFragment(i) if holds(i.location(), r) => {
            in_selections(&mut i.make_mut().selection_set, r, t)
        }
        _ => false,
    })
}

/// Whether `loc` would read as the span of a name `t` replaced at `r` (a node that starts at
/// the name and ends where the new name would): such an edit is left to the parse.
fn reads_as_new_name(loc: Option<SourceSpan>, r: &Range<usize>, t: &str) -> bool {
    loc.is_some_and(|l| l.offset() == r.start && l.end_offset() == r.start + t.len())
}

fn in_field(f: &mut Node<ast::Field>, r: &Range<usize>, t: &str) -> bool {
    if at(&f.name, r) {
        if t.len() != r.len() && reads_as_new_name(f.location(), r, t) {
            return false;
        }
        rename(&mut f.make_mut().name, t);
        return true;
    }
    if let Some(k) = f.arguments.iter().position(|a| holds(a.location(), r)) {
        let arg = &f.arguments[k];
        if at(&arg.name, r) && t.len() != r.len() && reads_as_new_name(arg.location(), r, t) {
            return false;
        }
        let field = f.make_mut();
        let a = field.arguments[k].make_mut();
        if at(&a.name, r) {
            rename(&mut a.name, t);
            return true;
        }
        return in_value(&mut a.value, r, t);
    }
    let field = f.make_mut();
    in_selections(&mut field.selection_set, r, t)
}

fn in_value(v: &mut Node<Value>, r: &Range<usize>, t: &str) -> bool {
    if !holds(v.location(), r) {
        return false;
    }
    match v.make_mut() {
        Value::Enum(name) if at(name, r) => {
            rename(name, t);
            true
        }
        Value::List(items) => items.iter_mut().any(|i| in_value(i, r, t)),
        Value::Object(fields) => fields.iter_mut().any(|(name, value)| {
            if at(name, r) {
                rename(name, t);
                true
            } else {
                in_value(value, r, t)
            }
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphql::check::parse;
    use crate::graphql::embedded_schema;
    use crate::graphql::rules::span;
    use apollo_compiler::diagnostic::ToCliReport;

    /// Every diagnostic of `doc` (span, message), spans moved by `shift`.
    fn diagnostics(
        doc: &ast::Document,
        nb: &crate::graphql::NetboxSchema,
        shift: impl Fn(SourceSpan) -> Range<usize>,
    ) -> Vec<(Option<Range<usize>>, String)> {
        match doc.to_executable_validate(&nb.schema) {
            Ok(_) => Vec::new(),
            Err(with) => with
                .errors
                .iter()
                .map(|d| (d.error.location().map(&shift), d.error.to_string()))
                .collect(),
        }
    }

    /// The spans of every name [`renamed`] can replace in `doc`.
    fn names(doc: &ast::Document) -> Vec<Range<usize>> {
        fn value(v: &Value, out: &mut Vec<Range<usize>>) {
            match v {
                Value::Enum(n) => out.extend(span(n.location())),
                Value::List(items) => items.iter().for_each(|i| value(i, out)),
                Value::Object(fields) => fields.iter().for_each(|(n, v)| {
                    out.extend(span(n.location()));
                    value(v, out)
                }),
                _ => {}
            }
        }
        fn selections(set: &[Selection], out: &mut Vec<Range<usize>>) {
            for s in set {
                match s {
                    Selection::Field(f) => {
                        out.extend(span(f.name.location()));
                        for a in &f.arguments {
                            out.extend(span(a.name.location()));
                            value(&a.value, out);
                        }
                        selections(&f.selection_set, out);
                    }
                    Selection::InlineFragment(i) => selections(&i.selection_set, out),
                    Selection::FragmentSpread(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        for d in &doc.definitions {
            match d {
                Definition::OperationDefinition(op) => selections(&op.selection_set, &mut out),
                Definition::FragmentDefinition(f) => selections(&f.selection_set, &mut out),
                _ => {}
            }
        }
        out
    }

    /// On every fixture document of every release: each name the module replaces, renamed to
    /// itself with `x` appended, to `id`, to a longer and a shorter NetBox name and (in pairs)
    /// two names at once, gives exactly the diagnostics (spans and messages) of apollo-compiler
    /// on the parse of the edited text.
    #[test]
    fn same_diagnostics_as_the_parse_of_the_edited_text() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/graphql");
        let (mut compared, mut refused) = (0, 0);
        for dir in std::fs::read_dir(&root).unwrap().flatten() {
            let version = dir.file_name().to_string_lossy().to_string();
            let Some(nb) = embedded_schema(&version) else {
                continue;
            };
            for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                let text = std::fs::read_to_string(file.path()).unwrap();
                let Ok(doc) = parse(&text) else { continue };
                let spans = names(&doc);
                let mut cases: Vec<Vec<(Range<usize>, String)>> = Vec::new();
                for (k, r) in spans.iter().enumerate() {
                    let old = &text[r.clone()];
                    for t in [
                        format!("{old}x"),
                        "id".into(),
                        "primary_ip4".into(),
                        "ACTIVE".into(),
                    ] {
                        cases.push(vec![(r.clone(), t)]);
                    }
                    if let Some(next) = spans.get(k + 1) {
                        cases.push(vec![
                            (r.clone(), "name".into()),
                            (next.clone(), "slug".into()),
                        ]);
                    }
                }
                for edits in cases {
                    let mut sorted = edits.clone();
                    sorted.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
                    let mut fixed = text.clone();
                    for (r, t) in &sorted {
                        fixed.replace_range(r.clone(), t);
                    }
                    let Some(edited) = renamed(&doc, &text, &edits) else {
                        refused += 1;
                        continue;
                    };
                    let by_parse =
                        diagnostics(&parse(&fixed).unwrap(), &nb, |l| l.offset()..l.end_offset());
                    let by_rename = diagnostics(&edited.doc, &nb, |l| edited.located(l));
                    assert_eq!(by_rename, by_parse, "{version}: {edits:?}\n{fixed}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "only {compared} edits compared");
        // Refused only where a node ends where the longer name would (`ab(x:1)` → 7 letters).
        assert!(
            refused * 50 < compared,
            "{refused} refused, {compared} compared"
        );
    }

    /// A rewritten value, a variable and `true` in an enum's place need the parse.
    #[test]
    fn other_edits_are_refused() {
        let text = "query Q($s: String) { device_list(filters: {status: ACTIVE, name: {exact: $s}}) { id } }";
        let doc = parse(text).unwrap();
        let at = |s: &str| {
            let i = text.find(s).unwrap();
            i..i + s.len()
        };
        let edit = |r: Range<usize>, t: &str| vec![(r, t.to_string())];
        assert!(renamed(&doc, text, &edit(at("ACTIVE"), "true")).is_none());
        assert!(renamed(&doc, text, &edit(at("ACTIVE"), "{exact: ACTIVE}")).is_none());
        assert!(renamed(&doc, text, &edit(at("String"), "Int")).is_none());
        assert!(renamed(&doc, text, &edit(at("Q"), "R")).is_none());
        assert!(renamed(&doc, text, &edit(at("ACTIVE"), "PLANNED")).is_some());
        assert!(renamed(&doc, text, &edit(at("status"), "role")).is_some());
    }
}
