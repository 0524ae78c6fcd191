//! Subquery decorrelation: subqueries become joins, so nothing runs once per outer row.
//!
//! A subquery's *correlated conjuncts* are the WHERE conjuncts (of its own filter, below
//! its select list) that read the outer query's columns. Pulled out of the subquery,
//! they become the condition of a join between the outer rows and the rest of the
//! subquery, which no longer depends on the outer row:
//!
//! | WHERE conjunct | becomes |
//! |---|---|
//! | `EXISTS (q)` / `NOT EXISTS (q)` | semi / anti join on the correlated conjuncts |
//! | `x IN (q)`, `x op ANY (q)` | semi join on those and `x op q.col` |
//! | `x NOT IN (q)`, uncorrelated, one column | null-aware anti join on `x = q.col` |
//! | `x op ALL (q)`, one column | anti join on those and `(x op q.col) IS NOT TRUE` |
//!
//! For a semi or anti join only the existence of rows matters, so an ORDER BY or
//! DISTINCT inside the subquery is dropped (and for EXISTS a LIMIT of at least one).
//!
//! A scalar subquery that aggregates, correlated by equalities (`(SELECT avg(y) FROM t
//! WHERE t.k = outer.k)`), becomes a left join with the aggregate grouped by the inner
//! sides of those equalities (Kim's method, as PostgreSQL users write it by hand and
//! DuckDB plans it). An outer row without partners reads the aggregate's value over no
//! rows — `count` is 0, not NULL — through a marker column that is NULL exactly then.
//! A scalar subquery without aggregate becomes a *single* join: a left join that fails
//! with `21000` when an outer row has two partners. A correlated EXISTS used as a value
//! (in the select list, or compared) is `count(*) > 0` over the subquery's rows, and
//! that count decorrelates as above.
//!
//! Whatever does not match these shapes stays a subquery and runs as a subplan
//! (`exec::subplan`), which is correct for every shape, only slower.

use std::collections::{BTreeSet, HashMap};

use super::RelIds;
use crate::plan::logical::{ColumnId, JoinKind, LogicalPlan, RelId};
use crate::sql::expr::{AggCall, AggFunc, BinaryOp, Expr, Subquery, SubqueryKind};
use crate::types::{DataType, SqlType, Value};

const BOOL: SqlType = SqlType::new(DataType::Bool);
const INT8: SqlType = SqlType::new(DataType::Int8);

/// Decorrelates every subquery of `plan` that it can.
pub fn decorrelate(plan: &mut LogicalPlan, ids: &mut RelIds) {
    for input in plan.inputs_mut() {
        decorrelate(input, ids);
    }
    plan.exprs_mut(&mut |e| decorrelate_nested(e, ids));
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            let conjuncts = std::mem::replace(predicate, Expr::literal_bool(true)).conjuncts();
            let mut keep = Vec::with_capacity(conjuncts.len());
            for c in conjuncts {
                match semi_join(input, c, ids) {
                    None => {}
                    Some(c) => keep.push(c),
                }
            }
            for c in keep.iter_mut() {
                exists_as_count(c, input, ids);
                pull_scalars(c, input, ids);
            }
            *predicate = Expr::and_all(keep).unwrap_or_else(|| Expr::literal_bool(true));
        }
        LogicalPlan::Project { input, exprs, .. } => {
            for e in exprs.iter_mut() {
                exists_as_count(e, input, ids);
                pull_scalars(e, input, ids);
            }
        }
        _ => {}
    }
}

