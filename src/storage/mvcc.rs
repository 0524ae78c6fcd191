//! Transactions, snapshots and visibility.
//!
//! ## The scheme
//!
//! kiln keeps PostgreSQL's *append-new-version* design rather than MySQL's undo-log
//! design (see `seeds/database-internals-blog.txt`): an UPDATE stamps the old version's
//! `xmax` and appends a new version, so a reader never follows undo chains and never
//! waits. The price PostgreSQL pays — dead versions in the heap until VACUUM — is cheaper
//! in memory than on disk, and a later garbage collector reclaims them.
//!
//! ```text
//!   row version: [ column values … | xmin | xmax ]
//!   visible to snapshot S  ⇔  created by a txn S sees  ∧ ¬ deleted by a txn S sees
//!   S sees txn T           ⇔  T = S.own  ∨ (T < S.horizon ∧ T ≠ S.active_writer)
//! ```
//!
//! **One writer at a time** (DESIGN.md, first version): a transaction takes the writer
//! lock at its first write and holds it until COMMIT or ROLLBACK; other writers wait,
//! bounded by `lock_timeout` (`55P03`). So at most one transaction is ever in progress
//! with writes, and a snapshot is just `(horizon, active_writer)`: ids below the horizon
//! other than the active writer are committed — because a rollback *physically undoes*
//! its stamps (inserted rows get `xmin = TXN_ABORTED`, deleted rows get their `xmax`
//! cleared) before it releases the lock. No commit log is needed.
//!
//! Readers take no lock at all beyond a short mutex to copy the snapshot. Within a
//! transaction each statement takes a fresh snapshot (READ COMMITTED); a writing statement
//! takes its snapshot *after* acquiring the writer lock, so an UPDATE that waited for
//! another writer sees that writer's committed rows, as PostgreSQL's re-check would.
//!
//! ## Garbage: what no snapshot can see
//!
//! A running statement *pins* its snapshot ([`SnapshotPin`]) for as long as it may read
//! (a portal keeps it until closed). The pin records the snapshot's [`Snapshot::xmin`]:
//! every transaction below it that is not aborted is, for that snapshot, committed. So a
//! version deleted by a committed transaction below the smallest pinned `xmin` — the
//! [`TxnManager::gc_horizon`] — is invisible to every running statement and to every
//! later one, and may be removed (`storage::vacuum`). Versions whose insert rolled back
//! (`xmin = TXN_ABORTED`) are garbage at once. The vacuum rewrites row groups only
//! while it holds the writer lock ([`TxnManager::try_lock_for_maintenance`]), so no
//! transaction's row ids or undo log can point into a group it rewrites.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};

pub type TxnId = u64;

/// `xmax` of a version nobody deleted.
pub const TXN_NONE: TxnId = 0;
/// `xmin` of a version whose inserting transaction rolled back: visible to no one.
pub const TXN_ABORTED: TxnId = u64::MAX;
/// Transaction ids start here (0 and MAX are reserved).
const TXN_FIRST: TxnId = 1;

/// What a statement can see.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    /// Transactions with ids at or above this had not started when the snapshot was taken.
    pub horizon: TxnId,
    /// The writer in progress when the snapshot was taken (or `TXN_NONE`).
    pub active_writer: TxnId,
    /// The snapshot owner's own writing transaction (or `TXN_NONE`).
    pub own: TxnId,
}

impl Snapshot {
    #[inline]
    pub fn sees(&self, txn: TxnId) -> bool {
        txn == self.own && txn != TXN_NONE || (txn < self.horizon && txn != self.active_writer)
    }

    /// Whether a version stamped `(xmin, xmax)` is visible.
    #[inline]
    pub fn is_visible(&self, xmin: TxnId, xmax: TxnId) -> bool {
        xmin != TXN_ABORTED && self.sees(xmin) && (xmax == TXN_NONE || !self.sees(xmax))
    }

    /// The oldest transaction this snapshot may not see as committed: every id below it
    /// (except aborted stamps) is, for this snapshot, a committed transaction.
    pub fn xmin(&self) -> TxnId {
        if self.active_writer == TXN_NONE {
            self.horizon
        } else {
            self.active_writer.min(self.horizon)
        }
    }
}

struct State {
    next_txn: TxnId,
    /// Holder of the writer lock.
    writer: TxnId,
    /// `xmin` of every pinned snapshot, with how many pins hold it.
    pinned: BTreeMap<TxnId, usize>,
}

/// Keeps the versions a running statement's snapshot can see from being collected;
/// released when dropped.
pub struct SnapshotPin {
    txns: Arc<TxnManager>,
    xmin: TxnId,
}

impl Drop for SnapshotPin {
    fn drop(&mut self) {
        let mut s = self.txns.state.lock();
        if let Some(n) = s.pinned.get_mut(&self.xmin) {
            *n -= 1;
            if *n == 0 {
                s.pinned.remove(&self.xmin);
            }
        }
    }
}

/// Hands out transaction ids and snapshots, and owns the writer lock.
pub struct TxnManager {
    state: Mutex<State>,
    writer_released: Condvar,
}

impl Default for TxnManager {
    fn default() -> Self {
        TxnManager::new()
    }
}

