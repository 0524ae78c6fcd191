//! Cardinality estimates: how many rows a logical plan produces, and how many distinct
//! values each of its columns holds — what join ordering and EXPLAIN read.
//!
//! Scans start from the table statistics ([`crate::catalog::stats`]). A filter keeps
//! the fraction of rows its conjuncts let through, estimated as PostgreSQL's default
//! selectivities do when it knows little: `col = const` keeps `1/ndv(col)`, a range
//! against a constant interpolates between the column's minimum and maximum (a third
//! without them), LIKE a tenth, IS NULL the NULL fraction, anything else a third. An
//! equi-join keeps `1/max(ndv(left key), ndv(right key))` of the cross product; a
//! grouping produces at most the product of its keys' distinct counts. Every distinct
//! count is capped by its node's rows.

use std::collections::HashMap;

use super::logical::{ColumnId, JoinKind, LogicalPlan, SetOpKind};
use crate::sql::expr::{BinaryOp, Expr, SubqueryKind};
use crate::types::datetime::USECS_PER_DAY;
use crate::types::{DataType, Value};

/// PostgreSQL's default for "one value out of many" when nothing is known.
const DEFAULT_EQ_SEL: f64 = 0.005;
/// PostgreSQL's default for an inequality.
const DEFAULT_INEQ_SEL: f64 = 1.0 / 3.0;
const DEFAULT_LIKE_SEL: f64 = 0.1;

#[derive(Clone, Debug, Default)]
pub struct Estimate {
    pub rows: f64,
    /// Distinct values per column (absent: unknown).
    pub ndv: HashMap<ColumnId, f64>,
    /// Minimum and maximum per column, as numbers.
    pub range: HashMap<ColumnId, (f64, f64)>,
}

impl Estimate {
    fn cap(mut self) -> Estimate {
        let rows = self.rows.max(1.0);
        for v in self.ndv.values_mut() {
            *v = v.min(rows).max(1.0);
        }
        self
    }

    /// Distinct values of an expression (a column's, or a guess for anything else).
    pub fn ndv_of(&self, e: &Expr) -> Option<f64> {
        match e {
            Expr::ColumnRef { id, .. } => self.ndv.get(id).copied(),
            Expr::Cast { expr, .. } => self.ndv_of(expr),
            _ => None,
        }
    }
}

