//! Recovery at start: the latest checkpoint, then the log after it.
//!
//! The catalog statements run in an ordinary session (as pg_restore would send them);
//! table rows and replayed changes go straight into storage under one transaction
//! (`xmin` of every loaded row, `xmax` of every replayed delete), committed before the
//! primary keys, indexes and foreign keys are built over the result. A replayed delete
//! finds its row by value through a hash of every live row of the table, built the first
//! time the table meets a delete.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::checkpoint::{self, read_manifest};
use super::codec::{Reader, corrupt, row_hash, rows_equal};
use super::wal::{self, Record};
use crate::Database;
use crate::catalog::TableEntry;
use crate::error::{Error, Result};
use crate::exec::vector::Vector;
use crate::session::{Outcome, Session};
use crate::storage::index::{RowId, row_id};
use crate::storage::mvcc::{TXN_NONE, TxnId, WaitLimits, deleter};
use crate::storage::table::{Table, range_ids};

/// What recovery found and did.
pub struct Recovered {
    /// The segment the server writes next.
    pub next_segment: u64,
    /// Tables loaded from a checkpoint file and not changed by the log since: the next
    /// checkpoint keeps their files.
    pub clean_files: Vec<(Arc<Table>, String)>,
    pub next_file: u64,
    pub had_checkpoint: bool,
    pub tables_loaded: usize,
    pub transactions_replayed: usize,
    /// Log bytes replayed (they count toward the next checkpoint).
    pub replayed_bytes: u64,
}

/// Runs one statement in `session` to its end.
fn run(session: &mut Session, sql: &str) -> Result<()> {
    session.begin_implicit();
    let result = session.prepare_one(sql, &[]).and_then(|p| {
        match session.execute(&p, Vec::new())? {
            Outcome::Rows(mut rows) => while rows.next_batch()?.is_some() {},
            Outcome::CopyIn(_) | Outcome::CopyOut(_) => {
                return Err(Error::new("XX000", "COPY in a checkpoint's catalog"));
            }
            Outcome::Done { .. } | Outcome::Empty => {}
        }
        Ok(())
    });
    match result {
        Ok(()) => {
            session.end_implicit();
            Ok(())
        }
        Err(e) => {
            session.abort_on_error();
            Err(Error::new(
                "XX000",
                format!(
                    "recovery could not run \"{sql}\" from the checkpoint: {}",
                    e.message
                ),
            ))
        }
    }
}

/// Finds live rows by value in one table, for replayed deletes.
struct Finder {
    rows: HashMap<u64, Vec<RowId>>,
}

impl Finder {
    fn build(table: &Table) -> Finder {
        let mut rows: HashMap<u64, Vec<RowId>> = HashMap::new();
        for (g, group) in table.groups().iter().enumerate() {
            for r in 0..group.rows() {
                let (xmin, xmax) = group.stamps(r);
                if xmin != crate::storage::mvcc::TXN_ABORTED && deleter(xmax) == TXN_NONE {
                    rows.entry(row_hash(&group.columns, r))
                        .or_default()
                        .push(row_id(g, r));
                }
            }
        }
        Finder { rows }
    }

    fn add(&mut self, columns: &[Vector], ids: &[(usize, RowId)]) {
        for &(r, id) in ids {
            self.rows.entry(row_hash(columns, r)).or_default().push(id);
        }
    }

    /// Deletes (as `txn`) one live row equal to row `r` of `columns`.
    fn delete(&mut self, table: &Table, columns: &[Vector], r: usize, txn: TxnId) -> bool {
        let Some(ids) = self.rows.get_mut(&row_hash(columns, r)) else {
            return false;
        };
        let found = ids.iter().position(|&id| {
            let stored = table.fetch(&[id], None);
            rows_equal(&stored, 0, columns, r)
        });
        match found {
            Some(i) => {
                let id = ids.swap_remove(i);
                table.delete(id, txn)
            }
            None => false,
        }
    }
}

/// One table's replay state.
struct Target {
    entry: Arc<TableEntry>,
    finder: Option<Finder>,
    touched: bool,
}

struct Replay<'a> {
    db: &'a Database,
    txn: TxnId,
    targets: HashMap<String, Target>,
}

