//! A call's arguments as values: positional, keyword and `**` arguments in source order, each
//! read through [`super::values`] (names, templates, dict updates) with its node (for URL
//! expressions), and named after a signature.

use std::borrow::Cow;
use std::ops::Range;

use ruff_python_ast::{self as ast, ArgOrKeyword, Expr};
use ruff_text_size::{Ranged, TextRange};
use smallvec::SmallVec;

use super::semantic::At;
use super::span;
use super::values::Values;
use crate::extract::lit::Lit;
use crate::extract::tools::Arg;
use crate::extract::Value;

impl<'a> Values<'a> {
    /// Positional and keyword arguments named after the signature `names`.
    pub(super) fn name_args<'l>(&self, names: &[&'l str], args: &'l CallArgs<'a>) -> Named<'l> {
        // One positional dict and nothing else: the LangChain "all arguments in one dict" form.
        if args.positional.len() == 1 && args.keywords.is_empty() {
            let only = &args.positional[0];
            if only.get("object_type").is_some()
                || only.get("filters").is_some()
                || only.get("query").is_some()
            {
                if let Some(named) = pair_args(only) {
                    return named;
                }
            }
        }
        let mut out: Named = args
            .positional
            .iter()
            .enumerate()
            .map(|(i, lit)| Arg {
                name: names
                    .get(i)
                    .map_or_else(|| Cow::Owned(format!("arg{i}")), |s| Cow::Borrowed(*s)),
                name_range: lit.range.start..lit.range.start,
                value: lit,
            })
            .collect();
        out.extend(args.keywords.iter().map(|(n, r, lit)| Arg {
            name: Cow::Borrowed(n),
            name_range: r.clone(),
            value: lit,
        }));
        out
    }

    /// The arguments of `arglist`, read where the call stands.
    pub(super) fn arguments(&self, arglist: &'a ast::Arguments, at: At) -> CallArgs<'a> {
        // Sized once (most calls have a few positional arguments): no growth per push.
        let mut args = CallArgs {
            positional: Vec::with_capacity(arglist.args.len()),
            positional_nodes: Vec::with_capacity(arglist.args.len()),
            ..CallArgs::default()
        };
        let open = Some(arglist.range.start().to_usize());
        for item in arglist.iter_source_order() {
            match item {
                ArgOrKeyword::Keyword(k) => match &k.arg {
                    Some(id) if id.is_valid() => {
                        args.ordered
                            .push(KeywordOrSplat::Keyword(args.keywords.len()));
                        let name = self.text(id.range);
                        args.keywords.push((
                            name.into(),
                            self.host(span(id.range)),
                            self.arg(&k.value, at, None),
                        ));
                        args.keyword_nodes.push(&k.value);
                    }
                    Some(_) => {}
                    None => {
                        args.ordered.push(KeywordOrSplat::Splat(args.splats.len()));
                        args.splats.push(self.arg(&k.value, at, None));
                        args.splat_nodes.push(&k.value);
                    }
                },
                ArgOrKeyword::Arg(e @ Expr::Starred(_)) => {
                    args.positional
                        .push(Lit::scalar(Value::Expr, self.host(span(e.range()))));
                    args.positional_nodes.push(e);
                }
                ArgOrKeyword::Arg(e) => {
                    if let Some(eq) = self.nameless_keyword(e, open) {
                        // Being typed: `f(a=1, =x)` (an editor's probe of the name slot).
                        args.ordered
                            .push(KeywordOrSplat::Keyword(args.keywords.len()));
                        args.keywords.push((
                            compact_str::CompactString::default(),
                            self.host(eq..eq),
                            self.arg(e, at, None),
                        ));
                        args.keyword_nodes.push(e);
                        continue;
                    }
                    args.positional.push(self.arg(e, at, open));
                    args.positional_nodes.push(e);
                }
            }
        }
        args
    }

    /// The offset of the `=` of a keyword argument written without its name (`f(a=1, =x)`,
    /// a syntax error ruff reads as the positional argument `x`; tree-sitter read a keyword
    /// argument with an empty name there, where completion looks for the name being typed).
    #[inline]
    pub(super) fn nameless_keyword(&self, e: &Expr, open: Option<usize>) -> Option<usize> {
        let b = self.src.as_bytes();
        let blank = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\\');
        let mut i = e.range().start().to_usize();
        while i > 0 && blank(b[i - 1]) {
            i -= 1;
        }
        if i == 0 || b[i - 1] != b'=' {
            return None;
        }
        let eq = i - 1;
        let mut j = eq;
        while j > 0 && blank(b[j - 1]) {
            j -= 1;
        }
        let after_open = j > 0 && b[j - 1] == b'(' && Some(j - 1) == open;
        (after_open || j > 0 && b[j - 1] == b',').then_some(eq)
    }
}

/// The arguments of a call, as literals (and their nodes, for URL expressions).
#[derive(Default)]
pub(super) struct CallArgs<'t> {
    pub(super) positional: Vec<Lit>,
    pub(super) positional_nodes: Vec<&'t Expr>,
    /// `(name, name host range, value)`.
    pub(super) keywords: Vec<(compact_str::CompactString, Range<usize>, Lit)>,
    pub(super) keyword_nodes: Vec<&'t Expr>,
    /// `**{...}` dicts.
    pub(super) splats: Vec<Lit>,
    pub(super) splat_nodes: Vec<&'t Expr>,
    /// Keywords and splats in source order.
    pub(super) ordered: Vec<KeywordOrSplat>,
}

pub(super) enum KeywordOrSplat {
    Keyword(usize),
    Splat(usize),
}

impl<'t> CallArgs<'t> {
    pub(super) fn keyword(&self, name: &str) -> Option<&Lit> {
        self.keywords.iter().find(|k| k.0 == name).map(|k| &k.2)
    }

    /// The node of positional argument `i`, else of keyword `kw`.
    pub(super) fn node(&self, i: usize, kw: &str) -> Option<&'t Expr> {
        self.positional_nodes.get(i).copied().or_else(|| {
            let k = self.keywords.iter().position(|k| k.0 == kw)?;
            self.keyword_nodes.get(k).copied()
        })
    }
}

/// A call's arguments named after a signature (most calls have a few: kept in place).
pub(super) type Named<'l> = SmallVec<[Arg<'l>; 4]>;

pub(super) fn pair_args(dict: &Lit) -> Option<Named<'_>> {
    Some(
        dict.pairs()?
            .iter()
            .map(|p| Arg {
                name: Cow::Borrowed(&p.key),
                name_range: p.key_range.clone(),
                value: &p.value,
            })
            .collect(),
    )
}

/// One call being recognised: its name, receiver, arguments and host range.
pub(super) struct Call<'c, 't> {
    pub(super) name: &'t str,
    /// Embedded range of the called name (the attribute of `a.b(...)`).
    pub(super) name_range: TextRange,
    /// The callee.
    pub(super) func: &'t Expr,
    pub(super) object: Option<&'t Expr>,
    pub(super) arglist: &'t ast::Arguments,
    /// Where the call stands.
    pub(super) at: At,
    pub(super) call_range: Range<usize>,
    pub(super) args: &'c CallArgs<'t>,
}
