//! Predicate pushdown: every WHERE conjunct moves as far down as it can go.
//!
//! Conjuncts travel down from the filter that holds them:
//! - into a scan, where they narrow the selection vector before the columns they do
//!   not read are copied;
//! - through a join to the side whose columns they read (both sides of an inner join:
//!   into its condition, where equalities become hash keys — this is what turns a comma
//!   list with WHERE equalities into hash joins); a join's own condition sends its
//!   one-sided conjuncts down the same way where the join kind allows;
//! - through a projection (a derived table, a view) by substituting the projected
//!   expressions, unless one is volatile or holds a subquery;
//! - through an aggregation when they read only its group keys (HAVING → WHERE);
//! - into both branches of UNION, INTERSECT and EXCEPT (with or without ALL), each
//!   copy rewritten over that branch's columns: a filter over whole rows commutes with
//!   every set operation. A volatile conjunct, or one holding a subquery, stays above;
//! - through DISTINCT, ORDER BY and a `With` node (to the query its CTEs serve).
//!
//! They stop above LIMIT, window functions (a removed row still counts in the windows),
//! DISTINCT ON (which row of a key survives depends on every row), a recursive CTE,
//! VALUES, generate_series, a CTE scan and a work table. The filters inside a CTE's
//! query, a recursive CTE's terms and subqueries in expressions are pushed within those
//! plans.
//!
//! Each conjunct arriving at a node is first factored ([`factor_or`]): conjuncts every
//! arm of an OR shares come out of it, `(a AND b) OR (a AND c)` → `a AND (b OR c)`, so
//! `a` is pushed or becomes a join key on its own. An OR left over both sides of an inner
//! join also restricts each side: when every arm has conjuncts over one side, their OR
//! is pushed to that side as well (the join keeps the whole OR), as PostgreSQL's
//! extract_restriction_or_clauses does.
//!
//! On the way, outer joins a filter makes pointless become inner ones: a conjunct that
//! cannot be true when the nullable side's columns are NULL (`b.y > 3` over `a LEFT
//! JOIN b`) removes every NULL-extended row, so the join is inner (PostgreSQL's
//! reduce_outer_joins). Conjuncts keep their order where they meet, so the first
//! failing row's error is the same.
//!
//! Join key filters ([`crate::exec::keyfilter`]) are not this rule's: a hash join
//! builds them at execution time from its build side's keys and hands them to the probe
//! side's scan, which tests them before the filter this rule pushed into it.

use std::collections::{BTreeSet, HashMap};

use super::fold::is_strict;
use crate::plan::logical::{ColumnId, JoinKind, LogicalPlan, RelId};
use crate::sql::expr::Expr;
use crate::sql::functions::Volatility;
use crate::types::Value;

