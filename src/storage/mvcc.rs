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
//!   row version: [ column values … | xmin | xmax | next ]
//!   visible to snapshot S  ⇔  created by a txn S sees  ∧ ¬ deleted by a txn S sees
//!   S sees txn T           ⇔  T = S.own  ∨ (T < S.xmax ∧ T ∉ S.active)
//! ```
//!
//! **Many writers.** Any number of transactions write at once. A snapshot is
//! PostgreSQL's `(xmin, xmax, in-progress list)`: ids at or above `xmax` had not
//! started, ids in `active` were running; every other id below `xmax` is committed —
//! because a rollback *physically undoes* its stamps (inserted versions get `xmin =
//! TXN_ABORTED`, deleted ones get their `xmax` cleared) before its id leaves the active
//! set. So no commit log is needed, and a stamp holding an id that is not active is a
//! committed transaction's.
//!
//! **Row locks** are the `xmax` word, as in PostgreSQL: a writer that deletes or
//! updates a version sets `xmax` to its id by compare-and-swap (`storage::table`); one
//! that finds another active transaction's id there waits for that transaction to end
//! ([`TxnManager::wait_for`]) — bounded by `lock_timeout`, and by deadlock detection
//! over the wait-for edges (`40P01` once `deadlock_timeout` has passed with a cycle).
//!
//! **DDL** takes the *exclusive* mode ([`TxnManager::lock_exclusive`]): it waits until
//! it is the only writing transaction, and writers that start meanwhile wait for it to
//! end — so catalog changes never interleave with other transactions' writes. (Readers
//! never wait: the catalog is versioned like rows.)
//!
//! Within a transaction each statement takes a fresh snapshot (READ COMMITTED).
//!
//! ## Garbage: what no snapshot can see
//!
//! A running statement *pins* its snapshot ([`SnapshotPin`]) for as long as it may read
//! (a portal keeps it until closed). The pin records the snapshot's `xmin`: every
//! transaction below it that is not aborted is, for that snapshot, committed. So a
//! version deleted by a committed transaction below the smallest pinned `xmin` and
//! below every active transaction — the [`TxnManager::gc_horizon`] — is invisible to
//! every running statement and to every later one, and may be removed
//! (`storage::vacuum`). Versions whose insert rolled back (`xmin = TXN_ABORTED`) are
//! garbage at once. The vacuum moves versions only while it holds the exclusive mode
//! ([`TxnManager::try_lock_for_maintenance`]), so no transaction's row ids or undo log
//! can point into a group it rewrites.

use std::collections::{BTreeMap, BTreeSet, HashMap};
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

/// Set in an `xmax` that only *locks* the version (SELECT … FOR UPDATE): the version is
/// not deleted, and once the locker has ended the lock is stale (PostgreSQL's
/// HEAP_XMAX_LOCK_ONLY).
pub const LOCK_ONLY: TxnId = 1 << 62;

/// The transaction that deleted a version stamped `xmax` (`TXN_NONE` for a lock).
#[inline]
pub fn deleter(xmax: TxnId) -> TxnId {
    if xmax & LOCK_ONLY != 0 {
        TXN_NONE
    } else {
        xmax
    }
}

/// How long a wait sleeps between checks for cancel and timeouts.
const WAIT_SLICE: Duration = Duration::from_millis(10);

/// What a statement can see.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Transactions with ids at or above this had not started when the snapshot was taken.
    pub xmax: TxnId,
    /// Every transaction below this had ended.
    pub xmin: TxnId,
    /// Transactions in progress when the snapshot was taken (sorted; `own` excluded).
    pub active: Arc<[TxnId]>,
    /// The snapshot owner's own writing transaction (or `TXN_NONE`).
    pub own: TxnId,
}

impl Snapshot {
    #[inline]
    pub fn sees(&self, txn: TxnId) -> bool {
        if txn == self.own {
            return txn != TXN_NONE;
        }
        txn < self.xmin || (txn < self.xmax && self.active.binary_search(&txn).is_err())
    }

    /// Whether a version stamped `(xmin, xmax)` is visible.
    #[inline]
    pub fn is_visible(&self, xmin: TxnId, xmax: TxnId) -> bool {
        let xmax = deleter(xmax);
        xmin != TXN_ABORTED && self.sees(xmin) && (xmax == TXN_NONE || !self.sees(xmax))
    }
}