/// Estimates `plan`.
pub fn estimate(plan: &LogicalPlan) -> Estimate {
    match plan {
        LogicalPlan::Get {
            rel, table, filter, ..
        } => {
            let stats = table.stats();
            let mut est = Estimate {
                rows: stats.rows,
                ..Estimate::default()
            };
            for (c, s) in stats.columns.iter().enumerate() {
                let id = ColumnId::new(*rel, c as u32);
                est.ndv.insert(id, s.ndv.max(1.0));
                if let (Some(lo), Some(hi)) = (s.min, s.max) {
                    est.range.insert(id, (lo, hi));
                }
            }
            if let Some(f) = filter {
                est = filtered(est, f);
            }
            est.cap()
        }
        LogicalPlan::Values { rows, .. } => Estimate {
            rows: rows.len() as f64,
            ..Estimate::default()
        },
        LogicalPlan::Series {
            func: crate::plan::logical::TableFunc::System(_),
            ..
        } => Estimate {
            rows: 100.0,
            ..Estimate::default()
        },
        LogicalPlan::Series {
            func: crate::plan::logical::TableFunc::Unnest,
            args,
            ..
        } => {
            // PostgreSQL's guess for a set-returning function, unless the array is known.
            let rows = match args.first() {
                Some(Expr::Literal {
                    value: crate::types::Value::Array(a),
                    ..
                }) => crate::types::array::View::new(&a.bytes, a.elem).len() as f64,
                _ => 100.0,
            };
            Estimate {
                rows,
                ..Estimate::default()
            }
        }
        LogicalPlan::Series { args, .. } => {
            let int = |e: &Expr| match e {
                Expr::Literal { value, .. } => value.as_i64(),
                _ => None,
            };
            let rows = match (args.first().and_then(int), args.get(1).and_then(int)) {
                (Some(a), Some(b)) => {
                    let step = args.get(2).and_then(int).unwrap_or(1).unsigned_abs().max(1);
                    ((b - a).unsigned_abs() / step + 1) as f64
                }
                _ => 1000.0,
            };
            Estimate {
                rows,
                ..Estimate::default()
            }
        }
        LogicalPlan::Filter { input, predicate } => filtered(estimate(input), predicate).cap(),
        LogicalPlan::Project { input, rel, exprs } => {
            let inner = estimate(input);
            let mut est = Estimate {
                rows: inner.rows,
                ..Estimate::default()
            };
            for (i, e) in exprs.iter().enumerate() {
                let id = ColumnId::new(*rel, i as u32);
                if let Some(n) = inner.ndv_of(e) {
                    est.ndv.insert(id, n);
                }
                if let Expr::ColumnRef { id: src, .. } = e
                    && let Some(r) = inner.range.get(src)
                {
                    est.range.insert(id, *r);
                }
            }
            // Columns of the input stay known (a forwarding projection is free).
            est.ndv.extend(inner.ndv);
            est.range.extend(inner.range);
            est.cap()
        }
        LogicalPlan::Aggregate {
            input,
            rel,
            group_by,
            ..
        } => {
            let inner = estimate(input);
            let mut groups = 1.0f64;
            for g in group_by {
                groups *= inner.ndv_of(g).unwrap_or((inner.rows / 10.0).max(1.0));
            }
            let rows = if group_by.is_empty() {
                1.0
            } else {
                groups.min(inner.rows).max(1.0)
            };
            let mut est = Estimate {
                rows,
                ..Estimate::default()
            };
            for (i, g) in group_by.iter().enumerate() {
                if let Some(n) = inner.ndv_of(g) {
                    est.ndv.insert(ColumnId::new(*rel, i as u32), n);
                }
            }
            est.cap()
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            ..
        } => join_estimate(estimate(left), estimate(right), *kind, on).cap(),
        LogicalPlan::DistinctOn { input, keys } => {
            let inner = estimate(input);
            let mut groups = 1.0f64;
            for k in keys {
                groups *= inner.ndv_of(k).unwrap_or((inner.rows / 10.0).max(1.0));
            }
            let rows = groups.min(inner.rows).max(1.0);
            Estimate { rows, ..inner }.cap()
        }
        LogicalPlan::Distinct { input } => {
            let inner = estimate(input);
            let rows = (inner.rows * 0.5).max(1.0);
            Estimate { rows, ..inner }.cap()
        }
        LogicalPlan::Sort { input, .. }
        | LogicalPlan::With { input, .. }
        | LogicalPlan::Window { input, .. } => estimate(input),
        // PostgreSQL's guess: a set-returning function returns ten rows per input row.
        LogicalPlan::ProjectSet { input, .. } => {
            let inner = estimate(input);
            Estimate {
                rows: inner.rows * 10.0,
                ..inner
            }
            .cap()
        }
        LogicalPlan::SetOp {
            kind,
            all,
            left,
            right,
            ..
        } => {
            let (l, r) = (estimate(left).rows, estimate(right).rows);
            let rows = match (kind, all) {
                (SetOpKind::Union, true) => l + r,
                (SetOpKind::Union, false) => (l + r) * 0.5,
                (SetOpKind::Intersect, _) => l.min(r) * 0.5,
                (SetOpKind::Except, _) => l * 0.5,
            };
            Estimate {
                rows: rows.max(1.0),
                ..Estimate::default()
            }
        }
        LogicalPlan::CteScan { .. } => Estimate {
            rows: 1000.0,
            ..Estimate::default()
        },
        LogicalPlan::RecursiveCte { anchor, .. } => Estimate {
            rows: estimate(anchor).rows * 10.0,
            ..Estimate::default()
        },
        LogicalPlan::WorkTable { .. } => Estimate {
            rows: 100.0,
            ..Estimate::default()
        },
        LogicalPlan::Limit { input, limit, .. } => {
            let mut est = estimate(input);
            if let Some(Expr::Literal { value, .. }) = limit
                && let Some(n) = value.as_i64()
            {
                est.rows = est.rows.min(n.max(0) as f64);
            }
            est.cap()
        }
    }
}

