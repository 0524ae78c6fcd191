//! Column pruning: every node computes only the columns some parent reads.
//!
//! Walks the plan top-down carrying the set of [`ColumnId`]s the parent needs. A scan
//! keeps only the table columns needed (its own filter's included), so unread columns
//! are never copied out of storage. A projection keeps its relation's numbering: an
//! expression no parent reads becomes [`Expr::Unused`] (never computed) instead of being
//! removed, so no
//! column id changes. DISTINCT compares whole rows, so it needs every input column.
//! Subqueries are pruned on their own: a scalar subquery needs its one column, an
//! `ANY`/`ALL` subquery the columns its comparisons read, an `EXISTS` none at all (its
//! select list is never evaluated, as in PostgreSQL).

use std::collections::HashSet;

use crate::plan::logical::{ColumnId, LogicalPlan};
use crate::sql::expr::{Expr, SubqueryKind};

/// Prunes `plan`, whose every output column is needed.
pub fn prune(plan: &mut LogicalPlan) {
    let need: HashSet<ColumnId> = plan.output().iter().map(|c| c.id).collect();
    prune_node(plan, need);
}

/// Adds the columns `e` reads (inside its subqueries too) to `need`.
pub fn mark(e: &Expr, need: &mut HashSet<ColumnId>) {
    e.column_refs(&mut |id, _| {
        need.insert(id);
    });
}

/// Adds the columns of enclosing relations that `plan` reads to `need`.
fn mark_free(plan: &LogicalPlan, need: &mut HashSet<ColumnId>) {
    let mut defined = std::collections::BTreeSet::new();
    plan.defined_rels(&mut defined);
    plan.walk(&mut |p| {
        p.exprs(&mut |e| {
            e.column_refs(&mut |id, _| {
                if !defined.contains(&id.rel) {
                    need.insert(id);
                }
            })
        })
    });
}

fn prune_subqueries(e: &mut Expr) {
    if let Expr::Subquery(sub) = e {
        let out = sub.plan.output();
        let need: HashSet<ColumnId> = match &sub.kind {
            SubqueryKind::Scalar | SubqueryKind::Array => {
                out.first().map(|c| c.id).into_iter().collect()
            }
            SubqueryKind::Exists => HashSet::new(),
            SubqueryKind::Any { right, .. }
            | SubqueryKind::All { right, .. }
            | SubqueryKind::Row { right, .. } => {
                let mut n = HashSet::new();
                right.iter().for_each(|r| mark(r, &mut n));
                n
            }
        };
        prune_node(&mut sub.plan, need);
    }
    e.children_mut(&mut prune_subqueries);
}

fn prune_node(plan: &mut LogicalPlan, mut need: HashSet<ColumnId>) {
    plan.exprs_mut(&mut prune_subqueries);
    match plan {
        LogicalPlan::Get {
            rel,
            columns,
            filter,
            ..
        } => {
            if let Some(f) = filter {
                mark(f, &mut need);
            }
            let rel = *rel;
            columns.retain(|&c| need.contains(&ColumnId::new(rel, c)));
        }
        LogicalPlan::Values { .. } | LogicalPlan::Series { .. } => {}
        LogicalPlan::Filter { input, predicate } => {
            mark(predicate, &mut need);
            prune_node(input, need);
        }
        LogicalPlan::Project { input, rel, exprs } => {
            let mut child = HashSet::new();
            for (i, e) in exprs.iter_mut().enumerate() {
                if need.contains(&ColumnId::new(*rel, i as u32)) {
                    mark(e, &mut child);
                } else {
                    *e = Expr::Unused { ty: e.ty() };
                }
            }
            prune_node(input, child);
        }
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggs,
            ..
        } => {
            let mut child = HashSet::new();
            group_by.iter().for_each(|g| mark(g, &mut child));
            aggs.iter()
                .for_each(|a| a.exprs(&mut |e| mark(e, &mut child)));
            prune_node(input, child);
        }
        LogicalPlan::Join {
            left, right, on, ..
        } => {
            mark(on, &mut need);
            // A LATERAL right input reads left columns of its own.
            let mut left_need = need.clone();
            mark_free(right, &mut left_need);
            prune_node(left, left_need);
            prune_node(right, need);
        }
        LogicalPlan::Sort { input, keys } => {
            for k in keys.iter() {
                mark(&k.expr, &mut need);
            }
            prune_node(input, need);
        }
        LogicalPlan::DistinctOn { input, keys } => {
            for k in keys.iter() {
                mark(k, &mut need);
            }
            prune_node(input, need);
        }
        LogicalPlan::Distinct { input } => {
            let all = input.output().iter().map(|c| c.id).collect();
            prune_node(input, all);
        }
        LogicalPlan::Limit { input, ties, .. } => {
            for e in ties.iter() {
                mark(e, &mut need);
            }
            prune_node(input, need)
        }
        LogicalPlan::Window { input, calls, .. } => {
            for c in calls.iter() {
                c.exprs(&mut |e| mark(e, &mut need));
            }
            prune_node(input, need);
        }
        LogicalPlan::ProjectSet { input, calls, .. } => {
            for e in calls.iter().flat_map(|c| &c.args) {
                mark(e, &mut need);
            }
            prune_node(input, need);
        }
        LogicalPlan::With { ctes, input } => {
            for c in ctes.iter_mut() {
                let all = c.plan.output().iter().map(|o| o.id).collect();
                prune_node(&mut c.plan, all);
            }
            prune_node(input, need);
        }
        // Set operations compare whole rows; a recursive CTE's steps feed each other.
        LogicalPlan::SetOp { left, right, .. }
        | LogicalPlan::RecursiveCte {
            anchor: left,
            recursive: right,
            ..
        } => {
            let all = left.output().iter().map(|o| o.id).collect();
            prune_node(left, all);
            let all = right.output().iter().map(|o| o.id).collect();
            prune_node(right, all);
        }
        LogicalPlan::CteScan { .. } | LogicalPlan::WorkTable { .. } => {}
    }
}
