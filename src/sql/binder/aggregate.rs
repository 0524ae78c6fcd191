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

/// Whether `e` reads columns, all of them from enclosing queries (not through a
/// subquery of its own).
fn reads_only_outer_columns(e: &Expr, scope: &Scope) -> bool {
    let mut level = BTreeSet::new();
    for c in &scope.columns {
        c.expr.used_rels(&mut level);
    }
    let mut any = false;
    let mut all_outer = true;
    visit_refs(e, &mut |rel| {
        any = true;
        all_outer &= !level.contains(&rel);
    });
    any && all_outer
}

/// Calls `f` with the relation of every column reference of `e` outside subqueries.
fn visit_refs(e: &Expr, f: &mut dyn FnMut(RelId)) {
    if let Expr::ColumnRef { id, .. } = e {
        f(id.rel);
    }
    e.children(&mut |c| visit_refs(c, f));
}

/// How the expressions above an aggregation read its output: grouped expressions and
/// aggregates become references to the aggregate's relation (`rel`: group keys first,
/// then aggregates); any other column of this query level is an error (`42803`).
pub(super) struct Grouping<'g> {
    pub(super) rel: RelId,
    group_by: &'g [Expr],
    /// The relations of this query level's FROM clause.
    level_rels: BTreeSet<RelId>,
    scope: &'g Scope,
}

impl<'g> Grouping<'g> {
    pub(super) fn new(rel: RelId, group_by: &'g [Expr], scope: &'g Scope) -> Grouping<'g> {
        let mut level_rels = BTreeSet::new();
        for c in &scope.columns {
            c.expr.used_rels(&mut level_rels);
        }
        Grouping {
            rel,
            group_by,
            level_rels,
            scope,
        }
    }

    fn group_ref(&self, i: usize, ty: SqlType) -> Expr {
        Expr::ColumnRef {
            id: ColumnId::new(self.rel, i as u32),
            ty,
            name: String::new(),
        }
    }

    /// Rewrites an expression bound over the aggregation's input to read its output.
    pub(super) fn rewrite(&self, e: Expr) -> Result<Expr> {
        if let Some(i) = self.group_by.iter().position(|g| *g == e) {
            return Ok(self.group_ref(i, e.ty()));
        }
        match e {
            Expr::Agg { index, ty } => Ok(self.group_ref(self.group_by.len() + index, ty)),
            Expr::ColumnRef { id, .. } if !self.level_rels.contains(&id.rel) => Ok(e),
            Expr::ColumnRef { .. } => Err(Error::grouping(format!(
                "column \"{}\" must appear in the GROUP BY clause or be used in an aggregate function",
                self.qualified(&e)
            ))),
            Expr::Subquery(mut sub) => {
                self.rewrite_subquery(&mut sub)?;
                Ok(Expr::Subquery(sub))
            }
            mut other => {
                let mut err = None;
                other.children_mut(&mut |c| {
                    if err.is_some() {
                        return;
                    }
                    let taken = std::mem::replace(c, Expr::literal(Value::Null, UNKNOWN));
                    match self.rewrite(taken) {
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

    /// PostgreSQL names the column with its relation: "t.a".
    fn qualified(&self, e: &Expr) -> String {
        let Expr::ColumnRef { name, .. } = e else {
            return String::new();
        };
        match self.scope.qualifier_of(e) {
            Some(q) => format!("{q}.{name}"),
            None => name.clone(),
        }
    }

    /// Inside a subquery, this level's columns are outer references: each must be a
    /// grouped column, which it then reads from the aggregate's output.
    fn rewrite_subquery(&self, sub: &mut Subquery) -> Result<()> {
        let mut err = None;
        let mut fix = |x: &mut Expr| {
            if err.is_none()
                && let Err(e) = self.rewrite_outer_refs(x)
            {
                err = Some(e);
            }
        };
        sub.plan.walk_mut_pre(&mut |node| node.exprs_mut(&mut fix));
        match &mut sub.kind {
            SubqueryKind::Any { left, right, .. } | SubqueryKind::All { left, right, .. } => {
                for x in right.iter_mut() {
                    fix(x);
                }
                for x in left.iter_mut() {
                    let taken = std::mem::replace(x, Expr::literal(Value::Null, UNKNOWN));
                    match self.rewrite(taken) {
                        Ok(r) => *x = r,
                        Err(e) => {
                            err.get_or_insert(e);
                        }
                    }
                }
            }
            SubqueryKind::Scalar | SubqueryKind::Exists => {}
        }
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn rewrite_outer_refs(&self, e: &mut Expr) -> Result<()> {
        match e {
            Expr::ColumnRef { id, .. } if self.level_rels.contains(&id.rel) => {
                match self.group_by.iter().position(|g| g == e) {
                    Some(i) => {
                        *e = self.group_ref(i, e.ty());
                        Ok(())
                    }
                    None => Err(Error::grouping(format!(
                        "subquery uses ungrouped column \"{}\" from outer query",
                        self.qualified(e)
                    ))),
                }
            }
            Expr::Subquery(sub) => self.rewrite_subquery(sub),
            _ => {
                let mut err = None;
                e.children_mut(&mut |c| {
                    if err.is_none()
                        && let Err(x) = self.rewrite_outer_refs(c)
                    {
                        err = Some(x);
                    }
                });
                match err {
                    Some(x) => Err(x),
                    None => Ok(()),
                }
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
        let saved = std::mem::replace(&mut self.in_agg_args, true);
        let call = self.agg_call(func, name, args, distinct, star, scope, false);
        self.in_agg_args = saved;
        let call = call?;
        let ty = call.ty;
        let index = match self.aggs.iter().position(|a| *a == call) {
            Some(i) => i,
            None => {
                self.aggs.push(call);
                self.aggs.len() - 1
            }
        };
        Ok(Expr::Agg { index, ty })
    }

    /// An aggregate call, typed: its argument bound (with aggregates inside it allowed
    /// only for a window aggregate, `nested_ok`) and its result type.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn agg_call(
        &mut self,
        func: AggFunc,
        name: &str,
        args: &[&A::Expr],
        distinct: bool,
        star: bool,
        scope: &Scope,
        nested_ok: bool,
    ) -> Result<AggCall> {
        let (func, arg) = match (func, star, args) {
            (AggFunc::Count, true, []) => (AggFunc::CountStar, None),
            (_, false, [a]) => {
                // Aggregates cannot nest (a window aggregate may hold plain ones).
                let saved = self.agg_allowed;
                self.agg_allowed = nested_ok && saved;
                let bound = self.bind_expr(a, scope);
                self.agg_allowed = saved;
                let bound = bound?;
                if !nested_ok && reads_only_outer_columns(&bound, scope) {
                    // PostgreSQL evaluates such an aggregate in the outer query.
                    return Err(Error::feature_not_supported(
                        "aggregate functions over columns of an outer query",
                    ));
                }
                (func, Some(bound))
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
        Ok(AggCall {
            func,
            arg,
            distinct,
            ty,
        })
    }
}
