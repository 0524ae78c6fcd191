//! Hash aggregation: GROUP BY and the aggregate calls computed over each group.
//!
//! The operator reads all of its input, then emits one row per group — exactly one
//! without GROUP BY, even over no rows — in slices of at most [`BATCH_ROWS_MAX`] rows.
//!
//! For each input batch it evaluates the group keys and maps every row to a dense group
//! id with one of three groupers:
//! - no GROUP BY: every row is group 0;
//! - one `int2`, `int4`, `int8` or `date` key: a hash map from the value as an `i64`,
//!   with one extra group for NULL;
//! - anything else: a hash map from the row's keys encoded as bytes ([`super::keys`]:
//!   equal SQL values encode equal, NULLs group together).
//!
//! The first row of a group supplies the group's key values in the output. Each
//! aggregate then evaluates its FILTER (only the rows it keeps go on) and its arguments,
//! and updates its per-group states in one typed loop. States are columnar (`Vec<i64>`
//! of counts, `Vec<i128>` of sums …), so an update is an indexed add, not a call through
//! a trait object; count, sum, avg, min and max have such states of their own, and the
//! other aggregates keep one [`General`] state per group ([`super::agg_stats`]). Result
//! types are PostgreSQL's: `sum(int4)` is bigint, `sum(int8)` and `avg(int)` are numeric.
//!
//! An aggregate with DISTINCT or ORDER BY — the ordered-set aggregates too, whose
//! `WITHIN GROUP (ORDER BY …)` is their ORDER BY — does not fold rows in as they come.
//! It gathers, per group, the columns of its argument, further arguments and order keys
//! (with DISTINCT, one row per distinct value of the arguments, compared as encoded
//! bytes, and none whose argument is NULL). Once the input is read it sorts each group's
//! rows — by the ORDER BY, or for DISTINCT by the argument, as PostgreSQL feeds them —
//! and folds them in that order.
//!
//! Grouping sets never reach this operator: the binder makes one aggregation per set
//! (`sql::binder::grouping`), and `GROUPING()` is a constant of each.
//!
//! Memory is charged to the statement's budget (`53200` past `kiln.max_query_memory`):
//! an estimate for each new group (its key bytes, a hash table entry and 32 bytes per
//! aggregate), and each row gathered (with DISTINCT, each distinct key kept). When a
//! batch's inputs fail to evaluate, the batch is replayed row by row to raise the first
//! failing row's error, as PostgreSQL's row-at-a-time evaluation would.
//!
//! [`SingleAgg`] is one aggregate's state for a single group, fed batch by batch: what a
//! window aggregate accumulates over a frame.

use std::collections::HashMap;

use super::agg_stats::General;
use super::context::ExecContext;
use super::expr::{cmp_f64, compare_rows, eval, replay_exprs};
use super::keys;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use super::{BoxedOperator, Operator};
use crate::error::{Error, Result};
use crate::sql::expr::{AggCall, AggFunc, Expr};
use crate::types::datetime::Interval;
use crate::types::{DataType, Numeric, SqlType, Value};

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Maps rows to dense group ids.
enum Grouper {
    /// No GROUP BY: one group.
    Single,
    /// One integer-like key.
    Int {
        map: FastMap<i64, u32>,
        null_group: Option<u32>,
    },
    /// Anything else: encoded key bytes.
    Bytes {
        map: FastMap<Box<[u8]>, u32>,
        buf: Vec<u8>,
    },
}

enum State {
    Count(Vec<i64>),
    /// sum of int2/int4 into bigint
    SumInt {
        sum: Vec<i64>,
        seen: Vec<bool>,
    },
    /// sum of int8 into numeric
    SumWide {
        sum: Vec<i128>,
        seen: Vec<bool>,
    },
    SumNum {
        sum: Vec<Numeric>,
        seen: Vec<bool>,
    },
    SumFloat {
        sum: Vec<f64>,
        seen: Vec<bool>,
        single: bool,
    },
    SumInterval {
        sum: Vec<Interval>,
        seen: Vec<bool>,
    },
    AvgInt {
        sum: Vec<i128>,
        count: Vec<i64>,
    },
    AvgNum {
        sum: Vec<Numeric>,
        count: Vec<i64>,
    },
    /// PostgreSQL's float8_accum: count, sum, and sum of squared deviations — whose
    /// overflow raises 22003 even though avg() does not return it.
    AvgFloat {
        sum: Vec<f64>,
        count: Vec<i64>,
        sxx: Vec<f64>,
    },
    AvgInterval {
        sum: Vec<Interval>,
        count: Vec<i64>,
    },
    MinMaxInt {
        best: Vec<i64>,
        seen: Vec<bool>,
        max: bool,
    },
    MinMaxFloat {
        best: Vec<f64>,
        seen: Vec<bool>,
        max: bool,
    },
    MinMaxAny {
        best: Vec<Value>,
        max: bool,
        ty: DataType,
    },
    /// The other aggregates ([`super::agg_stats`]), one state per group.
    General {
        states: Vec<General>,
        empty: General,
        func: AggFunc,
    },
}

