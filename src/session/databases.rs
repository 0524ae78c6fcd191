//! CREATE DATABASE and DROP DATABASE as a session runs them: PostgreSQL's checks
//! (transaction blocks, privileges, the current database, other sessions), then the
//! cluster's part (`crate::cluster`). Neither is transactional, as in PostgreSQL: they
//! refuse to run inside a transaction block.

use super::*;
use crate::cluster::other_sessions_detail;
use crate::plan::{AlterDatabase, DatabaseChange};

impl Session {
    pub(super) fn change_database(&mut self, change: &DatabaseChange) -> Result<Outcome> {
        let verb = match change {
            DatabaseChange::Create { .. } => "CREATE DATABASE",
            DatabaseChange::Drop { .. } => "DROP DATABASE",
            DatabaseChange::Alter { name, action } => return self.alter_database(name, action),
        };
        if matches!(self.status, TxnStatus::InBlock | TxnStatus::Failed) {
            return Err(Error::new(
                "25001",
                format!("{verb} cannot run inside a transaction block"),
            ));
        }
        let (me, superuser) = self.identity();
        match change {
            DatabaseChange::Create {
                name,
                owner,
                template,
                is_template,
                allow_connections,
                connection_limit,
            } => {
                let owner = match owner {
                    Some(spec) => {
                        let oid = self.resolve_role(spec)?;
                        if !superuser && !self.cluster.roles.is_member_of(me, oid) && oid != me {
                            let name = Self::role_name(&self.db, oid);
                            return Err(Error::new(
                                "42501",
                                format!("must be able to SET ROLE \"{name}\""),
                            ));
                        }
                        oid
                    }
                    None => me,
                };
                let createdb =
                    superuser || self.cluster.roles.by_oid(me).is_some_and(|r| r.createdb);
                if !createdb {
                    return Err(Error::new("42501", "permission denied to create database"));
                }
                let template = template.as_deref().unwrap_or("template1");
                if let Some(source) = self.cluster.database(template)
                    && !source.is_template()
                    && !superuser
                    && !privileges::owns(&self.db, me, source.owner())
                {
                    return Err(Error::new(
                        "42501",
                        format!("permission denied to copy database \"{template}\""),
                    ));
                }
                let spec = crate::DatabaseSpec {
                    name: name.clone(),
                    owner,
                    is_template: is_template.unwrap_or(false),
                    allow_connections: allow_connections.unwrap_or(true),
                    connection_limit: connection_limit.unwrap_or(-1),
                    settings: Vec::new(),
                };
                self.cluster.create_database(spec, template, self.pid)?;
                Ok(Outcome::Done {
                    tag: "CREATE DATABASE".into(),
                })
            }
            DatabaseChange::Drop {
                name,
                if_exists,
                force,
            } => {
                let Some(db) = self.cluster.database(name) else {
                    if *if_exists {
                        self.notice(format!("database \"{name}\" does not exist, skipping"));
                        return Ok(Outcome::Done {
                            tag: "DROP DATABASE".into(),
                        });
                    }
                    return Err(Error::new(
                        "3D000",
                        format!("database \"{name}\" does not exist"),
                    ));
                };
                if !superuser && !privileges::owns(&self.db, me, db.owner()) {
                    return Err(Error::new(
                        "42501",
                        format!("must be owner of database {name}"),
                    ));
                }
                if db.is_template() {
                    return Err(Error::new("42809", "cannot drop a template database"));
                }
                if Arc::ptr_eq(&db, &self.db) {
                    return Err(Error::new(
                        "55006",
                        "cannot drop the currently open database",
                    ));
                }
                let others = if *force {
                    self.cluster.terminate_sessions_of(db.oid, self.pid)
                } else {
                    self.cluster
                        .sessions_of(db.oid)
                        .iter()
                        .filter(|(pid, _)| *pid != self.pid)
                        .count()
                };
                if others > 0 {
                    return Err(Error::new(
                        "55006",
                        format!("database \"{name}\" is being accessed by other users"),
                    )
                    .with_detail(other_sessions_detail(others)));
                }
                self.cluster.drop_database(&db)?;
                Ok(Outcome::Done {
                    tag: "DROP DATABASE".into(),
                })
            }
            DatabaseChange::Alter { .. } => Err(Error::internal("ALTER DATABASE handled above")),
        }
    }

