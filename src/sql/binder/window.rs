//! Window function calls: the function, its window (PARTITION BY, ORDER BY, frame,
//! possibly inherited from a named window of the WINDOW clause) and where calls may
//! appear.
//!
//! A call binds to a [`WindowCall`] in the query level's list and to an
//! [`Expr::Window`] placeholder; the SELECT puts a `Window` node over the (grouped)
//! input and replaces each placeholder by the node's column. Window functions are
//! allowed only in the select list and ORDER BY (`42P20` elsewhere), cannot nest
//! (`42P20`), and cannot appear inside an aggregate's argument (`42803`).

use super::*;

/// The window functions PostgreSQL has that are not aggregates.
pub(super) fn window_func(name: &str) -> Option<WindowFunc> {
    Some(match name {
        "row_number" => WindowFunc::RowNumber,
        "rank" => WindowFunc::Rank,
        "dense_rank" => WindowFunc::DenseRank,
        "percent_rank" => WindowFunc::PercentRank,
        "cume_dist" => WindowFunc::CumeDist,
        "ntile" => WindowFunc::Ntile,
        "lag" => WindowFunc::Lag,
        "lead" => WindowFunc::Lead,
        "first_value" => WindowFunc::FirstValue,
        "last_value" => WindowFunc::LastValue,
        "nth_value" => WindowFunc::NthValue,
        _ => return None,
    })
}

/// A window as written: the parts of its definition.
#[derive(Clone, Default)]
struct Spec {
    partition_by: Vec<A::Expr>,
    order_by: Vec<A::OrderByExpr>,
    frame: Option<A::WindowFrame>,
}

