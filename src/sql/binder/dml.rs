//! INSERT, UPDATE and DELETE.

use super::*;
use crate::catalog::acl::Privs;
use crate::plan::{Recheck, Returning};

/// Whether `e` reads a column of relation `rel`.
fn reads_rel(e: &Expr, rel: RelId) -> bool {
    e.any(&|x| matches!(x, Expr::ColumnRef { id, .. } if id.rel == rel))
}

impl Binder<'_> {
    pub(super) fn bind_insert(&mut self, insert: &A::Insert) -> Result<BoundStatement> {
        let name = match &insert.table {
            A::TableObject::TableName(n) => n,
            A::TableObject::TableFunction(_) | A::TableObject::TableQuery(_) => {
                return Err(Error::feature_not_supported("INSERT into this target"));
            }
        };
        let table = self.table(name)?;
        if table.sequence.is_some() {
            return Err(Error::new(
                "42809",
                format!("cannot change sequence \"{}\"", table.name),
            ));
        }
        self.need(&table, Privs::INSERT);
        if let Some(A::OnInsert::OnConflict(c)) = &insert.on
            && matches!(c.action, A::OnConflictAction::DoUpdate(_))
        {
            self.need(&table, Privs::UPDATE);
        }
        if table.view.is_some() {
            return Err(Error::feature_not_supported(format!(
                "INSERT into view \"{}\"",
                table.name
            )));
        }
        let alias = insert.table_alias.as_ref().map(|a| ident_name(&a.alias));
        let on_conflict = self.bind_on_conflict(insert.on.as_ref(), &table, alias.as_deref())?;
        // Target columns, in the order the statement lists them.
        let targets: Vec<usize> = if insert.columns.is_empty() {
            (0..table.columns.len()).collect()
        } else {
            let mut t = Vec::new();
            for c in &insert.columns {
                let cname = object_name(c)?;
                let i = table.column_index(&cname).ok_or_else(|| {
                    Error::undefined_column(&cname)
                        .with_detail(String::new())
                        .clone()
                });
                let i = i.map_err(|_| {
                    Error::new(
                        "42703",
                        format!(
                            "column \"{cname}\" of relation \"{}\" does not exist",
                            table.name
                        ),
                    )
                })?;
                if t.contains(&i) {
                    return Err(Error::new(
                        "42701",
                        format!("column \"{cname}\" specified more than once"),
                    ));
                }
                t.push(i);
            }
            t
        };
        let Some(source) = &insert.source else {
            // INSERT … DEFAULT VALUES
            let row = (0..table.columns.len())
                .map(|i| self.default_expr(&table, i))
                .collect::<Result<Vec<_>>>()?;
            let types = table.columns.iter().map(|c| c.ty).collect();
            let rel = self.new_rel();
            let source = self.finish_plan(LogicalPlan::Values {
                rel,
                rows: vec![row],
                types,
            })?;
            let returning = self.bind_returning(insert.returning.as_deref(), &table, alias)?;
            return Ok(BoundStatement::Insert {
                table,
                source,
                returning,
                on_conflict,
            });
        };
        let plan = match source.body.as_ref() {
            A::SetExpr::Values(values)
                if source.order_by.is_none() && source.limit_clause.is_none() =>
            {
                let scope = Scope::default();
                let width = values.rows.first().map_or(0, |r| r.len());
                if let Some(row) = values.rows.iter().find(|r| r.len() != width) {
                    let err = Error::syntax("VALUES lists must all be the same length");
                    return Err(match row.first() {
                        Some(first) => self.with_location(err, first.span().start),
                        None => err,
                    });
                }
                // Without a column list, the values fill the first columns (PostgreSQL's
                // transformInsertStmt); the rest take their defaults.
                let targets = if insert.columns.is_empty() {
                    &targets[..width.min(targets.len())]
                } else {
                    &targets[..]
                };
                let mut rows = Vec::with_capacity(values.rows.len());
                for row in &values.rows {
                    if row.len() > targets.len() {
                        let err = Error::syntax("INSERT has more expressions than target columns");
                        return Err(self.with_location(err, row[targets.len()].span().start));
                    }
                    if row.len() < targets.len() {
                        return Err(Error::syntax(
                            "INSERT has more target columns than expressions",
                        ));
                    }
                    let mut out: Vec<Option<Expr>> = vec![None; table.columns.len()];
                    for (e, &col) in row.iter().zip(targets) {
                        let bound = if is_default_keyword(e) {
                            self.default_expr(&table, col)?
                        } else {
                            refuse_identity_value(&table.columns[col])?;
                            let b = self.bind_expr(e, &scope)?;
                            let coerced = self.coerce_column(b, &table.columns[col]);
                            coerced.map_err(|err| self.locate(err, e))?
                        };
                        out[col] = Some(bound);
                    }
                    let full = out
                        .into_iter()
                        .enumerate()
                        .map(|(i, e)| match e {
                            Some(e) => Ok(e),
                            None => self.default_expr(&table, i),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    rows.push(full);
                }
                let types = table.columns.iter().map(|c| c.ty).collect();
                let rel = self.new_rel();
                LogicalPlan::Values { rel, rows, types }
            }
            _ => {
                // The query's untyped literals and NULLs take the target columns' types
                // (PostgreSQL leaves them unknown in an INSERT's select list).
                self.unknown_outputs_ok = true;
                let bound = self.bind_query(source);
                self.unknown_outputs_ok = false;
                let (plan, cols) = bound?;
                let targets = if insert.columns.is_empty() {
                    &targets[..cols.len().min(targets.len())]
                } else {
                    &targets[..]
                };
                if cols.len() > targets.len() {
                    return Err(Error::syntax(
                        "INSERT has more expressions than target columns",
                    ));
                }
                if cols.len() < targets.len() {
                    return Err(Error::syntax(
                        "INSERT has more target columns than expressions",
                    ));
                }
                for &t in targets {
                    refuse_identity_value(&table.columns[t])?;
                }
                let refs = output_refs(&plan, &cols);
                let mut exprs = Vec::with_capacity(table.columns.len());
                for i in 0..table.columns.len() {
                    match targets.iter().position(|&t| t == i) {
                        Some(k) => {
                            exprs.push(self.coerce_column(refs[k].clone(), &table.columns[i])?)
                        }
                        None => exprs.push(self.default_expr(&table, i)?),
                    }
                }
                LogicalPlan::Project {
                    input: Box::new(plan),
                    rel: self.new_rel(),
                    exprs,
                }
            }
        };
        let source = self.finish_plan(plan)?;
        let returning = self.bind_returning(insert.returning.as_deref(), &table, alias)?;
        Ok(BoundStatement::Insert {
            table,
            source,
            returning,
            on_conflict,
        })
    }

    pub(super) fn default_expr(&self, table: &TableEntry, column: usize) -> Result<Expr> {
        let c = &table.columns[column];
        if c.ty.domain != 0 {
            // A domain column: its own default, else the domain's (as it is now), else
            // NULL — checked by the domain's constraints as any value put there.
            let domain_default = || {
                self.catalog
                    .domain_chain(c.ty.domain, &self.snapshot)
                    .iter()
                    .find_map(|d| d.default.as_ref().map(|(_, e)| e.clone()))
            };
            let value = c
                .default
                .clone()
                .or_else(domain_default)
                .unwrap_or(Expr::Literal {
                    value: Value::Null,
                    ty: c.ty.base(),
                });
            return Ok(Expr::Func {
                func: crate::sql::expr::Func::DomainCheck(c.ty.domain),
                args: vec![value],
                ty: c.ty,
            });
        }
        Ok(c.default.clone().unwrap_or(Expr::Literal {
            value: Value::Null,
            ty: c.ty,
        }))
    }

    pub(super) fn coerce_column(&mut self, e: Expr, column: &ColumnDef) -> Result<Expr> {
        let from = e.ty();
        if from.ty != DataType::Unknown && !cast::is_assignable(from.ty, column.ty.ty) {
            return Err(Error::datatype_mismatch(format!(
                "column \"{}\" is of type {} but expression is of type {}",
                column.name,
                column.ty.display_name(),
                from.display_name()
            ))
            .with_hint("You will need to rewrite or cast the expression."));
        }
        self.coerce_with(e, column.ty, false)
    }

    /// A column's DEFAULT as PostgreSQL stores it: an untyped literal takes the column's
    /// type without its modifier now, and a constant of another type or modifier keeps
    /// its own value under an implicit cast that runs at insert (so `DEFAULT 1.5` on a
    /// numeric(10,2) column prints as `1.5`, and stores 1.50). Errors as assignment.
    pub(super) fn coerce_default(&mut self, e: Expr, column: &ColumnDef) -> Result<Expr> {
        // A domain column's default is kept as a value of the base type: the domain's
        // checks apply where it is used (`default_expr`).
        let base_column;
        let column = if column.ty.domain != 0 {
            base_column = ColumnDef {
                ty: column.ty.base(),
                ..column.clone()
            };
            &base_column
        } else {
            column
        };
        let e = if e.ty().ty == DataType::Unknown {
            self.coerce_with(e, SqlType::new(column.ty.ty), false)?
        } else {
            e
        };
        let full = self.coerce_column(e.clone(), column)?;
        Ok(match (&e, &full) {
            (Expr::Literal { .. }, Expr::Literal { .. }) if e.ty() != column.ty => Expr::Cast {
                expr: Box::new(e),
                to: column.ty,
                explicit: false,
            },
            _ => full,
        })
    }

    pub(super) fn coerce_assign(&mut self, e: Expr, to: SqlType, what: &str) -> Result<Expr> {
        let from = e.ty();
        if from.ty != DataType::Unknown && !cast::is_assignable(from.ty, to.ty) {
            return Err(Error::datatype_mismatch(format!(
                "argument of {what} must be type {}, not type {}",
                to.display_name(),
                from.display_name()
            )));
        }
        self.coerce_with(e, to, false)
    }

    pub(super) fn bind_update(&mut self, update: &A::Update) -> Result<BoundStatement> {
        if !update.table.joins.is_empty() {
            return Err(Error::feature_not_supported("JOIN in UPDATE"));
        }
        let mark = self.access.len();
        let (plan, scope) = self.bind_table_factor(&update.table.relation)?;
        let (table, get) = dml_target(plan, "UPDATE")?;
        self.target_needs(mark, &table, Privs::UPDATE);
        let row_id = row_id_ref(&get, table.columns.len());
        let mut new_row: Vec<Expr> = scope.columns.iter().map(|c| c.expr.clone()).collect();
        // UPDATE … FROM: the target joined with the other tables; a target row that
        // joins several rows is updated once (by the first).
        let (input, scope) = match &update.from {
            Some(
                A::UpdateTableFromKind::AfterSet(from) | A::UpdateTableFromKind::BeforeSet(from),
            ) => {
                let (other, oscope) = self.bind_from(from)?;
                super::from::check_duplicate_aliases(&scope, &oscope)?;
                let mut joined = scope;
                joined.columns.extend(oscope.columns);
                (super::from::cross(get, other), joined)
            }
            None => (get, scope),
        };
        let filter = self.bind_where(update.selection.as_ref(), &scope)?;
        let mut assigned = vec![false; table.columns.len()];
        for a in &update.assignments {
            for (names, value) in assignment_pairs(a)? {
                let (i, value) =
                    self.bind_assignment(&table, names, value, &scope, &mut assigned)?;
                new_row[i] = value;
            }
        }
        // Reading the target's columns (in WHERE or a new value) needs SELECT too.
        let target_rel = match &row_id {
            Expr::ColumnRef { id, .. } => id.rel,
            _ => 0,
        };
        let kept = |i: usize, e: &Expr| matches!(e, Expr::ColumnRef { id, .. } if id.rel == target_rel && id.col as usize == i);
        if filter.as_ref().is_some_and(|f| reads_rel(f, target_rel))
            || new_row
                .iter()
                .enumerate()
                .any(|(i, e)| assigned[i] && !kept(i, e) && reads_rel(e, target_rel))
        {
            self.need(&table, Privs::SELECT);
        }
        let get = input;
        // READ COMMITTED's re-check of a row a concurrent transaction updated: the
        // WHERE and the new row over the target's columns alone (not with FROM).
        let recheck = if update.from.is_none() {
            self.recheck(&row_id, &table, filter.as_ref(), &new_row)
        } else {
            None
        };
        new_row.push(row_id);
        let scan = with_filter(get, filter);
        let rel = self.new_rel();
        let source = self.finish_plan(LogicalPlan::Project {
            input: Box::new(scan),
            rel,
            exprs: new_row,
        })?;
        let returning = self.bind_returning(
            update.returning.as_deref(),
            &table,
            table_alias(&update.table.relation),
        )?;
        Ok(BoundStatement::Update {
            table,
            source,
            returning,
            recheck,
        })
    }

    /// The re-check of a concurrently updated row: `filter` and `new_row`, bound over
    /// the target's columns (the relation `row_id` belongs to), lowered to positions.
    /// None when they cannot be evaluated over the row alone.
    fn recheck(
        &mut self,
        row_id: &Expr,
        table: &TableEntry,
        filter: Option<&Expr>,
        new_row: &[Expr],
    ) -> Option<Recheck> {
        let Expr::ColumnRef { id, .. } = row_id else {
            return None;
        };
        let rel = id.rel;
        let layout = row_layout(rel, table.columns.len());
        if filter.is_some_and(|f| f.has_subquery()) || new_row.iter().any(|e| e.has_subquery()) {
            return None;
        }
        let mut lowerer = Lowerer::new();
        let filter = match filter {
            Some(f) => Some(lowerer.expr(f, &layout).ok()?),
            None => None,
        };
        let new_row = new_row
            .iter()
            .map(|e| lowerer.expr(e, &layout))
            .collect::<Result<Vec<_>>>()
            .ok()?;
        Some(Recheck { filter, new_row })
    }

    pub(super) fn bind_delete(&mut self, delete: &A::Delete) -> Result<BoundStatement> {
        let from = match &delete.from {
            A::FromTable::WithFromKeyword(f) | A::FromTable::WithoutKeyword(f) => f,
        };
        let [twj] = from.as_slice() else {
            return Err(Error::feature_not_supported("DELETE from several tables"));
        };
        if !twj.joins.is_empty() {
            return Err(Error::feature_not_supported("JOIN in DELETE"));
        }
        let mark = self.access.len();
        let (plan, scope) = self.bind_table_factor(&twj.relation)?;
        let (table, get) = dml_target(plan, "DELETE from")?;
        self.target_needs(mark, &table, Privs::DELETE);
        let row_id = row_id_ref(&get, table.columns.len());
        let target_columns: Vec<Expr> = scope.columns.iter().map(|c| c.expr.clone()).collect();
        // DELETE … USING: the target joined with the other tables.
        let (get, scope) = match &delete.using {
            Some(using) => {
                let (other, oscope) = self.bind_from(using)?;
                super::from::check_duplicate_aliases(&scope, &oscope)?;
                let mut joined = scope;
                joined.columns.extend(oscope.columns);
                (super::from::cross(get, other), joined)
            }
            None => (get, scope),
        };
        let filter = self.bind_where(delete.selection.as_ref(), &scope)?;
        if let (Some(f), Expr::ColumnRef { id, .. }) = (&filter, &row_id)
            && reads_rel(f, id.rel)
        {
            self.need(&table, Privs::SELECT);
        }
        let recheck = if delete.using.is_none() {
            self.recheck(&row_id, &table, filter.as_ref(), &[])
        } else {
            None
        };
        // RETURNING reads the deleted rows' columns: they come before the row id.
        let mut exprs: Vec<Expr> = if delete.returning.is_some() {
            target_columns
        } else {
            Vec::new()
        };
        exprs.push(row_id);
        let plan = LogicalPlan::Project {
            input: Box::new(with_filter(get, filter)),
            rel: self.new_rel(),
            exprs,
        };
        // The executor reads the row ids from the last column, where the scan puts them:
        // no projection is needed.
        let mut plan = self.attach_statement_ctes(plan)?;
        crate::plan::rules::optimize(&mut plan, self.fmt, &mut self.next_rel)?;
        let source = Lowerer::new().lower_loose(&plan)?;
        let returning = self.bind_returning(
            delete.returning.as_deref(),
            &table,
            table_alias(&twj.relation),
        )?;
        Ok(BoundStatement::Delete {
            table,
            source,
            returning,
            recheck,
        })
    }
}

impl Binder<'_> {
    /// An UPDATE or DELETE target was just bound as a scan (which asked for SELECT):
    /// it needs `privs` instead, SELECT only if it reads the rows (added later). An
    /// entry that existed before `mark` (a WITH query read the table) keeps its SELECT.
    pub(super) fn target_needs(&mut self, mark: usize, table: &Arc<TableEntry>, privs: Privs) {
        if let Some(a) = self.access.get_mut(mark)
            && Arc::ptr_eq(&a.table, table)
        {
            a.privs = privs;
        } else {
            self.need(table, privs);
        }
    }
}