    /// ALTER DATABASE: owners (or superusers) change options, settings, the owner and
    /// the name, with PostgreSQL's checks.
    fn alter_database(&mut self, name: &str, action: &AlterDatabase) -> Result<Outcome> {
        let Some(db) = self.cluster.database(name) else {
            return Err(Error::new(
                "3D000",
                format!("database \"{name}\" does not exist"),
            ));
        };
        let (me, superuser) = self.identity();
        let owner = superuser || privileges::owns(&self.db, me, db.owner());
        let createdb = superuser || self.cluster.roles.by_oid(me).is_some_and(|r| r.createdb);
        let not_owner = || Error::new("42501", format!("must be owner of database {name}"));
        match action {
            AlterDatabase::Options {
                is_template,
                allow_connections,
                connection_limit,
            } => {
                if !owner {
                    return Err(not_owner());
                }
                if *allow_connections == Some(false) && Arc::ptr_eq(&db, &self.db) {
                    return Err(Error::new(
                        "22023",
                        "cannot disallow connections for current database",
                    ));
                }
                if *is_template == Some(false) && Arc::ptr_eq(&db, &self.db) && db.is_template() {
                    return Err(Error::new(
                        "22023",
                        "cannot remove the template flag of the current database",
                    ));
                }
                db.change(|s| {
                    if let Some(t) = is_template {
                        s.is_template = *t;
                    }
                    if let Some(a) = allow_connections {
                        s.allow_connections = *a;
                    }
                    if let Some(l) = connection_limit {
                        s.connection_limit = *l;
                    }
                });
            }
            AlterDatabase::Rename(to) => {
                if Arc::ptr_eq(&db, &self.db) {
                    return Err(Error::new("0A000", "current database cannot be renamed"));
                }
                if !owner {
                    return Err(not_owner());
                }
                if !createdb {
                    return Err(Error::new("42501", "permission denied to rename database"));
                }
                let others = self.cluster.sessions_of(db.oid).len();
                if others > 0 {
                    return Err(Error::new(
                        "55006",
                        format!("database \"{name}\" is being accessed by other users"),
                    )
                    .with_detail(other_sessions_detail(others)));
                }
                self.cluster.rename(&db, to)?;
                return Ok(Outcome::Done {
                    tag: "ALTER DATABASE".into(),
                });
            }
            AlterDatabase::Owner(spec) => {
                let new = self.resolve_role(spec)?;
                if new != db.owner() {
                    if !owner {
                        return Err(not_owner());
                    }
                    if !superuser {
                        if !self.cluster.roles.is_member_of(me, new) && me != new {
                            let role = Self::role_name(&self.db, new);
                            return Err(Error::new(
                                "42501",
                                format!("must be able to SET ROLE \"{role}\""),
                            ));
                        }
                        if !createdb {
                            return Err(Error::new(
                                "42501",
                                "permission denied to change owner of database",
                            ));
                        }
                    }
                    db.change(|s| s.owner = new);
                }
            }
            AlterDatabase::Set(setting, value) => {
                if !owner {
                    return Err(not_owner());
                }
                // Checked as SET would check it (PostgreSQL refuses bad values here),
                // and kept under the setting's own spelling (TimeZone), as PostgreSQL.
                let display =
                    super::settings::Settings::checked_default(setting, value.as_deref())?;
                db.change(|s| {
                    super::settings::Settings::put_default(
                        &mut s.settings,
                        &display,
                        value.as_deref(),
                    )
                });
            }
            AlterDatabase::ResetAll => {
                if !owner {
                    return Err(not_owner());
                }
                db.change(|s| s.settings.clear());
            }
            AlterDatabase::NoOp => {
                if !owner {
                    return Err(not_owner());
                }
            }
        }
        self.cluster.database_changed()?;
        Ok(Outcome::Done {
            tag: "ALTER DATABASE".into(),
        })
    }
}
