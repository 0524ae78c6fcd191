//! Subqueries in expressions (scalar, EXISTS, IN, ANY/SOME/ALL) and row comparisons.
//!
//! A subquery is bound as its own query level that sees the enclosing scopes (its
//! correlated columns resolve there). The result is an [`Expr::Subquery`] holding the
//! subquery's logical plan; the optimizer turns the ones it can into joins
//! (`rules::decorrelate`), and the rest run as subplans.
//!
//! `x IN (subquery)` is `x = ANY (subquery)` and `x NOT IN (…)` its negation, as in
//! PostgreSQL; each comparison is typed like a binary operator between `x` and the
//! subquery's column. A row `(a, b) op (c, d)` expands to column comparisons: `=` is
//! their AND, `<>` their OR, and `<`, `<=`, `>`, `>=` compare left to right
//! (`a < c OR (a = c AND b < d)`), which gives PostgreSQL's NULL behaviour: the first
//! pair that is unequal or NULL decides.

use super::*;

impl Binder<'_> {
    /// Binds a query nested in an expression: its own level, seeing `scope` and the
    /// scopes around it.
    pub(super) fn bind_nested_query(
        &mut self,
        q: &A::Query,
        scope: &Scope,
    ) -> Result<(LogicalPlan, Vec<OutputColumn>)> {
        self.outer_scopes.push(scope.clone());
        let saved = self.enter_query_level();
        let bound = self.bind_query(q);
        self.leave_query_level(saved);
        self.outer_scopes.pop();
        bound
    }

    /// `(subquery)` as a value.
    pub(super) fn bind_scalar_subquery(&mut self, q: &A::Query, scope: &Scope) -> Result<Expr> {
        let (plan, columns) = self.bind_nested_query(q, scope)?;
        if columns.len() != 1 {
            return Err(Error::syntax("subquery must return only one column"));
        }
        Ok(Expr::Subquery(Box::new(Subquery {
            kind: SubqueryKind::Scalar,
            ty: columns[0].ty,
            plan,
        })))
    }

    /// `ARRAY(subquery)`: a subquery whose one column's values become an array.
    pub(super) fn bind_array_subquery(&mut self, q: &A::Query, scope: &Scope) -> Result<Expr> {
        let (plan, columns) = self.bind_nested_query(q, scope)?;
        if columns.len() != 1 {
            return Err(Error::syntax("subquery must return only one column"));
        }
        let elem = columns[0].ty;
        if elem.ty.is_array() {
            return Err(Error::feature_not_supported("ARRAY(subquery) over arrays"));
        }
        let elem_ty = if elem.ty == DataType::Unknown {
            DataType::Text
        } else {
            elem.ty
        };
        let Some(ty) = DataType::array_of(elem_ty) else {
            return Err(Error::feature_not_supported(format!(
                "arrays of type {}",
                elem.display_name()
            )));
        };
        Ok(Expr::Subquery(Box::new(Subquery {
            kind: SubqueryKind::Array,
            ty: SqlType::with_typmod(ty, elem.typmod),
            plan,
        })))
    }

    pub(super) fn bind_exists(
        &mut self,
        q: &A::Query,
        negated: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let (plan, _) = self.bind_nested_query(q, scope)?;
        let e = Expr::Subquery(Box::new(Subquery {
            kind: SubqueryKind::Exists,
            ty: BOOL,
            plan,
        }));
        Ok(if negated { Expr::Not(Box::new(e)) } else { e })
    }

    /// `left op ANY (q)` (`all`: `op ALL`); `left` may be a row.
    pub(super) fn bind_quantified(
        &mut self,
        left: &A::Expr,
        op: BinaryOp,
        q: &A::Query,
        all: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let quantifier = if all {
            Quantifier::All
        } else {
            Quantifier::Any
        };
        self.bind_subquery_comparison(left, op, q, quantifier, scope)
    }

    /// `(a, b, …) op (q)`: a row compared with a subquery's single row.
    pub(super) fn bind_row_subquery(
        &mut self,
        left: &A::Expr,
        op: &A::BinaryOperator,
        q: &A::Query,
        scope: &Scope,
    ) -> Result<Expr> {
        let op = comparison_op(op)?;
        self.bind_subquery_comparison(left, op, q, Quantifier::Row, scope)
    }

    fn bind_subquery_comparison(
        &mut self,
        left: &A::Expr,
        op: BinaryOp,
        q: &A::Query,
        quantifier: Quantifier,
        scope: &Scope,
    ) -> Result<Expr> {
        let lefts = match strip_nested(left) {
            A::Expr::Tuple(items) => items
                .iter()
                .map(|i| self.bind_expr(i, scope))
                .collect::<Result<Vec<_>>>()?,
            other => vec![self.bind_expr(other, scope)?],
        };
        let (plan, columns) = self.bind_nested_query(q, scope)?;
        if columns.len() > lefts.len() {
            return Err(Error::syntax("subquery has too many columns"));
        }
        if columns.len() < lefts.len() {
            return Err(Error::syntax("subquery has too few columns"));
        }
        if lefts.len() > 1
            && quantifier != Quantifier::Row
            && !matches!(op, BinaryOp::Eq | BinaryOp::NotEq)
        {
            return Err(Error::feature_not_supported(
                "row comparisons other than = and <> with a subquery",
            ));
        }
        let refs = output_refs(&plan, &columns);
        let mut left = Vec::with_capacity(lefts.len());
        let mut right = Vec::with_capacity(lefts.len());
        for (l, r) in lefts.into_iter().zip(refs) {
            // Typed as the binary operator would be.
            let (l, r) = self.unify_comparison(l, r, op)?;
            left.push(l);
            right.push(r);
        }
        let kind = match quantifier {
            Quantifier::Any => SubqueryKind::Any { left, right, op },
            Quantifier::All => SubqueryKind::All { left, right, op },
            Quantifier::Row => SubqueryKind::Row { left, right, op },
        };
        Ok(Expr::Subquery(Box::new(Subquery {
            kind,
            ty: BOOL,
            plan,
        })))
    }

    /// `(a, b, …) op (c, d, …)`.
    pub(super) fn bind_row_comparison(
        &mut self,
        left: &[A::Expr],
        op: &A::BinaryOperator,
        right: &[A::Expr],
        scope: &Scope,
    ) -> Result<Expr> {
        if left.len() != right.len() {
            return Err(Error::syntax(
                "unequal number of entries in row expressions",
            ));
        }
        let op = match op {
            A::BinaryOperator::Eq => BinaryOp::Eq,
            A::BinaryOperator::NotEq => BinaryOp::NotEq,
            A::BinaryOperator::Lt => BinaryOp::Lt,
            A::BinaryOperator::LtEq => BinaryOp::LtEq,
            A::BinaryOperator::Gt => BinaryOp::Gt,
            A::BinaryOperator::GtEq => BinaryOp::GtEq,
            other => {
                return Err(Error::feature_not_supported(format!(
                    "operator {other} on rows"
                )));
            }
        };
        let mut pairs = Vec::with_capacity(left.len());
        for (l, r) in left.iter().zip(right) {
            let l = self.bind_expr(l, scope)?;
            let r = self.bind_expr(r, scope)?;
            pairs.push((l, r));
        }
        let compare = |b: &mut Self, op: BinaryOp, l: &Expr, r: &Expr| {
            b.bind_binary(op, l.clone(), r.clone())
        };
        match op {
            BinaryOp::Eq | BinaryOp::NotEq => {
                let mut list = Vec::with_capacity(pairs.len());
                for (l, r) in &pairs {
                    list.push(compare(self, op, l, r)?);
                }
                Ok(match (op, list.len()) {
                    (_, 1) => list.remove(0),
                    (BinaryOp::Eq, _) => Expr::And(list),
                    _ => Expr::Or(list),
                })
            }
            _ => {
                // From the last pair backwards: r_k = a_k op b_k (the last pair keeps
                // `<=`/`>=`, the others are strict) OR (a_k = b_k AND r_{k+1}).
                let strict = match op {
                    BinaryOp::LtEq => BinaryOp::Lt,
                    BinaryOp::GtEq => BinaryOp::Gt,
                    other => other,
                };
                let mut acc: Option<Expr> = None;
                for (k, (l, r)) in pairs.iter().enumerate().rev() {
                    let this = if k + 1 == pairs.len() { op } else { strict };
                    let cmp = compare(self, this, l, r)?;
                    acc = Some(match acc {
                        None => cmp,
                        Some(rest) => {
                            let eq = compare(self, BinaryOp::Eq, l, r)?;
                            Expr::Or(vec![cmp, Expr::And(vec![eq, rest])])
                        }
                    });
                }
                acc.ok_or_else(|| Error::syntax("empty row comparison"))
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quantifier {
    Any,
    All,
    /// No quantifier: the subquery is one row.
    Row,
}

/// The comparison a quantified operator (`= ANY`, `< ALL` …) uses.
pub(super) fn comparison_op(op: &A::BinaryOperator) -> Result<BinaryOp> {
    Ok(match op {
        A::BinaryOperator::Eq => BinaryOp::Eq,
        A::BinaryOperator::NotEq => BinaryOp::NotEq,
        A::BinaryOperator::Lt => BinaryOp::Lt,
        A::BinaryOperator::LtEq => BinaryOp::LtEq,
        A::BinaryOperator::Gt => BinaryOp::Gt,
        A::BinaryOperator::GtEq => BinaryOp::GtEq,
        other => {
            return Err(Error::feature_not_supported(format!(
                "operator {other} with ANY/ALL"
            )));
        }
    })
}
