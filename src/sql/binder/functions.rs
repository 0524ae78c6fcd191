//! Scalar function calls: overload resolution, argument coercion and result types.

use super::*;

/// Function names kiln binds beyond the scalar functions of the catalog
/// (`sql::functions`): aggregates, window and table functions, and the keyword forms
/// sqlparser reports as calls. Sorted.
pub(super) const KILN_FUNCTIONS: &[&str] = &[
    "array_agg",
    "avg",
    "count",
    "generate_series",
    "max",
    "min",
    "pg_typeof",
    "position",
    "sum",
    "unnest",
];

/// Whether kiln binds a function of this name.
pub(super) fn is_kiln_function(name: &str) -> bool {
    KILN_FUNCTIONS.binary_search(&name).is_ok() || crate::sql::functions::has_function(name)
}

/// A call kiln cannot bind: PostgreSQL's "does not exist" when kiln knows the function
/// (the arguments are wrong there too), or `0A000` when PostgreSQL has a built-in of that
/// name kiln lacks — an honest "not supported" rather than a claim that it is missing.
pub(super) fn unsupported_builtin(e: Error, name: &str) -> Error {
    let known = is_kiln_function(name);
    if e.code == "42883" && !known && crate::sql::pg_functions::is_builtin(name) {
        let mut err = Error::feature_not_supported(format!("function {name}"));
        err.position = e.position;
        return err;
    }
    e
}

