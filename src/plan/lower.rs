//! The physical planner: logical plan → physical plan.
//!
//! Lowering chooses an operator for every logical node and turns each [`ColumnId`] into
//! the position of that column in its input's batches. It works bottom-up: lowering a
//! node returns the physical plan and its [`Layout`] (which position holds which column
//! id); the parent's expressions are lowered against its inputs' layouts.
//!
//! Choices made here:
//! - a projection that only forwards columns is not run at all: its ids map to the
//!   positions of the columns it forwards (a scan's unread columns and a sort's hidden
//!   keys ride along unused), and only the statement's root — and inputs that compare
//!   whole rows (DISTINCT) — get an exact projection;
//! - `LIMIT` over `ORDER BY` becomes a bounded top-N sort;
//! - a subquery left in an expression becomes a [`SubPlan`]: the columns it reads from
//!   enclosing queries are given numbered *slots*, filled from the outer row before each
//!   run ([`Expr::OuterParam`] reads them inside).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use super::SortKey;
use super::cardinality::estimate;
use super::logical::{ColumnId, JoinKind, LogicalPlan, OutCol, RelId, SetOpKind, SrfCall};
use super::physical::{Op, Plan};
use crate::error::{Error, Result};
use crate::sql::expr::{BinaryOp, Expr, SubPlan, Subquery, SubqueryKind};
use crate::types::{DataType, SqlType, Value};

const INT8: SqlType = SqlType::new(DataType::Int8);

/// Nodes lowering added without an estimate of their own (projections, the sort
/// under a limit) expect as many rows as their input.
fn fill_estimates(plan: &mut Plan) {
    let mut inputs = plan.inputs_mut();
    for i in inputs.iter_mut() {
        fill_estimates(i);
    }
    let first = inputs.first().map(|i| i.rows);
    if plan.rows < 0.0 {
        plan.rows = first.unwrap_or(1.0);
    }
}

/// The layout of a node that defines `rel` with columns `0..n` in order.
fn dense(rel: RelId, n: usize) -> Layout {
    Layout::dense((0..n).map(|i| ColumnId::new(rel, i as u32)))
}

/// A physical node whose estimate the caller fills in.
fn node(op: Op) -> Plan {
    Plan::new(op, -1.0)
}

/// Makes `plan` — a table scan, or a projection of one that passes the sort columns
/// through — produce its rows in `keys` order by walking an index, for a top-N sort
/// needing `count` rows (`plan::access::order_by_index`). Returns whether it did, and
/// so whether the sort is unnecessary.
fn order_through_index(
    plan: &mut Plan,
    keys: &[SortKey],
    count: &Expr,
    estimated: f64,
    non_null: bool,
) -> bool {
    match &mut plan.op {
        Op::Project { input, exprs } => {
            let mut mapped = Vec::with_capacity(keys.len());
            for k in keys {
                match exprs.get(k.column) {
                    Some(Expr::Column { index, .. }) => mapped.push(SortKey {
                        column: *index,
                        ..*k
                    }),
                    _ => return false,
                }
            }
            matches!(input.op, Op::Scan { .. })
                && order_through_index(input, &mapped, count, estimated, non_null)
        }
        Op::Scan {
            table,
            filter,
            index,
            ..
        } => {
            // A lookup of a few keys already (at most one row per key, or several
            // keys whose rows would need merging): leave the sort to order them.
            if let Some(existing) = index
                && (existing.keys.len() > 1
                    || (existing.index.index.unique
                        && existing.keys.first().map_or(0, |k| k.len())
                            == existing.index.index.parts.len()))
            {
                return false;
            }
            let ncols = table.columns.len();
            if keys.iter().any(|k| k.column >= ncols) {
                return false;
            }
            let order_keys: Vec<crate::plan::access::OrderKey> = keys
                .iter()
                .map(|k| crate::plan::access::OrderKey {
                    column: k.column,
                    desc: k.desc,
                    nulls_first: k.nulls_first,
                })
                .collect();
            let Some(lookup) = crate::plan::access::order_by_index(
                table,
                filter.as_ref(),
                &order_keys,
                count.clone(),
                estimated,
                non_null,
            ) else {
                return false;
            };
            if let Some(existing) = index
                && existing.index.oid != lookup.index.oid
            {
                // Another index narrows the scan: keep it.
                return false;
            }
            *index = Some(Box::new(lookup));
            true
        }
        _ => false,
    }
}

/// Which position of a physical plan's output holds which column id.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub width: usize,
    pub map: HashMap<ColumnId, usize>,
}

impl Layout {
    fn dense(ids: impl Iterator<Item = ColumnId>) -> Layout {
        let mut layout = Layout::default();
        for (i, id) in ids.enumerate() {
            layout.map.insert(id, i);
            layout.width = i + 1;
        }
        layout
    }

    /// Whether positions `0..n` hold exactly `cols`, and nothing else is produced.
    fn is_exactly(&self, cols: &[OutCol]) -> bool {
        self.width == cols.len()
            && cols
                .iter()
                .enumerate()
                .all(|(i, c)| self.map.get(&c.id) == Some(&i))
    }
}

