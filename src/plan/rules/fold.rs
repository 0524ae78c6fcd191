//! Constant folding, as PostgreSQL's planner does it (`eval_const_expressions`).
//!
//! Bottom-up over every expression of a plan:
//! - a *strict* operator or function with a NULL literal input becomes NULL without
//!   evaluating its other inputs (`NULL * (1 / x)` never divides);
//! - `CASE`, `AND`, `OR` and `COALESCE` fold their arms in order and stop at the first
//!   constant that decides them; the arms after it are dropped without being evaluated;
//! - in a WHERE or HAVING clause, a conjunct that is constant NULL or false makes the
//!   whole qual false (PostgreSQL's one-time filter);
//! - a subtree of immutable operations over literals is evaluated once, at plan time —
//!   including its errors, which PostgreSQL also raises at plan time (so
//!   `SELECT 1/0 FROM empty_table` fails, and a constant `CASE` arm is evaluated even when
//!   no row takes it).
//!
//! Stable operations are left alone, as in PostgreSQL: `now()` and friends, anything
//! involving `timestamptz`, and text↔date/time conversions (they depend on settings).

use crate::error::Result;
use crate::exec::context::{CancelFlag, ExecContext};
use crate::exec::ops::eval_constant;
use crate::plan::logical::LogicalPlan;
use crate::sql::expr::{AggFunc, Expr, Func, SubqueryKind};
use crate::sql::functions::Volatility;
use crate::storage::mvcc::Snapshot;
use crate::types::text::TextFormat;
use crate::types::{DataType, SqlType, Value};

/// A context for evaluating expressions that read no session state (constant folding,
/// partial index predicates).
pub fn context(fmt: TextFormat) -> ExecContext {
    ExecContext {
        snapshot: Snapshot {
            xmax: 0,
            xmin: 0,
            active: std::sync::Arc::from(Vec::new()),
            own: 0,
        },
        pin: None,
        settings: std::sync::Arc::default(),
        params: Vec::new(),
        fmt,
        now_micros: 0,
        cancel: std::sync::Arc::new(CancelFlag::default()),
        deadline: None,
        database: String::new(),
        user: String::new(),
        session_user: String::new(),
        role: crate::auth::BOOTSTRAP_SUPERUSER_OID,
        memory_used: std::sync::atomic::AtomicUsize::new(0),
        memory_max: usize::MAX,
        outer: Default::default(),
        subplan_results: Default::default(),
        ctes: Default::default(),
        worktables: Default::default(),
        sequences: None,
        prune_below: 0,
        locker: None,
        advisory: None,
        backends: None,
        cursors: std::sync::Arc::from(Vec::new()),
        search_path: std::sync::Arc::new(crate::catalog::namespace::SearchPath::default_public()),
        db: None,
        notifies: None,
        set_configs: None,
        notices: Some(std::sync::Arc::default()),
    }
}

/// Folds every expression in `plan`.
pub fn fold_plan(plan: &mut LogicalPlan, fmt: TextFormat) -> Result<()> {
    let ctx = context(fmt);
    fold_plan_with(plan, &ctx)?;
    minmax_of_constants(plan);
    Ok(())
}

/// PostgreSQL's planner answers a MIN/MAX-only aggregate over one table with an ordered
/// `LIMIT 1` subquery per aggregate (planagg.c) when that is cheapest, which it always is
/// when every argument is a constant (ordering by a constant is free). Its scan then stops
/// at the first row that passes the WHERE clause, so errors later rows would raise are
/// never seen, and a NULL constant (`… AND NULL IS NOT NULL`) is not scanned for at all.
/// kiln gives the aggregate the same input: the first qualifying row, or no row when
/// every constant is NULL. MIN(c) = MAX(c) = c over one row, so the answer is unchanged.
fn minmax_of_constants(plan: &mut LogicalPlan) {
    plan.walk_mut_post(&mut |node| {
        let LogicalPlan::Aggregate {
            input,
            group_by,
            aggs,
            ..
        } = node
        else {
            return;
        };
        let constant_minmax = group_by.is_empty()
            && !aggs.is_empty()
            && aggs.iter().all(|a| {
                matches!(a.func, AggFunc::Min | AggFunc::Max)
                    && matches!(a.arg, Some(Expr::Literal { .. }))
            });
        let one_table = match input.as_ref() {
            LogicalPlan::Get { .. } => true,
            LogicalPlan::Filter { input, .. } => matches!(input.as_ref(), LogicalPlan::Get { .. }),
            _ => false,
        };
        if constant_minmax && one_table {
            let any_not_null = aggs
                .iter()
                .any(|a| !a.arg.as_ref().is_some_and(is_null_literal));
            let scan = std::mem::replace(
                input.as_mut(),
                LogicalPlan::Values {
                    rel: 0,
                    rows: Vec::new(),
                    types: Vec::new(),
                },
            );
            **input = LogicalPlan::Limit {
                input: Box::new(scan),
                limit: Some(Expr::Literal {
                    value: Value::Int8(i64::from(any_not_null)),
                    ty: SqlType::new(DataType::Int8),
                }),
                offset: None,
                ties: Vec::new(),
            };
        }
    });
}

