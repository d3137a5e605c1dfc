//! A GraphQL document read straight into apollo-compiler's AST, for the plain executable
//! documents NetBox users write: one pass over the bytes, no token list, no second tree (what
//! [`super::cynic_ast`] does through cynic-parser's arena and lalrpop's tables, at about five
//! times the instructions on the bench's large documents).
//!
//! [`parse`] answers `None` for anything outside that plain shape, and the caller reads the text
//! as before ([`super::cynic_ast::parse`], then apollo-compiler's parser): a syntax error of any
//! kind, a comment, a description, an inline fragment, a block string or a string with an escape
//! or a control character, a character outside ASCII between tokens, an empty selection set,
//! argument list or variable list, a variable in a default value, a number written any other way
//! than `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, nesting deeper than
//! [`super::cynic_ast::MAX_DEPTH`], a text longer than [`super::ruler::MAX_TEXT`]. What it does
//! answer is apollo-compiler's own AST of the text (every node from its first token to its last,
//! names at their token, spans from [`super::ruler`]): `graphql::cynic_ast`'s differential test
//! holds it to apollo-compiler's parse on every fixture and generated document.

use super::cynic_ast::MAX_DEPTH;
use super::ruler::{self, Ruler};
use apollo_compiler::ast::{self, Definition, Selection, Type, Value};
use apollo_compiler::{Name, Node};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

/// `text` read into apollo-compiler's AST, or `None` (see the module docs).
pub fn parse(text: &str) -> Option<ast::Document> {
    let ruler = ruler::for_len(text.len())?;
    let mut p = P {
        b: text.as_bytes(),
        text,
        i: 0,
        last: 0,
        ruler,
        names: HashMap::with_capacity_and_hasher(64, Default::default()),
    };
    let mut out = ast::Document::new();
    while let Some(c) = p.peek() {
        let def = match c {
            b'{' => Definition::OperationDefinition(p.operation(None)?),
            _ => {
                let (at, kw) = p.word()?;
                match kw {
                    "query" => Definition::OperationDefinition(
                        p.operation(Some((at, ast::OperationType::Query)))?,
                    ),
                    "mutation" => Definition::OperationDefinition(
                        p.operation(Some((at, ast::OperationType::Mutation)))?,
                    ),
                    "subscription" => Definition::OperationDefinition(
                        p.operation(Some((at, ast::OperationType::Subscription)))?,
                    ),
                    "fragment" => Definition::FragmentDefinition(p.fragment(at)?),
                    _ => return None,
                }
            }
        };
        out.definitions.push(def);
    }
    (!out.definitions.is_empty()).then_some(out)
}

/// The reader: the text, the next byte to read, where the last token read ends.
struct P<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    last: usize,
    ruler: &'static Ruler,
    /// The names made so far, by their text: a name written again shares the first one's
    /// `Arc<str>`.
    names: HashMap<&'a str, Name, BuildHasherDefault<NameHasher>>,
}

/// FxHash's step over 8 bytes at a time, for the short names of one document.
#[derive(Default)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

