//! Predicate pushdown: a filter moves below the operators it can pass, down to the scan,
//! where it narrows the selection vector before any column is copied.
//!
//! A `Filter` directly over a `Get` becomes the scan's filter (after any filter the scan
//! already has, so conjuncts keep their order and the first failing row's error is the
//! one PostgreSQL reports).

use crate::plan::logical::LogicalPlan;
use crate::sql::expr::Expr;

/// Pushes every filter of `plan` as far down as it goes.
pub fn push_filters(plan: &mut LogicalPlan) {
    plan.walk_mut_post(&mut |node| {
        let LogicalPlan::Filter { input, predicate } = node else {
            return;
        };
        if let LogicalPlan::Get { filter, .. } = input.as_mut() {
            let taken = std::mem::replace(predicate, Expr::literal_bool(true));
            *filter = Some(match filter.take() {
                None => taken,
                Some(existing) => {
                    let mut all = existing.conjuncts();
                    all.extend(taken.conjuncts());
                    Expr::And(all)
                }
            });
            let get = std::mem::replace(
                input.as_mut(),
                LogicalPlan::Values {
                    rel: 0,
                    rows: Vec::new(),
                    types: Vec::new(),
                },
            );
            *node = get;
        }
    });
}
