//! Table-level locks in PostgreSQL's eight modes.
//!
//! Every statement locks the tables it reads or writes, and holds the locks until its
//! transaction ends: a query ACCESS SHARE, SELECT … FOR UPDATE ROW SHARE, INSERT /
//! UPDATE / DELETE ROW EXCLUSIVE on their target, CREATE INDEX SHARE, a foreign key's
//! creation SHARE ROW EXCLUSIVE on the referenced table, and DROP, TRUNCATE and ALTER
//! TABLE ACCESS EXCLUSIVE — so DDL waits for the transactions that read or write its
//! table, and they wait for it (`LOCK TABLE` takes any mode). The conflict table is
//! PostgreSQL's (lock.c's `LockConflicts`); as there, a request also queues behind an
//! earlier waiter it conflicts with (a DROP waiting for a reader holds back later
//! readers), unless its owner already holds a lock on the table.
//!
//! The lock table lives in the transaction manager's state (`storage::mvcc`), beside
//! the row-lock wait edges, so one wait-for graph over lock owners (sessions) finds
//! deadlocks that mix row waits and table waits. This module holds the pure part: the
//! modes, their conflicts and the grant decision.

use std::collections::HashMap;

/// A lock owner: a session (its transaction holds the locks).
pub type Owner = u64;

/// PostgreSQL's table lock modes, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LockMode {
    AccessShare = 1,
    RowShare = 2,
    RowExclusive = 3,
    ShareUpdateExclusive = 4,
    Share = 5,
    ShareRowExclusive = 6,
    Exclusive = 7,
    AccessExclusive = 8,
}

