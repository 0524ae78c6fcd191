//! What a running statement needs from its session: snapshot, parameters, settings, and
//! the interrupt flag that cancel requests and statement_timeout raise.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use super::subplan::SubResult;
use super::vector::Batch;
use crate::error::{Error, Result};
use crate::storage::mvcc::{Snapshot, SnapshotPin};
use crate::types::Value;
use crate::types::text::TextFormat;

/// Set by a CancelRequest from another connection; checked between batches.
#[derive(Default)]
pub struct CancelFlag(AtomicBool, AtomicBool);

impl CancelFlag {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }
    /// pg_terminate_backend: the session ends (with FATAL 57P01) at its next chance.
    pub fn terminate(&self) {
        self.1.store(true, Ordering::Release);
        self.cancel();
    }
    pub fn is_terminated(&self) -> bool {
        self.1.load(Ordering::Acquire)
    }
    pub fn take(&self) -> bool {
        self.0.swap(false, Ordering::AcqRel)
    }
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// A materialized WITH query's rows, with the outer row's values they were made for.
pub type CteRows = (Vec<Value>, Arc<Vec<Batch>>);

/// set_config's changes `(name, value)`, shared by a session and its statements.
/// set_config calls a statement made: (name, value, is_local).
pub type PendingConfigs = Arc<parking_lot::Mutex<Vec<(String, String, bool)>>>;

/// NOTICEs raised during execution: code, message and detail, as errors carry them.
pub type ExecNotices = Arc<parking_lot::Mutex<Vec<crate::error::Error>>>;

impl ExecContext {
    /// Queues a NOTICE for the client (dropped where there is none to see it).
    pub fn notice(&self, notice: crate::error::Error) {
        if let Some(sink) = &self.notices {
            let mut sink = sink.lock();
            // A notice per row of a big scan would flood the client: PostgreSQL sends
            // each, kiln keeps the first thousand.
            if sink.len() < 1000 {
                sink.push(notice);
            }
        }
    }
}

pub struct ExecContext {
    pub snapshot: Snapshot,
    /// Keeps what `snapshot` sees from the vacuum while the statement runs (None for
    /// contexts that never read tables, like the planner's constant folding).
    pub pin: Option<SnapshotPin>,
    /// The session's settings as the statement started (`current_setting`): lower-case
    /// name → (display name, value).
    pub settings: Arc<BTreeMap<String, (String, String)>>,
    pub params: Vec<Value>,
    pub fmt: TextFormat,
    /// now(): the transaction's start, microseconds since 2000-01-01 UTC.
    pub now_micros: i64,
    pub cancel: Arc<CancelFlag>,
    pub deadline: Option<Instant>,
    pub database: String,
    /// current_user (SET ROLE's role, else the session's).
    pub user: String,
    pub session_user: String,
    /// The current role's oid (privilege checks at run time: sequences,
    /// has_*_privilege).
    pub role: u32,
    /// Working memory the statement's materializing operators hold (sort, hash
    /// aggregation, DISTINCT), against `memory_max`.
    pub memory_used: AtomicUsize,
    /// The session's `kiln.max_query_memory`, in bytes.
    pub memory_max: usize,
    /// The outer row's values a correlated subplan is running for, by slot.
    pub outer: parking_lot::Mutex<Vec<Value>>,
    /// Rows of the subplans that read nothing of the outer row, by subplan id: each
    /// runs once per statement.
    pub subplan_results: parking_lot::Mutex<HashMap<usize, Arc<SubResult>>>,
    /// Rows of the materialized WITH queries, by id (computed by their first scan).
    /// Each with the outer row's values it was computed for: a WITH query inside a
    /// correlated subquery may read the outer row, and is computed again for another.
    pub ctes: parking_lot::Mutex<HashMap<u32, CteRows>>,
    /// The current work table of each running recursive CTE, by id.
    pub worktables: parking_lot::Mutex<HashMap<u32, Arc<Vec<Batch>>>>,
    /// The catalog and this session's sequence state, for nextval and its kin (None
    /// where no session runs the expression: constant folding).
    pub sequences: Option<SequenceAccess>,
    /// Versions deleted below this transaction id are garbage to every snapshot: index
    /// scans drop the entries of such versions they meet (`TXN_NONE`: never).
    pub prune_below: crate::storage::mvcc::TxnId,
    /// How SELECT … FOR UPDATE waits for row locks (None outside a writing statement).
    pub locker: Option<Locker>,
    /// The advisory locks and who this session is to them.
    pub advisory: Option<(Arc<crate::storage::advisory::AdvisoryLocks>, u64)>,
    /// This session's process id and the database's sessions (pg_backend_pid,
    /// pg_cancel_backend, pg_terminate_backend), with whether it is a superuser.
    pub backends: Option<(i32, Arc<crate::Backends>, bool)>,
    /// The database, for the system catalogs (`catalog::system`; None where no session
    /// runs the statement: constant folding).
    pub db: Option<Arc<crate::Database>>,
    /// pg_notify's queue: the transaction's notifications, sent at commit.
    pub notifies: Option<crate::notify::PendingNotifies>,
    /// set_config's changes `(name, value)`, which the session applies when the
    /// statement has run (None where no session runs the expression).
    pub set_configs: Option<PendingConfigs>,
    /// NOTICEs raised while evaluating (a text-search query of stop words only), for
    /// the session to send; None where no client will see them.
    pub notices: Option<ExecNotices>,
    /// The session's open cursors as the statement started (pg_cursors).
    pub cursors: Arc<[CursorInfo]>,
    /// How names in text resolve (regclass input, nextval('name'), current_schema).
    pub search_path: Arc<crate::catalog::namespace::SearchPath>,
}