/// Pushes every filter of `plan` (and of the subqueries in its expressions) down.
pub fn push_filters(plan: &mut LogicalPlan) {
    let taken = take(plan);
    *plan = push(taken, Vec::new());
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

fn push_into_subqueries(e: &mut Expr) {
    if let Expr::Subquery(sub) = e {
        push_filters(&mut sub.plan);
    }
    e.children_mut(&mut push_into_subqueries);
}

/// Places `preds` (conjuncts over `plan`'s output) as low in `plan` as they can go.
fn push(mut plan: LogicalPlan, preds: Vec<Expr>) -> LogicalPlan {
    plan.exprs_mut(&mut push_into_subqueries);
    let mut preds: Vec<Expr> = preds
        .into_iter()
        .flat_map(|p| factor_or(p).conjuncts())
        .collect();
    for p in preds.iter_mut() {
        push_into_subqueries(p);
    }
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            let mut all = predicate.conjuncts();
            all.extend(preds);
            all.retain(|c| !is_true(c));
            push(*input, all)
        }
        LogicalPlan::Get {
            rel,
            table,
            alias,
            columns,
            row_id,
            filter,
        } => {
            let mut all = filter.map(Expr::conjuncts).unwrap_or_default();
            all.extend(preds);
            LogicalPlan::Get {
                rel,
                table,
                alias,
                columns,
                row_id,
                filter: Expr::and_all(all),
            }
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            mark,
        } => push_join(*left, *right, kind, on, mark, preds),
        LogicalPlan::Project { input, rel, exprs } => {
            let mut down = Vec::new();
            let mut keep = Vec::new();
            for p in preds {
                match substitute(&p, rel, &exprs) {
                    Some(s) => down.push(s),
                    None => keep.push(p),
                }
            }
            let input = push(*input, down);
            wrap(
                LogicalPlan::Project {
                    input: Box::new(input),
                    rel,
                    exprs,
                },
                keep,
            )
        }
        LogicalPlan::Aggregate {
            input,
            rel,
            group_by,
            aggs,
        } => {
            let mut down = Vec::new();
            let mut keep = Vec::new();
            for p in preds {
                // Only conjuncts over the group keys: substituting an aggregate's
                // column would read a value the input does not have.
                let mut reads_agg = false;
                p.column_refs(&mut |id, _| {
                    if id.rel == rel && id.col as usize >= group_by.len() {
                        reads_agg = true;
                    }
                });
                let substituted = if reads_agg || group_by.is_empty() {
                    None
                } else {
                    substitute(&p, rel, &group_by)
                };
                match substituted {
                    Some(s) => down.push(s),
                    None => keep.push(p),
                }
            }
            let input = push(*input, down);
            wrap(
                LogicalPlan::Aggregate {
                    input: Box::new(input),
                    rel,
                    group_by,
                    aggs,
                },
                keep,
            )
        }
        // A filter above window functions stays there: rows it removes still count
        // in the windows.
        LogicalPlan::Window { input, rel, calls } => wrap(
            LogicalPlan::Window {
                input: Box::new(push(*input, Vec::new())),
                rel,
                calls,
            },
            preds,
        ),
        // A filter above set-returning functions stays there (it sees their rows).
        LogicalPlan::ProjectSet { input, rel, calls } => wrap(
            LogicalPlan::ProjectSet {
                input: Box::new(push(*input, Vec::new())),
                rel,
                calls,
            },
            preds,
        ),
        // Which row of a key survives depends on every row: nothing passes below.
        LogicalPlan::DistinctOn { input, keys } => wrap(
            LogicalPlan::DistinctOn {
                input: Box::new(push(*input, Vec::new())),
                keys,
            },
            preds,
        ),
        LogicalPlan::Distinct { input } => LogicalPlan::Distinct {
            input: Box::new(push(*input, preds)),
        },
        LogicalPlan::Sort { input, keys } => LogicalPlan::Sort {
            input: Box::new(push(*input, preds)),
            keys,
        },
        LogicalPlan::Limit {
            input,
            limit,
            offset,
            ties,
        } => wrap(
            LogicalPlan::Limit {
                input: Box::new(push(*input, Vec::new())),
                limit,
                offset,
                ties,
            },
            preds,
        ),
        leaf @ (LogicalPlan::Values { .. }
        | LogicalPlan::Series { .. }
        | LogicalPlan::CteScan { .. }
        | LogicalPlan::WorkTable { .. }) => wrap(leaf, preds),
        LogicalPlan::With { ctes, input } => {
            let ctes = ctes
                .into_iter()
                .map(|mut c| {
                    push_filters(&mut c.plan);
                    c
                })
                .collect();
            LogicalPlan::With {
                ctes,
                input: Box::new(push(*input, preds)),
            }
        }
        LogicalPlan::SetOp {
            kind,
            all,
            left,
            right,
            rel,
            types,
        } => {
            // A filter commutes with set operations over whole rows: it goes into both
            // inputs, rewritten over each one's columns.
            let refs = |p: &LogicalPlan| -> Vec<Expr> {
                p.output()
                    .iter()
                    .map(|c| Expr::ColumnRef {
                        id: c.id,
                        ty: c.ty,
                        name: String::new(),
                    })
                    .collect()
            };
            let (lrefs, rrefs) = (refs(&left), refs(&right));
            let mut to_left = Vec::new();
            let mut to_right = Vec::new();
            let mut keep = Vec::new();
            for p in preds {
                match (substitute(&p, rel, &lrefs), substitute(&p, rel, &rrefs)) {
                    (Some(l), Some(r)) if !is_volatile(&p) => {
                        to_left.push(l);
                        to_right.push(r);
                    }
                    _ => keep.push(p),
                }
            }
            wrap(
                LogicalPlan::SetOp {
                    kind,
                    all,
                    left: Box::new(push(*left, to_left)),
                    right: Box::new(push(*right, to_right)),
                    rel,
                    types,
                },
                keep,
            )
        }
        LogicalPlan::RecursiveCte {
            rel,
            id,
            name,
            anchor,
            recursive,
            all,
            types,
        } => wrap(
            LogicalPlan::RecursiveCte {
                rel,
                id,
                name,
                anchor: Box::new(push(*anchor, Vec::new())),
                recursive: Box::new(push(*recursive, Vec::new())),
                all,
                types,
            },
            preds,
        ),
    }
}

