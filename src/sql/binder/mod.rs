//! The binder: sqlparser AST → a [`BoundStatement`] whose queries are typed,
//! name-resolved plans.
//!
//! It follows PostgreSQL's analysis step: names resolve against the scopes of the FROM
//! clause and of the enclosing queries ([`scope`]), literals without a type (`'abc'`,
//! `NULL`, parameters without a declared type) take the type their context asks for,
//! operators resolve by PostgreSQL's category rules (`int4 + int8 → int8`, `int +
//! numeric → numeric`, `date + int → date` …), and a SELECT with aggregates or GROUP BY
//! is checked so that every column outside an aggregate is grouped (`42803`).
//!
//! Queries become *logical* plans ([`crate::plan::logical`]) whose column references
//! name a relation and a column (relation numbers from [`Binder::new_rel`], unique in
//! the statement). A SELECT becomes, bottom-up:
//! `FROM items (joined) → Filter(WHERE) → Aggregate → Filter(HAVING) → Window →
//! Project(outputs + hidden sort keys) → Distinct → Sort → DistinctOn → Limit →
//! Project(outputs)`. When a statement's plan is complete, `finish_plan` runs the
//! optimizer rules over it ([`crate::plan::rules::optimize`]) and lowers it to a
//! physical plan ([`crate::plan::lower`], [`crate::plan::physical`]); a DELETE lowers its
//! row source with `lower_loose` instead, so the row ids stay its last column. So a
//! bound statement holds physical plans.
//!
//! `WITH … INSERT/UPDATE/DELETE` binds its WITH queries first, in a scope that lasts the
//! whole statement (`setop::bind_dml_with`). Just before the plan that produces the
//! statement's rows is optimized, they are attached to it as any WITH is — inlined when
//! read once and not MATERIALIZED, else a `With` node (`attach_statement_ctes`).
//!
//! This file holds the [`Binder`] and the dispatch of every statement kind (the
//! transaction statements, DROP, TRUNCATE, ANALYZE/VACUUM, SHOW and DEALLOCATE are bound
//! here); the rest is split by concern:
//! - [`aggregate`]: aggregate calls (DISTINCT, ORDER BY, FILTER, ordered-set `WITHIN
//!   GROUP`) and the rewrite of expressions over a grouped input;
//! - [`coerce`]: implicit and explicit casts, and the common type of several expressions;
//! - [`ddl`]: CREATE TABLE, CREATE TABLE … AS / SELECT INTO, CREATE VIEW;
//! - [`dml`]: INSERT, UPDATE and DELETE;
//! - [`expr`]: expressions — column names, literals, operators, CASE, LIKE, IN lists;
//! - [`from`]: FROM items (tables, views, derived tables, VALUES, table functions,
//!   LATERAL) and joins;
//! - [`functions`]: scalar function calls — overloads, argument coercion, result types;
//! - [`grouping`]: GROUP BY, GROUPING SETS / ROLLUP / CUBE and GROUPING();
//! - [`names`]: output column names (PostgreSQL's FigureColname);
//! - [`position`]: error positions from sqlparser's spans;
//! - [`scope`]: the columns a query level makes visible and how a name resolves;
//! - [`select`]: query blocks — SELECT, VALUES, ORDER BY, LIMIT;
//! - [`setop`]: UNION / INTERSECT / EXCEPT, WITH and WITH RECURSIVE, WITH before DML;
//! - [`subquery`]: subqueries in expressions (scalar, EXISTS, IN, ANY/ALL) and row
//!   comparisons;
//! - [`utility`]: SET and RESET (setting names and values) and EXPLAIN's options;
//! - [`window`]: window function calls and the WINDOW clause.

use std::collections::BTreeSet;
use std::sync::Arc;

use sqlparser::ast as A;
use sqlparser::ast::Spanned;

use crate::catalog::{Catalog, ColumnDef, RelKind, TableEntry};
use crate::error::{Error, Result};
use crate::plan::logical::{
    ColumnId, CteDef, JoinKind, LogicalPlan, RelId, SetOpKind, SortExpr, SrfCall, TableFunc,
};
use crate::plan::lower::Lowerer;
use crate::plan::{BoundStatement, OutputColumn, Plan, TransactionOp};
use crate::sql::expr::{
    AggCall, AggFunc, BinaryOp, Expr, Frame, FrameBound, FrameExclude, FrameUnits, Func, Subquery,
    SubqueryKind, WindowCall, WindowFunc, WindowOrder,
};
use crate::storage::mvcc::Snapshot;
use crate::types::cast::{self, cast_value};
use crate::types::text::TextFormat;
use crate::types::{DataType, Numeric, SqlType, Value, type_from_ast};
use ddl::select_into;

