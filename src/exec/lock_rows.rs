//! SELECT … FOR UPDATE / FOR SHARE: locks each row's table version as it passes.
//!
//! The operator sits under the statement's LIMIT (PostgreSQL's LockRows), so with
//! `LIMIT n` it locks only the rows the limit takes — with SKIP LOCKED, the first `n`
//! rows nobody else holds, the job-queue pattern. It reads all it needs on its first
//! call, locking as it goes, and hands the rows out afterwards: a statement that must
//! start over (below) has sent nothing yet.
//!
//! A row lock is the version's `xmax` with the lock-only bit (`storage::mvcc`). A row
//! another transaction holds: wait for it (NOWAIT: 55P03; SKIP LOCKED: leave the row
//! out). A row a committed transaction changed since the snapshot: REPEATABLE READ and
//! SERIALIZABLE fail with 40001; READ COMMITTED runs the statement again on a fresh
//! snapshot ([`RESTART`], handled by the session), which returns the rows' newest
//! versions as PostgreSQL's re-check does.
//!
//! FOR SHARE locks like FOR UPDATE here (two sharers wait for each other, where
//! PostgreSQL lets them share).

use std::sync::Arc;

use super::context::ExecContext;
use super::ops::eval_count;
use super::vector::{Batch, Data};
use super::{BoxedOperator, Operator};
use crate::catalog::TableEntry;
use crate::error::{Error, Result};
use crate::plan::physical::LockWait;
use crate::sql::expr::Expr;
use crate::storage::index::RowId;
use crate::storage::mvcc::WaitLimits;
use crate::storage::table::Claim;

/// The SQLSTATE of "run the statement again on a new snapshot" (never sent).
pub const RESTART: &str = "XXRST";

pub struct LockRowsOp {
    input: BoxedOperator,
    table: Arc<TableEntry>,
    rid: usize,
    wait: LockWait,
    count: Option<(Option<Expr>, Option<Expr>)>,
    out: Option<std::vec::IntoIter<Batch>>,
}

impl LockRowsOp {
    pub fn new(
        input: BoxedOperator,
        table: Arc<TableEntry>,
        rid: usize,
        wait: LockWait,
        count: Option<(Option<Expr>, Option<Expr>)>,
    ) -> LockRowsOp {
        LockRowsOp {
            input,
            table,
            rid,
            wait,
            count,
            out: None,
        }
    }

    /// Locks version `id` for the statement's transaction: whether the row stays.
    fn lock(&self, id: RowId, ctx: &ExecContext) -> Result<bool> {
        let Some(locker) = &ctx.locker else {
            return Err(Error::internal("FOR UPDATE outside a session"));
        };
        let txn = ctx.snapshot.own;
        let interrupted = || ctx.check_interrupt();
        let limits = WaitLimits {
            lock_timeout: locker.lock_timeout,
            deadlock_timeout: locker.deadlock_timeout,
            interrupted: &interrupted,
        };
        loop {
            match self
                .table
                .storage
                .lock_row(id, txn, |t| locker.txns.is_active(t))
            {
                Claim::Locked | Claim::Ours => return Ok(true),
                Claim::Missing => return Ok(false),
                Claim::Busy(holder) => match self.wait {
                    LockWait::Skip => return Ok(false),
                    LockWait::Error => {
                        return Err(Error::new(
                            "55P03",
                            format!(
                                "could not obtain lock on row in relation \"{}\"",
                                self.table.name
                            ),
                        ));
                    }
                    LockWait::Wait => locker.txns.wait_for(txn, holder, &limits)?,
                },
                Claim::Gone(_) if locker.repeatable => {
                    return Err(Error::new(
                        "40001",
                        "could not serialize access due to concurrent update",
                    ));
                }
                Claim::Gone(_) => {
                    return Err(Error::new(RESTART, "row changed: run the statement again"));
                }
            }
        }
    }

    fn fill(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let wanted = match &self.count {
            Some((limit, offset)) => match eval_count(limit, ctx, "LIMIT")? {
                Some(l) => Some(l + eval_count(offset, ctx, "OFFSET")?.unwrap_or(0)),
                None => None,
            },
            None => None,
        };
        let mut out = Vec::new();
        let mut locked = 0u64;
        while wanted.is_none_or(|w| locked < w) {
            let Some(b) = self.input.next(ctx)? else {
                break;
            };
            let b = b.compact();
            let Data::I64(ids) = &b.columns[self.rid].data else {
                return Err(Error::internal("LockRows without row ids"));
            };
            let mut keep: Vec<u32> = Vec::with_capacity(b.rows);
            for (r, &id) in ids.iter().enumerate() {
                if wanted.is_some_and(|w| locked >= w) {
                    break;
                }
                if self.lock(id as RowId, ctx)? {
                    keep.push(r as u32);
                    locked += 1;
                }
            }
            out.push(Batch::new(
                b.columns.iter().map(|c| c.gather(&keep)).collect(),
                keep.len(),
            ));
        }
        Ok(out)
    }
}

impl Operator for LockRowsOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.out.is_none() {
            let batches = self.fill(ctx)?;
            self.out = Some(batches.into_iter());
        }
        Ok(self.out.as_mut().and_then(|o| o.next()))
    }
}
