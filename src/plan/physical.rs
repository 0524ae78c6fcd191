//! Physical plans: the operators the executor runs, with columns as positions.
//!
//! Produced from a logical plan by [`super::lower`]; `exec::build` turns each node into
//! an operator. An operator's output is a batch whose column `i` is position `i` here;
//! some positions may be unused by the parents (a scan leaves columns it need not read
//! as empty vectors), but every expression only reads positions its input produces.

use std::sync::Arc;

use crate::catalog::TableEntry;
use crate::plan::logical::{JoinKind, SetOpKind};
use crate::sql::expr::{AggCall, Expr, WindowCall};
use crate::types::{DataType, SqlType};

#[derive(Clone, Debug)]
pub struct SortKey {
    pub column: usize,
    pub desc: bool,
    pub nulls_first: bool,
}

/// A physical plan node: the operator and the rows the optimizer expects from it.
#[derive(Clone, Debug)]
pub struct Plan {
    pub op: Op,
    /// Estimated output rows (EXPLAIN shows them).
    pub rows: f64,
}

impl Plan {
    pub fn new(op: Op, rows: f64) -> Plan {
        Plan { op, rows }
    }

    /// The direct inputs, mutably.
    pub fn inputs_mut(&mut self) -> Vec<&mut Plan> {
        match &mut self.op {
            Op::Scan { .. } | Op::Values { .. } | Op::GenerateSeries { .. } => Vec::new(),
            Op::Filter { input, .. }
            | Op::Project { input, .. }
            | Op::Aggregate { input, .. }
            | Op::Distinct { input }
            | Op::DistinctOn { input, .. }
            | Op::Sort { input, .. }
            | Op::Limit { input, .. }
            | Op::LockRows { input, .. }
            | Op::Window { input, .. }
            | Op::ProjectSet { input, .. }
            | Op::Apply { left: input, .. } => vec![input],
            Op::Join { left, right, .. } | Op::SetOp { left, right, .. } => vec![left, right],
            Op::Append { inputs } => inputs.iter_mut().collect(),
            Op::RecursiveUnion {
                anchor, recursive, ..
            } => vec![anchor, recursive],
            Op::CteScan { .. } | Op::WorkTableScan { .. } => Vec::new(),
        }
    }

    /// The direct inputs.
    pub fn inputs(&self) -> Vec<&Plan> {
        match &self.op {
            Op::Scan { .. } | Op::Values { .. } | Op::GenerateSeries { .. } => Vec::new(),
            Op::Filter { input, .. }
            | Op::Project { input, .. }
            | Op::Aggregate { input, .. }
            | Op::Distinct { input }
            | Op::DistinctOn { input, .. }
            | Op::Sort { input, .. }
            | Op::Limit { input, .. }
            | Op::LockRows { input, .. }
            | Op::Window { input, .. }
            | Op::ProjectSet { input, .. }
            | Op::Apply { left: input, .. } => vec![input],
            Op::Join { left, right, .. } | Op::SetOp { left, right, .. } => vec![left, right],
            Op::Append { inputs } => inputs.iter().collect(),
            Op::RecursiveUnion {
                anchor, recursive, ..
            } => vec![anchor, recursive],
            // A CTE's plan runs once for all its scans (EXPLAIN shows it apart).
            Op::CteScan { .. } | Op::WorkTableScan { .. } => Vec::new(),
        }
    }
}

/// What FOR UPDATE does about a row another transaction holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockWait {
    Wait,
    /// NOWAIT: 55P03 at once.
    Error,
    /// SKIP LOCKED: leave the row out.
    Skip,
}

/// Bounds on one key column (values fixed for the scan).
#[derive(Clone, Debug)]
pub struct KeyRange {
    pub lower: Option<(Expr, bool)>,
    pub upper: Option<(Expr, bool)>,
    /// A LIKE pattern over a text key: the keys starting with the pattern's literal
    /// prefix (up to its first wildcard), as `text LIKE 'abc%'` reads an index whose
    /// order is the bytes' (kiln's C collation, and the pattern operator classes).
    pub prefix: Option<Expr>,
}

/// An index scan's lookup: the rows whose leading key columns equal one of `keys`.
#[derive(Clone, Debug)]
pub struct IndexLookup {
    pub index: Arc<crate::catalog::IndexEntry>,
    /// Tuples of values for the leading key columns (expressions over no input row:
    /// literals, parameters, outer values), any of which a row may match.
    pub keys: Vec<Vec<Expr>>,
    /// A range on the key column after those `keys` pin: `(bound, inclusive)` for the
    /// smallest and largest values (SQL order), either open.
    pub range: Option<KeyRange>,
    /// The conditions the lookup answers (EXPLAIN's Index Cond).
    pub conds: Vec<Expr>,
    /// The scan's other conditions, tested on the rows the lookup finds.
    pub residual: Option<Expr>,
    /// Set when the lookup stands in for an ORDER BY … LIMIT: rows come out in the
    /// index's order (or backwards), and the walk stops once it has found enough.
    pub order: Option<IndexOrder>,
}

