//! The vectorized executor: a tree of pull-based operators passing [`vector::Batch`]es.
//!
//! `build` turns a [`Plan`] into operators; `next` returns the next batch or `None` when
//! the operator is exhausted. Every operator checks for cancellation and timeout between
//! batches. Operators that must see all input first (aggregate, sort) gather it into
//! column vectors once, then emit slices of at most [`vector::BATCH_ROWS_MAX`] rows.

pub mod aggregate;
pub mod context;
pub mod date_functions;
pub mod expr;
pub mod functions;
pub mod join;
pub mod keys;
pub mod ops;
pub mod scan;
pub mod sort;
pub mod string_functions;
pub mod subplan;
pub mod vector;

use context::ExecContext;
use vector::Batch;

use crate::error::Result;
use crate::plan::Plan;

pub trait Operator: Send {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>>;
}

pub type BoxedOperator = Box<dyn Operator>;

pub fn build(plan: &Plan) -> BoxedOperator {
    match plan {
        Plan::Scan {
            table,
            filter,
            row_ids,
            needed,
        } => Box::new(scan::Scan::new(
            table.clone(),
            filter.clone(),
            *row_ids,
            needed.clone(),
        )),
        Plan::Values { rows, types } => Box::new(ops::ValuesOp::new(rows.clone(), types.clone())),
        Plan::GenerateSeries { args, ty } => Box::new(ops::SeriesOp::new(args.clone(), *ty)),
        Plan::Filter { input, predicate } => Box::new(ops::FilterOp {
            input: build(input),
            predicate: predicate.clone(),
            pending: None,
        }),
        Plan::Project { input, exprs } => Box::new(ops::ProjectOp {
            input: build(input),
            exprs: exprs.clone(),
            pending: None,
        }),
        Plan::Aggregate {
            input,
            group_by,
            aggs,
        } => Box::new(aggregate::AggregateOp::new(
            build(input),
            group_by.clone(),
            aggs.clone(),
        )),
        Plan::Distinct { input } => Box::new(ops::DistinctOp::new(build(input))),
        Plan::Sort { input, keys, limit } => {
            if let Plan::Scan {
                table,
                filter,
                row_ids: false,
                needed,
            } = input.as_ref()
                && sort::late_pays_off(table.columns.len(), needed.as_deref(), keys)
            {
                return Box::new(sort::SortOp::over_table(
                    table.clone(),
                    filter.clone(),
                    needed.clone(),
                    keys.clone(),
                    limit.clone(),
                ));
            }
            Box::new(sort::SortOp::new(build(input), keys.clone(), limit.clone()))
        }
        Plan::Limit {
            input,
            limit,
            offset,
        } => Box::new(ops::LimitOp::new(
            build(input),
            limit.clone(),
            offset.clone(),
        )),
        Plan::Join {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
            left_types,
            right_types,
        } => Box::new(join::JoinOp::new(
            build(left),
            build(right),
            join::JoinSpec {
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

/// Runs a plan to completion, returning its batches with dense columns.
pub fn collect(plan: &Plan, ctx: &ExecContext) -> Result<Vec<Batch>> {
    let mut op = build(plan);
    let mut out = Vec::new();
    while let Some(b) = op.next(ctx)? {
        out.push(b.compact());
    }
    Ok(out)
}
