//! LATERAL joins: the right input runs once for each left row.
//!
//! Before each run the left row's values that the right input reads are put in the
//! context's outer-parameter slots (as for a correlated subplan); the right rows are
//! paired with the left row, the join condition filters the pairs, and a left join
//! keeps a left row without partners with NULLs on the right.

use std::collections::VecDeque;
use std::sync::Arc;

use super::context::ExecContext;
use super::expr::{eval, eval_filter};
use super::vector::{Batch, Vector};
use super::{BoxedOperator, Operator};
use crate::error::Result;
use crate::plan::Plan;
use crate::plan::logical::JoinKind;
use crate::sql::expr::Expr;
use crate::types::{DataType, Value};

pub struct ApplyOp {
    left: BoxedOperator,
    right: Arc<Plan>,
    kind: JoinKind,
    params: Vec<(usize, Expr)>,
    condition: Option<Expr>,
    right_types: Vec<Option<DataType>>,
    out: VecDeque<Batch>,
}

impl ApplyOp {
    pub fn new(
        left: BoxedOperator,
        right: Arc<Plan>,
        kind: JoinKind,
        params: Vec<(usize, Expr)>,
        condition: Option<Expr>,
        right_types: Vec<Option<DataType>>,
    ) -> ApplyOp {
        ApplyOp {
            left,
            right,
            kind,
            params,
            condition,
            right_types,
            out: VecDeque::new(),
        }
    }

    /// Runs the right input for left row `row` of `batch` and queues the joined rows.
    fn run_row(
        &mut self,
        batch: &Batch,
        row: usize,
        values: &[Vector],
        ctx: &ExecContext,
    ) -> Result<()> {
        {
            let mut slots = ctx.outer.lock();
            for ((slot, e), v) in self.params.iter().zip(values) {
                if slots.len() <= *slot {
                    slots.resize(*slot + 1, Value::Null);
                }
                slots[*slot] = v.value(row, e.ty().ty);
            }
        }
        let mut right = super::build(&self.right);
        let mut matched = false;
        while let Some(rb) = right.next(ctx)? {
            let rb = rb.compact();
            if rb.rows == 0 {
                continue;
            }
            let picks = vec![row as u32; rb.rows];
            let mut columns: Vec<Vector> = batch.columns.iter().map(|c| c.gather(&picks)).collect();
            // As in the hash join, a position no parent reads stays empty.
            columns.extend(
                rb.columns
                    .into_iter()
                    .zip(&self.right_types)
                    .map(|(c, t)| match t {
                        Some(_) => c,
                        None => Vector::with_capacity(DataType::Bool, 0),
                    }),
            );
            let mut pairs = Batch::new(columns, rb.rows);
            if let Some(cond) = &self.condition {
                let all: Vec<u32> = (0..pairs.rows as u32).collect();
                let keep = eval_filter(cond, &pairs, &all, ctx)?;
                if keep.is_empty() {
                    continue;
                }
                if keep.len() != pairs.rows {
                    pairs.sel = Some(keep);
                }
            }
            matched = true;
            self.out.push_back(pairs);
        }
        if !matched && self.kind == JoinKind::Left {
            let mut columns: Vec<Vector> = batch
                .columns
                .iter()
                .map(|c| c.gather(&[row as u32]))
                .collect();
            for t in &self.right_types {
                columns.push(match t {
                    Some(t) => Vector::repeat(&Value::Null, *t, 1),
                    None => Vector::with_capacity(DataType::Bool, 0),
                });
            }
            self.out.push_back(Batch::new(columns, 1));
        }
        Ok(())
    }
}

impl Operator for ApplyOp {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        loop {
            if let Some(b) = self.out.pop_front() {
                return Ok(Some(b));
            }
            ctx.check_interrupt()?;
            let Some(b) = self.left.next(ctx)? else {
                return Ok(None);
            };
            let b = b.compact();
            let sel: Vec<u32> = (0..b.rows as u32).collect();
            let values = self
                .params
                .iter()
                .map(|(_, e)| eval(e, &b, &sel, ctx))
                .collect::<Result<Vec<_>>>()?;
            for row in 0..b.rows {
                self.run_row(&b, row, &values, ctx)?;
            }
        }
    }
}