/// Turns logical plans into physical ones, one statement at a time.
#[derive(Default)]
pub struct Lowerer {
    /// For each subplan being lowered (innermost last): the slots of the outer columns
    /// it reads.
    outer: Vec<HashMap<ColumnId, usize>>,
    next_slot: usize,
    next_subplan: usize,
    /// The name each scanned relation is known by, so that EXPLAIN shows `o.id`.
    aliases: HashMap<RelId, String>,
    /// The lowered plans of the materialized WITH queries, by id.
    ctes: HashMap<u32, Arc<Plan>>,
}

impl Lowerer {
    pub fn new() -> Lowerer {
        Lowerer::default()
    }

    /// Lowers a statement's plan: its output is exactly the plan's output columns.
    pub fn lower_root(&mut self, plan: &LogicalPlan) -> Result<Plan> {
        let mut physical = self.lower_exact(plan)?;
        fill_estimates(&mut physical);
        Ok(physical)
    }

    /// Lowers a plan whose consumer reads its columns through the layout it comes with
    /// (an UPDATE or DELETE source, whose row ids are the scan's last column).
    pub fn lower_loose(&mut self, plan: &LogicalPlan) -> Result<Plan> {
        let (physical, layout) = self.lower(plan)?;
        let cols = plan.output();
        let mut physical = match cols.last() {
            Some(last) if layout.map.get(&last.id) == Some(&(layout.width - 1)) => physical,
            _ => self.lower_exact(plan)?,
        };
        fill_estimates(&mut physical);
        Ok(physical)
    }

    /// Lowers `plan` so that its batches hold exactly its output columns, in order.
    fn lower_exact(&mut self, plan: &LogicalPlan) -> Result<Plan> {
        let (physical, layout) = self.lower(plan)?;
        let cols = plan.output();
        if layout.is_exactly(&cols) {
            return Ok(physical);
        }
        let exprs = cols
            .iter()
            .map(|c| self.column(c.id, c.ty, String::new(), &layout))
            .collect::<Result<Vec<_>>>()?;
        Ok(node(Op::Project {
            input: Box::new(physical),
            exprs,
        }))
    }

    fn lower(&mut self, plan: &LogicalPlan) -> Result<(Plan, Layout)> {
        let (mut physical, layout) = self.lower_node(plan)?;
        if physical.rows < 0.0 {
            physical.rows = estimate(plan).rows;
        }
        Ok((physical, layout))
    }