/// Decorrelates the plans of the subqueries inside `e`.
fn decorrelate_nested(e: &mut Expr, ids: &mut RelIds) {
    if let Expr::Subquery(sub) = e {
        decorrelate(&mut sub.plan, ids);
    }
    e.children_mut(&mut |c| decorrelate_nested(c, ids));
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

fn defined(plan: &LogicalPlan) -> BTreeSet<RelId> {
    let mut out = BTreeSet::new();
    plan.defined_rels(&mut out);
    out
}

/// Whether an expression reads any of `rels` (inside its subqueries too).
fn reads(e: &Expr, rels: &BTreeSet<RelId>) -> bool {
    let mut used = BTreeSet::new();
    e.used_rels(&mut used);
    used.iter().any(|r| rels.contains(r))
}

fn plan_reads(plan: &LogicalPlan, rels: &BTreeSet<RelId>) -> bool {
    plan.free_rels().iter().any(|r| rels.contains(r))
}

/// Turns a WHERE conjunct over `input` into a semi or anti join with `input`, if it has
/// one of the shapes above. Returns the conjunct when it stays.
fn semi_join(input: &mut Box<LogicalPlan>, c: Expr, ids: &mut RelIds) -> Option<Expr> {
    let (negated, sub) = match c {
        Expr::Subquery(s) => (false, s),
        Expr::Not(inner) if matches!(inner.as_ref(), Expr::Subquery(_)) => match *inner {
            Expr::Subquery(s) => (true, s),
            other => return Some(Expr::Not(Box::new(other))),
        },
        other => return Some(other),
    };
    let outer = defined(input);
    let shape = match (&sub.kind, negated) {
        (SubqueryKind::Exists, false) => Some(JoinKind::Semi),
        (SubqueryKind::Exists, true) => Some(JoinKind::Anti),
        (SubqueryKind::Any { .. }, false) => Some(JoinKind::Semi),
        (SubqueryKind::Any { left, op, .. }, true)
            if *op == BinaryOp::Eq && left.len() == 1 && !plan_reads(&sub.plan, &outer) =>
        {
            Some(JoinKind::AntiNullAware)
        }
        (SubqueryKind::All { left, .. }, false) if left.len() == 1 => Some(JoinKind::Anti),
        _ => None,
    };
    let Some(kind) = shape else {
        return Some(restore(sub, negated));
    };
    let exists = matches!(sub.kind, SubqueryKind::Exists);
    let Subquery { kind: sk, plan, ty } = *sub;
    let (core, mut condition) = match split(plan, &outer, Mode::Semi { exists }) {
        Ok(parts) => parts,
        Err(plan) => {
            return Some(restore(Box::new(Subquery { kind: sk, plan, ty }), negated));
        }
    };
    if plan_reads(&core, &outer) {
        let plan = rebuild(core, condition);
        return Some(restore(Box::new(Subquery { kind: sk, plan, ty }), negated));
    }
    match &sk {
        SubqueryKind::Exists => {}
        SubqueryKind::Any { left, right, op } => {
            for (l, r) in left.iter().zip(right) {
                condition.push(Expr::Binary {
                    op: *op,
                    left: Box::new(l.clone()),
                    right: Box::new(r.clone()),
                    ty: BOOL,
                });
            }
        }
        SubqueryKind::All { left, right, op } => {
            condition.push(Expr::IsBool {
                expr: Box::new(Expr::Binary {
                    op: *op,
                    left: Box::new(left[0].clone()),
                    right: Box::new(right[0].clone()),
                    ty: BOOL,
                }),
                value: true,
                negated: true,
            });
        }
        SubqueryKind::Scalar | SubqueryKind::Row { .. } | SubqueryKind::Array => {
            let plan = rebuild(core, condition);
            return Some(restore(Box::new(Subquery { kind: sk, plan, ty }), negated));
        }
    }
    let _ = ids;
    let left = take(input);
    **input = LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(core),
        kind,
        on: Expr::and_all(condition).unwrap_or_else(|| Expr::literal_bool(true)),
        mark: None,
    };
    None
}

fn restore(sub: Box<Subquery>, negated: bool) -> Expr {
    let e = Expr::Subquery(sub);
    if negated { Expr::Not(Box::new(e)) } else { e }
}

/// Puts pulled conjuncts back as a filter (when a decorrelation is abandoned).
fn rebuild(core: LogicalPlan, condition: Vec<Expr>) -> LogicalPlan {
    match Expr::and_all(condition) {
        None => core,
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(core),
            predicate,
        },
    }
}

