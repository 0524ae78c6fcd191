//! Window functions.
//!
//! The operator reads its whole input (charged to the statement's memory) into one
//! table of columns. Calls are grouped by their PARTITION BY and ORDER BY: each group
//! sorts a permutation of the rows once (partition keys, then order keys with their
//! directions) and walks it partition by partition; its calls read their frames off the
//! sorted positions. Rows leave in the order of the last sort, as PostgreSQL's
//! WindowAgg emits them.
//!
//! Per row of a partition `[ps, pe)` in sorted positions:
//! - ranking functions read the row's *peer group* (rows with equal ORDER BY keys);
//! - lag/lead read a row at an offset in the partition, first/last/nth_value and
//!   aggregates read the row's *frame* `[start, end)`: ROWS counts rows, GROUPS counts
//!   peer groups, RANGE compares the single ORDER BY key with the current row's ± an
//!   offset (numbers, or intervals for dates and timestamps).
//! - An aggregate whose frame starts at the partition's start grows with the rows
//!   (one accumulator, fed as the frame's end advances); any other frame is aggregated
//!   afresh per row, in frame order, so float sums add in PostgreSQL's order.

use std::cmp::Ordering;
use std::collections::VecDeque;

use super::aggregate::SingleAgg;
use super::context::ExecContext;
use super::expr::{compare_rows, eval};
use super::keys;
use super::ops::eval_constant;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use super::{BoxedOperator, Operator};
use crate::error::{Error, Result};
use crate::sql::expr::{
    AggCall, Expr, FrameBound, FrameExclude, FrameUnits, WindowCall, WindowFunc, WindowOrder,
};
use crate::types::datetime::{
    USECS_PER_DAY, interval_neg, timestamp_add_interval, timestamptz_add_interval,
};
use crate::types::{DataType, Numeric, Value};

pub struct WindowOp {
    input: Option<BoxedOperator>,
    calls: Vec<WindowCall>,
    input_types: Vec<Option<DataType>>,
    out: VecDeque<Batch>,
}

impl WindowOp {
    pub fn new(
        input: BoxedOperator,
        calls: Vec<WindowCall>,
        input_types: Vec<Option<DataType>>,
    ) -> WindowOp {
        WindowOp {
            input: Some(input),
            calls,
            input_types,
            out: VecDeque::new(),
        }
    }

    fn compute(&mut self, mut input: BoxedOperator, ctx: &ExecContext) -> Result<()> {
        let width = self.input_types.len();
        let mut columns: Vec<Vector> = self
            .input_types
            .iter()
            .map(|t| Vector::with_capacity(t.unwrap_or(DataType::Bool), 0))
            .collect();
        let mut n = 0usize;
        while let Some(b) = input.next(ctx)? {
            let b = b.compact();
            if b.rows == 0 {
                continue;
            }
            ctx.charge_memory(b.columns.iter().map(|c| c.heap_bytes()).sum())?;
            for (i, col) in columns.iter_mut().enumerate().take(width) {
                if self.input_types[i].is_some() {
                    col.extend_from(&b.columns[i]);
                }
            }
            n += b.rows;
        }
        let table = Batch::new(columns, n);
        let all: Vec<u32> = (0..n as u32).collect();
        // Calls that share a window share its sort.
        let mut specs: Vec<(Vec<Expr>, Vec<WindowOrder>, Vec<usize>)> = Vec::new();
        for (i, c) in self.calls.iter().enumerate() {
            match specs
                .iter_mut()
                .find(|(p, o, _)| *p == c.partition_by && *o == c.order_by)
            {
                Some(spec) => spec.2.push(i),
                None => specs.push((c.partition_by.clone(), c.order_by.clone(), vec![i])),
            }
        }
        let mut results: Vec<Option<Vector>> = vec![None; self.calls.len()];
        let mut order: Vec<u32> = all.clone();
        for (partition_by, order_by, call_ids) in &specs {
            ctx.check_interrupt()?;
            let sorted = Sorted::new(&table, &all, partition_by, order_by, ctx)?;
            for &ci in call_ids {
                let values = compute_call(&self.calls[ci], &table, &all, &sorted, ctx)?;
                // Back to input order: position of row r in the sort is inverse[r].
                let mut inverse = vec![0u32; n];
                for (k, &r) in sorted.perm.iter().enumerate() {
                    inverse[r as usize] = k as u32;
                }
                results[ci] = Some(values.gather(&inverse));
            }
            order = sorted.perm;
        }
        for chunk in order.chunks(BATCH_ROWS_MAX) {
            let mut cols: Vec<Vector> = table.columns.iter().map(|c| c.gather(chunk)).collect();
            for r in results.iter().flatten() {
                cols.push(r.gather(chunk));
            }
            self.out.push_back(Batch::new(cols, chunk.len()));
        }
        Ok(())
    }
}

