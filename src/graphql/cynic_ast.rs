//! The document parsed by cynic-parser (logos lexer, lalrpop grammar, arena AST: about a third of
//! apollo-parser's instructions on NetBox documents, `benches/graphql_parse.rs`), converted to
//! the apollo-compiler AST the checks read, with the spans apollo-compiler's own parse gives
//! (each node from its first token to its last, names at their token).
//!
//! [`parse`] answers `None` for anything it cannot convert to the very same AST: a syntax error
//! (apollo-compiler then reports it in its own words), a text longer than
//! [`super::ruler::MAX_TEXT`] or nested deeper than [`MAX_DEPTH`], descriptions, inline fragments,
//! block strings and strings with escapes, a comment where a span must be found by scanning.
//! The caller then parses with apollo-compiler as before. `graphql::check`'s differential test
//! holds the converted AST (every node, span and name) to apollo-compiler's on every fixture and
//! generated document.

use super::ruler::{self, Ruler};
use super::schema::AddrHasher;
use apollo_compiler::ast::{self, Definition, Selection, Type, Value};
use apollo_compiler::{Name, Node};
use cynic_parser::common::{OperationType, WrappingType};
use cynic_parser::executable::{self as cy, ExecutableDefinition};
use cynic_parser::values as cv;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::ops::Range;

/// Deepest nesting of selections and values converted; deeper documents go to apollo-parser,
/// whose recursion limit ([`super::check::RECURSION_LIMIT`]) then applies as before.
pub const MAX_DEPTH: usize = 48;

/// `text` parsed by cynic-parser and converted to apollo-compiler's AST, or `None` (see the
/// module docs): the caller parses with apollo-compiler then.
pub fn parse(text: &str) -> Option<ast::Document> {
    let ruler = ruler::for_len(text.len())?;
    let doc = cynic_parser::parse_executable_document(text).ok()?;
    let c = Conv {
        text,
        ruler,
        names: RefCell::new(HashMap::with_capacity_and_hasher(64, Default::default())),
    };
    let mut out = ast::Document::new();
    for def in doc.definitions() {
        out.definitions.push(match def {
            ExecutableDefinition::Operation(op) => {
                Definition::OperationDefinition(c.operation(op)?)
            }
            ExecutableDefinition::Fragment(f) => Definition::FragmentDefinition(c.fragment(f)?),
        });
    }
    Some(out)
}

struct Conv<'a> {
    text: &'a str,
    ruler: &'a Ruler,
    /// The names made so far, by the address and length of cynic-parser's interned string (one
    /// per distinct string of the document): a name written again shares the first one's
    /// `Arc<str>` instead of allocating its own.
    names: RefCell<HashMap<(usize, usize), Name, BuildHasherDefault<AddrHasher>>>,
}