impl Binder<'_> {
    pub(super) fn bind_function(&mut self, f: &A::Function, scope: &Scope) -> Result<Expr> {
        // information_schema's one function clients call (pgJDBC's metadata queries).
        let name = match f.name.0.as_slice() {
            [
                A::ObjectNamePart::Identifier(s),
                A::ObjectNamePart::Identifier(n),
            ] if ident_name(s) == "information_schema" && ident_name(n) == "_pg_expandarray" => {
                "_pg_expandarray".to_string()
            }
            _ => object_name(&f.name)?,
        };
        let mut order_by: &[A::OrderByExpr] = &[];
        let named = match &f.args {
            A::FunctionArguments::List(list) => named_arguments(&name, &list.args)?,
            _ => None,
        };
        let (args, distinct, star) = match &f.args {
            A::FunctionArguments::None => (vec![], false, false),
            A::FunctionArguments::Subquery(q) if name == "array" => {
                return self.bind_array_subquery(q, scope);
            }
            A::FunctionArguments::Subquery(_) => {
                return Err(Error::feature_not_supported("subqueries"));
            }
            A::FunctionArguments::List(list) => {
                for clause in &list.clauses {
                    match clause {
                        A::FunctionArgumentClause::OrderBy(o) => order_by = o,
                        other => {
                            return Err(Error::feature_not_supported(format!(
                                "function argument clause {other}"
                            )));
                        }
                    }
                }
                let distinct = matches!(
                    list.duplicate_treatment,
                    Some(A::DuplicateTreatment::Distinct)
                );
                let mut star = false;
                let mut args = Vec::new();
                if let Some(named) = &named {
                    args.extend(named.iter());
                }
                for a in list.args.iter().filter(|_| named.is_none()) {
                    match a {
                        A::FunctionArg::Unnamed(A::FunctionArgExpr::Wildcard) => star = true,
                        A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(e)) => args.push(e),
                        _ => return Err(Error::feature_not_supported("named function arguments")),
                    }
                }
                (args, distinct, star)
            }
        };
        if let Some(over) = &f.over {
            if !order_by.is_empty() {
                // PostgreSQL's own limit, with its code: the ORDER BY is not ignored.
                return Err(Error::new(
                    "0A000",
                    "aggregate ORDER BY is not implemented for window functions",
                ));
            }
            return self.bind_window(f, over, &name, &args, distinct, star, scope);
        }
        if let Some(window) = window_func(&name) {
            let _ = window;
            return Err(Error::new(
                "42809",
                format!("window function {name} requires an OVER clause"),
            ));
        }
        let aggregate_clauses = f.filter.is_some()
            || !order_by.is_empty()
            || !f.within_group.is_empty()
            || star
            || distinct;
        if aggregate_clauses
            && agg_func(&name).is_none()
            && !is_kiln_function(&name)
            && crate::sql::pg_functions::is_builtin(&name)
        {
            // PostgreSQL's aggregates kiln lacks (array_agg, json_agg …): the call is
            // fine, the function is missing.
            return Err(Error::feature_not_supported(format!("function {name}")));
        }
        if f.filter.is_some() && agg_func(&name).is_none() {
            return Err(Error::new(
                "42809",
                format!("FILTER specified, but {name} is not an aggregate function"),
            ));
        }
        if let Some(agg) = agg_func(&name) {
            let clauses = AggClauses {
                filter: f.filter.as_deref(),
                order_by,
                within_group: &f.within_group,
            };
            self.enum_aggregate = None;
            let call = self.bind_aggregate(agg, &name, &args, distinct, star, scope, clauses)?;
            return Ok(match self.enum_aggregate.take() {
                Some(oid) => super::types::enum_label_at(call, oid),
                None => call,
            });
        }
        if !order_by.is_empty() || !f.within_group.is_empty() {
            return Err(Error::new(
                "42809",
                format!("ORDER BY specified, but {name} is not an aggregate function"),
            ));
        }
        if star || distinct {
            return Err(Error::syntax(format!(
                "{name}(*) specified, but {name} is not an aggregate function"
            )));
        }
        if name == "generate_series"
            || name == "unnest"
            || name == "pg_partition_ancestors"
            || name == "_pg_expandarray"
            || name == "generate_subscripts"
            || crate::plan::logical::SetFn::by_name(&name).is_some()
        {
            return self.bind_select_srf(&name, &args, scope);
        }
        // nextval('s'::regclass), as PostgreSQL stores a serial column's default (and
        // pg_dump writes it): the sequence functions take the name the regclass literal
        // spells, read by the same regclass input rules.
        let unwrapped;
        let args = match args.split_first() {
            Some((
                A::Expr::Cast {
                    expr,
                    data_type,
                    kind: A::CastKind::DoubleColon | A::CastKind::Cast,
                    ..
                },
                rest,
            )) if matches!(name.as_str(), "nextval" | "currval" | "setval")
                && data_type.to_string().eq_ignore_ascii_case("regclass")
                && matches!(
                    expr.as_ref(),
                    A::Expr::Value(v) if matches!(v.value, A::Value::SingleQuotedString(_))
                ) =>
            {
                unwrapped = expr.as_ref().clone();
                std::iter::once(&unwrapped)
                    .chain(rest.iter().copied())
                    .collect()
            }
            _ => args,
        };
        if name == "row" && f.over.is_none() {
            let items: Vec<A::Expr> = args.iter().map(|a| (*a).clone()).collect();
            return self.bind_row(&items, scope);
        }
        let mut bound = Vec::with_capacity(args.len());
        let saved = if name == "coalesce" {
            self.srf_forbidden.replace("COALESCE")
        } else {
            self.srf_forbidden
        };
        for a in args.iter() {
            match self.bind_expr(a, scope) {
                Ok(b) => bound.push(b),
                Err(e) => {
                    self.srf_forbidden = saved;
                    return Err(e);
                }
            }
        }
        self.srf_forbidden = saved;
        if name == "pg_typeof" {
            let [arg] = bound.as_slice() else {
                return Err(Error::undefined_function(
                    "function pg_typeof does not exist",
                ));
            };
            let ty = if arg.ty().ty == DataType::Unknown && !matches!(arg, Expr::Param { .. }) {
                "unknown".to_string()
            } else {
                match (crate::types::vector_oid(arg.ty()), arg.ty().ty) {
                    _ if arg.ty().domain != 0 => self.user_type_display(arg.ty().domain),
                    (None, DataType::Array(e)) if matches!(*e, DataType::Enum(_)) => {
                        let DataType::Enum(oid) = *e else {
                            unreachable!()
                        };
                        format!("{}[]", self.user_type_display(oid))
                    }
                    (Some(22), _) => "int2vector".to_string(),
                    (Some(_), _) => "oidvector".to_string(),
                    (None, DataType::Enum(oid)) => self.user_type_display(oid),
                    (None, t) => t.name().to_string(),
                }
            };
            return Ok(Expr::literal(Value::Text(ty), TEXT));
        }
        self.bind_scalar_function(&name, bound)
            .map_err(|e| unsupported_builtin(e, &name))
    }

    /// EXTRACT, date_part, date_trunc, age and timezone (AT TIME ZONE), resolved as
    /// PostgreSQL resolves their overloads: a date reads as timestamptz where that is
    /// the preferred candidate, an untyped literal is ambiguous (42725) except as the
    /// time of AT TIME ZONE.
    pub(super) fn bind_datetime_function(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr> {
        use DataType as D;
        let types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let shown = if name == "extract" {
            "pg_catalog.extract"
        } else {
            name
        };
        let signature = args
            .iter()
            .map(|a| a.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        let not_found =
            || Error::undefined_function(format!("function {shown}({signature}) does not exist"));
        let ambiguous = || not_unique(format!("function {shown}({signature}) is not unique"));
        let datetime_source = |t: D| {
            matches!(
                t,
                D::Date | D::Timestamp | D::Timestamptz | D::Interval | D::Time | D::TimeTz
            )
        };
        let mut args = args;
        let text_arg = |b: &mut Binder, a: Expr| -> Result<Expr> {
            match a.ty().ty {
                D::Text | D::Varchar => Ok(a),
                D::Unknown | D::Bpchar => b.coerce(a, TEXT),
                _ => Err(not_found()),
            }
        };
        let (func, ty) = match (name, types.as_slice()) {
            ("extract" | "date_part", [u, t]) if u.is_string() || *u == D::Unknown => {
                if *t == D::Unknown {
                    return Err(ambiguous());
                }
                if !datetime_source(*t) {
                    return Err(not_found());
                }
                let unit = args.remove(0);
                args.insert(0, text_arg(self, unit)?);
                if name == "extract" {
                    (Func::Extract, NUMERIC)
                } else {
                    (Func::DatePart, SqlType::new(D::Float8))
                }
            }
            ("date_trunc", [u, t, rest @ ..]) if u.is_string() || *u == D::Unknown => {
                if *t == D::Unknown {
                    return Err(ambiguous());
                }
                let ty = match (t, rest) {
                    (D::Timestamp, []) => SqlType::new(D::Timestamp),
                    // date_trunc(text, time) is date_trunc(text, interval).
                    (D::Interval | D::Time, []) => SqlType::new(D::Interval),
                    (D::Timestamptz | D::Date, [] | [D::Text | D::Varchar | D::Unknown]) => {
                        SqlType::new(D::Timestamptz)
                    }
                    _ => return Err(not_found()),
                };
                let mut it = std::mem::take(&mut args).into_iter();
                let (unit, source) = match (it.next(), it.next()) {
                    (Some(u), Some(s)) => (u, s),
                    _ => return Err(not_found()),
                };
                args.push(text_arg(self, unit)?);
                args.push(self.coerce(source, ty)?);
                if let Some(zone) = it.next() {
                    args.push(text_arg(self, zone)?);
                }
                (Func::DateTrunc, ty)
            }
            ("age", [a, b]) => {
                let target = match (a, b) {
                    (D::Unknown, D::Unknown) => return Err(ambiguous()),
                    (D::Timestamp, D::Timestamp | D::Unknown) | (D::Unknown, D::Timestamp) => {
                        D::Timestamp
                    }
                    (x, y)
                        if matches!(x, D::Date | D::Timestamp | D::Timestamptz | D::Unknown)
                            && matches!(
                                y,
                                D::Date | D::Timestamp | D::Timestamptz | D::Unknown
                            ) =>
                    {
                        D::Timestamptz
                    }
                    _ => return Err(not_found()),
                };
                let args2 = std::mem::take(&mut args)
                    .into_iter()
                    .map(|a| self.coerce(a, SqlType::new(target)))
                    .collect::<Result<Vec<_>>>()?;
                args = args2;
                (Func::Age, SqlType::new(D::Interval))
            }
            ("age", [a]) => {
                let target = match a {
                    D::Unknown => return Err(ambiguous()),
                    D::Timestamp => D::Timestamp,
                    D::Date | D::Timestamptz => D::Timestamptz,
                    _ => return Err(not_found()),
                };
                // age(x) is age(current_date, x): midnight today.
                let today = Expr::Cast {
                    expr: Box::new(Expr::Func {
                        func: Func::CurrentDate,
                        args: vec![],
                        ty: SqlType::new(D::Date),
                    }),
                    to: SqlType::new(target),
                    explicit: true,
                };
                let x = self.coerce(args.remove(0), SqlType::new(target))?;
                args = vec![today, x];
                (Func::Age, SqlType::new(D::Interval))
            }
            ("timezone", [z, t]) => {
                let zone_ty = match z {
                    D::Interval => D::Interval,
                    D::Text | D::Varchar | D::Bpchar | D::Unknown => D::Text,
                    _ => return Err(not_found()),
                };
                let (source, result) = match t {
                    D::Timestamp => (D::Timestamp, D::Timestamptz),
                    // time AT TIME ZONE goes through timetz (its implicit cast).
                    D::Time | D::TimeTz => (D::TimeTz, D::TimeTz),
                    D::Timestamptz | D::Date | D::Unknown => (D::Timestamptz, D::Timestamp),
                    _ => return Err(not_found()),
                };
                let mut it = std::mem::take(&mut args).into_iter();
                let (zone, ts) = match (it.next(), it.next()) {
                    (Some(z), Some(t)) => (z, t),
                    _ => return Err(not_found()),
                };
                args = vec![
                    self.coerce(zone, SqlType::new(zone_ty))?,
                    self.coerce(ts, SqlType::new(source))?,
                ];
                (Func::Timezone, SqlType::new(result))
            }
            _ => return Err(not_found()),
        };
        Ok(Expr::Func { func, args, ty })
    }

    /// A set-returning function in a select list: a column of the ProjectSet node the
    /// select will put under its projection (see `select::bind_select`).
    fn bind_select_srf(&mut self, name: &str, args: &[&A::Expr], scope: &Scope) -> Result<Expr> {
        let not_here = |what: String| {
            Err(Error::new("0A000", what).with_hint(
                "You might be able to move the set-returning function into a LATERAL FROM item.",
            ))
        };
        if self.in_agg_args {
            return not_here(
                "aggregate function calls cannot contain set-returning function calls".into(),
            );
        }
        if self.in_window_args {
            return not_here(
                "window function calls cannot contain set-returning function calls".into(),
            );
        }
        if let Some(place) = self.srf_forbidden {
            // The clause being bound, where window functions keep track of it.
            let place = match self.window_forbidden {
                Some(clause) if place == "this context" => clause,
                _ => place,
            };
            return match place {
                "CASE" | "COALESCE" => not_here(format!(
                    "set-returning functions are not allowed in {place}"
                )),
                "WHERE" | "HAVING" | "JOIN conditions" | "check constraints"
                | "index expressions" | "index predicates" => Err(Error::new(
                    "0A000",
                    format!("set-returning functions are not allowed in {place}"),
                )),
                // PostgreSQL allows these; kiln's select list does not reach them yet.
                _ => Err(Error::feature_not_supported(format!(
                    "set-returning functions in {place}"
                ))),
            };
        }
        self.srf_forbidden = Some("the arguments of a set-returning function");
        let mut bound = Vec::with_capacity(args.len());
        let mut failure = None;
        for a in args {
            match self.bind_expr(a, scope) {
                Ok(b) => bound.push(b),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        self.srf_forbidden = None;
        if let Some(e) = failure {
            return Err(e);
        }
        // A table that is no partition is its own only ancestor: the relation itself.
        let bound = if name == "pg_partition_ancestors" {
            let [arg] = <[Expr; 1]>::try_from(bound).map_err(|_| {
                Error::undefined_function("function pg_partition_ancestors does not exist")
            })?;
            let oid = self.coerce(arg, SqlType::new(DataType::Oid))?;
            vec![Expr::Func {
                func: Func::ArrayBuild,
                args: vec![oid],
                ty: SqlType::new(DataType::array_of(DataType::Oid).unwrap_or(DataType::Text)),
            }]
        } else {
            bound
        };
        let ts_unnest =
            name == "unnest" && matches!(bound.as_slice(), [b] if b.ty().ty == DataType::TsVector);
        let (func, args, ty) = if ts_unnest {
            let kind = crate::plan::logical::SetFn::TsUnnest;
            let fields: Vec<(&'static str, DataType)> = kind
                .columns()
                .iter()
                .map(|(n, t)| (n.unwrap_or("value"), *t))
                .collect();
            let ty = SqlType::with_typmod(DataType::Record, crate::types::record::bless(&fields));
            (TableFunc::Set(kind), bound, ty)
        } else if name == "unnest" || name == "pg_partition_ancestors" {
            let (arg, ty) = super::from::unnest_arg(bound)?;
            (TableFunc::Unnest, vec![arg], ty)
        } else if name == "generate_subscripts" {
            (
                TableFunc::GenerateSeries,
                self.subscripts_args(bound)?,
                INT4,
            )
        } else if let Some(kind) = crate::plan::logical::SetFn::by_name(name) {
            let args = self.set_fn_args(kind, bound)?;
            let columns = kind.columns();
            let ty = match columns.as_slice() {
                [(_, t)] => SqlType::new(*t),
                _ => {
                    let fields: Vec<(&'static str, DataType)> = columns
                        .iter()
                        .map(|(n, t)| (n.unwrap_or("value"), *t))
                        .collect();
                    SqlType::with_typmod(DataType::Record, crate::types::record::bless(&fields))
                }
            };
            (TableFunc::Set(kind), args, ty)
        } else if name == "_pg_expandarray" {
            let (arg, elem) = super::from::unnest_arg(bound)?;
            let shape = crate::types::record::bless(&[("x", elem.ty), ("n", DataType::Int4)]);
            (
                TableFunc::ExpandArray,
                vec![arg],
                SqlType::with_typmod(DataType::Record, shape),
            )
        } else {
            let (args, ty) = self.series_args(bound)?;
            (TableFunc::GenerateSeries, args, ty)
        };
        let rel = match self.srf_rel {
            Some(r) => r,
            None => {
                let r = self.new_rel();
                self.srf_rel = Some(r);
                r
            }
        };
        let index = self.srfs.len() as u32;
        self.srfs.push(SrfCall { func, args, ty });
        Ok(Expr::ColumnRef {
            id: ColumnId::new(rel, index),
            ty,
            name: name.to_string(),
        })
    }

    pub(super) fn bind_scalar_function(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr> {
        if name == crate::sql::parse::SUBSCRIPT_ASSIGN {
            return self.bind_subscript_assign(args);
        }
        if let Some(call) = self.bind_extension_function(name, &args)? {
            return Ok(call);
        }
        if let Some(call) = self.bind_enum_function(name, &args)? {
            return Ok(call);
        }
        if let Some(call) = self.bind_range_function(name, &args)? {
            return Ok(call);
        }
        if let Some(call) = self.bind_ts_function(name, &args)? {
            return Ok(call);
        }
        if is_array_function(name) {
            return self.bind_array_function(name, args);
        }
        if let Some(call) = self.bind_bytea_function(name, &args)? {
            return Ok(call);
        }
        if let Some(call) = self.bind_json_function(name, &args)? {
            return Ok(call);
        }
        if let Some(call) = self.bind_regexp_function(name, &args)? {
            return Ok(call);
        }
        if let Some(call) = self.bind_net_function(name, &args)? {
            return Ok(call);
        }
        if matches!(
            name,
            "extract" | "date_part" | "date_trunc" | "age" | "timezone"
        ) {
            return self.bind_datetime_function(name, args);
        }
        use DataType as D;
        let arg_types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let signature = args
            .iter()
            .map(|a| a.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        let not_found =
            || Error::undefined_function(format!("function {name}({signature}) does not exist"));
        let text_args = |b: &mut Binder, args: Vec<Expr>| -> Result<Vec<Expr>> {
            args.into_iter()
                .map(|a| match a.ty().ty {
                    D::Text => Ok(a),
                    // varchar reads as text unchanged; the implicit cast shows in the
                    // deparsed expression, as PostgreSQL's does (`lower((v)::text)`).
                    D::Unknown | D::Bpchar | D::Varchar => b.coerce(a, TEXT),
                    _ => Err(not_found()),
                })
                .collect()
        };
        // Functions whose signature the catalog declares (`sql::functions`).
        if let Some((info, params, result)) = crate::sql::functions::declared(name, args.len()) {
            let mut out = Vec::with_capacity(args.len());
            for (a, &p) in args.into_iter().zip(params) {
                let t = a.ty().ty;
                let Some(at) = crate::sql::functions::param_type(p, t) else {
                    return Err(not_found());
                };
                out.push(if t == at.ty { a } else { self.coerce(a, at)? });
            }
            return Ok(Expr::Func {
                func: info.func,
                args: out,
                ty: SqlType::new(result),
            });
        }
        let (func, args, ty) = match (name, arg_types.as_slice()) {
            (
                "has_table_privilege"
                | "has_schema_privilege"
                | "has_database_privilege"
                | "has_sequence_privilege"
                | "has_column_privilege"
                | "has_any_column_privilege"
                | "has_function_privilege"
                | "has_type_privilege"
                | "pg_has_role",
                _,
            ) if (2..=4).contains(&args.len()) => {
                let mut out = Vec::with_capacity(args.len());
                for a in args {
                    out.push(if a.ty().ty == D::Unknown {
                        self.coerce(a, TEXT)?
                    } else {
                        a
                    });
                }
                let of = crate::sql::expr::PrivilegeOf::ALL
                    .iter()
                    .find(|(_, n)| *n == name)
                    .map_or(crate::sql::expr::PrivilegeOf::Table, |(k, _)| *k);
                (Func::HasPrivilege(of), out, SqlType::new(D::Bool))
            }
            ("abs", [t]) if t.numeric_rank().is_some() || *t == D::Unknown => {
                let t = if *t == D::Unknown { D::Float8 } else { *t };
                let args = self.coerce_all(args, SqlType::new(t))?;
                (Func::Abs, args, SqlType::new(t))
            }
            ("trunc", [D::Unknown]) => {
                return Err(not_unique(
                    "function trunc(unknown) is not unique".to_string(),
                ));
            }
            ("round" | "trunc", [t]) if t.numeric_rank().is_some() || *t == D::Unknown => {
                let t = if *t == D::Numeric {
                    D::Numeric
                } else {
                    D::Float8
                };
                let args = self.coerce_all(args, SqlType::new(t))?;
                (
                    if name == "round" {
                        Func::Round
                    } else {
                        Func::Trunc
                    },
                    args,
                    SqlType::new(t),
                )
            }
            ("round" | "trunc", [t, s])
                if (t.numeric_rank().is_some() && *t != D::Float4 && *t != D::Float8
                    || *t == D::Unknown)
                    && (s.is_integer() || *s == D::Unknown) =>
            {
                let mut it = args.into_iter();
                let (a, b) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let args = vec![self.coerce(a, NUMERIC)?, self.coerce(b, INT4)?];
                (
                    if name == "round" {
                        Func::Round
                    } else {
                        Func::Trunc
                    },
                    args,
                    NUMERIC,
                )
            }
            ("ceil" | "ceiling" | "floor" | "sign", [t])
                if t.numeric_rank().is_some() || *t == D::Unknown =>
            {
                let t = if *t == D::Numeric {
                    D::Numeric
                } else {
                    D::Float8
                };
                let args = self.coerce_all(args, SqlType::new(t))?;
                (
                    match name {
                        "floor" => Func::Floor,
                        "sign" => Func::Sign,
                        _ => Func::Ceil,
                    },
                    args,
                    SqlType::new(t),
                )
            }
            ("sqrt" | "ln" | "exp" | "log" | "log10", [t])
                if t.numeric_rank().is_some() || *t == D::Unknown =>
            {
                let func = match name {
                    "sqrt" => Func::Sqrt,
                    "ln" => Func::Ln,
                    "exp" => Func::Exp,
                    _ => Func::Log10,
                };
                if *t == D::Numeric {
                    (func, args, NUMERIC)
                } else {
                    (func, self.coerce_all(args, FLOAT8)?, FLOAT8)
                }
            }
            ("log", [b, x])
                if (b.numeric_rank().is_some() || *b == D::Unknown)
                    && (x.numeric_rank().is_some() || *x == D::Unknown) =>
            {
                (Func::Log, self.coerce_all(args, NUMERIC)?, NUMERIC)
            }
            ("mod", [a, b]) if a.numeric_rank().is_some() && b.numeric_rank().is_some() => {
                let refs: Vec<&Expr> = args.iter().collect();
                let t = common_type(&refs, "mod")?;
                if matches!(t.ty, D::Float4 | D::Float8) {
                    return Err(not_found());
                }
                (Func::Mod, self.coerce_all(args, t)?, t)
            }
            ("power" | "pow", [a, b])
                if (a.numeric_rank().is_some() || *a == D::Unknown)
                    && (b.numeric_rank().is_some() || *b == D::Unknown) =>
            {
                if *a == D::Numeric || *b == D::Numeric {
                    (Func::Power, self.coerce_all(args, NUMERIC)?, NUMERIC)
                } else {
                    (Func::Power, self.coerce_all(args, FLOAT8)?, FLOAT8)
                }
            }
            ("random", []) => (Func::Random, args, FLOAT8),
            ("concat", _) => {
                let mut out = Vec::with_capacity(args.len());
                for a in args {
                    // concat formats its arguments with their output functions
                    // (a boolean is 't', not 'true' as in a cast).
                    out.push(if a.ty().ty == D::Unknown {
                        self.coerce(a, TEXT)?
                    } else {
                        a
                    });
                }
                (Func::Concat, out, TEXT)
            }
            ("coalesce" | "greatest" | "least", [_, ..]) => {
                let refs: Vec<&Expr> = args.iter().collect();
                let t = common_type(&refs, &name.to_uppercase())?;
                let t = if t.ty == D::Unknown { TEXT } else { t };
                let func = match name {
                    "coalesce" => Func::Coalesce,
                    "greatest" => Func::Greatest,
                    _ => Func::Least,
                };
                // GREATEST / LEAST of enums: of their places, mapped back to labels.
                if let (D::Enum(oid), Func::Greatest | Func::Least) = (t.ty, func) {
                    let places = self
                        .coerce_all(args, t)?
                        .into_iter()
                        .map(|a| super::types::enum_position(a, oid))
                        .collect();
                    let call = Expr::Func {
                        func,
                        args: places,
                        ty: FLOAT4,
                    };
                    return Ok(super::types::enum_label_at(call, oid));
                }
                (func, self.coerce_all(args, t)?, t)
            }
            ("nullif", [_, _]) => {
                let mut it = args.into_iter();
                let (a, b) = (
                    it.next().ok_or_else(not_found)?,
                    it.next().ok_or_else(not_found)?,
                );
                let (a, b) = self.unify_comparison(a, b, BinaryOp::Eq)?;
                let t = a.ty();
                (Func::Nullif, vec![a, b], t)
            }
            (
                "now"
                | "current_timestamp"
                | "transaction_timestamp"
                | "statement_timestamp"
                | "localtimestamp",
                [],
            ) => {
                if name == "localtimestamp" {
                    return Ok(Expr::Cast {
                        expr: Box::new(Expr::Func {
                            func: Func::Now,
                            args: vec![],
                            ty: SqlType::new(D::Timestamptz),
                        }),
                        to: SqlType::new(D::Timestamp),
                        explicit: true,
                    });
                }
                (Func::Now, vec![], SqlType::new(D::Timestamptz))
            }
            ("current_timestamp" | "localtimestamp", [D::Int4 | D::Int2 | D::Int8]) => {
                // CURRENT_TIMESTAMP(p) / LOCALTIMESTAMP(p): now() to p digits.
                let p = match args.first() {
                    Some(Expr::Literal {
                        value: Value::Int4(p),
                        ..
                    }) if *p >= 0 => (*p).min(crate::types::MAX_SECONDS_PRECISION),
                    _ => return Err(not_found()),
                };
                let base = if name == "localtimestamp" {
                    D::Timestamp
                } else {
                    D::Timestamptz
                };
                return Ok(Expr::Cast {
                    expr: Box::new(Expr::Func {
                        func: Func::Now,
                        args: vec![],
                        ty: SqlType::new(D::Timestamptz),
                    }),
                    to: SqlType::with_typmod(base, p),
                    explicit: true,
                });
            }
            ("current_time" | "localtime", [] | [D::Int4 | D::Int2 | D::Int8]) => {
                // CURRENT_TIME (timetz) / LOCALTIME (time): now() cast, to p digits.
                let typmod = match args.first() {
                    None => -1,
                    Some(Expr::Literal {
                        value: Value::Int4(p),
                        ..
                    }) if *p >= 0 => (*p).min(crate::types::MAX_SECONDS_PRECISION),
                    _ => return Err(not_found()),
                };
                let base = if name == "localtime" {
                    D::Time
                } else {
                    D::TimeTz
                };
                return Ok(Expr::Cast {
                    expr: Box::new(Expr::Func {
                        func: Func::Now,
                        args: vec![],
                        ty: SqlType::new(D::Timestamptz),
                    }),
                    to: SqlType::with_typmod(base, typmod),
                    explicit: true,
                });
            }
            ("to_char", [t, f]) if f.is_string() || *f == D::Unknown => {
                let source = match t {
                    D::Timestamp | D::Timestamptz | D::Interval => *t,
                    // date reads as timestamptz (the preferred type), time as interval.
                    D::Date => D::Timestamptz,
                    D::Time => D::Interval,
                    D::Int2 | D::Int4 => D::Int4,
                    D::Int8 | D::Float4 | D::Float8 | D::Numeric => *t,
                    D::Unknown => {
                        return Err(not_unique(format!(
                            "function to_char(unknown, {}) is not unique",
                            f.name()
                        ))
                        .with_hint("Could not choose a best candidate function. You might need to add explicit type casts."));
                    }
                    _ => return Err(not_found()),
                };
                let mut it = args.into_iter();
                let (Some(v), Some(fmt)) = (it.next(), it.next()) else {
                    return Err(not_found());
                };
                let v = self.coerce(v, SqlType::new(source))?;
                let fmt = self.coerce(fmt, TEXT)?;
                (Func::ToChar, vec![v, fmt], TEXT)
            }
            ("to_date" | "to_timestamp", [a, b]) if is_text_like(*a) && is_text_like(*b) => {
                let args = args
                    .into_iter()
                    .map(|a| self.coerce(a, TEXT))
                    .collect::<Result<Vec<_>>>()?;
                if name == "to_date" {
                    (Func::ToDate, args, SqlType::new(D::Date))
                } else {
                    (Func::ToTimestamp, args, SqlType::new(D::Timestamptz))
                }
            }
            ("to_number", [a, b]) if is_text_like(*a) && is_text_like(*b) => {
                let args = args
                    .into_iter()
                    .map(|a| self.coerce(a, TEXT))
                    .collect::<Result<Vec<_>>>()?;
                (Func::ToNumber, args, NUMERIC)
            }
            ("to_timestamp", [t]) if t.numeric_rank().is_some() || *t == D::Unknown => {
                let args = args
                    .into_iter()
                    .map(|a| self.coerce(a, SqlType::new(D::Float8)))
                    .collect::<Result<Vec<_>>>()?;
                (Func::ToTimestampEpoch, args, SqlType::new(D::Timestamptz))
            }
            ("make_date", [_, _, _]) => {
                let args = args
                    .into_iter()
                    .map(|a| self.coerce(a, INT4))
                    .collect::<Result<Vec<_>>>()?;
                (Func::MakeDate, args, SqlType::new(D::Date))
            }
            ("make_time", [_, _, _]) => {
                let mut it = args.into_iter();
                let mut next = |t: SqlType| -> Result<Expr> {
                    let a = it
                        .next()
                        .ok_or_else(|| Error::internal("make_time arity"))?;
                    self.coerce(a, t)
                };
                let h = next(INT4)?;
                let m = next(INT4)?;
                let s = next(SqlType::new(D::Float8))?;
                (Func::MakeTime, vec![h, m, s], SqlType::new(D::Time))
            }
            // make_interval(years, months, weeks, days, hours, mins, secs), each
            // defaulting to zero.
            ("make_interval", _) if args.len() <= 7 => {
                let n = args.len();
                let mut bound = Vec::with_capacity(7);
                for (i, a) in args.into_iter().enumerate() {
                    bound.push(if i == 6 {
                        self.coerce(a, SqlType::new(D::Float8))?
                    } else {
                        self.coerce(a, INT4)?
                    });
                }
                for i in n..7 {
                    bound.push(if i == 6 {
                        Expr::literal(Value::Float8(0.0), SqlType::new(D::Float8))
                    } else {
                        Expr::literal(Value::Int4(0), INT4)
                    });
                }
                (Func::MakeInterval, bound, SqlType::new(D::Interval))
            }
            ("current_date", []) => (Func::CurrentDate, vec![], SqlType::new(D::Date)),
            ("version", []) => (Func::Version, vec![], TEXT),
            ("current_database" | "current_catalog", []) => (Func::CurrentDatabase, vec![], TEXT),
            ("current_user" | "user" | "current_role", []) => (Func::CurrentUser, vec![], TEXT),
            ("session_user", []) => (Func::SessionUser, vec![], TEXT),
            ("current_setting", [_]) => (Func::CurrentSetting, text_args(self, args)?, TEXT),
            ("format", [_, ..]) => {
                // format(text, VARIADIC "any"): the arguments keep their types.
                let mut it = args.into_iter();
                let mut bound = Vec::new();
                if let Some(f) = it.next() {
                    if !matches!(
                        f.ty().ty,
                        D::Text | D::Unknown | D::Varchar | D::Bpchar | D::Name
                    ) {
                        return Err(Error::undefined_function(format!(
                            "function format({}) does not exist",
                            arg_types
                                .iter()
                                .map(|t| t.name())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                        .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."));
                    }
                    bound.push(self.coerce(f, TEXT)?);
                }
                for a in it {
                    bound.push(if a.ty().ty == D::Unknown {
                        self.coerce(a, TEXT)?
                    } else {
                        a
                    });
                }
                (Func::Format, bound, TEXT)
            }
            ("quote_literal" | "quote_nullable", [_]) => {
                // anyelement: any value, as its text.
                let args = args
                    .into_iter()
                    .map(|a| self.coerce_with(a, TEXT, true))
                    .collect::<Result<Vec<_>>>()?;
                let func = if name == "quote_literal" {
                    Func::QuoteLiteral
                } else {
                    Func::QuoteNullable
                };
                (func, args, TEXT)
            }
            ("json_build_object" | "json_build_array", _) => {
                if name == "json_build_object" && args.len() % 2 == 1 {
                    return Err(Error::invalid_parameter(
                        "argument list must have even number of elements",
                    )
                    .with_hint(
                        "The arguments of json_build_object() must consist of alternating keys and values.",
                    ));
                }
                let args = args
                    .into_iter()
                    .map(|a| match a.ty().ty {
                        D::Unknown => self.coerce(a, TEXT),
                        _ => Ok(a),
                    })
                    .collect::<Result<Vec<_>>>()?;
                let func = if name == "json_build_object" {
                    Func::JsonBuildObject
                } else {
                    Func::JsonBuildArray
                };
                (func, args, SqlType::new(D::Json))
            }
            (
                "to_regclass" | "to_regtype" | "to_regproc" | "to_regnamespace" | "to_regrole",
                [_],
            ) => {
                let t = match name {
                    "to_regclass" => D::RegClass,
                    "to_regtype" => D::RegType,
                    "to_regproc" => D::RegProc,
                    "to_regnamespace" => D::RegNamespace,
                    _ => D::RegRole,
                };
                (Func::ToReg(t), text_args(self, args)?, SqlType::new(t))
            }
            ("current_setting", [_, _]) => {
                let mut args = args.into_iter();
                let (name, missing_ok) = match (args.next(), args.next()) {
                    (Some(n), Some(m)) => (n, m),
                    _ => return Err(Error::internal("current_setting arguments")),
                };
                let name = text_args(self, vec![name])?;
                let missing_ok = match missing_ok.ty().ty {
                    D::Bool => missing_ok,
                    D::Unknown => self.coerce(missing_ok, SqlType::new(D::Bool))?,
                    _ => return Err(not_found()),
                };
                (
                    Func::CurrentSetting,
                    name.into_iter().chain([missing_ok]).collect(),
                    TEXT,
                )
            }
            _ => return Err(not_found()),
        };
        Ok(Expr::Func { func, args, ty })
    }
}

impl Binder<'_> {
    /// The bytea functions, and the bytea forms of functions text has too (`length`,
    /// `substring`, `md5`, `btrim`…): None when `name` with these arguments is not one.
    fn bind_bytea_function(&mut self, name: &str, args: &[Expr]) -> Result<Option<Expr>> {
        use DataType as D;
        let types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let first_bytea = types.first() == Some(&D::Bytea);
        let bytea = SqlType::new(D::Bytea);
        let (func, params, result): (Func, &[SqlType], SqlType) = match (name, types.as_slice()) {
            ("length" | "octet_length", [D::Bytea]) => (Func::ByteaLength, &[], INT4),
            ("length", [D::Bytea, _]) => (Func::ByteaEncodedLength, &[TEXT], INT4),
            ("bit_length", [D::Bytea]) => (Func::ByteaBitLength, &[], INT4),
            ("substr" | "substring", [D::Bytea, _] | [D::Bytea, _, _]) => {
                (Func::ByteaSubstr, &[INT4, INT4], bytea)
            }
            ("strpos", [D::Bytea, D::Bytea | D::Unknown]) => (Func::ByteaPosition, &[], INT4),
            ("get_byte", [D::Bytea, _]) => (Func::GetByte, &[INT4], INT4),
            ("set_byte", [D::Bytea, _, _]) => (Func::SetByte, &[INT4, INT4], bytea),
            ("get_bit", [D::Bytea, _]) => (Func::GetBit, &[INT8], INT4),
            ("set_bit", [D::Bytea, _, _]) => (Func::SetBit, &[INT8, INT4], bytea),
            ("encode", [D::Bytea | D::Unknown, _]) => (Func::Encode, &[TEXT], TEXT),
            ("decode", [_, _]) => (Func::Decode, &[TEXT, TEXT], bytea),
            ("convert_to", [_, _]) => (Func::ConvertTo, &[TEXT, TEXT], bytea),
            ("convert_from", [D::Bytea | D::Unknown, _]) => (Func::ConvertFrom, &[TEXT], TEXT),
            ("convert", [D::Bytea | D::Unknown, _, _]) => (Func::Convert, &[TEXT, TEXT], bytea),
            ("byteacmp", [D::Bytea | D::Unknown, D::Bytea | D::Unknown]) => {
                (Func::BytesCmp, &[bytea], INT4)
            }
            ("uuid_cmp", [D::Uuid | D::Unknown, D::Uuid | D::Unknown]) => {
                let uuid = SqlType::new(D::Uuid);
                let args = args
                    .iter()
                    .map(|a| self.coerce(a.clone(), uuid))
                    .collect::<Result<Vec<_>>>()?;
                return Ok(Some(Expr::Func {
                    func: Func::BytesCmp,
                    args,
                    ty: INT4,
                }));
            }
            ("md5", [D::Bytea]) => (Func::ByteaMd5, &[], TEXT),
            ("sha224" | "sha256" | "sha384" | "sha512", [D::Bytea | D::Unknown]) => {
                let f = match name {
                    "sha224" => Func::Sha224,
                    "sha256" => Func::Sha256,
                    "sha384" => Func::Sha384,
                    _ => Func::Sha512,
                };
                (f, &[], bytea)
            }
            (
                "overlay",
                [D::Bytea, D::Bytea | D::Unknown, _] | [D::Bytea, D::Bytea | D::Unknown, _, _],
            ) => (Func::Overlay(true), &[INT4, INT4], bytea),
            ("overlay", [a, b, _] | [a, b, _, _])
                if (a.is_string() || *a == D::Unknown) && (b.is_string() || *b == D::Unknown) =>
            {
                (Func::Overlay(false), &[INT4, INT4], TEXT)
            }
            ("btrim" | "ltrim" | "rtrim", [D::Bytea, D::Bytea | D::Unknown]) => {
                let f = match name {
                    "btrim" => Func::ByteaTrim(0),
                    "ltrim" => Func::ByteaTrim(1),
                    _ => Func::ByteaTrim(2),
                };
                (f, &[], bytea)
            }
            _ => return Ok(None),
        };
        // The first argument is the bytea (or text, for decode and convert_to); the
        // others take `params`' types.
        let mut out = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            let target = if k == 0 {
                match func {
                    Func::Decode | Func::ConvertTo | Func::Overlay(false) => TEXT,
                    _ => bytea,
                }
            } else {
                match (func, k) {
                    (Func::ByteaPosition | Func::ByteaTrim(_) | Func::Overlay(true), 1) => bytea,
                    (Func::Overlay(false), 1) => TEXT,
                    (Func::Overlay(_), _) => INT4,
                    _ => params.get(k - 1).copied().unwrap_or(TEXT),
                }
            };
            let t = a.ty().ty;
            let fits = t == target.ty
                || t == D::Unknown
                || (target.ty == D::Text && t.is_string())
                || (target.ty.is_integer() && t.is_integer());
            if !fits {
                return Ok(None);
            }
            out.push(if t == target.ty {
                a.clone()
            } else {
                self.coerce(a.clone(), target)?
            });
        }
        let _ = first_bytea;
        Ok(Some(Expr::Func {
            func,
            args: out,
            ty: result,
        }))
    }
}

/// PostgreSQL's named notation (`vars => '{}'`, `silent := true`) for the functions
/// that declare argument names kiln knows (the jsonb_path_* functions): the arguments
/// in declaration order, a gap filled with its default. None when no argument is
/// named.
pub(super) fn named_arguments(name: &str, args: &[A::FunctionArg]) -> Result<Option<Vec<A::Expr>>> {
    // `name := value` reaches here as an assignment expression.
    let assignment = |a: &A::FunctionArg| match a {
        A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(A::Expr::BinaryOp {
            left,
            op: A::BinaryOperator::Assignment,
            right,
        })) => match &**left {
            A::Expr::Identifier(name) => Some((name.clone(), (**right).clone())),
            _ => None,
        },
        _ => None,
    };
    let is_named =
        |a: &A::FunctionArg| !matches!(a, A::FunctionArg::Unnamed(_)) || assignment(a).is_some();
    if !args.iter().any(is_named) {
        return Ok(None);
    }
    let path_function = name.starts_with("jsonb_path_");
    const PATH_NAMES: &[&str] = &["target", "path", "vars", "silent"];
    const INTERVAL_NAMES: &[&str] = &["years", "months", "weeks", "days", "hours", "mins", "secs"];
    let names: &[&str] = if path_function {
        PATH_NAMES
    } else if name == "make_interval" {
        INTERVAL_NAMES
    } else {
        return Err(Error::feature_not_supported("named function arguments"));
    };
    #[allow(non_snake_case)]
    let NAMES = names;
    let mut slots: Vec<Option<A::Expr>> = vec![None; names.len()];
    let mut seen_named = false;
    for (i, a) in args.iter().enumerate() {
        let assigned = assignment(a);
        let (slot, e) = match a {
            _ if assigned.is_some() => {
                seen_named = true;
                let Some((arg_name, e)) = &assigned else {
                    continue;
                };
                let n = ident_name(arg_name);
                let Some(slot) = NAMES.iter().position(|x| *x == n) else {
                    return Err(Error::undefined_function(format!(
                        "function {name} with an argument named \"{n}\" does not exist"
                    )));
                };
                (slot, e)
            }
            A::FunctionArg::Unnamed(A::FunctionArgExpr::Expr(e)) => {
                if seen_named {
                    return Err(Error::syntax(
                        "positional argument cannot follow named argument",
                    ));
                }
                (i, e)
            }
            A::FunctionArg::Named {
                name: arg_name,
                arg: A::FunctionArgExpr::Expr(e),
                ..
            }
            | A::FunctionArg::ExprNamed {
                name: A::Expr::Identifier(arg_name),
                arg: A::FunctionArgExpr::Expr(e),
                ..
            } => {
                seen_named = true;
                let n = ident_name(arg_name);
                let Some(slot) = NAMES.iter().position(|x| *x == n) else {
                    return Err(Error::undefined_function(format!(
                        "function {name} with an argument named \"{n}\" does not exist"
                    )));
                };
                (slot, e)
            }
            _ => return Err(Error::feature_not_supported("this function argument")),
        };
        let Some(place) = slots.get_mut(slot) else {
            return Err(Error::undefined_function(format!(
                "function {name} with {} arguments does not exist",
                args.len()
            )));
        };
        if place.is_some() {
            return Err(Error::syntax(format!(
                "argument name \"{}\" used more than once",
                NAMES[slot]
            )));
        }
        *place = Some(e.clone());
    }
    let last = slots.iter().rposition(Option::is_some).unwrap_or(0);
    let mut out = Vec::with_capacity(last + 1);
    for (i, s) in slots.into_iter().take(last + 1).enumerate() {
        out.push(match (s, i) {
            (Some(e), _) => e,
            // make_interval's arguments default to zero.
            (None, _) if !path_function => {
                A::Expr::Value(A::Value::Number("0".into(), false).with_empty_span())
            }
            (None, 2) => {
                A::Expr::Value(A::Value::SingleQuotedString("{}".into()).with_empty_span())
            }
            (None, 3) => A::Expr::Value(A::Value::Boolean(false).with_empty_span()),
            _ => {
                return Err(Error::undefined_function(format!(
                    "function {name} requires its argument \"{}\"",
                    NAMES[i]
                )));
            }
        });
    }
    Ok(Some(out))
}

/// A string type or an untyped literal.
fn is_text_like(t: DataType) -> bool {
    t.is_string() || t == DataType::Unknown
}

impl Binder<'_> {
    /// Arguments that are all text (string types and untyped literals), `min` to
    /// `max` of them.
    pub(super) fn regexp_text_args(
        &mut self,
        name: &str,
        args: Vec<Expr>,
        min: usize,
        max: usize,
    ) -> Result<Vec<Expr>> {
        let fits = |e: &Expr| e.ty().ty.is_string() || e.ty().ty == DataType::Unknown;
        if !(min..=max).contains(&args.len()) || !args.iter().all(fits) {
            return Err(self.regexp_not_found(name, &args));
        }
        args.into_iter().map(|a| self.coerce(a, TEXT)).collect()
    }

    fn regexp_not_found(&self, name: &str, args: &[Expr]) -> Error {
        let signature = args
            .iter()
            .map(|a| a.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        Error::undefined_function(format!("function {name}({signature}) does not exist"))
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
    }

    /// The regular-expression functions (`exec::regexp`): None when `name` with these
    /// arguments is not one of them.
    fn bind_regexp_function(&mut self, name: &str, args: &[Expr]) -> Result<Option<Expr>> {
        use crate::sql::expr::RegexpFn as R;
        use DataType as D;
        let text_array = SqlType::new(D::array_of(D::Text).unwrap_or(D::Text));
        let is_text = |t: D| t.is_string() || t == D::Unknown;
        let is_int = |t: D| matches!(t, D::Int2 | D::Int4 | D::Unknown);
        let types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        // Each argument's kind: 't' text, 'i' integer.
        let shape = |kinds: &str| -> bool {
            kinds.len() == types.len()
                && kinds.chars().zip(&types).all(|(k, &t)| match k {
                    't' => is_text(t),
                    _ => is_int(t),
                })
        };
        let (kind, kinds, ty): (R, &str, SqlType) = match name {
            "regexp_match" | "regexp_split_to_array" | "regexp_like" => {
                let kind = match name {
                    "regexp_match" => R::Match,
                    "regexp_like" => R::Like,
                    _ => R::SplitToArray,
                };
                let ty = if kind == R::Like { BOOL } else { text_array };
                let kinds = if types.len() == 3 { "ttt" } else { "tt" };
                (kind, kinds, ty)
            }
            "regexp_replace" => {
                // (src, pat, repl [, flags]) or (src, pat, repl, start [, N [, flags]]):
                // a text fourth argument is flags.
                let kinds = match types.len() {
                    3 => "ttt",
                    4 if types[3] != D::Unknown && !is_text(types[3]) => "ttti",
                    4 => "tttt",
                    5 => "tttii",
                    _ => "tttiit",
                };
                (R::Replace, kinds, TEXT)
            }
            "regexp_count" => (R::Count, &"ttit"[..types.len().clamp(2, 4)], INT4),
            "regexp_instr" => (R::Instr, &"ttiiiti"[..types.len().clamp(2, 7)], INT4),
            "regexp_substr" => (R::Substr, &"ttiiti"[..types.len().clamp(2, 6)], TEXT),
            "substring" if types.len() == 2 && is_text(types[0]) && is_text(types[1]) => {
                (R::Substring, "tt", TEXT)
            }
            "substring" if types.len() == 3 && types.iter().all(|&t| is_text(t)) => {
                (R::SimilarSubstring, "ttt", TEXT)
            }
            _ => return Ok(None),
        };
        if !shape(kinds) {
            return Err(self.regexp_not_found(name, args));
        }
        let mut bound = Vec::with_capacity(args.len());
        for (a, k) in args.iter().cloned().zip(kinds.chars()) {
            bound.push(self.coerce(a, if k == 't' { TEXT } else { INT4 })?);
        }
        Ok(Some(Expr::Func {
            func: Func::Regexp(kind),
            args: bound,
            ty,
        }))
    }
}

impl Binder<'_> {
    /// The network types' functions: None when `name` with these arguments is not
    /// one of them.
    fn bind_net_function(&mut self, name: &str, args: &[Expr]) -> Result<Option<Expr>> {
        use crate::sql::expr::NetFn as N;
        use DataType as D;
        let types: Vec<D> = args.iter().map(|a| a.ty().ty).collect();
        let first = types.first().copied();
        let net_arg = matches!(first, Some(D::Inet | D::Cidr));
        let mac_arg = matches!(first, Some(D::MacAddr | D::MacAddr8));
        let inet = SqlType::new(D::Inet);
        let cidr = SqlType::new(D::Cidr);
        // cidr(x), inet(x), macaddr(x), macaddr8(x): casts written as calls.
        if let ("inet" | "cidr" | "macaddr" | "macaddr8", [arg]) = (name, args) {
            let to = match name {
                "inet" => D::Inet,
                "cidr" => D::Cidr,
                "macaddr" => D::MacAddr,
                _ => D::MacAddr8,
            };
            return Ok(Some(self.explicit_cast(arg.clone(), SqlType::new(to))?));
        }
        let (kind, params, ty): (N, Vec<SqlType>, SqlType) = match (name, types.len()) {
            ("trunc", 1) if mac_arg => {
                let t = SqlType::new(first.unwrap_or(D::MacAddr));
                (N::Trunc, vec![t], t)
            }
            ("macaddr8_set7bit", 1) => {
                let t = SqlType::new(D::MacAddr8);
                (N::Set7Bit, vec![t], t)
            }
            _ if !(net_arg || first == Some(D::Unknown) && is_net_function(name)) => {
                return Ok(None);
            }
            ("abbrev", 1) => {
                let t = if first == Some(D::Cidr) { cidr } else { inet };
                (N::Abbrev, vec![t], TEXT)
            }
            ("broadcast", 1) => (N::Broadcast, vec![inet], inet),
            ("family", 1) => (N::Family, vec![inet], INT4),
            ("host", 1) => (N::Host, vec![inet], TEXT),
            ("hostmask", 1) => (N::HostMask, vec![inet], inet),
            ("netmask", 1) => (N::NetMask, vec![inet], inet),
            ("masklen", 1) => (N::MaskLen, vec![inet], INT4),
            ("network", 1) => (N::Network, vec![inet], cidr),
            ("text", 1) => (N::Text, vec![inet], TEXT),
            ("inet_merge", 2) => (N::Merge, vec![inet, inet], cidr),
            ("inet_same_family", 2) => (N::SameFamily, vec![inet, inet], BOOL),
            ("set_masklen", 2) => {
                let t = if first == Some(D::Cidr) { cidr } else { inet };
                (N::SetMaskLen, vec![t, INT4], t)
            }
            _ => return Ok(None),
        };
        let mut bound = Vec::with_capacity(args.len());
        for (a, p) in args.iter().cloned().zip(params) {
            bound.push(self.coerce(a, p)?);
        }
        Ok(Some(Expr::Func {
            func: Func::Net(kind),
            args: bound,
            ty,
        }))
    }
}

fn is_net_function(name: &str) -> bool {
    matches!(
        name,
        "abbrev"
            | "broadcast"
            | "family"
            | "host"
            | "hostmask"
            | "netmask"
            | "masklen"
            | "network"
            | "inet_merge"
            | "inet_same_family"
            | "set_masklen"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn kiln_functions_are_sorted_postgres_builtins() {
        assert!(KILN_FUNCTIONS.windows(2).all(|w| w[0] < w[1]));
        let catalog = crate::sql::functions::FUNCTIONS
            .iter()
            .flat_map(|f| f.names.iter());
        for name in KILN_FUNCTIONS.iter().chain(catalog) {
            // Internal functions (the binder's own calls) have names no SQL can write.
            if name.contains(' ') {
                continue;
            }
            // Every name kiln binds is one PostgreSQL has (sqlparser's keyword forms
            // included, which pg_proc lists as functions too, except these).
            let keyword_only = matches!(
                *name,
                "ceiling"
                    | "current_catalog"
                    | "current_date"
                    | "current_role"
                    | "current_timestamp"
                    | "current_user"
                    | "localtimestamp"
                    | "current_time"
                    | "localtime"
                    | "session_user"
                    | "user"
                    | "coalesce"
                    | "greatest"
                    | "least"
                    | "nullif"
                    | "extract"
                    | "trim"
                    | "pg_typeof"
            );
            let extension = super::extensions::function_extension(name).is_some();
            assert!(
                keyword_only || extension || crate::sql::pg_functions::is_builtin(name),
                "{name}"
            );
        }
    }
}
