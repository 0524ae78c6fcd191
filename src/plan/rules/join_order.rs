//! Join ordering from cardinality estimates.
//!
//! A tree of inner joins is one *cluster*: its inputs (the leaves, anything that is not
//! an inner join) and the conjuncts of its conditions can be joined in any order. For up
//! to [`DP_LEAVES_MAX`] leaves the rule finds the cheapest order by dynamic programming
//! over subsets (DPsub, considering bushy trees), with cost = the sum of the estimated
//! rows of every intermediate result (C_out); a split needs a condition between its
//! two halves unless no split of that subset has one (then a cross product is the only
//! way). Larger clusters are joined greedily: always the connected pair with the
//! smallest result. Each condition goes to the lowest join that has all its inputs, and
//! every join puts its smaller input on the right, the side the hash join builds.
//!
//! Outer joins keep their shape; a left or right join whose preserved side is much the
//! smaller is mirrored so that the hash table is built on the small side.

use std::collections::BTreeSet;

use crate::plan::cardinality::{Estimate, estimate, join_estimate};
use crate::plan::logical::{JoinKind, LogicalPlan, RelId};
use crate::sql::expr::Expr;
use crate::types::Value;

/// Clusters up to this many inputs are ordered exactly.
pub const DP_LEAVES_MAX: usize = 10;

/// Orders every join cluster of `plan` (and of its subqueries).
pub fn reorder_joins(plan: &mut LogicalPlan) {
    plan.exprs_mut(&mut reorder_in_subqueries);
    if matches!(
        plan,
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            left,
            right,
            ..
        } if !is_lateral(left, right)
    ) {
        let mut leaves = Vec::new();
        let mut preds = Vec::new();
        collect(take(plan), &mut leaves, &mut preds);
        for leaf in leaves.iter_mut() {
            reorder_joins(leaf);
        }
        *plan = order(leaves, preds);
        return;
    }
    for input in plan.inputs_mut() {
        reorder_joins(input);
    }
    mirror_outer_join(plan);
}

fn reorder_in_subqueries(e: &mut Expr) {
    if let Expr::Subquery(sub) = e {
        reorder_joins(&mut sub.plan);
    }
    e.children_mut(&mut reorder_in_subqueries);
}

fn take(plan: &mut LogicalPlan) -> LogicalPlan {
    std::mem::replace(
        plan,
        LogicalPlan::Values {
            rel: 0,
            rows: Vec::new(),
            types: Vec::new(),
        },
    )
}

/// Whether the right input reads the left's columns (a LATERAL join): then the two
/// cannot be reordered.
pub fn is_lateral(left: &LogicalPlan, right: &LogicalPlan) -> bool {
    let free = right.free_rels();
    if free.is_empty() {
        return false;
    }
    let mut lrels = BTreeSet::new();
    left.defined_rels(&mut lrels);
    free.iter().any(|r| lrels.contains(r))
}

fn collect(plan: LogicalPlan, leaves: &mut Vec<LogicalPlan>, preds: &mut Vec<Expr>) {
    match plan {
        LogicalPlan::Join {
            left,
            right,
            kind: JoinKind::Inner,
            on,
            mark: None,
        } if !is_lateral(&left, &right) => {
            collect(*left, leaves, preds);
            collect(*right, leaves, preds);
            preds.extend(on.conjuncts().into_iter().filter(|c| !is_true(c)));
        }
        other => leaves.push(other),
    }
}

fn is_true(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Literal {
            value: Value::Bool(true),
            ..
        }
    )
}

/// A left join whose left input is much smaller is run as the mirrored right join, so
/// the hash table holds the small side (and the same for right joins).
fn mirror_outer_join(plan: &mut LogicalPlan) {
    let LogicalPlan::Join {
        left, right, kind, ..
    } = plan
    else {
        return;
    };
    if !matches!(kind, JoinKind::Left | JoinKind::Right) || is_lateral(left, right) {
        return;
    }
    let (l, r) = (estimate(left).rows, estimate(right).rows);
    if l * 2.0 < r {
        std::mem::swap(left, right);
        *kind = match kind {
            JoinKind::Left => JoinKind::Right,
            _ => JoinKind::Left,
        };
    }
}

