//! Extraction from YAML: tool-call mappings (`tool: netbox_get_objects` or `name:`, with
//! `object_type:` / `filters:` beside it or under `arguments:` / `args:` / `input:`), bare
//! mappings with `object_type` and `filters`, GraphQL `query:` values (block scalars `|` / `>`
//! with their indentation removed, and one-line quoted strings without escapes), plus REST URLs.
//!
//! Scalars follow the YAML 1.2 core schema as tree-sitter-yaml tags them: plain `123` is an
//! integer, `true` a boolean, `null` / `~` / an empty value null; quoted scalars are strings.

use std::ops::Range;

use tree_sitter::Node;

use super::ansible_vars::{self, Bindings};
use super::lit::{Exact, Lit, LitKind, Pair};
use super::parse::{self, Lang, MAX_DEPTH};
use super::{tools, OffsetMap, Site, Syntax, Value};

/// Sites found in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut sites = extract_calls(text, map);
    // curl, wget and httpie commands in `shell:` / `command:` / `run:` values; their URLs are
    // read once, as the shell passes them.
    let mut urls = super::commands::extract(text, map);
    super::commands::merge_urls(&mut urls, super::text::extract(text, map));
    sites.extend(urls);
    sites
}

/// Calls and documents only (no URL scan).
pub(crate) fn extract_calls(text: &str, map: &OffsetMap) -> Vec<Site> {
    let root = match tree(text, map) {
        Ok(root) => root,
        Err(refused) => return refused,
    };
    let mut sites = Vec::new();
    tools::find_in_tree(&root, Syntax::Yaml, &mut sites);
    // Ansible: the nb_inventory plugin's filter lists and nb_lookup calls in Jinja values, with
    // the variables bound in this file (`vars:`, `set_fact:`) that feed them.
    super::ansible::inventory(&root, &mut sites);
    let vars = Bindings::of(&root, text);
    sites.extend(super::ansible::lookups_bound(text, map, &vars));
    graphql_bodies(&root, &vars, &mut sites);
    sites
}

/// GraphQL documents held in variables and sent in a request body: `query: "{{ gql }}"` (a
/// document found as the template text alone is replaced by the variable's document) and
/// `body: "{{ {'query': gql} | to_json }}"`. A document that is no NetBox document is judged by
/// the GraphQL checks as any other.
fn graphql_bodies(root: &Lit, vars: &Bindings, sites: &mut Vec<Site>) {
    // `query: "{{ gql }}"`: the site the object reader made of the template text.
    for site in sites.iter_mut() {
        let Site::Graphql(doc) = site else { continue };
        let Some(lit) = ansible_vars::whole_jinja_name(&doc.text).and_then(|n| vars.resolve(n))
        else {
            continue;
        };
        if let Some(Site::Graphql(bound)) = tools::graphql_doc(lit, doc.variables.clone()) {
            *doc = bound;
        }
    }
    // `body: "{{ {'query': gql} | to_json }}"`.
    let mut stack = vec![root];
    while let Some(lit) = stack.pop() {
        match &lit.kind {
            LitKind::Seq(items) => stack.extend(items.iter()),
            LitKind::Map(pairs) => {
                for p in pairs {
                    if p.key == "body" {
                        if let Some(name) = p
                            .value
                            .as_str()
                            .and_then(|(s, _)| ansible_vars::query_entry(s))
                        {
                            if let Some(found) =
                                vars.resolve(name).and_then(|l| tools::graphql_doc(l, None))
                            {
                                sites.push(found);
                            }
                        }
                    }
                    stack.push(&p.value);
                }
            }
            _ => {}
        }
    }
}

/// The literal tree of a YAML text (the fast reader, else tree-sitter), or the site that says
/// why it was refused.
fn tree(text: &str, map: &OffsetMap) -> Result<Lit, Vec<Site>> {
    let cx = Cx { src: text, map };
    if let Some(refused) = parse::over_budget(Lang::Yaml, text) {
        return Err(refused.site(text.len(), map).into_iter().collect());
    }
    match plain::stream(&cx) {
        Some(root) => Ok(root),
        None => {
            let tree = match parse::parse(Lang::Yaml, text) {
                Ok(t) => t,
                Err(refused) => return Err(refused.site(text.len(), map).into_iter().collect()),
            };
            Ok(cx.lit(tree.root_node(), 0))
        }
    }
}