#[derive(Clone, Copy)]
enum Mode {
    /// Only whether rows exist matters (semi/anti joins).
    Semi { exists: bool },
    /// Every row matters.
    Rows,
}

/// Splits a subquery plan into the plan without its correlated conjuncts and those
/// conjuncts (which read `outer`); columns they read from below a projection are
/// passed through it. `Err` gives the plan back when its shape does not allow it (by
/// value: a plan node is moved once per level, so its size does not matter here).
#[allow(clippy::result_large_err)]
fn split(
    plan: LogicalPlan,
    outer: &BTreeSet<RelId>,
    mode: Mode,
) -> Result<(LogicalPlan, Vec<Expr>), LogicalPlan> {
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            let (inner, mut corr) = match split(*input, outer, mode) {
                Ok(parts) => parts,
                Err(input) => {
                    return Err(LogicalPlan::Filter {
                        input: Box::new(input),
                        predicate,
                    });
                }
            };
            let mut local = Vec::new();
            for c in predicate.conjuncts() {
                if reads(&c, outer) {
                    corr.push(c);
                } else {
                    local.push(c);
                }
            }
            Ok((rebuild(inner, local), corr))
        }
        LogicalPlan::Project { input, rel, exprs } => {
            if exprs.iter().any(|e| reads(e, outer)) {
                return Err(LogicalPlan::Project { input, rel, exprs });
            }
            let (inner, corr) = match split(*input, outer, mode) {
                Ok(parts) => parts,
                Err(input) => {
                    return Err(LogicalPlan::Project {
                        input: Box::new(input),
                        rel,
                        exprs,
                    });
                }
            };
            let below = defined(&inner);
            let mut exprs = exprs;
            let mut exposed: HashMap<ColumnId, u32> = HashMap::new();
            let mut corr = corr;
            for c in corr.iter_mut() {
                expose(c, &below, rel, &mut exprs, &mut exposed);
            }
            Ok((
                LogicalPlan::Project {
                    input: Box::new(inner),
                    rel,
                    exprs,
                },
                corr,
            ))
        }
        LogicalPlan::Sort { input, keys } if matches!(mode, Mode::Semi { .. }) => {
            split(*input, outer, mode).map_err(|input| LogicalPlan::Sort {
                input: Box::new(input),
                keys,
            })
        }
        LogicalPlan::Distinct { input } if matches!(mode, Mode::Semi { .. }) => {
            split(*input, outer, mode).map_err(|input| LogicalPlan::Distinct {
                input: Box::new(input),
            })
        }
        LogicalPlan::Limit {
            input,
            limit: Some(limit),
            offset: None,
            ties,
        } if ties.is_empty()
            && matches!(mode, Mode::Semi { exists: true })
            && matches!(limit, Expr::Literal { value: Value::Int8(n), .. } if n >= 1) =>
        {
            split(*input, outer, mode).map_err(|input| LogicalPlan::Limit {
                input: Box::new(input),
                limit: Some(limit),
                offset: None,
                ties: Vec::new(),
            })
        }
        other => {
            if plan_reads(&other, outer) {
                Err(other)
            } else {
                Ok((other, Vec::new()))
            }
        }
    }
}

/// Rewrites the references of `e` to columns defined `below` a projection into
/// references to the projection's output, adding pass-through columns as needed.
fn expose(
    e: &mut Expr,
    below: &BTreeSet<RelId>,
    rel: RelId,
    exprs: &mut Vec<Expr>,
    exposed: &mut HashMap<ColumnId, u32>,
) {
    // Inside nested subqueries too: they read the same columns.
    e.column_refs_mut(&mut |c| {
        if let Expr::ColumnRef { id, ty, name } = c
            && below.contains(&id.rel)
        {
            let col = *exposed.entry(*id).or_insert_with(|| {
                exprs.push(Expr::ColumnRef {
                    id: *id,
                    ty: *ty,
                    name: name.clone(),
                });
                (exprs.len() - 1) as u32
            });
            *id = ColumnId::new(rel, col);
        }
    });
}

