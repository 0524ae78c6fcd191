//! Column pruning: a scan reads only the table columns its plan uses.
//!
//! Walks the plan top-down carrying the set of input columns each node needs from its
//! child. Projections and aggregations need exactly the columns their expressions read;
//! filters and sorts add their own; pass-through nodes (DISTINCT, LIMIT) need what their
//! parent needs. The scan records the result in `needed`; unread columns are left as
//! empty vectors, so positions (and every bound column index) stay valid.

use super::Plan;
use crate::sql::expr::Expr;

/// Marks the input columns `e` reads.
pub fn mark(e: &Expr, need: &mut [bool]) {
    if let Expr::Column { index, .. } = e
        && let Some(slot) = need.get_mut(*index)
    {
        *slot = true;
    }
    e.children(&mut |c| mark(c, need));
}

fn width(plan: &Plan) -> usize {
    crate::sql::binder::plan_width(plan)
}

/// Prunes `plan`, whose parent needs `need` of its output columns (`None`: all of them).
pub fn prune(plan: &mut Plan, need: Option<Vec<bool>>) {
    match plan {
        Plan::Scan {
            filter,
            needed,
            table,
            row_ids,
        } => {
            let Some(mut n) = need else { return };
            n.resize(table.columns.len() + usize::from(*row_ids), false);
            if let Some(f) = filter {
                mark(f, &mut n);
            }
            *needed = Some(n);
        }
        Plan::Values { .. } | Plan::GenerateSeries { .. } => {}
        Plan::Filter { input, predicate } => {
            let n = need.map(|mut n| {
                n.resize(width(input), false);
                mark(predicate, &mut n);
                n
            });
            prune(input, n);
        }
        Plan::Project { input, exprs } => {
            let mut n = vec![false; width(input)];
            for e in exprs.iter() {
                mark(e, &mut n);
            }
            prune(input, Some(n));
        }
        Plan::Aggregate {
            input,
            group_by,
            aggs,
        } => {
            let mut n = vec![false; width(input)];
            for g in group_by.iter() {
                mark(g, &mut n);
            }
            for a in aggs.iter() {
                if let Some(arg) = &a.arg {
                    mark(arg, &mut n);
                }
            }
            prune(input, Some(n));
        }
        Plan::Sort { input, keys, .. } => {
            let n = need.map(|mut n| {
                n.resize(width(input), false);
                for k in keys.iter() {
                    if let Some(slot) = n.get_mut(k.column) {
                        *slot = true;
                    }
                }
                n
            });
            prune(input, n);
        }
        // DISTINCT compares whole rows: it needs every column of its input.
        Plan::Distinct { input } => prune(input, None),
        Plan::Limit { input, .. } => prune(input, need),
    }
}
