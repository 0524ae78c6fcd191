//! Small streaming operators: filter, project, limit, distinct, VALUES, generate_series.

use std::sync::Arc;

use super::context::ExecContext;
use super::expr::{eval, eval_filter, replay_exprs, replay_filter};
use super::keyfilter::KeyFilter;
use super::keys;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use super::{BoxedOperator, Operator};
use crate::error::{Error, Result};
use crate::plan::logical::{SrfCall, TableFunc};
use crate::sql::expr::Expr;
use crate::types::{DataType, SqlType, Value};

/// Evaluates a constant expression (literals and parameters only).
pub fn eval_constant(e: &Expr, ctx: &ExecContext) -> Result<Value> {
    let batch = Batch::new(vec![], 1);
    let v = eval(e, &batch, &[0], ctx)?;
    Ok(v.value(0, e.ty().ty))
}

pub struct FilterOp {
    pub input: BoxedOperator,
    pub predicate: Expr,
    /// An error held back by a replay (see `expr::Replayed`), raised on the next call.
    pub pending: Option<Error>,
}

impl Operator for FilterOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        while let Some(mut b) = self.input.next(ctx)? {
            let sel = b.selection();
            let kept = match eval_filter(&self.predicate, &b, &sel, ctx) {
                Ok(kept) => kept,
                Err(e) => {
                    let replayed = replay_filter(&self.predicate, &b, &sel, ctx, e)?;
                    if replayed.ok.is_empty() {
                        return Err(replayed.error);
                    }
                    self.pending = Some(replayed.error);
                    replayed.ok
                }
            };
            if kept.is_empty() {
                continue;
            }
            b.sel = if kept.len() == b.rows {
                None
            } else {
                Some(kept)
            };
            return Ok(Some(b));
        }
        Ok(None)
    }

    fn push_key_filter(&mut self, col: usize, filter: &Arc<KeyFilter>) -> bool {
        self.input.push_key_filter(col, filter)
    }
}

pub struct ProjectOp {
    pub input: BoxedOperator,
    pub exprs: Vec<Expr>,
    /// An error held back by a replay (see `expr::Replayed`), raised on the next call.
    pub pending: Option<Error>,
}

impl ProjectOp {
    fn project(&self, b: &Batch, sel: &[u32], ctx: &ExecContext) -> Result<Batch> {
        let mut columns = Vec::with_capacity(self.exprs.len());
        for e in &self.exprs {
            columns.push(eval(e, b, sel, ctx)?);
        }
        Ok(Batch::new(columns, sel.len()))
    }
}

impl Operator for ProjectOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let Some(b) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let sel = b.selection();
        match self.project(&b, &sel, ctx) {
            Ok(out) => Ok(Some(out)),
            Err(e) => {
                let replayed = replay_exprs(&self.exprs, &b, &sel, ctx, e)?;
                if replayed.ok == 0 {
                    return Err(replayed.error);
                }
                self.pending = Some(replayed.error);
                Ok(Some(self.project(&b, &sel[..replayed.ok], ctx)?))
            }
        }
    }

    fn push_key_filter(&mut self, col: usize, filter: &Arc<KeyFilter>) -> bool {
        match self.exprs.get(col) {
            Some(Expr::Column { index, .. }) => self.input.push_key_filter(*index, filter),
            _ => false,
        }
    }
}

pub struct LimitOp {
    input: BoxedOperator,
    limit_expr: Option<Expr>,
    offset_expr: Option<Expr>,
    state: Option<(Option<u64>, u64)>,
    /// WITH TIES: the key columns, and the last counted row's keys (one-row vectors)
    /// once the count is reached.
    ties: Vec<usize>,
    last: Option<Vec<Vector>>,
    /// WITH TIES: a row past the ties was seen (or the input ended).
    ended: bool,
}

impl LimitOp {
    pub fn new(
        input: BoxedOperator,
        ties: Vec<usize>,
        limit: Option<Expr>,
        offset: Option<Expr>,
    ) -> LimitOp {
        LimitOp {
            input,
            limit_expr: limit,
            offset_expr: offset,
            state: None,
            ties,
            last: None,
            ended: false,
        }
    }