fn push_join(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: JoinKind,
    on: Expr,
    mark: Option<ColumnId>,
    preds: Vec<Expr>,
) -> LogicalPlan {
    let mut lrels = BTreeSet::new();
    left.defined_rels(&mut lrels);
    let mut rrels = BTreeSet::new();
    right.defined_rels(&mut rrels);
    let kind = simplify_outer_join(kind, &preds, &lrels, &rrels);
    let mut to_left = Vec::new();
    let mut to_right = Vec::new();
    let mut to_on = Vec::new();
    let mut keep = Vec::new();
    use JoinKind as K;
    // The join's own condition first: its one-sided conjuncts go to the side whose
    // rows they only filter.
    for c in on.conjuncts() {
        if is_true(&c) {
            continue;
        }
        let (l, r) = sides(&c, &lrels, &rrels);
        let pushable = !is_volatile(&c);
        match (l, r) {
            (true, false) if pushable && matches!(kind, K::Inner | K::Semi | K::Right) => {
                to_left.push(c)
            }
            (false, true)
                if pushable
                    && matches!(
                        kind,
                        K::Inner | K::Left | K::Semi | K::Anti | K::AntiNullAware | K::Single
                    ) =>
            {
                to_right.push(c)
            }
            _ => to_on.push(c),
        }
    }
    for p in preds {
        let (l, r) = sides(&p, &lrels, &rrels);
        if (l, r) == (true, true) && kind == K::Inner {
            // An OR across both sides still restricts each side on its own:
            // `(a.x = 1 AND b.y = 2) OR (a.x = 3 AND b.y = 4)` lets through only the
            // `a` rows with `a.x = 1 OR a.x = 3` (PostgreSQL's
            // extract_restriction_or_clauses).
            if let Some(d) = side_restriction(&p, &lrels, &rrels) {
                to_left.push(d);
            }
            if let Some(d) = side_restriction(&p, &rrels, &lrels) {
                to_right.push(d);
            }
        }
        match (l, r) {
            (true, false)
                if matches!(
                    kind,
                    K::Inner | K::Left | K::Semi | K::Anti | K::AntiNullAware | K::Single
                ) =>
            {
                to_left.push(p)
            }
            (false, true) if matches!(kind, K::Inner | K::Right) => to_right.push(p),
            (true, true) if kind == K::Inner => to_on.push(p),
            (false, false) if kind == K::Inner => to_left.push(p),
            _ => keep.push(p),
        }
    }
    let left = push(left, to_left);
    let right = push(right, to_right);
    let join = LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind,
        on: Expr::and_all(to_on).unwrap_or_else(|| Expr::literal_bool(true)),
        mark,
    };
    wrap(join, keep)
}

/// `(A AND B) OR (A AND C)` as `A AND (B OR C)`: conjuncts every arm of an OR shares
/// are taken out of it, so they can be pushed down or become join keys on their own
/// (PostgreSQL's find_duplicate_ors). An arm left with nothing makes the OR true.
pub fn factor_or(e: Expr) -> Expr {
    let Expr::Or(arms) = e else {
        return e;
    };
    let arms: Vec<Vec<Expr>> = arms.into_iter().map(|a| factor_or(a).conjuncts()).collect();
    let Some(first) = arms.first() else {
        return Expr::Or(Vec::new());
    };
    let common: Vec<Expr> = first
        .iter()
        .filter(|c| !is_volatile(c) && arms.iter().all(|arm| arm.contains(c)))
        .cloned()
        .collect();
    if common.is_empty() {
        return Expr::Or(arms.into_iter().map(and_of).collect());
    }
    let rest: Vec<Vec<Expr>> = arms
        .into_iter()
        .map(|arm| arm.into_iter().filter(|c| !common.contains(c)).collect())
        .collect();
    let mut out = common;
    if rest.iter().all(|arm: &Vec<Expr>| !arm.is_empty()) {
        out.push(Expr::Or(rest.into_iter().map(and_of).collect()));
    }
    Expr::And(out)
}

fn and_of(mut list: Vec<Expr>) -> Expr {
    match list.len() {
        1 => list.remove(0),
        _ => Expr::And(list),
    }
}

