//! Vectorized expression evaluation.
//!
//! `eval(expr, batch, sel)` computes `expr` for the rows `sel` of `batch` and returns a
//! dense vector of `sel.len()` values. Kernels loop over typed slices; NULLs travel in
//! the mask and the data slot of a NULL is never read for anything that can fail.
//!
//! Conditional evaluation keeps PostgreSQL's guarantees: `AND`/`OR` evaluate their right
//! side only on rows the left side did not decide, and `CASE` evaluates a branch only on
//! the rows that reach it, so `x <> 0 AND 1/x > 1` never divides by zero.

use std::cmp::Ordering;

use super::context::ExecContext;
use super::vector::{Batch, Data, TextVec, Vector};
use crate::error::{Error, Result};
use crate::sql::expr::{BinaryOp, Expr};
use crate::types::cast::cast_value;
use crate::types::datetime::{self, Interval, USECS_PER_DAY};
use crate::types::{DataType, Numeric, SqlType, Value};

pub fn cmp_f64(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b)
        .unwrap_or_else(|| a.is_nan().cmp(&b.is_nan()))
}

/// Compares row `i` of `a` with row `j` of `b` (same kind, both non-NULL).
#[inline]
pub fn compare_rows(a: &Data, i: usize, b: &Data, j: usize) -> Ordering {
    match (a, b) {
        (Data::Bool(x), Data::Bool(y)) => x[i].cmp(&y[j]),
        (Data::I16(x), Data::I16(y)) => x[i].cmp(&y[j]),
        (Data::I32(x), Data::I32(y)) => x[i].cmp(&y[j]),
        (Data::I64(x), Data::I64(y)) => x[i].cmp(&y[j]),
        (Data::F32(x), Data::F32(y)) => cmp_f64(x[i] as f64, y[j] as f64),
        (Data::F64(x), Data::F64(y)) => cmp_f64(x[i], y[j]),
        (Data::Num(x), Data::Num(y)) => x[i].cmp_value(&y[j]),
        (Data::Text(x), Data::Text(y)) => x.get(i).cmp(y.get(j)),
        (Data::Interval(x), Data::Interval(y)) => x[i].cmp(&y[j]),
        (Data::Array(x), Data::Array(y)) => {
            crate::types::array::compare(x.blobs.get(i), y.blobs.get(j), x.elem)
        }
        (Data::Record(x), Data::Record(y)) => crate::types::record::compare(x.get(i), y.get(j)),
        (Data::Jsonb(x), Data::Jsonb(y)) => crate::types::jsonb::compare(x.get(i), y.get(j)),
        _ => Ordering::Equal,
    }
}

fn union_nulls(a: &Option<Vec<bool>>, b: &Option<Vec<bool>>, n: usize) -> Option<Vec<bool>> {
    match (a, b) {
        (None, None) => None,
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (Some(x), Some(y)) => Some((0..n).map(|i| x[i] || y[i]).collect()),
    }
}

fn is_null_at(nulls: &Option<Vec<bool>>, i: usize) -> bool {
    nulls.as_ref().is_some_and(|n| n[i])
}

/// Evaluates `expr` over the rows `sel` of `batch`.
///
/// A thin dispatcher: each arm lives in its own non-inlined function so that a deep
/// expression costs one small frame per level, not the frame of every arm at once.
pub fn eval(expr: &Expr, batch: &Batch, sel: &[u32], ctx: &ExecContext) -> Result<Vector> {
    match expr {
        Expr::Column { index, .. } => eval_column(*index, batch, sel),
        Expr::OuterParam { slot, ty } => {
            Ok(super::subplan::outer_param(*slot, ty.ty, sel.len(), ctx))
        }
        Expr::SubPlan(sp) => super::subplan::eval_subplan(sp, batch, sel, ctx),
        Expr::ColumnRef { .. } | Expr::Subquery(_) => Err(super::subplan::not_lowered(expr)),
        Expr::Literal { value, ty } => Ok(Vector::repeat(value, ty.ty, sel.len())),
        Expr::Param { index, ty } => {
            let v = ctx.params.get(*index).cloned().unwrap_or(Value::Null);
            Ok(Vector::repeat(&v, ty.ty, sel.len()))
        }
        Expr::Negate { expr, .. } => negate(eval(expr, batch, sel, ctx)?),
        Expr::Binary {
            op,
            left,
            right,
            ty,
        } => eval_binary(*op, left, right, *ty, batch, sel, ctx),
        Expr::And(list) | Expr::Or(list) => {
            eval_logic(matches!(expr, Expr::And(_)), list, batch, sel, ctx)
        }
        Expr::Not(e) => eval_not(e, batch, sel, ctx),
        Expr::IsNull { expr, negated } => eval_is_null(expr, *negated, batch, sel, ctx),
        Expr::IsBool {
            expr,
            value,
            negated,
        } => eval_is_bool(expr, *value, *negated, batch, sel, ctx),
        Expr::IsDistinct {
            left,
            right,
            negated,
        } => eval_is_distinct(left, right, *negated, batch, sel, ctx),
        Expr::InList {
            expr,
            list,
            negated,
        } => eval_in_list(expr, list, *negated, batch, sel, ctx),
        Expr::Like {
            expr,
            pattern,
            negated,
            case_insensitive,
        } => eval_like_expr(expr, pattern, *negated, *case_insensitive, batch, sel, ctx),
        Expr::Case {
            whens,
            else_result,
            ty,
        } => eval_case(whens, else_result.as_deref(), *ty, batch, sel, ctx),
        Expr::Cast { expr, to, explicit } => eval_cast(expr, *to, *explicit, batch, sel, ctx),
        Expr::Func { func, args, ty } => {
            super::functions::eval_function(*func, args, *ty, batch, sel, ctx)
        }
        Expr::Unused { ty } => Ok(Vector::with_capacity(ty.ty, 0)),
        Expr::Agg { .. } | Expr::Window { .. } => Err(Error::internal(
            "aggregate reference outside an aggregation",
        )),
    }
}

