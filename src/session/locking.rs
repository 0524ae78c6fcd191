//! Table-level locks as statements take them: which tables a statement locks in which
//! of PostgreSQL's modes (`table_lock_requests`), taking them (waits, lock_timeout,
//! deadlocks through `storage::locks`) and releasing them at the transaction's end.

use super::*;

impl Session {
    /// Waits for transaction `other` to end (a row lock or a unique key it holds).
    pub(super) fn wait_for_txn(&self, other: TxnId) -> Result<()> {
        let interrupted = self.interrupt_check();
        let limits = WaitLimits {
            lock_timeout: self.settings.lock_timeout,
            deadlock_timeout: self.settings.deadlock_timeout,
            interrupted: &interrupted,
        };
        self.db.txns.wait_for(self.writer, other, &limits)
    }

    /// Locks table `oid` in `mode` until the transaction ends (`storage::locks`);
    /// with `nowait`, false instead of waiting.
    pub(super) fn lock_table(&mut self, oid: u32, mode: LockMode, nowait: bool) -> Result<bool> {
        let interrupted = self.interrupt_check();
        let limits = WaitLimits {
            lock_timeout: self.settings.lock_timeout,
            deadlock_timeout: self.settings.deadlock_timeout,
            interrupted: &interrupted,
        };
        self.holds_table_locks = true;
        self.db
            .txns
            .lock_table(self.advisory_owner, oid, mode, nowait, &limits)
    }

    pub(super) fn release_table_locks(&mut self) {
        if std::mem::take(&mut self.holds_table_locks) {
            self.db.txns.release_tables(self.advisory_owner);
        }
    }

