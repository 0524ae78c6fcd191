//! DROP TABLE / VIEW / SEQUENCE (with CASCADE and its notices) and CREATE [OR
//! REPLACE] VIEW as the session runs them.

use super::*;
use crate::catalog::RelName;

impl Session {
    /// DROP TABLE / VIEW / SEQUENCE: refuses while views read what it drops, or a
    /// column's default draws from a sequence it drops (2BP01); with CASCADE drops the
    /// views (and the defaults) too. A table takes the sequences its columns own.
    pub(super) fn drop_relations(
        &mut self,
        names: &[RelName],
        if_exists: bool,
        kind: RelKind,
        cascade: bool,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let what = kind.name();
        let mut targets: Vec<Arc<TableEntry>> = Vec::new();
        for rel in names {
            let name = &rel.name;
            match self.db.catalog.relation(rel, &ctx.snapshot) {
                None if if_exists => {
                    self.notice(format!("{what} \"{name}\" does not exist, skipping"))
                }
                None => {
                    return Err(Error::new(
                        "42P01",
                        format!("{what} \"{name}\" does not exist"),
                    ));
                }
                Some(e) if e.kind() != kind => {
                    let actual = e.kind().name();
                    return Err(Error::new("42809", format!("\"{name}\" is not a {what}"))
                        .with_hint(format!(
                            "Use DROP {} to remove a {actual}.",
                            actual.to_uppercase()
                        )));
                }
                Some(e) => targets.push(e),
            }
        }
        if targets.is_empty() {
            return Ok(Outcome::Done {
                tag: format!("DROP {}", what.to_uppercase()),
            });
        }
        let notes = self.drop_entries(&targets, cascade, ctx, txn)?;
        match notes.len() {
            0 => {}
            1 => self.notice(format!("drop cascades to {}", notes[0])),
            n => self.notice(format!("drop cascades to {n} other objects")),
        }
        Ok(Outcome::Done {
            tag: format!("DROP {}", what.to_uppercase()),
        })
    }

