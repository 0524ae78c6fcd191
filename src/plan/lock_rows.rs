//! SELECT … FOR UPDATE / FOR SHARE: the physical plan threaded with row ids and a
//! LockRows node.
//!
//! The table's scan also reads row ids; every projection between it and the top carries
//! the row id along as an extra last column; a LockRows node goes right under the LIMIT
//! (or on top when there is none), as in PostgreSQL; a last projection drops the row id
//! again. Queries over one table only: aggregates, DISTINCT, window functions and set
//! operations are refused as PostgreSQL refuses them (0A000), joins and subqueries over
//! other tables with 0A000 naming what kiln lacks.

use std::sync::Arc;

use super::OutputColumn;
use super::physical::{LockWait, Op, Plan};
use crate::catalog::TableEntry;
use crate::error::{Error, Result};
use crate::sql::expr::Expr;
use crate::types::{DataType, SqlType};

fn refuse(word: &str, what: &str) -> Error {
    Error::new("0A000", format!("{word} is not allowed with {what}"))
}

/// Threads the row id of `table` through `plan`; returns its position in the output.
fn thread(
    plan: &mut Plan,
    table: &Arc<TableEntry>,
    wait: LockWait,
    word: &str,
    placed: &mut bool,
) -> Result<usize> {
    let rows = plan.rows;
    match &mut plan.op {
        Op::Scan {
            table: t,
            row_ids,
            needed,
            index,
            ..
        } => {
            if t.oid != table.oid {
                return Err(Error::feature_not_supported(format!(
                    "{word} over several tables"
                )));
            }
            // An index walk for ORDER BY … LIMIT stops after LIMIT rows, but LockRows
            // may skip (SKIP LOCKED) or drop (a re-check) some: the walk goes on to the
            // end of its range, and LockRows takes the first ones it can lock.
            if let Some(order) = index.as_mut().and_then(|l| l.order.as_mut()) {
                order.count = Expr::Literal {
                    value: crate::types::Value::Null,
                    ty: SqlType::new(DataType::Int8),
                };
            }
            let n = t.columns.len();
            *row_ids = true;
            if let Some(v) = needed {
                v.resize(n + 1, false);
                v[n] = true;
            }
            Ok(n)
        }
        Op::Filter { input, .. }
        | Op::Sort {
            input, limit: None, ..
        } => thread(input, table, wait, word, placed),
        // A top-N sort: it sorts everything, and LockRows takes the first N rows it can
        // lock (with SKIP LOCKED, not necessarily the first N).
        Op::Sort { limit: Some(_), .. } => {
            let Op::Sort { input, limit, .. } = &mut plan.op else {
                unreachable!("matched above")
            };
            let count = limit.take();
            let p = thread(input, table, wait, word, placed)?;
            if !*placed {
                let sort = std::mem::replace(
                    plan,
                    Plan::new(
                        Op::Values {
                            rows: Vec::new(),
                            types: Vec::new(),
                        },
                        0.0,
                    ),
                );
                *plan = Plan::new(
                    Op::LockRows {
                        input: Box::new(sort),
                        table: table.clone(),
                        rid: p,
                        wait,
                        count: Some((count, None)),
                    },
                    rows,
                );
                *placed = true;
            }
            Ok(p)
        }
        Op::Project { input, exprs } => {
            let p = thread(input, table, wait, word, placed)?;
            exprs.push(Expr::Column {
                index: p,
                ty: SqlType::new(DataType::Int8),
                name: "ctid".into(),
            });
            Ok(exprs.len() - 1)
        }
        Op::Limit {
            input,
            limit,
            offset,
            ..
        } => {
            let p = thread(input, table, wait, word, placed)?;
            if !*placed {
                let inner = std::mem::replace(
                    input.as_mut(),
                    Plan::new(
                        Op::Values {
                            rows: Vec::new(),
                            types: Vec::new(),
                        },
                        0.0,
                    ),
                );
                **input = Plan::new(
                    Op::LockRows {
                        input: Box::new(inner),
                        table: table.clone(),
                        rid: p,
                        wait,
                        count: Some((limit.clone(), offset.clone())),
                    },
                    rows,
                );
                *placed = true;
            }
            Ok(p)
        }
        Op::Aggregate { .. } => Err(refuse(word, "aggregate functions")),
        Op::Window { .. } => Err(refuse(word, "window functions")),
        Op::Distinct { .. } | Op::DistinctOn { .. } => Err(refuse(word, "DISTINCT clause")),
        Op::SetOp { .. } | Op::Append { .. } => Err(refuse(word, "UNION/INTERSECT/EXCEPT")),
        Op::ProjectSet { .. } => Err(refuse(word, "set-returning functions in the target list")),
        _ => Err(Error::feature_not_supported(format!(
            "{word} over several tables or subqueries"
        ))),
    }
}

/// `plan` (a query over `table` with outputs `columns`) locking each row it returns.
pub fn lock_rows(
    mut plan: Plan,
    table: &Arc<TableEntry>,
    wait: LockWait,
    columns: &[OutputColumn],
    word: &str,
) -> Result<Plan> {
    let mut placed = false;
    let rid = thread(&mut plan, table, wait, word, &mut placed)?;
    let rows = plan.rows;
    if !placed {
        plan = Plan::new(
            Op::LockRows {
                input: Box::new(plan),
                table: table.clone(),
                rid,
                wait,
                count: None,
            },
            rows,
        );
    }
    let exprs = columns
        .iter()
        .enumerate()
        .map(|(i, c)| Expr::Column {
            index: i,
            ty: c.ty,
            name: c.name.clone(),
        })
        .collect();
    Ok(Plan::new(
        Op::Project {
            input: Box::new(plan),
            exprs,
        },
        rows,
    ))
}
