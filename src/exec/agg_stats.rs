//! The aggregates beyond count/sum/avg/min/max: bool_and/bool_or, string_agg, the
//! variance family, the two-variable regression statistics, and the ordered-set
//! aggregates (percentile_cont, percentile_disc, mode).
//!
//! They are rarely on a hot path, so each group keeps one small state fed row by row.
//! The arithmetic is PostgreSQL's: float variances and regressions accumulate with the
//! Youngs–Cramer updates of `float8_accum` / `float8_regr_accum` (so results agree to
//! the last digit), numeric variances keep exact sums of `x` and `x²` and finish as
//! `numeric_stddev_internal` does (its scales included). Ordered-set aggregates receive
//! their values already sorted (see `AggCall::gathers`).

use std::cmp::Ordering;

use super::vector::Vector;
use crate::error::{Error, Result};
use crate::sql::expr::AggFunc;
use crate::types::datetime::Interval;
use crate::types::{DataType, Numeric, SqlType, Value};

#[derive(Clone, Debug)]
pub enum General {
    Bool {
        value: Option<bool>,
        and: bool,
    },
    Str(Option<String>),
    /// string_agg(bytea, bytea).
    Bytes(Option<Vec<u8>>),
    VarFloat {
        n: f64,
        sx: f64,
        sxx: f64,
    },
    VarNum {
        n: i64,
        sx: Numeric,
        sxx: Numeric,
        /// The largest display scale of the inputs (PostgreSQL's sumX dscale).
        dscale: u16,
    },
    Regr {
        n: f64,
        sx: f64,
        sy: f64,
        sxx: f64,
        syy: f64,
        sxy: f64,
    },
    /// array_agg: the elements so far, in the stored form (`types::array`); over
    /// arrays, the shape every input must have.
    Array {
        count: usize,
        elems: Vec<u8>,
        shape: Option<Vec<crate::types::array::Dim>>,
    },
    /// jsonb_agg: the elements so far (jsonb); jsonb_object_agg: the members.
    JsonbItems(Option<Vec<Vec<u8>>>),
    JsonbMembers(Option<Vec<(String, Vec<u8>)>>),
    /// json_agg and json_object_agg: the text so far, open at the end.
    JsonText(Option<String>),
    /// The values of an ordered-set aggregate, in order, and its fraction.
    Values {
        values: Vec<Value>,
        fraction: Option<f64>,
    },
}

impl General {
    /// The empty state of `func` (None: not one of these aggregates).
    pub fn new(func: AggFunc, arg_ty: DataType) -> Option<General> {
        Some(match func {
            AggFunc::BoolAnd | AggFunc::BoolOr => General::Bool {
                value: None,
                and: func == AggFunc::BoolAnd,
            },
            AggFunc::StringAgg if arg_ty == DataType::Bytea => General::Bytes(None),
            AggFunc::StringAgg => General::Str(None),
            AggFunc::ArrayAgg => General::Array {
                count: 0,
                elems: Vec::new(),
                shape: None,
            },
            AggFunc::JsonbAgg => General::JsonbItems(None),
            AggFunc::JsonbObjectAgg => General::JsonbMembers(None),
            AggFunc::JsonAgg | AggFunc::JsonObjectAgg => General::JsonText(None),
            AggFunc::VarPop | AggFunc::VarSamp | AggFunc::StddevPop | AggFunc::StddevSamp => {
                if matches!(arg_ty, DataType::Float4 | DataType::Float8) {
                    General::VarFloat {
                        n: 0.0,
                        sx: 0.0,
                        sxx: 0.0,
                    }
                } else {
                    General::VarNum {
                        n: 0,
                        sx: Numeric::ZERO,
                        sxx: Numeric::ZERO,
                        dscale: 0,
                    }
                }
            }
            AggFunc::Corr
            | AggFunc::CovarPop
            | AggFunc::CovarSamp
            | AggFunc::RegrCount
            | AggFunc::RegrSxx
            | AggFunc::RegrSyy
            | AggFunc::RegrSxy
            | AggFunc::RegrAvgX
            | AggFunc::RegrAvgY
            | AggFunc::RegrR2
            | AggFunc::RegrSlope
            | AggFunc::RegrIntercept => General::Regr {
                n: 0.0,
                sx: 0.0,
                sy: 0.0,
                sxx: 0.0,
                syy: 0.0,
                sxy: 0.0,
            },
            AggFunc::PercentileCont | AggFunc::PercentileDisc | AggFunc::Mode => General::Values {
                values: Vec::new(),
                fraction: None,
            },
            AggFunc::CountStar
            | AggFunc::Count
            | AggFunc::Sum
            | AggFunc::Avg
            | AggFunc::Min
            | AggFunc::Max
            | AggFunc::Grouping => return None,
        })
    }

