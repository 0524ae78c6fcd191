//! Logical plans: what the binder produces and the optimizer rewrites.
//!
//! A logical plan is a tree of relational operators. Its expressions name columns by
//! [`ColumnId`] — a relation number the binder hands out (unique within one statement)
//! and a column of that relation — never by position, so rules can move, merge and
//! reorder operators without renumbering anything. Which node *defines* a relation:
//!
//! | node | defines | outputs |
//! |---|---|---|
//! | `Get` | its `rel`: column `c` is table column `c` (`row_id`: column `ncols`) | the table columns in `columns` |
//! | `Values`, `Series` | `rel`, columns `0..n` | them |
//! | `Project` | `rel`, one column per expression | them |
//! | `Aggregate` | `rel`: group keys `0..g`, then aggregates `g..` | them |
//! | `Window` | `rel`: one column per window function | the input's, then them |
//! | `Join` | nothing (`Mark` defines its mark column) | left ++ right (semi/anti: left; mark: left ++ mark) |
//! | `SetOp`, `CteScan`, `RecursiveCte`, `WorkTable` | `rel`, columns `0..n` | them |
//! | `Filter`, `Sort`, `Limit`, `Distinct`, `With` | nothing | their input's |
//!
//! A subquery inside an expression ([`crate::sql::expr::Subquery`]) holds its own logical
//! plan; a [`ColumnId`] in it that no node of that plan defines is an *outer reference*
//! (a correlated column). Because relation numbers are unique in the statement, the
//! correlation of a subquery is simply the set of relations it reads but does not define
//! ([`LogicalPlan::free_rels`]), however deeply it is nested.
//!
//! The physical planner ([`super::lower`]) turns `ColumnId`s into positions.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use crate::catalog::TableEntry;
use crate::sql::expr::{AggCall, Expr, WindowCall};
use crate::types::{DataType, SqlType};

pub type RelId = u32;

/// One column of one relation of a logical plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColumnId {
    pub rel: RelId,
    pub col: u32,
}

impl ColumnId {
    pub const fn new(rel: RelId, col: u32) -> ColumnId {
        ColumnId { rel, col }
    }
}

impl fmt::Display for ColumnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}.{}", self.rel, self.col)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows with at least one match.
    Semi,
    /// Left rows without a match.
    Anti,
    /// `NOT IN`'s anti join: a left row passes only when no right row makes the
    /// condition true *or NULL* (and any row passes when the right side is empty).
    AntiNullAware,
    /// Left rows plus a boolean *mark*: true if some right row matched, NULL if none did
    /// but the condition was NULL for some, false otherwise (an IN/EXISTS/ANY that is not
    /// a plain conjunct of WHERE).
    Mark,
    /// A left join that fails with `21000` when a left row has two matches (a scalar
    /// subquery turned into a join).
    Single,
    /// Right rows with at least one match: a semi join with its inputs swapped, so the
    /// hash table holds the smaller side (physical plans only; see `lower_join`).
    RightSemi,
    /// Right rows without a match: an anti join with its inputs swapped (physical only).
    RightAnti,
}

impl JoinKind {
    /// Whether the output carries the right side's columns.
    pub fn emits_right(self) -> bool {
        match self {
            JoinKind::Inner
            | JoinKind::Left
            | JoinKind::Right
            | JoinKind::Full
            | JoinKind::Single => true,
            JoinKind::Semi
            | JoinKind::Anti
            | JoinKind::AntiNullAware
            | JoinKind::Mark
            | JoinKind::RightSemi
            | JoinKind::RightAnti => false,
        }
    }

    /// Whether the output carries the left side's columns (all kinds but the swapped
    /// semi and anti joins, whose output is their right input's rows).
    pub fn emits_left(self) -> bool {
        !matches!(self, JoinKind::RightSemi | JoinKind::RightAnti)
    }