    /// Drops `targets` (visible relations) and what depends on them: views reading
    /// them, foreign keys of other tables referencing them, defaults drawing from their
    /// sequences, the sequences their columns own. Without `cascade` anything depending
    /// on them is 2BP01; with it, returns what went beyond the targets (PostgreSQL's
    /// "drop cascades to" lines).
    pub(super) fn drop_entries(
        &mut self,
        targets: &[Arc<TableEntry>],
        cascade: bool,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Vec<String>> {
        let mut dropping = targets.to_vec();
        let mut cascaded: Vec<Arc<TableEntry>> = Vec::new();
        let mut blocked: Vec<String> = Vec::new();
        let mut queue = targets.to_vec();
        while let Some(t) = queue.pop() {
            for d in self.db.catalog.dependents(t.oid, &ctx.snapshot) {
                if dropping.iter().any(|x| x.oid == d.oid) {
                    continue;
                }
                blocked.push(format!(
                    "view {} depends on {} {}",
                    d.name,
                    t.kind().name(),
                    t.name
                ));
                dropping.push(d.clone());
                cascaded.push(d.clone());
                queue.push(d);
            }
        }
        // Foreign keys of other tables that reference a dropped table.
        let mut fk_drops: Vec<(Arc<TableEntry>, String)> = Vec::new();
        for t in targets {
            for (child, fk) in self.db.catalog.referencing(t.oid, &ctx.snapshot) {
                if dropping.iter().any(|d| d.oid == child.oid) {
                    continue;
                }
                blocked.push(format!(
                    "constraint {} on table {} depends on table {}",
                    fk.name, child.name, t.name
                ));
                fk_drops.push((child, fk.name));
            }
        }
        // Sequences whose owning column's default would be left dangling.
        let mut defaults: Vec<(Arc<TableEntry>, String)> = Vec::new();
        for t in targets {
            if let Some((owner, column)) = &t.owned_by
                && !targets.iter().any(|x| x.oid == *owner)
                && let Some(o) = self.db.catalog.by_oid(*owner, &ctx.snapshot)
            {
                blocked.push(format!(
                    "default value for column {column} of table {} depends on sequence {}",
                    o.name, t.name
                ));
                defaults.push((o, column.clone()));
            }
        }
        if !blocked.is_empty() && !cascade {
            let first = &targets[0];
            return Err(Error::new(
                "2BP01",
                format!(
                    "cannot drop {} {} because other objects depend on it",
                    first.kind().name(),
                    first.name
                ),
            )
            .with_detail(blocked.join("\n"))
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
        }
        let mut notes: Vec<String> = cascaded
            .iter()
            .map(|c| format!("view {}", c.name))
            .collect();
        notes.extend(
            fk_drops
                .iter()
                .map(|(c, fk)| format!("constraint {fk} on table {}", c.name)),
        );
        notes.extend(
            defaults
                .iter()
                .map(|(t, c)| format!("default value for column {c} of table {}", t.name)),
        );
        for (child, fk) in fk_drops {
            let Some(current) = self
                .db
                .catalog
                .table(child.namespace, &child.name, &ctx.snapshot)
            else {
                continue;
            };
            let fks = current
                .foreign_keys
                .iter()
                .filter(|f| f.name != fk)
                .cloned()
                .collect();
            let entry = self.db.catalog.new_version(
                &current,
                current.name.clone(),
                current.columns.clone(),
                current.storage.clone(),
                current.indexes.clone(),
                current.checks.clone(),
                fks,
                txn,
            );
            self.undo.push(Undo::DropTable(current));
            self.undo.push(Undo::CreateTable(entry));
        }
        for (table, column) in defaults {
            let mut columns = table.columns.clone();
            if let Some(c) = columns.iter_mut().find(|c| c.name == column) {
                c.default = None;
                c.identity = None;
            }
            let entry = self.db.catalog.replace_version(
                &table,
                columns,
                table.indexes.clone(),
                table.checks.clone(),
                txn,
            );
            self.undo.push(Undo::DropTable(table));
            self.undo.push(Undo::CreateTable(entry));
        }
        for t in targets {
            if t.kind() == RelKind::Table {
                dropping.extend(self.db.catalog.owned_sequences(t.oid, &ctx.snapshot));
            }
        }
        let mut dropped: Vec<u32> = Vec::new();
        for entry in dropping {
            if dropped.contains(&entry.oid) {
                continue;
            }
            dropped.push(entry.oid);
            if let Some(e) = self
                .db
                .catalog
                .table(entry.namespace, &entry.name, &ctx.snapshot)
            {
                self.db.catalog.drop_relation(&e, txn);
                self.undo.push(Undo::DropTable(e));
            }
        }
        Ok(notes)
    }

    /// CREATE [OR REPLACE] VIEW: a replacement keeps every column, name and type, and
    /// may only add columns at the end (42P16).
    pub(super) fn create_view(
        &mut self,
        rel: &RelName,
        columns: &[crate::catalog::ColumnDef],
        view: &crate::catalog::ViewDef,
        or_replace: bool,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let rel = self.resolve_temp(rel);
        let name = rel.name.as_str();
        let replaced = self.db.catalog.relation(&rel, &ctx.snapshot);
        if let Some(old) = replaced.clone() {
            if !or_replace {
                return Err(Error::duplicate_table(name));
            }
            if old.view.is_none() {
                return Err(Error::new("42809", format!("\"{name}\" is not a view")));
            }
            if columns.len() < old.columns.len() {
                return Err(Error::new("42P16", "cannot drop columns from view"));
            }
            for (o, n) in old.columns.iter().zip(columns) {
                if o.name != n.name {
                    return Err(Error::new(
                        "42P16",
                        format!(
                            "cannot change name of view column \"{}\" to \"{}\"",
                            o.name, n.name
                        ),
                    )
                    .with_hint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead."));
                }
                if o.ty != n.ty {
                    return Err(Error::new(
                        "42P16",
                        format!(
                            "cannot change data type of view column \"{}\" from {} to {}",
                            o.name,
                            o.ty.display_name(),
                            n.ty.display_name()
                        ),
                    ));
                }
            }
            if let Some(e) = self.db.catalog.drop_table(&rel, txn, &ctx.snapshot) {
                self.undo.push(Undo::DropTable(e));
            }
        }
        let entry = self.db.catalog.create_relation(
            &rel,
            columns.to_vec(),
            Some(view.clone()),
            self.new_owner(),
            txn,
            &ctx.snapshot,
        )?;
        self.undo.push(Undo::CreateTable(entry.clone()));
        match replaced {
            // A replaced view keeps its owner and privileges.
            Some(old) if old.owner != entry.owner || old.acl.is_some() => {
                let made = self
                    .db
                    .catalog
                    .set_privileges(&entry, old.owner, old.acl.clone(), txn);
                self.undo.push(Undo::DropTable(entry));
                self.undo.push(Undo::CreateTable(made));
            }
            Some(_) => {}
            None => {
                self.apply_default_acl(entry, txn);
            }
        }
        Ok(Outcome::Done {
            tag: "CREATE VIEW".into(),
        })
    }
}
