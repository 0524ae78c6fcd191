//! Subqueries the optimizer could not turn into joins, run by the executor.
//!
//! A [`SubPlan`] that reads nothing of the outer row (uncorrelated) runs once per
//! statement; its rows are kept in the context and every outer row is answered from
//! them — an `x IN (subquery)` through a hash set of the subquery's values, as
//! PostgreSQL's hashed SubPlan. A correlated one runs again for each distinct
//! combination of the outer values it reads (remembered per batch): the values go into
//! the context's outer-parameter slots, which [`Expr::OuterParam`] reads inside.
//!
//! Answers follow SQL's three-valued logic: `x IN (…)` is NULL when no row matched but
//! some comparison was NULL, `x op ALL (…)` is true over no rows, and a scalar subquery
//! over more than one row fails with `21000`.

use std::collections::HashMap;
use std::sync::Arc;

use super::context::ExecContext;
use super::expr::{compare, eval};
use super::keys;
use super::vector::{Batch, Data, Vector};
use crate::error::{Error, Result};
use crate::sql::expr::{BinaryOp, Expr, SubPlan, SubqueryKind};
use crate::types::{DataType, Value};

/// The rows of an uncorrelated subplan, kept for the statement.
pub struct SubResult {
    /// Dense batches of the plan's output.
    batches: Vec<Batch>,
    /// For a one-column `= ANY`: the encoded values, and whether a NULL was among them.
    hashed: Option<(hashbrown::HashSet<Vec<u8>>, bool)>,
}

/// Evaluates a subplan for the rows `sel` of `batch`.
pub fn eval_subplan(sp: &SubPlan, batch: &Batch, sel: &[u32], ctx: &ExecContext) -> Result<Vector> {
    let n = sel.len();
    let left: Vec<Vector> = match &sp.kind {
        SubqueryKind::Any { left, .. }
        | SubqueryKind::All { left, .. }
        | SubqueryKind::Row { left, .. } => left
            .iter()
            .map(|l| eval(l, batch, sel, ctx))
            .collect::<Result<_>>()?,
        SubqueryKind::Scalar | SubqueryKind::Exists | SubqueryKind::Array => Vec::new(),
    };
    let left_types: Vec<DataType> = match &sp.kind {
        SubqueryKind::Any { left, .. }
        | SubqueryKind::All { left, .. }
        | SubqueryKind::Row { left, .. } => left.iter().map(|l| l.ty().ty).collect(),
        SubqueryKind::Scalar | SubqueryKind::Exists | SubqueryKind::Array => Vec::new(),
    };
    let mut out = Vector::with_capacity(sp.ty.ty, n);
    if sp.params.is_empty() {
        let result = uncorrelated(sp, ctx)?;
        for i in 0..n {
            let lefts: Vec<Value> = left
                .iter()
                .zip(&left_types)
                .map(|(v, &t)| v.value(i, t))
                .collect();
            out.push_value(&answer(sp, &result, &lefts, ctx)?);
        }
        return Ok(out);
    }
    let params: Vec<Vector> = sp
        .params
        .iter()
        .map(|(_, e)| eval(e, batch, sel, ctx))
        .collect::<Result<_>>()?;
    let param_types: Vec<DataType> = sp.params.iter().map(|(_, e)| e.ty().ty).collect();
    let mut memo: HashMap<Vec<u8>, Value> = HashMap::new();
    let mut key = Vec::new();
    for i in 0..n {
        key.clear();
        for v in params.iter().chain(&left) {
            keys::encode(v, i, &mut key);
        }
        if let Some(v) = memo.get(&key) {
            out.push_value(v);
            continue;
        }
        {
            let mut slots = ctx.outer.lock();
            for ((slot, _), (v, &t)) in sp.params.iter().zip(params.iter().zip(&param_types)) {
                if slots.len() <= *slot {
                    slots.resize(*slot + 1, Value::Null);
                }
                slots[*slot] = v.value(i, t);
            }
        }
        let limit = match sp.kind {
            SubqueryKind::Exists => Some(1),
            SubqueryKind::Scalar | SubqueryKind::Row { .. } => Some(2),
            SubqueryKind::Any { .. } | SubqueryKind::All { .. } | SubqueryKind::Array => None,
        };
        let result = SubResult {
            batches: run(sp, ctx, limit)?,
            hashed: None,
        };
        let lefts: Vec<Value> = left
            .iter()
            .zip(&left_types)
            .map(|(v, &t)| v.value(i, t))
            .collect();
        let value = answer(sp, &result, &lefts, ctx)?;
        out.push_value(&value);
        memo.insert(key.clone(), value);
    }
    Ok(out)
}