    /// Whether row `i` of `b` has the same keys as the last counted row (NULLs equal).
    fn is_tie(&self, b: &Batch, i: usize) -> bool {
        let Some(last) = &self.last else { return false };
        self.ties.iter().zip(last).all(|(&c, l)| {
            let v = &b.columns[c];
            match (v.is_null(i), l.is_null(0)) {
                (true, true) => true,
                (false, false) => super::expr::compare_rows(&v.data, i, &l.data, 0).is_eq(),
                _ => false,
            }
        })
    }
}

/// Evaluates a LIMIT/OFFSET count, with PostgreSQL's errors for negative values.
pub fn eval_count(e: &Option<Expr>, ctx: &ExecContext, what: &str) -> Result<Option<u64>> {
    let Some(e) = e else { return Ok(None) };
    match eval_constant(e, ctx)? {
        Value::Null => Ok(None),
        v => {
            let n = v
                .as_i64()
                .ok_or_else(|| Error::internal("LIMIT is not an integer"))?;
            if n < 0 {
                let code = if what == "LIMIT" { "2201W" } else { "2201X" };
                return Err(Error::new(code, format!("{what} must not be negative")));
            }
            Ok(Some(n as u64))
        }
    }
}

impl Operator for LimitOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.state.is_none() {
            let limit = eval_count(&self.limit_expr, ctx, "LIMIT")?;
            if !self.ties.is_empty() && limit.is_none() {
                return Err(Error::new(
                    "2201W",
                    "row count cannot be null in FETCH FIRST ... WITH TIES clause",
                ));
            }
            let offset = eval_count(&self.offset_expr, ctx, "OFFSET")?.unwrap_or(0);
            self.state = Some((limit, offset));
        }
        if !self.ties.is_empty() {
            return self.next_with_ties(ctx);
        }
        loop {
            let Some((limit, offset)) = self.state.as_mut() else {
                return Ok(None);
            };
            if *limit == Some(0) {
                return Ok(None);
            }
            let Some(b) = self.input.next(ctx)? else {
                return Ok(None);
            };
            let mut sel = b.selection();
            let skip = (*offset).min(sel.len() as u64) as usize;
            *offset -= skip as u64;
            sel.drain(..skip);
            if let Some(l) = limit {
                let take = (*l).min(sel.len() as u64) as usize;
                sel.truncate(take);
                *l -= take as u64;
            }
            if sel.is_empty() {
                continue;
            }
            return Ok(Some(Batch {
                sel: Some(sel),
                ..b
            }));
        }
    }
}

impl LimitOp {
    /// LIMIT with ties: counted rows, then the rows that tie with the last of them.
    fn next_with_ties(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        loop {
            if self.ended {
                return Ok(None);
            }
            let Some((limit, offset)) = self.state else {
                return Ok(None);
            };
            let remaining = limit.unwrap_or(0);
            if remaining == 0 && self.last.is_none() {
                return Ok(None);
            }
            let Some(b) = self.input.next(ctx)? else {
                self.ended = true;
                return Ok(None);
            };
            let sel = b.selection();
            let skip = offset.min(sel.len() as u64) as usize;
            let mut keep = Vec::with_capacity(sel.len() - skip);
            let mut left = remaining;
            let mut ended = false;
            for &i in &sel[skip..] {
                if left > 0 {
                    keep.push(i);
                    left -= 1;
                    if left == 0 {
                        self.last = Some(
                            self.ties
                                .iter()
                                .map(|&c| b.columns[c].slice(i as usize, i as usize + 1))
                                .collect(),
                        );
                    }
                } else if self.is_tie(&b, i as usize) {
                    keep.push(i);
                } else {
                    ended = true;
                    break;
                }
            }
            if ended {
                self.ended = true;
                self.state = None;
            } else {
                self.state = Some((Some(left), offset - skip as u64));
            }
            if ended && keep.is_empty() {
                return Ok(None);
            }
            if keep.is_empty() {
                continue;
            }
            return Ok(Some(Batch {
                sel: Some(keep),
                ..b
            }));
        }
    }
}

