//! The binder: sqlparser AST → typed expressions and plans.
//!
//! It follows PostgreSQL's analysis step: names resolve against the FROM clause (one
//! table, a table function, or nothing), literals without a type (`'abc'`, `NULL`,
//! parameters without a declared type) take the type their context asks for, operators
//! resolve by PostgreSQL's category rules (`int4 + int8 → int8`, `int + numeric →
//! numeric`, `date + int → date` …), and a SELECT with aggregates or GROUP BY is checked
//! so that every column outside an aggregate is grouped (`42803`).
//!
//! A SELECT becomes, bottom-up:
//! `Scan(filter) → Aggregate → Filter(HAVING) → Project(outputs + hidden sort keys) →
//! Distinct → Sort (top-N with LIMIT) → Limit → Project(drop hidden keys)`.

use std::sync::Arc;

use sqlparser::ast as A;
use sqlparser::ast::Spanned;

use crate::catalog::{Catalog, ColumnDef, TableEntry};
use crate::error::{Error, Result};
use crate::plan::{BoundStatement, OutputColumn, Plan, SortKey, TransactionOp};
use crate::sql::expr::{AggCall, AggFunc, BinaryOp, Expr, Func};
use crate::storage::mvcc::Snapshot;
use crate::types::cast::{self, cast_value};
use crate::types::text::TextFormat;
use crate::types::{DataType, Numeric, SqlType, Value, type_from_ast};

const BOOL: SqlType = SqlType::new(DataType::Bool);
const INT4: SqlType = SqlType::new(DataType::Int4);
const INT8: SqlType = SqlType::new(DataType::Int8);
const FLOAT8: SqlType = SqlType::new(DataType::Float8);
const NUMERIC: SqlType = SqlType::new(DataType::Numeric);
const TEXT: SqlType = SqlType::new(DataType::Text);
const UNKNOWN: SqlType = SqlType::new(DataType::Unknown);

/// Maximum number of parameters in one statement (the protocol's Int16 count).
pub const PARAMS_MAX: usize = 65535;

#[derive(Clone, Debug)]
struct ScopeColumn {
    qualifier: Option<String>,
    name: String,
    ty: SqlType,
}

#[derive(Clone, Debug, Default)]
struct Scope {
    columns: Vec<ScopeColumn>,
}

impl Scope {
    fn resolve(&self, qualifier: Option<&str>, name: &str) -> Result<(usize, SqlType)> {
        let mut found = None;
        for (i, c) in self.columns.iter().enumerate() {
            if c.name == name && (qualifier.is_none() || c.qualifier.as_deref() == qualifier) {
                if found.is_some() {
                    return Err(Error::ambiguous_column(name));
                }
                found = Some((i, c.ty));
            }
        }
        match found {
            Some(f) => Ok(f),
            None => match qualifier {
                Some(q)
                    if !self
                        .columns
                        .iter()
                        .any(|c| c.qualifier.as_deref() == Some(q)) =>
                {
                    Err(Error::new(
                        "42P01",
                        format!("missing FROM-clause entry for table \"{q}\""),
                    ))
                }
                // PostgreSQL quotes a bare name but not a qualified one.
                Some(q) => Err(Error::new(
                    "42703",
                    format!("column {q}.{name} does not exist"),
                )),
                None => Err(Error::undefined_column(name)),
            },
        }
    }
}

/// Folds an identifier as PostgreSQL does: unquoted names are lower-cased.
pub fn ident_name(ident: &A::Ident) -> String {
    if ident.quote_style.is_some() {
        ident.value.clone()
    } else {
        ident.value.to_lowercase()
    }
}

fn object_name(name: &A::ObjectName) -> Result<String> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| match p {
            A::ObjectNamePart::Identifier(i) => Ok(ident_name(i)),
            A::ObjectNamePart::Function(_) => Err(Error::syntax("syntax error in name")),
        })
        .collect::<Result<_>>()?;
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
}

