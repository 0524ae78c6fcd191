//! Set operations (UNION / INTERSECT / EXCEPT [ALL]) and WITH queries.
//!
//! A set operation's column types are resolved pairwise, left to right, as PostgreSQL's
//! `select_common_type` does: untyped literals in a branch stay untyped until the pair
//! is resolved (`SELECT 1 UNION SELECT '2'` is integer), and a pair without a common
//! type is `42804`. Output names come from the leftmost branch. ORDER BY over a set
//! operation may name only output columns (by name or position).
//!
//! A WITH query is bound once, where it is defined; each reference in FROM becomes a
//! scan of it. Afterwards a query referenced once (and not MATERIALIZED) is put back in
//! place of its scan — PostgreSQL inlines such CTEs too — and the others are
//! materialized: computed by their first scan, read by all. WITH RECURSIVE binds the
//! anchor first, which fixes the column types, then the recursive term, in which the
//! CTE's name reads the previous step's rows (a work table).

use super::*;
use crate::sql::parse::SearchCycle;

/// How a WITH query's name resolves while it is being bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CteState {
    Ready,
    /// Binding a recursive CTE's anchor: a reference is an error (42P19).
    Anchor,
    /// Binding its recursive term: a reference reads the work table.
    Recursive,
    /// A WITH RECURSIVE query that is not a UNION: a reference is an error (42P19).
    NotUnion,
}

pub(super) struct CteBinding {
    name: String,
    id: u32,
    columns: Vec<OutputColumn>,
    plan: Option<LogicalPlan>,
    state: CteState,
    /// The relation of each scan of it.
    scans: usize,
    /// References to the work table, and the query nesting they must be at.
    self_refs: usize,
    level: usize,
    materialized: Option<bool>,
    recursive: bool,
}

/// What a FROM reference to a WITH query becomes.
pub(super) struct CteRef {
    pub(super) plan: LogicalPlan,
    pub(super) columns: Vec<OutputColumn>,
}

