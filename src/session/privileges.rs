//! Who may do what: the checks statements pass before they run, and GRANT, REVOKE,
//! role membership, OWNER TO, REASSIGN OWNED and DROP OWNED carried out.
//!
//! The rules are PostgreSQL 15's (see `catalog::acl` for the ACLs themselves):
//! - reading, writing and emptying a relation need SELECT, INSERT, UPDATE, DELETE,
//!   TRUNCATE as the binder listed them (`Access`; a view's tables are checked as the
//!   view's owner);
//! - changing or dropping a relation (ALTER, DROP, CREATE INDEX, COMMENT) needs to be
//!   its owner, or a member of the owning role; creating one needs CREATE on schema
//!   public, which PostgreSQL 15 gives only to the database owner;
//! - sequences' functions check USAGE / SELECT / UPDATE as they run
//!   (`exec::functions`);
//! - a superuser passes every check.
//!
//! Failures are 42501 with PostgreSQL's messages (`permission denied for table t`,
//! `must be owner of table t`).

use super::*;
use crate::auth::{BOOTSTRAP_SUPERUSER_OID, Membership};
use crate::catalog::acl::{Access, Acl, ObjectKind, PG_DATABASE_OWNER, PUBLIC, Privs, default_acl};
use crate::plan::{GrantTarget, PrivilegeChange, RoleSpec};

/// No role: a session whose role was dropped holds only PUBLIC's privileges.
const NO_ROLE: u32 = u32::MAX;

/// The ACL kind of a relation.
pub fn object_kind(entry: &TableEntry) -> ObjectKind {
    match entry.kind() {
        RelKind::View => ObjectKind::View,
        RelKind::Sequence => ObjectKind::Sequence,
        _ => ObjectKind::Table,
    }
}

/// Whether role `oid` is a superuser (the bootstrap superuser always is).
pub fn is_superuser_role(db: &Database, oid: u32) -> bool {
    oid == BOOTSTRAP_SUPERUSER_OID || db.cluster().roles.by_oid(oid).is_some_and(|r| r.superuser)
}

/// Whether `role` has the privileges of `r` (pg_database_owner: of the database's
/// owner).
fn inherits(db: &Database, role: u32, r: u32) -> bool {
    if r == PG_DATABASE_OWNER {
        return role == db.owner() || db.cluster().roles.has_privs_of(role, db.owner());
    }
    role == r || db.cluster().roles.has_privs_of(role, r)
}

/// Whether `role` has the privileges of `owner` (PostgreSQL's ownership test).
pub fn owns(db: &Database, role: u32, owner: u32) -> bool {
    is_superuser_role(db, role) || inherits(db, role, owner)
}

/// The explicit ACL of a relation (its default when none was set).
fn relation_acl(entry: &TableEntry) -> Acl {
    entry
        .acl
        .clone()
        .unwrap_or_else(|| default_acl(object_kind(entry), entry.owner))
}

/// The privileges among `wanted` that `role` holds on relation `entry`.
pub fn relation_privs(db: &Database, role: u32, entry: &TableEntry, wanted: Privs) -> Privs {
    if is_superuser_role(db, role) {
        return wanted;
    }
    relation_acl(entry).mask(wanted, &|r| inherits(db, role, r))
}

/// The grant options among `wanted` that `role` holds on `entry` (all, for an owner).
pub fn relation_grant_options(
    db: &Database,
    role: u32,
    entry: &TableEntry,
    wanted: Privs,
) -> Privs {
    if owns(db, role, entry.owner) {
        return wanted;
    }
    relation_acl(entry).mask_options(wanted, &|r| inherits(db, role, r))
}

/// The privileges among `wanted` that `role` holds on schema `ns`.
pub fn schema_privs(
    db: &Database,
    role: u32,
    ns: &crate::catalog::namespace::Namespace,
    wanted: Privs,
) -> Privs {
    if is_superuser_role(db, role) {
        return wanted;
    }
    ns.acl
        .clone()
        .unwrap_or_else(|| default_acl(ObjectKind::Schema, ns.owner))
        .mask(wanted, &|r| inherits(db, role, r))
}

/// The privileges among `wanted` that `role` holds on the database.
pub fn database_privs(db: &Database, role: u32, wanted: Privs) -> Privs {
    if is_superuser_role(db, role) {
        return wanted;
    }
    db.catalog
        .database_acl()
        .unwrap_or_else(|| default_acl(ObjectKind::Database, db.owner()))
        .mask(wanted, &|r| inherits(db, role, r))
}

/// 42501 for a missing privilege on relation `entry`.
pub fn denied(entry: &TableEntry) -> Error {
    Error::new(
        "42501",
        format!(
            "permission denied for {} {}",
            object_kind(entry).noun(),
            entry.name
        ),
    )
}

/// 42501 for a change only the owner may make.
pub fn not_owner(entry: &TableEntry) -> Error {
    Error::new(
        "42501",
        format!(
            "must be owner of {} {}",
            object_kind(entry).noun(),
            entry.name
        ),
    )
}

fn schema_denied(name: &str) -> Error {
    Error::new("42501", format!("permission denied for schema {name}"))
}

impl Session {
    /// The role statements run as: SET ROLE's, else the session's.
    pub fn current_user(&self) -> &str {
        match self.settings.get("role") {
            Some((_, r)) if r != "none" => r,
            _ => &self.user,
        }
    }

    /// The current role's oid and whether it is a superuser. A session user without a
    /// role (trust lets any name in) is the bootstrap superuser when it logged in as a
    /// superuser, and no role otherwise.
    pub fn identity(&self) -> (u32, bool) {
        match self.cluster.roles.get(self.current_user()) {
            Some(r) => (r.oid, r.superuser || r.oid == BOOTSTRAP_SUPERUSER_OID),
            None if self.login_superuser => (BOOTSTRAP_SUPERUSER_OID, true),
            None => (NO_ROLE, false),
        }
    }

