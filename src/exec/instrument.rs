//! EXPLAIN ANALYZE's measurements: an operator wrapped to count the rows it returns and
//! the time spent inside it (its inputs included, its parent's work between calls not)
//! until its first row and in all — as PostgreSQL's "actual time".

use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use super::context::ExecContext;
use super::vector::Batch;
use super::{BoxedOperator, Operator};
use crate::error::Result;
use crate::plan::explain::NodeActuals;

/// Measurements of every node of a plan, by pre-order index.
pub type Actuals = Arc<Mutex<Vec<NodeActuals>>>;

pub struct Instrumented {
    inner: BoxedOperator,
    meter: Meter,
}

impl Instrumented {
    pub fn new(inner: BoxedOperator, actuals: Actuals, index: usize) -> Instrumented {
        Instrumented {
            inner,
            meter: Meter::new(actuals, index),
        }
    }
}

/// The measurements of one node: fed each call's duration and result by whoever runs
/// the node ([`Instrumented`], or an operator that drives a child itself, such as a
/// sort reading its table directly).
pub struct Meter {
    actuals: Actuals,
    index: usize,
    spent: std::time::Duration,
    seen_row: bool,
    done: bool,
}

impl Meter {
    pub fn new(actuals: Actuals, index: usize) -> Meter {
        Meter {
            actuals,
            index,
            spent: std::time::Duration::ZERO,
            seen_row: false,
            done: false,
        }
    }

    /// Records one call that started at `started` and returned `out`.
    pub fn record(&mut self, started: Instant, out: &Option<Batch>) {
        self.spent += started.elapsed();
        let ms = self.spent.as_secs_f64() * 1000.0;
        let mut all = self.actuals.lock();
        if let Some(a) = all.get_mut(self.index) {
            a.loops = 1;
            a.total_ms = ms;
            match out {
                Some(b) => {
                    let rows = b.live_rows() as u64;
                    a.rows += rows;
                    if rows > 0 && !self.seen_row {
                        self.seen_row = true;
                        a.first_ms = ms;
                    }
                }
                None if !self.done => {
                    self.done = true;
                    if !self.seen_row {
                        a.first_ms = ms;
                    }
                }
                None => {}
            }
        }
    }
}

impl Operator for Instrumented {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let started = Instant::now();
        let out = self.inner.next(ctx)?;
        self.meter.record(started, &out);
        Ok(out)
    }

    fn push_key_filter(
        &mut self,
        col: usize,
        filter: &std::sync::Arc<super::keyfilter::KeyFilter>,
    ) -> bool {
        self.inner.push_key_filter(col, filter)
    }
}
