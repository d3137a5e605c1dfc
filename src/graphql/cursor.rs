//! Where the cursor is in a (possibly half-typed) GraphQL document: which selection set,
//! argument list or input object, and whether a key or a value comes next. Built from
//! apollo-parser's lexer tokens before the cursor with a small bracket-stack machine: the
//! lexer never fails (an unterminated string is one error token), and a half-typed value such
//! as `filters: {site: {sl` keeps its nesting here, where the CST would wrap it in error nodes.

use super::NetboxSchema;
use apollo_compiler::ast::{OperationType, Type};
use apollo_compiler::schema::ExtendedType;
use apollo_parser::{Lexer, TokenKind};

/// Lexing stops after this many tokens (completion in a 1 MB document stays bounded).
const TOKEN_LIMIT: usize = 500_000;
/// Brackets nested deeper than this are counted but not tracked.
const MAX_DEPTH: usize = 512;

/// One open bracket.
#[derive(Debug, Clone)]
pub enum Frame {
    /// `{ ... }` of a selection set on type `ty` (None: unknown type).
    Selection {
        ty: Option<String>,
        field: Option<String>,
    },
    /// `( ... )` of field `field` on type `parent`; `pending` is the type of the argument whose
    /// value comes next (after `name:`).
    Args {
        parent: Option<String>,
        field: Option<String>,
        key: Option<String>,
        pending: Option<Type>,
    },
    /// `{ ... }` of an input object of type `ty`.
    Object {
        ty: Option<String>,
        key: Option<String>,
        pending: Option<Type>,
    },
    /// `[ ... ]` of a list whose items have type `item`.
    List { item: Option<Type> },
    /// Anything else (variable definitions, directives' arguments, unknown).
    Other,
}

/// The cursor's context.
#[derive(Debug, Clone)]
pub struct Context {
    /// Open brackets, outermost first.
    pub stack: Vec<Frame>,
    /// The name token the cursor is in or right after (the prefix being typed) and its byte
    /// range.
    pub word: Option<(String, std::ops::Range<usize>)>,
}

/// Computes the context at byte `offset` of `text` (clamped to the text; a non-boundary offset
/// is moved back to a char boundary). With `include_word`, the name token that contains the
/// cursor is left out of the machine and returned as `word` (completion and hover both want
/// the context *before* the word).
pub fn context_at(text: &str, offset: usize, schema: &NetboxSchema) -> Context {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let s = &schema.schema;
    let root = s
        .root_operation(OperationType::Query)
        .map(|n| n.to_string());
    let mut stack: Vec<Frame> = Vec::new();
    let mut overflow = 0usize;
    let mut word = None;
    // Top-level state: the type a following `{` opens (root, or a fragment's condition).
    let mut top_ty = root.clone();
    let mut after_on = false;
    let mut sel_name: Option<String> = None; // last field name in a selection set
    let mut spread_on = false;
    let mut spread_ty: Option<String> = None;
    for tok in Lexer::new(text).with_limit(TOKEN_LIMIT) {
        let Ok(tok) = tok else {
            continue;
        };
        let start = tok.index();
        let data = tok.data();
        let end = start + data.len();
        if tok.kind() == TokenKind::Name && start <= offset && offset <= end {
            word = Some((text[start..offset].to_string(), start..end));
            break;
        }
        if start >= offset {
            break;
        }
        if matches!(
            tok.kind(),
            TokenKind::Whitespace | TokenKind::Comment | TokenKind::Comma
        ) {
            continue;
        }
        if overflow > 0 {
            match tok.kind() {
                TokenKind::LCurly | TokenKind::LParen | TokenKind::LBracket => overflow += 1,
                TokenKind::RCurly | TokenKind::RParen | TokenKind::RBracket => overflow -= 1,
                _ => {}
            }
            continue;
        }
        let kind = tok.kind();
        if matches!(
            kind,
            TokenKind::LCurly | TokenKind::LParen | TokenKind::LBracket
        ) && stack.len() >= MAX_DEPTH
        {
            overflow = 1;
            continue;
        }
        match stack.last_mut() {
            None => match kind {
                TokenKind::Name => match data {
                    "query" => top_ty = root.clone(),
                    "mutation" => {
                        top_ty = s
                            .root_operation(OperationType::Mutation)
                            .map(|n| n.to_string())
                    }
                    "subscription" => {
                        top_ty = s
                            .root_operation(OperationType::Subscription)
                            .map(|n| n.to_string())
                    }
                    "on" => after_on = true,
                    "fragment" => {}
                    other if after_on => {
                        top_ty = Some(other.to_string());
                        after_on = false;
                    }
                    _ => {}
                },
                TokenKind::LCurly => {
                    stack.push(Frame::Selection {
                        ty: top_ty.take().or_else(|| root.clone()),
                        field: None,
                    });
                    top_ty = root.clone();
                }
                TokenKind::LParen => stack.push(Frame::Other),
                _ => {}
            },
            Some(Frame::Selection { ty, .. }) => {
                let ty = ty.clone();
                match kind {
                    TokenKind::Name if spread_on && data != "on" => {
                        spread_ty = Some(data.to_string())
                    }
                    TokenKind::Name if spread_on => {}
                    TokenKind::Name => sel_name = Some(data.to_string()),
                    TokenKind::Colon => sel_name = None, // it was an alias
                    TokenKind::Spread => {
                        spread_on = true;
                        spread_ty = None;
                    }
                    TokenKind::LParen => {
                        let field = sel_name.clone();
                        stack.push(Frame::Args {
                            parent: ty,
                            field,
                            key: None,
                            pending: None,
                        });
                    }
                    TokenKind::LCurly => {
                        let child = if spread_on {
                            spread_ty.take().or(ty)
                        } else {
                            sel_name
                                .as_deref()
                                .and_then(|f| ty.as_deref().and_then(|t| field_type(schema, t, f)))
                                .map(|t| t.inner_named_type().to_string())
                        };
                        spread_on = false;
                        stack.push(Frame::Selection {
                            ty: child,
                            field: sel_name.take(),
                        });
                    }
                    TokenKind::RCurly => {
                        stack.pop();
                        sel_name = None;
                    }
                    TokenKind::At => sel_name = None,
                    _ => {}
                }
            }
            Some(Frame::Args {
                parent,
                field,
                key,
                pending,
            }) => match kind {
                TokenKind::Name if pending.is_some() => *pending = None, // enum / true / null
                TokenKind::Name => *key = Some(data.to_string()),
                TokenKind::Colon => {
                    *pending = match (parent.as_deref(), field.as_deref(), key.as_deref()) {
                        (Some(p), Some(f), Some(k)) => arg_type(schema, p, f, k),
                        _ => None,
                    }
                    .or(Some(Type::Named(apollo_compiler::name!("Unknown"))));
                }
                // The field's selection set may follow: `sel_name` keeps its name.
                TokenKind::RParen => {
                    stack.pop();
                }
                _ => open_value(&mut stack, kind, schema),
            },
            Some(Frame::Object { ty, key, pending }) => match kind {
                TokenKind::Name if pending.is_some() => *pending = None,
                TokenKind::Name => *key = Some(data.to_string()),
                TokenKind::Colon => {
                    *pending = ty
                        .as_deref()
                        .zip(key.as_deref())
                        .and_then(|(t, k)| input_field_type(schema, t, k))
                        .or(Some(Type::Named(apollo_compiler::name!("Unknown"))));
                }
                TokenKind::RCurly => {
                    stack.pop();
                    clear_pending(&mut stack);
                }
                _ => open_value(&mut stack, kind, schema),
            },
            Some(Frame::List { .. }) => match kind {
                TokenKind::RBracket => {
                    stack.pop();
                    clear_pending(&mut stack);
                }
                _ => open_value(&mut stack, kind, schema),
            },
            Some(Frame::Other) => match kind {
                TokenKind::RParen | TokenKind::RCurly | TokenKind::RBracket => {
                    stack.pop();
                }
                TokenKind::LParen | TokenKind::LCurly | TokenKind::LBracket => {
                    stack.push(Frame::Other)
                }
                _ => {}
            },
        }
    }
    Context { stack, word }
}

