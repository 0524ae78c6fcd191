//! The transaction's life: implicit and explicit transactions (BEGIN's modes, SET
//! TRANSACTION), COMMIT and ROLLBACK (undo log, table and advisory locks released,
//! cursors and notifications settled), savepoints as positions in the undo log, and
//! the transaction id a write takes.

use super::*;
use crate::durable::{Change, Durability};

impl Session {
    /// now(): the current transaction's start, or — while idle — the start of the
    /// transaction the next statement will open.
    pub(super) fn transaction_start(&self) -> i64 {
        if self.status != TxnStatus::Idle {
            return self.txn_start_micros;
        }
        let start = self.pending_start.get().unwrap_or_else(now_micros);
        self.pending_start.set(Some(start));
        start
    }

    /// Starts a transaction's clock (the time fixed at bind, if any).
    pub(super) fn start_clock(&mut self) {
        self.txn_start_micros = self.pending_start.take().unwrap_or_else(now_micros);
    }

    /// Starts an implicit transaction if none is open.
    pub fn begin_implicit(&mut self) {
        if self.status == TxnStatus::Idle {
            self.status = TxnStatus::Implicit;
            self.start_clock();
            self.start_transaction();
        }
    }

    /// A transaction starts: its isolation level and access mode are the defaults
    /// until BEGIN or SET TRANSACTION say otherwise.
    pub(super) fn start_transaction(&mut self) {
        let isolation = self
            .settings
            .get("default_transaction_isolation")
            .and_then(|(_, v)| Isolation::parse(v))
            .unwrap_or(Isolation::ReadCommitted);
        let read_only = self
            .settings
            .get("default_transaction_read_only")
            .is_some_and(|(_, v)| v == "on");
        self.txn = TxnState {
            isolation,
            read_only,
            ..TxnState::default()
        };
        self.report_modes();
    }

    /// BEGIN's or SET TRANSACTION's modes; the isolation level only before the
    /// transaction's first query (25001).
    pub(super) fn apply_modes(&mut self, modes: TxnModes) -> Result<()> {
        if let Some(level) = modes.isolation {
            if self.txn.queried && level != self.txn.isolation {
                return Err(Error::new(
                    "25001",
                    "SET TRANSACTION ISOLATION LEVEL must be called before any query",
                ));
            }
            self.txn.isolation = level;
        }
        if let Some(ro) = modes.read_only {
            if !ro && self.txn.read_only && self.txn.queried {
                return Err(Error::new(
                    "25001",
                    "transaction read-write mode must be set before any query",
                ));
            }
            self.txn.read_only = ro;
        }
        self.report_modes();
        Ok(())
    }

    /// transaction_isolation and transaction_read_only say what the transaction runs as.
    pub(super) fn report_modes(&mut self) {
        let _ = self
            .settings
            .set("transaction_isolation", Some(self.txn.isolation.name()));
        let _ = self.settings.set(
            "transaction_read_only",
            Some(if self.txn.read_only { "on" } else { "off" }),
        );
    }

    /// The transaction's isolation level.
    pub(super) fn isolation(&self) -> Isolation {
        self.txn.isolation
    }

    /// Ends an implicit transaction (end of a simple query string, or Sync).
    pub fn end_implicit(&mut self) {
        self.pending_start.set(None);
        if self.status == TxnStatus::Implicit {
            self.commit();
            self.status = TxnStatus::Idle;
        }
    }

    /// After an error: an implicit transaction rolls back, an explicit block fails.
    pub fn abort_on_error(&mut self) {
        match self.status {
            TxnStatus::Implicit | TxnStatus::Idle => {
                self.rollback();
                self.status = TxnStatus::Idle;
            }
            // The block fails. Without savepoints it is rolled back at once, as
            // PostgreSQL aborts it: its row locks go now, not at the client's ROLLBACK.
            // With savepoints it keeps its undo log: ROLLBACK TO SAVEPOINT undoes back
            // to the savepoint and carries on.
            TxnStatus::InBlock | TxnStatus::Failed => {
                if self.savepoints.is_empty() {
                    self.rollback();
                }
                self.status = TxnStatus::Failed;
            }
        }
    }