/// The `(column, value)` pairs of one SET item: `SET (a, b) = (x, y)` is
/// `SET a = x, b = y`.
pub(super) fn assignment_pairs(a: &A::Assignment) -> Result<Vec<(&A::ObjectName, &A::Expr)>> {
    match (&a.target, &a.value) {
        (A::AssignmentTarget::ColumnName(n), v) => Ok(vec![(n, v)]),
        (A::AssignmentTarget::Tuple(names), A::Expr::Tuple(values))
            if names.len() == values.len() =>
        {
            Ok(names.iter().zip(values).collect())
        }
        (A::AssignmentTarget::Tuple(_), A::Expr::Tuple(_)) => Err(Error::syntax(
            "number of columns does not match number of values",
        )),
        (A::AssignmentTarget::Tuple(_), A::Expr::Subquery(_)) => Err(Error::feature_not_supported(
            "multi-column SET from a subquery",
        )),
        (A::AssignmentTarget::Tuple(_), _) => Err(Error::new(
            "0A000",
            "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression",
        )),
    }
}

impl Binder<'_> {
    /// One `column = value` of an UPDATE's or ON CONFLICT DO UPDATE's SET: the
    /// column's position and its new value, coerced to the column's type. `DEFAULT`
    /// is the column's default; generated and GENERATED ALWAYS identity columns take
    /// nothing else (428C9), and a column is assigned once (42601).
    pub(super) fn bind_assignment(
        &mut self,
        table: &Arc<TableEntry>,
        names: &A::ObjectName,
        value: &A::Expr,
        scope: &Scope,
        assigned: &mut [bool],
    ) -> Result<(usize, Expr)> {
        // `SET a.b = …` names field b of column a (PostgreSQL has no qualified target).
        let cname = match names.0.first() {
            Some(A::ObjectNamePart::Identifier(i)) => ident_name(i),
            _ => return Err(Error::syntax("syntax error in SET")),
        };
        let i = table.column_index(&cname).ok_or_else(|| {
            Error::new(
                "42703",
                format!(
                    "column \"{cname}\" of relation \"{}\" does not exist",
                    table.name
                ),
            )
        })?;
        if let Some(A::ObjectNamePart::Identifier(field)) = names.0.get(1) {
            return Err(Error::datatype_mismatch(format!(
                "cannot assign to field \"{}\" of column \"{cname}\" because its type {} is not a composite type",
                ident_name(field),
                table.columns[i].ty.display_name()
            )));
        }
        if assigned[i] {
            return Err(Error::new(
                "42601",
                format!("multiple assignments to same column \"{cname}\""),
            ));
        }
        assigned[i] = true;
        if is_default_keyword(value) {
            return Ok((i, self.default_expr(table, i)?));
        }
        let only_default = |detail: String| {
            Error::new(
                "428C9",
                format!("column \"{cname}\" can only be updated to DEFAULT"),
            )
            .with_detail(detail)
        };
        if table.columns[i].generated.is_some() {
            return Err(only_default(format!(
                "Column \"{cname}\" is a generated column."
            )));
        }
        if table.columns[i].identity == Some(true) {
            return Err(only_default(format!(
                "Column \"{cname}\" is an identity column defined as GENERATED ALWAYS."
            )));
        }
        let b = self.bind_expr(value, scope)?;
        let coerced = self.coerce_column(b, &table.columns[i]);
        Ok((i, coerced.map_err(|err| self.locate(err, value))?))
    }
}