    fn lower_node(&mut self, plan: &LogicalPlan) -> Result<(Plan, Layout)> {
        match plan {
            LogicalPlan::Get {
                rel,
                table,
                alias,
                columns,
                row_id,
                filter,
            } => {
                self.aliases.insert(*rel, alias.clone());
                let ncols = table.columns.len();
                let width = ncols + usize::from(*row_id);
                let mut needed = vec![false; width];
                let mut layout = Layout {
                    width,
                    map: HashMap::new(),
                };
                for &c in columns {
                    needed[c as usize] = true;
                    layout.map.insert(ColumnId::new(*rel, c), c as usize);
                }
                if *row_id {
                    needed[ncols] = true;
                    layout.map.insert(ColumnId::new(*rel, ncols as u32), ncols);
                }
                let filter = filter.as_ref().map(|f| self.expr(f, &layout)).transpose()?;
                let estimated = crate::plan::cardinality::estimate(plan).rows;
                let index = filter
                    .as_ref()
                    .and_then(|f| crate::plan::access::choose_index(table, f, estimated))
                    .map(Box::new);
                Ok((
                    node(Op::Scan {
                        table: table.clone(),
                        alias: alias.clone(),
                        filter,
                        row_ids: *row_id,
                        needed: Some(needed),
                        index,
                    }),
                    layout,
                ))
            }
            LogicalPlan::Values { rel, rows, types } => {
                let empty = Layout::default();
                let rows = rows
                    .iter()
                    .map(|r| r.iter().map(|e| self.expr(e, &empty)).collect())
                    .collect::<Result<Vec<_>>>()?;
                let layout = Layout::dense((0..types.len()).map(|i| ColumnId::new(*rel, i as u32)));
                Ok((
                    node(Op::Values {
                        rows,
                        types: types.clone(),
                    }),
                    layout,
                ))
            }
            LogicalPlan::Series {
                rel,
                func,
                args,
                types,
                ordinality,
            } => {
                let empty = Layout::default();
                let args = args
                    .iter()
                    .map(|e| self.expr(e, &empty))
                    .collect::<Result<_>>()?;
                Ok((
                    node(Op::GenerateSeries {
                        func: *func,
                        args,
                        types: types.clone(),
                        ordinality: *ordinality,
                    }),
                    dense(*rel, types.len()),
                ))
            }
            LogicalPlan::Filter { input, predicate } => {
                let (child, layout) = self.lower(input)?;
                let predicate = self.expr(predicate, &layout)?;
                Ok((
                    node(Op::Filter {
                        input: Box::new(child),
                        predicate,
                    }),
                    layout,
                ))
            }
            LogicalPlan::Project { input, rel, exprs } => {
                let (child, layout) = self.lower(input)?;
                // Forwarding only: no operator, just new names for the same positions.
                // (An unused column has no position at all.)
                let forwarded: Option<Vec<Option<usize>>> = exprs
                    .iter()
                    .map(|e| match e {
                        Expr::ColumnRef { id, .. } => layout.map.get(id).copied().map(Some),
                        Expr::Unused { .. } => Some(None),
                        _ => None,
                    })
                    .collect();
                if let Some(positions) = forwarded {
                    let mut out = Layout {
                        width: layout.width,
                        map: HashMap::new(),
                    };
                    for (i, p) in positions.into_iter().enumerate() {
                        if let Some(p) = p {
                            out.map.insert(ColumnId::new(*rel, i as u32), p);
                        }
                    }
                    return Ok((child, out));
                }
                let lowered = exprs
                    .iter()
                    .map(|e| self.expr(e, &layout))
                    .collect::<Result<Vec<_>>>()?;
                // An unused column keeps its position (left empty) but no column id, so
                // operators above treat it as unread (see `position_types`).
                let mut out = Layout {
                    width: exprs.len(),
                    map: HashMap::new(),
                };
                for (i, e) in exprs.iter().enumerate() {
                    if !matches!(e, Expr::Unused { .. }) {
                        out.map.insert(ColumnId::new(*rel, i as u32), i);
                    }
                }
                let exprs = lowered;
                Ok((
                    node(Op::Project {
                        input: Box::new(child),
                        exprs,
                    }),
                    out,
                ))
            }
            LogicalPlan::Aggregate {
                input,
                rel,
                group_by,
                aggs,
            } => {
                let (child, layout) = self.lower(input)?;
                let group_by = group_by
                    .iter()
                    .map(|g| self.expr(g, &layout))
                    .collect::<Result<Vec<_>>>()?;
                let mut lowered = Vec::with_capacity(aggs.len());
                for a in aggs {
                    let mut call = a.clone();
                    let mut failure = None;
                    call.exprs_mut(&mut |x| {
                        if failure.is_none() {
                            match self.expr(x, &layout) {
                                Ok(l) => *x = l,
                                Err(err) => failure = Some(err),
                            }
                        }
                    });
                    if let Some(err) = failure {
                        return Err(err);
                    }
                    lowered.push(call);
                }
                let out = Layout::dense(
                    (0..group_by.len() + lowered.len()).map(|i| ColumnId::new(*rel, i as u32)),
                );
                let mut child = child;
                // min(x) / max(x) alone: the first non-NULL key of an index on x.
                if let ([], [call]) = (group_by.as_slice(), lowered.as_slice())
                    && matches!(
                        call.func,
                        crate::sql::expr::AggFunc::Min | crate::sql::expr::AggFunc::Max
                    )
                    && !call.distinct
                    && call.filter.is_none()
                    && call.order_by.is_empty()
                    && let Some(Expr::Column { index, .. }) = &call.arg
                {
                    let key = SortKey {
                        column: *index,
                        desc: call.func == crate::sql::expr::AggFunc::Max,
                        nulls_first: false,
                    };
                    let one = Expr::Literal {
                        value: Value::Int8(1),
                        ty: INT8,
                    };
                    let estimated = crate::plan::cardinality::estimate(input).rows;
                    order_through_index(&mut child, &[key], &one, estimated, true);
                }
                Ok((
                    node(Op::Aggregate {
                        input: Box::new(child),
                        group_by,
                        aggs: lowered,
                    }),
                    out,
                ))
            }
            LogicalPlan::Join {
                left,
                right,
                kind,
                on,
                mark,
            } => self.lower_join(left, right, *kind, on, *mark),
            LogicalPlan::DistinctOn { input, keys } => {
                let (child, layout) = self.lower(input)?;
                let keys = keys
                    .iter()
                    .map(|k| self.expr(k, &layout))
                    .collect::<Result<Vec<_>>>()?;
                Ok((
                    node(Op::DistinctOn {
                        input: Box::new(child),
                        keys,
                    }),
                    layout,
                ))
            }
            LogicalPlan::Distinct { input } => {
                let child = self.lower_exact(input)?;
                let layout = Layout::dense(input.output().iter().map(|c| c.id));
                Ok((
                    node(Op::Distinct {
                        input: Box::new(child),
                    }),
                    layout,
                ))
            }
            LogicalPlan::Sort { .. } => self.lower_sort(plan, None),
            LogicalPlan::Window { input, rel, calls } => {
                let (child, layout) = self.lower(input)?;
                let mut lowered = Vec::with_capacity(calls.len());
                for c in calls {
                    let mut call = c.clone();
                    let mut failure = None;
                    call.exprs_mut(&mut |e| {
                        if failure.is_none() {
                            match self.expr(e, &layout) {
                                Ok(x) => *e = x,
                                Err(err) => failure = Some(err),
                            }
                        }
                    });
                    if let Some(err) = failure {
                        return Err(err);
                    }
                    lowered.push(call);
                }
                let input_types = position_types(&layout, &input.output());
                let out = appended(&layout, *rel, calls.len());
                Ok((
                    node(Op::Window {
                        input: Box::new(child),
                        calls: lowered,
                        input_types,
                    }),
                    out,
                ))
            }
            LogicalPlan::ProjectSet { input, rel, calls } => {
                let (child, layout) = self.lower(input)?;
                let mut lowered = Vec::with_capacity(calls.len());
                for c in calls {
                    let args = c
                        .args
                        .iter()
                        .map(|e| self.expr(e, &layout))
                        .collect::<Result<Vec<_>>>()?;
                    lowered.push(SrfCall { args, ..c.clone() });
                }
                let input_types = position_types(&layout, &input.output());
                let out = appended(&layout, *rel, calls.len());
                Ok((
                    node(Op::ProjectSet {
                        input: Box::new(child),
                        calls: lowered,
                        input_types,
                    }),
                    out,
                ))
            }
            LogicalPlan::SetOp {
                kind,
                all,
                left,
                right,
                rel,
                types,
            } => {
                let l = self.lower_exact(left)?;
                let r = self.lower_exact(right)?;
                let layout = dense(*rel, types.len());
                let op = match (kind, all) {
                    (SetOpKind::Union, true) => Op::Append { inputs: vec![l, r] },
                    (SetOpKind::Union, false) => Op::Distinct {
                        input: Box::new(node(Op::Append { inputs: vec![l, r] })),
                    },
                    (kind, all) => Op::SetOp {
                        kind: *kind,
                        all: *all,
                        left: Box::new(l),
                        right: Box::new(r),
                    },
                };
                Ok((node(op), layout))
            }
            LogicalPlan::With { ctes, input } => {
                for c in ctes {
                    let mut p = self.lower_exact(&c.plan)?;
                    fill_estimates(&mut p);
                    self.ctes.insert(c.id, Arc::new(p));
                }
                self.lower(input)
            }
            LogicalPlan::CteScan {
                rel,
                id,
                name,
                types,
            } => {
                let plan =
                    self.ctes.get(id).cloned().ok_or_else(|| {
                        Error::internal(format!("WITH query {name} was not planned"))
                    })?;
                Ok((
                    node(Op::CteScan {
                        id: *id,
                        name: name.clone(),
                        plan,
                    }),
                    dense(*rel, types.len()),
                ))
            }
            LogicalPlan::RecursiveCte {
                rel,
                id,
                name,
                anchor,
                recursive,
                all,
                types,
            } => {
                let anchor = self.lower_exact(anchor)?;
                let recursive = self.lower_exact(recursive)?;
                Ok((
                    node(Op::RecursiveUnion {
                        id: *id,
                        name: name.clone(),
                        anchor: Box::new(anchor),
                        recursive: Box::new(recursive),
                        all: *all,
                    }),
                    dense(*rel, types.len()),
                ))
            }
            LogicalPlan::WorkTable {
                rel,
                id,
                name,
                types,
            } => Ok((
                node(Op::WorkTableScan {
                    id: *id,
                    name: name.clone(),
                }),
                dense(*rel, types.len()),
            )),
            LogicalPlan::Limit {
                input,
                limit,
                offset,
                ties,
            } => {
                let empty = Layout::default();
                let limit = limit.as_ref().map(|e| self.expr(e, &empty)).transpose()?;
                let offset = offset.as_ref().map(|e| self.expr(e, &empty)).transpose()?;
                let top_n = ties.is_empty() && limit.is_some();
                let (child, layout) = if matches!(input.as_ref(), LogicalPlan::Sort { .. }) && top_n
                {
                    // A top-N sort keeps limit + offset rows.
                    let top = match (&limit, &offset) {
                        (Some(l), None) => Some(l.clone()),
                        (Some(l), Some(o)) => Some(Expr::Binary {
                            op: BinaryOp::Add,
                            left: Box::new(l.clone()),
                            right: Box::new(o.clone()),
                            ty: INT8,
                        }),
                        _ => None,
                    };
                    self.lower_sort(input, top)?
                } else {
                    self.lower(input)?
                };
                let mut tie_columns = Vec::with_capacity(ties.len());
                for t in ties {
                    match t {
                        Expr::ColumnRef { id, .. } if layout.map.contains_key(id) => {
                            tie_columns.push(layout.map[id]);
                        }
                        _ => {
                            return Err(Error::feature_not_supported("WITH TIES on this ORDER BY"));
                        }
                    }
                }
                Ok((
                    node(Op::Limit {
                        input: Box::new(child),
                        limit,
                        offset,
                        ties: tie_columns,
                    }),
                    layout,
                ))
            }
        }
    }