/// [`tree`] for unit tests of the modules that read it.
#[cfg(test)]
pub(crate) fn tree_for_tests(text: &str, map: &OffsetMap) -> Lit {
    tree(text, map).unwrap_or_else(|_| Lit::scalar(Value::Expr, 0..0))
}

struct Cx<'a> {
    src: &'a str,
    map: &'a OffsetMap,
}

impl Cx<'_> {
    fn host(&self, r: Range<usize>) -> Range<usize> {
        self.map.range_to_host(r)
    }

    fn text(&self, n: Node) -> &str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    /// Host range of a node without the trailing whitespace block nodes take in.
    fn trimmed(&self, n: Node) -> Range<usize> {
        let r = n.byte_range();
        let t = self.src.get(r.clone()).unwrap_or("");
        self.host(r.start..r.start + t.trim_end().len())
    }

    fn lit(&self, n: Node, depth: usize) -> Lit {
        let range = self.trimmed(n);
        if depth > MAX_DEPTH {
            return Lit::scalar(Value::Expr, range);
        }
        match n.kind() {
            "block_node" | "flow_node" => {
                let mut cursor = n.walk();
                let children: Vec<Node> = n.named_children(&mut cursor).collect();
                let str_tag = children
                    .iter()
                    .any(|c| c.kind() == "tag" && self.text(*c) == "!!str");
                let Some(content) = children
                    .iter()
                    .find(|c| !matches!(c.kind(), "tag" | "anchor" | "comment"))
                else {
                    return Lit::scalar(Value::Null, range);
                };
                let mut l = self.lit(*content, depth + 1);
                if str_tag && content.kind() == "plain_scalar" {
                    let r = content.byte_range();
                    l = self.str_lit(self.text(*content).to_string(), r.clone(), r, true);
                }
                l
            }
            "block_mapping" | "flow_mapping" => {
                let mut cursor = n.walk();
                let mut pairs = Vec::new();
                for p in n.named_children(&mut cursor) {
                    if !matches!(p.kind(), "block_mapping_pair" | "flow_pair") {
                        continue;
                    }
                    if let Some(pair) = self.pair(p, depth) {
                        pairs.push(pair);
                    }
                }
                Lit::map(pairs, range)
            }
            "block_sequence" | "flow_sequence" => {
                let mut cursor = n.walk();
                let items = n
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .map(|c| match c.kind() {
                        "block_sequence_item" => match c.named_child(0) {
                            Some(inner) => self.lit(inner, depth + 1),
                            None => Lit::scalar(Value::Null, self.host(c.end_byte()..c.end_byte())),
                        },
                        "flow_pair" => {
                            let pairs = self.pair(c, depth).into_iter().collect();
                            Lit::map(pairs, self.host(c.byte_range()))
                        }
                        _ => self.lit(c, depth + 1),
                    })
                    .collect();
                Lit::seq(items, range)
            }
            "plain_scalar" => self.plain(n),
            "double_quote_scalar" | "single_quote_scalar" => self.quoted(n),
            "block_scalar" => self.block_scalar(n),
            "alias" => Lit::scalar(Value::Expr, range),
            // stream, document, ERROR: containers to look inside.
            _ => {
                let mut cursor = n.walk();
                let items = n
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .map(|c| self.lit(c, depth + 1))
                    .collect();
                let mut l = Lit::seq(items, range);
                l.value = Value::Expr;
                l
            }
        }
    }

    fn pair(&self, p: Node, depth: usize) -> Option<Pair> {
        let k = p.child_by_field_name("key")?;
        let key = self.lit(k, depth + 1);
        let (key_text, key_range) = match (&key.value, &key.kind) {
            (Value::Str(s), LitKind::Str { content, .. }) => (s.clone(), content.clone()),
            // `123: x`, `true: x`: keys are strings for our purposes.
            (Value::Int(_) | Value::Bool(_) | Value::Float(_), _) => {
                (self.text(k).into(), key.range.clone())
            }
            _ => return None,
        };
        let value = match p.child_by_field_name("value") {
            Some(v) => self.lit(v, depth + 1),
            // `key:` with nothing after it is null; point at the end of the pair.
            None if self.text(p).trim_end().ends_with(':') => {
                Lit::scalar(Value::Null, self.host(p.end_byte()..p.end_byte()))
            }
            // An explicit key without `:` (`? tenant`): null too, but no text after the key
            // can give it a value (`? tenant "null"` is the key `tenant "null"`), so it is not
            // judged rather than offered a fix that renames the key.
            None => Lit::scalar(Value::Expr, self.host(p.end_byte()..p.end_byte())),
        };
        Some(Pair {
            key: key_text,
            key_range,
            value,
        })
    }

    fn plain(&self, n: Node) -> Lit {
        let range = self.host(n.byte_range());
        let text = self.text(n);
        let kind = n
            .named_child(0)
            .map(|c| c.kind())
            .unwrap_or("string_scalar");
        let value = match kind {
            "integer_scalar" => parse_int(text).map_or(Value::Expr, Value::Int),
            "float_scalar" => parse_float(text).map_or(Value::Expr, Value::Float),
            "boolean_scalar" => Value::Bool(text.eq_ignore_ascii_case("true")),
            "null_scalar" => Value::Null,
            _ => {
                let one_line = !text.contains('\n');
                let folded = fold_lines(text);
                return self.str_lit(folded, n.byte_range(), n.byte_range(), one_line);
            }
        };
        Lit::scalar(value, range)
    }

    /// A string whose content spans `content` (embedded); exact when `exact`.
    fn str_lit(
        &self,
        value: String,
        whole: Range<usize>,
        content: Range<usize>,
        exact: bool,
    ) -> Lit {
        let exact = exact.then(|| {
            Exact::Value(OffsetMap::identity(content.start, content.len()).then(self.map))
        });
        Lit {
            value: Value::Str(value.into()),
            range: self.host(whole),
            kind: LitKind::Str {
                content: self.host(content),
                exact,
            },
            raw: None,
        }
    }

    fn quoted(&self, n: Node) -> Lit {
        let text = self.text(n);
        let r = n.byte_range();
        // An unterminated scalar (error recovery) has no closing quote to step back over.
        let quote = self.src.as_bytes().get(r.start).copied();
        let closed = r.end > r.start + 1 && self.src.as_bytes().get(r.end - 1).copied() == quote;
        let content = (r.start + 1).min(r.end)..r.end - usize::from(closed);
        let raw = self.src.get(content.clone()).unwrap_or("");
        let single = n.kind() == "single_quote_scalar";
        let value = if single {
            fold_lines(&raw.replace("''", "'"))
        } else {
            fold_lines(&decode_double(raw))
        };
        let closed = text.len() >= 2 && text.ends_with(if single { '\'' } else { '"' });
        let exact = closed
            && !raw.contains('\n')
            && if single {
                !raw.contains("''")
            } else {
                !raw.contains('\\')
            };
        self.str_lit(value, r, content, exact)
    }

    /// `|` / `>` block scalar: the lines below the header with the indentation removed. The
    /// exact map keeps the line breaks of folded (`>`) scalars too: GraphQL reads a line break
    /// and a space alike.
    fn block_scalar(&self, n: Node) -> Lit {
        let r = n.byte_range();
        let text = self.text(n);
        let Some(header_end) = text.find('\n') else {
            return self.str_lit(String::new(), r.clone(), r.end..r.end, true);
        };
        let header = &text[..header_end];
        let body_start = r.start + header_end + 1;
        let body = &text[header_end + 1..];
        let explicit = header
            .chars()
            .find_map(|c| c.to_digit(10))
            .map(|d| d as usize);
        let indent = match explicit {
            Some(d) => {
                // Relative to the parent's indentation: the column of the line holding the header.
                let line_start = self.src[..r.start].rfind('\n').map_or(0, |i| i + 1);
                let parent = self.src[line_start..r.start].len()
                    - self.src[line_start..r.start].trim_start().len();
                parent + d
            }
            None => body
                .split('\n')
                .find(|l| !l.trim().is_empty())
                .map(|l| l.len() - l.trim_start_matches(' ').len())
                .unwrap_or(0),
        };
        let mut value = String::new();
        let mut map = OffsetMap::new();
        let mut pos = body_start;
        for line in body.split_inclusive('\n') {
            let lead = line.len() - line.trim_start_matches(' ').len();
            let skip = lead.min(indent);
            let kept = &line[skip..];
            value.push_str(kept);
            map.push(pos + skip, kept.len());
            pos += line.len();
        }
        let host_map = map.then(self.map);
        Lit {
            value: Value::Str(value.into()),
            range: self.host(r),
            kind: LitKind::Str {
                content: self.host(body_start.min(n.end_byte())..n.end_byte()),
                exact: Some(Exact::Value(host_map)),
            },
            raw: None,
        }
    }
}