#[inline(never)]
fn eval_column(index: usize, batch: &Batch, sel: &[u32]) -> Result<Vector> {
    let col = batch
        .columns
        .get(index)
        .ok_or_else(|| Error::internal("column index out of range"))?;
    if sel.len() == batch.rows && batch.sel.is_none() && sel.len() == col.len() {
        Ok(col.clone())
    } else {
        Ok(col.gather(sel))
    }
}

#[inline(never)]
fn eval_binary(
    op: BinaryOp,
    left: &Expr,
    right: &Expr,
    ty: SqlType,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    if matches!(op, BinaryOp::Eq | BinaryOp::NotEq)
        && let Some(v) = super::json_functions::text_equals(op, left, right, batch, sel, ctx)?
    {
        return Ok(v);
    }
    let l = eval(left, batch, sel, ctx)?;
    let r = eval(right, batch, sel, ctx)?;
    binary(op, l, r, left.ty(), right.ty(), ty, &ctx.fmt.zone)
}

/// Compares two vectors of one comparison's operand types.
pub fn compare(
    op: BinaryOp,
    l: Vector,
    r: Vector,
    lt: SqlType,
    rt: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    binary(
        op,
        l,
        r,
        lt,
        rt,
        SqlType::new(DataType::Bool),
        &ctx.fmt.zone,
    )
}

#[inline(never)]
fn eval_not(e: &Expr, batch: &Batch, sel: &[u32], ctx: &ExecContext) -> Result<Vector> {
    let mut v = eval(e, batch, sel, ctx)?;
    if let Data::Bool(b) = &mut v.data {
        b.iter_mut().for_each(|x| *x = !*x);
    }
    Ok(v)
}

#[inline(never)]
fn eval_is_null(
    e: &Expr,
    negated: bool,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let v = eval(e, batch, sel, ctx)?;
    let out = (0..sel.len()).map(|i| v.is_null(i) != negated).collect();
    Ok(Vector::from_data(Data::Bool(out)))
}

#[inline(never)]
fn eval_is_bool(
    e: &Expr,
    value: bool,
    negated: bool,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let v = eval(e, batch, sel, ctx)?;
    let Data::Bool(b) = &v.data else {
        return Err(Error::internal("IS TRUE on non-boolean"));
    };
    let out = (0..sel.len())
        .map(|i| (!v.is_null(i) && b[i] == value) != negated)
        .collect();
    Ok(Vector::from_data(Data::Bool(out)))
}

#[inline(never)]
fn eval_is_distinct(
    left: &Expr,
    right: &Expr,
    negated: bool,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let l = eval(left, batch, sel, ctx)?;
    let r = eval(right, batch, sel, ctx)?;
    let out = (0..sel.len())
        .map(|i| {
            let distinct = match (l.is_null(i), r.is_null(i)) {
                (true, true) => false,
                (true, false) | (false, true) => true,
                (false, false) => compare_rows(&l.data, i, &r.data, i) != Ordering::Equal,
            };
            distinct != negated
        })
        .collect();
    Ok(Vector::from_data(Data::Bool(out)))
}

#[inline(never)]
fn eval_like_expr(
    expr: &Expr,
    pattern: &Expr,
    negated: bool,
    case_insensitive: bool,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let v = eval(expr, batch, sel, ctx)?;
    let p = eval(pattern, batch, sel, ctx)?;
    let bytes = expr.ty().ty == DataType::Bytea;
    eval_like(&v, &p, negated, case_insensitive, bytes)
}

#[inline(never)]
fn eval_cast(
    expr: &Expr,
    to: SqlType,
    explicit: bool,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let v = eval(expr, batch, sel, ctx)?;
    cast_vector(v, expr.ty(), to, explicit, ctx)
}

/// Evaluates a predicate and returns the rows of `sel` for which it is true.
/// What a batch evaluation that failed yields once replayed in PostgreSQL's order.
///
/// PostgreSQL runs a pipeline one row at a time: row k's error is raised only after every
/// earlier row went through (its own errors first), and never when the query stops before
/// row k (a LIMIT satisfied by the rows before it). kiln evaluates whole batches, so when a
/// batch fails, the operator replays it row by row and passes on the rows before the first
/// failing row; the error is held and raised on the operator's next call, which a
/// satisfied LIMIT never makes. The replay runs only after a failure, so the normal path
/// costs nothing.
pub struct Replayed<T> {
    /// The rows (or row count) before the first failing row.
    pub ok: T,
    pub error: Error,
}

/// Errors that are not about a row's values (cancellation, timeout, memory): raised at
/// once, without a replay.
fn is_statement_error(e: &Error) -> bool {
    matches!(e.code, "57014" | "53200" | "XX000")
}

/// `eval_filter` replayed row by row after it failed on `sel` with `error`.
pub fn replay_filter(
    pred: &Expr,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
    error: Error,
) -> Result<Replayed<Vec<u32>>> {
    if is_statement_error(&error) {
        return Err(error);
    }
    let mut kept = Vec::new();
    for &row in sel {
        match eval_filter(pred, batch, &[row], ctx) {
            Ok(k) => kept.extend(k),
            Err(e) => return Ok(Replayed { ok: kept, error: e }),
        }
    }
    // Every row passed alone: keep the batch's error (not expected to happen).
    Ok(Replayed { ok: kept, error })
}

/// How many rows of `sel` evaluate every expression of `exprs` (in order, row by row)
/// before one fails; called after evaluating them over `sel` failed with `error`.
pub fn replay_exprs(
    exprs: &[Expr],
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
    error: Error,
) -> Result<Replayed<usize>> {
    if is_statement_error(&error) {
        return Err(error);
    }
    for (i, &row) in sel.iter().enumerate() {
        for e in exprs {
            if let Err(e) = eval(e, batch, &[row], ctx) {
                return Ok(Replayed { ok: i, error: e });
            }
        }
    }
    Ok(Replayed {
        ok: sel.len(),
        error,
    })
}