    /// A join: equalities between the two sides become hash keys, the rest of the
    /// condition is evaluated over the candidate pairs.
    fn lower_join(
        &mut self,
        left: &LogicalPlan,
        right: &LogicalPlan,
        kind: JoinKind,
        on: &Expr,
        mark: Option<ColumnId>,
    ) -> Result<(Plan, Layout)> {
        if mark.is_some() || kind == JoinKind::Mark {
            return Err(Error::feature_not_supported("mark joins"));
        }
        if super::rules::join_order::is_lateral(left, right) {
            return self.lower_apply(left, right, kind, on);
        }
        if let Some(plan) = self.index_nested_loop(left, right, kind, on)? {
            return Ok(plan);
        }
        let (lp, ll) = self.lower(left)?;
        let (rp, rl) = self.lower(right)?;
        let mut left_rels = BTreeSet::new();
        left.defined_rels(&mut left_rels);
        let mut right_rels = BTreeSet::new();
        right.defined_rels(&mut right_rels);
        let mut left_keys = Vec::new();
        let mut right_keys = Vec::new();
        let mut residual = Vec::new();
        for c in on.clone().conjuncts() {
            if matches!(
                c,
                Expr::Literal {
                    value: Value::Bool(true),
                    ..
                }
            ) {
                continue;
            }
            match equi_key(&c, &left_rels, &right_rels) {
                Some((l, r)) => {
                    left_keys.push(self.expr(&key_text(l), &ll)?);
                    right_keys.push(self.expr(&key_text(r), &rl)?);
                }
                None => residual.push(c),
            }
        }
        // NOT IN's null-aware anti join compares one key and nothing else.
        if kind == JoinKind::AntiNullAware && (left_keys.len() != 1 || !residual.is_empty()) {
            return Err(Error::feature_not_supported("this form of NOT IN"));
        }
        let mut combined = ll.clone();
        for (id, &p) in &rl.map {
            combined.map.insert(*id, ll.width + p);
        }
        combined.width = ll.width + rl.width;
        let residual_expr = Expr::and_all(residual);
        let residual = match &residual_expr {
            Some(r) => Some(self.expr(r, &combined)?),
            None => None,
        };
        let left_types = position_types(&ll, &left.output());
        let right_types = position_types(&rl, &right.output());
        if matches!(kind, JoinKind::Semi | JoinKind::Anti)
            && !left_keys.is_empty()
            && estimate(left).rows * 2.0 < estimate(right).rows
        {
            // The left side is the small one: build the hash table on it and probe with
            // the right side, marking the build rows that match (a right semi or anti
            // join). The output is still the left side's rows, now the build side's.
            let mut swapped = rl.clone();
            for (id, &p) in &ll.map {
                swapped.map.insert(*id, rl.width + p);
            }
            swapped.width = rl.width + ll.width;
            let residual = match &residual_expr {
                Some(r) => Some(self.expr(r, &swapped)?),
                None => None,
            };
            let kind = if kind == JoinKind::Semi {
                JoinKind::RightSemi
            } else {
                JoinKind::RightAnti
            };
            return Ok((
                node(Op::Join {
                    left: Box::new(rp),
                    right: Box::new(lp),
                    kind,
                    left_keys: right_keys,
                    right_keys: left_keys,
                    residual,
                    left_types: right_types,
                    right_types: left_types,
                }),
                ll,
            ));
        }
        let layout = if kind.emits_right() { combined } else { ll };
        Ok((
            node(Op::Join {
                left: Box::new(lp),
                right: Box::new(rp),
                kind,
                left_keys,
                right_keys,
                residual,
                left_types,
                right_types,
            }),
            layout,
        ))
    }

