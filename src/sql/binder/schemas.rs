//! Names in schemas: resolving `name`, `schema.name` (and `database.schema.name` of the
//! current database) to relations through the search path, the namespace a new
//! relation goes to, and CREATE / ALTER / DROP SCHEMA.
//!
//! An unqualified name is looked up in the search path's namespaces in order
//! (`catalog::namespace::SearchPath`): the session's temporary namespace, pg_catalog
//! (kiln's system tables, `catalog::system`), then the schemas search_path names. A
//! qualified one in its schema only (3F000 when the schema does not exist; `pg_temp`
//! is the session's temporary namespace). A new relation goes to the schema its name
//! gives, else to the path's creation namespace (3F000 "no schema has been selected to
//! create in" when there is none); a temporary one to the session's temporary
//! namespace, which the session makes when the statement runs
//! ([`TEMP_NAMESPACE`] stands for it until then).

use super::*;
use crate::catalog::RelName;
use crate::catalog::namespace::{
    Creation, INFORMATION_SCHEMA_OID, PG_CATALOG_OID, PG_TOAST_OID, is_system_namespace,
};
use crate::catalog::system::SystemTable;

/// The session's temporary namespace in a bound statement's [`RelName`], before the
/// session has made it (`Session::resolve_temp`).
pub const TEMP_NAMESPACE: u32 = u32::MAX;

/// What a name found: one of kiln's system tables, or a relation of the catalog.
pub(super) enum Found {
    System(SystemTable),
    Relation(Arc<TableEntry>),
}

/// A dotted relation name as written: its schema (if given) and its name.
pub(super) fn split_name(name: &A::ObjectName) -> Result<(Option<String>, String)> {
    split_in(name, None)
}

/// [`split_name`], where `database.schema.name` may name the current `database`.
pub(super) fn split_in(
    name: &A::ObjectName,
    database: Option<&str>,
) -> Result<(Option<String>, String)> {
    let parts = name_parts(name)?;
    match parts.as_slice() {
        [n] => Ok((None, n.clone())),
        [s, n] => Ok((Some(s.clone()), n.clone())),
        [d, s, n] if Some(d.as_str()) == database => Ok((Some(s.clone()), n.clone())),
        [_, _, _] => Err(Error::new(
            "0A000",
            format!(
                "cross-database references are not implemented: \"{}\"",
                parts.join(".")
            ),
        )),
        _ => Err(Error::syntax(format!(
            "improper qualified name (too many dotted names): {}",
            parts.join(".")
        ))),
    }
}

/// A name that must not be qualified (RENAME TO's new name): its one part.
pub(super) fn bare_name(name: &A::ObjectName) -> Result<String> {
    match split_name(name)? {
        (None, n) => Ok(n),
        (Some(_), _) => Err(Error::syntax("syntax error at or near \".\"".to_string())),
    }
}

/// The system table `name` names in namespace `ns` (pg_catalog or information_schema).
fn system_in(ns: u32, name: &str) -> Option<SystemTable> {
    match ns {
        PG_CATALOG_OID => SystemTable::lookup(None, name),
        INFORMATION_SCHEMA_OID => SystemTable::lookup(Some("information_schema"), name),
        _ => None,
    }
}

