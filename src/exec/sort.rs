//! Sorting, with a top-N path for `ORDER BY … LIMIT`.
//!
//! The input batches are kept as they arrive (made dense, never concatenated); a row is
//! named by a ref `(batch << 32) | row`. The sort computes the output order as a list
//! of refs, by the cheapest method the keys allow:
//!
//! 1. one integer-like key without NULLs: each row packed into one `u64` (the key's
//!    offset from the minimum above the row number, so ties keep input order), one
//!    counting pass partitions the rows into up to 2,048 buckets by the top key bits,
//!    and each bucket is sorted only when the output reaches it — the first rows leave
//!    after one pass over the keys instead of a whole sort;
//! 2. keys of fixed-order types (integers, dates, timestamps, floats, text, booleans):
//!    *normalized keys* — each row's keys encoded into one byte string whose `memcmp`
//!    order is the SQL order (direction and NULL placement folded in), so comparing two
//!    rows is one slice comparison (DuckDB's approach);
//! 3. anything else (numeric, interval): a comparator walking the key columns.
//!
//! A sort directly over a table materializes late: the scan reads only the keys (and the
//! filter's columns) plus row ids, and the output columns are gathered from the table's
//! row groups by row id, so columns the sort never compares are copied once, at output.
//!
//! With a limit the operator is a bounded top-N: while reading input it compacts to the
//! best N rows whenever it holds 4·N (at least 65,536), so `ORDER BY … LIMIT 10` over a
//! billion rows holds a few thousand; the final pass partitions off the first N with
//! `select_nth_unstable` before sorting only those. Materialized input is charged to the
//! statement's memory budget (`53200` past `kiln.max_query_memory`).
//!
//! The output is gathered through the refs a chunk at a time (2,048 rows; the first only
//! 512 so that the first rows reach the client sooner), so each value is copied once and
//! the wire encoder reads each column sequentially — measured faster on `large_sort`
//! than handing the encoder a permutation as a selection vector.

use std::cmp::Ordering;

use std::sync::Arc;

use std::time::Instant;

use super::context::ExecContext;
use super::expr::compare_rows;
use super::instrument::Meter;
use super::ops::eval_count;
use super::scan::Scan;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use super::{BoxedOperator, Operator};
use crate::catalog::TableEntry;
use crate::error::Result;
use crate::plan::SortKey;
use crate::sql::expr::Expr;
use crate::types::DataType;

/// A top-N compacts to its N best rows once it holds this many (or 4·N) rows.
const TOP_N_COMPACT_ROWS_MIN: usize = 65_536;

/// Where the sort's rows come from.
enum Source {
    /// Any operator: every column of every row is held until output.
    Operator(BoxedOperator),
    /// A table (late materialization): the scan reads only the sort keys, the filter's
    /// columns and row ids; after sorting, the output columns are gathered straight
    /// from the table's row groups by row id. `output` is the table columns the plan
    /// reads (`None`: all); the others stay empty vectors, as a scan leaves them.
    Table {
        scan: Box<Scan>,
        output: Option<Vec<bool>>,
        types: Vec<DataType>,
        /// EXPLAIN ANALYZE's measurements of the scan.
        meter: Option<Meter>,
    },
}

/// Late materialization pays off when some output column is not a sort key.
pub fn late_pays_off(columns: usize, needed: Option<&[bool]>, keys: &[SortKey]) -> bool {
    (0..columns).any(|c| {
        needed.is_none_or(|n| n.get(c).copied().unwrap_or(false))
            && !keys.iter().any(|k| k.column == c)
    })
}

pub struct SortOp {
    source: Source,
    keys: Vec<SortKey>,
    limit: Option<Expr>,
    /// The input as it arrived (dense batches); rows are never copied into one buffer.
    batches: Vec<Batch>,
    /// The output order as refs `(batch << 32) | row`, once the input is consumed.
    order: Option<LazyOrder>,
    emitted: usize,
    done: bool,
}

/// The first output chunk is smaller, so the first rows reach the client sooner.
const FIRST_CHUNK_ROWS: usize = 512;