/// The rows an ORDER BY / DISTINCT aggregate gathers, per group: the encoded argument
/// values seen (DISTINCT), and the columns `[arg, extra…, order keys…]`.
struct Gathered {
    seen: Vec<FastMap<Box<[u8]>, ()>>,
    rows: Vec<Vec<Vector>>,
}

struct Accumulator {
    call: AggCall,
    state: State,
    gathered: Option<Gathered>,
}

/// One aggregate over one group, fed a batch of rows at a time: what a window
/// aggregate accumulates over a frame.
pub struct SingleAgg {
    state: State,
    ty: SqlType,
    arg_ty: DataType,
}

impl SingleAgg {
    pub fn new(call: &AggCall) -> Result<SingleAgg> {
        let mut state = new_state(call)?;
        state.grow(1);
        Ok(SingleAgg {
            state,
            ty: call.ty,
            arg_ty: call.arg.as_ref().map_or(DataType::Int8, |a| a.ty().ty),
        })
    }

    /// Adds `rows` rows (their argument values in `arg`, none for `count(*)`; further
    /// arguments in `extra`).
    pub fn update(&mut self, arg: Option<&Vector>, extra: &[Vector], rows: usize) -> Result<()> {
        let groups = vec![0u32; rows];
        self.state.update(&groups, arg, extra, self.arg_ty)
    }

    /// The aggregate's value over the rows added so far.
    pub fn value(&self) -> Result<Value> {
        Ok(self.state.finish(self.ty, 1)?.value(0, self.ty.ty))
    }
}

fn new_state(call: &AggCall) -> Result<State> {
    let arg_ty = call.arg.as_ref().map(|a| a.ty().ty);
    Ok(match (call.func, arg_ty) {
        (AggFunc::CountStar | AggFunc::Count, _) => State::Count(Vec::new()),
        (AggFunc::Sum, Some(DataType::Int2 | DataType::Int4)) => State::SumInt {
            sum: vec![],
            seen: vec![],
        },
        (AggFunc::Sum, Some(DataType::Int8)) => State::SumWide {
            sum: vec![],
            seen: vec![],
        },
        (AggFunc::Sum, Some(DataType::Numeric)) => State::SumNum {
            sum: vec![],
            seen: vec![],
        },
        (AggFunc::Sum, Some(t @ (DataType::Float4 | DataType::Float8))) => State::SumFloat {
            sum: vec![],
            seen: vec![],
            single: t == DataType::Float4,
        },
        (AggFunc::Sum, Some(DataType::Interval)) => State::SumInterval {
            sum: vec![],
            seen: vec![],
        },
        (AggFunc::Avg, Some(DataType::Int2 | DataType::Int4 | DataType::Int8)) => State::AvgInt {
            sum: vec![],
            count: vec![],
        },
        (AggFunc::Avg, Some(DataType::Numeric)) => State::AvgNum {
            sum: vec![],
            count: vec![],
        },
        (AggFunc::Avg, Some(DataType::Float4 | DataType::Float8)) => State::AvgFloat {
            sum: vec![],
            count: vec![],
            sxx: vec![],
        },
        (AggFunc::Avg, Some(DataType::Interval)) => State::AvgInterval {
            sum: vec![],
            count: vec![],
        },
        (AggFunc::Min | AggFunc::Max, Some(t)) => {
            let max = call.func == AggFunc::Max;
            match t {
                DataType::Int2
                | DataType::Int4
                | DataType::Int8
                | DataType::Date
                | DataType::Timestamp
                | DataType::Timestamptz => State::MinMaxInt {
                    best: vec![],
                    seen: vec![],
                    max,
                },
                DataType::Float4 | DataType::Float8 => State::MinMaxFloat {
                    best: vec![],
                    seen: vec![],
                    max,
                },
                _ => State::MinMaxAny {
                    best: vec![],
                    max,
                    ty: t,
                },
            }
        }
        (func, arg) => match General::new(func, arg.unwrap_or(DataType::Int8)) {
            Some(empty) => State::General {
                states: Vec::new(),
                empty,
                func,
            },
            None => return Err(Error::internal("aggregate without a state")),
        },
    })
}