/// DISTINCT (and UNION): passes each row on the first time its key is seen, so rows
/// stream out as they arrive. Keys live end to end in one arena; the hash table holds
/// their numbers, so a new row costs no allocation of its own.
pub struct DistinctOp {
    input: BoxedOperator,
    /// Each distinct key's hash and number (the hash is kept so that growing the table
    /// never hashes a key again).
    seen: hashbrown::HashTable<(u64, u32)>,
    /// Key `i` is `arena[ends[i - 1]..ends[i]]` (from 0 for the first).
    arena: Vec<u8>,
    ends: Vec<usize>,
    hasher: foldhash::fast::FixedState,
}

/// Distinct keys a DISTINCT sizes its table for up front, at most (past it, it grows).
const DISTINCT_PRESIZE_MAX: usize = 65_536;

impl DistinctOp {
    /// `estimate`: the planner's guess of the distinct rows, to size the table once —
    /// doubled, as a table sized twice too large costs less than one grown (and rehashed)
    /// once, and UNION's guess is half its input.
    pub fn new(input: BoxedOperator, estimate: f64) -> DistinctOp {
        let rows = ((estimate.max(0.0) * 2.0) as usize).min(DISTINCT_PRESIZE_MAX);
        DistinctOp {
            input,
            seen: hashbrown::HashTable::with_capacity(rows),
            arena: Vec::new(),
            ends: Vec::with_capacity(rows),
            hasher: foldhash::fast::FixedState::default(),
        }
    }
}

fn arena_key<'a>(arena: &'a [u8], ends: &[usize], i: u32) -> &'a [u8] {
    let i = i as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &arena[start..ends[i]]
}

impl Operator for DistinctOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        use std::hash::BuildHasher;
        let mut key = Vec::new();
        while let Some(b) = self.input.next(ctx)? {
            let sel = b.selection();
            let mut kept = Vec::with_capacity(sel.len());
            let bytes_before = self.arena.len();
            self.seen.reserve(sel.len(), |&(h, _)| h);
            for r in sel {
                key.clear();
                for c in &b.columns {
                    keys::encode(c, r as usize, &mut key);
                }
                let hash = self.hasher.hash_one(key.as_slice());
                let (arena, ends) = (&self.arena, &self.ends);
                if self
                    .seen
                    .find(hash, |&(h, i)| {
                        h == hash && arena_key(arena, ends, i) == key.as_slice()
                    })
                    .is_some()
                {
                    continue;
                }
                let number = u32::try_from(self.ends.len())
                    .map_err(|_| Error::program_limit("too many distinct rows"))?;
                self.arena.extend_from_slice(&key);
                self.ends.push(self.arena.len());
                self.seen.insert_unique(hash, (hash, number), |&(h, _)| h);
                kept.push(r);
            }
            ctx.charge_memory(self.arena.len() - bytes_before + kept.len() * 16)?;
            if !kept.is_empty() {
                return Ok(Some(Batch {
                    sel: Some(kept),
                    ..b
                }));
            }
        }
        Ok(None)
    }
}

pub struct ValuesOp {
    rows: Vec<Vec<Expr>>,
    types: Vec<SqlType>,
    next_row: usize,
}

impl ValuesOp {
    pub fn new(rows: Vec<Vec<Expr>>, types: Vec<SqlType>) -> ValuesOp {
        ValuesOp {
            rows,
            types,
            next_row: 0,
        }
    }
}

impl Operator for ValuesOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.next_row >= self.rows.len() {
            return Ok(None);
        }
        ctx.check_interrupt()?;
        let end = (self.next_row + BATCH_ROWS_MAX).min(self.rows.len());
        let count = end - self.next_row;
        let mut columns: Vec<Vector> = self
            .types
            .iter()
            .map(|t| Vector::with_capacity(t.ty, count))
            .collect();
        let one = Batch::new(vec![], 1);
        for row in &self.rows[self.next_row..end] {
            for (c, e) in row.iter().enumerate() {
                match e {
                    Expr::Literal { value, .. } => columns[c].push_value(value),
                    other => {
                        let v = eval(other, &one, &[0], ctx)?;
                        columns[c].push_from(&v, 0);
                    }
                }
            }
        }
        self.next_row = end;
        Ok(Some(Batch::new(columns, count)))
    }
}

