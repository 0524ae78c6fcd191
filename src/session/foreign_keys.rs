//! Foreign keys, enforced by the writer.
//!
//! **Referencing side.** A new row version of a table with foreign keys must find its
//! key (when no key column is NULL: MATCH SIMPLE) in a live version of the referenced
//! table, looked up in the referenced table's unique index over exactly those columns;
//! otherwise `23503 insert or update … violates foreign key constraint`. The check runs
//! after the batch's rows and index entries are in, so a row may reference one stored
//! by the same statement (PostgreSQL checks at the end of the statement).
//!
//! **Referenced side.** When versions of a referenced table are deleted or updated, the
//! keys that went away (for an UPDATE: keys that changed; for NO ACTION, keys no other
//! live version still holds) are looked up in each referencing table — a scan of its
//! live rows, or its index when one leads with the key's columns — and the key's action
//! runs: NO ACTION and RESTRICT raise `23503 … is still referenced`, CASCADE deletes the
//! referencing rows or moves their key to the new value, SET NULL and SET DEFAULT
//! update them. Changes made by an action go through the same path, so they cascade on.
//!
//! **Deferred keys.** A DEFERRABLE key that is INITIALLY DEFERRED, or deferred by SET
//! CONSTRAINTS, records its checks ([`Pending`]) instead of running them; COMMIT (or
//! SET CONSTRAINTS … IMMEDIATE) runs them against the rows as they are then, and a
//! failing COMMIT rolls back with `23503`. RESTRICT is never deferred.
//!
//! **Deferrable unique keys.** A DEFERRABLE PRIMARY KEY or UNIQUE constraint is not
//! checked row by row: a new version whose key met another entry when it was stored
//! becomes a pending check ([`Pending::Unique`]), run when the statement ends — or,
//! deferred, at COMMIT or SET CONSTRAINTS … IMMEDIATE — against the versions live
//! then (PostgreSQL's unique_key_recheck). Such a key never backs a foreign key or
//! an ON CONFLICT arbiter (55000), as in PostgreSQL.

use std::collections::HashMap;
use std::sync::Arc;

use super::write::live;
use super::{Session, Undo};
use crate::catalog::{FkAction, ForeignKey, IndexEntry, TableEntry};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::exec::sort::normalize_value;
use crate::exec::vector::{Batch, Vector};
use crate::storage::index::{RowId, row_id};
use crate::storage::mvcc::TxnId;
use crate::types::Value;
use crate::types::text::value_to_string;

/// A foreign-key or deferrable-key check left for the end of the statement or COMMIT.
pub(super) enum Pending {
    /// New versions of `table` whose key equalled another's in DEFERRABLE key `index`
    /// (its oid) when they were stored: the key must be theirs alone by the time the
    /// check runs.
    Unique {
        table: Arc<TableEntry>,
        index: u32,
        rows: Vec<RowId>,
    },
    /// New versions of `table` that must find their key.
    Child {
        table: Arc<TableEntry>,
        fk: ForeignKey,
        rows: Vec<RowId>,
    },
    /// Keys (rows of `keys`, the referenced table's columns) that went from `parent`:
    /// no live row of `child` may still hold one.
    Parent {
        parent: Arc<TableEntry>,
        child: Arc<TableEntry>,
        fk: ForeignKey,
        keys: Batch,
    },
}

/// SET CONSTRAINTS' state in a transaction.
#[derive(Default)]
pub(super) struct Deferral {
    pub(super) all: Option<bool>,
    pub(super) named: HashMap<String, bool>,
}

/// A key's columns encoded for matching (ascending, NULLs last), or None if one is NULL.
fn match_key(cols: &[Vector], columns: &[usize], row: usize) -> Option<Vec<u8>> {
    let mut key = Vec::new();
    for &c in columns {
        if cols[c].is_null(row) {
            return None;
        }
        normalize_value(&cols[c], row, false, false, &mut key);
    }
    Some(key)
}

/// The referenced table's unique index over exactly `fk.parent_columns`.
fn parent_index<'a>(parent: &'a TableEntry, fk: &ForeignKey) -> Option<&'a Arc<IndexEntry>> {
    let mut wanted = fk.parent_columns.clone();
    wanted.sort_unstable();
    parent.indexes.iter().find(|i| {
        let mut have: Vec<usize> = i.index.parts.iter().map(|p| p.column).collect();
        have.sort_unstable();
        // A DEFERRABLE key may hold duplicates for a while: never the one referenced.
        i.index.unique && !i.deferrable && i.index.predicate.is_none() && have == wanted
    })
}