/// The estimate of a join of two inputs.
pub fn join_estimate(l: Estimate, r: Estimate, kind: JoinKind, on: &Expr) -> Estimate {
    let sel = join_selectivity(&l, &r, on);
    let inner_rows = (l.rows * r.rows * sel).max(1.0);
    let rows = match kind {
        JoinKind::Inner => inner_rows,
        JoinKind::Left | JoinKind::Single | JoinKind::Mark => inner_rows.max(l.rows),
        JoinKind::Right => inner_rows.max(r.rows),
        JoinKind::Full => inner_rows.max(l.rows).max(r.rows),
        JoinKind::Semi => (l.rows * (r.rows * sel).min(1.0)).max(1.0),
        JoinKind::Anti | JoinKind::AntiNullAware => {
            (l.rows * (1.0 - (r.rows * sel).min(1.0))).max(1.0)
        }
        JoinKind::RightSemi => (r.rows * (l.rows * sel).min(1.0)).max(1.0),
        JoinKind::RightAnti => (r.rows * (1.0 - (l.rows * sel).min(1.0))).max(1.0),
    };
    let mut est = Estimate {
        rows,
        ..Estimate::default()
    };
    if kind.emits_left() {
        est.ndv.extend(l.ndv);
        est.range.extend(l.range);
    }
    if kind.emits_right() || !kind.emits_left() {
        est.ndv.extend(r.ndv);
        est.range.extend(r.range);
    }
    est
}

/// The fraction of the cross product a join condition keeps.
fn join_selectivity(l: &Estimate, r: &Estimate, on: &Expr) -> f64 {
    let mut sel = 1.0;
    for c in on.clone().conjuncts() {
        sel *= match &c {
            Expr::Literal {
                value: Value::Bool(true),
                ..
            } => 1.0,
            Expr::Binary {
                op: BinaryOp::Eq,
                left,
                right,
                ..
            } => {
                let a = l.ndv_of(left).or_else(|| r.ndv_of(left));
                let b = l.ndv_of(right).or_else(|| r.ndv_of(right));
                match (a, b) {
                    (Some(x), Some(y)) => 1.0 / x.max(y).max(1.0),
                    (Some(x), None) | (None, Some(x)) => 1.0 / x.max(1.0),
                    (None, None) => DEFAULT_EQ_SEL,
                }
            }
            other => {
                let mut both = l.clone();
                both.ndv.extend(r.ndv.iter().map(|(k, v)| (*k, *v)));
                both.range.extend(r.range.iter().map(|(k, v)| (*k, *v)));
                selectivity(&both, other)
            }
        };
    }
    sel
}

fn filtered(mut est: Estimate, predicate: &Expr) -> Estimate {
    for c in predicate.clone().conjuncts() {
        let s = selectivity(&est, &c);
        est.rows *= s;
        if let Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
            ..
        } = &c
            && let (Expr::ColumnRef { id, .. }, Expr::Literal { .. })
            | (Expr::Literal { .. }, Expr::ColumnRef { id, .. }) =
                (left.as_ref(), right.as_ref())
        {
            est.ndv.insert(*id, 1.0);
        }
    }
    est.rows = est.rows.max(1.0);
    est
}