pub struct SeriesOp {
    args: Vec<Expr>,
    ty: SqlType,
    state: Option<(i64, i64, i64)>,
    done: bool,
    /// WITH ORDINALITY: the next row's number (None without it).
    ordinal: Option<i64>,
}

impl SeriesOp {
    pub fn new(args: Vec<Expr>, ty: SqlType, ordinality: bool) -> SeriesOp {
        SeriesOp {
            args,
            ty,
            state: None,
            done: false,
            ordinal: ordinality.then_some(1),
        }
    }
}

/// The ordinality column for `n` rows numbered from `*next`.
fn ordinals(next: &mut i64, n: usize) -> Vector {
    let v: Vec<i64> = (*next..*next + n as i64).collect();
    *next += n as i64;
    Vector::from_data(Data::I64(v))
}

impl Operator for SeriesOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        ctx.check_interrupt()?;
        if self.state.is_none() {
            let mut vals = Vec::new();
            for a in &self.args {
                match eval_constant(a, ctx)?.as_i64() {
                    Some(v) => vals.push(v),
                    None => {
                        self.done = true;
                        return Ok(None);
                    }
                }
            }
            let step = vals.get(2).copied().unwrap_or(1);
            if step == 0 {
                return Err(Error::invalid_parameter("step size cannot equal zero"));
            }
            self.state = Some((vals[0], vals[1], step));
        }
        let Some((cur, stop, step)) = self.state.as_mut() else {
            return Ok(None);
        };
        let mut out: Vec<i64> = Vec::with_capacity(BATCH_ROWS_MAX);
        while out.len() < BATCH_ROWS_MAX
            && ((*step > 0 && *cur <= *stop) || (*step < 0 && *cur >= *stop))
        {
            out.push(*cur);
            match cur.checked_add(*step) {
                Some(n) => *cur = n,
                None => {
                    self.done = true;
                    break;
                }
            }
        }
        if out.is_empty() {
            self.done = true;
            return Ok(None);
        }
        let n = out.len();
        let data = if self.ty.ty == DataType::Int4 {
            Data::I32(out.into_iter().map(|v| v as i32).collect())
        } else {
            Data::I64(out)
        };
        let mut columns = vec![Vector::from_data(data)];
        if let Some(next) = self.ordinal.as_mut() {
            columns.push(ordinals(next, n));
        }
        Ok(Some(Batch::new(columns, n)))
    }
}

/// `unnest(array, …)` in FROM: the arrays' elements side by side (shorter arrays padded
/// with NULL), a batch at a time.
pub struct UnnestOp {
    /// Unnest, or a json set function (`exec::json_functions::set_rows`).
    func: TableFunc,
    args: Vec<Expr>,
    types: Vec<SqlType>,
    ordinality: bool,
    /// Each array's elements once evaluated, and how many rows were emitted.
    elements: Option<Vec<Vec<Value>>>,
    next: usize,
}

impl UnnestOp {
    pub fn new(
        func: TableFunc,
        args: Vec<Expr>,
        types: Vec<SqlType>,
        ordinality: bool,
    ) -> UnnestOp {
        UnnestOp {
            func,
            args,
            types,
            ordinality,
            elements: None,
            next: 0,
        }
    }
}

