//! Output column names as PostgreSQL derives them (FigureColname).

use super::*;

/// PostgreSQL's FigureColname: the output name of an unaliased select item.
pub(super) fn derive_name(e: &A::Expr) -> String {
    figure_name(e).map_or_else(|| "?column?".into(), |(name, _)| name)
}

/// How strongly a name was derived (FigureColnameInternal's result): a column or
/// function name (2) beats a cast's type or `case` (1), which beats nothing.
pub(super) const NAME_STRONG: u8 = 2;

pub(super) const NAME_WEAK: u8 = 1;

pub(super) fn figure_name(e: &A::Expr) -> Option<(String, u8)> {
    let strong = |n: &str| Some((n.to_string(), NAME_STRONG));
    match e {
        A::Expr::Identifier(id) => Some((ident_name(id), NAME_STRONG)),
        A::Expr::CompoundIdentifier(ids) => ids.last().map(|i| (ident_name(i), NAME_STRONG)),
        A::Expr::Function(f) => match f.name.0.last() {
            Some(A::ObjectNamePart::Identifier(i)) => Some((ident_name(i), NAME_STRONG)),
            _ => None,
        },
        A::Expr::Nested(inner) => figure_name(inner),
        A::Expr::Array(_) => strong("array"),
        // A subscript keeps its base's name; a field access names the field.
        A::Expr::CompoundFieldAccess { root, access_chain } => {
            let field = access_chain.iter().rev().find_map(|a| match a {
                A::AccessExpr::Dot(A::Expr::Identifier(id)) => Some(ident_name(id)),
                _ => None,
            });
            match field {
                Some(f) => Some((f, NAME_STRONG)),
                None => figure_name(root),
            }
        }
        // A cast names its column after the type unless its operand has a stronger name.
        A::Expr::Cast {
            expr, data_type, ..
        } => match figure_name(expr) {
            Some(named) if named.1 > NAME_WEAK => Some(named),
            _ => Some((cast_type_name(data_type), NAME_WEAK)),
        },
        A::Expr::TypedString(ts) => Some((cast_type_name(&ts.data_type), NAME_WEAK)),
        A::Expr::Interval(_) => Some(("interval".into(), NAME_WEAK)),
        // CASE takes its ELSE result's name when that one is strong.
        A::Expr::Case { else_result, .. } => match else_result.as_deref().and_then(figure_name) {
            Some(named) if named.1 > NAME_WEAK => Some(named),
            _ => Some(("case".into(), NAME_WEAK)),
        },
        A::Expr::Substring { shorthand, .. } => {
            strong(if *shorthand { "substr" } else { "substring" })
        }
        A::Expr::Position { .. } => strong("position"),
        A::Expr::Trim { trim_where, .. } => match trim_where {
            Some(A::TrimWhereField::Leading) => strong("ltrim"),
            Some(A::TrimWhereField::Trailing) => strong("rtrim"),
            _ => strong("btrim"),
        },
        A::Expr::Extract { .. } => strong("extract"),
        A::Expr::AtTimeZone { .. } => strong("timezone"),
        A::Expr::Ceil { .. } => strong("ceil"),
        A::Expr::Floor { .. } => strong("floor"),
        A::Expr::Exists { negated: false, .. } => strong("exists"),
        // A scalar subquery is named after its one column.
        A::Expr::Subquery(q) => Some((query_first_name(q), NAME_STRONG)),
        _ => None,
    }
}

/// The name of a query's first output column.
fn query_first_name(q: &A::Query) -> String {
    match q.body.as_ref() {
        A::SetExpr::Select(s) => match s.projection.first() {
            Some(A::SelectItem::ExprWithAlias { alias, .. }) => ident_name(alias),
            Some(A::SelectItem::UnnamedExpr(e)) => derive_name(e),
            _ => "?column?".into(),
        },
        A::SetExpr::Query(inner) => query_first_name(inner),
        A::SetExpr::SetOperation { left, .. } => query_first_name(&A::Query {
            body: left.clone(),
            ..q.clone()
        }),
        A::SetExpr::Values(_) => "column1".into(),
        _ => "?column?".into(),
    }
}

/// The name PostgreSQL gives a cast's column (its internal type name).
pub(super) fn cast_type_name(dt: &A::DataType) -> String {
    // `int[]` is named after its element's type (`int4`); `_int4` after itself.
    if let A::DataType::Array(
        A::ArrayElemTypeDef::SquareBracket(inner, _) | A::ArrayElemTypeDef::Qualified(inner, _),
    ) = dt
    {
        return cast_type_name(inner);
    }
    match type_from_ast(dt) {
        Ok(t) => cast_type_name_of(t.ty),
        Err(_) => "?column?".into(),
    }
}

fn cast_type_name_of(ty: DataType) -> String {
    // PostgreSQL names a cast's column by the type's pg_type name.
    crate::catalog::system::type_name(ty)
}