    fn role_oid(&self) -> u32 {
        self.identity().0
    }

    /// The owner new relations get.
    pub(super) fn new_owner(&self) -> u32 {
        self.owner_override.unwrap_or_else(|| self.role_oid())
    }

    /// Whether the current role owns `entry` (or may act as its owner).
    pub(super) fn must_own(&self, entry: &TableEntry) -> Result<()> {
        if owns(&self.db, self.role_oid(), entry.owner) {
            Ok(())
        } else {
            Err(not_owner(entry))
        }
    }

    /// CREATE on schema `ns` (CREATE TABLE, VIEW, SEQUENCE, INDEX in it). A session's
    /// own temporary namespace takes the database's TEMPORARY privilege instead, checked
    /// when it is made.
    pub(super) fn may_create(&self, ns: u32, ctx: &ExecContext) -> Result<()> {
        if ns == crate::sql::binder::schemas::TEMP_NAMESPACE || Some(ns) == self.temp_ns {
            return Ok(());
        }
        let Some(namespace) = self.db.catalog.namespace_by_oid(ns, &ctx.snapshot) else {
            return Ok(());
        };
        if schema_privs(&self.db, self.role_oid(), &namespace, Privs::CREATE).is_empty() {
            Err(schema_denied(&namespace.name))
        } else {
            Ok(())
        }
    }