impl Operator for UnnestOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        ctx.check_interrupt()?;
        if self.elements.is_none()
            && matches!(self.func, TableFunc::Set(_) | TableFunc::JsonRecord { .. })
        {
            let args = self
                .args
                .iter()
                .map(|a| eval_constant(a, ctx))
                .collect::<Result<Vec<Value>>>()?;
            let doc = args.first().unwrap_or(&Value::Null);
            let columns = match self.func {
                TableFunc::JsonRecord { set, .. } => {
                    let width = self.types.len() - usize::from(self.ordinality);
                    let keys = match args.get(1) {
                        Some(Value::Array(a)) => crate::types::array::View::new(&a.bytes, a.elem)
                            .values()
                            .into_iter()
                            .map(|v| match v {
                                Value::Text(t) => t,
                                _ => String::new(),
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    let name = self.func.name();
                    super::json_functions::record_rows(
                        name,
                        set,
                        doc,
                        &keys,
                        &self.types[..width],
                        ctx,
                    )?
                }
                TableFunc::Set(kind) => super::json_functions::set_rows(kind, &args)?,
                _ => Vec::new(),
            };
            let held: usize = columns
                .iter()
                .map(|c| c.len() * std::mem::size_of::<Value>())
                .sum();
            ctx.charge_memory(held)?;
            self.elements = Some(columns);
        }
        if self.elements.is_none() {
            let mut arrays = Vec::with_capacity(self.args.len());
            for arg in &self.args {
                let values = match eval_constant(arg, ctx)? {
                    Value::Array(a) => crate::types::array::View::new(&a.bytes, a.elem).values(),
                    _ => Vec::new(),
                };
                // The elements are held until emitted: they count against the memory limit.
                ctx.charge_memory(values.len() * std::mem::size_of::<Value>())?;
                arrays.push(values);
            }
            self.elements = Some(arrays);
        }
        let Some(arrays) = &self.elements else {
            return Ok(None);
        };
        let total = arrays.iter().map(Vec::len).max().unwrap_or(0);
        if self.next >= total {
            return Ok(None);
        }
        let end = total.min(self.next + BATCH_ROWS_MAX);
        let n = end - self.next;
        let mut columns = Vec::with_capacity(self.types.len());
        for (values, ty) in arrays.iter().zip(&self.types) {
            let mut v = Vector::with_capacity(ty.ty, n);
            for k in self.next..end {
                v.push_value(values.get(k).unwrap_or(&Value::Null));
            }
            columns.push(v);
        }
        if self.ordinality {
            let mut next = self.next as i64 + 1;
            columns.push(ordinals(&mut next, n));
        }
        self.next = end;
        Ok(Some(Batch::new(columns, n)))
    }
}

/// A system catalog's rows (`catalog::system`), built at the first call.
pub struct SystemScanOp {
    pub table: crate::catalog::system::SystemTable,
    pub done: bool,
}

impl Operator for SystemScanOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        let batch = crate::catalog::system::scan(self.table, ctx)?;
        Ok((batch.live_rows() > 0).then_some(batch))
    }
}

/// One call's rows for one input row.
enum RowSet {
    Values(Vec<Value>),
    /// `generate_series`: `count` values from `start` by `step`.
    Series {
        start: i64,
        step: i64,
        count: i64,
    },
}

impl RowSet {
    fn len(&self) -> i64 {
        match self {
            RowSet::Values(v) => v.len() as i64,
            RowSet::Series { count, .. } => *count,
        }
    }

    fn get(&self, k: i64, ty: DataType) -> Value {
        match self {
            RowSet::Values(v) => v.get(k as usize).cloned().unwrap_or(Value::Null),
            RowSet::Series { start, step, count } if k < *count => {
                // In range by construction: start + k * step lies between start and stop.
                let v = start.wrapping_add(k.wrapping_mul(*step));
                if ty == DataType::Int4 {
                    Value::Int4(v as i32)
                } else {
                    Value::Int8(v)
                }
            }
            RowSet::Series { .. } => Value::Null,
        }
    }
}