impl Operator for WindowOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Some(input) = self.input.take() {
            self.compute(input, ctx)?;
        }
        Ok(self.out.pop_front())
    }
}

/// The rows of one window, sorted, with partition and peer-group boundaries.
struct Sorted {
    /// Sorted position → input row.
    perm: Vec<u32>,
    /// Per sorted position: the partition's `[start, end)`.
    partition: Vec<(u32, u32)>,
    /// Per sorted position: its peer group's `[start, end)` and index in the partition.
    peers: Vec<(u32, u32)>,
    group_index: Vec<u32>,
    /// The ORDER BY keys in sorted order (RANGE offsets read the first).
    order_keys: Vec<Vector>,
    order_by: Vec<WindowOrder>,
}

impl Sorted {
    fn new(
        table: &Batch,
        all: &[u32],
        partition_by: &[Expr],
        order_by: &[WindowOrder],
        ctx: &ExecContext,
    ) -> Result<Sorted> {
        let n = all.len();
        let part: Vec<Vector> = partition_by
            .iter()
            .map(|e| eval(e, table, all, ctx))
            .collect::<Result<_>>()?;
        let ord: Vec<Vector> = order_by
            .iter()
            .map(|o| eval(&o.expr, table, all, ctx))
            .collect::<Result<_>>()?;
        // Partition keys as bytes: equal keys, equal bytes (any consistent order will do).
        let mut part_keys: Vec<Vec<u8>> = vec![Vec::new(); n];
        if !part.is_empty() {
            for (i, key) in part_keys.iter_mut().enumerate() {
                for v in &part {
                    keys::encode(v, i, key);
                }
            }
        }
        let mut perm: Vec<u32> = (0..n as u32).collect();
        perm.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            part_keys[a]
                .cmp(&part_keys[b])
                .then_with(|| compare_order(&ord, order_by, a, b))
        });
        let order_keys: Vec<Vector> = ord.iter().map(|v| v.gather(&perm)).collect();
        let sorted_part: Vec<&Vec<u8>> = perm.iter().map(|&r| &part_keys[r as usize]).collect();
        let mut partition = vec![(0u32, 0u32); n];
        let mut peers = vec![(0u32, 0u32); n];
        let mut group_index = vec![0u32; n];
        let mut ps = 0;
        while ps < n {
            let mut pe = ps + 1;
            while pe < n && sorted_part[pe] == sorted_part[ps] {
                pe += 1;
            }
            let mut gs = ps;
            let mut g = 0u32;
            while gs < pe {
                let mut ge = gs + 1;
                while ge < pe && same_order(&order_keys, gs, ge) {
                    ge += 1;
                }
                for k in gs..ge {
                    peers[k] = (gs as u32, ge as u32);
                    group_index[k] = g;
                    partition[k] = (ps as u32, pe as u32);
                }
                g += 1;
                gs = ge;
            }
            ps = pe;
        }
        Ok(Sorted {
            perm,
            partition,
            peers,
            group_index,
            order_keys,
            order_by: order_by.to_vec(),
        })
    }
}