    /// A LATERAL join: the right input runs once per left row, with the left columns
    /// it reads in outer-parameter slots.
    /// An index nested-loop join: a few outer rows, each looking its matches up in an
    /// index of a much larger table, instead of a hash table built over (or probed by)
    /// the whole table. Written as a LATERAL join whose inner side is the table filtered
    /// by `key = outer value`, which the index scan answers. Inner and left joins; the
    /// inner side must be a plain table scan with an index leading with a join key.
    fn index_nested_loop(
        &mut self,
        left: &LogicalPlan,
        right: &LogicalPlan,
        kind: JoinKind,
        on: &Expr,
    ) -> Result<Option<(Plan, Layout)>> {
        /// Outer rows above which a hash join wins.
        const OUTER_ROWS_MAX: f64 = 1000.0;
        // A right join is a left join with the sides swapped.
        let (left, right, kind) = match kind {
            JoinKind::Right => (right, left, JoinKind::Left),
            JoinKind::Inner | JoinKind::Left => (left, right, kind),
            _ => return Ok(None),
        };
        let (lrows, rrows) = (estimate(left).rows, estimate(right).rows);
        // The indexed side: the right one, or for an inner join either.
        let (outer, inner) = if rrows >= 10.0 * lrows.max(1.0) && lrows <= OUTER_ROWS_MAX {
            (left, right)
        } else if kind == JoinKind::Inner
            && lrows >= 10.0 * rrows.max(1.0)
            && rrows <= OUTER_ROWS_MAX
        {
            (right, left)
        } else {
            return Ok(None);
        };
        let LogicalPlan::Get {
            rel,
            table,
            alias,
            columns,
            row_id,
            filter,
        } = inner
        else {
            return Ok(None);
        };
        if table.indexes.is_empty() || table.view.is_some() {
            return Ok(None);
        }
        let mut outer_rels = BTreeSet::new();
        outer.defined_rels(&mut outer_rels);
        let inner_rels: BTreeSet<RelId> = [*rel].into_iter().collect();
        // An equality `inner.col = outer expression` on a column an index leads with.
        let mut lookup = None;
        for c in on.clone().conjuncts() {
            let Some((o, i)) = equi_key(&c, &outer_rels, &inner_rels) else {
                continue;
            };
            let Expr::ColumnRef { id, ty, .. } = i else {
                continue;
            };
            if id.rel != *rel || o.ty().ty != ty.ty {
                continue;
            }
            let leads = table.indexes.iter().any(|ix| {
                ix.index.predicate.is_none() && ix.index.parts[0].column == id.col as usize
            });
            if leads {
                lookup = Some(Expr::Binary {
                    op: BinaryOp::Eq,
                    left: Box::new(i.clone()),
                    right: Box::new(o.clone()),
                    ty: SqlType::new(DataType::Bool),
                });
                break;
            }
        }
        let Some(lookup) = lookup else {
            return Ok(None);
        };
        let filter = Some(match filter {
            Some(f) => Expr::And(vec![lookup, f.clone()]),
            None => lookup,
        });
        let inner = LogicalPlan::Get {
            rel: *rel,
            table: table.clone(),
            alias: alias.clone(),
            columns: columns.clone(),
            row_id: *row_id,
            filter,
        };
        Ok(Some(self.lower_apply(outer, &inner, kind, on)?))
    }

