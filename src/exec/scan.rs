//! Table scan: visible rows of a snapshot, filtered through a selection vector.
//!
//! The scan walks the row groups captured when it starts (a few `Arc` clones), cuts each
//! into slices of `BATCH_ROWS_MAX` rows, computes the visible rows from the MVCC stamps,
//! and applies the pushed-down filter to that selection.
//!
//! Materialization is late: only the columns the filter reads are copied out of the row
//! group before it runs. When it keeps most rows, the other columns are copied whole
//! and the batch carries the selection; when it keeps few, every column is gathered at
//! the kept rows only, so a selective filter over a wide table copies little.
//!
//! The first batch is only 256 rows, so a streamed result's first rows reach the client
//! after a little work rather than a whole batch's.

use std::sync::Arc;

use super::Operator;
use super::context::ExecContext;
use super::expr::{eval_filter, replay_filter};
use super::keyfilter::KeyFilter;
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use crate::catalog::TableEntry;
use crate::error::{Error, Result};
use crate::plan::physical::mark_columns;
use crate::sql::expr::Expr;
use crate::storage::table::RowGroup;

/// Rows in a scan's first batch.
const FIRST_BATCH_ROWS: usize = 256;

pub struct Scan {
    table: Arc<TableEntry>,
    filter: Option<Expr>,
    row_ids: bool,
    needed: Option<Vec<bool>>,
    /// The columns the filter reads, when it can run before the others are copied.
    filter_columns: Option<Vec<bool>>,
    groups: Option<Vec<Arc<RowGroup>>>,
    group: usize,
    offset: usize,
    /// An error held back by a replay of the filter (see `expr::Replayed`).
    pending: Option<Error>,
    /// Join key filters on table columns, tested before `filter` (see `keyfilter`).
    key_filters: Vec<KeyFilterUse>,
}

/// A key filter on one column, with the rows it has seen, so that a filter that keeps
/// nearly every row stops costing a probe per row.
struct KeyFilterUse {
    col: usize,
    filter: Arc<KeyFilter>,
    tested: usize,
    kept: usize,
}

/// A key filter is judged after this many rows, and dropped when it kept more than
/// [`KEY_FILTER_KEEP_MAX_PERCENT`] percent of them.
const KEY_FILTER_TRIAL_ROWS: usize = 1024;
const KEY_FILTER_KEEP_MAX_PERCENT: usize = 90;

/// The group's columns: those `take` names copied by `copy`, the others empty (column
/// positions never change).
fn copy_columns(
    g: &RowGroup,
    take: impl Fn(usize) -> bool,
    copy: impl Fn(&Vector) -> Vector,
    empty: impl Fn(usize) -> Vector,
) -> Vec<Vector> {
    g.columns
        .iter()
        .enumerate()
        .map(|(i, c)| if take(i) { copy(c) } else { empty(i) })
        .collect()
}

/// Encodes a row id as one integer: group in the high half, row in the low half.
/// A version's row id as the row-id column carries it (`storage::index::RowId`).
pub fn encode_row_id(group: usize, row: usize) -> i64 {
    crate::storage::index::row_id(group, row) as i64
}

impl Scan {
    pub fn new(
        table: Arc<TableEntry>,
        filter: Option<Expr>,
        row_ids: bool,
        needed: Option<Vec<bool>>,
    ) -> Scan {
        let filter_columns = match &filter {
            _ if row_ids => None,
            Some(f) if f.has_subquery() => None,
            Some(f) => {
                let mut read = vec![false; table.storage.types.len()];
                mark_columns(f, &mut read);
                Some(read)
            }
            None => Some(vec![false; table.storage.types.len()]),
        };
        Scan {
            table,
            filter,
            row_ids,
            needed,
            filter_columns,
            groups: None,
            group: 0,
            offset: 0,
            pending: None,
            key_filters: Vec::new(),
        }
    }
}

impl Scan {
    /// The row groups this scan reads (captured at its first batch); the row ids it
    /// emits index into them.
    pub fn groups(&self) -> &[Arc<RowGroup>] {
        self.groups.as_deref().unwrap_or(&[])
    }
}

/// The rows of `sel` that pass `filter`; `None` when none do. An error past the first
/// failing row is held in `pending` (see `expr::Replayed`).
fn apply_filter(
    filter: &Option<Expr>,
    pending: &mut Option<Error>,
    batch: &Batch,
    sel: Vec<u32>,
    ctx: &ExecContext,
) -> Result<Option<Vec<u32>>> {
    let Some(f) = filter else {
        return Ok(Some(sel));
    };
    let kept = match eval_filter(f, batch, &sel, ctx) {
        Ok(kept) => kept,
        Err(e) => {
            let replayed = replay_filter(f, batch, &sel, ctx, e)?;
            if replayed.ok.is_empty() {
                return Err(replayed.error);
            }
            *pending = Some(replayed.error);
            replayed.ok
        }
    };
    Ok(if kept.is_empty() { None } else { Some(kept) })
}

