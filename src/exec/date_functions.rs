//! Kernels for the date/time field functions: EXTRACT, date_part, date_trunc, age and
//! AT TIME ZONE (`timezone`). Each row goes through `types::datetime::fields`, which
//! owns PostgreSQL's semantics; these functions only move values between vectors and
//! pick the session zone. None of them is on a benchmark's hot path.

use super::context::ExecContext;
use super::vector::Vector;
use crate::error::{Error, Result};
use crate::sql::expr::{Expr, Func};
use crate::types::datetime::fields::{self, Part, Source};
use crate::types::datetime::{Interval, write_interval};
use crate::types::{SqlType, Value};

/// Evaluates one of the date/time field functions over `n` rows of argument vectors
/// `vs` (bound as `args`), giving type `ty`.
pub fn eval(
    func: Func,
    args: &[Expr],
    vs: &[Vector],
    n: usize,
    ty: SqlType,
    ctx: &ExecContext,
) -> Result<Vector> {
    super::functions::eval_strict_rows(args, vs, n, ty, |row| eval_row(func, row, ctx))
}

fn text(v: &Value) -> Result<&str> {
    match v {
        Value::Text(s) => Ok(s),
        _ => Err(Error::internal(
            "date/time function expected a text argument",
        )),
    }
}

fn source<'a>(v: &Value, ctx: &'a ExecContext) -> Result<Source<'a>> {
    Ok(match v {
        Value::Date(d) => Source::Date(*d),
        Value::Timestamp(t) => Source::Timestamp(*t),
        Value::Timestamptz(t) => Source::Timestamptz(*t, &ctx.fmt.zone),
        Value::Interval(iv) => Source::Interval(*iv),
        Value::Time(t) => Source::Time(*t),
        Value::TimeTz(t) => Source::TimeTz(*t),
        _ => {
            return Err(Error::internal(
                "date/time function expected a date/time argument",
            ));
        }
    })
}

fn interval_text(iv: &Interval) -> String {
    let mut out = Vec::new();
    write_interval(&mut out, iv);
    String::from_utf8_lossy(&out).into_owned()
}

fn eval_row(func: Func, row: &[Value], ctx: &ExecContext) -> Result<Value> {
    match (func, row) {
        (Func::Extract | Func::DatePart, [unit, x]) => {
            let part = fields::extract(text(unit)?, source(x, ctx)?, func == Func::Extract)?;
            Ok(match part {
                Part::Numeric(n) => Value::Numeric(n),
                Part::Float(f) => Value::Float8(f),
                Part::Null => Value::Null,
            })
        }
        (Func::DateTrunc, [unit, Value::Timestamp(t)]) => {
            Ok(Value::Timestamp(fields::trunc_timestamp(text(unit)?, *t)?))
        }
        (Func::DateTrunc, [unit, Value::Timestamptz(t)]) => Ok(Value::Timestamptz(
            fields::trunc_timestamptz(text(unit)?, *t, &ctx.fmt.zone)?,
        )),
        (Func::DateTrunc, [unit, Value::Timestamptz(t), zone]) => {
            let zone = fields::zone_by_name(text(zone)?)?;
            Ok(Value::Timestamptz(fields::trunc_timestamptz(
                text(unit)?,
                *t,
                &zone,
            )?))
        }
        (Func::DateTrunc, [unit, Value::Interval(iv)]) => {
            Ok(Value::Interval(fields::trunc_interval(text(unit)?, iv)?))
        }
        (Func::Age, [Value::Timestamp(a), Value::Timestamp(b)]) => {
            Ok(Value::Interval(fields::age(*a, *b, None)?))
        }
        (Func::Age, [Value::Timestamptz(a), Value::Timestamptz(b)]) => {
            Ok(Value::Interval(fields::age(*a, *b, Some(&ctx.fmt.zone))?))
        }
        (Func::Timezone, [Value::Text(zone), Value::Timestamp(t)]) => {
            Ok(Value::Timestamptz(fields::timestamp_at_zone(*t, zone)?))
        }
        (Func::Timezone, [Value::Text(zone), Value::Timestamptz(t)]) => {
            Ok(Value::Timestamp(fields::timestamptz_at_zone(*t, zone)?))
        }
        (Func::Timezone, [Value::Text(zone), Value::TimeTz(t)]) => Ok(Value::TimeTz(
            fields::timetz_at_zone(*t, zone, ctx.fmt.date_input().now_utc)?,
        )),
        (Func::Timezone, [Value::Interval(iv), Value::TimeTz(t)]) => {
            Ok(Value::TimeTz(fields::timetz_at_interval(*t, iv, || {
                interval_text(iv)
            })?))
        }
        (Func::Timezone, [Value::Interval(iv), Value::Timestamp(t)]) => Ok(Value::Timestamptz(
            fields::timestamp_at_interval(*t, iv, || interval_text(iv))?,
        )),
        (Func::Timezone, [Value::Interval(iv), Value::Timestamptz(t)]) => Ok(Value::Timestamp(
            fields::timestamptz_at_interval(*t, iv, || interval_text(iv))?,
        )),
        _ => Err(Error::internal(format!(
            "{func:?} called with unexpected arguments"
        ))),
    }
}