    pub fn name(self) -> &'static str {
        match self {
            JoinKind::Inner => "Inner",
            JoinKind::Left => "Left",
            JoinKind::Right => "Right",
            JoinKind::Full => "Full",
            JoinKind::Semi => "Semi",
            JoinKind::Anti => "Anti",
            JoinKind::AntiNullAware => "Anti (null-aware)",
            JoinKind::Mark => "Mark",
            JoinKind::Single => "Single",
            JoinKind::RightSemi => "Right Semi",
            JoinKind::RightAnti => "Right Anti",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOpKind {
    Union,
    Intersect,
    Except,
}

/// A WITH query that runs once and is read by every reference ([`LogicalPlan::With`]).
#[derive(Clone, Debug)]
pub struct CteDef {
    /// Unique in the statement; the scans of this CTE name it.
    pub id: u32,
    pub name: String,
    pub plan: LogicalPlan,
}

/// One ORDER BY key.
#[derive(Clone, Debug, PartialEq)]
pub struct SortExpr {
    pub expr: Expr,
    pub desc: bool,
    pub nulls_first: bool,
}

/// The set-returning functions kiln runs in FROM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFunc {
    GenerateSeries,
    /// The elements of one array, in storage order.
    Unnest,
    /// information_schema._pg_expandarray: each element with its position, as records
    /// `(x, n)` (what pgJDBC's metadata queries expand index keys with).
    ExpandArray,
    /// The rows of a system catalog (`catalog::system`), built when it is scanned.
    System(crate::catalog::system::SystemTable),
    /// Set-returning functions of one call's arguments: the json ones
    /// (`exec::json_functions::set_rows`) and regexp_matches / regexp_split_to_table
    /// (`exec::regexp`).
    Set(SetFn),
    /// jsonb_to_record(set) and json_to_record(set) (`json`): rows of the columns the
    /// call's column definition list declares, whose names come as a second argument
    /// (`exec::json_functions::record_rows`).
    JsonRecord {
        json: bool,
        set: bool,
    },
}

/// A set-returning function of its arguments: a json or jsonb document taken apart
/// (jsonb_each (`text`: jsonb_each_text), the object keys, the array elements;
/// `json`: the json type's own versions; jsonb_path_query), or a string's regexp
/// matches and pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetFn {
    Each {
        json: bool,
        text: bool,
    },
    ObjectKeys {
        json: bool,
    },
    ArrayElements {
        json: bool,
        text: bool,
    },
    /// jsonb_path_query(target, path, vars, silent).
    PathQuery,
    /// regexp_matches(string, pattern, flags): text[] rows.
    RegexpMatches,
    /// regexp_split_to_table(string, pattern, flags): text rows.
    RegexpSplit,
    /// unnest(tsvector): (lexeme, positions, weights) rows. Not in [`SetFn::ALL`]: the
    /// binder picks it for `unnest` of a tsvector.
    TsUnnest,
    /// ts_parse(parser, document): (tokid, token) rows of the default parser.
    TsParse,
    /// ts_token_type(parser): (tokid, alias, description) rows.
    TsTokenType,
}