mod aggregate;
pub mod alter;
mod array;
mod coerce;
pub mod constraints;
mod copy;
mod cursor;
mod databases;
mod ddl;
mod dml;
mod expr;
pub mod extensions;
mod from;
mod functions;
mod grouping;
mod json;
mod merge;
mod names;
mod position;
mod privileges;
mod range;
mod renames;
mod roles;
pub mod schemas;
mod scope;
mod select;
pub mod sequences;
mod setop;
mod subquery;
mod tsearch;
mod types;
mod upsert;
mod utility;
mod window;

use aggregate::*;
use array::*;
use coerce::*;
use expr::*;
use names::*;
use position::*;
use schemas::*;
use scope::*;
use select::*;
use setop::*;
use subquery::*;
use utility::*;
use window::*;

const BOOL: SqlType = SqlType::new(DataType::Bool);

const INT4: SqlType = SqlType::new(DataType::Int4);

const INT8: SqlType = SqlType::new(DataType::Int8);

const FLOAT8: SqlType = SqlType::new(DataType::Float8);
/// `real`.
const FLOAT4: SqlType = SqlType::new(DataType::Float4);

const NUMERIC: SqlType = SqlType::new(DataType::Numeric);

const TEXT: SqlType = SqlType::new(DataType::Text);

const UNKNOWN: SqlType = SqlType::new(DataType::Unknown);

/// Maximum number of parameters in one statement (the protocol's Int16 count).
pub const PARAMS_MAX: usize = 65535;

/// Folds an identifier as PostgreSQL does: unquoted names are lower-cased.
pub fn ident_name(ident: &A::Ident) -> String {
    if ident.quote_style.is_some() {
        ident.value.clone()
    } else {
        ident.value.to_lowercase()
    }
}

/// A dotted name's parts, each folded or kept as quoted.
fn name_parts(name: &A::ObjectName) -> Result<Vec<String>> {
    name.0
        .iter()
        .map(|p| match p {
            A::ObjectNamePart::Identifier(i) => Ok(ident_name(i)),
            A::ObjectNamePart::Function(_) => Err(Error::syntax("syntax error in name")),
        })
        .collect()
}

fn object_name(name: &A::ObjectName) -> Result<String> {
    let parts = name_parts(name)?;
    match parts.as_slice() {
        [n] => Ok(n.clone()),
        [schema, n] if schema == "public" => Ok(n.clone()),
        [schema, n] if schema == "pg_catalog" => Ok(n.clone()),
        [schema, _] => Err(Error::new(
            "3F000",
            format!("schema \"{schema}\" does not exist"),
        )),
        _ => Err(Error::feature_not_supported(format!("name \"{name}\""))),
    }
}

/// `json` has no equality and no ordering (PostgreSQL's errors for sorting, grouping,
/// DISTINCT and UNION over it).
fn json_keys(plan: &LogicalPlan) -> Result<()> {
    let mut found = None;
    let typ: std::cell::Cell<Option<DataType>> = std::cell::Cell::new(None);
    plan.walk(&mut |p| {
        if found.is_some() {
            return;
        }
        let json = |t: SqlType| {
            let hit = matches!(t.ty, DataType::Json | DataType::JsonPath);
            if hit {
                typ.set(Some(t.ty));
            }
            hit
        };
        found = match p {
            LogicalPlan::Sort { keys, .. } if keys.iter().any(|k| json(k.expr.ty())) => {
                Some("ordering")
            }
            LogicalPlan::Aggregate { group_by, .. } if group_by.iter().any(|e| json(e.ty())) => {
                Some("equality")
            }
            LogicalPlan::DistinctOn { keys, .. } if keys.iter().any(|e| json(e.ty())) => {
                Some("equality")
            }
            LogicalPlan::Distinct { input } if input.output().iter().any(|c| json(c.ty)) => {
                Some("equality")
            }
            LogicalPlan::SetOp {
                all, kind, types, ..
            } if (!all || *kind != crate::plan::logical::SetOpKind::Union)
                && types.iter().any(|t| json(*t)) =>
            {
                Some("equality")
            }
            _ => None,
        };
    });
    match found {
        Some(what) => Err(Error::new(
            "42883",
            format!(
                "could not identify an {what} operator for type {}",
                typ.get().map_or("json", DataType::name)
            ),
        )),
        None => Ok(()),
    }
}