/// PostgreSQL's float overflow rule: an infinite result from finite inputs is an error.
fn float_overflow_check(result: f64, a: f64, b: f64) -> Result<()> {
    if result.is_infinite() && a.is_finite() && b.is_finite() {
        return Err(Error::numeric_out_of_range("value out of range: overflow"));
    }
    Ok(())
}

fn int_values(v: &Vector) -> Option<Vec<i64>> {
    match &v.data {
        Data::I16(x) => Some(x.iter().map(|&a| a as i64).collect()),
        Data::I32(x) => Some(x.iter().map(|&a| a as i64).collect()),
        Data::I64(x) => Some(x.clone()),
        _ => None,
    }
}

fn float_values(v: &Vector) -> Option<Vec<f64>> {
    match &v.data {
        Data::F32(x) => Some(x.iter().map(|&a| a as f64).collect()),
        Data::F64(x) => Some(x.clone()),
        _ => None,
    }
}

impl State {
    fn grow(&mut self, groups: usize) {
        match self {
            State::Count(c) => c.resize(groups, 0),
            State::SumInt { sum, seen } => {
                sum.resize(groups, 0);
                seen.resize(groups, false);
            }
            State::SumWide { sum, seen } => {
                sum.resize(groups, 0);
                seen.resize(groups, false);
            }
            State::SumNum { sum, seen } => {
                sum.resize(groups, Numeric::ZERO);
                seen.resize(groups, false);
            }
            State::SumFloat { sum, seen, .. } => {
                // PostgreSQL's float sum starts from the first value; -0.0 is the
                // identity that keeps a sum of -0.0 negative (0.0 + -0.0 is 0.0).
                sum.resize(groups, -0.0);
                seen.resize(groups, false);
            }
            State::SumInterval { sum, seen } => {
                sum.resize(groups, Interval::default());
                seen.resize(groups, false);
            }
            State::AvgInt { sum, count } => {
                sum.resize(groups, 0);
                count.resize(groups, 0);
            }
            State::AvgNum { sum, count } => {
                sum.resize(groups, Numeric::ZERO);
                count.resize(groups, 0);
            }
            State::AvgFloat { sum, count, sxx } => {
                sum.resize(groups, 0.0);
                count.resize(groups, 0);
                sxx.resize(groups, 0.0);
            }
            State::AvgInterval { sum, count } => {
                sum.resize(groups, Interval::default());
                count.resize(groups, 0);
            }
            State::MinMaxInt { best, seen, .. } => {
                best.resize(groups, 0);
                seen.resize(groups, false);
            }
            State::MinMaxFloat { best, seen, .. } => {
                best.resize(groups, 0.0);
                seen.resize(groups, false);
            }
            State::MinMaxAny { best, .. } => best.resize(groups, Value::Null),
            State::General { states, empty, .. } => states.resize(groups, empty.clone()),
        }
    }

