//! Planner statistics: per table, its row count and per column the number of distinct
//! values, the fraction of NULLs and (for ordered numeric types) the smallest and largest
//! value — what the optimizer's cardinality estimates read.
//!
//! Statistics come from a sample of about [`SAMPLE_ROWS_MAX`] rows picked by a hash of
//! their position in the table (every live version, regardless of snapshot: an
//! estimate, not an answer). The distinct count of the whole table is estimated from the sample with
//! the Haas–Stokes "Duj1" estimator, as PostgreSQL's ANALYZE does:
//! `n·d / (n − f1 + f1·n / N)` for `d` distinct values in a sample of `n` of `N` rows,
//! `f1` of them seen once.
//!
//! They are kept current cheaply: a table's statistics are computed when the planner
//! first asks for them and again when its row count has moved by more than a fifth since
//! (PostgreSQL's autovacuum analyze threshold, in miniature); `ANALYZE` recomputes them
//! at once.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use crate::exec::keys;
use crate::exec::vector::{Data, Vector};
use crate::storage::mvcc::TXN_NONE;
use crate::storage::table::Table;

/// Rows a sample reads at most.
pub const SAMPLE_ROWS_MAX: usize = 30_000;

#[derive(Clone, Debug, Default)]
pub struct ColumnStats {
    /// Estimated distinct non-NULL values in the table.
    pub ndv: f64,
    pub null_frac: f64,
    /// Smallest and largest value, as numbers (integers, floats, numerics, dates and
    /// timestamps).
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Clone, Debug, Default)]
pub struct TableStats {
    /// Live row versions when computed.
    pub rows: f64,
    pub columns: Vec<ColumnStats>,
}

/// Live rows (versions nobody deleted), counted cheaply.
pub fn live_rows(table: &Table) -> usize {
    table.stored_rows().saturating_sub(table.dead_rows())
}

/// Computes statistics from a sample of `table`.
pub fn compute(table: &Table) -> TableStats {
    let groups = table.groups();
    let total: usize = groups.iter().map(|g| g.rows()).sum();
    let step = total.div_ceil(SAMPLE_ROWS_MAX).max(1);
    let width = table.types.len();
    let mut values: Vec<HashMap<Vec<u8>, u32>> = vec![HashMap::new(); width];
    let mut nulls = vec![0usize; width];
    let mut mins = vec![f64::INFINITY; width];
    let mut maxs = vec![f64::NEG_INFINITY; width];
    let mut sampled = 0usize;
    let mut live = 0usize;
    let mut key = Vec::new();
    let mut global = 0usize;
    for g in &groups {
        for i in 0..g.rows() {
            let row = global + i;
            let alive =
                crate::storage::mvcc::deleter(g.xmax(i).load(Ordering::Relaxed)) == TXN_NONE;
            live += usize::from(alive);
            if !alive || !in_sample(row, step) {
                continue;
            }
            sampled += 1;
            for (c, col) in g.columns.iter().enumerate() {
                if col.is_null(i) {
                    nulls[c] += 1;
                    continue;
                }
                key.clear();
                keys::encode(col, i, &mut key);
                *values[c].entry(key.clone()).or_insert(0) += 1;
                if let Some(x) = as_number(col, i) {
                    mins[c] = mins[c].min(x);
                    maxs[c] = maxs[c].max(x);
                }
            }
        }
        global += g.rows();
    }
    let n = sampled as f64;
    let big_n = live.max(sampled) as f64;
    let columns = (0..width)
        .map(|c| {
            let non_null = sampled - nulls[c];
            let d = values[c].len() as f64;
            let f1 = values[c].values().filter(|&&k| k == 1).count() as f64;
            let nn = non_null as f64;
            let ndv = if non_null == 0 {
                0.0
            } else if sampled >= live {
                d
            } else {
                // Duj1, over the non-NULL part of the sample.
                let scaled_n = big_n * nn / n.max(1.0);
                let est = nn * d / (nn - f1 + f1 * nn / scaled_n.max(1.0));
                est.clamp(d, scaled_n.max(d))
            };
            ColumnStats {
                ndv,
                null_frac: if sampled == 0 {
                    0.0
                } else {
                    nulls[c] as f64 / n
                },
                min: mins[c].is_finite().then_some(mins[c]),
                max: maxs[c].is_finite().then_some(maxs[c]),
            }
        })
        .collect();
    TableStats {
        rows: live as f64,
        columns,
    }
}

/// Whether row `row` (numbered across the table) is among the sampled one in `step`.
/// Rows are picked by a hash of their number, not every `step`-th: data that repeats
/// with a period sharing a factor with `step` (a column cycling through four values,
/// sampled every second row) would otherwise show only some of its values.
fn in_sample(row: usize, step: usize) -> bool {
    if step <= 1 {
        return true;
    }
    // SplitMix64's finalizer: every bit of the row number moves every output bit.
    let mut x = (row as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    x.is_multiple_of(step as u64)
}

/// A value as a number, for range estimates (None for types without a numeric order).
fn as_number(v: &Vector, i: usize) -> Option<f64> {
    Some(match &v.data {
        Data::I16(x) => x[i] as f64,
        Data::I32(x) => x[i] as f64,
        Data::I64(x) => x[i] as f64,
        Data::F32(x) => x[i] as f64,
        Data::F64(x) => x[i],
        Data::Num(x) => x[i].to_f64().ok()?,
        Data::Bool(_)
        | Data::Text(_)
        | Data::Interval(_)
        | Data::Array(_)
        | Data::Record(_)
        | Data::Jsonb(_) => {
            return None;
        }
    })
}
