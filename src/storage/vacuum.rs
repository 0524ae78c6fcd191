//! The vacuum: removes row versions that no snapshot can see any more.
//!
//! An UPDATE or DELETE leaves the old version in its row group, stamped with the
//! deleting transaction (`storage::mvcc`); a rolled-back INSERT leaves versions stamped
//! aborted. Without collection, memory and scan time grow with every write. The vacuum
//! is PostgreSQL's autovacuum in miniature:
//!
//! - **When.** A session that commits deletes (or rolls back inserts) on a table whose
//!   dead-version count has crossed [`dead_rows_threshold`] asks the vacuum thread to
//!   run ([`VacuumWorker::request`]); the thread also wakes every
//!   [`VACUUM_IDLE_WAKE`] to retry work an old snapshot held back.
//! - **What.** Versions deleted by a committed transaction below the GC horizon
//!   (`TxnManager::gc_horizon`: no pinned snapshot is older), and versions whose insert
//!   rolled back. Dropped tables leave the catalog at the same horizon.
//! - **How.** One row group at a time, each step in the exclusive mode taken *without
//!   waiting* ([`vacuum_table`]): the vacuum yields to transactions, holds the lock
//!   for one group's copy (tens of microseconds), and never moves rows under a
//!   statement's row ids or a transaction's undo log. A group with garbage is emptied
//!   and its survivors appended at the tail (`Table::vacuum_group`: row ids of versions
//!   that stay never change, indexes follow the ones that move), so tables stay dense.
//!   Readers keep the `Arc`s of the groups they started with.

use std::sync::{Arc, Weak};
use std::thread;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use super::mvcc::TxnManager;
use super::table::Table;

/// Dead versions a table needs before the vacuum looks at it at all.
pub const DEAD_ROWS_MIN: usize = 1000;
/// …and, beyond that, this fraction (1/N) of its stored rows.
const DEAD_ROWS_FRACTION_DIVISOR: usize = 5;
/// How long the thread sleeps with nothing requested.
pub const VACUUM_IDLE_WAKE: Duration = Duration::from_secs(1);
/// How long the vacuum waits before trying again when a writer holds the lock.
const LOCK_RETRY_DELAY: Duration = Duration::from_millis(2);
/// Tries per table before the vacuum leaves it for the next pass.
const LOCK_TRIES_MAX: usize = 50;

/// Dead versions at which vacuuming `table` is worth it.
pub fn dead_rows_threshold(table: &Table) -> usize {
    DEAD_ROWS_MIN + table.stored_rows() / DEAD_ROWS_FRACTION_DIVISOR
}

/// What a pass over one table did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableVacuum {
    pub removed: usize,
    /// False when writers kept the lock and the table was left for a later pass.
    pub finished: bool,
}

/// Removes every version of `table` that no snapshot can see, one group per writer-lock
/// hold. Returns early (unfinished) when writers keep the lock busy.
pub fn vacuum_table(table: &Table, txns: &TxnManager) -> TableVacuum {
    let mut done = TableVacuum::default();
    let mut index = 0;
    let mut kept_dead = 0;
    let mut first_horizon = None;
    let mut tries = 0;
    loop {
        let Some(lock) = txns.try_lock_for_maintenance() else {
            tries += 1;
            if tries >= LOCK_TRIES_MAX {
                return done;
            }
            thread::sleep(LOCK_RETRY_DELAY);
            continue;
        };
        let horizon = txns.gc_horizon();
        let step = table.vacuum_group(index, horizon);
        txns.end_write(lock);
        let Some(step) = step else { break };
        first_horizon.get_or_insert(horizon);
        done.removed += step.removed;
        kept_dead += step.kept_dead;
        index += 1;
    }
    table.vacuumed(first_horizon.unwrap_or_default(), kept_dead);
    done.finished = true;
    done
}

struct Signal {
    requested: bool,
    stopping: bool,
}

struct Shared {
    signal: Mutex<Signal>,
    wake: Condvar,
}

/// The vacuum thread. Dropping the worker stops it.
pub struct VacuumWorker {
    shared: Arc<Shared>,
}

impl VacuumWorker {
    /// Starts the thread. `pass` runs one vacuum pass and returns false once the
    /// database it serves is gone.
    pub fn start(pass: impl Fn() -> bool + Send + 'static) -> VacuumWorker {
        let shared = Arc::new(Shared {
            signal: Mutex::new(Signal {
                requested: false,
                stopping: false,
            }),
            wake: Condvar::new(),
        });
        let weak: Weak<Shared> = Arc::downgrade(&shared);
        let spawned = thread::Builder::new()
            .name("kiln-vacuum".into())
            .spawn(move || worker_loop(weak, pass));
        if let Err(e) = spawned {
            tracing::warn!("could not start the vacuum thread: {e}");
        }
        VacuumWorker { shared }
    }

    /// Asks for a pass soon (a session just made garbage).
    pub fn request(&self) {
        let mut s = self.shared.signal.lock();
        if !s.requested {
            s.requested = true;
            self.shared.wake.notify_one();
        }
    }
}

impl Drop for VacuumWorker {
    fn drop(&mut self) {
        self.shared.signal.lock().stopping = true;
        self.shared.wake.notify_one();
    }
}

