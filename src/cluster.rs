//! Databases' lives: connecting to one by name, CREATE DATABASE (a copy of a template),
//! DROP DATABASE. The [`Cluster`] and [`Database`] types are in the crate root.
//!
//! A database is a whole namespace of its own — catalog, tables, transactions, vacuum,
//! advisory locks, LISTEN channels — so making one is making a [`Database`] and filling
//! it from its template (`template1` unless TEMPLATE says otherwise) through
//! [`durable::recover::copy_database`], the same path that restores a checkpoint: the
//! template's catalog as SQL, then its rows. PostgreSQL copies the template's files
//! instead; the effect is the same, including its rule that nobody else may be
//! connected to the template meanwhile. CREATE and DROP DATABASE run one at a time
//! (the cluster's `changing` lock).
//!
//! [`durable::recover::copy_database`]: crate::durable::recover::copy_database

use std::sync::Arc;

use crate::auth::BOOTSTRAP_SUPERUSER_OID;
use crate::error::{Error, Result};
use crate::{Cluster, Database, DatabaseSpec, auth, durable};

/// "There is 1 other session using the database." and its plural.
pub fn other_sessions_detail(n: usize) -> String {
    if n == 1 {
        "There is 1 other session using the database.".into()
    } else {
        format!("There are {n} other sessions using the database.")
    }
}

impl Cluster {
    /// The database a new session of `user` (`superuser` or not) connects to. Under
    /// `--auth trust` a name that is no database makes an empty one (a copy of
    /// template1), so throwaway servers take any name; with passwords it is 3D000, as
    /// in PostgreSQL.
    pub fn connect_to(&self, name: &str, user: &str, superuser: bool) -> Result<Arc<Database>> {
        let db = match self.database(name) {
            Some(db) => db,
            None if self.config.auth == auth::Method::Trust => {
                let owner = self
                    .roles
                    .get(user)
                    .map_or(BOOTSTRAP_SUPERUSER_OID, |r| r.oid);
                let spec = DatabaseSpec {
                    name: name.to_string(),
                    owner,
                    is_template: false,
                    allow_connections: true,
                    connection_limit: -1,
                    settings: Vec::new(),
                };
                match self.create_database(spec, "template1", 0) {
                    Ok(db) => db,
                    // Another connection made it first.
                    Err(e) if e.code == "42P04" => self.database(name).ok_or(e)?,
                    Err(e) => return Err(e),
                }
            }
            None => {
                return Err(Error::new(
                    "3D000",
                    format!("database \"{name}\" does not exist"),
                ));
            }
        };
        if !db.allow_connections() {
            return Err(Error::new(
                "55000",
                format!("database \"{name}\" is not currently accepting connections"),
            ));
        }
        if !superuser && let Some(role) = self.roles.get(user) {
            use crate::catalog::acl::Privs;
            let held = crate::session::privileges::database_privs(&db, role.oid, Privs::CONNECT);
            if !held.contains(Privs::CONNECT) {
                return Err(Error::new(
                    "42501",
                    format!("permission denied for database \"{name}\""),
                )
                .with_detail("User does not have CONNECT privilege."));
            }
        }
        if db.connection_limit() >= 0
            && !superuser
            && self.sessions_of(db.oid).len() >= db.connection_limit() as usize
        {
            return Err(Error::new(
                "53300",
                format!("too many connections for database \"{name}\""),
            ));
        }
        Ok(db)
    }

    /// CREATE DATABASE: a new database `spec` copied from database `template`, which no
    /// session but `me` (a process id; 0 for none) may be connected to.
    pub fn create_database(
        &self,
        spec: DatabaseSpec,
        template: &str,
        me: i32,
    ) -> Result<Arc<Database>> {
        let _one = self.changing.lock();
        // PostgreSQL's order: the template, then the name, then the template's sessions.
        let Some(source) = self.database(template) else {
            return Err(Error::new(
                "3D000",
                format!("template database \"{template}\" does not exist"),
            ));
        };
        if self.database(&spec.name).is_some() {
            return Err(Error::new(
                "42P04",
                format!("database \"{}\" already exists", spec.name),
            ));
        }
        let others = self
            .sessions_of(source.oid)
            .into_iter()
            .filter(|(pid, _)| *pid != me)
            .count();
        if others > 0 {
            return Err(Error::new(
                "55006",
                format!("source database \"{template}\" is being accessed by other users"),
            )
            .with_detail(other_sessions_detail(others)));
        }
        let oid = self.take_oid();
        let db = Arc::new(Database::new(&self.arc(), oid, spec));
        durable::recover::copy_database(&source, &db)?;
        self.insert_arc(db.clone());
        if let Some(dir) = self.durable.get()
            && let Err(e) = dir.create_database(self, &db)
        {
            self.remove(&db.name());
            return Err(e);
        }
        Ok(db)
    }

    /// DROP DATABASE of `db`, which no session is connected to any more (the caller
    /// checked, or terminated them): it leaves the cluster's list, and its memory goes
    /// with the last reference.
    pub fn drop_database(&self, db: &Arc<Database>) -> Result<()> {
        let _one = self.changing.lock();
        if self.remove(&db.name()).is_none() {
            return Ok(());
        }
        if let Some(dir) = self.durable.get() {
            dir.drop_database(self, db)?;
        }
        Ok(())
    }

    /// ALTER DATABASE … RENAME TO: database `db` (no session on it) is named `to`.
    pub fn rename(&self, db: &Arc<Database>, to: &str) -> Result<()> {
        let _one = self.changing.lock();
        if self.database(to).is_some() {
            return Err(Error::new(
                "42P04",
                format!("database \"{to}\" already exists"),
            ));
        }
        let from = db.name();
        self.databases.write().remove(&from);
        db.change(|s| s.name = to.to_string());
        self.insert_arc(db.clone());
        if let Some(dir) = self.durable.get() {
            dir.save(self)?;
        }
        Ok(())
    }

    /// ALTER DATABASE changed `db`'s owner, flags or settings: the durable mode keeps
    /// them.
    pub fn database_changed(&self) -> Result<()> {
        match self.durable.get() {
            Some(dir) => dir.save(self),
            None => Ok(()),
        }
    }

    /// Terminates every session connected to database `oid` but `me` (DROP DATABASE
    /// … WITH (FORCE)); waits up to five seconds for them to end.
    pub fn terminate_sessions_of(&self, oid: u32, me: i32) -> usize {
        let pids: Vec<i32> = self
            .sessions_of(oid)
            .into_iter()
            .map(|(pid, _)| pid)
            .filter(|&pid| pid != me)
            .collect();
        for &pid in &pids {
            let _ = self.backends.signal(pid, "", true, true);
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let left = self
                .sessions_of(oid)
                .into_iter()
                .filter(|(pid, _)| *pid != me)
                .count();
            if left == 0 || std::time::Instant::now() >= deadline {
                return left;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