/// The rows of `sel` for which `pred` is true (NULL and false both reject).
///
/// Conjuncts narrow the selection one after another, disjuncts each look only at the
/// rows no earlier disjunct accepted (the rows `eval` of AND/OR would evaluate them on,
/// so errors are raised for the same rows). A column compared with constants is tested
/// in place, without building a vector of results.
pub fn eval_filter(pred: &Expr, batch: &Batch, sel: &[u32], ctx: &ExecContext) -> Result<Vec<u32>> {
    if let Some(out) = filter_fast(pred, batch, sel) {
        return Ok(out);
    }
    match pred {
        Expr::And(list) => {
            let mut current: Vec<u32> = sel.to_vec();
            for p in list {
                if current.is_empty() {
                    break;
                }
                current = eval_filter(p, batch, &current, ctx)?;
            }
            Ok(current)
        }
        Expr::Or(list) => {
            let mut accepted = vec![false; batch.rows];
            let mut rest: Vec<u32> = sel.to_vec();
            for p in list {
                if rest.is_empty() {
                    break;
                }
                let hits = eval_filter(p, batch, &rest, ctx)?;
                if hits.is_empty() {
                    continue;
                }
                hits.iter().for_each(|&r| accepted[r as usize] = true);
                rest.retain(|&r| !accepted[r as usize]);
            }
            Ok(sel
                .iter()
                .copied()
                .filter(|&r| accepted[r as usize])
                .collect())
        }
        _ => {
            let v = eval(pred, batch, sel, ctx)?;
            let Data::Bool(b) = &v.data else {
                return Err(Error::internal("filter on non-boolean"));
            };
            Ok(sel
                .iter()
                .enumerate()
                .filter(|(i, _)| b[*i] && !v.is_null(*i))
                .map(|(_, &r)| r)
                .collect())
        }
    }
}

