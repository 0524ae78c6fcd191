//! A table's rows: columnar row groups with per-version MVCC stamps.
//!
//! ```text
//!   Table ── RwLock<Vec<Arc<RowGroup>>>      (the list is swapped, never edited in place
//!                │                            while a reader holds it)
//!                ├─ RowGroup 0: [col 0 | col 1 | …] [stamp chunks: xmin, xmax, next]
//!                └─ RowGroup 1 (tail, appended to)
//! ```
//!
//! Readers copy the list of `Arc<RowGroup>` (a few pointer copies) and scan without
//! holding any lock. Writers append to the tail group with `Arc::make_mut`: in place
//! when no reader holds it, otherwise on a private copy that then replaces it in the
//! list — so a reader's groups never change length under it. Deletes stamp `xmax`
//! through an atomic, which readers of older copies never need to see (the stamping
//! transaction is invisible to them by construction).
//!
//! ## Row ids are stable
//!
//! A version's [`RowId`] is `(group id, slot)`, and a group's id is its position in the
//! list, which never changes: the vacuum ([`Table::vacuum_group`]) never removes a group
//! from the list or shifts one. It empties a group whose versions are all garbage (the
//! slot stays, as an empty group), and rewrites a group with some garbage by appending
//! its surviving versions, stamps included, at the tail (new row ids) and emptying the
//! old group. Indexes ([`super::index`]) name versions by row id: the vacuum removes the
//! entries of the versions it frees and moves those of the versions it relocates, all
//! under the table's reorganization lock ([`Table::reorg`]), which index scans hold
//! while they turn entries into rows. Undo logs and statements also hold row ids; the
//! vacuum runs only in the exclusive mode (no transaction writing), so none is held
//! while versions move.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use parking_lot::RwLock;

use super::index::{Index, Keys, RowId, row_id, split_row_id};
use super::mvcc::{LOCK_ONLY, Snapshot, TXN_ABORTED, TXN_NONE, TxnId, deleter};
use crate::exec::vector::Vector;
use crate::types::DataType;

/// Rows per row group.
pub const GROUP_ROWS_MAX: usize = 8192;

/// Rows per chunk of stamps.
const STAMP_CHUNK_ROWS: usize = 256;
/// `next` of a version nobody replaced.
pub const NO_NEXT: u64 = u64::MAX;

/// The MVCC stamps of 256 consecutive versions: who created each, who deleted (or
/// locked) it, and the row id of the version that replaced it.
pub struct StampChunk {
    xmin: [AtomicU64; STAMP_CHUNK_ROWS],
    xmax: [AtomicU64; STAMP_CHUNK_ROWS],
    next: [AtomicU64; STAMP_CHUNK_ROWS],
}

impl StampChunk {
    fn new() -> Arc<StampChunk> {
        Arc::new(StampChunk {
            xmin: std::array::from_fn(|_| AtomicU64::new(TXN_ABORTED)),
            xmax: std::array::from_fn(|_| AtomicU64::new(TXN_NONE)),
            next: std::array::from_fn(|_| AtomicU64::new(NO_NEXT)),
        })
    }
}

/// Up to [`GROUP_ROWS_MAX`] row versions: column vectors and stamps.
///
/// The stamps live in chunks shared by every copy of the group (`Arc`s), so a stamp
/// written through one copy — a delete, a row lock — is seen through all: appending to
/// a group a reader holds copies its columns (`Arc::make_mut`), never its stamps.
#[derive(Clone)]
pub struct RowGroup {
    pub columns: Vec<Vector>,
    rows: usize,
    stamps: Vec<Arc<StampChunk>>,
}