impl Session {
    fn referenced_table(&self, fk: &ForeignKey, ctx: &ExecContext) -> Result<Arc<TableEntry>> {
        self.db
            .catalog
            .by_oid(fk.parent, &ctx.snapshot)
            .ok_or_else(|| Error::internal(format!("foreign key {} lost its table", fk.name)))
    }

    /// Whether row `row` of `cols` (the referencing table's columns, as `fk.columns`
    /// names them) has a NULL key column or a key some live version of `parent` holds.
    fn reference_found(
        parent: &TableEntry,
        ix: &IndexEntry,
        fk: &ForeignKey,
        cols: &[Vector],
        row: usize,
    ) -> bool {
        if fk.columns.iter().any(|&c| cols[c].is_null(row)) {
            return true;
        }
        let mut key = Vec::new();
        for part in &ix.index.parts {
            let Some(j) = fk.parent_columns.iter().position(|&p| p == part.column) else {
                return false;
            };
            normalize_value(
                &cols[fk.columns[j]],
                row,
                part.desc,
                part.nulls_first,
                &mut key,
            );
        }
        let mut ids = Vec::new();
        ix.index.prefix(&key, &mut ids);
        ids.iter().any(|&id| live(parent.storage.stamps(id)))
    }

    /// The first row before `limit` whose key a foreign key of `table` does not find,
    /// and that key's position in `table.foreign_keys`.
    pub(super) fn missing_reference(
        &self,
        table: &TableEntry,
        cols: &[Vector],
        limit: usize,
        skip: &[bool],
        ctx: &ExecContext,
    ) -> Result<Option<(usize, usize)>> {
        let mut parents = Vec::with_capacity(table.foreign_keys.len());
        for fk in &table.foreign_keys {
            let parent = self.referenced_table(fk, ctx)?;
            if parent_index(&parent, fk).is_none() {
                return Err(Error::internal(format!(
                    "foreign key {} has no index",
                    fk.name
                )));
            }
            parents.push(parent);
        }
        for row in 0..limit {
            for (k, fk) in table.foreign_keys.iter().enumerate() {
                if skip.get(k).copied().unwrap_or(false) {
                    continue;
                }
                let parent = &parents[k];
                let Some(ix) = parent_index(parent, fk) else {
                    continue;
                };
                if !Self::reference_found(parent, ix, fk, cols, row) {
                    return Ok(Some((row, k)));
                }
            }
        }
        Ok(None)
    }

    /// `23503` for row `row` of `cols` missing in the table `fk` references.
    pub(super) fn missing_reference_error(
        &self,
        table: &TableEntry,
        fk: &ForeignKey,
        cols: &[Vector],
        row: usize,
        ctx: &ExecContext,
    ) -> Error {
        let parent = self
            .referenced_table(fk, ctx)
            .map_or_else(|_| "?".to_string(), |p| p.name.clone());
        let key = self.columns_text(table, &fk.columns, cols, row);
        Error::new(
            "23503",
            format!(
                "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
                table.name, fk.name
            ),
        )
        .with_detail(format!("Key {key} is not present in table \"{parent}\"."))
        .on_table(&table.name, None, Some(&fk.name))
    }

    /// `(a, b)=(1, x)` for columns `columns` of `table` at row `row` of `cols`.
    fn columns_text(
        &self,
        table: &TableEntry,
        columns: &[usize],
        cols: &[Vector],
        row: usize,
    ) -> String {
        let fmt = self.text_format();
        let names: Vec<&str> = columns
            .iter()
            .map(|&c| table.columns[c].name.as_str())
            .collect();
        let values: Vec<String> = columns
            .iter()
            .map(|&c| match cols[c].value(row, table.columns[c].ty.ty) {
                Value::Null => "null".to_string(),
                v => value_to_string(&v, &fmt),
            })
            .collect();
        format!("({})=({})", names.join(", "), values.join(", "))
    }