impl Replay<'_> {
    fn target(&mut self, name: &str) -> Result<&mut Target> {
        if !self.targets.contains_key(name) {
            let snapshot = self.db.txns.snapshot(self.txn);
            let entry = self
                .db
                .catalog
                .by_durable_name(name, &snapshot)
                .ok_or_else(|| {
                    corrupt(&format!(
                        "the log names table \"{name}\", which the checkpoint lacks"
                    ))
                })?;
            self.targets.insert(
                name.to_string(),
                Target {
                    entry,
                    finder: None,
                    touched: false,
                },
            );
        }
        self.targets
            .get_mut(name)
            .ok_or_else(|| corrupt("a replay target"))
    }

    fn rows(&mut self, kind: u8, table: &str, mut batch: Reader) -> Result<()> {
        let txn = self.txn;
        let t = self.target(table)?;
        t.touched = true;
        let storage = t.entry.storage.clone();
        let (columns, rows) = batch.batch(&storage.types)?;
        if kind == wal::INSERT {
            let ranges = storage.append(&columns, rows, txn);
            if let Some(f) = &mut t.finder {
                let ids: Vec<(usize, RowId)> = range_ids(&ranges).collect();
                f.add(&columns, &ids);
            }
        } else {
            let finder = t.finder.get_or_insert_with(|| Finder::build(&storage));
            for r in 0..rows {
                if !finder.delete(&storage, &columns, r, txn) {
                    return Err(corrupt(&format!(
                        "a logged delete matches no row of table \"{table}\""
                    )));
                }
            }
        }
        Ok(())
    }

    fn sequence(&mut self, name: &str, last: i64, called: bool) {
        set_sequence(self.db, self.txn, name, last, called);
    }
}

/// Sets sequence `name` of `db` (as transaction `txn` sees the catalog) to a restored
/// state.
fn set_sequence(db: &Database, txn: TxnId, name: &str, last: i64, called: bool) {
    let snapshot = db.txns.snapshot(txn);
    match db
        .catalog
        .by_durable_name(name, &snapshot)
        .and_then(|e| e.sequence.clone())
    {
        Some(seq) => {
            if let Err(e) = seq.setval(name, last, called) {
                tracing::warn!("recovery: sequence \"{name}\": {}", e.message);
            }
        }
        None => tracing::warn!("recovery: the log names a missing sequence \"{name}\""),
    }
}

/// Restores owners and ACLs (relations' as versions made by `txn`).
fn restore_privileges(db: &Database, p: &checkpoint::Privileges, txn: TxnId) {
    let snapshot = db.txns.snapshot(txn);
    for (name, owner, acl) in &p.relations {
        match db.catalog.by_durable_name(name, &snapshot) {
            Some(t) => {
                db.catalog.set_privileges(&t, *owner, acl.clone(), txn);
            }
            None => tracing::warn!("recovery: privileges of a missing relation \"{name}\""),
        }
    }
    // Schemas' owners and ACLs (an older checkpoint has only public's ACL).
    let mut schemas = p.schemas.clone();
    if schemas.is_empty()
        && let Some(acl) = &p.schema
    {
        schemas.push((
            "public".into(),
            crate::catalog::namespace::PG_DATABASE_OWNER,
            Some(acl.clone()),
        ));
    }
    for (name, owner, acl) in &schemas {
        match db.catalog.namespace(name, &snapshot) {
            Some(ns) if ns.owner != *owner || ns.acl != *acl => {
                db.catalog
                    .replace_namespace(&ns, name, *owner, acl.clone(), txn);
            }
            Some(_) => {}
            None => tracing::warn!("recovery: privileges of a missing schema \"{name}\""),
        }
    }
    db.catalog.set_database_acl(p.database.clone());
    db.catalog.set_default_acls(p.defaults.clone());
}

/// The bootstrap superuser's name: recovery's and copying's sessions run as it.
fn superuser_name(db: &Database) -> String {
    db.cluster()
        .roles
        .by_oid(crate::auth::BOOTSTRAP_SUPERUSER_OID)
        .map_or_else(|| "kiln".into(), |r| r.name)
}

/// CREATE DATABASE … TEMPLATE: fills `dst`, a new and empty database, with what the
/// latest snapshot of `src` holds — its catalog as SQL (as recovery runs a
/// checkpoint's), its rows copied batch by batch, sequences' states, owners and ACLs.
pub fn copy_database(src: &Database, dst: &Arc<Database>) -> Result<()> {
    let (snapshot, _pin) = src.txns.pinned_snapshot(TXN_NONE);
    let d = super::dump::dump(&src.catalog, &snapshot, true);
    let mut privileges = checkpoint::Privileges::of(src, &snapshot);
    // The database's own ACL is not the template's (PostgreSQL starts it at NULL).
    privileges.database = None;
    let mut session = Session::new(dst.clone(), &superuser_name(dst));
    for sql in &d.before_data {
        run(&mut session, sql)?;
    }
    let txn = dst.txns.begin_write(&WaitLimits::UNBOUNDED)?;
    let target_snapshot = dst.txns.snapshot(txn);
    let mut sel = Vec::new();
    for t in &d.tables {
        let Some(target) = dst
            .catalog
            .by_durable_name(&src.catalog.durable_name(t), &target_snapshot)
        else {
            dst.txns.end_write(txn);
            return Err(Error::new(
                "XX000",
                format!("copying table \"{}\": it was not created", t.name),
            ));
        };
        for g in t.storage.groups() {
            sel.clear();
            g.visible_rows(&snapshot, 0, g.rows(), &mut sel);
            if sel.is_empty() {
                continue;
            }
            let columns: Vec<Vector> = g.columns.iter().map(|c| c.gather(&sel)).collect();
            target.storage.append_owned(columns, sel.len(), txn);
        }
    }
    for (name, last, called) in &d.sequences {
        set_sequence(dst, txn, name, *last, *called);
    }
    restore_privileges(dst, &privileges, txn);
    dst.txns.end_write(txn);
    for sql in &d.after_data {
        run(&mut session, sql)?;
    }
    Ok(())
}