    fn lower_apply(
        &mut self,
        left: &LogicalPlan,
        right: &LogicalPlan,
        kind: JoinKind,
        on: &Expr,
    ) -> Result<(Plan, Layout)> {
        if !matches!(kind, JoinKind::Inner | JoinKind::Left) {
            return Err(Error::feature_not_supported(format!(
                "a LATERAL {} join",
                kind.name()
            )));
        }
        let (lp, ll) = self.lower(left)?;
        let mut defined = BTreeSet::new();
        right.defined_rels(&mut defined);
        let mut free = BTreeMap::new();
        right.walk(&mut |p| {
            p.exprs(&mut |e| {
                e.column_refs(&mut |id, ty| {
                    if !defined.contains(&id.rel) {
                        free.insert(id, ty);
                    }
                })
            })
        });
        let mut params = Vec::with_capacity(free.len());
        let mut slots = HashMap::new();
        for (id, ty) in free {
            let slot = self.next_slot;
            self.next_slot += 1;
            params.push((slot, self.column(id, ty, String::new(), &ll)?));
            slots.insert(id, slot);
        }
        self.outer.push(slots);
        let lowered = self.lower(right);
        self.outer.pop();
        let (mut rp, rl) = lowered?;
        fill_estimates(&mut rp);
        let mut combined = ll.clone();
        for (id, &p) in &rl.map {
            combined.map.insert(*id, ll.width + p);
        }
        combined.width = ll.width + rl.width;
        let condition = match on {
            Expr::Literal {
                value: Value::Bool(true),
                ..
            } => None,
            c => Some(self.expr(c, &combined)?),
        };
        let right_types = position_types(&rl, &right.output());
        Ok((
            node(Op::Apply {
                left: Box::new(lp),
                right: Arc::new(rp),
                kind,
                params,
                condition,
                right_types,
            }),
            combined,
        ))
    }