/// A value token in an argument list, object or list: opens `{`/`[` with the pending type, or
/// ends a scalar value.
fn open_value(stack: &mut Vec<Frame>, kind: TokenKind, schema: &NetboxSchema) {
    let pending = match stack.last() {
        Some(Frame::Args { pending, .. }) | Some(Frame::Object { pending, .. }) => pending.clone(),
        Some(Frame::List { item }) => item.clone(),
        _ => None,
    };
    match kind {
        TokenKind::LCurly => {
            let ty = pending.as_ref().map(|t| t.inner_named_type().to_string());
            let ty = ty.filter(|t| schema.schema.get_input_object(t).is_some());
            stack.push(Frame::Object {
                ty,
                key: None,
                pending: None,
            });
        }
        TokenKind::LBracket => {
            let item = pending.map(|t| {
                if t.is_list() {
                    t.item_type().clone()
                } else {
                    t
                }
            });
            stack.push(Frame::List { item });
        }
        TokenKind::RParen | TokenKind::RCurly | TokenKind::RBracket => {
            stack.pop();
        }
        TokenKind::StringValue | TokenKind::Int | TokenKind::Float
            if !matches!(stack.last(), Some(Frame::List { .. })) =>
        {
            clear_pending(stack);
        }
        TokenKind::LParen => stack.push(Frame::Other),
        _ => {}
    }
}

/// After a complete value, the enclosing argument list / object expects a key again.
fn clear_pending(stack: &mut [Frame]) {
    match stack.last_mut() {
        Some(Frame::Args { pending, .. }) | Some(Frame::Object { pending, .. }) => *pending = None,
        _ => {}
    }
}

/// Type of field `f` on object/interface `t`.
pub fn field_type(schema: &NetboxSchema, t: &str, f: &str) -> Option<Type> {
    schema.schema.type_field(t, f).ok().map(|d| d.ty.clone())
}

/// Type of argument `a` of field `f` on `t`.
pub fn arg_type(schema: &NetboxSchema, t: &str, f: &str, a: &str) -> Option<Type> {
    let d = schema.schema.type_field(t, f).ok()?;
    d.arguments
        .iter()
        .find(|x| x.name == a)
        .map(|x| (*x.ty).clone())
}

/// Type of input field `k` of input object `t`.
pub fn input_field_type(schema: &NetboxSchema, t: &str, k: &str) -> Option<Type> {
    match schema.schema.types.get(t) {
        Some(ExtendedType::InputObject(o)) => o.fields.get(k).map(|f| (*f.ty).clone()),
        _ => None,
    }
}