impl Binder<'_> {
    /// The namespace called `schema` (3F000 when there is none). `pg_temp` is the
    /// session's temporary namespace (None while it has none: nothing is in it).
    pub(super) fn namespace_named(&self, schema: &str) -> Result<Option<u32>> {
        if schema == "pg_temp" {
            return Ok(self.search_path.temp);
        }
        match self.catalog.namespace(schema, &self.snapshot) {
            Some(ns) if !ns.is_temp() || Some(ns.oid) == self.search_path.temp => Ok(Some(ns.oid)),
            // Another session's temporary namespace: its tables are not reachable.
            Some(ns) => Ok(Some(ns.oid)),
            None => Err(Error::new(
                "3F000",
                format!("schema \"{schema}\" does not exist"),
            )),
        }
    }

    /// Looks relation `name` up: in its schema when qualified, else along the search
    /// path. None when nothing has the name.
    pub(super) fn find_relation(&self, name: &A::ObjectName) -> Result<Option<Found>> {
        let (schema, rel) = split_in(name, self.database.as_deref())?;
        // A schema that does not exist holds nothing: the relation does not exist
        // (PostgreSQL's 42P01 for a query; DDL says 3F000, `rel_name`).
        let search: Vec<u32> = match &schema {
            Some(s) => match self.namespace_named(s).ok().flatten() {
                Some(ns) => vec![ns],
                None => return Ok(None),
            },
            None => self.search_path.search.clone(),
        };
        for ns in search {
            if let Some(system) = system_in(ns, &rel) {
                return Ok(Some(Found::System(system)));
            }
            if let Some(t) = self.catalog.table(ns, &rel, &self.snapshot) {
                if t.temp && Some(t.namespace) != self.search_path.temp {
                    return Err(Error::new(
                        "0A000",
                        "cannot access temporary tables of other sessions",
                    ));
                }
                return Ok(Some(Found::Relation(t)));
            }
        }
        Ok(None)
    }

    /// The relation `name` names (42P01 when none; 42501 for a system table, which
    /// only reads may name).
    pub(super) fn table(&mut self, name: &A::ObjectName) -> Result<Arc<TableEntry>> {
        match self.find_relation(name)? {
            Some(Found::Relation(t)) => {
                if !self.tables.iter().any(|seen| Arc::ptr_eq(seen, &t)) {
                    self.tables.push(t.clone());
                }
                Ok(t)
            }
            Some(Found::System(s)) => Err(Error::new(
                "42501",
                format!("permission denied for table {}", s.name()),
            )),
            None => Err(Error::undefined_table(&display_name(name))),
        }
    }

    /// What DDL on an existing relation names: the relation `name` resolves to, or
    /// (when nothing has the name) namespace 0 and the name as written, for the "does
    /// not exist" error or notice the statement gives when it runs.
    pub(super) fn rel_name(&self, name: &A::ObjectName) -> Result<RelName> {
        let (schema, rel) = split_in(name, self.database.as_deref())?;
        if let Some(s) = &schema
            && s != "pg_temp"
            && self.catalog.namespace(s, &self.snapshot).is_none()
        {
            return Err(Error::new(
                "3F000",
                format!("schema \"{s}\" does not exist"),
            ));
        }
        match self.find_relation(name)? {
            Some(Found::Relation(t)) => Ok(RelName::new(t.namespace, t.name.clone())),
            _ => Ok(RelName::new(
                0,
                if schema.is_some() {
                    display_name(name)
                } else {
                    rel
                },
            )),
        }
    }

    /// [`Binder::rel_name`] for DROP … IF EXISTS: a missing schema is a NOTICE and
    /// no name.
    pub(super) fn rel_name_if_exists(
        &mut self,
        name: &A::ObjectName,
        if_exists: bool,
    ) -> Result<Option<RelName>> {
        match self.rel_name(name) {
            Err(e) if if_exists && e.code == "3F000" => {
                self.notices.push(format!("{}, skipping", e.message));
                Ok(None)
            }
            other => other.map(Some),
        }
    }

    /// [`Binder::rel_name`] of a name read from tokens (`schema` as written, if any).
    pub(super) fn qualified_rel_name(&self, schema: Option<&str>, name: &str) -> Result<RelName> {
        let written = match schema {
            Some(s) => format!("{s}.{name}"),
            None => name.to_string(),
        };
        let search: Vec<u32> = match schema {
            Some(s) if s != "pg_temp" && self.catalog.namespace(s, &self.snapshot).is_none() => {
                return Ok(RelName::new(0, written));
            }
            Some(s) => self.namespace_named(s)?.into_iter().collect(),
            None => self.search_path.search.clone(),
        };
        Ok(self
            .catalog
            .lookup(&search, name, &self.snapshot)
            .map_or_else(
                || RelName::new(0, written),
                |t| RelName::new(t.namespace, t.name.clone()),
            ))
    }

    /// Where a new relation called `name` goes: the schema it names, else the search
    /// path's creation namespace; `temp` (CREATE TEMP …) the session's temporary
    /// namespace.
    pub(super) fn creation_name(&self, name: &A::ObjectName, temp: bool) -> Result<RelName> {
        let (schema, rel) = split_in(name, self.database.as_deref())?;
        let ns = match schema {
            Some(s) if s == "pg_temp" => TEMP_NAMESPACE,
            Some(s) => {
                let ns = self.namespace_named(&s)?.unwrap_or(TEMP_NAMESPACE);
                if temp && Some(ns) != self.search_path.temp {
                    return Err(Error::new(
                        "42P16",
                        "cannot create temporary relation in non-temporary schema",
                    ));
                }
                ns
            }
            None if temp => TEMP_NAMESPACE,
            None => match self.search_path.creation {
                Some(Creation::Namespace(ns)) => ns,
                Some(Creation::Temp) => TEMP_NAMESPACE,
                None => {
                    return Err(Error::new(
                        "3F000",
                        "no schema has been selected to create in",
                    ));
                }
            },
        };
        if is_system_namespace(ns) || ns == PG_TOAST_OID {
            let schema = self
                .catalog
                .namespace_by_oid(ns, &self.snapshot)
                .map_or_else(String::new, |n| n.name.clone());
            return Err(Error::new(
                "42501",
                format!("permission denied to create \"{schema}.{rel}\""),
            )
            .with_detail("System catalog modifications are currently disallowed."));
        }
        Ok(RelName::new(ns, rel))
    }

    /// The namespace of an index or other relation named `name` for DROP INDEX, ALTER
    /// INDEX and their kin: its schema, or along the path the first namespace holding
    /// an index of that name.
    pub(super) fn index_name(&self, name: &A::ObjectName) -> Result<Option<RelName>> {
        let (schema, rel) = split_in(name, self.database.as_deref())?;
        let search: Vec<u32> = match &schema {
            Some(s) => match self.namespace_named(s)? {
                Some(ns) => vec![ns],
                None => return Ok(None),
            },
            None => self.search_path.search.clone(),
        };
        Ok(search
            .into_iter()
            .find(|&ns| self.catalog.index_owner(ns, &rel, &self.snapshot).is_some())
            .map(|ns| RelName::new(ns, rel)))
    }
}