/// Runs the subplan, reading at most `limit` rows.
fn run(sp: &SubPlan, ctx: &ExecContext, limit: Option<usize>) -> Result<Vec<Batch>> {
    let mut op = super::build(&sp.plan);
    let mut out = Vec::new();
    let mut rows = 0;
    while let Some(b) = op.next(ctx)? {
        let b = b.compact();
        if b.rows == 0 {
            continue;
        }
        rows += b.rows;
        ctx.charge_memory(b.columns.iter().map(|c| c.heap_bytes()).sum())?;
        out.push(b);
        if limit.is_some_and(|l| rows >= l) {
            break;
        }
    }
    Ok(out)
}

/// The rows of an uncorrelated subplan: computed at its first use in the statement.
fn uncorrelated(sp: &SubPlan, ctx: &ExecContext) -> Result<Arc<SubResult>> {
    if let Some(r) = ctx.subplan_results.lock().get(&sp.id) {
        return Ok(r.clone());
    }
    let limit = match sp.kind {
        SubqueryKind::Exists => Some(1),
        SubqueryKind::Scalar | SubqueryKind::Row { .. } => Some(2),
        SubqueryKind::Any { .. } | SubqueryKind::All { .. } | SubqueryKind::Array => None,
    };
    let batches = run(sp, ctx, limit)?;
    let hashed = match &sp.kind {
        SubqueryKind::Any {
            left,
            right,
            op: BinaryOp::Eq,
        } if left.len() == 1 && right.len() == 1 => {
            let mut set = hashbrown::HashSet::new();
            let mut has_null = false;
            for b in &batches {
                let sel: Vec<u32> = (0..b.rows as u32).collect();
                let v = eval(&right[0], b, &sel, ctx)?;
                for i in 0..b.rows {
                    if v.is_null(i) {
                        has_null = true;
                    } else {
                        let mut k = Vec::new();
                        keys::encode(&v, i, &mut k);
                        set.insert(k);
                    }
                }
            }
            Some((set, has_null))
        }
        _ => None,
    };
    let result = Arc::new(SubResult { batches, hashed });
    ctx.subplan_results.lock().insert(sp.id, result.clone());
    Ok(result)
}

