//! ALTER TABLE, run: each bound action makes a new catalog version of the table.
//!
//! Actions that leave the columns' layout alone (renames, defaults, NOT NULL, adding
//! or dropping constraints) share the table's storage with the old version; adding,
//! dropping or retyping a column rewrites it (`Table::rewrite`: the live versions, with
//! the column added, removed or converted) and rebuilds the indexes over the new
//! storage. The old version stays for snapshots taken before the commit; a rollback
//! drops the new one. New constraints are validated against the live rows: 23502
//! `contains null values`, 23514 `is violated by some row`, 23505 for a unique key.

use std::sync::Arc;

use super::{Outcome, Session, Undo};
use crate::catalog::{CheckConstraint, ColumnDef, ForeignKey, IndexEntry, IndexSpec, TableEntry};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::exec::vector::{Batch, Data, Vector};
use crate::exec::{self};
use crate::sql::binder::Binder;
use crate::sql::binder::alter::AlterAction;
use crate::sql::binder::constraints::BoundConstraints;
use crate::sql::expr::Expr;
use crate::storage::index::row_id;
use crate::storage::mvcc::TxnId;
use crate::storage::table::Table;

/// An existing index, to build again over rewritten storage (`remap`: the new
/// position of each old column, None if dropped).
fn respec(ix: &IndexEntry, remap: &dyn Fn(usize) -> Option<usize>) -> Option<IndexSpec> {
    let mut parts = ix.index.parts.clone();
    for p in &mut parts {
        if let Some(c) = p.table_column() {
            p.column = remap(c)?;
        }
    }
    let predicate = match &ix.index.predicate {
        Some(p) => Some(remap_expr(p, remap)?),
        None => None,
    };
    let exprs = ix
        .index
        .exprs
        .iter()
        .map(|e| remap_expr(e, remap))
        .collect::<Option<Vec<_>>>()?;
    Some(IndexSpec {
        name: ix.name.clone(),
        parts,
        unique: ix.index.unique,
        nulls_not_distinct: ix.index.nulls_not_distinct,
        constraint: ix.constraint,
        predicate,
        exprs,
        options: ix.options.clone(),
        deferrable: ix.deferrable,
        initially_deferred: ix.initially_deferred,
    })
}

/// Shifts the column positions an expression reads (None if it reads a dropped one).
fn remap_expr(e: &Expr, remap: &dyn Fn(usize) -> Option<usize>) -> Option<Expr> {
    let mut out = e.clone();
    let mut ok = true;
    fn walk(e: &mut Expr, remap: &dyn Fn(usize) -> Option<usize>, ok: &mut bool) {
        if let Expr::Column { index, .. } = e {
            match remap(*index) {
                Some(i) => *index = i,
                None => *ok = false,
            }
        }
        e.children_mut(&mut |c| walk(c, remap, ok));
    }
    walk(&mut out, remap, &mut ok);
    ok.then_some(out)
}

impl Session {
    pub(super) fn alter_table(
        &mut self,
        rel: &crate::catalog::RelName,
        if_exists: bool,
        actions: &[sqlparser::ast::AlterTableOperation],
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let done = Outcome::Done {
            tag: "ALTER TABLE".into(),
        };
        let ns = rel.ns;
        let mut name = rel.name.clone();
        for op in actions {
            let Some(table) = self.db.catalog.table(ns, &name, &ctx.snapshot) else {
                if if_exists {
                    self.notice(format!("relation \"{name}\" does not exist, skipping"));
                    return Ok(done);
                }
                return Err(Error::undefined_table(&name));
            };
            if table.view.is_some() || table.sequence.is_some() {
                return Err(Error::new("42809", format!("\"{name}\" is not a table")));
            }
            if self.checks_pending_on(table.oid) {
                return Err(Error::new(
                    "55006",
                    format!("cannot ALTER TABLE \"{name}\" because it has pending trigger events"),
                ));
            }
            let action = {
                let mut binder = Binder::new(
                    &self.db.catalog,
                    ctx.snapshot.clone(),
                    self.text_format(),
                    Vec::new(),
                );
                binder.search_path = self.search_path(&ctx.snapshot);
                binder.database = Some(self.db.name());
                let action = binder.bind_alter_action(&table, op)?;
                // A new foreign key needs REFERENCES on the table it references.
                self.check_bound_access(&binder.access)?;
                action
            };
            if let AlterAction::RenameTable { to } = &action {
                name = to.clone();
            }
            self.apply_alter(&table, action, ctx, txn)?;
        }
        Ok(done)
    }

