//! The write path: INSERT, UPDATE and DELETE storing their rows, with the table's
//! constraints enforced.
//!
//! A batch of new rows is checked and stored in PostgreSQL's order for each row — NOT
//! NULL, then CHECK constraints by name, then unique indexes in creation order — and the
//! error reported is the one PostgreSQL would meet first: the earliest failing row, and
//! for that row the first check in that order. The rows are appended (with their index
//! entries) before the unique check, which then looks for *other* entries with the
//! same key whose versions are live: inserted by a transaction that did not roll back
//! and not deleted. One writer at a time means an entry is either committed or this
//! transaction's own.
//!
//! An UPDATE stores each batch's new versions after stamping the old ones. PostgreSQL
//! updates row by row, so a new key meets the old version of a row the statement has
//! not reached yet (`UPDATE t SET id = id + 1` over ids 1, 2 fails on 2); the unique
//! check reproduces that by counting a version this statement deleted at a later
//! position as still live.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Outcome, Session, Undo};
use crate::catalog::IndexEntry;
use crate::catalog::{IndexSpec, TableEntry};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::exec::vector::{Batch, Data, Vector};
use crate::exec::{self};
use crate::plan::{Isolation, OnConflict, Plan, Recheck, Returning};
use crate::storage::index::{Keys, RowId};
use crate::storage::mvcc::{TXN_ABORTED, TXN_NONE, TxnId, deleter};
use crate::storage::table::{Claim, RowRange, range_ids};
use crate::types::DataType;
use crate::types::Value;
use crate::types::text::value_to_string;

/// Versions an UPDATE deleted, with the position (in the statement's row order) of
/// the row that deleted each.
type Deleted = HashMap<RowId, u64>;

/// What claiming a row for UPDATE or DELETE came to.
enum Claimed {
    /// The version the statement read.
    Same,
    /// A newer version of the row (a concurrent update committed meanwhile).
    Newer(RowId),
    /// Nothing to do: deleted meanwhile, or this statement already changed it.
    Skip,
}

/// A constraint a row failed, in the order PostgreSQL checks them.
enum Violation {
    NotNull(usize),
    Check(usize),
    Unique(usize),
    ForeignKey(usize),
}