struct SelectParts<'q> {
    select: &'q A::Select,
    order_by: Option<&'q A::OrderBy>,
    limit: Option<&'q A::LimitClause>,
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

    pub fn bind_statement(&mut self, stmt: &A::Statement) -> Result<BoundStatement> {
        let mut bound = self.bind_statement_inner(stmt)?;
        match &mut bound {
            BoundStatement::Query { plan, .. } | BoundStatement::Insert { source: plan, .. } => {
                crate::plan::prune::prune(plan, None)
            }
            BoundStatement::Update { source, .. } => crate::plan::prune::prune(source, None),
            BoundStatement::Delete { table, source } => {
                // A delete reads only its filter's columns and the row ids.
                let mut need = vec![false; table.columns.len() + 1];
                need[table.columns.len()] = true;
                crate::plan::prune::prune(source, Some(need))
            }
            _ => {}
        }
        match &mut bound {
            BoundStatement::Query { plan, .. }
            | BoundStatement::Insert { source: plan, .. }
            | BoundStatement::Update { source: plan, .. }
            | BoundStatement::Delete { source: plan, .. } => {
                crate::plan::fold::fold_plan(plan, self.fmt)?
            }
            _ => {}
        }
        Ok(bound)
    }

    fn bind_statement_inner(&mut self, stmt: &A::Statement) -> Result<BoundStatement> {
        match stmt {
            A::Statement::Query(q) => {
                let (plan, columns) = self.bind_query(q)?;
                Ok(BoundStatement::Query { plan, columns })
            }
            A::Statement::Insert(insert) => self.bind_insert(insert),
            A::Statement::Update(update) => self.bind_update(update),
            A::Statement::Delete(delete) => self.bind_delete(delete),
            A::Statement::CreateTable(ct) => self.bind_create_table(ct),
            A::Statement::Drop {
                object_type,
                if_exists,
                names,
                cascade,
                ..
            } => {
                if *object_type != A::ObjectType::Table {
                    return Err(Error::feature_not_supported(format!("DROP {object_type}")));
                }
                if *cascade {
                    return Err(Error::feature_not_supported("DROP TABLE … CASCADE"));
                }
                let names = names.iter().map(object_name).collect::<Result<_>>()?;
                Ok(BoundStatement::DropTable {
                    names,
                    if_exists: *if_exists,
                })
            }
            A::Statement::Truncate(t) => {
                let mut tables = Vec::new();
                for target in &t.table_names {
                    tables.push(self.table(&target.name)?);
                }
                Ok(BoundStatement::Truncate { tables })
            }
            A::Statement::StartTransaction { .. } => {
                Ok(BoundStatement::Transaction(TransactionOp::Begin))
            }
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
                A::Reset::ALL => Err(Error::feature_not_supported("RESET ALL")),
                A::Reset::SessionAuthorization => {
                    Err(Error::feature_not_supported("RESET SESSION AUTHORIZATION"))
                }
            },
            A::Statement::Discard { .. } => Ok(BoundStatement::NoOp {
                tag: "DISCARD ALL".into(),
            }),
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

    fn bind_set(&mut self, set: &A::Set) -> Result<BoundStatement> {
        match set {
            A::Set::SingleAssignment {
                scope,
                variable,
                values,
                ..
            } => {
                let name = setting_name(variable);
                let local = matches!(scope, Some(A::ContextModifier::Local));
                let value = if values.len() == 1 && is_default_keyword(&values[0]) {
                    None
                } else {
                    Some(
                        values
                            .iter()
                            .map(setting_text)
                            .collect::<Result<Vec<_>>>()?
                            .join(", "),
                    )
                };
                Ok(BoundStatement::Set { name, value, local })
            }
            A::Set::SetTimeZone { local, value } => Ok(BoundStatement::Set {
                name: "timezone".into(),
                value: Some(setting_text(value)?),
                local: *local,
            }),
            A::Set::SetNames { charset_name, .. } => Ok(BoundStatement::Set {
                name: "client_encoding".into(),
                value: Some(charset_name.value.clone()),
                local: false,
            }),
            A::Set::SetTransaction { modes, .. } => {
                for mode in modes {
                    if let A::TransactionMode::IsolationLevel(level) = mode
                        && !matches!(level, A::TransactionIsolationLevel::ReadCommitted)
                    {
                        return Err(Error::feature_not_supported(format!(
                            "isolation level {level}"
                        )));
                    }
                }
                Ok(BoundStatement::NoOp { tag: "SET".into() })
            }
            other => Err(Error::feature_not_supported(format!("statement {other}"))),
        }
    }

    fn table(&mut self, name: &A::ObjectName) -> Result<Arc<TableEntry>> {
        let schema = match name.0.as_slice() {
            [A::ObjectNamePart::Identifier(s), _] => Some(ident_name(s)),
            _ => None,
        };
        if schema.as_deref() == Some("information_schema") {
            return Err(Error::feature_not_supported(format!("system view {name}")));
        }
        let n = object_name(name)?;
        match self.catalog.table(&n, &self.snapshot) {
            Some(t) if schema.as_deref() != Some("pg_catalog") => {
                if !self.tables.iter().any(|seen| Arc::ptr_eq(seen, &t)) {
                    self.tables.push(t.clone());
                }
                Ok(t)
            }
            // PostgreSQL's system catalogs (psql's \d, drivers' metadata) come later.
            _ if schema.as_deref() == Some("pg_catalog") || n.starts_with("pg_") => Err(
                Error::feature_not_supported(format!("system catalog pg_catalog.{n}")),
            ),
            _ => Err(Error::undefined_table(&n)),
        }
    }

    // ----- queries -------------------------------------------------------------------

    pub fn bind_query(&mut self, q: &A::Query) -> Result<(Plan, Vec<OutputColumn>)> {
        if q.with.is_some() {
            return Err(Error::feature_not_supported("WITH queries"));
        }
        if q.fetch.is_some() || !q.locks.is_empty() {
            return Err(Error::feature_not_supported("FETCH and FOR UPDATE clauses"));
        }
        match q.body.as_ref() {
            A::SetExpr::Select(select) => self.bind_select(SelectParts {
                select,
                order_by: q.order_by.as_ref(),
                limit: q.limit_clause.as_ref(),
            }),
            A::SetExpr::Values(values) => {
                let (plan, columns) = self.bind_values(values)?;
                self.finish_plain(plan, columns, q.order_by.as_ref(), q.limit_clause.as_ref())
            }
            A::SetExpr::Query(inner) if q.order_by.is_none() && q.limit_clause.is_none() => {
                self.bind_query(inner)
            }
            A::SetExpr::SetOperation { op, .. } => {
                Err(Error::feature_not_supported(format!("{op}")))
            }
            _ => Err(Error::feature_not_supported("this form of query")),
        }
    }

    fn bind_values(&mut self, values: &A::Values) -> Result<(Plan, Vec<OutputColumn>)> {
        let scope = Scope::default();
        let mut rows: Vec<Vec<Expr>> = Vec::new();
        let width = values.rows.first().map_or(0, |r| r.len());
        for row in &values.rows {
            if row.len() != width {
                return Err(Error::syntax("VALUES lists must all be the same length"));
            }
            let mut bound = Vec::with_capacity(width);
            for e in row.iter() {
                bound.push(self.bind_expr(e, &scope)?);
            }
            rows.push(bound);
        }
        let mut types = Vec::with_capacity(width);
        for col in 0..width {
            let exprs: Vec<&Expr> = rows.iter().map(|r| &r[col]).collect();
            types.push(common_type(&exprs, "VALUES")?);
        }
        for row in rows.iter_mut() {
            for (col, e) in row.iter_mut().enumerate() {
                let taken = std::mem::replace(e, Expr::literal(Value::Null, UNKNOWN));
                *e = self.coerce(taken, types[col])?;
            }
        }
        let columns = (0..width)
            .map(|i| OutputColumn {
                name: format!("column{}", i + 1),
                ty: types[i],
            })
            .collect();
        Ok((Plan::Values { rows, types }, columns))
    }

    /// ORDER BY / LIMIT over a plan whose outputs are plain columns (VALUES).
    fn finish_plain(
        &mut self,
        plan: Plan,
        columns: Vec<OutputColumn>,
        order_by: Option<&A::OrderBy>,
        limit: Option<&A::LimitClause>,
    ) -> Result<(Plan, Vec<OutputColumn>)> {
        let scope = Scope {
            columns: columns
                .iter()
                .map(|c| ScopeColumn {
                    qualifier: None,
                    name: c.name.clone(),
                    ty: c.ty,
                })
                .collect(),
        };
        let mut plan = plan;
        let (limit_expr, offset_expr) = self.bind_limit(limit)?;
        if let Some(ob) = order_by {
            let mut keys = Vec::new();
            for item in order_exprs(ob)? {
                let column = match &item.expr {
                    A::Expr::Value(v) => match &v.value {
                        A::Value::Number(n, _) => position_column(n, columns.len())?,
                        _ => return Err(Error::feature_not_supported("ORDER BY a constant")),
                    },
                    e => match self.bind_expr(e, &scope)? {
                        Expr::Column { index, .. } => index,
                        _ => {
                            return Err(Error::feature_not_supported(
                                "ORDER BY an expression over VALUES",
                            ));
                        }
                    },
                };
                keys.push(sort_key(column, &item.options));
            }
            plan = Plan::Sort {
                input: Box::new(plan),
                keys,
                limit: None,
            };
        }
        if limit_expr.is_some() || offset_expr.is_some() {
            plan = Plan::Limit {
                input: Box::new(plan),
                limit: limit_expr,
                offset: offset_expr,
            };
        }
        Ok((plan, columns))
    }

    fn bind_from(&mut self, from: &[A::TableWithJoins]) -> Result<(Plan, Scope)> {
        match from {
            [] => Ok((
                Plan::Values {
                    rows: vec![vec![]],
                    types: vec![],
                },
                Scope::default(),
            )),
            [twj] if twj.joins.is_empty() => self.bind_table_factor(&twj.relation),
            _ => {
                // Name a missing table first, as PostgreSQL would, then refuse the join.
                for twj in from {
                    self.bind_table_factor(&twj.relation)?;
                    for j in &twj.joins {
                        self.bind_table_factor(&j.relation)?;
                    }
                }
                Err(Error::feature_not_supported(
                    "JOIN and multiple tables in FROM",
                ))
            }
        }
    }

    fn bind_table_factor(&mut self, factor: &A::TableFactor) -> Result<(Plan, Scope)> {
        match factor {
            A::TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => {
                let table = self.table(name)?;
                let qualifier = match alias {
                    Some(a) => {
                        if !a.columns.is_empty() {
                            return Err(Error::feature_not_supported("column aliases in FROM"));
                        }
                        ident_name(&a.name)
                    }
                    None => table.name.clone(),
                };
                let scope = Scope {
                    columns: table
                        .columns
                        .iter()
                        .map(|c| ScopeColumn {
                            qualifier: Some(qualifier.clone()),
                            name: c.name.clone(),
                            ty: c.ty,
                        })
                        .collect(),
                };
                Ok((
                    Plan::Scan {
                        table,
                        filter: None,
                        row_ids: false,
                        needed: None,
                    },
                    scope,
                ))
            }
            A::TableFactor::Table {
                name,
                alias,
                args: Some(args),
                ..
            } => {
                let fname = object_name(name)?;
                if fname != "generate_series" {
                    return Err(Error::undefined_function(format!(
                        "function {fname} does not exist"
                    )));
                }
                let empty = Scope::default();
                let mut bound = Vec::new();
                for a in &args.args {
                    bound.push(self.bind_function_arg(a, &empty)?);
                }
                if !(2..=3).contains(&bound.len()) {
                    return Err(Error::undefined_function(
                        "function generate_series does not exist",
                    ));
                }
                let ty = {
                    let refs: Vec<&Expr> = bound.iter().collect();
                    let t = common_type(&refs, "generate_series")?;
                    match t.ty {
                        DataType::Int2 | DataType::Int4 | DataType::Unknown => INT4,
                        DataType::Int8 => INT8,
                        DataType::Numeric => {
                            return Err(Error::feature_not_supported(
                                "generate_series over numeric",
                            ));
                        }
                        DataType::Timestamp | DataType::Timestamptz => {
                            return Err(Error::feature_not_supported(
                                "generate_series over timestamps",
                            ));
                        }
                        _ => {
                            return Err(Error::undefined_function(format!(
                                "function generate_series({}) does not exist",
                                bound
                                    .iter()
                                    .map(|b| b.ty().display_name())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )));
                        }
                    }
                };
                let args = bound
                    .into_iter()
                    .map(|b| self.coerce(b, ty))
                    .collect::<Result<Vec<_>>>()?;
                let (qualifier, colname) = match alias {
                    Some(a) => {
                        let q = ident_name(&a.name);
                        let c = a
                            .columns
                            .first()
                            .map(|c| ident_name(&c.name))
                            .unwrap_or_else(|| q.clone());
                        (q, c)
                    }
                    None => ("generate_series".to_string(), "generate_series".to_string()),
                };
                let scope = Scope {
                    columns: vec![ScopeColumn {
                        qualifier: Some(qualifier),
                        name: colname,
                        ty,
                    }],
                };
                Ok((Plan::GenerateSeries { args, ty }, scope))
            }
            A::TableFactor::Derived { .. } => {
                Err(Error::feature_not_supported("subqueries in FROM"))
            }
            A::TableFactor::NestedJoin { .. } => Err(Error::feature_not_supported("JOIN")),
            _ => Err(Error::feature_not_supported("this FROM item")),
        }
    }

    fn bind_where(&mut self, selection: Option<&A::Expr>, scope: &Scope) -> Result<Option<Expr>> {
        let Some(e) = selection else { return Ok(None) };
        let bound = self.bind_expr(e, scope)?;
        let checked = self.require_bool(bound, "WHERE");
        Ok(Some(checked.map_err(|err| self.locate(err, e))?))
    }

    fn require_bool(&mut self, e: Expr, clause: &str) -> Result<Expr> {
        match e.ty().ty {
            DataType::Bool => Ok(e),
            DataType::Unknown => self.coerce(e, BOOL),
            other => Err(Error::datatype_mismatch(format!(
                "argument of {clause} must be type boolean, not type {}",
                other.name()
            ))),
        }
    }

    fn bind_select(&mut self, parts: SelectParts) -> Result<(Plan, Vec<OutputColumn>)> {
        let s = parts.select;
        if s.into.is_some() {
            return Err(Error::feature_not_supported("SELECT INTO"));
        }
        if !s.named_window.is_empty() || s.qualify.is_some() {
            return Err(Error::feature_not_supported("window clauses"));
        }
        let (mut plan, scope) = self.bind_from(&s.from)?;

        // The select list, expanded.
        let mut items: Vec<(Option<&A::Expr>, String, Option<usize>)> = Vec::new();
        for item in &s.projection {
            match item {
                A::SelectItem::UnnamedExpr(e) => items.push((Some(e), derive_name(e), None)),
                A::SelectItem::ExprWithAlias { expr, alias } => {
                    items.push((Some(expr), ident_name(alias), None))
                }
                A::SelectItem::Wildcard(_) => {
                    if scope.columns.is_empty() {
                        return Err(Error::syntax(
                            "SELECT * with no tables specified is not valid",
                        ));
                    }
                    for (i, c) in scope.columns.iter().enumerate() {
                        items.push((None, c.name.clone(), Some(i)));
                    }
                }
                A::SelectItem::QualifiedWildcard(kind, _) => {
                    let q = match kind {
                        A::SelectItemQualifiedWildcardKind::ObjectName(n) => object_name(n)?,
                        A::SelectItemQualifiedWildcardKind::Expr(_) => {
                            return Err(Error::feature_not_supported("this wildcard"));
                        }
                    };
                    let before = items.len();
                    for (i, c) in scope.columns.iter().enumerate() {
                        if c.qualifier.as_deref() == Some(q.as_str()) {
                            items.push((None, c.name.clone(), Some(i)));
                        }
                    }
                    if items.len() == before {
                        return Err(Error::new(
                            "42P01",
                            format!("missing FROM-clause entry for table \"{q}\""),
                        ));
                    }
                }
                A::SelectItem::ExprWithAliases { .. } => {
                    return Err(Error::feature_not_supported("multiple aliases"));
                }
            }
        }

        let group_exprs: Vec<&A::Expr> = match &s.group_by {
            A::GroupByExpr::Expressions(exprs, mods) => {
                if !mods.is_empty() {
                    return Err(Error::feature_not_supported("GROUP BY modifiers"));
                }
                exprs.iter().collect()
            }
            A::GroupByExpr::All(_) => return Err(Error::feature_not_supported("GROUP BY ALL")),
        };

        // Bind select items, HAVING and ORDER BY with aggregates allowed; decide afterwards
        // whether this is an aggregate query.
        self.aggs.clear();
        self.agg_allowed = true;
        let mut outputs: Vec<Expr> = Vec::with_capacity(items.len());
        let mut columns: Vec<OutputColumn> = Vec::with_capacity(items.len());
        for (ast, name, wildcard) in &items {
            let e = match (ast, wildcard) {
                (_, Some(i)) => {
                    let c = &scope.columns[*i];
                    Expr::Column {
                        index: *i,
                        ty: c.ty,
                        name: c.name.clone(),
                    }
                }
                (Some(a), None) => self.bind_expr(a, &scope)?,
                (None, None) => return Err(Error::internal("select item without expression")),
            };
            let e = if e.ty().ty == DataType::Unknown {
                self.coerce(e, TEXT)?
            } else {
                e
            };
            columns.push(OutputColumn {
                name: name.clone(),
                ty: e.ty(),
            });
            outputs.push(e);
        }
        // WHERE after the select list, in PostgreSQL's order (transformSelectStmt), so
        // the first error reported is the same.
        self.agg_allowed = false;
        let filter = self.bind_where(s.selection.as_ref(), &scope)?;
        self.agg_allowed = true;
        if let Some(f) = &filter
            && f.any(&|e| matches!(e, Expr::Agg { .. }))
        {
            return Err(Error::grouping(
                "aggregate functions are not allowed in WHERE",
            ));
        }
        plan = push_filter(plan, filter);
        let having = match &s.having {
            Some(h) => {
                let b = self.bind_expr(h, &scope)?;
                let checked = self.require_bool(b, "HAVING");
                Some(checked.map_err(|err| self.locate(err, h))?)
            }
            None => None,
        };
        // ORDER BY items: output position, output name, or an expression.
        let mut order_items: Vec<(OrderTarget, A::OrderByOptions)> = Vec::new();
        if let Some(ob) = parts.order_by {
            for item in order_exprs(ob)? {
                let target = match &item.expr {
                    A::Expr::Value(v) if matches!(v.value, A::Value::Number(..)) => {
                        let A::Value::Number(n, _) = &v.value else {
                            unreachable!()
                        };
                        OrderTarget::Output(position_column(n, outputs.len())?)
                    }
                    A::Expr::Identifier(id)
                        if output_name_match(&columns, &ident_name(id)).is_some() =>
                    {
                        let name = ident_name(id);
                        // PostgreSQL prefers the output column name in ORDER BY.
                        match output_name_match(&columns, &name) {
                            Some(Ok(i)) => OrderTarget::Output(i),
                            _ => {
                                return Err(Error::new(
                                    "42702",
                                    format!("ORDER BY \"{name}\" is ambiguous"),
                                ));
                            }
                        }
                    }
                    e => OrderTarget::Expr(self.bind_expr(e, &scope)?),
                };
                order_items.push((target, item.options.clone()));
            }
        }
        self.agg_allowed = false;

        let is_aggregate = !group_exprs.is_empty() || !self.aggs.is_empty() || having.is_some();
        if is_aggregate {
            let mut group_by = Vec::with_capacity(group_exprs.len());
            for g in &group_exprs {
                let bound = match g {
                    A::Expr::Value(v) if matches!(v.value, A::Value::Number(..)) => {
                        let A::Value::Number(n, _) = &v.value else {
                            unreachable!()
                        };
                        let i = position_column_named(n, outputs.len(), "GROUP BY")?;
                        let e = outputs[i].clone();
                        if e.any(&|x| matches!(x, Expr::Agg { .. })) {
                            return Err(Error::grouping(
                                "aggregate functions are not allowed in GROUP BY",
                            ));
                        }
                        e
                    }
                    A::Expr::Identifier(id) => {
                        let name = ident_name(id);
                        match scope.resolve(None, &name) {
                            Ok((i, ty)) => Expr::Column { index: i, ty, name },
                            Err(err) => match output_name_match(&columns, &name) {
                                Some(Ok(i)) => outputs[i].clone(),
                                _ => return Err(err),
                            },
                        }
                    }
                    e => {
                        self.agg_allowed = false;
                        self.bind_expr(e, &scope)?
                    }
                };
                group_by.push(bound);
            }
            let aggs = std::mem::take(&mut self.aggs);
            let ngroups = group_by.len();
            for e in outputs.iter_mut() {
                *e = rewrite_grouped(e.clone(), &group_by, ngroups, &scope)?;
            }
            let having = having
                .map(|h| rewrite_grouped(h, &group_by, ngroups, &scope))
                .transpose()?;
            for (target, _) in order_items.iter_mut() {
                if let OrderTarget::Expr(e) = target {
                    *e = rewrite_grouped(e.clone(), &group_by, ngroups, &scope)?;
                }
            }
            plan = Plan::Aggregate {
                input: Box::new(plan),
                group_by,
                aggs,
            };
            if let Some(h) = having {
                plan = Plan::Filter {
                    input: Box::new(plan),
                    predicate: h,
                };
            }
        } else {
            self.aggs.clear();
        }

        // Projection with hidden sort keys.
        let visible = outputs.len();
        let mut keys = Vec::new();
        let mut project = outputs;
        for (target, options) in order_items {
            let column = match target {
                OrderTarget::Output(i) => i,
                OrderTarget::Expr(e) => match project.iter().position(|p| *p == e) {
                    Some(i) => i,
                    None => {
                        if s.distinct.is_some() {
                            return Err(Error::new(
                                "42P10",
                                "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                            ));
                        }
                        project.push(e);
                        project.len() - 1
                    }
                },
            };
            keys.push(sort_key(column, &options));
        }
        let input_width = plan_width(&plan);
        let identity = project.len() == input_width
            && project
                .iter()
                .enumerate()
                .all(|(i, e)| matches!(e, Expr::Column { index, .. } if *index == i));
        if !identity {
            plan = Plan::Project {
                input: Box::new(plan),
                exprs: project.clone(),
            };
        }
        match &s.distinct {
            None | Some(A::Distinct::All) => {}
            Some(A::Distinct::Distinct) => {
                plan = Plan::Distinct {
                    input: Box::new(plan),
                }
            }
            Some(A::Distinct::On(_)) => return Err(Error::feature_not_supported("DISTINCT ON")),
        }
        let (limit, offset) = self.bind_limit(parts.limit)?;
        if !keys.is_empty() {
            // A top-N sort keeps limit + offset rows.
            let top = match (&limit, &offset) {
                (Some(l), None) => Some(l.clone()),
                (Some(l), Some(o)) => Some(Expr::Binary {
                    op: BinaryOp::Add,
                    left: Box::new(l.clone()),
                    right: Box::new(o.clone()),
                    ty: INT8,
                }),
                _ => None,
            };
            plan = Plan::Sort {
                input: Box::new(plan),
                keys,
                limit: top,
            };
        }
        if limit.is_some() || offset.is_some() {
            plan = Plan::Limit {
                input: Box::new(plan),
                limit,
                offset,
            };
        }
        if project.len() > visible {
            let exprs = (0..visible)
                .map(|i| Expr::Column {
                    index: i,
                    ty: project[i].ty(),
                    name: columns[i].name.clone(),
                })
                .collect();
            plan = Plan::Project {
                input: Box::new(plan),
                exprs,
            };
        }
        Ok((plan, columns))
    }

    fn bind_limit(
        &mut self,
        limit: Option<&A::LimitClause>,
    ) -> Result<(Option<Expr>, Option<Expr>)> {
        let Some(clause) = limit else {
            return Ok((None, None));
        };
        let scope = Scope::default();
        let (l, o) = match clause {
            A::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            } => {
                if !limit_by.is_empty() {
                    return Err(Error::feature_not_supported("LIMIT BY"));
                }
                (limit.as_ref(), offset.as_ref().map(|o| &o.value))
            }
            A::LimitClause::OffsetCommaLimit { .. } => {
                return Err(Error::syntax("LIMIT #,# syntax is not supported"));
            }
        };
        let mut bind = |e: Option<&A::Expr>| -> Result<Option<Expr>> {
            match e {
                None => Ok(None),
                Some(A::Expr::Value(v)) if matches!(v.value, A::Value::Null) => Ok(None),
                Some(e) => {
                    let b = self.bind_expr(e, &scope)?;
                    if b.any(&|x| matches!(x, Expr::Column { .. })) {
                        return Err(Error::new(
                            "42P10",
                            "argument of LIMIT must not contain variables",
                        ));
                    }
                    let coerced = self.coerce_assign(b, INT8, "LIMIT");
                    Ok(Some(coerced.map_err(|err| self.locate(err, e))?))
                }
            }
        };
        Ok((bind(l)?, bind(o)?))
    }

    // ----- DML -----------------------------------------------------------------------

    fn bind_insert(&mut self, insert: &A::Insert) -> Result<BoundStatement> {
        if insert.on.is_some() {
            return Err(Error::feature_not_supported("INSERT … ON CONFLICT"));
        }
        if insert.returning.is_some() {
            return Err(Error::feature_not_supported("RETURNING"));
        }
        let name = match &insert.table {
            A::TableObject::TableName(n) => n,
            A::TableObject::TableFunction(_) | A::TableObject::TableQuery(_) => {
                return Err(Error::feature_not_supported("INSERT into this target"));
            }
        };
        let table = self.table(name)?;
        // Target columns, in the order the statement lists them.
        let targets: Vec<usize> = if insert.columns.is_empty() {
            (0..table.columns.len()).collect()
        } else {
            let mut t = Vec::new();
            for c in &insert.columns {
                let cname = object_name(c)?;
                let i = table.column_index(&cname).ok_or_else(|| {
                    Error::undefined_column(&cname)
                        .with_detail(String::new())
                        .clone()
                });
                let i = i.map_err(|_| {
                    Error::new(
                        "42703",
                        format!(
                            "column \"{cname}\" of relation \"{}\" does not exist",
                            table.name
                        ),
                    )
                })?;
                if t.contains(&i) {
                    return Err(Error::new(
                        "42701",
                        format!("column \"{cname}\" specified more than once"),
                    ));
                }
                t.push(i);
            }
            t
        };
        let Some(source) = &insert.source else {
            // INSERT … DEFAULT VALUES
            let row = (0..table.columns.len())
                .map(|i| self.default_expr(&table, i))
                .collect::<Result<Vec<_>>>()?;
            let types = table.columns.iter().map(|c| c.ty).collect();
            return Ok(BoundStatement::Insert {
                table,
                source: Plan::Values {
                    rows: vec![row],
                    types,
                },
            });
        };
        let plan = match source.body.as_ref() {
            A::SetExpr::Values(values)
                if source.order_by.is_none() && source.limit_clause.is_none() =>
            {
                let scope = Scope::default();
                let width = values.rows.first().map_or(0, |r| r.len());
                if let Some(row) = values.rows.iter().find(|r| r.len() != width) {
                    let err = Error::syntax("VALUES lists must all be the same length");
                    return Err(match row.first() {
                        Some(first) => self.with_location(err, first.span().start),
                        None => err,
                    });
                }
                // Without a column list, the values fill the first columns (PostgreSQL's
                // transformInsertStmt); the rest take their defaults.
                let targets = if insert.columns.is_empty() {
                    &targets[..width.min(targets.len())]
                } else {
                    &targets[..]
                };
                let mut rows = Vec::with_capacity(values.rows.len());
                for row in &values.rows {
                    if row.len() > targets.len() {
                        let err = Error::syntax("INSERT has more expressions than target columns");
                        return Err(self.with_location(err, row[targets.len()].span().start));
                    }
                    if row.len() < targets.len() {
                        return Err(Error::syntax(
                            "INSERT has more target columns than expressions",
                        ));
                    }
                    let mut out: Vec<Option<Expr>> = vec![None; table.columns.len()];
                    for (e, &col) in row.iter().zip(targets) {
                        let bound = if is_default_keyword(e) {
                            self.default_expr(&table, col)?
                        } else {
                            let b = self.bind_expr(e, &scope)?;
                            let coerced = self.coerce_column(b, &table.columns[col]);
                            coerced.map_err(|err| self.locate(err, e))?
                        };
                        out[col] = Some(bound);
                    }
                    let full = out
                        .into_iter()
                        .enumerate()
                        .map(|(i, e)| match e {
                            Some(e) => Ok(e),
                            None => self.default_expr(&table, i),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    rows.push(full);
                }
                let types = table.columns.iter().map(|c| c.ty).collect();
                Plan::Values { rows, types }
            }
            _ => {
                let (plan, cols) = self.bind_query(source)?;
                let targets = if insert.columns.is_empty() {
                    &targets[..cols.len().min(targets.len())]
                } else {
                    &targets[..]
                };
                if cols.len() > targets.len() {
                    return Err(Error::syntax(
                        "INSERT has more expressions than target columns",
                    ));
                }
                if cols.len() < targets.len() {
                    return Err(Error::syntax(
                        "INSERT has more target columns than expressions",
                    ));
                }
                let mut exprs = Vec::with_capacity(table.columns.len());
                for i in 0..table.columns.len() {
                    match targets.iter().position(|&t| t == i) {
                        Some(k) => {
                            let col = Expr::Column {
                                index: k,
                                ty: cols[k].ty,
                                name: cols[k].name.clone(),
                            };
                            exprs.push(self.coerce_column(col, &table.columns[i])?);
                        }
                        None => exprs.push(self.default_expr(&table, i)?),
                    }
                }
                Plan::Project {
                    input: Box::new(plan),
                    exprs,
                }
            }
        };
        Ok(BoundStatement::Insert {
            table,
            source: plan,
        })
    }

    fn default_expr(&self, table: &TableEntry, column: usize) -> Result<Expr> {
        let c = &table.columns[column];
        Ok(c.default.clone().unwrap_or(Expr::Literal {
            value: Value::Null,
            ty: c.ty,
        }))
    }

    fn coerce_column(&mut self, e: Expr, column: &ColumnDef) -> Result<Expr> {
        let from = e.ty();
        if from.ty != DataType::Unknown && !cast::is_assignable(from.ty, column.ty.ty) {
            return Err(Error::datatype_mismatch(format!(
                "column \"{}\" is of type {} but expression is of type {}",
                column.name,
                column.ty.display_name(),
                from.display_name()
            ))
            .with_hint("You will need to rewrite or cast the expression."));
        }
        self.coerce_with(e, column.ty, false)
    }

    fn coerce_assign(&mut self, e: Expr, to: SqlType, what: &str) -> Result<Expr> {
        let from = e.ty();
        if from.ty != DataType::Unknown && !cast::is_assignable(from.ty, to.ty) {
            return Err(Error::datatype_mismatch(format!(
                "argument of {what} must be type {}, not type {}",
                to.display_name(),
                from.display_name()
            )));
        }
        self.coerce_with(e, to, false)
    }

    fn bind_update(&mut self, update: &A::Update) -> Result<BoundStatement> {
        if update.from.is_some() {
            return Err(Error::feature_not_supported("UPDATE … FROM"));
        }
        if update.returning.is_some() {
            return Err(Error::feature_not_supported("RETURNING"));
        }
        if !update.table.joins.is_empty() {
            return Err(Error::feature_not_supported("JOIN in UPDATE"));
        }
        let (plan, scope) = self.bind_table_factor(&update.table.relation)?;
        let Plan::Scan { table, .. } = plan else {
            return Err(Error::feature_not_supported("UPDATE of this relation"));
        };
        let filter = self.bind_where(update.selection.as_ref(), &scope)?;
        let mut new_row: Vec<Expr> = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| Expr::Column {
                index: i,
                ty: c.ty,
                name: c.name.clone(),
            })
            .collect();
        let mut assigned = vec![false; table.columns.len()];
        for a in &update.assignments {
            let names = match &a.target {
                A::AssignmentTarget::ColumnName(n) => n,
                A::AssignmentTarget::Tuple(_) => {
                    return Err(Error::feature_not_supported("multi-column SET"));
                }
            };
            let cname = match names.0.last() {
                Some(A::ObjectNamePart::Identifier(i)) => ident_name(i),
                _ => return Err(Error::syntax("syntax error in SET")),
            };
            let i = table.column_index(&cname).ok_or_else(|| {
                Error::new(
                    "42703",
                    format!(
                        "column \"{cname}\" of relation \"{}\" does not exist",
                        table.name
                    ),
                )
            })?;
            if assigned[i] {
                return Err(Error::new(
                    "42601",
                    format!("multiple assignments to same column \"{cname}\""),
                ));
            }
            assigned[i] = true;
            let value = if is_default_keyword(&a.value) {
                self.default_expr(&table, i)?
            } else {
                let b = self.bind_expr(&a.value, &scope)?;
                let coerced = self.coerce_column(b, &table.columns[i]);
                coerced.map_err(|err| self.locate(err, &a.value))?
            };
            new_row[i] = value;
        }
        let row_id = Expr::Column {
            index: table.columns.len(),
            ty: INT8,
            name: "ctid".into(),
        };
        new_row.push(row_id);
        let scan = Plan::Scan {
            table: table.clone(),
            filter,
            row_ids: true,
            needed: None,
        };
        let source = Plan::Project {
            input: Box::new(scan),
            exprs: new_row,
        };
        Ok(BoundStatement::Update { table, source })
    }

    fn bind_delete(&mut self, delete: &A::Delete) -> Result<BoundStatement> {
        if delete.returning.is_some() {
            return Err(Error::feature_not_supported("RETURNING"));
        }
        if delete.using.is_some() {
            return Err(Error::feature_not_supported("DELETE … USING"));
        }
        let from = match &delete.from {
            A::FromTable::WithFromKeyword(f) | A::FromTable::WithoutKeyword(f) => f,
        };
        let [twj] = from.as_slice() else {
            return Err(Error::feature_not_supported("DELETE from several tables"));
        };
        if !twj.joins.is_empty() {
            return Err(Error::feature_not_supported("JOIN in DELETE"));
        }
        let (plan, scope) = self.bind_table_factor(&twj.relation)?;
        let Plan::Scan { table, .. } = plan else {
            return Err(Error::feature_not_supported("DELETE from this relation"));
        };
        let filter = self.bind_where(delete.selection.as_ref(), &scope)?;
        let source = Plan::Scan {
            table: table.clone(),
            filter,
            row_ids: true,
            needed: None,
        };
        Ok(BoundStatement::Delete { table, source })
    }

    // ----- DDL -----------------------------------------------------------------------

    fn bind_create_table(&mut self, ct: &A::CreateTable) -> Result<BoundStatement> {
        if ct.query.is_some() {
            return Err(Error::feature_not_supported("CREATE TABLE … AS"));
        }
        if !ct.constraints.is_empty() {
            return Err(Error::feature_not_supported("table constraints"));
        }
        let name = object_name(&ct.name)?;
        if ct.columns.is_empty() {
            return Err(Error::feature_not_supported("tables without columns"));
        }
        let mut columns: Vec<ColumnDef> = Vec::new();
        for c in &ct.columns {
            let cname = ident_name(&c.name);
            if columns.iter().any(|x| x.name == cname) {
                return Err(Error::new(
                    "42701",
                    format!("column \"{cname}\" specified more than once"),
                ));
            }
            let ty = type_from_ast(&c.data_type)?;
            let mut def = ColumnDef {
                name: cname,
                ty,
                not_null: false,
                default: None,
            };
            for opt in &c.options {
                match &opt.option {
                    A::ColumnOption::Null => def.not_null = false,
                    A::ColumnOption::NotNull => def.not_null = true,
                    A::ColumnOption::Default(e) => {
                        let b = self.bind_expr(e, &Scope::default())?;
                        if b.any(&|x| matches!(x, Expr::Column { .. })) {
                            return Err(Error::new(
                                "0A000",
                                "cannot use column reference in DEFAULT expression",
                            ));
                        }
                        def.default = Some(self.coerce_column(b, &def)?);
                    }
                    other => {
                        return Err(Error::feature_not_supported(format!(
                            "column option {other}"
                        )));
                    }
                }
            }
            columns.push(def);
        }
        Ok(BoundStatement::CreateTable {
            name,
            columns,
            if_not_exists: ct.if_not_exists,
        })
    }

    // ----- expressions ---------------------------------------------------------------

    fn bind_function_arg(&mut self, arg: &A::FunctionArg, scope: &Scope) -> Result<Expr> {
        match arg {
            A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(e)) => self.bind_expr(e, scope),
            _ => Err(Error::feature_not_supported("this function argument")),
        }
    }

    fn bind_expr(&mut self, e: &A::Expr, scope: &Scope) -> Result<Expr> {
        if self.depth >= crate::sql::parse::EXPRESSION_DEPTH_MAX {
            return Err(Error::new("54001", "stack depth limit exceeded"));
        }
        self.depth += 1;
        let result = self.bind_expr_inner(e, scope);
        self.depth -= 1;
        result.map_err(|err| self.locate(err, e))
    }

    /// Gives an error raised while binding `e` the cursor position PostgreSQL reports:
    /// the innermost expression that failed (its start), except that a bad literal is
    /// pointed at itself and a missing operator at the operator.
    fn locate(&self, err: Error, e: &A::Expr) -> Error {
        if err.position.is_some() || matches!(err.code, "54001" | "XX000") {
            return err;
        }
        let literal_error = matches!(
            err.code,
            "22P02" | "22007" | "22008" | "22003" | "22001" | "22021" | "22015"
        );
        if literal_error && let Some(bad) = err.message.split('"').nth(1) {
            let mut found = None;
            for child in direct_operands(e) {
                if found.is_none()
                    && let A::Expr::Value(v) = strip_nested(child)
                    && literal_text(&v.value) == Some(bad)
                {
                    found = Some(v.span.start);
                }
            }
            if let Some(at) = found {
                return self.with_location(err, at);
            }
        }
        let left_operand = match e {
            A::Expr::BinaryOp { left, .. } => Some(left),
            A::Expr::Like { expr, .. } | A::Expr::ILike { expr, .. } => Some(expr),
            _ => None,
        };
        if (err.code == "42883" && err.message.starts_with("operator does not exist")
            || err.code == "42725" && err.message.starts_with("operator is not unique"))
            && let Some(left) = left_operand
            && let Some(at) = self.operator_position(left.span().end)
        {
            return err.with_position(at);
        }
        // A prefix operator's span starts at its operand; PostgreSQL points at the
        // operator, the first non-blank character before it.
        if matches!(err.code, "42883" | "42725")
            && let A::Expr::UnaryOp { expr, .. } = e
            && let Some(operand) = char_position(self.text, expr.span().start)
        {
            let before: Vec<char> = self
                .text
                .chars()
                .take(operand.saturating_sub(1) as usize)
                .collect();
            let blanks = before
                .iter()
                .rev()
                .take_while(|c| c.is_whitespace())
                .count();
            return err.with_position(operand.saturating_sub(blanks as u32 + 1).max(1));
        }
        self.with_location(err, e.span().start)
    }

    /// The character position of the first operator character after `after` (the end
    /// of a binary operator's left operand).
    fn operator_position(&self, after: sqlparser::tokenizer::Location) -> Option<u32> {
        let start = char_position(self.text, after)? as usize;
        // `start` is 1-based and points at the operand's last character's successor.
        let skip = self
            .text
            .chars()
            .skip(start.saturating_sub(1))
            .take_while(|c| c.is_whitespace() || *c == ')')
            .count();
        Some((start + skip) as u32)
    }

    fn with_location(&self, err: Error, at: sqlparser::tokenizer::Location) -> Error {
        match char_position(self.text, at) {
            Some(p) => err.with_position(p),
            None => err,
        }
    }

    fn bind_expr_inner(&mut self, e: &A::Expr, scope: &Scope) -> Result<Expr> {
        match e {
            A::Expr::Identifier(id) => {
                let name = ident_name(id);
                let (index, ty) = scope
                    .resolve(None, &name)
                    .map_err(|err| self.with_span(err, id.span))?;
                Ok(Expr::Column { index, ty, name })
            }
            A::Expr::CompoundIdentifier(ids) => {
                let names: Vec<String> = ids.iter().map(ident_name).collect();
                let (q, n) = match names.as_slice() {
                    [q, n] => (q.clone(), n.clone()),
                    [_, q, n] => (q.clone(), n.clone()),
                    _ => return Err(Error::feature_not_supported("this column reference")),
                };
                let span = ids.first().map(|i| i.span);
                let (index, ty) = scope.resolve(Some(&q), &n).map_err(|err| match span {
                    Some(s) => self.with_span(err, s),
                    None => err,
                })?;
                Ok(Expr::Column { index, ty, name: n })
            }
            A::Expr::Value(v) => self.bind_value(&v.value),
            A::Expr::Nested(inner) => self.bind_expr(inner, scope),
            A::Expr::UnaryOp { op, expr } => self.bind_unary(*op, expr, scope),
            A::Expr::BinaryOp { .. } => self.bind_binary_chain(e, scope),
            A::Expr::IsNull(x) => Ok(Expr::IsNull {
                expr: Box::new(self.bind_expr(x, scope)?),
                negated: false,
            }),
            A::Expr::IsNotNull(x) => Ok(Expr::IsNull {
                expr: Box::new(self.bind_expr(x, scope)?),
                negated: true,
            }),
            A::Expr::IsTrue(x) => self.bind_is_bool(x, true, false, scope),
            A::Expr::IsNotTrue(x) => self.bind_is_bool(x, true, true, scope),
            A::Expr::IsFalse(x) => self.bind_is_bool(x, false, false, scope),
            A::Expr::IsNotFalse(x) => self.bind_is_bool(x, false, true, scope),
            A::Expr::IsUnknown(x) => {
                let b = self.bind_expr(x, scope)?;
                let b = self.require_bool(b, "IS UNKNOWN")?;
                Ok(Expr::IsNull {
                    expr: Box::new(b),
                    negated: false,
                })
            }
            A::Expr::IsNotUnknown(x) => {
                let b = self.bind_expr(x, scope)?;
                let b = self.require_bool(b, "IS NOT UNKNOWN")?;
                Ok(Expr::IsNull {
                    expr: Box::new(b),
                    negated: true,
                })
            }
            A::Expr::IsDistinctFrom(l, r) | A::Expr::IsNotDistinctFrom(l, r) => {
                let negated = matches!(e, A::Expr::IsNotDistinctFrom(..));
                let l = self.bind_expr(l, scope)?;
                let r = self.bind_expr(r, scope)?;
                let (l, r) = self.unify_comparison(l, r, BinaryOp::Eq)?;
                Ok(Expr::IsDistinct {
                    left: Box::new(l),
                    right: Box::new(r),
                    negated,
                })
            }
            A::Expr::InList {
                expr,
                list,
                negated,
            } => {
                let x = self.bind_expr(expr, scope)?;
                let mut items = Vec::with_capacity(list.len());
                for item in list {
                    items.push(self.bind_expr(item, scope)?);
                }
                self.bind_in_list(x, items, *negated)
            }
            A::Expr::InSubquery { .. } | A::Expr::Exists { .. } | A::Expr::Subquery(_) => {
                Err(Error::feature_not_supported("subqueries"))
            }
            A::Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.bind_expr(expr, scope)?;
                let lo = self.bind_expr(low, scope)?;
                let hi = self.bind_expr(high, scope)?;
                let (ge, le) = if *negated {
                    (BinaryOp::Lt, BinaryOp::Gt)
                } else {
                    (BinaryOp::GtEq, BinaryOp::LtEq)
                };
                let a = self.bind_binary(ge, x.clone(), lo)?;
                let b = self.bind_binary(le, x, hi)?;
                Ok(if *negated {
                    Expr::Or(vec![a, b])
                } else {
                    Expr::And(vec![a, b])
                })
            }
            A::Expr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            } => self.bind_like(expr, pattern, *negated, false, scope),
            A::Expr::ILike {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            } => self.bind_like(expr, pattern, *negated, true, scope),
            A::Expr::Like { .. } | A::Expr::ILike { .. } => {
                Err(Error::feature_not_supported("LIKE with ESCAPE or ANY"))
            }
            A::Expr::Cast {
                kind,
                expr,
                data_type,
                format: None,
            } => {
                if matches!(kind, A::CastKind::TryCast | A::CastKind::SafeCast) {
                    return Err(Error::feature_not_supported("TRY_CAST"));
                }
                let to = type_from_ast(data_type)?;
                let inner = self.bind_expr(expr, scope)?;
                self.explicit_cast(inner, to)
            }
            A::Expr::TypedString(ts) => {
                let to = type_from_ast(&ts.data_type)?;
                let text = match &ts.value.value {
                    A::Value::SingleQuotedString(s) => s.clone(),
                    other => {
                        return Err(Error::syntax(format!(
                            "syntax error at or near \"{other}\""
                        )));
                    }
                };
                self.explicit_cast(Expr::literal(Value::Text(text), UNKNOWN), to)
            }
            A::Expr::Interval(iv) => {
                if iv.leading_field.is_some() || iv.last_field.is_some() {
                    return Err(Error::feature_not_supported("INTERVAL field qualifiers"));
                }
                let inner = self.bind_expr(&iv.value, scope)?;
                self.explicit_cast(inner, SqlType::new(DataType::Interval))
            }
            A::Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.bind_case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                scope,
            ),
            A::Expr::Function(f) => self.bind_function(f, scope),
            A::Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.bind_expr(expr, scope)?];
                args.push(match substring_from {
                    Some(f) => self.bind_expr(f, scope)?,
                    None => Expr::literal(Value::Int4(1), INT4),
                });
                if let Some(f) = substring_for {
                    args.push(self.bind_expr(f, scope)?);
                }
                self.bind_scalar_function("substring", args)
            }
            A::Expr::Extract { field, expr, .. } => {
                // PostgreSQL reads the field as an identifier, lower-cased.
                let unit = Expr::literal(Value::Text(field.to_string().to_lowercase()), TEXT);
                let source = self.bind_expr(expr, scope)?;
                self.bind_datetime_function("extract", vec![unit, source])
            }
            A::Expr::AtTimeZone {
                timestamp,
                time_zone,
            } => {
                let ts = self.bind_expr(timestamp, scope)?;
                let zone = self.bind_expr(time_zone, scope)?;
                self.bind_datetime_function("timezone", vec![zone, ts])
            }
            A::Expr::Position { expr, r#in } => {
                let needle = self.bind_expr(expr, scope)?;
                let hay = self.bind_expr(r#in, scope)?;
                self.bind_scalar_function("strpos", vec![hay, needle])
            }
            A::Expr::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return Err(Error::feature_not_supported("TRIM with a character list"));
                }
                let mut args = vec![self.bind_expr(expr, scope)?];
                if let Some(w) = trim_what {
                    args.push(self.bind_expr(w, scope)?);
                }
                let name = match trim_where {
                    Some(A::TrimWhereField::Leading) => "ltrim",
                    Some(A::TrimWhereField::Trailing) => "rtrim",
                    _ => "btrim",
                };
                self.bind_scalar_function(name, args)
            }
            A::Expr::Ceil { expr, field } | A::Expr::Floor { expr, field } => {
                if !matches!(
                    field,
                    A::CeilFloorKind::DateTimeField(A::DateTimeField::NoDateTime)
                ) {
                    return Err(Error::feature_not_supported("CEIL/FLOOR TO"));
                }
                let name = if matches!(e, A::Expr::Ceil { .. }) {
                    "ceil"
                } else {
                    "floor"
                };
                let arg = self.bind_expr(expr, scope)?;
                self.bind_scalar_function(name, vec![arg])
            }
            A::Expr::Collate { .. } => Err(Error::feature_not_supported("COLLATE")),
            A::Expr::Array(_) => Err(Error::feature_not_supported("arrays")),
            A::Expr::AnyOp { .. } | A::Expr::AllOp { .. } => {
                Err(Error::feature_not_supported("ANY/ALL"))
            }
            A::Expr::SimilarTo { .. } => Err(Error::feature_not_supported("SIMILAR TO")),
            A::Expr::Tuple(_) => Err(Error::feature_not_supported("row constructors")),
            other => Err(Error::feature_not_supported(format!("expression {other}"))),
        }
    }

    fn with_span(&self, err: Error, span: sqlparser::tokenizer::Span) -> Error {
        if err.position.is_some() {
            return err;
        }
        self.with_location(err, span.start)
    }

    fn bind_value(&mut self, v: &A::Value) -> Result<Expr> {
        Ok(match v {
            A::Value::Number(n, _) => number_literal(n)?,
            A::Value::SingleQuotedString(s)
            | A::Value::EscapedStringLiteral(s)
            | A::Value::DollarQuotedString(A::DollarQuotedString { value: s, .. })
            | A::Value::UnicodeStringLiteral(s) => Expr::literal(Value::Text(s.clone()), UNKNOWN),
            A::Value::Boolean(b) => Expr::literal(Value::Bool(*b), BOOL),
            A::Value::Null => Expr::literal(Value::Null, UNKNOWN),
            A::Value::Placeholder(p) => {
                let index: usize = p
                    .strip_prefix('$')
                    .and_then(|n| n.parse().ok())
                    .filter(|&n: &usize| (1..=PARAMS_MAX).contains(&n))
                    .ok_or_else(|| Error::syntax(format!("syntax error at or near \"{p}\"")))?;
                if self.params.len() < index {
                    self.params.resize(index, None);
                }
                let ty = self.params[index - 1].unwrap_or(UNKNOWN);
                Expr::Param {
                    index: index - 1,
                    ty,
                }
            }
            other => return Err(Error::feature_not_supported(format!("literal {other}"))),
        })
    }

    fn bind_unary(&mut self, op: A::UnaryOperator, expr: &A::Expr, scope: &Scope) -> Result<Expr> {
        match op {
            A::UnaryOperator::Not => {
                let b = self.bind_expr(expr, scope)?;
                let b = self.require_bool(b, "NOT")?;
                Ok(Expr::Not(Box::new(b)))
            }
            A::UnaryOperator::Plus => self.bind_expr(expr, scope),
            A::UnaryOperator::Minus => {
                // Fold negative numeric literals so that -2147483648 is an integer.
                if let A::Expr::Value(v) = expr
                    && let A::Value::Number(n, _) = &v.value
                {
                    return number_literal(&format!("-{n}"));
                }
                let b = self.bind_expr(expr, scope)?;
                if b.ty().ty == DataType::Unknown {
                    return Err(Error::new("42725", "operator is not unique: - unknown").with_hint(
                        "Could not choose a best candidate operator. You might need to add explicit type casts.",
                    ));
                }
                let ty = b.ty();
                match ty.ty {
                    DataType::Int2
                    | DataType::Int4
                    | DataType::Int8
                    | DataType::Float4
                    | DataType::Float8
                    | DataType::Numeric
                    | DataType::Interval => Ok(Expr::Negate {
                        expr: Box::new(b),
                        ty: SqlType::new(ty.ty),
                    }),
                    other => Err(Error::undefined_function(format!(
                        "operator does not exist: - {}",
                        other.name()
                    ))),
                }
            }
            other => Err(Error::feature_not_supported(format!("operator {other}"))),
        }
    }

    fn bind_is_bool(
        &mut self,
        x: &A::Expr,
        value: bool,
        negated: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let b = self.bind_expr(x, scope)?;
        let b = self.require_bool(b, "IS TRUE")?;
        Ok(Expr::IsBool {
            expr: Box::new(b),
            value,
            negated,
        })
    }

    fn bind_like(
        &mut self,
        expr: &A::Expr,
        pattern: &A::Expr,
        negated: bool,
        ci: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let x = self.bind_expr(expr, scope)?;
        let p = self.bind_expr(pattern, scope)?;
        let textual = |t: DataType| {
            matches!(
                t,
                DataType::Text | DataType::Varchar | DataType::Bpchar | DataType::Unknown
            )
        };
        let (xt, pt) = (x.ty().ty, p.ty().ty);
        if !textual(xt) || !textual(pt) {
            let op = match (ci, negated) {
                (false, false) => "~~",
                (false, true) => "!~~",
                (true, false) => "~~*",
                (true, true) => "!~~*",
            };
            return Err(no_operator(xt, op, pt));
        }
        let x = self.text_operand(x)?;
        let p = self.text_operand(p)?;
        Ok(Expr::Like {
            expr: Box::new(x),
            pattern: Box::new(p),
            negated,
            case_insensitive: ci,
        })
    }

    /// A LIKE operand (already checked to be a string or unknown) as text.
    fn text_operand(&mut self, e: Expr) -> Result<Expr> {
        match e.ty().ty {
            DataType::Bpchar | DataType::Unknown => self.coerce(e, TEXT),
            _ => Ok(e),
        }
    }

    /// Binds a left-deep chain of binary operators (`a + b + c …`, `p OR q OR …`)
    /// iteratively: sqlparser builds such chains without depth limits, and recursing down
    /// the left spine would cost a stack frame per operator.
    fn bind_binary_chain(&mut self, e: &A::Expr, scope: &Scope) -> Result<Expr> {
        let mut spine: Vec<(&A::Expr, &A::BinaryOperator, &A::Expr)> = Vec::new();
        let mut leftmost = e;
        while let A::Expr::BinaryOp { left, op, right } = leftmost {
            spine.push((leftmost, op, right));
            leftmost = left;
        }
        let mut acc = self.bind_expr(leftmost, scope)?;
        let mut acc_ast = leftmost;
        while let Some((node, op, right)) = spine.pop() {
            let mut r = self.bind_expr(right, scope)?;
            // Errors point where PostgreSQL points: a non-boolean AND/OR operand at
            // itself, anything else at this node of the chain.
            let name = match op {
                A::BinaryOperator::And => Some("AND"),
                A::BinaryOperator::Or => Some("OR"),
                _ => None,
            };
            if let Some(name) = name {
                let checked = self.require_bool(acc, name);
                acc = checked.map_err(|err| self.locate(err, acc_ast))?;
                let checked = self.require_bool(r, name);
                r = checked.map_err(|err| self.locate(err, right))?;
            }
            let bound = self.bind_binary_op(acc, op, r);
            acc = bound.map_err(|err| self.locate(err, node))?;
            acc_ast = node;
        }
        Ok(acc)
    }

    fn bind_binary_op(&mut self, l: Expr, op: &A::BinaryOperator, r: Expr) -> Result<Expr> {
        let op = match op {
            A::BinaryOperator::And | A::BinaryOperator::Or => {
                let name = if matches!(op, A::BinaryOperator::And) {
                    "AND"
                } else {
                    "OR"
                };
                let l = self.require_bool(l, name)?;
                let r = self.require_bool(r, name)?;
                let is_and = matches!(op, A::BinaryOperator::And);
                let mut list = Vec::new();
                for side in [l, r] {
                    match (side, is_and) {
                        (Expr::And(inner), true) => list.extend(inner),
                        (Expr::Or(inner), false) => list.extend(inner),
                        (other, _) => list.push(other),
                    }
                }
                return Ok(if is_and {
                    Expr::And(list)
                } else {
                    Expr::Or(list)
                });
            }
            A::BinaryOperator::Plus => BinaryOp::Add,
            A::BinaryOperator::Minus => BinaryOp::Sub,
            A::BinaryOperator::Multiply => BinaryOp::Mul,
            A::BinaryOperator::Divide => BinaryOp::Div,
            A::BinaryOperator::Modulo => BinaryOp::Mod,
            A::BinaryOperator::PGExp => BinaryOp::Pow,
            A::BinaryOperator::Eq => BinaryOp::Eq,
            A::BinaryOperator::NotEq => BinaryOp::NotEq,
            A::BinaryOperator::Lt => BinaryOp::Lt,
            A::BinaryOperator::LtEq => BinaryOp::LtEq,
            A::BinaryOperator::Gt => BinaryOp::Gt,
            A::BinaryOperator::GtEq => BinaryOp::GtEq,
            A::BinaryOperator::StringConcat => BinaryOp::Concat,
            other => return Err(Error::feature_not_supported(format!("operator {other}"))),
        };
        self.bind_binary(op, l, r)
    }

    /// Gives both sides of a comparison one type.
    /// `x [NOT] IN (items)` as PostgreSQL's transformAExprIn builds it: the items that
    /// mention no column, when there are two or more, are matched with `x` at one common
    /// type (one list test); every other item is compared with `x` by its own `=` (`<>`),
    /// and the parts are ORed (ANDed), list test first.
    fn bind_in_list(&mut self, x: Expr, items: Vec<Expr>, negated: bool) -> Result<Expr> {
        let (with_columns, constants): (Vec<Expr>, Vec<Expr>) =
            items.iter().cloned().partition(mentions_columns);
        let mut parts = Vec::new();
        let mut compared = items;
        if constants.len() > 1
            && let Some(list) = self.in_list_at_common_type(&x, constants, negated)
        {
            parts.push(list);
            compared = with_columns;
        }
        let op = if negated {
            BinaryOp::NotEq
        } else {
            BinaryOp::Eq
        };
        for item in compared {
            parts.push(self.bind_binary(op, x.clone(), item)?);
        }
        Ok(match parts.len() {
            1 => parts.remove(0),
            _ if negated => Expr::And(parts),
            _ => Expr::Or(parts),
        })
    }

    /// One `x [NOT] IN (constants)` test at the common type of `x` and the constants, if
    /// there is one they all coerce to (else PostgreSQL compares them one by one).
    fn in_list_at_common_type(
        &mut self,
        x: &Expr,
        items: Vec<Expr>,
        negated: bool,
    ) -> Option<Expr> {
        let mut all: Vec<&Expr> = vec![x];
        all.extend(items.iter());
        let ty = common_type(&all, "IN").ok()?;
        let ty = if ty.ty == DataType::Unknown { TEXT } else { ty };
        let ty = SqlType::new(if ty.ty == DataType::Bpchar {
            DataType::Text
        } else {
            ty.ty
        });
        let x = self.coerce(x.clone(), ty).ok()?;
        let items = items
            .into_iter()
            .map(|i| self.coerce(i, ty))
            .collect::<Result<Vec<_>>>()
            .ok()?;
        Some(Expr::InList {
            expr: Box::new(x),
            list: items,
            negated,
        })
    }

    fn unify_comparison(&mut self, l: Expr, r: Expr, op: BinaryOp) -> Result<(Expr, Expr)> {
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let target = match (lt, rt) {
            (DataType::Unknown, DataType::Unknown) => TEXT,
            (DataType::Unknown, t) | (t, DataType::Unknown) => SqlType::new(t),
            (a, b) if a.is_string() && b.is_string() => TEXT,
            (a, b) => match (a.numeric_rank(), b.numeric_rank()) {
                (Some(x), Some(y)) => SqlType::new(numeric_common(a, b, x, y)),
                _ if a == b => SqlType::new(a),
                _ if cast::is_implicit(a, b) => SqlType::new(b),
                _ if cast::is_implicit(b, a) => SqlType::new(a),
                _ => {
                    return Err(no_operator(a, op.symbol(), b));
                }
            },
        };
        // char(n) compares without trailing spaces: compare as text.
        let target = if target.ty == DataType::Bpchar || target.ty == DataType::Varchar {
            TEXT
        } else {
            target
        };
        let l = if l.ty().ty == target.ty && l.ty().ty != DataType::Bpchar {
            l
        } else {
            self.coerce(l, target)?
        };
        let r = if r.ty().ty == target.ty && r.ty().ty != DataType::Bpchar {
            r
        } else {
            self.coerce(r, target)?
        };
        Ok((l, r))
    }

    fn bind_binary(&mut self, op: BinaryOp, l: Expr, r: Expr) -> Result<Expr> {
        use DataType as D;
        if op.is_comparison() {
            let (l, r) = self.unify_comparison(l, r, op)?;
            return Ok(Expr::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
                ty: BOOL,
            });
        }
        if op == BinaryOp::Concat {
            let (lt, rt) = (l.ty().ty, r.ty().ty);
            if !(lt.is_string() || rt.is_string()) {
                return Err(no_operator(lt, "||", rt));
            }
            let l = self.concat_operand(l)?;
            let r = self.concat_operand(r)?;
            return Ok(Expr::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
                ty: TEXT,
            });
        }
        let (mut lt, mut rt) = (l.ty().ty, r.ty().ty);
        // Unknown literals take the other side's type; two unknowns are an error like PG's.
        let (l, r) = match (lt, rt) {
            (D::Unknown, D::Unknown) => {
                return Err(operator_not_unique(&format!(
                    "unknown {} unknown",
                    op.symbol()
                )));
            }
            (D::Unknown, t) => {
                let target = unknown_operand_type(op, t).ok_or_else(|| {
                    operator_not_unique(&format!("unknown {} {}", op.symbol(), t.name()))
                })?;
                lt = target;
                (self.coerce(l, SqlType::new(target))?, r)
            }
            (t, D::Unknown) => {
                let target = unknown_operand_type(op, t).ok_or_else(|| {
                    operator_not_unique(&format!("{} {} unknown", t.name(), op.symbol()))
                })?;
                rt = target;
                (l, self.coerce(r, SqlType::new(target))?)
            }
            _ => (l, r),
        };
        let no_op = |lt: D, rt: D| no_operator(lt, op.symbol(), rt);
        // Numbers.
        if let (Some(a), Some(b)) = (lt.numeric_rank(), rt.numeric_rank()) {
            let common = numeric_common(lt, rt, a, b);
            if op == BinaryOp::Pow {
                if common == D::Numeric {
                    let l = self.coerce(l, NUMERIC)?;
                    let r = self.coerce(r, NUMERIC)?;
                    return Ok(Expr::Binary {
                        op,
                        left: Box::new(l),
                        right: Box::new(r),
                        ty: NUMERIC,
                    });
                }
                let l = self.coerce(l, FLOAT8)?;
                let r = self.coerce(r, FLOAT8)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                    ty: FLOAT8,
                });
            }
            if op == BinaryOp::Mod && matches!(common, D::Float4 | D::Float8) {
                return Err(no_op(lt, rt));
            }
            let ty = SqlType::new(common);
            let l = self.coerce(l, ty)?;
            let r = self.coerce(r, ty)?;
            return Ok(Expr::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
                ty,
            });
        }
        // Dates and times.
        let ty = match (lt, op, rt) {
            (D::Date, BinaryOp::Add | BinaryOp::Sub, D::Int2 | D::Int4 | D::Int8) => {
                let r = self.coerce(r, INT4)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                    ty: SqlType::new(D::Date),
                });
            }
            (D::Int2 | D::Int4 | D::Int8, BinaryOp::Add, D::Date) => {
                let l = self.coerce(l, INT4)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(r),
                    right: Box::new(l),
                    ty: SqlType::new(D::Date),
                });
            }
            (D::Date, BinaryOp::Sub, D::Date) => INT4,
            (D::Date, BinaryOp::Add | BinaryOp::Sub, D::Interval) => {
                let l = self.coerce(l, SqlType::new(D::Timestamp))?;
                return self.bind_binary(op, l, r);
            }
            (D::Interval, BinaryOp::Add, D::Date) => {
                let r = self.coerce(r, SqlType::new(D::Timestamp))?;
                return self.bind_binary(op, r, l);
            }
            (D::Interval, BinaryOp::Add, D::Timestamp | D::Timestamptz) => {
                return self.bind_binary(op, r, l);
            }
            (D::Timestamp | D::Timestamptz, BinaryOp::Add | BinaryOp::Sub, D::Interval) => {
                SqlType::new(lt)
            }
            (D::Timestamp, BinaryOp::Sub, D::Timestamp)
            | (D::Timestamptz, BinaryOp::Sub, D::Timestamptz) => SqlType::new(D::Interval),
            (D::Interval, BinaryOp::Add | BinaryOp::Sub, D::Interval) => SqlType::new(D::Interval),
            (D::Interval, BinaryOp::Mul | BinaryOp::Div, t) if t.numeric_rank().is_some() => {
                let r = self.coerce(r, FLOAT8)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                    ty: SqlType::new(D::Interval),
                });
            }
            (t, BinaryOp::Mul, D::Interval) if t.numeric_rank().is_some() => {
                let l = self.coerce(l, FLOAT8)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(r),
                    right: Box::new(l),
                    ty: SqlType::new(D::Interval),
                });
            }
            _ => return Err(no_op(lt, rt)),
        };
        Ok(Expr::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
            ty,
        })
    }

    fn concat_operand(&mut self, e: Expr) -> Result<Expr> {
        match e.ty().ty {
            DataType::Text | DataType::Varchar => Ok(e),
            _ => self.explicit_cast(e, TEXT),
        }
    }

    fn bind_case(
        &mut self,
        operand: Option<&A::Expr>,
        conditions: &[A::CaseWhen],
        else_result: Option<&A::Expr>,
        scope: &Scope,
    ) -> Result<Expr> {
        let operand = operand.map(|o| self.bind_expr(o, scope)).transpose()?;
        let mut conds = Vec::with_capacity(conditions.len());
        let mut results = Vec::with_capacity(conditions.len());
        for w in conditions {
            let c = self.bind_expr(&w.condition, scope)?;
            let c = match &operand {
                Some(o) => self.bind_binary(BinaryOp::Eq, o.clone(), c)?,
                None => {
                    let checked = self.require_bool(c, "CASE/WHEN");
                    checked.map_err(|err| self.locate(err, &w.condition))?
                }
            };
            conds.push(c);
            results.push(self.bind_expr(&w.result, scope)?);
        }
        let else_bound = else_result.map(|e| self.bind_expr(e, scope)).transpose()?;
        let mut all: Vec<&Expr> = results.iter().collect();
        if let Some(e) = &else_bound {
            all.push(e);
        }
        let ty = common_type(&all, "CASE")?;
        let ty = if ty.ty == DataType::Unknown { TEXT } else { ty };
        let mut whens = Vec::with_capacity(conds.len());
        for (c, r) in conds.into_iter().zip(results) {
            whens.push((c, self.coerce(r, ty)?));
        }
        let else_result = else_bound
            .map(|e| self.coerce(e, ty))
            .transpose()?
            .map(Box::new);
        Ok(Expr::Case {
            whens,
            else_result,
            ty,
        })
    }

    fn bind_function(&mut self, f: &A::Function, scope: &Scope) -> Result<Expr> {
        let name = object_name(&f.name)?;
        if f.over.is_some() {
            return Err(Error::feature_not_supported("window functions"));
        }
        if f.filter.is_some() || !f.within_group.is_empty() {
            return Err(Error::feature_not_supported(
                "aggregate FILTER and WITHIN GROUP",
            ));
        }
        let (args, distinct, star) = match &f.args {
            A::FunctionArguments::None => (vec![], false, false),
            A::FunctionArguments::Subquery(_) => {
                return Err(Error::feature_not_supported("subqueries"));
            }
            A::FunctionArguments::List(list) => {
                if !list.clauses.is_empty() {
                    return Err(Error::feature_not_supported(
                        "ORDER BY in function arguments",
                    ));
                }
                let distinct = matches!(
                    list.duplicate_treatment,
                    Some(A::DuplicateTreatment::Distinct)
                );
                let mut star = false;
                let mut args = Vec::new();
                for a in &list.args {
                    match a {
                        A::FunctionArg::Unnamed(A::FunctionArgExpr::Wildcard) => star = true,
                        A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(e)) => args.push(e),
                        _ => return Err(Error::feature_not_supported("named function arguments")),
                    }
                }
                (args, distinct, star)
            }
        };
        if let Some(agg) = agg_func(&name) {
            return self.bind_aggregate(agg, &name, &args, distinct, star, scope);
        }
        if star || distinct {
            return Err(Error::syntax(format!(
                "{name}(*) specified, but {name} is not an aggregate function"
            )));
        }
        if name == "generate_series" {
            // A set-returning function outside FROM (PostgreSQL's ProjectSet).
            return Err(Error::feature_not_supported(
                "set-returning functions outside FROM",
            ));
        }
        let mut bound = Vec::with_capacity(args.len());
        for a in args {
            bound.push(self.bind_expr(a, scope)?);
        }
        if name == "pg_typeof" {
            let [arg] = bound.as_slice() else {
                return Err(Error::undefined_function(
                    "function pg_typeof does not exist",
                ));
            };
            let ty = if arg.ty().ty == DataType::Unknown && !matches!(arg, Expr::Param { .. }) {
                "unknown".to_string()
            } else {
                arg.ty().ty.name().to_string()
            };
            return Ok(Expr::literal(Value::Text(ty), TEXT));
        }
        self.bind_scalar_function(&name, bound)
            .map_err(|e| unsupported_builtin(e, &name))
    }

    fn bind_aggregate(
        &mut self,
        func: AggFunc,
        name: &str,
        args: &[&A::Expr],
        distinct: bool,
        star: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        if !self.agg_allowed {
            return Err(Error::grouping("aggregate functions are not allowed here"));
        }
        let (func, arg) = match (func, star, args) {
            (AggFunc::Count, true, []) => (AggFunc::CountStar, None),
            (_, false, [a]) => {
                // Aggregates cannot nest.
                self.agg_allowed = false;
                let bound = self.bind_expr(a, scope);
                self.agg_allowed = true;
                (func, Some(bound?))
            }
            _ => {
                return Err(Error::undefined_function(format!(
                    "function {name}() does not exist"
                )));
            }
        };
        let arg = match arg {
            Some(a)
                if a.ty().ty == DataType::Unknown
                    && matches!(func, AggFunc::Sum | AggFunc::Avg) =>
            {
                return Err(not_unique(format!(
                    "function {name}(unknown) is not unique"
                )));
            }
            Some(a) if a.ty().ty == DataType::Unknown => Some(self.coerce(a, TEXT)?),
            other => other,
        };
        let arg_ty = arg.as_ref().map(|a| a.ty());
        let ty = match (func, arg_ty.map(|t| t.ty)) {
            (AggFunc::CountStar | AggFunc::Count, _) => INT8,
            (AggFunc::Sum, Some(DataType::Int2 | DataType::Int4)) => INT8,
            (AggFunc::Sum, Some(DataType::Int8 | DataType::Numeric)) => NUMERIC,
            (
                AggFunc::Sum,
                Some(t @ (DataType::Float4 | DataType::Float8 | DataType::Interval)),
            ) => SqlType::new(t),
            (
                AggFunc::Avg,
                Some(DataType::Int2 | DataType::Int4 | DataType::Int8 | DataType::Numeric),
            ) => NUMERIC,
            (AggFunc::Avg, Some(DataType::Float4 | DataType::Float8)) => FLOAT8,
            (AggFunc::Avg, Some(DataType::Interval)) => SqlType::new(DataType::Interval),
            (AggFunc::Min | AggFunc::Max, Some(t)) if t != DataType::Bool => {
                let t = arg_ty.unwrap_or(TEXT);
                SqlType::new(if t.ty == DataType::Varchar {
                    DataType::Varchar
                } else {
                    t.ty
                })
            }
            (_, t) => {
                return Err(Error::undefined_function(format!(
                    "function {name}({}) does not exist",
                    t.map_or("", |t| t.name())
                )));
            }
        };
        let call = AggCall {
            func,
            arg,
            distinct,
            ty,
        };
        let index = match self.aggs.iter().position(|a| *a == call) {
            Some(i) => i,
            None => {
                self.aggs.push(call);
                self.aggs.len() - 1
            }
        };
        Ok(Expr::Agg { index, ty })
    }

    /// EXTRACT, date_part, date_trunc, age and timezone (AT TIME ZONE), resolved as
    /// PostgreSQL resolves their overloads: a date reads as timestamptz where that is
    /// the preferred candidate, an untyped literal is ambiguous (42725) except as the
    /// time of AT TIME ZONE.
    fn bind_datetime_function(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr> {
        use DataType as D;
        let types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let shown = if name == "extract" {
            "pg_catalog.extract"
        } else {
            name
        };
        let signature = args
            .iter()
            .map(|a| a.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        let not_found =
            || Error::undefined_function(format!("function {shown}({signature}) does not exist"));
        let ambiguous = || not_unique(format!("function {shown}({signature}) is not unique"));
        let datetime_source =
            |t: D| matches!(t, D::Date | D::Timestamp | D::Timestamptz | D::Interval);
        let mut args = args;
        let text_arg = |b: &mut Binder, a: Expr| -> Result<Expr> {
            match a.ty().ty {
                D::Text | D::Varchar => Ok(a),
                D::Unknown | D::Bpchar => b.coerce(a, TEXT),
                _ => Err(not_found()),
            }
        };
        let (func, ty) = match (name, types.as_slice()) {
            ("extract" | "date_part", [u, t]) if u.is_string() || *u == D::Unknown => {
                if *t == D::Unknown {
                    return Err(ambiguous());
                }
                if !datetime_source(*t) {
                    return Err(not_found());
                }
                let unit = args.remove(0);
                args.insert(0, text_arg(self, unit)?);
                if name == "extract" {
                    (Func::Extract, NUMERIC)
                } else {
                    (Func::DatePart, SqlType::new(D::Float8))
                }
            }
            ("date_trunc", [u, t, rest @ ..]) if u.is_string() || *u == D::Unknown => {
                if *t == D::Unknown {
                    return Err(ambiguous());
                }
                let ty = match (t, rest) {
                    (D::Timestamp, []) => SqlType::new(D::Timestamp),
                    (D::Interval, []) => SqlType::new(D::Interval),
                    (D::Timestamptz | D::Date, [] | [D::Text | D::Varchar | D::Unknown]) => {
                        SqlType::new(D::Timestamptz)
                    }
                    _ => return Err(not_found()),
                };
                let mut it = std::mem::take(&mut args).into_iter();
                let (unit, source) = match (it.next(), it.next()) {
                    (Some(u), Some(s)) => (u, s),
                    _ => return Err(not_found()),
                };
                args.push(text_arg(self, unit)?);
                args.push(self.coerce(source, ty)?);
                if let Some(zone) = it.next() {
                    args.push(text_arg(self, zone)?);
                }
                (Func::DateTrunc, ty)
            }
            ("age", [a, b]) => {
                let target = match (a, b) {
                    (D::Unknown, D::Unknown) => return Err(ambiguous()),
                    (D::Timestamp, D::Timestamp | D::Unknown) | (D::Unknown, D::Timestamp) => {
                        D::Timestamp
                    }
                    (x, y)
                        if matches!(x, D::Date | D::Timestamp | D::Timestamptz | D::Unknown)
                            && matches!(
                                y,
                                D::Date | D::Timestamp | D::Timestamptz | D::Unknown
                            ) =>
                    {
                        D::Timestamptz
                    }
                    _ => return Err(not_found()),
                };
                let args2 = std::mem::take(&mut args)
                    .into_iter()
                    .map(|a| self.coerce(a, SqlType::new(target)))
                    .collect::<Result<Vec<_>>>()?;
                args = args2;
                (Func::Age, SqlType::new(D::Interval))
            }
            ("age", [a]) => {
                let target = match a {
                    D::Unknown => return Err(ambiguous()),
                    D::Timestamp => D::Timestamp,
                    D::Date | D::Timestamptz => D::Timestamptz,
                    _ => return Err(not_found()),
                };
                // age(x) is age(current_date, x): midnight today.
                let today = Expr::Cast {
                    expr: Box::new(Expr::Func {
                        func: Func::CurrentDate,
                        args: vec![],
                        ty: SqlType::new(D::Date),
                    }),
                    to: SqlType::new(target),
                    explicit: true,
                };
                let x = self.coerce(args.remove(0), SqlType::new(target))?;
                args = vec![today, x];
                (Func::Age, SqlType::new(D::Interval))
            }
            ("timezone", [z, t]) => {
                let zone_ty = match z {
                    D::Interval => D::Interval,
                    D::Text | D::Varchar | D::Bpchar | D::Unknown => D::Text,
                    _ => return Err(not_found()),
                };
                let (source, result) = match t {
                    D::Timestamp => (D::Timestamp, D::Timestamptz),
                    D::Timestamptz | D::Date | D::Unknown => (D::Timestamptz, D::Timestamp),
                    _ => return Err(not_found()),
                };
                let mut it = std::mem::take(&mut args).into_iter();
                let (zone, ts) = match (it.next(), it.next()) {
                    (Some(z), Some(t)) => (z, t),
                    _ => return Err(not_found()),
                };
                args = vec![
                    self.coerce(zone, SqlType::new(zone_ty))?,
                    self.coerce(ts, SqlType::new(source))?,
                ];
                (Func::Timezone, SqlType::new(result))
            }
            _ => return Err(not_found()),
        };
        Ok(Expr::Func { func, args, ty })
    }

    fn bind_scalar_function(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr> {
        if matches!(
            name,
            "extract" | "date_part" | "date_trunc" | "age" | "timezone"
        ) {
            return self.bind_datetime_function(name, args);
        }
        use DataType as D;
        let arg_types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let signature = args
            .iter()
            .map(|a| a.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        let not_found =
            || Error::undefined_function(format!("function {name}({signature}) does not exist"));
        let text_args = |b: &mut Binder, args: Vec<Expr>| -> Result<Vec<Expr>> {
            args.into_iter()
                .map(|a| match a.ty().ty {
                    D::Text | D::Varchar => Ok(a),
                    D::Unknown | D::Bpchar => b.coerce(a, TEXT),
                    _ => Err(not_found()),
                })
                .collect()
        };
        let (func, args, ty) = match (name, arg_types.as_slice()) {
            ("upper", [_]) => (Func::Upper, text_args(self, args)?, TEXT),
            ("lower", [_]) => (Func::Lower, text_args(self, args)?, TEXT),
            ("length" | "char_length" | "character_length", [_]) => {
                (Func::Length, text_args(self, args)?, INT4)
            }
            ("octet_length", [_]) => (Func::OctetLength, text_args(self, args)?, INT4),
            ("abs", [t]) if t.numeric_rank().is_some() || *t == D::Unknown => {
                let t = if *t == D::Unknown { D::Float8 } else { *t };
                let args = self.coerce_all(args, SqlType::new(t))?;
                (Func::Abs, args, SqlType::new(t))
            }
            ("trunc", [D::Unknown]) => {
                return Err(not_unique(
                    "function trunc(unknown) is not unique".to_string(),
                ));
            }
            ("round" | "trunc", [t]) if t.numeric_rank().is_some() || *t == D::Unknown => {
                let t = if *t == D::Numeric {
                    D::Numeric
                } else {
                    D::Float8
                };
                let args = self.coerce_all(args, SqlType::new(t))?;
                (
                    if name == "round" {
                        Func::Round
                    } else {
                        Func::Trunc
                    },
                    args,
                    SqlType::new(t),
                )
            }
            ("round" | "trunc", [t, s])
                if (t.numeric_rank().is_some() && *t != D::Float4 && *t != D::Float8
                    || *t == D::Unknown)
                    && (s.is_integer() || *s == D::Unknown) =>
            {
                let mut it = args.into_iter();
                let (a, b) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let args = vec![self.coerce(a, NUMERIC)?, self.coerce(b, INT4)?];
                (
                    if name == "round" {
                        Func::Round
                    } else {
                        Func::Trunc
                    },
                    args,
                    NUMERIC,
                )
            }
            ("ceil" | "ceiling" | "floor", [t])
                if t.numeric_rank().is_some() || *t == D::Unknown =>
            {
                let t = if *t == D::Numeric {
                    D::Numeric
                } else {
                    D::Float8
                };
                let args = self.coerce_all(args, SqlType::new(t))?;
                (
                    if name == "floor" {
                        Func::Floor
                    } else {
                        Func::Ceil
                    },
                    args,
                    SqlType::new(t),
                )
            }
            ("sqrt" | "ln" | "exp" | "log" | "log10", [t])
                if t.numeric_rank().is_some() || *t == D::Unknown =>
            {
                let func = match name {
                    "sqrt" => Func::Sqrt,
                    "ln" => Func::Ln,
                    "exp" => Func::Exp,
                    _ => Func::Log10,
                };
                if *t == D::Numeric {
                    (func, args, NUMERIC)
                } else {
                    (func, self.coerce_all(args, FLOAT8)?, FLOAT8)
                }
            }
            ("log", [b, x])
                if (b.numeric_rank().is_some() || *b == D::Unknown)
                    && (x.numeric_rank().is_some() || *x == D::Unknown) =>
            {
                (Func::Log, self.coerce_all(args, NUMERIC)?, NUMERIC)
            }
            ("mod", [a, b]) if a.numeric_rank().is_some() && b.numeric_rank().is_some() => {
                let refs: Vec<&Expr> = args.iter().collect();
                let t = common_type(&refs, "mod")?;
                if matches!(t.ty, D::Float4 | D::Float8) {
                    return Err(not_found());
                }
                (Func::Mod, self.coerce_all(args, t)?, t)
            }
            ("power" | "pow", [a, b])
                if (a.numeric_rank().is_some() || *a == D::Unknown)
                    && (b.numeric_rank().is_some() || *b == D::Unknown) =>
            {
                if *a == D::Numeric || *b == D::Numeric {
                    (Func::Power, self.coerce_all(args, NUMERIC)?, NUMERIC)
                } else {
                    (Func::Power, self.coerce_all(args, FLOAT8)?, FLOAT8)
                }
            }
            ("substr" | "substring", [_, _] | [_, _, _]) => {
                let mut it = args.into_iter();
                let s = it.next().ok_or_else(not_found)?;
                let s = text_args(self, vec![s])?.remove(0);
                let mut out = vec![s];
                for a in it {
                    if !(a.ty().ty.is_integer() || a.ty().ty == D::Unknown) {
                        return Err(not_found());
                    }
                    out.push(self.coerce(a, INT4)?);
                }
                (Func::Substr, out, TEXT)
            }
            ("strpos", [_, _]) => (Func::Position, text_args(self, args)?, INT4),
            ("replace", [_, _, _]) => (Func::Replace, text_args(self, args)?, TEXT),
            ("btrim" | "trim", [_] | [_, _]) => (Func::Btrim, text_args(self, args)?, TEXT),
            ("ltrim", [_] | [_, _]) => (Func::Ltrim, text_args(self, args)?, TEXT),
            ("rtrim", [_] | [_, _]) => (Func::Rtrim, text_args(self, args)?, TEXT),
            ("repeat", [_, n]) if n.is_integer() || *n == D::Unknown => {
                let mut it = args.into_iter();
                let (s, n) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let s = text_args(self, vec![s])?.remove(0);
                (Func::Repeat, vec![s, self.coerce(n, INT4)?], TEXT)
            }
            ("chr", [n]) if n.is_integer() || *n == D::Unknown => {
                let n = args.into_iter().next().ok_or_else(not_found)?;
                (Func::Chr, vec![self.coerce(n, INT4)?], TEXT)
            }
            ("ascii", [_]) => (Func::Ascii, text_args(self, args)?, INT4),
            ("lpad" | "rpad", [_, n] | [_, n, _]) if n.is_integer() || *n == D::Unknown => {
                let mut it = args.into_iter();
                let (s, n) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let mut out = text_args(self, vec![s])?;
                out.push(self.coerce(n, INT4)?);
                out.extend(text_args(self, it.collect())?);
                let func = if name == "lpad" {
                    Func::Lpad
                } else {
                    Func::Rpad
                };
                (func, out, TEXT)
            }
            ("split_part", [_, _, n]) if n.is_integer() || *n == D::Unknown => {
                let mut it = args.into_iter();
                let (s, d, n) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let mut out = text_args(self, vec![s, d])?;
                out.push(self.coerce(n, INT4)?);
                (Func::SplitPart, out, TEXT)
            }
            ("reverse", [_]) => (Func::Reverse, text_args(self, args)?, TEXT),
            ("translate", [_, _, _]) => (Func::Translate, text_args(self, args)?, TEXT),
            ("starts_with", [_, _]) => (Func::StartsWith, text_args(self, args)?, BOOL),
            ("initcap", [_]) => (Func::Initcap, text_args(self, args)?, TEXT),
            ("md5", [_]) => (Func::Md5, text_args(self, args)?, TEXT),
            ("random", []) => (Func::Random, args, FLOAT8),
            ("left" | "right", [_, n]) if n.is_integer() || *n == D::Unknown => {
                let mut it = args.into_iter();
                let (s, n) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let s = text_args(self, vec![s])?.remove(0);
                let n = self.coerce(n, INT4)?;
                (
                    if name == "left" {
                        Func::Left
                    } else {
                        Func::Right
                    },
                    vec![s, n],
                    TEXT,
                )
            }
            ("concat", _) => {
                let mut out = Vec::with_capacity(args.len());
                for a in args {
                    // concat formats its arguments with their output functions
                    // (a boolean is 't', not 'true' as in a cast).
                    out.push(if a.ty().ty == D::Unknown {
                        self.coerce(a, TEXT)?
                    } else {
                        a
                    });
                }
                (Func::Concat, out, TEXT)
            }
            ("coalesce" | "greatest" | "least", [_, ..]) => {
                let refs: Vec<&Expr> = args.iter().collect();
                let t = common_type(&refs, &name.to_uppercase())?;
                let t = if t.ty == D::Unknown { TEXT } else { t };
                let func = match name {
                    "coalesce" => Func::Coalesce,
                    "greatest" => Func::Greatest,
                    _ => Func::Least,
                };
                (func, self.coerce_all(args, t)?, t)
            }
            ("nullif", [_, _]) => {
                let mut it = args.into_iter();
                let (a, b) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let (a, b) = self.unify_comparison(a, b, BinaryOp::Eq)?;
                let t = a.ty();
                (Func::Nullif, vec![a, b], t)
            }
            (
                "now"
                | "current_timestamp"
                | "transaction_timestamp"
                | "statement_timestamp"
                | "localtimestamp",
                [],
            ) => {
                if name == "localtimestamp" {
                    return Ok(Expr::Cast {
                        expr: Box::new(Expr::Func {
                            func: Func::Now,
                            args: vec![],
                            ty: SqlType::new(D::Timestamptz),
                        }),
                        to: SqlType::new(D::Timestamp),
                        explicit: true,
                    });
                }
                (Func::Now, vec![], SqlType::new(D::Timestamptz))
            }
            ("current_timestamp" | "localtimestamp", [D::Int4 | D::Int2 | D::Int8]) => {
                // CURRENT_TIMESTAMP(p) / LOCALTIMESTAMP(p): now() to p digits.
                let p = match args.first() {
                    Some(Expr::Literal {
                        value: Value::Int4(p),
                        ..
                    }) if *p >= 0 => (*p).min(crate::types::MAX_SECONDS_PRECISION),
                    _ => return Err(not_found()),
                };
                let base = if name == "localtimestamp" {
                    D::Timestamp
                } else {
                    D::Timestamptz
                };
                return Ok(Expr::Cast {
                    expr: Box::new(Expr::Func {
                        func: Func::Now,
                        args: vec![],
                        ty: SqlType::new(D::Timestamptz),
                    }),
                    to: SqlType::with_typmod(base, p),
                    explicit: true,
                });
            }
            ("current_date", []) => (Func::CurrentDate, vec![], SqlType::new(D::Date)),
            ("version", []) => (Func::Version, vec![], TEXT),
            ("current_database" | "current_catalog", []) => (Func::CurrentDatabase, vec![], TEXT),
            ("current_user" | "session_user" | "user" | "current_role", []) => {
                (Func::CurrentUser, vec![], TEXT)
            }
            ("current_setting", [_]) => (Func::CurrentSetting, text_args(self, args)?, TEXT),
            ("current_setting", [_, _]) => {
                let mut args = args.into_iter();
                let (name, missing_ok) = match (args.next(), args.next()) {
                    (Some(n), Some(m)) => (n, m),
                    _ => return Err(Error::internal("current_setting arguments")),
                };
                let name = text_args(self, vec![name])?;
                let missing_ok = match missing_ok.ty().ty {
                    D::Bool => missing_ok,
                    D::Unknown => self.coerce(missing_ok, SqlType::new(D::Bool))?,
                    _ => return Err(not_found()),
                };
                (
                    Func::CurrentSetting,
                    name.into_iter().chain([missing_ok]).collect(),
                    TEXT,
                )
            }
            _ => return Err(not_found()),
        };
        Ok(Expr::Func { func, args, ty })
    }

    fn coerce_all(&mut self, args: Vec<Expr>, ty: SqlType) -> Result<Vec<Expr>> {
        args.into_iter().map(|a| self.coerce(a, ty)).collect()
    }

    /// `CAST(e AS to)`: any defined cast, with truncation for strings.
    fn explicit_cast(&mut self, e: Expr, to: SqlType) -> Result<Expr> {
        let from = e.ty();
        if !cast::can_cast(from.ty, to.ty) {
            return Err(Error::new(
                "42846",
                format!(
                    "cannot cast type {} to {}",
                    from.display_name(),
                    to.display_name()
                ),
            ));
        }
        self.coerce_with(e, to, true)
    }

    /// Implicit coercion to `to` (callers have checked it is allowed).
    fn coerce(&mut self, e: Expr, to: SqlType) -> Result<Expr> {
        self.coerce_with(e, to, false)
    }

    fn coerce_with(&mut self, e: Expr, to: SqlType, explicit: bool) -> Result<Expr> {
        let from = e.ty();
        if from == to {
            return Ok(e);
        }
        match e {
            Expr::Cast {
                expr,
                to:
                    SqlType {
                        ty: DataType::Numeric,
                        ..
                    },
                ..
            } if matches!(to.ty, DataType::Float4 | DataType::Float8)
                && matches!(
                    expr.as_ref(),
                    Expr::Literal {
                        ty: SqlType {
                            ty: DataType::Unknown,
                            ..
                        },
                        ..
                    }
                ) =>
            {
                self.coerce_with(*expr, to, explicit)
            }
            Expr::Param { index, ty } if ty.ty == DataType::Unknown => {
                if let Some(slot) = self.params.get_mut(index) {
                    *slot = Some(SqlType::new(to.ty));
                }
                let param = Expr::Param {
                    index,
                    ty: SqlType::new(to.ty),
                };
                if to.typmod >= 0 {
                    return Ok(Expr::Cast {
                        expr: Box::new(param),
                        to,
                        explicit,
                    });
                }
                Ok(param)
            }
            Expr::Literal { value, ty } => {
                let text = ty.ty == DataType::Bpchar && !to.ty.is_string();
                let value = if ty.ty == DataType::Bpchar
                    && to.ty.is_string()
                    && to.ty != DataType::Bpchar
                {
                    match value {
                        Value::Text(s) => Value::Text(s.trim_end_matches(' ').to_string()),
                        v => v,
                    }
                } else {
                    value
                };
                let _ = text;
                // An untyped literal takes its type here, errors included, as in
                // PostgreSQL's parser. A typed constant whose cast fails is left for the
                // planner's constant folding, which skips CASE arms and COALESCE
                // arguments that are never reached.
                match cast_value(value.clone(), to, explicit, &self.fmt) {
                    Ok(v) => Ok(Expr::Literal { value: v, ty: to }),
                    Err(e) if ty.ty == DataType::Unknown => Err(e),
                    Err(_) => Ok(Expr::Cast {
                        expr: Box::new(Expr::Literal { value, ty }),
                        to,
                        explicit,
                    }),
                }
            }
            other => Ok(Expr::Cast {
                expr: Box::new(other),
                to,
                explicit,
            }),
        }
    }
}

enum OrderTarget {
    Output(usize),
    Expr(Expr),
}

fn order_exprs(ob: &A::OrderBy) -> Result<&[A::OrderByExpr]> {
    if ob.interpolate.is_some() {
        return Err(Error::feature_not_supported("INTERPOLATE"));
    }
    match &ob.kind {
        A::OrderByKind::Expressions(e) => Ok(e),
        A::OrderByKind::All(_) => Err(Error::feature_not_supported("ORDER BY ALL")),
    }
}

fn sort_key(column: usize, options: &A::OrderByOptions) -> SortKey {
    let desc = matches!(options.sort, Some(A::OrderBySort::Desc));
    // PostgreSQL: NULLs sort as larger than every value.
    let nulls_first = options.nulls_first.unwrap_or(desc);
    SortKey {
        column,
        desc,
        nulls_first,
    }
}

/// The 1-based character position of a parser location (line and column, 1-based) in
/// `text`; `None` for an empty location or text.
fn char_position(text: &str, at: sqlparser::tokenizer::Location) -> Option<u32> {
    if at.line == 0 || text.is_empty() {
        return None;
    }
    let mut line = 1u64;
    let mut before = 0u64;
    if at.line > 1 {
        for c in text.chars() {
            before += 1;
            if c == '\n' {
                line += 1;
                if line == at.line {
                    break;
                }
            }
        }
        if line != at.line {
            return None;
        }
    }
    u32::try_from(before + at.column).ok()
}

/// `e` without enclosing parentheses.
fn strip_nested(mut e: &A::Expr) -> &A::Expr {
    while let A::Expr::Nested(inner) = e {
        e = inner;
    }
    e
}

/// The operands of an operator, cast or function call (where a literal is coerced).
fn direct_operands(e: &A::Expr) -> Vec<&A::Expr> {
    match strip_nested(e) {
        A::Expr::BinaryOp { left, right, .. } => vec![left, right],
        A::Expr::UnaryOp { expr, .. } | A::Expr::Cast { expr, .. } => vec![expr],
        A::Expr::InList { expr, list, .. } => std::iter::once(expr.as_ref()).chain(list).collect(),
        A::Expr::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
        A::Expr::Like { expr, pattern, .. } | A::Expr::ILike { expr, pattern, .. } => {
            vec![expr, pattern]
        }
        A::Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => std::iter::once(expr.as_ref())
            .chain(substring_from.as_deref())
            .chain(substring_for.as_deref())
            .collect(),
        A::Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => operand
            .as_deref()
            .into_iter()
            .chain(conditions.iter().flat_map(|w| [&w.condition, &w.result]))
            .chain(else_result.as_deref())
            .collect(),
        A::Expr::Function(f) => match &f.args {
            A::FunctionArguments::List(list) => list
                .args
                .iter()
                .filter_map(|a| match a {
                    A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(x)) => Some(x),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
        other => vec![other],
    }
}

/// The text of a string literal.
fn literal_text(v: &A::Value) -> Option<&str> {
    match v {
        A::Value::SingleQuotedString(s)
        | A::Value::EscapedStringLiteral(s)
        | A::Value::UnicodeStringLiteral(s) => Some(s),
        _ => None,
    }
}

fn position_column(n: &str, width: usize) -> Result<usize> {
    position_column_named(n, width, "ORDER BY")
}

fn position_column_named(n: &str, width: usize, clause: &str) -> Result<usize> {
    match n.parse::<usize>() {
        Ok(p) if p >= 1 && p <= width => Ok(p - 1),
        _ => Err(Error::new(
            "42P10",
            format!("{clause} position {n} is not in select list"),
        )),
    }
}

/// Finds an output column by name: `Some(Ok(i))` if unique, `Some(Err(()))` if ambiguous.
fn output_name_match(columns: &[OutputColumn], name: &str) -> Option<Result<usize, ()>> {
    let mut found = None;
    for (i, c) in columns.iter().enumerate() {
        if c.name == name {
            if found.is_some() {
                return Some(Err(()));
            }
            found = Some(i);
        }
    }
    found.map(Ok)
}

fn is_default_keyword(e: &A::Expr) -> bool {
    matches!(e, A::Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default"))
}

/// A setting's name: dotted parts joined (`kiln.max_query_memory`), not resolved as an
/// object name.
fn setting_name(name: &A::ObjectName) -> String {
    name.0
        .iter()
        .map(|p| match p {
            A::ObjectNamePart::Identifier(i) => ident_name(i),
            A::ObjectNamePart::Function(f) => ident_name(&f.name),
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn setting_text(e: &A::Expr) -> Result<String> {
    Ok(match e {
        A::Expr::Value(v) => match &v.value {
            A::Value::SingleQuotedString(s) | A::Value::DoubleQuotedString(s) => s.clone(),
            A::Value::Number(n, _) => n.clone(),
            A::Value::Boolean(b) => {
                if *b {
                    "on".into()
                } else {
                    "off".into()
                }
            }
            other => other.to_string(),
        },
        A::Expr::Identifier(id) => id.value.clone(),
        A::Expr::UnaryOp {
            op: A::UnaryOperator::Minus,
            expr,
        } => format!("-{}", setting_text(expr)?),
        other => other.to_string(),
    })
}

/// The common type of two numbers: the higher ranked one, except that `real` meeting any
/// other type becomes `double precision`, the numeric category's preferred type.
fn numeric_common(a: DataType, b: DataType, rank_a: u8, rank_b: u8) -> DataType {
    let higher = if rank_a >= rank_b { a } else { b };
    if higher == DataType::Float4 && a != b {
        DataType::Float8
    } else {
        higher
    }
}

fn number_literal(n: &str) -> Result<Expr> {
    if n.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        && let Ok(v) = n.parse::<i64>()
    {
        if let Ok(v32) = i32::try_from(v) {
            return Ok(Expr::literal(Value::Int4(v32), INT4));
        }
        return Ok(Expr::literal(Value::Int8(v), INT8));
    }
    match Numeric::parse(n) {
        Ok(v) => Ok(Expr::literal(Value::Numeric(v), NUMERIC)),
        // Beyond kiln's 38 digits: keep the text; a cast to a float still reads it
        // exactly, and using it as NUMERIC raises the overflow at run time.
        Err(e) if e.code == "22003" => Ok(Expr::Cast {
            expr: Box::new(Expr::literal(Value::Text(n.to_string()), UNKNOWN)),
            to: NUMERIC,
            explicit: true,
        }),
        Err(e) => Err(e),
    }
}

/// `42725`: several candidates fit an argument of unknown type equally well.
/// Function names kiln binds (scalar functions, aggregates, table functions, and the
/// keyword forms sqlparser reports as calls). Sorted.
const KILN_FUNCTIONS: &[&str] = &[
    "abs",
    "age",
    "ascii",
    "avg",
    "btrim",
    "ceil",
    "ceiling",
    "char_length",
    "character_length",
    "chr",
    "coalesce",
    "concat",
    "count",
    "current_catalog",
    "current_database",
    "current_date",
    "current_role",
    "current_setting",
    "current_timestamp",
    "current_user",
    "date_part",
    "date_trunc",
    "exp",
    "extract",
    "floor",
    "generate_series",
    "greatest",
    "initcap",
    "least",
    "left",
    "length",
    "ln",
    "localtimestamp",
    "log",
    "log10",
    "lower",
    "lpad",
    "ltrim",
    "max",
    "md5",
    "min",
    "mod",
    "now",
    "nullif",
    "octet_length",
    "pg_typeof",
    "position",
    "pow",
    "power",
    "random",
    "repeat",
    "replace",
    "reverse",
    "right",
    "round",
    "rpad",
    "rtrim",
    "session_user",
    "split_part",
    "sqrt",
    "starts_with",
    "statement_timestamp",
    "strpos",
    "substr",
    "substring",
    "sum",
    "timezone",
    "transaction_timestamp",
    "translate",
    "trim",
    "trunc",
    "upper",
    "user",
    "version",
];

/// A call kiln cannot bind: PostgreSQL's "does not exist" when kiln knows the function
/// (the arguments are wrong there too), or `0A000` when PostgreSQL has a built-in of that
/// name kiln lacks — an honest "not supported" rather than a claim that it is missing.
fn unsupported_builtin(e: Error, name: &str) -> Error {
    let known = KILN_FUNCTIONS.binary_search(&name).is_ok();
    if e.code == "42883" && !known && crate::sql::pg_functions::is_builtin(name) {
        let mut err = Error::feature_not_supported(format!("function {name}"));
        err.position = e.position;
        return err;
    }
    e
}

fn not_unique(message: String) -> Error {
    Error::new("42725", message).with_hint(
        "Could not choose a best candidate function. You might need to add explicit type casts.",
    )
}

fn agg_func(name: &str) -> Option<AggFunc> {
    Some(match name {
        "count" => AggFunc::Count,
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        _ => return None,
    })
}

/// PostgreSQL's 42883 for a binary operator with no candidate for these operand types.
fn no_operator(left: DataType, op: &str, right: DataType) -> Error {
    Error::undefined_function(format!(
        "operator does not exist: {} {op} {}",
        left.name(),
        right.name()
    ))
}

/// PostgreSQL's 42725 for an operator whose operand types leave several candidates.
fn operator_not_unique(signature: &str) -> Error {
    Error::new("42725", format!("operator is not unique: {signature}")).with_hint(
        "Could not choose a best candidate operator. You might need to add explicit type casts.",
    )
}

/// The type an unknown literal takes opposite a typed operand of an arithmetic operator,
/// as PostgreSQL's operator resolution decides it: the other operand's type when
/// `T op T` exists (`date - date`, `timestamp - timestamp`), else the one candidate
/// (`timestamp + interval`); `None` when several candidates remain (`date + integer`,
/// `date + interval`, `date + time`: "operator is not unique").
fn unknown_operand_type(op: BinaryOp, other: DataType) -> Option<DataType> {
    use DataType as D;
    Some(match (other, op) {
        (D::Date | D::Timestamp | D::Timestamptz, BinaryOp::Sub) => other,
        (D::Date, BinaryOp::Add) => return None,
        (D::Timestamp | D::Timestamptz, _) => D::Interval,
        (t, _) => t,
    })
}

/// PostgreSQL's UNION/CASE type resolution for a set of expressions.
/// Whether an expression reads a column (or an aggregate of one): PostgreSQL's
/// contain_vars_of_level(expr, 0).
fn mentions_columns(e: &Expr) -> bool {
    let mut found = matches!(e, Expr::Column { .. } | Expr::Agg { .. });
    e.children(&mut |c| found |= mentions_columns(c));
    found
}

fn common_type(exprs: &[&Expr], context: &str) -> Result<SqlType> {
    let mut result: Option<SqlType> = None;
    for e in exprs {
        let t = e.ty();
        if t.ty == DataType::Unknown {
            continue;
        }
        result = Some(match result {
            None => t,
            Some(r) if r.ty == t.ty => {
                if r.typmod == t.typmod {
                    r
                } else {
                    SqlType::new(r.ty)
                }
            }
            Some(r) => {
                if r.ty.is_string() && t.ty.is_string() {
                    TEXT
                } else if let (Some(a), Some(b)) = (r.ty.numeric_rank(), t.ty.numeric_rank()) {
                    // CASE/COALESCE/VALUES keep the higher type (real stays real);
                    // only operators prefer double precision.
                    SqlType::new(if a >= b { r.ty } else { t.ty })
                } else if cast::is_implicit(r.ty, t.ty) {
                    SqlType::new(t.ty)
                } else if cast::is_implicit(t.ty, r.ty) {
                    SqlType::new(r.ty)
                } else {
                    return Err(Error::datatype_mismatch(format!(
                        "{context} types {} and {} cannot be matched",
                        r.ty.name(),
                        t.ty.name()
                    )));
                }
            }
        });
    }
    Ok(result.unwrap_or(UNKNOWN))
}

/// Rewrites an expression bound over the input of an aggregation so that it reads the
/// aggregation's output: grouped expressions and aggregates become column references.
fn rewrite_grouped(e: Expr, group_by: &[Expr], ngroups: usize, scope: &Scope) -> Result<Expr> {
    if let Some(i) = group_by.iter().position(|g| *g == e) {
        return Ok(Expr::Column {
            index: i,
            ty: e.ty(),
            name: String::new(),
        });
    }
    match e {
        Expr::Agg { index, ty } => Ok(Expr::Column {
            index: ngroups + index,
            ty,
            name: String::new(),
        }),
        Expr::Column { name, index, .. } => {
            // PostgreSQL names the column with its relation: "t.a".
            let qualified = match scope.columns.get(index).and_then(|c| c.qualifier.as_ref()) {
                Some(q) => format!("{q}.{name}"),
                None => name,
            };
            Err(Error::grouping(format!(
                "column \"{qualified}\" must appear in the GROUP BY clause or be used in an aggregate function"
            )))
        }
        mut other => {
            let mut err = None;
            other.children_mut(&mut |c| {
                if err.is_some() {
                    return;
                }
                let taken = std::mem::replace(c, Expr::literal(Value::Null, UNKNOWN));
                match rewrite_grouped(taken, group_by, ngroups, scope) {
                    Ok(r) => *c = r,
                    Err(e) => err = Some(e),
                }
            });
            match err {
                Some(e) => Err(e),
                None => Ok(other),
            }
        }
    }
}

fn push_filter(plan: Plan, filter: Option<Expr>) -> Plan {
    match (plan, filter) {
        (plan, None) => plan,
        (
            Plan::Scan {
                table,
                filter: None,
                row_ids,
                needed,
            },
            Some(f),
        ) => Plan::Scan {
            table,
            filter: Some(f),
            row_ids,
            needed,
        },
        (plan, Some(f)) => Plan::Filter {
            input: Box::new(plan),
            predicate: f,
        },
    }
}

/// Number of output columns of a plan.
pub fn plan_width(plan: &Plan) -> usize {
    match plan {
        Plan::Scan { table, row_ids, .. } => table.columns.len() + usize::from(*row_ids),
        Plan::Values { types, .. } => types.len(),
        Plan::GenerateSeries { .. } => 1,
        Plan::Filter { input, .. }
        | Plan::Distinct { input }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. } => plan_width(input),
        Plan::Project { exprs, .. } => exprs.len(),
        Plan::Aggregate { group_by, aggs, .. } => group_by.len() + aggs.len(),
    }
}

/// PostgreSQL's FigureColname: the output name of an unaliased select item.
fn derive_name(e: &A::Expr) -> String {
    figure_name(e).map_or_else(|| "?column?".into(), |(name, _)| name)
}

/// How strongly a name was derived (FigureColnameInternal's result): a column or
/// function name (2) beats a cast's type or `case` (1), which beats nothing.
const NAME_STRONG: u8 = 2;
const NAME_WEAK: u8 = 1;

fn figure_name(e: &A::Expr) -> Option<(String, u8)> {
    let strong = |n: &str| Some((n.to_string(), NAME_STRONG));
    match e {
        A::Expr::Identifier(id) => Some((ident_name(id), NAME_STRONG)),
        A::Expr::CompoundIdentifier(ids) => ids.last().map(|i| (ident_name(i), NAME_STRONG)),
        A::Expr::Function(f) => match f.name.0.last() {
            Some(A::ObjectNamePart::Identifier(i)) => Some((ident_name(i), NAME_STRONG)),
            _ => None,
        },
        A::Expr::Nested(inner) => figure_name(inner),
        // A cast names its column after the type unless its operand has a stronger name.
        A::Expr::Cast {
            expr, data_type, ..
        } => match figure_name(expr) {
            Some(named) if named.1 > NAME_WEAK => Some(named),
            _ => Some((cast_type_name(data_type), NAME_WEAK)),
        },
        A::Expr::TypedString(ts) => Some((cast_type_name(&ts.data_type), NAME_WEAK)),
        A::Expr::Interval(_) => Some(("interval".into(), NAME_WEAK)),
        // CASE takes its ELSE result's name when that one is strong.
        A::Expr::Case { else_result, .. } => match else_result.as_deref().and_then(figure_name) {
            Some(named) if named.1 > NAME_WEAK => Some(named),
            _ => Some(("case".into(), NAME_WEAK)),
        },
        A::Expr::Substring { shorthand, .. } => {
            strong(if *shorthand { "substr" } else { "substring" })
        }
        A::Expr::Position { .. } => strong("position"),
        A::Expr::Trim { trim_where, .. } => match trim_where {
            Some(A::TrimWhereField::Leading) => strong("ltrim"),
            Some(A::TrimWhereField::Trailing) => strong("rtrim"),
            _ => strong("btrim"),
        },
        A::Expr::Extract { .. } => strong("extract"),
        A::Expr::AtTimeZone { .. } => strong("timezone"),
        A::Expr::Ceil { .. } => strong("ceil"),
        A::Expr::Floor { .. } => strong("floor"),
        _ => None,
    }
}

/// The name PostgreSQL gives a cast's column (its internal type name).
fn cast_type_name(dt: &A::DataType) -> String {
    match type_from_ast(dt) {
        Ok(t) => match t.ty {
            DataType::Bool => "bool",
            DataType::Int2 => "int2",
            DataType::Int4 => "int4",
            DataType::Int8 => "int8",
            DataType::Float4 => "float4",
            DataType::Float8 => "float8",
            DataType::Numeric => "numeric",
            DataType::Text => "text",
            DataType::Varchar => "varchar",
            DataType::Bpchar => "bpchar",
            DataType::Date => "date",
            DataType::Timestamp => "timestamp",
            DataType::Timestamptz => "timestamptz",
            DataType::Interval => "interval",
            DataType::Unknown => "unknown",
        }
        .to_string(),
        Err(_) => "?column?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kiln_functions_are_sorted_postgres_builtins() {
        assert!(KILN_FUNCTIONS.windows(2).all(|w| w[0] < w[1]));
        for name in KILN_FUNCTIONS {
            // Every name kiln binds is one PostgreSQL has (sqlparser's keyword forms
            // included, which pg_proc lists as functions too, except these).
            let keyword_only = matches!(
                *name,
                "ceiling"
                    | "current_catalog"
                    | "current_date"
                    | "current_role"
                    | "current_timestamp"
                    | "current_user"
                    | "localtimestamp"
                    | "session_user"
                    | "user"
                    | "coalesce"
                    | "greatest"
                    | "least"
                    | "nullif"
                    | "extract"
                    | "trim"
                    | "pg_typeof"
            );
            assert!(
                keyword_only || crate::sql::pg_functions::is_builtin(name),
                "{name}"
            );
        }
    }
}
