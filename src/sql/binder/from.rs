//! The FROM clause: tables, derived tables, VALUES, table functions and joins, and the
//! scope they make visible.
//!
//! Items of a comma list are joined by cross products (the optimizer turns WHERE
//! conditions into join conditions); `JOIN` trees keep their shape and kinds. Column
//! order is PostgreSQL's: left before right, and for `USING`/`NATURAL` the merged
//! columns first. A merged column is the left one for inner and left joins, the right
//! one for right joins and `COALESCE(left, right)` for full joins, each at the common
//! type of the two.

use super::*;

impl Binder<'_> {
    pub(super) fn bind_from(&mut self, from: &[A::TableWithJoins]) -> Result<(LogicalPlan, Scope)> {
        let Some((first, rest)) = from.split_first() else {
            let rel = self.new_rel();
            return Ok((
                LogicalPlan::Values {
                    rel,
                    rows: vec![vec![]],
                    types: vec![],
                },
                Scope::default(),
            ));
        };
        let (mut plan, mut scope) = self.bind_table_with_joins(first)?;
        for twj in rest {
            // A LATERAL item sees the items to its left.
            let saved = self.from_left.replace(scope.clone());
            let bound = self.bind_table_with_joins(twj);
            self.from_left = saved;
            let (right, rscope) = bound?;
            check_duplicate_aliases(&scope, &rscope)?;
            plan = cross(plan, right);
            scope.columns.extend(rscope.columns);
        }
        Ok((plan, scope))
    }

    /// A sequence read as a table: one row of its `last_value`, `log_cnt` and
    /// `is_called`, read when the statement runs (kiln logs no prefetched values, so
    /// log_cnt is 0).
    fn sequence_scan(
        &mut self,
        table: &Arc<TableEntry>,
        alias: Option<&A::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        let rel = self.new_rel();
        let oid = Expr::Literal {
            value: Value::Int8(i64::from(table.oid)),
            ty: SqlType::new(DataType::Int8),
        };
        let int8 = SqlType::new(DataType::Int8);
        let boolean = SqlType::new(DataType::Bool);
        let row = vec![
            Expr::Func {
                func: crate::sql::expr::Func::SequenceLastValue,
                args: vec![oid.clone()],
                ty: int8,
            },
            Expr::Literal {
                value: Value::Int8(0),
                ty: int8,
            },
            Expr::Func {
                func: crate::sql::expr::Func::SequenceIsCalled,
                args: vec![oid],
                ty: boolean,
            },
        ];
        let types = vec![int8, int8, boolean];
        let qualifier = alias.map_or_else(|| table.name.clone(), |a| ident_name(&a.name));
        let names = alias_names(
            alias,
            ["last_value", "log_cnt", "is_called"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            &qualifier,
        )?;
        let scope = Scope {
            columns: names
                .into_iter()
                .zip(&types)
                .enumerate()
                .map(|(i, (name, ty))| ScopeColumn {
                    schema: None,
                    qualifier: Some(qualifier.clone()),
                    expr: Expr::ColumnRef {
                        id: ColumnId::new(rel, i as u32),
                        ty: *ty,
                        name: name.clone(),
                    },
                    name,
                    hidden: false,
                })
                .collect(),
        };
        Ok((
            LogicalPlan::Values {
                rel,
                rows: vec![row],
                types,
            },
            scope,
        ))
    }

    fn bind_table_with_joins(&mut self, twj: &A::TableWithJoins) -> Result<(LogicalPlan, Scope)> {
        let (mut plan, mut scope) = self.bind_table_factor(&twj.relation)?;
        for join in &twj.joins {
            (plan, scope) = self.bind_join(plan, scope, join)?;
        }
        Ok((plan, scope))
    }

    fn bind_join(
        &mut self,
        left: LogicalPlan,
        lscope: Scope,
        join: &A::Join,
    ) -> Result<(LogicalPlan, Scope)> {
        use A::JoinOperator as J;
        let (kind, constraint) = match &join.join_operator {
            J::Join(c) | J::Inner(c) => (JoinKind::Inner, c),
            J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, c),
            J::Right(c) | J::RightOuter(c) => (JoinKind::Right, c),
            J::FullOuter(c) => (JoinKind::Full, c),
            J::CrossJoin(c) => (JoinKind::Inner, c),
            other => {
                return Err(Error::feature_not_supported(format!("join {other:?}")));
            }
        };
        if join.global {
            return Err(Error::feature_not_supported("GLOBAL JOIN"));
        }
        if matches!(constraint, A::JoinConstraint::None)
            && !matches!(join.join_operator, J::CrossJoin(_))
        {
            return Err(Error::syntax("syntax error at end of input"));
        }
        let saved = self.from_left.replace(lscope.clone());
        let bound = self.bind_table_factor(&join.relation);
        self.from_left = saved;
        let (right, rscope) = bound?;
        check_duplicate_aliases(&lscope, &rscope)?;
        if kind == JoinKind::Full || kind == JoinKind::Right {
            let mut lrels = BTreeSet::new();
            left.defined_rels(&mut lrels);
            if right.free_rels().iter().any(|r| lrels.contains(r)) {
                let what = if kind == JoinKind::Full {
                    "FULL"
                } else {
                    "RIGHT"
                };
                return Err(Error::new(
                    "42601",
                    format!(
                        "invalid reference to FROM-clause entry (a {what} JOIN cannot be LATERAL)"
                    ),
                )
                .with_hint(
                    "The combining JOIN type must be INNER or LEFT for a LATERAL reference.",
                ));
            }
        }
        let nullable: &[&LogicalPlan] = match kind {
            JoinKind::Left => &[&right],
            JoinKind::Right => &[&left],
            JoinKind::Full => &[&left, &right],
            _ => &[],
        };
        for side in nullable {
            if let Some(name) = work_table_name(side) {
                return Err(Error::new(
                    "42P19",
                    format!(
                        "recursive reference to query \"{name}\" must not appear within an outer join"
                    ),
                ));
            }
        }
        match constraint {
            A::JoinConstraint::None => {
                let mut scope = lscope;
                scope.columns.extend(rscope.columns);
                Ok((cross(left, right), scope))
            }
            A::JoinConstraint::On(on) => {
                let mut scope = lscope;
                scope.columns.extend(rscope.columns);
                let condition = self.bind_join_condition(on, &scope)?;
                let plan = LogicalPlan::Join {
                    left: Box::new(left),
                    right: Box::new(right),
                    kind,
                    on: condition,
                    mark: None,
                };
                Ok((plan, scope))
            }
            A::JoinConstraint::Using(names) => {
                let mut using = Vec::with_capacity(names.len());
                for n in names {
                    let name = object_name(n)?;
                    if using.contains(&name) {
                        return Err(Error::new(
                            "42701",
                            format!("column \"{name}\" appears more than once in USING clause"),
                        ));
                    }
                    using.push(name);
                }
                self.bind_using(left, lscope, right, rscope, kind, &using)
            }
            A::JoinConstraint::Natural => {
                let mut using: Vec<String> = Vec::new();
                for c in lscope.columns.iter().filter(|c| !c.hidden) {
                    let in_right = rscope.columns.iter().any(|r| !r.hidden && r.name == c.name);
                    if in_right && !using.contains(&c.name) {
                        using.push(c.name.clone());
                    }
                }
                self.bind_using(left, lscope, right, rscope, kind, &using)
            }
        }
    }

    fn bind_join_condition(&mut self, on: &A::Expr, scope: &Scope) -> Result<Expr> {
        let saved = std::mem::replace(&mut self.agg_allowed, false);
        let bound = self.bind_expr(on, scope);
        self.agg_allowed = saved;
        let bound = bound.map_err(|e| {
            if e.code == "42803" && e.message == "aggregate functions are not allowed here" {
                let mut g =
                    Error::grouping("aggregate functions are not allowed in JOIN conditions");
                g.position = e.position;
                g
            } else {
                e
            }
        })?;
        let checked = self.require_bool(bound, "JOIN/ON");
        checked.map_err(|err| self.locate(err, on))
    }

    /// `JOIN … USING (names)` (and NATURAL, with the common names).
    fn bind_using(
        &mut self,
        left: LogicalPlan,
        mut lscope: Scope,
        right: LogicalPlan,
        mut rscope: Scope,
        kind: JoinKind,
        using: &[String],
    ) -> Result<(LogicalPlan, Scope)> {
        let mut merged = Vec::with_capacity(using.len());
        let mut conditions = Vec::with_capacity(using.len());
        for name in using {
            let l = using_column(&lscope, name, "left")?;
            let r = using_column(&rscope, name, "right")?;
            let lexpr = lscope.columns[l].expr.clone();
            let rexpr = rscope.columns[r].expr.clone();
            let ty = common_type(&[&lexpr, &rexpr], "JOIN/USING")?;
            let ty = if ty.ty == DataType::Unknown { TEXT } else { ty };
            let lcast = self.coerce(lexpr, ty)?;
            let rcast = self.coerce(rexpr, ty)?;
            conditions.push(self.bind_binary(BinaryOp::Eq, lcast.clone(), rcast.clone())?);
            let value = match kind {
                JoinKind::Right => rcast,
                JoinKind::Full => Expr::Func {
                    func: Func::Coalesce,
                    args: vec![lcast, rcast],
                    ty,
                },
                _ => lcast,
            };
            lscope.columns[l].hidden = true;
            rscope.columns[r].hidden = true;
            merged.push(ScopeColumn {
                schema: None,
                qualifier: None,
                name: name.clone(),
                expr: value,
                hidden: false,
            });
        }
        let on = Expr::and_all(conditions).unwrap_or_else(|| Expr::literal_bool(true));
        let plan = LogicalPlan::Join {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            on,
            mark: None,
        };
        merged.extend(lscope.columns);
        merged.extend(rscope.columns);
        Ok((plan, Scope { columns: merged }))
    }

    pub(super) fn bind_table_factor(
        &mut self,
        factor: &A::TableFactor,
    ) -> Result<(LogicalPlan, Scope)> {
        match factor {
            A::TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => {
                if let [A::ObjectNamePart::Identifier(id)] = name.0.as_slice()
                    && let Some(cte) = self.cte_reference(&ident_name(id))
                {
                    return self.cte_scope(cte?, &ident_name(id), alias.as_ref());
                }
                let table = match self.find_relation(name)? {
                    Some(Found::System(system)) => {
                        return self.system_scan(system, alias.as_ref());
                    }
                    Some(Found::Relation(t)) => {
                        if !self.tables.iter().any(|seen| Arc::ptr_eq(seen, &t)) {
                            self.tables.push(t.clone());
                        }
                        t
                    }
                    None => return Err(Error::undefined_table(&display_name(name))),
                };
                self.need(&table, crate::catalog::acl::Privs::SELECT);
                if table.sequence.is_some() {
                    return self.sequence_scan(&table, alias.as_ref());
                }
                if table.view.is_some() {
                    let (plan, columns) = self.bind_view(&table)?;
                    let qualifier = alias
                        .as_ref()
                        .map_or_else(|| table.name.clone(), |a| ident_name(&a.name));
                    let names = alias_names(
                        alias.as_ref(),
                        columns.iter().map(|c| c.name.clone()).collect(),
                        &qualifier,
                    )?;
                    let scope = Scope {
                        columns: plan
                            .output()
                            .iter()
                            .zip(names)
                            .map(|(c, name)| ScopeColumn {
                                schema: None,
                                qualifier: Some(qualifier.clone()),
                                expr: Expr::ColumnRef {
                                    id: c.id,
                                    ty: c.ty,
                                    name: name.clone(),
                                },
                                name,
                                hidden: false,
                            })
                            .collect(),
                    };
                    return Ok((plan, scope));
                }
                let rel = self.new_rel();
                self.table_rels.insert(rel, table.oid);
                let qualifier = match alias {
                    Some(a) => ident_name(&a.name),
                    None => table.name.clone(),
                };
                let schema = match alias {
                    Some(_) => None,
                    None => self
                        .catalog
                        .namespace_by_oid(table.namespace, &self.snapshot)
                        .map(|n| n.name.clone()),
                };
                let names = alias_names(
                    alias.as_ref(),
                    table.columns.iter().map(|c| c.name.clone()).collect(),
                    &qualifier,
                )?;
                let scope = Scope {
                    columns: table
                        .columns
                        .iter()
                        .zip(names)
                        .enumerate()
                        .map(|(i, (c, name))| ScopeColumn {
                            schema: schema.clone(),
                            qualifier: Some(qualifier.clone()),
                            name,
                            expr: Expr::ColumnRef {
                                id: ColumnId::new(rel, i as u32),
                                ty: c.ty,
                                name: c.name.clone(),
                            },
                            hidden: false,
                        })
                        .collect(),
                };
                let columns = (0..table.columns.len() as u32).collect();
                Ok((
                    LogicalPlan::Get {
                        rel,
                        table,
                        alias: qualifier,
                        columns,
                        row_id: false,
                        filter: None,
                    },
                    scope,
                ))
            }
            A::TableFactor::Table {
                name,
                alias,
                args: Some(args),
                with_ordinality,
                ..
            } => self.lateral(|me| {
                me.bind_table_function(name, alias.as_ref(), &args.args, *with_ordinality)
            }),
            A::TableFactor::Function {
                name,
                args,
                with_ordinality,
                alias,
                ..
            } => self
                .lateral(|me| me.bind_table_function(name, alias.as_ref(), args, *with_ordinality)),
            A::TableFactor::UNNEST {
                alias,
                array_exprs,
                with_offset: false,
                with_ordinality,
                ..
            } => {
                let ordinality = *with_ordinality;
                self.lateral(|me| {
                    let empty = Scope::default();
                    let mut bound = Vec::new();
                    for e in array_exprs {
                        bound.push(me.bind_expr(e, &empty)?);
                    }
                    me.bind_unnest(alias.as_ref(), bound, ordinality)
                })
            }
            A::TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                let Some(alias) = alias else {
                    return Err(Error::syntax("subquery in FROM must have an alias")
                        .with_hint("For example, FROM (SELECT ...) [AS] foo."));
                };
                let (plan, columns) = if *lateral {
                    self.lateral(|me| me.bind_subquery_block(subquery))?
                } else {
                    self.bind_subquery_block(subquery)?
                };
                let qualifier = ident_name(&alias.name);
                let names = alias_names(
                    Some(alias),
                    columns.iter().map(|c| c.name.clone()).collect(),
                    &qualifier,
                )?;
                let out = plan.output();
                let scope = Scope {
                    columns: out
                        .iter()
                        .zip(names)
                        .map(|(c, name)| ScopeColumn {
                            schema: None,
                            qualifier: Some(qualifier.clone()),
                            expr: Expr::ColumnRef {
                                id: c.id,
                                ty: c.ty,
                                name: name.clone(),
                            },
                            name,
                            hidden: false,
                        })
                        .collect(),
                };
                Ok((plan, scope))
            }
            A::TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let (plan, mut scope) = self.bind_table_with_joins(table_with_joins)?;
                if let Some(a) = alias {
                    if !a.columns.is_empty() {
                        return Err(Error::feature_not_supported(
                            "column aliases on a parenthesized join",
                        ));
                    }
                    // The alias hides the joined tables' names, and with them the
                    // columns USING merged away.
                    let q = ident_name(&a.name);
                    scope.columns.retain(|c| !c.hidden);
                    for c in scope.columns.iter_mut() {
                        c.qualifier = Some(q.clone());
                        c.schema = None;
                    }
                }
                Ok((plan, scope))
            }
            _ => Err(Error::feature_not_supported("this FROM item")),
        }
    }

    /// The scope of a FROM reference to a WITH query.
    fn cte_scope(
        &mut self,
        cte: CteRef,
        name: &str,
        alias: Option<&A::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        let qualifier = alias.map_or_else(|| name.to_string(), |a| ident_name(&a.name));
        let names = alias_names(
            alias,
            cte.columns.iter().map(|c| c.name.clone()).collect(),
            &qualifier,
        )?;
        let out = cte.plan.output();
        let scope = Scope {
            columns: out
                .iter()
                .zip(names)
                .map(|(c, name)| ScopeColumn {
                    schema: None,
                    qualifier: Some(qualifier.clone()),
                    expr: Expr::ColumnRef {
                        id: c.id,
                        ty: c.ty,
                        name: name.clone(),
                    },
                    name,
                    hidden: false,
                })
                .collect(),
        };
        Ok((cte.plan, scope))
    }

    /// A query in FROM (or another nested position): bound as its own query level,
    /// seeing the enclosing queries' scopes but not its FROM siblings.
    pub(super) fn bind_subquery_block(
        &mut self,
        q: &A::Query,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        let saved = self.enter_query_level();
        let result = self.bind_query(q);
        self.leave_query_level(saved);
        result
    }

    /// Binds a LATERAL FROM item (a LATERAL subquery, a function call): the items to
    /// its left are visible, as an enclosing query's would be.
    fn lateral<T>(&mut self, bind: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let Some(left) = self.from_left.take() else {
            return bind(self);
        };
        self.outer_scopes.push(left.clone());
        let bound = bind(self);
        self.outer_scopes.pop();
        self.from_left = Some(left);
        bound
    }

    /// A scan of system table `system` (or of a catalog function's rows).
    fn system_scan(
        &mut self,
        system: crate::catalog::system::SystemTable,
        alias: Option<&A::TableAlias>,
    ) -> Result<(LogicalPlan, Scope)> {
        let types = system.columns().into_iter().map(|c| c.1).collect();
        let names: Vec<String> = system
            .columns()
            .into_iter()
            .map(|c| c.0.to_string())
            .collect();
        let qualifier = alias.map_or_else(|| system.name().to_string(), |a| ident_name(&a.name));
        let (plan, mut scope) =
            self.table_function(TableFunc::System(system), Vec::new(), types, alias, false)?;
        let names = alias_names(alias, names, &qualifier)?;
        // Unaliased, the table is also `pg_catalog.pg_class.relname` (SQLAlchemy
        // qualifies its catalog columns so).
        let schema = match alias {
            Some(_) => None,
            None => self
                .catalog
                .namespace_by_oid(system.schema_oid(), &self.snapshot)
                .map(|n| n.name.clone()),
        };
        for (c, n) in scope.columns.iter_mut().zip(names) {
            if let Expr::ColumnRef { name, .. } = &mut c.expr {
                *name = n.clone();
            }
            c.name = n;
            c.schema.clone_from(&schema);
        }
        Ok((plan, scope))
    }

    fn bind_table_function(
        &mut self,
        name: &A::ObjectName,
        alias: Option<&A::TableAlias>,
        args: &[A::FunctionArg],
        ordinality: bool,
    ) -> Result<(LogicalPlan, Scope)> {
        let fname = object_name(name)?;
        if fname == "unnest" {
            let empty = Scope::default();
            let mut bound = Vec::new();
            for a in args {
                bound.push(self.bind_function_arg(a, &empty)?);
            }
            return self.bind_unnest(alias, bound, ordinality);
        }
        // A table that is no partition is its own only ancestor.
        if fname == "pg_partition_ancestors" && args.len() == 1 {
            let empty = Scope::default();
            let arg = self.bind_function_arg(&args[0], &empty)?;
            let oid = self.coerce(arg, SqlType::new(DataType::Oid))?;
            let array = Expr::Func {
                func: Func::ArrayBuild,
                args: vec![oid],
                ty: SqlType::new(DataType::array_of(DataType::Oid).unwrap_or(DataType::Text)),
            };
            return self.bind_unnest(alias, vec![array], ordinality);
        }
        if fname == "generate_subscripts" {
            let empty = Scope::default();
            let mut bound = Vec::new();
            for a in args {
                bound.push(self.bind_function_arg(a, &empty)?);
            }
            let args = self.subscripts_args(bound)?;
            return self.table_function(
                TableFunc::GenerateSeries,
                args,
                vec![INT4],
                alias,
                ordinality,
            );
        }
        if let Some(system) = crate::catalog::system::SystemTable::function(&fname)
            && args.is_empty()
            && !ordinality
        {
            return self.system_scan(system, alias);
        }
        if let Some((json, set)) = match fname.as_str() {
            "jsonb_to_record" => Some((false, false)),
            "jsonb_to_recordset" => Some((false, true)),
            "json_to_record" => Some((true, false)),
            "json_to_recordset" => Some((true, true)),
            _ => None,
        } {
            let empty = Scope::default();
            let mut bound = Vec::new();
            for a in args {
                bound.push(self.bind_function_arg(a, &empty)?);
            }
            return self.bind_json_to_record(json, set, bound, alias, ordinality);
        }
        if let Some(kind) = crate::plan::logical::SetFn::by_name(&fname) {
            let empty = Scope::default();
            let mut bound = Vec::new();
            match super::functions::named_arguments(&fname, args)? {
                Some(named) => {
                    for e in &named {
                        bound.push(self.bind_expr(e, &empty)?);
                    }
                }
                None => {
                    for a in args {
                        bound.push(self.bind_function_arg(a, &empty)?);
                    }
                }
            }
            let args = self.set_fn_args(kind, bound)?;
            let columns = kind.columns();
            let types = columns.iter().map(|c| SqlType::new(c.1)).collect();
            let names = columns
                .iter()
                .map(|c| c.0.map(str::to_string))
                .collect::<Option<Vec<String>>>();
            return self.table_function_named(
                TableFunc::Set(kind),
                args,
                types,
                names,
                alias,
                ordinality,
            );
        }
        // A scalar function in FROM is a one-row relation of its value (PostgreSQL's
        // `FROM to_tsquery('cat') AS q`): the unnest of a one-element array of it.
        if fname != "generate_series" && crate::sql::functions::has_function(&fname) {
            let empty = Scope::default();
            let mut bound = Vec::new();
            for a in args {
                bound.push(self.bind_function_arg(a, &empty)?);
            }
            let value = self.bind_scalar_function(&fname, bound)?;
            let ty = value.ty();
            let Some(array) = DataType::array_of(ty.ty) else {
                return Err(Error::feature_not_supported(format!(
                    "function {fname} returning {} in FROM",
                    ty.display_name()
                )));
            };
            let array = Expr::Func {
                func: Func::ArrayBuild,
                args: vec![value],
                ty: SqlType::with_typmod(array, ty.typmod),
            };
            return self.table_function_named(
                TableFunc::Unnest,
                vec![array],
                vec![ty],
                Some(vec![fname.clone()]),
                alias,
                ordinality,
            );
        }
        if fname != "generate_series" && crate::sql::pg_functions::is_builtin(&fname) {
            return Err(Error::feature_not_supported(format!("function {fname}")));
        }
        if fname != "generate_series" {
            return Err(Error::undefined_function(format!(
                "function {fname} does not exist"
            )));
        }
        let empty = Scope::default();
        let mut bound = Vec::new();
        for a in args {
            bound.push(self.bind_function_arg(a, &empty)?);
        }
        let (args, ty) = self.series_args(bound)?;
        self.table_function(TableFunc::GenerateSeries, args, vec![ty], alias, ordinality)
    }

    /// The plan and scope of a set-returning function in FROM: columns named after the
    /// function (a one-column function after its alias too), renamed by the alias's
    /// column list; WITH ORDINALITY adds a bigint `ordinality`.
    fn table_function(
        &mut self,
        func: TableFunc,
        args: Vec<Expr>,
        types: Vec<SqlType>,
        alias: Option<&A::TableAlias>,
        ordinality: bool,
    ) -> Result<(LogicalPlan, Scope)> {
        self.table_function_named(func, args, types, None, alias, ordinality)
    }

    /// [`Binder::table_function`] of a function whose columns have names of their own
    /// (`names`: its OUT parameters', as jsonb_each's `key` and `value`).
    pub(super) fn table_function_named(
        &mut self,
        func: TableFunc,
        args: Vec<Expr>,
        mut types: Vec<SqlType>,
        names: Option<Vec<String>>,
        alias: Option<&A::TableAlias>,
        ordinality: bool,
    ) -> Result<(LogicalPlan, Scope)> {
        let qualifier = alias.map_or_else(|| func.name().to_string(), |a| ident_name(&a.name));
        let own = if types.len() == 1 {
            qualifier.clone()
        } else {
            func.name().to_string()
        };
        let scalar = types.len() == 1;
        let mut names = names.unwrap_or_else(|| vec![own; types.len()]);
        if ordinality {
            types.push(INT8);
            names.push("ordinality".into());
        }
        let names = alias_names(alias, names, &qualifier)?;
        let rel = self.new_rel();
        if scalar && !ordinality {
            self.scalar_function_rels.push(rel);
        }
        let scope = Scope {
            columns: types
                .iter()
                .zip(names)
                .enumerate()
                .map(|(i, (&ty, name))| ScopeColumn {
                    schema: None,
                    qualifier: Some(qualifier.clone()),
                    expr: Expr::ColumnRef {
                        id: ColumnId::new(rel, i as u32),
                        ty,
                        name: name.clone(),
                    },
                    name,
                    hidden: false,
                })
                .collect(),
        };
        Ok((
            LogicalPlan::Series {
                rel,
                func,
                args,
                types,
                ordinality,
            },
            scope,
        ))
    }

    /// generate_series's arguments at their common integer type, and that type.
    /// generate_subscripts(array, dim [, reverse]) as the generate_series it is: from
    /// array_lower to array_upper of dimension `dim` (downwards when reversed); no rows
    /// for a NULL array or a dimension it lacks.
    pub(super) fn subscripts_args(&mut self, bound: Vec<Expr>) -> Result<Vec<Expr>> {
        let signature = bound
            .iter()
            .map(|b| b.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        let missing = || {
            Error::undefined_function(format!(
                "function generate_subscripts({signature}) does not exist"
            ))
        };
        let mut it = bound.into_iter();
        let (Some(array), Some(dim)) = (it.next(), it.next()) else {
            return Err(missing());
        };
        let reverse = it.next();
        if it.next().is_some()
            || !array.ty().ty.is_array()
            || !dim.ty().ty.is_integer() && dim.ty().ty != DataType::Unknown
        {
            return Err(missing());
        }
        let dim = self.coerce(dim, INT4)?;
        let bound_of = |func: Func| Expr::Func {
            func,
            args: vec![array.clone(), dim.clone()],
            ty: INT4,
        };
        let (lower, upper) = (bound_of(Func::ArrayLower), bound_of(Func::ArrayUpper));
        let reverse = match reverse {
            None => false,
            Some(r) => match self.coerce(r, BOOL)? {
                Expr::Literal {
                    value: Value::Bool(b),
                    ..
                } => b,
                _ => {
                    return Err(Error::feature_not_supported(
                        "generate_subscripts with a computed reverse argument",
                    ));
                }
            },
        };
        Ok(if reverse {
            vec![upper, lower, Expr::literal(Value::Int4(-1), INT4)]
        } else {
            vec![lower, upper]
        })
    }

    pub(super) fn series_args(&mut self, bound: Vec<Expr>) -> Result<(Vec<Expr>, SqlType)> {
        if !(2..=3).contains(&bound.len()) {
            return Err(Error::undefined_function(
                "function generate_series does not exist",
            ));
        }
        let ty = {
            let refs: Vec<&Expr> = bound.iter().collect();
            let t = common_type(&refs, "generate_series")?;
            match t.ty {
                DataType::Int2 | DataType::Int4 | DataType::Unknown => INT4,
                DataType::Int8 => INT8,
                DataType::Numeric => {
                    return Err(Error::feature_not_supported("generate_series over numeric"));
                }
                DataType::Timestamp | DataType::Timestamptz => {
                    return Err(Error::feature_not_supported(
                        "generate_series over timestamps",
                    ));
                }
                _ => {
                    return Err(Error::undefined_function(format!(
                        "function generate_series({}) does not exist",
                        bound
                            .iter()
                            .map(|b| b.ty().display_name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
        };
        let args = bound
            .into_iter()
            .map(|b| self.coerce(b, ty))
            .collect::<Result<Vec<_>>>()?;
        Ok((args, ty))
    }

    /// `unnest(array, …)` in FROM: one column per array, of its element type.
    fn bind_unnest(
        &mut self,
        alias: Option<&A::TableAlias>,
        bound: Vec<Expr>,
        ordinality: bool,
    ) -> Result<(LogicalPlan, Scope)> {
        if bound.is_empty() {
            return Err(Error::undefined_function(
                "function unnest() does not exist",
            ));
        }
        if let [b] = bound.as_slice()
            && b.ty().ty == DataType::TsVector
        {
            let kind = crate::plan::logical::SetFn::TsUnnest;
            let columns = kind.columns();
            return self.table_function_named(
                TableFunc::Set(kind),
                bound,
                columns.iter().map(|c| SqlType::new(c.1)).collect(),
                columns.iter().map(|c| c.0.map(str::to_string)).collect(),
                alias,
                ordinality,
            );
        }
        let mut args = Vec::with_capacity(bound.len());
        let mut types = Vec::with_capacity(bound.len());
        for b in bound {
            let (arg, ty) = unnest_arg(vec![b])?;
            args.push(arg);
            types.push(ty);
        }
        self.table_function(TableFunc::Unnest, args, types, alias, ordinality)
    }
}

/// `unnest`'s one array argument and its element type.
pub(super) fn unnest_arg(mut bound: Vec<Expr>) -> Result<(Expr, SqlType)> {
    let arg = match bound.len() {
        1 => bound.remove(0),
        0 => {
            return Err(Error::undefined_function(
                "function unnest() does not exist",
            ));
        }
        _ => {
            // Several arrays are FROM's form only (a record-returning overload).
            let types: Vec<String> = bound.iter().map(|b| b.ty().display_name()).collect();
            return Err(Error::undefined_function(format!(
                "function unnest({}) does not exist",
                types.join(", ")
            )));
        }
    };
    let arg = match arg.ty().ty {
        DataType::Unknown => {
            return Err(Error::new("42725", "function unnest(unknown) is not unique")
                .with_hint(
                    "Could not choose a best candidate function. You might need to add explicit type casts.",
                ));
        }
        t if t.is_array() => arg,
        _ => {
            return Err(Error::undefined_function(format!(
                "function unnest({}) does not exist",
                arg.ty().display_name()
            )));
        }
    };
    let ty = SqlType::with_typmod(
        arg.ty().ty.elem().unwrap_or(DataType::Unknown),
        arg.ty().typmod,
    );
    Ok((arg, ty))
}

/// The cross product of two plans.
pub(super) fn cross(left: LogicalPlan, right: LogicalPlan) -> LogicalPlan {
    LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind: JoinKind::Inner,
        on: Expr::literal_bool(true),
        mark: None,
    }
}

/// The names of a FROM item's columns after its alias's column list.
fn alias_names(
    alias: Option<&A::TableAlias>,
    mut names: Vec<String>,
    qualifier: &str,
) -> Result<Vec<String>> {
    if let Some(a) = alias {
        if a.columns.len() > names.len() {
            return Err(Error::new(
                "42P10",
                format!(
                    "table \"{qualifier}\" has {} columns available but {} columns specified",
                    names.len(),
                    a.columns.len()
                ),
            ));
        }
        for (slot, c) in names.iter_mut().zip(&a.columns) {
            *slot = ident_name(&c.name);
        }
    }
    Ok(names)
}

/// Two FROM items of one level may not share a name (`42712`).
pub(super) fn check_duplicate_aliases(left: &Scope, right: &Scope) -> Result<()> {
    for r in &right.columns {
        // Two tables of one name from two schemas may both appear unaliased.
        if let Some(q) = &r.qualifier
            && left.columns.iter().any(|l| {
                l.qualifier.as_ref() == Some(q)
                    && !(l.schema.is_some() && r.schema.is_some() && l.schema != r.schema)
            })
        {
            return Err(Error::new(
                "42712",
                format!("table name \"{q}\" specified more than once"),
            ));
        }
    }
    Ok(())
}

/// The position of USING column `name` on one side (`42703`/`42702` as PostgreSQL).
fn using_column(scope: &Scope, name: &str, side: &str) -> Result<usize> {
    let mut found = None;
    for (i, c) in scope.columns.iter().enumerate() {
        if !c.hidden && c.name == name {
            if found.is_some() {
                return Err(Error::new(
                    "42702",
                    format!("common column name \"{name}\" appears more than once in {side} table"),
                ));
            }
            found = Some(i);
        }
    }
    found.ok_or_else(|| {
        Error::new(
            "42703",
            format!("column \"{name}\" specified in USING clause does not exist in {side} table"),
        )
    })
}
