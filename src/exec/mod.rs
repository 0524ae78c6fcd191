//! The vectorized executor: a tree of pull-based operators passing [`vector::Batch`]es.
//!
//! `build` turns a [`Plan`] into operators; `next` returns the next batch or `None` when
//! the operator is exhausted. Every operator checks for cancellation and timeout between
//! batches. Operators that must see all input first (aggregate, sort) gather it into
//! column vectors once, then emit slices of at most [`vector::BATCH_ROWS_MAX`] rows.

pub mod agg_stats;
pub mod aggregate;
pub mod apply;
pub mod array_functions;
pub mod bytes_functions;
pub mod context;
pub mod cte;
pub mod date_functions;
pub mod expr;
pub mod extension_functions;
pub mod functions;
pub mod index_scan;
pub mod instrument;
pub mod join;
pub mod json_functions;
pub mod jsonpath;
pub mod keyfilter;
pub mod keys;
pub mod lock_rows;
pub mod ops;
pub mod regexp;
pub mod scan;
pub mod setop;
pub mod sort;
pub mod string_functions;
pub mod subplan;
pub mod tsearch_functions;
pub mod vector;
pub mod window;

use std::sync::Arc;

use context::ExecContext;
use vector::Batch;

use crate::error::Result;
use crate::plan::Plan;
use crate::plan::physical::Op;

pub trait Operator: Send {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>>;

    /// Takes a join's key filter on output position `col` down to the scan that
    /// produces that column (see [`keyfilter`]); false when this operator cannot drop
    /// rows by it.
    fn push_key_filter(&mut self, _col: usize, _filter: &Arc<keyfilter::KeyFilter>) -> bool {
        false
    }
}

pub type BoxedOperator = Box<dyn Operator>;

pub fn build(plan: &Plan) -> BoxedOperator {
    build_with(plan, &mut None)
}

/// Builds `plan` with every operator measured for EXPLAIN ANALYZE (pre-order indexes,
/// as `plan::explain` numbers the nodes).
pub fn build_instrumented(plan: &Plan, actuals: &instrument::Actuals) -> BoxedOperator {
    build_with(plan, &mut Some((actuals.clone(), 0)))
}

/// The measurements being attached, and the next node's pre-order index.
type Instrumentation = Option<(instrument::Actuals, usize)>;

fn build_with(plan: &Plan, inst: &mut Instrumentation) -> BoxedOperator {
    let index = match inst {
        Some((_, next)) => {
            *next += 1;
            *next - 1
        }
        None => 0,
    };
    let op = build_op(plan, inst);
    match inst {
        Some((actuals, _)) => Box::new(instrument::Instrumented::new(op, actuals.clone(), index)),
        None => op,
    }
}

