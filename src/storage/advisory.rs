//! Advisory locks: application-defined locks on 64-bit keys (pg_advisory_lock and kin).
//!
//! A key is held exclusively by one session or shared by several; each hold is at
//! session level (until unlocked, reentrant: locked twice, unlocked twice) or at
//! transaction level (until the transaction ends). Migration tools (Rails, Flyway,
//! Alembic wrappers) take one to keep two deployments from migrating at once. Waiting
//! is bounded like any lock wait: lock_timeout, cancel, statement_timeout.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};

/// Who holds a key, and how often.
#[derive(Debug, Default)]
struct Holds {
    /// Exclusive: the owner, session-level count, transaction-level count.
    exclusive: Option<(u64, u32, u32)>,
    /// Shared: owner → (session-level count, transaction-level count).
    shared: HashMap<u64, (u32, u32)>,
}

impl Holds {
    fn is_empty(&self) -> bool {
        self.exclusive.is_none() && self.shared.is_empty()
    }
}

#[derive(Default)]
pub struct AdvisoryLocks {
    keys: Mutex<HashMap<i64, Holds>>,
    released: Condvar,
}

/// One request: which key, by whom, how.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub key: i64,
    pub owner: u64,
    pub shared: bool,
    /// Held until the transaction ends (else until unlocked or the session ends).
    pub xact: bool,
}

impl AdvisoryLocks {
    /// Takes the lock if it is free for `r`; false if another owner's hold conflicts.
    pub fn try_lock(&self, r: Request) -> bool {
        let mut keys = self.keys.lock();
        Self::grant(keys.entry(r.key).or_default(), r)
    }

    fn grant(h: &mut Holds, r: Request) -> bool {
        let bump = |counts: &mut (u32, u32)| {
            if r.xact { counts.1 += 1 } else { counts.0 += 1 }
        };
        if r.shared {
            if h.exclusive.is_some_and(|(o, _, _)| o != r.owner) {
                return false;
            }
            bump(h.shared.entry(r.owner).or_default());
            true
        } else {
            if h.shared.keys().any(|&o| o != r.owner) {
                return false;
            }
            match &mut h.exclusive {
                Some((o, s, x)) if *o == r.owner => {
                    let mut c = (*s, *x);
                    bump(&mut c);
                    (*s, *x) = c;
                    true
                }
                Some(_) => false,
                None => {
                    let mut c = (0, 0);
                    bump(&mut c);
                    h.exclusive = Some((r.owner, c.0, c.1));
                    true
                }
            }
        }
    }

    /// Takes the lock, waiting while another owner holds it.
    pub fn lock(
        &self,
        r: Request,
        lock_timeout: Option<Duration>,
        interrupted: &dyn Fn() -> Result<()>,
    ) -> Result<()> {
        let start = Instant::now();
        let mut keys = self.keys.lock();
        loop {
            if Self::grant(keys.entry(r.key).or_default(), r) {
                return Ok(());
            }
            self.released.wait_for(&mut keys, Duration::from_millis(10));
            parking_lot::MutexGuard::unlocked(&mut keys, interrupted)?;
            if lock_timeout.is_some_and(|t| start.elapsed() >= t) {
                return Err(Error::lock_timeout());
            }
        }
    }

    /// Releases one session-level hold of `key`; false (PostgreSQL warns) if `owner`
    /// held none.
    pub fn unlock(&self, key: i64, owner: u64, shared: bool) -> bool {
        let mut keys = self.keys.lock();
        let Some(h) = keys.get_mut(&key) else {
            return false;
        };
        let released = if shared {
            match h.shared.get_mut(&owner) {
                Some((s, x)) if *s > 0 => {
                    *s -= 1;
                    if *s == 0 && *x == 0 {
                        h.shared.remove(&owner);
                    }
                    true
                }
                _ => false,
            }
        } else {
            match &mut h.exclusive {
                Some((o, s, x)) if *o == owner && *s > 0 => {
                    *s -= 1;
                    if *s == 0 && *x == 0 {
                        h.exclusive = None;
                    }
                    true
                }
                _ => false,
            }
        };
        if h.is_empty() {
            keys.remove(&key);
        }
        self.released.notify_all();
        released
    }

    /// Releases `owner`'s transaction-level holds (the transaction ended), or all its
    /// holds (`all`: pg_advisory_unlock_all, or the session ended).
    pub fn release(&self, owner: u64, all: bool) {
        let mut keys = self.keys.lock();
        keys.retain(|_, h| {
            if let Some((o, s, x)) = &mut h.exclusive
                && *o == owner
            {
                *x = 0;
                if all {
                    *s = 0;
                }
                if *s == 0 {
                    h.exclusive = None;
                }
            }
            if let Some((s, x)) = h.shared.get_mut(&owner) {
                *x = 0;
                if all {
                    *s = 0;
                }
                if *s == 0 {
                    h.shared.remove(&owner);
                }
            }
            !h.is_empty()
        });
        self.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(key: i64, owner: u64, shared: bool, xact: bool) -> Request {
        Request {
            key,
            owner,
            shared,
            xact,
        }
    }

    #[test]
    fn exclusive_shared_reentrant_and_transaction_holds() {
        let l = AdvisoryLocks::default();
        assert!(l.try_lock(req(1, 10, false, false)));
        assert!(l.try_lock(req(1, 10, false, false)), "reentrant");
        assert!(!l.try_lock(req(1, 20, false, false)));
        assert!(!l.try_lock(req(1, 20, true, false)));
        assert!(l.unlock(1, 10, false));
        assert!(!l.try_lock(req(1, 20, false, false)), "still held once");
        assert!(l.unlock(1, 10, false));
        assert!(!l.unlock(1, 10, false), "not held any more");
        assert!(l.try_lock(req(2, 10, true, false)));
        assert!(l.try_lock(req(2, 20, true, true)), "shared with shared");
        assert!(!l.try_lock(req(2, 30, false, false)));
        l.release(20, false);
        l.release(10, true);
        assert!(l.try_lock(req(2, 30, false, true)));
        l.release(30, false);
        assert!(
            l.try_lock(req(2, 40, false, false)),
            "the transaction hold went"
        );
    }
}