/// Plain YAML read by `saphyr-parser`'s events instead of tree-sitter: block mappings and
/// sequences indented with spaces, keys that are lower-case words, values on the key's line
/// (unquoted words, integers, decimals, `true` / `false` / `null` / `~`, quoted strings without
/// escapes or quotes inside, one-line flow sequences of these). This is how tool calls are
/// written in skill files, and it gives the same literal tree as `Cx::lit` on tree-sitter-yaml's
/// tree (tested against it) at a fraction of the cost; scalars are typed as tree-sitter-yaml
/// types them (`scalar_kind`), not as saphyr's YAML 1.2 core schema would. Anything else
/// (comments, tabs, anchors, tags, block scalars, flow mappings, multi-line scalars, a sequence
/// at its key's indentation, non-ASCII text, ...) is left to tree-sitter.
mod plain {
    use saphyr_parser::{Event, Parser, ScalarStyle, Span, StrInput};

    use super::{parse_float, parse_int, Cx};
    use crate::extract::lit::{Lit, Pair};
    use crate::extract::parse::{self, Lang, MAX_PARSE};
    use crate::extract::Value;

    /// Deepest block nesting read here (far below `MAX_DEPTH` in `Cx::lit`'s count).
    const MAX_LEVELS: usize = 12;

    /// The stream's literal as `Cx::lit` gives it for tree-sitter's `stream` node, or `None`.
    pub(super) fn stream(cx: &Cx) -> Option<Lit> {
        let text = cx.src;
        if text.len() > MAX_PARSE
            || !text.is_ascii()
            || text.bytes().any(|b| {
                matches!(
                    b,
                    b'\t'
                        | b'\r'
                        | b'#'
                        | b'&'
                        | b'*'
                        | b'!'
                        | b'|'
                        | b'>'
                        | b'{'
                        | b'}'
                        | b'?'
                        | b'%'
                        | b'@'
                        | b'`'
                        | b'\\'
                ) || (b < 0x20 && b != b'\n')
            })
            || parse::too_deep(Lang::Yaml, text)
        {
            return None;
        }
        // Lines as tree-sitter-yaml and this reader both see them: no trailing spaces, no
        // document markers.
        if text.split('\n').any(|l| {
            let c = l.trim_start_matches(' ');
            c.len() != c.trim_end().len() || c.starts_with("---") || c.starts_with("...")
        }) {
            return None;
        }
        // ASCII only: saphyr's markers count characters, which are then bytes.
        let mut r = Reader {
            cx,
            src: text,
            events: Parser::new_from_str(text),
            next: None,
        };
        if !matches!(r.event()?.0, Event::StreamStart)
            || !matches!(r.event()?.0, Event::DocumentStart(false))
        {
            return None;
        }
        let (ev, sp) = r.event()?;
        let (root, _) = match ev {
            Event::MappingStart(..) => r.mapping(0)?,
            Event::SequenceStart(..) if text.as_bytes()[sp.start.index()] == b'-' => {
                r.sequence(sp.start.index(), 0)?
            }
            _ => return None,
        };
        if !matches!(r.event()?.0, Event::DocumentEnd) || !matches!(r.event()?.0, Event::StreamEnd)
        {
            return None;
        }
        let start = text.len() - text.trim_start().len();
        let end = start + text[start..].trim_end().len();
        let range = cx.host(start..end);
        let mut doc = Lit::seq(vec![root], range.clone());
        doc.value = Value::Expr;
        let mut stream = Lit::seq(vec![doc], range);
        stream.value = Value::Expr;
        Some(stream)
    }