impl Conv<'_> {
    fn node<T>(&self, t: T, r: Range<usize>) -> Option<Node<T>> {
        Some(Node::new_parsed(t, self.ruler.span(r)?))
    }

    /// The name `s` written at byte `at` (checked against the text).
    fn name(&self, s: &str, at: usize) -> Option<Name> {
        let end = at + s.len();
        if self.text.get(at..end)? != s {
            return None;
        }
        let at = self.ruler.span(at..end)?;
        let mut names = self.names.borrow_mut();
        let name = names
            .entry((s.as_ptr() as usize, s.len()))
            // cynic-parser's lexer read it as a name.
            .or_insert_with(|| Name::new_unchecked(s));
        Some(name.clone().with_location(at))
    }

    /// The first byte at or after `at` that is not whitespace or a comma; `None` at a comment
    /// (its end is not sought) or the end of the text.
    fn skip(&self, at: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let mut i = at;
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b',') {
            i += 1;
        }
        (i < b.len() && b[i] != b'#').then_some(i)
    }

    /// The byte after `tok`, the next token at or after `at`.
    fn after(&self, at: usize, tok: &str) -> Option<usize> {
        let i = self.skip(at)?;
        self.text[i..].starts_with(tok).then_some(i + tok.len())
    }

    /// Where keyword or punctuation `tok` starts, written just before `at` with only whitespace
    /// and commas between, and no `#` earlier on its line (a comment could hold it).
    fn before(&self, at: usize, tok: &str) -> Option<usize> {
        let head = self.text.get(..at)?;
        let trimmed = head.trim_end_matches([' ', '\t', '\n', '\r', ',']);
        let start = trimmed.strip_suffix(tok).map(str::len)?;
        let line = trimmed[..start].rsplit(['\n', '\r']).next().unwrap_or("");
        (!line.contains('#')).then_some(start)
    }

    fn operation(&self, op: cy::OperationDefinition) -> Option<Node<ast::OperationDefinition>> {
        if op.description().is_some() {
            return None;
        }
        let sel = op.selection_set_span();
        let start = op.operation_type_span().map_or(sel.start, |s| s.start);
        let name = match (op.name(), op.name_span()) {
            (Some(n), Some(s)) => Some(self.name(n, s.start)?),
            (None, _) => None,
            _ => return None,
        };
        let operation_type = match op.operation_type() {
            OperationType::Query => ast::OperationType::Query,
            OperationType::Mutation => ast::OperationType::Mutation,
            OperationType::Subscription => ast::OperationType::Subscription,
        };
        let mut variables = Vec::new();
        for v in op.variable_definitions() {
            variables.push(self.variable(v)?);
        }
        let o = ast::OperationDefinition {
            operation_type,
            name,
            variables,
            directives: self.directives(op.directives())?.0,
            selection_set: self.selections(op.selection_set(), 0)?,
        };
        self.node(o, start..sel.end)
    }

    fn fragment(&self, f: cy::FragmentDefinition) -> Option<Node<ast::FragmentDefinition>> {
        if f.description().is_some() {
            return None;
        }
        let name_at = f.name_span().start;
        let start = self.before(name_at, "fragment")?;
        let tc = f.type_condition();
        let d = ast::FragmentDefinition {
            name: self.name(f.name(), name_at)?,
            type_condition: self.name(tc, f.type_condition_span().end.checked_sub(tc.len())?)?,
            directives: self.directives(f.directives())?.0,
            selection_set: self.selections(f.selection_set(), 0)?,
        };
        self.node(d, start..f.selection_set_span().end)
    }

    fn variable(&self, v: cy::VariableDefinition) -> Option<Node<ast::VariableDefinition>> {
        if v.description().is_some() {
            return None;
        }
        // cynic-parser's span of the name starts at `$`; apollo-compiler's name is after it.
        let dollar = v.name_span().start;
        let name = self.name(v.name(), self.after(dollar + 1, "")?)?;
        let ty = v.ty();
        let ts = ty.span();
        let mut end = ts.end;
        let ty = self.node(self.ty(ty)?, ts.start..ts.end)?;
        let default_value = match v.default_value() {
            Some(d) => {
                let s = d.span();
                end = s.end;
                Some(self.value(d.into(), 0)?)
            }
            None => None,
        };
        let (directives, dir_end) = self.directives(v.directives())?;
        let d = ast::VariableDefinition {
            name,
            ty,
            default_value,
            directives,
        };
        self.node(d, dollar..dir_end.unwrap_or(end))
    }

    fn ty(&self, t: cy::Type) -> Option<Type> {
        let mut out = Type::Named(self.name(t.name(), t.name_span().start)?);
        let wrappers: Vec<WrappingType> = t.wrappers().collect();
        for w in wrappers.into_iter().rev() {
            out = match (w, out) {
                (WrappingType::List, inner) => Type::List(Box::new(inner)),
                (WrappingType::NonNull, Type::Named(n)) => Type::NonNullNamed(n),
                (WrappingType::NonNull, Type::List(inner)) => Type::NonNullList(inner),
                _ => return None,
            };
        }
        Some(out)
    }

    /// The directives and where the last one ends.
    fn directives<'b>(
        &self,
        ds: impl Iterator<Item = cy::Directive<'b>>,
    ) -> Option<(ast::DirectiveList, Option<usize>)> {
        let mut out = Vec::new();
        let mut last = None;
        for d in ds {
            let at = d.name_span().start;
            if self.text.as_bytes().get(at) != Some(&b'@') {
                return None;
            }
            let name = self.name(d.name(), self.after(at + 1, "")?)?;
            let (arguments, args_end) = self.arguments(d.arguments(), 0)?;
            let end = args_end.unwrap_or(d.name_span().end);
            last = Some(end);
            out.push(self.node(ast::Directive { name, arguments }, at..end)?);
        }
        Some((ast::DirectiveList(out), last))
    }

    /// The arguments and the byte after their `)`.
    fn arguments<'b>(
        &self,
        args: impl Iterator<Item = cy::Argument<'b>>,
        depth: usize,
    ) -> Option<(Vec<Node<ast::Argument>>, Option<usize>)> {
        let mut out = Vec::new();
        let mut last = None;
        for a in args {
            let at = a.name_span().start;
            let v = a.value();
            let end = v.span().end;
            last = Some(end);
            let arg = ast::Argument {
                name: self.name(a.name(), at)?,
                value: self.value(v, depth + 1)?,
            };
            out.push(self.node(arg, at..end)?);
        }
        match last {
            Some(end) => Some((out, Some(self.after(end, ")")?))),
            None => Some((out, None)),
        }
    }

    fn selections<'b>(
        &self,
        sels: impl Iterator<Item = cy::Selection<'b>>,
        depth: usize,
    ) -> Option<Vec<Selection>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut out = Vec::with_capacity(sels.size_hint().0);
        for s in sels {
            out.push(match s {
                cy::Selection::Field(f) => Selection::Field(self.field(f, depth)?),
                cy::Selection::FragmentSpread(f) => {
                    let name_at = f.fragment_name_span().start;
                    let start = self.before(name_at, "...")?;
                    let (directives, dir_end) = self.directives(f.directives())?;
                    let spread = ast::FragmentSpread {
                        fragment_name: self.name(f.fragment_name(), name_at)?,
                        directives,
                    };
                    let end = dir_end.unwrap_or(f.fragment_name_span().end);
                    Selection::FragmentSpread(self.node(spread, start..end)?)
                }
                cy::Selection::InlineFragment(_) => return None,
            });
        }
        Some(out)
    }

    fn field(&self, f: cy::FieldSelection, depth: usize) -> Option<Node<ast::Field>> {
        // cynic-parser 0.11.2 gives the alias's span (`alias:`) as the name's too: the field
        // starts there, its name is the next token after it.
        let head = f.alias_span().unwrap_or(f.name_span());
        let start = self.skip(head.start)?;
        let (alias, name_at) = match f.alias() {
            Some(a) => {
                let alias = self.name(a, start)?;
                (Some(alias), self.skip(self.after(start + a.len(), ":")?)?)
            }
            None => (None, start),
        };
        let name = self.name(f.name(), name_at)?;
        let mut end = name_at + f.name().len();
        let (arguments, args_end) = self.arguments(f.arguments(), depth)?;
        end = args_end.unwrap_or(end);
        let (directives, dir_end) = self.directives(f.directives())?;
        end = dir_end.unwrap_or(end);
        let selection_set = match f.selection_set_span() {
            Some(s) => {
                end = s.end;
                self.selections(f.selection_set(), depth + 1)?
            }
            None => Vec::new(),
        };
        let field = ast::Field {
            alias,
            name,
            arguments,
            directives,
            selection_set,
        };
        self.node(field, start..end)
    }

    fn value(&self, v: cv::Value, depth: usize) -> Option<Node<Value>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let s = v.span();
        let raw = self.text.get(s.start..s.end)?;
        let value = match v {
            cv::Value::Variable(x) => {
                if !raw.starts_with('$') {
                    return None;
                }
                Value::Variable(self.name(x.name(), self.after(s.start + 1, "")?)?)
            }
            cv::Value::Int(_) => Value::Int(ast::IntValue::new_parsed(raw)),
            cv::Value::Float(_) => Value::Float(ast::FloatValue::new_parsed(raw)),
            cv::Value::String(_) => {
                // Only a plain string is its text between the quotes.
                if raw.starts_with("\"\"\"") || raw.contains('\\') || raw.len() < 2 {
                    return None;
                }
                Value::String(raw[1..raw.len() - 1].to_string())
            }
            cv::Value::Boolean(b) => Value::Boolean(b.value()),
            cv::Value::Null(_) => Value::Null,
            cv::Value::Enum(e) => Value::Enum(self.name(e.name(), s.start)?),
            cv::Value::List(l) => {
                let mut items = Vec::new();
                for item in l.items() {
                    items.push(self.value(item, depth + 1)?);
                }
                Value::List(items)
            }
            cv::Value::Object(o) => {
                let mut fields = Vec::new();
                for f in o.fields() {
                    let name = self.name(f.name(), f.name_span().start)?;
                    fields.push((name, self.value(f.value(), depth + 1)?));
                }
                Value::Object(fields)
            }
        };
        self.node(value, s.start..s.end)
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::extract::{self, HostKind, Site};
    use crate::graphql::check::tests_only::{APOLLO_ONLY, VALIDATED_CONVERTED};
    use crate::graphql::check::{check_text, parse as apollo_parse};
    use crate::graphql::embedded_schema;
    use std::path::{Path, PathBuf};

    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else {
                out.push(p);
            }
        }
    }

    /// Every GraphQL document the tests know, with the release it is checked against: the
    /// fixtures of each release, the GraphQL found in every file of `examples/` and
    /// `tests/fixtures/` (4.7.3 and 4.3.3), the bench's documents and the 2,000 generated ones of
    /// `benches/gen_graphql.py` (seed 36) when Python with graphql-core can write them. Read
    /// once for the tests that share them: the generator takes ~35 s.
    fn documents() -> &'static [(String, String)] {
        static DOCUMENTS: std::sync::LazyLock<Vec<(String, String)>> =
            std::sync::LazyLock::new(read_documents);
        &DOCUMENTS
    }

    fn read_documents() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in std::fs::read_dir(root.join("tests/fixtures/graphql"))
            .unwrap()
            .flatten()
        {
            let version = dir.file_name().to_string_lossy().to_string();
            if embedded_schema(&version).is_none() {
                continue;
            }
            for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
                out.push((version.clone(), std::fs::read_to_string(f.path()).unwrap()));
            }
        }
        let mut hosts = Vec::new();
        files(&root.join("examples"), &mut hosts);
        files(&root.join("tests/fixtures"), &mut hosts);
        for p in hosts {
            let (Some(kind), Ok(text)) = (HostKind::from_path(&p), std::fs::read_to_string(&p))
            else {
                continue;
            };
            if kind == HostKind::Graphql {
                continue;
            }
            for site in extract::extract(&text, kind).sites {
                if let Site::Graphql(doc) = site {
                    out.push(("4.7.3".into(), doc.text.clone()));
                    out.push(("4.3.3".into(), doc.text));
                }
            }
        }
        let benches = root.join("benches/graphql-docs");
        for d in std::fs::read_to_string(benches.join("documents.txt"))
            .unwrap()
            .lines()
        {
            out.push(("4.6.8".into(), d.to_string()));
        }
        let generated = std::fs::read_to_string(benches.join("generated-4.7.3.graphql")).unwrap();
        for d in generated.split("# ---") {
            out.push((
                "4.7.3".into(),
                d.split_once('\n').map_or("", |(_, d)| d).to_string(),
            ));
        }
        let json = generated_documents(root);
        match json.as_ref().and_then(|j| j.as_object()) {
            Some(classes) => {
                for docs in classes.values() {
                    for d in docs.as_array().into_iter().flatten().filter_map(|d| d.as_str()) {
                        out.push(("4.7.3".into(), d.to_string()));
                    }
                }
            }
            None => eprintln!(
                "NOT CHECKED: the 2,000 generated documents of benches/gen_graphql.py (needs python3 with graphql-core)"
            ),
        }
        out
    }

    /// `target/graphql-gen-36-2000.json` (the bench's), or written now by `gen_graphql.py`.
    fn generated_documents(root: &Path) -> Option<serde_json::Value> {
        let file = root.join("target/graphql-gen-36-2000.json");
        if !file.exists() {
            let tmp = std::env::temp_dir().join(format!("gen-graphql-{}.json", std::process::id()));
            let ok = std::process::Command::new("python3")
                .arg(root.join("benches/gen_graphql.py"))
                .arg(root.join("index/netbox-4.7.3.schema.graphql.gz"))
                .arg(&tmp)
                .args(["--seed", "36", "--count", "2000"])
                .status()
                .is_ok_and(|s| s.success());
            let text = ok.then(|| std::fs::read_to_string(&tmp).ok()).flatten();
            let _ = std::fs::remove_file(&tmp);
            return serde_json::from_str(&text?).ok();
        }
        serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()
    }

    /// The AST as its `Debug` text without the file ids (` @<id>`: the ruler's and the parse's
    /// differ); the spans stay.
    fn shown(doc: &apollo_compiler::ast::Document, pretty: bool) -> String {
        static FILE_ID: std::sync::LazyLock<regex::Regex> =
            std::sync::LazyLock::new(|| regex::Regex::new(r" @\d+").unwrap());
        let text = if pretty {
            format!("{:#?}", doc.definitions)
        } else {
            format!("{:?}", doc.definitions)
        };
        FILE_ID.replace_all(&text, "").into_owned()
    }

    /// Panics, showing both ASTs laid out, unless they are equal. Compared as one-line `Debug`
    /// text first: the laid-out text is ~5x the work and is only needed to show a difference.
    fn assert_same_ast(
        fast: &apollo_compiler::ast::Document,
        slow: &apollo_compiler::ast::Document,
        context: &str,
    ) {
        if shown(fast, false) != shown(slow, false) {
            assert_eq!(shown(fast, true), shown(slow, true), "{context}");
            panic!("the ASTs differ only in their one-line text:\n{context}");
        }
    }

    /// Broken and edited documents: wherever [`crate::graphql::direct::parse`] answers on a
    /// document cut short, with a byte left out, or with a byte put in (each of the bytes the
    /// grammar cares about), it is apollo-compiler's own AST, and apollo-compiler refuses no text
    /// it reads.
    #[test]
    fn direct_refuses_what_apollo_refuses() {
        let (mut tried, mut read) = (0, 0);
        let docs = documents();
        let step = (docs.len() / 60).max(1);
        for (_, text) in docs.iter().step_by(step) {
            let b = text.as_bytes();
            let mut variants: Vec<Vec<u8>> = Vec::new();
            for at in (0..b.len()).step_by(11) {
                variants.push(b[..at].to_vec());
                let mut v = b.to_vec();
                v.remove(at);
                variants.push(v);
                for c in [
                    b'{', b'}', b'(', b')', b':', b'$', b'@', b'.', b'!', b'[', b']', b'"', b'=',
                    b'0', b'-', b'e', b'#', b'\\', b'\n', b',',
                ] {
                    let mut v = b.to_vec();
                    v.insert(at, c);
                    variants.push(v);
                }
            }
            for v in variants {
                let Ok(t) = String::from_utf8(v) else {
                    continue;
                };
                tried += 1;
                if let Some(fast) = crate::graphql::direct::parse(&t) {
                    read += 1;
                    let slow = apollo_parse(&t).unwrap_or_else(|e| {
                        panic!("read directly, but apollo-compiler refuses it: {e:?}\n{t}")
                    });
                    assert_same_ast(&fast, &slow, &t);
                }
            }
        }
        eprintln!("edited documents: {tried}, read directly {read}");
        assert!(read > 1000, "read directly {read} of {tried}");
    }

    /// The differential test: wherever cynic-parser's conversion answers, it is apollo-compiler's
    /// own AST (every node and span), and the findings of `check_text` are byte for byte those
    /// of apollo-compiler's parse alone, on every document the tests know.
    #[test]
    fn same_ast_and_findings_as_apollo() {
        let (mut converted, mut direct, mut all) = (0, 0, 0);
        for (version, text) in documents() {
            all += 1;
            let nb = embedded_schema(version).unwrap();
            if let Some(fast) = crate::graphql::direct::parse(text) {
                direct += 1;
                let slow = apollo_parse(text).unwrap_or_else(|e| {
                    panic!("read directly, but apollo-compiler refuses it: {e:?}\n{text}")
                });
                assert_same_ast(&fast, &slow, &format!("direct, {version}:\n{text}"));
            }
            if let Some(fast) = parse(text) {
                converted += 1;
                let slow = apollo_parse(text).unwrap_or_else(|e| {
                    panic!("converted, but apollo-compiler refuses it: {e:?}\n{text}")
                });
                assert_same_ast(&fast, &slow, &format!("{version}:\n{text}"));
            }
            let fast = format!("{:?}", check_text(text, None, &nb));
            APOLLO_ONLY.with(|a| a.set(true));
            let slow = format!("{:?}", check_text(text, None, &nb));
            APOLLO_ONLY.with(|a| a.set(false));
            assert_eq!(fast, slow, "{version}:\n{text}");
        }
        assert!(
            converted > 100 && converted * 2 > all,
            "converted {converted} of {all}"
        );
        assert!(direct * 2 > all, "read directly {direct} of {all}");
        // Invalid documents are validated on the converted AST (not parsed again).
        let validated = VALIDATED_CONVERTED.with(std::cell::Cell::get);
        eprintln!(
            "converted {converted}, read directly {direct} of {all}; validated converted: {validated}"
        );
        assert!(validated > 400, "validated converted {validated}");
    }
}