    /// Records `new` replacing `old` (undone in reverse on rollback).
    pub(super) fn replaced(&mut self, old: &Arc<TableEntry>, new: Arc<TableEntry>) {
        self.undo.push(Undo::DropTable(old.clone()));
        self.undo.push(Undo::CreateTable(new));
    }

    pub(super) fn apply_alter(
        &mut self,
        t: &Arc<TableEntry>,
        action: AlterAction,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<()> {
        let catalog = self.db.catalog.clone();
        match action {
            AlterAction::Skip { notice } => {
                self.notices.push(("NOTICE".into(), "00000".into(), notice));
            }
            AlterAction::AddColumn {
                mut column,
                sequence,
                constraints,
            } => {
                let BoundConstraints {
                    indexes,
                    checks,
                    foreign_keys,
                } = constraints;
                if let Some(seq) = &sequence {
                    let made = catalog.create_sequence(
                        &crate::catalog::RelName::new(t.namespace, seq.name.clone()),
                        seq.options.clone(),
                        Some((t.oid, seq.column.clone())),
                        t.owner,
                        txn,
                        &ctx.snapshot,
                    )?;
                    if let Some(d) = &mut column.default {
                        d.set_sequence_oid(&seq.placeholder, made.oid);
                    }
                    self.undo.push(Undo::CreateTable(made));
                }
                let mut types = t.storage.types.clone();
                types.push(column.ty.ty);
                let default = column.default.clone();
                let generated = column.generated.clone();
                let ty = column.ty.ty;
                let storage = t.storage.rewrite(types, |g, live| {
                    let mut cols: Vec<Vector> = g.columns.iter().map(|c| c.gather(live)).collect();
                    if let Some(expr) = &generated {
                        // A generated column is computed from the row's other columns.
                        let batch = Batch::new(cols.clone(), live.len());
                        let sel: Vec<u32> = (0..live.len() as u32).collect();
                        cols.push(exec::expr::eval(expr, &batch, &sel, ctx)?);
                        return Ok(cols);
                    }
                    let value = match &default {
                        Some(d) => {
                            let none = Batch::new(Vec::new(), live.len());
                            let sel: Vec<u32> = (0..live.len() as u32).collect();
                            exec::expr::eval(d, &none, &sel, ctx)?
                        }
                        None => {
                            let mut v = Vector::with_capacity(ty, live.len());
                            for _ in 0..live.len() {
                                v.push_null();
                            }
                            v
                        }
                    };
                    cols.push(value);
                    Ok(cols)
                })?;
                let mut columns = t.columns.clone();
                columns.push(*column);
                let keep = |c: usize| Some(c);
                let mut specs: Vec<IndexSpec> =
                    t.indexes.iter().filter_map(|i| respec(i, &keep)).collect();
                specs.extend(indexes);
                let mut all_checks = t.checks.clone();
                all_checks.extend(checks.iter().cloned());
                let mut fks = t.foreign_keys.clone();
                fks.extend(foreign_keys.iter().cloned());
                if !foreign_keys.is_empty() {
                    catalog.foreign_key_created();
                }
                let entry = self.rebuilt(
                    t,
                    t.name.clone(),
                    columns,
                    storage,
                    &specs,
                    all_checks,
                    fks,
                    txn,
                )?;
                let added = entry.columns.len() - 1;
                if entry.columns[added].not_null {
                    self.validate_not_null(&entry, added)?;
                }
                self.validate(&entry, &checks, &entry.indexes, ctx)?;
                self.validate_foreign_keys(&entry, &foreign_keys, ctx)?;
            }
            AlterAction::DropColumn { column } => {
                let remap = |c: usize| match c.cmp(&column) {
                    std::cmp::Ordering::Less => Some(c),
                    std::cmp::Ordering::Equal => None,
                    std::cmp::Ordering::Greater => Some(c - 1),
                };
                let mut types = t.storage.types.clone();
                types.remove(column);
                let storage = t.storage.rewrite(types, |g, live| {
                    Ok(g.columns
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != column)
                        .map(|(_, c)| c.gather(live))
                        .collect())
                })?;
                if let Some(g) = t.columns.iter().find(|c| {
                    c.generated.as_ref().is_some_and(|e| {
                        let mut read = vec![false; t.columns.len()];
                        crate::plan::physical::mark_columns(e, &mut read);
                        read[column]
                    })
                }) {
                    return Err(Error::new(
                        "2BP01",
                        format!(
                            "cannot drop column {} of table {} because other objects depend on it",
                            t.columns[column].name, t.name
                        ),
                    )
                    .with_detail(format!(
                        "column {} of table {} depends on column {}",
                        g.name, t.name, t.columns[column].name
                    ))
                    .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                }
                let mut columns = t.columns.clone();
                let dropped = columns.remove(column);
                for c in &mut columns {
                    if let Some(g) = &c.generated {
                        c.generated = remap_expr(g, &remap);
                    }
                }
                let specs: Vec<IndexSpec> =
                    t.indexes.iter().filter_map(|i| respec(i, &remap)).collect();
                let checks: Vec<CheckConstraint> = t
                    .checks
                    .iter()
                    .filter_map(|c| {
                        remap_expr(&c.expr, &remap).map(|expr| CheckConstraint {
                            name: c.name.clone(),
                            expr,
                        })
                    })
                    .collect();
                let fks: Vec<ForeignKey> = t
                    .foreign_keys
                    .iter()
                    .filter_map(|f| {
                        let columns = f
                            .columns
                            .iter()
                            .map(|&c| remap(c))
                            .collect::<Option<Vec<_>>>()?;
                        // A self-reference's referenced columns move too.
                        let parent_columns = if f.parent == t.oid {
                            f.parent_columns
                                .iter()
                                .map(|&c| remap(c))
                                .collect::<Option<Vec<_>>>()?
                        } else {
                            f.parent_columns.clone()
                        };
                        Some(ForeignKey {
                            columns,
                            parent_columns,
                            ..f.clone()
                        })
                    })
                    .collect();
                if let Some((child, fk)) = catalog
                    .referencing(t.oid, &ctx.snapshot)
                    .into_iter()
                    .find(|(c, fk)| c.oid != t.oid && fk.parent_columns.contains(&column))
                {
                    return Err(Error::new(
                        "2BP01",
                        format!(
                            "cannot drop column {} of table {} because other objects depend on it",
                            t.columns[column].name, t.name
                        ),
                    )
                    .with_detail(format!(
                        "constraint {} on table {} depends on column {} of table {}",
                        fk.name, child.name, t.columns[column].name, t.name
                    ))
                    .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                }
                self.rebuilt(
                    t,
                    t.name.clone(),
                    columns,
                    storage,
                    &specs,
                    checks,
                    fks,
                    txn,
                )?;
                // A SERIAL or identity column's sequence goes with it.
                for seq in catalog.owned_sequences(t.oid, &ctx.snapshot) {
                    if seq
                        .owned_by
                        .as_ref()
                        .is_some_and(|(_, c)| *c == dropped.name)
                        && let Some(e) = catalog.table(seq.namespace, &seq.name, &ctx.snapshot)
                    {
                        catalog.drop_relation(&e, txn);
                        self.undo.push(Undo::DropTable(e));
                    }
                }
            }
            AlterAction::RenameColumn { column, to } => {
                let mut columns = t.columns.clone();
                let from = std::mem::replace(&mut columns[column].name, to.clone());
                let entry =
                    catalog.replace_version(t, columns, t.indexes.clone(), t.checks.clone(), txn);
                self.replaced(t, entry);
                for seq in catalog.owned_sequences(t.oid, &ctx.snapshot) {
                    if seq.owned_by.as_ref().is_some_and(|(_, c)| *c == from) {
                        let moved = catalog.reown(&seq, Some((t.oid, to.clone())), txn);
                        self.replaced(&seq, moved);
                    }
                }
            }
            AlterAction::RenameTable { to } => {
                if catalog.relation_exists(t.namespace, &to, &ctx.snapshot) {
                    return Err(Error::duplicate_table(&to));
                }
                let schema = catalog
                    .namespace_by_oid(t.namespace, &ctx.snapshot)
                    .map_or_else(|| "public".to_string(), |n| n.name.clone());
                self.follow_moves(
                    &[super::views::Moving {
                        oid: t.oid,
                        schema,
                        name: to.clone(),
                    }],
                    ctx,
                    txn,
                )?;
                let entry = catalog.new_version(
                    t,
                    to,
                    t.columns.clone(),
                    t.storage.clone(),
                    t.indexes.clone(),
                    t.checks.clone(),
                    t.foreign_keys.clone(),
                    txn,
                );
                self.replaced(t, entry);
            }
            AlterAction::SetDefault { column, default } => {
                let mut columns = t.columns.clone();
                columns[column].default = default;
                let entry =
                    catalog.replace_version(t, columns, t.indexes.clone(), t.checks.clone(), txn);
                self.replaced(t, entry);
            }
            AlterAction::SetNotNull { column, not_null } => {
                if not_null && !t.columns[column].not_null {
                    self.validate_not_null(t, column)?;
                }
                let mut columns = t.columns.clone();
                columns[column].not_null = not_null;
                let entry =
                    catalog.replace_version(t, columns, t.indexes.clone(), t.checks.clone(), txn);
                self.replaced(t, entry);
            }
            AlterAction::AddConstraint { constraints } => {
                let BoundConstraints {
                    indexes,
                    checks,
                    foreign_keys,
                } = constraints;
                let mut columns = t.columns.clone();
                let mut all = t.indexes.clone();
                let mut built = Vec::new();
                for spec in &indexes {
                    // A primary key makes its columns NOT NULL (validated below).
                    if spec.constraint == Some(crate::catalog::KeyConstraint::PrimaryKey) {
                        for p in &spec.parts {
                            columns[p.column].not_null = true;
                        }
                    }
                    let ix = catalog.build_index(spec, &t.storage, self.db.txns.gc_horizon())?;
                    built.push(ix.clone());
                    all.push(ix);
                }
                let mut all_checks = t.checks.clone();
                all_checks.extend(checks.iter().cloned());
                let mut fks = t.foreign_keys.clone();
                fks.extend(foreign_keys.iter().cloned());
                if !foreign_keys.is_empty() {
                    catalog.foreign_key_created();
                }
                let entry = catalog.new_version(
                    t,
                    t.name.clone(),
                    columns,
                    t.storage.clone(),
                    all,
                    all_checks,
                    fks,
                    txn,
                );
                self.replaced(t, entry.clone());
                for (c, def) in entry.columns.iter().enumerate() {
                    if def.not_null && !t.columns[c].not_null {
                        self.validate_not_null(&entry, c)?;
                    }
                }
                self.validate(&entry, &checks, &built, ctx)?;
                self.validate_foreign_keys(&entry, &foreign_keys, ctx)?;
            }
            AlterAction::DropConstraint { name } => {
                let checks = t
                    .checks
                    .iter()
                    .filter(|c| c.name != name)
                    .cloned()
                    .collect();
                let fks = t
                    .foreign_keys
                    .iter()
                    .filter(|c| c.name != name)
                    .cloned()
                    .collect();
                let indexes = t
                    .indexes
                    .iter()
                    .filter(|i| !(i.name == name && i.constraint.is_some()))
                    .cloned()
                    .collect();
                let entry = catalog.new_version(
                    t,
                    t.name.clone(),
                    t.columns.clone(),
                    t.storage.clone(),
                    indexes,
                    checks,
                    fks,
                    txn,
                );
                self.replaced(t, entry);
            }
            AlterAction::ConstraintUsingIndex {
                index,
                name,
                primary,
                deferrable,
                initially_deferred,
            } => {
                let old = &t.indexes[index];
                if name != old.name {
                    self.notice(format!(
                        "ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index \"{}\" to \"{name}\"",
                        old.name
                    ));
                }
                let mut indexes = t.indexes.clone();
                indexes[index] = Arc::new(IndexEntry {
                    name,
                    constraint: Some(if primary {
                        crate::catalog::KeyConstraint::PrimaryKey
                    } else {
                        crate::catalog::KeyConstraint::Unique
                    }),
                    deferrable,
                    initially_deferred,
                    ..IndexEntry::clone(old)
                });
                let mut columns = t.columns.clone();
                if primary {
                    for p in &old.index.parts {
                        columns[p.column].not_null = true;
                    }
                }
                let entry = catalog.replace_version(t, columns, indexes, t.checks.clone(), txn);
                self.replaced(t, entry.clone());
                for (c, def) in entry.columns.iter().enumerate() {
                    if def.not_null && !t.columns[c].not_null {
                        self.validate_not_null(&entry, c)?;
                    }
                }
            }
            AlterAction::RenameConstraint { from, to } => {
                let rename = |n: &String| if *n == from { to.clone() } else { n.clone() };
                let checks = t
                    .checks
                    .iter()
                    .map(|c| CheckConstraint {
                        name: rename(&c.name),
                        expr: c.expr.clone(),
                    })
                    .collect();
                let fks = t
                    .foreign_keys
                    .iter()
                    .map(|f| ForeignKey {
                        name: rename(&f.name),
                        ..f.clone()
                    })
                    .collect();
                let indexes = t
                    .indexes
                    .iter()
                    .map(|i| {
                        if i.name == from {
                            Arc::new(IndexEntry {
                                name: to.clone(),
                                ..IndexEntry::clone(i)
                            })
                        } else {
                            i.clone()
                        }
                    })
                    .collect();
                let entry = catalog.new_version(
                    t,
                    t.name.clone(),
                    t.columns.clone(),
                    t.storage.clone(),
                    indexes,
                    checks,
                    fks,
                    txn,
                );
                self.replaced(t, entry);
            }
            AlterAction::SetType {
                column,
                ty,
                using,
                default,
                checks,
                indexes: rebound,
            } => {
                let mut types = t.storage.types.clone();
                types[column] = ty.ty;
                let storage = t.storage.rewrite(types, |g, live| {
                    let mut cols: Vec<Vector> = g.columns.iter().map(|c| c.gather(live)).collect();
                    let batch = Batch::new(cols.clone(), live.len());
                    let sel: Vec<u32> = (0..live.len() as u32).collect();
                    cols[column] = exec::expr::eval(&using, &batch, &sel, ctx)?;
                    Ok(cols)
                })?;
                let mut columns = t.columns.clone();
                columns[column] = ColumnDef {
                    ty,
                    default,
                    ..columns[column].clone()
                };
                if let Some(i) = t.indexes.iter().find(|i| {
                    i.index.parts.iter().any(|p| p.column == column)
                        && !crate::storage::index::indexable(ty.ty)
                }) {
                    return Err(Error::feature_not_supported(format!(
                        "index \"{}\" on a column of type {}",
                        i.name,
                        ty.display_name()
                    )));
                }
                let keep = |c: usize| Some(c);
                let mut specs: Vec<IndexSpec> = Vec::with_capacity(t.indexes.len());
                for (k, i) in t.indexes.iter().enumerate() {
                    let Some(mut spec) = respec(i, &keep) else {
                        continue;
                    };
                    if let Some((_, exprs, predicate)) = rebound.iter().find(|r| r.0 == k) {
                        spec.exprs = exprs.clone();
                        spec.predicate = predicate.clone();
                    }
                    specs.push(spec);
                }
                let entry = self.rebuilt(
                    t,
                    t.name.clone(),
                    columns,
                    storage,
                    &specs,
                    checks,
                    t.foreign_keys.clone(),
                    txn,
                )?;
                self.validate(&entry, &entry.checks.clone(), &entry.indexes.clone(), ctx)?;
                if entry.columns[column].not_null {
                    self.validate_not_null(&entry, column)?;
                }
            }
        }
        Ok(())
    }

    /// A new version of `t` over rewritten `storage` with `specs`' indexes built on it.
    #[allow(clippy::too_many_arguments)]
    fn rebuilt(
        &mut self,
        t: &Arc<TableEntry>,
        name: String,
        columns: Vec<ColumnDef>,
        storage: Table,
        specs: &[IndexSpec],
        checks: Vec<CheckConstraint>,
        foreign_keys: Vec<ForeignKey>,
        txn: TxnId,
    ) -> Result<Arc<TableEntry>> {
        let catalog = self.db.catalog.clone();
        let storage = Arc::new(storage);
        let indexes = specs
            .iter()
            .map(|s| catalog.build_index(s, &storage, self.db.txns.gc_horizon()))
            .collect::<Result<Vec<_>>>()?;
        let entry = catalog.new_version(
            t,
            name,
            columns,
            storage,
            indexes,
            checks,
            foreign_keys,
            txn,
        );
        self.replaced(t, entry.clone());
        Ok(entry)
    }

    /// 23502 if a live row of `table` has NULL in `column`.
    fn validate_not_null(&self, table: &TableEntry, column: usize) -> Result<()> {
        for (g, live) in table.storage.live_rows() {
            if live.iter().any(|&r| g.columns[column].is_null(r as usize)) {
                let name = &table.columns[column].name;
                return Err(Error::new(
                    "23502",
                    format!(
                        "column \"{name}\" of relation \"{}\" contains null values",
                        table.name
                    ),
                )
                .on_table(&table.name, Some(name), None));
            }
        }
        Ok(())
    }

    /// Proves new `checks` and unique `indexes` hold for every live row of `table`.
    fn validate(
        &self,
        table: &Arc<TableEntry>,
        checks: &[CheckConstraint],
        indexes: &[Arc<IndexEntry>],
        ctx: &ExecContext,
    ) -> Result<()> {
        let storage = &table.storage;
        for (g, live) in storage.live_rows() {
            if live.is_empty() {
                continue;
            }
            let batch = Batch::new(g.columns.clone(), g.rows());
            for check in checks {
                let v = exec::expr::eval(&check.expr, &batch, &live, ctx)?;
                if let Data::Bool(values) = &v.data
                    && (0..live.len()).any(|k| !values[k] && !v.is_null(k))
                {
                    return Err(Error::new(
                        "23514",
                        format!(
                            "check constraint \"{}\" of relation \"{}\" is violated by some row",
                            check.name, table.name
                        ),
                    )
                    .on_table(&table.name, None, Some(&check.name)));
                }
            }
        }
        for ix in indexes.iter().filter(|i| i.index.unique) {
            self.check_unique_build(table, ix)?;
        }
        Ok(())
    }

    /// 23505 `could not create unique index` if two live rows share a key of `ix`.
    pub(super) fn check_unique_build(&self, table: &TableEntry, ix: &IndexEntry) -> Result<()> {
        let storage = &table.storage;
        let mut candidates = Vec::new();
        let groups = storage.groups();
        for (g, group) in groups.iter().enumerate() {
            let admitted = ix.index.admits(&group.columns, group.rows());
            let keys = ix.index.keys_of_taken(&group.columns, group.rows());
            for r in 0..group.rows() {
                let id = row_id(g, r);
                if !super::write::live(storage.stamps(id))
                    || admitted.as_ref().is_some_and(|a| !a[r])
                {
                    continue;
                }
                candidates.clear();
                ix.index.same_key(&keys, r, id, &mut candidates);
                if candidates
                    .iter()
                    .any(|&o| super::write::live(storage.stamps(o)))
                {
                    let key = self.key_text(table, ix, &keys, r);
                    return Err(Error::new(
                        "23505",
                        format!("could not create unique index \"{}\"", ix.name),
                    )
                    .with_detail(format!("Key {key} is duplicated."))
                    .on_table(&table.name, None, Some(&ix.name)));
                }
            }
        }
        Ok(())
    }
}
