//! Aggregate calls, and the rewrite of expressions over a grouped input.

use super::*;

pub(super) fn agg_func(name: &str) -> Option<AggFunc> {
    Some(match name {
        "count" => AggFunc::Count,
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        "bool_and" | "every" => AggFunc::BoolAnd,
        "bool_or" => AggFunc::BoolOr,
        "string_agg" => AggFunc::StringAgg,
        "array_agg" => AggFunc::ArrayAgg,
        "json_agg" => AggFunc::JsonAgg,
        "jsonb_agg" => AggFunc::JsonbAgg,
        "json_object_agg" => AggFunc::JsonObjectAgg,
        "jsonb_object_agg" => AggFunc::JsonbObjectAgg,
        "var_pop" => AggFunc::VarPop,
        "var_samp" | "variance" => AggFunc::VarSamp,
        "stddev_pop" => AggFunc::StddevPop,
        "stddev_samp" | "stddev" => AggFunc::StddevSamp,
        "corr" => AggFunc::Corr,
        "covar_pop" => AggFunc::CovarPop,
        "covar_samp" => AggFunc::CovarSamp,
        "regr_count" => AggFunc::RegrCount,
        "regr_sxx" => AggFunc::RegrSxx,
        "regr_syy" => AggFunc::RegrSyy,
        "regr_sxy" => AggFunc::RegrSxy,
        "regr_avgx" => AggFunc::RegrAvgX,
        "regr_avgy" => AggFunc::RegrAvgY,
        "regr_r2" => AggFunc::RegrR2,
        "regr_slope" => AggFunc::RegrSlope,
        "regr_intercept" => AggFunc::RegrIntercept,
        "percentile_cont" => AggFunc::PercentileCont,
        "percentile_disc" => AggFunc::PercentileDisc,
        "mode" => AggFunc::Mode,
        "grouping" => AggFunc::Grouping,
        _ => return None,
    })
}

/// Ordered-set aggregates: written `f(direct args) WITHIN GROUP (ORDER BY value)`.
fn ordered_set(func: AggFunc) -> bool {
    matches!(
        func,
        AggFunc::PercentileCont | AggFunc::PercentileDisc | AggFunc::Mode
    )
}

