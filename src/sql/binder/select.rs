//! SELECT, VALUES, ORDER BY and LIMIT: a query block becomes a logical plan.
//!
//! Clauses are bound in PostgreSQL's order (transformSelectStmt: select list, WHERE,
//! HAVING, ORDER BY, GROUP BY), so of two errors in different clauses the same one is
//! reported. The plan, bottom-up:
//! `FROM → Filter(WHERE) → Aggregate → Filter(HAVING) → Window → Project(outputs +
//! hidden sort keys) → Distinct → Sort → DistinctOn → Limit → Project(outputs)`
//! (DISTINCT ON keeps the first row of each key in the sorted order).

use super::*;

pub(super) struct SelectParts<'q> {
    pub(super) select: &'q A::Select,
    pub(super) order_by: Option<&'q A::OrderBy>,
    pub(super) limit: Option<&'q A::LimitClause>,
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

/// Whether an ORDER BY item sorts descending: DESC or `USING >` (`USING <` is ASC; other
/// operators are not orderings, 42809 as in PostgreSQL).
pub(super) fn order_desc(options: &A::OrderByOptions) -> Result<bool> {
    match &options.sort {
        None | Some(A::OrderBySort::Asc) => Ok(false),
        Some(A::OrderBySort::Desc) => Ok(true),
        Some(A::OrderBySort::Using(op)) => match op.to_string().as_str() {
            "<" => Ok(false),
            ">" => Ok(true),
            other => Err(Error::new(
                "42809",
                format!("operator {other} is not a valid ordering operator"),
            )
            .with_hint(
                "Ordering operators must be \"<\" or \">\" members of btree operator families.",
            )),
        },
    }
}

pub(super) fn sort_expr(expr: Expr, options: &A::OrderByOptions) -> Result<SortExpr> {
    let desc = order_desc(options)?;
    // An enum sorts by its labels' places in the type.
    let expr = match expr.ty().ty {
        crate::types::DataType::Enum(oid) => super::types::enum_position(expr, oid),
        crate::types::DataType::Array(e) if matches!(*e, crate::types::DataType::Enum(_)) => {
            return Err(Error::feature_not_supported("ordering arrays of enums"));
        }
        _ => expr,
    };
    // PostgreSQL: NULLs sort as larger than every value.
    let nulls_first = options.nulls_first.unwrap_or(desc);
    Ok(SortExpr {
        expr,
        desc,
        nulls_first,
    })
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

/// Replaces window placeholders by the window node's columns.
fn replace_windows(e: &mut Expr, refs: &[Expr]) {
    if let Expr::Window { index, .. } = e
        && let Some(r) = refs.get(*index)
    {
        *e = r.clone();
        return;
    }
    e.children_mut(&mut |c| replace_windows(c, refs));
}

/// References to the output columns of `plan`, named as `columns` name them.
pub(super) fn output_refs(plan: &LogicalPlan, columns: &[OutputColumn]) -> Vec<Expr> {
    plan.output()
        .iter()
        .zip(columns)
        .map(|(c, o)| Expr::ColumnRef {
            id: c.id,
            ty: c.ty,
            name: o.name.clone(),
        })
        .collect()
}

/// A select-list item: its expression (None for a column of a wildcard), its output
/// name, and the scope column a wildcard stands for.
type SelectItem<'s> = (Option<&'s A::Expr>, String, Option<usize>);

/// What a query level saves of its enclosing level's binding state.
pub(super) struct LevelState {
    aggs: Vec<AggCall>,
    agg_allowed: bool,
    windows: Vec<WindowCall>,
    window_forbidden: Option<&'static str>,
    in_window_args: bool,
    in_agg_args: bool,
    named_windows: Vec<A::NamedWindowDefinition>,
    from_left: Option<Scope>,
    srfs: Vec<SrfCall>,
    srf_rel: Option<RelId>,
    srf_forbidden: Option<&'static str>,
}