/// The exclusive mode's holder and waiters.
struct State {
    next_txn: TxnId,
    /// Writing transactions in progress.
    active: BTreeSet<TxnId>,
    /// The transaction holding the exclusive mode (DDL, the vacuum), or `TXN_NONE`.
    exclusive: TxnId,
    /// Who waits for whom (a transaction waits for at most one other).
    waits_for: HashMap<TxnId, TxnId>,
    /// `xmin` of every pinned snapshot, with how many pins hold it.
    pinned: BTreeMap<TxnId, usize>,
    /// The active set as snapshots share it; rebuilt after a change.
    shared_active: Option<Arc<[TxnId]>>,
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

/// Hands out transaction ids and snapshots; transactions wait for each other here.
pub struct TxnManager {
    state: Mutex<State>,
    /// Signalled whenever a transaction ends or the exclusive mode is released.
    ended: Condvar,
}

impl Default for TxnManager {
    fn default() -> Self {
        TxnManager::new()
    }
}

/// How a wait is bounded: `lock_timeout`, `deadlock_timeout`, and a check for cancel
/// and statement_timeout.
pub struct WaitLimits<'a> {
    pub lock_timeout: Option<Duration>,
    pub deadlock_timeout: Duration,
    pub interrupted: &'a dyn Fn() -> Result<()>,
}

impl WaitLimits<'static> {
    /// No timeout and nothing to interrupt: for maintenance and tests.
    pub const UNBOUNDED: WaitLimits<'static> = WaitLimits {
        lock_timeout: None,
        deadlock_timeout: Duration::from_secs(1),
        interrupted: &|| Ok(()),
    };
}

impl TxnManager {
    pub fn new() -> TxnManager {
        TxnManager {
            state: Mutex::new(State {
                next_txn: TXN_FIRST,
                active: BTreeSet::new(),
                exclusive: TXN_NONE,
                waits_for: HashMap::new(),
                pinned: BTreeMap::new(),
                shared_active: None,
            }),
            ended: Condvar::new(),
        }
    }

    pub fn snapshot(&self, own: TxnId) -> Snapshot {
        let mut s = self.state.lock();
        Self::snapshot_of(&mut s, own)
    }

    fn snapshot_of(s: &mut State, own: TxnId) -> Snapshot {
        let all = s
            .shared_active
            .get_or_insert_with(|| s.active.iter().copied().collect())
            .clone();
        let active: Arc<[TxnId]> = if own != TXN_NONE && all.binary_search(&own).is_ok() {
            all.iter().copied().filter(|&t| t != own).collect()
        } else {
            all
        };
        let xmin = s.active.iter().next().copied().unwrap_or(s.next_txn);
        Snapshot {
            xmax: s.next_txn,
            xmin,
            active,
            own,
        }
    }

    /// A snapshot for a statement that will read through it, pinned until the pin drops.
    pub fn pinned_snapshot(self: &Arc<Self>, own: TxnId) -> (Snapshot, SnapshotPin) {
        let mut s = self.state.lock();
        let snapshot = Self::snapshot_of(&mut s, own);
        let xmin = snapshot.xmin;
        *s.pinned.entry(xmin).or_insert(0) += 1;
        let pin = SnapshotPin {
            txns: self.clone(),
            xmin,
        };
        (snapshot, pin)
    }

    /// Pins `snapshot` again (a REPEATABLE READ transaction's statement reusing the
    /// transaction's snapshot).
    pub fn pinned_snapshot_at(self: &Arc<Self>, snapshot: Snapshot) -> (Snapshot, SnapshotPin) {
        let mut s = self.state.lock();
        let xmin = snapshot.xmin;
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
        let oldest_active = s.active.iter().next().copied().unwrap_or(s.next_txn);
        oldest_pin.min(oldest_active).min(s.next_txn)
    }

    /// The id the next transaction will get (commit order for SERIALIZABLE).
    pub fn next_id(&self) -> TxnId {
        self.state.lock().next_txn
    }

    /// Whether `txn` is a writing transaction still in progress.
    pub fn is_active(&self, txn: TxnId) -> bool {
        self.state.lock().active.contains(&txn)
    }