/// Replaces the correlated scalar subqueries in `e` by columns of joins added to
/// `input`.
/// A correlated EXISTS that is not a conjunct of WHERE (in the select list, compared,
/// negated inside an expression) becomes `count(*) > 0` over the subquery's rows when
/// that count decorrelates into a left join on equality keys ([`aggregate_join`]);
/// otherwise it stays as it was. Only where `pull_scalars` reaches: the subquery is
/// evaluated for every row there, so joining it in evaluates nothing PostgreSQL would
/// skip.
fn exists_as_count(e: &mut Expr, input: &mut Box<LogicalPlan>, ids: &mut RelIds) {
    if let Expr::Subquery(sub) = e
        && matches!(sub.kind, SubqueryKind::Exists)
    {
        let outer = defined(input);
        if !plan_reads(&sub.plan, &outer) {
            return;
        }
        // Only the number of rows matters: the select list goes.
        let rows = match take(&mut sub.plan) {
            LogicalPlan::Project { input, .. } => *input,
            other => other,
        };
        let arel = ids.fresh();
        let prel = ids.fresh();
        let mut counted = Box::new(Subquery {
            kind: SubqueryKind::Scalar,
            ty: INT8,
            plan: LogicalPlan::Project {
                input: Box::new(LogicalPlan::Aggregate {
                    input: Box::new(rows),
                    rel: arel,
                    group_by: Vec::new(),
                    aggs: vec![AggCall::simple(AggFunc::CountStar, None, INT8)],
                }),
                rel: prel,
                exprs: vec![Expr::ColumnRef {
                    id: ColumnId::new(arel, 0),
                    ty: INT8,
                    name: "count".into(),
                }],
            },
        });
        match aggregate_join(&mut counted, input, &outer, ids) {
            Some(count) => {
                *e = Expr::Binary {
                    op: BinaryOp::Gt,
                    left: Box::new(count),
                    right: Box::new(Expr::Literal {
                        value: Value::Int8(0),
                        ty: INT8,
                    }),
                    ty: BOOL,
                };
            }
            None => {
                if let LogicalPlan::Project { input: agg, .. } = take(&mut counted.plan)
                    && let LogicalPlan::Aggregate { input: rows, .. } = *agg
                {
                    sub.plan = *rows;
                }
            }
        }
        return;
    }
    if arms_may_be_skipped(e) {
        return;
    }
    e.children_mut(&mut |c| exists_as_count(c, input, ids));
}

/// Whether some operands of `e` may go unevaluated for a row (CASE, AND, OR,
/// COALESCE): a subquery there must stay a subquery, since a join would evaluate it
/// for every row, and raise what PostgreSQL would skip.
fn arms_may_be_skipped(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Case { .. }
            | Expr::And(_)
            | Expr::Or(_)
            | Expr::Func {
                func: crate::sql::expr::Func::Coalesce,
                ..
            }
    )
}

fn pull_scalars(e: &mut Expr, input: &mut Box<LogicalPlan>, ids: &mut RelIds) {
    if let Expr::Subquery(sub) = e
        && matches!(sub.kind, SubqueryKind::Scalar)
    {
        let outer = defined(input);
        if plan_reads(&sub.plan, &outer)
            && let Some(replacement) = scalar_join(sub, input, &outer, ids)
        {
            *e = replacement;
        }
        return;
    }
    if arms_may_be_skipped(e) {
        return;
    }
    e.children_mut(&mut |c| pull_scalars(c, input, ids));
}

