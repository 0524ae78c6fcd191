//! ALTER INDEX, and RENAME TO of any relation: what `sql::parse` hands over as text
//! (sqlparser reads ALTER INDEX only as RENAME, without IF EXISTS, and ALTER VIEW …
//! RENAME not at all).
//!
//! ```text
//! ALTER INDEX [IF EXISTS] name RENAME TO new
//! ALTER INDEX [IF EXISTS] name SET ( parameter = value [, …] )
//! ALTER INDEX [IF EXISTS] name RESET ( parameter [, …] )
//! ALTER VIEW [IF EXISTS] name RENAME TO new
//! ALTER SEQUENCE [IF EXISTS] name RENAME TO new   (from binder::sequences)
//! ALTER TABLE [IF EXISTS] name ALTER CONSTRAINT c [NOT] DEFERRABLE [INITIALLY …]
//! ```
//!
//! As in PostgreSQL, ALTER TABLE and ALTER INDEX rename a relation of any kind; ALTER
//! VIEW and ALTER SEQUENCE insist on theirs (42809). `session::renames` carries them out.

use sqlparser::tokenizer::Token;

use super::privileges::Words;
use super::*;
use crate::catalog::RelName;
use crate::plan::RenameKind;

impl Binder<'_> {
    /// The relation `[schema.]name` names, an index included; `RelName` with
    /// namespace 0 when there is none (the statement reports it as it runs).
    pub(super) fn any_relation_name(&self, schema: Option<&str>, name: &str) -> Result<RelName> {
        let written = A::ObjectName::from(
            schema
                .into_iter()
                .chain(std::iter::once(name))
                .map(A::Ident::new)
                .collect::<Vec<_>>(),
        );
        if let Some(ix) = self.index_name(&written)? {
            return Ok(ix);
        }
        self.qualified_rel_name(schema, name)
    }

    /// `ALTER INDEX …`, given the text after INDEX.
    pub(super) fn bind_alter_index(&mut self, rest: &str) -> Result<BoundStatement> {
        let mut w = Words::new(rest)?;
        let if_exists = w.take(&["IF", "EXISTS"]);
        let (schema, name) = w.relation()?;
        let target = self.any_relation_name(schema.as_deref(), &name)?;
        if w.take(&["RENAME", "TO"]) {
            let to = w.ident()?;
            w.end()?;
            return Ok(BoundStatement::RenameRelation {
                name: target,
                to,
                if_exists,
                kind: RenameKind::Index,
            });
        }
        let reset = if w.take(&["SET"]) {
            false
        } else if w.take(&["RESET"]) {
            true
        } else {
            return Err(match w.peek() {
                Some(Token::Word(x)) => Error::feature_not_supported(format!(
                    "ALTER INDEX … {}",
                    x.value.to_uppercase()
                )),
                _ => w.unexpected(),
            });
        };
        if !w.take_token(&Token::LParen) {
            // SET TABLESPACE and the like.
            return Err(match w.peek() {
                Some(Token::Word(x)) => Error::feature_not_supported(format!(
                    "ALTER INDEX … {} {}",
                    if reset { "RESET" } else { "SET" },
                    x.value.to_uppercase()
                )),
                _ => w.unexpected(),
            });
        }
        let changes = w.list(|w| {
            let option = w.ident()?;
            if reset {
                return Ok((option, None));
            }
            if !w.take_token(&Token::Eq) {
                return Ok((option, Some("true".to_string())));
            }
            let next = w.peek().cloned();
            let value = match &next {
                Some(Token::Number(n, _)) => n.clone(),
                Some(Token::SingleQuotedString(s)) => s.clone(),
                Some(Token::Word(x)) => x.value.clone(),
                _ => return Err(w.unexpected()),
            };
            if let Some(t) = next {
                w.take_token(&t);
            }
            Ok((option, Some(value)))
        })?;
        if !w.take_token(&Token::RParen) {
            return Err(w.unexpected());
        }
        w.end()?;
        // Checked now, as PostgreSQL parses the options before it looks for the index.
        let mut scratch = Vec::new();
        for (option, value) in &changes {
            super::constraints::set_index_option(&mut scratch, option, value.as_deref())?;
        }
        Ok(BoundStatement::IndexOptions {
            name: target,
            if_exists,
            changes,
        })
    }

    /// `ALTER TABLE [IF EXISTS] [ONLY] name ALTER CONSTRAINT c [characteristics]`, given
    /// the text after TABLE. As in PostgreSQL 15, what is not written is NOT
    /// DEFERRABLE INITIALLY IMMEDIATE.
    pub(super) fn bind_alter_constraint(&mut self, rest: &str) -> Result<BoundStatement> {
        let mut w = Words::new(rest)?;
        let if_exists = w.take(&["IF", "EXISTS"]);
        w.take(&["ONLY"]);
        let (schema, name) = w.relation()?;
        let table = self.qualified_rel_name(schema.as_deref(), &name)?;
        w.expect("ALTER")?;
        w.expect("CONSTRAINT")?;
        let constraint = w.ident()?;
        let mut deferrable: Option<bool> = None;
        let mut deferred: Option<bool> = None;
        loop {
            if deferrable.is_none() && w.take(&["NOT", "DEFERRABLE"]) {
                deferrable = Some(false);
            } else if deferrable.is_none() && w.take(&["DEFERRABLE"]) {
                deferrable = Some(true);
            } else if deferred.is_none() && w.take(&["INITIALLY", "DEFERRED"]) {
                deferred = Some(true);
            } else if deferred.is_none() && w.take(&["INITIALLY", "IMMEDIATE"]) {
                deferred = Some(false);
            } else {
                break;
            }
        }
        w.end()?;
        let deferred = deferred.unwrap_or(false);
        if deferred && deferrable == Some(false) {
            return Err(Error::syntax(
                "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
            ));
        }
        Ok(BoundStatement::AlterConstraint {
            table,
            if_exists,
            constraint,
            deferrable: deferrable.unwrap_or(false) || deferred,
            deferred,
        })
    }

    /// `ALTER VIEW [IF EXISTS] name RENAME TO new`, given the text after VIEW.
    pub(super) fn bind_alter_view_rename(&mut self, rest: &str) -> Result<BoundStatement> {
        let mut w = Words::new(rest)?;
        let if_exists = w.take(&["IF", "EXISTS"]);
        let (schema, name) = w.relation()?;
        let target = self.any_relation_name(schema.as_deref(), &name)?;
        if w.take(&["RENAME", "COLUMN"]) {
            return Err(Error::feature_not_supported("ALTER VIEW … RENAME COLUMN"));
        }
        w.expect("RENAME")?;
        w.expect("TO")?;
        let to = w.ident()?;
        w.end()?;
        Ok(BoundStatement::RenameRelation {
            name: target,
            to,
            if_exists,
            kind: RenameKind::View,
        })
    }

    /// `ALTER SEQUENCE [IF EXISTS] name RENAME TO new`, given the text after SEQUENCE
    /// (None: another ALTER SEQUENCE).
    pub(super) fn sequence_rename(&mut self, rest: &str) -> Result<Option<BoundStatement>> {
        let mut w = Words::new(rest)?;
        let if_exists = w.take(&["IF", "EXISTS"]);
        let (schema, name) = w.relation()?;
        if !w.take(&["RENAME", "TO"]) {
            return Ok(None);
        }
        let to = w.ident()?;
        w.end()?;
        Ok(Some(BoundStatement::RenameRelation {
            name: self.any_relation_name(schema.as_deref(), &name)?,
            to,
            if_exists,
            kind: RenameKind::Sequence,
        }))
    }
}