    /// Starts a writing transaction and returns its id, waiting while another holds
    /// the exclusive mode.
    pub fn begin_write(&self, limits: &WaitLimits) -> Result<TxnId> {
        let start = Instant::now();
        let mut s = self.state.lock();
        while s.exclusive != TXN_NONE {
            self.wait_slice(&mut s, start, limits)?;
        }
        let txn = s.next_txn;
        s.next_txn += 1;
        s.active.insert(txn);
        s.shared_active = None;
        Ok(txn)
    }

    /// One slice of a wait: sleeps until something ends (or a slice passes), checks
    /// for interrupts and lock_timeout.
    fn wait_slice(
        &self,
        s: &mut parking_lot::MutexGuard<'_, State>,
        start: Instant,
        limits: &WaitLimits,
    ) -> Result<()> {
        self.ended.wait_for(s, WAIT_SLICE);
        parking_lot::MutexGuard::unlocked(s, limits.interrupted)?;
        if let Some(limit) = limits.lock_timeout
            && start.elapsed() >= limit
        {
            return Err(Error::lock_timeout());
        }
        Ok(())
    }

    /// Takes the exclusive mode for `txn` (which must be active): waits until no other
    /// writing transaction is in progress and nobody else holds the mode.
    pub fn lock_exclusive(&self, txn: TxnId, limits: &WaitLimits) -> Result<()> {
        let start = Instant::now();
        let mut s = self.state.lock();
        loop {
            if s.exclusive == txn {
                return Ok(());
            }
            let alone = s.active.iter().all(|&t| t == txn);
            if s.exclusive == TXN_NONE && alone {
                s.exclusive = txn;
                return Ok(());
            }
            self.wait_slice(&mut s, start, limits)?;
        }
    }

    /// Takes the exclusive mode for active transaction `txn` if it can be had at once
    /// (LOCK TABLE … NOWAIT).
    pub fn try_lock_exclusive(&self, txn: TxnId) -> bool {
        let mut s = self.state.lock();
        if s.exclusive == txn {
            return true;
        }
        if s.exclusive == TXN_NONE && s.active.iter().all(|&t| t == txn) {
            s.exclusive = txn;
            return true;
        }
        false
    }

    /// Takes the exclusive mode for maintenance if no transaction writes, without
    /// waiting: the vacuum yields to transactions. Release it with
    /// [`TxnManager::end_write`].
    pub fn try_lock_for_maintenance(&self) -> Option<TxnId> {
        let mut s = self.state.lock();
        if s.exclusive != TXN_NONE || !s.active.is_empty() {
            return None;
        }
        let txn = s.next_txn;
        s.next_txn += 1;
        s.active.insert(txn);
        s.shared_active = None;
        s.exclusive = txn;
        Some(txn)
    }

    /// Ends writing transaction `txn` (its effects are already final or undone), and
    /// wakes whoever waits for it.
    pub fn end_write(&self, txn: TxnId) {
        let mut s = self.state.lock();
        if s.active.remove(&txn) {
            s.shared_active = None;
        }
        if s.exclusive == txn {
            s.exclusive = TXN_NONE;
        }
        s.waits_for.remove(&txn);
        self.ended.notify_all();
    }

    /// Waits until transaction `other` has ended; `txn` is the waiter. Past
    /// `deadlock_timeout`, a cycle of waits through `txn` ends this wait with `40P01`.
    pub fn wait_for(&self, txn: TxnId, other: TxnId, limits: &WaitLimits) -> Result<()> {
        let start = Instant::now();
        let mut s = self.state.lock();
        if !s.active.contains(&other) {
            return Ok(());
        }
        s.waits_for.insert(txn, other);
        let mut checked = false;
        let outcome = loop {
            if !s.active.contains(&other) {
                break Ok(());
            }
            if let Err(e) = self.wait_slice(&mut s, start, limits) {
                break Err(e);
            }
            // Once, when deadlock_timeout has passed (as PostgreSQL's CheckDeadLock): the
            // waiter whose timer fires after the cycle closed is the victim.
            if !checked && start.elapsed() >= limits.deadlock_timeout {
                checked = true;
                if !Self::in_cycle(&s, txn) {
                    continue;
                }
                break Err(Error::new("40P01", "deadlock detected").with_detail(format!(
                    "Transaction {txn} waits for transaction {other}, which waits (through others) for {txn}."
                )));
            }
        };
        s.waits_for.remove(&txn);
        outcome
    }