    /// A sort (top-N with `limit`). Keys that are not columns of the input are computed
    /// by a projection below it.
    fn lower_sort(&mut self, plan: &LogicalPlan, limit: Option<Expr>) -> Result<(Plan, Layout)> {
        let LogicalPlan::Sort { input, keys } = plan else {
            return Err(Error::internal("lower_sort on a non-sort"));
        };
        let (mut child, mut layout) = self.lower(input)?;
        let computed: Vec<&Expr> = keys
            .iter()
            .map(|k| &k.expr)
            .filter(|e| !matches!(e, Expr::ColumnRef { id, .. } if layout.map.contains_key(id)))
            .collect();
        if !computed.is_empty() {
            // Forward the input's columns, then compute the keys.
            let cols = input.output();
            let mut exprs = Vec::with_capacity(cols.len() + computed.len());
            for c in &cols {
                exprs.push(self.column(c.id, c.ty, String::new(), &layout)?);
            }
            for e in &computed {
                exprs.push(self.expr(e, &layout)?);
            }
            child = node(Op::Project {
                input: Box::new(child),
                exprs,
            });
            layout = Layout::dense(cols.iter().map(|c| c.id));
        }
        let mut next_computed = layout.width;
        let mut sort_keys = Vec::with_capacity(keys.len());
        for k in keys {
            let column = match &k.expr {
                Expr::ColumnRef { id, .. } if layout.map.contains_key(id) => layout.map[id],
                _ => {
                    next_computed += 1;
                    next_computed - 1
                }
            };
            sort_keys.push(SortKey {
                column,
                desc: k.desc,
                nulls_first: k.nulls_first,
            });
        }
        let width = next_computed;
        if let Some(count) = &limit
            && computed.is_empty()
        {
            let estimated = crate::plan::cardinality::estimate(input).rows;
            if order_through_index(&mut child, &sort_keys, count, estimated, false) {
                return Ok((
                    child,
                    Layout {
                        width,
                        map: layout.map,
                    },
                ));
            }
        }
        Ok((
            node(Op::Sort {
                input: Box::new(child),
                keys: sort_keys,
                limit,
            }),
            Layout {
                width,
                map: layout.map,
            },
        ))
    }

    fn column(&self, id: ColumnId, ty: SqlType, name: String, layout: &Layout) -> Result<Expr> {
        if let Some(&index) = layout.map.get(&id) {
            let name = match self.aliases.get(&id.rel) {
                Some(alias) if !name.is_empty() => format!("{alias}.{name}"),
                _ => name,
            };
            return Ok(Expr::Column { index, ty, name });
        }
        if let Some(&slot) = self.outer.last().and_then(|m| m.get(&id)) {
            return Ok(Expr::OuterParam { slot, ty });
        }
        Err(Error::internal(format!(
            "column {id} is not produced by the input of its operator"
        )))
    }

    /// Lowers an expression over an input with `layout`.
    pub fn expr(&mut self, e: &Expr, layout: &Layout) -> Result<Expr> {
        match e {
            Expr::ColumnRef { id, ty, name } => self.column(*id, *ty, name.clone(), layout),
            Expr::Subquery(sub) => self.subquery(sub, layout),
            _ => {
                let mut out = e.clone();
                let mut failure = None;
                out.children_mut(&mut |c| {
                    if failure.is_some() {
                        return;
                    }
                    match self.expr(c, layout) {
                        Ok(x) => *c = x,
                        Err(err) => failure = Some(err),
                    }
                });
                match failure {
                    Some(err) => Err(err),
                    None => Ok(out),
                }
            }
        }
    }

    /// A subquery the optimizer left in an expression: a [`SubPlan`].
    fn subquery(&mut self, sub: &Subquery, layout: &Layout) -> Result<Expr> {
        let mut defined = BTreeSet::new();
        sub.plan.defined_rels(&mut defined);
        let mut free = BTreeMap::new();
        let mut note = |id: ColumnId, ty: SqlType| {
            if !defined.contains(&id.rel) {
                free.insert(id, ty);
            }
        };
        sub.plan
            .walk(&mut |p| p.exprs(&mut |e| e.column_refs(&mut note)));
        if let SubqueryKind::Any { right, .. }
        | SubqueryKind::All { right, .. }
        | SubqueryKind::Row { right, .. } = &sub.kind
        {
            right.iter().for_each(|r| r.column_refs(&mut note));
        }
        let mut params = Vec::with_capacity(free.len());
        let mut slots = HashMap::new();
        for (id, ty) in free {
            let slot = self.next_slot;
            self.next_slot += 1;
            params.push((slot, self.column(id, ty, String::new(), layout)?));
            slots.insert(id, slot);
        }
        let kind_left = match &sub.kind {
            SubqueryKind::Any { left, .. }
            | SubqueryKind::All { left, .. }
            | SubqueryKind::Row { left, .. } => left
                .iter()
                .map(|l| self.expr(l, layout))
                .collect::<Result<Vec<_>>>()?,
            SubqueryKind::Scalar | SubqueryKind::Exists | SubqueryKind::Array => Vec::new(),
        };
        self.outer.push(slots);
        let lowered = self.lower_subplan_body(sub, kind_left);
        self.outer.pop();
        let (mut plan, kind) = lowered?;
        fill_estimates(&mut plan);
        let id = self.next_subplan;
        self.next_subplan += 1;
        Ok(Expr::SubPlan(Arc::new(SubPlan {
            id,
            kind,
            plan,
            params,
            ty: sub.ty,
        })))
    }