/// INSERT's 428C9 for an explicit value in a GENERATED ALWAYS identity column.
pub(super) fn refuse_identity_value(column: &ColumnDef) -> Result<()> {
    let name = &column.name;
    if column.generated.is_some() {
        return Err(Error::new(
            "428C9",
            format!("cannot insert a non-DEFAULT value into column \"{name}\""),
        )
        .with_detail(format!("Column \"{name}\" is a generated column.")));
    }
    if column.identity != Some(true) {
        return Ok(());
    }
    Err(Error::new(
        "428C9",
        format!("cannot insert a non-DEFAULT value into column \"{name}\""),
    )
    .with_detail(format!(
        "Column \"{name}\" is an identity column defined as GENERATED ALWAYS."
    ))
    .with_hint("Use OVERRIDING SYSTEM VALUE to override."))
}

/// The alias a DML target is given (`UPDATE t AS x`).
fn table_alias(f: &A::TableFactor) -> Option<String> {
    match f {
        A::TableFactor::Table { alias: Some(a), .. } => Some(ident_name(&a.name)),
        _ => None,
    }
}

impl Binder<'_> {
    /// RETURNING items, bound over the table's row (named by `alias` if given, else by
    /// the table's name) and lowered to column positions.
    fn bind_returning(
        &mut self,
        items: Option<&[A::SelectItem]>,
        table: &Arc<TableEntry>,
        alias: Option<String>,
    ) -> Result<Option<Returning>> {
        let Some(items) = items else {
            return Ok(None);
        };
        self.need(table, Privs::SELECT);
        let schema = match alias {
            Some(_) => None,
            None => self
                .catalog
                .namespace_by_oid(table.namespace, &self.snapshot)
                .map(|n| n.name.clone()),
        };
        let qualifier = alias.unwrap_or_else(|| table.name.clone());
        let rel = self.new_rel();
        let mut scope = row_scope(&table.columns, rel, &qualifier);
        for c in &mut scope.columns {
            c.schema.clone_from(&schema);
        }
        let mut exprs = Vec::new();
        let mut columns = Vec::new();
        let mut push = |me: &mut Self, e: Expr, name: String| -> Result<()> {
            let e = if e.ty().ty == DataType::Unknown {
                me.coerce(e, TEXT)?
            } else {
                e
            };
            columns.push(OutputColumn {
                name,
                ty: e.ty(),
                origin: None,
            });
            exprs.push(e);
            Ok(())
        };
        let saved = self.agg_forbidden_in.replace("RETURNING");
        let bound = self.bind_returning_items(items, &scope, &qualifier, &mut push);
        self.agg_forbidden_in = saved;
        bound?;
        if exprs
            .iter()
            .any(|e| e.any(&|x| matches!(x, Expr::Window { .. })))
        {
            return Err(Error::new(
                "42P20",
                "window functions are not allowed in RETURNING",
            ));
        }
        let layout = row_layout(rel, table.columns.len());
        let mut lowerer = Lowerer::new();
        let exprs = exprs
            .iter()
            .map(|e| lowerer.expr(e, &layout))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Returning { exprs, columns }))
    }

    fn bind_returning_items(
        &mut self,
        items: &[A::SelectItem],
        scope: &Scope,
        qualifier: &str,
        push: &mut dyn FnMut(&mut Self, Expr, String) -> Result<()>,
    ) -> Result<()> {
        for item in items {
            match item {
                A::SelectItem::UnnamedExpr(e) => {
                    let b = self.bind_expr(e, scope)?;
                    push(self, b, derive_name(e))?;
                }
                A::SelectItem::ExprWithAlias { expr, alias } => {
                    let b = self.bind_expr(expr, scope)?;
                    push(self, b, ident_name(alias))?;
                }
                A::SelectItem::Wildcard(_) => {
                    for c in &scope.columns {
                        push(self, c.expr.clone(), c.name.clone())?;
                    }
                }
                A::SelectItem::QualifiedWildcard(
                    A::SelectItemQualifiedWildcardKind::ObjectName(n),
                    _,
                ) if split_name(n)?.1 == *qualifier => {
                    for c in &scope.columns {
                        push(self, c.expr.clone(), c.name.clone())?;
                    }
                }
                A::SelectItem::QualifiedWildcard(
                    A::SelectItemQualifiedWildcardKind::ObjectName(n),
                    _,
                ) => {
                    return Err(Error::new(
                        "42P01",
                        format!(
                            "missing FROM-clause entry for table \"{}\"",
                            split_name(n)?.1
                        ),
                    ));
                }
                _ => return Err(Error::feature_not_supported("this RETURNING item")),
            }
        }
        Ok(())
    }
}

