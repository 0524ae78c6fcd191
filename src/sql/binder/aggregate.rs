//! Aggregate calls, and the rewrite of expressions over a grouped input.

use super::*;

pub(super) fn agg_func(name: &str) -> Option<AggFunc> {
    Some(match name {
        "count" => AggFunc::Count,
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        _ => return None,
    })
}

/// Rewrites an expression bound over the input of an aggregation so that it reads the
/// aggregation's output: grouped expressions and aggregates become column references.
pub(super) fn rewrite_grouped(
    e: Expr,
    group_by: &[Expr],
    ngroups: usize,
    scope: &Scope,
) -> Result<Expr> {
    if let Some(i) = group_by.iter().position(|g| *g == e) {
        return Ok(Expr::Column {
            index: i,
            ty: e.ty(),
            name: String::new(),
        });
    }
    match e {
        Expr::Agg { index, ty } => Ok(Expr::Column {
            index: ngroups + index,
            ty,
            name: String::new(),
        }),
        Expr::Column { name, index, .. } => {
            // PostgreSQL names the column with its relation: "t.a".
            let qualified = match scope.columns.get(index).and_then(|c| c.qualifier.as_ref()) {
                Some(q) => format!("{q}.{name}"),
                None => name,
            };
            Err(Error::grouping(format!(
                "column \"{qualified}\" must appear in the GROUP BY clause or be used in an aggregate function"
            )))
        }
        mut other => {
            let mut err = None;
            other.children_mut(&mut |c| {
                if err.is_some() {
                    return;
                }
                let taken = std::mem::replace(c, Expr::literal(Value::Null, UNKNOWN));
                match rewrite_grouped(taken, group_by, ngroups, scope) {
                    Ok(r) => *c = r,
                    Err(e) => err = Some(e),
                }
            });
            match err {
                Some(e) => Err(e),
                None => Ok(other),
            }
        }
    }
}

impl Binder<'_> {
    pub(super) fn bind_aggregate(
        &mut self,
        func: AggFunc,
        name: &str,
        args: &[&A::Expr],
        distinct: bool,
        star: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        if !self.agg_allowed {
            return Err(Error::grouping("aggregate functions are not allowed here"));
        }
        let (func, arg) = match (func, star, args) {
            (AggFunc::Count, true, []) => (AggFunc::CountStar, None),
            (_, false, [a]) => {
                // Aggregates cannot nest.
                self.agg_allowed = false;
                let bound = self.bind_expr(a, scope);
                self.agg_allowed = true;
                (func, Some(bound?))
            }
            _ => {
                return Err(Error::undefined_function(format!(
                    "function {name}() does not exist"
                )));
            }
        };
        let arg = match arg {
            Some(a)
                if a.ty().ty == DataType::Unknown
                    && matches!(func, AggFunc::Sum | AggFunc::Avg) =>
            {
                return Err(not_unique(format!(
                    "function {name}(unknown) is not unique"
                )));
            }
            Some(a) if a.ty().ty == DataType::Unknown => Some(self.coerce(a, TEXT)?),
            other => other,
        };
        let arg_ty = arg.as_ref().map(|a| a.ty());
        let ty = match (func, arg_ty.map(|t| t.ty)) {
            (AggFunc::CountStar | AggFunc::Count, _) => INT8,
            (AggFunc::Sum, Some(DataType::Int2 | DataType::Int4)) => INT8,
            (AggFunc::Sum, Some(DataType::Int8 | DataType::Numeric)) => NUMERIC,
            (
                AggFunc::Sum,
                Some(t @ (DataType::Float4 | DataType::Float8 | DataType::Interval)),
            ) => SqlType::new(t),
            (
                AggFunc::Avg,
                Some(DataType::Int2 | DataType::Int4 | DataType::Int8 | DataType::Numeric),
            ) => NUMERIC,
            (AggFunc::Avg, Some(DataType::Float4 | DataType::Float8)) => FLOAT8,
            (AggFunc::Avg, Some(DataType::Interval)) => SqlType::new(DataType::Interval),
            (AggFunc::Min | AggFunc::Max, Some(t)) if t != DataType::Bool => {
                let t = arg_ty.unwrap_or(TEXT);
                SqlType::new(if t.ty == DataType::Varchar {
                    DataType::Varchar
                } else {
                    t.ty
                })
            }
            (_, t) => {
                return Err(Error::undefined_function(format!(
                    "function {name}({}) does not exist",
                    t.map_or("", |t| t.name())
                )));
            }
        };
        let call = AggCall {
            func,
            arg,
            distinct,
            ty,
        };
        let index = match self.aggs.iter().position(|a| *a == call) {
            Some(i) => i,
            None => {
                self.aggs.push(call);
                self.aggs.len() - 1
            }
        };
        Ok(Expr::Agg { index, ty })
    }
}