impl RowGroup {
    fn new(types: &[DataType]) -> RowGroup {
        RowGroup {
            columns: types.iter().map(|&t| Vector::with_capacity(t, 0)).collect(),
            rows: 0,
            stamps: Vec::new(),
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    #[inline]
    pub fn xmin(&self, row: usize) -> &AtomicU64 {
        &self.stamps[row / STAMP_CHUNK_ROWS].xmin[row % STAMP_CHUNK_ROWS]
    }

    #[inline]
    pub fn xmax(&self, row: usize) -> &AtomicU64 {
        &self.stamps[row / STAMP_CHUNK_ROWS].xmax[row % STAMP_CHUNK_ROWS]
    }

    #[inline]
    pub fn next(&self, row: usize) -> &AtomicU64 {
        &self.stamps[row / STAMP_CHUNK_ROWS].next[row % STAMP_CHUNK_ROWS]
    }

    /// `(xmin, xmax)` of `row`.
    #[inline]
    pub fn stamps(&self, row: usize) -> (TxnId, TxnId) {
        (
            self.xmin(row).load(Ordering::Acquire),
            self.xmax(row).load(Ordering::Acquire),
        )
    }

    /// Makes room for `count` more versions' stamps, created by `xmin`, deleted by
    /// `xmax`, and counts them in.
    fn push_stamps(&mut self, count: usize, xmin: TxnId, xmax: TxnId) {
        let end = self.rows + count;
        while self.stamps.len() * STAMP_CHUNK_ROWS < end {
            self.stamps.push(StampChunk::new());
        }
        for r in self.rows..end {
            self.xmax(r).store(xmax, Ordering::Relaxed);
            self.next(r).store(NO_NEXT, Ordering::Relaxed);
            // xmin last: a version becomes a candidate once its creator is set.
            self.xmin(r).store(xmin, Ordering::Release);
        }
        self.rows = end;
    }

    /// Appends rows `start..start + count` of `other`, stamps included.
    fn extend_from_rows(&mut self, other: &RowGroup, start: usize, count: usize) {
        for (dst, src) in self.columns.iter_mut().zip(&other.columns) {
            if start == 0 && count == src.len() {
                dst.extend_from(src);
            } else {
                dst.extend_from(&src.slice(start, start + count));
            }
        }
        let first = self.rows;
        self.push_stamps(count, TXN_NONE, TXN_NONE);
        for k in 0..count {
            let (xmin, xmax) = other.stamps(start + k);
            self.xmin(first + k).store(xmin, Ordering::Relaxed);
            self.xmax(first + k).store(xmax, Ordering::Relaxed);
        }
    }

    /// Appends the visible row indices in `start..end` to `out`.
    pub fn visible_rows(&self, snapshot: &Snapshot, start: usize, end: usize, out: &mut Vec<u32>) {
        // Every row is written and the cursor advances only past visible ones: no
        // branch on visibility, which is usually the same for long runs but not always.
        let base = out.len();
        out.resize(base + (end - start), 0);
        let slots = &mut out[base..];
        let mut kept = 0;
        let mut row = start;
        while row < end {
            let chunk = &self.stamps[row / STAMP_CHUNK_ROWS];
            let from = row % STAMP_CHUNK_ROWS;
            let to = (from + (end - row)).min(STAMP_CHUNK_ROWS);
            for k in from..to {
                let visible = snapshot.is_visible(
                    chunk.xmin[k].load(Ordering::Acquire),
                    chunk.xmax[k].load(Ordering::Acquire),
                );
                slots[kept] = (row + k - from) as u32;
                kept += visible as usize;
            }
            row += to - from;
        }
        out.truncate(base + kept);
    }
}

/// What an attempt to claim a version for deletion or update found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Its `xmax` is now the claimant's.
    Locked,
    /// The claimant had claimed it already (updated or deleted it earlier).
    Ours,
    /// Another transaction in progress holds it: wait for that one, then try again.
    Busy(TxnId),
    /// A committed transaction deleted or replaced it (`next` says by what).
    Gone(TxnId),
    /// No such version.
    Missing,
}

/// `(index id, row, other version)`: a unique index already held row `row`'s key in
/// version `other` when the row's entry went in (see `Index::insert_probing`).
pub type Probe = (u32, usize, RowId);

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
    /// Every index over the table, committed or not: all are kept complete.
    indexes: RwLock<Vec<Arc<Index>>>,
    /// Held shared by index scans while they turn entries into rows, exclusively by the
    /// vacuum while it relocates versions and their entries.
    reorg: RwLock<()>,
    /// Bumped by every change; later caches key on it.
    version: AtomicU64,
    /// Versions stamped deleted or rolled back since the vacuum last counted: what it
    /// may find to remove.
    dead: AtomicUsize,
    /// Commits that changed the table and went to the redo log (`durable`): a
    /// checkpoint's file of the table stays valid while this stays.
    logged: AtomicU64,
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
}