    fn lower_subplan_body(
        &mut self,
        sub: &Subquery,
        left: Vec<Expr>,
    ) -> Result<(Plan, SubqueryKind)> {
        match &sub.kind {
            SubqueryKind::Scalar | SubqueryKind::Array => {
                Ok((self.lower_exact(&sub.plan)?, sub.kind.clone()))
            }
            // Only the row count matters: the select list was pruned away.
            SubqueryKind::Exists => Ok((self.lower(&sub.plan)?.0, sub.kind.clone())),
            SubqueryKind::Any { right, op, .. }
            | SubqueryKind::All { right, op, .. }
            | SubqueryKind::Row { right, op, .. } => {
                let (plan, layout) = self.lower(&sub.plan)?;
                let right = right
                    .iter()
                    .map(|r| self.expr(r, &layout))
                    .collect::<Result<Vec<_>>>()?;
                let op = *op;
                let kind = match sub.kind {
                    SubqueryKind::Any { .. } => SubqueryKind::Any { left, right, op },
                    SubqueryKind::All { .. } => SubqueryKind::All { left, right, op },
                    _ => SubqueryKind::Row { left, right, op },
                };
                Ok((plan, kind))
            }
        }
    }
}

/// `l = r` with `l` over the left side only and `r` over the right only (either way
/// round), at key types that hash alike: the two sides of a hash key.
fn equi_key<'e>(
    e: &'e Expr,
    left_rels: &BTreeSet<RelId>,
    right_rels: &BTreeSet<RelId>,
) -> Option<(&'e Expr, &'e Expr)> {
    let Expr::Binary {
        op: BinaryOp::Eq,
        left,
        right,
        ..
    } = e
    else {
        return None;
    };
    if left.has_subquery() || right.has_subquery() {
        return None;
    }
    if key_class(left.ty().ty)? != key_class(right.ty().ty)? {
        return None;
    }
    let side = |x: &Expr| {
        let mut used = BTreeSet::new();
        x.used_rels(&mut used);
        let on_left = used.iter().any(|r| left_rels.contains(r));
        let on_right = used.iter().any(|r| right_rels.contains(r));
        match (on_left, on_right) {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => None,
        }
    };
    match (side(left)?, side(right)?) {
        (true, false) => Some((left, right)),
        (false, true) => Some((right, left)),
        _ => None,
    }
}

/// A layout of `layout`'s positions followed by `n` columns of `rel` (a window's or a
/// ProjectSet's calls).
fn appended(layout: &Layout, rel: RelId, n: usize) -> Layout {
    let mut out = layout.clone();
    for i in 0..n {
        out.map
            .insert(ColumnId::new(rel, i as u32), layout.width + i);
    }
    out.width = layout.width + n;
    out
}

/// Types whose values hash alike when they compare equal.
fn key_class(t: DataType) -> Option<u8> {
    Some(match t {
        DataType::Int2 | DataType::Int4 | DataType::Int8 => 0,
        DataType::Float4 | DataType::Float8 => 1,
        // An enum's labels are unique within it: they hash and compare as text (its order
        // is the binder's, through EnumPosition).
        DataType::Text
        | DataType::Varchar
        | DataType::Bpchar
        | DataType::Name
        | DataType::Char
        | DataType::Enum(_) => 2,
        DataType::Numeric => 3,
        DataType::Date => 4,
        DataType::Timestamp => 5,
        DataType::Timestamptz => 6,
        DataType::Interval => 7,
        DataType::Bool => 8,
        // Array keys write each element as its type's class does (types::array::write_key).
        DataType::Array(elem) => 32 + key_class(*elem)?,
        DataType::Record => 9,
        // json has no equality: it is never a key.
        DataType::Json => return None,
        // jsonpath has no equality either.
        DataType::JsonPath => return None,
        DataType::Uuid => 12,
        DataType::Bytea => 13,
        DataType::Jsonb => 14,
        DataType::Time => 11,
        DataType::TimeTz => 15,
        // inet and cidr compare alike (cidr is an inet); MAC addresses by bytes.
        DataType::Inet | DataType::Cidr => 16,
        DataType::MacAddr => 17,
        DataType::MacAddr8 => 18,
        // Ranges compare by their stored bytes (`types::range`).
        DataType::Range(_) => 19,
        // A tsvector's bytes order as tsvector_cmp; a tsquery's compare for equality.
        DataType::TsVector => 20,
        DataType::TsQuery => 21,
        DataType::Oid
        | DataType::RegClass
        | DataType::RegType
        | DataType::RegProc
        | DataType::RegProcedure
        | DataType::RegNamespace
        | DataType::RegRole
        | DataType::RegConfig
        | DataType::RegDictionary => 10,
        DataType::Unknown => return None,
    })
}

/// A `char(n)` key compares without its trailing blanks: hash it as text.
fn key_text(e: &Expr) -> Expr {
    if e.ty().ty == DataType::Bpchar {
        Expr::Cast {
            expr: Box::new(e.clone()),
            to: SqlType::new(DataType::Text),
            explicit: false,
        }
    } else {
        e.clone()
    }
}

/// The type of each position of a layout (None where no column id lives).
fn position_types(layout: &Layout, cols: &[OutCol]) -> Vec<Option<DataType>> {
    let mut types = vec![None; layout.width];
    for c in cols {
        if let Some(&p) = layout.map.get(&c.id) {
            types[p] = Some(c.ty.ty);
        }
    }
    types
}