    /// Whether following the wait-for edges from `txn` comes back to it.
    fn in_cycle(s: &State, txn: TxnId) -> bool {
        let mut at = txn;
        for _ in 0..=s.waits_for.len() {
            match s.waits_for.get(&at) {
                Some(&next) if next == txn => return true,
                Some(&next) => at = next,
                None => return false,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> WaitLimits<'static> {
        WaitLimits {
            lock_timeout: Some(Duration::from_millis(200)),
            deadlock_timeout: Duration::from_millis(20),
            interrupted: &|| Ok(()),
        }
    }

    #[test]
    fn snapshots_hide_transactions_in_progress_until_they_end() {
        let m = TxnManager::new();
        let t1 = m.begin_write(&limits()).unwrap();
        let t2 = m.begin_write(&limits()).unwrap();
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
        assert!(!own.is_visible(t2, TXN_NONE), "and not a concurrent one's");
        m.end_write(t2);
        let after = m.snapshot(TXN_NONE);
        assert!(after.is_visible(t2, TXN_NONE));
        assert!(!after.is_visible(t1, TXN_NONE), "t1 still runs");
        assert!(
            !reader.is_visible(t2, TXN_NONE),
            "an old snapshot stays unchanged"
        );
        m.end_write(t1);
        assert!(!m.snapshot(TXN_NONE).is_visible(TXN_ABORTED, TXN_NONE));
    }

    #[test]
    fn pins_and_active_transactions_hold_back_the_gc_horizon() {
        let m = Arc::new(TxnManager::new());
        let t1 = m.begin_write(&limits()).unwrap();
        let (_, pin) = m.pinned_snapshot(TXN_NONE);
        m.end_write(t1);
        let t2 = m.begin_write(&limits()).unwrap();
        m.end_write(t2);
        assert_eq!(
            m.gc_horizon(),
            t1,
            "the pin taken during t1 holds the horizon"
        );
        drop(pin);
        assert_eq!(m.gc_horizon(), t2 + 1);
        let t3 = m.begin_write(&limits()).unwrap();
        assert!(m.try_lock_for_maintenance().is_none(), "a writer is active");
        assert_eq!(m.gc_horizon(), t3);
        m.end_write(t3);
        let v = m.try_lock_for_maintenance().unwrap();
        m.end_write(v);
    }

    #[test]
    fn exclusive_mode_waits_for_writers_and_times_out() {
        let m = TxnManager::new();
        let t1 = m.begin_write(&limits()).unwrap();
        let t2 = m.begin_write(&limits()).unwrap();
        let err = m.lock_exclusive(t2, &limits()).unwrap_err();
        assert_eq!(err.code, "55P03");
        m.end_write(t1);
        m.lock_exclusive(t2, &limits()).unwrap();
        let err = m.begin_write(&limits()).unwrap_err();
        assert_eq!(err.code, "55P03", "writers wait for the exclusive holder");
        m.end_write(t2);
    }

    #[test]
    fn a_cycle_of_waits_is_a_deadlock() {
        let m = Arc::new(TxnManager::new());
        let t1 = m.begin_write(&limits()).unwrap();
        let t2 = m.begin_write(&limits()).unwrap();
        let m2 = m.clone();
        let waiter = std::thread::spawn(move || {
            let r = m2.wait_for(t2, t1, &limits());
            if r.is_err() {
                m2.end_write(t2);
            }
            r
        });
        std::thread::sleep(Duration::from_millis(30));
        let mine = m.wait_for(t1, t2, &limits());
        if mine.is_err() {
            m.end_write(t1);
        }
        let theirs = waiter.join().unwrap();
        let codes = [&mine, &theirs].map(|r| r.as_ref().err().map(|e| e.code));
        assert!(
            codes == [Some("40P01"), None] || codes == [None, Some("40P01")],
            "exactly one waiter is chosen as the victim: {codes:?}"
        );
        m.end_write(t1);
        m.end_write(t2);
    }
}
