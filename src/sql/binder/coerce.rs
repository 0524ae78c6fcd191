//! Coercion: implicit and explicit casts, and the common type of several expressions
//! (PostgreSQL's UNION/CASE type resolution).

use super::*;

/// The common type of two numbers: the higher ranked one, except that `real` meeting any
/// other type becomes `double precision`, the numeric category's preferred type.
pub(super) fn numeric_common(a: DataType, b: DataType, rank_a: u8, rank_b: u8) -> DataType {
    let higher = if rank_a >= rank_b { a } else { b };
    if higher == DataType::Float4 && a != b {
        DataType::Float8
    } else {
        higher
    }
}

pub(super) fn common_type(exprs: &[&Expr], context: &str) -> Result<SqlType> {
    let mut result: Option<SqlType> = None;
    for e in exprs {
        let t = e.ty();
        if t.ty == DataType::Unknown {
            continue;
        }
        result = Some(match result {
            None => t,
            // One domain throughout keeps it; a domain meeting anything else is its
            // base type.
            Some(r) if r.ty == t.ty && r.domain == t.domain => {
                if r.typmod == t.typmod {
                    r
                } else {
                    SqlType::new(r.ty)
                }
            }
            Some(r) if r.ty == t.ty => {
                if r.typmod == t.typmod {
                    r.base()
                } else {
                    SqlType::new(r.ty)
                }
            }
            Some(r) => {
                if r.ty.is_string() && t.ty.is_string() {
                    TEXT
                } else if let (Some(a), Some(b)) = (r.ty.numeric_rank(), t.ty.numeric_rank()) {
                    // CASE/COALESCE/VALUES keep the higher type (real stays real);
                    // only operators prefer double precision.
                    SqlType::new(if a >= b { r.ty } else { t.ty })
                } else if cast::is_implicit(r.ty, t.ty) {
                    SqlType::new(t.ty)
                } else if cast::is_implicit(t.ty, r.ty) {
                    SqlType::new(r.ty)
                } else if matches!((r.ty, t.ty), (DataType::Enum(_), DataType::Enum(_))) {
                    // One category (E): the first type is chosen, the other cannot
                    // become it.
                    return Err(Error::new(
                        "42846",
                        format!(
                            "{context} could not convert type {} to {}",
                            t.ty.name(),
                            r.ty.name()
                        ),
                    ));
                } else {
                    return Err(Error::datatype_mismatch(format!(
                        "{context} types {} and {} cannot be matched",
                        r.ty.name(),
                        t.ty.name()
                    )));
                }
            }
        });
    }
    Ok(result.unwrap_or(UNKNOWN))
}