/// The output order as refs, made final as output reaches it: a single-integer-key sort
/// partitions rows into buckets by the top bits of their key (one pass) and sorts each
/// bucket only when the output needs it, so the first rows leave before the rest are
/// sorted. Other sorts are final at once.
struct LazyOrder {
    /// Final refs, in output order.
    done: Vec<u64>,
    /// Rows of output in all; `done` grows to this.
    len: usize,
    buckets: Option<Buckets>,
}

/// Packed `(key - min) << 32 | index` values, partitioned: bucket `b` is
/// `packed[bounds[b]..bounds[b + 1]]`, and every key in it is below every key in the
/// next. Buckets before `next` are in `done`.
struct Buckets {
    packed: Vec<u64>,
    bounds: Vec<usize>,
    next: usize,
    /// index → ref.
    refs: Vec<u64>,
}

impl LazyOrder {
    fn finished(done: Vec<u64>) -> LazyOrder {
        LazyOrder {
            len: done.len(),
            done,
            buckets: None,
        }
    }

    /// The first `end` refs of the order (fewer if it is shorter), sorting buckets
    /// as needed.
    fn ready(&mut self, end: usize) -> &[u64] {
        let end = end.min(self.len);
        if let Some(b) = &mut self.buckets {
            while self.done.len() < end && b.next + 1 < b.bounds.len() {
                let bucket = &mut b.packed[b.bounds[b.next]..b.bounds[b.next + 1]];
                // Values are unique (the index is in the low bits): ties stay in input
                // order, as a stable sort would leave them.
                bucket.sort_unstable();
                let refs = &b.refs;
                self.done
                    .extend(bucket.iter().map(|&p| refs[(p & 0xffff_ffff) as usize]));
                b.next += 1;
            }
            if self.done.len() >= self.len || b.next + 1 >= b.bounds.len() {
                self.done.truncate(self.len);
                self.buckets = None;
            }
        }
        &self.done[..end.min(self.done.len())]
    }

    fn into_vec(mut self) -> Vec<u64> {
        self.ready(self.len);
        self.done
    }
}

fn make_ref(batch: usize, row: usize) -> u64 {
    ((batch as u64) << 32) | row as u64
}

fn split_ref(r: u64) -> (usize, usize) {
    ((r >> 32) as usize, (r & 0xffff_ffff) as usize)
}

/// Rows `refs` of every column, gathered from the batches they live in.
fn gather_all(batches: &[Batch], refs: &[u64]) -> Vec<Vector> {
    let columns = batches.first().map_or(0, |b| b.columns.len());
    (0..columns)
        .map(|c| {
            let sources: Vec<&Vector> = batches.iter().map(|b| &b.columns[c]).collect();
            Vector::gather_refs(&sources, refs)
        })
        .collect()
}

/// Appends the order-preserving `u64` key and the ref of every row of an integer-like
/// column; false if the column has another type or NULLs.
fn push_int_keys(
    v: &Vector,
    batch: usize,
    desc: bool,
    keys: &mut Vec<u64>,
    refs: &mut Vec<u64>,
) -> bool {
    if v.nulls.is_some() {
        return false;
    }
    let mask = if desc { u64::MAX } else { 0 };
    let key = |x: i64| ((x as u64) ^ (1 << 63)) ^ mask;
    match &v.data {
        Data::I16(x) => keys.extend(x.iter().map(|&a| key(a as i64))),
        Data::I32(x) => keys.extend(x.iter().map(|&a| key(a as i64))),
        Data::I64(x) => keys.extend(x.iter().map(|&a| key(a))),
        _ => return false,
    }
    let (start, end) = (refs.len(), keys.len());
    refs.extend((0..end - start).map(|i| make_ref(batch, i)));
    true
}

/// Appends the normalized form of row `i` of `v` to `out`; false if the type has none.
fn normalize(v: &Vector, i: usize, key: &SortKey, out: &mut Vec<u8>) -> bool {
    normalize_value(v, i, key.desc, key.nulls_first, out)
}