impl Binder<'_> {
    /// `WITH … query`.
    pub(super) fn bind_with(
        &mut self,
        with: &A::With,
        q: &A::Query,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        self.cte_scopes.push(Vec::new());
        let result = self.bind_with_inner(with, q);
        let bindings = self.cte_scopes.pop().unwrap_or_default();
        let (plan, columns) = result?;
        Ok((attach_ctes(plan, bindings)?, columns))
    }

    fn bind_with_inner(
        &mut self,
        with: &A::With,
        q: &A::Query,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        self.bind_cte_list(with)?;
        self.bind_query_body(q)
    }

    /// `WITH … INSERT / UPDATE / DELETE`: the WITH queries are in scope for the whole
    /// statement and attach to the plan that produces its rows when that plan is
    /// finished ([`Binder::attach_statement_ctes`]).
    pub(super) fn bind_dml_with(
        &mut self,
        with: &A::With,
        stmt: &A::Statement,
    ) -> Result<BoundStatement> {
        self.cte_scopes.push(Vec::new());
        let depth = self.cte_scopes.len();
        self.statement_ctes = Some(depth);
        let result = self.bind_cte_list(with).and_then(|()| match stmt {
            A::Statement::Insert(insert) => self.bind_insert(insert),
            A::Statement::Update(update) => self.bind_update(update),
            A::Statement::Delete(delete) => self.bind_delete(delete),
            A::Statement::Merge(merge) => self.bind_merge(merge),
            _ => Err(Error::feature_not_supported("this statement after WITH")),
        });
        // Left unattached on an error (or a plan that never read them).
        if self.statement_ctes.take().is_some() && self.cte_scopes.len() == depth {
            self.cte_scopes.pop();
        }
        result
    }

    /// Wraps a DML statement's row source in its WITH queries (see `bind_dml_with`);
    /// any other plan is returned as it is.
    pub(super) fn attach_statement_ctes(&mut self, plan: LogicalPlan) -> Result<LogicalPlan> {
        if self.statement_ctes.is_none() || self.statement_ctes != Some(self.cte_scopes.len()) {
            return Ok(plan);
        }
        self.statement_ctes = None;
        let bindings = self.cte_scopes.pop().unwrap_or_default();
        attach_ctes(plan, bindings)
    }

    fn bind_cte_list(&mut self, with: &A::With) -> Result<()> {
        for cte in &with.cte_tables {
            let name = ident_name(&cte.alias.name);
            let duplicate = self
                .cte_scopes
                .last()
                .is_some_and(|s| s.iter().any(|b| b.name == name));
            if duplicate {
                return Err(Error::new(
                    "42712",
                    format!("WITH query name \"{name}\" specified more than once"),
                ));
            }
            if cte.from.is_some() {
                return Err(Error::feature_not_supported("WITH … FROM"));
            }
            let id = self.new_rel();
            let materialized = cte
                .materialized
                .as_ref()
                .map(|m| matches!(m, A::CteAsMaterialized::Materialized));
            let binding = CteBinding {
                name: name.clone(),
                id,
                columns: Vec::new(),
                plan: None,
                state: CteState::Ready,
                scans: 0,
                self_refs: 0,
                level: 0,
                materialized,
                recursive: false,
            };
            let union = matches!(
                cte.query.body.as_ref(),
                A::SetExpr::SetOperation {
                    op: A::SetOperator::Union,
                    ..
                }
            );
            // Under WITH RECURSIVE a query that never names itself is an ordinary CTE.
            let recursive = with.recursive && names_relation(&cte.query, &name);
            let clause = self.search_cycle_clause(cte);
            if clause.is_some() && !(recursive && union) {
                let err = Error::syntax("WITH query is not recursive");
                return Err(self.with_span(err, cte.alias.name.span));
            }
            if recursive && union {
                self.push_cte(binding);
                self.bind_recursive_cte(cte, &name, clause.as_ref())?;
            } else if recursive {
                self.push_cte(CteBinding {
                    state: CteState::NotUnion,
                    ..binding
                });
                let bound = self.bind_subquery_block(&cte.query);
                let (plan, columns) = bound?;
                let columns = renamed(columns, &cte.alias, &name)?;
                if let Some(b) = self.cte_mut(&name) {
                    b.plan = Some(plan);
                    b.columns = columns;
                    b.state = CteState::Ready;
                }
            } else {
                let (plan, columns) = self.bind_subquery_block(&cte.query)?;
                let columns = renamed(columns, &cte.alias, &name)?;
                let mut binding = binding;
                binding.plan = Some(plan);
                binding.columns = columns;
                self.push_cte(binding);
            }
        }
        Ok(())
    }

    fn push_cte(&mut self, binding: CteBinding) {
        if let Some(scope) = self.cte_scopes.last_mut() {
            scope.push(binding);
        }
    }

    fn cte_mut(&mut self, name: &str) -> Option<&mut CteBinding> {
        self.cte_scopes
            .iter_mut()
            .rev()
            .find_map(|s| s.iter_mut().find(|b| b.name == name))
    }

    /// The SEARCH / CYCLE clauses written after this WITH query, if any.
    fn search_cycle_clause(&self, cte: &A::Cte) -> Option<SearchCycle> {
        if !crate::sql::parse::mentions(self.text, "search")
            && !crate::sql::parse::mentions(self.text, "cycle")
        {
            return None;
        }
        let paren =
            crate::sql::parse::byte_offset(self.text, cte.closing_paren_token.0.span.start)?;
        crate::sql::parse::search_cycle_clauses(self.text)
            .into_iter()
            .find(|c| c.paren == paren)
    }

    fn bind_recursive_cte(
        &mut self,
        cte: &A::Cte,
        name: &str,
        clause: Option<&SearchCycle>,
    ) -> Result<()> {
        let A::SetExpr::SetOperation {
            left,
            right,
            set_quantifier,
            ..
        } = cte.query.body.as_ref()
        else {
            return Err(Error::internal("recursive CTE without UNION"));
        };
        if cte.query.order_by.is_some() {
            return Err(Error::feature_not_supported(
                "ORDER BY in a recursive query",
            ));
        }
        if cte.query.limit_clause.is_some() {
            return Err(Error::feature_not_supported(
                "OFFSET/LIMIT in a recursive query",
            ));
        }
        let all = set_all(set_quantifier)?;
        if let Some(b) = self.cte_mut(name) {
            b.state = CteState::Anchor;
        }
        let saved = self.enter_query_level();
        let anchor = self.bind_set_branch(left);
        self.leave_query_level(saved);
        let (anchor, acols) = anchor?;
        let acols = renamed(acols, &cte.alias, name)?;
        // The anchor's types are the CTE's (an untyped literal is text).
        let types: Vec<SqlType> = acols
            .iter()
            .map(|c| {
                if c.ty.ty == DataType::Unknown {
                    TEXT
                } else {
                    c.ty
                }
            })
            .collect();
        let anchor = self.cast_outputs(anchor, &acols, &types)?;
        let columns: Vec<OutputColumn> = acols
            .iter()
            .zip(&types)
            .map(|(c, t)| OutputColumn {
                name: c.name.clone(),
                ty: *t,
                origin: None,
            })
            .collect();
        let user_columns = columns.len();
        let extra = match clause {
            Some(c) => self.search_cycle_columns(c, &columns).map_err(|e| {
                // PostgreSQL points at the clause (not at a name it found ambiguous).
                if matches!(e.code, "42601" | "42701") && e.position.is_none() {
                    let at = self.text.get(..c.range.0).map_or(0, |t| t.chars().count());
                    e.with_position(at as u32 + 1)
                } else {
                    e
                }
            })?,
            None => Vec::new(),
        };
        let mut types = types;
        types.extend(extra.iter().map(|c| c.ty));
        let columns: Vec<OutputColumn> = columns.into_iter().chain(extra.clone()).collect();
        let level = self.outer_scopes.len();
        if let Some(b) = self.cte_mut(name) {
            b.state = CteState::Recursive;
            b.columns = columns.clone();
            b.level = level;
        }
        let saved = self.enter_query_level();
        let recursive = self.bind_set_branch(right);
        self.leave_query_level(saved);
        let (recursive, rcols) = recursive?;
        let mut aggregates = false;
        recursive.walk(&mut |p| aggregates |= matches!(p, LogicalPlan::Aggregate { .. }));
        if aggregates && reads_work_table(&recursive) {
            return Err(Error::new(
                "42P19",
                "aggregate functions are not allowed in a recursive query's recursive term",
            ));
        }
        if rcols.len() != user_columns {
            return Err(Error::syntax(
                "each UNION query must have the same number of columns",
            ));
        }
        let (anchor, recursive, rcols) = match clause {
            Some(c) => {
                let id = self.cte_mut(name).map_or(0, |b| b.id);
                self.add_search_cycle(c, &columns, &types, anchor, recursive, rcols, id)?
            }
            None => (anchor, recursive, rcols),
        };
        for (i, (c, r)) in columns.iter().zip(&rcols).enumerate() {
            let a = Expr::literal(Value::Null, c.ty);
            let b = Expr::literal(Value::Null, r.ty);
            let common = common_type(&[&a, &b], "UNION")?;
            if common.ty != c.ty.ty {
                return Err(Error::datatype_mismatch(format!(
                    "recursive query \"{name}\" column {} has type {} in non-recursive term but type {} overall",
                    i + 1,
                    c.ty.display_name(),
                    common.display_name()
                ))
                .with_hint("Cast the output of the non-recursive term to the correct type."));
            }
        }
        let recursive = self.cast_outputs(recursive, &rcols, &types)?;
        let rel = self.new_rel();
        let self_refs = self.cte_mut(name).map_or(0, |b| b.self_refs);
        let id = self.cte_mut(name).map_or(0, |b| b.id);
        let plan = if self_refs == 0 {
            LogicalPlan::SetOp {
                kind: SetOpKind::Union,
                all,
                left: Box::new(anchor),
                right: Box::new(recursive),
                rel,
                types,
            }
        } else {
            LogicalPlan::RecursiveCte {
                rel,
                id,
                name: name.to_string(),
                anchor: Box::new(anchor),
                recursive: Box::new(recursive),
                all,
                types,
            }
        };
        if let Some(b) = self.cte_mut(name) {
            b.state = CteState::Ready;
            b.recursive = self_refs > 0;
            b.plan = Some(plan);
        }
        Ok(())
    }

    /// The columns SEARCH and CYCLE add to a recursive WITH query: the search sequence
    /// column, then the cycle mark and path, with PostgreSQL's checks of the names.
    fn search_cycle_columns(
        &mut self,
        clause: &SearchCycle,
        columns: &[OutputColumn],
    ) -> Result<Vec<OutputColumn>> {
        let has = |n: &str| columns.iter().any(|c| c.name == n);
        let record = SqlType::new(DataType::Record);
        let records =
            SqlType::new(DataType::array_of(DataType::Record).unwrap_or(DataType::Record));
        let mut out = Vec::new();
        if let Some(s) = &clause.search {
            for (k, b) in s.by.iter().enumerate() {
                if !has(b) {
                    return Err(Error::syntax(format!(
                        "search column \"{b}\" not in WITH query column list"
                    )));
                }
                if s.by[..k].contains(b) {
                    return Err(Error::new(
                        "42701",
                        format!("search column \"{b}\" specified more than once"),
                    ));
                }
            }
            if has(&s.set) {
                return Err(Error::new(
                    "42702",
                    format!("column reference \"{}\" is ambiguous", s.set),
                ));
            }
            out.push(OutputColumn {
                name: s.set.clone(),
                ty: if s.breadth { record } else { records },
                origin: None,
            });
        }
        if let Some(c) = &clause.cycle {
            for (k, col) in c.columns.iter().enumerate() {
                if !has(col) {
                    return Err(Error::syntax(format!(
                        "cycle column \"{col}\" not in WITH query column list"
                    )));
                }
                if c.columns[..k].contains(col) {
                    return Err(Error::new(
                        "42701",
                        format!("cycle column \"{col}\" specified more than once"),
                    ));
                }
            }
            if c.set == c.using {
                return Err(Error::syntax(
                    "cycle mark column name and cycle path column name are the same",
                ));
            }
            if let Some(s) = &clause.search {
                if s.set == c.set {
                    return Err(Error::syntax(
                        "search sequence column name and cycle mark column name are the same",
                    ));
                }
                if s.set == c.using {
                    return Err(Error::syntax(
                        "search sequence column name and cycle path column name are the same",
                    ));
                }
            }
            for n in [&c.set, &c.using] {
                if has(n) {
                    return Err(Error::new(
                        "42702",
                        format!("column reference \"{n}\" is ambiguous"),
                    ));
                }
            }
            let (to, default) = self.cycle_marks(c)?;
            out.push(OutputColumn {
                name: c.set.clone(),
                ty: to.ty(),
                origin: None,
            });
            let _ = default;
            out.push(OutputColumn {
                name: c.using.clone(),
                ty: records,
                origin: None,
            });
        }
        Ok(out)
    }

    /// The CYCLE clause's mark values at their common type (true and false by default).
    fn cycle_marks(&mut self, c: &crate::sql::parse::CycleClause) -> Result<(Expr, Expr)> {
        let Some((to, default)) = &c.mark else {
            return Ok((Expr::literal_bool(true), Expr::literal_bool(false)));
        };
        let to = self.bind_value(to)?;
        let default = self.bind_value(default)?;
        let t = common_type(&[&to, &default], "CYCLE")?;
        let t = if t.ty == DataType::Unknown { TEXT } else { t };
        Ok((self.coerce(to, t)?, self.coerce(default, t)?))
    }

    /// Adds the SEARCH / CYCLE columns to the anchor (a projection over it) and to the
    /// recursive term's projection, which reads the parent row's values from the work
    /// table; CYCLE also stops the recursive term at rows already marked. PostgreSQL's
    /// rewriteSearchAndCycle, over kiln's logical plans.
    #[allow(clippy::too_many_arguments)]
    fn add_search_cycle(
        &mut self,
        clause: &SearchCycle,
        columns: &[OutputColumn],
        types: &[SqlType],
        anchor: LogicalPlan,
        recursive: LogicalPlan,
        rcols: Vec<OutputColumn>,
        cte_id: RelId,
    ) -> Result<(LogicalPlan, LogicalPlan, Vec<OutputColumn>)> {
        let user = rcols.len();
        let record = SqlType::new(DataType::Record);
        let records =
            SqlType::new(DataType::array_of(DataType::Record).unwrap_or(DataType::Record));
        let position = |n: &str| columns.iter().position(|c| c.name == n).unwrap_or(0);
        let row = |vals: Vec<Expr>| Expr::Func {
            func: Func::RowBuild,
            args: vals,
            ty: record,
        };
        // The anchor: its columns, then the new ones over them.
        let anchor_refs = output_refs(&anchor, &columns[..user]);
        let mut anchor_exprs = anchor_refs.clone();
        // The recursive term: its projection's values (at the CTE's types), and the
        // parent row's columns in the work table.
        let LogicalPlan::Project {
            input,
            rel: prel,
            exprs: mut rexprs,
        } = recursive
        else {
            return Err(Error::feature_not_supported(
                "SEARCH or CYCLE over this recursive term",
            ));
        };
        let mut new_vals = Vec::with_capacity(user);
        for (k, e) in rexprs.iter().enumerate() {
            let t = types[k];
            new_vals.push(if e.ty() == t {
                e.clone()
            } else {
                self.coerce(e.clone(), t)?
            });
        }
        let mut work: Option<RelId> = None;
        input.walk(&mut |p| {
            if let LogicalPlan::WorkTable { rel, id, .. } = p
                && *id == cte_id
            {
                work = Some(*rel);
            }
        });
        let Some(work) = work else {
            return Err(Error::feature_not_supported(
                "SEARCH or CYCLE over this recursive term",
            ));
        };
        let parent = |k: usize| Expr::ColumnRef {
            id: ColumnId::new(work, k as u32),
            ty: columns[k].ty,
            name: columns[k].name.clone(),
        };
        let mut extra_at = user;
        let mut input = *input;
        if let Some(s) = &clause.search {
            let keys_anchor: Vec<Expr> =
                s.by.iter()
                    .map(|b| anchor_refs[position(b)].clone())
                    .collect();
            let keys_new: Vec<Expr> = s.by.iter().map(|b| new_vals[position(b)].clone()).collect();
            if s.breadth {
                let int8 = SqlType::new(DataType::Int8);
                let mut first = vec![Expr::literal(Value::Int8(0), int8)];
                first.extend(keys_anchor);
                anchor_exprs.push(row(first));
                let depth = Expr::Func {
                    func: Func::RecordField(0),
                    args: vec![parent(extra_at)],
                    ty: int8,
                };
                let next =
                    self.bind_binary(BinaryOp::Add, depth, Expr::literal(Value::Int8(1), int8))?;
                let mut fields = vec![next];
                fields.extend(keys_new);
                rexprs.push(row(fields));
            } else {
                anchor_exprs.push(Expr::Func {
                    func: Func::ArrayBuild,
                    args: vec![row(keys_anchor)],
                    ty: records,
                });
                rexprs.push(Expr::Func {
                    func: Func::ArrayAppend,
                    args: vec![parent(extra_at), row(keys_new)],
                    ty: records,
                });
            }
            extra_at += 1;
        }
        if let Some(c) = &clause.cycle {
            let (to, default) = self.cycle_marks(c)?;
            let keys_anchor: Vec<Expr> = c
                .columns
                .iter()
                .map(|b| anchor_refs[position(b)].clone())
                .collect();
            let keys_new: Vec<Expr> = c
                .columns
                .iter()
                .map(|b| new_vals[position(b)].clone())
                .collect();
            let (mark_at, path_at) = (extra_at, extra_at + 1);
            anchor_exprs.push(default.clone());
            anchor_exprs.push(Expr::Func {
                func: Func::ArrayBuild,
                args: vec![row(keys_anchor)],
                ty: records,
            });
            let seen = Expr::Func {
                func: Func::ArrayAny(BinaryOp::Eq),
                args: vec![row(keys_new.clone()), parent(path_at)],
                ty: BOOL,
            };
            let mark_ty = to.ty();
            rexprs.push(Expr::Case {
                whens: vec![(seen, to.clone())],
                else_result: Some(Box::new(default)),
                ty: mark_ty,
            });
            rexprs.push(Expr::Func {
                func: Func::ArrayAppend,
                args: vec![parent(path_at), row(keys_new)],
                ty: records,
            });
            // A row already marked as a cycle has no children.
            let not_marked = self.bind_binary(BinaryOp::NotEq, parent(mark_at), to)?;
            input = LogicalPlan::Filter {
                input: Box::new(input),
                predicate: not_marked,
            };
        }
        let anchor = LogicalPlan::Project {
            input: Box::new(anchor),
            rel: self.new_rel(),
            exprs: anchor_exprs,
        };
        let recursive = LogicalPlan::Project {
            input: Box::new(input),
            rel: prel,
            exprs: rexprs,
        };
        let mut rcols = rcols;
        rcols.extend(columns[user..].iter().cloned());
        Ok((anchor, recursive, rcols))
    }

    /// A FROM reference to a WITH query named `name`, if one is in scope.
    pub(super) fn cte_reference(&mut self, name: &str) -> Option<Result<CteRef>> {
        let level = self.outer_scopes.len();
        let rel = self.next_rel;
        let binding = self.cte_mut(name)?;
        let types: Vec<SqlType> = binding.columns.iter().map(|c| c.ty).collect();
        let columns = binding.columns.clone();
        let result = match binding.state {
            CteState::Anchor => Err(Error::new(
                "42P19",
                format!(
                    "recursive reference to query \"{name}\" must not appear within its non-recursive term"
                ),
            )),
            CteState::NotUnion => Err(Error::new(
                "42P19",
                format!(
                    "recursive query \"{name}\" does not have the form non-recursive-term UNION [ALL] recursive-term"
                ),
            )),
            CteState::Recursive => {
                binding.self_refs += 1;
                if binding.self_refs > 1 {
                    Err(Error::new(
                        "42P19",
                        format!(
                            "recursive reference to query \"{name}\" must not appear more than once"
                        ),
                    ))
                } else if level != binding.level {
                    Err(Error::new(
                        "42P19",
                        format!(
                            "recursive reference to query \"{name}\" must not appear within a subquery"
                        ),
                    ))
                } else {
                    Ok(LogicalPlan::WorkTable {
                        rel,
                        id: binding.id,
                        name: name.to_string(),
                        types,
                    })
                }
            }
            CteState::Ready => {
                binding.scans += 1;
                Ok(LogicalPlan::CteScan {
                    rel,
                    id: binding.id,
                    name: name.to_string(),
                    types,
                })
            }
        };
        self.next_rel += 1;
        Some(result.map(|plan| CteRef { plan, columns }))
    }

    /// A query's body: a SELECT, VALUES or set operation with its ORDER BY and LIMIT.
    pub(super) fn bind_query_body(
        &mut self,
        q: &A::Query,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        match q.body.as_ref() {
            A::SetExpr::Select(select) => self.bind_select(SelectParts {
                select,
                order_by: q.order_by.as_ref(),
                limit: q.limit_clause.as_ref(),
            }),
            A::SetExpr::Values(values) => {
                let (plan, columns) = self.bind_values(values)?;
                self.finish_plain(
                    plan,
                    columns,
                    q.order_by.as_ref(),
                    q.limit_clause.as_ref(),
                    false,
                )
            }
            A::SetExpr::Query(inner) if q.order_by.is_none() && q.limit_clause.is_none() => {
                self.bind_query(inner)
            }
            A::SetExpr::Query(inner) => {
                let (plan, columns) = self.bind_query(inner)?;
                self.finish_plain(
                    plan,
                    columns,
                    q.order_by.as_ref(),
                    q.limit_clause.as_ref(),
                    false,
                )
            }
            body @ A::SetExpr::SetOperation { .. } => {
                let (plan, columns) = self.bind_set_expr(body)?;
                self.finish_plain(
                    plan,
                    columns,
                    q.order_by.as_ref(),
                    q.limit_clause.as_ref(),
                    true,
                )
            }
            A::SetExpr::Insert(_) | A::SetExpr::Update(_) | A::SetExpr::Delete(_) => Err(
                Error::feature_not_supported("INSERT, UPDATE or DELETE in WITH"),
            ),
            A::SetExpr::Merge(_) => Err(Error::new("0A000", "MERGE not supported in WITH query")),
            _ => Err(Error::feature_not_supported("this form of query")),
        }
    }

    fn bind_set_expr(&mut self, e: &A::SetExpr) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        let A::SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } = e
        else {
            return self.bind_set_branch(e);
        };
        let all = set_all(set_quantifier)?;
        let kind = match op {
            A::SetOperator::Union => SetOpKind::Union,
            A::SetOperator::Intersect => SetOpKind::Intersect,
            A::SetOperator::Except => SetOpKind::Except,
            A::SetOperator::Minus => {
                return Err(Error::syntax("syntax error at or near \"MINUS\""));
            }
        };
        let l = self.bind_set_branch(left)?;
        let r = self.bind_set_branch(right)?;
        self.combine_set_op(kind, all, l, r)
    }

    /// One input of a set operation: its untyped literals stay untyped for now.
    fn bind_set_branch(&mut self, e: &A::SetExpr) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        match e {
            A::SetExpr::SetOperation { .. } => self.bind_set_expr(e),
            A::SetExpr::Select(select) => {
                self.unknown_outputs_ok = true;
                let bound = self.bind_select(SelectParts {
                    select,
                    order_by: None,
                    limit: None,
                });
                self.unknown_outputs_ok = false;
                bound
            }
            A::SetExpr::Values(values) => self.bind_values(values),
            A::SetExpr::Query(q) => self.bind_query(q),
            _ => Err(Error::feature_not_supported("this set operation input")),
        }
    }

    fn combine_set_op(
        &mut self,
        kind: SetOpKind,
        all: bool,
        (lp, lc): (LogicalPlan, Vec<OutputColumn>),
        (rp, rc): (LogicalPlan, Vec<OutputColumn>),
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        let what = match kind {
            SetOpKind::Union => "UNION",
            SetOpKind::Intersect => "INTERSECT",
            SetOpKind::Except => "EXCEPT",
        };
        if lc.len() != rc.len() {
            return Err(Error::syntax(format!(
                "each {what} query must have the same number of columns"
            )));
        }
        let mut types = Vec::with_capacity(lc.len());
        for (l, r) in lc.iter().zip(&rc) {
            let a = Expr::literal(Value::Null, l.ty);
            let b = Expr::literal(Value::Null, r.ty);
            let t = common_type(&[&a, &b], what)?;
            types.push(if t.ty == DataType::Unknown { TEXT } else { t });
        }
        let lp = self.cast_outputs(lp, &lc, &types)?;
        let rp = self.cast_outputs(rp, &rc, &types)?;
        let columns = lc
            .iter()
            .zip(&types)
            .map(|(c, t)| OutputColumn {
                name: c.name.clone(),
                ty: *t,
                origin: None,
            })
            .collect();
        let plan = LogicalPlan::SetOp {
            kind,
            all,
            left: Box::new(lp),
            right: Box::new(rp),
            rel: self.new_rel(),
            types,
        };
        Ok((plan, columns))
    }

    /// `plan` with its output columns cast to `types` (a projection, when any differs).
    pub(super) fn cast_outputs(
        &mut self,
        plan: LogicalPlan,
        columns: &[OutputColumn],
        types: &[SqlType],
    ) -> Result<LogicalPlan> {
        if columns.iter().zip(types).all(|(c, t)| c.ty == *t) {
            return Ok(plan);
        }
        let refs = output_refs(&plan, columns);
        let mut exprs = Vec::with_capacity(refs.len());
        for (r, t) in refs.into_iter().zip(types) {
            exprs.push(if r.ty() == *t { r } else { self.coerce(r, *t)? });
        }
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            rel: self.new_rel(),
            exprs,
        })
    }
}

