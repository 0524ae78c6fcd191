//! Table scan: visible rows of a snapshot, filtered through a selection vector.
//!
//! The scan walks the row groups captured when it starts (a few `Arc` clones), cuts each
//! into slices of `BATCH_ROWS_MAX` rows, computes the visible rows from the MVCC stamps,
//! and applies the pushed-down filter to that selection. Rows are never copied to be
//! filtered; the batch carries the selection.
//!
//! The first batch is only 256 rows, so a streamed result's first rows reach the client
//! after a little work rather than a whole batch's.

use std::sync::Arc;

use super::Operator;
use super::context::ExecContext;
use super::expr::{eval_filter, replay_filter};
use super::vector::{BATCH_ROWS_MAX, Batch, Data, Vector};
use crate::catalog::TableEntry;
use crate::error::{Error, Result};
use crate::sql::expr::Expr;
use crate::storage::table::RowGroup;

/// Rows in a scan's first batch.
const FIRST_BATCH_ROWS: usize = 256;

pub struct Scan {
    table: Arc<TableEntry>,
    filter: Option<Expr>,
    row_ids: bool,
    needed: Option<Vec<bool>>,
    groups: Option<Vec<Arc<RowGroup>>>,
    group: usize,
    offset: usize,
    /// An error held back by a replay of the filter (see `expr::Replayed`).
    pending: Option<Error>,
}

/// Encodes a row id as one integer: group in the high half, row in the low half.
pub fn encode_row_id(group: usize, row: usize) -> i64 {
    ((group as i64) << 32) | row as i64
}

pub fn decode_row_id(id: i64) -> (usize, usize) {
    ((id >> 32) as usize, (id & 0xffff_ffff) as usize)
}

impl Scan {
    pub fn new(
        table: Arc<TableEntry>,
        filter: Option<Expr>,
        row_ids: bool,
        needed: Option<Vec<bool>>,
    ) -> Scan {
        Scan {
            table,
            filter,
            row_ids,
            needed,
            groups: None,
            group: 0,
            offset: 0,
            pending: None,
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

impl Operator for Scan {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let groups = self
            .groups
            .get_or_insert_with(|| self.table.storage.groups());
        let mut visible = Vec::with_capacity(BATCH_ROWS_MAX);
        loop {
            ctx.check_interrupt()?;
            let Some(g) = groups.get(self.group) else {
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
            if visible.is_empty() {
                continue;
            }
            let needed = self.needed.as_deref();
            let mut columns: Vec<Vector> = g
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| match needed {
                    Some(n) if !n.get(i).copied().unwrap_or(true) => {
                        Vector::with_capacity(self.table.storage.types[i], 0)
                    }
                    _ => c.slice(start, end),
                })
                .collect();
            if self.row_ids {
                let ids = (start..end).map(|r| encode_row_id(self.group, r)).collect();
                columns.push(Vector::from_data(Data::I64(ids)));
            }
            let count = end - start;
            let mut sel: Vec<u32> = visible.iter().map(|&r| r - start as u32).collect();
            let batch = Batch {
                columns,
                rows: count,
                sel: None,
            };
            if let Some(f) = &self.filter {
                sel = match eval_filter(f, &batch, &sel, ctx) {
                    Ok(kept) => kept,
                    Err(e) => {
                        let replayed = replay_filter(f, &batch, &sel, ctx, e)?;
                        if replayed.ok.is_empty() {
                            return Err(replayed.error);
                        }
                        self.pending = Some(replayed.error);
                        replayed.ok
                    }
                };
                if sel.is_empty() {
                    continue;
                }
            }
            let all = sel.len() == count;
            return Ok(Some(Batch {
                sel: if all { None } else { Some(sel) },
                ..batch
            }));
        }
    }
}
