//! Binding CREATE ROLE / CREATE USER (read as CREATE ROLE … LOGIN, see `sql::parse`),
//! ALTER ROLE and DROP ROLE. The options kiln keeps are LOGIN, SUPERUSER and
//! PASSWORD; the others (CREATEDB, CREATEROLE, INHERIT, REPLICATION, BYPASSRLS,
//! CONNECTION LIMIT, VALID UNTIL, IN ROLE …) are 0A000 rather than silently dropped.

use super::*;
use crate::plan::RoleChange;

fn password_text(p: &A::Password) -> Result<Option<String>> {
    match p {
        A::Password::NullPassword => Ok(None),
        A::Password::Password(A::Expr::Value(v)) => match &v.value {
            A::Value::SingleQuotedString(s) | A::Value::EscapedStringLiteral(s) => {
                Ok(Some(s.clone()))
            }
            A::Value::Null => Ok(None),
            _ => Err(Error::syntax("PASSWORD takes a string constant")),
        },
        _ => Err(Error::syntax("PASSWORD takes a string constant")),
    }
}

impl Binder<'_> {
    pub(super) fn bind_create_role(&mut self, c: &A::CreateRole) -> Result<BoundStatement> {
        let [name] = c.names.as_slice() else {
            return Err(Error::syntax("syntax error at or near \",\""));
        };
        let unsupported = c.inherit.is_some()
            || c.bypassrls.is_some()
            || c.create_role.is_some()
            || c.replication.is_some()
            || c.connection_limit.is_some()
            || c.valid_until.is_some()
            || !c.in_role.is_empty()
            || !c.in_group.is_empty()
            || !c.role.is_empty()
            || !c.user.is_empty()
            || !c.admin.is_empty()
            || c.authorization_owner.is_some();
        if unsupported {
            return Err(Error::feature_not_supported(
                "CREATE ROLE options other than LOGIN, SUPERUSER, CREATEDB and PASSWORD",
            ));
        }
        Ok(BoundStatement::Role(RoleChange::Create {
            name: object_name(name)?,
            superuser: c.superuser == Some(true),
            login: c.login == Some(true),
            createdb: c.create_db == Some(true),
            password: match &c.password {
                Some(p) => password_text(p)?,
                None => None,
            },
        }))
    }

    pub(super) fn bind_alter_role(
        &mut self,
        name: &A::Ident,
        op: &A::AlterRoleOperation,
    ) -> Result<BoundStatement> {
        let A::AlterRoleOperation::WithOptions { options } = op else {
            return Err(Error::feature_not_supported("this ALTER ROLE"));
        };
        let (mut superuser, mut login, mut password, mut createdb) = (None, None, None, None);
        for o in options {
            match o {
                A::RoleOption::SuperUser(b) => superuser = Some(*b),
                A::RoleOption::Login(b) => login = Some(*b),
                A::RoleOption::CreateDB(b) => createdb = Some(*b),
                A::RoleOption::Password(p) => password = Some(password_text(p)?),
                _ => {
                    return Err(Error::feature_not_supported(
                        "ALTER ROLE options other than LOGIN, SUPERUSER, CREATEDB and PASSWORD",
                    ));
                }
            }
        }
        Ok(BoundStatement::Role(RoleChange::Alter {
            name: ident_name(name),
            superuser,
            login,
            createdb,
            password,
        }))
    }
}