/// From an OR over both sides of a join: the OR of each arm's conjuncts that read only
/// `side`, when every arm has some (None otherwise).
fn side_restriction(e: &Expr, side: &BTreeSet<RelId>, other: &BTreeSet<RelId>) -> Option<Expr> {
    let Expr::Or(arms) = e else {
        return None;
    };
    let mut out = Vec::with_capacity(arms.len());
    for arm in arms {
        let own: Vec<Expr> = arm
            .clone()
            .conjuncts()
            .into_iter()
            .filter(|c| {
                let (s, o) = sides(c, side, other);
                s && !o && !is_volatile(c) && !c.has_subquery()
            })
            .collect();
        if own.is_empty() {
            return None;
        }
        out.push(and_of(own));
    }
    Some(Expr::Or(out))
}

/// Which sides of a join an expression reads (outer references and constants read
/// neither).
fn sides(e: &Expr, lrels: &BTreeSet<RelId>, rrels: &BTreeSet<RelId>) -> (bool, bool) {
    let mut used = BTreeSet::new();
    e.used_rels(&mut used);
    (
        used.iter().any(|r| lrels.contains(r)),
        used.iter().any(|r| rrels.contains(r)),
    )
}

/// The join kind once the filter above it (`preds`) has removed every row it can.
fn simplify_outer_join(
    kind: JoinKind,
    preds: &[Expr],
    lrels: &BTreeSet<RelId>,
    rrels: &BTreeSet<RelId>,
) -> JoinKind {
    let rejects = |rels: &BTreeSet<RelId>| preds.iter().any(|p| null_rejecting(p, rels));
    match kind {
        JoinKind::Left if rejects(rrels) => JoinKind::Inner,
        JoinKind::Right if rejects(lrels) => JoinKind::Inner,
        JoinKind::Full => match (rejects(lrels), rejects(rrels)) {
            (true, true) => JoinKind::Inner,
            (true, false) => JoinKind::Left,
            (false, true) => JoinKind::Right,
            (false, false) => JoinKind::Full,
        },
        other => other,
    }
}

/// Whether a WHERE conjunct is NULL or false whenever every column of `rels` is NULL.
pub fn null_rejecting(e: &Expr, rels: &BTreeSet<RelId>) -> bool {
    match e {
        Expr::And(list) => list.iter().any(|c| null_rejecting(c, rels)),
        Expr::Or(list) => !list.is_empty() && list.iter().all(|c| null_rejecting(c, rels)),
        Expr::IsNull {
            expr,
            negated: true,
        } => strict_in(expr, rels),
        Expr::IsBool {
            expr,
            value: true,
            negated: false,
        } => strict_in(expr, rels),
        _ => strict_in(e, rels),
    }
}

/// Whether `e` is NULL whenever the columns of `rels` are.
fn strict_in(e: &Expr, rels: &BTreeSet<RelId>) -> bool {
    match e {
        Expr::ColumnRef { id, .. } => rels.contains(&id.rel),
        _ if is_strict(e) => {
            let mut found = false;
            e.children(&mut |c| found |= strict_in(c, rels));
            found
        }
        _ => false,
    }
}

/// `p` over a projection's output rewritten over its input, if every column it reads
/// is an expression safe to evaluate lower (not volatile, no subquery).
fn substitute(p: &Expr, rel: RelId, exprs: &[Expr]) -> Option<Expr> {
    let mut map: HashMap<u32, &Expr> = HashMap::new();
    let mut ok = true;
    p.column_refs(&mut |id, _| {
        if id.rel == rel {
            match exprs.get(id.col as usize) {
                Some(e) if !is_volatile(e) && !e.has_subquery() => {
                    map.insert(id.col, e);
                }
                _ => ok = false,
            }
        }
    });
    if !ok || p.has_subquery() && !map.is_empty() {
        return None;
    }
    let mut out = p.clone();
    replace_refs(&mut out, rel, &map);
    Some(out)
}

fn replace_refs(e: &mut Expr, rel: RelId, map: &HashMap<u32, &Expr>) {
    if let Expr::ColumnRef { id, .. } = e
        && id.rel == rel
        && let Some(x) = map.get(&id.col)
    {
        *e = (*x).clone();
        return;
    }
    e.children_mut(&mut |c| replace_refs(c, rel, map));
}

/// Whether evaluating `e` twice could give two answers (random()).
pub fn is_volatile(e: &Expr) -> bool {
    e.any(&|x| matches!(x, Expr::Func { func, .. } if func.volatility() == Volatility::Volatile))
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

fn wrap(plan: LogicalPlan, preds: Vec<Expr>) -> LogicalPlan {
    match Expr::and_all(preds) {
        None => plan,
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        },
    }
}