/// Whether `query` reads a relation called `name` (unqualified) anywhere inside it.
fn names_relation(query: &A::Query, name: &str) -> bool {
    let found = A::visit_relations(query, |rel| {
        let hit = matches!(rel.0.as_slice(), [part] if part.as_ident().is_some_and(|i| ident_name(i) == name));
        if hit {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    found.is_break()
}

/// Whether a plan reads a recursive CTE's work table.
pub(super) fn reads_work_table(plan: &LogicalPlan) -> bool {
    let mut found = false;
    plan.walk(&mut |p| found |= matches!(p, LogicalPlan::WorkTable { .. }));
    found
}

/// The name of the recursive CTE a plan reads the work table of.
pub(super) fn work_table_name(plan: &LogicalPlan) -> Option<String> {
    let mut found = None;
    plan.walk(&mut |p| {
        if let LogicalPlan::WorkTable { name, .. } = p {
            found = Some(name.clone());
        }
    });
    found
}

fn set_all(q: &A::SetQuantifier) -> Result<bool> {
    match q {
        A::SetQuantifier::All => Ok(true),
        A::SetQuantifier::Distinct | A::SetQuantifier::None => Ok(false),
        other => Err(Error::feature_not_supported(format!(
            "set operation {other}"
        ))),
    }
}

/// A WITH query's columns under its alias's column names.
fn renamed(
    mut columns: Vec<OutputColumn>,
    alias: &A::TableAlias,
    name: &str,
) -> Result<Vec<OutputColumn>> {
    if alias.columns.len() > columns.len() {
        return Err(Error::new(
            "42P10",
            format!(
                "WITH query \"{name}\" has {} columns available but {} columns specified",
                columns.len(),
                alias.columns.len()
            ),
        ));
    }
    for (c, a) in columns.iter_mut().zip(&alias.columns) {
        c.name = ident_name(&a.name);
    }
    Ok(columns)
}

/// Puts single-use WITH queries in place of their scan and wraps the rest around the
/// plan as materialized CTEs.
fn attach_ctes(mut plan: LogicalPlan, bindings: Vec<CteBinding>) -> Result<LogicalPlan> {
    let mut pending: Vec<CteBinding> = bindings;
    let mut defs = Vec::new();
    while !pending.is_empty() {
        let b = pending.remove(0);
        let Some(def) = b.plan else { continue };
        if b.scans == 0 {
            continue;
        }
        let inline = !b.recursive && b.scans == 1 && b.materialized != Some(true);
        if inline {
            let mut def = Some(def);
            replace_scan(&mut plan, b.id, &mut def);
            for later in pending.iter_mut() {
                if let Some(p) = later.plan.as_mut() {
                    replace_scan(p, b.id, &mut def);
                }
            }
            continue;
        }
        // One that reads the outer query is computed again for each outer row by the
        // scans in the query's own plan; a scan inside a subquery of an expression would
        // be planned as uncorrelated (run once) and keep the first row's result.
        if !def.free_rels().is_empty() {
            let mut direct = 0;
            let mut count = |p: &LogicalPlan| {
                if matches!(p, LogicalPlan::CteScan { id, .. } if *id == b.id) {
                    direct += 1;
                }
            };
            plan.walk(&mut count);
            for later in &pending {
                if let Some(p) = &later.plan {
                    p.walk(&mut count);
                }
            }
            if direct < b.scans {
                return Err(Error::feature_not_supported(
                    "a WITH query that reads the outer query, read inside a subquery",
                ));
            }
        }
        defs.push(CteDef {
            id: b.id,
            name: b.name,
            plan: def,
        });
    }
    if defs.is_empty() {
        return Ok(plan);
    }
    Ok(LogicalPlan::With {
        ctes: defs,
        input: Box::new(plan),
    })
}

/// Replaces the scan of WITH query `id` by the query itself (once: `def` is taken).
fn replace_scan(plan: &mut LogicalPlan, id: u32, def: &mut Option<LogicalPlan>) {
    if def.is_none() {
        return;
    }
    if let LogicalPlan::CteScan { rel, id: scan, .. } = plan
        && *scan == id
        && let Some(inner) = def.take()
    {
        let exprs = inner
            .output()
            .iter()
            .map(|c| Expr::ColumnRef {
                id: c.id,
                ty: c.ty,
                name: String::new(),
            })
            .collect();
        *plan = LogicalPlan::Project {
            input: Box::new(inner),
            rel: *rel,
            exprs,
        };
        return;
    }
    plan.exprs_mut(&mut |e| replace_in_expr(e, id, def));
    for input in plan.inputs_mut() {
        replace_scan(input, id, def);
    }
}

fn replace_in_expr(e: &mut Expr, id: u32, def: &mut Option<LogicalPlan>) {
    if let Expr::Subquery(sub) = e {
        replace_scan(&mut sub.plan, id, def);
    }
    e.children_mut(&mut |c| replace_in_expr(c, id, def));
}
