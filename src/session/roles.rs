//! Running CREATE / ALTER / DROP ROLE against `auth::Roles`: PostgreSQL's checks and
//! messages, the password turned into its secrets at once, and an undo entry per
//! change so a rollback takes it back (role changes are transactional, as in
//! PostgreSQL).

use super::{Outcome, Session, Undo};
use crate::auth::{Role, Secret};
use crate::error::{Error, Result};
use crate::plan::RoleChange;

impl Session {
    fn is_superuser(&self) -> bool {
        self.identity().1
    }

    fn put_role(&mut self, name: &str, role: Option<Role>) {
        let before = self.cluster.roles.put(name, role);
        self.undo.push(Undo::Role(name.to_string(), before));
    }

    pub(super) fn change_roles(
        &mut self,
        change: &RoleChange,
        ctx: &crate::exec::context::ExecContext,
    ) -> Result<Outcome> {
        let tag = match change {
            RoleChange::Privileges(c) => return self.change_privileges(c, ctx),
            RoleChange::Membership {
                grant,
                roles,
                members,
                admin,
            } => return self.change_membership(*grant, roles, members, *admin),
            RoleChange::Owner {
                name,
                if_exists,
                kind,
                to,
            } => return self.change_owner(name, *if_exists, *kind, to, ctx),
            RoleChange::ReassignOwned { from, to } => return self.reassign_owned(from, to, ctx),
            RoleChange::DefaultPrivileges {
                roles,
                in_schema,
                change,
            } => return self.change_default_privileges(roles, *in_schema, change),
            RoleChange::DropOwned { roles, cascade } => {
                return self.drop_owned(roles, *cascade, ctx);
            }
            RoleChange::SetConfig {
                role,
                database,
                setting,
            } => return self.role_set_config(role.as_deref(), database.as_deref(), setting),
            RoleChange::Create {
                name,
                superuser,
                createdb,
                login,
                password,
            } => {
                if !self.is_superuser() {
                    return Err(Error::new("42501", "permission denied to create role"));
                }
                if name == "public" || name == "none" {
                    return Err(Error::new(
                        "42939",
                        format!("role name \"{name}\" is reserved"),
                    ));
                }
                if name.starts_with("pg_") {
                    return Err(
                        Error::new("42939", format!("role name \"{name}\" is reserved"))
                            .with_detail("Role names starting with \"pg_\" are reserved."),
                    );
                }
                if self.cluster.roles.get(name).is_some() {
                    return Err(Error::new(
                        "42710",
                        format!("role \"{name}\" already exists"),
                    ));
                }
                let role = Role {
                    oid: self.cluster.roles.next_oid(),
                    name: name.clone(),
                    superuser: *superuser,
                    login: *login,
                    createdb: *createdb,
                    secret: password.as_deref().map(Secret::new),
                };
                self.put_role(name, Some(role));
                "CREATE ROLE"
            }
            RoleChange::Alter {
                name,
                superuser,
                login,
                createdb,
                password,
            } => {
                let Some(mut role) = self.cluster.roles.get(name) else {
                    return Err(Error::new(
                        "42704",
                        format!("role \"{name}\" does not exist"),
                    ));
                };
                // Without superuser, only one's own password may change.
                let own_password = *name == self.user
                    && superuser.is_none()
                    && login.is_none()
                    && createdb.is_none();
                if !self.is_superuser() && !own_password {
                    return Err(Error::new("42501", "permission denied"));
                }
                if let Some(s) = superuser {
                    role.superuser = *s;
                }
                if let Some(l) = login {
                    role.login = *l;
                }
                if let Some(c) = createdb {
                    role.createdb = *c;
                }
                if let Some(p) = password {
                    role.secret = p.as_deref().map(Secret::new);
                }
                self.put_role(name, Some(role));
                "ALTER ROLE"
            }
            RoleChange::Drop { names, if_exists } => {
                if !self.is_superuser() {
                    return Err(Error::new("42501", "permission denied to drop role"));
                }
                for name in names {
                    if self.cluster.roles.get(name).is_none() {
                        if *if_exists {
                            self.notice(format!("role \"{name}\" does not exist, skipping"));
                            continue;
                        }
                        return Err(Error::new(
                            "42704",
                            format!("role \"{name}\" does not exist"),
                        ));
                    }
                    if *name == self.user || name == self.current_user() {
                        return Err(Error::new("55006", "current user cannot be dropped"));
                    }
                    let Some(role) = self.cluster.roles.get(name) else {
                        continue;
                    };
                    let depends = self.role_dependencies(role.oid, &ctx.snapshot);
                    if !depends.is_empty() {
                        return Err(Error::new(
                            "2BP01",
                            format!(
                                "role \"{name}\" cannot be dropped because some objects depend on it"
                            ),
                        )
                        .with_detail(depends.join("\n")));
                    }
                    let memberships = self.cluster.roles.memberships();
                    if memberships
                        .iter()
                        .any(|m| m.role == role.oid || m.member == role.oid)
                    {
                        let kept = memberships
                            .iter()
                            .filter(|m| m.role != role.oid && m.member != role.oid)
                            .cloned()
                            .collect();
                        let before = self.cluster.roles.set_memberships(kept);
                        self.undo.push(Undo::Memberships(before));
                    }
                    // Its ALTER ROLE … SET entries go with it.
                    let settings = self.cluster.roles.settings();
                    if settings.iter().any(|s| s.role == role.oid) {
                        let kept = settings
                            .iter()
                            .filter(|s| s.role != role.oid)
                            .cloned()
                            .collect();
                        let before = self.cluster.roles.set_settings(kept);
                        self.undo.push(Undo::RoleSettings(before));
                    }
                    self.put_role(name, None);
                }
                "DROP ROLE"
            }
        };
        Ok(Outcome::Done { tag: tag.into() })
    }

