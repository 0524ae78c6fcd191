//! Range functions and operators in expressions (`types::range`): constructors,
//! lower / upper and the bound tests, and `@> <@ && << >> &< &> -|- + * -`, resolved
//! as PostgreSQL resolves them — an untyped literal beside a range is a range (or,
//! after `@>`, a range first), an element must be the range's own subtype.

use sqlparser::ast as A;

use super::{BOOL, Binder, TEXT};
use crate::error::Result;
use crate::sql::expr::{Expr, Func, RangeFn};
use crate::types::range::RangeKind;
use crate::types::{DataType, SqlType};

impl Binder<'_> {
    /// A range constructor or function: None when `name` with these arguments is not
    /// one.
    pub(super) fn bind_range_function(
        &mut self,
        name: &str,
        args: &[Expr],
    ) -> Result<Option<Expr>> {
        use RangeFn as F;
        if let Some(kind) = RangeKind::named(name) {
            if !(2..=3).contains(&args.len()) {
                return Ok(None);
            }
            let sub = SqlType::new(kind.subtype());
            let mut bound = Vec::with_capacity(args.len());
            for (i, a) in args.iter().cloned().enumerate() {
                bound.push(if i < 2 {
                    self.coerce_arg(a, sub, name)?
                } else {
                    self.coerce(a, TEXT)?
                });
            }
            return Ok(Some(call(F::Construct, kind, bound, range_type(kind))));
        }
        let Some(DataType::Range(kind)) = args.first().map(|a| a.ty().ty) else {
            return Ok(None);
        };
        let (f, ty) = match (name, args.len()) {
            ("lower", 1) => (F::Lower, SqlType::new(kind.subtype())),
            ("upper", 1) => (F::Upper, SqlType::new(kind.subtype())),
            ("isempty", 1) => (F::IsEmpty, BOOL),
            ("lower_inc", 1) => (F::LowerInc, BOOL),
            ("upper_inc", 1) => (F::UpperInc, BOOL),
            ("lower_inf", 1) => (F::LowerInf, BOOL),
            ("upper_inf", 1) => (F::UpperInf, BOOL),
            ("range_merge", 2) => (F::Merge, range_type(kind)),
            _ => return Ok(None),
        };
        let mut bound = Vec::with_capacity(args.len());
        for a in args.iter().cloned() {
            bound.push(self.coerce_arg(a, range_type(kind), name)?);
        }
        Ok(Some(call(f, kind, bound, ty)))
    }

    /// An argument of exactly type `to`, or an untyped literal taking it.
    fn coerce_arg(&mut self, a: Expr, to: SqlType, name: &str) -> Result<Expr> {
        let t = a.ty().ty;
        if t == to.ty || t == DataType::Unknown || crate::types::cast::is_implicit(t, to.ty) {
            self.coerce(a, to)
        } else {
            Err(crate::error::Error::undefined_function(format!(
                "function {name}({}) does not exist",
                a.ty().display_name()
            )))
        }
    }

    /// A range operator: None when neither side is a range or `op` is none of
    /// theirs (comparisons go the usual way, over the stored bytes).
    pub(super) fn bind_range_operator(
        &mut self,
        op: &A::BinaryOperator,
        l: Expr,
        r: Expr,
    ) -> Result<Option<Expr>> {
        use RangeFn as F;
        let sym = op.to_string();
        let (lt, rt) = (l.ty().ty, r.ty().ty);
        let kind = match (lt, rt) {
            (DataType::Range(k), _) | (_, DataType::Range(k)) => k,
            _ => return Ok(None),
        };
        let range = range_type(kind);
        let elem = kind.subtype();
        let no_op = || super::expr::no_operator(lt, &sym, rt);
        let fits = |t: DataType| t == DataType::Range(kind) || t == DataType::Unknown;
        // numrange equality by value (its stored form keeps the bounds' scales).
        if kind == RangeKind::Num
            && matches!(sym.as_str(), "=" | "<>" | "!=")
            && fits(lt)
            && fits(rt)
        {
            let l = self.coerce(l, range)?;
            let r = self.coerce(r, range)?;
            let eq = call(F::Equal, kind, vec![l, r], BOOL);
            return Ok(Some(if sym == "=" {
                eq
            } else {
                Expr::Not(Box::new(eq))
            }));
        }
        let (f, swap, ty) = match sym.as_str() {
            "@>" if lt == DataType::Range(kind)
                && rt != DataType::Range(kind)
                && rt != DataType::Unknown =>
            {
                if rt != elem {
                    return Err(no_op());
                }
                return Ok(Some(call(F::ContainsElem, kind, vec![l, r], BOOL)));
            }
            "<@" if rt == DataType::Range(kind)
                && lt != DataType::Range(kind)
                && lt != DataType::Unknown =>
            {
                if lt != elem {
                    return Err(no_op());
                }
                return Ok(Some(call(F::ContainsElem, kind, vec![r, l], BOOL)));
            }
            "@>" => (F::Contains, false, BOOL),
            "<@" => (F::Contains, true, BOOL),
            "&&" => (F::Overlaps, false, BOOL),
            "<<" => (F::Before, false, BOOL),
            ">>" => (F::Before, true, BOOL),
            "&<" => (F::OverLeft, false, BOOL),
            "&>" => (F::OverRight, false, BOOL),
            "-|-" => (F::Adjacent, false, BOOL),
            "+" => (F::Union, false, range),
            "*" => (F::Intersection, false, range),
            "-" => (F::Difference, false, range),
            _ => return Ok(None),
        };
        if !fits(lt) || !fits(rt) {
            return Err(no_op());
        }
        let l = self.coerce(l, range)?;
        let r = self.coerce(r, range)?;
        let args = if swap { vec![r, l] } else { vec![l, r] };
        Ok(Some(call(f, kind, args, ty)))
    }
}

fn range_type(kind: RangeKind) -> SqlType {
    SqlType::new(DataType::Range(kind))
}

fn call(f: RangeFn, kind: RangeKind, args: Vec<Expr>, ty: SqlType) -> Expr {
    Expr::Func {
        func: Func::Range(f, kind),
        args,
        ty,
    }
}