/// A column of the batch, read as is or (`trim`) as char(n) read as text: without
/// its trailing blanks.
fn filter_operand<'a>(e: &Expr, batch: &'a Batch) -> Option<(&'a Vector, bool)> {
    match e {
        Expr::Column { index, .. } => batch.columns.get(*index).map(|c| (c, false)),
        Expr::Cast { expr, to, .. }
            if matches!(to.ty, DataType::Text | DataType::Varchar)
                && to.typmod < 0
                && expr.ty().ty == DataType::Bpchar =>
        {
            match expr.as_ref() {
                Expr::Column { index, .. } => batch.columns.get(*index).map(|c| (c, true)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `s` without its trailing blanks is `k` (char(n) read as text).
#[inline]
fn eq_padded(s: &[u8], k: &[u8]) -> bool {
    s.len() >= k.len()
        && k.last() != Some(&b' ')
        && s[..k.len()] == *k
        && s[k.len()..].iter().all(|&b| b == b' ')
}

fn trim_blanks(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
    &s[..end]
}

/// Filters that test a column against constants in place: `col op constant` and
/// `col [NOT] IN (constants…)`.
fn filter_fast(pred: &Expr, batch: &Batch, sel: &[u32]) -> Option<Vec<u32>> {
    match pred {
        Expr::Binary {
            op, left, right, ..
        } if op.is_comparison() => {
            let Expr::Literal { value, .. } = right.as_ref() else {
                return None;
            };
            let (col, trim) = filter_operand(left, batch)?;
            filter_column_const(*op, col, trim, value, sel)
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let (col, trim) = filter_operand(expr, batch)?;
            let mut consts = Vec::with_capacity(list.len());
            let mut has_null = false;
            for item in list {
                match item {
                    Expr::Literal {
                        value: Value::Null, ..
                    } => has_null = true,
                    Expr::Literal { value, .. } => consts.push(value),
                    _ => return None,
                }
            }
            if *negated && has_null {
                // `x NOT IN (…, NULL)` is never true.
                return Some(Vec::new());
            }
            let live = |i: u32| !col.is_null(i as usize);
            let keep = |found: bool| found != *negated;
            let out = match &col.data {
                Data::Text(t) => {
                    let mut keys = Vec::with_capacity(consts.len());
                    for c in &consts {
                        let Value::Text(c) = c else { return None };
                        keys.push(c.as_bytes());
                    }
                    sel.iter()
                        .copied()
                        .filter(|&i| {
                            let s = t.get(i as usize);
                            let hit = if trim {
                                keys.iter().any(|k| eq_padded(s, k))
                            } else {
                                keys.contains(&s)
                            };
                            live(i) && keep(hit)
                        })
                        .collect()
                }
                Data::I32(v) => {
                    let keys = constants_as(&consts, |c| match c {
                        Value::Int4(c) | Value::Date(c) => Some(*c),
                        _ => None,
                    })?;
                    select_rows(sel, |i| live(i) && keep(keys.contains(&v[i as usize])))
                }
                Data::I64(v) => {
                    let keys = constants_as(&consts, |c| match c {
                        Value::Int8(c) | Value::Timestamp(c) | Value::Timestamptz(c) => Some(*c),
                        _ => None,
                    })?;
                    select_rows(sel, |i| live(i) && keep(keys.contains(&v[i as usize])))
                }
                _ => return None,
            };
            Some(out)
        }
        _ => None,
    }
}

/// An IN list's constants as one physical kind (`None` if one is of another).
fn constants_as<T>(consts: &[&Value], pick: impl Fn(&Value) -> Option<T>) -> Option<Vec<T>> {
    consts.iter().map(|c| pick(c)).collect()
}

fn op_matches(op: BinaryOp, o: Ordering) -> bool {
    match op {
        BinaryOp::Eq => o == Ordering::Equal,
        BinaryOp::NotEq => o != Ordering::Equal,
        BinaryOp::Lt => o == Ordering::Less,
        BinaryOp::LtEq => o != Ordering::Greater,
        BinaryOp::Gt => o == Ordering::Greater,
        BinaryOp::GtEq => o != Ordering::Less,
        _ => false,
    }
}

fn filter_column_const(
    op: BinaryOp,
    col: &Vector,
    trim: bool,
    value: &Value,
    sel: &[u32],
) -> Option<Vec<u32>> {
    let live = |i: u32| !col.is_null(i as usize);
    let out = match (&col.data, value) {
        (_, Value::Null) => Vec::new(),
        (Data::Text(t), Value::Text(c)) if trim && matches!(op, BinaryOp::Eq | BinaryOp::NotEq) => {
            let c = c.as_bytes();
            let want = op == BinaryOp::Eq;
            select_rows(sel, |i| live(i) && eq_padded(t.get(i as usize), c) == want)
        }
        (Data::Text(t), Value::Text(c)) if trim => {
            let c = c.as_bytes();
            select_rows(sel, |i| {
                live(i) && op_matches(op, trim_blanks(t.get(i as usize)).cmp(c))
            })
        }
        (Data::Num(v), Value::Numeric(c)) => select_rows(sel, |i| {
            live(i) && op_matches(op, v[i as usize].cmp_value(c))
        }),
        (Data::I32(v), Value::Int4(c) | Value::Date(c)) => {
            select_rows(sel, |i| live(i) && op_matches(op, v[i as usize].cmp(c)))
        }
        (Data::I64(v), Value::Int8(c) | Value::Timestamp(c) | Value::Timestamptz(c)) => {
            select_rows(sel, |i| live(i) && op_matches(op, v[i as usize].cmp(c)))
        }
        (Data::I16(v), Value::Int2(c)) => {
            select_rows(sel, |i| live(i) && op_matches(op, v[i as usize].cmp(c)))
        }
        (Data::F64(v), Value::Float8(c)) => select_rows(sel, |i| {
            live(i) && op_matches(op, cmp_f64(v[i as usize], *c))
        }),
        (Data::Text(t), Value::Text(c)) if matches!(op, BinaryOp::Eq | BinaryOp::NotEq) => {
            let want = op == BinaryOp::Eq;
            let eq = ShortEq::new(c.as_bytes());
            select_rows(sel, |i| live(i) && eq.matches(t, i as usize) == want)
        }
        (Data::Text(t), Value::Text(c)) => {
            let c = c.as_bytes();
            select_rows(sel, |i| live(i) && op_matches(op, t.get(i as usize).cmp(c)))
        }
        _ => return None,
    };
    Some(out)
}

/// The rows of `sel` for which `keep` holds. Every row is written and the cursor
/// advances past kept ones only, so the loop has no branch on the outcome.
#[inline(always)]
fn select_rows(sel: &[u32], mut keep: impl FnMut(u32) -> bool) -> Vec<u32> {
    let mut out = vec![0u32; sel.len()];
    let mut kept = 0;
    for &i in sel {
        out[kept] = i;
        kept += keep(i) as usize;
    }
    out.truncate(kept);
    out
}

/// Equality of a text column's strings with one constant: lengths first, then, for a
/// constant of up to 8 bytes, one masked word compare instead of a `memcmp` call.
struct ShortEq<'a> {
    needle: &'a [u8],
    word: u64,
    mask: u64,
}

impl<'a> ShortEq<'a> {
    fn new(needle: &'a [u8]) -> ShortEq<'a> {
        let mut bytes = [0u8; 8];
        let n = needle.len().min(8);
        bytes[..n].copy_from_slice(&needle[..n]);
        let mask = if n == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        };
        ShortEq {
            needle,
            word: u64::from_le_bytes(bytes),
            mask,
        }
    }

    #[inline]
    fn matches(&self, t: &TextVec, i: usize) -> bool {
        let (start, end) = (t.offsets[i], t.offsets[i + 1]);
        if end - start != self.needle.len() {
            return false;
        }
        if self.needle.len() <= 8
            && let Some(w) = t.data.get(start..start + 8)
            && let Ok(w) = <[u8; 8]>::try_from(w)
        {
            return u64::from_le_bytes(w) & self.mask == self.word;
        }
        t.data[start..end] == *self.needle
    }
}

#[inline(never)]
fn eval_logic(
    is_and: bool,
    list: &[Expr],
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = sel.len();
    // Per row: Some(decided value) or None while undecided; `unknown` tracks NULLs seen.
    let mut decided: Vec<Option<bool>> = vec![None; n];
    let mut unknown = vec![false; n];
    for e in list {
        let pending: Vec<usize> = (0..n).filter(|&i| decided[i].is_none()).collect();
        if pending.is_empty() {
            break;
        }
        let sub: Vec<u32> = pending.iter().map(|&i| sel[i]).collect();
        let v = eval(e, batch, &sub, ctx)?;
        let Data::Bool(b) = &v.data else {
            return Err(Error::internal("AND/OR on non-boolean"));
        };
        for (k, &i) in pending.iter().enumerate() {
            if v.is_null(k) {
                unknown[i] = true;
            } else if b[k] != is_and {
                decided[i] = Some(!is_and);
            }
        }
    }
    let mut out = Vec::with_capacity(n);
    let mut nulls = vec![false; n];
    let mut any_null = false;
    for i in 0..n {
        match decided[i] {
            Some(v) => out.push(v),
            None if unknown[i] => {
                out.push(false);
                nulls[i] = true;
                any_null = true;
            }
            None => out.push(is_and),
        }
    }
    Ok(Vector {
        data: Data::Bool(out),
        nulls: any_null.then_some(nulls),
    })
}

#[inline(never)]
fn eval_in_list(
    expr: &Expr,
    list: &[Expr],
    negated: bool,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = sel.len();
    let v = eval(expr, batch, sel, ctx)?;
    let mut found = vec![false; n];
    let mut saw_null = vec![false; n];
    for item in list {
        let w = eval(item, batch, sel, ctx)?;
        for i in 0..n {
            if found[i] {
                continue;
            }
            if v.is_null(i) || w.is_null(i) {
                saw_null[i] = true;
            } else if compare_rows(&v.data, i, &w.data, i) == Ordering::Equal {
                found[i] = true;
            }
        }
    }
    let mut nulls = vec![false; n];
    let mut any_null = false;
    let out = (0..n)
        .map(|i| {
            if v.is_null(i) || (!found[i] && saw_null[i]) {
                nulls[i] = true;
                any_null = true;
                false
            } else {
                found[i] != negated
            }
        })
        .collect();
    Ok(Vector {
        data: Data::Bool(out),
        nulls: any_null.then_some(nulls),
    })
}

/// SQL LIKE over UTF-8 strings: `%` any run, `_` one character, `\` escapes.
pub fn like_match(s: &[char], p: &[char]) -> bool {
    let (mut si, mut pi) = (0, 0);
    let (mut star_p, mut star_s) = (usize::MAX, 0);
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '%' => {
                    star_p = pi;
                    star_s = si;
                    pi += 1;
                    continue;
                }
                '_' => {
                    si += 1;
                    pi += 1;
                    continue;
                }
                // An escape takes the next character literally, and never matches as
                // a backslash itself (a trailing one matches nothing).
                '\\' if pi + 1 < p.len() && p[pi + 1] == s[si] => {
                    si += 1;
                    pi += 2;
                    continue;
                }
                '\\' => {}
                c if c == s[si] => {
                    si += 1;
                    pi += 1;
                    continue;
                }
                _ => {}
            }
        }
        if star_p != usize::MAX {
            pi = star_p + 1;
            star_s += 1;
            si = star_s;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '%' {
        pi += 1;
    }
    pi == p.len()
}

/// `bytes`: bytea LIKE bytea, matched byte by byte (each byte read as the character
/// of its number, so `%`, `_` and `\` keep their meaning).
fn eval_like(v: &Vector, p: &Vector, negated: bool, ci: bool, bytes: bool) -> Result<Vector> {
    let n = v.len();
    let (Data::Text(vs), Data::Text(ps)) = (&v.data, &p.data) else {
        return Err(Error::internal("LIKE on non-text"));
    };
    let nulls = union_nulls(&v.nulls, &p.nulls, n);
    let as_chars = |b: &[u8]| -> Vec<char> { b.iter().map(|&c| c as char).collect() };
    let prep = |s: &str| -> Vec<char> {
        if ci {
            s.to_lowercase().chars().collect()
        } else {
            s.chars().collect()
        }
    };
    let mut cached: Option<(Vec<u8>, Vec<char>)> = None;
    let mut out = Vec::with_capacity(n);
    let mut buf: Vec<char> = Vec::new();
    for i in 0..n {
        if is_null_at(&nulls, i) {
            out.push(false);
            continue;
        }
        let pat_bytes = ps.get(i);
        let pat = match &cached {
            Some((b, chars)) if b.as_slice() == pat_bytes => chars,
            _ => {
                let chars = if bytes {
                    as_chars(pat_bytes)
                } else {
                    prep(ps.get_str(i))
                };
                cached = Some((pat_bytes.to_vec(), chars));
                &cached
                    .as_ref()
                    .map(|c| &c.1)
                    .ok_or_else(|| Error::internal("pattern cache"))?
                    .clone()
            }
        };
        let pat = pat.clone();
        buf.clear();
        if bytes {
            buf.extend(vs.get(i).iter().map(|&c| c as char));
        } else if ci {
            buf.extend(vs.get_str(i).to_lowercase().chars());
        } else {
            buf.extend(vs.get_str(i).chars());
        }
        out.push(like_match(&buf, &pat) != negated);
    }
    Ok(Vector {
        data: Data::Bool(out),
        nulls,
    })
}

#[inline(never)]
fn eval_case(
    whens: &[(Expr, Expr)],
    else_result: Option<&Expr>,
    ty: SqlType,
    batch: &Batch,
    sel: &[u32],
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = sel.len();
    // For each output row: (branch index, row within that branch's result).
    let mut source: Vec<(usize, usize)> = vec![(usize::MAX, 0); n];
    let mut results: Vec<Vector> = Vec::with_capacity(whens.len() + 1);
    let mut remaining: Vec<usize> = (0..n).collect();
    for (b, (cond, result)) in whens.iter().enumerate() {
        if remaining.is_empty() {
            break;
        }
        let sub: Vec<u32> = remaining.iter().map(|&i| sel[i]).collect();
        let c = eval(cond, batch, &sub, ctx)?;
        let Data::Bool(cv) = &c.data else {
            return Err(Error::internal("CASE condition not boolean"));
        };
        let mut hit = Vec::new();
        let mut rest = Vec::new();
        for (k, &i) in remaining.iter().enumerate() {
            if cv[k] && !c.is_null(k) {
                hit.push(i)
            } else {
                rest.push(i)
            }
        }
        if !hit.is_empty() {
            let hit_sel: Vec<u32> = hit.iter().map(|&i| sel[i]).collect();
            let r = eval(result, batch, &hit_sel, ctx)?;
            for (k, &i) in hit.iter().enumerate() {
                source[i] = (results.len(), k);
            }
            results.push(r);
        }
        let _ = b;
        remaining = rest;
    }
    if let (Some(e), false) = (else_result, remaining.is_empty()) {
        let sub: Vec<u32> = remaining.iter().map(|&i| sel[i]).collect();
        let r = eval(e, batch, &sub, ctx)?;
        for (k, &i) in remaining.iter().enumerate() {
            source[i] = (results.len(), k);
        }
        results.push(r);
    }
    let mut out = Vector::with_capacity(ty.ty, n);
    for &(b, k) in &source {
        if b == usize::MAX {
            out.push_null();
        } else {
            out.push_from(&results[b], k);
        }
    }
    Ok(out)
}

/// Negates every non-NULL element, with PostgreSQL's overflow error for the one value
/// of each integer width that has no negation.
macro_rules! checked_negate {
    ($x:expr, $nulls:expr, $name:expr) => {
        $x.iter()
            .enumerate()
            .map(|(i, &a)| {
                if is_null_at($nulls, i) {
                    Ok(0)
                } else {
                    a.checked_neg()
                        .ok_or_else(|| Error::numeric_out_of_range(concat!($name, " out of range")))
                }
            })
            .collect::<Result<_>>()?
    };
}

fn negate(v: Vector) -> Result<Vector> {
    let nulls = v.nulls.clone();
    let data = match v.data {
        Data::I16(x) => Data::I16(checked_negate!(x, &nulls, "smallint")),
        Data::I32(x) => Data::I32(checked_negate!(x, &nulls, "integer")),
        Data::I64(x) => Data::I64(checked_negate!(x, &nulls, "bigint")),
        Data::F32(x) => Data::F32(x.iter().map(|a| -a).collect()),
        Data::F64(x) => Data::F64(x.iter().map(|a| -a).collect()),
        Data::Num(x) => Data::Num(x.iter().map(|a| a.neg()).collect()),
        Data::Interval(x) => Data::Interval(x.iter().map(datetime::interval_neg).collect()),
        other => other,
    };
    Ok(Vector { data, nulls })
}

macro_rules! int_arith {
    ($a:expr, $b:expr, $nulls:expr, $op:expr, $t:ty, $name:expr) => {{
        let a: &Vec<$t> = $a;
        let b: &Vec<$t> = $b;
        let range = || Error::numeric_out_of_range(concat!($name, " out of range"));
        let mut out: Vec<$t> = Vec::with_capacity(a.len());
        match $op {
            BinaryOp::Add if $nulls.is_none() => {
                for i in 0..a.len() {
                    out.push(a[i].checked_add(b[i]).ok_or_else(range)?);
                }
            }
            BinaryOp::Mul if $nulls.is_none() => {
                for i in 0..a.len() {
                    out.push(a[i].checked_mul(b[i]).ok_or_else(range)?);
                }
            }
            _ => {
                for i in 0..a.len() {
                    if is_null_at($nulls, i) {
                        out.push(0);
                        continue;
                    }
                    let (x, y) = (a[i], b[i]);
                    let v = match $op {
                        BinaryOp::Add => x.checked_add(y).ok_or_else(range)?,
                        BinaryOp::Sub => x.checked_sub(y).ok_or_else(range)?,
                        BinaryOp::Mul => x.checked_mul(y).ok_or_else(range)?,
                        BinaryOp::Div => {
                            if y == 0 {
                                return Err(Error::division_by_zero());
                            }
                            x.checked_div(y).ok_or_else(range)?
                        }
                        BinaryOp::Mod => {
                            if y == 0 {
                                return Err(Error::division_by_zero());
                            }
                            x.checked_rem(y).unwrap_or(0)
                        }
                        _ => return Err(Error::internal("bad integer operator")),
                    };
                    out.push(v);
                }
            }
        }
        out
    }};
}

fn float_arith(op: BinaryOp, x: f64, y: f64) -> Result<f64> {
    let v = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => {
            if y == 0.0 {
                return Err(Error::division_by_zero());
            }
            x / y
        }
        BinaryOp::Pow => {
            if x == 0.0 && y < 0.0 {
                return Err(Error::new(
                    "2201F",
                    "zero raised to a negative power is undefined",
                ));
            }
            if x < 0.0 && y.fract() != 0.0 {
                return Err(Error::new(
                    "2201F",
                    "a negative number raised to a non-integer power yields a complex result",
                ));
            }
            x.powf(y)
        }
        _ => return Err(Error::internal("bad float operator")),
    };
    if v.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(Error::numeric_out_of_range("value out of range: overflow"));
    }
    if v == 0.0
        && x != 0.0
        && matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow)
        && y.is_finite()
        && y != 0.0
        && !(op == BinaryOp::Pow)
    {
        return Err(Error::numeric_out_of_range("value out of range: underflow"));
    }
    Ok(v)
}