impl Binder<'_> {
    /// `CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role]` (or `AUTHORIZATION
    /// role` alone: the schema is named after the role).
    pub(super) fn bind_create_schema(
        &mut self,
        name: &A::SchemaName,
        if_not_exists: bool,
    ) -> Result<BoundStatement> {
        let (name, owner) = match name {
            A::SchemaName::Simple(n) => (bare_name(n)?, None),
            A::SchemaName::NamedAuthorization(n, role) => {
                (bare_name(n)?, Some(privileges::role_spec_of(role)))
            }
            A::SchemaName::UnnamedAuthorization(role) => {
                (ident_name(role), Some(privileges::role_spec_of(role)))
            }
        };
        Ok(BoundStatement::Schema(crate::plan::SchemaChange::Create {
            name,
            owner,
            if_not_exists,
            elements: Vec::new(),
        }))
    }

    /// `CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role] element …` (the text
    /// after SCHEMA): each element from its CREATE or GRANT to the next, sequences,
    /// tables, views, indexes and grants in that order (PostgreSQL's
    /// transformCreateSchemaStmt).
    pub(super) fn bind_create_schema_elements(&mut self, text: &str) -> Result<BoundStatement> {
        use sqlparser::tokenizer::{Token, Tokenizer};
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        let tokens = Tokenizer::new(&dialect, text)
            .tokenize_with_location()
            .map_err(|e| Error::syntax(e.to_string()))?;
        let offset =
            |loc: sqlparser::tokenizer::Location| -> usize {
                crate::sql::parse::char_position(text, loc.line as usize, loc.column as usize)
                    .map_or(text.len(), |p| {
                        text.char_indices()
                            .nth(p as usize - 1)
                            .map_or(text.len(), |(b, _)| b)
                    })
            };
        // Where each element starts: a CREATE or GRANT outside parentheses.
        let mut depth = 0i32;
        let mut starts = Vec::new();
        for t in &tokens {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                Token::Word(w)
                    if depth == 0
                        && w.quote_style.is_none()
                        && (w.value.eq_ignore_ascii_case("CREATE")
                            || w.value.eq_ignore_ascii_case("GRANT")) =>
                {
                    starts.push(offset(t.span.start));
                }
                _ => {}
            }
        }
        let Some(&first) = starts.first() else {
            return Err(Error::syntax("syntax error in CREATE SCHEMA"));
        };
        let head = crate::sql::parse::parse(&format!("CREATE SCHEMA {}", &text[..first]))?;
        let Some(A::Statement::CreateSchema {
            schema_name,
            if_not_exists,
            ..
        }) = head.first()
        else {
            return Err(Error::syntax("syntax error in CREATE SCHEMA"));
        };
        if *if_not_exists {
            return Err(Error::new(
                "0A000",
                "CREATE SCHEMA IF NOT EXISTS cannot include schema elements",
            ));
        }
        let mut elements: Vec<(u8, String)> = Vec::new();
        for (i, &s) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            let element = text[s..end].trim().trim_end_matches(';').trim().to_string();
            let words: Vec<String> = element
                .split_whitespace()
                .take(4)
                .map(|w| w.to_uppercase())
                .collect();
            let rank = match words
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                ["GRANT", ..] => 4,
                [_, "SEQUENCE", ..] | [_, "TEMP" | "TEMPORARY", "SEQUENCE", ..] => 0,
                [_, "TABLE", ..] => 1,
                [_, "VIEW", ..] | [_, "OR", "REPLACE", "VIEW"] => 2,
                [_, "INDEX", ..] | [_, "UNIQUE", "INDEX", ..] => 3,
                _ => {
                    return Err(Error::syntax(format!(
                        "syntax error at or near \"{}\"",
                        words.get(1).map_or("", String::as_str)
                    )));
                }
            };
            elements.push((rank, element));
        }
        elements.sort_by_key(|(rank, _)| *rank);
        let BoundStatement::Schema(crate::plan::SchemaChange::Create { name, owner, .. }) =
            self.bind_create_schema(schema_name, false)?
        else {
            return Err(Error::internal("CREATE SCHEMA bound as something else"));
        };
        Ok(BoundStatement::Schema(crate::plan::SchemaChange::Create {
            name,
            owner,
            if_not_exists: false,
            elements: elements.into_iter().map(|(_, e)| e).collect(),
        }))
    }

    /// `{TABLE | VIEW | SEQUENCE} [IF EXISTS] name SET SCHEMA schema` (the text after
    /// ALTER).
    pub(super) fn bind_set_schema(&mut self, text: &str) -> Result<BoundStatement> {
        use crate::catalog::RelKind;
        let mut w = super::privileges::Words::new(text)?;
        let kind = if w.take(&["TABLE"]) {
            RelKind::Table
        } else if w.take(&["VIEW"]) {
            RelKind::View
        } else if w.take(&["SEQUENCE"]) {
            RelKind::Sequence
        } else {
            return Err(w.unexpected());
        };
        let if_exists = w.take(&["IF", "EXISTS"]);
        let (schema, rel) = w.relation()?;
        w.expect("SET")?;
        w.expect("SCHEMA")?;
        let to = w.ident()?;
        w.end()?;
        let name = match (&schema, if_exists) {
            (Some(s), true)
                if s != "pg_temp" && self.catalog.namespace(s, &self.snapshot).is_none() =>
            {
                RelName::new(0, format!("{s}.{rel}"))
            }
            _ => self.qualified_rel_name(schema.as_deref(), &rel)?,
        };
        Ok(BoundStatement::SetSchema {
            name,
            kind,
            if_exists,
            to,
        })
    }

    /// `ALTER SCHEMA name RENAME TO new | OWNER TO role`.
    pub(super) fn bind_alter_schema(&mut self, a: &A::AlterSchema) -> Result<BoundStatement> {
        let name = bare_name(&a.name)?;
        match a.operations.as_slice() {
            [A::AlterSchemaOperation::Rename { name: to }] => {
                Ok(BoundStatement::Schema(crate::plan::SchemaChange::Rename {
                    name,
                    to: bare_name(to)?,
                }))
            }
            [A::AlterSchemaOperation::OwnerTo { owner }] => {
                Ok(BoundStatement::Schema(crate::plan::SchemaChange::Owner {
                    name,
                    to: privileges::owner_spec(owner),
                }))
            }
            _ => Err(Error::feature_not_supported(format!("{a}"))),
        }
    }
}

/// A dotted name as PostgreSQL prints it in messages (`s.t`).
pub(super) fn display_name(name: &A::ObjectName) -> String {
    name_parts(name)
        .map(|p| p.join("."))
        .unwrap_or_else(|_| name.to_string())
}