    /// ALTER TABLE … ADD FOREIGN KEY: every live row must find its key.
    pub(super) fn validate_foreign_keys(
        &self,
        table: &TableEntry,
        fks: &[ForeignKey],
        ctx: &ExecContext,
    ) -> Result<()> {
        for fk in fks {
            let parent = self.referenced_table(fk, ctx)?;
            let Some(ix) = parent_index(&parent, fk) else {
                return Err(Error::internal(format!(
                    "foreign key {} has no index",
                    fk.name
                )));
            };
            for (g, rows) in table.storage.live_rows() {
                for &r in &rows {
                    if !Self::reference_found(&parent, ix, fk, &g.columns, r as usize) {
                        return Err(
                            self.missing_reference_error(table, fk, &g.columns, r as usize, ctx)
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether `fk` is checked at COMMIT in this transaction: DEFERRABLE, and deferred
    /// by SET CONSTRAINTS or INITIALLY DEFERRED.
    pub(super) fn fk_deferred(&self, fk: &ForeignKey) -> bool {
        // Outside a block the statement is the transaction: checked at its end, now.
        if !fk.deferrable || !matches!(self.status, super::TxnStatus::InBlock) {
            return false;
        }
        let d = &self.txn.deferral;
        d.named
            .get(&fk.name)
            .copied()
            .or(d.all)
            .unwrap_or(fk.initially_deferred)
    }

    /// Whether DEFERRABLE key `ix` is deferred now (outside a transaction block its
    /// checks run at the end of the statement, which is the transaction's end too).
    pub(super) fn key_deferred(&self, ix: &IndexEntry) -> bool {
        if !ix.deferrable || !matches!(self.status, super::TxnStatus::InBlock) {
            return false;
        }
        let d = &self.txn.deferral;
        d.named
            .get(&ix.name)
            .copied()
            .or(d.all)
            .unwrap_or(ix.initially_deferred)
    }

    pub(super) fn defer_unique_check(
        &mut self,
        table: &Arc<TableEntry>,
        ix: &IndexEntry,
        rows: Vec<RowId>,
    ) {
        self.txn.pending.push(Pending::Unique {
            table: table.clone(),
            index: ix.oid,
            rows,
        });
    }

    /// Whether a pending check waits still: its constraint is deferred.
    fn still_deferred(&self, p: &Pending) -> bool {
        match p {
            Pending::Child { fk, .. } | Pending::Parent { fk, .. } => self.fk_deferred(fk),
            Pending::Unique { table, index, .. } => table
                .indexes
                .iter()
                .find(|i| i.oid == *index)
                .is_some_and(|ix| self.key_deferred(ix)),
        }
    }

    /// Whether a check is left for COMMIT on table `oid` (PostgreSQL's pending trigger
    /// events on it, which ALTER TABLE refuses to run under: 55006).
    pub(super) fn checks_pending_on(&self, oid: u32) -> bool {
        self.txn.pending.iter().any(|p| match p {
            Pending::Unique { table, .. } | Pending::Child { table, .. } => table.oid == oid,
            Pending::Parent { parent, .. } => parent.oid == oid,
        })
    }

    /// At the end of a statement: the checks left for it (deferrable keys not
    /// deferred, NO ACTION foreign keys of the rows it removed).
    pub(super) fn check_statement_keys(&mut self) -> Result<()> {
        if self
            .txn
            .pending
            .iter()
            .any(|p| matches!(p, Pending::Unique { .. } | Pending::Parent { .. }))
        {
            self.check_pending(false)?;
        }
        Ok(())
    }

    pub(super) fn defer_child_check(
        &mut self,
        table: &TableEntry,
        fk: &ForeignKey,
        rows: Vec<RowId>,
    ) {
        let Some(t) = self
            .db
            .catalog
            .by_oid(table.oid, &self.db.txns.snapshot(self.writer))
        else {
            return;
        };
        self.txn.pending.push(Pending::Child {
            table: t,
            fk: fk.clone(),
            rows,
        });
    }

    fn defer_parent_check(
        &mut self,
        parent: &Arc<TableEntry>,
        child: &Arc<TableEntry>,
        fk: &ForeignKey,
        keys: Batch,
    ) {
        self.txn.pending.push(Pending::Parent {
            parent: parent.clone(),
            child: child.clone(),
            fk: fk.clone(),
            keys,
        });
    }

    /// SET CONSTRAINTS { ALL | name, … } { DEFERRED | IMMEDIATE } (the text after
    /// CONSTRAINTS): outside a block a warning; naming a key that is not deferrable,
    /// 42809; IMMEDIATE runs the checks pending for the keys it names.
    pub(super) fn set_constraints(&mut self, spec: &str) -> Result<()> {
        let spec = spec.trim();
        let (names, mode) = match spec.rsplit_once(char::is_whitespace) {
            Some((n, m)) => (n.trim(), m.to_uppercase()),
            None => return Err(Error::syntax(format!("syntax error at or near \"{spec}\""))),
        };
        let deferred = match mode.as_str() {
            "DEFERRED" => true,
            "IMMEDIATE" => false,
            _ => return Err(Error::syntax(format!("syntax error at or near \"{mode}\""))),
        };
        if !matches!(self.status, super::TxnStatus::InBlock) {
            self.notices.push((
                "WARNING".into(),
                "25P01".into(),
                "SET CONSTRAINTS can only be used in transaction blocks".into(),
            ));
            return Ok(());
        }
        if names.eq_ignore_ascii_case("ALL") {
            self.txn.deferral.all = Some(deferred);
            self.txn.deferral.named.clear();
        } else {
            let snapshot = self.db.txns.snapshot(self.writer);
            // Every foreign key and key constraint: (name, deferrable).
            let mut constraints: Vec<(String, bool)> = Vec::new();
            for t in self.db.catalog.all_tables() {
                if !self.db.catalog.is_current(&t, &snapshot) {
                    continue;
                }
                constraints.extend(
                    t.foreign_keys
                        .iter()
                        .map(|f| (f.name.clone(), f.deferrable)),
                );
                constraints.extend(
                    t.indexes
                        .iter()
                        .filter(|i| i.constraint.is_some())
                        .map(|i| (i.name.clone(), i.deferrable)),
                );
            }
            let mut named = Vec::new();
            for raw in names.split(',') {
                // A constraint's name, optionally schema-qualified.
                let (_, name) = crate::catalog::sequence::parse_relation_name(raw.trim())?;
                let found: Vec<bool> = constraints
                    .iter()
                    .filter(|(n, _)| *n == name)
                    .map(|(_, d)| *d)
                    .collect();
                if found.is_empty() {
                    return Err(Error::new(
                        "42704",
                        format!("constraint \"{name}\" does not exist"),
                    ));
                }
                // IMMEDIATE a constraint is already; DEFERRED it cannot be.
                if deferred && found.iter().any(|d| !d) {
                    return Err(Error::new(
                        "42809",
                        format!("constraint \"{name}\" is not deferrable"),
                    ));
                }
                named.push(name);
            }
            for name in named {
                self.txn.deferral.named.insert(name, deferred);
            }
        }
        if !deferred {
            self.check_pending(false)?;
        }
        Ok(())
    }

    /// Runs the deferred checks whose keys are no longer deferred (`all`: every one, at
    /// COMMIT). The first violation is the error.
    pub(super) fn check_pending(&mut self, all: bool) -> Result<()> {
        let pending = std::mem::take(&mut self.txn.pending);
        let mut keep = Vec::new();
        let mut failure = None;
        for p in pending {
            if failure.is_some() || (!all && self.still_deferred(&p)) {
                keep.push(p);
                continue;
            }
            if let Err(e) = self.run_pending(&p) {
                failure = Some(e);
            }
        }
        self.txn.pending = keep;
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn run_pending(&self, p: &Pending) -> Result<()> {
        let snapshot = self.db.txns.snapshot(self.writer);
        match p {
            Pending::Unique { table, index, rows } => {
                // The table as it is now (a key dropped since is not checked).
                let Some(t) = self.db.catalog.by_oid(table.oid, &snapshot) else {
                    return Ok(());
                };
                let Some(ix) = t.indexes.iter().find(|i| i.oid == *index) else {
                    return Ok(());
                };
                let live_rows: Vec<RowId> = rows
                    .iter()
                    .copied()
                    .filter(|&id| live(t.storage.stamps(id)))
                    .collect();
                if live_rows.is_empty() {
                    return Ok(());
                }
                let cols = t.storage.fetch(&live_rows, None);
                let n = live_rows.len();
                let admitted = ix.index.admits(&cols, n);
                let keys = ix.index.keys_of_taken(&cols, n);
                let mut candidates = Vec::new();
                for (r, &id) in live_rows.iter().enumerate() {
                    if admitted.as_ref().is_some_and(|a| !a[r]) {
                        continue;
                    }
                    candidates.clear();
                    ix.index.same_key(&keys, r, id, &mut candidates);
                    for &other in &candidates {
                        if self.holds_key(&t, other, self.writer, u64::MAX, None)? {
                            let key = self.key_text(&t, ix, &keys, r);
                            return Err(Error::unique_violation(&ix.name, &t.name, &key));
                        }
                    }
                }
                Ok(())
            }
            Pending::Child { table, fk, rows } => {
                let Some(parent) = self.db.catalog.by_oid(fk.parent, &snapshot) else {
                    return Ok(());
                };
                let Some(ix) = parent_index(&parent, fk) else {
                    return Ok(());
                };
                let live_rows: Vec<RowId> = rows
                    .iter()
                    .copied()
                    .filter(|&id| live(table.storage.stamps(id)))
                    .collect();
                if live_rows.is_empty() {
                    return Ok(());
                }
                let cols = table.storage.fetch(&live_rows, None);
                for r in 0..live_rows.len() {
                    if !Self::reference_found(&parent, ix, fk, &cols, r) {
                        let key = self.columns_text(table, &fk.columns, &cols, r);
                        return Err(Error::new(
                            "23503",
                            format!(
                                "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
                                table.name, fk.name
                            ),
                        )
                        .with_detail(format!("Key {key} is not present in table \"{}\".", parent.name))
                        .on_table(&table.name, None, Some(&fk.name)));
                    }
                }
                Ok(())
            }
            Pending::Parent {
                parent,
                child,
                fk,
                keys,
            } => {
                let Some(ix) = parent_index(parent, fk) else {
                    return Ok(());
                };
                let mut probe = fk.clone();
                probe.columns = fk.parent_columns.clone();
                // The keys gone for good (no live version holds them now), then one
                // pass over the referencing table.
                let mut gone: HashMap<Vec<u8>, usize> = HashMap::new();
                for r in 0..keys.rows {
                    if Self::reference_found(parent, ix, &probe, &keys.columns, r) {
                        continue;
                    }
                    if let Some(key) = match_key(&keys.columns, &fk.parent_columns, r) {
                        gone.entry(key).or_insert(r);
                    }
                }
                if gone.is_empty() {
                    return Ok(());
                }
                for (g, group) in child.storage.groups().iter().enumerate() {
                    for row in 0..group.rows() {
                        if !live(child.storage.stamps(row_id(g, row))) {
                            continue;
                        }
                        let Some(key) = match_key(&group.columns, &fk.columns, row) else {
                            continue;
                        };
                        if let Some(&r) = gone.get(&key) {
                            let text =
                                self.columns_text(parent, &fk.parent_columns, &keys.columns, r);
                            return Err(Error::new(
                                "23503",
                                format!(
                                    "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\"",
                                    parent.name, fk.name, child.name
                                ),
                            )
                            .with_detail(format!("Key {text} is still referenced from table \"{}\".", child.name))
                            .on_table(&child.name, None, Some(&fk.name)));
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Versions of `parent` went away: `old` holds their columns (table order); for an
    /// UPDATE, row `i` of `new` replaced row `i` of `old`. Runs each referencing key's
    /// action on the rows that referenced a key that is gone.
    pub(super) fn referenced_rows_changed(
        &mut self,
        parent: &Arc<TableEntry>,
        old: &Batch,
        new: Option<&Batch>,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<()> {
        if old.rows == 0 {
            return Ok(());
        }
        for (child, fk) in self.db.catalog.referencing(parent.oid, &ctx.snapshot) {
            let action = if new.is_some() {
                fk.on_update
            } else {
                fk.on_delete
            };
            // The keys that went away, with the old row that held each.
            let mut gone: HashMap<Vec<u8>, usize> = HashMap::new();
            for r in 0..old.rows {
                let Some(key) = match_key(&old.columns, &fk.parent_columns, r) else {
                    continue;
                };
                if let Some(n) = new
                    && match_key(&n.columns, &fk.parent_columns, r).as_ref() == Some(&key)
                {
                    continue;
                }
                gone.entry(key).or_insert(r);
            }
            if gone.is_empty() {
                continue;
            }
            // NO ACTION is checked when the statement ends (at COMMIT when deferred).
            // PostgreSQL fires its check then, in order with the other keys' actions;
            // kiln runs the other keys' actions at once, so only a check that rows of
            // this very statement may answer waits: a table that references itself,
            // whose referencing rows may go later in the statement.
            if action == FkAction::NoAction && (self.fk_deferred(&fk) || child.oid == parent.oid) {
                let rows: Vec<u32> = gone.values().map(|&r| r as u32).collect();
                let keys = Batch::new(
                    old.columns.iter().map(|c| c.gather(&rows)).collect(),
                    rows.len(),
                );
                self.defer_parent_check(parent, &child, &fk, keys);
                continue;
            }
            // NO ACTION only cares whether the key is gone: another live version may
            // hold it now.
            if action == FkAction::NoAction
                && let Some(ix) = parent_index(parent, &fk)
            {
                gone.retain(|_, &mut r| {
                    let mut probe_fk = fk.clone();
                    probe_fk.columns = fk.parent_columns.clone();
                    !Self::reference_found(parent, ix, &probe_fk, &old.columns, r)
                });
                if gone.is_empty() {
                    continue;
                }
            }
            // The referencing rows.
            let mut hits: Vec<(RowId, usize)> = Vec::new();
            let groups = child.storage.groups();
            for (g, group) in groups.iter().enumerate() {
                for r in 0..group.rows() {
                    let id = row_id(g, r);
                    if !live(child.storage.stamps(id)) {
                        continue;
                    }
                    if let Some(key) = match_key(&group.columns, &fk.columns, r)
                        && let Some(&old_row) = gone.get(&key)
                    {
                        hits.push((id, old_row));
                    }
                }
            }
            if hits.is_empty() {
                continue;
            }
            match action {
                FkAction::NoAction | FkAction::Restrict => {
                    let old_row = hits[0].1;
                    let key = self.columns_text(parent, &fk.parent_columns, &old.columns, old_row);
                    return Err(Error::new(
                        "23503",
                        format!(
                            "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\"",
                            parent.name, fk.name, child.name
                        ),
                    )
                    .with_detail(format!("Key {key} is still referenced from table \"{}\".", child.name))
                    .on_table(&child.name, None, Some(&fk.name)));
                }
                FkAction::Cascade if new.is_none() => {
                    let mut deleted = Vec::new();
                    for &(id, _) in &hits {
                        if let Some(v) = self.claim_for_action(&child, id, txn)? {
                            self.undo.push(Undo::Delete(child.clone(), v));
                            deleted.push(v);
                        }
                    }
                    let rows = Batch::new(child.storage.fetch(&deleted, None), deleted.len());
                    self.referenced_rows_changed(&child, &rows, None, ctx, txn)?;
                }
                _ => {
                    // CASCADE on update, SET NULL, SET DEFAULT: new versions of the
                    // referencing rows with their key columns replaced.
                    let ids: Vec<RowId> = hits.iter().map(|h| h.0).collect();
                    let before = child.storage.fetch(&ids, None);
                    let mut after = before.clone();
                    for (j, &c) in fk.columns.iter().enumerate() {
                        let ty = child.columns[c].ty.ty;
                        let mut v = Vector::with_capacity(ty, hits.len());
                        for &(_, old_row) in &hits {
                            let value = match action {
                                FkAction::Cascade => match new {
                                    Some(n) => n.columns[fk.parent_columns[j]]
                                        .value(old_row, parent.columns[fk.parent_columns[j]].ty.ty),
                                    None => Value::Null,
                                },
                                FkAction::SetDefault => match &child.columns[c].default {
                                    Some(d) => {
                                        let none = Batch::new(Vec::new(), 1);
                                        crate::exec::expr::eval(d, &none, &[0], ctx)?.value(0, ty)
                                    }
                                    None => Value::Null,
                                },
                                _ => Value::Null,
                            };
                            let value = crate::types::cast::cast_value(
                                value,
                                child.columns[c].ty,
                                false,
                                &self.text_format(),
                            )?;
                            v.push_value(&value);
                        }
                        after[c] = v;
                    }
                    let mut kept = Vec::new();
                    for (i, &id) in ids.iter().enumerate() {
                        match self.claim_for_action(&child, id, txn)? {
                            Some(v) if v == id => {
                                self.undo.push(Undo::Delete(child.clone(), id));
                                kept.push(i as u32);
                            }
                            Some(v) => child.storage.release(v, txn),
                            None => {}
                        }
                    }
                    let before =
                        Batch::new(before.iter().map(|c| c.gather(&kept)).collect(), kept.len());
                    let after =
                        Batch::new(after.iter().map(|c| c.gather(&kept)).collect(), kept.len());
                    self.store_rows(&child, &after, ctx, txn, 0, None)?;
                    self.referenced_rows_changed(&child, &before, Some(&after), ctx, txn)?;
                }
            }
        }
        Ok(())
    }
}
