//! pg_catalog and information_schema: PostgreSQL's system catalogs, generated from
//! kiln's catalog at the statement's snapshot.
//!
//! kiln keeps no catalog tables of its own kind; a system table is a definition (name,
//! oid, PostgreSQL 15's columns in order) and a generator that builds its rows when a
//! query scans it (`LogicalPlan::Series` with `TableFunc::System`), from the catalog
//! versions the statement's snapshot sees, the roles and the sessions. So `\d` in psql,
//! JDBC's DatabaseMetaData and SQLAlchemy's reflection read what they read from
//! PostgreSQL, with joins, filters and functions run by the ordinary executor.
//!
//! ## Object ids
//!
//! Tables, views, sequences, indexes and foreign keys have oids from the catalog's
//! counter (user objects from 16384, as in PostgreSQL). Namespaces, types, access
//! methods and the system tables themselves have PostgreSQL's fixed oids. Objects kiln
//! stores without an oid get one derived from their owner, tagged in the top four bits
//! so the functions that take an oid (`pg_get_constraintdef`) find them again:
//! `0x9…` a key constraint (the low bits: its index's oid), `0xA…` a CHECK
//! (table oid × 64 + its position), `0xB…` a column default (table oid × 2048 + attnum).
//!
//! ## Not modelled
//!
//! Column privileges (every `attacl` is NULL), `aclitem` as a type (relacl, nspacl and
//! datacl hold PostgreSQL's aclitem texts in `text[]` columns), access counters
//! (pg_stat_*_tables / _indexes and pg_stat_get_numscans and kin answer 0 scans and
//! tuples; live and dead row counts are real), procedural languages beyond internal, c
//! and sql, functions (pg_proc lists none: kiln's built-ins
//! are not catalog objects yet), inheritance, triggers, policies, publications and
//! extended statistics (empty tables with their real columns, so the queries that
//! join them run). `int2vector` and `oidvector` columns are `int2[]` and `oid[]`.

mod defs;
mod functions;
mod keywords;
mod rows;
mod sql;

pub use functions::{eval_function, reg_in_at_bind};
pub use rows::{default_opclass, opclass_input, scan, type_name};
pub use sql::{
    distinct_names, expr_column_name, expr_sql, expr_sql_named, fk_action_sql, index_column_names,
    index_columns, index_key_sql, index_options, quote_ident, with_current_names,
};

use defs::{C, DEFS, Def, spec_type};
use rows::{NULL, array, boolean, oid, text};
use sql::{constraint_def, index_def, view_definition};

use std::sync::Arc;

use crate::catalog::{FkAction, IndexEntry, KeyConstraint, RelKind, TableEntry};
use crate::error::{Error, Result};
use crate::exec::context::ExecContext;
use crate::exec::vector::{Batch, Vector};
use crate::sql::expr::{Expr, Func};
use crate::types::{DataType, SqlType, Value};

pub use crate::catalog::namespace::{
    INFORMATION_SCHEMA_OID, PG_CATALOG_OID, PG_TOAST_OID, PUBLIC_OID,
};
/// pg_class's own oid: `classoid` of relations.
pub const PG_CLASS_OID: u32 = 1259;
const HEAP_AM: u32 = 2;
const BTREE_AM: u32 = 403;
const DEFAULT_COLLATION: u32 = 100;
const PG_DEFAULT_TABLESPACE: u32 = 1663;

const TAG_KEY: u32 = 0x9000_0000;
const TAG_CHECK: u32 = 0xA000_0000;
const TAG_DEFAULT: u32 = 0xB000_0000;
/// A domain's CHECK constraint: the tag, the type oid's low 24 bits, the check's place
/// (the first 16 of a domain's).
const TAG_DOMAIN_CHECK: u32 = 0xC000_0000;

/// The pg_constraint oid of check `k` of domain `type_oid`.
fn domain_check_oid(type_oid: u32, k: usize) -> u32 {
    TAG_DOMAIN_CHECK | ((type_oid & 0x00FF_FFFF) << 4) | (k.min(15) as u32)
}

