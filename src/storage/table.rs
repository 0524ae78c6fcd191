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
//! `(group index, row index)`. They are stable while the writer lock is held: only its
//! holder appends, and the vacuum ([`Table::vacuum_group`]) rewrites and merges groups
//! only while *it* holds that lock, so no statement's row ids or transaction's undo log
//! ever spans a rewrite.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

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

    /// A new group holding rows `rows` of this one, stamps included.
    fn gather(&self, rows: &[u32]) -> RowGroup {
        let stamps = |v: &Vec<AtomicU64>| {
            let mut out = Vec::with_capacity(rows.len());
            out.extend(
                rows.iter()
                    .map(|&r| AtomicU64::new(v[r as usize].load(Ordering::Relaxed))),
            );
            out
        };
        RowGroup {
            columns: self.columns.iter().map(|c| c.gather(rows)).collect(),
            xmin: stamps(&self.xmin),
            xmax: stamps(&self.xmax),
        }
    }

    /// Appends all of `other`'s rows.
    fn extend_from(&mut self, other: &RowGroup) {
        for (dst, src) in self.columns.iter_mut().zip(&other.columns) {
            dst.extend_from(src);
        }
        let copy = |v: &Vec<AtomicU64>| {
            v.iter()
                .map(|a| AtomicU64::new(a.load(Ordering::Relaxed)))
                .collect::<Vec<_>>()
        };
        self.xmin.extend(copy(&other.xmin));
        self.xmax.extend(copy(&other.xmax));
    }

    /// Appends the visible row indices in `start..end` to `out`.
    pub fn visible_rows(&self, snapshot: &Snapshot, start: usize, end: usize, out: &mut Vec<u32>) {
        // Every row is written and the cursor advances only past visible ones: no
        // branch on visibility, which is usually the same for long runs but not always.
        let base = out.len();
        out.resize(base + (end - start), 0);
        let slots = &mut out[base..];
        let mut kept = 0;
        for (i, (xmin, xmax)) in self.xmin[start..end]
            .iter()
            .zip(&self.xmax[start..end])
            .enumerate()
        {
            let visible =
                snapshot.is_visible(xmin.load(Ordering::Relaxed), xmax.load(Ordering::Relaxed));
            slots[kept] = (start + i) as u32;
            kept += visible as usize;
        }
        out.truncate(base + kept);
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
    /// Versions stamped deleted or rolled back since the vacuum last counted: what it
    /// may find to remove.
    dead: AtomicUsize,
    /// The GC horizon of the vacuum's last pass; nothing new can be removed until the
    /// horizon moves past it.
    vacuumed_at: AtomicU64,
}

/// What one vacuum step did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VacuumStep {
    /// Versions removed.
    pub removed: usize,
    /// Dead versions some snapshot can still see, kept.
    pub kept_dead: usize,
    /// The group left its index (merged into the one before, or emptied): the next
    /// group now has that index.
    pub moved: bool,
}

impl Table {
    pub fn new(types: Vec<DataType>) -> Table {
        Table {
            types,
            groups: RwLock::new(Vec::new()),
            version: AtomicU64::new(0),
            dead: AtomicUsize::new(0),
            vacuumed_at: AtomicU64::new(TXN_NONE),
        }
    }

    /// Versions stamped dead since the vacuum last counted.
    pub fn dead_rows(&self) -> usize {
        self.dead.load(Ordering::Relaxed)
    }

    /// Rows stored, dead or alive.
    pub fn stored_rows(&self) -> usize {
        self.groups.read().iter().map(|g| g.rows()).sum()
    }

    /// Number of row groups.
    pub fn group_count(&self) -> usize {
        self.groups.read().len()
    }

    /// Whether a vacuum at `horizon` could remove anything the last one could not.
    pub fn worth_vacuuming(&self, horizon: TxnId, dead_min: usize) -> bool {
        self.dead_rows() >= dead_min && horizon > self.vacuumed_at.load(Ordering::Relaxed)
    }

    /// Records a finished pass over the whole table at `horizon`.
    pub fn vacuumed(&self, horizon: TxnId, kept_dead: usize) {
        self.vacuumed_at.store(horizon, Ordering::Relaxed);
        self.dead.store(kept_dead, Ordering::Relaxed);
    }

    /// Removes from group `index` the versions no snapshot can see any more — deleted by
    /// a committed transaction below `horizon`, or inserted by one that rolled back — and
    /// merges the result into the group before it when both fit in one. Returns None
    /// past the last group.
    ///
    /// The caller must hold the writer lock (`TxnManager::try_lock_for_maintenance`):
    /// then nothing else stamps, appends or holds row ids while groups move. Readers
    /// keep scanning the `Arc`s they copied; they see the new list from their next scan.
    pub fn vacuum_group(&self, index: usize, horizon: TxnId) -> Option<VacuumStep> {
        let group = self.groups.read().get(index)?.clone();
        let mut keep: Vec<u32> = Vec::with_capacity(group.rows());
        let mut step = VacuumStep::default();
        for i in 0..group.rows() {
            let xmin = group.xmin[i].load(Ordering::Relaxed);
            let xmax = group.xmax[i].load(Ordering::Relaxed);
            let garbage = xmin == TXN_ABORTED || (xmax != TXN_NONE && xmax < horizon);
            if garbage {
                step.removed += 1;
            } else {
                step.kept_dead += usize::from(xmax != TXN_NONE);
                keep.push(i as u32);
            }
        }
        let previous = index
            .checked_sub(1)
            .and_then(|p| self.groups.read().get(p).cloned());
        let merge = previous
            .as_ref()
            .is_some_and(|p| p.rows() + keep.len() <= GROUP_ROWS_MAX);
        if step.removed == 0 && !merge {
            return Some(step);
        }
        let compacted = group.gather(&keep);
        let mut groups = self.groups.write();
        step.moved = merge || keep.is_empty();
        match (merge, previous) {
            (true, Some(previous)) => {
                let mut merged = (*previous).clone();
                merged.extend_from(&compacted);
                groups[index - 1] = Arc::new(merged);
                groups.remove(index);
            }
            _ if keep.is_empty() => {
                groups.remove(index);
            }
            _ => groups[index] = Arc::new(compacted),
        }
        Some(step)
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
        self.dead.fetch_add(1, Ordering::Relaxed);
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
        self.dead.fetch_add(range.count, Ordering::Relaxed);
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Undoes a delete of a rolled-back transaction.
    pub fn undo_delete(&self, group: usize, row: usize) {
        let groups = self.groups.read();
        if let Some(slot) = groups.get(group).and_then(|g| g.xmax.get(row)) {
            slot.store(TXN_NONE, Ordering::Relaxed);
        }
        let _ = self
            .dead
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| {
                Some(d.saturating_sub(1))
            });
        self.version.fetch_add(1, Ordering::AcqRel);
    }
}