    /// Whether this transaction's end leaves enough garbage for the vacuum: dead
    /// versions past a table's threshold, or a dropped table.
    pub(super) fn made_garbage(&self) -> bool {
        let mut last: Option<&Arc<TableEntry>> = None;
        for u in &self.undo {
            let table = match u {
                Undo::Insert(t, _) | Undo::Delete(t, _) => t,
                Undo::DropTable(_) => return true,
                _ => continue,
            };
            if last.is_some_and(|l| Arc::ptr_eq(l, table)) {
                continue;
            }
            last = Some(table);
            if table.storage.dead_rows() >= vacuum::dead_rows_threshold(&table.storage) {
                return true;
            }
        }
        false
    }

    pub(super) fn commit(&mut self) {
        self.on_commit_actions();
        // WITH HOLD cursors are read to their end while the transaction still is.
        self.end_cursors(true);
        self.db.advisory.release(self.advisory_owner, false);
        let garbage = self.made_garbage();
        if let Some(durable) = self.db.durable.get().cloned() {
            self.commit_durably(&durable);
            self.commit_globals();
        }
        self.undo.clear();
        self.savepoints.clear();
        self.end_settings(true);
        self.fresh_tables.clear();
        self.txn = TxnState::default();
        if self.writer != TXN_NONE {
            self.db.txns.end_write(self.writer);
            self.writer = TXN_NONE;
        }
        // Table locks go once the transaction's effects are visible, so a waiter's
        // snapshot sees them.
        self.release_table_locks();
        self.commit_notifications();
        // After the lock is free, so the vacuum can take it.
        if garbage {
            self.db.request_vacuum();
        }
    }

    /// The durable mode's part of COMMIT: the transaction's row changes go to the redo
    /// log (a catalog change to a checkpoint) before the transaction becomes visible,
    /// which happens inside [`Durability::commit`] so that checkpoints order against it.
    fn commit_durably(&mut self, durable: &Durability) {
        // Everything but row changes goes to a checkpoint.
        let catalog_changed = self
            .undo
            .iter()
            .any(|u| !matches!(u, Undo::Insert(..) | Undo::Delete(..)));
        if self.writer == TXN_NONE && !catalog_changed {
            return;
        }
        let changes: Vec<Change> = self
            .undo
            .iter()
            .filter_map(|u| match u {
                Undo::Insert(t, range) => Some(Change::Insert(t, *range)),
                Undo::Delete(t, id) => Some(Change::Delete(t, *id)),
                _ => None,
            })
            .collect();
        let synchronous = self
            .settings
            .get("synchronous_commit")
            .is_none_or(|(_, v)| v != "off");
        let (db, writer) = (&self.db, self.writer);
        durable.commit(db, writer, catalog_changed, &changes, synchronous, || {
            if writer != TXN_NONE {
                db.txns.end_write(writer);
            }
        });
        self.writer = TXN_NONE;
    }

    /// The durable mode's part of COMMIT for what belongs to the cluster: changed roles
    /// or memberships rewrite the global file, and a GRANT on another database's ACL
    /// checkpoints that database.
    fn commit_globals(&mut self) {
        let Some(data) = self.cluster.durable.get() else {
            return;
        };
        if self.undo.iter().any(|u| {
            matches!(
                u,
                Undo::Role(..) | Undo::Memberships(..) | Undo::RoleSettings(..)
            )
        }) && let Err(e) = data.save(&self.cluster)
        {
            tracing::error!("PANIC: could not write the roles: {}", e.message);
            std::process::abort();
        }
        for u in &self.undo {
            if let Undo::DatabaseAcl(db, _) = u
                && !Arc::ptr_eq(db, &self.db)
                && let Some(d) = db.durable.get()
                && let Err(e) = d.checkpoint(db)
            {
                tracing::error!(
                    "PANIC: could not checkpoint \"{}\": {}",
                    db.name(),
                    e.message
                );
                std::process::abort();
            }
        }
    }

    pub(super) fn rollback(&mut self) {
        self.end_cursors(false);
        self.db.advisory.release(self.advisory_owner, false);
        if self.txn.isolation == Isolation::Serializable && self.txn.snapshot.is_some() {
            self.db.serializable.abort(self.txn.token);
        }
        // Undone inserts become garbage; the vacuum is asked once they are stamped.
        let mut inserted: Vec<Arc<TableEntry>> = Vec::new();
        for u in &self.undo {
            if let Undo::Insert(t, _) = u
                && !inserted.iter().any(|seen| Arc::ptr_eq(seen, t))
            {
                inserted.push(t.clone());
            }
        }
        self.undo_to(0);
        self.fresh_tables.clear();
        self.pending_listen.clear();
        self.pending_notify.lock().clear();
        self.txn = TxnState::default();
        let over =
            |t: &Arc<TableEntry>| t.storage.dead_rows() >= vacuum::dead_rows_threshold(&t.storage);
        self.savepoints.clear();
        self.end_settings(false);
        if self.writer != TXN_NONE {
            self.db.txns.end_write(self.writer);
            self.writer = TXN_NONE;
        }
        self.release_table_locks();
        if inserted.iter().any(over) {
            self.db.request_vacuum();
        }
    }