impl Binder<'_> {
    /// Starts binding a nested query: aggregates found from here on are its own.
    pub(super) fn enter_query_level(&mut self) -> LevelState {
        LevelState {
            aggs: std::mem::take(&mut self.aggs),
            agg_allowed: std::mem::replace(&mut self.agg_allowed, false),
            windows: std::mem::take(&mut self.windows),
            window_forbidden: self.window_forbidden.replace("this context"),
            in_window_args: std::mem::replace(&mut self.in_window_args, false),
            in_agg_args: std::mem::replace(&mut self.in_agg_args, false),
            named_windows: std::mem::take(&mut self.named_windows),
            from_left: self.from_left.take(),
            srfs: std::mem::take(&mut self.srfs),
            srf_rel: self.srf_rel.take(),
            srf_forbidden: self.srf_forbidden.replace("this context"),
        }
    }

    pub(super) fn leave_query_level(&mut self, saved: LevelState) {
        self.aggs = saved.aggs;
        self.agg_allowed = saved.agg_allowed;
        self.windows = saved.windows;
        self.window_forbidden = saved.window_forbidden;
        self.in_window_args = saved.in_window_args;
        self.in_agg_args = saved.in_agg_args;
        self.named_windows = saved.named_windows;
        self.from_left = saved.from_left;
        self.srfs = saved.srfs;
        self.srf_rel = saved.srf_rel;
        self.srf_forbidden = saved.srf_forbidden;
    }

    pub fn bind_query(&mut self, q: &A::Query) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        if let Some(fetch) = &q.fetch {
            let rewritten = fetch_as_limit(q, fetch)?;
            if fetch.with_ties && q.order_by.is_none() {
                return Err(Error::syntax(
                    "WITH TIES cannot be specified without ORDER BY clause",
                ));
            }
            self.ties_next = fetch.with_ties;
            return self.bind_query(&rewritten);
        }
        // This query's WITH TIES flag; queries nested in it keep their own.
        let outer = std::mem::replace(&mut self.query_ties, std::mem::take(&mut self.ties_next));
        let bound = self.bind_query_level(q);
        self.query_ties = outer;
        bound
    }

    fn bind_query_level(&mut self, q: &A::Query) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        if !matches!(q.body.as_ref(), A::SetExpr::Select(_)) {
            self.unknown_outputs_ok = false;
        }
        if !q.locks.is_empty() {
            return Err(Error::feature_not_supported(
                "FOR UPDATE and FOR SHARE clauses",
            ));
        }
        match &q.with {
            Some(with) => {
                self.unknown_outputs_ok = false;
                self.bind_with(with, q)
            }
            None => self.bind_query_body(q),
        }
    }

    pub(super) fn bind_values(
        &mut self,
        values: &A::Values,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
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
            let t = common_type(&exprs, "VALUES")?;
            types.push(if t.ty == DataType::Unknown { TEXT } else { t });
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
                origin: None,
            })
            .collect();
        let rel = self.new_rel();
        Ok((LogicalPlan::Values { rel, rows, types }, columns))
    }

    /// ORDER BY / LIMIT over a query whose outputs are plain columns (VALUES, a
    /// parenthesized query).
    pub(super) fn finish_plain(
        &mut self,
        plan: LogicalPlan,
        columns: Vec<OutputColumn>,
        order_by: Option<&A::OrderBy>,
        limit: Option<&A::LimitClause>,
        columns_only: bool,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        let refs = output_refs(&plan, &columns);
        let scope = Scope {
            columns: columns
                .iter()
                .zip(&refs)
                .map(|(c, r)| ScopeColumn {
                    schema: None,
                    qualifier: None,
                    name: c.name.clone(),
                    expr: r.clone(),
                    hidden: false,
                })
                .collect(),
        };
        let mut plan = plan;
        // WITH TIES belongs to the query whose FETCH clause this is.
        let with_ties = self.query_ties && limit.is_some();
        let (limit_expr, offset_expr) = self.bind_limit(limit)?;
        let mut ties = Vec::new();
        if let Some(ob) = order_by {
            let mut keys = Vec::new();
            for item in order_exprs(ob)? {
                let key = match &item.expr {
                    A::Expr::Value(v) if matches!(v.value, A::Value::Number(..)) => {
                        let A::Value::Number(n, _) = &v.value else {
                            unreachable!()
                        };
                        refs[position_column(n, columns.len())?].clone()
                    }
                    // A set operation's result can be ordered by its columns only.
                    A::Expr::Identifier(_) if columns_only => self.bind_expr(&item.expr, &scope)?,
                    _ if columns_only => {
                        return Err(Error::feature_not_supported(
                            "invalid UNION/INTERSECT/EXCEPT ORDER BY clause",
                        )
                        .with_detail(
                            "Only result column names can be used, not expressions or functions.",
                        )
                        .with_hint(
                            "Add the expression/function to every SELECT, or move the UNION into a FROM clause.",
                        ));
                    }
                    e => self.bind_expr(e, &scope)?,
                };
                if with_ties {
                    ties.push(key.clone());
                }
                keys.push(sort_expr(key, &item.options)?);
            }
            plan = LogicalPlan::Sort {
                input: Box::new(plan),
                keys,
            };
        }
        if limit_expr.is_some() || offset_expr.is_some() || with_ties {
            plan = LogicalPlan::Limit {
                input: Box::new(plan),
                limit: limit_expr,
                offset: offset_expr,
                ties,
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

    /// The select list, expanded: for each item its expression (None for a column of
    /// a wildcard), its output name, and the scope column a wildcard stands for.
    fn select_items<'s>(&self, s: &'s A::Select, scope: &Scope) -> Result<Vec<SelectItem<'s>>> {
        let mut items: Vec<SelectItem> = Vec::new();
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
                        if !c.hidden {
                            items.push((None, c.name.clone(), Some(i)));
                        }
                    }
                }
                A::SelectItem::QualifiedWildcard(kind, _) => {
                    let (schema, q) = match kind {
                        A::SelectItemQualifiedWildcardKind::ObjectName(n) => split_name(n)?,
                        A::SelectItemQualifiedWildcardKind::Expr(_) => {
                            return Err(Error::feature_not_supported("this wildcard"));
                        }
                    };
                    let before = items.len();
                    for (i, c) in scope.columns.iter().enumerate() {
                        if c.is_qualified_by(schema.as_deref(), &q) {
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
        Ok(items)
    }

    pub(super) fn bind_select(
        &mut self,
        parts: SelectParts,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        let s = parts.select;
        if s.into.is_some() {
            return Err(Error::feature_not_supported("SELECT INTO"));
        }
        if s.qualify.is_some() {
            return Err(Error::feature_not_supported("QUALIFY"));
        }
        let keep_unknown = std::mem::take(&mut self.unknown_outputs_ok) && s.distinct.is_none();
        let (mut plan, scope) = self.bind_from(&s.from)?;
        let items = self.select_items(s, &scope)?;

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
        // whether this is an aggregate query. Window functions: select list and ORDER
        // BY only.
        self.aggs.clear();
        self.agg_allowed = true;
        self.windows.clear();
        self.named_windows = s.named_window.clone();
        self.window_forbidden = None;
        self.srfs.clear();
        self.srf_rel = None;
        self.srf_forbidden = None;
        let mut outputs: Vec<Expr> = Vec::with_capacity(items.len());
        let mut columns: Vec<OutputColumn> = Vec::with_capacity(items.len());
        for (ast, name, wildcard) in &items {
            let e = match (ast, wildcard) {
                (_, Some(i)) => scope.columns[*i].expr.clone(),
                (Some(a), None) => self.bind_expr(a, &scope)?,
                (None, None) => return Err(Error::internal("select item without expression")),
            };
            let e = if e.ty().ty == DataType::Unknown && !keep_unknown {
                self.coerce(e, TEXT)?
            } else {
                e
            };
            let origin = match &e {
                Expr::ColumnRef { id, .. } => self
                    .table_rels
                    .get(&id.rel)
                    .map(|&oid| (oid, id.col as i16 + 1)),
                _ => None,
            };
            columns.push(OutputColumn {
                name: name.clone(),
                ty: e.ty(),
                origin,
            });
            outputs.push(e);
        }
        // Set-returning functions only in the select list (PostgreSQL also allows them
        // in ORDER BY; kiln does not yet).
        self.srf_forbidden = Some("this context");
        // WHERE after the select list, in PostgreSQL's order (transformSelectStmt), so
        // the first error reported is the same.
        self.agg_allowed = false;
        self.window_forbidden = Some("WHERE");
        let filter = self.bind_where(s.selection.as_ref(), &scope)?;
        self.window_forbidden = None;
        self.agg_allowed = true;
        if let Some(f) = filter {
            if f.any(&|e| matches!(e, Expr::Agg { .. })) {
                return Err(Error::grouping(
                    "aggregate functions are not allowed in WHERE",
                ));
            }
            plan = LogicalPlan::Filter {
                input: Box::new(plan),
                predicate: f,
            };
        }
        self.window_forbidden = Some("HAVING");
        let having = match &s.having {
            Some(h) => {
                let b = self.bind_expr(h, &scope)?;
                let checked = self.require_bool(b, "HAVING");
                Some(checked.map_err(|err| self.locate(err, h))?)
            }
            None => None,
        };
        self.window_forbidden = None;
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
        // DISTINCT ON items, resolved as ORDER BY items are.
        let mut distinct_on: Vec<OrderTarget> = Vec::new();
        if let Some(A::Distinct::On(exprs)) = &s.distinct {
            for e in exprs {
                let target = match e {
                    A::Expr::Value(v) if matches!(v.value, A::Value::Number(..)) => {
                        let A::Value::Number(n, _) = &v.value else {
                            unreachable!()
                        };
                        OrderTarget::Output(position_column_named(
                            n,
                            outputs.len(),
                            "SELECT DISTINCT ON",
                        )?)
                    }
                    A::Expr::Identifier(id)
                        if matches!(output_name_match(&columns, &ident_name(id)), Some(Ok(_))) =>
                    {
                        match output_name_match(&columns, &ident_name(id)) {
                            Some(Ok(i)) => OrderTarget::Output(i),
                            _ => unreachable!(),
                        }
                    }
                    e => OrderTarget::Expr(self.bind_expr(e, &scope)?),
                };
                distinct_on.push(target);
            }
        }
        self.agg_allowed = false;
        self.window_forbidden = Some("GROUP BY");

        let is_aggregate = !group_exprs.is_empty() || !self.aggs.is_empty() || having.is_some();
        if is_aggregate {
            let (group_by, sets) = self.group_by_sets(&group_exprs, &outputs, &columns, &scope)?;
            // PostgreSQL groups by a set-returning function's rows; kiln evaluates them
            // after grouping only.
            if let Some(srf) = self.srf_rel {
                let mut reads = false;
                for g in &group_by {
                    g.column_refs(&mut |id, _| reads |= id.rel == srf);
                }
                if reads {
                    return Err(Error::feature_not_supported(
                        "set-returning functions in GROUP BY",
                    ));
                }
            }
            let aggs = std::mem::take(&mut self.aggs);
            let grouping = Grouping::new(self.new_rel(), &group_by, &scope);
            for e in outputs.iter_mut() {
                *e = grouping.rewrite(e.clone())?;
            }
            let having = having.map(|h| grouping.rewrite(h)).transpose()?;
            for (target, _) in order_items.iter_mut() {
                if let OrderTarget::Expr(e) = target {
                    *e = grouping.rewrite(e.clone())?;
                }
            }
            for target in distinct_on.iter_mut() {
                if let OrderTarget::Expr(e) = target {
                    *e = grouping.rewrite(e.clone())?;
                }
            }
            let mut windows = std::mem::take(&mut self.windows);
            for call in windows.iter_mut() {
                let mut failure = None;
                call.exprs_mut(&mut |x| {
                    if failure.is_none() {
                        match grouping.rewrite(x.clone()) {
                            Ok(r) => *x = r,
                            Err(err) => failure = Some(err),
                        }
                    }
                });
                if let Some(err) = failure {
                    return Err(err);
                }
            }
            self.windows = windows;
            let mut srfs = std::mem::take(&mut self.srfs);
            for x in srfs.iter_mut().flat_map(|c| c.args.iter_mut()) {
                *x = grouping.rewrite(x.clone())?;
            }
            self.srfs = srfs;
            let grouping_rel = grouping.rel;
            plan = self.grouped_plan(plan, group_by.clone(), sets, aggs, grouping_rel)?;
            if let Some(h) = having {
                plan = LogicalPlan::Filter {
                    input: Box::new(plan),
                    predicate: h,
                };
            }
        } else {
            self.aggs.clear();
        }

        self.window_forbidden = Some("this context");
        // Window functions over the (grouped) rows.
        if !self.windows.is_empty() {
            let calls = std::mem::take(&mut self.windows);
            let wrel = self.new_rel();
            let refs: Vec<Expr> = calls
                .iter()
                .enumerate()
                .map(|(i, c)| Expr::ColumnRef {
                    id: ColumnId::new(wrel, i as u32),
                    ty: c.ty,
                    name: String::new(),
                })
                .collect();
            for e in outputs.iter_mut() {
                replace_windows(e, &refs);
            }
            for (target, _) in order_items.iter_mut() {
                if let OrderTarget::Expr(e) = target {
                    replace_windows(e, &refs);
                }
            }
            for target in distinct_on.iter_mut() {
                if let OrderTarget::Expr(e) = target {
                    replace_windows(e, &refs);
                }
            }
            for e in self.srfs.iter_mut().flat_map(|c| c.args.iter_mut()) {
                replace_windows(e, &refs);
            }
            plan = LogicalPlan::Window {
                input: Box::new(plan),
                rel: wrel,
                calls,
            };
        }
        // Set-returning functions of the select list, over the (windowed) rows.
        if let Some(rel) = self.srf_rel.take() {
            plan = LogicalPlan::ProjectSet {
                input: Box::new(plan),
                rel,
                calls: std::mem::take(&mut self.srfs),
            };
        }

        // Projection with hidden sort keys.
        let visible = outputs.len();
        let mut key_columns = Vec::new();
        let mut project = outputs;
        let plain_distinct = matches!(s.distinct, Some(A::Distinct::Distinct));
        for (target, options) in order_items {
            let column = match target {
                OrderTarget::Output(i) => i,
                OrderTarget::Expr(e) => match project.iter().position(|p| *p == e) {
                    Some(i) => i,
                    None => {
                        if plain_distinct {
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
            key_columns.push((column, options));
        }
        let mut distinct_columns: Vec<usize> = Vec::new();
        for target in distinct_on {
            let column = match target {
                OrderTarget::Output(i) => i,
                OrderTarget::Expr(e) => match project.iter().position(|p| *p == e) {
                    Some(i) => i,
                    None => {
                        project.push(e);
                        project.len() - 1
                    }
                },
            };
            if !distinct_columns.contains(&column) {
                distinct_columns.push(column);
            }
        }
        if !distinct_columns.is_empty() && !key_columns.is_empty() {
            // The leading ORDER BY keys must be the DISTINCT ON expressions.
            let leading: Vec<usize> = key_columns
                .iter()
                .take(distinct_columns.len())
                .map(|(c, _)| *c)
                .collect();
            if leading.len() < distinct_columns.len() && key_columns.len() < distinct_columns.len()
                || leading.iter().any(|c| !distinct_columns.contains(c))
            {
                return Err(Error::new(
                    "42P10",
                    "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
                ));
            }
        }
        let prel = self.new_rel();
        let project_types: Vec<SqlType> = project.iter().map(|e| e.ty()).collect();
        plan = LogicalPlan::Project {
            input: Box::new(plan),
            rel: prel,
            exprs: project,
        };
        let projected = |i: usize, name: String| Expr::ColumnRef {
            id: ColumnId::new(prel, i as u32),
            ty: project_types[i],
            name,
        };
        match &s.distinct {
            None | Some(A::Distinct::All) => {}
            Some(A::Distinct::Distinct) => {
                plan = LogicalPlan::Distinct {
                    input: Box::new(plan),
                }
            }
            Some(A::Distinct::On(_)) => {}
        }
        let with_ties = self.query_ties && parts.limit.is_some();
        let (limit, offset) = self.bind_limit(parts.limit)?;
        if !key_columns.is_empty() {
            let keys = key_columns
                .iter()
                .map(|(c, options)| sort_expr(projected(*c, String::new()), options))
                .collect::<Result<Vec<_>>>()?;
            plan = LogicalPlan::Sort {
                input: Box::new(plan),
                keys,
            };
        }
        if !distinct_columns.is_empty() {
            // DISTINCT ON keeps each key's first row in the sorted order.
            plan = LogicalPlan::DistinctOn {
                input: Box::new(plan),
                keys: distinct_columns
                    .iter()
                    .map(|&c| projected(c, String::new()))
                    .collect(),
            };
        }
        if limit.is_some() || offset.is_some() || with_ties {
            let ties = if with_ties {
                key_columns
                    .iter()
                    .map(|(c, _)| projected(*c, String::new()))
                    .collect()
            } else {
                Vec::new()
            };
            plan = LogicalPlan::Limit {
                input: Box::new(plan),
                limit,
                offset,
                ties,
            };
        }
        if project_types.len() > visible {
            let exprs = (0..visible)
                .map(|i| projected(i, columns[i].name.clone()))
                .collect();
            plan = LogicalPlan::Project {
                input: Box::new(plan),
                rel: self.new_rel(),
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
                    if b.any(&|x| matches!(x, Expr::ColumnRef { .. })) {
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
}

/// `FETCH FIRST n ROWS ONLY` is the standard spelling of `LIMIT n` (a missing count is 1).
fn fetch_as_limit(q: &A::Query, fetch: &A::Fetch) -> Result<A::Query> {
    if fetch.percent {
        return Err(Error::syntax("syntax error at or near \"PERCENT\""));
    }
    let offset = match &q.limit_clause {
        None => None,
        Some(A::LimitClause::LimitOffset {
            limit: None,
            offset,
            limit_by,
        }) if limit_by.is_empty() => offset.clone(),
        Some(_) => return Err(Error::syntax("multiple LIMIT clauses not allowed")),
    };
    let one = || A::Expr::value(A::Value::Number("1".into(), false));
    let mut q = q.clone();
    q.fetch = None;
    q.limit_clause = Some(A::LimitClause::LimitOffset {
        limit: Some(fetch.quantity.clone().unwrap_or_else(one)),
        offset,
        limit_by: Vec::new(),
    });
    Ok(q)
}