    struct Reader<'a> {
        cx: &'a Cx<'a>,
        src: &'a str,
        events: Parser<'a, StrInput<'a>>,
        next: Option<(Event<'a>, Span)>,
    }

    impl<'a> Reader<'a> {
        /// The next event; `None` at a syntax error or the end.
        fn event(&mut self) -> Option<(Event<'a>, Span)> {
            match self.next.take() {
                Some(e) => Some(e),
                None => self.events.next()?.ok(),
            }
        }

        /// The block mapping after its `MappingStart`, with the embedded end of its last token.
        fn mapping(&mut self, level: usize) -> Option<(Lit, usize)> {
            if level > MAX_LEVELS {
                return None;
            }
            let mut pairs = Vec::new();
            let mut start = None;
            let mut end = 0;
            loop {
                let (ev, sp) = self.event()?;
                let key_range = match ev {
                    Event::MappingEnd => break,
                    Event::Scalar(_, ScalarStyle::Plain, _, None) => {
                        sp.start.index()..sp.end.index()
                    }
                    _ => return None,
                };
                let line = self.src.get(key_range.start..)?;
                let key = key_of(line.split('\n').next().unwrap_or(line))?;
                if key.len() != key_range.len() {
                    return None;
                }
                start.get_or_insert(key_range.start);
                let (ev, sp) = self.event()?;
                let (value, e) = match ev {
                    // `key:` with nothing after it: null, at the end of the pair.
                    Event::Scalar(v, ScalarStyle::Plain, _, None)
                        if v.is_empty() && sp.start.index() == key_range.end =>
                    {
                        let colon_end = key_range.end + 1;
                        (
                            Lit::scalar(Value::Null, self.cx.host(colon_end..colon_end)),
                            colon_end,
                        )
                    }
                    Event::MappingStart(..) => self.mapping(level + 1)?,
                    Event::SequenceStart(..) => {
                        let at = sp.start.index();
                        if self.src.as_bytes()[at] == b'[' {
                            self.flow_sequence(at, level + 1)?
                        } else {
                            // A sequence at its key's indentation reads otherwise in
                            // tree-sitter (and saphyr starts it elsewhere than at its `-`).
                            let col = |i: usize| i - self.src[..i].rfind('\n').map_or(0, |n| n + 1);
                            if self.src.as_bytes()[at] != b'-' || col(at) <= col(key_range.start) {
                                return None;
                            }
                            self.sequence(at, level + 1)?
                        }
                    }
                    ev => self.scalar(ev, &sp)?,
                };
                end = e;
                pairs.push(Pair {
                    key: key.into(),
                    key_range: self.cx.host(key_range),
                    value,
                });
            }
            let start = start?;
            Some((Lit::map(pairs, self.cx.host(start..end)), end))
        }