impl Operator for Scan {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.groups.is_none() {
            self.groups = Some(self.table.storage.groups());
        }
        let mut visible = Vec::with_capacity(BATCH_ROWS_MAX);
        loop {
            ctx.check_interrupt()?;
            let Some(g) = self
                .groups
                .as_ref()
                .and_then(|gs| gs.get(self.group))
                .cloned()
            else {
                return Ok(None);
            };
            let rows = g.rows();
            if self.offset >= rows {
                self.group += 1;
                self.offset = 0;
                continue;
            }
            let start = self.offset;
            // The first batch is small, so the first rows of a streamed result reach
            // the client after a little work instead of a whole batch's.
            let batch_rows = if self.group == 0 && start == 0 {
                FIRST_BATCH_ROWS
            } else {
                BATCH_ROWS_MAX
            };
            let end = (start + batch_rows).min(rows);
            self.offset = end;
            visible.clear();
            g.visible_rows(&ctx.snapshot, start, end, &mut visible);
            for f in &mut self.key_filters {
                if visible.is_empty() {
                    break;
                }
                if let Some(c) = g.columns.get(f.col) {
                    f.tested += visible.len();
                    f.filter.retain(c, 0, &mut visible);
                    f.kept += visible.len();
                }
            }
            self.key_filters.retain(|f| {
                f.tested < KEY_FILTER_TRIAL_ROWS
                    || f.kept * 100 <= f.tested * KEY_FILTER_KEEP_MAX_PERCENT
            });
            if visible.is_empty() {
                continue;
            }
            let count = end - start;
            let types = &self.table.storage.types;
            let empty = |i: usize| Vector::with_capacity(types[i], 0);
            let needed = self.needed.as_deref();
            let wanted = |i: usize| needed.is_none_or(|n| n.get(i).copied().unwrap_or(true));
            let Some(early) = self.filter_columns.as_deref() else {
                // Everything copied up front (row ids, or a filter with subqueries).
                let mut columns: Vec<Vector> =
                    copy_columns(&g, wanted, |c| c.slice(start, end), empty);
                if self.row_ids {
                    let ids = (start..end).map(|r| encode_row_id(self.group, r)).collect();
                    columns.push(Vector::from_data(Data::I64(ids)));
                }
                let batch = Batch::new(columns, count);
                let sel: Vec<u32> = visible.iter().map(|&r| r - start as u32).collect();
                let Some(sel) = apply_filter(&self.filter, &mut self.pending, &batch, sel, ctx)?
                else {
                    continue;
                };
                let all = sel.len() == count;
                return Ok(Some(Batch {
                    sel: if all { None } else { Some(sel) },
                    ..batch
                }));
            };
            let reads = |i: usize| early.get(i).copied().unwrap_or(true);
            // Few visible rows (a key filter dropped most): gather them, else slice.
            let sparse = visible.len() * 2 < count;
            let (batch, sel) = if sparse {
                let columns = copy_columns(&g, reads, |c| c.gather(&visible), empty);
                (
                    Batch::new(columns, visible.len()),
                    (0..visible.len() as u32).collect(),
                )
            } else {
                let columns = copy_columns(&g, reads, |c| c.slice(start, end), empty);
                let sel = visible.iter().map(|&r| r - start as u32).collect();
                (Batch::new(columns, count), sel)
            };
            let Some(sel) = apply_filter(&self.filter, &mut self.pending, &batch, sel, ctx)? else {
                continue;
            };
            // Row `r` of the batch is row `base + r` of the group (dense) or
            // `visible[r]` (sparse).
            let at = |r: u32| {
                if sparse {
                    visible[r as usize]
                } else {
                    r + start as u32
                }
            };
            let mut columns = batch.columns;
            if !sparse && sel.len() * 2 >= count {
                // Most rows kept: copy the other columns whole, keep the selection.
                for (i, c) in g.columns.iter().enumerate() {
                    if !reads(i) && wanted(i) {
                        columns[i] = c.slice(start, end);
                    }
                }
                let all = sel.len() == count;
                return Ok(Some(Batch {
                    columns,
                    rows: count,
                    sel: if all { None } else { Some(sel) },
                }));
            }
            // Few rows kept: gather every column at them, dense.
            let rows: Vec<u32> = sel.iter().map(|&r| at(r)).collect();
            let kept_all = sel.len() == batch.rows;
            for (i, c) in g.columns.iter().enumerate() {
                columns[i] = match (reads(i), wanted(i)) {
                    (_, false) => empty(i),
                    (false, true) => c.gather(&rows),
                    (true, true) if kept_all => std::mem::replace(&mut columns[i], empty(i)),
                    (true, true) => columns[i].gather(&sel),
                };
            }
            return Ok(Some(Batch::new(columns, sel.len())));
        }
    }

    fn push_key_filter(&mut self, col: usize, filter: &Arc<KeyFilter>) -> bool {
        if col >= self.table.storage.types.len() {
            return false;
        }
        self.key_filters.push(KeyFilterUse {
            col,
            filter: filter.clone(),
            tested: 0,
            kept: 0,
        });
        true
    }
}