/// The clauses of an aggregate call besides its arguments.
#[derive(Default, Clone, Copy)]
pub(super) struct AggClauses<'a> {
    pub(super) filter: Option<&'a A::Expr>,
    pub(super) order_by: &'a [A::OrderByExpr],
    pub(super) within_group: &'a [A::OrderByExpr],
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
            SubqueryKind::Any { left, right, .. }
            | SubqueryKind::All { left, right, .. }
            | SubqueryKind::Row { left, right, .. } => {
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
            SubqueryKind::Scalar | SubqueryKind::Exists | SubqueryKind::Array => {}
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
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_aggregate(
        &mut self,
        func: AggFunc,
        name: &str,
        args: &[&A::Expr],
        distinct: bool,
        star: bool,
        scope: &Scope,
        clauses: AggClauses,
    ) -> Result<Expr> {
        if !self.agg_allowed {
            return Err(Error::grouping(match self.agg_forbidden_in {
                Some(clause) => format!("aggregate functions are not allowed in {clause}"),
                None => "aggregate functions are not allowed here".to_string(),
            }));
        }
        let saved = std::mem::replace(&mut self.in_agg_args, true);
        let call = self.agg_call(func, name, args, distinct, star, scope, false, clauses);
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

    /// Binds an expression inside an aggregate call (aggregates inside it allowed only
    /// for a window aggregate, `nested_ok`).
    fn agg_operand(&mut self, e: &A::Expr, scope: &Scope, nested_ok: bool) -> Result<Expr> {
        let saved = self.agg_allowed;
        self.agg_allowed = nested_ok && saved;
        let bound = self.bind_expr(e, scope);
        self.agg_allowed = saved;
        bound
    }

    /// An aggregate call, typed: its arguments bound and its result type.
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
        clauses: AggClauses,
    ) -> Result<AggCall> {
        if ordered_set(func) == clauses.within_group.is_empty() {
            return Err(Error::new(
                "42809",
                if ordered_set(func) {
                    format!("WITHIN GROUP is required for ordered-set aggregate {name}")
                } else {
                    format!(
                        "{name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP"
                    )
                },
            ));
        }
        if ordered_set(func) {
            return self.ordered_set_call(func, name, args, scope, nested_ok, clauses);
        }
        if func == AggFunc::Grouping {
            let saved = std::mem::replace(&mut self.agg_allowed, false);
            let mut extra = Vec::with_capacity(args.len());
            for a in args {
                match self.bind_expr(a, scope) {
                    Ok(e) => extra.push(e),
                    Err(e) => {
                        self.agg_allowed = saved;
                        return Err(e);
                    }
                }
            }
            self.agg_allowed = saved;
            if extra.is_empty() || extra.len() > 31 {
                return Err(Error::syntax("GROUPING must have fewer than 32 arguments"));
            }
            return Ok(AggCall {
                extra,
                ..AggCall::simple(AggFunc::Grouping, None, INT4)
            });
        }
        let mut bound = Vec::with_capacity(args.len());
        for a in args {
            bound.push(self.agg_operand(a, scope, nested_ok)?);
        }
        if !nested_ok
            && let Some(first) = bound.first()
            && reads_only_outer_columns(first, scope)
        {
            // PostgreSQL evaluates such an aggregate in the outer query.
            return Err(Error::feature_not_supported(
                "aggregate functions over columns of an outer query",
            ));
        }
        let filter = match clauses.filter {
            Some(f) => {
                let saved = std::mem::replace(&mut self.agg_allowed, false);
                let b = self.bind_expr(f, scope);
                self.agg_allowed = saved;
                let b = b.map_err(|e| {
                    if e.code == "42803" && e.message == "aggregate functions are not allowed here"
                    {
                        Error::grouping("aggregate functions are not allowed in FILTER")
                    } else {
                        e
                    }
                })?;
                Some(self.require_bool(b, "FILTER")?)
            }
            None => None,
        };
        let mut order_by = Vec::with_capacity(clauses.order_by.len());
        for o in clauses.order_by {
            let e = self.agg_operand(&o.expr, scope, nested_ok)?;
            let e = if e.ty().ty == DataType::Unknown {
                self.coerce(e, TEXT)?
            } else {
                self.sort_key_of(e)
            };
            let desc = order_desc(&o.options)?;
            order_by.push(WindowOrder {
                expr: e,
                desc,
                nulls_first: o.options.nulls_first.unwrap_or(desc),
            });
        }
        let mut call = match func {
            AggFunc::Count
            | AggFunc::CountStar
            | AggFunc::Sum
            | AggFunc::Avg
            | AggFunc::Min
            | AggFunc::Max => self.basic_agg(func, name, bound, star)?,
            _ if star => {
                return Err(Error::syntax(format!(
                    "{name}(*) specified, but {name} is not an aggregate function"
                )));
            }
            _ => self.stat_agg(func, name, bound)?,
        };
        if distinct && order_by.iter().any(|o| call.arg.as_ref() != Some(&o.expr)) {
            return Err(Error::new(
                "42P10",
                "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
            ));
        }
        // The json aggregates take their values as json (after DISTINCT and ORDER BY
        // were checked against the arguments as written).
        match call.func {
            AggFunc::JsonAgg | AggFunc::JsonbAgg => {
                let json = call.func == AggFunc::JsonAgg;
                call.arg = call.arg.take().map(|a| super::json::to_json_call(a, json));
            }
            AggFunc::JsonObjectAgg | AggFunc::JsonbObjectAgg => {
                let json = call.func == AggFunc::JsonObjectAgg;
                if let Some(v) = call.extra.first_mut() {
                    let value = std::mem::replace(v, Expr::literal_bool(true));
                    *v = super::json::to_json_call(value, json);
                }
            }
            _ => {}
        }
        call.distinct = distinct;
        call.filter = filter;
        call.order_by = order_by;
        Ok(call)
    }

    /// `f(direct) WITHIN GROUP (ORDER BY value)`.
    fn ordered_set_call(
        &mut self,
        func: AggFunc,
        name: &str,
        args: &[&A::Expr],
        scope: &Scope,
        nested_ok: bool,
        clauses: AggClauses,
    ) -> Result<AggCall> {
        let [o] = clauses.within_group else {
            return Err(Error::feature_not_supported(format!(
                "{name} with several WITHIN GROUP keys"
            )));
        };
        let value = self.agg_operand(&o.expr, scope, nested_ok)?;
        let value = if value.ty().ty == DataType::Unknown {
            self.coerce(value, TEXT)?
        } else {
            value
        };
        let desc = order_desc(&o.options)?;
        let mut direct = Vec::new();
        for a in args {
            direct.push(self.agg_operand(a, scope, nested_ok)?);
        }
        let types: Vec<String> = direct.iter().map(|d| d.ty().display_name()).collect();
        let missing = || {
            Error::undefined_function(format!(
                "function {name}({}) does not exist",
                types.join(", ")
            ))
        };
        let (value, extra, ty) = match (func, direct.len()) {
            (AggFunc::Mode, 0) => {
                let ty = value.ty();
                (value, Vec::new(), ty)
            }
            (AggFunc::PercentileDisc, 1) => {
                let fraction = self.coerce_assign(direct.remove(0), FLOAT8, name)?;
                let ty = value.ty();
                (value, vec![fraction], ty)
            }
            (AggFunc::PercentileCont, 1) => {
                let fraction = self.coerce_assign(direct.remove(0), FLOAT8, name)?;
                let (value, ty) = match value.ty().ty {
                    DataType::Interval => {
                        let ty = value.ty();
                        (value, ty)
                    }
                    t if t.numeric_rank().is_some() => (self.coerce(value, FLOAT8)?, FLOAT8),
                    _ => return Err(missing()),
                };
                (value, vec![fraction], ty)
            }
            _ => return Err(missing()),
        };
        let order = WindowOrder {
            expr: value.clone(),
            desc,
            nulls_first: o.options.nulls_first.unwrap_or(desc),
        };
        Ok(AggCall {
            extra,
            order_by: vec![order],
            ..AggCall::simple(func, Some(value), ty)
        })
    }

    /// The statistics and the other aggregates beyond count/sum/avg/min/max.
    fn stat_agg(&mut self, func: AggFunc, name: &str, mut args: Vec<Expr>) -> Result<AggCall> {
        let types: Vec<String> = args
            .iter()
            .map(|a| {
                if a.ty().ty == DataType::Unknown {
                    "unknown".to_string()
                } else {
                    a.ty().display_name()
                }
            })
            .collect();
        let missing = || {
            Error::undefined_function(format!(
                "function {name}({}) does not exist",
                types.join(", ")
            ))
        };
        let t = |e: &Expr| e.ty().ty;
        Ok(match func {
            AggFunc::BoolAnd | AggFunc::BoolOr => {
                let [a] = args.as_mut_slice() else {
                    return Err(missing());
                };
                if !matches!(t(a), DataType::Bool | DataType::Unknown) {
                    return Err(missing());
                }
                let a = self.coerce(std::mem::replace(a, Expr::literal_bool(true)), BOOL)?;
                AggCall::simple(func, Some(a), BOOL)
            }
            AggFunc::StringAgg => {
                let [a, d] = args.as_mut_slice() else {
                    return Err(missing());
                };
                // string_agg(bytea, bytea).
                let bytes = |t: DataType| matches!(t, DataType::Bytea | DataType::Unknown);
                if t(a) == DataType::Bytea && bytes(t(d)) {
                    let bytea = SqlType::new(DataType::Bytea);
                    let a = std::mem::replace(a, Expr::literal_bool(true));
                    let d = self.coerce(std::mem::replace(d, Expr::literal_bool(true)), bytea)?;
                    return Ok(AggCall {
                        extra: vec![d],
                        ..AggCall::simple(func, Some(a), bytea)
                    });
                }
                if !(t(a).is_string() || t(a) == DataType::Unknown)
                    || !(t(d).is_string() || t(d) == DataType::Unknown)
                {
                    return Err(missing());
                }
                let a = self.coerce(std::mem::replace(a, Expr::literal_bool(true)), TEXT)?;
                let d = self.coerce(std::mem::replace(d, Expr::literal_bool(true)), TEXT)?;
                AggCall {
                    extra: vec![d],
                    ..AggCall::simple(func, Some(a), TEXT)
                }
            }
            AggFunc::ArrayAgg => {
                let [a] = args.as_mut_slice() else {
                    return Err(missing());
                };
                let a = std::mem::replace(a, Expr::literal_bool(true));
                // array_agg(anynonarray) and array_agg(anyarray) both take an untyped
                // literal: PostgreSQL cannot choose.
                if t(&a) == DataType::Unknown {
                    return Err(not_unique(format!(
                        "function {name}(unknown) is not unique"
                    )));
                }
                // Arrays accumulate into one more dimension, of the same array type.
                let ty = match a.ty().ty {
                    t if t.is_array() => t,
                    t => DataType::array_of(t).ok_or_else(missing)?,
                };
                AggCall::simple(func, Some(a), SqlType::new(ty))
            }
            AggFunc::JsonAgg | AggFunc::JsonbAgg => {
                let [a] = args.as_mut_slice() else {
                    return Err(missing());
                };
                let a = std::mem::replace(a, Expr::literal_bool(true));
                if t(&a) == DataType::Unknown {
                    return Err(Error::new(
                        "42P18",
                        "could not determine polymorphic type because input has type unknown",
                    ));
                }
                if func == AggFunc::JsonbAgg {
                    AggCall::simple(func, Some(a), SqlType::new(DataType::Jsonb))
                } else {
                    // Arrays and records are set apart by a line break (json_agg_transfn).
                    let structured = t(&a).is_array() || t(&a) == DataType::Record;
                    AggCall {
                        extra: vec![Expr::literal_bool(structured)],
                        ..AggCall::simple(func, Some(a), SqlType::new(DataType::Json))
                    }
                }
            }
            AggFunc::JsonObjectAgg | AggFunc::JsonbObjectAgg => {
                let [k, v] = args.as_mut_slice() else {
                    return Err(missing());
                };
                let k = std::mem::replace(k, Expr::literal_bool(true));
                let v = std::mem::replace(v, Expr::literal_bool(true));
                if t(&k).is_array()
                    || matches!(t(&k), DataType::Record | DataType::Json | DataType::Jsonb)
                {
                    return Err(Error::invalid_parameter(
                        "key value must be scalar, not array, composite, or json",
                    ));
                }
                let k = self.explicit_cast(k, TEXT)?;
                let v = if t(&v) == DataType::Unknown {
                    self.coerce(v, TEXT)?
                } else {
                    v
                };
                let ty = if func == AggFunc::JsonObjectAgg {
                    DataType::Json
                } else {
                    DataType::Jsonb
                };
                AggCall {
                    extra: vec![v],
                    ..AggCall::simple(func, Some(k), SqlType::new(ty))
                }
            }
            AggFunc::VarPop | AggFunc::VarSamp | AggFunc::StddevPop | AggFunc::StddevSamp => {
                let [a] = args.as_mut_slice() else {
                    return Err(missing());
                };
                let ty = match t(a) {
                    DataType::Int2 | DataType::Int4 | DataType::Int8 | DataType::Numeric => NUMERIC,
                    DataType::Float4 | DataType::Float8 => FLOAT8,
                    DataType::Unknown => {
                        return Err(not_unique(format!(
                            "function {name}(unknown) is not unique"
                        )));
                    }
                    _ => return Err(missing()),
                };
                let a = std::mem::replace(a, Expr::literal_bool(true));
                AggCall::simple(func, Some(a), ty)
            }
            _ => {
                // The two-variable statistics: (Y, X) as double precision.
                let [y, x] = args.as_mut_slice() else {
                    return Err(missing());
                };
                for e in [&*y, &*x] {
                    if t(e) != DataType::Unknown && t(e).numeric_rank().is_none() {
                        return Err(missing());
                    }
                }
                let y = self.coerce(std::mem::replace(y, Expr::literal_bool(true)), FLOAT8)?;
                let x = self.coerce(std::mem::replace(x, Expr::literal_bool(true)), FLOAT8)?;
                let ty = if func == AggFunc::RegrCount {
                    INT8
                } else {
                    FLOAT8
                };
                AggCall {
                    extra: vec![x],
                    ..AggCall::simple(func, Some(y), ty)
                }
            }
        })
    }

    /// count, sum, avg, min and max.
    fn basic_agg(
        &mut self,
        func: AggFunc,
        name: &str,
        args: Vec<Expr>,
        star: bool,
    ) -> Result<AggCall> {
        let (func, arg) = match (func, star, args.len()) {
            (AggFunc::Count, true, 0) => (AggFunc::CountStar, None),
            // min / max of an enum: of its labels' places, mapped back by the caller.
            (AggFunc::Min | AggFunc::Max, false, 1)
                if matches!(args[0].ty().ty, DataType::Enum(_)) =>
            {
                let DataType::Enum(oid) = args[0].ty().ty else {
                    unreachable!()
                };
                self.enum_aggregate = Some(oid);
                let arg = args
                    .into_iter()
                    .next()
                    .map(|a| super::types::enum_position(a, oid));
                (func, arg)
            }
            (_, false, 1) => (func, args.into_iter().next()),
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
            // PostgreSQL 15 has no min/max of boolean, json, uuid or bytea.
            (AggFunc::Min | AggFunc::Max, Some(t))
                if !matches!(
                    t,
                    DataType::Bool
                        | DataType::Json
                        | DataType::Jsonb
                        | DataType::Uuid
                        | DataType::Bytea
                        | DataType::MacAddr
                        | DataType::MacAddr8
                        | DataType::Range(_)
                        | DataType::TsVector
                        | DataType::TsQuery
                ) =>
            {
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
        Ok(AggCall::simple(func, arg, ty))
    }
}
