//! A table's rows: columnar row groups with per-version MVCC stamps.
//!
//! ```text
//!   Table ── RwLock<Vec<Arc<RowGroup>>>      (the list is swapped, never edited in place
//!                │                            while a reader holds it)
//!                ├─ RowGroup 0: [col 0 | col 1 | …] [xmin…] [xmax…]   ≤ GROUP_ROWS_MAX rows
//!                └─ RowGroup 1 (tail, appended to)
//! ```
//!
//! Readers copy the list of `Arc<RowGroup>` (a few pointer copies) and scan without
//! holding any lock. Writers (one at a time, see `mvcc`) append to the tail group with
//! `Arc::make_mut`: in place when no reader holds it, otherwise on a private copy that
//! then replaces it in the list — so a reader's groups never change length under it.
//! Deletes stamp `xmax` through an atomic, which readers of older copies never need to
//! see (the stamping transaction is invisible to them by construction). Row ids are
//! `(group index, row index)`; groups are only ever appended, so ids are stable.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLock;

use super::mvcc::{Snapshot, TXN_ABORTED, TXN_NONE, TxnId};
use crate::exec::vector::Vector;
use crate::types::DataType;

/// Rows per row group.
pub const GROUP_ROWS_MAX: usize = 8192;

pub struct RowGroup {
    pub columns: Vec<Vector>,
    pub xmin: Vec<AtomicU64>,
    pub xmax: Vec<AtomicU64>,
}

impl Clone for RowGroup {
    fn clone(&self) -> RowGroup {
        let copy = |v: &Vec<AtomicU64>| {
            let mut out = Vec::with_capacity(GROUP_ROWS_MAX);
            out.extend(v.iter().map(|a| AtomicU64::new(a.load(Ordering::Relaxed))));
            out
        };
        RowGroup {
            columns: self.columns.clone(),
            xmin: copy(&self.xmin),
            xmax: copy(&self.xmax),
        }
    }
}

impl RowGroup {
    fn new(types: &[DataType]) -> RowGroup {
        RowGroup {
            columns: types.iter().map(|&t| Vector::with_capacity(t, 0)).collect(),
            xmin: Vec::new(),
            xmax: Vec::new(),
        }
    }

    pub fn rows(&self) -> usize {
        self.xmin.len()
    }

    /// Appends the visible row indices in `start..end` to `out`.
    pub fn visible_rows(&self, snapshot: &Snapshot, start: usize, end: usize, out: &mut Vec<u32>) {
        for i in start..end {
            let xmin = self.xmin[i].load(Ordering::Relaxed);
            let xmax = self.xmax[i].load(Ordering::Relaxed);
            if snapshot.is_visible(xmin, xmax) {
                out.push(i as u32);
            }
        }
    }
}

/// A contiguous run of rows written by one append: for undo.
#[derive(Clone, Copy, Debug)]
pub struct RowRange {
    pub group: usize,
    pub start: usize,
    pub count: usize,
}

pub struct Table {
    pub types: Vec<DataType>,
    groups: RwLock<Vec<Arc<RowGroup>>>,
    /// Bumped by every change; later caches key on it.
    version: AtomicU64,
}

impl Table {
    pub fn new(types: Vec<DataType>) -> Table {
        Table {
            types,
            groups: RwLock::new(Vec::new()),
            version: AtomicU64::new(0),
        }
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// The row groups as they are now; the caller scans them without locks.
    pub fn groups(&self) -> Vec<Arc<RowGroup>> {
        self.groups.read().clone()
    }

    /// Appends `rows` rows (dense columns, in table column order) created by `txn`.
    pub fn append(&self, columns: &[Vector], rows: usize, txn: TxnId) -> Vec<RowRange> {
        let mut ranges = Vec::new();
        let mut groups = self.groups.write();
        let mut done = 0;
        while done < rows {
            let need_new = groups.last().is_none_or(|g| g.rows() >= GROUP_ROWS_MAX);
            if need_new {
                groups.push(Arc::new(RowGroup::new(&self.types)));
            }
            let group_index = groups.len() - 1;
            let tail = groups.last_mut().map(Arc::make_mut);
            let Some(tail) = tail else { break };
            let start = tail.rows();
            let take = (GROUP_ROWS_MAX - start).min(rows - done);
            for (dst, src) in tail.columns.iter_mut().zip(columns) {
                if done == 0 && take == rows {
                    dst.extend_from(src);
                } else {
                    dst.extend_from(&src.slice(done, done + take));
                }
            }
            tail.xmin.extend((0..take).map(|_| AtomicU64::new(txn)));
            tail.xmax
                .extend((0..take).map(|_| AtomicU64::new(TXN_NONE)));
            ranges.push(RowRange {
                group: group_index,
                start,
                count: take,
            });
            done += take;
        }
        self.version.fetch_add(1, Ordering::AcqRel);
        ranges
    }

    /// Stamps row `(group, row)` deleted by `txn`. Returns false if it was already deleted
    /// by a transaction this writer can see (callers skip such rows).
    pub fn delete(&self, group: usize, row: usize, txn: TxnId) -> bool {
        let groups = self.groups.read();
        let Some(g) = groups.get(group) else {
            return false;
        };
        let Some(slot) = g.xmax.get(row) else {
            return false;
        };
        let prev = slot.load(Ordering::Relaxed);
        if prev != TXN_NONE && prev != TXN_ABORTED {
            return false;
        }
        slot.store(txn, Ordering::Relaxed);
        self.version.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// Undoes an insert of a rolled-back transaction.
    pub fn undo_insert(&self, range: RowRange) {
        let groups = self.groups.read();
        if let Some(g) = groups.get(range.group) {
            for slot in g.xmin.iter().skip(range.start).take(range.count) {
                slot.store(TXN_ABORTED, Ordering::Relaxed);
            }
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Undoes a delete of a rolled-back transaction.
    pub fn undo_delete(&self, group: usize, row: usize) {
        let groups = self.groups.read();
        if let Some(slot) = groups.get(group).and_then(|g| g.xmax.get(row)) {
            slot.store(TXN_NONE, Ordering::Relaxed);
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }
}