        /// The block sequence after its `SequenceStart` at the first `-` (offset `at`).
        fn sequence(&mut self, at: usize, level: usize) -> Option<(Lit, usize)> {
            if level > MAX_LEVELS {
                return None;
            }
            let mut items = Vec::new();
            let mut end = at;
            loop {
                let (ev, sp) = self.event()?;
                let (item, e) = match ev {
                    Event::SequenceEnd => break,
                    Event::MappingStart(..) => self.mapping(level + 1)?,
                    Event::SequenceStart(..) if self.src.as_bytes()[sp.start.index()] == b'[' => {
                        self.flow_sequence(sp.start.index(), level + 1)?
                    }
                    Event::SequenceStart(..) => return None,
                    ev => self.scalar(ev, &sp)?,
                };
                items.push(item);
                end = e;
            }
            if items.is_empty() {
                return None;
            }
            Some((Lit::seq(items, self.cx.host(at..end)), end))
        }

        /// The flow sequence after its `SequenceStart` at `[` (offset `at`).
        fn flow_sequence(&mut self, at: usize, level: usize) -> Option<(Lit, usize)> {
            if level > MAX_LEVELS {
                return None;
            }
            let mut items = Vec::new();
            loop {
                let (ev, sp) = self.event()?;
                let item = match ev {
                    Event::SequenceEnd => {
                        let end = sp.end.index();
                        if self.src[at..end].contains('\n') || !self.src[..end].ends_with(']') {
                            return None;
                        }
                        return Some((Lit::seq(items, self.cx.host(at..end)), end));
                    }
                    Event::SequenceStart(..) => self.flow_sequence(sp.start.index(), level + 1)?.0,
                    ev => self.scalar(ev, &sp)?.0,
                };
                items.push(item);
            }
        }