impl SetFn {
    pub fn name(self) -> &'static str {
        match self {
            SetFn::Each {
                json: false,
                text: false,
            } => "jsonb_each",
            SetFn::Each {
                json: false,
                text: true,
            } => "jsonb_each_text",
            SetFn::Each {
                json: true,
                text: false,
            } => "json_each",
            SetFn::Each {
                json: true,
                text: true,
            } => "json_each_text",
            SetFn::ObjectKeys { json: false } => "jsonb_object_keys",
            SetFn::ObjectKeys { json: true } => "json_object_keys",
            SetFn::ArrayElements {
                json: false,
                text: false,
            } => "jsonb_array_elements",
            SetFn::ArrayElements {
                json: false,
                text: true,
            } => "jsonb_array_elements_text",
            SetFn::ArrayElements {
                json: true,
                text: false,
            } => "json_array_elements",
            SetFn::ArrayElements {
                json: true,
                text: true,
            } => "json_array_elements_text",
            SetFn::PathQuery => "jsonb_path_query",
            SetFn::RegexpMatches => "regexp_matches",
            SetFn::RegexpSplit => "regexp_split_to_table",
            SetFn::TsUnnest => "unnest",
            SetFn::TsParse => "ts_parse",
            SetFn::TsTokenType => "ts_token_type",
        }
    }

    /// Its result columns: (name, type); None names a one-column function's column
    /// after the function (or its alias).
    pub fn columns(self) -> Vec<(Option<&'static str>, DataType)> {
        let doc = |json: bool, text: bool| match (json, text) {
            (_, true) => DataType::Text,
            (true, false) => DataType::Json,
            (false, false) => DataType::Jsonb,
        };
        match self {
            SetFn::Each { json, text } => {
                vec![
                    (Some("key"), DataType::Text),
                    (Some("value"), doc(json, text)),
                ]
            }
            SetFn::ObjectKeys { .. } => vec![(None, DataType::Text)],
            SetFn::ArrayElements { json, text } => vec![(Some("value"), doc(json, text))],
            SetFn::PathQuery => vec![(None, DataType::Jsonb)],
            SetFn::RegexpMatches => vec![(
                None,
                DataType::array_of(DataType::Text).unwrap_or(DataType::Text),
            )],
            SetFn::RegexpSplit => vec![(None, DataType::Text)],
            SetFn::TsParse => vec![
                (Some("tokid"), DataType::Int4),
                (Some("token"), DataType::Text),
            ],
            SetFn::TsTokenType => vec![
                (Some("tokid"), DataType::Int4),
                (Some("alias"), DataType::Text),
                (Some("description"), DataType::Text),
            ],
            SetFn::TsUnnest => vec![
                (Some("lexeme"), DataType::Text),
                (
                    Some("positions"),
                    DataType::array_of(DataType::Int2).unwrap_or(DataType::Text),
                ),
                (
                    Some("weights"),
                    DataType::array_of(DataType::Text).unwrap_or(DataType::Text),
                ),
            ],
        }
    }

    pub const ALL: [SetFn; 15] = [
        SetFn::Each {
            json: false,
            text: false,
        },
        SetFn::Each {
            json: false,
            text: true,
        },
        SetFn::Each {
            json: true,
            text: false,
        },
        SetFn::Each {
            json: true,
            text: true,
        },
        SetFn::ObjectKeys { json: false },
        SetFn::ObjectKeys { json: true },
        SetFn::ArrayElements {
            json: false,
            text: false,
        },
        SetFn::ArrayElements {
            json: false,
            text: true,
        },
        SetFn::ArrayElements {
            json: true,
            text: false,
        },
        SetFn::ArrayElements {
            json: true,
            text: true,
        },
        SetFn::PathQuery,
        SetFn::RegexpMatches,
        SetFn::RegexpSplit,
        SetFn::TsParse,
        SetFn::TsTokenType,
    ];

    pub fn by_name(name: &str) -> Option<SetFn> {
        if name == "jsonb_path_query_tz" {
            return Some(SetFn::PathQuery);
        }
        SetFn::ALL.into_iter().find(|j| j.name() == name)
    }
}

impl TableFunc {
    pub fn name(self) -> &'static str {
        match self {
            TableFunc::GenerateSeries => "generate_series",
            TableFunc::Unnest => "unnest",
            TableFunc::ExpandArray => "_pg_expandarray",
            TableFunc::System(t) => t.name(),
            TableFunc::Set(j) => j.name(),
            TableFunc::JsonRecord { json, set } => match (json, set) {
                (false, false) => "jsonb_to_record",
                (false, true) => "jsonb_to_recordset",
                (true, false) => "json_to_record",
                (true, true) => "json_to_recordset",
            },
        }
    }
}

/// A set-returning function call in a select list.
#[derive(Clone, Debug, PartialEq)]
pub struct SrfCall {
    pub func: TableFunc,
    pub args: Vec<Expr>,
    pub ty: SqlType,
}

