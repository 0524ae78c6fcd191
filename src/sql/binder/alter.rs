//! ALTER TABLE: each action bound against the table as the actions before it left it.
//!
//! The statement keeps its actions as parsed ([`BoundStatement::AlterTable`]); the
//! session binds one at a time ([`Binder::bind_alter_action`]) over the table version
//! its own earlier actions made, so `ADD COLUMN x …, ADD CHECK (x > 0)` sees `x`. What
//! an action becomes is an [`AlterAction`]: column and constraint definitions already
//! bound (DEFAULTs and CHECKs as expressions, new indexes as specs), which the session
//! turns into a new catalog version of the table — over the same storage, or over a
//! rewritten one when the columns' layout or types change.

use super::constraints::{BoundConstraints, Existing, RowExpr};
use super::sequences::NewSequence;
use super::*;

/// One ALTER TABLE action, bound.
#[derive(Debug)]
pub enum AlterAction {
    AddColumn {
        column: Box<ColumnDef>,
        sequence: Option<NewSequence>,
        constraints: BoundConstraints,
    },
    /// ADD COLUMN IF NOT EXISTS of a column that exists: a notice, nothing else.
    Skip {
        notice: String,
    },
    DropColumn {
        column: usize,
    },
    RenameColumn {
        column: usize,
        to: String,
    },
    RenameTable {
        to: String,
    },
    SetDefault {
        column: usize,
        default: Option<Expr>,
    },
    SetNotNull {
        column: usize,
        not_null: bool,
    },
    AddConstraint {
        constraints: BoundConstraints,
    },
    DropConstraint {
        name: String,
    },
    RenameConstraint {
        from: String,
        to: String,
    },
    /// ADD [CONSTRAINT name] { PRIMARY KEY | UNIQUE } USING INDEX: the unique index at
    /// `index` (in `table.indexes`) becomes the constraint, renamed to `name`.
    ConstraintUsingIndex {
        index: usize,
        name: String,
        primary: bool,
        deferrable: bool,
        initially_deferred: bool,
    },
    /// ALTER COLUMN TYPE: the new type, the conversion (over the table's columns, by
    /// position) and the default cast to the new type.
    SetType {
        column: usize,
        ty: SqlType,
        using: Expr,
        default: Option<Expr>,
        /// The table's CHECKs, those reading the column bound again.
        checks: Vec<crate::catalog::CheckConstraint>,
        /// Indexes (by position) whose expressions or WHERE read the column: those
        /// bound again.
        indexes: Vec<(usize, Vec<Expr>, Option<Expr>)>,
    },
}