        /// A one-line scalar: an unquoted word typed as tree-sitter-yaml types it, or a quoted
        /// string without quotes inside.
        fn scalar(&self, ev: Event, sp: &Span) -> Option<(Lit, usize)> {
            let Event::Scalar(v, style, _, None) = ev else {
                return None;
            };
            let range = sp.start.index()..sp.end.index();
            let raw = self.src.get(range.clone())?;
            if raw.is_empty() || raw.contains('\n') {
                return None;
            }
            let host = self.cx.host(range.clone());
            let lit = match style {
                ScalarStyle::Plain => match scalar_kind(raw)? {
                    Kind::Int => Lit::scalar(parse_int(raw).map_or(Value::Expr, Value::Int), host),
                    Kind::Float => {
                        Lit::scalar(parse_float(raw).map_or(Value::Expr, Value::Float), host)
                    }
                    Kind::Bool => Lit::scalar(Value::Bool(raw == "true"), host),
                    Kind::Null => Lit::scalar(Value::Null, host),
                    Kind::Str => {
                        self.cx
                            .str_lit(raw.to_string(), range.clone(), range.clone(), true)
                    }
                },
                ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                    let q = if style == ScalarStyle::SingleQuoted {
                        '\''
                    } else {
                        '"'
                    };
                    let inner = raw.strip_prefix(q)?.strip_suffix(q)?;
                    if inner.contains(q) || *v != *inner {
                        return None;
                    }
                    let content = range.start + 1..range.end - 1;
                    self.cx
                        .str_lit(inner.to_string(), range.clone(), content, true)
                }
                _ => return None,
            };
            Some((lit, range.end))
        }
    }

    enum Kind {
        Int,
        Float,
        Bool,
        Null,
        Str,
    }

    /// How tree-sitter-yaml types an unquoted word, for the words read here; `None` for others.
    fn scalar_kind(w: &str) -> Option<Kind> {
        let b = w.as_bytes();
        if b.is_empty() {
            return None;
        }
        let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
        let unsigned = w.strip_prefix('-').unwrap_or(w).as_bytes();
        match w {
            "true" | "false" => return Some(Kind::Bool),
            "null" | "~" => return Some(Kind::Null),
            _ => {}
        }
        if digits(unsigned) {
            let canonical = unsigned == b"0" || unsigned[0] != b'0';
            return (canonical && unsigned.len() <= 18).then_some(Kind::Int);
        }
        if let Some((int, frac)) = w.split_once('.') {
            let int = int.strip_prefix('-').unwrap_or(int).as_bytes();
            if digits(int) && digits(frac.as_bytes()) {
                return (int == b"0" || int[0] != b'0').then_some(Kind::Float);
            }
        }
        let word = b[0].is_ascii_alphabetic()
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b'-'));
        let lower = w.to_ascii_lowercase();
        let special = matches!(
            lower.as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        ) || lower.starts_with(".")
            || lower.contains("..");
        (word && !special).then_some(Kind::Str)
    }

    /// The key of a `key:` / `key: value` line start: a lower-case word that is no other scalar.
    fn key_of(s: &str) -> Option<&str> {
        let end = s.find(':')?;
        let key = &s[..end];
        let after = &s[end + 1..];
        let b = key.as_bytes();
        let ok = !b.is_empty()
            && (b[0].is_ascii_lowercase() || b[0] == b'_')
            && b.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
            && !matches!(
                key,
                "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
            )
            && (after.is_empty() || after.starts_with(' '));
        ok.then_some(key)
    }
}