#[derive(Clone, Debug)]
pub enum LogicalPlan {
    /// Rows of a table the statement's snapshot sees, passing `filter`.
    Get {
        rel: RelId,
        table: Arc<TableEntry>,
        /// The name the query knows it by (its alias), for EXPLAIN.
        alias: String,
        /// Table columns read, ascending. The optimizer's pruning narrows it.
        columns: Vec<u32>,
        /// Whether the row id (column `table.columns.len()`) is read too (UPDATE, DELETE).
        row_id: bool,
        filter: Option<Expr>,
    },
    /// Literal rows (VALUES, and the one empty row of a SELECT without FROM).
    Values {
        rel: RelId,
        rows: Vec<Vec<Expr>>,
        types: Vec<SqlType>,
    },
    /// A set-returning function in FROM: `generate_series(start, stop [, step])` over
    /// integers, `unnest(array, …)` (one column per array, shorter ones padded with
    /// NULL). Its arguments may read a LATERAL outer row. `types` are its columns',
    /// the last a bigint `ordinality` WITH ORDINALITY.
    Series {
        rel: RelId,
        func: TableFunc,
        args: Vec<Expr>,
        types: Vec<SqlType>,
        ordinality: bool,
    },
    Filter {
        input: Box<LogicalPlan>,
        predicate: Expr,
    },
    Project {
        input: Box<LogicalPlan>,
        rel: RelId,
        exprs: Vec<Expr>,
    },
    Aggregate {
        input: Box<LogicalPlan>,
        rel: RelId,
        group_by: Vec<Expr>,
        aggs: Vec<AggCall>,
    },
    /// Set-returning functions in the select list (PostgreSQL's ProjectSet): for each
    /// input row, as many rows as the longest call returns, shorter calls padded with
    /// NULL; outputs the input's columns, then one per call (`rel`).
    ProjectSet {
        input: Box<LogicalPlan>,
        rel: RelId,
        calls: Vec<SrfCall>,
    },
    /// Window functions over the input: its columns, then one per call (`rel`).
    Window {
        input: Box<LogicalPlan>,
        rel: RelId,
        calls: Vec<WindowCall>,
    },
    Join {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        kind: JoinKind,
        /// The join condition (`true` literal for a cross product).
        on: Expr,
        /// The mark column a `Mark` join defines.
        mark: Option<ColumnId>,
    },
    Distinct {
        input: Box<LogicalPlan>,
    },
    /// Each `keys` value's first row, in the input's order (DISTINCT ON).
    DistinctOn {
        input: Box<LogicalPlan>,
        keys: Vec<Expr>,
    },
    Sort {
        input: Box<LogicalPlan>,
        keys: Vec<SortExpr>,
    },
    Limit {
        input: Box<LogicalPlan>,
        limit: Option<Expr>,
        offset: Option<Expr>,
        /// FETCH … WITH TIES: the ORDER BY keys (columns of the input); rows past the
        /// count are kept while their keys equal the last counted row's.
        ties: Vec<Expr>,
    },
    /// UNION / INTERSECT / EXCEPT [ALL] of two inputs whose columns have the same
    /// types (`types`); defines `rel`.
    SetOp {
        kind: SetOpKind,
        all: bool,
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        rel: RelId,
        types: Vec<SqlType>,
    },
    /// WITH queries that are materialized (read by `CteScan`s in `input`).
    With {
        ctes: Vec<CteDef>,
        input: Box<LogicalPlan>,
    },
    /// The rows of a materialized WITH query; defines `rel`.
    CteScan {
        rel: RelId,
        id: u32,
        name: String,
        types: Vec<SqlType>,
    },
    /// WITH RECURSIVE: `anchor UNION [ALL] recursive`, where `recursive` reads the rows
    /// the previous step produced through a `WorkTable`; defines `rel`.
    RecursiveCte {
        rel: RelId,
        id: u32,
        name: String,
        anchor: Box<LogicalPlan>,
        recursive: Box<LogicalPlan>,
        all: bool,
        types: Vec<SqlType>,
    },
    /// Inside a recursive CTE's recursive term: the previous step's rows.
    WorkTable {
        rel: RelId,
        id: u32,
        name: String,
        types: Vec<SqlType>,
    },
}