/// Appends row `i` of `v` to `out` encoded so that `memcmp` order is the SQL order in
/// direction `desc` with NULLs first or last (the index keys of `storage::index` too);
/// false if the type has no such form.
pub fn normalize_value(
    v: &Vector,
    i: usize,
    desc: bool,
    nulls_first: bool,
    out: &mut Vec<u8>,
) -> bool {
    let start = out.len();
    if v.is_null(i) {
        out.push(if nulls_first { 0 } else { 2 });
        return true;
    }
    out.push(1);
    let flip64 = |x: i64| ((x as u64) ^ (1 << 63)).to_be_bytes();
    match &v.data {
        Data::Bool(x) => out.push(x[i] as u8),
        Data::I16(x) => out.extend_from_slice(&flip64(x[i] as i64)),
        Data::I32(x) => out.extend_from_slice(&flip64(x[i] as i64)),
        Data::I64(x) => out.extend_from_slice(&flip64(x[i])),
        Data::F32(x) => out.extend_from_slice(&float_key(x[i] as f64)),
        Data::F64(x) => out.extend_from_slice(&float_key(x[i])),
        Data::Text(t) => {
            // No byte is below the terminator 0: 0 and 1 are escaped as 1,0 and 1,1.
            for &b in t.get(i) {
                if b <= 1 {
                    out.push(1);
                }
                out.push(b);
            }
            out.push(0);
        }
        Data::Num(_) | Data::Interval(_) | Data::Array(_) | Data::Record(_) | Data::Jsonb(_) => {
            return false;
        }
    }
    if desc {
        for b in &mut out[start + 1..] {
            *b = !*b;
        }
    }
    true
}

/// Floats in PostgreSQL's order: -Infinity … -0 = 0 … Infinity < NaN.
fn float_key(v: f64) -> [u8; 8] {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = if v.is_nan() { u64::MAX } else { v.to_bits() };
    let k = if v.is_nan() {
        bits
    } else if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    k.to_be_bytes()
}

impl SortOp {
    pub fn new(input: BoxedOperator, keys: Vec<SortKey>, limit: Option<Expr>) -> SortOp {
        SortOp::with_source(Source::Operator(input), keys, limit)
    }

    fn with_source(source: Source, keys: Vec<SortKey>, limit: Option<Expr>) -> SortOp {
        SortOp {
            source,
            keys,
            limit,
            batches: Vec::new(),
            order: None,
            emitted: 0,
            done: false,
        }
    }

    /// A sort over `table` that materializes its output columns late (see [`Source`]).
    /// `meter`, for EXPLAIN ANALYZE, measures the table's scan.
    pub fn over_table(
        table: Arc<TableEntry>,
        filter: Option<Expr>,
        output: Option<Vec<bool>>,
        keys: Vec<SortKey>,
        limit: Option<Expr>,
        meter: Option<Meter>,
    ) -> SortOp {
        let columns = table.columns.len();
        let mut read = vec![false; columns];
        for k in &keys {
            if let Some(slot) = read.get_mut(k.column) {
                *slot = true;
            }
        }
        if let Some(f) = &filter {
            crate::plan::physical::mark_columns(f, &mut read);
        }
        let types = table.storage.types.clone();
        let scan = Box::new(Scan::new(table, filter, true, Some(read)));
        SortOp::with_source(
            Source::Table {
                scan,
                output,
                types,
                meter,
            },
            keys,
            limit,
        )
    }

    fn next_input(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        match &mut self.source {
            Source::Operator(op) => op.next(ctx),
            Source::Table {
                scan,
                meter: Some(meter),
                ..
            } => {
                let started = Instant::now();
                let out = scan.next(ctx)?;
                meter.record(started, &out);
                Ok(out)
            }
            Source::Table { scan, .. } => scan.next(ctx),
        }
    }