/// The fraction of rows a predicate keeps.
pub fn selectivity(est: &Estimate, e: &Expr) -> f64 {
    let sel = match e {
        Expr::Literal {
            value: Value::Bool(b),
            ..
        } => {
            if *b {
                1.0
            } else {
                0.0
            }
        }
        Expr::Literal {
            value: Value::Null, ..
        } => 0.0,
        Expr::And(list) => list.iter().map(|c| selectivity(est, c)).product(),
        Expr::Or(list) => {
            1.0 - list
                .iter()
                .map(|c| 1.0 - selectivity(est, c))
                .product::<f64>()
        }
        Expr::Not(inner) => 1.0 - selectivity(est, inner),
        Expr::Binary {
            op, left, right, ..
        } if op.is_comparison() => comparison(est, *op, left, right),
        Expr::Like { negated, .. } => {
            if *negated {
                1.0 - DEFAULT_LIKE_SEL
            } else {
                DEFAULT_LIKE_SEL
            }
        }
        Expr::IsNull { negated, .. } => {
            if *negated {
                1.0 - DEFAULT_EQ_SEL
            } else {
                DEFAULT_EQ_SEL
            }
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let one = est
                .ndv_of(expr)
                .map_or(DEFAULT_EQ_SEL, |n| 1.0 / n.max(1.0));
            let s = (one * list.len() as f64).min(1.0);
            if *negated { 1.0 - s } else { s }
        }
        Expr::Subquery(s) => match s.kind {
            SubqueryKind::Exists | SubqueryKind::Any { .. } | SubqueryKind::All { .. } => 0.5,
            SubqueryKind::Scalar | SubqueryKind::Row { .. } | SubqueryKind::Array => {
                DEFAULT_INEQ_SEL
            }
        },
        _ => DEFAULT_INEQ_SEL,
    };
    sel.clamp(0.0, 1.0)
}

fn comparison(est: &Estimate, op: BinaryOp, left: &Expr, right: &Expr) -> f64 {
    let (col, value, op) = match (strip_cast(left), strip_cast(right)) {
        (c @ Expr::ColumnRef { .. }, Expr::Literal { value, .. }) => (c, value, op),
        (Expr::Literal { value, .. }, c @ Expr::ColumnRef { .. }) => (c, value, flip(op)),
        (a, b) => {
            return match op {
                BinaryOp::Eq => {
                    let n = match (est.ndv_of(a), est.ndv_of(b)) {
                        (Some(x), Some(y)) => Some(x.max(y)),
                        (x, y) => x.or(y),
                    };
                    n.map_or(DEFAULT_EQ_SEL, |n| 1.0 / n.max(1.0))
                }
                BinaryOp::NotEq => 1.0 - DEFAULT_EQ_SEL,
                _ => DEFAULT_INEQ_SEL,
            };
        }
    };
    if value.is_null() {
        return 0.0;
    }
    let ndv = est.ndv_of(col);
    match op {
        BinaryOp::Eq => ndv.map_or(DEFAULT_EQ_SEL, |n| 1.0 / n.max(1.0)),
        BinaryOp::NotEq => 1.0 - ndv.map_or(DEFAULT_EQ_SEL, |n| 1.0 / n.max(1.0)),
        _ => {
            let Expr::ColumnRef { id, .. } = col else {
                return DEFAULT_INEQ_SEL;
            };
            // A date column compared as a timestamp: its statistics count days.
            let x = match (col.ty().ty, value) {
                (DataType::Date, Value::Timestamp(t) | Value::Timestamptz(t)) => {
                    Some(*t as f64 / USECS_PER_DAY as f64)
                }
                _ => numeric(value),
            };
            match (est.range.get(id), x) {
                (Some(&(lo, hi)), Some(x)) if hi > lo => {
                    let below = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
                    match op {
                        BinaryOp::Lt | BinaryOp::LtEq => below,
                        _ => 1.0 - below,
                    }
                    .max(0.0001)
                }
                _ => DEFAULT_INEQ_SEL,
            }
        }
    }
}

fn strip_cast(e: &Expr) -> &Expr {
    match e {
        Expr::Cast { expr, .. } => strip_cast(expr),
        other => other,
    }
}

fn flip(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::LtEq => BinaryOp::GtEq,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::GtEq => BinaryOp::LtEq,
        other => other,
    }
}

/// A constant as a number on the scale of the column statistics.
fn numeric(v: &Value) -> Option<f64> {
    Some(match v {
        Value::Int2(x) => *x as f64,
        Value::Int4(x) => *x as f64,
        Value::Int8(x) => *x as f64,
        Value::Float4(x) => *x as f64,
        Value::Float8(x) => *x,
        Value::Numeric(n) => n.to_f64().ok()?,
        Value::Date(d) => *d as f64,
        Value::Timestamp(t) | Value::Timestamptz(t) => *t as f64,
        _ => return None,
    })
}