/// Folds parents before children — select list, then WHERE, as PostgreSQL's
/// `preprocess_expression` goes — so a plan-time error is the one PostgreSQL raises.
fn fold_plan_with(plan: &mut LogicalPlan, ctx: &ExecContext) -> Result<()> {
    let mut failure = None;
    plan.walk_mut_pre(&mut |node| {
        if failure.is_some() {
            return;
        }
        let is_qual = matches!(
            node,
            LogicalPlan::Get { .. } | LogicalPlan::Filter { .. } | LogicalPlan::Join { .. }
        );
        node.exprs_mut(&mut |e| {
            if failure.is_some() {
                return;
            }
            let folded = if is_qual {
                fold_qual(e, ctx)
            } else {
                fold(e, ctx)
            };
            if let Err(err) = folded {
                failure = Some(err);
            }
        });
    });
    match failure {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

fn is_null_literal(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Literal {
            value: Value::Null,
            ..
        }
    )
}

fn is_bool_literal(e: &Expr, b: bool) -> bool {
    matches!(e, Expr::Literal { value: Value::Bool(v), .. } if *v == b)
}

/// Operators and functions that return NULL whenever an input is NULL.
pub fn is_strict(e: &Expr) -> bool {
    match e {
        Expr::Negate { .. }
        | Expr::Binary { .. }
        | Expr::Cast { .. }
        | Expr::Like { .. }
        | Expr::Not(_) => true,
        Expr::Func { func, .. } => func.is_strict(),
        Expr::Column { .. }
        | Expr::ColumnRef { .. }
        | Expr::OuterParam { .. }
        | Expr::Subquery(_)
        | Expr::SubPlan(_)
        | Expr::Literal { .. }
        | Expr::Param { .. }
        | Expr::And(_)
        | Expr::Or(_)
        | Expr::IsNull { .. }
        | Expr::IsBool { .. }
        | Expr::IsDistinct { .. }
        | Expr::InList { .. }
        | Expr::Case { .. }
        | Expr::Agg { .. }
        | Expr::Window { .. }
        | Expr::Unused { .. } => false,
    }
}

fn is_datetime(t: DataType) -> bool {
    matches!(
        t,
        DataType::Date
            | DataType::Timestamp
            | DataType::Timestamptz
            | DataType::Interval
            | DataType::Time
            | DataType::TimeTz
    )
}

/// Whether evaluating this node (given constant inputs) is immutable.
fn is_immutable(e: &Expr) -> bool {
    match e {
        Expr::Column { .. }
        | Expr::ColumnRef { .. }
        | Expr::OuterParam { .. }
        | Expr::Subquery(_)
        | Expr::SubPlan(_)
        | Expr::Param { .. }
        | Expr::Agg { .. }
        | Expr::Window { .. }
        | Expr::Unused { .. } => false,
        // Stable and volatile functions read the session or change per call.
        Expr::Func { func, .. } => func.volatility() == Volatility::Immutable,
        Expr::Cast { expr, to, .. } => {
            let from = expr.ty().ty;
            let touches_tz = from == DataType::Timestamptz || to.ty == DataType::Timestamptz;
            let text_datetime = (from.is_string() && is_datetime(to.ty))
                || (is_datetime(from) && to.ty.is_string());
            !touches_tz && !text_datetime
        }
        Expr::Binary { ty, left, .. } => {
            ty.ty != DataType::Timestamptz && left.ty().ty != DataType::Timestamptz
        }
        _ => true,
    }
}

/// Folds a WHERE/HAVING qual: besides folding, a conjunct that is constant NULL or false
/// makes the whole qual false — PostgreSQL turns it into a one-time filter, so no row's
/// other conjuncts are ever evaluated.
pub fn fold_qual(e: &mut Expr, ctx: &ExecContext) -> Result<()> {
    fold(e, ctx)?;
    let never = match &*e {
        Expr::Literal {
            value: Value::Null, ..
        } => true,
        Expr::And(list) => list
            .iter()
            .any(|c| is_null_literal(c) || is_bool_literal(c, false)),
        _ => false,
    };
    if never {
        *e = Expr::Literal {
            value: Value::Bool(false),
            ty: e.ty(),
        };
    }
    Ok(())
}

/// Folds the arms of CASE, AND, OR and COALESCE in order, stopping where PostgreSQL's
/// planner stops: later arms are dropped unevaluated (and so raise no errors).
/// Returns true if `e` was handled here.
fn fold_ordered(e: &mut Expr, ctx: &ExecContext) -> Result<bool> {
    match e {
        Expr::And(_) | Expr::Or(_) => {
            let decisive = matches!(e, Expr::Or(_));
            let ty = e.ty();
            let mut replacement = None;
            if let Expr::And(list) | Expr::Or(list) = e {
                for arm in list.iter_mut() {
                    fold(arm, ctx)?;
                    if is_bool_literal(arm, decisive) {
                        replacement = Some(Expr::Literal {
                            value: Value::Bool(decisive),
                            ty,
                        });
                        break;
                    }
                }
                if replacement.is_none() {
                    // Constant true (AND) / false (OR) arms decide nothing: drop them.
                    list.retain(|c| !is_bool_literal(c, !decisive));
                    if list.is_empty() {
                        replacement = Some(Expr::Literal {
                            value: Value::Bool(!decisive),
                            ty,
                        });
                    } else if list.iter().all(is_null_literal) {
                        // Only NULL constants left: the whole AND/OR is NULL.
                        replacement = Some(Expr::Literal {
                            value: Value::Null,
                            ty,
                        });
                    } else if list.len() == 1 {
                        replacement = Some(list.remove(0));
                    }
                }
            }
            if let Some(r) = replacement {
                *e = r;
            }
            Ok(true)
        }
        Expr::Case {
            whens,
            else_result,
            ty,
        } => {
            let ty = *ty;
            let mut kept: Vec<(Expr, Expr)> = Vec::new();
            let mut default: Option<Expr> = None;
            let mut decided = false;
            for (mut cond, mut result) in std::mem::take(whens) {
                fold(&mut cond, ctx)?;
                if is_null_literal(&cond) || is_bool_literal(&cond, false) {
                    continue;
                }
                fold(&mut result, ctx)?;
                if is_bool_literal(&cond, true) {
                    default = Some(result);
                    decided = true;
                    break;
                }
                kept.push((cond, result));
            }
            if !decided && let Some(mut d) = else_result.take().map(|b| *b) {
                fold(&mut d, ctx)?;
                default = Some(d);
            }
            if kept.is_empty() {
                *e = default.unwrap_or(Expr::Literal {
                    value: Value::Null,
                    ty,
                });
            } else {
                *whens = kept;
                *else_result = default.map(Box::new);
            }
            Ok(true)
        }
        Expr::Func {
            func: Func::Coalesce,
            args,
            ty,
        } => {
            let ty = *ty;
            let mut kept = Vec::new();
            for mut a in std::mem::take(args) {
                fold(&mut a, ctx)?;
                if is_null_literal(&a) {
                    continue;
                }
                let constant = matches!(a, Expr::Literal { .. });
                kept.push(a);
                if constant {
                    break;
                }
            }
            *e = match kept.len() {
                0 => Expr::Literal {
                    value: Value::Null,
                    ty,
                },
                1 if matches!(kept[0], Expr::Literal { .. }) => kept.remove(0),
                _ => Expr::Func {
                    func: Func::Coalesce,
                    args: kept,
                    ty,
                },
            };
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Folds `e` in place.
pub fn fold(e: &mut Expr, ctx: &ExecContext) -> Result<()> {
    if let Expr::Subquery(sub) = e {
        fold_plan_with(&mut sub.plan, ctx)?;
        if let SubqueryKind::Any { left, right, .. }
        | SubqueryKind::All { left, right, .. }
        | SubqueryKind::Row { left, right, .. } = &mut sub.kind
        {
            for x in left.iter_mut().chain(right.iter_mut()) {
                fold(x, ctx)?;
            }
        }
        return Ok(());
    }
    if fold_ordered(e, ctx)? {
        return Ok(());
    }
    let mut failure = None;
    e.children_mut(&mut |c| {
        if failure.is_none()
            && let Err(err) = fold(c, ctx)
        {
            failure = Some(err);
        }
    });
    if let Some(err) = failure {
        return Err(err);
    }
    if matches!(
        e,
        Expr::Literal { .. }
            | Expr::Column { .. }
            | Expr::ColumnRef { .. }
            | Expr::OuterParam { .. }
            | Expr::SubPlan(_)
            | Expr::Param { .. }
            | Expr::Agg { .. }
            | Expr::Window { .. }
            | Expr::Unused { .. }
    ) {
        return Ok(());
    }
    let ty = e.ty();
    // `NULL [NOT] IN (…)` is NULL whatever the list holds: PostgreSQL turns a list with
    // non-constants into comparisons joined by OR/AND, each strict in the NULL.
    if let Expr::InList { expr, .. } = e
        && is_null_literal(expr)
    {
        *e = Expr::Literal {
            value: Value::Null,
            ty,
        };
        return Ok(());
    }
    // Strict nodes with a NULL input are NULL.
    if is_strict(e) {
        let mut has_null = false;
        e.children(&mut |c| has_null |= is_null_literal(c));
        if has_null {
            *e = Expr::Literal {
                value: Value::Null,
                ty,
            };
            return Ok(());
        }
    }
    // Immutable operations over literals: evaluate now.
    let mut all_literal = true;
    e.children(&mut |c| all_literal &= matches!(c, Expr::Literal { .. }));
    let mut has_child = false;
    e.children(&mut |_| has_child = true);
    if all_literal && has_child && is_immutable(e) {
        let value = eval_constant(e, ctx)?;
        // A call that raised a NOTICE is left for execution, where the client sees it.
        let noticed = ctx
            .notices
            .as_ref()
            .is_some_and(|n| !std::mem::take(&mut *n.lock()).is_empty());
        if !noticed {
            *e = Expr::Literal { value, ty };
        }
    }
    Ok(())
}