    /// Folds in row `i` of `arg` (and of the extra arguments).
    pub fn update(&mut self, arg: &Vector, extra: &[Vector], i: usize, ty: DataType) -> Result<()> {
        match self {
            General::Bool { value, and } => {
                if let Value::Bool(b) = arg.value(i, DataType::Bool) {
                    *value = Some(match value {
                        None => b,
                        Some(v) if *and => *v && b,
                        Some(v) => *v || b,
                    });
                }
            }
            General::Str(acc) => {
                if arg.is_null(i) {
                    return Ok(());
                }
                let v = arg.value(i, DataType::Text);
                let Value::Text(v) = v else { return Ok(()) };
                match acc {
                    None => *acc = Some(v),
                    Some(s) => {
                        if let Some(Value::Text(d)) =
                            extra.first().map(|d| d.value(i, DataType::Text))
                        {
                            s.push_str(&d);
                        }
                        s.push_str(&v);
                    }
                }
            }
            General::Bytes(acc) => {
                if arg.is_null(i) {
                    return Ok(());
                }
                let Value::Bytes(v) = arg.value(i, DataType::Bytea) else {
                    return Ok(());
                };
                match acc {
                    None => *acc = Some(v),
                    Some(s) => {
                        if let Some(Value::Bytes(d)) =
                            extra.first().map(|d| d.value(i, DataType::Bytea))
                        {
                            s.extend_from_slice(&d);
                        }
                        s.extend_from_slice(&v);
                    }
                }
            }
            General::Array {
                count,
                elems,
                shape,
            } if ty.is_array() => {
                // array_agg over arrays: each input is one slice of the result.
                let Value::Array(a) = arg.value(i, ty) else {
                    return Err(Error::new("22004", "cannot accumulate null arrays"));
                };
                let view = crate::types::array::View::new(&a.bytes, a.elem);
                let dims = view.dims();
                if dims.is_empty() {
                    return Err(Error::new("2202E", "cannot accumulate empty arrays"));
                }
                if dims.len() + 1 > crate::types::array::MAX_DIMS {
                    return Err(Error::new(
                        "54000",
                        format!(
                            "number of array dimensions ({}) exceeds the maximum allowed ({})",
                            dims.len() + 1,
                            crate::types::array::MAX_DIMS
                        ),
                    ));
                }
                match shape {
                    None => *shape = Some(dims),
                    Some(s) if *s == dims => {}
                    Some(_) => {
                        return Err(Error::new(
                            "2202E",
                            "cannot accumulate arrays of different dimensionality",
                        ));
                    }
                }
                *count += 1;
                for e in view.elements() {
                    crate::types::array::push_payload(elems, e);
                }
            }
            General::Array { count, elems, .. } => {
                if *count >= crate::types::array::MAX_ELEMENTS {
                    return Err(Error::new(
                        "54000",
                        format!(
                            "array size exceeds the maximum allowed ({})",
                            crate::types::array::MAX_ELEMENTS
                        ),
                    ));
                }
                *count += 1;
                crate::types::array::push_value(elems, &arg.value(i, ty));
            }
            General::JsonbItems(items) => {
                let item = match arg.value(i, DataType::Jsonb) {
                    Value::Jsonb(b) => b,
                    _ => crate::types::jsonb::null(),
                };
                items.get_or_insert_with(Vec::new).push(item);
            }
            General::JsonbMembers(members) => {
                let key = json_key(arg, i)?;
                let value = match extra.first().map(|v| v.value(i, DataType::Jsonb)) {
                    Some(Value::Jsonb(b)) => b,
                    _ => crate::types::jsonb::null(),
                };
                members.get_or_insert_with(Vec::new).push((key, value));
            }
            General::JsonText(acc) if ty == DataType::Text => {
                // json_object_agg: `{ "k" : v, … }`, duplicates kept.
                let key = json_key(arg, i)?;
                let s = match acc {
                    None => acc.insert(String::from("{ ")),
                    Some(s) => {
                        s.push_str(", ");
                        s
                    }
                };
                crate::types::json::quote(&key, s);
                s.push_str(" : ");
                match extra.first().map(|v| v.value(i, DataType::Json)) {
                    Some(Value::Text(v)) => s.push_str(&v),
                    _ => s.push_str("null"),
                }
            }
            General::JsonText(acc) => {
                let s = match acc {
                    None => acc.insert(String::from("[")),
                    Some(s) => {
                        s.push_str(", ");
                        if matches!(
                            extra.first().map(|e| e.value(i, DataType::Bool)),
                            Some(Value::Bool(true))
                        ) {
                            s.push_str("\n ");
                        }
                        s
                    }
                };
                match arg.value(i, DataType::Json) {
                    Value::Text(v) => s.push_str(&v),
                    _ => s.push_str("null"),
                }
            }
            General::VarFloat { n, sx, sxx } => {
                let Some(x) = float_at(arg, i) else {
                    return Ok(());
                };
                accum(n, sx, sxx, x)?;
            }
            General::VarNum { n, sx, sxx, dscale } => {
                let x = match arg.value(i, ty) {
                    Value::Null => return Ok(()),
                    Value::Numeric(v) => v,
                    other => match other.as_i64() {
                        Some(v) => Numeric::from_i64(v),
                        None => return Ok(()),
                    },
                };
                *n += 1;
                *dscale = (*dscale).max(x.scale());
                sx.add_assign(&x)?;
                sxx.add_assign(&x.mul(&x)?)?;
            }
            General::Regr {
                n,
                sx,
                sy,
                sxx,
                syy,
                sxy,
            } => {
                let (Some(y), Some(x)) =
                    (float_at(arg, i), extra.first().and_then(|e| float_at(e, i)))
                else {
                    return Ok(());
                };
                // float8_regr_accum (Youngs–Cramer).
                let n0 = *n;
                let (sx0, sy0) = (*sx, *sy);
                *n += 1.0;
                *sx += x;
                *sy += y;
                if n0 > 0.0 {
                    let tmp_x = x * *n - *sx;
                    let tmp_y = y * *n - *sy;
                    let scale = 1.0 / (*n * n0);
                    *sxx += tmp_x * tmp_x * scale;
                    *syy += tmp_y * tmp_y * scale;
                    *sxy += tmp_x * tmp_y * scale;
                    if sx.is_infinite()
                        || sxx.is_infinite()
                        || sy.is_infinite()
                        || syy.is_infinite()
                        || sxy.is_infinite()
                    {
                        if (sx.is_infinite() && !sx0.is_infinite() && !x.is_infinite())
                            || (sy.is_infinite() && !sy0.is_infinite() && !y.is_infinite())
                            || ((sxx.is_infinite() || syy.is_infinite())
                                && !sx0.is_infinite()
                                && !x.is_infinite()
                                && !sy0.is_infinite()
                                && !y.is_infinite())
                        {
                            return Err(float_overflow());
                        }
                        if sxx.is_infinite() {
                            *sxx = f64::NAN;
                        }
                        if syy.is_infinite() {
                            *syy = f64::NAN;
                        }
                        if sxy.is_infinite() {
                            *sxy = f64::NAN;
                        }
                    }
                } else {
                    if x.is_nan() || x.is_infinite() {
                        *sxx = f64::NAN;
                        *sxy = f64::NAN;
                    }
                    if y.is_nan() || y.is_infinite() {
                        *syy = f64::NAN;
                        *sxy = f64::NAN;
                    }
                }
            }
            General::Values { values, fraction } => {
                if fraction.is_none()
                    && let Some(f) = extra.first().and_then(|e| float_at(e, i))
                {
                    *fraction = Some(f);
                }
                if !arg.is_null(i) {
                    values.push(arg.value(i, ty));
                }
            }
        }
        Ok(())
    }