struct Leaf {
    plan: LogicalPlan,
    est: Estimate,
}

/// One condition of the cluster: which leaves it reads.
struct Pred {
    expr: Expr,
    mask: u64,
}

/// The best way found to join a subset of the leaves.
#[derive(Clone)]
struct Entry {
    cost: f64,
    est: Estimate,
    tree: Tree,
}

#[derive(Clone)]
enum Tree {
    Leaf(usize),
    Join(Box<Tree>, Box<Tree>),
}

fn order(plans: Vec<LogicalPlan>, exprs: Vec<Expr>) -> LogicalPlan {
    let leaves: Vec<Leaf> = plans
        .into_iter()
        .map(|plan| {
            let est = estimate(&plan);
            Leaf { plan, est }
        })
        .collect();
    let rels: Vec<BTreeSet<RelId>> = leaves
        .iter()
        .map(|l| {
            let mut s = BTreeSet::new();
            l.plan.defined_rels(&mut s);
            s
        })
        .collect();
    let preds: Vec<Pred> = exprs
        .into_iter()
        .map(|expr| {
            let mut used = BTreeSet::new();
            expr.used_rels(&mut used);
            let mut mask = 0u64;
            for (i, r) in rels.iter().enumerate() {
                if used.iter().any(|u| r.contains(u)) {
                    mask |= 1 << i;
                }
            }
            Pred { expr, mask }
        })
        .collect();
    let tree = if leaves.len() <= DP_LEAVES_MAX {
        dp(&leaves, &preds)
    } else {
        greedy(&leaves, &preds)
    };
    build(tree, leaves, preds)
}

/// The condition joining subsets `a` and `b` (conjuncts that need both and nothing
/// outside them).
fn condition(preds: &[Pred], a: u64, b: u64) -> Expr {
    let both = a | b;
    let list: Vec<Expr> = preds
        .iter()
        .filter(|p| p.mask & a != 0 && p.mask & b != 0 && p.mask & !both == 0)
        .map(|p| p.expr.clone())
        .collect();
    Expr::and_all(list).unwrap_or_else(|| Expr::literal_bool(true))
}

fn connected(preds: &[Pred], a: u64, b: u64) -> bool {
    let both = a | b;
    preds
        .iter()
        .any(|p| p.mask & a != 0 && p.mask & b != 0 && p.mask & !both == 0)
}

fn combine(x: &Entry, y: &Entry, a: u64, b: u64, preds: &[Pred]) -> Entry {
    let est = join_estimate(
        x.est.clone(),
        y.est.clone(),
        JoinKind::Inner,
        &condition(preds, a, b),
    );
    Entry {
        cost: x.cost + y.cost + est.rows,
        tree: Tree::Join(Box::new(x.tree.clone()), Box::new(y.tree.clone())),
        est,
    }
}