fn compare_order(ord: &[Vector], order_by: &[WindowOrder], a: usize, b: usize) -> Ordering {
    for (v, o) in ord.iter().zip(order_by) {
        let c = match (v.is_null(a), v.is_null(b)) {
            (true, true) => Ordering::Equal,
            (true, false) => {
                if o.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (false, true) => {
                if o.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (false, false) => {
                let c = compare_rows(&v.data, a, &v.data, b);
                if o.desc { c.reverse() } else { c }
            }
        };
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

/// Whether sorted positions `a` and `b` are peers (equal ORDER BY keys).
fn same_order(keys: &[Vector], a: usize, b: usize) -> bool {
    keys.iter().all(|v| match (v.is_null(a), v.is_null(b)) {
        (true, true) => true,
        (false, false) => compare_rows(&v.data, a, &v.data, b) == Ordering::Equal,
        _ => false,
    })
}

/// The call's values, in the window's sorted order.
fn compute_call(
    call: &WindowCall,
    table: &Batch,
    all: &[u32],
    w: &Sorted,
    ctx: &ExecContext,
) -> Result<Vector> {
    let n = w.perm.len();
    // An aggregate's FILTER: its argument is evaluated on the rows it keeps only (a row
    // it drops cannot raise an error), as PostgreSQL evaluates it.
    let kept: Option<Vec<bool>> = match (&call.func, &call.filter) {
        (WindowFunc::Agg(_), Some(f)) => {
            let v = eval(f, table, all, ctx)?;
            let Data::Bool(b) = &v.data else {
                return Err(Error::internal("FILTER on non-boolean"));
            };
            Some((0..all.len()).map(|i| b[i] && !v.is_null(i)).collect())
        }
        _ => None,
    };
    // Arguments evaluated over every row (FILTER: every kept row), in sorted order.
    let args: Vec<Vector> = call
        .args
        .iter()
        .map(|a| {
            let Some(keep) = &kept else {
                return Ok(eval(a, table, all, ctx)?.gather(&w.perm));
            };
            let rows: Vec<u32> = all
                .iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(|(&r, _)| r)
                .collect();
            if rows.is_empty() {
                return Ok(Vector::nulls(a.ty().ty, n));
            }
            let part = eval(a, table, &rows, ctx)?;
            // Each row's place in `part`; a dropped row reads the first (never fed).
            let mut at = Vec::with_capacity(all.len());
            let mut next = 0u32;
            for &k in keep {
                at.push(if k { next } else { 0 });
                next += k as u32;
            }
            Ok(part.gather(&at).gather(&w.perm))
        })
        .collect::<Result<_>>()?;
    let mut out = Vector::with_capacity(call.ty.ty, n);
    match call.func {
        WindowFunc::RowNumber => {
            for k in 0..n {
                out.push_value(&Value::Int8((k as u32 - w.partition[k].0 + 1) as i64));
            }
        }
        WindowFunc::Rank => {
            for k in 0..n {
                out.push_value(&Value::Int8((w.peers[k].0 - w.partition[k].0 + 1) as i64));
            }
        }
        WindowFunc::DenseRank => {
            for k in 0..n {
                out.push_value(&Value::Int8(w.group_index[k] as i64 + 1));
            }
        }
        WindowFunc::PercentRank => {
            for k in 0..n {
                let (ps, pe) = w.partition[k];
                let rows = (pe - ps) as f64;
                let rank = (w.peers[k].0 - ps) as f64;
                let v = if rows <= 1.0 {
                    0.0
                } else {
                    rank / (rows - 1.0)
                };
                out.push_value(&Value::Float8(v));
            }
        }
        WindowFunc::CumeDist => {
            for k in 0..n {
                let (ps, pe) = w.partition[k];
                let v = (w.peers[k].1 - ps) as f64 / (pe - ps) as f64;
                out.push_value(&Value::Float8(v));
            }
        }
        WindowFunc::Ntile => {
            for k in 0..n {
                let (ps, pe) = w.partition[k];
                // The bucket count is read once per partition, at its first row.
                let buckets = match args[0].value(ps as usize, DataType::Int4) {
                    Value::Null => {
                        out.push_null();
                        continue;
                    }
                    v => v.as_i64().unwrap_or(0),
                };
                if buckets <= 0 {
                    return Err(Error::new(
                        "22014",
                        "argument of ntile must be greater than zero",
                    ));
                }
                let rows = (pe - ps) as i64;
                let i = (k as u32 - ps) as i64;
                let per = rows / buckets;
                let extra = rows % buckets;
                let bucket = if i < extra * (per + 1) {
                    i / (per + 1) + 1
                } else {
                    (i - extra * (per + 1)) / per.max(1) + extra + 1
                };
                out.push_value(&Value::Int4(bucket as i32));
            }
        }
        WindowFunc::Lag | WindowFunc::Lead => {
            let back = call.func == WindowFunc::Lag;
            for k in 0..n {
                let (ps, pe) = w.partition[k];
                let offset = match args.get(1) {
                    None => 1,
                    Some(v) => match v.value(k, DataType::Int4) {
                        Value::Null => {
                            out.push_null();
                            continue;
                        }
                        x => x.as_i64().unwrap_or(0),
                    },
                };
                let target = if back {
                    k as i64 - offset
                } else {
                    k as i64 + offset
                };
                if target >= ps as i64 && target < pe as i64 {
                    out.push_from(&args[0], target as usize);
                } else {
                    match args.get(2) {
                        Some(d) => out.push_from(d, k),
                        None => out.push_null(),
                    }
                }
            }
        }
        WindowFunc::FirstValue | WindowFunc::LastValue | WindowFunc::NthValue => {
            let frames = Frames::new(call, w, ctx)?;
            for k in 0..n {
                let rows = frames.rows(k, w);
                let pick = match call.func {
                    WindowFunc::FirstValue => rows.first().copied(),
                    WindowFunc::LastValue => rows.last().copied(),
                    _ => {
                        let nth = match args[1].value(k, DataType::Int4) {
                            Value::Null => {
                                out.push_null();
                                continue;
                            }
                            v => v.as_i64().unwrap_or(0),
                        };
                        if nth <= 0 {
                            return Err(Error::new(
                                "22016",
                                "argument of nth_value must be greater than zero",
                            ));
                        }
                        rows.get(nth as usize - 1).copied()
                    }
                };
                match pick {
                    Some(r) => out.push_from(&args[0], r as usize),
                    None => out.push_null(),
                }
            }
        }
        WindowFunc::Agg(func) => {
            let frames = Frames::new(call, w, ctx)?;
            let filter: Option<Vec<bool>> = match &call.filter {
                Some(f) => {
                    let v = eval(f, table, all, ctx)?.gather(&w.perm);
                    let Data::Bool(b) = &v.data else {
                        return Err(Error::internal("FILTER on non-boolean"));
                    };
                    Some((0..n).map(|i| b[i] && !v.is_null(i)).collect())
                }
                None => None,
            };
            let agg_call = AggCall {
                extra: call.args.iter().skip(1).cloned().collect(),
                ..AggCall::simple(func, call.args.first().cloned(), call.ty)
            };
            let arg = args.first();
            let feed = |agg: &mut SingleAgg, rows: &[u32]| -> Result<()> {
                let rows: Vec<u32> = match &filter {
                    Some(keep) => rows.iter().copied().filter(|&r| keep[r as usize]).collect(),
                    None => rows.to_vec(),
                };
                if rows.is_empty() {
                    return Ok(());
                }
                let part = arg.map(|a| a.gather(&rows));
                let extra: Vec<Vector> = args.iter().skip(1).map(|e| e.gather(&rows)).collect();
                agg.update(part.as_ref(), &extra, rows.len())
            };
            if frames.grows() {
                // One accumulator per partition, fed as the frame's end moves on.
                let mut k = 0;
                while k < n {
                    let (ps, pe) = w.partition[k];
                    let mut agg = SingleAgg::new(&agg_call)?;
                    let mut fed = ps;
                    let mut last: Option<(u32, Value)> = None;
                    for j in ps..pe {
                        let end = frames.end(j as usize, w);
                        if end > fed {
                            let rows: Vec<u32> = (fed..end).collect();
                            feed(&mut agg, &rows)?;
                            fed = end;
                        }
                        let value = match &last {
                            Some((e, v)) if *e == fed => v.clone(),
                            _ => {
                                let v = agg.value()?;
                                last = Some((fed, v.clone()));
                                v
                            }
                        };
                        out.push_value(&value);
                    }
                    k = pe as usize;
                }
            } else {
                for k in 0..n {
                    let mut agg = SingleAgg::new(&agg_call)?;
                    feed(&mut agg, &frames.rows(k, w))?;
                    out.push_value(&agg.value()?);
                }
            }
        }
    }
    Ok(out)
}

/// A call's frame, resolved: constant offsets, and for RANGE the key arithmetic.
struct Frames<'c> {
    call: &'c WindowCall,
    start_offset: i64,
    end_offset: i64,
    /// RANGE with offsets: per sorted row, the key ∓ the start and ± the end offset.
    range_bounds: Option<RangeBounds>,
}

/// Per sorted row: its key, its frame's lower and its upper bound (None: NULL).
type RangeBounds = (Vec<Option<Key>>, Vec<Option<Key>>, Vec<Option<Key>>);

/// An ORDER BY key value for RANGE comparisons.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
enum Key {
    Int(i64),
    Float(f64),
    Num(Numeric),
}

impl<'c> Frames<'c> {
    fn new(call: &'c WindowCall, w: &Sorted, ctx: &ExecContext) -> Result<Frames<'c>> {
        let offset = |b: &FrameBound, what: &str| -> Result<Option<Value>> {
            match b {
                FrameBound::Preceding(e) | FrameBound::Following(e) => {
                    let v = eval_constant(e, ctx)?;
                    if v.is_null() {
                        return Err(Error::new(
                            "22004",
                            format!("frame {what} offset must not be null"),
                        ));
                    }
                    let negative = match &v {
                        Value::Interval(iv) => iv.months < 0 || iv.days < 0 || iv.micros < 0,
                        Value::Numeric(n) => n.cmp_value(&Numeric::ZERO) == Ordering::Less,
                        Value::Float4(f) => *f < 0.0,
                        Value::Float8(f) => *f < 0.0,
                        other => other.as_i64().is_some_and(|x| x < 0),
                    };
                    if negative {
                        return Err(Error::new(
                            "22013",
                            format!("frame {what} offset must not be negative"),
                        ));
                    }
                    Ok(Some(v))
                }
                _ => Ok(None),
            }
        };
        let start = offset(&call.frame.start, "starting")?;
        let end = offset(&call.frame.end, "ending")?;
        let as_count = |v: &Option<Value>| v.as_ref().and_then(|x| x.as_i64()).unwrap_or(0);
        let mut frames = Frames {
            call,
            start_offset: as_count(&start),
            end_offset: as_count(&end),
            range_bounds: None,
        };
        if call.frame.units == FrameUnits::Range && (start.is_some() || end.is_some()) {
            let key = w
                .order_keys
                .first()
                .ok_or_else(|| Error::internal("RANGE offset without ORDER BY"))?;
            let key_ty = w
                .order_by
                .first()
                .map_or(DataType::Int8, |o| o.expr.ty().ty);
            let desc = w.order_by.first().is_some_and(|o| o.desc);
            let n = key.len();
            let mut keys_at = Vec::with_capacity(n);
            let mut lows = Vec::with_capacity(n);
            let mut highs = Vec::with_capacity(n);
            for k in 0..n {
                keys_at.push(range_key(key, k, key_ty, None, false, ctx)?);
                // Preceding moves toward the start of the sort, following away from it.
                let lo = match &call.frame.start {
                    FrameBound::Preceding(_) => {
                        range_key(key, k, key_ty, start.as_ref(), !desc, ctx)?
                    }
                    FrameBound::Following(_) => {
                        range_key(key, k, key_ty, start.as_ref(), desc, ctx)?
                    }
                    _ => None,
                };
                let hi = match &call.frame.end {
                    FrameBound::Preceding(_) => {
                        range_key(key, k, key_ty, end.as_ref(), !desc, ctx)?
                    }
                    FrameBound::Following(_) => range_key(key, k, key_ty, end.as_ref(), desc, ctx)?,
                    _ => None,
                };
                lows.push(lo);
                highs.push(hi);
            }
            frames.range_bounds = Some((keys_at, lows, highs));
        }
        Ok(frames)
    }

    /// Whether every frame starts at its partition's start (and excludes nothing), so
    /// one accumulator can grow along the partition.
    fn grows(&self) -> bool {
        self.call.frame.start == FrameBound::UnboundedPreceding
            && self.call.frame.exclude == FrameExclude::NoOthers
    }

    /// The frame's first sorted position of row `k` (before exclusions).
    fn start(&self, k: usize, w: &Sorted) -> u32 {
        let (ps, pe) = w.partition[k];
        let f = &self.call.frame;
        match (&f.start, f.units) {
            (FrameBound::UnboundedPreceding, _) => ps,
            (FrameBound::UnboundedFollowing, _) => pe,
            (FrameBound::CurrentRow, FrameUnits::Rows) => k as u32,
            (FrameBound::CurrentRow, _) => w.peers[k].0,
            (FrameBound::Preceding(_), FrameUnits::Rows) => {
                (k as i64 - self.start_offset).max(ps as i64) as u32
            }
            (FrameBound::Following(_), FrameUnits::Rows) => {
                (k as i64 + self.start_offset).min(pe as i64) as u32
            }
            (FrameBound::Preceding(_) | FrameBound::Following(_), FrameUnits::Groups) => {
                let back = matches!(f.start, FrameBound::Preceding(_));
                group_start(
                    w,
                    k,
                    if back {
                        -self.start_offset
                    } else {
                        self.start_offset
                    },
                )
            }
            (FrameBound::Preceding(_) | FrameBound::Following(_), FrameUnits::Range) => {
                self.range_start(k, w)
            }
        }
    }

    /// One past the frame's last sorted position of row `k` (before exclusions).
    fn end(&self, k: usize, w: &Sorted) -> u32 {
        let (ps, pe) = w.partition[k];
        let f = &self.call.frame;
        let e = match (&f.end, f.units) {
            (FrameBound::UnboundedFollowing, _) => pe,
            (FrameBound::UnboundedPreceding, _) => ps,
            (FrameBound::CurrentRow, FrameUnits::Rows) => k as u32 + 1,
            (FrameBound::CurrentRow, _) => w.peers[k].1,
            (FrameBound::Preceding(_), FrameUnits::Rows) => {
                (k as i64 - self.end_offset + 1).clamp(ps as i64, pe as i64) as u32
            }
            (FrameBound::Following(_), FrameUnits::Rows) => {
                (k as i64 + self.end_offset + 1).min(pe as i64) as u32
            }
            (FrameBound::Preceding(_) | FrameBound::Following(_), FrameUnits::Groups) => {
                let back = matches!(f.end, FrameBound::Preceding(_));
                group_end(
                    w,
                    k,
                    if back {
                        -self.end_offset
                    } else {
                        self.end_offset
                    },
                )
            }
            (FrameBound::Preceding(_) | FrameBound::Following(_), FrameUnits::Range) => {
                self.range_end(k, w)
            }
        };
        e.max(ps)
    }

    /// The sorted positions of row `k`'s frame, after exclusions.
    fn rows(&self, k: usize, w: &Sorted) -> Vec<u32> {
        let (s, e) = (self.start(k, w), self.end(k, w));
        let (gs, ge) = w.peers[k];
        (s..e.max(s))
            .filter(|&r| match self.call.frame.exclude {
                FrameExclude::NoOthers => true,
                FrameExclude::CurrentRow => r != k as u32,
                FrameExclude::Group => r < gs || r >= ge,
                FrameExclude::Ties => r == k as u32 || r < gs || r >= ge,
            })
            .collect()
    }

    fn range_start(&self, k: usize, w: &Sorted) -> u32 {
        let (ps, pe) = w.partition[k];
        let Some((keys, lows, _)) = &self.range_bounds else {
            return ps;
        };
        let desc = w.order_by.first().is_some_and(|o| o.desc);
        match (&keys[k], &lows[k]) {
            // A NULL key's frame is its peers (the NULLs).
            (None, _) | (_, None) => w.peers[k].0,
            (Some(_), Some(bound)) => {
                let mut r = ps;
                while r < pe {
                    match &keys[r as usize] {
                        Some(x) if (!desc && x >= bound) || (desc && x <= bound) => break,
                        _ => r += 1,
                    }
                }
                r
            }
        }
    }

    fn range_end(&self, k: usize, w: &Sorted) -> u32 {
        let (ps, pe) = w.partition[k];
        let Some((keys, _, highs)) = &self.range_bounds else {
            return pe;
        };
        let desc = w.order_by.first().is_some_and(|o| o.desc);
        match (&keys[k], &highs[k]) {
            (None, _) | (_, None) => w.peers[k].1,
            (Some(_), Some(bound)) => {
                // One past the last non-NULL key still within the bound.
                let mut last = None;
                for r in ps..pe {
                    if let Some(x) = &keys[r as usize]
                        && ((!desc && x <= bound) || (desc && x >= bound))
                    {
                        last = Some(r);
                    }
                }
                last.map_or(ps, |r| r + 1).max(self.range_start(k, w))
            }
        }
    }
}

/// The first sorted position of the peer group `delta` groups from row `k`'s.
fn group_start(w: &Sorted, k: usize, delta: i64) -> u32 {
    let (ps, pe) = w.partition[k];
    let target = w.group_index[k] as i64 + delta;
    if target < 0 {
        return ps;
    }
    (ps..pe)
        .find(|&r| w.group_index[r as usize] as i64 >= target)
        .unwrap_or(pe)
}

/// One past the last sorted position of the peer group `delta` groups from row `k`'s.
fn group_end(w: &Sorted, k: usize, delta: i64) -> u32 {
    let (ps, pe) = w.partition[k];
    let target = w.group_index[k] as i64 + delta;
    if target < 0 {
        return ps;
    }
    (ps..pe)
        .find(|&r| w.group_index[r as usize] as i64 > target)
        .unwrap_or(pe)
}

/// Row `k`'s key (shifted by `offset` toward larger values when `up`, smaller
/// otherwise), as a comparable key; None for NULL.
fn range_key(
    key: &Vector,
    k: usize,
    ty: DataType,
    offset: Option<&Value>,
    down: bool,
    ctx: &ExecContext,
) -> Result<Option<Key>> {
    if key.is_null(k) {
        return Ok(None);
    }
    let sign = if down { -1 } else { 1 };
    Ok(Some(match (&key.data, offset) {
        (Data::I16(_) | Data::I32(_) | Data::I64(_), _)
            if !matches!(
                ty,
                DataType::Date
                    | DataType::Timestamp
                    | DataType::Timestamptz
                    | DataType::Time
                    | DataType::TimeTz
            ) =>
        {
            let x = match &key.data {
                Data::I16(v) => v[k] as i64,
                Data::I32(v) => v[k] as i64,
                Data::I64(v) => v[k],
                _ => 0,
            };
            let off = offset.and_then(|o| o.as_i64()).unwrap_or(0);
            Key::Int(x.saturating_add(sign * off))
        }
        (Data::F32(_) | Data::F64(_), _) => {
            let x = match &key.data {
                Data::F32(v) => v[k] as f64,
                Data::F64(v) => v[k],
                _ => 0.0,
            };
            let off = match offset {
                Some(Value::Float8(f)) => *f,
                Some(Value::Float4(f)) => *f as f64,
                Some(o) => o.as_i64().unwrap_or(0) as f64,
                None => 0.0,
            };
            Key::Float(x + sign as f64 * off)
        }
        (Data::Num(v), _) => {
            let x = v[k].clone();
            match offset {
                Some(Value::Numeric(off)) => {
                    let off = if down { off.neg() } else { off.clone() };
                    Key::Num(x.add(&off)?)
                }
                _ => Key::Num(x),
            }
        }
        (Data::I32(v), _) if ty == DataType::Date => {
            let micros = v[k] as i64 * USECS_PER_DAY;
            Key::Int(shift_time(micros, offset, down, false, ctx)?)
        }
        (Data::I64(v), _) if matches!(ty, DataType::Timestamp | DataType::Timestamptz) => {
            let tz = ty == DataType::Timestamptz;
            Key::Int(shift_time(v[k], offset, down, tz, ctx)?)
        }
        _ => {
            return Err(Error::feature_not_supported(format!(
                "RANGE with offset PRECEDING/FOLLOWING for column type {}",
                ty.name()
            )));
        }
    }))
}

fn shift_time(
    micros: i64,
    offset: Option<&Value>,
    down: bool,
    tz: bool,
    ctx: &ExecContext,
) -> Result<i64> {
    let Some(Value::Interval(iv)) = offset else {
        return Ok(micros);
    };
    let iv = if down { interval_neg(iv) } else { *iv };
    if tz {
        timestamptz_add_interval(micros, &iv, &ctx.fmt.zone)
    } else {
        timestamp_add_interval(micros, &iv)
    }
}