impl Binder<'_> {
    fn column_position(&self, table: &TableEntry, ident: &A::Ident) -> Result<usize> {
        let name = ident_name(ident);
        table.column_index(&name).ok_or_else(|| {
            Error::new(
                "42703",
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    table.name
                ),
            )
        })
    }

    pub fn bind_alter_action(
        &mut self,
        table: &Arc<TableEntry>,
        op: &A::AlterTableOperation,
    ) -> Result<AlterAction> {
        use A::AlterTableOperation as Op;
        Ok(match op {
            Op::AddColumn {
                if_not_exists,
                column_def,
                column_position: None,
                ..
            } => {
                let name = ident_name(&column_def.name);
                if table.column_index(&name).is_some() {
                    if *if_not_exists {
                        return Ok(AlterAction::Skip {
                            notice: format!(
                                "column \"{name}\" of relation \"{}\" already exists, skipping",
                                table.name
                            ),
                        });
                    }
                    return Err(Error::new(
                        "42701",
                        format!(
                            "column \"{name}\" of relation \"{}\" already exists",
                            table.name
                        ),
                    ));
                }
                let (column, sequence) = self.bind_column_def(
                    &crate::catalog::RelName::new(table.namespace, table.name.clone()),
                    column_def,
                    &[],
                )?;
                let mut columns = table.columns.clone();
                columns.push(column);
                self.bind_generated(&table.name, &mut columns, std::slice::from_ref(column_def))?;
                let constraints = self.bind_table_constraints(
                    &crate::catalog::RelName::new(table.namespace, table.name.clone()),
                    &mut columns,
                    std::slice::from_ref(column_def),
                    &[],
                    &Existing::of(table),
                )?;
                self.check_foreign_key_persistence(table.temp, &constraints.foreign_keys)?;
                let column = columns
                    .pop()
                    .ok_or_else(|| Error::internal("column vanished"))?;
                AlterAction::AddColumn {
                    column: Box::new(column),
                    sequence,
                    constraints,
                }
            }
            Op::DropColumn {
                column_names,
                if_exists,
                ..
            } => {
                let [ident] = column_names.as_slice() else {
                    return Err(Error::feature_not_supported(
                        "dropping several columns at once",
                    ));
                };
                let name = ident_name(ident);
                match table.column_index(&name) {
                    Some(column) => AlterAction::DropColumn { column },
                    None if *if_exists => AlterAction::Skip {
                        notice: format!(
                            "column \"{name}\" of relation \"{}\" does not exist, skipping",
                            table.name
                        ),
                    },
                    None => {
                        return Err(Error::new(
                            "42703",
                            format!(
                                "column \"{name}\" of relation \"{}\" does not exist",
                                table.name
                            ),
                        ));
                    }
                }
            }
            Op::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                let column = self.column_position(table, old_column_name)?;
                let to = ident_name(new_column_name);
                if table.column_index(&to).is_some() {
                    return Err(Error::new(
                        "42701",
                        format!(
                            "column \"{to}\" of relation \"{}\" already exists",
                            table.name
                        ),
                    ));
                }
                AlterAction::RenameColumn { column, to }
            }
            Op::RenameTable { table_name } => {
                let (A::RenameTableNameKind::To(n) | A::RenameTableNameKind::As(n)) = table_name;
                AlterAction::RenameTable { to: bare_name(n)? }
            }
            Op::AlterColumn { column_name, op } => {
                let column = self.column_position(table, column_name)?;
                let def = &table.columns[column];
                match op {
                    A::AlterColumnOperation::SetNotNull => AlterAction::SetNotNull {
                        column,
                        not_null: true,
                    },
                    A::AlterColumnOperation::DropNotNull => {
                        if table
                            .primary_key()
                            .is_some_and(|pk| pk.index.parts.iter().any(|p| p.column == column))
                        {
                            return Err(Error::new(
                                "42P16",
                                format!("column \"{}\" is in a primary key", def.name),
                            ));
                        }
                        if def.identity.is_some() {
                            return Err(Error::new(
                                "42P16",
                                format!(
                                    "column \"{}\" of relation \"{}\" is an identity column",
                                    def.name, table.name
                                ),
                            ));
                        }
                        AlterAction::SetNotNull {
                            column,
                            not_null: false,
                        }
                    }
                    A::AlterColumnOperation::SetDefault { value } => {
                        let b = self.bind_expr(value, &Scope::default())?;
                        if b.any(&|x| matches!(x, Expr::ColumnRef { .. })) {
                            return Err(Error::new(
                                "0A000",
                                "cannot use column reference in DEFAULT expression",
                            ));
                        }
                        AlterAction::SetDefault {
                            column,
                            default: Some(self.coerce_default(b, def)?),
                        }
                    }
                    A::AlterColumnOperation::DropDefault => AlterAction::SetDefault {
                        column,
                        default: None,
                    },
                    A::AlterColumnOperation::SetDataType {
                        data_type, using, ..
                    } => self.bind_set_type(table, column, data_type, using.as_ref())?,
                    A::AlterColumnOperation::AddGenerated { .. } => {
                        return Err(Error::feature_not_supported("ADD GENERATED … AS IDENTITY"));
                    }
                }
            }
            Op::AddConstraint {
                constraint:
                    c @ (A::TableConstraint::PrimaryKeyUsingIndex(u)
                    | A::TableConstraint::UniqueUsingIndex(u)),
                ..
            } => self.bind_constraint_using_index(
                table,
                u,
                matches!(c, A::TableConstraint::PrimaryKeyUsingIndex(_)),
            )?,
            Op::AddConstraint { constraint, .. } => {
                let mut columns = table.columns.clone();
                let constraints = self.bind_table_constraints(
                    &crate::catalog::RelName::new(table.namespace, table.name.clone()),
                    &mut columns,
                    &[],
                    std::slice::from_ref(constraint),
                    &Existing::of(table),
                )?;
                self.check_foreign_key_persistence(table.temp, &constraints.foreign_keys)?;
                AlterAction::AddConstraint { constraints }
            }
            Op::DropConstraint {
                if_exists,
                name,
                drop_behavior,
            } => {
                let name = ident_name(name);
                // A key that foreign keys reference goes only with them (CASCADE).
                if let Some(ix) = table.index_named(&name).filter(|i| i.constraint.is_some()) {
                    let key: std::collections::BTreeSet<usize> =
                        ix.index.parts.iter().map(|p| p.column).collect();
                    let dependents: Vec<(String, String)> = self
                        .catalog
                        .referencing(table.oid, &self.snapshot)
                        .into_iter()
                        .filter(|(_, fk)| {
                            fk.parent_columns
                                .iter()
                                .copied()
                                .collect::<std::collections::BTreeSet<_>>()
                                == key
                        })
                        .map(|(c, fk)| (c.name.clone(), fk.name))
                        .collect();
                    if !dependents.is_empty()
                        && !matches!(drop_behavior, Some(A::DropBehavior::Cascade))
                    {
                        let detail: Vec<String> = dependents
                            .iter()
                            .map(|(c, f)| {
                                format!("constraint {f} on table {c} depends on index {name}")
                            })
                            .collect();
                        return Err(Error::new(
                            "2BP01",
                            format!(
                                "cannot drop constraint {name} on table {} because other objects depend on it",
                                table.name
                            ),
                        )
                        .with_detail(detail.join("\n"))
                        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                    }
                    if !dependents.is_empty() {
                        return Err(Error::feature_not_supported(
                            "DROP CONSTRAINT … CASCADE of a key foreign keys reference",
                        ));
                    }
                }
                let exists = table.checks.iter().any(|c| c.name == name)
                    || table.foreign_keys.iter().any(|c| c.name == name)
                    || table
                        .index_named(&name)
                        .is_some_and(|i| i.constraint.is_some());
                match (exists, *if_exists) {
                    (true, _) => AlterAction::DropConstraint { name },
                    (false, true) => AlterAction::Skip {
                        notice: format!(
                            "constraint \"{name}\" of relation \"{}\" does not exist, skipping",
                            table.name
                        ),
                    },
                    (false, false) => {
                        return Err(Error::new(
                            "42704",
                            format!(
                                "constraint \"{name}\" of relation \"{}\" does not exist",
                                table.name
                            ),
                        ));
                    }
                }
            }
            Op::RenameConstraint { old_name, new_name } => {
                let from = ident_name(old_name);
                let to = ident_name(new_name);
                let exists = table.checks.iter().any(|c| c.name == from)
                    || table.foreign_keys.iter().any(|c| c.name == from)
                    || table
                        .index_named(&from)
                        .is_some_and(|i| i.constraint.is_some());
                if !exists {
                    return Err(Error::new(
                        "42704",
                        format!(
                            "constraint \"{from}\" for table \"{}\" does not exist",
                            table.name
                        ),
                    ));
                }
                let taken = table.checks.iter().any(|c| c.name == to)
                    || table.foreign_keys.iter().any(|c| c.name == to)
                    || table
                        .index_named(&to)
                        .is_some_and(|i| i.constraint.is_some());
                if taken {
                    return Err(Error::new(
                        "42710",
                        format!(
                            "constraint \"{to}\" for relation \"{}\" already exists",
                            table.name
                        ),
                    ));
                }
                // A key constraint's index takes the name too: no relation may hold it.
                let keyed = table
                    .index_named(&from)
                    .is_some_and(|i| i.constraint.is_some());
                if keyed
                    && self
                        .catalog
                        .relation_exists(table.namespace, &to, &self.snapshot)
                {
                    return Err(Error::duplicate_table(&to));
                }
                AlterAction::RenameConstraint { from, to }
            }
            other => {
                return Err(Error::feature_not_supported(format!("ALTER TABLE {other}")));
            }
        })
    }

    /// ADD … USING INDEX: PostgreSQL's checks on the index (42704, 55000 when it has
    /// a constraint already, 42809 unless it is a plain unique index over columns in
    /// default order).
    fn bind_constraint_using_index(
        &mut self,
        table: &Arc<TableEntry>,
        u: &A::ConstraintUsingIndex,
        primary: bool,
    ) -> Result<AlterAction> {
        let index_name = ident_name(&u.index_name);
        let Some(k) = table.indexes.iter().position(|i| i.name == index_name) else {
            return Err(Error::new(
                "42704",
                format!("index \"{index_name}\" does not exist"),
            ));
        };
        let ix = &table.indexes[k];
        if ix.constraint.is_some() {
            return Err(Error::new(
                "55000",
                format!("index \"{index_name}\" is already associated with a constraint"),
            ));
        }
        let unusable = |message: String| {
            Error::new("42809", message).with_detail(
                "Cannot create a primary key or unique constraint using such an index.",
            )
        };
        if !ix.index.unique {
            return Err(unusable(format!("\"{index_name}\" is not a unique index")));
        }
        if !ix.index.exprs.is_empty() {
            return Err(unusable(format!(
                "index \"{index_name}\" contains expressions"
            )));
        }
        if ix.index.predicate.is_some() {
            return Err(unusable(format!("\"{index_name}\" is a partial index")));
        }
        if let Some(n) = ix.index.parts.iter().position(|p| p.desc || p.nulls_first) {
            return Err(unusable(format!(
                "index \"{index_name}\" column number {} does not have default sorting behavior",
                n + 1
            )));
        }
        if primary && table.primary_key().is_some() {
            return Err(Error::new(
                "42P16",
                format!(
                    "multiple primary keys for table \"{}\" are not allowed",
                    table.name
                ),
            ));
        }
        let name = u.name.as_ref().map_or(index_name.clone(), ident_name);
        if name != index_name
            && self
                .catalog
                .relation_exists(table.namespace, &name, &self.snapshot)
        {
            return Err(Error::duplicate_table(&name));
        }
        let (deferrable, initially_deferred) = super::constraints::deferral(&u.characteristics)?;
        Ok(AlterAction::ConstraintUsingIndex {
            index: k,
            name,
            primary,
            deferrable,
            initially_deferred,
        })
    }

    /// ALTER COLUMN … TYPE: the conversion is USING's expression (over the table's
    /// columns) or an assignment cast of the column (42804 when there is none).
    fn bind_set_type(
        &mut self,
        table: &Arc<TableEntry>,
        column: usize,
        data_type: &A::DataType,
        using: Option<&A::Expr>,
    ) -> Result<AlterAction> {
        let ty = self.resolve_type(data_type)?;
        let def = &table.columns[column];
        let reads_column = |e: &Expr| {
            let mut read = vec![false; table.columns.len()];
            crate::plan::physical::mark_columns(e, &mut read);
            read[column]
        };
        if def.generated.is_some()
            || table
                .columns
                .iter()
                .any(|c| c.generated.as_ref().is_some_and(reads_column))
        {
            return Err(Error::feature_not_supported(
                "changing the type of a generated column or one a generation expression reads",
            ));
        }
        let rel = self.new_rel();
        let scope = row_scope(&table.columns, rel, &table.name);
        let target = ColumnDef { ty, ..def.clone() };
        // What reads the column is bound again from its definition over the new type
        // (as PostgreSQL rebuilds it), so an operator or function may change, or be
        // missing (42883).
        let mut columns = table.columns.clone();
        columns[column] = target.clone();
        let again = |e: &Expr| -> Result<A::Expr> {
            let text = crate::catalog::system::expr_sql(
                &crate::catalog::system::with_current_names(e, &table.columns),
            );
            crate::sql::parse::expression(&text)
        };
        let mut checks = table.checks.clone();
        for c in &mut checks {
            if reads_column(&c.expr) {
                c.expr = self.bind_check(&table.name, &columns, &again(&c.expr)?)?.0;
            }
        }
        let mut indexes = Vec::new();
        for (k, ix) in table.indexes.iter().enumerate() {
            let reads = ix.index.exprs.iter().any(reads_column)
                || ix.index.predicate.as_ref().is_some_and(reads_column);
            if !reads {
                continue;
            }
            let mut exprs = Vec::with_capacity(ix.index.exprs.len());
            for e in &ix.index.exprs {
                exprs.push(if reads_column(e) {
                    self.bind_index_expr(
                        &table.name,
                        &columns,
                        &again(e)?,
                        RowExpr::INDEX_EXPRESSION,
                    )?
                } else {
                    e.clone()
                });
            }
            let predicate = match &ix.index.predicate {
                Some(p) if reads_column(p) => Some(self.bind_index_expr(
                    &table.name,
                    &columns,
                    &again(p)?,
                    RowExpr::INDEX_PREDICATE,
                )?),
                other => other.clone(),
            };
            indexes.push((k, exprs, predicate));
        }
        let converted = match using {
            Some(e) => {
                let b = self.bind_expr(e, &scope)?;
                self.coerce_column(b, &target)?
            }
            None => {
                let from = def.ty;
                let b = scope.columns[column].expr.clone();
                if !crate::types::cast::is_assignable(from.ty, ty.ty) {
                    return Err(Error::datatype_mismatch(format!(
                        "column \"{}\" cannot be cast automatically to type {}",
                        def.name,
                        ty.display_name()
                    ))
                    .with_hint(format!(
                        "You might need to specify \"USING {}::{}\".",
                        def.name,
                        ty.display_name()
                    )));
                }
                self.coerce_column(b, &target)?
            }
        };
        let layout = row_layout(rel, table.columns.len());
        let using = Lowerer::new().expr(&converted, &layout)?;
        let default = match &def.default {
            Some(d) => Some(self.coerce_column(d.clone(), &target)?),
            None => None,
        };
        Ok(AlterAction::SetType {
            column,
            ty,
            using,
            default,
            checks,
            indexes,
        })
    }
}
