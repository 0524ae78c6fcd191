//! SELECT, VALUES, ORDER BY and LIMIT: a query block becomes a plan.

use super::*;

pub(super) struct SelectParts<'q> {
    select: &'q A::Select,
    order_by: Option<&'q A::OrderBy>,
    limit: Option<&'q A::LimitClause>,
}

pub(super) enum OrderTarget {
    Output(usize),
    Expr(Expr),
}

pub(super) fn order_exprs(ob: &A::OrderBy) -> Result<&[A::OrderByExpr]> {
    if ob.interpolate.is_some() {
        return Err(Error::feature_not_supported("INTERPOLATE"));
    }
    match &ob.kind {
        A::OrderByKind::Expressions(e) => Ok(e),
        A::OrderByKind::All(_) => Err(Error::feature_not_supported("ORDER BY ALL")),
    }
}

pub(super) fn sort_key(column: usize, options: &A::OrderByOptions) -> SortKey {
    let desc = matches!(options.sort, Some(A::OrderBySort::Desc));
    // PostgreSQL: NULLs sort as larger than every value.
    let nulls_first = options.nulls_first.unwrap_or(desc);
    SortKey {
        column,
        desc,
        nulls_first,
    }
}

pub(super) fn position_column(n: &str, width: usize) -> Result<usize> {
    position_column_named(n, width, "ORDER BY")
}

pub(super) fn position_column_named(n: &str, width: usize, clause: &str) -> Result<usize> {
    match n.parse::<usize>() {
        Ok(p) if p >= 1 && p <= width => Ok(p - 1),
        _ => Err(Error::new(
            "42P10",
            format!("{clause} position {n} is not in select list"),
        )),
    }
}

/// Finds an output column by name: `Some(Ok(i))` if unique, `Some(Err(()))` if ambiguous.
pub(super) fn output_name_match(columns: &[OutputColumn], name: &str) -> Option<Result<usize, ()>> {
    let mut found = None;
    for (i, c) in columns.iter().enumerate() {
        if c.name == name {
            if found.is_some() {
                return Some(Err(()));
            }
            found = Some(i);
        }
    }
    found.map(Ok)
}

pub(super) fn push_filter(plan: Plan, filter: Option<Expr>) -> Plan {
    match (plan, filter) {
        (plan, None) => plan,
        (
            Plan::Scan {
                table,
                filter: None,
                row_ids,
                needed,
            },
            Some(f),
        ) => Plan::Scan {
            table,
            filter: Some(f),
            row_ids,
            needed,
        },
        (plan, Some(f)) => Plan::Filter {
            input: Box::new(plan),
            predicate: f,
        },
    }
}

/// Number of output columns of a plan.
pub fn plan_width(plan: &Plan) -> usize {
    match plan {
        Plan::Scan { table, row_ids, .. } => table.columns.len() + usize::from(*row_ids),
        Plan::Values { types, .. } => types.len(),
        Plan::GenerateSeries { .. } => 1,
        Plan::Filter { input, .. }
        | Plan::Distinct { input }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. } => plan_width(input),
        Plan::Project { exprs, .. } => exprs.len(),
        Plan::Aggregate { group_by, aggs, .. } => group_by.len() + aggs.len(),
    }
}