fn compare_vectors(op: BinaryOp, l: &Vector, r: &Vector) -> Vec<bool> {
    let n = l.len();
    macro_rules! cmp_loop {
        ($a:expr, $b:expr, $f:expr) => {{
            let (a, b) = ($a, $b);
            (0..n).map(|i| op_matches(op, $f(&a[i], &b[i]))).collect()
        }};
    }
    match (&l.data, &r.data) {
        (Data::I32(a), Data::I32(b)) => cmp_loop!(a, b, |x: &i32, y: &i32| x.cmp(y)),
        (Data::I64(a), Data::I64(b)) => cmp_loop!(a, b, |x: &i64, y: &i64| x.cmp(y)),
        (Data::F64(a), Data::F64(b)) => cmp_loop!(a, b, |x: &f64, y: &f64| cmp_f64(*x, *y)),
        (Data::Text(a), Data::Text(b)) => (0..n)
            .map(|i| op_matches(op, a.get(i).cmp(b.get(i))))
            .collect(),
        _ => (0..n)
            .map(|i| op_matches(op, compare_rows(&l.data, i, &r.data, i)))
            .collect(),
    }
}

fn binary(
    op: BinaryOp,
    l: Vector,
    r: Vector,
    lt: SqlType,
    rt: SqlType,
    ty: SqlType,
    zone: &datetime::Zone,
) -> Result<Vector> {
    let n = l.len();
    let nulls = union_nulls(&l.nulls, &r.nulls, n);
    if op.is_comparison() {
        let out = compare_vectors(op, &l, &r);
        return Ok(Vector {
            data: Data::Bool(out),
            nulls,
        });
    }
    let data = match (&l.data, &r.data) {
        (Data::Text(a), Data::Text(b)) if op == BinaryOp::Concat => {
            let mut out = TextVec::with_capacity(n);
            let mut buf = Vec::new();
            for i in 0..n {
                buf.clear();
                buf.extend_from_slice(a.get(i));
                buf.extend_from_slice(b.get(i));
                out.push(&buf);
            }
            Data::Text(out)
        }
        (Data::I16(a), Data::I16(b)) => Data::I16(int_arith!(a, b, &nulls, op, i16, "smallint")),
        (Data::I32(a), Data::I32(b)) if lt.ty == DataType::Date && rt.ty == DataType::Date => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                if !is_null_at(&nulls, i)
                    && (datetime::date_is_infinite(a[i]) || datetime::date_is_infinite(b[i]))
                {
                    return Err(Error::new("22008", "cannot subtract infinite dates"));
                }
                out.push(a[i].wrapping_sub(b[i]));
            }
            Data::I32(out)
        }
        (Data::I32(a), Data::I32(b)) if lt.ty == DataType::Date => {
            let range = || Error::datetime_overflow("date out of range");
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                // date +/- integer (date_pli/date_mii): infinity stays infinity.
                let v = if datetime::date_is_infinite(a[i]) {
                    Some(a[i])
                } else if op == BinaryOp::Add {
                    a[i].checked_add(b[i])
                        .filter(|&d| datetime::is_valid_date(d))
                } else {
                    a[i].checked_sub(b[i])
                        .filter(|&d| datetime::is_valid_date(d))
                };
                out.push(if is_null_at(&nulls, i) {
                    0
                } else {
                    v.ok_or_else(range)?
                });
            }
            Data::I32(out)
        }
        (Data::I32(a), Data::I32(b)) => Data::I32(int_arith!(a, b, &nulls, op, i32, "integer")),
        (Data::I64(a), Data::I64(b)) if lt.ty == DataType::Int8 => {
            Data::I64(int_arith!(a, b, &nulls, op, i64, "bigint"))
        }
        (Data::I64(a), Data::I64(b)) if lt.ty == DataType::Time => {
            // time - time: an interval of the difference.
            Data::Interval(
                (0..n)
                    .map(|i| Interval {
                        months: 0,
                        days: 0,
                        micros: a[i] - b[i],
                    })
                    .collect(),
            )
        }
        (Data::I32(a), Data::I64(b)) if lt.ty == DataType::Date => {
            // date ± time (timestamp), date + timetz (timestamptz).
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                if is_null_at(&nulls, i) {
                    out.push(0);
                    continue;
                }
                let day = datetime::date_to_timestamp(a[i])?;
                out.push(match rt.ty {
                    DataType::TimeTz => {
                        let (time, west) = datetime::unpack_timetz(b[i]);
                        if datetime::timestamp_is_infinite(day) {
                            day
                        } else {
                            day + time + west as i64 * datetime::USECS_PER_SEC
                        }
                    }
                    _ if datetime::timestamp_is_infinite(day) => day,
                    _ if op == BinaryOp::Sub => day - b[i],
                    _ => day + b[i],
                });
            }
            Data::I64(out)
        }
        (Data::I64(a), Data::I64(b)) => {
            // timestamp - timestamp
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(if is_null_at(&nulls, i) {
                    Interval::default()
                } else {
                    datetime::timestamp_diff(a[i], b[i])?
                });
            }
            Data::Interval(out)
        }
        (Data::I64(a), Data::Interval(b)) if matches!(lt.ty, DataType::Time | DataType::TimeTz) => {
            // time ± interval: the interval's time part, wrapped round midnight.
            let day = datetime::USECS_PER_DAY;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let step = if op == BinaryOp::Sub {
                    -b[i].micros
                } else {
                    b[i].micros
                };
                out.push(if lt.ty == DataType::TimeTz {
                    let (time, west) = datetime::unpack_timetz(a[i]);
                    datetime::pack_timetz((time + step % day).rem_euclid(day), west)
                } else {
                    (a[i] + step % day).rem_euclid(day)
                });
            }
            Data::I64(out)
        }
        (Data::I64(a), Data::Interval(b)) => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                if is_null_at(&nulls, i) {
                    out.push(0);
                    continue;
                }
                let iv = if op == BinaryOp::Sub {
                    datetime::interval_neg(&b[i])
                } else {
                    b[i]
                };
                out.push(if lt.ty == DataType::Timestamptz {
                    datetime::timestamptz_add_interval(a[i], &iv, zone)?
                } else {
                    datetime::timestamp_add_interval(a[i], &iv)?
                });
            }
            Data::I64(out)
        }
        (Data::Interval(a), Data::Interval(b)) => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                let y = if op == BinaryOp::Sub {
                    datetime::interval_neg(&y)
                } else {
                    y
                };
                out.push(Interval {
                    months: x.months.wrapping_add(y.months),
                    days: x.days.wrapping_add(y.days),
                    micros: x.micros.wrapping_add(y.micros),
                });
            }
            Data::Interval(out)
        }
        (Data::Interval(a), Data::F64(b)) => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                if is_null_at(&nulls, i) {
                    out.push(Interval::default());
                    continue;
                }
                let f = if op == BinaryOp::Div {
                    if b[i] == 0.0 {
                        return Err(Error::division_by_zero());
                    }
                    1.0 / b[i]
                } else {
                    b[i]
                };
                out.push(scale_interval(&a[i], f));
            }
            Data::Interval(out)
        }
        (Data::F32(a), Data::F32(b)) => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                if is_null_at(&nulls, i) {
                    out.push(0.0);
                    continue;
                }
                let v = float_arith(op, a[i] as f64, b[i] as f64)? as f32;
                if v.is_infinite() && a[i].is_finite() && b[i].is_finite() {
                    return Err(Error::numeric_out_of_range("value out of range: overflow"));
                }
                // A product or quotient that is not zero in double precision may be in
                // real (PostgreSQL computes real arithmetic in single precision).
                let zero_allowed = match op {
                    BinaryOp::Mul => a[i] == 0.0 || b[i] == 0.0,
                    BinaryOp::Div => a[i] == 0.0 || b[i].is_infinite(),
                    _ => true,
                };
                if v == 0.0 && !zero_allowed {
                    return Err(Error::numeric_out_of_range("value out of range: underflow"));
                }
                out.push(v);
            }
            Data::F32(out)
        }
        (Data::F64(a), Data::F64(b)) => {
            let mut out = Vec::with_capacity(n);
            if nulls.is_none() && matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) {
                for i in 0..n {
                    out.push(float_arith(op, a[i], b[i])?);
                }
            } else {
                for i in 0..n {
                    out.push(if is_null_at(&nulls, i) {
                        0.0
                    } else {
                        float_arith(op, a[i], b[i])?
                    });
                }
            }
            Data::F64(out)
        }
        (Data::Num(a), Data::Num(b)) => {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                if is_null_at(&nulls, i) {
                    out.push(Numeric::ZERO);
                    continue;
                }
                out.push(match op {
                    BinaryOp::Add => a[i].add(&b[i])?,
                    BinaryOp::Sub => a[i].sub(&b[i])?,
                    BinaryOp::Mul => a[i].mul(&b[i])?,
                    BinaryOp::Div => a[i].div(&b[i])?,
                    BinaryOp::Mod => a[i].rem(&b[i])?,
                    BinaryOp::Pow => a[i].power(&b[i])?,
                    _ => return Err(Error::internal("bad numeric operator")),
                });
            }
            Data::Num(out)
        }
        _ => {
            return Err(Error::internal(format!(
                "no kernel for {} {} {} → {}",
                lt.display_name(),
                op.symbol(),
                rt.display_name(),
                ty.display_name()
            )));
        }
    };
    Ok(Vector { data, nulls })
}