/// The table an UPDATE or DELETE writes, as a scan that also reads row ids.
pub(super) fn dml_target(plan: LogicalPlan, what: &str) -> Result<(Arc<TableEntry>, LogicalPlan)> {
    match plan {
        LogicalPlan::Get { table, .. } if table.view.is_some() => Err(
            Error::feature_not_supported(format!("{what} view \"{}\"", table.name)),
        ),
        LogicalPlan::Get { table, .. } if table.sequence.is_some() => Err(Error::new(
            "42809",
            format!("cannot change sequence \"{}\"", table.name),
        )),
        LogicalPlan::Get {
            rel,
            table,
            alias,
            columns,
            filter,
            ..
        } => Ok((
            table.clone(),
            LogicalPlan::Get {
                rel,
                table,
                alias,
                columns,
                row_id: true,
                filter,
            },
        )),
        _ => Err(Error::feature_not_supported(format!(
            "{what} this relation"
        ))),
    }
}

/// The row id column of a scan that reads row ids.
pub(super) fn row_id_ref(get: &LogicalPlan, ncols: usize) -> Expr {
    let rel = match get {
        LogicalPlan::Get { rel, .. } => *rel,
        _ => 0,
    };
    Expr::ColumnRef {
        id: ColumnId::new(rel, ncols as u32),
        ty: INT8,
        name: "ctid".into(),
    }
}

fn with_filter(plan: LogicalPlan, filter: Option<Expr>) -> LogicalPlan {
    match filter {
        None => plan,
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        },
    }
}