    /// Folds `arg` (None for COUNT(*)) and the further arguments `extra` into the
    /// states of `group_ids`.
    fn update(
        &mut self,
        group_ids: &[u32],
        arg: Option<&Vector>,
        extra: &[Vector],
        arg_ty: DataType,
    ) -> Result<()> {
        let live = |i: usize| arg.is_none_or(|a| !a.is_null(i));
        match self {
            State::General { states, .. } => {
                let a = arg.ok_or_else(|| Error::internal("aggregate without argument"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    states[g as usize].update(a, extra, i, arg_ty)?;
                }
            }
            State::Count(c) => {
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        c[g as usize] += 1;
                    }
                }
            }
            State::SumInt { sum, seen } => {
                let vals = arg
                    .and_then(int_values)
                    .ok_or_else(|| Error::internal("sum input"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let g = g as usize;
                        sum[g] = sum[g]
                            .checked_add(vals[i])
                            .ok_or_else(|| Error::numeric_out_of_range("bigint out of range"))?;
                        seen[g] = true;
                    }
                }
            }
            State::SumWide { sum, seen } => {
                let vals = arg
                    .and_then(int_values)
                    .ok_or_else(|| Error::internal("sum input"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        sum[g as usize] += vals[i] as i128;
                        seen[g as usize] = true;
                    }
                }
            }
            State::SumNum { sum, seen } => {
                let Some(Data::Num(vals)) = arg.map(|a| &a.data) else {
                    return Err(Error::internal("sum input"));
                };
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let g = g as usize;
                        sum[g].add_assign(&vals[i])?;
                        seen[g] = true;
                    }
                }
            }
            State::SumFloat { sum, seen, single } => {
                let vals = arg
                    .and_then(float_values)
                    .ok_or_else(|| Error::internal("sum input"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let g = g as usize;
                        let new = if *single {
                            (sum[g] as f32 + vals[i] as f32) as f64
                        } else {
                            sum[g] + vals[i]
                        };
                        float_overflow_check(new, sum[g], vals[i])?;
                        sum[g] = new;
                        seen[g] = true;
                    }
                }
            }
            State::SumInterval { sum, seen } => {
                let Some(Data::Interval(vals)) = arg.map(|a| &a.data) else {
                    return Err(Error::internal("sum input"));
                };
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let s = &mut sum[g as usize];
                        s.months += vals[i].months;
                        s.days += vals[i].days;
                        s.micros += vals[i].micros;
                        seen[g as usize] = true;
                    }
                }
            }
            State::AvgInt { sum, count } => {
                let vals = arg
                    .and_then(int_values)
                    .ok_or_else(|| Error::internal("avg input"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        sum[g as usize] += vals[i] as i128;
                        count[g as usize] += 1;
                    }
                }
            }
            State::AvgNum { sum, count } => {
                let Some(Data::Num(vals)) = arg.map(|a| &a.data) else {
                    return Err(Error::internal("avg input"));
                };
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        sum[g as usize].add_assign(&vals[i])?;
                        count[g as usize] += 1;
                    }
                }
            }
            State::AvgFloat { sum, count, sxx } => {
                let vals = arg
                    .and_then(float_values)
                    .ok_or_else(|| Error::internal("avg input"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let g = g as usize;
                        let (x, n) = (vals[i], count[g] as f64);
                        let new_sum = sum[g] + x;
                        let new_n = n + 1.0;
                        let new_sxx = if n > 0.0 {
                            let tmp = x * new_n - new_sum;
                            sxx[g] + tmp * tmp / (n * new_n)
                        } else {
                            0.0
                        };
                        float_overflow_check(new_sum, sum[g], x)?;
                        float_overflow_check(new_sxx, sxx[g], x)?;
                        sum[g] = new_sum;
                        sxx[g] = new_sxx;
                        count[g] += 1;
                    }
                }
            }
            State::AvgInterval { sum, count } => {
                let Some(Data::Interval(vals)) = arg.map(|a| &a.data) else {
                    return Err(Error::internal("avg input"));
                };
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let s = &mut sum[g as usize];
                        s.months += vals[i].months;
                        s.days += vals[i].days;
                        s.micros += vals[i].micros;
                        count[g as usize] += 1;
                    }
                }
            }
            State::MinMaxInt { best, seen, max } => {
                let vals = arg
                    .and_then(int_values)
                    .ok_or_else(|| Error::internal("min input"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let g = g as usize;
                        let v = vals[i];
                        if !seen[g] || (*max && v > best[g]) || (!*max && v < best[g]) {
                            best[g] = v;
                            seen[g] = true;
                        }
                    }
                }
            }
            State::MinMaxFloat { best, seen, max } => {
                let vals = arg
                    .and_then(float_values)
                    .ok_or_else(|| Error::internal("min input"))?;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let g = g as usize;
                        let o = cmp_f64(vals[i], best[g]);
                        // Ties take the newer value, as PostgreSQL's float8larger and
                        // float8smaller do (visible for -0 and 0).
                        if !seen[g] || (*max && o.is_ge()) || (!*max && o.is_le()) {
                            best[g] = vals[i];
                            seen[g] = true;
                        }
                    }
                }
            }
            State::MinMaxAny { best, max, ty } => {
                let a = arg.ok_or_else(|| Error::internal("min input"))?;
                let _ = arg_ty;
                for (i, &g) in group_ids.iter().enumerate() {
                    if live(i) {
                        let g = g as usize;
                        let replace = match &best[g] {
                            Value::Null => true,
                            current => {
                                let mut one = Vector::with_capacity(*ty, 1);
                                one.push_value(current);
                                let o = compare_rows(&a.data, i, &one.data, 0);
                                // Ties take the newer value, as PostgreSQL's
                                // numeric_larger/interval_smaller… do: equal values can
                                // print differently (1.0 and 1.00, '1 day' and 24:00:00).
                                if *max { o.is_ge() } else { o.is_le() }
                            }
                        };
                        if replace {
                            best[g] = a.value(i, *ty);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(&self, ty: SqlType, groups: usize) -> Result<Vector> {
        let mut out = Vector::with_capacity(ty.ty, groups);
        for g in 0..groups {
            let v = match self {
                State::Count(c) => Value::Int8(c[g]),
                State::SumInt { sum, seen } => {
                    if seen[g] {
                        Value::Int8(sum[g])
                    } else {
                        Value::Null
                    }
                }
                State::SumWide { sum, seen } => {
                    if seen[g] {
                        Value::Numeric(Numeric::new(sum[g], 0)?)
                    } else {
                        Value::Null
                    }
                }
                State::SumNum { sum, seen } => {
                    if seen[g] {
                        Value::Numeric(sum[g].clone())
                    } else {
                        Value::Null
                    }
                }
                State::SumFloat { sum, seen, single } => match (seen[g], single) {
                    (false, _) => Value::Null,
                    (true, true) => Value::Float4(sum[g] as f32),
                    (true, false) => Value::Float8(sum[g]),
                },
                State::SumInterval { sum, seen } => {
                    if seen[g] {
                        Value::Interval(sum[g])
                    } else {
                        Value::Null
                    }
                }
                State::AvgInt { sum, count } => {
                    if count[g] == 0 {
                        Value::Null
                    } else {
                        Value::Numeric(Numeric::new(sum[g], 0)?.div(&Numeric::from_i64(count[g]))?)
                    }
                }
                State::AvgNum { sum, count } => {
                    if count[g] == 0 {
                        Value::Null
                    } else {
                        Value::Numeric(sum[g].div(&Numeric::from_i64(count[g]))?)
                    }
                }
                State::AvgFloat { sum, count, .. } => {
                    if count[g] == 0 {
                        Value::Null
                    } else {
                        Value::Float8(sum[g] / count[g] as f64)
                    }
                }
                State::AvgInterval { sum, count } => {
                    if count[g] == 0 {
                        Value::Null
                    } else {
                        let c = count[g] as f64;
                        let s = sum[g];
                        let months = s.months as f64 / c;
                        let wm = months.trunc();
                        let days = s.days as f64 / c + (months - wm) * 30.0;
                        let wd = days.trunc();
                        let micros = s.micros as f64 / c + (days - wd) * 86_400_000_000.0;
                        Value::Interval(Interval {
                            months: wm as i32,
                            days: wd as i32,
                            micros: micros.round() as i64,
                        })
                    }
                }
                State::MinMaxInt { best, seen, .. } => {
                    if !seen[g] {
                        Value::Null
                    } else {
                        match ty.ty {
                            DataType::Int2 => Value::Int2(best[g] as i16),
                            DataType::Int4 => Value::Int4(best[g] as i32),
                            DataType::Date => Value::Date(best[g] as i32),
                            DataType::Timestamp => Value::Timestamp(best[g]),
                            DataType::Timestamptz => Value::Timestamptz(best[g]),
                            _ => Value::Int8(best[g]),
                        }
                    }
                }
                State::MinMaxFloat { best, seen, .. } => match (seen[g], ty.ty) {
                    (false, _) => Value::Null,
                    (true, DataType::Float4) => Value::Float4(best[g] as f32),
                    (true, _) => Value::Float8(best[g]),
                },
                State::MinMaxAny { best, .. } => best[g].clone(),
                State::General { states, func, .. } => states[g].finish(*func, ty)?,
            };
            out.push_value(&v);
        }
        Ok(out)
    }
}

pub struct AggregateOp {
    input: BoxedOperator,
    group_by: Vec<Expr>,
    accs: Vec<Accumulator>,
    grouper: Grouper,
    /// Representative key values, one row per group.
    keys_out: Vec<Vector>,
    groups: usize,
    output: Option<Batch>,
    emitted: usize,
}

impl AggregateOp {
    pub fn new(input: BoxedOperator, group_by: Vec<Expr>, aggs: Vec<AggCall>) -> AggregateOp {
        let grouper = match group_by.as_slice() {
            [] => Grouper::Single,
            [k] if matches!(
                k.ty().ty,
                DataType::Int2 | DataType::Int4 | DataType::Int8 | DataType::Date
            ) =>
            {
                Grouper::Int {
                    map: FastMap::default(),
                    null_group: None,
                }
            }
            _ => Grouper::Bytes {
                map: FastMap::default(),
                buf: Vec::new(),
            },
        };
        let keys_out = group_by
            .iter()
            .map(|g| Vector::with_capacity(g.ty().ty, 0))
            .collect();
        let accs = aggs
            .into_iter()
            .map(|call| Accumulator {
                gathered: call.gathers().then(|| Gathered {
                    seen: Vec::new(),
                    rows: Vec::new(),
                }),
                state: State::Count(vec![]),
                call,
            })
            .collect();
        AggregateOp {
            input,
            group_by,
            accs,
            grouper,
            keys_out,
            groups: 0,
            output: None,
            emitted: 0,
        }
    }

    fn assign_groups(&mut self, keys: &[Vector], rows: usize) -> Vec<u32> {
        let mut ids = Vec::with_capacity(rows);
        match &mut self.grouper {
            Grouper::Single => {
                if self.groups == 0 {
                    self.groups = 1;
                }
                ids.resize(rows, 0);
            }
            Grouper::Int { map, null_group } => {
                let k = &keys[0];
                let vals = int_values(k).unwrap_or_default();
                #[allow(clippy::needless_range_loop)]
                for i in 0..rows {
                    let id = if k.is_null(i) {
                        *null_group.get_or_insert_with(|| {
                            self.keys_out[0].push_null();
                            self.groups += 1;
                            (self.groups - 1) as u32
                        })
                    } else {
                        let next = self.groups as u32;
                        let id = *map.entry(vals[i]).or_insert(next);
                        if id == next {
                            self.keys_out[0].push_from(k, i);
                            self.groups += 1;
                        }
                        id
                    };
                    ids.push(id);
                }
            }
            Grouper::Bytes { map, buf } => {
                for i in 0..rows {
                    buf.clear();
                    for k in keys {
                        keys::encode(k, i, buf);
                    }
                    let id = match map.get(buf.as_slice()) {
                        Some(&id) => id,
                        None => {
                            let id = self.groups as u32;
                            map.insert(buf.clone().into_boxed_slice(), id);
                            for (out, k) in self.keys_out.iter_mut().zip(keys) {
                                out.push_from(k, i);
                            }
                            self.groups += 1;
                            id
                        }
                    };
                    ids.push(id);
                }
            }
        }
        ids
    }

    /// The batch's group keys, and for each aggregate its arguments, its order keys
    /// and which rows its FILTER keeps (None: all).
    #[allow(clippy::type_complexity)]
    fn evaluate_inputs(
        &self,
        b: &Batch,
        sel: &[u32],
        ctx: &ExecContext,
    ) -> Result<(Vec<Vector>, Vec<AccInput>)> {
        let keys = self
            .group_by
            .iter()
            .map(|g| eval(g, b, sel, ctx))
            .collect::<Result<Vec<_>>>()?;
        let mut inputs = Vec::with_capacity(self.accs.len());
        for acc in &self.accs {
            let call = &acc.call;
            let keep = match &call.filter {
                Some(f) => {
                    let v = eval(f, b, sel, ctx)?;
                    let Data::Bool(bits) = &v.data else {
                        return Err(Error::internal("FILTER on non-boolean"));
                    };
                    Some(
                        (0..sel.len())
                            .filter(|&i| bits[i] && !v.is_null(i))
                            .map(|i| i as u32)
                            .collect::<Vec<u32>>(),
                    )
                }
                None => None,
            };
            // The arguments are evaluated on the rows FILTER keeps only, as PostgreSQL
            // evaluates them: a row it drops cannot raise an error.
            let kept_sel: Vec<u32>;
            let rows: &[u32] = match &keep {
                Some(k) => {
                    kept_sel = k.iter().map(|&i| sel[i as usize]).collect();
                    &kept_sel
                }
                None => sel,
            };
            let eval_all = |es: &[&Expr]| -> Result<Vec<Vector>> {
                es.iter().map(|e| eval(e, b, rows, ctx)).collect()
            };
            let arg = call
                .arg
                .as_ref()
                .map(|a| eval(a, b, rows, ctx))
                .transpose()?;
            let extra = eval_all(&call.extra.iter().collect::<Vec<_>>())?;
            let order = eval_all(&call.order_by.iter().map(|o| &o.expr).collect::<Vec<_>>())?;
            inputs.push(AccInput {
                arg,
                extra,
                order,
                keep,
            });
        }
        Ok((keys, inputs))
    }

    fn consume(&mut self, ctx: &ExecContext) -> Result<()> {
        for acc in self.accs.iter_mut() {
            acc.state = new_state(&acc.call)?;
        }
        while let Some(b) = self.input.next(ctx)? {
            let sel = b.selection();
            let evaluated = self.evaluate_inputs(&b, &sel, ctx);
            let (keys, inputs) = match evaluated {
                Ok(inputs) => inputs,
                Err(e) => {
                    // Raise the error of the first failing row, as PostgreSQL (row at a
                    // time: group keys, then each aggregate's argument) would.
                    let mut exprs: Vec<Expr> = self.group_by.clone();
                    for a in &self.accs {
                        a.call.exprs(&mut |x| exprs.push(x.clone()));
                    }
                    return Err(replay_exprs(&exprs, &b, &sel, ctx, e)?.error);
                }
            };
            let groups_before = self.groups;
            let ids = self.assign_groups(&keys, sel.len());
            let new_groups = self.groups - groups_before;
            if new_groups > 0 {
                // Keys, hash table entry and per-aggregate state, roughly.
                let key_bytes: usize = keys.iter().map(|k| k.heap_bytes() / k.len().max(1)).sum();
                ctx.charge_memory(new_groups * (key_bytes + 48 + 32 * self.accs.len()))?;
            }
            for (acc, input) in self.accs.iter_mut().zip(inputs) {
                let arg_ty = acc.call.arg.as_ref().map_or(DataType::Int8, |a| a.ty().ty);
                // FILTER: only the rows it keeps.
                let (ids, input) = match &input.keep {
                    None => (std::borrow::Cow::Borrowed(&ids), input),
                    // The inputs hold the kept rows already (see `evaluate_inputs`).
                    Some(keep) => (
                        std::borrow::Cow::Owned(keep.iter().map(|&i| ids[i as usize]).collect()),
                        AccInput {
                            keep: None,
                            ..input
                        },
                    ),
                };
                match &mut acc.gathered {
                    None => {
                        acc.state.grow(self.groups);
                        acc.state
                            .update(&ids, input.arg.as_ref(), &input.extra, arg_ty)?;
                    }
                    Some(g) => gather(g, &acc.call, &ids, &input, self.groups, ctx)?,
                }
            }
        }
        // Without GROUP BY there is always exactly one output row.
        if matches!(self.grouper, Grouper::Single) {
            self.groups = 1;
        }
        for acc in self.accs.iter_mut() {
            acc.state.grow(self.groups);
            if let Some(g) = &mut acc.gathered {
                let arg_ty = acc.call.arg.as_ref().map_or(DataType::Int8, |a| a.ty().ty);
                for (group, cols) in g.rows.iter().enumerate() {
                    let Some(first) = cols.first() else { continue };
                    let order = gathered_order(&acc.call, cols);
                    let sorted: Vec<Vector> = cols.iter().map(|c| c.gather(&order)).collect();
                    let n_extra = acc.call.extra.len();
                    let (arg, extra) = if acc.call.arg.is_some() {
                        (Some(&sorted[0]), &sorted[1..1 + n_extra])
                    } else {
                        (None, &sorted[0..n_extra])
                    };
                    let ids = vec![group as u32; first.len()];
                    acc.state.update(&ids, arg, extra, arg_ty)?;
                }
            }
        }
        let mut columns = std::mem::take(&mut self.keys_out);
        for acc in &self.accs {
            columns.push(acc.state.finish(acc.call.ty, self.groups)?);
        }
        self.output = Some(Batch::new(columns, self.groups));
        Ok(())
    }
}

/// One aggregate's inputs for a batch.
struct AccInput {
    arg: Option<Vector>,
    extra: Vec<Vector>,
    order: Vec<Vector>,
    /// The rows its FILTER keeps (None: all).
    keep: Option<Vec<u32>>,
}

/// Keeps a batch's rows for an ORDER BY / DISTINCT aggregate, per group (DISTINCT: each
/// distinct argument once; NULLs skipped, except by array_agg, which keeps one).
fn gather(
    g: &mut Gathered,
    call: &AggCall,
    ids: &[u32],
    input: &AccInput,
    groups: usize,
    ctx: &ExecContext,
) -> Result<()> {
    let cols: Vec<&Vector> = input
        .arg
        .iter()
        .chain(input.extra.iter())
        .chain(input.order.iter())
        .collect();
    while g.rows.len() < groups {
        g.seen.push(FastMap::default());
        g.rows.push(
            cols.iter()
                .map(|c| Vector::with_capacity(vector_type(c), 0))
                .collect(),
        );
    }
    let mut key = Vec::new();
    for (i, &grp) in ids.iter().enumerate() {
        let grp = grp as usize;
        if call.distinct {
            let Some(a) = &input.arg else { continue };
            if a.is_null(i)
                && !matches!(
                    call.func,
                    AggFunc::ArrayAgg | AggFunc::JsonAgg | AggFunc::JsonbAgg
                )
            {
                continue;
            }
            key.clear();
            keys::encode(a, i, &mut key);
            for e in &input.extra {
                keys::encode(e, i, &mut key);
            }
            if g.seen[grp].contains_key(key.as_slice()) {
                continue;
            }
            ctx.charge_memory(key.len() * 2 + 48)?;
            g.seen[grp].insert(key.clone().into_boxed_slice(), ());
        } else {
            ctx.charge_memory(16 * cols.len())?;
        }
        for (out, c) in g.rows[grp].iter_mut().zip(&cols) {
            out.push_from(c, i);
        }
    }
    Ok(())
}

/// The physical kind of a vector, as a type that makes vectors of that kind.
fn vector_type(v: &Vector) -> DataType {
    match &v.data {
        Data::Bool(_) => DataType::Bool,
        Data::I16(_) => DataType::Int2,
        Data::I32(_) => DataType::Int4,
        Data::I64(_) => DataType::Int8,
        Data::F32(_) => DataType::Float4,
        Data::F64(_) => DataType::Float8,
        Data::Num(_) => DataType::Numeric,
        Data::Text(_) => DataType::Text,
        Data::Interval(_) => DataType::Interval,
        Data::Array(a) => DataType::array_of(a.elem).unwrap_or(DataType::Text),
        Data::Record(_) => DataType::Record,
        Data::Jsonb(_) => DataType::Jsonb,
    }
}

/// The order a group's gathered rows are fed in: the call's ORDER BY, or for DISTINCT
/// the argument's (PostgreSQL feeds DISTINCT values sorted; a float sum depends on it).
fn gathered_order(call: &AggCall, cols: &[Vector]) -> Vec<u32> {
    let n = cols.first().map_or(0, |c| c.len());
    let mut order: Vec<u32> = (0..n as u32).collect();
    let first_key = usize::from(call.arg.is_some()) + call.extra.len();
    let keys: Vec<(&Vector, bool, bool)> = if call.order_by.is_empty() {
        cols.first()
            .map(|c| (c, false, false))
            .into_iter()
            .collect()
    } else {
        call.order_by
            .iter()
            .enumerate()
            .map(|(k, o)| (&cols[first_key + k], o.desc, o.nulls_first))
            .collect()
    };
    order.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        for (v, desc, nulls_first) in &keys {
            let c = match (v.is_null(a), v.is_null(b)) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => {
                    if *nulls_first {
                        std::cmp::Ordering::Less
                    } else {
                        std::cmp::Ordering::Greater
                    }
                }
                (false, true) => {
                    if *nulls_first {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Less
                    }
                }
                (false, false) => {
                    let c = compare_rows(&v.data, a, &v.data, b);
                    if *desc { c.reverse() } else { c }
                }
            };
            if c != std::cmp::Ordering::Equal {
                return c;
            }
        }
        std::cmp::Ordering::Equal
    });
    order
}

impl Operator for AggregateOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.consume(ctx)?;
        }
        let Some(out) = &self.output else {
            return Ok(None);
        };
        if self.emitted >= out.rows {
            return Ok(None);
        }
        let end = (self.emitted + BATCH_ROWS_MAX).min(out.rows);
        let batch = if self.emitted == 0 && end == out.rows {
            out.clone()
        } else {
            Batch::new(
                out.columns
                    .iter()
                    .map(|c| c.slice(self.emitted, end))
                    .collect(),
                end - self.emitted,
            )
        };
        self.emitted = end;
        Ok(Some(batch))
    }
}
