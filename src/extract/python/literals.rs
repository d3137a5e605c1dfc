//! Python literals as [`Lit`]s (numbers, booleans, `None`, lists, tuples, sets, dicts,
//! `dict(a=1)`), with host ranges that take in the parentheses around them, as written (no name
//! is read: [`super::values`] reads names through).

use ruff_python_ast::{self as ast, Expr, Number, UnaryOp};
use ruff_text_size::Ranged;

use super::strings::string_parts;
use super::{span, Reader};
use crate::extract::lit::{Lit, Pair};
use crate::extract::parse::MAX_DEPTH;
use crate::extract::Value;

impl Reader<'_> {
    /// The literal of `n`; its range takes in the parentheses around it (`open`: as in
    /// [`Reader::outer`]).
    pub(super) fn literal(&self, n: &Expr, open: Option<usize>, depth: usize) -> Lit {
        let outer = self.outer(n.range(), open);
        // The common one-part string, read with its range once.
        if let Expr::StringLiteral(s) = n {
            let mut parts = s.value.iter();
            if let (Some(part), None, false) = (parts.next(), parts.next(), depth > MAX_DEPTH) {
                return self.string_at(part.range, false, self.host(outer));
            }
        }
        let mut l = self.literal_unparenthesized(n, depth);
        l.range = self.host(outer);
        l
    }

    /// The literal of `n` with the range of `n` alone (see [`Reader::literal`]); past
    /// [`MAX_DEPTH`] levels, or for anything not a literal, [`Value::Expr`].
    fn literal_unparenthesized(&self, n: &Expr, depth: usize) -> Lit {
        // The common one-part string, without listing its parts (its range is its own).
        if let Expr::StringLiteral(s) = n {
            let mut parts = s.value.iter();
            if let (Some(part), None, false) = (parts.next(), parts.next(), depth > MAX_DEPTH) {
                return self.string(part.range, false);
            }
        }
        let range = self.host(span(n.range()));
        if depth > MAX_DEPTH {
            return Lit::scalar(Value::Expr, range);
        }
        if let Some(parts) = string_parts(n) {
            return match parts[..] {
                [(part, interpolated)] => self.string(part, interpolated),
                _ => {
                    let mut l = Lit::scalar(Value::Expr, range);
                    l.raw = Some(span(n.range()));
                    l
                }
            };
        }
        match n {
            Expr::NumberLiteral(num) => {
                let t = self.text(num.range);
                let value = match num.value {
                    Number::Int(_) => parse_int(t).map_or(Value::Expr, Value::Int),
                    Number::Float(_) => t
                        .replace('_', "")
                        .parse::<f64>()
                        .map_or(Value::Expr, Value::Float),
                    Number::Complex { .. } => Value::Expr,
                };
                Lit::scalar(value, range)
            }
            Expr::BooleanLiteral(b) => Lit::scalar(Value::Bool(b.value), range),
            Expr::NoneLiteral(_) => Lit::scalar(Value::Null, range),
            Expr::UnaryOp(u) => {
                let inner = self.literal_unparenthesized(&u.operand, depth + 1);
                let value = match (u.op, inner.value) {
                    (UnaryOp::USub, Value::Int(i)) => Value::Int(-i),
                    (UnaryOp::USub, Value::Float(f)) => Value::Float(-f),
                    _ => Value::Expr,
                };
                Lit::scalar(value, range)
            }
            Expr::List(ast::ExprList { elts, .. }) | Expr::Set(ast::ExprSet { elts, .. }) => {
                let items = elts
                    .iter()
                    .map(|c| self.literal(c, None, depth + 1))
                    .collect();
                Lit::seq(items, range)
            }
            Expr::Tuple(t) if t.parenthesized => {
                let items = t
                    .elts
                    .iter()
                    .map(|c| self.literal(c, None, depth + 1))
                    .collect();
                Lit::seq(items, range)
            }
            Expr::Dict(d) => {
                let mut pairs = Vec::new();
                for item in &d.items {
                    let Some(k) = &item.key else {
                        continue;
                    };
                    // A key read from broken text (an error before its value starts).
                    let (start, end) = (k.range().start(), item.value.range().start());
                    if self.broken(start.to_usize(), end.to_usize()) {
                        continue;
                    }
                    let key = self.literal(k, None, depth + 1);
                    let Some((key_text, key_range)) = key.as_str() else {
                        continue;
                    };
                    pairs.push(Pair {
                        key: key_text.into(),
                        key_range,
                        value: self.literal(&item.value, None, depth + 1),
                    });
                }
                Lit::map(pairs, range)
            }
            Expr::Call(c) => self
                .dict_call(c, depth)
                .unwrap_or_else(|| Lit::scalar(Value::Expr, range)),
            _ => Lit::scalar(Value::Expr, range),
        }
    }

    /// `dict(a=1, b="x")`: a mapping whose keys are the keyword names; `None` for any other
    /// call or when positional or `**` arguments make the keys unknown.
    fn dict_call(&self, n: &ast::ExprCall, depth: usize) -> Option<Lit> {
        let Expr::Name(func) = &*n.func else {
            return None;
        };
        if self.text(func.range) != "dict" || !n.arguments.args.is_empty() {
            return None;
        }
        let mut pairs = Vec::new();
        for k in &n.arguments.keywords {
            let name = k.arg.as_ref()?;
            pairs.push(Pair {
                key: self.text(name.range).into(),
                key_range: self.host(span(name.range)),
                value: self.literal(&k.value, None, depth + 1),
            });
        }
        Some(Lit::map(pairs, self.host(span(n.range()))))
    }
}

pub(super) fn parse_int(t: &str) -> Option<i64> {
    // Most integers are plain digits: no copies.
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return t.parse().ok();
    }
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else {
        t.parse().ok()
    }
}
