//! Set operations: UNION ALL appends its inputs; INTERSECT and EXCEPT (and their ALL
//! forms) read the right input into a hash table of whole rows with a count each, then
//! pass the left rows through it. UNION without ALL is a DISTINCT over the append.
//!
//! Rows are compared as keys ([`super::keys`]): NULLs equal each other, as set
//! operations require. Without ALL a row comes out once; with ALL, INTERSECT ALL keeps
//! `min(m, n)` copies of a row the inputs hold `m` and `n` times, EXCEPT ALL
//! `max(m − n, 0)`.

use hashbrown::HashMap;

use super::context::ExecContext;
use super::keys;
use super::vector::Batch;
use super::{BoxedOperator, Operator};
use crate::error::Result;
use crate::plan::logical::SetOpKind;

type Hasher = foldhash::fast::FixedState;

pub struct AppendOp {
    inputs: Vec<BoxedOperator>,
    current: usize,
}

impl AppendOp {
    pub fn new(inputs: Vec<BoxedOperator>) -> AppendOp {
        AppendOp { inputs, current: 0 }
    }
}

impl Operator for AppendOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        while let Some(input) = self.inputs.get_mut(self.current) {
            match input.next(ctx)? {
                Some(b) => return Ok(Some(b)),
                None => self.current += 1,
            }
        }
        Ok(None)
    }
}

pub struct SetOpOp {
    kind: SetOpKind,
    all: bool,
    left: BoxedOperator,
    right: Option<BoxedOperator>,
    /// Right rows by key, with how many copies are left to match.
    counts: HashMap<Vec<u8>, i64, Hasher>,
}

impl SetOpOp {
    pub fn new(kind: SetOpKind, all: bool, left: BoxedOperator, right: BoxedOperator) -> SetOpOp {
        SetOpOp {
            kind,
            all,
            left,
            right: Some(right),
            counts: HashMap::with_hasher(Hasher::default()),
        }
    }
}

fn row_key(b: &Batch, row: usize, out: &mut Vec<u8>) {
    out.clear();
    for c in &b.columns {
        keys::encode(c, row, out);
    }
}

impl Operator for SetOpOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Some(mut right) = self.right.take() {
            let mut key = Vec::new();
            while let Some(b) = right.next(ctx)? {
                let b = b.compact();
                ctx.charge_memory(b.columns.iter().map(|c| c.heap_bytes()).sum())?;
                for i in 0..b.rows {
                    row_key(&b, i, &mut key);
                    *self.counts.entry(key.clone()).or_insert(0) += 1;
                }
            }
        }
        let mut key = Vec::new();
        while let Some(b) = self.left.next(ctx)? {
            ctx.check_interrupt()?;
            let b = b.compact();
            let mut keep = Vec::new();
            for i in 0..b.rows {
                row_key(&b, i, &mut key);
                let pass = match (self.kind, self.all) {
                    (SetOpKind::Intersect, true) => match self.counts.get_mut(key.as_slice()) {
                        Some(n) if *n > 0 => {
                            *n -= 1;
                            true
                        }
                        _ => false,
                    },
                    (SetOpKind::Intersect, false) => match self.counts.get_mut(key.as_slice()) {
                        // Marked once emitted: a negative count.
                        Some(n) if *n > 0 => {
                            *n = -1;
                            true
                        }
                        _ => false,
                    },
                    (SetOpKind::Except, true) => match self.counts.get_mut(key.as_slice()) {
                        Some(n) if *n > 0 => {
                            *n -= 1;
                            false
                        }
                        _ => true,
                    },
                    (SetOpKind::Except, false) => match self.counts.get_mut(key.as_slice()) {
                        Some(_) => false,
                        None => {
                            // Emitted once: from now on it counts as seen.
                            self.counts.insert(key.clone(), -1);
                            true
                        }
                    },
                    (SetOpKind::Union, _) => true,
                };
                if pass {
                    keep.push(i as u32);
                }
            }
            if !keep.is_empty() {
                let mut out = b;
                if keep.len() != out.rows {
                    out.sel = Some(keep);
                }
                return Ok(Some(out));
            }
        }
        Ok(None)
    }
}
