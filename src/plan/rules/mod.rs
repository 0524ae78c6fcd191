//! The optimizer: rewrite rules over logical plans, one file each.
//!
//! Every rule walks the tree through the shared API of [`LogicalPlan`] (`inputs_mut`,
//! `exprs_mut`, `walk_mut_pre`/`walk_mut_post`, `output`) and leaves a plan that means
//! the same thing: same rows, same errors. [`optimize`] runs them in a fixed order:
//!
//! 1. [`decorrelate`]: subqueries in WHERE and the select list become joins;
//! 2. [`pushdown`]: WHERE conjuncts move as far down as they can go (into join
//!    conditions and scans), and outer joins a filter makes pointless become inner;
//! 3. [`join_order`]: inner joins in the order the cardinality estimates make
//!    cheapest, the smaller input of each on the build side;
//! 4. [`fold`]: constant folding as PostgreSQL's planner does it;
//! 5. [`prune`]: every node computes only the columns some parent reads.

pub mod decorrelate;
pub mod fold;
pub mod join_order;
pub mod prune;
pub mod pushdown;

use super::logical::{LogicalPlan, RelId};
use crate::error::Result;
use crate::types::text::TextFormat;

/// Hands out relation numbers for nodes the rules create (continuing the binder's).
pub struct RelIds<'a>(pub &'a mut RelId);

impl RelIds<'_> {
    pub fn fresh(&mut self) -> RelId {
        *self.0 += 1;
        *self.0 - 1
    }
}

/// Runs the rules over a statement's plan.
pub fn optimize(plan: &mut LogicalPlan, fmt: TextFormat, next_rel: &mut RelId) -> Result<()> {
    let mut ids = RelIds(next_rel);
    decorrelate::decorrelate(plan, &mut ids);
    pushdown::push_filters(plan);
    join_order::reorder_joins(plan);
    fold::fold_plan(plan, fmt)?;
    prune::prune(plan);
    Ok(())
}