fn build_op(plan: &Plan, inst: &mut Instrumentation) -> BoxedOperator {
    match &plan.op {
        Op::Scan {
            table,
            row_ids,
            needed,
            index: Some(lookup),
            ..
        } => Box::new(index_scan::IndexScan::new(
            table.clone(),
            (**lookup).clone(),
            *row_ids,
            needed.clone(),
        )),
        Op::Scan {
            table,
            filter,
            row_ids,
            needed,
            ..
        } => Box::new(scan::Scan::new(
            table.clone(),
            filter.clone(),
            *row_ids,
            needed.clone(),
        )),
        Op::Values { rows, types } => Box::new(ops::ValuesOp::new(rows.clone(), types.clone())),
        Op::GenerateSeries {
            func: crate::plan::logical::TableFunc::System(t),
            ..
        } => Box::new(ops::SystemScanOp {
            table: *t,
            done: false,
        }),
        Op::GenerateSeries {
            func: crate::plan::logical::TableFunc::GenerateSeries,
            args,
            types,
            ordinality,
        } => Box::new(ops::SeriesOp::new(args.clone(), types[0], *ordinality)),
        Op::GenerateSeries {
            func,
            args,
            types,
            ordinality,
        } => Box::new(ops::UnnestOp::new(
            *func,
            args.clone(),
            types.clone(),
            *ordinality,
        )),
        Op::Filter { input, predicate } => Box::new(ops::FilterOp {
            input: build_with(input, inst),
            predicate: predicate.clone(),
            pending: None,
        }),
        Op::Project { input, exprs } => Box::new(ops::ProjectOp {
            input: build_with(input, inst),
            exprs: exprs.clone(),
            pending: None,
        }),
        Op::Aggregate {
            input,
            group_by,
            aggs,
        } => Box::new(aggregate::AggregateOp::new(
            build_with(input, inst),
            group_by.clone(),
            aggs.clone(),
        )),
        Op::Distinct { input } => {
            Box::new(ops::DistinctOp::new(build_with(input, inst), plan.rows))
        }
        Op::DistinctOn { input, keys } => Box::new(ops::DistinctOnOp::new(
            build_with(input, inst),
            keys.clone(),
        )),
        Op::Sort { input, keys, limit } => {
            if let Op::Scan {
                table,
                filter,
                row_ids: false,
                needed,
                index: None,
                ..
            } = &input.op
                && sort::late_pays_off(table.columns.len(), needed.as_deref(), keys)
            {
                // The sort reads the table itself: the scan node has no operator of its
                // own, so the sort measures it.
                let meter = inst.as_mut().map(|(actuals, next)| {
                    *next += 1;
                    instrument::Meter::new(actuals.clone(), *next - 1)
                });
                return Box::new(sort::SortOp::over_table(
                    table.clone(),
                    filter.clone(),
                    needed.clone(),
                    keys.clone(),
                    limit.clone(),
                    meter,
                ));
            }
            Box::new(sort::SortOp::new(
                build_with(input, inst),
                keys.clone(),
                limit.clone(),
            ))
        }
        Op::LockRows {
            input,
            table,
            rid,
            wait,
            count,
        } => Box::new(lock_rows::LockRowsOp::new(
            build_with(input, inst),
            table.clone(),
            *rid,
            *wait,
            count.clone(),
        )),
        Op::Limit {
            input,
            limit,
            offset,
            ties,
        } => Box::new(ops::LimitOp::new(
            build_with(input, inst),
            ties.clone(),
            limit.clone(),
            offset.clone(),
        )),
        Op::ProjectSet {
            input,
            calls,
            input_types,
        } => Box::new(ops::ProjectSetOp::new(
            build_with(input, inst),
            calls.clone(),
            input_types.clone(),
        )),
        Op::Window {
            input,
            calls,
            input_types,
        } => Box::new(window::WindowOp::new(
            build_with(input, inst),
            calls.clone(),
            input_types.clone(),
        )),
        Op::Apply {
            left,
            right,
            kind,
            params,
            condition,
            right_types,
        } => Box::new(apply::ApplyOp::new(
            build_with(left, inst),
            right.clone(),
            *kind,
            params.clone(),
            condition.clone(),
            right_types.clone(),
        )),
        Op::Append { inputs } => Box::new(setop::AppendOp::new(
            inputs.iter().map(|i| build_with(i, inst)).collect(),
        )),
        Op::SetOp {
            kind,
            all,
            left,
            right,
        } => Box::new(setop::SetOpOp::new(
            *kind,
            *all,
            build_with(left, inst),
            build_with(right, inst),
        )),
        Op::CteScan { id, plan, .. } => Box::new(cte::CteScanOp::new(*id, plan.clone())),
        Op::WorkTableScan { id, .. } => Box::new(cte::WorkTableScanOp::new(*id)),
        Op::RecursiveUnion {
            id,
            anchor,
            recursive,
            all,
            ..
        } => {
            let anchor = build_with(anchor, inst);
            // The recursive term is built afresh for every step, unmeasured.
            if let Some((_, next)) = inst {
                *next += count_nodes(recursive);
            }
            Box::new(cte::RecursiveUnionOp::new(
                *id,
                anchor,
                std::sync::Arc::new((**recursive).clone()),
                *all,
            ))
        }
        Op::Join {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
            left_types,
            right_types,
        } => Box::new(join::JoinOp::new(
            build_with(left, inst),
            build_with(right, inst),
            join::JoinSpec {
                // Worth testing probe rows against the build keys when most probe rows
                // are expected to find none.
                key_filter: right.rows * 2.0 < left.rows,
                kind: *kind,
                left_keys: left_keys.clone(),
                right_keys: right_keys.clone(),
                residual: residual.clone(),
                left_types: left_types.clone(),
                right_types: right_types.clone(),
            },
        )),
    }
}

/// Nodes of a physical plan, as EXPLAIN numbers them.
pub fn count_nodes(plan: &Plan) -> usize {
    1 + plan.inputs().into_iter().map(count_nodes).sum::<usize>()
}

/// Runs a plan to completion, returning its batches with dense columns.
pub fn collect(plan: &Plan, ctx: &ExecContext) -> Result<Vec<Batch>> {
    let mut op = build(plan);
    let mut out = Vec::new();
    while let Some(b) = op.next(ctx)? {
        out.push(b.compact());
    }
    Ok(out)
}