/// An index walk in key order, for ORDER BY … LIMIT.
#[derive(Clone, Debug)]
pub struct IndexOrder {
    /// Backwards (`Index Scan Backward`).
    pub reverse: bool,
    /// How many rows the consumer needs (LIMIT + OFFSET); the walk finds at least
    /// these, or all.
    pub count: Expr,
}

#[derive(Clone, Debug)]
pub enum Op {
    /// All columns of a table (plus a row-id column when `row_ids`), rows the snapshot
    /// sees that pass `filter`.
    Scan {
        table: Arc<TableEntry>,
        /// The name the query knows the table by (EXPLAIN).
        alias: String,
        filter: Option<Expr>,
        row_ids: bool,
        /// Table columns the plan reads (`None`: all). Unread columns stay empty vectors,
        /// so column positions never change.
        needed: Option<Vec<bool>>,
        /// Read through an index instead of the whole table (`filter` still holds every
        /// condition, so code that ignores this reads the same rows the slow way).
        index: Option<Box<IndexLookup>>,
    },
    /// Literal rows.
    Values {
        rows: Vec<Vec<Expr>>,
        types: Vec<SqlType>,
    },
    /// A set-returning function in FROM (`generate_series`, `unnest`).
    GenerateSeries {
        func: crate::plan::logical::TableFunc,
        args: Vec<Expr>,
        /// The output columns' types (the last the ordinality, when asked for).
        types: Vec<SqlType>,
        ordinality: bool,
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
    /// The first row of each `keys` value, in the input's order.
    DistinctOn {
        input: Box<Plan>,
        keys: Vec<Expr>,
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
        /// WITH TIES: the input positions of the ORDER BY keys (empty: none).
        ties: Vec<usize>,
    },
    /// SELECT … FOR UPDATE / FOR SHARE: locks the table row whose row id is at input
    /// position `rid` of each input row, before passing it on. `count` (the LIMIT +
    /// OFFSET above it) bounds how many rows it locks.
    LockRows {
        input: Box<Plan>,
        table: Arc<TableEntry>,
        rid: usize,
        wait: LockWait,
        count: Option<(Option<Expr>, Option<Expr>)>,
    },
    /// A hash join on `left_keys[i] = right_keys[i]` (a nested loop without keys); the
    /// right input is the build side. Output: left positions, then right positions
    /// (semi/anti joins: left only).
    Join {
        left: Box<Plan>,
        right: Box<Plan>,
        kind: JoinKind,
        left_keys: Vec<Expr>,
        right_keys: Vec<Expr>,
        /// The rest of the condition, over left positions then right positions.
        residual: Option<Expr>,
        /// Types of each side's positions (None: unused, left empty).
        left_types: Vec<Option<DataType>>,
        right_types: Vec<Option<DataType>>,
    },
    /// Window functions: the input's positions, then one per call. Calls that share
    /// their PARTITION BY and ORDER BY share one sort.
    /// Set-returning functions in a select list: the input's columns repeated for each
    /// row the calls return, then one column per call.
    ProjectSet {
        input: Box<Plan>,
        calls: Vec<crate::plan::logical::SrfCall>,
        /// Types of the input's positions (None: unused).
        input_types: Vec<Option<DataType>>,
    },
    Window {
        input: Box<Plan>,
        calls: Vec<WindowCall>,
        /// Types of the input's positions (None: unused).
        input_types: Vec<Option<DataType>>,
    },
    /// A LATERAL join: `right` runs for each left row, with the outer values it reads
    /// (`params`, over the left row) in their slots; `condition` filters the pairs.
    Apply {
        left: Box<Plan>,
        right: Arc<Plan>,
        kind: JoinKind,
        params: Vec<(usize, Expr)>,
        condition: Option<Expr>,
        right_types: Vec<Option<DataType>>,
    },
    /// The rows of every input, one after the other (UNION ALL).
    Append {
        inputs: Vec<Plan>,
    },
    /// INTERSECT / EXCEPT [ALL] of two inputs of the same columns.
    SetOp {
        kind: SetOpKind,
        all: bool,
        left: Box<Plan>,
        right: Box<Plan>,
    },
    /// The rows of a WITH query, computed by its first scan and shared by the others.
    CteScan {
        id: u32,
        name: String,
        plan: Arc<Plan>,
    },
    /// WITH RECURSIVE: the anchor's rows, then the recursive term run again and again
    /// over the previous step's rows until a step adds none.
    RecursiveUnion {
        id: u32,
        name: String,
        anchor: Box<Plan>,
        recursive: Box<Plan>,
        all: bool,
    },
    /// The previous step's rows of recursive CTE `id`.
    WorkTableScan {
        id: u32,
        name: String,
    },
}

/// Marks the input positions `e` reads.
pub fn mark_columns(e: &Expr, read: &mut [bool]) {
    if let Expr::Column { index, .. } = e
        && let Some(slot) = read.get_mut(*index)
    {
        *slot = true;
    }
    e.children(&mut |c| mark_columns(c, read));
}
