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
//! **Table locks** in PostgreSQL's eight modes ([`TxnManager::lock_table`],
//! `storage::locks`) live here too, so that one wait-for graph over lock owners
//! (sessions; a writing transaction maps to its session) holds row waits and table
//! waits alike, and a deadlock through both is found. The *exclusive* mode
//! ([`TxnManager::try_lock_for_maintenance`]) is the vacuum's: taken only when no
//! transaction writes, and writers that start meanwhile wait for it.
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
use crate::storage::locks::{LockMode, Owner, TableLock, in_cycle};

pub type TxnId = u64;

/// Marks a wait-graph node that stands for a transaction without a lock owner
/// (maintenance, tests): its own id with this bit.
const ANONYMOUS: Owner = 1 << 63;

fn owner_key(s: &State, txn: TxnId) -> Owner {
    s.owners.get(&txn).copied().unwrap_or(txn | ANONYMOUS)
}

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

/// pg_locks' `transactionid` rows: `(transaction, its owner)` held and `(waiting owner,
/// transaction)` awaited.
pub type TransactionLocks = (Vec<(TxnId, Owner)>, Vec<(Owner, TxnId)>);

/// The exclusive mode's holder and waiters.
struct State {
    next_txn: TxnId,
    /// Writing transactions in progress.
    active: BTreeSet<TxnId>,
    /// The transaction holding the exclusive mode (the vacuum), or `TXN_NONE`.
    exclusive: TxnId,
    /// The lock owner (session) of each writing transaction that has one.
    owners: HashMap<TxnId, Owner>,
    /// Who waits for whom, over lock owners: row waits and table-lock waits alike.
    waits: HashMap<Owner, Vec<Owner>>,
    /// The transaction each owner waits to end (a row it locked or a key it wrote).
    txn_waits: HashMap<Owner, TxnId>,
    /// Table locks by table oid (`storage::locks`).
    tables: HashMap<u32, TableLock>,
    /// The tables each owner holds locks on.
    held: HashMap<Owner, Vec<u32>>,
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
                owners: HashMap::new(),
                waits: HashMap::new(),
                txn_waits: HashMap::new(),
                tables: HashMap::new(),
                held: HashMap::new(),
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
    /// Every table lock held or awaited: `(table oid, owner, mode, granted)`.
    pub fn table_locks(&self) -> Vec<(u32, Owner, crate::storage::locks::LockMode, bool)> {
        let s = self.state.lock();
        let mut out: Vec<_> = s
            .tables
            .iter()
            .flat_map(|(&oid, lock)| {
                lock.entries()
                    .into_iter()
                    .map(move |(owner, mode, granted)| (oid, owner, mode, granted))
            })
            .collect();
        out.sort_by_key(|&(oid, owner, mode, granted)| (oid, owner, mode, !granted));
        out
    }

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
        self.begin_write_for(0, limits)
    }

    /// [`TxnManager::begin_write`] for lock owner `owner` (0: none), whose waits for
    /// this transaction's row locks are edges to `owner` in the wait-for graph.
    pub fn begin_write_for(&self, owner: Owner, limits: &WaitLimits) -> Result<TxnId> {
        let start = Instant::now();
        let mut s = self.state.lock();
        while s.exclusive != TXN_NONE {
            self.wait_slice(&mut s, start, limits)?;
        }
        let txn = s.next_txn;
        s.next_txn += 1;
        s.active.insert(txn);
        s.shared_active = None;
        if owner != 0 {
            s.owners.insert(txn, owner);
        }
        Ok(txn)
    }

    /// Locks table `oid` in `mode` for `owner` until [`TxnManager::release_tables`]:
    /// waits while other owners hold (or queue first for) a conflicting mode, bounded
    /// by `limits`; past `deadlock_timeout`, a cycle of waits through `owner` is
    /// `40P01`. With `nowait`, returns false instead of waiting.
    pub fn lock_table(
        &self,
        owner: Owner,
        oid: u32,
        mode: LockMode,
        nowait: bool,
        limits: &WaitLimits,
    ) -> Result<bool> {
        let mut s = self.state.lock();
        let entry = s.tables.entry(oid).or_default();
        if entry.holds(owner, mode) {
            return Ok(true);
        }
        if entry.blockers(owner, mode).is_empty() {
            entry.grant(owner, mode);
            s.held.entry(owner).or_default().push(oid);
            return Ok(true);
        }
        if nowait {
            return Ok(false);
        }
        entry.enqueue(owner, mode);
        let start = Instant::now();
        let mut checked = false;
        let outcome = loop {
            let blockers = match s.tables.get(&oid) {
                Some(t) => t.blockers(owner, mode),
                None => Vec::new(),
            };
            if blockers.is_empty() {
                break Ok(());
            }
            s.waits.insert(owner, blockers);
            if let Err(e) = self.wait_slice(&mut s, start, limits) {
                break Err(e);
            }
            if !checked && start.elapsed() >= limits.deadlock_timeout {
                checked = true;
                if in_cycle(&s.waits, owner) {
                    break Err(Error::new("40P01", "deadlock detected").with_detail(format!(
                        "Process {owner} waits for {} lock on relation {oid}, held (through others) against it.",
                        mode.name()
                    )));
                }
            }
        };
        s.waits.remove(&owner);
        let entry = s.tables.entry(oid).or_default();
        match outcome {
            Ok(()) => {
                entry.grant(owner, mode);
                s.held.entry(owner).or_default().push(oid);
                Ok(true)
            }
            Err(e) => {
                entry.dequeue(owner);
                if entry.is_empty() {
                    s.tables.remove(&oid);
                }
                // Requests queued behind this one may go now.
                self.ended.notify_all();
                Err(e)
            }
        }
    }

    /// Releases every table lock `owner` holds (its transaction ended).
    pub fn release_tables(&self, owner: Owner) {
        let mut s = self.state.lock();
        let Some(oids) = s.held.remove(&owner) else {
            return;
        };
        for oid in oids {
            if let Some(t) = s.tables.get_mut(&oid) {
                t.release(owner);
                if t.is_empty() {
                    s.tables.remove(&oid);
                }
            }
        }
        self.ended.notify_all();
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
        let me = owner_key(&s, txn);
        s.waits.remove(&me);
        s.owners.remove(&txn);
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
        let me = owner_key(&s, txn);
        let them = owner_key(&s, other);
        s.waits.insert(me, vec![them]);
        s.txn_waits.insert(me, other);
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
                if !in_cycle(&s.waits, me) {
                    continue;
                }
                break Err(Error::new("40P01", "deadlock detected").with_detail(format!(
                    "Transaction {txn} waits for transaction {other}, which waits (through others) for {txn}."
                )));
            }
        };
        s.waits.remove(&me);
        s.txn_waits.remove(&me);
        outcome
    }

    /// The writing transactions in progress that a session owns, and the transaction
    /// each waiting session waits for: pg_locks' `transactionid` rows (held, awaited).
    pub fn transaction_locks(&self) -> TransactionLocks {
        let s = self.state.lock();
        let mut held: Vec<(TxnId, Owner)> = s
            .owners
            .iter()
            .filter(|(t, _)| s.active.contains(t))
            .map(|(&t, &o)| (t, o))
            .collect();
        held.sort_unstable();
        let mut awaited: Vec<(Owner, TxnId)> = s.txn_waits.iter().map(|(&o, &t)| (o, t)).collect();
        awaited.sort_unstable();
        (held, awaited)
    }

    /// The owners `owner` waits for (pg_blocking_pids): a transaction's or the holders
    /// of a table lock it is queued for.
    pub fn blockers(&self, owner: Owner) -> Vec<Owner> {
        self.state
            .lock()
            .waits
            .get(&owner)
            .cloned()
            .unwrap_or_default()
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
    fn table_locks_wait_for_conflicting_holders_and_time_out() {
        use crate::storage::locks::LockMode::*;
        let m = TxnManager::new();
        assert!(m.lock_table(1, 7, AccessShare, false, &limits()).unwrap());
        assert!(m.lock_table(2, 7, RowExclusive, false, &limits()).unwrap());
        assert!(
            !m.lock_table(3, 7, AccessExclusive, true, &limits())
                .unwrap()
        );
        let err = m.lock_table(3, 7, Share, false, &limits()).unwrap_err();
        assert_eq!(
            err.code, "55P03",
            "SHARE waits for the ROW EXCLUSIVE holder"
        );
        m.release_tables(2);
        assert!(m.lock_table(3, 7, Share, false, &limits()).unwrap());
        assert!(
            m.lock_table(3, 8, AccessExclusive, false, &limits())
                .unwrap()
        );
        m.release_tables(1);
        m.release_tables(3);
        assert!(
            m.lock_table(1, 7, AccessExclusive, true, &limits())
                .unwrap()
        );
        m.release_tables(1);
        let v = m.try_lock_for_maintenance().unwrap();
        let err = m.begin_write(&limits()).unwrap_err();
        assert_eq!(
            err.code, "55P03",
            "writers wait for the vacuum's exclusive mode"
        );
        m.end_write(v);
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