pub fn scale_interval(iv: &Interval, f: f64) -> Interval {
    let months = iv.months as f64 * f;
    let whole_months = months.trunc();
    let days = iv.days as f64 * f + (months - whole_months) * 30.0;
    let whole_days = days.trunc();
    let micros = iv.micros as f64 * f + (days - whole_days) * USECS_PER_DAY as f64;
    Interval {
        months: whole_months as i32,
        days: whole_days as i32,
        micros: micros.round() as i64,
    }
}

/// Casts every element of `v` from `from` to `to`.
pub fn cast_vector(
    v: Vector,
    from: SqlType,
    to: SqlType,
    explicit: bool,
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = v.len();
    if from == to && to.typmod < 0 {
        return Ok(v);
    }
    // int2vector and oidvector read as text as they print: numbers between spaces.
    if crate::types::vector_oid(from).is_some()
        && matches!(to.ty, DataType::Text | DataType::Varchar)
        && let Data::Array(a) = &v.data
    {
        let mut out = Vector::with_capacity(DataType::Text, n);
        for i in 0..n {
            if v.is_null(i) {
                out.push_null();
                continue;
            }
            let view = crate::types::array::View::new(a.blobs.get(i), a.elem);
            let shown: Vec<String> = view
                .values()
                .iter()
                .map(|e| crate::types::text::value_to_string(e, &ctx.fmt))
                .collect();
            out.push_value(&Value::Text(shown.join(" ")));
        }
        return Ok(out);
    }
    let nulls = v.nulls.clone();
    // Widening integer and float conversions never fail.
    let fast = match (&v.data, to.ty) {
        (Data::I16(a), DataType::Int4) => Some(Data::I32(a.iter().map(|&x| x as i32).collect())),
        (Data::I16(a), DataType::Int8) => Some(Data::I64(a.iter().map(|&x| x as i64).collect())),
        (Data::I32(a), DataType::Int8) if from.ty == DataType::Int4 => {
            Some(Data::I64(a.iter().map(|&x| x as i64).collect()))
        }
        (Data::I32(a), DataType::Float8) if from.ty == DataType::Int4 => {
            Some(Data::F64(a.iter().map(|&x| x as f64).collect()))
        }
        (Data::I64(a), DataType::Float8) if from.ty == DataType::Int8 => {
            Some(Data::F64(a.iter().map(|&x| x as f64).collect()))
        }
        (Data::F32(a), DataType::Float8) => Some(Data::F64(a.iter().map(|&x| x as f64).collect())),
        (Data::I32(a), DataType::Numeric) if from.ty == DataType::Int4 && to.typmod < 0 => Some(
            Data::Num(a.iter().map(|&x| Numeric::from_i64(x as i64)).collect()),
        ),
        (Data::I64(a), DataType::Numeric) if from.ty == DataType::Int8 && to.typmod < 0 => {
            Some(Data::Num(a.iter().map(|&x| Numeric::from_i64(x)).collect()))
        }
        (Data::Text(_), DataType::Text | DataType::Varchar)
            if from.ty != DataType::Bpchar && !from.ty.is_raw_bytes() && to.typmod < 0 =>
        {
            return Ok(v);
        }
        _ => None,
    };
    // numeric(p, s) to unconstrained numeric changes nothing.
    if from.ty == DataType::Numeric && to.ty == DataType::Numeric && to.typmod < 0 {
        return Ok(v);
    }
    if let Data::I32(days) = &v.data
        && from.ty == DataType::Date
        && to.ty == DataType::Timestamp
    {
        let mut out = Vec::with_capacity(n);
        for (i, &d) in days.iter().enumerate() {
            out.push(if v.is_null(i) {
                0
            } else {
                crate::types::datetime::date_to_timestamp(d)?
            });
        }
        return Ok(Vector {
            data: Data::I64(out),
            nulls,
        });
    }
    // char(n) to text or varchar drops the padding: one copy, no value per row.
    if let Data::Text(t) = &v.data
        && from.ty == DataType::Bpchar
        && matches!(to.ty, DataType::Text | DataType::Varchar)
        && to.typmod < 0
    {
        let mut out = TextVec::with_capacity(n);
        for i in 0..n {
            let s = t.get(i);
            let end = s.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
            out.push(&s[..end]);
        }
        return Ok(Vector {
            data: Data::Text(out),
            nulls,
        });
    }
    if let (Data::F64(a), DataType::Numeric) = (&v.data, to.ty)
        && to.typmod < 0
    {
        let mut out = Vec::with_capacity(n);
        for (i, &x) in a.iter().enumerate() {
            out.push(if v.is_null(i) {
                Numeric::ZERO
            } else {
                Numeric::from_f64(x)?
            });
        }
        return Ok(Vector {
            data: Data::Num(out),
            nulls,
        });
    }
    if let Some(data) = fast {
        return Ok(Vector { data, nulls });
    }
    let mut out = Vector::with_capacity(to.ty, n);
    let trim_bpchar = from.ty == DataType::Bpchar && to.ty != DataType::Bpchar;
    for i in 0..n {
        let value = v.value(i, from.ty);
        let value = match value {
            Value::Text(s) if trim_bpchar => Value::Text(s.trim_end_matches(' ').to_string()),
            other => other,
        };
        let c = cast_value(value, to, explicit, &ctx.fmt)?;
        out.push_value(&c);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_equality_agrees_with_slices_at_every_length_and_position() {
        let strings: [&[u8]; 9] = [
            b"",
            b"a",
            b"North",
            b"Nort",
            b"North!",
            b"12345678",
            b"123456789",
            b"1234567",
            b"N",
        ];
        let mut t = TextVec::with_capacity(strings.len());
        for s in strings {
            t.push(s);
        }
        // The last strings end within 8 bytes of the data's end: the slow path.
        for needle in strings {
            let eq = ShortEq::new(needle);
            for (i, s) in strings.iter().enumerate() {
                assert_eq!(eq.matches(&t, i), *s == needle, "{s:?} vs {needle:?}");
            }
        }
    }
}