impl Table {
    pub fn new(types: Vec<DataType>) -> Table {
        Table {
            types,
            groups: RwLock::new(Vec::new()),
            indexes: RwLock::new(Vec::new()),
            reorg: RwLock::new(()),
            version: AtomicU64::new(0),
            dead: AtomicUsize::new(0),
            logged: AtomicU64::new(0),
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

    /// Number of row groups (emptied ones included).
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

    /// The lock index scans hold while they resolve row ids (see the module doc).
    pub fn reorg(&self) -> parking_lot::RwLockReadGuard<'_, ()> {
        self.reorg.read()
    }

    /// Removes from group `index` the versions no snapshot can see any more — deleted by
    /// a committed transaction below `horizon`, or inserted by one that rolled back —
    /// with their index entries. Survivors of a group with garbage move to the tail
    /// (their entries follow them) and the group is left empty; row ids of versions
    /// that stay never change. Returns None past the last group.
    ///
    /// The caller must hold the exclusive mode (`TxnManager::try_lock_for_maintenance`):
    /// then nothing else stamps, appends or holds row ids while versions move. Readers
    /// keep scanning the `Arc`s they copied; they see the new list from their next scan.
    pub fn vacuum_group(&self, index: usize, horizon: TxnId) -> Option<VacuumStep> {
        let group = self.groups.read().get(index)?.clone();
        let mut keep: Vec<u32> = Vec::new();
        let mut garbage: Vec<usize> = Vec::new();
        let mut step = VacuumStep::default();
        for i in 0..group.rows() {
            let (xmin, xmax) = group.stamps(i);
            let xmax = deleter(xmax);
            if xmin == TXN_ABORTED || (xmax != TXN_NONE && xmax < horizon) {
                garbage.push(i);
            } else {
                step.kept_dead += usize::from(xmax != TXN_NONE);
                keep.push(i as u32);
            }
        }
        step.removed = garbage.len();
        if garbage.is_empty() {
            return Some(step);
        }
        let indexes = self.indexes.read().clone();
        let _reorg = self.reorg.write();
        let keys: Vec<Keys> = indexes
            .iter()
            .map(|ix| ix.keys_of_taken(&group.columns, group.rows()))
            .collect();
        for (ix, keys) in indexes.iter().zip(&keys) {
            ix.remove(keys, garbage.iter().map(|&r| (r, row_id(index, r))));
        }
        let mut groups = self.groups.write();
        let mut moves: Vec<(usize, RowId)> = Vec::with_capacity(keep.len());
        if !keep.is_empty() {
            if groups.len() == index + 1 {
                // The group is the tail: survivors go to a fresh one after it.
                groups.push(Arc::new(RowGroup::new(&self.types)));
            }
            // Runs of consecutive survivors are copied a slice at a time.
            let mut run_start = 0;
            while run_start < keep.len() {
                let mut run_end = run_start + 1;
                while run_end < keep.len() && keep[run_end] == keep[run_end - 1] + 1 {
                    run_end += 1;
                }
                let mut from = keep[run_start] as usize;
                let mut left = run_end - run_start;
                while left > 0 {
                    if groups.last().is_none_or(|g| g.rows() >= GROUP_ROWS_MAX) {
                        groups.push(Arc::new(RowGroup::new(&self.types)));
                    }
                    let tail_index = groups.len() - 1;
                    let Some(tail) = groups.last_mut().map(Arc::make_mut) else {
                        break;
                    };
                    let at = tail.rows();
                    let take = (GROUP_ROWS_MAX - at).min(left);
                    tail.extend_from_rows(&group, from, take);
                    moves.extend((0..take).map(|k| (from + k, row_id(tail_index, at + k))));
                    from += take;
                    left -= take;
                }
                run_start = run_end;
            }
        }
        groups[index] = Arc::new(RowGroup::new(&self.types));
        drop(groups);
        for (ix, keys) in indexes.iter().zip(&keys) {
            ix.relocate(keys, moves.iter().map(|&(r, to)| (r, row_id(index, r), to)));
        }
        self.version.fetch_add(1, Ordering::AcqRel);
        Some(step)
    }

    /// Bytes of memory the stored versions take: column data and stamps
    /// (pg_relation_size's answer for kiln).
    pub fn bytes(&self) -> u64 {
        self.groups()
            .iter()
            .map(|g| {
                let stamps = (g.rows() as u64).div_ceil(STAMP_CHUNK_ROWS as u64)
                    * (STAMP_CHUNK_ROWS as u64 * 24);
                stamps + g.columns.iter().map(|c| c.heap_bytes() as u64).sum::<u64>()
            })
            .sum()
    }

    /// Commits that changed the table, as the redo log counts them.
    pub fn logged(&self) -> u64 {
        self.logged.load(Ordering::Acquire)
    }

    /// A commit that changed the table was logged.
    pub fn note_logged(&self) {
        self.logged.fetch_add(1, Ordering::AcqRel);
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// The row groups as they are now; the caller scans them without locks.
    pub fn groups(&self) -> Vec<Arc<RowGroup>> {
        self.groups.read().clone()
    }

    /// The indexes kept over the table (the catalog says which a snapshot sees).
    pub fn indexes(&self) -> Vec<Arc<Index>> {
        self.indexes.read().clone()
    }

    /// A new table holding this one's live versions — those inserted by a transaction
    /// that did not roll back and deleted by none — with columns of `types` that
    /// `convert` makes from a group's columns at the live rows it is given (ALTER
    /// TABLE's rewrite). Row ids change; no index comes along. Versions deleted by a
    /// committed transaction are left behind: only snapshots taken after the rewriting
    /// transaction commits read the new table, and none of them sees those versions.
    /// The caller holds the exclusive mode.
    pub fn rewrite(
        &self,
        types: Vec<DataType>,
        mut convert: impl FnMut(&RowGroup, &[u32]) -> crate::error::Result<Vec<Vector>>,
    ) -> crate::error::Result<Table> {
        let out = Table::new(types);
        for g in self.groups() {
            let live: Vec<u32> = (0..g.rows())
                .filter(|&r| {
                    let (xmin, xmax) = g.stamps(r);
                    xmin != TXN_ABORTED && deleter(xmax) == TXN_NONE
                })
                .map(|r| r as u32)
                .collect();
            if live.is_empty() {
                continue;
            }
            let columns = convert(&g, &live)?;
            let mut group = RowGroup {
                columns,
                rows: 0,
                stamps: Vec::new(),
            };
            group.push_stamps(live.len(), TXN_NONE, TXN_NONE);
            for (k, &r) in live.iter().enumerate() {
                group
                    .xmin(k)
                    .store(g.stamps(r as usize).0, Ordering::Relaxed);
            }
            out.groups.write().push(Arc::new(group));
        }
        Ok(out)
    }

    /// The live versions of each group (as [`Table::rewrite`] keeps them): for
    /// validating a new constraint against the rows a table holds.
    pub fn live_rows(&self) -> Vec<(Arc<RowGroup>, Vec<u32>)> {
        self.groups()
            .into_iter()
            .map(|g| {
                let live = (0..g.rows())
                    .filter(|&r| {
                        let (xmin, xmax) = g.stamps(r);
                        xmin != TXN_ABORTED && deleter(xmax) == TXN_NONE
                    })
                    .map(|r| r as u32)
                    .collect();
                (g, live)
            })
            .collect()
    }

    /// Adds `index` with an entry for every version stored but those dead below
    /// `horizon` (which no snapshot sees, and the vacuum will free: PostgreSQL's
    /// build skips them too, so an expression is not computed for them). The caller
    /// holds the exclusive mode, so no version moves or arrives meanwhile. Fails,
    /// adding nothing, if a key expression fails on some version.
    pub fn add_index(&self, index: Arc<Index>, horizon: TxnId) -> crate::error::Result<()> {
        let groups = self.groups();
        let mut admitted = Vec::with_capacity(groups.len());
        let mut keys = Vec::with_capacity(groups.len());
        for group in &groups {
            let taken = index.admits(&group.columns, group.rows());
            let mut a: Vec<bool> = taken.unwrap_or_else(|| vec![true; group.rows()]);
            for (r, keep) in a.iter_mut().enumerate() {
                let (xmin, xmax) = group.stamps(r);
                let xmax = deleter(xmax);
                if xmin == TXN_ABORTED || (xmax != TXN_NONE && xmax < horizon) {
                    *keep = false;
                }
            }
            keys.push(index.keys(&group.columns, group.rows(), Some(&a))?);
            admitted.push(Some(a));
        }
        for (g, group) in groups.iter().enumerate() {
            let admitted = &admitted[g];
            index.insert(
                &keys[g],
                (0..group.rows())
                    .filter(|&r| admitted.as_ref().is_none_or(|a| a[r]))
                    .map(|r| (r, row_id(g, r))),
            );
        }
        self.indexes.write().push(index);
        Ok(())
    }

    /// Stops keeping index `id`.
    pub fn remove_index(&self, id: u32) {
        self.indexes.write().retain(|ix| ix.id != id);
    }

    /// `(xmin, xmax)` of version `id`, if it exists.
    pub fn stamps(&self, id: RowId) -> Option<(TxnId, TxnId)> {
        let (g, r) = split_row_id(id);
        let groups = self.groups.read();
        let group = groups.get(g)?;
        (r < group.rows()).then(|| group.stamps(r))
    }

    /// Keeps the row ids in `ids` whose versions `snapshot` sees.
    pub fn visible(&self, ids: &mut Vec<RowId>, snapshot: &Snapshot) {
        let groups = self.groups.read();
        ids.retain(|&id| {
            let (g, r) = split_row_id(id);
            groups.get(g).is_some_and(|group| {
                r < group.rows() && {
                    let (xmin, xmax) = group.stamps(r);
                    snapshot.is_visible(xmin, xmax)
                }
            })
        });
    }

    /// Columns `columns` (None: all; the others stay empty) of versions `ids`, in order.
    pub fn fetch(&self, ids: &[RowId], columns: Option<&[bool]>) -> Vec<Vector> {
        let groups = self.groups.read();
        (0..self.types.len())
            .map(|c| {
                if columns.is_some_and(|n| !n.get(c).copied().unwrap_or(false)) {
                    return Vector::with_capacity(self.types[c], 0);
                }
                let sources: Vec<&Vector> = groups.iter().map(|g| &g.columns[c]).collect();
                if sources.is_empty() {
                    return Vector::with_capacity(self.types[c], 0);
                }
                Vector::gather_refs(&sources, ids)
            })
            .collect()
    }

    /// Appends `rows` rows created by `txn` as a group of their own, taking the columns
    /// without copying them (recovery's load of a checkpoint: at most a group's worth,
    /// and no index yet). With indexes, or too many rows, it is [`Table::append`].
    pub fn append_owned(&self, columns: Vec<Vector>, rows: usize, txn: TxnId) {
        let plain = rows <= GROUP_ROWS_MAX
            && self.indexes.read().is_empty()
            && columns.len() == self.types.len()
            && columns.iter().all(|c| c.len() == rows);
        if !plain {
            self.append(&columns, rows, txn);
            return;
        }
        let mut group = RowGroup {
            columns,
            rows: 0,
            stamps: Vec::new(),
        };
        group.push_stamps(rows, txn, TXN_NONE);
        self.groups.write().push(Arc::new(group));
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Appends `rows` rows (dense columns, in table column order) created by `txn`, with
    /// their index entries. Returns the runs of row ids they got, in row order.
    /// (Recovery's replay and tests: the rows were accepted once, their key
    /// expressions cannot fail.)
    pub fn append(&self, columns: &[Vector], rows: usize, txn: TxnId) -> Vec<RowRange> {
        self.append_probing(columns, rows, txn)
            .map(|(ranges, _)| ranges)
            .unwrap_or_default()
    }

    /// [`Table::append`], also returning what each unique index held already for each
    /// new row's key: `(index id, row, other version)` (see [`Index::insert_probing`]).
    pub fn append_probing(
        &self,
        columns: &[Vector],
        rows: usize,
        txn: TxnId,
    ) -> crate::error::Result<(Vec<RowRange>, Vec<Probe>)> {
        // Each index's keys first: a key expression that fails fails the append
        // before it stores anything. (Indexes come and go only in the exclusive mode,
        // which no appender holds alongside.)
        let indexes = self.indexes.read().clone();
        let mut taken = Vec::with_capacity(indexes.len());
        for ix in &indexes {
            let admitted = ix.admits(columns, rows);
            let keys = ix.keys(columns, rows, admitted.as_deref())?;
            taken.push((admitted, keys));
        }
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
            tail.push_stamps(take, txn, TXN_NONE);
            ranges.push(RowRange {
                group: group_index,
                start,
                count: take,
            });
            done += take;
        }
        drop(groups);
        let mut probes = Vec::new();
        let mut found = Vec::new();
        for (ix, (admitted, keys)) in indexes.iter().zip(&taken) {
            let ids = range_ids(&ranges).filter(|&(r, _)| admitted.as_ref().is_none_or(|a| a[r]));
            if ix.unique {
                found.clear();
                ix.insert_probing(keys, ids, &mut found);
                probes.extend(found.iter().map(|&(row, other)| (ix.id, row, other)));
            } else {
                ix.insert(keys, ids);
            }
        }
        self.version.fetch_add(1, Ordering::AcqRel);
        Ok((ranges, probes))
    }

    /// Whether version `id` is garbage below `horizon`: rolled back, or deleted by a
    /// transaction every snapshot (present and future) sees as committed.
    pub fn is_dead(&self, id: RowId, horizon: TxnId) -> bool {
        self.stamps(id).is_some_and(|(xmin, xmax)| {
            let xmax = deleter(xmax);
            xmin == TXN_ABORTED || (xmax != TXN_NONE && xmax < horizon)
        })
    }

    /// Claims version `id` for `txn` by compare-and-swap of its `xmax` (PostgreSQL's row
    /// lock). `is_active` tells an in-progress holder from a committed one: a holder
    /// that rolled back has cleared `xmax` before it stops being active.
    pub fn claim(&self, id: RowId, txn: TxnId, is_active: impl Fn(TxnId) -> bool) -> Claim {
        let (group, row) = split_row_id(id);
        let groups = self.groups.read();
        let Some(g) = groups.get(group) else {
            return Claim::Missing;
        };
        if row >= g.rows() {
            return Claim::Missing;
        }
        Self::claim_slot(g.xmax(row), txn, txn, &is_active, || {
            self.version.fetch_add(1, Ordering::AcqRel);
            self.dead.fetch_add(1, Ordering::Relaxed);
        })
    }

    /// Locks version `id` for `txn` without deleting it (SELECT … FOR UPDATE).
    pub fn lock_row(&self, id: RowId, txn: TxnId, is_active: impl Fn(TxnId) -> bool) -> Claim {
        let (group, row) = split_row_id(id);
        let groups = self.groups.read();
        let Some(g) = groups.get(group) else {
            return Claim::Missing;
        };
        if row >= g.rows() {
            return Claim::Missing;
        }
        Self::claim_slot(g.xmax(row), txn, txn | LOCK_ONLY, &is_active, || {})
    }

    /// Sets `slot` (an `xmax`) to `stamp` for `txn` by compare-and-swap: over nothing,
    /// over a stale lock, or over `txn`'s own lock. A lock or delete of another active
    /// transaction is `Busy`; a committed delete is `Gone`.
    fn claim_slot(
        slot: &AtomicU64,
        txn: TxnId,
        stamp: TxnId,
        is_active: &impl Fn(TxnId) -> bool,
        on_delete: impl Fn(),
    ) -> Claim {
        loop {
            let current = slot.load(Ordering::Acquire);
            let holder = current & !LOCK_ONLY;
            let locked_only = current & LOCK_ONLY != 0;
            if current == txn || (locked_only && holder == txn && stamp == current) {
                return Claim::Ours;
            }
            let free =
                current == TXN_NONE || (locked_only && (holder == txn || !is_active(holder)));
            if free {
                if slot
                    .compare_exchange(current, stamp, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    if stamp & LOCK_ONLY == 0 {
                        on_delete();
                    }
                    return Claim::Locked;
                }
                continue;
            }
            if is_active(holder) {
                return Claim::Busy(holder);
            }
            if slot.load(Ordering::Acquire) == current {
                return Claim::Gone(holder);
            }
        }
    }

    /// Gives back a claim that changed nothing (a re-checked row no longer qualified).
    pub fn release(&self, id: RowId, txn: TxnId) {
        let (group, row) = split_row_id(id);
        let groups = self.groups.read();
        if let Some(g) = groups.get(group)
            && row < g.rows()
            && g.xmax(row)
                .compare_exchange(txn, TXN_NONE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            let _ = self
                .dead
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| {
                    Some(d.saturating_sub(1))
                });
        }
    }

    /// The version that replaced `id`, if an UPDATE did.
    pub fn next_version(&self, id: RowId) -> Option<RowId> {
        let (group, row) = split_row_id(id);
        let groups = self.groups.read();
        let g = groups.get(group)?;
        if row >= g.rows() {
            return None;
        }
        let next = g.next(row).load(Ordering::Acquire);
        (next != NO_NEXT).then_some(next)
    }

    /// Links version `id` to `next`, the version an UPDATE made of it.
    pub fn set_next(&self, id: RowId, next: RowId) {
        let (group, row) = split_row_id(id);
        let groups = self.groups.read();
        if let Some(g) = groups.get(group)
            && row < g.rows()
        {
            g.next(row).store(next, Ordering::Release);
        }
    }

    /// Stamps version `id` deleted by `txn`. Returns false if it was already deleted by
    /// a transaction this writer can see (callers skip such rows).
    pub fn delete(&self, id: RowId, txn: TxnId) -> bool {
        let (group, row) = split_row_id(id);
        let groups = self.groups.read();
        let Some(g) = groups.get(group) else {
            return false;
        };
        if row >= g.rows() {
            return false;
        }
        let slot = g.xmax(row);
        let prev = slot.load(Ordering::Acquire);
        if prev != TXN_NONE && prev != TXN_ABORTED {
            return false;
        }
        slot.store(txn, Ordering::Release);
        self.version.fetch_add(1, Ordering::AcqRel);
        self.dead.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Undoes an insert of a rolled-back transaction. Its index entries stay until the
    /// vacuum removes the versions.
    pub fn undo_insert(&self, range: RowRange) {
        let groups = self.groups.read();
        if let Some(g) = groups.get(range.group) {
            for r in range.start..(range.start + range.count).min(g.rows()) {
                g.xmin(r).store(TXN_ABORTED, Ordering::Release);
            }
        }
        self.dead.fetch_add(range.count, Ordering::Relaxed);
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Undoes a delete of a rolled-back transaction (and forgets the successor link).
    pub fn undo_delete(&self, id: RowId) {
        let (group, row) = split_row_id(id);
        let groups = self.groups.read();
        if let Some(g) = groups.get(group)
            && row < g.rows()
        {
            g.next(row).store(NO_NEXT, Ordering::Relaxed);
            g.xmax(row).store(TXN_NONE, Ordering::Release);
        }
        let _ = self
            .dead
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| {
                Some(d.saturating_sub(1))
            });
        self.version.fetch_add(1, Ordering::AcqRel);
    }
}

/// `(row of the appended batch, row id)` for each row an append wrote.
pub fn range_ids(ranges: &[RowRange]) -> impl Iterator<Item = (usize, RowId)> + '_ {
    let mut row = 0;
    ranges.iter().flat_map(move |r| {
        let first = row;
        row += r.count;
        (0..r.count).map(move |k| (first + k, row_id(r.group, r.start + k)))
    })
}
