//! Expressions: names, literals, operators (resolved by PostgreSQL's category rules),
//! CASE, LIKE, IN lists, and the error positions PostgreSQL reports for them.

use super::*;
use crate::sql::expr::BitOp;

pub(super) fn number_literal(n: &str) -> Result<Expr> {
    if n.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        && let Ok(v) = n.parse::<i64>()
    {
        if let Ok(v32) = i32::try_from(v) {
            return Ok(Expr::literal(Value::Int4(v32), INT4));
        }
        return Ok(Expr::literal(Value::Int8(v), INT8));
    }
    match Numeric::parse(n) {
        Ok(v) => Ok(Expr::literal(Value::Numeric(v), NUMERIC)),
        // Beyond kiln's 38 digits: keep the text; a cast to a float still reads it
        // exactly, and using it as NUMERIC raises the overflow at run time.
        Err(e) if e.code == "22003" => Ok(Expr::Cast {
            expr: Box::new(Expr::literal(Value::Text(n.to_string()), UNKNOWN)),
            to: NUMERIC,
            explicit: true,
        }),
        Err(e) => Err(e),
    }
}

pub(super) fn not_unique(message: String) -> Error {
    Error::new("42725", message).with_hint(
        "Could not choose a best candidate function. You might need to add explicit type casts.",
    )
}

/// PostgreSQL's 42883 for a binary operator with no candidate for these operand types.
pub(super) fn no_operator(left: DataType, op: &str, right: DataType) -> Error {
    Error::undefined_function(format!(
        "operator does not exist: {} {op} {}",
        left.name(),
        right.name()
    ))
}

/// PostgreSQL's 42725 for an operator whose operand types leave several candidates.
pub(super) fn operator_not_unique(signature: &str) -> Error {
    Error::new("42725", format!("operator is not unique: {signature}")).with_hint(
        "Could not choose a best candidate operator. You might need to add explicit type casts.",
    )
}

/// The type an unknown literal takes opposite a typed operand of an arithmetic operator,
/// as PostgreSQL's operator resolution decides it: the other operand's type when
/// `T op T` exists (`date - date`, `timestamp - timestamp`), else the one candidate
/// (`timestamp + interval`); `None` when several candidates remain (`date + integer`,
/// `date + interval`, `date + time`: "operator is not unique").
pub(super) fn unknown_operand_type(op: BinaryOp, other: DataType) -> Option<DataType> {
    use DataType as D;
    Some(match (other, op) {
        (D::Date | D::Timestamp | D::Timestamptz, BinaryOp::Sub) => other,
        (D::Date, BinaryOp::Add) => return None,
        (D::Time, _) | (D::TimeTz, BinaryOp::Sub) => D::Interval,
        (D::TimeTz, _) => return None,
        (D::Timestamp | D::Timestamptz, _) => D::Interval,
        (t, _) => t,
    })
}

/// PostgreSQL's UNION/CASE type resolution for a set of expressions.
/// Whether an expression reads a column (or an aggregate of one): PostgreSQL's
/// contain_vars_of_level(expr, 0).
impl Binder<'_> {
    /// Whether `x BETWEEN … low` was written `BETWEEN SYMMETRIC` (the word is read from
    /// the text: see `sql::parse::between_modifiers`).
    fn between_symmetric(&self, x: &A::Expr, low: &A::Expr) -> bool {
        let (Some(from), Some(to)) = (
            crate::sql::parse::byte_offset(self.text, x.span().end),
            crate::sql::parse::byte_offset(self.text, low.span().start),
        ) else {
            return false;
        };
        crate::sql::parse::between_modifiers(self.text)
            .into_iter()
            .any(|(s, _, symmetric)| symmetric && s >= from && s < to)
    }
}

/// The typmod range of `INTERVAL 'x' <fields>` (None without a qualifier).
fn interval_qualifier(iv: &A::Interval) -> Result<Option<i32>> {
    use crate::types::datetime::interval_range as R;
    let bit = |f: &A::DateTimeField| -> Result<i32> {
        Ok(match f {
            A::DateTimeField::Year => R::YEAR,
            A::DateTimeField::Month => R::MONTH,
            A::DateTimeField::Day => R::DAY,
            A::DateTimeField::Hour => R::HOUR,
            A::DateTimeField::Minute => R::MINUTE,
            A::DateTimeField::Second => R::SECOND,
            other => {
                return Err(Error::syntax(format!(
                    "syntax error at or near \"{other}\""
                )));
            }
        })
    };
    let Some(lead) = &iv.leading_field else {
        return Ok(None);
    };
    let first = bit(lead)?;
    let range = match &iv.last_field {
        None => first,
        Some(last) => {
            let last = bit(last)?;
            // Every field from the first to the last (YEAR TO MONTH, DAY TO SECOND …).
            let order = [R::YEAR, R::MONTH, R::DAY, R::HOUR, R::MINUTE, R::SECOND];
            let a = order.iter().position(|&b| b == first).unwrap_or(0);
            let b = order
                .iter()
                .position(|&b| b == last)
                .unwrap_or(order.len() - 1);
            if b <= a {
                return Err(Error::syntax("syntax error in interval qualifier"));
            }
            order[a..=b].iter().fold(0, |m, b| m | b)
        }
    };
    Ok(Some(range))
}

pub(super) fn mentions_columns(e: &Expr) -> bool {
    let mut found = matches!(
        e,
        Expr::Column { .. } | Expr::ColumnRef { .. } | Expr::Agg { .. }
    );
    e.children(&mut |c| found |= mentions_columns(c));
    found
}