/// A correlated scalar subquery as a left join (with an aggregate grouped by its
/// correlation keys) or a single join. Returns the expression that replaces it.
fn scalar_join(
    sub: &mut Box<Subquery>,
    input: &mut Box<LogicalPlan>,
    outer: &BTreeSet<RelId>,
    ids: &mut RelIds,
) -> Option<Expr> {
    let aggregated = matches!(
        &sub.plan,
        LogicalPlan::Project { input, exprs, .. }
            if exprs.len() == 1
                && matches!(input.as_ref(), LogicalPlan::Aggregate { group_by, .. } if group_by.is_empty())
    );
    if aggregated {
        aggregate_join(sub, input, outer, ids)
    } else {
        single_join(sub, input, outer)
    }
}

fn aggregate_join(
    sub: &mut Box<Subquery>,
    input: &mut Box<LogicalPlan>,
    outer: &BTreeSet<RelId>,
    ids: &mut RelIds,
) -> Option<Expr> {
    let LogicalPlan::Project {
        input: agg,
        rel: prel,
        exprs,
    } = take(&mut sub.plan)
    else {
        return None;
    };
    let LogicalPlan::Aggregate {
        input: below,
        rel: arel,
        aggs,
        ..
    } = *agg
    else {
        return None;
    };
    let value = exprs.into_iter().next()?;
    let restore_plan = |below: LogicalPlan, aggs: Vec<_>, value: Expr| LogicalPlan::Project {
        input: Box::new(LogicalPlan::Aggregate {
            input: Box::new(below),
            rel: arel,
            group_by: Vec::new(),
            aggs,
        }),
        rel: prel,
        exprs: vec![value],
    };
    if reads(&value, outer) {
        sub.plan = restore_plan(*below, aggs, value);
        return None;
    }
    let (core, corr) = match split(*below, outer, Mode::Rows) {
        Ok(parts) => parts,
        Err(below) => {
            sub.plan = restore_plan(below, aggs, value);
            return None;
        }
    };
    let inner_rels = defined(&core);
    // Every correlated conjunct an equality between an outer and an inner expression.
    let mut keys: Vec<(Expr, Expr)> = Vec::new();
    for c in &corr {
        match equality_sides(c, outer, &inner_rels) {
            Some(pair) => keys.push(pair),
            None => {
                sub.plan = restore_plan(rebuild(core, corr), aggs, value);
                return None;
            }
        }
    }
    if plan_reads(&core, outer) || keys.is_empty() {
        sub.plan = restore_plan(rebuild(core, corr), aggs, value);
        return None;
    }
    let groups = keys.len() as u32;
    let shift = |e: &mut Expr| shift_refs(e, arel, groups);
    let mut grouped_value = value.clone();
    shift(&mut grouped_value);
    let empty_value = empty_input_value(&value, arel, &aggs);
    let strict_plain = matches!(&value, Expr::ColumnRef { id, .. }
        if id.rel == arel && !matches!(aggs[id.col as usize].func, AggFunc::Count | AggFunc::CountStar));
    let ty = sub.ty;
    let group_by: Vec<Expr> = keys.iter().map(|(_, inner)| inner.clone()).collect();
    let group_types: Vec<SqlType> = group_by.iter().map(|g| g.ty()).collect();
    let mut out = vec![grouped_value, Expr::literal_bool(true)];
    for (i, t) in group_types.iter().enumerate() {
        out.push(Expr::ColumnRef {
            id: ColumnId::new(arel, i as u32),
            ty: *t,
            name: String::new(),
        });
    }
    let right = LogicalPlan::Project {
        input: Box::new(LogicalPlan::Aggregate {
            input: Box::new(core),
            rel: arel,
            group_by,
            aggs,
        }),
        rel: prel,
        exprs: out,
    };
    let on: Vec<Expr> = keys
        .iter()
        .enumerate()
        .map(|(i, (outer_side, _))| Expr::Binary {
            op: BinaryOp::Eq,
            left: Box::new(outer_side.clone()),
            right: Box::new(Expr::ColumnRef {
                id: ColumnId::new(prel, 2 + i as u32),
                ty: group_types[i],
                name: String::new(),
            }),
            ty: BOOL,
        })
        .collect();
    let left = take(input);
    **input = LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind: JoinKind::Left,
        on: Expr::and_all(on).unwrap_or_else(|| Expr::literal_bool(true)),
        mark: None,
    };
    let _ = ids;
    let result = Expr::ColumnRef {
        id: ColumnId::new(prel, 0),
        ty,
        name: String::new(),
    };
    if strict_plain {
        return Some(result);
    }
    let marker = Expr::ColumnRef {
        id: ColumnId::new(prel, 1),
        ty: BOOL,
        name: String::new(),
    };
    Some(Expr::Case {
        whens: vec![(
            Expr::IsNull {
                expr: Box::new(marker),
                negated: false,
            },
            empty_value,
        )],
        else_result: Some(Box::new(result)),
        ty,
    })
}