/// The rows of call `call` for row `i` of its evaluated arguments.
fn row_set(call: &SrfCall, args: &[Vector], i: usize) -> Result<RowSet> {
    if args.iter().any(|a| a.is_null(i)) {
        return Ok(RowSet::Values(Vec::new()));
    }
    match call.func {
        TableFunc::Unnest => Ok(RowSet::Values(match args.first().map(|a| &a.data) {
            Some(Data::Array(a)) => crate::types::array::View::new(a.blobs.get(i), a.elem).values(),
            _ => Vec::new(),
        })),
        TableFunc::ExpandArray => Ok(RowSet::Values(match args.first().map(|a| &a.data) {
            Some(Data::Array(a)) => crate::types::array::View::new(a.blobs.get(i), a.elem)
                .values()
                .into_iter()
                .enumerate()
                .map(|(k, v)| {
                    Value::Record(crate::types::record::build(&[
                        (a.elem, v),
                        (DataType::Int4, Value::Int4(k as i32 + 1)),
                    ]))
                })
                .collect(),
            _ => Vec::new(),
        })),
        TableFunc::System(_) | TableFunc::JsonRecord { .. } => Ok(RowSet::Values(Vec::new())),
        TableFunc::Set(kind) => {
            let values: Vec<Value> = args
                .iter()
                .zip(&call.args)
                .map(|(a, e)| a.value(i, e.ty().ty))
                .collect();
            let mut columns = super::json_functions::set_rows(kind, &values)?;
            if columns.len() == 1 {
                return Ok(RowSet::Values(columns.pop().unwrap_or_default()));
            }
            // Several columns (jsonb_each): each row one record of them.
            let types: Vec<DataType> = kind.columns().iter().map(|c| c.1).collect();
            let n = columns.first().map_or(0, Vec::len);
            let rows = (0..n)
                .map(|r| {
                    let fields: Vec<(DataType, Value)> = columns
                        .iter_mut()
                        .zip(&types)
                        .map(|(c, &t)| (t, std::mem::replace(&mut c[r], Value::Null)))
                        .collect();
                    Value::Record(crate::types::record::build(&fields))
                })
                .collect();
            Ok(RowSet::Values(rows))
        }
        TableFunc::GenerateSeries => {
            let int = |k: usize| {
                args.get(k)
                    .and_then(|a| a.value(i, call.args[k].ty().ty).as_i64())
            };
            let (Some(start), Some(stop)) = (int(0), int(1)) else {
                return Ok(RowSet::Values(Vec::new()));
            };
            let step = int(2).unwrap_or(1);
            if step == 0 {
                return Err(Error::invalid_parameter("step size cannot equal zero"));
            }
            let span = stop as i128 - start as i128;
            let count = if (span >= 0) == (step > 0) || span == 0 {
                span / step as i128 + 1
            } else {
                0
            };
            Ok(RowSet::Series {
                start,
                step,
                count: count.clamp(0, i64::MAX as i128) as i64,
            })
        }
    }
}

/// Set-returning functions in a select list (PostgreSQL's ProjectSet): each input row
/// is repeated as many times as its longest call returns rows, each call's column
/// holding its values in order and NULL once it has run out.
pub struct ProjectSetOp {
    input: BoxedOperator,
    calls: Vec<SrfCall>,
    /// The input batch in progress, its calls' arguments, the row and the offset within
    /// the row's sets.
    batch: Option<Batch>,
    args: Vec<Vec<Vector>>,
    row: usize,
    offset: i64,
    sets: Option<Vec<RowSet>>,
    /// Bytes of the current row's sets charged to the statement's memory.
    held: usize,
}

impl ProjectSetOp {
    pub fn new(
        input: BoxedOperator,
        calls: Vec<SrfCall>,
        _input_types: Vec<Option<DataType>>,
    ) -> ProjectSetOp {
        ProjectSetOp {
            input,
            calls,
            batch: None,
            args: Vec::new(),
            row: 0,
            offset: 0,
            sets: None,
            held: 0,
        }
    }
}