impl Binder<'_> {
    pub(super) fn require_bool(&mut self, e: Expr, clause: &str) -> Result<Expr> {
        match e.ty().ty {
            DataType::Bool => Ok(e),
            DataType::Unknown => self.coerce(e, BOOL),
            other => Err(Error::datatype_mismatch(format!(
                "argument of {clause} must be type boolean, not type {}",
                other.name()
            ))),
        }
    }

    pub(super) fn bind_function_arg(
        &mut self,
        arg: &A::FunctionArg,
        scope: &Scope,
    ) -> Result<Expr> {
        match arg {
            A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(e)) => self.bind_expr(e, scope),
            _ => Err(Error::feature_not_supported("this function argument")),
        }
    }

    pub(super) fn bind_expr(&mut self, e: &A::Expr, scope: &Scope) -> Result<Expr> {
        if self.depth >= crate::sql::parse::EXPRESSION_DEPTH_MAX {
            return Err(Error::new("54001", "stack depth limit exceeded"));
        }
        self.depth += 1;
        let result = self.bind_expr_inner(e, scope);
        self.depth -= 1;
        result.map_err(|err| self.locate(err, e))
    }

    /// Gives an error raised while binding `e` the cursor position PostgreSQL reports:
    /// the innermost expression that failed (its start), except that a bad literal is
    /// pointed at itself and a missing operator at the operator.
    pub(super) fn locate(&self, err: Error, e: &A::Expr) -> Error {
        if err.position.is_some() || matches!(err.code, "54001" | "XX000") {
            return err;
        }
        let literal_error = matches!(
            err.code,
            "22P02" | "22007" | "22008" | "22003" | "22001" | "22021" | "22015"
        );
        if literal_error && let Some(bad) = err.message.split('"').nth(1) {
            let mut found = None;
            for child in direct_operands(e) {
                if found.is_none()
                    && let A::Expr::Value(v) = strip_nested(child)
                    && literal_text(&v.value) == Some(bad)
                {
                    found = Some(v.span.start);
                }
            }
            if let Some(at) = found {
                return self.with_location(err, at);
            }
        }
        let left_operand = match e {
            A::Expr::BinaryOp { left, .. } => Some(left),
            A::Expr::Like { expr, .. } | A::Expr::ILike { expr, .. } => Some(expr),
            _ => None,
        };
        if (err.code == "42883" && err.message.starts_with("operator does not exist")
            || err.code == "42725" && err.message.starts_with("operator is not unique"))
            && let Some(left) = left_operand
            && let Some(at) = self.operator_position(left.span().end)
        {
            return err.with_position(at);
        }
        // A prefix operator's span starts at its operand; PostgreSQL points at the
        // operator, the first non-blank character before it.
        if matches!(err.code, "42883" | "42725")
            && let A::Expr::UnaryOp { expr, .. } = e
            && let Some(operand) = char_position(self.text, expr.span().start)
        {
            let before: Vec<char> = self
                .text
                .chars()
                .take(operand.saturating_sub(1) as usize)
                .collect();
            let blanks = before
                .iter()
                .rev()
                .take_while(|c| c.is_whitespace())
                .count();
            return err.with_position(operand.saturating_sub(blanks as u32 + 1).max(1));
        }
        self.with_location(err, e.span().start)
    }

    /// The character position of the first operator character after `after` (the end
    /// of a binary operator's left operand).
    pub(super) fn operator_position(&self, after: sqlparser::tokenizer::Location) -> Option<u32> {
        let start = char_position(self.text, after)? as usize;
        // `start` is 1-based and points at the operand's last character's successor.
        let skip = self
            .text
            .chars()
            .skip(start.saturating_sub(1))
            .take_while(|c| c.is_whitespace() || *c == ')' || *c == ']')
            .count();
        Some((start + skip) as u32)
    }

    pub(super) fn with_location(&self, err: Error, at: sqlparser::tokenizer::Location) -> Error {
        match char_position(self.text, at) {
            Some(p) => err.with_position(p),
            None => err,
        }
    }

    pub(super) fn bind_expr_inner(&mut self, e: &A::Expr, scope: &Scope) -> Result<Expr> {
        match e {
            // CURRENT_SCHEMA without parentheses is the function (a key word).
            A::Expr::Identifier(id)
                if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("current_schema") =>
            {
                Ok(Expr::Func {
                    func: Func::CurrentSchema,
                    args: Vec::new(),
                    ty: SqlType::new(DataType::Name),
                })
            }
            A::Expr::Identifier(id) => {
                let name = ident_name(id);
                self.resolve_column(scope, None, &name)
                    .map_err(|err| self.with_span(err, id.span))
            }
            A::Expr::CompoundIdentifier(ids) => {
                let names: Vec<String> = ids.iter().map(ident_name).collect();
                let (s, q, n) = match names.as_slice() {
                    [q, n] => (None, q.clone(), n.clone()),
                    [s, q, n] => (Some(s.clone()), q.clone(), n.clone()),
                    _ => return Err(Error::feature_not_supported("this column reference")),
                };
                let span = ids.first().map(|i| i.span);
                self.resolve_qualified_column(scope, s.as_deref(), Some(&q), &n)
                    .map_err(|err| match span {
                        Some(s) => self.with_span(err, s),
                        None => err,
                    })
            }
            A::Expr::Value(v) => self.bind_value(&v.value),
            A::Expr::Nested(inner) => self.bind_expr(inner, scope),
            A::Expr::UnaryOp { op, expr } => self.bind_unary(*op, expr, scope),
            A::Expr::BinaryOp { left, op, right }
                if row_items(left).is_some() || row_items(right).is_some() =>
            {
                match (row_items(left), strip_nested(right)) {
                    (Some(l), _) if row_items(right).is_some() => {
                        let r = row_items(right).unwrap_or_default();
                        self.bind_row_comparison(&l, op, &r, scope)
                    }
                    (Some(l), A::Expr::Subquery(q)) => {
                        self.bind_row_subquery(&A::Expr::Tuple(l), op, q, scope)
                    }
                    _ => Err(Error::feature_not_supported(
                        "comparing a row with a value or subquery",
                    )),
                }
            }
            A::Expr::BinaryOp { .. } => self.bind_binary_chain(e, scope),
            // A row IS NULL when every field is; IS NOT NULL when none is.
            A::Expr::IsNull(x) | A::Expr::IsNotNull(x) if row_items(x).is_some() => {
                let negated = matches!(e, A::Expr::IsNotNull(_));
                let mut tests = Vec::new();
                for item in row_items(x).unwrap_or_default() {
                    tests.push(Expr::IsNull {
                        expr: Box::new(self.bind_expr(&item, scope)?),
                        negated,
                    });
                }
                Ok(Expr::and_all(tests).unwrap_or_else(|| Expr::literal_bool(true)))
            }
            A::Expr::IsNull(x) => Ok(Expr::IsNull {
                expr: Box::new(self.bind_expr(x, scope)?),
                negated: false,
            }),
            A::Expr::IsNotNull(x) => Ok(Expr::IsNull {
                expr: Box::new(self.bind_expr(x, scope)?),
                negated: true,
            }),
            A::Expr::IsTrue(x) => self.bind_is_bool(x, true, false, scope),
            A::Expr::IsNotTrue(x) => self.bind_is_bool(x, true, true, scope),
            A::Expr::IsFalse(x) => self.bind_is_bool(x, false, false, scope),
            A::Expr::IsNotFalse(x) => self.bind_is_bool(x, false, true, scope),
            A::Expr::IsUnknown(x) => {
                let b = self.bind_expr(x, scope)?;
                let b = self.require_bool(b, "IS UNKNOWN")?;
                Ok(Expr::IsNull {
                    expr: Box::new(b),
                    negated: false,
                })
            }
            A::Expr::IsNotUnknown(x) => {
                let b = self.bind_expr(x, scope)?;
                let b = self.require_bool(b, "IS NOT UNKNOWN")?;
                Ok(Expr::IsNull {
                    expr: Box::new(b),
                    negated: true,
                })
            }
            A::Expr::IsDistinctFrom(l, r) | A::Expr::IsNotDistinctFrom(l, r) => {
                let negated = matches!(e, A::Expr::IsNotDistinctFrom(..));
                let l = self.bind_expr(l, scope)?;
                let r = self.bind_expr(r, scope)?;
                let (l, r) = self.unify_comparison(l, r, BinaryOp::Eq)?;
                Ok(Expr::IsDistinct {
                    left: Box::new(l),
                    right: Box::new(r),
                    negated,
                })
            }
            // A row IN (rows): each a row comparison, ORed (NOT IN: `<>`, ANDed).
            A::Expr::InList {
                expr,
                list,
                negated,
            } if row_items(expr).is_some() => {
                let x = row_items(expr).unwrap_or_default();
                let op = if *negated {
                    A::BinaryOperator::NotEq
                } else {
                    A::BinaryOperator::Eq
                };
                let mut parts = Vec::with_capacity(list.len());
                for item in list {
                    let Some(r) = row_items(item) else {
                        return Err(Error::feature_not_supported("comparing a row with a value"));
                    };
                    parts.push(self.bind_row_comparison(&x, &op, &r, scope)?);
                }
                Ok(match parts.len() {
                    1 => parts.remove(0),
                    _ if *negated => Expr::And(parts),
                    _ => Expr::Or(parts),
                })
            }
            A::Expr::InList {
                expr,
                list,
                negated,
            } => {
                let x = self.bind_expr(expr, scope)?;
                let mut items = Vec::with_capacity(list.len());
                for item in list {
                    items.push(self.bind_expr(item, scope)?);
                }
                self.bind_in_list(x, items, *negated)
            }
            A::Expr::Subquery(q) => self.bind_scalar_subquery(q, scope),
            A::Expr::Exists { subquery, negated } => self.bind_exists(subquery, *negated, scope),
            A::Expr::InSubquery {
                expr,
                subquery,
                negated,
            } => {
                let any = self.bind_quantified(expr, BinaryOp::Eq, subquery, false, scope)?;
                Ok(if *negated {
                    Expr::Not(Box::new(any))
                } else {
                    any
                })
            }
            A::Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let symmetric = self.between_symmetric(expr, low);
                let x = self.bind_expr(expr, scope)?;
                let lo = self.bind_expr(low, scope)?;
                let hi = self.bind_expr(high, scope)?;
                let (ge, le) = if *negated {
                    (BinaryOp::Lt, BinaryOp::Gt)
                } else {
                    (BinaryOp::GtEq, BinaryOp::LtEq)
                };
                let range = |b: &mut Self, lo: Expr, hi: Expr| -> Result<Expr> {
                    let a = b.bind_binary(ge, x.clone(), lo)?;
                    let c = b.bind_binary(le, x.clone(), hi)?;
                    Ok(if *negated {
                        Expr::Or(vec![a, c])
                    } else {
                        Expr::And(vec![a, c])
                    })
                };
                if !symmetric {
                    return range(self, lo, hi);
                }
                // BETWEEN SYMMETRIC: either order of the bounds.
                let one = range(self, lo.clone(), hi.clone())?;
                let two = range(self, hi, lo)?;
                Ok(if *negated {
                    Expr::And(vec![one, two])
                } else {
                    Expr::Or(vec![one, two])
                })
            }
            A::Expr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => self.bind_like_escape(
                expr,
                pattern,
                escape_char.as_deref(),
                *negated,
                false,
                scope,
            ),
            A::Expr::ILike {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => {
                self.bind_like_escape(expr, pattern, escape_char.as_deref(), *negated, true, scope)
            }
            A::Expr::Like { .. } | A::Expr::ILike { .. } => {
                Err(Error::feature_not_supported("LIKE ANY"))
            }
            A::Expr::Cast {
                kind,
                expr,
                data_type,
                format: None,
            } => {
                if matches!(kind, A::CastKind::TryCast | A::CastKind::SafeCast) {
                    return Err(Error::feature_not_supported("TRY_CAST"));
                }
                let to = self.resolve_type(data_type)?;
                if let A::Expr::Array(a) = expr.as_ref()
                    && a.named
                {
                    return self.bind_array_cast(&a.elem, to, scope);
                }
                let inner = self.bind_expr(expr, scope)?;
                self.explicit_cast(inner, to)
            }
            A::Expr::TypedString(ts) => {
                let to = self.resolve_type(&ts.data_type)?;
                let text = match &ts.value.value {
                    A::Value::SingleQuotedString(s) => s.clone(),
                    other => {
                        return Err(Error::syntax(format!(
                            "syntax error at or near \"{other}\""
                        )));
                    }
                };
                self.explicit_cast(Expr::literal(Value::Text(text), UNKNOWN), to)
            }
            A::Expr::Interval(iv) => {
                let to = match interval_qualifier(iv)? {
                    Some(range) => SqlType::with_typmod(
                        DataType::Interval,
                        crate::types::interval_qualified_typmod(
                            range,
                            iv.fractional_seconds_precision,
                        ),
                    ),
                    None => SqlType::new(DataType::Interval),
                };
                let inner = self.bind_expr(&iv.value, scope)?;
                self.explicit_cast(inner, to)
            }
            A::Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.bind_case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                scope,
            ),
            A::Expr::Function(f) => self.bind_function(f, scope),
            A::Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.bind_expr(expr, scope)?];
                args.push(match substring_from {
                    Some(f) => self.bind_expr(f, scope)?,
                    None => Expr::literal(Value::Int4(1), INT4),
                });
                if let Some(f) = substring_for {
                    args.push(self.bind_expr(f, scope)?);
                }
                self.bind_scalar_function("substring", args)
            }
            A::Expr::Extract { field, expr, .. } => {
                // PostgreSQL reads the field as an identifier, lower-cased, or as a
                // string constant (`extract('second' from …)`).
                let written = field.to_string();
                let unit = match written
                    .strip_prefix('\'')
                    .and_then(|w| w.strip_suffix('\''))
                {
                    Some(quoted) => quoted.replace("''", "'"),
                    None => written.to_lowercase(),
                };
                let unit = Expr::literal(Value::Text(unit), TEXT);
                let source = self.bind_expr(expr, scope)?;
                self.bind_datetime_function("extract", vec![unit, source])
            }
            A::Expr::AtTimeZone {
                timestamp,
                time_zone,
            } => {
                let ts = self.bind_expr(timestamp, scope)?;
                let zone = self.bind_expr(time_zone, scope)?;
                self.bind_datetime_function("timezone", vec![zone, ts])
            }
            A::Expr::Overlay {
                expr,
                overlay_what,
                overlay_from,
                overlay_for,
            } => {
                let mut args = vec![
                    self.bind_expr(expr, scope)?,
                    self.bind_expr(overlay_what, scope)?,
                    self.bind_expr(overlay_from, scope)?,
                ];
                if let Some(f) = overlay_for {
                    args.push(self.bind_expr(f, scope)?);
                }
                self.bind_scalar_function("overlay", args)
            }
            A::Expr::Position { expr, r#in } => {
                let needle = self.bind_expr(expr, scope)?;
                let hay = self.bind_expr(r#in, scope)?;
                self.bind_scalar_function("strpos", vec![hay, needle])
            }
            A::Expr::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return Err(Error::feature_not_supported("TRIM with a character list"));
                }
                let mut args = vec![self.bind_expr(expr, scope)?];
                if let Some(w) = trim_what {
                    args.push(self.bind_expr(w, scope)?);
                }
                let name = match trim_where {
                    Some(A::TrimWhereField::Leading) => "ltrim",
                    Some(A::TrimWhereField::Trailing) => "rtrim",
                    _ => "btrim",
                };
                self.bind_scalar_function(name, args)
            }
            A::Expr::Ceil { expr, field } | A::Expr::Floor { expr, field } => {
                if !matches!(
                    field,
                    A::CeilFloorKind::DateTimeField(A::DateTimeField::NoDateTime)
                ) {
                    return Err(Error::feature_not_supported("CEIL/FLOOR TO"));
                }
                let name = if matches!(e, A::Expr::Ceil { .. }) {
                    "ceil"
                } else {
                    "floor"
                };
                let arg = self.bind_expr(expr, scope)?;
                self.bind_scalar_function(name, vec![arg])
            }
            // kiln compares strings by their bytes: the C collation, which is also
            // what "default" is here.
            A::Expr::Collate { expr, collation } => {
                let name = collation.to_string().to_ascii_lowercase();
                let name = name.trim_start_matches("pg_catalog.").trim_matches('"');
                if !matches!(name, "default" | "c" | "posix" | "ucs_basic") {
                    return Err(Error::feature_not_supported(format!(
                        "collation {collation}"
                    )));
                }
                let bound = self.bind_expr(expr, scope)?;
                if !bound.ty().ty.is_string() {
                    return Err(Error::new(
                        "42804",
                        format!(
                            "collations are not supported by type {}",
                            bound.ty().display_name()
                        ),
                    ));
                }
                Ok(bound)
            }
            A::Expr::Array(a) if a.named => self.bind_array(&a.elem, scope),
            A::Expr::Array(_) => Err(Error::syntax("syntax error at or near \"[\"")),
            A::Expr::CompoundFieldAccess { root, access_chain } => {
                self.bind_subscripts(root, access_chain, scope)
            }
            A::Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            }
            | A::Expr::AllOp {
                left,
                compare_op,
                right,
            } => {
                let all = matches!(e, A::Expr::AllOp { .. });
                let op = comparison_op(compare_op)?;
                match strip_nested(right) {
                    A::Expr::Subquery(q) => self.bind_quantified(left, op, q, all, scope),
                    _ => self.bind_array_quantified(left, op, right, all, scope),
                }
            }
            A::Expr::SimilarTo {
                negated,
                expr,
                pattern,
                escape_char,
            } => {
                let e = self.bind_expr(expr, scope)?;
                let p = self.bind_expr(pattern, scope)?;
                let mut args = vec![e, p];
                if let Some(esc) = escape_char {
                    args.push(self.bind_expr(esc, scope)?);
                }
                let escape = args.len() == 3;
                let args = self.regexp_text_args("similar_to_escape", args, 2, 3)?;
                let matched = Expr::Func {
                    func: Func::Regexp(crate::sql::expr::RegexpFn::SimilarTo { escape }),
                    args,
                    ty: BOOL,
                };
                Ok(if *negated {
                    Expr::Not(Box::new(matched))
                } else {
                    matched
                })
            }
            A::Expr::Tuple(items) => self.bind_row(items, scope),
            other => Err(Error::feature_not_supported(format!("expression {other}"))),
        }
    }

    pub(super) fn with_span(&self, err: Error, span: sqlparser::tokenizer::Span) -> Error {
        if err.position.is_some() {
            return err;
        }
        self.with_location(err, span.start)
    }

    pub(super) fn bind_value(&mut self, v: &A::Value) -> Result<Expr> {
        Ok(match v {
            A::Value::Number(n, _) => number_literal(n)?,
            A::Value::SingleQuotedString(s)
            | A::Value::EscapedStringLiteral(s)
            | A::Value::DollarQuotedString(A::DollarQuotedString { value: s, .. })
            | A::Value::UnicodeStringLiteral(s) => Expr::literal(Value::Text(s.clone()), UNKNOWN),
            A::Value::Boolean(b) => Expr::literal(Value::Bool(*b), BOOL),
            A::Value::Null => Expr::literal(Value::Null, UNKNOWN),
            A::Value::Placeholder(p) => {
                let index: usize = p
                    .strip_prefix('$')
                    .and_then(|n| n.parse().ok())
                    .filter(|&n: &usize| (1..=PARAMS_MAX).contains(&n))
                    .ok_or_else(|| Error::syntax(format!("syntax error at or near \"{p}\"")))?;
                if self.params.len() < index {
                    self.params.resize(index, None);
                }
                let ty = self.params[index - 1].unwrap_or(UNKNOWN);
                Expr::Param {
                    index: index - 1,
                    ty,
                }
            }
            other => return Err(Error::feature_not_supported(format!("literal {other}"))),
        })
    }

    pub(super) fn bind_unary(
        &mut self,
        op: A::UnaryOperator,
        expr: &A::Expr,
        scope: &Scope,
    ) -> Result<Expr> {
        match op {
            A::UnaryOperator::Not => {
                let b = self.bind_expr(expr, scope)?;
                let b = self.require_bool(b, "NOT")?;
                Ok(Expr::Not(Box::new(b)))
            }
            A::UnaryOperator::Plus => self.bind_expr(expr, scope),
            A::UnaryOperator::Minus => {
                // Fold negative numeric literals so that -2147483648 is an integer.
                if let A::Expr::Value(v) = expr
                    && let A::Value::Number(n, _) = &v.value
                {
                    return number_literal(&format!("-{n}"));
                }
                let b = self.bind_expr(expr, scope)?;
                if b.ty().ty == DataType::Unknown {
                    return Err(Error::new("42725", "operator is not unique: - unknown").with_hint(
                        "Could not choose a best candidate operator. You might need to add explicit type casts.",
                    ));
                }
                let ty = b.ty();
                match ty.ty {
                    DataType::Int2
                    | DataType::Int4
                    | DataType::Int8
                    | DataType::Float4
                    | DataType::Float8
                    | DataType::Numeric
                    | DataType::Interval => Ok(Expr::Negate {
                        expr: Box::new(b),
                        ty: SqlType::new(ty.ty),
                    }),
                    other => Err(Error::undefined_function(format!(
                        "operator does not exist: - {}",
                        other.name()
                    ))),
                }
            }
            A::UnaryOperator::PGPrefixFactorial => {
                let b = self.bind_expr(expr, scope)?;
                self.bind_ts_not(b)
            }
            A::UnaryOperator::BitwiseNot => {
                let b = self.bind_expr(expr, scope)?;
                if matches!(
                    b.ty().ty,
                    DataType::Inet | DataType::Cidr | DataType::MacAddr | DataType::MacAddr8
                ) {
                    let ty = if b.ty().ty == DataType::Cidr {
                        SqlType::new(DataType::Inet)
                    } else {
                        b.ty()
                    };
                    let b = self.coerce(b, ty)?;
                    return Ok(Expr::Func {
                        func: Func::Net(crate::sql::expr::NetFn::Not),
                        args: vec![b],
                        ty,
                    });
                }
                let ty = match b.ty().ty {
                    t @ (DataType::Int2 | DataType::Int4 | DataType::Int8) => t,
                    DataType::Unknown => {
                        return Err(Error::new("42725", "operator is not unique: ~ unknown")
                            .with_hint(
                                "Could not choose a best candidate operator. You might need to add explicit type casts.",
                            ));
                    }
                    other => {
                        return Err(Error::undefined_function(format!(
                            "operator does not exist: ~ {}",
                            other.name()
                        )));
                    }
                };
                Ok(Expr::Func {
                    func: Func::Bitwise(BitOp::Not),
                    args: vec![b],
                    ty: SqlType::new(ty),
                })
            }
            other => Err(Error::feature_not_supported(format!("operator {other}"))),
        }
    }

    pub(super) fn bind_is_bool(
        &mut self,
        x: &A::Expr,
        value: bool,
        negated: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let b = self.bind_expr(x, scope)?;
        let b = self.require_bool(b, "IS TRUE")?;
        Ok(Expr::IsBool {
            expr: Box::new(b),
            value,
            negated,
        })
    }

    pub(super) fn bind_like(
        &mut self,
        expr: &A::Expr,
        pattern: &A::Expr,
        negated: bool,
        ci: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let x = self.bind_expr(expr, scope)?;
        let p = self.bind_expr(pattern, scope)?;
        let textual = |t: DataType| {
            matches!(
                t,
                DataType::Text
                    | DataType::Varchar
                    | DataType::Bpchar
                    | DataType::Unknown
                    | DataType::Name
            )
        };
        let (xt, pt) = (x.ty().ty, p.ty().ty);
        // bytea LIKE bytea (no ILIKE).
        if !ci && xt == DataType::Bytea && matches!(pt, DataType::Bytea | DataType::Unknown) {
            let p = self.coerce(p, SqlType::new(DataType::Bytea))?;
            return Ok(Expr::Like {
                expr: Box::new(x),
                pattern: Box::new(p),
                negated,
                case_insensitive: false,
            });
        }
        if !textual(xt) || !textual(pt) {
            let op = match (ci, negated) {
                (false, false) => "~~",
                (false, true) => "!~~",
                (true, false) => "~~*",
                (true, true) => "!~~*",
            };
            return Err(no_operator(xt, op, pt));
        }
        let x = self.text_operand(x)?;
        let p = self.text_operand(p)?;
        Ok(Expr::Like {
            expr: Box::new(x),
            pattern: Box::new(p),
            negated,
            case_insensitive: ci,
        })
    }

    /// `x [NOT] [I]LIKE p [ESCAPE e]`: with ESCAPE, the pattern goes through
    /// like_escape (PostgreSQL's rewrite to the backslash form) first.
    fn bind_like_escape(
        &mut self,
        expr: &A::Expr,
        pattern: &A::Expr,
        escape: Option<&A::Expr>,
        negated: bool,
        ci: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let like = self.bind_like(expr, pattern, negated, ci, scope)?;
        let Some(escape) = escape else {
            return Ok(like);
        };
        let Expr::Like {
            expr,
            pattern,
            negated,
            case_insensitive,
        } = like
        else {
            return Ok(like);
        };
        if pattern.ty().ty == DataType::Bytea {
            return Err(Error::feature_not_supported("bytea LIKE … ESCAPE"));
        }
        let e = self.bind_expr(escape, scope)?;
        let e = self.coerce(e, TEXT)?;
        let pattern = Expr::Func {
            func: Func::LikeEscape,
            args: vec![*pattern, e],
            ty: TEXT,
        };
        Ok(Expr::Like {
            expr,
            pattern: Box::new(pattern),
            negated,
            case_insensitive,
        })
    }

    /// A LIKE operand (already checked to be a string, name or unknown) as text.
    pub(super) fn text_operand(&mut self, e: Expr) -> Result<Expr> {
        match e.ty().ty {
            DataType::Bpchar | DataType::Unknown | DataType::Name => self.coerce(e, TEXT),
            _ => Ok(e),
        }
    }

    /// Binds a left-deep chain of binary operators (`a + b + c …`, `p OR q OR …`)
    /// iteratively: sqlparser builds such chains without depth limits, and recursing down
    /// the left spine would cost a stack frame per operator.
    pub(super) fn bind_binary_chain(&mut self, e: &A::Expr, scope: &Scope) -> Result<Expr> {
        let mut spine: Vec<(&A::Expr, &A::BinaryOperator, &A::Expr)> = Vec::new();
        let mut leftmost = e;
        while let A::Expr::BinaryOp { left, op, right } = leftmost {
            spine.push((leftmost, op, right));
            leftmost = left;
        }
        let mut acc = self.bind_expr(leftmost, scope)?;
        let mut acc_ast = leftmost;
        while let Some((node, op, right)) = spine.pop() {
            let mut r = self.bind_expr(right, scope)?;
            // Errors point where PostgreSQL points: a non-boolean AND/OR operand at
            // itself, anything else at this node of the chain.
            let name = match op {
                A::BinaryOperator::And => Some("AND"),
                A::BinaryOperator::Or => Some("OR"),
                _ => None,
            };
            if let Some(name) = name {
                let checked = self.require_bool(acc, name);
                acc = checked.map_err(|err| self.locate(err, acc_ast))?;
                let checked = self.require_bool(r, name);
                r = checked.map_err(|err| self.locate(err, right))?;
            }
            let bound = self.bind_binary_op(acc, op, r);
            acc = bound.map_err(|err| self.locate(err, node))?;
            acc_ast = node;
        }
        Ok(acc)
    }

    /// The network types' operators (`<< <<= >> >>= && & | + -`): None for the
    /// others (comparisons go the usual way, over the stored bytes).
    fn bind_net_operator(
        &mut self,
        op: &A::BinaryOperator,
        l: Expr,
        r: Expr,
    ) -> Result<Option<Expr>> {
        use crate::sql::expr::NetFn as N;
        use DataType as D;
        let sym = op.to_string();
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let is_inet = |t: D| matches!(t, D::Inet | D::Cidr | D::Unknown);
        let is_mac = |t: D| matches!(t, D::MacAddr | D::MacAddr8);
        let inet = SqlType::new(D::Inet);
        let call = |kind: N, args: Vec<Expr>, ty: SqlType| Expr::Func {
            func: Func::Net(kind),
            args,
            ty,
        };
        let no_op = || no_operator(lt, &sym, rt);
        Ok(Some(match sym.as_str() {
            "<<" | "<<=" | ">>" | ">>=" | "&&" => {
                if !is_inet(lt) || !is_inet(rt) {
                    return Err(no_op());
                }
                let l = self.coerce(l, inet)?;
                let r = self.coerce(r, inet)?;
                let (kind, args) = match sym.as_str() {
                    "<<" => (N::Within { or_equal: false }, vec![l, r]),
                    "<<=" => (N::Within { or_equal: true }, vec![l, r]),
                    ">>" => (N::Within { or_equal: false }, vec![r, l]),
                    ">>=" => (N::Within { or_equal: true }, vec![r, l]),
                    _ => (N::Overlaps, vec![l, r]),
                };
                call(kind, args, BOOL)
            }
            "&" | "|" => {
                let kind = if sym == "&" { N::And } else { N::Or };
                if is_mac(lt) || is_mac(rt) {
                    let t = if is_mac(lt) { lt } else { rt };
                    let l = self.coerce(l, SqlType::new(t))?;
                    let r = self.coerce(r, SqlType::new(t))?;
                    return Ok(Some(call(kind, vec![l, r], SqlType::new(t))));
                }
                if !is_inet(lt) || !is_inet(rt) {
                    return Err(no_op());
                }
                let l = self.coerce(l, inet)?;
                let r = self.coerce(r, inet)?;
                call(kind, vec![l, r], inet)
            }
            "+" => {
                let (net, n) = if is_inet(lt) && lt != D::Unknown {
                    (l, r)
                } else {
                    (r, l)
                };
                if !matches!(n.ty().ty, D::Int2 | D::Int4 | D::Int8 | D::Unknown) {
                    return Err(no_op());
                }
                let net = self.coerce(net, inet)?;
                let n = self.coerce(n, SqlType::new(D::Int8))?;
                call(N::Add, vec![net, n], inet)
            }
            "-" => {
                if !is_inet(lt) {
                    return Err(no_op());
                }
                let l = self.coerce(l, inet)?;
                if matches!(rt, D::Int2 | D::Int4 | D::Int8) {
                    let r = self.coerce(r, SqlType::new(D::Int8))?;
                    call(N::SubInt, vec![l, r], inet)
                } else if is_inet(rt) {
                    let r = self.coerce(r, inet)?;
                    call(N::Diff, vec![l, r], SqlType::new(D::Int8))
                } else {
                    return Err(no_op());
                }
            }
            _ => return Ok(None),
        }))
    }

    pub(super) fn bind_binary_op(
        &mut self,
        l: Expr,
        op: &A::BinaryOperator,
        r: Expr,
    ) -> Result<Expr> {
        let net = |t: DataType| {
            matches!(
                t,
                DataType::Inet | DataType::Cidr | DataType::MacAddr | DataType::MacAddr8
            )
        };
        if !matches!(
            op,
            A::BinaryOperator::Eq
                | A::BinaryOperator::NotEq
                | A::BinaryOperator::Lt
                | A::BinaryOperator::LtEq
                | A::BinaryOperator::Gt
                | A::BinaryOperator::GtEq
                | A::BinaryOperator::And
                | A::BinaryOperator::Or
                | A::BinaryOperator::Plus
                | A::BinaryOperator::Minus
                | A::BinaryOperator::Multiply
                | A::BinaryOperator::Divide
                | A::BinaryOperator::StringConcat
        ) && let Some(e) = self.bind_trigram_operator(&op.to_string(), &l, &r)?
        {
            return Ok(e);
        }
        let range = |t: DataType| matches!(t, DataType::Range(_));
        if (range(l.ty().ty) || range(r.ty().ty))
            && let Some(e) = self.bind_range_operator(op, l.clone(), r.clone())?
        {
            return Ok(e);
        }
        if (net(l.ty().ty) || net(r.ty().ty))
            && let Some(e) = self.bind_net_operator(op, l.clone(), r.clone())?
        {
            return Ok(e);
        }
        let json = |t: DataType| matches!(t, DataType::Json | DataType::Jsonb | DataType::JsonPath);
        let ts = |t: DataType| matches!(t, DataType::TsVector | DataType::TsQuery);
        if (ts(l.ty().ty)
            || ts(r.ty().ty)
            || (matches!(op, A::BinaryOperator::AtAt) && !json(l.ty().ty) && !json(r.ty().ty)))
            && let Some(e) = self.bind_ts_operator(op, l.clone(), r.clone())?
        {
            return Ok(e);
        }
        let (l, r) =
            if json(l.ty().ty) || json(r.ty().ty) || matches!(op, A::BinaryOperator::AtQuestion) {
                match self.bind_json_operator(op, l, r)? {
                    Ok(e) => return Ok(e),
                    Err(operands) => operands,
                }
            } else {
                (l, r)
            };
        let op = match op {
            A::BinaryOperator::And | A::BinaryOperator::Or => {
                let name = if matches!(op, A::BinaryOperator::And) {
                    "AND"
                } else {
                    "OR"
                };
                let l = self.require_bool(l, name)?;
                let r = self.require_bool(r, name)?;
                let is_and = matches!(op, A::BinaryOperator::And);
                let mut list = Vec::new();
                for side in [l, r] {
                    match (side, is_and) {
                        (Expr::And(inner), true) => list.extend(inner),
                        (Expr::Or(inner), false) => list.extend(inner),
                        (other, _) => list.push(other),
                    }
                }
                return Ok(if is_and {
                    Expr::And(list)
                } else {
                    Expr::Or(list)
                });
            }
            A::BinaryOperator::Plus => BinaryOp::Add,
            A::BinaryOperator::Minus => BinaryOp::Sub,
            A::BinaryOperator::Multiply => BinaryOp::Mul,
            A::BinaryOperator::Divide => BinaryOp::Div,
            A::BinaryOperator::Modulo => BinaryOp::Mod,
            A::BinaryOperator::PGExp => BinaryOp::Pow,
            A::BinaryOperator::Eq => BinaryOp::Eq,
            A::BinaryOperator::NotEq => BinaryOp::NotEq,
            A::BinaryOperator::Lt => BinaryOp::Lt,
            A::BinaryOperator::LtEq => BinaryOp::LtEq,
            A::BinaryOperator::Gt => BinaryOp::Gt,
            A::BinaryOperator::GtEq => BinaryOp::GtEq,
            A::BinaryOperator::StringConcat => BinaryOp::Concat,
            A::BinaryOperator::AtArrow => {
                return self.bind_array_operator(Func::ArrayContains, l, r);
            }
            A::BinaryOperator::ArrowAt => {
                return self.bind_array_operator(Func::ArrayContained, l, r);
            }
            A::BinaryOperator::PGOverlap => {
                return self.bind_array_operator(Func::ArrayOverlap, l, r);
            }
            A::BinaryOperator::PGRegexMatch => return self.bind_regex(l, r, false, false),
            A::BinaryOperator::PGRegexIMatch => return self.bind_regex(l, r, true, false),
            A::BinaryOperator::PGRegexNotMatch => return self.bind_regex(l, r, false, true),
            A::BinaryOperator::PGRegexNotIMatch => return self.bind_regex(l, r, true, true),
            // OPERATOR(pg_catalog.op): the operator itself.
            A::BinaryOperator::PGCustomBinaryOperator(parts)
                if parts.len() == 2 && parts[0].eq_ignore_ascii_case("pg_catalog") =>
            {
                let inner = match parts[1].as_str() {
                    "~" => A::BinaryOperator::PGRegexMatch,
                    "~*" => A::BinaryOperator::PGRegexIMatch,
                    "!~" => A::BinaryOperator::PGRegexNotMatch,
                    "!~*" => A::BinaryOperator::PGRegexNotIMatch,
                    "=" => A::BinaryOperator::Eq,
                    "<>" | "!=" => A::BinaryOperator::NotEq,
                    "<" => A::BinaryOperator::Lt,
                    "<=" => A::BinaryOperator::LtEq,
                    ">" => A::BinaryOperator::Gt,
                    ">=" => A::BinaryOperator::GtEq,
                    "+" => A::BinaryOperator::Plus,
                    "-" => A::BinaryOperator::Minus,
                    "*" => A::BinaryOperator::Multiply,
                    "/" => A::BinaryOperator::Divide,
                    "||" => A::BinaryOperator::StringConcat,
                    other => {
                        return Err(Error::feature_not_supported(format!(
                            "operator pg_catalog.{other}"
                        )));
                    }
                };
                return self.bind_binary_op(l, &inner, r);
            }
            A::BinaryOperator::BitwiseAnd => return self.bind_bitwise(BitOp::And, l, r),
            A::BinaryOperator::BitwiseOr => return self.bind_bitwise(BitOp::Or, l, r),
            A::BinaryOperator::PGBitwiseXor => return self.bind_bitwise(BitOp::Xor, l, r),
            A::BinaryOperator::PGBitwiseShiftLeft => {
                return self.bind_bitwise(BitOp::ShiftLeft, l, r);
            }
            A::BinaryOperator::PGBitwiseShiftRight => {
                return self.bind_bitwise(BitOp::ShiftRight, l, r);
            }
            other => return Err(Error::feature_not_supported(format!("operator {other}"))),
        };
        self.bind_binary(op, l, r)
    }

    /// The integer bitwise operators: `&`, `|` and `#` on two integers of one type (the
    /// narrower widened, an untyped literal taking the other's type), `<<` and `>>` by
    /// an integer count on the left operand's type.
    pub(super) fn bind_bitwise(&mut self, op: BitOp, l: Expr, r: Expr) -> Result<Expr> {
        use DataType as D;
        let rank = |t: D| match t {
            D::Int2 => Some(0),
            D::Int4 => Some(1),
            D::Int8 => Some(2),
            _ => None,
        };
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let shift = matches!(op, BitOp::ShiftLeft | BitOp::ShiftRight);
        let ty = match (rank(lt), rank(rt), lt, rt) {
            (Some(_), Some(_) | None, _, D::Unknown) | (Some(_), Some(_), _, _) if shift => lt,
            (Some(a), Some(b), _, _) => {
                if a >= b {
                    lt
                } else {
                    rt
                }
            }
            (Some(_), None, _, D::Unknown) => lt,
            (None, Some(_), D::Unknown, _) => rt,
            (None, None, D::Unknown, D::Unknown) => D::Int4,
            _ => return Err(no_operator(lt, op.symbol(), rt)),
        };
        let l = self.coerce(l, SqlType::new(ty))?;
        let r = if shift {
            self.coerce(r, SqlType::new(D::Int4))?
        } else {
            self.coerce(r, SqlType::new(ty))?
        };
        Ok(Expr::Func {
            func: Func::Bitwise(op),
            args: vec![l, r],
            ty: SqlType::new(ty),
        })
    }

    /// `string ~ pattern` and its case-insensitive and negated forms (POSIX regular
    /// expressions; both sides text).
    fn bind_regex(&mut self, l: Expr, r: Expr, icase: bool, negated: bool) -> Result<Expr> {
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let op = match (icase, negated) {
            (false, false) => "~",
            (true, false) => "~*",
            (false, true) => "!~",
            (true, true) => "!~*",
        };
        if !(lt.is_string() && rt.is_string()) {
            return Err(no_operator(lt, op, rt));
        }
        let l = self.coerce(l, TEXT)?;
        let r = self.coerce(r, TEXT)?;
        let matched = Expr::Func {
            func: Func::RegexMatch(icase),
            args: vec![l, r],
            ty: BOOL,
        };
        Ok(if negated {
            Expr::Not(Box::new(matched))
        } else {
            matched
        })
    }

    /// Gives both sides of a comparison one type.
    /// `x [NOT] IN (items)` as PostgreSQL's transformAExprIn builds it: the items that
    /// mention no column, when there are two or more, are matched with `x` at one common
    /// type (one list test); every other item is compared with `x` by its own `=` (`<>`),
    /// and the parts are ORed (ANDed), list test first.
    pub(super) fn bind_in_list(
        &mut self,
        x: Expr,
        items: Vec<Expr>,
        negated: bool,
    ) -> Result<Expr> {
        let (with_columns, constants): (Vec<Expr>, Vec<Expr>) =
            items.iter().cloned().partition(mentions_columns);
        let mut parts = Vec::new();
        let mut compared = items;
        if constants.len() > 1
            && let Some(list) = self.in_list_at_common_type(&x, constants, negated)
        {
            parts.push(list);
            compared = with_columns;
        }
        let op = if negated {
            BinaryOp::NotEq
        } else {
            BinaryOp::Eq
        };
        for item in compared {
            parts.push(self.bind_binary(op, x.clone(), item)?);
        }
        Ok(match parts.len() {
            1 => parts.remove(0),
            _ if negated => Expr::And(parts),
            _ => Expr::Or(parts),
        })
    }

    /// One `x [NOT] IN (constants)` test at the common type of `x` and the constants, if
    /// there is one they all coerce to (else PostgreSQL compares them one by one).
    pub(super) fn in_list_at_common_type(
        &mut self,
        x: &Expr,
        items: Vec<Expr>,
        negated: bool,
    ) -> Option<Expr> {
        let mut all: Vec<&Expr> = vec![x];
        all.extend(items.iter());
        let ty = common_type(&all, "IN").ok()?;
        let ty = if ty.ty == DataType::Unknown { TEXT } else { ty };
        let ty = SqlType::new(if ty.ty == DataType::Bpchar {
            DataType::Text
        } else {
            ty.ty
        });
        let x = self.coerce(x.clone(), ty).ok()?;
        let items = items
            .into_iter()
            .map(|i| self.coerce(i, ty))
            .collect::<Result<Vec<_>>>()
            .ok()?;
        Some(Expr::InList {
            expr: Box::new(x),
            list: items,
            negated,
        })
    }

    pub(super) fn unify_comparison(
        &mut self,
        l: Expr,
        r: Expr,
        op: BinaryOp,
    ) -> Result<(Expr, Expr)> {
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let target = match (lt, rt) {
            (DataType::Unknown, DataType::Unknown) => TEXT,
            (DataType::Unknown, t) | (t, DataType::Unknown) => SqlType::new(t),
            (a, b) if a.is_string() && b.is_string() => TEXT,
            // Arrays compare only with their own type (PostgreSQL's anyarray operators).
            (a, b) if a.is_array() || b.is_array() => {
                if a != b {
                    return Err(no_operator(a, op.symbol(), b));
                }
                SqlType::new(a)
            }
            (a, b) => match (a.numeric_rank(), b.numeric_rank()) {
                (Some(x), Some(y)) => SqlType::new(numeric_common(a, b, x, y)),
                _ if a == b => SqlType::new(a),
                _ if cast::is_implicit(a, b) => SqlType::new(b),
                _ if cast::is_implicit(b, a) => SqlType::new(a),
                _ => {
                    return Err(no_operator(a, op.symbol(), b));
                }
            },
        };
        // char(n) compares without trailing spaces: compare as text.
        let target = if target.ty == DataType::Bpchar || target.ty == DataType::Varchar {
            TEXT
        } else {
            target
        };
        let l = if l.ty().ty == target.ty && l.ty().ty != DataType::Bpchar {
            l
        } else {
            self.coerce(l, target)?
        };
        let r = if r.ty().ty == target.ty && r.ty().ty != DataType::Bpchar {
            r
        } else {
            self.coerce(r, target)?
        };
        Ok((l, r))
    }

    pub(super) fn bind_binary(&mut self, op: BinaryOp, l: Expr, r: Expr) -> Result<Expr> {
        use DataType as D;
        let (l, r) = match self.bind_enum_binary(op, l, r)? {
            Ok(e) => return Ok(e),
            Err(operands) => operands,
        };
        if op.is_comparison() {
            let (l, r) = self.unify_comparison(l, r, op)?;
            if matches!(l.ty().ty, D::Json | D::JsonPath) {
                return Err(no_operator(l.ty().ty, op.symbol(), r.ty().ty));
            }
            return Ok(Expr::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
                ty: BOOL,
            });
        }
        if op == BinaryOp::Concat {
            let (lt, rt) = (l.ty().ty, r.ty().ty);
            if lt.is_array() || rt.is_array() {
                return self.bind_array_concat(l, r);
            }
            // bytea || bytea (an untyped literal taking the other side's type).
            let bytes = |t: D| matches!(t, D::Bytea | D::Unknown);
            if (lt == D::Bytea || rt == D::Bytea) && bytes(lt) && bytes(rt) {
                let bytea = SqlType::new(D::Bytea);
                let l = self.coerce(l, bytea)?;
                let r = self.coerce(r, bytea)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                    ty: bytea,
                });
            }
            if !(lt.is_string() || rt.is_string()) {
                return Err(no_operator(lt, "||", rt));
            }
            let l = self.concat_operand(l)?;
            let r = self.concat_operand(r)?;
            return Ok(Expr::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
                ty: TEXT,
            });
        }
        let (mut lt, mut rt) = (l.ty().ty, r.ty().ty);
        // Unknown literals take the other side's type; two unknowns are an error like PG's.
        let (l, r) = match (lt, rt) {
            (D::Unknown, D::Unknown) => {
                return Err(operator_not_unique(&format!(
                    "unknown {} unknown",
                    op.symbol()
                )));
            }
            (D::Unknown, t) => {
                let target = unknown_operand_type(op, t).ok_or_else(|| {
                    operator_not_unique(&format!("unknown {} {}", op.symbol(), t.name()))
                })?;
                lt = target;
                (self.coerce(l, SqlType::new(target))?, r)
            }
            (t, D::Unknown) => {
                let target = unknown_operand_type(op, t).ok_or_else(|| {
                    operator_not_unique(&format!("{} {} unknown", t.name(), op.symbol()))
                })?;
                rt = target;
                (l, self.coerce(r, SqlType::new(target))?)
            }
            _ => (l, r),
        };
        let no_op = |lt: D, rt: D| no_operator(lt, op.symbol(), rt);
        // Numbers.
        if let (Some(a), Some(b)) = (lt.numeric_rank(), rt.numeric_rank()) {
            let common = numeric_common(lt, rt, a, b);
            if op == BinaryOp::Pow {
                if common == D::Numeric {
                    let l = self.coerce(l, NUMERIC)?;
                    let r = self.coerce(r, NUMERIC)?;
                    return Ok(Expr::Binary {
                        op,
                        left: Box::new(l),
                        right: Box::new(r),
                        ty: NUMERIC,
                    });
                }
                let l = self.coerce(l, FLOAT8)?;
                let r = self.coerce(r, FLOAT8)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                    ty: FLOAT8,
                });
            }
            if op == BinaryOp::Mod && matches!(common, D::Float4 | D::Float8) {
                return Err(no_op(lt, rt));
            }
            let ty = SqlType::new(common);
            let l = self.coerce(l, ty)?;
            let r = self.coerce(r, ty)?;
            return Ok(Expr::Binary {
                op,
                left: Box::new(l),
                right: Box::new(r),
                ty,
            });
        }
        // Dates and times.
        let ty = match (lt, op, rt) {
            (D::Date, BinaryOp::Add | BinaryOp::Sub, D::Int2 | D::Int4 | D::Int8) => {
                let r = self.coerce(r, INT4)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                    ty: SqlType::new(D::Date),
                });
            }
            (D::Int2 | D::Int4 | D::Int8, BinaryOp::Add, D::Date) => {
                let l = self.coerce(l, INT4)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(r),
                    right: Box::new(l),
                    ty: SqlType::new(D::Date),
                });
            }
            (D::Date, BinaryOp::Sub, D::Date) => INT4,
            (D::Date, BinaryOp::Add | BinaryOp::Sub, D::Interval) => {
                let l = self.coerce(l, SqlType::new(D::Timestamp))?;
                return self.bind_binary(op, l, r);
            }
            (D::Interval, BinaryOp::Add, D::Date) => {
                let r = self.coerce(r, SqlType::new(D::Timestamp))?;
                return self.bind_binary(op, r, l);
            }
            (D::Interval, BinaryOp::Add, D::Timestamp | D::Timestamptz) => {
                return self.bind_binary(op, r, l);
            }
            (D::Timestamp | D::Timestamptz, BinaryOp::Add | BinaryOp::Sub, D::Interval) => {
                SqlType::new(lt)
            }
            (D::Timestamp, BinaryOp::Sub, D::Timestamp)
            | (D::Timestamptz, BinaryOp::Sub, D::Timestamptz) => SqlType::new(D::Interval),
            // Times of day: an interval's time part moves them round the clock.
            (D::Time | D::TimeTz, BinaryOp::Add | BinaryOp::Sub, D::Interval) => SqlType::new(lt),
            (D::Interval, BinaryOp::Add, D::Time | D::TimeTz) => {
                return self.bind_binary(op, r, l);
            }
            (D::Time, BinaryOp::Sub, D::Time) => SqlType::new(D::Interval),
            (D::Time, BinaryOp::Add, D::Time) => {
                return Err(operator_not_unique(&format!(
                    "{} + {}",
                    lt.name(),
                    rt.name()
                )));
            }
            // date + time is a timestamp (timestamptz with timetz); date - time too.
            (D::Date, BinaryOp::Add | BinaryOp::Sub, D::Time)
            | (D::Date, BinaryOp::Add, D::TimeTz) => SqlType::new(if rt == D::TimeTz {
                D::Timestamptz
            } else {
                D::Timestamp
            }),
            (D::Time | D::TimeTz, BinaryOp::Add, D::Date) => {
                return self.bind_binary(op, r, l);
            }
            // time * n and time / n go through time's implicit cast to interval.
            (D::Time, BinaryOp::Mul | BinaryOp::Div, t) if t.numeric_rank().is_some() => {
                let l = self.coerce(l, SqlType::new(D::Interval))?;
                return self.bind_binary(op, l, r);
            }
            (t, BinaryOp::Mul, D::Time) if t.numeric_rank().is_some() => {
                let r = self.coerce(r, SqlType::new(D::Interval))?;
                return self.bind_binary(op, l, r);
            }
            (D::Interval, BinaryOp::Add | BinaryOp::Sub, D::Interval) => SqlType::new(D::Interval),
            (D::Interval, BinaryOp::Mul | BinaryOp::Div, t) if t.numeric_rank().is_some() => {
                let r = self.coerce(r, FLOAT8)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                    ty: SqlType::new(D::Interval),
                });
            }
            (t, BinaryOp::Mul, D::Interval) if t.numeric_rank().is_some() => {
                let l = self.coerce(l, FLOAT8)?;
                return Ok(Expr::Binary {
                    op,
                    left: Box::new(r),
                    right: Box::new(l),
                    ty: SqlType::new(D::Interval),
                });
            }
            _ => return Err(no_op(lt, rt)),
        };
        Ok(Expr::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
            ty,
        })
    }

    pub(super) fn concat_operand(&mut self, e: Expr) -> Result<Expr> {
        match e.ty().ty {
            DataType::Text | DataType::Varchar => Ok(e),
            _ => self.explicit_cast(e, TEXT),
        }
    }

    pub(super) fn bind_case(
        &mut self,
        operand: Option<&A::Expr>,
        conditions: &[A::CaseWhen],
        else_result: Option<&A::Expr>,
        scope: &Scope,
    ) -> Result<Expr> {
        let saved = self.srf_forbidden.replace("CASE");
        let bound = self.bind_case_inner(operand, conditions, else_result, scope);
        self.srf_forbidden = saved;
        bound
    }

    fn bind_case_inner(
        &mut self,
        operand: Option<&A::Expr>,
        conditions: &[A::CaseWhen],
        else_result: Option<&A::Expr>,
        scope: &Scope,
    ) -> Result<Expr> {
        let operand = operand.map(|o| self.bind_expr(o, scope)).transpose()?;
        let mut conds = Vec::with_capacity(conditions.len());
        let mut results = Vec::with_capacity(conditions.len());
        for w in conditions {
            let c = self.bind_expr(&w.condition, scope)?;
            let c = match &operand {
                Some(o) => self.bind_binary(BinaryOp::Eq, o.clone(), c)?,
                None => {
                    let checked = self.require_bool(c, "CASE/WHEN");
                    checked.map_err(|err| self.locate(err, &w.condition))?
                }
            };
            conds.push(c);
            results.push(self.bind_expr(&w.result, scope)?);
        }
        let else_bound = else_result.map(|e| self.bind_expr(e, scope)).transpose()?;
        let mut all: Vec<&Expr> = results.iter().collect();
        if let Some(e) = &else_bound {
            all.push(e);
        }
        let ty = common_type(&all, "CASE")?;
        let ty = if ty.ty == DataType::Unknown { TEXT } else { ty };
        let mut whens = Vec::with_capacity(conds.len());
        for (c, r) in conds.into_iter().zip(results) {
            whens.push((c, self.coerce(r, ty)?));
        }
        let else_result = else_bound
            .map(|e| self.coerce(e, ty))
            .transpose()?
            .map(Box::new);
        Ok(Expr::Case {
            whens,
            else_result,
            ty,
        })
    }
}

/// The fields of a row constructor, `(a, b, …)` or `ROW(a, …)`, if `e` is one.
pub(super) fn row_items(e: &A::Expr) -> Option<Vec<A::Expr>> {
    match strip_nested(e) {
        A::Expr::Tuple(items) => Some(items.clone()),
        A::Expr::Function(f)
            if f.over.is_none()
                && f.filter.is_none()
                && matches!(f.name.0.as_slice(), [A::ObjectNamePart::Identifier(id)] if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("row")) =>
        {
            let A::FunctionArguments::List(list) = &f.args else {
                return Some(Vec::new());
            };
            list.args
                .iter()
                .map(|a| match a {
                    A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(e)) => Some(e.clone()),
                    _ => None,
                })
                .collect()
        }
        _ => None,
    }
}
