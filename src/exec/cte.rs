//! WITH queries: a materialized CTE is computed by the first of its scans to run and
//! kept in the statement's context for the others (so a CTE read twice runs once, as
//! PostgreSQL's CTE Scan) — for the outer row it was computed for: one inside a
//! correlated subquery runs again when the subquery runs for another outer row. WITH RECURSIVE runs its anchor, then its recursive term again
//! and again, each time over the rows the previous step produced (the *work table*),
//! until a step produces none; with UNION (not ALL) a row already produced is dropped,
//! which is what ends a walk around a cycle. Every step's rows are charged to the
//! statement's memory, so runaway recursion ends with `53200` or statement_timeout.

use std::collections::VecDeque;
use std::sync::Arc;

use hashbrown::HashSet;

use super::context::ExecContext;
use super::keys;
use super::vector::Batch;
use super::{BoxedOperator, Operator};
use crate::error::Result;
use crate::plan::Plan;

type Hasher = foldhash::fast::FixedState;

pub struct CteScanOp {
    id: u32,
    plan: Arc<Plan>,
    rows: Option<Arc<Vec<Batch>>>,
    next: usize,
}

impl CteScanOp {
    pub fn new(id: u32, plan: Arc<Plan>) -> CteScanOp {
        CteScanOp {
            id,
            plan,
            rows: None,
            next: 0,
        }
    }
}

impl Operator for CteScanOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.rows.is_none() {
            let outer = ctx.outer.lock().clone();
            let cached = ctx
                .ctes
                .lock()
                .get(&self.id)
                .filter(|(made_for, _)| *made_for == outer)
                .map(|(_, r)| r.clone());
            let rows = match cached {
                Some(r) => r,
                None => {
                    let mut op = super::build(&self.plan);
                    let mut batches = Vec::new();
                    while let Some(b) = op.next(ctx)? {
                        let b = b.compact();
                        if b.rows > 0 {
                            ctx.charge_memory(b.columns.iter().map(|c| c.heap_bytes()).sum())?;
                            batches.push(b);
                        }
                    }
                    let r = Arc::new(batches);
                    ctx.ctes.lock().insert(self.id, (outer, r.clone()));
                    r
                }
            };
            self.rows = Some(rows);
        }
        let Some(rows) = &self.rows else {
            return Ok(None);
        };
        let out = rows.get(self.next).cloned();
        self.next += 1;
        Ok(out)
    }
}

pub struct WorkTableScanOp {
    id: u32,
    rows: Option<Arc<Vec<Batch>>>,
    next: usize,
}

impl WorkTableScanOp {
    pub fn new(id: u32) -> WorkTableScanOp {
        WorkTableScanOp {
            id,
            rows: None,
            next: 0,
        }
    }
}

impl Operator for WorkTableScanOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.rows.is_none() {
            self.rows = Some(
                ctx.worktables
                    .lock()
                    .get(&self.id)
                    .cloned()
                    .unwrap_or_default(),
            );
        }
        let Some(rows) = &self.rows else {
            return Ok(None);
        };
        let out = rows.get(self.next).cloned();
        self.next += 1;
        Ok(out)
    }
}

pub struct RecursiveUnionOp {
    id: u32,
    anchor: Option<BoxedOperator>,
    recursive: Arc<Plan>,
    all: bool,
    /// Rows produced so far (UNION: to drop repeats).
    seen: HashSet<Vec<u8>, Hasher>,
    /// This step's rows, for the next step's work table.
    step: Vec<Batch>,
    /// The recursive term running over the previous step's rows.
    running: Option<BoxedOperator>,
    out: VecDeque<Batch>,
}

impl RecursiveUnionOp {
    pub fn new(
        id: u32,
        anchor: BoxedOperator,
        recursive: Arc<Plan>,
        all: bool,
    ) -> RecursiveUnionOp {
        RecursiveUnionOp {
            id,
            anchor: Some(anchor),
            recursive,
            all,
            seen: HashSet::with_hasher(Hasher::default()),
            step: Vec::new(),
            running: None,
            out: VecDeque::new(),
        }
    }

    /// Keeps the rows of `b` not produced before (all of them with UNION ALL).
    fn admit(&mut self, b: Batch, ctx: &ExecContext) -> Result<()> {
        let b = b.compact();
        if b.rows == 0 {
            return Ok(());
        }
        let b = if self.all {
            b
        } else {
            let mut keep = Vec::new();
            let mut key = Vec::new();
            for i in 0..b.rows {
                key.clear();
                for c in &b.columns {
                    keys::encode(c, i, &mut key);
                }
                if self.seen.insert(key.clone()) {
                    keep.push(i as u32);
                }
            }
            if keep.is_empty() {
                return Ok(());
            }
            let mut kept = b;
            if keep.len() != kept.rows {
                kept.sel = Some(keep);
            }
            kept.compact()
        };
        ctx.charge_memory(b.columns.iter().map(|c| c.heap_bytes()).sum())?;
        self.step.push(b.clone());
        self.out.push_back(b);
        Ok(())
    }
}

impl Operator for RecursiveUnionOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        loop {
            if let Some(b) = self.out.pop_front() {
                return Ok(Some(b));
            }
            ctx.check_interrupt()?;
            if let Some(anchor) = &mut self.anchor {
                match anchor.next(ctx)? {
                    Some(b) => {
                        self.admit(b, ctx)?;
                        continue;
                    }
                    None => self.anchor = None,
                }
            }
            if let Some(running) = &mut self.running {
                match running.next(ctx)? {
                    Some(b) => {
                        self.admit(b, ctx)?;
                        continue;
                    }
                    None => self.running = None,
                }
            }
            // A step is done: the next one reads its rows, or recursion ends.
            if self.step.is_empty() {
                return Ok(None);
            }
            let rows = Arc::new(std::mem::take(&mut self.step));
            ctx.worktables.lock().insert(self.id, rows);
            self.running = Some(super::build(&self.recursive));
        }
    }
}