/// `(lefts…) op (row 0 of b)`, three-valued: `=` is the AND of the columns' equalities,
/// `<>` the OR of their inequalities; an ordering compares the first pair that is not
/// equal (NULL when a pair before it is unknown), and all pairs equal satisfy `<=`/`>=`.
fn row_compare(
    op: BinaryOp,
    left: &[Expr],
    lefts: &[Value],
    right: &[Expr],
    b: &Batch,
    ctx: &ExecContext,
) -> Result<Value> {
    let pair = |k: usize, op: BinaryOp| -> Result<Option<bool>> {
        let rv = eval(&right[k], b, &[0], ctx)?;
        let lv = Vector::repeat(&lefts[k], left[k].ty().ty, 1);
        let cmp = compare(op, lv, rv, left[k].ty(), right[k].ty(), ctx)?;
        Ok(match &cmp.data {
            _ if cmp.is_null(0) => None,
            Data::Bool(bits) => Some(bits[0]),
            _ => return Err(Error::internal("comparison did not give booleans")),
        })
    };
    let to_value = |v: Option<bool>| v.map_or(Value::Null, Value::Bool);
    match op {
        BinaryOp::Eq | BinaryOp::NotEq => {
            // `=`: false wins, else NULL, else true; `<>`: true wins, else NULL, else false.
            let decisive = op == BinaryOp::NotEq;
            let mut unknown = false;
            for k in 0..right.len() {
                match pair(k, op)? {
                    Some(v) if v == decisive => return Ok(Value::Bool(decisive)),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            Ok(if unknown {
                Value::Null
            } else {
                Value::Bool(!decisive)
            })
        }
        _ => {
            let strict = match op {
                BinaryOp::LtEq => BinaryOp::Lt,
                BinaryOp::GtEq => BinaryOp::Gt,
                other => other,
            };
            for k in 0..right.len() {
                match pair(k, BinaryOp::Eq)? {
                    None => return Ok(Value::Null),
                    Some(true) => {}
                    Some(false) => return Ok(to_value(pair(k, strict)?)),
                }
            }
            Ok(Value::Bool(matches!(op, BinaryOp::LtEq | BinaryOp::GtEq)))
        }
    }
}

/// The subplan's value for one outer row, given its rows and the row's left operands.
fn answer(sp: &SubPlan, result: &SubResult, lefts: &[Value], ctx: &ExecContext) -> Result<Value> {
    let rows: usize = result.batches.iter().map(|b| b.rows).sum();
    match &sp.kind {
        SubqueryKind::Exists => Ok(Value::Bool(rows > 0)),
        SubqueryKind::Array => {
            let elem = sp.ty.ty.elem().unwrap_or(DataType::Unknown);
            if rows > crate::types::array::MAX_ELEMENTS {
                return Err(Error::new(
                    "54000",
                    format!(
                        "array size exceeds the maximum allowed ({})",
                        crate::types::array::MAX_ELEMENTS
                    ),
                ));
            }
            let mut bytes = Vec::new();
            let mut b = crate::types::array::Builder::one_dim(&mut bytes, rows);
            for batch in &result.batches {
                let col = &batch.columns[0];
                for i in 0..batch.rows {
                    b.push(&col.value(i, elem));
                }
            }
            Ok(Value::Array(Box::new(crate::types::array::Array {
                elem,
                bytes,
            })))
        }
        SubqueryKind::Scalar => {
            if rows > 1 {
                return Err(Error::new(
                    "21000",
                    "more than one row returned by a subquery used as an expression",
                ));
            }
            Ok(match result.batches.iter().find(|b| b.rows > 0) {
                Some(b) => b.columns[0].value(0, sp.ty.ty),
                None => Value::Null,
            })
        }
        SubqueryKind::Row { left, right, op } => {
            if rows > 1 {
                return Err(Error::new(
                    "21000",
                    "more than one row returned by a subquery used as an expression",
                ));
            }
            let Some(b) = result.batches.iter().find(|b| b.rows > 0) else {
                return Ok(Value::Null);
            };
            row_compare(*op, left, lefts, right, b, ctx)
        }
        SubqueryKind::Any { left, right, op } | SubqueryKind::All { left, right, op } => {
            let any = matches!(sp.kind, SubqueryKind::Any { .. });
            if rows == 0 {
                return Ok(Value::Bool(!any));
            }
            if let Some((set, has_null)) = &result.hashed {
                if lefts[0].is_null() {
                    return Ok(Value::Null);
                }
                let mut v = Vector::with_capacity(left[0].ty().ty, 1);
                v.push_value(&lefts[0]);
                let mut k = Vec::new();
                keys::encode(&v, 0, &mut k);
                return Ok(if set.contains(&k) {
                    Value::Bool(true)
                } else if *has_null {
                    Value::Null
                } else {
                    Value::Bool(false)
                });
            }
            // Three-valued fold over every row: ANY is true at the first true row, ALL
            // false at the first false one; otherwise NULL if any row was NULL.
            let mut saw_null = false;
            for b in &result.batches {
                let sel: Vec<u32> = (0..b.rows as u32).collect();
                // Per row, over the columns: whether all were true, whether any was,
                // whether any was NULL. A row `=` is the AND of its columns, a row `<>`
                // the OR.
                let mut row_true = vec![true; b.rows];
                let mut row_any = vec![false; b.rows];
                let mut row_null = vec![false; b.rows];
                for (k, r) in right.iter().enumerate() {
                    let rv = eval(r, b, &sel, ctx)?;
                    let lv = Vector::repeat(&lefts[k], left[k].ty().ty, b.rows);
                    let cmp = compare(*op, lv, rv, left[k].ty(), r.ty(), ctx)?;
                    let Data::Bool(bits) = &cmp.data else {
                        return Err(Error::internal("comparison did not give booleans"));
                    };
                    for i in 0..b.rows {
                        if cmp.is_null(i) {
                            row_null[i] = true;
                        } else if bits[i] {
                            row_any[i] = true;
                        } else {
                            row_true[i] = false;
                        }
                    }
                }
                for i in 0..b.rows {
                    let value = if *op == BinaryOp::NotEq && right.len() > 1 {
                        if row_any[i] {
                            Some(true)
                        } else if row_null[i] {
                            None
                        } else {
                            Some(false)
                        }
                    } else if !row_true[i] {
                        Some(false)
                    } else if row_null[i] {
                        None
                    } else {
                        Some(true)
                    };
                    match value {
                        Some(true) if any => return Ok(Value::Bool(true)),
                        Some(false) if !any => return Ok(Value::Bool(false)),
                        None => saw_null = true,
                        Some(_) => {}
                    }
                }
            }
            Ok(if saw_null {
                Value::Null
            } else {
                Value::Bool(!any)
            })
        }
    }
}

/// Reads an outer parameter slot.
pub fn outer_param(slot: usize, ty: DataType, rows: usize, ctx: &ExecContext) -> Vector {
    let value = ctx.outer.lock().get(slot).cloned().unwrap_or(Value::Null);
    Vector::repeat(&value, ty, rows)
}

/// An expression that only a logical plan may hold reached the executor.
pub fn not_lowered(e: &Expr) -> Error {
    Error::internal(format!("expression was not planned: {e:?}"))
}
