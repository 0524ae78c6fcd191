//! The session's side of schemas: its search path (from search_path, the current
//! user and its temporary namespace, under a snapshot), its temporary namespace
//! (made at the first CREATE TEMP …, dropped with everything in it when the session
//! ends), temporary tables' ON COMMIT actions, and CREATE / ALTER / DROP SCHEMA with
//! PostgreSQL's checks.

use super::*;
use crate::catalog::RelName;
use crate::catalog::acl::Privs;
use crate::catalog::namespace::{Namespace, SearchPath, is_system_namespace};
use crate::plan::{OnCommit, SchemaChange};
use crate::sql::binder::schemas::TEMP_NAMESPACE;
use crate::storage::mvcc::Snapshot;

impl Session {
    /// How this session resolves names under `snapshot`: search_path's schemas that
    /// exist and that the current role may use (USAGE; PostgreSQL leaves the others
    /// out), behind its temporary namespace and pg_catalog.
    pub(super) fn search_path(&self, snapshot: &Snapshot) -> SearchPath {
        if let Some(p) = &self.path_override {
            return p.clone();
        }
        let mut path = self.db.catalog.search_path(
            &self.settings.search_path,
            self.current_user(),
            self.temp_ns,
            snapshot,
        );
        let (me, superuser) = self.identity();
        if !superuser {
            let usable = |oid: u32| {
                is_system_namespace(oid)
                    || Some(oid) == self.temp_ns
                    || self
                        .db
                        .catalog
                        .namespace_by_oid(oid, snapshot)
                        .is_some_and(|ns| {
                            !privileges::schema_privs(&self.db, me, &ns, Privs::USAGE).is_empty()
                        })
            };
            path.search.retain(|&o| usable(o));
            path.explicit.retain(|&o| usable(o));
        }
        path
    }

    /// The session's temporary namespace, made now if it has none.
    pub(super) fn temp_namespace(&mut self) -> u32 {
        if let Some(ns) = self.temp_ns {
            return ns;
        }
        let ns = self.db.catalog.temp_namespace(self.pid).oid;
        self.temp_ns = Some(ns);
        ns
    }

    /// A bound statement's name with the temporary namespace it stands for made real.
    pub(super) fn resolve_temp(&mut self, name: &RelName) -> RelName {
        if name.ns == TEMP_NAMESPACE {
            RelName::new(self.temp_namespace(), name.name.clone())
        } else {
            name.clone()
        }
    }

    /// Whether relation `entry` is one of this session's temporary relations.
    pub fn is_own_temp(&self, entry: &TableEntry) -> bool {
        Some(entry.namespace) == self.temp_ns
    }

    /// Remembers a temporary table's ON COMMIT action.
    pub(super) fn note_on_commit(&mut self, oid: u32, action: Option<OnCommit>) {
        if let Some(a) = action
            && a != OnCommit::PreserveRows
        {
            self.on_commit.push((oid, a));
        }
    }

    /// The session ends: its temporary relations and namespace go.
    pub fn drop_temp_objects(&mut self) {
        if self.temp_ns.take().is_some() {
            self.db.catalog.drop_temp_namespace(self.pid);
        }
        self.on_commit.clear();
    }

    /// DISCARD TEMP: the session's temporary relations go (its namespace stays, as in
    /// PostgreSQL).
    pub(super) fn discard_temp(&mut self) {
        if let Some(ns) = self.temp_ns {
            self.db.catalog.clear_namespace(ns);
        }
        self.on_commit.clear();
    }