/// An output column of a plan node: its id and type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutCol {
    pub id: ColumnId,
    pub ty: SqlType,
}

const INT8: SqlType = SqlType::new(DataType::Int8);
const BOOL: SqlType = SqlType::new(DataType::Bool);

impl LogicalPlan {
    /// The columns this node outputs, in order.
    pub fn output(&self) -> Vec<OutCol> {
        match self {
            LogicalPlan::Get {
                rel,
                table,
                columns,
                row_id,
                ..
            } => {
                let mut out: Vec<OutCol> = columns
                    .iter()
                    .map(|&c| OutCol {
                        id: ColumnId::new(*rel, c),
                        ty: table.columns[c as usize].ty,
                    })
                    .collect();
                if *row_id {
                    out.push(OutCol {
                        id: ColumnId::new(*rel, table.columns.len() as u32),
                        ty: INT8,
                    });
                }
                out
            }
            LogicalPlan::Values { rel, types, .. } | LogicalPlan::Series { rel, types, .. } => {
                types
                    .iter()
                    .enumerate()
                    .map(|(i, &ty)| OutCol {
                        id: ColumnId::new(*rel, i as u32),
                        ty,
                    })
                    .collect()
            }
            LogicalPlan::Project { rel, exprs, .. } => exprs
                .iter()
                .enumerate()
                .map(|(i, e)| OutCol {
                    id: ColumnId::new(*rel, i as u32),
                    ty: e.ty(),
                })
                .collect(),
            LogicalPlan::Aggregate {
                rel,
                group_by,
                aggs,
                ..
            } => group_by
                .iter()
                .map(|g| g.ty())
                .chain(aggs.iter().map(|a| a.ty))
                .enumerate()
                .map(|(i, ty)| OutCol {
                    id: ColumnId::new(*rel, i as u32),
                    ty,
                })
                .collect(),
            LogicalPlan::Join {
                left,
                right,
                kind,
                mark,
                ..
            } => {
                let mut out = if kind.emits_left() {
                    left.output()
                } else {
                    Vec::new()
                };
                if kind.emits_right() || !kind.emits_left() {
                    out.extend(right.output());
                }
                if let Some(m) = mark {
                    out.push(OutCol { id: *m, ty: BOOL });
                }
                out
            }
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Distinct { input }
            | LogicalPlan::DistinctOn { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::With { input, .. } => input.output(),
            LogicalPlan::Window { input, rel, calls } => {
                let mut out = input.output();
                out.extend(calls.iter().enumerate().map(|(i, c)| OutCol {
                    id: ColumnId::new(*rel, i as u32),
                    ty: c.ty,
                }));
                out
            }
            LogicalPlan::ProjectSet { input, rel, calls } => {
                let mut out = input.output();
                out.extend(calls.iter().enumerate().map(|(i, c)| OutCol {
                    id: ColumnId::new(*rel, i as u32),
                    ty: c.ty,
                }));
                out
            }
            LogicalPlan::SetOp { rel, types, .. }
            | LogicalPlan::CteScan { rel, types, .. }
            | LogicalPlan::RecursiveCte { rel, types, .. }
            | LogicalPlan::WorkTable { rel, types, .. } => types
                .iter()
                .enumerate()
                .map(|(i, &ty)| OutCol {
                    id: ColumnId::new(*rel, i as u32),
                    ty,
                })
                .collect(),
        }
    }

    /// The direct inputs (for WITH: the WITH queries, then the query).
    pub fn inputs(&self) -> Vec<&LogicalPlan> {
        match self {
            LogicalPlan::Get { .. }
            | LogicalPlan::Values { .. }
            | LogicalPlan::Series { .. }
            | LogicalPlan::CteScan { .. }
            | LogicalPlan::WorkTable { .. } => Vec::new(),
            LogicalPlan::SetOp { left, right, .. } => vec![left, right],
            LogicalPlan::RecursiveCte {
                anchor, recursive, ..
            } => vec![anchor, recursive],
            LogicalPlan::With { ctes, input } => {
                let mut v: Vec<&LogicalPlan> = ctes.iter().map(|c| &c.plan).collect();
                v.push(input);
                v
            }
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Aggregate { input, .. }
            | LogicalPlan::Distinct { input }
            | LogicalPlan::DistinctOn { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::Window { input, .. }
            | LogicalPlan::ProjectSet { input, .. } => vec![input],
            LogicalPlan::Join { left, right, .. } => vec![left, right],
        }
    }

    /// The direct inputs, mutably.
    pub fn inputs_mut(&mut self) -> Vec<&mut LogicalPlan> {
        match self {
            LogicalPlan::Get { .. }
            | LogicalPlan::Values { .. }
            | LogicalPlan::Series { .. }
            | LogicalPlan::CteScan { .. }
            | LogicalPlan::WorkTable { .. } => Vec::new(),
            LogicalPlan::SetOp { left, right, .. } => vec![left, right],
            LogicalPlan::RecursiveCte {
                anchor, recursive, ..
            } => vec![anchor, recursive],
            LogicalPlan::With { ctes, input } => {
                let mut v: Vec<&mut LogicalPlan> = ctes.iter_mut().map(|c| &mut c.plan).collect();
                v.push(input);
                v
            }
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Aggregate { input, .. }
            | LogicalPlan::Distinct { input }
            | LogicalPlan::DistinctOn { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::Window { input, .. }
            | LogicalPlan::ProjectSet { input, .. } => vec![input],
            LogicalPlan::Join { left, right, .. } => vec![left, right],
        }
    }

    /// Calls `f` on every expression this node holds (not its inputs').
    pub fn exprs(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            LogicalPlan::Get { filter, .. } => filter.iter().for_each(f),
            LogicalPlan::Values { rows, .. } => rows.iter().flatten().for_each(f),
            LogicalPlan::Series { args, .. } => args.iter().for_each(f),
            LogicalPlan::Filter { predicate, .. } => f(predicate),
            LogicalPlan::Project { exprs, .. } => exprs.iter().for_each(f),
            LogicalPlan::Aggregate { group_by, aggs, .. } => {
                group_by.iter().for_each(&mut *f);
                aggs.iter().for_each(|a| a.exprs(f));
            }
            LogicalPlan::Join { on, .. } => f(on),
            LogicalPlan::Window { calls, .. } => calls.iter().for_each(|c| c.exprs(f)),
            LogicalPlan::ProjectSet { calls, .. } => calls.iter().flat_map(|c| &c.args).for_each(f),
            LogicalPlan::DistinctOn { keys, .. } => keys.iter().for_each(f),
            LogicalPlan::Distinct { .. }
            | LogicalPlan::SetOp { .. }
            | LogicalPlan::With { .. }
            | LogicalPlan::CteScan { .. }
            | LogicalPlan::RecursiveCte { .. }
            | LogicalPlan::WorkTable { .. } => {}
            LogicalPlan::Sort { keys, .. } => keys.iter().for_each(|k| f(&k.expr)),
            LogicalPlan::Limit {
                limit,
                offset,
                ties,
                ..
            } => limit.iter().chain(offset.iter()).chain(ties).for_each(f),
        }
    }

    /// Calls `f` on every expression this node holds, mutably.
    pub fn exprs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            LogicalPlan::Get { filter, .. } => filter.iter_mut().for_each(f),
            LogicalPlan::Values { rows, .. } => rows.iter_mut().flatten().for_each(f),
            LogicalPlan::Series { args, .. } => args.iter_mut().for_each(f),
            LogicalPlan::Filter { predicate, .. } => f(predicate),
            LogicalPlan::Project { exprs, .. } => exprs.iter_mut().for_each(f),
            LogicalPlan::Aggregate { group_by, aggs, .. } => {
                group_by.iter_mut().for_each(&mut *f);
                aggs.iter_mut().for_each(|a| a.exprs_mut(f));
            }
            LogicalPlan::Join { on, .. } => f(on),
            LogicalPlan::Window { calls, .. } => calls.iter_mut().for_each(|c| c.exprs_mut(f)),
            LogicalPlan::ProjectSet { calls, .. } => {
                calls.iter_mut().flat_map(|c| &mut c.args).for_each(f)
            }
            LogicalPlan::DistinctOn { keys, .. } => keys.iter_mut().for_each(f),
            LogicalPlan::Distinct { .. }
            | LogicalPlan::SetOp { .. }
            | LogicalPlan::With { .. }
            | LogicalPlan::CteScan { .. }
            | LogicalPlan::RecursiveCte { .. }
            | LogicalPlan::WorkTable { .. } => {}
            LogicalPlan::Sort { keys, .. } => keys.iter_mut().for_each(|k| f(&mut k.expr)),
            LogicalPlan::Limit {
                limit,
                offset,
                ties,
                ..
            } => limit
                .iter_mut()
                .chain(offset.iter_mut())
                .chain(ties.iter_mut())
                .for_each(f),
        }
    }