    /// ALTER ROLE … SET / RESET: a superuser for any role (ALL too), a role for itself.
    fn role_set_config(
        &mut self,
        role: Option<&str>,
        database: Option<&str>,
        setting: &Option<(String, Option<String>)>,
    ) -> Result<Outcome> {
        let (me, superuser) = self.identity();
        let role_oid = match role {
            None => 0,
            Some(name) => match self.cluster.roles.get(name) {
                Some(r) => r.oid,
                None => {
                    return Err(Error::new(
                        "42704",
                        format!("role \"{name}\" does not exist"),
                    ));
                }
            },
        };
        if !superuser && (role_oid == 0 || role_oid != me) {
            return Err(
                Error::new("42501", "permission denied to alter role").with_detail(
                    "To change another role's settings, you must have the SUPERUSER attribute.",
                ),
            );
        }
        let database_oid = match database {
            None => 0,
            Some(name) => match self.cluster.database(name) {
                Some(d) => d.oid,
                None => {
                    return Err(Error::new(
                        "3D000",
                        format!("database \"{name}\" does not exist"),
                    ));
                }
            },
        };
        let mut all = self.cluster.roles.settings();
        let before = all.clone();
        let at = match all
            .iter()
            .position(|s| s.role == role_oid && s.database == database_oid)
        {
            Some(i) => i,
            None => {
                all.push(crate::auth::RoleSetting {
                    role: role_oid,
                    database: database_oid,
                    settings: Vec::new(),
                });
                all.len() - 1
            }
        };
        match setting {
            None => all[at].settings.clear(),
            Some((name, value)) => {
                let display = super::settings::Settings::checked_default(name, value.as_deref())?;
                super::settings::Settings::put_default(
                    &mut all[at].settings,
                    &display,
                    value.as_deref(),
                );
            }
        }
        all.retain(|s| !s.settings.is_empty());
        self.cluster.roles.set_settings(all);
        self.undo.push(Undo::RoleSettings(before));
        Ok(Outcome::Done {
            tag: "ALTER ROLE".into(),
        })
    }
}