impl Binder<'_> {
    pub fn bind_query(&mut self, q: &A::Query) -> Result<(Plan, Vec<OutputColumn>)> {
        if q.with.is_some() {
            return Err(Error::feature_not_supported("WITH queries"));
        }
        if q.fetch.is_some() || !q.locks.is_empty() {
            return Err(Error::feature_not_supported("FETCH and FOR UPDATE clauses"));
        }
        match q.body.as_ref() {
            A::SetExpr::Select(select) => self.bind_select(SelectParts {
                select,
                order_by: q.order_by.as_ref(),
                limit: q.limit_clause.as_ref(),
            }),
            A::SetExpr::Values(values) => {
                let (plan, columns) = self.bind_values(values)?;
                self.finish_plain(plan, columns, q.order_by.as_ref(), q.limit_clause.as_ref())
            }
            A::SetExpr::Query(inner) if q.order_by.is_none() && q.limit_clause.is_none() => {
                self.bind_query(inner)
            }
            A::SetExpr::SetOperation { op, .. } => {
                Err(Error::feature_not_supported(format!("{op}")))
            }
            _ => Err(Error::feature_not_supported("this form of query")),
        }
    }

    pub(super) fn bind_values(&mut self, values: &A::Values) -> Result<(Plan, Vec<OutputColumn>)> {
        let scope = Scope::default();
        let mut rows: Vec<Vec<Expr>> = Vec::new();
        let width = values.rows.first().map_or(0, |r| r.len());
        for row in &values.rows {
            if row.len() != width {
                return Err(Error::syntax("VALUES lists must all be the same length"));
            }
            let mut bound = Vec::with_capacity(width);
            for e in row.iter() {
                bound.push(self.bind_expr(e, &scope)?);
            }
            rows.push(bound);
        }
        let mut types = Vec::with_capacity(width);
        for col in 0..width {
            let exprs: Vec<&Expr> = rows.iter().map(|r| &r[col]).collect();
            types.push(common_type(&exprs, "VALUES")?);
        }
        for row in rows.iter_mut() {
            for (col, e) in row.iter_mut().enumerate() {
                let taken = std::mem::replace(e, Expr::literal(Value::Null, UNKNOWN));
                *e = self.coerce(taken, types[col])?;
            }
        }
        let columns = (0..width)
            .map(|i| OutputColumn {
                name: format!("column{}", i + 1),
                ty: types[i],
            })
            .collect();
        Ok((Plan::Values { rows, types }, columns))
    }

    /// ORDER BY / LIMIT over a plan whose outputs are plain columns (VALUES).
    pub(super) fn finish_plain(
        &mut self,
        plan: Plan,
        columns: Vec<OutputColumn>,
        order_by: Option<&A::OrderBy>,
        limit: Option<&A::LimitClause>,
    ) -> Result<(Plan, Vec<OutputColumn>)> {
        let scope = Scope {
            columns: columns
                .iter()
                .map(|c| ScopeColumn {
                    qualifier: None,
                    name: c.name.clone(),
                    ty: c.ty,
                })
                .collect(),
        };
        let mut plan = plan;
        let (limit_expr, offset_expr) = self.bind_limit(limit)?;
        if let Some(ob) = order_by {
            let mut keys = Vec::new();
            for item in order_exprs(ob)? {
                let column = match &item.expr {
                    A::Expr::Value(v) => match &v.value {
                        A::Value::Number(n, _) => position_column(n, columns.len())?,
                        _ => return Err(Error::feature_not_supported("ORDER BY a constant")),
                    },
                    e => match self.bind_expr(e, &scope)? {
                        Expr::Column { index, .. } => index,
                        _ => {
                            return Err(Error::feature_not_supported(
                                "ORDER BY an expression over VALUES",
                            ));
                        }
                    },
                };
                keys.push(sort_key(column, &item.options));
            }
            plan = Plan::Sort {
                input: Box::new(plan),
                keys,
                limit: None,
            };
        }
        if limit_expr.is_some() || offset_expr.is_some() {
            plan = Plan::Limit {
                input: Box::new(plan),
                limit: limit_expr,
                offset: offset_expr,
            };
        }
        Ok((plan, columns))
    }

    pub(super) fn bind_where(
        &mut self,
        selection: Option<&A::Expr>,
        scope: &Scope,
    ) -> Result<Option<Expr>> {
        let Some(e) = selection else { return Ok(None) };
        let bound = self.bind_expr(e, scope)?;
        let checked = self.require_bool(bound, "WHERE");
        Ok(Some(checked.map_err(|err| self.locate(err, e))?))
    }

    pub(super) fn bind_select(&mut self, parts: SelectParts) -> Result<(Plan, Vec<OutputColumn>)> {
        let s = parts.select;
        if s.into.is_some() {
            return Err(Error::feature_not_supported("SELECT INTO"));
        }
        if !s.named_window.is_empty() || s.qualify.is_some() {
            return Err(Error::feature_not_supported("window clauses"));
        }
        let (mut plan, scope) = self.bind_from(&s.from)?;

        // The select list, expanded.
        let mut items: Vec<(Option<&A::Expr>, String, Option<usize>)> = Vec::new();
        for item in &s.projection {
            match item {
                A::SelectItem::UnnamedExpr(e) => items.push((Some(e), derive_name(e), None)),
                A::SelectItem::ExprWithAlias { expr, alias } => {
                    items.push((Some(expr), ident_name(alias), None))
                }
                A::SelectItem::Wildcard(_) => {
                    if scope.columns.is_empty() {
                        return Err(Error::syntax(
                            "SELECT * with no tables specified is not valid",
                        ));
                    }
                    for (i, c) in scope.columns.iter().enumerate() {
                        items.push((None, c.name.clone(), Some(i)));
                    }
                }
                A::SelectItem::QualifiedWildcard(kind, _) => {
                    let q = match kind {
                        A::SelectItemQualifiedWildcardKind::ObjectName(n) => object_name(n)?,
                        A::SelectItemQualifiedWildcardKind::Expr(_) => {
                            return Err(Error::feature_not_supported("this wildcard"));
                        }
                    };
                    let before = items.len();
                    for (i, c) in scope.columns.iter().enumerate() {
                        if c.qualifier.as_deref() == Some(q.as_str()) {
                            items.push((None, c.name.clone(), Some(i)));
                        }
                    }
                    if items.len() == before {
                        return Err(Error::new(
                            "42P01",
                            format!("missing FROM-clause entry for table \"{q}\""),
                        ));
                    }
                }
                A::SelectItem::ExprWithAliases { .. } => {
                    return Err(Error::feature_not_supported("multiple aliases"));
                }
            }
        }

        let group_exprs: Vec<&A::Expr> = match &s.group_by {
            A::GroupByExpr::Expressions(exprs, mods) => {
                if !mods.is_empty() {
                    return Err(Error::feature_not_supported("GROUP BY modifiers"));
                }
                exprs.iter().collect()
            }
            A::GroupByExpr::All(_) => return Err(Error::feature_not_supported("GROUP BY ALL")),
        };

        // Bind select items, HAVING and ORDER BY with aggregates allowed; decide afterwards
        // whether this is an aggregate query.
        self.aggs.clear();
        self.agg_allowed = true;
        let mut outputs: Vec<Expr> = Vec::with_capacity(items.len());
        let mut columns: Vec<OutputColumn> = Vec::with_capacity(items.len());
        for (ast, name, wildcard) in &items {
            let e = match (ast, wildcard) {
                (_, Some(i)) => {
                    let c = &scope.columns[*i];
                    Expr::Column {
                        index: *i,
                        ty: c.ty,
                        name: c.name.clone(),
                    }
                }
                (Some(a), None) => self.bind_expr(a, &scope)?,
                (None, None) => return Err(Error::internal("select item without expression")),
            };
            let e = if e.ty().ty == DataType::Unknown {
                self.coerce(e, TEXT)?
            } else {
                e
            };
            columns.push(OutputColumn {
                name: name.clone(),
                ty: e.ty(),
            });
            outputs.push(e);
        }
        // WHERE after the select list, in PostgreSQL's order (transformSelectStmt), so
        // the first error reported is the same.
        self.agg_allowed = false;
        let filter = self.bind_where(s.selection.as_ref(), &scope)?;
        self.agg_allowed = true;
        if let Some(f) = &filter
            && f.any(&|e| matches!(e, Expr::Agg { .. }))
        {
            return Err(Error::grouping(
                "aggregate functions are not allowed in WHERE",
            ));
        }
        plan = push_filter(plan, filter);
        let having = match &s.having {
            Some(h) => {
                let b = self.bind_expr(h, &scope)?;
                let checked = self.require_bool(b, "HAVING");
                Some(checked.map_err(|err| self.locate(err, h))?)
            }
            None => None,
        };
        // ORDER BY items: output position, output name, or an expression.
        let mut order_items: Vec<(OrderTarget, A::OrderByOptions)> = Vec::new();
        if let Some(ob) = parts.order_by {
            for item in order_exprs(ob)? {
                let target = match &item.expr {
                    A::Expr::Value(v) if matches!(v.value, A::Value::Number(..)) => {
                        let A::Value::Number(n, _) = &v.value else {
                            unreachable!()
                        };
                        OrderTarget::Output(position_column(n, outputs.len())?)
                    }
                    A::Expr::Identifier(id)
                        if output_name_match(&columns, &ident_name(id)).is_some() =>
                    {
                        let name = ident_name(id);
                        // PostgreSQL prefers the output column name in ORDER BY.
                        match output_name_match(&columns, &name) {
                            Some(Ok(i)) => OrderTarget::Output(i),
                            _ => {
                                return Err(Error::new(
                                    "42702",
                                    format!("ORDER BY \"{name}\" is ambiguous"),
                                ));
                            }
                        }
                    }
                    e => OrderTarget::Expr(self.bind_expr(e, &scope)?),
                };
                order_items.push((target, item.options.clone()));
            }
        }
        self.agg_allowed = false;

        let is_aggregate = !group_exprs.is_empty() || !self.aggs.is_empty() || having.is_some();
        if is_aggregate {
            let mut group_by = Vec::with_capacity(group_exprs.len());
            for g in &group_exprs {
                let bound = match g {
                    A::Expr::Value(v) if matches!(v.value, A::Value::Number(..)) => {
                        let A::Value::Number(n, _) = &v.value else {
                            unreachable!()
                        };
                        let i = position_column_named(n, outputs.len(), "GROUP BY")?;
                        let e = outputs[i].clone();
                        if e.any(&|x| matches!(x, Expr::Agg { .. })) {
                            return Err(Error::grouping(
                                "aggregate functions are not allowed in GROUP BY",
                            ));
                        }
                        e
                    }
                    A::Expr::Identifier(id) => {
                        let name = ident_name(id);
                        match scope.resolve(None, &name) {
                            Ok((i, ty)) => Expr::Column { index: i, ty, name },
                            Err(err) => match output_name_match(&columns, &name) {
                                Some(Ok(i)) => outputs[i].clone(),
                                _ => return Err(err),
                            },
                        }
                    }
                    e => {
                        self.agg_allowed = false;
                        self.bind_expr(e, &scope)?
                    }
                };
                group_by.push(bound);
            }
            let aggs = std::mem::take(&mut self.aggs);
            let ngroups = group_by.len();
            for e in outputs.iter_mut() {
                *e = rewrite_grouped(e.clone(), &group_by, ngroups, &scope)?;
            }
            let having = having
                .map(|h| rewrite_grouped(h, &group_by, ngroups, &scope))
                .transpose()?;
            for (target, _) in order_items.iter_mut() {
                if let OrderTarget::Expr(e) = target {
                    *e = rewrite_grouped(e.clone(), &group_by, ngroups, &scope)?;
                }
            }
            plan = Plan::Aggregate {
                input: Box::new(plan),
                group_by,
                aggs,
            };
            if let Some(h) = having {
                plan = Plan::Filter {
                    input: Box::new(plan),
                    predicate: h,
                };
            }
        } else {
            self.aggs.clear();
        }

        // Projection with hidden sort keys.
        let visible = outputs.len();
        let mut keys = Vec::new();
        let mut project = outputs;
        for (target, options) in order_items {
            let column = match target {
                OrderTarget::Output(i) => i,
                OrderTarget::Expr(e) => match project.iter().position(|p| *p == e) {
                    Some(i) => i,
                    None => {
                        if s.distinct.is_some() {
                            return Err(Error::new(
                                "42P10",
                                "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                            ));
                        }
                        project.push(e);
                        project.len() - 1
                    }
                },
            };
            keys.push(sort_key(column, &options));
        }
        let input_width = plan_width(&plan);
        let identity = project.len() == input_width
            && project
                .iter()
                .enumerate()
                .all(|(i, e)| matches!(e, Expr::Column { index, .. } if *index == i));
        if !identity {
            plan = Plan::Project {
                input: Box::new(plan),
                exprs: project.clone(),
            };
        }
        match &s.distinct {
            None | Some(A::Distinct::All) => {}
            Some(A::Distinct::Distinct) => {
                plan = Plan::Distinct {
                    input: Box::new(plan),
                }
            }
            Some(A::Distinct::On(_)) => return Err(Error::feature_not_supported("DISTINCT ON")),
        }
        let (limit, offset) = self.bind_limit(parts.limit)?;
        if !keys.is_empty() {
            // A top-N sort keeps limit + offset rows.
            let top = match (&limit, &offset) {
                (Some(l), None) => Some(l.clone()),
                (Some(l), Some(o)) => Some(Expr::Binary {
                    op: BinaryOp::Add,
                    left: Box::new(l.clone()),
                    right: Box::new(o.clone()),
                    ty: INT8,
                }),
                _ => None,
            };
            plan = Plan::Sort {
                input: Box::new(plan),
                keys,
                limit: top,
            };
        }
        if limit.is_some() || offset.is_some() {
            plan = Plan::Limit {
                input: Box::new(plan),
                limit,
                offset,
            };
        }
        if project.len() > visible {
            let exprs = (0..visible)
                .map(|i| Expr::Column {
                    index: i,
                    ty: project[i].ty(),
                    name: columns[i].name.clone(),
                })
                .collect();
            plan = Plan::Project {
                input: Box::new(plan),
                exprs,
            };
        }
        Ok((plan, columns))
    }

    pub(super) fn bind_limit(
        &mut self,
        limit: Option<&A::LimitClause>,
    ) -> Result<(Option<Expr>, Option<Expr>)> {
        let Some(clause) = limit else {
            return Ok((None, None));
        };
        let scope = Scope::default();
        let (l, o) = match clause {
            A::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            } => {
                if !limit_by.is_empty() {
                    return Err(Error::feature_not_supported("LIMIT BY"));
                }
                (limit.as_ref(), offset.as_ref().map(|o| &o.value))
            }
            A::LimitClause::OffsetCommaLimit { .. } => {
                return Err(Error::syntax("LIMIT #,# syntax is not supported"));
            }
        };
        let mut bind = |e: Option<&A::Expr>| -> Result<Option<Expr>> {
            match e {
                None => Ok(None),
                Some(A::Expr::Value(v)) if matches!(v.value, A::Value::Null) => Ok(None),
                Some(e) => {
                    let b = self.bind_expr(e, &scope)?;
                    if b.any(&|x| matches!(x, Expr::Column { .. })) {
                        return Err(Error::new(
                            "42P10",
                            "argument of LIMIT must not contain variables",
                        ));
                    }
                    let coerced = self.coerce_assign(b, INT8, "LIMIT");
                    Ok(Some(coerced.map_err(|err| self.locate(err, e))?))
                }
            }
        };
        Ok((bind(l)?, bind(o)?))
    }

    // ----- DML -----------------------------------------------------------------------
}