    /// Undoes this transaction's changes back to undo-log position `mark`.
    pub(super) fn undo_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some(u) = self.undo.pop() else { break };
            match u {
                Undo::Insert(t, range) => t.storage.undo_insert(range),
                Undo::Delete(t, id) => t.storage.undo_delete(id),
                Undo::CreateTable(entry) => self.db.catalog.undo_create(&entry),
                Undo::DropTable(entry) => self.db.catalog.undo_drop(&entry),
                Undo::Sequence(seq, image) => seq.restore(image),
                Undo::Role(name, before) => {
                    self.cluster.roles.put(&name, before);
                }
                Undo::Comment(oid, column, before) => {
                    self.db.catalog.set_comment(oid, &column, before);
                }
                Undo::Memberships(before) => {
                    self.cluster.roles.set_memberships(before);
                }
                Undo::RoleSettings(before) => {
                    self.cluster.roles.set_settings(before);
                }
                Undo::CreateSchema(ns) => self.db.catalog.undo_create_namespace(&ns),
                Undo::ReplaceSchema(old, new) => {
                    self.db.catalog.undo_create_namespace(&new);
                    old.undo_end();
                }
                Undo::DropSchema(ns) => ns.undo_end(),
                Undo::CreateExtension(e) => self.db.catalog.undo_create_extension(&e),
                Undo::TypeVersion(new, old) => {
                    self.db.catalog.undo_type_version(&new);
                    if let Some(old) = old {
                        old.undo_end();
                    }
                }
                Undo::DropType(t) => t.undo_end(),
                Undo::DropExtension(e) => e.undo_end(),
                Undo::DatabaseAcl(db, before) => {
                    db.catalog.set_database_acl(before);
                }
                Undo::DefaultAcls(before) => {
                    self.db.catalog.set_default_acls(before);
                }
            }
        }
    }

    /// Gives this transaction an id if it has none yet. The wait (while DDL runs) is
    /// bounded by lock_timeout and by the statement's statement_timeout, and a cancel
    /// request ends it.
    pub(super) fn ensure_writer(&mut self) -> Result<TxnId> {
        if self.writer == TXN_NONE {
            let interrupted = self.interrupt_check();
            let limits = WaitLimits {
                lock_timeout: self.settings.lock_timeout,
                deadlock_timeout: self.settings.deadlock_timeout,
                interrupted: &interrupted,
            };
            self.writer = self.db.txns.begin_write_for(self.advisory_owner, &limits)?;
        }
        Ok(self.writer)
    }

    /// SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE: a savepoint is a position in the
    /// undo log; rolling back to it replays the log down to that position.
    pub(super) fn savepoint_control(&mut self, op: &TransactionOp) -> Result<Outcome> {
        let (name, tag) = match op {
            TransactionOp::Savepoint(n) => (n, "SAVEPOINT"),
            TransactionOp::RollbackTo(n) => (n, "ROLLBACK"),
            TransactionOp::Release(n) => (n, "RELEASE"),
            TransactionOp::Begin(_)
            | TransactionOp::SetModes(_)
            | TransactionOp::Commit
            | TransactionOp::Rollback => {
                return Err(Error::internal("not a savepoint command"));
            }
        };
        if !matches!(self.status, TxnStatus::InBlock | TxnStatus::Failed) {
            let what = match op {
                TransactionOp::Savepoint(_) => "SAVEPOINT",
                TransactionOp::Release(_) => "RELEASE SAVEPOINT",
                _ => "ROLLBACK TO SAVEPOINT",
            };
            return Err(Error::new(
                "25P01",
                format!("{what} can only be used in transaction blocks"),
            ));
        }
        let missing = || Error::new("3B001", format!("savepoint \"{name}\" does not exist"));
        let position = self.savepoints.iter().rposition(|(n, _)| n == name);
        match op {
            TransactionOp::Savepoint(_) => {
                self.savepoints.push((name.clone(), self.undo.len()));
                let settings = (self.settings.clone(), self.settings_stack.session.clone());
                self.settings_stack.savepoints.push(settings);
            }
            TransactionOp::RollbackTo(_) => {
                let at = position.ok_or_else(missing)?;
                let mark = self.savepoints[at].1;
                self.savepoints.truncate(at + 1);
                self.undo_to(mark);
                self.status = TxnStatus::InBlock;
                // The settings as the savepoint found them.
                self.settings_stack.savepoints.truncate(at + 1);
                if let Some((mut settings, session)) =
                    self.settings_stack.savepoints.get(at).cloned()
                {
                    self.settings_stack.session = session;
                    self.settings.keep_placeholders(&mut settings);
                    self.replace_settings(settings);
                }
            }
            TransactionOp::Release(_) => {
                let at = position.ok_or_else(missing)?;
                self.savepoints.truncate(at);
                self.settings_stack.savepoints.truncate(at);
            }
            TransactionOp::Begin(_)
            | TransactionOp::SetModes(_)
            | TransactionOp::Commit
            | TransactionOp::Rollback => {}
        }
        Ok(Outcome::Done { tag: tag.into() })
    }

    pub(super) fn transaction_control(&mut self, op: &TransactionOp) -> Result<Outcome> {
        let warn = |s: &mut Session, msg: &str| {
            s.notices
                .push(("WARNING".into(), "25001".into(), msg.into()))
        };
        let outcome = match op {
            TransactionOp::Savepoint(_)
            | TransactionOp::RollbackTo(_)
            | TransactionOp::Release(_) => {
                return self.savepoint_control(op);
            }
            TransactionOp::Begin(modes) => {
                match self.status {
                    TxnStatus::Idle => {
                        self.start_clock();
                        self.start_transaction();
                        self.status = TxnStatus::InBlock;
                        self.apply_modes(*modes)?;
                    }
                    TxnStatus::Implicit => {
                        self.status = TxnStatus::InBlock;
                        self.apply_modes(*modes)?;
                    }
                    TxnStatus::InBlock | TxnStatus::Failed => {
                        warn(self, "there is already a transaction in progress")
                    }
                }
                Outcome::Done {
                    tag: "BEGIN".into(),
                }
            }
            TransactionOp::SetModes(modes) => {
                match self.status {
                    TxnStatus::InBlock => self.apply_modes(*modes)?,
                    _ => self.notices.push((
                        "WARNING".into(),
                        "25P01".into(),
                        "SET TRANSACTION can only be used in transaction blocks".into(),
                    )),
                }
                Outcome::Done { tag: "SET".into() }
            }
            TransactionOp::Commit => {
                let tag = match self.status {
                    TxnStatus::Failed => {
                        self.rollback();
                        "ROLLBACK"
                    }
                    TxnStatus::Idle => {
                        self.notices.push((
                            "WARNING".into(),
                            "25P01".into(),
                            "there is no transaction in progress".into(),
                        ));
                        "COMMIT"
                    }
                    TxnStatus::Implicit => {
                        self.notices.push((
                            "WARNING".into(),
                            "25P01".into(),
                            "there is no transaction in progress".into(),
                        ));
                        self.commit();
                        "COMMIT"
                    }
                    TxnStatus::InBlock => {
                        if let Err(e) = self.check_pending(true) {
                            self.rollback();
                            self.status = TxnStatus::Idle;
                            return Err(e);
                        }
                        if self.txn.isolation == Isolation::Serializable
                            && self.txn.snapshot.is_some()
                            && !self
                                .db
                                .serializable
                                .commit(self.txn.token, self.db.txns.next_id())
                        {
                            self.rollback();
                            self.status = TxnStatus::Idle;
                            return Err(Error::new(
                                "40001",
                                "could not serialize access due to read/write dependencies among transactions",
                            )
                            .with_detail("Reason code: Canceled on identification as a pivot, during commit attempt.")
                            .with_hint("The transaction might succeed if retried."));
                        }
                        self.commit();
                        "COMMIT"
                    }
                };
                self.status = TxnStatus::Idle;
                Outcome::Done { tag: tag.into() }
            }
            TransactionOp::Rollback => {
                if matches!(self.status, TxnStatus::Idle | TxnStatus::Implicit) {
                    self.notices.push((
                        "WARNING".into(),
                        "25P01".into(),
                        "there is no transaction in progress".into(),
                    ));
                }
                self.rollback();
                self.status = TxnStatus::Idle;
                Outcome::Done {
                    tag: "ROLLBACK".into(),
                }
            }
        };
        Ok(outcome)
    }
}
