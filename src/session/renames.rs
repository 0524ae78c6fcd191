//! RENAME TO of a relation of any kind, ALTER INDEX … SET / RESET, and ALTER TABLE …
//! ALTER CONSTRAINT.
//!
//! A table, view or sequence renamed is a new catalog version under the new name (as
//! ALTER TABLE's own RENAME makes one, views that read it following: see
//! `session::views`); an index renamed is a new version of its table with the index
//! entry renamed, its storage shared. A PRIMARY KEY or UNIQUE constraint is its
//! index, so renaming the index renames the constraint, as in PostgreSQL.

use std::sync::Arc;

use super::{Outcome, Session};
use crate::catalog::{IndexEntry, RelName};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::plan::RenameKind;
use crate::sql::binder::alter::AlterAction;
use crate::storage::mvcc::TxnId;

impl Session {
    pub(super) fn rename_relation(
        &mut self,
        name: &RelName,
        to: &str,
        if_exists: bool,
        kind: RenameKind,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let done = Outcome::Done {
            tag: kind.command().into(),
        };
        let catalog = self.db.catalog.clone();
        let relation = catalog.relation(name, &ctx.snapshot);
        let index_owner = match &relation {
            Some(_) => None,
            None => catalog.index_owner(name.ns, &name.name, &ctx.snapshot),
        };
        if relation.is_none() && index_owner.is_none() {
            if if_exists {
                self.notice(format!(
                    "relation \"{}\" does not exist, skipping",
                    name.name
                ));
                return Ok(done);
            }
            return Err(Error::undefined_table(&name.name));
        }
        let is =
            |wanted: crate::catalog::RelKind| relation.as_ref().is_some_and(|r| r.kind() == wanted);
        match kind {
            RenameKind::View if !is(crate::catalog::RelKind::View) => {
                return Err(Error::new(
                    "42809",
                    format!("\"{}\" is not a view", name.name),
                ));
            }
            RenameKind::Sequence if !is(crate::catalog::RelKind::Sequence) => {
                return Err(Error::new(
                    "42809",
                    format!("\"{}\" is not a sequence", name.name),
                ));
            }
            _ => {}
        }
        if to != name.name && catalog.relation_exists(name.ns, to, &ctx.snapshot) {
            return Err(Error::duplicate_table(to));
        }
        match (relation, index_owner) {
            (Some(entry), _) => {
                self.apply_alter(
                    &entry,
                    AlterAction::RenameTable { to: to.to_string() },
                    ctx,
                    txn,
                )?;
            }
            (None, Some(owner)) => {
                let indexes: Vec<Arc<IndexEntry>> = owner
                    .indexes
                    .iter()
                    .map(|i| {
                        if i.name == name.name {
                            Arc::new(IndexEntry {
                                name: to.to_string(),
                                ..IndexEntry::clone(i)
                            })
                        } else {
                            i.clone()
                        }
                    })
                    .collect();
                let entry = catalog.replace_version(
                    &owner,
                    owner.columns.clone(),
                    indexes,
                    owner.checks.clone(),
                    txn,
                );
                self.replaced(&owner, entry);
            }
            (None, None) => {}
        }
        Ok(done)
    }

    /// ALTER TABLE … ALTER CONSTRAINT: a foreign key's `(DEFERRABLE, INITIALLY
    /// DEFERRED)` in a new version of its table (42809 for another kind of
    /// constraint, 42704 for none).
    pub(super) fn alter_constraint(
        &mut self,
        name: &RelName,
        if_exists: bool,
        constraint: &str,
        (deferrable, deferred): (bool, bool),
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let done = Outcome::Done {
            tag: "ALTER TABLE".into(),
        };
        let catalog = self.db.catalog.clone();
        let Some(t) = catalog
            .relation(name, &ctx.snapshot)
            .filter(|t| t.kind() == crate::catalog::RelKind::Table)
        else {
            if if_exists {
                self.notice(format!(
                    "relation \"{}\" does not exist, skipping",
                    name.name
                ));
                return Ok(done);
            }
            return Err(Error::undefined_table(&name.name));
        };
        if !t.foreign_keys.iter().any(|f| f.name == constraint) {
            let other = t.checks.iter().any(|c| c.name == constraint)
                || t.indexes
                    .iter()
                    .any(|i| i.constraint.is_some() && i.name == constraint);
            return Err(if other {
                Error::new(
                    "42809",
                    format!(
                        "constraint \"{constraint}\" of relation \"{}\" is not a foreign key constraint",
                        t.name
                    ),
                )
            } else {
                Error::new(
                    "42704",
                    format!(
                        "constraint \"{constraint}\" of relation \"{}\" does not exist",
                        t.name
                    ),
                )
            });
        }
        let fks = t
            .foreign_keys
            .iter()
            .map(|f| {
                let mut f = f.clone();
                if f.name == constraint {
                    f.deferrable = deferrable;
                    f.initially_deferred = deferred;
                }
                f
            })
            .collect();
        let entry = catalog.new_version(
            &t,
            t.name.clone(),
            t.columns.clone(),
            t.storage.clone(),
            t.indexes.clone(),
            t.checks.clone(),
            fks,
            txn,
        );
        self.replaced(&t, entry);
        Ok(done)
    }

    /// ALTER INDEX … SET / RESET: a new version of the index's table with the index's
    /// storage parameters changed (42809 for a relation that is not an index).
    pub(super) fn index_options(
        &mut self,
        name: &RelName,
        if_exists: bool,
        changes: &[(String, Option<String>)],
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let done = Outcome::Done {
            tag: "ALTER INDEX".into(),
        };
        let catalog = self.db.catalog.clone();
        let Some(owner) = catalog.index_owner(name.ns, &name.name, &ctx.snapshot) else {
            if catalog.relation(name, &ctx.snapshot).is_some() {
                return Err(Error::new(
                    "42809",
                    format!("\"{}\" is not an index", name.name),
                ));
            }
            if if_exists {
                self.notice(format!(
                    "relation \"{}\" does not exist, skipping",
                    name.name
                ));
                return Ok(done);
            }
            return Err(Error::undefined_table(&name.name));
        };
        let mut indexes = owner.indexes.clone();
        for ix in &mut indexes {
            if ix.name == name.name {
                let mut options = ix.options.clone();
                for (option, value) in changes {
                    crate::sql::binder::constraints::set_index_option(
                        &mut options,
                        option,
                        value.as_deref(),
                    )?;
                }
                *ix = Arc::new(IndexEntry {
                    options,
                    ..IndexEntry::clone(ix)
                });
            }
        }
        let entry = catalog.replace_version(
            &owner,
            owner.columns.clone(),
            indexes,
            owner.checks.clone(),
            txn,
        );
        self.replaced(&owner, entry);
        Ok(done)
    }
}