fn worker_loop(shared: Weak<Shared>, pass: impl Fn() -> bool) {
    loop {
        {
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let mut s = shared.signal.lock();
            if !s.requested && !s.stopping {
                shared.wake.wait_for(&mut s, VACUUM_IDLE_WAKE);
            }
            if s.stopping {
                return;
            }
            s.requested = false;
        }
        if !pass() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::vector::{Data, Vector};
    use crate::storage::index::{Index, KeyPart, row_id};
    use crate::storage::mvcc::{Snapshot, TXN_NONE};
    use crate::storage::table::GROUP_ROWS_MAX;
    use crate::types::DataType;

    fn ints(values: std::ops::Range<i32>) -> Vec<Vector> {
        vec![Vector::from_data(Data::I32(values.collect()))]
    }

    fn visible(table: &Table, snapshot: &Snapshot) -> Vec<i32> {
        let mut out = Vec::new();
        for g in table.groups() {
            let mut rows = Vec::new();
            g.visible_rows(snapshot, 0, g.rows(), &mut rows);
            if let Data::I32(v) = &g.columns[0].data {
                out.extend(rows.iter().map(|&r| v[r as usize]));
            }
        }
        out
    }

    fn live_groups(table: &Table) -> usize {
        table.groups().iter().filter(|g| g.rows() > 0).count()
    }

    #[test]
    fn index_entries_follow_moved_versions_and_leave_with_removed_ones() {
        let txns = Arc::new(TxnManager::new());
        let table = Table::new(vec![DataType::Int4]);
        let index = Arc::new(Index::new(
            1,
            vec![KeyPart {
                column: 0,
                desc: false,
                nulls_first: false,
                opclass: 0,
            }],
            false,
            false,
        ));
        table.add_index(index.clone(), 0).unwrap();
        let t1 = txns
            .begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)
            .unwrap();
        table.append(&ints(0..1000), 1000, t1);
        txns.end_write(t1);
        let t2 = txns
            .begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)
            .unwrap();
        for r in (0..1000).filter(|r| r % 3 != 0) {
            table.delete(row_id(0, r), t2);
        }
        txns.end_write(t2);
        assert_eq!(vacuum_table(&table, &txns).removed, 666);
        assert_eq!(index.len(), 334, "entries of removed versions are gone");
        let mut ids = Vec::new();
        index.all(&mut ids);
        let column = table.fetch(&ids, None).remove(0);
        let expected: Vec<i32> = (0..1000).filter(|v| v % 3 == 0).collect();
        assert!(
            matches!(&column.data, Data::I32(v) if *v == expected),
            "every entry names its value's version"
        );
    }

    #[test]
    fn removes_what_no_snapshot_sees_and_keeps_what_one_does() {
        let txns = Arc::new(TxnManager::new());
        let table = Table::new(vec![DataType::Int4]);
        let rows = 3 * GROUP_ROWS_MAX as i32;
        let t1 = txns
            .begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)
            .unwrap();
        table.append(&ints(0..rows), rows as usize, t1);
        txns.end_write(t1);
        // Delete every row but each 10th.
        let t2 = txns
            .begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)
            .unwrap();
        for g in 0..3 {
            for r in 0..GROUP_ROWS_MAX {
                if !(g * GROUP_ROWS_MAX + r).is_multiple_of(10) {
                    table.delete(row_id(g, r), t2);
                }
            }
        }
        // A reader that started before the delete committed holds the old versions.
        let (old, pin) = txns.pinned_snapshot(TXN_NONE);
        txns.end_write(t2);
        let before = visible(&table, &old);
        let held = vacuum_table(&table, &txns);
        assert!(held.finished);
        assert_eq!(held.removed, 0, "the pinned snapshot still sees them");
        assert_eq!(visible(&table, &old), before);
        drop(pin);
        let now = txns.snapshot(TXN_NONE);
        let expected: Vec<i32> = (0..rows).filter(|v| v % 10 == 0).collect();
        assert_eq!(visible(&table, &now), expected);
        let done = vacuum_table(&table, &txns);
        assert_eq!(done.removed, rows as usize - expected.len());
        assert_eq!(table.stored_rows(), expected.len());
        assert_eq!(
            live_groups(&table),
            1,
            "the survivors were packed into one group"
        );
        assert_eq!(visible(&table, &txns.snapshot(TXN_NONE)), expected);
        assert_eq!(table.dead_rows(), 0);
    }

    #[test]
    fn rolled_back_inserts_are_garbage_at_once() {
        let txns = Arc::new(TxnManager::new());
        let table = Table::new(vec![DataType::Int4]);
        let t1 = txns
            .begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)
            .unwrap();
        let ranges = table.append(&ints(0..100), 100, t1);
        for r in ranges {
            table.undo_insert(r);
        }
        txns.end_write(t1);
        let (_, _pin) = txns.pinned_snapshot(TXN_NONE);
        assert_eq!(vacuum_table(&table, &txns).removed, 100);
        assert_eq!(live_groups(&table), 0);
    }

    #[test]
    fn yields_to_a_writer() {
        let txns = Arc::new(TxnManager::new());
        let table = Table::new(vec![DataType::Int4]);
        let t1 = txns
            .begin_write(&crate::storage::mvcc::WaitLimits::UNBOUNDED)
            .unwrap();
        table.append(&ints(0..10), 10, t1);
        let done = vacuum_table(&table, &txns);
        assert!(!done.finished, "a writer holds the lock: try again later");
        txns.end_write(t1);
    }
}