impl Binder<'_> {
    pub(super) fn coerce_all(&mut self, args: Vec<Expr>, ty: SqlType) -> Result<Vec<Expr>> {
        args.into_iter().map(|a| self.coerce(a, ty)).collect()
    }

    /// `CAST(e AS to)`: any defined cast, with truncation for strings.
    pub(super) fn explicit_cast(&mut self, e: Expr, to: SqlType) -> Result<Expr> {
        let from = e.ty();
        if let (Some(a), Some(b)) = (from.ty.elem(), to.ty.elem())
            && !cast::can_cast(a, b)
        {
            return Err(Error::new(
                "42846",
                format!("cannot cast type {} to {}", a.name(), b.name()),
            ));
        }
        if !cast::can_cast(from.ty, to.ty) {
            return Err(Error::new(
                "42846",
                format!(
                    "cannot cast type {} to {}",
                    from.display_name(),
                    to.display_name()
                ),
            ));
        }
        self.coerce_with(e, to, true)
    }

    /// Implicit coercion to `to` (callers have checked it is allowed).
    pub(super) fn coerce(&mut self, e: Expr, to: SqlType) -> Result<Expr> {
        self.coerce_with(e, to, false)
    }

    pub(super) fn coerce_with(&mut self, e: Expr, to: SqlType, explicit: bool) -> Result<Expr> {
        let from = e.ty();
        if from == to {
            return Ok(e);
        }
        // Into a domain: the base type's value, then the domain's constraints.
        if to.domain != 0 {
            return self.coerce_to_domain(e, to, explicit);
        }
        // Out of a domain: its value is the base type's (relabelled, then converted).
        if from.domain != 0 {
            let relabelled = Expr::Cast {
                expr: Box::new(e),
                to: from.base(),
                explicit: false,
            };
            return self.coerce_with(relabelled, to, explicit);
        }
        // The oid aliases read and print names: through the catalog, not the types'
        // text functions. A literal is resolved now, as PostgreSQL's parser does.
        if to.ty.is_reg() && from.ty.is_string() {
            if let Expr::Literal {
                value: Value::Text(s),
                ..
            } = &e
                && let Some(oid) = crate::catalog::system::reg_in_at_bind(
                    self.catalog,
                    &self.snapshot,
                    &self.search_path,
                    to.ty,
                    s,
                )?
            {
                return Ok(Expr::Literal {
                    value: Value::Int8(oid as i64),
                    ty: to,
                });
            }
            let text = self.coerce_with(e, TEXT, explicit)?;
            return Ok(Expr::Func {
                func: Func::RegIn(to.ty),
                args: vec![text],
                ty: to,
            });
        }
        // Into an array of an enum: the labels checked, now for a constant.
        if let DataType::Array(elem) = to.ty
            && let DataType::Enum(oid) = *elem
            && from.ty != to.ty
            && from.ty != DataType::Record
        {
            return self.coerce_to_enum_array(e, to, oid, explicit);
        }
        if matches!(to.ty, DataType::Enum(_))
            && (from.ty.is_string()
                || matches!(
                    e,
                    Expr::Literal {
                        value: Value::Null,
                        ..
                    }
                ))
        {
            return self.coerce_to_enum(e, to, explicit);
        }
        if matches!(from.ty, DataType::Enum(_)) && to.ty.is_string() && to.ty != DataType::Unknown {
            return self.coerce_with(super::types::enum_out(e), to, explicit);
        }
        if from.ty.is_reg() && to.ty.is_string() && to.ty != DataType::Unknown {
            let name = Expr::Func {
                func: Func::RegOut(from.ty),
                args: vec![e],
                ty: TEXT,
            };
            return self.coerce_with(name, to, explicit);
        }
        match e {
            Expr::Cast {
                expr,
                to:
                    SqlType {
                        ty: DataType::Numeric,
                        ..
                    },
                ..
            } if matches!(to.ty, DataType::Float4 | DataType::Float8)
                && matches!(
                    expr.as_ref(),
                    Expr::Literal {
                        ty: SqlType {
                            ty: DataType::Unknown,
                            ..
                        },
                        ..
                    }
                ) =>
            {
                self.coerce_with(*expr, to, explicit)
            }
            Expr::Param { index, ty } if ty.ty == DataType::Unknown => {
                if let Some(slot) = self.params.get_mut(index) {
                    *slot = Some(SqlType::new(to.ty));
                }
                let param = Expr::Param {
                    index,
                    ty: SqlType::new(to.ty),
                };
                if to.typmod >= 0 {
                    return Ok(Expr::Cast {
                        expr: Box::new(param),
                        to,
                        explicit,
                    });
                }
                Ok(param)
            }
            Expr::Literal { value, ty } => {
                let text = ty.ty == DataType::Bpchar && !to.ty.is_string();
                let value = if ty.ty == DataType::Bpchar
                    && to.ty.is_string()
                    && to.ty != DataType::Bpchar
                {
                    match value {
                        Value::Text(s) => Value::Text(s.trim_end_matches(' ').to_string()),
                        v => v,
                    }
                } else {
                    value
                };
                let _ = text;
                // An untyped literal takes its type here, errors included, as in
                // PostgreSQL's parser. A typed constant whose cast fails is left for the
                // planner's constant folding, which skips CASE arms and COALESCE
                // arguments that are never reached.
                match cast_value(value.clone(), to, explicit, &self.fmt) {
                    Ok(v) => Ok(Expr::Literal { value: v, ty: to }),
                    Err(e) if ty.ty == DataType::Unknown => Err(e),
                    Err(_) => Ok(Expr::Cast {
                        expr: Box::new(Expr::Literal { value, ty }),
                        to,
                        explicit,
                    }),
                }
            }
            other => Ok(Expr::Cast {
                expr: Box::new(other),
                to,
                explicit,
            }),
        }
    }
}