/// YAML line folding for flow scalars: line breaks and the indentation around them become one
/// space (an empty line becomes a line break).
fn fold_lines(s: &str) -> String {
    if !s.contains('\n') {
        return s.to_string();
    }
    let lines: Vec<&str> = s.split('\n').map(str::trim).collect();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            if l.is_empty() {
                out.push('\n');
                continue;
            }
            if !out.ends_with('\n') {
                out.push(' ');
            }
        }
        out.push_str(l);
    }
    out
}

fn decode_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(e @ ('x' | 'u' | 'U')) => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = chars.by_ref().take(n).collect();
                if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some('\n') | None => {}
            Some(other) => out.push(other),
        }
    }
    out
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.trim();
    if let Some(h) = t.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = t.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else {
        t.parse().ok()
    }
}

fn parse_float(t: &str) -> Option<f64> {
    match t.trim().to_ascii_lowercase().as_str() {
        ".inf" | "+.inf" => Some(f64::INFINITY),
        "-.inf" => Some(f64::NEG_INFINITY),
        ".nan" => Some(f64::NAN),
        other => other.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Some((plain, tree-sitter))` renderings of the stream literal when the plain reader
    /// accepts `text`.
    fn both(text: &str) -> Option<(String, String)> {
        let map = OffsetMap::identity(5, text.len());
        let cx = Cx {
            src: text,
            map: &map,
        };
        let fast = plain::stream(&cx)?;
        let tree = parse::parse(Lang::Yaml, text).expect("tree-sitter parses");
        Some((
            format!("{fast:?}"),
            format!("{:?}", cx.lit(tree.root_node(), 0)),
        ))
    }

    /// YAML fences and files under examples/ and tests/fixtures/, and tool calls as skill
    /// files write them (benches/gen_skill.py).
    fn samples() -> Vec<String> {
        let mut out = super::super::mutations::fixture_texts(
            &["yaml", "yml"],
            |u| matches!(&u.kind, crate::extract::markdown::UnitKind::Fence(l) if l == "yaml" || l == "yml"),
        );
        out.extend([
            "- tool: netbox_get_objects\n  arguments:\n    object_type: ipam.fhrpgroup\n    filters:\n      auth_type: 42\n".to_string(),
            "tool: netbox_get_objects\nobject_type: dcim.device\nfilters:\n  status: [\"active\", \"planned\"]\n  site_id: [1, 2]\n  q: 'x'\n  tag:\n  latitude: -1.5\n  role: null\n  vc: ~\n  ok: true\n\n".into(),
            "\n\n  - name: a\n    filters: {}\n  - b\n  - [1, [2, 3], []]\n".into(),
            "a:\n  b:\n    c:\n      d: 007\n      e: 0x1f\n      f: 1.50\n      g: edge-1/x.y\n      h: True\n  i: -0\n".into(),
            "- - a\n- b\n-\n  c: d\n".into(),
            "a:\n- b\n- c\n".into(),
        ]);
        out
    }

    /// The plain reader gives exactly tree-sitter's literal tree wherever it accepts a text:
    /// every sample, and every sample with one byte deleted, doubled or replaced.
    #[test]
    fn plain_reader_matches_tree_sitter() {
        let mut accepted = 0;
        let mut compared = 0;
        for text in samples() {
            let variants = super::super::mutations::one_byte_variants(
                &text,
                60,
                &[
                    ":", "-", " ", "\n", "\"", "'", "[", "]", ",", "0", "~", "- ", ": ", " ", "1.",
                    "x",
                ],
            );
            for v in variants {
                compared += 1;
                if let Some((fast, tree)) = both(&v) {
                    accepted += 1;
                    assert_eq!(fast, tree, "{v:?}");
                }
            }
        }
        // Tool calls as skill files write them are read here, not by tree-sitter.
        for call in &samples()[samples().len() - 6..samples().len() - 4] {
            assert!(both(call).is_some(), "{call:?}");
        }
        eprintln!("plain YAML reader: {accepted} of {compared} texts accepted");
        assert!(
            accepted > 300 && compared > accepted,
            "{accepted} of {compared}"
        );
    }
}