impl Operator for ProjectSetOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        loop {
            ctx.check_interrupt()?;
            if self.batch.is_none() {
                let Some(b) = self.input.next(ctx)? else {
                    return Ok(None);
                };
                let b = b.compact();
                let all: Vec<u32> = (0..b.rows as u32).collect();
                self.args = self
                    .calls
                    .iter()
                    .map(|c| {
                        c.args
                            .iter()
                            .map(|a| eval(a, &b, &all, ctx))
                            .collect::<Result<Vec<_>>>()
                    })
                    .collect::<Result<_>>()?;
                self.batch = Some(b);
                self.row = 0;
                self.offset = 0;
                self.sets = None;
            }
            let Some(batch) = &self.batch else {
                continue;
            };
            let mut sel: Vec<u32> = Vec::new();
            let mut cols: Vec<Vector> = self
                .calls
                .iter()
                .map(|c| Vector::with_capacity(c.ty.ty, BATCH_ROWS_MAX))
                .collect();
            while self.row < batch.rows && sel.len() < BATCH_ROWS_MAX {
                if self.sets.is_none() {
                    let mut sets = Vec::with_capacity(self.calls.len());
                    for (c, a) in self.calls.iter().zip(&self.args) {
                        let set = row_set(c, a, self.row)?;
                        if let RowSet::Values(v) = &set {
                            let bytes = v.len() * std::mem::size_of::<Value>();
                            ctx.charge_memory(bytes)?;
                            self.held += bytes;
                        }
                        sets.push(set);
                    }
                    self.sets = Some(sets);
                }
                let Some(sets) = &self.sets else { break };
                let n = sets.iter().map(RowSet::len).max().unwrap_or(0);
                while self.offset < n && sel.len() < BATCH_ROWS_MAX {
                    sel.push(self.row as u32);
                    for ((col, set), call) in cols.iter_mut().zip(sets).zip(&self.calls) {
                        col.push_value(&set.get(self.offset, call.ty.ty));
                    }
                    self.offset += 1;
                }
                if self.offset >= n {
                    self.row += 1;
                    self.offset = 0;
                    self.sets = None;
                    ctx.release_memory(std::mem::take(&mut self.held));
                }
            }
            let mut columns: Vec<Vector> = batch.columns.iter().map(|c| c.gather(&sel)).collect();
            let rows = sel.len();
            if self.row >= batch.rows {
                self.batch = None;
            }
            if rows == 0 {
                continue;
            }
            columns.extend(cols);
            return Ok(Some(Batch::new(columns, rows)));
        }
    }
}

/// DISTINCT ON: the first row of each key value, in the order rows arrive.
pub struct DistinctOnOp {
    input: BoxedOperator,
    keys: Vec<Expr>,
    seen: hashbrown::HashSet<Vec<u8>, foldhash::fast::FixedState>,
}

impl DistinctOnOp {
    pub fn new(input: BoxedOperator, keys: Vec<Expr>) -> DistinctOnOp {
        DistinctOnOp {
            input,
            keys,
            seen: hashbrown::HashSet::with_hasher(foldhash::fast::FixedState::default()),
        }
    }
}

impl Operator for DistinctOnOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        while let Some(b) = self.input.next(ctx)? {
            let sel = b.selection();
            let keys = self
                .keys
                .iter()
                .map(|k| super::expr::eval(k, &b, &sel, ctx))
                .collect::<Result<Vec<_>>>()?;
            let mut keep = Vec::new();
            let mut key = Vec::new();
            for (i, &row) in sel.iter().enumerate() {
                key.clear();
                for k in &keys {
                    super::keys::encode(k, i, &mut key);
                }
                if !self.seen.contains(key.as_slice()) {
                    ctx.charge_memory(key.len() + 32)?;
                    self.seen.insert(key.clone());
                    keep.push(row);
                }
            }
            if !keep.is_empty() {
                let mut out = b;
                out.sel = Some(keep);
                return Ok(Some(out));
            }
        }
        Ok(None)
    }
}

/// Batches computed already (a DML statement's RETURNING rows), handed out in order.
pub struct BatchesOp {
    batches: std::vec::IntoIter<Batch>,
}

impl BatchesOp {
    pub fn new(batches: Vec<Batch>) -> BatchesOp {
        BatchesOp {
            batches: batches.into_iter(),
        }
    }
}

impl Operator for BatchesOp {
    fn next(&mut self, _ctx: &ExecContext) -> Result<Option<Batch>> {
        Ok(self.batches.next())
    }
}
