//! Binding GRANT, REVOKE, REASSIGN OWNED, DROP OWNED and OWNER TO (`session::privileges`
//! carries them out).
//!
//! sqlparser reads GRANT and REVOKE for many dialects and none of them quite as
//! PostgreSQL does (role membership, `GRANT OPTION FOR`, `ALL SEQUENCES IN SCHEMA`), so
//! `sql::parse` hands their text here and this reads PostgreSQL's grammar from tokens:
//!
//! ```text
//! GRANT { privilege [, …] | ALL [PRIVILEGES] } ON target TO grantee [, …] [WITH GRANT OPTION]
//! REVOKE [GRANT OPTION FOR] … ON target FROM grantee [, …] [CASCADE | RESTRICT]
//! GRANT role [, …] TO grantee [, …] [WITH ADMIN OPTION]
//! REVOKE [ADMIN OPTION FOR] role [, …] FROM grantee [, …] [CASCADE | RESTRICT]
//! target: [TABLE] name [, …] | SEQUENCE name [, …] | ALL { TABLES | SEQUENCES } IN SCHEMA s
//!       | SCHEMA name [, …] | DATABASE name [, …]
//! ```
//!
//! Names are resolved when the statement runs (under the catalog lock), as ALTER's are.

use sqlparser::tokenizer::{Token, Tokenizer};

use super::*;
use crate::catalog::RelName;
use crate::catalog::acl::{Privs, privilege_named};
use crate::plan::{GrantTarget, PrivilegeChange, RoleChange, RoleSpec};

/// The statement's tokens, whitespace left out, with a cursor.
pub(super) struct Words {
    tokens: Vec<Token>,
    at: usize,
}

impl Words {
    pub(super) fn new(text: &str) -> Result<Words> {
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        let tokens = Tokenizer::new(&dialect, text)
            .tokenize()
            .map_err(|e| Error::syntax(e.to_string()))?
            .into_iter()
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect();
        Ok(Words { tokens, at: 0 })
    }

    pub(super) fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    pub(super) fn is(&self, w: &str) -> bool {
        self.is_at(self.at, w)
    }

    pub(super) fn is_at(&self, at: usize, w: &str) -> bool {
        matches!(self.tokens.get(at), Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    }

    /// Takes the words `ws` if they come next.
    pub(super) fn take(&mut self, ws: &[&str]) -> bool {
        if ws
            .iter()
            .enumerate()
            .all(|(k, w)| self.is_at(self.at + k, w))
        {
            self.at += ws.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, w: &str) -> Result<()> {
        if self.take(&[w]) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn take_token(&mut self, t: &Token) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn unexpected(&self) -> Error {
        match self.peek() {
            Some(t) => Error::syntax(format!("syntax error at or near \"{t}\"")),
            None => Error::syntax("syntax error at end of input"),
        }
    }

    /// An identifier, folded to lower case unless quoted.
    pub(super) fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let name = if w.quote_style.is_some() {
                    w.value.clone()
                } else {
                    w.value.to_lowercase()
                };
                self.at += 1;
                Ok(name)
            }
            _ => Err(self.unexpected()),
        }
    }

    /// A relation name, `[schema.]name`, as written.
    pub(super) fn relation(&mut self) -> Result<(Option<String>, String)> {
        let first = self.ident()?;
        if !self.take_token(&Token::Period) {
            return Ok((None, first));
        }
        let second = self.ident()?;
        if first == "pg_catalog" || first == "information_schema" {
            return Err(Error::feature_not_supported(format!(
                "privileges on system catalog \"{first}.{second}\""
            )));
        }
        Ok((Some(first), second))
    }

    /// A comma-separated list of `item`s.
    pub(super) fn list<T>(&mut self, item: impl Fn(&mut Words) -> Result<T>) -> Result<Vec<T>> {
        let mut out = vec![item(self)?];
        while self.take_token(&Token::Comma) {
            out.push(item(self)?);
        }
        Ok(out)
    }

    pub(super) fn role_spec(&mut self) -> Result<RoleSpec> {
        self.take(&["GROUP"]);
        if self.take(&["PUBLIC"]) {
            return Ok(RoleSpec::Public);
        }
        if self.take(&["CURRENT_USER"]) || self.take(&["CURRENT_ROLE"]) {
            return Ok(RoleSpec::CurrentUser);
        }
        if self.take(&["SESSION_USER"]) {
            return Ok(RoleSpec::SessionUser);
        }
        Ok(RoleSpec::Name(self.ident()?))
    }