/// One open cursor, as pg_cursors shows it.
#[derive(Clone, Debug)]
pub struct CursorInfo {
    pub name: String,
    /// The text of the query string that declared it.
    pub statement: String,
    pub holdable: bool,
    pub binary: bool,
    pub scrollable: bool,
    /// timestamptz.
    pub created: i64,
}

/// What locking rows needs: the transaction manager to wait on holders, and how long.
#[derive(Clone)]
pub struct Locker {
    pub txns: Arc<crate::storage::mvcc::TxnManager>,
    pub lock_timeout: Option<std::time::Duration>,
    pub deadlock_timeout: std::time::Duration,
    /// REPEATABLE READ or SERIALIZABLE: a row changed since the snapshot is 40001.
    pub repeatable: bool,
}

/// What the sequence functions need: the catalog to find a sequence by name in the
/// statement's snapshot, and what this session's calls returned.
#[derive(Clone)]
pub struct SequenceAccess {
    pub catalog: Arc<crate::catalog::Catalog>,
    pub session: Arc<parking_lot::Mutex<crate::catalog::sequence::SessionSequences>>,
}

impl ExecContext {
    /// Returns `bytes` of working memory (a top-N dropped rows it no longer needs).
    pub fn release_memory(&self, bytes: usize) {
        let _ = self
            .memory_used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }

    /// Charges `bytes` of working memory to the statement.
    pub fn charge_memory(&self, bytes: usize) -> Result<()> {
        let used = self.memory_used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if used > self.memory_max {
            return Err(Error::new("53200", "out of memory").with_detail(format!(
                "The statement needs more than {} MB of working memory (kiln.max_query_memory).",
                self.memory_max >> 20
            )));
        }
        Ok(())
    }

    /// Called between batches: turns cancel and timeout into errors.
    pub fn check_interrupt(&self) -> Result<()> {
        if self.cancel.is_set() {
            self.cancel.take();
            return Err(Error::query_canceled());
        }
        if let Some(d) = self.deadline
            && Instant::now() >= d
        {
            return Err(Error::statement_timeout());
        }
        Ok(())
    }
}