/// The CHECK constraints of the domains `v` sees: (constraint oid, name, domain, its
/// schema, SQL as pg_get_constraintdef prints it, validated).
fn domain_checks(v: &View) -> Vec<(u32, String, u32, u32, String, bool)> {
    let mut out = Vec::new();
    for t in v.db.catalog.visible_user_types(&v.ctx.snapshot) {
        let Some(d) = &t.domain else { continue };
        let value = crate::catalog::ColumnDef {
            name: "value".into(),
            ty: d.base,
            not_null: false,
            default: None,
            identity: None,
            generated: None,
        };
        for (k, c) in d.checks.iter().enumerate() {
            let sql = expr_sql(&with_current_names(&c.expr, std::slice::from_ref(&value)));
            let sql = replace_word(&sql, "value", "VALUE");
            out.push((
                domain_check_oid(t.oid, k),
                c.name.clone(),
                t.oid,
                t.namespace,
                format!("CHECK ({sql})"),
                c.validated,
            ));
        }
    }
    out
}

/// `text` with each whole word `from` (outside quotes) made `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if c == b'\'' || c == b'"' {
            quote = Some(c);
        } else if text[i..].starts_with(from)
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
            && b.get(i + from.len())
                .is_none_or(|n| !(n.is_ascii_alphanumeric() || *n == b'_'))
        {
            out.push_str(to);
            i += from.len();
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A system table or view: an index into [`DEFS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SystemTable(u16);

impl SystemTable {
    fn def(self) -> &'static Def {
        &DEFS[self.0 as usize]
    }

    pub fn name(self) -> &'static str {
        self.def().name
    }

    pub fn oid(self) -> u32 {
        self.def().oid
    }

    pub fn schema_oid(self) -> u32 {
        self.def().schema
    }

    /// Column names and types, in order.
    pub fn columns(self) -> Vec<(&'static str, SqlType)> {
        self.def()
            .columns
            .split(',')
            .filter_map(|c| {
                let c = c.trim();
                let (name, ty) = c.split_once(' ')?;
                Some((name, spec_type(ty.trim())))
            })
            .collect()
    }

    /// The system table called `name` in schema `schema` (pg_catalog when None).
    pub fn lookup(schema: Option<&str>, name: &str) -> Option<SystemTable> {
        let nsp = match schema {
            None | Some("pg_catalog") => PG_CATALOG_OID,
            Some("information_schema") => INFORMATION_SCHEMA_OID,
            Some(_) => return None,
        };
        DEFS.iter()
            .position(|d| d.schema == nsp && d.name == name && d.kind != 'f')
            .map(|i| SystemTable(i as u16))
    }

    /// The set-returning catalog function `name` (pg_get_keywords), read as a table.
    pub fn function(name: &str) -> Option<SystemTable> {
        DEFS.iter()
            .position(|d| d.name == name && d.kind == 'f')
            .map(|i| SystemTable(i as u16))
    }

    /// The system tables and views (relations; not the functions).
    fn all() -> impl Iterator<Item = SystemTable> {
        (0..DEFS.len())
            .map(|i| SystemTable(i as u16))
            .filter(|t| t.def().kind != 'f')
    }

    fn by_oid(oid: u32) -> Option<SystemTable> {
        Self::all().find(|t| t.oid() == oid)
    }
}

// ---------------------------------------------------------------------------------
// What the generators read.

/// The catalog as one statement sees it.
struct View<'a> {
    ctx: &'a ExecContext,
    db: &'a crate::Database,
    tables: Vec<Arc<TableEntry>>,
    namespaces: Vec<Arc<crate::catalog::namespace::Namespace>>,
}

impl<'a> View<'a> {
    fn new(ctx: &'a ExecContext) -> Result<View<'a>> {
        let Some(db) = ctx.db.as_deref() else {
            return Err(Error::feature_not_supported("system catalogs here"));
        };
        let tables = db.catalog.visible_tables(&ctx.snapshot);
        let namespaces = db.catalog.visible_namespaces(&ctx.snapshot);
        Ok(View {
            ctx,
            db,
            tables,
            namespaces,
        })
    }

    /// Whether information_schema shows relation `r` to the statement's role: it owns
    /// it or holds some privilege on it (system tables: always).
    fn may_see(&self, r: &Rel) -> bool {
        let Some(t) = r.table else { return true };
        crate::session::privileges::owns(self.db, self.ctx.role, t.owner)
            || !crate::session::privileges::relation_privs(
                self.db,
                self.ctx.role,
                t,
                crate::catalog::acl::ObjectKind::Table.all(),
            )
            .is_empty()
    }

    /// The name of namespace `oid`.
    fn namespace_name(&self, oid: u32) -> Option<&str> {
        self.namespaces
            .iter()
            .find(|n| n.oid == oid)
            .map(|n| n.name.as_str())
    }

    /// Whether the search path finds relation `oid` by its name `name`
    /// (pg_table_is_visible).
    fn visible(&self, name: &str, oid: u32) -> bool {
        let found = self.ctx.search_path.search.iter().find_map(|&p| {
            if p == PG_CATALOG_OID || p == INFORMATION_SCHEMA_OID {
                let schema = (p == INFORMATION_SCHEMA_OID).then_some("information_schema");
                if let Some(s) = SystemTable::lookup(schema, name) {
                    return Some(s.oid());
                }
            }
            self.tables
                .iter()
                .find(|t| t.namespace == p && t.name == name)
                .map(|t| t.oid)
                .or_else(|| {
                    self.tables
                        .iter()
                        .filter(|t| t.namespace == p)
                        .find_map(|t| t.indexes.iter().find(|i| i.name == name))
                        .map(|i| i.oid)
                })
        });
        found == Some(oid)
    }

    /// The schema a definition (pg_get_indexdef) names table `t` with: always, unless
    /// `pretty` and the search path finds it without (a temporary table's is `pg_temp`).
    fn schema_for_def(&self, t: &TableEntry, pretty: bool) -> Option<String> {
        if pretty && self.visible(&t.name, t.oid) {
            return None;
        }
        if t.temp {
            return Some("pg_temp".into());
        }
        self.namespace_name(t.namespace).map(String::from)
    }

    /// Relations' names by oid as regclass output prints them (for expressions that
    /// hold a relation by oid).
    fn names(&self) -> impl Fn(u32) -> Option<String> + '_ {
        |o| {
            self.table(o)
                .map(|t| self.relation_name(t.namespace, &t.name, o))
        }
    }

    /// A relation's name as regclass output prints it: unqualified when the search
    /// path finds this very relation by its name, else `schema.name`.
    fn relation_name(&self, ns: u32, name: &str, oid: u32) -> String {
        if self.visible(name, oid) {
            quote_ident(name)
        } else {
            format!(
                "{}.{}",
                quote_ident(self.namespace_name(ns).unwrap_or("?")),
                quote_ident(name)
            )
        }
    }

    fn table(&self, oid: u32) -> Option<&Arc<TableEntry>> {
        self.tables.iter().find(|t| t.oid == oid)
    }

    fn index(&self, oid: u32) -> Option<(&Arc<TableEntry>, &Arc<IndexEntry>)> {
        self.tables
            .iter()
            .find_map(|t| t.indexes.iter().find(|i| i.oid == oid).map(|i| (t, i)))
    }

    /// The name of the owner of everything: the bootstrap superuser, or the session's
    /// user when no role was made at start.
    fn owner_name(&self) -> String {
        match self
            .db
            .cluster()
            .roles
            .by_oid(crate::auth::BOOTSTRAP_SUPERUSER_OID)
        {
            Some(r) => r.name,
            None => self.ctx.session_user.clone(),
        }
    }

    /// An ACL's `aclitem[]` value (text elements).
    fn acl_value(&self, acl: &crate::catalog::acl::Acl) -> Value {
        let items: Vec<Value> = acl
            .texts(&|r| match r {
                crate::catalog::acl::PUBLIC => String::new(),
                _ => self.role_name(r).unwrap_or_else(|| r.to_string()),
            })
            .into_iter()
            .map(Value::Text)
            .collect();
        rows::array(DataType::Text, &items)
    }

    /// Every role: (oid, name, superuser, login, createdb).
    fn roles(&self) -> Vec<(u32, String, bool, bool, bool)> {
        let mut out: Vec<_> = self
            .db
            .cluster()
            .roles
            .all()
            .into_iter()
            .map(|r| {
                (
                    r.oid,
                    r.name,
                    r.superuser,
                    r.login,
                    r.createdb || r.superuser,
                )
            })
            .collect();
        if !out
            .iter()
            .any(|r| r.0 == crate::auth::BOOTSTRAP_SUPERUSER_OID)
            && !out.iter().any(|r| r.1 == self.ctx.session_user)
        {
            out.push((
                crate::auth::BOOTSTRAP_SUPERUSER_OID,
                self.ctx.session_user.clone(),
                true,
                true,
                true,
            ));
        }
        // PostgreSQL 15's predefined role that owns schema public.
        out.push((6171, "pg_database_owner".into(), false, false, false));
        out.sort_by_key(|r| r.0);
        out
    }

    fn role_name(&self, oid: u32) -> Option<String> {
        self.roles().into_iter().find(|r| r.0 == oid).map(|r| r.1)
    }
}

/// A relation as pg_class lists it.
struct Rel<'a> {
    oid: u32,
    name: &'a str,
    nsp: u32,
    kind: char,
    columns: Vec<Col>,
    table: Option<&'a Arc<TableEntry>>,
    /// The owning role (an index's is its table's).
    owner: u32,
    /// Storage parameters (pg_class.reloptions).
    options: &'a [(String, String)],
}

struct Col {
    name: String,
    ty: SqlType,
    not_null: bool,
    has_default: bool,
    identity: &'static str,
    generated: &'static str,
}

fn relkind(t: &TableEntry) -> char {
    match t.kind() {
        RelKind::Table => 'r',
        RelKind::View => 'v',
        RelKind::Sequence => 'S',
    }
}

fn table_columns(t: &TableEntry) -> Vec<Col> {
    t.columns
        .iter()
        .map(|c| Col {
            name: c.name.clone(),
            ty: c.ty,
            not_null: c.not_null,
            // An identity column draws from its sequence without a stored default.
            has_default: (c.default.is_some() && c.identity.is_none()) || c.generated.is_some(),
            identity: match c.identity {
                Some(true) => "a",
                Some(false) => "d",
                None => "",
            },
            generated: if c.generated.is_some() { "s" } else { "" },
        })
        .collect()
}

/// Every relation: the system tables, then kiln's tables, views, sequences and indexes.
fn relations<'a>(v: &'a View<'a>) -> Vec<Rel<'a>> {
    let mut out = Vec::new();
    for t in SystemTable::all() {
        out.push(Rel {
            oid: t.oid(),
            name: t.name(),
            nsp: t.schema_oid(),
            kind: t.def().kind,
            columns: t
                .columns()
                .into_iter()
                .map(|(name, ty)| Col {
                    name: name.to_string(),
                    ty,
                    not_null: false,
                    has_default: false,
                    identity: "",
                    generated: "",
                })
                .collect(),
            table: None,
            owner: crate::auth::BOOTSTRAP_SUPERUSER_OID,
            options: &[],
        });
    }
    for t in &v.tables {
        let columns = if t.kind() == RelKind::Sequence {
            sequence_columns()
        } else {
            table_columns(t)
        };
        out.push(Rel {
            oid: t.oid,
            name: &t.name,
            nsp: t.namespace,
            kind: relkind(t),
            columns,
            table: Some(t),
            owner: t.owner,
            options: &[],
        });
        for ix in &t.indexes {
            out.push(Rel {
                oid: ix.oid,
                name: &ix.name,
                nsp: t.namespace,
                kind: 'i',
                columns: ix
                    .index
                    .parts
                    .iter()
                    .zip(index_column_names(t, ix))
                    .filter_map(|(p, name)| {
                        let ty = match p.expression() {
                            Some(k) => ix.index.exprs.get(k)?.ty(),
                            None => t.columns.get(p.column)?.ty,
                        };
                        Some(Col {
                            name,
                            ty,
                            not_null: false,
                            has_default: false,
                            identity: "",
                            generated: "",
                        })
                    })
                    .collect(),
                table: None,
                owner: t.owner,
                options: &ix.options,
            });
        }
    }
    out
}

/// A sequence's columns as PostgreSQL shows them (`\d seq` reads them).
fn sequence_columns() -> Vec<Col> {
    [
        ("last_value", DataType::Int8),
        ("log_cnt", DataType::Int8),
        ("is_called", DataType::Bool),
    ]
    .into_iter()
    .map(|(n, t)| Col {
        name: n.into(),
        ty: SqlType::new(t),
        not_null: true,
        has_default: false,
        identity: "",
        generated: "",
    })
    .collect()
}

/// A constraint as pg_constraint lists it.
struct Constraint<'a> {
    oid: u32,
    name: &'a str,
    kind: char,
    table: &'a Arc<TableEntry>,
    index: u32,
    deferrable: bool,
    deferred: bool,
    columns: Vec<usize>,
    foreign: Option<(u32, Vec<usize>, FkAction, FkAction)>,
    check: Option<&'a Expr>,
}

fn constraints<'a>(v: &'a View<'a>) -> Vec<Constraint<'a>> {
    let mut out = Vec::new();
    for t in &v.tables {
        for ix in &t.indexes {
            let Some(kc) = ix.constraint else { continue };
            out.push(Constraint {
                oid: TAG_KEY | ix.oid,
                name: &ix.name,
                kind: if kc == KeyConstraint::PrimaryKey {
                    'p'
                } else {
                    'u'
                },
                table: t,
                index: ix.oid,
                deferrable: ix.deferrable,
                deferred: ix.initially_deferred,
                columns: ix.index.parts.iter().map(|p| p.column).collect(),
                foreign: None,
                check: None,
            });
        }
        for (k, c) in t.checks.iter().enumerate() {
            out.push(Constraint {
                oid: TAG_CHECK | (t.oid << 6) | k as u32,
                name: &c.name,
                kind: 'c',
                table: t,
                index: 0,
                deferrable: false,
                deferred: false,
                columns: Vec::new(),
                foreign: None,
                check: Some(&c.expr),
            });
        }
        for fk in &t.foreign_keys {
            let parent = if fk.parent == crate::catalog::SELF_REFERENCE {
                t.oid
            } else {
                fk.parent
            };
            let index = v
                .table(parent)
                .and_then(|p| {
                    p.indexes.iter().find(|i| {
                        i.index.unique
                            && i.index.parts.len() == fk.parent_columns.len()
                            && i.index
                                .parts
                                .iter()
                                .all(|x| fk.parent_columns.contains(&x.column))
                    })
                })
                .map_or(0, |i| i.oid);
            out.push(Constraint {
                oid: fk.oid,
                name: &fk.name,
                kind: 'f',
                table: t,
                index,
                deferrable: fk.deferrable,
                deferred: fk.initially_deferred,
                columns: fk.columns.clone(),
                foreign: Some((
                    parent,
                    fk.parent_columns.clone(),
                    fk.on_update,
                    fk.on_delete,
                )),
                check: None,
            });
        }
    }
    out
}