    /// Visits every node, parents before children.
    pub fn walk(&self, f: &mut dyn FnMut(&LogicalPlan)) {
        f(self);
        for i in self.inputs() {
            i.walk(f);
        }
    }

    /// Visits every node mutably, parents before children.
    pub fn walk_mut_pre(&mut self, f: &mut dyn FnMut(&mut LogicalPlan)) {
        f(self);
        for i in self.inputs_mut() {
            i.walk_mut_pre(f);
        }
    }

    /// Visits every node mutably, children before parents.
    pub fn walk_mut_post(&mut self, f: &mut dyn FnMut(&mut LogicalPlan)) {
        for i in self.inputs_mut() {
            i.walk_mut_post(f);
        }
        f(self);
    }

    /// Relations this subtree defines, including inside the subqueries of its
    /// expressions.
    pub fn defined_rels(&self, out: &mut BTreeSet<RelId>) {
        self.walk(&mut |p| {
            p.own_rels(out);
            p.exprs(&mut |e| e.visit_subqueries(&mut |sub| sub.plan.defined_rels(out)));
        });
    }

    /// The relations this node itself defines.
    fn own_rels(&self, out: &mut BTreeSet<RelId>) {
        match self {
            LogicalPlan::Get { rel, .. }
            | LogicalPlan::Values { rel, .. }
            | LogicalPlan::Series { rel, .. }
            | LogicalPlan::Project { rel, .. }
            | LogicalPlan::Aggregate { rel, .. }
            | LogicalPlan::Window { rel, .. }
            | LogicalPlan::ProjectSet { rel, .. }
            | LogicalPlan::SetOp { rel, .. }
            | LogicalPlan::CteScan { rel, .. }
            | LogicalPlan::RecursiveCte { rel, .. }
            | LogicalPlan::WorkTable { rel, .. } => {
                out.insert(*rel);
            }
            LogicalPlan::Join { mark, .. } => {
                if let Some(m) = mark {
                    out.insert(m.rel);
                }
            }
            LogicalPlan::Filter { .. }
            | LogicalPlan::Distinct { .. }
            | LogicalPlan::DistinctOn { .. }
            | LogicalPlan::Sort { .. }
            | LogicalPlan::Limit { .. }
            | LogicalPlan::With { .. } => {}
        }
    }

    /// Relations this subtree's expressions read (including inside subqueries).
    pub fn used_rels(&self, out: &mut BTreeSet<RelId>) {
        self.walk(&mut |p| p.exprs(&mut |e| e.used_rels(out)));
    }

    /// Relations read here but defined elsewhere: the outer references of a subquery.
    pub fn free_rels(&self) -> BTreeSet<RelId> {
        let mut used = BTreeSet::new();
        self.used_rels(&mut used);
        let mut defined = BTreeSet::new();
        self.defined_rels(&mut defined);
        used.retain(|r| !defined.contains(r));
        used
    }
}