fn dp(leaves: &[Leaf], preds: &[Pred]) -> Tree {
    let n = leaves.len();
    let full: u64 = (1u64 << n) - 1;
    let mut best: Vec<Option<Entry>> = vec![None; 1 << n];
    for (i, l) in leaves.iter().enumerate() {
        best[1 << i] = Some(Entry {
            cost: 0.0,
            est: l.est.clone(),
            tree: Tree::Leaf(i),
        });
    }
    for set in 1..=full {
        if set.count_ones() < 2 {
            continue;
        }
        for cross in [false, true] {
            let mut chosen: Option<Entry> = None;
            // Each split once: `a` holds the lowest leaf of `set`.
            let low = set & set.wrapping_neg();
            let rest = set & !low;
            let mut sub = rest;
            loop {
                let a = low | sub;
                let b = set & !a;
                if b != 0
                    && (cross || connected(preds, a, b))
                    && let (Some(x), Some(y)) = (&best[a as usize], &best[b as usize])
                {
                    let e = combine(x, y, a, b, preds);
                    if chosen.as_ref().is_none_or(|c| e.cost < c.cost) {
                        chosen = Some(e);
                    }
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & rest;
            }
            if chosen.is_some() {
                best[set as usize] = chosen;
                break;
            }
        }
    }
    match best[full as usize].take() {
        Some(e) => e.tree,
        None => greedy(leaves, preds),
    }
}

fn greedy(leaves: &[Leaf], preds: &[Pred]) -> Tree {
    let mut parts: Vec<(u64, Entry)> = leaves
        .iter()
        .enumerate()
        .map(|(i, l)| {
            (
                1u64 << i,
                Entry {
                    cost: 0.0,
                    est: l.est.clone(),
                    tree: Tree::Leaf(i),
                },
            )
        })
        .collect();
    while parts.len() > 1 {
        let mut pick: Option<(usize, usize, Entry)> = None;
        for cross in [false, true] {
            for i in 0..parts.len() {
                for j in i + 1..parts.len() {
                    let (a, b) = (parts[i].0, parts[j].0);
                    if !cross && !connected(preds, a, b) {
                        continue;
                    }
                    let e = combine(&parts[i].1, &parts[j].1, a, b, preds);
                    if pick.as_ref().is_none_or(|p| e.est.rows < p.2.est.rows) {
                        pick = Some((i, j, e));
                    }
                }
            }
            if pick.is_some() {
                break;
            }
        }
        let Some((i, j, e)) = pick else { break };
        let mask = parts[i].0 | parts[j].0;
        parts.remove(j);
        parts[i] = (mask, e);
    }
    match parts.pop() {
        Some((_, e)) => e.tree,
        None => Tree::Leaf(0),
    }
}

/// Builds the join tree: each condition at the lowest join that has all its inputs,
/// the smaller input on the right.
fn build(tree: Tree, leaves: Vec<Leaf>, preds: Vec<Pred>) -> LogicalPlan {
    let mut slots: Vec<Option<LogicalPlan>> = leaves.into_iter().map(|l| Some(l.plan)).collect();
    let mut placed = vec![false; preds.len()];
    let (plan, _, _) = build_node(tree, &mut slots, &preds, &mut placed);
    // Conditions that read no leaf of the cluster (constants, outer references).
    let rest: Vec<Expr> = preds
        .iter()
        .zip(&placed)
        .filter(|(_, done)| !**done)
        .map(|(p, _)| p.expr.clone())
        .collect();
    match Expr::and_all(rest) {
        None => plan,
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        },
    }
}

fn build_node(
    tree: Tree,
    slots: &mut [Option<LogicalPlan>],
    preds: &[Pred],
    placed: &mut [bool],
) -> (LogicalPlan, u64, f64) {
    match tree {
        Tree::Leaf(i) => {
            let plan = slots[i].take().unwrap_or(LogicalPlan::Values {
                rel: 0,
                rows: Vec::new(),
                types: Vec::new(),
            });
            let rows = estimate(&plan).rows;
            (plan, 1 << i, rows)
        }
        Tree::Join(a, b) => {
            let (pa, ma, ra) = build_node(*a, slots, preds, placed);
            let (pb, mb, rb) = build_node(*b, slots, preds, placed);
            let both = ma | mb;
            let mut on = Vec::new();
            for (k, p) in preds.iter().enumerate() {
                if !placed[k] && p.mask != 0 && p.mask & !both == 0 {
                    placed[k] = true;
                    on.push(p.expr.clone());
                }
            }
            let (left, right) = if rb <= ra { (pa, pb) } else { (pb, pa) };
            let plan = LogicalPlan::Join {
                left: Box::new(left),
                right: Box::new(right),
                kind: JoinKind::Inner,
                on: Expr::and_all(on).unwrap_or_else(|| Expr::literal_bool(true)),
                mark: None,
            };
            let rows = estimate(&plan).rows;
            (plan, both, rows)
        }
    }
}
