//! Extraction from YAML: tool-call mappings (`tool: netbox_get_objects` or `name:`, with
//! `object_type:` / `filters:` beside it or under `arguments:` / `args:` / `input:`), bare
//! mappings with `object_type` and `filters`, GraphQL `query:` values (block scalars `|` / `>`
//! with their indentation removed, and one-line quoted strings without escapes), plus REST URLs.
//!
//! Scalars follow the YAML 1.2 core schema as tree-sitter-yaml tags them: plain `123` is an
//! integer, `true` a boolean, `null` / `~` / an empty value null; quoted scalars are strings.

use std::ops::Range;

use tree_sitter::Node;

use super::lit::{Lit, LitKind, Pair};
use super::parse::{self, Lang, MAX_DEPTH};
use super::{tools, OffsetMap, Site, Syntax, Value};

/// Sites found in `text`; ranges mapped to the host through `map`.
pub fn extract(text: &str, map: &OffsetMap) -> Vec<Site> {
    let mut sites = extract_calls(text, map);
    // curl `-G` commands in `shell:` / `command:` values; their URLs are read once, with them.
    let curl = super::curl::extract(text, map);
    let mut urls = curl.clone();
    super::curl::merge_urls(&mut urls, super::text::extract(text, map));
    sites.extend(urls);
    sites
}

/// Calls and documents only (no URL scan).
pub(crate) fn extract_calls(text: &str, map: &OffsetMap) -> Vec<Site> {
    let Some(tree) = parse::parse(Lang::Yaml, text) else {
        return Vec::new();
    };
    let cx = Cx { src: text, map };
    let mut sites = Vec::new();
    let root = cx.lit(tree.root_node(), 0);
    tools::find_in_tree(&root, Syntax::Yaml, &mut sites);
    // Ansible: the nb_inventory plugin's filter lists and nb_lookup calls in Jinja values.
    super::ansible::inventory(&root, &mut sites);
    sites.extend(super::ansible::lookups(text, map));
    sites
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
                (self.text(k).to_string(), key.range.clone())
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
            let map = OffsetMap::identity(content.start, content.len()).then(self.map);
            (value.clone(), map)
        });
        Lit {
            value: Value::Str(value),
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
            value: Value::Str(value.clone()),
            range: self.host(r),
            kind: LitKind::Str {
                content: self.host(body_start.min(n.end_byte())..n.end_byte()),
                exact: Some((value, host_map)),
            },
            raw: None,
        }
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
