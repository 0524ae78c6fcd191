//! Query plans: what the binder produces and the executor runs.
//!
//! The first version builds the physical plan directly while binding, with the rewrites
//! that matter most applied on the way: the WHERE clause is pushed into the scan (it
//! filters through a selection vector, never copying rows), `ORDER BY … LIMIT` becomes a
//! bounded top-N sort, and projections that only restate their input are dropped.

use std::sync::Arc;

use crate::catalog::{ColumnDef, TableEntry};
use crate::sql::expr::{AggCall, Expr};
use crate::types::SqlType;

pub mod fold;
pub mod prune;

#[derive(Clone, Debug)]
pub struct SortKey {
    pub column: usize,
    pub desc: bool,
    pub nulls_first: bool,
}

#[derive(Clone, Debug)]
pub enum Plan {
    /// All columns of a table (plus a row-id column when `row_ids`), rows the snapshot
    /// sees that pass `filter`.
    Scan {
        table: Arc<TableEntry>,
        filter: Option<Expr>,
        row_ids: bool,
        /// Table columns the plan reads (`None`: all). Unread columns stay empty vectors,
        /// so column positions never change.
        needed: Option<Vec<bool>>,
    },
    /// Literal rows.
    Values {
        rows: Vec<Vec<Expr>>,
        types: Vec<SqlType>,
    },
    /// `generate_series(start, stop [, step])` over integers.
    GenerateSeries {
        args: Vec<Expr>,
        ty: SqlType,
    },
    Filter {
        input: Box<Plan>,
        predicate: Expr,
    },
    Project {
        input: Box<Plan>,
        exprs: Vec<Expr>,
    },
    /// Output: group-by columns, then one column per aggregate.
    Aggregate {
        input: Box<Plan>,
        group_by: Vec<Expr>,
        aggs: Vec<AggCall>,
    },
    Distinct {
        input: Box<Plan>,
    },
    /// Sorts on input columns; with `limit`, keeps only the first `limit` rows (top-N).
    Sort {
        input: Box<Plan>,
        keys: Vec<SortKey>,
        limit: Option<Expr>,
    },
    Limit {
        input: Box<Plan>,
        limit: Option<Expr>,
        offset: Option<Expr>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputColumn {
    pub name: String,
    pub ty: SqlType,
}

#[derive(Clone, Debug)]
pub enum TransactionOp {
    Begin,
    Commit,
    Rollback,
    Savepoint(String),
    RollbackTo(String),
    Release(String),
}

/// A statement ready to execute.
#[derive(Clone, Debug)]
pub enum BoundStatement {
    Query {
        plan: Plan,
        columns: Vec<OutputColumn>,
    },
    /// `source` yields rows in table column order, already cast to column types.
    Insert {
        table: Arc<TableEntry>,
        source: Plan,
    },
    /// `source` is a scan with row ids (last column) whose other columns are the new row.
    Update {
        table: Arc<TableEntry>,
        source: Plan,
    },
    Delete {
        table: Arc<TableEntry>,
        source: Plan,
    },
    Truncate {
        tables: Vec<Arc<TableEntry>>,
    },
    CreateTable {
        name: String,
        columns: Vec<ColumnDef>,
        if_not_exists: bool,
    },
    DropTable {
        names: Vec<String>,
        if_exists: bool,
    },
    Transaction(TransactionOp),
    Set {
        name: String,
        value: Option<String>,
        local: bool,
    },
    Show {
        name: String,
    },
    /// DEALLOCATE name, or DEALLOCATE ALL (`None`).
    Deallocate {
        name: Option<String>,
    },
    /// Accepted and ignored, with the command tag to answer.
    NoOp {
        tag: String,
    },
}

impl BoundStatement {
    /// Whether running the statement needs the writer lock (and so a transaction id).
    pub fn takes_writer_lock(&self) -> bool {
        match self {
            BoundStatement::Insert { .. }
            | BoundStatement::Update { .. }
            | BoundStatement::Delete { .. }
            | BoundStatement::Truncate { .. }
            | BoundStatement::CreateTable { .. }
            | BoundStatement::DropTable { .. } => true,
            BoundStatement::Query { .. }
            | BoundStatement::Transaction(_)
            | BoundStatement::Set { .. }
            | BoundStatement::Show { .. }
            | BoundStatement::Deallocate { .. }
            | BoundStatement::NoOp { .. } => false,
        }
    }

    /// The result columns, if the statement returns rows.
    pub fn output_columns(&self) -> Option<Vec<OutputColumn>> {
        match self {
            BoundStatement::Query { columns, .. } => Some(columns.clone()),
            BoundStatement::Show { name } => Some(vec![OutputColumn {
                name: name.clone(),
                ty: SqlType::new(crate::types::DataType::Text),
            }]),
            _ => None,
        }
    }
}