fn name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn name_rest(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl<'a> P<'a> {
    /// The next byte that is not whitespace or a comma (`None` at the end of the text).
    fn peek(&mut self) -> Option<u8> {
        while let Some(&c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b',') {
                self.i += 1;
            } else {
                return Some(c);
            }
        }
        None
    }

    /// Reads punctuation `c` if it is the next token.
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            self.last = self.i;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        self.eat(c).then_some(())
    }

    /// The next token, a name: where it starts and its text.
    fn word(&mut self) -> Option<(usize, &'a str)> {
        let at = self.i;
        if !name_start(*self.b.get(at)?) {
            return None;
        }
        let mut j = at + 1;
        while self.b.get(j).is_some_and(|&c| name_rest(c)) {
            j += 1;
        }
        self.i = j;
        self.last = j;
        Some((at, &self.text[at..j]))
    }

    /// The next token, a name, as apollo-compiler's located `Name`.
    fn name(&mut self) -> Option<Name> {
        self.peek()?;
        let (at, s) = self.word()?;
        self.located(s, at)
    }

    fn located(&mut self, s: &'a str, at: usize) -> Option<Name> {
        let span = self.ruler.span(at..at + s.len())?;
        let name = self
            .names
            .entry(s)
            // Read as a name token.
            .or_insert_with(|| Name::new_unchecked(s));
        Some(name.clone().with_location(span))
    }

    fn node<T>(&self, t: T, r: Range<usize>) -> Option<Node<T>> {
        Some(Node::new_parsed(t, self.ruler.span(r)?))
    }

    /// An operation: `kw` its keyword's start and type, `None` for the shorthand `{ ... }`.
    fn operation(
        &mut self,
        kw: Option<(usize, ast::OperationType)>,
    ) -> Option<Node<ast::OperationDefinition>> {
        let (start, operation_type) = kw.unwrap_or((self.i, ast::OperationType::Query));
        let mut name = None;
        let mut variables = Vec::new();
        let mut directives = ast::DirectiveList(Vec::new());
        if kw.is_some() {
            if self.peek().is_some_and(name_start) {
                name = Some(self.name()?);
            }
            if self.eat(b'(') {
                loop {
                    variables.push(self.variable()?);
                    if self.eat(b')') {
                        break;
                    }
                }
            }
            directives = self.directives(0)?;
        }
        let selection_set = self.selection_set(0)?;
        let o = ast::OperationDefinition {
            operation_type,
            name,
            variables,
            directives,
            selection_set,
        };
        self.node(o, start..self.last)
    }

    /// `fragment Name on Type @directives { ... }`, its keyword at `start`.
    fn fragment(&mut self, start: usize) -> Option<Node<ast::FragmentDefinition>> {
        let name = self.name()?;
        if name.as_str() == "on" {
            return None;
        }
        self.peek()?;
        if self.word()?.1 != "on" {
            return None;
        }
        let type_condition = self.name()?;
        let directives = self.directives(0)?;
        let selection_set = self.selection_set(0)?;
        let d = ast::FragmentDefinition {
            name,
            type_condition,
            directives,
            selection_set,
        };
        self.node(d, start..self.last)
    }

    /// `$name: Type = default @directives`.
    fn variable(&mut self) -> Option<Node<ast::VariableDefinition>> {
        if self.peek()? != b'$' {
            return None;
        }
        let dollar = self.i;
        self.i += 1;
        let name = self.name()?;
        self.expect(b':')?;
        self.peek()?;
        let ts = self.i;
        let ty = self.ty(0)?;
        let ty = self.node(ty, ts..self.last)?;
        let default_value = if self.eat(b'=') {
            Some(self.value(0, true)?)
        } else {
            None
        };
        let directives = self.directives(0)?;
        let d = ast::VariableDefinition {
            name,
            ty,
            default_value,
            directives,
        };
        self.node(d, dollar..self.last)
    }

    fn ty(&mut self, depth: usize) -> Option<Type> {
        if depth > MAX_DEPTH {
            return None;
        }
        if self.eat(b'[') {
            let inner = self.ty(depth + 1)?;
            self.expect(b']')?;
            Some(if self.eat(b'!') {
                Type::NonNullList(Box::new(inner))
            } else {
                Type::List(Box::new(inner))
            })
        } else {
            let n = self.name()?;
            Some(if self.eat(b'!') {
                Type::NonNullNamed(n)
            } else {
                Type::Named(n)
            })
        }
    }

    /// `@name(args)`, as many as written.
    fn directives(&mut self, depth: usize) -> Option<ast::DirectiveList> {
        let mut out = Vec::new();
        while self.peek() == Some(b'@') {
            let at = self.i;
            self.i += 1;
            self.last = self.i;
            let name = self.name()?;
            let arguments = if self.peek() == Some(b'(') {
                self.arguments(depth)?
            } else {
                Vec::new()
            };
            out.push(self.node(ast::Directive { name, arguments }, at..self.last)?);
        }
        Some(ast::DirectiveList(out))
    }

    /// `(name: value ...)`, at least one.
    fn arguments(&mut self, depth: usize) -> Option<Vec<Node<ast::Argument>>> {
        self.expect(b'(')?;
        let mut out = Vec::new();
        loop {
            self.peek()?;
            let (at, s) = self.word()?;
            let name = self.located(s, at)?;
            self.expect(b':')?;
            let value = self.value(depth + 1, false)?;
            out.push(self.node(ast::Argument { name, value }, at..self.last)?);
            if self.eat(b')') {
                return Some(out);
            }
        }
    }

    /// `{ selection ... }`, at least one.
    fn selection_set(&mut self, depth: usize) -> Option<Vec<Selection>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.expect(b'{')?;
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            if c == b'.' {
                if !self.b[self.i..].starts_with(b"...") {
                    return None;
                }
                let at = self.i;
                self.i += 3;
                self.last = self.i;
                // apollo-parser reads the token after `...` without skipping commas.
                self.peek()?;
                if self.b[at + 3..self.i].contains(&b',') {
                    return None;
                }
                let fragment_name = self.name()?;
                if fragment_name.as_str() == "on" {
                    return None;
                }
                let directives = self.directives(depth)?;
                let spread = ast::FragmentSpread {
                    fragment_name,
                    directives,
                };
                out.push(Selection::FragmentSpread(self.node(spread, at..self.last)?));
            } else {
                out.push(Selection::Field(self.field(depth)?));
            }
            if self.eat(b'}') {
                return Some(out);
            }
        }
    }

    fn field(&mut self, depth: usize) -> Option<Node<ast::Field>> {
        self.peek()?;
        let (start, first) = self.word()?;
        let first = self.located(first, start)?;
        let after = self.i;
        // apollo-parser looks for an alias's `:` as the very next token: a comma before it
        // is a syntax error there.
        if self.peek() == Some(b':') && self.b[after..self.i].contains(&b',') {
            return None;
        }
        let (alias, name) = if self.eat(b':') {
            (Some(first), self.name()?)
        } else {
            (None, first)
        };
        let arguments = if self.peek() == Some(b'(') {
            self.arguments(depth)?
        } else {
            Vec::new()
        };
        let directives = self.directives(depth)?;
        let selection_set = if self.peek() == Some(b'{') {
            self.selection_set(depth + 1)?
        } else {
            Vec::new()
        };
        let field = ast::Field {
            alias,
            name,
            arguments,
            directives,
            selection_set,
        };
        self.node(field, start..self.last)
    }

    /// A value; `konst` refuses variables (a default value).
    fn value(&mut self, depth: usize, konst: bool) -> Option<Node<Value>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let c = self.peek()?;
        let at = self.i;
        let value = match c {
            b'$' => {
                if konst {
                    return None;
                }
                self.i += 1;
                self.last = self.i;
                Value::Variable(self.name()?)
            }
            b'-' | b'0'..=b'9' => return self.number(at),
            b'"' => {
                if self.b[at..].starts_with(b"\"\"\"") {
                    return None;
                }
                let mut j = at + 1;
                loop {
                    match *self.b.get(j)? {
                        b'"' => break,
                        b'\\' => return None,
                        c if c < 0x20 || c == 0x7f => return None,
                        _ => j += 1,
                    }
                }
                self.i = j + 1;
                self.last = self.i;
                Value::String(self.text[at + 1..j].to_string())
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                while !self.eat(b']') {
                    items.push(self.value(depth + 1, konst)?);
                }
                Value::List(items)
            }
            b'{' => {
                self.i += 1;
                let mut fields = Vec::new();
                while !self.eat(b'}') {
                    self.peek()?;
                    let name = self.name()?;
                    self.expect(b':')?;
                    fields.push((name, self.value(depth + 1, konst)?));
                }
                Value::Object(fields)
            }
            _ => {
                let (at, s) = self.word()?;
                match s {
                    "true" => Value::Boolean(true),
                    "false" => Value::Boolean(false),
                    "null" => Value::Null,
                    _ => Value::Enum(self.located(s, at)?),
                }
            }
        };
        self.node(value, at..self.last)
    }

    /// An Int or Float token at `at`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, not
    /// followed by a name character or a dot.
    fn number(&mut self, at: usize) -> Option<Node<Value>> {
        let b = self.b;
        let digits = |mut j: usize| -> Option<usize> {
            let s = j;
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            (j > s).then_some(j)
        };
        let mut j = at;
        if b[j] == b'-' {
            j += 1;
        }
        let int_start = j;
        j = digits(j)?;
        if b[int_start] == b'0' && j > int_start + 1 {
            return None;
        }
        let mut float = false;
        if b.get(j) == Some(&b'.') {
            j = digits(j + 1)?;
            float = true;
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            j += 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            j = digits(j)?;
            float = true;
        }
        if b.get(j).is_some_and(|&c| name_rest(c) || c == b'.') {
            return None;
        }
        self.i = j;
        self.last = j;
        let raw = &self.text[at..j];
        let value = if float {
            Value::Float(ast::FloatValue::new_parsed(raw))
        } else {
            Value::Int(ast::IntValue::new_parsed(raw))
        };
        self.node(value, at..j)
    }
}