    /// The aggregate's value.
    pub fn finish(&self, func: AggFunc, ty: SqlType) -> Result<Value> {
        Ok(match self {
            General::Bool { value, .. } => value.map_or(Value::Null, Value::Bool),
            General::Str(s) => s.clone().map_or(Value::Null, Value::Text),
            General::Bytes(s) => s.clone().map_or(Value::Null, Value::Bytes),
            General::Array {
                count,
                elems,
                shape,
            } => {
                if *count == 0 {
                    return Ok(Value::Null);
                }
                let elem = ty.ty.elem().unwrap_or(DataType::Unknown);
                let mut bytes = Vec::with_capacity(elems.len() + 9);
                let mut dims = vec![crate::types::array::Dim {
                    len: *count as i32,
                    lbound: 1,
                }];
                dims.extend(shape.iter().flatten().copied());
                crate::types::array::Builder::new(&mut bytes, &dims);
                bytes.extend_from_slice(elems);
                Value::Array(Box::new(crate::types::array::Array { elem, bytes }))
            }
            General::JsonbItems(items) => match items {
                Some(items) => Value::Jsonb(crate::types::jsonb::array(items)),
                None => Value::Null,
            },
            General::JsonbMembers(members) => match members {
                Some(m) => Value::Jsonb(crate::types::jsonb::object(m.clone())),
                None => Value::Null,
            },
            General::JsonText(acc) => match acc {
                Some(s) if func == AggFunc::JsonObjectAgg => Value::Text(format!("{s} }}")),
                Some(s) => Value::Text(format!("{s}]")),
                None => Value::Null,
            },
            General::VarFloat { n, sxx, .. } => {
                let (samp, root) = variance_kind(func);
                if *n == 0.0 || (samp && *n <= 1.0) {
                    return Ok(Value::Null);
                }
                let var = if samp { sxx / (n - 1.0) } else { sxx / n };
                Value::Float8(if root { var.sqrt() } else { var })
            }
            General::VarNum { n, sx, sxx, dscale } => {
                let (samp, root) = variance_kind(func);
                if *n == 0 || (samp && *n <= 1) {
                    return Ok(Value::Null);
                }
                numeric_variance(*n, sx, sxx, *dscale, samp, root)?
            }
            General::Regr {
                n,
                sx,
                sy,
                sxx,
                syy,
                sxy,
            } => regr_final(func, *n, *sx, *sy, *sxx, *syy, *sxy),
            General::Values { values, fraction } => ordered_final(func, values, *fraction, ty)?,
        })
    }
}

