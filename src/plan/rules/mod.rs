//! The optimizer: rewrite rules over logical plans, one file each.
//!
//! Every rule walks the tree through the shared API of [`LogicalPlan`] (`inputs_mut`,
//! `exprs_mut`, `walk_mut_pre`/`walk_mut_post`, `output`) and leaves a plan that means
//! the same thing: same rows, same errors. [`optimize`] runs them in a fixed order:
//!
//! 1. [`pushdown`]: WHERE conjuncts move as far down as they can go (into scans);
//! 2. [`fold`]: constant folding as PostgreSQL's planner does it;
//! 3. [`prune`]: every node computes only the columns some parent reads.

pub mod fold;
pub mod prune;
pub mod pushdown;

use super::logical::LogicalPlan;
use crate::error::Result;
use crate::types::text::TextFormat;

/// Runs the rules over a statement's plan.
pub fn optimize(plan: &mut LogicalPlan, fmt: TextFormat) -> Result<()> {
    pushdown::push_filters(plan);
    fold::fold_plan(plan, fmt)?;
    prune::prune(plan);
    Ok(())
}