impl TxnManager {
    pub fn new() -> TxnManager {
        TxnManager {
            state: Mutex::new(State {
                next_txn: TXN_FIRST,
                writer: TXN_NONE,
                pinned: BTreeMap::new(),
            }),
            writer_released: Condvar::new(),
        }
    }

    pub fn snapshot(&self, own: TxnId) -> Snapshot {
        let s = self.state.lock();
        Self::snapshot_of(&s, own)
    }

    fn snapshot_of(s: &State, own: TxnId) -> Snapshot {
        Snapshot {
            horizon: s.next_txn,
            active_writer: if s.writer == own { TXN_NONE } else { s.writer },
            own,
        }
    }

    /// A snapshot for a statement that will read through it, pinned until the pin drops.
    pub fn pinned_snapshot(self: &Arc<Self>, own: TxnId) -> (Snapshot, SnapshotPin) {
        let mut s = self.state.lock();
        let snapshot = Self::snapshot_of(&s, own);
        let xmin = snapshot.xmin();
        *s.pinned.entry(xmin).or_insert(0) += 1;
        let pin = SnapshotPin {
            txns: self.clone(),
            xmin,
        };
        (snapshot, pin)
    }

    /// Versions deleted by a committed transaction below this id are invisible to every
    /// pinned snapshot and to every snapshot still to come.
    pub fn gc_horizon(&self) -> TxnId {
        let s = self.state.lock();
        let oldest_pin = s.pinned.keys().next().copied().unwrap_or(s.next_txn);
        let horizon = oldest_pin.min(s.next_txn);
        if s.writer == TXN_NONE {
            horizon
        } else {
            horizon.min(s.writer)
        }
    }

    /// Takes the writer lock for maintenance if nobody holds it, without waiting: the
    /// vacuum yields to transactions. Release it with [`TxnManager::end_write`].
    pub fn try_lock_for_maintenance(&self) -> Option<TxnId> {
        let mut s = self.state.lock();
        if s.writer != TXN_NONE {
            return None;
        }
        let txn = s.next_txn;
        s.next_txn += 1;
        s.writer = txn;
        Some(txn)
    }

    /// Takes the writer lock and a new transaction id. Waits at most `timeout` (None:
    /// forever), polling `interrupted` so that cancel and statement_timeout still work.
    pub fn begin_write(
        &self,
        timeout: Option<Duration>,
        interrupted: &dyn Fn() -> Result<()>,
    ) -> Result<TxnId> {
        let start = Instant::now();
        let mut s = self.state.lock();
        while s.writer != TXN_NONE {
            let slice = Duration::from_millis(20);
            self.writer_released.wait_for(&mut s, slice);
            if s.writer == TXN_NONE {
                break;
            }
            parking_lot::MutexGuard::unlocked(&mut s, interrupted)?;
            if let Some(limit) = timeout
                && start.elapsed() >= limit
            {
                return Err(Error::lock_timeout());
            }
        }
        let txn = s.next_txn;
        s.next_txn += 1;
        s.writer = txn;
        Ok(txn)
    }

    /// Ends the writing transaction `txn` (its effects are already final or undone).
    pub fn end_write(&self, txn: TxnId) {
        let mut s = self.state.lock();
        if s.writer == txn {
            s.writer = TXN_NONE;
            self.writer_released.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_hide_the_active_writer_until_it_ends() {
        let m = TxnManager::new();
        let ok = || Ok(());
        let t1 = m.begin_write(None, &ok).unwrap();
        let reader = m.snapshot(TXN_NONE);
        assert!(
            !reader.is_visible(t1, TXN_NONE),
            "uncommitted insert is invisible"
        );
        let own = m.snapshot(t1);
        assert!(
            own.is_visible(t1, TXN_NONE),
            "a transaction sees its own rows"
        );
        m.end_write(t1);
        let after = m.snapshot(TXN_NONE);
        assert!(after.is_visible(t1, TXN_NONE));
        assert!(
            !reader.is_visible(t1, TXN_NONE),
            "an old snapshot stays unchanged"
        );
        assert!(!after.is_visible(TXN_ABORTED, TXN_NONE));
    }

    #[test]
    fn pins_hold_back_the_gc_horizon() {
        let m = Arc::new(TxnManager::new());
        let ok = || Ok(());
        let t1 = m.begin_write(None, &ok).unwrap();
        // A reader that started while t1 was writing must keep seeing t1's deletes undone.
        let (_, pin) = m.pinned_snapshot(TXN_NONE);
        m.end_write(t1);
        let t2 = m.begin_write(None, &ok).unwrap();
        m.end_write(t2);
        assert_eq!(
            m.gc_horizon(),
            t1,
            "the pin taken during t1 holds the horizon at t1"
        );
        drop(pin);
        assert_eq!(m.gc_horizon(), t2 + 1);
        let t3 = m.try_lock_for_maintenance().unwrap();
        assert!(
            m.try_lock_for_maintenance().is_none(),
            "one holder at a time"
        );
        assert_eq!(m.gc_horizon(), t3, "the lock holder bounds the horizon");
        m.end_write(t3);
    }

    #[test]
    fn writer_lock_times_out() {
        let m = TxnManager::new();
        let ok = || Ok(());
        let _t1 = m.begin_write(None, &ok).unwrap();
        let err = m
            .begin_write(Some(Duration::from_millis(50)), &ok)
            .unwrap_err();
        assert_eq!(err.code, "55P03");
    }
}