impl LockMode {
    fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// The modes this one conflicts with, as a bit set.
    fn conflicts(self) -> u16 {
        use LockMode::*;
        let set = |modes: &[LockMode]| modes.iter().fold(0, |acc, m| acc | m.bit());
        match self {
            AccessShare => set(&[AccessExclusive]),
            RowShare => set(&[Exclusive, AccessExclusive]),
            RowExclusive => set(&[Share, ShareRowExclusive, Exclusive, AccessExclusive]),
            ShareUpdateExclusive => set(&[
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            Share => set(&[
                RowExclusive,
                ShareUpdateExclusive,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            ShareRowExclusive => set(&[
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            Exclusive => set(&[
                RowShare,
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            AccessExclusive => 0x1FE,
        }
    }

    /// As PostgreSQL names it in LOCK TABLE.
    pub fn name(self) -> &'static str {
        use LockMode::*;
        match self {
            AccessShare => "ACCESS SHARE",
            RowShare => "ROW SHARE",
            RowExclusive => "ROW EXCLUSIVE",
            ShareUpdateExclusive => "SHARE UPDATE EXCLUSIVE",
            Share => "SHARE",
            ShareRowExclusive => "SHARE ROW EXCLUSIVE",
            Exclusive => "EXCLUSIVE",
            AccessExclusive => "ACCESS EXCLUSIVE",
        }
    }
}

impl LockMode {
    /// As pg_locks names it (`AccessShareLock`).
    pub fn lock_name(self) -> &'static str {
        use LockMode::*;
        match self {
            AccessShare => "AccessShareLock",
            RowShare => "RowShareLock",
            RowExclusive => "RowExclusiveLock",
            ShareUpdateExclusive => "ShareUpdateExclusiveLock",
            Share => "ShareLock",
            ShareRowExclusive => "ShareRowExclusiveLock",
            Exclusive => "ExclusiveLock",
            AccessExclusive => "AccessExclusiveLock",
        }
    }

    const ALL: [LockMode; 8] = [
        LockMode::AccessShare,
        LockMode::RowShare,
        LockMode::RowExclusive,
        LockMode::ShareUpdateExclusive,
        LockMode::Share,
        LockMode::ShareRowExclusive,
        LockMode::Exclusive,
        LockMode::AccessExclusive,
    ];
}

/// One table's holders and waiters.
#[derive(Debug, Default)]
pub struct TableLock {
    /// Owner → the modes it holds (bit set).
    held: Vec<(Owner, u16)>,
    /// Requests waiting, in arrival order.
    waiting: Vec<(Owner, LockMode)>,
}

impl TableLock {
    /// Every held mode and every waiting request: `(owner, mode, granted)` (pg_locks).
    pub fn entries(&self) -> Vec<(Owner, LockMode, bool)> {
        let mut out = Vec::new();
        for &(owner, bits) in &self.held {
            for m in LockMode::ALL {
                if bits & m.bit() != 0 {
                    out.push((owner, m, true));
                }
            }
        }
        out.extend(self.waiting.iter().map(|&(o, m)| (o, m, false)));
        out
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty() && self.waiting.is_empty()
    }

    pub fn holds(&self, owner: Owner, mode: LockMode) -> bool {
        self.held
            .iter()
            .any(|&(o, m)| o == owner && m & mode.bit() != 0)
    }

    /// The owners `owner`'s request for `mode` must wait for: holders of a conflicting
    /// mode, and (unless `owner` holds something here already) earlier waiters for one.
    /// Empty: it can be granted.
    pub fn blockers(&self, owner: Owner, mode: LockMode) -> Vec<Owner> {
        let conflicts = mode.conflicts();
        let mut out: Vec<Owner> = self
            .held
            .iter()
            .filter(|&&(o, m)| o != owner && m & conflicts != 0)
            .map(|&(o, _)| o)
            .collect();
        let holds_some = self.held.iter().any(|&(o, _)| o == owner);
        if !holds_some {
            for &(o, m) in &self.waiting {
                if o == owner {
                    break;
                }
                if m.bit() & conflicts != 0 && !out.contains(&o) {
                    out.push(o);
                }
            }
        }
        out
    }

    pub fn grant(&mut self, owner: Owner, mode: LockMode) {
        self.waiting.retain(|&(o, _)| o != owner);
        match self.held.iter_mut().find(|(o, _)| *o == owner) {
            Some((_, m)) => *m |= mode.bit(),
            None => self.held.push((owner, mode.bit())),
        }
    }

    pub fn enqueue(&mut self, owner: Owner, mode: LockMode) {
        if !self.waiting.iter().any(|&(o, _)| o == owner) {
            self.waiting.push((owner, mode));
        }
    }

    pub fn dequeue(&mut self, owner: Owner) {
        self.waiting.retain(|&(o, _)| o != owner);
    }

    pub fn release(&mut self, owner: Owner) {
        self.held.retain(|&(o, _)| o != owner);
    }
}

/// Whether following wait-for edges from `start` leads back to it.
pub fn in_cycle(waits: &HashMap<Owner, Vec<Owner>>, start: Owner) -> bool {
    let mut stack: Vec<Owner> = waits.get(&start).cloned().unwrap_or_default();
    let mut seen: Vec<Owner> = Vec::new();
    while let Some(o) = stack.pop() {
        if o == start {
            return true;
        }
        if seen.contains(&o) {
            continue;
        }
        seen.push(o);
        if let Some(next) = waits.get(&o) {
            stack.extend(next.iter().copied());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::LockMode::*;
    use super::*;

    #[test]
    fn conflicts_are_postgresqls() {
        let all = [
            AccessShare,
            RowShare,
            RowExclusive,
            ShareUpdateExclusive,
            Share,
            ShareRowExclusive,
            Exclusive,
            AccessExclusive,
        ];
        // Symmetric, and each mode conflicts with exactly as many as in lock.c.
        for a in all {
            for b in all {
                assert_eq!(
                    a.conflicts() & b.bit() != 0,
                    b.conflicts() & a.bit() != 0,
                    "{a:?} / {b:?}"
                );
            }
        }
        let counts: Vec<u32> = all.iter().map(|m| m.conflicts().count_ones()).collect();
        assert_eq!(counts, vec![1, 2, 4, 5, 5, 6, 7, 8]);
    }

    #[test]
    fn a_waiter_holds_back_later_requests_it_conflicts_with() {
        let mut t = TableLock::default();
        t.grant(1, AccessShare);
        assert_eq!(t.blockers(2, AccessExclusive), vec![1]);
        t.enqueue(2, AccessExclusive);
        assert_eq!(
            t.blockers(3, AccessShare),
            vec![2],
            "queued behind the DROP"
        );
        assert!(t.blockers(1, RowShare).is_empty(), "a holder is not queued");
        t.release(1);
        assert!(t.blockers(2, AccessExclusive).is_empty());
        t.grant(2, AccessExclusive);
        assert_eq!(t.blockers(3, AccessShare), vec![2]);
    }

    #[test]
    fn cycles_through_several_owners_are_found() {
        let mut w: HashMap<Owner, Vec<Owner>> = HashMap::new();
        w.insert(1, vec![2]);
        w.insert(2, vec![3, 4]);
        assert!(!in_cycle(&w, 1));
        w.insert(4, vec![1]);
        assert!(in_cycle(&w, 1));
        assert!(in_cycle(&w, 2));
        assert!(!in_cycle(&w, 3));
    }
}