pub struct Binder<'a> {
    catalog: &'a Catalog,
    /// Which version of each table name the statement binds to.
    snapshot: Snapshot,
    /// Every table the statement names, as resolved (checked again before it runs).
    pub tables: Vec<Arc<TableEntry>>,
    fmt: TextFormat,
    /// Parameter types: declared by the client, or inferred from use.
    pub params: Vec<Option<SqlType>>,
    aggs: Vec<AggCall>,
    agg_allowed: bool,
    /// Current expression nesting, bounded by `EXPRESSION_DEPTH_MAX`.
    depth: usize,
    /// The text the statement was parsed from: errors point into it (PostgreSQL's
    /// `parser_errposition`).
    text: &'a str,
    /// The next relation number of the statement's logical plans.
    next_rel: RelId,
    /// The relations that are scans of a table, with the table's oid (a select list's
    /// plain column references report it in RowDescription).
    table_rels: std::collections::HashMap<RelId, u32>,
    /// The scopes of the queries enclosing the one being bound (innermost last).
    outer_scopes: Vec<Scope>,
    /// Set by min / max of an enum (bound over the labels' places): the enum type
    /// their result is mapped back to (`types::enum_label_at`).
    enum_aggregate: Option<u32>,
    /// The next SELECT bound may leave untyped literals in its select list untyped (an
    /// INSERT's source query, whose target columns give them their types).
    unknown_outputs_ok: bool,
    /// The WITH queries in scope, innermost WITH last.
    cte_scopes: Vec<Vec<CteBinding>>,
    /// The depth of `cte_scopes` holding a DML statement's WITH queries, until they
    /// are attached to its row source (`setop::bind_dml_with`).
    statement_ctes: Option<usize>,
    /// The window function calls of the query level being bound.
    windows: Vec<WindowCall>,
    /// The clause where window functions are not allowed (None: they are).
    window_forbidden: Option<&'static str>,
    /// Where an aggregate is refused, for the message (`None`: "here").
    agg_forbidden_in: Option<&'static str>,
    /// Binding a window function's arguments / an aggregate's argument.
    in_window_args: bool,
    in_agg_args: bool,
    /// The WINDOW clause of the SELECT being bound.
    named_windows: Vec<A::NamedWindowDefinition>,
    /// Set-returning functions of the select list being bound (PostgreSQL's
    /// ProjectSet), the relation their columns belong to, and the place where they are
    /// not allowed (None: they are).
    srfs: Vec<SrfCall>,
    srf_rel: Option<RelId>,
    srf_forbidden: Option<&'static str>,
    /// FROM functions returning one scalar column: a whole-row reference to one is
    /// that column, not a record (PostgreSQL's rule).
    scalar_function_rels: Vec<RelId>,
    /// FETCH … WITH TIES: of the query being bound, and of the one about to be.
    query_ties: bool,
    ties_next: bool,
    /// How deep in views the binder is.
    view_depth: usize,
    /// The privileges the statement needs on each relation, checked when it runs.
    pub access: Vec<crate::catalog::acl::Access>,
    /// Inside a view's query: the view's owner, whose privileges its tables are
    /// checked against (PostgreSQL's checkAsUser).
    check_as: Option<u32>,
    /// The scope of the FROM items left of the one being bound (what LATERAL sees).
    from_left: Option<Scope>,
    /// How unqualified names resolve (the session's search_path).
    pub search_path: crate::catalog::namespace::SearchPath,
    /// NOTICEs binding raised (sent before the statement's own).
    pub notices: Vec<String>,
    /// The current database's name (`database.schema.name` may name it).
    pub database: Option<String>,
}