    fn consume(&mut self, ctx: &ExecContext) -> Result<()> {
        let mut batches: Vec<Batch> = Vec::new();
        let mut rows = 0usize;
        let mut charged = 0usize;
        // With a limit, the operator is a bounded top-N: whenever it holds several times
        // N rows it keeps only the best N, so memory stays O(N + batch).
        let top_n = eval_count(&self.limit, ctx, "LIMIT")?.map(|l| l as usize);
        let compact_at = top_n.map(|n| n.saturating_mul(4).max(TOP_N_COMPACT_ROWS_MIN));
        while let Some(b) = self.next_input(ctx)? {
            let b = b.compact();
            if b.rows == 0 {
                continue;
            }
            let bytes = b.columns.iter().map(Vector::heap_bytes).sum::<usize>() + b.rows * 16;
            ctx.charge_memory(bytes)?;
            charged += bytes;
            rows += b.rows;
            batches.push(b);
            if let (Some(n), Some(at)) = (top_n, compact_at)
                && rows > at
            {
                let keep = self.order(&batches, rows, Some(n), ctx)?.into_vec();
                let kept = Batch::new(gather_all(&batches, &keep), keep.len());
                rows = kept.rows;
                batches = vec![kept];
                let kept_bytes = batches[0]
                    .columns
                    .iter()
                    .map(Vector::heap_bytes)
                    .sum::<usize>()
                    + rows * 16;
                ctx.release_memory(charged.saturating_sub(kept_bytes));
                charged = kept_bytes;
            }
        }
        let limit = top_n.map(|l| l.min(rows));
        let order = if rows == 0 {
            LazyOrder::finished(Vec::new())
        } else {
            self.order(&batches, rows, limit, ctx)?
        };
        self.batches = batches;
        self.order = Some(order);
        Ok(())
    }

    /// The first `limit` rows (all without one) in sorted order, as refs.
    fn order(
        &self,
        batches: &[Batch],
        rows: usize,
        limit: Option<usize>,
        ctx: &ExecContext,
    ) -> Result<LazyOrder> {
        let keys = &self.keys;
        // 1. One integer key without NULLs: packed `(key - min, row)` values, bucketed.
        if let [k] = keys.as_slice() {
            let mut int_keys: Vec<u64> = Vec::with_capacity(rows);
            let mut refs: Vec<u64> = Vec::with_capacity(rows);
            let all_int = batches.iter().enumerate().all(|(i, b)| {
                push_int_keys(&b.columns[k.column], i, k.desc, &mut int_keys, &mut refs)
            });
            if all_int {
                return Ok(sort_int_keys(&int_keys, &refs, limit));
            }
        }
        ctx.check_interrupt()?;
        let refs: Vec<u64> = batches
            .iter()
            .enumerate()
            .flat_map(|(i, b)| (0..b.rows).map(move |r| make_ref(i, r)))
            .collect();
        // 2. Normalized keys compared with memcmp.
        let mut bytes: Vec<u8> = Vec::with_capacity(rows * 12 * keys.len());
        let mut offsets: Vec<usize> = Vec::with_capacity(rows + 1);
        offsets.push(0);
        let mut normalizable = true;
        'rows: for &r in &refs {
            let (b, i) = split_ref(r);
            for k in keys {
                if !normalize(&batches[b].columns[k.column], i, k, &mut bytes) {
                    normalizable = false;
                    break 'rows;
                }
            }
            offsets.push(bytes.len());
        }
        let mut perm: Vec<u32> = (0..rows as u32).collect();
        if normalizable {
            let key = |g: u32| &bytes[offsets[g as usize]..offsets[g as usize + 1]];
            let cmp = |a: &u32, b: &u32| key(*a).cmp(key(*b)).then(a.cmp(b));
            sort_with_limit(&mut perm, limit, cmp);
            return Ok(LazyOrder::finished(
                perm.iter().map(|&g| refs[g as usize]).collect(),
            ));
        }
        // 3. The general comparator.
        let cmp = |a: &u32, b: &u32| -> Ordering {
            let (ba, i) = split_ref(refs[*a as usize]);
            let (bb, j) = split_ref(refs[*b as usize]);
            for k in keys {
                let (x, y) = (
                    &batches[ba].columns[k.column],
                    &batches[bb].columns[k.column],
                );
                let o = match (x.is_null(i), y.is_null(j)) {
                    (true, true) => Ordering::Equal,
                    (true, false) => {
                        if k.nulls_first {
                            Ordering::Less
                        } else {
                            Ordering::Greater
                        }
                    }
                    (false, true) => {
                        if k.nulls_first {
                            Ordering::Greater
                        } else {
                            Ordering::Less
                        }
                    }
                    (false, false) => {
                        let o = compare_rows(&x.data, i, &y.data, j);
                        if k.desc { o.reverse() } else { o }
                    }
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
            a.cmp(b)
        };
        sort_with_limit(&mut perm, limit, cmp);
        Ok(LazyOrder::finished(
            perm.iter().map(|&g| refs[g as usize]).collect(),
        ))
    }
}

/// Sorts rows by one integer key. When the keys span less than 2^32, each row becomes
/// one `u64` — the key's offset from the minimum above the row number, so ties keep
/// their input order — and one counting pass partitions the rows into up to 2,048
/// buckets by the top bits of the key; buckets are sorted as output reaches them
/// (`LazyOrder`). A small top-N selects its rows first; wider key ranges sort
/// `(key, row)` pairs by comparison.
fn sort_int_keys(keys: &[u64], refs: &[u64], limit: Option<usize>) -> LazyOrder {
    let rows = keys.len();
    let len = limit.unwrap_or(rows).min(rows);
    let (min, max) = keys
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), &k| (lo.min(k), hi.max(k)));
    if rows == 0 || max - min >= (1 << 32) || rows >= (1 << 32) {
        let mut pairs: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
        if len < rows / 8 {
            if len > 0 {
                pairs.select_nth_unstable(len - 1);
            }
            pairs.truncate(len);
        }
        pairs.sort_unstable();
        pairs.truncate(len);
        return LazyOrder::finished(pairs.iter().map(|&(_, i)| refs[i]).collect());
    }
    let mut packed: Vec<u64> = keys
        .iter()
        .zip(0u64..)
        .map(|(&k, i)| ((k - min) << 32) | i)
        .collect();
    if len < rows / 8 {
        if len > 0 {
            packed.select_nth_unstable(len - 1);
        }
        packed.truncate(len);
        packed.sort_unstable();
        return LazyOrder::finished(
            packed
                .iter()
                .map(|&p| refs[(p & 0xffff_ffff) as usize])
                .collect(),
        );
    }
    let range_bits = 64 - (max - min).leading_zeros();
    // About eight rows per bucket, at most 2,048 buckets (a 16 KB histogram).
    let rows_bits = usize::BITS - rows.leading_zeros();
    let bucket_bits = rows_bits.saturating_sub(3).clamp(1, 11).min(range_bits);
    let shift = 32 + range_bits - bucket_bits;
    let mut bounds = vec![0usize; (1 << bucket_bits) + 1];
    for &v in &packed {
        bounds[(v >> shift) as usize + 1] += 1;
    }
    for b in 1..bounds.len() {
        bounds[b] += bounds[b - 1];
    }
    let mut at = bounds.clone();
    let mut partitioned = vec![0u64; rows];
    for &v in &packed {
        let b = (v >> shift) as usize;
        partitioned[at[b]] = v;
        at[b] += 1;
    }
    LazyOrder {
        done: Vec::with_capacity(len),
        len,
        buckets: Some(Buckets {
            packed: partitioned,
            bounds,
            next: 0,
            refs: refs.to_vec(),
        }),
    }
}

