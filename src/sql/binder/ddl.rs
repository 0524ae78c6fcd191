//! CREATE TABLE, CREATE TABLE … AS / SELECT INTO, and CREATE VIEW.
//!
//! A view keeps its query as SQL text; every query that reads the view binds that text
//! anew as a derived table (so it sees the tables as they are then), which is also what
//! lets a DROP of a table a view reads refuse (`2BP01`) or cascade.

use super::*;

impl Binder<'_> {
    pub(super) fn bind_create_table(&mut self, ct: &A::CreateTable) -> Result<BoundStatement> {
        let on_commit = match (ct.on_commit, ct.temporary) {
            (None, true) => Some(crate::plan::OnCommit::PreserveRows),
            (None, false) => None,
            (Some(_), false) => {
                return Err(Error::new(
                    "42P16",
                    "ON COMMIT can only be used on temporary tables",
                ));
            }
            (Some(A::OnCommit::PreserveRows), true) => Some(crate::plan::OnCommit::PreserveRows),
            (Some(A::OnCommit::DeleteRows), true) => Some(crate::plan::OnCommit::DeleteRows),
            (Some(A::OnCommit::Drop), true) => Some(crate::plan::OnCommit::Drop),
        };
        if ct.unlogged {
            // UNLOGGED only skips the write-ahead log: kiln's tables differ in nothing
            // else, so it is an ordinary table here.
        }
        if let Some(q) = &ct.query {
            let mut names: Vec<String> = ct.columns.iter().map(|c| ident_name(&c.name)).collect();
            if names.is_empty()
                && let Some((_, _, listed)) = crate::sql::parse::ctas_column_names(self.text)
            {
                names = listed;
            }
            let with_data = ct.with_data.is_none_or(|w| w.data);
            let name = self.creation_name(&ct.name, ct.temporary)?;
            return self.bind_create_table_as(
                name,
                &names,
                q,
                ct.if_not_exists,
                with_data,
                on_commit,
            );
        }
        let rel = self.creation_name(&ct.name, ct.temporary)?;
        let name = rel.name.clone();
        if let Some(A::CreateTableLikeKind::Parenthesized(like)) = &ct.like {
            return self.bind_create_table_like(ct, rel, like, on_commit);
        }
        if ct.like.is_some() {
            return Err(Error::feature_not_supported(
                "CREATE TABLE … LIKE outside parentheses",
            ));
        }
        if ct.columns.is_empty() {
            return Err(Error::feature_not_supported("tables without columns"));
        }
        let mut columns: Vec<ColumnDef> = Vec::new();
        let mut sequences: Vec<sequences::NewSequence> = Vec::new();
        for c in &ct.columns {
            let cname = ident_name(&c.name);
            if columns.iter().any(|x| x.name == cname) {
                return Err(Error::new(
                    "42701",
                    format!("column \"{cname}\" specified more than once"),
                ));
            }
            let (def, sequence) = self.bind_column_def(&rel, c, &sequences)?;
            sequences.extend(sequence);
            columns.push(def);
        }
        self.bind_generated(&name, &mut columns, &ct.columns)?;
        let bound = self.bind_table_constraints(
            &rel,
            &mut columns,
            &ct.columns,
            &ct.constraints,
            &super::constraints::Existing::default(),
        )?;
        self.check_foreign_key_persistence(ct.temporary, &bound.foreign_keys)?;
        Ok(BoundStatement::CreateTable {
            name: rel,
            columns,
            indexes: bound.indexes,
            checks: bound.checks,
            foreign_keys: bound.foreign_keys,
            sequences,
            if_not_exists: ct.if_not_exists,
            on_commit,
        })
    }

    /// `CREATE TABLE name (LIKE source [INCLUDING | EXCLUDING DEFAULTS])`: the source's
    /// columns, their types and NOT NULL (and DEFAULTs when included; a SERIAL column's
    /// default keeps drawing from the source's sequence, as in PostgreSQL).
    fn bind_create_table_like(
        &mut self,
        ct: &A::CreateTable,
        rel: crate::catalog::RelName,
        like: &A::CreateTableLike,
        on_commit: Option<crate::plan::OnCommit>,
    ) -> Result<BoundStatement> {
        if !ct.columns.is_empty() || !ct.constraints.is_empty() {
            return Err(Error::feature_not_supported(
                "LIKE together with other columns or constraints",
            ));
        }
        let source = self.table(&like.name)?;
        self.need(&source, crate::catalog::acl::Privs::SELECT);
        if source.sequence.is_some() {
            return Err(Error::new(
                "42809",
                format!(
                    "\"{}\" is not a table, view, or composite type",
                    source.name
                ),
            ));
        }
        let defaults = like.defaults == Some(A::CreateTableLikeDefaults::Including);
        let columns = source
            .columns
            .iter()
            .map(|c| ColumnDef {
                name: c.name.clone(),
                ty: c.ty,
                not_null: c.not_null,
                default: if defaults && c.identity.is_none() && c.generated.is_none() {
                    c.default.clone()
                } else {
                    None
                },
                identity: None,
                generated: None,
            })
            .collect();
        Ok(BoundStatement::CreateTable {
            name: rel,
            columns,
            indexes: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            sequences: Vec::new(),
            if_not_exists: ct.if_not_exists,
            on_commit,
        })
    }

    /// A foreign key of a permanent table may reference only permanent tables, and one
    /// of a temporary table only temporary ones (42P16, as PostgreSQL).
    pub(super) fn check_foreign_key_persistence(
        &self,
        temp: bool,
        keys: &[crate::catalog::ForeignKey],
    ) -> Result<()> {
        for fk in keys {
            if fk.parent == crate::catalog::SELF_REFERENCE {
                continue;
            }
            let Some(parent) = self.catalog.by_oid(fk.parent, &self.snapshot) else {
                continue;
            };
            let parent_temp = Some(parent.namespace) == self.search_path.temp;
            if parent_temp != temp {
                let which = if temp { "temporary" } else { "permanent" };
                return Err(Error::new(
                    "42P16",
                    format!("constraints on {which} tables may reference only {which} tables"),
                ));
            }
        }
        Ok(())
    }

    /// One column of CREATE TABLE or ALTER TABLE ADD COLUMN: its type (SERIAL types
    /// included), NULL / NOT NULL, DEFAULT, identity; and the sequence a SERIAL or
    /// identity column needs (named clear of `sequences`, already chosen). Key and
    /// CHECK options are bound with the table's constraints.
    pub(super) fn bind_column_def(
        &mut self,
        rel: &crate::catalog::RelName,
        c: &A::ColumnDef,
        sequences: &[sequences::NewSequence],
    ) -> Result<(ColumnDef, Option<sequences::NewSequence>)> {
        let name = rel.name.as_str();
        let cname = ident_name(&c.name);
        let serial = sequences::serial_type(&c.data_type);
        let ty = match serial {
            Some(t) => SqlType::new(t),
            None => self.resolve_type(&c.data_type)?,
        };
        let mut def = ColumnDef {
            name: cname,
            ty,
            not_null: false,
            default: None,
            identity: None,
            generated: None,
        };
        // The sequence a SERIAL or identity column draws from.
        let mut sequence: Option<crate::catalog::sequence::SequenceSpec> =
            serial.map(|t| crate::catalog::sequence::SequenceSpec {
                ty: Some(t),
                ..Default::default()
            });
        for opt in &c.options {
            match &opt.option {
                A::ColumnOption::Null => def.not_null = false,
                A::ColumnOption::NotNull => def.not_null = true,
                A::ColumnOption::Default(e) => {
                    let b = self.bind_expr(e, &Scope::default())?;
                    if b.any(&|x| matches!(x, Expr::ColumnRef { .. })) {
                        return Err(Error::new(
                            "0A000",
                            "cannot use column reference in DEFAULT expression",
                        ));
                    }
                    def.default = Some(self.coerce_default(b, &def)?);
                }
                A::ColumnOption::Generated {
                    generated_as,
                    sequence_options,
                    generation_expr: None,
                    ..
                } => {
                    let always = match generated_as {
                        A::GeneratedAs::Always => true,
                        A::GeneratedAs::ByDefault => false,
                        A::GeneratedAs::ExpStored => {
                            return Err(Error::feature_not_supported("generated columns"));
                        }
                    };
                    if !matches!(def.ty.ty, DataType::Int2 | DataType::Int4 | DataType::Int8) {
                        return Err(Error::new(
                            "22023",
                            "identity column type must be smallint, integer, or bigint",
                        ));
                    }
                    if def.identity.is_some() || serial.is_some() {
                        return Err(Error::syntax(format!(
                            "multiple identity specifications for column \"{}\" of table \"{name}\"",
                            def.name
                        )));
                    }
                    def.identity = Some(always);
                    sequence = Some(sequences::sequence_spec(
                        Some(def.ty.ty),
                        sequence_options.as_deref().unwrap_or(&[]),
                    )?);
                }
                // Bound once every column is known (`bind_generated`).
                A::ColumnOption::Generated {
                    generated_as: A::GeneratedAs::ExpStored | A::GeneratedAs::Always,
                    generation_expr: Some(_),
                    ..
                } => {}
                A::ColumnOption::Generated { .. } => {
                    return Err(Error::feature_not_supported("virtual generated columns"));
                }
                // Bound with the table's other constraints below.
                A::ColumnOption::PrimaryKey(_)
                | A::ColumnOption::Unique(_)
                | A::ColumnOption::Check(_)
                | A::ColumnOption::ForeignKey(_) => {}
                other => {
                    return Err(Error::feature_not_supported(format!(
                        "column option {other}"
                    )));
                }
            }
        }
        let mut made = None;
        if let Some(spec) = sequence {
            if def.default.is_some() {
                return Err(Error::syntax(format!(
                    "multiple default values specified for column \"{}\" of table \"{name}\"",
                    def.name
                )));
            }
            let seq_name = self.serial_sequence_name(rel, &def.name, sequences);
            let (default, placeholder) = self.nextval_default(rel.ns, &seq_name, &def)?;
            def.default = Some(default);
            def.not_null = true;
            made = Some(sequences::NewSequence {
                name: seq_name,
                options: spec.resolve()?,
                column: def.name.clone(),
                placeholder,
            });
        }
        Ok((def, made))
    }

    /// GENERATED ALWAYS AS (expr) STORED columns: each expression bound over the
    /// table's other columns (not generated ones), immutable, cast to the column's type
    /// and lowered to positions.
    pub(super) fn bind_generated(
        &mut self,
        table: &str,
        columns: &mut [ColumnDef],
        asts: &[A::ColumnDef],
    ) -> Result<()> {
        let mut exprs: Vec<(usize, &A::Expr)> = Vec::new();
        for c in asts {
            for opt in &c.options {
                if let A::ColumnOption::Generated {
                    generation_expr: Some(e),
                    ..
                } = &opt.option
                {
                    let name = ident_name(&c.name);
                    let Some(i) = columns.iter().position(|d| d.name == name) else {
                        continue;
                    };
                    exprs.push((i, e));
                }
            }
        }
        // Columns generated already (ALTER TABLE ADD COLUMN) or in this statement.
        let mut generated: Vec<usize> = exprs.iter().map(|(i, _)| *i).collect();
        generated.extend(
            columns
                .iter()
                .enumerate()
                .filter(|(_, c)| c.generated.is_some())
                .map(|(i, _)| i),
        );
        for (i, e) in exprs {
            if columns[i].default.is_some() {
                return Err(Error::syntax(format!(
                    "both default and generation expression specified for column \"{}\" of table \"{table}\"",
                    columns[i].name
                )));
            }
            if columns[i].identity.is_some() {
                return Err(Error::syntax(format!(
                    "both identity and generation expression specified for column \"{}\" of table \"{table}\"",
                    columns[i].name
                )));
            }
            let rel = self.new_rel();
            let scope = row_scope(columns, rel, table);
            let saved = self
                .agg_forbidden_in
                .replace("column generation expression");
            let bound = self.bind_expr(e, &scope);
            self.agg_forbidden_in = saved;
            let bound = bound?;
            if bound.has_subquery() {
                return Err(Error::new(
                    "0A000",
                    "cannot use subquery in column generation expression",
                ));
            }
            let mut reads_generated = None;
            bound.column_refs(&mut |id, _| {
                if generated.contains(&(id.col as usize)) {
                    reads_generated = Some(id.col as usize);
                }
            });
            if let Some(g) = reads_generated {
                return Err(Error::new(
                    "42P17",
                    format!(
                        "cannot use generated column \"{}\" in column generation expression",
                        columns[g].name
                    ),
                )
                .with_detail("A generated column cannot reference another generated column."));
            }
            let volatile = bound.any(&|x| {
                matches!(x, Expr::Func { func, .. }
                    if func.volatility() != crate::sql::functions::Volatility::Immutable)
            });
            if volatile {
                return Err(Error::new(
                    "42P17",
                    "generation expression is not immutable",
                ));
            }
            let target = columns[i].clone();
            let coerced = self.coerce_column(bound, &target)?;
            let layout = row_layout(rel, columns.len());
            columns[i].generated = Some(Lowerer::new().expr(&coerced, &layout)?);
        }
        Ok(())
    }

    /// `CREATE TABLE name [(columns)] AS query` (`with_data` false: WITH NO DATA).
    pub(super) fn bind_create_table_as(
        &mut self,
        name: crate::catalog::RelName,
        names: &[String],
        q: &A::Query,
        if_not_exists: bool,
        with_data: bool,
        on_commit: Option<crate::plan::OnCommit>,
    ) -> Result<BoundStatement> {
        let (plan, outputs) = self.bind_query(q)?;
        let columns = self.new_columns(&outputs, names, "CREATE TABLE AS")?;
        let plan = self.cast_outputs(
            plan,
            &outputs,
            &columns.iter().map(|c| c.ty).collect::<Vec<_>>(),
        )?;
        let source = if with_data {
            Some(self.finish_plan(plan)?)
        } else {
            None
        };
        Ok(BoundStatement::CreateTableAs {
            name,
            columns,
            source,
            if_not_exists,
            on_commit,
        })
    }

    /// `SELECT … INTO name FROM …`: CREATE TABLE AS without the INTO.
    pub(super) fn bind_select_into(&mut self, q: &A::Query) -> Result<BoundStatement> {
        let into = select_into(q).ok_or_else(|| Error::internal("SELECT INTO without INTO"))?;
        let target = match into.targets.as_slice() {
            [A::Expr::Identifier(id)] => A::ObjectName::from(vec![id.clone()]),
            [A::Expr::CompoundIdentifier(ids)] => A::ObjectName::from(ids.clone()),
            _ => return Err(Error::syntax("syntax error in SELECT INTO")),
        };
        let name = self.creation_name(&target, into.temporary)?;
        let on_commit = into
            .temporary
            .then_some(crate::plan::OnCommit::PreserveRows);
        let mut query = q.clone();
        if let A::SetExpr::Select(s) = query.body.as_mut() {
            s.into = None;
        }
        self.bind_create_table_as(name, &[], &query, false, true, on_commit)
    }

    /// The columns of a table or view made from a query's outputs, renamed by `names`.
    fn new_columns(
        &mut self,
        outputs: &[OutputColumn],
        names: &[String],
        what: &str,
    ) -> Result<Vec<ColumnDef>> {
        if names.len() > outputs.len() {
            return Err(Error::syntax(format!(
                "{what} specifies more column names than columns"
            )));
        }
        let mut columns: Vec<ColumnDef> = Vec::with_capacity(outputs.len());
        for (i, o) in outputs.iter().enumerate() {
            let name = names.get(i).cloned().unwrap_or_else(|| o.name.clone());
            if columns.iter().any(|c| c.name == name) {
                return Err(Error::new(
                    "42701",
                    format!("column \"{name}\" specified more than once"),
                ));
            }
            let ty = if o.ty.ty == DataType::Unknown {
                TEXT
            } else {
                o.ty
            };
            columns.push(ColumnDef {
                name,
                ty,
                not_null: false,
                default: None,
                identity: None,
                generated: None,
            });
        }
        Ok(columns)
    }

    pub(super) fn bind_create_view(&mut self, cv: &A::CreateView) -> Result<BoundStatement> {
        if cv.materialized {
            return Err(Error::feature_not_supported("materialized views"));
        }
        let before = self.tables.len();
        let access = self.access.len();
        let (_, outputs) = self.bind_subquery_block(&cv.query)?;
        // A view's tables are checked when it is read, as its owner.
        self.access.truncate(access);
        let names: Vec<String> = cv.columns.iter().map(|c| ident_name(&c.name)).collect();
        let columns = self.new_columns(&outputs, &names, "CREATE VIEW")?;
        let mut depends_on: Vec<u32> = Vec::new();
        let mut temp = cv.temporary;
        for t in &self.tables[before..] {
            if !depends_on.contains(&t.oid) {
                depends_on.push(t.oid);
            }
            // A view over a temporary table is temporary itself (PostgreSQL's NOTICE).
            if !temp && Some(t.namespace) == self.search_path.temp {
                temp = true;
                self.notices.push(format!(
                    "view \"{}\" will be a temporary view",
                    display_name(&cv.name)
                ));
            }
        }
        let name = self.creation_name(&cv.name, temp)?;
        // The stored query renames its outputs to the view's column names.
        Ok(BoundStatement::CreateView {
            name,
            columns,
            view: crate::catalog::ViewDef {
                sql: cv.query.to_string(),
                depends_on,
                search_path: self.search_path.search.clone(),
            },
            or_replace: cv.or_replace,
        })
    }

    /// Binds a reference to view `entry` in FROM as a derived table: its query is bound
    /// on its own (no outer query, no WITH of the query that reads it).
    pub(super) fn bind_view(
        &mut self,
        entry: &TableEntry,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        let Some(view) = &entry.view else {
            return Err(Error::internal("not a view"));
        };
        if self.view_depth >= VIEW_DEPTH_MAX {
            return Err(Error::new(
                "42P17",
                format!(
                    "infinite recursion detected in rules for relation \"{}\"",
                    entry.name
                ),
            ));
        }
        let statements = crate::sql::parse::parse(&view.sql)?;
        let Some(A::Statement::Query(q)) = statements.first() else {
            return Err(Error::internal("view without a query"));
        };
        let outer = std::mem::take(&mut self.outer_scopes);
        let ctes = std::mem::take(&mut self.cte_scopes);
        let text = std::mem::take(&mut self.text);
        self.view_depth += 1;
        // The view's tables are read with its owner's privileges, its names resolved
        // as where it was created.
        let check_as = self.check_as.replace(entry.owner);
        let path = std::mem::take(&mut self.search_path.search);
        self.search_path.search = view.search_path.clone();
        let bound = self.bind_subquery_block(q);
        self.search_path.search = path;
        self.check_as = check_as;
        self.view_depth -= 1;
        self.text = text;
        self.outer_scopes = outer;
        self.cte_scopes = ctes;
        let (plan, outputs) = bound?;
        let columns: Vec<OutputColumn> = outputs
            .iter()
            .zip(&entry.columns)
            .map(|(o, c)| OutputColumn {
                name: c.name.clone(),
                ty: o.ty,
                origin: None,
            })
            .collect();
        let types: Vec<SqlType> = entry.columns.iter().map(|c| c.ty).collect();
        let plan = self.cast_outputs(plan, &outputs, &types)?;
        Ok((plan, columns))
    }
}

/// Views reading views nest at most this deep.
const VIEW_DEPTH_MAX: usize = 64;

/// The INTO clause of `SELECT … INTO t`.
pub(super) fn select_into(q: &A::Query) -> Option<&A::SelectInto> {
    match q.body.as_ref() {
        A::SetExpr::Select(s) => s.into.as_ref(),
        _ => None,
    }
}
