//! SERIALIZABLE: serializable snapshot isolation at table granularity.
//!
//! SERIALIZABLE transactions run on one snapshot, like REPEATABLE READ, and in addition
//! record what they read and wrote — here, which tables (PostgreSQL's predicate locks
//! are finer: tuples and index pages, coarsened under memory pressure). Between two
//! concurrent serializable transactions T and U, "T read a table U wrote" is an
//! rw-antidependency T → U (Ports & Grittner, VLDB 2012). A cycle of such edges needs a
//! *pivot*: a transaction with an edge in and an edge out whose out-partner committed
//! first; the commit that completes such a structure fails with `40001` (see
//! [`Serializable::commit`]). Table granularity catches every write skew among
//! serializable transactions, at the price of some needless failures between
//! transactions that touched different rows of one table — which SERIALIZABLE clients
//! retry anyway.

use std::collections::HashSet;

use parking_lot::Mutex;

use super::mvcc::TxnId;

/// One serializable transaction's footprint.
#[derive(Debug, Default)]
struct Footprint {
    token: u64,
    /// Its snapshot's `xmax`: transactions committing at or after it are concurrent.
    start: TxnId,
    reads: HashSet<u32>,
    writes: HashSet<u32>,
    /// The `next_txn` when it committed (None: still running).
    committed: Option<TxnId>,
    /// It committed with an rw-edge out to a transaction that had committed before.
    out_committed: bool,
}

/// The footprints of serializable transactions that may still conflict.
#[derive(Default)]
pub struct Serializable {
    txns: Mutex<Vec<Footprint>>,
}

impl Serializable {
    /// A serializable transaction (`token`, unique per transaction) took its snapshot.
    pub fn begin(&self, token: u64, start: TxnId) {
        self.txns.lock().push(Footprint {
            token,
            start,
            ..Footprint::default()
        });
    }

    /// Records the tables a statement read and the one it wrote.
    pub fn record(&self, token: u64, reads: &[u32], write: Option<u32>) {
        let mut txns = self.txns.lock();
        if let Some(f) = txns.iter_mut().find(|f| f.token == token) {
            f.reads.extend(reads.iter().copied());
            f.writes.extend(write);
        }
    }

    /// The transaction ended without committing.
    pub fn abort(&self, token: u64) {
        self.txns.lock().retain(|f| f.token != token);
        self.forget_old();
    }

    /// The transaction wants to commit at `now` (the next transaction id): false if it
    /// must fail instead (it is forgotten either way when false).
    ///
    /// PostgreSQL's rule: a dangerous structure `T_in → pivot → T_out` fails once
    /// `T_out` has committed first. Committing T fails if T has an edge out to a
    /// committed transaction and an edge in from any (T is the pivot), or an edge out to
    /// a committed transaction that itself had an edge out to one committed before it
    /// (T is `T_in`).
    pub fn commit(&self, token: u64, now: TxnId) -> bool {
        let mut txns = self.txns.lock();
        let Some(me) = txns.iter().position(|f| f.token == token) else {
            return true;
        };
        let (start, reads, writes) = {
            let f = &txns[me];
            (f.start, f.reads.clone(), f.writes.clone())
        };
        let mut out_committed = false;
        let mut edge_in = false;
        let mut doomed = false;
        for (i, u) in txns.iter().enumerate() {
            if i == me || u.committed.is_some_and(|c| c <= start) {
                continue;
            }
            let out = reads.iter().any(|t| u.writes.contains(t));
            let inn = u.reads.iter().any(|t| writes.contains(t));
            if out && u.committed.is_some() {
                out_committed = true;
                doomed |= u.out_committed;
            }
            edge_in |= inn;
        }
        if doomed || (out_committed && edge_in) {
            txns.remove(me);
            return false;
        }
        let f = &mut txns[me];
        f.committed = Some(now);
        f.out_committed = out_committed;
        drop(txns);
        self.forget_old();
        true
    }

    /// Committed footprints no running transaction overlaps are dropped.
    fn forget_old(&self) {
        let mut txns = self.txns.lock();
        let oldest_running = txns
            .iter()
            .filter(|f| f.committed.is_none())
            .map(|f| f.start)
            .min();
        txns.retain(|f| match (f.committed, oldest_running) {
            (None, _) => true,
            (Some(c), Some(oldest)) => c > oldest,
            (Some(_), None) => false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_skew_fails_the_second_committer() {
        let s = Serializable::default();
        s.begin(1, 10);
        s.begin(2, 10);
        // Both read table 7 (the doctors on call); each updates it.
        s.record(1, &[7], Some(7));
        s.record(2, &[7], Some(7));
        assert!(s.commit(1, 11), "the first committer goes through");
        assert!(!s.commit(2, 12), "the second committer is a pivot");
    }

    #[test]
    fn disjoint_tables_and_serial_runs_commit() {
        let s = Serializable::default();
        s.begin(1, 10);
        s.begin(2, 10);
        s.record(1, &[1], Some(1));
        s.record(2, &[2], Some(2));
        assert!(s.commit(1, 11));
        assert!(s.commit(2, 12));
        // One after the other: no overlap.
        s.begin(3, 20);
        s.record(3, &[5], Some(5));
        assert!(s.commit(3, 21));
        s.begin(4, 22);
        s.record(4, &[5], Some(5));
        assert!(s.commit(4, 23));
    }
}
