//! Arrays in expressions: `ARRAY[…]`, subscripts and slices, `x op ANY/ALL (array)`,
//! the array operators (`||`, `@>`, `<@`, `&&`) and functions, typed as PostgreSQL
//! types them (an untyped literal beside an array is read as an array).

use super::*;

/// Array functions kiln binds here, by name.
pub(super) fn is_array_function(name: &str) -> bool {
    matches!(
        name,
        "array_length"
            | "array_lower"
            | "array_upper"
            | "array_ndims"
            | "array_dims"
            | "cardinality"
            | "array_to_string"
            | "string_to_array"
            | "array_append"
            | "array_prepend"
            | "array_cat"
            | "array_position"
            | "array_remove"
    )
}

fn func_expr(func: Func, args: Vec<Expr>, ty: SqlType) -> Expr {
    Expr::Func { func, args, ty }
}

/// PostgreSQL's message for a polymorphic argument of unknown type.
fn polymorphic_unknown() -> Error {
    Error::datatype_mismatch("could not determine polymorphic type because input has type unknown")
}

impl Binder<'_> {
    /// `ARRAY[e1, …]`; bracket lists inside it (`ARRAY[[1,2],[3,4]]`) are sub-arrays.
    pub(super) fn bind_array(&mut self, elems: &[A::Expr], scope: &Scope) -> Result<Expr> {
        if elems.is_empty() {
            return Err(
                Error::new("42P18", "cannot determine type of empty array").with_hint(
                    "Explicitly cast to the desired type, for example ARRAY[]::integer[].",
                ),
            );
        }
        let mut bound = Vec::with_capacity(elems.len());
        for e in elems {
            bound.push(match e {
                A::Expr::Array(inner) if !inner.named => self.bind_array(&inner.elem, scope)?,
                other => self.bind_expr(other, scope)?,
            });
        }
        // A mismatch is reported at the first element that does not fit.
        let mut common = UNKNOWN;
        for k in 0..bound.len() {
            let refs: Vec<&Expr> = bound[..=k].iter().collect();
            common = common_type(&refs, "ARRAY").map_err(|e| self.locate(e, &elems[k]))?;
        }
        let elem = if common.ty == DataType::Unknown {
            TEXT
        } else {
            common
        };
        let ty = if elem.ty.is_array() {
            elem
        } else {
            let Some(array) = DataType::array_of(elem.ty) else {
                return Err(Error::feature_not_supported(format!(
                    "arrays of type {}",
                    elem.display_name()
                )));
            };
            SqlType::with_typmod(array, elem.typmod)
        };
        let mut args = Vec::with_capacity(bound.len());
        for (b, ast) in bound.into_iter().zip(elems) {
            args.push(self.coerce(b, elem).map_err(|e| self.locate(e, ast))?);
        }
        Ok(func_expr(Func::ArrayBuild, args, ty))
    }

    /// `ARRAY[]::t[]` and other casts of a bracket list: an empty list takes the type.
    pub(super) fn bind_array_cast(
        &mut self,
        elems: &[A::Expr],
        to: SqlType,
        scope: &Scope,
    ) -> Result<Expr> {
        if elems.is_empty() && to.ty.is_array() {
            let elem = to.ty.elem().unwrap_or(DataType::Unknown);
            let value = Value::Array(Box::new(crate::types::array::from_values(elem, &[])));
            return Ok(Expr::literal(value, to));
        }
        // Elements are cast to the element type one by one, as PostgreSQL's
        // transformArrayExpr does, so that an error points at its element.
        if let Some(elem) = to.ty.elem()
            && !elems.iter().any(|e| matches!(e, A::Expr::Array(_)))
        {
            let elem = SqlType::with_typmod(elem, to.typmod);
            let mut args = Vec::with_capacity(elems.len());
            for ast in elems {
                let b = self.bind_expr(ast, scope)?;
                if b.ty().ty.is_array() {
                    let e = self.bind_array(elems, scope)?;
                    return self.explicit_cast(e, to);
                }
                args.push(
                    self.explicit_cast(b, elem)
                        .map_err(|e| self.locate(e, ast))?,
                );
            }
            return Ok(func_expr(Func::ArrayBuild, args, to));
        }
        let e = self.bind_array(elems, scope)?;
        self.explicit_cast(e, to)
    }

    /// `ROW(a, b, …)` or `(a, b, …)` as a value: an anonymous record.
    pub(super) fn bind_row(&mut self, items: &[A::Expr], scope: &Scope) -> Result<Expr> {
        let mut args = Vec::with_capacity(items.len());
        for e in items {
            let b = self.bind_expr(e, scope)?;
            args.push(match b.ty().ty {
                DataType::Unknown => self.coerce(b, TEXT)?,
                _ => b,
            });
        }
        Ok(func_expr(
            Func::RowBuild,
            args,
            SqlType::new(DataType::Record),
        ))
    }

    /// `root[i]`, `root[i][j]`, `root[lo:hi]`, `t.col[i]`.
    pub(super) fn bind_subscripts(
        &mut self,
        root: &A::Expr,
        chain: &[A::AccessExpr],
        scope: &Scope,
    ) -> Result<Expr> {
        if matches!(root, A::Expr::Array(_)) {
            return Err(Error::syntax("syntax error at or near \"[\""));
        }
        // Leading `.name` accesses continue a column reference (t.a[1]).
        let mut idents = match root {
            A::Expr::Identifier(id) => vec![id.clone()],
            A::Expr::CompoundIdentifier(ids) => ids.clone(),
            _ => Vec::new(),
        };
        let mut rest = chain;
        if !idents.is_empty() {
            while let Some((A::AccessExpr::Dot(A::Expr::Identifier(id)), tail)) = rest.split_first()
            {
                idents.push(id.clone());
                rest = tail;
            }
        }
        let base = if idents.len() > 1 {
            self.bind_expr(&A::Expr::CompoundIdentifier(idents), scope)?
        } else {
            self.bind_expr(root, scope)?
        };
        if rest.is_empty() {
            return Ok(base);
        }
        // `(ROW(a, b)).f2`: a field of a record built right there.
        if let [A::AccessExpr::Dot(A::Expr::Identifier(field))] = rest {
            let name = ident_name(field);
            return match base {
                Expr::Func {
                    func: Func::RowBuild,
                    args,
                    ..
                } => {
                    let k = name
                        .strip_prefix('f')
                        .and_then(|n| n.parse::<usize>().ok())
                        .filter(|&k| k >= 1 && k <= args.len());
                    match k {
                        Some(k) => Ok(args
                            .into_iter()
                            .nth(k - 1)
                            .unwrap_or(Expr::Unused { ty: TEXT })),
                        None => Err(Error::new(
                            "42703",
                            format!("could not identify column \"{name}\" in record data type"),
                        )),
                    }
                }
                other if other.ty().ty == DataType::Record => {
                    match crate::types::record::shape(other.ty().typmod) {
                        Some(fields) => match fields.iter().position(|(n, _)| *n == name) {
                            Some(k) => Ok(func_expr(
                                Func::RecordField(k as u16),
                                vec![other],
                                SqlType::new(fields[k].1),
                            )),
                            None => Err(Error::new(
                                "42703",
                                format!("could not identify column \"{name}\" in record data type"),
                            )),
                        },
                        None => Err(Error::feature_not_supported(
                            "field selection from a record of unknown shape",
                        )),
                    }
                }
                other => Err(Error::new(
                    "42809",
                    format!(
                        "column notation .{name} applied to type {}, which is not a composite type",
                        other.ty().display_name()
                    ),
                )),
            };
        }
        let ty = base.ty();
        // jsonb's subscripts: `doc['key']` and `doc[n]` are `->` step by step.
        if ty.ty == DataType::Jsonb {
            let mut cur = base;
            for a in rest {
                match a {
                    A::AccessExpr::Subscript(A::Subscript::Index { index }) => {
                        let b = self.bind_expr(index, scope)?;
                        let b = if b.ty().ty == DataType::Unknown {
                            self.coerce(b, TEXT)?
                        } else {
                            b
                        };
                        cur = self.bind_binary_op(cur, &A::BinaryOperator::Arrow, b)?;
                    }
                    A::AccessExpr::Subscript(A::Subscript::Slice { .. }) => {
                        return Err(Error::new(
                            "0A000",
                            "jsonb subscript does not support slices",
                        ));
                    }
                    A::AccessExpr::Dot(_) => {
                        return Err(Error::feature_not_supported(
                            "field selection from a jsonb subscript",
                        ));
                    }
                }
            }
            return Ok(cur);
        }
        let Some(elem) = ty.ty.elem() else {
            return Err(Error::datatype_mismatch(format!(
                "cannot subscript type {} because it does not support subscripting",
                ty.display_name()
            )));
        };
        let mut indexes = Vec::new();
        let mut slices = Vec::new();
        for a in rest {
            match a {
                A::AccessExpr::Subscript(A::Subscript::Index { index }) => indexes.push(index),
                A::AccessExpr::Subscript(A::Subscript::Slice {
                    lower_bound,
                    upper_bound,
                    stride: None,
                }) => slices.push((lower_bound.as_ref(), upper_bound.as_ref())),
                A::AccessExpr::Subscript(A::Subscript::Slice { .. }) => {
                    return Err(Error::syntax("syntax error at or near \":\""));
                }
                A::AccessExpr::Dot(_) => {
                    return Err(Error::feature_not_supported(
                        "field selection from an array element",
                    ));
                }
            }
        }
        if slices.is_empty() {
            let mut args = vec![base];
            for i in indexes {
                let b = self.bind_expr(i, scope)?;
                args.push(self.subscript_operand(b)?);
            }
            return Ok(func_expr(
                Func::ArraySubscript,
                args,
                SqlType::with_typmod(elem, ty.typmod),
            ));
        }
        let ([(lo, hi)], []) = (slices.as_slice(), indexes.as_slice()) else {
            return Err(Error::feature_not_supported(
                "slices of multidimensional arrays",
            ));
        };
        let mut args = vec![base];
        for b in [lo, hi].into_iter().flatten() {
            let b = self.bind_expr(b, scope)?;
            args.push(self.subscript_operand(b)?);
        }
        Ok(func_expr(
            Func::ArraySlice {
                lower: lo.is_some(),
                upper: hi.is_some(),
            },
            args,
            ty,
        ))
    }

    fn subscript_operand(&mut self, e: Expr) -> Result<Expr> {
        match e.ty().ty {
            DataType::Int4 => Ok(e),
            DataType::Int2 | DataType::Int8 | DataType::Unknown => self.coerce(e, INT4),
            _ => Err(Error::datatype_mismatch(
                "array subscript must have type integer",
            )),
        }
    }

    /// `x op ANY (array)` / `x op ALL (array)`.
    pub(super) fn bind_array_quantified(
        &mut self,
        left: &A::Expr,
        op: BinaryOp,
        right: &A::Expr,
        all: bool,
        scope: &Scope,
    ) -> Result<Expr> {
        let l = self.bind_expr(left, scope)?;
        let r = self.bind_expr(right, scope)?;
        let r = match r.ty().ty {
            DataType::Unknown => {
                let elem = match l.ty().ty {
                    DataType::Unknown => DataType::Text,
                    t => t,
                };
                let Some(array) = DataType::array_of(elem) else {
                    return Err(polymorphic_unknown());
                };
                self.coerce(r, SqlType::new(array))?
            }
            t if t.is_array() => r,
            _ => {
                return Err(Error::new(
                    "42809",
                    "op ANY/ALL (array) requires array on right side",
                ));
            }
        };
        let elem = SqlType::new(r.ty().ty.elem().unwrap_or(DataType::Unknown));
        let (l, target) = self.unify_comparison(l, Expr::Unused { ty: elem }, op)?;
        let target = target.ty();
        let r = if target.ty == elem.ty {
            r
        } else {
            let Some(array) = DataType::array_of(target.ty) else {
                return Err(Error::internal("ANY over an array of arrays"));
            };
            self.coerce(r, SqlType::new(array))?
        };
        // `x = ANY ('{1,2,3}')` is `x IN (1, 2, 3)`, whose constant lists run fast.
        if let Expr::Literal {
            value: Value::Array(a),
            ..
        } = &r
            && ((op == BinaryOp::Eq && !all) || (op == BinaryOp::NotEq && all))
        {
            let view = crate::types::array::View::new(&a.bytes, a.elem);
            if !view.is_empty() {
                let list = view
                    .values()
                    .into_iter()
                    .map(|v| Expr::literal(v, target))
                    .collect();
                return Ok(Expr::InList {
                    expr: Box::new(l),
                    list,
                    negated: all,
                });
            }
        }
        // An enum's order is its labels' places, which ANY / ALL over arrays does not
        // use (it compares stored values): refused rather than ordered by label.
        if matches!(target.ty, DataType::Enum(_))
            && matches!(
                op,
                BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq
            )
        {
            return Err(Error::feature_not_supported(
                "ordering comparisons of enums with ANY / ALL",
            ));
        }
        let func = if all {
            Func::ArrayAll(op)
        } else {
            Func::ArrayAny(op)
        };
        Ok(func_expr(func, vec![l, r], BOOL))
    }

    /// UPDATE's subscripted target (`sql::parse::subscript_assignments`): args [target,
    /// value, spec, subscripts …].
    pub(super) fn bind_subscript_assign(&mut self, args: Vec<Expr>) -> Result<Expr> {
        let mut it = args.into_iter();
        let (Some(target), Some(value), Some(spec)) = (it.next(), it.next(), it.next()) else {
            return Err(Error::internal("a subscript assignment without its parts"));
        };
        let subs: Vec<Expr> = it.collect();
        let spec = match &spec {
            Expr::Literal {
                value: Value::Text(s),
                ..
            } => s.clone(),
            _ => return Err(Error::internal("a subscript assignment without its spec")),
        };
        let ty = target.ty();
        if ty.ty == DataType::Jsonb {
            return Err(Error::feature_not_supported(
                "assigning to a jsonb subscript",
            ));
        }
        let Some(elem) = ty.ty.elem() else {
            return Err(Error::new(
                "42804",
                format!(
                    "cannot subscript type {} because it does not support subscripting",
                    ty.display_name()
                ),
            ));
        };
        if spec.len() != 1 {
            return Err(Error::feature_not_supported(
                "assigning to a subscript of a multidimensional array",
            ));
        }
        let slice = spec == "s";
        let int4 = SqlType::new(DataType::Int4);
        let mut bound = vec![target];
        if slice {
            bound.push(self.coerce(value, SqlType::new(ty.ty))?);
        } else {
            bound.push(self.coerce(value, SqlType::with_typmod(elem, ty.typmod))?);
        }
        for s in subs {
            let t = s.ty().ty;
            if t.numeric_rank().is_some() && !t.is_integer() {
                // numeric and floats round to an integer, as their assignment casts do.
                bound.push(self.explicit_cast(s, int4)?);
                continue;
            }
            if !(t.is_integer() || t == DataType::Unknown) {
                return Err(Error::new(
                    "42804",
                    format!(
                        "array subscript must have type integer, not {}",
                        s.ty().display_name()
                    ),
                ));
            }
            bound.push(self.coerce(s, int4)?);
        }
        Ok(func_expr(Func::ArrayAssign { slice }, bound, ty))
    }

    /// Two operands at one array type (an unknown one takes the other's).
    /// `compatible`: PostgreSQL's anycompatiblearray (`||`, array_cat) coerces both to
    /// a common type; anyarray (`@>`, `<@`, `&&`) wants one type already.
    fn array_pair(
        &mut self,
        l: Expr,
        r: Expr,
        symbol: &str,
        compatible: bool,
    ) -> Result<(Expr, Expr, SqlType)> {
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let ty = match (lt, rt) {
            (DataType::Unknown, DataType::Unknown) => return Err(polymorphic_unknown()),
            (DataType::Unknown, t) | (t, DataType::Unknown) if t.is_array() => SqlType::new(t),
            (a, b) if a.is_array() && a == b => SqlType::new(a),
            (a, b) if compatible && a.is_array() && b.is_array() => {
                let refs = [&l, &r];
                common_type(&refs, "ARRAY").map_err(|_| no_operator(a, symbol, b))?
            }
            (a, b) => return Err(no_operator(a, symbol, b)),
        };
        let l = self.coerce(l, ty)?;
        let r = self.coerce(r, ty)?;
        Ok((l, r, ty))
    }

    /// `@>`, `<@`, `&&`.
    pub(super) fn bind_array_operator(&mut self, func: Func, l: Expr, r: Expr) -> Result<Expr> {
        let symbol = match func {
            Func::ArrayContains => "@>",
            Func::ArrayContained => "<@",
            _ => "&&",
        };
        let (l, r, _) = self.array_pair(l, r, symbol, false)?;
        Ok(func_expr(func, vec![l, r], BOOL))
    }

    /// `||` with an array on either side: array_cat, array_append or array_prepend.
    pub(super) fn bind_array_concat(&mut self, l: Expr, r: Expr) -> Result<Expr> {
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        if lt.is_array() && !rt.is_array() && rt != DataType::Unknown {
            return self.array_and_element(Func::ArrayAppend, l, r);
        }
        if rt.is_array() && !lt.is_array() && lt != DataType::Unknown {
            return self.array_and_element(Func::ArrayPrepend, r, l);
        }
        let (l, r, ty) = self.array_pair(l, r, "||", true)?;
        Ok(func_expr(Func::ArrayCat, vec![l, r], SqlType::new(ty.ty)))
    }

    /// array_append(array, x) / array_prepend(x, array): `x` at the element type.
    fn array_and_element(&mut self, func: Func, array: Expr, x: Expr) -> Result<Expr> {
        let at = array.ty().ty;
        let Some(elem) = at.elem() else {
            return Err(polymorphic_unknown());
        };
        let xt = x.ty().ty;
        let x = if xt == elem || xt == DataType::Unknown || cast::is_implicit(xt, elem) {
            self.coerce(x, SqlType::new(elem))?
        } else {
            let (a, b) = if func == Func::ArrayAppend {
                (at, xt)
            } else {
                (xt, at)
            };
            return Err(no_operator(a, "||", b));
        };
        let args = if func == Func::ArrayAppend {
            vec![array, x]
        } else {
            vec![x, array]
        };
        Ok(func_expr(func, args, SqlType::new(at)))
    }

    /// The array functions (see [`is_array_function`]).
    pub(super) fn bind_array_function(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr> {
        let signature = args
            .iter()
            .map(|a| a.ty().display_name())
            .collect::<Vec<_>>()
            .join(", ");
        let missing =
            || Error::undefined_function(format!("function {name}({signature}) does not exist"));
        let types: Vec<DataType> = args.iter().map(|a| a.ty().ty).collect();
        let is_int = |t: &DataType| t.is_integer() || *t == DataType::Unknown;
        let is_text = |t: &DataType| t.is_string();
        let mut args = args;
        match (name, types.as_slice()) {
            ("array_length" | "array_lower" | "array_upper", [a, d]) if is_int(d) => {
                if *a == DataType::Unknown {
                    return Err(polymorphic_unknown());
                }
                if !a.is_array() {
                    return Err(missing());
                }
                let d = args.pop().unwrap_or(Expr::Unused { ty: INT4 });
                let d = self.coerce(d, INT4)?;
                args.push(d);
                let func = match name {
                    "array_length" => Func::ArrayLength,
                    "array_lower" => Func::ArrayLower,
                    _ => Func::ArrayUpper,
                };
                Ok(func_expr(func, args, INT4))
            }
            ("array_ndims" | "array_dims" | "cardinality", [a]) => {
                if *a == DataType::Unknown {
                    return Err(polymorphic_unknown());
                }
                if !a.is_array() {
                    return Err(missing());
                }
                Ok(match name {
                    "array_ndims" => func_expr(Func::ArrayNdims, args, INT4),
                    "array_dims" => func_expr(Func::ArrayDims, args, TEXT),
                    _ => func_expr(Func::Cardinality, args, INT4),
                })
            }
            ("array_to_string", [a, rest @ ..])
                if (1..=2).contains(&rest.len()) && rest.iter().all(is_text) =>
            {
                if *a == DataType::Unknown {
                    return Err(polymorphic_unknown());
                }
                if !a.is_array() {
                    return Err(missing());
                }
                let mut it = args.into_iter();
                let mut out = vec![it.next().unwrap_or(Expr::Unused { ty: TEXT })];
                for e in it {
                    out.push(self.coerce(e, TEXT)?);
                }
                Ok(func_expr(Func::ArrayToString, out, TEXT))
            }
            ("string_to_array", all) if (2..=3).contains(&all.len()) && all.iter().all(is_text) => {
                let args = self.coerce_all(args, TEXT)?;
                let ty = SqlType::new(DataType::array_of(DataType::Text).unwrap_or(DataType::Text));
                Ok(func_expr(Func::StringToArray, args, ty))
            }
            ("array_append" | "array_prepend", [_, _]) => {
                let second = args.pop().unwrap_or(Expr::Unused { ty: TEXT });
                let first = args.pop().unwrap_or(Expr::Unused { ty: TEXT });
                let (func, a, x) = if name == "array_append" {
                    (Func::ArrayAppend, first, second)
                } else {
                    (Func::ArrayPrepend, second, first)
                };
                if !a.ty().ty.is_array() {
                    return Err(if a.ty().ty == DataType::Unknown {
                        polymorphic_unknown()
                    } else {
                        missing()
                    });
                }
                self.array_and_element(func, a, x)
            }
            ("array_cat", [_, _]) => {
                let r = args.pop().unwrap_or(Expr::Unused { ty: TEXT });
                let l = args.pop().unwrap_or(Expr::Unused { ty: TEXT });
                let (l, r, ty) = self.array_pair(l, r, "||", true).map_err(|_| missing())?;
                Ok(func_expr(Func::ArrayCat, vec![l, r], SqlType::new(ty.ty)))
            }
            ("array_position", [a, _, s]) if a.is_array() && is_int(s) => {
                let start = args.pop().unwrap_or(Expr::Unused { ty: INT4 });
                let start = self.coerce(start, INT4)?;
                let elem = SqlType::new(a.elem().unwrap_or(DataType::Unknown));
                let x = args.pop().unwrap_or(Expr::Unused { ty: elem });
                let xt = x.ty().ty;
                if !(xt == elem.ty || xt == DataType::Unknown || cast::is_implicit(xt, elem.ty)) {
                    return Err(missing());
                }
                let x = self.coerce(x, elem)?;
                args.push(x);
                args.push(start);
                Ok(func_expr(Func::ArrayPosition, args, INT4))
            }
            ("array_position" | "array_remove", [a, _]) => {
                if !a.is_array() {
                    return Err(if *a == DataType::Unknown {
                        polymorphic_unknown()
                    } else {
                        missing()
                    });
                }
                let elem = SqlType::new(a.elem().unwrap_or(DataType::Unknown));
                let x = args.pop().unwrap_or(Expr::Unused { ty: elem });
                let xt = x.ty().ty;
                if !(xt == elem.ty || xt == DataType::Unknown || cast::is_implicit(xt, elem.ty)) {
                    return Err(missing());
                }
                let x = self.coerce(x, elem)?;
                args.push(x);
                Ok(if name == "array_position" {
                    func_expr(Func::ArrayPosition, args, INT4)
                } else {
                    let ty = SqlType::new(*a);
                    func_expr(Func::ArrayRemove, args, ty)
                })
            }
            _ => Err(missing()),
        }
    }
}