impl Session {
    /// Appends the first `table.columns.len()` columns of `batch` as new versions, after
    /// NOT NULL and CHECK, then checks unique indexes. `first_position` is the
    /// statement-wide position of the batch's first row; `deleted` the versions this
    /// statement deleted (UPDATE).
    pub(super) fn store_rows(
        &mut self,
        table: &Arc<TableEntry>,
        batch: &Batch,
        ctx: &ExecContext,
        txn: TxnId,
        first_position: u64,
        deleted: Option<&Deleted>,
    ) -> Result<Vec<RowRange>> {
        let width = table.columns.len();
        let computed;
        let batch = if table.columns.iter().any(|c| c.generated.is_some()) {
            computed = with_generated(table, batch, ctx)?;
            &computed
        } else {
            batch
        };
        let rows = batch.rows;
        let cols = &batch.columns[..width];
        // The earliest failing row and what it failed.
        let mut first: Option<(usize, Violation)> = None;
        for (c, def) in table.columns.iter().enumerate() {
            if def.not_null && cols[c].has_nulls() {
                let row = (0..rows).find(|&r| cols[c].is_null(r)).unwrap_or(0);
                if first.as_ref().is_none_or(|(r, _)| row < *r) {
                    first = Some((row, Violation::NotNull(c)));
                }
            }
        }
        let limit = first.as_ref().map_or(rows, |(r, _)| *r);
        if !table.checks.is_empty() && limit > 0 {
            let sel: Vec<u32> = (0..limit as u32).collect();
            let mut failing: Option<(usize, usize)> = None;
            for (k, check) in table.checks.iter().enumerate() {
                let v = exec::expr::eval(&check.expr, batch, &sel, ctx)?;
                let Data::Bool(values) = &v.data else {
                    return Err(Error::internal("CHECK did not yield booleans"));
                };
                let end = failing.map_or(limit, |(r, _)| r);
                if let Some(row) = (0..end.min(values.len())).find(|&r| !values[r] && !v.is_null(r))
                {
                    failing = Some((row, k));
                }
            }
            if let Some((row, k)) = failing {
                first = Some((row, Violation::Check(k)));
            }
        }
        let limit = first.as_ref().map_or(rows, |(r, _)| *r);
        let (ranges, probes) = table.storage.append_probing(cols, rows, txn)?;
        for range in &ranges {
            self.undo.push(Undo::Insert(table.clone(), *range));
        }
        let mut deferred: Vec<(usize, usize)> = Vec::new();
        if limit > 0
            && !probes.is_empty()
            && let Some((row, index)) = self.unique_conflict(
                table,
                cols,
                &probes,
                txn,
                limit,
                first_position,
                deleted,
                &mut deferred,
            )?
        {
            first = Some((row, Violation::Unique(index)));
        }
        // A DEFERRABLE key's candidates are checked at the end of the statement, or at
        // COMMIT when it is deferred.
        if first.is_none() && !deferred.is_empty() {
            let ids: Vec<RowId> = range_ids(&ranges).map(|(_, id)| id).collect();
            for (k, ix) in table.indexes.iter().enumerate() {
                let rows: Vec<RowId> = deferred
                    .iter()
                    .filter(|&&(i, _)| i == k)
                    .filter_map(|&(_, row)| ids.get(row).copied())
                    .collect();
                if !rows.is_empty() {
                    self.defer_unique_check(table, ix, rows);
                }
            }
        }
        // Foreign keys last: PostgreSQL checks them after the statement's rows are in.
        // Deferred ones wait for COMMIT (or SET CONSTRAINTS … IMMEDIATE).
        if first.is_none() && !table.foreign_keys.is_empty() {
            let deferred: Vec<bool> = table
                .foreign_keys
                .iter()
                .map(|fk| self.fk_deferred(fk))
                .collect();
            for (k, fk) in table.foreign_keys.iter().enumerate() {
                if deferred[k] {
                    self.defer_child_check(
                        table,
                        fk,
                        range_ids(&ranges).map(|(_, id)| id).collect(),
                    );
                }
            }
            if let Some((row, k)) = self.missing_reference(table, cols, rows, &deferred, ctx)? {
                first = Some((row, Violation::ForeignKey(k)));
            }
        }
        // Which row failed, for COPY's CONTEXT; a foreign key's error has none there
        // (PostgreSQL checks them after the statement).
        self.failed_row = match &first {
            Some((row, Violation::NotNull(_) | Violation::Check(_))) => Some((*row, true)),
            Some((row, Violation::Unique(_))) => Some((*row, false)),
            _ => None,
        };
        match first {
            None => Ok(ranges),
            Some((row, Violation::ForeignKey(k))) => {
                Err(self.missing_reference_error(table, &table.foreign_keys[k], cols, row, ctx))
            }
            Some((row, v)) => Err(self.violation(table, cols, row, v)),
        }
    }

