//! Error positions: sqlparser's line/column spans as PostgreSQL's character positions.

use super::*;

/// The 1-based character position of a parser location (line and column, 1-based) in
/// `text`; `None` for an empty location or text.
pub(super) fn char_position(text: &str, at: sqlparser::tokenizer::Location) -> Option<u32> {
    if at.line == 0 || text.is_empty() {
        return None;
    }
    let mut line = 1u64;
    let mut before = 0u64;
    if at.line > 1 {
        for c in text.chars() {
            before += 1;
            if c == '\n' {
                line += 1;
                if line == at.line {
                    break;
                }
            }
        }
        if line != at.line {
            return None;
        }
    }
    u32::try_from(before + at.column).ok()
}

/// `e` without enclosing parentheses.
pub(super) fn strip_nested(mut e: &A::Expr) -> &A::Expr {
    while let A::Expr::Nested(inner) = e {
        e = inner;
    }
    e
}

/// The operands of an operator, cast or function call (where a literal is coerced).
pub(super) fn direct_operands(e: &A::Expr) -> Vec<&A::Expr> {
    match strip_nested(e) {
        A::Expr::BinaryOp { left, right, .. } => vec![left, right],
        A::Expr::UnaryOp { expr, .. } | A::Expr::Cast { expr, .. } => vec![expr],
        A::Expr::InList { expr, list, .. } => std::iter::once(expr.as_ref()).chain(list).collect(),
        A::Expr::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
        A::Expr::Like { expr, pattern, .. } | A::Expr::ILike { expr, pattern, .. } => {
            vec![expr, pattern]
        }
        A::Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => std::iter::once(expr.as_ref())
            .chain(substring_from.as_deref())
            .chain(substring_for.as_deref())
            .collect(),
        A::Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => operand
            .as_deref()
            .into_iter()
            .chain(conditions.iter().flat_map(|w| [&w.condition, &w.result]))
            .chain(else_result.as_deref())
            .collect(),
        A::Expr::Function(f) => match &f.args {
            A::FunctionArguments::List(list) => list
                .args
                .iter()
                .filter_map(|a| match a {
                    A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(x)) => Some(x),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
        other => vec![other],
    }
}

/// The text of a string literal.
pub(super) fn literal_text(v: &A::Value) -> Option<&str> {
    match v {
        A::Value::SingleQuotedString(s)
        | A::Value::EscapedStringLiteral(s)
        | A::Value::UnicodeStringLiteral(s) => Some(s),
        _ => None,
    }
}