/// `c` as `(outer side, inner side)` if it is an equality between an expression of
/// the outer query only and one of the subquery only.
fn equality_sides(
    c: &Expr,
    outer: &BTreeSet<RelId>,
    inner: &BTreeSet<RelId>,
) -> Option<(Expr, Expr)> {
    let Expr::Binary {
        op: BinaryOp::Eq,
        left,
        right,
        ..
    } = c
    else {
        return None;
    };
    if left.has_subquery() || right.has_subquery() {
        return None;
    }
    let side = |e: &Expr| {
        let mut used = BTreeSet::new();
        e.used_rels(&mut used);
        let o = used.iter().any(|r| outer.contains(r));
        let i = used.iter().any(|r| inner.contains(r));
        (o, i)
    };
    match (side(left), side(right)) {
        ((true, false), (false, true)) => Some(((**left).clone(), (**right).clone())),
        ((false, true), (true, false)) => Some(((**right).clone(), (**left).clone())),
        _ => None,
    }
}

/// Moves references to aggregate `i` of `rel` to `i + by` (group keys now come first).
fn shift_refs(e: &mut Expr, rel: RelId, by: u32) {
    if let Expr::ColumnRef { id, .. } = e
        && id.rel == rel
    {
        id.col += by;
        return;
    }
    e.children_mut(&mut |c| shift_refs(c, rel, by));
}

/// The subquery's value when its aggregate sees no rows: counts are 0, the others
/// NULL.
fn empty_input_value(value: &Expr, rel: RelId, aggs: &[crate::sql::expr::AggCall]) -> Expr {
    let mut out = value.clone();
    fn replace(e: &mut Expr, rel: RelId, aggs: &[crate::sql::expr::AggCall]) {
        if let Expr::ColumnRef { id, ty, .. } = e
            && id.rel == rel
        {
            let empty = match aggs.get(id.col as usize).map(|a| a.func) {
                Some(AggFunc::Count | AggFunc::CountStar) => Value::Int8(0),
                _ => Value::Null,
            };
            *e = Expr::Literal {
                value: empty,
                ty: *ty,
            };
            return;
        }
        e.children_mut(&mut |c| replace(c, rel, aggs));
    }
    replace(&mut out, rel, aggs);
    out
}

fn single_join(
    sub: &mut Box<Subquery>,
    input: &mut Box<LogicalPlan>,
    outer: &BTreeSet<RelId>,
) -> Option<Expr> {
    let plan = take(&mut sub.plan);
    let LogicalPlan::Project { rel: prel, .. } = &plan else {
        sub.plan = plan;
        return None;
    };
    let prel = *prel;
    let (core, corr) = match split(plan, outer, Mode::Rows) {
        Ok(parts) => parts,
        Err(plan) => {
            sub.plan = plan;
            return None;
        }
    };
    if plan_reads(&core, outer) || corr.is_empty() {
        sub.plan = rebuild(core, corr);
        return None;
    }
    let ty = sub.ty;
    let left = take(input);
    **input = LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(core),
        kind: JoinKind::Single,
        on: Expr::and_all(corr).unwrap_or_else(|| Expr::literal_bool(true)),
        mark: None,
    };
    Some(Expr::ColumnRef {
        id: ColumnId::new(prel, 0),
        ty,
        name: String::new(),
    })
}