    /// INSERT … ON CONFLICT, a proposed row at a time: a row whose key an arbiter index
    /// already holds in a live version is skipped (DO NOTHING) or turns into an update
    /// of that version (DO UPDATE; `21000` if this statement wrote that version).
    /// NOT NULL and CHECK are tested on the proposed row first, as PostgreSQL does.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_upsert(
        &mut self,
        table: &Arc<TableEntry>,
        source: &Plan,
        oc: &OnConflict,
        ctx: &ExecContext,
        txn: TxnId,
        returning: Option<&Returning>,
        out: &mut Vec<Batch>,
    ) -> Result<u64> {
        let width = table.columns.len();
        let storage = &table.storage;
        let mut op = exec::build(source);
        let mut count = 0u64;
        let mut written: std::collections::HashSet<RowId> = std::collections::HashSet::new();
        let mut candidates: Vec<RowId> = Vec::new();
        while let Some(b) = op.next(ctx)? {
            let b = b.compact();
            for r in 0..b.rows {
                let proposed = Batch::new(
                    b.columns[..width]
                        .iter()
                        .map(|c| c.gather(&[r as u32]))
                        .collect(),
                    1,
                );
                let proposed = if table.columns.iter().any(|c| c.generated.is_some()) {
                    with_generated(table, &proposed, ctx)?
                } else {
                    proposed
                };
                self.check_row(table, &proposed, ctx)?;
                // Find the conflicting version and, for DO UPDATE, claim it; a version
                // a concurrent transaction replaced meanwhile means looking again.
                let (existing, update) = loop {
                    let mut conflict = None;
                    for &k in &oc.arbiters {
                        candidates.clear();
                        let index = &table.indexes[k].index;
                        let keys = index.keys(&proposed.columns, 1, None)?;
                        index.same_key(&keys, 0, RowId::MAX, &mut candidates);
                        for &c in &candidates {
                            if self.holds_key(table, c, txn, u64::MAX, None)? {
                                conflict = Some(c);
                                break;
                            }
                        }
                        if conflict.is_some() {
                            break;
                        }
                    }
                    match (conflict, &oc.update) {
                        (Some(existing), Some(update)) => {
                            if written.contains(&existing) {
                                return Err(Error::new(
                                    "21000",
                                    "ON CONFLICT DO UPDATE command cannot affect row a second time",
                                )
                                .with_hint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values."));
                            }
                            match self.claim_row(table, existing, txn)? {
                                Claimed::Same => break (Some(existing), Some(update)),
                                Claimed::Newer(v) => {
                                    storage.release(v, txn);
                                    continue;
                                }
                                Claimed::Skip => continue,
                            }
                        }
                        (conflict, _) => break (conflict, None),
                    }
                };
                let (Some(existing), Some(update)) = (existing, update) else {
                    if existing.is_none() {
                        let ranges = self.store_rows(table, &proposed, ctx, txn, count, None)?;
                        written.extend(range_ids(&ranges).map(|(_, id)| id));
                        count += 1;
                        returned_rows(returning, &proposed, ctx, out)?;
                    }
                    continue;
                };
                let mut both = storage.fetch(&[existing], None);
                both.extend(proposed.columns.iter().cloned());
                let both = Batch::new(both, 1);
                if let Some(f) = &update.filter
                    && exec::expr::eval_filter(f, &both, &[0], ctx)?.is_empty()
                {
                    storage.release(existing, txn);
                    continue;
                }
                let new_row = Batch::new(
                    update
                        .exprs
                        .iter()
                        .map(|e| exec::expr::eval(e, &both, &[0], ctx))
                        .collect::<Result<Vec<_>>>()?,
                    1,
                );
                let new_row = if table.columns.iter().any(|c| c.generated.is_some()) {
                    with_generated(table, &new_row, ctx)?
                } else {
                    new_row
                };
                self.undo.push(Undo::Delete(table.clone(), existing));
                let ranges = self.store_rows(table, &new_row, ctx, txn, count, None)?;
                if let Some((_, new_id)) = range_ids(&ranges).next() {
                    storage.set_next(existing, new_id);
                }
                let old_row = Batch::new(both.columns[..width].to_vec(), 1);
                self.referenced_rows_changed(table, &old_row, Some(&new_row), ctx, txn)?;
                written.extend(range_ids(&ranges).map(|(_, id)| id));
                count += 1;
                returned_rows(returning, &new_row, ctx, out)?;
            }
        }
        Ok(count)
    }

    /// NOT NULL and CHECK for the one row of `row`.
    fn check_row(&self, table: &TableEntry, row: &Batch, ctx: &ExecContext) -> Result<()> {
        let cols = &row.columns[..table.columns.len()];
        for (c, def) in table.columns.iter().enumerate() {
            if def.not_null && cols[c].is_null(0) {
                return Err(self.violation(table, cols, 0, Violation::NotNull(c)));
            }
        }
        for (k, check) in table.checks.iter().enumerate() {
            let v = exec::expr::eval(&check.expr, row, &[0], ctx)?;
            if let Data::Bool(values) = &v.data
                && values.first() == Some(&false)
                && !v.is_null(0)
            {
                return Err(self.violation(table, cols, 0, Violation::Check(k)));
            }
        }
        Ok(())
    }

    /// The first row before `limit` whose key some unique index already held in a live
    /// version when the row's entry went in (`probes`, from the append), and that
    /// index's position in `table.indexes`. Versions of transactions in progress are
    /// waited for: their commit decides. A DEFERRABLE key's candidates are left in
    /// `deferred` as `(index position, row)`.
    #[allow(clippy::too_many_arguments)]
    fn unique_conflict(
        &self,
        table: &TableEntry,
        cols: &[Vector],
        probes: &[(u32, usize, RowId)],
        txn: TxnId,
        limit: usize,
        first_position: u64,
        deleted: Option<&Deleted>,
        deferred: &mut Vec<(usize, usize)>,
    ) -> Result<Option<(usize, usize)>> {
        // Garbage among the candidates: their entries go (see `Index::prune`).
        let horizon = self.db.txns.gc_horizon();
        let mut pruned: Vec<(u32, usize)> = Vec::new();
        let rows = cols.first().map_or(0, |c| c.len());
        let mut keys: Vec<(u32, crate::storage::index::Keys)> = Vec::new();
        for &(index_id, row, other) in probes {
            if table.storage.is_dead(other, horizon) && !pruned.contains(&(index_id, row)) {
                pruned.push((index_id, row));
                if let Some(ix) = table.indexes.iter().find(|i| i.index.id == index_id) {
                    let at = match keys.iter().position(|(id, _)| *id == index_id) {
                        Some(at) => at,
                        None => {
                            keys.push((index_id, ix.index.keys_of_taken(cols, rows)));
                            keys.len() - 1
                        }
                    };
                    let key = ix.index.key_of(&keys[at].1, row);
                    ix.index
                        .prune(&key, |id| table.storage.is_dead(id, horizon));
                }
            }
        }
        let mut first: Option<(usize, usize)> = None;
        for &(index_id, row, other) in probes {
            if row >= limit
                || first.is_some_and(|(r, _)| r <= row)
                || table.storage.is_dead(other, horizon)
            {
                continue;
            }
            let Some(k) = table.indexes.iter().position(|i| i.index.id == index_id) else {
                continue;
            };
            if table.indexes[k].deferrable {
                if !deferred.contains(&(k, row)) {
                    deferred.push((k, row));
                }
                continue;
            }
            let position = first_position + row as u64;
            if self.holds_key(table, other, txn, position, deleted)? {
                let better = first.is_none_or(|(r, kk)| row < r || (row == r && k < kk));
                if better {
                    first = Some((row, k));
                }
            }
        }
        Ok(first)
    }

    /// Whether version `other` holds its key for a unique check by the row at
    /// statement position `position`: inserted by a transaction that did not roll back,
    /// and not deleted — waiting for the transaction that inserted or deletes it while
    /// it is in progress.
    pub(super) fn holds_key(
        &self,
        table: &TableEntry,
        other: RowId,
        txn: TxnId,
        position: u64,
        deleted: Option<&Deleted>,
    ) -> Result<bool> {
        loop {
            let Some((xmin, xmax)) = table.storage.stamps(other) else {
                return Ok(false);
            };
            let xmax = deleter(xmax);
            if xmin == TXN_ABORTED {
                return Ok(false);
            }
            if xmin != txn && self.db.txns.is_active(xmin) {
                self.wait_for_txn(xmin)?;
                continue;
            }
            if xmax == TXN_NONE {
                return Ok(true);
            }
            if xmax == txn {
                // Deleted by this statement at a row it reaches later: PostgreSQL would
                // still see that version when it stores this row.
                return Ok(deleted
                    .and_then(|d| d.get(&other))
                    .is_some_and(|&at| at > position));
            }
            if self.db.txns.is_active(xmax) {
                self.wait_for_txn(xmax)?;
                continue;
            }
            return Ok(false);
        }
    }

    fn violation(&self, table: &TableEntry, cols: &[Vector], row: usize, v: Violation) -> Error {
        let fmt = self.text_format();
        let text = |c: usize| match cols[c].value(row, table.columns[c].ty.ty) {
            Value::Null => "null".to_string(),
            v => value_to_string(&v, &fmt),
        };
        let whole_row = || {
            let values: Vec<String> = (0..table.columns.len()).map(text).collect();
            format!("({})", values.join(", "))
        };
        match v {
            Violation::NotNull(c) => Error::not_null_violation(&table.columns[c].name, &table.name)
                .with_detail(format!("Failing row contains {}.", whole_row())),
            Violation::Check(k) => {
                Error::check_violation(&table.checks[k].name, &table.name, &whole_row())
            }
            Violation::Unique(k) => {
                let ix = &table.indexes[k];
                let rows = cols.first().map_or(0, |c| c.len());
                let keys = ix.index.keys_of_taken(cols, rows);
                let key = self.key_text(table, ix, &keys, row);
                Error::unique_violation(&ix.name, &table.name, &key)
            }
            Violation::ForeignKey(_) => Error::internal("foreign key violation reported here"),
        }
    }

    pub(super) fn run_insert(
        &mut self,
        table: &Arc<TableEntry>,
        mut op: exec::BoxedOperator,
        ctx: &ExecContext,
        txn: TxnId,
        returning: Option<&Returning>,
        out: &mut Vec<Batch>,
    ) -> Result<u64> {
        let mut count = 0u64;
        let generated = table.columns.iter().any(|c| c.generated.is_some());
        while let Some(b) = op.next(ctx)? {
            let mut b = b.compact();
            if generated {
                b = with_generated(table, &b, ctx)?;
            }
            self.store_rows(table, &b, ctx, txn, count, None)?;
            count += b.rows as u64;
            returned_rows(returning, &b, ctx, out)?;
        }
        Ok(count)
    }

    fn row_ids(batch: &Batch) -> Result<&[i64]> {
        match batch.columns.last().map(|c| &c.data) {
            Some(Data::I64(ids)) => Ok(ids),
            _ => Err(Error::internal("row id column missing")),
        }
    }

    /// Claims version `id` of `table` for this transaction, waiting for a transaction
    /// in progress that holds it. A version a committed transaction replaced meanwhile
    /// is followed to its newest version (READ COMMITTED), which the caller re-checks.
    fn claim_row(&self, table: &TableEntry, id: RowId, txn: TxnId) -> Result<Claimed> {
        let txns = self.db.txns.clone();
        let mut at = id;
        loop {
            match table.storage.claim(at, txn, |t| txns.is_active(t)) {
                Claim::Locked if at == id => return Ok(Claimed::Same),
                Claim::Locked => return Ok(Claimed::Newer(at)),
                Claim::Ours | Claim::Missing => return Ok(Claimed::Skip),
                Claim::Busy(other) => self.wait_for_txn(other)?,
                // REPEATABLE READ and SERIALIZABLE cannot move to a version their
                // snapshot does not see.
                Claim::Gone(_) if self.isolation() != Isolation::ReadCommitted => {
                    let what = if table.storage.next_version(at).is_some() {
                        "update"
                    } else {
                        "delete"
                    };
                    return Err(Error::new(
                        "40001",
                        format!("could not serialize access due to concurrent {what}"),
                    ));
                }
                Claim::Gone(_) => match table.storage.next_version(at) {
                    Some(next) => at = next,
                    None => return Ok(Claimed::Skip),
                },
            }
        }
    }

    /// Claims a referencing row a foreign key's action changes: the version claimed, or
    /// None if it is gone. A newer version (updated concurrently) is claimed as found.
    pub(super) fn claim_for_action(
        &self,
        table: &TableEntry,
        id: RowId,
        txn: TxnId,
    ) -> Result<Option<RowId>> {
        Ok(match self.claim_row(table, id, txn)? {
            Claimed::Same => Some(id),
            Claimed::Newer(v) => Some(v),
            Claimed::Skip => None,
        })
    }

    /// For a row claimed at a newer version: its columns, if the statement's WHERE
    /// still holds there (else the claim is given back). No re-check (UPDATE … FROM,
    /// DELETE … USING): `40001`.
    fn recheck_row(
        &self,
        table: &TableEntry,
        version: RowId,
        recheck: Option<&Recheck>,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Option<Batch>> {
        let Some(rc) = recheck else {
            table.storage.release(version, txn);
            return Err(Error::new(
                "40001",
                "could not serialize access due to concurrent update",
            ));
        };
        let row = Batch::new(table.storage.fetch(&[version], None), 1);
        if let Some(f) = &rc.filter
            && exec::expr::eval_filter(f, &row, &[0], ctx)?.is_empty()
        {
            table.storage.release(version, txn);
            return Ok(None);
        }
        Ok(Some(row))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_update(
        &mut self,
        table: &Arc<TableEntry>,
        mut op: exec::BoxedOperator,
        ctx: &ExecContext,
        txn: TxnId,
        returning: Option<&Returning>,
        recheck: Option<&Recheck>,
        out: &mut Vec<Batch>,
    ) -> Result<u64> {
        let mut count = 0u64;
        let width = table.columns.len();
        let has_unique = table.indexes.iter().any(|i| i.index.unique);
        let referenced = !self
            .db
            .catalog
            .referencing(table.oid, &ctx.snapshot)
            .is_empty();
        let mut deleted: Deleted = HashMap::new();
        while let Some(b) = op.next(ctx)? {
            let b = b.compact();
            let ids = Self::row_ids(&b)?.to_vec();
            // The versions replaced, and the batch rows (or re-computed rows) replacing them.
            let mut keep: Vec<u32> = Vec::with_capacity(ids.len());
            let mut old_ids: Vec<RowId> = Vec::with_capacity(ids.len());
            let mut late: Vec<(RowId, Batch)> = Vec::new();
            for (i, &id) in ids.iter().enumerate() {
                let id = id as RowId;
                match self.claim_row(table, id, txn)? {
                    Claimed::Skip => {}
                    Claimed::Same => {
                        self.undo.push(Undo::Delete(table.clone(), id));
                        if has_unique {
                            deleted.insert(id, count + keep.len() as u64);
                        }
                        keep.push(i as u32);
                        old_ids.push(id);
                    }
                    Claimed::Newer(v) => {
                        let Some(row) = self.recheck_row(table, v, recheck, ctx, txn)? else {
                            continue;
                        };
                        self.undo.push(Undo::Delete(table.clone(), v));
                        let new_row = match recheck {
                            Some(rc) => Batch::new(
                                rc.new_row
                                    .iter()
                                    .map(|e| exec::expr::eval(e, &row, &[0], ctx))
                                    .collect::<Result<Vec<_>>>()?,
                                1,
                            ),
                            None => continue,
                        };
                        let new_row = if table.columns.iter().any(|c| c.generated.is_some()) {
                            with_generated(table, &new_row, ctx)?
                        } else {
                            new_row
                        };
                        late.push((v, new_row));
                    }
                }
            }
            let new_rows = if keep.len() == b.rows {
                Batch::new(b.columns[..width].to_vec(), b.rows)
            } else {
                Batch::new(
                    b.columns[..width].iter().map(|c| c.gather(&keep)).collect(),
                    keep.len(),
                )
            };
            let new_rows = if table.columns.iter().any(|c| c.generated.is_some()) {
                with_generated(table, &new_rows, ctx)?
            } else {
                new_rows
            };
            let deleted_now = has_unique.then_some(&deleted);
            let ranges = self.store_rows(table, &new_rows, ctx, txn, count, deleted_now)?;
            for ((_, new_id), &old) in range_ids(&ranges).zip(&old_ids) {
                table.storage.set_next(old, new_id);
            }
            if referenced {
                let old_rows = Batch::new(table.storage.fetch(&old_ids, None), old_ids.len());
                self.referenced_rows_changed(table, &old_rows, Some(&new_rows), ctx, txn)?;
            }
            count += keep.len() as u64;
            returned_rows(returning, &new_rows, ctx, out)?;
            for (old, row) in late {
                let ranges = self.store_rows(table, &row, ctx, txn, count, deleted_now)?;
                if let Some((_, new_id)) = range_ids(&ranges).next() {
                    table.storage.set_next(old, new_id);
                }
                if referenced {
                    let old_row = Batch::new(table.storage.fetch(&[old], None), 1);
                    self.referenced_rows_changed(table, &old_row, Some(&row), ctx, txn)?;
                }
                count += 1;
                returned_rows(returning, &row, ctx, out)?;
            }
        }
        Ok(count)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_delete(
        &mut self,
        table: &Arc<TableEntry>,
        mut op: exec::BoxedOperator,
        ctx: &ExecContext,
        txn: TxnId,
        returning: Option<&Returning>,
        recheck: Option<&Recheck>,
        out: &mut Vec<Batch>,
    ) -> Result<u64> {
        let mut count = 0u64;
        let width = table.columns.len();
        let referenced = !self.truncating
            && !self
                .db
                .catalog
                .referencing(table.oid, &ctx.snapshot)
                .is_empty();
        while let Some(b) = op.next(ctx)? {
            let sel = b.selection();
            let ids = Self::row_ids(&b)?.to_vec();
            // The deleted versions (for RETURNING and referencing tables).
            let mut deleted: Vec<RowId> = Vec::new();
            for &i in &sel {
                let id = ids[i as usize] as RowId;
                let victim = match self.claim_row(table, id, txn)? {
                    Claimed::Skip => continue,
                    Claimed::Same => id,
                    Claimed::Newer(v) => {
                        if self.recheck_row(table, v, recheck, ctx, txn)?.is_none() {
                            continue;
                        }
                        v
                    }
                };
                self.undo.push(Undo::Delete(table.clone(), victim));
                count += 1;
                deleted.push(victim);
            }
            if (returning.is_some() || referenced) && !deleted.is_empty() {
                let old_rows = Batch::new(
                    table.storage.fetch(&deleted, None)[..width].to_vec(),
                    deleted.len(),
                );
                if referenced {
                    self.referenced_rows_changed(table, &old_rows, None, ctx, txn)?;
                }
                returned_rows(returning, &old_rows, ctx, out)?;
            }
        }
        Ok(count)
    }

    /// CREATE INDEX: a new version of the table with the index, its entries built from
    /// every stored version; a UNIQUE one first proves the live rows' keys distinct.
    pub(super) fn create_index(
        &mut self,
        table: &Arc<TableEntry>,
        spec: &IndexSpec,
        if_not_exists: bool,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let done = Outcome::Done {
            tag: "CREATE INDEX".into(),
        };
        if self
            .db
            .catalog
            .relation_exists(table.namespace, &spec.name, &ctx.snapshot)
        {
            if if_not_exists {
                self.notices.push((
                    "NOTICE".into(),
                    "42P07".into(),
                    format!("relation \"{}\" already exists, skipping", spec.name),
                ));
                return Ok(done);
            }
            return Err(Error::duplicate_table(&spec.name));
        }
        let Some(current) = self
            .db
            .catalog
            .table(table.namespace, &table.name, &ctx.snapshot)
        else {
            return Err(Error::undefined_table(&table.name));
        };
        let (entry, index) =
            self.db
                .catalog
                .add_index(&current, spec, txn, self.db.txns.gc_horizon())?;
        self.undo.push(Undo::DropTable(current.clone()));
        self.undo.push(Undo::CreateTable(entry.clone()));
        if index.index.unique {
            self.check_unique_build(&entry, &index)?;
        }
        Ok(done)
    }

    /// DROP INDEX [IF EXISTS] names: a new version of each owning table without it.
    pub(super) fn drop_indexes(
        &mut self,
        names: &[crate::catalog::RelName],
        if_exists: bool,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        for rel in names {
            let name = &rel.name;
            let Some(owner) = self.db.catalog.index_owner(rel.ns, name, &ctx.snapshot) else {
                if self.db.catalog.relation(rel, &ctx.snapshot).is_some() {
                    return Err(Error::new("42809", format!("\"{name}\" is not an index"))
                        .with_hint("Use DROP TABLE to remove a table."));
                }
                if if_exists {
                    self.notice(format!("index \"{name}\" does not exist, skipping"));
                    continue;
                }
                return Err(Error::new(
                    "42704",
                    format!("index \"{name}\" does not exist"),
                ));
            };
            if let Some(ix) = owner.index_named(name)
                && ix.constraint.is_some()
            {
                return Err(Error::new(
                    "2BP01",
                    format!(
                        "cannot drop index {name} because constraint {name} on table {} requires it",
                        owner.name
                    ),
                )
                .with_hint(format!(
                    "You can drop constraint {name} on table {} instead.",
                    owner.name
                )));
            }
            if let Some(ix) = owner.index_named(name)
                && ix.index.unique
            {
                let cols: std::collections::BTreeSet<usize> =
                    ix.index.parts.iter().map(|p| p.column).collect();
                let dependents: Vec<String> = self
                    .db
                    .catalog
                    .referencing(owner.oid, &ctx.snapshot)
                    .into_iter()
                    .filter(|(_, fk)| {
                        fk.parent_columns
                            .iter()
                            .copied()
                            .collect::<std::collections::BTreeSet<_>>()
                            == cols
                    })
                    .map(|(c, fk)| {
                        format!(
                            "constraint {} on table {} depends on index {name}",
                            fk.name, c.name
                        )
                    })
                    .collect();
                if !dependents.is_empty() {
                    return Err(Error::new(
                        "2BP01",
                        format!("cannot drop index {name} because other objects depend on it"),
                    )
                    .with_detail(dependents.join("\n"))
                    .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                }
            }
            let indexes = owner
                .indexes
                .iter()
                .filter(|i| i.name != *name)
                .cloned()
                .collect();
            let entry = self.db.catalog.replace_version(
                &owner,
                owner.columns.clone(),
                indexes,
                owner.checks.clone(),
                txn,
            );
            self.undo.push(Undo::DropTable(owner.clone()));
            self.undo.push(Undo::CreateTable(entry));
        }
        Ok(Outcome::Done {
            tag: "DROP INDEX".into(),
        })
    }

    /// `(a, b)=(1, x)`: an index key as PostgreSQL's messages show it.
    pub(super) fn key_text(
        &self,
        table: &TableEntry,
        ix: &IndexEntry,
        keys: &Keys,
        row: usize,
    ) -> String {
        let fmt = self.text_format();
        let types: Vec<DataType> = table.columns.iter().map(|c| c.ty.ty).collect();
        let parts = &ix.index.parts;
        let names: Vec<String> = (0..parts.len())
            .map(|k| {
                let name = crate::catalog::system::index_key_sql(table, ix, k, false);
                // A column's name unquoted, as PostgreSQL's DETAIL shows it.
                match parts[k].table_column() {
                    Some(c) => table.columns[c].name.clone(),
                    None => name,
                }
            })
            .collect();
        let values: Vec<String> = parts
            .iter()
            .map(|p| {
                let (v, at) = keys.value(p, row);
                let ty = ix.index.part_type(p, &types).unwrap_or(DataType::Text);
                match v.value(at, ty) {
                    Value::Null => "null".to_string(),
                    v => value_to_string(&v, &fmt),
                }
            })
            .collect();
        format!("({})=({})", names.join(", "), values.join(", "))
    }
}

/// `batch` with its generated columns computed from the others.
pub(super) fn with_generated(
    table: &TableEntry,
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Batch> {
    let width = table.columns.len();
    let mut columns = batch.columns[..width].to_vec();
    let sel: Vec<u32> = (0..batch.rows as u32).collect();
    for (i, c) in table.columns.iter().enumerate() {
        if let Some(g) = &c.generated {
            columns[i] = exec::expr::eval(g, batch, &sel, ctx)?;
        }
    }
    Ok(Batch::new(columns, batch.rows))
}

/// Appends RETURNING's rows for `rows` (a dense batch of the table's columns) to `out`.
fn returned_rows(
    returning: Option<&Returning>,
    rows: &Batch,
    ctx: &ExecContext,
    out: &mut Vec<Batch>,
) -> Result<()> {
    let Some(r) = returning else {
        return Ok(());
    };
    if rows.rows == 0 {
        return Ok(());
    }
    let sel: Vec<u32> = (0..rows.rows as u32).collect();
    let columns = r
        .exprs
        .iter()
        .map(|e| exec::expr::eval(e, rows, &sel, ctx))
        .collect::<Result<Vec<_>>>()?;
    out.push(Batch::new(columns, rows.rows));
    Ok(())
}

/// Whether a version with these stamps is live for a unique check: inserted by a
/// transaction that did not roll back, and not deleted.
pub(super) fn live(stamps: Option<(TxnId, TxnId)>) -> bool {
    stamps.is_some_and(|(xmin, xmax)| xmin != TXN_ABORTED && deleter(xmax) == TXN_NONE)
}