fn is_default_keyword(e: &A::Expr) -> bool {
    matches!(e, A::Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default"))
}

impl<'a> Binder<'a> {
    pub fn new(
        catalog: &'a Catalog,
        snapshot: Snapshot,
        fmt: TextFormat,
        declared_params: Vec<Option<SqlType>>,
    ) -> Binder<'a> {
        Binder {
            catalog,
            snapshot,
            tables: Vec::new(),
            fmt,
            params: declared_params,
            aggs: Vec::new(),
            agg_allowed: false,
            depth: 0,
            text: "",
            next_rel: 1,
            table_rels: std::collections::HashMap::new(),
            outer_scopes: Vec::new(),
            enum_aggregate: None,
            unknown_outputs_ok: false,
            cte_scopes: Vec::new(),
            statement_ctes: None,
            windows: Vec::new(),
            window_forbidden: Some("this context"),
            agg_forbidden_in: None,
            in_window_args: false,
            in_agg_args: false,
            named_windows: Vec::new(),
            srfs: Vec::new(),
            srf_rel: None,
            srf_forbidden: Some("this context"),
            scalar_function_rels: Vec::new(),
            query_ties: false,
            ties_next: false,
            view_depth: 0,
            access: Vec::new(),
            check_as: None,
            from_left: None,
            search_path: crate::catalog::namespace::SearchPath::default_public(),
            notices: Vec::new(),
            database: None,
        }
    }

    /// A new relation number.
    pub(super) fn new_rel(&mut self) -> RelId {
        self.next_rel += 1;
        self.next_rel - 1
    }

    /// Optimizes a logical plan and lowers it to the operators that run it; the result
    /// produces exactly the plan's output columns.
    pub(super) fn finish_plan(&mut self, plan: LogicalPlan) -> Result<Plan> {
        let mut plan = self.attach_statement_ctes(plan)?;
        json_keys(&plan)?;
        crate::plan::rules::optimize(&mut plan, self.fmt, &mut self.next_rel)?;
        Lowerer::new().lower_root(&plan)
    }

    /// A result's oid-alias columns (regclass, regtype, …) as the names they print as:
    /// the wire layer has no catalog, so the plan's last step converts them (their
    /// columns keep their types in RowDescription).
    pub(super) fn reg_output(&mut self, plan: LogicalPlan) -> LogicalPlan {
        let out = plan.output();
        if !out.iter().any(|c| c.ty.ty.is_reg()) {
            return plan;
        }
        let exprs = out
            .iter()
            .map(|c| {
                let col = Expr::ColumnRef {
                    id: c.id,
                    ty: c.ty,
                    name: String::new(),
                };
                if c.ty.ty.is_reg() {
                    Expr::Func {
                        func: Func::RegOut(c.ty.ty),
                        args: vec![col],
                        ty: TEXT,
                    }
                } else {
                    col
                }
            })
            .collect();
        let rel = self.new_rel();
        LogicalPlan::Project {
            input: Box::new(plan),
            rel,
            exprs,
        }
    }

    /// The statement text the AST's spans refer to, so errors carry positions.
    pub fn with_text(mut self, text: &'a str) -> Binder<'a> {
        self.text = text;
        self
    }

    /// Parameter types after binding; undetermined ones become `text`.
    pub fn param_types(&self) -> Vec<SqlType> {
        self.params.iter().map(|p| p.unwrap_or(TEXT)).collect()
    }

    /// COMMENT ON a relation, an index or a column: the object must exist, and be of the
    /// kind named (PostgreSQL's 42809 otherwise).
    fn bind_comment(
        &mut self,
        kind: A::CommentObject,
        name: &A::ObjectName,
        text: Option<String>,
        if_exists: bool,
    ) -> Result<BoundStatement> {
        use crate::catalog::RelKind;
        let _ = if_exists;
        if kind == A::CommentObject::Schema {
            let schema = bare_name(name)?;
            let ns = self.namespace_named(&schema)?.ok_or_else(|| {
                Error::new("3F000", format!("schema \"{schema}\" does not exist"))
            })?;
            return Ok(BoundStatement::Comment {
                oid: ns,
                column: String::new(),
                text,
            });
        }
        let (relation, column) = match kind {
            A::CommentObject::Column => match name.0.split_last() {
                Some((A::ObjectNamePart::Identifier(c), rest)) if !rest.is_empty() => {
                    (A::ObjectName(rest.to_vec()), ident_name(c))
                }
                _ => {
                    return Err(Error::syntax("column name must be qualified".to_string()));
                }
            },
            A::CommentObject::Table
            | A::CommentObject::View
            | A::CommentObject::Sequence
            | A::CommentObject::Index => (name.clone(), String::new()),
            other => {
                return Err(Error::feature_not_supported(format!("COMMENT ON {other}")));
            }
        };
        if kind == A::CommentObject::Index {
            let missing = || Error::undefined_table(&display_name(&relation));
            let rel = self.index_name(&relation)?.ok_or_else(missing)?;
            let owner = self
                .catalog
                .index_owner(rel.ns, &rel.name, &self.snapshot)
                .ok_or_else(missing)?;
            let ix = owner.index_named(&rel.name).ok_or_else(missing)?;
            return Ok(BoundStatement::Comment {
                oid: ix.oid,
                column,
                text,
            });
        }
        let entry = self.table(&relation)?;
        let relation = entry.name.clone();
        let wanted = match kind {
            A::CommentObject::Table => Some(RelKind::Table),
            A::CommentObject::View => Some(RelKind::View),
            A::CommentObject::Sequence => Some(RelKind::Sequence),
            _ => None,
        };
        if let Some(w) = wanted
            && entry.kind() != w
        {
            return Err(Error::new(
                "42809",
                format!("\"{relation}\" is not a {}", w.name()),
            ));
        }
        if !column.is_empty() && entry.column_index(&column).is_none() {
            return Err(Error::new(
                "42703",
                format!("column \"{column}\" of relation \"{relation}\" does not exist"),
            ));
        }
        self.tables.push(entry.clone());
        Ok(BoundStatement::Comment {
            oid: entry.oid,
            column,
            text,
        })
    }

    pub fn bind_statement(&mut self, stmt: &A::Statement) -> Result<BoundStatement> {
        self.bind_statement_inner(stmt)
    }

    pub(super) fn bind_statement_inner(&mut self, stmt: &A::Statement) -> Result<BoundStatement> {
        match stmt {
            A::Statement::Query(q) if select_into(q).is_some() => self.bind_select_into(q),
            A::Statement::Query(q) if dml_body(q).is_some() => match (&q.with, dml_body(q)) {
                (Some(with), Some(stmt)) => self.bind_dml_with(with, stmt),
                (None, Some(stmt)) => self.bind_statement_inner(stmt),
                _ => Err(Error::internal("DML body vanished")),
            },
            A::Statement::Query(q) if !q.locks.is_empty() => self.bind_locking_query(q),
            A::Statement::Query(q) => {
                let (plan, columns) = self.bind_query(q)?;
                let plan = self.reg_output(plan);
                let plan = self.finish_plan(plan)?;
                Ok(BoundStatement::Query {
                    plan,
                    columns,
                    locks: false,
                })
            }
            A::Statement::Explain {
                analyze,
                statement,
                format,
                options,
                ..
            } => self.bind_explain(*analyze, statement, format.as_ref(), options.as_deref()),
            A::Statement::Insert(insert) => self.bind_insert(insert),
            A::Statement::Update(update) => self.bind_update(update),
            A::Statement::Delete(delete) => self.bind_delete(delete),
            A::Statement::Merge(merge) => self.bind_merge(merge),
            A::Statement::CreateTable(ct) => self.bind_create_table(ct),
            A::Statement::CreateIndex(ci) => self.bind_create_index(ci),
            A::Statement::Lock(lock) => {
                let mut tables = Vec::new();
                for target in &lock.tables {
                    let t = self.table(&target.name)?;
                    if t.view.is_some() || t.sequence.is_some() {
                        return Err(Error::new(
                            "42809",
                            format!("\"{}\" is not a table", t.name),
                        ));
                    }
                    tables.push(t);
                }
                use crate::storage::locks::LockMode as M;
                let mode = match lock.lock_mode {
                    None | Some(A::LockTableMode::AccessExclusive) => M::AccessExclusive,
                    Some(A::LockTableMode::AccessShare) => M::AccessShare,
                    Some(A::LockTableMode::RowShare) => M::RowShare,
                    Some(A::LockTableMode::RowExclusive) => M::RowExclusive,
                    Some(A::LockTableMode::ShareUpdateExclusive) => M::ShareUpdateExclusive,
                    Some(A::LockTableMode::Share) => M::Share,
                    Some(A::LockTableMode::ShareRowExclusive) => M::ShareRowExclusive,
                    Some(A::LockTableMode::Exclusive) => M::Exclusive,
                };
                Ok(BoundStatement::LockTable {
                    tables,
                    nowait: lock.nowait,
                    mode,
                })
            }
            A::Statement::AlterTable(at) => {
                if at.only {
                    return Err(Error::feature_not_supported("ALTER TABLE ONLY"));
                }
                if let [A::AlterTableOperation::OwnerTo { new_owner }] = at.operations.as_slice() {
                    return Ok(BoundStatement::Role(crate::plan::RoleChange::Owner {
                        name: self.rel_name(&at.name)?,
                        if_exists: at.if_exists,
                        kind: RelKind::Table,
                        to: privileges::owner_spec(new_owner),
                    }));
                }
                if at
                    .operations
                    .iter()
                    .any(|o| matches!(o, A::AlterTableOperation::OwnerTo { .. }))
                {
                    return Err(Error::feature_not_supported(
                        "OWNER TO together with other ALTER TABLE actions",
                    ));
                }
                // A rename alone renames a relation of any kind (an index, a view, a
                // sequence), as in PostgreSQL.
                if let [A::AlterTableOperation::RenameTable { table_name }] =
                    at.operations.as_slice()
                {
                    let (A::RenameTableNameKind::To(to) | A::RenameTableNameKind::As(to)) =
                        table_name;
                    let (schema, rel) = schemas::split_in(&at.name, self.database.as_deref())?;
                    return Ok(BoundStatement::RenameRelation {
                        name: self.any_relation_name(schema.as_deref(), &rel)?,
                        to: schemas::bare_name(to)?,
                        if_exists: at.if_exists,
                        kind: crate::plan::RenameKind::Table,
                    });
                }
                Ok(BoundStatement::AlterTable {
                    name: self.rel_name(&at.name)?,
                    if_exists: at.if_exists,
                    actions: at.operations.clone(),
                })
            }
            A::Statement::CreateSequence {
                temporary,
                if_not_exists,
                name,
                data_type,
                sequence_options,
                owned_by,
            } => self.bind_create_sequence(
                name,
                data_type.as_ref(),
                sequence_options,
                *if_not_exists,
                *temporary,
                owned_by.as_ref(),
            ),
            A::Statement::CreateView(cv) => self.bind_create_view(cv),
            A::Statement::CreateSchema {
                schema_name,
                if_not_exists,
                or_replace: false,
                with: None,
                options: None,
                default_collate_spec: None,
                clone: None,
            } => self.bind_create_schema(schema_name, *if_not_exists),
            A::Statement::AlterSchema(a) => self.bind_alter_schema(a),
            A::Statement::CreateType {
                name,
                representation,
            } => self.bind_create_type(name, representation.as_ref()),
            A::Statement::AlterType(at) => self.bind_alter_type(at),
            A::Statement::CreateDomain(cd) => self.bind_create_domain(cd),
            A::Statement::DropDomain(dd) => self.bind_drop_type(
                std::slice::from_ref(&dd.name),
                dd.if_exists,
                matches!(dd.drop_behavior, Some(A::DropBehavior::Cascade)),
                true,
            ),
            A::Statement::CreateExtension(c) => {
                if c.version.is_some() {
                    return Err(Error::feature_not_supported("CREATE EXTENSION … VERSION"));
                }
                Ok(BoundStatement::Extension(
                    crate::plan::ExtensionChange::Create {
                        name: ident_name(&c.name),
                        if_not_exists: c.if_not_exists,
                        schema: c.schema.as_ref().map(ident_name),
                        cascade: c.cascade,
                    },
                ))
            }
            A::Statement::DropExtension(d) => Ok(BoundStatement::Extension(
                crate::plan::ExtensionChange::Drop {
                    names: d.names.iter().map(ident_name).collect(),
                    if_exists: d.if_exists,
                    cascade: matches!(d.cascade_or_restrict, Some(A::ReferentialAction::Cascade)),
                },
            )),
            A::Statement::CreateRole(create) => self.bind_create_role(create),
            A::Statement::AlterRole { name, operation } => self.bind_alter_role(name, operation),
            A::Statement::Drop {
                object_type: A::ObjectType::Role | A::ObjectType::User,
                if_exists,
                names,
                ..
            } => Ok(BoundStatement::Role(crate::plan::RoleChange::Drop {
                names: names.iter().map(object_name).collect::<Result<_>>()?,
                if_exists: *if_exists,
            })),
            A::Statement::Drop {
                object_type,
                if_exists,
                names,
                cascade,
                ..
            } => {
                let kind = match object_type {
                    A::ObjectType::Table => RelKind::Table,
                    A::ObjectType::View => RelKind::View,
                    A::ObjectType::Sequence => RelKind::Sequence,
                    A::ObjectType::Index => {
                        let mut bound = Vec::with_capacity(names.len());
                        for n in names {
                            // Not an index: the relation it names, if any (42809).
                            bound.push(match self.index_name(n)? {
                                Some(rel) => rel,
                                None => self.rel_name(n)?,
                            });
                        }
                        let names = bound;
                        return Ok(BoundStatement::DropIndex {
                            names,
                            if_exists: *if_exists,
                        });
                    }
                    A::ObjectType::Type => {
                        return self.bind_drop_type(names, *if_exists, *cascade, false);
                    }
                    A::ObjectType::Schema => {
                        return Ok(BoundStatement::Schema(crate::plan::SchemaChange::Drop {
                            names: names.iter().map(bare_name).collect::<Result<_>>()?,
                            if_exists: *if_exists,
                            cascade: *cascade,
                        }));
                    }
                    other => {
                        return Err(Error::feature_not_supported(format!("DROP {other}")));
                    }
                };
                let mut bound = Vec::with_capacity(names.len());
                for n in names {
                    bound.extend(self.rel_name_if_exists(n, *if_exists)?);
                }
                let names = bound;
                Ok(BoundStatement::DropTable {
                    names,
                    if_exists: *if_exists,
                    kind,
                    cascade: *cascade,
                })
            }
            A::Statement::Comment {
                object_type,
                object_name,
                comment,
                if_exists,
            } => self.bind_comment(*object_type, object_name, comment.clone(), *if_exists),
            A::Statement::Analyze(a) => Ok(BoundStatement::Analyze {
                tables: self.maintained_tables(a.table_name.as_ref())?,
                vacuum: false,
            }),
            A::Statement::Vacuum(v) => Ok(BoundStatement::Analyze {
                tables: self.maintained_tables(v.table_name.as_ref())?,
                vacuum: true,
            }),
            A::Statement::Truncate(t) => {
                let mut tables = Vec::new();
                for target in &t.table_names {
                    let t = self.table(&target.name)?;
                    if t.view.is_some() || t.sequence.is_some() {
                        return Err(Error::new(
                            "42809",
                            format!("\"{}\" is not a table", t.name),
                        ));
                    }
                    self.need(&t, crate::catalog::acl::Privs::TRUNCATE);
                    tables.push(t);
                }
                Ok(BoundStatement::Truncate {
                    tables,
                    restart_identity: matches!(
                        t.identity,
                        Some(A::TruncateIdentityOption::Restart)
                    ),
                    cascade: matches!(t.cascade, Some(A::CascadeOption::Cascade)),
                })
            }
            A::Statement::StartTransaction { modes, .. } => Ok(BoundStatement::Transaction(
                TransactionOp::Begin(utility::transaction_modes(modes)?),
            )),
            A::Statement::Commit { chain: false, .. } => {
                Ok(BoundStatement::Transaction(TransactionOp::Commit))
            }
            A::Statement::Rollback {
                chain: false,
                savepoint: None,
            } => Ok(BoundStatement::Transaction(TransactionOp::Rollback)),
            A::Statement::Rollback {
                chain: false,
                savepoint: Some(name),
            } => Ok(BoundStatement::Transaction(TransactionOp::RollbackTo(
                ident_name(name),
            ))),
            A::Statement::Savepoint { name } => Ok(BoundStatement::Transaction(
                TransactionOp::Savepoint(ident_name(name)),
            )),
            A::Statement::ReleaseSavepoint { name } => Ok(BoundStatement::Transaction(
                TransactionOp::Release(ident_name(name)),
            )),
            A::Statement::Deallocate { name, .. } => {
                let all = name.quote_style.is_none() && name.value.eq_ignore_ascii_case("all");
                Ok(BoundStatement::Deallocate {
                    name: if all { None } else { Some(ident_name(name)) },
                })
            }
            A::Statement::Set(set) => self.bind_set(set),
            A::Statement::ShowVariable { variable } => {
                let words: Vec<String> = variable.iter().map(ident_name).collect();
                let spaced = words.join(" ");
                // Only a few settings have names of several words; others are dotted.
                let name = match spaced.as_str() {
                    "time zone" | "transaction isolation level" | "session authorization" => spaced,
                    _ => words.join("."),
                };
                Ok(BoundStatement::Show { name })
            }
            A::Statement::Reset(r) => match &r.reset {
                A::Reset::ConfigurationParameter(name) => Ok(BoundStatement::Set {
                    name: setting_name(name),
                    value: None,
                    local: false,
                }),
                A::Reset::ALL => Ok(BoundStatement::Discard(crate::plan::Discard::Settings)),
                A::Reset::SessionAuthorization => Ok(BoundStatement::Set {
                    name: "session_authorization".into(),
                    value: None,
                    local: false,
                }),
            },
            A::Statement::Declare { stmts } => self.bind_declare(stmts),
            A::Statement::Prepare {
                name,
                data_types,
                statement,
            } => Ok(BoundStatement::PrepareSql {
                name: ident_name(name),
                statement: Arc::new((**statement).clone()),
                types: data_types
                    .iter()
                    .map(|t| self.resolve_type(t))
                    .collect::<Result<_>>()?,
            }),
            A::Statement::Execute {
                name: Some(name),
                parameters,
                immediate: false,
                into,
                using,
                ..
            } if into.is_empty() && using.is_empty() => {
                let scope = Scope::default();
                let args = parameters
                    .iter()
                    .map(|p| self.bind_expr(p, &scope))
                    .collect::<Result<Vec<_>>>()?;
                Ok(BoundStatement::ExecuteSql {
                    name: object_name(name)?,
                    args,
                })
            }
            A::Statement::LISTEN { channel } => Ok(BoundStatement::Listen {
                channel: Some(ident_name(channel)),
                listen: true,
            }),
            A::Statement::UNLISTEN { channel } => Ok(BoundStatement::Listen {
                channel: (channel.value != "*" || channel.quote_style.is_some())
                    .then(|| ident_name(channel)),
                listen: false,
            }),
            A::Statement::NOTIFY { channel, payload } => {
                let payload = payload.clone().unwrap_or_default();
                if payload.len() > crate::notify::PAYLOAD_MAX {
                    return Err(Error::new("22023", "payload string too long"));
                }
                Ok(BoundStatement::Notify {
                    channel: ident_name(channel),
                    payload,
                })
            }
            A::Statement::Close { cursor } => Ok(BoundStatement::CloseCursor {
                name: match cursor {
                    A::CloseCursor::All => None,
                    A::CloseCursor::Specific { name } => Some(ident_name(name)),
                },
            }),
            A::Statement::Discard { object_type } => {
                Ok(BoundStatement::Discard(match object_type {
                    A::DiscardObject::ALL => crate::plan::Discard::All,
                    A::DiscardObject::PLANS => crate::plan::Discard::Plans,
                    A::DiscardObject::SEQUENCES => crate::plan::Discard::Sequences,
                    A::DiscardObject::TEMP => crate::plan::Discard::Temp,
                }))
            }
            other => {
                let text = other.to_string();
                let head: String = text
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                Err(Error::feature_not_supported(format!("statement {head}")))
            }
        }
    }

    /// The relation `name` (a table or a view), remembered for revalidation.
    /// The tables an ANALYZE or VACUUM names (a view is skipped, as PostgreSQL skips
    /// it with a warning), or every table this snapshot sees.
    fn maintained_tables(&mut self, name: Option<&A::ObjectName>) -> Result<Vec<Arc<TableEntry>>> {
        let tables = match name {
            Some(n) => vec![self.table(n)?],
            None => self
                .catalog
                .all_tables()
                .into_iter()
                .filter(|t| self.catalog.is_current(t, &self.snapshot))
                .collect(),
        };
        Ok(tables.into_iter().filter(|t| t.view.is_none()).collect())
    }

    /// Records that the statement needs `privs` on `table` (checked as it runs).
    pub(super) fn need(&mut self, table: &Arc<TableEntry>, privs: crate::catalog::acl::Privs) {
        let as_role = self.check_as;
        match self
            .access
            .iter_mut()
            .find(|a| Arc::ptr_eq(&a.table, table) && a.as_role == as_role)
        {
            Some(a) => a.privs = a.privs | privs,
            None => self.access.push(crate::catalog::acl::Access {
                table: table.clone(),
                privs,
                as_role,
            }),
        }
    }

    // ----- queries -------------------------------------------------------------------

    /// SELECT … FOR UPDATE / FOR SHARE [NOWAIT | SKIP LOCKED] over one table
    /// (`plan::lock_rows`).
    fn bind_locking_query(&mut self, q: &A::Query) -> Result<BoundStatement> {
        let first = &q.locks[0];
        let word = match first.lock_type {
            A::LockType::Update => "FOR UPDATE",
            A::LockType::Share => "FOR SHARE",
        };
        if let A::SetExpr::Select(s) = q.body.as_ref() {
            if s.distinct.is_some() {
                return Err(Error::new(
                    "0A000",
                    format!("{word} is not allowed with DISTINCT clause"),
                ));
            }
            let grouped = match &s.group_by {
                A::GroupByExpr::Expressions(e, _) => !e.is_empty(),
                A::GroupByExpr::All(_) => true,
            };
            if grouped {
                return Err(Error::new(
                    "0A000",
                    format!("{word} is not allowed with GROUP BY clause"),
                ));
            }
            if s.having.is_some() {
                return Err(Error::new(
                    "0A000",
                    format!("{word} is not allowed with HAVING clause"),
                ));
            }
        } else {
            return Err(Error::new(
                "0A000",
                format!("{word} is not allowed with UNION/INTERSECT/EXCEPT"),
            ));
        }
        let wait = match first.nonblock {
            None => crate::plan::physical::LockWait::Wait,
            Some(A::NonBlock::Nowait) => crate::plan::physical::LockWait::Error,
            Some(A::NonBlock::SkipLocked) => crate::plan::physical::LockWait::Skip,
        };
        let mut plain = q.clone();
        plain.locks.clear();
        let (plan, columns) = self.bind_query(&plain)?;
        let plan = self.finish_plan(plan)?;
        let table = match self.tables.as_slice() {
            [t] if t.view.is_none() && t.sequence.is_none() => t.clone(),
            _ => {
                return Err(Error::feature_not_supported(format!(
                    "{word} over several tables, views or subqueries"
                )));
            }
        };
        let plan = crate::plan::lock_rows::lock_rows(plan, &table, wait, &columns, word)?;
        Ok(BoundStatement::Query {
            plan,
            columns,
            locks: true,
        })
    }
}

/// The INSERT, UPDATE or DELETE a query wraps (`WITH … DELETE …`), when that is all
/// it is.
fn dml_body(q: &A::Query) -> Option<&A::Statement> {
    if q.order_by.is_some() || q.limit_clause.is_some() {
        return None;
    }
    match q.body.as_ref() {
        A::SetExpr::Insert(s)
        | A::SetExpr::Update(s)
        | A::SetExpr::Delete(s)
        | A::SetExpr::Merge(s) => Some(s),
        _ => None,
    }
}