fn sort_with_limit(
    perm: &mut Vec<u32>,
    limit: Option<usize>,
    cmp: impl Fn(&u32, &u32) -> Ordering,
) {
    match limit {
        Some(n) if n < perm.len() => {
            if n > 0 {
                perm.select_nth_unstable_by(n - 1, &cmp);
            }
            perm.truncate(n);
            perm.sort_unstable_by(cmp);
        }
        _ => perm.sort_unstable_by(cmp),
    }
}

impl Operator for SortOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        if self.order.is_none() {
            self.consume(ctx)?;
        }
        // Emit sorted rows in gathered chunks: the encoder then reads each column
        // sequentially (measured faster than encoding through a selection).
        let chunk = if self.emitted == 0 {
            FIRST_CHUNK_ROWS
        } else {
            BATCH_ROWS_MAX
        };
        let ready = match self.order.as_mut() {
            Some(order) => order.ready(self.emitted + chunk),
            None => &[],
        };
        if self.emitted >= ready.len() {
            self.done = true;
            self.order = None;
            self.batches = Vec::new();
            return Ok(None);
        }
        ctx.check_interrupt()?;
        let refs = &ready[self.emitted..];
        let end = ready.len();
        let columns = match &self.source {
            Source::Operator(_) => gather_all(&self.batches, refs),
            Source::Table {
                scan,
                output,
                types,
                ..
            } => {
                // Refs into the key batches name row ids (`group << 32 | row`), which
                // are refs into the table's row groups.
                let mut ids = Vec::with_capacity(refs.len());
                for &r in refs {
                    let (b, i) = split_ref(r);
                    let Some(Data::I64(col)) = self.batches[b].columns.last().map(|c| &c.data)
                    else {
                        return Err(crate::error::Error::internal("sort: row ids missing"));
                    };
                    ids.push(col[i] as u64);
                }
                let groups = scan.groups();
                (0..types.len())
                    .map(|c| {
                        let read = output
                            .as_ref()
                            .is_none_or(|n| n.get(c).copied().unwrap_or(false));
                        if !read {
                            return Vector::with_capacity(types[c], 0);
                        }
                        let sources: Vec<&Vector> = groups.iter().map(|g| &g.columns[c]).collect();
                        Vector::gather_refs(&sources, &ids)
                    })
                    .collect()
            }
        };
        let rows = refs.len();
        self.emitted = end;
        Ok(Some(Batch::new(columns, rows)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_key_sort_orders_signed_keys() {
        let vals = [5i64, -3, 0, i64::MIN, i64::MAX, -3, 42];
        let keys: Vec<u64> = vals.iter().map(|&v| (v as u64) ^ (1 << 63)).collect();
        let refs: Vec<u64> = (0..vals.len() as u64).collect();
        // The full i64 range takes the comparison path.
        let order = sort_int_keys(&keys, &refs, None).into_vec();
        let sorted: Vec<i64> = order.iter().map(|&i| vals[i as usize]).collect();
        assert_eq!(sorted, vec![i64::MIN, -3, -3, 0, 5, 42, i64::MAX]);
        // Stable: the two -3s keep their input order.
        assert_eq!(&order[1..3], &[1, 5]);
        // A narrow range takes the packed bucket path, still stable.
        let vals = [70_000i64, -3, 0, 65_535, -3, 42, 300];
        let keys: Vec<u64> = vals.iter().map(|&v| (v as u64) ^ (1 << 63)).collect();
        let order = sort_int_keys(&keys, &refs, None).into_vec();
        let sorted: Vec<i64> = order.iter().map(|&i| vals[i as usize]).collect();
        assert_eq!(sorted, vec![-3, -3, 0, 42, 300, 65_535, 70_000]);
        assert_eq!(&order[0..2], &[1, 4]);
        // Top-N takes the first n in order.
        assert_eq!(
            sort_int_keys(&keys, &refs, Some(3)).into_vec(),
            vec![1, 4, 2]
        );
    }

    #[test]
    fn bucketed_order_is_sorted_stable_and_lazy() {
        // Skewed keys: most rows share a few values, a few are far apart.
        let vals: Vec<i64> = (0..20_000i64)
            .map(|i| match i % 10 {
                0 => i * 977 % 5_000_000,
                1 => -7,
                _ => i % 13,
            })
            .collect();
        let keys: Vec<u64> = vals.iter().map(|&v| (v as u64) ^ (1 << 63)).collect();
        let refs: Vec<u64> = (0..vals.len() as u64).collect();
        let mut want: Vec<u64> = refs.clone();
        want.sort_by_key(|&i| vals[i as usize]); // stable
        let mut lazy = sort_int_keys(&keys, &refs, None);
        // Asking for a prefix sorts only some buckets, and gives the right prefix.
        assert_eq!(lazy.ready(100), &want[..100]);
        assert!(lazy.buckets.is_some());
        assert_eq!(lazy.into_vec(), want);
        // A limit the bucket path serves (not a small top-N).
        let order = sort_int_keys(&keys, &refs, Some(15_000)).into_vec();
        assert_eq!(order, want[..15_000]);
    }

    #[test]
    fn float_keys_follow_postgres_order() {
        let vals = [
            f64::NAN,
            1.5,
            -0.0,
            0.0,
            f64::NEG_INFINITY,
            -2.0,
            f64::INFINITY,
        ];
        let mut sorted = vals.to_vec();
        sorted.sort_by_key(|&v| float_key(v));
        assert_eq!(sorted[0], f64::NEG_INFINITY);
        assert_eq!(sorted[1], -2.0);
        assert_eq!(float_key(-0.0), float_key(0.0));
        assert_eq!(sorted[5], f64::INFINITY);
        assert!(sorted[6].is_nan());
    }
}