    pub(super) fn end(&self) -> Result<()> {
        match self.peek() {
            None | Some(Token::SemiColon) => Ok(()),
            Some(_) => Err(self.unexpected()),
        }
    }
}

impl Binder<'_> {
    /// GRANT or REVOKE, given the text after the keyword.
    pub(super) fn bind_grant(&mut self, rest: &str, grant: bool) -> Result<BoundStatement> {
        let mut w = Words::new(rest)?;
        self.grant_from(&mut w, grant, false)
    }

    /// `ALTER DEFAULT PRIVILEGES [FOR ROLE r, …] [IN SCHEMA public] GRANT | REVOKE …
    /// ON TABLES | SEQUENCES …`, given what follows DEFAULT.
    pub(super) fn bind_default_privileges(&mut self, rest: &str) -> Result<BoundStatement> {
        let mut w = Words::new(rest)?;
        w.expect("PRIVILEGES")?;
        let mut roles = Vec::new();
        let mut in_schema = false;
        loop {
            if w.take(&["FOR", "ROLE"]) || w.take(&["FOR", "USER"]) {
                roles.extend(w.list(|w| w.role_spec())?);
            } else if w.take(&["IN", "SCHEMA"]) {
                self.schemas_public(&mut w)?;
                in_schema = true;
            } else {
                break;
            }
        }
        if roles.is_empty() {
            roles.push(RoleSpec::CurrentUser);
        }
        let grant = if w.take(&["GRANT"]) {
            true
        } else if w.take(&["REVOKE"]) {
            false
        } else {
            return Err(w.unexpected());
        };
        let BoundStatement::Role(RoleChange::Privileges(change)) =
            self.grant_from(&mut w, grant, true)?
        else {
            return Err(Error::syntax("syntax error at or near \"TO\""));
        };
        Ok(BoundStatement::Role(RoleChange::DefaultPrivileges {
            roles,
            in_schema,
            change,
        }))
    }

    /// GRANT / REVOKE from `w` (after the keyword); `defaults`: ALTER DEFAULT
    /// PRIVILEGES' form, whose objects are `TABLES` or `SEQUENCES`.
    fn grant_from(&mut self, w: &mut Words, grant: bool, defaults: bool) -> Result<BoundStatement> {
        let mut grant_option = false;
        let mut admin = false;
        if !grant {
            if w.take(&["GRANT", "OPTION", "FOR"]) {
                grant_option = true;
            } else if w.take(&["ADMIN", "OPTION", "FOR"]) {
                admin = true;
            }
        }
        // Role membership has no ON before its TO / FROM.
        let to = if grant { "TO" } else { "FROM" };
        let has_on = (w.at..w.tokens.len())
            .take_while(|&k| !w.is_at(k, to))
            .any(|k| w.is_at(k, "ON"));
        if !has_on {
            if grant_option || defaults {
                return Err(w.unexpected());
            }
            let roles = w.list(|w| w.ident())?;
            w.expect(to)?;
            let members = w.list(|w| w.role_spec())?;
            if grant && w.take(&["WITH", "ADMIN", "OPTION"]) {
                admin = true;
            }
            if w.take(&["GRANTED", "BY"]) {
                return Err(Error::feature_not_supported("GRANTED BY"));
            }
            if !grant {
                w.take(&["CASCADE"]);
                w.take(&["RESTRICT"]);
            }
            w.end()?;
            return Ok(BoundStatement::Role(RoleChange::Membership {
                grant,
                roles,
                members,
                admin,
            }));
        }
        if admin {
            return Err(w.unexpected());
        }
        let privileges = if w.take(&["ALL"]) {
            w.take(&["PRIVILEGES"]);
            None
        } else {
            Some(w.list(|w| {
                let word = match w.peek() {
                    Some(Token::Word(x)) => x.value.to_uppercase(),
                    _ => return Err(w.unexpected()),
                };
                w.at += 1;
                if w.peek() == Some(&Token::LParen) {
                    return Err(Error::feature_not_supported("column privileges"));
                }
                match privilege_named(&word) {
                    Some(p) => Ok((word, p)),
                    None if word == "SET" || word == "ALTER" => Err(Error::feature_not_supported(
                        "privileges on configuration parameters",
                    )),
                    None => Err(Error::syntax(format!(
                        "unrecognized privilege type \"{}\"",
                        word.to_lowercase()
                    ))),
                }
            })?)
        };
        w.expect("ON")?;
        let target = if defaults {
            if w.take(&["TABLES"]) {
                GrantTarget::AllTables(Vec::new())
            } else if w.take(&["SEQUENCES"]) {
                GrantTarget::AllSequences(Vec::new())
            } else if let Some((noun, valid)) = [
                ("FUNCTIONS", ("function", Privs::EXECUTE)),
                ("ROUTINES", ("function", Privs::EXECUTE)),
                ("TYPES", ("type", Privs::USAGE)),
                ("SCHEMAS", ("schema", Privs::USAGE | Privs::CREATE)),
            ]
            .iter()
            .find(|(k, _)| w.is(k))
            .map(|(_, v)| *v)
            {
                if let Some((word, _)) = privileges
                    .iter()
                    .flatten()
                    .find(|(_, p)| !valid.contains(*p))
                {
                    return Err(Error::new(
                        "0LP01",
                        format!("invalid privilege type {word} for {noun}"),
                    ));
                }
                return Err(Error::feature_not_supported(
                    "default privileges on functions, types and schemas",
                ));
            } else {
                return Err(w.unexpected());
            }
        } else if w.take(&["ALL", "TABLES", "IN", "SCHEMA"]) {
            GrantTarget::AllTables(self.schemas_named(w)?)
        } else if w.take(&["ALL", "SEQUENCES", "IN", "SCHEMA"]) {
            GrantTarget::AllSequences(self.schemas_named(w)?)
        } else if w.take(&["SEQUENCE"]) {
            let names = w.list(|w| w.relation())?;
            GrantTarget::Sequences(self.words_rels(names)?)
        } else if w.take(&["SCHEMA"]) {
            GrantTarget::Schemas(w.list(|w| w.ident())?)
        } else if w.take(&["DATABASE"]) {
            GrantTarget::Databases(w.list(|w| w.ident())?)
        } else {
            for kind in [
                "FUNCTION",
                "PROCEDURE",
                "ROUTINE",
                "TYPE",
                "DOMAIN",
                "LANGUAGE",
                "FOREIGN",
                "LARGE",
                "TABLESPACE",
                "PARAMETER",
                "ALL",
            ] {
                if w.is(kind) {
                    return Err(Error::feature_not_supported(format!(
                        "GRANT and REVOKE on {}",
                        kind.to_lowercase()
                    )));
                }
            }
            w.take(&["TABLE"]);
            let names = w.list(|w| w.relation())?;
            GrantTarget::Tables(self.words_rels(names)?)
        };
        w.expect(to)?;
        let grantees = w.list(|w| w.role_spec())?;
        if grant && w.take(&["WITH", "GRANT", "OPTION"]) {
            grant_option = true;
        }
        if w.take(&["GRANTED", "BY"]) {
            return Err(Error::feature_not_supported("GRANTED BY"));
        }
        let mut cascade = false;
        if !grant {
            cascade = w.take(&["CASCADE"]);
            if !cascade {
                w.take(&["RESTRICT"]);
            }
        }
        w.end()?;
        Ok(BoundStatement::Role(RoleChange::Privileges(
            PrivilegeChange {
                grant,
                privileges,
                target,
                grantees,
                grant_option,
                cascade,
            },
        )))
    }

    /// Relation names read from tokens, resolved as [`Binder::rel_name`] resolves them.
    fn words_rels(&self, names: Vec<(Option<String>, String)>) -> Result<Vec<RelName>> {
        names
            .into_iter()
            .map(|(schema, name)| self.qualified_rel_name(schema.as_deref(), &name))
            .collect()
    }

    /// `IN SCHEMA name [, …]` of GRANT … ON ALL TABLES: the schemas' oids.
    fn schemas_named(&self, w: &mut Words) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        for s in w.list(|w| w.ident())? {
            if s == "pg_catalog" || s == "information_schema" {
                return Err(Error::feature_not_supported(format!(
                    "privileges on the tables of schema \"{s}\""
                )));
            }
            match self.namespace_named(&s)? {
                Some(ns) => out.push(ns),
                None => {
                    return Err(Error::new(
                        "3F000",
                        format!("schema \"{s}\" does not exist"),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// `IN SCHEMA name [, …]` of ALTER DEFAULT PRIVILEGES: only public has them here.
    fn schemas_public(&self, w: &mut Words) -> Result<()> {
        for s in w.list(|w| w.ident())? {
            match s.as_str() {
                "public" => {}
                "pg_catalog" | "information_schema" => {
                    return Err(Error::feature_not_supported(format!(
                        "privileges on the tables of schema \"{s}\""
                    )));
                }
                _ => {
                    return Err(Error::new(
                        "3F000",
                        format!("schema \"{s}\" does not exist"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `REASSIGN OWNED BY role [, …] TO role`, given what follows REASSIGN.
    pub(super) fn bind_reassign_owned(&mut self, rest: &str) -> Result<BoundStatement> {
        let mut w = Words::new(rest)?;
        w.expect("OWNED")?;
        w.expect("BY")?;
        let from = w.list(|w| w.role_spec())?;
        w.expect("TO")?;
        let to = w.role_spec()?;
        w.end()?;
        Ok(BoundStatement::Role(RoleChange::ReassignOwned { from, to }))
    }

    /// `DROP OWNED BY role [, …] [CASCADE | RESTRICT]`, given what follows OWNED.
    pub(super) fn bind_drop_owned(&mut self, rest: &str) -> Result<BoundStatement> {
        let mut w = Words::new(rest)?;
        w.expect("BY")?;
        let roles = w.list(|w| w.role_spec())?;
        let cascade = w.take(&["CASCADE"]);
        if !cascade {
            w.take(&["RESTRICT"]);
        }
        w.end()?;
        Ok(BoundStatement::Role(RoleChange::DropOwned {
            roles,
            cascade,
        }))
    }
}

impl Binder<'_> {
    /// `[IF EXISTS] name OWNER TO role` (ALTER SEQUENCE's text after SEQUENCE), or None
    /// when the text is another ALTER SEQUENCE.
    pub(super) fn sequence_owner_to(&self, rest: &str) -> Result<Option<BoundStatement>> {
        self.relation_owner_to(rest, RelKind::Sequence)
    }

    /// `[IF EXISTS] name OWNER TO role` after ALTER SEQUENCE or ALTER VIEW, or None
    /// when the text says something else.
    pub(super) fn relation_owner_to(
        &self,
        rest: &str,
        kind: RelKind,
    ) -> Result<Option<BoundStatement>> {
        let mut w = Words::new(rest)?;
        if !(0..w.tokens.len()).any(|k| w.is_at(k, "OWNER") && w.is_at(k + 1, "TO")) {
            return Ok(None);
        }
        let if_exists = w.take(&["IF", "EXISTS"]);
        let (schema, name) = w.relation()?;
        let name = self.qualified_rel_name(schema.as_deref(), &name)?;
        w.expect("OWNER")?;
        w.expect("TO")?;
        let to = w.role_spec()?;
        w.end()?;
        Ok(Some(BoundStatement::Role(RoleChange::Owner {
            name,
            if_exists,
            kind,
            to,
        })))
    }
}

/// `ALTER TABLE … OWNER TO`'s new owner, as sqlparser reads it.
pub(super) fn owner_spec(o: &A::Owner) -> RoleSpec {
    match o {
        A::Owner::Ident(i) => RoleSpec::Name(ident_name(i)),
        A::Owner::CurrentRole | A::Owner::CurrentUser => RoleSpec::CurrentUser,
        A::Owner::SessionUser => RoleSpec::SessionUser,
    }
}

/// A role named by an identifier (`AUTHORIZATION role`): CURRENT_USER and kin as
/// PostgreSQL reads them unquoted.
pub(super) fn role_spec_of(i: &A::Ident) -> RoleSpec {
    if i.quote_style.is_none() {
        match i.value.to_lowercase().as_str() {
            "current_user" | "current_role" => return RoleSpec::CurrentUser,
            "session_user" => return RoleSpec::SessionUser,
            _ => {}
        }
    }
    RoleSpec::Name(ident_name(i))
}