    /// The privilege checks of a statement about to run.
    pub(super) fn check_privileges(&self, prepared: &Prepared, ctx: &ExecContext) -> Result<()> {
        let (me, superuser) = self.identity();
        self.check_access(&prepared.access, me, superuser, &ctx.snapshot)?;
        if superuser {
            return Ok(());
        }
        let Some(stmt) = &prepared.statement else {
            return Ok(());
        };
        let catalog = &self.db.catalog;
        let existing = |name: &crate::catalog::RelName| catalog.relation(name, &ctx.snapshot);
        match stmt {
            BoundStatement::CreateTable { name, .. }
            | BoundStatement::CreateSequence { name, .. }
            | BoundStatement::CreateTableAs { name, .. } => self.may_create(name.ns, ctx)?,
            BoundStatement::CreateView {
                name, or_replace, ..
            } => {
                match existing(name) {
                    Some(old) if *or_replace && old.view.is_some() => self.must_own(&old)?,
                    _ => {}
                }
                self.may_create(name.ns, ctx)?;
            }
            BoundStatement::CreateIndex { table, .. } => {
                self.must_own(table)?;
            }
            BoundStatement::AlterTable { name, .. }
            | BoundStatement::AlterConstraint { table: name, .. }
            | BoundStatement::AlterSequence { name, .. } => {
                if let Some(t) = existing(name) {
                    self.may_use_schema(t.namespace, ctx)?;
                    self.must_own(&t)?;
                }
            }
            BoundStatement::DropTable { names, .. } => {
                for n in names {
                    let Some(t) = existing(n) else { continue };
                    self.may_use_schema(t.namespace, ctx)?;
                    // A schema's owner may drop what is in it (PostgreSQL).
                    if !self.owns_schema(t.namespace, ctx) {
                        self.must_own(&t)?;
                    }
                }
            }
            BoundStatement::RenameRelation { name, .. }
            | BoundStatement::IndexOptions { name, .. } => {
                let owner = existing(name)
                    .or_else(|| catalog.index_owner(name.ns, &name.name, &ctx.snapshot));
                if let Some(t) = owner {
                    self.may_use_schema(t.namespace, ctx)?;
                    self.must_own(&t)?;
                }
            }
            BoundStatement::DropIndex { names, .. } => {
                for n in names {
                    if let Some(t) = catalog.index_owner(n.ns, &n.name, &ctx.snapshot)
                        && !owns(&self.db, me, t.owner)
                        && !self.owns_schema(t.namespace, ctx)
                    {
                        return Err(Error::new(
                            "42501",
                            format!("must be owner of index {}", n.name),
                        ));
                    }
                }
            }
            BoundStatement::Comment { oid, .. } => {
                if let Some(ns) = catalog.namespace_by_oid(*oid, &ctx.snapshot) {
                    if !owns(&self.db, me, ns.owner) {
                        return Err(Error::new(
                            "42501",
                            format!("must be owner of schema {}", ns.name),
                        ));
                    }
                } else if let Some(t) = catalog.by_oid(*oid, &ctx.snapshot) {
                    self.must_own(&t)?;
                } else if let Some(t) = catalog
                    .visible_tables(&ctx.snapshot)
                    .into_iter()
                    .find(|t| t.indexes.iter().any(|i| i.oid == *oid))
                    && !owns(&self.db, me, t.owner)
                {
                    let name = t
                        .indexes
                        .iter()
                        .find(|i| i.oid == *oid)
                        .map_or(String::new(), |i| i.name.clone());
                    return Err(Error::new(
                        "42501",
                        format!("must be owner of index {name}"),
                    ));
                }
            }
            BoundStatement::LockTable { tables, mode, .. } => {
                use crate::storage::locks::LockMode as M;
                // PostgreSQL's LockTableAclCheck: any one of these suffices.
                let any = match mode {
                    M::AccessShare => {
                        Privs::SELECT | Privs::UPDATE | Privs::DELETE | Privs::TRUNCATE
                    }
                    M::RowExclusive => {
                        Privs::INSERT | Privs::UPDATE | Privs::DELETE | Privs::TRUNCATE
                    }
                    _ => Privs::UPDATE | Privs::DELETE | Privs::TRUNCATE,
                };
                for t in tables {
                    if relation_privs(&self.db, me, t, any).is_empty() {
                        return Err(denied(t));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The privileges a statement bound while it runs (ALTER TABLE's actions) needs.
    pub(super) fn check_bound_access(&self, access: &[Access]) -> Result<()> {
        let (me, superuser) = self.identity();
        let snapshot = self.db.txns.snapshot(self.writer);
        self.check_access(access, me, superuser, &snapshot)
    }

    fn check_access(
        &self,
        access: &[Access],
        me: u32,
        superuser: bool,
        snapshot: &crate::storage::mvcc::Snapshot,
    ) -> Result<()> {
        for a in access {
            let role = a.as_role.unwrap_or(me);
            if a.as_role.is_none() && superuser {
                continue;
            }
            // A relation the statement names must be in a schema the role may use (a
            // qualified name reaches past the search path, which leaves such schemas
            // out); a view's relations were named by its owner.
            if a.as_role.is_none()
                && !a.table.temp
                && let Some(ns) = self
                    .db
                    .catalog
                    .namespace_by_oid(a.table.namespace, snapshot)
                && !ns.is_system()
                && schema_privs(&self.db, role, &ns, Privs::USAGE).is_empty()
            {
                return Err(schema_denied(&ns.name));
            }
            if !relation_privs(&self.db, role, &a.table, a.privs).contains(a.privs) {
                return Err(denied(&a.table));
            }
        }
        Ok(())
    }

    /// SET ROLE name | NONE, RESET ROLE: the session user must be a member of the role
    /// (or a superuser); is_superuser follows the role.
    pub(super) fn set_role(&mut self, value: Option<&str>) -> Result<()> {
        let session_role = self.cluster.roles.get(&self.user);
        let session_super = match &session_role {
            Some(r) => r.superuser || r.oid == BOOTSTRAP_SUPERUSER_OID,
            None => self.login_superuser,
        };
        let superuser = match value {
            None | Some("none") => session_super,
            Some(name) => {
                let Some(role) = self.cluster.roles.get(name) else {
                    return Err(Error::new(
                        "22023",
                        format!("role \"{name}\" does not exist"),
                    ));
                };
                let member = session_role
                    .as_ref()
                    .is_some_and(|s| self.cluster.roles.is_member_of(s.oid, role.oid));
                if !session_super && !member {
                    return Err(Error::new(
                        "42501",
                        format!("permission denied to set role \"{name}\""),
                    ));
                }
                role.superuser || role.oid == BOOTSTRAP_SUPERUSER_OID
            }
        };
        self.settings.set("role", Some(value.unwrap_or("none")))?;
        let flag = if superuser { "on" } else { "off" };
        if self
            .settings
            .get("is_superuser")
            .is_none_or(|(_, v)| v != flag)
        {
            self.settings.set_server_value("is_superuser", flag.into());
            self.changed_settings.push("is_superuser".into());
        }
        Ok(())
    }

    /// SET SESSION AUTHORIZATION name | DEFAULT: only a session that logged in as a
    /// superuser may become another user; SET ROLE is reset.
    pub(super) fn set_session_authorization(&mut self, value: Option<&str>) -> Result<()> {
        let login = self.login_user.clone();
        let login_super = match self.cluster.roles.get(&login) {
            Some(r) => r.superuser || r.oid == BOOTSTRAP_SUPERUSER_OID,
            None => self.login_superuser,
        };
        let target = value.unwrap_or(&login).to_string();
        let superuser = if target == login {
            login_super
        } else {
            let Some(role) = self.cluster.roles.get(&target) else {
                return Err(Error::new(
                    "42704",
                    format!("role \"{target}\" does not exist"),
                ));
            };
            if !login_super {
                return Err(Error::new(
                    "42501",
                    "permission denied to set session authorization",
                ));
            }
            role.superuser || role.oid == BOOTSTRAP_SUPERUSER_OID
        };
        self.user = target.clone();
        self.settings.set("role", Some("none"))?;
        self.settings
            .set_server_value("session_authorization", target);
        self.changed_settings.push("session_authorization".into());
        let flag = if superuser { "on" } else { "off" };
        self.settings.set_server_value("is_superuser", flag.into());
        self.changed_settings.push("is_superuser".into());
        Ok(())
    }

    /// The oid a role spec names (PUBLIC: 0).
    pub(super) fn resolve_role(&self, spec: &RoleSpec) -> Result<u32> {
        let name = match spec {
            RoleSpec::Public => return Ok(PUBLIC),
            RoleSpec::CurrentUser => return Ok(self.role_oid()),
            RoleSpec::SessionUser => self.user.clone(),
            RoleSpec::Name(n) => n.clone(),
        };
        match self.cluster.roles.get(&name) {
            Some(r) => Ok(r.oid),
            None if name == self.user && self.login_superuser => Ok(BOOTSTRAP_SUPERUSER_OID),
            None => Err(Error::new(
                "42704",
                format!("role \"{name}\" does not exist"),
            )),
        }
    }

    /// A role's name by oid, as ACLs print it (PUBLIC is empty; a role gone, its oid).
    pub fn role_name(db: &Database, oid: u32) -> String {
        match oid {
            PUBLIC => String::new(),
            PG_DATABASE_OWNER => "pg_database_owner".into(),
            _ => db.cluster().roles.by_oid(oid).map_or_else(
                || {
                    if oid == BOOTSTRAP_SUPERUSER_OID {
                        "postgres".into()
                    } else {
                        oid.to_string()
                    }
                },
                |r| r.name,
            ),
        }
    }

    /// A NOTICE for the client (`relation "x" does not exist, skipping`).
    pub(super) fn notice(&mut self, text: impl Into<String>) {
        self.notices
            .push(("NOTICE".into(), "00000".into(), text.into()));
    }

    fn warn(&mut self, code: &str, text: String) {
        self.notices.push(("WARNING".into(), code.into(), text));
    }

    /// The roles a GRANT / REVOKE names (PUBLIC: 0); grant options only to roles.
    fn grantees(&self, c: &PrivilegeChange) -> Result<Vec<u32>> {
        let grantees = c
            .grantees
            .iter()
            .map(|g| self.resolve_role(g))
            .collect::<Result<Vec<_>>>()?;
        if c.grant && c.grant_option && grantees.contains(&PUBLIC) {
            return Err(Error::new(
                "0LP01",
                "grant options can only be granted to roles",
            ));
        }
        Ok(grantees)
    }

    /// GRANT / REVOKE privileges.
    pub(super) fn change_privileges(
        &mut self,
        c: &PrivilegeChange,
        ctx: &ExecContext,
    ) -> Result<Outcome> {
        let tag = if c.grant { "GRANT" } else { "REVOKE" };
        let grantees = self.grantees(c)?;
        // What the statement's privileges are checked against: a table's rights and a
        // sequence's (ON TABLE takes either), a schema's, a database's.
        let (valid, noun) = match &c.target {
            GrantTarget::Tables(_) | GrantTarget::AllTables(_) => (
                ObjectKind::Table.all() | ObjectKind::Sequence.all(),
                "table",
            ),
            GrantTarget::Sequences(_) | GrantTarget::AllSequences(_) => {
                (ObjectKind::Sequence.all(), "sequence")
            }
            GrantTarget::Schemas(_) => (ObjectKind::Schema.all(), "schema"),
            GrantTarget::Databases(_) => (ObjectKind::Database.all(), "database"),
        };
        if let Some(list) = &c.privileges {
            for (word, p) in list {
                if !valid.contains(*p) {
                    return Err(Error::new(
                        "0LP01",
                        format!("invalid privilege type {word} for {noun}"),
                    ));
                }
            }
        }
        let asked = c
            .privileges
            .as_ref()
            .map(|l| l.iter().fold(Privs::NONE, |a, (_, p)| a | *p));
        let txn = ctx.snapshot.own;
        match &c.target {
            GrantTarget::Schemas(names) => {
                let mut schemas = Vec::new();
                for n in names {
                    schemas.push(self.schema_named(n, ctx)?);
                }
                for ns in schemas {
                    let edited = self.edit_acl(
                        ns.acl.clone(),
                        ObjectKind::Schema,
                        ns.owner,
                        &ns.name,
                        asked,
                        &grantees,
                        c,
                    )?;
                    if let Some(acl) = edited {
                        let new = self.db.catalog.replace_namespace(
                            &ns,
                            &ns.name,
                            ns.owner,
                            Some(acl),
                            txn,
                        );
                        self.undo.push(Undo::ReplaceSchema(ns, new));
                    }
                }
            }
            GrantTarget::Databases(names) => {
                let mut dbs = Vec::new();
                for n in names {
                    match self.cluster.database(n) {
                        Some(db) => dbs.push(db),
                        None => {
                            return Err(Error::new(
                                "3D000",
                                format!("database \"{n}\" does not exist"),
                            ));
                        }
                    }
                }
                for db in dbs {
                    let edited = self.edit_acl(
                        db.catalog.database_acl(),
                        ObjectKind::Database,
                        db.owner(),
                        &db.name(),
                        asked,
                        &grantees,
                        c,
                    )?;
                    if let Some(acl) = edited {
                        let before = db.catalog.set_database_acl(Some(acl));
                        self.undo.push(Undo::DatabaseAcl(db, before));
                    }
                }
            }
            target => {
                let entries = self.grant_relations(target, ctx)?;
                for entry in entries {
                    let kind = object_kind(&entry);
                    let mut privs = asked;
                    if let Some(p) = privs {
                        if kind == ObjectKind::Sequence && !ObjectKind::Sequence.all().contains(p) {
                            self.warn(
                                "0LP01",
                                format!(
                                    "sequence \"{}\" only supports USAGE, SELECT, and UPDATE privileges",
                                    entry.name
                                ),
                            );
                            privs = Some(p & ObjectKind::Sequence.all());
                        } else if kind != ObjectKind::Sequence
                            && !ObjectKind::Table.all().contains(p)
                        {
                            return Err(Error::new(
                                "0LP01",
                                "invalid privilege type USAGE for table",
                            ));
                        }
                    }
                    let edited = self.edit_acl(
                        entry.acl.clone(),
                        kind,
                        entry.owner,
                        &entry.name,
                        privs,
                        &grantees,
                        c,
                    );
                    let Some(acl) = edited? else { continue };
                    let new = self
                        .db
                        .catalog
                        .set_privileges(&entry, entry.owner, Some(acl), txn);
                    self.undo.push(Undo::DropTable(entry));
                    self.undo.push(Undo::CreateTable(new));
                }
            }
        }
        Ok(Outcome::Done { tag: tag.into() })
    }

    /// USAGE on schema `ns`, which naming a relation in it needs (42501).
    fn may_use_schema(&self, ns: u32, ctx: &ExecContext) -> Result<()> {
        match self.db.catalog.namespace_by_oid(ns, &ctx.snapshot) {
            Some(n)
                if !n.is_system()
                    && !n.is_temp()
                    && schema_privs(&self.db, self.role_oid(), &n, Privs::USAGE).is_empty() =>
            {
                Err(schema_denied(&n.name))
            }
            _ => Ok(()),
        }
    }

    /// Whether the current role owns schema `ns` (or may act as its owner).
    fn owns_schema(&self, ns: u32, ctx: &ExecContext) -> bool {
        self.db
            .catalog
            .namespace_by_oid(ns, &ctx.snapshot)
            .is_some_and(|n| owns(&self.db, self.role_oid(), n.owner))
    }

    /// The schema GRANT / REVOKE ON SCHEMA names.
    fn schema_named(
        &self,
        n: &str,
        ctx: &ExecContext,
    ) -> Result<Arc<crate::catalog::namespace::Namespace>> {
        match n {
            "pg_catalog" | "information_schema" => Err(Error::feature_not_supported(format!(
                "privileges on schema \"{n}\""
            ))),
            _ => self
                .db
                .catalog
                .namespace(n, &ctx.snapshot)
                .ok_or_else(|| Error::new("3F000", format!("schema \"{n}\" does not exist"))),
        }
    }

    /// The relations a GRANT's target names, in the statement's snapshot.
    fn grant_relations(
        &self,
        target: &GrantTarget,
        ctx: &ExecContext,
    ) -> Result<Vec<Arc<TableEntry>>> {
        let catalog = &self.db.catalog;
        let mut out = Vec::new();
        match target {
            GrantTarget::Tables(names) | GrantTarget::Sequences(names) => {
                for n in names {
                    let Some(t) = catalog.relation(n, &ctx.snapshot) else {
                        return Err(Error::undefined_table(&n.name));
                    };
                    if matches!(target, GrantTarget::Sequences(_)) && t.sequence.is_none() {
                        return Err(Error::new(
                            "42809",
                            format!("\"{}\" is not a sequence", n.name),
                        ));
                    }
                    if !out.iter().any(|o: &Arc<TableEntry>| o.oid == t.oid) {
                        out.push(t);
                    }
                }
            }
            GrantTarget::AllTables(schemas) | GrantTarget::AllSequences(schemas) => {
                let sequences = matches!(target, GrantTarget::AllSequences(_));
                let mut all: Vec<Arc<TableEntry>> = schemas
                    .iter()
                    .flat_map(|&ns| catalog.relations_in(ns, &ctx.snapshot))
                    .filter(|t| t.sequence.is_some() == sequences)
                    .collect();
                all.sort_by_key(|t| t.oid);
                out = all;
            }
            _ => {}
        }
        Ok(out)
    }

    /// One object's GRANT or REVOKE: PostgreSQL's grantor choice and checks, then the
    /// ACL edited. None when nothing could change (the warnings say why).
    #[allow(clippy::too_many_arguments)]
    fn edit_acl(
        &mut self,
        current: Option<Acl>,
        kind: ObjectKind,
        owner: u32,
        name: &str,
        asked: Option<Privs>,
        grantees: &[u32],
        c: &PrivilegeChange,
    ) -> Result<Option<Acl>> {
        let me = self.role_oid();
        let all = kind.all();
        let privileges = asked.unwrap_or(all);
        let mut acl = current.unwrap_or_else(|| default_acl(kind, owner));
        let (grantor, options) = if owns(&self.db, me, owner)
            || (owner == PG_DATABASE_OWNER && inherits(&self.db, me, owner))
        {
            (owner, all)
        } else {
            let options = acl.mask_options(all, &|r| inherits(&self.db, me, r));
            (me, options)
        };
        if options.is_empty() && acl.mask(all, &|r| inherits(&self.db, me, r)).is_empty() {
            return Err(Error::new(
                "42501",
                format!("permission denied for {} {name}", kind.noun()),
            ));
        }
        let granted = privileges & options;
        let quoted = format!("\"{name}\"");
        if c.grant {
            if granted.is_empty() {
                self.warn("01007", format!("no privileges were granted for {quoted}"));
            } else if asked.is_some() && granted != privileges {
                self.warn(
                    "01007",
                    format!("not all privileges were granted for {quoted}"),
                );
            }
        } else if granted.is_empty() {
            self.warn(
                "01006",
                format!("no privileges could be revoked for {quoted}"),
            );
        } else if asked.is_some() && granted != privileges {
            self.warn(
                "01006",
                format!("not all privileges could be revoked for {quoted}"),
            );
        }
        if granted.is_empty() {
            return Ok(None);
        }
        for &g in grantees {
            if c.grant {
                acl.grant(g, grantor, granted, c.grant_option);
            } else {
                let lost = acl.revoke(g, grantor, granted, c.grant_option);
                if !lost.is_empty() && !acl.granted_by(g, lost).is_empty() {
                    if !c.cascade {
                        return Err(Error::new("2BP01", "dependent privileges exist")
                            .with_hint("Use CASCADE to revoke them too."));
                    }
                    revoke_dependents(&mut acl, g, lost);
                }
            }
        }
        Ok(Some(acl))
    }

    /// ALTER DEFAULT PRIVILEGES (PostgreSQL's SetDefaultACL): a global entry starts
    /// from the role's default ACL and is removed when it comes back to it; a schema
    /// entry starts empty and is removed when empty.
    pub(super) fn change_default_privileges(
        &mut self,
        roles: &[RoleSpec],
        in_schema: bool,
        c: &PrivilegeChange,
    ) -> Result<Outcome> {
        let kind = match c.target {
            GrantTarget::AllSequences(_) => ObjectKind::Sequence,
            _ => ObjectKind::Table,
        };
        if let Some(list) = &c.privileges {
            for (word, p) in list {
                if !kind.all().contains(*p) {
                    return Err(Error::new(
                        "0LP01",
                        format!("invalid privilege type {word} for {}", kind.noun()),
                    ));
                }
            }
        }
        let privs = c.privileges.as_ref().map_or(kind.all(), |l| {
            l.iter().fold(Privs::NONE, |a, (_, p)| a | *p)
        });
        let grantees = self.grantees(c)?;
        let (me, superuser) = self.identity();
        let mut entries = self.db.catalog.default_acls();
        let before = entries.clone();
        for spec in roles {
            let role = self.resolve_role(spec)?;
            if !superuser && !self.cluster.roles.has_privs_of(me, role) {
                return Err(Error::new(
                    "42501",
                    "permission denied to change default privileges",
                ));
            }
            let at = entries
                .iter()
                .position(|d| d.role == role && d.kind == kind && d.in_schema == in_schema);
            let mut acl = match at {
                Some(k) => entries[k].acl.clone(),
                None if in_schema => Acl::default(),
                None => default_acl(kind, role),
            };
            for &g in &grantees {
                if c.grant {
                    acl.grant(g, role, privs, c.grant_option);
                } else {
                    acl.revoke(g, role, privs, c.grant_option);
                }
            }
            acl.sort();
            let entry = crate::catalog::acl::DefaultAcl {
                role,
                in_schema,
                kind,
                acl,
            };
            match (at, default_unneeded(&entry)) {
                (Some(k), true) => {
                    entries.remove(k);
                }
                (Some(k), false) => entries[k] = entry,
                (None, true) => {}
                (None, false) => entries.push(entry),
            }
        }
        self.db.catalog.set_default_acls(entries);
        self.undo.push(Undo::DefaultAcls(before));
        Ok(Outcome::Done {
            tag: "ALTER DEFAULT PRIVILEGES".into(),
        })
    }

    /// A relation just made by this transaction takes the ACL ALTER DEFAULT
    /// PRIVILEGES set for its owner, if any (a new version of it).
    pub(super) fn apply_default_acl(
        &mut self,
        entry: Arc<TableEntry>,
        txn: TxnId,
    ) -> Arc<TableEntry> {
        let defaults = self.db.catalog.default_acls();
        if defaults.is_empty() {
            return entry;
        }
        match crate::catalog::acl::initial_acl(&defaults, object_kind(&entry), entry.owner) {
            None => entry,
            Some(a) => {
                let made = self
                    .db
                    .catalog
                    .set_privileges(&entry, entry.owner, Some(a), txn);
                self.undo.push(Undo::DropTable(entry));
                self.undo.push(Undo::CreateTable(made.clone()));
                made
            }
        }
    }

    /// GRANT / REVOKE role TO / FROM members.
    pub(super) fn change_membership(
        &mut self,
        grant: bool,
        roles: &[String],
        members: &[RoleSpec],
        admin: bool,
    ) -> Result<Outcome> {
        let (me, superuser) = self.identity();
        let mut list = self.cluster.roles.memberships();
        let before = list.clone();
        for name in roles {
            let Some(role) = self.cluster.roles.get(name) else {
                return Err(Error::new(
                    "42704",
                    format!("role \"{name}\" does not exist"),
                ));
            };
            let may = superuser
                || list
                    .iter()
                    .any(|m| m.role == role.oid && m.admin && m.member == me);
            if !may {
                return Err(Error::new(
                    "42501",
                    format!("must have admin option on role \"{name}\""),
                ));
            }
            for spec in members {
                let member = match spec {
                    RoleSpec::Public => {
                        return Err(Error::new("42704", "role \"public\" does not exist"));
                    }
                    s => self.resolve_role(s)?,
                };
                let member_name = Session::role_name(&self.db, member);
                let at = list
                    .iter()
                    .position(|m| m.role == role.oid && m.member == member);
                if grant {
                    if member == role.oid || self.cluster.roles.is_member_of(role.oid, member) {
                        let err = if member == role.oid {
                            format!("role \"{name}\" is a member of role \"{member_name}\"")
                        } else {
                            format!("role \"{member_name}\" is a member of role \"{name}\"")
                        };
                        return Err(Error::new("0LP01", err));
                    }
                    match at {
                        Some(k) if !admin || list[k].admin => {
                            self.notice(format!(
                                "role \"{member_name}\" is already a member of role \"{name}\""
                            ));
                        }
                        Some(k) => list[k].admin = true,
                        None => {
                            list.push(Membership {
                                role: role.oid,
                                member,
                                grantor: me,
                                admin,
                            });
                            // Visible to is_member_of for the next member's cycle test.
                            self.cluster.roles.set_memberships(list.clone());
                        }
                    }
                } else {
                    match at {
                        None => self.warn(
                            "01000",
                            format!("role \"{member_name}\" is not a member of role \"{name}\""),
                        ),
                        Some(k) if admin => list[k].admin = false,
                        Some(k) => {
                            list.remove(k);
                        }
                    }
                }
            }
        }
        self.cluster.roles.set_memberships(list);
        self.undo.push(Undo::Memberships(before));
        Ok(Outcome::Done {
            tag: if grant { "GRANT ROLE" } else { "REVOKE ROLE" }.into(),
        })
    }

    /// ALTER TABLE | SEQUENCE name OWNER TO role.
    pub(super) fn change_owner(
        &mut self,
        rel: &crate::catalog::RelName,
        if_exists: bool,
        kind: RelKind,
        to: &RoleSpec,
        ctx: &ExecContext,
    ) -> Result<Outcome> {
        let tag = match kind {
            RelKind::Sequence => "ALTER SEQUENCE",
            RelKind::View => "ALTER VIEW",
            _ => "ALTER TABLE",
        };
        let done = Outcome::Done { tag: tag.into() };
        let name = rel.name.as_str();
        let Some(entry) = self.db.catalog.relation(rel, &ctx.snapshot) else {
            if if_exists {
                self.notice(format!("relation \"{name}\" does not exist, skipping"));
                return Ok(done);
            }
            return Err(Error::undefined_table(name));
        };
        if kind == RelKind::Sequence && entry.sequence.is_none() {
            return Err(Error::new("42809", format!("\"{name}\" is not a sequence")));
        }
        if kind == RelKind::View && entry.view.is_none() {
            return Err(Error::new("42809", format!("\"{name}\" is not a view"))
                .with_hint("Use ALTER TABLE instead."));
        }
        if let RoleSpec::Public = to {
            return Err(Error::new("42704", "role \"public\" does not exist"));
        }
        let new = self.resolve_role(to)?;
        if new == entry.owner {
            return Ok(done);
        }
        if let Some((table, _)) = &entry.owned_by
            && let Some(t) = self.db.catalog.by_oid(*table, &ctx.snapshot)
        {
            return Err(Error::new(
                "0A000",
                format!("cannot change owner of sequence \"{}\"", entry.name),
            )
            .with_detail(format!(
                "Sequence \"{}\" is linked to table \"{}\".",
                entry.name, t.name
            )));
        }
        let (me, superuser) = self.identity();
        if !superuser {
            self.must_own(&entry)?;
            if !self.cluster.roles.is_member_of(me, new) {
                return Err(Error::new(
                    "42501",
                    format!(
                        "must be member of role \"{}\"",
                        Session::role_name(&self.db, new)
                    ),
                ));
            }
            if let Some(ns) = self
                .db
                .catalog
                .namespace_by_oid(entry.namespace, &ctx.snapshot)
                && schema_privs(&self.db, new, &ns, Privs::CREATE).is_empty()
            {
                return Err(schema_denied(&ns.name));
            }
        }
        let mut targets = vec![entry.clone()];
        // A table's serial and identity sequences follow it.
        targets.extend(self.db.catalog.owned_sequences(entry.oid, &ctx.snapshot));
        for t in targets {
            self.set_owner(&t, new, ctx.snapshot.own);
        }
        Ok(done)
    }

    fn set_owner(&mut self, entry: &Arc<TableEntry>, new: u32, txn: TxnId) {
        let acl = entry.acl.as_ref().map(|a| a.new_owner(entry.owner, new));
        let made = self.db.catalog.set_privileges(entry, new, acl, txn);
        self.undo.push(Undo::DropTable(entry.clone()));
        self.undo.push(Undo::CreateTable(made));
    }

    /// The roles REASSIGN / DROP OWNED name; the current role must have the privileges
    /// of each (PostgreSQL: "permission denied to reassign objects").
    fn owned_by_roles(&self, specs: &[RoleSpec], what: &str) -> Result<Vec<u32>> {
        let (me, superuser) = self.identity();
        let mut out = Vec::new();
        for s in specs {
            let r = self.resolve_role(s)?;
            if !superuser && !self.cluster.roles.has_privs_of(me, r) {
                return Err(Error::new(
                    "42501",
                    format!("permission denied to {what} objects"),
                ));
            }
            out.push(r);
        }
        Ok(out)
    }

    /// REASSIGN OWNED BY roles TO role.
    pub(super) fn reassign_owned(
        &mut self,
        from: &[RoleSpec],
        to: &RoleSpec,
        ctx: &ExecContext,
    ) -> Result<Outcome> {
        let from = self.owned_by_roles(from, "reassign")?;
        let new = self.resolve_role(to)?;
        let (me, superuser) = self.identity();
        if !superuser && !self.cluster.roles.has_privs_of(me, new) {
            return Err(Error::new("42501", "permission denied to reassign objects"));
        }
        for t in self.db.catalog.visible_tables(&ctx.snapshot) {
            if from.contains(&t.owner) && t.owner != new {
                self.set_owner(&t, new, ctx.snapshot.own);
            }
        }
        for ns in self.db.catalog.visible_namespaces(&ctx.snapshot) {
            if from.contains(&ns.owner) && ns.owner != new && !ns.is_system() {
                let acl = ns.acl.as_ref().map(|a| a.new_owner(ns.owner, new));
                let made =
                    self.db
                        .catalog
                        .replace_namespace(&ns, &ns.name, new, acl, ctx.snapshot.own);
                self.undo.push(Undo::ReplaceSchema(ns, made));
            }
        }
        Ok(Outcome::Done {
            tag: "REASSIGN OWNED".into(),
        })
    }

    /// DROP OWNED BY roles: drops what they own and takes back what was granted to
    /// them.
    pub(super) fn drop_owned(
        &mut self,
        roles: &[RoleSpec],
        cascade: bool,
        ctx: &ExecContext,
    ) -> Result<Outcome> {
        let roles = self.owned_by_roles(roles, "drop")?;
        let txn = ctx.snapshot.own;
        let visible = self.db.catalog.visible_tables(&ctx.snapshot);
        // Owned sequences go with their tables.
        let owned: Vec<crate::catalog::RelName> = visible
            .iter()
            .filter(|t| roles.contains(&t.owner))
            .filter(|t| {
                t.owned_by.as_ref().is_none_or(|(table, _)| {
                    !visible
                        .iter()
                        .any(|v| v.oid == *table && roles.contains(&v.owner))
                })
            })
            .map(|t| crate::catalog::RelName::new(t.namespace, t.name.clone()))
            .collect();
        for kind in [RelKind::View, RelKind::Table, RelKind::Sequence] {
            let names: Vec<crate::catalog::RelName> = owned
                .iter()
                .filter(|n| {
                    self.db
                        .catalog
                        .relation(n, &ctx.snapshot)
                        .is_some_and(|t| t.kind() == kind)
                })
                .cloned()
                .collect();
            if !names.is_empty() {
                self.drop_relations(&names, true, kind, cascade, ctx, txn)?;
            }
        }
        for t in self.db.catalog.visible_tables(&ctx.snapshot) {
            if let Some(acl) = &t.acl
                && roles.iter().any(|&r| acl.0.iter().any(|i| i.grantee == r))
            {
                let mut kept = acl.clone();
                kept.0.retain(|i| !roles.contains(&i.grantee));
                let made = self.db.catalog.set_privileges(&t, t.owner, Some(kept), txn);
                self.undo.push(Undo::DropTable(t.clone()));
                self.undo.push(Undo::CreateTable(made));
            }
        }
        let defaults = self.db.catalog.default_acls();
        let kept: Vec<_> = defaults
            .iter()
            .filter(|d| !roles.contains(&d.role))
            .cloned()
            .map(|mut d| {
                d.acl.0.retain(|i| !roles.contains(&i.grantee));
                d
            })
            .filter(|d| !default_unneeded(d))
            .collect();
        if kept != defaults {
            let before = self.db.catalog.set_default_acls(kept);
            self.undo.push(Undo::DefaultAcls(before));
        }
        for ns in self.db.catalog.visible_namespaces(&ctx.snapshot) {
            if roles.contains(&ns.owner) && !ns.is_system() && !ns.is_temp() {
                // What is left in it goes with it (the roles' own objects went above).
                let contents = self.db.catalog.relations_in(ns.oid, &ctx.snapshot);
                let contents: Vec<Arc<TableEntry>> = contents
                    .into_iter()
                    .filter(|t| t.owned_by.is_none())
                    .collect();
                if !contents.is_empty() {
                    self.drop_entries(&contents, cascade, ctx, txn)?;
                }
                ns.end(txn);
                self.undo.push(Undo::DropSchema(ns));
                continue;
            }
            if let Some(acl) = &ns.acl
                && roles.iter().any(|&r| acl.0.iter().any(|i| i.grantee == r))
            {
                let mut kept = acl.clone();
                kept.0.retain(|i| !roles.contains(&i.grantee));
                let made =
                    self.db
                        .catalog
                        .replace_namespace(&ns, &ns.name, ns.owner, Some(kept), txn);
                self.undo.push(Undo::ReplaceSchema(ns, made));
            }
        }
        if let Some(acl) = self.db.catalog.database_acl()
            && roles.iter().any(|&r| acl.0.iter().any(|i| i.grantee == r))
        {
            let mut kept = acl.clone();
            kept.0.retain(|i| !roles.contains(&i.grantee));
            let before = self.db.catalog.set_database_acl(Some(kept));
            self.undo.push(Undo::DatabaseAcl(self.db.clone(), before));
        }
        Ok(Outcome::Done {
            tag: "DROP OWNED".into(),
        })
    }

    /// What keeps role `oid` from being dropped (PostgreSQL's pg_shdepend check): the
    /// objects it owns and those it holds privileges on, one DETAIL line each.
    pub(super) fn role_dependencies(
        &self,
        oid: u32,
        snapshot: &crate::storage::mvcc::Snapshot,
    ) -> Vec<String> {
        let mut lines = Vec::new();
        for t in self.db.catalog.visible_tables(snapshot) {
            let noun = object_kind(&t).noun();
            if t.owner == oid {
                lines.push(format!("owner of {noun} {}", t.name));
            }
            if t.acl
                .as_ref()
                .is_some_and(|a| a.mentions(oid) && t.owner != oid)
            {
                lines.push(format!("privileges for {noun} {}", t.name));
            }
        }
        for ns in self.db.catalog.visible_namespaces(snapshot) {
            if ns.is_system() || ns.is_temp() {
                continue;
            }
            if ns.owner == oid {
                lines.push(format!("owner of schema {}", ns.name));
            } else if ns.acl.as_ref().is_some_and(|a| a.mentions(oid)) {
                lines.push(format!("privileges for schema {}", ns.name));
            }
        }
        for d in self.db.catalog.default_acls() {
            let noun = match d.kind {
                ObjectKind::Sequence => "sequences",
                _ => "relations",
            };
            let place = if d.in_schema { " in schema public" } else { "" };
            let owner = Session::role_name(&self.db, d.role);
            if d.role == oid {
                lines.push(format!(
                    "owner of default privileges on new {noun} belonging to role {owner}{place}"
                ));
            } else if d.acl.mentions(oid) {
                lines.push(format!(
                    "privileges for default privileges on new {noun} belonging to role {owner}{place}"
                ));
            }
        }
        // Databases are the cluster's: every one is checked, as PostgreSQL's shared
        // dependencies are.
        for d in self.cluster.databases() {
            if d.owner() == oid {
                lines.push(format!("owner of database {}", d.name()));
            }
            if d.catalog.database_acl().is_some_and(|a| a.mentions(oid)) {
                lines.push(format!("privileges for database {}", d.name()));
            }
        }
        lines.sort();
        lines
    }
}

/// Whether a default-privileges entry says nothing (PostgreSQL removes it): a schema
/// entry without items, a global one equal to the built-in default.
fn default_unneeded(d: &crate::catalog::acl::DefaultAcl) -> bool {
    if d.in_schema {
        return d.acl.0.is_empty();
    }
    let mut default = default_acl(d.kind, d.role);
    default.sort();
    d.acl == default
}

/// CASCADE: the grants `grantor` made from grant options among `lost`, and the grants
/// made from those, taken back.
fn revoke_dependents(acl: &mut Acl, grantor: u32, lost: Privs) {
    let mut queue = vec![(grantor, lost)];
    let mut steps = 0;
    while let Some((from, privs)) = queue.pop() {
        steps += 1;
        if steps > 10_000 {
            break;
        }
        for item in acl.granted_by(from, privs) {
            let gone = acl.revoke(item.grantee, from, privs, false);
            if !gone.is_empty() {
                queue.push((item.grantee, gone));
            }
        }
    }
}

/// The text of an ACL for a catalog column: `aclitem[]` elements.
pub fn acl_texts(db: &Database, acl: &Acl) -> Vec<String> {
    acl.texts(&|r| Session::role_name(db, r))
}

/// Who may see a relation's ACL text (everyone, as in PostgreSQL).
pub fn relation_acl_texts(db: &Database, entry: &TableEntry) -> Option<Vec<String>> {
    entry.acl.as_ref().map(|a| acl_texts(db, a))
}