/// A json object aggregate's key: NULL is an error.
fn json_key(arg: &Vector, i: usize) -> Result<String> {
    match arg.value(i, DataType::Text) {
        Value::Text(k) => Ok(k.to_string()),
        _ => Err(Error::new("22023", "field name must not be null")),
    }
}

/// (sample, square root) for the variance family.
fn variance_kind(func: AggFunc) -> (bool, bool) {
    match func {
        AggFunc::VarPop => (false, false),
        AggFunc::StddevPop => (false, true),
        AggFunc::StddevSamp => (true, true),
        _ => (true, false),
    }
}

fn float_at(v: &Vector, i: usize) -> Option<f64> {
    match v.value(i, DataType::Float8) {
        Value::Float8(x) => Some(x),
        Value::Float4(x) => Some(x as f64),
        Value::Null => None,
        other => other.as_i64().map(|x| x as f64),
    }
}

fn float_overflow() -> Error {
    Error::new("22003", "value out of range: overflow")
}

/// float8_accum's Youngs–Cramer update.
fn accum(n: &mut f64, sx: &mut f64, sxx: &mut f64, x: f64) -> Result<()> {
    let n0 = *n;
    let sx0 = *sx;
    *n += 1.0;
    *sx += x;
    if n0 > 0.0 {
        let tmp = x * *n - *sx;
        *sxx += tmp * tmp / (*n * n0);
        if sx.is_infinite() || sxx.is_infinite() {
            if !sx0.is_infinite() && !x.is_infinite() {
                return Err(float_overflow());
            }
            *sxx = f64::NAN;
        }
    } else if x.is_infinite() || x.is_nan() {
        *sxx = f64::NAN;
    }
    Ok(())
}

/// numeric_stddev_internal: `(N·Σx² − (Σx)²) / (N·(N−1))` (or `/ N²`) at PostgreSQL's
/// scales, and its square root for stddev.
fn numeric_variance(
    n: i64,
    sx: &Numeric,
    sxx: &Numeric,
    dscale: u16,
    samp: bool,
    root: bool,
) -> Result<Value> {
    let rscale = dscale as i32 * 2;
    let vn = Numeric::from_i64(n);
    let sum_sq = sx.mul(sx)?.round(rscale)?;
    let n_sumx2 = vn.mul(sxx)?.round(rscale)?;
    let numerator = n_sumx2.sub(&sum_sq)?;
    if numerator.signum() <= 0 {
        return Ok(Value::Numeric(Numeric::ZERO));
    }
    let denominator = if samp {
        vn.mul(&Numeric::from_i64(n - 1))?
    } else {
        vn.mul(&vn)?
    };
    let dscale = numerator.division_scale(&denominator);
    let var = numerator.div_to_scale(&denominator, dscale)?;
    Ok(Value::Numeric(if root {
        var.sqrt_to_scale(dscale)?
    } else {
        var
    }))
}