impl Binder<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_window(
        &mut self,
        f: &A::Function,
        over: &A::WindowType,
        name: &str,
        args: &[&A::Expr],
        distinct: bool,
        star: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        if self.in_window_args {
            return Err(Error::new(
                "42P20",
                "window function calls cannot be nested",
            ));
        }
        if self.in_agg_args {
            return Err(Error::grouping(
                "aggregate function calls cannot contain window function calls",
            ));
        }
        if let Some(clause) = self.window_forbidden {
            return Err(Error::new(
                "42P20",
                format!("window functions are not allowed in {clause}"),
            ));
        }
        let func = match (window_func(name), agg_func(name)) {
            (Some(w), _) => w,
            (None, Some(a)) => WindowFunc::Agg(a),
            (None, None) => {
                return Err(Error::new(
                    "42809",
                    format!(
                        "OVER specified, but {name} is not a window function nor an aggregate function"
                    ),
                ));
            }
        };
        if distinct {
            return Err(Error::new(
                "0A000",
                "DISTINCT is not implemented for window functions",
            ));
        }
        if f.filter.is_some() && !matches!(func, WindowFunc::Agg(_)) {
            return Err(Error::feature_not_supported(
                "FILTER is not implemented for non-aggregate window functions",
            ));
        }
        let spec = self.window_spec(over)?;
        self.in_window_args = true;
        let call = self.bind_window_call(f, func, name, args, star, &spec, scope);
        self.in_window_args = false;
        let call = call?;
        let ty = call.ty;
        self.windows.push(call);
        Ok(Expr::Window {
            index: self.windows.len() - 1,
            ty,
        })
    }

    /// The window an OVER clause names or writes, with what it inherits.
    fn window_spec(&self, over: &A::WindowType) -> Result<Spec> {
        match over {
            A::WindowType::NamedWindow(id) => self.named_window(&ident_name(id)),
            A::WindowType::WindowSpec(ws) => self.spec_of(ws),
        }
    }

    fn spec_of(&self, ws: &A::WindowSpec) -> Result<Spec> {
        let mut spec = match &ws.window_name {
            None => Spec::default(),
            Some(base) => {
                let name = ident_name(base);
                let base = self.named_window(&name)?;
                if !ws.partition_by.is_empty() {
                    return Err(Error::new(
                        "42P20",
                        format!("cannot override PARTITION BY clause of window \"{name}\""),
                    ));
                }
                if !ws.order_by.is_empty() && !base.order_by.is_empty() {
                    return Err(Error::new(
                        "42P20",
                        format!("cannot override ORDER BY clause of window \"{name}\""),
                    ));
                }
                if base.frame.is_some() {
                    return Err(Error::new(
                        "42P20",
                        format!("cannot copy window \"{name}\" because it has a frame clause"),
                    ));
                }
                base
            }
        };
        if !ws.partition_by.is_empty() {
            spec.partition_by = ws.partition_by.clone();
        }
        if !ws.order_by.is_empty() {
            spec.order_by = ws.order_by.clone();
        }
        if ws.window_frame.is_some() {
            spec.frame = ws.window_frame.clone();
        }
        Ok(spec)
    }

    fn named_window(&self, name: &str) -> Result<Spec> {
        let Some(def) = self.named_windows.iter().find(|d| ident_name(&d.0) == name) else {
            return Err(Error::new(
                "42704",
                format!("window \"{name}\" does not exist"),
            ));
        };
        match &def.1 {
            A::NamedWindowExpr::NamedWindow(other) => self.named_window(&ident_name(other)),
            A::NamedWindowExpr::WindowSpec(ws) => self.spec_of(ws),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_window_call(
        &mut self,
        f: &A::Function,
        func: WindowFunc,
        name: &str,
        args: &[&A::Expr],
        star: bool,
        spec: &Spec,
        scope: &Scope,
    ) -> Result<WindowCall> {
        let no_function = |types: &[SqlType]| {
            Error::undefined_function(format!(
                "function {name}({}) does not exist",
                types
                    .iter()
                    .map(|t| t.display_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        };
        let (args, ty) = match func {
            WindowFunc::Agg(agg) => {
                // A window aggregate's argument may hold plain aggregates.
                let call = self.agg_call(
                    agg,
                    name,
                    args,
                    false,
                    star,
                    scope,
                    true,
                    AggClauses::default(),
                )?;
                if self.enum_aggregate.take().is_some() {
                    return Err(Error::feature_not_supported(
                        "min / max of an enum as a window function",
                    ));
                }
                let mut all: Vec<Expr> = call.arg.into_iter().collect();
                all.extend(call.extra);
                (all, call.ty)
            }
            _ => {
                if star {
                    return Err(Error::syntax(format!(
                        "{name}(*) specified, but {name} is not an aggregate function"
                    )));
                }
                let mut bound = Vec::with_capacity(args.len());
                for a in args {
                    bound.push(self.bind_expr(a, scope)?);
                }
                let types: Vec<SqlType> = bound.iter().map(|b| b.ty()).collect();
                match (func, bound.len()) {
                    (WindowFunc::RowNumber | WindowFunc::Rank | WindowFunc::DenseRank, 0) => {
                        (bound, INT8)
                    }
                    (WindowFunc::PercentRank | WindowFunc::CumeDist, 0) => (bound, FLOAT8),
                    (WindowFunc::Ntile, 1) => {
                        let n = self.coerce_assign(bound.remove(0), INT4, "ntile")?;
                        (vec![n], INT4)
                    }
                    (WindowFunc::FirstValue | WindowFunc::LastValue, 1) => {
                        let v = self.typed_value(bound.remove(0))?;
                        let ty = v.ty();
                        (vec![v], ty)
                    }
                    (WindowFunc::NthValue, 2) => {
                        let v = self.typed_value(bound.remove(0))?;
                        let n = self.coerce_assign(bound.remove(0), INT4, "nth_value")?;
                        let ty = v.ty();
                        (vec![v, n], ty)
                    }
                    (WindowFunc::Lag | WindowFunc::Lead, 1..=3) => {
                        let mut it = bound.into_iter();
                        let v = it.next().ok_or_else(|| no_function(&types))?;
                        let offset = it.next();
                        let default = it.next();
                        // The value and the default meet at one type, as PostgreSQL's
                        // lag(anycompatible, integer, anycompatible).
                        let ty = match &default {
                            Some(d) => {
                                let t = common_type(&[&v, d], name)?;
                                if t.ty == DataType::Unknown { TEXT } else { t }
                            }
                            None if v.ty().ty == DataType::Unknown => TEXT,
                            None => v.ty(),
                        };
                        let mut out = vec![self.coerce(v, ty)?];
                        if let Some(o) = offset {
                            out.push(self.coerce_assign(o, INT4, name)?);
                        }
                        if let Some(d) = default {
                            if out.len() == 1 {
                                out.push(Expr::literal(Value::Int4(1), INT4));
                            }
                            out.push(self.coerce(d, ty)?);
                        }
                        (out, ty)
                    }
                    _ => return Err(no_function(&types)),
                }
            }
        };
        let filter = match &f.filter {
            Some(cond) => {
                let b = self.bind_expr(cond, scope)?;
                Some(self.require_bool(b, "FILTER")?)
            }
            None => None,
        };
        let mut partition_by = Vec::with_capacity(spec.partition_by.len());
        for p in &spec.partition_by {
            let b = self.bind_expr(p, scope)?;
            partition_by.push(self.typed_value(b)?);
        }
        let mut order_by = Vec::with_capacity(spec.order_by.len());
        for o in &spec.order_by {
            let b = self.bind_expr(&o.expr, scope)?;
            let b = self.sort_key_of(b);
            let desc = order_desc(&o.options)?;
            order_by.push(WindowOrder {
                expr: self.typed_value(b)?,
                desc,
                nulls_first: o.options.nulls_first.unwrap_or(desc),
            });
        }
        let mut frame = match &spec.frame {
            None => Frame::default_frame(),
            Some(fr) => self.bind_frame(fr, &order_by, scope)?,
        };
        frame.exclude = self.frame_exclusion(f);
        Ok(WindowCall {
            func,
            args,
            filter,
            partition_by,
            order_by,
            frame,
            ty,
        })
    }

    /// The EXCLUDE clause of the call's OVER (read from the text: see
    /// `sql::parse::frame_exclusions`): the call's span ends at its arguments (or
    /// FILTER), its OVER comes next, and an exclusion belongs to the nearest OVER
    /// before it.
    fn frame_exclusion(&self, f: &A::Function) -> FrameExclude {
        use sqlparser::ast::Spanned;
        let Some(end) = crate::sql::parse::byte_offset(self.text, f.span().end) else {
            return FrameExclude::NoOthers;
        };
        let overs = crate::sql::parse::keyword_offsets(self.text, "OVER");
        let Some(&own) = overs.iter().find(|&&o| o >= end) else {
            return FrameExclude::NoOthers;
        };
        crate::sql::parse::frame_exclusions(self.text)
            .into_iter()
            .filter(|(s, _, _)| *s > own && overs.iter().rfind(|&&o| o < *s) == Some(&own))
            .map(|(_, _, kind)| match kind {
                "current row" => FrameExclude::CurrentRow,
                "group" => FrameExclude::Group,
                "ties" => FrameExclude::Ties,
                _ => FrameExclude::NoOthers,
            })
            .next()
            .unwrap_or(FrameExclude::NoOthers)
    }

    /// An untyped literal as text (a window's value or key).
    fn typed_value(&mut self, e: Expr) -> Result<Expr> {
        if e.ty().ty == DataType::Unknown {
            self.coerce(e, TEXT)
        } else {
            Ok(e)
        }
    }

    fn bind_frame(
        &mut self,
        fr: &A::WindowFrame,
        order_by: &[WindowOrder],
        scope: &Scope,
    ) -> Result<Frame> {
        let units = match fr.units {
            A::WindowFrameUnits::Rows => FrameUnits::Rows,
            A::WindowFrameUnits::Range => FrameUnits::Range,
            A::WindowFrameUnits::Groups => FrameUnits::Groups,
        };
        let end_ast = fr
            .end_bound
            .clone()
            .unwrap_or(A::WindowFrameBound::CurrentRow);
        let has_offset = |b: &A::WindowFrameBound| {
            matches!(
                b,
                A::WindowFrameBound::Preceding(Some(_)) | A::WindowFrameBound::Following(Some(_))
            )
        };
        if units == FrameUnits::Range
            && (has_offset(&fr.start_bound) || has_offset(&end_ast))
            && order_by.len() != 1
        {
            return Err(Error::new(
                "42P20",
                "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
            ));
        }
        if units == FrameUnits::Groups && order_by.is_empty() {
            return Err(Error::new(
                "42P20",
                "GROUPS mode requires an ORDER BY clause",
            ));
        }
        let start = self.bind_bound(&fr.start_bound, units, order_by, scope)?;
        let end = self.bind_bound(&end_ast, units, order_by, scope)?;
        match (&start, &end) {
            (FrameBound::UnboundedFollowing, _) => {
                return Err(Error::new(
                    "42P20",
                    "frame start cannot be UNBOUNDED FOLLOWING",
                ));
            }
            (_, FrameBound::UnboundedPreceding) => {
                return Err(Error::new(
                    "42P20",
                    "frame end cannot be UNBOUNDED PRECEDING",
                ));
            }
            (FrameBound::CurrentRow, FrameBound::Preceding(_)) => {
                return Err(Error::new(
                    "42P20",
                    "frame starting from current row cannot have preceding rows",
                ));
            }
            (FrameBound::Following(_), FrameBound::Preceding(_) | FrameBound::CurrentRow) => {
                return Err(Error::new(
                    "42P20",
                    "frame starting from following row cannot have preceding rows",
                ));
            }
            _ => {}
        }
        Ok(Frame {
            units,
            start,
            end,
            exclude: FrameExclude::NoOthers,
        })
    }

    fn bind_bound(
        &mut self,
        b: &A::WindowFrameBound,
        units: FrameUnits,
        order_by: &[WindowOrder],
        scope: &Scope,
    ) -> Result<FrameBound> {
        let offset = |me: &mut Self, e: &A::Expr| -> Result<Expr> {
            let bound = me.bind_expr(e, scope)?;
            if bound.any(&|x| matches!(x, Expr::ColumnRef { .. })) {
                let what = match units {
                    FrameUnits::Rows => "ROWS",
                    FrameUnits::Range => "RANGE",
                    FrameUnits::Groups => "GROUPS",
                };
                return Err(Error::new(
                    "42P10",
                    format!("argument of {what} must not contain variables"),
                ));
            }
            match units {
                FrameUnits::Rows | FrameUnits::Groups => me.coerce_assign(bound, INT8, "ROWS"),
                FrameUnits::Range => {
                    let key = order_by.first().map_or(INT8, |o| o.expr.ty());
                    let to = match key.ty {
                        DataType::Int2 | DataType::Int4 | DataType::Int8 => INT8,
                        DataType::Float4 | DataType::Float8 => FLOAT8,
                        DataType::Numeric => NUMERIC,
                        DataType::Date
                        | DataType::Timestamp
                        | DataType::Timestamptz
                        | DataType::Interval => SqlType::new(DataType::Interval),
                        other => {
                            return Err(Error::feature_not_supported(format!(
                                "RANGE with offset PRECEDING/FOLLOWING for column type {}",
                                other.name()
                            )));
                        }
                    };
                    me.coerce_assign(bound, to, "RANGE")
                }
            }
        };
        Ok(match b {
            A::WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
            A::WindowFrameBound::Preceding(None) => FrameBound::UnboundedPreceding,
            A::WindowFrameBound::Following(None) => FrameBound::UnboundedFollowing,
            A::WindowFrameBound::Preceding(Some(e)) => FrameBound::Preceding(offset(self, e)?),
            A::WindowFrameBound::Following(Some(e)) => FrameBound::Following(offset(self, e)?),
        })
    }
}
