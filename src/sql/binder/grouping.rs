//! GROUP BY: plain keys, and GROUPING SETS / ROLLUP / CUBE with GROUPING().
//!
//! The GROUP BY list expands into grouping sets as PostgreSQL expands it: each item
//! gives a list of sets (a plain key one set of itself, `ROLLUP (a, b)` the sets `(a,
//! b), (a), ()`, `CUBE (a, b)` every subset, `GROUPING SETS (…)` the union of its
//! elements' sets), and the items combine by cross product. Duplicate sets stay
//! duplicates (and give duplicate rows), as in PostgreSQL.
//!
//! One set of every key is a plain aggregation. Several sets aggregate the same input
//! once per set: the input becomes a WITH query computed once (a CTE scan per set),
//! each set's aggregate is padded to all the keys with NULLs, and the sets are
//! appended (UNION ALL). `GROUPING(a, b)` is a constant per set: one bit per argument,
//! set when the argument is not grouped in that set.

use super::*;

impl Binder<'_> {
    /// One GROUP BY key: an output position, a column (before an output name of the
    /// same spelling) or an expression.
    pub(super) fn bind_group_item(
        &mut self,
        g: &A::Expr,
        outputs: &[Expr],
        columns: &[OutputColumn],
        scope: &Scope,
    ) -> Result<Expr> {
        Ok(match g {
            A::Expr::Value(v) if matches!(v.value, A::Value::Number(..)) => {
                let A::Value::Number(n, _) = &v.value else {
                    unreachable!()
                };
                let i = position_column_named(n, outputs.len(), "GROUP BY")?;
                let e = outputs[i].clone();
                if e.any(&|x| matches!(x, Expr::Agg { .. })) {
                    return Err(Error::grouping(
                        "aggregate functions are not allowed in GROUP BY",
                    ));
                }
                e
            }
            A::Expr::Identifier(id) => {
                let name = ident_name(id);
                match self.resolve_column(scope, None, &name) {
                    Ok(e) => e,
                    Err(err) => match output_name_match(columns, &name) {
                        Some(Ok(i)) => outputs[i].clone(),
                        _ => return Err(err),
                    },
                }
            }
            e => {
                self.agg_allowed = false;
                self.bind_expr(e, scope)?
            }
        })
    }

    /// The distinct keys of a GROUP BY list and its grouping sets (indexes into them).
    pub(super) fn group_by_sets(
        &mut self,
        items: &[&A::Expr],
        outputs: &[Expr],
        columns: &[OutputColumn],
        scope: &Scope,
    ) -> Result<(Vec<Expr>, Vec<Vec<usize>>)> {
        let mut keys: Vec<Expr> = Vec::new();
        let mut sets: Vec<Vec<usize>> = vec![Vec::new()];
        for item in items {
            let item_sets = self.expand_item(item, outputs, columns, scope, &mut keys)?;
            sets = cross(&sets, &item_sets);
            if sets.len() > GROUPING_SETS_MAX {
                return Err(Error::new(
                    "54001",
                    "too many grouping sets present (maximum 4096)",
                ));
            }
        }
        Ok((keys, sets))
    }

    fn key_index(&mut self, e: Expr, keys: &mut Vec<Expr>) -> usize {
        match keys.iter().position(|k| *k == e) {
            Some(i) => i,
            None => {
                keys.push(e);
                keys.len() - 1
            }
        }
    }

    /// The grouping sets one GROUP BY element stands for.
    fn expand_item(
        &mut self,
        item: &A::Expr,
        outputs: &[Expr],
        columns: &[OutputColumn],
        scope: &Scope,
        keys: &mut Vec<Expr>,
    ) -> Result<Vec<Vec<usize>>> {
        // Inside GROUPING SETS, sqlparser reads ROLLUP (…) and CUBE (…) as calls.
        if let A::Expr::Function(f) = item
            && f.over.is_none()
            && let A::FunctionArguments::List(list) = &f.args
        {
            let name = object_name(&f.name)?;
            if name == "rollup" || name == "cube" {
                let elements: Vec<Vec<A::Expr>> = list
                    .args
                    .iter()
                    .filter_map(|a| match a {
                        A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(e)) => Some(match e {
                            A::Expr::Tuple(t) => t.clone(),
                            A::Expr::Nested(n) => vec![(**n).clone()],
                            other => vec![other.clone()],
                        }),
                        _ => None,
                    })
                    .collect();
                let as_expr = if name == "rollup" {
                    A::Expr::Rollup(elements)
                } else {
                    A::Expr::Cube(elements)
                };
                return self.expand_item(&as_expr, outputs, columns, scope, keys);
            }
        }
        match item {
            A::Expr::Rollup(elements) | A::Expr::Cube(elements) => {
                let mut parts: Vec<Vec<usize>> = Vec::with_capacity(elements.len());
                for el in elements {
                    let mut part = Vec::new();
                    for e in el {
                        let bound = self.bind_group_item(e, outputs, columns, scope)?;
                        part.push(self.key_index(bound, keys));
                    }
                    parts.push(part);
                }
                if matches!(item, A::Expr::Rollup(_)) {
                    // (a, b, c), (a, b), (a), ()
                    Ok((0..=parts.len())
                        .rev()
                        .map(|n| parts[..n].concat())
                        .collect())
                } else {
                    // Every subset, the full one first, as PostgreSQL lists them.
                    let n = parts.len();
                    let mut out = Vec::with_capacity(1 << n);
                    for mask in (0..(1u32 << n)).rev() {
                        let mut set = Vec::new();
                        for (i, p) in parts.iter().enumerate() {
                            if mask & (1 << (n - 1 - i)) != 0 {
                                set.extend(p);
                            }
                        }
                        out.push(set);
                    }
                    Ok(out)
                }
            }
            A::Expr::GroupingSets(list) => {
                let mut out = Vec::new();
                for set in list {
                    // One element: its own sets crossed with the others of its list.
                    let mut acc: Vec<Vec<usize>> = vec![Vec::new()];
                    for e in set {
                        let sub = self.expand_item(e, outputs, columns, scope, keys)?;
                        acc = cross(&acc, &sub);
                    }
                    out.extend(acc);
                }
                Ok(out)
            }
            A::Expr::Tuple(list) => {
                let mut set = Vec::new();
                for e in list {
                    let bound = self.bind_group_item(e, outputs, columns, scope)?;
                    set.push(self.key_index(bound, keys));
                }
                Ok(vec![set])
            }
            e => {
                let bound = self.bind_group_item(e, outputs, columns, scope)?;
                Ok(vec![vec![self.key_index(bound, keys)]])
            }
        }
    }

    /// The aggregation of `input` by `keys` in grouping `sets`: its output is relation
    /// `rel` with the keys, then one column per aggregate call of `aggs` (GROUPING()
    /// calls included).
    pub(super) fn grouped_plan(
        &mut self,
        input: LogicalPlan,
        keys: Vec<Expr>,
        sets: Vec<Vec<usize>>,
        aggs: Vec<AggCall>,
        rel: RelId,
    ) -> Result<LogicalPlan> {
        // GROUPING()'s arguments must be keys.
        let mut grouping_args: Vec<Option<Vec<usize>>> = Vec::with_capacity(aggs.len());
        for a in &aggs {
            if a.func == AggFunc::Grouping {
                let mut idx = Vec::with_capacity(a.extra.len());
                for e in &a.extra {
                    match keys.iter().position(|k| k == e) {
                        Some(i) => idx.push(i),
                        None => {
                            return Err(Error::grouping(
                                "arguments to GROUPING must be grouping expressions of the associated query level",
                            ));
                        }
                    }
                }
                grouping_args.push(Some(idx));
            } else {
                grouping_args.push(None);
            }
        }
        let full: Vec<usize> = (0..keys.len()).collect();
        let plain = sets.len() == 1 && sets[0] == full;
        let has_grouping = grouping_args.iter().any(Option::is_some);
        if plain && !has_grouping {
            return Ok(LogicalPlan::Aggregate {
                input: Box::new(input),
                rel,
                group_by: keys,
                aggs,
            });
        }
        let real: Vec<AggCall> = aggs
            .iter()
            .filter(|a| a.func != AggFunc::Grouping)
            .cloned()
            .collect();
        // Where each call of `aggs` is among the real aggregates.
        let mut real_index = Vec::with_capacity(aggs.len());
        let mut next = 0;
        for g in &grouping_args {
            real_index.push(if g.is_none() {
                next += 1;
                Some(next - 1)
            } else {
                None
            });
        }
        let out_types: Vec<SqlType> = keys
            .iter()
            .map(|k| k.ty())
            .chain(aggs.iter().map(|a| a.ty))
            .collect();
        // One set's aggregate, over `source` whose columns `remap` renames.
        let branch = |me: &mut Self,
                      source: LogicalPlan,
                      set: &[usize],
                      remap: &dyn Fn(&mut Expr),
                      out_rel: RelId|
         -> LogicalPlan {
            let arel = me.new_rel();
            let group_by: Vec<Expr> = set
                .iter()
                .map(|&k| {
                    let mut e = keys[k].clone();
                    remap(&mut e);
                    e
                })
                .collect();
            let calls: Vec<AggCall> = real
                .iter()
                .map(|a| {
                    let mut a = a.clone();
                    a.exprs_mut(&mut |x| remap(x));
                    a
                })
                .collect();
            let mut exprs = Vec::with_capacity(out_types.len());
            for (k, key) in keys.iter().enumerate() {
                exprs.push(match set.iter().position(|&s| s == k) {
                    Some(p) => Expr::ColumnRef {
                        id: ColumnId::new(arel, p as u32),
                        ty: key.ty(),
                        name: String::new(),
                    },
                    None => Expr::literal(Value::Null, key.ty()),
                });
            }
            for (i, a) in aggs.iter().enumerate() {
                exprs.push(match (&grouping_args[i], real_index[i]) {
                    (Some(args), _) => {
                        let mut bits = 0i32;
                        for (pos, k) in args.iter().enumerate() {
                            if !set.contains(k) {
                                bits |= 1 << (args.len() - 1 - pos);
                            }
                        }
                        Expr::literal(Value::Int4(bits), INT4)
                    }
                    (None, Some(r)) => Expr::ColumnRef {
                        id: ColumnId::new(arel, (set.len() + r) as u32),
                        ty: a.ty,
                        name: String::new(),
                    },
                    (None, None) => Expr::literal(Value::Null, a.ty),
                });
            }
            LogicalPlan::Project {
                input: Box::new(LogicalPlan::Aggregate {
                    input: Box::new(source),
                    rel: arel,
                    group_by,
                    aggs: calls,
                }),
                rel: out_rel,
                exprs,
            }
        };
        if plain {
            // One set of every key, with GROUPING() calls (always 0).
            let keep = |_: &mut Expr| {};
            return Ok(branch(self, input, &sets[0], &keep, rel));
        }
        if !input.free_rels().is_empty() {
            return Err(Error::feature_not_supported(
                "grouping sets over a query that reads an outer query",
            ));
        }
        let cte = self.new_rel();
        let input_cols = input.output();
        let types: Vec<SqlType> = input_cols.iter().map(|c| c.ty).collect();
        let mut branches = Vec::with_capacity(sets.len());
        for (i, set) in sets.iter().enumerate() {
            let srel = self.new_rel();
            let map: std::collections::HashMap<ColumnId, ColumnId> = input_cols
                .iter()
                .enumerate()
                .map(|(j, c)| (c.id, ColumnId::new(srel, j as u32)))
                .collect();
            let remap = |e: &mut Expr| remap_refs(e, &map);
            let scan = LogicalPlan::CteScan {
                rel: srel,
                id: cte,
                name: "*grouping sets*".into(),
                types: types.clone(),
            };
            let out_rel = if sets.len() == 1 { rel } else { self.new_rel() };
            let _ = i;
            branches.push(branch(self, scan, set, &remap, out_rel));
        }
        let mut plan = branches.remove(0);
        let count = branches.len();
        for (i, b) in branches.into_iter().enumerate() {
            plan = LogicalPlan::SetOp {
                kind: SetOpKind::Union,
                all: true,
                left: Box::new(plan),
                right: Box::new(b),
                rel: if i + 1 == count { rel } else { self.new_rel() },
                types: out_types.clone(),
            };
        }
        Ok(LogicalPlan::With {
            ctes: vec![CteDef {
                id: cte,
                name: "*grouping sets*".into(),
                plan: input,
            }],
            input: Box::new(plan),
        })
    }
}

/// Grouping sets at most (PostgreSQL's limit).
const GROUPING_SETS_MAX: usize = 4096;

/// Every concatenation of a set of `a` with a set of `b`.
fn cross(a: &[Vec<usize>], b: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            let mut s = x.clone();
            for k in y {
                if !s.contains(k) {
                    s.push(*k);
                }
            }
            out.push(s);
        }
    }
    out
}

/// Renames column references (inside subqueries too) by `map`.
fn remap_refs(e: &mut Expr, map: &std::collections::HashMap<ColumnId, ColumnId>) {
    e.column_refs_mut(&mut |c| {
        if let Expr::ColumnRef { id, .. } = c
            && let Some(to) = map.get(id)
        {
            *id = *to;
        }
    });
}