fn regr_final(func: AggFunc, n: f64, sx: f64, sy: f64, sxx: f64, syy: f64, sxy: f64) -> Value {
    let float = Value::Float8;
    match func {
        AggFunc::RegrCount => Value::Int8(n as i64),
        _ if n < 1.0 => Value::Null,
        AggFunc::RegrSxx => float(sxx),
        AggFunc::RegrSyy => float(syy),
        AggFunc::RegrSxy => float(sxy),
        AggFunc::RegrAvgX => float(sx / n),
        AggFunc::RegrAvgY => float(sy / n),
        AggFunc::CovarPop => float(sxy / n),
        AggFunc::CovarSamp => {
            if n < 2.0 {
                Value::Null
            } else {
                float(sxy / (n - 1.0))
            }
        }
        AggFunc::Corr => {
            if sxx == 0.0 || syy == 0.0 {
                Value::Null
            } else {
                float(sxy / (sxx * syy).sqrt())
            }
        }
        AggFunc::RegrR2 => {
            if sxx == 0.0 {
                Value::Null
            } else if syy == 0.0 {
                float(1.0)
            } else {
                float((sxy * sxy) / (sxx * syy))
            }
        }
        AggFunc::RegrSlope => {
            if sxx == 0.0 {
                Value::Null
            } else {
                float(sxy / sxx)
            }
        }
        AggFunc::RegrIntercept => {
            if sxx == 0.0 {
                Value::Null
            } else {
                float((sy - sx * sxy / sxx) / n)
            }
        }
        _ => Value::Null,
    }
}

/// percentile_cont, percentile_disc and mode over values in their WITHIN GROUP order.
fn ordered_final(
    func: AggFunc,
    values: &[Value],
    fraction: Option<f64>,
    ty: SqlType,
) -> Result<Value> {
    if func == AggFunc::Mode {
        let mut best: Option<(&Value, usize)> = None;
        let mut i = 0;
        while i < values.len() {
            let mut j = i + 1;
            while j < values.len() && same(&values[i], &values[j]) {
                j += 1;
            }
            if best.is_none_or(|(_, c)| j - i > c) {
                best = Some((&values[i], j - i));
            }
            i = j;
        }
        return Ok(best.map_or(Value::Null, |(v, _)| v.clone()));
    }
    let Some(f) = fraction else {
        return Ok(Value::Null);
    };
    if !(0.0..=1.0).contains(&f) || f.is_nan() {
        return Err(Error::new(
            "22003",
            format!(
                "percentile value {} is not between 0 and 1",
                crate::types::text::value_to_string(
                    &Value::Float8(f),
                    &crate::types::text::TextFormat::default()
                )
            ),
        ));
    }
    if values.is_empty() {
        return Ok(Value::Null);
    }
    let n = values.len();
    if func == AggFunc::PercentileDisc {
        let row = (f * n as f64).ceil() as usize;
        return Ok(values[row.max(1).min(n) - 1].clone());
    }
    let pos = f * (n - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    if lo == hi {
        return Ok(values[lo].clone());
    }
    let pct = pos - lo as f64;
    Ok(match (&values[lo], &values[hi], ty.ty) {
        (Value::Float8(a), Value::Float8(b), _) => Value::Float8(a + (b - a) * pct),
        (Value::Interval(a), Value::Interval(b), _) => Value::Interval(interval_lerp(a, b, pct)),
        (a, _, _) => a.clone(),
    })
}

/// `lo + (hi - lo) * pct` on intervals, as interval_mi and interval_mul do.
fn interval_lerp(lo: &Interval, hi: &Interval, pct: f64) -> Interval {
    let diff = Interval {
        months: hi.months - lo.months,
        days: hi.days - lo.days,
        micros: hi.micros - lo.micros,
    };
    let scaled = crate::exec::expr::scale_interval(&diff, pct);
    Interval {
        months: lo.months + scaled.months,
        days: lo.days + scaled.days,
        micros: lo.micros + scaled.micros,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Numeric(x), Value::Numeric(y)) => x.cmp_value(y) == Ordering::Equal,
        (Value::Float8(x), Value::Float8(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}