    /// At COMMIT, before it: temporary tables made ON COMMIT DROP are dropped and those
    /// made ON COMMIT DELETE ROWS emptied, in the committing transaction.
    pub(super) fn on_commit_actions(&mut self) {
        if self.on_commit.is_empty() {
            return;
        }
        let txn = match self.ensure_writer() {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!("ON COMMIT actions: {}", e.message);
                return;
            }
        };
        let ctx = self.exec_context(txn);
        let actions = std::mem::take(&mut self.on_commit);
        for (oid, action) in actions {
            let Some(t) = self.db.catalog.by_oid(oid, &ctx.snapshot) else {
                continue;
            };
            let done = match action {
                OnCommit::Drop => self
                    .drop_entries(std::slice::from_ref(&t), true, &ctx, txn)
                    .map(|_| ()),
                OnCommit::DeleteRows => {
                    self.on_commit.push((oid, action));
                    let scan = crate::plan::Plan::new(
                        crate::plan::physical::Op::Scan {
                            table: t.clone(),
                            alias: t.name.clone(),
                            filter: None,
                            row_ids: true,
                            needed: None,
                            index: None,
                        },
                        0.0,
                    );
                    self.run_delete(
                        &t,
                        exec::build(&scan),
                        &ctx,
                        txn,
                        None,
                        None,
                        &mut Vec::new(),
                    )
                    .map(|_| ())
                }
                OnCommit::PreserveRows => Ok(()),
            };
            if let Err(e) = done {
                tracing::warn!("ON COMMIT action on \"{}\": {}", t.name, e.message);
            }
        }
    }

    /// CREATE / ALTER / DROP SCHEMA.
    pub(super) fn change_schema(
        &mut self,
        change: &SchemaChange,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let catalog = self.db.catalog.clone();
        let (me, superuser) = self.identity();
        match change {
            SchemaChange::Create {
                name,
                owner,
                if_not_exists,
                elements,
            } => {
                let done = Outcome::Done {
                    tag: "CREATE SCHEMA".into(),
                };
                if catalog.namespace(name, &ctx.snapshot).is_some() && *if_not_exists {
                    self.notices.push((
                        "NOTICE".into(),
                        "42P06".into(),
                        format!("schema \"{name}\" already exists, skipping"),
                    ));
                    return Ok(done);
                }
                reserved_name(name)?;
                if !superuser && privileges::database_privs(&self.db, me, Privs::CREATE).is_empty()
                {
                    return Err(Error::new(
                        "42501",
                        format!("permission denied for database {}", self.db.name()),
                    ));
                }
                let owner = match owner {
                    Some(spec) => {
                        let o = self.resolve_role(spec)?;
                        if !superuser && o != me && !self.cluster.roles.is_member_of(me, o) {
                            let role = Self::role_name(&self.db, o);
                            return Err(Error::new(
                                "42501",
                                format!("must be able to SET ROLE \"{role}\""),
                            ));
                        }
                        o
                    }
                    None => me,
                };
                let ns = catalog.create_namespace(name, owner, txn, &ctx.snapshot)?;
                let oid = ns.oid;
                self.undo.push(Undo::CreateSchema(ns));
                if !elements.is_empty() {
                    self.path_override = Some(SearchPath {
                        search: vec![crate::catalog::namespace::PG_CATALOG_OID, oid],
                        creation: Some(crate::catalog::namespace::Creation::Namespace(oid)),
                        temp: self.temp_ns,
                        explicit: vec![oid],
                    });
                    self.owner_override = Some(owner);
                    let ran = self.run_schema_elements(name, oid, elements);
                    self.path_override = None;
                    self.owner_override = None;
                    ran?;
                }
                Ok(done)
            }
            SchemaChange::Rename { name, to } => {
                let old = self.schema_to_change(name, ctx)?;
                if catalog.namespace(to, &ctx.snapshot).is_some() {
                    return Err(Error::new(
                        "42P06",
                        format!("schema \"{to}\" already exists"),
                    ));
                }
                reserved_name(to)?;
                if !superuser && privileges::database_privs(&self.db, me, Privs::CREATE).is_empty()
                {
                    return Err(Error::new(
                        "42501",
                        format!("permission denied for database {}", self.db.name()),
                    ));
                }
                // Views that name its relations by the old schema follow them.
                let follow: Vec<super::views::Moving> = catalog
                    .relations_in(old.oid, &ctx.snapshot)
                    .iter()
                    .map(|t| super::views::Moving {
                        oid: t.oid,
                        schema: to.clone(),
                        name: t.name.clone(),
                    })
                    .collect();
                self.follow_moves(&follow, ctx, txn)?;
                let new = catalog.replace_namespace(&old, to, old.owner, old.acl.clone(), txn);
                self.undo.push(Undo::ReplaceSchema(old, new));
                Ok(Outcome::Done {
                    tag: "ALTER SCHEMA".into(),
                })
            }
            SchemaChange::Owner { name, to } => {
                let old = self.schema_to_change(name, ctx)?;
                let new_owner = self.resolve_role(to)?;
                if new_owner != old.owner {
                    if !superuser
                        && new_owner != me
                        && !self.cluster.roles.is_member_of(me, new_owner)
                    {
                        let role = Self::role_name(&self.db, new_owner);
                        return Err(Error::new(
                            "42501",
                            format!("must be able to SET ROLE \"{role}\""),
                        ));
                    }
                    let acl = old.acl.as_ref().map(|a| a.new_owner(old.owner, new_owner));
                    let new = catalog.replace_namespace(&old, &old.name, new_owner, acl, txn);
                    self.undo.push(Undo::ReplaceSchema(old, new));
                }
                Ok(Outcome::Done {
                    tag: "ALTER SCHEMA".into(),
                })
            }
            SchemaChange::Drop {
                names,
                if_exists,
                cascade,
            } => {
                let mut found = Vec::new();
                for name in names {
                    match catalog.namespace(name, &ctx.snapshot) {
                        Some(ns) if !ns.is_temp() || Some(ns.oid) == self.temp_ns => found.push(ns),
                        _ if *if_exists => self.notices.push((
                            "NOTICE".into(),
                            "00000".into(),
                            format!("schema \"{name}\" does not exist, skipping"),
                        )),
                        _ => {
                            return Err(Error::new(
                                "3F000",
                                format!("schema \"{name}\" does not exist"),
                            ));
                        }
                    }
                }
                for ns in &found {
                    if ns.is_system() {
                        return Err(Error::new(
                            "2BP01",
                            format!(
                                "cannot drop schema {} because it is required by the database system",
                                ns.name
                            ),
                        ));
                    }
                    if !superuser && !privileges::owns(&self.db, me, ns.owner) {
                        return Err(Error::new(
                            "42501",
                            format!("must be owner of schema {}", ns.name),
                        ));
                    }
                }
                // What is in them: refused without CASCADE (PostgreSQL lists them).
                let mut contents: Vec<Arc<TableEntry>> = Vec::new();
                for ns in &found {
                    contents.extend(
                        catalog
                            .relations_in(ns.oid, &ctx.snapshot)
                            .into_iter()
                            // A sequence a column owns goes with its table.
                            .filter(|t| t.owned_by.is_none()),
                    );
                }
                if !contents.is_empty() {
                    let schema_of = |t: &TableEntry| {
                        found
                            .iter()
                            .find(|n| n.oid == t.namespace)
                            .map_or(String::new(), |n| n.name.clone())
                    };
                    let mut lines: Vec<String> = contents
                        .iter()
                        .map(|t| format!("{} {}.{}", t.kind().name(), schema_of(t), t.name))
                        .collect();
                    if !*cascade {
                        return Err(Error::new(
                            "2BP01",
                            format!(
                                "cannot drop schema {} because other objects depend on it",
                                found[0].name
                            ),
                        )
                        .with_detail(lines.join("\n"))
                        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
                    }
                    lines.extend(self.drop_entries(&contents, true, ctx, txn)?);
                    let notice = if lines.len() == 1 {
                        format!("drop cascades to {}", lines[0])
                    } else {
                        format!("drop cascades to {} other objects", lines.len())
                    };
                    self.notices.push(("NOTICE".into(), "00000".into(), notice));
                }
                for ns in found {
                    ns.end(txn);
                    self.undo.push(Undo::DropSchema(ns));
                }
                Ok(Outcome::Done {
                    tag: "DROP SCHEMA".into(),
                })
            }
        }
    }

    /// CREATE SCHEMA's elements, each bound in the new schema and run in the statement's
    /// transaction; one that names another schema is 42P15.
    /// Runs `sql` inside the running statement's transaction (what DDL does to rows:
    /// ALTER TYPE … RENAME VALUE, DROP TYPE … CASCADE).
    pub(super) fn run_internal(&mut self, sql: &str) -> Result<()> {
        for stmt in self.parse(sql)? {
            let prepared = self.bind(sql, &stmt, &[])?;
            self.execute(&prepared, Vec::new())?;
        }
        Ok(())
    }

    fn run_schema_elements(&mut self, schema: &str, ns: u32, elements: &[String]) -> Result<()> {
        for sql in elements {
            for stmt in self.parse(sql)? {
                let prepared = self.bind(sql, &stmt, &[])?;
                let target = match &prepared.statement {
                    Some(
                        BoundStatement::CreateTable { name, .. }
                        | BoundStatement::CreateView { name, .. }
                        | BoundStatement::CreateSequence { name, .. }
                        | BoundStatement::CreateTableAs { name, .. },
                    ) => Some(name.ns),
                    Some(BoundStatement::CreateIndex { table, .. }) => Some(table.namespace),
                    _ => None,
                };
                if let Some(other) = target
                    && other != ns
                {
                    let snapshot = self.db.txns.snapshot(self.writer);
                    let named = self
                        .db
                        .catalog
                        .namespace_by_oid(other, &snapshot)
                        .map_or_else(|| other.to_string(), |n| n.name.clone());
                    return Err(Error::new(
                        "42P15",
                        format!(
                            "CREATE specifies a schema ({named}) different from the one being created ({schema})"
                        ),
                    ));
                }
                self.execute(&prepared, Vec::new())?;
            }
        }
        Ok(())
    }

    /// ALTER TABLE | VIEW | SEQUENCE … SET SCHEMA: the relation, its indexes and the
    /// sequences its columns own move to schema `to`.
    pub(super) fn set_schema(
        &mut self,
        name: &RelName,
        kind: RelKind,
        if_exists: bool,
        to: &str,
        ctx: &ExecContext,
        txn: TxnId,
    ) -> Result<Outcome> {
        let tag = match kind {
            RelKind::Table => "ALTER TABLE",
            RelKind::View => "ALTER VIEW",
            RelKind::Sequence => "ALTER SEQUENCE",
        };
        let done = Outcome::Done { tag: tag.into() };
        let catalog = self.db.catalog.clone();
        let Some(entry) = catalog.relation(name, &ctx.snapshot) else {
            if if_exists {
                self.notice(format!(
                    "relation \"{}\" does not exist, skipping",
                    name.name
                ));
                return Ok(done);
            }
            return Err(Error::undefined_table(&name.name));
        };
        if kind != RelKind::Table && entry.kind() != kind {
            return Err(Error::new(
                "42809",
                format!("\"{}\" is not a {}", entry.name, kind.name()),
            ));
        }
        let target = if to == "pg_temp" {
            self.temp_ns
                .and_then(|o| catalog.namespace_by_oid(o, &ctx.snapshot))
        } else {
            catalog.namespace(to, &ctx.snapshot)
        };
        let Some(target) = target else {
            return Err(Error::new(
                "3F000",
                format!("schema \"{to}\" does not exist"),
            ));
        };
        if target.oid == entry.namespace {
            return Ok(done);
        }
        if entry.temp || target.is_temp() {
            return Err(Error::new(
                "0A000",
                "cannot move objects into or out of temporary schemas",
            ));
        }
        if target.is_system() {
            return Err(Error::new(
                "0A000",
                "cannot move objects into or out of TOAST schema",
            ));
        }
        let (me, superuser) = self.identity();
        if !superuser {
            self.must_own(&entry)?;
            if privileges::schema_privs(&self.db, me, &target, Privs::CREATE).is_empty() {
                return Err(Error::new(
                    "42501",
                    format!("permission denied for schema {}", target.name),
                ));
            }
        }
        let mut moving = vec![entry.clone()];
        if entry.kind() == RelKind::Table {
            moving.extend(catalog.owned_sequences(entry.oid, &ctx.snapshot));
        }
        for m in &moving {
            let taken = catalog.relation_exists(target.oid, &m.name, &ctx.snapshot)
                || m.indexes
                    .iter()
                    .any(|ix| catalog.relation_exists(target.oid, &ix.name, &ctx.snapshot));
            if taken {
                return Err(Error::new(
                    "42P07",
                    format!(
                        "relation \"{}\" already exists in schema \"{}\"",
                        m.name, target.name
                    ),
                ));
            }
        }
        let follow: Vec<super::views::Moving> = moving
            .iter()
            .map(|m| super::views::Moving {
                oid: m.oid,
                schema: target.name.clone(),
                name: m.name.clone(),
            })
            .collect();
        self.follow_moves(&follow, ctx, txn)?;
        for m in moving {
            let moved = catalog.move_relation(&m, target.oid, txn);
            self.undo.push(Undo::DropTable(m));
            self.undo.push(Undo::CreateTable(moved));
        }
        Ok(done)
    }

    /// The schema ALTER SCHEMA names, which the current role must own.
    fn schema_to_change(&self, name: &str, ctx: &ExecContext) -> Result<Arc<Namespace>> {
        let Some(ns) = self.db.catalog.namespace(name, &ctx.snapshot) else {
            return Err(Error::new(
                "3F000",
                format!("schema \"{name}\" does not exist"),
            ));
        };
        let (me, superuser) = self.identity();
        if ns.is_system() || ns.is_temp() {
            return Err(
                Error::new("42939", format!("unacceptable schema name \"{name}\""))
                    .with_detail("The prefix \"pg_\" is reserved for system schemas."),
            );
        }
        if !superuser && !privileges::owns(&self.db, me, ns.owner) {
            return Err(Error::new(
                "42501",
                format!("must be owner of schema {name}"),
            ));
        }
        Ok(ns)
    }
}

/// Schema names beginning `pg_` are the system's (42939).
fn reserved_name(name: &str) -> Result<()> {
    if name.starts_with("pg_") {
        return Err(
            Error::new("42939", format!("unacceptable schema name \"{name}\""))
                .with_detail("The prefix \"pg_\" is reserved for system schemas."),
        );
    }
    Ok(())
}