pub fn recover(db: &Arc<Database>, dir: &Path) -> Result<Recovered> {
    let io = |what: &str, e: std::io::Error| {
        Error::new(
            "58030",
            format!("could not {what} \"{}\": {e}", dir.display()),
        )
    };
    let manifest = read_manifest(dir)?;
    let had_checkpoint = manifest.is_some();
    let manifest = manifest.unwrap_or_default();
    // Roles and memberships are the cluster's (`durable::cluster`), restored before.
    let mut session = Session::new(db.clone(), &superuser_name(db));
    for sql in &manifest.before_data {
        run(&mut session, sql)?;
    }
    let txn = db.txns.begin_write(&WaitLimits::UNBOUNDED)?;
    let mut replay = Replay {
        db,
        txn,
        targets: HashMap::new(),
    };
    for (name, file) in &manifest.tables {
        let storage = replay.target(name)?.entry.storage.clone();
        checkpoint::read_table(&dir.join(file), &storage.types, |columns, rows| {
            storage.append_owned(columns, rows, txn);
            Ok(())
        })?;
    }
    for (name, last, called) in &manifest.sequences {
        replay.sequence(name, *last, *called);
    }
    let segments = wal::segments(dir).map_err(|e| io("list", e))?;
    let mut transactions_replayed = 0;
    let mut replayed_bytes = 0u64;
    for &n in segments.iter().filter(|&&n| n >= manifest.segment) {
        let path = wal::segment_path(dir, n);
        let bytes = std::fs::read(&path).map_err(|e| io("read", e))?;
        let (frames, used) = wal::frames(&bytes);
        // Each transaction's records, held until its commit record (those of a
        // transaction the crash cut off before its commit are dropped).
        let mut pending: HashMap<u64, Vec<&[u8]>> = HashMap::new();
        for payload in frames {
            match wal::parse(payload)? {
                Record::Rows { txn, .. } => pending.entry(txn).or_default().push(payload),
                Record::Sequence { name, last, called } => replay.sequence(&name, last, called),
                Record::Commit { txn } => {
                    for p in pending.remove(&txn).unwrap_or_default() {
                        if let Record::Rows {
                            kind, table, batch, ..
                        } = wal::parse(p)?
                        {
                            replay.rows(kind, &table, batch)?;
                        }
                    }
                    transactions_replayed += 1;
                }
            }
        }
        replayed_bytes += used as u64;
        if used < bytes.len() {
            // The torn tail of a crash: cut it off so the segment ends where its last
            // whole frame does.
            tracing::warn!(
                "log segment {n}: {} bytes after the last whole record dropped",
                bytes.len() - used
            );
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| io("open", e))?;
            f.set_len(used as u64).map_err(|e| io("truncate", e))?;
            f.sync_all().map_err(|e| io("fsync", e))?;
        }
    }
    // Owners and ACLs, as versions made by the recovering transaction.
    restore_privileges(db, &manifest.privileges, txn);
    db.txns.end_write(txn);
    for sql in &manifest.after_data {
        run(&mut session, sql)?;
    }
    drop(session);
    let clean_files = manifest
        .tables
        .iter()
        .filter_map(|(name, file)| {
            let t = replay.targets.get(name)?;
            (!t.touched).then(|| (t.entry.storage.clone(), file.clone()))
        })
        .collect();
    Ok(Recovered {
        next_segment: segments
            .last()
            .map_or(manifest.segment, |&n| (n + 1).max(manifest.segment)),
        clean_files,
        next_file: manifest.next_file,
        had_checkpoint,
        tables_loaded: manifest.tables.len(),
        transactions_replayed,
        replayed_bytes,
    })
}