    /// The table locks a statement takes before it runs: ACCESS SHARE on what it reads
    /// (ROW SHARE under FOR UPDATE), ROW EXCLUSIVE on a DML target (ROW SHARE on the
    /// tables its foreign keys reference, ROW EXCLUSIVE on those whose keys reference
    /// it, which its actions may write), SHARE for CREATE INDEX, SHARE ROW EXCLUSIVE
    /// on a table a new foreign key references, ACCESS EXCLUSIVE for DROP, TRUNCATE and
    /// ALTER. DDL first takes the catalog's own lock ([`CATALOG_LOCK`]), so catalog
    /// changes still go one transaction at a time.
    pub(super) fn table_lock_requests(
        &self,
        stmt: &BoundStatement,
        prepared: &Prepared,
    ) -> Vec<(u32, LockMode)> {
        let catalog = &self.db.catalog;
        if let BoundStatement::Query { .. } = stmt {
            let read = match stmt {
                BoundStatement::Query { locks: true, .. } => LockMode::RowShare,
                _ => LockMode::AccessShare,
            };
            return prepared.tables.iter().map(|t| (t.oid, read)).collect();
        }
        // The catalog as of now (what names mean, which keys reference a table), taken
        // only if asked.
        let now = std::cell::OnceCell::new();
        let snapshot = || now.get_or_init(|| self.db.txns.snapshot(self.writer));
        let mut out: Vec<(u32, LockMode)> = Vec::new();
        if stmt.is_ddl() {
            out.push((CATALOG_LOCK, LockMode::AccessExclusive));
        }
        let read = match stmt {
            BoundStatement::Query { locks: true, .. } => LockMode::RowShare,
            _ => LockMode::AccessShare,
        };
        out.extend(prepared.tables.iter().map(|t| (t.oid, read)));
        let named =
            |name: &crate::catalog::RelName| catalog.relation(name, snapshot()).map(|t| t.oid);
        match stmt {
            BoundStatement::Insert { table, .. }
            | BoundStatement::CopyFrom { table, .. }
            | BoundStatement::Update { table, .. }
            | BoundStatement::Merge { table, .. }
            | BoundStatement::Delete { table, .. } => {
                out.push((table.oid, LockMode::RowExclusive));
                for fk in &table.foreign_keys {
                    out.push((fk.parent, LockMode::RowShare));
                }
                if !matches!(
                    stmt,
                    BoundStatement::Insert { .. } | BoundStatement::CopyFrom { .. }
                ) {
                    for (child, _) in catalog.referencing_if_any(table.oid, snapshot) {
                        out.push((child.oid, LockMode::RowExclusive));
                    }
                }
            }
            BoundStatement::Truncate {
                tables, cascade, ..
            } => {
                for t in tables {
                    out.push((t.oid, LockMode::AccessExclusive));
                    if *cascade {
                        for (child, _) in catalog.referencing(t.oid, snapshot()) {
                            out.push((child.oid, LockMode::AccessExclusive));
                        }
                    }
                }
            }
            BoundStatement::CreateIndex { table, .. } => out.push((table.oid, LockMode::Share)),
            BoundStatement::DropIndex { names, .. } => {
                for n in names {
                    if let Some(t) = catalog.index_owner(n.ns, &n.name, snapshot()) {
                        out.push((t.oid, LockMode::AccessExclusive));
                    }
                }
            }
            BoundStatement::AlterTable { name, actions, .. } => {
                out.extend(named(name).map(|oid| (oid, LockMode::AccessExclusive)));
                for a in actions {
                    if let sqlparser::ast::AlterTableOperation::AddConstraint {
                        constraint: sqlparser::ast::TableConstraint::ForeignKey(fk),
                        ..
                    } = a
                    {
                        let path = self.search_path(snapshot());
                        let parent = crate::catalog::sequence::parse_relation_name(
                            &fk.foreign_table.to_string(),
                        )
                        .ok()
                        .and_then(|(schema, name)| {
                            catalog.resolve(schema.as_deref(), &name, &path, snapshot())
                        });
                        out.extend(parent.map(|t| (t.oid, LockMode::ShareRowExclusive)));
                    }
                }
            }
            BoundStatement::DropTable { names, cascade, .. } => {
                for n in names {
                    let Some(oid) = named(n) else { continue };
                    out.push((oid, LockMode::AccessExclusive));
                    if *cascade {
                        for d in catalog.dependents(oid, snapshot()) {
                            out.push((d.oid, LockMode::AccessExclusive));
                        }
                        for (child, _) in catalog.referencing(oid, snapshot()) {
                            out.push((child.oid, LockMode::AccessExclusive));
                        }
                    }
                }
            }
            BoundStatement::CreateTable { foreign_keys, .. } => {
                for fk in foreign_keys {
                    if fk.parent != crate::catalog::SELF_REFERENCE {
                        out.push((fk.parent, LockMode::ShareRowExclusive));
                    }
                }
            }
            BoundStatement::RenameRelation { name, .. }
            | BoundStatement::IndexOptions { name, .. } => {
                match catalog.index_owner(name.ns, &name.name, snapshot()) {
                    Some(t) => out.push((t.oid, LockMode::AccessExclusive)),
                    None => out.extend(named(name).map(|oid| (oid, LockMode::AccessExclusive))),
                }
            }
            BoundStatement::AlterConstraint { table, .. } => {
                out.extend(named(table).map(|oid| (oid, LockMode::AccessExclusive)));
            }
            BoundStatement::AlterSequence { name, .. } => {
                out.extend(named(name).map(|oid| (oid, LockMode::RowExclusive)));
            }
            BoundStatement::SetSchema { name, .. } => {
                out.extend(named(name).map(|oid| (oid, LockMode::AccessExclusive)));
            }
            // DROP SCHEMA … CASCADE drops what is in the schemas.
            BoundStatement::Schema(crate::plan::SchemaChange::Drop { names, .. }) => {
                for n in names {
                    if let Some(ns) = catalog.namespace(n, snapshot()) {
                        for t in catalog.relations_in(ns.oid, snapshot()) {
                            out.push((t.oid, LockMode::AccessExclusive));
                        }
                    }
                }
            }
            _ => {}
        }
        out
    }
}
